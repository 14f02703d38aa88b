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

extern const struct cpuidle_governor ladder_governor;
extern const struct cpuidle_governor menu_governor;
extern const struct cpuidle_governor teo_governor;
extern const struct cpuidle_governor haltpoll_governor;
extern const struct cpuidle_governor hazard_governor;

#endif /* CPUIDLE_GOV_H */
