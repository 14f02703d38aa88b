// SPDX-License-Identifier: MIT
/*
 * fuzz_platform.c - any bytes as a platform file (libcpuidle-platform(5)).
 *
 * A file the parser refuses gets "FILE:LINE: what" (or "FILE: what").  A
 * file it accepts keeps every rule the format promises (states shallowest
 * first, 1 to CPUIDLE_STATE_MAX per table, domain states deepest, every CPU
 * in exactly one cluster), parses to the same bytes again, and the core
 * takes it: the table driver and a device for the first CPU of each
 * cluster register, and idle periods run under every built-in governor.
 */
#include "fuzz_sys.h"

#define NAME	"fuzz.platform"

static void check_table(const struct cpuidle_platform_state *s, int n)
{
	int i;

	FUZZ_CHECK(n >= 1 && n <= CPUIDLE_STATE_MAX);
	FUZZ_CHECK(!cpuidle_platform_state_is_domain(&s[0]));
	FUZZ_CHECK(!(s[0].flags & CPUIDLE_FLAG_CHECK_BM));
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(s[i].name[0] && memchr(s[i].name, 0, sizeof(s[i].name)));
		FUZZ_CHECK(memchr(s[i].desc, 0, sizeof(s[i].desc)));
		FUZZ_CHECK(s[i].exit_latency_ns >= 0 && s[i].target_residency_ns >= 0);
		FUZZ_CHECK(s[i].entry_energy_nj >= 0 && s[i].exit_energy_nj >= 0);
		FUZZ_CHECK(s[i].power_mw >= CPUIDLE_POWER_UNKNOWN);
		if (!i)
			continue;
		FUZZ_CHECK(s[i].exit_latency_ns >= s[i - 1].exit_latency_ns);
		FUZZ_CHECK(s[i].target_residency_ns >= s[i - 1].target_residency_ns);
		FUZZ_CHECK(cpuidle_platform_state_is_domain(&s[i]) ||
			   !cpuidle_platform_state_is_domain(&s[i - 1]));
		FUZZ_CHECK(strcmp(s[i].name, s[i - 1].name));
	}
}

static void check_clusters(const struct cpuidle_platform *p)
{
	unsigned int cpu, owners;
	int i;

	FUZZ_CHECK(p->nr_clusters >= 1 && p->nr_clusters <= CPUIDLE_PLATFORM_MAX_CLUSTERS);
	FUZZ_CHECK(p->nr_cpus <= CPUIDLE_MAX_CPUS);
	for (i = 0; i < p->nr_clusters; i++)
		check_table(p->clusters[i].states, p->clusters[i].state_count);
	FUZZ_CHECK(p->state_count == p->clusters[0].state_count);
	FUZZ_CHECK(!memcmp(p->states, p->clusters[0].states, sizeof(p->states)));
	/* every CPU below nr_cpus in exactly one cluster, none above */
	for (cpu = 0; cpu < CPUIDLE_MAX_CPUS; cpu++) {
		for (owners = 0, i = 0; i < p->nr_clusters; i++)
			owners += cpuidle_platform_cluster_has_cpu(&p->clusters[i], cpu);
		if (!p->nr_cpus)
			FUZZ_CHECK(owners == 1);	/* the implicit cluster of all */
		else
			FUZZ_CHECK(owners == (cpu < p->nr_cpus));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cpuidle_platform *p = malloc(sizeof(*p)), *again = malloc(sizeof(*again));
	const struct cpuidle_governor *const *g;
	char err[512];
	struct fuzz_sys *fs;
	int i, ret;

	FUZZ_CHECK(p && again);
	memset(err, 'X', sizeof(err));
	ret = cpuidle_platform_parse((const char *)data, size, NAME, p, err, sizeof(err));
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL || ret == -EFBIG);
		FUZZ_CHECK(memchr(err, 0, sizeof(err)));
		FUZZ_CHECK(!strncmp(err, NAME ":", sizeof(NAME)));
		goto out;
	}
	check_clusters(p);
	FUZZ_CHECK(!cpuidle_platform_parse((const char *)data, size, NAME, again, err,
					   sizeof(err)));
	FUZZ_CHECK(!memcmp(p, again, sizeof(*p)));

	fs = fuzz_sys_create(p);
	for (g = cpuidle_builtin_governors(); *g; g++) {
		FUZZ_CHECK(!cpuidle_switch_governor(fs->sys, (*g)->name));
		for (i = 0; i < fs->nr_devs; i++) {
			fuzz_sys_idle(fs, i, 2000000, 1500000, false);
			fuzz_sys_idle(fs, i, CPUIDLE_TIME_INFINITE, 50000000, true);
			fuzz_sys_idle(fs, i, 1000, 300, false);
		}
	}
	fuzz_sys_destroy(fs);
out:
	free(again);
	free(p);
	return 0;
}
