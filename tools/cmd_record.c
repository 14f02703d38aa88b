// SPDX-License-Identifier: MIT
/*
 * cmd_record.c - "cpuidle record": an idle trace of this host that the lab
 * reads (cpuidle sim, stats, convert), with the host's state table beside
 * it as FILE.platform, so it can be replayed anywhere.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "trace.h"
#include "host_child.h"
#include "host_cli.h"
#include "host_kconfig.h"
#include "host_platform.h"
#include "host_record.h"

static void record_usage(FILE *f)
{
	const char *const *ev;
	char events[1024];
	size_t len;

	fprintf(f,
		"usage: " CLI_NAME " record -o FILE [-t SEC] [--perf | --tracefs] [--text]\n"
		"                      [-- CMD [ARGS]]\n\n"
		"Record the kernel's idle events on every CPU into FILE, on the monotonic\n"
		"clock, for SEC seconds, or while CMD runs, or until interrupted; and\n"
		"the host's state table into FILE.platform.  Through perf record when\n"
		"perf runs (--perf insists): FILE is perf.data, described in\n"
		"FILE.recording; with --text, perf script's text, described at its top.\n"
		"Else through tracefs (--tracefs), as text.  Needs root.\n"
		"Replay: " CLI_NAME " sim FILE.\n\n"
		"  -o, --output FILE       the recording (never an earlier one replaced)\n"
		"  -t, --time SEC          record SEC seconds (0.01 to 86400)\n"
		"      --perf              through perf record, or fail\n"
		"      --tracefs           through tracefs, as text\n"
		"      --text              through perf, perf script's text, not perf.data\n"
		CLI_USAGE_QUIET
		"  -h, --help              this text\n\n"
		"The command after -- exits 127 if it is not found, 126 if it cannot run.\n"
		"Events:");
	/* the events, comma-separated, wrapped */
	for (ev = host_record_events, len = 0; *ev && len < sizeof(events); ev++)
		len += (size_t)snprintf(events + len, sizeof(events) - len, "%s%s",
					len ? ", " : "", *ev);
	fputc(' ', f);
	cli_print_wrapped(f, 8, 2, events);
	fprintf(f, "See cpuidle-record(1).\n");
}

/* haltpoll's tunables, as the replay writes them (-s), where the host has them */
static const char *const haltpoll_params[] = {
	"guest_halt_poll_ns", "guest_halt_poll_grow", "guest_halt_poll_shrink",
	"guest_halt_poll_grow_start", "guest_halt_poll_allow_shrink", NULL,
};

/*
 * The running kernel's tick mode, for the description's "tick" line:
 * "periodic" if booted with nohz=off or built with CONFIG_HZ_PERIODIC
 * (its tick never stops), "nohz-full" or "nohz-idle" as built; NULL if
 * neither the command line nor the kernel's configuration (/proc/config.gz,
 * else /boot/config-RELEASE) tells.
 */
/* the tick's mode a configuration line says, into @ctx (a const char *) */
static bool tick_line(const char *line, void *ctx)
{
	const char **mode = ctx;

	if (!strcmp(line, "CONFIG_HZ_PERIODIC=y\n"))
		*mode = "periodic";
	else if (!strcmp(line, "CONFIG_NO_HZ_FULL=y\n"))
		*mode = "nohz-full";
	else if (!strcmp(line, "CONFIG_NO_HZ_IDLE=y\n"))
		*mode = "nohz-idle";
	return *mode != NULL;
}

static const char *tick_mode(void)
{
	char line[4096], *tok, *save;
	const char *mode = NULL;
	FILE *f;

	f = fopen("/proc/cmdline", "re");
	if (f) {
		if (fgets(line, sizeof(line), f))
			for (tok = strtok_r(line, " \n", &save); tok;
			     tok = strtok_r(NULL, " \n", &save))
				if (!strcmp(tok, "nohz=off"))
					mode = "periodic";
		fclose(f);
	}
	if (!mode && host_kconfig_find(tick_line, &mode) <= 0)
		mode = NULL;
	return mode;
}

/* one "# cpuidle-recording KEY VALUE" line onto @f */
static void describe(FILE *f, const char *key, const char *value)
{
	fprintf(f, "%s%s %s\n", TRACE_RECORDING_PREFIX, key, value);
}

/*
 * The recording's description (recording.h): the driver and governor,
 * the governor's tunables that the host has, and the platform file's
 * lines (its comments left out: they are in FILE.platform).
 */
static char *description(const struct host_cpuidle *h, const char *platform, size_t len)
{
	char *buf = NULL, path[1024], value[64], line[1100];
	const char *const *p, *end = platform + len;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		return NULL;
	describe(f, "version", "1");
	describe(f, "driver", h->driver[0] ? h->driver : "none");
	if (host_current_governor(h)[0])
		describe(f, "governor", host_current_governor(h));
	if (tick_mode())
		describe(f, "tick", tick_mode());
	for (p = haltpoll_params; !strcmp(host_current_governor(h), "haltpoll") && *p; p++) {
		FILE *v;

		snprintf(path, sizeof(path), "%s/module/haltpoll/parameters/%s",
			 host_sysfs_root(), *p);
		v = fopen(path, "re");
		if (!v)
			continue;
		if (fgets(value, sizeof(value), v)) {
			value[strcspn(value, "\n")] = '\0';
			snprintf(line, sizeof(line), "module/haltpoll/parameters/%s=%s", *p, value);
			describe(f, "set", line);
		}
		fclose(v);
	}
	while (platform && platform < end) {
		const char *nl = memchr(platform, '\n', (size_t)(end - platform));
		size_t n = (size_t)((nl ? nl : end) - platform);

		if (n && *platform != '#') {
			snprintf(line, sizeof(line), "%.*s", (int)n, platform);
			describe(f, "platform", line);
		}
		platform += n + 1;
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int write_platform(const char *trace, char **platform_path, char **desc)
{
	struct host_cpuidle h;
	char err[600], *text = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	if (asprintf(platform_path, "%s.platform", trace) < 0)
		return cli_error("record", "out of memory");
	if (host_cli_read("record", &h))
		return 1;
	ret = host_platform_text(&h, "host", &text, &len, err, sizeof(err));
	*desc = description(&h, ret ? NULL : text, ret ? 0 : len);
	host_cpuidle_free(&h);
	if (!*desc) {
		free(text);
		return cli_error("record", "out of memory");
	}
	if (ret == -ENODEV) {
		/*
		 * No cpuidle driver (idle=halt, cpuidle.off=1, a guest without
		 * haltpoll): the kernel idles in its default routine, and its
		 * idle periods are as much worth replaying, on a platform
		 * model.  Only the table is missing.
		 */
		cli_info("record", "%s: no %s.platform written; replay on a modelled platform ("
			 CLI_NAME " platform list)", err, trace);
		free(*platform_path);
		*platform_path = NULL;
		return 0;
	}
	if (ret)
		return cli_error("record", "the host's state table: %s", err[0] ? err : strerror(-ret));
	f = fopen(*platform_path, "we");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f)) {
		ret = errno;
		free(text);
		return cli_error("record", "%s: %s", *platform_path, strerror(ret));
	}
	free(text);
	return 0;
}

/* the events of a binary recording (perf.data) the lab reads; -1 on error */
static long long count_read_events(const char *trace)
{
	struct trace_reader *r;
	struct trace_event ev;
	char err[600];
	long long n = 0;
	int ret;

	if (trace_open(trace, &r, err, sizeof(err)))
		return -1;
	while ((ret = trace_next(r, &ev)) > 0)
		n++;
	trace_close(r);
	return ret < 0 ? -1 : n;
}

/*
 * The events in a recorded trace: its lines but comments ("# tracer: nop");
 * -1 if it is not a regular file (it is not read back then) or unreadable.
 */
static long long count_events(const char *trace)
{
	bool line_start = true, comment = false;
	char buf[65536];
	long long n = 0;
	struct stat st;
	size_t len, i;
	FILE *f;

	/* not opened otherwise: a FIFO or a terminal would block */
	if (stat(trace, &st) || !S_ISREG(st.st_mode))
		return -1;
	f = fopen(trace, "re");
	if (!f)
		return -1;
	while ((len = fread(buf, 1, sizeof(buf), f)) > 0)
		for (i = 0; i < len; i++) {
			if (line_start)
				comment = buf[i] == '#';
			line_start = buf[i] == '\n';
			if (line_start && !comment)
				n++;
		}
	if (ferror(f))
		n = -1;
	fclose(f);
	return n;
}

static const struct option record_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "time", required_argument, NULL, 't' },
	{ "perf", no_argument, NULL, 'P' },
	{ "tracefs", no_argument, NULL, 'T' },
	{ "text", no_argument, NULL, 'X' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_record_opts = {
	.shortopts = "+o:t:qh",
	.longopts = record_longopts,
};

int cmd_record(int argc, char **argv)
{
	struct host_record_opts o = { .backend = HOST_RECORD_AUTO, .log = stderr };
	struct host_record_result r;
	char err[800], count[32], *platform = NULL, *desc = NULL;
	const char *what;
	bool existed, perf = false, tracefs = false, binary;
	long long events;
	struct stat st;
	double secs = 0;
	int c, ret;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_record_opts)) != -1) {
		switch (c) {
		case 'o':
			o.out = optarg;
			break;
		case 't':
			if (cli_parse_seconds(optarg, 0.01, 86400, &secs))
				return cli_error("record", "-t: '%s' is not a duration in seconds "
						 "(0.01 to 86400)", optarg);
			o.duration_ns = (int64_t)(secs * 1e9);
			break;
		case 'P':
			perf = true;
			o.backend = HOST_RECORD_PERF;
			break;
		case 'T':
			tracefs = true;
			o.backend = HOST_RECORD_TRACEFS;
			break;
		case 'X':
			o.text = true;
			break;
		case 'h':
			record_usage(stdout);
			return 0;
		default:
			record_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		if (strcmp(argv[optind - 1], "--"))
			return cli_usage_error("record", "unexpected argument '%s' (a command "
					       "goes after --)", argv[optind]);
		o.cmd = argv + optind;
	}
	if (cli_is_quiet())
		o.log = NULL;	/* the events the kernel lacks, instances removed: notes */
	if (perf && tracefs)
		return cli_usage_error("record", "--perf and --tracefs: choose one");
	if (!o.out)
		return cli_error("record", "no output: give -o FILE");
	if (!strcmp(o.out, "-"))
		return cli_error("record", "-o -: a recording goes to a file, its description "
				 "beside it (FILE.recording): give -o FILE");
	/* an earlier recording is a result: as convert -o, never replaced */
	if ((what = cli_out_holds_input(o.out)))
		return cli_error("record", "-o %s: that file %s; not replacing it (remove it "
				 "first, or give another name)", o.out, what);
	if (geteuid())
		return cli_error("record", "recording kernel events needs root");
	if (write_platform(o.out, &platform, &desc)) {
		free(platform);
		free(desc);
		return 1;
	}
	o.description = desc;
	host_signals_block();
	if (!o.cmd && !o.duration_ns)
		cli_info("record", "recording into %s; interrupt (Ctrl-C) to stop",
			o.out);
	existed = !lstat(o.out, &st);
	ret = host_record(&o, &r, err, sizeof(err));
	free(desc);
	if (ret) {
		if (platform)
			unlink(platform);
		free(platform);
		/* no output from a failed recording (an earlier file was emptied already) */
		if (!lstat(o.out, &st) && S_ISREG(st.st_mode) && (!existed || !st.st_size))
			unlink(o.out);
		cli_error("record", "%s", err[0] ? err : strerror(-ret));
		/* the command after -- not started: a shell's status, as qos hold's */
		return r.cmd_start_err ? cli_exec_status(r.cmd_start_err) : 1;
	}
	binary = r.backend == HOST_RECORD_PERF && !o.text;
	events = binary ? count_read_events(o.out) : count_events(o.out);
	if (events >= 0)
		snprintf(count, sizeof(count), "%lld events", events);
	else
		snprintf(count, sizeof(count), "events");
	cli_info("record", "%s (%d tracepoints) through %s into %s%s%s%s%s%s", count,
		 r.nr_events, r.backend == HOST_RECORD_PERF ? "perf" : "tracefs", o.out,
		 binary ? " (perf.data, described in " : "", binary ? o.out : "",
		 binary ? HOST_RECORD_SIDE_SUFFIX ")" : "", platform ? ", the host's table in " : "",
		 platform ? platform : "");
	if (r.lost)
		cli_info("record", "the kernel dropped %llu events (buffers full)",
			(unsigned long long)r.lost);
	cli_info("record", "replay with: " CLI_NAME " sim %s%s (the trace "
		"describes its machine: driver, governor, tunables%s)", platform ? "" :
		"-p PLATFORM ", o.out, platform ? ", state table" : "");
	free(platform);
	if (o.cmd && r.cmd_exit > 0) {
		cli_info("record", "the command exited with %d", r.cmd_exit);
		return r.cmd_exit;
	}
	return 0;
}
