// SPDX-License-Identifier: MIT
/*
 * engine.c - the idle engine: a cpuidle system whose devices are waiting
 * threads, and the wait and wake calls.
 */

/**
 * DOC: the engine
 *
 * An engine is an embedding of the library like any other: one
 * struct cpuidle_system, clocked by CLOCK_MONOTONIC, with one driver
 * ("uidle") whose states are the wait kinds this CPU offers (states.c),
 * and one struct cpuidle_device per waiter.  A wait is a loop of the
 * library's idle path:
 *
 * 1. The word is looked at; changed: return 0.  The deadline passed:
 *    -ETIMEDOUT.
 * 2. cpuidle_idle_call() on the waiter's device, with the inputs the
 *    kernel gives its governors: the next timer is the wait's deadline
 *    (sleep_length_ns, CPUIDLE_TIME_INFINITE without one), the next tick
 *    is the next multiple of TICK_NSEC since the wait began (delta_tick_ns),
 *    and the tick counts as running at the first idle period of a wait
 *    (the thread was busy) and afterwards as the governor last left it.
 *    The tick is the waiting thread's own, started with its wait: with
 *    ticks at a random phase instead, menu and teo would now and then
 *    (residency / TICK_NSEC of the time: 1 in 50 for a 75 us futex sleep
 *    and a 4 ms tick) take a spinning state because "the tick comes
 *    before the sleep pays off", and no tick ever comes here.
 *    The governor selects a state, the state's enter() waits (states.c),
 *    the core accounts usage, time, above and below and calls reflect().
 * 3. Back to 1.
 *
 * So one wait is one idle period of the kernel, possibly made of several
 * stays: a polling state that reaches its time limit returns with
 * dev->poll_time_limit set, and the governor, seeing it, picks again,
 * typically the futex sleep.
 *
 * No stay is ever cut at a tick.  The kernel's tick is a safety net for a
 * CPU left in too shallow a state; here every state that holds the CPU
 * is a polling state, already bounded by the poll time limit (at most a
 * sixteenth of a tick), and the only other, the futex sleep, is the
 * deepest: a tick could only wake it to choose it again, at the price of
 * two system calls.  Governors still see a tick (TICK_NSEC, delta_tick)
 * and decide about it as in the kernel; got_tick is never set.
 *
 * Kicks.  The core kicks a device in idle when the QoS limit or the
 * device's own resume latency changes, and while pausing (a governor
 * switch, a device disabled): the kick op sets the waiter's kick flag and
 * unparks it if it sleeps (park.c), the spinning states see the flag at their next look, UMWAIT and MWAITX at
 * the end of their current wait (bounded by max_time and the poll time
 * limit).  The stay ends and the next one is selected under the new
 * limit.  While the system is paused or the device is disabled,
 * cpuidle_idle_call() refuses (-EAGAIN, -ENODEV): the waiter then idles
 * in the deepest enabled state the QoS limit allows, for at most
 * DEFAULT_IDLE_NS at a time, outside the statistics, as a CPU whose
 * cpuidle is off runs its default idle.
 *
 * haltpoll.  The haltpoll governor only ever chooses between state 0 (poll)
 * and state 1 (halt), as the kernel's cpuidle-haltpoll driver offers no
 * other.  On a table whose state 1 is a spin (PAUSE, UMWAIT, MWAITX) its
 * "halt" never leaves the CPU and an idle waiter spins until the word
 * changes.  So the engine registers the built-in governors itself, and
 * haltpoll as a copy whose enable() refuses such a table (-EOPNOTSUPP):
 * a switch to it fails and the old governor stays (the core puts it back),
 * and uidle_engine_create() refuses the combination with -EINVAL.
 *
 * Waiter ownership.  A waiter's memory may be anything before
 * uidle_waiter_init() (the caller's uninitialised memory), so its engine
 * pointer is never followed until it is found in the list of live engines
 * (engines, under engines_lock); only that engine is then read, under its
 * lock, to see whether it lists the waiter.  That makes "is @w a waiter of
 * some engine" exact: an engine lists only waiters it registered, and a
 * garbage pointer either matches no live engine or matches one that does
 * not list @w at @w's number.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "uidle_internal.h"

/*
 * The longest a wait idles outside the governor (system paused, device
 * disabled) before trying the idle path again: a pause lasts as long as a
 * governor switch (microseconds), so a millisecond costs at most one
 * extra look per millisecond while a device stays disabled.
 */
#define DEFAULT_IDLE_NS		(CPUIDLE_NSEC_PER_SEC / 1000)

#define UIDLE_DRIVER_NAME	"uidle"
#define UIDLE_HALTPOLL_GOVERNOR	"haltpoll"

/* The live engines: see "Waiter ownership" in the DOC block. */
static pthread_mutex_t engines_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uidle_engine *engines;
static pthread_once_t engines_atfork_once = PTHREAD_ONCE_INIT;

/*
 * A child of fork() may create engines of its own: engines_lock must not
 * be copied held by a thread that does not exist in the child.
 */
static void engines_atfork_prepare(void)
{
	pthread_mutex_lock(&engines_lock);
}

static void engines_atfork_release(void)
{
	pthread_mutex_unlock(&engines_lock);
}

static void engines_atfork_register(void)
{
	pthread_atfork(engines_atfork_prepare, engines_atfork_release,
		       engines_atfork_release);
}

static uint64_t engine_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	(void)ctx;
	return (uint64_t)uidle_now_ns();
}

static void engine_kick(struct cpuidle_device *dev, void *ctx)
{
	struct uidle_waiter *w = uidle_container_of(dev, struct uidle_waiter, dev);
	struct uidle_engine *e = ctx;

	uidle_kick(e->buckets, &w->wait);
}

/* A state of the driver from a state of the table. */
static void fill_state(struct cpuidle_state *s, const struct uidle_table_state *t,
		       const struct uidle_state_cost *cost)
{
	const struct uidle_kind_desc *kind = &uidle_kinds[t->kind];

	snprintf(s->name, sizeof(s->name), "%s", kind->name);
	snprintf(s->desc, sizeof(s->desc), "%s, cpu %u%% +%lldns", kind->what,
		 (cost->cpu_ppm + 5000) / 10000, (long long)cost->entry_cpu_ns);
	s->driver_data = (void *)kind;
	s->flags = CPUIDLE_FLAG_TIME_VALID | (kind->polling ? CPUIDLE_FLAG_POLLING : 0);
	s->power_usage = -1;
	s->exit_latency_ns = t->exit_latency_ns;
	s->target_residency_ns = t->target_residency_ns;
	s->enter = uidle_state_enter;
}

/*
 * Whether @name can be an engine's governor: a built-in one's (the engine's
 * system has no other), compared as the core finds governors.
 */
static int check_governor(const char *name)
{
	const struct cpuidle_governor *const *gov;

	if (!name)
		return 0;
	if (!name[0] || strnlen(name, CPUIDLE_NAME_LEN) == CPUIDLE_NAME_LEN)
		return -EINVAL;
	for (gov = cpuidle_builtin_governors(); *gov; gov++)
		if (!strcasecmp((*gov)->name, name))
			return 0;
	for (gov = cpuidle_versioned_governors(); *gov; gov++)	/* NAME@RELEASE */
		if (!strcasecmp((*gov)->name, name))
			return 0;
	return -ENOENT;
}

/*
 * Whether haltpoll can govern a table of @count states whose state 1
 * holds the CPU if @spin1: its "halt", state 1, must leave the CPU (a
 * table of POLL alone spins, as its caller asked).
 */
static bool haltpoll_suits(int count, bool spin1)
{
	return count < 2 || !spin1;
}

static const struct cpuidle_governor *builtin_governor(const char *name)
{
	const struct cpuidle_governor *const *gov;

	for (gov = cpuidle_builtin_governors(); *gov; gov++)
		if (!strcmp((*gov)->name, name))
			return *gov;
	return NULL;
}

/* haltpoll's enable(), refusing a table whose state 1 spins: see the DOC block. */
static int engine_haltpoll_enable(struct cpuidle_device *dev)
{
	const struct cpuidle_governor *gov = builtin_governor(UIDLE_HALTPOLL_GOVERNOR);

	if (!haltpoll_suits(dev->state_count, dev->state_count > 1 &&
			    (dev->states[1].flags & CPUIDLE_FLAG_POLLING)))
		return -EOPNOTSUPP;
	return gov && gov->enable ? gov->enable(dev) : 0;
}

/* The kinds to build: what the CPU has, the caller wants, the governor suits. */
static unsigned int choose_kinds(const struct uidle_engine_opts *opts, unsigned int available)
{
	unsigned int want = opts->states;

	if (!want)
		want = opts->governor && !strcasecmp(opts->governor, UIDLE_HALTPOLL_GOVERNOR) ?
		       UIDLE_STATE_BIT(UIDLE_STATE_POLL) | UIDLE_STATE_BIT(UIDLE_STATE_FUTEX) :
		       UIDLE_STATES_ALL;
	return (want & available) | UIDLE_STATE_BIT(UIDLE_STATE_POLL);
}

/* Detect, calibrate, build the table: everything before the system exists. */
static int engine_prepare(struct uidle_engine *e, const struct uidle_engine_opts *opts)
{
	struct uidle_cpu cpu, real;
	unsigned int kinds, want, spinning;
	int64_t t0;
	int k, ret;

	uidle_cpu_detect(NULL, NULL, &real);
	cpu = real;
	if (opts->cpuid) {
		uidle_cpu_detect(opts->cpuid, opts->cpuid_ctx, &cpu);
		uidle_cpu_and(&cpu, &real);	/* an injection only takes away */
	}
	e->info.available = uidle_cpu_kinds(&cpu);
	/* states asked for, none of which this CPU has: not a POLL-only engine */
	want = opts->states & ~UIDLE_STATE_BIT(UIDLE_STATE_POLL);
	if (want && !(want & e->info.available))
		return -EOPNOTSUPP;
	kinds = choose_kinds(opts, e->info.available);
	/* state 1 spins if any kind but POLL and FUTEX is built (FUTEX is last) */
	spinning = kinds & ~(UIDLE_STATE_BIT(UIDLE_STATE_POLL) | UIDLE_STATE_BIT(UIDLE_STATE_FUTEX));
	if (opts->governor && !strcasecmp(opts->governor, UIDLE_HALTPOLL_GOVERNOR) &&
	    !haltpoll_suits(__builtin_popcount(kinds), spinning != 0))
		return -EINVAL;

	e->env.buckets = e->buckets;
	if (kinds & UIDLE_STATE_BIT(UIDLE_STATE_UMWAIT))
		uidle_umwait_control_read(opts->umwait_control, &e->env.umwait_max_time,
					  &e->env.umwait_c02);
	e->info.umwait_max_time = e->env.umwait_max_time;
	e->info.umwait_c02 = e->env.umwait_c02;

	uidle_calibration_defaults(&e->cal);
	if (opts->calibration) {
		for (k = 0; k < UIDLE_NR_STATE_KINDS; k++)
			if (opts->calibration->cost[k].exit_latency_ns >= 0)
				e->cal.cost[k] = opts->calibration->cost[k];
		e->cal.tsc_khz = opts->calibration->tsc_khz;
	}
	if (!e->cal.tsc_khz &&
	    (kinds & (UIDLE_STATE_BIT(UIDLE_STATE_UMWAIT) | UIDLE_STATE_BIT(UIDLE_STATE_MWAITX))))
		e->cal.tsc_khz = uidle_tsc_khz_measure();
	e->env.tsc_khz = e->cal.tsc_khz;

	if (!opts->calibration && !(opts->flags & UIDLE_ENGINE_NO_CALIBRATE)) {
		t0 = uidle_now_ns();
		ret = uidle_calibrate(&e->env, kinds, &e->cal, &e->measured);
		if (ret)
			return ret;
		e->info.calibration_ns = uidle_now_ns() - t0;
	}
	ret = uidle_table_build(kinds, &e->cal, &e->table);
	if (ret)
		return ret;
	e->info.built = kinds;
	e->info.state_count = e->table.count;
	return 0;
}

static int engine_register(struct uidle_engine *e, const struct uidle_engine_opts *opts)
{
	struct cpuidle_system_opts sopts = {
		.sz = sizeof(sopts),
		.ops = {
			.clock_ns = engine_clock,
			.kick = engine_kick,
		},
		.ctx = e,
		.tick_hz = opts->tick_hz,
		.governor = opts->governor,
		.flags = CPUIDLE_SYS_NO_BUILTIN_GOVERNORS,
	};
	const struct cpuidle_governor *const *builtin, *gov;
	int i, ret;

	ret = cpuidle_system_create(&sopts, &e->sys);
	if (ret)
		return ret;
	/* the built-in governors, in their order, haltpoll guarded */
	for (builtin = cpuidle_builtin_governors(); *builtin; builtin++) {
		gov = *builtin;
		if (!strcmp(gov->name, UIDLE_HALTPOLL_GOVERNOR)) {
			e->haltpoll = *gov;
			e->haltpoll.enable = engine_haltpoll_enable;
			gov = &e->haltpoll;
		}
		ret = cpuidle_register_governor(e->sys, gov);
		if (ret)
			return ret;
	}
	/* then the ports by kernel release, as cpuidle_system_create() does */
	for (builtin = cpuidle_versioned_governors(); *builtin; builtin++) {
		ret = cpuidle_register_governor(e->sys, *builtin);
		if (ret)
			return ret;
	}
	gov = cpuidle_current_governor(e->sys);
	if (opts->governor && (!gov || strcasecmp(gov->name, opts->governor)))
		return -ENOENT;

	snprintf(e->drv.name, sizeof(e->drv.name), "%s", UIDLE_DRIVER_NAME);
	e->drv.safe_state_index = -1;
	e->drv.state_count = e->table.count;
	for (i = 0; i < e->table.count; i++)
		fill_state(&e->drv.states[i], &e->table.states[i],
			   &e->cal.cost[e->table.states[i].kind]);
	return cpuidle_register_driver(e->sys, &e->drv);
}

int uidle_engine_create(const struct uidle_engine_opts *opts, struct uidle_engine **out)
{
	struct uidle_engine *e;
	int ret;

	if (!opts || !out || opts->sz < sizeof(*opts))
		return -EINVAL;
	if ((opts->states & ~UIDLE_STATES_ALL) || (opts->flags & ~UIDLE_ENGINE_NO_CALIBRATE) ||
	    opts->tick_hz > 10000)
		return -EINVAL;
	if (opts->calibration && uidle_calibration_check(opts->calibration))
		return -EINVAL;
	/* before the calibration's tens of ms, not after */
	ret = check_governor(opts->governor);
	if (ret)
		return ret;
	pthread_once(&engines_atfork_once, engines_atfork_register);

	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	pthread_mutex_init(&e->lock, NULL);
	e->buckets = uidle_buckets_alloc();
	e->waiters = calloc(UIDLE_MAX_WAITERS, sizeof(*e->waiters));
	if (!e->buckets || !e->waiters) {
		ret = -ENOMEM;
		goto err;
	}
	ret = engine_prepare(e, opts);
	if (!ret)
		ret = engine_register(e, opts);
	if (ret)
		goto err;
	pthread_mutex_lock(&engines_lock);
	e->next = engines;
	engines = e;
	pthread_mutex_unlock(&engines_lock);
	*out = e;
	return 0;
err:
	uidle_engine_destroy(e);
	return ret;
}

int uidle_engine_destroy(struct uidle_engine *e)
{
	struct uidle_engine **p;

	if (!e)
		return 0;
	pthread_mutex_lock(&engines_lock);
	pthread_mutex_lock(&e->lock);
	if (e->nr_waiters) {
		pthread_mutex_unlock(&e->lock);
		pthread_mutex_unlock(&engines_lock);
		return -EBUSY;
	}
	pthread_mutex_unlock(&e->lock);
	for (p = &engines; *p; p = &(*p)->next) {	/* absent if create failed */
		if (*p == e) {
			*p = e->next;
			break;
		}
	}
	pthread_mutex_unlock(&engines_lock);
	cpuidle_system_destroy(e->sys);
	uidle_buckets_free(e->buckets);
	free(e->waiters);
	pthread_mutex_destroy(&e->lock);
	free(e);
	return 0;
}

struct cpuidle_system *uidle_engine_system(struct uidle_engine *e)
{
	return e ? e->sys : NULL;
}

int uidle_engine_state(const struct uidle_engine *e, int index, struct uidle_state_info *out)
{
	const struct uidle_table_state *t;

	if (!e || !out)
		return -EINVAL;
	if (index < 0 || index >= e->table.count)
		return -ENOENT;
	t = &e->table.states[index];
	memset(out, 0, sizeof(*out));
	out->kind = t->kind;
	snprintf(out->name, sizeof(out->name), "%s", uidle_kinds[t->kind].name);
	out->exit_latency_ns = t->exit_latency_ns;
	out->target_residency_ns = t->target_residency_ns;
	out->cost = e->cal.cost[t->kind];
	out->measured = (e->measured & UIDLE_STATE_BIT(t->kind)) != 0;
	return 0;
}

int uidle_engine_info(const struct uidle_engine *e, struct uidle_engine_info *out)
{
	if (!e || !out)
		return -EINVAL;
	*out = e->info;
	return 0;
}

int uidle_engine_calibration(const struct uidle_engine *e, struct uidle_calibration *out)
{
	if (!e || !out)
		return -EINVAL;
	*out = e->cal;
	return 0;
}

/* ---------------------------------------------------------------- waiters */

/*
 * The live engine that lists @w as a waiter, locked; NULL if none does.
 * @w may be uninitialised memory: its engine pointer is compared with the
 * live engines' before anything is read through it.  engines_lock held.
 */
static struct uidle_engine *waiter_owner_lock(const struct uidle_waiter *w)
{
	struct uidle_engine *owner = w->engine, *x;
	unsigned int id = w->dev.cpu;

	for (x = engines; x; x = x->next) {
		if (x != owner)
			continue;
		pthread_mutex_lock(&x->lock);
		if (id < UIDLE_MAX_WAITERS && x->waiters[id] == w)
			return x;
		pthread_mutex_unlock(&x->lock);
		break;
	}
	return NULL;
}

int uidle_waiter_init(struct uidle_engine *e, struct uidle_waiter *w)
{
	struct uidle_engine *owner;
	unsigned int id;
	int ret;

	if (!e || !w)
		return -EINVAL;
	/* held throughout: @w cannot become a waiter elsewhere meanwhile */
	pthread_mutex_lock(&engines_lock);
	owner = waiter_owner_lock(w);
	if (owner) {	/* of @e or of another engine: never wiped while listed */
		pthread_mutex_unlock(&owner->lock);
		ret = -EBUSY;
		goto out_engines;
	}
	pthread_mutex_lock(&e->lock);
	for (id = 0; id < UIDLE_MAX_WAITERS && e->waiters[id]; id++)
		;
	if (id == UIDLE_MAX_WAITERS) {
		ret = -ENOSPC;
		goto out;
	}
	memset(w, 0, sizeof(*w));
	w->dev.cpu = id;
	w->engine = e;
	w->deadline_ns = UIDLE_NO_DEADLINE;
	ret = cpuidle_register_device(e->sys, &w->dev);
	if (ret) {
		w->engine = NULL;
		goto out;
	}
	e->waiters[id] = w;
	e->nr_waiters++;
out:
	pthread_mutex_unlock(&e->lock);
out_engines:
	pthread_mutex_unlock(&engines_lock);
	return ret;
}

int uidle_waiter_fini(struct uidle_waiter *w)
{
	struct uidle_engine *e;
	int ret = -ENOENT;

	if (!w)
		return -EINVAL;
	if (__atomic_exchange_n(&w->busy, 1, __ATOMIC_ACQUIRE))
		return -EBUSY;
	pthread_mutex_lock(&engines_lock);
	e = waiter_owner_lock(w);
	/* e's lock keeps it alive: the unregistration's pause holds no one else up */
	pthread_mutex_unlock(&engines_lock);
	if (e) {
		cpuidle_unregister_device(e->sys, &w->dev);
		e->waiters[w->dev.cpu] = NULL;
		e->nr_waiters--;
		w->engine = NULL;
		pthread_mutex_unlock(&e->lock);
		ret = 0;
	}
	__atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
	return ret;
}

/* ---------------------------------------------------------------- wait */

/* Idle outside the governor: see the DOC block. */
static void default_idle(struct uidle_waiter *w, int64_t now)
{
	struct uidle_engine *e = w->engine;
	int64_t qos_ns = (int64_t)pm_qos_requirement(e->sys, PM_QOS_CPU_DMA_LATENCY) *
			 CPUIDLE_NSEC_PER_USEC;
	int64_t limit = now + DEFAULT_IDLE_NS;
	const struct uidle_kind_desc *kind;
	int idx;

	idx = cpuidle_find_deepest_state(&w->dev, qos_ns, 0);
	if (idx < 0)
		idx = 0;
	kind = w->dev.states[idx].driver_data;
	if (w->deadline_ns < limit)
		limit = w->deadline_ns;
	kind->wait(&e->env, &w->wait, limit);
}

static bool word_changed(const uint32_t *addr, uint32_t expected)
{
	return __atomic_load_n(addr, __ATOMIC_ACQUIRE) != expected;
}

int uidle_wait(struct uidle_waiter *w, const uint32_t *addr, uint32_t expected,
	       int64_t deadline_ns)
{
	struct cpuidle_idle_ctx *ctx;
	struct uidle_engine *e;
	int64_t now, start, tick, to_tick;
	bool tick_stopped = false;
	int ret;

	if (!w || !addr || ((uintptr_t)addr & (sizeof(*addr) - 1)))
		return -EINVAL;
	if (__atomic_exchange_n(&w->busy, 1, __ATOMIC_ACQUIRE))
		return -EBUSY;
	e = w->engine;
	if (!e) {
		ret = -ENOENT;
		goto out;
	}
	if (word_changed(addr, expected)) {
		ret = 0;
		goto out;
	}
	w->deadline_ns = deadline_ns;
	w->wait.expected = expected;
	__atomic_store_n(&w->wait.addr, addr, __ATOMIC_SEQ_CST);
	tick = cpuidle_tick_nsec(e->sys);
	ctx = &w->ctx;
	start = uidle_now_ns();
	for (;;) {
		now = uidle_now_ns();
		if (deadline_ns != UIDLE_NO_DEADLINE && now >= deadline_ns) {
			ret = -ETIMEDOUT;
			break;
		}
		memset(ctx, 0, sizeof(*ctx));
		ctx->sleep_length_ns = deadline_ns == UIDLE_NO_DEADLINE ? CPUIDLE_TIME_INFINITE :
				       deadline_ns - now;
		to_tick = tick - (now - start) % tick;
		ctx->delta_tick_ns = to_tick < ctx->sleep_length_ns ? to_tick : ctx->sleep_length_ns;
		ctx->tick_stopped = tick_stopped;
		__atomic_store_n(&w->wait.kick, 0, __ATOMIC_RELAXED);
		ret = cpuidle_idle_call(&w->dev, ctx);
		if (ret == -EAGAIN || ret == -ENODEV)
			default_idle(w, now);
		else if (ret < 0)
			break;
		else
			tick_stopped = ctx->stop_tick;
		if (word_changed(addr, expected)) {
			ret = 0;
			break;
		}
	}
	/*
	 * Release is enough: a kicker that still reads the address locks that
	 * bucket and finds nobody listed (park.c).
	 */
	__atomic_store_n(&w->wait.addr, NULL, __ATOMIC_RELEASE);
out:
	__atomic_store_n(&w->busy, 0, __ATOMIC_RELEASE);
	return ret;
}

int uidle_wake(struct uidle_engine *e, const uint32_t *addr, int32_t n)
{
	/* a misaligned word can have no waiter: uidle_wait() refuses it */
	if (!e || !addr || ((uintptr_t)addr & (sizeof(*addr) - 1)) || n < 0)
		return -EINVAL;
	return uidle_unpark(e->buckets, addr, n);
}
