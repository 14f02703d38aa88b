/* SPDX-License-Identifier: MIT */
/*
 * replay.h - replay idle intervals through the real idle path on a
 * simulated clock: one cpuidle system per run (platform x governor), one
 * device per CPU, the table driver's idle callback consuming the interval.
 */
#ifndef LAB_REPLAY_H
#define LAB_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libcpuidle.h"
#include "intervals.h"

/*
 * A stream of intervals, CPUs interleaved, each CPU's in time order.
 * next() returns 1 with *iv filled, 0 at the end, or a negative errno.
 */
struct replay_source {
	int (*next)(struct replay_source *src, struct idle_interval *iv);
	void (*close)(struct replay_source *src);
	const char *(*error)(struct replay_source *src);	/* optional message */
};

/* Opens a fresh stream over the same intervals, one per run. */
typedef int (*replay_open_fn)(void *arg, struct replay_source **out);

/**
 * typedef replay_decision_fn - receives each select() and reflect() of a
 * replayed governor, typed (replay_config.decisions has them as text)
 * @ctx: replay_config.decision_ctx
 * @t_ns: the simulated time of the call, on its CPU's clock
 * @dev: the device
 * @d: the call: its inputs and the governor's answer
 */
typedef void (*replay_decision_fn)(void *ctx, int64_t t_ns, const struct cpuidle_device *dev,
				   const struct cpuidle_decision *d);

/* The clairvoyant governor's name: not a kernel governor, the lab's floor. */
#define REPLAY_ORACLE	"oracle"

struct replay_config {
	const struct cpuidle_platform *platform;
	const char *governor;		/* a built-in governor or REPLAY_ORACLE,
					 * or one of @plugins by name */
	const struct cpuidle_governor *const *plugins;	/* governors from
					 * outside the library (plugins'),
					 * NULL-terminated, registered into the
					 * run's system beside the built-in ones
					 * (their tunables can be written,
					 * whichever runs); or NULL */
	unsigned int nr_cpus;		/* devices: the highest CPU + 1 */
	int32_t qos_us;			/* < 0: the trace's own QoS timeline */
	replay_open_fn open;
	void *open_arg;
	bool tick_periodic;		/* the tick never stops, whatever the
					 * governor asks (a recording kernel
					 * built with CONFIG_HZ_PERIODIC or booted
					 * with nohz=off) */
	bool kernel_loop;		/* replay the kernel's idle loop as traced,
					 * for replaying the recording governor
					 * (fidelity): the tick wakes an entry the
					 * kernel's tick woke (and nothing ran),
					 * whatever the governor asked, and never
					 * ends a poll; each re-entry takes the
					 * kernel's mean time between its
					 * re-entries; an entry in the kernel's
					 * state lasts as the kernel's did (a poll
					 * past its limit, a halt to its exit),
					 * where the interval tells
					 * (idle_interval.kresidency) */
	FILE *decisions;		/* if set, every select() and reflect()
					 * of the governor, one line each, with
					 * the simulated time (tracing wrapper;
					 * cpuidle_decision_format()) */
	replay_decision_fn on_decision;	/* if set, called with every
					 * select() and reflect() of the
					 * governor (its inputs and answer) and
					 * the simulated time, on the replay's
					 * thread; the config must outlive the
					 * run */
	void *decision_ctx;		/* its first argument */
	const char *const *attrs;	/* "PATH=VALUE" attribute writes made
					 * before the run (cpuidle_attr_write()),
					 * NULL-terminated; or NULL */
	const struct iv_notes *notes;	/* the trace's notes, or NULL: with
					 * kernel_loop, each CPU starts with the
					 * polling window the trace began with
					 * (iv_notes.window_start) */
};

struct replay_state_stats {
	uint64_t usage, above, below, rejected;
	uint64_t time_ns;
	uint64_t wakes;			/* real wake-ups found in this state */
	uint64_t effective_ns;		/* a domain state: time it took effect */
};

struct replay_result {
	char governor[CPUIDLE_NAME_LEN];
	int state_count;
	struct replay_state_stats states[CPUIDLE_STATE_MAX];
	uint64_t intervals;		/* replayed */
	uint64_t skipped;		/* partial intervals at the trace's edges */
	uint64_t timer_unknown;		/* replayed intervals whose next timer the
					 * trace does not tell (IV_TIMER_UNKNOWN):
					 * the governor was told of none */
	uint64_t timer_guessed;		/* replayed intervals whose next timer was
					 * reconstructed (IV_TIMER_GUESSED) */
	uint64_t entries;		/* idle calls, re-entries included */
	uint64_t idle_ns;		/* true idle time replayed */
	uint64_t busy_ns;		/* run time between intervals */
	uint64_t span_ns;		/* wall-clock time replayed: first
					 * interval's start to last one's end,
					 * over all CPUs (mean power's divisor) */
	double idle_energy_mj;
	double active_energy_mj;
	double cluster_energy_mj;	/* clusters' shared power */
	uint64_t domain_ns;		/* cluster time in domain states */
	uint64_t domain_forced;		/* sweeps past a CPU that stayed unknown */
	bool energy_known;		/* every state has a model power */
	bool active_known;		/* the platform gives active power */
	uint64_t added_latency_ns;	/* exit latency paid by real wake-ups */
	uint64_t max_added_latency_ns;
	uint64_t p99_added_latency_ns;
	uint64_t qos_violations;	/* entries into a state slower than QoS
					 * while a state within it was enabled */
	uint64_t qos_unmeetable;	/* entries when no state met the QoS */
	uint64_t kernel_entries;	/* the kernel's idle entries replayed */
	uint64_t kernel_compared;	/* entries compared with the kernel's */
	uint64_t kernel_matched;	/* ... where we chose the kernel's state */
	uint64_t kernel_windows;	/* the kernel's polling window adjustments
					 * (haltpoll) in the replayed intervals */
	uint64_t window_matched;	/* ... after an entry where we entered the
					 * kernel's state and set its window */
	uint64_t window_extra;		/* our window changed after a non-polling
					 * entry where the kernel's did not */
	double host_seconds;
	int error;
	char error_msg[512];		/* the source's message, if any */
};

/**
 * replay_run() - replay every interval under one governor
 * @cfg: the run
 * @res: the result
 *
 * Return: 0, or a negative errno (also in @res->error).
 */
int replay_run(const struct replay_config *cfg, struct replay_result *res);

/** replay_energy_mj() - idle + active + clusters' shared energy of a result */
static inline double replay_energy_mj(const struct replay_result *r)
{
	return r->idle_energy_mj + r->active_energy_mj + r->cluster_energy_mj;
}

#endif /* LAB_REPLAY_H */
