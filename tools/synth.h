/* SPDX-License-Identifier: MIT */
/* synth.h - synthetic idle patterns, deterministic per (seed, cpu). */
#ifndef TOOLS_SYNTH_H
#define TOOLS_SYNTH_H

#include <stdint.h>

#include "sim.h"

struct synth_spec {
	char name[32];		/* mixed, io, periodic */
	int64_t period_ns;	/* periodic only */
	uint64_t intervals;	/* per CPU */
	uint64_t seed;
};

/**
 * synth_parse() - parse a pattern name: "mixed", "io" or "periodic:USEC"
 * @text: the name
 * @spec: filled (intervals and seed left as they are)
 *
 * Return: 0, or -EINVAL for an unknown name or a bad period.
 */
int synth_parse(const char *text, struct synth_spec *spec);

/** synth_source() - a sim_source_factory over a struct synth_spec */
struct sim_source *synth_source(void *spec, unsigned int cpu);

#endif /* TOOLS_SYNTH_H */
