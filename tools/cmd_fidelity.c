// SPDX-License-Identifier: MIT
/*
 * cmd_fidelity.c - "cpuidle fidelity": replay traces recorded under a
 * kernel governor through our port of it, on the recording machine's
 * platform, and say how often we chose the state the kernel chose.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "ivf.h"
#include "replay.h"

static void fidelity_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " fidelity [-p PLATFORM] [-g GOVERNOR] [--json] TRACE...\n\n"
		"Replay each trace through the governor that recorded it, on the recording\n"
		"machine's platform (default haltpoll-vm), and print the share of idle\n"
		"entries where it chose the kernel's state.  Entries are compared in\n"
		"order within each idle interval, as far as both made them (a replay may\n"
		"re-enter idle fewer times than the kernel did).  The governor is taken\n"
		"from the file name (NAME-GOVERNOR.*) unless -g names it.\n");
}

/* "io-menu.perf.txt.xz" -> "menu" */
static int governor_from_name(const char *path, char *gov, size_t len)
{
	const struct cpuidle_governor *const *g;
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	for (g = cpuidle_builtin_governors(); *g; g++) {
		char pat[CPUIDLE_NAME_LEN + 2];

		snprintf(pat, sizeof(pat), "-%s.", (*g)->name);
		if (strstr(base, pat)) {
			snprintf(gov, len, "%s", (*g)->name);
			return 0;
		}
	}
	return -ENOENT;
}

int cmd_fidelity(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, 'p' },
		{ "governor", required_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *platform_spec = "haltpoll-vm", *only_gov = NULL;
	struct cpuidle_platform platform;
	bool json = false, first = true;
	char err[512];
	int c, i, ret, status = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "p:g:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			platform_spec = optarg;
			break;
		case 'g':
			only_gov = optarg;
			break;
		case 'J':
			json = true;
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
	ret = cpuidle_platform_load(platform_spec, &platform, err, sizeof(err));
	if (ret)
		return cli_error("fidelity", "%s", err[0] ? err : strerror(-ret));
	if (json)
		printf("[");
	else
		printf("%-36s %-7s %9s %9s %9s %9s\n", "trace", "gov", "kernel", "compared",
		       "matched", "fidelity");
	for (i = optind; i < argc; i++) {
		struct replay_config cfg;
		struct replay_result res;
		struct ivf_reader *rd;
		char gov[CPUIDLE_NAME_LEN], ivf[4096];
		int tmp;

		if (only_gov)
			snprintf(gov, sizeof(gov), "%s", only_gov);
		else if (governor_from_name(argv[i], gov, sizeof(gov))) {
			cli_error("fidelity", "%s: which governor recorded it? (-g)", argv[i]);
			status = 1;
			continue;
		}
		if (!cpuidle_find_governor_builtin(gov)) {
			cli_error("fidelity", "no built-in governor '%s'", gov);
			status = 1;
			continue;
		}
		if (cli_intervals("fidelity", argv[i], ivf, sizeof(ivf), &tmp)) {
			status = 1;
			continue;
		}
		ret = ivf_open(ivf, &rd, err, sizeof(err));
		if (ret) {
			cli_error("fidelity", "%s", err);
			if (tmp)
				unlink(ivf);
			status = 1;
			continue;
		}
		cfg = (struct replay_config){
			.platform = &platform,
			.governor = gov,
			.nr_cpus = ivf_reader_info(rd)->nr_cpus,
			.qos_us = -1,
			.open = ivf_replay_open,
			.open_arg = ivf,
		};
		ivf_close(rd);
		ret = replay_run(&cfg, &res);
		if (tmp)
			unlink(ivf);
		if (ret) {
			cli_error("fidelity", "%s: replay failed: %s", argv[i], strerror(-ret));
			status = 1;
			continue;
		}
		if (json) {
			printf("%s{\"trace\": ", first ? "" : ", ");
			json_string(stdout, argv[i]);
			printf(", \"governor\": \"%s\", \"platform\": ", gov);
			json_string(stdout, platform.name);
			printf(", \"kernel_entries\": %llu, \"entries\": %llu, \"matched\": %llu}",
			       (unsigned long long)res.kernel_entries,
			       (unsigned long long)res.kernel_compared,
			       (unsigned long long)res.kernel_matched);
		} else {
			const char *base = strrchr(argv[i], '/');

			printf("%-36s %-7s %9llu %9llu %9llu %8.2f%%\n", base ? base + 1 : argv[i], gov,
			       (unsigned long long)res.kernel_entries,
			       (unsigned long long)res.kernel_compared,
			       (unsigned long long)res.kernel_matched,
			       res.kernel_compared ? 100.0 * (double)res.kernel_matched /
						     (double)res.kernel_compared : 0.0);
		}
		first = false;
		fflush(stdout);
	}
	if (json)
		printf("]\n");
	return status;
}
