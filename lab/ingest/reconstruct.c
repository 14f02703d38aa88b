// SPDX-License-Identifier: MIT
/*
 * reconstruct.c - from trace events to idle intervals.
 */

/**
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

#include "reconstruct_internal.h"

const char *iv_wake_name(enum iv_wake w)
{
	static const char *const names[IV_WAKE_NR] = {
		[IV_WAKE_UNKNOWN] = "unknown", [IV_WAKE_TIMER] = "timer",
		[IV_WAKE_TICK] = "tick", [IV_WAKE_RESCHED] = "resched",
		[IV_WAKE_CALL_FUNC] = "call-func", [IV_WAKE_IRQ] = "irq",
	};

	return (unsigned int)w < IV_WAKE_NR ? names[w] : "?";
}

/* ------------------------------------------------------------ CPUs */

static struct cpu_state *cpu_of(struct iv_builder *b, unsigned int cpu)
{
	if (cpu >= b->cpus_cap) {
		unsigned int cap = b->cpus_cap ? b->cpus_cap : 8, i;
		struct cpu_state *c;

		while (cap <= cpu)
			cap *= 2;
		c = realloc(b->cpus, cap * sizeof(*c));
		if (!c)
			return NULL;
		memset(c + b->cpus_cap, 0, (cap - b->cpus_cap) * sizeof(*c));
		for (i = b->cpus_cap; i < cap; i++)
			c[i].guess_wait = UINT64_MAX;
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

/* @iv to the sink, counted by how its timer is known */
static int deliver(struct iv_builder *b, struct idle_interval *iv)
{
	if (!(iv->flags & (IV_PARTIAL_START | IV_PARTIAL_END))) {
		b->stats.complete++;
		b->stats.timer_guessed += !!(iv->flags & IV_TIMER_GUESSED);
		b->stats.timer_unknown += !!(iv->flags & IV_TIMER_UNKNOWN);
	}
	return b->sink(iv, b->arg);
}

/* Let the held intervals go, marked if the clock was off. */
int rc_release_held(struct iv_builder *b)
{
	size_t i;
	int ret = 0;

	b->holding = false;
	for (i = 0; i < b->hold_len && !ret; i++) {
		struct idle_interval *iv = &b->hold[i];

		if (b->clk_offset && !(iv->flags & (IV_TIMER_UNKNOWN | IV_TIMER_GUESSED))) {
			iv->flags |= IV_TIMER_UNKNOWN;
			b->stats.notes.clock_unknown++;
		}
		ret = deliver(b, iv);
	}
	free(b->hold);
	b->hold = NULL;
	b->hold_len = b->hold_cap = 0;
	return ret;
}

int rc_emit(struct iv_builder *b, struct idle_interval *iv)
{
	b->stats.intervals++;
	if (b->holding) {
		if (b->hold_len == b->hold_cap) {
			size_t cap = b->hold_cap ? b->hold_cap * 2 : 256;
			struct idle_interval *h;

			if (b->hold_len == CLOCK_HOLD_MAX) {	/* as they are */
				int ret = rc_release_held(b);

				return ret ? ret : deliver(b, iv);
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
	return deliver(b, iv);
}

/* Close the pending interval of @c; @next_entry_ns is -1 at the end. */
int rc_close_pending(struct iv_builder *b, struct cpu_state *c, int64_t next_entry_ns)
{
	struct idle_interval *iv = &c->cur;
	int64_t end = c->wake_ns >= 0 ? c->wake_ns : c->exit_ns;
	bool wait;

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
	wait = rc_guess_at_close(c, iv, end);
	/* its timers were read before the clock's offset was known */
	if (c->before_clock && b->clk_known && b->clk_offset &&
	    !(iv->flags & (IV_TIMER_UNKNOWN | IV_TIMER_GUESSED))) {
		iv->flags |= IV_TIMER_UNKNOWN;
		b->stats.notes.clock_unknown++;
	}
	return rc_guess_put(b, c, iv, end, wait);
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
	iv->timer_ns = rc_next_timer(b, cpu, t);
	if (!c->timer_known)
		iv->flags |= IV_TIMER_UNKNOWN;
	c->timer_irq_ns = -1;
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
		ret = rc_close_pending(b, c, ev->ts_ns);
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
void rc_account_entry(struct cpu_state *c, int64_t exit_ns, int64_t *min_entry_ns)
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
			return rc_guess_put(b, c, &iv, ev->ts_ns, false);
		}
		return 0;
	}
	c->in_idle = false;
	c->pending = true;
	c->exit_ns = ev->ts_ns;
	c->after_exit = true;
	c->task_wake = c->woken && c->wake_ns < 0;
	rc_account_entry(c, ev->ts_ns, &b->min_entry_ns);
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
		return rc_timer_arm(b, ev->cpu, &t);
	case TEV_HRTIMER_CANCEL:
		rc_timer_disarm(b, ev->timer);
		return 0;
	case TEV_HRTIMER_EXPIRE:
		rc_timer_disarm(b, ev->timer);
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
			int ret = rc_on_clock(b, ev);

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
		/* the first after the wake-up: the next expiry the trace shows */
		if (c->pending && c->timer_irq_ns < 0 &&
		    !(c->wake_is_local_timer && c->wake_event_ns == ev->ts_ns))
			c->timer_irq_ns = ev->ts_ns;
		return rc_guess_on_timer_irq(b, c, ev->ts_ns);
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
		return rc_on_lost(b, c, ev);
	case TEV_CPU_FREQ:	/* not fed (iv_builder_feed()) */
		return 0;
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
	ret = b->guess_len ? rc_guess_advance(b, ev->ts_ns) : 0;
	if (!ret)
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
	/*
	 * A frequency change says nothing of idle periods: passed by before
	 * anything (the span, the reorder window, the events after an exit)
	 * can see it, so that replays read a trace as they did before the
	 * readers gave it.
	 */
	if (ev->type == TEV_CPU_FREQ)
		return 0;
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
		return rc_fail(b, ev->line, msg);
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
			ret = rc_close_pending(b, c, -1);
		} else if (c->in_idle) {
			/* still idle at the end: its true length is unknown */
			c->cur.flags |= IV_PARTIAL_END;
			rc_account_entry(c, b->stats.last_ns, &unused);
			c->exit_ns = b->stats.last_ns;
			c->in_idle = false;
			ret = rc_close_pending(b, c, -1);
		}
		if (ret)
			return ret;
	}
	ret = rc_guess_finish(b);
	if (ret)
		return ret;
	b->stats.notes.residency_skew_ns = residency_skew(b);
	for (cpu = 0; cpu < b->stats.nr_cpus; cpu++)
		if (!b->cpus[cpu].idle_seen) {
			b->stats.notes.idle_less[cpu / 64] |= 1ull << (cpu % 64);
			b->stats.notes.nr_idle_less++;
		}
	/* fewer tick expiries than a full measure: what there is */
	if (!b->clk_known && b->clk_n)
		return rc_clk_establish(b, 0);
	return b->holding ? rc_release_held(b) : 0;
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

	rc_fmt_dur(back, sizeof(back), back_ns);
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
	free(b->guess);
	free(b->heap);
	free(b->hold);
	free(b);
}
