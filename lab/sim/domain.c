// SPDX-License-Identifier: MIT
/*
 * domain.c - domain (cluster, package) states across the CPUs of a cluster.
 *
 * Each CPU of a cluster with domain states reports its stays as segments.
 * A cluster is swept forward to the time up to which every one of its CPUs
 * is known: the segments of its CPUs are merged in time order (a stay's
 * start and end are the events; at equal times ends go first, so a CPU
 * waking as another sleeps never makes the cluster look all asleep), while
 * a count of CPUs inside a domain request tells whether the cluster is in a
 * domain state.  A running total of that coupled time, read at a stay's
 * start and end, gives how long the stay's domain request took effect.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "domain.h"

/*
 * Segments a cluster may hold for CPUs that report while one stays
 * unknown: 64 Ki x 32 bytes = 2 MiB.  A CPU idle or busy for a long stretch
 * is normal (a second of idle on a quiet CPU while its sibling makes
 * thousands of stays); a CPU that never reports at all (always running, or
 * offline) must not make memory grow with the trace.
 */
#define DOMAIN_MAX_BUFFERED	(64 * 1024)

struct dom_seg {
	int64_t start, end, time;
	int state;
};

struct dom_cpu {
	struct dom_seg *seg;	/* ring of cap entries (a power of two) */
	size_t cap, head, len;
	int64_t known;		/* timeline known up to here */
	int64_t last_end;	/* end of the last queued segment */
	uint64_t coupled_at_start;
	bool started;		/* the head segment's start has been swept */
	bool in_domain;
	int cluster;
};

struct dom_cluster {
	const struct cpuidle_platform_cluster *cl;
	unsigned int *cpus;	/* its CPUs below nr_cpus */
	unsigned int nr;
	bool has_domain;
	bool sweeps;		/* has_domain, or the overlap is measured */
	bool overlap;
	int fallback;
	unsigned int in_domain;	/* CPUs inside a domain request now */
	unsigned int asked[CPUIDLE_STATE_MAX];	/* ... by state asked for */
	unsigned int in_state[CPUIDLE_STATE_MAX];	/* CPUs in a stay, by state */
	uint64_t together_ns[CPUIDLE_STATE_MAX];	/* all its CPUs that deep at once */
	int64_t now;		/* swept up to here */
	uint64_t coupled_ns;	/* time all its CPUs were in domain states */
	int64_t lo, hi;		/* the replayed span */
	size_t buffered;
	double cpu_correction_mj;
	double domain_energy_mj;
};

struct domain_tracker {
	const struct cpuidle_platform *pf;
	struct dom_cpu *cpus;
	unsigned int nr_cpus;
	struct dom_cluster clusters[CPUIDLE_PLATFORM_MAX_CLUSTERS];
	int nr_clusters;
	uint64_t effective_ns[CPUIDLE_STATE_MAX];
	uint64_t forced;
	size_t held_max;	/* the most segments a cluster held */
};

static bool cluster_coupled(const struct dom_cluster *c)
{
	return c->has_domain && c->nr && c->in_domain == c->nr;
}

/* Let time pass on cluster @c up to @to, charging a domain state if in one. */
static void cluster_advance(struct dom_cluster *c, int64_t to)
{
	unsigned int deep = 0;
	int s;

	if (to <= c->now)
		return;
	if (c->overlap && c->nr)
		for (s = CPUIDLE_STATE_MAX - 1; s >= 0; s--) {
			deep += c->in_state[s];
			if (deep == c->nr)
				c->together_ns[s] += (uint64_t)(to - c->now);
		}
	if (cluster_coupled(c)) {
		uint64_t span = (uint64_t)(to - c->now);

		for (s = 0; s < CPUIDLE_STATE_MAX && !c->asked[s]; s++)
			;
		/* the cluster is in the shallowest domain state any CPU asked for */
		c->coupled_ns += span;
		c->domain_energy_mj += (double)c->cl->states[s].cluster_power_mw * (double)span * 1e-9;
	}
	c->now = to;
}

static void segment_begin(struct dom_cluster *c, struct dom_cpu *p, const struct dom_seg *sg)
{
	p->started = true;
	c->in_state[sg->state]++;
	if (!cpuidle_platform_state_is_domain(&c->cl->states[sg->state]))
		return;
	p->in_domain = true;
	p->coupled_at_start = c->coupled_ns;
	c->in_domain++;
	c->asked[sg->state]++;
}

/* A stay ends: charge what its domain request was really worth. */
static void segment_end(struct domain_tracker *dt, struct dom_cluster *c, struct dom_cpu *p,
			const struct dom_seg *sg)
{
	const struct cpuidle_platform_state *asked = &c->cl->states[sg->state];
	const struct cpuidle_platform_state *fb = &c->cl->states[c->fallback];
	uint64_t took;

	p->started = false;
	p->head = (p->head + 1) & (p->cap - 1);
	p->len--;
	c->buffered--;
	c->in_state[sg->state]--;
	if (!p->in_domain)
		return;
	p->in_domain = false;
	c->in_domain--;
	c->asked[sg->state]--;
	took = c->coupled_ns - p->coupled_at_start;
	dt->effective_ns[sg->state] += took;
	if (asked->model_power_mw >= 0 && fb->model_power_mw >= 0) {
		int64_t fell = sg->time - (int64_t)took;

		if (fell > 0)	/* mW x ns = 1e-9 mJ */
			c->cpu_correction_mj += (double)(fb->model_power_mw - asked->model_power_mw) *
						(double)fell * 1e-9;
		if (!took)	/* nJ = 1e-6 mJ */
			c->cpu_correction_mj += (double)(fb->entry_energy_nj + fb->exit_energy_nj -
						 asked->entry_energy_nj - asked->exit_energy_nj) * 1e-6;
	}
}

/* Merge the segments of @c's CPUs in time order up to @to. */
static void cluster_sweep(struct domain_tracker *dt, struct dom_cluster *c, int64_t to)
{
	for (;;) {
		struct dom_cpu *best = NULL;
		int64_t best_t = 0;
		bool best_end = false;
		unsigned int i;

		for (i = 0; i < c->nr; i++) {
			struct dom_cpu *p = &dt->cpus[c->cpus[i]];
			const struct dom_seg *sg;
			int64_t t;

			if (!p->len)
				continue;
			sg = &p->seg[p->head];
			t = p->started ? sg->end : sg->start;
			if (!best || t < best_t || (t == best_t && p->started && !best_end)) {
				best = p;
				best_t = t;
				best_end = p->started;
			}
		}
		if (!best || best_t > to)
			break;
		cluster_advance(c, best_t);
		if (best_end)
			segment_end(dt, c, best, &best->seg[best->head]);
		else
			segment_begin(c, best, &best->seg[best->head]);
	}
	if (to != INT64_MAX)
		cluster_advance(c, to);
}

static int64_t cluster_frontier(const struct domain_tracker *dt, const struct dom_cluster *c)
{
	int64_t f = INT64_MAX;
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		if (dt->cpus[c->cpus[i]].known < f)
			f = dt->cpus[c->cpus[i]].known;
	return f;
}

/*
 * Too much is held for a CPU that does not report: take it to be running up
 * to where the reporting CPUs are known, and sweep there.  A reporting CPU
 * is known up to its last segment's end, inside an interval too: one long
 * interval of short stays (polls cut by their time limit) is swept as it
 * goes, not held whole.
 */
static void cluster_force(struct domain_tracker *dt, struct dom_cluster *c)
{
	int64_t f = INT64_MAX;
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		struct dom_cpu *p = &dt->cpus[c->cpus[i]];

		if (!p->len)
			continue;
		if (p->known < p->last_end)
			p->known = p->last_end;
		if (p->known < f)
			f = p->known;
	}
	if (f == INT64_MAX)
		return;
	for (i = 0; i < c->nr; i++) {
		struct dom_cpu *p = &dt->cpus[c->cpus[i]];

		if (!p->len && p->known < f)
			p->known = f;
	}
	dt->forced++;
	cluster_sweep(dt, c, f);
}

int domain_tracker_create(const struct cpuidle_platform *pf, unsigned int nr_cpus,
			  bool overlap, struct domain_tracker **out)
{
	struct domain_tracker *dt;
	bool needed = overlap;
	unsigned int cpu;
	int i, s;

	if (!pf || !out)
		return -EINVAL;
	*out = NULL;
	for (i = 0; i < pf->nr_clusters; i++) {
		const struct cpuidle_platform_cluster *cl = &pf->clusters[i];

		needed |= cl->idle_power_mw > 0;
		for (s = 0; s < cl->state_count; s++)
			needed |= cpuidle_platform_state_is_domain(&cl->states[s]);
	}
	if (!needed || !nr_cpus)
		return 0;
	dt = calloc(1, sizeof(*dt));
	if (!dt)
		return -ENOMEM;
	dt->pf = pf;
	dt->nr_cpus = nr_cpus;
	dt->nr_clusters = pf->nr_clusters;
	dt->cpus = calloc(nr_cpus, sizeof(*dt->cpus));
	if (!dt->cpus)
		goto nomem;
	for (i = 0; i < pf->nr_clusters; i++) {
		struct dom_cluster *c = &dt->clusters[i];

		c->cl = &pf->clusters[i];
		c->fallback = cpuidle_platform_domain_fallback(c->cl);
		c->has_domain = c->fallback >= 0 && c->fallback < c->cl->state_count - 1;
		c->overlap = overlap;
		c->sweeps = c->has_domain || overlap;
		c->now = INT64_MIN;
		c->lo = INT64_MAX;
		c->hi = INT64_MIN;
		c->cpus = calloc(nr_cpus, sizeof(*c->cpus));
		if (!c->cpus)
			goto nomem;
	}
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		int cl = cpuidle_platform_cluster_of(pf, cpu);

		dt->cpus[cpu].cluster = cl;
		dt->cpus[cpu].known = INT64_MIN;
		dt->cpus[cpu].last_end = INT64_MIN;
		if (cl >= 0)
			dt->clusters[cl].cpus[dt->clusters[cl].nr++] = cpu;
	}
	*out = dt;
	return 0;
nomem:
	domain_tracker_destroy(dt);
	return -ENOMEM;
}

void domain_tracker_destroy(struct domain_tracker *dt)
{
	unsigned int cpu;
	int i;

	if (!dt)
		return;
	if (dt->cpus)
		for (cpu = 0; cpu < dt->nr_cpus; cpu++)
			free(dt->cpus[cpu].seg);
	for (i = 0; i < dt->nr_clusters; i++)
		free(dt->clusters[i].cpus);
	free(dt->cpus);
	free(dt);
}

bool domain_tracker_wants_segments(const struct domain_tracker *dt, unsigned int cpu)
{
	return dt && cpu < dt->nr_cpus && dt->cpus[cpu].cluster >= 0 &&
	       dt->clusters[dt->cpus[cpu].cluster].sweeps;
}

bool domain_tracker_has_domain(const struct domain_tracker *dt, unsigned int cpu)
{
	return dt && cpu < dt->nr_cpus && dt->cpus[cpu].cluster >= 0 &&
	       dt->clusters[dt->cpus[cpu].cluster].has_domain;
}

static int cpu_grow(struct dom_cpu *p)
{
	size_t cap = p->cap ? p->cap * 2 : 64, i;
	struct dom_seg *seg = malloc(cap * sizeof(*seg));

	if (!seg)
		return -ENOMEM;
	for (i = 0; i < p->len; i++)
		seg[i] = p->seg[(p->head + i) & (p->cap - 1)];
	free(p->seg);
	p->seg = seg;
	p->cap = cap;
	p->head = 0;
	return 0;
}

int domain_segment(struct domain_tracker *dt, unsigned int cpu, int64_t start_ns,
		   int64_t present_ns, int64_t time_ns, int state)
{
	struct dom_cpu *p = &dt->cpus[cpu];
	struct dom_cluster *c = &dt->clusters[p->cluster];
	struct dom_seg *sg;

	if (p->len == p->cap && cpu_grow(p))
		return -ENOMEM;
	/* never before this CPU's last stay, nor before the cluster's sweep */
	if (start_ns < p->last_end)
		start_ns = p->last_end;
	if (start_ns < c->now)
		start_ns = c->now;
	sg = &p->seg[(p->head + p->len) & (p->cap - 1)];
	sg->start = start_ns;
	sg->end = start_ns + (present_ns > 0 ? present_ns : 0);
	sg->time = time_ns;
	sg->state = state;
	p->len++;
	p->last_end = sg->end;
	if (sg->end > c->hi)
		c->hi = sg->end;
	if (++c->buffered > dt->held_max)
		dt->held_max = c->buffered;
	if (c->buffered > DOMAIN_MAX_BUFFERED)
		cluster_force(dt, c);
	return 0;
}

void domain_interval_done(struct domain_tracker *dt, unsigned int cpu, int64_t start_ns,
			  int64_t until_ns, bool replayed)
{
	struct dom_cpu *p;
	struct dom_cluster *c;
	int64_t old;

	if (!dt || cpu >= dt->nr_cpus || dt->cpus[cpu].cluster < 0)
		return;
	p = &dt->cpus[cpu];
	c = &dt->clusters[p->cluster];
	if (replayed) {
		if (start_ns < c->lo)
			c->lo = start_ns;
		if (until_ns > c->hi)
			c->hi = until_ns;
	}
	if (until_ns < p->last_end)
		until_ns = p->last_end;
	if (until_ns <= p->known)
		return;
	old = p->known;
	p->known = until_ns;
	if (c->sweeps) {
		int64_t f = cluster_frontier(dt, c);

		if (f > old)	/* this CPU held the frontier back: sweep */
			cluster_sweep(dt, c, f);
	}
}

void domain_finish(struct domain_tracker *dt, struct domain_totals *out)
{
	int i, s;

	memset(out, 0, sizeof(*out));
	if (!dt)
		return;
	for (i = 0; i < dt->nr_clusters; i++) {
		struct dom_cluster *c = &dt->clusters[i];
		double awake_ns;

		if (c->sweeps)
			cluster_sweep(dt, c, INT64_MAX);
		if (c->lo >= c->hi)
			continue;	/* none of its CPUs replayed */
		for (s = 0; s < CPUIDLE_STATE_MAX; s++)
			out->together_ns[s] += c->together_ns[s];
		awake_ns = (double)(c->hi - c->lo) - (double)c->coupled_ns;
		if (awake_ns < 0)
			awake_ns = 0;
		out->cluster_energy_mj += c->domain_energy_mj +
					  (double)c->cl->idle_power_mw * awake_ns * 1e-9;
		out->cpu_correction_mj += c->cpu_correction_mj;
		out->domain_ns += c->coupled_ns;
	}
	memcpy(out->effective_ns, dt->effective_ns, sizeof(out->effective_ns));
	out->forced = dt->forced;
	out->held_max = dt->held_max;
}
