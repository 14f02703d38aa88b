// SPDX-License-Identifier: MIT
/*
 * cluster_view.c - what a governor may know of its cluster at select(): the
 * embedding's view of the other CPUs (cpuidle_system_ops.cluster_view).
 *
 * The kernel's genpd CPU-domain governor (drivers/pmdomain/governor.c,
 * cpu_power_down_ok()) reads every CPU of a domain when the last of them
 * goes idle: their next timers, as each CPU stored it at its idle entry.
 * Here the embedding owns the CPUs' clocks (a replay runs each CPU on its
 * own), so only it can say what a sibling is doing at the asking CPU's
 * now; the core checks the call and hands it on.
 */
#include <errno.h>

#include "internal.h"

int cpuidle_cluster_view(struct cpuidle_device *dev, struct cpuidle_cluster_view *view,
			 struct cpuidle_sibling *sib, unsigned int max)
{
	struct cpuidle_system *sys;

	if (!dev || !view || (!sib && max))
		return -EINVAL;
	sys = READ_ONCE(dev->sys);
	if (!sys || !READ_ONCE(dev->registered))
		return -ENODEV;
	if (!sys->ops.cluster_view)
		return -EOPNOTSUPP;
	view->now_ns = CPUIDLE_TIME_UNKNOWN;
	view->energy = NULL;
	return sys->ops.cluster_view(dev, view, sib, max, sys->ctx);
}
