// SPDX-License-Identifier: MIT
/*
 * test_kernel_versions.c - the governors by kernel release: menu@6.18 and
 * teo@6.18 against menu@7.1 and teo@7.1 (src/governors/menu.c,
 * src/governors/teo_7_1.c).  For each rule Linux changed, a hand-built
 * run where the two releases must choose differently, and one beside it
 * where they must agree; every expected answer is worked out in the
 * comment above it from the DOC blocks' rules, not taken from a run.
 *
 * The fixture's tick is 250 Hz (4 ms).  teo runs on "wide", four states
 * far apart and none polling, so that a stay falls into the same bin
 * whatever state it was spent in (its observed length is the residency
 * less at most 50 us):
 *
 *   wide   C1 1/1, C2 2/20, C3 10/100, C6 100/1000 (exit/residency, us)
 *          bins: [0, 20 us) [20, 100 us) [100 us, 1 ms) [1 ms, inf)
 *
 * teo's metrics decay by 1/8 per idle period, so after a long run of a
 * cycle of k stays the bin hit j periods ago holds about
 * PULSE x (7/8)^j / (1 - (7/8)^k).
 */
#include "fixture.h"

#define US	1000LL
#define MS	(1000 * US)

static const struct fx_state_desc wide[] = {
	{ "C1", 1, 1, 1000, CPUIDLE_FLAG_TIME_VALID },
	{ "C2", 2, 20, 600, CPUIDLE_FLAG_TIME_VALID },
	{ "C3", 10, 100, 200, CPUIDLE_FLAG_TIME_VALID },
	{ "C6", 100, 1000, 50, CPUIDLE_FLAG_TIME_VALID },
};

/* POLL and one real state 2 us to leave that pays off after 20 us. */
static const struct fx_state_desc poll_c1_20[] = {
	{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
	{ "C1", 2, 20, 500, CPUIDLE_FLAG_TIME_VALID },
};

/* ... and one that pays off after 10 us. */
static const struct fx_state_desc poll_c1_10[] = {
	{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
	{ "C1", 2, 10, 500, CPUIDLE_FLAG_TIME_VALID },
};

static void setup(struct fixture *fx, const struct fx_state_desc *st, int n, const char *gov)
{
	fx_init(fx, st, n, 1, 0);
	assert_int_equal(cpuidle_switch_governor(fx->sys, gov), 0);
}

/* One period on CPU 0 with the tick running: index and tick decision. */
static int run(struct fixture *fx, int64_t stay_ns, int64_t timer_ns, bool *stop)
{
	return fx_idle_stop(fx, stay_ns, timer_ns, true, stop);
}

/* ------------------------------------------------------------ the names */

static void test_names_and_lookup(void **state)
{
	const struct cpuidle_governor *const *v = cpuidle_versioned_governors();
	const char *want[] = { "menu@6.18", "menu@7.1", "teo@6.18", "teo@7.1" };
	struct fixture fx;
	char buf[128];
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		assert_non_null(v[i]);
		assert_string_equal(v[i]->name, want[i]);
		assert_ptr_equal(cpuidle_builtin_governor(want[i]), v[i]);
	}
	assert_null(v[4]);
	/* the plain names are the 6.18 ports, the same functions */
	assert_ptr_equal(cpuidle_builtin_governor("teo@6.18")->select,
			 cpuidle_builtin_governor("teo")->select);
	assert_ptr_equal(cpuidle_builtin_governor("menu@6.18")->select,
			 cpuidle_builtin_governor("menu")->select);
	assert_true(cpuidle_builtin_governor("teo@7.1")->select !=
		    cpuidle_builtin_governor("teo")->select);
	assert_true(cpuidle_builtin_governor("menu@7.1")->select !=
		    cpuidle_builtin_governor("menu")->select);
	assert_null(cpuidle_builtin_governor("teo@9.9"));
	assert_null(cpuidle_builtin_governor("TEO@7.1"));
	assert_null(cpuidle_builtin_governor(NULL));

	/* the releases known, for a message about one that is not */
	assert_int_equal(cpuidle_governor_releases("teo@9.9", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "teo@6.18 (= teo), teo@7.1");
	assert_int_equal(cpuidle_governor_releases("menu", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "menu@6.18 (= menu), menu@7.1");
	assert_int_equal(cpuidle_governor_releases("ladder@6.18", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(cpuidle_governor_releases("te@7.1", buf, sizeof(buf)), 0);
	assert_int_equal(cpuidle_governor_releases("@7.1", buf, sizeof(buf)), 0);
	assert_int_equal(cpuidle_governor_releases("teo@9.9", buf, 8), 2);
	assert_string_equal(buf, "teo@6.1");	/* cut, terminated */

	/* registered in every system, never the default, chosen by name */
	fx_init(&fx, wide, FX_ARRAY_SIZE(wide), 1, 0);
	for (i = 0; i < 4; i++)
		assert_ptr_equal(cpuidle_find_governor(fx.sys, want[i]), v[i]);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "menu");
	assert_int_equal(cpuidle_switch_governor(fx.sys, "teo@7.1"), 0);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "teo@7.1");
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpuidle/current_governor", buf,
					   sizeof(buf)), 8);
	assert_string_equal(buf, "teo@7.1\n");
	assert_int_equal(cpuidle_switch_governor(fx.sys, "teo@9.9"), -EINVAL);
	fx_fini(&fx);
}

/* menu@6.18 and teo@6.18 decide as menu and teo, period for period. */
static void test_plain_name_is_6_18(void **state)
{
	const char *pairs[][2] = { { "menu", "menu@6.18" }, { "teo", "teo@6.18" } };
	int p, i;

	(void)state;
	for (p = 0; p < 2; p++) {
		struct fixture a, b;
		uint64_t x = 88172645463325252ull;

		setup(&a, fx_four, FX_ARRAY_SIZE(fx_four), pairs[p][0]);
		setup(&b, fx_four, FX_ARRAY_SIZE(fx_four), pairs[p][1]);
		for (i = 0; i < 5000; i++) {
			int64_t stay, timer;
			bool sa, sb, tick;

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			stay = (int64_t)(x % (3 * MS)) + 1;
			timer = stay + (int64_t)((x >> 20) % (2 * MS));
			tick = (x >> 40) & 1;
			assert_int_equal(fx_idle_stop(&a, stay, timer, tick, &sa),
					 fx_idle_stop(&b, stay, timer, tick, &sb));
			assert_int_equal(sa, sb);
		}
		fx_fini(&a);
		fx_fini(&b);
	}
}

/* ------------------------------------------------------------------ menu */

/*
 * menu, rule a: polling gives way to a real state only if that state's
 * target residency is below 15 us in 7.1.  Stays of 10 us in POLL make a
 * pattern guess of 10 us, so the timer is not asked (infinitely far):
 * C1 (residency 20 us) does not fit the guess, and POLL is the choice so
 * far.  6.18 takes C1 instead of polling (it pays off before the timer,
 * its 2 us exit fits the guess); 7.1 does not (20 us is not below 15 us)
 * and polls.
 */
static void test_menu_poll_override_threshold(void **state)
{
	const char *govs[] = { "menu@6.18", "menu@7.1" };
	const int want[] = { 1, 0 };
	int g, i, idx = -1;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;

		setup(&fx, poll_c1_20, FX_ARRAY_SIZE(poll_c1_20), govs[g]);
		for (i = 0; i < 30; i++)
			idx = run(&fx, 10 * US, 50 * MS, NULL);
		assert_int_equal(idx, want[g]);
		fx_fini(&fx);
	}
}

/*
 * ... and where they agree: a C1 that pays off after 10 us is below the
 * threshold.  Stays of 5 us (a guess of 5 us, C1 does not fit, its 2 us
 * exit does): both leave polling for C1.
 */
static void test_menu_poll_override_agree(void **state)
{
	const char *govs[] = { "menu@6.18", "menu@7.1" };
	int g, i, idx = -1;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;

		setup(&fx, poll_c1_10, FX_ARRAY_SIZE(poll_c1_10), govs[g]);
		for (i = 0; i < 30; i++)
			idx = run(&fx, 5 * US, 50 * MS, NULL);
		assert_int_equal(idx, 1);
		fx_fini(&fx);
	}
}

/*
 * menu, rules b and c: the tick already stopped and a pattern of short
 * stays.  30 stays of 10 us (in C1, observed 8 us) make a guess of 8 us;
 * then an entry with the tick stopped and a timer 6 ms away.  6.18 does
 * not ask for the timer (guess below 15 us), so it counts as infinitely
 * far, and rule 4 swaps the short guess for it: C6, the deepest state.
 * 7.1 asks for it; 6 ms is within two ticks (8 ms), so the guess of 8 us
 * stands: C1 (2 us fits, C1E's 20 us does not).
 */
static void test_menu_stopped_tick_near_timer(void **state)
{
	const char *govs[] = { "menu@6.18", "menu@7.1" };
	const int want[] = { 3, 1 };
	int g;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;

		setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four), govs[g]);
		fx_repeat(&fx, 30, 10 * US, 50 * MS, true);
		assert_int_equal(fx_idle_stop(&fx, 10 * US, 6 * MS, false, NULL), want[g]);
		fx_fini(&fx);
	}
}

/* ... and where they agree: a timer 50 ms away, beyond two ticks: C6 both. */
static void test_menu_stopped_tick_far_timer(void **state)
{
	const char *govs[] = { "menu@6.18", "menu@7.1" };
	int g;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;

		setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four), govs[g]);
		fx_repeat(&fx, 30, 10 * US, 50 * MS, true);
		assert_int_equal(fx_idle_stop(&fx, 10 * US, 50 * MS, false, NULL), 3);
		fx_fini(&fx);
	}
}

/* ------------------------------------------------------------------- teo */

/*
 * teo, rule 4: the intercept walk does not stop above the most
 * intercepted bin.  Timers 50 ms away (C6's bin), stays cycling 50 us
 * (bin 1), 300 us (bin 2), 10 us (bin 0): all intercepts.  Just after a
 * 10 us stay the bins hold about 3.03, 2.32 and 2.65 PULSEs (bin 0 is the
 * most intercepted), 8.0 in all.  6.18 walks down from C6: at C3 2.65 is
 * not half of 8.0; at C2, 2.65 + 2.32 = 4.97 is: C2, which pays off before
 * the timer and keeps no tick.  7.1 passes C2 (above bin 0) and stops at
 * C1 (all 8.0): state 0, with the tick kept.
 */
static void test_teo_walk_reaches_max_bin(void **state)
{
	const char *govs[] = { "teo@6.18", "teo@7.1" };
	const int want[] = { 1, 0 };
	const int64_t cycle[] = { 50 * US, 300 * US, 10 * US };
	int g, i;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;

		setup(&fx, wide, FX_ARRAY_SIZE(wide), govs[g]);
		for (i = 0; i < 120; i++)
			run(&fx, cycle[i % 3], 50 * MS, NULL);
		assert_int_equal(run(&fx, 10 * US, 50 * MS, NULL), want[g]);
		fx_fini(&fx);
	}
}

/*
 * ... and where they agree: every stay 50 us, bin 1 alone is intercepted
 * (and the most): both walk to C2.
 */
static void test_teo_walk_one_bin_agree(void **state)
{
	const char *govs[] = { "teo@6.18", "teo@7.1" };
	int g;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;

		setup(&fx, wide, FX_ARRAY_SIZE(wide), govs[g]);
		fx_repeat(&fx, 60, 50 * US, 50 * MS, true);
		assert_int_equal(run(&fx, 50 * US, 50 * MS, NULL), 1);
		fx_fini(&fx);
	}
}

/*
 * teo, rule F: a stay in the timer's bin is a hit only if the timer came
 * first.  Timers 50 ms away, stays of 2 ms (observed 1.95 ms in C6): both
 * in C6's bin.  6.18 counts hits: C6 with the tick stopped (50 ms is
 * beyond a tick).  7.1 counts intercepts of C6's own bin (nothing below
 * C6 changes), each shorter than a tick, so intercepts within a tick are
 * all the events: the expected stay becomes half a tick and the tick is
 * kept (C6's 1 ms pays off before the next tick: it stays C6).
 */
static void test_teo_early_stay_in_timer_bin(void **state)
{
	const char *govs[] = { "teo@6.18", "teo@7.1" };
	const bool want_stop[] = { true, false };
	int g;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;
		bool stop;

		setup(&fx, wide, FX_ARRAY_SIZE(wide), govs[g]);
		fx_repeat(&fx, 60, 2 * MS, 50 * MS, true);
		assert_int_equal(run(&fx, 2 * MS, 50 * MS, &stop), 3);
		assert_int_equal(stop, want_stop[g]);
		fx_fini(&fx);
	}
}

/*
 * ... and where they agree: stays that end at a 2 ms timer (2.1 ms
 * measured, 2.05 ms observed in C6, after the timer) are hits in both.  C6
 * pays off before the timer; a timer inside the tick keeps the tick.
 */
static void test_teo_on_time_stay_agree(void **state)
{
	const char *govs[] = { "teo@6.18", "teo@7.1" };
	int g;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;
		bool stop;

		setup(&fx, wide, FX_ARRAY_SIZE(wide), govs[g]);
		fx_repeat(&fx, 60, 2100 * US, 2 * MS, true);
		assert_int_equal(run(&fx, 2100 * US, 2 * MS, &stop), 3);
		assert_false(stop);
		fx_fini(&fx);
	}
}

/* One period ended by the tick @tick_ns in, the timer @timer_ns away. */
static int run_tick(struct fixture *fx, int64_t tick_ns, int64_t timer_ns, bool *stop)
{
	return fx_idle_ex(fx, 0, tick_ns, timer_ns, tick_ns, true, true, stop);
}

/*
 * teo, rule E: tick wake-ups.  Every period is ended by a tick 1 ms in,
 * with the timer 3 ms away (closer than a tick).  6.18 takes such a
 * wake-up as real (the timer is within a tick): observed about 0.95 ms,
 * an intercept of C3's bin, so it walks to C3 (kept tick: 3 ms is below
 * one).  In 7.1 tick wake-ups are all the events, so each is a hit of
 * C6's bin: nothing intercepted, C6 (its 1 ms pays off by the next tick,
 * 1 ms away), tick kept too.
 */
static void test_teo_tick_wakeups_dominate(void **state)
{
	const char *govs[] = { "teo@6.18", "teo@7.1" };
	const int want[] = { 2, 3 };
	int g, i;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;
		bool stop;

		setup(&fx, wide, FX_ARRAY_SIZE(wide), govs[g]);
		for (i = 0; i < 60; i++)
			run_tick(&fx, 1 * MS, 3 * MS, NULL);
		assert_int_equal(run_tick(&fx, 1 * MS, 3 * MS, &stop), want[g]);
		assert_false(stop);
		fx_fini(&fx);
	}
}

/*
 * teo, rule E, second half: tick wake-ups that do not dominate.  Periods
 * alternate: the tick ends one 1 ms in (timer 3 ms away), the timer ends
 * the next (3.1 ms measured: a hit in both).  Tick wake-ups are half the
 * events, not 2/3, and no intercept is within a tick, so 7.1 counts each
 * as a hit of the timer's bin, C6's: C6 again.  6.18 counts each as an
 * intercept of C3's bin (0.95 ms); just after one, that bin holds 4.27 of
 * the 8.0 PULSEs, more than half: it walks to C3.  Both keep the tick (the
 * timer is within it).
 */
static void test_teo_tick_wakeups_not_intercepts(void **state)
{
	const char *govs[] = { "teo@6.18", "teo@7.1" };
	const int want[] = { 2, 3 };
	int g, i;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;
		bool stop;

		setup(&fx, wide, FX_ARRAY_SIZE(wide), govs[g]);
		for (i = 0; i < 60; i++) {
			run_tick(&fx, 1 * MS, 3 * MS, NULL);
			run(&fx, 3100 * US, 3 * MS, NULL);
		}
		run_tick(&fx, 1 * MS, 3 * MS, NULL);
		assert_int_equal(run_tick(&fx, 1 * MS, 3 * MS, &stop), want[g]);
		assert_false(stop);
		fx_fini(&fx);
	}
}

/*
 * ... and where they agree: the tick ends every period 4 ms in with the
 * timer 50 ms away.  6.18 takes the tick for a safety net (the timer is
 * beyond it): a stay as long as it could be, a hit of C6's bin; 7.1 counts
 * a hit of the deepest bin, C6's.  Both: C6, the tick stopped.
 */
static void test_teo_tick_wakeups_agree(void **state)
{
	const char *govs[] = { "teo@6.18", "teo@7.1" };
	int g, i;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;
		bool stop;

		setup(&fx, wide, FX_ARRAY_SIZE(wide), govs[g]);
		for (i = 0; i < 60; i++)
			run_tick(&fx, 4 * MS, 50 * MS, NULL);
		assert_int_equal(run_tick(&fx, 4 * MS, 50 * MS, &stop), 3);
		assert_true(stop);
		fx_fini(&fx);
	}
}

/*
 * teo, rule 7: the tick already stopped.  60 stays of 50 us (intercepts
 * of C2's bin) with the tick running, then an entry with the tick stopped
 * and the timer 6 ms away.  6.18 will not walk to a state shallower than
 * a tick with the tick stopped: C6 stays.  7.1 walks to C2 and, the timer
 * being within two ticks (8 ms), leaves it there.
 */
static void test_teo_stopped_tick_near_timer(void **state)
{
	const char *govs[] = { "teo@6.18", "teo@7.1" };
	const int want[] = { 3, 1 };
	int g;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;

		setup(&fx, wide, FX_ARRAY_SIZE(wide), govs[g]);
		fx_repeat(&fx, 60, 50 * US, 50 * MS, true);
		assert_int_equal(fx_idle_stop(&fx, 50 * US, 6 * MS, false, NULL), want[g]);
		fx_fini(&fx);
	}
}

/*
 * ... and where they agree: the timer 50 ms away.  7.1 walks to C2, then
 * finds the timer beyond two ticks and takes the deepest state that pays
 * off before it: C6, as 6.18.
 */
static void test_teo_stopped_tick_far_timer(void **state)
{
	const char *govs[] = { "teo@6.18", "teo@7.1" };
	int g;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;

		setup(&fx, wide, FX_ARRAY_SIZE(wide), govs[g]);
		fx_repeat(&fx, 60, 50 * US, 50 * MS, true);
		assert_int_equal(fx_idle_stop(&fx, 50 * US, 50 * MS, false, NULL), 3);
		fx_fini(&fx);
	}
}

/*
 * One state: Linux 7.0's core no longer asks the governor; here it is
 * asked, and the 7.1 ports answer as 6.18's: state 0, teo keeping the
 * tick, menu stopping it (the state does not poll).
 */
static void test_single_state(void **state)
{
	static const struct fx_state_desc one[] = {
		{ "C1", 1, 1, 1000, CPUIDLE_FLAG_TIME_VALID },
	};
	const char *govs[] = { "teo@7.1", "menu@7.1" };
	const bool want_stop[] = { false, true };
	int g, i;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct fixture fx;
		bool stop;

		setup(&fx, one, FX_ARRAY_SIZE(one), govs[g]);
		for (i = 0; i < 5; i++) {
			assert_int_equal(fx_idle_stop(&fx, 50 * MS, 50 * MS, true, &stop), 0);
			assert_int_equal(stop, want_stop[g]);
		}
		fx_fini(&fx);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_and_lookup),
		cmocka_unit_test(test_plain_name_is_6_18),
		cmocka_unit_test(test_menu_poll_override_threshold),
		cmocka_unit_test(test_menu_poll_override_agree),
		cmocka_unit_test(test_menu_stopped_tick_near_timer),
		cmocka_unit_test(test_menu_stopped_tick_far_timer),
		cmocka_unit_test(test_teo_walk_reaches_max_bin),
		cmocka_unit_test(test_teo_walk_one_bin_agree),
		cmocka_unit_test(test_teo_early_stay_in_timer_bin),
		cmocka_unit_test(test_teo_on_time_stay_agree),
		cmocka_unit_test(test_teo_tick_wakeups_dominate),
		cmocka_unit_test(test_teo_tick_wakeups_not_intercepts),
		cmocka_unit_test(test_teo_tick_wakeups_agree),
		cmocka_unit_test(test_teo_stopped_tick_near_timer),
		cmocka_unit_test(test_teo_stopped_tick_far_timer),
		cmocka_unit_test(test_single_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
