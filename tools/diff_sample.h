/* SPDX-License-Identifier: MIT */
/*
 * diff_sample.h - one trace's idle periods as "cpuidle diff" compares
 * them: per CPU and per cluster, the kernel's stays in time order, their
 * figures (residency, hits per second, average stay, above/below, modelled
 * power), and a block bootstrap of those figures.
 *
 * Why blocks: idle periods are not independent (a burst of short stays
 * follows a burst of work), and resampling single periods would make the
 * intervals too narrow.  Resampling runs of consecutive periods keeps the
 * dependence within a run; the runs' length grows as the cube root of the
 * periods' number, the order that suits a variance estimate (Hall,
 * Horowitz and Jing, "On blocking rules for the bootstrap with dependent
 * data", Biometrika 82, 1995).
 */
#ifndef TOOLS_DIFF_SAMPLE_H
#define TOOLS_DIFF_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kstats.h"

/* a state's figures, and the unit's over all states (index DIFF_ALL) */
#define DIFF_WAKE_KINDS	(DIFF_WAKE_UNKNOWN - DIFF_WAKE_TIMER + 1)	/* enum kwake_kind's */
#define DIFF_ALL	TRACE_MAX_STATES
#define DIFF_SLOTS	(TRACE_MAX_STATES + 1)

enum diff_figure {
	DIFF_RESIDENCY,		/* % of the unit's time in the state */
	DIFF_HITS,		/* entries per second */
	DIFF_AVG_STAY,		/* mean stay, ns */
	DIFF_ABOVE,		/* % of the state's stays the kernel judged too deep */
	DIFF_BELOW,		/* ... too shallow */
	DIFF_POWER,		/* mean power of the stays, mW, by the platform's model */
	/* stays ended per second by each kind of wake-up (kstats' kwake) */
	DIFF_WAKE_TIMER,
	DIFF_WAKE_RESCHED,
	DIFF_WAKE_CALL_FUNC,
	DIFF_WAKE_IRQ,
	DIFF_WAKE_UNKNOWN,
	DIFF_NR_FIGURES,
};

/** struct diff_sums - the sums a unit's figures are ratios of, per slot */
struct diff_sums {
	double hits[DIFF_SLOTS];
	double ns[DIFF_SLOTS];
	double above[DIFF_SLOTS];
	double below[DIFF_SLOTS];
	double energy_nj[DIFF_SLOTS];
	double woken[DIFF_WAKE_KINDS][DIFF_SLOTS];
	double cover_ns;	/* the time the periods span, each to the next's entry */
};

struct diff_period;

/**
 * struct diff_unit - one CPU's or one cluster's periods
 * @cluster: a cluster's periods of every CPU idle (no verdicts, no power)
 * @index: the CPU, or the cluster
 * @name: "cpuN" or the cluster's name
 * @periods: in time order
 * @nr: their number
 * @cap: @periods' room
 * @verdicts: which states' above/below are known, a bit each
 * @power: the platform models every state's power for it
 * @wakes: the trace tells what ended its stays (a CPU's, with wake-up events)
 * @total: the sums over every period
 * @blocks: the sums over each block of consecutive periods
 * @nr_blocks: their number
 */
struct diff_unit {
	bool cluster;
	unsigned int index;
	char name[CPUIDLE_NAME_LEN];
	struct diff_period *periods;
	size_t nr, cap;
	unsigned int verdicts;
	bool power;
	bool wakes;
	struct diff_sums total;
	struct diff_sums *blocks;
	size_t nr_blocks;
};

/**
 * struct diff_sample - every unit of one trace
 * @p: the platform the power and the recomputed verdicts come from (may be NULL)
 * @cpus: indexed by CPU (NULL where a CPU has no period)
 * @nr_cpus: @cpus' length
 * @clusters: indexed by the cluster (kstats' numbering)
 * @nr_clusters: @clusters' length
 */
struct diff_sample {
	const struct cpuidle_platform *p;
	struct diff_unit **cpus;
	unsigned int nr_cpus;
	struct diff_unit *clusters[TRACE_MAX_CLUSTERS];
	int nr_clusters;
};

/**
 * diff_sample_add() - a kstats_stay_fn: keep one stay
 * @ctx: the struct diff_sample
 * @stay: the stay
 *
 * Return: 0 or -ENOMEM.
 */
int diff_sample_add(void *ctx, const struct kstats_stay *stay);

/**
 * diff_sample_finish() - after the read: name the units, pick the verdicts,
 *	sum the periods into blocks
 * @ds: the sample
 * @ks: the trace's tally (which verdicts it has, the clusters' names)
 *
 * Return: 0 or -ENOMEM.
 */
int diff_sample_finish(struct diff_sample *ds, const struct kstats *ks);

void diff_sample_free(struct diff_sample *ds);

/**
 * diff_figure() - one figure of a slot from sums
 * @u: the unit (whether the figure is known for it)
 * @sum: its sums (the total, or a resample's)
 * @slot: a state, or DIFF_ALL
 * @f: the figure
 *
 * Return: the figure, or NAN where it is not known or not defined (an
 * average of no stays).
 */
double diff_figure(const struct diff_unit *u, const struct diff_sums *sum, int slot,
		   enum diff_figure f);

/**
 * diff_resample() - one bootstrap resample of a unit's blocks
 * @u: the unit (diff_sample_finish() done)
 * @rng: the generator's state (diff_rng_seed())
 * @out: the sums of as many blocks drawn with replacement as it has
 */
void diff_resample(const struct diff_unit *u, uint64_t rng[4], struct diff_sums *out);

/** diff_rng_seed() - seed xoshiro256** from @seed (through splitmix64) */
void diff_rng_seed(uint64_t rng[4], uint64_t seed);

/** diff_rng_below() - a uniform draw from 0 to @n - 1 (@n > 0) */
unsigned int diff_rng_below(uint64_t rng[4], unsigned int n);

/** diff_sums_add() - add @from's sums to @to's */
void diff_sums_add(struct diff_sums *to, const struct diff_sums *from);

/**
 * diff_percentile() - the @q quantile of @n values (sorted in place; NANs
 *	first removed by the caller), interpolated between order statistics
 *
 * Return: the quantile, or NAN for @n == 0.
 */
double diff_percentile(double *v, size_t n, double q);

#endif /* TOOLS_DIFF_SAMPLE_H */
