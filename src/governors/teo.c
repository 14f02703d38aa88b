// SPDX-License-Identifier: MIT
/*
 * teo.c - the timer events oriented governor: believe the next timer,
 * unless the recent past shows that something else keeps waking the CPU
 * first.
 */

/**
 * DOC: teo
 *
 * Idea (Linux drivers/cpuidle/governors/teo.c, by Rafael J. Wysocki,
 * 2018, reworked through 2025; the behaviour reproduced is that of the
 * v6.18 release, unchanged since v6.15): on most machines timers wake an
 * idle CPU far more often than anything else, and the time to the next
 * timer (the "sleep length") is known when idling starts, so it is the
 * best single input.  It is not free to obtain, though, and other
 * wake-ups do happen; so the governor keeps a short, decaying history of
 * how idle periods ended compared with what the timer promised, and uses
 * it both to go shallower than the timer allows and to skip asking for
 * the timer at all when the CPU is woken very early most of the time.
 *
 * Bins.  The target residencies of the states, in ascending order, cut
 * time into bins: bin i holds the durations from state i's target
 * residency up to (not including) state i+1's, bin 0 starts at 0 and the
 * last bin has no end.  A duration "falls into" the bin of the deepest
 * state whose target residency it reaches.
 *
 * Metrics, updated once per idle period (at the next select(), so that
 * reflect() stays cheap).  The observed idle duration is the measured
 * residency minus half the exit latency (the wake-up rarely takes the
 * worst case; a residency shorter than the exit latency is halved
 * instead).  Then:
 *
 * - if it falls into the same bin as the sleep length seen at selection,
 *   the period was a "hit" of that bin (the timer, or something close to
 *   it, ended it);
 * - otherwise it was an "intercept" of the bin the duration falls into
 *   (something earlier than the timer ended it);
 * - an intercept that lasted at least a tick is also a "tick intercept";
 * - an observed duration below RESIDENCY_THRESHOLD_NS is a "short idle",
 *   and so is any residency shorter than the exit latency.
 *
 * A wake-up by a safety net is "artificial" and says nothing about the
 * CPU's real wake-up pattern: a polling state that gave up at its time
 * limit (dev->poll_time_limit), or a tick that ended the period while the
 * sleep length was more than a tick away (the governor kept the tick and
 * it fired).  Such a period is taken to have lasted for ever, which makes
 * it a hit of the sleep length's bin.
 *
 * Every metric, and a running "total" of events, loses 1/8 of its value
 * (DECAY_SHIFT) before each update, and the event that happened adds
 * PULSE: each is a fixed-point frequency with a memory of roughly the
 * last eight idle periods.
 *
 * Selection, in this order:
 *
 * 1. With a single state there is nothing to choose: state 0, tick kept.
 * 2. The candidate is the deepest enabled state.  Along the way the
 *    deepest enabled state whose exit latency meets the QoS limit is
 *    noted (state 0 if none), and the sums of intercepts and of hits over
 *    the bins below the candidate.  No state enabled: state 0, tick kept.
 * 3. Exactly one state enabled: it is used, without regard to QoS or the
 *    timer; its target residency stands for the expected stay in rule 9,
 *    so the tick may stop only if the state does not poll and its target
 *    residency is at least a tick (or the tick is already stopped).
 * 4. If the intercepts below the candidate are more than half of all
 *    events not counted as hits below it, the candidate is too deep most
 *    of the time.  The states below it are walked downward, summing the
 *    intercepts of their bins; the first state at which the sum passes
 *    half of the intercepts below the candidate replaces it, being the
 *    deepest state reached by the stay in most intercepted periods.  With
 *    the tick already stopped, a state shallower than a tick is not
 *    acceptable (nothing would end a wrong choice early): the walk then
 *    keeps the shallowest acceptable enabled state passed on the way down
 *    (or the candidate itself), and stops early if the first enabled state
 *    it meets is already unacceptable.  Disabled states add their
 *    intercepts but are never chosen.
 * 5. The choice is capped at the QoS-limited state from 2.
 * 6. If the choice is state 0 or a state shallower than
 *    RESIDENCY_THRESHOLD_NS, and either short idles make up at least half
 *    of the total or the QoS limit is below LATENCY_THRESHOLD_NS, it is
 *    returned with the tick kept and the timer is never asked for.  The
 *    sleep length is then recorded as infinite, so that the coming wake-up
 *    counts as an intercept.
 * 7. Otherwise the sleep length is obtained (and recorded).  State 0 is
 *    returned as it is, with the tick kept.  A choice whose target
 *    residency is beyond the sleep length is lowered to the deepest
 *    enabled state that pays off before the timer (or the shallowest
 *    enabled one), unless the tick is already stopped and that state is
 *    shallower than a tick, in which case the choice stands.
 * 8. If the choice is shallower than a tick and tick intercepts exceed
 *    TICK_INTERCEPT_SHARE of the total, the expected stay is taken to be
 *    half a tick instead of the sleep length.
 * 9. The tick may stop if the tick is already stopped, or the choice does
 *    not poll and the expected stay is at least a tick.  Otherwise it is
 *    kept, and a choice that does not pay off before the next tick is
 *    lowered to the deepest enabled state that does (or the shallowest
 *    enabled one), never below the first enabled state.
 *
 * Constants:
 *
 * - PULSE (1024): the weight of one event, so that the integer metrics
 *   keep ten bits of fraction; with DECAY_SHIFT 3 a metric fed on every
 *   period settles just above 8 x PULSE, far from overflow.
 * - DECAY_SHIFT (3): each period keeps 7/8 of the history, a memory of
 *   about eight periods: long enough to see a majority, short enough to
 *   follow a change of workload within a few dozen wake-ups.
 * - RESIDENCY_THRESHOLD_NS (15 us, gov.h): timers that close are rare
 *   (user-space hrtimers have 50 us of slack by default, and few kernel
 *   timers are shorter), so stays that short were almost surely not timer
 *   wake-ups and the timer would not have changed the choice.
 * - LATENCY_THRESHOLD_NS (7.5 us, half of the above): a QoS limit this
 *   strict allows only shallow states whatever the timer says.
 * - TICK_INTERCEPT_SHARE (5/8, computed as total/2 + total/8): tick
 *   intercepts must be a clear majority before the sleep length is
 *   distrusted for the tick decision.
 *
 * Where this follows 6.18 to the letter although the next rework of the
 * governor (late 2025, the v6.19 cycle) changed it; none of these is
 * "fixed" here, traces of 6.15-6.18 kernels being the judge:
 *
 * - The tick intercept condition is "observed duration at least a tick",
 *   the reverse of what the documentation says it counts ("intercepts
 *   below the tick").  Such intercepts only exist where some state's
 *   target residency exceeds a tick; on every other machine rule 8 never
 *   fires.
 * - Decay is x - x/8 with truncation, so a metric that stops being fed
 *   sticks at a value between 1 and 7 instead of reaching 0.
 * - The total is its own decaying counter (total - total/8 + PULSE), not
 *   the sum of the bins.  As the bins decay with per-bin truncation their
 *   sum runs slightly above it, so "total - hits below" can wrap around
 *   (unsigned, as in the kernel), which makes rule 4 not fire.
 *
 * Other details kept from the kernel: rule 3 ignores QoS (with state 0
 * disabled and a single deeper state enabled, that state is used even if
 * its exit latency breaks the limit); comparisons are signed or unsigned
 * as the kernel's types make them: TICK_NSEC is a signed long there
 * (NSEC_PER_SEC is 1000000000L) and target residencies and sleep lengths
 * are s64, so a negative sleep length (a timer already due) is shorter
 * than any state and than a tick: the tick is kept, and a tick wake-up is
 * not artificial; only the measured stay (last_residency_ns, u64) is
 * compared unsigned; an entry refused by the
 * driver gets no reflect() and therefore no update; reflect() clears
 * dev->poll_time_limit.
 *
 * Releases: this governor is also registered as "teo@6.18" (the same
 * functions under the release's name); "teo@7.1" (teo_7_1.c) follows Linux
 * 7.1, where the three points above and most of the rules changed.
 *
 * In this library "asking for the timer" is reading the embedding's
 * sleep_length_ns, which costs nothing; rule 6 is kept for its effect on
 * the decisions (the unread sleep length counts as infinite in the next
 * update).  The only addition is a range check of dev->last_state_idx
 * before the update, which the core's bookkeeping makes redundant.
 */
#include <stdint.h>
#include <string.h>

#include "gov.h"
#include "teo.h"

#define PULSE			1024
#define DECAY_SHIFT		3

/* Below this QoS limit only shallow states qualify: skip the timer. */
#define LATENCY_THRESHOLD_NS	(RESIDENCY_THRESHOLD_NS / 2)

/* Tick intercepts must exceed 5/8 of @total (see the DOC block). */
#define TICK_INTERCEPT_SHARE(total)	((total) / 2 + (total) / 8)


static inline void teo_decay(unsigned int *metric)
{
	*metric -= *metric >> DECAY_SHIFT;
}

static inline int64_t teo_residency(const struct cpuidle_device *dev, int i)
{
	return dev->states[i].target_residency_ns;
}

/*
 * May state @i be chosen in the intercept walk?  Always with the tick
 * running; with it stopped only if the state lasts at least a tick.
 */
static inline bool teo_state_ok(const struct cpuidle_device *dev, int i)
{
	return !cpuidle_tick_stopped(dev) ||
	       (uint64_t)teo_residency(dev, i) >= (uint64_t)cpuidle_dev_tick_nsec(dev);
}

/*
 * Below @idx, the deepest enabled state whose target residency is at most
 * @duration_ns; if none, the shallowest enabled one below @idx; if none of
 * those, @idx itself.
 */
static int teo_shallower_state(const struct cpuidle_device *dev, int idx,
			       int64_t duration_ns)
{
	int i;

	for (i = idx - 1; i >= 0; i--) {
		if (cpuidle_is_disabled(dev, i))
			continue;
		idx = i;
		if (teo_residency(dev, i) <= duration_ns)
			break;
	}
	return idx;
}

/* Fold the stay that ended at the last reflect() into the metrics. */
static void teo_update(struct cpuidle_device *dev, struct teo_device *data)
{
	uint64_t tick_ns = (uint64_t)cpuidle_dev_tick_nsec(dev);
	int i, timer_bin = 0, stay_bin = 0;
	uint64_t measured_ns;

	teo_decay(&data->short_idles);

	if (data->artificial_wakeup) {
		measured_ns = UINT64_MAX;	/* as long as it could have been */
	} else {
		uint64_t exit_ns = (uint64_t)dev->states[dev->last_state_idx].exit_latency_ns;

		/* Count half the exit latency as the typical wake-up cost. */
		measured_ns = dev->last_residency_ns;
		if (measured_ns >= exit_ns) {
			measured_ns -= exit_ns / 2;
			if (measured_ns < (uint64_t)RESIDENCY_THRESHOLD_NS)
				data->short_idles += PULSE;
		} else {
			measured_ns /= 2;
			data->short_idles += PULSE;
		}
	}

	for (i = 0; i < dev->state_count; i++) {
		int64_t res = teo_residency(dev, i);

		teo_decay(&data->bins[i].hits);
		teo_decay(&data->bins[i].intercepts);
		if (res <= data->sleep_length_ns) {
			timer_bin = i;
			if ((uint64_t)res <= measured_ns)
				stay_bin = i;
		}
	}

	teo_decay(&data->tick_intercepts);
	if (timer_bin == stay_bin) {
		data->bins[timer_bin].hits += PULSE;
	} else {
		data->bins[stay_bin].intercepts += PULSE;
		if (measured_ns >= tick_ns)	/* 6.18's condition, see DOC */
			data->tick_intercepts += PULSE;
	}

	teo_decay(&data->total);
	data->total += PULSE;
}

/*
 * Rule 4: the deepest state that most intercepted stays below @idx still
 * reached.  @below is the sum of the intercepts of the bins below @idx.
 */
static int teo_intercepted_state(const struct cpuidle_device *dev,
				 const struct teo_device *data, int idx,
				 unsigned int below)
{
	int fallback = idx;	/* shallowest acceptable enabled state so far */
	unsigned int sum = 0;
	int i;

	for (i = idx - 1; i >= 0; i--) {
		sum += data->bins[i].intercepts;
		if (2 * sum > below) {
			if (!cpuidle_is_disabled(dev, i) && teo_state_ok(dev, i))
				return i;
			return fallback;
		}
		if (cpuidle_is_disabled(dev, i))
			continue;
		if (teo_state_ok(dev, i)) {
			fallback = i;
			continue;
		}
		/* Too shallow: stop unless a deeper acceptable one was seen. */
		if (fallback == idx)
			break;
	}
	return idx;
}

static int teo_select(struct cpuidle_device *dev, bool *stop_tick)
{
	struct teo_device *data = dev->governor_data;
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int64_t tick_ns = cpuidle_dev_tick_nsec(dev);
	int64_t delta_tick = tick_ns / 2;
	unsigned int isum = 0, hsum = 0, idx_isum = 0, idx_hsum = 0;
	int constraint_idx = 0, idx0 = 0, idx = -1;
	int64_t duration_ns;
	int i;

	if (dev->last_state_idx >= 0 && dev->last_state_idx < dev->state_count) {
		teo_update(dev, data);
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
		isum += data->bins[i - 1].intercepts;
		hsum += data->bins[i - 1].hits;
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
		duration_ns = teo_residency(dev, idx);
		goto tick_decision;
	}

	/* 4 (unsigned, wrapping as in the kernel) */
	if (2 * idx_isum > data->total - idx_hsum)
		idx = teo_intercepted_state(dev, data, idx, idx_isum);

	/* 5 */
	if (idx > constraint_idx)
		idx = constraint_idx;

	/* 6 */
	if ((!idx || teo_residency(dev, idx) < RESIDENCY_THRESHOLD_NS) &&
	    (2 * data->short_idles >= data->total || latency_req < LATENCY_THRESHOLD_NS))
		goto keep_tick;

	/* 7 */
	duration_ns = cpuidle_get_sleep_length(dev, &delta_tick);
	data->sleep_length_ns = duration_ns;
	if (!idx)
		goto keep_tick;
	if (teo_residency(dev, idx) > duration_ns) {
		i = teo_shallower_state(dev, idx, duration_ns);
		if (teo_state_ok(dev, i))
			idx = i;
	}

	/* 8 */
	if ((uint64_t)teo_residency(dev, idx) < (uint64_t)tick_ns &&
	    data->tick_intercepts > TICK_INTERCEPT_SHARE(data->total))
		duration_ns = tick_ns / 2;

tick_decision:
	/* 9 */
	if ((!(dev->states[idx].flags & CPUIDLE_FLAG_POLLING) &&
	     duration_ns >= tick_ns) || cpuidle_tick_stopped(dev))
		return idx;

	if (idx > idx0 && teo_residency(dev, idx) > delta_tick)
		idx = teo_shallower_state(dev, idx, delta_tick);

keep_tick:
	*stop_tick = false;
	return idx;
}

/* Runs on the wake-up path: note what ended the stay, nothing more. */
static void teo_reflect(struct cpuidle_device *dev, int index)
{
	struct teo_device *data = dev->governor_data;

	dev->last_state_idx = index;
	data->artificial_wakeup = dev->poll_time_limit ||
				  (cpuidle_idle_got_tick(dev) &&
				   data->sleep_length_ns > cpuidle_dev_tick_nsec(dev));
	if (data->artificial_wakeup)
		dev->poll_time_limit = false;
}

static int teo_enable_device(struct cpuidle_device *dev)
{
	memset(dev->governor_data, 0, sizeof(struct teo_device));
	return 0;
}

const struct cpuidle_governor teo_governor = {
	.name = "teo",
	.rating = 19,
	.enable = teo_enable_device,
	.select = teo_select,
	.reflect = teo_reflect,
	.governor_data_size = sizeof(struct teo_device),
};

/* The same governor under its release's name: decides as "teo", call for call. */
const struct cpuidle_governor teo_6_18_governor = {
	.name = "teo@6.18",
	.rating = 19,
	.enable = teo_enable_device,
	.select = teo_select,
	.reflect = teo_reflect,
	.governor_data_size = sizeof(struct teo_device),
};
