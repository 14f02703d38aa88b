/* SPDX-License-Identifier: MIT */
/*
 * host_record.h - recording an idle trace the governor lab can read: the
 * events its trace readers consume (lab/ingest/trace.h), on CLOCK_MONOTONIC (the
 * clock of hrtimer expiries), every CPU.
 *
 * Two ways, as ../shared/traces was recorded:
 * - perf: "perf record -k CLOCK_MONOTONIC -a -e EVENT..." then
 *   "perf script -F comm,pid,cpu,time,event,trace --ns" into the file;
 * - tracefs: a private ftrace instance (instances/cpuidle-record-PID) with
 *   trace_clock mono whose trace_pipe is copied into the file, an ftrace
 *   text log with microsecond timestamps.  The instance is removed at the
 *   end, so the host's own tracing is left as it was.
 *
 * tracefs is mounted at /sys/kernel/tracing if it is mounted nowhere
 * (both ways need it), and unmounted again at the end.
 */
#ifndef HOST_RECORD_H
#define HOST_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* the events, "group:name", as the lab's readers name them; NULL-terminated */
extern const char *const host_record_events[];

enum host_record_backend {
	HOST_RECORD_AUTO,	/* perf if it runs, else tracefs */
	HOST_RECORD_PERF,
	HOST_RECORD_TRACEFS,
};

/**
 * struct host_record_opts - what to record
 * @out: the trace file to write
 * @duration_ns: stop after this long; <= 0: when @cmd ends or on SIGINT,
 *	SIGTERM or SIGHUP
 * @cmd: a command to run while recording (NULL-terminated), or NULL
 * @backend: which way
 * @log: where to say what is happening (the events the kernel lacks, lost
 *	events), or NULL
 * @description: the recording's description (comment lines, recording.h),
 *	or NULL: at the top of a text trace, before any event; beside a
 *	perf.data, in @out + HOST_RECORD_SIDE_SUFFIX
 * @text: through perf, write perf script's text (with the description at
 *	its top) instead of the perf.data file itself; tracefs writes text
 *	either way
 */
struct host_record_opts {
	const char *out;
	int64_t duration_ns;
	char *const *cmd;
	enum host_record_backend backend;
	FILE *log;
	const char *description;
	bool text;
};

/* the file beside a perf.data recording that holds its description */
#define HOST_RECORD_SIDE_SUFFIX	".recording"

/**
 * struct host_record_result - how it went
 * @backend: the way used (never AUTO)
 * @nr_events: events recorded (the others the kernel lacks)
 * @lost: events the kernel dropped (tracefs overruns; perf says so itself)
 * @cmd_exit: @cmd's exit code (128 + signal if a signal ended it), or -1
 *	if there was none or it did not end
 * @cmd_start_err: 0, or the negative errno @cmd could not be started with
 *	(-ENOENT: not found), for which host_record() failed
 */
struct host_record_result {
	enum host_record_backend backend;
	int nr_events;
	uint64_t lost;
	int cmd_exit;
	int cmd_start_err;
};

/**
 * host_record() - record a trace
 * @o: what
 * @r: how it went
 * @err: on error, why
 * @errlen: size of @err
 *
 * Needs root (tracing is privileged) and host_signals_block().
 *
 * Return: 0; -ENOENT if tracefs or (HOST_RECORD_PERF) perf cannot be found;
 * -ENODEV if the kernel has none of the events; -EACCES or -EPERM without
 * the privilege; another negative errno if a file cannot be written or
 * perf fails.
 */
int host_record(const struct host_record_opts *o, struct host_record_result *r, char *err,
		size_t errlen);

#endif /* HOST_RECORD_H */
