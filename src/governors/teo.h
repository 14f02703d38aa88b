/* SPDX-License-Identifier: MIT */
/*
 * teo.h - the teo governor's per-device data (teo.c), shared with the
 * differential test that holds it against the kernel's (tests/kernel/).
 */
#ifndef CPUIDLE_GOV_TEO_H
#define CPUIDLE_GOV_TEO_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuidle/cpuidle.h"

struct teo_bin {
	unsigned int intercepts;	/* stays that ended in this bin, early */
	unsigned int hits;		/* stays that ended in the timer's bin */
};

struct teo_device {
	int64_t sleep_length_ns;	/* seen at the last select(), or infinite */
	struct teo_bin bins[CPUIDLE_STATE_MAX];
	unsigned int total;		/* all events, decayed on its own */
	unsigned int tick_intercepts;	/* intercepts lasting a tick or more */
	unsigned int short_idles;	/* stays below RESIDENCY_THRESHOLD_NS */
	bool artificial_wakeup;		/* last stay ended by a safety net */
};

#endif /* CPUIDLE_GOV_TEO_H */
