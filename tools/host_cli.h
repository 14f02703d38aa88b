/* SPDX-License-Identifier: MIT */
/*
 * host_cli.h - pieces shared by the commands about the host's own cpuidle
 * (info, set, qos, monitor, record, platform --from-host).
 */
#ifndef TOOLS_HOST_CLI_H
#define TOOLS_HOST_CLI_H

#include "host_cpulist.h"
#include "host_sysfs.h"

/*
 * Read the host's cpuidle sysfs into @h, or print "cpuidle CMD: why" (no
 * cpuidle in the kernel, a file that cannot be read).
 * Return: 0, or 1 after printing the error.
 */
int host_cli_read(const char *cmd, struct host_cpuidle *h);

/*
 * Parse @list (-c) into @set; NULL means every CPU.  With a list other
 * than "all", every CPU named must have a cpuidle directory in @h.
 * Return: 0, or 1 after printing the error.
 */
int host_cli_cpus(const char *cmd, const char *list, const struct host_cpuidle *h,
		  struct host_cpuset *set);

/* A state's power for people: "unknown" for 4294967295, "-" if absent. */
const char *host_cli_power(const struct host_state *s, char *buf, size_t len);

/*
 * A CPU's resume latency limit from power/pm_qos_resume_latency_us as the
 * kernel prints it (drivers/base/power/sysfs.c): "n/a" is a limit of 0 us
 * (polling only), "0" is no constraint (*@us = -1), else the number in us.
 * info --json and qos show --json print the limit so: a number, null for
 * no constraint.
 * Return: 0, or -EINVAL for text the kernel does not write.
 */
int host_cli_resume_limit(const char *text, long long *us);

#endif /* TOOLS_HOST_CLI_H */
