// SPDX-License-Identifier: MIT
/*
 * test_menu.c - the menu governor's rules (Linux 6.18 menu), one test per
 * rule, each built so that it fails if that rule is broken.
 *
 * The fixture's default tick is 250 Hz (TICK_NSEC = 4 ms).  fx_four is
 * POLL 0/0, C1 2/2, C1E 10/20, C6 85/200 (exit/residency, us).
 */
#include "fixture.h"

#define US	1000LL
#define MS	(1000 * US)

static void setup(struct fixture *fx, const struct fx_state_desc *st, int n)
{
	fx_init(fx, st, n, 1, 0);
	assert_int_equal(cpuidle_switch_governor(fx->sys, "menu"), 0);
}

/*
 * With the tick running, 40 us stays (30 us once C1E's exit latency is
 * deducted) and a far timer: the pattern detector settles on C1E.
 */
static void learn_short_pattern(struct fixture *fx)
{
	bool stop = true;

	fx_repeat(fx, 23, 40 * US, 50 * MS, true);
	assert_int_equal(fx_idle_stop(fx, 40 * US, 50 * MS, true, &stop), 2);
	assert_false(stop);
}

/* ---------------------------------------------------------------------- */

/* QoS 0 allows state 0 only; a polling state 0 keeps the tick running. */
static void test_qos_zero_state0(void **state)
{
	struct fixture fx;
	bool stop = true;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_repeat(&fx, 5, 50 * MS, 50 * MS, true);	/* learn long stays first */
	fx_set_qos(&fx, 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 0);
		assert_false(stop);
	}
	/* QoS 0 returns state 0 before looking at disabled states at all */
	fx_disable(&fx, 0, true);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 0);
	fx_fini(&fx);

	setup(&fx, fx_haltpoll, FX_ARRAY_SIZE(fx_haltpoll));
	fx_set_qos(&fx, 0);
	assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, &stop), 0);
	assert_false(stop);
	fx_drop_qos(&fx);
	assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, &stop), 1);
	assert_true(stop);
	fx_fini(&fx);
}

/* A timer closer than state 1's target residency: state 0 at once. */
static void test_timer_before_state1_pays_off(void **state)
{
	static const struct fx_state_desc st[] = {
		{ "C1", 1, 2, 1000, CPUIDLE_FLAG_TIME_VALID },
		{ "C2", 5, 50, 100, CPUIDLE_FLAG_TIME_VALID },
	};
	struct fixture fx;
	bool stop = false;

	(void)state;
	setup(&fx, st, FX_ARRAY_SIZE(st));
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 40 * US, true, &stop), 0);
	assert_true(stop);	/* state 0 does not poll: the tick may stop */
	assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, false, &stop), 1);
	fx_fini(&fx);

	/* the shortcut only applies while state 0 is enabled */
	setup(&fx, st, FX_ARRAY_SIZE(st));
	fx_disable(&fx, 0, true);
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 40 * US, true, &stop), 1);
	fx_fini(&fx);
}

/* A state whose exit latency is above the QoS limit is never chosen. */
static void test_latency_limit(void **state)
{
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_set_qos(&fx, 50);	/* C6 needs 85 us */
	for (i = 0; i < 30; i++)
		assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, false, NULL), 2);
	fx_drop_qos(&fx);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, false, NULL), 3);
	fx_fini(&fx);
}

/* Disabled states are skipped; with all of them disabled state 0 is used. */
static void test_disabled_states_skipped(void **state)
{
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_disable(&fx, 3, true);
	for (i = 0; i < 10; i++)
		assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, false, NULL), 2);
	fx_disable(&fx, 2, true);
	for (i = 0; i < 10; i++)
		assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, false, NULL), 1);
	fx_disable(&fx, 1, true);
	fx_disable(&fx, 0, true);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, false, NULL), 0);
	fx_disable(&fx, 3, false);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, false, NULL), 3);
	fx_fini(&fx);
}

/* Long stays up to a far timer: the deepest state, tick stopped. */
static void test_long_idle_deepest(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	for (i = 0; i < 20; i++) {
		assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 3);
		assert_true(stop);
	}
	fx_fini(&fx);
}

/*
 * Repeated 40 us stays with a 50 ms timer: the pattern detector predicts
 * 30 us and menu takes C1E, keeping the tick.  The timer guess alone would
 * still be milliseconds at this point (its factor has only decayed to
 * about (7/8)^24 of 50 ms = 2.0 ms) and would give C6.
 */
static void test_typical_interval_short_pattern(void **state)
{
	struct fixture fx;
	bool stop = true;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	/* the first stays find no pattern: the far timer wins */
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 50 * MS, true, &stop), 3);
	assert_true(stop);
	fx_repeat(&fx, 22, 40 * US, 50 * MS, true);
	for (i = 0; i < 10; i++) {
		assert_int_equal(fx_idle_stop(&fx, 40 * US, 50 * MS, true, &stop), 2);
		assert_false(stop);
	}
	fx_fini(&fx);
}

/*
 * One outlier among steady short stays is trimmed and the pattern holds;
 * a second cluster that outnumbers it takes over.
 */
static void test_typical_interval_outliers(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	learn_short_pattern(&fx);
	/* one 5 ms stay (in C1E: 4.99 ms) */
	assert_int_equal(fx_idle_stop(&fx, 5 * MS, 50 * MS, true, NULL), 2);
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 50 * MS, true, &stop), 2);
	assert_false(stop);
	fx_fini(&fx);

	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	learn_short_pattern(&fx);
	/*
	 * Five long stays out of eight: the short side is trimmed and the
	 * 4.99 ms cluster is the guess (one-sided trimming, as before 6.15,
	 * would have kept the 30 us stays).  The probe's 500 ms timer lands in
	 * a bucket whose factor is still near 1.0, so the guess above one tick
	 * shows as a stopped tick.
	 */
	for (i = 0; i < 5; i++)
		assert_int_equal(fx_idle_stop(&fx, 5 * MS, 50 * MS, true, NULL), 2);
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 500 * MS, true, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * With the tick already stopped a short guess is not trusted: the time to
 * the timer is used instead, so the same pattern now gives C6.
 */
static void test_tick_stopped_uses_timer(void **state)
{
	struct fixture fx;
	bool stop = false;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	learn_short_pattern(&fx);
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 50 * MS, false, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * The tick is kept for a guess below one tick, and the choice is lowered
 * to a state that pays off before the next tick: with a 300 us guess C6
 * fits, but the tick comes in 100 us, so C1E is taken.
 */
static void test_tick_kept_shallower_state(void **state)
{
	struct fixture fx;
	bool stop = true;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_repeat(&fx, 30, 385 * US, 50 * MS, true);	/* 300 us after C6's exit */
	assert_int_equal(fx_idle_ex(&fx, 0, 385 * US, 50 * MS, 4 * MS, true, false, &stop), 3);
	assert_false(stop);
	assert_int_equal(fx_idle_ex(&fx, 0, 385 * US, 50 * MS, 100 * US, true, false, &stop), 2);
	assert_false(stop);
	/* C1E disabled as well: down to C1 */
	fx_disable(&fx, 2, true);
	assert_int_equal(fx_idle_ex(&fx, 0, 385 * US, 50 * MS, 100 * US, true, false, &stop), 1);
	fx_fini(&fx);
}

/*
 * Correction factor: stays of 5% of a 9 ms timer (365 us after C6's exit)
 * teach the 1-10 ms bucket a ratio of about 0.04.  A 4.5 ms timer then
 * predicts about 180 us, below C6's 200 us, so C1E is chosen although the
 * stay pattern alone (365 us) would allow C6.  Before the learning the
 * same timer gives C6.
 */
static void test_correction_factor(void **state)
{
	struct fixture fx;
	bool stop = true;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	assert_int_equal(fx_idle_stop(&fx, 450 * US, 4500 * US, true, &stop), 3);
	fx_repeat(&fx, 60, 450 * US, 9 * MS, true);
	assert_int_equal(fx_idle_stop(&fx, 450 * US, 9 * MS, true, &stop), 3);
	assert_int_equal(fx_idle_stop(&fx, 450 * US, 4500 * US, true, &stop), 2);
	assert_false(stop);

	/* ... and it climbs back toward 1.0 when stays reach the timer */
	fx_repeat(&fx, 40, 9 * MS, 9 * MS, true);
	assert_int_equal(fx_idle_stop(&fx, 4500 * US, 4500 * US, true, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * A polling state ended by its time limit counts as a stay until the next
 * timer.  16 us stays are learnt in POLL (QoS 0), C1 and C1E are disabled,
 * and five polls of 10 ms-timer periods time out.  The pushed 10 ms stays
 * then outnumber the 16 us ones and the guess is 10 ms: C6 with the tick
 * stopped.  Had the 200 us poll length been taken as the stay, the guess
 * would be 200 us and the tick kept.
 */
static void test_poll_time_limit(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_set_qos(&fx, 0);
	for (i = 0; i < 8; i++)
		assert_int_equal(fx_idle_stop(&fx, 16 * US, 10 * MS, true, NULL), 0);
	assert_false(fx.dev[0].poll_time_limit);
	fx_drop_qos(&fx);
	fx_disable(&fx, 1, true);
	fx_disable(&fx, 2, true);
	for (i = 0; i < 5; i++) {
		assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, &stop), 0);
		assert_false(stop);
		assert_true(fx.dev[0].poll_time_limit);
	}
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * Prefer a real state over polling: with a 5 us guess, C1 (1 us exit,
 * 10 us residency) is taken instead of POLL since the timer is far and
 * C1's exit latency is below the guess; with a 6 us exit latency
 * (above the guess) polling stays.
 */
static void test_prefer_real_state_over_polling(void **state)
{
	static const struct fx_state_desc cheap[] = {
		{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
		{ "C1", 1, 10, 500, CPUIDLE_FLAG_TIME_VALID },
		{ "C2", 20, 100, 100, CPUIDLE_FLAG_TIME_VALID },
	};
	static const struct fx_state_desc slow[] = {
		{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
		{ "C1", 6, 10, 500, CPUIDLE_FLAG_TIME_VALID },
		{ "C2", 20, 100, 100, CPUIDLE_FLAG_TIME_VALID },
	};
	const struct fx_state_desc *sets[] = { cheap, slow };
	const int expect[] = { 1, 0 };
	struct fixture fx;
	bool stop = true;
	int k;

	(void)state;
	for (k = 0; k < 2; k++) {
		setup(&fx, sets[k], 3);
		fx_set_qos(&fx, 0);
		fx_repeat(&fx, 9, 5 * US, 50 * MS, true);	/* learn 5 us in POLL */
		fx_drop_qos(&fx);
		assert_int_equal(fx_idle_stop(&fx, 5 * US, 50 * MS, true, &stop), expect[k]);
		assert_false(stop);
		/*
		 * A guess of at most RESIDENCY_THRESHOLD_NS (15 us) is not
		 * checked against the timer at all: even a timer 5 us away,
		 * before C1 pays off, does not bring back state 0.
		 */
		assert_int_equal(fx_idle_stop(&fx, 5 * US, 5 * US, true, &stop), expect[k]);
		fx_fini(&fx);
	}
}

/*
 * The Oct-2025 revert: eight widely spread stays (115..815 us) never agree;
 * once trimming is down to six samples the detector gives up and the far
 * timer decides (C6, tick stopped).  The reverted 6.16 rule returned the
 * largest remaining sample (~615 us) instead, which keeps the tick.
 */
static void test_typical_interval_gives_up(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	for (i = 0; i < 8; i++)
		assert_true(fx_idle_stop(&fx, (200 + 100 * i) * US, 50 * MS, true, NULL) >= 0);
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 500 * MS, true, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);
}

/* POLL, C1, C6 and a very deep C10 (20 ms residency). */
static const struct fx_state_desc deep_states[] = {
	{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
	{ "C1", 2, 2, 1000, CPUIDLE_FLAG_TIME_VALID },
	{ "C6", 85, 200, 50, CPUIDLE_FLAG_TIME_VALID },
	{ "C10", 500, 20000, 5, CPUIDLE_FLAG_TIME_VALID },
};

/*
 * An 8 ms guess (above one tick) falls short of C10 with the tick running:
 * menu settles for C6 and keeps the tick (the guess becomes C6's 200 us
 * residency), to look again at the next tick.
 */
static void test_tick_running_deep_state_out_of_reach(void **state)
{
	struct fixture fx;
	bool stop = true;
	int i;

	(void)state;
	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	fx_repeat(&fx, 30, 8500 * US, 50 * MS, true);
	for (i = 0; i < 5; i++) {
		assert_int_equal(fx_idle_stop(&fx, 8500 * US, 50 * MS, true, &stop), 2);
		assert_false(stop);
	}
	fx_fini(&fx);
}

/*
 * The same guess with the tick already stopped: C6 (shallower than a tick)
 * is replaced by C10 because C10 still pays off before the 50 ms timer.
 * With the timer at 15 ms it would not, and C6 stays.
 */
static void test_tick_stopped_deeper_state_before_timer(void **state)
{
	struct fixture fx;
	bool stop = false;

	(void)state;
	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	fx_repeat(&fx, 30, 8500 * US, 50 * MS, false);
	assert_int_equal(fx_idle_stop(&fx, 8500 * US, 50 * MS, false, &stop), 3);
	assert_true(stop);
	assert_int_equal(fx_idle_stop(&fx, 8500 * US, 15 * MS, false, &stop), 2);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * Entries refused by the driver push "no information" into the pattern
 * ring: after eight refusals of C1E the short pattern is gone and the far
 * timer gives C6 (without the rule C1E would be tried for ever).
 */
static void test_rejected_entries(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	learn_short_pattern(&fx);
	fx.reject[0] = 2;
	for (i = 0; i < 8; i++)
		assert_int_equal(fx_idle_stop(&fx, 40 * US, 500 * MS, true, NULL), -EBUSY);
	assert_int_equal(fx.dev[0].states_usage[2].rejected, 8);
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 500 * MS, true, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * A stay ended by the tick while the timer was far counts as 45 ms.  Five
 * such wake-ups (real stays 4 ms) outnumber the short pattern; the guess
 * becomes long and the tick is stopped.  Had the 4 ms been believed the
 * guess would stay below one tick and the tick would be kept.
 */
static void test_tick_wakeup(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	learn_short_pattern(&fx);
	for (i = 0; i < 5; i++)
		assert_true(fx_idle_ex(&fx, 0, 4 * MS, 50 * MS, 4 * MS, true, true, NULL) >= 0);
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 50 * MS, true, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);

	/* the control: the same stays not ended by the tick */
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	learn_short_pattern(&fx);
	for (i = 0; i < 5; i++)
		assert_true(fx_idle_ex(&fx, 0, 4 * MS, 50 * MS, 4 * MS, true, false, NULL) >= 0);
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 50 * MS, true, &stop), 3);
	assert_false(stop);
	fx_fini(&fx);
}

/*
 * A state without CPUIDLE_FLAG_TIME_VALID cannot report its residency; its
 * stays are assumed to last until the timer (2.6.34), so short real stays
 * do not drive menu out of it.  The same states with the flag do.
 */
static void test_time_invalid_state(void **state)
{
	static const struct fx_state_desc blind[] = {
		{ "C1", 1, 2, 1000, CPUIDLE_FLAG_TIME_VALID },
		{ "C2", 50, 500, 100, 0 },
	};
	static const struct fx_state_desc seeing[] = {
		{ "C1", 1, 2, 1000, CPUIDLE_FLAG_TIME_VALID },
		{ "C2", 50, 500, 100, CPUIDLE_FLAG_TIME_VALID },
	};
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, blind, FX_ARRAY_SIZE(blind));
	for (i = 0; i < 30; i++) {
		assert_int_equal(fx_idle_stop(&fx, 100 * US, 20 * MS, true, &stop), 1);
		assert_true(stop);
	}
	fx_fini(&fx);

	setup(&fx, seeing, FX_ARRAY_SIZE(seeing));
	fx_repeat(&fx, 29, 100 * US, 20 * MS, true);
	assert_int_equal(fx_idle_stop(&fx, 100 * US, 20 * MS, true, &stop), 0);
	assert_false(stop);
	fx_fini(&fx);
}

/* Switching away and back starts from fresh statistics (factors 1.0). */
static void test_enable_resets(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	learn_short_pattern(&fx);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "ladder"), 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "menu"), 0);
	assert_int_equal(fx_idle_stop(&fx, 40 * US, 50 * MS, true, NULL), 3);
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qos_zero_state0),
		cmocka_unit_test(test_timer_before_state1_pays_off),
		cmocka_unit_test(test_latency_limit),
		cmocka_unit_test(test_disabled_states_skipped),
		cmocka_unit_test(test_long_idle_deepest),
		cmocka_unit_test(test_typical_interval_short_pattern),
		cmocka_unit_test(test_typical_interval_outliers),
		cmocka_unit_test(test_tick_stopped_uses_timer),
		cmocka_unit_test(test_tick_kept_shallower_state),
		cmocka_unit_test(test_correction_factor),
		cmocka_unit_test(test_poll_time_limit),
		cmocka_unit_test(test_prefer_real_state_over_polling),
		cmocka_unit_test(test_typical_interval_gives_up),
		cmocka_unit_test(test_tick_running_deep_state_out_of_reach),
		cmocka_unit_test(test_tick_stopped_deeper_state_before_timer),
		cmocka_unit_test(test_rejected_entries),
		cmocka_unit_test(test_tick_wakeup),
		cmocka_unit_test(test_time_invalid_state),
		cmocka_unit_test(test_enable_resets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
