// SPDX-License-Identifier: MIT
/*
 * trace_perf_zstd.c - perf.data's compressed records (perf record -z):
 * their zstd data, through libzstd, decompressed into the reader's buffer
 * (perf_reader.dz), where trace_perf.c reads the records it holds.  One
 * stream goes on from a compressed record to the next, as perf writes it.
 * libzstd is loaded with the first compressed record (codec_libs.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec_libs.h"
#include "trace_perf.h"

/*
 * Decompress @len bytes of zstd data at @data (of the compressed record at
 * @off) after what the previous records left unread in the buffer.
 * Return: 0, or the error (said).
 */
int perf_inflate(struct perf_reader *p, const unsigned char *data, size_t len, uint64_t off)
{
	ZSTD_inBuffer in = { .src = data, .size = len, .pos = 0 };
	ZSTD_outBuffer out;
	unsigned char *nb;
	const struct zstd_lib *zs;
	size_t ret, before;
	char why[240];

	zs = zstd_lib(why, sizeof(why));
	if (!zs)
		return perf_fail(p, -ELIBACC, off, "a compressed record: reading it %s", why);
	if (!p->zd) {
		p->zd = zs->ZSTD_createDStream();
		if (!p->zd || zs->ZSTD_isError(zs->ZSTD_initDStream(p->zd)))
			return perf_fail(p, -ENOMEM, off, "cannot start the zstd decoder");
	}
	/* keep what is left of the last one's records at the front */
	if (p->dz_pos) {
		memmove(p->dz, p->dz + p->dz_pos, p->dz_len - p->dz_pos);
		p->dz_len -= p->dz_pos;
		p->dz_pos = 0;
	}
	while (in.pos < in.size) {
		if (p->dz_len == p->dz_cap) {
			if (p->dz_cap >= DECOMP_MAX)
				return perf_fail(p, -EINVAL, off, "a compressed record decompresses to "
					     "over %u MiB (corrupt, or a zstd bomb)", DECOMP_MAX >> 20);
			nb = realloc(p->dz, p->dz_cap ? 2 * p->dz_cap : 1 << 20);
			if (!nb)
				return perf_fail(p, -ENOMEM, off, "out of memory");
			p->dz = nb;
			p->dz_cap = p->dz_cap ? 2 * p->dz_cap : 1 << 20;
		}
		out.dst = p->dz;
		out.size = p->dz_cap;
		out.pos = p->dz_len;
		before = in.pos;
		ret = zs->ZSTD_decompressStream(p->zd, &out, &in);
		if (zs->ZSTD_isError(ret))
			return perf_fail(p, -EINVAL, off, "corrupt compressed record (zstd: %s)",
				     zs->ZSTD_getErrorName(ret));
		if (out.pos == p->dz_len && in.pos == before)
			break;	/* no progress: the rest is in the next record */
		p->dz_len = out.pos;
	}
	p->dz_offset = off;
	return 0;
}

/* the stream as at the data's start (a rewind), nothing buffered */
void perf_inflate_reset(struct perf_reader *p)
{
	p->dz_len = p->dz_pos = 0;
	if (p->zd)
		zstd_lib(NULL, 0)->ZSTD_initDStream(p->zd);	/* (loaded: it made p->zd) */
}

void perf_inflate_free(struct perf_reader *p)
{
	if (p->zd)
		zstd_lib(NULL, 0)->ZSTD_freeDStream(p->zd);
	p->zd = NULL;
}
