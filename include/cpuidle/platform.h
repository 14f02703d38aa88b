/* SPDX-License-Identifier: MIT */
/*
 * platform.h - platform files and the table driver.
 *
 * A platform file describes a machine's idle states in a small text format
 * (see libcpuidle-platform(5)): one state table, or one per cluster of CPUs,
 * and optionally an energy model (power running and per state, entry and
 * exit energy, cluster-wide domain states) for simulators.  The table driver
 * turns one into a struct cpuidle_driver whose states call back into the
 * embedding to idle: a simulator advances its clock there, a real engine
 * waits.
 */
#ifndef CPUIDLE_PLATFORM_H
#define CPUIDLE_PLATFORM_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuidle.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CPUIDLE_PLATFORM_NAME_LEN	64
#define CPUIDLE_PLATFORM_DESC_LEN	256
#define CPUIDLE_PLATFORM_MAX_FILE	(1 << 20)	/* bytes */
#define CPUIDLE_PLATFORM_MAX_CLUSTERS	8
#define CPUIDLE_PLATFORM_CLUSTER_NAME_LEN	32
/* 64-bit words of a cluster's CPU mask: one bit per CPU below CPUIDLE_MAX_CPUS */
#define CPUIDLE_PLATFORM_CPUMASK_WORDS	(CPUIDLE_MAX_CPUS / 64)

/*
 * A power that is not known (sysfs prints a power_usage of -1 as
 * 4294967295); as cluster_power_mw: the state is not a domain state.
 */
#define CPUIDLE_POWER_UNKNOWN	(-1)

/**
 * struct cpuidle_platform_state - one state of a platform file
 * @name: state name (may contain spaces)
 * @desc: description
 * @exit_latency_ns: exit latency
 * @target_residency_ns: target residency
 * @power_mw: power in the state as the kernel reports it (sysfs "power"),
 *	or CPUIDLE_POWER_UNKNOWN; becomes the state's power_usage
 * @flags: CPUIDLE_FLAG_*
 * @entry_energy_nj: energy one CPU spends going into the state, on top of
 *	@model_power_mw times the time spent idle (nJ, >= 0; default 0)
 * @exit_energy_nj: the same for coming out of it
 * @model_power_mw: power of one CPU in the state for the energy model:
 *	the file's model_power_mw=, else @power_mw (so it may be
 *	CPUIDLE_POWER_UNKNOWN)
 * @cluster_power_mw: CPUIDLE_POWER_UNKNOWN for an ordinary state; >= 0
 *	marks a domain state: it takes effect only while every CPU of the
 *	cluster is in a domain state, and the cluster's shared power is then
 *	this instead of its idle_power_mw (libcpuidle-platform(5), ENERGY
 *	MODEL).  Domain states are always the deepest states of a table,
 *	never the first.
 *
 * The library itself uses only the first six fields; the energy fields are
 * data for programs that model energy (a simulator).
 */
struct cpuidle_platform_state {
	char name[CPUIDLE_NAME_LEN];
	char desc[CPUIDLE_DESC_LEN];
	int64_t exit_latency_ns;
	int64_t target_residency_ns;
	int power_mw;
	unsigned int flags;
	int64_t entry_energy_nj;
	int64_t exit_energy_nj;
	int model_power_mw;
	int cluster_power_mw;
};

/**
 * struct cpuidle_platform_cluster - CPUs that share a state table and a
 *	power domain
 * @name: the cluster's name ("all" for the implicit cluster of a file
 *	without cluster lines)
 * @cpumask: its CPUs, bit (cpu % 64) of word (cpu / 64); the implicit
 *	cluster of a file without a cpus line has every bit set
 * @nr_cpus: number of CPUs in @cpumask; 0 for the implicit cluster of a
 *	file without a cpus line (it owns every CPU, however many)
 * @active_power_mw: power of one of its CPUs while running: the cluster's
 *	active_power_mw=, else the platform's (may be CPUIDLE_POWER_UNKNOWN)
 * @idle_power_mw: power shared by the cluster (caches, interconnect)
 *	whenever it is not in a domain state, running or idle (>= 0;
 *	default 0: nothing beyond the per-CPU numbers)
 * @state_count: number of @states, 1 to CPUIDLE_STATE_MAX
 * @states: the idle states of its CPUs, shallowest first
 */
struct cpuidle_platform_cluster {
	char name[CPUIDLE_PLATFORM_CLUSTER_NAME_LEN];
	uint64_t cpumask[CPUIDLE_PLATFORM_CPUMASK_WORDS];
	unsigned int nr_cpus;
	int active_power_mw;
	int idle_power_mw;
	int state_count;
	struct cpuidle_platform_state states[CPUIDLE_STATE_MAX];
};

/**
 * struct cpuidle_platform - a parsed platform file
 * @name: the platform's name
 * @desc: one line describing it
 * @tick_hz: CONFIG_HZ of the machine, 0 if the file does not say
 * @state_count: number of @states
 * @states: shallowest first: a copy of cluster 0's table, so that programs
 *	that know one table per machine keep working
 * @nr_cpus: number of CPUs: the file's cpus line; without one, one more
 *	than the highest CPU of its clusters; 0 if the file has neither (any
 *	number of CPUs, all with @states)
 * @active_power_mw: power of one CPU while running (the file's
 *	active_power_mw line), or CPUIDLE_POWER_UNKNOWN
 * @nr_clusters: number of @clusters, 1 to CPUIDLE_PLATFORM_MAX_CLUSTERS
 *	(a file without cluster lines has one implicit cluster of all CPUs)
 * @clusters: in file order; each CPU below @nr_cpus (any CPU if @nr_cpus
 *	is 0) is in exactly one
 */
struct cpuidle_platform {
	char name[CPUIDLE_PLATFORM_NAME_LEN];
	char desc[CPUIDLE_PLATFORM_DESC_LEN];
	unsigned int tick_hz;
	int state_count;
	struct cpuidle_platform_state states[CPUIDLE_STATE_MAX];
	unsigned int nr_cpus;
	int active_power_mw;
	int nr_clusters;
	struct cpuidle_platform_cluster clusters[CPUIDLE_PLATFORM_MAX_CLUSTERS];
};

/**
 * cpuidle_platform_state_is_domain() - whether @s is a domain state
 * @s: a state of a platform
 *
 * Return: true if @s has a cluster_power_mw (takes effect only when the
 * whole cluster is in domain states).
 */
static inline bool cpuidle_platform_state_is_domain(const struct cpuidle_platform_state *s)
{
	return s->cluster_power_mw >= 0;
}

/**
 * cpuidle_platform_power_known() - whether every state of @p has a power
 * @p: a platform
 *
 * Return: true if every state of every cluster has a model_power_mw, so
 * that a replay on @p can give its energy.
 */
static inline bool cpuidle_platform_power_known(const struct cpuidle_platform *p)
{
	int c, s;

	for (c = 0; c < p->nr_clusters; c++)
		for (s = 0; s < p->clusters[c].state_count; s++)
			if (p->clusters[c].states[s].model_power_mw < 0)
				return false;
	return true;
}

/**
 * cpuidle_platform_cluster_has_cpu() - whether @cpu belongs to @cl
 * @cl: a cluster
 * @cpu: a CPU number
 *
 * Return: true if @cpu is below CPUIDLE_MAX_CPUS and in @cl's mask.
 */
static inline bool cpuidle_platform_cluster_has_cpu(const struct cpuidle_platform_cluster *cl,
						    unsigned int cpu)
{
	return cpu < CPUIDLE_MAX_CPUS && ((cl->cpumask[cpu / 64] >> (cpu % 64)) & 1);
}

/**
 * cpuidle_platform_domain_fallback() - the state a domain request falls to
 * @cl: a cluster
 *
 * A CPU that asked for a domain state while a CPU of its cluster is not in
 * a domain state is effectively in the deepest ordinary state of the table.
 *
 * Return: that state's index; -ENOENT if the table has no ordinary state
 * (never for a parsed platform).
 */
static inline int cpuidle_platform_domain_fallback(const struct cpuidle_platform_cluster *cl)
{
	int i;

	for (i = cl->state_count - 1; i >= 0; i--)
		if (!cpuidle_platform_state_is_domain(&cl->states[i]))
			return i;
	return -ENOENT;
}

/**
 * cpuidle_platform_cluster_of() - the cluster a CPU belongs to
 * @platform: a parsed platform
 * @cpu: a CPU number
 *
 * Return: the index of @cpu's cluster in @platform->clusters; -EINVAL if
 * @platform is NULL; -ENOENT if no cluster has @cpu (@cpu at or above
 * @platform->nr_cpus when that is set, at or above CPUIDLE_MAX_CPUS, or a
 * platform without clusters).
 */
CPUIDLE_API int cpuidle_platform_cluster_of(const struct cpuidle_platform *platform,
					    unsigned int cpu);

/**
 * cpuidle_platform_parse() - parse a platform file held in memory
 * @text: the file's bytes (need not be NUL-terminated)
 * @len: their number
 * @filename: used in error messages
 * @out: the result
 * @err: on error, "FILE:LINE: what is wrong" (may be NULL)
 * @errlen: size of @err
 *
 * Return: 0 on success; -EINVAL if an argument is NULL or the text is not a
 * valid platform file (@err says where and why); -EFBIG if @len exceeds
 * CPUIDLE_PLATFORM_MAX_FILE.
 */
CPUIDLE_API int cpuidle_platform_parse(const char *text, size_t len,
				       const char *filename,
				       struct cpuidle_platform *out,
				       char *err, size_t errlen);

/**
 * cpuidle_platform_load() - read and parse a platform
 * @spec: a file path, or the name of a bundled platform ("laptop")
 * @out: the result
 * @err: on error, a message naming the file and line (may be NULL)
 * @errlen: size of @err
 *
 * A @spec without '/' that names a bundled platform loads that one.
 *
 * Return: 0 on success; -EINVAL as for cpuidle_platform_parse(); -ENOENT if
 * neither a file nor a bundled platform of that name exists; -EFBIG for a
 * file that is too large; another negative errno if it cannot be read.
 */
CPUIDLE_API int cpuidle_platform_load(const char *spec, struct cpuidle_platform *out,
				      char *err, size_t errlen);

/**
 * cpuidle_platform_builtin_names() - names of the bundled platforms
 *
 * Return: a NULL-terminated array.
 */
CPUIDLE_API const char *const *cpuidle_platform_builtin_names(void);

/**
 * cpuidle_platform_builtin_text() - the text of a bundled platform
 * @name: its name
 * @len: out: its length
 *
 * Return: the text, or NULL: errno EINVAL for a NULL @name, ENOENT if there
 * is none of that name (@len is then left alone).
 */
CPUIDLE_API const char *cpuidle_platform_builtin_text(const char *name, size_t *len);

/**
 * typedef cpuidle_table_idle_fn - the embedding's way of idling in a state
 * @dev: the device
 * @state: the state chosen (after CHECK_BM demotion)
 * @index: its index
 * @ctx: the table driver's @ctx
 *
 * Return: >= 0 if the state was entered; a negative errno if rejected.
 */
typedef int (*cpuidle_table_idle_fn)(struct cpuidle_device *dev,
				     struct cpuidle_state *state, int index, void *ctx);

struct cpuidle_table_driver;

/**
 * struct cpuidle_table_state - what a table driver's state carries in its
 * driver_data
 * @td: the table driver
 * @model: the platform's description of the state: its power, entry and
 *	exit energy (the energy model), reachable from the state itself
 */
struct cpuidle_table_state {
	struct cpuidle_table_driver *td;
	const struct cpuidle_platform_state *model;
};

/**
 * struct cpuidle_table_driver - a driver built from a platform
 * @drv: the driver to register (its state table is the platform's
 *	top-level one, cluster 0's)
 * @platform: the platform, which must stay in place as long as @drv
 * @cluster_states: each cluster's state table, built once; the devices of
 *	a cluster share it (cpuidle_table_device_init())
 * @drv_data: the driver_data of @drv.states
 * @cluster_data: the driver_data of @cluster_states
 * @idle: the embedding's idle function
 * @ctx: passed to @idle
 */
struct cpuidle_table_driver {
	struct cpuidle_driver drv;
	const struct cpuidle_platform *platform;
	struct cpuidle_state cluster_states[CPUIDLE_PLATFORM_MAX_CLUSTERS][CPUIDLE_STATE_MAX];
	struct cpuidle_table_state drv_data[CPUIDLE_STATE_MAX];
	struct cpuidle_table_state cluster_data[CPUIDLE_PLATFORM_MAX_CLUSTERS][CPUIDLE_STATE_MAX];
	cpuidle_table_idle_fn idle;
	void *ctx;
};

/**
 * cpuidle_table_driver_init() - build a driver from a platform
 * @td: the table driver to fill
 * @platform: the platform, kept by address: it must outlive @td
 * @idle: the embedding's idle function
 * @ctx: passed to @idle
 *
 * The driver is named after the platform (truncated to fit) and its state
 * table is @platform->states (cluster 0's table); each cluster's table is
 * built here too, once.  Register &@td->drv, then register devices: with
 * state_count 0 they take the driver's table, after
 * cpuidle_table_device_init() the table of their CPU's cluster.  Their
 * driver_data is a struct cpuidle_table_state in @td (see
 * cpuidle_table_state_model()), so @td must stay in place while
 * registered.
 *
 * Return: 0 on success; -EINVAL if @td, @platform or @idle is NULL (@ctx may
 * be), or the platform or one of its clusters has no states (or more than
 * CPUIDLE_STATE_MAX).
 */
CPUIDLE_API int cpuidle_table_driver_init(struct cpuidle_table_driver *td,
					  const struct cpuidle_platform *platform,
					  cpuidle_table_idle_fn idle, void *ctx);

/**
 * cpuidle_table_device_init() - prepare the device of one CPU
 * @td: a table driver filled by cpuidle_table_driver_init()
 * @dev: the device to fill (not registered)
 * @cpu: its CPU
 *
 * Zeroes @dev (set @dev->embed_data afterwards), sets @dev->cpu and points
 * @dev->states at the state table of the cluster that owns @cpu (held once
 * in @td for all its CPUs), each state entering through @td like the
 * driver's.  Register @dev afterwards; the core then picks its safe state.
 * A platform without clusters (one built by hand) gives every CPU the
 * driver's table.
 *
 * Return: 0 on success; -EINVAL if @td or @dev is NULL, @td was not
 * initialised, @cpu is not below CPUIDLE_MAX_CPUS or the cluster's table
 * has no states (or more than CPUIDLE_STATE_MAX); -EBUSY if @dev is
 * registered; -ENOENT if no cluster of the platform has @cpu.
 */
CPUIDLE_API int cpuidle_table_device_init(struct cpuidle_table_driver *td,
					  struct cpuidle_device *dev, unsigned int cpu);

/**
 * cpuidle_table_state_model() - the platform's description of a state of
 * a table driver: its powers and energies, for an energy model
 * @state: a state of a table driver's table (a device's, after
 *	cpuidle_table_device_init() or registration without states)
 *
 * Return: the platform state it was built from.
 */
static inline const struct cpuidle_platform_state *
cpuidle_table_state_model(const struct cpuidle_state *state)
{
	return ((const struct cpuidle_table_state *)state->driver_data)->model;
}

/** cpuidle_table_state_driver() - the table driver a state of one belongs to */
static inline struct cpuidle_table_driver *
cpuidle_table_state_driver(const struct cpuidle_state *state)
{
	return ((const struct cpuidle_table_state *)state->driver_data)->td;
}

/**
 * cpuidle_table_state_index() - index of @state in its device
 * @dev: the device
 * @state: one of @dev's states
 *
 * Return: the index, or -EINVAL if @state is not one of @dev's.
 */
static inline int cpuidle_table_state_index(const struct cpuidle_device *dev,
					    const struct cpuidle_state *state)
{
	if (state < dev->states || state >= dev->states + dev->state_count)
		return -EINVAL;
	return (int)(state - dev->states);
}

#ifdef __cplusplus
}
#endif

#endif /* CPUIDLE_PLATFORM_H */
