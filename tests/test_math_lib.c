// SPDX-License-Identifier: MIT
/*
 * test_math_lib.c - the command's libm, loaded on first use
 * (tools/math_lib.c): the table holds libm's own functions and gives what
 * they give; the helpers that need no libm (fmax, fmin, round) agree with
 * C99's, NaNs and halves included.  That the command does not name libm
 * is test_lazy_lib's check, with the other libraries loaded on first use.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "math_lib.h"

static void test_table(void **state)
{
	const struct math_lib *m = math_lib();
	/* (volatile: libm's own functions, called, not folded by the compiler) */
	double (*volatile lib_pow)(double, double) = pow;
	double (*volatile lib_log10)(double) = log10;
	double (*volatile lib_cbrt)(double) = cbrt;

	(void)state;
	assert_non_null(m->pow);
	assert_true(math_exp10(3) == 1000.0);
	assert_true(math_log10(1e-4) == -4.0);
	assert_true(math_ldexp(1.25, 4) == 20.0);
	for (double x = -40; x < 40; x += 0.37) {
		assert_true(math_exp10(x) == lib_pow(10, x));
		assert_true(math_cbrt(x) == lib_cbrt(x));
		if (x > 0)
			assert_true(math_log10(x) == lib_log10(x));
	}
	assert_ptr_equal(math_lib(), m);
}

/* the helpers, against the C library's own fmax, fmin and round */
static void test_helpers(void **state)
{
	static const double v[] = {
		0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, 0.49999999999999994,
		-0.49999999999999994, 4503599627370495.5, 4503599627370497.0, 1e300, -1e300,
		DBL_MIN, INFINITY, -INFINITY, NAN, 123.456, -7.5,
	};
	const size_t n = sizeof(v) / sizeof(v[0]);
	/* (volatile: the compiler's own folding of the libm calls is not the point) */
	double (*volatile lib_fmax)(double, double) = fmax;
	double (*volatile lib_fmin)(double, double) = fmin;
	double (*volatile lib_round)(double) = round;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		double r = math_round(v[i]), want = lib_round(v[i]);

		if (isnan(want))
			assert_true(isnan(r));
		else if (r != want || signbit(r) != signbit(want))
			fail_msg("math_round(%.17g) = %.17g, round() %.17g", v[i], r, want);
		for (size_t j = 0; j < n; j++) {
			double mx = math_max(v[i], v[j]), mn = math_min(v[i], v[j]);
			double wx = lib_fmax(v[i], v[j]), wn = lib_fmin(v[i], v[j]);

			if (isnan(wx) ? !isnan(mx) : mx != wx)
				fail_msg("math_max(%g, %g) = %g, fmax() %g", v[i], v[j], mx, wx);
			if (isnan(wn) ? !isnan(mn) : mn != wn)
				fail_msg("math_min(%g, %g) = %g, fmin() %g", v[i], v[j], mn, wn);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
