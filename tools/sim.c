// SPDX-License-Identifier: MIT
/*
 * sim.c - the replay engine.
 *
 * Each CPU is replayed on its own simulated clock.  For every interval the
 * engine calls cpuidle_idle_call() with the time to the next timer, as the
 * kernel's idle loop would, until the interval is used up: a polling state
 * stops at its time limit, a kept tick wakes the CPU at the next tick
 * boundary, and the idle loop then runs the governor again, as in the
 * kernel.  The exit latency of the state a real wake-up finds the CPU in
 * delays the work that follows and is counted as added latency.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

enum sim_wake { WAKE_EVENT, WAKE_TICK, WAKE_POLL_LIMIT };

struct sim_cpu {
	struct cpuidle_device dev;
	uint64_t clock;
	int64_t remaining;		/* idle time left in the interval */
	struct cpuidle_idle_ctx *ctx;
	enum sim_wake wake;
	int64_t consumed;
};

struct sim_machine {
	struct cpuidle_system *sys;
	struct cpuidle_table_driver td;
	struct sim_cpu *cpus;
	unsigned int nr_cpus;
	int64_t tick_ns;
};

static uint64_t sim_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)ctx;
	return ((struct sim_cpu *)dev->embed_data)->clock;
}

static int64_t time_to_tick(const struct sim_machine *m, uint64_t now)
{
	return m->tick_ns - (int64_t)(now % (uint64_t)m->tick_ns);
}

/* The table driver's idle callback: let simulated time pass. */
static int sim_idle(struct cpuidle_device *dev, struct cpuidle_state *state, int index,
		    void *ctx)
{
	struct sim_machine *m = ctx;
	struct sim_cpu *c = dev->embed_data;
	int64_t stay = c->remaining;

	(void)index;
	c->wake = WAKE_EVENT;
	if (state->flags & CPUIDLE_FLAG_POLLING) {
		int64_t limit = (int64_t)cpuidle_poll_time(dev);

		if (stay > limit) {
			stay = limit;
			dev->poll_time_limit = true;
			c->wake = WAKE_POLL_LIMIT;
		}
	}
	if (!c->ctx->stop_tick) {
		int64_t tick = time_to_tick(m, c->clock);

		if (tick < stay) {
			stay = tick;
			c->wake = WAKE_TICK;
		}
	}
	c->ctx->got_tick = c->wake == WAKE_TICK;
	c->consumed = stay;
	c->clock += (uint64_t)(stay + state->exit_latency_ns);
	return 0;
}

static void machine_destroy(struct sim_machine *m)
{
	cpuidle_system_destroy(m->sys);
	free(m->cpus);
}

static int machine_init(struct sim_machine *m, const struct sim_config *cfg)
{
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = { .clock_ns = sim_clock },
		.ctx = m,
		.tick_hz = cfg->platform->tick_hz,
		.governor = cfg->governor,
	};
	const struct cpuidle_governor *gov;
	unsigned int i;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = cpuidle_system_create(&opts, &m->sys);
	if (ret)
		return ret;
	m->tick_ns = cpuidle_tick_nsec(m->sys);
	gov = cpuidle_current_governor(m->sys);
	if (!gov || strcmp(gov->name, cfg->governor)) {
		ret = -ENOENT;
		goto err;
	}
	ret = cpuidle_table_driver_init(&m->td, cfg->platform, sim_idle, m);
	if (!ret)
		ret = cpuidle_register_driver(m->sys, &m->td.drv);
	if (ret)
		goto err;
	m->nr_cpus = cfg->nr_cpus;
	m->cpus = calloc(cfg->nr_cpus, sizeof(*m->cpus));
	if (!m->cpus) {
		ret = -ENOMEM;
		goto err;
	}
	for (i = 0; i < cfg->nr_cpus; i++) {
		struct sim_cpu *c = &m->cpus[i];

		c->dev.cpu = i;
		c->dev.embed_data = c;
		ret = cpuidle_register_device(m->sys, &c->dev);
		if (ret)
			goto err;
	}
	if (cfg->qos_us >= 0) {
		ret = pm_qos_add_requirement(m->sys, PM_QOS_CPU_DMA_LATENCY, "sim", cfg->qos_us);
		if (ret)
			goto err;
	}
	return 0;
err:
	machine_destroy(m);
	return ret;
}

static int replay_cpu(struct sim_machine *m, struct sim_cpu *c, struct sim_source *src,
		      struct sim_result *res)
{
	struct cpuidle_idle_ctx ctx = { 0 };
	struct sim_interval iv;
	int ret;

	c->ctx = &ctx;
	while ((ret = src->next(src, &iv)) > 0) {
		int64_t timer_left = iv.timer_ns;
		bool tick_stopped = false;

		if (iv.idle_ns < 0 || iv.timer_ns < iv.idle_ns || iv.busy_ns < 0)
			return -EINVAL;
		c->remaining = iv.idle_ns;
		res->intervals++;
		res->idle_ns += (uint64_t)iv.idle_ns;
		while (c->remaining > 0) {
			int64_t tick = time_to_tick(m, c->clock);
			int idx;

			ctx.sleep_length_ns = timer_left;
			ctx.delta_tick_ns = timer_left < tick ? timer_left : tick;
			ctx.tick_stopped = tick_stopped;
			idx = cpuidle_idle_call(&c->dev, &ctx);
			if (idx < 0)
				return idx;
			res->entries++;
			c->remaining -= c->consumed;
			if (timer_left != CPUIDLE_TIME_INFINITE)
				timer_left -= c->consumed;
			tick_stopped = ctx.stop_tick;
			if (c->wake == WAKE_EVENT)
				res->added_latency_ns += (uint64_t)c->dev.states[idx].exit_latency_ns;
		}
		c->clock += (uint64_t)iv.busy_ns;
	}
	return ret;
}

int sim_run(const struct sim_config *cfg, struct sim_result *res)
{
	struct timespec t0, t1;
	struct sim_machine m;
	unsigned int i;
	int s, ret;

	memset(res, 0, sizeof(*res));
	if (!cfg || !cfg->platform || !cfg->governor || !cfg->source || !cfg->nr_cpus)
		return res->error = -EINVAL;
	snprintf(res->governor, sizeof(res->governor), "%s", cfg->governor);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = machine_init(&m, cfg);
	if (ret)
		return res->error = ret;

	for (i = 0; i < m.nr_cpus && !ret; i++) {
		struct sim_source *src = cfg->source(cfg->source_arg, i);
		struct sim_cpu *c = &m.cpus[i];

		if (!src) {
			ret = -ENOMEM;
			break;
		}
		c->clock = 0;
		ret = replay_cpu(&m, c, src, res);
		if (src->destroy)
			src->destroy(src);
		res->wall_ns += c->clock;
	}

	res->state_count = m.cpus[0].dev.state_count;
	res->energy_known = true;
	for (s = 0; s < res->state_count; s++) {
		struct sim_state_stats *st = &res->states[s];
		int power = m.cpus[0].dev.states[s].power_usage;

		for (i = 0; i < m.nr_cpus; i++) {
			const struct cpuidle_state *cs = &m.cpus[i].dev.states[s];

			st->usage += cs->usage;
			st->time_ns += cs->time_ns;
			st->above += cs->above;
			st->below += cs->below;
			st->rejected += cs->rejected;
		}
		if (power < 0)
			res->energy_known = false;
		else	/* mW x ns = 1e-12 J = 1e-9 mJ */
			res->energy_mj += (double)power * (double)st->time_ns * 1e-9;
	}
	machine_destroy(&m);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->host_seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return res->error = ret;
}

struct sim_job {
	const struct sim_config *cfg;
	struct sim_result *res;
};

static void *sim_thread(void *arg)
{
	struct sim_job *job = arg;

	sim_run(job->cfg, job->res);
	return NULL;
}

int sim_run_parallel(const struct sim_config *cfgs, struct sim_result *res, unsigned int n)
{
	struct sim_job *jobs = calloc(n, sizeof(*jobs));
	pthread_t *tids = calloc(n, sizeof(*tids));
	bool *started = calloc(n, sizeof(*started));
	unsigned int i;
	int ret = 0;

	if (!jobs || !tids || !started) {
		free(jobs);
		free(tids);
		free(started);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		jobs[i] = (struct sim_job){ &cfgs[i], &res[i] };
		started[i] = pthread_create(&tids[i], NULL, sim_thread, &jobs[i]) == 0;
		if (!started[i])	/* no thread to be had: run it here */
			sim_thread(&jobs[i]);
	}
	for (i = 0; i < n; i++) {
		if (started[i])
			pthread_join(tids[i], NULL);
		if (!ret && res[i].error)
			ret = res[i].error;
	}
	free(jobs);
	free(tids);
	free(started);
	return ret;
}
