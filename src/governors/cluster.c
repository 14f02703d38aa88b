// SPDX-License-Identifier: MIT
/*
 * cluster.c - the cluster governor: hazard's prediction, and domain
 * (cluster, package) states chosen for what the whole cluster saves.
 */

/**
 * DOC: cluster
 *
 * Problem.  A domain state (CPUIDLE_FLAG_DOMAIN: a cluster's or package's
 * power-down) takes effect only while every CPU of the cluster is in one;
 * a CPU that asks for it while a sibling runs is effectively in the
 * deepest ordinary state.  What a domain state saves is the cluster's
 * shared power (caches, interconnect: on the bundled Skylake 2 W against
 * at most 0.6 W for a core), and it is saved only while the CPUs idle
 * *together*.  hazard prices every state by the CPU's own expected stay
 * against its target residency, which knows nothing of either: it keeps a
 * CPU out of the package state for a 300 us stay while its sibling has
 * slept for a second, and asks for it while the sibling is about to wake.
 *
 * Inputs.  Only what a kernel governor could know at select(), through
 * cpuidle_cluster_view(): for each other CPU of the cluster whether it is
 * idle now, in which state, since when, its next timer and what its own
 * governor expected at its entry (this governor publishes its own
 * expected stay, cpuidle_publish_expected_stay(), at every selection);
 * and the cluster's energy model where the platform declares one (its
 * shared power in and out of each domain state, each state's power and
 * entry and exit energy).  Nothing of the future: a sibling that will go
 * idle in a microsecond is running now.
 *
 * Name.  It is hazard with the cluster in view, named for what it adds,
 * as teo is for the timer events it adds to menu's; short enough for the
 * governor columns of the lab's tables (8 characters).
 *
 * Rule, where the CPU's table has domain states and the embedding gives a
 * view (elsewhere it is hazard, decision for decision):
 *
 * 1. hazard's choice idx and expected stay r (its survival curve,
 *    conditioned on the time already idle, integrated to the horizon).
 *    The per-CPU alternative k: idx if that is an ordinary state, else
 *    the deepest usable ordinary state, the fallback f (what a domain
 *    request that does not take effect amounts to).
 * 2. Some sibling running, or idle in an ordinary state: a domain request
 *    cannot take effect now.  If k is f (the stay is long enough for the
 *    deepest ordinary state anyway) the request costs nothing more unless
 *    the cluster couples, and only a CPU already in a domain state lets a
 *    sibling that goes idle later complete the cluster: so it is offered,
 *    as deep as a coupled time r pays for (with an energy model; without
 *    one, hazard's choice stands).  A shorter stay keeps hazard's choice.
 * 3. Every sibling idle in a domain state (this CPU completes the
 *    cluster), or no sibling (a CPU alone in its cluster couples for its
 *    whole stay): the state of least expected energy for a coupled time
 *    C = r.  A domain state d costs its power for C, the fallback's for
 *    the rest, its entry and exit and every sibling's extra entry and exit
 *    over the fallback's (which the coupling sets off), less the
 *    cluster's saving over C: its shared power outside domain states less
 *    its power in the shallowest domain state asked for (d or a
 *    sibling's).  Against it, k for r.  Without an energy model: the
 *    deepest domain state whose target residency is at most C, else k,
 *    as the kernel's genpd CPU-domain governor holds a domain state to
 *    the time until the domain's next wake-up (drivers/pmdomain/
 *    governor.c, cpu_power_down_ok()).
 * 4. Why C = r and not the least of r and the siblings' expected remaining
 *    stays (their published prediction less the time since, or as long
 *    again as they have idled once they outlived it, never past their
 *    timer): a CPU that completes the cluster and stays in the domain
 *    state after a sibling wakes couples again with that sibling's next
 *    stays, which a prediction of its current one does not see.  Refusing
 *    for a sibling that is about to wake cost more than it saved on the
 *    shared traces: replayed on skylake, C = min recovered 7.0% of the gap
 *    to the oracle (energy summed over the traces where both CPUs idle),
 *    C = r 12.2% (doc/cluster.md).  The tunable siblings_remaining (off)
 *    selects the other.
 * 5. The tick: stopped for a domain state, or a state deeper than
 *    hazard's (a tick would cut the stay that pays for it); kept where a
 *    state shallower than hazard's was taken for the siblings' sake, so
 *    that the CPU selects again within a tick; hazard's verdict otherwise.
 *
 * Tunables (module/cluster/parameters/NAME): hazard's five, this
 * governor's own copies (hazard.c's DOC: the same defaults and ranges),
 * read by the hazard it is built on; siblings_remaining (N, step 4); offer
 * (Y): step 2's offer, off keeps hazard's choice there.  The offer and C = r
 * are design choices measured on the shared traces; scripts/governor-results
 * --cv chooses the copies and offer again for each workload without it.
 *
 * Where the idea comes from: deciding a domain state from the domain's
 * CPUs together is genpd's (cpu_power_down_ok(): the earliest next timer
 * of the domain's CPUs against each domain state's residency, when the
 * last CPU goes idle); pricing the coupled time with the cluster's energy
 * model, counting the siblings' entry and exit that a coupling sets off,
 * and offering the domain state from a CPU whose stay pays for the
 * deepest ordinary state anyway, are this governor's own.
 */
#include <stddef.h>
#include <string.h>

#include "gov.h"
#include "hazard.h"

/*
 * Siblings looked at: a cluster of more is taken as never all idle (a
 * CPU it could not see may run).  Every bundled platform's clusters have
 * at most 8 CPUs; 64 is a server's core complex with room to spare, 3 KiB
 * of stack.
 */
#define MAX_SIBLINGS	64

/* pJ (mW x ns) in one nJ */
#define PJ_PER_NJ	1000

/**
 * struct cluster_params - the governor's tunables (module/cluster/parameters/)
 * @hazard: hazard's five, its own copies (hazard.h; the same defaults and
 *	ranges): cluster is tuned apart from hazard
 * @siblings_remaining: price a completed cluster with the coupled time
 *	min(r, the siblings' expected remaining stays) instead of r (off: see
 *	the DOC, step 4)
 * @offer: offer the domain state while a sibling runs, from a CPU whose
 *	stay pays for the deepest ordinary state anyway (on: the DOC, step 2;
 *	off, hazard's choice stands there)
 *
 * The two switches are the rule's design choices that were measured on the
 * shared traces (doc/cluster.md), tunables so that scripts/governor-results
 * --cv can choose them, with hazard's five, without the workload measured.
 */
struct cluster_params {
	struct hazard_params hazard;
	bool siblings_remaining;
	bool offer;
};

_Static_assert(offsetof(struct cluster_params, hazard) == 0, "hazard's tunables first");

static const struct cpuidle_param cluster_params[] = {
	HAZARD_PARAMS(),
	{
		.name = "siblings_remaining",
		.type = CPUIDLE_PARAM_BOOL,
		.offset = offsetof(struct cluster_params, siblings_remaining),
		.def = 0,
		.min = 0,
		.max = 1,
	},
	{
		.name = "offer",
		.type = CPUIDLE_PARAM_BOOL,
		.offset = offsetof(struct cluster_params, offer),
		.def = 1,
		.min = 0,
		.max = 1,
	},
};

/*
 * The per-CPU data: hazard's first (it enables and learns it), then what
 * this governor works out once, when the CPU is enabled.
 * @domains: the CPU's table has a domain state (else it is hazard)
 */
struct cluster_device {
	unsigned char hazard[HAZARD_DEVICE_SIZE];
	bool domains;
};

struct domain_usable {
	int nr;
	int8_t idx[CPUIDLE_STATE_MAX];
};

/* The states usable now, as hazard takes them: enabled, within the QoS limit. */
static void domain_usable(const struct cpuidle_device *dev, struct domain_usable *u)
{
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int i;

	u->nr = 0;
	for (i = 0; i < dev->state_count; i++) {
		if (cpuidle_is_disabled(dev, i))
			continue;
		if (dev->states[i].exit_latency_ns > latency_req)
			break;
		u->idx[u->nr++] = (int8_t)i;
	}
}

static bool is_domain(const struct cpuidle_device *dev, int i)
{
	return dev->states[i].flags & CPUIDLE_FLAG_DOMAIN;
}

/* Whether sibling @s is idle in a domain state now. */
static bool sibling_in_domain(const struct cpuidle_device *dev, const struct cpuidle_sibling *s)
{
	return s->idle && s->state >= 0 && s->state < dev->state_count && is_domain(dev, s->state);
}

/* The expected remaining stay at @now of @s, idle in a domain state. */
static int64_t sibling_remaining(const struct cpuidle_sibling *s, int64_t now)
{
	int64_t r;

	if (s->expected_ns != CPUIDLE_TIME_UNKNOWN && s->expected_ns > now)
		r = s->expected_ns - now;
	else	/* outlived its prediction, or none: as long again as it has idled */
		r = now > s->idle_since_ns ? now - s->idle_since_ns : 0;
	if (s->timer_ns != CPUIDLE_TIME_INFINITE && s->timer_ns != CPUIDLE_TIME_UNKNOWN &&
	    s->timer_ns - now < r)
		r = s->timer_ns > now ? s->timer_ns - now : 0;
	return r;
}

/*
 * Expected energy (pJ) of a stay of @stay ns in state @i, @coupled of it
 * with the cluster in domain state @eff (the shallowest asked); @extra_pj:
 * the siblings' extra entry and exit that the coupling sets off.
 */
static int64_t stay_cost(const struct cpuidle_device *dev, const struct cpuidle_cluster_energy *e,
			 int i, int fallback, int64_t stay, int64_t coupled, int eff, int64_t extra_pj)
{
	int64_t cost;

	if (!is_domain(dev, i))
		return (int64_t)e->state_power_mw[i] * stay + e->transition_nj[i] * PJ_PER_NJ;
	if (coupled <= 0)	/* never takes effect: the fallback's */
		return (int64_t)e->state_power_mw[fallback] * stay +
		       e->transition_nj[fallback] * PJ_PER_NJ;
	cost = (int64_t)e->state_power_mw[i] * coupled +
	       (int64_t)e->state_power_mw[fallback] * (stay - coupled) +
	       e->transition_nj[i] * PJ_PER_NJ + extra_pj;
	return cost - (int64_t)(e->idle_power_mw - e->domain_power_mw[eff]) * coupled;
}

/*
 * Steps 2, 3: the cheapest of the usable domain states for a coupled time @c,
 * against the per-CPU choice @k for the stay @r; @sib_min: the shallowest
 * domain state a sibling asked for (CPUIDLE_STATE_MAX if none).
 */
static int domain_choice(const struct cpuidle_device *dev, const struct cpuidle_cluster_view *view,
			 const struct domain_usable *u, int k, int fallback, int64_t r, int64_t c,
			 int sib_min, int64_t extra_pj[CPUIDLE_STATE_MAX])
{
	const struct cpuidle_cluster_energy *e = view->energy;
	int64_t best_cost = 0;
	int j, best = k;

	if (!e) {	/* target residencies: the deepest domain state C pays for */
		for (j = u->nr - 1; j >= 0; j--)
			if (is_domain(dev, u->idx[j]) &&
			    dev->states[u->idx[j]].target_residency_ns <= c)
				return u->idx[j];
		return k;
	}
	best_cost = stay_cost(dev, e, k, fallback, r, 0, k, 0);
	for (j = 0; j < u->nr; j++) {
		int d = u->idx[j], eff = d < sib_min ? d : sib_min;
		int64_t cost;

		if (!is_domain(dev, d))
			continue;
		cost = stay_cost(dev, e, d, fallback, r, c, eff, extra_pj[d]);
		if (cost < best_cost) {
			best_cost = cost;
			best = d;
		}
	}
	return best;
}

static int cluster_select(struct cpuidle_device *dev, bool *stop_tick)
{
	const struct cluster_params *params;
	struct cpuidle_sibling sib[MAX_SIBLINGS];
	int64_t extra_pj[CPUIDLE_STATE_MAX];	/* set where it is used, below */
	struct cpuidle_cluster_view view;
	struct domain_usable u;
	uint64_t stay;
	int64_t r, c, sib_extra = 0;
	int idx, k, fallback = -1, n, i, sib_min = CPUIDLE_STATE_MAX, choice;
	bool all_in_domain = true;

	if (!((const struct cluster_device *)dev->governor_data)->domains)
		return hazard_select_expected(dev, stop_tick, NULL);
	idx = hazard_select_expected(dev, stop_tick, &stay);
	r = stay > INT64_MAX ? INT64_MAX : (int64_t)stay;
	cpuidle_publish_expected_stay(dev, r);
	n = cpuidle_cluster_view(dev, &view, sib, MAX_SIBLINGS);
	if (n < 0)
		return idx;	/* no view: hazard */

	/* 1: the fallback and the per-CPU alternative */
	domain_usable(dev, &u);
	for (i = 0; i < u.nr; i++)
		if (!is_domain(dev, u.idx[i]))
			fallback = u.idx[i];
	if (fallback < 0)
		return idx;	/* only domain states usable: nothing to weigh */
	k = is_domain(dev, idx) ? fallback : idx;

	/* the coupled time C, the shallowest domain state asked, the siblings' extra */
	c = r;
	for (i = 0; i < n && i < MAX_SIBLINGS; i++) {
		int64_t rem;

		if (!sibling_in_domain(dev, &sib[i])) {
			all_in_domain = false;
			break;
		}
		rem = sibling_remaining(&sib[i], view.now_ns);
		if (rem < c)
			c = rem;
		if (sib[i].state < sib_min)
			sib_min = sib[i].state;
		if (view.energy)
			sib_extra += (view.energy->transition_nj[sib[i].state] -
				      view.energy->transition_nj[fallback]) * PJ_PER_NJ;
	}
	if (n <= MAX_SIBLINGS && all_in_domain) {
		/* 3, 4: this CPU completes the cluster (or is alone in it) */
		for (i = 0; i < CPUIDLE_STATE_MAX; i++)
			extra_pj[i] = sib_extra;
		params = cpuidle_dev_gov_params(dev, &cluster_governor);
		if (!params || !cpuidle_param_load_bool(&params->siblings_remaining))
			c = r;
		choice = domain_choice(dev, &view, &u, k, fallback, r, c, sib_min, extra_pj);
	} else if (k == fallback && view.energy) {
		/* 2: offer the domain state, as deep as a coupled r pays for */
		params = cpuidle_dev_gov_params(dev, &cluster_governor);
		if (params && !cpuidle_param_load_bool(&params->offer))
			return idx;
		memset(extra_pj, 0, sizeof(extra_pj));	/* no sibling's to count */
		choice = domain_choice(dev, &view, &u, k, fallback, r, r, CPUIDLE_STATE_MAX,
				       extra_pj);
	} else {
		return idx;	/* 2: hazard's choice offers or not */
	}
	if (is_domain(dev, choice) || choice > idx)
		*stop_tick = true;	/* 5: a tick would cut a stay that pays for it */
	else if (choice < idx)
		*stop_tick = false;	/* 5: refused for the siblings: look again */
	return choice;
}

/*
 * hazard's per-CPU data is this governor's: hazard enables and learns it,
 * with this governor's copies of its tunables
 */
static int cluster_enable(struct cpuidle_device *dev)
{
	const struct cluster_params *params = cpuidle_dev_gov_params(dev, &cluster_governor);
	struct cluster_device *data = dev->governor_data;
	int i;

	data->domains = false;
	for (i = 0; i < dev->state_count; i++)
		data->domains |= is_domain(dev, i);
	return hazard_enable_with(dev, params ? &params->hazard : NULL);
}

/* rated below hazard (15) and menu (20): chosen by name, never by default */
const struct cpuidle_governor cluster_governor = {
	.name = "cluster",
	.rating = 14,
	.enable = cluster_enable,
	.select = cluster_select,
	.reflect = hazard_reflect,	/* it learns as hazard does */
	.governor_data_size = sizeof(struct cluster_device),
	.params = cluster_params,
	.nr_params = sizeof(cluster_params) / sizeof(cluster_params[0]),
	.params_size = sizeof(struct cluster_params),
};
