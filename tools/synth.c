// SPDX-License-Identifier: MIT
/*
 * synth.c - synthetic idle patterns, until trace replay replaces them as
 * the main input.  Each CPU draws from its own xorshift generator seeded by
 * (seed, cpu), so a run is reproducible bit for bit.
 *
 * mixed: 45% device interrupts after 5-80 us that the next timer (0.5-4 ms
 *	away) does not predict; 35% wake-ups by a ~1 ms periodic timer; 20%
 *	long tickless sleeps of 5-30 ms ended by their timer.  5-50 us of work
 *	after each.
 * io: 90% short I/O completions (20-40 us, timer 10 ms away), 10% 4 ms
 *	timer wake-ups; 10-30 us of work.
 * periodic:USEC: a timer every USEC microseconds, 20 us of work.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"

#define US	1000LL
#define MS	1000000LL

struct synth_src {
	struct sim_source src;
	struct synth_spec spec;
	uint64_t state;
	uint64_t left;
};

static uint64_t rnd(struct synth_src *s)
{
	uint64_t x = s->state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return s->state = x;
}

/* Uniform in [lo, hi]. */
static int64_t uniform(struct synth_src *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd(s) % (uint64_t)(hi - lo + 1));
}

static int synth_next(struct sim_source *src, struct sim_interval *iv)
{
	struct synth_src *s = (struct synth_src *)src;
	unsigned int pick;

	if (!s->left)
		return 0;
	s->left--;
	pick = (unsigned int)(rnd(s) % 100);
	if (!strcmp(s->spec.name, "periodic")) {
		iv->idle_ns = iv->timer_ns = s->spec.period_ns;
		iv->busy_ns = 20 * US;
	} else if (!strcmp(s->spec.name, "io")) {
		if (pick < 90) {
			iv->idle_ns = uniform(s, 20 * US, 40 * US);
			iv->timer_ns = 10 * MS;
		} else {
			iv->idle_ns = iv->timer_ns = 4 * MS;
		}
		iv->busy_ns = uniform(s, 10 * US, 30 * US);
	} else {
		if (pick < 45) {
			iv->idle_ns = uniform(s, 5 * US, 80 * US);
			iv->timer_ns = uniform(s, 500 * US, 4 * MS);
		} else if (pick < 80) {
			iv->idle_ns = iv->timer_ns = uniform(s, 900 * US, 1100 * US);
		} else {
			iv->idle_ns = iv->timer_ns = uniform(s, 5 * MS, 30 * MS);
		}
		iv->busy_ns = uniform(s, 5 * US, 50 * US);
	}
	return 1;
}

static void synth_destroy(struct sim_source *src)
{
	free(src);
}

int synth_parse(const char *text, struct synth_spec *spec)
{
	if (!strcmp(text, "mixed") || !strcmp(text, "io")) {
		snprintf(spec->name, sizeof(spec->name), "%s", text);
		return 0;
	}
	if (!strncmp(text, "periodic:", 9)) {
		char *end;
		long long us;

		errno = 0;
		us = strtoll(text + 9, &end, 10);
		if (errno || end == text + 9 || *end || us < 1 || us > 10 * 1000 * 1000)
			return -EINVAL;
		strcpy(spec->name, "periodic");
		spec->period_ns = us * US;
		return 0;
	}
	return -EINVAL;
}

struct sim_source *synth_source(void *arg, unsigned int cpu)
{
	const struct synth_spec *spec = arg;
	struct synth_src *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->src.next = synth_next;
	s->src.destroy = synth_destroy;
	s->spec = *spec;
	s->left = spec->intervals;
	/* splitmix64 of (seed, cpu): never 0, distinct per CPU */
	s->state = spec->seed + 0x9e3779b97f4a7c15ull * (cpu + 1);
	s->state = (s->state ^ (s->state >> 30)) * 0xbf58476d1ce4e5b9ull;
	s->state = (s->state ^ (s->state >> 27)) * 0x94d049bb133111ebull;
	s->state ^= s->state >> 31;
	if (!s->state)
		s->state = 1;
	return &s->src;
}
