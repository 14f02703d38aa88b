// SPDX-License-Identifier: MIT
/*
 * test_replay.c - the replay's kernel_loop mode (cpuidle fidelity) on the
 * recording VM's platform: a kernel entry we reproduce lasts as long as the
 * kernel's did (a poll that overshot its window, a halt whose exit came
 * after a late tick or a handler), a tick inside a poll does not end it, a
 * poll that a task's wake-up ended was not cut; and the ordinary replay
 * does not look at any of it.  Also: the span a replay covers (mean power's
 * divisor) is wall-clock time, not CPU time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "batch.h"
#include "replay.h"

#define US	1000LL
#define T0	(1000 * 1000 * US)	/* a tick boundary (4 ms ticks) */
#define POLL	0
#define HALT	1

struct ivs {
	struct idle_interval v[8];
	size_t n;
};

/* @s as a trace of the batch layer, whose source the replays read */
static struct cpuidle_lab_trace *trace_of(const struct ivs *s, unsigned int nr_cpus)
{
	struct cpuidle_lab_trace *t;

	assert_int_equal(lab_trace_from_intervals(s->v, s->n, nr_cpus, &t), 0);
	return t;
}

/*
 * A kernel interval at T0 + @at_us: the kernel's entries (@states, with
 * residencies @res_us, 1 us of idle loop between them), woken @idle_us
 * after the first entry by a function-call IPI.
 */
static struct idle_interval *kernel_iv(struct ivs *s, int64_t at_us, int64_t idle_us,
				       const int *states, const int64_t *res_us, int n)
{
	struct idle_interval *iv = &s->v[s->n++];
	int i;

	memset(iv, 0, sizeof(*iv));
	memset(iv->kstates, -1, sizeof(iv->kstates));
	iv->start_ns = T0 + at_us * US;
	iv->idle_ns = idle_us * US;
	iv->timer_ns = IV_NO_TIMER;
	iv->busy_ns = 100 * US;
	iv->qos_us = 2000000000;
	iv->irq = -1;
	iv->wake = IV_WAKE_CALL_FUNC;
	iv->nr_entries = (uint16_t)n;
	iv->kernel_loop_ns = (n - 1) * 1 * US;
	for (i = 0; i < n; i++) {
		iv->kstates[i] = (int8_t)states[i];
		iv->kresidency[i] = (uint32_t)(res_us[i] * US);
		iv->kernel_idle_ns += res_us[i] * US;
	}
	return iv;
}

/* The kernel's window after entry @entry. */
static void kernel_window(struct idle_interval *iv, unsigned int entry, uint32_t window)
{
	iv->kwindow_mask |= (uint8_t)(1u << entry);
	iv->kwindow[entry] = window;
	iv->nr_kwindows++;
}

/* A halt of 100 us: the window grows to 50 us. */
static void grow_to_50(struct ivs *s)
{
	static const int st[] = { HALT };
	static const int64_t r[] = { 101 };

	kernel_window(kernel_iv(s, 100, 100, st, r, 1), 0, 50000);
}

static struct cpuidle_platform pf;

static int setup(void **state)
{
	char err[256];

	(void)state;
	if (cpuidle_platform_load("haltpoll-vm", &pf, err, sizeof(err))) {
		print_error("%s\n", err);
		return -1;
	}
	return 0;
}

/* @s replayed on @cpus CPUs of @p through @gov; @fn (if set) sees every call */
static void run_on(const struct cpuidle_platform *p, const char *gov, struct ivs *s,
		   unsigned int cpus, bool kernel_loop, cpuidle_lab_decision_fn fn, void *ctx,
		   struct cpuidle_lab_result *res)
{
	struct cpuidle_lab_trace *t = trace_of(s, cpus);
	struct cpuidle_lab_run cfg = {
		.platform = p,
		.governor = gov,
		.trace = t,
		.qos_us = -1,
		.kernel_loop = kernel_loop,
		.on_decision = fn,
		.decision_ctx = ctx,
	};

	assert_int_equal(cpuidle_lab_replay(&cfg, res), 0);
	cpuidle_lab_trace_close(t);
}

static void run(struct ivs *s, bool kernel_loop, struct cpuidle_lab_result *res)
{
	run_on(&pf, "haltpoll", s, 1, kernel_loop, NULL, NULL, res);
}

/*
 * An entry of the kernel's that ended before the wake-up in a state that
 * does not poll (WFI), nothing run after it: an interrupt woke it.  A
 * replay in another state that does not poll (menu, told of no timer,
 * goes deeper) is woken there too, so the kernel's second entry is
 * compared; the ordinary replay sleeps through to the wake-up.
 */
static void test_kernel_wake_in_other_state(void **state)
{
	static const int st[] = { 0, 0 };
	static const int64_t r[] = { 3000, 2000 };
	struct cpuidle_platform juno;
	struct cpuidle_lab_result res;
	struct ivs s = { .n = 0 };
	char err[256];
	int loop;

	(void)state;
	assert_int_equal(cpuidle_platform_load("juno-r2", &juno, err, sizeof(err)), 0);
	kernel_iv(&s, 100, 3000 + 1 + 2000, st, r, 2);
	for (loop = 1; loop >= 0; loop--) {
		run_on(&juno, "menu", &s, 1, loop, NULL, NULL, &res);
		assert_int_equal(res.kernel_entries, 2);
		assert_int_equal(res.kernel_compared, loop ? 2 : 1);
		assert_int_equal(res.kernel_matched, 0);	/* deeper than WFI both times */
	}
}

/*
 * The kernel polled 58 us on a 50 us window (poll_idle() reads the clock
 * every 200 spins) and then halted 46 us: within the window, no change.
 * Cut at 50 us, the halt would last 55 us and grow the window.
 */
static void test_poll_overshoot(void **state)
{
	static const int st[] = { POLL, HALT };
	static const int64_t r[] = { 58, 46 };
	struct cpuidle_lab_result res;
	struct ivs s = { .n = 0 };

	(void)state;
	grow_to_50(&s);
	kernel_iv(&s, 1000, 58 + 1 + 45, st, r, 2);
	run(&s, true, &res);
	assert_int_equal(res.kernel_compared, 3);
	assert_int_equal(res.kernel_matched, 3);
	assert_int_equal(res.kernel_windows, 1);
	assert_int_equal(res.window_matched, 1);
	assert_int_equal(res.window_extra, 0);
	/* the ordinary replay cuts the poll at the window: the window grows */
	run(&s, false, &res);
	assert_int_equal(res.kernel_matched, 3);
	assert_int_equal(res.window_extra, 1);
}

/*
 * A halt whose wake-up came 190 us after it began, its exit 205 us after
 * (the interrupt's handler ran first): the kernel saw 205 us, above
 * guest_halt_poll_ns (200 us), and shrank the window; 190 us would grow it.
 */
static void test_halt_residency(void **state)
{
	static const int st[] = { POLL, HALT };
	static const int64_t r[] = { 53, 205 };
	struct cpuidle_lab_result res;
	struct ivs s = { .n = 0 };

	(void)state;
	grow_to_50(&s);
	kernel_window(kernel_iv(&s, 1000, 53 + 1 + 190, st, r, 2), 1, 0);
	run(&s, true, &res);
	assert_int_equal(res.kernel_windows, 2);
	assert_int_equal(res.window_matched, 2);
	run(&s, false, &res);
	assert_int_equal(res.window_matched, 1);
}

/*
 * The tick fires 20 us into a poll and runs nothing: the kernel polls on
 * until the wake-up, 40 us in, one entry.  The ordinary replay ends the
 * poll at the tick and polls again.
 */
/*
 * A halt of 5 s, past what an interval keeps per entry (4.29 s in 32 bits
 * of ns), then one of 1 ms: the first's residency is the kernel's idle
 * time less the second's, so fidelity follows both entries.
 */
static void test_saturated_residency(void **state)
{
	static const int st[] = { HALT, HALT };
	static const int64_t r[] = { 5000000, 1000 };
	struct cpuidle_lab_result res;
	struct ivs s = { .n = 0 };
	struct idle_interval *iv;

	(void)state;
	iv = kernel_iv(&s, 100, 5000000 + 1 + 1000, st, r, 2);
	iv->kresidency[0] = UINT32_MAX;	/* as reconstruction saturates it */
	run(&s, true, &res);
	assert_int_equal(res.kernel_entries, 2);
	assert_int_equal(res.kernel_compared, 2);
	assert_int_equal(res.kernel_matched, 2);
	/* two saturated: neither can be told, one entry made */
	iv->kresidency[1] = UINT32_MAX;
	iv->kernel_idle_ns = 2 * 5000000 * US;
	iv->idle_ns = iv->kernel_idle_ns + US;
	run(&s, true, &res);
	assert_int_equal(res.kernel_compared, 1);
}

/* reflect()s seen: how many the tick ended, how many said the poll's limit did */
struct reflects {
	int tick, limit, both;
};

static void count_reflect(void *ctx, int64_t t_ns, const struct cpuidle_device *dev,
			  const struct cpuidle_decision *d)
{
	struct reflects *r = ctx;

	(void)t_ns;
	(void)dev;
	if (!d->reflect)
		return;
	r->tick += d->got_tick;
	r->limit += d->poll_time_limit;
	r->both += d->got_tick && d->poll_time_limit;
}

static void test_tick_inside_poll(void **state)
{
	static const int st[] = { POLL };
	static const int64_t r[] = { 41 };
	struct cpuidle_lab_result res;
	struct ivs s = { .n = 0 };
	struct reflects seen = { 0 };

	(void)state;
	grow_to_50(&s);
	kernel_iv(&s, 4000 - 20, 40, st, r, 1);
	run(&s, true, &res);
	assert_int_equal(res.entries, 2);
	assert_int_equal(res.kernel_matched, 2);
	run(&s, false, &res);
	assert_int_equal(res.entries, 3);
	/*
	 * The ordinary replay ends a poll at the tick, 20 us in, within its
	 * 50 us limit (the CPU idles 100 us): reflect() is told of the tick,
	 * not of the limit.
	 */
	s.n = 0;
	grow_to_50(&s);
	kernel_iv(&s, 4000 - 20, 100, st, r, 1);
	run_on(&pf, "haltpoll", &s, 1, false, count_reflect, &seen, &res);
	assert_true(seen.tick >= 1);
	assert_int_equal(seen.both, 0);
}

/*
 * A poll of 300 us on a 50 us window that no interrupt ended, a task woken
 * for the CPU (IV_TASK_WAKE): need_resched ended it, not its limit, so the
 * next idle period polls again, as the kernel's did.  Without the flag it
 * ran to its limit: the next one halts.
 */
static void test_task_wake_not_cut(void **state)
{
	static const int poll[] = { POLL };
	static const int64_t r300[] = { 300 }, r20[] = { 21 };
	struct cpuidle_lab_result res;
	struct idle_interval *iv;
	struct ivs s = { .n = 0 };

	(void)state;
	grow_to_50(&s);
	iv = kernel_iv(&s, 1000, 300, poll, r300, 1);
	iv->wake = IV_WAKE_UNKNOWN;
	iv->flags |= IV_TASK_WAKE;
	kernel_iv(&s, 2000, 20, poll, r20, 1);
	run(&s, true, &res);
	assert_int_equal(res.kernel_compared, 3);
	assert_int_equal(res.kernel_matched, 3);
	s.v[1].flags &= (uint8_t)~IV_TASK_WAKE;
	run(&s, true, &res);
	assert_int_equal(res.kernel_matched, 2);
}

/* The ordinary replay: the kernel's residencies and task wake-ups change nothing. */
static void test_ordinary_replay_unchanged(void **state)
{
	static const int st[] = { POLL, HALT, POLL, HALT };
	static const int64_t r[] = { 58, 3990, 57, 120 };
	struct cpuidle_lab_result with, without;
	struct ivs s = { .n = 0 }, bare;
	struct idle_interval *iv;
	size_t i;

	(void)state;
	grow_to_50(&s);
	kernel_iv(&s, 1000, 58 + 1 + 3990 + 1 + 57 + 1 + 110, st, r, 4)->ktick_mask = 2;
	iv = kernel_iv(&s, 9000, 300, st, r, 1);
	iv->wake = IV_WAKE_UNKNOWN;
	iv->flags |= IV_TASK_WAKE;
	bare = s;
	for (i = 0; i < bare.n; i++) {
		memset(bare.v[i].kresidency, 0, sizeof(bare.v[i].kresidency));
		bare.v[i].flags &= (uint8_t)~IV_TASK_WAKE;
	}
	run(&s, false, &with);
	run(&bare, false, &without);
	with.host_seconds = without.host_seconds = 0;
	assert_memory_equal(&with, &without, sizeof(with));
}

/*
 * Two CPUs idle over the same 2.2 ms: the span is 2.2 ms, from the first
 * start on any CPU to the last end (busy time included) on any CPU; not
 * the 3.8 ms of CPU time the intervals add up to.
 */
static void test_span_is_wall_clock(void **state)
{
	static const int st[] = { HALT };
	static const int64_t r[] = { 1000 };
	struct cpuidle_lab_run cfg = {
		.platform = &pf,
		.governor = "haltpoll",
		.qos_us = -1,
	};
	struct cpuidle_lab_result res;
	struct ivs s = { .n = 0 };
	struct cpuidle_lab_trace *t;

	(void)state;
	kernel_iv(&s, 0, 1000, st, r, 1);		/* CPU 0: 0 to 1.1 ms */
	kernel_iv(&s, 500, 1500, st, r, 1)->cpu = 1;	/* CPU 1: 0.5 to 2.1 ms */
	kernel_iv(&s, 1100, 1000, st, r, 1);		/* CPU 0: 1.1 to 2.2 ms */
	t = trace_of(&s, 2);
	cfg.trace = t;
	assert_int_equal(cpuidle_lab_replay(&cfg, &res), 0);
	cpuidle_lab_trace_close(t);
	assert_int_equal(res.intervals, 3);
	assert_int_equal(res.idle_ns + res.busy_ns, 3800 * US);
	assert_int_equal(res.span_ns, 2200 * US);
}

/*
 * Two clusters whose deep states differ in exit latency (100 us, 1 ms):
 * the 99th percentile of added latency counts each wake-up at its own
 * CPU's latency, not at CPU 0's.
 */
static void test_p99_by_cluster(void **state)
{
	static const char text[] =
		"platform two\ncpus 2\n"
		"cluster a cpus=0 active_power_mw=1000\n"
		"state S0 latency_us=1 residency_us=1 power_mw=500\n"
		"state S1 latency_us=100 residency_us=200 power_mw=10\n"
		"cluster b cpus=1 active_power_mw=1000\n"
		"state S0 latency_us=1 residency_us=1 power_mw=500\n"
		"state S1 latency_us=1000 residency_us=2000 power_mw=10\n";
	static const int st[] = { 1 };
	static const int64_t r[] = { 10000 };
	struct cpuidle_platform two;
	struct cpuidle_lab_result res;
	struct ivs s = { .n = 0 };
	char err[256];
	int i;

	(void)state;
	assert_int_equal(cpuidle_platform_parse(text, sizeof(text) - 1, "two", &two, err,
						sizeof(err)), 0);
	for (i = 0; i < 4; i++) {	/* 10 ms idle periods on both CPUs */
		kernel_iv(&s, 20000 * i, 10000, st, r, 1);
		kernel_iv(&s, 20000 * i + 5, 10000, st, r, 1)->cpu = 1;
	}
	run_on(&two, "oracle", &s, 2, false, NULL, NULL, &res);
	assert_int_equal(res.states[1].wakes, 8);
	assert_int_equal(res.p99_added_latency_ns, 1000 * US);
	assert_int_equal(res.max_added_latency_ns, 1000 * US);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poll_overshoot),
		cmocka_unit_test(test_saturated_residency),
		cmocka_unit_test(test_kernel_wake_in_other_state),
		cmocka_unit_test(test_halt_residency),
		cmocka_unit_test(test_tick_inside_poll),
		cmocka_unit_test(test_task_wake_not_cut),
		cmocka_unit_test(test_ordinary_replay_unchanged),
		cmocka_unit_test(test_span_is_wall_clock),
		cmocka_unit_test(test_p99_by_cluster),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
