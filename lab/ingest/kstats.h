/* SPDX-License-Identifier: MIT */
/*
 * kstats.h - what the kernel itself did, from a trace: per CPU and state,
 * the entries, the time and its spread, and the kernel's above/below
 * verdicts (idlestat's C-state table, computed the kernel's way).
 */
#ifndef LAB_KSTATS_H
#define LAB_KSTATS_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuidle/lab.h"
#include "libcpuidle.h"
#include "kfreq.h"
#include "kwake.h"
#include "trace.h"

struct kstate_stats {
	uint64_t hits;		/* complete entry -> exit pairs */
	uint64_t total_ns;
	int64_t min_ns, max_ns;
	uint64_t above, below;
	uint64_t stays[CPUIDLE_LAB_STAY_BINS];	/* cpuidle_lab_stay_bin() */
};

struct kstats {
	unsigned int nr_cpus;		/* highest CPU with idle events + 1 */
	int nr_states;			/* highest state index seen + 1 */
	int64_t first_ns, last_ns;	/* the earliest and latest event */
	uint64_t events;
	/* the tracer lost events (TEV_LOST): as struct iv_stats has it */
	uint64_t lost_gaps, lost_events;
	unsigned int lost_cpu;
	uint64_t lost_line;
	int64_t lost_n;
	/* CPUs with events of their own but no idle entry or exit, a bit each */
	unsigned int nr_idle_less;
	uint64_t idle_less[TRACE_MAX_CPUS / 64];
	bool misses_recorded;		/* the trace has cpu_idle_miss events */
	/*
	 * haltpoll's polling window (power:guest_halt_poll_ns, logged after
	 * a halt): adjustments logged, those that widened it, the sum of the
	 * windows they set
	 */
	uint64_t windows, windows_widened;
	double window_sum_ns;
	/*
	 * per state, the time every CPU of a cluster (the platform's, else
	 * the whole machine; a CPU belongs from its first event on) was idle
	 * in that state or a deeper one at once, summed over clusters
	 */
	uint64_t together_ns[TRACE_MAX_STATES];
	/*
	 * the clusters (the trace's own topology, else the platform's, else
	 * the machine as one): per cluster, its CPUs (a bit each, those with
	 * events) and, per state, the periods during which every one of them
	 * was idle, the shallowest in that state (idlestat's cluster rows:
	 * its intersection of the CPUs' idle periods); above/below are not
	 * judged.  A period of 0 ns (one CPU waking as another sleeps at the
	 * same stamp) is none.
	 */
	int nr_clusters;
	char cluster_names[TRACE_MAX_CLUSTERS][CPUIDLE_NAME_LEN];
	uint64_t cluster_cpus[TRACE_MAX_CLUSTERS][TRACE_MAX_CPUS / 64];
	uint64_t cluster_member[TRACE_MAX_CPUS / 64];	/* CPUs taking part so far */
	struct kstate_stats *cluster;	/* [nr_clusters][TRACE_MAX_STATES] */
	bool misses_recomputed;		/* above/below recomputed from a table */
	struct kstate_stats *cpu;	/* [nr_cpus][TRACE_MAX_STATES] */
	/*
	 * what ended each idle period (early and late judged by the
	 * platform's table, if one is given), and the time at each
	 * frequency while running: idlestat's wake-up and P-state tables
	 */
	struct kwake wake;
	struct kfreq freq;
	/*
	 * read from an interval file (@from_intervals): what its events
	 * could not give exactly (trace_open_intervals())
	 */
	bool from_intervals;
	struct trace_ivf_approx approx;
};

/**
 * struct kstats_stay - one stay, as kstats_from_trace_each() hands it on
 * @start_ns: its entry (a cluster's: when its last CPU went idle)
 * @ns: its length
 * @index: the CPU, or the cluster (struct kstats' numbering)
 * @cluster: a cluster's period of every CPU idle, in its shallowest state
 * @state: the state
 * @kernel_above: the trace's cpu_idle_miss said too deep (a CPU's stay only)
 * @kernel_below: ... too shallow
 * @judged_above: too deep by the platform's table (kstats_from_trace()'s @p)
 * @judged_below: too shallow by it
 * @wake: what ended it (enum kwake_kind: KWAKE_UNKNOWN where no event
 *	came before the CPU's next entry, which is every stay where the trace
 *	has no wake-up events: kstats.wake.events); -1 for a cluster's
 *
 * Which verdicts count is known only at the end: the kernel's where the
 * trace has cpu_idle_miss events (kstats.misses_recorded), else the
 * recomputed ones (kstats.misses_recomputed), else none.
 */
struct kstats_stay {
	int64_t start_ns;
	int64_t ns;
	unsigned int index;
	bool cluster;
	int state;
	bool kernel_above, kernel_below;
	bool judged_above, judged_below;
	int wake;
};

/**
 * typedef kstats_stay_fn - receives each stay kstats_from_trace_each() tallies
 * @ctx: its context
 * @stay: the stay; a CPU's come in its time order, a cluster's in its own
 *
 * A CPU's stay comes once its cpu_idle_miss verdict could have (at the
 * CPU's next entry, at lost events, at the trace's end).
 *
 * Return: 0 to go on, or a negative errno, which ends the read.
 */
typedef int (*kstats_stay_fn)(void *ctx, const struct kstats_stay *stay);

/**
 * struct kstats_want - what kstats_read() tallies beside the C-states
 * @wakeups: what ended each idle period (struct kstats.wake)
 * @freqs: the time at each frequency while running (struct kstats.freq)
 * @stay: called with each stay tallied, a CPU's and a cluster's (NULL:
 *	none); a stay says what ended it, so the wake-ups are tallied with it
 * @ctx: its first argument
 *
 * A table not asked for is left empty (no events, no CPUs), and reading
 * the trace costs less: most events ask nothing of the C-states but
 * their time and CPU.  With nothing asked beside the C-states, a perf.data
 * file's reader leaves those events out (trace_want()) and says what they
 * add up to; where it cannot vouch for that (events out of time order past
 * a round's end), the file is read again in full.  It also leaves out the
 * vote for the tick's function, a read of the data before the data, so
 * that a read that fails then is no answer either: the file is read again
 * in full, to fail as it does.  The tally, or the error, is the same.
 */
struct kstats_want {
	bool wakeups;
	bool freqs;
	kstats_stay_fn stay;
	void *ctx;
};

/**
 * kstats_read() - read a whole trace and tally what @want asks
 * @path: as kstats_from_trace()
 * @p: as kstats_from_trace()
 * @want: the tables beside the C-states, and where each stay goes
 * @out: as kstats_from_trace()
 * @info: as kstats_from_trace()
 * @err: as kstats_from_trace(); @want->stay's failure is "FILE: strerror"
 * @errlen: its size
 *
 * Return: 0, @want->stay's negative errno, or the reading's.
 */
int kstats_read(const char *path, const struct cpuidle_platform *p,
		const struct kstats_want *want, struct kstats *out, struct trace_info *info,
		char *err, size_t errlen);

/**
 * kstats_from_trace() - read a whole trace and tally it, every table
 * @path: the trace
 * @p: the platform whose state table recomputes above/below where the
 *	trace has no cpu_idle_miss events (NULL: leave them 0; with neither
 *	misses_recorded nor misses_recomputed set they are not known; states
 *	beyond its table are not judged) and whose clusters the overlap is
 *	measured in (NULL: the machine is one)
 * @out: filled; free with kstats_free()
 * @info: the trace's header info (copied out; may be NULL)
 * @err: "FILE:LINE: what" on error
 * @errlen: its size
 *
 * An entry in progress where the tracer lost events of its CPU is not
 * counted.  An interval file (ivf_is_file()) is read back as the events it
 * was built from (trace_open_intervals(): @out->from_intervals, what is
 * approximate in @out->approx), its notes giving the lost events and the
 * CPUs without idle events.  A trace out of time order beyond IV_REORDER_WINDOW_NS, as
 * reconstruction refuses it, is refused (-EINVAL).
 *
 * Return: 0 or a negative errno.
 */
int kstats_from_trace(const char *path, const struct cpuidle_platform *p,
		      struct kstats *out, struct trace_info *info, char *err, size_t errlen);

/**
 * kstats_from_trace_each() - kstats_from_trace(), handing each stay on too
 * (kstats_read() with every table)
 * @path: as kstats_from_trace()
 * @p: as kstats_from_trace()
 * @fn: called with each stay tallied (a CPU's and a cluster's); NULL: none
 * @ctx: its first argument
 * @out: as kstats_from_trace()
 * @info: as kstats_from_trace()
 * @err: as kstats_from_trace(); @fn's failure is "FILE: strerror"
 * @errlen: its size
 *
 * Return: 0, @fn's negative errno, or the reading's.
 */
int kstats_from_trace_each(const char *path, const struct cpuidle_platform *p,
			   kstats_stay_fn fn, void *ctx, struct kstats *out,
			   struct trace_info *info, char *err, size_t errlen);

void kstats_free(struct kstats *ks);

/*
 * kernel_stats.c: what cpuidle stats and the lab's API show of a tally.
 * kstats_state_name(): state @s named by @p's table, else the trace's
 * names (@info, may be NULL), else "stateN" in @buf.  kstats_cpu_shown():
 * a CPU with an entry.  kstats_misses_known(): whether state @s's
 * above/below are known.  kstats_misses_source(): "kernel", "recomputed"
 * or "none".
 */
const char *kstats_state_name(const struct cpuidle_platform *p, const struct trace_info *info,
			      int s, char *buf, size_t len);
bool kstats_cpu_shown(const struct kstats *ks, unsigned int cpu);
bool kstats_misses_known(const struct kstats *ks, const struct cpuidle_platform *p, int s);
const char *kstats_misses_source(const struct kstats *ks);

/**
 * kstats_platform_mismatch() - whether a trace and a platform disagree
 * @nr_states: the states the trace enters (highest index + 1; 0: none seen)
 * @info: the trace's header (its state names, if it has any); may be NULL
 * @p: the platform the trace is to be read with
 * @msg: on a mismatch, what differs ("the trace enters 2 idle states,
 *	platform laptop has 3"), without a final period
 * @len: its size
 *
 * A trace recorded on another machine than @p describes has another
 * number of states or, where the trace names them (idlestat), other
 * names: the states would be labelled and judged by the wrong table.  A
 * trace without names tells only how many states it entered, and may
 * have left the deepest ones unused (a QoS request, a tunable, a short
 * trace): only one that enters more states than @p has disagrees.
 * idlestat's header cuts a name at its first space ("haltpoll" for
 * "haltpoll idle"): that is a match.
 *
 * Return: true if they disagree (@msg set).
 */
bool kstats_platform_mismatch(int nr_states, const struct trace_info *info,
			      const struct cpuidle_platform *p, char *msg, size_t len);

/** kstats_cluster_get() - the tally of cluster @c's periods in @state */
static inline struct kstate_stats *kstats_cluster_get(const struct kstats *ks, int c, int state)
{
	return &ks->cluster[(size_t)c * TRACE_MAX_STATES + (size_t)state];
}

/** kstats_tally() - one stay of @ns more in @s */
static inline void kstats_tally(struct kstate_stats *s, int64_t ns)
{
	if (!s->hits || ns < s->min_ns)
		s->min_ns = ns;
	if (!s->hits || ns > s->max_ns)
		s->max_ns = ns;
	s->hits++;
	s->total_ns += (uint64_t)ns;
	s->stays[cpuidle_lab_stay_bin((uint64_t)ns)]++;
}

/** kstats_get() - the tally of @cpu in @state */
static inline struct kstate_stats *kstats_get(const struct kstats *ks, unsigned int cpu,
					      int state)
{
	return &ks->cpu[(size_t)cpu * TRACE_MAX_STATES + (size_t)state];
}

#endif /* LAB_KSTATS_H */
