// SPDX-License-Identifier: MIT
/*
 * siblings.c - what a CPU's governor may see of its cluster in a replay
 * (cpuidle_system_ops.cluster_view, cpuidle_cluster_view()).
 *
 * Each CPU keeps its last idle entry as its siblings may see it: when it
 * began, until when it lasts, the state, the next timer and the governor's
 * published prediction then (replay_step()).  Asked at a CPU's now, a
 * sibling is idle if its interval is under replay and its last entry began
 * at or before now and its stay lasts past now; its stay's end itself is
 * never shown (the future).  That holds only if every entry of every
 * sibling up to now has been replayed and none after it, which is what the
 * interleaved replay does (interleave.c): where the cluster has two CPUs
 * or more replayed and domain states, its CPUs' entries are replayed in
 * time order.  Elsewhere a CPU's siblings cannot be shown as they were at
 * its now (the replay runs an interval whole, CPU after CPU), so the view
 * is refused, unless the CPU is the only one of its cluster replayed.
 */
#include <errno.h>
#include <string.h>

#include "lab_trace.h"
#include "replay_internal.h"

/* The cluster of @c, as an index into the platform's clusters. */
static int cluster_index(const struct replay_machine *m, const struct replay_cpu *c)
{
	return (int)(c->cluster - m->td.platform->clusters);
}

/* The energy model of cluster @cl, where every state has a power. */
static bool energy_of(const struct cpuidle_platform_cluster *cl,
		      struct cpuidle_cluster_energy *e)
{
	int s;

	memset(e, 0, sizeof(*e));
	e->idle_power_mw = cl->idle_power_mw;
	for (s = 0; s < CPUIDLE_STATE_MAX; s++)
		e->domain_power_mw[s] = -1;
	for (s = 0; s < cl->state_count; s++) {
		const struct cpuidle_platform_state *ps = &cl->states[s];

		if (ps->model_power_mw < 0)
			return false;
		e->state_power_mw[s] = ps->model_power_mw;
		e->transition_nj[s] = replay_transition_nj(ps);
		e->domain_power_mw[s] = ps->cluster_power_mw;
	}
	return true;
}

void replay_siblings_init(struct replay_machine *m, const struct cpuidle_lab_run *cfg)
{
	unsigned int count[CPUIDLE_PLATFORM_MAX_CLUSTERS] = { 0 };
	const struct cpuidle_platform *pf = m->td.platform;
	const struct iv_notes *notes = lab_trace_notes(cfg->trace);
	unsigned int i;
	int cl;

	for (i = 0; i < m->nr_cpus; i++) {
		struct replay_cpu *c = &m->cpus[i];

		c->seen_entered = CPUIDLE_TIME_UNKNOWN;
		c->known = INT64_MIN;
		/* a CPU the trace shows never idle runs throughout: no one waits for it */
		if (notes && (notes->idle_less[i / 64] >> (i % 64) & 1)) {
			c->known = INT64_MAX;
			continue;
		}
		count[cluster_index(m, c)]++;
	}
	for (cl = 0; cl < pf->nr_clusters; cl++) {
		int fallback = cpuidle_platform_domain_fallback(&pf->clusters[cl]);
		bool domain = fallback >= 0 && fallback < pf->clusters[cl].state_count - 1;

		m->shared[cl] = count[cl] >= 2;
		m->energy_known[cl] = energy_of(&pf->clusters[cl], &m->energy[cl]);
		/* the oracle sees the future instead (lookahead.c) */
		if (m->shared[cl] && domain && strcmp(cfg->governor, CPUIDLE_LAB_ORACLE))
			m->interleaved = true;
	}
}

/* What @s shows at @now_ns: idle since its interval began, or running. */
static void describe(const struct replay_cpu *s, int64_t now_ns, struct cpuidle_sibling *out)
{
	out->cpu = s->dev.cpu;
	out->idle = s->seen_entered != CPUIDLE_TIME_UNKNOWN && s->seen_entered <= now_ns &&
		    now_ns < s->seen_end;
	if (!out->idle) {
		out->state = -1;
		out->idle_since_ns = out->entered_ns = CPUIDLE_TIME_UNKNOWN;
		out->timer_ns = out->expected_ns = CPUIDLE_TIME_UNKNOWN;
		return;
	}
	out->state = s->seen_state;
	out->idle_since_ns = s->iv.start_ns;
	out->entered_ns = s->seen_entered;
	out->timer_ns = s->seen_timer;
	out->expected_ns = s->seen_expected;
}

int replay_cluster_view(struct cpuidle_device *dev, struct cpuidle_cluster_view *view,
			struct cpuidle_sibling *sib, unsigned int max, void *ctx)
{
	struct replay_machine *m = ctx;
	const struct replay_cpu *c = dev->embed_data;
	int cl = cluster_index(m, c), n = 0;
	unsigned int i;

	if (m->shared[cl] && !m->interleaved)
		return -EOPNOTSUPP;	/* its siblings are not replayed at its now */
	view->now_ns = (int64_t)c->clock;
	view->energy = m->energy_known[cl] ? &m->energy[cl] : NULL;
	for (i = 0; i < m->nr_cpus; i++) {
		const struct replay_cpu *s = &m->cpus[i];

		if (s == c || s->cluster != c->cluster)
			continue;
		if ((unsigned int)n < max)
			describe(s, view->now_ns, &sib[n]);
		n++;
	}
	return n;
}
