// SPDX-License-Identifier: MIT
/*
 * oracle.c - the clairvoyant governor: the floor every governor is
 * measured against.
 *
 * DOC: oracle
 *
 * The oracle knows how long the CPU will stay idle (the replay tells it the
 * idle time left in the interval) and picks, among the enabled states the
 * latency QoS allows, the one that spends the least energy over that time:
 * model power x (stay + exit latency) + entry and exit energy.  Where the platform gives no
 * power, it picks the deepest state whose target residency fits the stay,
 * which is what target residency means.  It always lets the tick stop,
 * since a tick could only wake it for nothing.  It has no history and no
 * per-CPU data.  Only the lab can run it: no real system knows the future.
 */
#include "replay_internal.h"

static int oracle_select(struct cpuidle_device *dev, bool *stop_tick)
{
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int64_t stay = replay_remaining_ns(dev);
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
		cost = (double)power * (double)(stay + dev->states[i].exit_latency_ns) * 1e-9 +
		       (double)replay_transition_nj(ps) * 1e-6;
		if (best < 0 || cost < best_cost) {
			best = i;
			best_cost = cost;
		}
	}
	return best < 0 ? 0 : best;
}

const struct cpuidle_governor replay_oracle_governor = {
	.name = REPLAY_ORACLE,
	.rating = 0,
	.select = oracle_select,
};
