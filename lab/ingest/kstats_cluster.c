// SPDX-License-Identifier: MIT
/*
 * kstats_cluster.c - kstats' clusters: the periods during which every CPU
 * of a cluster was idle, each tallied in the state of its shallowest CPU
 * (idlestat's cluster rows: its intersection of the CPUs' idle periods;
 * above/below are not judged), and the time every CPU of a cluster was in
 * a state or a deeper one at once (struct kstats.together_ns).
 *
 * A CPU belongs to its cluster from its first event on (running until its
 * first idle event), or from the start where the trace's header says how
 * many CPUs there are.  A period of 0 ns (one CPU waking as another sleeps
 * at the same stamp) is none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstats_cluster.h"

/* @cpu's cluster: the trace's topology, else the platform's, else 0; -1: none */
static int cluster_of(const struct kstats_clusters *cl, const struct kstats *ks, unsigned int cpu)
{
	int c;

	if (cl->topo && cl->topo->nr_clusters)
		c = cl->topo->cluster_of[cpu];
	else
		c = cl->p ? cpuidle_platform_cluster_of(cl->p, cpu) : 0;
	return c >= 0 && c < ks->nr_clusters ? c : -1;
}

void kstats_cluster_join(struct kstats_clusters *cl, struct kstats *ks, unsigned int cpu,
			 int64_t ts)
{
	int c = cluster_of(cl, ks, cpu);

	ks->cluster_member[cpu / 64] |= 1ull << (cpu % 64);
	cl->of[cpu] = (int8_t)c;
	if (c < 0)
		return;
	cl->members[c]++;
	ks->cluster_cpus[c][cpu / 64] |= 1ull << (cpu % 64);
	if (cl->all_idle[c])	/* one more CPU, running: the period ends */
		kstats_cluster_turn(cl, ks, c, ts, false);
}

int kstats_clusters_init(struct kstats_clusters *cl, struct kstats *ks,
			 const struct cpuidle_platform *p, const struct trace_info *topo,
			 struct kstats_sink *sink)
{
	unsigned int cpu;
	int c;

	memset(cl, 0, sizeof(*cl));
	memset(cl->of, -1, sizeof(cl->of));
	cl->p = p;
	cl->sink = sink;
	cl->now = INT64_MIN;
	if (topo && topo->nr_clusters) {
		cl->topo = topo;
		ks->nr_clusters = topo->nr_clusters;
		for (c = 0; c < ks->nr_clusters; c++)
			snprintf(ks->cluster_names[c], sizeof(ks->cluster_names[c]), "cluster%c",
				 'A' + c);
	} else if (p) {
		ks->nr_clusters = p->nr_clusters < TRACE_MAX_CLUSTERS ? p->nr_clusters :
			TRACE_MAX_CLUSTERS;
		for (c = 0; c < ks->nr_clusters; c++)
			snprintf(ks->cluster_names[c], sizeof(ks->cluster_names[c]), "%s",
				 p->clusters[c].name);
	} else {
		ks->nr_clusters = 1;
		snprintf(ks->cluster_names[0], sizeof(ks->cluster_names[0]), "all");
	}
	if (ks->nr_clusters < 1)	/* a platform always has one */
		ks->nr_clusters = 1;
	ks->cluster = calloc((size_t)ks->nr_clusters * TRACE_MAX_STATES, sizeof(*ks->cluster));
	if (!ks->cluster)
		return -ENOMEM;
	for (cpu = 0; topo && cpu < topo->nr_cpus && cpu < TRACE_MAX_CPUS; cpu++)
		kstats_cluster_join(cl, ks, cpu, 0);
	return 0;
}

/* the time cluster @c's period lasted, counted in the states it covers */
static void together(const struct kstats_clusters *cl, struct kstats *ks, int c)
{
	for (int s = 0; s <= cl->shallowest[c]; s++)
		ks->together_ns[s] += (uint64_t)(cl->now - cl->now_since[c]);
}

void kstats_cluster_turn(struct kstats_clusters *cl, struct kstats *ks, int c, int64_t ts,
			 bool all)
{
	int s;

	cl->all_idle[c] = all;
	if (all) {
		for (s = 0; !cl->in_state[c][s]; s++)
			;	/* (every CPU is idle: some state holds one) */
		cl->since[c] = ts;
		cl->now_since[c] = cl->now;
		cl->shallowest[c] = s;
		return;
	}
	together(cl, ks, c);
	if (ts <= cl->since[c])
		return;
	kstats_tally(kstats_cluster_get(ks, c, cl->shallowest[c]), ts - cl->since[c]);
	if (cl->sink->fn) {
		struct kstats_stay stay = {
			.wake = -1,
			.start_ns = cl->since[c],
			.ns = ts - cl->since[c],
			.index = (unsigned int)c,
			.cluster = true,
			.state = cl->shallowest[c],
		};

		kstats_hand_on(cl->sink, &stay);
	}
}

void kstats_clusters_finish(struct kstats_clusters *cl, struct kstats *ks)
{
	for (int c = 0; c < ks->nr_clusters; c++)
		if (cl->all_idle[c])
			together(cl, ks, c);
}
