// SPDX-License-Identifier: MIT
/*
 * cmd_convert.c - "cpuidle convert": a trace into an interval file, or
 * its intervals as CSV.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "convert.h"
#include "ivf.h"

static void convert_usage(FILE *f)
{
	fprintf(f, "usage: " CLI_NAME " convert TRACE -o FILE.ivf\n"
		   "       " CLI_NAME " convert TRACE|FILE.ivf --csv [-o FILE.csv]\n\n"
		   "Parse a trace (perf script, ftrace or idlestat text; plain, .xz or .gz)\n"
		   "once into an idle interval file (cpuidle-ivf(5)) for fast replays.\n\n"
		   "--csv writes the idle intervals of a trace or an interval file as CSV\n"
		   "instead, one row per interval, to standard output or -o FILE (\"-\":\n"
		   "standard output); times in ns, an empty field where there is no value:\n"
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
		   "  qos_us          CPU latency QoS in force; empty: no request\n"
		   "  entries         kernel idle entries merged into the interval\n"
		   "  kernel_state    index of the state the kernel entered first\n"
		   "  kernel_idle_ns  time the kernel accounted in idle states\n"
		   "  partial         start, end or both: the trace began or ended inside it\n"
		   "  timer_unknown   1 if the next timer cannot be told, else 0\n");
}

int cli_intervals(const char *cmd, const char *path, char *ivf, size_t len, int *tmp)
{
	struct iv_stats *stats;
	char err[1024];
	int fd, ret;

	*tmp = 0;
	if (ivf_is_file(path)) {
		snprintf(ivf, len, "%s", path);
		return 0;
	}
	snprintf(ivf, len, "%s/cpuidle-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	fd = mkstemp(ivf);
	if (fd < 0)
		return cli_error(cmd, "cannot create a temporary file in %s: %s",
				 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", strerror(errno));
	close(fd);
	stats = malloc(sizeof(*stats));
	if (!stats) {
		unlink(ivf);
		return cli_error(cmd, "out of memory");
	}
	ret = lab_convert(path, ivf, stats, cli_progress, "parsing", err, sizeof(err));
	cli_progress_end();
	free(stats);
	if (ret) {
		unlink(ivf);
		return cli_error(cmd, "%s", err[0] ? err : strerror(-ret));
	}
	*tmp = 1;
	return 0;
}

/*
 * --csv: one row per interval.  The kernel's default CPU latency value is
 * what reconstruction records when no request is in force; the row leaves
 * the field empty for it.
 */
#define CSV_HEADER	"cpu,start_ns,idle_ns,next_timer_ns,busy_ns,wake,irq,qos_us,entries," \
			"kernel_state,kernel_idle_ns,partial,timer_unknown\n"
#define CSV_NO_QOS	PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE

/*
 * An IRQ name as a CSV field (RFC 4180): a trace's name is the rest of its
 * line and an interval file's any bytes but NUL, so one with a comma, a
 * quote or a line break is quoted, its quotes doubled.
 */
static int csv_string(FILE *f, const char *s)
{
	const char *p;

	if (!s[strcspn(s, ",\"\r\n")])
		return fputs(s, f) < 0 ? -1 : 0;
	if (putc('"', f) == EOF)
		return -1;
	for (p = s; *p; p++)
		if ((*p == '"' && putc('"', f) == EOF) || putc(*p, f) == EOF)
			return -1;
	return putc('"', f) == EOF ? -1 : 0;
}

/* A row; -1 if the write failed. */
static int csv_row(FILE *f, const struct ivf_reader *rd, const struct idle_interval *iv)
{
	static const char *const partial[] = { "", "start", "end", "both" };
	bool timer_unknown = iv->flags & IV_TIMER_UNKNOWN;
	char timer[24], qos[16], kstate[8];

	if (timer_unknown)
		timer[0] = '\0';
	else if (iv->timer_ns == IV_NO_TIMER)
		snprintf(timer, sizeof(timer), "inf");
	else
		snprintf(timer, sizeof(timer), "%lld", (long long)iv->timer_ns);
	if (iv->qos_us == CSV_NO_QOS)
		qos[0] = '\0';
	else
		snprintf(qos, sizeof(qos), "%d", (int)iv->qos_us);
	if (iv->nr_entries && iv->kstates[0] >= 0)
		snprintf(kstate, sizeof(kstate), "%d", iv->kstates[0]);
	else
		kstate[0] = '\0';
	if (fprintf(f, "%u,%lld,%lld,%s,%lld,%s,", iv->cpu, (long long)iv->start_ns,
		    (long long)iv->idle_ns, timer, (long long)iv->busy_ns,
		    iv_wake_name(iv->wake)) < 0 ||
	    csv_string(f, iv->irq >= 0 ? ivf_irq_name(rd, iv->irq) : ""))
		return -1;
	return fprintf(f, ",%s,%u,%s,%lld,%s,%d\n", qos, iv->nr_entries, kstate,
		       (long long)iv->kernel_idle_ns,
		       partial[iv->flags & (IV_PARTIAL_START | IV_PARTIAL_END)],
		       timer_unknown) < 0 ? -1 : 0;
}

/* Whether @a and @b name the same existing file. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/*
 * "convert --csv": the intervals of @in (a trace, converted into a
 * temporary interval file, or an interval file) to @out (NULL or "-":
 * standard output).  A regular output file is removed if the dump fails.
 *
 * Return: 0, or 1 after a message.
 */
static int convert_csv(const char *in, const char *out)
{
	const char *out_name = out && strcmp(out, "-") ? out : NULL;
	void (*old_pipe)(int) = SIG_ERR;
	struct ivf_reader *rd = NULL;
	struct idle_interval iv;
	bool out_regular = false, broken_pipe = false;
	char ivf[4096], err[1024] = "";
	FILE *f = stdout;
	int tmp, ret;

	if (out_name && same_file(in, out_name))
		return cli_error("convert", "%s: the output would overwrite the input", out_name);
	if (cli_intervals("convert", in, ivf, sizeof(ivf), &tmp))
		return 1;
	ret = ivf_open(ivf, &rd, err, sizeof(err));
	if (ret) {
		ret = cli_error("convert", "%s", err[0] ? err : strerror(-ret));
		goto out;
	}
	if (out_name) {
		struct stat st;

		f = fopen(out_name, "w");
		if (!f) {
			f = stdout;
			ret = cli_error("convert", "%s: %s", out_name, strerror(errno));
			goto out;
		}
		/* a regular file is removed if the dump fails; never a device */
		out_regular = !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
	}
	/*
	 * A reader that stops early ("| head"): the temporary file is removed
	 * before the usual death by SIGPIPE.
	 */
	old_pipe = signal(SIGPIPE, SIG_IGN);
	if (fputs(CSV_HEADER, f) < 0)
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
	if (f != stdout) {
		ret = fclose(f);
		f = stdout;
		if (ret)
			goto write_error;
	}
	ret = 0;
	goto out;
write_error:
	broken_pipe = !out_name && errno == EPIPE;
	ret = broken_pipe ? 1 : cli_error("convert", "%s: %s", out_name ? out_name : "stdout",
					  strerror(errno));
out:
	ivf_close(rd);
	if (tmp)
		unlink(ivf);
	if (f != stdout)
		fclose(f);
	if (ret && out_regular)
		unlink(out_name);	/* no partial CSV left behind */
	if (old_pipe != SIG_ERR)
		signal(SIGPIPE, old_pipe);
	if (broken_pipe)
		raise(SIGPIPE);	/* the exit a pipeline expects, without a message */
	return ret;
}

int cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	struct iv_stats *st;
	char err[1024];
	bool csv = false;
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			convert_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--csv")) {
			csv = true;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			convert_usage(stderr);
			return 1;
		} else if (!in) {
			in = argv[i];
		} else {
			return cli_error("convert", "unexpected argument '%s'", argv[i]);
		}
	}
	if (csv && in)
		return convert_csv(in, out);
	if (!in || !out) {
		convert_usage(stderr);
		return 1;
	}
	st = malloc(sizeof(*st));
	if (!st)
		return cli_error("convert", "out of memory");
	ret = lab_convert(in, out, st, cli_progress, "parsing", err, sizeof(err));
	cli_progress_end();
	if (ret) {
		free(st);
		return cli_error("convert", "%s", err[0] ? err : strerror(-ret));
	}
	printf("%s: %llu events, %u CPUs, %.3f s; %llu intervals (%llu kernel re-entries merged"
	       "%s) -> %s\n", in, (unsigned long long)st->events, st->nr_cpus,
	       (double)(st->last_ns - st->first_ns) * 1e-9, (unsigned long long)st->intervals,
	       (unsigned long long)st->merged_entries,
	       st->late_events ? ", some events out of order beyond the window" : "", out);
	free(st);
	return 0;
}
