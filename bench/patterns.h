/* SPDX-License-Identifier: MIT */
/*
 * patterns.h - the stay patterns the idle benchmarks share (bench_idle,
 * bench_governor), so that both measure the same idle periods.
 *
 * "mixed": a synthetic worst case for branch prediction, a random mix of
 * 2-22 us, 50-250 us and 1-4 ms stays.  "nginx" (or any --stays FILE): the
 * stays read from a file, one ns value per line, '#' comments, cycled to
 * fill the pattern; bench/patterns/nginx-cpu0.txt holds the first 4096 idle
 * periods of CPU 0 in ../shared/traces/nginx-menu.perf.txt.xz.  The next
 * timer of each stay is drawn 0-2 ms past its end.  Both are the same on
 * every run.
 */
#ifndef BENCH_PATTERNS_H
#define BENCH_PATTERNS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define BENCH_PATTERN_LEN	4096	/* power of two */

static inline uint64_t bench_xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Stays read from a file (one ns value per line, '#' comments), cycled. */
static inline int bench_load_stays(const char *path, int64_t *stays)
{
	char line[128];
	FILE *f = fopen(path, "r");
	int n = 0, i;

	if (!f)
		return -1;
	while (n < BENCH_PATTERN_LEN && fgets(line, sizeof(line), f)) {
		char *end;
		long long v;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		v = strtoll(line, &end, 10);
		if (end == line || v < 0 || (*end && *end != '\n')) {
			fclose(f);
			return -1;
		}
		stays[n++] = v;
	}
	fclose(f);
	for (i = n; n && i < BENCH_PATTERN_LEN; i++)
		stays[i] = stays[i % n];
	return n ? 0 : -1;
}

/*
 * Fill @stay and @timer (BENCH_PATTERN_LEN each, ns): @file NULL gives the
 * mixed pattern (short bursts, medium I/O-like waits, long timer sleeps),
 * else the stays of @file.  @timer is the time from the start of each stay
 * to the next timer event.
 */
static inline int bench_fill_pattern(const char *file, int64_t *stay, int64_t *timer)
{
	uint64_t x = 88172645463325252ull;
	int i;

	if (file) {
		if (bench_load_stays(file, stay))
			return -1;
		for (i = 0; i < BENCH_PATTERN_LEN; i++)
			timer[i] = stay[i] + (int64_t)(bench_xorshift(&x) >> 20) % 2000000;
		return 0;
	}
	for (i = 0; i < BENCH_PATTERN_LEN; i++) {
		bench_xorshift(&x);
		switch (x % 4) {
		case 0:
			stay[i] = 2000 + (int64_t)(x >> 8) % 20000;	/* 2-22 us */
			break;
		case 1:
			stay[i] = 50000 + (int64_t)(x >> 8) % 200000;	/* 50-250 us */
			break;
		default:
			stay[i] = 1000000 + (int64_t)(x >> 8) % 3000000;	/* 1-4 ms */
			break;
		}
		timer[i] = stay[i] + (int64_t)(x >> 20) % 2000000;
	}
	return 0;
}

#endif /* BENCH_PATTERNS_H */
