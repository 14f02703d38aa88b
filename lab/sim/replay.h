/* SPDX-License-Identifier: MIT */
/*
 * replay.h - replay idle intervals through the real idle path on a
 * simulated clock: one cpuidle system per run (platform x governor), one
 * device per CPU, the table driver's idle callback consuming the interval.
 */
#ifndef LAB_REPLAY_H
#define LAB_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libcpuidle.h"
#include "cpuidle/lab.h"
#include "intervals.h"

/*
 * A stream of intervals, CPUs interleaved, each CPU's in time order.
 * next() returns 1 with *iv filled, 0 at the end, or a negative errno.
 */
struct replay_source {
	int (*next)(struct replay_source *src, struct idle_interval *iv);
	void (*close)(struct replay_source *src);
	const char *(*error)(struct replay_source *src);	/* optional message */
};

/* Opens a fresh stream over the same intervals, one per run. */
typedef int (*replay_open_fn)(void *arg, struct replay_source **out);

#endif /* LAB_REPLAY_H */
