/* SPDX-License-Identifier: MIT */
/*
 * kstats_cluster.h - kstats' clusters (kstats_cluster.c): which CPUs each
 * has, the periods during which every one of them is idle (idlestat's
 * cluster rows) and the time they spend together in each state
 * (struct kstats.together_ns).  Shared by kstats.c only.
 */
#ifndef LAB_KSTATS_CLUSTER_H
#define LAB_KSTATS_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "kstats.h"

/**
 * struct kstats_sink - where kstats hands each stay on
 * @fn: the caller's (NULL: nowhere)
 * @ctx: its first argument
 * @ret: its first failure, which ends the read
 */
struct kstats_sink {
	kstats_stay_fn fn;
	void *ctx;
	int ret;
};

/* hand @stay on, unless a call failed before */
static inline void kstats_hand_on(struct kstats_sink *sink, const struct kstats_stay *stay)
{
	if (sink->fn && !sink->ret)
		sink->ret = sink->fn(sink->ctx, stay);
}

/**
 * struct kstats_clusters - the clusters as the trace goes on
 * @p: the platform (may be NULL)
 * @topo: the trace's topology, if its header gives one
 * @sink: where a cluster's period is handed on
 * @of: each CPU's cluster, once it joined (-1: none)
 * @members: per cluster, the CPUs taking part so far
 * @idle: ... how many of them are idle
 * @in_state: ... in each state
 * @all_idle: ... whether a period of every CPU idle is going on
 * @since: ... since when
 * @now_since: ... @now then
 * @shallowest: ... in which state its shallowest CPU is
 * @now: the newest time stamp read (time never goes back for the overlap)
 *
 * While every CPU of a cluster is idle nothing in it changes (a CPU that
 * changes state leaves its state first, which ends the period), so the
 * time the period adds to together_ns is counted when it ends, as the time
 * @now moved on since it began, in the states at or below its shallowest:
 * the sum of what counting it at each event would add.
 */
struct kstats_clusters {
	const struct cpuidle_platform *p;
	const struct trace_info *topo;
	struct kstats_sink *sink;
	int8_t of[TRACE_MAX_CPUS];
	unsigned int members[TRACE_MAX_CLUSTERS];
	unsigned int idle[TRACE_MAX_CLUSTERS];
	unsigned int in_state[TRACE_MAX_CLUSTERS][TRACE_MAX_STATES];
	bool all_idle[TRACE_MAX_CLUSTERS];
	int64_t since[TRACE_MAX_CLUSTERS];
	int64_t now_since[TRACE_MAX_CLUSTERS];
	int shallowest[TRACE_MAX_CLUSTERS];
	int64_t now;
};

/**
 * kstats_clusters_init() - name the clusters and make their tallies
 * @cl: the clusters' state (filled)
 * @ks: the tally (nr_clusters, cluster_names, cluster)
 * @p: the platform (may be NULL)
 * @topo: the trace's header: its topology, else @p's, else the machine as
 *	one; where it says how many CPUs there are, each takes part from the
 *	start, else from its first event (kstats_cluster_join())
 * @sink: where each cluster's period is handed on
 *
 * Return: 0 or -ENOMEM.
 */
int kstats_clusters_init(struct kstats_clusters *cl, struct kstats *ks,
			 const struct cpuidle_platform *p, const struct trace_info *topo,
			 struct kstats_sink *sink);

/** kstats_cluster_join() - @cpu (< TRACE_MAX_CPUS) takes part in its cluster from @ts on */
void kstats_cluster_join(struct kstats_clusters *cl, struct kstats *ks, unsigned int cpu,
			 int64_t ts);

/*
 * kstats_cluster_turn() - cluster @c's CPUs became all idle (@all) at @ts, or
 * one of them woke: a period begins, or ends and is tallied
 */
void kstats_cluster_turn(struct kstats_clusters *cl, struct kstats *ks, int c, int64_t ts,
			 bool all);

/** kstats_clusters_finish() - the trace ended: the periods going on end with it */
void kstats_clusters_finish(struct kstats_clusters *cl, struct kstats *ks);

/** kstats_cluster_member() - has @cpu (< TRACE_MAX_CPUS) joined its cluster? */
static inline bool kstats_cluster_member(const struct kstats *ks, unsigned int cpu)
{
	return ks->cluster_member[cpu / 64] >> (cpu % 64) & 1;
}

/** kstats_clusters_advance() - time passes to @ts (never back) */
static inline void kstats_clusters_advance(struct kstats_clusters *cl, int64_t ts)
{
	if (ts > cl->now)
		cl->now = ts;
}

/**
 * kstats_cluster_move() - @cpu (joined) leaves (@delta -1) or enters (1)
 * state @s at @ts; where its cluster's CPUs become all idle, or stop being
 * so, a period begins or ends
 */
static inline void kstats_cluster_move(struct kstats_clusters *cl, struct kstats *ks,
				       unsigned int cpu, int s, int delta, int64_t ts)
{
	int c = cl->of[cpu];
	bool all;

	if (c < 0 || s < 0 || s >= TRACE_MAX_STATES)
		return;
	cl->in_state[c][s] += (unsigned int)delta;
	cl->idle[c] += (unsigned int)delta;
	all = cl->members[c] && cl->idle[c] == cl->members[c];
	if (all != cl->all_idle[c])
		kstats_cluster_turn(cl, ks, c, ts, all);
}

#endif /* LAB_KSTATS_CLUSTER_H */
