// SPDX-License-Identifier: MIT
/*
 * replay_ewma.c - the EWMA governor linked into a program of one's own and
 * replayed through the installed lab API (<cpuidle/lab.h>, libcpuidle-lab):
 * what 'cpuidle sim -g ./ewma.so TRACE -p PLATFORM' gives, from code.
 *
 * usage: replay_ewma TRACE PLATFORM [weight_shift]
 * prints: "entries N", then "STATE usage N time_ns N" per state, then the
 * energy over the oracle's.
 */
#include <stdio.h>
#include <stdlib.h>

#include <cpuidle/lab.h>
#include <libcpuidle.h>

#include "ewma.h"

int main(int argc, char **argv)
{
	const struct cpuidle_governor *const mine[] = { &ewma_governor, NULL };
	struct cpuidle_lab_result *res = calloc(2, sizeof(*res));
	struct cpuidle_lab_batch_error fail;
	struct cpuidle_lab_figures f, of;
	struct cpuidle_lab_trace *trace;
	struct cpuidle_platform p;
	char err[600], attr[96];
	const char *attrs[] = { attr, NULL };
	double over;
	int s;

	if ((argc != 3 && argc != 4) || !res) {
		fprintf(stderr, "usage: replay_ewma TRACE PLATFORM [weight_shift]\n");
		return 2;
	}
	snprintf(attr, sizeof(attr), "module/ewma/parameters/weight_shift=%s",
		 argc == 4 ? argv[3] : "3");
	if (cpuidle_platform_load(argv[2], &p, err, sizeof(err)) ||
	    cpuidle_lab_trace_open(argv[1], NULL, &trace, err, sizeof(err))) {
		fprintf(stderr, "replay_ewma: %s\n", err);
		return 1;
	}
	/* the governor and the oracle, side by side on the same trace */
	const struct cpuidle_lab_run runs[2] = {
		{ .trace = trace, .platform = &p, .governor = "ewma", .governors = mine,
		  .qos_us = -1, .attrs = attrs },
		{ .trace = trace, .platform = &p, .governor = CPUIDLE_LAB_ORACLE, .qos_us = -1 },
	};
	if (cpuidle_lab_replay_many(runs, res, 2, 0, &fail)) {
		fprintf(stderr, "replay_ewma: %s\n", fail.msg[0] ? fail.msg : "replay failed");
		return 1;
	}
	printf("entries %llu\n", (unsigned long long)res[0].entries);
	for (s = 0; s < res[0].state_count; s++)
		printf("%s usage %llu time_ns %llu\n", p.states[s].name,
		       (unsigned long long)res[0].states[s].usage,
		       (unsigned long long)res[0].states[s].time_ns);
	cpuidle_lab_figures(&res[1], NULL, &of);
	cpuidle_lab_figures(&res[0], &res[1], &f);
	if (cpuidle_lab_over_oracle(&f, &of, &over))
		printf("over_oracle %.2f%%\n", over);
	cpuidle_lab_trace_close(trace);
	free(res);
	return 0;
}
