/* SPDX-License-Identifier: MIT */
/*
 * sweep.h - what sweep's files share: the sweep (its axes, the template of
 * a (trace, platform) block, the rows kept), cmd_sweep.c's options, plan
 * and runs, sweep_output.c's rows and report
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
#define SWEEP_MAX_BLOCK		100000		/* runs per trace x platform */
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
	int platform;			/* the platform it was recorded on, in
					 * sweep.platforms, when no -p: only that
					 * one; else -1 */
};

/**
 * struct sweep_axis - one -s option
 * @path: the attribute
 * @module: for module/GOV/parameters/..., GOV (only GOV's runs depend on it),
 *	else NULL
 * @n: number of values
 * @items: "PATH=VALUE" per value, as cpuidle_lab_run.attrs wants them
 * @values: the values alone (pointers into @items)
 */
struct sweep_axis {
	char *path;
	char *module;
	unsigned int n;
	char **items;
	const char **values;
};

/* One run of a block's template. */
struct sweep_job {
	unsigned int gov;	/* index into governors; nr_govs: the added oracle */
	unsigned int qos;	/* index into qos */
	uint64_t combo;		/* tunables, one digit per axis */
	bool ref_only;		/* only the oracle of other rows */
};

/* What a row prints of a run. */
struct sweep_out {
	bool skipped;		/* not run (a reference for unknown energy) */
	bool lost;		/* its run crashed (a plugin's governor, run in a
				 * child process): no row */
	struct cpuidle_lab_figures fig;	/* over the oracle left out: the rows pair them */
	uint64_t intervals, entries;
	uint64_t timer_guessed, timer_unknown;	/* cpuidle_lab_result's */
	uint64_t added_latency_ns, p99_latency_ns, max_latency_ns;
	uint64_t qos_violations, qos_unmeetable;
	double host_seconds;
	int state_count;
	uint64_t usage[CPUIDLE_STATE_MAX], time_ns[CPUIDLE_STATE_MAX], state_wakes[CPUIDLE_STATE_MAX];
};

/* ------------------------------------------------------------------- sweep */



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
	int oracle;			/* the oracle's governor index, or -1 */
	int32_t *qos;
	unsigned int nr_qos;
	struct sweep_axis axes[SWEEP_MAX_AXES];
	unsigned int nr_axes;
	uint64_t combos;
	bool no_oracle, timing;
	enum cli_format fmt;
	FILE *out;
	const char *out_path;
	struct cli_out outf;		/* -o FILE: a temporary file until the end */
	char *plat_files;		/* a copy of the -p list */
	char *lists[3];			/* -g, -p, --qos: every one given, joined */
	struct report_opts ropts;	/* --report */
	struct report *report;
	bool report_nomem;

	/* a block's template */
	struct sweep_job *jobs;
	unsigned int nr_jobs;
	unsigned int *row_job, *row_ref;	/* per row; row_ref UINT_MAX: none */
	unsigned int nr_rows;
	struct sweep_block *blocks;
	unsigned int nr_blocks;

	/* the runs (cpuidle/lab.h): job bi * nr_jobs + j is job j of block bi */
	struct sweep_out *slots;	/* the block being completed: nr_jobs */
	unsigned int progress_permille;
	uint64_t lost_runs;		/* runs a plugin's crash took (said each) */
	char fail_msg[512];		/* the failed run's message (keep_going) */
};

static inline const char *gov_name(const struct sweep *sw, unsigned int gov)
{
	return gov < sw->nr_govs ? sw->govs[gov] : CPUIDLE_LAB_ORACLE;
}

static inline unsigned int digit(const struct sweep *sw, uint64_t combo, unsigned int axis)
{
	unsigned int a;

	for (a = sw->nr_axes - 1; a > axis; a--)
		combo /= sw->axes[a].n;
	return (unsigned int)(combo % sw->axes[axis].n);
}

void sweep_run_config(const struct sweep *sw, const struct sweep_block *b,
		       const struct sweep_job *job, const char **attrs,
		       struct cpuidle_lab_run *cfg);
void sweep_print_block(struct sweep *sw, unsigned int bi);
void sweep_csv_header(const struct sweep *sw);
void sweep_report_what(struct sweep *sw);
int sweep_report_timeline(struct sweep *sw);

#endif /* TOOLS_SWEEP_H */
