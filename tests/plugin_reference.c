// SPDX-License-Identifier: MIT
/*
 * plugin_reference.c - the timer governor (examples/timer_governor.c)
 * compiled in, replayed through the lab's public API (<cpuidle/lab.h>
 * alone) on a trace or interval file: what 'cpuidle sim -g
 * timer_plugin.so' must give (tests/cli_plugin_test.sh).  The same file is
 * built in the tree and, from the installed headers and libraries only,
 * by examples/Makefile (tests/install_test.sh).
 *
 * usage: plugin_reference TRACE PLATFORM
 * prints: "entries N" and "STATE usage N time_ns N" per state.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cpuidle/lab.h>
#include <libcpuidle.h>

#include "timer_governor.h"

int main(int argc, char **argv)
{
	const struct cpuidle_governor *const mine[] = { &timer_governor, NULL };
	struct cpuidle_lab_result *res = calloc(1, sizeof(*res));
	struct cpuidle_lab_trace *trace;
	struct cpuidle_platform p;
	char err[600];
	int s;

	if (argc != 3 || !res) {
		fprintf(stderr, "usage: plugin_reference TRACE PLATFORM\n");
		return 2;
	}
	if (cpuidle_platform_load(argv[2], &p, err, sizeof(err)) ||
	    cpuidle_lab_trace_open(argv[1], NULL, &trace, err, sizeof(err))) {
		fprintf(stderr, "plugin_reference: %s\n", err);
		return 1;
	}
	struct cpuidle_lab_run run = {
		.trace = trace,
		.platform = &p,
		.governor = timer_governor.name,
		.governors = mine,
		.qos_us = -1,
	};
	if (cpuidle_lab_replay(&run, res)) {
		fprintf(stderr, "plugin_reference: replay failed: %s\n",
			res->error_msg[0] ? res->error_msg : "see its error");
		return 1;
	}
	printf("entries %llu\n", (unsigned long long)res->entries);
	for (s = 0; s < res->state_count; s++)
		printf("%s usage %llu time_ns %llu\n", p.states[s].name,
		       (unsigned long long)res->states[s].usage,
		       (unsigned long long)res->states[s].time_ns);
	cpuidle_lab_trace_close(trace);
	free(res);
	return 0;
}
