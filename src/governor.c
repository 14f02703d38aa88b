// SPDX-License-Identifier: MIT
/*
 * governor.c - the governor registry of a system (the kernel's
 * drivers/cpuidle/governor.c): find by name, default by rating, switch at
 * run time keeping the statistics.  The built-in governors are an explicit
 * table, registered at system creation.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "governors/gov.h"

static const struct cpuidle_governor *const builtin_governors[] = {
	&ladder_governor,
	&menu_governor,
	&teo_governor,
	&haltpoll_governor,
	&hazard_governor,
	&cluster_governor,
	NULL,
};

/*
 * The ports by kernel release, NAME@RELEASE, menu's before teo's as above.
 * NAME alone is the release the shared recordings were made on (6.18), and
 * NAME@6.18 the same functions under the release's name.
 */
static const struct cpuidle_governor *const versioned_governors[] = {
	&menu_6_18_governor,
	&menu_7_1_governor,
	&teo_6_18_governor,
	&teo_7_1_governor,
	NULL,
};

const struct cpuidle_governor *const *cpuidle_builtin_governors(void)
{
	return builtin_governors;
}

const struct cpuidle_governor *const *cpuidle_versioned_governors(void)
{
	return versioned_governors;
}

const struct cpuidle_governor *cpuidle_builtin_governor(const char *name)
{
	const struct cpuidle_governor *const *lists[] = { builtin_governors, versioned_governors };
	const struct cpuidle_governor *const *g;
	size_t i;

	for (i = 0; name && i < sizeof(lists) / sizeof(lists[0]); i++)
		for (g = lists[i]; *g; g++)
			if (!strcmp((*g)->name, name))
				return *g;
	return NULL;
}

int cpuidle_governor_releases(const char *name, char *buf, size_t len)
{
	const struct cpuidle_governor *const *g, *plain;
	size_t base = name ? strcspn(name, "@") : 0, used = 0;
	char plain_name[CPUIDLE_NAME_LEN];
	int n = 0;

	if (len)
		buf[0] = '\0';
	if (!base || base >= sizeof(plain_name))
		return 0;
	memcpy(plain_name, name, base);
	plain_name[base] = '\0';
	plain = cpuidle_builtin_governor(plain_name);
	for (g = versioned_governors; *g; g++) {
		int w;

		if (strncmp((*g)->name, name, base) || (*g)->name[base] != '@')
			continue;
		w = snprintf(buf + used, len > used ? len - used : 0, "%s%s%s%s%s", n ? ", " : "",
			     (*g)->name, plain && plain->select == (*g)->select ? " (= " : "",
			     plain && plain->select == (*g)->select ? plain_name : "",
			     plain && plain->select == (*g)->select ? ")" : "");
		used += w > 0 ? (size_t)w : 0;
		n++;
	}
	return n;
}

const struct cpuidle_governor *cpuidle_find_governor_locked(struct cpuidle_system *sys,
							    const char *name)
{
	int i;

	for (i = 0; i < sys->nr_governors; i++)
		if (!strncasecmp(sys->governors[i]->name, name, CPUIDLE_NAME_LEN))
			return sys->governors[i];
	return NULL;
}

const struct cpuidle_governor *cpuidle_find_governor(struct cpuidle_system *sys,
						     const char *name)
{
	const struct cpuidle_governor *gov;
	bool locked;

	if (!sys || !name)
		return NULL;
	locked = cpuidle_sys_lock(sys);
	gov = cpuidle_find_governor_locked(sys, name);
	cpuidle_sys_unlock(sys, locked);
	return gov;
}

const struct cpuidle_governor *cpuidle_current_governor(struct cpuidle_system *sys)
{
	const struct cpuidle_governor *gov;
	bool locked;

	if (!sys)
		return NULL;
	locked = cpuidle_sys_lock(sys);
	gov = sys->governor;
	cpuidle_sys_unlock(sys, locked);
	return gov;
}

static void disable_all(struct cpuidle_system *sys)
{
	unsigned int cpu;

	for (cpu = 0; cpu < sys->devices_cap; cpu++)
		if (sys->devices[cpu])
			cpuidle_disable_device_locked(sys->devices[cpu]);
}

static int enable_all(struct cpuidle_system *sys)
{
	unsigned int cpu;
	int ret;

	for (cpu = 0; cpu < sys->devices_cap; cpu++) {
		if (!sys->devices[cpu])
			continue;
		ret = cpuidle_enable_device_locked(sys->devices[cpu]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Switch every registered device to @gov; like the kernel, a switch
 * (re-)enables them all.  If one refuses, the old governor is put back on
 * the devices that were enabled before, and only on those.
 * Lock held (not necessarily paused).
 */
int cpuidle_switch_governor_locked(struct cpuidle_system *sys,
				   const struct cpuidle_governor *gov)
{
	const struct cpuidle_governor *old = sys->governor;
	uint64_t was_enabled[CPUIDLE_MAX_CPUS / 64] = { 0 };
	bool paused_here = false;
	unsigned int cpu;
	int ret;

	if (gov == old)
		return 0;
	if (!__atomic_load_n(&sys->paused, __ATOMIC_RELAXED)) {
		cpuidle_pause(sys);
		paused_here = true;
	}
	for (cpu = 0; cpu < sys->devices_cap; cpu++)
		if (sys->devices[cpu] && sys->devices[cpu]->enabled)
			was_enabled[cpu / 64] |= 1ull << (cpu % 64);
	disable_all(sys);
	sys->governor = gov;
	ret = enable_all(sys);
	if (ret) {
		disable_all(sys);
		sys->governor = old;
		for (cpu = 0; old && cpu < sys->devices_cap; cpu++)
			if ((was_enabled[cpu / 64] >> (cpu % 64)) & 1)
				cpuidle_enable_device_locked(sys->devices[cpu]);
	}
	if (paused_here)
		cpuidle_resume(sys);
	return ret;
}

int cpuidle_register_governor(struct cpuidle_system *sys, const struct cpuidle_governor *gov)
{
	const struct cpuidle_governor *cur;
	bool locked, by_name;
	int ret = 0;

	if (!sys || !gov || !gov->select || !cpuidle_name_valid(gov->name, sizeof(gov->name)))
		return -EINVAL;

	locked = cpuidle_sys_lock(sys);
	if (cpuidle_find_governor_locked(sys, gov->name)) {
		ret = -EEXIST;
		goto out;
	}
	if (sys->nr_governors == CPUIDLE_MAX_GOVERNORS) {
		ret = -ENOSPC;
		goto out;
	}
	ret = cpuidle_gov_params_attach(sys, gov);	/* its tunables, at their defaults */
	if (ret)
		goto out;
	sys->governors[sys->nr_governors++] = gov;

	cur = sys->governor;
	by_name = sys->param_governor[0] &&
		  !strncasecmp(gov->name, sys->param_governor, CPUIDLE_NAME_LEN);
	if (!cur || by_name || (gov->rating > cur->rating && !sys->gov_chosen_by_name)) {
		ret = cpuidle_switch_governor_locked(sys, gov);
		if (ret) {
			sys->nr_governors--;
			goto out;
		}
		if (by_name)
			sys->gov_chosen_by_name = true;
	}
out:
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

int cpuidle_unregister_governor(struct cpuidle_system *sys, const struct cpuidle_governor *gov)
{
	bool locked;
	int i, ret = -ENOENT;

	if (!sys || !gov)
		return -EINVAL;
	locked = cpuidle_sys_lock(sys);
	for (i = 0; i < sys->nr_governors; i++) {
		if (sys->governors[i] != gov)
			continue;
		if (sys->governor == gov) {
			ret = -EBUSY;
			break;
		}
		memmove(&sys->governors[i], &sys->governors[i + 1],
			(size_t)(sys->nr_governors - i - 1) * sizeof(sys->governors[0]));
		sys->nr_governors--;
		if (sys->gov_before_driver == gov)
			sys->gov_before_driver = NULL;
		ret = 0;
		break;
	}
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

int cpuidle_switch_governor(struct cpuidle_system *sys, const char *name)
{
	const struct cpuidle_governor *gov = NULL;
	bool locked;
	int i, ret;

	if (!sys || !name)
		return -EINVAL;
	locked = cpuidle_sys_lock(sys);
	/* sysfs compares case-sensitively (strncmp in current_governor store). */
	for (i = 0; i < sys->nr_governors; i++)
		if (!strncmp(sys->governors[i]->name, name, CPUIDLE_NAME_LEN))
			gov = sys->governors[i];
	if (!gov) {
		ret = -EINVAL;
		goto out;
	}
	ret = cpuidle_switch_governor_locked(sys, gov);
	if (!ret)
		sys->gov_chosen_by_name = true;
out:
	cpuidle_sys_unlock(sys, locked);
	return ret;
}
