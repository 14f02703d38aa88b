// SPDX-License-Identifier: MIT
/*
 * kwake.c - what ended each idle period, per CPU.
 *
 * The rule is idlestat's (idlestat.c, store_irq() and cstate_begin(), read
 * in idlestat 0.5 and checked against Debian's idlestat 0.8 on hand-made
 * traces): after a CPU enters idle, the first interrupt it handles is the
 * period's wake-up, whether the handler runs inside the state (a VM's halt
 * with interrupts on: before the exit event) or just after it (most
 * drivers enter with interrupts off: after the exit event); nothing more is
 * given to that period, and the next entry opens the next one.  Before a
 * CPU's first entry, the trace may have begun inside a period whose entry
 * it does not have: the first interrupt of the CPU is that period's
 * wake-up.  An exit before the first entry changes nothing (there is no
 * entry to pair it with).
 *
 * idlestat reads device interrupts (irq:irq_handler_entry) and arm's IPIs
 * (ipi:ipi_entry); this tally reads every wake-up event the readers give:
 * the local timer and x86's IPIs (irq_vectors) too, so on a trace that has
 * them an interrupt taken while the CPU runs, after a period a timer or
 * an IPI ended, is not taken for that period's wake-up as idlestat would
 * take it.  Where the trace has no event at all before the CPU's next
 * entry, the period's wake-up is unknown (a polling state left by
 * need_resched, set without an IPI, or by its time limit).  On a trace
 * with device interrupts only (idlestat's own, on x86), an interrupt taken
 * while running after such a period is that period's, as in idlestat.
 *
 * arm and arm64 take IPIs through an interrupt named "IPI", whose handler
 * then logs the IPI's reason (ipi:ipi_entry): the reason, when it is one
 * the lab knows, replaces the interrupt as the wake-up.
 *
 * Early and late: idlestat's verdict on the period, from a state table's
 * target residencies: early if the stay was shorter than its state's, late
 * if it reached the next deeper state's.  idlestat gives an interrupt the
 * verdict on the last period that ended (an interrupt inside the state
 * gets the previous period's); here each gets its own period's, once its
 * exit is seen.  idlestat judges "late" only against a deeper state the
 * CPU has entered so far in the trace; here, against the table's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kwake.h"

/* a CPU's tally grows by this many sources at a time */
#define KWAKE_SOURCES_STEP	8

void kwake_init(struct kwake *w, const struct cpuidle_platform_state *states, int nr_states)
{
	memset(w, 0, sizeof(*w));
	w->states = states;
	w->nr_states = states ? nr_states : 0;
}

static struct kwake_cpu *cpu_of(struct kwake *w, unsigned int cpu)
{
	unsigned int want = cpu + 1, i;
	struct kwake_cpu *c;

	if (cpu >= TRACE_MAX_CPUS)
		return NULL;
	if (want > w->nr_cpus) {
		c = realloc(w->cpu, want * sizeof(*c));
		if (!c)
			return NULL;
		for (i = w->nr_cpus; i < want; i++)
			c[i] = (struct kwake_cpu){ .phase = KWAKE_BEFORE, .last = -1,
						   .stay_ns = -1, .verdict = -1 };
		w->cpu = c;
		w->nr_cpus = want;
	}
	return &w->cpu[cpu];
}

/* the source of @kind (and @irq, @name) in @c, added if new; -1: no memory */
static int source_of(struct kwake_cpu *c, enum kwake_kind kind, int irq, const char *name)
{
	struct kwake_source *s;
	unsigned int i;

	for (i = 0; i < c->nr; i++) {
		s = &c->src[i];
		if (s->kind == kind && (kind != KWAKE_IRQ || (s->irq == irq && !strcmp(s->name,
										    name))))
			return (int)i;
	}
	if (c->nr == c->cap) {
		s = realloc(c->src, (c->cap + KWAKE_SOURCES_STEP) * sizeof(*s));
		if (!s)
			return -1;
		c->src = s;
		c->cap += KWAKE_SOURCES_STEP;
	}
	s = &c->src[c->nr];
	*s = (struct kwake_source){ .kind = kind, .irq = kind == KWAKE_IRQ ? irq : -1 };
	if (kind == KWAKE_IRQ)
		snprintf(s->name, sizeof(s->name), "%s", name);
	return (int)c->nr++;
}

/* idlestat's verdict on a stay of @stay_ns in @state: 0, 1 early, 2 late */
static int verdict(const struct kwake *w, int state, int64_t stay_ns)
{
	if (!kwake_judged(w) || state < 0 || state >= w->nr_states)
		return 0;
	if (stay_ns < w->states[state].target_residency_ns)
		return 1;
	if (state + 1 < w->nr_states && stay_ns >= w->states[state + 1].target_residency_ns)
		return 2;
	return 0;
}

static void give_verdict(struct kwake_source *s, int v, int sign)
{
	if (v == 1)
		s->early += (uint64_t)sign;
	else if (v == 2)
		s->late += (uint64_t)sign;
}

/* @c's current period is given to source @i (its verdict now, or at its exit) */
static void attribute(struct kwake *w, struct kwake_cpu *c, int i)
{
	struct kwake_source *s = &c->src[i];

	s->count++;
	c->last = i;
	c->verdict = -1;
	if (c->phase == KWAKE_BEFORE) {
		c->verdict = 0;		/* a period whose entry the trace does not have */
	} else if (c->stay_ns >= 0) {
		c->verdict = verdict(w, c->state, c->stay_ns);
		give_verdict(s, c->verdict, 1);
	}
	c->phase = KWAKE_DONE;
}

/* an "IPI" interrupt given the period gives way to the IPI it turns out to be */
static void replace(struct kwake_cpu *c, int i)
{
	struct kwake_source *old = &c->src[c->last];

	old->count--;
	if (c->verdict > 0) {
		give_verdict(old, c->verdict, -1);
		give_verdict(&c->src[i], c->verdict, 1);
	}
	c->src[i].count++;
	c->last = i;
}

/* a period that ended with no wake-up event: an unknown one */
static int unknown(struct kwake *w, struct kwake_cpu *c)
{
	int i = source_of(c, KWAKE_UNKNOWN, -1, "");

	if (i < 0)
		return -ENOMEM;
	c->src[i].count++;
	give_verdict(&c->src[i], c->stay_ns >= 0 ? verdict(w, c->state, c->stay_ns) : 0, 1);
	return 0;
}

static enum kwake_kind kind_of(enum trace_ev_type t)
{
	switch (t) {
	case TEV_LOCAL_TIMER:
		return KWAKE_TIMER;
	case TEV_RESCHED_IPI:
		return KWAKE_RESCHED;
	case TEV_CALL_FUNC_IPI:
		return KWAKE_CALL_FUNC;
	default:
		return KWAKE_IRQ;
	}
}

int kwake_event(struct kwake *w, const struct trace_event *ev)
{
	struct kwake_cpu *c;
	bool ipi_follows;
	int i;

	switch (ev->type) {
	case TEV_IDLE_ENTER:
	case TEV_IDLE_EXIT:
	case TEV_LOST:
	case TEV_LOCAL_TIMER:
	case TEV_RESCHED_IPI:
	case TEV_CALL_FUNC_IPI:
	case TEV_IRQ:
		break;
	default:
		return 0;
	}
	c = cpu_of(w, ev->cpu);
	if (!c)
		return ev->cpu >= TRACE_MAX_CPUS ? 0 : -ENOMEM;
	ipi_follows = c->ipi_irq;
	c->ipi_irq = false;
	switch (ev->type) {
	case TEV_IDLE_ENTER:
		if (c->phase == KWAKE_OPEN && unknown(w, c))
			return -ENOMEM;
		*c = (struct kwake_cpu){ .src = c->src, .nr = c->nr, .cap = c->cap,
					 .phase = KWAKE_OPEN, .state = ev->state,
					 .entry_ns = ev->ts_ns, .stay_ns = -1, .last = -1,
					 .verdict = -1 };
		return 0;
	case TEV_IDLE_EXIT:
		if (c->phase == KWAKE_BEFORE || c->stay_ns >= 0 || ev->ts_ns < c->entry_ns)
			return 0;	/* no entry to pair it with */
		c->stay_ns = ev->ts_ns - c->entry_ns;
		if (c->phase == KWAKE_DONE && c->last >= 0 && c->verdict < 0) {
			/* its wake-up came inside the state: judged now */
			c->verdict = verdict(w, c->state, c->stay_ns);
			give_verdict(&c->src[c->last], c->verdict, 1);
		}
		return 0;
	case TEV_LOST:
		/* the period's wake-up or exit may be among the lost events */
		c->phase = KWAKE_DONE;
		c->last = -1;
		return 0;
	default:
		break;
	}
	w->events++;
	if (ipi_follows && ev->type != TEV_IRQ) {
		i = source_of(c, kind_of(ev->type), -1, "");
		if (i < 0)
			return -ENOMEM;
		replace(c, i);
		return 0;
	}
	if (c->phase == KWAKE_DONE)
		return 0;	/* the period has its wake-up: the CPU runs, or handles more */
	i = source_of(c, kind_of(ev->type), ev->irq, ev->name);
	if (i < 0)
		return -ENOMEM;
	attribute(w, c, i);
	c->ipi_irq = ev->type == TEV_IRQ && !strcmp(ev->name, "IPI");
	return 0;
}

/* most periods first; kinds in enum order, interrupts by number, name; unknown last */
static int cmp_source(const void *a, const void *b)
{
	const struct kwake_source *x = a, *y = b;

	if ((x->kind == KWAKE_UNKNOWN) != (y->kind == KWAKE_UNKNOWN))
		return x->kind == KWAKE_UNKNOWN ? 1 : -1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->irq != y->irq)
		return x->irq < y->irq ? -1 : 1;
	return strcmp(x->name, y->name);
}

int kwake_finish(struct kwake *w)
{
	unsigned int cpu;

	for (cpu = 0; cpu < w->nr_cpus; cpu++) {
		struct kwake_cpu *c = &w->cpu[cpu];

		/* ended with no wake-up event: unknown; still idle at the end: not ended */
		if (c->phase == KWAKE_OPEN && c->stay_ns >= 0 && unknown(w, c))
			return -ENOMEM;
		c->phase = KWAKE_DONE;
		c->last = -1;
		if (c->nr)
			qsort(c->src, c->nr, sizeof(*c->src), cmp_source);
	}
	return 0;
}

void kwake_free(struct kwake *w)
{
	unsigned int cpu;

	for (cpu = 0; cpu < w->nr_cpus; cpu++)
		free(w->cpu[cpu].src);
	free(w->cpu);
	w->cpu = NULL;
	w->nr_cpus = 0;
}
