/* SPDX-License-Identifier: MIT */
/*
 * fixture.h - a small simulated machine for the unit tests: a system on a
 * per-CPU fake clock, a driver with configurable states whose enter()
 * advances the clock by the stay the test asked for (a polling state stops
 * at its time limit, as the kernel's poll_idle does).
 */
#ifndef TEST_FIXTURE_H
#define TEST_FIXTURE_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libcpuidle.h"

#define FX_MAX_CPUS 4

struct fx_state_desc {
	const char *name;
	unsigned int exit_us;
	unsigned int residency_us;
	int power_mw;
	unsigned int flags;
};

struct fixture {
	struct cpuidle_system *sys;
	struct cpuidle_driver drv;
	struct cpuidle_device dev[FX_MAX_CPUS];
	/* a device's own state table, where a test gives it one */
	struct cpuidle_state own_states[FX_MAX_CPUS][CPUIDLE_STATE_MAX];
	uint64_t clock[FX_MAX_CPUS];
	int64_t stay_ns[FX_MAX_CPUS];	/* how long the next stay lasts */
	int reject[FX_MAX_CPUS];	/* enter() of that index fails (-1: none) */
	int redirect[FX_MAX_CPUS];	/* enter() uses this state instead (-1: none) */
	int bm_active;
	int no_broadcast;	/* broadcast_enter() refuses */
	int broadcasts;		/* successful broadcast_enter() not yet exited */
	int kicks;
	/* the cluster as a test describes it (NULL: no view, -EOPNOTSUPP) */
	int (*view)(struct fixture *fx, struct cpuidle_device *dev,
		    struct cpuidle_cluster_view *view, struct cpuidle_sibling *sib,
		    unsigned int max);
};

static inline struct fixture *fx_of(struct cpuidle_device *dev)
{
	return cpuidle_system_ctx(dev->sys);
}

static inline uint64_t fx_clock(struct cpuidle_device *dev, void *ctx)
{
	return ((struct fixture *)ctx)->clock[dev->cpu];
}

static inline bool fx_bm_active(struct cpuidle_system *sys, void *ctx)
{
	(void)sys;
	return ((struct fixture *)ctx)->bm_active;
}

static inline int fx_broadcast_enter(struct cpuidle_device *dev, void *ctx)
{
	struct fixture *fx = ctx;

	(void)dev;
	if (fx->no_broadcast)
		return -EBUSY;
	fx->broadcasts++;
	return 0;
}

static inline void fx_broadcast_exit(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	((struct fixture *)ctx)->broadcasts--;
}

static inline void fx_kick(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	__atomic_fetch_add(&((struct fixture *)ctx)->kicks, 1, __ATOMIC_RELAXED);
}

static inline int fx_enter(struct cpuidle_device *dev, struct cpuidle_state *state)
{
	struct fixture *fx = fx_of(dev);
	int idx = (int)(state - dev->states);
	int64_t stay = fx->stay_ns[dev->cpu];

	if (fx->reject[dev->cpu] == idx)
		return -EBUSY;
	if (fx->redirect[dev->cpu] >= 0) {
		state = &dev->states[fx->redirect[dev->cpu]];
		dev->last_state = state;
	}
	if (state->flags & CPUIDLE_FLAG_POLLING) {
		uint64_t limit = cpuidle_poll_time(dev);

		if ((uint64_t)stay > limit) {
			stay = (int64_t)limit;
			dev->poll_time_limit = true;
		}
	}
	fx->clock[dev->cpu] += (uint64_t)stay;
	return (int)(stay / 1000);
}

static inline int fx_cluster_view(struct cpuidle_device *dev, struct cpuidle_cluster_view *view,
				  struct cpuidle_sibling *sib, unsigned int max, void *ctx)
{
	struct fixture *fx = ctx;

	return fx->view ? fx->view(fx, dev, view, sib, max) : -EOPNOTSUPP;
}

/* Create the system; states[] of @n entries describe every CPU. */
static inline void fx_init(struct fixture *fx, const struct fx_state_desc *states, int n,
			   int ncpus, unsigned int sysflags)
{
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = {
			.clock_ns = fx_clock,
			.bm_active = fx_bm_active,
			.kick = fx_kick,
			.broadcast_enter = fx_broadcast_enter,
			.broadcast_exit = fx_broadcast_exit,
			.cluster_view = fx_cluster_view,
		},
		.ctx = fx,
		.flags = sysflags,
	};
	int i;

	memset(fx, 0, sizeof(*fx));
	assert_int_equal(cpuidle_system_create(&opts, &fx->sys), 0);
	strcpy(fx->drv.name, "fixture");
	fx->drv.safe_state_index = -1;
	for (i = 0; i < n; i++) {
		struct cpuidle_state *s = &fx->drv.states[i];

		snprintf(s->name, sizeof(s->name), "%s", states[i].name);
		snprintf(s->desc, sizeof(s->desc), "test %s", states[i].name);
		s->exit_latency = states[i].exit_us;
		s->target_residency = states[i].residency_us;
		s->power_usage = states[i].power_mw;
		s->flags = states[i].flags;
		s->enter = fx_enter;
	}
	fx->drv.state_count = n;
	assert_int_equal(cpuidle_register_driver(fx->sys, &fx->drv), 0);
	for (i = 0; i < ncpus; i++) {
		fx->dev[i].cpu = (unsigned int)i;
		fx->reject[i] = -1;
		fx->redirect[i] = -1;
		fx->clock[i] = 1000000000ull;
		assert_int_equal(cpuidle_register_device(fx->sys, &fx->dev[i]), 0);
	}
}

static inline void fx_fini(struct fixture *fx)
{
	cpuidle_system_destroy(fx->sys);
}

/*
 * One idle period on @cpu with every input explicit: the stay, the next
 * timer, the time to the next event with the tick running, whether the tick
 * is running, and whether the tick ended the stay.  Returns the index
 * entered (or the error) and, if @stop_tick, the governor's tick decision.
 */
static inline int fx_idle_ex(struct fixture *fx, int cpu, int64_t stay_ns, int64_t timer_ns,
			     int64_t delta_tick_ns, bool tick_running, bool got_tick,
			     bool *stop_tick)
{
	struct cpuidle_idle_ctx ctx = {
		.sleep_length_ns = timer_ns,
		.delta_tick_ns = delta_tick_ns,
		.tick_stopped = !tick_running,
		.got_tick = got_tick,
	};
	int ret;

	fx->stay_ns[cpu] = stay_ns;
	ret = cpuidle_idle_call(&fx->dev[cpu], &ctx);
	if (stop_tick)
		*stop_tick = ctx.stop_tick;
	return ret;
}

/*
 * One idle period on CPU 0 lasting @stay_ns, with the next timer @timer_ns
 * away (tick stopped unless @tick_running; running, the next tick is a full
 * period away).  Returns the entered index and, if @stop_tick, the tick
 * decision.
 */
static inline int fx_idle_stop(struct fixture *fx, int64_t stay_ns, int64_t timer_ns,
			       bool tick_running, bool *stop_tick)
{
	int64_t tick = cpuidle_tick_nsec(fx->sys);
	int64_t delta_tick = timer_ns;

	if (tick_running && delta_tick > tick)
		delta_tick = tick;
	return fx_idle_ex(fx, 0, stay_ns, timer_ns, delta_tick, tick_running, false, stop_tick);
}

/* As fx_idle_stop(), on @cpu, without the tick decision. */
static inline int fx_idle(struct fixture *fx, int cpu, int64_t stay_ns, int64_t timer_ns,
			  bool tick_running)
{
	int64_t tick = cpuidle_tick_nsec(fx->sys);
	int64_t delta_tick = timer_ns;

	if (tick_running && delta_tick > tick)
		delta_tick = tick;
	return fx_idle_ex(fx, cpu, stay_ns, timer_ns, delta_tick, tick_running, false, NULL);
}

/* @n idle periods on CPU 0 alike, each entering some state. */
static inline void fx_repeat(struct fixture *fx, int n, int64_t stay_ns, int64_t timer_ns,
			     bool tick_running)
{
	while (n-- > 0)
		assert_true(fx_idle_stop(fx, stay_ns, timer_ns, tick_running, NULL) >= 0);
}

/* The article's laptop: C1/C2/C3, 1/1/57 us, 1000/500/100 mW, ACPI 2x residency. */
/* a CPU latency QoS request of @us (the governor tests' one requester) */
static inline void fx_set_qos(struct fixture *fx, int32_t us)
{
	assert_int_equal(pm_qos_add_requirement(fx->sys, PM_QOS_CPU_DMA_LATENCY, "fx", us), 0);
}

static inline void fx_drop_qos(struct fixture *fx)
{
	assert_int_equal(pm_qos_remove_requirement(fx->sys, PM_QOS_CPU_DMA_LATENCY, "fx"), 0);
}

/* state @index of CPU 0 disabled (or enabled again) as a user would */
static inline void fx_disable(struct fixture *fx, int index, bool off)
{
	assert_int_equal(cpuidle_disable_state(&fx->dev[0], index,
					       CPUIDLE_STATE_DISABLED_BY_USER, off), 0);
}

static const struct fx_state_desc fx_laptop[] = {
	{ "C1", 1, 2, 1000, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_SHALLOW },
	{ "C2", 1, 2, 500, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_BALANCED },
	{ "C3", 57, 114, 100, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_DEEP |
			      CPUIDLE_FLAG_CHECK_BM },
};

/* The recording VM: POLL + haltpoll idle. */
static const struct fx_state_desc fx_haltpoll[] = {
	{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
	{ "haltpoll idle", 1, 1, -1, CPUIDLE_FLAG_TIME_VALID },
};

/* A poll state and three real ones with distinct residencies. */
static const struct fx_state_desc fx_four[] = {
	{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
	{ "C1", 2, 2, 1000, CPUIDLE_FLAG_TIME_VALID },
	{ "C1E", 10, 20, 600, CPUIDLE_FLAG_TIME_VALID },
	{ "C6", 85, 200, 50, CPUIDLE_FLAG_TIME_VALID },
};

#define FX_ARRAY_SIZE(a) ((int)(sizeof(a) / sizeof((a)[0])))

/*
 * Idle engine state costs for tests (struct uidle_state_cost: exit latency
 * ns, CPU ppm, CPU ns per entry): no calibration, so the tests start fast
 * and decide alike on any machine.
 */
static const struct uidle_calibration fx_uidle_cal = {
	.cost = {
		[UIDLE_STATE_POLL] = { 0, 1000000, 0 },
		[UIDLE_STATE_PAUSE] = { 50, 1000000, 0 },
		[UIDLE_STATE_UMWAIT] = { 500, 1000000, 0 },
		[UIDLE_STATE_MWAITX] = { 700, 1000000, 0 },
		[UIDLE_STATE_FUTEX] = { 30000, 0, 20000 },
	},
};

#endif /* TEST_FIXTURE_H */
