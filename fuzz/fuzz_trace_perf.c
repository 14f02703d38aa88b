// SPDX-License-Identifier: MIT
/*
 * fuzz_trace_perf.c - the input after a perf script event line, so the
 * reader has settled on perf text whatever follows: every later line is
 * parsed as perf's, and an ftrace-shaped one is the mixed-format error.
 * (fuzz_trace.c detects the format itself; mutations there wander between
 * formats, here they stay.)
 */
#include "fuzz_trace.h"

static const char head[] =
	"         swapper     0 [000]  1000.000000000:          power:cpu_idle: "
	"state=4294967295 cpu_id=0\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_run(head, sizeof(head) - 1, data, size);
	return 0;
}
