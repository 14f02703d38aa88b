// SPDX-License-Identifier: MIT
/* host_cli.c - shared by the host commands (host_cli.h). */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "host_cli.h"

int host_cli_read(const char *cmd, struct host_cpuidle *h)
{
	char err[600];
	int ret = host_cpuidle_read(h, err, sizeof(err));

	if (ret)
		return cli_error(cmd, "%s", err[0] ? err : strerror(-ret));
	return 0;
}

int host_cli_cpus(const char *cmd, const char *list, const struct host_cpuidle *h,
		  struct host_cpuset *set)
{
	unsigned int c;
	int ret;

	if (!list)
		list = "all";
	ret = host_cpulist_parse(list, set);
	if (ret)
		return cli_error(cmd, "-c: '%s' is not a CPU list (like 0-3,6, or all)", list);
	if (!strcmp(list, "all"))
		return 0;
	for (c = 0; c < CPUIDLE_MAX_CPUS; c++)
		if (host_cpuset_has(set, c) && !host_find_cpu(h, c))
			return cli_error(cmd, "-c: CPU %u has no cpuidle directory (offline, absent "
					 "or without a driver)", c);
	return 0;
}

const char *host_cli_power(const struct host_state *s, char *buf, size_t len)
{
	if (!host_state_has(s, HOST_F_POWER))
		return "-";
	if (s->power == HOST_POWER_UNKNOWN)
		return "unknown";
	snprintf(buf, len, "%llu", (unsigned long long)s->power);
	return buf;
}

int host_cli_resume_limit(const char *text, long long *us)
{
	if (!strcmp(text, "n/a")) {
		*us = 0;
		return 0;
	}
	if (!strcmp(text, "0")) {
		*us = -1;
		return 0;
	}
	/* the kernel's PM_QOS_RESUME_LATENCY_NO_CONSTRAINT is S32_MAX */
	return cli_parse_ll(text, 1, INT32_MAX, us) ? -EINVAL : 0;
}
