// SPDX-License-Identifier: MIT
/*
 * fuzz_trace_chunked.c - fuzz_trace.c with the reader's buffers 61 bytes
 * long (fuzz/meson.build builds the reader for it with TRACE_IO_SIZE=61):
 * almost every line straddles two fills of the buffer, a compressed
 * stream is decoded a few bytes at a time, and a NUL byte or the end of
 * the file falls anywhere in a fill, the paths a 64 KiB buffer takes only
 * once per 64 KiB of trace.
 */
#include "fuzz_trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_trace_run("", 0, data, size);
	return 0;
}
