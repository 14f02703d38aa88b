/* SPDX-License-Identifier: MIT */
/*
 * reconstruct_internal.h - what the reconstruction's files share: the
 * builder and its per-CPU state (reconstruct.c: events applied in time
 * order, intervals opened and closed), its timers (reconstruct_timers.c),
 * its checks of the trace clock and lost events (reconstruct_clock.c) and
 * the next timers it reconstructs where the trace shows none
 * (reconstruct_guess.c)
 */
#ifndef LAB_RECONSTRUCT_INTERNAL_H
#define LAB_RECONSTRUCT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	int64_t timer_irq_ns;	/* its first local timer interrupt after the
				 * current interval's wake-up, or -1 */
	bool timer_irq_seen;	/* the trace shows its local timer interrupts */
	uint64_t guess_wait;	/* its last interval waiting in the guess
				 * queue (a sequence number), or UINT64_MAX */
};

struct guess_item;

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

	/* intervals waiting for their next timer (DOC: reconstructed timers) */
	struct guess_item *guess;		/* a ring, in the order they closed */
	size_t guess_head, guess_len, guess_cap;	/* cap: a power of two */
	uint64_t guess_base;			/* the sequence number at the head */

	char err[320];
	uint64_t err_line;
};

int rc_timer_arm(struct iv_builder *b, unsigned int cpu, const struct armed_timer *t);
void rc_timer_disarm(struct iv_builder *b, uint64_t addr);
int64_t rc_next_timer(struct iv_builder *b, unsigned int cpu, int64_t now);
struct timer_slot *rc_timer_slot(struct iv_builder *b, uint64_t addr, bool create);
void rc_fmt_dur(char *buf, size_t len, int64_t ns);
int rc_emit(struct iv_builder *b, struct idle_interval *iv);

/*
 * reconstruct_guess.c: rc_guess_at_close() reconstructs a closing
 * interval's unknown timer if it can now, and says whether it must wait
 * for the trace to tell; every interval then goes through rc_guess_put(),
 * which keeps them in order behind a waiting one.
 */
bool rc_guess_at_close(struct cpu_state *c, struct idle_interval *iv, int64_t end_ns);
int rc_guess_put(struct iv_builder *b, struct cpu_state *c, struct idle_interval *iv,
		 int64_t end_ns, bool wait);
int rc_guess_on_timer_irq(struct iv_builder *b, struct cpu_state *c, int64_t now);
int rc_guess_advance(struct iv_builder *b, int64_t now);
int rc_guess_finish(struct iv_builder *b);
int rc_fail(struct iv_builder *b, uint64_t line, const char *msg);
int rc_clk_establish(struct iv_builder *b, uint64_t line);
int rc_on_clock(struct iv_builder *b, const struct trace_event *ev);
int rc_on_lost(struct iv_builder *b, struct cpu_state *c, const struct trace_event *ev);
void rc_account_entry(struct cpu_state *c, int64_t exit_ns, int64_t *min_entry_ns);
int rc_close_pending(struct iv_builder *b, struct cpu_state *c, int64_t next_entry_ns);
int rc_release_held(struct iv_builder *b);

#endif /* LAB_RECONSTRUCT_INTERNAL_H */
