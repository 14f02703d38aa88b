// SPDX-License-Identifier: MIT
/*
 * check_ewma.c - the EWMA governor held to the rules every governor keeps,
 * from a program of one's own: conformance_check() of the installed
 * <cpuidle/conformance.h> (libcpuidle-lab), what 'cpuidle conformance -g
 * ./ewma.so' runs.
 *
 * usage: check_ewma [ENTRIES]
 * prints: "CHECK checked N failures N" per check, then "passed" or
 * "failed"; exit status 0 when every check ran, whatever they found.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cpuidle/conformance.h>

#include "ewma.h"

int main(int argc, char **argv)
{
	struct conformance_options opt = { 0 };
	struct conformance_report *rep = malloc(sizeof(*rep));
	int c, ret;

	if (argc > 2 || !rep) {
		fprintf(stderr, "usage: check_ewma [ENTRIES]\n");
		return 2;
	}
	if (argc == 2)
		opt.entries = (unsigned int)strtoul(argv[1], NULL, 10);
	ret = conformance_check(&ewma_governor, &opt, rep);
	if (ret) {
		fprintf(stderr, "check_ewma: %s\n", strerror(-ret));
		return 1;
	}
	for (c = 0; c < CONFORMANCE_NR_CHECKS; c++)
		printf("%s checked %llu failures %llu\n", conformance_check_name(c),
		       (unsigned long long)rep->checks[c].checked,
		       (unsigned long long)rep->checks[c].failures);
	printf("%s\n", rep->nr_failed ? "failed" : "passed");
	free(rep);
	return 0;
}
