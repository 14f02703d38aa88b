// SPDX-License-Identifier: MIT
/*
 * driver.c - the one driver of a system (the kernel's drivers/cpuidle/driver.c
 * without CONFIG_CPU_IDLE_MULTIPLE_DRIVERS): a second registration is refused
 * with -EBUSY.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

int cpuidle_register_driver(struct cpuidle_system *sys, struct cpuidle_driver *drv)
{
	const struct cpuidle_governor *gov;
	bool locked;
	int ret = 0;

	if (!sys || !drv || !cpuidle_name_valid(drv->name, sizeof(drv->name)))
		return -EINVAL;
	if (drv->state_count < 0 || drv->state_count > CPUIDLE_STATE_MAX)
		return -EINVAL;

	locked = cpuidle_sys_lock(sys);
	if (sys->driver) {
		ret = -EBUSY;
		goto out;
	}
	if (drv->state_count) {
		ret = cpuidle_validate_states(drv->states, drv->state_count,
					      drv->safe_state_index);
		if (ret)
			goto out;
	}
	/*
	 * A preferred governor wins unless one was chosen by name, and the
	 * previous one comes back at unregistration (cpuidle-haltpoll).
	 */
	sys->gov_before_driver = NULL;
	if (drv->governor && !sys->gov_chosen_by_name) {
		gov = cpuidle_find_governor_locked(sys, drv->governor);
		if (gov && gov != sys->governor) {
			sys->gov_before_driver = sys->governor;
			ret = cpuidle_switch_governor_locked(sys, gov);
			if (ret)
				goto out;
		}
	}
	sys->driver = drv;
out:
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

int cpuidle_unregister_driver(struct cpuidle_system *sys, struct cpuidle_driver *drv)
{
	bool locked;
	int ret = 0;

	if (!sys || !drv)
		return -EINVAL;
	locked = cpuidle_sys_lock(sys);
	if (sys->driver != drv) {
		ret = -ENOENT;
		goto out;
	}
	if (sys->nr_devices) {
		ret = -EBUSY;
		goto out;
	}
	if (sys->gov_before_driver && !sys->gov_chosen_by_name)
		cpuidle_switch_governor_locked(sys, sys->gov_before_driver);
	sys->gov_before_driver = NULL;
	sys->driver = NULL;
out:
	cpuidle_sys_unlock(sys, locked);
	return ret;
}

const char *cpuidle_driver_name(struct cpuidle_system *sys)
{
	const char *name = NULL;
	bool locked;

	if (!sys)
		return NULL;
	locked = cpuidle_sys_lock(sys);
	if (sys->driver)
		name = sys->driver->name;
	cpuidle_sys_unlock(sys, locked);
	return name;
}
