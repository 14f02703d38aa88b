// SPDX-License-Identifier: MIT
/*
 * test_idle_path.c - select -> CHECK_BM demotion -> enter -> account ->
 * reflect: usage, time, above/below/rejected by the
 * kernel's definitions, last_state/last_residency, the tick verdict.
 */
#include "fixture.h"

/* A governor that selects what the test says and records what it sees. */
static int want_index;
static bool want_keep_tick;
static int reflected = -2;
static int64_t seen_sleep, seen_delta;
static bool seen_stopped;

static int fixed_select(struct cpuidle_device *dev, bool *stop_tick)
{
	seen_sleep = cpuidle_get_sleep_length(dev, &seen_delta);
	seen_stopped = cpuidle_tick_stopped(dev);
	if (want_keep_tick)
		*stop_tick = false;
	return want_index;
}

static void fixed_reflect(struct cpuidle_device *dev, int index)
{
	(void)dev;
	reflected = index;
}

static const struct cpuidle_governor fixed = {
	.name = "fixed",
	.rating = 100,
	.select = fixed_select,
	.reflect = fixed_reflect,
};

static void setup_fixed(struct fixture *fx, const struct fx_state_desc *st, int n)
{
	fx_init(fx, st, n, 1, 0);
	assert_int_equal(cpuidle_register_governor(fx->sys, &fixed), 0);
	want_index = 0;
	want_keep_tick = false;
	reflected = -2;
}

static void test_accounting_basic(void **state)
{
	struct fixture fx;
	struct cpuidle_device *dev;

	(void)state;
	setup_fixed(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	dev = &fx.dev[0];
	want_index = 3;
	assert_int_equal(fx_idle(&fx, 0, 1234567, 5000000, false), 3);
	assert_int_equal(reflected, 3);
	assert_int_equal(seen_sleep, 5000000);
	assert_true(seen_stopped);
	assert_int_equal(dev->states_usage[3].usage, 1);
	assert_int_equal(dev->states_usage[3].time_ns, 1234567);
	assert_int_equal(dev->states_usage[3].time, 1234);
	assert_int_equal(dev->last_residency_ns, 1234567);
	assert_int_equal(dev->last_residency, 1234);
	assert_ptr_equal(dev->last_state, &dev->states[3]);
	assert_int_equal(dev->states_usage[3].above + dev->states_usage[3].below, 0);
	/* a second entry adds up, still in ns */
	assert_int_equal(fx_idle(&fx, 0, 500, 5000000, false), 3);
	assert_int_equal(dev->states_usage[3].usage, 2);
	assert_int_equal(dev->states_usage[3].time_ns, 1235067);
	fx_fini(&fx);
}

static void test_above_below(void **state)
{
	struct fixture fx;
	struct cpuidle_device *dev;

	(void)state;
	setup_fixed(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	dev = &fx.dev[0];
	/* C6 (res 200 us) for 150 us: too deep */
	want_index = 3;
	fx_idle(&fx, 0, 150000, 5000000, false);
	assert_int_equal(dev->states_usage[3].above, 1);
	/* exactly the target residency is not "above" */
	fx_idle(&fx, 0, 200000, 5000000, false);
	assert_int_equal(dev->states_usage[3].above, 1);
	/* C1 (exit 2 us) for 22 us: 22-2 >= C1E's 20 us: too shallow */
	want_index = 1;
	fx_idle(&fx, 0, 22000, 5000000, false);
	assert_int_equal(dev->states_usage[1].below, 1);
	/* 21.9 us: 19.9 < 20: fine */
	fx_idle(&fx, 0, 21900, 5000000, false);
	assert_int_equal(dev->states_usage[1].below, 1);
	/* with C1E disabled, the next enabled deeper state is C6 (200 us) */
	assert_int_equal(cpuidle_disable_state(dev, 2, CPUIDLE_STATE_DISABLED_BY_USER, true), 0);
	fx_idle(&fx, 0, 100000, 5000000, false);
	assert_int_equal(dev->states_usage[1].below, 1);
	fx_idle(&fx, 0, 202000, 5000000, false);
	assert_int_equal(dev->states_usage[1].below, 2);
	/* C1 for 1 us is shorter than its 2 us residency: above, since POLL is enabled */
	fx_idle(&fx, 0, 1000, 5000000, false);
	assert_int_equal(dev->states_usage[1].above, 1);
	/* ...but not when no shallower state is enabled */
	assert_int_equal(cpuidle_disable_state(dev, 0, CPUIDLE_STATE_DISABLED_BY_USER, true), 0);
	fx_idle(&fx, 0, 1000, 5000000, false);
	assert_int_equal(dev->states_usage[1].above, 1);
	/* the deepest state is never "below" */
	want_index = 3;
	fx_idle(&fx, 0, 100000000, 500000000, false);
	assert_int_equal(dev->states_usage[3].below, 0);
	fx_fini(&fx);
}

/*
 * A state without CPUIDLE_FLAG_TIME_VALID is counted all the same, as the
 * kernel does: the flag is for governors (menu trusts last_residency only
 * with it), not for the accounting.
 */
static void test_time_counted_without_time_valid(void **state)
{
	static const struct fx_state_desc st[] = {
		{ "C1", 1, 2, 1000, 0 },	/* e.g. ACPI HALT: not measurable */
		{ "C2", 10, 20, 500, 0 },
	};
	struct fixture fx;

	(void)state;
	setup_fixed(&fx, st, 2);
	want_index = 0;
	fx_idle(&fx, 0, 1000000, 5000000, false);
	assert_int_equal(fx.dev[0].states_usage[0].usage, 1);
	assert_int_equal(fx.dev[0].states_usage[0].time, 1000);
	assert_int_equal(fx.dev[0].states_usage[0].time_ns, 1000000);
	assert_int_equal(fx.dev[0].states_usage[0].below, 1);	/* 1 ms would have paid for C2 */
	want_index = 1;
	fx_idle(&fx, 0, 5000, 5000000, false);
	assert_int_equal(fx.dev[0].states_usage[1].time_ns, 5000);
	assert_int_equal(fx.dev[0].states_usage[1].above, 1);	/* 5 us < C2's 20 us */
	assert_int_equal(fx.dev[0].last_residency_ns, 5000);
	fx_fini(&fx);
}

static void test_rejected(void **state)
{
	struct fixture fx;

	(void)state;
	setup_fixed(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	fx_idle(&fx, 0, 1000000, 5000000, false);
	want_index = 2;
	fx.reject[0] = 2;
	reflected = -2;
	assert_int_equal(fx_idle(&fx, 0, 1000000, 5000000, false), -EBUSY);
	assert_int_equal(reflected, -2);	/* no reflect after a rejection */
	assert_int_equal(fx.dev[0].states_usage[2].rejected, 1);
	assert_int_equal(fx.dev[0].states_usage[2].usage, 0);
	assert_int_equal(fx.dev[0].last_residency_ns, 0);
	fx_fini(&fx);
}

static void test_enter_may_use_another_state(void **state)
{
	struct fixture fx;

	(void)state;
	setup_fixed(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	want_index = 3;
	fx.redirect[0] = 1;
	assert_int_equal(fx_idle(&fx, 0, 300000, 5000000, false), 1);
	assert_int_equal(reflected, 1);
	assert_ptr_equal(fx.dev[0].last_state, &fx.dev[0].states[1]);
	assert_int_equal(fx.dev[0].states_usage[1].usage, 1);
	assert_int_equal(fx.dev[0].states_usage[3].usage, 0);
	assert_int_equal(fx.dev[0].states_usage[1].time_ns, 300000);
	fx_fini(&fx);
}

static void test_check_bm_goes_to_safe_state(void **state)
{
	struct fixture fx;
	struct cpuidle_idle_ctx ctx = { .sleep_length_ns = 10000000, .delta_tick_ns = 4000000 };

	(void)state;
	setup_fixed(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop));
	/* C3 is CHECK_BM; the default safe state is C2 */
	assert_ptr_equal(fx.dev[0].safe_state, &fx.dev[0].states[1]);
	want_index = 2;
	assert_int_equal(fx_idle(&fx, 0, 1000000, 5000000, false), 2);
	fx.bm_active = 1;
	fx.stay_ns[0] = 1000000;
	assert_int_equal(cpuidle_idle_call(&fx.dev[0], &ctx), 1);
	assert_int_equal(ctx.selected, 2);
	assert_int_equal(ctx.entered, 1);
	assert_int_equal(fx.dev[0].states_usage[1].usage, 1);
	assert_int_equal(fx.dev[0].states_usage[2].usage, 1);
	/* a non-CHECK_BM state is not demoted */
	want_index = 0;
	assert_int_equal(fx_idle(&fx, 0, 1000, 5000000, false), 0);
	fx_fini(&fx);
}

static void test_tick_verdict(void **state)
{
	struct fixture fx;
	struct cpuidle_idle_ctx ctx = { .sleep_length_ns = 10000000, .delta_tick_ns = 3000000 };

	(void)state;
	setup_fixed(&fx, fx_four, FX_ARRAY_SIZE(fx_four));
	want_index = 1;
	want_keep_tick = true;
	assert_int_equal(cpuidle_idle_call(&fx.dev[0], &ctx), 1);
	assert_false(ctx.stop_tick);
	assert_int_equal(seen_delta, 3000000);
	assert_false(seen_stopped);
	/* a tick already stopped stays stopped whatever the governor says */
	ctx.tick_stopped = true;
	assert_int_equal(cpuidle_idle_call(&fx.dev[0], &ctx), 1);
	assert_true(ctx.stop_tick);
	want_keep_tick = false;
	ctx.tick_stopped = false;
	assert_int_equal(cpuidle_idle_call(&fx.dev[0], &ctx), 1);
	assert_true(ctx.stop_tick);
	fx_fini(&fx);
}

static int bad_select(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)stop_tick;
	return dev->state_count;
}

static void test_broken_governor_and_misuse(void **state)
{
	static const struct cpuidle_governor bad = { .name = "bad", .rating = 200,
						     .select = bad_select };
	struct cpuidle_device loose = { .cpu = 9 };
	struct cpuidle_idle_ctx ctx = { 0 };
	struct fixture fx;
	int i;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	assert_int_equal(cpuidle_register_governor(fx.sys, &bad), 0);
	assert_int_equal(fx_idle(&fx, 0, 1000, 5000000, false), -ERANGE);
	for (i = 0; i < 4; i++)
		assert_int_equal(fx.dev[0].states_usage[i].usage, 0);
	assert_int_equal(cpuidle_idle_call(NULL, &ctx), -EINVAL);
	assert_int_equal(cpuidle_idle_call(&fx.dev[0], NULL), -EINVAL);
	assert_int_equal(cpuidle_idle_call(&loose, &ctx), -ENODEV);
	/* a call while another runs on the same device */
	__atomic_store_n(&fx.dev[0].in_idle, 1, __ATOMIC_SEQ_CST);
	assert_int_equal(cpuidle_idle_call(&fx.dev[0], &ctx), -EBUSY);
	__atomic_store_n(&fx.dev[0].in_idle, 0, __ATOMIC_SEQ_CST);
	fx_fini(&fx);
}

static void test_polling_limit_sets_flag(void **state)
{
	struct fixture fx;

	(void)state;
	setup_fixed(&fx, fx_haltpoll, FX_ARRAY_SIZE(fx_haltpoll));
	want_index = 0;
	/* 1 ms of work-free polling stops at TICK_NSEC/16 = 250 us */
	assert_int_equal(fx_idle(&fx, 0, 1000000, 5000000, false), 0);
	assert_true(fx.dev[0].poll_time_limit);
	assert_int_equal(fx.dev[0].last_residency_ns, 250000);
	/* the next poll clears it when work comes in time */
	assert_int_equal(fx_idle(&fx, 0, 1000, 5000000, false), 0);
	assert_false(fx.dev[0].poll_time_limit);
	fx_fini(&fx);
}

/* Without a broadcast timer a timer-stop state gives way, as in the kernel. */
static void test_timer_stop_without_broadcast(void **state)
{
	static const struct fx_state_desc st[] = {
		{ "WFI", 1, 1, 100, CPUIDLE_FLAG_TIME_VALID },
		{ "RET", 20, 40, 50, CPUIDLE_FLAG_TIME_VALID },
		{ "CPU-OFF", 150, 1000, 5, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_TIMER_STOP },
		{ "CLUSTER-OFF", 400, 2500, 1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_TIMER_STOP },
	};
	struct fixture fx;

	(void)state;
	setup_fixed(&fx, st, 4);
	want_index = 3;
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 3);
	assert_int_equal(fx.broadcasts, 0);	/* entered and exited */
	fx.no_broadcast = 1;
	/* the deepest state without TIMER_STOP, no slower to leave: RET */
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 1);
	assert_int_equal(fx.dev[0].states_usage[1].usage, 1);
	assert_int_equal(fx.broadcasts, 0);
	/* with RET disabled, WFI */
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 1, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 0);
	/* the search itself */
	assert_int_equal(cpuidle_find_deepest_state(&fx.dev[0], INT64_MAX, 0), 3);
	assert_int_equal(cpuidle_find_deepest_state(&fx.dev[0], 200000, 0), 2);
	assert_int_equal(cpuidle_find_deepest_state(&fx.dev[0], 10000, 0), 0);
	assert_int_equal(cpuidle_find_deepest_state(&fx.dev[0], INT64_MAX,
						    CPUIDLE_FLAG_TIMER_STOP), 0);
	assert_int_equal(cpuidle_find_deepest_state(NULL, 0, 0), -EINVAL);
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accounting_basic),
		cmocka_unit_test(test_above_below),
		cmocka_unit_test(test_time_counted_without_time_valid),
		cmocka_unit_test(test_rejected),
		cmocka_unit_test(test_enter_may_use_another_state),
		cmocka_unit_test(test_check_bm_goes_to_safe_state),
		cmocka_unit_test(test_tick_verdict),
		cmocka_unit_test(test_broken_governor_and_misuse),
		cmocka_unit_test(test_polling_limit_sets_flag),
		cmocka_unit_test(test_timer_stop_without_broadcast),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
