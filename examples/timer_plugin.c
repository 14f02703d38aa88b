// SPDX-License-Identifier: MIT
/*
 * timer_plugin.c - the timer governor (timer_governor.c) as a plugin the
 * governor lab loads: cpuidle sim -g ./timer_plugin.so TRACE
 *
 *	cc -shared -fPIC -o timer_plugin.so timer_plugin.c timer_governor.c \
 *		$(pkg-config --cflags libcpuidle)
 *
 * libcpuidle is not linked in: the plugin calls the library in the program
 * that loads it (include/cpuidle/plugin.h).
 */
#include <libcpuidle.h>

#include "timer_governor.h"

static const struct cpuidle_governor *const timer_plugin_list[] = {
	&timer_governor,
	NULL,
};

static const struct cpuidle_plugin timer_plugin = {
	.abi_version = CPUIDLE_PLUGIN_ABI_VERSION,
	.governors = timer_plugin_list,
};

__attribute__((visibility("default")))
const struct cpuidle_plugin *cpuidle_plugin_governors(void)
{
	return &timer_plugin;
}
