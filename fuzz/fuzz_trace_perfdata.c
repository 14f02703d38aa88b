// SPDX-License-Identifier: MIT
/*
 * fuzz_trace_perfdata.c - perf.data files: the same run as fuzz_trace.c,
 * its corpus seeded with real recordings (file mode, pipe mode, zstd-
 * compressed records), so that mutations stay in the binary reader
 * (trace_perf.c, trace_tep.c): headers, attribute sizes, ids, records of
 * any size, tracing data, compressed records.  Then the decoder the reader
 * builds from the event formats by trace_format.c must be the one
 * libtraceevent builds from them (tests/tp_formats_diff.h): the same
 * events, fields and errors, whatever the formats hold.
 */
#include "fuzz_trace.h"

#include "tp_formats_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_diff_tally tally = { 0 };
	struct fuzz_file in;
	char msg[1024];

	fuzz_trace_run(NULL, 0, data, size);
	if (size > FUZZ_TRACE_MAX)
		return 0;
	fuzz_file_open(&in, "perf.data");
	fuzz_file_write(&in, data, size);
	if (tp_formats_file_differs(in.path, &tally, msg, sizeof(msg))) {
		fprintf(stderr, "%s\n", msg);
		FUZZ_CHECK(false);
	}
	fuzz_file_close(&in);
	return 0;
}
