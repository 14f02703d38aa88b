/* SPDX-License-Identifier: MIT */
/* host_cpulist.h - CPU lists as the kernel writes them: "0-3,6,8-9". */
#ifndef HOST_CPULIST_H
#define HOST_CPULIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libcpuidle.h"

/** struct host_cpuset - a set of CPU numbers below CPUIDLE_MAX_CPUS */
struct host_cpuset {
	uint64_t bits[CPUIDLE_MAX_CPUS / 64];
};

/** host_cpuset_has() - whether @cpu is in @set */
static inline bool host_cpuset_has(const struct host_cpuset *set, unsigned int cpu)
{
	return cpu < CPUIDLE_MAX_CPUS && ((set->bits[cpu / 64] >> (cpu % 64)) & 1);
}

/** host_cpuset_add() - put @cpu (below CPUIDLE_MAX_CPUS) in @set */
static inline void host_cpuset_add(struct host_cpuset *set, unsigned int cpu)
{
	set->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

/**
 * host_cpulist_parse() - parse a CPU list
 * @s: "all", or numbers and ranges separated by commas ("0", "0-3,6")
 * @set: out; "all" sets every bit
 *
 * Return: 0; -EINVAL if @s is empty, malformed or has a backward range;
 * -ERANGE if a CPU is at or above CPUIDLE_MAX_CPUS.
 */
int host_cpulist_parse(const char *s, struct host_cpuset *set);

/**
 * host_cpulist_format() - write a set as a CPU list ("0-3,6")
 * @set: the set
 * @buf: out ("" for an empty set)
 * @len: size of @buf
 *
 * Return: 0, or -ENOSPC if @buf is too small.
 */
int host_cpulist_format(const struct host_cpuset *set, char *buf, size_t len);

#endif /* HOST_CPULIST_H */
