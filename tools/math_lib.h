/* SPDX-License-Identifier: MIT */
/*
 * math_lib.h - the few functions of libm the command's reports and samples
 * call (chart scales in decades, a histogram's bin edges, a block length),
 * loaded the first time one is called, and the ones it need not load.
 *
 * libm linked cost every command 57 us a start (bench/startup: an empty
 * program 551 us, linked with -lm 608; it relocates its own IFUNCs as it
 * loads), for functions only reports draw with.  libm is glibc's, of the
 * same package (libc6) as the libc the command runs on: if it still cannot
 * be loaded, the command says so and exits (math_lib()).
 */
#ifndef TOOLS_MATH_LIB_H
#define TOOLS_MATH_LIB_H

#include <math.h>

/** struct math_lib - libm's functions the command calls */
struct math_lib {
	__typeof__(pow) *pow;
	__typeof__(log10) *log10;
	__typeof__(cbrt) *cbrt;
	__typeof__(ldexp) *ldexp;
};

/**
 * math_lib() - libm, loaded
 *
 * Return: its table.  Where it cannot be loaded (a broken installation:
 * libm.so.6 is part of libc6), the command says why on stderr and exits
 * with status 1.
 */
const struct math_lib *math_lib(void);

/* 10 to the power @x, the decades charts are drawn in */
static inline double math_exp10(double x)
{
	return math_lib()->pow(10, x);
}

static inline double math_log10(double x)
{
	return math_lib()->log10(x);
}

static inline double math_cbrt(double x)
{
	return math_lib()->cbrt(x);
}

static inline double math_ldexp(double x, int e)
{
	return math_lib()->ldexp(x, e);
}

/*
 * fmax() and fmin() as C99 has them (a NaN gives way to the other), and
 * round() (halves away from zero), with no call into libm
 */
static inline double math_max(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a > b ? a : b;
}

static inline double math_min(double a, double b)
{
	return isnan(a) ? b : isnan(b) ? a : a < b ? a : b;
}

static inline double math_round(double x)
{
	double a = fabs(x), r = floor(a);

	if (a - r >= 0.5)	/* (exact: a and its floor share their exponent) */
		r += 1;
	return copysign(r, x);
}

#endif /* TOOLS_MATH_LIB_H */
