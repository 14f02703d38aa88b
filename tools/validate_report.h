/* SPDX-License-Identifier: MIT */
/*
 * validate_report.h - cpuidle validate --report: its figures as one
 * self-contained HTML page (validate_report.c): how many are within their
 * bound, by figure and by self/cross prediction; predicted against
 * measured per figure as SVG scatter charts; each workload's table, a cell
 * a figure.  Nothing fetched, no script, the same bytes for the same
 * figures.
 */
#ifndef TOOLS_VALIDATE_REPORT_H
#define TOOLS_VALIDATE_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/**
 * struct validate_cell - one figure of one prediction
 * @workload: the workload
 * @source: the recording replayed (as given)
 * @source_label: its setting, " (repeat)" for a second recording
 * @target_setting: the setting it was replayed under
 * @metric: the figure's name (validate --json's)
 * @rate: a rate (judged relative to its size), not a share or distance
 * @predicted: the replay's
 * @measured: the kernel's, in the target setting's recording
 * @noise: the noise floor, NAN without a repeat
 * @bound: the error's bound, NAN if not judged
 * @within: |predicted - measured| is within @bound
 * @self: the recording replayed under its own setting
 */
struct validate_cell {
	const char *workload, *source;
	char source_label[96];
	const char *target_setting;
	char metric[64];
	bool rate;
	double predicted, measured, noise, bound;
	bool within, self;
};

/**
 * validate_report_write() - write the page to @o (opened by cli_out_open())
 * @o: the output
 * @cells: the figures, workload by workload, source by source
 * @n: how many
 * @nr_recordings: recordings read, for the page's heading
 *
 * Return: 0, or -1 if a write failed (cli_out_flush() says so).
 */
int validate_report_write(struct cli_out *o, const struct validate_cell *cells, size_t n,
			  int nr_recordings);

#endif /* TOOLS_VALIDATE_REPORT_H */
