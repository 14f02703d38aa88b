// SPDX-License-Identifier: MIT
/*
 * reconstruct_guess.c - the next timer at idle entry where the trace does
 * not show it: reconstructed from the CPU's local timer interrupts
 */

/**
 * DOC: reconstructed timers
 *
 * A governor is always told when the CPU's next timer fires: the kernel
 * knows (tick_nohz_get_sleep_length()).  A trace knows only if it carries
 * the timer events (timer:hrtimer_start and its kin, see DOC:
 * reconstruction); many do not (the phone and board traces of LISA, perf
 * recordings of power:cpu_idle alone), and every trace lacks them for a
 * CPU until its first timer is programmed.  Told "no timer" instead, a
 * governor sees an input the kernel never gives it.  Where the trace
 * shows the CPU's local timer interrupt (irq_vectors:local_timer_entry,
 * arch_timer and its kin), the interrupts tell the timer, in this order:
 *
 * 1. The wake-up revealed it: a local timer interrupt ended the idle
 *    period, so the earliest timer armed at entry fired then (an earlier
 *    one would have woken the CPU first): the next timer is the idle
 *    period's length, exactly (unless it was armed during the idle period
 *    from another CPU, which hrtimers rarely are).
 * 2. The next expiry the trace shows: otherwise (an IPI or a device woke
 *    it), a timer armed at entry has not fired by the wake-up; the CPU's
 *    next local timer interrupt after it, within GUESS_HORIZON_NS, is
 *    taken for it.  It may be one armed after the wake-up, earlier than
 *    the one armed at entry: an estimate, never later than the truth's
 *    lower bound of the idle period's length.
 * 3. None within GUESS_HORIZON_NS on a CPU whose interrupts the trace
 *    shows: no timer armed at entry fired within it, so the next timer is
 *    at least that far (the bound is given: every state's target
 *    residency is far shorter, so no governor decides differently).
 *
 * Such intervals are marked IV_TIMER_GUESSED; a trace without local timer
 * interrupts (the Juno trace.dat: power:cpu_idle and sched events only)
 * leaves them IV_TIMER_UNKNOWN, and every output counts both kinds.
 *
 * Case 2 needs the future: an interval waiting for it is held here, and
 * every interval closed after it with it (they leave in the order they
 * closed), until the CPU's next local timer interrupt or until trace time
 * passes its horizon.  Traces with timer events hold nothing past their
 * CPUs' first intervals.
 */
#include <errno.h>
#include <stdlib.h>

#include "reconstruct_internal.h"

/*
 * How far past an idle period's wake-up the CPU's next local timer
 * interrupt is taken for the timer armed at its entry, and the bound given
 * when none comes within it.  One second: a hundred times the deepest
 * target residency of any platform here (cluster states, <= 10 ms), so a
 * timer beyond it changes no governor's choice; and intervals are held for
 * that much trace time at most (on a busy 128-CPU machine a few hundred
 * thousand, ~40 MB at worst).
 */
#define GUESS_HORIZON_NS	(1000 * 1000 * 1000LL)

#define NO_SEQ	UINT64_MAX

struct guess_item {
	struct idle_interval iv;
	int64_t deadline_ns;	/* its wake-up + GUESS_HORIZON_NS */
	uint64_t prev_wait;	/* the previous waiting item of its CPU, or NO_SEQ */
	bool waiting;
};

#define ITEM(b, seq)	(&(b)->guess[((b)->guess_head + ((seq) - (b)->guess_base)) & \
				      ((b)->guess_cap - 1)])

static void guessed(struct idle_interval *iv, int64_t timer_ns)
{
	iv->flags = (uint8_t)((iv->flags & ~IV_TIMER_UNKNOWN) | IV_TIMER_GUESSED);
	iv->timer_ns = timer_ns;
}

bool rc_guess_at_close(struct cpu_state *c, struct idle_interval *iv, int64_t end_ns)
{
	if (!(iv->flags & IV_TIMER_UNKNOWN) ||
	    (iv->flags & (IV_PARTIAL_START | IV_PARTIAL_END)))
		return false;
	if (c->wake == IV_WAKE_TIMER) {				/* 1 */
		guessed(iv, iv->idle_ns);
		return false;
	}
	if (c->timer_irq_ns >= 0 && c->timer_irq_ns - end_ns <= GUESS_HORIZON_NS) {	/* 2 */
		guessed(iv, c->timer_irq_ns - iv->start_ns);
		return false;
	}
	return true;	/* 2 or 3, once the trace tells */
}

/* Let the items at the front go that wait no more. */
static int release(struct iv_builder *b)
{
	while (b->guess_len && !b->guess[b->guess_head].waiting) {
		struct idle_interval iv = b->guess[b->guess_head].iv;
		int ret;

		b->guess_head = (b->guess_head + 1) & (b->guess_cap - 1);
		b->guess_len--;
		b->guess_base++;
		ret = rc_emit(b, &iv);
		if (ret)
			return ret;
	}
	return 0;
}

int rc_guess_put(struct iv_builder *b, struct cpu_state *c, struct idle_interval *iv,
		 int64_t end_ns, bool wait)
{
	struct guess_item *it;

	if (!wait && !b->guess_len)
		return rc_emit(b, iv);
	if (b->guess_len == b->guess_cap) {
		size_t cap = b->guess_cap ? b->guess_cap * 2 : 64, i;
		struct guess_item *g = malloc(cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		for (i = 0; i < b->guess_len; i++)
			g[i] = b->guess[(b->guess_head + i) & (b->guess_cap - 1)];
		free(b->guess);
		b->guess = g;
		b->guess_cap = cap;
		b->guess_head = 0;
	}
	it = &b->guess[(b->guess_head + b->guess_len) & (b->guess_cap - 1)];
	it->iv = *iv;
	it->waiting = wait;
	it->deadline_ns = end_ns > INT64_MAX - GUESS_HORIZON_NS ? INT64_MAX :
			  end_ns + GUESS_HORIZON_NS;
	it->prev_wait = NO_SEQ;
	if (wait) {
		it->prev_wait = c->guess_wait;
		c->guess_wait = b->guess_base + b->guess_len;
	}
	b->guess_len++;
	return 0;
}

int rc_guess_on_timer_irq(struct iv_builder *b, struct cpu_state *c, int64_t now)
{
	uint64_t seq;

	c->timer_irq_seen = true;
	for (seq = c->guess_wait; seq != NO_SEQ && seq >= b->guess_base; ) {
		struct guess_item *it = ITEM(b, seq);

		if (it->waiting && now <= it->deadline_ns)
			guessed(&it->iv, now - it->iv.start_ns);
		it->waiting = false;
		seq = it->prev_wait;
	}
	c->guess_wait = NO_SEQ;
	return release(b);
}

int rc_guess_advance(struct iv_builder *b, int64_t now)
{
	struct guess_item *it;
	int ret;

	while (b->guess_len) {
		it = &b->guess[b->guess_head];
		if (it->waiting) {
			if (now <= it->deadline_ns)
				return 0;
			/* 3: nothing fired within the horizon */
			if (b->cpus[it->iv.cpu].timer_irq_seen)
				guessed(&it->iv, it->deadline_ns - it->iv.start_ns);
			it->waiting = false;
		}
		ret = release(b);	/* the sink's error, whatever it is */
		if (ret)
			return ret;
	}
	return 0;
}

int rc_guess_finish(struct iv_builder *b)
{
	size_t i;

	/* the trace ended within their horizon: unknown they stay */
	for (i = 0; i < b->guess_len; i++)
		b->guess[(b->guess_head + i) & (b->guess_cap - 1)].waiting = false;
	return release(b);
}
