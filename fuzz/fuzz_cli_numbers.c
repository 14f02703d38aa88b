// SPDX-License-Identifier: MIT
/*
 * fuzz_cli_numbers.c - how the cpuidle tool reads the numbers it is given:
 * cli_parse_ll() (every integer option: --qos, -n, -D, --threads, ...),
 * cli_parse_seconds() (monitor -i, record -t) and host_cpulist_parse()
 * (-c CPU lists), each against what it promises.
 *
 * Input: the first byte picks the parser; for cli_parse_ll the next 16
 * bytes are the range's bounds; the rest, up to a NUL, is the argument.
 *
 * cli_parse_ll() is compared with a plain reading of its contract: an
 * optional sign, decimal digits and nothing else, in [min, max].
 */
#include <limits.h>
#include <math.h>

#include "fuzz.h"

#include "host_cpulist.h"
#include "parse.h"

/* The contract, read plainly: 0 with *v, -EINVAL or -ERANGE. */
static int reference_ll(const char *s, long long min, long long max, long long *v)
{
	unsigned long long mag = 0, lim;
	bool neg = false, big = false;
	const char *p = s;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!*p)
		return -EINVAL;
	lim = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (mag > (lim - (unsigned long long)(*p - '0')) / 10)
			big = true;
		else
			mag = mag * 10 + (unsigned long long)(*p - '0');
	}
	if (big)
		return -ERANGE;
	*v = neg ? (mag ? -(long long)(mag - 1) - 1 : 0) : (long long)mag;
	return *v < min || *v > max ? -ERANGE : 0;
}

static void fuzz_ll(const uint8_t *data, size_t size, const char *s)
{
	long long min = 0, max = 0, v = 42, want = 43;
	int ret, ref;

	if (size >= 16) {
		memcpy(&min, data, 8);
		memcpy(&max, data + 8, 8);
	}
	ret = cli_parse_ll(s, min, max, &v);
	ref = reference_ll(s, min, max, &want);
	if (ret != ref)
		fprintf(stderr, "cli_parse_ll(\"%s\", %lld, %lld): %d, want %d\n", s, min, max,
			ret, ref);
	FUZZ_CHECK(ret == ref);
	if (!ret)
		FUZZ_CHECK(v == want && v >= min && v <= max);
	else
		FUZZ_CHECK(v == 42);
}

static void fuzz_seconds(const char *s)
{
	static const double ranges[][2] = { { 0.01, 3600 }, { 0.01, 86400 }, { 0, 1e300 } };
	double v;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		v = -1;
		ret = cli_parse_seconds(s, ranges[i][0], ranges[i][1], &v);
		FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ERANGE);
		if (!ret)
			FUZZ_CHECK(isfinite(v) && v >= ranges[i][0] && v <= ranges[i][1] && *s &&
				   *s != ' ');
		else
			FUZZ_CHECK(v == -1);
	}
}

static void fuzz_cpulist(const char *s)
{
	struct host_cpuset set, again;
	char buf[32768];
	int ret;

	ret = host_cpulist_parse(s, &set);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ERANGE);
	if (ret)
		return;
	/* written back and read again: the same set */
	FUZZ_CHECK(!host_cpulist_format(&set, buf, sizeof(buf)));
	if (!buf[0])
		return;		/* no CPU: cannot be written as a list */
	FUZZ_CHECK(!host_cpulist_parse(buf, &again));
	FUZZ_CHECK(!memcmp(&set, &again, sizeof(set)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t skip, n;
	char *s;

	if (!size || size > 4096)
		return 0;
	skip = data[0] % 3 == 0 ? 17 : 1;
	if (size < skip)
		skip = size;
	n = strnlen((const char *)data + skip, size - skip);
	s = malloc(n + 1);
	FUZZ_CHECK(s);
	memcpy(s, data + skip, n);
	s[n] = '\0';
	switch (data[0] % 3) {
	case 0:
		fuzz_ll(data + 1, size - 1, s);
		break;
	case 1:
		fuzz_seconds(s);
		break;
	default:
		fuzz_cpulist(s);
		break;
	}
	free(s);
	return 0;
}
