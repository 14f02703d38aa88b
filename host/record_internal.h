/* SPDX-License-Identifier: MIT */
/* record_internal.h - shared by record.c, record_perf.c, record_tracefs.c. */
#ifndef HOST_RECORD_INTERNAL_H
#define HOST_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "host_record.h"

#define RECORD_MAX_EVENTS	32

/**
 * struct record_ctx - one recording under way
 * @tracefs: the tracefs mount point
 * @events: the events of host_record_events the kernel has
 * @nr_events: their number
 */
struct record_ctx {
	char tracefs[256];
	const char *events[RECORD_MAX_EVENTS];
	int nr_events;
};

/* perf: 0, or a negative errno with @err set; -ENOEXEC if perf does not run */
int record_perf(const struct record_ctx *ctx, const struct host_record_opts *o,
		struct host_record_result *r, char *err, size_t errlen);

/* tracefs: 0, or a negative errno with @err set */
int record_tracefs(const struct record_ctx *ctx, const struct host_record_opts *o,
		   struct host_record_result *r, char *err, size_t errlen);

/* whether a "perf" in PATH runs ("perf --version") */
bool record_perf_runs(void);

/* @o's description, if any, written to @fd; 0 or a negative errno */
int record_write_description(int fd, const struct host_record_opts *o);

#endif /* HOST_RECORD_INTERNAL_H */
