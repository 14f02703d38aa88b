// SPDX-License-Identifier: MIT
/*
 * test_domain.c - domain states across a cluster (lab/sim/domain.c) and the
 * oracle's view of its siblings' future (lab/sim/lookahead.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "domain.h"
#include "lookahead.h"

#define US	1000LL

/*
 * Cluster a: CPUs 0-1, shared 50 mW, domain state D (cluster 5 mW);
 * fallback C2.  Cluster b: CPU 2, no domain state.
 */
static const char platform_text[] =
	"platform t\n"
	"cpus 3\n"
	"cluster a cpus=0-1 active_power_mw=100 idle_power_mw=50\n"
	"state C1 latency_us=1 residency_us=1 model_power_mw=10 flags=time-valid\n"
	"state C2 latency_us=10 residency_us=20 model_power_mw=4 entry_energy_uj=1 "
	"exit_energy_uj=1 flags=time-valid\n"
	"state D latency_us=100 residency_us=200 model_power_mw=2 cluster_power_mw=5 "
	"entry_energy_uj=3 exit_energy_uj=7 flags=time-valid\n"
	"cluster b cpus=2 active_power_mw=100 idle_power_mw=0\n"
	"state C1 latency_us=1 residency_us=1 model_power_mw=10 flags=time-valid\n"
	"state C2 latency_us=10 residency_us=20 model_power_mw=4 flags=time-valid\n"
	"state C3 latency_us=20 residency_us=40 model_power_mw=3 flags=time-valid\n";

static struct cpuidle_platform pf;

static int setup(void **state)
{
	char err[256];

	(void)state;
	if (cpuidle_platform_parse(platform_text, sizeof(platform_text) - 1, "t.platform", &pf,
				   err, sizeof(err))) {
		print_error("%s\n", err);
		return -1;
	}
	return 0;
}

#define EPS	1e-12

/* cmocka 1.1 compares floats only as float: compare doubles here. */
#define assert_double_equal(a, b, eps) \
	assert_true(((a) - (b)) < (eps) && ((b) - (a)) < (eps))

static void test_overlap_takes_effect(void **state)
{
	struct domain_tracker *dt;
	struct domain_totals t;

	(void)state;
	assert_int_equal(domain_tracker_create(&pf, 2, false, &dt), 0);
	assert_non_null(dt);
	assert_true(domain_tracker_wants_segments(dt, 0));
	assert_true(domain_tracker_wants_segments(dt, 1));
	/* CPU 0 in D over [0, 1000) us, CPU 1 over [200, 800) us */
	assert_int_equal(domain_segment(dt, 0, 0, 1000 * US, 1000 * US, 2), 0);
	domain_interval_done(dt, 0, 0, 1000 * US, true);
	assert_int_equal(domain_segment(dt, 1, 200 * US, 600 * US, 600 * US, 2), 0);
	domain_interval_done(dt, 1, 200 * US, 1000 * US, true);
	domain_finish(dt, &t);
	assert_int_equal(t.domain_ns, 600 * US);
	assert_int_equal(t.effective_ns[2], 1200 * US);
	/* CPU 0 fell back to C2 (4 mW instead of 2) for 400 us; CPU 1 never */
	assert_double_equal(t.cpu_correction_mj, 2.0 * 400e3 * 1e-9, EPS);
	/* shared: 50 mW for 400 us awake, 5 mW for 600 us in D */
	assert_double_equal(t.cluster_energy_mj, (50.0 * 400e3 + 5.0 * 600e3) * 1e-9, EPS);
	assert_int_equal(t.forced, 0);
	domain_tracker_destroy(dt);
}

/* The siblings' stays may be reported in any order: the same answer. */
static void test_report_order_does_not_matter(void **state)
{
	struct domain_tracker *dt;
	struct domain_totals t;

	(void)state;
	assert_int_equal(domain_tracker_create(&pf, 2, false, &dt), 0);
	assert_int_equal(domain_segment(dt, 1, 200 * US, 600 * US, 600 * US, 2), 0);
	domain_interval_done(dt, 1, 200 * US, 1000 * US, true);
	assert_int_equal(domain_segment(dt, 0, 0, 1000 * US, 1000 * US, 2), 0);
	domain_interval_done(dt, 0, 0, 1000 * US, true);
	domain_finish(dt, &t);
	assert_int_equal(t.domain_ns, 600 * US);
	assert_int_equal(t.effective_ns[2], 1200 * US);
	assert_double_equal(t.cpu_correction_mj, 2.0 * 400e3 * 1e-9, EPS);
	domain_tracker_destroy(dt);
}

/* One wakes as the other sleeps: never all asleep, the fallback is charged. */
static void test_touching_stays_never_couple(void **state)
{
	struct domain_tracker *dt;
	struct domain_totals t;

	(void)state;
	assert_int_equal(domain_tracker_create(&pf, 2, false, &dt), 0);
	assert_int_equal(domain_segment(dt, 0, 0, 500 * US, 500 * US, 2), 0);
	domain_interval_done(dt, 0, 0, 1000 * US, true);
	assert_int_equal(domain_segment(dt, 1, 500 * US, 500 * US, 500 * US, 2), 0);
	domain_interval_done(dt, 1, 500 * US, 1000 * US, true);
	domain_finish(dt, &t);
	assert_int_equal(t.domain_ns, 0);
	assert_int_equal(t.effective_ns[2], 0);
	/* each: C2's power for 500 us, and C2's 2 uJ instead of D's 10 uJ */
	assert_double_equal(t.cpu_correction_mj, 2 * (2.0 * 500e3 * 1e-9 - 8000 * 1e-6), EPS);
	assert_double_equal(t.cluster_energy_mj, 50.0 * 1000e3 * 1e-9, EPS);
	domain_tracker_destroy(dt);
}

/* An ordinary state on a sibling blocks the domain state. */
static void test_ordinary_sibling_blocks(void **state)
{
	struct domain_tracker *dt;
	struct domain_totals t;

	(void)state;
	assert_int_equal(domain_tracker_create(&pf, 2, false, &dt), 0);
	assert_int_equal(domain_segment(dt, 0, 0, 1000 * US, 1000 * US, 2), 0);
	domain_interval_done(dt, 0, 0, 1000 * US, true);
	assert_int_equal(domain_segment(dt, 1, 0, 1000 * US, 1000 * US, 1), 0);
	domain_interval_done(dt, 1, 0, 1000 * US, true);
	domain_finish(dt, &t);
	assert_int_equal(t.domain_ns, 0);
	domain_tracker_destroy(dt);
}

/* A CPU that never reports is taken as running; memory stays bounded. */
static void test_silent_sibling(void **state)
{
	struct domain_tracker *dt;
	struct domain_totals t;
	int64_t i;

	(void)state;
	assert_int_equal(domain_tracker_create(&pf, 2, false, &dt), 0);
	for (i = 0; i < 200000; i++) {
		assert_int_equal(domain_segment(dt, 0, i * 100 * US, 90 * US, 90 * US, 2), 0);
		domain_interval_done(dt, 0, i * 100 * US, (i + 1) * 100 * US, true);
	}
	domain_finish(dt, &t);
	assert_int_equal(t.domain_ns, 0);
	assert_true(t.forced >= 1);
	domain_tracker_destroy(dt);
}

/*
 * One interval of 200,000 stays (polls cut by their limit over a long
 * idle), its sibling silent: swept as it goes, never held whole.
 */
static void test_silent_sibling_one_long_interval(void **state)
{
	struct domain_tracker *dt;
	struct domain_totals t;
	int64_t i;

	(void)state;
	assert_int_equal(domain_tracker_create(&pf, 2, false, &dt), 0);
	for (i = 0; i < 200000; i++)
		assert_int_equal(domain_segment(dt, 0, i * 100 * US, 100 * US, 100 * US, 0), 0);
	domain_interval_done(dt, 0, 0, 200000 * 100 * US, true);
	domain_finish(dt, &t);
	assert_int_equal(t.domain_ns, 0);
	assert_true(t.forced >= 1);
	assert_true(t.held_max <= 64 * 1024 + 1);
	domain_tracker_destroy(dt);
}

static void test_nothing_to_track(void **state)
{
	static const char text[] =
		"platform flat\n"
		"state C1 latency_us=1 residency_us=1 model_power_mw=10\n"
		"state C2 latency_us=10 residency_us=20 model_power_mw=4\n";
	struct cpuidle_platform flat;
	struct domain_tracker *dt = (void *)1;
	struct domain_totals t;

	(void)state;
	assert_int_equal(cpuidle_platform_parse(text, sizeof(text) - 1, "f", &flat, NULL, 0), 0);
	assert_int_equal(domain_tracker_create(&flat, 4, false, &dt), 0);
	assert_null(dt);
	assert_false(domain_tracker_wants_segments(dt, 0));
	domain_interval_done(dt, 0, 0, 10, true);	/* NULL is fine */
	domain_finish(dt, &t);
	assert_int_equal(t.domain_ns, 0);
	assert_int_equal(domain_tracker_create(NULL, 4, false, &dt), -EINVAL);
}

/*
 * The overlap, asked for, on a platform with nothing else to track: the
 * time both CPUs were in C1 or deeper, and in C2 at once, whatever order
 * they report in; the cluster's domain accounting is not touched.
 */
static void test_overlap_measured(void **state)
{
	static const char text[] =
		"platform flat\n"
		"state C1 latency_us=1 residency_us=1 model_power_mw=10\n"
		"state C2 latency_us=10 residency_us=20 model_power_mw=4\n";
	struct cpuidle_platform flat;
	struct domain_tracker *dt;
	struct domain_totals t;

	(void)state;
	assert_int_equal(cpuidle_platform_parse(text, sizeof(text) - 1, "f", &flat, NULL, 0), 0);
	assert_int_equal(domain_tracker_create(&flat, 2, true, &dt), 0);
	assert_non_null(dt);
	assert_true(domain_tracker_wants_segments(dt, 1));
	assert_false(domain_tracker_has_domain(dt, 1));
	/* CPU 1: C2 over [100, 500) us, C1 over [600, 900) */
	assert_int_equal(domain_segment(dt, 1, 100 * US, 400 * US, 400 * US, 1), 0);
	assert_int_equal(domain_segment(dt, 1, 600 * US, 300 * US, 300 * US, 0), 0);
	domain_interval_done(dt, 1, 100 * US, 1000 * US, true);
	/* CPU 0: C2 over [0, 300) us, C1 over [300, 700) */
	assert_int_equal(domain_segment(dt, 0, 0, 300 * US, 300 * US, 1), 0);
	assert_int_equal(domain_segment(dt, 0, 300 * US, 400 * US, 400 * US, 0), 0);
	domain_interval_done(dt, 0, 0, 1000 * US, true);
	domain_finish(dt, &t);
	/* both idle: [100, 500) + [600, 700); both in C2: [100, 300) */
	assert_int_equal(t.together_ns[0], 500 * US);
	assert_int_equal(t.together_ns[1], 200 * US);
	assert_int_equal(t.domain_ns, 0);
	assert_double_equal(t.cluster_energy_mj, 0, EPS);
	domain_tracker_destroy(dt);
	/* not asked for: nothing tracked */
	assert_int_equal(domain_tracker_create(&flat, 2, false, &dt), 0);
	assert_null(dt);
}

static struct idle_interval iv_of(unsigned int cpu, int64_t start_us, int64_t idle_us,
				  int64_t busy_us)
{
	struct idle_interval iv = { 0 };

	iv.cpu = (uint16_t)cpu;
	iv.start_ns = start_us * US;
	iv.idle_ns = idle_us * US;
	iv.busy_ns = busy_us * US;
	return iv;
}

static void test_lookahead_holds_until_siblings_known(void **state)
{
	struct lookahead *la;
	struct idle_interval iv = iv_of(0, 0, 1000, 100), out;
	unsigned int sib;

	(void)state;
	assert_int_equal(lookahead_create(&pf, 3, &la), 0);
	assert_int_equal(lookahead_push(la, &iv), 0);
	assert_false(lookahead_pop(la, false, &out));	/* CPU 1 unknown */
	iv = iv_of(1, 200, 600, 300);			/* known to 1100 us */
	assert_int_equal(lookahead_push(la, &iv), 0);
	assert_true(lookahead_pop(la, false, &out));
	assert_int_equal(out.cpu, 0);
	assert_int_equal(lookahead_siblings_idle_ns(la, 0, 0, 1000 * US, &sib), 600 * US);
	assert_int_equal(sib, 2);
	assert_int_equal(lookahead_siblings_idle_ns(la, 0, 500 * US, 1000 * US, &sib), 300 * US);
	/* CPU 0 is known to 1100 us, past CPU 1's end */
	assert_true(lookahead_pop(la, false, &out));
	assert_int_equal(out.cpu, 1);
	assert_int_equal(lookahead_siblings_idle_ns(la, 1, 200 * US, 800 * US, &sib), 600 * US);
	assert_false(lookahead_pop(la, true, &out));
	/* CPU 2 has its own cluster: no siblings, the whole stay */
	iv = iv_of(2, 0, 50, 0);
	assert_int_equal(lookahead_push(la, &iv), 0);
	assert_true(lookahead_pop(la, false, &out));
	assert_int_equal(lookahead_siblings_idle_ns(la, 2, 0, 50 * US, &sib), 50 * US);
	assert_int_equal(sib, 1);
	lookahead_destroy(la);
}

/* Several sibling spans inside one stay add up; gaps do not count. */
static void test_lookahead_many_spans(void **state)
{
	struct lookahead *la;
	struct idle_interval iv, out;
	unsigned int sib;
	int i;

	(void)state;
	assert_int_equal(lookahead_create(&pf, 2, &la), 0);
	iv = iv_of(0, 0, 10000, 10);
	assert_int_equal(lookahead_push(la, &iv), 0);
	for (i = 0; i < 10; i++) {	/* CPU 1: idle 700 us of every 1000 */
		iv = iv_of(1, i * 1000, 700, 300);
		assert_int_equal(lookahead_push(la, &iv), 0);
	}
	assert_true(lookahead_pop(la, false, &out));
	assert_int_equal(out.cpu, 0);
	assert_int_equal(lookahead_siblings_idle_ns(la, 0, 0, 10000 * US, &sib), 7000 * US);
	assert_int_equal(lookahead_siblings_idle_ns(la, 0, 650 * US, 1750 * US, &sib),
			 (50 + 700) * US);
	for (i = 0; i < 10; i++)
		assert_true(lookahead_pop(la, true, &out));
	assert_false(lookahead_pop(la, true, &out));
	lookahead_destroy(la);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overlap_takes_effect),
		cmocka_unit_test(test_report_order_does_not_matter),
		cmocka_unit_test(test_touching_stays_never_couple),
		cmocka_unit_test(test_ordinary_sibling_blocks),
		cmocka_unit_test(test_silent_sibling),
		cmocka_unit_test(test_silent_sibling_one_long_interval),
		cmocka_unit_test(test_nothing_to_track),
		cmocka_unit_test(test_overlap_measured),
		cmocka_unit_test(test_lookahead_holds_until_siblings_known),
		cmocka_unit_test(test_lookahead_many_spans),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
