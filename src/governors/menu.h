/* SPDX-License-Identifier: MIT */
/*
 * menu.h - the menu governor's per-device data (menu.c), shared with the
 * differential test that holds it against the kernel's (tests/kernel/).
 */
#ifndef CPUIDLE_GOV_MENU_H
#define CPUIDLE_GOV_MENU_H

#include <stdbool.h>
#include <stdint.h>

/*
 * One correction factor per decade of timer distance, from "below 10 us"
 * to "100 ms and beyond": the fraction of a timer distance actually slept
 * depends on its order of magnitude (a far timer is more likely to be
 * pre-empted by some interrupt than a near one).
 */
#define BUCKETS			6

/* Eight recent stays: enough for a deviation, few enough to adapt fast. */
#define INTERVAL_SHIFT		3
#define INTERVALS		(1 << INTERVAL_SHIFT)

struct menu_device {
	bool needs_update;	/* a stay awaits folding into the statistics */
	bool tick_wakeup;	/* that stay was ended by the tick */
	uint64_t next_timer_ns;	/* timer distance seen at the last select */
	unsigned int bucket;	/* its bucket */
	unsigned int correction_factor[BUCKETS];
	unsigned int intervals[INTERVALS];	/* recent stays, us */
	unsigned int interval_ptr;
	/*
	 * Over the ring's samples with information: their sum and sum of
	 * squares (modulo 2^64, as a fresh sum would be), kept by
	 * menu_push_interval(); and how many samples lack information.
	 */
	uint64_t ring_sum;
	uint64_t ring_sum_sq;
	unsigned int ring_no_info;
};

#endif /* CPUIDLE_GOV_MENU_H */
