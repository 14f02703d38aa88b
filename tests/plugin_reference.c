// SPDX-License-Identifier: MIT
/*
 * plugin_reference.c - the timer governor (examples/timer_governor.c)
 * compiled in, replayed through the lab's replay API on an interval file:
 * what 'cpuidle sim -g timer_plugin.so' must give (tests/cli_plugin_test.sh).
 *
 * usage: plugin_reference FILE.ivf PLATFORM
 * prints: "entries N" and "STATE usage N time_ns N" per state.
 */
#include <stdio.h>
#include <stdlib.h>

#include "batch.h"
#include "libcpuidle.h"
#include "replay.h"
#include "timer_governor.h"

int main(int argc, char **argv)
{
	struct cpuidle_platform p;
	struct batch_trace *bt;
	struct replay_result *res = calloc(1, sizeof(*res));
	size_t budget = 1 << 28;
	char err[600];
	int s;

	if (argc != 3 || !res) {
		fprintf(stderr, "usage: plugin_reference FILE.ivf PLATFORM\n");
		return 2;
	}
	if (cpuidle_platform_load(argv[2], &p, err, sizeof(err)) ||
	    batch_trace_load(argv[1], &budget, &bt, err, sizeof(err))) {
		fprintf(stderr, "plugin_reference: %s\n", err);
		return 1;
	}
	const struct cpuidle_governor *const plugins[] = { &timer_governor, NULL };
	struct replay_config cfg = {
		.platform = &p,
		.governor = timer_governor.name,
		.plugins = plugins,
		.nr_cpus = batch_trace_cpus(bt),
		.qos_us = -1,
		.open = batch_trace_open,
		.open_arg = bt,
	};
	if (replay_run(&cfg, res)) {
		fprintf(stderr, "plugin_reference: replay failed\n");
		return 1;
	}
	printf("entries %llu\n", (unsigned long long)res->entries);
	for (s = 0; s < res->state_count; s++)
		printf("%s usage %llu time_ns %llu\n", p.states[s].name,
		       (unsigned long long)res->states[s].usage,
		       (unsigned long long)res->states[s].time_ns);
	batch_trace_free(bt);
	free(res);
	return 0;
}
