/* SPDX-License-Identifier: MIT */
/*
 * domain.h - domain (cluster, package) states in the replay: a domain state
 * takes effect only while every CPU of its cluster is in one, and the
 * cluster's shared power depends on it (libcpuidle-platform(5), ENERGY
 * MODEL).
 *
 * The replay of a trace runs CPU by CPU, an interval at a time, in the
 * order intervals complete, so when one CPU's stay is replayed its
 * siblings' choices over the same time are not all known yet.  The tracker
 * therefore keeps each CPU's stays (segments) as they are replayed and
 * sweeps a cluster forward in time only as far as every CPU of it is known
 * (each CPU's timeline is known up to its next idle entry): there it merges
 * the CPUs' segments in time order and charges each domain request the
 * power of the state it was effectively in.
 *
 * Asked to (domain_tracker_create()'s @overlap), it also measures how
 * long every CPU of a cluster was idle at once, by state: on any platform,
 * for cpuidle validate's comparison with the kernel's own overlap.
 *
 * Memory is bounded by the activity of a cluster during the longest time one
 * of its CPUs stays unknown (an idle or busy stretch), not by trace length;
 * a CPU that stays unknown for more than DOMAIN_MAX_BUFFERED segments of its
 * siblings is taken to be running until it reports again (it blocks domain
 * states, as a running CPU does).
 */
#ifndef LAB_DOMAIN_H
#define LAB_DOMAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "libcpuidle.h"

struct domain_tracker;

/**
 * struct domain_totals - what the domain model adds to a replay's result
 * @cpu_correction_mj: change to the CPUs' idle energy as charged state by
 *	state (model power x time + entry/exit energy of the state asked
 *	for): where a domain state did not take effect, the fallback state's
 *	power and, for a stay where it never did, its entry/exit energy
 * @cluster_energy_mj: the clusters' shared power over the replayed time
 * @domain_ns: time clusters spent in domain states, summed over clusters
 * @effective_ns: per state index, time a domain state asked for really took
 *	effect, summed over CPUs (0 for ordinary states)
 * @forced: times a cluster swept past a CPU that stayed unknown too long
 * @held_max: the most stays a cluster held at once, waiting to be swept
 *	(bounded: DOMAIN_MAX_BUFFERED + 1)
 * @together_ns: with @overlap, per state index, the time every CPU of a
 *	cluster was in that state or a deeper one at once, summed over
 *	clusters (0 without)
 */
struct domain_totals {
	double cpu_correction_mj;
	double cluster_energy_mj;
	uint64_t domain_ns;
	uint64_t effective_ns[CPUIDLE_STATE_MAX];
	uint64_t forced;
	size_t held_max;
	uint64_t together_ns[CPUIDLE_STATE_MAX];
};

/**
 * domain_tracker_create() - a tracker for one replay
 * @pf: the platform (must outlive the tracker)
 * @nr_cpus: CPUs replayed (0 to nr_cpus - 1); CPUs of a cluster at or above
 *	it are not simulated and take no part
 * @overlap: measure the clusters' overlap (domain_totals.together_ns)
 * @out: the tracker, or NULL when the platform has neither domain states
 *	nor shared cluster power and @overlap is false (nothing to track)
 *
 * Return: 0; -ENOMEM; -EINVAL on a NULL argument.
 */
int domain_tracker_create(const struct cpuidle_platform *pf, unsigned int nr_cpus,
			  bool overlap, struct domain_tracker **out);

/** domain_tracker_destroy() - free a tracker (NULL is fine) */
void domain_tracker_destroy(struct domain_tracker *dt);

/**
 * domain_tracker_wants_segments() - whether @cpu's stays must be reported
 * @dt: the tracker (may be NULL)
 * @cpu: a CPU
 *
 * Return: true if @cpu's cluster has domain states, or the overlap is
 * measured.
 */
bool domain_tracker_wants_segments(const struct domain_tracker *dt, unsigned int cpu);

/**
 * domain_tracker_has_domain() - whether @cpu's cluster has domain states
 * @dt: the tracker (may be NULL)
 * @cpu: a CPU
 *
 * Return: true if so (the oracle then needs its siblings' future).
 */
bool domain_tracker_has_domain(const struct domain_tracker *dt, unsigned int cpu);

/**
 * domain_segment() - one stay of @cpu in state @state
 * @dt: the tracker
 * @cpu: the CPU
 * @start_ns: entry, simulated time
 * @present_ns: time until the wake-up (the stay proper)
 * @time_ns: time accounted to the state (the stay plus the exit latency)
 * @state: index of the state entered
 *
 * Stays of one CPU come in time order; one that begins before the previous
 * one ended (the replay's clock drifts by exit latencies) is moved after it.
 *
 * Return: 0 or -ENOMEM.
 */
int domain_segment(struct domain_tracker *dt, unsigned int cpu, int64_t start_ns,
		   int64_t present_ns, int64_t time_ns, int state);

/**
 * domain_interval_done() - @cpu's timeline is known up to @until_ns
 * @dt: the tracker
 * @cpu: the CPU
 * @start_ns: start of the interval just replayed (or skipped)
 * @until_ns: its next idle entry (the interval's end plus the run after it)
 * @replayed: false for a partial interval the replay skipped (the CPU was
 *	idle in an unknown state: it blocks domain states)
 *
 * Sweeps @cpu's cluster forward as far as all its CPUs are known.
 */
void domain_interval_done(struct domain_tracker *dt, unsigned int cpu, int64_t start_ns,
			  int64_t until_ns, bool replayed);

/**
 * domain_finish() - sweep to the end and report
 * @dt: the tracker
 * @out: the totals
 */
void domain_finish(struct domain_tracker *dt, struct domain_totals *out);

#endif /* LAB_DOMAIN_H */
