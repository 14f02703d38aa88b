/* SPDX-License-Identifier: MIT */
/*
 * codec_libs.h - the decompressors loaded on first use (lazy_lib.h):
 * liblzma for .xz, libzstd for .zst and perf.data's compressed records.
 * Each function returns the library's table, loaded, or NULL with @err (of
 * @errlen bytes) saying why ("needs liblzma.so.5 (Debian package
 * liblzma5), which cannot be loaded: ...").  zlib stays linked: the
 * interval file's checksums are its CRC-32, and it costs 30 us a start.
 */
#ifndef CODEC_LIBS_H
#define CODEC_LIBS_H

#include <stddef.h>

#include <lzma.h>
#include <zstd.h>
#include <zstd_errors.h>

/** struct xz_lib - liblzma's functions the readers call */
struct xz_lib {
	__typeof__(lzma_stream_decoder) *lzma_stream_decoder;
	__typeof__(lzma_code) *lzma_code;
	__typeof__(lzma_end) *lzma_end;
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
 * zstd_lib() - libzstd, loaded
 * @err: where to say why not
 * @errlen: its size
 *
 * Return: its table, or NULL (@err set).
 */
const struct zstd_lib *zstd_lib(char *err, size_t errlen);

#endif
