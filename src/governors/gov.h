/* SPDX-License-Identifier: MIT */
/*
 * gov.h - what only the governors share (the kernel's
 * drivers/cpuidle/governors/gov.h), and the built-in governor objects.
 */
#ifndef CPUIDLE_GOV_H
#define CPUIDLE_GOV_H

#include "cpuidle/cpuidle.h"

/*
 * Below this target residency a governor may skip asking for the next
 * timer event: the answer rarely changes the choice and asking costs more
 * than it saves (kernel RESIDENCY_THRESHOLD_NS).
 */
#define RESIDENCY_THRESHOLD_NS	(15 * CPUIDLE_NSEC_PER_USEC)

/*
 * Linux 7.1 (gov.h, commit e57c2bf2e89d): a timer due within this many
 * ticks ends a shallow state soon enough, even with the tick stopped, so a
 * governor need not deepen its choice for it (the kernel's
 * SAFE_TIMER_RANGE_NS, 2 * TICK_NSEC).  Used by the 7.1 ports only.
 */
#define SAFE_TIMER_RANGE_TICKS	2

extern const struct cpuidle_governor ladder_governor;
extern const struct cpuidle_governor menu_governor;
extern const struct cpuidle_governor teo_governor;
extern const struct cpuidle_governor haltpoll_governor;
extern const struct cpuidle_governor hazard_governor;
extern const struct cpuidle_governor cluster_governor;

/* The ports by kernel release, NAME@RELEASE (governor.c lists them). */
extern const struct cpuidle_governor menu_6_18_governor;
extern const struct cpuidle_governor menu_7_1_governor;
extern const struct cpuidle_governor teo_6_18_governor;
extern const struct cpuidle_governor teo_7_1_governor;

#endif /* CPUIDLE_GOV_H */
