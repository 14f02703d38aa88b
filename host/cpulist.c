// SPDX-License-Identifier: MIT
/* cpulist.c - CPU lists (host_cpulist.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "host_cpulist.h"

/* a decimal CPU number at *@p, advancing it */
static int number(const char **p, unsigned int *out)
{
	unsigned long v = 0;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (unsigned long)(**p - '0');
		if (v >= CPUIDLE_MAX_CPUS)
			return -ERANGE;
		(*p)++;
	}
	*out = (unsigned int)v;
	return 0;
}

int host_cpulist_parse(const char *s, struct host_cpuset *set)
{
	unsigned int lo, hi, c;
	int ret;

	memset(set, 0, sizeof(*set));
	if (!s || !*s)
		return -EINVAL;
	if (!strcmp(s, "all")) {
		memset(set->bits, 0xff, sizeof(set->bits));
		return 0;
	}
	for (;;) {
		ret = number(&s, &lo);
		if (ret)
			return ret;
		hi = lo;
		if (*s == '-') {
			s++;
			ret = number(&s, &hi);
			if (ret)
				return ret;
			if (hi < lo)
				return -EINVAL;
		}
		for (c = lo; c <= hi; c++)
			host_cpuset_add(set, c);
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -EINVAL;
	}
}

int host_cpulist_format(const struct host_cpuset *set, char *buf, size_t len)
{
	unsigned int c = 0, end;
	size_t used = 0;
	int n;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	while (c < CPUIDLE_MAX_CPUS) {
		if (!host_cpuset_has(set, c)) {
			c++;
			continue;
		}
		for (end = c; end + 1 < CPUIDLE_MAX_CPUS && host_cpuset_has(set, end + 1); end++)
			;
		if (end == c)
			n = snprintf(buf + used, len - used, "%s%u", used ? "," : "", c);
		else
			n = snprintf(buf + used, len - used, "%s%u-%u", used ? "," : "", c, end);
		if (n < 0 || (size_t)n >= len - used)
			return -ENOSPC;
		used += (size_t)n;
		c = end + 1;
	}
	return 0;
}
