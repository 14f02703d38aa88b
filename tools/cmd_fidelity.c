// SPDX-License-Identifier: MIT
/*
 * cmd_fidelity.c - "cpuidle fidelity": replay traces recorded under a
 * kernel governor through our port of it, on the recording machine's
 * platform, and say how often we chose the state the kernel chose, and,
 * for haltpoll, how often we computed the polling window it logged.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "intervals.h"
#include "recording.h"
#include "cpuidle/lab.h"

static void fidelity_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " fidelity [-p PLATFORM] [-g GOVERNOR] [-s PATH=VALUE]...\n"
		"       [--no-kernel-loop] [--csv | --json] TRACE...\n\n"
		"Replay each trace through the governor that recorded it, on the recording\n"
		"machine's platform (default haltpoll-vm), and print the share of idle\n"
		"entries where it chose the kernel's state.  Entries are compared in\n"
		"order within each idle interval, as far as both made them (a replay may\n"
		"re-enter idle fewer times than the kernel did; cover%% says how many were\n"
		"compared).  Where the kernel logged haltpoll's polling window\n"
		"(power:guest_halt_poll_ns), also print the share of those adjustments\n"
		"after which our replay, in the same entry, entered the same state and\n"
		"held the same window (unreproduced ones count as misses), and our extra\n"
		"window changes.  tguess%% and tunkn%% are the shares of replayed intervals\n"
		"whose next timer the trace did not show: reconstructed from the CPU's\n"
		"local timer interrupts, or unknown.  The governor is taken from the\n"
		"recording's description, else its file name (NAME-GOVERNOR.*;\n"
		"NAME-haltpollN.* also sets guest_halt_poll_ns to N us), unless -g names\n"
		"it.  The replay follows the kernel's own idle loop as traced (its tick\n"
		"wake-ups, re-entries and residencies).  A platform with fewer states\n"
		"than the trace enters is warned about.  Nothing is written on standard\n"
		"output unless every trace succeeds.\n\n"
		"  -p, --platform SPEC     the recording machine's platform (default: the\n"
		"                          recording's description's, else haltpoll-vm)\n"
		"  -g, --governor NAME     the governor every TRACE was recorded under\n"
		"  -s, --set PATH=VALUE    write an attribute of each replayed system first,\n"
		"                          e.g. -s module/haltpoll/parameters/\n"
		"                          guest_halt_poll_ns=0; repeatable\n"
		"      --no-kernel-loop    replay as sim does, not the kernel's idle loop\n"
		"      --csv               a header, then a row per trace (the JSON's names)\n"
		"      --json              one JSON array, an object per trace\n"
		CLI_USAGE_QUIET
		"  -h, --help              this text\n\n"
		"See cpuidle-fidelity(1).\n");
}

#define MAX_ATTRS	32

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One trace: its plan (lab/sim/fidelity.c), made on the main thread */
struct fid_run {
	const char *path;
	char ivf[4096];
	int tmp;
	struct cpuidle_lab_trace *trace;
	struct cpuidle_lab_fidelity *plan;	/* NULL: not replayed (said why) */
};

/* The replays of every trace, in parallel, the rows in the traces' order */
struct fidelity {
	struct fid_run **runs;
	FILE *out;
	bool json, csv, first;
	int status;
};

/* a plan's notes and warnings ("PATH: ..."; @ctx the path), as the other commands say theirs */
static void fidelity_note(void *ctx, bool warning, const char *msg)
{
	cli_plan_note("fidelity", ctx, warning, msg);
}

static int fidelity_plan(void *ctx, uint64_t index, struct cpuidle_lab_job *job)
{
	const struct fidelity *f = ctx;
	const struct fid_run *run = f->runs[index];

	if (!run->plan)
		return 1;	/* its error is said */
	job->cfg = *cpuidle_lab_fidelity_run(run->plan);
	return 0;
}

static void print_row(struct fidelity *f, const struct fid_run *run,
		      const struct cpuidle_lab_result *res)
{
	const struct cpuidle_lab_census *kc = cpuidle_lab_fidelity_census(run->plan);
	const struct cpuidle_lab_run *cfg = cpuidle_lab_fidelity_run(run->plan);
	FILE *out = f->out;

	if (f->csv) {
		cli_csv_field(out, run->path);
		fputc(',', out);
		cli_csv_field(out, cfg->governor);
		fputc(',', out);
		cli_csv_field(out, cfg->platform->name);
		fprintf(out, ",%llu,%llu,%llu,", (unsigned long long)res->kernel_entries,
			(unsigned long long)res->kernel_compared,
			(unsigned long long)res->kernel_matched);
		if (kc->top_state >= 0)		/* none (-1): empty, null in the JSON */
			fprintf(out, "%d", kc->top_state);
		fprintf(out, ",%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%lld\n",
			(unsigned long long)kc->top_entries, (unsigned long long)kc->entries,
			(unsigned long long)res->intervals, (unsigned long long)res->timer_unknown,
			(unsigned long long)res->timer_guessed,
			(unsigned long long)res->kernel_windows,
			(unsigned long long)res->window_matched,
			(unsigned long long)res->window_extra,
			(long long)cpuidle_lab_fidelity_clock_offset(run->plan));
	} else if (f->json) {
		fprintf(out, "%s{\"trace\": ", f->first ? "" : ", ");
		json_string(out, run->path);
		fprintf(out, ", \"governor\": ");
		json_string(out, cfg->governor);
		fprintf(out, ", \"platform\": ");
		json_string(out, cfg->platform->name);
		fprintf(out, ", \"kernel_entries\": %llu, \"entries\": %llu, \"matched\": %llu",
			(unsigned long long)res->kernel_entries,
			(unsigned long long)res->kernel_compared,
			(unsigned long long)res->kernel_matched);
		fprintf(out, ", \"kernel_top_state\": ");
		if (kc->top_state >= 0)
			fprintf(out, "%d", kc->top_state);
		else
			fprintf(out, "null");
		fprintf(out, ", \"kernel_top_entries\": %llu, \"kernel_known_entries\": %llu",
			(unsigned long long)kc->top_entries, (unsigned long long)kc->entries);
		fprintf(out, ", \"intervals\": %llu, \"timer_unknown\": %llu"
			", \"timer_guessed\": %llu", (unsigned long long)res->intervals,
			(unsigned long long)res->timer_unknown,
			(unsigned long long)res->timer_guessed);
		fprintf(out, ", \"kernel_windows\": %llu, \"windows_matched\": %llu"
			", \"windows_extra\": %llu, \"clock_offset_ns\": %lld}",
			(unsigned long long)res->kernel_windows,
			(unsigned long long)res->window_matched,
			(unsigned long long)res->window_extra,
			(long long)cpuidle_lab_fidelity_clock_offset(run->plan));
	} else {
		const char *base = strrchr(run->path, '/');

		fprintf(out, "%-36s %-8s %8llu %8llu %8llu %7.2f%% %7.2f%% %6.1f%%",
			base ? base + 1 : run->path, cfg->governor,
			(unsigned long long)res->kernel_entries,
			(unsigned long long)res->kernel_compared,
			(unsigned long long)res->kernel_matched,
			share(res->kernel_matched, res->kernel_compared),
			share(kc->top_entries, kc->entries),
			share(res->kernel_compared, res->kernel_entries));
		if (res->kernel_windows || res->window_extra)
			fprintf(out, " %7llu %7llu %7.2f%% %6llu",
				(unsigned long long)res->kernel_windows,
				(unsigned long long)res->window_matched,
				share(res->window_matched, res->kernel_windows),
				(unsigned long long)res->window_extra);
		else
			fprintf(out, " %7s %7s %8s %6s", "-", "-", "-", "-");
		fprintf(out, " %6.1f%% %6.1f%%\n", share(res->timer_guessed, res->intervals),
			share(res->timer_unknown, res->intervals));
	}
	f->first = false;
}

/* a trace's replay is in: its row, or why there is none */
static int fidelity_done(void *ctx, uint64_t index, const struct cpuidle_lab_result *res)
{
	struct fidelity *f = ctx;
	const struct fid_run *run = f->runs[index];

	if (!res)
		return 0;	/* not prepared: said then */
	if (res->error == -ERANGE) {
		cli_error("fidelity", "%s: the trace has CPUs that platform %s does not (it "
			  "has %u): give the machine that recorded it with -p", run->path,
			  cpuidle_lab_fidelity_run(run->plan)->platform->name,
			  cpuidle_lab_fidelity_run(run->plan)->platform->nr_cpus);
		f->status = 1;
	} else if (res->error) {
		cli_error("fidelity", "%s: replay failed: %s", run->path, strerror(-res->error));
		f->status = 1;
	} else {
		cli_warn_timer_unknown("fidelity", run->path, res->intervals, res->timer_guessed,
				       res->timer_unknown);
		cli_note_extrapolated("fidelity", run->path, res);
		print_row(f, run, res);
	}
	return 0;
}

static const struct option fidelity_longopts[] = {
	{ "platform", required_argument, NULL, 'p' },
	{ "governor", required_argument, NULL, 'g' },
	{ "set", required_argument, NULL, 's' },
	{ "no-kernel-loop", no_argument, NULL, 'T' },
	{ "json", no_argument, NULL, 'J' },
	{ "csv", no_argument, NULL, 'C' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_fidelity_opts = {
	.shortopts = "p:g:s:qh",
	.longopts = fidelity_longopts,
};

int cmd_fidelity(int argc, char **argv)
{
	const char *platform_spec = NULL, *only_gov = NULL;
	static struct recording rec;	/* for the arguments' check */
	struct cpuidle_platform platform;	/* -p, checked */
	const char *attrs[MAX_ATTRS + 2];	/* -s ..., NULL */
	struct fid_run **runs;
	bool json = false, csv = false, no_kernel_loop = false;
	struct iv_stats *st;
	char *buf = NULL;
	size_t buflen = 0;
	FILE *out;
	int c, i, ret, status = 0, nr_attrs = 0;
	char err[512];

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_fidelity_opts)) != -1) {
		switch (c) {
		case 'p':
			platform_spec = optarg;
			break;
		case 'g':
			only_gov = optarg;
			break;
		case 's':
			if (nr_attrs == MAX_ATTRS)
				return cli_error("fidelity", "at most %d -s", MAX_ATTRS);
			attrs[nr_attrs++] = optarg;
			break;
		case 'J':
			json = true;
			break;
		case 'C':
			csv = true;
			break;
		case 'T':
			no_kernel_loop = true;
			break;
		case 'h':
			fidelity_usage(stdout);
			return 0;
		default:
			fidelity_usage(stderr);
			return 2;
		}
	}
	if (csv && json)
		return cli_usage_error("fidelity", "--csv and --json: one of them");
	if (optind >= argc) {
		fidelity_usage(stderr);
		return 2;
	}
	attrs[nr_attrs] = NULL;
	if (platform_spec) {	/* a bad -p is said before any work */
		ret = cpuidle_platform_load(platform_spec, &platform, err, sizeof(err));
		if (ret)
			return cli_error("fidelity", "%s", err[0] ? err : strerror(-ret));
	}
	/* every argument checked before the first line of output */
	if (only_gov) {
		const struct cpuidle_governor *g;

		if (strchr(only_gov, ','))
			return cli_error("fidelity", "-g '%s': one governor, the one the traces "
					 "were recorded under", only_gov);
		if (!strcmp(only_gov, CPUIDLE_LAB_ORACLE))
			return cli_error("fidelity", "-g oracle: the lab's clairvoyant floor, no "
					 "governor a kernel ran");
		if (cli_governor("fidelity", only_gov, &g))
			return 1;
		only_gov = g->name;	/* a plugin's by its governor's name */
	}
	if (cli_check_attrs("fidelity", attrs))	/* a plugin's tunables once it is loaded */
		return 1;
	for (i = optind; i < argc; i++) {
		char gov[CPUIDLE_NAME_LEN];
		long long window_us;

		if (strcmp(argv[i], "-") && access(argv[i], R_OK))
			return cli_error("fidelity", "%s: %s", argv[i], strerror(errno));
		if (cli_recording("fidelity", argv[i], &rec))
			return 1;
		if (!only_gov && !rec.governor[0] &&
		    cpuidle_lab_governor_from_name(argv[i], gov, sizeof(gov), &window_us))
			return cli_error("fidelity", "%s: which governor recorded it? (-g)",
					 argv[i]);
	}
	/*
	 * The output is kept until every trace is done: a command that fails
	 * writes nothing on stdout (a header, "[" or some rows would read as
	 * a result).
	 */
	out = open_memstream(&buf, &buflen);
	if (!out)
		return cli_error("fidelity", "out of memory");
	st = malloc(sizeof(*st));
	if (!st) {
		fclose(out);
		free(buf);
		return cli_error("fidelity", "out of memory");
	}
	if (json)
		fprintf(out, "[");
	else if (csv)
		fprintf(out, "trace,governor,platform,kernel_entries,entries,matched,"
			"kernel_top_state,kernel_top_entries,kernel_known_entries,intervals,"
			"timer_unknown,timer_guessed,kernel_windows,windows_matched,windows_extra,"
			"clock_offset_ns\n");
	else
		fprintf(out, "%-36s %-8s %8s %8s %8s %8s %8s %7s %7s %7s %8s %6s %7s %7s\n",
			"trace", "gov", "kernel", "compared", "matched", "fidelity", "1-state",
			"cover%", "windows", "wmatch", "wfidel", "extra", "tguess%", "tunkn%");
	/*
	 * each trace prepared here, in order: its errors said now, its notes
	 * too, but those many traces give, held and said once at the end
	 */
	cli_notes_hold((unsigned int)(argc - optind));
	runs = calloc((size_t)(argc - optind), sizeof(*runs));
	if (!runs) {
		fclose(out);
		free(buf);
		free(st);
		return cli_error("fidelity", "out of memory");
	}
	for (i = optind; i < argc; i++) {
		struct fid_run *run = calloc(1, sizeof(*run));
		const struct cpuidle_lab_fidelity_options opt = {
			.governor = only_gov,
			.platform = platform_spec,
			.attrs = attrs,
			.governors = cli_plugin_governors(),
			.no_kernel_loop = no_kernel_loop,
			.note = fidelity_note,
			.note_ctx = argv[i],
		};

		runs[i - optind] = run;
		if (!run) {
			cli_error("fidelity", "out of memory");
			status = 1;
			break;
		}
		run->path = argv[i];
		if (cli_intervals("fidelity", argv[i], run->ivf, sizeof(run->ivf), &run->tmp, st)) {
			status = 1;
			continue;
		}
		/* replayed once: read from the file by the run */
		ret = cpuidle_lab_trace_open(run->ivf, &(struct cpuidle_lab_open_options){
						     .stream = true }, &run->trace, err, sizeof(err));
		/*
		 * The governor: -g, else the recording's description, else the
		 * file's name; the platform and tunables: the description's,
		 * unless -p and -s say otherwise (lab/sim/fidelity.c).
		 */
		if (!ret)
			ret = cpuidle_lab_fidelity_plan(argv[i], run->trace, &opt, &run->plan, err,
							sizeof(err));
		if (ret) {
			cli_error("fidelity", "%s", err);
			status = 1;
		}
	}
	/* then replayed side by side (lab/sim/batch.c), the rows in order */
	if (i == argc) {
		static const struct cpuidle_lab_batch_ops ops = {
			.plan = fidelity_plan,
			.done = fidelity_done,
			.keep_going = true,
		};
		struct fidelity f = { .runs = runs, .out = out, .json = json, .csv = csv,
				      .first = true };
		struct cpuidle_lab_batch_error fail;

		if (cpuidle_lab_batch_run(&ops, &f, (uint64_t)(argc - optind), 0, &fail)) {
			cli_error("fidelity", "%s", fail.msg[0] ? fail.msg : strerror(-fail.error));
			status = 1;
		}
		if (f.status)
			status = 1;
	}
	for (i = 0; i < argc - optind; i++) {
		if (runs[i]) {
			cpuidle_lab_fidelity_free(runs[i]->plan);
			cpuidle_lab_trace_close(runs[i]->trace);
		}
		if (runs[i] && runs[i]->tmp)
			cli_temp_remove(runs[i]->ivf);
		free(runs[i]);
	}
	free(runs);
	if (json)
		fprintf(out, "]\n");
	free(st);
	if (fclose(out)) {
		free(buf);
		return cli_error("fidelity", "out of memory");
	}
	if (!status && buflen) {
		/*
		 * A failed write ends the command with its own error; a reader
		 * that went away ends it as main() does, quietly.
		 */
		if (fwrite(buf, 1, buflen, stdout) != buflen || fflush(stdout)) {
			free(buf);
			if (errno == EPIPE) {
				raise(SIGPIPE);
				return 1;
			}
			return cli_error("fidelity", "stdout: %s", strerror(errno));
		}
	}
	free(buf);
	return status;
}
