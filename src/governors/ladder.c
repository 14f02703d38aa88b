// SPDX-License-Identifier: MIT
/*
 * ladder.c - the residency ladder governor.
 */

/**
 * DOC: ladder
 *
 * Idea (Linux drivers/cpuidle/governors/ladder.c, from the ACPI processor
 * driver of 2001-2007): treat the states as the rungs of a ladder and move
 * at most one rung per idle period, judged only by how long the last stay
 * really lasted.  No prediction, no timers: the governor trusts that the
 * near future looks like the recent past.
 *
 * For the rung it stands on, with r = last residency - its exit latency:
 *
 * 1. QoS 0: go to state 0 (polling) at once.
 * 2. Promotion: if the next rung is enabled, allowed by QoS, and
 *    r > this rung's exit latency, count a promotion; after
 *    PROMOTION_COUNT in a row, climb one rung.
 * 3. Forced demotion: if this rung became disabled or violates QoS,
 *    drop to the deepest lower rung that satisfies QoS (never below the
 *    first non-polling rung).
 * 4. Demotion: if r < this rung's exit latency, count a demotion; after
 *    DEMOTION_COUNT in a row, go down one rung.
 * 5. Otherwise stay.
 *
 * A polling state 0 is not a rung (first_idx = 1): the ladder only lands
 * there under QoS 0.  reflect() moves the ladder to the state actually
 * entered, except state 0.  The tick is always allowed to stop.
 *
 * Where this differs from Linux 6.18, so that the ladder keeps the rules
 * every governor keeps (cpuidle conformance, lab/check/conformance.c).  Neither
 * deviation changes a decision on a driver of two states or more while
 * nothing is disabled and the rung meets the QoS limit (always, with no
 * limit in force): the replays of the shipped traces, and cpuidle
 * fidelity's figures, are the same, decision for decision.
 *
 * - A driver whose only state polls.  Linux 6.18 takes first_idx = 1
 *   whenever state 0 polls, so the ladder starts on, and returns, the
 *   non-existent state 1.  We take first_idx = 0 there, because a governor
 *   must never return an index outside the driver's states.  No shipped
 *   trace exercises it (their drivers have two states or more).
 * - A rung that is disabled or over the QoS limit.  Linux 6.18 returns the
 *   rung the ladder stands on whatever it is: it stays on a disabled first
 *   rung; its demotions, forced or after a short stay, take a lower rung
 *   without looking at disable; and a forced demotion stops at the first
 *   non-polling rung, so under a QoS limit of 1 us it keeps C1 (2 us)
 *   although POLL meets the limit.  We return the rung when it is enabled
 *   and within the limit, as the kernel does; otherwise the deepest
 *   enabled state below it within the limit (POLL included), else the
 *   shallowest such state above it; when no enabled state meets the
 *   limit, the rung if it is enabled, else state 0 (the kernel's last
 *   resort).  This is because a governor must never choose a disabled
 *   state, or one the QoS limit forbids, while an enabled state meets the
 *   limit.  Only the state entered changes: the ladder stays on its rung,
 *   and reflect() moves it to the substitute, as to any state entered,
 *   unless that is state 0, so that long stays still promote it from the
 *   rung as the kernel's would.  No shipped trace exercises it (none
 *   disables a state; the VM's timer1k traces hold a QoS limit of 0 at
 *   times, under which the kernel's choice, POLL, stands).
 *
 * Two details keep the kernel's behaviour, traces being the judge:
 * residencies are compared with thresholds as unsigned 64-bit numbers,
 * as Linux 6.18 does (a negative r, a stay shorter than the exit latency,
 * thus counts as a promotion and never as a demotion); and, from 2.6.34,
 * a state without CPUIDLE_FLAG_TIME_VALID is assumed to have lasted long
 * enough to promote (threshold + 1).
 */
#include <stdint.h>

#include "gov.h"

/*
 * Four long stays in a row before climbing, one short stay to come down:
 * going too deep costs latency and energy at once, going too shallow only
 * costs some energy, so the ladder is quick to descend and slow to climb.
 */
#define PROMOTION_COUNT	4
#define DEMOTION_COUNT	1

struct ladder_device_state {
	struct {
		unsigned int promotion_count;
		unsigned int demotion_count;
		uint64_t promotion_time_ns;
		uint64_t demotion_time_ns;
	} threshold;
	struct {
		int promotion_count;
		int demotion_count;
	} stats;
};

struct ladder_device {
	struct ladder_device_state states[CPUIDLE_STATE_MAX];
};

/* A polling state 0 is no rung, unless it is the only state (see the DOC block). */
static int ladder_first_idx(const struct cpuidle_device *dev)
{
	return dev->state_count > 1 && (dev->states[0].flags & CPUIDLE_FLAG_POLLING) ? 1 : 0;
}

static void ladder_do_selection(struct cpuidle_device *dev, struct ladder_device *ldev,
				int old_idx, int new_idx)
{
	ldev->states[old_idx].stats.promotion_count = 0;
	ldev->states[old_idx].stats.demotion_count = 0;
	dev->last_state_idx = new_idx;
}

/* The kernel's ladder_select_state(): the rung to stand on. */
static int ladder_climb(struct cpuidle_device *dev, int64_t latency_req)
{
	struct ladder_device *ldev = dev->governor_data;
	int first_idx = ladder_first_idx(dev);
	int last_idx = dev->last_state_idx;
	struct ladder_device_state *last_state;
	uint64_t residency;	/* unsigned on purpose: see the DOC block */

	if (latency_req == 0) {
		ladder_do_selection(dev, ldev, last_idx, 0);
		return 0;
	}

	last_state = &ldev->states[last_idx];
	if (dev->states[last_idx].flags & CPUIDLE_FLAG_TIME_VALID)
		residency = dev->last_residency_ns -
			    (uint64_t)dev->states[last_idx].exit_latency_ns;
	else
		residency = last_state->threshold.promotion_time_ns + 1;

	/* consider promotion */
	if (last_idx < dev->state_count - 1 &&
	    !cpuidle_is_disabled(dev, last_idx + 1) &&
	    residency > last_state->threshold.promotion_time_ns &&
	    dev->states[last_idx + 1].exit_latency_ns <= latency_req) {
		last_state->stats.promotion_count++;
		last_state->stats.demotion_count = 0;
		if (last_state->stats.promotion_count >=
		    (int)last_state->threshold.promotion_count) {
			ladder_do_selection(dev, ldev, last_idx, last_idx + 1);
			return last_idx + 1;
		}
	}

	/* consider demotion: forced by disable or QoS */
	if (last_idx > first_idx &&
	    (cpuidle_is_disabled(dev, last_idx) ||
	     dev->states[last_idx].exit_latency_ns > latency_req)) {
		int i;

		for (i = last_idx - 1; i > first_idx; i--)
			if (dev->states[i].exit_latency_ns <= latency_req)
				break;
		ladder_do_selection(dev, ldev, last_idx, i);
		return i;
	}

	/* consider demotion: the stay was short */
	if (last_idx > first_idx && residency < last_state->threshold.demotion_time_ns) {
		last_state->stats.demotion_count++;
		last_state->stats.promotion_count = 0;
		if (last_state->stats.demotion_count >=
		    (int)last_state->threshold.demotion_count) {
			ladder_do_selection(dev, ldev, last_idx, last_idx - 1);
			return last_idx - 1;
		}
	}

	return last_idx;
}

static bool ladder_usable(const struct cpuidle_device *dev, int i, int64_t latency_req)
{
	return !cpuidle_is_disabled(dev, i) && dev->states[i].exit_latency_ns <= latency_req;
}

/*
 * The state to enter for rung @idx: the rung itself when it is enabled and
 * within @latency_req, else a substitute (see the DOC block).
 */
static int ladder_fit(const struct cpuidle_device *dev, int idx, int64_t latency_req)
{
	int i;

	if (ladder_usable(dev, idx, latency_req))
		return idx;
	for (i = idx - 1; i >= 0; i--)
		if (ladder_usable(dev, i, latency_req))
			return i;
	for (i = idx + 1; i < dev->state_count; i++)
		if (ladder_usable(dev, i, latency_req))
			return i;
	return cpuidle_is_disabled(dev, idx) ? 0 : idx;
}

static int ladder_select_state(struct cpuidle_device *dev, bool *stop_tick)
{
	int64_t latency_req = cpuidle_governor_latency_req(dev);

	(void)stop_tick;
	return ladder_fit(dev, ladder_climb(dev, latency_req), latency_req);
}

static int ladder_enable_device(struct cpuidle_device *dev)
{
	struct ladder_device *ldev = dev->governor_data;
	int first_idx = ladder_first_idx(dev);
	int i;

	dev->last_state_idx = first_idx;
	for (i = first_idx; i < dev->state_count; i++) {
		struct ladder_device_state *lstate = &ldev->states[i];
		uint64_t exit_ns = (uint64_t)dev->states[i].exit_latency_ns;

		lstate->stats.promotion_count = 0;
		lstate->stats.demotion_count = 0;
		lstate->threshold.promotion_count = PROMOTION_COUNT;
		lstate->threshold.demotion_count = DEMOTION_COUNT;
		if (i < dev->state_count - 1)
			lstate->threshold.promotion_time_ns = exit_ns;
		if (i > first_idx)
			lstate->threshold.demotion_time_ns = exit_ns;
	}
	return 0;
}

static void ladder_reflect(struct cpuidle_device *dev, int index)
{
	if (index > 0)
		dev->last_state_idx = index;
}

const struct cpuidle_governor ladder_governor = {
	.name = "ladder",
	.rating = 10,
	.enable = ladder_enable_device,
	.select = ladder_select_state,
	.reflect = ladder_reflect,
	.governor_data_size = sizeof(struct ladder_device),
};
