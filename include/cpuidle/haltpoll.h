/* SPDX-License-Identifier: MIT */
/*
 * haltpoll.h - the haltpoll governor's tunables as one struct, on top of
 * the generic ones (cpuidle_param_get(), cpuidle_param_set() of
 * "haltpoll"): the governor's own API, kept in the governor's own header
 * and file (src/governors/haltpoll.c); the core knows no governor.
 */
#ifndef CPUIDLE_HALTPOLL_H
#define CPUIDLE_HALTPOLL_H

#include <stdbool.h>

#include "cpuidle.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * struct cpuidle_haltpoll_params - the haltpoll governor's tunables
 * @guest_halt_poll_ns: the longest polling window, ns
 * @guest_halt_poll_shrink: divisor applied to a CPU's window after a stay
 *	longer than @guest_halt_poll_ns; 0 resets the window to 0
 * @guest_halt_poll_grow: multiplier applied to a CPU's window after a stay
 *	a longer poll would have caught
 * @guest_halt_poll_grow_start: the window a grow starts from, ns; a shrink
 *	below it resets the window to 0
 * @guest_halt_poll_allow_shrink: whether long stays shrink the window
 *
 * The kernel keeps these as module parameters of the haltpoll governor
 * (/sys/module/haltpoll/parameters/); here each system has its own set,
 * starting at the kernel's defaults (200000, 2, 2, 50000, true).  They are
 * read and written through the attribute tree as
 * "module/haltpoll/parameters/NAME" or with the calls below.
 */
struct cpuidle_haltpoll_params {
	unsigned int guest_halt_poll_ns;
	unsigned int guest_halt_poll_shrink;
	unsigned int guest_halt_poll_grow;
	unsigned int guest_halt_poll_grow_start;
	bool guest_halt_poll_allow_shrink;
};

/* Fields of struct cpuidle_haltpoll_params, for cpuidle_haltpoll_set_params(). */
#define CPUIDLE_HALTPOLL_POLL_NS	0x01u
#define CPUIDLE_HALTPOLL_SHRINK		0x02u
#define CPUIDLE_HALTPOLL_GROW		0x04u
#define CPUIDLE_HALTPOLL_GROW_START	0x08u
#define CPUIDLE_HALTPOLL_ALLOW_SHRINK	0x10u
#define CPUIDLE_HALTPOLL_ALL		0x1fu

/**
 * cpuidle_haltpoll_get_params() - the haltpoll tunables of a system
 * @sys: the system
 * @out: filled with the current values
 *
 * Return: 0; -EINVAL if an argument is NULL.
 */
CPUIDLE_API int cpuidle_haltpoll_get_params(struct cpuidle_system *sys,
					    struct cpuidle_haltpoll_params *out);

/**
 * cpuidle_haltpoll_set_params() - change some haltpoll tunables of a system
 * @sys: the system
 * @params: the new values
 * @fields: which of them to take (CPUIDLE_HALTPOLL_* bits); the others
 *	keep their value, so concurrent writers of different fields do not
 *	undo each other
 *
 * As with the kernel's module parameters any value is accepted and takes
 * effect at each CPU's next window adjustment; windows already set are not
 * clipped to a lowered @guest_halt_poll_ns.
 *
 * Return: 0; -EINVAL if an argument is NULL or @fields has an unknown bit.
 */
CPUIDLE_API int cpuidle_haltpoll_set_params(struct cpuidle_system *sys,
					    const struct cpuidle_haltpoll_params *params,
					    unsigned int fields);

/**
 * cpuidle_dev_haltpoll_params() - the haltpoll tunables a device obeys
 * @dev: a registered device (inside a governor callback)
 * @out: filled with the values of @dev's system
 *
 * Lock-free: each field is read once, as the kernel reads its module
 * parameters.  For governors.  Does nothing if @dev or @out is NULL or
 * @dev is not registered.
 */
CPUIDLE_API void cpuidle_dev_haltpoll_params(const struct cpuidle_device *dev,
					     struct cpuidle_haltpoll_params *out);

#ifdef __cplusplus
}
#endif

#endif /* CPUIDLE_HALTPOLL_H */
