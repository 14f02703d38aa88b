// SPDX-License-Identifier: MIT
/*
 * conformance.c - the rules every governor keeps, checked on simulated
 * machines.
 *
 * DOC: conformance
 *
 * A governor is judged by its select() answers, made through the real
 * idle path: the core computes its inputs (the QoS limit, the sleep length,
 * the tick) from what the embedding, here the checker, gives it, exactly as
 * in a replay.  Each run is one small system of two CPUs on one driver
 * shape, each CPU with its own fake clock, which the states' enter()
 * advances by the stay.  Idle periods come from a seeded generator with
 * regimes (random; timer-driven and periodic; intercepted, the timer far
 * away; short bursts), next timers at, around and far from the states'
 * target residencies, sometimes none; a period continues through
 * re-entries when a polling state reaches its time limit, the kept tick
 * fires, or the driver refuses an entry.  Between idle calls the CPU
 * latency QoS request changes (removed, 0, each state's exit latency and
 * 1 us either side, values between two states), states are disabled and
 * enabled again, per CPU by the user or on every CPU by the driver, bus
 * master activity (CHECK_BM demotion) and the broadcast timer (TIMER_STOP
 * demotion) come and go.
 *
 * The rules, judged after every select() from the inputs it had (the QoS
 * limit in force, the disabled states), are those of enum
 * conformance_check_id.  "No enabled state meets the QoS limit" is the one
 * exception the core and the replay know (replay counts it as
 * qos_unmeetable, not as a violation): the QoS rule then cannot hold, and
 * state 0 is the kernel's last resort even when disabled (menu, teo and
 * cpuidle_find_deepest_state() fall back to it).  A polling state 0 always
 * meets any limit, so it is always allowed while enabled.
 *
 * The governor is also switched to mid-run from every partner and back
 * (so it meets devices another governor used, in mid idle period); there a
 * broken rule counts against "switch" unless the governor already broke it
 * alone.  Determinism: each shape's run is repeated on a fresh system and
 * compared decision by decision (index, entered state, tick, stay), then
 * run once more as two systems stepped alternately in one process, which
 * must agree with each other and with the first run: a governor keeping
 * anything outside dev->governor_data, a static counter or rand(), fails.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conformance.h"

#define US		1000LL
#define MS		(1000 * US)
#define CONF_CPUS	2
#define CONF_REQUEST	"conformance"
#define CONF_MAX_REC	(1u << 20)	/* decisions kept for the determinism check */

struct conf_state {
	const char *name;
	int64_t exit_ns;
	int64_t residency_ns;
	unsigned int flags;
};

struct conf_shape {
	const char *name;
	const char *desc;
	unsigned int tick_hz;
	int count;
	struct conf_state states[CPUIDLE_STATE_MAX];
};

#define TV	CPUIDLE_FLAG_TIME_VALID
#define POLL	(CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING)
#define STOP	CPUIDLE_FLAG_TIMER_STOP
#define BM	CPUIDLE_FLAG_CHECK_BM

static const struct conf_shape conf_shapes[CONFORMANCE_NR_SHAPES] = {
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

static const struct {
	const char *name;
	const char *unit;
	const char *desc;
} conf_checks[CONFORMANCE_NR_CHECKS] = {
	[CONFORMANCE_ENABLE] = { "enable", "shapes",
		"enables on every driver shape; every idle call goes through" },
	[CONFORMANCE_INDEX] = { "index", "decisions",
		"select() returns an index in [0, state_count)" },
	[CONFORMANCE_DISABLED] = { "disabled", "decisions",
		"never a disabled state (state 0 allowed when no enabled state meets QoS)" },
	[CONFORMANCE_QOS] = { "qos", "decisions",
		"exit latency within a QoS limit above 0, unless no enabled state meets it" },
	[CONFORMANCE_QOS0] = { "qos0", "decisions",
		"QoS 0: only a polling state, when an enabled one exists" },
	[CONFORMANCE_SWITCH] = { "switch", "decisions",
		"switched to and from every partner mid-run, it keeps the rules" },
	[CONFORMANCE_DETERMINISM] = { "determinism", "runs",
		"the same input gives the same decisions, also interleaved with a twin" },
};

/* One CPU of a simulated machine. */
struct conf_cpu {
	struct cpuidle_device dev;
	uint64_t clock;
	bool in_period;		/* idle, waiting for the wake-up */
	int64_t remaining;	/* to that wake-up */
	int64_t timer_left;	/* to the next timer, or CPUIDLE_TIME_INFINITE */
	bool tick_stopped;
	int mode;		/* the regime of its idle periods */
	int64_t typical;	/* their typical length */
};

struct conf_machine {
	struct cpuidle_system *sys;
	struct cpuidle_driver drv;
	struct conf_cpu cpus[CONF_CPUS];
	const struct conf_shape *shape;
	uint64_t rng;
	struct cpuidle_idle_ctx *ctx;	/* the idle call under way */
	int32_t qos_us;			/* our request; -1: none */
	bool bm_active;
	bool no_broadcast;
	bool reject;			/* the next enter() refuses */
	bool enter_called;
	int64_t stay;			/* of the last enter() */
	uint64_t entries;
};

/* One idle call: its inputs and the answers. */
struct conf_decision {
	unsigned int cpu;
	int64_t sleep_ns;
	int64_t delta_tick_ns;
	bool tick_stopped;
	int32_t qos_us;		/* the aggregate in force */
	uint32_t disabled;	/* bit i: state i disabled */
	int last_state;		/* entered in the CPU's last idle call, -1: none */
	uint64_t last_residency_ns;
	bool selected_valid;	/* select() was called */
	int selected;
	int entered;
	bool stop_tick;
	int ret;
	int64_t stay;
};

/* What determinism compares, per decision. */
struct conf_rec {
	int32_t selected;
	int16_t entered;
	uint8_t cpu;
	uint8_t stop_tick;
	int64_t stay;
};

/* The state of one conformance_check() call. */
struct conf_ctx {
	const struct cpuidle_governor *gov;
	const struct cpuidle_governor *partners[32];
	unsigned int nr_partners;
	struct conformance_report *rep;
	uint64_t seed;
	unsigned int entries;
	struct conf_rec *rec;		/* shape run's decisions */
	unsigned int nr_rec;
	bool rec_ok;			/* the shape's base run completed */
};

/* ------------------------------------------------------------ random */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return n ? rng_next(s) % n : 0;
}

static bool rng_one_in(uint64_t *s, unsigned int n)
{
	return rng_below(s, n) == 0;
}

/* Roughly log-uniform in [1, 2^bits). */
static int64_t rng_log(uint64_t *s, unsigned int bits)
{
	unsigned int k = (unsigned int)rng_below(s, bits);

	return (int64_t)((1ull << k) + rng_below(s, 1ull << k));
}

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

static void conf_machine_fini(struct conf_machine *m)
{
	if (m) {
		cpuidle_system_destroy(m->sys);
		free(m);
	}
}

static bool conf_same_name(const struct cpuidle_governor *a, const struct cpuidle_governor *b)
{
	return a == b || !strncasecmp(a->name, b->name, CPUIDLE_NAME_LEN);
}

/*
 * A machine of shape @shape with the governor under test and the
 * partners registered, @start current.  *@dev_err tells a device's
 * registration failed (the enable() of @start), as against any other
 * error of setting up.
 */
static int conf_machine_init(const struct conf_ctx *cc, int shape,
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

static int64_t conf_exit_ns(const struct conf_machine *m, int i)
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
		if (dev->states[(i + j) % m->shape->count].disable & reason) {
			i = (i + j) % m->shape->count;
			break;
		}
	}
	set = !(dev->states[i].disable & reason);
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
static void conf_step(struct conf_machine *m, struct conf_decision *d)
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

/* ------------------------------------------------------------ judging */

static const char *conf_state_name(const struct conf_machine *m, int i)
{
	return m->cpus[0].dev.states[i].name;
}

static bool conf_polls(const struct conf_machine *m, int i)
{
	return m->cpus[0].dev.states[i].flags & CPUIDLE_FLAG_POLLING;
}

/*
 * Judge @d against @rule.  Return: -1 if the rule does not constrain this
 * decision, 0 if kept, 1 if broken (@why then says how).
 */
static int conf_judge(const struct conf_machine *m, const struct conf_decision *d,
		      enum conformance_check_id rule, char *why, size_t len)
{
	int n = m->shape->count, idx = d->selected, i, meets = -1, poll = -1, deeper = 0;
	int64_t limit = (int64_t)d->qos_us * CPUIDLE_NSEC_PER_USEC;
	bool off;

	if (rule == CONFORMANCE_INDEX) {
		if (idx >= 0 && idx < n)
			return 0;
		snprintf(why, len, "index %d outside [0, %d)", idx, n);
		return 1;
	}
	if (idx < 0 || idx >= n)
		return -1;
	for (i = 0; i < n; i++) {
		if (conf_exit_ns(m, i) > limit)
			deeper++;
		if (d->disabled & (1u << i))
			continue;
		if (conf_exit_ns(m, i) <= limit && meets < 0)
			meets = i;
		if (conf_polls(m, i) && poll < 0)
			poll = i;
	}
	off = d->disabled & (1u << idx);

	switch (rule) {
	case CONFORMANCE_DISABLED:
		if (!d->disabled)
			return -1;
		if (!off)
			return 0;
		if (meets < 0 && idx == 0)
			return 0;	/* the kernel's last resort */
		if (meets >= 0)
			snprintf(why, len, "state %d is disabled while state %d (%s) is enabled "
				 "and meets the QoS limit", idx, meets, conf_state_name(m, meets));
		else
			snprintf(why, len, "state %d is disabled; with no enabled state meeting "
				 "the QoS limit only an enabled state or state 0 may be chosen", idx);
		return 1;
	case CONFORMANCE_QOS:
		if (d->qos_us == 0 || meets < 0 || !deeper)
			return -1;
		if (conf_exit_ns(m, idx) <= limit)
			return 0;
		snprintf(why, len, "exit latency %lld ns above the QoS limit %lld ns while "
			 "state %d (%s, %lld ns) is enabled and meets it",
			 (long long)conf_exit_ns(m, idx), (long long)limit, meets,
			 conf_state_name(m, meets), (long long)conf_exit_ns(m, meets));
		return 1;
	case CONFORMANCE_QOS0:
		if (d->qos_us != 0 || n < 2 || (poll < 0 && meets < 0))
			return -1;
		if (poll >= 0 ? conf_polls(m, idx) : conf_exit_ns(m, idx) == 0)
			return 0;
		if (poll >= 0)
			snprintf(why, len, "QoS 0 allows only polling, and state %d does not poll "
				 "while state %d (%s) does and is enabled", idx, poll,
				 conf_state_name(m, poll));
		else
			snprintf(why, len, "QoS 0: exit latency %lld ns while state %d (%s) has 0",
				 (long long)conf_exit_ns(m, idx), meets, conf_state_name(m, meets));
		return 1;
	default:
		return -1;
	}
}

static void conf_fmt_decision(const struct conf_machine *m, const struct conf_decision *d,
			      char *buf, size_t len)
{
	char timer[32], qos[32], state[48];

	if (d->sleep_ns == CPUIDLE_TIME_INFINITE)
		snprintf(timer, sizeof(timer), "none");
	else
		snprintf(timer, sizeof(timer), "%lld", (long long)d->sleep_ns);
	if (d->qos_us >= PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE)
		snprintf(qos, sizeof(qos), "none");
	else
		snprintf(qos, sizeof(qos), "%d", d->qos_us);
	if (d->selected >= 0 && d->selected < m->shape->count)
		snprintf(state, sizeof(state), "%d (%s)", d->selected,
			 conf_state_name(m, d->selected));
	else
		snprintf(state, sizeof(state), "%d", d->selected);
	snprintf(buf, len, "next_timer_ns=%s delta_tick_ns=%lld tick_stopped=%d qos_us=%s "
		 "disabled=0x%x last_state=%d last_residency_ns=%llu -> state %s", timer,
		 (long long)d->delta_tick_ns, d->tick_stopped, qos, d->disabled, d->last_state,
		 (unsigned long long)d->last_residency_ns, state);
}

static void conf_fail(struct conf_ctx *cc, enum conformance_check_id check, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void conf_fail(struct conf_ctx *cc, enum conformance_check_id check, const char *fmt, ...)
{
	struct conformance_result *r = &cc->rep->checks[check];
	va_list ap;
	int n;

	if (r->failures++)
		return;
	n = snprintf(r->message, sizeof(r->message), "%s: ", cc->gov->name);
	if (n < 0 || (size_t)n >= sizeof(r->message))
		return;
	va_start(ap, fmt);
	vsnprintf(r->message + n, sizeof(r->message) - (size_t)n, fmt, ap);
	va_end(ap);
}

/* "shape 4-state, seed 7, idle entry 12, cpu 1" */
static void conf_where(const struct conf_ctx *cc, const struct conf_machine *m,
		       const struct conf_decision *d, char *buf, size_t len)
{
	snprintf(buf, len, "shape %s, seed %llu, idle entry %llu, cpu %u", m->shape->name,
		 (unsigned long long)cc->seed, (unsigned long long)m->entries, d->cpu);
}

/*
 * Judge a decision of the governor under test on every rule.  @partner
 * set: made after a switch from it, when a newly broken rule counts as a
 * failed switch.
 */
static void conf_judge_all(struct conf_ctx *cc, const struct conf_machine *m,
			   const struct conf_decision *d, const char *partner,
			   uint64_t switched_at)
{
	static const enum conformance_check_id rules[] = {
		CONFORMANCE_INDEX, CONFORMANCE_DISABLED, CONFORMANCE_QOS, CONFORMANCE_QOS0,
	};
	char why[200], where[96], dec[320];
	unsigned int i;

	if (!d->selected_valid)
		return;
	if (partner)
		cc->rep->checks[CONFORMANCE_SWITCH].checked++;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		struct conformance_result *r = &cc->rep->checks[rules[i]];
		int v = conf_judge(m, d, rules[i], why, sizeof(why));

		if (v < 0)
			continue;
		if (!partner)
			r->checked++;
		if (v == 0)
			continue;
		conf_where(cc, m, d, where, sizeof(where));
		conf_fmt_decision(m, d, dec, sizeof(dec));
		if (!partner)
			conf_fail(cc, rules[i], "%s: %s: %s", where, dec, why);
		else if (!r->failures)	/* broken alone too: no news */
			conf_fail(cc, CONFORMANCE_SWITCH, "%s, switched from %s at entry %llu: "
				  "rule %s: %s: %s", where, partner,
				  (unsigned long long)switched_at, conf_checks[rules[i]].name,
				  dec, why);
		if (rules[i] == CONFORMANCE_INDEX)
			break;
	}
}

/* An idle call failing otherwise than by a bad index or a refused entry. */
static bool conf_call_failed(const struct conf_decision *d)
{
	return d->ret < 0 && d->ret != -ERANGE && !(d->ret == -EBUSY && d->selected_valid);
}

/* ------------------------------------------------------------ runs */

static uint64_t conf_seed(const struct conf_ctx *cc, int shape, unsigned int variant)
{
	uint64_t s = cc->seed ^ ((uint64_t)(shape + 1) << 32) ^ ((uint64_t)variant << 48);

	return rng_next(&s);
}

static void conf_rec_of(const struct conf_decision *d, struct conf_rec *r)
{
	r->selected = d->selected;
	r->entered = (int16_t)d->entered;
	r->cpu = (uint8_t)d->cpu;
	r->stop_tick = d->stop_tick;
	r->stay = d->stay;
}

static bool conf_rec_equal(const struct conf_rec *a, const struct conf_rec *b)
{
	return a->selected == b->selected && a->entered == b->entered && a->cpu == b->cpu &&
	       a->stop_tick == b->stop_tick && a->stay == b->stay;
}

static void conf_fmt_rec(const struct conf_rec *r, char *buf, size_t len)
{
	snprintf(buf, len, "cpu %u state %d (entered %d, stop_tick %d, stay %lld ns)", r->cpu,
		 r->selected, r->entered, r->stop_tick, (long long)r->stay);
}

/* A machine for the governor under test, or the enable failure recorded. */
static int conf_start(struct conf_ctx *cc, int shape, const struct cpuidle_governor *start,
		      uint64_t seed, struct conf_machine **m)
{
	bool dev_err;
	int ret = conf_machine_init(cc, shape, start, seed, m, &dev_err);

	if (ret && dev_err && start == cc->gov) {
		conf_fail(cc, CONFORMANCE_ENABLE, "shape %s: registering a device under it "
			  "failed: enable() %d (%s)", conf_shapes[shape].name, ret, strerror(-ret));
		return 1;
	}
	if (ret && dev_err) {
		conf_fail(cc, CONFORMANCE_SWITCH, "shape %s: partner %s failed to enable: %d (%s)",
			  conf_shapes[shape].name, start->name, ret, strerror(-ret));
		return 1;
	}
	return ret;
}

/* The shape alone: every rule judged; the decisions kept for determinism. */
static int conf_run_base(struct conf_ctx *cc, int shape)
{
	uint64_t seed = conf_seed(cc, shape, 0);
	struct conf_machine *m;
	struct conf_decision d;
	char where[96], dec[320];
	unsigned int i;
	int ret;

	cc->rec_ok = false;
	ret = conf_start(cc, shape, cc->gov, seed, &m);
	if (ret)
		return ret > 0 ? 0 : ret;
	cc->rep->checks[CONFORMANCE_ENABLE].checked++;
	for (i = 0; i < cc->entries; i++) {
		conf_step(m, &d);
		conf_judge_all(cc, m, &d, NULL, 0);
		if (conf_call_failed(&d)) {
			conf_where(cc, m, &d, where, sizeof(where));
			conf_fmt_decision(m, &d, dec, sizeof(dec));
			conf_fail(cc, CONFORMANCE_ENABLE, "%s: %s: the idle call failed: %d (%s)",
				  where, dec, d.ret, strerror(-d.ret));
		}
		if (i < cc->nr_rec)
			conf_rec_of(&d, &cc->rec[i]);
	}
	cc->rep->entries += m->entries;
	conf_machine_fini(m);
	cc->rec_ok = true;
	return 0;
}

/*
 * Partner first, then the governor under test from a quarter of the run,
 * the partner again from half, the governor again from three quarters.
 */
static int conf_run_switch(struct conf_ctx *cc, int shape, unsigned int p)
{
	const struct cpuidle_governor *partner = cc->partners[p];
	uint64_t seed = conf_seed(cc, shape, 1 + p), switched_at = 0;
	const struct cpuidle_governor *cur = partner;
	struct conf_machine *m;
	struct conf_decision d;
	char where[96], dec[320];
	unsigned int i, phase = 0;
	int ret;

	ret = conf_start(cc, shape, partner, seed, &m);
	if (ret)
		return ret > 0 ? 0 : ret;
	for (i = 0; i < cc->entries; i++) {
		if (i == (phase + 1) * (cc->entries / 4) && phase < 3) {
			const struct cpuidle_governor *next = cur == partner ? cc->gov : partner;

			phase++;
			ret = cpuidle_switch_governor(m->sys, next->name);
			if (ret) {
				conf_fail(cc, CONFORMANCE_SWITCH, "shape %s, seed %llu: switching "
					  "from %s to %s at entry %llu failed: %d (%s)",
					  m->shape->name, (unsigned long long)cc->seed, cur->name,
					  next->name, (unsigned long long)m->entries, ret,
					  strerror(-ret));
				break;
			}
			cur = next;
			switched_at = m->entries;
		}
		conf_step(m, &d);
		if (cur != cc->gov)
			continue;
		conf_judge_all(cc, m, &d, partner->name, switched_at);
		if (conf_call_failed(&d)) {
			conf_where(cc, m, &d, where, sizeof(where));
			conf_fmt_decision(m, &d, dec, sizeof(dec));
			conf_fail(cc, CONFORMANCE_SWITCH, "%s, switched from %s at entry %llu: "
				  "%s: the idle call failed: %d (%s)", where, partner->name,
				  (unsigned long long)switched_at, dec, d.ret, strerror(-d.ret));
		}
	}
	cc->rep->entries += m->entries;
	conf_machine_fini(m);
	return 0;
}

/* @who made decision @b where @ref made @a. */
static void conf_diverged(struct conf_ctx *cc, int shape, const char *who, const char *ref,
			  uint64_t entry, const struct conf_rec *a, const struct conf_rec *b)
{
	char sa[96], sb[96];

	conf_fmt_rec(a, sa, sizeof(sa));
	conf_fmt_rec(b, sb, sizeof(sb));
	conf_fail(cc, CONFORMANCE_DETERMINISM, "shape %s, seed %llu: %s diverged from %s at "
		  "idle entry %llu: %s instead of %s", conf_shapes[shape].name,
		  (unsigned long long)cc->seed, who, ref, (unsigned long long)entry, sb, sa);
}

/*
 * The base run again on a fresh system, then twice more interleaved:
 * every decision must match the base run's.
 */
static int conf_run_determinism(struct conf_ctx *cc, int shape)
{
	uint64_t seed = conf_seed(cc, shape, 0);
	struct conf_machine *m[2] = { NULL, NULL };
	struct conf_decision d;
	struct conf_rec r[2];
	unsigned int i, n = cc->entries < cc->nr_rec ? cc->entries : cc->nr_rec;
	bool failed = false;
	int ret, k;

	if (!cc->rec_ok)
		return 0;
	/* alone, on a fresh system */
	ret = conf_start(cc, shape, cc->gov, seed, &m[0]);
	if (ret)
		return ret > 0 ? 0 : ret;
	cc->rep->checks[CONFORMANCE_DETERMINISM].checked++;
	for (i = 0; i < n; i++) {
		conf_step(m[0], &d);
		conf_rec_of(&d, &r[0]);
		if (!conf_rec_equal(&r[0], &cc->rec[i])) {
			conf_diverged(cc, shape, "a second system fed the same input",
				      "the first", i + 1, &cc->rec[i], &r[0]);
			break;
		}
	}
	cc->rep->entries += m[0]->entries;
	conf_machine_fini(m[0]);
	m[0] = NULL;

	/* two systems in lock step */
	for (k = 0; k < 2; k++) {
		ret = conf_start(cc, shape, cc->gov, seed, &m[k]);
		if (ret) {
			conf_machine_fini(m[0]);
			return ret > 0 ? 0 : ret;
		}
	}
	cc->rep->checks[CONFORMANCE_DETERMINISM].checked++;
	for (i = 0; i < n && !failed; i++) {
		for (k = 0; k < 2; k++) {
			conf_step(m[k], &d);
			conf_rec_of(&d, &r[k]);
		}
		if (!conf_rec_equal(&r[0], &r[1])) {
			conf_diverged(cc, shape, "the second of two systems run interleaved",
				      "the first", i + 1, &r[0], &r[1]);
			failed = true;
		} else if (!conf_rec_equal(&r[0], &cc->rec[i])) {
			conf_diverged(cc, shape, "a system run interleaved with a twin",
				      "the same system alone", i + 1, &cc->rec[i], &r[0]);
			failed = true;
		}
	}
	for (k = 0; k < 2; k++) {
		cc->rep->entries += m[k]->entries;
		conf_machine_fini(m[k]);
	}
	return 0;
}

int conformance_check(const struct cpuidle_governor *gov, const struct conformance_options *opt,
		      struct conformance_report *rep)
{
	const struct cpuidle_governor *const *p;
	struct conf_ctx cc = { 0 };
	unsigned int shapes, i;
	int shape, ret = 0;

	if (!gov || !rep || !gov->select || !memchr(gov->name, 0, sizeof(gov->name)) ||
	    !gov->name[0])
		return -EINVAL;
	shapes = opt && opt->shapes ? opt->shapes : CONFORMANCE_ALL_SHAPES;
	if (shapes & ~CONFORMANCE_ALL_SHAPES)
		return -EINVAL;
	if (opt && opt->entries > CONFORMANCE_MAX_ENTRIES)
		return -EINVAL;

	memset(rep, 0, sizeof(*rep));
	snprintf(rep->governor, sizeof(rep->governor), "%s", gov->name);
	cc.gov = gov;
	cc.rep = rep;
	cc.seed = opt && opt->seed ? opt->seed : CONFORMANCE_DEFAULT_SEED;
	cc.entries = opt && opt->entries ? opt->entries : CONFORMANCE_DEFAULT_ENTRIES;
	rep->seed = cc.seed;
	p = opt && opt->partners ? opt->partners : cpuidle_builtin_governors();
	for (; *p; p++) {
		if (conf_same_name(*p, gov))
			continue;
		if (cc.nr_partners == sizeof(cc.partners) / sizeof(cc.partners[0]))
			return -EINVAL;
		cc.partners[cc.nr_partners++] = *p;
	}
	cc.nr_rec = cc.entries < CONF_MAX_REC ? cc.entries : CONF_MAX_REC;
	cc.rec = calloc(cc.nr_rec, sizeof(*cc.rec));
	if (!cc.rec)
		return -ENOMEM;

	/* alone first, so that a switch is blamed only for what is new */
	for (shape = 0; shape < CONFORMANCE_NR_SHAPES && !ret; shape++) {
		if (!(shapes & (1u << shape)))
			continue;
		ret = conf_run_base(&cc, shape);
		if (!ret)
			ret = conf_run_determinism(&cc, shape);
	}
	for (shape = 0; shape < CONFORMANCE_NR_SHAPES && !ret; shape++) {
		if (!(shapes & (1u << shape)))
			continue;
		for (i = 0; i < cc.nr_partners && !ret; i++)
			ret = conf_run_switch(&cc, shape, i);
	}
	free(cc.rec);
	if (ret)
		return ret;
	for (i = 0; i < CONFORMANCE_NR_CHECKS; i++)
		rep->nr_failed += rep->checks[i].failures > 0;
	return 0;
}

const char *conformance_check_name(enum conformance_check_id id)
{
	return (unsigned int)id < CONFORMANCE_NR_CHECKS ? conf_checks[id].name : NULL;
}

const char *conformance_check_unit(enum conformance_check_id id)
{
	return (unsigned int)id < CONFORMANCE_NR_CHECKS ? conf_checks[id].unit : NULL;
}

const char *conformance_check_desc(enum conformance_check_id id)
{
	return (unsigned int)id < CONFORMANCE_NR_CHECKS ? conf_checks[id].desc : NULL;
}

const char *conformance_shape_name(enum conformance_shape_id id)
{
	return (unsigned int)id < CONFORMANCE_NR_SHAPES ? conf_shapes[id].name : NULL;
}

const char *conformance_shape_desc(enum conformance_shape_id id)
{
	return (unsigned int)id < CONFORMANCE_NR_SHAPES ? conf_shapes[id].desc : NULL;
}

int conformance_shape_find(const char *name)
{
	int i;

	for (i = 0; name && i < CONFORMANCE_NR_SHAPES; i++)
		if (!strcmp(conf_shapes[i].name, name))
			return i;
	return -EINVAL;
}
