/* SPDX-License-Identifier: MIT */
/* replay_internal.h - what replay.c shares with the oracle and energy model. */
#ifndef LAB_REPLAY_INTERNAL_H
#define LAB_REPLAY_INTERNAL_H

#include "replay.h"

enum replay_wake { REPLAY_WAKE_EVENT, REPLAY_WAKE_TICK, REPLAY_WAKE_POLL_LIMIT };

struct replay_machine;

struct replay_cpu {
	struct cpuidle_device dev;
	struct replay_machine *machine;
	const struct cpuidle_platform_cluster *cluster;	/* its state table and power */
	uint64_t clock;
	uint64_t next_tick;		/* the next tick boundary after clock */
	int64_t remaining;		/* idle time left in the interval */
	struct cpuidle_idle_ctx *ctx;
	enum replay_wake wake;
	int64_t consumed;
	uint64_t busy_ns;		/* run time between its intervals */
	uint64_t wakes[CPUIDLE_STATE_MAX];	/* real wake-ups found in each state */
	uint64_t first_ns;		/* its first replayed interval's start */
	uint64_t end_ns;		/* its last one's end, busy time included */
	bool kernel_tick;		/* this entry: the kernel's tick ran */
	/* kernel_loop, this entry (unknown: -1, 0, false) */
	int kernel_state;		/* the kernel's state */
	int64_t kernel_ns;		/* its residency there, as traced */
	int64_t skew_owed;		/* trace time the kernel's entry took
					 * beyond what its clock measured: to
					 * add once the entry is accounted */
	bool kernel_last;		/* its last entry in the interval */
	bool kernel_cut;		/* no wake-up ended it: a poll ran to its
					 * time limit */
	bool kernel_wake_tick;		/* the tick was the interval's wake-up */
};

struct domain_tracker;
struct lookahead;
struct replay_steady;

struct replay_machine {
	struct cpuidle_system *sys;
	struct domain_tracker *domains;	/* NULL: no domain states, no shared power */
	struct lookahead *lookahead;	/* the oracle's, on domain states */
	struct cpuidle_governor_tracer tracer;	/* with cpuidle_lab_run.decision_log */
	struct cpuidle_table_driver td;
	struct replay_cpu *cpus;
	unsigned int nr_cpus;
	int64_t tick_ns;
	int32_t qos_us;
	bool kernel_loop;		/* cpuidle_lab_run.kernel_loop */
	bool tick_periodic;		/* cpuidle_lab_run.tick_periodic */
	int64_t residency_skew_ns;	/* kernel_loop: iv_notes.residency_skew_ns */
	int64_t event_cost_ns;		/* event_cost_off: the same, off every interval */
	struct replay_steady *steady;	/* steady.c, once an interval is that long */
	bool sees_end;			/* the governor reads the time left (the oracle) */
};


/* steady.c: bounded work in very long intervals */
int replay_steady_begin(struct replay_steady **st, const struct cpuidle_device *dev);
int replay_steady_step(struct replay_machine *m, struct replay_cpu *c,
		       struct cpuidle_lab_result *res, int64_t *timer_left, bool cap);
void replay_steady_note(struct replay_steady *st, int idx, int64_t cycle_ns,
			enum replay_wake wake, bool tick_stopped);
void replay_steady_free(struct replay_steady *st);

extern const struct cpuidle_governor replay_oracle_governor;

/* For the oracle: the idle time left in @dev's interval, and its costs. */
int64_t replay_remaining_ns(const struct cpuidle_device *dev);
const struct cpuidle_platform_state *replay_state_model(const struct cpuidle_device *dev,
							int index);

/* For the oracle: @dev's cluster, and how long its siblings stay idle. */
const struct cpuidle_platform_cluster *replay_cluster(const struct cpuidle_device *dev);
int64_t replay_siblings_idle_ns(const struct cpuidle_device *dev, int64_t stay_ns,
				unsigned int *siblings);

/* The energy model's view of a platform (-1: unknown). */
static inline int replay_model_power_mw(const struct cpuidle_platform_state *ps)
{
	return ps->model_power_mw;
}

/* Energy of one entry and exit, nJ. */
static inline int64_t replay_transition_nj(const struct cpuidle_platform_state *ps)
{
	return ps->entry_energy_nj + ps->exit_energy_nj;
}

/**
 * replay_isolated() - cpuidle_lab_replay() of @cfg in a child process
 * (isolate.c)
 *
 * Return: the run's own return, -EFAULT if its process was killed by a
 * signal (error_msg names it), -EIO if it ended without a result, -EINVAL
 * for a run with on_decision set, or fork()'s and pipe()'s errors.
 */
int replay_isolated(const struct cpuidle_lab_run *cfg, struct cpuidle_lab_result *res);

#endif /* LAB_REPLAY_INTERNAL_H */
