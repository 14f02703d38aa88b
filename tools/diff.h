/* SPDX-License-Identifier: MIT */
/*
 * diff.h - cpuidle diff: two recordings' figures and their changes, each
 * with a bootstrap interval (diff_compare.c), printed as text, CSV or JSON
 * (diff_output.c) or as an HTML page (diff_report.c).
 */
#ifndef TOOLS_DIFF_H
#define TOOLS_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "diff_sample.h"

/**
 * struct diff_recording - one recording of a side
 * @path: its file
 * @platform: the platform read for it (-p, or the recording's own)
 * @p: &@platform, or NULL without one
 * @ks: its tally (stats')
 * @info: its header
 * @sample: its periods
 */
struct diff_recording {
	const char *path;
	struct cpuidle_platform platform;
	const struct cpuidle_platform *p;
	struct kstats ks;
	struct trace_info info;
	struct diff_sample sample;
};

/* recordings per side: repeats of one setting, a handful in practice */
#define DIFF_MAX_RECORDINGS	64

/**
 * struct diff_side - BEFORE or AFTER: one recording, or repeats of one setting
 * @label: "before" or "after"
 * @rec: its recordings
 * @nr: their number
 *
 * With repeats, a figure is the recordings' pooled one, and a resample
 * draws recordings (with replacement) before it draws each one's blocks:
 * the interval then holds how much runs of one setting differ by
 * themselves, not only how much one run's periods do.
 */
struct diff_side {
	const char *label;
	struct diff_recording *rec;
	unsigned int nr;
};

/**
 * struct diff_row - one figure of one state (or all) of one unit
 * @unit: "cpuN" or the cluster's name
 * @cluster: a cluster's periods of every CPU idle
 * @index: the CPU or the cluster
 * @slot: the state, or DIFF_ALL
 * @state: its name ("all" for DIFF_ALL)
 * @figure: which
 * @before: BEFORE's value (NAN: not known, or no such unit)
 * @after: AFTER's
 * @change: @after - @before
 * @lo: the interval's low end (NAN: none)
 * @hi: its high end
 * @verdict: 1 higher, -1 lower, 0 none (the interval holds 0, or there is none)
 */
struct diff_row {
	char unit[CPUIDLE_NAME_LEN];
	bool cluster;
	unsigned int index;
	int slot;
	char state[CPUIDLE_NAME_LEN];
	enum diff_figure figure;
	double before, after, change, lo, hi;
	int verdict;
};

/**
 * struct diff_run - a comparison
 * @before: BEFORE
 * @after: AFTER
 * @resamples: bootstrap resamples per unit and side
 * @seed: the generator's seed
 * @level: the intervals' level (0.95)
 * @max_undefined: the share of resamples a figure may be undefined in
 * @rows: the result, unit by unit (clusters first, as stats), state by
 *	state (all first), figure by figure
 * @nr_rows: their number
 * @cap: @rows' room
 */
struct diff_run {
	struct diff_side before, after;
	unsigned int resamples;
	uint64_t seed;
	double level, max_undefined;
	struct diff_row *rows;
	size_t nr_rows, cap;
};

/**
 * diff_compare() - fill @run's rows from its two sides
 * @run: both sides read
 *
 * Return: 0 or -ENOMEM.
 */
int diff_compare(struct diff_run *run);

/* Warn (stderr) where the sides are not alike: other states, other verdicts, other platforms. */
void diff_warn_unlike(const struct diff_run *run);

void diff_run_free(struct diff_run *run);

/* Print @run's rows in @fmt on stdout. */
void diff_print(const struct diff_run *run, enum cli_format fmt);

/**
 * diff_report_write() - the comparison as one self-contained HTML page
 * @run: compared
 * @path: the file (written to a temporary one and renamed)
 *
 * Return: 0, or 1 after a message.
 */
int diff_report_write(const struct diff_run *run, const char *path);

/* Whether @path is a result of sim --csv or sweep --csv (a CSV header naming a governor). */
bool diff_is_result(const char *path);

/**
 * diff_results() - diff two results of sim --csv or sweep --csv: each run
 *	of @before matched with @after's by its key columns, each figure's
 *	change (no interval: a replay is not a sample)
 * @before: one result
 * @after: the other, of the same command and columns
 * @fmt: the output's form
 *
 * Return: 0, or 1 after a message.
 */
int diff_results(const char *before, const char *after, enum cli_format fmt);

/* The figure's name in CSV and JSON ("residency_pct"), and the text's label. */
const char *diff_figure_name(enum diff_figure f);
const char *diff_figure_label(enum diff_figure f);

/* @v in the text's unit and precision ("-" for NAN), with a sign if @sign. */
void diff_format(char *buf, size_t len, enum diff_figure f, double v, bool sign);

#endif /* TOOLS_DIFF_H */
