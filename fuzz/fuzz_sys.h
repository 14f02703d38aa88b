/* SPDX-License-Identifier: MIT */
/*
 * fuzz_sys.h - a small simulated machine for the targets that need one: a
 * cpuidle system with a platform's table driver, a device for the first
 * CPU of each cluster and for each other CPU below 8 (FUZZ_SYS_CPUS at
 * most), each on its own fake clock;
 * the idle callback advances the clock by the stay the target asks for
 * (a polling state stops at its time limit, as the kernel's poll_idle()).
 */
#ifndef FUZZ_FUZZ_SYS_H
#define FUZZ_FUZZ_SYS_H

#include "fuzz.h"

#include "libcpuidle.h"

#define FUZZ_SYS_CPUS	(CPUIDLE_PLATFORM_MAX_CLUSTERS + 8)

struct fuzz_sys {
	struct cpuidle_system *sys;
	struct cpuidle_table_driver td;
	struct cpuidle_device dev[FUZZ_SYS_CPUS];
	uint64_t clock[FUZZ_SYS_CPUS];
	int nr_devs;
	int64_t stay_ns;	/* how long the next stay lasts */
};

static inline uint64_t fuzz_sys_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)ctx;
	return *(uint64_t *)dev->embed_data;
}

static inline int fuzz_sys_enter(struct cpuidle_device *dev, struct cpuidle_state *state,
				 int index, void *ctx)
{
	struct fuzz_sys *fs = ctx;
	int64_t stay = fs->stay_ns;

	FUZZ_CHECK(index >= 0 && index < dev->state_count);
	if (state->flags & CPUIDLE_FLAG_POLLING) {
		uint64_t limit = cpuidle_poll_time(dev);

		if ((uint64_t)stay > limit) {
			stay = (int64_t)limit;
			dev->poll_time_limit = true;
		}
	}
	*(uint64_t *)dev->embed_data += (uint64_t)stay;
	return 0;
}

/* Register a device for @cpu, the next of @fs; every step must succeed. */
static inline void fuzz_sys_add(struct fuzz_sys *fs, const struct cpuidle_platform *p,
				unsigned int cpu)
{
	struct cpuidle_device *dev = &fs->dev[fs->nr_devs];
	int ret;

	FUZZ_CHECK(fs->nr_devs < FUZZ_SYS_CPUS);
	ret = cpuidle_table_device_init(&fs->td, dev, cpu);
	FUZZ_CHECK(!ret);
	fs->clock[fs->nr_devs] = 1000000000ull;
	dev->embed_data = &fs->clock[fs->nr_devs];
	ret = cpuidle_register_device(fs->sys, dev);
	if (ret)
		fprintf(stderr, "the core refuses cpu%u's states (cluster %d): %d\n", cpu,
			cpuidle_platform_cluster_of(p, cpu), ret);
	FUZZ_CHECK(!ret);
	fs->nr_devs++;
}

/*
 * A system on @p: every step must succeed for a platform the parser
 * accepted.  Return: the machine (free with fuzz_sys_destroy()).
 */
static inline struct fuzz_sys *fuzz_sys_create(const struct cpuidle_platform *p)
{
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = { .clock_ns = fuzz_sys_clock },
		.tick_hz = p->tick_hz,
	};
	struct fuzz_sys *fs = calloc(1, sizeof(*fs));
	unsigned int cpu, first[CPUIDLE_PLATFORM_MAX_CLUSTERS];
	int i, ret;

	FUZZ_CHECK(fs);
	ret = cpuidle_system_create(&opts, &fs->sys);
	FUZZ_CHECK(!ret);
	ret = cpuidle_table_driver_init(&fs->td, p, fuzz_sys_enter, fs);
	FUZZ_CHECK(!ret);
	ret = cpuidle_register_driver(fs->sys, &fs->td.drv);
	if (ret)
		fprintf(stderr, "the core refuses a parsed platform's driver: %d\n", ret);
	FUZZ_CHECK(!ret);
	for (i = 0; i < p->nr_clusters; i++) {
		const struct cpuidle_platform_cluster *cl = &p->clusters[i];

		for (cpu = 0; cpu < CPUIDLE_MAX_CPUS && !cpuidle_platform_cluster_has_cpu(cl, cpu);
		     cpu++)
			;
		FUZZ_CHECK(cpu < CPUIDLE_MAX_CPUS);
		FUZZ_CHECK(cpuidle_platform_cluster_of(p, cpu) == i);
		first[i] = cpu;
		fuzz_sys_add(fs, p, cpu);
	}
	for (cpu = 0; cpu < 8 && (!p->nr_cpus || cpu < p->nr_cpus); cpu++) {
		for (i = 0; i < p->nr_clusters && first[i] != cpu; i++)
			;
		if (i == p->nr_clusters)
			fuzz_sys_add(fs, p, cpu);
	}
	return fs;
}

/*
 * One idle period of device @i: the next timer @sleep_ns away, a stay of
 * @stay_ns.  The core's bookkeeping must hold whatever the governor chose.
 */
static inline void fuzz_sys_idle(struct fuzz_sys *fs, int i, int64_t sleep_ns, int64_t stay_ns,
				 bool tick_stopped)
{
	struct cpuidle_device *dev = &fs->dev[i];
	int64_t tick = cpuidle_tick_nsec(fs->sys);
	struct cpuidle_idle_ctx ctx = {
		.sleep_length_ns = sleep_ns,
		.delta_tick_ns = sleep_ns < tick ? sleep_ns : tick,
		.tick_stopped = tick_stopped,
	};
	uint64_t before = 0, after = 0;
	int k, ret;

	for (k = 0; k < dev->state_count; k++)
		before += dev->states_usage[k].usage + dev->states_usage[k].rejected;
	fs->stay_ns = stay_ns;
	ret = cpuidle_idle_call(dev, &ctx);
	FUZZ_CHECK(ret < dev->state_count);
	if (ret >= 0)
		FUZZ_CHECK(ctx.entered == ret && ctx.selected >= 0 &&
			   ctx.selected < dev->state_count);
	for (k = 0; k < dev->state_count; k++)
		after += dev->states_usage[k].usage + dev->states_usage[k].rejected;
	/* an entry is counted once, in the state entered */
	if (ret >= 0)
		FUZZ_CHECK(after == before + 1);
}

static inline void fuzz_sys_destroy(struct fuzz_sys *fs)
{
	cpuidle_system_destroy(fs->sys);
	free(fs);
}

#endif /* FUZZ_FUZZ_SYS_H */
