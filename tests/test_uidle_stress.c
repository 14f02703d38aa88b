// SPDX-License-Identifier: MIT
/*
 * test_uidle_stress.c - no lost wake-up, with the real code: many
 * producers and consumers handing items over through words they wait on
 * with the engine, while a control thread switches governors, changes the
 * QoS limit (each change kicks every waiter) and disables states.  Run
 * under ThreadSanitizer by the test suite.
 *
 * Two workloads run at once on one engine:
 *
 * - mailboxes: PRODUCERS threads send items to CONSUMERS threads, each
 *   consumer owning a one-item mailbox whose state word goes empty ->
 *   claimed -> full -> empty; producers and the consumer wait on the same
 *   word for different values, so every change wakes all (UIDLE_WAKE_ALL);
 *   half the consumers sleep only in the kernel (their other states
 *   disabled), to load the parking lot.  Every item arrives exactly once:
 *   the count and the sum of the item ids match.
 * - ping-pong: PAIRS pairs pass a turn through one word with wake(1); half
 *   of their waits have a deadline of a few microseconds, so time-outs race
 *   with wake-ups all the time.
 *
 * A lost wake-up would leave a waiter asleep until its deadline: every
 * wait that may last long has a deadline of DEADLINE_NS, and any wait that
 * lasts more than LOST_NS (far beyond any real hand-off, even under TSan)
 * fails the test, as does a deadline that passes.  At the end the parking
 * lot must be empty.
 *
 * The number of hand-offs (two word changes per item, one per turn) is
 * UIDLE_STRESS_HANDOFFS, default DEFAULT_HANDOFFS: a few seconds; set it to
 * millions for a long run, e.g. UIDLE_STRESS_HANDOFFS=5000000.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "fixture.h"
#include "../uidle/uidle_internal.h"

#define PRODUCERS		4
#define CONSUMERS		4
#define PAIRS			2
#define DEFAULT_HANDOFFS	120000

#define MS			(1000 * CPUIDLE_NSEC_PER_USEC)
#define DEADLINE_NS		(10 * CPUIDLE_NSEC_PER_SEC)
#define LOST_NS			(2 * CPUIDLE_NSEC_PER_SEC)
#define SHORT_DEADLINE_NS	(20 * CPUIDLE_NSEC_PER_USEC)
#define CONTROL_PERIOD_NS	(2 * MS)

enum { EMPTY, CLAIMED, FULL };

struct mailbox {
	uint32_t st;		/* waited on */
	uint64_t item;		/* written while CLAIMED, read while FULL */
	uint64_t received;
	uint64_t sum;
	struct uidle_waiter w;
} __attribute__((aligned(64)));

struct stress {
	struct uidle_engine *e;
	struct mailbox box[CONSUMERS];
	uint64_t items_per_producer;
	uint64_t turns_per_pair;
	uint32_t turn[PAIRS];	/* waited on */
	int done;		/* workers finished */
	int failures;		/* waits that ran late or timed out */
	int errors;		/* unexpected return values */
	uint64_t short_timeouts;
	uint64_t waits;
};

static int64_t now_ns(void)
{
	return uidle_now_ns();
}

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* One wait with a long deadline, checked; false if the test must stop. */
static bool wait_checked(struct stress *s, struct uidle_waiter *w, uint32_t *word,
			 uint32_t expected)
{
	int64_t t0 = now_ns();
	int ret = uidle_wait(w, word, expected, t0 + DEADLINE_NS);

	__atomic_fetch_add(&s->waits, 1, __ATOMIC_RELAXED);
	if (ret == -ETIMEDOUT || now_ns() - t0 > LOST_NS) {
		__atomic_fetch_add(&s->failures, 1, __ATOMIC_RELAXED);
		fprintf(stderr, "uidle stress: a wait on %p (expected %u, now %u) lasted %.3f s\n",
			(void *)word, expected, __atomic_load_n(word, __ATOMIC_RELAXED),
			(double)(now_ns() - t0) / 1e9);
		return false;
	}
	if (ret) {
		__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------- mailboxes */

struct producer {
	struct stress *s;
	int id;
	struct uidle_waiter w;
};

static void *producer_main(void *arg)
{
	struct producer *p = arg;
	struct stress *s = p->s;
	uint64_t n;

	for (n = 0; n < s->items_per_producer; n++) {
		struct mailbox *b = &s->box[(p->id + n) % CONSUMERS];
		uint32_t v;

		for (;;) {
			v = EMPTY;
			if (__atomic_compare_exchange_n(&b->st, &v, CLAIMED, false,
							__ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
				break;
			if (!wait_checked(s, &p->w, &b->st, v))
				goto out;
		}
		b->item = ((uint64_t)p->id << 32) | n;
		__atomic_store_n(&b->st, FULL, __ATOMIC_RELEASE);
		uidle_wake(s->e, &b->st, UIDLE_WAKE_ALL);
	}
out:
	__atomic_fetch_add(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct consumer {
	struct stress *s;
	struct mailbox *b;
	uint64_t expect;
};

static void *consumer_main(void *arg)
{
	struct consumer *c = arg;
	struct stress *s = c->s;
	struct mailbox *b = c->b;
	uint32_t v;

	while (b->received < c->expect) {
		v = __atomic_load_n(&b->st, __ATOMIC_ACQUIRE);
		if (v != FULL) {
			if (!wait_checked(s, &b->w, &b->st, v))
				break;
			continue;
		}
		b->received++;
		b->sum += b->item;
		__atomic_store_n(&b->st, EMPTY, __ATOMIC_RELEASE);
		uidle_wake(s->e, &b->st, UIDLE_WAKE_ALL);
	}
	__atomic_fetch_add(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---------------------------------------------------------------- ping-pong */

struct player {
	struct stress *s;
	int pair;
	int side;	/* plays on turns t with t % 2 == side */
	uint64_t seed;
	struct uidle_waiter w;
};

static void *player_main(void *arg)
{
	struct player *pl = arg;
	struct stress *s = pl->s;
	uint32_t *turn = &s->turn[pl->pair];
	uint32_t v, end = (uint32_t)s->turns_per_pair;
	int ret;

	while ((v = __atomic_load_n(turn, __ATOMIC_ACQUIRE)) < end) {
		if (v % 2 == (uint32_t)pl->side) {
			__atomic_store_n(turn, v + 1, __ATOMIC_RELEASE);
			uidle_wake(s->e, turn, 1);
			continue;
		}
		if (xorshift(&pl->seed) & 1) {
			if (!wait_checked(s, &pl->w, turn, v))
				break;
			continue;
		}
		/* a deadline racing the wake-up */
		ret = uidle_wait(&pl->w, turn, v,
				 now_ns() + (int64_t)(xorshift(&pl->seed) % SHORT_DEADLINE_NS));
		if (ret == -ETIMEDOUT)
			__atomic_fetch_add(&s->short_timeouts, 1, __ATOMIC_RELAXED);
		else if (ret)
			__atomic_fetch_add(&s->errors, 1, __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---------------------------------------------------------------- control */

static const char *const governors[] = { "menu", "teo", "ladder", "haltpoll", "hazard" };

static unsigned int control(struct stress *s, struct uidle_waiter **ws, int nr_ws, int workers)
{
	struct cpuidle_system *sys = uidle_engine_system(s->e);
	unsigned int n = 0;
	struct timespec ts = { 0, CONTROL_PERIOD_NS };

	while (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE) < workers) {
		struct uidle_waiter *w = ws[n % (unsigned int)nr_ws];

		switch (n % 4) {
		case 0: {
			const char *gov = governors[(n / 4) % 5];
			int ret = cpuidle_switch_governor(sys, gov);

			/* haltpoll refuses a table whose state 1 spins (uidle.h) */
			if (!(ret == -EOPNOTSUPP && !strcmp(gov, "haltpoll") &&
			      w->dev.state_count > 1 &&
			      (w->dev.states[1].flags & CPUIDLE_FLAG_POLLING)))
				assert_int_equal(ret, 0);
			break;
		}
		case 1:	/* none, 5 us (no kernel sleep), 100 us: each change kicks */
			if ((n / 4) % 3 == 0)
				pm_qos_remove_requirement(sys, PM_QOS_CPU_DMA_LATENCY, "ctl");
			else if ((n / 4) % 3 == 1)
				assert_int_equal(pm_qos_add_requirement(sys, PM_QOS_CPU_DMA_LATENCY,
									"ctl", 5), 0);
			else
				assert_int_equal(pm_qos_update_requirement(sys, PM_QOS_CPU_DMA_LATENCY,
									   "ctl", 100), 0);
			break;
		case 2:
			if (w->dev.state_count > 2)
				assert_int_equal(cpuidle_disable_state(&w->dev, 1,
						 CPUIDLE_STATE_DISABLED_BY_USER, (n / 4) & 1), 0);
			break;
		case 3:
			cpuidle_pause_and_lock(sys);
			cpuidle_resume_and_unlock(sys);
			break;
		}
		n++;
		nanosleep(&ts, NULL);
	}
	return n;
}

static uint64_t env_handoffs(void)
{
	const char *v = getenv("UIDLE_STRESS_HANDOFFS");
	long long n = v ? atoll(v) : 0;

	return n > 0 ? (uint64_t)n : DEFAULT_HANDOFFS;
}

static void test_no_lost_wakeup(void **state)
{
	static struct stress s;
	static struct producer prod[PRODUCERS];
	static struct consumer cons[CONSUMERS];
	static struct player play[2 * PAIRS];
	struct uidle_waiter *ws[PRODUCERS + CONSUMERS + 2 * PAIRS];
	pthread_t tid[PRODUCERS + CONSUMERS + 2 * PAIRS];
	struct uidle_engine_opts o = { .sz = sizeof(o), .flags = UIDLE_ENGINE_NO_CALIBRATE };
	uint64_t handoffs = env_handoffs(), want_sum = 0, got = 0, got_sum = 0, n;
	int i, t = 0, nr_ws = 0, workers = PRODUCERS + CONSUMERS + 2 * PAIRS;
	unsigned int rounds;
	int64_t t0 = now_ns();

	(void)state;
	memset(&s, 0, sizeof(s));
	/* half the hand-offs through mailboxes (two changes per item), half by turns */
	s.items_per_producer = handoffs / 4 / PRODUCERS + 1;
	s.turns_per_pair = handoffs / 2 / PAIRS + 1;
	assert_int_equal(uidle_engine_create(&o, &s.e), 0);

	for (i = 0; i < CONSUMERS; i++) {
		struct mailbox *b = &s.box[i];
		int k;

		assert_int_equal(uidle_waiter_init(s.e, &b->w), 0);
		ws[nr_ws++] = &b->w;
		if (i % 2)	/* only the futex sleep: every wait parks */
			for (k = 0; k < b->w.dev.state_count - 1; k++)
				assert_int_equal(cpuidle_disable_state(&b->w.dev, k,
						 CPUIDLE_STATE_DISABLED_BY_USER, true), 0);
	}
	for (i = 0; i < PRODUCERS; i++) {
		prod[i] = (struct producer){ .s = &s, .id = i };
		assert_int_equal(uidle_waiter_init(s.e, &prod[i].w), 0);
		ws[nr_ws++] = &prod[i].w;
		for (n = 0; n < s.items_per_producer; n++)
			want_sum += ((uint64_t)i << 32) | n;
	}
	for (i = 0; i < 2 * PAIRS; i++) {
		play[i] = (struct player){ .s = &s, .pair = i / 2, .side = i % 2,
					   .seed = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1) };
		assert_int_equal(uidle_waiter_init(s.e, &play[i].w), 0);
		ws[nr_ws++] = &play[i].w;
	}

	/* each consumer gets every item sent its way: producer p sends its n-th to (p + n) % C */
	for (i = 0; i < CONSUMERS; i++) {
		cons[i] = (struct consumer){ .s = &s, .b = &s.box[i] };
		for (t = 0; t < PRODUCERS; t++)
			for (n = 0; n < s.items_per_producer; n++)
				if ((t + n) % CONSUMERS == (uint64_t)i)
					cons[i].expect++;
	}
	t = 0;
	for (i = 0; i < CONSUMERS; i++)
		assert_int_equal(pthread_create(&tid[t++], NULL, consumer_main, &cons[i]), 0);
	for (i = 0; i < PRODUCERS; i++)
		assert_int_equal(pthread_create(&tid[t++], NULL, producer_main, &prod[i]), 0);
	for (i = 0; i < 2 * PAIRS; i++)
		assert_int_equal(pthread_create(&tid[t++], NULL, player_main, &play[i]), 0);

	/* the futex-only consumers keep their states as they are */
	rounds = control(&s, ws + CONSUMERS, nr_ws - CONSUMERS, workers);
	for (i = 0; i < t; i++)
		pthread_join(tid[i], NULL);

	for (i = 0; i < CONSUMERS; i++) {
		got += s.box[i].received;
		got_sum += s.box[i].sum;
	}
	print_message("uidle stress: %llu hand-offs in %.2f s, %llu waits, %llu short deadlines "
		      "hit, %u control rounds\n",
		      (unsigned long long)(2 * got + PAIRS * s.turns_per_pair),
		      (double)(now_ns() - t0) / 1e9, (unsigned long long)s.waits,
		      (unsigned long long)s.short_timeouts, rounds);
	assert_int_equal(s.failures, 0);
	assert_int_equal(s.errors, 0);
	assert_int_equal(got, PRODUCERS * s.items_per_producer);
	assert_true(got_sum == want_sum);
	for (i = 0; i < PAIRS; i++)
		assert_true(s.turn[i] >= s.turns_per_pair);

	/* the parking lot is empty: every parked waiter was unlisted once */
	for (i = 0; i < (int)UIDLE_NR_BUCKETS; i++) {
		assert_int_equal(s.e->buckets[i].nr_parked, 0);
		assert_null(s.e->buckets[i].head);
	}
	for (i = 0; i < nr_ws; i++)
		assert_int_equal(uidle_waiter_fini(ws[i]), 0);
	assert_int_equal(uidle_engine_destroy(s.e), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_lost_wakeup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
