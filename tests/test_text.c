// SPDX-License-Identifier: MIT
/*
 * test_text.c - untrusted bytes as text (tools/text.c), alone: standard
 * output through cli_filter_stdout() gives what cli_put_text() gives of the
 * same bytes at once, however stdio's flushes cut them (a UTF-8 sequence
 * split between two writes is still one character; a cut invalid one is
 * still escaped), and the terminal's escape sequences never come out.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cli.h"

#define LEN	300000	/* past the filter's 64 KiB buffer */

/* bytes of every kind: ASCII, controls, valid sequences of 2-4 bytes, broken ones */
static size_t random_bytes(unsigned char *b, size_t max, unsigned int *seed, bool plain)
{
	static const char *const pieces[] = {
		"a", "Z", " ", "\n", "\t", "\033[31m", "\x7f", "\x01", "\xc3\xa9", "\xe2\x82\xac",
		"\xf0\x9f\x98\x80", "\xff", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\x80", "\xed\xa0\x80",
		"\xe0\x80\xaf", "\xf4\x90\x80\x80", "\\", "\"",
	};
	size_t n = 0, k;

	while (n + 8 < max) {
		/* plain: the first five alone, runs longer than the filter's buffer */
		const char *p = pieces[(unsigned int)rand_r(seed) %
				       (plain ? 5 : sizeof(pieces) / sizeof(pieces[0]))];

		k = strlen(p);
		memcpy(b + n, p, k);
		n += k;
	}
	b[n] = '\0';
	return n;
}

static char *read_all(FILE *f, size_t *len)
{
	char *buf = malloc(8 * LEN + 1);

	assert_non_null(buf);
	rewind(f);
	*len = fread(buf, 1, 8 * LEN, f);
	buf[*len] = '\0';
	return buf;
}

static void test_filter_equals_put_text(void **state)
{
	FILE *want = tmpfile(), *got = tmpfile();
	unsigned char *bytes = malloc(LEN + 1);
	unsigned int seed = 7, round;
	int saved = dup(STDOUT_FILENO);
	FILE *real = stdout;

	(void)state;
	assert_non_null(want);
	assert_non_null(got);
	assert_non_null(bytes);
	assert_true(saved >= 0);
	for (round = 0; round < 12; round++) {
		size_t n = random_bytes(bytes, LEN, &seed, round % 3 == 0), at = 0, wl, gl;
		char *w, *g;

		assert_int_equal(ftruncate(fileno(want), 0), 0);
		assert_int_equal(ftruncate(fileno(got), 0), 0);
		rewind(want);
		assert_int_equal(cli_put_text(want, (const char *)bytes, CLI_TEXT_MSG), 0);
		fflush(want);

		/* stdout is the file; the filter over it; writes cut anywhere */
		assert_true(dup2(fileno(got), STDOUT_FILENO) >= 0);
		assert_int_equal(lseek(STDOUT_FILENO, 0, SEEK_SET), 0);
		assert_int_equal(cli_filter_stdout(), 0);
		while (at < n) {
			size_t cut = 1 + (size_t)rand_r(&seed) % (round % 2 ? 7 : 200000);

			if (cut > n - at)
				cut = n - at;
			assert_int_equal(fwrite(bytes + at, 1, cut, stdout), cut);
			if (rand_r(&seed) % 2)
				assert_int_equal(fflush(stdout), 0);
			at += cut;
		}
		assert_int_equal(fclose(stdout), 0);
		stdout = real;
		assert_true(dup2(saved, STDOUT_FILENO) >= 0);

		w = read_all(want, &wl);
		g = read_all(got, &gl);
		assert_int_equal(gl, wl);
		assert_memory_equal(g, w, wl);
		assert_null(memchr(g, '\033', gl));
		free(w);
		free(g);
	}
	close(saved);
	fclose(want);
	fclose(got);
	free(bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_equals_put_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
