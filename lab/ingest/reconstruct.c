// SPDX-License-Identifier: MIT
/*
 * reconstruct.c - from trace events to idle intervals.
 *
 * DOC: reconstruction
 *
 * Events arrive in file order, CPUs interleaved and, in traces we have not
 * seen, not strictly ordered across CPUs.  They first pass through a reorder
 * buffer that holds REORDER_WINDOW_NS of trace time, so cross-CPU effects (a
 * wake-up aimed at this CPU, a timer cancelled from another) apply in time
 * order.  Each CPU then runs a small state machine:
 *
 * - idle entry opens an interval (or continues the previous one, below),
 *   noting the kernel's state, the QoS in force and the next timer;
 * - the first wake event inside it (local timer, IPI, device IRQ) is the
 *   wake-up: its time ends the true idle length; a local timer is refined
 *   to "tick" or "timer" by the hrtimer that expires in its handler;
 * - idle exit leaves the interval pending until the next entry decides:
 *   if nothing woke the CPU (no wake event: the polling state's time limit
 *   ran out), or only the tick did and no task was woken for this CPU
 *   before it re-entered idle within MERGE_GAP_NS, the re-entry belongs to
 *   the same interval; otherwise the pending interval is complete and its
 *   busy time is the gap.
 *
 * Timers.  Every hrtimer is followed by address: started (on the CPU that
 * started it, where Linux queues it unless it migrates), cancelled or
 * expired.  The next timer of a CPU at idle entry is its earliest armed
 * hrtimer other than the tick, plus the tick's own expiry when the tick was
 * stopped (the stopped tick is programmed to the next timer-wheel event).
 * Timers armed before the trace began cannot be seen, so a CPU's timer is
 * "unknown" until its tick hrtimer has been programmed once in the trace.
 *
 * An interval that no interrupt ended, where a task was woken for the CPU
 * during its last entry or first thing after it, is flagged IV_TASK_WAKE:
 * need_resched ended it (a polling CPU is woken without an IPI), not the
 * polling state's time limit.
 *
 * For the comparison with the kernel (cpuidle fidelity), an interval also
 * keeps, per merged entry, whether the kernel's tick ended it and which
 * polling window haltpoll logged after it (power:guest_halt_poll_ns, from
 * reflect(): after the exit, before the next entry) and how long the kernel
 * stayed in it (exit minus entry), and the time the kernel spent between
 * its re-entries.
 *
 * The trace's first and last intervals of each CPU are cut: they are
 * emitted with IV_PARTIAL_START / IV_PARTIAL_END and the replay skips them.
 * So is an interval across a place where the tracer lost events of its
 * CPU (TEV_LOST): its end, its wake-up or its timers may be among them.
 *
 * Order.  An event older than the newest by more than the reorder window
 * cannot be put in its place: the trace is not in time order (events
 * shuffled, two traces concatenated, perf script --deltatime or
 * --reltime), and no interval built from it can be trusted: an error.
 *
 * The trace clock.  Timer expiries (hrtimer_start expires=) are in the
 * timer's clock base, CLOCK_MONOTONIC for the tick; the trace's timestamps
 * are in the tracer's clock, which is not CLOCK_MONOTONIC under perf
 * record's default clock, tracefs' trace_clock=local, or perf script
 * --reltime.  Each expiry of a tick logs the base's time (now=) a few
 * microseconds before its own timestamp, so the median of now - ts over
 * the last CLOCK_SAMPLES tick expiries measures the offset between the two
 * clocks.  Within CLOCK_TOLERANCE_NS of 0 nothing changes.  Otherwise
 * every expiry is moved into trace time by it (following a drift), and the
 * intervals that began before it was measured (held back until then) are
 * marked IV_TIMER_UNKNOWN.  A median that jumps by more than the tolerance
 * is a clock that cannot be corrected: an error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconstruct.h"

#define REORDER_WINDOW_NS	IV_REORDER_WINDOW_NS	/* reconstruct.h */
/*
 * An event older than this many held events is a straggler: it waits in a
 * heap instead of being moved into place, so that a trace out of order
 * everywhere (reversed, shuffled) costs log n per event, not n.  Real
 * traces never come near (the shared ones: never a single step).
 */
#define REORDER_MAX_STEPS	64
/*
 * Events held at most (64 MiB or so): past it the oldest is applied at
 * once, whatever the window says, so memory stays bounded for a trace
 * whose time never advances by the window.
 */
#define REORDER_MAX_HELD	(1 << 19)
/*
 * A re-entry this soon after an exit, with nothing run in between, is the
 * idle loop going round again (a few microseconds; in a VM, stopping the
 * tick reprograms the timer through the hypervisor, and the recordings
 * show up to ~55 us for it), not new idle.
 */
#define MERGE_GAP_NS		(60 * 1000LL)
#define PM_QOS_DEFAULT_US	(2000 * 1000 * 1000)

/*
 * Most drivers (intel_idle, acpi_idle, PSCI on arm64) enter their states
 * with interrupts off: the interrupt that ended the idle period is taken
 * when cpuidle_enter_state() enables them, just after the exit event.  An
 * interrupt of the CPU's own that is the first thing after its exit, this
 * close to it, is taken for the wake-up: the handler follows within a few
 * microseconds (more in a VM, with tracing); a coincidental interrupt that
 * soon after an exit need_resched caused is rare.  (Where the handler runs
 * inside the state, as in a VM's halt, it comes before the exit.)
 */
#define LATE_WAKE_NS		(20 * 1000LL)

/*
 * CPU latency requests tracked at once: a machine has a handful (one per
 * /dev/cpu_dma_latency holder and per driver that asks); past this the
 * oldest is forgotten.
 */
#define QOS_MAX_REQUESTS	32

struct qos_request {
	int pid;		/* the task that made it, -1 if unknown */
	int32_t value_us;	/* -1: the default, no constraint */
};
/*
 * The trace clock's offset from CLOCK_MONOTONIC within which it is taken
 * as CLOCK_MONOTONIC, and by which a measured offset may move from one
 * tick expiry to the next.  The tick's hrtimer_expire_entry is logged a
 * few microseconds after the interrupt read now= (the median of the
 * recordings: 0.5 to 3 us; their 99th percentile at most 11 us, ftrace's
 * microsecond timestamps add up to 1 us), and a clock that is not
 * CLOCK_MONOTONIC is off by far more (perf's default clock 121 ms here,
 * trace_clock=local 91 ms, --reltime the uptime) and drifts by a few us a
 * second, a few ns between ticks.
 */
#define CLOCK_TOLERANCE_NS	(20 * 1000LL)
/*
 * Tick expiries whose median measures the offset: a vCPU preempted between
 * the interrupt and the event delays one by up to 0.4 ms in the
 * recordings; the median of 15 ignores up to 7 such in a row.
 */
#define CLOCK_SAMPLES		15
/*
 * Intervals held back at most until the offset is measured (about 9 MiB):
 * a trace with tick hrtimers but without their expiries would otherwise be
 * held whole.  Past it they go as they are, the clock taken as right.
 */
#define CLOCK_HOLD_MAX		(1 << 16)

/* An armed timer this far past its expiry without an expiry event is gone. */
#define STALE_TIMER_NS		(1000 * 1000 * 1000LL)

/* Where an armed hrtimer lives: hash slot by address. */
struct timer_slot {
	uint64_t addr;		/* 0: empty (a real hrtimer is never at 0) */
	int cpu;		/* -1: not armed */
};

/* An armed hrtimer in its CPU's list. */
struct armed_timer {
	uint64_t addr;
	int64_t expires;
	bool tick;
	bool wheel;		/* a stopped tick: the next timer-wheel event */
};

/* An event of the reorder window far out of place (REORDER_MAX_STEPS). */
struct straggler {
	struct trace_event ev;
	uint64_t seq;
};

struct timer_list {
	struct armed_timer *v;
	size_t n, cap;
};

struct cpu_state {
	bool seen;
	bool in_idle;
	bool pending;		/* exited, waiting for the next entry */
	bool timer_known;
	bool tick_stopped;
	bool woken;		/* a task was woken for this CPU since entry */
	bool after_exit;	/* exited; nothing else of this CPU seen yet */
	bool task_wake;		/* exited without an interrupt, a task
				 * woken for it during the entry or first
				 * thing after it */
	bool wake_is_local_timer;	/* refine on the next hrtimer expiry */
	bool wake_is_ipi_irq;	/* arm's "IPI" interrupt: refine on its ipi_entry */
	bool wake_after_exit;	/* its wake event came just after the exit */
	bool just_exited;	/* this event is the first after the exit,
				 * within LATE_WAKE_NS of it */
	int64_t wake_event_ns;	/* when the wake event was seen */
	bool pending_refined;	/* that expiry was seen */
	bool idle_seen;		/* an idle entry or exit of its own */
	bool before_clock;	/* the current interval began before the
				 * trace clock's offset was measured */
	bool window_known;	/* a polling window was logged: @window */
	bool window_wanted;	/* the first complete interval began before
				 * any: the next one's old value is the
				 * window it began with */
	bool window_started;	/* the first complete interval has begun */
	uint32_t window;	/* the last polling window logged */
	int64_t last_event_ns;	/* its last event, 0 before the first */
	struct idle_interval cur;
	int64_t entry_ns;	/* the current kernel entry */
	int64_t exit_ns;
	int64_t wake_ns;	/* first wake event of the current entry, or -1 */
	enum iv_wake wake;
	int irq;
	struct timer_list timers;
};

struct iv_builder {
	iv_sink_fn sink;
	void *arg;
	struct iv_stats stats;
	int64_t min_event_gap_ns;	/* between two events of a CPU, > 0 */
	int64_t min_entry_ns;		/* the shortest complete idle entry */
	int32_t qos_us;			/* the aggregate: the smallest request */
	bool qos_seen;
	struct qos_request qos[QOS_MAX_REQUESTS];
	unsigned int nr_qos;

	struct cpu_state *cpus;
	unsigned int cpus_cap;

	struct timer_slot *timers;	/* open addressing, power-of-two size */
	size_t timers_cap;
	size_t timers_used;

	struct trace_event *ring;	/* the reorder window, sorted */
	size_t ring_head, ring_len, ring_cap;	/* cap: a power of two */
	struct straggler *heap;		/* the window's stragglers, a min-heap */
	size_t heap_len, heap_cap;
	uint64_t seq;			/* stragglers so far: ties in arrival order */
	int64_t newest_ns;
	int64_t applied_ns;

	/* the trace clock against CLOCK_MONOTONIC (DOC: reconstruction) */
	int64_t clk_samples[CLOCK_SAMPLES];	/* now - ts of the last tick expiries */
	unsigned int clk_n;			/* samples so far, at most CLOCK_SAMPLES */
	unsigned int clk_next;			/* the ring's next slot */
	bool clk_known;				/* measured */
	int64_t clk_median;			/* the last median */
	int64_t clk_offset;			/* applied to expiries: 0 or the median */
	struct idle_interval *hold;		/* emitted before it was measured */
	size_t hold_len, hold_cap;
	bool holding;

	char err[320];
	uint64_t err_line;
};

const char *iv_wake_name(enum iv_wake w)
{
	static const char *const names[IV_WAKE_NR] = {
		[IV_WAKE_UNKNOWN] = "unknown", [IV_WAKE_TIMER] = "timer",
		[IV_WAKE_TICK] = "tick", [IV_WAKE_RESCHED] = "resched",
		[IV_WAKE_CALL_FUNC] = "call-func", [IV_WAKE_IRQ] = "irq",
	};

	return (unsigned int)w < IV_WAKE_NR ? names[w] : "?";
}

/* ------------------------------------------------------------ timers */

static size_t timer_hash(uint64_t addr, size_t cap)
{
	addr ^= addr >> 33;
	addr *= 0xff51afd7ed558ccdull;
	addr ^= addr >> 33;
	return (size_t)addr & (cap - 1);
}

static int timer_grow(struct iv_builder *b)
{
	size_t cap = b->timers_cap ? b->timers_cap * 2 : 1024, i, j;
	struct timer_slot *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (j = 0; j < b->timers_cap; j++) {
		if (!b->timers[j].addr)
			continue;
		for (i = timer_hash(b->timers[j].addr, cap); t[i].addr; i = (i + 1) & (cap - 1))
			;
		t[i] = b->timers[j];
	}
	free(b->timers);
	b->timers = t;
	b->timers_cap = cap;
	return 0;
}

/* The slot of @addr, created (not armed) if @create. */
static struct timer_slot *timer_slot(struct iv_builder *b, uint64_t addr, bool create)
{
	size_t i;

	if (create && (b->timers_used + 1) * 2 > b->timers_cap && timer_grow(b))
		return NULL;
	if (!b->timers_cap)
		return NULL;
	for (i = timer_hash(addr, b->timers_cap); b->timers[i].addr;
	     i = (i + 1) & (b->timers_cap - 1))
		if (b->timers[i].addr == addr)
			return &b->timers[i];
	if (!create)
		return NULL;
	b->timers[i].addr = addr;
	b->timers[i].cpu = -1;
	b->timers_used++;
	return &b->timers[i];
}

static void list_remove(struct timer_list *l, uint64_t addr)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->v[i].addr == addr) {
			l->v[i] = l->v[--l->n];
			return;
		}
}

static void timer_disarm(struct iv_builder *b, uint64_t addr)
{
	struct timer_slot *slot = timer_slot(b, addr, false);

	if (slot && slot->cpu >= 0) {
		list_remove(&b->cpus[slot->cpu].timers, addr);
		slot->cpu = -1;
	}
}

static int timer_arm(struct iv_builder *b, unsigned int cpu, const struct armed_timer *t)
{
	struct timer_slot *slot;
	struct timer_list *l;

	timer_disarm(b, t->addr);
	slot = timer_slot(b, t->addr, true);
	if (!slot)
		return -ENOMEM;
	l = &b->cpus[cpu].timers;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct armed_timer *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = *t;
	slot->cpu = (int)cpu;
	return 0;
}

/*
 * The earliest armed timer of @cpu after @now, the running tick excluded.
 * Timers whose expiry passed unseen (their expiry event was not traced)
 * are dropped on the way.
 */
static int64_t next_timer(struct iv_builder *b, unsigned int cpu, int64_t now)
{
	struct timer_list *l = &b->cpus[cpu].timers;
	int64_t best = IV_NO_TIMER;
	size_t i = 0;

	/* expiries are in CLOCK_MONOTONIC: now in that clock */
	if (__builtin_add_overflow(now, b->clk_offset, &now))
		return IV_NO_TIMER;
	while (i < l->n) {
		const struct armed_timer *t = &l->v[i];

		if (t->expires + STALE_TIMER_NS < now) {
			struct timer_slot *slot = timer_slot(b, t->addr, false);

			if (slot)
				slot->cpu = -1;
			l->v[i] = l->v[--l->n];
			continue;
		}
		if ((!t->tick || t->wheel) && t->expires > now && t->expires - now < best)
			best = t->expires - now;
		i++;
	}
	return best;
}

/* ------------------------------------------------------------ CPUs */

static struct cpu_state *cpu_of(struct iv_builder *b, unsigned int cpu)
{
	if (cpu >= b->cpus_cap) {
		unsigned int cap = b->cpus_cap ? b->cpus_cap : 8;
		struct cpu_state *c;

		while (cap <= cpu)
			cap *= 2;
		c = realloc(b->cpus, cap * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + b->cpus_cap, 0, (cap - b->cpus_cap) * sizeof(*c));
		b->cpus = c;
		b->cpus_cap = cap;
	}
	return &b->cpus[cpu];
}

/*
 * @a + @b, both >= 0, at most INT64_MAX: out-of-order events can make the
 * kernel's entries overlap, and their sum exceed the trace's span.
 */
static int64_t add_sat(int64_t a, int64_t b)
{
	return b > INT64_MAX - a ? INT64_MAX : a + b;
}

/* Let the held intervals go, marked if the clock was off. */
static int release_held(struct iv_builder *b)
{
	size_t i;
	int ret = 0;

	b->holding = false;
	for (i = 0; i < b->hold_len && !ret; i++) {
		struct idle_interval *iv = &b->hold[i];

		if (b->clk_offset && !(iv->flags & IV_TIMER_UNKNOWN)) {
			iv->flags |= IV_TIMER_UNKNOWN;
			b->stats.notes.clock_unknown++;
		}
		ret = b->sink(iv, b->arg);
	}
	free(b->hold);
	b->hold = NULL;
	b->hold_len = b->hold_cap = 0;
	return ret;
}

static int emit(struct iv_builder *b, struct idle_interval *iv)
{
	b->stats.intervals++;
	if (b->holding) {
		if (b->hold_len == b->hold_cap) {
			size_t cap = b->hold_cap ? b->hold_cap * 2 : 256;
			struct idle_interval *h;

			if (b->hold_len == CLOCK_HOLD_MAX) {	/* as they are */
				int ret = release_held(b);

				return ret ? ret : b->sink(iv, b->arg);
			}
			h = realloc(b->hold, cap * sizeof(*h));
			if (!h)
				return -ENOMEM;
			b->hold = h;
			b->hold_cap = cap;
		}
		b->hold[b->hold_len++] = *iv;
		return 0;
	}
	return b->sink(iv, b->arg);
}

/* Close the pending interval of @c; @next_entry_ns is -1 at the end. */
static int close_pending(struct iv_builder *b, struct cpu_state *c, int64_t next_entry_ns)
{
	struct idle_interval *iv = &c->cur;
	int64_t end = c->wake_ns >= 0 ? c->wake_ns : c->exit_ns;

	c->pending = false;
	c->after_exit = false;
	if (c->wake == IV_WAKE_UNKNOWN && c->task_wake)
		iv->flags |= IV_TASK_WAKE;
	if (end < iv->start_ns)		/* a wake-up or an exit applied late */
		end = iv->start_ns;
	iv->idle_ns = end - iv->start_ns;
	iv->wake = (uint8_t)c->wake;
	/* the record's field is 16 bits: a larger number is not kept */
	iv->irq = (int16_t)(c->wake == IV_WAKE_IRQ && c->irq <= INT16_MAX ? c->irq : -1);
	/* start + idle + busy: the next entry, by the trace's last event */
	iv->busy_ns = next_entry_ns > end ? next_entry_ns - end : 0;
	/* its timers were read before the clock's offset was known */
	if (c->before_clock && b->clk_known && b->clk_offset &&
	    !(iv->flags & IV_TIMER_UNKNOWN)) {
		iv->flags |= IV_TIMER_UNKNOWN;
		b->stats.notes.clock_unknown++;
	}
	return emit(b, iv);
}

/* @c's polling window at the start of its first complete interval is @w */
static void window_start(struct iv_builder *b, unsigned int cpu, uint32_t w)
{
	b->stats.notes.window_known[cpu / 64] |= 1ull << (cpu % 64);
	b->stats.notes.window_start[cpu] = w;
}

static void open_interval(struct iv_builder *b, struct cpu_state *c, unsigned int cpu,
			  int64_t t, int state)
{
	struct idle_interval *iv = &c->cur;

	if (!c->window_started) {
		c->window_started = true;
		if (c->window_known)
			window_start(b, cpu, c->window);
		else
			c->window_wanted = true;
	}

	memset(iv, 0, sizeof(*iv));
	memset(iv->kstates, -1, sizeof(iv->kstates));
	iv->start_ns = t;
	iv->cpu = (uint16_t)cpu;
	iv->qos_us = b->qos_us;
	iv->timer_ns = next_timer(b, cpu, t);
	if (!c->timer_known)
		iv->flags |= IV_TIMER_UNKNOWN;
	c->before_clock = !b->clk_known;
	iv->kstates[0] = (int8_t)state;
	iv->nr_entries = 1;
	iv->irq = -1;
}

static int on_idle_enter(struct iv_builder *b, struct cpu_state *c, const struct trace_event *ev)
{
	int ret = 0;

	if (c->in_idle)		/* two entries without an exit: drop the first */
		c->in_idle = false;
	if (c->pending) {
		bool nothing_ran = !c->woken && ev->ts_ns - c->exit_ns <= MERGE_GAP_NS;

		if (nothing_ran && (c->wake == IV_WAKE_UNKNOWN || c->wake == IV_WAKE_TICK)) {
			struct idle_interval *iv = &c->cur;

			/* a late re-entry may come before the exit: no time then */
			if (ev->ts_ns > c->exit_ns)
				iv->kernel_loop_ns = add_sat(iv->kernel_loop_ns,
							     ev->ts_ns - c->exit_ns);
			if (c->wake == IV_WAKE_TICK && iv->nr_entries <= IV_MAX_KSTATES)
				iv->ktick_mask |= (uint8_t)(1u << (iv->nr_entries - 1));
			if (iv->nr_entries < IV_MAX_KSTATES)
				iv->kstates[iv->nr_entries] = (int8_t)ev->state;
			else if (ev->state != iv->kstates[IV_MAX_KSTATES - 1])
				iv->flags &= (uint8_t)~IV_KSTATES_REST;
			else if (iv->nr_entries == IV_MAX_KSTATES)
				iv->flags |= IV_KSTATES_REST;
			if (iv->nr_entries < UINT16_MAX)
				iv->nr_entries++;
			b->stats.merged_entries++;
			c->pending = false;
			c->in_idle = true;
			c->entry_ns = ev->ts_ns;
			c->wake_ns = -1;
			c->wake = IV_WAKE_UNKNOWN;
			c->woken = false;
			return 0;
		}
		ret = close_pending(b, c, ev->ts_ns);
		if (ret)
			return ret;
	}
	open_interval(b, c, ev->cpu, ev->ts_ns, ev->state);
	c->in_idle = true;
	c->entry_ns = ev->ts_ns;
	c->wake_ns = -1;
	c->wake = IV_WAKE_UNKNOWN;
	c->woken = false;
	return 0;
}

/*
 * The kernel's current entry of @c ended at @exit_ns: its residency.  An
 * exit applied late (beyond the reorder window) may come before its entry:
 * no time, never a negative one.
 */
static void account_entry(struct cpu_state *c, int64_t exit_ns, int64_t *min_entry_ns)
{
	struct idle_interval *iv = &c->cur;
	int64_t r = exit_ns > c->entry_ns ? exit_ns - c->entry_ns : 0;

	iv->kernel_idle_ns = add_sat(iv->kernel_idle_ns, r);
	if (r > 0 && r < *min_entry_ns)
		*min_entry_ns = r;
	if (iv->nr_entries && iv->nr_entries <= IV_MAX_KSTATES)
		iv->kresidency[iv->nr_entries - 1] = r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
}

static int on_idle_exit(struct iv_builder *b, struct cpu_state *c, const struct trace_event *ev)
{
	if (!c->in_idle) {
		/*
		 * An exit with no entry: the CPU was idle when the trace began
		 * (or an entry was lost).  Its start cannot be told.
		 */
		if (!c->seen && !c->pending) {
			struct idle_interval iv;

			memset(&iv, 0, sizeof(iv));
			memset(iv.kstates, -1, sizeof(iv.kstates));
			iv.start_ns = b->stats.first_ns;
			iv.idle_ns = ev->ts_ns - b->stats.first_ns;
			iv.cpu = (uint16_t)ev->cpu;
			iv.qos_us = b->qos_us;
			iv.irq = -1;
			iv.flags = IV_PARTIAL_START | IV_TIMER_UNKNOWN;
			c->seen = true;
			return emit(b, &iv);
		}
		return 0;
	}
	c->in_idle = false;
	c->pending = true;
	c->exit_ns = ev->ts_ns;
	c->after_exit = true;
	c->task_wake = c->woken && c->wake_ns < 0;
	account_entry(c, ev->ts_ns, &b->min_entry_ns);
	return 0;
}

/*
 * Is @ev still part of the interrupt that ended @c's idle period (its wake
 * event seen): inside the idle entry, or just after a late one?
 */
static bool in_wake(const struct cpu_state *c, const struct trace_event *ev)
{
	return c->in_idle || (c->pending && c->wake_after_exit &&
			      ev->ts_ns - c->wake_event_ns <= LATE_WAKE_NS);
}

/*
 * A wake event on @c's own CPU: the first one inside an idle entry counts,
 * or the first thing just after the exit (LATE_WAKE_NS); but the "IPI"
 * interrupt of arm and arm64 is followed by an ipi:ipi_entry that says
 * which IPI it was, and that one takes its place.
 */
static void on_wake(struct cpu_state *c, const struct trace_event *ev, enum iv_wake w)
{
	if (c->wake_ns < 0) {
		bool late = !c->in_idle && c->pending && c->just_exited;

		if (!c->in_idle && !late)
			return;
		/* an interrupt taken late ended the idle period at the exit */
		c->wake_ns = late ? c->exit_ns : ev->ts_ns;
		c->wake_after_exit = late;
		c->wake_event_ns = ev->ts_ns;
	} else if (!c->wake_is_ipi_irq || ev->type == TEV_IRQ || !in_wake(c, ev)) {
		return;
	}
	c->wake = w;
	c->irq = ev->type == TEV_IRQ ? ev->irq : -1;
	c->wake_is_local_timer = ev->type == TEV_LOCAL_TIMER;
	c->wake_is_ipi_irq = ev->type == TEV_IRQ && !strcmp(ev->name, "IPI");
}

static int on_timer(struct iv_builder *b, struct cpu_state *c, const struct trace_event *ev)
{
	struct armed_timer t;

	switch (ev->type) {
	case TEV_HRTIMER_START:
		t.addr = ev->timer;
		t.expires = ev->expires_ns;
		t.tick = ev->tick;
		t.wheel = ev->tick && c->tick_stopped;
		if (ev->tick)
			c->timer_known = true;
		return timer_arm(b, ev->cpu, &t);
	case TEV_HRTIMER_CANCEL:
		timer_disarm(b, ev->timer);
		return 0;
	case TEV_HRTIMER_EXPIRE:
		timer_disarm(b, ev->timer);
		if (ev->tick) {
			c->timer_known = true;
			c->tick_stopped = false;
		}
		/*
		 * Inside the local timer interrupt that woke the CPU: any real
		 * timer makes it a timer wake-up, the tick alone a tick one.
		 */
		if (c->wake_is_local_timer && c->wake_ns >= 0 && in_wake(c, ev)) {
			if (!ev->tick)
				c->wake = IV_WAKE_TIMER;
			else if (!c->pending_refined)
				c->wake = IV_WAKE_TICK;
			c->pending_refined = true;
		}
		return 0;
	default:
		return 0;
	}
}

/*
 * haltpoll logs its new polling window from reflect(), after the exit of a
 * halt and before the next entry: it belongs to the pending interval's last
 * entry.  One seen while the CPU is idle or before its first interval has
 * no entry to belong to and is only counted.
 */
static void on_window(struct iv_builder *b, struct cpu_state *c, const struct trace_event *ev)
{
	struct idle_interval *iv = &c->cur;
	unsigned int j;

	b->stats.window_events++;
	if (c->window_wanted) {
		c->window_wanted = false;
		window_start(b, ev->cpu, (uint64_t)ev->old > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->old);
	}
	c->window_known = true;
	c->window = (uint64_t)ev->value > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->value;
	if (!c->pending || !iv->nr_entries)
		return;
	if (iv->nr_kwindows < UINT16_MAX)
		iv->nr_kwindows++;
	j = iv->nr_entries - 1u;
	/* one reflect per entry: a second event there keeps the first value */
	if (j < IV_MAX_KSTATES && !(iv->kwindow_mask & (1u << j))) {
		iv->kwindow_mask |= (uint8_t)(1u << j);
		iv->kwindow[j] = ev->value > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->value;
	}
}

/* ------------------------------------------------------------ the trace clock */

/* "1.234 s", "12.345 ms" or "123.456 us" for @ns (its magnitude). */
static void fmt_dur(char *buf, size_t len, int64_t ns)
{
	double v = ns < 0 ? -(double)ns : (double)ns;

	if (v >= 1e9)
		snprintf(buf, len, "%.3f s", v * 1e-9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.3f ms", v * 1e-6);
	else
		snprintf(buf, len, "%.3f us", v * 1e-3);
}

static int fail(struct iv_builder *b, uint64_t line, const char *msg)
{
	snprintf(b->err, sizeof(b->err), "%s", msg);
	b->err_line = line;
	return -EINVAL;
}

static int64_t clk_median(const struct iv_builder *b)
{
	int64_t v[CLOCK_SAMPLES], x;
	unsigned int i, j;

	memcpy(v, b->clk_samples, b->clk_n * sizeof(v[0]));
	for (i = 1; i < b->clk_n; i++) {
		x = v[i];
		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	return v[b->clk_n / 2];
}

/* The offset is measured (at @line): correct by it or not, let the held go. */
static int clk_establish(struct iv_builder *b, uint64_t line)
{
	int64_t m = clk_median(b);

	b->clk_known = true;
	b->clk_median = m;
	if (m > CLOCK_TOLERANCE_NS || m < -CLOCK_TOLERANCE_NS) {
		b->clk_offset = m;
		b->stats.notes.clock_offset_ns = m;
		b->stats.notes.clock_line = line;
	}
	return release_held(b);
}

/* A tick's expiry: its now= against the trace's timestamp. */
static int on_clock(struct iv_builder *b, const struct trace_event *ev)
{
	char msg[sizeof(b->err)], jump[32], from[32], to[32];
	int64_t d, m;

	if (ev->now_ns <= 0 || __builtin_sub_overflow(ev->now_ns, ev->ts_ns, &d))
		return 0;	/* not given (or absurd) */
	b->clk_samples[b->clk_next] = d;
	b->clk_next = (b->clk_next + 1) % CLOCK_SAMPLES;
	if (b->clk_n < CLOCK_SAMPLES)
		b->clk_n++;
	if (!b->clk_known)
		return b->clk_n == CLOCK_SAMPLES ? clk_establish(b, ev->line) : 0;
	m = clk_median(b);
	if ((m > b->clk_median && m - b->clk_median > CLOCK_TOLERANCE_NS) ||
	    (m < b->clk_median && b->clk_median - m > CLOCK_TOLERANCE_NS)) {
		fmt_dur(jump, sizeof(jump), m - b->clk_median);
		fmt_dur(from, sizeof(from), b->clk_median);
		fmt_dur(to, sizeof(to), m);
		snprintf(msg, sizeof(msg), "the trace clock jumped by %s%s against CLOCK_MONOTONIC "
			 "(the tick's now=), from %s%s to %s%s: it is not one steady clock, "
			 "timer expiries cannot be placed in it", m < b->clk_median ? "-" : "",
			 jump, b->clk_median < 0 ? "-" : "", from, m < 0 ? "-" : "", to);
		return fail(b, ev->line, msg);
	}
	b->clk_median = m;
	if (b->clk_offset) {		/* follow its drift */
		b->clk_offset = m;
		b->stats.notes.clock_offset_ns = m;
	}
	return 0;
}

/*
 * The tracer lost events of @c here: the interval in progress is cut (its
 * end, wake-up, re-entries may be lost), and its timers are not known
 * until its tick is programmed again.
 */
static int on_lost(struct iv_builder *b, struct cpu_state *c, const struct trace_event *ev)
{
	size_t i;
	int ret = 0;

	if (!b->stats.notes.lost_gaps++) {
		b->stats.notes.lost_cpu = ev->cpu;
		b->stats.notes.lost_line = ev->line;
		b->stats.notes.lost_n = ev->value;
	}
	if (ev->value > 0)
		b->stats.notes.lost_events += (uint64_t)ev->value;
	if (c->in_idle) {
		account_entry(c, ev->ts_ns, &b->min_entry_ns);
		c->exit_ns = ev->ts_ns;
		c->in_idle = false;
		c->pending = true;
	}
	if (c->pending) {
		c->cur.flags |= IV_PARTIAL_END;
		ret = close_pending(b, c, -1);
	}
	for (i = 0; i < c->timers.n; i++) {
		struct timer_slot *slot = timer_slot(b, c->timers.v[i].addr, false);

		if (slot)
			slot->cpu = -1;
	}
	c->timers.n = 0;
	c->timer_known = false;
	c->tick_stopped = false;
	c->woken = false;
	c->after_exit = false;
	c->wake_is_local_timer = false;
	c->wake_is_ipi_irq = false;
	c->seen = true;		/* an exit without its entry now is no trace edge */
	return ret;
}

/* Apply one event, in time order. */

/*
 * The CPU latency QoS timeline.  The tracepoints give the value of the
 * request added, updated or removed, not which request it is; the task
 * that made the call (a /dev/cpu_dma_latency holder, a driver's thread) is
 * the key the trace offers, so each task's requests are kept, its latest
 * one changed by its updates and removals, and the kernel's aggregate, the
 * smallest value, is in force.  An update or removal by a task without a
 * request changes the only request if there is just one (a request made
 * before the trace began), else it is taken as a new request (update) or
 * ignored (removal).
 */
static int qos_find(const struct iv_builder *b, int pid)
{
	int i;

	for (i = (int)b->nr_qos - 1; i >= 0; i--)
		if (b->qos[i].pid == pid)
			return i;
	return b->nr_qos == 1 ? 0 : -1;
}

static void on_qos(struct iv_builder *b, const struct trace_event *ev)
{
	int32_t value = ev->value < 0 ? -1 : (int32_t)ev->value;	/* -1: default */
	int i = ev->type == TEV_QOS_ADD ? -1 : qos_find(b, ev->pid);
	unsigned int k;

	if (ev->type == TEV_QOS_REMOVE) {
		if (i >= 0) {
			memmove(&b->qos[i], &b->qos[i + 1],
				(b->nr_qos - (unsigned int)i - 1) * sizeof(b->qos[0]));
			b->nr_qos--;
		}
	} else if (i >= 0) {
		b->qos[i].value_us = value;
	} else {
		if (b->nr_qos == QOS_MAX_REQUESTS) {	/* the oldest goes */
			memmove(&b->qos[0], &b->qos[1], (QOS_MAX_REQUESTS - 1) * sizeof(b->qos[0]));
			b->nr_qos--;
		}
		b->qos[b->nr_qos++] = (struct qos_request){ .pid = ev->pid, .value_us = value };
	}
	b->qos_us = PM_QOS_DEFAULT_US;
	for (k = 0; k < b->nr_qos; k++)
		if (b->qos[k].value_us >= 0 && b->qos[k].value_us < b->qos_us)
			b->qos_us = b->qos[k].value_us;
}

static int apply(struct iv_builder *b, const struct trace_event *ev)
{
	struct cpu_state *c = cpu_of(b, ev->cpu), *t;

	if (!c)
		return -ENOMEM;
	if (ev->cpu >= b->stats.nr_cpus)
		b->stats.nr_cpus = ev->cpu + 1;
	if (c->last_event_ns > 0 && ev->ts_ns > c->last_event_ns &&
	    ev->ts_ns - c->last_event_ns < b->min_event_gap_ns)
		b->min_event_gap_ns = ev->ts_ns - c->last_event_ns;
	c->last_event_ns = ev->ts_ns;
	/*
	 * A poll that need_resched ended, set without an IPI by a wake-up
	 * from elsewhere, exits with no wake event; the CPU then runs the
	 * woken task at once (its sched_wakeup comes first).  One that its
	 * time limit ended goes round the idle loop instead (the governor
	 * again, the tick stopped, a re-entry).  The idle path's own events
	 * after the exit do not count.
	 */
	c->just_exited = false;
	if (c->after_exit && ev->type != TEV_IDLE_MISS && ev->type != TEV_HALT_POLL_NS) {
		c->after_exit = false;
		c->just_exited = ev->ts_ns - c->exit_ns <= LATE_WAKE_NS;
		if (ev->type == TEV_WAKEUP && ev->target_cpu == (int)ev->cpu)
			c->task_wake = true;
	}
	switch (ev->type) {
	case TEV_IDLE_ENTER:
		c->seen = true;
		c->idle_seen = true;
		return on_idle_enter(b, c, ev);
	case TEV_IDLE_EXIT:
		c->idle_seen = true;
		return on_idle_exit(b, c, ev);
	case TEV_IDLE_MISS:
		if (c->in_idle || c->pending)
			c->cur.flags |= ev->below ? IV_KERNEL_BELOW : IV_KERNEL_ABOVE;
		return 0;
	case TEV_QOS_ADD:
	case TEV_QOS_UPDATE:
	case TEV_QOS_REMOVE:
		on_qos(b, ev);
		return 0;
	case TEV_HRTIMER_START:
	case TEV_HRTIMER_CANCEL:
	case TEV_HRTIMER_EXPIRE:
		if (ev->type == TEV_HRTIMER_EXPIRE && ev->tick) {
			int ret = on_clock(b, ev);

			if (ret)
				return ret;
		}
		return on_timer(b, c, ev);
	case TEV_TICK_STOP:
		if (ev->success)
			c->tick_stopped = true;
		return 0;
	case TEV_LOCAL_TIMER:
		c->pending_refined = false;
		on_wake(c, ev, IV_WAKE_TIMER);
		return 0;
	case TEV_RESCHED_IPI:
		on_wake(c, ev, IV_WAKE_RESCHED);
		return 0;
	case TEV_CALL_FUNC_IPI:
		on_wake(c, ev, IV_WAKE_CALL_FUNC);
		return 0;
	case TEV_IRQ:
		on_wake(c, ev, IV_WAKE_IRQ);
		if (ev->irq >= 0 && ev->irq < IV_MAX_IRQ && !b->stats.irq_names[ev->irq][0])
			memcpy(b->stats.irq_names[ev->irq], ev->name, sizeof(ev->name));
		return 0;
	case TEV_WAKEUP:
		if (ev->target_cpu < 0 || ev->target_cpu >= TRACE_MAX_CPUS)
			return 0;
		t = cpu_of(b, (unsigned int)ev->target_cpu);
		if (!t)
			return -ENOMEM;
		t->woken = true;
		return 0;
	case TEV_HALT_POLL_NS:
		on_window(b, c, ev);
		return 0;
	case TEV_LOST:
		return on_lost(b, c, ev);
	}
	return 0;
}

/* ------------------------------------------------------------ reorder buffer */

/*
 * The reorder window is a ring of events kept sorted by time (ties in
 * arrival order).  Traces are nearly always in order already, so an event
 * is appended at the back, and only an early one is moved back past the
 * few events it precedes; the oldest leaves from the front.  (A binary heap
 * did the same work in log n whole-event copies per event.)  An event that
 * would move back past more than REORDER_MAX_STEPS events goes to a heap of
 * stragglers instead; the oldest of the ring's front and the heap's top
 * leaves first (the ring's on a tie).
 */
#define RING_AT(b, i)	(&(b)->ring[((b)->ring_head + (i)) & ((b)->ring_cap - 1)])

static bool straggler_before(const struct straggler *a, const struct straggler *b)
{
	return a->ev.ts_ns < b->ev.ts_ns || (a->ev.ts_ns == b->ev.ts_ns && a->seq < b->seq);
}

static int straggler_push(struct iv_builder *b, const struct trace_event *ev)
{
	struct straggler s = { .ev = *ev, .seq = b->seq++ };
	size_t i, parent;

	if (b->heap_len == b->heap_cap) {
		size_t cap = b->heap_cap ? b->heap_cap * 2 : 256;
		struct straggler *h = realloc(b->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		b->heap = h;
		b->heap_cap = cap;
	}
	for (i = b->heap_len++; i > 0; i = parent) {
		parent = (i - 1) / 2;
		if (!straggler_before(&s, &b->heap[parent]))
			break;
		b->heap[i] = b->heap[parent];
	}
	b->heap[i] = s;
	return 0;
}

static void straggler_pop(struct iv_builder *b)
{
	struct straggler last = b->heap[--b->heap_len];
	size_t i = 0, c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= b->heap_len)
			break;
		if (c + 1 < b->heap_len && straggler_before(&b->heap[c + 1], &b->heap[c]))
			c++;
		if (!straggler_before(&b->heap[c], &last))
			break;
		b->heap[i] = b->heap[c];
		i = c;
	}
	if (b->heap_len)
		b->heap[i] = last;
}

static int ring_push(struct iv_builder *b, const struct trace_event *ev)
{
	size_t i, j;

	if (b->ring_len == b->ring_cap) {
		size_t cap = b->ring_cap ? b->ring_cap * 2 : 1024;
		struct trace_event *r = malloc(cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		for (i = 0; i < b->ring_len; i++)
			r[i] = *RING_AT(b, i);
		free(b->ring);
		b->ring = r;
		b->ring_cap = cap;
		b->ring_head = 0;
	}
	for (i = b->ring_len; i > 0 && RING_AT(b, i - 1)->ts_ns > ev->ts_ns; i--)
		if (b->ring_len - i == REORDER_MAX_STEPS)
			return straggler_push(b, ev);
	for (j = b->ring_len++; j > i; j--)
		*RING_AT(b, j) = *RING_AT(b, j - 1);
	*RING_AT(b, i) = *ev;
	return 0;
}

/* The oldest held event, or NULL; *@from_heap says where it is. */
static const struct trace_event *oldest(const struct iv_builder *b, bool *from_heap)
{
	const struct trace_event *r = b->ring_len ? RING_AT(b, 0) : NULL;

	*from_heap = b->heap_len && (!r || b->heap[0].ev.ts_ns < r->ts_ns);
	return *from_heap ? &b->heap[0].ev : r;
}

/* Apply the oldest held event (there is one) and let it go. */
static int apply_oldest(struct iv_builder *b)
{
	bool from_heap;
	const struct trace_event *ev = oldest(b, &from_heap);
	int ret;

	b->applied_ns = ev->ts_ns;
	ret = apply(b, ev);
	if (from_heap) {
		straggler_pop(b);
	} else {
		b->ring_head = (b->ring_head + 1) & (b->ring_cap - 1);
		b->ring_len--;
	}
	return ret;
}

/* Apply every held event older than the window (all of them if @all). */
static int drain(struct iv_builder *b, bool all)
{
	const struct trace_event *ev;
	bool from_heap;
	int ret;

	while ((ev = oldest(b, &from_heap)) &&
	       (all || (b->newest_ns >= INT64_MIN + REORDER_WINDOW_NS &&
			ev->ts_ns <= b->newest_ns - REORDER_WINDOW_NS))) {
		ret = apply_oldest(b);
		if (ret)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------ API */

int iv_builder_create(iv_sink_fn sink, void *arg, struct iv_builder **out)
{
	struct iv_builder *b;

	if (!sink || !out)
		return -EINVAL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->sink = sink;
	b->arg = arg;
	b->qos_us = PM_QOS_DEFAULT_US;
	b->applied_ns = INT64_MIN;
	b->newest_ns = INT64_MIN;
	b->holding = true;
	b->min_event_gap_ns = INT64_MAX;
	b->min_entry_ns = INT64_MAX;
	*out = b;
	return 0;
}

int iv_builder_feed(struct iv_builder *b, const struct trace_event *ev)
{
	int ret;

	struct trace_event lost;
	bool old;

	if (!b || !ev || ev->cpu >= TRACE_MAX_CPUS)
		return -EINVAL;
	old = b->newest_ns >= INT64_MIN + REORDER_WINDOW_NS &&
	      ev->ts_ns < b->newest_ns - REORDER_WINDOW_NS;
	if (ev->type == TEV_LOST) {
		/*
		 * ftrace's "[LOST N EVENTS]" line has no time of its own: one
		 * out of order stands where the file has it, after the newest.
		 */
		if (b->newest_ns == INT64_MIN)
			return 0;	/* nothing of the trace to cut yet */
		if (old || ev->ts_ns < b->applied_ns) {
			lost = *ev;
			lost.ts_ns = b->newest_ns;
			ev = &lost;
			old = false;
		}
	}
	if (old) {
		char msg[sizeof(b->err)];

		iv_describe_backstep(msg, sizeof(msg), b->newest_ns - ev->ts_ns, ev->cpu);
		return fail(b, ev->line, msg);
	}
	if (ev->ts_ns < b->applied_ns) {
		/* only once the held events' bound has applied some early */
		snprintf(b->err, sizeof(b->err), "over %d events within %lld ms: too many to "
			 "put in time order", REORDER_MAX_HELD, REORDER_WINDOW_NS / 1000000);
		b->err_line = ev->line;
		return -EINVAL;
	}
	if (!b->stats.events++)
		b->stats.first_ns = ev->ts_ns;
	if (ev->ts_ns < b->stats.first_ns)
		b->stats.first_ns = ev->ts_ns;
	if (ev->ts_ns > b->stats.last_ns || b->stats.events == 1)
		b->stats.last_ns = ev->ts_ns;
	if (b->ring_len + b->heap_len >= REORDER_MAX_HELD) {
		ret = apply_oldest(b);	/* full: the window gives way */
		if (ret)
			return ret;
	}
	ret = ring_push(b, ev);
	if (ret)
		return ret;
	if (ev->ts_ns > b->newest_ns)
		b->newest_ns = ev->ts_ns;
	return drain(b, false);
}

/*
 * How much longer the trace shows an idle entry than the kernel measured it
 * (iv_notes.residency_skew_ns).  The kernel reads its clock just after the
 * entry's event is written and just before the exit's: the trace's span
 * holds the cost of writing one event (the entry's tail, the exit's head)
 * on top.  An entry whose wake-up was already pending lasts a few
 * instructions, so the shortest entry of a trace is that cost; where no
 * entry is that short (not within RESIDENCY_SKEW_SHORT_FACTOR of the
 * cheapest event), the cheapest event is taken: the least time between two
 * events of a CPU, the writing of one event and hardly anything else.
 * Both measured on this project's traces (a KVM guest, perf): the shortest
 * entry 0.88-1.05 us, the cheapest event 0.54-0.70 us, and the kernel's
 * own window decisions at haltpoll's thresholds bound the skew to 0.81-1.05
 * us.  0 if the trace shows neither.
 */
#define RESIDENCY_SKEW_SHORT_FACTOR	2
/*
 * A measure past this is no event's cost but a trace too sparse to show
 * one (a CPU's events seconds apart): no correction then.  100 times the
 * largest cost measured; an interval file holds up to UINT32_MAX ns.
 */
#define RESIDENCY_SKEW_MAX_NS		(100 * 1000)

static int64_t residency_skew(const struct iv_builder *b)
{
	int64_t skew;

	if (b->min_entry_ns == INT64_MAX && b->min_event_gap_ns == INT64_MAX)
		return 0;
	/* (a gap too long to double has every entry within the factor) */
	if (b->min_event_gap_ns > INT64_MAX / RESIDENCY_SKEW_SHORT_FACTOR ||
	    b->min_entry_ns <= RESIDENCY_SKEW_SHORT_FACTOR * b->min_event_gap_ns)
		skew = b->min_entry_ns;
	else
		skew = b->min_event_gap_ns;
	return skew >= 0 && skew <= RESIDENCY_SKEW_MAX_NS ? skew : 0;
}

int iv_builder_finish(struct iv_builder *b)
{
	int64_t unused = INT64_MAX;	/* an entry the trace's end cut short */
	unsigned int cpu;
	int ret;

	if (!b)
		return -EINVAL;
	ret = drain(b, true);
	if (ret)
		return ret;
	for (cpu = 0; cpu < b->cpus_cap; cpu++) {
		struct cpu_state *c = &b->cpus[cpu];

		if (c->pending) {
			ret = close_pending(b, c, -1);
		} else if (c->in_idle) {
			/* still idle at the end: its true length is unknown */
			c->cur.flags |= IV_PARTIAL_END;
			account_entry(c, b->stats.last_ns, &unused);
			c->exit_ns = b->stats.last_ns;
			c->in_idle = false;
			ret = close_pending(b, c, -1);
		}
		if (ret)
			return ret;
	}
	b->stats.notes.residency_skew_ns = residency_skew(b);
	for (cpu = 0; cpu < b->stats.nr_cpus; cpu++)
		if (!b->cpus[cpu].idle_seen) {
			b->stats.notes.idle_less[cpu / 64] |= 1ull << (cpu % 64);
			b->stats.notes.nr_idle_less++;
		}
	/* fewer tick expiries than a full measure: what there is */
	if (!b->clk_known && b->clk_n)
		return clk_establish(b, 0);
	return b->holding ? release_held(b) : 0;
}

const struct iv_stats *iv_builder_stats(const struct iv_builder *b)
{
	return &b->stats;
}

const char *iv_builder_error(const struct iv_builder *b, uint64_t *line)
{
	if (line)
		*line = b->err_line;
	return b->err;
}

void iv_describe_backstep(char *msg, size_t len, int64_t back_ns, unsigned int cpu)
{
	char back[32];

	fmt_dur(back, sizeof(back), back_ns);
	snprintf(msg, len, "time went back by %s on CPU %u, beyond the %lld ms the reader "
		 "reorders: events out of order, two traces concatenated, or perf script "
		 "--deltatime/--reltime", back, cpu, REORDER_WINDOW_NS / 1000000);
}

void iv_builder_destroy(struct iv_builder *b)
{
	unsigned int cpu;

	if (!b)
		return;
	for (cpu = 0; cpu < b->cpus_cap; cpu++)
		free(b->cpus[cpu].timers.v);
	free(b->cpus);
	free(b->timers);
	free(b->ring);
	free(b->heap);
	free(b->hold);
	free(b);
}
