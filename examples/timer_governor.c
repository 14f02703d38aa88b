// SPDX-License-Identifier: MIT
/*
 * timer_governor.c - a governor written outside libcpuidle, against its
 * public headers alone: the README's example.
 */

/**
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
 *
 * One tunable, as the kernel's governors have module parameters:
 * module/timer/parameters/margin_us, time a state must fit with to spare
 * before the timer (0, the default: just fit; at most 1 s), for a user who
 * does not trust timers to be that exact.
 */
#include <limits.h>
#include <stddef.h>

#include <libcpuidle.h>

#include "timer_governor.h"

/* the most margin_us may be: a second, far beyond any target residency */
#define TIMER_MARGIN_MAX_US	1000000u

struct timer_params {
	unsigned int margin_us;
};

static const struct cpuidle_param timer_params[] = {
	{
		.name = "margin_us",
		.type = CPUIDLE_PARAM_UINT,
		.offset = offsetof(struct timer_params, margin_us),
		.def = 0,
		.min = 0,
		.max = TIMER_MARGIN_MAX_US,
	},
};

static int timer_select(struct cpuidle_device *dev, bool *stop_tick)
{
	const struct timer_params *tp = cpuidle_dev_gov_params(dev, &timer_governor);
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int64_t delta_tick, sleep = cpuidle_get_sleep_length(dev, &delta_tick);
	int64_t margin = tp ? (int64_t)cpuidle_param_load_uint(&tp->margin_us) * 1000 : 0;
	int i, idx = -1;

	for (i = 0; i < dev->state_count; i++) {
		const struct cpuidle_state *s = &dev->states[i];

		if (cpuidle_is_disabled(dev, i) || s->exit_latency_ns > latency_req)
			continue;
		if (idx >= 0 && s->target_residency_ns + margin > sleep)
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
	.params = timer_params,
	.nr_params = sizeof(timer_params) / sizeof(timer_params[0]),
	.params_size = sizeof(struct timer_params),
};
