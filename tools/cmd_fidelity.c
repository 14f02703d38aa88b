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
#include "recording.h"
#include "ivf.h"
#include "kstats.h"
#include "cpuidle/lab.h"

static void fidelity_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " fidelity [-p PLATFORM] [-g GOVERNOR] [-s PATH=VALUE]...\n"
		"       [--no-kernel-loop] [--json] TRACE...\n\n"
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
		"local timer interrupts, or unknown.  The governor is taken from the file name\n"
		"(NAME-GOVERNOR.*) unless -g names it; NAME-haltpollN.* also sets\n"
		"guest_halt_poll_ns to N us.  -s writes an attribute of each replayed\n"
		"system first, e.g. -s module/haltpoll/parameters/guest_halt_poll_ns=0.\n"
		"The replay follows the kernel's own idle loop as traced (its tick\n"
		"wake-ups, re-entries and residencies); --no-kernel-loop replays as sim\n"
		"does instead.  A platform with fewer states than the trace enters is\n"
		"warned about.  Nothing is written on standard output unless every\n"
		"trace succeeds.\n");
}

#define MAX_ATTRS	32
#define HALTPOLL_WINDOW_ATTR	"module/haltpoll/parameters/guest_halt_poll_ns"

/*
 * "io-menu.perf.txt.xz" -> "menu"; "io-haltpoll200.perf.txt.xz" ->
 * "haltpoll", recorded with guest_halt_poll_ns = 200 us (*@window_us; -1
 * when the name does not say).
 */
static int governor_from_name(const char *path, char *gov, size_t len, long long *window_us)
{
	const struct cpuidle_governor *const *g;
	const char *base = strrchr(path, '/'), *p;

	base = base ? base + 1 : path;
	*window_us = -1;
	for (g = cpuidle_builtin_governors(); *g; g++) {
		char pat[CPUIDLE_NAME_LEN + 2];

		snprintf(pat, sizeof(pat), "-%s", (*g)->name);
		for (p = strstr(base, pat); p; p = strstr(p + 1, pat)) {
			const char *d = p + strlen(pat), *e = d;

			if (!strcmp((*g)->name, "haltpoll"))
				while (*e >= '0' && *e <= '9' && e - d < 9)
					e++;
			if (*e != '.')
				continue;
			if (e > d)
				*window_us = strtoll(d, NULL, 10);
			snprintf(gov, len, "%s", (*g)->name);
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * The states the kernel entered in an interval file's intervals (highest
 * index + 1), or -1 if it cannot be read (the replay will say why).
 */
/*
 * What the kernel's own choices were, over the entries the interval file
 * records (the first IV_MAX_KSTATES of each interval the replay does not
 * skip): how many states it used, and its most frequent state.  Always
 * choosing that state is the baseline a port's fidelity must beat: on a
 * machine whose kernel nearly always takes one state, 99% says little.
 */
struct kernel_census {
	int nr_states;		/* highest state entered + 1 */
	uint64_t entries;	/* entries with a known state */
	uint64_t in_state[TRACE_MAX_STATES];
	int top;		/* the most frequent state, -1 if none */
};

static int kernel_census(const char *ivf, struct kernel_census *kc)
{
	struct ivf_reader *rd;
	struct idle_interval iv;
	char err[512];
	int ret, j;

	memset(kc, 0, sizeof(*kc));
	kc->top = -1;
	if (ivf_open(ivf, &rd, err, sizeof(err)))
		return -1;
	while ((ret = ivf_next(rd, &iv)) > 0) {
		for (j = 0; j < iv.nr_entries && j < IV_MAX_KSTATES; j++) {
			int k = iv.kstates[j];

			if (k < 0 || k >= TRACE_MAX_STATES)
				continue;
			if (k + 1 > kc->nr_states)
				kc->nr_states = k + 1;
			if (iv.flags & (IV_PARTIAL_START | IV_PARTIAL_END))
				continue;
			kc->entries++;
			kc->in_state[k]++;
		}
		/* the entries past those kept, where they were all in one state */
		if ((iv.flags & IV_KSTATES_REST) && !(iv.flags & (IV_PARTIAL_START | IV_PARTIAL_END))) {
			kc->entries += iv.nr_entries - IV_MAX_KSTATES;
			kc->in_state[iv.kstates[IV_MAX_KSTATES - 1]] += iv.nr_entries - IV_MAX_KSTATES;
		}
	}
	ivf_close(rd);
	for (j = 0; j < TRACE_MAX_STATES; j++)
		if (kc->in_state[j] && (kc->top < 0 || kc->in_state[j] > kc->in_state[kc->top]))
			kc->top = j;
	return ret < 0 ? -1 : 0;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* One trace: what the replay needs, prepared on the main thread */
struct fid_run {
	const char *path;
	bool ready;			/* prepared: replay it (else said why) */
	struct recording rec;		/* its strings are the run's attrs */
	struct cpuidle_platform platform;
	char gov[CPUIDLE_NAME_LEN];
	char ivf[4096];
	int tmp;
	struct kernel_census kc;
	int64_t clock_offset_ns;	/* the trace's (iv_notes) */
	struct cpuidle_lab_trace *trace;
	const char *run_attrs[MAX_ATTRS + RECORDING_MAX_ATTRS + 2];
	char window_attr[96];
	struct cpuidle_lab_run cfg;
};

/* The replays of every trace, in parallel, the rows in the traces' order */
struct fidelity {
	struct fid_run **runs;
	FILE *out;
	bool json, first;
	int status;
};

static int fidelity_plan(void *ctx, uint64_t index, struct cpuidle_lab_job *job)
{
	const struct fidelity *f = ctx;
	const struct fid_run *run = f->runs[index];

	if (!run->ready)
		return 1;	/* its error is said */
	job->cfg = run->cfg;
	return 0;
}

static void print_row(struct fidelity *f, const struct fid_run *run,
		      const struct cpuidle_lab_result *res)
{
	const struct kernel_census *kc = &run->kc;
	FILE *out = f->out;

	if (f->json) {
		fprintf(out, "%s{\"trace\": ", f->first ? "" : ", ");
		json_string(out, run->path);
		fprintf(out, ", \"governor\": ");
		json_string(out, run->gov);
		fprintf(out, ", \"platform\": ");
		json_string(out, run->platform.name);
		fprintf(out, ", \"kernel_entries\": %llu, \"entries\": %llu, \"matched\": %llu",
			(unsigned long long)res->kernel_entries,
			(unsigned long long)res->kernel_compared,
			(unsigned long long)res->kernel_matched);
		fprintf(out, ", \"kernel_top_state\": %d, \"kernel_top_entries\": %llu"
			", \"kernel_known_entries\": %llu", kc->top,
			(unsigned long long)(kc->top >= 0 ? kc->in_state[kc->top] : 0),
			(unsigned long long)kc->entries);
		fprintf(out, ", \"intervals\": %llu, \"timer_unknown\": %llu"
			", \"timer_guessed\": %llu", (unsigned long long)res->intervals,
			(unsigned long long)res->timer_unknown,
			(unsigned long long)res->timer_guessed);
		fprintf(out, ", \"kernel_windows\": %llu, \"windows_matched\": %llu"
			", \"windows_extra\": %llu, \"clock_offset_ns\": %lld}",
			(unsigned long long)res->kernel_windows,
			(unsigned long long)res->window_matched,
			(unsigned long long)res->window_extra,
			(long long)run->clock_offset_ns);
	} else {
		const char *base = strrchr(run->path, '/');

		fprintf(out, "%-36s %-8s %8llu %8llu %8llu %7.2f%% %7.2f%% %6.1f%%",
			base ? base + 1 : run->path, run->gov,
			(unsigned long long)res->kernel_entries,
			(unsigned long long)res->kernel_compared,
			(unsigned long long)res->kernel_matched,
			share(res->kernel_matched, res->kernel_compared),
			share(kc->top >= 0 ? kc->in_state[kc->top] : 0, kc->entries),
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
			  run->platform.name, run->platform.nr_cpus);
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

int cmd_fidelity(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, 'p' },
		{ "governor", required_argument, NULL, 'g' },
		{ "set", required_argument, NULL, 's' },
		{ "no-kernel-loop", no_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *platform_spec = NULL, *only_gov = NULL;
	static struct recording rec;	/* for the arguments' check */
	struct cpuidle_platform platform;
	const char *attrs[MAX_ATTRS + 2];	/* -s ..., NULL */
	struct fid_run **runs;
	bool json = false, no_kernel_loop = false;
	struct iv_stats *st;
	char *buf = NULL;
	size_t buflen = 0;
	FILE *out;
	int c, i, ret, status = 0, nr_attrs = 0;
	char err[512];

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:g:s:h", opts, NULL)) != -1) {
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
		case 'T':
			no_kernel_loop = true;
			break;
		case 'h':
			fidelity_usage(stdout);
			return 0;
		default:
			fidelity_usage(stderr);
			return 1;
		}
	}
	if (optind >= argc) {
		fidelity_usage(stderr);
		return 1;
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
		    governor_from_name(argv[i], gov, sizeof(gov), &window_us))
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
	else
		fprintf(out, "%-36s %-8s %8s %8s %8s %8s %8s %7s %7s %7s %8s %6s %7s %7s\n",
			"trace", "gov", "kernel", "compared", "matched", "fidelity", "1-state",
			"cover%", "windows", "wmatch", "wfidel", "extra", "tguess%", "tunkn%");
	/* each trace prepared here, in order: its notes and errors said now */
	runs = calloc((size_t)(argc - optind), sizeof(*runs));
	if (!runs) {
		fclose(out);
		free(buf);
		free(st);
		return cli_error("fidelity", "out of memory");
	}
	for (i = optind; i < argc; i++) {
		struct fid_run *run = calloc(1, sizeof(*run));
		long long window_us = -1;

		runs[i - optind] = run;
		if (!run) {
			cli_error("fidelity", "out of memory");
			status = 1;
			break;
		}
		run->path = argv[i];
		/*
		 * The governor: -g, else the recording's description, else the
		 * file's name; the platform and tunables: the description's,
		 * unless -p and -s say otherwise.
		 */
		if (cli_recording("fidelity", argv[i], &run->rec) ||
		    cli_recording_platform("fidelity", argv[i], &run->rec, platform_spec,
					   "haltpoll-vm", &run->platform)) {
			status = 1;
			continue;
		}
		if (only_gov)
			snprintf(run->gov, sizeof(run->gov), "%s", only_gov);
		else if (run->rec.governor[0])
			snprintf(run->gov, sizeof(run->gov), "%s", run->rec.governor);
		else
			governor_from_name(argv[i], run->gov, sizeof(run->gov), &window_us);
		if (!only_gov && run->rec.governor[0] && !cli_builtin_governor(run->gov)) {
			cli_error("fidelity", "%s: recorded under governor '%s', which has no "
				  "port here (-g names one)", argv[i], run->gov);
			status = 1;
			continue;
		}
		if (cli_intervals("fidelity", argv[i], run->ivf, sizeof(run->ivf), &run->tmp, st)) {
			status = 1;
			continue;
		}
		run->clock_offset_ns = st->notes.clock_offset_ns;
		if (kernel_census(run->ivf, &run->kc))
			run->kc.nr_states = -1;	/* the replay says why */
		if (kstats_platform_mismatch(run->kc.nr_states, NULL, &run->platform, err,
					     sizeof(err)))
			cli_say(CLI_NAME " fidelity: warning: %s: %s (is -p the machine "
				"that recorded it?)\n", argv[i], err);
		/* replayed once: read from the file by the run */
		ret = cpuidle_lab_trace_open(run->ivf, &(struct cpuidle_lab_open_options){
						     .stream = true }, &run->trace, err, sizeof(err));
		if (ret) {
			cli_error("fidelity", "%s", err);
			status = 1;
			continue;
		}
		run->cfg = (struct cpuidle_lab_run){
			.trace = run->trace,
			.platform = &run->platform,
			.governor = run->gov,
			.governors = cli_plugin_governors(),
			.qos_us = -1,
			.tick_periodic = run->rec.tick_periodic,
			.attrs = run->run_attrs,
			.kernel_loop = !no_kernel_loop,
		};
		/*
		 * The name's window first, then the recording's writes, then
		 * -s: the later write of a path wins.
		 */
		if (window_us >= 0) {
			snprintf(run->window_attr, sizeof(run->window_attr),
				 HALTPOLL_WINDOW_ATTR "=%lld", window_us * 1000);
			run->run_attrs[0] = run->window_attr;
		}
		if (cli_recording_attrs("fidelity", argv[i], &run->rec, attrs,
					run->run_attrs + (window_us >= 0),
					MAX_ATTRS + RECORDING_MAX_ATTRS)) {
			status = 1;
			continue;
		}
		run->ready = true;
	}
	/* then replayed side by side (lab/sim/batch.c), the rows in order */
	if (i == argc) {
		static const struct cpuidle_lab_batch_ops ops = {
			.plan = fidelity_plan,
			.done = fidelity_done,
			.keep_going = true,
		};
		struct fidelity f = { .runs = runs, .out = out, .json = json, .first = true };
		struct cpuidle_lab_batch_error fail;

		if (cpuidle_lab_batch_run(&ops, &f, (uint64_t)(argc - optind), 0, &fail)) {
			cli_error("fidelity", "%s", fail.msg[0] ? fail.msg : strerror(-fail.error));
			status = 1;
		}
		if (f.status)
			status = 1;
	}
	for (i = 0; i < argc - optind; i++) {
		if (runs[i])
			cpuidle_lab_trace_close(runs[i]->trace);
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
