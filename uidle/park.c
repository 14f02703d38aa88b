// SPDX-License-Identifier: MIT
/*
 * park.c - the parking lot: how a waiter sleeps in the kernel and how a
 * waker finds it, without a lost wake-up.
 */

/**
 * DOC: the wait and wake protocol
 *
 * A waiter sleeps on a futex word of its own (wc->park), never on the
 * user's word: then a kick (the engine's "leave your state now", for
 * pm_qos changes and pauses) can always reach it, and a wake can say how
 * many it woke.  The waiters asleep on the words that hash to one bucket
 * are listed in it, under its mutex, and counted in b->nr_parked, which a
 * waker reads without the mutex.  The steps (the names are those of the
 * exhaustive model in tests/test_uidle_protocol.c):
 *
 * Waiter, parking (uidle_park(), with wc->addr and wc->expected set):
 *
 *   P1  lock the bucket;
 *   P2  nr_parked += 1: a sequentially consistent read-modify-write;
 *   P3  look at the word, and at wc->kick (a sequentially consistent
 *       load): if the word changed or a kick came, nr_parked -= 1, unlock
 *       and return: no sleep;
 *   P4  park = 1, append to the bucket's list, unlock;
 *   P5  FUTEX_WAIT(&park, 1, limit): the kernel sleeps only if park still
 *       holds 1, compared under its own futex bucket lock after a full
 *       barrier, atomically with respect to FUTEX_WAKE on the same word;
 *       a return with park still 1 (a signal, a spurious wake-up) waits
 *       again until the limit;
 *   P6  lock the bucket; still listed (the limit passed): unlist,
 *       nr_parked -= 1; unlock.  Always taken, even when unparked.
 *
 * Waker (W1: the caller changed the word; then uidle_wake(), that is
 * uidle_unpark()):
 *
 *   W2  read nr_parked with a read-modify-write (adding 0), sequentially
 *       consistent; 0: return, nobody to wake (no lock, no system call);
 *   W3  lock the bucket;
 *   W4  for at most n listed waiters of this word, oldest first: unlist,
 *       nr_parked -= 1, park = 0 (release), FUTEX_WAKE(&park, 1);
 *   W5  unlock.
 *
 * Why no wake-up is lost:
 *
 * 1. P2-then-P3 and W1-then-W2 are the two sides of Dekker's pattern: a
 *    store (the count, the word) then a look at the other side's variable
 *    (the word, the count).  Plain loads would let a CPU satisfy the look
 *    before its own store is visible (x86 store buffering; weaker orders
 *    on arm64), both sides would miss each other, and the waiter would
 *    sleep on the old word while the waker saw nobody parked.  Here both
 *    sides access the count with read-modify-writes, and all the writes
 *    to one variable are totally ordered (its modification order; every
 *    later update of the count is a read-modify-write too, so it extends
 *    the release sequence of the one before).  If W2 comes first, P2
 *    reads what W2 wrote, or what a later update wrote, so it acquires
 *    W2's release, which is sequenced after W1: P3 sees the new word.  If
 *    P2 comes first, W2 reads a count that includes the waiter (it is
 *    taken off only by the waiter leaving at P3, having seen the word
 *    changed, or by someone unparking it).  On x86 both are locked
 *    instructions, full barriers; no separate fence is needed, and the
 *    caller's store of the word may be of any memory order.
 * 2. If W2 saw a count it takes the lock (W3).  The waiter held the lock
 *    from P1 to P4, so by then it has either left at P3, having seen the
 *    word changed, or it is listed: W4 finds it.
 * 3. Between P4 and P5 the waiter is listed but not yet asleep.  W4 may
 *    run in that window: it sets park to 0 before FUTEX_WAKE, so the
 *    waiter's FUTEX_WAIT, which re-checks park == 1 inside the kernel,
 *    returns at once instead of sleeping (EAGAIN).  This re-check of the
 *    futex value is what makes "decide to sleep, then sleep" atomic with
 *    respect to a wake: the wake either finds the sleeper in the kernel's
 *    queue or changes the value it sleeps on first.
 * 4. Lifetime: W4 touches the waiter's park word under the bucket lock,
 *    and the waiter always passes P6, which takes that lock, before it
 *    returns; so its memory (the caller's) outlives every W4 on it.
 *
 * A kick (uidle_kick()) is a second waker for one waiter: K1 kick = 1, K2
 * read wc->addr (both sequentially consistent), K3 lock that bucket,
 * unpark the waiter like W4 if it is listed, unlock.  The waiter stores
 * wc->addr (sequentially consistent) before P1 and reads the kick at P3,
 * sequentially consistent too.  If K2 sees the address, K3 either finds
 * the waiter listed, or comes before its P1, and the lock carries the kick
 * to P3.  If K2 does not, K2 precedes the waiter's store of the address in
 * the single order of sequentially consistent operations, so K1 does too,
 * and P3, after that store, reads the kick.
 *
 * A waiter whose limit passes at P5 while a waker is in W4 is settled by
 * the lock at P6: unlisted by the waker (woken) or by itself (timed out),
 * never both, so nr_parked stays exact.
 *
 * tests/test_uidle_protocol.c checks these steps exhaustively (every
 * interleaving of up to two waiters, two wakers and a kicker, with store
 * buffers), and that each safeguard matters: a plain load at W2, a plain
 * store at P2, P3 before P2, FUTEX_WAKE before park = 0, a FUTEX_WAIT
 * without its value check, listing after the unlock, leaving without P6's
 * lock, or P3 not reading the kick each lose a wake-up or break the lot;
 * tests/test_uidle_stress.c runs the real code under TSan.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uidle_internal.h"

struct uidle_bucket *uidle_buckets_alloc(void)
{
	struct uidle_bucket *b;
	unsigned int i;

	if (posix_memalign((void **)&b, UIDLE_CACHELINE, UIDLE_NR_BUCKETS * sizeof(*b)))
		return NULL;
	memset(b, 0, UIDLE_NR_BUCKETS * sizeof(*b));
	for (i = 0; i < UIDLE_NR_BUCKETS; i++)
		pthread_mutex_init(&b[i].lock, NULL);
	return b;
}

void uidle_buckets_free(struct uidle_bucket *b)
{
	unsigned int i;

	if (!b)
		return;
	for (i = 0; i < UIDLE_NR_BUCKETS; i++)
		pthread_mutex_destroy(&b[i].lock);
	free(b);
}

/* Fibonacci hashing of the word's address (its low 2 bits are 0). */
static struct uidle_bucket *bucket_of(struct uidle_bucket *buckets, const uint32_t *addr)
{
	uint64_t h = ((uint64_t)(uintptr_t)addr >> 2) * 0x9e3779b97f4a7c15ull;

	return &buckets[h >> (64 - UIDLE_BUCKET_BITS)];
}

static long sys_futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts,
		      uint32_t val3)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, val3);
}

static void list_append(struct uidle_bucket *b, struct uidle_wait_ctx *wc)
{
	wc->next = NULL;
	wc->prev = b->tail;
	if (b->tail)
		b->tail->next = wc;
	else
		b->head = wc;
	b->tail = wc;
}

static void list_del(struct uidle_bucket *b, struct uidle_wait_ctx *wc)
{
	if (wc->prev)
		wc->prev->next = wc->next;
	else
		b->head = wc->next;
	if (wc->next)
		wc->next->prev = wc->prev;
	else
		b->tail = wc->prev;
	wc->next = wc->prev = NULL;
}

/* W4 for one waiter.  Bucket lock held. */
static void unpark_locked(struct uidle_bucket *b, struct uidle_wait_ctx *wc)
{
	list_del(b, wc);
	__atomic_fetch_sub(&b->nr_parked, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&wc->park, 0, __ATOMIC_RELEASE);
	sys_futex(&wc->park, FUTEX_WAKE_PRIVATE, 1, NULL, 0);
}

enum uidle_stop uidle_park(struct uidle_bucket *buckets, struct uidle_wait_ctx *wc,
			   int64_t limit_ns)
{
	const uint32_t *addr = __atomic_load_n(&wc->addr, __ATOMIC_RELAXED);
	struct uidle_bucket *b = bucket_of(buckets, addr);
	struct timespec ts, *tsp = NULL;
	enum uidle_stop stop;
	int kicked;

	if (limit_ns != UIDLE_NO_DEADLINE) {
		if (limit_ns < 0)
			limit_ns = 0;
		ts.tv_sec = limit_ns / CPUIDLE_NSEC_PER_SEC;
		ts.tv_nsec = limit_ns % CPUIDLE_NSEC_PER_SEC;
		tsp = &ts;
	}

	pthread_mutex_lock(&b->lock);					/* P1 */
	__atomic_fetch_add(&b->nr_parked, 1, __ATOMIC_SEQ_CST);		/* P2 */
	kicked = __atomic_load_n(&wc->kick, __ATOMIC_SEQ_CST);		/* P3 */
	if (kicked || __atomic_load_n(addr, __ATOMIC_RELAXED) != wc->expected) {
		__atomic_fetch_sub(&b->nr_parked, 1, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&b->lock);
		return kicked ? UIDLE_STOP_KICK : UIDLE_STOP_WORD;
	}
	__atomic_store_n(&wc->park, 1, __ATOMIC_RELAXED);		/* P4 */
	list_append(b, wc);
	pthread_mutex_unlock(&b->lock);

	stop = UIDLE_STOP_WORD;
	while (__atomic_load_n(&wc->park, __ATOMIC_ACQUIRE)) {		/* P5 */
		if (sys_futex(&wc->park, FUTEX_WAIT_BITSET_PRIVATE, 1, tsp,
			      FUTEX_BITSET_MATCH_ANY) < 0 && errno == ETIMEDOUT) {
			stop = UIDLE_STOP_LIMIT;
			break;
		}
	}

	pthread_mutex_lock(&b->lock);					/* P6 */
	if (__atomic_load_n(&wc->park, __ATOMIC_RELAXED)) {
		list_del(b, wc);
		__atomic_fetch_sub(&b->nr_parked, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&wc->park, 0, __ATOMIC_RELAXED);
	} else if (stop == UIDLE_STOP_LIMIT) {
		stop = UIDLE_STOP_WORD;	/* unparked just as the limit passed */
	}
	pthread_mutex_unlock(&b->lock);
	if (stop == UIDLE_STOP_WORD && __atomic_load_n(&wc->kick, __ATOMIC_RELAXED))
		stop = UIDLE_STOP_KICK;
	return stop;
}

int uidle_unpark(struct uidle_bucket *buckets, const uint32_t *addr, int32_t n)
{
	struct uidle_bucket *b = bucket_of(buckets, addr);
	struct uidle_wait_ctx *wc, *next;
	int woken = 0;

	if (!__atomic_fetch_add(&b->nr_parked, 0, __ATOMIC_SEQ_CST) || n <= 0) /* W2 */
		return 0;
	pthread_mutex_lock(&b->lock);					/* W3 */
	for (wc = b->head; wc && woken < n; wc = next) {		/* W4 */
		next = wc->next;
		if (__atomic_load_n(&wc->addr, __ATOMIC_RELAXED) != addr)
			continue;
		unpark_locked(b, wc);
		woken++;
	}
	pthread_mutex_unlock(&b->lock);					/* W5 */
	return woken;
}

void uidle_kick(struct uidle_bucket *buckets, struct uidle_wait_ctx *wc)
{
	const uint32_t *addr;
	struct uidle_bucket *b;
	struct uidle_wait_ctx *p;

	__atomic_store_n(&wc->kick, 1, __ATOMIC_SEQ_CST);		/* K1 */
	addr = __atomic_load_n(&wc->addr, __ATOMIC_SEQ_CST);		/* K2 */
	if (!addr)
		return;	/* between waits: the next one starts afresh */
	b = bucket_of(buckets, addr);
	pthread_mutex_lock(&b->lock);					/* K3 */
	for (p = b->head; p; p = p->next) {
		if (p == wc) {
			unpark_locked(b, wc);
			break;
		}
	}
	pthread_mutex_unlock(&b->lock);
}
