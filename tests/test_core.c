// SPDX-License-Identifier: MIT
/*
 * test_core.c - systems, the driver, devices: every documented errno of
 * registration, pause/enable/disable rules, state validation.
 */
#include "fixture.h"

static uint64_t zero_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	(void)ctx;
	return 0;
}

static int enter_nop(struct cpuidle_device *dev, struct cpuidle_state *state)
{
	(void)dev;
	(void)state;
	return 0;
}

static struct cpuidle_system *new_sys(unsigned int flags)
{
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = { .clock_ns = zero_clock },
		.flags = flags,
	};
	struct cpuidle_system *sys = NULL;

	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	return sys;
}

static void fill_state(struct cpuidle_state *s, const char *name, unsigned int lat,
		       unsigned int res)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->name, name);
	s->exit_latency = lat;
	s->target_residency = res;
	s->flags = CPUIDLE_FLAG_TIME_VALID;
	s->enter = enter_nop;
}

static void test_system_create_args(void **state)
{
	struct cpuidle_system_opts opts = { .sz = sizeof(opts), .ops = { .clock_ns = zero_clock } };
	struct cpuidle_system *sys;

	(void)state;
	assert_int_equal(cpuidle_system_create(NULL, &sys), -EINVAL);
	assert_int_equal(cpuidle_system_create(&opts, NULL), -EINVAL);
	opts.sz = 4;
	assert_int_equal(cpuidle_system_create(&opts, &sys), -EINVAL);
	opts.sz = sizeof(opts);
	opts.ops.clock_ns = NULL;
	assert_int_equal(cpuidle_system_create(&opts, &sys), -EINVAL);
	opts.ops.clock_ns = zero_clock;
	opts.tick_hz = 20000;
	assert_int_equal(cpuidle_system_create(&opts, &sys), -EINVAL);
	opts.tick_hz = 1000;
	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	assert_int_equal(cpuidle_tick_nsec(sys), 1000000);
	cpuidle_system_destroy(sys);
	opts.tick_hz = 0;
	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	assert_int_equal(cpuidle_tick_nsec(sys), 4000000);	/* HZ=250 default */
	cpuidle_system_destroy(sys);
	cpuidle_system_destroy(NULL);
}

static void test_one_driver_at_a_time(void **state)
{
	struct cpuidle_system *sys = new_sys(0);
	struct cpuidle_driver a = { .name = "a" }, b = { .name = "b" }, noname = { .name = "" };

	(void)state;
	assert_null(cpuidle_driver_name(sys));
	assert_int_equal(cpuidle_register_driver(NULL, &a), -EINVAL);
	assert_int_equal(cpuidle_register_driver(sys, NULL), -EINVAL);
	assert_int_equal(cpuidle_register_driver(sys, &noname), -EINVAL);
	assert_int_equal(cpuidle_register_driver(sys, &a), 0);
	assert_string_equal(cpuidle_driver_name(sys), "a");
	assert_int_equal(cpuidle_register_driver(sys, &b), -EBUSY);
	assert_int_equal(cpuidle_register_driver(sys, &a), -EBUSY);
	assert_string_equal(cpuidle_driver_name(sys), "a");
	assert_int_equal(cpuidle_unregister_driver(sys, &b), -ENOENT);
	assert_int_equal(cpuidle_unregister_driver(sys, NULL), -EINVAL);
	assert_int_equal(cpuidle_unregister_driver(sys, &a), 0);
	assert_null(cpuidle_driver_name(sys));
	assert_int_equal(cpuidle_register_driver(sys, &b), 0);
	cpuidle_system_destroy(sys);
}

static void test_driver_busy_with_devices(void **state)
{
	struct cpuidle_system *sys = new_sys(0);
	struct cpuidle_driver drv = { .name = "d" };
	struct cpuidle_state own[1];
	struct cpuidle_device dev = { .cpu = 0, .state_count = 1, .states = own };

	(void)state;
	fill_state(&dev.states[0], "S0", 0, 0);
	assert_int_equal(cpuidle_register_device(sys, &dev), -ENODEV);
	assert_int_equal(cpuidle_register_driver(sys, &drv), 0);
	assert_int_equal(cpuidle_register_device(sys, &dev), 0);
	assert_int_equal(cpuidle_unregister_driver(sys, &drv), -EBUSY);
	assert_int_equal(cpuidle_unregister_device(sys, &dev), 0);
	assert_int_equal(cpuidle_unregister_device(sys, &dev), -ENOENT);
	assert_int_equal(cpuidle_unregister_driver(sys, &drv), 0);
	cpuidle_system_destroy(sys);
}

static void test_device_validation(void **state)
{
	struct cpuidle_system *sys = new_sys(0);
	struct cpuidle_driver drv = { .name = "d" };
	struct cpuidle_state own[CPUIDLE_STATE_MAX], others[1];
	struct cpuidle_device dev;

	(void)state;
	assert_int_equal(cpuidle_register_driver(sys, &drv), 0);
	assert_int_equal(cpuidle_register_device(sys, NULL), -EINVAL);
	assert_int_equal(cpuidle_register_device(NULL, &dev), -EINVAL);

	/* no states at all (and no template) */
	memset(&dev, 0, sizeof(dev));
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* too many */
	dev.state_count = CPUIDLE_STATE_MAX + 1;
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* cpu out of range */
	memset(&dev, 0, sizeof(dev));
	dev.states = own;
	dev.cpu = CPUIDLE_MAX_CPUS;
	dev.state_count = 1;
	fill_state(&dev.states[0], "S0", 0, 0);
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* missing enter */
	dev.cpu = 0;
	dev.states[0].enter = NULL;
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* empty name */
	fill_state(&dev.states[0], "", 0, 0);
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* out of order: exit latency decreasing */
	dev.state_count = 2;
	fill_state(&dev.states[0], "S0", 10, 20);
	fill_state(&dev.states[1], "S1", 5, 30);
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* out of order: residency decreasing */
	fill_state(&dev.states[1], "S1", 20, 10);
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* negative ns */
	fill_state(&dev.states[1], "S1", 0, 0);
	dev.states[1].exit_latency_ns = -5;
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* us and ns disagree */
	fill_state(&dev.states[1], "S1", 30, 60);
	dev.states[1].exit_latency_ns = 45000;
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* every state CHECK_BM: nothing safe */
	fill_state(&dev.states[0], "S0", 1, 2);
	fill_state(&dev.states[1], "S1", 30, 60);
	dev.states[0].flags |= CPUIDLE_FLAG_CHECK_BM;
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* safe state that is itself CHECK_BM */
	dev.states[0].flags &= ~CPUIDLE_FLAG_CHECK_BM;
	dev.states[1].flags |= CPUIDLE_FLAG_CHECK_BM;
	dev.safe_state = &dev.states[1];
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* safe state outside the device */
	dev.safe_state = &drv.states[0];
	assert_int_equal(cpuidle_register_device(sys, &dev), -EINVAL);
	/* valid: ns precision kept, us derived; default safe state */
	dev.safe_state = NULL;
	dev.states[1].exit_latency = 0;
	dev.states[1].exit_latency_ns = 30500;
	assert_int_equal(cpuidle_register_device(sys, &dev), 0);
	assert_int_equal(dev.states[1].exit_latency, 30);
	assert_int_equal(dev.states[1].exit_latency_ns, 30500);
	assert_int_equal(dev.states[1].target_residency_ns, 60000);
	assert_ptr_equal(dev.safe_state, &dev.states[0]);
	/* twice, and a second device on the same cpu */
	assert_int_equal(cpuidle_register_device(sys, &dev), -EEXIST);
	{
		struct cpuidle_device other;

		memset(&other, 0, sizeof(other));
		other.states = others;
		other.state_count = 1;
		fill_state(&other.states[0], "S0", 0, 0);
		assert_int_equal(cpuidle_register_device(sys, &other), -EEXIST);
		other.cpu = 7;
		assert_int_equal(cpuidle_register_device(sys, &other), 0);
		assert_ptr_equal(cpuidle_get_device(sys, 7), &other);
		assert_null(cpuidle_get_device(sys, 3));
		assert_int_equal(errno, ENODEV);
		assert_int_equal(cpuidle_unregister_device(sys, &other), 0);
	}
	assert_int_equal(cpuidle_unregister_device(sys, &dev), 0);
	cpuidle_system_destroy(sys);
}

static void test_driver_template_and_flags(void **state)
{
	struct cpuidle_system *sys = new_sys(0);
	struct cpuidle_driver drv = { .name = "d", .state_count = 3, .safe_state_index = -1 };
	struct cpuidle_device dev = { .cpu = 2 };

	(void)state;
	fill_state(&drv.states[0], "S0", 0, 0);
	fill_state(&drv.states[1], "S1", 10, 20);
	fill_state(&drv.states[2], "S2", 100, 200);
	drv.states[1].flags |= CPUIDLE_FLAG_UNUSABLE;
	drv.states[2].flags |= CPUIDLE_FLAG_OFF;
	assert_int_equal(cpuidle_register_driver(sys, &drv), 0);
	assert_int_equal(cpuidle_register_device(sys, &dev), 0);
	assert_int_equal(dev.state_count, 3);
	assert_string_equal(dev.states[2].name, "S2");
	assert_int_equal(dev.states_usage[1].disable, CPUIDLE_STATE_DISABLED_BY_DRIVER);
	assert_int_equal(dev.states_usage[2].disable, CPUIDLE_STATE_DISABLED_BY_USER);
	assert_true(cpuidle_is_disabled(&dev, 1));
	assert_false(cpuidle_is_disabled(&dev, 0));
	/* the template is normalised too */
	assert_int_equal(drv.states[2].target_residency_ns, 200000);
	cpuidle_system_destroy(sys);

	/* an invalid template is refused at driver registration */
	sys = new_sys(0);
	drv.states[2].exit_latency = 1;
	drv.states[2].exit_latency_ns = 0;
	assert_int_equal(cpuidle_register_driver(sys, &drv), -EINVAL);
	drv.states[2].exit_latency = 100;
	drv.safe_state_index = 5;
	assert_int_equal(cpuidle_register_driver(sys, &drv), -EINVAL);
	cpuidle_system_destroy(sys);
}

static void test_enable_disable_only_paused(void **state)
{
	struct fixture fx;
	struct cpuidle_device loose = { .cpu = 3 };

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	/* not paused: refused, nothing changes */
	assert_int_equal(cpuidle_disable_device(&fx.dev[0]), -EPERM);
	assert_true(fx.dev[0].enabled);
	assert_int_equal(cpuidle_enable_device(&fx.dev[0]), -EPERM);
	assert_int_equal(cpuidle_enable_device(NULL), -EINVAL);
	assert_int_equal(cpuidle_disable_device(NULL), -EINVAL);
	assert_int_equal(cpuidle_enable_device(&loose), -ENOENT);

	cpuidle_pause_and_lock(fx.sys);
	/* while paused every idle call stays out */
	assert_int_equal(fx_idle(&fx, 1, 1000, 1000000, false), -EAGAIN);
	assert_int_equal(cpuidle_disable_device(&fx.dev[0]), 0);
	assert_false(fx.dev[0].enabled);
	assert_null(fx.dev[0].governor_data);
	/* nested pause by the same thread does not deadlock */
	cpuidle_pause_and_lock(fx.sys);
	cpuidle_resume_and_unlock(fx.sys);
	assert_int_equal(fx_idle(&fx, 1, 1000, 1000000, false), -EAGAIN);
	cpuidle_resume_and_unlock(fx.sys);

	/* a disabled device does not idle through cpuidle */
	assert_int_equal(fx_idle(&fx, 0, 1000, 1000000, false), -ENODEV);
	assert_true(fx_idle(&fx, 1, 1000, 1000000, false) >= 0);

	cpuidle_pause_and_lock(fx.sys);
	assert_int_equal(cpuidle_enable_device(&fx.dev[0]), 0);
	assert_int_equal(cpuidle_enable_device(&fx.dev[0]), 0);	/* idempotent */
	cpuidle_resume_and_unlock(fx.sys);
	assert_true(fx.dev[0].enabled);
	assert_true(fx_idle(&fx, 0, 1000, 1000000, false) >= 0);
	fx_fini(&fx);
}

static void test_disable_state_api(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	assert_int_equal(cpuidle_disable_state(NULL, 0, CPUIDLE_STATE_DISABLED_BY_USER, true),
			 -EINVAL);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], -1, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), -EINVAL);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 4, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), -EINVAL);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 1, 0x4, true), -EINVAL);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 1, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 1, CPUIDLE_STATE_DISABLED_BY_DRIVER,
					       true), 0);
	assert_int_equal(fx.dev[0].states_usage[1].disable, 3);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 1, CPUIDLE_STATE_DISABLED_BY_USER,
					       false), 0);
	assert_int_equal(fx.dev[0].states_usage[1].disable, CPUIDLE_STATE_DISABLED_BY_DRIVER);
	fx_fini(&fx);
}

static void test_poll_time(void **state)
{
	struct fixture fx;

	(void)state;
	/* haltpoll VM: no state with residency >= 10 us, so TICK_NSEC/16 */
	fx_init(&fx, fx_haltpoll, FX_ARRAY_SIZE(fx_haltpoll), 1, 0);
	assert_int_equal(cpuidle_poll_time(&fx.dev[0]), 4000000 / 16);
	fx_fini(&fx);

	/* fx_four: C1 (2 us) is below POLL_MIN; C1E's 20 us bounds it */
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	assert_int_equal(cpuidle_poll_time(&fx.dev[0]), 20000);
	/* disabling C1E moves it to C6's 200 us; the cache is reset by the write */
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 2, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_int_equal(cpuidle_poll_time(&fx.dev[0]), 200000);
	/* an explicit limit (haltpoll's) wins */
	fx.dev[0].poll_limit_ns = 12345;
	assert_int_equal(cpuidle_poll_time(&fx.dev[0]), 12345);
	fx_fini(&fx);
}

static void test_multiple_systems_independent(void **state)
{
	struct fixture a, b;

	(void)state;
	fx_init(&a, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	fx_init(&b, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	assert_int_equal(cpuidle_switch_governor(a.sys, "ladder"), 0);
	assert_string_equal(cpuidle_current_governor(a.sys)->name, "ladder");
	assert_string_equal(cpuidle_current_governor(b.sys)->name, "menu");
	assert_int_equal(pm_qos_add_requirement(a.sys, PM_QOS_CPU_DMA_LATENCY, "x", 0), 0);
	assert_int_equal(pm_qos_requirement(a.sys, PM_QOS_CPU_DMA_LATENCY), 0);
	assert_int_equal(pm_qos_requirement(b.sys, PM_QOS_CPU_DMA_LATENCY),
			 PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE);
	fx_idle(&a, 0, 500000, 1000000, false);
	assert_int_equal(a.dev[0].states_usage[0].usage, 1);
	assert_int_equal(b.dev[0].states_usage[0].usage, 0);
	fx_fini(&a);
	fx_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_system_create_args),
		cmocka_unit_test(test_one_driver_at_a_time),
		cmocka_unit_test(test_driver_busy_with_devices),
		cmocka_unit_test(test_device_validation),
		cmocka_unit_test(test_driver_template_and_flags),
		cmocka_unit_test(test_enable_disable_only_paused),
		cmocka_unit_test(test_disable_state_api),
		cmocka_unit_test(test_poll_time),
		cmocka_unit_test(test_multiple_systems_independent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
