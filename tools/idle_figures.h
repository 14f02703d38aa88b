/* SPDX-License-Identifier: MIT */
/*
 * idle_figures.h - what the kernel did in a recording and what a replay of
 * it predicts, in the same figures (cpuidle validate, cpuidle advise):
 * per-state shares of idle time, entries per second, above/below rates and
 * the stays' histogram.
 */
#ifndef TOOLS_IDLE_FIGURES_H
#define TOOLS_IDLE_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuidle/lab.h"

struct idle_figures {
	int nr_states;
	double share_pct[CPUIDLE_STATE_MAX];	/* of idle time in the states */
	double entries_per_s;
	bool misses_known;			/* above/below known */
	double above_pct, below_pct;		/* of entries */
	uint64_t stays[CPUIDLE_LAB_STAY_BINS];	/* every state's, pooled */
	int64_t span_ns;			/* the trace's, or the replay's */
};

/*
 * The kernel's figures in the trace at @path (cpuidle_lab_kernel_stats(),
 * @p naming the states and recomputing above/below where the trace has no
 * cpu_idle_miss events).  Return: 0, or a negative errno with @err set.
 */
int idle_figures_kernel(const char *path, const struct cpuidle_platform *p,
			struct idle_figures *f, char *err, size_t errlen);

/*
 * A replay's figures; @f->stays must have been filled during the replay by
 * idle_figures_keep_stay() (cpuidle_lab_run.on_decision, @f its context).
 */
void idle_figures_replay(struct idle_figures *f, const struct cpuidle_lab_result *r);
void idle_figures_keep_stay(void *ctx, int64_t t_ns, const struct cpuidle_device *dev,
			    const struct cpuidle_decision *d);

/*
 * The two-sample Kolmogorov-Smirnov distance of two stays' histograms: the
 * largest difference of their cumulative shares, 0 (alike) to 1; NAN if
 * either is empty.
 */
double idle_figures_stays_distance(const uint64_t *a, const uint64_t *b);

#endif /* TOOLS_IDLE_FIGURES_H */
