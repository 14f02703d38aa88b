// SPDX-License-Identifier: MIT
/*
 * teo_7_1.c - the timer events oriented governor as Linux 7.1 has it
 * ("teo@7.1"), beside the 6.18 port in teo.c ("teo", "teo@6.18").
 */

/**
 * DOC: teo@7.1
 *
 * The idea is teo.c's (read its DOC block first): bins cut at the states'
 * target residencies, decaying "hits" and "intercepts" per bin, the timer
 * believed unless intercepts say otherwise.  Between v6.18 and v7.1 Linux
 * reworked how a wake-up is classified, how the intercept walk stops and
 * what a stopped tick changes: every rule of update() and half of
 * select()'s.  Sharing a body with a flag per rule would have put a test
 * in nearly every line of the 6.18 port, which the differential test holds
 * against the kernel's own 6.18 file and the benchmarks time; so this
 * release is a file of its own, sharing teo.c's constants and its
 * RESIDENCY_THRESHOLD_NS.  7.1 is the newest release whose teo.c changes
 * could be traced commit by commit; the 7.2 and 7.3 merge windows' pull
 * requests were not found and no teo commit of theirs was seen.
 *
 * The metrics, updated at the next select() as in 6.18:
 *
 * A. Every metric loses 1/8 (DECAY_SHIFT) per update, and one with less
 *    than 8 left drops to 0 (v6.19, "cpuidle: governors: teo: Decay metrics
 *    below DECAY_SHIFT threshold"): in 6.18 such a remainder stayed for
 *    ever.
 * B. The total is the sum of the bins after their decay, plus this
 *    update's PULSE (same v6.19 series), so the hits below a state can no
 *    longer exceed it.  6.18 kept the total as a counter of its own.
 * C. A polling state ended by its time limit counts as a stay as long as
 *    it could be (v6.19, 083654ded547, "cpuidle: governors: teo: Rework the
 *    handling of tick wakeups"); the flag is cleared here.  The tick is no
 *    longer such a safety net: see E.
 * D. The observed stay is the residency less half the exit latency, or
 *    half the residency if shorter than the exit latency, as in 6.18; a
 *    stay below RESIDENCY_THRESHOLD_NS is a short idle.
 * E. A wake-up by the tick is counted in total_tick (decaying like the
 *    others).  If tick wake-ups exceed 2/3 of the total, the wake-up is a
 *    hit of the deepest state's bin (083654ded547): a CPU the tick keeps
 *    waking should stop the tick.  Otherwise, unless intercepts shorter
 *    than a tick make up at least 2/3 of the decayed bins' sum, it is a hit
 *    of the timer's bin (v7.0, 60836533b4c7, "cpuidle: governors: teo:
 *    Avoid fake intercepts produced by tick"): the tick likely ended a stay
 *    that an expected intercept did not.  Either way nothing else is
 *    counted for it.
 * F. Otherwise the stay is a hit only if it falls into the timer's bin
 *    and the timer was due less than half the exit latency after the
 *    observed stay ended (v7.0, f36de72673ad, "cpuidle: governors: teo:
 *    Adjust the classification of wakeup events"): in effect the wake-up
 *    came no earlier than the timer.  In 6.18 any stay in the timer's bin
 *    was a hit, however early, which on a machine with wide bins (few
 *    states, far apart) hid most intercepts.  Anything else is an
 *    intercept of the stay's bin, and of the tick too if the stay was at
 *    most a tick (v6.19, 50db438231dc, "cpuidle: governors: teo: Fix
 *    tick_intercepts handling in teo_update()"; 6.18 counted those at
 *    least a tick long).
 *
 * Selection, in this order:
 *
 * 1. One state: state 0 with the tick kept.  (v7.0's core no longer calls
 *    the governor then, "cpuidle: Skip governor when only one idle state is
 *    available"; this library's core does, so the 6.18 answer stands in.)
 * 2. The candidate is the deepest enabled state; on the way, the deepest
 *    enabled one within the QoS limit, the sums of intercepts and hits
 *    below the candidate, and the bin with the most intercepts of all but
 *    the last (the deeper on a tie: v7.0, a971f984b845, "cpuidle:
 *    governors: teo: Refine intercepts-based idle state lookup").  Nothing
 *    enabled: state 0, tick kept.
 * 3. Exactly one state enabled: it is used, its target residency standing
 *    for the expected stay in rule 9 (as in 6.18).
 * 4. If the intercepts below the candidate exceed half of (total - hits
 *    below it), the enabled states below it are walked downward summing
 *    the intercepts of every bin passed; the walk stops at the first
 *    enabled state where that sum passes half of the intercepts below the
 *    candidate and which is no deeper than the most intercepted bin
 *    (a971f984b845): in 6.18 the walk could stop above that bin, although
 *    more stays ended in it than in any other.  The last enabled state
 *    passed is the choice.  A stopped tick no longer limits the walk (v7.1,
 *    106a2662e655, "cpuidle: governors: teo: Rearrange stopped tick
 *    handling"; see 7).
 * 5. The choice is capped at the QoS-limited state.
 * 6. With the tick running, as 6.18: state 0 or a state shallower than
 *    RESIDENCY_THRESHOLD_NS is returned at once, tick kept and timer not
 *    asked, if short idles are at least half the total or QoS is below
 *    LATENCY_THRESHOLD_NS.  With the tick stopped the timer is always
 *    asked for (106a2662e655).
 * 7. The timer is asked for.  If the tick is stopped, the timer is more
 *    than SAFE_TIMER_RANGE_TICKS ticks away and the choice is shallower
 *    than a tick, the choice becomes the deepest enabled state, from the
 *    QoS-limited one down to just above the choice, that pays off before
 *    the timer, and is returned with the tick stopped (106a2662e655).  A
 *    timer within that range ends a shallow state soon enough; 6.18
 *    instead kept states shallower than a tick out of the walk and out of
 *    rule 8 whenever the tick was stopped, whatever the timer.
 * 8. State 0 is returned with the tick kept.  A choice that does not pay
 *    off before the timer becomes the deepest enabled state that does (or
 *    the shallowest enabled one), with no exception (v6.19, a03b2011808a,
 *    "cpuidle: governors: teo: Drop misguided target residency check"; 6.18
 *    kept the choice when the tick was stopped and the shallower state was
 *    below a tick).
 * 9. A choice shallower than a tick, with intercepts shorter than a tick
 *    at least 2/3 of the total (v7.0, 475ca3470b37, "cpuidle: governors:
 *    teo: Refine tick_intercepts vs total events check"; 6.18: more than
 *    5/8), takes half a tick as the expected stay.
 * 10. The tick decision of 6.18's rule 9, unchanged.
 *
 * The types follow the kernel's: the observed stay and the sleep length
 * are s64 (v6.19, "cpuidle: governors: teo: Use s64 consistently in
 * teo_update()"), compared signed with TICK_NSEC; the hit rule's
 * difference is taken as the kernel computes it, wrapping (-fwrapv).
 * reflect() only notes the state and whether the tick ended the stay.
 */
#include <stdint.h>
#include <string.h>

#include "gov.h"

#define PULSE			1024
#define DECAY_SHIFT		3

/* Below this QoS limit only shallow states qualify: skip the timer. */
#define LATENCY_THRESHOLD_NS	(RESIDENCY_THRESHOLD_NS / 2)

/*
 * Shares as fractions num/den, compared without division: tick wake-ups
 * must exceed 2/3 of all events to count as hits of the deepest state
 * (rule E), and intercepts shorter than a tick must reach 2/3 for a tick
 * wake-up to count as one of them (E) or to keep the tick (9): "twice as
 * frequent as everything else", the kernel's reading.
 */
#define TEO_SHARE_NUM		2
#define TEO_SHARE_DEN		3

struct teo71_bin {
	unsigned int intercepts;
	unsigned int hits;
};

struct teo71_device {
	int64_t sleep_length_ns;	/* seen at the last select(), or infinite */
	struct teo71_bin bins[CPUIDLE_STATE_MAX];
	unsigned int total;		/* the bins' sum after the last update */
	unsigned int total_tick;	/* wake-ups by the tick */
	unsigned int tick_intercepts;	/* intercepts no longer than a tick */
	unsigned int short_idles;	/* stays below RESIDENCY_THRESHOLD_NS */
	bool tick_wakeup;		/* the tick ended the last stay */
};

/* Rule A: lose 1/8, and a remainder too small to lose anything, all of it. */
static inline void teo71_decay(unsigned int *metric)
{
	unsigned int loss = *metric >> DECAY_SHIFT;

	*metric = loss ? *metric - loss : 0;
}

static inline int64_t teo71_residency(const struct cpuidle_device *dev, int i)
{
	return dev->states[i].target_residency_ns;
}

/*
 * Below @idx, the deepest enabled state whose target residency is at most
 * @duration_ns; if none, the shallowest enabled one below @idx; if none of
 * those, @idx itself.
 */
static int teo71_shallower_state(const struct cpuidle_device *dev, int idx,
				 int64_t duration_ns)
{
	int i;

	for (i = idx - 1; i >= 0; i--) {
		if (cpuidle_is_disabled(dev, i))
			continue;
		idx = i;
		if (teo71_residency(dev, i) <= duration_ns)
			break;
	}
	return idx;
}

/* Rules A-F: fold the stay that ended at the last reflect() into the metrics. */
static void teo71_update(struct cpuidle_device *dev, struct teo71_device *data)
{
	int64_t exit_ns = dev->states[dev->last_state_idx].exit_latency_ns;
	int64_t tick_ns = cpuidle_dev_tick_nsec(dev);
	int i, timer_bin = 0, stay_bin = 0;
	unsigned int sum = 0;
	int64_t measured_ns;

	teo71_decay(&data->short_idles);

	if (dev->poll_time_limit) {		/* C */
		dev->poll_time_limit = false;
		measured_ns = INT64_MAX;
	} else {				/* D */
		measured_ns = (int64_t)dev->last_residency_ns;
		if (measured_ns >= exit_ns) {
			measured_ns -= exit_ns / 2;
			if (measured_ns < RESIDENCY_THRESHOLD_NS)
				data->short_idles += PULSE;
		} else {
			measured_ns /= 2;
			data->short_idles += PULSE;
		}
	}

	for (i = 0; i < dev->state_count; i++) {
		int64_t res = teo71_residency(dev, i);

		teo71_decay(&data->bins[i].hits);
		sum += data->bins[i].hits;
		teo71_decay(&data->bins[i].intercepts);
		sum += data->bins[i].intercepts;
		if (res <= data->sleep_length_ns) {
			timer_bin = i;
			if (res <= measured_ns)
				stay_bin = i;
		}
	}
	data->total = sum + PULSE;		/* B */

	teo71_decay(&data->tick_intercepts);
	teo71_decay(&data->total_tick);
	if (data->tick_wakeup) {		/* E */
		data->total_tick += PULSE;
		if (TEO_SHARE_DEN * data->total_tick > TEO_SHARE_NUM * data->total) {
			data->bins[dev->state_count - 1].hits += PULSE;
			return;
		}
		if (TEO_SHARE_DEN * data->tick_intercepts < TEO_SHARE_NUM * sum) {
			data->bins[timer_bin].hits += PULSE;
			return;
		}
	}

	/* F: the kernel's s64 difference, wrapping as under -fwrapv */
	if (timer_bin == stay_bin &&
	    (int64_t)((uint64_t)data->sleep_length_ns - (uint64_t)measured_ns) < exit_ns / 2) {
		data->bins[timer_bin].hits += PULSE;
	} else {
		data->bins[stay_bin].intercepts += PULSE;
		if (measured_ns <= tick_ns)
			data->tick_intercepts += PULSE;
	}
}

/*
 * Rule 4: walk down from @idx summing every bin's intercepts; stop at the
 * first enabled state where the sum passes half of @below (the intercepts
 * below @idx) and which is no deeper than @max_bin.  The last enabled state
 * passed is returned.
 */
static int teo71_intercepted_state(const struct cpuidle_device *dev,
				   const struct teo71_device *data, int idx, int idx0,
				   unsigned int below, int max_bin)
{
	unsigned int sum = 0;
	int i;

	for (i = idx - 1; i >= idx0; i--) {
		sum += data->bins[i].intercepts;
		if (cpuidle_is_disabled(dev, i))
			continue;
		idx = i;
		if (2 * sum > below && i <= max_bin)
			break;
	}
	return idx;
}

/* Rule 7: deepest enabled state in (@idx, @limit] paying off by @duration_ns. */
static int teo71_deeper_state(const struct cpuidle_device *dev, int idx, int limit,
			      int64_t duration_ns)
{
	int i;

	for (i = limit; i > idx; i--)
		if (!cpuidle_is_disabled(dev, i) && teo71_residency(dev, i) <= duration_ns)
			return i;
	return idx;
}

static int teo71_select(struct cpuidle_device *dev, bool *stop_tick)
{
	struct teo71_device *data = dev->governor_data;
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int64_t tick_ns = cpuidle_dev_tick_nsec(dev);
	bool tick_stopped = cpuidle_tick_stopped(dev);
	int64_t delta_tick = tick_ns / 2;
	unsigned int isum = 0, hsum = 0, idx_isum = 0, idx_hsum = 0, imax = 0;
	int constraint_idx = 0, idx0 = 0, idx = -1, max_bin = -1;
	int64_t duration_ns;
	int i;

	if (dev->last_state_idx >= 0 && dev->last_state_idx < dev->state_count) {
		teo71_update(dev, data);
		dev->last_state_idx = -1;
	}

	/* Unknown unless asked below: the next wake-up is then an intercept. */
	data->sleep_length_ns = CPUIDLE_TIME_INFINITE;

	/* 1 */
	if (dev->state_count < 2) {
		idx = 0;
		goto keep_tick;
	}

	/* 2 */
	if (!cpuidle_is_disabled(dev, 0))
		idx = 0;
	for (i = 1; i < dev->state_count; i++) {
		unsigned int below = data->bins[i - 1].intercepts;

		hsum += data->bins[i - 1].hits;
		isum += below;
		if (below >= imax) {	/* the deeper bin on a tie */
			imax = below;
			max_bin = i - 1;
		}
		if (cpuidle_is_disabled(dev, i))
			continue;
		if (idx < 0)
			idx0 = i;	/* the first enabled state */
		idx = i;
		if (dev->states[i].exit_latency_ns <= latency_req)
			constraint_idx = i;
		idx_isum = isum;
		idx_hsum = hsum;
	}
	if (idx < 0) {
		idx = 0;	/* nothing enabled: state 0 is the last resort */
		goto keep_tick;
	}

	/* 3 */
	if (idx == idx0) {
		duration_ns = teo71_residency(dev, idx);
		goto tick_decision;
	}

	/* 4 (unsigned, as in the kernel) */
	if (2 * idx_isum > data->total - idx_hsum)
		idx = teo71_intercepted_state(dev, data, idx, idx0, idx_isum, max_bin);

	/* 5 */
	if (idx > constraint_idx)
		idx = constraint_idx;

	/* 6 */
	if (!tick_stopped &&
	    (!idx || teo71_residency(dev, idx) < RESIDENCY_THRESHOLD_NS) &&
	    (2 * data->short_idles >= data->total || latency_req < LATENCY_THRESHOLD_NS))
		goto keep_tick;

	/* 7 */
	duration_ns = cpuidle_get_sleep_length(dev, &delta_tick);
	data->sleep_length_ns = duration_ns;
	if (tick_stopped && duration_ns > SAFE_TIMER_RANGE_TICKS * tick_ns &&
	    teo71_residency(dev, idx) < tick_ns)
		return teo71_deeper_state(dev, idx, constraint_idx, duration_ns);

	/* 8 */
	if (!idx)
		goto keep_tick;
	if (teo71_residency(dev, idx) > duration_ns)
		idx = teo71_shallower_state(dev, idx, duration_ns);

	/* 9 */
	if (teo71_residency(dev, idx) < tick_ns &&
	    TEO_SHARE_DEN * data->tick_intercepts >= TEO_SHARE_NUM * data->total)
		duration_ns = tick_ns / 2;

tick_decision:
	/* 10 */
	if ((!(dev->states[idx].flags & CPUIDLE_FLAG_POLLING) &&
	     duration_ns >= tick_ns) || tick_stopped)
		return idx;

	if (idx > idx0 && teo71_residency(dev, idx) > delta_tick)
		idx = teo71_shallower_state(dev, idx, delta_tick);

keep_tick:
	*stop_tick = false;
	return idx;
}

/* Runs on the wake-up path: note the state and the tick, nothing more. */
static void teo71_reflect(struct cpuidle_device *dev, int index)
{
	struct teo71_device *data = dev->governor_data;

	data->tick_wakeup = cpuidle_idle_got_tick(dev);
	dev->last_state_idx = index;
}

static int teo71_enable_device(struct cpuidle_device *dev)
{
	memset(dev->governor_data, 0, sizeof(struct teo71_device));
	return 0;
}

const struct cpuidle_governor teo_7_1_governor = {
	.name = "teo@7.1",
	.rating = 19,
	.enable = teo71_enable_device,
	.select = teo71_select,
	.reflect = teo71_reflect,
	.governor_data_size = sizeof(struct teo71_device),
};
