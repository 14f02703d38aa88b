/* SPDX-License-Identifier: MIT */
/*
 * uidle.h - an idle engine for user-space threads, governed like the kernel.
 *
 * A thread waits until a 32-bit word changes from an expected value, or a
 * deadline passes; another thread changes the word and wakes it.  How the
 * waiting thread idles meanwhile is an idle-state choice: a busy poll, a
 * PAUSE spin, UMWAIT (Intel WAITPKG) or MWAITX (AMD), or a futex sleep in
 * the kernel.  The engine makes that choice the kernel's way: an engine is
 * a struct cpuidle_system whose one driver's states really idle the
 * calling thread, each waiting thread is one struct cpuidle_device of it,
 * and every wait runs the library's idle path (cpuidle_idle_call()), so
 * the library's governors (menu, teo, ladder, haltpoll, hazard, or one of
 * your own) choose from the predicted wait, pm_qos latency requests bound
 * the choice, and usage/time/above/below are kept per waiter and state in
 * the attribute tree ("cpuN/cpuidle/stateK/..." with N the waiter's
 * number, w->dev.cpu).
 *
 * The states are measured when the engine is created (calibration: exit
 * latency and CPU cost of each, a few tens of ms), and their target
 * residencies derived from those numbers; see libcpuidle-uidle(3).
 *
 *	struct uidle_engine *e;
 *	struct uidle_waiter w;		   (one per waiting thread; no zeroing needed)
 *	struct uidle_engine_opts opts = { .sz = sizeof(opts), .governor = "teo" };
 *
 *	if (uidle_engine_create(&opts, &e) || uidle_waiter_init(e, &w))
 *		...					   (a negative errno: see each call)
 *	while ((v = __atomic_load_n(&word, __ATOMIC_ACQUIRE)) == old)
 *		uidle_wait(&w, &word, old, UIDLE_NO_DEADLINE);
 *	...
 *	__atomic_store_n(&word, new, __ATOMIC_RELEASE);	   (another thread)
 *	uidle_wake(e, &word, 1);
 *
 * No call here is async-signal-safe (see uidle_wake()).  After fork(), the
 * child may use no engine it inherited (their threads, locks and sleepers
 * stayed in the parent): it may only exec, or create engines of its own.
 */
#ifndef CPUIDLE_UIDLE_H
#define CPUIDLE_UIDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cpuidle.h"

#ifdef __cplusplus
extern "C" {
#endif

/* uidle_wait(): no deadline. */
#define UIDLE_NO_DEADLINE	CPUIDLE_TIME_INFINITE

/* uidle_wake(): every waiter. */
#define UIDLE_WAKE_ALL		INT32_MAX

/* The most waiters one engine holds at once (their numbers are 0..max-1). */
#define UIDLE_MAX_WAITERS	CPUIDLE_MAX_CPUS

/**
 * enum uidle_state_kind - the ways a thread can idle, shallowest first
 * @UIDLE_STATE_POLL: busy poll, plain loads of the word ("POLL")
 * @UIDLE_STATE_PAUSE: a spin with the CPU's relax hint between loads: PAUSE
 *	on x86, YIELD on arm64 ("PAUSE")
 * @UIDLE_STATE_UMWAIT: UMONITOR/UMWAIT on the word's cache line, Intel
 *	WAITPKG (CPUID.7.0:ECX bit 5), C0.2 where the OS allows it ("UMWAIT")
 * @UIDLE_STATE_MWAITX: MONITORX/MWAITX on the word's cache line, AMD
 *	(CPUID 0x80000001 ECX bit 29) ("MWAITX")
 * @UIDLE_STATE_FUTEX: a sleep in the kernel (FUTEX_WAIT) until woken by
 *	uidle_wake() ("FUTEX")
 * @UIDLE_NR_STATE_KINDS: the number of kinds
 *
 * Every kind but FUTEX keeps the thread on its CPU; those are polling
 * states in the kernel's sense (CPUIDLE_FLAG_POLLING), bounded by the poll
 * time limit, cpuidle_poll_time().
 */
enum uidle_state_kind {
	UIDLE_STATE_POLL,
	UIDLE_STATE_PAUSE,
	UIDLE_STATE_UMWAIT,
	UIDLE_STATE_MWAITX,
	UIDLE_STATE_FUTEX,
	UIDLE_NR_STATE_KINDS
};

/* A set of kinds, for uidle_engine_opts.states and uidle_engine_info. */
#define UIDLE_STATE_BIT(kind)	(1u << (kind))
#define UIDLE_STATES_ALL	((1u << UIDLE_NR_STATE_KINDS) - 1)

/**
 * struct uidle_state_cost - what one kind of state costs, measured or given
 * @exit_latency_ns: the wake-up latency the state adds to a busy poll's:
 *	the median, over a calibration's rounds, of the time from the store
 *	to the waiter running again, less the busy poll's median; -1 in an
 *	override: not given (the built-in default is used)
 * @cpu_ppm: CPU time burnt per unit of time in the state, in parts per
 *	million of one CPU (1000000: the thread holds its CPU throughout)
 * @entry_cpu_ns: CPU time of one entry and exit not proportional to the
 *	stay, both sides together: the waiter's (a futex sleep's two
 *	system calls and two context switches) and the waker's (FUTEX_WAKE)
 */
struct uidle_state_cost {
	int64_t exit_latency_ns;
	uint32_t cpu_ppm;
	int64_t entry_cpu_ns;
};

/**
 * struct uidle_calibration - the numbers a state table is built from
 * @cost: per kind (enum uidle_state_kind); kinds the CPU lacks are ignored
 * @tsc_khz: the TSC's rate, for UMWAIT's absolute and MWAITX's relative
 *	TSC timers; 0 in an override: measured if one of them is built
 *
 * Read the numbers an engine measured with uidle_engine_calibration(); give
 * them to another engine in uidle_engine_opts.calibration to skip the
 * measurement (tests do, and so can a program that starts many engines).
 */
struct uidle_calibration {
	struct uidle_state_cost cost[UIDLE_NR_STATE_KINDS];
	uint64_t tsc_khz;
};

/**
 * typedef uidle_cpuid_fn - a CPUID instruction, for tests
 * @leaf: EAX in
 * @subleaf: ECX in
 * @regs: out: EAX, EBX, ECX, EDX
 * @ctx: uidle_engine_opts.cpuid_ctx
 *
 * Return: 0, or a negative errno if the leaf does not exist.
 */
typedef int (*uidle_cpuid_fn)(uint32_t leaf, uint32_t subleaf, uint32_t regs[4], void *ctx);

/* uidle_engine_opts.flags */
#define UIDLE_ENGINE_NO_CALIBRATE	0x1u	/* no measuring: override, else defaults */

/**
 * struct uidle_engine_opts - options for uidle_engine_create()
 * @sz: sizeof(struct uidle_engine_opts), so the struct can grow
 * @governor: the governor by name (menu, teo, ladder, haltpoll, hazard, or a
 *	port by kernel release such as teo@7.1: cpuidle_versioned_governors()),
 *	or NULL for the highest rating (menu); switch later with
 *	cpuidle_switch_governor() on uidle_engine_system().  haltpoll only
 *	chooses between states 0 and 1, so it governs only a table whose
 *	state 1, if any, leaves the CPU (POLL and FUTEX, or POLL alone): with
 *	a spinning state 1 an idle waiter would spin until woken.  Such a
 *	table is refused with haltpoll at creation (-EINVAL), and a switch to
 *	haltpoll fails with -EOPNOTSUPP (the old governor stays); with no
 *	waiter the switch succeeds but uidle_waiter_init() fails with
 *	-EOPNOTSUPP while haltpoll governs.
 * @tick_hz: the rate of the engine's tick, which the governors reason
 *	about (TICK_NSEC) and from which the poll time limit derives; 0: 250
 *	(the library's CONFIG_HZ).  The engine never interrupts a stay at a
 *	tick: see libcpuidle-uidle(3).
 * @states: the kinds to consider (UIDLE_STATE_BIT() set), 0 for all; a
 *	kind the CPU lacks is left out whatever this says, but if every kind
 *	asked for other than POLL is lacking, the engine is not built
 *	(-EOPNOTSUPP) rather than left to busy-poll: ask for POLL alone for
 *	that.  With @governor "haltpoll" and @states 0 the table is the
 *	cpuidle-haltpoll driver's shape: POLL and FUTEX only.  POLL is always
 *	kept: it is state 0.
 * @flags: UIDLE_ENGINE_*
 * @calibration: numbers to use instead of measuring (copied); NULL to
 *	measure
 * @cpuid: replaces the CPUID instruction for detection (tests).  An
 *	injected result can only take instructions away: a kind is built
 *	only if the real CPU has it too, so no state can ever fault.
 * @cpuid_ctx: passed to @cpuid
 * @umwait_control: the directory holding WAITPKG's OS limits (max_time,
 *	enable_c02); NULL: /sys/devices/system/cpu/umwait_control
 */
struct uidle_engine_opts {
	size_t sz;
	const char *governor;
	unsigned int tick_hz;
	unsigned int states;
	unsigned int flags;
	const struct uidle_calibration *calibration;
	uidle_cpuid_fn cpuid;
	void *cpuid_ctx;
	const char *umwait_control;
};

struct uidle_engine;

/**
 * struct uidle_wait_ctx - the part of a waiter the wait and wake protocol
 *	works on; private to the engine
 * @addr: the word waited on, NULL between waits
 * @expected: its value that means "keep waiting"
 * @kick: set to make the waiter leave its state (the kernel's kick)
 * @park: the futex word of a sleeping waiter: 1 while parked
 * @next: the bucket's list of parked waiters
 * @prev: likewise
 */
struct uidle_wait_ctx {
	const uint32_t *addr;
	uint32_t expected;
	int kick;
	uint32_t park;
	struct uidle_wait_ctx *next;
	struct uidle_wait_ctx *prev;
};

/**
 * struct uidle_waiter - one waiting thread: one device of the engine
 * @dev: its device; @dev.cpu is the waiter's number N in the attribute
 *	tree ("cpuN/cpuidle/stateK/usage"), @dev.states its counters.  Read
 *	only.  The waiting thread updates the counters at every stay, without
 *	a lock: any other thread reads them through the attribute tree
 *	(cpuidle_attr_read()) or with atomic loads (__atomic_load_n(...,
 *	__ATOMIC_RELAXED)), never with plain reads (a data race); several
 *	counters read so are not one snapshot.
 *
 * The memory belongs to the caller and must stay in place from
 * uidle_waiter_init() to uidle_waiter_fini().  The idle path writes the
 * device's counters at every stay: keep other threads' data off its cache
 * lines (a waiter next to what the waker reads costs a cache-line
 * transfer on every wake-up).  The fields after @dev are private to the
 * engine.
 */
struct uidle_waiter {
	struct cpuidle_device dev;

	/* private to the engine */
	struct uidle_engine *engine;
	struct uidle_wait_ctx wait;
	struct cpuidle_idle_ctx ctx;
	int64_t deadline_ns;
	int busy;
};

/**
 * uidle_engine_create() - create an idle engine
 * @opts: options; @opts->sz must be set
 * @out: the new engine
 *
 * Detects the wait instructions the CPU offers, measures each state kind
 * built (unless @opts->calibration or UIDLE_ENGINE_NO_CALIBRATE say
 * otherwise; two helper threads on two CPUs, under 100 ms), builds the
 * driver's state table from the numbers and registers it in a new
 * cpuidle system clocked by CLOCK_MONOTONIC.
 *
 * Return: 0 on success; -EINVAL if an argument is NULL, @opts->sz is too
 * small, @opts->tick_hz is above 10000, @opts->states has unknown bits or
 * @opts->flags unknown flags, @opts->governor is empty or longer than a
 * governor's name can be (CPUIDLE_NAME_LEN - 1), or an override's numbers
 * are out of range (an exit latency below -1, a negative CPU cost, a CPU
 * rate above 1000000 ppm, a time above about half of
 * CPUIDLE_STATE_TIME_MAX_NS), or @opts->governor is haltpoll and the table
 * would have a spinning state 1 (see @governor); -ENOENT if
 * @opts->governor names no built-in governor; -EOPNOTSUPP if
 * @opts->states asks for kinds other than POLL and this CPU has none of
 * them; -ENOMEM; -EAGAIN if the calibration threads cannot be started.
 * Every -EINVAL, -ENOENT and -EOPNOTSUPP comes before any measuring;
 * *@out is written only on success.
 */
CPUIDLE_API int uidle_engine_create(const struct uidle_engine_opts *opts,
				    struct uidle_engine **out);

/**
 * uidle_engine_destroy() - free an engine
 * @e: the engine, or NULL (nothing happens)
 *
 * Return: 0 on success or for NULL; -EBUSY while waiters are initialised
 * (nothing is freed).
 */
CPUIDLE_API int uidle_engine_destroy(struct uidle_engine *e);

/**
 * uidle_engine_system() - the cpuidle system behind an engine
 * @e: the engine
 *
 * For everything the library does with a system: pm_qos requests
 * (pm_qos_add_requirement(sys, PM_QOS_CPU_DMA_LATENCY, "name", 5) bounds
 * the exit latency of every state the waiters enter to 5 us: no futex
 * sleep; for one waiter only, cpuidle_set_resume_latency(&w->dev, 5)),
 * the attribute tree (cpuidle_attr_read()), governor switches
 * (cpuidle_switch_governor(); haltpoll only on its table, see
 * uidle_engine_opts), per-waiter state disabling.  Do not register
 * drivers or devices in it.
 *
 * An exit latency is a state's, measured with a CPU to spare; it bounds
 * the wake-up latency only while every spinning waiter has a CPU of its
 * own.  A limit that keeps waiters out of the futex sleep makes them hold
 * their CPUs while idle; when spinning waiters (and the waker) outnumber
 * the CPUs, the scheduler shares them, and a wake-up waits for the waker
 * or the waiter to be scheduled: milliseconds, not microseconds.  Keep the
 * waiters under such a limit fewer than the CPUs they may run on.  A
 * change of either limit kicks the waiters it concerns out of their
 * stays: they select again under it at once.
 *
 * Return: the system, or NULL if @e is NULL.
 */
CPUIDLE_API struct cpuidle_system *uidle_engine_system(struct uidle_engine *e);

/**
 * struct uidle_state_info - one state of an engine's table
 * @kind: its kind
 * @name: its name in the attribute tree
 * @exit_latency_ns: as registered (see struct uidle_state_cost)
 * @target_residency_ns: as registered, derived from the costs
 * @cost: the numbers it was built from
 * @measured: true if @cost was measured by this engine (false: given or
 *	default)
 */
struct uidle_state_info {
	enum uidle_state_kind kind;
	char name[CPUIDLE_NAME_LEN];
	int64_t exit_latency_ns;
	int64_t target_residency_ns;
	struct uidle_state_cost cost;
	bool measured;
};

/**
 * uidle_engine_state() - describe state @index of an engine's table
 * @e: the engine
 * @index: 0 .. number of states - 1
 * @out: filled
 *
 * Return: 0; -EINVAL if @e or @out is NULL; -ENOENT if @index is negative
 * or past the last state.
 */
CPUIDLE_API int uidle_engine_state(const struct uidle_engine *e, int index,
				   struct uidle_state_info *out);

/**
 * struct uidle_engine_info - what an engine found and built
 * @available: the kinds this CPU offers (after @cpuid injection)
 * @built: the kinds in the state table
 * @state_count: the number of states
 * @umwait_max_time: WAITPKG's OS limit per UMWAIT in TSC cycles (0:
 *	none); meaningful only where UMWAIT is built
 * @umwait_c02: whether C0.2 is allowed (else UMWAIT asks for C0.1)
 * @calibration_ns: the time calibration took (0 if none)
 */
struct uidle_engine_info {
	unsigned int available;
	unsigned int built;
	int state_count;
	uint32_t umwait_max_time;
	bool umwait_c02;
	int64_t calibration_ns;
};

/**
 * uidle_engine_info() - what an engine found and built
 * @e: the engine
 * @out: filled
 *
 * Return: 0; -EINVAL if an argument is NULL.
 */
CPUIDLE_API int uidle_engine_info(const struct uidle_engine *e, struct uidle_engine_info *out);

/**
 * uidle_engine_calibration() - the numbers an engine's table was built from
 * @e: the engine
 * @out: filled; kinds not built keep the built-in defaults
 *
 * Return: 0; -EINVAL if an argument is NULL.
 */
CPUIDLE_API int uidle_engine_calibration(const struct uidle_engine *e,
					 struct uidle_calibration *out);

/**
 * uidle_waiter_init() - make @w a waiter of @e: register its device
 * @e: the engine
 * @w: caller-owned memory that is not a waiter of any engine: anything
 *	else (uninitialised, zeroed, finalised) is fine, no zeroing needed
 *
 * The device takes the lowest free number and the engine's current
 * governor starts governing it.  Whether @w is a waiter already is asked
 * of the engines, not of @w's memory: its engine pointer counts only if it
 * names a live engine that lists @w, so garbage cannot fool the check.
 * A waiter moves to another engine by uidle_waiter_fini() first.
 *
 * Return: 0 on success; -EINVAL if an argument is NULL; -EBUSY if @w is
 * a waiter of @e or of any other engine (initialised and not finalised;
 * @w is left untouched); -ENOSPC if @e holds UIDLE_MAX_WAITERS waiters;
 * -ENOMEM; or the governor's enable() error (-EOPNOTSUPP from haltpoll on
 * a table it cannot govern, see uidle_engine_opts).
 */
CPUIDLE_API int uidle_waiter_init(struct uidle_engine *e, struct uidle_waiter *w);

/**
 * uidle_waiter_fini() - unregister a waiter
 * @w: a waiter that is not waiting
 *
 * Its statistics go with it.  @w may then be initialised again, in any
 * engine.
 *
 * The unregistration pauses the engine's system, as the kernel pauses
 * cpuidle to remove a CPU: every waiter of the engine in an idle period
 * is kicked out of its stay (a sleeper is woken from the kernel: a system
 * call on each side) and selects again; none returns from its wait.  The
 * cost grows with the number of waiters idle at the time, as for a
 * governor switch; initialise and finalise waiters when threads start and
 * end, not around each wait.
 *
 * Return: 0 on success; -EINVAL if @w is NULL; -ENOENT if @w is not a
 * waiter of any engine (zeroed, or finalised already: a second
 * uidle_waiter_fini() returns -ENOENT); -EBUSY while a uidle_wait() on it
 * runs.
 */
CPUIDLE_API int uidle_waiter_fini(struct uidle_waiter *w);

/**
 * uidle_wait() - idle until *@addr is no longer @expected, or @deadline_ns
 * @w: the calling thread's waiter
 * @addr: the word, 4-byte aligned
 * @expected: the value that means "keep waiting"
 * @deadline_ns: absolute CLOCK_MONOTONIC time in ns, or UIDLE_NO_DEADLINE
 *
 * Returns at once if the word already differs.  Otherwise runs idle
 * periods of @w's device (the governor selects a state from the predicted
 * wait; the time to @deadline_ns is its next timer) until a look at the
 * word finds it changed, or the deadline passes.  A look that finds the
 * word changed is an acquire load: what the waker wrote before its
 * release store of the word is visible.  As with a futex, a change undone
 * before the waiter looks again may go unseen; count, do not toggle.
 *
 * The word's other users need not know about the engine, except that
 * whoever changes it must call uidle_wake() afterwards for waiters that
 * sleep in the kernel.
 *
 * Not async-signal-safe: it takes a bucket lock of the engine to sleep;
 * see uidle_wake().
 *
 * Return: 0 when the word was seen changed; -ETIMEDOUT when the deadline
 * passed first (also for a deadline already past); -EINVAL if @w or @addr
 * is NULL or @addr is misaligned; -ENOENT if @w is not an initialised
 * waiter (zeroed or finalised; uninitialised memory is not allowed here);
 * -EBUSY if a wait on @w is already running; -ERANGE if the governor
 * returned an invalid state.
 */
CPUIDLE_API int uidle_wait(struct uidle_waiter *w, const uint32_t *addr, uint32_t expected,
			   int64_t deadline_ns);

/**
 * uidle_wake() - wake the waiters of @addr that sleep in the kernel
 * @e: the engine the waiters belong to
 * @addr: the word, changed by the caller just before
 * @n: the most waiters to wake from a kernel sleep (UIDLE_WAKE_ALL: all)
 *
 * Call it after each change of the word (any memory order: it starts with
 * a sequentially consistent read-modify-write of the bucket's count of
 * sleepers, a full barrier).  Waiters in a state that stays on the CPU see
 * the change themselves, however many; at most @n sleepers are woken, the
 * longest sleeping first.  When no waiter of the word's bucket sleeps, the
 * cost is that one locked instruction: no system call, no lock.
 *
 * Not async-signal-safe, nor is uidle_wait(): with a sleeper in the
 * bucket it takes the bucket's lock, and a signal handler that calls it
 * while its thread holds that lock (inside uidle_wait(), uidle_wake(), or
 * a kick) deadlocks that thread.  From a handler, only set a flag or
 * write to an eventfd or a self-pipe, and let a thread change the word
 * and call uidle_wake(); or take signals in a thread of their own
 * (sigwait(), signalfd()).  Blocking signals around the lock would cost
 * two system calls (about a microsecond each) on every sleep and every
 * wake that finds a sleeper.
 *
 * Return: the number of sleepers woken (0 when none was sleeping, or @n is
 * 0); -EINVAL if @e or @addr is NULL, @addr is misaligned (no wait can be
 * on it) or @n is negative.
 */
CPUIDLE_API int uidle_wake(struct uidle_engine *e, const uint32_t *addr, int32_t n);

#ifdef __cplusplus
}
#endif

#endif /* CPUIDLE_UIDLE_H */
