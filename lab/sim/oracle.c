// SPDX-License-Identifier: MIT
/*
 * oracle.c - the clairvoyant governor: the floor every governor is
 * measured against.
 */

/**
 * DOC: oracle
 *
 * The oracle knows how long the CPU will stay idle (the replay tells it the
 * idle time left in the interval) and picks, among the enabled states the
 * latency QoS allows, the one that spends the least energy over that time:
 * model power x (stay + exit latency) + entry and exit energy.  Where the platform gives no
 * power, it picks the deepest state whose target residency fits the stay,
 * which is what target residency means.
 *
 * A domain state (libcpuidle-platform(5)) takes effect only while every CPU
 * of the cluster is in one, so the oracle also knows its siblings' future:
 * over the stay, the time C they will all be idle (the replay holds the
 * interval back until it is known).  It prices a domain state as that
 * state's power for C and the fallback state's for the rest, the domain
 * state's entry and exit energy (the fallback's if C is 0), less its share
 * (one CPU's of the cluster's) of the cluster's saving over C: the shared
 * power the cluster would draw outside the domain state, minus what it
 * draws in it.  Sharing the saving is what makes the choice agree across
 * siblings, which see the same C; it is also how the bundled platforms
 * derive their entry and exit energies.  It always lets the tick stop,
 * since a tick could only wake it for nothing.  It has no history and no
 * per-CPU data.  Only the lab can run it: no real system knows the future.
 */
#include "replay_internal.h"

/*
 * Energy (mJ) of @time ns accounted to domain state @ps, @coupled of them
 * with every sibling idle too (the saving may make it negative).
 */
static double domain_cost(const struct cpuidle_device *dev, const struct cpuidle_platform_state *ps,
			  int64_t time, int64_t coupled, unsigned int siblings)
{
	const struct cpuidle_platform_cluster *cl = replay_cluster(dev);
	const struct cpuidle_platform_state *fb = &cl->states[cpuidle_platform_domain_fallback(cl)];
	double cost;

	/* mW x ns = 1e-9 mJ, nJ = 1e-6 mJ */
	cost = ((double)ps->model_power_mw * (double)coupled +
		(double)fb->model_power_mw * (double)(time - coupled)) * 1e-9;
	if (!coupled)
		return cost + (double)replay_transition_nj(fb) * 1e-6;
	return cost + (double)replay_transition_nj(ps) * 1e-6 -
	       (double)(cl->idle_power_mw - ps->cluster_power_mw) * (double)coupled * 1e-9 /
	       (double)siblings;
}

static int oracle_select(struct cpuidle_device *dev, bool *stop_tick)
{
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int64_t stay = replay_remaining_ns(dev);
	int64_t coupled = -1;
	unsigned int siblings = 1;
	double best_cost = 0;
	int i, best = -1;

	*stop_tick = true;
	for (i = 0; i < dev->state_count; i++) {
		const struct cpuidle_platform_state *ps = replay_state_model(dev, i);
		int power = replay_model_power_mw(ps);
		double cost;

		if (cpuidle_is_disabled(dev, i) || dev->states[i].exit_latency_ns > latency_req)
			continue;
		if (power < 0) {	/* no energy figures: residency decides */
			if (best < 0 || dev->states[i].target_residency_ns <= stay)
				best = i;
			continue;
		}
		/* the core accounts the exit latency as time in the state */
		if (cpuidle_platform_state_is_domain(ps)) {
			if (coupled < 0)
				coupled = replay_siblings_idle_ns(dev, stay, &siblings);
			cost = domain_cost(dev, ps, stay + dev->states[i].exit_latency_ns, coupled,
					   siblings);
		} else {
			cost = (double)power * (double)(stay + dev->states[i].exit_latency_ns) * 1e-9 +
			       (double)replay_transition_nj(ps) * 1e-6;
		}
		if (best < 0 || cost < best_cost) {
			best = i;
			best_cost = cost;
		}
	}
	return best < 0 ? 0 : best;
}

const struct cpuidle_governor replay_oracle_governor = {
	.name = CPUIDLE_LAB_ORACLE,
	.rating = 0,
	.select = oracle_select,
};
