// SPDX-License-Identifier: MIT
/*
 * timer_governor.c - a governor written outside libcpuidle, against its
 * public headers alone: the README's example.
 *
 * DOC: timer
 *
 * Trust the next timer: pick the deepest enabled state whose target
 * residency fits before the next timer event and whose exit latency the
 * CPU latency QoS allows; the shallowest such state when even it does not
 * fit; state 0, the last resort, only when no enabled state meets the QoS
 * limit (a disabled state is never chosen otherwise: `cpuidle conformance`
 * checks that).  Keep the tick when the timer is closer than a tick, as
 * there is nothing to gain from stopping it.  No history, so no per-CPU
 * data and no reflect().
 */
#include <libcpuidle.h>

#include "timer_governor.h"

static int timer_select(struct cpuidle_device *dev, bool *stop_tick)
{
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int64_t delta_tick, sleep = cpuidle_get_sleep_length(dev, &delta_tick);
	int i, idx = -1;

	for (i = 0; i < dev->state_count; i++) {
		const struct cpuidle_state *s = &dev->states[i];

		if (cpuidle_is_disabled(dev, i) || s->exit_latency_ns > latency_req)
			continue;
		if (idx >= 0 && s->target_residency_ns > sleep)
			break;
		idx = i;	/* the first one allowed even if it does not fit */
	}
	if (sleep < cpuidle_dev_tick_nsec(dev))
		*stop_tick = false;
	return idx < 0 ? 0 : idx;	/* none allowed: state 0, the last resort */
}

const struct cpuidle_governor timer_governor = {
	.name = "timer",
	.rating = 30,	/* above menu's 20: wins when registered */
	.select = timer_select,
};
