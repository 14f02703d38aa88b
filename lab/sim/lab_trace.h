/* SPDX-License-Identifier: MIT */
/*
 * lab_trace.h - the lab's own side of struct cpuidle_lab_trace (lab.h):
 * traces made from an interval file, intervals in memory or any source of
 * intervals, and opened as a stream for each run.
 */
#ifndef LAB_LAB_TRACE_H
#define LAB_LAB_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "cpuidle/lab.h"
#include "intervals.h"
#include "replay.h"

/**
 * lab_trace_load() - an interval file as a trace: read through once,
 * validating every interval, its intervals kept in memory if they fit
 * @ivf: the interval file (cpuidle-ivf(5)); it must outlive the trace
 *	when the intervals stay on disk
 * @budget: bytes of memory the traces may still take; lowered by what
 *	this one takes (none if it stays on disk)
 * @stream: read only the file's header: every run reads the file
 * @out: the trace
 * @err: a message on failure ("FILE: ...")
 * @errlen: its size
 *
 * Return: 0, -ENODATA if it has no complete interval to replay, or another
 * negative errno.
 */
int lab_trace_load(const char *ivf, size_t *budget, bool stream, struct cpuidle_lab_trace **out,
		   char *err, size_t errlen);

/**
 * lab_trace_from_intervals() - a trace of intervals already in memory
 * @iv: the intervals, CPUs interleaved, each CPU's in time order; copied
 * @n: how many
 * @nr_cpus: the highest CPU + 1
 * @out: the trace
 *
 * Return: 0, -EINVAL (@nr_cpus 0 or above LAB_MAX_CPUS) or -ENOMEM.
 */
int lab_trace_from_intervals(const struct idle_interval *iv, size_t n, unsigned int nr_cpus,
			     struct cpuidle_lab_trace **out);

/**
 * lab_trace_from_source() - a trace over a source of the caller's
 * @open: opens a fresh stream over the intervals, once per run
 * @arg: its argument; it must outlive the trace
 * @nr_cpus: the highest CPU + 1
 * @notes: the trace's notes (copied), or NULL
 * @out: the trace
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
int lab_trace_from_source(replay_open_fn open, void *arg, unsigned int nr_cpus,
			  const struct iv_notes *notes, struct cpuidle_lab_trace **out);

/** lab_trace_stream() - a new stream over @t's intervals, one per run */
int lab_trace_stream(const struct cpuidle_lab_trace *t, struct replay_source **out);

/** lab_trace_notes() - @t's notes, or NULL where it has none */
const struct iv_notes *lab_trace_notes(const struct cpuidle_lab_trace *t);

#endif /* LAB_LAB_TRACE_H */
