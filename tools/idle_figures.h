/* SPDX-License-Identifier: MIT */
/*
 * idle_figures.h - what the kernel did in a recording and what a replay of
 * it predicts, in the same figures (cpuidle validate, cpuidle advise):
 * per-state shares of idle time, entries per second, above/below rates,
 * haltpoll's polling window and the stays' histogram.
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
	/*
	 * haltpoll's polling window, as it adjusts it after each halt: the
	 * widenings per second and the mean window it sets; known in a trace
	 * where haltpoll logged its adjustments (a replay has them whatever
	 * its governor)
	 */
	bool windows_known;
	double widened_per_s;
	double window_mean_ns;
	/*
	 * per state, the share of the span every CPU of a cluster was idle in
	 * it or deeper at once (summed over clusters); known in a trace, and
	 * in a replay run with cpuidle_lab_run.overlap
	 */
	bool together_known;
	double together_pct[CPUIDLE_STATE_MAX];
	/* a replay's tally (idle_figures_keep_stay()); free with idle_figures_release() */
	uint64_t widened, windows;
	double window_sum_ns;
	uint64_t *cpu_window;			/* per CPU, the window at its last select() */
	unsigned int nr_cpu_window;
};

/*
 * The kernel's figures in the trace at @path (cpuidle_lab_kernel_stats(),
 * @p naming the states and recomputing above/below where the trace has no
 * cpu_idle_miss events).  Return: 0, or a negative errno with @err set.
 */
int idle_figures_kernel(const char *path, const struct cpuidle_platform *p,
			struct idle_figures *f, char *err, size_t errlen);

/*
 * A replay's figures; @f's stays and windows must have been tallied during
 * the replay by idle_figures_keep_stay() (cpuidle_lab_run.on_decision, @f
 * its context, zeroed before).  A tally that ran out of memory leaves the
 * window figures unknown.
 */
void idle_figures_replay(struct idle_figures *f, const struct cpuidle_lab_result *r);
void idle_figures_keep_stay(void *ctx, int64_t t_ns, const struct cpuidle_device *dev,
			    const struct cpuidle_decision *d);

/* Free what a replay's tally holds (@f stays valid, its figures too). */
void idle_figures_release(struct idle_figures *f);

/*
 * The two-sample Kolmogorov-Smirnov distance of two stays' histograms: the
 * largest difference of their cumulative shares, 0 (alike) to 1; NAN if
 * either is empty.
 */
double idle_figures_stays_distance(const uint64_t *a, const uint64_t *b);

#endif /* TOOLS_IDLE_FIGURES_H */
