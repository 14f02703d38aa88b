// SPDX-License-Identifier: MIT
/*
 * test_threads.c - concurrency.  Idle calls run on every CPU at once, each
 * CPU driven by its own worker thread on its own simulated clock, while
 * control threads, all at the same time:
 *
 *  - switch the governor among every built-in one and a traced copy of
 *    each, by cpuidle_switch_governor(), by writing cpuidle/current_governor
 *    and from inside a pause, and register and unregister one more;
 *  - disable and enable states: the user's and the driver's bit through
 *    cpuidle_disable_state(), the user's bit through the attribute tree's
 *    stateK/disable files (the two bits of one state from two threads);
 *  - add, update and remove CPU latency QoS requests, from two threads;
 *  - pause and resume (nested too), and disable and enable devices;
 *  - unregister one more device and register it again, under another CPU
 *    number (which grows the device table) while the others use it;
 *  - change the haltpoll tunables through module/haltpoll/parameters/;
 *  - read usage/time/above/below/rejected, the governor files, the QoS
 *    aggregate, and walk the whole tree.
 *
 * The control threads keep a shadow of what they set (the state bits, the
 * live QoS requests, which devices are enabled, the current governor) and
 * bracket each change with a per-CPU count of writers at work and a
 * generation (a seqlock that admits several writers).  A worker whose
 * whole idle call ran while no writer touched its CPU judges the call
 * against the shadow: the result (entered, -ENODEV for a disabled device,
 * never -EAGAIN/-EBUSY), the decision (never a disabled state unless it is
 * the last resort state 0, never over a QoS limit some enabled state
 * meets, polling under QoS 0), the governor that decided (the traced
 * governors say which one did: the current one, nothing for an untraced
 * one) and the inputs it was shown, and the above/below verdicts.  No
 * state's enter() may run while a control thread holds the system paused.
 *
 * Afterwards, per device and per state, the counters must be exactly what
 * the worker saw: usage equals the entries, time_ns the stays (so their sum
 * is the simulated time that passed), rejected the refusals of enter();
 * above and below lie between the verdicts of the judged calls and those
 * plus the calls not judged, and above + below <= usage.  The state bits,
 * the QoS aggregate and the governor must be what the shadow says.
 *
 * Run under ThreadSanitizer by the test suite (build-tsan): any unordered
 * access between the idle path and a control call is reported there.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "fixture.h"

#define NR_CPUS		FX_MAX_CPUS
#define NR_STATES	4		/* fx_four: POLL, C1, C1E, C6 */
#define NR_BUILTIN	6		/* ladder, menu, teo, haltpoll, hazard, cluster */
#define GOV_EXTRA	(2 * NR_BUILTIN)	/* a traced governor that comes and goes */
#define NR_GOVS		(GOV_EXTRA + 1)

#define MIN_ENTRIES	30000		/* per worker */
#define MIN_ROUNDS	400		/* per control thread */
#define MIN_JUDGED	2000		/* idle calls judged, per worker */
#define MIN_GOV_JUDGED	100		/* entries judged under each governor, all CPUs */
#define TIME_LIMIT_S	120		/* give up (and fail) after this */

#define NR_QOS_THREADS	2
#define QOS_SLOTS	3		/* requests per QoS thread */
#define QOS_ABSENT	(-2)

#define DEV_UNKNOWN	(-1)		/* a bare governor switch re-enabled it, or not */

#define USER_SHIFT	0		/* shadow: user's bits 0-3, driver's 8-11 */
#define DRIVER_SHIFT	8

struct conc;

struct worker {
	struct conc *c;
	int cpu;
	uint64_t seed;
	uint64_t start_clock;

	/* this call, as enter() and the tracer saw it */
	bool reject_next;
	int enter_state;		/* -1: enter() did not run */
	int64_t stay;
	const struct cpuidle_governor_tracer *decider;
	int decisions, reflects, decided, reflected;
	uint32_t shown_disabled;
	int64_t shown_latency_ns;

	/* what happened, per state where it applies */
	uint64_t attempts, entered, judged, nodev, paused, busy, refused;
	uint64_t usage[NR_STATES], time_ns[NR_STATES], rejected[NR_STATES];
	uint64_t above[NR_STATES], below[NR_STATES], unjudged[NR_STATES];
	uint64_t under_gov[NR_GOVS];	/* judged entries per current governor */
};

struct conc {
	struct fixture fx;
	struct cpuidle_governor_tracer tracers[NR_BUILTIN];
	struct cpuidle_governor_tracer extra;
	const struct cpuidle_governor *govs[NR_GOVS];
	struct worker w[NR_CPUS];
	struct timespec t0;

	/* a device no worker idles on, unregistered and registered again */
	struct cpuidle_device spare;
	unsigned int spare_cpu;		/* its number while registered */
	int spare_registered;

	/* the seqlock: writers at work on a CPU's constraints, changes done */
	unsigned int busy[NR_CPUS];
	unsigned int gen[NR_CPUS];

	/* the shadow, written by the control threads inside their windows */
	unsigned int dis[NR_CPUS];	/* USER_SHIFT / DRIVER_SHIFT bits */
	int32_t qos[NR_QOS_THREADS][QOS_SLOTS];	/* resolved values, or QOS_ABSENT */
	int dev_enabled[NR_CPUS];	/* 1, 0 or DEV_UNKNOWN */
	int cur_gov;			/* index in govs[] */
	int extra_registered;
	int paused_by_test;		/* a control thread holds the pause */
	int in_enter[NR_CPUS];		/* a worker is inside enter() */

	int workers_done;
	unsigned int rounds[16];	/* per control thread */
	int nr_ctl;
	uint64_t switches[NR_GOVS];	/* successful switches to each governor */
	uint64_t gov_judged[NR_GOVS];	/* entries judged under each, all workers */

	unsigned int failures;
	char why[512];
};

static const int32_t qos_values[] = {
	0, 1, 2, 3, 9, 10, 11, 50, 84, 85, 86, 1000, PM_QOS_DEFAULT_VALUE,
};

/* ---------------------------------------------------------------- helpers */

__attribute__((format(printf, 2, 3)))
static void conc_fail(struct conc *c, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&c->failures, 1, __ATOMIC_SEQ_CST))
		return;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
}

static uint64_t rnd(uint64_t *seed)
{
	*seed ^= *seed << 13;
	*seed ^= *seed >> 7;
	*seed ^= *seed << 17;
	return *seed;
}

static bool timed_out(struct conc *c)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec - c->t0.tv_sec > TIME_LIMIT_S;
}

static bool workers_done(struct conc *c)
{
	return __atomic_load_n(&c->workers_done, __ATOMIC_ACQUIRE) == NR_CPUS;
}

static bool controls_done(struct conc *c)
{
	int i;

	for (i = 0; i < c->nr_ctl; i++)
		if (__atomic_load_n(&c->rounds[i], __ATOMIC_RELAXED) < MIN_ROUNDS)
			return false;
	return true;
}

/*
 * Every governor has decided enough judged entries.  Which governor is
 * current when no writer is at work is up to the scheduler (one run saw
 * menu judged 9 times, another 4,089), so the run goes on until each one
 * has been seen, not for a fixed number of rounds.
 */
static bool govs_covered(struct conc *c)
{
	int g;

	for (g = 0; g < NR_GOVS; g++)
		if (__atomic_load_n(&c->gov_judged[g], __ATOMIC_RELAXED) < MIN_GOV_JUDGED)
			return false;
	return true;
}

/* A worker has done its share, and so has everyone whose share it needs. */
static bool worker_done(struct worker *w)
{
	return w->entered >= MIN_ENTRIES && w->judged >= MIN_JUDGED &&
	       controls_done(w->c) && govs_covered(w->c);
}

/*
 * The seqlock.  A writer counts itself in busy[] for each CPU it affects,
 * changes the library and the shadow, then bumps gen[] and counts itself
 * out.  A worker reads gen, then busy, before its idle call, and busy, then
 * gen, after: if busy was 0 both times and gen did not move, no change
 * overlapped the call, and the shadow it read before is what the library
 * had throughout.  (Several writers may be at work at once, so the count
 * and not the parity of gen tells.)
 */
static void ctl_begin(struct conc *c, unsigned int cpus)
{
	int i;

	for (i = 0; i < NR_CPUS; i++)
		if (cpus & (1u << i))
			__atomic_fetch_add(&c->busy[i], 1, __ATOMIC_SEQ_CST);
}

static void ctl_end(struct conc *c, unsigned int cpus)
{
	int i;

	for (i = 0; i < NR_CPUS; i++) {
		if (!(cpus & (1u << i)))
			continue;
		__atomic_fetch_add(&c->gen[i], 1, __ATOMIC_SEQ_CST);
		__atomic_fetch_sub(&c->busy[i], 1, __ATOMIC_SEQ_CST);
	}
}

#define ALL_CPUS	((1u << NR_CPUS) - 1)

static unsigned int shadow_disabled(struct conc *c, int cpu)
{
	unsigned int m = __atomic_load_n(&c->dis[cpu], __ATOMIC_RELAXED);

	return ((m >> USER_SHIFT) | (m >> DRIVER_SHIFT)) & ((1u << NR_STATES) - 1);
}

static int32_t shadow_qos(struct conc *c)
{
	int32_t v = PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE, r;
	int t, k;

	for (t = 0; t < NR_QOS_THREADS; t++) {
		for (k = 0; k < QOS_SLOTS; k++) {
			r = __atomic_load_n(&c->qos[t][k], __ATOMIC_RELAXED);
			if (r != QOS_ABSENT && r < v)
				v = r;
		}
	}
	return v;
}

static int64_t exit_ns(struct conc *c, int cpu, int i)
{
	return c->fx.dev[cpu].states[i].exit_latency_ns;
}

/*
 * Why the choice of @sel under @dis and @qos_us breaks a rule every
 * governor keeps (lab/check/conformance.c), or NULL.
 */
static const char *judge(struct conc *c, int cpu, unsigned int dis, int32_t qos_us, int sel)
{
	int64_t limit = (int64_t)qos_us * CPUIDLE_NSEC_PER_USEC;
	bool meets = false;
	int i;

	if (sel < 0 || sel >= NR_STATES)
		return "an index outside the states";
	for (i = 0; i < NR_STATES; i++)
		if (!(dis & (1u << i)) && exit_ns(c, cpu, i) <= limit)
			meets = true;
	if ((dis & (1u << sel)) && (sel != 0 || meets))
		return "a disabled state";
	if (qos_us != 0 && meets && exit_ns(c, cpu, sel) > limit)
		return "a state over the QoS limit";
	if (qos_us == 0 && !(dis & 1u) && sel != 0)
		return "a state that does not poll under QoS 0";
	return NULL;
}

/* The core's above/below verdicts for a stay of @d in @s under @dis. */
static void verdict(struct conc *c, int cpu, unsigned int dis, int s, int64_t d,
		    bool *above, bool *below)
{
	const struct cpuidle_state *st = c->fx.dev[cpu].states;
	int i;

	*above = *below = false;
	if (d < st[s].target_residency_ns) {
		for (i = s - 1; i >= 0; i--)
			if (!(dis & (1u << i)))
				*above = true;
	} else if (d > st[s].exit_latency_ns) {
		for (i = s + 1; i < NR_STATES; i++) {
			if (dis & (1u << i))
				continue;
			*below = d - st[s].exit_latency_ns >= st[i].target_residency_ns;
			break;
		}
	}
}

/* ---------------------------------------------------------------- idle side */

/* Every state's enter(): the fixture's, refusing when the worker asks. */
static int conc_enter(struct cpuidle_device *dev, struct cpuidle_state *state)
{
	struct worker *w = dev->embed_data;
	struct conc *c = w->c;
	uint64_t before = c->fx.clock[w->cpu];
	int ret;

	/* Dekker with the pauser: it sets paused_by_test, then reads in_enter. */
	__atomic_fetch_add(&c->in_enter[w->cpu], 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&c->paused_by_test, __ATOMIC_SEQ_CST))
		conc_fail(c, "cpu%d: enter() while a control thread holds the pause", w->cpu);
	w->enter_state = (int)(state - dev->states);
	if (w->reject_next) {
		ret = -EIO;
	} else {
		ret = fx_enter(dev, state);
		w->stay = (int64_t)(c->fx.clock[w->cpu] - before);
	}
	__atomic_fetch_sub(&c->in_enter[w->cpu], 1, __ATOMIC_SEQ_CST);
	return ret;
}

/* The traced governors' sink: runs inside the worker's select()/reflect(). */
static void conc_log(void *ctx, const struct cpuidle_device *dev, const struct cpuidle_decision *d)
{
	struct worker *w = dev->embed_data;

	if (d->reflect) {
		w->reflects++;
		w->reflected = d->state;
		return;
	}
	w->decider = ctx;
	w->decisions++;
	w->decided = d->state;
	w->shown_disabled = d->disabled;
	w->shown_latency_ns = d->latency_req_ns;
}

/* The checks of one idle call whose constraints no writer touched. */
static void judge_call(struct worker *w, const struct cpuidle_idle_ctx *ctx, int ret,
		       unsigned int dis, int32_t qos_us, int den, int gov)
{
	struct conc *c = w->c;
	const struct cpuidle_governor_tracer *t = NULL;
	const char *why;
	bool above, below;

	w->judged++;
	if (ret == -EAGAIN || ret == -EBUSY) {
		conc_fail(c, "cpu%d: %d with no control call in flight", w->cpu, ret);
		return;
	}
	if (den == 0 && ret != -ENODEV)
		conc_fail(c, "cpu%d: disabled device, idle call gave %d", w->cpu, ret);
	if (den == 1 && ret < 0 && ret != -EIO)
		conc_fail(c, "cpu%d: enabled device, idle call gave %d", w->cpu, ret);
	if (ret == -ENODEV)
		return;

	why = judge(c, w->cpu, dis, qos_us, ctx->selected);
	if (why)
		conc_fail(c, "cpu%d: %s chose %s: state %d, disabled 0x%x, QoS %d us",
			  w->cpu, c->govs[gov]->name, why, ctx->selected, dis, qos_us);

	if (gov >= NR_BUILTIN)
		t = gov == GOV_EXTRA ? &c->extra : &c->tracers[gov - NR_BUILTIN];
	if (w->decider != t)
		conc_fail(c, "cpu%d: under %s the decision came from %s", w->cpu,
			  c->govs[gov]->name,
			  w->decider ? w->decider->gov.name : "an untraced governor");
	if (t && (w->shown_disabled != dis ||
		  w->shown_latency_ns != (int64_t)qos_us * CPUIDLE_NSEC_PER_USEC))
		conc_fail(c, "cpu%d: %s was shown disabled 0x%x, QoS %lld ns; set: 0x%x, %d us",
			  w->cpu, t->gov.name, w->shown_disabled, (long long)w->shown_latency_ns,
			  dis, qos_us);
	if (ret >= 0) {
		w->under_gov[gov]++;
		__atomic_fetch_add(&c->gov_judged[gov], 1, __ATOMIC_RELAXED);
		verdict(c, w->cpu, dis, ret, w->stay, &above, &below);
		w->above[ret] += above;
		w->below[ret] += below;
	}
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct conc *c = w->c;
	int cpu = w->cpu;

	while (!worker_done(w) && ((w->attempts & 1023) || !timed_out(c))) {
		struct cpuidle_idle_ctx ctx;
		unsigned int b1, g1, dis = 0;
		int32_t qos_us = 0;
		int64_t stay, timer, tick = cpuidle_tick_nsec(c->fx.sys);
		uint64_t r = rnd(&w->seed);
		bool stable, tick_running = r & 1;
		int den = DEV_UNKNOWN, gov = 0, ret;

		g1 = __atomic_load_n(&c->gen[cpu], __ATOMIC_SEQ_CST);
		b1 = __atomic_load_n(&c->busy[cpu], __ATOMIC_SEQ_CST);
		stable = b1 == 0;
		if (stable) {
			dis = shadow_disabled(c, cpu);
			qos_us = shadow_qos(c);
			den = __atomic_load_n(&c->dev_enabled[cpu], __ATOMIC_RELAXED);
			gov = __atomic_load_n(&c->cur_gov, __ATOMIC_RELAXED);
		}

		/* stays from 0.5 us to ~4 ms, some very short; timers later, or none */
		switch ((r >> 1) & 3) {
		case 0:
			stay = 500 + (int64_t)((r >> 8) % 30000);
			break;
		case 1:
			stay = 500 + (int64_t)((r >> 8) % 300000);
			break;
		default:
			stay = 500 + (int64_t)((r >> 8) % 4000000);
			break;
		}
		timer = ((r >> 40) & 15) == 0 ? CPUIDLE_TIME_INFINITE :
			stay + (int64_t)((r >> 20) % 1000000);
		w->reject_next = ((r >> 44) & 31) == 0;
		w->enter_state = -1;
		w->stay = -1;
		w->decider = NULL;
		w->decisions = w->reflects = 0;
		c->fx.stay_ns[cpu] = stay;
		ctx = (struct cpuidle_idle_ctx){
			.sleep_length_ns = timer,
			.delta_tick_ns = tick_running && timer > tick ? tick : timer,
			.tick_stopped = !tick_running,
		};
		ret = cpuidle_idle_call(&c->fx.dev[cpu], &ctx);
		w->attempts++;

		stable = stable && __atomic_load_n(&c->busy[cpu], __ATOMIC_SEQ_CST) == 0 &&
			 __atomic_load_n(&c->gen[cpu], __ATOMIC_SEQ_CST) == g1;

		/* what any call must satisfy */
		if (w->decisions > 1 || w->reflects > 1 ||
		    (w->decider && w->decided != ctx.selected))
			conc_fail(c, "cpu%d: %d select() and %d reflect() logged, %d vs %d",
				  cpu, w->decisions, w->reflects, w->decided, ctx.selected);
		if (ret >= 0) {
			if (ret >= NR_STATES || ret != ctx.selected || ret != ctx.entered ||
			    ret != w->enter_state || w->stay < 0)
				conc_fail(c, "cpu%d: entered %d, selected %d, ctx %d, enter() %d",
					  cpu, ret, ctx.selected, ctx.entered, w->enter_state);
			else if (w->decider && (w->reflects != 1 || w->reflected != ret))
				conc_fail(c, "cpu%d: reflect() not told %d", cpu, ret);
			else {
				w->entered++;
				w->usage[ret]++;
				w->time_ns[ret] += (uint64_t)w->stay;
			}
		} else if (ret == -EIO) {
			if (ctx.selected < 0 || ctx.selected >= NR_STATES ||
			    w->enter_state != ctx.selected || ctx.entered != -1 || w->reflects)
				conc_fail(c, "cpu%d: refused %d, selected %d, ctx %d", cpu,
					  w->enter_state, ctx.selected, ctx.entered);
			else
				w->rejected[ctx.selected]++;
			w->refused++;
		} else if (ret == -EAGAIN || ret == -ENODEV || ret == -EBUSY) {
			if (w->enter_state != -1 || ctx.selected != -1 || w->decisions)
				conc_fail(c, "cpu%d: %d after select() or enter()", cpu, ret);
			w->paused += ret == -EAGAIN;
			w->nodev += ret == -ENODEV;
			w->busy += ret == -EBUSY;
			sched_yield();	/* the embedding's default idle */
		} else {
			conc_fail(c, "cpu%d: idle call gave %d", cpu, ret);
		}

		if (stable)
			judge_call(w, &ctx, ret, dis, qos_us, den, gov);
		else if (ret >= 0)
			w->unjudged[ret]++;
	}
	__atomic_fetch_add(&c->workers_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---------------------------------------------------------------- control side */

struct ctl {
	struct conc *c;
	int id;
	uint64_t seed;
	void (*round)(struct ctl *t, unsigned int n);
	int arg;			/* the QoS threads: which one */
	/* the reader's last values: usage, time, above, below, rejected */
	unsigned long long seen[NR_CPUS][NR_STATES][5];
};

static void *ctl_fn(void *arg)
{
	struct ctl *t = arg;
	struct conc *c = t->c;
	unsigned int n = 0;

	while (!workers_done(c)) {
		t->round(t, n);
		__atomic_store_n(&c->rounds[t->id], ++n, __ATOMIC_RELAXED);
		/* leave the workers some calls no control call overlaps */
		if (rnd(&t->seed) & 1)
			sched_yield();
		else
			nanosleep(&(struct timespec){ .tv_nsec = 20000 }, NULL);
	}
	return NULL;
}

/* Governors: every one in turn, by the API, by the tree, or under a pause. */
static void round_governor(struct ctl *t, unsigned int n)
{
	struct conc *c = t->c;
	int g = (int)(n % NR_GOVS), cur = c->cur_gov, ret, i;
	const char *name = c->govs[g]->name;
	unsigned int how = (n / NR_GOVS) % 4;
	char buf[CPUIDLE_NAME_LEN + 2];

	/* 19 and 17: not NR_GOVS, whose every governor must come in turn */
	_Static_assert(NR_GOVS != 19 && NR_GOVS != 17, "a governor would never be switched to");
	if (n % 19 == 6) {
		/* the extra governor comes and goes; never while it is current */
		if (c->extra_registered) {
			ret = cpuidle_unregister_governor(c->fx.sys, &c->extra.gov);
			if (ret != (cur == GOV_EXTRA ? -EBUSY : 0))
				conc_fail(c, "unregister %s: %d", c->extra.gov.name, ret);
			if (!ret)
				c->extra_registered = 0;
		} else {
			ret = cpuidle_register_governor(c->fx.sys, &c->extra.gov);
			if (ret)
				conc_fail(c, "register %s: %d", c->extra.gov.name, ret);
			else
				c->extra_registered = 1;
		}
		return;
	}
	if (n % 17 == 3) {
		/* sysfs compares case-sensitively */
		if (cpuidle_switch_governor(c->fx.sys, "MENU") != -EINVAL ||
		    cpuidle_attr_write(c->fx.sys, "cpuidle/current_governor",
				       "nosuch\n") != -EINVAL)
			conc_fail(c, "a switch to no governor did not fail");
		if (cpuidle_current_governor(c->fx.sys) != c->govs[cur])
			conc_fail(c, "a failed switch changed the governor");
		return;
	}
	if (g == GOV_EXTRA && !c->extra_registered) {
		if (cpuidle_switch_governor(c->fx.sys, name) != -EINVAL)
			conc_fail(c, "switched to the unregistered %s", name);
		return;
	}

	ctl_begin(c, ALL_CPUS);
	switch (how) {
	case 0:
		ret = cpuidle_switch_governor(c->fx.sys, name);
		break;
	case 1:
		snprintf(buf, sizeof(buf), "%s\n", name);
		ret = cpuidle_attr_write(c->fx.sys, "cpuidle/current_governor", buf);
		break;
	default:
		/* inside a pause: the switch finds the system paused already */
		cpuidle_pause_and_lock(c->fx.sys);
		__atomic_store_n(&c->paused_by_test, 1, __ATOMIC_SEQ_CST);
		if (how == 3)	/* and the current one again: nothing changes */
			ret = cpuidle_switch_governor(c->fx.sys, c->govs[cur]->name);
		else
			ret = cpuidle_switch_governor(c->fx.sys, name);
		if (!ret && how == 2 && g != cur)
			for (i = 0; i < NR_CPUS; i++)
				__atomic_store_n(&c->dev_enabled[i], 1, __ATOMIC_RELAXED);
		if (how == 3)
			g = cur;
		if (!ret)
			__atomic_store_n(&c->cur_gov, g, __ATOMIC_RELAXED);
		__atomic_store_n(&c->paused_by_test, 0, __ATOMIC_SEQ_CST);
		cpuidle_resume_and_unlock(c->fx.sys);
		break;
	}
	if (!ret && how < 2) {
		/*
		 * A switch re-enables every device; the device thread may
		 * have disabled one since, which only it knows.
		 */
		if (g != cur)
			for (i = 0; i < NR_CPUS; i++)
				__atomic_store_n(&c->dev_enabled[i], DEV_UNKNOWN, __ATOMIC_RELAXED);
		__atomic_store_n(&c->cur_gov, g, __ATOMIC_RELAXED);
	}
	ctl_end(c, ALL_CPUS);
	if (ret)
		conc_fail(c, "switch to %s (way %u): %d", name, how, ret);
	else
		c->switches[g]++;
	if (cpuidle_current_governor(c->fx.sys) != c->govs[c->cur_gov])
		conc_fail(c, "current governor is not %s", c->govs[c->cur_gov]->name);
}

/*
 * States through the API: the user's bit on CPUs 0 and 1, the driver's on
 * every CPU (on 2 and 3 alongside the tree thread's user bits).
 */
static void round_states_api(struct ctl *t, unsigned int n)
{
	struct conc *c = t->c;
	uint64_t r = rnd(&t->seed);
	int cpu = (int)(r % NR_CPUS), s = (int)((r >> 8) % NR_STATES), ret;
	bool driver = cpu >= 2 || ((r >> 16) & 1);
	bool off = (r >> 20) % 3 == 0;	/* a third of the bits set */
	unsigned int bit = 1u << (s + (driver ? DRIVER_SHIFT : USER_SHIFT));

	(void)n;
	ctl_begin(c, 1u << cpu);
	ret = cpuidle_disable_state(&c->fx.dev[cpu], s, driver ?
				    CPUIDLE_STATE_DISABLED_BY_DRIVER :
				    CPUIDLE_STATE_DISABLED_BY_USER, off);
	if (off)
		__atomic_fetch_or(&c->dis[cpu], bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&c->dis[cpu], ~bit, __ATOMIC_RELAXED);
	ctl_end(c, 1u << cpu);
	if (ret)
		conc_fail(c, "cpuidle_disable_state(cpu%d, %d): %d", cpu, s, ret);
}

#define HALTPOLL_PARAM	"module/haltpoll/parameters/"

/* States through the tree: the user's bit on CPUs 2 and 3; haltpoll's tunables. */
static void round_states_attr(struct ctl *t, unsigned int n)
{
	static const char *const on[] = { "1", "1\n", "0x1", "+7", "010" };
	static const char *const off[] = { "0", "0\n", "0x0", "+0", "00" };
	struct conc *c = t->c;
	uint64_t r = rnd(&t->seed);
	int cpu = 2 + (int)(r & 1), s = (int)((r >> 8) % NR_STATES), ret;
	bool set = (r >> 20) % 3 == 0;
	unsigned int bit = 1u << (s + USER_SHIFT), v;
	char path[64], buf[32];

	snprintf(path, sizeof(path), "cpu%d/cpuidle/state%d/disable", cpu, s);
	ctl_begin(c, 1u << cpu);
	ret = cpuidle_attr_write(c->fx.sys, path, (set ? on : off)[(r >> 24) % 5]);
	if (set)
		__atomic_fetch_or(&c->dis[cpu], bit, __ATOMIC_RELAXED);
	else
		__atomic_fetch_and(&c->dis[cpu], ~bit, __ATOMIC_RELAXED);
	ctl_end(c, 1u << cpu);
	if (ret)
		conc_fail(c, "write %s: %d", path, ret);
	/* only this thread writes that bit: it reads back exactly */
	if (cpuidle_attr_read(c->fx.sys, path, buf, sizeof(buf)) != 2 ||
	    buf[0] != (set ? '1' : '0'))
		conc_fail(c, "%s reads %s after %d", path, buf, set);

	/* the spare: it may be gone, or be back under another number */
	snprintf(path, sizeof(path), "cpu%u/cpuidle/state%d/disable",
		 __atomic_load_n(&c->spare_cpu, __ATOMIC_RELAXED), s);
	ret = cpuidle_attr_write(c->fx.sys, path, (set ? on : off)[(r >> 24) % 5]);
	if (ret && ret != -ENOENT)
		conc_fail(c, "write %s: %d", path, ret);

	if (n % 4 == 0) {
		/* read lock-free by haltpoll; only this thread writes them */
		v = 20000 + (unsigned int)((r >> 32) % 400000);
		snprintf(buf, sizeof(buf), "%u\n", v);
		ret = cpuidle_attr_write(c->fx.sys, HALTPOLL_PARAM "guest_halt_poll_ns", buf);
		ret = ret ? ret : cpuidle_attr_write(c->fx.sys,
			HALTPOLL_PARAM "guest_halt_poll_allow_shrink", n & 8 ? "N" : "Y");
		if (ret)
			conc_fail(c, "haltpoll parameters: %d", ret);
		snprintf(path, sizeof(path), "%u\n", v);
		if (cpuidle_attr_read(c->fx.sys, HALTPOLL_PARAM "guest_halt_poll_ns",
				      buf, sizeof(buf)) < 0 || strcmp(buf, path))
			conc_fail(c, "guest_halt_poll_ns reads %s, %u written", buf, v);
	}
}

/* QoS: this thread's requests come, change and go. */
static void round_qos(struct ctl *t, unsigned int n)
{
	struct conc *c = t->c;
	int q = t->arg;
	uint64_t r = rnd(&t->seed);
	int k = (int)(r % QOS_SLOTS), ret, op;
	int32_t v = qos_values[(r >> 8) % FX_ARRAY_SIZE(qos_values)], cur = c->qos[q][k];
	int32_t resolved = v == PM_QOS_DEFAULT_VALUE ? PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE : v;
	char name[32];

	(void)n;
	snprintf(name, sizeof(name), "qos%d-%d", q, k);
	if ((r >> 16) % 16 == 0) {
		/* misuse, answered without effect */
		if (cur == QOS_ABSENT)
			ret = pm_qos_remove_requirement(c->fx.sys, PM_QOS_CPU_DMA_LATENCY, name);
		else
			ret = pm_qos_add_requirement(c->fx.sys, PM_QOS_CPU_DMA_LATENCY, name, v);
		if (ret != (cur == QOS_ABSENT ? -ENOENT : -EEXIST))
			conc_fail(c, "QoS misuse of %s: %d", name, ret);
		return;
	}
	ctl_begin(c, ALL_CPUS);
	if (cur == QOS_ABSENT) {
		ret = pm_qos_add_requirement(c->fx.sys, PM_QOS_CPU_DMA_LATENCY, name, v);
		op = 1;
		__atomic_store_n(&c->qos[q][k], resolved, __ATOMIC_RELAXED);
	} else if ((r >> 20) & 1) {
		ret = pm_qos_update_requirement(c->fx.sys, PM_QOS_CPU_DMA_LATENCY, name, v);
		op = 2;
		__atomic_store_n(&c->qos[q][k], resolved, __ATOMIC_RELAXED);
	} else {
		ret = pm_qos_remove_requirement(c->fx.sys, PM_QOS_CPU_DMA_LATENCY, name);
		op = 3;
		__atomic_store_n(&c->qos[q][k], QOS_ABSENT, __ATOMIC_RELAXED);
	}
	ctl_end(c, ALL_CPUS);
	if (ret)
		conc_fail(c, "QoS request %s (op %d): %d", name, op, ret);
}

/* Pause (nested too), probe, disable or enable a device, resume. */
static void round_devices(struct ctl *t, unsigned int n)
{
	struct conc *c = t->c;
	uint64_t r = rnd(&t->seed);
	int cpu = (int)(r % NR_CPUS), i, ret;
	bool enable = (r >> 8) % 3 != 0, nested = (r >> 12) & 1;

	(void)n;
	if (cpuidle_enable_device(&c->fx.dev[cpu]) != -EPERM ||
	    cpuidle_disable_device(&c->fx.dev[cpu]) != -EPERM)
		conc_fail(c, "device enable/disable without the pause did not fail");
	ret = cpuidle_disable_device(&c->spare);	/* and the spare may be gone */
	if (ret != -EPERM && ret != -ENOENT)
		conc_fail(c, "spare device disabled without the pause: %d", ret);

	ctl_begin(c, ALL_CPUS);
	cpuidle_pause_and_lock(c->fx.sys);
	__atomic_store_n(&c->paused_by_test, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < NR_CPUS; i++)
		if (__atomic_load_n(&c->in_enter[i], __ATOMIC_SEQ_CST))
			conc_fail(c, "cpu%d inside enter() after the pause", i);
	if (nested)
		cpuidle_pause_and_lock(c->fx.sys);
	for (i = 0; i < NR_CPUS; i++) {
		/* an idle call now stays out: -EAGAIN, or -EBUSY if the worker is at it */
		struct cpuidle_idle_ctx ctx = { .sleep_length_ns = CPUIDLE_TIME_INFINITE,
						.delta_tick_ns = CPUIDLE_TIME_INFINITE };

		ret = cpuidle_idle_call(&c->fx.dev[i], &ctx);
		if (ret != -EAGAIN && ret != -EBUSY)
			conc_fail(c, "cpu%d: idle call while paused gave %d", i, ret);
	}
	{
		/* the spare: out while paused, or gone (the pause keeps it as it is) */
		struct cpuidle_idle_ctx ctx = { .sleep_length_ns = CPUIDLE_TIME_INFINITE,
						.delta_tick_ns = CPUIDLE_TIME_INFINITE };
		unsigned int spare = __atomic_load_n(&c->spare_cpu, __ATOMIC_RELAXED);
		bool there = cpuidle_get_device(c->fx.sys, spare) == &c->spare;

		ret = cpuidle_idle_call(&c->spare, &ctx);
		if (ret != (there ? -EAGAIN : -ENODEV))
			conc_fail(c, "spare cpu%u (%s): idle call while paused gave %d", spare,
				  there ? "registered" : "gone", ret);
	}
	if (nested)
		cpuidle_resume_and_unlock(c->fx.sys);	/* still paused */
	if ((r >> 16) % 4) {
		ret = enable ? cpuidle_enable_device(&c->fx.dev[cpu]) :
			       cpuidle_disable_device(&c->fx.dev[cpu]);
		if (ret)
			conc_fail(c, "cpu%d: %s device: %d", cpu,
				  enable ? "enable" : "disable", ret);
		__atomic_store_n(&c->dev_enabled[cpu], enable, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&c->paused_by_test, 0, __ATOMIC_SEQ_CST);
	cpuidle_resume_and_unlock(c->fx.sys);
	ctl_end(c, ALL_CPUS);
}

/* The spare device goes, and comes back, maybe under another number. */
static void round_hotplug(struct ctl *t, unsigned int n)
{
	static const unsigned int cpus[] = { 4, 13, 42, 1000 };
	struct conc *c = t->c;
	struct cpuidle_system *sys = c->fx.sys;
	unsigned int cpu = c->spare_cpu;
	int ret, s;

	if (c->spare_registered) {
		ctl_begin(c, ALL_CPUS);	/* it pauses every CPU, even to refuse */
		ret = cpuidle_unregister_device(sys, &c->spare);
		if (ret)
			conc_fail(c, "unregister cpu%u: %d", cpu, ret);
		__atomic_store_n(&c->spare_registered, 0, __ATOMIC_RELAXED);
		if (cpuidle_get_device(sys, cpu) ||
		    cpuidle_unregister_device(sys, &c->spare) != -ENOENT)
			conc_fail(c, "cpu%u still there after its unregistration", cpu);
		ctl_end(c, ALL_CPUS);
		return;
	}
	cpu = cpus[n / 2 % FX_ARRAY_SIZE(cpus)];
	__atomic_store_n(&c->spare_cpu, cpu, __ATOMIC_RELAXED);
	c->spare.cpu = cpu;
	ret = cpuidle_register_device(sys, &c->spare);
	if (ret) {
		conc_fail(c, "register cpu%u: %d", cpu, ret);
		return;
	}
	__atomic_store_n(&c->spare_registered, 1, __ATOMIC_RELAXED);
	for (s = 0; s < NR_STATES; s++)
		if (c->spare.states_usage[s].usage || c->spare.states_usage[s].time_ns)
			conc_fail(c, "cpu%u registered again with state%d used", cpu, s);
	if (cpuidle_get_device(sys, cpu) != &c->spare ||
	    cpuidle_register_device(sys, &c->spare) != -EEXIST)
		conc_fail(c, "cpu%u: registered, not found or registered twice", cpu);
}

/* what a walk of the tree saw: governors' tunables apart from the rest */
struct walk_count {
	int files;
	int params;	/* module/GOVERNOR/parameters/... */
};

static int walk_visit(const char *path, const char *value, bool writable, void *arg)
{
	struct walk_count *n = arg;
	size_t len = strlen(value);

	(void)writable;
	if (!strncmp(path, "module/", 7))
		n->params++;
	else
		n->files++;
	return len && value[len - 1] == '\n' ? 0 : -EBADMSG;
}

static unsigned long long read_counter(struct ctl *t, int cpu, int s, const char *file)
{
	char path[64], buf[32];
	ssize_t len;

	snprintf(path, sizeof(path), "cpu%d/cpuidle/state%d/%s", cpu, s, file);
	len = cpuidle_attr_read(t->c->fx.sys, path, buf, sizeof(buf));
	if (len < 2 || buf[len - 1] != '\n') {
		conc_fail(t->c, "read %s: %zd", path, len);
		return 0;
	}
	return strtoull(buf, NULL, 10);
}

/* Reads while the idle calls run: counters only grow, and agree. */
static void round_reader(struct ctl *t, unsigned int n)
{
	static const char *const files[] = { "above", "below", "rejected", "time", "usage" };
	struct conc *c = t->c;
	uint64_t r = rnd(&t->seed);
	int cpu = (int)(r % NR_CPUS), s = (int)((r >> 8) % NR_STATES), f, i, params = 0;
	struct walk_count walk = { 0 };
	unsigned long long v[5];
	char buf[256], path[64];
	ssize_t len;
	int32_t q;
	bool known;

	/* usage last: above and below read before it cannot exceed it */
	for (f = 0; f < 5; f++) {
		v[f] = read_counter(t, cpu, s, files[f]);
		if (v[f] < t->seen[cpu][s][f])
			conc_fail(c, "cpu%d state%d %s went back from %llu to %llu", cpu, s,
				  files[f], t->seen[cpu][s][f], v[f]);
		t->seen[cpu][s][f] = v[f];
	}
	if (v[0] + v[1] > v[4])
		conc_fail(c, "cpu%d state%d: above %llu + below %llu > usage %llu", cpu, s,
			  v[0], v[1], v[4]);
	if (cpuidle_get_device(c->fx.sys, (unsigned int)cpu) != &c->fx.dev[cpu])
		conc_fail(c, "cpuidle_get_device(%d)", cpu);
	/* the spare: never idle, maybe gone */
	snprintf(path, sizeof(path), "cpu%u/cpuidle/state%d/usage",
		 __atomic_load_n(&c->spare_cpu, __ATOMIC_RELAXED), s);
	len = cpuidle_attr_read(c->fx.sys, path, buf, sizeof(buf));
	if (len != -ENOENT && (len != 2 || strcmp(buf, "0\n")))
		conc_fail(c, "%s: %zd", path, len);
	i = cpuidle_find_deepest_state(&c->fx.dev[cpu], CPUIDLE_TIME_INFINITE, 0);
	if (i < 0 || i >= NR_STATES)
		conc_fail(c, "cpuidle_find_deepest_state(cpu%d): %d", cpu, i);

	if (cpuidle_attr_read(c->fx.sys, "cpuidle/current_governor", buf, sizeof(buf)) < 2)
		conc_fail(c, "read current_governor");
	buf[strcspn(buf, "\n")] = '\0';
	for (known = false, i = 0; i < NR_GOVS; i++)
		known |= !strcmp(buf, c->govs[i]->name);
	if (!known)
		conc_fail(c, "current_governor reads %s", buf);
	if (cpuidle_attr_read(c->fx.sys, "cpuidle/available_governors", buf, sizeof(buf)) < 2 ||
	    !strstr(buf, "ladder menu teo haltpoll hazard cluster menu@6.18 menu@7.1 teo@6.18 "
		    "teo@7.1 ladder+trace menu+trace teo+trace haltpoll+trace hazard+trace "
		    "cluster+trace"))
		conc_fail(c, "available_governors reads %s", buf);

	q = pm_qos_requirement(c->fx.sys, PM_QOS_CPU_DMA_LATENCY);
	for (known = q == PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE, i = 0;
	     i < FX_ARRAY_SIZE(qos_values); i++)
		known |= q == qos_values[i];
	if (!known)
		conc_fail(c, "QoS aggregate %d", q);

	if (n % 32 == 0) {
		/*
		 * 4 cpuidle/ files, 12 per state and one power/ file per CPU;
		 * the spare's, if there, and maybe twice (partly, under two
		 * numbers).  Apart: each registered governor's tunables, the
		 * extra one's as it comes and goes (their count was once a
		 * constant here, which governors with tunables added since
		 * outgrew: 306 files against 304 allowed, under load).
		 */
		for (i = 0; i < GOV_EXTRA; i++)
			params += (int)c->govs[i]->nr_params;
		if (cpuidle_attr_walk(c->fx.sys, walk_visit, &walk) ||
		    walk.files < 4 + NR_CPUS * (NR_STATES * 12 + 1) ||
		    walk.files > 4 + (NR_CPUS + 2) * (NR_STATES * 12 + 1) ||
		    walk.params < params || walk.params > params + (int)c->extra.gov.nr_params)
			conc_fail(c, "walk: %d files, %d governors' tunables (%d, or %d more)",
				  walk.files, walk.params, params, (int)c->extra.gov.nr_params);
	}
}

/* ---------------------------------------------------------------- the test */

static void conc_init(struct conc *c)
{
	const struct cpuidle_governor *const *b = cpuidle_builtin_governors();
	int i, s;

	memset(c, 0, sizeof(*c));
	fx_init(&c->fx, fx_four, FX_ARRAY_SIZE(fx_four), NR_CPUS, 0);
	for (i = 0; i < NR_BUILTIN; i++) {
		assert_non_null(b[i]);
		c->govs[i] = b[i];
		assert_int_equal(cpuidle_governor_tracer_init(&c->tracers[i], b[i], conc_log,
							      &c->tracers[i]), 0);
		assert_int_equal(cpuidle_register_governor(c->fx.sys, &c->tracers[i].gov), 0);
		c->govs[NR_BUILTIN + i] = &c->tracers[i].gov;
	}
	assert_null(b[NR_BUILTIN]);
	assert_int_equal(cpuidle_governor_tracer_init(&c->extra, b[1], conc_log, &c->extra), 0);
	strcpy(c->extra.gov.name, "extra");
	c->extra.gov.rating = 0;
	c->govs[GOV_EXTRA] = &c->extra.gov;
	/* chosen by name: no registration takes over from now on */
	assert_int_equal(cpuidle_switch_governor(c->fx.sys, "ladder"), 0);
	c->cur_gov = 0;

	for (i = 0; i < NR_CPUS; i++) {
		struct worker *w = &c->w[i];

		for (s = 0; s < NR_STATES; s++)
			c->fx.dev[i].states[s].enter = conc_enter;
		c->fx.dev[i].embed_data = w;
		c->dev_enabled[i] = 1;
		w->c = c;
		w->cpu = i;
		w->seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
		w->start_clock = c->fx.clock[i];
	}
	for (i = 0; i < NR_QOS_THREADS; i++)
		for (s = 0; s < QOS_SLOTS; s++)
			c->qos[i][s] = QOS_ABSENT;
	c->spare.cpu = c->spare_cpu = NR_CPUS;	/* the driver's states */
	assert_int_equal(cpuidle_register_device(c->fx.sys, &c->spare), 0);
	c->spare_registered = 1;
	clock_gettime(CLOCK_MONOTONIC, &c->t0);
}

static void check_device(struct conc *c, int cpu)
{
	const struct cpuidle_device *dev = &c->fx.dev[cpu];
	const struct worker *w = &c->w[cpu];
	uint64_t usage = 0, time_ns = 0;
	unsigned int user = 0, driver = 0, m = c->dis[cpu];
	int s;

	for (s = 0; s < NR_STATES; s++) {
		const struct cpuidle_state_usage *st = &dev->states_usage[s];

		assert_int_equal(st->usage, w->usage[s]);
		assert_int_equal(st->time_ns, w->time_ns[s]);
		assert_int_equal(st->time, st->time_ns / 1000);
		assert_int_equal(st->rejected, w->rejected[s]);
		assert_true(st->above + st->below <= st->usage);
		assert_in_range(st->above, w->above[s], w->above[s] + w->unjudged[s]);
		assert_in_range(st->below, w->below[s], w->below[s] + w->unjudged[s]);
		usage += st->usage;
		time_ns += st->time_ns;
		user |= (st->disable & CPUIDLE_STATE_DISABLED_BY_USER) << s;
		driver |= !!(st->disable & CPUIDLE_STATE_DISABLED_BY_DRIVER) << s;
	}
	assert_int_equal(dev->states_usage[0].above, 0);	/* nothing shallower */
	assert_int_equal(dev->states_usage[NR_STATES - 1].below, 0);	/* nothing deeper */
	assert_int_equal(usage, w->entered);
	/* only enter() moves the clock: the states' time is all the time */
	assert_int_equal(time_ns, c->fx.clock[cpu] - w->start_clock);
	assert_int_equal(user, (m >> USER_SHIFT) & 0xf);
	assert_int_equal(driver, (m >> DRIVER_SHIFT) & 0xf);

	assert_true(w->entered >= MIN_ENTRIES);
	assert_true(w->judged >= MIN_JUDGED);
	print_message("cpu%d: %llu calls, %llu entered, %llu judged, %llu refused, "
		      "%llu -ENODEV, %llu -EAGAIN, %llu -EBUSY\n", cpu,
		      (unsigned long long)w->attempts, (unsigned long long)w->entered,
		      (unsigned long long)w->judged, (unsigned long long)w->refused,
		      (unsigned long long)w->nodev, (unsigned long long)w->paused,
		      (unsigned long long)w->busy);
}

static void test_concurrent_idle_and_control(void **state)
{
	static const struct {
		void (*round)(struct ctl *t, unsigned int n);
		int arg;
	} plan[] = {
		{ round_governor, 0 }, { round_states_api, 0 }, { round_states_attr, 0 },
		{ round_qos, 0 }, { round_qos, 1 }, { round_devices, 0 },
		{ round_reader, 0 }, { round_hotplug, 0 },
	};
	enum { NR_CTL = sizeof(plan) / sizeof(plan[0]) };
	struct ctl *ctl = calloc(NR_CTL, sizeof(*ctl));
	struct conc *c = malloc(sizeof(*c));
	pthread_t wt[NR_CPUS], ct[NR_CTL];
	uint64_t judged_under[NR_GOVS] = { 0 };
	int i, g;

	(void)state;
	assert_non_null(c);
	assert_non_null(ctl);
	conc_init(c);
	assert_true(NR_CTL <= FX_ARRAY_SIZE(c->rounds));
	assert_true(NR_QOS_THREADS == 2);
	c->nr_ctl = NR_CTL;
	for (i = 0; i < NR_CTL; i++) {
		ctl[i] = (struct ctl){ .c = c, .id = i, .round = plan[i].round,
				       .arg = plan[i].arg,
				       .seed = 0x2545f4914f6cdd1dull * (uint64_t)(i + 1) };
		assert_int_equal(pthread_create(&ct[i], NULL, ctl_fn, &ctl[i]), 0);
	}
	for (i = 0; i < NR_CPUS; i++)
		assert_int_equal(pthread_create(&wt[i], NULL, worker_fn, &c->w[i]), 0);
	for (i = 0; i < NR_CPUS; i++)
		pthread_join(wt[i], NULL);
	for (i = 0; i < NR_CTL; i++)
		pthread_join(ct[i], NULL);

	if (c->failures)
		fail_msg("%u failures; the first: %s", c->failures, c->why);
	assert_true(controls_done(c));
	for (i = 0; i < NR_CPUS; i++)
		check_device(c, i);
	for (i = 0; i < NR_CPUS; i++)
		for (g = 0; g < NR_GOVS; g++)
			judged_under[g] += c->w[i].under_gov[g];
	for (g = 0; g < NR_GOVS; g++) {
		print_message("%-15s %4llu switches, %6llu entries judged\n", c->govs[g]->name,
			      (unsigned long long)c->switches[g],
			      (unsigned long long)judged_under[g]);
		assert_true(c->switches[g] > 0);
		assert_true(judged_under[g] >= MIN_GOV_JUDGED);
	}
	assert_int_equal(pm_qos_requirement(c->fx.sys, PM_QOS_CPU_DMA_LATENCY), shadow_qos(c));
	assert_ptr_equal(cpuidle_current_governor(c->fx.sys), c->govs[c->cur_gov]);
	assert_true(__atomic_load_n(&c->fx.kicks, __ATOMIC_RELAXED) > 0);
	for (i = 0; i < NR_CPUS; i++) {
		/* a device the shadow knows: idle calls agree with it */
		struct cpuidle_idle_ctx ctx = { .sleep_length_ns = 1000000,
						.delta_tick_ns = 1000000 };
		int ret;

		if (c->dev_enabled[i] == DEV_UNKNOWN)
			continue;
		c->w[i].reject_next = false;
		c->fx.stay_ns[i] = 1000;
		ret = cpuidle_idle_call(&c->fx.dev[i], &ctx);
		if (c->dev_enabled[i])
			assert_true(ret >= 0);
		else
			assert_int_equal(ret, -ENODEV);
	}
	fx_fini(&c->fx);
	free(c);
	free(ctl);
}

/* Several systems, each driven by its own thread, do not interfere. */
struct sysrun {
	struct fixture fx;
	const char *gov;
};

#define SIDE_ENTRIES	30000

static void *run_system(void *arg)
{
	struct sysrun *r = arg;
	int i;

	for (i = 0; i < SIDE_ENTRIES; i++)
		fx_idle(&r->fx, 0, 1000 + (i % 7) * 300000 + (i % 5) * 7000,
			i % 3 ? 3000000 : 150000, i & 1);
	return NULL;
}

/* Every built-in governor on two systems at once: each pair agrees exactly. */
static void test_systems_side_by_side(void **state)
{
	const struct cpuidle_governor *const *b = cpuidle_builtin_governors();
	struct sysrun *runs = calloc(2 * NR_BUILTIN, sizeof(*runs));
	pthread_t tid[2 * NR_BUILTIN];
	int i, s;

	(void)state;
	assert_non_null(runs);
	for (i = 0; i < 2 * NR_BUILTIN; i++) {
		runs[i].gov = b[i % NR_BUILTIN]->name;
		fx_init(&runs[i].fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
		assert_int_equal(cpuidle_switch_governor(runs[i].fx.sys, runs[i].gov), 0);
	}
	for (i = 0; i < 2 * NR_BUILTIN; i++)
		assert_int_equal(pthread_create(&tid[i], NULL, run_system, &runs[i]), 0);
	for (i = 0; i < 2 * NR_BUILTIN; i++)
		pthread_join(tid[i], NULL);
	/* the same input gives the same decisions */
	for (i = 0; i < NR_BUILTIN; i++) {
		const struct cpuidle_device *a = &runs[i].fx.dev[0];
		const struct cpuidle_device *z = &runs[i + NR_BUILTIN].fx.dev[0];
		uint64_t usage = 0;

		for (s = 0; s < NR_STATES; s++) {
			assert_int_equal(a->states_usage[s].usage, z->states_usage[s].usage);
			assert_int_equal(a->states_usage[s].time_ns, z->states_usage[s].time_ns);
			assert_int_equal(a->states_usage[s].above, z->states_usage[s].above);
			assert_int_equal(a->states_usage[s].below, z->states_usage[s].below);
			usage += a->states_usage[s].usage;
		}
		assert_int_equal(usage, SIDE_ENTRIES);
		assert_int_equal(runs[i].fx.clock[0], runs[i + NR_BUILTIN].fx.clock[0]);
	}
	for (i = 0; i < 2 * NR_BUILTIN; i++)
		fx_fini(&runs[i].fx);
	free(runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concurrent_idle_and_control),
		cmocka_unit_test(test_systems_side_by_side),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
