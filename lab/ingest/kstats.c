// SPDX-License-Identifier: MIT
/*
 * kstats.c - the kernel's own idle statistics, from a trace.
 *
 * Every idle entry followed by its exit on the same CPU is one hit of the
 * state entered, lasting exit - entry (the kernel's own residency, exit
 * latency included).  An exit without an entry (the CPU was idle when the
 * trace began) and an entry without an exit (still idle at its end) are
 * not counted, as idlestat does not count them.
 *
 * Above/below: the kernel's cpu_idle_miss verdicts where the trace has
 * them.  Otherwise they are recomputed with the kernel's definitions
 * (cpuidle_enter_state(): too deep if shorter than the state's target
 * residency and a shallower state exists; too shallow if the stay less the
 * exit latency reaches the next deeper state's target residency), from a
 * state table: a platform's, given by the caller.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconstruct.h"
#include "kstats.h"

/* the events asked of the reader at once (trace_next_batch()) */
#define KSTATS_BATCH	64

struct cpu_track {
	int64_t entry_ns;	/* -1: not in idle */
	int state;
	int cluster;		/* cluster_of() it, once */
};

struct overlap;
static int cluster_of(const struct overlap *o, unsigned int cpu);

static int grow(struct kstats *ks, const struct overlap *o, struct cpu_track **track,
		unsigned int cpu)
{
	unsigned int n = ks->nr_cpus, want = cpu + 1, i;
	struct kstate_stats *c;
	struct cpu_track *t;

	if (want <= n)
		return 0;
	c = realloc(ks->cpu, (size_t)want * TRACE_MAX_STATES * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memset(c + (size_t)n * TRACE_MAX_STATES, 0,
	       (size_t)(want - n) * TRACE_MAX_STATES * sizeof(*c));
	ks->cpu = c;
	t = realloc(*track, want * sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (i = n; i < want; i++) {
		t[i].entry_ns = -1;
		t[i].cluster = cluster_of(o, i);
	}
	*track = t;
	ks->nr_cpus = want;
	return 0;
}

static void tally(struct kstate_stats *s, int64_t d)
{
	if (!s->hits || d < s->min_ns)
		s->min_ns = d;
	if (!s->hits || d > s->max_ns)
		s->max_ns = d;
	s->hits++;
	s->total_ns += (uint64_t)d;
	s->stays[cpuidle_lab_stay_bin((uint64_t)d)]++;
}

/* The kernel's verdict on one stay of @d ns in @state of @states. */
static void judge(struct kstate_stats *s, const struct cpuidle_platform_state *states,
		  int nr_states, int state, int64_t d)
{
	if (state >= nr_states)
		return;
	if (d < states[state].target_residency_ns) {
		if (state > 0)
			s->above++;
	} else if (state + 1 < nr_states && d > states[state].exit_latency_ns &&
		   d - states[state].exit_latency_ns >= states[state + 1].target_residency_ns) {
		s->below++;
	}
}

/*
 * The clusters' overlap: which CPUs each has (from their first event on)
 * and how many of them are idle in each state now (@idle: in all).
 *
 * While every CPU of a cluster is idle nothing in it changes (a CPU that
 * changes state leaves its state first, which ends the period), so the
 * time it adds to together_ns is counted when the period ends, as the
 * time that passed since it began (@now_since: @now then), in the states
 * at or below its shallowest: the sum of what counting it at each event
 * would add, without a look at the clusters at each.
 */
struct overlap {
	const struct cpuidle_platform *p;
	const struct trace_info *topo;	/* the trace's topology, if it has one */
	unsigned int members[TRACE_MAX_CLUSTERS];
	unsigned int in_state[TRACE_MAX_CLUSTERS][TRACE_MAX_STATES];
	unsigned int idle[TRACE_MAX_CLUSTERS];
	bool all_idle[TRACE_MAX_CLUSTERS];	/* a period of every CPU idle is on */
	int64_t since[TRACE_MAX_CLUSTERS];
	int64_t now_since[TRACE_MAX_CLUSTERS];
	int shallowest[TRACE_MAX_CLUSTERS];
	int64_t now;
	bool started;
};

/* @cpu's cluster: the trace's topology, else the platform's, else 0; -1: none */
static int cluster_of(const struct overlap *o, unsigned int cpu)
{
	int c;

	if (o->topo && o->topo->nr_clusters)
		c = cpu < TRACE_MAX_CPUS ? o->topo->cluster_of[cpu] : -1;
	else
		c = o->p ? cpuidle_platform_cluster_of(o->p, cpu) : 0;
	return c >= 0 && c < TRACE_MAX_CLUSTERS ? c : -1;
}

static void cluster_check(struct overlap *o, struct kstats *ks, int c, int64_t ts);

/* @cpu takes part in its cluster from @ts on (until its first idle event, as running) */
static void cluster_join(struct overlap *o, struct kstats *ks, unsigned int cpu, int64_t ts)
{
	int c = cluster_of(o, cpu);

	if (cpu >= TRACE_MAX_CPUS)
		return;
	ks->cluster_member[cpu / 64] |= 1ull << (cpu % 64);
	if (c < 0 || c >= ks->nr_clusters)
		return;
	o->members[c]++;
	ks->cluster_cpus[c][cpu / 64] |= 1ull << (cpu % 64);
	cluster_check(o, ks, c, ts);
}

/*
 * The clusters, named: the trace's topology, else @p's, else the machine.
 * Where the trace's header says how many CPUs there are, every one of them
 * takes part from the start; else each from its first event.
 */
static int clusters_init(struct kstats *ks, struct overlap *o, const struct trace_info *topo)
{
	unsigned int cpu;
	int c;

	if (topo && topo->nr_clusters) {
		o->topo = topo;
		ks->nr_clusters = topo->nr_clusters;
		for (c = 0; c < ks->nr_clusters; c++)
			snprintf(ks->cluster_names[c], sizeof(ks->cluster_names[c]), "cluster%c",
				 'A' + c);
	} else if (o->p) {
		ks->nr_clusters = o->p->nr_clusters < TRACE_MAX_CLUSTERS ? o->p->nr_clusters :
			TRACE_MAX_CLUSTERS;
		for (c = 0; c < ks->nr_clusters; c++)
			snprintf(ks->cluster_names[c], sizeof(ks->cluster_names[c]), "%s",
				 o->p->clusters[c].name);
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
		cluster_join(o, ks, cpu, 0);
	return 0;
}

/* the time cluster @c's period of every CPU idle lasted, counted in the states it covers */
static void together(struct overlap *o, struct kstats *ks, int c)
{
	if (c >= ks->nr_clusters)
		return;
	for (int s = 0; s <= o->shallowest[c]; s++)
		ks->together_ns[s] += (uint64_t)(o->now - o->now_since[c]);
}

/*
 * After a CPU of cluster @c changed at @ts: a period of every CPU idle
 * begins, or the one going on ends and is tallied in its shallowest state.
 */
static void cluster_check(struct overlap *o, struct kstats *ks, int c, int64_t ts)
{
	bool all;
	int s;

	if (c < 0)
		return;
	all = o->members[c] && o->idle[c] == o->members[c];
	if (all == o->all_idle[c])
		return;
	if (all) {
		for (s = 0; !o->in_state[c][s]; s++)
			;	/* (idle: some state holds a CPU) */
		o->since[c] = ts;
		o->shallowest[c] = s;
		o->now_since[c] = o->now;
	} else {
		if (ts > o->since[c] && ks->cluster)
			tally(kstats_cluster_get(ks, c, o->shallowest[c]), ts - o->since[c]);
		together(o, ks, c);
	}
	o->all_idle[c] = all;
}

/* time passes to @ts (never back) */
static inline void overlap_advance(struct overlap *o, int64_t ts)
{
	if (!o->started || ts > o->now)
		o->now = ts;
	o->started = true;
}

/* the trace ended: the periods still on end with it */
static void overlap_finish(struct overlap *o, struct kstats *ks)
{
	for (int c = 0; c < ks->nr_clusters; c++)
		if (o->all_idle[c])
			together(o, ks, c);
}

/* @cpu (of cluster @c, -1: none) leaves or enters state @s */
static void overlap_move(struct overlap *o, int c, int s, int delta)
{
	if (c >= 0 && s >= 0 && s < TRACE_MAX_STATES) {
		o->in_state[c][s] += (unsigned int)delta;
		o->idle[c] += (unsigned int)delta;
	}
}

int kstats_from_trace(const char *path, const struct cpuidle_platform *p,
		      struct kstats *out, struct trace_info *info, char *err, size_t errlen)
{
	const struct cpuidle_platform_state *states = p ? p->states : NULL;
	int nr_states = p ? p->state_count : 0;
	struct overlap *o = calloc(1, sizeof(*o));
	uint64_t own[TRACE_MAX_CPUS / 64] = { 0 }, idle[TRACE_MAX_CPUS / 64] = { 0 };
	struct cpu_track *track = NULL;
	struct trace_reader *r;
	const struct trace_event *ev, *batch[KSTATS_BATCH];
	int ret, nb = 0, bi = 0;
	bool backstep = false;
	unsigned int cpu;

	memset(out, 0, sizeof(*out));
	if (!o) {
		snprintf(err, errlen, "%s: %s", path, strerror(ENOMEM));
		return -ENOMEM;
	}
	o->p = p;
	ret = trace_open(path, &r, err, errlen);
	if (ret) {
		free(o);
		return ret;
	}
	ret = clusters_init(out, o, trace_info(r));
	if (ret) {
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		free(o);
		trace_close(r);
		return ret;
	}
	for (;;) {
		struct cpu_track *t;

		if (bi == nb) {
			ret = nb = trace_next_batch(r, batch, KSTATS_BATCH);
			bi = 0;
			if (nb <= 0)
				break;
		}
		ev = batch[bi++];

		if (!(out->cluster_member[ev->cpu / 64] >> (ev->cpu % 64) & 1))
			cluster_join(o, out, ev->cpu, ev->ts_ns);
		own[ev->cpu / 64] |= 1ull << (ev->cpu % 64);
		overlap_advance(o, ev->ts_ns);
		if (ev->type == TEV_LOST) {
			/* the entry in progress may have lost its exit */
			if (!out->lost_gaps++) {
				out->lost_cpu = ev->cpu;
				out->lost_line = ev->line;
				out->lost_n = ev->value;
			}
			if (ev->value > 0)
				out->lost_events += (uint64_t)ev->value;
			if (ev->cpu < out->nr_cpus) {
				if (track[ev->cpu].entry_ns >= 0) {
					overlap_move(o, track[ev->cpu].cluster,
						     track[ev->cpu].state, -1);
					cluster_check(o, out, track[ev->cpu].cluster, ev->ts_ns);
				}
				track[ev->cpu].entry_ns = -1;
			}
			/*
			 * As in reconstruction: a marker with a time of its own
			 * (perf's) moves the newest on, never back, once the trace
			 * has begun; one older than that is not an error.
			 */
			if (out->events && ev->ts_ns > out->last_ns)
				out->last_ns = ev->ts_ns;
			continue;
		}
		if (!out->events++) {
			out->first_ns = out->last_ns = ev->ts_ns;
		} else if (ev->ts_ns > out->last_ns) {
			out->last_ns = ev->ts_ns;
		} else if (ev->ts_ns < out->last_ns - IV_REORDER_WINDOW_NS) {
			/* what reconstruction refuses (iv_builder_feed()), refused */
			char msg[320];

			iv_describe_backstep(msg, sizeof(msg), out->last_ns - ev->ts_ns, ev->cpu);
			snprintf(err, errlen, "%s%s%llu: %s", path,
				 trace_is_binary(r) ? ": byte " : ":", (unsigned long long)ev->line, msg);
			backstep = true;
			ret = -EINVAL;
			break;
		} else if (ev->ts_ns < out->first_ns) {
			out->first_ns = ev->ts_ns;
		}
		if (ev->type == TEV_HALT_POLL_NS) {
			out->windows++;
			out->windows_widened += ev->value > ev->old;
			out->window_sum_ns += (double)ev->value;
			continue;
		}
		if (ev->type != TEV_IDLE_ENTER && ev->type != TEV_IDLE_EXIT &&
		    ev->type != TEV_IDLE_MISS)
			continue;
		if (ev->type != TEV_IDLE_MISS)
			idle[ev->cpu / 64] |= 1ull << (ev->cpu % 64);
		ret = grow(out, o, &track, ev->cpu);
		if (ret)
			break;
		t = &track[ev->cpu];
		switch (ev->type) {
		case TEV_IDLE_ENTER:
			if (t->entry_ns >= 0) {	/* its exit was not traced */
				overlap_move(o, t->cluster, t->state, -1);
				cluster_check(o, out, t->cluster, ev->ts_ns);
			}
			overlap_move(o, t->cluster, ev->state, 1);
			cluster_check(o, out, t->cluster, ev->ts_ns);
			t->entry_ns = ev->ts_ns;
			t->state = ev->state;
			if (ev->state + 1 > out->nr_states)
				out->nr_states = ev->state + 1;
			break;
		case TEV_IDLE_EXIT:
			if (t->entry_ns >= 0 && ev->ts_ns >= t->entry_ns) {
				int64_t d = ev->ts_ns - t->entry_ns;

				tally(kstats_get(out, ev->cpu, t->state), d);
				if (states && !out->misses_recorded)
					judge(kstats_get(out, ev->cpu, t->state), states, nr_states,
					      t->state, d);
			}
			if (t->entry_ns >= 0) {
				overlap_move(o, t->cluster, t->state, -1);
				cluster_check(o, out, t->cluster, ev->ts_ns);
			}
			t->entry_ns = -1;
			break;
		default:	/* TEV_IDLE_MISS */
			if (!out->misses_recorded) {
				/* the kernel's own verdicts replace any recomputed so far */
				unsigned int c;
				int s;

				for (c = 0; c < out->nr_cpus; c++)
					for (s = 0; s < TRACE_MAX_STATES; s++)
						kstats_get(out, c, s)->above =
							kstats_get(out, c, s)->below = 0;
				out->misses_recorded = true;
			}
			if (ev->below)
				kstats_get(out, ev->cpu, ev->state)->below++;
			else
				kstats_get(out, ev->cpu, ev->state)->above++;
			if (ev->state + 1 > out->nr_states)
				out->nr_states = ev->state + 1;
			break;
		}
	}
	if (ret < 0) {
		if (!backstep)
			snprintf(err, errlen, "%s", trace_error(r));
		kstats_free(out);
	} else {
		ret = 0;
		overlap_finish(o, out);
		for (cpu = 0; cpu < TRACE_MAX_CPUS; cpu++)
			if ((own[cpu / 64] >> (cpu % 64)) & 1 && !((idle[cpu / 64] >> (cpu % 64)) & 1)) {
				out->idle_less[cpu / 64] |= 1ull << (cpu % 64);
				out->nr_idle_less++;
			}
		out->misses_recomputed = !out->misses_recorded && states;
		if (info)
			*info = *trace_info(r);
	}
	free(track);
	free(o);
	trace_close(r);
	return ret;
}

void kstats_free(struct kstats *ks)
{
	free(ks->cpu);
	ks->cpu = NULL;
	free(ks->cluster);
	ks->cluster = NULL;
	ks->nr_cpus = 0;
}

/* @trace, a name from an idlestat header, names @plat (maybe cut at a space). */
static bool same_name(const char *trace, const char *plat)
{
	size_t n = strcspn(plat, " ");

	return !strcmp(trace, plat) || (strlen(trace) == n && !strncmp(trace, plat, n));
}

bool kstats_platform_mismatch(int nr_states, const struct trace_info *info,
			      const struct cpuidle_platform *p, char *msg, size_t len)
{
	int s;

	if (info && info->nr_states > 0) {
		int n = info->nr_states > nr_states ? info->nr_states : nr_states;

		if (n != p->state_count) {
			snprintf(msg, len, "the trace has %d idle state%s, platform %s has %d", n,
				 n == 1 ? "" : "s", p->name, p->state_count);
			return true;
		}
		for (s = 0; s < info->nr_states; s++)
			if (!same_name(info->state_names[s], p->states[s].name)) {
				snprintf(msg, len, "the trace's state %d is \"%s\", platform %s's "
					 "is \"%s\"", s, info->state_names[s], p->name,
					 p->states[s].name);
				return true;
			}
		return false;
	}
	if (nr_states > p->state_count) {
		snprintf(msg, len, "the trace enters %d idle state%s, platform %s has %d",
			 nr_states, nr_states == 1 ? "" : "s", p->name, p->state_count);
		return true;
	}
	return false;
}
