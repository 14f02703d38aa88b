/* SPDX-License-Identifier: MIT */
/*
 * sim.h - replay idle intervals through the real idle path on a simulated
 * clock: one cpuidle system per run (platform x governor), one device per
 * CPU, the table driver's idle callback consuming the interval.
 */
#ifndef TOOLS_SIM_H
#define TOOLS_SIM_H

#include <stdbool.h>
#include <stdint.h>

#include "libcpuidle.h"

/**
 * struct sim_interval - one idle interval of one CPU
 * @idle_ns: how long the CPU had nothing to do (until the wake-up that
 *	needed it)
 * @timer_ns: time from the start of the interval to the next timer event
 *	(>= @idle_ns; CPUIDLE_TIME_INFINITE if none)
 * @busy_ns: how long the CPU then runs before the next idle interval
 */
struct sim_interval {
	int64_t idle_ns;
	int64_t timer_ns;
	int64_t busy_ns;
};

/*
 * A source of intervals.  next() returns 1 with *iv filled, 0 at the end
 * of this CPU's intervals, or a negative errno.
 */
struct sim_source {
	int (*next)(struct sim_source *src, struct sim_interval *iv);
	void (*destroy)(struct sim_source *src);
};

typedef struct sim_source *(*sim_source_factory)(void *arg, unsigned int cpu);

struct sim_config {
	const struct cpuidle_platform *platform;
	const char *governor;
	unsigned int nr_cpus;
	int32_t qos_us;			/* < 0: no request */
	sim_source_factory source;
	void *source_arg;
};

struct sim_state_stats {
	uint64_t usage, above, below, rejected;
	uint64_t time_ns;
};

struct sim_result {
	char governor[CPUIDLE_NAME_LEN];
	int state_count;
	struct sim_state_stats states[CPUIDLE_STATE_MAX];
	uint64_t intervals;		/* idle intervals replayed */
	uint64_t entries;		/* idle calls (re-entries included) */
	uint64_t idle_ns;		/* true idle time over all CPUs */
	uint64_t wall_ns;		/* simulated time over all CPUs */
	uint64_t added_latency_ns;	/* exit latency paid by real wake-ups */
	double energy_mj;		/* idle energy, states of known power only */
	bool energy_known;		/* every state has a known power */
	double host_seconds;		/* time the replay took */
	int error;			/* 0 or negative errno */
};

/**
 * sim_run() - replay every CPU's intervals under one governor
 * @cfg: the run
 * @res: the result
 *
 * Return: 0, or a negative errno (also stored in @res->error).
 */
int sim_run(const struct sim_config *cfg, struct sim_result *res);

/**
 * sim_run_parallel() - run several configurations, each in its own thread
 * @cfgs: the runs
 * @res: their results, same order
 * @n: how many
 *
 * Return: 0 if every run succeeded, else the first error.
 */
int sim_run_parallel(const struct sim_config *cfgs, struct sim_result *res, unsigned int n);

#endif /* TOOLS_SIM_H */
