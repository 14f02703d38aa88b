// SPDX-License-Identifier: MIT
/*
 * states.c - the engine's driver: the kinds of state, the state table built
 * from their measured costs, and enter().
 */

/**
 * DOC: exit latency and target residency from measured costs
 *
 * Every kind k has three numbers (struct uidle_state_cost), measured by
 * calibrate.c or given: L(k), the wake-up latency it adds to a busy poll's
 * (median); c(k), the CPU time it burns per unit of time in it (1 for the
 * kinds that hold the CPU, about 0 for a futex sleep); E(k), the CPU time
 * of one entry and exit, both sides (a futex sleep's system calls and
 * context switches, and the waker's FUTEX_WAKE).  The table holds the
 * kinds the CPU has, shallowest first, POLL always state 0; for state i:
 *
 * - exit latency: 0 for state 0, the reference every measurement is taken
 *   against (the kernel's POLL has 0 too, and QoS 0 must leave exactly
 *   it); for i >= 1, L(k) but at least 1 ns more than state i-1's.
 *   Depth order is what governors rely on: a state measured no slower
 *   than a shallower one (a PAUSE spin can notice a change faster than
 *   plain loads) is recorded 1 ns slower, so that no QoS limit admits it
 *   where it forbids the shallower one.
 * - target residency: the stay from which entering the state pays, the
 *   largest of three bounds:
 *   a) state i-1's residency (residencies may not decrease);
 *   b) the CPU break-even with state i-1: a stay d costs c(k) d + E(k)
 *      CPU time, so where k burns less per unit of time,
 *      d = (E(k) - E(i-1)) / (c(i-1) - c(k)); counted only when k saves
 *      at least CPU_SAVING_MIN_PPM of a CPU, less being measurement noise;
 *   c) LATENCY_FACTOR x the exit latency.  Waking up is not free even when
 *      it costs no CPU: the waiter's work starts L late.  ACPI derives the
 *      target residency of a C-state the same way when the firmware gives
 *      none (drivers/acpi/processor_idle.c, latency_factor = 2), and the
 *      rule fits the CPU-holding kinds too, whose saving (power, an SMT
 *      sibling's share of the core) user space cannot measure.
 *   For a futex sleep b) is about E(FUTEX) (c(FUTEX) ~ 0, c(spin) = 1)
 *   and c) usually wins: 2 x 27-44 us on the AMD EPYC guest this was
 *   written on, against a break-even of 7-52 us.
 *
 * The power of every state reads "unknown" (-1), as intel_idle's: the
 * hazard governor then works from target residencies, which carry the CPU
 * cost, instead of a power that would make the futex sleep look free.
 * Each state's desc shows its CPU cost: "futex sleep, cpu 0% +15230ns"
 * (c in %, E in ns).
 */
#include <errno.h>
#include <string.h>

#include "uidle_internal.h"

/* Target residency >= LATENCY_FACTOR x exit latency (ACPI's latency_factor). */
#define LATENCY_FACTOR		2

/*
 * A kind counts as saving CPU time over the one before only if it burns
 * at least 10% of a CPU less: CLOCK_THREAD_CPUTIME_ID over the tens of us
 * of a calibration round is noisy by a few %.
 */
#define CPU_SAVING_MIN_PPM	100000u

#define PPM_ONE			1000000u

/*
 * Built-in costs, used for kinds not measured (UIDLE_ENGINE_NO_CALIBRATE,
 * an override without them, a calibration that failed):
 * - the spinning kinds hold their CPU (c = 1) and cost nothing to enter;
 * - PAUSE: about one PAUSE (~40 ns on Intel since Skylake, 25 ns on
 *   Zen 4) plus a cache-line transfer; 100 ns;
 * - UMWAIT, MWAITX: a wake from C0.1/C0.2 or AMD's monitor wait is of the
 *   order of a microsecond;
 * - FUTEX: folly measured ~7 us of CPU per FUTEX_WAIT and wake (2013
 *   hardware, WaitOptions.h); a virtual machine pays more (7-52 us here,
 *   the waker's FUTEX_WAKE included), hence 10 us, and 50 us to wake,
 *   what a guest whose vCPU halted typically sees (27-44 us here after
 *   1 ms asleep).
 */
#define DEFAULT_PAUSE_EXIT_NS	100
#define DEFAULT_MONITOR_EXIT_NS	1000
#define DEFAULT_FUTEX_EXIT_NS	(50 * CPUIDLE_NSEC_PER_USEC)
#define DEFAULT_FUTEX_ENTRY_NS	(10 * CPUIDLE_NSEC_PER_USEC)

/*
 * The largest time a cost may give: with LATENCY_FACTOR and the 1 ns steps
 * between states, every time of the table stays within what
 * cpuidle_register_device() allows (CPUIDLE_STATE_TIME_MAX_NS).
 */
#define COST_MAX_NS		(CPUIDLE_STATE_TIME_MAX_NS / LATENCY_FACTOR - UIDLE_NR_STATE_KINDS)

const struct uidle_kind_desc uidle_kinds[UIDLE_NR_STATE_KINDS] = {
	[UIDLE_STATE_POLL] = {
		.name = "POLL", .what = "plain loads",
		.wait = uidle_wait_poll, .polling = true,
	},
	[UIDLE_STATE_PAUSE] = {
		.name = "PAUSE", .what = "PAUSE spin",
		.wait = uidle_wait_pause, .polling = true,
	},
	[UIDLE_STATE_UMWAIT] = {
		.name = "UMWAIT", .what = "UMONITOR/UMWAIT",
		.wait = uidle_wait_umwait, .polling = true,
	},
	[UIDLE_STATE_MWAITX] = {
		.name = "MWAITX", .what = "MONITORX/MWAITX",
		.wait = uidle_wait_mwaitx, .polling = true,
	},
	[UIDLE_STATE_FUTEX] = {
		.name = "FUTEX", .what = "futex sleep",
		.wait = uidle_wait_futex, .polling = false,
	},
};

void uidle_calibration_defaults(struct uidle_calibration *cal)
{
	int k;

	memset(cal, 0, sizeof(*cal));
	for (k = 0; k < UIDLE_NR_STATE_KINDS; k++) {
		cal->cost[k].cpu_ppm = uidle_kinds[k].polling ? PPM_ONE : 0;
		cal->cost[k].entry_cpu_ns = 0;
	}
	cal->cost[UIDLE_STATE_POLL].exit_latency_ns = 0;
	cal->cost[UIDLE_STATE_PAUSE].exit_latency_ns = DEFAULT_PAUSE_EXIT_NS;
	cal->cost[UIDLE_STATE_UMWAIT].exit_latency_ns = DEFAULT_MONITOR_EXIT_NS;
	cal->cost[UIDLE_STATE_MWAITX].exit_latency_ns = DEFAULT_MONITOR_EXIT_NS;
	cal->cost[UIDLE_STATE_FUTEX].exit_latency_ns = DEFAULT_FUTEX_EXIT_NS;
	cal->cost[UIDLE_STATE_FUTEX].entry_cpu_ns = DEFAULT_FUTEX_ENTRY_NS;
}

int uidle_calibration_check(const struct uidle_calibration *cal)
{
	int k;

	for (k = 0; k < UIDLE_NR_STATE_KINDS; k++) {
		const struct uidle_state_cost *c = &cal->cost[k];

		if (c->exit_latency_ns < -1 || c->exit_latency_ns > COST_MAX_NS ||
		    c->cpu_ppm > PPM_ONE || c->entry_cpu_ns < 0 || c->entry_cpu_ns > COST_MAX_NS)
			return -EINVAL;
	}
	return 0;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* Bound b) of the DOC block: the CPU break-even of @k against @prev. */
static int64_t cpu_break_even(const struct uidle_state_cost *prev,
			      const struct uidle_state_cost *k)
{
	int64_t extra;
	double be;

	if (prev->cpu_ppm < k->cpu_ppm + CPU_SAVING_MIN_PPM)
		return 0;
	extra = k->entry_cpu_ns - prev->entry_cpu_ns;
	if (extra <= 0)
		return 0;
	/* the ratio is at most 1e6 / 1e5: the result stays below 10 x COST_MAX_NS */
	be = (double)extra * PPM_ONE / (double)(prev->cpu_ppm - k->cpu_ppm);
	return be > (double)COST_MAX_NS ? COST_MAX_NS : (int64_t)be;
}

int uidle_table_build(unsigned int kinds, const struct uidle_calibration *cal,
		      struct uidle_table *out)
{
	struct uidle_table_state *s, *prev;
	int k;

	if (!cal || !out || (kinds & ~UIDLE_STATES_ALL))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	kinds |= UIDLE_STATE_BIT(UIDLE_STATE_POLL);
	for (k = 0; k < UIDLE_NR_STATE_KINDS; k++) {
		if (!(kinds & UIDLE_STATE_BIT(k)))
			continue;
		s = &out->states[out->count];
		s->kind = (enum uidle_state_kind)k;
		if (out->count == 0) {
			s->exit_latency_ns = 0;
			s->target_residency_ns = 0;
		} else {
			prev = s - 1;
			s->exit_latency_ns = max64(cal->cost[k].exit_latency_ns,
						   prev->exit_latency_ns + 1);
			s->target_residency_ns =
				max64(prev->target_residency_ns,
				      max64(LATENCY_FACTOR * s->exit_latency_ns,
					    cpu_break_even(&cal->cost[prev->kind], &cal->cost[k])));
		}
		out->count++;
	}
	return 0;
}

/*
 * enter() of every state: wait as the state's kind waits.  A state that
 * holds the CPU is a polling state: it stops at the poll time limit
 * (cpuidle_poll_time(), which haltpoll sets to its window) or the wait's
 * deadline, whichever comes first, and says which in dev->poll_time_limit,
 * as the kernel's poll_idle() does.  The futex sleep lasts until a wake, a
 * kick or the deadline.
 */
int uidle_state_enter(struct cpuidle_device *dev, struct cpuidle_state *state)
{
	struct uidle_waiter *w = uidle_container_of(dev, struct uidle_waiter, dev);
	const struct uidle_kind_desc *kind = state->driver_data;
	int64_t limit = w->deadline_ns, now, poll;
	bool by_poll_limit = false;

	if (kind->polling) {
		now = uidle_now_ns();
		poll = (int64_t)cpuidle_poll_time(dev);
		if (limit == UIDLE_NO_DEADLINE || limit - now > poll) {
			limit = now + poll;
			by_poll_limit = true;
		}
	}
	if (kind->wait(&w->engine->env, &w->wait, limit) == UIDLE_STOP_LIMIT && by_poll_limit)
		dev->poll_time_limit = true;
	return 0;
}
