// SPDX-License-Identifier: MIT
/*
 * ewma.c - a governor written out of tree, against the installed headers
 * alone, and the plugin entry point that lets the lab load it:
 *
 *	make			# ewma.so, replay_ewma, check_ewma, by pkg-config only
 *	cpuidle sim -g ./ewma.so,menu,teo TRACE
 *	./replay_ewma TRACE PLATFORM	# the same, through <cpuidle/lab.h>
 *	./check_ewma		# conformance_check(), as cpuidle conformance
 */

/**
 * DOC: ewma
 *
 * Predict the next idle period as an exponentially weighted moving average
 * of the CPU's past ones, capped by the next timer: a new residency counts
 * for 1/2^weight_shift of the average (weight_shift 3, an eighth, by
 * default: a period or so of memory of ~8 wake-ups, the kind of smoothing
 * the LWN article's menu governor applies to its correction factor).  Pick
 * the deepest enabled state whose target residency fits the prediction and
 * whose exit latency the QoS limit allows; keep the tick when the
 * prediction is shorter than one.
 *
 * One tunable, module/ewma/parameters/weight_shift (0 .. 8): 0 trusts only
 * the last residency.
 */
#include <stddef.h>

#include <libcpuidle.h>

#include "ewma.h"

/* the default weight: a new residency is an eighth of the average */
#define EWMA_WEIGHT_SHIFT	3
/* the most: 1/256, past which the average hardly moves in a trace */
#define EWMA_WEIGHT_SHIFT_MAX	8

struct ewma_params {
	unsigned int weight_shift;
};

struct ewma_cpu {
	int64_t avg_ns;		/* 0: no residency seen yet */
};

static const struct cpuidle_param ewma_params[] = {
	{
		.name = "weight_shift",
		.type = CPUIDLE_PARAM_UINT,
		.offset = offsetof(struct ewma_params, weight_shift),
		.def = EWMA_WEIGHT_SHIFT,
		.min = 0,
		.max = EWMA_WEIGHT_SHIFT_MAX,
	},
};

static int ewma_select(struct cpuidle_device *dev, bool *stop_tick)
{
	const struct ewma_cpu *c = dev->governor_data;
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int64_t delta_tick, sleep = cpuidle_get_sleep_length(dev, &delta_tick);
	int64_t predicted = c->avg_ns && c->avg_ns < sleep ? c->avg_ns : sleep;
	int i, idx = -1;

	for (i = 0; i < dev->state_count; i++) {
		const struct cpuidle_state *s = &dev->states[i];

		if (cpuidle_is_disabled(dev, i) || s->exit_latency_ns > latency_req)
			continue;
		if (idx >= 0 && s->target_residency_ns > predicted)
			break;
		idx = i;
	}
	if (predicted < cpuidle_dev_tick_nsec(dev))
		*stop_tick = false;
	return idx < 0 ? 0 : idx;	/* none allowed: state 0, the last resort */
}

static void ewma_reflect(struct cpuidle_device *dev, int index)
{
	const struct ewma_params *p = cpuidle_dev_gov_params(dev, &ewma_governor);
	unsigned int shift = p ? cpuidle_param_load_uint(&p->weight_shift) : EWMA_WEIGHT_SHIFT;
	struct ewma_cpu *c = dev->governor_data;
	int64_t last = (int64_t)dev->last_residency_ns;

	(void)index;
	if (!c->avg_ns)
		c->avg_ns = last;
	else
		c->avg_ns += (last - c->avg_ns) / (1 << shift);
	if (c->avg_ns < 1)
		c->avg_ns = 1;
}

const struct cpuidle_governor ewma_governor = {
	.name = "ewma",
	.rating = 15,	/* below menu's 20: used when asked for */
	.select = ewma_select,
	.reflect = ewma_reflect,
	.governor_data_size = sizeof(struct ewma_cpu),
	.params = ewma_params,
	.nr_params = sizeof(ewma_params) / sizeof(ewma_params[0]),
	.params_size = sizeof(struct ewma_params),
};

/* the plugin's entry point (<cpuidle/plugin.h>); unused where linked in */
static const struct cpuidle_governor *const ewma_list[] = { &ewma_governor, NULL };

static const struct cpuidle_plugin ewma_plugin = {
	.abi_version = CPUIDLE_PLUGIN_ABI_VERSION,
	.governors = ewma_list,
};

__attribute__((visibility("default")))
const struct cpuidle_plugin *cpuidle_plugin_governors(void)
{
	return &ewma_plugin;
}
