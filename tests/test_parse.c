// SPDX-License-Identifier: MIT
/*
 * test_parse.c - the command line's numbers (tools/parse.c): integers and
 * durations, the whole string or nothing.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "parse.h"

static void expect_ll(const char *s, long long min, long long max, int ret, long long want)
{
	long long v = 42;

	assert_int_equal(cli_parse_ll(s, min, max, &v), ret);
	assert_int_equal(v, ret ? 42 : want);
}

static void test_parse_ll(void **state)
{
	(void)state;
	expect_ll("5", 0, 10, 0, 5);
	expect_ll("+5", 0, 10, 0, 5);
	expect_ll("-0", 0, 10, 0, 0);
	expect_ll("007", 0, 10, 0, 7);
	expect_ll("-9223372036854775808", LLONG_MIN, LLONG_MAX, 0, LLONG_MIN);
	expect_ll("9223372036854775807", LLONG_MIN, LLONG_MAX, 0, LLONG_MAX);
	expect_ll("9223372036854775808", LLONG_MIN, LLONG_MAX, -ERANGE, 0);
	expect_ll("11", 0, 10, -ERANGE, 0);
	expect_ll("-1", 0, 10, -ERANGE, 0);
	expect_ll("", 0, 10, -EINVAL, 0);
	expect_ll(NULL, 0, 10, -EINVAL, 0);
	expect_ll("+", 0, 10, -EINVAL, 0);
	expect_ll("5 ", 0, 10, -EINVAL, 0);
	expect_ll("5x", 0, 10, -EINVAL, 0);
	expect_ll("0x10", 0, 100, -EINVAL, 0);
	expect_ll("1e3", 0, 10000, -EINVAL, 0);
	/*
	 * strtoll() skips leading blanks, and so did cli_parse_ll(): "--qos
	 * ' 5'" and "--qos $'\n7'" were taken for 5 and 7 (fuzz_cli_numbers,
	 * against the contract: the whole string must be a number).
	 */
	expect_ll(" 5", 0, 10, -EINVAL, 0);
	expect_ll("\n7", 0, 10, -EINVAL, 0);
	expect_ll("\t-1", -5, 10, -EINVAL, 0);
}

static void expect_seconds(const char *s, double min, double max, int ret, double want)
{
	double v = -1;

	assert_int_equal(cli_parse_seconds(s, min, max, &v), ret);
	if (ret)
		assert_true(v == -1);
	else
		assert_true(v == want);
}

static void test_parse_seconds(void **state)
{
	(void)state;
	expect_seconds("1", 0.01, 3600, 0, 1);
	expect_seconds("0.25", 0.01, 3600, 0, 0.25);
	expect_seconds("2e-2", 0.01, 3600, 0, 0.02);
	expect_seconds("3600", 0.01, 3600, 0, 3600);
	expect_seconds("0x1p-1", 0.01, 3600, 0, 0.5);
	expect_seconds("0", 0.01, 3600, -ERANGE, 0);
	expect_seconds("3600.5", 0.01, 3600, -ERANGE, 0);
	expect_seconds("inf", 0.01, 3600, -ERANGE, 0);
	expect_seconds("-inf", 0.01, 3600, -ERANGE, 0);
	expect_seconds("nan", 0.01, 3600, -EINVAL, 0);
	expect_seconds("", 0.01, 3600, -EINVAL, 0);
	expect_seconds(NULL, 0.01, 3600, -EINVAL, 0);
	expect_seconds("1s", 0.01, 3600, -EINVAL, 0);
	expect_seconds("1 ", 0.01, 3600, -EINVAL, 0);
	expect_seconds(" 1", 0.01, 3600, -EINVAL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ll),
		cmocka_unit_test(test_parse_seconds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
