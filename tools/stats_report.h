/* SPDX-License-Identifier: MIT */
/*
 * stats_report.h - cpuidle stats --report: what the kernel did in a trace
 * as one self-contained HTML page (stats_report.c): where each CPU's and
 * cluster's time went, the stays of each state against the platform's
 * target residencies, a timeline of the first stays, and stats' table.
 * Nothing fetched, no script, the same bytes for the same trace.
 */
#ifndef TOOLS_STATS_REPORT_H
#define TOOLS_STATS_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "kstats.h"

/* the timeline: each CPU's (and cluster's) first stays, up to this many */
#define STATS_REPORT_TIMELINE_STAYS	300	/* each readable at the page's width */

/**
 * struct stats_timeline - the stays the timeline shows, as they are read
 * @stays: every kept stay, CPUs' and clusters' mixed, in the order read
 * @nr: their number
 * @cap: @stays' room
 * @kept: stays kept per CPU (index < TRACE_MAX_CPUS) or cluster (after)
 * @end_ns: the window's end: the earliest end of a last stay kept by a
 *	unit that reached STATS_REPORT_TIMELINE_STAYS (INT64_MAX: none did)
 */
struct stats_timeline {
	struct kstats_stay *stays;
	size_t nr, cap;
	unsigned int kept[TRACE_MAX_CPUS + TRACE_MAX_CLUSTERS];
	int64_t end_ns;
};

/** stats_timeline_add() - a kstats_stay_fn keeping the timeline's stays (ctx: the timeline) */
int stats_timeline_add(void *ctx, const struct kstats_stay *stay);

void stats_timeline_free(struct stats_timeline *tl);

/**
 * stats_report_write() - write the page
 * @path: the file (written to a temporary one and renamed)
 * @trace: the trace, as given
 * @ks: its tally
 * @p: the platform (names, target residencies), or NULL
 * @info: the trace's header (names where @p gives none)
 * @tl: the timeline's stays
 *
 * Return: 0, or 1 after a message.
 */
int stats_report_write(const char *path, const char *trace, const struct kstats *ks,
		       const struct cpuidle_platform *p, const struct trace_info *info,
		       const struct stats_timeline *tl);

#endif /* TOOLS_STATS_REPORT_H */
