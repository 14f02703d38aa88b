// SPDX-License-Identifier: MIT
/*
 * fuzz_trace_idlestat.c - the input after idlestat's first line, so the
 * reader parses an idlestat header (cpus=, the topology, each CPU's states
 * and residencies) and then the ftrace text behind it.
 */
#include "fuzz_trace.h"

static const char head[] = "idlestat version = 0.8\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_run(head, sizeof(head) - 1, data, size);
	return 0;
}
