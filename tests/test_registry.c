// SPDX-License-Identifier: MIT
/*
 * test_registry.c - governor registration, rating, choice by name,
 * switching at run time with statistics kept, unregistration.
 */
#include "fixture.h"

struct counting {
	int enables, disables, selects, reflects;
};

static struct counting counts;

static int cnt_enable(struct cpuidle_device *dev)
{
	int *magic = dev->governor_data;

	assert_non_null(magic);
	assert_int_equal(*magic, 0);	/* zeroed by the core */
	*magic = 42;
	counts.enables++;
	return 0;
}

static void cnt_disable(struct cpuidle_device *dev)
{
	assert_int_equal(*(int *)dev->governor_data, 42);
	counts.disables++;
}

static int cnt_select(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)dev;
	(void)stop_tick;
	counts.selects++;
	return 1;
}

static void cnt_reflect(struct cpuidle_device *dev, int index)
{
	(void)dev;
	assert_int_equal(index, 1);
	counts.reflects++;
}

static const struct cpuidle_governor high = {
	.name = "high",
	.rating = 50,
	.enable = cnt_enable,
	.disable = cnt_disable,
	.select = cnt_select,
	.reflect = cnt_reflect,
	.governor_data_size = sizeof(int),
};

static const struct cpuidle_governor low = {
	.name = "low",
	.rating = 1,
	.select = cnt_select,
};

static int failing_enable(struct cpuidle_device *dev)
{
	(void)dev;
	return -EIO;
}

static const struct cpuidle_governor refuses = {
	.name = "refuses",
	.rating = 99,
	.enable = failing_enable,
	.select = cnt_select,
};

static void test_register_errors(void **state)
{
	struct fixture fx;
	struct cpuidle_governor noselect = { .name = "noselect", .rating = 1 };
	struct cpuidle_governor noname = { .name = "", .select = cnt_select };
	struct cpuidle_governor dup = { .name = "MENU", .select = cnt_select };
	struct cpuidle_governor unterminated = { .select = cnt_select };

	(void)state;
	memset(unterminated.name, 'x', sizeof(unterminated.name));
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	assert_int_equal(cpuidle_register_governor(fx.sys, NULL), -EINVAL);
	assert_int_equal(cpuidle_register_governor(NULL, &high), -EINVAL);
	assert_int_equal(cpuidle_register_governor(fx.sys, &noselect), -EINVAL);
	assert_int_equal(cpuidle_register_governor(fx.sys, &noname), -EINVAL);
	assert_int_equal(cpuidle_register_governor(fx.sys, &unterminated), -EINVAL);
	/* names are unique case-insensitively, as the kernel's find */
	assert_int_equal(cpuidle_register_governor(fx.sys, &dup), -EEXIST);
	assert_int_equal(cpuidle_register_governor(fx.sys, &low), 0);
	assert_int_equal(cpuidle_register_governor(fx.sys, &low), -EEXIST);
	fx_fini(&fx);
}

static void test_rating_decides(void **state)
{
	struct fixture fx;

	(void)state;
	memset(&counts, 0, sizeof(counts));
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	/* built-ins: menu (20) beats ladder (10) */
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "menu");
	assert_int_equal(cpuidle_register_governor(fx.sys, &low), 0);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "menu");
	assert_int_equal(cpuidle_register_governor(fx.sys, &high), 0);
	assert_ptr_equal(cpuidle_current_governor(fx.sys), &high);
	assert_int_equal(counts.enables, 2);	/* both devices re-enabled */
	assert_int_equal(fx_idle(&fx, 0, 5000, 100000, false), 1);
	assert_int_equal(counts.selects, 1);
	assert_int_equal(counts.reflects, 1);
	assert_ptr_equal(cpuidle_find_governor(fx.sys, "HIGH"), &high);
	assert_null(cpuidle_find_governor(fx.sys, "nosuch"));
	fx_fini(&fx);
	assert_int_equal(counts.disables, 2);	/* destroy disables devices */
}

static void test_refusing_governor_rolls_back(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	assert_int_equal(cpuidle_register_governor(fx.sys, &refuses), -EIO);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "menu");
	assert_null(cpuidle_find_governor(fx.sys, "refuses"));
	assert_true(fx.dev[0].enabled && fx.dev[1].enabled);
	assert_true(fx_idle(&fx, 0, 5000, 100000, false) >= 0);
	fx_fini(&fx);
}

static void test_chosen_by_name_is_sticky(void **state)
{
	struct fixture fx;
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = { .clock_ns = fx_clock },
		.governor = "high",
	};
	struct cpuidle_system *sys;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "ladder"), 0);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "ladder");
	/* a higher rating no longer overrides the administrator */
	assert_int_equal(cpuidle_register_governor(fx.sys, &high), 0);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "ladder");
	/* switching is case-sensitive like sysfs; unknown names are refused */
	assert_int_equal(cpuidle_switch_governor(fx.sys, "Ladder"), -EINVAL);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "nosuch"), -EINVAL);
	assert_int_equal(cpuidle_switch_governor(fx.sys, NULL), -EINVAL);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "ladder");
	assert_int_equal(cpuidle_switch_governor(fx.sys, "ladder"), 0);
	fx_fini(&fx);

	/* the boot-parameter equivalent: chosen before it even exists */
	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	assert_string_equal(cpuidle_current_governor(sys)->name, "menu");
	assert_int_equal(cpuidle_register_governor(sys, &low), 0);
	assert_string_equal(cpuidle_current_governor(sys)->name, "menu");
	assert_int_equal(cpuidle_register_governor(sys, &high), 0);
	assert_ptr_equal(cpuidle_current_governor(sys), &high);
	cpuidle_system_destroy(sys);
}

static void test_switch_keeps_statistics(void **state)
{
	struct fixture fx;
	int i;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	for (i = 0; i < 20; i++)
		fx_idle(&fx, 0, 1000000, 2000000, false);
	uint64_t before = 0, after = 0;

	for (i = 0; i < fx.dev[0].state_count; i++)
		before += fx.dev[0].states_usage[i].usage;
	assert_int_equal(before, 20);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "ladder"), 0);
	for (i = 0; i < fx.dev[0].state_count; i++)
		after += fx.dev[0].states_usage[i].usage;
	assert_int_equal(after, before);
	/* ladder starts from its first rung after the switch */
	assert_int_equal(fx_idle(&fx, 0, 1000000, 2000000, false), 1);
	fx_fini(&fx);
}

static void test_unregister_governor(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	assert_int_equal(cpuidle_unregister_governor(fx.sys, NULL), -EINVAL);
	assert_int_equal(cpuidle_unregister_governor(fx.sys, &high), -ENOENT);
	assert_int_equal(cpuidle_register_governor(fx.sys, &high), 0);
	assert_int_equal(cpuidle_unregister_governor(fx.sys, &high), -EBUSY);
	assert_ptr_equal(cpuidle_current_governor(fx.sys), &high);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "menu"), 0);
	assert_int_equal(cpuidle_unregister_governor(fx.sys, &high), 0);
	assert_null(cpuidle_find_governor(fx.sys, "high"));
	assert_int_equal(cpuidle_switch_governor(fx.sys, "high"), -EINVAL);
	fx_fini(&fx);
}

static void test_no_governor(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, CPUIDLE_SYS_NO_BUILTIN_GOVERNORS);
	assert_null(cpuidle_current_governor(fx.sys));
	assert_false(fx.dev[0].enabled);
	assert_int_equal(fx_idle(&fx, 0, 1000, 100000, false), -ENODEV);
	/* the first governor registered takes over and enables the devices */
	assert_int_equal(cpuidle_register_governor(fx.sys, &low), 0);
	assert_true(fx.dev[0].enabled);
	assert_int_equal(fx_idle(&fx, 0, 1000, 100000, false), 1);
	fx_fini(&fx);
}

static void test_driver_preferred_governor(void **state)
{
	struct cpuidle_system_opts opts = { .sz = sizeof(opts), .ops = { .clock_ns = fx_clock } };
	struct cpuidle_driver drv = { .name = "hp", .governor = "ladder" };
	struct cpuidle_system *sys;

	(void)state;
	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	assert_string_equal(cpuidle_current_governor(sys)->name, "menu");
	assert_int_equal(cpuidle_register_driver(sys, &drv), 0);
	assert_string_equal(cpuidle_current_governor(sys)->name, "ladder");
	assert_int_equal(cpuidle_unregister_driver(sys, &drv), 0);
	assert_string_equal(cpuidle_current_governor(sys)->name, "menu");
	cpuidle_system_destroy(sys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_register_errors),
		cmocka_unit_test(test_rating_decides),
		cmocka_unit_test(test_refusing_governor_rolls_back),
		cmocka_unit_test(test_chosen_by_name_is_sticky),
		cmocka_unit_test(test_switch_keeps_statistics),
		cmocka_unit_test(test_unregister_governor),
		cmocka_unit_test(test_no_governor),
		cmocka_unit_test(test_driver_preferred_governor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
