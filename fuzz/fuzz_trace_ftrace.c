// SPDX-License-Identifier: MIT
/*
 * fuzz_trace_ftrace.c - the input after ftrace's "# tracer:" line, so the
 * reader has settled on ftrace / trace-cmd text whatever follows.
 */
#include "fuzz_trace.h"

static const char head[] = "# tracer: nop\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_run(head, sizeof(head) - 1, data, size);
	return 0;
}
