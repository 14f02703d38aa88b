// SPDX-License-Identifier: MIT
/*
 * test_steady.c - bounded work in very long intervals (lab/sim/steady.c):
 * a replay that counts the rest of a long interval from its steady state
 * gives what the replay of every entry gives, counter for counter, while
 * calling the governor a bounded number of times; and where the
 * governor's state never settles, the rest of the interval past the cap
 * is estimated, said apart, and the work stays bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "batch.h"
#include "replay.h"

#define US		1000LL
#define MS		(1000 * US)
#define T0		(1000 * MS)
#define LONG_NS		(20000 * MS)	/* the long interval: 20 s */
#define KNOWN_NS	(120000 * MS)	/* with its timer known: past the 34 s margin */
#define EXACT		1024		/* entries one by one before looking */
/*
 * With a timer known, the last 34 s are replayed entry by entry (up to the
 * cap): a cap above their 137,000 polls of 250 us
 */
#define EXACT_KNOWN	16384

static struct idle_interval ivs[8];
static size_t nr_ivs;

/* an interval of CPU @cpu at T0 + @at_ns, idle @idle_ns, next timer @timer_ns or unknown */
static void add_iv(unsigned int cpu, int64_t at_ns, int64_t idle_ns, int64_t timer_ns)
{
	struct idle_interval *iv = &ivs[nr_ivs++];

	memset(iv, 0, sizeof(*iv));
	memset(iv->kstates, -1, sizeof(iv->kstates));
	iv->cpu = (uint16_t)cpu;
	iv->start_ns = T0 + at_ns;
	iv->idle_ns = idle_ns;
	iv->timer_ns = timer_ns < 0 ? IV_NO_TIMER : timer_ns;
	if (timer_ns < 0)
		iv->flags |= IV_TIMER_UNKNOWN;
	iv->busy_ns = 200 * US;
	iv->qos_us = 2000000000;
	iv->irq = -1;
	iv->wake = IV_WAKE_CALL_FUNC;
}

static struct cpuidle_lab_trace *long_trace(bool timer_known)
{
	struct cpuidle_lab_trace *t;
	int64_t at = 0;
	int i;

	nr_ivs = 0;
	for (i = 0; i < 3; i++, at += 1200 * US)
		add_iv(0, at, 1000 * US, timer_known ? 1500 * US : -1);
	if (timer_known)
		add_iv(0, at, KNOWN_NS, KNOWN_NS + 77 * US);
	else
		add_iv(0, at, LONG_NS, -1);
	at += (timer_known ? KNOWN_NS : LONG_NS) + 200 * US;
	add_iv(0, at, 900 * US, -1);
	assert_int_equal(lab_trace_from_intervals(ivs, nr_ivs, 1, &t), 0);
	return t;
}

struct pair {
	struct cpuidle_lab_result every, steady;
};

static void replay_both(struct cpuidle_lab_run *run, struct pair *p, uint64_t exact)
{
	run->exact_entries = UINT64_MAX;
	assert_int_equal(cpuidle_lab_replay(run, &p->every), 0);
	run->exact_entries = exact;
	assert_int_equal(cpuidle_lab_replay(run, &p->steady), 0);
}

static bool close_enough(double a, double b)
{
	double d = a > b ? a - b : b - a, m = a > b ? a : b;

	return d <= 1e-9 * m;
}

/*
 * Every counter of @a and @b the same; aside: the extrapolated count, the
 * time taken, and the cluster model's forced passes (a count of its own
 * work: one stay for the repeats makes fewer)
 */
static void assert_same_counts(const struct cpuidle_lab_result *a,
			       const struct cpuidle_lab_result *b, const char *what)
{
	struct cpuidle_lab_result x = *a, y = *b;

	x.extrapolated = y.extrapolated = 0;
	x.host_seconds = y.host_seconds = 0;
	x.domain_forced = y.domain_forced = 0;
	/* energies: summed in another order, the same to rounding */
	assert_true(close_enough(x.idle_energy_mj, y.idle_energy_mj));
	assert_true(close_enough(x.active_energy_mj, y.active_energy_mj));
	assert_true(close_enough(x.cluster_energy_mj, y.cluster_energy_mj));
	x.idle_energy_mj = y.idle_energy_mj = 0;
	x.active_energy_mj = y.active_energy_mj = 0;
	x.cluster_energy_mj = y.cluster_energy_mj = 0;
	if (memcmp(&x, &y, sizeof(x))) {
		int s;

		print_error("%s: entries %llu / %llu, idle %.9f / %.9f mJ, cluster %.9f / %.9f, "
			    "domain %llu / %llu ns, forced %llu / %llu\n",
			    what, (unsigned long long)x.entries, (unsigned long long)y.entries,
			    x.idle_energy_mj, y.idle_energy_mj, x.cluster_energy_mj,
			    y.cluster_energy_mj, (unsigned long long)x.domain_ns,
			    (unsigned long long)y.domain_ns, (unsigned long long)x.domain_forced,
			    (unsigned long long)y.domain_forced);
		for (s = 0; s < x.state_count; s++)
			print_error("  state %d: usage %llu / %llu time %llu / %llu above %llu / %llu "
				    "below %llu / %llu\n", s,
				    (unsigned long long)x.states[s].usage,
				    (unsigned long long)y.states[s].usage,
				    (unsigned long long)x.states[s].time_ns,
				    (unsigned long long)y.states[s].time_ns,
				    (unsigned long long)x.states[s].above,
				    (unsigned long long)y.states[s].above,
				    (unsigned long long)x.states[s].below,
				    (unsigned long long)y.states[s].below);
		fail_msg("%s: the steady count differs from the replay of every entry", what);
	}
}

/*
 * Under a QoS of 0 (polls cut by their limit) and with a periodic tick
 * (every entry woken by the tick), each governor, on platforms without
 * and with cluster states, a 20 s interval with no timer known (and, on
 * the first two, a 120 s one with its timer known): where nothing was
 * estimated past the cap, the same counters; most runs counted, not
 * replayed.
 */
static void test_same_as_every_entry(void **state)
{
	static const char *const governors[] = { "menu", "teo", "haltpoll", "ladder", "hazard",
						 CPUIDLE_LAB_ORACLE };
	static const char *const platforms[] = { "haltpoll-vm", "laptop", "skylake" };
	struct cpuidle_lab_trace *traces[2] = { long_trace(false), long_trace(true) };
	struct pair *p = malloc(sizeof(*p));
	unsigned int g, pl, mode, tk, counted = 0, estimated = 0, runs = 0;

	(void)state;
	assert_non_null(p);
	for (pl = 0; pl < 3; pl++) {
		struct cpuidle_platform pf;
		char err[256];

		assert_int_equal(cpuidle_platform_load(platforms[pl], &pf, err, sizeof(err)), 0);
		for (g = 0; g < 6; g++)
			for (mode = 0; mode < 2; mode++)
				for (tk = 0; tk < (pl < 2 ? 2u : 1u); tk++) {
					struct cpuidle_lab_run run = {
						.trace = traces[tk],
						.platform = &pf,
						.governor = governors[g],
						.qos_us = mode ? -1 : 0,
						.tick_periodic = mode == 1,
					};
					char what[160];

					snprintf(what, sizeof(what), "%s on %s, %s, timer %s",
						 governors[g], platforms[pl],
						 mode ? "periodic tick" : "qos 0",
						 tk ? "known" : "unknown");
					replay_both(&run, p, tk ? EXACT_KNOWN : EXACT);
					assert_int_equal(p->every.extrapolated, 0);
					runs++;
					if (p->steady.approximated) {
						/* not settled: estimated past the cap */
						estimated++;
						continue;
					}
					assert_same_counts(&p->every, &p->steady, what);
					counted += p->steady.extrapolated > 0;
				}
	}
	/* most runs settle (hazard's never does; the oracle's unknown end is too near) */
	print_message("%u of %u runs counted from a steady state, exactly; %u estimated past "
		      "the cap\n", counted, runs, estimated);
	assert_true(counted >= runs / 2);
	cpuidle_lab_trace_close(traces[0]);
	cpuidle_lab_trace_close(traces[1]);
	free(p);
}

/*
 * Work stays bounded whatever the governor: hazard's state never settles
 * (its time idle so far grows), so past the cap the rest of a 60 s
 * interval at a QoS of 0 is estimated from the last tick period, and said
 * apart; the estimate keeps the interval's time and the choices made.
 */
static void test_bounded(void **state)
{
	struct cpuidle_platform pf;
	struct cpuidle_lab_trace *t;
	struct cpuidle_lab_result *every = malloc(sizeof(*every)), *capped = malloc(sizeof(*capped));
	struct cpuidle_lab_run run = { .governor = "hazard", .qos_us = 0 };
	char err[256];
	uint64_t time_every = 0, time_capped = 0;
	int s;

	(void)state;
	assert_non_null(every);
	assert_non_null(capped);
	nr_ivs = 0;
	add_iv(0, 0, 1000 * US, -1);
	add_iv(0, 1200 * US, 60000 * MS, -1);
	add_iv(0, 60002 * MS, 900 * US, -1);
	assert_int_equal(lab_trace_from_intervals(ivs, nr_ivs, 1, &t), 0);
	assert_int_equal(cpuidle_platform_load("haltpoll-vm", &pf, err, sizeof(err)), 0);
	run.trace = t;
	run.platform = &pf;
	run.exact_entries = UINT64_MAX;
	assert_int_equal(cpuidle_lab_replay(&run, every), 0);
	run.exact_entries = EXACT;
	assert_int_equal(cpuidle_lab_replay(&run, capped), 0);
	print_message("hazard, 60 s at qos 0: %llu entries replayed one by one, %llu estimated "
		      "(%llu in all; every one replayed: %llu)\n",
		      (unsigned long long)(capped->entries - capped->extrapolated),
		      (unsigned long long)capped->approximated,
		      (unsigned long long)capped->entries, (unsigned long long)every->entries);
	assert_true(capped->approximated > 0);
	assert_true(capped->approximated <= capped->extrapolated);
	assert_true(capped->entries - capped->extrapolated <= EXACT * CPUIDLE_LAB_CAP_FACTOR + 20000);
	/* the interval's time all accounted, within the exit latencies' drift */
	for (s = 0; s < capped->state_count; s++) {
		time_every += every->states[s].time_ns;
		time_capped += capped->states[s].time_ns;
	}
	assert_true(time_capped > time_every - time_every / 1000 &&
		    time_capped < time_every + time_every / 1000);
	assert_true(capped->entries > every->entries / 2 && capped->entries < every->entries * 2);
	cpuidle_lab_trace_close(t);
	free(every);
	free(capped);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_every_entry),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
