// SPDX-License-Identifier: MIT
/*
 * codec_libs.c - liblzma, zlib and libzstd, loaded on first use
 * (codec_libs.h, lazy_lib.h).  The sonames are those of the ABIs the
 * headers describe: liblzma's 5, zlib's 1 (ZLIB_VER_MAJOR), libzstd's 1
 * (ZSTD_VERSION_MAJOR).
 */
#include "codec_libs.h"
#include "lazy_lib.h"

_Static_assert(ZSTD_VERSION_MAJOR == 1, "libzstd.so.1 is the ABI of these headers");
_Static_assert(ZLIB_VER_MAJOR == 1, "libz.so.1 is the ABI of these headers");

static struct xz_lib xz;
static const struct lazy_sym xz_syms[] = {
	LAZY_SYM(xz, lzma_stream_decoder),
	LAZY_SYM(xz, lzma_code),
	LAZY_SYM(xz, lzma_end),
};
static struct lazy_lib xz_loader = LAZY_LIB("liblzma.so.5", "liblzma5", xz_syms, &xz);

static struct gz_lib gz;
static const struct lazy_sym gz_syms[] = {
	LAZY_SYM(gz, inflateInit2_),
	LAZY_SYM(gz, inflate),
	LAZY_SYM(gz, inflateReset),
	LAZY_SYM(gz, inflateEnd),
	LAZY_SYM(gz, crc32),
};
static struct lazy_lib gz_loader = LAZY_LIB("libz.so.1", "zlib1g", gz_syms, &gz);

static struct zstd_lib zs;
static const struct lazy_sym zs_syms[] = {
	LAZY_SYM(zs, ZSTD_createDStream),
	LAZY_SYM(zs, ZSTD_initDStream),
	LAZY_SYM(zs, ZSTD_decompressStream),
	LAZY_SYM(zs, ZSTD_freeDStream),
	LAZY_SYM(zs, ZSTD_isError),
	LAZY_SYM(zs, ZSTD_getErrorCode),
	LAZY_SYM(zs, ZSTD_getErrorName),
};
static struct lazy_lib zs_loader = LAZY_LIB("libzstd.so.1", "libzstd1", zs_syms, &zs);

const struct xz_lib *xz_lib(char *err, size_t errlen)
{
	return lazy_lib_load(&xz_loader, err, errlen) ? NULL : &xz;
}

const struct gz_lib *gz_lib(char *err, size_t errlen)
{
	return lazy_lib_load(&gz_loader, err, errlen) ? NULL : &gz;
}

const struct zstd_lib *zstd_lib(char *err, size_t errlen)
{
	return lazy_lib_load(&zs_loader, err, errlen) ? NULL : &zs;
}
