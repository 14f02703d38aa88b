// SPDX-License-Identifier: MIT
/*
 * test_external_governor.c - a governor built outside the library, with
 * only the installed headers on the include path and linked against the
 * shared library's exported symbols (examples/timer_governor.c): it
 * registers, wins by rating, is switched away from by writing
 * current_governor, and sees QoS and disable.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "libcpuidle.h"
#include "timer_governor.h"

static uint64_t now;

static uint64_t clk(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	(void)ctx;
	return now;
}

static int idle(struct cpuidle_device *dev, struct cpuidle_state *state, int index, void *ctx)
{
	(void)dev;
	(void)state;
	(void)index;
	(void)ctx;
	now += 1000000;
	return 0;
}

static int one_idle(struct cpuidle_device *dev, int64_t timer_ns)
{
	struct cpuidle_idle_ctx ctx = { .sleep_length_ns = timer_ns, .delta_tick_ns = timer_ns };

	return cpuidle_idle_call(dev, &ctx);
}

static void test_external_governor(void **state)
{
	struct cpuidle_system_opts opts = { .sz = sizeof(opts), .ops = { .clock_ns = clk } };
	struct cpuidle_table_driver td;
	struct cpuidle_platform p;
	struct cpuidle_device dev = { .cpu = 0 };
	struct cpuidle_system *sys;
	char buf[256], err[256];

	(void)state;
	assert_int_equal(cpuidle_platform_load("laptop", &p, err, sizeof(err)), 0);
	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, idle, NULL), 0);
	assert_int_equal(cpuidle_register_driver(sys, &td.drv), 0);
	assert_int_equal(cpuidle_register_device(sys, &dev), 0);

	/* registers and wins by rating */
	assert_int_equal(cpuidle_register_governor(sys, &timer_governor), 0);
	assert_true(cpuidle_attr_read(sys, "cpuidle/current_governor", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "timer\n");
	assert_true(cpuidle_attr_read(sys, "cpuidle/available_governors", buf, sizeof(buf)) > 0);
	/* the built-in ones, then ours, in registration order */
	assert_non_null(strstr(buf, "ladder menu "));
	assert_int_equal(strlen(buf) - strlen(" timer \n"), (size_t)(strstr(buf, " timer \n") - buf));

	/* decides: a 10 ms timer allows C3, a 50 us one C2 */
	assert_int_equal(one_idle(&dev, 10000000), 2);
	assert_int_equal(one_idle(&dev, 50000), 1);

	/* sees QoS: 10 us forbids C3 (57 us) */
	assert_int_equal(pm_qos_add_requirement(sys, PM_QOS_CPU_DMA_LATENCY, "ext", 10), 0);
	assert_int_equal(one_idle(&dev, 10000000), 1);
	assert_int_equal(pm_qos_remove_requirement(sys, PM_QOS_CPU_DMA_LATENCY, "ext"), 0);
	assert_int_equal(one_idle(&dev, 10000000), 2);

	/* publishes a tunable as the built-in governors do, and obeys it */
	assert_true(cpuidle_attr_read(sys, "module/timer/parameters/margin_us", buf,
				      sizeof(buf)) > 0);
	assert_string_equal(buf, "0\n");
	assert_int_equal(cpuidle_attr_write(sys, "module/timer/parameters/margin_us",
					    "1000001"), -EINVAL);
	assert_int_equal(cpuidle_attr_write(sys, "module/timer/parameters/margin_us", "9950"), 0);
	assert_int_equal(one_idle(&dev, 10000000), 1);	/* C3 (114 us) no longer fits with 9.95 ms */
	assert_int_equal(cpuidle_param_set(sys, "timer", "margin_us", 0), 0);
	assert_int_equal(one_idle(&dev, 10000000), 2);

	/* sees disable, written through the attribute tree */
	assert_int_equal(cpuidle_attr_write(sys, "cpu0/cpuidle/state2/disable", "1\n"), 0);
	assert_int_equal(one_idle(&dev, 10000000), 1);
	assert_int_equal(cpuidle_attr_write(sys, "cpu0/cpuidle/state2/disable", "0"), 0);

	/* switched away from by writing current_governor */
	assert_int_equal(cpuidle_attr_write(sys, "cpuidle/current_governor", "ladder\n"), 0);
	assert_true(cpuidle_attr_read(sys, "cpuidle/current_governor_ro", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "ladder\n");
	/* and cannot be unregistered while in use, but can once it is not */
	assert_int_equal(cpuidle_attr_write(sys, "cpuidle/current_governor", "timer"), 0);
	assert_int_equal(cpuidle_unregister_governor(sys, &timer_governor), -EBUSY);
	assert_int_equal(cpuidle_attr_write(sys, "cpuidle/current_governor", "menu"), 0);
	assert_int_equal(cpuidle_unregister_governor(sys, &timer_governor), 0);

	cpuidle_system_destroy(sys);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_external_governor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
