// SPDX-License-Identifier: MIT
/*
 * cmd_diff.c - "cpuidle diff BEFORE AFTER": what changed between two
 * recordings, per CPU, cluster and state, each change with a bootstrap 95%
 * interval, and a verdict only where that interval excludes no change.
 * idlestat's comparison report (-b/-r), with its noise told apart.
 *
 * The figures are stats' (the kernel's stays, diff_sample.h): residency,
 * entries per second, the average stay, above/below, and with a platform
 * that models power, the stays' mean power.  BEFORE and AFTER are
 * resampled independently, each in blocks of consecutive periods; the
 * interval is the 2.5th to 97.5th percentile of the resampled changes.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff.h"
#include "recording.h"

#define DIFF_DEFAULT_RESAMPLES	2000	/* percentile intervals settle by ~1000 (Efron & Tibshirani) */
#define DIFF_MAX_RESAMPLES	100000
#define DIFF_DEFAULT_SEED	1
/*
 * A resample in which a figure is not defined (no stay of the state was
 * drawn, so no average) is left out; with more than this share left out,
 * the figure's interval is not given: the data are too thin for it.
 */
#define DIFF_MAX_UNDEFINED_SHARE	0.05
#define DIFF_LEVEL		0.95

static const char *const figure_names[DIFF_NR_FIGURES] = {
	[DIFF_RESIDENCY] = "residency_pct",
	[DIFF_HITS] = "usage_per_s",
	[DIFF_AVG_STAY] = "avg_ns",
	[DIFF_ABOVE] = "above_pct",
	[DIFF_BELOW] = "below_pct",
	[DIFF_POWER] = "power_mw",
	[DIFF_WAKE_TIMER] = "woken_timer_per_s",
	[DIFF_WAKE_RESCHED] = "woken_resched_per_s",
	[DIFF_WAKE_CALL_FUNC] = "woken_call_function_per_s",
	[DIFF_WAKE_IRQ] = "woken_irq_per_s",
	[DIFF_WAKE_UNKNOWN] = "woken_unknown_per_s",
};

/* the text's labels, and its unit's scale from the figure's */
static const struct {
	const char *label;
	double scale;
	const char *fmt;
} figure_text[DIFF_NR_FIGURES] = {
	[DIFF_RESIDENCY] = { "residency %", 1, "%.2f" },
	[DIFF_HITS] = { "entries/s", 1, "%.1f" },
	[DIFF_AVG_STAY] = { "avg stay us", 1e-3, "%.1f" },
	[DIFF_ABOVE] = { "above %", 1, "%.2f" },
	[DIFF_BELOW] = { "below %", 1, "%.2f" },
	[DIFF_POWER] = { "power mW", 1, "%.3f" },
	[DIFF_WAKE_TIMER] = { "by timer/s", 1, "%.1f" },
	[DIFF_WAKE_RESCHED] = { "by resched/s", 1, "%.1f" },
	[DIFF_WAKE_CALL_FUNC] = { "by call-func/s", 1, "%.1f" },
	[DIFF_WAKE_IRQ] = { "by irq/s", 1, "%.1f" },
	[DIFF_WAKE_UNKNOWN] = { "by unknown/s", 1, "%.1f" },
};

static void diff_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " diff [-p PLATFORM] [--resamples N] [--seed N]\n"
		"                    [--csv | --json] [--report FILE.html] [-q] BEFORE AFTER\n"
		"       " CLI_NAME " diff [OPTIONS] --before TRACE... --after TRACE...\n"
		"       " CLI_NAME " diff [--csv | --json] RESULT.csv RESULT.csv\n\n"
		"What changed from BEFORE to AFTER (two traces of the same machine: record,\n"
		"change a setting or the kernel, record again), per CPU, cluster and idle\n"
		"state: residency, entries per second, average stay, above/below, what ended\n"
		"the stays (per second, by timer, IPI kind, interrupt) and, with a PLATFORM\n"
		"that models power, the stays' mean power.  Each change comes with\n"
		"a bootstrap 95%% interval over the idle periods (resampled in blocks of\n"
		"consecutive periods, BEFORE and AFTER independently) and a verdict, higher\n"
		"or lower, only where the interval excludes no change.  A trace may be an\n"
		"interval file (convert's), read back as the events it was built from:\n"
		"a note says which figures are then approximate.\n\n"
		"Runs of one setting differ by themselves more than one run's periods tell:\n"
		"give repeats, each with --before or --after, and the resampling draws\n"
		"recordings too, so that the intervals hold that difference.\n\n"
		"Two results of sim --csv or sweep --csv: each run's figures, before and\n"
		"after, matched by trace, platform, governor, QoS, attribute values and\n"
		"state; the text shows what changed (a replay is not a sample: no interval).\n\n"
		"  -b, --before TRACE    a recording of the setting before (repeatable)\n"
		"  -a, --after TRACE     a recording of the setting after (repeatable)\n"
		"  -p, --platform SPEC   platform for above/below (where the traces have no\n"
		"                        cpu_idle_miss events), state names and power\n"
		"                        (default: each recording's own, if it names one)\n"
		"      --resamples N     bootstrap resamples (default %d)\n"
		"      --seed N          the resampling's seed (default %d): same seed,\n"
		"                        same output\n"
		"      --csv             one row per unit, state and figure (long form)\n"
		"      --json            the same rows as JSON\n"
		"      --report FILE.html  also write the comparison as one HTML page\n"
		CLI_USAGE_QUIET
		"  -h, --help            this text\n\n"
		"Expect about 1 verdict in 20 among figures that did not change: the\n"
		"intervals are 95%% ones, each on its own.\n\n"
		"See cpuidle-diff(1).\n",
		DIFF_DEFAULT_RESAMPLES, DIFF_DEFAULT_SEED);
}

/* read @path into @side (its figures, its sample) */
static int read_recording(const char *path, const char *platform_spec,
			  struct diff_recording *side)
{
	const struct kstats_want want = { .stay = diff_sample_add, .ctx = &side->sample };
	struct recording *rec = calloc(1, sizeof(*rec));
	char err[1024];
	int ret;

	if (!rec)
		return cli_error("diff", "%s", strerror(ENOMEM));
	side->path = path;
	if (cli_recording("diff", path, rec)) {
		free(rec);
		return 1;
	}
	if (platform_spec || rec->platform) {
		if (cli_recording_platform("diff", path, rec, platform_spec, NULL,
					   &side->platform)) {
			free(rec);
			return 1;
		}
		side->p = &side->platform;
	}
	free(rec);
	side->sample.p = side->p;
	/* each stay, with what ended it (the wake-ups); no frequencies */
	ret = kstats_read(path, side->p, &want, &side->ks, &side->info, err, sizeof(err));
	if (ret)
		return cli_error("diff", "%s", err[0] ? err : strerror(-ret));
	if (!side->ks.nr_states)
		return cli_error("diff", "%s: no idle entries (power:cpu_idle) in the trace", path);
	ret = diff_sample_finish(&side->sample, &side->ks);
	if (ret)
		return cli_error("diff", "%s: %s", path, strerror(-ret));
	if (side->ks.from_intervals)
		cli_note_intervals("diff", path, &side->ks.approx,
				   side->ks.misses_recomputed ? side->p->name : NULL);
	cli_warn_lost("diff", path, side->ks.lost_gaps, side->ks.lost_events,
		      side->ks.lost_cpu, side->ks.lost_line, side->ks.lost_n);
	cli_warn_idle_less("diff", path, side->ks.idle_less, side->ks.nr_idle_less);
	if (side->p &&
	    kstats_platform_mismatch(side->ks.nr_states, &side->info, side->p, err, sizeof(err)))
		cli_warn_on("diff", path, "%s; its states are named and judged by %s's table",
			    err, side->p->name);
	return 0;
}

static int parse_count(const char *opt, const char *arg, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || *out > max) {
		cli_error("diff", "%s: not a number from 0 to %lu: %s", opt, max, arg);
		return 2;
	}
	return 0;
}

static const struct option diff_longopts[] = {
	{ "platform", required_argument, NULL, 'p' },
	{ "before", required_argument, NULL, 'b' },
	{ "after", required_argument, NULL, 'a' },
	{ "resamples", required_argument, NULL, 'R' },
	{ "seed", required_argument, NULL, 'S' },
	{ "csv", no_argument, NULL, 'C' },
	{ "json", no_argument, NULL, 'J' },
	{ "report", required_argument, NULL, 'r' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_diff_opts = {
	.shortopts = "p:b:a:qh",
	.longopts = diff_longopts,
};

int cmd_diff(int argc, char **argv)
{
	struct diff_run run = {
		.resamples = DIFF_DEFAULT_RESAMPLES,
		.seed = DIFF_DEFAULT_SEED,
		.level = DIFF_LEVEL,
		.max_undefined = DIFF_MAX_UNDEFINED_SHARE,
	};
	const char *platform_spec = NULL, *report = NULL;
	const char *paths[2][DIFF_MAX_RECORDINGS];
	unsigned int nr[2] = { 0, 0 }, s, r;
	enum cli_format fmt = FMT_TABLE;
	unsigned long n;
	int c, ret = 1;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_diff_opts)) != -1) {
		switch (c) {
		case 'p':
			platform_spec = optarg;
			break;
		case 'b':
		case 'a':
			s = c == 'a';
			if (nr[s] == DIFF_MAX_RECORDINGS) {
				cli_error("diff", "--%s: at most %d recordings", s ? "after" :
					  "before", DIFF_MAX_RECORDINGS);
				return 2;
			}
			paths[s][nr[s]++] = optarg;
			break;
		case 'R':
			if (parse_count("--resamples", optarg, DIFF_MAX_RESAMPLES, &n))
				return 2;
			if (n < 100) {
				cli_error("diff", "--resamples: at least 100 (a 95%% interval "
					  "from fewer is noise): %s", optarg);
				return 2;
			}
			run.resamples = (unsigned int)n;
			break;
		case 'S':
			if (parse_count("--seed", optarg, ULONG_MAX, &n))
				return 2;
			run.seed = n;
			break;
		case 'C':
		case 'J':
			if (fmt != FMT_TABLE) {
				cli_error("diff", "--csv and --json: one of them");
				return 2;
			}
			fmt = c == 'C' ? FMT_CSV : FMT_JSON;
			break;
		case 'r':
			report = optarg;
			break;
		case 'h':
			diff_usage(stdout);
			return 0;
		default:
			diff_usage(stderr);
			return 2;
		}
	}
	if (!nr[0] && !nr[1] && optind == argc - 2) {
		paths[0][nr[0]++] = argv[optind];
		paths[1][nr[1]++] = argv[optind + 1];
	} else if (optind != argc || !nr[0] || !nr[1]) {
		cli_error("diff", "%s", nr[0] || nr[1] ?
			  "--before and --after, each at least once, and no other trace" :
			  "two traces: BEFORE AFTER");
		return 2;
	}
	if (nr[0] == 1 && nr[1] == 1 &&
	    (diff_is_result(paths[0][0]) || diff_is_result(paths[1][0]))) {
		if (!diff_is_result(paths[0][0]) || !diff_is_result(paths[1][0]))
			return cli_error("diff", "%s and %s: a result (sim or sweep --csv) and a "
					 "trace: diff compares two of a kind", paths[0][0],
					 paths[1][0]);
		if (report || platform_spec)
			return cli_error("diff", "%s: with results (sim or sweep --csv), neither "
					 "--report nor -p: their figures are the replays'",
					 report ? "--report" : "-p");
		return diff_results(paths[0][0], paths[1][0], fmt);
	}
	if (report) {
		const struct cli_out_arg out = { .opt = "--report", .path = report };
		const char *ins[2 * DIFF_MAX_RECORDINGS];
		unsigned int nin = 0;

		for (s = 0; s < 2; s++)
			for (r = 0; r < nr[s]; r++)
				ins[nin++] = paths[s][r];
		if (cli_out_check("diff", &out, 1, ins, nin))
			return 1;
	}
	run.before.label = "before";
	run.after.label = "after";
	for (s = 0; s < 2; s++) {
		struct diff_side *side = s ? &run.after : &run.before;

		side->rec = calloc(nr[s], sizeof(*side->rec));
		if (!side->rec) {
			cli_error("diff", "%s", strerror(ENOMEM));
			goto out;
		}
		for (r = 0; r < nr[s]; r++) {
			side->nr = r + 1;
			if (read_recording(paths[s][r], platform_spec, &side->rec[r]))
				goto out;
		}
	}
	diff_warn_unlike(&run);
	if (diff_compare(&run)) {
		cli_error("diff", "%s", strerror(ENOMEM));
		goto out;
	}
	if (report && diff_report_write(&run, report))
		goto out;
	diff_print(&run, fmt);
	ret = 0;
out:
	diff_run_free(&run);
	return ret;
}

const char *diff_figure_name(enum diff_figure f)
{
	return figure_names[f];
}

const char *diff_figure_label(enum diff_figure f)
{
	return figure_text[f].label;
}

void diff_format(char *buf, size_t len, enum diff_figure f, double v, bool sign)
{
	char fmt[16];

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	snprintf(fmt, sizeof(fmt), "%s%s", sign ? "%+" : "%", figure_text[f].fmt + 1);
	snprintf(buf, len, fmt, v * figure_text[f].scale);
}
