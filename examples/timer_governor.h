/* SPDX-License-Identifier: MIT */
#ifndef EXAMPLE_TIMER_GOVERNOR_H
#define EXAMPLE_TIMER_GOVERNOR_H

#include <libcpuidle.h>

extern const struct cpuidle_governor timer_governor;

#endif
