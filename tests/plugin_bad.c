// SPDX-License-Identifier: MIT
/*
 * plugin_bad.c - governor plugins the lab must refuse, one per build
 * (tests/meson.build): PLUGIN_BAD_ABI built for another ABI version,
 * PLUGIN_BAD_NAME a governor named as a built-in one, PLUGIN_BAD_EMPTY no
 * governor at all, PLUGIN_BAD_CRASH one whose select() crashes.
 */
#include <stdint.h>

#include <libcpuidle.h>

#ifdef PLUGIN_BAD_CRASH
/* the first page, never mapped (not NULL: UBSan would report that itself) */
static int *volatile crash_at = (int *)(uintptr_t)16;
#endif

static int bad_select(struct cpuidle_device *dev, bool *stop_tick)
{
#ifdef PLUGIN_BAD_CRASH
	if (dev->state_count > 1)
		*crash_at = 1;
#endif
	return 0;
}

__attribute__((unused))
static const struct cpuidle_governor bad_governor = {
#ifdef PLUGIN_BAD_NAME
	.name = "menu",
#else
	.name = "bad",
#endif
	.rating = 1,
	.select = bad_select,
};

static const struct cpuidle_governor *const bad_list[] = {
#ifndef PLUGIN_BAD_EMPTY
	&bad_governor,
#endif
	NULL,
};

static const struct cpuidle_plugin bad_plugin = {
#ifdef PLUGIN_BAD_ABI
	.abi_version = CPUIDLE_PLUGIN_ABI_VERSION + 98,
#else
	.abi_version = CPUIDLE_PLUGIN_ABI_VERSION,
#endif
	.governors = bad_list,
};

__attribute__((visibility("default")))
const struct cpuidle_plugin *cpuidle_plugin_governors(void)
{
	return &bad_plugin;
}
