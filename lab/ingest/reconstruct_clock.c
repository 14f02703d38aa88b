// SPDX-License-Identifier: MIT
/*
 * reconstruct_clock.c - the trace clock checked against the kernel's own
 * (the ticks' CLOCK_MONOTONIC now=), and the tracer's lost events: what
 * reconstruction says of a trace it cannot trust as it is.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconstruct_internal.h"

/* "1.234 s", "12.345 ms" or "123.456 us" for @ns (its magnitude). */
void rc_fmt_dur(char *buf, size_t len, int64_t ns)
{
	double v = ns < 0 ? -(double)ns : (double)ns;

	if (v >= 1e9)
		snprintf(buf, len, "%.3f s", v * 1e-9);
	else if (v >= 1e6)
		snprintf(buf, len, "%.3f ms", v * 1e-6);
	else
		snprintf(buf, len, "%.3f us", v * 1e-3);
}

int rc_fail(struct iv_builder *b, uint64_t line, const char *msg)
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
int rc_clk_establish(struct iv_builder *b, uint64_t line)
{
	int64_t m = clk_median(b);

	b->clk_known = true;
	b->clk_median = m;
	if (m > CLOCK_TOLERANCE_NS || m < -CLOCK_TOLERANCE_NS) {
		b->clk_offset = m;
		b->stats.notes.clock_offset_ns = m;
		b->stats.notes.clock_line = line;
	}
	return rc_release_held(b);
}

/* A tick's expiry: its now= against the trace's timestamp. */
int rc_on_clock(struct iv_builder *b, const struct trace_event *ev)
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
		return b->clk_n == CLOCK_SAMPLES ? rc_clk_establish(b, ev->line) : 0;
	m = clk_median(b);
	if ((m > b->clk_median && m - b->clk_median > CLOCK_TOLERANCE_NS) ||
	    (m < b->clk_median && b->clk_median - m > CLOCK_TOLERANCE_NS)) {
		rc_fmt_dur(jump, sizeof(jump), m - b->clk_median);
		rc_fmt_dur(from, sizeof(from), b->clk_median);
		rc_fmt_dur(to, sizeof(to), m);
		snprintf(msg, sizeof(msg), "the trace clock jumped by %s%s against CLOCK_MONOTONIC "
			 "(the tick's now=), from %s%s to %s%s: it is not one steady clock, "
			 "timer expiries cannot be placed in it", m < b->clk_median ? "-" : "",
			 jump, b->clk_median < 0 ? "-" : "", from, m < 0 ? "-" : "", to);
		return rc_fail(b, ev->line, msg);
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
int rc_on_lost(struct iv_builder *b, struct cpu_state *c, const struct trace_event *ev)
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
		rc_account_entry(c, ev->ts_ns, &b->min_entry_ns);
		c->exit_ns = ev->ts_ns;
		c->in_idle = false;
		c->pending = true;
	}
	if (c->pending) {
		c->cur.flags |= IV_PARTIAL_END;
		ret = rc_close_pending(b, c, -1);
	}
	for (i = 0; i < c->timers.n; i++) {
		struct timer_slot *slot = rc_timer_slot(b, c->timers.v[i].addr, false);

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
