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
 * --memory adds, for each governor, a replay of the same intervals from
 * memory: the trace's intervals decoded once and handed out again with
 * shifted times by a source that only copies them.  The difference of the
 * two is what reading and checking the file costs.
 *
 * Usage: bench_replay [-n INTERVALS] [-r ROUNDS] [-p PLATFORM] [-g GOVERNOR]
 *                     [--memory] TRACE
 * (-g: that governor alone, for profiling; default ladder, menu and oracle)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "convert.h"
#include "ivf_source.h"
#include "lab_trace.h"
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

/* The intervals of one pass over the trace, handed out -n times over. */
struct mem_intervals {
	struct idle_interval *iv;
	size_t n;
	int64_t span;		/* time shift from one pass to the next */
	uint64_t want;
};

struct mem_source {
	struct replay_source src;
	const struct mem_intervals *mi;
	size_t next;
	uint64_t given;
	int64_t shift;
};

static int mem_next(struct replay_source *src, struct idle_interval *iv)
{
	struct mem_source *s = (struct mem_source *)src;

	if (s->given == s->mi->want)
		return 0;
	if (s->next == s->mi->n) {
		s->next = 0;
		s->shift += s->mi->span;
	}
	*iv = s->mi->iv[s->next++];
	iv->start_ns += s->shift;
	s->given++;
	return 1;
}

static void mem_close(struct replay_source *src)
{
	free(src);
}

static int mem_open(void *arg, struct replay_source **out)
{
	struct mem_source *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->mi = arg;
	s->src.next = mem_next;
	s->src.close = mem_close;
	*out = &s->src;
	return 0;
}

/* @path's whole intervals into memory, to be handed out @want times. */
static int mem_load(const char *path, uint64_t want, struct mem_intervals *mi)
{
	struct ivf_reader *r;
	struct idle_interval iv, *grown;
	char err[512];
	size_t cap = 0;
	int ret;

	memset(mi, 0, sizeof(*mi));
	if (ivf_open(path, &r, err, sizeof(err)))
		return fprintf(stderr, "%s\n", err), -1;
	mi->span = ivf_reader_info(r)->last_ns - ivf_reader_info(r)->first_ns + 1000000;
	while ((ret = ivf_next(r, &iv)) > 0) {
		if (iv.flags & (IV_PARTIAL_START | IV_PARTIAL_END))
			continue;
		if (mi->n == cap) {
			cap = cap ? 2 * cap : 4096;
			grown = realloc(mi->iv, cap * sizeof(*grown));
			if (!grown) {
				ret = -ENOMEM;
				break;
			}
			mi->iv = grown;
		}
		mi->iv[mi->n++] = iv;
	}
	ivf_close(r);
	mi->want = want;
	return ret < 0 || !mi->n ? -1 : 0;
}

/* Both sources handed out the same intervals: the same run, to the bit. */
static bool same_run(const struct cpuidle_lab_result *a, const struct cpuidle_lab_result *b)
{
	return a->intervals == b->intervals && a->entries == b->entries &&
	       a->idle_ns == b->idle_ns && a->busy_ns == b->busy_ns &&
	       a->span_ns == b->span_ns && a->idle_energy_mj == b->idle_energy_mj &&
	       a->added_latency_ns == b->added_latency_ns &&
	       a->kernel_matched == b->kernel_matched &&
	       !memcmp(a->states, b->states, sizeof(a->states));
}

/* Convert, inflate, replay: the rounds, each governor's figures printed. */
static int measure(const struct cpuidle_platform *platform, const char *trace,
		   const char *small, char *big, uint64_t want, int rounds,
		   const char *const *govs, int nr_govs, bool memory)
{
	static struct cpuidle_lab_result file_res[3];
	struct mem_intervals mi = { 0 };
	double samples[2][3][64];
	int ret = 0;
	unsigned int cpus;
	char err[512];
	uint64_t got;
	int i, k, m;

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
	if (memory && mem_load(small, got, &mi)) {
		free(mi.iv);
		return fprintf(stderr, "cannot load %s's intervals into memory\n", trace), 1;
	}
	for (k = 0; k < rounds && !ret; k++) {
		for (i = 0; i < nr_govs && !ret; i++) {
			for (m = 0; m <= (int)memory; m++) {
				struct cpuidle_lab_run cfg = {
					.platform = platform, .governor = govs[i],
					.qos_us = -1,
				};
				struct cpuidle_lab_result res;
				struct cpuidle_lab_trace *intervals;
				struct timespec t0, t1;

				if (lab_trace_from_source(m ? mem_open : ivf_replay_open,
							  m ? (void *)&mi : (void *)big, cpus, NULL,
							  &intervals)) {
					ret = 1;
					break;
				}
				cfg.trace = intervals;

				clock_gettime(CLOCK_MONOTONIC, &t0);
				ret = cpuidle_lab_replay(&cfg, &res) ? 1 : 0;
				clock_gettime(CLOCK_MONOTONIC, &t1);
				cpuidle_lab_trace_close(intervals);
				if (ret) {
					fprintf(stderr, "replay failed: %s\n", strerror(-res.error));
					break;
				}
				if (m && !same_run(&file_res[i], &res)) {
					fprintf(stderr, "%s: the replay from memory differs from the "
						"replay from the file\n", govs[i]);
					ret = 1;
					break;
				}
				file_res[i] = res;
				samples[m][i][k] = (double)res.intervals /
						   ((double)(t1.tv_sec - t0.tv_sec) +
						    (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
			}
		}
	}
	free(mi.iv);
	if (ret)
		return ret;
	printf("%llu intervals from %s, platform %s, %d rounds (intervals/s, one core, "
	       "reading the interval file included)\n", (unsigned long long)got, trace,
	       platform->name, rounds);
	for (i = 0; i < nr_govs; i++) {
		for (m = 0; m <= (int)memory; m++) {
			double *x = samples[m][i];

			qsort(x, (size_t)rounds, sizeof(double), cmp_double);
			printf("%-8s %-6s median %6.2f M/s   min %6.2f   max %6.2f   (%.1f ns per "
			       "interval)\n", govs[i], m ? "memory" : "file", x[rounds / 2] / 1e6,
			       x[0] / 1e6, x[rounds - 1] / 1e6, 1e9 / x[rounds / 2]);
		}
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
	bool memory = false;
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
		else if (!strcmp(argv[i], "--memory"))
			memory = true;
		else
			trace = argv[i];
	}
	if (!trace || rounds < 1 || rounds > 64 || !want) {
		fprintf(stderr, "usage: bench_replay [-n INTERVALS] [-r 1..64] [-p PLATFORM] [-g GOVERNOR] "
				"[--memory] TRACE\n");
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
	ret = measure(&platform, trace, small, big, want, rounds, govs, nr_govs, memory);
	unlink(small);
	unlink(big);
	return ret;
}
