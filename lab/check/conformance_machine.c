// SPDX-License-Identifier: MIT
/*
 * conformance_machine.c - the machine a governor is held to the rules on
 * (conformance.c): its shapes (state tables and platforms), a system of
 * CONF_CPUS devices on a simulated clock, and the random inputs of each
 * step (timers, QoS changes, states disabled and enabled, ticks).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conformance_internal.h"

#define TV	CPUIDLE_FLAG_TIME_VALID
#define POLL	(CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING)
#define STOP	CPUIDLE_FLAG_TIMER_STOP
#define BM	CPUIDLE_FLAG_CHECK_BM

const struct conf_shape conf_shapes[CONFORMANCE_NR_SHAPES] = {
	[CONFORMANCE_SHAPE_POLL] = {
		"poll", "one polling state: POLL 0/0 us", 250, 1,
		{ { "POLL", 0, 0, POLL } },
	},
	[CONFORMANCE_SHAPE_HALT] = {
		"halt", "one state, not polling: C1 3/6 us", 250, 1,
		{ { "C1", 3 * US, 6 * US, TV } },
	},
	[CONFORMANCE_SHAPE_HALTPOLL] = {
		"haltpoll", "cpuidle-haltpoll: POLL 0/0, halt 1/1 us, HZ 1000", 1000, 2,
		{ { "POLL", 0, 0, POLL }, { "halt", 1 * US, 1 * US, TV } },
	},
	[CONFORMANCE_SHAPE_LAPTOP] = {
		"laptop", "no polling state: C1 1/2, C2 1/2, C3 57/114 us (bus master check)",
		250, 3,
		{
			{ "C1", 1 * US, 2 * US, TV | CPUIDLE_FLAG_SHALLOW },
			{ "C2", 1 * US, 2 * US, TV | CPUIDLE_FLAG_BALANCED },
			{ "C3", 57 * US, 114 * US, TV | CPUIDLE_FLAG_DEEP | BM },
		},
	},
	[CONFORMANCE_SHAPE_FOUR] = {
		"4-state", "POLL 0/0, C1 2/2, C1E 10/20, C6 85/200 us (timer stops)", 250, 4,
		{
			{ "POLL", 0, 0, POLL },
			{ "C1", 2 * US, 2 * US, TV },
			{ "C1E", 10 * US, 20 * US, TV },
			{ "C6", 85 * US, 200 * US, TV | STOP },
		},
	},
	[CONFORMANCE_SHAPE_TEN] = {
		"10-state", "POLL to C11, 0 to 1200 us exit, 0 to 10 ms residency, HZ 1000, "
			    "C7 off, C10 unusable", 1000, 10,
		{
			{ "POLL", 0, 0, POLL },
			{ "C1", 1500, 1500, TV },
			{ "C1E", 2 * US, 4 * US, TV },
			{ "C3", 10 * US, 20 * US, TV | STOP },
			{ "C6", 33 * US, 100 * US, TV | STOP },
			{ "C7", 60500, 200 * US, TV | STOP | CPUIDLE_FLAG_OFF },
			{ "C8", 100 * US, 400 * US, TV | STOP },
			{ "C9", 200 * US, 1 * MS, TV | STOP | BM },
			{ "C10", 500 * US, 3 * MS, TV | STOP | BM | CPUIDLE_FLAG_UNUSABLE },
			{ "C11", 1200 * US, 10 * MS, TV | STOP | BM },
		},
	},
};

/* ------------------------------------------------------------ the machine */

static uint64_t conf_clock(struct cpuidle_device *dev, void *ctx)
{
	return ((struct conf_machine *)ctx)->cpus[dev->cpu].clock;
}

static bool conf_bm_active(struct cpuidle_system *sys, void *ctx)
{
	(void)sys;
	return ((struct conf_machine *)ctx)->bm_active;
}

static int conf_broadcast_enter(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	return ((struct conf_machine *)ctx)->no_broadcast ? -EBUSY : 0;
}

static int64_t conf_time_to_tick(const struct conf_machine *m, const struct conf_cpu *c)
{
	int64_t tick = cpuidle_tick_nsec(m->sys);

	return tick - (int64_t)(c->clock % (uint64_t)tick);
}

/*
 * The driver: stay until the wake-up, unless a polling state's time limit
 * or the kept tick comes first; refuse when told to (never a polling
 * state, which cannot fail).
 */
static int conf_enter(struct cpuidle_device *dev, struct cpuidle_state *state)
{
	struct conf_machine *m = cpuidle_system_ctx(dev->sys);
	struct conf_cpu *c = &m->cpus[dev->cpu];
	struct cpuidle_idle_ctx *ctx = m->ctx;
	int64_t stay = c->remaining;
	bool limit = false, tick = false;

	m->enter_called = true;
	if (m->reject && !(state->flags & CPUIDLE_FLAG_POLLING))
		return -EBUSY;
	if (state->flags & CPUIDLE_FLAG_POLLING) {
		uint64_t lim = cpuidle_poll_time(dev);

		if (lim < (uint64_t)stay) {
			stay = (int64_t)lim;
			limit = true;
		}
	}
	if (!ctx->stop_tick) {
		int64_t t = conf_time_to_tick(m, c);

		if (t <= stay) {
			stay = t;
			tick = true;
			limit = false;
		}
	}
	if (limit)
		dev->poll_time_limit = true;
	ctx->got_tick = tick;
	c->clock += (uint64_t)stay;
	m->stay = stay;
	return stay / 1000 > INT_MAX ? INT_MAX : (int)(stay / 1000);
}

void conf_machine_fini(struct conf_machine *m)
{
	if (m) {
		cpuidle_system_destroy(m->sys);
		free(m);
	}
}

bool conf_same_name(const struct cpuidle_governor *a, const struct cpuidle_governor *b)
{
	return a == b || !strncasecmp(a->name, b->name, CPUIDLE_NAME_LEN);
}

/*
 * A machine of shape @shape with the governor under test and the
 * partners registered, @start current.  *@dev_err tells a device's
 * registration failed (the enable() of @start), as against any other
 * error of setting up.
 */
int conf_machine_init(const struct conf_ctx *cc, int shape,
			     const struct cpuidle_governor *start, uint64_t seed,
			     struct conf_machine **out, bool *dev_err)
{
	const struct conf_shape *sh = &conf_shapes[shape];
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = {
			.clock_ns = conf_clock,
			.bm_active = conf_bm_active,
			.broadcast_enter = conf_broadcast_enter,
		},
		.tick_hz = sh->tick_hz,
		.flags = CPUIDLE_SYS_NO_BUILTIN_GOVERNORS,
	};
	struct conf_machine *m;
	unsigned int i;
	int ret;

	*dev_err = false;
	*out = NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->shape = sh;
	m->rng = seed;
	m->qos_us = -1;
	opts.ctx = m;
	ret = cpuidle_system_create(&opts, &m->sys);
	if (ret)
		goto err;
	ret = cpuidle_register_governor(m->sys, cc->gov);
	if (ret)
		goto err;
	for (i = 0; i < cc->nr_partners; i++) {
		ret = cpuidle_register_governor(m->sys, cc->partners[i]);
		if (ret)
			goto err;
	}
	ret = cpuidle_switch_governor(m->sys, start->name);
	if (ret)
		goto err;

	snprintf(m->drv.name, sizeof(m->drv.name), "conformance");
	m->drv.safe_state_index = -1;
	m->drv.state_count = sh->count;
	for (i = 0; i < (unsigned int)sh->count; i++) {
		struct cpuidle_state *s = &m->drv.states[i];

		snprintf(s->name, sizeof(s->name), "%s", sh->states[i].name);
		snprintf(s->desc, sizeof(s->desc), "conformance %s", sh->states[i].name);
		s->exit_latency_ns = sh->states[i].exit_ns;
		s->target_residency_ns = sh->states[i].residency_ns;
		s->power_usage = -1;
		s->flags = sh->states[i].flags;
		s->enter = conf_enter;
	}
	ret = cpuidle_register_driver(m->sys, &m->drv);
	if (ret)
		goto err;
	for (i = 0; i < CONF_CPUS; i++) {
		m->cpus[i].dev.cpu = i;
		m->cpus[i].clock = 1000000000ull;
		m->cpus[i].typical = 100 * US;
		ret = cpuidle_register_device(m->sys, &m->cpus[i].dev);
		if (ret) {
			*dev_err = true;
			goto err;
		}
	}
	*out = m;
	return 0;
err:
	conf_machine_fini(m);
	return ret;
}

int64_t conf_exit_ns(const struct conf_machine *m, int i)
{
	return m->cpus[0].dev.states[i].exit_latency_ns;
}

/* A QoS request around the shape's exit latencies, or 0, or none. */
static void conf_change_qos(struct conf_machine *m)
{
	const struct conf_shape *sh = m->shape;
	int64_t lat;
	int32_t us;
	int i;

	switch (rng_below(&m->rng, 7)) {
	case 0:
	case 6:
		if (m->qos_us >= 0)
			pm_qos_remove_requirement(m->sys, PM_QOS_CPU_DMA_LATENCY, CONF_REQUEST);
		m->qos_us = -1;
		return;
	case 1:
		us = 0;
		break;
	case 2:
	case 3:		/* a state's exit latency, or 1 us either side */
		lat = conf_exit_ns(m, (int)rng_below(&m->rng, (uint64_t)sh->count)) / 1000;
		us = (int32_t)lat + (int32_t)rng_below(&m->rng, 3) - 1;
		if (us < 0)
			us = 0;
		break;
	case 4:		/* between two states */
		i = (int)rng_below(&m->rng, (uint64_t)sh->count);
		lat = conf_exit_ns(m, i);
		if (i + 1 < sh->count)
			lat = (lat + conf_exit_ns(m, i + 1)) / 2;
		us = (int32_t)(lat / 1000);
		break;
	default:
		us = (int32_t)rng_log(&m->rng, 13);	/* up to 8 ms */
		break;
	}
	if (m->qos_us < 0)
		pm_qos_add_requirement(m->sys, PM_QOS_CPU_DMA_LATENCY, CONF_REQUEST, us);
	else
		pm_qos_update_requirement(m->sys, PM_QOS_CPU_DMA_LATENCY, CONF_REQUEST, us);
	m->qos_us = us;
}

static int conf_nr_disabled(const struct cpuidle_device *dev)
{
	int i, n = 0;

	for (i = 0; i < dev->state_count; i++)
		n += cpuidle_is_disabled(dev, i);
	return n;
}

/*
 * Toggle one state: the user's bit on one CPU, or the driver's on every
 * CPU.  Half the time a disabled state, if any, is enabled again; setting
 * is held back when half the states are off already, most of the time:
 * every state off should happen, but not dominate.
 */
static void conf_toggle_state(struct conf_machine *m)
{
	int i = (int)rng_below(&m->rng, (uint64_t)m->shape->count);
	unsigned int cpu = (unsigned int)rng_below(&m->rng, CONF_CPUS);
	bool driver = rng_one_in(&m->rng, 3);
	bool rare = rng_one_in(&m->rng, 4);
	bool enable = rng_one_in(&m->rng, 2);
	unsigned int reason = driver ? CPUIDLE_STATE_DISABLED_BY_DRIVER :
				       CPUIDLE_STATE_DISABLED_BY_USER;
	struct cpuidle_device *dev = &m->cpus[driver ? 0 : cpu].dev;
	unsigned int c;
	bool set;
	int j;

	for (j = 0; enable && j < m->shape->count; j++) {
		if (dev->states_usage[(i + j) % m->shape->count].disable & reason) {
			i = (i + j) % m->shape->count;
			break;
		}
	}
	set = !(dev->states_usage[i].disable & reason);
	if (set && 2 * conf_nr_disabled(dev) >= m->shape->count && !rare)
		return;
	for (c = 0; c < CONF_CPUS; c++)
		if (driver || c == cpu)
			cpuidle_disable_state(&m->cpus[c].dev, i, reason, set);
}

static void conf_controls(struct conf_machine *m)
{
	if (rng_one_in(&m->rng, 40))
		conf_change_qos(m);
	if (rng_one_in(&m->rng, 50))
		conf_toggle_state(m);
	if (rng_one_in(&m->rng, 50))
		m->bm_active = !m->bm_active;
	if (rng_one_in(&m->rng, 50))
		m->no_broadcast = !m->no_broadcast;
	m->reject = rng_one_in(&m->rng, 64);
}

/* A sleep length at, just around, or far from some target residency. */
static int64_t conf_random_timer(struct conf_machine *m)
{
	switch (rng_below(&m->rng, 32)) {
	case 0:
	case 1:
		return CPUIDLE_TIME_INFINITE;
	case 2:
		return 0;
	case 3:
	case 4:
	case 5:
	case 6: {
		int i = (int)rng_below(&m->rng, (uint64_t)m->shape->count);
		int64_t t = m->cpus[0].dev.states[i].target_residency_ns +
			    (int64_t)rng_below(&m->rng, 3) - 1;

		return t < 0 ? 0 : t;
	}
	default:
		return rng_log(&m->rng, 27);	/* up to 134 ms */
	}
}

/* The CPU ran; a new idle period starts: its wake-up and next timer. */
static void conf_new_period(struct conf_machine *m, struct conf_cpu *c)
{
	int64_t t, w, jitter;

	c->clock += rng_below(&m->rng, 50 * US);
	if (rng_one_in(&m->rng, 48)) {
		c->mode = (int)rng_below(&m->rng, 4);
		c->typical = rng_log(&m->rng, 25);	/* up to 33 ms */
	}
	jitter = (int64_t)rng_below(&m->rng, (uint64_t)c->typical / 8 + 1) - c->typical / 16;
	switch (c->mode) {
	case 1:		/* timer-driven, periodic */
		t = w = c->typical + jitter;
		break;
	case 2:		/* intercepted: woken well before a far timer */
		t = rng_one_in(&m->rng, 4) ? CPUIDLE_TIME_INFINITE :
		      8 * c->typical + rng_log(&m->rng, 24);
		w = c->typical + jitter;
		break;
	case 3:		/* short bursts */
		t = conf_random_timer(m);
		w = rng_log(&m->rng, 15);
		break;
	default:
		t = conf_random_timer(m);
		if (t != CPUIDLE_TIME_INFINITE && rng_one_in(&m->rng, 2))
			w = t;
		else
			w = rng_log(&m->rng, 27);
		break;
	}
	if (w < 0)
		w = 0;
	if (t < w)
		w = t;
	c->in_period = true;
	c->remaining = w;
	c->timer_left = t;
	c->tick_stopped = false;	/* the CPU ran: the tick runs */
}

static uint32_t conf_disabled_mask(const struct cpuidle_device *dev)
{
	uint32_t mask = 0;
	int i;

	for (i = 0; i < dev->state_count; i++)
		if (cpuidle_is_disabled(dev, i))
			mask |= 1u << i;
	return mask;
}

/* Control events, then one idle call on a CPU picked at random. */
void conf_step(struct conf_machine *m, struct conf_decision *d)
{
	unsigned int cpu = (unsigned int)rng_below(&m->rng, CONF_CPUS);
	struct conf_cpu *c = &m->cpus[cpu];
	struct cpuidle_idle_ctx ctx = { 0 };
	int64_t tick, stay;

	conf_controls(m);
	if (!c->in_period)
		conf_new_period(m, c);
	tick = conf_time_to_tick(m, c);
	ctx.sleep_length_ns = c->timer_left;
	ctx.delta_tick_ns = c->timer_left < tick ? c->timer_left : tick;
	ctx.tick_stopped = c->tick_stopped;

	memset(d, 0, sizeof(*d));
	d->cpu = cpu;
	d->sleep_ns = ctx.sleep_length_ns;
	d->delta_tick_ns = ctx.delta_tick_ns;
	d->tick_stopped = ctx.tick_stopped;
	d->qos_us = pm_qos_requirement(m->sys, PM_QOS_CPU_DMA_LATENCY);
	d->disabled = conf_disabled_mask(&c->dev);
	d->last_state = c->dev.last_state ? (int)(c->dev.last_state - c->dev.states) : -1;
	d->last_residency_ns = c->dev.last_residency_ns;

	m->ctx = &ctx;
	m->enter_called = false;
	m->stay = 0;
	d->ret = cpuidle_idle_call(&c->dev, &ctx);
	m->ctx = NULL;
	m->entries++;
	d->selected = ctx.selected;
	d->selected_valid = d->ret >= 0 || d->ret == -ERANGE || m->enter_called;
	d->entered = ctx.entered;
	d->stop_tick = ctx.stop_tick;

	if (d->ret >= 0) {
		stay = m->stay;
		c->tick_stopped = ctx.stop_tick && !ctx.got_tick;
	} else if (m->enter_called) {
		/* refused: the idle loop goes round a little later */
		stay = c->remaining < 1 * US ? c->remaining : 1 * US;
		c->clock += (uint64_t)stay;
	} else {
		/* nothing entered: the default idle until the wake-up */
		stay = c->remaining;
		c->clock += (uint64_t)stay;
	}
	d->stay = stay;
	c->remaining -= stay;
	if (c->timer_left != CPUIDLE_TIME_INFINITE)
		c->timer_left -= stay;
	if (c->remaining <= 0)
		c->in_period = false;
}
