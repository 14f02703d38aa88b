// SPDX-License-Identifier: MIT
/* test_pm_qos.c - named requests, aggregates, errors, and wake-ups on change. */
#include "fixture.h"

static void test_default_and_min(void **state)
{
	struct fixture fx;
	struct cpuidle_system *s;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	s = fx.sys;
	assert_int_equal(pm_qos_requirement(s, PM_QOS_CPU_DMA_LATENCY), 2000000000);
	assert_int_equal(cpuidle_governor_latency_req(&fx.dev[0]), 2000000000LL * 1000);
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_CPU_DMA_LATENCY, "audio", 100), 0);
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_CPU_DMA_LATENCY, "net", 30), 0);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_CPU_DMA_LATENCY), 30);
	assert_int_equal(cpuidle_governor_latency_req(&fx.dev[0]), 30000);
	assert_int_equal(pm_qos_update_requirement(s, PM_QOS_CPU_DMA_LATENCY, "net", 500), 0);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_CPU_DMA_LATENCY), 100);
	assert_int_equal(pm_qos_remove_requirement(s, PM_QOS_CPU_DMA_LATENCY, "audio"), 0);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_CPU_DMA_LATENCY), 500);
	/* -1 asks for the default, i.e. no constraint */
	assert_int_equal(pm_qos_update_requirement(s, PM_QOS_CPU_DMA_LATENCY, "net",
						   PM_QOS_DEFAULT_VALUE), 0);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_CPU_DMA_LATENCY), 2000000000);
	assert_int_equal(pm_qos_remove_requirement(s, PM_QOS_CPU_DMA_LATENCY, "net"), 0);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_CPU_DMA_LATENCY), 2000000000);
	/* classes are independent; throughput aggregates by maximum */
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_NETWORK_THROUGHPUT, "a", 10), 0);
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_NETWORK_THROUGHPUT, "b", 70), 0);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_NETWORK_THROUGHPUT), 70);
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_NETWORK_LATENCY, "a", 7), 0);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_NETWORK_LATENCY), 7);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_CPU_DMA_LATENCY), 2000000000);
	fx_fini(&fx);
}

static void test_errors(void **state)
{
	struct fixture fx;
	struct cpuidle_system *s;
	char longname[PM_QOS_NAME_MAX + 1];
	int i;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	s = fx.sys;
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	assert_int_equal(pm_qos_add_requirement(NULL, PM_QOS_CPU_DMA_LATENCY, "a", 1), -EINVAL);
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_CPU_DMA_LATENCY, NULL, 1), -EINVAL);
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_CPU_DMA_LATENCY, "", 1), -EINVAL);
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_CPU_DMA_LATENCY, longname, 1), -EINVAL);
	assert_int_equal(pm_qos_add_requirement(s, 0, "a", 1), -EINVAL);
	assert_int_equal(pm_qos_add_requirement(s, 99, "a", 1), -EINVAL);
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_CPU_DMA_LATENCY, "a", -5), -EINVAL);
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_CPU_DMA_LATENCY, "a", 5), 0);
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_CPU_DMA_LATENCY, "a", 6), -EEXIST);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_CPU_DMA_LATENCY), 5);
	assert_int_equal(pm_qos_update_requirement(s, PM_QOS_CPU_DMA_LATENCY, "b", 6), -ENOENT);
	assert_int_equal(pm_qos_update_requirement(s, PM_QOS_CPU_DMA_LATENCY, "a", -2), -EINVAL);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_CPU_DMA_LATENCY), 5);
	assert_int_equal(pm_qos_remove_requirement(s, PM_QOS_CPU_DMA_LATENCY, "b"), -ENOENT);
	assert_int_equal(pm_qos_remove_requirement(s, 7, "a"), -EINVAL);
	assert_int_equal(pm_qos_requirement(NULL, PM_QOS_CPU_DMA_LATENCY), -EINVAL);
	assert_int_equal(pm_qos_requirement(s, 42), -EINVAL);
	/* the class fills up */
	for (i = 1; i < PM_QOS_MAX_REQUESTS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "r%d", i);
		assert_int_equal(pm_qos_add_requirement(s, PM_QOS_CPU_DMA_LATENCY, name, 1000 + i),
				 0);
	}
	assert_int_equal(pm_qos_add_requirement(s, PM_QOS_CPU_DMA_LATENCY, "full", 1), -ENOSPC);
	assert_int_equal(pm_qos_requirement(s, PM_QOS_CPU_DMA_LATENCY), 5);
	fx_fini(&fx);
}

static void test_change_kicks_idle_cpus(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	/* pretend cpu1 is inside its idle state */
	__atomic_store_n(&fx.dev[1].in_idle, 1, __ATOMIC_SEQ_CST);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "a", 10), 0);
	assert_int_equal(fx.kicks, 1);
	/* no change of the aggregate, no kick */
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "b", 20), 0);
	assert_int_equal(fx.kicks, 1);
	assert_int_equal(pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "a"), 0);
	assert_int_equal(fx.kicks, 2);
	__atomic_store_n(&fx.dev[1].in_idle, 0, __ATOMIC_SEQ_CST);
	fx_fini(&fx);
}

/* The next selection honours a change, for every built-in governor. */
static void test_next_selection_honours_qos(void **state)
{
	const struct cpuidle_governor *const *gov;
	struct fixture fx;
	int i, idx;

	(void)state;
	for (gov = cpuidle_builtin_governors(); *gov; gov++) {
		fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
		assert_int_equal(cpuidle_switch_governor(fx.sys, (*gov)->name), 0);
		for (i = 0; i < 50; i++)
			fx_idle(&fx, 0, 5000000, 10000000, false);
		assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 20),
				 0);
		idx = fx_idle(&fx, 0, 5000000, 10000000, false);
		assert_true(idx >= 0);
		assert_true(fx.dev[0].states[idx].exit_latency <= 20);
		assert_int_equal(pm_qos_update_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 0),
				 0);
		for (i = 0; i < 10; i++)
			assert_int_equal(fx_idle(&fx, 0, 5000000, 10000000, false), 0);
		fx_fini(&fx);
	}
}

/*
 * A device's own resume latency limit: its governor obeys the smaller of
 * it and the CPU latency QoS; the other CPUs are not bound by it.  Every
 * built-in governor.
 */
static void test_resume_latency_per_device(void **state)
{
	const struct cpuidle_governor *const *gov;
	struct fixture fx;
	int i, idx, deep0 = 0, deep1 = 0;

	(void)state;
	for (gov = cpuidle_builtin_governors(); *gov; gov++) {
		fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
		assert_int_equal(cpuidle_switch_governor(fx.sys, (*gov)->name), 0);
		assert_int_equal(cpuidle_resume_latency(&fx.dev[1]),
				 CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT);
		assert_int_equal(cpuidle_set_resume_latency(&fx.dev[1], 1), 0);
		assert_int_equal(cpuidle_resume_latency(&fx.dev[1]), 1);
		assert_int_equal(cpuidle_governor_latency_req(&fx.dev[1]), 1000);
		assert_int_equal(cpuidle_governor_latency_req(&fx.dev[0]), 2000000000LL * 1000);
		/* the smaller of the two, whichever it is */
		assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 3), 0);
		assert_int_equal(cpuidle_governor_latency_req(&fx.dev[1]), 1000);
		assert_int_equal(cpuidle_governor_latency_req(&fx.dev[0]), 3000);
		assert_int_equal(cpuidle_set_resume_latency(&fx.dev[1], 4), 0);
		assert_int_equal(cpuidle_governor_latency_req(&fx.dev[1]), 3000);
		assert_int_equal(cpuidle_set_resume_latency(&fx.dev[1], 1), 0);
		assert_int_equal(pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t"), 0);
		deep0 = deep1 = 0;
		for (i = 0; i < 200; i++) {
			idx = fx_idle(&fx, 1, 5000000, 10000000, false);
			assert_true(idx >= 0);
			assert_true(fx.dev[1].states[idx].exit_latency_ns <= 1000);
			deep1 = idx > deep1 ? idx : deep1;
			idx = fx_idle(&fx, 0, 5000000, 10000000, false);
			assert_true(idx >= 0);
			deep0 = idx > deep0 ? idx : deep0;
		}
		print_message("%s: deepest state cpu0 %d, cpu1 (1 us) %d\n", (*gov)->name, deep0,
			      deep1);
		assert_int_equal(deep1, 0);	/* C1's 2 us is too slow: polling only */
		assert_true(deep0 >= 1);	/* the other CPU sleeps for its 5 ms stays */
		/* none again */
		assert_int_equal(cpuidle_set_resume_latency(&fx.dev[1],
							    CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT), 0);
		assert_int_equal(cpuidle_governor_latency_req(&fx.dev[1]), 2000000000LL * 1000);
		fx_fini(&fx);
	}
}

static void test_resume_latency_errors(void **state)
{
	struct cpuidle_device stray = { .cpu = 3 };
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	assert_int_equal(cpuidle_set_resume_latency(NULL, 5), -EINVAL);
	assert_int_equal(cpuidle_set_resume_latency(&fx.dev[0], -1), -EINVAL);
	assert_int_equal(cpuidle_set_resume_latency(&fx.dev[0], INT32_MIN), -EINVAL);
	assert_int_equal(cpuidle_resume_latency(&fx.dev[0]), CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT);
	assert_int_equal(cpuidle_set_resume_latency(&stray, 5), -ENOENT);
	assert_int_equal(cpuidle_resume_latency(&stray), -ENOENT);
	assert_int_equal(cpuidle_resume_latency(NULL), -EINVAL);
	/* registering again starts without a limit */
	assert_int_equal(cpuidle_set_resume_latency(&fx.dev[1], 7), 0);
	cpuidle_pause_and_lock(fx.sys);
	assert_int_equal(cpuidle_unregister_device(fx.sys, &fx.dev[1]), 0);
	cpuidle_resume_and_unlock(fx.sys);
	assert_int_equal(cpuidle_set_resume_latency(&fx.dev[1], 5), -ENOENT);
	assert_int_equal(cpuidle_register_device(fx.sys, &fx.dev[1]), 0);
	assert_int_equal(cpuidle_resume_latency(&fx.dev[1]), CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT);
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_and_min),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_change_kicks_idle_cpus),
		cmocka_unit_test(test_next_selection_honours_qos),
		cmocka_unit_test(test_resume_latency_per_device),
		cmocka_unit_test(test_resume_latency_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
