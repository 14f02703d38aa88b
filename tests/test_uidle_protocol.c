// SPDX-License-Identifier: MIT
/*
 * test_uidle_protocol.c - an exhaustive check of the engine's wait and wake
 * protocol (uidle/park.c, DOC: the wait and wake protocol): every
 * interleaving of the protocol's atomic steps for two or three threads, on
 * a machine whose stores go through per-thread store buffers (x86-TSO:
 * a store becomes visible to others only when its buffer drains; a
 * thread's own loads see its buffer first; locked instructions, mutex
 * operations, sequentially consistent stores and system calls drain it).
 * Store buffering is exactly the reordering Dekker's pattern must defeat,
 * so the model checks the barriers (the two read-modify-writes of the
 * count), not only the order of the steps.  The C11 argument, which also
 * covers weaker machines, is in park.c.
 *
 * The model (step names as in park.c):
 *
 *   waiter i:  A0 addr = word (SC)   A1 look at the word (uidle_wait's check)
 *              P1 lock   P2 cnt++ (a locked read-modify-write)   P3 look at
 *              the kick and the word; changed: cnt--, unlock, return
 *              P4 park = 1, append, unlock   P5 FUTEX_WAIT(park, 1): sleep
 *              if park is 1 (atomically in the kernel)   [asleep until a
 *              FUTEX_WAKE; or a time-out, or a spurious wake-up, where the
 *              configuration allows]; back from it, park still 1 and no
 *              time-out: FUTEX_WAIT again   P6 lock; still listed: unlist,
 *              cnt--; unlock   P7 look at the word: changed, timed out,
 *              kicked: return; else wait again from A1;  end: addr = 0 (SC)
 *   waker:     W1 word = 1 (a plain store)   W2 read cnt with a locked
 *              read-modify-write; 0: done   W3 lock   W4 for at most n
 *              listed: unlist, cnt--, park = 0, FUTEX_WAKE(park)   W5 unlock
 *   kicker:    K1 kick = 1 (SC)   K2 addr == 0: done   K3 lock; listed:
 *              unlist, cnt--, park = 0, FUTEX_WAKE; unlock
 *
 * Checked in every state reached: the count never goes negative and never
 * falls below the number listed; a waiter never returns while a waker or
 * kicker is between "park = 0" and its FUTEX_WAKE on it (its memory would
 * be the caller's again).  In every final state (nothing can move): every
 * thread has finished (a waiter still asleep is a lost wake-up), the lot is
 * empty (count 0, nobody listed), and each waiter returned for a reason
 * its configuration allows (changed word; time-out; kick).
 *
 * Then each of the protocol's safeguards is removed in turn (a mutation)
 * and the checker must find a violation in some configuration, which
 * shows both that each safeguard is needed and that the checker is not
 * vacuous.
 */
#include <stdlib.h>

#include "fixture.h"

/* ---------------------------------------------------------------- the model */

#define MAX_THREADS	4
#define MAX_WAITERS	2
#define BUF_MAX		2	/* every thread drains after at most two stores */
#define SPURIOUS_MAX	1	/* spurious wake-ups per waiter, where allowed */

enum var { V_WORD, V_CNT, V_PARK0, V_PARK1, V_KICK0, V_KICK1, V_ADDR0, V_ADDR1, NR_VARS };

#define V_PARK(i)	(V_PARK0 + (i))
#define V_KICK(i)	(V_KICK0 + (i))
#define V_ADDR(i)	(V_ADDR0 + (i))

enum kind { T_NONE, T_WAITER, T_WAKER, T_KICKER };

enum pc {
	/* waiter */
	A0, A1, P1, P2, P3, P3X, P3U, P4, P4U, P4L, P5, SLEEP, P5B, P6, P6B, P6U, P7, A_END,
	/* waker */
	W1, W2, W3, W4, W4P, W4W, W5,
	/* kicker */
	K1, K2, K3, K3P, K3W, K3U,
	DONE,
};

/* waiter flags */
#define F_WORD		0x1	/* saw the word changed */
#define F_KICK		0x2	/* saw the kick */
#define F_TIMEDOUT	0x4

struct thread {
	uint8_t kind, id, pc, flags, spurious, woken, target, nbuf;
	uint8_t bvar[BUF_MAX], bval[BUF_MAX];
};

struct state {
	uint8_t mem[NR_VARS];
	int8_t lock;			/* holder, -1 free */
	uint8_t nq, q[MAX_WAITERS];	/* listed waiters, FIFO */
	uint8_t asleep[MAX_WAITERS];	/* in the kernel's futex queue */
	struct thread t[MAX_THREADS];
};

/* Mutations: each removes one safeguard. */
#define M_PLAIN_WAKER_READ	0x01	/* W2 a plain load */
#define M_PLAIN_COUNT		0x02	/* P2 a plain (buffered) store */
#define M_LOOK_FIRST		0x04	/* P3's look before P2's count */
#define M_WAKE_BEFORE_CLEAR	0x08	/* FUTEX_WAKE before park = 0 */
#define M_NO_FUTEX_CHECK	0x10	/* FUTEX_WAIT sleeps whatever park holds */
#define M_LIST_AFTER_UNLOCK	0x20	/* P4 appends after the unlock */
#define M_NO_EXIT_LOCK		0x40	/* P6 skipped when park reads 0 */
#define M_NO_KICK_LOOK		0x80	/* P3 does not look at the kick */

struct config {
	const char *name;
	int waiters;
	int wakers;		/* each stores 1 and wakes @wake_n */
	int wake_n;
	bool kicker;		/* kicks waiter 0 */
	bool timeouts;		/* waiters may time out while asleep */
	bool spurious;		/* and wake up for no reason */
};

struct checker {
	const struct config *cfg;
	unsigned int mut;
	/* the visited set: open addressing over entries */
	struct state *states;
	uint32_t *parent;
	uint32_t nr, cap;
	uint32_t *table;
	uint32_t table_mask;
	uint32_t *stack;
	uint32_t sp, stack_cap;
	/* the first violation */
	const char *violation;
	uint32_t bad;
};

static uint8_t load(const struct state *s, const struct thread *t, int var)
{
	int i;

	for (i = t->nbuf - 1; i >= 0; i--)
		if (t->bvar[i] == var)
			return t->bval[i];
	return s->mem[var];
}

static void store_buffered(struct thread *t, int var, uint8_t val)
{
	t->bvar[t->nbuf] = (uint8_t)var;
	t->bval[t->nbuf] = val;
	t->nbuf++;
}

static bool listed(const struct state *s, int w)
{
	int i;

	for (i = 0; i < s->nq; i++)
		if (s->q[i] == w)
			return true;
	return false;
}

static void unlist(struct state *s, int w)
{
	int i, j = 0;

	for (i = 0; i < s->nq; i++)
		if (s->q[i] != w)
			s->q[j++] = s->q[i];
	s->nq = (uint8_t)j;
}

/* The outcome of one transition: up to 3 successors. */
struct succ {
	struct state s[3];
	int n;
};

static struct state *emit(struct succ *out, const struct state *s)
{
	out->s[out->n] = *s;
	return &out->s[out->n++];
}

/* Flush the oldest buffered store of thread @ti. */
static void flush(const struct state *s, int ti, struct succ *out)
{
	struct state *n;
	struct thread *t;

	if (!s->t[ti].nbuf)
		return;
	n = emit(out, s);
	t = &n->t[ti];
	n->mem[t->bvar[0]] = t->bval[0];
	memmove(&t->bvar[0], &t->bvar[1], BUF_MAX - 1);
	memmove(&t->bval[0], &t->bval[1], BUF_MAX - 1);
	t->nbuf--;
}

/* The thread's next step, if enabled.  Draining steps need an empty buffer. */
static void step(const struct checker *c, const struct state *s, int ti, struct succ *out)
{
	const struct thread *t = &s->t[ti];
	unsigned int mut = c->mut;
	bool drained = t->nbuf == 0;
	int w = t->id;		/* a waiter's index; a kicker's target is 0 */
	struct state *n;
	struct thread *nt;
	uint8_t v;

#define NEW()	(n = emit(out, s), nt = &n->t[ti])
#define NEED_DRAIN()	do { if (!drained) return; } while (0)
#define LOCK()	do { NEED_DRAIN(); if (s->lock >= 0) return; } while (0)

	switch (t->pc) {
	/* ---- waiter ---- */
	case A0:
		NEED_DRAIN();
		NEW();
		n->mem[V_ADDR(w)] = 1;
		nt->pc = A1;
		break;
	case A1:
		NEW();
		if (load(s, t, V_WORD)) {
			nt->flags |= F_WORD;
			nt->pc = A_END;
		} else {
			nt->pc = P1;
		}
		break;
	case P1:
		LOCK();
		NEW();
		n->lock = (int8_t)ti;
		nt->pc = (mut & M_LOOK_FIRST) ? P3 : P2;
		break;
	case P2:	/* cnt++ */
		if (mut & M_PLAIN_COUNT) {
			if (t->nbuf >= BUF_MAX)
				return;
			NEW();
			store_buffered(nt, V_CNT, (uint8_t)(load(s, t, V_CNT) + 1));
		} else {
			NEED_DRAIN();
			NEW();
			n->mem[V_CNT]++;
		}
		/* M_LOOK_FIRST has looked already */
		nt->pc = (mut & M_LOOK_FIRST) ? P4 : P3;
		break;
	case P3:	/* look at the kick and the word */
		NEW();
		if (load(s, t, V_WORD))
			nt->flags |= F_WORD;
		if (load(s, t, V_KICK(w)) && !(mut & M_NO_KICK_LOOK))
			nt->flags |= F_KICK;
		if (nt->flags & (F_WORD | F_KICK))
			nt->pc = (mut & M_LOOK_FIRST) ? P3U : P3X;	/* not counted yet */
		else
			nt->pc = (mut & M_LOOK_FIRST) ? P2 : P4;
		break;
	case P3X:	/* cnt-- */
		NEED_DRAIN();
		NEW();
		n->mem[V_CNT]--;
		nt->pc = P3U;
		break;
	case P3U:
		NEED_DRAIN();
		NEW();
		n->lock = -1;
		nt->pc = A_END;
		break;
	case P4:	/* park = 1, append */
		if (t->nbuf >= BUF_MAX)
			return;
		NEW();
		store_buffered(nt, V_PARK(w), 1);
		if (!(mut & M_LIST_AFTER_UNLOCK))
			n->q[n->nq++] = (uint8_t)w;
		nt->pc = P4U;
		break;
	case P4U:
		NEED_DRAIN();
		NEW();
		n->lock = -1;
		nt->pc = (mut & M_LIST_AFTER_UNLOCK) ? P4L : P5;
		break;
	case P4L:	/* M_LIST_AFTER_UNLOCK: the append, outside the lock */
		NEW();
		n->q[n->nq++] = (uint8_t)w;
		nt->pc = P5;
		break;
	case P5:	/* FUTEX_WAIT(park, 1) */
		NEED_DRAIN();
		NEW();
		if (s->mem[V_PARK(w)] == 1 || (mut & M_NO_FUTEX_CHECK)) {
			n->asleep[w] = 1;
			nt->pc = SLEEP;
		} else {
			nt->pc = P5B;	/* EAGAIN */
		}
		break;
	case SLEEP:
		if (!s->asleep[w]) {	/* woken by a FUTEX_WAKE */
			NEW();
			nt->pc = P5B;
		}
		if (c->cfg->timeouts && s->asleep[w] && !(t->flags & F_TIMEDOUT)) {
			NEW();
			n->asleep[w] = 0;
			nt->flags |= F_TIMEDOUT;
			nt->pc = P5B;
		}
		if (c->cfg->spurious && s->asleep[w] && t->spurious < SPURIOUS_MAX) {
			NEW();
			n->asleep[w] = 0;
			nt->spurious++;
			nt->pc = P5B;
		}
		break;
	case P5B:	/* back from FUTEX_WAIT */
		NEW();
		v = load(s, t, V_PARK(w));
		if (v == 1 && !(t->flags & F_TIMEDOUT))
			nt->pc = P5;
		else if (v == 0 && (mut & M_NO_EXIT_LOCK))
			nt->pc = P7;
		else
			nt->pc = P6;
		break;
	case P6:
		LOCK();
		NEW();
		n->lock = (int8_t)ti;
		nt->pc = P6B;
		break;
	case P6B:	/* still listed: unlist */
		if (load(s, t, V_PARK(w)) == 1) {
			NEED_DRAIN();
			NEW();
			unlist(n, w);
			n->mem[V_CNT]--;
			store_buffered(nt, V_PARK(w), 0);
		} else {
			NEW();
		}
		nt->pc = P6U;
		break;
	case P6U:
		NEED_DRAIN();
		NEW();
		n->lock = -1;
		nt->pc = P7;
		break;
	case P7:	/* uidle_wait's look */
		NEW();
		if (load(s, t, V_WORD))
			nt->flags |= F_WORD;
		if (load(s, t, V_KICK(w)))
			nt->flags |= F_KICK;
		nt->pc = (nt->flags & (F_WORD | F_KICK | F_TIMEDOUT)) ? A_END : A1;
		break;
	case A_END:
		NEED_DRAIN();
		NEW();
		n->mem[V_ADDR(w)] = 0;
		nt->pc = DONE;
		break;

	/* ---- waker ---- */
	case W1:
		if (t->nbuf >= BUF_MAX)
			return;
		NEW();
		store_buffered(nt, V_WORD, 1);
		nt->pc = W2;
		break;
	case W2:	/* read cnt: a locked read-modify-write drains */
		if (!(mut & M_PLAIN_WAKER_READ))
			NEED_DRAIN();
		NEW();
		nt->pc = load(s, t, V_CNT) ? W3 : DONE;
		break;
	case W3:
		LOCK();
		NEW();
		n->lock = (int8_t)ti;
		nt->pc = W4;
		break;
	case W4:	/* the next listed, if any and wanted */
		NEED_DRAIN();
		NEW();
		if (!s->nq || t->woken >= c->cfg->wake_n) {
			nt->pc = W5;
			break;
		}
		nt->target = s->q[0];
		unlist(n, nt->target);
		n->mem[V_CNT]--;
		nt->pc = (mut & M_WAKE_BEFORE_CLEAR) ? W4W : W4P;
		break;
	case W4P:	/* park = 0 */
	case K3P:
		if (t->nbuf >= BUF_MAX)
			return;
		NEW();
		store_buffered(nt, V_PARK(t->target), 0);
		if (t->pc == K3P)
			nt->pc = K3W;
		else
			nt->pc = (mut & M_WAKE_BEFORE_CLEAR) ? W4 : W4W;
		break;
	case W4W:	/* FUTEX_WAKE(park) */
	case K3W:
		NEED_DRAIN();
		NEW();
		if (n->asleep[t->target])
			n->asleep[t->target] = 0;
		if (t->pc == K3W) {
			nt->pc = K3U;
		} else {
			nt->woken++;
			nt->pc = (mut & M_WAKE_BEFORE_CLEAR) ? W4P : W4;
		}
		break;
	case W5:
	case K3U:
		NEED_DRAIN();
		NEW();
		n->lock = -1;
		nt->pc = DONE;
		break;

	/* ---- kicker ---- */
	case K1:
		NEED_DRAIN();
		NEW();
		n->mem[V_KICK(0)] = 1;
		nt->pc = K2;
		break;
	case K2:
		NEW();
		nt->pc = load(s, t, V_ADDR(0)) ? K3 : DONE;
		break;
	case K3:
		LOCK();
		NEW();
		n->lock = (int8_t)ti;
		if (listed(s, 0)) {
			unlist(n, 0);
			n->mem[V_CNT]--;
			nt->target = 0;
			nt->pc = K3P;
		} else {
			nt->pc = K3U;
		}
		break;
	}
#undef NEW
#undef NEED_DRAIN
#undef LOCK
}

/* ---------------------------------------------------------------- the search */

static uint64_t hash_state(const struct state *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < sizeof(*s); i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static void grow(struct checker *c)
{
	uint32_t i, cap = c->cap ? c->cap * 2 : 1u << 16;

	c->states = realloc(c->states, (size_t)cap * sizeof(*c->states));
	c->parent = realloc(c->parent, (size_t)cap * sizeof(*c->parent));
	assert_non_null(c->states);
	assert_non_null(c->parent);
	c->cap = cap;
	free(c->table);
	c->table_mask = 2 * cap - 1;
	c->table = malloc((size_t)(c->table_mask + 1) * sizeof(*c->table));
	assert_non_null(c->table);
	memset(c->table, 0xff, (size_t)(c->table_mask + 1) * sizeof(*c->table));
	for (i = 0; i < c->nr; i++) {
		uint32_t h = (uint32_t)hash_state(&c->states[i]) & c->table_mask;

		while (c->table[h] != UINT32_MAX)
			h = (h + 1) & c->table_mask;
		c->table[h] = i;
	}
}

/* Insert @s; its index, and whether it is new. */
static uint32_t insert(struct checker *c, const struct state *s, uint32_t parent, bool *fresh)
{
	uint32_t h;

	if (c->nr == c->cap)
		grow(c);
	h = (uint32_t)hash_state(s) & c->table_mask;
	while (c->table[h] != UINT32_MAX) {
		if (!memcmp(&c->states[c->table[h]], s, sizeof(*s))) {
			*fresh = false;
			return c->table[h];
		}
		h = (h + 1) & c->table_mask;
	}
	c->states[c->nr] = *s;
	c->parent[c->nr] = parent;
	c->table[h] = c->nr;
	*fresh = true;
	return c->nr++;
}

static void push(struct checker *c, uint32_t i)
{
	if (c->sp == c->stack_cap) {
		c->stack_cap = c->stack_cap ? 2 * c->stack_cap : 4096;
		c->stack = realloc(c->stack, c->stack_cap * sizeof(*c->stack));
		assert_non_null(c->stack);
	}
	c->stack[c->sp++] = i;
}

static bool is_unparking(const struct thread *t, int w)
{
	return (t->kind == T_WAKER && (t->pc == W4P || t->pc == W4W) && t->target == w) ||
	       (t->kind == T_KICKER && (t->pc == K3P || t->pc == K3W) && t->target == w);
}

/* Checks on every state; NULL if fine. */
static const char *check_state(const struct checker *c, const struct state *s)
{
	int i, j;

	uint8_t cnt = s->mem[V_CNT];

	/* the count as its last writer sees it: a buffered store included */
	for (i = 0; i < MAX_THREADS; i++)
		for (j = 0; j < s->t[i].nbuf; j++)
			if (s->t[i].bvar[j] == V_CNT)
				cnt = s->t[i].bval[j];
	if (cnt > MAX_WAITERS || cnt < s->nq)
		return "the parked count went wrong";
	for (i = 0; i < MAX_THREADS; i++) {
		const struct thread *t = &s->t[i];

		if (t->kind != T_WAITER || t->pc != DONE)
			continue;
		for (j = 0; j < MAX_THREADS; j++)
			if (is_unparking(&s->t[j], t->id))
				return "a waiter returned while being unparked (use after return)";
	}
	(void)c;
	return NULL;
}

/* Checks on a state where nothing can move. */
static const char *check_final(const struct checker *c, const struct state *s)
{
	int i;

	for (i = 0; i < MAX_THREADS; i++) {
		const struct thread *t = &s->t[i];

		if (t->kind == T_NONE)
			continue;
		if (t->pc == SLEEP)
			return "a waiter sleeps for ever: lost wake-up";
		if (t->pc != DONE)
			return "a thread is stuck";
		if (t->kind == T_WAITER) {
			if ((t->flags & F_TIMEDOUT) && !c->cfg->timeouts)
				return "a time-out without one configured";
			if ((t->flags & F_KICK) && !c->cfg->kicker)
				return "a kick without a kicker";
			if (!(t->flags & (F_WORD | F_KICK | F_TIMEDOUT)))
				return "a waiter returned for no reason";
		}
	}
	if (s->mem[V_CNT] || s->nq)
		return "the parking lot is not empty at the end";
	if (s->lock >= 0)
		return "the lock is held at the end";
	return NULL;
}

static void init_state(const struct config *cfg, struct state *s)
{
	int i, t = 0;

	memset(s, 0, sizeof(*s));
	s->lock = -1;
	for (i = 0; i < cfg->waiters; i++, t++)
		s->t[t] = (struct thread){ .kind = T_WAITER, .id = (uint8_t)i, .pc = A0 };
	for (i = 0; i < cfg->wakers; i++, t++)
		s->t[t] = (struct thread){ .kind = T_WAKER, .id = (uint8_t)i, .pc = W1 };
	if (cfg->kicker)
		s->t[t++] = (struct thread){ .kind = T_KICKER, .pc = K1 };
	assert_true(t <= MAX_THREADS);
}

static void print_trace(const struct checker *c, uint32_t bad)
{
	static const char *const kinds[] = { "-", "waiter", "waker", "kicker" };
	uint32_t path[256], n = 0, i;
	int k;

	for (i = bad; i != UINT32_MAX && n < 256; i = c->parent[i])
		path[n++] = i;
	print_message("    trace (%u states, last first):\n", n);
	for (i = 0; i < n && i < 40; i++) {
		const struct state *s = &c->states[path[i]];

		print_message("     ");
		for (k = 0; k < MAX_THREADS; k++)
			if (s->t[k].kind != T_NONE)
				print_message(" %s%d@%d/buf%d", kinds[s->t[k].kind], s->t[k].id,
					      s->t[k].pc, s->t[k].nbuf);
		print_message("  word=%d cnt=%d park=%d,%d nq=%d asleep=%d,%d\n", s->mem[V_WORD],
			      s->mem[V_CNT], s->mem[V_PARK0], s->mem[V_PARK1], s->nq, s->asleep[0],
			      s->asleep[1]);
	}
}

/* Explore every interleaving; the number of states, and the violation in c. */
static uint32_t explore(struct checker *c)
{
	struct state s0;
	struct succ out;
	bool fresh;
	int ti, i;

	init_state(c->cfg, &s0);
	insert(c, &s0, UINT32_MAX, &fresh);
	push(c, 0);
	while (c->sp && !c->violation) {
		uint32_t cur = c->stack[--c->sp];
		struct state s = c->states[cur];
		bool moved = false;

		for (ti = 0; ti < MAX_THREADS && !c->violation; ti++) {
			if (s.t[ti].kind == T_NONE)
				continue;
			out.n = 0;
			step(c, &s, ti, &out);
			flush(&s, ti, &out);
			for (i = 0; i < out.n; i++) {
				uint32_t idx = insert(c, &out.s[i], cur, &fresh);
				const char *why;

				moved = true;
				if (!fresh)
					continue;
				why = check_state(c, &out.s[i]);
				if (why) {
					c->violation = why;
					c->bad = idx;
					break;
				}
				push(c, idx);
			}
		}
		if (!moved && !c->violation) {
			c->violation = check_final(c, &s);
			c->bad = cur;
		}
	}
	return c->nr;
}

static const char *run(const struct config *cfg, unsigned int mut, uint32_t *states, bool trace)
{
	struct checker c = { .cfg = cfg, .mut = mut };
	const char *v;

	*states = explore(&c);
	v = c.violation;
	if (v && trace)
		print_trace(&c, c.bad);
	free(c.states);
	free(c.parent);
	free(c.table);
	free(c.stack);
	return v;
}

/* ---------------------------------------------------------------- the checks */

static const struct config configs[] = {
	{ "1 waiter, 1 waker", 1, 1, 1, false, false, false },
	{ "2 waiters, 1 waker waking all", 2, 1, MAX_WAITERS, false, false, false },
	{ "2 waiters, 2 wakers waking one each", 2, 2, 1, false, false, false },
	{ "1 waiter timing out, spurious wake-ups, 1 waker", 1, 1, 1, false, true, true },
	{ "2 waiters timing out, 1 waker waking all", 2, 1, MAX_WAITERS, false, true, false },
	{ "1 waiter, 1 kicker", 1, 0, 1, true, false, false },
	{ "1 waiter timing out, 1 waker, 1 kicker", 1, 1, 1, true, true, false },
	{ "2 waiters, 1 waker waking all, 1 kicker", 2, 1, MAX_WAITERS, true, false, false },
};

#define NR_CONFIGS	((int)(sizeof(configs) / sizeof(configs[0])))

/* The protocol as park.c implements it: no violation anywhere. */
static void test_protocol_holds(void **state)
{
	uint32_t n, total = 0;
	const char *v;
	int i;

	(void)state;
	for (i = 0; i < NR_CONFIGS; i++) {
		v = run(&configs[i], 0, &n, true);
		print_message("uidle protocol: %-48s %7u states: %s\n", configs[i].name, n,
			      v ? v : "no lost wake-up, lot consistent");
		assert_null(v);
		assert_true(n > 10);
		total += n;
	}
	print_message("uidle protocol: %u states in all\n", total);
}

/* Each safeguard removed: some configuration must break. */
static void test_mutations_are_caught(void **state)
{
	static const struct {
		unsigned int mut;
		const char *what;
	} muts[] = {
		{ M_PLAIN_WAKER_READ, "the waker reading the count with a plain load (W2)" },
		{ M_PLAIN_COUNT, "the waiter counting itself with a plain store (P2)" },
		{ M_LOOK_FIRST, "the waiter looking before it counts itself (P3 before P2)" },
		{ M_WAKE_BEFORE_CLEAR, "FUTEX_WAKE before park = 0 (W4)" },
		{ M_NO_FUTEX_CHECK, "FUTEX_WAIT without the kernel's value check (P5)" },
		{ M_LIST_AFTER_UNLOCK, "the waiter listed after the unlock (P4)" },
		{ M_NO_EXIT_LOCK, "the waiter leaving without the lock (P6)" },
		{ M_NO_KICK_LOOK, "the waiter not looking at the kick (P3)" },
	};
	unsigned int m;
	uint32_t n;
	int i;

	(void)state;
	for (m = 0; m < sizeof(muts) / sizeof(muts[0]); m++) {
		const char *v = NULL;

		for (i = 0; i < NR_CONFIGS && !v; i++) {
			v = run(&configs[i], muts[m].mut, &n, false);
			if (v)
				print_message("uidle protocol: mutation \"%s\": caught, \"%s\" in \"%s\" (%u states)\n",
					      muts[m].what, v, configs[i].name, n);
		}
		if (!v)
			fail_msg("mutation not caught: %s", muts[m].what);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_protocol_holds),
		cmocka_unit_test(test_mutations_are_caught),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
