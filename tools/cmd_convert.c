// SPDX-License-Identifier: MIT
/* cmd_convert.c - "cpuidle convert": a trace into an interval file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "convert.h"
#include "ivf.h"

static void convert_usage(FILE *f)
{
	fprintf(f, "usage: " CLI_NAME " convert TRACE -o FILE.ivf\n\n"
		   "Parse a trace (perf script, ftrace or idlestat text; plain, .xz or .gz)\n"
		   "once into an idle interval file (cpuidle-ivf(5)) for fast replays.\n");
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

int cmd_convert(int argc, char **argv)
{
	const char *in = NULL, *out = NULL;
	struct iv_stats *st;
	char err[1024];
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			convert_usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] == '-' && argv[i][1]) {
			convert_usage(stderr);
			return 1;
		} else if (!in) {
			in = argv[i];
		} else {
			return cli_error("convert", "unexpected argument '%s'", argv[i]);
		}
	}
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
