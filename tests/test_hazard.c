// SPDX-License-Identifier: MIT
/*
 * test_hazard.c - the hazard governor's rules (DOC block of
 * src/governors/hazard.c), each test built so that it fails if its rule
 * is broken.
 *
 * The fixture's tick is 250 Hz (4 ms).  Exit latency / target residency,
 * in us:
 *
 *   intel   POLL 0/0, C1 2/2, C1E 10/20, C6 85/200; no powers declared
 *   fx_laptop  C1 1/2 1000 mW, C2 1/2 500 mW, C3 57/114 100 mW (declared)
 *
 * As in the lab's replay, the wake-up then takes the state's exit latency
 * on top of the stay (enter_with_exit()), and the governor, subtracting
 * it, measures the stay asked for.
 */
#include "fixture.h"

#define US	1000LL
#define MS	(1000 * US)

/* A driver that declares no powers (as intel_idle): residencies rule. */
static const struct fx_state_desc intel[] = {
	{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
	{ "C1", 2, 2, 0, CPUIDLE_FLAG_TIME_VALID },
	{ "C1E", 10, 20, 0, CPUIDLE_FLAG_TIME_VALID },
	{ "C6", 85, 200, 0, CPUIDLE_FLAG_TIME_VALID },
};

enum { POLL, C1, C1E, C6 };

static int enter_with_exit(struct cpuidle_device *dev, struct cpuidle_state *state)
{
	int ret = fx_enter(dev, state);

	if (ret >= 0)
		fx_of(dev)->clock[dev->cpu] += (uint64_t)state->exit_latency_ns;
	return ret;
}

static void setup(struct fixture *fx, const struct fx_state_desc *st, int n)
{
	int i;

	fx_init(fx, st, n, 1, 0);
	for (i = 0; i < n; i++)
		fx->dev[0].states[i].enter = enter_with_exit;
	assert_int_equal(cpuidle_switch_governor(fx->sys, "hazard"), 0);
}

/*
 * One idle period lasting @stay_ns, woken by something other than the
 * timer unless @stay_ns reaches @timer_ns, with the tick running.
 */
static int period(struct fixture *fx, int64_t stay_ns, int64_t timer_ns, bool *stop)
{
	return fx_idle_stop(fx, stay_ns, timer_ns, true, stop);
}

static void repeat(struct fixture *fx, int n, int64_t stay_ns, int64_t timer_ns)
{
	while (n-- > 0)
		assert_true(period(fx, stay_ns, timer_ns, NULL) >= 0);
}

/* ---------------------------------------------------------------------- */

/* Built in, rated below menu and teo: available, never the default. */
static void test_registered(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, intel, FX_ARRAY_SIZE(intel), 1, 0);
	assert_non_null(cpuidle_find_governor(fx.sys, "hazard"));
	assert_true(cpuidle_find_governor(fx.sys, "hazard")->rating <
		    cpuidle_find_governor(fx.sys, "teo")->rating);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "menu");
	fx_fini(&fx);
}

/*
 * Periods that all end at their timer are censored: X is only known to be
 * longer.  The choice follows the timer (step 4) and, C6 being the deepest
 * state, the tick stops (step 5).
 */
static void test_timer_periods_follow_the_timer(void **state)
{
	struct fixture fx;
	bool stop = false;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	repeat(&fx, 20, 10 * MS, 10 * MS);
	assert_int_equal(period(&fx, 10 * MS, 10 * MS, &stop), C6);
	assert_true(stop);
	/* a near timer: the deepest state it pays for */
	repeat(&fx, 5, 100 * US, 100 * US);
	assert_int_equal(period(&fx, 100 * US, 100 * US, NULL), C1E);
	fx_fini(&fx);
}

/*
 * Censoring, the other way round: the same 100 us periods, but ended by
 * wake-ups the timer (10 ms away) did not announce, teach that X is short;
 * ended by their own 100 us timer they teach nothing of the kind, and a
 * far timer is then believed.
 */
static void test_censored_periods_teach_nothing_short(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	repeat(&fx, 30, 100 * US, 10 * MS);
	assert_int_equal(period(&fx, 100 * US, 10 * MS, NULL), C1E);
	fx_fini(&fx);

	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	repeat(&fx, 30, 10 * MS, 10 * MS);	/* long periods were seen */
	repeat(&fx, 30, 100 * US, 100 * US);
	assert_int_equal(period(&fx, 10 * MS, 10 * MS, NULL), C6);
	fx_fini(&fx);
}

/*
 * Censoring that says something of the wake-ups: after a 100 us period,
 * one period in two has a 3 ms timer and sleeps to it, the other a 50 ms
 * timer and is woken after 100 us.  Taken as one sample the censored 3 ms
 * periods say "one in two outlives 100 us", and the expected stay under the
 * 50 ms timer (~2 ms) would pay for C6; a timer beyond every period seen
 * (4 ms) is learnt apart, from the periods that had one, all woken at
 * 100 us: C1E.
 */
static void test_far_timer_learnt_apart(void **state)
{
	struct fixture fx;
	int round;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	for (round = 0; round < 30; round++) {
		period(&fx, 100 * US, 50 * MS, NULL);
		period(&fx, 100 * US, 50 * MS, NULL);
		period(&fx, 3 * MS, 3 * MS, NULL);
	}
	period(&fx, 100 * US, 50 * MS, NULL);
	assert_int_equal(period(&fx, 100 * US, 50 * MS, NULL), C1E);
	/* and the near timer's periods still sleep to it */
	assert_int_equal(period(&fx, 3 * MS, 3 * MS, NULL), C6);
	fx_fini(&fx);
}

/*
 * Short unannounced wake-ups: 8 us stays under a far timer.  The expected
 * stay is ~8 us: C1 (2 us) pays, C1E (20 us) does not; C1 is not the
 * deepest state and the stay up to the tick picks it too, so the tick is
 * kept as a second chance (step 5).
 */
static void test_short_wakeups_go_shallow_and_keep_the_tick(void **state)
{
	struct fixture fx;
	bool stop = true;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	repeat(&fx, 40, 10 * US, 50 * MS);
	assert_int_equal(period(&fx, 10 * US, 50 * MS, &stop), C1);
	assert_false(stop);
	fx_fini(&fx);
}

/*
 * The mean, not the majority: after a short period, eight periods in nine
 * are 10 us and one is 3 ms, so the expected stay is ~340 us and C6
 * (200 us) is the cheapest on average although most stays are short.  And
 * the context: after the 3 ms period the next is always short, so the
 * curve of that context picks C1.
 */
static void test_mean_and_context(void **state)
{
	struct fixture fx;
	int round, i;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	for (round = 0; round < 30; round++) {
		for (i = 0; i < 8; i++)
			period(&fx, 10 * US, 50 * MS, NULL);
		period(&fx, 3 * MS, 50 * MS, NULL);
	}
	/* after the long one: short follows */
	assert_int_equal(period(&fx, 10 * US, 50 * MS, NULL), C1);
	/* after a short one: a long one in nine, and the mean pays for C6 */
	assert_int_equal(period(&fx, 10 * US, 50 * MS, NULL), C6);
	fx_fini(&fx);
}

/*
 * Step 5: with a C10 deeper than anything the 10 ms timer allows, C6 is
 * not the deepest state.  A tick 4 ms away leaves room for C6 before it:
 * kept, as a second chance.  A tick 100 us away would cut the stay short
 * of C6's 200 us: stopped.
 */
static void test_tick_kept_unless_it_would_cut(void **state)
{
	static const struct fx_state_desc deep[] = {
		{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
		{ "C1", 2, 2, 0, CPUIDLE_FLAG_TIME_VALID },
		{ "C6", 85, 200, 0, CPUIDLE_FLAG_TIME_VALID },
		{ "C10", 500, 20000, 0, CPUIDLE_FLAG_TIME_VALID },
	};
	struct fixture fx;
	bool stop = true;

	(void)state;
	setup(&fx, deep, FX_ARRAY_SIZE(deep));
	repeat(&fx, 20, 10 * MS, 10 * MS);
	assert_int_equal(fx_idle_ex(&fx, 0, 10 * MS, 10 * MS, 4 * MS, true, false, &stop), 2);
	assert_false(stop);
	assert_int_equal(fx_idle_ex(&fx, 0, 10 * MS, 10 * MS, 100 * US, true, false, &stop), 2);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * Safety nets: a stay ended by the tick while the timer is far away does
 * not end the period.  One period in a hundred lasts 5 ms, the rest 10 us:
 * a new period is expected short, gets a shallow state and keeps the tick;
 * when the tick ends the stay and nothing ran, the CPU has been idle 4 ms
 * already, and the periods that got that far ended ~1 ms later: C6 pays,
 * and as the deepest state it stops the tick.
 */
static void test_tick_continuation_goes_deeper(void **state)
{
	struct fixture fx;
	bool stop = true;
	int i, idx;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	for (i = 0; i < 300; i++)
		period(&fx, i % 100 == 50 ? 5 * MS : 10 * US, 100 * MS, NULL);
	idx = fx_idle_ex(&fx, 0, 4 * MS, 100 * MS, 4 * MS, true, true, &stop);
	assert_true(idx >= 0 && idx < C6);
	assert_false(stop);
	assert_int_equal(fx_idle_ex(&fx, 0, 1 * MS, 96 * MS, 4 * MS, true, false, &stop), C6);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * A poll cut by its time limit (here 250 us: a sixteenth of the tick, C1
 * being too shallow to bound it) is a safety net too: the period goes on,
 * and the next selection, knowing the CPU has been idle that long, does
 * not poll again.
 */
static void test_poll_limit_continuation(void **state)
{
	static const struct fx_state_desc poll_halt[] = {
		{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
		{ "C1", 2, 2, 0, CPUIDLE_FLAG_TIME_VALID },
		{ "C6", 100, 1000, 0, CPUIDLE_FLAG_TIME_VALID },
	};
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx, poll_halt, FX_ARRAY_SIZE(poll_halt));
	for (i = 0; i < 40; i++)	/* periods of half a microsecond */
		period(&fx, 500, 100 * MS, NULL);
	assert_int_equal(period(&fx, 2 * MS, 100 * MS, NULL), POLL);
	assert_false(fx.dev[0].poll_time_limit);	/* reflect() took it */
	assert_true(period(&fx, 500, 100 * MS, NULL) > POLL);
	fx_fini(&fx);
}

/*
 * Declared powers: the cheapest state is the least P x (stay + exit
 * latency).  For 20 us stays C3 costs 100 x 77 against C2's 500 x 21, so
 * C3, although its target residency (114 us) is far above the stay; for
 * 5 us stays C2 (3000) beats C3 (6200).
 */
static void test_declared_powers(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop));
	repeat(&fx, 40, 20 * US, 50 * MS);
	assert_int_equal(period(&fx, 20 * US, 50 * MS, NULL), 2);
	fx_fini(&fx);

	setup(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop));
	repeat(&fx, 40, 5 * US, 50 * MS);
	assert_int_equal(period(&fx, 5 * US, 50 * MS, NULL), 1);
	fx_fini(&fx);
}

/* QoS bounds the choice (step 1); QoS 0 leaves only the polling state. */
static void test_qos(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	repeat(&fx, 20, 10 * MS, 10 * MS);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 50), 0);
	assert_int_equal(period(&fx, 10 * MS, 10 * MS, NULL), C1E);
	assert_int_equal(pm_qos_update_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 0), 0);
	assert_int_equal(period(&fx, 10 * MS, 10 * MS, NULL), POLL);
	assert_int_equal(pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t"), 0);
	assert_int_equal(period(&fx, 10 * MS, 10 * MS, NULL), C6);
	fx_fini(&fx);
}

/* Disabled states are never chosen; the next usable one below is. */
static void test_disabled(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	repeat(&fx, 20, 10 * MS, 10 * MS);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], C6, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_int_equal(period(&fx, 10 * MS, 10 * MS, NULL), C1E);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], C1E, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_int_equal(period(&fx, 10 * MS, 10 * MS, NULL), C1);
	fx_fini(&fx);
}

/*
 * Without a timer (CPUIDLE_TIME_INFINITE), the horizon is how long periods
 * have been seen to last: after 50 us periods, unannounced, nothing deep.
 */
static void test_unknown_timer(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	repeat(&fx, 40, 50 * US, CPUIDLE_TIME_INFINITE);
	assert_int_equal(period(&fx, 50 * US, CPUIDLE_TIME_INFINITE, NULL), C1E);
	fx_fini(&fx);
}

/* ------------------------------------------------------------ tunables */

#define PARAM(name)	"module/hazard/parameters/" name

static void set_param(struct fixture *fx, const char *name, const char *value)
{
	char path[96];

	snprintf(path, sizeof(path), PARAM("%s"), name);
	assert_int_equal(cpuidle_attr_write(fx->sys, path, value), 0);
}

static const char *get_param(struct fixture *fx, const char *name)
{
	static char buf[64];
	char path[96];

	snprintf(path, sizeof(path), PARAM("%s"), name);
	assert_true(cpuidle_attr_read(fx->sys, path, buf, sizeof(buf)) > 0);
	return buf;
}

/*
 * The defaults are the constants the DOC block names; a value out of a
 * tunable's range, or not a number, is refused and changes nothing.
 */
static void test_tunables_defaults_and_refused(void **state)
{
	static const struct {
		const char *name, *def, *below, *above;
	} t[] = {
		{ "decay_shift", "2\n", "0", "9" },
		{ "hit_slack_shift", "4\n", "0", "64" },
		{ "prior_wake_shift", "4\n", "0", "17" },
		{ "context_short_ns", "32000\n", NULL, NULL },
		{ "context_long_ns", "512000\n", NULL, NULL },
	};
	struct fixture fx;
	char path[96];
	size_t i;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	for (i = 0; i < FX_ARRAY_SIZE(t); i++) {
		snprintf(path, sizeof(path), PARAM("%s"), t[i].name);
		assert_string_equal(get_param(&fx, t[i].name), t[i].def);
		if (t[i].below)
			assert_int_equal(cpuidle_attr_write(fx.sys, path, t[i].below), -EINVAL);
		if (t[i].above)
			assert_int_equal(cpuidle_attr_write(fx.sys, path, t[i].above), -EINVAL);
		assert_int_equal(cpuidle_attr_write(fx.sys, path, "-1"), -EINVAL);
		assert_int_equal(cpuidle_attr_write(fx.sys, path, "x"), -EINVAL);
		assert_int_equal(cpuidle_attr_write(fx.sys, path, "4294967296"), -ERANGE);
		assert_string_equal(get_param(&fx, t[i].name), t[i].def);
	}
	/* the ends of the ranges are taken */
	set_param(&fx, "decay_shift", "8");
	set_param(&fx, "decay_shift", "1");
	set_param(&fx, "hit_slack_shift", "63");
	set_param(&fx, "prior_wake_shift", "16");
	set_param(&fx, "context_long_ns", "4294967295");
	set_param(&fx, "context_short_ns", "0");
	assert_string_equal(get_param(&fx, "context_long_ns"), "4294967295\n");
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("nosuch"), "1"), -ENOENT);
	fx_fini(&fx);
}

/*
 * prior_wake_shift: a fresh CPU has only the prior.  Survived 15 times in
 * 16 per octave, the expected stay up to the first tick (the horizon
 * before any period) pays for C6; survived once in 2 (shift 1), it is a
 * few microseconds: C1.  Set after the CPU was enabled, it takes effect
 * at the next selection, in the bins that have not learnt: after periods
 * that lasted 10 ms, the bins they passed keep what they learnt (C6).
 */
static void test_tunable_prior(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	assert_int_equal(period(&fx, 10 * MS, 50 * MS, NULL), C6);
	fx_fini(&fx);

	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	set_param(&fx, "prior_wake_shift", "1");
	assert_int_equal(period(&fx, 10 * MS, 50 * MS, NULL), C1);
	fx_fini(&fx);

	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	repeat(&fx, 20, 10 * MS, 50 * MS);
	set_param(&fx, "prior_wake_shift", "1");
	assert_int_equal(period(&fx, 10 * MS, 50 * MS, NULL), C6);
	fx_fini(&fx);
}

/*
 * decay_shift: after 20 periods ended by their 10 ms timer, 8 ended by a
 * wake-up at 10 us.  Moving half the way each time (shift 1), the curve
 * has nearly forgotten the long periods (1/256 of them left, worth ~60 us
 * on top of the 10 us): C1E; by 1/256 each time (shift 8), the long ones
 * still count: C6.
 */
static void test_tunable_decay(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	set_param(&fx, "decay_shift", "1");
	repeat(&fx, 20, 10 * MS, 10 * MS);
	repeat(&fx, 8, 10 * US, 50 * MS);
	assert_int_equal(period(&fx, 10 * US, 50 * MS, NULL), C1E);
	fx_fini(&fx);

	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	set_param(&fx, "decay_shift", "8");
	repeat(&fx, 20, 10 * MS, 10 * MS);
	repeat(&fx, 8, 10 * US, 50 * MS);
	assert_int_equal(period(&fx, 10 * US, 50 * MS, NULL), C6);
	fx_fini(&fx);
}

/*
 * hit_slack_shift: periods of 150 us under a 200 us timer.  Within 1/16
 * of it they are not (the default): a wake-up at 150 us, learnt as such,
 * and with a far timer the expected 150 us is C1E's, short of C6's 200.
 * Within 1/2 (shift 1) they ended at the timer, censored: nothing short
 * is learnt, and the stay expected up to where periods reached (262 us)
 * pays for C6.
 */
static void test_tunable_hit_slack(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	repeat(&fx, 30, 150 * US, 200 * US);
	assert_int_equal(period(&fx, 150 * US, 50 * MS, NULL), C1E);
	fx_fini(&fx);

	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	set_param(&fx, "hit_slack_shift", "1");
	repeat(&fx, 30, 150 * US, 200 * US);
	assert_int_equal(period(&fx, 150 * US, 50 * MS, NULL), C6);
	fx_fini(&fx);
}

/*
 * The contexts' bounds: rounds of eight short periods and one of 3 ms,
 * as in test_mean_and_context.  With the short ones at 10 us, after the
 * long one its own context says "short": C1.  context_short_ns at 4 ms
 * puts every period in one context, whose mean pays for C6.  With the
 * short ones at 100 us (the middle context, C1E's), context_long_ns at
 * 4 ms does the same.
 */
static int after_rounds(int64_t short_ns, const char *name, const char *value)
{
	struct fixture fx;
	int round, i, idx;

	setup(&fx, intel, FX_ARRAY_SIZE(intel));
	if (name)
		set_param(&fx, name, value);
	for (round = 0; round < 30; round++) {
		for (i = 0; i < 8; i++)
			period(&fx, short_ns, 50 * MS, NULL);
		period(&fx, 3 * MS, 50 * MS, NULL);
	}
	idx = period(&fx, short_ns, 50 * MS, NULL);
	fx_fini(&fx);
	return idx;
}

static void test_tunable_contexts(void **state)
{
	(void)state;
	assert_int_equal(after_rounds(10 * US, NULL, NULL), C1);
	assert_int_equal(after_rounds(10 * US, "context_short_ns", "4000000"), C6);
	assert_int_equal(after_rounds(100 * US, NULL, NULL), C1E);
	assert_int_equal(after_rounds(100 * US, "context_long_ns", "4000000"), C6);
	/* the other bound alone changes nothing here */
	assert_int_equal(after_rounds(10 * US, "context_long_ns", "4000000"), C1);
}

/* Two systems are tuned apart: a write reaches its own system only. */
static void test_tunables_per_system(void **state)
{
	struct fixture a, b;

	(void)state;
	setup(&a, intel, FX_ARRAY_SIZE(intel));
	setup(&b, intel, FX_ARRAY_SIZE(intel));
	set_param(&a, "prior_wake_shift", "1");
	assert_string_equal(get_param(&b, "prior_wake_shift"), "4\n");
	assert_int_equal(period(&a, 10 * MS, 50 * MS, NULL), C1);
	assert_int_equal(period(&b, 10 * MS, 50 * MS, NULL), C6);
	fx_fini(&b);
	fx_fini(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registered),
		cmocka_unit_test(test_timer_periods_follow_the_timer),
		cmocka_unit_test(test_censored_periods_teach_nothing_short),
		cmocka_unit_test(test_far_timer_learnt_apart),
		cmocka_unit_test(test_short_wakeups_go_shallow_and_keep_the_tick),
		cmocka_unit_test(test_mean_and_context),
		cmocka_unit_test(test_tick_kept_unless_it_would_cut),
		cmocka_unit_test(test_tick_continuation_goes_deeper),
		cmocka_unit_test(test_poll_limit_continuation),
		cmocka_unit_test(test_declared_powers),
		cmocka_unit_test(test_qos),
		cmocka_unit_test(test_disabled),
		cmocka_unit_test(test_unknown_timer),
		cmocka_unit_test(test_tunables_defaults_and_refused),
		cmocka_unit_test(test_tunable_prior),
		cmocka_unit_test(test_tunable_decay),
		cmocka_unit_test(test_tunable_hit_slack),
		cmocka_unit_test(test_tunable_contexts),
		cmocka_unit_test(test_tunables_per_system),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
