// SPDX-License-Identifier: MIT
/*
 * test_cluster.c - what a governor sees of its cluster: the core's
 * cpuidle_cluster_view() and cpuidle_publish_expected_stay(), the lab's
 * view of a replay (lab/sim/siblings.c, interleave.c: the present and the
 * past at the asking CPU's now, never the future), and the cluster
 * governor's domain rule on hand-made two-CPU scenarios.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fixture.h"
#include "batch.h"
#include "replay.h"

#define US	1000LL
#define MS	(1000 * US)

/* ------------------------------------------------------------ the core */

static int two_siblings(struct fixture *fx, struct cpuidle_device *dev,
			struct cpuidle_cluster_view *view, struct cpuidle_sibling *sib,
			unsigned int max)
{
	unsigned int i;

	view->now_ns = (int64_t)fx->clock[dev->cpu];
	for (i = 0; i < 3 && i < max; i++) {
		memset(&sib[i], 0, sizeof(sib[i]));
		sib[i].cpu = 10 + i;
	}
	return 3;
}

static void test_view_args(void **state)
{
	struct cpuidle_cluster_view view;
	struct cpuidle_sibling sib[2];
	struct cpuidle_device loose = { .cpu = 3 };
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 1, 0);
	assert_int_equal(cpuidle_cluster_view(NULL, &view, sib, 2), -EINVAL);
	assert_int_equal(cpuidle_cluster_view(&fx.dev[0], NULL, sib, 2), -EINVAL);
	assert_int_equal(cpuidle_cluster_view(&fx.dev[0], &view, NULL, 2), -EINVAL);
	assert_int_equal(cpuidle_cluster_view(&loose, &view, sib, 2), -ENODEV);
	/* an embedding that describes no cluster */
	assert_int_equal(cpuidle_cluster_view(&fx.dev[0], &view, sib, 2), -EOPNOTSUPP);
	/* one that does: its count, only @max of them described */
	fx.view = two_siblings;
	assert_int_equal(cpuidle_cluster_view(&fx.dev[0], &view, sib, 2), 3);
	assert_int_equal(view.now_ns, (int64_t)fx.clock[0]);
	assert_null(view.energy);
	assert_int_equal(sib[0].cpu, 10);
	assert_int_equal(sib[1].cpu, 11);
	assert_int_equal(cpuidle_cluster_view(&fx.dev[0], &view, NULL, 0), 3);
	fx_fini(&fx);
}

/* publishes 1000 ns per CPU number plus 7 */
static int pub_select(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)stop_tick;
	cpuidle_publish_expected_stay(dev, 1000 * (int64_t)dev->cpu + 7);
	return 0;
}

static const struct cpuidle_governor pub_gov = {
	.name = "pub",
	.rating = 100,
	.select = pub_select,
};

static void test_publish(void **state)
{
	struct cpuidle_idle_ctx ctx = { .sleep_length_ns = MS, .delta_tick_ns = MS,
					.expected_stay_ns = 42 };
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	/* menu publishes nothing: unknown, whatever the context held */
	fx.stay_ns[1] = 10 * US;
	assert_int_equal(cpuidle_switch_governor(fx.sys, "menu"), 0);
	assert_true(cpuidle_idle_call(&fx.dev[1], &ctx) >= 0);
	assert_int_equal(ctx.expected_stay_ns, CPUIDLE_TIME_UNKNOWN);
	assert_int_equal(cpuidle_register_governor(fx.sys, &pub_gov), 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "pub"), 0);
	assert_true(cpuidle_idle_call(&fx.dev[1], &ctx) >= 0);
	assert_int_equal(ctx.expected_stay_ns, 1007);
	fx_fini(&fx);
}

/* ------------------------------------------------------------ the lab's view */

/*
 * Two CPUs sharing a domain state (exit latencies 0, so that a replayed
 * stay is its interval exactly), and a third alone in its cluster.
 */
static const char twin_text[] =
	"platform twin\n"
	"cpus 3\n"
	"cluster pair cpus=0-1 active_power_mw=100 idle_power_mw=50\n"
	"state C1 latency_us=0 residency_us=1 model_power_mw=10 flags=time-valid\n"
	"state D latency_us=0 residency_us=100 model_power_mw=0 cluster_power_mw=5 "
	"entry_energy_uj=1 exit_energy_uj=1 flags=time-valid\n"
	"cluster lone cpus=2 active_power_mw=100 idle_power_mw=50\n"
	"state C1 latency_us=0 residency_us=1 model_power_mw=10 flags=time-valid\n"
	"state D latency_us=0 residency_us=100 model_power_mw=0 cluster_power_mw=5 "
	"entry_energy_uj=1 exit_energy_uj=1 flags=time-valid\n";

static struct cpuidle_platform twin;

#define MAX_IV	64

/* the trace the peeking governor checks its views against */
static struct {
	struct idle_interval iv[MAX_IV];
	size_t n;
	unsigned int checked, idle, running, queued_ahead, alone, refused;
	bool failed;
} truth;

static void add_iv(unsigned int cpu, int64_t start, int64_t idle, int64_t timer)
{
	struct idle_interval *iv = &truth.iv[truth.n++];

	memset(iv, 0, sizeof(*iv));
	memset(iv->kstates, -1, sizeof(iv->kstates));
	iv->cpu = (uint16_t)cpu;
	iv->start_ns = start;
	iv->idle_ns = idle;
	iv->timer_ns = timer;
	iv->busy_ns = 50 * US;
	iv->qos_us = 2000000000;
	iv->irq = -1;
	iv->wake = IV_WAKE_IRQ;
	iv->nr_entries = 1;
}

/* The interval of @cpu holding @t, or NULL. */
static const struct idle_interval *truth_at(unsigned int cpu, int64_t t)
{
	size_t i;

	for (i = 0; i < truth.n; i++)
		if (truth.iv[i].cpu == cpu && truth.iv[i].start_ns <= t &&
		    t < truth.iv[i].start_ns + truth.iv[i].idle_ns)
			return &truth.iv[i];
	return NULL;
}

/* Whether @cpu has an interval starting after @t. */
static bool truth_later(unsigned int cpu, int64_t t)
{
	size_t i;

	for (i = 0; i < truth.n; i++)
		if (truth.iv[i].cpu == cpu && truth.iv[i].start_ns > t)
			return true;
	return false;
}

#define CHECK(cond)	do { if (!(cond)) { truth.failed = true; \
	print_error("%s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

/* Every view against the trace; it always picks D and publishes a known stay. */
static int peek_select(struct cpuidle_device *dev, bool *stop_tick)
{
	struct cpuidle_sibling sib[4];
	struct cpuidle_cluster_view view;
	const struct idle_interval *mine, *t;
	int n, i;

	*stop_tick = true;
	cpuidle_publish_expected_stay(dev, 1000 * (int64_t)dev->cpu + 7);
	n = cpuidle_cluster_view(dev, &view, sib, 4);
	if (n == -EOPNOTSUPP) {
		truth.refused++;
		return 1;
	}
	mine = truth_at(dev->cpu, view.now_ns);
	CHECK(mine && mine->start_ns == view.now_ns);
	CHECK(view.energy && view.energy->idle_power_mw == 50 &&
	      view.energy->domain_power_mw[0] == -1 && view.energy->domain_power_mw[1] == 5 &&
	      view.energy->transition_nj[1] == 2000 && view.energy->state_power_mw[0] == 10);
	if (dev->cpu == 2) {
		CHECK(n == 0);
		truth.alone++;
		return 1;
	}
	CHECK(n == 1);
	for (i = 0; i < n; i++) {
		const struct cpuidle_sibling *s = &sib[i];

		CHECK(s->cpu == 1 - dev->cpu);
		t = truth_at(s->cpu, view.now_ns);
		CHECK(s->idle == (t != NULL));
		truth.checked++;
		if (!t) {
			truth.running++;
			/* read ahead of now, never shown */
			truth.queued_ahead += truth_later(s->cpu, view.now_ns);
			CHECK(s->state == -1 && s->idle_since_ns == CPUIDLE_TIME_UNKNOWN &&
			      s->entered_ns == CPUIDLE_TIME_UNKNOWN &&
			      s->timer_ns == CPUIDLE_TIME_UNKNOWN &&
			      s->expected_ns == CPUIDLE_TIME_UNKNOWN);
			continue;
		}
		truth.idle++;
		CHECK(s->state == 1);
		CHECK(s->idle_since_ns == t->start_ns && s->entered_ns == t->start_ns);
		CHECK(s->timer_ns == (t->timer_ns == IV_NO_TIMER ? CPUIDLE_TIME_INFINITE :
				      t->start_ns + t->timer_ns));
		CHECK(s->expected_ns == t->start_ns + 1000 * (int64_t)s->cpu + 7);
		/* nothing of its end */
		CHECK(s->idle_since_ns <= view.now_ns && s->entered_ns <= view.now_ns);
	}
	return 1;
}

static const struct cpuidle_governor peek_gov = {
	.name = "peek",
	.select = peek_select,
};

static void replay_truth(const struct cpuidle_platform *p, const char *gov, unsigned int cpus,
			 struct cpuidle_lab_result *res)
{
	static const struct cpuidle_governor *const own[] = { &peek_gov, NULL };
	struct cpuidle_lab_trace *t;
	struct cpuidle_lab_run cfg = {
		.platform = p,
		.governor = gov,
		.governors = own,
		.qos_us = -1,
	};

	assert_int_equal(lab_trace_from_intervals(truth.iv, truth.n, cpus, &t), 0);
	cfg.trace = t;
	assert_int_equal(cpuidle_lab_replay(&cfg, res), 0);
	cpuidle_lab_trace_close(t);
}

static int setup(void **state)
{
	char err[256];

	(void)state;
	if (cpuidle_platform_parse(twin_text, sizeof(twin_text) - 1, "twin.platform", &twin, err,
				   sizeof(err))) {
		print_error("%s\n", err);
		return -1;
	}
	return 0;
}

/*
 * The source gives CPU 1's intervals first, long before CPU 0's that come
 * earlier in time (as a reader gives an interval once it is over): the
 * replay holds them, and at CPU 0's now a CPU 1 interval still to come
 * must look running, one under way idle since its start.
 */
static void test_lab_view_no_future(void **state)
{
	static struct cpuidle_lab_result res;
	int64_t t0 = 1000 * MS;

	(void)state;
	memset(&truth, 0, sizeof(truth));
	add_iv(1, t0 + 5 * MS + 3 * US, 1 * MS, 2 * MS);
	add_iv(1, t0 + 20 * MS + 11 * US, 10 * MS, 12 * MS);
	add_iv(1, t0 + 40 * MS + 13 * US, 3 * MS, IV_NO_TIMER);
	add_iv(0, t0 + 1 * MS, 1 * MS, 5 * MS);
	add_iv(0, t0 + 5 * MS + 500 * US, 300 * US, 1 * MS);
	add_iv(0, t0 + 7 * MS, 1 * MS, 3 * MS);
	add_iv(0, t0 + 21 * MS, 2 * MS, 4 * MS);
	add_iv(0, t0 + 25 * MS, 10 * MS, 10 * MS);
	add_iv(0, t0 + 41 * MS, 1 * MS, 2 * MS);
	add_iv(2, t0 + 2 * MS, 1 * MS, 2 * MS);
	replay_truth(&twin, "peek", 3, &res);
	assert_false(truth.failed);
	assert_int_equal(res.intervals, truth.n);
	assert_int_equal(res.entries, truth.n);
	/* every kind met: idle, running, a running one whose next interval was read */
	assert_int_equal(truth.checked, 9);
	assert_true(truth.idle >= 4);
	assert_true(truth.running >= 2);
	assert_true(truth.queued_ahead >= 2);
	assert_int_equal(truth.alone, 1);
	assert_int_equal(truth.refused, 0);
	/* both CPUs asked for D while the other was: the cluster coupled */
	assert_true(res.domain_ns > 0);
}

/* Where the replay cannot show siblings at their now, it says so. */
static void test_lab_view_refused(void **state)
{
	static struct cpuidle_lab_result res;
	struct cpuidle_platform laptop;
	char err[256];

	(void)state;
	assert_int_equal(cpuidle_platform_load("laptop", &laptop, err, sizeof(err)), 0);
	memset(&truth, 0, sizeof(truth));
	add_iv(0, 1000 * MS, 1 * MS, 5 * MS);
	add_iv(1, 1000 * MS + 500 * US, 1 * MS, 5 * MS);
	/* no domain state: the CPUs are replayed an interval at a time */
	replay_truth(&laptop, "peek", 2, &res);
	assert_false(truth.failed);
	assert_int_equal(truth.refused, 2);
	assert_int_equal(truth.checked, 0);
}

/* ------------------------------------------------------------ the governor */

/* C1, C2 ordinary, D the cluster's: target residencies only (no power) */
static const struct fx_state_desc fx_domain[] = {
	{ "C1", 1, 2, -1, CPUIDLE_FLAG_TIME_VALID },
	{ "C2", 10, 100, -1, CPUIDLE_FLAG_TIME_VALID },
	{ "D", 20, 500, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_DOMAIN },
};

#define C1	0
#define C2	1
#define D	2

static const struct cpuidle_cluster_energy domain_energy = {
	.idle_power_mw = 1000,
	.state_power_mw = { 100, 10, 10 },
	.transition_nj = { 1000, 20000, 100000 },
	.domain_power_mw = { -1, -1, 100, -1, -1, -1, -1, -1, -1, -1 },
};

/* the one sibling the scenario shows, at the asking CPU's now */
static struct {
	bool idle;
	int state;
	int64_t since_ago, expected_in, timer_in;
	bool energy;
} scene;

static int scene_view(struct fixture *fx, struct cpuidle_device *dev,
		      struct cpuidle_cluster_view *view, struct cpuidle_sibling *sib,
		      unsigned int max)
{
	int64_t now = (int64_t)fx->clock[dev->cpu];

	view->now_ns = now;
	view->energy = scene.energy ? &domain_energy : NULL;
	if (!max)
		return 1;
	sib->cpu = 3;
	sib->idle = scene.idle;
	sib->state = scene.idle ? scene.state : -1;
	sib->idle_since_ns = scene.idle ? now - scene.since_ago : CPUIDLE_TIME_UNKNOWN;
	sib->entered_ns = sib->idle_since_ns;
	sib->timer_ns = scene.idle ? now + scene.timer_in : CPUIDLE_TIME_UNKNOWN;
	sib->expected_ns = scene.idle ? now + scene.expected_in : CPUIDLE_TIME_UNKNOWN;
	return 1;
}

/*
 * CPU 0 learns long stays (10 ms), CPU 1 short ones (40 us), with no view
 * (hazard's learning); then the scene is shown.
 */
static void trained(struct fixture *fx)
{
	int i;

	fx_init(fx, fx_domain, FX_ARRAY_SIZE(fx_domain), 3, 0);
	assert_int_equal(cpuidle_switch_governor(fx->sys, "cluster"), 0);
	for (i = 0; i < 40; i++) {
		assert_true(fx_idle(fx, 0, 10 * MS, 10 * MS, false) >= 0);
		assert_true(fx_idle(fx, 1, 40 * US, 10 * MS, false) >= 0);
	}
	fx->view = scene_view;
	memset(&scene, 0, sizeof(scene));
	scene.energy = true;
}

static int choose(struct fixture *fx, int cpu, bool *stop_tick)
{
	int64_t tick = cpuidle_tick_nsec(fx->sys);

	return fx_idle_ex(fx, cpu, 10 * US, 10 * MS, tick, true, false, stop_tick);
}

static void test_both_idle_long(void **state)
{
	struct fixture fx;
	bool stop;

	(void)state;
	trained(&fx);
	/* the sibling in D for 5 ms, expecting 5 more: the long stay completes the cluster */
	scene.idle = true;
	scene.state = D;
	scene.since_ago = 5 * MS;
	scene.expected_in = 5 * MS;
	scene.timer_in = 10 * MS;
	assert_int_equal(choose(&fx, 0, &stop), D);
	assert_true(stop);	/* no tick to cut it */
	/* by target residencies alone too */
	scene.energy = false;
	assert_int_equal(choose(&fx, 0, &stop), D);
	fx_fini(&fx);
}

static void test_sibling_running(void **state)
{
	struct fixture fx;

	(void)state;
	trained(&fx);
	/* a short stay with the sibling running: no domain state */
	assert_int_equal(choose(&fx, 1, NULL), C1);
	/* nor with the sibling idle in an ordinary state */
	scene.idle = true;
	scene.state = C2;
	scene.since_ago = 5 * MS;
	scene.expected_in = 5 * MS;
	scene.timer_in = 10 * MS;
	assert_int_equal(choose(&fx, 1, NULL), C1);
	/*
	 * A long stay offers the domain state though (step 2): it costs
	 * what C2 would unless the sibling joins, which only it can decide
	 */
	assert_int_equal(choose(&fx, 0, NULL), D);
	scene.idle = false;
	assert_int_equal(choose(&fx, 0, NULL), D);
	fx_fini(&fx);
}

static void test_short_stay_completes_only_if_it_pays(void **state)
{
	struct fixture fx;

	(void)state;
	trained(&fx);
	/* 40 us coupled do not pay for D's 100 uJ (and the sibling's 80 more) */
	scene.idle = true;
	scene.state = D;
	scene.since_ago = 50 * MS;
	scene.expected_in = 50 * MS;
	scene.timer_in = 100 * MS;
	assert_int_equal(choose(&fx, 1, NULL), C1);
	fx_fini(&fx);
}

static void test_sibling_about_to_wake(void **state)
{
	struct fixture fx;
	bool stop;

	(void)state;
	trained(&fx);
	scene.idle = true;
	scene.state = D;
	scene.since_ago = 5 * MS;
	scene.expected_in = 10 * US;
	scene.timer_in = 10 * US;
	/* by default a long stay prices the coupling over its own stay */
	assert_int_equal(choose(&fx, 0, &stop), D);
	/* with the siblings' remaining stays, 10 us pay nothing: C2, the tick kept */
	assert_int_equal(cpuidle_param_set(fx.sys, "cluster", "siblings_remaining", 1), 0);
	assert_int_equal(choose(&fx, 0, &stop), C2);
	assert_false(stop);
	/* a sibling that will stay: D again */
	scene.expected_in = 5 * MS;
	scene.timer_in = 10 * MS;
	assert_int_equal(choose(&fx, 0, &stop), D);
	fx_fini(&fx);
}

/*
 * A stay of 300 us: too short for D's target residency, so hazard keeps to
 * C2; with the sibling asleep in D, the cluster's saving over the stay
 * pays for D's entry and exit (the sibling's too), and this CPU completes it.
 */
static void test_completes_where_hazard_would_not(void **state)
{
	struct fixture fx, hz;
	int i;

	(void)state;
	trained(&fx);
	fx_init(&hz, fx_domain, FX_ARRAY_SIZE(fx_domain), 3, 0);
	assert_int_equal(cpuidle_switch_governor(hz.sys, "hazard"), 0);
	for (i = 0; i < 40; i++) {
		assert_true(fx_idle(&fx, 2, 300 * US, 10 * MS, false) >= 0);
		assert_true(fx_idle(&hz, 2, 300 * US, 10 * MS, false) >= 0);
	}
	scene.idle = true;
	scene.state = D;
	scene.since_ago = 5 * MS;
	scene.expected_in = 5 * MS;
	scene.timer_in = 10 * MS;
	assert_int_equal(choose(&hz, 2, NULL), C2);
	assert_int_equal(choose(&fx, 2, NULL), D);
	/* by target residencies alone, 300 us do not pay for D */
	scene.energy = false;
	assert_int_equal(choose(&fx, 2, NULL), C2);
	fx_fini(&hz);
	fx_fini(&fx);
}

/* Without a view the governor is hazard, call for call. */
static void test_no_view_is_hazard(void **state)
{
	static const int64_t stays[] = { 10 * MS, 40 * US, 3 * MS, 700 * US, 20 * MS, 5 * US };
	struct fixture a, b;
	bool sa, sb;
	int i;

	(void)state;
	fx_init(&a, fx_domain, FX_ARRAY_SIZE(fx_domain), 1, 0);
	fx_init(&b, fx_domain, FX_ARRAY_SIZE(fx_domain), 1, 0);
	assert_int_equal(cpuidle_switch_governor(a.sys, "cluster"), 0);
	assert_int_equal(cpuidle_switch_governor(b.sys, "hazard"), 0);
	for (i = 0; i < 600; i++) {
		int64_t stay = stays[(i * 7 + i / 5) % 6], tick = cpuidle_tick_nsec(a.sys);
		int64_t timer = i % 3 ? 30 * MS : stay + 50 * US;

		assert_int_equal(fx_idle_ex(&a, 0, stay, timer, tick, i % 2, false, &sa),
				 fx_idle_ex(&b, 0, stay, timer, tick, i % 2, false, &sb));
		assert_int_equal(sa, sb);
	}
	fx_fini(&a);
	fx_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_view_args),
		cmocka_unit_test(test_publish),
		cmocka_unit_test(test_lab_view_no_future),
		cmocka_unit_test(test_lab_view_refused),
		cmocka_unit_test(test_both_idle_long),
		cmocka_unit_test(test_sibling_running),
		cmocka_unit_test(test_short_stay_completes_only_if_it_pays),
		cmocka_unit_test(test_sibling_about_to_wake),
		cmocka_unit_test(test_completes_where_hazard_would_not),
		cmocka_unit_test(test_no_view_is_hazard),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
