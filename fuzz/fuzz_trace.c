// SPDX-License-Identifier: MIT
/*
 * fuzz_trace.c - any bytes as a trace file: the format is detected from the
 * content (perf, ftrace, idlestat; plain, xz or gzip), then read, rebuilt
 * into intervals, written and read back as an interval file, and tallied
 * as "cpuidle stats" does (fuzz_trace.h).
 */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_run("", 0, data, size);
	return 0;
}
