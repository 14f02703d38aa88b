// SPDX-License-Identifier: MIT
/*
 * derive.c - plausible traces made of real ones, for scale tests of a
 * fleet (cpuidle fleet-gen).  A derived trace takes one source (the
 * sources in turn: one workload after another) and, for each of its CPUs,
 * the idle periods of one of the source's CPUs (chosen at random: CPUs
 * mixed), resampled in blocks: runs of DERIVE_BLOCK consecutive intervals
 * from random places, laid end to end from a random start, until the
 * source's span is covered.  Runs keep the short-range structure a
 * governor learns from (bursts, the tick's rhythm, the polling window's
 * history); the intervals keep everything they held but their times.  The
 * trace's description (its notes) says "derived from SOURCE, seed S,
 * trace I", so that no one takes it for a recording.  The same sources,
 * seed and index give the same file, byte for byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "ivf.h"

/* intervals taken together: long enough to keep a burst, short enough to mix */
#define DERIVE_BLOCK	64

/* splitmix64: a small generator whose sequence a seed fixes everywhere */
static uint64_t next_random(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t *s, uint64_t n)
{
	return n ? next_random(s) % n : 0;
}

/* append @iv to @c's intervals */
static int push(struct derive_cpu *c, const struct idle_interval *iv)
{
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		struct idle_interval *grown = realloc(c->iv, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		c->iv = grown;
		c->cap = cap;
	}
	c->iv[c->n++] = *iv;
	return 0;
}

void derive_source_free(struct derive_source *src)
{
	unsigned int c;

	for (c = 0; src->cpu && c < src->nr_cpus; c++)
		free(src->cpu[c].iv);
	free(src->cpu);
	memset(src, 0, sizeof(*src));
}

int derive_source_load(const char *ivf, const char *name, struct derive_source *out, char *err,
		       size_t errlen)
{
	struct ivf_reader *r;
	struct idle_interval iv;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = ivf_open(ivf, &r, err, errlen);
	if (ret)
		return ret;
	out->info = *ivf_reader_info(r);
	out->nr_cpus = out->info.nr_cpus;
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->cpu = calloc(out->nr_cpus, sizeof(*out->cpu));
	if (!out->cpu) {
		ivf_close(r);
		return -ENOMEM;
	}
	while ((ret = ivf_next(r, &iv)) > 0) {
		if (iv.flags & (IV_PARTIAL_START | IV_PARTIAL_END))
			continue;	/* its start or end is not known */
		ret = push(&out->cpu[iv.cpu], &iv);
		if (ret)
			break;
	}
	if (ret < 0 && ret != -ENOMEM)
		snprintf(err, errlen, "%s", ivf_error(r));
	ivf_close(r);
	if (ret < 0) {
		derive_source_free(out);
		return ret;
	}
	out->span_ns = out->info.last_ns - out->info.first_ns;
	return 0;
}

/* one CPU's derived intervals, in time order, and the next to write */
struct lane {
	struct derive_cpu v;
	size_t next;
};

/* CPU @cpu's intervals from @from, resampled over @src's span from @t0 */
static int fill_lane(struct lane *l, const struct derive_cpu *from, unsigned int cpu, int64_t t0,
		     int64_t span, uint64_t *rng)
{
	int64_t t = t0, end = t0 + span;
	size_t b, k;
	int ret;

	while (t < end) {
		b = (size_t)below(rng, from->n);
		for (k = b; k < from->n && k < b + DERIVE_BLOCK && t < end; k++) {
			struct idle_interval iv = from->iv[k];

			iv.cpu = (uint16_t)cpu;
			iv.start_ns = t;
			if (iv.busy_ns <= 0)	/* the source CPU's last: it ran on */
				iv.busy_ns = 1000;
			t += iv.idle_ns + iv.busy_ns;
			ret = push(&l->v, &iv);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int derive_write(const struct derive_source *srcs, unsigned int nr_srcs, uint64_t seed,
		 uint64_t index, const char *path, char *err, size_t errlen)
{
	const struct derive_source *src = &srcs[index % nr_srcs];
	uint64_t rng = seed ^ (index * 0xd1b54a32d192ed03ull);
	struct ivf_writer *w = NULL;
	struct ivf_info info = src->info;
	struct lane *lanes;
	unsigned int c, used = 0, *have;
	int64_t t0, first = INT64_MAX, last = INT64_MIN;
	int len, ret = 0;

	lanes = calloc(src->nr_cpus, sizeof(*lanes));
	have = calloc(src->nr_cpus, sizeof(*have));
	if (!lanes || !have) {
		free(lanes);
		free(have);
		return -ENOMEM;
	}
	for (c = 0; c < src->nr_cpus; c++)
		if (src->cpu[c].n)
			have[used++] = c;
	if (!used) {
		snprintf(err, errlen, "%s: no complete idle interval to derive from", src->name);
		ret = -ENODATA;
	}
	/* a start somewhere in the source's span, so that ticks fall elsewhere */
	t0 = src->info.first_ns + (int64_t)below(&rng, (uint64_t)(src->span_ns > 0 ? src->span_ns : 1));
	for (c = 0; !ret && c < src->nr_cpus; c++) {
		if (!src->cpu[c].n)
			continue;	/* a CPU that never idled stays so */
		ret = fill_lane(&lanes[c], &src->cpu[have[below(&rng, used)]], c, t0, src->span_ns,
				&rng);
	}
	if (!ret)
		ret = ivf_writer_open(path, &w, err, errlen);
	/* the CPUs' intervals merged by start, as a trace gives them */
	while (!ret) {
		const struct idle_interval *iv = NULL;
		struct lane *best = NULL;

		for (c = 0; c < src->nr_cpus; c++)
			if (lanes[c].next < lanes[c].v.n &&
			    (!iv || lanes[c].v.iv[lanes[c].next].start_ns < iv->start_ns)) {
				best = &lanes[c];
				iv = &best->v.iv[best->next];
			}
		if (!iv)
			break;
		if (iv->start_ns < first)
			first = iv->start_ns;
		if (iv->start_ns + iv->idle_ns + iv->busy_ns > last)
			last = iv->start_ns + iv->idle_ns + iv->busy_ns;
		best->next++;
		ret = ivf_write(w, iv);
		if (ret)
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	}
	if (!ret) {
		info.first_ns = first;
		info.last_ns = last;
		info.notes.clock_offset_ns = 0;
		info.notes.clock_line = 0;
		info.notes.lost_gaps = info.notes.lost_events = 0;
		info.notes.lost_cpu = 0;
		info.notes.lost_line = 0;
		info.notes.lost_n = 0;
		memset(info.notes.window_known, 0, sizeof(info.notes.window_known));
		/* the description: the source's, and what this is */
		len = snprintf(info.notes.recording + info.notes.recording_len,
			       sizeof(info.notes.recording) - info.notes.recording_len,
			       "derived from %s, seed %" PRIu64 ", trace %" PRIu64 "\n", src->name,
			       seed, index);
		if (len < 0 || (size_t)len >= sizeof(info.notes.recording) - info.notes.recording_len) {
			snprintf(err, errlen, "%s: the source's description leaves no room", path);
			ret = -ENOSPC;
		} else {
			info.notes.recording_len += (uint32_t)len;
			info.notes_known = true;
		}
	}
	if (w) {
		int cret = ivf_writer_close(w, ret ? NULL : &info, NULL);

		if (!ret && cret) {
			snprintf(err, errlen, "%s: %s", path, strerror(-cret));
			ret = cret;
		}
	}
	for (c = 0; c < src->nr_cpus; c++)
		free(lanes[c].v.iv);
	free(lanes);
	free(have);
	return ret;
}
