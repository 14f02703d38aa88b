// SPDX-License-Identifier: MIT
/*
 * test_lazy_lib.c - libraries loaded on first use (lab/ingest/lazy_lib.h):
 * a table filled, the errors that name what is missing, the same answer
 * every time, threads racing to the first load; and that the cpuidle
 * command starts without the libraries it loads lazily.
 */
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codec_libs.h"
#include "lazy_lib.h"
#include "tep_lib.h"

static struct {
	__typeof__(cos) *cos;
	__typeof__(sqrt) *sqrt;
} m;
static const struct lazy_sym m_syms[] = { LAZY_SYM(m, cos), LAZY_SYM(m, sqrt) };

static void test_loads_table(void **state)
{
	struct lazy_lib lib = LAZY_LIB("libm.so.6", "libc6", m_syms, &m);
	char err[240] = "";

	memset(&m, 0, sizeof(m));
	assert_int_equal(lazy_lib_load(&lib, err, sizeof(err)), 0);
	assert_non_null(m.cos);
	assert_true(m.cos(0.0) == 1.0);
	assert_true(m.sqrt(16.0) == 4.0);
	assert_string_equal(err, "");
	/* again: loaded, nothing said */
	assert_int_equal(lazy_lib_load(&lib, NULL, 0), 0);
}

static void test_missing_library(void **state)
{
	struct lazy_lib lib = LAZY_LIB("libcpuidle-no-such.so.9", "no-such-package", m_syms, &m);
	char err[240], again[240];

	assert_int_equal(lazy_lib_load(&lib, err, sizeof(err)), -ELIBACC);
	assert_non_null(strstr(err, "needs libcpuidle-no-such.so.9 (Debian package "
				    "no-such-package), which cannot be loaded: "));
	/* the same answer later, without trying again */
	assert_int_equal(lazy_lib_load(&lib, again, sizeof(again)), -ELIBACC);
	assert_string_equal(again, err);
}

static struct {
	__typeof__(cos) *cos;
	void (*no_such_function)(void);
} bad;
static const struct lazy_sym bad_syms[] = {
	LAZY_SYM(bad, cos),
	LAZY_SYM(bad, no_such_function),
};

static void test_missing_function(void **state)
{
	struct lazy_lib lib = LAZY_LIB("libm.so.6", "libc6", bad_syms, &bad);
	char err[240];

	assert_int_equal(lazy_lib_load(&lib, err, sizeof(err)), -ELIBACC);
	assert_string_equal(err, "needs no_such_function() of libm.so.6, which it does not have "
			    "(Debian package libc6, too old?)");
}

#define RACERS	8

static struct lazy_lib race_lib = LAZY_LIB("libm.so.6", "libc6", m_syms, &m);

static void *race(void *arg)
{
	*(int *)arg = lazy_lib_load(&race_lib, NULL, 0);
	return NULL;
}

static void test_threads_race(void **state)
{
	pthread_t th[RACERS];
	int ret[RACERS];

	memset(&m, 0, sizeof(m));
	for (int i = 0; i < RACERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, race, &ret[i]), 0);
	for (int i = 0; i < RACERS; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(ret[i], 0);
	}
	assert_true(m.cos(0.0) == 1.0);
}

/* the decompressors' tables, as the readers get them */
static void test_codecs(void **state)
{
	const struct zstd_lib *zs = zstd_lib(NULL, 0);
	const struct xz_lib *xz = xz_lib(NULL, 0);

	assert_non_null(zs);
	assert_non_null(xz);
	assert_true(zs->ZSTD_isError((size_t)-ZSTD_error_corruption_detected));
	assert_false(zs->ZSTD_isError(0));
	assert_string_equal(zs->ZSTD_getErrorName((size_t)-ZSTD_error_corruption_detected),
			    "Data corruption detected");
	assert_ptr_equal(zstd_lib(NULL, 0), zs);
}

/*
 * zlib's table: the CRC-32 of "123456789" is 0xcbf43926 (the check value
 * every CRC-32 catalogue gives), and a gzip stream inflates back
 */
static void test_zlib(void **state)
{
	static const unsigned char gz_hello[] = {	/* printf hello | gzip -n */
		0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48,
		0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x86, 0xa6, 0x10, 0x36, 0x05, 0x00, 0x00, 0x00,
	};
	const struct gz_lib *z = gz_lib(NULL, 0);
	unsigned char out[16];
	z_stream strm = { 0 };

	(void)state;
	assert_non_null(z);
	assert_int_equal(z->crc32(0L, (const Bytef *)"123456789", 9), 0xcbf43926UL);
	assert_int_equal(gz_inflate_init(z, &strm, 15 + 16), Z_OK);
	strm.next_in = (Bytef *)gz_hello;
	strm.avail_in = sizeof(gz_hello);
	strm.next_out = out;
	strm.avail_out = sizeof(out);
	assert_int_equal(z->inflate(&strm, Z_FINISH), Z_STREAM_END);
	assert_int_equal(strm.total_out, 5);
	assert_memory_equal(out, "hello", 5);
	assert_int_equal(z->inflateEnd(&strm), Z_OK);
	assert_ptr_equal(gz_lib(NULL, 0), z);
}

/*
 * libtraceevent's table holds the library's functions, not the process's
 * filters of the same names (trace_tracecmd.c: linked into this test as
 * into the command), which call on through it
 */
static void test_tep_lib(void **state)
{
	static const char *const names[] = { "tep_parse_event", "tep_parse_kallsyms" };
	const struct tep_lib *tl = tep_lib(NULL, 0);
	void *fns[2];
	Dl_info info;

	(void)state;
	assert_non_null(tl);
	fns[0] = (void *)tl->tep_parse_event;
	fns[1] = (void *)tl->tep_parse_kallsyms;
	for (size_t i = 0; i < 2; i++) {
		assert_true(dladdr(fns[i], &info));
		if (!info.dli_fname || !strstr(info.dli_fname, "libtraceevent.so"))
			fail_msg("tep_lib()'s %s() is %s's", names[i],
				 info.dli_fname ? info.dli_fname : "?");
	}
	assert_ptr_not_equal(fns[0], (void *)tep_parse_event);
	assert_ptr_equal(tep_lib(NULL, 0), tl);
}

/*
 * The point of it all: the cpuidle command's start loads none of them
 * (its DT_NEEDED entries), and still exports the tep_parse_*() filters
 * that a lazily loaded libtracecmd binds to (trace_tracecmd.c)
 */
static void test_command_needs(void **state)
{
	static const char *const lazy[] = { "liblzma", "libz.so", "libzstd", "libtracecmd",
					    "libtracefs", "libyaml", "libtraceevent", "libm.so" };
	static const char *const exported[] = { "tep_parse_event", "tep_parse_kallsyms",
						"tep_parse_saved_cmdlines" };
	char cmd[512], line[512], needed[2048] = "", dynsym[1 << 16] = "";
	size_t n = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -d %s/tools/cpuidle", BUILDDIR);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "(NEEDED)") && strlen(needed) + strlen(line) < sizeof(needed))
			strcat(needed, line);
	assert_int_equal(pclose(f), 0);
	assert_non_null(strstr(needed, "libc.so"));	/* (the test reads them) */
	for (size_t i = 0; i < sizeof(lazy) / sizeof(lazy[0]); i++)
		if (strstr(needed, lazy[i]))
			fail_msg("cpuidle is linked with %s: %s", lazy[i], needed);

	snprintf(cmd, sizeof(cmd), "readelf --dyn-syms -W %s/tools/cpuidle", BUILDDIR);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);

		if (strstr(line, "tep_parse_") && !strstr(line, " UND ") &&
		    n + l < sizeof(dynsym)) {
			memcpy(dynsym + n, line, l + 1);
			n += l;
		}
	}
	assert_int_equal(pclose(f), 0);
	for (size_t i = 0; i < sizeof(exported) / sizeof(exported[0]); i++) {
		char word[64];

		snprintf(word, sizeof(word), " %s\n", exported[i]);
		if (!strstr(dynsym, word))
			fail_msg("cpuidle does not export its %s(): a lazily loaded "
				 "libtracecmd would bind to libtraceevent's", exported[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loads_table),
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_missing_function),
		cmocka_unit_test(test_threads_race),
		cmocka_unit_test(test_codecs),
		cmocka_unit_test(test_zlib),
		cmocka_unit_test(test_tep_lib),
		cmocka_unit_test(test_command_needs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
