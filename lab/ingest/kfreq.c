// SPDX-License-Identifier: MIT
/*
 * kfreq.c - time at each frequency, per CPU, while it runs.
 *
 * The rule is idlestat's (idlestat.c, cpu_change_pstate(),
 * cpu_pstate_idle() and cpu_pstate_running(), read in idlestat 0.5 and
 * checked against Debian's idlestat 0.8 on hand-made traces): a CPU's
 * time at a frequency is counted while it runs, not while it is idle.  A
 * stretch starts at an idle exit, or at a frequency change while running,
 * and ends at the next idle entry or change; each stretch is a hit of the
 * frequency it ran at, one of 0 ns none.  A frequency change while idle
 * only says at which frequency the CPU will run after its exit.  A stretch
 * still going on when the trace ends is not counted (nor is an idle period
 * without its exit in the C-state table).
 *
 * Before a CPU's first idle entry the trace does not say whether it runs
 * (an exit then has no entry to pair with, and changes nothing): a
 * frequency change starts a stretch that the first entry ends, and one
 * started by an earlier change is dropped, as idlestat does.  After lost
 * events, nothing is counted until an idle event says again whether the
 * CPU runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kfreq.h"

/* a CPU's tally grows by this many frequencies at a time */
#define KFREQ_ROWS_STEP		8

static struct kfreq_cpu *cpu_of(struct kfreq *f, unsigned int cpu)
{
	unsigned int want = cpu + 1, i;
	struct kfreq_cpu *c;

	if (cpu >= TRACE_MAX_CPUS)
		return NULL;
	if (want > f->nr_cpus) {
		c = realloc(f->cpu, want * sizeof(*c));
		if (!c)
			return NULL;
		for (i = f->nr_cpus; i < want; i++)
			c[i] = (struct kfreq_cpu){ .phase = KFREQ_UNSURE, .since_ns = -1 };
		f->cpu = c;
		f->nr_cpus = want;
	}
	return &f->cpu[cpu];
}

/* @c's row of @khz, added in its place (lowest first) if new; NULL: no memory */
static struct kfreq_row *row_of(struct kfreq_cpu *c, uint32_t khz)
{
	struct kfreq_row *r;
	unsigned int i;

	for (i = 0; i < c->nr && c->rows[i].khz < khz; i++)
		;
	if (i < c->nr && c->rows[i].khz == khz)
		return &c->rows[i];
	if (c->nr == c->cap) {
		r = realloc(c->rows, (c->cap + KFREQ_ROWS_STEP) * sizeof(*r));
		if (!r)
			return NULL;
		c->rows = r;
		c->cap += KFREQ_ROWS_STEP;
	}
	memmove(&c->rows[i + 1], &c->rows[i], (c->nr - i) * sizeof(*c->rows));
	c->rows[i] = (struct kfreq_row){ .khz = khz };
	c->nr++;
	return &c->rows[i];
}

/* the stretch going on ends at @ts: a hit of its frequency */
static int close_stretch(struct kfreq_cpu *c, int64_t ts)
{
	int64_t d = ts - c->since_ns;
	struct kfreq_row *r;

	if (!c->known || c->since_ns < 0 || d <= 0)
		return 0;
	r = row_of(c, c->khz);
	if (!r)
		return -ENOMEM;
	if (!r->hits || d < r->min_ns)
		r->min_ns = d;
	if (!r->hits || d > r->max_ns)
		r->max_ns = d;
	r->hits++;
	r->total_ns += (uint64_t)d;
	return 0;
}

int kfreq_event(struct kfreq *f, const struct trace_event *ev)
{
	struct kfreq_cpu *c;
	int ret = 0;

	if (ev->type != TEV_CPU_FREQ && ev->type != TEV_IDLE_ENTER &&
	    ev->type != TEV_IDLE_EXIT && ev->type != TEV_LOST)
		return 0;
	c = cpu_of(f, ev->cpu);
	if (!c)
		return ev->cpu >= TRACE_MAX_CPUS ? 0 : -ENOMEM;
	switch (ev->type) {
	case TEV_CPU_FREQ:
		f->events++;
		if (c->phase == KFREQ_RUNNING)
			ret = close_stretch(c, ev->ts_ns);
		if (c->phase == KFREQ_RUNNING || c->phase == KFREQ_UNSURE)
			c->since_ns = ev->ts_ns;
		c->khz = ev->value < 0 ? 0 : ev->value > UINT32_MAX ? UINT32_MAX :
			 (uint32_t)ev->value;
		c->known = true;
		return ret;
	case TEV_IDLE_ENTER:
		if (c->phase == KFREQ_RUNNING || c->phase == KFREQ_UNSURE)
			ret = close_stretch(c, ev->ts_ns);
		c->phase = KFREQ_IDLE;
		c->since_ns = -1;
		return ret;
	case TEV_IDLE_EXIT:
		if (c->phase == KFREQ_UNSURE)
			return 0;	/* no entry to pair it with */
		c->phase = KFREQ_RUNNING;
		c->since_ns = ev->ts_ns;
		return 0;
	default:	/* TEV_LOST */
		c->phase = KFREQ_GAP;
		c->since_ns = -1;
		return 0;
	}
}

void kfreq_free(struct kfreq *f)
{
	unsigned int cpu;

	for (cpu = 0; cpu < f->nr_cpus; cpu++)
		free(f->cpu[cpu].rows);
	free(f->cpu);
	f->cpu = NULL;
	f->nr_cpus = 0;
}
