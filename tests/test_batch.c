// SPDX-License-Identifier: MIT
/*
 * test_batch.c - the batch layer (lab/sim/batch.c): results in job order and
 * the same whatever the threads, skipped jobs, the first failure in job
 * order, a bounded window, and traces loaded once, in memory or not.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "batch.h"
#include "ivf.h"
#include "synth.h"

#define NR_JOBS		60
#define US		1000LL

static struct cpuidle_platform pf;
static const char *const governors[] = { "menu", "teo", "ladder", "haltpoll", CPUIDLE_LAB_ORACLE };
#define NR_GOVS		(sizeof(governors) / sizeof(governors[0]))

/* What a batch of the tests is, and what it saw */
struct run {
	struct synth_spec spec[NR_JOBS];
	struct cpuidle_lab_trace *trace[NR_JOBS];	/* of @spec */
	int fail_at[4];			/* jobs whose governor does not exist */
	int skip_odd;			/* plan() skips the odd jobs */
	int done_fails_at;		/* done() fails there; -1: never */
	uint64_t done_calls[NR_JOBS + 1];
	unsigned int nr_done;
	struct cpuidle_lab_result res[NR_JOBS];
	bool got[NR_JOBS];
	unsigned int threads;
	/* the window: how far ahead of done() a job was planned */
	pthread_mutex_t lock;
	uint64_t max_ahead;
};

static int plan(void *ctx, uint64_t index, struct cpuidle_lab_job *job)
{
	struct run *r = ctx;
	unsigned int k;

	pthread_mutex_lock(&r->lock);
	if (index - r->nr_done > r->max_ahead)
		r->max_ahead = index - r->nr_done;
	pthread_mutex_unlock(&r->lock);
	if (r->skip_odd && index % 2)
		return 1;
	job->cfg = (struct cpuidle_lab_run){
		.platform = &pf,
		.governor = governors[index % NR_GOVS],
		.trace = r->trace[index],
		.qos_us = -1,
	};
	for (k = 0; k < 4; k++)
		if (r->fail_at[k] == (int)index)
			job->cfg.governor = "no-such-governor";
	return 0;
}

static int done(void *ctx, uint64_t index, const struct cpuidle_lab_result *res)
{
	struct run *r = ctx;

	if ((int)index == r->done_fails_at)
		return -EIO;
	pthread_mutex_lock(&r->lock);
	r->done_calls[r->nr_done++] = index;
	pthread_mutex_unlock(&r->lock);
	if (res) {
		r->res[index] = *res;
		r->got[index] = true;
	}
	return 0;
}

static const struct cpuidle_lab_batch_ops ops = { .plan = plan, .done = done };

static void init_run(struct run *r, unsigned int threads)
{
	unsigned int i;

	/* a run's traces are still referenced (not leaks) until it is reused */
	for (i = 0; i < NR_JOBS; i++)
		cpuidle_lab_trace_close(r->trace[i]);
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->lock, NULL);
	for (i = 0; i < 4; i++)
		r->fail_at[i] = -1;
	r->done_fails_at = -1;
	r->threads = threads;
	for (i = 0; i < NR_JOBS; i++) {
		synth_parse(i % 2 ? "io" : "mixed", &r->spec[i]);
		r->spec[i].intervals = 200 + 10 * i;
		r->spec[i].seed = 1 + i;
		r->spec[i].nr_cpus = 2;
		assert_int_equal(lab_trace_from_source(synth_open, &r->spec[i], 2, NULL,
						       &r->trace[i]), 0);
	}
}

static int setup(void **state)
{
	char err[256];

	(void)state;
	return cpuidle_platform_load("laptop", &pf, err, sizeof(err)) ? -1 : 0;
}

/* every job's result, in job order, and the same with 1, 2 and 8 threads */
static void test_order_and_threads(void **state)
{
	static struct run r[3];
	static const unsigned int threads[] = { 1, 2, 8 };
	struct cpuidle_lab_batch_error fail;
	unsigned int k, i;

	(void)state;
	for (k = 0; k < 3; k++) {
		init_run(&r[k], threads[k]);
		assert_int_equal(cpuidle_lab_batch_run(&ops, &r[k], NR_JOBS, threads[k], &fail), 0);
		assert_int_equal(fail.error, 0);
		assert_int_equal(r[k].nr_done, NR_JOBS);
		for (i = 0; i < NR_JOBS; i++) {
			assert_int_equal(r[k].done_calls[i], i);
			assert_true(r[k].got[i]);
			assert_string_equal(r[k].res[i].governor, governors[i % NR_GOVS]);
			assert_int_equal(r[k].res[i].intervals + r[k].res[i].skipped,
					 2 * r[k].spec[i].intervals);
		}
		/* the window: a few jobs a thread ahead of done(), never all */
		assert_true(r[k].max_ahead <= 4 * threads[k]);
	}
	for (i = 0; i < NR_JOBS; i++) {
		for (k = 1; k < 3; k++) {
			assert_int_equal(r[k].res[i].entries, r[0].res[i].entries);
			assert_int_equal(r[k].res[i].idle_ns, r[0].res[i].idle_ns);
			assert_memory_equal(r[k].res[i].states, r[0].res[i].states,
					    sizeof(r[0].res[i].states));
			assert_true(r[k].res[i].idle_energy_mj == r[0].res[i].idle_energy_mj);
		}
	}
}

/* a skipped job reaches done() as NULL, in its place */
static void test_skip(void **state)
{
	static struct run r;
	struct cpuidle_lab_batch_error fail;
	unsigned int i;

	(void)state;
	init_run(&r, 2);
	r.skip_odd = 1;
	assert_int_equal(cpuidle_lab_batch_run(&ops, &r, NR_JOBS, 2, &fail), 0);
	assert_int_equal(r.nr_done, NR_JOBS);
	for (i = 0; i < NR_JOBS; i++) {
		assert_int_equal(r.done_calls[i], i);
		assert_int_equal(r.got[i], i % 2 == 0);
	}
}

/*
 * Several jobs fail: the batch's failure is the first of them in job
 * order, whichever thread failed first, and done() saw exactly the jobs
 * before it.
 */
static void test_first_failure(void **state)
{
	static struct run r;
	static const unsigned int threads[] = { 1, 2, 8 };
	struct cpuidle_lab_batch_error fail;
	unsigned int k, i;

	(void)state;
	for (k = 0; k < 3; k++) {
		init_run(&r, threads[k]);
		r.fail_at[0] = 41;
		r.fail_at[1] = 17;
		r.fail_at[2] = 18;
		assert_int_equal(cpuidle_lab_batch_run(&ops, &r, NR_JOBS, threads[k], &fail), -EINVAL);
		assert_int_equal(fail.error, -EINVAL);
		assert_int_equal(fail.job, 17);
		assert_int_equal(r.nr_done, 17);
		for (i = 0; i < 17; i++)
			assert_int_equal(r.done_calls[i], i);
	}
}

/* keep_going: the failed jobs reach done() with their error, and the rest run */
static void test_keep_going(void **state)
{
	static const struct cpuidle_lab_batch_ops going = { .plan = plan, .done = done, .keep_going = true };
	static struct run r;
	struct cpuidle_lab_batch_error fail;
	unsigned int i;

	(void)state;
	init_run(&r, 2);
	r.fail_at[0] = 17;
	r.fail_at[1] = 41;
	assert_int_equal(cpuidle_lab_batch_run(&going, &r, NR_JOBS, 2, &fail), 0);
	assert_int_equal(r.nr_done, NR_JOBS);
	for (i = 0; i < NR_JOBS; i++) {
		assert_int_equal(r.done_calls[i], i);
		assert_true(r.got[i]);
		if (i == 17 || i == 41)
			assert_int_equal(r.res[i].error, -EINVAL);
		else
			assert_int_equal(r.res[i].error, 0);
	}
}

/* done() failing ends the batch there */
static void test_done_fails(void **state)
{
	static struct run r;
	struct cpuidle_lab_batch_error fail;

	(void)state;
	init_run(&r, 2);
	r.done_fails_at = 9;
	assert_int_equal(cpuidle_lab_batch_run(&ops, &r, NR_JOBS, 2, &fail), -EIO);
	assert_int_equal(fail.job, 9);
	assert_int_equal(fail.msg[0], '\0');
	assert_int_equal(r.nr_done, 9);
}

static void test_no_jobs(void **state)
{
	static struct run r;
	struct cpuidle_lab_batch_error fail;

	(void)state;
	init_run(&r, 2);
	assert_int_equal(cpuidle_lab_batch_run(&ops, &r, 0, 2, &fail), 0);
	assert_int_equal(r.nr_done, 0);
}

/* an interval file of @n intervals on 2 CPUs, the first one partial */
static void write_ivf(const char *path, int n)
{
	struct ivf_info info = { .nr_cpus = 2, .first_ns = 0, .last_ns = n * 100 * US };
	struct ivf_writer *w;
	char err[256];
	int i;

	assert_int_equal(ivf_writer_open(path, &w, err, sizeof(err)), 0);
	for (i = 0; i < n; i++) {
		struct idle_interval iv;

		memset(&iv, 0, sizeof(iv));
		memset(iv.kstates, -1, sizeof(iv.kstates));
		iv.cpu = (uint16_t)(i % 2);
		iv.start_ns = (i / 2) * 100 * US;
		iv.idle_ns = (20 + i % 70) * US;
		iv.timer_ns = i % 3 ? (40 + i % 50) * US : IV_NO_TIMER;
		iv.busy_ns = 100 * US - iv.idle_ns;
		iv.qos_us = 2000000000;
		iv.irq = -1;
		iv.wake = i % 4 ? IV_WAKE_TIMER : IV_WAKE_IRQ;
		iv.flags = i < 2 ? IV_PARTIAL_START : 0;
		assert_int_equal(ivf_write(w, &iv), 0);
	}
	assert_int_equal(ivf_writer_close(w, &info, NULL), 0);
}

static void replay_trace(struct cpuidle_lab_trace *t, struct cpuidle_lab_result *res)
{
	struct cpuidle_lab_run cfg = {
		.platform = &pf,
		.governor = "menu",
		.trace = t,
		.qos_us = -1,
	};

	assert_int_equal(cpuidle_lab_replay(&cfg, res), 0);
}

/*
 * A trace in memory (a budget that holds it) and one left on disk (a
 * budget of nothing) replay alike; the budget pays for the one in memory
 * only; a file of partial intervals only has nothing to replay.
 */
static void ignore_decision(void *ctx, int64_t t_ns, const struct cpuidle_device *dev,
			    const struct cpuidle_decision *d)
{
}

/*
 * A run in a child process (cpuidle_lab_run.isolated) gives the result
 * the same run gives in the caller's; one that would call back into the
 * caller (on_decision) is refused; one whose governor does not exist fails
 * as it does unisolated.
 */
static void test_isolated(void **state)
{
	static struct cpuidle_lab_result a, b;
	struct cpuidle_lab_trace *t;
	struct cpuidle_lab_run cfg = {
		.platform = &pf,
		.governor = "teo",
		.qos_us = -1,
	};

	(void)state;
	assert_int_equal(cpuidle_lab_trace_pattern("mixed", 2, 2000, 7, &t), 0);
	cfg.trace = t;
	assert_int_equal(cpuidle_lab_replay(&cfg, &a), 0);
	cfg.isolated = true;
	assert_int_equal(cpuidle_lab_replay(&cfg, &b), 0);
	assert_true(a.entries > 2000);
	assert_int_equal(a.entries, b.entries);
	assert_memory_equal(a.states, b.states, sizeof(a.states));
	assert_true(a.idle_energy_mj == b.idle_energy_mj);
	cfg.on_decision = ignore_decision;
	assert_int_equal(cpuidle_lab_replay(&cfg, &b), -EINVAL);
	cfg.on_decision = NULL;
	cfg.governor = "no-such-governor";
	assert_int_equal(cpuidle_lab_replay(&cfg, &b), -EINVAL);
	cfg.isolated = false;
	assert_int_equal(cpuidle_lab_replay(&cfg, &a), -EINVAL);
	cpuidle_lab_trace_close(t);
}

static void test_trace_load(void **state)
{
	static struct cpuidle_lab_result a, b;
	struct cpuidle_lab_trace *mem, *disk;
	char path[64], err[512];
	size_t budget = 64 << 20, none = 0;
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/test_batch-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_ivf(path, 5000);
	assert_int_equal(cpuidle_lab_trace_open(path, &(struct cpuidle_lab_open_options){
							.budget = &budget }, &mem, err, sizeof(err)), 0);
	assert_true(cpuidle_lab_trace_in_memory(mem));
	assert_true(budget < (size_t)(64 << 20));
	assert_int_equal(cpuidle_lab_trace_open(path, &(struct cpuidle_lab_open_options){
							.budget = &none }, &disk, err, sizeof(err)), 0);
	assert_false(cpuidle_lab_trace_in_memory(disk));
	assert_int_equal(none, 0);
	assert_int_equal(cpuidle_lab_trace_cpus(mem), 2);
	replay_trace(mem, &a);
	replay_trace(disk, &b);
	assert_int_equal(a.intervals, 4998);
	assert_int_equal(a.intervals, b.intervals);
	assert_int_equal(a.entries, b.entries);
	assert_memory_equal(a.states, b.states, sizeof(a.states));
	cpuidle_lab_trace_close(disk);
	/* streamed: read by each run, the budget untouched */
	none = 0;
	assert_int_equal(cpuidle_lab_trace_open(path, &(struct cpuidle_lab_open_options){
							.budget = &none, .stream = true },
						&disk, err, sizeof(err)), 0);
	assert_false(cpuidle_lab_trace_in_memory(disk));
	replay_trace(disk, &b);
	assert_int_equal(a.entries, b.entries);
	assert_memory_equal(a.states, b.states, sizeof(a.states));
	cpuidle_lab_trace_close(disk);
	/* a view up to the middle replays a part, the same on the same part */
	assert_int_equal(cpuidle_lab_trace_until(mem, 125000 * US, &disk), 0);
	replay_trace(disk, &b);
	assert_true(b.intervals > 0 && b.intervals < a.intervals);
	cpuidle_lab_trace_close(disk);
	cpuidle_lab_trace_close(mem);

	write_ivf(path, 2);
	budget = 64 << 20;
	assert_int_equal(lab_trace_load(path, &budget, false, &mem, err, sizeof(err)), -ENODATA);
	assert_null(mem);
	assert_non_null(strstr(err, "no complete idle interval"));
	unlink(path);
	assert_true(cpuidle_lab_trace_open(path, NULL, &mem, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, path));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_threads),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_first_failure),
		cmocka_unit_test(test_keep_going),
		cmocka_unit_test(test_done_fails),
		cmocka_unit_test(test_no_jobs),
		cmocka_unit_test(test_trace_load),
		cmocka_unit_test(test_isolated),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
