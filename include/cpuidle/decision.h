/* SPDX-License-Identifier: MIT */
/*
 * decision.h - decision tracing: a governor wrapped so that each select()
 * and reflect() is logged with its inputs (part of cpuidle.h, which
 * includes it; include either)
 */
/* first, outside the guard: cpuidle.h includes this one at its end */
#include "cpuidle.h"

#ifndef CPUIDLE_DECISION_H
#define CPUIDLE_DECISION_H

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------------
 * DECISION TRACING: a governor wrapped so that each select() and reflect()
 * is logged with its inputs, to explain a surprising choice afterwards.
 */

/**
 * struct cpuidle_decision - one call of a traced governor
 * @cpu: the device's CPU
 * @reflect: false for select(), true for reflect()
 * @sleep_length_ns: select(): time to the next timer, tick stopped
 *	(CPUIDLE_TIME_INFINITE if none)
 * @delta_tick_ns: select(): time to the next tick or timer, tick running
 * @tick_stopped: select(): the tick was already stopped
 * @latency_req_ns: select(): the QoS latency limit
 * @disabled: select(): bit i set if state i may not be chosen
 * @last_state_idx: the state of the previous idle period (-1: none)
 * @last_residency_ns: how long it lasted
 * @poll_time_limit: the previous period was a poll cut by its time limit
 * @got_tick: reflect(): the tick ended the period just over
 * @state: select(): the state chosen; reflect(): the state entered
 * @stop_tick: select(): whether the governor let the tick stop
 */
struct cpuidle_decision {
	unsigned int cpu;
	bool reflect;
	int64_t sleep_length_ns;
	int64_t delta_tick_ns;
	bool tick_stopped;
	int64_t latency_req_ns;
	uint32_t disabled;
	int last_state_idx;
	uint64_t last_residency_ns;
	bool poll_time_limit;
	bool got_tick;
	int state;
	bool stop_tick;
};

/**
 * typedef cpuidle_decision_fn - receives each traced call
 * @ctx: the tracer's context
 * @dev: the device (its embed_data lets the embedding add its own time)
 * @d: the call
 */
typedef void (*cpuidle_decision_fn)(void *ctx, const struct cpuidle_device *dev,
				    const struct cpuidle_decision *d);

/**
 * struct cpuidle_governor_tracer - a governor that logs another's calls
 * @gov: the governor to register (named after the inner one, "+trace"
 *	appended); its calls go to @inner, its per-CPU data is @inner's
 * @inner: the governor traced
 * @log: called after each select() and reflect() of @inner
 * @ctx: passed to @log
 *
 * The tracer changes no decision: the inner governor sees the same device
 * and inputs as it would alone.
 */
struct cpuidle_governor_tracer {
	struct cpuidle_governor gov;
	const struct cpuidle_governor *inner;
	cpuidle_decision_fn log;
	void *ctx;
};

/**
 * cpuidle_governor_tracer_init() - wrap @inner
 * @t: the tracer; must outlive its registration
 * @inner: the governor to trace (need not be registered)
 * @log: the sink
 * @ctx: its context
 *
 * Register @t->gov afterwards, and select it by name to trace.
 *
 * Return: 0; -EINVAL if an argument is NULL, @inner is @t's own governor
 * (it would call itself for ever), @inner has no select(), or its name is
 * empty or leaves no room for "+trace" (CPUIDLE_NAME_LEN).  On failure @t
 * is left untouched.
 */
CPUIDLE_API int cpuidle_governor_tracer_init(struct cpuidle_governor_tracer *t,
					     const struct cpuidle_governor *inner,
					     cpuidle_decision_fn log, void *ctx);

/**
 * cpuidle_decision_format() - one line of text for a traced call
 * @d: the call
 * @buf: the output, NUL-terminated, no newline
 * @len: its size
 *
 * select: "cpu=0 select next_timer_ns=N delta_tick_ns=N tick_stopped=0
 * latency_req_ns=N disabled=0x0 last_state=1 last_residency_ns=N
 * poll_time_limit=0 -> state=2 stop_tick=1"; reflect: "cpu=0 reflect
 * state=2 residency_ns=N got_tick=0 poll_time_limit=0".  A next timer of
 * CPUIDLE_TIME_INFINITE prints as "none".
 *
 * Return: the length the line needs (as snprintf()); -EINVAL if @d is NULL,
 * or @buf is NULL while @len is not 0.
 */
CPUIDLE_API int cpuidle_decision_format(const struct cpuidle_decision *d, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CPUIDLE_DECISION_H */
