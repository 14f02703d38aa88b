/* SPDX-License-Identifier: MIT */
/*
 * codec_libs.h - the decompressors loaded on first use (lazy_lib.h):
 * liblzma for .xz, zlib for .gz and the interval file's CRC-32s, libzstd
 * for .zst and perf.data's compressed records.  Each function returns the
 * library's table, loaded, or NULL with @err (of @errlen bytes) saying why
 * ("needs liblzma.so.5 (Debian package liblzma5), which cannot be loaded:
 * ...").  zlib linked cost every command 43 us a start (an empty program's
 * median, 300 runs interleaved: 0.671 ms, 0.714 linked with it).
 */
#ifndef CODEC_LIBS_H
#define CODEC_LIBS_H

#include <stddef.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

/** struct xz_lib - liblzma's functions the readers call */
struct xz_lib {
	__typeof__(lzma_stream_decoder) *lzma_stream_decoder;
	__typeof__(lzma_code) *lzma_code;
	__typeof__(lzma_end) *lzma_end;
};

/**
 * struct gz_lib - zlib's functions the readers and the interval file call
 * (inflateInit2() is a macro of inflateInit2_(), given the header's
 * version and stream size: gz_inflate_init())
 */
struct gz_lib {
	__typeof__(inflateInit2_) *inflateInit2_;
	__typeof__(inflate) *inflate;
	__typeof__(inflateReset) *inflateReset;
	__typeof__(inflateEnd) *inflateEnd;
	__typeof__(crc32) *crc32;
};

/** struct zstd_lib - libzstd's functions the readers call */
struct zstd_lib {
	__typeof__(ZSTD_createDStream) *ZSTD_createDStream;
	__typeof__(ZSTD_initDStream) *ZSTD_initDStream;
	__typeof__(ZSTD_decompressStream) *ZSTD_decompressStream;
	__typeof__(ZSTD_freeDStream) *ZSTD_freeDStream;
	__typeof__(ZSTD_isError) *ZSTD_isError;
	__typeof__(ZSTD_getErrorCode) *ZSTD_getErrorCode;
	__typeof__(ZSTD_getErrorName) *ZSTD_getErrorName;
};

/**
 * xz_lib() - liblzma, loaded
 * @err: where to say why not
 * @errlen: its size
 *
 * Return: its table, or NULL (@err set).
 */
const struct xz_lib *xz_lib(char *err, size_t errlen);

/**
 * gz_lib() - zlib, loaded
 * @err: where to say why not
 * @errlen: its size
 *
 * Return: its table, or NULL (@err set).
 */
const struct gz_lib *gz_lib(char *err, size_t errlen);

/**
 * gz_inflate_init() - inflateInit2() through the table
 * @z: zlib
 * @strm: the stream
 * @window_bits: as inflateInit2()'s (15 + 16: gzip only)
 *
 * Return: what inflateInit2() returns (Z_OK).
 */
static inline int gz_inflate_init(const struct gz_lib *z, z_stream *strm, int window_bits)
{
	return z->inflateInit2_(strm, window_bits, ZLIB_VERSION, (int)sizeof(z_stream));
}

/**
 * zstd_lib() - libzstd, loaded
 * @err: where to say why not
 * @errlen: its size
 *
 * Return: its table, or NULL (@err set).
 */
const struct zstd_lib *zstd_lib(char *err, size_t errlen);

#endif
