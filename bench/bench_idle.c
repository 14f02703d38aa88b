// SPDX-License-Identifier: MIT
/*
 * bench_idle.c - cost of the idle path per idle entry, per governor.
 *
 * One CPU, a driver whose enter() returns at once and only advances a fake
 * clock by the stay the pattern dictates, so what is measured is select +
 * CHECK_BM check + enter + accounting + reflect, as issue #2 asks.  Stays
 * and timers come from a precomputed table so that generating them costs
 * nothing inside the loop.  Every governor x pattern runs in the same
 * process, in interleaved rounds; the median of the rounds is reported.
 *
 * Patterns: "mixed", a synthetic worst case for branch prediction (a
 * random mix of 2-22 us, 50-250 us and 1-4 ms stays), and "nginx", the
 * idle periods of CPU 0 in a real trace (bench/patterns/nginx-cpu0.txt).
 * The next timer of each stay is drawn 0-2 ms past its end.
 *
 * Usage: bench_idle [-n ENTRIES] [-r ROUNDS] [-g GOVERNOR] [-p PATTERN]
 *                   [--stays FILE] [--json]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libcpuidle.h"
#include "patterns.h"

#define PATTERN_LEN	BENCH_PATTERN_LEN

struct bench {
	uint64_t clock;
	int64_t stay[PATTERN_LEN];
	int64_t timer[PATTERN_LEN];
	unsigned int pos;
};

static uint64_t bench_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	return ((struct bench *)ctx)->clock;
}

static int bench_enter(struct cpuidle_device *dev, struct cpuidle_state *state)
{
	struct bench *b = dev->embed_data;

	(void)state;
	b->clock += (uint64_t)b->stay[b->pos];
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* NULL: the mixed pattern; else stays from @file (bench/patterns.h). */
static int fill_pattern(struct bench *b, const char *file)
{
	return bench_fill_pattern(file, b->stay, b->timer);
}

struct run {
	const char *gov;
	const char *pattern;
	const char *file;
	struct cpuidle_system *sys;
	struct cpuidle_driver drv;
	struct cpuidle_device dev;
	struct bench b;
	double *samples;
};

static const struct {
	const char *name;
	unsigned int exit_us, res_us;
	unsigned int flags;
} table[] = {
	{ "POLL", 0, 0, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
	{ "C1", 2, 2, CPUIDLE_FLAG_TIME_VALID },
	{ "C1E", 10, 20, CPUIDLE_FLAG_TIME_VALID },
	{ "C6", 85, 200, CPUIDLE_FLAG_TIME_VALID },
};

static int setup(struct run *r)
{
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = { .clock_ns = bench_clock },
		.ctx = &r->b,
		.governor = r->gov,
	};
	unsigned int i;
	int ret;

	if (fill_pattern(&r->b, r->file))
		return -EINVAL;
	ret = cpuidle_system_create(&opts, &r->sys);
	if (ret)
		return ret;
	strcpy(r->drv.name, "bench");
	r->drv.safe_state_index = -1;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		struct cpuidle_state *s = &r->drv.states[i];

		strcpy(s->name, table[i].name);
		s->exit_latency = table[i].exit_us;
		s->target_residency = table[i].res_us;
		s->flags = table[i].flags;
		s->enter = bench_enter;
	}
	r->drv.state_count = (int)i;
	ret = cpuidle_register_driver(r->sys, &r->drv);
	r->dev.embed_data = &r->b;
	if (!ret)
		ret = cpuidle_register_device(r->sys, &r->dev);
	if (!ret && strcmp(cpuidle_current_governor(r->sys)->name, r->gov))
		ret = -ENOENT;
	return ret;
}

static double run_round(struct run *r, long n)
{
	struct cpuidle_idle_ctx ctx = { 0 };
	struct bench *b = &r->b;
	uint64_t t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		b->pos = (unsigned int)i & (PATTERN_LEN - 1);
		ctx.sleep_length_ns = b->timer[b->pos];
		ctx.delta_tick_ns = b->timer[b->pos] < 4000000 ? b->timer[b->pos] : 4000000;
		ctx.tick_stopped = false;
		if (cpuidle_idle_call(&r->dev, &ctx) < 0)
			return -1;
	}
	t1 = now_ns();
	return (double)(t1 - t0) / (double)n;
}

/* The loop alone, with a trivial stand-in for cpuidle_idle_call(). */
static double run_baseline(struct run *r, long n)
{
	struct cpuidle_idle_ctx ctx = { 0 };
	struct bench *b = &r->b;
	volatile int64_t sink = 0;
	uint64_t t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		b->pos = (unsigned int)i & (PATTERN_LEN - 1);
		ctx.sleep_length_ns = b->timer[b->pos];
		sink += ctx.sleep_length_ns;
	}
	t1 = now_ns();
	(void)sink;
	return (double)(t1 - t0) / (double)n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	const struct cpuidle_governor *const *g;
	const char *stays = SRCDIR "/bench/patterns/nginx-cpu0.txt";
	const char *only_gov = NULL, *only_pattern = NULL;
	struct run runs[32];
	long n = 2000000;
	int rounds = 11, nr = 0, i, k;
	bool json = false;
	double base;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			n = strtol(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			rounds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-g") && i + 1 < argc) {
			only_gov = argv[++i];
		} else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			only_pattern = argv[++i];
		} else if (!strcmp(argv[i], "--stays") && i + 1 < argc) {
			stays = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else {
			fprintf(stderr, "usage: %s [-n ENTRIES] [-r ROUNDS] [-g GOVERNOR] [-p mixed|nginx]"
				" [--stays FILE] [--json]\n", argv[0]);
			return 2;
		}
	}
	if (n < 1000 || rounds < 1 || rounds > 1000) {
		fprintf(stderr, "bench_idle: -n must be >= 1000 and -r in 1..1000\n");
		return 2;
	}

	for (k = 0; k < 2; k++) {
		for (g = cpuidle_builtin_governors(); *g && nr < 32; g++) {
			struct run *r = &runs[nr];

			if ((only_gov && strcmp(only_gov, (*g)->name)) ||
			    (only_pattern && strcmp(only_pattern, k ? "nginx" : "mixed")))
				continue;
			memset(r, 0, sizeof(*r));
			r->gov = (*g)->name;
			r->pattern = k ? "nginx" : "mixed";
			r->file = k ? stays : NULL;
			r->samples = calloc((size_t)rounds, sizeof(double));
			if (!r->samples || setup(r)) {
				fprintf(stderr, "bench_idle: cannot set up governor %s on %s%s\n",
					r->gov, k ? "stays from " : "pattern ", k ? stays : "mixed");
				return 1;
			}
			run_round(r, n / 10);	/* warm up */
			nr++;
		}
	}
	for (k = 0; k < rounds; k++)
		for (i = 0; i < nr; i++)
			runs[i].samples[k] = run_round(&runs[i], n);
	if (!nr) {
		fprintf(stderr, "bench_idle: no governor/pattern matches\n");
		return 2;
	}
	base = run_baseline(&runs[0], n);

	if (json)
		printf("{\"entries_per_round\": %ld, \"rounds\": %d, \"loop_ns\": %.2f, \"governors\": [",
		       n, rounds, base);
	else
		printf("%-10s %-8s %10s %10s %10s   (ns per idle entry, %d rounds of %ld)\n",
		       "governor", "pattern", "median", "min", "max", rounds, n);
	for (i = 0; i < nr; i++) {
		struct run *r = &runs[i];
		uint64_t usage = 0;
		int s;

		qsort(r->samples, (size_t)rounds, sizeof(double), cmp_double);
		for (s = 0; s < r->dev.state_count; s++)
			usage += r->dev.states_usage[s].usage;
		if (json)
			printf("%s{\"governor\": \"%s\", \"pattern\": \"%s\", \"median_ns\": %.2f, "
			       "\"min_ns\": %.2f, \"max_ns\": %.2f, \"entries\": %llu}",
			       i ? ", " : "", r->gov, r->pattern, r->samples[rounds / 2],
			       r->samples[0], r->samples[rounds - 1], (unsigned long long)usage);
		else
			printf("%-10s %-8s %10.2f %10.2f %10.2f\n", r->gov, r->pattern,
			       r->samples[rounds / 2], r->samples[0], r->samples[rounds - 1]);
		cpuidle_system_destroy(r->sys);
		free(r->samples);
	}
	if (json)
		printf("]}\n");
	else
		printf("%-10s %-8s %10.2f   (the loop alone)\n", "baseline", "", base);
	return 0;
}
