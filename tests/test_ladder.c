// SPDX-License-Identifier: MIT
/* test_ladder.c - the ladder governor's rules, one test per rule. */
#include "fixture.h"

static void setup(struct fixture *fx, const struct fx_state_desc *st, int n)
{
	fx_init(fx, st, n, 1, 0);
	assert_int_equal(cpuidle_switch_governor(fx->sys, "ladder"), 0);
}

/* Long stays climb one rung per PROMOTION_COUNT (4) entries; POLL is no rung. */
static void test_promotion(void **state)
{
	static const int expect[] = { 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3 };
	struct fixture fx;
	unsigned int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	assert_int_equal(fx.dev[0].last_state_idx, 1);
	for (i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), expect[i]);
	fx_fini(&fx);
}

static void climb_to_top(struct fixture *fx)
{
	int i;

	for (i = 0; i < 8; i++)
		fx_idle(fx, 0, 5000000, 10000000, false);
	assert_int_equal(fx_idle(fx, 0, 5000000, 10000000, false), 3);
}

/* One stay shorter than the rung's exit latency (+ exit latency) comes down. */
static void test_demotion(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	climb_to_top(&fx);
	/* 100 us in C6: r = 100 - 85 = 15 us < 85 us: down at once */
	assert_int_equal(fx_idle(&fx, 0, 100000, 10000000, false), 3);
	assert_int_equal(fx_idle(&fx, 0, 100000, 10000000, false), 2);
	/* in C1E: r = 100 - 10 = 90 us > 10 us: counts towards promotion */
	fx_fini(&fx);
}

/*
 * Linux 6.18 compares a negative r (stay shorter than the exit latency) as
 * an unsigned number: it never demotes and it counts as a promotion.
 */
static void test_kernel_unsigned_compare(void **state)
{
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	climb_to_top(&fx);
	for (i = 0; i < 10; i++)
		assert_int_equal(fx_idle(&fx, 0, 5000, 10000000, false), 3);
	fx_fini(&fx);
}

static void test_forced_demotion_qos_and_disable(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	climb_to_top(&fx);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 20), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 2);
	/* never promoted above the limit */
	for (int i = 0; i < 10; i++)
		assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 2);
	assert_int_equal(pm_qos_update_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 1), 0);
	/* the ladder stops at its first rung, C1 (2 us); POLL is entered (see below) */
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 0);
	assert_int_equal(fx.dev[0].last_state_idx, 1);
	assert_int_equal(pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t"), 0);
	climb_to_top(&fx);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 3, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 2);
	/* and a disabled next rung blocks promotion */
	for (int i = 0; i < 10; i++)
		assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 2);
	fx_fini(&fx);
}

static void test_qos_zero_polls(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	climb_to_top(&fx);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "z", 0), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 0);
	assert_int_equal(pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "z"), 0);
	/* reflect() ignores state 0, so the ladder resumes where select left it */
	assert_true(fx_idle(&fx, 0, 5000000, 10000000, false) <= 1);
	fx_fini(&fx);
}

/*
 * Deviation (DOC block): a driver whose only state polls.  Linux 6.18
 * starts on rung 1 and returns it, out of range; here the one state is the
 * only rung.
 */
static void test_poll_only_driver(void **state)
{
	static const struct fx_state_desc st[] = {
		{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
	};
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx, st, 1);
	assert_int_equal(fx.dev[0].last_state_idx, 0);
	for (i = 0; i < 10; i++)
		assert_int_equal(fx_idle(&fx, 0, i % 2 ? 1000 : 5000000, 10000000, false), 0);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 0), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 0);
	fx_fini(&fx);
}

/*
 * Deviation: a QoS limit below C1's exit latency.  Linux 6.18 keeps C1
 * (its forced demotion stops at the first non-polling rung); here POLL is
 * entered while the ladder stays on rung 1 (reflect() ignores state 0),
 * and once the limit goes it climbs from there as the kernel's would.
 */
static void test_qos_below_first_rung_polls(void **state)
{
	static const int after[] = { 1, 1, 1, 2 };
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	climb_to_top(&fx);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 1), 0);
	for (i = 0; i < 6; i++) {
		assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 0);
		assert_int_equal(fx.dev[0].last_state_idx, 1);
	}
	/* a limit C1 meets: C1 itself, the kernel's answer */
	assert_int_equal(pm_qos_update_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 2), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 1);
	assert_int_equal(pm_qos_update_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 1), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 0);
	assert_int_equal(pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t"), 0);
	for (i = 0; i < FX_ARRAY_SIZE(after); i++)
		assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), after[i]);
	fx_fini(&fx);
}

/*
 * Deviation: a disabled first rung.  Linux 6.18 stays on it and enters
 * it; here the nearest enabled state below (POLL) is entered instead, the
 * ladder staying on rung 1, so that long stays still promote it to C1E.
 * A short stay in C1E demotes it onto the disabled rung again: POLL.
 */
static void test_disabled_first_rung(void **state)
{
	static const int expect[] = { 0, 0, 0, 2 };
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 1, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	for (i = 0; i < FX_ARRAY_SIZE(expect); i++) {
		assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), expect[i]);
		assert_int_equal(fx.dev[0].last_state_idx, expect[i] ? expect[i] : 1);
	}
	/* 12 us in C1E: r = 2 us < 10 us, down to rung 1, disabled: POLL */
	assert_int_equal(fx_idle(&fx, 0, 12000, 10000000, false), 2);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 0);
	assert_int_equal(fx.dev[0].last_state_idx, 1);
	/* POLL disabled too: the shallowest enabled state above, C1E, which the ladder takes */
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 0, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_int_equal(fx_idle(&fx, 0, 12000, 10000000, false), 2);
	assert_int_equal(fx.dev[0].last_state_idx, 2);
	fx_fini(&fx);
}

/*
 * Deviation: demotions onto a disabled rung.  Linux 6.18's forced demotion
 * (QoS) and its demotion after a short stay take the lower rung without
 * looking at disable; here the deepest enabled state below it that meets
 * the limit is entered, and reflect() moves the ladder there.
 */
static void test_demotion_skips_disabled_rung(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	climb_to_top(&fx);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 2, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	/* forced: C6 (85 us) over a 20 us limit; C1E meets it but is disabled */
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 20), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 1);
	assert_int_equal(fx.dev[0].last_state_idx, 1);
	assert_int_equal(pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t"), 0);
	/* after a short stay: from C6 to C1E, disabled, so C1 */
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 2, CPUIDLE_STATE_DISABLED_BY_USER,
					       false), 0);
	climb_to_top(&fx);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 2, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_int_equal(fx_idle(&fx, 0, 100000, 10000000, false), 3);
	assert_int_equal(fx_idle(&fx, 0, 100000, 10000000, false), 1);
	assert_int_equal(fx.dev[0].last_state_idx, 1);
	fx_fini(&fx);
}

/*
 * When no enabled state meets the limit, the kernel's answer stands if it
 * is enabled, else state 0, the kernel's last resort: as in Linux 6.18.
 */
static void test_no_state_meets_qos(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	climb_to_top(&fx);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 0, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	/* 1 us: only POLL, disabled, would meet it; the first rung, C1 (enabled), stands */
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 1), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 1);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 1);
	/* QoS 0: the kernel's state 0, disabled POLL, stands too */
	assert_int_equal(pm_qos_update_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 0), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 0);
	assert_int_equal(fx.dev[0].last_state_idx, 0);
	fx_fini(&fx);
}

/* 2.6.34: a state whose time cannot be measured is assumed long enough. */
static void test_untimed_state_promotes(void **state)
{
	static const struct fx_state_desc st[] = {
		{ "C1", 1, 2, 1000, 0 },
		{ "C2", 1, 2, 500, CPUIDLE_FLAG_TIME_VALID },
		{ "C3", 57, 114, 100, CPUIDLE_FLAG_TIME_VALID },
	};
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx, st, 3);
	assert_int_equal(fx.dev[0].last_state_idx, 0);	/* no polling state: rung 0 */
	for (i = 0; i < 3; i++)
		assert_int_equal(fx_idle(&fx, 0, 100, 10000000, false), 0);
	assert_int_equal(fx_idle(&fx, 0, 100, 10000000, false), 1);
	fx_fini(&fx);
}

/* The article's laptop: the ladder settles in C3 on long idles. */
static void test_laptop_settles_deep(void **state)
{
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop));
	for (i = 0; i < 20; i++)
		fx_idle(&fx, 0, 3000000, 4000000, false);
	assert_int_equal(fx_idle(&fx, 0, 3000000, 4000000, false), 2);
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_promotion),
		cmocka_unit_test(test_demotion),
		cmocka_unit_test(test_kernel_unsigned_compare),
		cmocka_unit_test(test_forced_demotion_qos_and_disable),
		cmocka_unit_test(test_qos_zero_polls),
		cmocka_unit_test(test_poll_only_driver),
		cmocka_unit_test(test_qos_below_first_rung_polls),
		cmocka_unit_test(test_disabled_first_rung),
		cmocka_unit_test(test_demotion_skips_disabled_rung),
		cmocka_unit_test(test_no_state_meets_qos),
		cmocka_unit_test(test_untimed_state_promotes),
		cmocka_unit_test(test_laptop_settles_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
