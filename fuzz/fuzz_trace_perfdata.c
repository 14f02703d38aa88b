// SPDX-License-Identifier: MIT
/*
 * fuzz_trace_perfdata.c - perf.data files: the same run as fuzz_trace.c,
 * its corpus seeded with real recordings (file mode, pipe mode, zstd-
 * compressed records), so that mutations stay in the binary reader
 * (trace_perf.c, trace_tep.c): headers, attribute sizes, ids, records of
 * any size, tracing data, compressed records.
 */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_run(NULL, 0, data, size);
	return 0;
}
