/* SPDX-License-Identifier: MIT */
/* synth.h - synthetic idle patterns, deterministic per (seed, cpu). */
#ifndef LAB_SYNTH_H
#define LAB_SYNTH_H

#include <stdint.h>

#include "replay.h"

struct synth_spec {
	char name[32];		/* mixed, io, periodic */
	int64_t period_ns;	/* periodic only */
	uint64_t intervals;	/* per CPU */
	uint64_t seed;
	unsigned int nr_cpus;
};

/**
 * synth_parse() - parse a pattern name: "mixed", "io" or "periodic:USEC"
 * @text: the name
 * @spec: filled (intervals, seed and nr_cpus left as they are)
 *
 * Return: 0, or -EINVAL for an unknown name or a bad period.
 */
int synth_parse(const char *text, struct synth_spec *spec);

/**
 * synth_open() - a replay_open_fn over a struct synth_spec: every CPU's
 * intervals, CPUs taking turns
 */
int synth_open(void *spec, struct replay_source **out);

#endif /* LAB_SYNTH_H */
