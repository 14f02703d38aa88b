// SPDX-License-Identifier: MIT
/*
 * gov_params.c - governor tunables, per system (the kernel's module
 * parameters of the governors, e.g. /sys/module/haltpoll/parameters/).
 *
 * The kernel keeps them in static variables read without a lock by every
 * CPU and written by sysfs.  Here they live in the system, so that several
 * systems of one process can be tuned apart: written under the system lock
 * one field at a time, read lock-free by the governors, each field with a
 * single relaxed load, as the kernel reads each parameter once.
 */
#include <errno.h>

#include "internal.h"

static void read_haltpoll(const struct cpuidle_haltpoll_params *hp,
			  struct cpuidle_haltpoll_params *out)
{
	out->guest_halt_poll_ns = READ_ONCE(hp->guest_halt_poll_ns);
	out->guest_halt_poll_shrink = READ_ONCE(hp->guest_halt_poll_shrink);
	out->guest_halt_poll_grow = READ_ONCE(hp->guest_halt_poll_grow);
	out->guest_halt_poll_grow_start = READ_ONCE(hp->guest_halt_poll_grow_start);
	out->guest_halt_poll_allow_shrink = READ_ONCE(hp->guest_halt_poll_allow_shrink);
}

int cpuidle_haltpoll_get_params(struct cpuidle_system *sys, struct cpuidle_haltpoll_params *out)
{
	if (!sys || !out)
		return -EINVAL;
	read_haltpoll(&sys->haltpoll, out);
	return 0;
}

int cpuidle_haltpoll_set_params(struct cpuidle_system *sys,
				const struct cpuidle_haltpoll_params *params, unsigned int fields)
{
	struct cpuidle_haltpoll_params *hp;
	bool locked;

	if (!sys || !params || (fields & ~CPUIDLE_HALTPOLL_ALL))
		return -EINVAL;
	hp = &sys->haltpoll;
	locked = cpuidle_sys_lock(sys);
	if (fields & CPUIDLE_HALTPOLL_POLL_NS)
		WRITE_ONCE(hp->guest_halt_poll_ns, params->guest_halt_poll_ns);
	if (fields & CPUIDLE_HALTPOLL_SHRINK)
		WRITE_ONCE(hp->guest_halt_poll_shrink, params->guest_halt_poll_shrink);
	if (fields & CPUIDLE_HALTPOLL_GROW)
		WRITE_ONCE(hp->guest_halt_poll_grow, params->guest_halt_poll_grow);
	if (fields & CPUIDLE_HALTPOLL_GROW_START)
		WRITE_ONCE(hp->guest_halt_poll_grow_start, params->guest_halt_poll_grow_start);
	if (fields & CPUIDLE_HALTPOLL_ALLOW_SHRINK)
		WRITE_ONCE(hp->guest_halt_poll_allow_shrink, params->guest_halt_poll_allow_shrink);
	cpuidle_sys_unlock(sys, locked);
	return 0;
}

void cpuidle_dev_haltpoll_params(const struct cpuidle_device *dev,
				 struct cpuidle_haltpoll_params *out)
{
	const struct cpuidle_system *sys;

	if (!dev || !out)
		return;
	sys = READ_ONCE(dev->sys);
	if (sys)
		read_haltpoll(&sys->haltpoll, out);
}
