// SPDX-License-Identifier: MIT
/*
 * gov_trace.c - a governor that logs another governor's calls.
 *
 * The idea is git's tracing refs backend: a plug-in that forwards every
 * call to the real one and writes down what went in and what came out, so
 * that nothing about the real one changes and a surprising result can be
 * explained from the log.  Here each select() is logged with the inputs a
 * governor may read (next timer, tick, QoS limit, disabled states, the last
 * period) and its answer, each reflect() with the state entered.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define TRACE_SUFFIX	"+trace"

static const struct cpuidle_governor_tracer *tracer_of(const struct cpuidle_device *dev)
{
	/* the current governor is the tracer's embedded one (the core calls us) */
	return (const struct cpuidle_governor_tracer *)dev->sys->governor;
}

static int tracer_enable(struct cpuidle_device *dev)
{
	const struct cpuidle_governor_tracer *t = tracer_of(dev);

	return t->inner->enable ? t->inner->enable(dev) : 0;
}

static void tracer_disable(struct cpuidle_device *dev)
{
	const struct cpuidle_governor_tracer *t = tracer_of(dev);

	if (t->inner->disable)
		t->inner->disable(dev);
}

static int tracer_select(struct cpuidle_device *dev, bool *stop_tick)
{
	const struct cpuidle_governor_tracer *t = tracer_of(dev);
	struct cpuidle_decision d = {
		.cpu = dev->cpu,
		.sleep_length_ns = dev->idle_ctx->sleep_length_ns,
		.delta_tick_ns = dev->idle_ctx->delta_tick_ns,
		.tick_stopped = dev->idle_ctx->tick_stopped,
		.latency_req_ns = cpuidle_governor_latency_req(dev),
		.last_state_idx = dev->last_state_idx,
		.last_residency_ns = dev->last_residency_ns,
		.poll_time_limit = dev->poll_time_limit,
	};
	int i;

	for (i = 0; i < dev->state_count && i < 32; i++)
		if (cpuidle_is_disabled(dev, i))
			d.disabled |= 1u << i;
	d.state = t->inner->select(dev, stop_tick);
	d.stop_tick = *stop_tick;
	t->log(t->ctx, dev, &d);
	return d.state;
}

static void tracer_reflect(struct cpuidle_device *dev, int index)
{
	const struct cpuidle_governor_tracer *t = tracer_of(dev);
	struct cpuidle_decision d = {
		.cpu = dev->cpu,
		.reflect = true,
		.last_state_idx = index,
		.last_residency_ns = dev->last_residency_ns,
		.poll_time_limit = dev->poll_time_limit,
		.got_tick = dev->idle_ctx->got_tick,
		.state = index,
	};

	if (t->inner->reflect)
		t->inner->reflect(dev, index);
	t->log(t->ctx, dev, &d);
}

int cpuidle_governor_tracer_init(struct cpuidle_governor_tracer *t,
				 const struct cpuidle_governor *inner,
				 cpuidle_decision_fn log, void *ctx)
{
	size_t n;

	if (!t || !inner || inner == &t->gov || !inner->select || !log)
		return -EINVAL;
	n = strnlen(inner->name, CPUIDLE_NAME_LEN);
	if (!n || n + sizeof(TRACE_SUFFIX) > CPUIDLE_NAME_LEN)
		return -EINVAL;
	memset(t, 0, sizeof(*t));
	memcpy(t->gov.name, inner->name, n);
	memcpy(t->gov.name + n, TRACE_SUFFIX, sizeof(TRACE_SUFFIX));
	t->gov.rating = inner->rating;
	t->gov.enable = tracer_enable;
	t->gov.disable = tracer_disable;
	t->gov.select = tracer_select;
	t->gov.reflect = tracer_reflect;
	t->gov.owner = inner->owner;
	t->gov.governor_data_size = inner->governor_data_size;
	t->inner = inner;
	t->log = log;
	t->ctx = ctx;
	return 0;
}

int cpuidle_decision_format(const struct cpuidle_decision *d, char *buf, size_t len)
{
	char next[24];

	if (!d || (!buf && len))
		return -EINVAL;
	if (d->reflect)
		return snprintf(buf, len, "cpu=%u reflect state=%d residency_ns=%" PRIu64
				" got_tick=%d poll_time_limit=%d", d->cpu, d->state,
				d->last_residency_ns, d->got_tick, d->poll_time_limit);
	if (d->sleep_length_ns == CPUIDLE_TIME_INFINITE)
		snprintf(next, sizeof(next), "none");
	else
		snprintf(next, sizeof(next), "%" PRId64, d->sleep_length_ns);
	return snprintf(buf, len, "cpu=%u select next_timer_ns=%s delta_tick_ns=%" PRId64
			" tick_stopped=%d latency_req_ns=%" PRId64 " disabled=0x%" PRIx32
			" last_state=%d last_residency_ns=%" PRIu64 " poll_time_limit=%d"
			" -> state=%d stop_tick=%d", d->cpu, next, d->delta_tick_ns,
			d->tick_stopped, d->latency_req_ns, d->disabled, d->last_state_idx,
			d->last_residency_ns, d->poll_time_limit, d->state, d->stop_tick);
}
