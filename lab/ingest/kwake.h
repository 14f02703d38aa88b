/* SPDX-License-Identifier: MIT */
/*
 * kwake.h - what ended each idle period of each CPU, from a trace: an
 * interrupt (by number and name), the local timer, an IPI (by kind), or
 * nothing the trace shows (idlestat's wake-up table, and more).
 */
#ifndef LAB_KWAKE_H
#define LAB_KWAKE_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuidle/platform.h"
#include "trace.h"

enum kwake_kind {
	KWAKE_TIMER,		/* the CPU's local timer (or a timer broadcast IPI) */
	KWAKE_RESCHED,		/* a rescheduling IPI */
	KWAKE_CALL_FUNC,	/* a function call IPI (single or many) */
	KWAKE_IRQ,		/* a device interrupt: @irq, @name */
	KWAKE_UNKNOWN,		/* no event of the CPU before its next entry */
};

/**
 * struct kwake_source - one thing that ended idle periods of a CPU
 * @kind: what it is
 * @irq: KWAKE_IRQ: its number (else -1)
 * @name: KWAKE_IRQ: its name (else empty)
 * @count: the periods it ended
 * @early: of those, the stays shorter than their state's target residency
 * @late: of those, the stays that reached the next deeper state's target
 *	residency (early and late need a state table: kwake_init())
 */
struct kwake_source {
	enum kwake_kind kind;
	int irq;
	char name[TRACE_IRQ_NAME_LEN];
	uint64_t count;
	uint64_t early, late;
};

/* where a CPU's current idle period stands (kwake.c) */
enum kwake_phase {
	KWAKE_BEFORE,		/* before its first entry: the period the trace began in */
	KWAKE_OPEN,		/* a period waits for its wake-up */
	KWAKE_DONE,		/* its wake-up found (or lost with the tracer's events) */
};

/**
 * struct kwake_cpu - one CPU's sources and where it stands
 * @src: its sources, @nr of them (room for @cap)
 * @phase: where its current period stands
 * @state: the state its current period entered
 * @entry_ns: when
 * @stay_ns: the period's length once its exit is seen, else -1
 * @last: the source the current period was given, or -1
 * @verdict: what @last was given for that period: 0 nothing, 1 early,
 *	2 late; -1 none yet (its exit is to come)
 * @ipi_irq: @last is arm's "IPI" interrupt, which the IPI's own event
 *	(ipi:ipi_entry, its reason) may follow and replace
 */
struct kwake_cpu {
	struct kwake_source *src;
	unsigned int nr, cap;
	enum kwake_phase phase;
	int state;
	int64_t entry_ns;
	int64_t stay_ns;
	int last;
	int verdict;
	bool ipi_irq;
};

/**
 * struct kwake - every CPU's wake-ups
 * @nr_cpus: the highest CPU with a wake-up event or an idle event, + 1
 * @cpu: their tallies
 * @events: the wake-up events read (interrupts, timers, IPIs)
 * @states, @nr_states: the state table early and late are judged by
 *	(none: not judged)
 */
struct kwake {
	unsigned int nr_cpus;
	struct kwake_cpu *cpu;
	uint64_t events;
	const struct cpuidle_platform_state *states;
	int nr_states;
};

/**
 * kwake_init() - start a tally
 * @w: the tally
 * @states: the state table to judge stays by (may be NULL: not judged)
 * @nr_states: its size
 */
void kwake_init(struct kwake *w, const struct cpuidle_platform_state *states, int nr_states);

/**
 * kwake_event() - one event of the trace, in file order
 * @w: the tally
 * @ev: any event; idle entries and exits, interrupts, timers, IPIs and
 *	lost-event markers count, others are passed by
 *
 * Return: 0, or -ENOMEM.
 */
int kwake_event(struct kwake *w, const struct trace_event *ev);

/**
 * kwake_finish() - the trace has ended: a period that ended (its exit
 * seen) with no wake-up event since is an unknown one; its sources sorted
 * (most periods first; the unknown ones last)
 * @w: the tally
 *
 * Return: 0, or -ENOMEM.
 */
int kwake_finish(struct kwake *w);

/** kwake_free() - what the tally holds */
void kwake_free(struct kwake *w);

/** kwake_judged() - are early and late known (a state table was given)? */
static inline bool kwake_judged(const struct kwake *w)
{
	return w->states && w->nr_states > 0;
}

#endif /* LAB_KWAKE_H */
