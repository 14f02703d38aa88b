// SPDX-License-Identifier: MIT
/*
 * synth.c - synthetic idle patterns, for replays without a trace (and as
 * controlled inputs).  Each CPU draws from its own xorshift generator seeded by
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
#include "cpuidle/pm_qos.h"

#define US	1000LL
#define MS	1000000LL

struct synth_cpu {
	uint64_t state;		/* xorshift */
	int64_t clock;
	uint64_t left;
};

struct synth_src {
	struct replay_source src;
	struct synth_spec spec;
	unsigned int turn;
	struct synth_cpu cpu[];
};

static uint64_t rnd(struct synth_cpu *s)
{
	uint64_t x = s->state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return s->state = x;
}

/* Uniform in [lo, hi]. */
static int64_t uniform(struct synth_cpu *s, int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd(s) % (uint64_t)(hi - lo + 1));
}

static void draw(const struct synth_spec *spec, struct synth_cpu *s, struct idle_interval *iv)
{
	unsigned int pick = (unsigned int)(rnd(s) % 100);

	if (!strcmp(spec->name, "periodic")) {
		iv->idle_ns = iv->timer_ns = spec->period_ns;
		iv->busy_ns = 20 * US;
		iv->wake = IV_WAKE_TIMER;
	} else if (!strcmp(spec->name, "io")) {
		if (pick < 90) {
			iv->idle_ns = uniform(s, 20 * US, 40 * US);
			iv->timer_ns = 10 * MS;
			iv->wake = IV_WAKE_IRQ;
		} else {
			iv->idle_ns = iv->timer_ns = 4 * MS;
			iv->wake = IV_WAKE_TIMER;
		}
		iv->busy_ns = uniform(s, 10 * US, 30 * US);
	} else {
		if (pick < 45) {
			iv->idle_ns = uniform(s, 5 * US, 80 * US);
			iv->timer_ns = uniform(s, 500 * US, 4 * MS);
			iv->wake = IV_WAKE_IRQ;
		} else if (pick < 80) {
			iv->idle_ns = iv->timer_ns = uniform(s, 900 * US, 1100 * US);
			iv->wake = IV_WAKE_TIMER;
		} else {
			iv->idle_ns = iv->timer_ns = uniform(s, 5 * MS, 30 * MS);
			iv->wake = IV_WAKE_TIMER;
		}
		iv->busy_ns = uniform(s, 5 * US, 50 * US);
	}
}

static int synth_next(struct replay_source *src, struct idle_interval *iv)
{
	struct synth_src *s = (struct synth_src *)src;
	unsigned int tries;

	for (tries = 0; tries < s->spec.nr_cpus; tries++) {
		unsigned int cpu = s->turn;
		struct synth_cpu *c = &s->cpu[cpu];

		s->turn = (s->turn + 1) % s->spec.nr_cpus;
		if (!c->left)
			continue;
		c->left--;
		memset(iv, 0, sizeof(*iv));
		memset(iv->kstates, -1, sizeof(iv->kstates));
		iv->cpu = (uint16_t)cpu;
		iv->irq = -1;
		iv->qos_us = PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE;
		iv->start_ns = c->clock;
		draw(&s->spec, c, iv);
		c->clock += iv->idle_ns + iv->busy_ns;
		return 1;
	}
	return 0;
}

static void synth_close(struct replay_source *src)
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

int synth_open(void *arg, struct replay_source **out)
{
	const struct synth_spec *spec = arg;
	struct synth_src *s;
	unsigned int cpu;

	if (!spec || !spec->nr_cpus)
		return -EINVAL;
	s = calloc(1, sizeof(*s) + spec->nr_cpus * sizeof(s->cpu[0]));
	if (!s)
		return -ENOMEM;
	s->src.next = synth_next;
	s->src.close = synth_close;
	s->spec = *spec;
	for (cpu = 0; cpu < spec->nr_cpus; cpu++) {
		struct synth_cpu *c = &s->cpu[cpu];
		uint64_t x = spec->seed + 0x9e3779b97f4a7c15ull * (cpu + 1);

		/* splitmix64 of (seed, cpu): distinct per CPU, never 0 */
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
		x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
		x ^= x >> 31;
		c->state = x ? x : 1;
		c->left = spec->intervals;
		/* start on a tick boundary plus a per-CPU phase, as real CPUs do */
		c->clock = 1000000000LL + (int64_t)(cpu * 137 * US);
	}
	*out = &s->src;
	return 0;
}
