/* SPDX-License-Identifier: MIT */
/*
 * intervals.h - idle intervals reconstructed from a trace: what the lab
 * replays.
 *
 * An interval is one stretch of time a CPU had nothing to do, from its idle
 * entry to the wake-up that needed it.  The kernel may have entered idle
 * several times within it (the polling state's time limit ran out, or a
 * tick woke the CPU and nothing ran): those re-entries are merged back into
 * one interval, since another governor would not have made them, and the
 * kernel's state for each entry is kept for comparison.
 */
#ifndef LAB_INTERVALS_H
#define LAB_INTERVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lab_limits.h"

/* What ended an interval. */
enum iv_wake {
	IV_WAKE_UNKNOWN,	/* no wake event seen before the exit */
	IV_WAKE_TIMER,		/* an hrtimer other than the tick */
	IV_WAKE_TICK,		/* the tick, and something then ran */
	IV_WAKE_RESCHED,	/* reschedule IPI */
	IV_WAKE_CALL_FUNC,	/* function-call IPI */
	IV_WAKE_IRQ,		/* a device interrupt (see irq) */
	IV_WAKE_NR,
};

/* interval flags */
#define IV_PARTIAL_START	0x01	/* the trace began inside it: start unknown */
#define IV_PARTIAL_END		0x02	/* the trace ended inside it: end unknown */
#define IV_TIMER_UNKNOWN	0x04	/* the next timer at entry cannot be told */
#define IV_KERNEL_ABOVE		0x08	/* the kernel logged cpu_idle_miss above */
#define IV_KERNEL_BELOW		0x10	/* ... and below */
#define IV_TASK_WAKE		0x20	/* no interrupt woke it, a task woken for
					 * it did (IV_WAKE_UNKNOWN): need_resched
					 * set without an IPI, as for a CPU that
					 * polls; not its polling time limit */
#define IV_KSTATES_REST		0x40	/* more than IV_MAX_KSTATES kernel
					 * entries, and every one past those kept
					 * was in the last kept one's state (a
					 * CPU held at QoS 0 re-enters its
					 * polling state at its time limit) */
#define IV_TIMER_GUESSED	0x80	/* the trace shows no timer armed at
					 * entry: the next timer was
					 * reconstructed from its local timer
					 * interrupts (reconstruct_guess.c);
					 * never with IV_TIMER_UNKNOWN */

#define IV_MAX_KSTATES		8	/* kernel states kept per interval */
#define IV_NO_TIMER		INT64_MAX

/**
 * struct idle_interval - one idle interval of one CPU
 * @start_ns: idle entry (trace clock)
 * @idle_ns: true idle length: entry to the wake-up that needed the CPU
 * @timer_ns: entry to the next timer event, the tick not counted
 *	(IV_NO_TIMER if none is armed); meaningless with IV_TIMER_UNKNOWN,
 *	reconstructed with IV_TIMER_GUESSED, as the trace showed it otherwise
 * @busy_ns: wake-up to the next idle entry of this CPU (0 for the last)
 * @qos_us: CPU latency QoS in force at entry (PM_QOS default if none)
 * @cpu: the CPU
 * @irq: the device interrupt with IV_WAKE_IRQ, else -1 (and -1 for one
 *	numbered above INT16_MAX)
 * @wake: enum iv_wake
 * @flags: IV_*
 * @nr_entries: kernel idle entries merged in (may exceed IV_MAX_KSTATES)
 * @kstates: the state the kernel entered, per entry (the first
 *	IV_MAX_KSTATES; with IV_KSTATES_REST, the last one's is every later
 *	entry's too)
 * @kernel_idle_ns: time the kernel accounted in idle states (entry to
 *	exit, summed over the entries)
 * @kernel_loop_ns: time the kernel spent between its merged entries (exit
 *	to re-entry, summed): the idle loop going round, stopping the tick
 *	(in a VM this reprograms the timer through the hypervisor)
 * @nr_kwindows: the kernel's polling window adjustments in this interval
 *	(power:guest_halt_poll_ns events of haltpoll, one at most after each
 *	entry); may exceed what @kwindow_mask can show
 * @kwindow_mask: bit j set: the kernel adjusted the window after entry j
 *	(j < IV_MAX_KSTATES), to @kwindow[j] ns
 * @kwindow: the new window per entry with its bit set, else 0
 * @ktick_mask: bit j set: the kernel's entry j (j < IV_MAX_KSTATES) was
 *	ended by its tick, which ran nothing, and the CPU re-entered idle:
 *	the tick was running then, whatever the governor asked (the kernel
 *	keeps it for timer-wheel events and RCU, which a trace does not show)
 * @kresidency: the kernel's residency in entry j (j < IV_MAX_KSTATES and
 *	j < @nr_entries, else 0), its idle exit minus its idle entry in ns as
 *	the trace shows them, saturated at UINT32_MAX (4.29 s; only a long
 *	halt comes near it).  The kernel's poll outlasts its time limit
 *	(poll_idle() reads the clock only every 200 spins, slowly in a VM)
 *	and its halt's exit comes after the wake-up (a late tick, the
 *	interrupt's handler): fidelity replays the kernel's entries as long.
 */
struct idle_interval {
	int64_t start_ns;
	int64_t idle_ns;
	int64_t timer_ns;
	int64_t busy_ns;
	int64_t kernel_idle_ns;
	int32_t qos_us;
	uint16_t cpu;
	int16_t irq;
	uint8_t wake;
	uint8_t flags;
	uint16_t nr_entries;
	int8_t kstates[IV_MAX_KSTATES];
	uint8_t kwindow_mask;
	uint8_t ktick_mask;
	uint16_t nr_kwindows;
	uint32_t kwindow[IV_MAX_KSTATES];
	int64_t kernel_loop_ns;
	uint32_t kresidency[IV_MAX_KSTATES];
};	/* the fields in the interval file's record order (cpuidle-ivf(5)) */

/**
 * struct iv_notes - what reading a trace noticed that a reader of its
 * results should be told; kept in the interval file (cpuidle-ivf(5))
 * @clock_offset_ns: the timers' clock (CLOCK_MONOTONIC, the ticks' now=)
 *	minus the trace's clock, where it is not within the tolerance of 0:
 *	timer expiries were moved into trace time by it (the last value, if
 *	it drifted); 0: the trace is on CLOCK_MONOTONIC, or no tick expired
 * @clock_line: the line where @clock_offset_ns was first measured
 * @clock_unknown: intervals marked IV_TIMER_UNKNOWN because they began
 *	before the offset was measured
 * @lost_gaps: the places where the tracer lost events (TEV_LOST)
 * @lost_events: how many it lost there, where it said
 * @lost_cpu, @lost_line, @lost_n: the first such place: its CPU, line and
 *	count (0: not said)
 * @nr_idle_less: CPUs below the machine's count without a single idle
 *	entry or exit (power:cpu_idle): the replay takes them as always busy
 * @idle_less: those CPUs, a bit each
 * @residency_skew_ns: how much longer the trace shows an idle entry than
 *	the kernel measured it: the cost of writing the events around it,
 *	measured in the trace (reconstruct.c, residency_skew()).  A replay of
 *	the kernel's own entries (cpuidle_lab_run.kernel_loop) shows the
 *	governor the kernel's residency, the trace's less this: at a
 *	threshold (haltpoll's window, its guest_halt_poll_ns) a microsecond
 *	decides
 * @recording_len: bytes in @recording
 * @recording: the recording's description (trace_info.recording: what
 *	cpuidle record wrote of the machine, its governor and tunables), kept
 *	so that a replay of the interval file knows it too
 * @window_known: the CPUs whose @window_start the trace tells, a bit each
 * @window_start: per CPU, the polling window (cpuidle_device.poll_limit_ns,
 *	haltpoll's) in force when its first complete interval began: the
 *	last value power:guest_halt_poll_ns logged before it, else the old
 *	value the first one logged after it.  A replay of the recording
 *	governor starts from it (cpuidle_lab_run.notes), as the kernel did,
 *	rather than from 0, where the kernel's window was when haltpoll was
 *	enabled, long before the trace began.
 */
struct iv_notes {
	int64_t clock_offset_ns;
	uint64_t clock_line;
	uint64_t clock_unknown;
	uint64_t lost_gaps;
	uint64_t lost_events;
	unsigned int lost_cpu;
	uint64_t lost_line;
	int64_t lost_n;
	unsigned int nr_idle_less;
	uint64_t idle_less[LAB_MAX_CPUS / 64];
	int64_t residency_skew_ns;
	uint64_t window_known[LAB_MAX_CPUS / 64];
	uint32_t window_start[LAB_MAX_CPUS];
	uint32_t recording_len;
	char recording[LAB_RECORDING_MAX];
};

/**
 * struct iv_stats - what reconstruction saw, for reports and sanity
 * @events: events consumed
 * @intervals: intervals emitted (partial ones included)
 * @complete: those that are not partial (a replay's)
 * @timer_guessed, @timer_unknown: complete ones whose next timer was
 *	reconstructed (IV_TIMER_GUESSED), or is unknown (IV_TIMER_UNKNOWN)
 * @merged_entries: kernel idle entries merged into a previous interval
 * @window_events: the kernel's polling window adjustments seen
 *	(power:guest_halt_poll_ns), wherever they fell
 * @nr_cpus: highest CPU with events of its own + 1 (a CPU named only as
 *	a wake-up target, above them, is not part of the machine)
 * @first_ns, @last_ns: the trace's time span
 * @notes: what the reader of the trace should be told (struct iv_notes)
 * @irq_names: names of device interrupts by number (first seen), for
 *	reports; irq numbers >= IV_MAX_IRQ are not named
 */
#define IV_MAX_IRQ	256
struct iv_stats {
	uint64_t events;
	uint64_t intervals;
	uint64_t complete;		/* intervals not partial: the replayed ones */
	uint64_t timer_guessed;		/* complete intervals with IV_TIMER_GUESSED */
	uint64_t timer_unknown;		/* ... with IV_TIMER_UNKNOWN */
	uint64_t merged_entries;
	uint64_t window_events;
	unsigned int nr_cpus;
	int64_t first_ns, last_ns;
	struct iv_notes notes;
	char irq_names[IV_MAX_IRQ][LAB_IRQ_NAME_LEN];
};

/** iv_wake_name() - "timer", "tick", "resched", "call-func", "irq", "unknown" */
const char *iv_wake_name(enum iv_wake w);

#endif /* LAB_INTERVALS_H */
