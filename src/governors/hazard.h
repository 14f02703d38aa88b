/* SPDX-License-Identifier: MIT */
/*
 * hazard.h - the hazard governor's selection, for governors built on it
 * (hazard_domain.c).  Not installed.
 */
#ifndef CPUIDLE_HAZARD_H
#define CPUIDLE_HAZARD_H

#include <stdint.h>

#include "cpuidle/cpuidle.h"

/*
 * Room for hazard's per-CPU data (its curves, ~0.5 KiB) in a governor
 * built on it, which keeps that data first in its own; hazard.c checks
 * that it fits.
 */
#define HAZARD_DEVICE_SIZE	1024

/**
 * hazard_select_expected() - hazard's select(), and the stay it expects
 * @dev: the device, inside select(), its governor data hazard's (first)
 * @stop_tick: as select()'s
 * @stay_ns: if not NULL, set to the expected remaining stay: the survival
 *	curve's integral from the time already idle to the horizon (the
 *	timer, or as far as periods have been seen to last), in full, not
 *	only as far as the choice needs it
 *
 * Return: the state hazard selects.
 */
int hazard_select_expected(struct cpuidle_device *dev, bool *stop_tick, uint64_t *stay_ns);

#endif /* CPUIDLE_HAZARD_H */
