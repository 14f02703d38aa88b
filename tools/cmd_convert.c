// SPDX-License-Identifier: MIT
/*
 * cmd_convert.c - "cpuidle convert": a trace into an interval file, or
 * its intervals as CSV.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "trace.h"
#include "convert.h"
#include "ivf.h"

#define CONVERT_HINT	"usage: " CLI_NAME " convert TRACE -o FILE.ivf, or " CLI_NAME \
			" convert TRACE|FILE.ivf --csv [-o FILE.csv] (--help: more)"

static void convert_usage(FILE *f)
{
	fprintf(f, "usage: " CLI_NAME " convert TRACE -o FILE.ivf\n"
		   "       " CLI_NAME " convert TRACE|FILE.ivf --csv [-o FILE.csv]\n\n"
		   "Parse a trace (perf.data, trace.dat, perf script, ftrace or idlestat\n"
		   "text; plain, xz, gzip or zstd) once into an idle interval file\n"
		   "(cpuidle-ivf(5)) for fast replays.  It may not be the input; an existing\n"
		   "FILE is replaced only once the conversion has succeeded.\n\n"
		   "  -o, --output FILE   the interval file (with --csv: the CSV, \"-\" or none\n"
		   "                      for standard output)\n"
		   "      --csv           the idle intervals of a trace or an interval file\n"
		   "                      as CSV instead\n"
		   "  -q, --quiet         no notes, warnings or progress on stderr\n"
		   "  -h, --help          this text\n\n"
		   "--csv: one row per interval; times in ns, an empty field where there is\n"
		   "no value:\n"
		   "  cpu             the CPU\n"
		   "  start_ns        idle entry, trace clock\n"
		   "  idle_ns         entry to the wake-up that needed the CPU\n"
		   "  next_timer_ns   entry to the next timer event (the periodic tick not\n"
		   "                  counted); inf: none armed; empty: unknown (the CPU's\n"
		   "                  timers not seen yet)\n"
		   "  busy_ns         wake-up to the CPU's next idle entry (0 for its last)\n"
		   "  wake            what ended it: timer, tick, resched, call-func, irq,\n"
		   "                  unknown\n"
		   "  irq             the device interrupt's name (wake irq), quoted if need be\n"
		   "  qos_ns          CPU latency QoS in force; empty: no request\n"
		   "  entries         kernel idle entries merged into the interval\n"
		   "  kernel_state    index of the state the kernel entered first\n"
		   "  kernel_idle_ns  time the kernel accounted in idle states\n"
		   "  partial         start, end or both: the trace began or ended inside it\n"
		   "  timer_unknown   1 if the next timer cannot be told, else 0\n"
		   "  timer_guessed   1 if the trace shows no timer armed at entry and the next\n"
		   "                  timer was reconstructed from the CPU's local timer\n"
		   "                  interrupts (see cpuidle(1)), else 0\n\n"
		   "See cpuidle-convert(1).\n");
}

/* is @path a binary trace (its places bytes, not lines)? Only asked for a warning */
static bool binary_trace(const char *path)
{
	struct trace_reader *r;
	char err[64];
	bool binary;

	/* a pipe's bytes are the command's, read once */
	if (!ivf_path_rereadable(path) || ivf_is_file(path) ||
	    trace_open(path, &r, err, sizeof(err)))
		return false;
	binary = trace_is_binary(r);
	trace_close(r);
	return binary;
}

void cli_warn_lost(const char *cmd, const char *path, uint64_t gaps, uint64_t events,
		   unsigned int cpu, uint64_t line, int64_t n)
{
	char first[64], more[96] = "";

	if (!gaps)
		return;
	if (n > 0)
		snprintf(first, sizeof(first), "%lld events", (long long)n);
	else
		snprintf(first, sizeof(first), "events (how many, it does not say)");
	if (gaps > 1)
		snprintf(more, sizeof(more), "; %llu such gaps, %llu events lost in all",
			 (unsigned long long)gaps, (unsigned long long)events);
	cli_warn_on(cmd, path, "the trace lost %s on CPU %u (%s %llu): "
		"intervals across the gap are left out%s", first, cpu,
		binary_trace(path) ? "byte" : "line", (unsigned long long)line, more);
}

void cli_note_intervals(const char *cmd, const char *path, const struct trace_ivf_approx *a,
			const char *platform)
{
	char unkept[160] = "", misses[200] = "";

	if (a->entries_unkept || a->residency_spread)
		snprintf(unkept, sizeof(unkept), "; %llu entries past the %d an interval "
			 "keeps or beyond 4.29 s have even shares of its idle time%s",
			 (unsigned long long)(a->entries_unkept + a->residency_spread),
			 IV_MAX_KSTATES, a->states_unkept ? " (some the last kept state)" : "");
	if (a->misses_unplaced)
		snprintf(misses, sizeof(misses), "; the kernel's above/below marks %llu "
			 "intervals of several entries, not the entries: %s",
			 (unsigned long long)a->misses_unplaced,
			 platform ? "judged by the platform's table instead" :
				    "not known without -p");
	cli_note_on(cmd, path, "an interval file, read back as the idle events it was "
		    "built from: each kept entry's state and length exact%s; where %llu re-entries "
		    "fall inside their intervals is approximate (cluster rows)%s", unkept,
		    (unsigned long long)a->gaps_spread, misses);
}

void cli_json_read_back(const struct trace_ivf_approx *a)
{
	if (!a) {
		printf("\"read_back\": null");
		return;
	}
	printf("\"read_back\": {\"entries\": %llu, \"entries_shared\": %llu, "
	       "\"states_guessed\": %llu, \"gaps_spread\": %llu, \"verdicts_unplaced\": %llu}",
	       (unsigned long long)a->entries,
	       (unsigned long long)(a->entries_unkept + a->residency_spread),
	       (unsigned long long)a->states_unkept, (unsigned long long)a->gaps_spread,
	       (unsigned long long)a->misses_unplaced);
}

/* Cap on the CPUs a warning names one by one (ranges count as one). */
#define WARN_MAX_CPU_RANGES	16

void cli_warn_idle_less(const char *cmd, const char *path, const uint64_t *mask,
			unsigned int nr)
{
	char list[256];
	size_t at = 0;
	unsigned int cpu, end, ranges = 0;

	if (!nr)
		return;
	list[0] = '\0';
	for (cpu = 0; cpu < LAB_MAX_CPUS; cpu = end + 1) {
		end = cpu;
		if (!((mask[cpu / 64] >> (cpu % 64)) & 1))
			continue;
		while (end + 1 < LAB_MAX_CPUS && (mask[(end + 1) / 64] >> ((end + 1) % 64)) & 1)
			end++;
		if (ranges++ == WARN_MAX_CPU_RANGES) {
			at += (size_t)snprintf(list + at, sizeof(list) - at, ",...");
			break;
		}
		if (end == cpu)
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%u", at ? "," : "",
					       cpu);
		else
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%u-%u",
					       at ? "," : "", cpu, end);
		if (at >= sizeof(list))
			break;
	}
	cli_warn_on(cmd, path, "CPU%s %s %s events but no idle entry or "
		"exit (power:cpu_idle): taken as always busy; was %s traced?",
		nr == 1 ? "" : "s", list, nr == 1 ? "has" : "have", nr == 1 ? "it" : "each");
}

void cli_trace_notes(const char *cmd, const char *path, const struct iv_notes *n)
{
	if (n->clock_offset_ns) {
		int64_t o = n->clock_offset_ns;
		double ms = (double)(o < 0 ? -o : o) * 1e-6;
		char at[48] = "", off[48], unknown[96] = "";

		if (n->clock_line)
			snprintf(at, sizeof(at), " from line %llu",
				 (unsigned long long)n->clock_line);
		if (ms >= 1000.0)
			snprintf(off, sizeof(off), "%.6f s", ms * 1e-3);
		else
			snprintf(off, sizeof(off), "%.3f ms", ms);
		if (n->clock_unknown)
			snprintf(unknown, sizeof(unknown), "; %llu interval%s before the measure "
				 "%s unknown timers", (unsigned long long)n->clock_unknown,
				 n->clock_unknown == 1 ? "" : "s",
				 n->clock_unknown == 1 ? "has" : "have");
		cli_note_on(cmd, path, "the trace clock is %s %s CLOCK_MONOTONIC (the ticks' "
			    "now=%s; perf record without -k CLOCK_MONOTONIC, trace_clock=local "
			    "or perf script --reltime?): timer expiries corrected into trace "
			    "time%s", off, o > 0 ? "behind" : "ahead of", at, unknown);
	}
	cli_warn_lost(cmd, path, n->lost_gaps, n->lost_events, n->lost_cpu, n->lost_line,
		      n->lost_n);
	cli_warn_idle_less(cmd, path, n->idle_less, n->nr_idle_less);
}

/*
 * An interval file's trace notes (version 6 on), said as at its conversion,
 * and into @out where the caller reports them (sim --json's clock offset).
 * A file the notes cannot be read from is left to the replay's own error.
 */
static void ivf_notes(const char *cmd, const char *path, struct iv_stats *out)
{
	const struct ivf_info *info;
	struct ivf_reader *r;
	char err[600];

	if (ivf_open(path, &r, err, sizeof(err)))
		return;
	info = ivf_reader_info(r);
	if (info->notes_known) {
		cli_trace_notes(cmd, path, &info->notes);
		if (out)
			out->notes = info->notes;
	}
	ivf_close(r);
}

/* a temporary interval file's name: "cpuidle-PID-XXXXXX", its command's PID */
#define TEMP_PREFIX	"cpuidle-"

/*
 * What a killed run (SIGKILL, a crash of the machine) left in @dir: our
 * user's temporary interval files whose command no longer runs.  A PID
 * reused by another process keeps its file (the safe way round).
 */
static void remove_stale_temps(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end, path[4096];
		struct stat st;
		long pid;

		if (strncmp(e->d_name, TEMP_PREFIX, strlen(TEMP_PREFIX)))
			continue;
		errno = 0;
		pid = strtol(e->d_name + strlen(TEMP_PREFIX), &end, 10);
		if (errno || pid <= 0 || pid > INT_MAX || *end != '-' || strlen(end + 1) != 6)
			continue;
		if (pid == getpid() || !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;	/* still running (or not ours to ask) */
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path) ||
		    lstat(path, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		unlink(path);
	}
	closedir(d);
}

int cli_intervals(const char *cmd, const char *path, char *ivf, size_t len, int *tmp,
		  struct iv_stats *out)
{
	const char *dir = getenv("TMPDIR");
	struct iv_stats *stats;
	char err[1024];
	int fd, ret;

	if (!dir || !*dir)
		dir = "/tmp";	/* as mkstemp(3) users and the lab's own temporaries */
	*tmp = 0;
	if (out)
		memset(out, 0, sizeof(*out));
	if (ivf_is_file(path)) {
		snprintf(ivf, len, "%s", path);
		ivf_notes(cmd, path, out);
		return 0;
	}
	remove_stale_temps(dir);
	snprintf(ivf, len, "%s/" TEMP_PREFIX "%d-XXXXXX", dir, (int)getpid());
	fd = mkstemp(ivf);
	if (fd < 0)
		return cli_error(cmd, "cannot create a temporary file in %s: %s", dir,
				 strerror(errno));
	close(fd);
	cli_temp_register(ivf);
	stats = malloc(sizeof(*stats));
	if (!stats) {
		cli_temp_remove(ivf);
		return cli_error(cmd, "out of memory");
	}
	ret = lab_convert(path, ivf, stats, cli_progress, "parsing", err, sizeof(err));
	cli_progress_end();
	if (ret) {
		free(stats);
		cli_temp_remove(ivf);
		/* the temporary file's own failure: say where it was, and what to do */
		if (!strncmp(err, ivf, strlen(ivf)) && err[strlen(ivf)] == ':')
			return cli_error(cmd, "%s: cannot write its temporary interval file in %s:%s "
					 "(TMPDIR chooses another directory)", path, dir,
					 err + strlen(ivf) + 1);
		return cli_error(cmd, "%s", err[0] ? err : strerror(-ret));
	}
	cli_trace_notes(cmd, path, &stats->notes);
	if (out)
		*out = *stats;
	free(stats);
	*tmp = 1;
	return 0;
}

/*
 * --csv: one row per interval.  The kernel's default CPU latency value is
 * what reconstruction records when no request is in force; the row leaves
 * the field empty for it.
 */
#define CSV_HEADER	"cpu,start_ns,idle_ns,next_timer_ns,busy_ns,wake,irq,qos_ns,entries," \
			"kernel_state,kernel_idle_ns,partial,timer_unknown,timer_guessed\n"
#define CSV_NO_QOS	PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE

/* A row; -1 if the write failed. */
static int csv_row(FILE *f, const struct ivf_reader *rd, const struct idle_interval *iv)
{
	static const char *const partial[] = { "", "start", "end", "both" };
	bool timer_unknown = iv->flags & IV_TIMER_UNKNOWN;
	char timer[24], qos[24], kstate[8];

	if (timer_unknown)
		timer[0] = '\0';
	else if (iv->timer_ns == IV_NO_TIMER)
		snprintf(timer, sizeof(timer), "inf");
	else
		snprintf(timer, sizeof(timer), "%lld", (long long)iv->timer_ns);
	if (iv->qos_us == CSV_NO_QOS)
		qos[0] = '\0';
	else
		snprintf(qos, sizeof(qos), "%lld", (long long)iv->qos_us * 1000);
	if (iv->nr_entries && iv->kstates[0] >= 0)
		snprintf(kstate, sizeof(kstate), "%d", iv->kstates[0]);
	else
		kstate[0] = '\0';
	if (fprintf(f, "%u,%lld,%lld,%s,%lld,%s,", iv->cpu, (long long)iv->start_ns,
		    (long long)iv->idle_ns, timer, (long long)iv->busy_ns,
		    iv_wake_name(iv->wake)) < 0 ||
	    cli_csv_field(f, iv->irq >= 0 ? ivf_irq_name(rd, iv->irq) : ""))
		return -1;
	return fprintf(f, ",%s,%u,%s,%lld,%s,%d,%d\n", qos, iv->nr_entries, kstate,
		       (long long)iv->kernel_idle_ns,
		       partial[iv->flags & (IV_PARTIAL_START | IV_PARTIAL_END)],
		       timer_unknown, !!(iv->flags & IV_TIMER_GUESSED)) < 0 ? -1 : 0;
}

/*
 * The line above the header: the machine's CPUs, whether or not each has
 * an interval below ("# nr_cpus=2 never_idle=1"; never_idle= lists the
 * CPUs without a single idle entry or exit, comma-separated, empty for
 * none; left out where an old interval file does not say).  pandas reads
 * past it with read_csv(comment="#").  Return: -1 if the write failed.
 */
static int csv_machine(FILE *f, const struct ivf_info *info)
{
	const struct iv_notes *n = &info->notes;
	unsigned int cpu, listed = 0;

	if (fprintf(f, "# nr_cpus=%u", info->nr_cpus) < 0)
		return -1;
	if (info->notes_known) {
		if (fputs(" never_idle=", f) < 0)
			return -1;
		for (cpu = 0; cpu < info->nr_cpus && cpu < LAB_MAX_CPUS; cpu++)
			if (n->idle_less[cpu / 64] >> (cpu % 64) & 1 &&
			    fprintf(f, "%s%u", listed++ ? "," : "", cpu) < 0)
				return -1;
	}
	return fputc('\n', f) == EOF ? -1 : 0;
}

/*
 * "convert --csv": the intervals of @in (a trace, converted into a
 * temporary interval file, or an interval file) to @out (NULL or "-":
 * standard output).  A regular output file is replaced only if the dump
 * succeeds.
 *
 * Return: 0, or 1 after a message.
 */
static int convert_csv(const char *in, const char *out)
{
	const char *out_name = out && strcmp(out, "-") ? out : NULL;
	const struct cli_out_arg oa = { "-o", out_name, false };
	void (*old_pipe)(int) = SIG_ERR;
	struct ivf_reader *rd = NULL;
	struct cli_out o = { 0 };
	struct idle_interval iv;
	bool broken_pipe = false;
	char ivf[4096], err[1024] = "";
	FILE *f = stdout;
	int tmp = 0, ret;

	if (cli_out_check("convert", &oa, 1, &in, 1))
		return 1;
	if (cli_intervals("convert", in, ivf, sizeof(ivf), &tmp, NULL))
		return 1;
	ret = ivf_open(ivf, &rd, err, sizeof(err));
	if (ret) {
		ret = cli_error("convert", "%s", err[0] ? err : strerror(-ret));
		goto out;
	}
	if (out_name) {
		if (cli_out_open("convert", NULL, &o, out_name)) {
			ret = 1;
			goto out;
		}
		f = o.f;
	}
	/*
	 * A reader that stops early ("| head"): the temporary file is removed
	 * before the usual death by SIGPIPE.
	 */
	old_pipe = signal(SIGPIPE, SIG_IGN);
	if (csv_machine(f, ivf_reader_info(rd)) || fputs(CSV_HEADER, f) < 0)
		goto write_error;
	while ((ret = ivf_next(rd, &iv)) > 0)
		if (csv_row(f, rd, &iv))
			goto write_error;
	if (ret < 0) {
		ret = cli_error("convert", "%s", ivf_error(rd)[0] ? ivf_error(rd) : strerror(-ret));
		goto out;
	}
	if (fflush(f) || ferror(f))
		goto write_error;
	ret = out_name ? cli_out_commit("convert", &o) : 0;
	goto out;
write_error:
	broken_pipe = !out_name && errno == EPIPE;
	ret = broken_pipe ? 1 : cli_error("convert", "%s: %s", out_name ? out_name : "stdout",
					  strerror(errno));
out:
	ivf_close(rd);
	if (tmp)
		cli_temp_remove(ivf);
	cli_out_abort(&o);	/* no partial CSV left behind; the file as it was */
	if (old_pipe != SIG_ERR)
		signal(SIGPIPE, old_pipe);
	if (broken_pipe)
		raise(SIGPIPE);	/* the exit a pipeline expects, without a message */
	return ret;
}

/* "convert TRACE -o FILE.ivf".  Return: 0, or 1 after a message. */
static int convert_ivf(const char *in, const char *out)
{
	const struct cli_out_arg oa = { "-o", out, true };
	struct cli_out o = { 0 };
	struct iv_stats *st;
	char err[1024];
	int ret;

	if (cli_out_check("convert", &oa, 1, &in, 1))
		return 1;
	if (!strcmp(out, "-"))
		return cli_error("convert", "an interval file needs a real file, not standard "
				 "output");
	if (strcmp(in, "-") && ivf_is_file(in))
		return cli_error("convert", "%s: already an interval file (--csv reads it)", in);
	st = malloc(sizeof(*st));
	if (!st)
		return cli_error("convert", "out of memory");
	if (cli_out_reserve("convert", NULL, &o, out)) {
		free(st);
		return 1;
	}
	ret = lab_convert(in, cli_out_target(&o), st, cli_progress, "parsing", err, sizeof(err));
	cli_progress_end();
	if (ret) {
		cli_out_rename_in(&o, err, sizeof(err));
		cli_out_abort(&o);
		free(st);
		return cli_error("convert", "%s", err[0] ? err : strerror(-ret));
	}
	if (cli_out_commit("convert", &o)) {
		free(st);
		return 1;
	}
	cli_trace_notes("convert", in, &st->notes);
	printf("%s: %llu events, %u CPUs, %.3f s; %llu intervals (%llu kernel re-entries merged"
	       ") -> %s\n", in, (unsigned long long)st->events, st->nr_cpus,
	       (double)(st->last_ns - st->first_ns) * 1e-9, (unsigned long long)st->intervals,
	       (unsigned long long)st->merged_entries, out);
	cli_warn_timer_unknown("convert", in, st->complete, st->timer_guessed, st->timer_unknown);
	free(st);
	return 0;
}

static const struct option convert_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "csv", no_argument, NULL, 'C' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_convert_opts = {
	.shortopts = "o:qh",
	.longopts = convert_longopts,
};

int cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	bool csv = false;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_convert_opts)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'C':
			csv = true;
			break;
		case 'h':
			convert_usage(stdout);
			return 0;
		default:
			fprintf(stderr, "%s\n", CONVERT_HINT);
			return 2;
		}
	}
	if (optind < argc)
		in = argv[optind++];
	if (optind < argc) {
		cli_error("convert", "unexpected argument '%s'\n" CONVERT_HINT, argv[optind]);
		return 2;
	}
	if (!in) {
		cli_error("convert", "TRACE is missing\n" CONVERT_HINT);
		return 2;
	}
	if (out && !out[0])
		return cli_error("convert", "-o wants a file name, not ''");
	if (csv)
		return convert_csv(in, out);
	if (!out) {
		cli_error("convert", "-o FILE.ivf (or --csv) is missing\n" CONVERT_HINT);
		return 2;
	}
	return convert_ivf(in, out);
}
