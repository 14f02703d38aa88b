/* SPDX-License-Identifier: MIT */
/*
 * reconstruct.h - idle intervals rebuilt from a trace's events
 * (reconstruct.c): the state machine between the trace readers (trace.h)
 * and the intervals (intervals.h), which know nothing of each other
 */
#ifndef LAB_RECONSTRUCT_H
#define LAB_RECONSTRUCT_H

#include "intervals.h"
#include "trace.h"

/** Receives each interval when it is complete; non-zero stops the run. */
typedef int (*iv_sink_fn)(const struct idle_interval *iv, void *arg);

/*
 * How far out of order events may arrive and still be applied in order:
 * perf and ftrace merge per-CPU buffers by time, so disorder is bounded
 * by their flush granularity, far below this.  An event older than the
 * newest one by more than this is an error (iv_builder_feed()).
 */
#define IV_REORDER_WINDOW_NS	(10 * 1000 * 1000LL)

struct iv_builder;

/**
 * iv_builder_create() - a reconstruction state machine
 * @sink: called with each complete interval, in per-CPU time order
 * @arg: its argument
 * @out: the builder
 *
 * Return: 0 or -ENOMEM.
 */
int iv_builder_create(iv_sink_fn sink, void *arg, struct iv_builder **out);

/**
 * iv_builder_feed() - one event, in file order
 * @b: the builder
 * @ev: the event
 *
 * Events are held in a reorder window and applied in time order.  An
 * event older than the newest one by more than IV_REORDER_WINDOW_NS cannot
 * be put in its place: an error (-EINVAL, iv_builder_error() says which
 * line and why), as is a trace clock that jumps against CLOCK_MONOTONIC
 * (the ticks' hrtimer_expire_entry now=).  A frequency change
 * (TEV_CPU_FREQ) is passed by: it counts for nothing, not even the span.
 *
 * Return: 0; a negative errno on error; or what the sink returned.
 */
int iv_builder_feed(struct iv_builder *b, const struct trace_event *ev);

/**
 * iv_builder_finish() - end of trace: flush, emit partial intervals
 * @b: the builder
 *
 * Return: 0 or what the sink returned.
 */
int iv_builder_finish(struct iv_builder *b);

/**
 * iv_builder_error() - what the last -EINVAL of feed or finish was about
 * @b: the builder
 * @line: set to the line of the event at fault
 *
 * Return: the message, without the file's name or line ("" if none).
 */
const char *iv_builder_error(const struct iv_builder *b, uint64_t *line);

/**
 * iv_describe_backstep() - the message for an event that went back in time
 * @msg: the message
 * @len: its size
 * @back_ns: how far back, beyond IV_REORDER_WINDOW_NS
 * @cpu: the event's CPU
 */
void iv_describe_backstep(char *msg, size_t len, int64_t back_ns, unsigned int cpu);

/** iv_builder_stats() - counters so far */
const struct iv_stats *iv_builder_stats(const struct iv_builder *b);

/** iv_builder_destroy() - free; NULL is fine */
void iv_builder_destroy(struct iv_builder *b);

#endif /* LAB_RECONSTRUCT_H */
