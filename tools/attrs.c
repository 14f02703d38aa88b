// SPDX-License-Identifier: MIT
/*
 * attrs.c - what the lab's commands share about the replayed system: the
 * attribute writes of -s (checked once, on a scratch system, so that a bad
 * one is reported clearly before any work), and the note for a platform
 * whose states have no power figure.
 */
#include <errno.h>
#include <string.h>

#include "cli.h"

static uint64_t zero_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	(void)ctx;
	return 0;
}

int cli_check_attrs(const char *cmd, const char *const *attrs)
{
	struct cpuidle_system_opts opts = { .sz = sizeof(opts), .ops = { .clock_ns = zero_clock } };
	struct cpuidle_system *sys;
	int ret = 0;

	if (!attrs || !*attrs)
		return 0;
	if (cpuidle_system_create(&opts, &sys))
		return cli_error(cmd, "out of memory");
	for (; !ret && *attrs; attrs++) {
		const char *eq = strchr(*attrs, '=');
		char path[256];
		int err;

		if (!eq || eq == *attrs || (size_t)(eq - *attrs) >= sizeof(path)) {
			ret = cli_error(cmd, "-s '%s': PATH=VALUE expected", *attrs);
			break;
		}
		memcpy(path, *attrs, (size_t)(eq - *attrs));
		path[eq - *attrs] = '\0';
		if (!strncmp(path, "cpu", 3) && path[3] >= '0' && path[3] <= '9')
			continue;	/* a device file: checked when the devices exist */
		err = cpuidle_attr_write(sys, path, eq + 1);
		if (err)
			ret = cli_error(cmd, "-s '%s': %s", *attrs, strerror(-err));
	}
	cpuidle_system_destroy(sys);
	return ret;
}

void cli_note_power_unknown(const char *cmd, const struct cpuidle_platform *p, const char *spec)
{
	char names[CPUIDLE_STATE_MAX * (CPUIDLE_NAME_LEN + 2)] = "";
	size_t len = 0;
	int c, s, n = 0;

	for (s = 0; s < p->state_count; s++) {
		bool unknown = false;

		for (c = 0; c < p->nr_clusters; c++)
			unknown |= p->clusters[c].states[s].model_power_mw < 0;
		if (!unknown)
			continue;
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", n ? ", " : "",
					p->states[s].name);
		n++;
	}
	if (!n)
		return;
	fprintf(stderr, CLI_NAME " %s: note: platform %s gives no power for %s %s (sysfs "
		"shows none, 4294967295, on most machines), so energy is unknown: replay on a "
		"modelled platform (" CLI_NAME " platform list), or give %s model_power_mw in "
		"%s (libcpuidle-platform(5))\n", cmd, p->name, n == 1 ? "state" : "states", names,
		n == 1 ? "it" : "them", cli_platform_file(spec) ? cli_platform_file(spec) :
		"a copy of the platform file");
}
