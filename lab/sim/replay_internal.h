/* SPDX-License-Identifier: MIT */
/* replay_internal.h - what replay.c shares with the oracle and energy model. */
#ifndef LAB_REPLAY_INTERNAL_H
#define LAB_REPLAY_INTERNAL_H

#include "replay.h"

enum replay_wake { REPLAY_WAKE_EVENT, REPLAY_WAKE_TICK, REPLAY_WAKE_POLL_LIMIT };

struct replay_machine;
struct replay_steady;

/* What an entry adds to, per CPU: steady.c compares them across windows. */
struct replay_counts {
	uint64_t entries;
	uint64_t qos_violations, qos_unmeetable;
	uint64_t kernel_compared, kernel_matched;
	uint64_t window_matched, window_extra;
};

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
	struct replay_counts n;
	struct replay_steady *steady;	/* steady.c, once an interval is that long */
	/* the interval under replay, from replay_begin() to replay_end() */
	struct idle_interval iv;
	struct cpuidle_idle_ctx idle;	/* ctx points here */
	int64_t timer_left;		/* to the next timer */
	int64_t loop_ns;		/* kernel_loop: time per re-entry */
	unsigned int entry;		/* entries made in it */
	bool tick_stopped;		/* the last entry left the tick stopped */
	bool segments;			/* the domain tracker wants its stays */
	bool active;
	/* its last entry, as its siblings may see it (siblings.c) */
	int64_t seen_entered;		/* the entry: CPUIDLE_TIME_UNKNOWN before any */
	int64_t seen_end;		/* the stay's end (its wake-up) */
	int64_t seen_timer;		/* its next timer then, or CPUIDLE_TIME_INFINITE */
	int64_t seen_expected;		/* its governor's prediction, or unknown */
	int seen_state;
	/* interleave.c: intervals read, not begun (a ring of q_cap) */
	struct idle_interval *queue;
	size_t q_cap, q_head, q_len;
	int64_t known;			/* its next idle entry after the last read */
};

struct domain_tracker;
struct lookahead;

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
	bool sees_end;			/* the governor reads the time left (the oracle) */
	bool interleaved;		/* CPUs replayed in time order (interleave.c) */
	size_t held;			/* intervals queued, all CPUs (interleave.c) */
	/* per cluster: two CPUs or more of it replayed, and its energy model */
	bool shared[CPUIDLE_PLATFORM_MAX_CLUSTERS];
	bool energy_known[CPUIDLE_PLATFORM_MAX_CLUSTERS];
	struct cpuidle_cluster_energy energy[CPUIDLE_PLATFORM_MAX_CLUSTERS];
};

/* replay.c: one interval, an entry at a time (interleave.c steps them) */
int replay_begin(struct replay_machine *m, const struct cpuidle_lab_run *cfg,
		 const struct idle_interval *iv, struct cpuidle_lab_result *res);
int replay_step(struct replay_machine *m, const struct cpuidle_lab_run *cfg,
		struct replay_cpu *c, struct cpuidle_lab_result *res);
void replay_end(struct replay_machine *m, struct replay_cpu *c);
int replay_one(struct replay_machine *m, const struct cpuidle_lab_run *cfg,
	       const struct idle_interval *iv, struct cpuidle_lab_result *res);
/* the source's next interval, checked: 1, 0 at its end, or a negative errno */
int replay_next(struct replay_machine *m, struct replay_source *src, struct idle_interval *iv);

/*
 * interleave.c: every interval of @src, each CPU's entries in the order of
 * their times across the CPUs, so that a CPU's governor can be shown its
 * siblings as they are at its now (siblings.c).
 */
int replay_interleaved(struct replay_machine *m, const struct cpuidle_lab_run *cfg,
		       struct replay_source *src, struct cpuidle_lab_result *res);
void replay_queues_free(struct replay_machine *m);

/* siblings.c: the system's cluster_view op, and what machine_init() sets up for it */
int replay_cluster_view(struct cpuidle_device *dev, struct cpuidle_cluster_view *view,
			struct cpuidle_sibling *sib, unsigned int max, void *ctx);
void replay_siblings_init(struct replay_machine *m, const struct cpuidle_lab_run *cfg);


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
