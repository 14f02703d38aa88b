// SPDX-License-Identifier: MIT
/*
 * bench_replay.c - replay throughput from the interval file, per governor,
 * one core: idle intervals per second, the energy model and statistics
 * included.
 *
 * The input is a real trace converted once, its intervals repeated (time
 * shifted) until there are at least -n of them, written to a temporary
 * interval file; each governor then replays the whole file, interleaved
 * over -r rounds, and the median round is reported.
 *
 * Usage: bench_replay [-n INTERVALS] [-r ROUNDS] [-p PLATFORM] [-g GOVERNOR] TRACE
 * (-g: that governor alone, for profiling; default ladder, menu and oracle)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "ivf.h"
#include "replay.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Repeat @src's intervals, shifted in time, into @dst until @want. */
static int inflate(const char *src, const char *dst, uint64_t want, uint64_t *got)
{
	struct ivf_writer *w;
	struct ivf_reader *r;
	struct ivf_info info;
	struct idle_interval iv;
	char err[512];
	int64_t shift = 0, span;
	int ret;

	*got = 0;
	ret = ivf_open(src, &r, err, sizeof(err));
	if (ret)
		return fprintf(stderr, "%s\n", err), ret;
	info = *ivf_reader_info(r);
	span = info.last_ns - info.first_ns + 1000000;
	ivf_close(r);
	ret = ivf_writer_open(dst, &w, err, sizeof(err));
	if (ret)
		return fprintf(stderr, "%s\n", err), ret;
	while (*got < want) {
		ret = ivf_open(src, &r, err, sizeof(err));
		if (ret)
			break;
		while ((ret = ivf_next(r, &iv)) > 0) {
			if (iv.flags & (IV_PARTIAL_START | IV_PARTIAL_END))
				continue;
			iv.start_ns += shift;
			ret = ivf_write(w, &iv);
			if (ret)
				break;
			(*got)++;
		}
		ivf_close(r);
		if (ret < 0)
			break;
		shift += span;
	}
	info.last_ns = info.first_ns + shift;
	return ivf_writer_close(w, &info, NULL) ?: (ret < 0 ? ret : 0);
}

/* Convert, inflate, replay: the rounds, each governor's figures printed. */
static int measure(const struct cpuidle_platform *platform, const char *trace,
		   const char *small, char *big, uint64_t want, int rounds,
		   const char *const *govs, int nr_govs)
{
	double samples[3][64];
	unsigned int cpus;
	char err[512];
	uint64_t got;
	int i, k;

	if (lab_convert(trace, small, NULL, NULL, NULL, err, sizeof(err)))
		return fprintf(stderr, "%s\n", err), 1;
	if (inflate(small, big, want, &got))
		return 1;
	{
		struct ivf_reader *r;

		if (ivf_open(big, &r, err, sizeof(err)))
			return fprintf(stderr, "%s\n", err), 1;
		cpus = ivf_reader_info(r)->nr_cpus;
		ivf_close(r);
	}
	for (k = 0; k < rounds; k++) {
		for (i = 0; i < nr_govs; i++) {
			struct replay_config cfg = {
				.platform = platform, .governor = govs[i], .nr_cpus = cpus,
				.qos_us = -1, .open = ivf_replay_open, .open_arg = big,
			};
			struct replay_result res;
			struct timespec t0, t1;

			clock_gettime(CLOCK_MONOTONIC, &t0);
			if (replay_run(&cfg, &res))
				return fprintf(stderr, "replay failed: %s\n", strerror(-res.error)), 1;
			clock_gettime(CLOCK_MONOTONIC, &t1);
			samples[i][k] = (double)res.intervals /
					((double)(t1.tv_sec - t0.tv_sec) +
					 (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
		}
	}
	printf("%llu intervals from %s, platform %s, %d rounds (intervals/s, one core, "
	       "reading the interval file included)\n", (unsigned long long)got, trace,
	       platform->name, rounds);
	for (i = 0; i < nr_govs; i++) {
		qsort(samples[i], (size_t)rounds, sizeof(double), cmp_double);
		printf("%-8s median %6.2f M/s   min %6.2f   max %6.2f\n", govs[i],
		       samples[i][rounds / 2] / 1e6, samples[i][0] / 1e6,
		       samples[i][rounds - 1] / 1e6);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const char *govs[] = { "ladder", "menu", "oracle" };
	int nr_govs = 3;
	const char *platform_spec = "laptop", *trace = NULL;
	char small[] = "/tmp/bench_replay_a_XXXXXX", big[] = "/tmp/bench_replay_b_XXXXXX";
	struct cpuidle_platform platform;
	uint64_t want = 2000000;
	int rounds = 5, i, fd, ret;
	char err[512];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			want = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "-r") && i + 1 < argc)
			rounds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-p") && i + 1 < argc)
			platform_spec = argv[++i];
		else if (!strcmp(argv[i], "-g") && i + 1 < argc)
			govs[0] = argv[++i], nr_govs = 1;
		else
			trace = argv[i];
	}
	if (!trace || rounds < 1 || rounds > 64 || !want) {
		fprintf(stderr, "usage: bench_replay [-n INTERVALS] [-r 1..64] [-p PLATFORM] [-g GOVERNOR] TRACE\n");
		return 2;
	}
	if (cpuidle_platform_load(platform_spec, &platform, err, sizeof(err)))
		return fprintf(stderr, "%s\n", err), 1;
	if ((fd = mkstemp(small)) < 0 || close(fd))
		return perror("mkstemp"), 1;
	if ((fd = mkstemp(big)) < 0 || close(fd)) {
		perror("mkstemp");
		unlink(small);
		return 1;
	}
	ret = measure(&platform, trace, small, big, want, rounds, govs, nr_govs);
	unlink(small);
	unlink(big);
	return ret;
}
