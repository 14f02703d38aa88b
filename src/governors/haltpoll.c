// SPDX-License-Identifier: MIT
/*
 * haltpoll.c - the haltpoll governor: poll for a while before halting, and
 * learn per CPU how long a while is worth it.
 *
 * DOC: haltpoll
 *
 * Idea (Linux drivers/cpuidle/governors/haltpoll.c, by Marcelo Tosatti,
 * 2019, for KVM guests with the cpuidle-haltpoll driver; the behaviour
 * reproduced is that of the v6.18 release, read there and in
 * drivers/cpuidle/poll_state.c).  In a virtual machine, halting costs a
 * VM exit and the host's wake-up path; a guest CPU that spins briefly
 * instead catches the wake-ups that come soon, and, while it polls, other
 * CPUs can wake it without an IPI.  The price is CPU time burnt in the
 * spin, so the spin is bounded by a per-CPU *window* (dev->poll_limit_ns,
 * the polling state's time limit) that adapts to how long the CPU actually
 * stays idle.  The driver has two states: 0 polls, 1 halts.
 *
 * Selection:
 *
 * 1. QoS 0 (or no second state): poll, keeping the tick.
 * 2. A window of 0: halt at once (the tick may stop).
 * 3. If the last entry polled and its window ran out without work
 *    arriving (dev->poll_time_limit), halt: the wake-up is not coming soon.
 * 4. Otherwise poll, keeping the tick: after a halt, or after a poll that
 *    work ended, the next wake-up may well come within the window.
 *
 * Learning, after each stay in a state other than 0 (a halt), from its
 * residency r and the system's tunables (struct cpuidle_haltpoll_params):
 *
 * - r above the window but within guest_halt_poll_ns: a longer poll would
 *   have caught this wake-up, so the window grows: times
 *   guest_halt_poll_grow, at least guest_halt_poll_grow_start, at most
 *   guest_halt_poll_ns;
 * - r above guest_halt_poll_ns, if guest_halt_poll_allow_shrink: no
 *   permitted poll could have caught it, so the window shrinks: divided by
 *   guest_halt_poll_shrink, and reset to 0 once below
 *   guest_halt_poll_grow_start (at once if guest_halt_poll_shrink is 0);
 * - otherwise (r within the window) it stays.
 *
 * The kernel logs each grow and each shrink, even one that leaves the
 * window unchanged, as the power:guest_halt_poll_ns tracepoint; the lab
 * compares those windows with ours (cpuidle(1), fidelity).
 *
 * Kernel properties kept on purpose: the window is a 32-bit number of ns
 * (a grow wraps modulo 2^32 as the kernel's unsigned int does; with the
 * defaults it never comes near); disabled states and QoS limits other than
 * 0 are not looked at (the driver's halt has an exit latency of 1 us); a
 * lowered guest_halt_poll_ns clips no window until that CPU's next grow;
 * nothing resets the window when another governor takes over.  When the
 * window is 0 and the CPU polls anyway (QoS 0), the polling state derives
 * its own limit and caches it in dev->poll_limit_ns (cpuidle_poll_time()),
 * which then serves as the window, as in the kernel.
 *
 * Where this differs: with a single state the kernel would return the
 * non-existent state 1; here state 0 is returned.
 */
#include <stdint.h>

#include "gov.h"

/*
 * The kernel's defaults.  200 us of polling is what a VM exit and the
 * host's halt-polling round trip cost, give or take, so a spin longer than
 * that cannot pay for itself; the window doubles on the way up and halves
 * on the way down, so it settles in a few idle periods; a grow starts at a
 * quarter of the maximum (50 us, which the kernel's comment wrongly calls
 * us) because windows shorter than that rarely catch a wake-up; shrinking
 * is allowed so that a CPU gone quiet stops burning its time.
 */
#define HALTPOLL_DEFAULT_MAX_NS		200000u
#define HALTPOLL_DEFAULT_SHRINK		2u
#define HALTPOLL_DEFAULT_GROW		2u
#define HALTPOLL_DEFAULT_GROW_START_NS	50000u
#define HALTPOLL_DEFAULT_ALLOW_SHRINK	true

/* The driver's layout: state 0 polls, state 1 halts. */
#define HALTPOLL_POLL_STATE	0
#define HALTPOLL_HALT_STATE	1

/*
 * The window is also written by the core (a state's disable write resets
 * it) from another thread: single loads and stores, as the kernel's.
 */
static uint64_t window_get(const struct cpuidle_device *dev)
{
	return __atomic_load_n(&dev->poll_limit_ns, __ATOMIC_RELAXED);
}

static void window_set(struct cpuidle_device *dev, uint64_t window)
{
	__atomic_store_n(&dev->poll_limit_ns, window, __ATOMIC_RELAXED);
}

void haltpoll_default_params(struct cpuidle_haltpoll_params *p)
{
	p->guest_halt_poll_ns = HALTPOLL_DEFAULT_MAX_NS;
	p->guest_halt_poll_shrink = HALTPOLL_DEFAULT_SHRINK;
	p->guest_halt_poll_grow = HALTPOLL_DEFAULT_GROW;
	p->guest_halt_poll_grow_start = HALTPOLL_DEFAULT_GROW_START_NS;
	p->guest_halt_poll_allow_shrink = HALTPOLL_DEFAULT_ALLOW_SHRINK;
}

static int haltpoll_select(struct cpuidle_device *dev, bool *stop_tick)
{
	if (dev->state_count <= HALTPOLL_HALT_STATE || cpuidle_governor_latency_req(dev) == 0) {
		*stop_tick = false;
		return HALTPOLL_POLL_STATE;
	}
	if (window_get(dev) == 0)
		return HALTPOLL_HALT_STATE;
	if (dev->last_state_idx == HALTPOLL_POLL_STATE && dev->poll_time_limit)
		return HALTPOLL_HALT_STATE;
	*stop_tick = false;
	return HALTPOLL_POLL_STATE;
}

/* The new window after a halt of @block_ns. */
static void haltpoll_adjust(struct cpuidle_device *dev, uint64_t block_ns)
{
	struct cpuidle_haltpoll_params p;
	uint64_t old = window_get(dev);
	unsigned int window;

	cpuidle_dev_haltpoll_params(dev, &p);
	if (block_ns > old && block_ns <= p.guest_halt_poll_ns) {
		/* a 32-bit window, as the kernel's: the product wraps */
		window = (unsigned int)(old * p.guest_halt_poll_grow);
		if (window < p.guest_halt_poll_grow_start)
			window = p.guest_halt_poll_grow_start;
		if (window > p.guest_halt_poll_ns)
			window = p.guest_halt_poll_ns;
		window_set(dev, window);
	} else if (block_ns > p.guest_halt_poll_ns && p.guest_halt_poll_allow_shrink) {
		window = (unsigned int)old;
		if (p.guest_halt_poll_shrink == 0)
			window = 0;
		else
			window /= p.guest_halt_poll_shrink;
		if (window < p.guest_halt_poll_grow_start)
			window = 0;
		window_set(dev, window);
	}
}

static void haltpoll_reflect(struct cpuidle_device *dev, int index)
{
	dev->last_state_idx = index;
	if (index != HALTPOLL_POLL_STATE)
		haltpoll_adjust(dev, dev->last_residency_ns);
}

static int haltpoll_enable_device(struct cpuidle_device *dev)
{
	window_set(dev, 0);
	return 0;
}

const struct cpuidle_governor haltpoll_governor = {
	.name = "haltpoll",
	.rating = 9,
	.enable = haltpoll_enable_device,
	.select = haltpoll_select,
	.reflect = haltpoll_reflect,
};
