/* SPDX-License-Identifier: MIT */
/*
 * sweep.h - what sweep's files share: the sweep (its axes, and the lab's
 * sweep that plans and runs it), cmd_sweep.c's options and set-up,
 * sweep_output.c's rows and report
 */
#ifndef TOOLS_SWEEP_H
#define TOOLS_SWEEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "cpuidle/lab.h"
#include "report.h"

#define SWEEP_MAX_AXES		CPUIDLE_LAB_MAX_ATTRS	/* -s options */
#define SWEEP_MAX_ITEMS		4096		/* values in one list */
#define SWEEP_MAX_THREADS	1024

extern const char *const sweep_cmd;

/**
 * struct sweep_trace - one trace, parsed once
 * @path: as given
 * @ivf: its interval file (a temporary one for a text trace)
 * @tmp: @ivf is ours to remove
 * @nr_cpus: the trace's highest CPU + 1
 * @clock_offset_ns: the trace clock's correction, 0: none
 * @bt: its intervals, loaded once (cpuidle/lab.h): in memory, or read
 *	from @ivf by each run
 */
struct sweep_trace {
	const char *path;
	char ivf[4096];
	int tmp;
	unsigned int nr_cpus;
	int64_t clock_offset_ns;
	struct cpuidle_lab_trace *bt;
	struct recording *rec;		/* its description (cpuidle record), or NULL */
	const char *fixed[CPUIDLE_LAB_MAX_ATTRS + 1];	/* the recording's tunables that no
						 * -s sweeps, written in every run */
	unsigned int nr_fixed;
	bool noted_steady;		/* its steady-state note said (once a trace) */
	int platform;			/* the platform it was recorded on, in
					 * sweep.platforms, when no -p: only that
					 * one; else -1 */
};

/**
 * struct sweep_axis - one -s option
 * @path: the attribute
 * @n: number of values
 * @items: "PATH=VALUE" per value, as the messages name a run
 * @values: the values alone (pointers into @items)
 */
struct sweep_axis {
	char *path;
	unsigned int n;
	char **items;
	const char **values;
};

/* A block's trace and platform, as indices into the sweep's. */
struct sweep_block {
	unsigned int trace, platform;
};

struct sweep {
	/* the axes */
	struct sweep_trace *traces;
	unsigned int nr_traces;
	struct cpuidle_platform *platforms;
	bool *energy;			/* every state of the platform has a power */
	int *plat_owner;		/* a recording's platform: its trace; else -1 */
	unsigned int nr_platforms;
	const char **govs;
	unsigned int nr_govs;
	int32_t *qos;
	unsigned int nr_qos;
	struct sweep_axis axes[SWEEP_MAX_AXES];
	unsigned int nr_axes;
	bool no_oracle, timing;
	unsigned int shard_k, shard_n;	/* --shard K/N; shard_n 0: none */
	enum cli_format fmt;
	FILE *out;
	const char *out_path;
	struct cli_out outf;		/* -o FILE: a temporary file until the end */
	char *plat_files;		/* a copy of the -p list */
	char *lists[3];			/* -g, -p, --qos: every one given, joined */
	struct report_opts ropts;	/* --report */
	struct report *report;
	bool report_nomem;

	/* the lab's sweep (cpuidle/lab.h): blocks[i] is lab_blocks[i] by index */
	struct cpuidle_lab_sweep_spec spec;
	struct cpuidle_lab_axis lab_axes[SWEEP_MAX_AXES];
	struct cpuidle_lab_block *lab_blocks;
	struct sweep_block *blocks;
	unsigned int nr_blocks;
	struct cpuidle_lab_sweep *plan;

	unsigned int progress_permille;
	uint64_t lost_runs;		/* runs a plugin's crash took (said each) */
};

int sweep_row(void *ctx, const struct cpuidle_lab_point *at, const struct cpuidle_lab_result *res,
	      const struct cpuidle_lab_result *oracle);
void sweep_csv_header(const struct sweep *sw);
void sweep_report_what(struct sweep *sw);
int sweep_report_timeline(struct sweep *sw);
int sweep_merge(const char *out_path, char *const *paths, int n);

#endif /* TOOLS_SWEEP_H */
