/* SPDX-License-Identifier: MIT */
/*
 * derive.h - plausible traces made of real ones' idle intervals, for a
 * fleet's scale tests (derive.c; cpuidle fleet-gen).
 */
#ifndef LAB_DERIVE_H
#define LAB_DERIVE_H

#include <stdint.h>

#include "ivf.h"

/* one CPU's complete intervals of a source */
struct derive_cpu {
	struct idle_interval *iv;
	size_t n, cap;
};

/**
 * struct derive_source - a trace derived traces are made of
 * @name: how derived traces name it ("derived from NAME")
 * @info: its interval file's header and notes
 * @nr_cpus: its CPUs
 * @span_ns: its first event to its last
 * @cpu: per CPU, its complete intervals
 */
struct derive_source {
	char name[256];
	struct ivf_info info;
	unsigned int nr_cpus;
	int64_t span_ns;
	struct derive_cpu *cpu;
};

/**
 * derive_source_load() - an interval file's intervals, to derive from
 * @ivf: the file
 * @name: what the derived traces call it
 * @out: filled; free with derive_source_free()
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 0 or a negative errno.
 */
int derive_source_load(const char *ivf, const char *name, struct derive_source *out, char *err,
		       size_t errlen);

void derive_source_free(struct derive_source *src);

/**
 * derive_write() - write derived trace @index as an interval file
 * @srcs: the sources, taken in turn (trace @index from @index % @nr_srcs)
 * @nr_srcs: how many
 * @seed: with @index, fixes the trace
 * @index: its number
 * @path: the interval file to write
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 0 or a negative errno (-ENODATA: the source has no complete
 * interval).
 */
int derive_write(const struct derive_source *srcs, unsigned int nr_srcs, uint64_t seed,
		 uint64_t index, const char *path, char *err, size_t errlen);

#endif /* LAB_DERIVE_H */
