/* SPDX-License-Identifier: MIT */
/*
 * batch.h - the one place that runs replays: traces loaded once, and a
 * bounded pool of threads that runs numbered jobs and hands their results
 * back in job order, whatever the thread that finished first.  sim, sweep,
 * the report's timeline and the tests run their replays through it.
 */
#ifndef LAB_BATCH_H
#define LAB_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "intervals.h"
#include "replay.h"

/* ---- what a result comes to ---- */

/**
 * struct batch_figures - a run's derived figures, as every output gives them
 * @energy_known: every state has a model power: @energy_mj and @power_mw
 * @energy_mj: idle + active + clusters' energy (replay_energy_mj())
 * @power_mw: @energy_mj over the span replayed
 * @over_known: @over_oracle_pct is (the oracle's energy is known, > 0)
 * @over_oracle_pct: energy over the oracle's, in percent
 * @above: entries into a state too deep for the idle time that came
 * @below: entries into a state shallower than it could have been
 * @wakes: real wake-ups
 * @above_pct: @above of the idle entries, in percent (@below_pct: @below)
 * @lat_mean_us: exit latency added per real wake-up, mean
 * @lat_p99_us: its 99th percentile
 * @lat_max_us: its largest
 */
struct batch_figures {
	bool energy_known;
	double energy_mj, power_mw;
	bool over_known;
	double over_oracle_pct;
	uint64_t above, below, wakes;
	double above_pct, below_pct;
	double lat_mean_us, lat_p99_us, lat_max_us;
};

/**
 * batch_figures() - the figures of result @x
 * @oracle: the oracle's result on the same trace and platform, or NULL
 *	(then @f->over_known is false)
 */
void batch_figures(const struct replay_result *x, const struct replay_result *oracle,
		   struct batch_figures *f);

/**
 * batch_over_oracle() - energy over the oracle's, from two runs' figures
 * @oracle: NULL: not known
 * @pct: set to the percentage, or 0 when it is not known
 *
 * Return: whether it is known (both energies known, the oracle's > 0).
 */
bool batch_over_oracle(const struct batch_figures *x, const struct batch_figures *oracle,
		       double *pct);

/* ---- traces, loaded once ---- */

struct batch_trace;

/*
 * Bytes of intervals a command keeps in memory (~2.6 M intervals of 100
 * bytes): past it, the runs read the interval file, slower but not out of
 * memory on a recording of hours.
 */
#define BATCH_MEMORY_BUDGET	(256u << 20)

/**
 * batch_trace_load() - read an interval file through once, validating
 * every interval, and keep its intervals in memory if they fit @budget
 * @ivf: the interval file (cpuidle-ivf(5)); it must outlive the trace when
 *	the intervals stay on disk
 * @budget: bytes of memory the traces may still take; lowered by what
 *	this one takes (none if it stays on disk)
 * @out: the trace
 * @err: a message on failure ("FILE: ...")
 *
 * Return: 0, -ENODATA if it has no complete interval to replay, or another
 * negative errno.
 */
int batch_trace_load(const char *ivf, size_t *budget, struct batch_trace **out, char *err,
		     size_t errlen);

/**
 * batch_trace_from_intervals() - a trace of intervals already in memory
 * @iv: the intervals, CPUs interleaved, each CPU's in time order; copied
 * @n: how many
 * @nr_cpus: the highest CPU + 1
 * @out: the trace
 *
 * Return: 0 or -ENOMEM.
 */
int batch_trace_from_intervals(const struct idle_interval *iv, size_t n, unsigned int nr_cpus,
			       struct batch_trace **out);

/**
 * batch_trace_open() - a replay_open_fn over a batch_trace (@arg): a new
 * stream of its intervals, from memory or from its file
 *
 * Return: 0 or a negative errno.
 */
int batch_trace_open(void *arg, struct replay_source **out);

/** batch_trace_cpus() - the trace's highest CPU + 1 */
unsigned int batch_trace_cpus(const struct batch_trace *t);

/** batch_trace_in_memory() - are its intervals held in memory? */
bool batch_trace_in_memory(const struct batch_trace *t);

/** batch_trace_free() - free @t (NULL: nothing) */
void batch_trace_free(struct batch_trace *t);

/* ---- the pool ---- */

/* the most attribute writes a job makes (replay_config.attrs) */
#define BATCH_MAX_ATTRS		16

/**
 * struct batch_job - what a worker hands the plan to fill for one job
 * @cfg: the replay to run
 * @attrs: room for @cfg.attrs: BATCH_MAX_ATTRS + 1 pointers, the worker's
 *	own, valid while the job runs
 */
struct batch_job {
	struct replay_config cfg;
	const char *attrs[BATCH_MAX_ATTRS + 1];
};

/**
 * struct batch_ops - a batch: its jobs, numbered from 0, and where their
 * results go
 * @plan: fill @job for job @index, on a worker thread (so reading shared
 *	state only).  Return: 0 to run it, 1 to skip it (done() gets NULL),
 *	or a negative errno, which ends the batch
 * @done: job @index's result (NULL: skipped), on the thread that called
 *	batch_run(), in index order.  Return: 0, or a negative errno, which
 *	ends the batch
 * @progress: optional, on batch_run()'s thread: @done_jobs of @total
 *	finished, called as they do (at most once a job)
 * @keep_going: a replay that fails does not end the batch: done() gets
 *	its result, its error in replay_result.error and .error_msg (for
 *	jobs that stand alone, as fidelity's traces do)
 */
struct batch_ops {
	int (*plan)(void *ctx, uint64_t index, struct batch_job *job);
	int (*done)(void *ctx, uint64_t index, const struct replay_result *res);
	void (*progress)(void *ctx, uint64_t done_jobs, uint64_t total);
	bool keep_going;
};

/**
 * struct batch_error - how a batch failed
 * @error: the negative errno (0: it did not)
 * @job: the job that failed: the first in job order of those that did
 * @msg: the replay's own message (replay_result.error_msg), or empty
 */
struct batch_error {
	int error;
	uint64_t job;
	char msg[512];
};

/**
 * batch_run() - run jobs 0 .. @nr_jobs - 1 on up to @threads threads
 * @threads: 0: one per online CPU
 * @fail: set to how it failed, or cleared
 *
 * Results wait for done() in a window of a few jobs a thread: memory does
 * not grow with @nr_jobs, and a worker does not run ahead of the window.
 * The same jobs give the same done() calls, in the same order, whatever
 * @threads, up to the first job in job order that fails (no job after it
 * is started once it has).  Where no thread can be started, the jobs run
 * on the caller's.
 *
 * Return: 0, or @fail->error: the negative errno of plan(), the replay or
 * done() of job @fail->job.
 */
int batch_run(const struct batch_ops *ops, void *ctx, uint64_t nr_jobs, unsigned int threads,
	      struct batch_error *fail);

/**
 * batch_run_configs() - batch_run() of @n replays given as configurations
 * @res: their results, in the same order (those up to the first failure)
 *
 * Return: 0, or @fail->error (job @fail->job is the run of @cfgs that
 * failed first in their order).
 */
int batch_run_configs(const struct replay_config *cfgs, struct replay_result *res,
		      unsigned int n, unsigned int threads, struct batch_error *fail);

#endif /* LAB_BATCH_H */
