// SPDX-License-Identifier: MIT
/*
 * fuzz_trace_tracecmd.c - trace.dat files: the same run as fuzz_trace.c,
 * its corpus seeded with a real recording (made here with tracefs and
 * trace-cmd extract, its formats cut to the lab's event systems and its
 * symbols to the tick's, so that it is 100 KB), as version 6 and as
 * version 7 with compressed sections: mutations stay in libtracecmd's
 * reading and in the records' decoding (trace_tracecmd.c, trace_tep.c).
 */
#include <stdlib.h>

#include "fuzz_trace.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);

/*
 * The child that runs libtracecmd can deadlock when forked from the
 * fuzzer's threads (a sanitizer's allocator lock held at the fork): it is
 * given up after 4 s, not the reader's 60 (scripts/fuzz gives this target
 * 30 s a unit: two children).
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("CPUIDLE_TRACEDAT_TIMEOUT_MS", "4000", 0);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_run(NULL, 0, data, size);
	return 0;
}
