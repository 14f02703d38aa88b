// SPDX-License-Identifier: MIT
/*
 * hazard.c - the hazard governor: pick the state that is cheapest for the
 * idle time to be expected, learnt as a survival curve of the wake-ups
 * that the next timer does not announce.
 */

/**
 * DOC: hazard
 *
 * Idea.  With the usual model of an idle state - a power while in it and
 * a fixed energy to enter and leave it - the energy of a stay of length d
 * in state s is P(s) * d + E(s): linear in d.  A state's target residency
 * is the stay at which it breaks even with the next shallower one, so for
 * a known d the cheapest state is the deepest whose target residency is
 * at most d.  For an unknown d the expected energy of each state is still
 * linear, in the expected stay: the cheapest state on average is the
 * deepest whose target residency is at most E[d].  Not the most likely
 * stay (teo's majority vote), not a cautious lower bound (menu's
 * minimum): the mean.  What matters is therefore how well E[d] is
 * estimated, and this governor spends its effort there.
 *
 * Model.  A stay ends either at the next timer, whose distance S is
 * known when idling starts (the sleep length), or earlier, at a wake-up
 * nothing announced (a device interrupt, an IPI).  Call X the time from
 * the start of the idle period to that unannounced wake-up; then
 * d = min(X, S).  X does not depend on the timers, so it can be learnt
 * across periods with very different S: a period that ends at its timer
 * says only "X > S" (a censored observation), one that ends earlier says
 * "X = d".  This is survival analysis, and the governor keeps the
 * discrete survival curve of X.  E[d] = integral from 0 to S of
 * P(X > t) dt, and after the CPU has already been idle for e (a re-entry
 * after the tick or the polling limit ended a stay and nothing ran), the
 * expected remaining stay is the integral from e to S of
 * P(X > t | X > e) dt.
 *
 * Bins.  Time is cut in octaves: bin 0 is [0, 2 us), bin j >= 1 is
 * [2^(j+BIN_SHIFT), 2^(j+1+BIN_SHIFT)) ns, NR_BINS bins up to ~17 s;
 * idle periods longer than that are all alike to every platform.  Per bin
 * a curve keeps q[j], the probability that X, having reached the bin,
 * also gets past it, as a 16-bit fixed-point fraction; within a bin the
 * survival falls linearly.  Octaves match the scale of the states (target
 * residencies from 1 us to tens of ms) at one step per octave.
 *
 * Contexts.  Idle periods come in runs (a burst of short ones, then long
 * ones), so there is one curve per context, the context being what the
 * previous period lasted: below context_short_ns, below context_long_ns,
 * or longer.  A context's curve is trusted only as far as its own periods
 * have reached; beyond, the pooled curve of all periods stands in.
 *
 * Far timers apart.  Each context has two curves: one for the periods
 * whose timer, as the period starts, lies beyond every period seen so far
 * (or is unknown), one for the others.  Censoring is taken above as
 * saying nothing of X, which holds only if the wake-ups do not depend on
 * the timers; often they do.  sqlite's second CPU (the shared traces,
 * sqlite-ladder on epyc7502): after a period of 16 us to 1 ms, about one
 * in five has a timer ~3 ms away and sleeps to it, the others one ~1 s
 * away and are woken after 180 us on average.  As one sample, the
 * censored 3 ms periods held the survival up, and the expected stay under
 * a far timer came to ~800 us, C2's break-even: C2 was chosen for ~2,000
 * stays of under 400 us.  From the far-timer periods alone it is ~180 us.
 * The split needs no constant: a timer
 * beyond every period seen cannot be expected to end this one, as none
 * has lasted so long; only a wake-up will, and the periods alike in that
 * are the ones to learn from.  (The pooled curve stays one: it stands in
 * where a context's curve has no evidence.)  Measured on the left-out
 * figures (scripts/governor-results --cv) it did better on every platform
 * or as well (doc/hazard.md).
 *
 * Learning.  At the end of an idle period of total length v (all its
 * stays added), every bin that v got past learns "survived": q[j] moves
 * 1/2^decay_shift of the way to 1; the bin v ended in learns "did not"
 * (q[j] moves 1/2^decay_shift of the way to 0) if the wake-up came before
 * the timer, and nothing if the timer ended it (censored there).  The
 * context's curve and the pooled one both learn.  Each bin is an
 * exponentially weighted frequency over the periods that reached it; no
 * division is made anywhere.  A period ended by the timer is recognised
 * by its length reaching the sleep length less 1/2^hit_slack_shift of it
 * (timer slack).  The stay measured is the residency less the state's
 * exit latency; a residency shorter than that (the exit latency is a worst
 * case) counts half, as in teo.
 *
 * Safety nets.  A stay ended by the tick while the timer was further away,
 * or a poll ended by its time limit, is not the end of the idle period:
 * the CPU goes back to idle at once.  The governor counts the stay as time
 * already idle (e above) and learns nothing until the period really ends.
 *
 * Declared powers.  Where the driver gives every state that does not poll
 * a power (ACPI _CST does; intel_idle and PSCI leave 0), the expected cost
 * of a state is taken as P(s) * (E[d] + exit latency) and the cheapest is
 * chosen: such drivers derive target residencies from exit latencies by a
 * fixed factor (ACPI: twice), not from energy.  Otherwise target
 * residencies are the break-even points, as above.
 *
 * Tunables.  The five constants above that were chosen on traces are the
 * system's to set, as module/hazard/parameters/NAME (cpuidle sim -s,
 * cpuidle sweep -s), their defaults the values chosen:
 *
 * - decay_shift (2, 1 to 8): the learning step, 1/2^decay_shift;
 * - hit_slack_shift (4, 1 to 63): the timer slack, 1/2^hit_slack_shift of
 *   the sleep length;
 * - prior_wake_shift (4, 1 to 16): a bin without evidence is survived
 *   all but once in 2^prior_wake_shift;
 * - context_short_ns (32000), context_long_ns (512000): the contexts'
 *   bounds, any unsigned int.
 *
 * A write out of range is refused (-EINVAL).  Each is read where it is
 * used, so a change takes effect at once: the prior at the next selection,
 * in the bins that have not learnt yet; the others at the next period's
 * end.  The governor keeps a pointer to the system's block (it lives as
 * long as the system), so reading one costs a load.
 * cluster, built on this governor, has copies of the five of its own
 * (module/cluster/parameters/NAME, the same defaults and ranges), so that
 * each is tuned apart (hazard_enable_with()).
 *
 * Selection:
 *
 * 1. The usable states: enabled, up to the first enabled one whose exit
 *    latency exceeds the QoS limit; if none, the shallowest enabled state
 *    (state 0 if none is enabled).
 * 2. The horizon: the sleep length, but no further than periods have been
 *    seen to last (a tick before the first one), or twice e if longer:
 *    beyond what was ever seen the curve only holds its prior; a first
 *    long period is caught by the tick, since the choice then stays
 *    shallow and keeps it.
 * 3. The expected remaining stay r: the integral from e to the horizon,
 *    stopped as soon as it is long enough for the deepest usable state.
 *    On the way, its value at the next tick is noted.  Without declared
 *    powers it also stops once what is left of the way, at the survival
 *    reached, could not bring it to the next deeper state's target
 *    residency: the choice is known then (unless the whole stay is asked,
 *    as cluster asks it).
 * 4. The choice: the deepest usable state whose target residency is at
 *    most r (with declared powers, the cheapest one for r).
 * 5. The tick is kept if it comes after the horizon (nothing is expected
 *    past it), or if the choice is not the deepest usable state and the
 *    stay up to the tick alone would pick the same state: it costs nothing
 *    now and gives a second chance to go deeper if the CPU is still idle
 *    then.  Otherwise it is stopped: keeping it would cut a stay that is
 *    expected to pay for a deeper state.
 *
 * Cost: one step per octave from e to where the integral stops in
 * select(), one per octave of the period's length for each of two curves
 * when it ends; a few multiplies and shifts each.  What depends only on the
 * driver's table (the longest exit latency, whether target residencies are
 * sorted, the residencies side by side) is worked out at enable().
 * BENCHMARKS.md has the figures beside menu's.
 *
 * Where the idea comes from: the energy argument is the classic
 * break-even analysis of power states (e.g. Benini, Bogliolo, De Micheli,
 * "A survey of design techniques for system-level dynamic power
 * management", 2000); the split of wake-ups into timer-announced and not
 * is teo's (Linux drivers/cpuidle/governors/teo.c); treating timer wake-ups
 * as censored observations of a survival curve of the other wake-ups, and
 * choosing by its mean, is this governor's own.
 */
#include <stddef.h>
#include <string.h>

#include "gov.h"
#include "hazard.h"

/* Bin 0 is [0, 2^(BIN_SHIFT + 1)) ns = [0, 2 us): below every deep state. */
#define BIN_SHIFT	10
/* Octaves up to 2^(NR_BINS + BIN_SHIFT) ns = 2^34 ns, ~17 s. */
#define NR_BINS		24
#define HORIZON_NS	(1ull << (NR_BINS + BIN_SHIFT))

/* Probabilities in 16-bit fixed point. */
#define Q_SHIFT		16
#define Q_ONE		(1u << Q_SHIFT)
/* The contexts: short, middle, long (hazard.h: context_short_ns, context_long_ns). */
#define NR_CONTEXTS			3
/* each context's curve twice: near timers, and far ones (the DOC) */
#define NR_CURVES			(2 * NR_CONTEXTS)
/*
 * A context's curve is young where its periods have not reached yet: there
 * the curve of all periods together (the last row) stands in for it.
 */
#define POOLED		NR_CURVES

struct hazard_device {
	uint32_t curve[NR_CURVES + 1][NR_BINS];	/* P(X passes bin j | X reached it) */
	uint32_t learnt[NR_CURVES + 1];	/* bit j: bin j has learnt, else holds the prior */
	uint32_t prior;			/* what the bins that have not learnt hold, Q16 */
	uint64_t seen[NR_CURVES + 1];	/* end of the highest bin a period reached */
	unsigned int seen_bin[NR_CURVES + 1];	/* the bin that starts there (0: none) */
	unsigned int ctx;		/* the context: after the last period */
	unsigned int in_force;		/* the curve of this period: ctx, + NR_CONTEXTS if far */
	uint64_t elapsed_ns;		/* idle so far in this period (e) */
	bool power_known;		/* the driver declares every state's power */
	uint64_t stay_cap_ns;		/* with powers: beyond it, the choice is fixed */
	uint64_t timer_at_ns;		/* the timer, from the period's start */
	bool timer_known;
	const struct hazard_params *tunables;	/* the system's block (it outlives us) */
	/*
	 * Worked out once, at enable() (a driver's table does not change
	 * while it is registered), so that select() need not:
	 * @max_exit_ns: the longest exit latency of the table: a QoS limit at
	 *	least this long keeps no state out
	 * @residency_sorted: target residencies never fall from a state to a
	 *	deeper one (every bundled platform's), so that the deepest state
	 *	a stay pays for is found from the shallow end
	 * @every: 0, 1, ...: the usable states when all are
	 * @residency_ns: each state's target residency, as hazard_pick()
	 *	compares it (unsigned), side by side
	 */
	int64_t max_exit_ns;
	bool residency_sorted;
	int8_t every[CPUIDLE_STATE_MAX];
	uint64_t residency_ns[CPUIDLE_STATE_MAX];
};

static const struct cpuidle_param hazard_params_table[] = {
	HAZARD_PARAMS(),
};
#define HAZARD_NR_PARAMS	(sizeof(hazard_params_table) / sizeof(hazard_params_table[0]))

/* Where the device is in no system: the defaults. */
static const struct hazard_params hazard_defaults = {
	.decay_shift = HAZARD_DEFAULT_DECAY_SHIFT,
	.hit_slack_shift = HAZARD_DEFAULT_HIT_SLACK_SHIFT,
	.prior_wake_shift = HAZARD_DEFAULT_PRIOR_WAKE_SHIFT,
	.context_short_ns = HAZARD_DEFAULT_CONTEXT_SHORT_NS,
	.context_long_ns = HAZARD_DEFAULT_CONTEXT_LONG_NS,
};

/*
 * A tunable in force: one relaxed load of its field in the system's block
 * (another thread may write it meanwhile), each time it is used.
 */
#define HAZARD_TUNABLE(data, field)	cpuidle_param_load_uint(&(data)->tunables->field)

/* The prior in force as a Q16 probability of getting past a bin. */
static uint32_t hazard_prior(const struct hazard_device *data)
{
	return Q_ONE - (Q_ONE >> HAZARD_TUNABLE(data, prior_wake_shift));
}

/*
 * The bins that have not learnt yet hold the prior in force: a change of
 * the tunable reaches them at the next selection.
 */
static void hazard_follow_prior(struct hazard_device *data, uint32_t prior)
{
	unsigned int c, j;

	if (prior == data->prior)
		return;
	for (c = 0; c <= POOLED; c++)
		for (j = 0; j < NR_BINS; j++)
			if (!(data->learnt[c] >> j & 1))
				data->curve[c][j] = prior;
	data->prior = prior;
}

_Static_assert(sizeof(struct hazard_device) <= HAZARD_DEVICE_SIZE, "HAZARD_DEVICE_SIZE too small");

/* The bin of a duration. */
static unsigned int hazard_bin(uint64_t ns)
{
	unsigned int j;

	if (ns < (2ull << BIN_SHIFT))
		return 0;
	j = 63u - (unsigned int)__builtin_clzll(ns) - BIN_SHIFT;
	return j < NR_BINS ? j : NR_BINS - 1;
}

/* Where bin @j starts. */
static uint64_t hazard_bin_start(unsigned int j)
{
	return j ? 1ull << (j + BIN_SHIFT) : 0;
}

/* log2 of bin @j's width: bins are octaves, bin 0 as wide as bin 1. */
static unsigned int hazard_bin_order(unsigned int j)
{
	return (j ? j : 1) + BIN_SHIFT;
}

/*
 * The integral of the survival curve, taken in steps: the expected stay
 * from where the integration started (X being past it) to @pos.
 */
struct hazard_integral {
	const uint32_t *q, *pooled;	/* the curve in force and the pooled one */
	uint64_t known;			/* the curve in force, up to here */
	unsigned int known_bin;		/* the bin that starts at @known */
	uint64_t pos, sum, surv;	/* surv: P(X > pos | X > start), Q16 */
	unsigned int j;			/* the bin of pos */
};

static void hazard_integral_start(struct hazard_integral *it, const struct hazard_device *data,
				  uint64_t from)
{
	it->q = data->curve[data->in_force];
	it->pooled = data->curve[POOLED];
	it->known = data->seen[data->in_force];
	it->known_bin = data->seen_bin[data->in_force];
	it->pos = from;
	it->sum = 0;
	it->surv = Q_ONE;
	it->j = hazard_bin(from);
}

/*
 * What the integral can still gain from @pos to @to with the survival at
 * @surv: no more than surv x (to - pos), the survival never rising.  Each
 * step adds at most surv x its span (rounded down), and the spans add up
 * to at most to - pos, so the bound holds for the rounded sums too.
 */
static uint64_t hazard_rest_bound(uint64_t pos, uint64_t to, uint64_t surv)
{
	return surv * (to - pos) >> Q_SHIFT;	/* < 2^(Q_SHIFT + 34): no overflow */
}

/* How far hazard_integrate() goes. */
enum hazard_walk {
	HAZARD_WALK_CAPPED,	/* to @to, or until the integral reaches @lim */
	HAZARD_WALK_DECIDE,	/* that, or until it cannot reach @lim any more */
	HAZARD_WALK_FULL,	/* to @to (@lim UINT64_MAX: never reached) */
};

/*
 * Carry the integral on to @to, or until it reaches @lim (a longer stay
 * would not change what the caller asks) or the survival is gone.  Within a
 * bin the survival falls linearly, by the share of the bin covered.  With
 * HAZARD_WALK_DECIDE, it also stops as soon as the rest of the way cannot
 * bring it to @lim (hazard_rest_bound()): the caller needs only to know
 * that it stays below, and takes no more from it.  HAZARD_WALK_FULL skips
 * the test against @lim in the loop: the integral is at most the span
 * walked, far below UINT64_MAX.
 *
 * The steps are those of a plain walk over the bins, whatever stops it
 * where: at most one part of a bin where it starts inside one, whole bins,
 * then the part of the bin @to ends in; so the sums are the same to the
 * last bit as one walk from the start to @to in one call, split at the
 * same points.  The whole bins run in a loop of their own, with the curve
 * chosen once for those before @known_bin and once for those after (the
 * bins start at powers of two and @known is a bin's end, so "pos <
 * known" is "j < known_bin" there).
 *
 * Return: whether the integral stayed below @lim.
 */
static inline __attribute__((always_inline)) bool
hazard_integrate(struct hazard_integral *it, uint64_t to, uint64_t lim, enum hazard_walk walk)
{
	uint64_t pos = it->pos, sum = it->sum, surv = it->surv;
	unsigned int j = it->j, whole_end;

	if (to > HORIZON_NS)
		to = HORIZON_NS;
	/* bins [j, whole_end) end at or before @to: 2^(j + 1 + BIN_SHIFT) <= to */
	whole_end = to >= (2ull << BIN_SHIFT) ?
		    63u - (unsigned int)__builtin_clzll(to) - BIN_SHIFT : 0;
	while (pos < to && sum < lim && surv) {
		uint64_t bin_end = 2ull << (j + BIN_SHIFT);	/* bins are octaves */
		uint64_t next, end, span, drop;
		uint32_t q;

		if (walk == HAZARD_WALK_DECIDE && sum + hazard_rest_bound(pos, to, surv) < lim)
			break;
		if (j < whole_end && pos == hazard_bin_start(j)) {
			/* whole bins: the survival falls to surv x q at each */
			const uint32_t *c = j < it->known_bin ? it->q : it->pooled;
			unsigned int stop = j < it->known_bin && it->known_bin < whole_end ?
					    it->known_bin : whole_end;

			if (!j) {	/* bin 0, as wide as bin 1 */
				next = surv * c[0] >> Q_SHIFT;
				sum += (surv + next) << hazard_bin_order(0) >> (Q_SHIFT + 1);
				surv = next;
				j = 1;
			}
			/*
			 * From bin 1 on, bin j is [2^(j + BIN_SHIFT), 2^(j + 1 +
			 * BIN_SHIFT)).  A survival gone adds nothing more and
			 * stays gone: the loop need not look (only where it
			 * stops, not the sum, changes).  Unrolled: a bin's step
			 * is a dozen instructions, the loop's own test two more.
			 */
#pragma GCC unroll 4
			for (; j < stop; j++) {
				if (walk != HAZARD_WALK_FULL && sum >= lim)
					break;
				if (walk == HAZARD_WALK_DECIDE &&
				    sum + hazard_rest_bound(1ull << (j + BIN_SHIFT), to, surv) < lim)
					break;
				next = surv * c[j] >> Q_SHIFT;
				sum += (surv + next) << (j + BIN_SHIFT) >> (Q_SHIFT + 1);
				surv = next;
			}
			pos = hazard_bin_start(j);
			continue;
		}
		/* part of one: it falls by (1 - q) x (span / width) */
		q = pos < it->known ? it->q[j] : it->pooled[j];
		end = bin_end < to ? bin_end : to;
		span = end - pos;
		drop = (surv * (Q_ONE - q) >> Q_SHIFT) * span >> hazard_bin_order(j);
		next = surv > drop ? surv - drop : 0;
		sum += span * (surv + next) >> (Q_SHIFT + 1);
		pos = end;
		j += end == bin_end;
		surv = next;
	}
	it->pos = pos;
	it->sum = sum;
	it->surv = surv;
	it->j = j;
	return sum < lim;
}

/*
 * The period is over: the context's curve and the pooled one learn from
 * its length @v, then the context follows it.
 */
static void hazard_learn(struct hazard_device *data, uint64_t v, bool timer_hit)
{
	unsigned int shift = HAZARD_TUNABLE(data, decay_shift);
	unsigned int last = hazard_bin(v), c = data->in_force, k, j;
	uint64_t end = last + 1 < NR_BINS ? hazard_bin_start(last + 1) : HORIZON_NS;
	uint32_t learnt = ((1u << last) - 1) | (timer_hit ? 0 : 1u << last);

	uint32_t *restrict qc = data->curve[c], *restrict qp = data->curve[POOLED];

	/* the two curves side by side, in one pass (distinct rows: never alias) */
	for (j = 0; j < last; j++) {
		qc[j] += (Q_ONE - qc[j]) >> shift;
		qp[j] += (Q_ONE - qp[j]) >> shift;
	}
	if (!timer_hit) {
		qc[last] -= qc[last] >> shift;
		qp[last] -= qp[last] >> shift;
	}
	for (k = 0; k < 2; k++, c = POOLED) {
		data->learnt[c] |= learnt;
		if (end > data->seen[c]) {
			data->seen[c] = end;
			data->seen_bin[c] = last + 1;	/* NR_BINS at HORIZON_NS */
		}
	}
	data->ctx = v < HAZARD_TUNABLE(data, context_short_ns) ? 0 :
		    v < HAZARD_TUNABLE(data, context_long_ns) ? 1 : 2;
}

/*
 * The states this selection may use: enabled, and within the QoS limit
 * (up to the first enabled one that is not: deeper ones are slower
 * still); if none is, the shallowest enabled one (state 0 if none is
 * enabled), since something must be entered.
 */
struct hazard_usable {
	int nr;
	const int8_t *idx;		/* @own, or the device's @every */
	int8_t own[CPUIDLE_STATE_MAX];
};

static inline __attribute__((always_inline)) void
hazard_usable(struct cpuidle_device *dev, const struct hazard_device *data, int64_t latency_req,
	      struct hazard_usable *u)
{
	int i, first = -1, n = dev->state_count;

	u->nr = 0;
	u->idx = u->own;
	if (latency_req >= data->max_exit_ns) {
		/* the usual case, no state beyond the limit: only the disable bits count */
		const struct cpuidle_state_usage *su = dev->states_usage;
		unsigned int any = 0;

		/*
		 * cpuidle_is_disabled()'s relaxed loads, all bits together: the
		 * compiler reloads nothing around an atomic load, so the
		 * array's address is read once here, not at each state
		 */
		for (i = 0; i < n; i++)
			any |= __atomic_load_n(&su[i].disable, __ATOMIC_RELAXED);
		if (!any) {	/* and none set: every state, listed once at enable() */
			u->idx = data->every;
			u->nr = n;
			return;
		}
		for (i = 0; i < n; i++)
			if (!cpuidle_is_disabled(dev, i))
				u->own[u->nr++] = (int8_t)i;
		if (!u->nr)
			u->own[u->nr++] = 0;
		return;
	}
	for (i = 0; i < dev->state_count; i++) {
		if (cpuidle_is_disabled(dev, i))
			continue;
		if (first < 0)
			first = i;
		if (dev->states[i].exit_latency_ns > latency_req)
			break;
		u->own[u->nr++] = (int8_t)i;
	}
	if (!u->nr)
		u->own[u->nr++] = (int8_t)(first >= 0 ? first : 0);
}

/*
 * Without declared powers and with target residencies sorted: the position
 * in @u of the deepest usable state whose target residency is at most
 * @stay_ns, or 0.  The search runs from the shallow end and stops at the
 * first state that is too long: every deeper one is too (sorted), and
 * most stays are short.
 */
static int hazard_rank(const struct hazard_device *data, const struct hazard_usable *u,
		       uint64_t stay_ns)
{
	int k;

	for (k = 1; k < u->nr; k++)
		if (data->residency_ns[u->idx[k]] > stay_ns)
			break;
	return k - 1;
}

/*
 * The cheapest usable state for a stay of @stay_ns: with declared powers,
 * the least P x (stay + exit latency); otherwise the deepest whose target
 * residency is at most the stay, or the shallowest usable one.
 */
static int hazard_pick(const struct cpuidle_device *dev, const struct hazard_device *data,
		       const struct hazard_usable *u, uint64_t stay_ns)
{
	uint64_t cost, best = UINT64_MAX;
	int k, idx = u->idx[0];

	if (!data->power_known) {
		if (data->residency_sorted)
			return u->idx[hazard_rank(data, u, stay_ns)];
		for (k = u->nr - 1; k > 0; k--)
			if ((uint64_t)dev->states[u->idx[k]].target_residency_ns <= stay_ns)
				return u->idx[k];
		return idx;
	}
	for (k = 0; k < u->nr; k++) {
		const struct cpuidle_state *s = &dev->states[u->idx[k]];

		cost = (uint64_t)s->power_usage * (stay_ns + (uint64_t)s->exit_latency_ns);
		if (cost < best) {
			best = cost;
			idx = u->idx[k];
		}
	}
	return idx;
}

/*
 * The selection, inlined in hazard_select() (no stay asked: the walks that
 * only serve it drop out) and in hazard_select_expected().
 */
static inline __attribute__((always_inline)) int
hazard_select_in(struct cpuidle_device *dev, bool *stop_tick, uint64_t *stay_ns)
{
	struct hazard_device *data = dev->governor_data;
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	uint64_t e = data->elapsed_ns, tick_at, horizon;
	struct hazard_integral it;
	struct hazard_usable u;
	int64_t delta_tick, sleep_ns;
	uint64_t cap;
	int idx, deepest, at_tick;

	if (dev->state_count <= 1) {
		if (stay_ns)
			*stay_ns = 0;
		*stop_tick = false;
		return 0;
	}
	hazard_follow_prior(data, hazard_prior(data));
	sleep_ns = cpuidle_get_sleep_length(dev, &delta_tick);
	data->timer_known = sleep_ns >= 0 && sleep_ns != CPUIDLE_TIME_INFINITE;
	data->timer_at_ns = data->timer_known ? e + (uint64_t)sleep_ns : HORIZON_NS;
	/*
	 * The curve is trusted only as far as periods have been seen to last
	 * (beyond, its bins still hold the prior; before the first period, a
	 * tick), or twice the time already idle: a first long period is
	 * caught by the tick, kept while the choice is shallow, and the next
	 * selection knows more.
	 */
	if (!e)	/* a period starts: its timer far if beyond every period seen */
		data->in_force = data->ctx +
				 (data->timer_at_ns > data->seen[POOLED] ? NR_CONTEXTS : 0);
	horizon = data->seen[POOLED] ? data->seen[POOLED] : (uint64_t)cpuidle_dev_tick_nsec(dev);
	if (horizon < 2 * e)
		horizon = 2 * e;
	if (horizon > data->timer_at_ns)
		horizon = data->timer_at_ns;
	tick_at = e + (uint64_t)(delta_tick > 0 ? delta_tick : 0);
	hazard_usable(dev, data, latency_req, &u);
	/* the state for long stays; a stay long enough for it need not be longer */
	deepest = data->power_known ? hazard_pick(dev, data, &u, HORIZON_NS) : u.idx[u.nr - 1];
	cap = data->power_known ? data->stay_cap_ns : data->residency_ns[deepest] + 1;

	/*
	 * 1, 2: one integration, noting where it stood at the tick (3); it
	 * stops as soon as the stay is long enough for the deepest state.
	 */
	hazard_integral_start(&it, data, e);
	if (tick_at < horizon) {
		hazard_integrate(&it, tick_at, cap, HAZARD_WALK_CAPPED);
		at_tick = !data->power_known && data->residency_sorted ?
			  u.idx[hazard_rank(data, &u, it.sum)] : hazard_pick(dev, data, &u, it.sum);
	} else {
		at_tick = -1;	/* the tick comes after the horizon */
	}
	if (!data->power_known && data->residency_sorted) {
		/*
		 * The choice is the deepest state whose target residency the
		 * integral reaches, which only needs to be walked as far as it
		 * may still reach the next one.  A walk stopped at the cap
		 * above stops between two of its steps: going on later takes
		 * the same steps, so the sums and the choice are those of the
		 * walk stopped there, to the last bit.
		 */
		int k;

		if (stay_ns) {	/* the whole expected stay is asked: walk it all */
			hazard_integrate(&it, horizon, UINT64_MAX, HAZARD_WALK_FULL);
			k = hazard_rank(data, &u, it.sum);
		} else {	/* only the choice: stop once the next state is out of reach */
			k = hazard_rank(data, &u, it.sum);
			while (k + 1 < u.nr &&
			       !hazard_integrate(&it, horizon, data->residency_ns[u.idx[k + 1]],
						 HAZARD_WALK_DECIDE))
				k = hazard_rank(data, &u, it.sum);
		}
		idx = u.idx[k];
	} else {
		hazard_integrate(&it, horizon, cap, HAZARD_WALK_CAPPED);
		idx = hazard_pick(dev, data, &u, it.sum);
		if (stay_ns)	/* the whole expected stay, past what decides the choice */
			hazard_integrate(&it, horizon, UINT64_MAX, HAZARD_WALK_FULL);
	}
	if (stay_ns)
		*stay_ns = it.sum;

	/* 3 */
	if (cpuidle_tick_stopped(dev))
		return idx;
	if (at_tick < 0) {
		*stop_tick = false;	/* nothing expected beyond the tick */
		return idx;
	}
	if (idx == deepest || at_tick != idx)
		return idx;	/* nothing deeper to wake up for, or the tick
				 * would cost a deeper state: stop it */
	*stop_tick = false;
	return idx;
}

int hazard_select_expected(struct cpuidle_device *dev, bool *stop_tick, uint64_t *stay_ns)
{
	return hazard_select_in(dev, stop_tick, stay_ns);
}

static int hazard_select(struct cpuidle_device *dev, bool *stop_tick)
{
	return hazard_select_in(dev, stop_tick, NULL);
}

void hazard_reflect(struct cpuidle_device *dev, int index)
{
	struct hazard_device *data = dev->governor_data;
	uint64_t measured = dev->last_residency_ns;
	uint64_t exit_ns = (uint64_t)dev->states[index].exit_latency_ns;
	uint64_t v, slack;

	dev->last_state_idx = index;
	measured = measured >= exit_ns ? measured - exit_ns : measured / 2;
	v = data->elapsed_ns + measured;
	slack = data->timer_at_ns >> HAZARD_TUNABLE(data, hit_slack_shift);
	/* a safety net ended the stay, not a wake-up: the period goes on */
	if ((dev->poll_time_limit || cpuidle_idle_got_tick(dev)) &&
	    v + slack < data->timer_at_ns) {
		dev->poll_time_limit = false;
		data->elapsed_ns = v;
		return;
	}
	dev->poll_time_limit = false;
	hazard_learn(data, v, data->timer_known && v + slack >= data->timer_at_ns);
	data->elapsed_ns = 0;
}

/*
 * With declared powers, the stay from which the deepest state is the
 * cheapest whatever the others: the last point where its cost
 * P x (stay + exit latency) crosses a shallower state's.  Disabled states
 * and QoS only make the choice shallower, so integrating further than
 * this never changes it.  (Without powers, the deepest usable state's
 * target residency plays this part, per selection.)
 */
static uint64_t hazard_stay_cap(const struct cpuidle_device *dev,
				const struct hazard_device *data)
{
	const struct cpuidle_state *deep = &dev->states[dev->state_count - 1];
	uint64_t cap = 0, x;
	int i;

	for (i = 0; i < dev->state_count; i++) {
		const struct cpuidle_state *s = &dev->states[i];
		int64_t num = (int64_t)deep->power_usage * deep->exit_latency_ns -
			      (int64_t)s->power_usage * s->exit_latency_ns;

		if (s->power_usage <= deep->power_usage || num <= 0)
			continue;	/* never cheaper than the deepest, or not beyond 0 */
		x = (uint64_t)num / (uint64_t)(s->power_usage - deep->power_usage) + 1;
		if (x > cap)
			cap = x;
	}
	return cap ? cap : HORIZON_NS;	/* no crossing: integrate all */
}

int hazard_enable_with(struct cpuidle_device *dev, const struct hazard_params *tunables)
{
	struct hazard_device *data = dev->governor_data;
	unsigned int j;

	memset(data, 0, sizeof(*data));
	data->tunables = tunables ? tunables : &hazard_defaults;
	data->prior = ~0u;	/* not a Q16 value: every bin gets the prior */
	hazard_follow_prior(data, hazard_prior(data));
	data->ctx = NR_CONTEXTS - 1;
	data->in_force = data->ctx;
	/*
	 * Powers count if every state that does not poll declares one and
	 * one of them is not 0 (drivers that know nothing leave all at 0).
	 */
	for (j = 0; j < (unsigned int)dev->state_count; j++) {
		const struct cpuidle_state *st = &dev->states[j];

		if (st->flags & CPUIDLE_FLAG_POLLING)
			continue;
		if (st->power_usage < 0) {
			data->power_known = false;
			break;
		}
		data->power_known |= st->power_usage > 0;
	}
	if (data->power_known)
		data->stay_cap_ns = hazard_stay_cap(dev, data);
	data->max_exit_ns = INT64_MIN;
	data->residency_sorted = true;
	for (j = 0; j < (unsigned int)dev->state_count; j++) {
		const struct cpuidle_state *st = &dev->states[j];

		if (st->exit_latency_ns > data->max_exit_ns)
			data->max_exit_ns = st->exit_latency_ns;
		data->every[j] = (int8_t)j;
		/* as hazard_pick() compares them: unsigned */
		data->residency_ns[j] = (uint64_t)st->target_residency_ns;
		if (j && data->residency_ns[j] < data->residency_ns[j - 1])
			data->residency_sorted = false;
	}
	return 0;
}

static int hazard_enable_device(struct cpuidle_device *dev)
{
	return hazard_enable_with(dev, cpuidle_dev_gov_params(dev, &hazard_governor));
}

const struct cpuidle_governor hazard_governor = {
	.name = "hazard",
	.rating = 15,
	.enable = hazard_enable_device,
	.select = hazard_select,
	.reflect = hazard_reflect,
	.governor_data_size = sizeof(struct hazard_device),
	.params = hazard_params_table,
	.nr_params = HAZARD_NR_PARAMS,
	.params_size = sizeof(struct hazard_params),
};
