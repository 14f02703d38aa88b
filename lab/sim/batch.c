// SPDX-License-Identifier: MIT
/*
 * batch.c - the one place that runs replays (lab.h's "many runs"; the
 * traces they share are lab_trace.c's).
 *
 * The pool: workers take the next job number under one lock, plan and run
 * it unlocked, and leave its result in a window of slots, one per job
 * between the oldest result not yet handed on and BATCH_WINDOW_PER_THREAD
 * jobs a thread beyond it; the caller's thread hands the results on in job
 * order.  A worker that would run past the window waits, so memory stays
 * bounded however many jobs there are, and the order of done() calls is
 * the jobs', never the threads'.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"

/* ---- figures ---- */

static double percent(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

bool cpuidle_lab_over_oracle(const struct cpuidle_lab_figures *x,
			     const struct cpuidle_lab_figures *oracle, double *pct)
{
	bool known = x->energy_known && oracle && oracle->energy_known &&
		     oracle->energy_mj > 0;

	*pct = known ? 100.0 * (x->energy_mj / oracle->energy_mj - 1.0) : 0.0;
	return known;
}

/* the figures that need no other run */
static void own_figures(const struct cpuidle_lab_result *x, struct cpuidle_lab_figures *f)
{
	int s;

	memset(f, 0, sizeof(*f));
	for (s = 0; s < x->state_count; s++) {
		f->above += x->states[s].above;
		f->below += x->states[s].below;
		f->wakes += x->states[s].wakes;
	}
	f->energy_known = x->energy_known;
	f->energy_mj = cpuidle_lab_energy_mj(x);
	f->power_mw = x->span_ns ? f->energy_mj / ((double)x->span_ns * 1e-9) : 0.0;
	f->above_pct = percent(f->above, x->entries);
	f->below_pct = percent(f->below, x->entries);
	f->lat_mean_us = f->wakes ? (double)x->added_latency_ns / (double)f->wakes / 1000.0 : 0.0;
	f->lat_p99_us = (double)x->p99_added_latency_ns / 1000.0;
	f->lat_max_us = (double)x->max_added_latency_ns / 1000.0;
}

void cpuidle_lab_figures(const struct cpuidle_lab_result *x,
			 const struct cpuidle_lab_result *oracle, struct cpuidle_lab_figures *f)
{
	struct cpuidle_lab_figures o;

	own_figures(x, f);
	if (oracle)
		own_figures(oracle, &o);
	f->over_known = cpuidle_lab_over_oracle(f, oracle ? &o : NULL, &f->over_oracle_pct);
}

/* ---- the pool ---- */

/*
 * Results a thread may run ahead of the oldest one not yet handed on:
 * enough that a slow job does not idle the others for long, few enough
 * that the window (a cpuidle_lab_result a slot, ~1.5 KB) stays small.
 */
#define BATCH_WINDOW_PER_THREAD	4
#define NO_JOB			UINT64_MAX

/* a slot is FREE from when done() had it until its job ends, running or not */
enum slot_state { SLOT_FREE, SLOT_DONE, SLOT_SKIPPED, SLOT_FAILED };

struct batch {
	const struct cpuidle_lab_batch_ops *ops;
	void *ctx;
	uint64_t nr_jobs;
	unsigned int window;
	struct cpuidle_lab_result *res;	/* window slots */
	enum slot_state *state;

	pthread_mutex_t lock;
	pthread_cond_t space;		/* the window moved on, or a job failed */
	pthread_cond_t progress;	/* a job finished */
	uint64_t next_job, emitted, done_jobs;
	struct cpuidle_lab_batch_error *fail;	/* fail->job: the first failed, or NO_JOB */
};

/*
 * Job @job failed with @ret: it is the batch's failure if it comes first in
 * job order of those that did (the same one whatever the threads did).
 * Under the lock, or on the only thread.
 */
static void note_failure(struct batch *b, uint64_t job, int ret, const char *msg)
{
	if (job > b->fail->job)
		return;
	b->fail->job = job;
	b->fail->error = ret;
	snprintf(b->fail->msg, sizeof(b->fail->msg), "%s", msg ? msg : "");
}

/*
 * Plan and run job @j into @res: 0, 1 (skipped) or a negative errno (a
 * failed replay counts as done with keep_going: its result says it).
 */
static int run_job(struct batch *b, uint64_t j, struct cpuidle_lab_result *res)
{
	struct cpuidle_lab_job job;
	int ret;

	memset(&job, 0, sizeof(job));
	res->error_msg[0] = '\0';
	ret = b->ops->plan(b->ctx, j, &job);
	if (ret)
		return ret;
	ret = cpuidle_lab_replay(&job.cfg, res);
	return ret && b->ops->keep_going ? 0 : ret;
}

static void *worker(void *arg)
{
	struct batch *b = arg;
	struct cpuidle_lab_result *res;
	uint64_t j;
	int ret;

	pthread_mutex_lock(&b->lock);
	/* no job after a failed one starts: those before it all have */
	while (b->fail->job == NO_JOB && b->next_job < b->nr_jobs) {
		j = b->next_job;
		if (j >= b->emitted + b->window) {	/* too far ahead of done() */
			pthread_cond_wait(&b->space, &b->lock);
			continue;
		}
		b->next_job++;
		res = &b->res[j % b->window];
		pthread_mutex_unlock(&b->lock);

		ret = run_job(b, j, res);

		pthread_mutex_lock(&b->lock);
		if (ret < 0) {
			note_failure(b, j, ret, res->error_msg);
			pthread_cond_broadcast(&b->space);
		}
		b->state[j % b->window] = ret < 0 ? SLOT_FAILED : ret > 0 ? SLOT_SKIPPED :
				       SLOT_DONE;
		b->done_jobs++;
		pthread_cond_broadcast(&b->progress);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* no thread to be had: every job on the caller's, one after the other */
static int run_inline(struct batch *b)
{
	uint64_t j;
	int ret;

	for (j = 0; j < b->nr_jobs; j++) {
		ret = run_job(b, j, &b->res[0]);
		if (ret < 0) {
			note_failure(b, j, ret, b->res[0].error_msg);
			return ret;
		}
		if (b->ops->progress)
			b->ops->progress(b->ctx, j + 1, b->nr_jobs);
		ret = b->ops->done(b->ctx, j, ret > 0 ? NULL : &b->res[0]);
		if (ret < 0) {
			note_failure(b, j, ret, NULL);
			return ret;
		}
	}
	return 0;
}

/*
 * Hand the results on in job order as they come, up to the first failed
 * job (the jobs before it all started, and end): 0 or the failure.
 */
static int hand_on(struct batch *b)
{
	uint64_t e, seen = NO_JOB;
	enum slot_state st;
	int ret;

	for (e = 0; e < b->nr_jobs; e++) {
		pthread_mutex_lock(&b->lock);
		while ((st = b->state[e % b->window]) == SLOT_FREE) {
			if (b->ops->progress && b->done_jobs != seen) {
				seen = b->done_jobs;
				b->ops->progress(b->ctx, seen, b->nr_jobs);
			}
			pthread_cond_wait(&b->progress, &b->lock);
		}
		pthread_mutex_unlock(&b->lock);
		if (st == SLOT_FAILED)
			return b->fail->error;	/* job e is the first to fail */
		ret = b->ops->done(b->ctx, e, st == SLOT_SKIPPED ? NULL : &b->res[e % b->window]);
		pthread_mutex_lock(&b->lock);
		if (ret < 0)
			note_failure(b, e, ret, NULL);
		b->state[e % b->window] = SLOT_FREE;
		b->emitted++;
		pthread_cond_broadcast(&b->space);
		pthread_mutex_unlock(&b->lock);
		if (ret < 0)
			return ret;
	}
	if (b->ops->progress)
		b->ops->progress(b->ctx, b->nr_jobs, b->nr_jobs);
	return 0;
}

int cpuidle_lab_batch_run(const struct cpuidle_lab_batch_ops *ops, void *ctx, uint64_t nr_jobs,
			  unsigned int threads, struct cpuidle_lab_batch_error *fail)
{
	struct batch b = {
		.ops = ops,
		.ctx = ctx,
		.nr_jobs = nr_jobs,
		.fail = fail,
	};
	pthread_t *tids = NULL;
	unsigned int i, started = 0;
	long online;
	int ret;

	memset(fail, 0, sizeof(*fail));
	fail->job = NO_JOB;
	if (!nr_jobs)
		return 0;
	if (!threads) {
		online = sysconf(_SC_NPROCESSORS_ONLN);
		threads = online > 0 ? (unsigned int)online : 1;
	}
	if (threads > nr_jobs)
		threads = (unsigned int)nr_jobs;
	b.window = threads * BATCH_WINDOW_PER_THREAD;
	if (b.window > nr_jobs)
		b.window = (unsigned int)nr_jobs;
	b.res = malloc(b.window * sizeof(*b.res));
	b.state = calloc(b.window, sizeof(*b.state));
	tids = calloc(threads, sizeof(*tids));
	pthread_mutex_init(&b.lock, NULL);
	pthread_cond_init(&b.space, NULL);
	pthread_cond_init(&b.progress, NULL);
	if (!b.res || !b.state || !tids) {
		note_failure(&b, 0, -ENOMEM, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < threads; i++)
		if (!pthread_create(&tids[started], NULL, worker, &b))
			started++;
	if (!started) {
		ret = run_inline(&b);
		goto out;
	}
	ret = hand_on(&b);
	pthread_mutex_lock(&b.lock);
	if (ret && b.fail->job == NO_JOB)
		note_failure(&b, b.emitted, ret, NULL);
	pthread_cond_broadcast(&b.space);	/* workers waiting for room: stop */
	pthread_mutex_unlock(&b.lock);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
out:
	pthread_cond_destroy(&b.progress);
	pthread_cond_destroy(&b.space);
	pthread_mutex_destroy(&b.lock);
	free(tids);
	free(b.state);
	free(b.res);
	if (!ret)
		fail->job = 0;
	return ret;
}

/* ---- a batch of configurations ---- */

struct config_batch {
	const struct cpuidle_lab_run *cfgs;
	struct cpuidle_lab_result *res;
};

static int config_plan(void *ctx, uint64_t index, struct cpuidle_lab_job *job)
{
	const struct config_batch *cb = ctx;

	job->cfg = cb->cfgs[index];
	return 0;
}

static int config_done(void *ctx, uint64_t index, const struct cpuidle_lab_result *res)
{
	struct config_batch *cb = ctx;

	cb->res[index] = *res;
	return 0;
}

int cpuidle_lab_replay_many(const struct cpuidle_lab_run *cfgs, struct cpuidle_lab_result *res,
			    unsigned int n, unsigned int threads,
			    struct cpuidle_lab_batch_error *fail)
{
	static const struct cpuidle_lab_batch_ops ops = { .plan = config_plan, .done = config_done };
	struct config_batch cb = { cfgs, res };

	return cpuidle_lab_batch_run(&ops, &cb, n, threads, fail);
}
