// SPDX-License-Identifier: MIT
/*
 * fuzz_trace_wrapped.c - the input compressed before it is read: the
 * reader's gzip and xz paths with streams that decode, which raw mutations
 * of a compressed file seldom give (one flipped bit fails the CRC).
 *
 * The first byte says how, the second where; the rest is the trace text:
 *
 *   bit 0   gzip (0) or xz (1)
 *   bit 1   two members / streams, split where byte 2 says (gzip -dc and
 *           xz -dc read them as one)
 *   bit 2   the last 1 to 64 bytes cut off (byte 2): truncated
 *   bit 3   four bytes of junk after the end
 */
#include <lzma.h>
#include <zlib.h>

#include "fuzz_trace.h"

/* Compress @n bytes at @p onto the end of @buf (*@len used, @cap big). */
static void deflate_to(const uint8_t *p, size_t n, uint8_t *buf, size_t *len, size_t cap)
{
	z_stream z;

	memset(&z, 0, sizeof(z));
	FUZZ_CHECK(deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
	z.next_in = (Bytef *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	z.next_out = buf + *len;
	z.avail_out = (uInt)(cap - *len);
	FUZZ_CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
	*len = cap - z.avail_out;
	deflateEnd(&z);
}

static void xz_to(const uint8_t *p, size_t n, uint8_t *buf, size_t *len, size_t cap)
{
	FUZZ_CHECK(lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, p, n, buf, len, cap) ==
		   LZMA_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void (*pack)(const uint8_t *, size_t, uint8_t *, size_t *, size_t);
	unsigned int mode, where;
	size_t cap, len = 0, split, cut;
	uint8_t *buf;

	if (size < 2 || size > FUZZ_TRACE_MAX)
		return 0;
	mode = data[0];
	where = data[1];
	data += 2;
	size -= 2;
	pack = mode & 1 ? xz_to : deflate_to;
	cap = 2 * (lzma_stream_buffer_bound(size) + compressBound((uLong)size)) + 256;
	buf = malloc(cap);
	FUZZ_CHECK(buf);
	if (mode & 2) {
		split = size * where / 256;
		pack(data, split, buf, &len, cap);
		pack(data + split, size - split, buf, &len, cap);
	} else {
		pack(data, size, buf, &len, cap);
	}
	if (mode & 4) {
		cut = where % 64 + 1;
		len = len > cut ? len - cut : 0;
	}
	if (mode & 8) {
		memcpy(buf + len, "junk", 4);
		len += 4;
	}
	fuzz_trace_run("", 0, buf, len);
	free(buf);
	return 0;
}
