// SPDX-License-Identifier: MIT
/*
 * test_teo.c - the teo governor's rules (Linux 6.18 teo), one test per
 * rule, each built so that it fails if that rule is broken.  The numbered
 * rules are those of the DOC block in src/governors/teo.c.
 *
 * The fixture's default tick is 250 Hz (TICK_NSEC = 4 ms).  Exit latency
 * and target residency in us:
 *
 *   fx_four      POLL 0/0, C1 2/2, C1E 10/20, C6 85/200
 *                bins: [0, 2 us) [2, 20 us) [20, 200 us) [200 us, inf)
 *   deep_states  POLL 0/0, C1 2/2, C6 85/200, C10 500/20000
 *                bins: [0, 2 us) [2, 200 us) [200 us, 20 ms) [20 ms, inf)
 *
 * The "observed" stay of teo is the residency minus half the exit latency
 * (C6: 42.5 us, C10: 250 us), or half the residency if that is shorter
 * than the exit latency.  PULSE is 1024 and metrics keep 7/8 per update.
 */
#include "fixture.h"

#define US	1000LL
#define MS	(1000 * US)

/* POLL, C1, C6 and a C10 whose 20 ms residency is beyond the tick. */
static const struct fx_state_desc deep_states[] = {
	{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
	{ "C1", 2, 2, 1000, CPUIDLE_FLAG_TIME_VALID },
	{ "C6", 85, 200, 50, CPUIDLE_FLAG_TIME_VALID },
	{ "C10", 500, 20000, 5, CPUIDLE_FLAG_TIME_VALID },
};

static void setup(struct fixture *fx, const struct fx_state_desc *st, int n)
{
	fx_init(fx, st, n, 1, 0);
	assert_int_equal(cpuidle_switch_governor(fx->sys, "teo"), 0);
}

/* ---------------------------------------------------------------------- */

/* Built in, rated 19: available, but menu (20) stays the default. */
static void test_registered_below_menu(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	assert_non_null(cpuidle_find_governor(fx.sys, "teo"));
	assert_int_equal(cpuidle_find_governor(fx.sys, "teo")->rating, 19);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "menu");
	fx_fini(&fx);
}

/* Rule 1: a single state is returned and the tick is always kept. */
static void test_single_state(void **state)
{
	static const struct fx_state_desc one[] = {
		{ "C1", 1, 1, 1000, CPUIDLE_FLAG_TIME_VALID },
	};
	struct fixture fx;
	bool stop = true;
	int i;

	(void)state;
	setup(&fx, one, FX_ARRAY_SIZE(one));
	for (i = 0; i < 5; i++) {
		assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 0);
		assert_false(stop);
	}
	fx_fini(&fx);
}

/*
 * Hits: stays that end at a 100 us timer fall into C1E's bin, like the
 * timer: teo keeps taking C1E (C6 does not pay off before the timer) and
 * keeps the tick (100 us is below one tick).  Those hits say nothing
 * against deeper states: a 10 ms timer gets C6 with the tick stopped at
 * once, where an intercept-driven choice would stay shallow.
 */
static void test_hits_follow_timer(void **state)
{
	struct fixture fx;
	bool stop = true;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	for (i = 0; i < 40; i++) {
		assert_int_equal(fx_idle_stop(&fx, 100 * US, 100 * US, true, &stop), 2);
		assert_false(stop);
	}
	assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * Rule 4, intercepts: 100 us stays with a 10 ms timer are intercepts of
 * C1E's bin (observed 57.5 us in C6, 95 us in C1E).  From the second entry
 * on teo takes C1E; the sleep length is still 10 ms, so the tick may stop.
 *
 * Then the stays reach the timer (hits in C6's bin).  Intercepts I and the
 * total T were equal (every event was an intercept), 6545 after the
 * twelfth; each hit takes 1/8 off I while T keeps growing, and C6 comes
 * back once 2 I <= T: after the fifth hit (I = 3359, T = 7349), not
 * before (fourth: I = 3838, T = 7228).
 */
static void test_intercepts_go_shallower(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	assert_int_equal(fx_idle_stop(&fx, 100 * US, 10 * MS, true, &stop), 3);
	assert_true(stop);
	for (i = 0; i < 11; i++) {
		assert_int_equal(fx_idle_stop(&fx, 100 * US, 10 * MS, true, &stop), 2);
		assert_true(stop);
	}
	for (i = 0; i < 5; i++)
		assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, NULL), 2);
	for (i = 0; i < 5; i++)
		assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, NULL), 3);
	fx_fini(&fx);
}

/*
 * Rule 6, short idles: after one 5 us stay in C6 (observed 2.5 us: a short
 * idle and an intercept of C1's bin) teo picks C1 and, short idles being
 * the majority, does not ask for the timer.  The proof: the timer given is
 * 1 us, before C1 pays off; had it been read, POLL would have been chosen
 * (rule 7).  The tick is kept.
 *
 * The control: a 60 us stay (observed 17.5 us, same bin, not short) leads
 * to the same C1 candidate, but the timer is read and POLL taken.
 */
static void test_short_idles_skip_timer(void **state)
{
	struct fixture fx;
	bool stop = true;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	assert_int_equal(fx_idle_stop(&fx, 5 * US, 10 * MS, true, NULL), 3);
	assert_int_equal(fx_idle_stop(&fx, 5 * US, 1 * US, true, &stop), 1);
	assert_false(stop);
	assert_int_equal(fx_idle_stop(&fx, 5 * US, 1 * US, true, &stop), 1);
	assert_false(stop);
	fx_fini(&fx);

	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	assert_int_equal(fx_idle_stop(&fx, 60 * US, 10 * MS, true, NULL), 3);
	assert_int_equal(fx_idle_stop(&fx, 60 * US, 1 * US, true, &stop), 0);
	assert_false(stop);
	fx_fini(&fx);
}

/*
 * A residency below the exit latency is halved: 30 us in C6 (85 us exit)
 * is observed as 15 us, an intercept of C1's bin and a short idle, so C1
 * follows, timer unread (the 1 us timer would have meant POLL).  Taken
 * whole (or minus half the exit latency) it would fall into C1E's bin.
 */
static void test_short_residency_halved(void **state)
{
	struct fixture fx;
	bool stop = true;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	assert_int_equal(fx_idle_stop(&fx, 30 * US, 10 * MS, true, NULL), 3);
	assert_int_equal(fx_idle_stop(&fx, 30 * US, 1 * US, true, &stop), 1);
	assert_false(stop);
	fx_fini(&fx);
}

/*
 * Rule 7: state 0 chosen after the timer was read keeps the tick even
 * when state 0 does not poll and the timer is far.  A laptop-like driver
 * (C1 1/1, C2 10/50, C3 50/500): a 60 us stay in C3 is observed as 35 us,
 * an intercept of C1's bin that is not a short idle, so the timer is read
 * (10 ms) and C1 returned with the tick running.
 */
static void test_state0_after_timer_keeps_tick(void **state)
{
	static const struct fx_state_desc st[] = {
		{ "C1", 1, 1, 1000, CPUIDLE_FLAG_TIME_VALID },
		{ "C2", 10, 50, 500, CPUIDLE_FLAG_TIME_VALID },
		{ "C3", 50, 500, 100, CPUIDLE_FLAG_TIME_VALID },
	};
	struct fixture fx;
	bool stop = true;

	(void)state;
	setup(&fx, st, FX_ARRAY_SIZE(st));
	assert_int_equal(fx_idle_stop(&fx, 60 * US, 10 * MS, true, &stop), 2);
	assert_true(stop);
	assert_int_equal(fx_idle_stop(&fx, 60 * US, 10 * MS, true, &stop), 0);
	assert_false(stop);
	fx_fini(&fx);
}

/*
 * Rules 5 and 6, QoS: C6 (85 us exit) is never used under a 50 us limit.
 * Under 0 only POLL, with the tick kept.  Under 5 us (below
 * LATENCY_THRESHOLD_NS) C1 is taken without reading the timer (the 1 us
 * timer would have meant POLL); under 8 us the timer is read again.
 */
static void test_latency_limit(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_repeat(&fx, 10, 50 * MS, 50 * MS, true);
	fx_set_qos(&fx, 50);
	for (i = 0; i < 20; i++) {
		assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 2);
		assert_true(stop);
	}
	fx_drop_qos(&fx);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, NULL), 3);

	fx_set_qos(&fx, 0);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 0);
	assert_false(stop);
	fx_drop_qos(&fx);

	fx_set_qos(&fx, 5);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 1 * US, true, &stop), 1);
	assert_false(stop);
	fx_drop_qos(&fx);
	fx_set_qos(&fx, 8);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 1 * US, true, &stop), 0);
	fx_drop_qos(&fx);
	fx_fini(&fx);
}

/*
 * Rules 2 and 3, disabled states: skipped; with one state left it is used
 * whatever the timer, and with a residency below one tick the tick is
 * kept (rule 3 takes the residency as the expected stay) unless already
 * stopped; none left: state 0, tick kept.
 */
static void test_disabled_states(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_disable(&fx, 3, true);
	for (i = 0; i < 10; i++)
		assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, NULL), 2);
	fx_disable(&fx, 2, true);
	for (i = 0; i < 10; i++)
		assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, NULL), 1);

	fx_disable(&fx, 0, true);	/* C1 alone */
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 1);
	assert_false(stop);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, false, &stop), 1);
	assert_true(stop);

	fx_disable(&fx, 1, true);	/* none */
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 0);
	assert_false(stop);
	fx_fini(&fx);

	/* a lone state of at least a tick lets the tick stop */
	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	fx_disable(&fx, 0, true);
	fx_disable(&fx, 1, true);
	fx_disable(&fx, 2, true);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 3);
	assert_true(stop);
	/* ... even a 1 ms timer: rule 3 does not look at it */
	assert_int_equal(fx_idle_stop(&fx, 1 * MS, 1 * MS, true, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * Rule 3 ignores QoS, as 6.18 does: with POLL disabled and C6 the only
 * other state enabled, C6 is used under a 50 us limit.  With POLL enabled
 * the limit holds.
 */
static void test_single_enabled_state_ignores_qos(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_disable(&fx, 1, true);
	fx_disable(&fx, 2, true);
	fx_set_qos(&fx, 50);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, NULL), 0);
	fx_disable(&fx, 0, true);
	assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, NULL), 3);
	fx_fini(&fx);
}

/*
 * Two states (the haltpoll VM: POLL 0/0, halt 1/1).  With no history,
 * halt is taken without asking for the timer (no events: short idles
 * "at least half" of a zero total) and the tick is kept; once a long stay
 * is known the timer is read and the tick stopped.  Stays of 0.8 us are
 * intercepts of POLL's bin; after two of them (intercepts 1920 against a
 * total of 3390) POLL wins, timer unread, tick kept.
 */
static void test_two_states(void **state)
{
	struct fixture fx;
	bool stop = true;
	int i;

	(void)state;
	setup(&fx, fx_haltpoll, FX_ARRAY_SIZE(fx_haltpoll));
	assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, &stop), 1);
	assert_false(stop);
	assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, &stop), 1);
	assert_true(stop);
	assert_int_equal(fx_idle_stop(&fx, 800, 10 * MS, true, &stop), 1);
	assert_int_equal(fx_idle_stop(&fx, 800, 10 * MS, true, &stop), 1);
	for (i = 0; i < 6; i++) {
		assert_int_equal(fx_idle_stop(&fx, 800, 10 * MS, true, &stop), 0);
		assert_false(stop);
	}
	fx_fini(&fx);
}

/*
 * Rule 9, the tick kept: with a 300 us timer and the tick running, C6 pays
 * off before the timer, but the timer is less than a tick away; when the
 * next tick comes in 100 us, C6 is lowered to C1E, in 10 us to C1, and
 * with C1 disabled to POLL.  With the tick stopped, C6 stands.
 */
static void test_tick_kept_lowered_to_next_tick(void **state)
{
	struct fixture fx;
	bool stop = true;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	assert_int_equal(fx_idle_ex(&fx, 0, 300 * US, 300 * US, 4 * MS, true, false, &stop), 3);
	assert_false(stop);
	assert_int_equal(fx_idle_ex(&fx, 0, 300 * US, 300 * US, 100 * US, true, false, &stop), 2);
	assert_false(stop);
	assert_int_equal(fx_idle_ex(&fx, 0, 300 * US, 300 * US, 10 * US, true, false, &stop), 1);
	fx_disable(&fx, 1, true);
	assert_int_equal(fx_idle_ex(&fx, 0, 300 * US, 300 * US, 10 * US, true, false, &stop), 0);
	assert_false(stop);
	assert_int_equal(fx_idle_ex(&fx, 0, 300 * US, 300 * US, 300 * US, false, false, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * Rule 8, tick intercepts: 8.5 ms stays before a 50 ms timer are
 * intercepts of C6's bin lasting more than a tick (observed 8.25 ms).  They
 * make teo take C6 and keep the tick (half a tick assumed).
 *
 * 6.18's condition counts only intercepts of at least a tick: 1 ms stays,
 * also intercepts of C6's bin, do not keep the tick (v6.19 would).
 */
static void test_tick_intercepts_keep_tick(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	assert_int_equal(fx_idle_stop(&fx, 8500 * US, 50 * MS, true, &stop), 3);
	assert_true(stop);
	for (i = 0; i < 10; i++) {
		assert_int_equal(fx_idle_stop(&fx, 8500 * US, 50 * MS, true, &stop), 2);
		assert_false(stop);
	}
	fx_fini(&fx);

	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	assert_int_equal(fx_idle_stop(&fx, 1 * MS, 50 * MS, true, &stop), 3);
	for (i = 0; i < 10; i++) {
		assert_int_equal(fx_idle_stop(&fx, 1 * MS, 50 * MS, true, &stop), 2);
		assert_true(stop);
	}
	fx_fini(&fx);
}

/*
 * Rule 8's share: after 20 hits of C10's bin, 8.5 ms intercepts (each a
 * tick intercept) come in.  Rule 4 moves to C6 once the intercepts pass
 * half of the total (sixth entry: 3991 of 7905), but the tick is kept only
 * once they pass 5/8 of it (ninth entry: 5379 of 8001; eighth: 4977 of
 * 7973 is below).
 */
static void test_tick_intercept_share(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	fx_repeat(&fx, 20, 50 * MS, 50 * MS, true);
	for (i = 0; i < 5; i++) {
		assert_int_equal(fx_idle_stop(&fx, 8500 * US, 50 * MS, true, &stop), 3);
		assert_true(stop);
	}
	for (i = 0; i < 3; i++) {
		assert_int_equal(fx_idle_stop(&fx, 8500 * US, 50 * MS, true, &stop), 2);
		assert_true(stop);
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(fx_idle_stop(&fx, 8500 * US, 50 * MS, true, &stop), 2);
		assert_false(stop);
	}
	fx_fini(&fx);
}

/*
 * Rules 4 and 7 with the tick already stopped: states shallower than a
 * tick are not acceptable.  The 8.5 ms intercepts that gave C6 with the
 * tick running leave C10; and a 15 ms timer, before C10 pays off, would
 * lower it to C6, which is not acceptable either, so C10 stands (the
 * same timer with the tick running gives C6).
 */
static void test_tick_stopped_stays_deep(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	for (i = 0; i < 10; i++) {
		assert_int_equal(fx_idle_stop(&fx, 8500 * US, 50 * MS, false, &stop), 3);
		assert_true(stop);
	}
	assert_int_equal(fx_idle_stop(&fx, 8500 * US, 15 * MS, false, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);

	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	fx_repeat(&fx, 10, 8500 * US, 50 * MS, true);
	assert_int_equal(fx_idle_stop(&fx, 8500 * US, 15 * MS, true, NULL), 2);
	fx_fini(&fx);

	/*
	 * A 1 ms timer with the tick stopped: C10 stands (C6 is not
	 * acceptable), and rule 9 returns it without the lowering to the
	 * next event that a running tick would bring (C6 again).
	 */
	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	assert_int_equal(fx_idle_stop(&fx, 1 * MS, 1 * MS, false, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * Rule 4's walk with the tick stopped picks the shallowest acceptable
 * state above the intercepts: with C8 (5 ms, at least a tick) between C6
 * and C10, 1 ms intercepts of C6's bin give C8; with the tick running, C6;
 * with C8 disabled, C10.
 */
static void test_tick_stopped_walk_fallback(void **state)
{
	static const struct fx_state_desc five[] = {
		{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
		{ "C1", 2, 2, 1000, CPUIDLE_FLAG_TIME_VALID },
		{ "C6", 85, 200, 50, CPUIDLE_FLAG_TIME_VALID },
		{ "C8", 200, 5000, 20, CPUIDLE_FLAG_TIME_VALID },
		{ "C10", 500, 20000, 5, CPUIDLE_FLAG_TIME_VALID },
	};
	struct fixture fx;

	(void)state;
	setup(&fx, five, FX_ARRAY_SIZE(five));
	assert_int_equal(fx_idle_stop(&fx, 1 * MS, 50 * MS, false, NULL), 4);
	assert_int_equal(fx_idle_stop(&fx, 1 * MS, 50 * MS, false, NULL), 3);
	assert_int_equal(fx_idle_stop(&fx, 1 * MS, 50 * MS, false, NULL), 3);
	assert_int_equal(fx_idle_stop(&fx, 1 * MS, 50 * MS, true, NULL), 2);
	fx_disable(&fx, 3, true);
	assert_int_equal(fx_idle_stop(&fx, 1 * MS, 50 * MS, false, NULL), 4);
	fx_fini(&fx);
}

/*
 * A polling state ended by its time limit (20 us here, C1E's residency)
 * is an artificial wake-up: a stay as long as the timer allows, a hit of
 * the timer's bin.  reflect() clears dev->poll_time_limit.  Eight timed-out
 * polls under QoS 0, then with QoS dropped: C6.  The control, polls ended
 * by work at 15 us (intercepts of C1's bin), gives C1; and had the timed
 * out polls counted as 20 us stays, they would have given C1E.
 */
static void test_poll_time_limit(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_set_qos(&fx, 0);
	for (i = 0; i < 8; i++) {
		assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, &stop), 0);
		assert_false(stop);
		assert_int_equal(fx.dev[0].last_residency_ns, 20 * US);
		assert_false(fx.dev[0].poll_time_limit);
	}
	fx_drop_qos(&fx);
	assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, &stop), 3);
	assert_true(stop);
	fx_fini(&fx);

	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_set_qos(&fx, 0);
	fx_repeat(&fx, 8, 15 * US, 10 * MS, true);
	fx_drop_qos(&fx);
	assert_int_equal(fx_idle_stop(&fx, 10 * MS, 10 * MS, true, &stop), 1);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * A tick that ends a stay while the timer was more than a tick away is an
 * artificial wake-up too: 4 ms stays ended by the tick before a 50 ms
 * timer count as hits of C10's bin and C10 stays.  The same stays not
 * ended by the tick are intercepts of C6's bin (observed 3.75 ms) and C6
 * is taken.
 */
static void test_tick_wakeup_artificial(void **state)
{
	struct fixture fx;
	bool stop = false;
	int i;

	(void)state;
	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	for (i = 0; i < 6; i++)
		assert_int_equal(fx_idle_ex(&fx, 0, 4 * MS, 50 * MS, 4 * MS, true, true, &stop), 3);
	fx_fini(&fx);

	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	assert_int_equal(fx_idle_ex(&fx, 0, 4 * MS, 50 * MS, 4 * MS, true, false, &stop), 3);
	for (i = 0; i < 5; i++) {
		assert_int_equal(fx_idle_ex(&fx, 0, 4 * MS, 50 * MS, 4 * MS, true, false, &stop), 2);
		assert_true(stop);
	}
	fx_fini(&fx);
}

/*
 * An entry refused by the driver gets no reflect() and so no update.
 * Five refusals of C6 leave the metrics empty and C6 is tried each time;
 * had they been folded in as zero-length stays (short idles, intercepts of
 * POLL's bin), teo would have gone to POLL after the first.
 */
static void test_rejected_entries(void **state)
{
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx.reject[0] = 3;
	for (i = 0; i < 5; i++)
		assert_int_equal(fx_idle_stop(&fx, 5 * US, 10 * MS, true, NULL), -EBUSY);
	assert_int_equal(fx.dev[0].states_usage[3].rejected, 5);
	fx.reject[0] = -1;
	assert_int_equal(fx_idle_stop(&fx, 5 * US, 10 * MS, true, NULL), 3);
	fx_fini(&fx);
}

/*
 * A timer already due (a negative sleep length, as tick_nohz_get_sleep_length()
 * can return) is shorter than a tick: the kernel compares the s64 sleep
 * length with TICK_NSEC, a signed long, so the tick is kept.  Compared
 * unsigned, as this port once did, it would be "more than a tick" and the
 * tick would stop.  With POLL disabled the walk ends at C1, which does not
 * poll, so only that comparison decides.
 */
static void test_negative_sleep_length_keeps_tick(void **state)
{
	struct fixture fx;
	bool stop = true;

	(void)state;
	setup(&fx, deep_states, FX_ARRAY_SIZE(deep_states));
	fx_disable(&fx, 0, true);
	assert_int_equal(fx_idle_ex(&fx, 0, 10 * US, -1000, -1000, true, false, &stop), 1);
	assert_false(stop);
	fx_fini(&fx);
}

/* Switching away and back starts from empty metrics. */
static void test_enable_resets(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_repeat(&fx, 12, 100 * US, 10 * MS, true);
	assert_int_equal(fx_idle_stop(&fx, 100 * US, 10 * MS, true, NULL), 2);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "ladder"), 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "teo"), 0);
	assert_int_equal(fx_idle_stop(&fx, 100 * US, 10 * MS, true, NULL), 3);
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registered_below_menu),
		cmocka_unit_test(test_single_state),
		cmocka_unit_test(test_hits_follow_timer),
		cmocka_unit_test(test_intercepts_go_shallower),
		cmocka_unit_test(test_short_idles_skip_timer),
		cmocka_unit_test(test_short_residency_halved),
		cmocka_unit_test(test_state0_after_timer_keeps_tick),
		cmocka_unit_test(test_latency_limit),
		cmocka_unit_test(test_disabled_states),
		cmocka_unit_test(test_single_enabled_state_ignores_qos),
		cmocka_unit_test(test_two_states),
		cmocka_unit_test(test_tick_kept_lowered_to_next_tick),
		cmocka_unit_test(test_tick_intercepts_keep_tick),
		cmocka_unit_test(test_tick_intercept_share),
		cmocka_unit_test(test_tick_stopped_stays_deep),
		cmocka_unit_test(test_tick_stopped_walk_fallback),
		cmocka_unit_test(test_poll_time_limit),
		cmocka_unit_test(test_tick_wakeup_artificial),
		cmocka_unit_test(test_rejected_entries),
		cmocka_unit_test(test_negative_sleep_length_keeps_tick),
		cmocka_unit_test(test_enable_resets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
