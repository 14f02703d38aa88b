/* SPDX-License-Identifier: MIT */
/*
 * hazard.h - the hazard governor's selection, for governors built on it
 * (cluster.c).  Not installed.
 */
#ifndef CPUIDLE_HAZARD_H
#define CPUIDLE_HAZARD_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuidle/cpuidle.h"
#include "cpuidle/governor.h"

/*
 * The tunables (module/hazard/parameters/NAME, struct hazard_params below;
 * cluster keeps copies of its own, module/cluster/parameters/NAME)
 * and their defaults.  Each default was chosen by replaying the shared
 * traces on the bundled platforms (energy over the oracle, averaged per
 * platform), so a figure measured on those traces with the defaults is a
 * fit, not a prediction: scripts/governor-results --cv chooses them anew
 * for each workload without that workload's traces.
 *
 * prior_wake_shift: before any evidence a bin is assumed to be survived
 * all but 1/2^4 of the time, 15 times in 16: trust the timer, as teo does,
 * but not blindly.  (Where no period has reached yet, the horizon of step
 * 2 keeps this prior from counting.)  1 to 16: at 16 a bin is survived
 * all but once in 65536, the last step the 16-bit fractions hold.
 */
#define HAZARD_DEFAULT_PRIOR_WAKE_SHIFT	4u
#define HAZARD_MAX_PRIOR_WAKE_SHIFT	16u

/*
 * decay_shift: each bin's estimate moves 1/2^2 = 1/4 of the way to each
 * new observation: it follows a change of workload within a few periods
 * that reach the bin.  Runs of alike periods are short in real workloads:
 * replaying the shared traces on the bundled platforms, 1/4 came out as
 * good as or better than 1/8 (teo's rate) and 1/16 on every platform, and
 * 1/2 no better than 1/4.  1 to 8: a step of 1/2^s stops moving a 16-bit
 * fraction once it is within 2^s/65536 of where it goes, which past 8
 * (1/256) would keep a bin from telling 255 survivals in 256 from fewer.
 */
#define HAZARD_DEFAULT_DECAY_SHIFT	2u
#define HAZARD_MAX_DECAY_SHIFT		8u

/*
 * hit_slack_shift: a period within 1/2^4 = 1/16 of its sleep length ended
 * at the timer (timer slack).  1 to 63: 0 would take every period for a
 * timer's, and 64 is no shift of a 64-bit time.
 */
#define HAZARD_DEFAULT_HIT_SLACK_SHIFT	4u
#define HAZARD_MAX_HIT_SLACK_SHIFT	63u

/*
 * Contexts: after a period shorter than context_short_ns, shorter than
 * context_long_ns, or longer.  The defaults split the octaves of shallow
 * states (target residencies up to tens of us), of the middle ones and of
 * the deepest (hundreds of us and up) on every bundled platform; five
 * finer contexts did no better on the shared traces.  Any bounds: where
 * context_short_ns >= context_long_ns there is no middle context, and at
 * 0 and 0 one context for every period.
 */
#define HAZARD_DEFAULT_CONTEXT_SHORT_NS	(32u * 1000u)
#define HAZARD_DEFAULT_CONTEXT_LONG_NS	(512u * 1000u)

/**
 * struct hazard_params - the tunables, one block per system
 * @decay_shift: a bin moves 1/2^decay_shift of the way to each observation
 * @hit_slack_shift: a period within 1/2^hit_slack_shift of its sleep
 *	length ended at the timer
 * @prior_wake_shift: before any evidence, a bin is not survived once in
 *	2^prior_wake_shift
 * @context_short_ns: a period shorter than this makes the short context
 * @context_long_ns: one at least context_short_ns and shorter than this
 *	the middle one; longer, the long one
 *
 * A governor built on hazard keeps one first in its own block of tunables
 * (HAZARD_PARAMS() gives their table's entries) and hands it to
 * hazard_enable_with().
 */
struct hazard_params {
	unsigned int decay_shift;
	unsigned int hit_slack_shift;
	unsigned int prior_wake_shift;
	unsigned int context_short_ns;
	unsigned int context_long_ns;
};

#define HAZARD_UINT(n, min_, max_, d) {						\
	.name = #n, .type = CPUIDLE_PARAM_UINT,					\
	.offset = offsetof(struct hazard_params, n),				\
	.def = (d), .min = (min_), .max = (max_),				\
}

/*
 * The five tunables' entries in a governor's table of tunables, for a
 * block that is a struct hazard_params or has one first.
 */
#define HAZARD_PARAMS()								\
	HAZARD_UINT(decay_shift, 1, HAZARD_MAX_DECAY_SHIFT,			\
		    HAZARD_DEFAULT_DECAY_SHIFT),				\
	HAZARD_UINT(hit_slack_shift, 1, HAZARD_MAX_HIT_SLACK_SHIFT,		\
		    HAZARD_DEFAULT_HIT_SLACK_SHIFT),				\
	HAZARD_UINT(prior_wake_shift, 1, HAZARD_MAX_PRIOR_WAKE_SHIFT,		\
		    HAZARD_DEFAULT_PRIOR_WAKE_SHIFT),				\
	HAZARD_UINT(context_short_ns, 0, UINT_MAX,				\
		    HAZARD_DEFAULT_CONTEXT_SHORT_NS),				\
	HAZARD_UINT(context_long_ns, 0, UINT_MAX,				\
		    HAZARD_DEFAULT_CONTEXT_LONG_NS)

/*
 * Room for hazard's per-CPU data (its curves, ~0.5 KiB) in a governor
 * built on it, which keeps that data first in its own; hazard.c checks
 * that it fits.
 */
#define HAZARD_DEVICE_SIZE	1024

/**
 * hazard_select_expected() - hazard's select(), and the stay it expects
 * @dev: the device, inside select(), its governor data hazard's (first)
 * @stop_tick: as select()'s
 * @stay_ns: if not NULL, set to the expected remaining stay: the survival
 *	curve's integral from the time already idle to the horizon (the
 *	timer, or as far as periods have been seen to last), in full, not
 *	only as far as the choice needs it
 *
 * Return: the state hazard selects.
 */
int hazard_select_expected(struct cpuidle_device *dev, bool *stop_tick, uint64_t *stay_ns);

/**
 * hazard_reflect() - hazard's reflect(): learn from the idle period that ended
 * @dev: the device, inside reflect(), its governor data hazard's (first)
 * @index: the state entered
 *
 * A governor built on hazard that learns as hazard does takes this as its
 * own reflect() (cluster does), with no call between.
 */
void hazard_reflect(struct cpuidle_device *dev, int index);

/**
 * hazard_enable_with() - hazard's enable(), reading the tunables of @tunables
 * @dev: the device, its governor data hazard's (first)
 * @tunables: the block of tunables to read (it must outlive the device's
 *	use of them: a system's block does); NULL: the defaults
 *
 * hazard itself passes its own block (module/hazard/parameters/); a
 * governor built on it passes the copies in its own block, so that it is
 * tuned apart from hazard.
 *
 * Return: 0.
 */
int hazard_enable_with(struct cpuidle_device *dev, const struct hazard_params *tunables);

#endif /* CPUIDLE_HAZARD_H */
