/* SPDX-License-Identifier: MIT */
/*
 * governor.h - the governor interface: what a governor is and may call,
 * and its tunables (part of cpuidle.h, which includes it; include either)
 */
/* first, outside the guard: cpuidle.h includes this one at its end */
#include "cpuidle.h"

#ifndef CPUIDLE_GOVERNOR_H
#define CPUIDLE_GOVERNOR_H

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------------
 * GOVERNOR interface
 */

/* What a governor's tunable holds */
enum cpuidle_param_type {
	CPUIDLE_PARAM_UINT,	/* an unsigned int: shown "%u", written as kstrtouint() reads */
	CPUIDLE_PARAM_BOOL,	/* a bool: shown Y or N, written as kstrtobool() reads */
};

/* the longest name of a tunable, a file name of the attribute tree */
#define CPUIDLE_PARAM_NAME_MAX	48

/**
 * struct cpuidle_param - one tunable of a governor (a module parameter)
 * @name: its file under module/GOVERNOR/parameters/: 1 to
 *	CPUIDLE_PARAM_NAME_MAX letters, digits and underscores
 * @type: what its field is
 * @offset: its field's offset in the governor's parameter block (offsetof())
 * @def: its value when the governor is registered (a bool: 0 or 1)
 * @min: the least value a write may give (a bool: 0)
 * @max: the most (a bool: 1; the kernel's module parameters take any
 *	unsigned int: 0 and UINT_MAX)
 */
struct cpuidle_param {
	const char *name;
	enum cpuidle_param_type type;
	size_t offset;
	unsigned int def, min, max;
};

/**
 * struct cpuidle_governor - an idle policy
 * @name: unique name (case-insensitive), shown in available_governors
 * @rating: the highest-rated governor is used unless one was chosen by name
 * @enable: optional; the governor starts governing @dev
 * @disable: optional; it stops
 * @select: required; pick a state index for this idle period.  May clear
 *	*@stop_tick to keep the tick running.  Must return a valid index.
 * @reflect: optional; called after wake-up with the index entered
 * @owner: free for the governor's use (the kernel's module pointer)
 * @governor_data_size: bytes of per-CPU data the core allocates (zeroed)
 *	into dev->governor_data before enable(), freed after disable()
 * @params: optional: the governor's tunables (the kernel's module
 *	parameters), @nr_params of them, each a field of a block of
 *	@params_size bytes that the core allocates per system at
 *	registration, sets to the defaults, shows and writes as
 *	module/NAME/parameters/PARAM (cpuidle/attr.h) and hands back with
 *	cpuidle_dev_gov_params()
 *
 * Once registered the object is only read, so one static object serves any
 * number of systems.
 */
struct cpuidle_governor {
	char name[CPUIDLE_NAME_LEN];
	unsigned int rating;

	int (*enable)(struct cpuidle_device *dev);
	void (*disable)(struct cpuidle_device *dev);
	int (*select)(struct cpuidle_device *dev, bool *stop_tick);
	void (*reflect)(struct cpuidle_device *dev, int index);

	void *owner;
	size_t governor_data_size;

	const struct cpuidle_param *params;
	unsigned int nr_params;
	size_t params_size;
};

/**
 * cpuidle_register_governor() - make a governor available
 * @sys: the system
 * @gov: the governor; must outlive its registration
 *
 * It becomes current if there is none, if it is the one chosen by name, or
 * if it outrates the current one and no governor was chosen by name.
 *
 * Its tunables (@gov->params), if any, get a block of their own in @sys,
 * set to their defaults (again, if it was registered before).
 *
 * Return: 0 on success; -EINVAL if an argument is NULL, the name is empty
 * or unterminated, select() is missing, or its tunables' table is unsound
 * (a field outside the block or misaligned, a default out of its range, a
 * name twice); -EEXIST if a governor of that name is registered; -ENOSPC
 * if the registry is full (or the system has had 64 governors with
 * tunables); -ENOMEM; or the error of switching to it.
 */
CPUIDLE_API int cpuidle_register_governor(struct cpuidle_system *sys,
					  const struct cpuidle_governor *gov);

/**
 * cpuidle_unregister_governor() - remove a governor that is not in use
 * @sys: the system
 * @gov: a registered governor
 *
 * Return: 0 on success; -EINVAL if an argument is NULL; -ENOENT if it is
 * not registered; -EBUSY if it is the current governor.
 */
CPUIDLE_API int cpuidle_unregister_governor(struct cpuidle_system *sys,
					    const struct cpuidle_governor *gov);

/**
 * cpuidle_switch_governor() - switch to a governor by name
 * @sys: the system
 * @name: a registered governor's name (case-sensitive, as sysfs compares)
 *
 * Disables every registered device under the old governor and enables it
 * under the new one (so, as in the kernel, a switch also re-enables devices
 * disabled before); per-state statistics are kept.  The choice is
 * sticky: a later, higher-rated registration does not override it.
 *
 * Return: 0 on success (also when already current); -EINVAL if an argument
 * is NULL or no governor has that name; or a device's enable() error (the
 * old governor is then restored on the devices that were enabled, with
 * fresh per-CPU data).
 */
CPUIDLE_API int cpuidle_switch_governor(struct cpuidle_system *sys,
					const char *name);

/**
 * cpuidle_current_governor() - the governor in use
 * @sys: the system
 *
 * Return: the governor, or NULL if none or @sys is NULL.
 */
CPUIDLE_API const struct cpuidle_governor *
cpuidle_current_governor(struct cpuidle_system *sys);

/**
 * cpuidle_find_governor() - a registered governor by name
 * @sys: the system
 * @name: the name, compared case-insensitively
 *
 * Return: the governor, or NULL (none of that name, or an argument NULL).
 */
CPUIDLE_API const struct cpuidle_governor *
cpuidle_find_governor(struct cpuidle_system *sys, const char *name);

/**
 * cpuidle_builtin_governors() - the library's governors
 *
 * Return: a NULL-terminated array (ladder, menu, ...).
 */
CPUIDLE_API const struct cpuidle_governor *const *cpuidle_builtin_governors(void);

/**
 * cpuidle_versioned_governors() - the library's governors by kernel release
 *
 * Each is named NAME@RELEASE: menu@6.18 and teo@6.18 are the same functions
 * as menu and teo (the plain names follow Linux 6.18), menu@7.1 and teo@7.1
 * follow Linux 7.1.  cpuidle_system_create() registers them after the
 * built-in governors, with their base governor's rating, so they are never
 * the default.
 *
 * Return: a NULL-terminated array.
 */
CPUIDLE_API const struct cpuidle_governor *const *cpuidle_versioned_governors(void);

/**
 * cpuidle_builtin_governor() - one of the library's governors by name
 * @name: a name of cpuidle_builtin_governors() or cpuidle_versioned_governors(),
 *	compared case-sensitively
 *
 * Return: the governor, or NULL (no such name, or @name NULL).
 */
CPUIDLE_API const struct cpuidle_governor *cpuidle_builtin_governor(const char *name);

/**
 * cpuidle_governor_releases() - the releases the library ports of a governor
 * @name: NAME or NAME@ANYTHING; only NAME is looked at
 * @buf: out: "NAME@R1 (= NAME), NAME@R2", the NAME@RELEASE governors of
 *	cpuidle_versioned_governors(), "(= NAME)" after the one the plain name
 *	decides as; "" if there is none
 * @len: its size (the text is cut to fit, always terminated if @len > 0)
 *
 * For a message naming the releases known when a NAME@RELEASE is not.
 *
 * Return: how many releases there are (0 if none or @name is NULL).
 */
CPUIDLE_API int cpuidle_governor_releases(const char *name, char *buf, size_t len);

/**
 * cpuidle_governor_latency_req() - the latency limit for @dev, in ns
 * @dev: the device
 *
 * The smaller of the CPU latency QoS aggregate (pm_qos_requirement(sys,
 * PM_QOS_CPU_DMA_LATENCY)) and @dev's resume latency limit
 * (cpuidle_set_resume_latency()), converted to ns, as the kernel's
 * cpuidle_governor_latency_req().  A governor never selects a state whose
 * exit latency exceeds it.
 *
 * Return: the limit in ns.
 */
static inline int64_t cpuidle_governor_latency_req(const struct cpuidle_device *dev)
{
	int32_t global = __atomic_load_n(dev->qos_latency_us, __ATOMIC_RELAXED);
	int32_t own = __atomic_load_n(&dev->resume_latency_us, __ATOMIC_RELAXED);

	return (int64_t)(own < global ? own : global) * CPUIDLE_NSEC_PER_USEC;
}

/**
 * cpuidle_get_sleep_length() - time to the next timer event (the kernel's
 * tick_nohz_get_sleep_length())
 * @dev: the device, inside its select()
 * @delta_tick: out: time to the next event if the tick is not stopped
 *
 * Return: time to the next timer event with the tick stopped, in ns.
 */
static inline int64_t cpuidle_get_sleep_length(const struct cpuidle_device *dev,
					       int64_t *delta_tick)
{
	*delta_tick = dev->idle_ctx->delta_tick_ns;
	return dev->idle_ctx->sleep_length_ns;
}

/**
 * cpuidle_tick_stopped() - the tick was already stopped at this idle entry
 * @dev: the device, inside its select()
 *
 * Return: true if stopped.
 */
static inline bool cpuidle_tick_stopped(const struct cpuidle_device *dev)
{
	return dev->idle_ctx->tick_stopped;
}

/**
 * cpuidle_idle_got_tick() - the tick ended the idle period just over
 * @dev: the device, inside its reflect()
 *
 * Return: true if it was.
 */
static inline bool cpuidle_idle_got_tick(const struct cpuidle_device *dev)
{
	return dev->idle_ctx->got_tick;
}

/**
 * cpuidle_dev_tick_nsec() - TICK_NSEC of the device's system
 * @dev: a registered device
 *
 * Return: the tick period in ns.
 */
static inline int64_t cpuidle_dev_tick_nsec(const struct cpuidle_device *dev)
{
	return dev->tick_nsec;
}

/**
 * cpuidle_publish_expected_stay() - tell the siblings how long this CPU
 *	expects to stay idle
 * @dev: the device, inside its select()
 * @stay_ns: the idle time expected from now on, >= 0
 *
 * The governor's own prediction at this selection, kept for this idle
 * entry (struct cpuidle_idle_ctx.expected_stay_ns): an embedding that
 * describes clusters shows it to the governors of the CPU's siblings as
 * struct cpuidle_sibling.expected_ns.  Not published, it is unknown there.
 */
static inline void cpuidle_publish_expected_stay(struct cpuidle_device *dev, int64_t stay_ns)
{
	dev->idle_ctx->expected_stay_ns =
		stay_ns < 0 ? CPUIDLE_TIME_UNKNOWN : stay_ns;
}

/**
 * cpuidle_cluster_view() - the other CPUs of @dev's cluster, now
 * @dev: the device, inside its select()
 * @view: filled with @dev's now and the cluster's energy model, if any
 * @sib: filled with up to @max siblings (may be NULL if @max is 0)
 * @max: room in @sib
 *
 * What a governor may know of its cluster when it selects: for each other
 * CPU of the cluster, whether it is idle now, in which state, since when,
 * its next timer as known at its entry and what its own governor
 * published then (cpuidle_publish_expected_stay()).  Only the present and
 * the past at @dev's now; the embedding answers
 * (cpuidle_system_ops.cluster_view).
 *
 * Return: the number of siblings (0: @dev is alone in its cluster); only
 * the first @max of them are in @sib.  -EINVAL if @dev or @view is NULL,
 * or @sib is NULL while @max is not 0; -ENODEV if @dev is not registered;
 * -EOPNOTSUPP if the embedding describes no clusters; or the embedding's
 * own negative errno.
 */
CPUIDLE_API int cpuidle_cluster_view(struct cpuidle_device *dev,
				     struct cpuidle_cluster_view *view,
				     struct cpuidle_sibling *sib, unsigned int max);

/**
 * cpuidle_is_disabled() - whether state @i of @dev may not be selected
 * @dev: the device
 * @i: a valid state index
 *
 * Return: true if any disable bit is set.
 */
static inline bool cpuidle_is_disabled(const struct cpuidle_device *dev, int i)
{
	return __atomic_load_n(&dev->states_usage[i].disable, __ATOMIC_RELAXED) != 0;
}

/* ----------------------------------------------------------------------
 * GOVERNOR TUNABLES (the kernel's module parameters, per system)
 *
 * The kernel keeps a governor's module parameters in static variables,
 * read without a lock by every CPU and written through sysfs.  Here each
 * system has its own block of every registered governor's tunables
 * (struct cpuidle_governor.params), so that several systems of a process
 * can be tuned apart: written under the system lock a field at a time,
 * read lock-free by the governor, each field with one relaxed load
 * (cpuidle_param_load_uint(), cpuidle_param_load_bool()), as the kernel
 * reads each parameter once.
 */

/**
 * cpuidle_param_get() - a governor's tunable, in a system
 * @sys: the system
 * @governor: the governor's name (registered in @sys)
 * @name: the tunable's
 * @value: set to its value (a bool: 0 or 1)
 *
 * Return: 0; -EINVAL if an argument is NULL; -ENOENT if no registered
 * governor of that name has a tunable of that name.
 */
CPUIDLE_API int cpuidle_param_get(struct cpuidle_system *sys, const char *governor,
				  const char *name, unsigned int *value);

/**
 * cpuidle_param_set() - change a governor's tunable, in a system
 * @sys: the system
 * @governor: the governor's name (registered in @sys)
 * @name: the tunable's
 * @value: its new value, within the tunable's min and max
 *
 * As with the kernel's module parameters it takes effect the next time the
 * governor reads it.
 *
 * Return: 0; -EINVAL if an argument is NULL or @value is out of range;
 * -ENOENT if no registered governor of that name has a tunable of that name.
 */
CPUIDLE_API int cpuidle_param_set(struct cpuidle_system *sys, const char *governor,
				  const char *name, unsigned int value);

/**
 * cpuidle_dev_gov_params() - @gov's tunables in the system of @dev
 * @dev: a registered device (inside a governor callback)
 * @gov: the governor whose block is wanted (the caller's own, or one it
 *	wraps)
 *
 * Lock-free.  Read each field of the block with cpuidle_param_load_uint()
 * or cpuidle_param_load_bool(): a writer may change it meanwhile.
 *
 * Return: the block (struct cpuidle_governor.params_size bytes), or NULL
 * if @gov has no tunables or is not registered in @dev's system (its
 * defaults then apply).
 */
CPUIDLE_API const void *cpuidle_dev_gov_params(const struct cpuidle_device *dev,
					       const struct cpuidle_governor *gov);

/** cpuidle_param_load_uint() - one relaxed load of a tunable's field */
static inline unsigned int cpuidle_param_load_uint(const unsigned int *field)
{
	return __atomic_load_n(field, __ATOMIC_RELAXED);
}

/** cpuidle_param_load_bool() - one relaxed load of a tunable's field */
static inline bool cpuidle_param_load_bool(const bool *field)
{
	return __atomic_load_n(field, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* CPUIDLE_GOVERNOR_H */
