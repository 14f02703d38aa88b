// SPDX-License-Identifier: MIT
/*
 * test_threads.c - idle calls on several CPUs at once, each from its own
 * thread, while another thread switches governors, disables states, changes
 * QoS, pauses and disables/enables devices.  Afterwards the counters must
 * agree: per device, usage over all states equals the successful entries,
 * and the time accounted never exceeds the time that passed.
 * Run under ThreadSanitizer by the test suite.
 */
#include <pthread.h>

#include "fixture.h"

#define NR_CPUS		FX_MAX_CPUS
#define ENTRIES		200000
#define MAX_ATTEMPTS	(1000 * ENTRIES)

struct worker {
	struct fixture *fx;
	int cpu;
	uint64_t entered;
	uint64_t rejected_other;
	uint64_t start_clock;
};

#define MIN_CONTROL_ROUNDS	200

static int done_workers;
static unsigned int control_rounds;	/* workers keep going until this is reached */

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(w->cpu + 1);
	int i;

	/*
	 * Until ENTRIES entries succeeded (a disabled device fails fast, so
	 * count successes, not attempts) and the control thread has done
	 * its share; bounded, in case a device never comes back.
	 */
	for (i = 0; (w->entered < ENTRIES ||
		     __atomic_load_n(&control_rounds, __ATOMIC_RELAXED) < MIN_CONTROL_ROUNDS) &&
		    i < MAX_ATTEMPTS; i++) {
		/* stays from 0.5 us to ~4 ms, timers a bit further out */
		int64_t stay, timer;
		int ret;

		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		stay = 500 + (int64_t)(seed % 4000000);
		timer = stay + (int64_t)(seed % 1000000);
		ret = fx_idle(w->fx, w->cpu, stay, timer, (seed & 1) != 0);
		if (ret >= 0)
			w->entered++;
		else if (ret != -EAGAIN && ret != -ENODEV)
			w->rejected_other++;
	}
	__atomic_fetch_add(&done_workers, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void control_loop(struct fixture *fx)
{
	static const char *const govs[] = { "menu", "ladder" };
	unsigned int n = 0;

	while (__atomic_load_n(&done_workers, __ATOMIC_ACQUIRE) < NR_CPUS) {
		int cpu = (int)(n % NR_CPUS);

		switch (n % 5) {
		case 0:
			assert_int_equal(cpuidle_switch_governor(fx->sys, govs[(n / 5) % 2]), 0);
			break;
		case 1:
			assert_int_equal(cpuidle_disable_state(&fx->dev[cpu], 1 + (int)(n % 3),
						CPUIDLE_STATE_DISABLED_BY_USER, (n / 5) & 1), 0);
			break;
		case 2:
			if ((n / 5) & 1)
				pm_qos_remove_requirement(fx->sys, PM_QOS_CPU_DMA_LATENCY, "ctl");
			else
				pm_qos_add_requirement(fx->sys, PM_QOS_CPU_DMA_LATENCY, "ctl",
						       (int32_t)(n % 100));
			break;
		case 3:
			cpuidle_pause_and_lock(fx->sys);
			assert_int_equal(cpuidle_disable_device(&fx->dev[cpu]), 0);
			cpuidle_resume_and_unlock(fx->sys);
			break;
		case 4:
			cpuidle_pause_and_lock(fx->sys);
			assert_int_equal(cpuidle_enable_device(&fx->dev[cpu]), 0);
			cpuidle_resume_and_unlock(fx->sys);
			break;
		}
		n++;
		__atomic_store_n(&control_rounds, n, __ATOMIC_RELAXED);
		sched_yield();
	}
}

static void test_concurrent_idle_and_control(void **state)
{
	struct worker w[NR_CPUS];
	pthread_t tid[NR_CPUS];
	struct fixture fx;
	int c, i;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), NR_CPUS, 0);
	done_workers = 0;
	control_rounds = 0;
	for (c = 0; c < NR_CPUS; c++) {
		w[c] = (struct worker){ .fx = &fx, .cpu = c, .start_clock = fx.clock[c] };
		assert_int_equal(pthread_create(&tid[c], NULL, worker_fn, &w[c]), 0);
	}
	control_loop(&fx);
	for (c = 0; c < NR_CPUS; c++)
		pthread_join(tid[c], NULL);
	assert_true(control_rounds >= MIN_CONTROL_ROUNDS);

	for (c = 0; c < NR_CPUS; c++) {
		uint64_t usage = 0, time_ns = 0;

		for (i = 0; i < fx.dev[c].state_count; i++) {
			usage += fx.dev[c].states[i].usage;
			time_ns += fx.dev[c].states[i].time_ns;
			assert_int_equal(fx.dev[c].states[i].time, fx.dev[c].states[i].time_ns / 1000);
		}
		assert_int_equal(w[c].rejected_other, 0);
		assert_int_equal(usage, w[c].entered);
		assert_true(w[c].entered >= ENTRIES);
		assert_true(time_ns <= fx.clock[c] - w[c].start_clock);
	}
	fx_fini(&fx);
}

/* Several systems, each driven by its own thread, do not interfere. */
struct sysrun {
	struct fixture fx;
	const char *gov;
	uint64_t usage0;
};

static void *run_system(void *arg)
{
	struct sysrun *r = arg;
	int i;

	for (i = 0; i < ENTRIES; i++)
		fx_idle(&r->fx, 0, 1000 + (i % 7) * 300000, 3000000, false);
	return NULL;
}

static void test_systems_side_by_side(void **state)
{
	struct sysrun runs[4];
	pthread_t tid[4];
	uint64_t sums[2][CPUIDLE_STATE_MAX] = { { 0 } };
	int i, s;

	(void)state;
	for (i = 0; i < 4; i++) {
		runs[i].gov = (i & 1) ? "ladder" : "menu";
		fx_init(&runs[i].fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
		assert_int_equal(cpuidle_switch_governor(runs[i].fx.sys, runs[i].gov), 0);
		assert_int_equal(pthread_create(&tid[i], NULL, run_system, &runs[i]), 0);
	}
	for (i = 0; i < 4; i++)
		pthread_join(tid[i], NULL);
	/* the same input gives the same decisions: runs 0/2 and 1/3 agree exactly */
	for (i = 0; i < 4; i++)
		for (s = 0; s < 4; s++) {
			if (i < 2)
				sums[i][s] = runs[i].fx.dev[0].states[s].usage;
			else
				assert_int_equal(runs[i].fx.dev[0].states[s].usage, sums[i - 2][s]);
		}
	for (i = 0; i < 4; i++)
		fx_fini(&runs[i].fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_idle_and_control),
		cmocka_unit_test(test_systems_side_by_side),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
