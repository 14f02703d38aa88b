// SPDX-License-Identifier: MIT
/*
 * cmd_fleet_gen.c - "cpuidle fleet-gen": N plausible traces made of real
 * ones (lab/ingest/derive.c), as interval files, for a fleet's scale
 * tests: cpuidle sweep --shard, or cpuidle.fleet.sweep() on Dask.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "derive.h"

#define FLEET_MAX	10000000	/* traces in one run */

static const char cmd[] = "fleet-gen";

static void fleet_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " fleet-gen -n N -o DIR [--seed S] TRACE...\n\n"
		"Make N plausible traces of the TRACEs (any format the lab reads, or interval\n"
		"files) for scale tests: each takes the TRACEs in turn and, for each of its\n"
		"CPUs, one of the source's CPUs' idle periods resampled in runs of 64 from\n"
		"random places, laid end to end from a random start over the source's span.\n"
		"They are interval files, DIR/derived-NNNNNN.ivf, whose description says\n"
		"'derived from TRACE, seed S, trace I' (the commands note it); the same\n"
		"TRACEs and seed give the same files, byte for byte.\n\n"
		"  -n, --count N    how many (1..%d)\n"
		"  -o, --output DIR where (made if missing; an existing derived-*.ivf is not\n"
		"                   replaced)\n"
		"      --seed S     the seed (default 1)\n"
		"  -q, --quiet      no notes, warnings or progress on stderr\n"
		"  -h, --help       this text\n\n"
		"See cpuidle-fleet-gen(1).\n", FLEET_MAX);
}

static const struct option fleet_gen_longopts[] = {
	{ "count", required_argument, NULL, 'n' },
	{ "output", required_argument, NULL, 'o' },
	{ "seed", required_argument, NULL, 'S' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_fleet_gen_opts = {
	.shortopts = "n:o:qh",
	.longopts = fleet_gen_longopts,
};

int cmd_fleet_gen(int argc, char **argv)
{
	const char *dir = NULL;
	long long count = 0, seed = 1;
	struct derive_source *srcs = NULL;
	char err[1024], path[4096];
	int c, i, nr = 0, ret = 0;
	uint64_t k;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_fleet_gen_opts)) != -1) {
		switch (c) {
		case 'n':
			if (cli_parse_ll(optarg, 1, FLEET_MAX, &count))
				return cli_error(cmd, "-n wants 1..%d traces, not '%s'", FLEET_MAX,
						 optarg);
			break;
		case 'o':
			dir = optarg;
			break;
		case 'S':
			if (cli_parse_ll(optarg, 0, INT64_MAX, &seed))
				return cli_error(cmd, "--seed wants a number, not '%s'", optarg);
			break;
		case 'h':
			fleet_usage(stdout);
			return 0;
		default:
			fleet_usage(stderr);
			return 2;
		}
	}
	if (!count || !dir || optind == argc) {
		fleet_usage(stderr);
		return 2;
	}
	if (mkdir(dir, 0777) && errno != EEXIST)
		return cli_error(cmd, "%s: %s", dir, strerror(errno));
	srcs = calloc((size_t)(argc - optind), sizeof(*srcs));
	if (!srcs)
		return cli_error(cmd, "out of memory");
	cli_notes_hold((unsigned int)(argc - optind));	/* a note many sources give, said once */
	for (i = optind; i < argc && !ret; i++, nr++) {
		char ivf[4096];
		int tmp;

		if (cli_intervals(cmd, argv[i], ivf, sizeof(ivf), &tmp, NULL)) {
			ret = 1;
			break;
		}
		if (derive_source_load(ivf, argv[i], &srcs[nr], err, sizeof(err)))
			ret = cli_error(cmd, "%s", err);
		if (tmp)
			cli_temp_remove(ivf);
	}
	cli_notes_flush();	/* the sources' notes, before the work */
	for (k = 0; !ret && k < (uint64_t)count; k++) {
		struct stat st;

		snprintf(path, sizeof(path), "%s/derived-%06" PRIu64 ".ivf", dir, k);
		if (!lstat(path, &st)) {
			ret = cli_error(cmd, "%s exists: not replacing it (another fleet's?)", path);
			break;
		}
		c = derive_write(srcs, (unsigned int)nr, (uint64_t)seed, k, path, err, sizeof(err));
		if (c) {
			unlink(path);	/* nothing half-written */
			ret = cli_error(cmd, "%s", err);
		}
		if (count >= 100)
			cli_progress(k + 1, (uint64_t)count, (void *)cmd);
	}
	if (count >= 100)
		cli_progress_end();
	if (!ret)
		cli_info(cmd, "%lld derived traces of %d source%s in %s/", count, nr,
			 nr == 1 ? "" : "s", dir);
	for (i = 0; i < nr; i++)
		derive_source_free(&srcs[i]);
	free(srcs);
	return ret;
}
