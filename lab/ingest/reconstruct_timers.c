// SPDX-License-Identifier: MIT
/*
 * reconstruct_timers.c - the hrtimers reconstruction follows by address:
 * armed, cancelled, expired, and the next one of a CPU at its idle entry
 * (an open-addressed table, each CPU's armed timers in a list).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reconstruct_internal.h"

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
struct timer_slot *rc_timer_slot(struct iv_builder *b, uint64_t addr, bool create)
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

void rc_timer_disarm(struct iv_builder *b, uint64_t addr)
{
	struct timer_slot *slot = rc_timer_slot(b, addr, false);

	if (slot && slot->cpu >= 0) {
		list_remove(&b->cpus[slot->cpu].timers, addr);
		slot->cpu = -1;
	}
}

int rc_timer_arm(struct iv_builder *b, unsigned int cpu, const struct armed_timer *t)
{
	struct timer_slot *slot;
	struct timer_list *l;

	rc_timer_disarm(b, t->addr);
	slot = rc_timer_slot(b, t->addr, true);
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
int64_t rc_next_timer(struct iv_builder *b, unsigned int cpu, int64_t now)
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
			struct timer_slot *slot = rc_timer_slot(b, t->addr, false);

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
