/* SPDX-License-Identifier: MIT */
/*
 * advise_sweep.h - the candidates cpuidle advise weighs (advise_sweep.c):
 * the sweeps of a recording under every setting a host can change, their
 * rows, and the setting each row stands for.
 */
#ifndef TOOLS_ADVISE_SWEEP_H
#define TOOLS_ADVISE_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "advise.h"
#include "cpuidle/lab.h"

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* the kernel's governors the lab ports (hazard and the oracle are not the host's) */
#define ADVISE_NR_GOVERNORS	4
extern const char *const advise_host_governors[ADVISE_NR_GOVERNORS];
/* haltpoll's windows, grow x shrink pairs (advise_sweep.c) */
#define ADVISE_NR_WINDOWS	5
#define ADVISE_NR_PAIRS		6
/* "cpuN/cpuidle/stateK/disable=1", any unsigned N, int K: 3 + 10 + 14 + 11 + 10 + 1 */
#define ADVISE_DISABLE_ITEM_LEN	49

/*
 * The sweeps advise runs, their rows the candidates in this order (the
 * first of equal energies wins):
 * - the grid: every governor x QoS limit x haltpoll's window (the other
 *   governors' rows share one run per limit: they do not read it);
 * - depth: states K.. disabled on every CPU, one block per K from 1 (2
 *   where state 0 polls) to the deepest, x the governors but haltpoll,
 *   under the recording's own QoS only.  haltpoll chooses between states
 *   0 and 1 alone, so disabling deeper ones changes nothing.  State 1
 *   disabled over a polling state 0 leaves menu and teo polling, as the
 *   grid's limit of 0 does, and Linux's ladder keeps entering it (its
 *   first rung; the lab's ladder does not, src/governors/ladder.c: seen
 *   on a haltpoll guest).  A limit and a depth both stop the governor at
 *   some state: with exit latencies growing with depth, whichever stops
 *   it shallower makes the other one idle, and the grid has the limits;
 * - adapt: haltpoll's grow x shrink but the recording's own pair, one
 *   block each, x its windows above guest_halt_poll_grow_start (at or
 *   under it, a grow starts the window at the cap, and any shrink by 2, 4
 *   or 0 takes it under grow_start, so to 0: neither factor acts), under
 *   the recording's own QoS only: haltpoll reads the limit only to poll
 *   when it is below state 1's exit latency, where neither acts either.
 * Another governor does not read haltpoll's parameters, and no governor is
 * run under grow or shrink but haltpoll: no run is made twice for them.
 */
enum { SWEEP_GRID, SWEEP_DEPTH, SWEEP_ADAPT, NR_SWEEPS };

/**
 * struct sweeps - the sweeps' specs and what they point to (kept in place
 *	while the sweeps live)
 * @govs: the governors considered, @nr_govs
 * @qos: the QoS limits (-1: the trace's own), @nr_qos
 * @own_qos: -1, the depth and adapt sweeps' only QoS
 * @now_grow: the recording's guest_halt_poll_grow (else the default)
 * @now_shrink: the recording's guest_halt_poll_shrink (else the default)
 * @spec: per sweep
 * @sw: per sweep, NULL for one with nothing to run
 * @rows: per sweep, the candidates it gave
 * @depth_from: per depth block, the first state it disables
 * @unfit: the depths (first states up to @unfit) whose writes exceed a run's
 * @adapt_pair: per adapt block, grow_values[pair / 3], shrink_values[pair % 3]
 * @adapt_unfit: the recording's writes leave no room for grow and shrink
 */
struct sweeps {
	const char *const *govs;
	unsigned int nr_govs;
	int32_t qos[CPUIDLE_STATE_MAX + 1];
	unsigned int nr_qos;
	const char *now_grow, *now_shrink;
	struct cpuidle_lab_sweep_spec spec[NR_SWEEPS];
	struct cpuidle_lab_sweep *sw[NR_SWEEPS];
	unsigned int rows[NR_SWEEPS];

	struct cpuidle_lab_axis window_axis;
	struct cpuidle_lab_block grid_block;

	const char *depth_govs[ADVISE_NR_GOVERNORS];
	unsigned int nr_depth_govs;
	struct cpuidle_lab_block depth_blocks[CPUIDLE_STATE_MAX];
	int depth_from[CPUIDLE_STATE_MAX];
	const char *depth_attrs[CPUIDLE_STATE_MAX][CPUIDLE_LAB_MAX_ATTRS + 1];
	char (*disable_items)[ADVISE_DISABLE_ITEM_LEN];
	int unfit;

	int32_t own_qos;
	const char *adapt_gov;
	const char *adapt_windows[ADVISE_NR_WINDOWS];
	struct cpuidle_lab_axis adapt_axis;
	struct cpuidle_lab_block adapt_blocks[ADVISE_NR_PAIRS];
	unsigned int adapt_pair[ADVISE_NR_PAIRS];
	const char *adapt_attrs[ADVISE_NR_PAIRS][CPUIDLE_LAB_MAX_ATTRS + 1];
	char adapt_items[ADVISE_NR_PAIRS][2][sizeof(ADVISE_SHRINK_ATTR) + 16];
	bool adapt_unfit;
};

struct candidate {
	unsigned int sweep;
	struct cpuidle_lab_point at;
	double energy_mj;
	uint64_t p99_ns;
	uint64_t violations;
};

struct advice {
	struct candidate *rows;
	unsigned int n, cap;
	unsigned int sweep;	/* the one running */
};

/* a bundled platform with powers and @p's states, or NULL (advise_sweep.c) */
const char *advise_powered_twin(const struct cpuidle_platform *p);
/* the value of PATH in a run's writes (the last one), or NULL */
const char *advise_written(const char *const *attrs, const char *path);
/*
 * The sweeps of @run's recording (@trace) under governors @govs: their
 * specs in @s (zeroed before).  Return: 0, or a negative errno.
 */
int advise_sweeps_plan(struct sweeps *s, const struct cpuidle_lab_run *run,
		       const struct cpuidle_lab_trace *trace, const char *const *govs,
		       unsigned int nr_govs);
/* every sweep with something to run, rows into @adv; Return: 0, or a negative errno */
int advise_sweeps_run(struct sweeps *s, struct advice *adv, struct cpuidle_lab_sweep_error *fail);
/* free @s (allocated by the caller with calloc) and what its sweeps hold */
void advise_sweeps_free(struct sweeps *s);
/* candidate @c's setting */
void advise_setting_of(const struct sweeps *s, const struct candidate *c,
		       struct advise_setting *st);

#endif /* TOOLS_ADVISE_SWEEP_H */
