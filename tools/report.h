/* SPDX-License-Identifier: MIT */
/*
 * report.h - the governor comparison as one self-contained HTML file
 * ("cpuidle sim --report", "cpuidle sweep --report"): charts drawn as SVG
 * by the program, a few lines of inline JavaScript to zoom the timeline,
 * nothing fetched, the same bytes for the same runs.
 *
 * A command creates the report (which creates a temporary file next to its
 * file, so that a bad path fails before any run; report_write() renames it
 * over the file, so that a failed command leaves an earlier file as it
 * was), feeds it the traces' intervals (the histogram of
 * true idle lengths; the timeline's window of one CPU), the decisions of
 * each governor on that CPU (a decision stream per run, given to the
 * replay as cpuidle_lab_run.decisions), and one record per run, then writes
 * it.
 */
#ifndef TOOLS_REPORT_H
#define TOOLS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libcpuidle.h"
#include "cpuidle/lab.h"

#define REPORT_DEFAULT_INTERVALS	2000	/* the timeline's window */
#define REPORT_MAX_INTERVALS		100000

/**
 * struct report_opts - what --report* asked for
 * @path: the HTML file
 * @cpu: the timeline's CPU
 * @intervals: the timeline's window: the CPU's first complete intervals
 */
struct report_opts {
	const char *path;
	unsigned int cpu;
	unsigned int intervals;
};

/**
 * struct report_run - one run, as the report shows it
 * @trace: the trace as given (or the pattern's description)
 * @platform: the platform (must outlive the report)
 * @governor: the governor
 * @settings: what else tells this run from others of the same governor on
 *	the same platform (QoS value, attribute values), or ""
 * @energy_known: @energy_mj is known (every state has a power)
 * @over_known: @over_oracle_pct is known (an oracle run to compare with)
 * @states: per state: idle entries, time and real wake-ups in it
 *
 * The other fields are struct cpuidle_lab_result's.
 */
struct report_run {
	const char *trace;
	const struct cpuidle_platform *platform;
	const char *governor;
	const char *settings;
	bool energy_known, over_known;
	double energy_mj, over_oracle_pct;
	uint64_t intervals, entries, above, below, wakes;
	uint64_t timer_guessed, timer_unknown;	/* of @intervals: next timer
						 * reconstructed, unknown */
	uint64_t added_latency_ns, p99_latency_ns, max_latency_ns;
	uint64_t qos_violations;
	int state_count;
	struct {
		uint64_t usage, time_ns, wakes;
	} states[CPUIDLE_STATE_MAX];
};

struct report;

/**
 * report_open() - a report, its temporary file created (cli_out_open())
 * @cmd: the command, for messages ("sim", "sweep")
 * @opts: the options
 * @out: the report
 *
 * Return: 0, or 1 after printing the error.
 */
int report_open(const char *cmd, const struct report_opts *opts, struct report **out);

/** report_describe() - the line under the title: what was replayed */
void report_describe(struct report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/**
 * report_add_trace() - read a trace's intervals once: the histogram of
 * true idle lengths (every trace added), and, for the first one, the
 * timeline's window
 * @r: the report
 * @label: the trace as given
 * @trace: the trace (its CPUs check --report-cpu)
 *
 * Return: 0, or 1 after printing the error.
 */
int report_add_trace(struct report *r, const char *label, const struct cpuidle_lab_trace *trace);

/**
 * report_timeline_capture() - a capture of a run of the first trace for
 * the timeline: set cpuidle_lab_run.on_decision to report_capture_decision()
 * and decision_ctx to it; the run's choices on the timeline's CPU, in its
 * window, become a row of the timeline
 * @r: the report
 * @platform: the run's platform (the first call sets the timeline's)
 * @governor: the row's name
 *
 * Return: the capture (the report's), or NULL without memory.
 */
struct report_capture *report_timeline_capture(struct report *r,
					       const struct cpuidle_platform *platform,
					       const char *governor);

/** report_capture_decision() - a cpuidle_lab_decision_fn into a report_capture */
void report_capture_decision(void *capture, int64_t t_ns, const struct cpuidle_device *dev,
			     const struct cpuidle_decision *d);

/**
 * report_timeline_end() - once the captured runs are over
 * @r: the report
 *
 * Return: 0, or a negative errno (a capture ran out of memory).
 */
int report_timeline_end(struct report *r);

/**
 * report_timeline_replay() - runs for the timeline alone (the sweep's):
 * @cfgs (one per governor, on the first trace) are replayed in parallel,
 * only as far as the window needs, their decisions captured
 * @r: the report
 * @cmd: for messages
 * @cfgs: the runs; their decisions and trace (a view of it) are set here
 * @n: how many
 *
 * Return: 0, or 1 after printing the error.
 */
int report_timeline_replay(struct report *r, const char *cmd, struct cpuidle_lab_run *cfgs,
			   unsigned int n);

/**
 * report_add_run() - one run's numbers
 * @r: the report
 * @run: the run (copied)
 *
 * Runs of the same platform, governor and settings on several traces are
 * shown together: energy over the oracle averaged over the traces, the
 * p99 of the added latency pooled over their wake-ups, residency summed.
 *
 * Return: 0 or -ENOMEM.
 */
int report_add_run(struct report *r, const struct report_run *run);

/**
 * report_write() - write the HTML file, close it and put it in place
 * @r: the report
 * @cmd: for messages
 *
 * Return: 0, or 1 after printing the error.
 */
int report_write(struct report *r, const char *cmd);

/**
 * report_free() - free; unless report_write() succeeded, remove the
 * temporary file (an earlier file of the name is left as it was)
 * @r: the report, or NULL
 */
void report_free(struct report *r);

/**
 * report_parse_option() - --report, --report-cpu, --report-intervals
 * @cmd: for messages
 * @opt: 'R', 'U' or 'I' (the getopt values the commands give them)
 * @arg: the option's argument
 * @opts: updated
 *
 * Return: 0, or 1 after printing the error.
 */
int report_parse_option(const char *cmd, int opt, const char *arg, struct report_opts *opts);

#define REPORT_GETOPT_LONG \
	{ "report", required_argument, NULL, 'R' }, \
	{ "report-cpu", required_argument, NULL, 'U' }, \
	{ "report-intervals", required_argument, NULL, 'I' }

#define REPORT_USAGE \
	"      --report FILE.html  also write the comparison as one HTML file of charts\n" \
	"                          (self-contained, works offline)\n" \
	"      --report-cpu N      the CPU of the report's timeline (default 0)\n" \
	"      --report-intervals N  the timeline's window: the CPU's first N complete\n" \
	"                          intervals (default 2000, at most 100000)\n"

#endif /* TOOLS_REPORT_H */
