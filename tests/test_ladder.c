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
	/* nothing but C1 qualifies below C1E; the ladder stops at its first rung */
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 1);
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
		cmocka_unit_test(test_untimed_state_promotes),
		cmocka_unit_test(test_laptop_settles_deep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
