// SPDX-License-Identifier: MIT
/*
 * menu.c - the menu governor: guess how long the CPU will stay idle, then
 * take the deepest state that pays off within that guess.
 */

/**
 * DOC: menu
 *
 * Idea (Linux drivers/cpuidle/governors/menu.c, by Arjan van de Ven, 2009,
 * later reworked by Rafael J. Wysocki; the behaviour reproduced is that of
 * the v6.18 release): two independent guesses of the coming idle duration,
 * of which the shorter one is believed.
 *
 * The timer guess.  The next timer event bounds the stay from above, but
 * interrupts usually end it earlier.  How much earlier depends mostly on
 * how far away the timer is, so the governor keeps one learnt ratio
 * ("correction factor", measured stay / time to the timer) for each
 * decade of that distance: below 10 us, 100 us, 1 ms, 10 ms, 100 ms, and
 * beyond (BUCKETS).  The guess is the timer distance times that ratio.
 * The ratio is fixed point, UNITY meaning 1.0, and is a running average
 * in which each new observation weighs 1/DECAY.
 *
 * The pattern guess.  Some wake-ups are periodic (interrupt moderation,
 * devices that report at a fixed rate) and owe nothing to timers.  The
 * last INTERVALS observed stays (in us) are kept in a ring; if they agree
 * (standard deviation at most 20 us, or the mean above six standard
 * deviations with at least MIN_SAMPLES of them used) their mean is the
 * guess.  If not, whichever extreme (the smallest or the largest sample,
 * with all its copies; the largest on a tie) lies farther from the mean is
 * dropped and the test repeated; once no more than MIN_SAMPLES remain
 * without agreement, there is no pattern guess.  (v6.15 made the trimming
 * two-sided; a mid-2025 change returned the largest remaining sample
 * instead of giving up when 4..6 remained, and was reverted in October
 * 2025, before v6.18, because machines whose turbo headroom depends on
 * deep-idle residency lost performance: giving up lets the timer guess,
 * usually a deep state, win.)
 *
 * Selection, in this order:
 *
 * 1. The previous stay is folded into the statistics now, not at wake-up,
 *    so that reflect() stays cheap.  If the previous entry was refused by
 *    the driver (no reflect(), last_residency_ns 0) a "no information"
 *    sample (UINT_MAX, always ignored by the pattern test) is pushed, so
 *    that the short stays of the entries that did succeed are not taken
 *    for the whole truth.
 * 2. The pattern guess is computed.  If it is at most
 *    RESIDENCY_THRESHOLD_NS the timer is not even asked for: the next
 *    timer is taken as infinitely far, the next tick as half a tick away,
 *    and the last bucket is used.  Otherwise the timer guess is computed
 *    and the smaller of the two kept.
 * 3. State 0 is returned at once when it is the only state, when QoS
 *    allows no latency at all, or when state 0 is enabled and either the
 *    timer comes before state 1 pays off or QoS forbids state 1.  The
 *    tick is stopped unless state 0 polls.
 * 4. If the tick is already stopped and the guess is below one tick, the
 *    timer distance is used instead: with no tick to rescue it, a CPU
 *    wrongly put in a shallow state could stay there for a long time.
 * 5. The enabled states are walked upward, the first enabled one being the
 *    fallback.  The walk ends at the first state whose exit latency breaks
 *    the QoS limit; a state whose target residency fits the guess is
 *    taken.  At the first that does not fit:
 *    a. if the choice so far is a polling state and this one pays off
 *       before the timer and does not take longer to leave than the whole
 *       guess, it is taken instead of polling (and the guess becomes its
 *       target residency);
 *    b. otherwise, with a guess below one tick, the walk ends;
 *    c. otherwise, with the tick running, the walk ends and the guess
 *       becomes the chosen state's target residency (so the tick is kept
 *       and the governor gets another chance at the next tick);
 *    d. otherwise (tick stopped) this deeper state replaces a choice
 *       shallower than a tick if it pays off before the next event, and
 *       the result is returned with the tick stopped.
 * 6. With the tick still running, it is kept when the choice polls or the
 *    guess is below one tick; the choice is then lowered, if needed, to
 *    the deepest enabled state that pays off before the next tick (or to
 *    the shallowest enabled one if none does).
 *
 * The observed stay, for the statistics:
 *
 * - woken by the tick while the timer was more than a tick away: the
 *   guess that kept the tick was wrong, and the CPU is taken to have been
 *   able to sleep long (nine tenths of MAX_INTERESTING);
 * - a polling state ended by its time limit: the CPU is taken to have been
 *   able to sleep until the timer;
 * - a state without CPUIDLE_FLAG_TIME_VALID (its residency cannot be
 *   measured): the stay is assumed to have lasted until the timer, as
 *   2.6.34 assumed the whole expected time (modern kernels no longer have
 *   the flag);
 * - otherwise the measured residency.
 *
 * From the last two the exit latency is deducted, or the value halved when
 * it is not more than twice the exit latency.  The result is capped at the
 * timer distance; the bucket's ratio moves toward result / timer distance
 * (a stay of MAX_INTERESTING or more counts as a perfect 1.0), and the
 * result in us joins the ring.
 *
 * Where this differs from the kernel (arguments aside):
 *
 * - The timer guess saturates at UINT_MAX us and is exact for any timer
 *   distance (menu_timer_guess_us()).  The kernel's is not: its product
 *   next_timer_ns x correction factor is 64 bits and wraps once the timer
 *   is ~26 days away (2^64 / 8192 ns, at the factor's ceiling), and the
 *   quotient then loses its high bits to the 32-bit timer_us (beyond ~71
 *   minutes).  The kernel never meets either, since a real system always
 *   has a timer within the tick's reach of hours at most; this library
 *   can be asked (CPUIDLE_TIME_INFINITE: the lab's "next timer unknown"),
 *   and there the kernel's answer would be an accident of the wrap.
 * - Stays pushed into the ring keep the kernel's 32-bit truncation of the
 *   value in us, and the pattern test's sum of squares wraps modulo 2^64
 *   as the kernel's does; both only touch stays of more than ~71 minutes.
 * - Rule 5a is that of v6.18.0.  A later change (v6.19, also taken into
 *   6.18.y stable) additionally requires the state's target residency to
 *   be below RESIDENCY_THRESHOLD_NS; it is not applied here, but in
 *   menu@7.1 (below).
 *
 * Releases.  This file holds two governors: "menu" (also registered as
 * "menu@6.18", the same functions under the release's name) follows v6.18
 * as above; "menu@7.1" follows Linux 7.1, the newest release whose menu.c
 * changes could be traced commit by commit (the 7.2 and 7.3 merge windows'
 * pull requests were not found; no menu commit of theirs was seen).  7.1
 * differs from 6.18 in three rules only, so both share this code: one
 * select() body, inlined twice with its release fixed, each ops object
 * calling its own copy.  The differences, by the commit each follows:
 *
 * a. Rule 5a also requires the state's target residency to be below
 *    RESIDENCY_THRESHOLD_NS (v6.19, "cpuidle: menu: Use residency
 *    threshold in polling state override decisions", Aboorva Devarajan):
 *    a deep state no longer replaces polling just because its exit latency
 *    fits the guess.
 * b. With the tick already stopped, the timer is always asked for, even
 *    when the pattern guess is short (v7.0, 80606f4eb8d7, "cpuidle:
 *    governors: menu: Always check timers with tick stopped").  In 6.18 the
 *    unasked timer counts as infinitely far, and rule 4 then replaces a
 *    short guess by that infinity: the deepest state, whatever the timer.
 * c. Rule 4 moves into the branch that asked for the timer (same commit),
 *    and does not apply when the timer is due within SAFE_TIMER_RANGE_TICKS
 *    ticks (v7.1, e57c2bf2e89d, "cpuidle: governors: menu: Refine stopped
 *    tick handling"): that timer ends a shallow state soon enough, so the
 *    short guess stands.
 *
 * v7.0 also stopped calling the governor for a driver of one state (the
 * core picks it; "cpuidle: Skip governor when only one idle state is
 * available" and "cpuidle: menu: Remove single state handling").  This
 * library's core still calls it, so menu@7.1 keeps 6.18's answer for one
 * state, as the core's bypass would; the remaining 7.0 change ("Remove
 * incorrect unlikely() annotation") does not change a decision.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "gov.h"
#include "menu.h"

#define BUCKET_FIRST_LIMIT_NS	(10 * CPUIDLE_NSEC_PER_USEC)
#define BUCKET_RATIO		10


/*
 * The pattern test gives up below three quarters of the ring; with more
 * samples than that, stragglers may still be trimmed.
 */
#define MIN_SAMPLES		(INTERVALS * 3 / 4)

/* Samples agree if their variance is at most (20 us)^2 ... */
#define PATTERN_MAX_VARIANCE	400
/* ... or if the mean exceeds six standard deviations (6^2 = 36). */
#define PATTERN_MEAN_TO_STDDEV_SQ 36

/* "No pattern" from the detector, and "no information" in the ring. */
#define NO_PREDICTION		UINT_MAX

/*
 * Fixed-point correction factors: RESOLUTION steps per 1.0 per
 * observation; the running average keeps DECAY observations' worth, so
 * 1.0 is stored as UNITY.  Each update removes 1/DECAY of the old value
 * and adds at most RESOLUTION, so a factor never exceeds UNITY + DECAY - 1
 * and, for DECAY > 1, never drops to 0.
 */
#define RESOLUTION		1024
#define DECAY			8
#define UNITY			(RESOLUTION * DECAY)

_Static_assert(DECAY > 1, "a factor must not be able to decay to 0");

/*
 * Stays this long are as good as endless: no state gains anything from
 * sleeping longer, so they count as a perfect timer prediction.
 */
#define MAX_INTERESTING		(50000 * CPUIDLE_NSEC_PER_USEC)

/* What a stay cut short by an unexpected tick is taken to have been. */
#define TICK_WAKEUP_STAY_NS	(9 * MAX_INTERESTING / 10)

/* Divisor turning "timer ns x factor" into us of predicted stay. */
#define TIMER_SCALE		((uint64_t)UNITY * CPUIDLE_NSEC_PER_USEC)

/*
 * Below this timer distance "timer ns x factor" fits in 64 bits for any
 * 32-bit factor, so the one-division form of the kernel can be used.
 */
#define TIMER_DIRECT_LIMIT_NS	(1ULL << 32)


static unsigned int menu_bucket(uint64_t duration_ns)
{
	uint64_t limit = BUCKET_FIRST_LIMIT_NS;
	unsigned int b;

	for (b = 0; b < BUCKETS - 1; b++, limit *= BUCKET_RATIO)
		if (duration_ns < limit)
			break;
	return b;
}

/* Replace the oldest sample with @us, the ring's sums moving with it. */
static void menu_push_interval(struct menu_device *data, unsigned int us)
{
	unsigned int old = data->intervals[data->interval_ptr];

	data->intervals[data->interval_ptr] = us;
	data->interval_ptr = (data->interval_ptr + 1) & (INTERVALS - 1);
	if (old != NO_PREDICTION && us != NO_PREDICTION) {	/* nearly always */
		data->ring_sum += (uint64_t)us - old;
		data->ring_sum_sq += (uint64_t)us * us - (uint64_t)old * old;
		return;
	}
	if (old == NO_PREDICTION) {
		data->ring_no_info--;
	} else {
		data->ring_sum -= old;
		data->ring_sum_sq -= (uint64_t)old * old;
	}
	if (us == NO_PREDICTION) {
		data->ring_no_info++;
	} else {
		data->ring_sum += us;
		data->ring_sum_sq += (uint64_t)us * us;
	}
}

/*
 * How the pattern guess is computed, and why it is exact.
 *
 * The kernel rescans the ring once per trimming round, keeping the samples
 * strictly between a lower and an upper bound that move inward past every
 * copy of the extreme dropped.  Those samples always form a contiguous run
 * of the sorted ring.  So the ring is sorted once (a 19-comparator network:
 * no data-dependent branch), prefix sums are taken, and each round is
 * answered from a window [lo, hi) of the sorted copy.  Sums wrap modulo
 * 2^64 exactly as the kernel's do, and every division is by a constant.
 *
 * The first round needs no order and scans the ring directly: a regular
 * pattern usually passes there.  After it, most rings hold no pattern, and
 * proving that is cheaper than trying.  At most two rounds trim before the
 * test gives up (a round needs more than MIN_SAMPLES = 6 of at most 8
 * samples), so after the first trim the windows left to test are the
 * current one and the two it may be trimmed to.  For a window of n samples, range r and largest value m, the
 * variance computed with the kernel's truncating divisions is at least the
 * true variance minus 1, and the true variance is at least r^2 / 2n.  So
 * a window can pass "variance <= 400" only if r <= PATTERN_MAX_RANGE, and
 * "mean^2 > 36 variance" only if 3r < 2m + 12.  If none of those windows
 * meets either, the answer is "no pattern" without further work.  (The
 * bounds need sums that do not wrap: the shortcut is taken only while
 * every sample is below PATTERN_FILTER_MAX_US.)  Both forms were checked
 * against the kernel's rescanning loop on tens of millions of rings.
 */
#define PATTERN_MAX_RANGE	80		/* sqrt(2 x 8 x 401), rounded down */
#define PATTERN_FILTER_MAX_US	(1u << 29)	/* 8 x (2^29)^2 < 2^64 */

/* @x / @n for 1 <= @n <= INTERVALS; the common divisors are constants. */
static inline uint64_t menu_div_small(uint64_t x, unsigned int n)
{
	if (n == INTERVALS)
		return x >> INTERVAL_SHIFT;
	if (n == INTERVALS - 1)
		return x / (INTERVALS - 1);
	if (n == MIN_SAMPLES)
		return x / MIN_SAMPLES;
	return x / n;
}

#define MENU_SORT2(v, a, b)						\
	do {								\
		unsigned int _lo = (v)[a] < (v)[b] ? (v)[a] : (v)[b];	\
		unsigned int _hi = (v)[a] < (v)[b] ? (v)[b] : (v)[a];	\
		(v)[a] = _lo;						\
		(v)[b] = _hi;						\
	} while (0)

/* Batcher's odd-even merge sort for 8 values. */
static inline void menu_sort_ring(unsigned int *v)
{
	_Static_assert(INTERVALS == 8, "the sorting network is for 8 samples");
	MENU_SORT2(v, 0, 1); MENU_SORT2(v, 2, 3); MENU_SORT2(v, 4, 5); MENU_SORT2(v, 6, 7);
	MENU_SORT2(v, 0, 2); MENU_SORT2(v, 1, 3); MENU_SORT2(v, 4, 6); MENU_SORT2(v, 5, 7);
	MENU_SORT2(v, 1, 2); MENU_SORT2(v, 5, 6);
	MENU_SORT2(v, 0, 4); MENU_SORT2(v, 1, 5); MENU_SORT2(v, 2, 6); MENU_SORT2(v, 3, 7);
	MENU_SORT2(v, 2, 4); MENU_SORT2(v, 3, 5);
	MENU_SORT2(v, 1, 2); MENU_SORT2(v, 3, 4); MENU_SORT2(v, 5, 6);
}

/* Could the window [lo, hi) of sorted @v pass either test?  See above. */
static inline bool menu_window_may_pass(const unsigned int *v, int lo, int hi)
{
	unsigned int range = v[hi - 1] - v[lo];

	return range <= PATTERN_MAX_RANGE || 3ull * range < 2ull * v[hi - 1] + 12;
}

/*
 * False only if no window the test can still reach from [lo, hi) may pass:
 * that window, and if it holds more than MIN_SAMPLES samples, the two it
 * may be trimmed to.
 */
static bool menu_pattern_possible(const unsigned int *v, int lo, int hi)
{
	int l, h;

	if (menu_window_may_pass(v, lo, hi))
		return true;
	if (hi - lo <= MIN_SAMPLES)
		return false;
	for (l = lo + 1; l < hi && v[l] == v[lo]; l++)
		;
	for (h = hi - 1; h > lo && v[h - 1] == v[hi - 1]; h--)
		;
	return (l < hi && menu_window_may_pass(v, l, hi)) ||
	       (h > lo && menu_window_may_pass(v, lo, h));
}

/* Does the round over n samples, sum and sum of squares pass?  *avg: mean. */
static inline bool menu_pattern_round(uint64_t sum, uint64_t sum_sq, unsigned int n,
				      uint64_t *avg)
{
	uint64_t a = menu_div_small(sum, n), a_sq = a * a;
	uint64_t variance = menu_div_small(sum_sq, n) - a_sq;

	*avg = a;
	/* a < 2^32, so a_sq cannot overflow; bound the other side. */
	return variance <= UINT64_MAX / PATTERN_MEAN_TO_STDDEV_SQ &&
	       ((a_sq > variance * PATTERN_MEAN_TO_STDDEV_SQ && n >= MIN_SAMPLES) ||
		variance <= PATTERN_MAX_VARIANCE);
}

/* What one pass over the ring tells: the first round's sums and extremes. */
struct menu_scan {
	uint64_t sum;
	uint64_t sum_sq;
	unsigned int n;		/* samples with information */
	unsigned int min;	/* NO_PREDICTION if there is none */
	unsigned int max;	/* 0 if there is none */
};

/* The scan the hard way: "no information" samples among them. */
static void menu_scan_ring_slow(const struct menu_device *data, struct menu_scan *sc)
{
	uint64_t sum = 0, sum_sq = 0;
	unsigned int n = 0, min = NO_PREDICTION, max = 0;
	int i;

	for (i = 0; i < INTERVALS; i++) {
		unsigned int x = data->intervals[i];

		if (x == NO_PREDICTION)	/* rare: after a refused entry */
			continue;
		n++;
		sum += x;
		sum_sq += (uint64_t)x * x;
		max = x > max ? x : max;
		min = x < min ? x : min;
	}
	sc->sum = sum;
	sc->sum_sq = sum_sq;
	sc->n = n;
	sc->min = min;
	sc->max = max;
}

/*
 * The first round's figures.  The sums are kept by push; when every sample
 * carries information (nearly always) the extremes come from a tree of
 * pairs, without a branch.
 */
static void menu_scan_ring(const struct menu_device *data, struct menu_scan *sc)
{
	const unsigned int *v = data->intervals;
	unsigned int lo[INTERVALS / 2], hi[INTERVALS / 2];
	int i;

	_Static_assert(INTERVALS == 8, "a tree of pairs for 8 samples");
	if (data->ring_no_info) {
		menu_scan_ring_slow(data, sc);
		return;
	}
	for (i = 0; i < INTERVALS / 2; i++) {
		lo[i] = v[i] < v[i + 4] ? v[i] : v[i + 4];
		hi[i] = v[i] < v[i + 4] ? v[i + 4] : v[i];
	}
	lo[0] = lo[0] < lo[2] ? lo[0] : lo[2];
	lo[1] = lo[1] < lo[3] ? lo[1] : lo[3];
	hi[0] = hi[0] > hi[2] ? hi[0] : hi[2];
	hi[1] = hi[1] > hi[3] ? hi[1] : hi[3];
	sc->sum = data->ring_sum;
	sc->sum_sq = data->ring_sum_sq;
	sc->n = INTERVALS;
	sc->min = lo[0] < lo[1] ? lo[0] : lo[1];
	sc->max = hi[0] > hi[1] ? hi[0] : hi[1];
}

/* The trimming rounds, after a first round over sc->n samples failed (mean @avg). */
__attribute__((noinline))
static unsigned int menu_typical_trimmed(const struct menu_device *data,
					 const struct menu_scan *sc, uint64_t avg)
{
	uint64_t sum[INTERVALS + 1], sum_sq[INTERVALS + 1];
	unsigned int v[INTERVALS], min = sc->min, max = sc->max, n = sc->n;
	int i, lo = 0, hi;

	memcpy(v, data->intervals, sizeof(v));
	menu_sort_ring(v);
	hi = (int)n;	/* the "no information" samples sort last */
	if (avg - min > max - avg) {	/* drop the farther extreme, all copies */
		while (lo < hi && v[lo] == min)
			lo++;
	} else {
		while (hi > lo && v[hi - 1] == max)
			hi--;
	}
	if (lo == hi || (max < PATTERN_FILTER_MAX_US && !menu_pattern_possible(v, lo, hi)))
		return NO_PREDICTION;

	sum[0] = sum_sq[0] = 0;
	for (i = 0; i < INTERVALS; i++) {
		sum[i + 1] = sum[i] + v[i];
		sum_sq[i + 1] = sum_sq[i] + (uint64_t)v[i] * v[i];
	}
	for (;;) {
		n = (unsigned int)(hi - lo);
		if (!n || !v[hi - 1])
			return NO_PREDICTION;
		min = v[lo];
		max = v[hi - 1];
		if (menu_pattern_round(sum[hi] - sum[lo], sum_sq[hi] - sum_sq[lo], n, &avg))
			return (unsigned int)avg;
		if (n <= MIN_SAMPLES)
			return NO_PREDICTION;
		if (avg - min > max - avg) {
			while (lo < hi && v[lo] == min)
				lo++;
		} else {
			while (hi > lo && v[hi - 1] == max)
				hi--;
		}
	}
}

/*
 * The pattern guess in us, or NO_PREDICTION, given the ring's scan.  The
 * first round needs no order and is inline (a regular pattern usually
 * passes there); only the trimming rounds use the sorted copy, and the
 * registers it takes.
 */
static inline unsigned int menu_typical_from_scan(const struct menu_device *data,
						  const struct menu_scan *sc)
{
	uint64_t avg;

	if (!sc->max)
		return NO_PREDICTION;
	if (menu_pattern_round(sc->sum, sc->sum_sq, sc->n, &avg))
		return (unsigned int)avg;
	if (sc->n <= MIN_SAMPLES)
		return NO_PREDICTION;
	return menu_typical_trimmed(data, sc, avg);
}

/*
 * round(@timer_ns x @factor / UNITY) in us, saturated at UINT_MAX.  The
 * split form is exact: with timer = q x TIMER_SCALE + r the result is
 * q x factor + round(r x factor / TIMER_SCALE).
 */
static unsigned int menu_timer_guess_us(uint64_t timer_ns, unsigned int factor)
{
	uint64_t us;

	if (timer_ns < TIMER_DIRECT_LIMIT_NS) {
		us = (timer_ns * factor + TIMER_SCALE / 2) / TIMER_SCALE;
	} else {
		uint64_t q = timer_ns / TIMER_SCALE;
		uint64_t r = timer_ns % TIMER_SCALE;

		us = q * factor + (r * factor + TIMER_SCALE / 2) / TIMER_SCALE;
	}
	return us < UINT_MAX ? (unsigned int)us : UINT_MAX;
}

/* Fold the stay that ended at the last reflect() into the statistics. */
static void menu_update(struct cpuidle_device *dev, struct menu_device *data)
{
	int last_idx = dev->last_state_idx;
	const struct cpuidle_state *target;
	uint64_t measured_ns, exit_ns;
	unsigned int factor;

	if (last_idx < 0 || last_idx >= dev->state_count)
		return;
	target = &dev->states[last_idx];
	exit_ns = (uint64_t)target->exit_latency_ns;

	if (data->tick_wakeup &&
	    data->next_timer_ns > (uint64_t)cpuidle_dev_tick_nsec(dev)) {
		measured_ns = TICK_WAKEUP_STAY_NS;
	} else if ((target->flags & CPUIDLE_FLAG_POLLING) && dev->poll_time_limit) {
		measured_ns = data->next_timer_ns;
	} else {
		if (target->flags & CPUIDLE_FLAG_TIME_VALID)
			measured_ns = dev->last_residency_ns;
		else
			measured_ns = data->next_timer_ns;

		/* What we want is when the wake-up began, not when it ended. */
		if (measured_ns > 2 * exit_ns)
			measured_ns -= exit_ns;
		else
			measured_ns /= 2;
	}

	/* A ratio above 1.0 would mean a stay past the timer: impossible. */
	if (measured_ns > data->next_timer_ns)
		measured_ns = data->next_timer_ns;

	factor = data->correction_factor[data->bucket];
	factor -= factor / DECAY;
	if (data->next_timer_ns > 0 && measured_ns < MAX_INTERESTING)
		factor += (unsigned int)(RESOLUTION * measured_ns / data->next_timer_ns);
	else
		factor += RESOLUTION;
	data->correction_factor[data->bucket] = factor;

	menu_push_interval(data, (unsigned int)(measured_ns / CPUIDLE_NSEC_PER_USEC));
}

/*
 * The selection of both releases; @v7_1 is a constant at each of the two
 * call sites below, so each governor object gets its own copy of the code,
 * with no test of it at run time.
 */
static inline __attribute__((always_inline))
int menu_select_release(struct cpuidle_device *dev, bool *stop_tick, bool v7_1)
{
	struct menu_device *data = dev->governor_data;
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int64_t tick_ns = cpuidle_dev_tick_nsec(dev);
	bool tick_stopped = cpuidle_tick_stopped(dev);
	const struct cpuidle_state *s;
	struct menu_scan scan;
	uint64_t predicted_ns;
	unsigned int min_us;
	int64_t delta_tick;
	int i, idx;

	if (data->needs_update) {
		menu_update(dev, data);
		data->needs_update = false;
	} else if (!dev->last_residency_ns) {
		menu_push_interval(data, NO_PREDICTION);
	}

	/*
	 * The pattern guess, when there is one, is a mean of samples, so at
	 * least their minimum (scan.min).  When that minimum already rules out the
	 * short-pattern branch and the timer guess is no larger, the pattern
	 * guess cannot change the outcome and is not computed.
	 */
	menu_scan_ring(data, &scan);
	min_us = scan.min;
	if ((uint64_t)min_us * CPUIDLE_NSEC_PER_USEC > RESIDENCY_THRESHOLD_NS)
		predicted_ns = (uint64_t)NO_PREDICTION * CPUIDLE_NSEC_PER_USEC;
	else
		predicted_ns = (uint64_t)menu_typical_from_scan(data, &scan) *
			       CPUIDLE_NSEC_PER_USEC;
	if (predicted_ns > RESIDENCY_THRESHOLD_NS || (v7_1 && tick_stopped)) {	/* 7.1 rule b */
		int64_t delta = cpuidle_get_sleep_length(dev, &delta_tick);
		unsigned int timer_us;

		if (delta < 0)
			delta = delta_tick = 0;
		data->next_timer_ns = (uint64_t)delta;
		data->bucket = menu_bucket(data->next_timer_ns);
		timer_us = menu_timer_guess_us(data->next_timer_ns,
					       data->correction_factor[data->bucket]);
		if (timer_us > min_us && min_us * CPUIDLE_NSEC_PER_USEC > RESIDENCY_THRESHOLD_NS)
			predicted_ns = (uint64_t)menu_typical_from_scan(data, &scan) *
				       CPUIDLE_NSEC_PER_USEC;
		if ((uint64_t)timer_us * CPUIDLE_NSEC_PER_USEC < predicted_ns)
			predicted_ns = (uint64_t)timer_us * CPUIDLE_NSEC_PER_USEC;
		/* 7.1 rule c: rule 4, here, and not for a timer within reach */
		if (v7_1 && tick_stopped && predicted_ns < (uint64_t)tick_ns &&
		    data->next_timer_ns > (uint64_t)(SAFE_TIMER_RANGE_TICKS * tick_ns))
			predicted_ns = data->next_timer_ns;
	} else {
		data->next_timer_ns = CPUIDLE_TIME_INFINITE;
		delta_tick = tick_ns / 2;
		data->bucket = BUCKETS - 1;
	}

	if (dev->state_count <= 1 || latency_req == 0 ||
	    ((data->next_timer_ns < (uint64_t)dev->states[1].target_residency_ns ||
	      latency_req < dev->states[1].exit_latency_ns) &&
	     !cpuidle_is_disabled(dev, 0))) {
		*stop_tick = !(dev->states[0].flags & CPUIDLE_FLAG_POLLING);
		return 0;
	}

	if (!v7_1 && tick_stopped && predicted_ns < (uint64_t)tick_ns)	/* 4 */
		predicted_ns = data->next_timer_ns;

	idx = -1;
	for (i = 0; i < dev->state_count; i++) {
		s = &dev->states[i];
		if (cpuidle_is_disabled(dev, i))
			continue;
		if (idx == -1)
			idx = i;
		if (s->exit_latency_ns > latency_req)
			break;
		if ((uint64_t)s->target_residency_ns <= predicted_ns) {
			idx = i;
			continue;
		}

		/* 5a: a real state rather than polling, when it is cheap enough. */
		if ((dev->states[idx].flags & CPUIDLE_FLAG_POLLING) &&
		    (!v7_1 || s->target_residency_ns < RESIDENCY_THRESHOLD_NS) &&	/* 7.1 a */
		    (uint64_t)s->target_residency_ns <= data->next_timer_ns &&
		    (uint64_t)s->exit_latency_ns <= predicted_ns) {
			predicted_ns = (uint64_t)s->target_residency_ns;
			idx = i;
			break;
		}
		/* 5b */
		if (predicted_ns < (uint64_t)tick_ns)
			break;
		/* 5c */
		if (!tick_stopped) {
			predicted_ns = (uint64_t)dev->states[idx].target_residency_ns;
			break;
		}
		/* 5d */
		if (dev->states[idx].target_residency_ns < tick_ns &&
		    s->target_residency_ns <= delta_tick)
			idx = i;
		return idx;
	}

	if (idx == -1)
		idx = 0;	/* nothing enabled: state 0 is the last resort */

	if (((dev->states[idx].flags & CPUIDLE_FLAG_POLLING) ||
	     predicted_ns < (uint64_t)tick_ns) && !tick_stopped) {
		*stop_tick = false;

		/* The tick will end the stay: pick a state that pays off by then. */
		if (idx > 0 && dev->states[idx].target_residency_ns > delta_tick) {
			for (i = idx - 1; i >= 0; i--) {
				if (cpuidle_is_disabled(dev, i))
					continue;
				idx = i;
				if (dev->states[i].target_residency_ns <= delta_tick)
					break;
			}
		}
	}
	return idx;
}

static int menu_select(struct cpuidle_device *dev, bool *stop_tick)
{
	return menu_select_release(dev, stop_tick, false);
}

static int menu_select_7_1(struct cpuidle_device *dev, bool *stop_tick)
{
	return menu_select_release(dev, stop_tick, true);
}

/* Runs on the wake-up path: record, defer the arithmetic to select(). */
static void menu_reflect(struct cpuidle_device *dev, int index)
{
	struct menu_device *data = dev->governor_data;

	dev->last_state_idx = index;
	data->needs_update = true;
	data->tick_wakeup = cpuidle_idle_got_tick(dev);
}

static int menu_enable_device(struct cpuidle_device *dev)
{
	struct menu_device *data = dev->governor_data;
	int i;

	memset(data, 0, sizeof(*data));
	for (i = 0; i < BUCKETS; i++)
		data->correction_factor[i] = UNITY;
	return 0;
}

const struct cpuidle_governor menu_governor = {
	.name = "menu",
	.rating = 20,
	.enable = menu_enable_device,
	.select = menu_select,
	.reflect = menu_reflect,
	.governor_data_size = sizeof(struct menu_device),
};

/* The same governor under its release's name: decides as "menu", call for call. */
const struct cpuidle_governor menu_6_18_governor = {
	.name = "menu@6.18",
	.rating = 20,
	.enable = menu_enable_device,
	.select = menu_select,
	.reflect = menu_reflect,
	.governor_data_size = sizeof(struct menu_device),
};

const struct cpuidle_governor menu_7_1_governor = {
	.name = "menu@7.1",
	.rating = 20,
	.enable = menu_enable_device,
	.select = menu_select_7_1,
	.reflect = menu_reflect,
	.governor_data_size = sizeof(struct menu_device),
};
