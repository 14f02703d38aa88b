// SPDX-License-Identifier: MIT
/*
 * poll_state.c - the polling state's time limit (the kernel's
 * drivers/cpuidle/poll_state.c and cpuidle_poll_time() in cpuidle.c).
 *
 * A polling state spins until work arrives; with no bound a CPU whose wake
 * up never comes would spin for ever.  The limit lets it give up and go
 * back to the governor, which then (having seen dev->poll_time_limit)
 * picks a real state.  The enter() of a polling state is the driver's:
 * it spins (or, in a simulator, advances time) for at most this long and
 * sets dev->poll_time_limit when the limit, not work, ended the stay.
 */
#include "internal.h"

/* Shortest target residency worth bounding the poll by (CPUIDLE_POLL_MIN). */
#define POLL_MIN_RESIDENCY_NS	(10 * CPUIDLE_NSEC_PER_USEC)
/* The longest a poll may last is a sixteenth of a tick (CPUIDLE_POLL_MAX). */
#define POLL_MAX_TICK_SHIFT	4

uint64_t cpuidle_poll_time(struct cpuidle_device *dev)
{
	uint64_t limit;
	int i;

	if (unlikely(!dev))
		return 0;
	limit = READ_ONCE(dev->poll_limit_ns);
	if (limit)
		return limit;
	limit = (uint64_t)dev->tick_nsec >> POLL_MAX_TICK_SHIFT;
	for (i = 1; i < dev->state_count; i++) {
		uint64_t res = (uint64_t)dev->states[i].target_residency_ns;

		if (cpuidle_is_disabled(dev, i) || res < POLL_MIN_RESIDENCY_NS)
			continue;
		if (res < limit)
			limit = res;
		break;
	}
	WRITE_ONCE(dev->poll_limit_ns, limit);
	return limit;
}
