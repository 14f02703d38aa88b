// SPDX-License-Identifier: MIT
/*
 * calibrate.c - measure each kind of state on this machine, at engine
 * creation: its exit latency and its CPU cost (struct uidle_state_cost).
 */

/**
 * DOC: calibration
 *
 * Two helper threads, pinned to two different CPUs of the caller's
 * affinity mask where it has two: a waiter W and a pinger P.  For each
 * kind, and for two gaps, CAL_ROUNDS rounds of:
 *
 *   W: reads its thread CPU time and the clock, says "ready", and waits
 *      in the kind's real wait loop (the function its state's enter()
 *      runs) until the word changes;
 *   P: on "ready", lets the gap pass, notes the time, changes the word
 *      and calls the real wake path (uidle_wake()'s), timing its own CPU;
 *   W: notes the clock and its CPU time again: the latency is the time
 *      from P's store to W running again; the CPU time and the wall time
 *      are W's for the whole round.
 *
 * From the medians over the rounds of each gap:
 *
 * - exit latency: the latency after the LONGER gap, less POLL's: a
 *   futex sleep takes longer to leave the longer the CPU under it has
 *   idled (on the AMD EPYC guest this was written on: 12 us after 2 us,
 *   21 us after 400 us, 40 us after 2 ms), so the longer gap stands for
 *   the worst case, as the kernel's exit latencies do;
 * - c, the CPU per unit of time: the slope of CPU time over wall time
 *   between the two gaps, within [0, 1];
 * - E, the CPU per entry: CPU time less c x wall time at the shorter gap,
 *   plus P's median CPU time in the wake call.
 *
 * The two clock_gettime(CLOCK_THREAD_CPUTIME_ID) calls around a measured
 * section are a system call each (~0.6 us here): their own cost, the
 * median of back-to-back pairs, is taken off.
 *
 * Budget: polling kinds wait 1 and 10 us per round, the futex sleep 100
 * us and 1 ms: about 20 ms in all, far under the 100 ms allowed.  Every
 * step has a timeout; a kind whose rounds do not all complete keeps its
 * built-in costs and is reported as not measured.  With a single CPU, the
 * polling kinds are not measured: a spinning waiter and its pinger cannot
 * share one CPU without measuring the scheduler.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "uidle_internal.h"

/* An odd number of rounds, so the median is a round; 15 is 20 ms in all. */
#define CAL_ROUNDS		15
#define CAL_MAX_JOBS		(2 * UIDLE_NR_STATE_KINDS)

/* The gaps: see the DOC block. */
#define CAL_SPIN_GAP_SHORT_NS	(1 * CPUIDLE_NSEC_PER_USEC)
#define CAL_SPIN_GAP_LONG_NS	(10 * CPUIDLE_NSEC_PER_USEC)
#define CAL_SLEEP_GAP_SHORT_NS	(100 * CPUIDLE_NSEC_PER_USEC)
#define CAL_SLEEP_GAP_LONG_NS	(1000 * CPUIDLE_NSEC_PER_USEC)

/*
 * A handshake that takes longer than 50 ms, or a wait that lasts 20 ms
 * past its gap, means the machine is too busy to measure anything: the
 * calibration stops and the kinds not measured keep the defaults.
 */
#define CAL_STEP_TIMEOUT_NS	(50 * CPUIDLE_NSEC_PER_SEC / 1000)
#define CAL_WAIT_SLACK_NS	(20 * CPUIDLE_NSEC_PER_SEC / 1000)

#define PPM_ONE			1000000.0

struct cal_job {
	enum uidle_state_kind kind;
	int64_t gap_ns;
};

struct cal_sample {
	int64_t lat_ns;		/* store to waiter running */
	int64_t cpu_ns;		/* waiter's CPU in the round */
	int64_t wall_ns;	/* waiter's round */
	int64_t wake_cpu_ns;	/* pinger's CPU in the wake call */
};

struct cal {
	const struct uidle_wait_env *env;
	struct cal_job jobs[CAL_MAX_JOBS];
	int nr_jobs;
	int cpus[2];		/* W, P; -1: not pinned */

	uint32_t word;		/* atomic: waited on */
	uint32_t ready;		/* atomic: W is waiting in round N */
	uint32_t done;		/* atomic: W has recorded round N */
	int64_t t_store;	/* atomic: P's clock just before the store */
	int abort;		/* atomic */

	bool failed[CAL_MAX_JOBS];
	struct cal_sample s[CAL_MAX_JOBS][CAL_ROUNDS];
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t median(int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_i64);
	return v[n / 2];
}

/* What two back-to-back thread CPU time readings cost in between. */
static int64_t cputime_overhead(void)
{
	int64_t v[CAL_ROUNDS];
	int i;

	for (i = 0; i < CAL_ROUNDS; i++) {
		int64_t c0 = uidle_thread_cpu_ns();

		v[i] = uidle_thread_cpu_ns() - c0;
	}
	return median(v, CAL_ROUNDS);
}

/* Wait until @var holds @value; false on abort or timeout (then abort). */
static bool await(struct cal *c, const uint32_t *var, uint32_t value)
{
	int64_t deadline = uidle_now_ns() + CAL_STEP_TIMEOUT_NS;

	while (__atomic_load_n(var, __ATOMIC_ACQUIRE) != value) {
		if (__atomic_load_n(&c->abort, __ATOMIC_RELAXED))
			return false;
		if (uidle_now_ns() > deadline) {
			__atomic_store_n(&c->abort, 1, __ATOMIC_RELAXED);
			return false;
		}
		sched_yield();
	}
	return true;
}

static void *waiter_main(void *arg)
{
	struct cal *c = arg;
	int64_t overhead = cputime_overhead();
	uint32_t seq = 0;
	int j, r;

	for (j = 0; j < c->nr_jobs; j++) {
		const struct uidle_kind_desc *kind = &uidle_kinds[c->jobs[j].kind];

		for (r = 0; r < CAL_ROUNDS; r++) {
			struct uidle_wait_ctx wc = { .addr = &c->word };
			struct cal_sample *s = &c->s[j][r];
			int64_t c0, t0, t1, c1;
			enum uidle_stop stop;

			wc.expected = __atomic_load_n(&c->word, __ATOMIC_ACQUIRE);
			c0 = uidle_thread_cpu_ns();
			t0 = uidle_now_ns();
			__atomic_store_n(&c->ready, ++seq, __ATOMIC_RELEASE);
			stop = kind->wait(c->env, &wc, t0 + c->jobs[j].gap_ns + CAL_WAIT_SLACK_NS);
			t1 = uidle_now_ns();
			c1 = uidle_thread_cpu_ns();
			if (stop != UIDLE_STOP_WORD ||
			    __atomic_load_n(&c->word, __ATOMIC_ACQUIRE) == wc.expected) {
				c->failed[j] = true;
				__atomic_store_n(&c->abort, 1, __ATOMIC_RELAXED);
			} else {
				s->lat_ns = t1 - __atomic_load_n(&c->t_store, __ATOMIC_RELAXED);
				s->cpu_ns = c1 - c0 - overhead;
				s->wall_ns = t1 - t0;
			}
			__atomic_store_n(&c->done, seq, __ATOMIC_RELEASE);
			if (__atomic_load_n(&c->abort, __ATOMIC_RELAXED)) {
				for (; j < c->nr_jobs; j++)
					c->failed[j] = true;
				return NULL;
			}
		}
	}
	return NULL;
}

static void *pinger_main(void *arg)
{
	struct cal *c = arg;
	int64_t overhead = cputime_overhead();
	uint32_t seq = 0;
	int j, r;

	for (j = 0; j < c->nr_jobs; j++) {
		for (r = 0; r < CAL_ROUNDS; r++) {
			int64_t t, until, pc0, pc1;

			if (!await(c, &c->ready, ++seq))
				return NULL;
			until = uidle_now_ns() + c->jobs[j].gap_ns;
			do
				t = uidle_now_ns();
			while (t < until);
			__atomic_store_n(&c->t_store, t, __ATOMIC_RELAXED);
			__atomic_fetch_add(&c->word, 1, __ATOMIC_RELEASE);
			pc0 = uidle_thread_cpu_ns();
			uidle_unpark(c->env->buckets, &c->word, 1);
			pc1 = uidle_thread_cpu_ns();
			c->s[j][r].wake_cpu_ns = pc1 - pc0 - overhead;
			if (!await(c, &c->done, seq))
				return NULL;
		}
	}
	return NULL;
}

/* The first two CPUs the caller may run on, or -1s. */
static int pick_cpus(int cpus[2])
{
	cpu_set_t set;
	int i, n = 0;

	cpus[0] = cpus[1] = -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	for (i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &set))
			cpus[n++] = i;
	return CPU_COUNT(&set);
}

static int start(pthread_t *tid, void *(*fn)(void *), struct cal *c, int cpu)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	pthread_attr_init(&attr);
	if (cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	ret = pthread_create(tid, &attr, fn, c);
	pthread_attr_destroy(&attr);
	return ret;
}

/* The median of one field of a job's samples. */
static int64_t median_of(struct cal *c, int j, size_t offset)
{
	int64_t v[CAL_ROUNDS];
	int r;

	for (r = 0; r < CAL_ROUNDS; r++)
		memcpy(&v[r], (const char *)&c->s[j][r] + offset, sizeof(v[r]));
	return median(v, CAL_ROUNDS);
}

/* Costs of a kind from its two jobs; false if not measured. */
static bool costs_of(struct cal *c, int js, int jl, struct uidle_state_cost *out,
		     int64_t *lat_long)
{
	int64_t cpu_s, cpu_l, wall_s, wall_l, wake;
	double slope, entry;

	if (c->failed[js] || c->failed[jl])
		return false;
	*lat_long = median_of(c, jl, offsetof(struct cal_sample, lat_ns));
	cpu_s = median_of(c, js, offsetof(struct cal_sample, cpu_ns));
	cpu_l = median_of(c, jl, offsetof(struct cal_sample, cpu_ns));
	wall_s = median_of(c, js, offsetof(struct cal_sample, wall_ns));
	wall_l = median_of(c, jl, offsetof(struct cal_sample, wall_ns));
	wake = median_of(c, jl, offsetof(struct cal_sample, wake_cpu_ns));
	slope = wall_l > wall_s ? (double)(cpu_l - cpu_s) / (double)(wall_l - wall_s) : 1.0;
	if (slope < 0)
		slope = 0;
	if (slope > 1)
		slope = 1;
	entry = (double)cpu_s - slope * (double)wall_s;
	if (entry < 0)
		entry = 0;
	out->cpu_ppm = (uint32_t)(slope * PPM_ONE + 0.5);
	out->entry_cpu_ns = (int64_t)entry + (wake > 0 ? wake : 0);
	return true;
}

int uidle_calibrate(const struct uidle_wait_env *env, unsigned int kinds,
		    struct uidle_calibration *cal, unsigned int *measured)
{
	int64_t lat[UIDLE_NR_STATE_KINDS] = { 0 };
	int first[UIDLE_NR_STATE_KINDS];
	struct uidle_state_cost cost;
	pthread_t tw, tp;
	struct cal *c;
	int k, ncpus, ret;

	*measured = 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->env = env;
	ncpus = pick_cpus(c->cpus);
	for (k = 0; k < UIDLE_NR_STATE_KINDS; k++) {
		bool polling = uidle_kinds[k].polling;

		first[k] = -1;
		if (!(kinds & UIDLE_STATE_BIT(k)) || (polling && ncpus < 2))
			continue;
		first[k] = c->nr_jobs;
		c->jobs[c->nr_jobs++] = (struct cal_job){
			(enum uidle_state_kind)k,
			polling ? CAL_SPIN_GAP_SHORT_NS : CAL_SLEEP_GAP_SHORT_NS };
		c->jobs[c->nr_jobs++] = (struct cal_job){
			(enum uidle_state_kind)k,
			polling ? CAL_SPIN_GAP_LONG_NS : CAL_SLEEP_GAP_LONG_NS };
	}

	ret = start(&tw, waiter_main, c, c->cpus[1]);
	if (ret) {
		free(c);
		return -EAGAIN;
	}
	ret = start(&tp, pinger_main, c, c->cpus[0]);
	if (ret) {
		__atomic_store_n(&c->abort, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&c->word, 1, __ATOMIC_RELEASE);
		uidle_unpark(env->buckets, &c->word, UIDLE_WAKE_ALL);
		pthread_join(tw, NULL);
		free(c);
		return -EAGAIN;
	}
	pthread_join(tp, NULL);
	if (__atomic_load_n(&c->abort, __ATOMIC_RELAXED)) {
		/* the waiter may still wait: end it */
		__atomic_fetch_add(&c->word, 1, __ATOMIC_RELEASE);
		uidle_unpark(env->buckets, &c->word, UIDLE_WAKE_ALL);
	}
	pthread_join(tw, NULL);

	for (k = 0; k < UIDLE_NR_STATE_KINDS; k++) {
		if (first[k] < 0 || !costs_of(c, first[k], first[k] + 1, &cost, &lat[k]))
			continue;
		cal->cost[k].cpu_ppm = cost.cpu_ppm;
		cal->cost[k].entry_cpu_ns = cost.entry_cpu_ns;
		*measured |= UIDLE_STATE_BIT(k);
	}
	/* latencies relative to the busy poll's, when it was measured */
	for (k = 0; k < UIDLE_NR_STATE_KINDS; k++) {
		int64_t base = (*measured & UIDLE_STATE_BIT(UIDLE_STATE_POLL)) ?
			       lat[UIDLE_STATE_POLL] : 0;

		if (!(*measured & UIDLE_STATE_BIT(k)))
			continue;
		cal->cost[k].exit_latency_ns = k == UIDLE_STATE_POLL ? 0 :
					       (lat[k] > base ? lat[k] - base : 0);
	}
	free(c);
	return 0;
}
