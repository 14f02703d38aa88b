// SPDX-License-Identifier: MIT
/* parse.c - the numbers of the command line (parse.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "parse.h"

/* strtoll() and strtod() skip leading blanks; a number here has none. */
static int starts_number(const char *s)
{
	return s && *s && !(*s == ' ' || (*s >= '\t' && *s <= '\r'));
}

int cli_parse_ll(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (!starts_number(s))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int cli_parse_seconds(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!starts_number(s))
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s || *end || isnan(v))
		return -EINVAL;
	if (!(v >= min && v <= max))
		return -ERANGE;
	*out = v;
	return 0;
}
