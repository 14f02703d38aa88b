/* SPDX-License-Identifier: MIT */
/*
 * plugin.h - governors in a shared object of their own, loaded by the
 * governor lab (cpuidle sim|sweep|fidelity|conformance -g ./PLUGIN.so)
 */
#ifndef CPUIDLE_PLUGIN_H
#define CPUIDLE_PLUGIN_H

#include "cpuidle.h"

/**
 * DOC: governor plugins
 *
 * A plugin is a shared object that defines one function,
 * cpuidle_plugin_governors(), returning a struct cpuidle_plugin: the ABI
 * version it was built for and its governors.  The lab registers the
 * governor a run asks for into that run's system, as a built-in one: it
 * takes part in every -g list, --log-decisions and --report, and its
 * tunables (struct cpuidle_governor.params) are written with -s
 * module/NAME/parameters/PARAM=VALUE.  A plugin calls the library through
 * the program that loads it (cpuidle exports the API); build it with
 * "cc -shared -fPIC $(pkg-config --cflags libcpuidle)", libcpuidle not
 * linked in.  The version changes whenever struct cpuidle_governor, struct
 * cpuidle_device, struct cpuidle_driver or struct cpuidle_plugin does; a
 * plugin built for another version is refused with both numbers.
 */

#define CPUIDLE_PLUGIN_ABI_VERSION	2

/* the name of the function every plugin defines */
#define CPUIDLE_PLUGIN_ENTRY		"cpuidle_plugin_governors"

/**
 * struct cpuidle_plugin - what a plugin offers
 * @abi_version: CPUIDLE_PLUGIN_ABI_VERSION, as the plugin was built
 * @governors: its governors, NULL-terminated, at least one; each name
 *	unique and none a built-in governor's
 */
struct cpuidle_plugin {
	unsigned int abi_version;
	const struct cpuidle_governor *const *governors;
};

/**
 * cpuidle_plugin_governors() - a plugin's entry point (it defines it)
 *
 * Return: the plugin's description, valid while it is loaded.
 */
const struct cpuidle_plugin *cpuidle_plugin_governors(void);

#endif /* CPUIDLE_PLUGIN_H */
