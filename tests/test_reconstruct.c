// SPDX-License-Identifier: MIT
/*
 * test_reconstruct.c - trace events to idle intervals: wake-ups, merging
 * of poll-limit and tick-only re-entries, the kernel's residency per
 * entry, task wake-ups without an interrupt, next timers, QoS, partial
 * intervals at the edges, cross-CPU order; and the interval file round
 * trip with its corruption checks, and the older versions read.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <zlib.h>

#include "reconstruct.h"
#include "ivf.h"

#define US 1000LL
#define T0 1000000000LL		/* 1 s: the tick boundaries of a 4 ms tick */

struct collected {
	struct idle_interval iv[64];
	int n;
};

static int collect(const struct idle_interval *iv, void *arg)
{
	struct collected *c = arg;

	assert_true(c->n < 64);
	c->iv[c->n++] = *iv;
	return 0;
}

static struct trace_event ev_at(int64_t t, unsigned int cpu, enum trace_ev_type type)
{
	struct trace_event e;

	memset(&e, 0, sizeof(e));
	e.ts_ns = t;
	e.cpu = cpu;
	e.type = type;
	e.irq = -1;
	return e;
}

static void feed(struct iv_builder *b, struct trace_event e)
{
	assert_int_equal(iv_builder_feed(b, &e), 0);
}

static void enter(struct iv_builder *b, int64_t t, unsigned int cpu, int state)
{
	struct trace_event e = ev_at(t, cpu, TEV_IDLE_ENTER);

	e.state = state;
	feed(b, e);
}

static void leave(struct iv_builder *b, int64_t t, unsigned int cpu)
{
	feed(b, ev_at(t, cpu, TEV_IDLE_EXIT));
}

static void irq(struct iv_builder *b, int64_t t, unsigned int cpu, int n, const char *name)
{
	struct trace_event e = ev_at(t, cpu, TEV_IRQ);

	e.irq = n;
	snprintf(e.name, sizeof(e.name), "%s", name);
	feed(b, e);
}

static void timer_start(struct iv_builder *b, int64_t t, unsigned int cpu, uint64_t addr,
			int64_t expires, bool tick)
{
	struct trace_event e = ev_at(t, cpu, TEV_HRTIMER_START);

	e.timer = addr;
	e.expires_ns = expires;
	e.tick = tick;
	feed(b, e);
}

static void timer_fires(struct iv_builder *b, int64_t t, unsigned int cpu, uint64_t addr,
			bool tick)
{
	struct trace_event e;

	feed(b, ev_at(t, cpu, TEV_LOCAL_TIMER));
	e = ev_at(t + 1 * US, cpu, TEV_HRTIMER_EXPIRE);
	e.timer = addr;
	e.tick = tick;
	e.now_ns = t;
	feed(b, e);
}

static void wakeup(struct iv_builder *b, int64_t t, unsigned int cpu, int target)
{
	struct trace_event e = ev_at(t, cpu, TEV_WAKEUP);

	e.target_cpu = target;
	feed(b, e);
}

static struct iv_builder *builder(struct collected *c)
{
	struct iv_builder *b;

	memset(c, 0, sizeof(*c));
	assert_int_equal(iv_builder_create(collect, c, &b), 0);
	return b;
}

static void test_irq_wakeup_and_busy(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);

	(void)state;
	enter(b, T0, 0, 1);
	irq(b, T0 + 500 * US, 0, 36, "virtio1-req.0");
	leave(b, T0 + 510 * US, 0);
	enter(b, T0 + 600 * US, 0, 1);
	leave(b, T0 + 900 * US, 0);	/* ends with no wake event: unknown */
	enter(b, T0 + 1000 * US, 0, 0);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 3);
	assert_int_equal(c.iv[0].start_ns, T0);
	assert_int_equal(c.iv[0].idle_ns, 500 * US);
	assert_int_equal(c.iv[0].busy_ns, 100 * US);
	assert_int_equal(c.iv[0].wake, IV_WAKE_IRQ);
	assert_int_equal(c.iv[0].irq, 36);
	assert_int_equal(c.iv[0].kernel_idle_ns, 510 * US);
	assert_int_equal(c.iv[0].kstates[0], 1);
	assert_int_equal(c.iv[0].nr_entries, 1);
	/* exit minus entry: the handler ran before the exit */
	assert_int_equal(c.iv[0].kresidency[0], 510 * US);
	assert_int_equal(c.iv[0].kresidency[1], 0);
	assert_string_equal(iv_builder_stats(b)->irq_names[36], "virtio1-req.0");
	/* not woken, and the next entry is 100 us later: not merged */
	assert_int_equal(c.iv[1].idle_ns, 300 * US);
	assert_int_equal(c.iv[1].wake, IV_WAKE_UNKNOWN);
	assert_int_equal(c.iv[1].irq, -1);
	assert_int_equal(c.iv[1].kresidency[0], 300 * US);
	/* the trace ends inside the last one: its residency so far */
	assert_true(c.iv[2].flags & IV_PARTIAL_END);
	assert_int_equal(c.iv[2].kresidency[0], c.iv[2].kernel_idle_ns);
	iv_builder_destroy(b);
}

static void local_timer(struct iv_builder *b, int64_t t, unsigned int cpu)
{
	feed(b, ev_at(t, cpu, TEV_LOCAL_TIMER));
}

/* An idle period from @t to @wake_t ended by device interrupt 36. */
static void irq_idle(struct iv_builder *b, int64_t t, int64_t wake_t, unsigned int cpu)
{
	enter(b, t, cpu, 1);
	irq(b, wake_t, cpu, 36, "dev");
	leave(b, wake_t + 5 * US, cpu);
}

/*
 * A trace without timer events: the next timer is reconstructed from the
 * local timer interrupts (DOC: reconstructed timers), in the order
 * intervals closed, waiting ones holding back those after them.
 */
static void test_timer_reconstructed(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	const int64_t s = 1000 * 1000 * US;
	int i;

	(void)state;
	enter(b, T0, 0, 1);				/* A */
	local_timer(b, T0 + 400 * US, 0);		/* woke it: exactly */
	leave(b, T0 + 405 * US, 0);
	irq_idle(b, T0 + 500 * US, T0 + 700 * US, 0);	/* B */
	local_timer(b, T0 + 800 * US, 0);		/* the next one, while busy */
	irq_idle(b, T0 + 900 * US, T0 + 1000 * US, 0);	/* C: waits ... */
	irq_idle(b, T0 + 1010 * US, T0 + 1050 * US, 1);	/* X: CPU 1, no timers ever */
	enter(b, T0 + 1100 * US, 0, 1);			/* D */
	enter(b, T0 + 1200 * US, 1, 1);			/* Y */
	local_timer(b, T0 + 1500 * US, 0);		/* ... for this, D's wake-up */
	leave(b, T0 + 1505 * US, 0);
	irq_idle(b, T0 + 1600 * US, T0 + 1700 * US, 0);	/* E: none within a second */
	enter(b, T0 + 1800 * US, 0, 1);			/* F */
	irq(b, T0 + 2 * s, 1, 36, "dev");		/* Y's wake-up, past E's horizon */
	leave(b, T0 + 2 * s + 5 * US, 1);
	enter(b, T0 + 2 * s + 100 * US, 1, 1);		/* Z */
	irq(b, T0 + 2 * s + 200 * US, 0, 36, "dev");	/* F's wake-up */
	leave(b, T0 + 2 * s + 205 * US, 0);
	enter(b, T0 + 2 * s + 300 * US, 0, 1);		/* G */
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 10);
	/* the order they closed in: A B C X D E Y F, then G and Z cut by the end */
	assert_int_equal(c.iv[0].start_ns, T0);
	assert_int_equal(c.iv[1].start_ns, T0 + 500 * US);
	assert_int_equal(c.iv[2].start_ns, T0 + 900 * US);
	assert_int_equal(c.iv[3].start_ns, T0 + 1010 * US);
	assert_int_equal(c.iv[4].start_ns, T0 + 1100 * US);
	assert_int_equal(c.iv[5].start_ns, T0 + 1600 * US);
	assert_int_equal(c.iv[6].start_ns, T0 + 1200 * US);
	assert_int_equal(c.iv[7].start_ns, T0 + 1800 * US);
	for (i = 0; i < 10; i++)
		assert_int_not_equal(c.iv[i].flags & (IV_TIMER_GUESSED | IV_TIMER_UNKNOWN),
				     IV_TIMER_GUESSED | IV_TIMER_UNKNOWN);
	/* A: a local timer woke it */
	assert_int_equal(c.iv[0].wake, IV_WAKE_TIMER);
	assert_true(c.iv[0].flags & IV_TIMER_GUESSED);
	assert_int_equal(c.iv[0].timer_ns, 400 * US);
	/* B: the next local timer interrupt after its wake-up */
	assert_true(c.iv[1].flags & IV_TIMER_GUESSED);
	assert_int_equal(c.iv[1].timer_ns, 300 * US);
	/* C: the next one came in a later interval */
	assert_true(c.iv[2].flags & IV_TIMER_GUESSED);
	assert_int_equal(c.iv[2].timer_ns, 600 * US);
	/* X: its CPU never showed a local timer interrupt */
	assert_true(c.iv[3].flags & IV_TIMER_UNKNOWN);
	/* D: woken by one */
	assert_true(c.iv[4].flags & IV_TIMER_GUESSED);
	assert_int_equal(c.iv[4].timer_ns, 400 * US);
	/* E: none within the second after its wake-up: at least that */
	assert_true(c.iv[5].flags & IV_TIMER_GUESSED);
	assert_int_equal(c.iv[5].timer_ns, 100 * US + s);
	/* Y, F: the trace ended within their second */
	assert_true(c.iv[6].flags & IV_TIMER_UNKNOWN);
	assert_true(c.iv[7].flags & IV_TIMER_UNKNOWN);
	assert_true(c.iv[8].flags & IV_PARTIAL_END);
	assert_true(c.iv[9].flags & IV_PARTIAL_END);
	iv_builder_destroy(b);
}

/* Timer events, where the trace has them, win: nothing is reconstructed. */
static void test_timer_traced_not_guessed(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);

	(void)state;
	timer_start(b, T0 - 10 * US, 0, 0x7ff0, T0 + 4000 * US, true);	/* the tick: known */
	timer_start(b, T0 - 5 * US, 0, 0xabc, T0 + 3000 * US, false);
	enter(b, T0, 0, 1);
	irq(b, T0 + 700 * US, 0, 36, "dev");
	leave(b, T0 + 705 * US, 0);
	local_timer(b, T0 + 800 * US, 0);
	enter(b, T0 + 900 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 2);
	assert_int_equal(c.iv[0].flags & (IV_TIMER_GUESSED | IV_TIMER_UNKNOWN), 0);
	assert_int_equal(c.iv[0].timer_ns, 3000 * US);
	iv_builder_destroy(b);
}

/* The polling state's time limit: the re-entry belongs to the same interval. */
static void test_poll_limit_merged(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);

	(void)state;
	enter(b, T0, 0, 0);
	leave(b, T0 + 250 * US, 0);		/* limit ran out, nothing woke it */
	enter(b, T0 + 252 * US, 0, 0);
	leave(b, T0 + 502 * US, 0);
	enter(b, T0 + 503 * US, 0, 1);
	timer_fires(b, T0 + 700 * US, 0, 0xabc, false);
	leave(b, T0 + 710 * US, 0);
	enter(b, T0 + 800 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 2);
	assert_int_equal(c.iv[0].idle_ns, 700 * US);
	assert_int_equal(c.iv[0].nr_entries, 3);
	assert_int_equal(c.iv[0].kstates[0], 0);
	assert_int_equal(c.iv[0].kstates[1], 0);
	assert_int_equal(c.iv[0].kstates[2], 1);
	assert_int_equal(c.iv[0].kstates[3], -1);
	assert_int_equal(c.iv[0].wake, IV_WAKE_TIMER);
	assert_int_equal(c.iv[0].kernel_idle_ns, 250 * US + 250 * US + 207 * US);
	assert_int_equal(c.iv[0].kresidency[0], 250 * US);
	assert_int_equal(c.iv[0].kresidency[1], 250 * US);
	assert_int_equal(c.iv[0].kresidency[2], 207 * US);
	assert_int_equal(c.iv[0].kresidency[3], 0);
	assert_int_equal(iv_builder_stats(b)->merged_entries, 2);
	iv_builder_destroy(b);
}

/*
 * A CPU held at QoS 0 re-enters its polling state at the time limit, again
 * and again: past the IV_MAX_KSTATES entries kept, IV_KSTATES_REST says
 * the rest were all in the last kept one's state, and one in another state
 * takes it back.
 */
static void test_kstates_rest(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	int i, k;

	(void)state;
	for (k = 0; k < 2; k++) {
		int64_t t0 = T0 + k * 10000 * US;

		for (i = 0; i < 12; i++) {
			enter(b, t0 + i * 260 * US, 0, k == 1 && i == 10 ? 1 : 0);
			leave(b, t0 + i * 260 * US + 250 * US, 0);
		}
		irq(b, t0 + 12 * 260 * US, 0, 11, "eth0");
		enter(b, t0 + 12 * 260 * US + 10 * US, 0, 1);
		leave(b, t0 + 12 * 260 * US + 20 * US, 0);
	}
	assert_int_equal(iv_builder_finish(b), 0);
	assert_true(c.n >= 2);
	assert_int_equal(c.iv[0].nr_entries, 12);
	assert_int_equal(c.iv[0].kstates[IV_MAX_KSTATES - 1], 0);
	assert_int_equal(c.iv[0].flags & IV_KSTATES_REST, IV_KSTATES_REST);
	for (i = 1; i < c.n && c.iv[i].start_ns < T0 + 10000 * US; i++)
		;
	assert_true(i < c.n);
	assert_int_equal(c.iv[i].nr_entries, 12);
	assert_int_equal(c.iv[i].flags & IV_KSTATES_REST, 0);	/* entry 10 halted */
	iv_builder_destroy(b);
}

/* A tick that woke nothing is not a wake-up; one that woke a task is. */
static void test_tick_only_merged(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);

	(void)state;
	enter(b, T0 + 100 * US, 0, 1);
	timer_fires(b, T0 + 4000 * US, 0, 0x7c, true);
	leave(b, T0 + 4005 * US, 0);
	enter(b, T0 + 4008 * US, 0, 1);		/* nothing ran */
	timer_fires(b, T0 + 8000 * US, 0, 0x7c, true);
	wakeup(b, T0 + 8003 * US, 0, 0);	/* rcu_preempt, say */
	leave(b, T0 + 8005 * US, 0);
	enter(b, T0 + 8020 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 2);
	assert_int_equal(c.iv[0].idle_ns, 7900 * US);
	assert_int_equal(c.iv[0].nr_entries, 2);
	assert_int_equal(c.iv[0].wake, IV_WAKE_TICK);
	assert_int_equal(c.iv[0].busy_ns, 20 * US);
	assert_int_equal(c.iv[0].kresidency[0], 3905 * US);
	assert_int_equal(c.iv[0].kresidency[1], 3997 * US);
	assert_false(c.iv[0].flags & IV_TASK_WAKE);	/* the tick woke it */
	iv_builder_destroy(b);
}

/*
 * Residencies: the first IV_MAX_KSTATES entries only (the rest counted in
 * kernel_idle_ns); a halt longer than 2^32 - 1 ns saturates.
 */
static void test_residency_limits(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	int64_t t = T0;
	int i;

	(void)state;
	for (i = 0; i < IV_MAX_KSTATES + 2; i++) {	/* polls cut at their limit */
		enter(b, t, 0, 0);
		leave(b, t + (100 + i) * US, 0);
		t += (100 + i) * US + 2 * US;
	}
	enter(b, t, 0, 1);
	irq(b, t + 10 * US, 0, 5, "eth");
	leave(b, t + 11 * US, 0);
	t += 100 * US;
	enter(b, t, 0, 1);				/* 5 s in halt */
	irq(b, t + 5000000 * US, 0, 5, "eth");
	leave(b, t + 5000001 * US, 0);
	enter(b, t + 5000100 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 3);
	assert_int_equal(c.iv[0].nr_entries, IV_MAX_KSTATES + 3);
	for (i = 0; i < IV_MAX_KSTATES; i++)
		assert_int_equal(c.iv[0].kresidency[i], (100 + i) * US);
	assert_int_equal(c.iv[0].kernel_idle_ns, 100 * US * 10 + 45 * US + 11 * US);
	assert_int_equal(c.iv[1].kresidency[0], UINT32_MAX);
	assert_int_equal(c.iv[1].kernel_idle_ns, 5000001 * US);
	iv_builder_destroy(b);
}

/*
 * A poll that need_resched ended, set without an IPI by a wake-up from
 * elsewhere, exits with no wake event, and the CPU runs the woken task at
 * once (IV_TASK_WAKE).  One its time limit ended goes round the idle loop
 * first (the governor, the tick stopped), even if a task is woken then.
 */
static void test_task_wake(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	struct trace_event e;

	(void)state;
	/* 0: the wake-up first thing after the exit, the idle path's events aside */
	enter(b, T0, 0, 0);
	leave(b, T0 + 300 * US, 0);
	e = ev_at(T0 + 301 * US, 0, TEV_IDLE_MISS);
	e.below = true;
	feed(b, e);
	wakeup(b, T0 + 303 * US, 0, 0);
	/* 1: woken from CPU 1 while it polled */
	enter(b, T0 + 400 * US, 0, 0);
	wakeup(b, T0 + 450 * US, 1, 0);
	leave(b, T0 + 452 * US, 0);
	/* 2: cut at its limit: the tick stops (a halt chosen), then the wake-up */
	enter(b, T0 + 500 * US, 0, 0);
	leave(b, T0 + 555 * US, 0);
	e = ev_at(T0 + 560 * US, 0, TEV_TICK_STOP);
	e.success = true;
	feed(b, e);
	wakeup(b, T0 + 570 * US, 0, 0);
	/* 3: an interrupt woke it: a wake cause of its own */
	enter(b, T0 + 700 * US, 0, 0);
	irq(b, T0 + 720 * US, 0, 5, "eth");
	wakeup(b, T0 + 721 * US, 0, 0);
	leave(b, T0 + 722 * US, 0);
	/* 4: another CPU's task woken: not this one's */
	enter(b, T0 + 800 * US, 0, 0);
	leave(b, T0 + 900 * US, 0);
	wakeup(b, T0 + 901 * US, 0, 1);
	enter(b, T0 + 1000 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 6);
	assert_true(c.iv[0].flags & IV_TASK_WAKE);
	assert_int_equal(c.iv[0].wake, IV_WAKE_UNKNOWN);
	assert_int_equal(c.iv[0].idle_ns, 300 * US);
	assert_true(c.iv[1].flags & IV_TASK_WAKE);
	assert_false(c.iv[2].flags & IV_TASK_WAKE);
	assert_false(c.iv[3].flags & IV_TASK_WAKE);
	assert_int_equal(c.iv[3].wake, IV_WAKE_IRQ);
	assert_false(c.iv[4].flags & IV_TASK_WAKE);
	iv_builder_destroy(b);
}

static void test_next_timer(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);

	(void)state;
	/* before the CPU's tick was ever programmed, timers are unknown */
	enter(b, T0, 0, 1);
	irq(b, T0 + 10 * US, 0, 5, "eth");
	leave(b, T0 + 11 * US, 0);
	timer_start(b, T0 + 20 * US, 0, 0x7c, T0 + 4000 * US, true);	/* the tick */
	timer_start(b, T0 + 21 * US, 0, 0x100, T0 + 3000 * US, false);
	timer_start(b, T0 + 22 * US, 0, 0x200, T0 + 2000 * US, false);
	timer_start(b, T0 + 23 * US, 1, 0x300, T0 + 1000 * US, false);	/* another CPU's */
	{
		struct trace_event e = ev_at(T0 + 24 * US, 1, TEV_HRTIMER_CANCEL);

		e.timer = 0x200;		/* cancelled from CPU 1 */
		feed(b, e);
	}
	enter(b, T0 + 100 * US, 0, 1);
	irq(b, T0 + 200 * US, 0, 5, "eth");
	leave(b, T0 + 201 * US, 0);
	/* the tick stops: it is reprogrammed to the next timer-wheel event */
	{
		struct trace_event e = ev_at(T0 + 300 * US, 0, TEV_TICK_STOP);

		e.success = true;
		feed(b, e);
	}
	timer_start(b, T0 + 301 * US, 0, 0x7c, T0 + 2500 * US, true);
	enter(b, T0 + 400 * US, 0, 1);
	irq(b, T0 + 500 * US, 0, 5, "eth");
	leave(b, T0 + 501 * US, 0);
	timer_start(b, T0 + 600 * US, 0, 0x100, T0 + 900 * US, false);	/* restarted */
	{
		struct trace_event e = ev_at(T0 + 601 * US, 0, TEV_HRTIMER_CANCEL);

		e.timer = 0x7c;
		feed(b, e);
	}
	enter(b, T0 + 700 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 4);
	assert_true(c.iv[0].flags & IV_TIMER_UNKNOWN);
	assert_false(c.iv[1].flags & IV_TIMER_UNKNOWN);
	assert_int_equal(c.iv[1].timer_ns, 2900 * US);	/* 0x100; the tick runs */
	assert_int_equal(c.iv[2].timer_ns, 2100 * US);	/* the stopped tick's wheel event */
	assert_int_equal(c.iv[3].timer_ns, 200 * US);	/* 0x100 again */
	iv_builder_destroy(b);
}

static void test_qos_and_partial_start(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	struct trace_event e;

	(void)state;
	feed(b, ev_at(T0, 1, TEV_LOCAL_TIMER));	/* the trace's first event */
	leave(b, T0 + 50 * US, 0);			/* idle since before the trace */
	e = ev_at(T0 + 60 * US, 1, TEV_QOS_ADD);
	e.value = -1;
	feed(b, e);
	e = ev_at(T0 + 61 * US, 1, TEV_QOS_UPDATE);
	e.value = 0;
	feed(b, e);
	enter(b, T0 + 100 * US, 0, 0);
	irq(b, T0 + 150 * US, 0, 5, "eth");
	leave(b, T0 + 151 * US, 0);
	feed(b, ev_at(T0 + 160 * US, 1, TEV_QOS_REMOVE));
	enter(b, T0 + 200 * US, 0, 1);
	irq(b, T0 + 300 * US, 0, 5, "eth");
	leave(b, T0 + 301 * US, 0);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 3);
	assert_true(c.iv[0].flags & IV_PARTIAL_START);
	assert_int_equal(c.iv[0].idle_ns, 50 * US);
	assert_int_equal(c.iv[1].qos_us, 0);
	assert_int_equal(c.iv[2].qos_us, 2000000000);
	/* the last one closed at its exit: complete, busy unknown (0) */
	assert_false(c.iv[2].flags & IV_PARTIAL_END);
	assert_int_equal(c.iv[2].busy_ns, 0);
	iv_builder_destroy(b);
}

static void qos(struct iv_builder *b, int64_t t, enum trace_ev_type type, int pid, int value)
{
	struct trace_event e = ev_at(t, 1, type);

	e.pid = pid;
	e.value = value;
	feed(b, e);
}

static void stay(struct iv_builder *b, int64_t t)
{
	enter(b, t, 0, 1);
	irq(b, t + 50 * US, 0, 5, "eth");
	leave(b, t + 51 * US, 0);
}

/*
 * Two tasks hold requests: the smallest is in force, and a task's update or
 * removal changes its own request, not the other's.
 */
static void test_qos_requests_by_task(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);

	(void)state;
	qos(b, T0, TEV_QOS_ADD, 100, -1);
	qos(b, T0 + 1 * US, TEV_QOS_UPDATE, 100, 50);
	stay(b, T0 + 100 * US);				/* 50 */
	qos(b, T0 + 200 * US, TEV_QOS_ADD, 200, -1);
	qos(b, T0 + 201 * US, TEV_QOS_UPDATE, 200, 20);
	stay(b, T0 + 300 * US);				/* min(50, 20) */
	qos(b, T0 + 400 * US, TEV_QOS_REMOVE, 100, -1);
	stay(b, T0 + 500 * US);				/* 200's 20 stays */
	qos(b, T0 + 600 * US, TEV_QOS_UPDATE, 200, 80);
	stay(b, T0 + 700 * US);				/* 80 */
	qos(b, T0 + 800 * US, TEV_QOS_REMOVE, 200, -1);
	stay(b, T0 + 900 * US);				/* none */
	/* an update from a task whose request predates the trace, alone */
	qos(b, T0 + 1000 * US, TEV_QOS_UPDATE, 300, 7);
	stay(b, T0 + 1100 * US);			/* 7 */
	qos(b, T0 + 1200 * US, TEV_QOS_REMOVE, 300, -1);
	stay(b, T0 + 1300 * US);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 7);
	assert_int_equal(c.iv[0].qos_us, 50);
	assert_int_equal(c.iv[1].qos_us, 20);
	assert_int_equal(c.iv[2].qos_us, 20);
	assert_int_equal(c.iv[3].qos_us, 80);
	assert_int_equal(c.iv[4].qos_us, 2000000000);
	assert_int_equal(c.iv[5].qos_us, 7);
	assert_int_equal(c.iv[6].qos_us, 2000000000);
	iv_builder_destroy(b);
}

/* A wake-up aimed at CPU 0, written late by CPU 1, still prevents a merge. */
static void test_cross_cpu_order(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);

	(void)state;
	enter(b, T0, 0, 1);
	timer_fires(b, T0 + 4000 * US, 0, 0x7c, true);
	leave(b, T0 + 4005 * US, 0);
	enter(b, T0 + 4008 * US, 0, 1);
	wakeup(b, T0 + 4006 * US, 1, 0);	/* earlier in time, later in the file */
	irq(b, T0 + 5000 * US, 0, 5, "eth");
	leave(b, T0 + 5001 * US, 0);
	enter(b, T0 + 6000 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 3);
	assert_int_equal(c.iv[0].wake, IV_WAKE_TICK);
	assert_int_equal(c.iv[0].nr_entries, 1);
	iv_builder_destroy(b);
}

static int stop_at_first(const struct idle_interval *iv, void *arg)
{
	(void)iv;
	(*(int *)arg)++;
	return -ECANCELED;
}

static void test_sink_stops(void **state)
{
	struct iv_builder *b;
	struct trace_event e;
	int calls = 0;

	(void)state;
	assert_int_equal(iv_builder_create(NULL, NULL, &b), -EINVAL);
	assert_int_equal(iv_builder_create(stop_at_first, &calls, &b), 0);
	e = ev_at(T0, 0, TEV_IDLE_ENTER);
	assert_int_equal(iv_builder_feed(b, &e), 0);
	e = ev_at(T0 + 5, 0, TEV_IDLE_EXIT);
	assert_int_equal(iv_builder_feed(b, &e), 0);
	e = ev_at(T0 + 100 * US, 0, TEV_IDLE_ENTER);
	assert_int_equal(iv_builder_feed(b, &e), 0);
	assert_int_equal(iv_builder_finish(b), -ECANCELED);
	assert_int_equal(calls, 1);
	e.cpu = TRACE_MAX_CPUS;
	assert_int_equal(iv_builder_feed(b, &e), -EINVAL);
	iv_builder_destroy(b);
}

/* ------------------------------------------------------------ ivf */

static void tmpname(char *buf, size_t len)
{
	int fd;

	snprintf(buf, len, "/tmp/test_ivf_XXXXXX");
	fd = mkstemp(buf);
	assert_true(fd >= 0);
	close(fd);
}

static void write_sample(const char *path, int n)
{
	static char names[IV_MAX_IRQ][TRACE_IRQ_NAME_LEN];
	/* the last interval's busy time ends 100010 us + 9999 ns in */
	struct ivf_info info = { .nr_cpus = 2, .first_ns = T0, .last_ns = T0 + 100020 * US };
	struct ivf_writer *w;
	char err[256];
	int i;

	strcpy(names[36], "virtio1-req.0");
	assert_int_equal(ivf_writer_open(path, &w, err, sizeof(err)), 0);
	for (i = 0; i < n; i++) {
		struct idle_interval iv;

		memset(&iv, 0, sizeof(iv));
		memset(iv.kstates, -1, sizeof(iv.kstates));
		iv.start_ns = T0 + i * 10 * US;
		iv.idle_ns = 5 * US + i;
		iv.timer_ns = i % 3 ? 7 * US + i : IV_NO_TIMER;
		iv.busy_ns = 5 * US;
		iv.kernel_idle_ns = 6 * US;	/* 4 us in one entry: a short record */
		iv.qos_us = i % 2 ? 0 : 2000000000;
		iv.cpu = (uint16_t)(i % 2);
		iv.wake = i % 5 == 0 ? IV_WAKE_IRQ : IV_WAKE_TIMER;
		iv.irq = (int16_t)(iv.wake == IV_WAKE_IRQ ? 36 : -1);
		iv.flags = i == 0 ? IV_PARTIAL_START : 0;
		iv.nr_entries = (uint16_t)(1 + i % 3);
		iv.kstates[0] = (int8_t)(i % 2);
		iv.kresidency[0] = 4 * US;
		if (iv.nr_entries == 1)
			iv.kernel_idle_ns = 4 * US;
		if (iv.nr_entries > 1) {
			iv.kstates[1] = (int8_t)(i % 3);
			iv.kresidency[1] = 2 * US - (uint32_t)i % 1000;
			iv.ktick_mask = 1;
			iv.kernel_loop_ns = 3 * US + i;
		}
		if (i % 7 == 0) {	/* a polling window after the first entry */
			iv.kwindow_mask = 1;
			iv.kwindow[0] = (uint32_t)(i * 3 + 1);
			iv.nr_kwindows = 1;
		}
		assert_int_equal(ivf_write(w, &iv), 0);
	}
	assert_int_equal(ivf_writer_close(w, &info, (const char (*)[TRACE_IRQ_NAME_LEN])names), 0);
}

static void test_ivf_round_trip(void **state)
{
	struct ivf_reader *r;
	struct idle_interval iv;
	char path[64], err[512];
	int i, ret;

	(void)state;
	tmpname(path, sizeof(path));
	write_sample(path, 10000);	/* several blocks */
	assert_true(ivf_is_file(path));
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), 0);
	assert_int_equal(ivf_reader_info(r)->nr_cpus, 2);
	assert_string_equal(ivf_irq_name(r, 36), "virtio1-req.0");
	for (i = 0; (ret = ivf_next(r, &iv)) == 1; i++) {
		assert_int_equal(iv.start_ns, T0 + i * 10 * US);
		assert_int_equal(iv.idle_ns, 5 * US + i);
		assert_int_equal(iv.timer_ns, i % 3 ? 7 * US + i : IV_NO_TIMER);
		assert_int_equal(iv.cpu, i % 2);
		assert_int_equal(iv.qos_us, i % 2 ? 0 : 2000000000);
		assert_int_equal(iv.nr_entries, 1 + i % 3);
		assert_int_equal(iv.kstates[0], i % 2);
		assert_int_equal(iv.kstates[1], iv.nr_entries > 1 ? i % 3 : -1);
		assert_int_equal(iv.irq, iv.wake == IV_WAKE_IRQ ? 36 : -1);
		assert_int_equal(iv.ktick_mask, iv.nr_entries > 1);
		assert_int_equal(iv.kernel_loop_ns, iv.nr_entries > 1 ? 3 * US + i : 0);
		assert_int_equal(iv.kwindow_mask, i % 7 == 0);
		assert_int_equal(iv.nr_kwindows, i % 7 == 0);
		assert_int_equal(iv.kwindow[0], i % 7 == 0 ? (uint32_t)(i * 3 + 1) : 0);
		assert_int_equal(iv.kresidency[0], 4 * US);
		assert_int_equal(iv.kresidency[1], iv.nr_entries > 1 ? 2 * US - i % 1000 : 0);
		assert_int_equal(iv.kresidency[2], 0);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(i, 10000);
	ivf_close(r);
	unlink(path);
}

static void corrupt_and_expect(const char *path, long offset, int byte, bool at_open,
			       const char *needle)
{
	struct ivf_reader *r;
	struct idle_interval iv;
	char err[512];
	FILE *f = fopen(path, "r+b");
	int ret;

	assert_non_null(f);
	assert_int_equal(fseek(f, offset, SEEK_SET), 0);
	fputc(byte, f);
	fclose(f);
	ret = ivf_open(path, &r, err, sizeof(err));
	if (at_open) {
		assert_int_equal(ret, -EINVAL);
		assert_non_null(strstr(err, needle));
		return;
	}
	assert_int_equal(ret, 0);
	while ((ret = ivf_next(r, &iv)) == 1)
		;
	assert_int_equal(ret, -EINVAL);
	assert_non_null(strstr(ivf_error(r), needle));
	assert_non_null(strstr(ivf_error(r), path));
	ivf_close(r);
}

static void test_ivf_corruption(void **state)
{
	struct ivf_reader *r;
	char path[64], err[512];
	FILE *f;

	(void)state;
	tmpname(path, sizeof(path));
	write_sample(path, 5000);
	corrupt_and_expect(path, 0, 'X', true, "not an idle interval file");
	write_sample(path, 5000);
	corrupt_and_expect(path, 17, 0x7f, true, "header checksum");
	write_sample(path, 5000);
	corrupt_and_expect(path, 64 + 12 + 100, 0x55, false, "checksum mismatch");
	/* truncated in the middle of the second block */
	write_sample(path, 5000);
	assert_int_equal(truncate(path, 64 + 12 + 4096 * IVF_SHORT_RECORD_SIZE + 4 + 12 + 100), 0);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), -EINVAL);	/* trailer gone */
	assert_non_null(strstr(err, "the file ends before its IRQ name trailer (truncated)"));
	/* an empty file, a missing file, a text file */
	f = fopen(path, "w");
	fclose(f);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), -EINVAL);
	assert_int_equal(ivf_open("/nonexistent/x.ivf", &r, err, sizeof(err)), -ENOENT);
	f = fopen(path, "w");
	fputs("platform laptop\n", f);
	fclose(f);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), -EINVAL);
	assert_false(ivf_is_file(path));
	unlink(path);
}

/* A 10 us interval at T0 that a timer ended, no kernel entry recorded. */
static void timer_interval(struct idle_interval *iv)
{
	memset(iv, 0, sizeof(*iv));
	memset(iv->kstates, -1, sizeof(iv->kstates));
	iv->start_ns = T0;
	iv->idle_ns = 10 * US;
	iv->irq = -1;
	iv->wake = IV_WAKE_TIMER;
}

/* One record, written with a valid checksum, that the reader must refuse. */
static void bad_record_expect(void (*spoil)(struct idle_interval *iv), const char *needle)
{
	struct ivf_info info = { .nr_cpus = 1, .first_ns = T0, .last_ns = T0 + 100 * US };
	struct idle_interval iv;
	struct ivf_writer *w;
	struct ivf_reader *r;
	char path[64], err[512];
	int ret;

	tmpname(path, sizeof(path));
	assert_int_equal(ivf_writer_open(path, &w, err, sizeof(err)), 0);
	timer_interval(&iv);
	iv.nr_entries = 2;
	iv.kstates[0] = 0;
	iv.kstates[1] = 1;
	spoil(&iv);
	assert_int_equal(ivf_write(w, &iv), 0);
	assert_int_equal(ivf_writer_close(w, &info, NULL), 0);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), 0);
	ret = ivf_next(r, &iv);
	if (!needle) {
		assert_int_equal(ret, 1);
	} else {
		assert_int_equal(ret, -EINVAL);
		assert_non_null(strstr(ivf_error(r), needle));
	}
	ivf_close(r);
	unlink(path);
}

static void spoil_nothing(struct idle_interval *iv) { (void)iv; }
static void state_highest(struct idle_interval *iv) { iv->kstates[7] = TRACE_MAX_STATES - 1; }
static void state_too_high(struct idle_interval *iv) { iv->kstates[5] = TRACE_MAX_STATES; }
static void state_below_none(struct idle_interval *iv) { iv->kstates[2] = -2; }
static void state_most_negative(struct idle_interval *iv) { iv->kstates[0] = INT8_MIN; }
static void state_most_positive(struct idle_interval *iv) { iv->kstates[7] = INT8_MAX; }
static void window_all(struct idle_interval *iv)
{
	int i;

	iv->nr_entries = IV_MAX_KSTATES;
	iv->nr_kwindows = IV_MAX_KSTATES;
	iv->kwindow_mask = 0xff;
	for (i = 0; i < IV_MAX_KSTATES; i++)
		iv->kwindow[i] = 1000u * (uint32_t)(i + 1);
}
static void window_orphan(struct idle_interval *iv)
{
	iv->kwindow_mask = 1;
	iv->nr_kwindows = 1;
	iv->kwindow[0] = 5000;
	iv->kwindow[1] = 7000;	/* no bit for entry 1 */
}
static void window_orphan_last(struct idle_interval *iv)
{
	window_all(iv);
	iv->kwindow_mask = 0x7f;
	iv->nr_kwindows = 7;
}
static void window_beyond_entries(struct idle_interval *iv) { iv->kwindow_mask = 4; iv->nr_kwindows = 1; }
static void window_uncounted(struct idle_interval *iv) { iv->kwindow_mask = 3; iv->nr_kwindows = 1; }
static void tick_beyond_entries(struct idle_interval *iv) { iv->ktick_mask = 2; }
static void residency_all(struct idle_interval *iv)
{
	int i;

	iv->nr_entries = IV_MAX_KSTATES + 5;	/* entries beyond 8 have none */
	iv->kernel_idle_ns = 9 * (int64_t)UINT32_MAX;
	for (i = 0; i < IV_MAX_KSTATES; i++)	/* saturated: the sum needs 64 bits */
		iv->kresidency[i] = UINT32_MAX;
}
static void residency_exact(struct idle_interval *iv)
{
	iv->kernel_idle_ns = 11 * US;
	iv->kresidency[0] = 6 * US;
	iv->kresidency[1] = 5 * US;
}
static void residency_beyond_entries(struct idle_interval *iv)
{
	iv->kernel_idle_ns = 11 * US;
	iv->kresidency[2] = 1;
}
static void residency_beyond_last(struct idle_interval *iv)
{
	iv->nr_entries = 0;
	iv->kernel_idle_ns = 11 * US;
	iv->kresidency[7] = 1;
}
static void residency_above_idle(struct idle_interval *iv)
{
	residency_exact(iv);
	iv->kernel_idle_ns--;
}
static void residency_above_no_idle(struct idle_interval *iv) { iv->kresidency[0] = 1; }
static void task_wake_unknown(struct idle_interval *iv)
{
	iv->wake = IV_WAKE_UNKNOWN;
	iv->flags = IV_TASK_WAKE;
}
static void task_wake_timer(struct idle_interval *iv) { iv->flags = IV_TASK_WAKE; }
static void wake_unknown(struct idle_interval *iv) { iv->wake = IV_WAKE_NR; }
static void rest_of_many(struct idle_interval *iv)
{
	iv->nr_entries = IV_MAX_KSTATES + 3;
	iv->kstates[IV_MAX_KSTATES - 1] = 0;
	iv->flags = IV_KSTATES_REST;
}
static void rest_of_few(struct idle_interval *iv)
{
	rest_of_many(iv);
	iv->nr_entries = IV_MAX_KSTATES;
}
static void rest_without_state(struct idle_interval *iv)
{
	rest_of_many(iv);
	iv->kstates[IV_MAX_KSTATES - 1] = -1;
}
/* the header's span is 100 us from the record's start */
static void busy_to_last(struct idle_interval *iv) { iv->busy_ns = 90 * US; }
static void busy_past_last(struct idle_interval *iv) { iv->busy_ns = 90 * US + 1; }
/* fuzz_ivf: INT64_MAX overflowed start + idle + busy in the replay */
static void busy_max(struct idle_interval *iv) { iv->busy_ns = INT64_MAX; }
static void idle_past_last(struct idle_interval *iv) { iv->start_ns += 95 * US; }

static void test_ivf_bad_records(void **state)
{
	(void)state;
	bad_record_expect(spoil_nothing, NULL);
	bad_record_expect(state_highest, NULL);
	bad_record_expect(window_all, NULL);
	bad_record_expect(state_too_high, "offset 128: bad kernel state index");	/* 64 + 12 + 52 */
	bad_record_expect(state_below_none, "bad kernel state index");
	bad_record_expect(state_most_negative, "bad kernel state index");
	bad_record_expect(state_most_positive, "bad kernel state index");
	bad_record_expect(window_orphan, "polling window without its entry");
	bad_record_expect(window_orphan_last, "polling window without its entry");
	bad_record_expect(window_beyond_entries, "beyond the interval's entries");
	bad_record_expect(window_uncounted, "beyond the interval's entries");
	bad_record_expect(tick_beyond_entries, "tick wake-ups beyond");
	bad_record_expect(residency_all, NULL);
	bad_record_expect(residency_exact, NULL);
	/* 64 + 12 + 104 + 4 x 2 */
	bad_record_expect(residency_beyond_entries,
			  "offset 188: a kernel residency beyond the interval's entries");
	bad_record_expect(residency_beyond_last, "offset 208: a kernel residency beyond");
	bad_record_expect(residency_above_idle,
			  "offset 180: kernel residencies above the kernel's idle time");
	bad_record_expect(residency_above_no_idle, "residencies above the kernel's idle time");
	bad_record_expect(task_wake_unknown, NULL);
	bad_record_expect(task_wake_timer,
			  "offset 125: a task wake-up where an interrupt woke the CPU");
	bad_record_expect(wake_unknown, "unknown wake cause or flags");
	bad_record_expect(rest_of_many, NULL);
	bad_record_expect(rest_of_few, "the later entries' state said of 8 kernel entries");
	bad_record_expect(rest_without_state, "the later entries' state said of 11 kernel entries");
	bad_record_expect(busy_to_last, NULL);
	bad_record_expect(busy_past_last, "offset 76: idle and busy time past the trace's last");
	bad_record_expect(busy_max, "idle and busy time past the trace's last event");
	bad_record_expect(idle_past_last, "idle and busy time past the trace's last event");
}

/*
 * A header's span must start at 0 or later (trace timestamps are never
 * negative): fuzz_ivf found first_ns = INT64_MIN with last_ns = INT64_MAX
 * overflowing last - first, a signed overflow in every ivf_next().
 */
static void test_ivf_header_span(void **state)
{
	static const int64_t firsts[] = { -1, INT64_MIN, 0 };
	struct ivf_info info = { .nr_cpus = 1, .last_ns = INT64_MAX };
	struct ivf_writer *w;
	struct ivf_reader *r;
	char path[64], err[512];
	unsigned int i;
	int ret;

	(void)state;
	for (i = 0; i < sizeof(firsts) / sizeof(firsts[0]); i++) {
		tmpname(path, sizeof(path));
		info.first_ns = firsts[i];
		assert_int_equal(ivf_writer_open(path, &w, err, sizeof(err)), 0);
		assert_int_equal(ivf_writer_close(w, &info, NULL), 0);
		ret = ivf_open(path, &r, err, sizeof(err));
		if (firsts[i] < 0) {
			assert_int_equal(ret, -EINVAL);
			assert_non_null(strstr(err, "offset 16: implausible CPU count or time span"));
		} else {
			assert_int_equal(ret, 0);
			ivf_close(r);
		}
		unlink(path);
	}
}

/*
 * Older versions, rewritten from a current file after cpuidle-ivf(5), not
 * through the library: version 4 (every record full, 136 bytes; blocks
 * without a length), version 3 (104-byte records, without the kernel's
 * residencies; FNV-1a in four lanes per block), version 2 (the same
 * records, one serial FNV-1a per block) and version 1 (64-byte records,
 * the serial hash).
 */
static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

#define FNV_BASIS	0xcbf29ce484222325ull
#define FNV_PRIME	0x100000001b3ull

/* Version 3's block check: word i in lane i mod 4, then the lanes hashed. */
static uint64_t lanes_sum(const uint8_t *p, size_t n)
{
	uint64_t lane[4] = { FNV_BASIS, FNV_BASIS, FNV_BASIS, FNV_BASIS }, h = FNV_BASIS;
	size_t i;

	for (i = 0; i < n; i += 8)
		lane[i / 8 % 4] = (lane[i / 8 % 4] ^ le64(p + i)) * FNV_PRIME;
	for (i = 0; i < 4; i++)
		h = (h ^ lane[i]) * FNV_PRIME;
	return h;
}

/* A version 5 short record in its full form: its implied fields filled. */
static void expand_short(uint8_t *full, const uint8_t *rec)
{
	uint64_t kernel_idle = le64(rec + 32);
	unsigned int entries = rec[50] | rec[51] << 8;

	memset(full, 0, 136);
	memcpy(full, rec, 53);
	memset(full + 53, 0xff, 7);		/* no kernel state after the first */
	put_le32(full + 104, !entries ? 0 : kernel_idle > UINT32_MAX ? UINT32_MAX :
			     (uint32_t)kernel_idle);
}

static void rewrite_as_version(const char *path, int version)
{
	unsigned int rec = version == 1 ? 64 : version < 4 ? 104 : 136;
	FILE *f = fopen(path, "rb");
	uint8_t *in, *out, *o, full[136];
	long size, at = 64;
	size_t n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	in = malloc((size_t)size);
	out = malloc((size_t)size * 3);	/* short records grow */
	assert_true(in && out);
	assert_int_equal(fread(in, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	assert_int_equal(in[8], IVF_VERSION);
	assert_int_equal(in[12], 136);
	memcpy(out, in, 64);
	o = out + 64;
	while (at < size && !memcmp(in + at, "IVB5", 4)) {
		uint32_t count = in[at + 4] | in[at + 5] << 8 | in[at + 6] << 16 |
				 (uint32_t)in[at + 7] << 24, i;
		uint32_t bytes = in[at + 8] | in[at + 9] << 8 | in[at + 10] << 16 |
				 (uint32_t)in[at + 11] << 24;
		const uint8_t *r = in + at + 12;
		uint64_t h = FNV_BASIS;
		uint8_t *body;

		memcpy(o, "IVB1", 4);
		memcpy(o + 4, in + at + 4, 4);
		body = o + 8;
		for (i = 0; i < count; i++) {
			if (r[48] & 0x80) {	/* version 8: a full record */
				memcpy(full, r, 136);
				full[48] &= 0x7f;
				r += 136;
			} else {
				expand_short(full, r);
				r += 56;
			}
			memcpy(body + i * rec, full, rec);
		}
		assert_true(r == in + at + 12 + bytes);
		if (version >= 3) {
			h = lanes_sum(body, (size_t)count * rec);
		} else {
			for (n = 0; n < (size_t)count * rec; n += 8)
				h = (h ^ le64(body + n)) * FNV_PRIME;
		}
		put_le32(body + (size_t)count * rec, (uint32_t)(h ^ h >> 32));
		o = body + (size_t)count * rec + 4;
		at += 12 + (long)bytes + 4;
	}
	n = (size_t)(size - at);	/* the trailer, unchanged */
	memcpy(o, in + at, n);
	o += n;
	out[8] = (uint8_t)version;
	out[12] = (uint8_t)rec;
	memset(out + 48, 0, 8);
	put_le32(out + 60, (uint32_t)crc32(0L, out, 60));
	f = fopen(path, "wb");
	assert_non_null(f);
	/* without the trailer, the file ends after its blocks */
	assert_int_equal(fwrite(out, 1, (size_t)(o - out - n), f), (size_t)(o - out - n));
	fclose(f);
	free(in);
	free(out);
}

/*
 * Version 8's blocks as version 7's (to 5's): a full record's mark moved
 * from the wake byte to the flags byte, the blocks' checks made again.
 */
static void marks_to_flags(const char *path)
{
	FILE *f = fopen(path, "r+b");
	uint8_t head[12], *body;
	long at = 64;

	assert_non_null(f);
	while (fseek(f, at, SEEK_SET) == 0 && fread(head, 1, 12, f) == 12 &&
	       !memcmp(head, "IVB5", 4)) {
		uint32_t bytes = head[8] | head[9] << 8 | head[10] << 16 |
				 (uint32_t)head[11] << 24;
		uint64_t h;
		size_t pos;

		body = malloc(bytes);
		assert_non_null(body);
		assert_int_equal(fread(body, 1, bytes, f), bytes);
		for (pos = 0; pos < bytes; pos += body[pos + 49] & 0x80 ? 136 : 56) {
			if (body[pos + 48] & 0x80) {
				body[pos + 48] &= 0x7f;
				assert_int_equal(body[pos + 49] & 0x80, 0);
				body[pos + 49] |= 0x80;
			}
		}
		h = lanes_sum(body, bytes);
		assert_int_equal(fseek(f, at + 12, SEEK_SET), 0);
		assert_int_equal(fwrite(body, 1, bytes, f), bytes);
		put_le32(head, (uint32_t)(h ^ h >> 32));
		assert_int_equal(fwrite(head, 1, 4, f), 4);
		free(body);
		at += 12 + (long)bytes + 4;
	}
	fclose(f);
}

/* Version 6 as version 5: the trace notes after the IRQ names cut off. */
static void rewrite_as_v5(const char *path)
{
	FILE *f = fopen(path, "r+b");
	uint8_t h[64], head[8];
	uint64_t trailer;
	uint32_t count;

	marks_to_flags(path);
	assert_non_null(f);
	assert_int_equal(fread(h, 1, 64, f), 64);
	assert_int_equal(h[8], IVF_VERSION);
	trailer = le64(h + 48);
	assert_int_equal(fseek(f, (long)trailer, SEEK_SET), 0);
	assert_int_equal(fread(head, 1, 8, f), 8);
	assert_memory_equal(head, "IVN1", 4);
	count = head[4] | head[5] << 8 | head[6] << 16 | (uint32_t)head[7] << 24;
	h[8] = 5;
	put_le32(h + 60, (uint32_t)crc32(0L, h, 60));
	rewind(f);
	assert_int_equal(fwrite(h, 1, 64, f), 64);
	fclose(f);
	trailer += 8 + (uint64_t)count * (2 + TRACE_IRQ_NAME_LEN) + 4;	/* its end */
	assert_int_equal(truncate(path, (off_t)trailer), 0);
}

/*
 * Version 7 as version 6: the trace notes without the residency skew, the
 * starting polling windows and their bitmap.
 */
static void rewrite_as_v6(const char *path, unsigned int cpus)
{
	FILE *f = fopen(path, "r+b");
	size_t words = (cpus + 63) / 64, len = 72 + 8 * words;
	uint8_t h[64], head[8], notes[72 + 8 * 64 + 4];
	uint64_t at;
	uint32_t count;

	marks_to_flags(path);
	assert_non_null(f);
	assert_int_equal(fread(h, 1, 64, f), 64);
	assert_int_equal(h[8], IVF_VERSION);
	h[8] = 6;
	put_le32(h + 60, (uint32_t)crc32(0L, h, 60));
	at = le64(h + 48);
	rewind(f);
	assert_int_equal(fwrite(h, 1, 64, f), 64);
	assert_int_equal(fseek(f, (long)at, SEEK_SET), 0);
	assert_int_equal(fread(head, 1, 8, f), 8);
	count = head[4] | head[5] << 8 | head[6] << 16 | (uint32_t)head[7] << 24;
	at += 8 + (uint64_t)count * (2 + TRACE_IRQ_NAME_LEN) + 4 + 4;	/* after "IVT1" */
	assert_int_equal(fseek(f, (long)at, SEEK_SET), 0);
	assert_int_equal(fread(notes, 1, len, f), len);
	memset(notes + 56, 0, 8);		/* reserved in version 6 */
	put_le32(notes + len, (uint32_t)crc32(0L, notes, (uInt)len));
	assert_int_equal(fseek(f, (long)at, SEEK_SET), 0);
	assert_int_equal(fwrite(notes, 1, len + 4, f), len + 4);
	fclose(f);
	assert_int_equal(truncate(path, (off_t)(at + len + 4)), 0);
}

static void test_ivf_old_versions(void **state)
{
	struct ivf_reader *r;
	struct idle_interval iv;
	char path[64], err[512];
	int version, i, k, ret;

	(void)state;
	tmpname(path, sizeof(path));
	for (version = 1; version <= 5; version++) {
		write_sample(path, 5000);	/* two blocks */
		if (version == 5)
			rewrite_as_v5(path);
		else
			rewrite_as_version(path, version);
		assert_int_equal(ivf_open(path, &r, err, sizeof(err)), 0);
		assert_int_equal(ivf_reader_info(r)->version, version);
		assert_false(ivf_reader_info(r)->notes_known);	/* version 6 on */
		for (i = 0; (ret = ivf_next(r, &iv)) == 1; i++) {
			assert_int_equal(iv.idle_ns, 5 * US + i);
			assert_int_equal(iv.kstates[0], i % 2);
			/* version 1 has no windows, tick wake-ups or loop time */
			assert_int_equal(iv.kwindow[0], version > 1 && i % 7 == 0 ?
							(uint32_t)(i * 3 + 1) : 0);
			assert_int_equal(iv.ktick_mask, version > 1 && iv.nr_entries > 1);
			assert_int_equal(iv.kernel_loop_ns,
					 version > 1 && iv.nr_entries > 1 ? 3 * US + i : 0);
			/* only version 4 on has the kernel's residencies */
			assert_int_equal(iv.kresidency[0], version >= 4 ? 4 * US : 0);
			assert_int_equal(iv.kresidency[1], version >= 4 && iv.nr_entries > 1 ?
							   2 * US - i % 1000 : 0);
			for (k = 2; k < IV_MAX_KSTATES; k++)
				assert_int_equal(iv.kresidency[k], 0);
			assert_int_equal(iv.flags, i == 0 ? IV_PARTIAL_START : 0);
		}
		assert_int_equal(ret, 0);
		assert_int_equal(i, 5000);
		ivf_close(r);
		/* a damaged old block is still caught, by the old hash */
		corrupt_and_expect(path, 64 + (version == 5 ? 12 : 8) + 3, 0x55, false,
				   "checksum mismatch");
	}
	unlink(path);
}

/* a recording's description, as cpuidle record writes it (recording.h) */
#define RECORDING	"version 1\ngovernor haltpoll\nset module/haltpoll/parameters/guest_halt_poll_ns=0\n"

/* An interval file of three records on 70 CPUs, with @notes. */
static void write_noted(const char *path, const struct iv_notes *notes)
{
	struct ivf_info info = { .nr_cpus = 70, .first_ns = T0, .last_ns = T0 + 1000 * US };
	struct idle_interval iv;
	struct ivf_writer *w;
	char err[512];
	int i;

	info.notes = *notes;
	assert_int_equal(ivf_writer_open(path, &w, err, sizeof(err)), 0);
	for (i = 0; i < 3; i++) {
		timer_interval(&iv);
		iv.start_ns = T0 + i * 100 * US;
		iv.cpu = (uint16_t)(i * 30);
		assert_int_equal(ivf_write(w, &iv), 0);
	}
	assert_int_equal(ivf_writer_close(w, &info, NULL), 0);
}

/* @notes written, then refused at open with @needle in the message */
static void noted_refused(const char *path, const struct iv_notes *notes, const char *needle)
{
	struct ivf_reader *r;
	char err[512];

	write_noted(path, notes);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), -EINVAL);
	if (!strstr(err, needle))
		fail_msg("\"%s\" without \"%s\"", err, needle);
}

/*
 * Version 6: what reading the trace noticed (clock offset, lost events,
 * CPUs without idle events) is kept after the IRQ names, read back as it
 * was, and refused when damaged, cut, followed by more bytes, or at odds
 * with itself or the header.
 */
static void test_ivf_notes(void **state)
{
	struct iv_notes n = {
		.clock_offset_ns = -1463683, .clock_line = 101,
		.clock_unknown = 6, .lost_gaps = 2, .lost_events = 300, .lost_cpu = 65,
		.lost_line = 1234, .lost_n = 100, .nr_idle_less = 3,
	}, bad;
	const struct iv_notes *got;
	struct ivf_reader *r;
	struct idle_interval iv;
	char path[64], err[512];
	struct stat st;
	FILE *f;
	int i;

	(void)state;
	tmpname(path, sizeof(path));
	n.idle_less[0] = 1ull << 1 | 1ull << 63;
	n.idle_less[1] = 1ull << 5;		/* CPU 69, the last */
	/* version 7: the residency skew, CPUs 0 and 69's starting windows */
	n.residency_skew_ns = 881;
	n.window_known[0] = 1;
	n.window_known[1] = 1ull << 5;
	n.window_start[0] = 100000;
	n.window_start[69] = 0;			/* known, and 0 */
	n.recording_len = sizeof(RECORDING) - 1;
	memcpy(n.recording, RECORDING, sizeof(RECORDING) - 1);
	write_noted(path, &n);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), 0);
	got = &ivf_reader_info(r)->notes;
	assert_true(ivf_reader_info(r)->notes_known);
	assert_int_equal(got->clock_offset_ns, n.clock_offset_ns);
	assert_int_equal(got->clock_line, 101);
	assert_int_equal(got->clock_unknown, 6);
	assert_int_equal(got->lost_gaps, 2);
	assert_int_equal(got->lost_events, 300);
	assert_int_equal(got->lost_cpu, 65);
	assert_int_equal(got->lost_line, 1234);
	assert_int_equal(got->lost_n, 100);
	assert_int_equal(got->nr_idle_less, 3);
	assert_memory_equal(got->idle_less, n.idle_less, sizeof(n.idle_less));
	assert_int_equal(got->residency_skew_ns, 881);
	assert_memory_equal(got->window_known, n.window_known, sizeof(n.window_known));
	assert_int_equal(got->window_start[0], 100000);
	assert_int_equal(got->window_start[69], 0);
	assert_int_equal(got->recording_len, sizeof(RECORDING) - 1);
	assert_memory_equal(got->recording, RECORDING, sizeof(RECORDING) - 1);
	for (i = 0; ivf_next(r, &iv) == 1; i++)
		;
	assert_int_equal(i, 3);
	ivf_close(r);

	/* version 6: the same notes, without the skew and the windows */
	write_noted(path, &n);
	rewrite_as_v6(path, 70);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), 0);
	got = &ivf_reader_info(r)->notes;
	assert_int_equal(ivf_reader_info(r)->version, 6);
	assert_true(ivf_reader_info(r)->notes_known);
	assert_int_equal(got->lost_n, 100);
	assert_int_equal(got->nr_idle_less, 3);
	assert_int_equal(got->residency_skew_ns, 0);
	assert_int_equal(got->window_known[0] | got->window_known[1], 0);
	assert_int_equal(got->window_start[0], 0);
	assert_int_equal(got->recording_len, 0);
	for (i = 0; ivf_next(r, &iv) == 1; i++)
		;
	assert_int_equal(i, 3);
	ivf_close(r);

	/* a file with nothing to note says so too: known, all 0 */
	memset(&bad, 0, sizeof(bad));
	write_noted(path, &bad);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), 0);
	assert_true(ivf_reader_info(r)->notes_known);
	assert_int_equal(ivf_reader_info(r)->notes.nr_idle_less, 0);
	ivf_close(r);

	/* damaged, cut, cut off, or more after them */
	write_noted(path, &n);
	assert_int_equal(stat(path, &st), 0);
	corrupt_and_expect(path, st.st_size - 10, 0x55, true, "trace notes checksum mismatch");
	write_noted(path, &n);
	assert_int_equal(truncate(path, st.st_size - 1), 0);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "trace notes truncated"));
	write_noted(path, &n);
	/*
	 * 72 fixed bytes, 2 x 2 words of bitmaps, 70 windows, the description
	 * with its length, the CRC, the magic
	 */
	assert_int_equal(truncate(path, st.st_size - (72 + 32 + 280 + 4 + (off_t)sizeof(RECORDING) - 1 +
						      4 + 4)), 0);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "the file ends before its trace notes (truncated)"));
	write_noted(path, &n);
	f = fopen(path, "ab");
	assert_non_null(f);
	fputc(0, f);
	fclose(f);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bytes after the trace notes"));
	write_noted(path, &n);
	corrupt_and_expect(path, st.st_size - (72 + 32 + 280 + 4 + (off_t)sizeof(RECORDING) - 1 +
					       4 + 4), 'X', true,
			   "no trace notes after the IRQ names");

	/* at odds with themselves or the header, their checksum right */
	bad = n;
	bad.idle_less[1] |= 1ull << 6;		/* CPU 70 of 70 */
	bad.nr_idle_less = 4;
	noted_refused(path, &bad, "a CPU without idle events beyond the file's 70 CPUs");
	bad = n;
	bad.nr_idle_less = 2;
	noted_refused(path, &bad, "2 CPUs without idle events, but 3 bits set");
	bad = n;
	bad.lost_cpu = 70;
	noted_refused(path, &bad, "inconsistent lost events");
	bad = n;
	bad.window_start[1] = 50000;		/* CPU 1's bit is not set */
	noted_refused(path, &bad, "a starting polling window for CPU 1, not marked known");
	bad = n;
	bad.window_known[1] |= 1ull << 6;	/* CPU 70 of 70 */
	noted_refused(path, &bad, "a starting polling window beyond the file's 70 CPUs");
	bad = n;
	bad.residency_skew_ns = -1;
	noted_refused(path, &bad, "a residency skew of -1 ns");
	bad = n;
	bad.recording[3] = '\0';
	noted_refused(path, &bad, "a recording's description that is not lines of text");
	bad = n;
	bad.recording_len--;			/* no newline at its end */
	noted_refused(path, &bad, "a recording's description that is not lines of text");
	memset(&bad, 0, sizeof(bad));
	bad.lost_line = 5;			/* a marker's line, no marker */
	noted_refused(path, &bad, "inconsistent lost events");
	memset(&bad, 0, sizeof(bad));
	bad.clock_line = 5;			/* a measure's line, no offset */
	noted_refused(path, &bad, "inconsistent clock offset");

	/* version 6 without a trailer: the header's offset 0 */
	write_noted(path, &n);
	f = fopen(path, "r+b");
	assert_non_null(f);
	{
		uint8_t h[64];

		assert_int_equal(fread(h, 1, 64, f), 64);
		memset(h + 48, 0, 8);
		put_le32(h + 60, (uint32_t)crc32(0L, h, 60));
		rewind(f);
		assert_int_equal(fwrite(h, 1, 64, f), 64);
	}
	fclose(f);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad trailer offset"));
	unlink(path);
}

/*
 * Version 5: a record with at most one kernel entry whose fidelity fields
 * are what that entry implies is written in 56 bytes; any other in 136.
 * Both read back as they were written.
 */
static void test_ivf_short_and_full(void **state)
{
	struct ivf_info info = { .nr_cpus = 1, .first_ns = T0, .last_ns = T0 + 1000 * US };
	struct idle_interval in[5], out;
	struct ivf_writer *w;
	struct ivf_reader *r;
	char path[64], err[512];
	struct stat st;
	int i;

	(void)state;
	for (i = 0; i < 5; i++) {
		memset(&in[i], 0, sizeof(in[i]));
		memset(in[i].kstates, -1, sizeof(in[i].kstates));
		in[i].start_ns = T0 + i * 100 * US;
		in[i].idle_ns = 50 * US;
		in[i].timer_ns = IV_NO_TIMER;
		in[i].kernel_idle_ns = 50 * US + 700;
		in[i].irq = -1;
		in[i].wake = IV_WAKE_RESCHED;
		in[i].nr_entries = 1;
		in[i].kstates[0] = 2;
		in[i].kresidency[0] = 50 * US + 700;
	}
	/* a reconstructed timer, in a short record and in a full one */
	in[0].flags = IV_TIMER_GUESSED;
	in[1].flags = IV_TIMER_GUESSED;
	in[1].kwindow_mask = 1;			/* a window: full */
	in[1].nr_kwindows = 1;
	in[1].kwindow[0] = 200000;
	in[2].kresidency[0] = 1;		/* not the one entry's time: full */
	in[3].nr_entries = 0;			/* no entry, no residency: short */
	in[3].kstates[0] = -1;
	in[3].kresidency[0] = 0;
	in[4].kernel_idle_ns = 5 * (int64_t)UINT32_MAX;	/* saturated: short */
	in[4].idle_ns = in[4].kernel_idle_ns;
	in[4].kresidency[0] = UINT32_MAX;
	info.last_ns = in[4].start_ns + in[4].idle_ns;
	tmpname(path, sizeof(path));
	assert_int_equal(ivf_writer_open(path, &w, err, sizeof(err)), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(ivf_write(w, &in[i]), 0);
	out = in[0];
	out.wake |= 0x80;			/* the file's bit, not the caller's */
	assert_int_equal(ivf_write(w, &out), -EINVAL);
	assert_int_equal(ivf_writer_close(w, &info, NULL), 0);
	assert_int_equal(stat(path, &st), 0);
	/*
	 * header, one block's head and check, three short and two full
	 * records; the trailer: no IRQ names (8 + 4), the trace notes of one
	 * CPU (4 + 72 + two bitmaps of 8 + a window of 4 + no description, 4,
	 * + 4)
	 */
	assert_int_equal(st.st_size, 64 + 12 + 3 * 56 + 2 * 136 + 4 + 12 + 104);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), 0);
	assert_int_equal(ivf_reader_info(r)->version, IVF_VERSION);
	for (i = 0; i < 5; i++) {
		assert_int_equal(ivf_next(r, &out), 1);
		assert_memory_equal(&out, &in[i], sizeof(out));
	}
	assert_int_equal(ivf_next(r, &out), 0);
	ivf_close(r);
	unlink(path);
}

/* Rewrite the check of a version 5 file's first block, of @bytes bytes. */
static void reseal_first_block(uint8_t *f, size_t bytes)
{
	uint64_t h;

	h = lanes_sum(f + 76, bytes);
	put_le32(f + 76 + bytes, (uint32_t)(h ^ h >> 32));
}

/* One short record, damaged at @offset to @byte, checks fixed: refused. */
static void short_record_expect(long offset, uint8_t byte, const char *needle)
{
	struct ivf_info info = { .nr_cpus = 1, .first_ns = T0, .last_ns = T0 + 100 * US };
	struct idle_interval iv;
	struct ivf_writer *w;
	struct ivf_reader *r;
	char path[64], err[512];
	uint8_t f[64 + 12 + 56 + 4];
	FILE *fp;

	timer_interval(&iv);
	tmpname(path, sizeof(path));
	assert_int_equal(ivf_writer_open(path, &w, err, sizeof(err)), 0);
	assert_int_equal(ivf_write(w, &iv), 0);
	assert_int_equal(ivf_writer_close(w, &info, NULL), 0);
	fp = fopen(path, "r+b");
	assert_non_null(fp);
	assert_int_equal(fread(f, 1, sizeof(f), fp), sizeof(f));
	assert_int_equal(fgetc(fp), 'I');	/* a short record it is: the trailer follows */
	assert_int_equal(le64(f + 48), sizeof(f));
	f[offset] = byte;
	reseal_first_block(f, 56);
	rewind(fp);
	assert_int_equal(fwrite(f, 1, sizeof(f), fp), sizeof(f));
	fclose(fp);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), 0);
	assert_int_equal(ivf_next(r, &iv), -EINVAL);
	if (!strstr(ivf_error(r), needle))
		fail_msg("'%s' does not say '%s'", ivf_error(r), needle);
	ivf_close(r);
	unlink(path);
}

static void test_ivf_bad_short_records(void **state)
{
	(void)state;
	/* the record starts at 64 + 12 = 76 */
	short_record_expect(76 + 53, 1, "offset 129: a short record's reserved bytes are not 0");
	short_record_expect(76 + 55, 0x80, "reserved bytes are not 0");
	short_record_expect(76 + 50, 2, "offset 126: a short record of 2 kernel entries");
	short_record_expect(76 + 52, TRACE_MAX_STATES, "offset 128: bad kernel state index");
	short_record_expect(76 + 52, (uint8_t)-2, "bad kernel state index");
	/* the block's length: not whole words, or less than a short record */
	short_record_expect(72, 57, "offset 72: a block of 1 intervals in 57 bytes");
	short_record_expect(72, 48, "a block of 1 intervals in 48 bytes");
	/* the wake byte's 0x80 makes it a full record, which the block is too short for */
	short_record_expect(76 + 48, 0x80 | IV_WAKE_TIMER, "do not fill its 56 bytes");
	/* a reconstructed timer is a known one */
	short_record_expect(76 + 49, IV_TIMER_GUESSED | IV_TIMER_UNKNOWN,
			    "offset 125: a reconstructed next timer that is unknown");
}

/* ------------------------------------------------------------ found by fuzzing */

/*
 * What reconstruction emits, the interval file must take back: write @c's
 * intervals under the header lab_convert() writes from @st, and read them
 * all (cpuidle convert, then cpuidle sim).
 */
static void assert_ivf_takes(const struct collected *c, const struct iv_stats *st)
{
	struct ivf_info info = {
		.nr_cpus = st->nr_cpus, .first_ns = st->first_ns, .last_ns = st->last_ns,
	};
	struct ivf_writer *w;
	struct ivf_reader *r;
	struct idle_interval iv;
	char path[64], err[512];
	int i, ret;

	tmpname(path, sizeof(path));
	assert_int_equal(ivf_writer_open(path, &w, err, sizeof(err)), 0);
	for (i = 0; i < c->n; i++)
		assert_int_equal(ivf_write(w, &c->iv[i]), 0);
	assert_int_equal(ivf_writer_close(w, &info, NULL), 0);
	assert_int_equal(ivf_open(path, &r, err, sizeof(err)), 0);
	for (i = 0; (ret = ivf_next(r, &iv)) == 1; i++)
		;
	if (ret)
		fail_msg("%s", ivf_error(r));
	assert_int_equal(i, c->n);
	ivf_close(r);
	unlink(path);
}

/*
 * An event older than the newest by more than the reorder window cannot
 * be put in its place: an error naming its line, how far time went back
 * and the likely causes.  Applied late, such events used to make the
 * kernel's entries overlap (fuzz_trace: kernel_loop_ns -31293000), and a
 * trace appended to itself (or shuffled, reversed, perf script
 * --deltatime) gave impossible figures with exit status 0.
 */
static void test_backstep_refused(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	struct trace_event e;
	uint64_t line = 0;

	(void)state;
	enter(b, T0, 0, 1);
	leave(b, T0 + 100 * US, 0);
	enter(b, T0 + 50000 * US, 1, 1);	/* 50 ms on: the window moves past */
	e = ev_at(T0 + 45000 * US, 0, TEV_IDLE_ENTER);	/* 5 ms back: in order */
	e.state = 1;
	assert_int_equal(iv_builder_feed(b, &e), 0);
	e = ev_at(T0 + 50 * US, 0, TEV_IDLE_ENTER);	/* 49.95 ms back */
	e.state = 1;
	e.line = 42;
	assert_int_equal(iv_builder_feed(b, &e), -EINVAL);
	assert_non_null(strstr(iv_builder_error(b, &line),
			       "time went back by 49.950 ms on CPU 0, beyond the 10 ms"));
	assert_non_null(strstr(iv_builder_error(b, &line), "two traces concatenated"));
	assert_non_null(strstr(iv_builder_error(b, &line), "--deltatime"));
	assert_int_equal(line, 42);
	/* the refused event is not counted */
	assert_int_equal(iv_builder_stats(b)->events, 4);
	assert_int_equal(iv_builder_stats(b)->first_ns, T0);
	iv_builder_destroy(b);
}

/* Just beyond the window is refused; just within it is put in its place. */
static void test_backstep_window_edge(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	struct trace_event e;

	(void)state;
	enter(b, T0 + IV_REORDER_WINDOW_NS, 0, 1);
	irq(b, T0, 1, 5, "eth");			/* exactly the window back */
	e = ev_at(T0 - 1, 1, TEV_IRQ);			/* 1 ns beyond it */
	assert_int_equal(iv_builder_feed(b, &e), -EINVAL);
	iv_builder_destroy(b);
}

/*
 * Events out of order everywhere, all within the reorder window: whatever
 * their order in the file, the same intervals as in time order, at a cost
 * of log n per event.  Each new event of a reversed trace used to be moved
 * past every event held, n^2 / 2 moves in all: 80000 lines took 14 s to
 * convert, this test's 400000 events some 6 minutes (the test's timeout
 * catches that); now 0.03 s and well under a second.
 */
#define DISORDER_EVENTS	400000

static void feed_order(struct iv_builder *b, const struct trace_event *evs, size_t n, int how)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		switch (how) {
		case 0:		/* in time order */
			k = i;
			break;
		case 1:		/* reversed */
			k = n - 1 - i;
			break;
		default:	/* zigzag: first, last, second, last but one, ... */
			k = i % 2 ? n - 1 - i / 2 : i / 2;
			break;
		}
		assert_int_equal(iv_builder_feed(b, &evs[k]), 0);
	}
}

static void test_disorder_bounded(void **state)
{
	struct trace_event *evs = calloc(DISORDER_EVENTS, sizeof(*evs));
	struct collected *c = calloc(3, sizeof(*c));
	struct iv_builder *b;
	size_t i;
	int how;

	(void)state;
	assert_true(evs && c);
	/* one CPU going in and out of idle every 10 ns: 4 ms in all */
	for (i = 0; i < DISORDER_EVENTS; i++) {
		evs[i] = ev_at(T0 + (int64_t)i * 10, 0, i % 2 ? TEV_IDLE_EXIT : TEV_IDLE_ENTER);
		evs[i].state = 1;
	}
	for (how = 0; how < 3; how++) {
		assert_int_equal(iv_builder_create(collect, &c[how], &b), 0);
		feed_order(b, evs, DISORDER_EVENTS, how);
		assert_int_equal(iv_builder_finish(b), 0);
		assert_int_equal(iv_builder_stats(b)->events, DISORDER_EVENTS);
		iv_builder_destroy(b);
	}
	assert_true(c[0].n > 0);
	assert_int_equal(c[0].iv[0].nr_entries, UINT16_MAX);	/* merged, the count saturated */
	for (how = 1; how < 3; how++) {
		assert_int_equal(c[how].n, c[0].n);
		assert_memory_equal(c[how].iv, c[0].iv, (size_t)c[0].n * sizeof(c[0].iv[0]));
	}
	free(c);
	free(evs);
}

/*
 * A trace whose time stands still past the held-events bound (1 << 19):
 * the oldest events are applied early, so memory stays bounded; in order,
 * nothing changes.
 */
static void test_held_events_bounded(void **state)
{
	const size_t n = (1 << 19) + 5000;
	struct collected c;
	struct iv_builder *b = builder(&c);
	struct trace_event e;
	size_t i;

	(void)state;
	for (i = 0; i < n; i++) {
		e = ev_at(T0 + (int64_t)(i / 2), 0, i % 2 ? TEV_IDLE_EXIT : TEV_IDLE_ENTER);
		e.state = 1;
		feed(b, e);
	}
	assert_int_equal(iv_builder_finish(b), 0);
	assert_true(c.n > 0);
	assert_int_equal(c.iv[0].start_ns, T0);
	iv_builder_destroy(b);
}

/*
 * A device interrupt numbered above INT16_MAX wakes the CPU as any other,
 * but its number does not fit the record's 16 bits: -1, not a wrapped
 * negative number the file reader refuses (fuzz_trace: irq=65534 became
 * -2, "bad IRQ number").
 */
static void window_event(struct iv_builder *b, int64_t t, unsigned int cpu, int64_t value,
			 int64_t old)
{
	struct trace_event e = ev_at(t, cpu, TEV_HALT_POLL_NS);

	e.value = value;
	e.old = old;
	e.grow = value > old;
	feed(b, e);
}

/*
 * Each CPU's polling window when its first complete interval began: the
 * old value of the first window logged after it (CPU 0), the last one
 * logged before it (CPU 1), not known where none was logged (CPU 2).  The
 * residency skew is the shortest entry, 900 ns, where it is within twice
 * the least time between two events of a CPU (500 ns here); a trace whose
 * entries are all long takes that time instead.
 */
static void test_start_window_and_skew(void **state)
{
	struct collected got = { .n = 0 };
	struct iv_builder *b;
	const struct iv_notes *n;

	(void)state;
	assert_int_equal(iv_builder_create(collect, &got, &b), 0);
	/* CPU 1 logs a window during a partial interval, before its first entry */
	leave(b, T0 + 10 * US, 1);
	window_event(b, T0 + 11 * US, 1, 50000, 0);
	enter(b, T0 + 20 * US, 0, 1);
	enter(b, T0 + 21 * US, 1, 0);
	leave(b, T0 + 21 * US + 900, 1);	/* the shortest entry */
	leave(b, T0 + 150 * US, 0);
	window_event(b, T0 + 150 * US + 500, 0, 200000, 100000);
	enter(b, T0 + 160 * US, 0, 0);
	leave(b, T0 + 200 * US, 0);
	enter(b, T0 + 30 * US, 2, 1);
	leave(b, T0 + 60 * US, 2);
	assert_int_equal(iv_builder_finish(b), 0);
	n = &iv_builder_stats(b)->notes;
	assert_int_equal(n->window_known[0], 1u << 0 | 1u << 1);
	assert_int_equal(n->window_start[0], 100000);
	assert_int_equal(n->window_start[1], 50000);
	assert_int_equal(n->window_start[2], 0);
	assert_int_equal(n->residency_skew_ns, 900);
	iv_builder_destroy(b);

	/* no short entry: the least time between two events of a CPU */
	got.n = 0;
	assert_int_equal(iv_builder_create(collect, &got, &b), 0);
	enter(b, T0, 0, 1);
	leave(b, T0 + 50 * US, 0);
	irq(b, T0 + 50 * US + 700, 0, 11, "eth0");
	enter(b, T0 + 60 * US, 0, 1);
	leave(b, T0 + 90 * US, 0);
	assert_int_equal(iv_builder_finish(b), 0);
	n = &iv_builder_stats(b)->notes;
	assert_int_equal(n->residency_skew_ns, 700);
	assert_int_equal(n->window_known[0], 0);
	iv_builder_destroy(b);
}

static void test_irq_beyond_int16(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);

	(void)state;
	enter(b, T0, 0, 1);
	irq(b, T0 + 1000 * US, 0, 65534, "big");
	leave(b, T0 + 1001 * US, 0);
	enter(b, T0 + 2000 * US, 0, 1);
	irq(b, T0 + 3000 * US, 0, 32767, "fits");
	leave(b, T0 + 3001 * US, 0);
	enter(b, T0 + 4000 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 3);
	assert_int_equal(c.iv[0].wake, IV_WAKE_IRQ);
	assert_int_equal(c.iv[0].irq, -1);
	assert_int_equal(c.iv[1].wake, IV_WAKE_IRQ);
	assert_int_equal(c.iv[1].irq, 32767);
	assert_ivf_takes(&c, iv_builder_stats(b));
	iv_builder_destroy(b);
}

/* The tracer lost events of CPU @cpu at @t (@n of them, @line). */
static void lost(struct iv_builder *b, int64_t t, unsigned int cpu, int64_t n, uint64_t line)
{
	struct trace_event e = ev_at(t, cpu, TEV_LOST);

	e.value = n;
	e.line = line;
	feed(b, e);
}

/*
 * Events lost while the CPU was idle: its wake-up and exit may be among
 * them, so the interval is cut where the loss is (partial, as at the
 * trace's end) and the replay leaves it out; the exit after the gap, with
 * no entry, is not a new interval; the CPU's timers are unknown until its
 * tick is programmed again.  The loss is counted with its first place.
 */
static void test_lost_cuts_interval(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	const struct iv_stats *st;

	(void)state;
	timer_start(b, T0 - 10 * US, 0, 0x7c, T0 + 4000 * US, true);
	enter(b, T0, 0, 1);
	lost(b, T0 + 2000 * US, 0, 1234, 3001);
	leave(b, T0 + 9000 * US, 0);			/* its entry is not known */
	enter(b, T0 + 10000 * US, 0, 1);
	irq(b, T0 + 11000 * US, 0, 5, "eth");
	leave(b, T0 + 11001 * US, 0);
	enter(b, T0 + 12000 * US, 0, 1);
	lost(b, T0 + 12500 * US, 1, 0, 4000);		/* another CPU, count not said */
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.n, 3);
	assert_int_equal(c.iv[0].start_ns, T0);
	assert_true(c.iv[0].flags & IV_PARTIAL_END);
	assert_int_equal(c.iv[0].idle_ns, 2000 * US);
	assert_int_equal(c.iv[0].busy_ns, 0);
	/* after the gap: complete, its timers not known */
	assert_int_equal(c.iv[1].start_ns, T0 + 10000 * US);
	assert_false(c.iv[1].flags & (IV_PARTIAL_START | IV_PARTIAL_END));
	assert_true(c.iv[1].flags & IV_TIMER_UNKNOWN);
	assert_int_equal(c.iv[1].wake, IV_WAKE_IRQ);
	assert_true(c.iv[2].flags & IV_PARTIAL_END);
	st = iv_builder_stats(b);
	assert_int_equal(st->notes.lost_gaps, 2);
	assert_int_equal(st->notes.lost_events, 1234);
	assert_int_equal(st->notes.lost_cpu, 0);
	assert_int_equal(st->notes.lost_line, 3001);
	assert_int_equal(st->notes.lost_n, 1234);
	assert_ivf_takes(&c, st);
	iv_builder_destroy(b);
}

/*
 * Events lost after an exit, before the next entry: whether that entry
 * would have continued the interval (a re-entry) is not known, nor its
 * busy time: cut too.  A loss without a time of its own (ftrace's line
 * has none) stands where the file has it.
 */
static void test_lost_while_pending(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);

	(void)state;
	enter(b, T0, 0, 1);
	irq(b, T0 + 1000 * US, 0, 5, "eth");
	leave(b, T0 + 1001 * US, 0);
	enter(b, T0 + 60000 * US, 1, 1);
	lost(b, 0, 0, 7, 12);				/* no time: after the newest */
	enter(b, T0 + 61000 * US, 0, 1);
	irq(b, T0 + 62000 * US, 0, 5, "eth");
	leave(b, T0 + 62001 * US, 0);
	enter(b, T0 + 63000 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(c.iv[0].cpu, 0);
	assert_int_equal(c.iv[0].idle_ns, 1000 * US);
	assert_true(c.iv[0].flags & IV_PARTIAL_END);
	assert_int_equal(c.iv[0].nr_entries, 1);
	assert_int_equal(iv_builder_stats(b)->notes.lost_events, 7);
	assert_int_equal(iv_builder_stats(b)->first_ns, T0);
	iv_builder_destroy(b);
}

/*
 * A tick's hrtimer_expire_entry: now= on CLOCK_MONOTONIC, @delay ns
 * before the event, on a trace clock @offset ns behind it.
 */
static void tick_expires(struct iv_builder *b, int64_t t, unsigned int cpu, int64_t offset,
			 int64_t delay, uint64_t line)
{
	struct trace_event e = ev_at(t, cpu, TEV_HRTIMER_EXPIRE);

	e.timer = 0x7c + cpu;
	e.tick = true;
	e.now_ns = t + offset - delay;
	e.line = line;
	feed(b, e);
}

#define CLOCK_OFFSET	(121 * 1000 * US)	/* perf's default clock on the VM */

/*
 * A trace clock 121 ms behind CLOCK_MONOTONIC (perf record without -k
 * CLOCK_MONOTONIC): a timer armed for 3 ms ahead says expires= 124 ms
 * ahead in trace time.  Once 15 tick expiries measured the offset, the
 * timers are corrected by it; an interval that began before is marked
 * IV_TIMER_UNKNOWN; the offset is in the stats.  Without the correction
 * the next timer was 124 ms, and before the measure, known.
 */
static void test_clock_offset_corrected(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	const struct iv_stats *st;
	int64_t t = T0;
	int k;

	(void)state;
	/* CPU 0: tick programmed, then an interval with a timer 3 ms ahead */
	timer_start(b, t, 0, 0x7c, t + CLOCK_OFFSET + 4000 * US, true);
	timer_start(b, t + 1 * US, 0, 0x900, t + CLOCK_OFFSET + 3000 * US, false);
	enter(b, t + 10 * US, 0, 1);
	irq(b, t + 500 * US, 0, 5, "eth");
	leave(b, t + 501 * US, 0);
	/* CPU 1's tick: 15 expiries, 1 ms apart, a few us late, one very late */
	for (k = 0; k < 15; k++)
		tick_expires(b, t + 600 * US + k * 1000 * US, 1, CLOCK_OFFSET,
			     k == 3 ? 400 * US : (2 + k % 3) * US, 100 + (uint64_t)k);
	t += 20000 * US;
	timer_start(b, t, 0, 0x901, t + CLOCK_OFFSET + 3000 * US, false);
	enter(b, t + 10 * US, 0, 1);
	irq(b, t + 500 * US, 0, 5, "eth");
	leave(b, t + 501 * US, 0);
	enter(b, t + 1000 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	st = iv_builder_stats(b);
	assert_int_equal(st->notes.clock_offset_ns, CLOCK_OFFSET - 3 * US);	/* the median */
	assert_int_equal(st->notes.clock_line, 114);
	assert_int_equal(st->notes.clock_unknown, 1);
	assert_int_equal(c.n, 3);
	assert_true(c.iv[0].flags & IV_TIMER_UNKNOWN);
	assert_false(c.iv[1].flags & IV_TIMER_UNKNOWN);
	assert_int_equal(c.iv[1].timer_ns, 2990 * US + 3 * US);	/* less the median */
	iv_builder_destroy(b);
}

/* On CLOCK_MONOTONIC (now= a few us before the event): nothing changes. */
static void test_clock_monotonic_unchanged(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	int k;

	(void)state;
	timer_start(b, T0, 0, 0x7c, T0 + 4000 * US, true);
	timer_start(b, T0 + 1 * US, 0, 0x900, T0 + 3000 * US, false);
	enter(b, T0 + 10 * US, 0, 1);
	irq(b, T0 + 500 * US, 0, 5, "eth");
	leave(b, T0 + 501 * US, 0);
	for (k = 0; k < 20; k++)
		tick_expires(b, T0 + 600 * US + k * 1000 * US, 1, 0, (k % 7) * 3 * US, 0);
	enter(b, T0 + 30000 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	assert_int_equal(iv_builder_stats(b)->notes.clock_offset_ns, 0);
	assert_int_equal(iv_builder_stats(b)->notes.clock_unknown, 0);
	assert_false(c.iv[0].flags & IV_TIMER_UNKNOWN);
	assert_int_equal(c.iv[0].timer_ns, 2990 * US);
	iv_builder_destroy(b);
}

/*
 * An offset that jumps (perf script --deltatime, a clock stepped) cannot
 * be corrected: an error naming the line.  A slow drift (a few us a
 * second, as perf's default clock shows) is followed.
 */
static void test_clock_jump_refused(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	struct trace_event e;
	uint64_t line = 0;
	int k, ret = 0;

	(void)state;
	for (k = 0; k < 40; k++)	/* 4 us a second: 4 ns a tick */
		tick_expires(b, T0 + k * 1000 * US, 1, CLOCK_OFFSET + k * 4, 2 * US, 0);
	assert_int_equal(iv_builder_stats(b)->events, 40);
	for (k = 0; k < 15 && !ret; k++) {
		e = ev_at(T0 + (40 + k) * 1000 * US, 1, TEV_HRTIMER_EXPIRE);
		e.timer = 0x7d;
		e.tick = true;
		e.now_ns = e.ts_ns + CLOCK_OFFSET + 50 * US;	/* 50 us more */
		e.line = 500 + (uint64_t)k;
		ret = iv_builder_feed(b, &e);
		if (!ret && k == 14)
			ret = iv_builder_finish(b);
	}
	assert_int_equal(ret, -EINVAL);
	assert_non_null(strstr(iv_builder_error(b, &line), "the trace clock jumped by"));
	assert_int_equal(line, 507);	/* the 8th of 15: the median moves */
	iv_builder_destroy(b);
}

/*
 * The machine is the CPUs with events of their own: one named only as a
 * wake-up target above them is not part of it (it was not traced); one
 * with events but no idle entry or exit is, taken as always busy, and
 * named in the stats for a warning.
 */
static void test_cpus_without_idle(void **state)
{
	struct collected c;
	struct iv_builder *b = builder(&c);
	const struct iv_stats *st;

	(void)state;
	enter(b, T0, 0, 1);
	wakeup(b, T0 + 100 * US, 0, 5);		/* CPU 5: only a target */
	irq(b, T0 + 200 * US, 2, 5, "eth");	/* CPU 2: events, no idle */
	leave(b, T0 + 300 * US, 0);
	enter(b, T0 + 400 * US, 0, 1);
	assert_int_equal(iv_builder_finish(b), 0);

	st = iv_builder_stats(b);
	assert_int_equal(st->nr_cpus, 3);
	assert_int_equal(st->notes.nr_idle_less, 2);		/* CPUs 1 and 2 */
	assert_int_equal(st->notes.idle_less[0], 0x6);
	assert_ivf_takes(&c, st);
	iv_builder_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irq_wakeup_and_busy),
		cmocka_unit_test(test_poll_limit_merged),
		cmocka_unit_test(test_timer_reconstructed),
		cmocka_unit_test(test_timer_traced_not_guessed),
		cmocka_unit_test(test_tick_only_merged),
		cmocka_unit_test(test_residency_limits),
		cmocka_unit_test(test_task_wake),
		cmocka_unit_test(test_next_timer),
		cmocka_unit_test(test_qos_and_partial_start),
		cmocka_unit_test(test_qos_requests_by_task),
		cmocka_unit_test(test_cross_cpu_order),
		cmocka_unit_test(test_sink_stops),
		cmocka_unit_test(test_ivf_round_trip),
		cmocka_unit_test(test_ivf_corruption),
		cmocka_unit_test(test_ivf_bad_records),
		cmocka_unit_test(test_ivf_header_span),
		cmocka_unit_test(test_ivf_old_versions),
		cmocka_unit_test(test_ivf_notes),
		cmocka_unit_test(test_ivf_short_and_full),
		cmocka_unit_test(test_ivf_bad_short_records),
		cmocka_unit_test(test_backstep_refused),
		cmocka_unit_test(test_backstep_window_edge),
		cmocka_unit_test(test_lost_cuts_interval),
		cmocka_unit_test(test_lost_while_pending),
		cmocka_unit_test(test_clock_offset_corrected),
		cmocka_unit_test(test_clock_monotonic_unchanged),
		cmocka_unit_test(test_clock_jump_refused),
		cmocka_unit_test(test_cpus_without_idle),
		cmocka_unit_test(test_disorder_bounded),
		cmocka_unit_test(test_held_events_bounded),
		cmocka_unit_test(test_irq_beyond_int16),
		cmocka_unit_test(test_start_window_and_skew),
		cmocka_unit_test(test_kstates_rest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
