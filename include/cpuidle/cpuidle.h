/* SPDX-License-Identifier: MIT */
/*
 * cpuidle.h - the cpuidle framework: systems, drivers, devices, governors.
 *
 * The names and rules are those of the 2.6.34 cpuidle subsystem as described
 * in "The cpuidle subsystem" (LWN, 2010), extended the way later kernels did
 * (nanosecond times, above/below/rejected counters, per-state disable, the
 * polling state's time limit, tick stop/retain).
 *
 * The one structural difference from the kernel: there is no global state.
 * Everything lives in a struct cpuidle_system, passed as the first argument
 * of the article's calls, so several simulated machines can run side by
 * side in one process.  Time and the next timer event come from the
 * embedding (the program that owns the system), never from a clock read by
 * the library.
 *
 * The interface is split like the kernel's: SYSTEM, DRIVER/DEVICE and
 * IDLE PATH here; the GOVERNOR interface and the governors' tunables in
 * cpuidle/governor.h, decision tracing in cpuidle/decision.h, both
 * included at the end of this one.
 */
#ifndef CPUIDLE_CPUIDLE_H
#define CPUIDLE_CPUIDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CPUIDLE_API
#define CPUIDLE_API __attribute__((visibility("default")))
#endif

#define CPUIDLE_STATE_MAX	10	/* as in Linux >= 3.x (2.6.34 had 8) */
#define CPUIDLE_NAME_LEN	16
#define CPUIDLE_DESC_LEN	32
#define CPUIDLE_MAX_CPUS	4096	/* highest cpu number + 1 */

/* "No timer pending", "infinitely long": the kernel's KTIME_MAX. */
#define CPUIDLE_TIME_INFINITE	INT64_MAX

#define CPUIDLE_NSEC_PER_USEC	1000LL
#define CPUIDLE_NSEC_PER_SEC	1000000000LL

/*
 * The longest exit latency or target residency a state may have, in ns:
 * what the us fields (unsigned int) can hold, about 71.6 minutes, as a
 * platform file's times.  Anything longer is no idle state.
 */
#define CPUIDLE_STATE_TIME_MAX_NS	((int64_t)UINT32_MAX * CPUIDLE_NSEC_PER_USEC)

/*
 * State flags.  The article's flags keep the article's values; the modern
 * kernel's flags, whose bits collide with those, take bits the article left
 * free.  CPUIDLE_FLAG_POLLING is the modern name of CPUIDLE_FLAG_POLL.
 */
#define CPUIDLE_FLAG_TIME_VALID	0x0001	/* residency can be measured */
#define CPUIDLE_FLAG_CHECK_BM	0x0002	/* not with bus-master DMA active */
#define CPUIDLE_FLAG_POLL	0x0010	/* busy poll: no latency, no saving */
#define CPUIDLE_FLAG_SHALLOW	0x0020	/* low latency, small saving */
#define CPUIDLE_FLAG_BALANCED	0x0040	/* intermediate */
#define CPUIDLE_FLAG_DEEP	0x0080	/* high latency, large saving */
#define CPUIDLE_FLAG_POLLING	CPUIDLE_FLAG_POLL
#define CPUIDLE_FLAG_TIMER_STOP	0x0200	/* local timer stops in this state */
#define CPUIDLE_FLAG_UNUSABLE	0x0400	/* disabled by the driver */
#define CPUIDLE_FLAG_OFF	0x0800	/* disabled by default, user may enable */
/*
 * A domain (cluster, package) state: it takes effect only while every CPU
 * of the cluster is in one; otherwise the CPU is effectively in the
 * deepest ordinary state.  Set by the table driver for a platform's
 * domain states (cpuidle_platform_state_is_domain()); no kernel flag.
 */
#define CPUIDLE_FLAG_DOMAIN	0x1000
#define CPUIDLE_DRIVER_FLAGS_MASK 0xFFFF0000u	/* driver-private bits */

/* Bits of cpuidle_state.disable (modern states_usage[].disable). */
#define CPUIDLE_STATE_DISABLED_BY_USER		0x1u
#define CPUIDLE_STATE_DISABLED_BY_DRIVER	0x2u

struct cpuidle_system;
struct cpuidle_device;
struct cpuidle_governor;

/* ----------------------------------------------------------------------
 * SYSTEM interface
 */

/* A time on the embedding's clock that is not known (struct cpuidle_sibling). */
#define CPUIDLE_TIME_UNKNOWN	(-1LL)

/**
 * struct cpuidle_sibling - another CPU of a device's cluster, as it is at
 *	the asking CPU's now (what the embedding knows of the present and
 *	the past, never of the future)
 * @cpu: its number
 * @idle: it is in an idle state now; false while it runs, and where the
 *	embedding cannot tell
 * @state: the index, in its own table, of the state it is in; -1 unless
 *	@idle
 * @idle_since_ns: when its idle period began, on the embedding's clock:
 *	its first idle entry since it last ran (a re-entry after a tick or a
 *	polling limit that ran nothing keeps it); CPUIDLE_TIME_UNKNOWN unless
 *	@idle
 * @entered_ns: when it entered @state (its last selection);
 *	CPUIDLE_TIME_UNKNOWN unless @idle
 * @timer_ns: its next timer event as known at that entry (its sleep
 *	length added to @entered_ns); CPUIDLE_TIME_INFINITE if it had none or
 *	none was known; CPUIDLE_TIME_UNKNOWN unless @idle
 * @expected_ns: when its governor expected it to wake, as published at
 *	that selection (cpuidle_publish_expected_stay(), added to
 *	@entered_ns); CPUIDLE_TIME_UNKNOWN if it published none, or unless
 *	@idle
 */
struct cpuidle_sibling {
	unsigned int cpu;
	bool idle;
	int state;
	int64_t idle_since_ns;
	int64_t entered_ns;
	int64_t timer_ns;
	int64_t expected_ns;
};

/**
 * struct cpuidle_cluster_energy - what a cluster's idle states cost, where
 *	the platform declares it (an energy model, as a platform description
 *	may give one; the kernel's sysfs shows none of it for intel_idle or
 *	PSCI states)
 * @idle_power_mw: power the cluster shares (caches, interconnect) while
 *	it is not in a domain state
 * @state_power_mw: per state of the CPUs' table, one CPU's power in it
 * @transition_nj: per state, the energy of one entry and exit
 * @domain_power_mw: per state, the cluster's shared power while all its
 *	CPUs are in domain states and this is the shallowest of them; -1 for
 *	an ordinary state
 */
struct cpuidle_cluster_energy {
	int idle_power_mw;
	int state_power_mw[CPUIDLE_STATE_MAX];
	int64_t transition_nj[CPUIDLE_STATE_MAX];
	int domain_power_mw[CPUIDLE_STATE_MAX];
};

/**
 * struct cpuidle_cluster_view - a device's cluster, as the embedding sees
 *	it at the device's now
 * @now_ns: the asking CPU's now, on the clock of the siblings' times
 * @energy: the cluster's energy model, or NULL where none is declared
 */
struct cpuidle_cluster_view {
	int64_t now_ns;
	const struct cpuidle_cluster_energy *energy;
};

/**
 * struct cpuidle_system_ops - what the embedding supplies to a system
 * @clock_ns: current time in ns on @dev's clock (monotonic).  Called around
 *	every enter() to measure residency.  Required.
 * @bm_active: optional; true while bus-master (DMA) activity is going on.
 *	Asked only when a CPUIDLE_FLAG_CHECK_BM state is about to be entered.
 * @kick: optional; make @dev leave its idle state now (the kernel's
 *	wake_up_idle_cpu).  Called on pause, on CPU latency QoS changes and on
 *	changes of the device's resume latency.
 * @broadcast_enter: optional; @dev is about to enter a state whose local
 *	timer stops (CPUIDLE_FLAG_TIMER_STOP): return 0 if a broadcast timer
 *	will wake it, a negative errno if none can (the kernel's
 *	tick_broadcast_enter()).  The core then enters the deepest enabled
 *	state without that flag and no slower to leave instead.  Without this
 *	op a broadcast timer is assumed.
 * @broadcast_exit: optional; undoes a successful @broadcast_enter after
 *	the stay.
 * @cluster_view: optional; describe @dev's cluster at @dev's now: fill
 *	@view and up to @max of @dev's siblings (the other CPUs of its
 *	cluster that the embedding runs) in @sib, and return how many
 *	siblings there are (0 for a CPU alone in its cluster), or a negative
 *	errno.  Only the present and the past at @dev's now: a sibling whose
 *	idle entry lies after it looks running.  Asked by governors, from
 *	their select(), through cpuidle_cluster_view().
 */
struct cpuidle_system_ops {
	uint64_t (*clock_ns)(struct cpuidle_device *dev, void *ctx);
	bool (*bm_active)(struct cpuidle_system *sys, void *ctx);
	void (*kick)(struct cpuidle_device *dev, void *ctx);
	int (*broadcast_enter)(struct cpuidle_device *dev, void *ctx);
	void (*broadcast_exit)(struct cpuidle_device *dev, void *ctx);
	int (*cluster_view)(struct cpuidle_device *dev, struct cpuidle_cluster_view *view,
			    struct cpuidle_sibling *sib, unsigned int max, void *ctx);
};

/* cpuidle_system_opts.flags */
#define CPUIDLE_SYS_NO_BUILTIN_GOVERNORS	0x1u

/**
 * struct cpuidle_system_opts - options for cpuidle_system_create()
 * @sz: sizeof(struct cpuidle_system_opts), so the struct can grow
 * @ops: the embedding's callbacks (copied)
 * @ctx: passed back to every op
 * @tick_hz: the tick rate (CONFIG_HZ); 0 means 250
 * @governor: governor chosen by name (the kernel's cpuidle.governor=),
 *	or NULL to let the highest rating win
 * @flags: CPUIDLE_SYS_*
 */
struct cpuidle_system_opts {
	size_t sz;
	struct cpuidle_system_ops ops;
	void *ctx;
	unsigned int tick_hz;
	const char *governor;
	unsigned int flags;
};

/**
 * cpuidle_system_create() - create an independent cpuidle system
 * @opts: options; @opts->sz must be set
 * @out: the new system
 *
 * The system starts with the built-in governors registered (ladder, menu,
 * ...) unless CPUIDLE_SYS_NO_BUILTIN_GOVERNORS is set, no driver and no
 * device.
 *
 * Return: 0 on success (*@out is written only then); -EINVAL if an
 * argument is NULL, @opts->sz is too small, @opts->ops.clock_ns is NULL,
 * @opts->tick_hz is above 10000, @opts->governor is empty or longer than
 * CPUIDLE_NAME_LEN - 1, or @opts->flags has an unknown bit; -ENOMEM on
 * allocation failure.
 */
CPUIDLE_API int cpuidle_system_create(const struct cpuidle_system_opts *opts,
				      struct cpuidle_system **out);

/**
 * cpuidle_system_destroy() - free a system
 * @sys: the system, or NULL
 *
 * Devices still registered are unregistered (their governor disabled); the
 * driver is unregistered.  No idle call may be running.
 */
CPUIDLE_API void cpuidle_system_destroy(struct cpuidle_system *sys);

/**
 * cpuidle_system_ctx() - the embedding's context pointer of a system
 * @sys: the system
 *
 * Return: the @ctx given at creation; NULL for a NULL @sys.
 */
CPUIDLE_API void *cpuidle_system_ctx(const struct cpuidle_system *sys);

/**
 * cpuidle_tick_nsec() - length of one tick of the system (TICK_NSEC)
 * @sys: the system
 *
 * Return: 1e9 / tick_hz, in ns; 0 for a NULL @sys.
 */
CPUIDLE_API int64_t cpuidle_tick_nsec(const struct cpuidle_system *sys);

/* ----------------------------------------------------------------------
 * DRIVER and DEVICE interface
 */

/**
 * struct cpuidle_state - one idle state of one CPU: its constants
 * @name: short name, shown in the attribute tree
 * @desc: description
 * @driver_data: for the driver's private use
 * @flags: CPUIDLE_FLAG_*
 * @exit_latency: worst-case time to come back, in us
 * @power_usage: power drawn in this state, in mW (-1: unknown)
 * @target_residency: minimum stay that makes entering worth it, in us
 * @enter: put the CPU of @dev into @state.  May use another state of @dev;
 *	it then stores that state in @dev->last_state.  Returns >= 0 on
 *	success (the article's "time spent in us"; the core measures the
 *	residency itself, in ns, with the embedding's clock) or a negative
 *	errno when the state could not be entered (counted as rejected).
 * @exit_latency_ns: @exit_latency with ns precision
 * @target_residency_ns: @target_residency with ns precision
 *
 * A driver sets either the us fields or the ns fields; at registration the
 * other is derived (ns win when both are set).
 *
 * The article (2.6.34) kept every state in the device, counters included,
 * a copy per CPU; Linux since 3.2 holds the states once, in the driver,
 * and the counters apart, in dev->states_usage[] (struct
 * cpuidle_state_usage).  So does this library: dev->states points at the
 * driver's table (or at one table per cluster), and a state holds what
 * does not change once it is registered.
 */
struct cpuidle_state {
	char name[CPUIDLE_NAME_LEN];
	char desc[CPUIDLE_DESC_LEN];
	void *driver_data;

	unsigned int flags;
	unsigned int exit_latency;	/* in US */
	int power_usage;		/* in mW */
	unsigned int target_residency;	/* in US */

	int (*enter)(struct cpuidle_device *dev, struct cpuidle_state *state);

	int64_t exit_latency_ns;
	int64_t target_residency_ns;
};

/**
 * struct cpuidle_state_usage - one state's counters on one CPU (the
 * kernel's struct cpuidle_state_usage, dev->states_usage[])
 * @disable: CPUIDLE_STATE_DISABLED_BY_* bits; any bit set keeps every
 *	governor away from the state.  Change it through the attribute tree or
 *	cpuidle_disable_state().
 * @usage: number of successful entries
 * @time: total residency in us (counted for every state, as in the kernel)
 * @time_ns: @time with ns precision
 * @above: entries whose residency was below the state's target residency
 *	while an enabled shallower state existed ("too deep")
 * @below: entries whose residency minus the state's exit latency reached
 *	the target residency of the next enabled deeper state ("too shallow")
 * @rejected: entries refused by the state's enter()
 *
 * The core keeps them; the attribute tree shows them
 * (cpuN/cpuidle/stateK/usage, ...).
 */
struct cpuidle_state_usage {
	unsigned int disable;
	unsigned long long usage;
	unsigned long long time;	/* in US */
	uint64_t time_ns;
	uint64_t above;
	uint64_t below;
	uint64_t rejected;
};

/**
 * struct cpuidle_driver - the one driver of a system
 * @name: shown as cpuidle/current_driver
 * @owner: free for the driver's use (the kernel's module pointer)
 * @states: optional state table; the devices registered with state_count 0
 *	point at it (held once, as Linux's drv->states)
 * @state_count: number of entries in @states (0: none)
 * @safe_state_index: index of the template's safe state (see
 *	cpuidle_device.safe_state); -1 for the default
 * @governor: optional preferred governor, switched to at registration and
 *	left again at unregistration (as cpuidle-haltpoll does)
 */
struct cpuidle_driver {
	char name[CPUIDLE_NAME_LEN];
	void *owner;

	struct cpuidle_state states[CPUIDLE_STATE_MAX];
	int state_count;
	int safe_state_index;
	const char *governor;
};

struct cpuidle_idle_ctx;

/**
 * struct cpuidle_device - one CPU
 * @cpu: the CPU number, unique in the system
 * @last_residency: residency of the last idle period, us
 * @state_count: number of valid @states
 * @states: the idle states, shallowest first: NULL (or @state_count 0) at
 *	registration takes the driver's table, drv->states, held once for
 *	every such device; a device of states of its own (a cluster's, as a
 *	driver of per-CPU tables gives) points at that table, which must stay
 *	in place while the device is registered and which registration
 *	completes (the derived us or ns fields) where it is valid
 * @states_usage: their counters, one per state (the core's)
 * @last_state: the state actually used by the last enter()
 * @governor_data: the governor's per-CPU data, allocated by the core with
 *	the governor's @governor_data_size and zeroed before its enable()
 * @safe_state: deepest state safe to enter while DMA is active; used instead
 *	of a CPUIDLE_FLAG_CHECK_BM state when bus mastering is reported.  NULL
 *	at registration picks the deepest state below the first CHECK_BM one.
 * @last_residency_ns: @last_residency in ns; 0 after a rejected entry
 * @last_state_idx: the governor's record of the last state (kernel
 *	dev->last_state_idx); the core sets it to -1 at enable
 * @poll_time_limit: set by a polling state's enter() when it stopped
 *	because its time limit ran out rather than because work arrived
 * @poll_limit_ns: polling time limit; 0 = derive (see cpuidle_poll_time())
 * @embed_data: free for the embedding's use
 *
 * The fields after @embed_data belong to the core.
 */
struct cpuidle_device {
	unsigned int cpu;

	int last_residency;
	int state_count;
	struct cpuidle_state *states;
	struct cpuidle_state_usage states_usage[CPUIDLE_STATE_MAX];
	struct cpuidle_state *last_state;

	void *governor_data;
	struct cpuidle_state *safe_state;

	uint64_t last_residency_ns;
	int last_state_idx;
	bool poll_time_limit;
	uint64_t poll_limit_ns;
	void *embed_data;

	/* private to the core */
	struct cpuidle_system *sys;
	struct cpuidle_idle_ctx *idle_ctx;
	const int32_t *qos_latency_us;
	int64_t tick_nsec;
	bool registered;
	bool enabled;
	int32_t resume_latency_us;
	int in_idle;
};

/*
 * A device's resume latency limit without a constraint (the kernel's
 * PM_QOS_RESUME_LATENCY_NO_CONSTRAINT).
 */
#define CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT	INT32_MAX

/**
 * cpuidle_set_resume_latency() - a latency limit for one device only
 * @dev: a registered device
 * @us: the limit in us, 0 or more; CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT
 *	for none (the value at registration)
 *
 * The kernel's per-CPU resume latency QoS (dev_pm_qos, sysfs
 * power/pm_qos_resume_latency_us): the device's governor obeys the smaller
 * of this and the CPU latency QoS aggregate (cpuidle_governor_latency_req()).
 * One value per device, as the sysfs file's request.  Any thread may call
 * it.  A change kicks the device if it is idle (the system's kick op, as a
 * CPU latency QoS change kicks every idle device), so it leaves the state
 * chosen under the old limit and selects again under the new one; without
 * a kick op, the change takes effect at the device's next selection.
 *
 * Return: 0 on success; -EINVAL for a NULL @dev or a negative @us;
 * -ENOENT if @dev is not registered.
 */
CPUIDLE_API int cpuidle_set_resume_latency(struct cpuidle_device *dev, int32_t us);

/**
 * cpuidle_resume_latency() - @dev's resume latency limit in us
 * @dev: a registered device
 *
 * Return: the limit, CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT for none, or
 * -EINVAL for a NULL @dev, -ENOENT if @dev is not registered.
 */
CPUIDLE_API int32_t cpuidle_resume_latency(const struct cpuidle_device *dev);

/**
 * cpuidle_register_driver() - install the system's one driver
 * @sys: the system
 * @drv: the driver; must stay valid until unregistered
 *
 * Normalises the state template's us/ns fields.  If @drv->governor names a
 * registered governor, it becomes the current one.
 *
 * Return: 0 on success; -EINVAL if @sys or @drv is NULL, the name is empty
 * or unterminated, @drv->state_count is negative or above
 * CPUIDLE_STATE_MAX, or a template is given (state_count > 0) and is
 * invalid (see cpuidle_register_device(); also a @safe_state_index below
 * -1 or not below @state_count); -EBUSY if a driver is already registered
 * (@drv itself included).  On failure @drv is left untouched.
 */
CPUIDLE_API int cpuidle_register_driver(struct cpuidle_system *sys,
					struct cpuidle_driver *drv);

/**
 * cpuidle_unregister_driver() - remove the driver
 * @sys: the system
 * @drv: the registered driver
 *
 * Return: 0 on success; -EINVAL if an argument is NULL; -ENOENT if @drv is
 * not the registered driver; -EBUSY while devices are registered.
 */
CPUIDLE_API int cpuidle_unregister_driver(struct cpuidle_system *sys,
					  struct cpuidle_driver *drv);

/**
 * cpuidle_register_device() - register and enable one CPU
 * @sys: the system
 * @dev: the device: @cpu and @states/@state_count filled (or state_count 0
 *	to take the driver's table); must stay valid until unregistered, and
 *	so must a table of its own
 *
 * Validates the states: 1..CPUIDLE_STATE_MAX of them, each with enter(), a
 * name and a terminated desc, exit latency and target residency not
 * decreasing with the index, none negative or above
 * CPUIDLE_STATE_TIME_MAX_NS, us and ns fields agreeing where both are set;
 * a CHECK_BM state needs a safe state without CHECK_BM.
 * The driver's table was validated when the driver was registered; a
 * table of the device's own is validated here and completed in place (the
 * derived us or ns fields).  Applies CPUIDLE_FLAG_UNUSABLE (disabled by
 * driver) and CPUIDLE_FLAG_OFF (disabled by user) to the device's
 * states_usage[].  Zeroes the counters, then enables the device under the
 * current governor.
 *
 * Return: 0 on success; -EINVAL if an argument is NULL, @cpu is not below
 * CPUIDLE_MAX_CPUS, @state_count is negative or above CPUIDLE_STATE_MAX,
 * is 0 while the driver has no template, or the states or @safe_state are
 * invalid; -ENODEV if no driver is registered; -EEXIST if @dev (in this
 * system or another) or its @cpu is already registered; -ENOMEM; or the
 * governor's enable() error.  On failure @dev and its table are left as
 * they were.
 */
CPUIDLE_API int cpuidle_register_device(struct cpuidle_system *sys,
					struct cpuidle_device *dev);

/**
 * cpuidle_unregister_device() - disable and unregister one CPU
 * @sys: the system
 * @dev: a registered device
 *
 * Return: 0 on success; -EINVAL if an argument is NULL; -ENOENT if @dev is
 * not registered in @sys.
 */
CPUIDLE_API int cpuidle_unregister_device(struct cpuidle_system *sys,
					  struct cpuidle_device *dev);

/**
 * cpuidle_pause_and_lock() - stop all idle activity and take the lock
 * @sys: the system
 *
 * Waits until no CPU is inside the idle path (kicking those that are) and
 * keeps every later idle call out until cpuidle_resume_and_unlock().
 * Held by the calling thread; the other control calls made by that thread
 * meanwhile do not block on it.
 */
CPUIDLE_API void cpuidle_pause_and_lock(struct cpuidle_system *sys);

/**
 * cpuidle_resume_and_unlock() - undo cpuidle_pause_and_lock()
 * @sys: the system, paused by the calling thread
 */
CPUIDLE_API void cpuidle_resume_and_unlock(struct cpuidle_system *sys);

/**
 * cpuidle_enable_device() - enable a registered device
 * @dev: the device
 *
 * Only while the system is paused by the calling thread.  Allocates the
 * governor's per-CPU data and calls its enable().
 *
 * Return: 0 on success or if already enabled; -EINVAL if @dev is NULL;
 * -ENOENT if @dev is not registered; -EPERM if the system is not paused by
 * the caller; -ENODEV if the system has no governor; -ENOMEM; or the
 * governor's enable() error.
 */
CPUIDLE_API int cpuidle_enable_device(struct cpuidle_device *dev);

/**
 * cpuidle_disable_device() - disable a registered device
 * @dev: the device
 *
 * Only while the system is paused by the calling thread.  Its idle calls
 * then return -ENODEV (the embedding falls back to its default idle).
 * The article's version returns nothing; ours reports misuse.
 *
 * Return: 0 on success or if already disabled; -EINVAL if @dev is NULL;
 * -ENOENT if not registered; -EPERM if not paused by the caller.
 */
CPUIDLE_API int cpuidle_disable_device(struct cpuidle_device *dev);

/**
 * cpuidle_disable_state() - set or clear a disable bit of one state
 * @dev: a registered device
 * @index: the state
 * @reason: CPUIDLE_STATE_DISABLED_BY_USER or _BY_DRIVER
 * @disable: set (true) or clear (false) that bit
 *
 * Takes effect at the device's next selection.  Resets the device's cached
 * poll time limit, as every sysfs state write does.
 *
 * Return: 0 on success; -EINVAL for a NULL @dev, an out-of-range @index or
 * an unknown @reason; -ENOENT if @dev is not registered.
 */
CPUIDLE_API int cpuidle_disable_state(struct cpuidle_device *dev, int index,
				      unsigned int reason, bool disable);

/**
 * cpuidle_get_device() - the device registered for a CPU
 * @sys: the system
 * @cpu: the CPU number
 *
 * Return: the device, or NULL: errno EINVAL for a NULL @sys, ENODEV if no
 * device is registered for @cpu.
 */
CPUIDLE_API struct cpuidle_device *cpuidle_get_device(struct cpuidle_system *sys,
						      unsigned int cpu);

/**
 * cpuidle_driver_name() - name of the registered driver
 * @sys: the system
 *
 * Return: the name, or NULL if no driver is registered or @sys is NULL.
 */
CPUIDLE_API const char *cpuidle_driver_name(struct cpuidle_system *sys);

/* ----------------------------------------------------------------------
 * IDLE PATH
 */

/**
 * struct cpuidle_idle_ctx - one idle entry's inputs and outputs
 * @sleep_length_ns: time from now to the next timer event with the tick
 *	stopped (tick_nohz_get_sleep_length()); CPUIDLE_TIME_INFINITE if none
 * @delta_tick_ns: time to the next event if the tick keeps running (at most
 *	the time to the next tick)
 * @tick_stopped: the tick is already stopped (tick_nohz_tick_stopped())
 * @got_tick: the tick ended this idle period (tick_nohz_idle_got_tick()).
 *	The embedding sets it at the latest from within the state's enter(),
 *	where the wake-up is known; governors read it in reflect().  The core
 *	leaves it alone.
 * @stop_tick: out: the tick should be stopped for this idle period
 * @selected: out: the index the governor selected
 * @entered: out: the index actually entered, or -1 if rejected
 * @expected_stay_ns: out: the idle time the governor expected from its
 *	selection on, as it published it (cpuidle_publish_expected_stay());
 *	CPUIDLE_TIME_UNKNOWN if it published none.  An embedding that
 *	describes clusters (cpuidle_system_ops.cluster_view) hands it on to
 *	the siblings' governors.
 */
struct cpuidle_idle_ctx {
	int64_t sleep_length_ns;
	int64_t delta_tick_ns;
	bool tick_stopped;
	bool got_tick;

	bool stop_tick;
	int selected;
	int entered;
	int64_t expected_stay_ns;
};

/**
 * cpuidle_idle_call() - one idle period of one CPU
 * @dev: the device, registered and enabled
 * @ctx: the embedding's view of timers and the tick; outputs written back
 *
 * Runs the kernel's cpuidle_idle_call(): governor select() -> CHECK_BM
 * demotion to the safe state, or TIMER_STOP demotion when no broadcast
 * timer is to be had -> the state's enter() between two readings of
 * the embedding's clock -> accounting (usage, time, above, below,
 * rejected, last_residency) -> governor reflect().  Lock-free; calls for
 * different devices may run concurrently, calls for one device may not.
 *
 * Return: the index entered (>= 0); -EINVAL if an argument is NULL;
 * -ENODEV if the device is not registered or not enabled, or no governor
 * is installed; -EAGAIN if the system is paused (the caller idles in its
 * default way); -EBUSY if another call is running on @dev; -ERANGE if the
 * governor's select() returned no valid index (nothing is entered or
 * counted); or the negative error of a rejecting enter().
 */
CPUIDLE_API int cpuidle_idle_call(struct cpuidle_device *dev,
				  struct cpuidle_idle_ctx *ctx);

/**
 * cpuidle_find_deepest_state() - the deepest usable state under a limit
 * @dev: the device
 * @max_latency_ns: the largest exit latency allowed
 * @forbidden_flags: states with any of these flags are skipped
 *
 * As the kernel's find_deepest_state(): among the enabled states above
 * state 0, the deepest whose exit latency is at most @max_latency_ns and
 * strictly above every shallower candidate's; state 0 if none qualifies.
 * Used when no governor may choose (a timer-stop state without broadcast,
 * idle injection).
 *
 * Return: the index, or -EINVAL for a NULL or unregistered @dev.
 */
CPUIDLE_API int cpuidle_find_deepest_state(struct cpuidle_device *dev,
					   int64_t max_latency_ns,
					   unsigned int forbidden_flags);

/**
 * cpuidle_poll_time() - time limit of the polling state for @dev, in ns
 * @dev: the device
 *
 * @dev->poll_limit_ns if set (haltpoll sets it); otherwise, as Linux 6.x:
 * TICK_NSEC/16, lowered to the target residency of the first enabled
 * non-polling state whose residency is at least 10 us; cached in
 * @dev->poll_limit_ns.
 *
 * Return: the limit in ns; 0 for a NULL @dev.
 */
CPUIDLE_API uint64_t cpuidle_poll_time(struct cpuidle_device *dev);

#ifdef __cplusplus
}
#endif

#include "governor.h"
#include "decision.h"

#endif /* CPUIDLE_CPUIDLE_H */
