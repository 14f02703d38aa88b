/* SPDX-License-Identifier: MIT */
/*
 * lab.h - the governor lab as a library (libcpuidle-lab): open a trace,
 * replay it through governors on a modelled platform, against the
 * clairvoyant oracle, and read the results.  The cpuidle command is one
 * user of this API; a governor under study can be another, linked in
 * directly (pkg-config libcpuidle-lab).  libcpuidle-lab(3) documents it,
 * libcpuidle-replay(7) the rules of the replay.
 */
#ifndef CPUIDLE_LAB_H
#define CPUIDLE_LAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "conformance.h"
#include "cpuidle.h"
#include "decision.h"
#include "platform.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * DOC: the lab's API
 *
 * A &struct cpuidle_lab_trace holds the idle intervals of one recording
 * (or of a synthetic pattern), read once.  A &struct cpuidle_lab_run says
 * how to replay it: the platform, the governor (a built-in one by name,
 * the oracle, or a &struct cpuidle_governor of the caller's own), the
 * latency QoS and the attribute writes.  cpuidle_lab_replay() runs one,
 * cpuidle_lab_replay_many() and cpuidle_lab_batch_run() many on a pool of
 * threads, results in their order.  Nothing here keeps global state: any
 * number of traces and runs may be used from any threads, a trace shared
 * by runs on several threads at once.
 *
 * Functions return 0 or a negative errno; those that take @err fill it
 * with one line naming the file and place ("FILE:LINE: what").
 */

/* The clairvoyant governor's name: not a kernel governor, the lab's floor. */
#define CPUIDLE_LAB_ORACLE	"oracle"

/* ---- traces ---- */

struct cpuidle_lab_trace;

/*
 * Bytes of intervals a trace keeps in memory by default (~2.6 M intervals
 * of 100 bytes): past it, runs read the interval file, slower but not out
 * of memory on a recording of hours.
 */
#define CPUIDLE_LAB_MEMORY_BUDGET	(256u << 20)

/**
 * typedef cpuidle_lab_progress_fn - progress of a long read
 * @done: bytes of the input read so far
 * @total: its size (0: unknown, a pipe)
 * @arg: cpuidle_lab_open_options.progress_arg
 */
typedef void (*cpuidle_lab_progress_fn)(uint64_t done, uint64_t total, void *arg);

/**
 * struct cpuidle_lab_open_options - how cpuidle_lab_trace_open() reads
 * @budget: bytes of memory the caller's traces may still take, lowered by
 *	what this one takes (NULL: CPUIDLE_LAB_MEMORY_BUDGET for this one)
 * @stream: keep nothing in memory and do not read the intervals through
 *	now: each run reads the interval file (for a trace replayed once);
 *	a trace that is not an interval file is still converted first
 * @progress: called now and then while a trace is converted (or NULL)
 * @progress_arg: its argument
 */
struct cpuidle_lab_open_options {
	size_t *budget;
	bool stream;
	cpuidle_lab_progress_fn progress;
	void *progress_arg;
};

/**
 * cpuidle_lab_read_mapped() - read plain binary traces through mmap(2)
 * @on: true to map them, false to read them with read(2) (the default)
 *
 * For the program, not for a library, to decide, once, before its threads
 * read traces.  On, an uncompressed perf.data file is read through a
 * window mapped on it instead of copied by read(2) (on a 200 MB file that
 * copy took as long as cat(1)'s whole run), and the first such file puts a
 * process-wide SIGBUS handler in place, left there: a file truncated
 * while it is read then fails with a message ("the file shrank while it
 * was read") where the fault would kill the process; a SIGBUS not in a
 * reader's window goes to the handler there was before.  A program that
 * owns its signal handling (an interpreter, a runtime) leaves it off.
 *
 * Return: 0.
 */
int cpuidle_lab_read_mapped(bool on);

/**
 * cpuidle_lab_trace_open() - open a trace for replay
 * @path: an interval file (cpuidle-ivf(5)) or a trace in any format the
 *	lab reads (perf script text, perf.data, trace.dat, ftrace, idlestat;
 *	plain or compressed, told by content); a trace is converted into a
 *	temporary interval file under $TMPDIR, removed by
 *	cpuidle_lab_trace_close() or at once if the intervals fit in memory
 * @opt: options, or NULL for the defaults
 * @out: the trace
 * @err: a one-line message on failure
 * @errlen: its size
 *
 * Return: 0, -ENODATA if the trace has no complete idle interval to
 * replay, or another negative errno.
 */
int cpuidle_lab_trace_open(const char *path, const struct cpuidle_lab_open_options *opt,
			   struct cpuidle_lab_trace **out, char *err, size_t errlen);

/**
 * cpuidle_lab_trace_pattern() - a synthetic trace
 * @pattern: "mixed", "io" or "periodic:USEC"
 * @nr_cpus: its CPUs (1 .. 1024)
 * @intervals: idle intervals per CPU
 * @seed: the same seed gives the same intervals
 * @out: the trace
 *
 * Return: 0, -EINVAL for an unknown pattern or a bad count, or -ENOMEM.
 */
int cpuidle_lab_trace_pattern(const char *pattern, unsigned int nr_cpus, uint64_t intervals,
			      uint64_t seed, struct cpuidle_lab_trace **out);

/**
 * cpuidle_lab_trace_empty() - a trace of @nr_cpus CPUs and no interval: a
 * run over it sets its system up and writes its attributes, replaying
 * nothing (to check runs before a long batch)
 * @out: the trace
 *
 * Return: 0, -EINVAL (@nr_cpus 0 or above 1024) or -ENOMEM.
 */
int cpuidle_lab_trace_empty(unsigned int nr_cpus, struct cpuidle_lab_trace **out);

/**
 * cpuidle_lab_trace_until() - a view of @t: its intervals that start at or
 * before @end_ns (trace time); @t must outlive it
 * @out: the view, closed with cpuidle_lab_trace_close()
 *
 * Return: 0 or -ENOMEM.
 */
int cpuidle_lab_trace_until(const struct cpuidle_lab_trace *t, int64_t end_ns,
			    struct cpuidle_lab_trace **out);

/**
 * cpuidle_lab_trace_window() - a view of @t: its intervals that start at
 * or after @start_ns and at or before @end_ns (trace time); @t must
 * outlive it
 * @out: the view, closed with cpuidle_lab_trace_close()
 *
 * Return: 0, -EINVAL (@t NULL) or -ENOMEM.
 */
int cpuidle_lab_trace_window(const struct cpuidle_lab_trace *t, int64_t start_ns,
			     int64_t end_ns, struct cpuidle_lab_trace **out);

/**
 * cpuidle_lab_trace_bounds() - when @t's first and last intervals start
 * (trace time), read through once
 * @first_ns: the earliest start
 * @last_ns: the latest
 *
 * Return: 0, -ENODATA for a trace without intervals, or the reader's
 * negative errno.
 */
int cpuidle_lab_trace_bounds(const struct cpuidle_lab_trace *t, int64_t *first_ns,
			     int64_t *last_ns);

/** cpuidle_lab_trace_cpus() - the trace's highest CPU + 1 */
unsigned int cpuidle_lab_trace_cpus(const struct cpuidle_lab_trace *t);

/** cpuidle_lab_trace_in_memory() - are its intervals held in memory? */
bool cpuidle_lab_trace_in_memory(const struct cpuidle_lab_trace *t);

/**
 * struct cpuidle_lab_interval - one idle interval of a trace, as replayed
 * @cpu: the CPU
 * @start_ns: idle entry, on the trace's clock
 * @idle_ns: entry to the wake-up that needed the CPU
 * @busy_ns: wake-up to this CPU's next idle entry (0 for its last)
 * @timer_ns: entry to the next timer armed (the tick aside); -1 where the
 *	trace cannot tell (@flags has CPUIDLE_LAB_IV_TIMER_UNKNOWN), INT64_MAX
 *	where none was armed
 * @qos_us: the CPU latency QoS in force at entry
 * @wake: what ended it (cpuidle_lab_wake_name())
 * @irq: the device interrupt that did, or -1
 * @flags: CPUIDLE_LAB_IV_*
 * @kernel_entries: the kernel's idle entries merged into it
 * @kernel_state: the state the kernel's first entry went to, or -1
 */
struct cpuidle_lab_interval {
	unsigned int cpu;
	int64_t start_ns;
	int64_t idle_ns;
	int64_t busy_ns;
	int64_t timer_ns;
	int32_t qos_us;
	unsigned int wake;
	int irq;
	unsigned int flags;
	unsigned int kernel_entries;
	int kernel_state;
};

/* cpuidle_lab_interval.flags (cpuidle-ivf(5) names them too) */
#define CPUIDLE_LAB_IV_PARTIAL_START	0x01	/* the trace began inside it */
#define CPUIDLE_LAB_IV_PARTIAL_END	0x02	/* the trace ended inside it */
#define CPUIDLE_LAB_IV_TIMER_UNKNOWN	0x04	/* its next timer cannot be told */
#define CPUIDLE_LAB_IV_KERNEL_ABOVE	0x08	/* the kernel logged cpu_idle_miss above */
#define CPUIDLE_LAB_IV_KERNEL_BELOW	0x10	/* ... and below */
#define CPUIDLE_LAB_IV_TASK_WAKE	0x20	/* a task woken for it, no interrupt */
#define CPUIDLE_LAB_IV_TIMER_GUESSED	0x80	/* its next timer reconstructed */

/** cpuidle_lab_wake_name() - "unknown", "timer", "tick", "resched", "call-func", "irq" */
const char *cpuidle_lab_wake_name(unsigned int wake);

/**
 * typedef cpuidle_lab_interval_fn - receives each interval of a trace
 * @ctx: cpuidle_lab_trace_read()'s @ctx
 * @iv: the interval
 *
 * Return: 0 to go on, or a negative errno, which ends the read.
 */
typedef int (*cpuidle_lab_interval_fn)(void *ctx, const struct cpuidle_lab_interval *iv);

/**
 * cpuidle_lab_trace_read() - every interval of @t, partial ones at its
 * edges included, CPUs interleaved in the trace's order
 * @t: the trace
 * @fn: called with each
 * @ctx: its first argument
 * @err: a one-line message on failure
 * @errlen: its size
 *
 * Return: 0, @fn's errno, or the reading's (an interval file changed
 * since it was opened).
 */
int cpuidle_lab_trace_read(const struct cpuidle_lab_trace *t, cpuidle_lab_interval_fn fn,
			   void *ctx, char *err, size_t errlen);

/** cpuidle_lab_trace_close() - free @t and remove its temporary file (NULL: nothing) */
void cpuidle_lab_trace_close(struct cpuidle_lab_trace *t);

/* ---- what the kernel did ---- */

/**
 * struct cpuidle_lab_kernel_row - what the kernel did in one state of one CPU
 *	(idlestat's C-state table, computed the kernel's way: cpuidle stats)
 * @cpu: the CPU
 * @state: the state's index
 * @name: its name: the platform's, else the trace's, else "stateN"
 * @hits: complete entries and exits
 * @total_ns: the time in it
 * @min_ns: the shortest stay
 * @avg_ns: the mean stay
 * @max_ns: the longest
 * @misses_known: @above and @below are known: the trace's cpu_idle_miss
 *	events, or recomputed from the platform's table
 * @above: stays too short for the state (the kernel's verdict)
 * @below: stays that a deeper state would have paid for
 * @stays: the stays' histogram, CPUIDLE_LAB_STAY_BINS counts
 *	(cpuidle_lab_stay_bin()); valid during the callback
 */
struct cpuidle_lab_kernel_row {
	unsigned int cpu;
	int state;
	const char *name;
	uint64_t hits, total_ns;
	int64_t min_ns, avg_ns, max_ns;
	bool misses_known;
	uint64_t above, below;
	const uint64_t *stays;
};

/*
 * Stays are binned a quarter octave wide (as 2 bits of mantissa make
 * them): bin 0 holds those under 256 ns, the last those from about 15
 * minutes on.  Fine enough for a two-sample distance between stays'
 * distributions (a bin's width is under 19% of its values), small enough
 * to keep per CPU and state.
 */
#define CPUIDLE_LAB_STAY_BINS		128
#define CPUIDLE_LAB_STAY_BIN0_SHIFT	8	/* bin 0: under 1 << 8 ns */

/**
 * cpuidle_lab_stay_bin() - the histogram bin of a stay of @ns
 * @ns: the stay
 *
 * Return: 0 for @ns under 256, else 1 + 4 x (floor(log2 @ns) - 8) + the two
 * bits after the leading one, at most CPUIDLE_LAB_STAY_BINS - 1.
 */
static inline unsigned int cpuidle_lab_stay_bin(uint64_t ns)
{
	unsigned int e, bin;

	if (ns < (1u << CPUIDLE_LAB_STAY_BIN0_SHIFT))
		return 0;
	e = 63u - (unsigned int)__builtin_clzll(ns);
	bin = 1 + 4 * (e - CPUIDLE_LAB_STAY_BIN0_SHIFT) + (unsigned int)((ns >> (e - 2)) & 3);
	return bin < CPUIDLE_LAB_STAY_BINS ? bin : CPUIDLE_LAB_STAY_BINS - 1;
}

/**
 * struct cpuidle_lab_kernel_summary - a trace's figures beside its rows
 * @span_ns: the earliest event to the latest
 * @above_below: where above/below come from: "kernel", "recomputed", "none"
 * @windows: haltpoll's polling window adjustments the trace logged
 *	(power:guest_halt_poll_ns, one after a halt); 0: none
 * @windows_widened: of them, those that widened the window
 * @window_mean_ns: the mean window they set, 0 if none
 * @together_ns: per state, the time every CPU of a cluster (@p's; without
 *	@p, the machine's CPUs) was idle in that state or a deeper one at
 *	once, summed over clusters; a CPU counts from its first event on
 */
struct cpuidle_lab_kernel_summary {
	int64_t span_ns;
	const char *above_below;
	uint64_t windows;
	uint64_t windows_widened;
	double window_mean_ns;
	uint64_t together_ns[CPUIDLE_STATE_MAX];
};

/** typedef cpuidle_lab_kernel_fn - receives a row; Return: 0, or an errno that ends it */
typedef int (*cpuidle_lab_kernel_fn)(void *ctx, const struct cpuidle_lab_kernel_row *row);

/**
 * cpuidle_lab_kernel_stats() - what the kernel did in a trace, per CPU (those
 * that entered a state) and state, as cpuidle stats shows it
 * @path: a trace, or an interval file, read back as the events it was built
 *	from (every row the trace's where no interval merged more than the 8
 *	kernel entries it keeps: cpuidle-stats(1), INTERVAL FILES)
 * @p: the platform whose table names the states and recomputes above/below
 *	where the trace has no cpu_idle_miss events; or NULL
 * @fn: called with each row, CPU by CPU, state by state
 * @ctx: its first argument
 * @sum: set to the trace's figures (or NULL)
 * @err: a one-line message on failure ("FILE:LINE: what")
 * @errlen: its size
 *
 * Return: 0, -ENODATA if the trace has no idle entry, @fn's errno, or
 * another negative errno.
 */
int cpuidle_lab_kernel_stats(const char *path, const struct cpuidle_platform *p,
			     cpuidle_lab_kernel_fn fn, void *ctx,
			     struct cpuidle_lab_kernel_summary *sum, char *err, size_t errlen);

/* ---- a run ---- */

/**
 * typedef cpuidle_lab_decision_fn - receives each select() and reflect() of a
 * replayed governor, typed (cpuidle_lab_run.decisions has them as text)
 * @ctx: cpuidle_lab_run.decision_ctx
 * @t_ns: the simulated time of the call, on its CPU's clock
 * @dev: the device
 * @d: the call: its inputs and the governor's answer
 */
typedef void (*cpuidle_lab_decision_fn)(void *ctx, int64_t t_ns, const struct cpuidle_device *dev,
					const struct cpuidle_decision *d);

/**
 * struct cpuidle_lab_run - one replay: a trace through a governor on a platform
 * @trace: the intervals
 * @platform: the machine modelled: its states, powers and clusters
 * @governor: the governor by name: a built-in one, CPUIDLE_LAB_ORACLE, or
 *	one of @governors
 * @governors: governors from outside the library (the caller's own, or a
 *	plugin's), NULL-terminated, registered into the run's system beside
 *	the built-in ones (their tunables can be written, whichever runs);
 *	or NULL
 * @qos_us: a CPU latency QoS request in force all along, in microseconds;
 *	< 0: the trace's own QoS timeline
 * @tick_periodic: the tick never stops, whatever the governor asks (a
 *	recording kernel built with CONFIG_HZ_PERIODIC or booted nohz=off)
 * @kernel_loop: replay the kernel's idle loop as traced, for replaying the
 *	recording governor (cpuidle fidelity): the tick wakes an entry the
 *	kernel's tick woke, whatever the governor asked, and never ends a
 *	poll; each re-entry takes the kernel's mean time between re-entries;
 *	an entry in the kernel's state lasts as the kernel's did, where the
 *	interval tells; each CPU starts with the polling window the trace
 *	began with
 * @decisions: if set, every select() and reflect() of the governor, a line
 *	each, with the simulated time (cpuidle_decision_format())
 * @on_decision: if set, called with every select() and reflect() of the
 *	governor and the simulated time, on the replay's thread
 * @decision_ctx: its first argument
 * @attrs: "PATH=VALUE" attribute writes made before the run
 *	(cpuidle_attr_write(), as sysfs paths: "module/haltpoll/parameters/
 *	guest_halt_poll_ns=200000"), NULL-terminated; or NULL
 * @event_cost_off: take the trace's own cost of writing the events around
 *	an idle period (measured by the trace's reader, cpuidle-ivf(5)'s
 *	residency skew; about 0.8 us on the shared VM's traces) off every
 *	interval's idle time, as the kernel's clock does not see it: the
 *	kernel's too-shallow verdicts on short polls follow (doc/validate.md).
 *	Not with @kernel_loop, which takes it off its own way
 * @overlap: measure how long every CPU of a cluster was idle at once, by
 *	state (cpuidle_lab_state_result.together_ns), on any platform
 * @isolated: run in a child process (fork()): a governor that crashes
 *	ends this run alone, with -EFAULT and the signal in the result's
 *	error_msg, the caller's process unharmed (for a plugin's governor).
 *	@decisions is written by the child (flushed before); @on_decision is
 *	refused (-EINVAL), as it would be called in the child
 * @exact_entries: entries of one interval replayed one by one before the
 *	rest may be counted as repeats of a steady state (BOUNDED WORK in
 *	libcpuidle-replay(7)); 0: CPUIDLE_LAB_EXACT_ENTRIES; UINT64_MAX: all
 */
struct cpuidle_lab_run {
	const struct cpuidle_lab_trace *trace;
	const struct cpuidle_platform *platform;
	const char *governor;
	const struct cpuidle_governor *const *governors;
	int32_t qos_us;
	bool tick_periodic;
	bool kernel_loop;
	FILE *decisions;
	cpuidle_lab_decision_fn on_decision;
	void *decision_ctx;
	const char *const *attrs;
	bool isolated;
	uint64_t exact_entries;
	bool event_cost_off;
	bool overlap;
};

/*
 * Entries of one interval replayed one by one by default before a steady
 * state is looked for (2^20: ~70 minutes of a 4 ms tick, 35-100 ms of
 * work; no recording of this project's comes near it).
 */
#define CPUIDLE_LAB_EXACT_ENTRIES	(1u << 20)

/*
 * Past this many times exact_entries in one interval, a governor whose
 * state has not settled has the rest of the interval estimated from its
 * last tick period (cpuidle_lab_result.approximated): work per interval
 * stays bounded whatever the governor.
 */
#define CPUIDLE_LAB_CAP_FACTOR		16

/**
 * struct cpuidle_lab_state_result - one state's figures in a run
 * @usage: entries
 * @above: entries into it too deep for the idle time that came
 * @below: entries into it where a deeper state would have paid off
 * @rejected: entries its enter() refused
 * @time_ns: time accounted in it
 * @wakes: real wake-ups that found the CPU in it
 * @effective_ns: a cluster state: the time it took effect
 * @together_ns: with cpuidle_lab_run.overlap, the time every CPU of a
 *	cluster was in this state or a deeper one at once, summed over
 *	clusters; else 0
 */
struct cpuidle_lab_state_result {
	uint64_t usage, above, below, rejected;
	uint64_t time_ns;
	uint64_t wakes;
	uint64_t effective_ns;
	uint64_t together_ns;
};

/**
 * struct cpuidle_lab_result - a run's outcome
 * @governor: the governor's name
 * @state_count: the platform's states
 * @states: per state
 * @intervals: intervals replayed
 * @skipped: partial intervals at the trace's edges, not replayed
 * @timer_unknown: replayed intervals whose next timer the trace does not
 *	tell: the governor was told of none
 * @timer_guessed: replayed intervals whose next timer was reconstructed
 * @entries: idle calls, re-entries included
 * @idle_ns: true idle time replayed
 * @busy_ns: run time between intervals
 * @span_ns: wall-clock time replayed: the first interval's start to the
 *	last one's end, over all CPUs (mean power's divisor)
 * @idle_energy_mj: the states' energy
 * @active_energy_mj: the run time's, where the platform gives active power
 * @cluster_energy_mj: the clusters' shared power's
 * @domain_ns: cluster time in cluster states
 * @domain_forced: passes over a CPU whose state stayed unknown
 * @energy_known: every state has a model power
 * @active_known: the platform gives active power
 * @added_latency_ns: exit latency paid by real wake-ups, in all
 * @max_added_latency_ns: its largest
 * @p99_added_latency_ns: its 99th percentile
 * @qos_violations: entries into a state slower than the QoS limit while a
 *	state within it was enabled
 * @qos_unmeetable: entries when no state met the QoS limit
 * @kernel_entries: the kernel's idle entries replayed
 * @kernel_compared: entries compared with the kernel's
 * @kernel_matched: those where the replay chose the kernel's state
 * @kernel_windows: the kernel's polling window adjustments (haltpoll) in
 *	the replayed intervals
 * @window_matched: those after an entry where the replay entered the
 *	kernel's state and set its window
 * @window_extra: the replay's window changed after a non-polling entry
 *	where the kernel's did not
 * @extrapolated: of @entries, those not replayed one by one: in an
 *	interval past a million entries, counted as repeats of a steady
 *	state (libcpuidle-replay(7), BOUNDED WORK); 0 on any real recording
 * @approximated: of @extrapolated, those counted past the cap, the
 *	governor's own state still changing: an estimate, not the replay's
 * @host_seconds: the time the run took on this machine
 * @error: 0, or the negative errno the run failed with
 * @error_msg: the trace's message, if any
 */
struct cpuidle_lab_result {
	char governor[CPUIDLE_NAME_LEN];
	int state_count;
	struct cpuidle_lab_state_result states[CPUIDLE_STATE_MAX];
	uint64_t intervals;
	uint64_t skipped;
	uint64_t timer_unknown;
	uint64_t timer_guessed;
	uint64_t entries;
	uint64_t idle_ns;
	uint64_t busy_ns;
	uint64_t span_ns;
	double idle_energy_mj;
	double active_energy_mj;
	double cluster_energy_mj;
	uint64_t domain_ns;
	uint64_t domain_forced;
	bool energy_known;
	bool active_known;
	uint64_t added_latency_ns;
	uint64_t max_added_latency_ns;
	uint64_t p99_added_latency_ns;
	uint64_t qos_violations;
	uint64_t qos_unmeetable;
	uint64_t kernel_entries;
	uint64_t kernel_compared;
	uint64_t kernel_matched;
	uint64_t kernel_windows;
	uint64_t window_matched;
	uint64_t window_extra;
	uint64_t extrapolated;
	uint64_t approximated;
	double host_seconds;
	int error;
	char error_msg[512];
};

/**
 * cpuidle_lab_replay() - replay every interval of @run's trace under one governor
 * @run: the run
 * @res: the result
 *
 * Return: 0, or a negative errno (also in @res->error; the trace's message
 * in @res->error_msg): -EINVAL for a run without a trace, platform or
 * governor, or a governor, attribute or value the system refuses.
 */
int cpuidle_lab_replay(const struct cpuidle_lab_run *run, struct cpuidle_lab_result *res);

/** cpuidle_lab_energy_mj() - idle + active + clusters' shared energy of a result */
static inline double cpuidle_lab_energy_mj(const struct cpuidle_lab_result *r)
{
	return r->idle_energy_mj + r->active_energy_mj + r->cluster_energy_mj;
}

/* ---- what a result comes to ---- */

/**
 * struct cpuidle_lab_figures - a run's derived figures, as every output gives them
 * @energy_known: every state has a model power: @energy_mj and @power_mw
 * @energy_mj: idle + active + clusters' energy (cpuidle_lab_energy_mj())
 * @power_mw: @energy_mj over the span replayed
 * @over_known: @over_oracle_pct is (the oracle's energy is known, > 0)
 * @over_oracle_pct: energy over the oracle's, in percent
 * @above: entries into a state too deep for the idle time that came
 * @below: entries into a state shallower than it could have been
 * @wakes: real wake-ups
 * @above_pct: @above of the idle entries, in percent (@below_pct: @below)
 * @lat_mean_us: exit latency added per real wake-up, mean
 * @lat_p99_us: its 99th percentile
 * @lat_max_us: its largest
 */
struct cpuidle_lab_figures {
	bool energy_known;
	double energy_mj, power_mw;
	bool over_known;
	double over_oracle_pct;
	uint64_t above, below, wakes;
	double above_pct, below_pct;
	double lat_mean_us, lat_p99_us, lat_max_us;
};

/**
 * cpuidle_lab_figures() - the figures of result @x
 * @oracle: the oracle's result on the same trace and platform, or NULL
 *	(then @f->over_known is false)
 * @f: filled
 */
void cpuidle_lab_figures(const struct cpuidle_lab_result *x,
			 const struct cpuidle_lab_result *oracle, struct cpuidle_lab_figures *f);

/**
 * cpuidle_lab_over_oracle() - energy over the oracle's, from two runs' figures
 * @x: the run's figures
 * @oracle: the oracle's; NULL: not known
 * @pct: set to the percentage, or 0 when it is not known
 *
 * Return: whether it is known (both energies known, the oracle's > 0).
 */
bool cpuidle_lab_over_oracle(const struct cpuidle_lab_figures *x,
			     const struct cpuidle_lab_figures *oracle, double *pct);

/* ---- many runs ---- */

/* the most attribute writes a batch job makes (cpuidle_lab_run.attrs) */
#define CPUIDLE_LAB_MAX_ATTRS		16

/**
 * struct cpuidle_lab_job - what a worker hands the plan to fill for one job
 * @cfg: the run
 * @attrs: room for @cfg.attrs: CPUIDLE_LAB_MAX_ATTRS + 1 pointers, the
 *	worker's own, valid while the job runs
 */
struct cpuidle_lab_job {
	struct cpuidle_lab_run cfg;
	const char *attrs[CPUIDLE_LAB_MAX_ATTRS + 1];
};

/**
 * struct cpuidle_lab_batch_ops - a batch: its jobs, numbered from 0, and
 * where their results go
 * @plan: fill @job for job @index, on a worker thread (so reading shared
 *	state only).  Return: 0 to run it, 1 to skip it (done() gets NULL),
 *	or a negative errno, which ends the batch
 * @done: job @index's result (NULL: skipped), on the thread that called
 *	cpuidle_lab_batch_run(), in index order.  Return: 0, or a negative
 *	errno, which ends the batch
 * @progress: optional, on cpuidle_lab_batch_run()'s thread: @done_jobs of
 *	@total finished, called as they do (at most once a job)
 * @keep_going: a replay that fails does not end the batch: done() gets
 *	its result, its error in cpuidle_lab_result.error and .error_msg
 */
struct cpuidle_lab_batch_ops {
	int (*plan)(void *ctx, uint64_t index, struct cpuidle_lab_job *job);
	int (*done)(void *ctx, uint64_t index, const struct cpuidle_lab_result *res);
	void (*progress)(void *ctx, uint64_t done_jobs, uint64_t total);
	bool keep_going;
};

/**
 * struct cpuidle_lab_batch_error - how a batch failed
 * @error: the negative errno (0: it did not)
 * @job: the job that failed: the first in job order of those that did
 * @msg: the replay's own message (cpuidle_lab_result.error_msg), or empty
 */
struct cpuidle_lab_batch_error {
	int error;
	uint64_t job;
	char msg[512];
};

/**
 * cpuidle_lab_batch_run() - run jobs 0 .. @nr_jobs - 1 on up to @threads threads
 * @ops: the batch
 * @ctx: its callbacks' first argument
 * @nr_jobs: how many jobs
 * @threads: 0: one per online CPU
 * @fail: set to how it failed, or cleared
 *
 * Results wait for done() in a window of a few jobs a thread: memory does
 * not grow with @nr_jobs, and a worker does not run ahead of the window.
 * The same jobs give the same done() calls, in the same order, whatever
 * @threads, up to the first job in job order that fails (no job after it
 * is started once it has).  Where no thread can be started, the jobs run
 * on the caller's.
 *
 * Return: 0, or @fail->error: the negative errno of plan(), the replay or
 * done() of job @fail->job.
 */
int cpuidle_lab_batch_run(const struct cpuidle_lab_batch_ops *ops, void *ctx, uint64_t nr_jobs,
			  unsigned int threads, struct cpuidle_lab_batch_error *fail);

/**
 * cpuidle_lab_replay_many() - cpuidle_lab_batch_run() of @n runs given whole
 * @runs: the runs
 * @res: their results, in the same order (those up to the first failure)
 * @n: how many
 * @threads: 0: one per online CPU
 * @fail: set to how it failed, or cleared
 *
 * Return: 0, or @fail->error (job @fail->job is the run of @runs that
 * failed first in their order).
 */
int cpuidle_lab_replay_many(const struct cpuidle_lab_run *runs, struct cpuidle_lab_result *res,
			    unsigned int n, unsigned int threads,
			    struct cpuidle_lab_batch_error *fail);

/* ---- a sweep ---- */

/**
 * DOC: a sweep
 *
 * A sweep replays every (trace, platform) *block* under every governor x
 * QoS value x combination of attribute values, and hands back one *row*
 * per combination: its run's result beside the oracle's on the same block,
 * QoS and the values that matter to the oracle (energy over the oracle).
 * Rows are laid out alike in every block: governor by governor, QoS value
 * by QoS value, combination by combination (the last axis fastest).  A row
 * whose result cannot depend on an axis - a module parameter of another
 * governor, module/GOV/parameters/NAME being read by GOV alone - shares the
 * run made with that axis at its first value, so a sweep runs no replay
 * twice.  cpuidle sweep, the report and the bindings are its users.
 */

/**
 * struct cpuidle_lab_axis - an attribute a sweep gives each of its values in turn
 * @path: the attribute, as cpuidle_lab_run.attrs names it
 *	("module/haltpoll/parameters/guest_halt_poll_grow")
 * @values: its values
 * @nr_values: how many, at least one
 */
struct cpuidle_lab_axis {
	const char *path;
	const char *const *values;
	unsigned int nr_values;
};

/**
 * struct cpuidle_lab_block - a (trace, platform) pair of a sweep
 * @trace: the intervals
 * @platform: the machine modelled
 * @attrs: "PATH=VALUE" writes made in each of its runs before the axes'
 *	(a recording's own tunables), NULL-terminated; or NULL
 * @tick_periodic: as cpuidle_lab_run.tick_periodic
 */
struct cpuidle_lab_block {
	const struct cpuidle_lab_trace *trace;
	const struct cpuidle_platform *platform;
	const char *const *attrs;
	bool tick_periodic;
};

/**
 * struct cpuidle_lab_sweep_spec - what a sweep runs; its arrays must
 *	outlive the sweep
 * @blocks: the (trace, platform) pairs, @nr_blocks of them
 * @governors: governor names (built-in, one of @own, or CPUIDLE_LAB_ORACLE),
 *	@nr_governors of them, each once
 * @own: the caller's governors, as cpuidle_lab_run.governors; or NULL
 * @isolate_own: run @own's governors in a child process each
 *	(cpuidle_lab_run.isolated): a crash loses that run alone
 * @qos_us: QoS values in microseconds (< 0: the trace's timeline),
 *	@nr_qos of them
 * @axes: the attributes swept, @nr_axes of them (a block's @attrs and the
 *	axes together at most CPUIDLE_LAB_MAX_ATTRS writes)
 * @no_oracle: add no oracle run: a row has an oracle's result only where
 *	@governors names the oracle
 */
struct cpuidle_lab_sweep_spec {
	const struct cpuidle_lab_block *blocks;
	unsigned int nr_blocks;
	const char *const *governors;
	unsigned int nr_governors;
	const struct cpuidle_governor *const *own;
	bool isolate_own;
	const int32_t *qos_us;
	unsigned int nr_qos;
	const struct cpuidle_lab_axis *axes;
	unsigned int nr_axes;
	bool no_oracle;
};

/* the most rows a block may have (governors x QoS values x combinations) */
#define CPUIDLE_LAB_SWEEP_MAX_ROWS	100000

/**
 * struct cpuidle_lab_point - where a row or a run sits in a sweep
 * @block: its block
 * @row: its row in the block (for a run: the first row it serves)
 * @governor: index into cpuidle_lab_sweep_spec.governors; nr_governors:
 *	the oracle the sweep added
 * @qos: index into cpuidle_lab_sweep_spec.qos_us
 * @values: per axis, the index of its value
 */
struct cpuidle_lab_point {
	unsigned int block, row, governor, qos;
	unsigned int values[CPUIDLE_LAB_MAX_ATTRS];
};

/**
 * struct cpuidle_lab_sweep_ops - where a sweep's rows go
 * @row: row @at's result @res and the oracle's @oracle (NULL: none, or
 *	its energy unknown), on the thread that called cpuidle_lab_sweep_run(),
 *	block by block and in row order.  Return: 0, or a negative errno,
 *	which ends the sweep
 * @lost: optional: an isolated run @at crashed (@res->error -EFAULT, the
 *	signal in @res->error_msg).  Return 0: its rows are left out, the
 *	sweep goes on; a negative errno ends it.  Without @lost, a crash ends
 *	the sweep as any failed run does
 * @progress: optional: @done of @total runs finished
 */
struct cpuidle_lab_sweep_ops {
	int (*row)(void *ctx, const struct cpuidle_lab_point *at,
		   const struct cpuidle_lab_result *res, const struct cpuidle_lab_result *oracle);
	int (*lost)(void *ctx, const struct cpuidle_lab_point *at,
		    const struct cpuidle_lab_result *res);
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
};

/**
 * struct cpuidle_lab_sweep_error - how a sweep or a check failed
 * @error: the negative errno (0: it did not)
 * @at: the run that failed (the first in the sweep's order)
 * @axis: cpuidle_lab_sweep_check(): the axis whose value @at.values[@axis]
 *	was refused; -1: the block itself
 * @msg: the replay's own message, or empty
 */
struct cpuidle_lab_sweep_error {
	int error;
	struct cpuidle_lab_point at;
	int axis;
	char msg[512];
};

struct cpuidle_lab_sweep;

/**
 * cpuidle_lab_sweep_new() - plan a sweep (nothing is replayed)
 * @spec: the sweep, kept by pointer: it and its arrays must outlive it
 * @out: the sweep
 *
 * Return: 0; -EINVAL for no block, governor or QoS value, an axis without
 * values, a governor listed twice or too many attribute writes in a
 * block; -E2BIG for more than CPUIDLE_LAB_SWEEP_MAX_ROWS rows a block; or
 * -ENOMEM.
 */
int cpuidle_lab_sweep_new(const struct cpuidle_lab_sweep_spec *spec,
			  struct cpuidle_lab_sweep **out);

/** cpuidle_lab_sweep_rows() - the rows of each block */
unsigned int cpuidle_lab_sweep_rows(const struct cpuidle_lab_sweep *sw);

/** cpuidle_lab_sweep_runs() - the replays the whole sweep makes */
uint64_t cpuidle_lab_sweep_runs(const struct cpuidle_lab_sweep *sw);

/**
 * cpuidle_lab_sweep_row() - where row @row of block @block sits
 * @sw: the sweep
 * @block: a block
 * @row: a row of it
 * @at: filled
 */
void cpuidle_lab_sweep_row(const struct cpuidle_lab_sweep *sw, unsigned int block,
			   unsigned int row, struct cpuidle_lab_point *at);

/**
 * cpuidle_lab_sweep_config() - the run of @at (its block, governor, QoS
 * and values), to replay it again (a timeline's decisions)
 * @sw: the sweep
 * @at: the point
 * @job: filled: the run, its attrs in @job->attrs
 */
void cpuidle_lab_sweep_config(const struct cpuidle_lab_sweep *sw,
			      const struct cpuidle_lab_point *at, struct cpuidle_lab_job *job);

/**
 * cpuidle_lab_sweep_check() - can @block be swept as @spec says?  Its
 *	machine is set up, with the block's attributes and then with each
 *	value of each axis, under the first governor, and nothing replayed
 * @spec: the sweep (its blocks are not read)
 * @block: the block to check
 * @fail: set to what failed (@fail->axis -1: the block itself), or cleared
 *
 * Return: 0; -ERANGE if the platform has fewer CPUs than the trace;
 * -EOPNOTSUPP if the replay cannot model the platform; or the negative
 * errno of the attribute write refused (@fail->axis and @fail->at.values
 * say which).
 */
int cpuidle_lab_sweep_check(const struct cpuidle_lab_sweep_spec *spec,
			    const struct cpuidle_lab_block *block,
			    struct cpuidle_lab_sweep_error *fail);

/**
 * cpuidle_lab_sweep_run() - run the sweep on up to @threads threads
 * @sw: the sweep
 * @ops: where its rows go
 * @ctx: the callbacks' first argument
 * @threads: 0: one per online CPU
 * @fail: set to how it failed, or cleared
 *
 * The same sweep gives the same calls in the same order, whatever
 * @threads.  Memory holds one block's results (a cpuidle_lab_result a run)
 * and the batch's window.
 *
 * Return: 0, or @fail->error: a run that failed, or a callback's errno.
 */
int cpuidle_lab_sweep_run(struct cpuidle_lab_sweep *sw, const struct cpuidle_lab_sweep_ops *ops,
			  void *ctx, unsigned int threads, struct cpuidle_lab_sweep_error *fail);

/** cpuidle_lab_sweep_free() - free @sw (NULL: nothing) */
void cpuidle_lab_sweep_free(struct cpuidle_lab_sweep *sw);

/* ---- fidelity: a recording replayed through the governor that made it ---- */

/**
 * struct cpuidle_lab_fidelity_options - how to set up the replay of a
 * recording through the port of the governor it was recorded under
 * @governor: that governor (a built-in one or one of @governors); NULL:
 *	the recording's description's, else the file name's: NAME-GOVERNOR.*,
 *	NAME-haltpollN.* also writing guest_halt_poll_ns = N us first.  A
 *	haltpoll recording whose cap nothing says has it bounded by the
 *	kernel's own window adjustments in the trace; where the default
 *	(200 us) falls outside, the widest window logged is written first,
 *	with a note
 * @platform: a platform (cpuidle_platform_load()'s spec); NULL: the
 *	recording's description's, else @default_platform
 * @default_platform: NULL: "haltpoll-vm", the recording VM
 * @attrs: "PATH=VALUE" writes made after the recording's own (a path
 *	written here drops the recording's write of it), NULL-terminated; or
 *	NULL
 * @governors: the caller's own governors (cpuidle_lab_run.governors)
 * @no_kernel_loop: replay as sim does, not the kernel's idle loop as
 *	traced (cpuidle_lab_run.kernel_loop)
 * @note: called with each note ("FILE: ...": the description's platform
 *	taken, a write of @attrs replacing the recording's) and each warning
 *	(@warning: a platform with fewer states than the kernel entered); or
 *	NULL
 * @note_ctx: its first argument
 */
struct cpuidle_lab_fidelity_options {
	const char *governor;
	const char *platform;
	const char *default_platform;
	const char *const *attrs;
	const struct cpuidle_governor *const *governors;
	bool no_kernel_loop;
	void (*note)(void *ctx, bool warning, const char *msg);
	void *note_ctx;
};

/**
 * struct cpuidle_lab_census - what the kernel chose in a trace, over the
 * entries its intervals record, partial intervals aside: the baseline a
 * port's fidelity must beat (always choosing @top_state)
 * @nr_states: the highest state it entered + 1 (partial intervals too)
 * @entries: entries with a known state
 * @top_state: its most frequent state, -1 if none
 * @top_entries: the entries in it
 */
struct cpuidle_lab_census {
	int nr_states;
	uint64_t entries;
	int top_state;
	uint64_t top_entries;
};

/**
 * cpuidle_lab_governor_from_name() - the governor a recording's file name
 * says: "io-menu.perf.txt.xz" -> "menu", "io-haltpoll200.perf.txt.xz" ->
 * "haltpoll" with a 200 us polling window, "x-teo@7.1.perf.txt.xz" -> "teo@7.1"
 * @path: the file (its last component is read)
 * @gov: the governor's name
 * @len: its size
 * @window_us: the polling window the name says (NAME-haltpollN.*), -1 if
 *	none
 *
 * Return: 0, or -ENOENT if the name says no built-in governor.
 */
int cpuidle_lab_governor_from_name(const char *path, char *gov, size_t len,
				   long long *window_us);

struct cpuidle_lab_fidelity;

/**
 * cpuidle_lab_fidelity_plan() - set up the replay of a recording through
 * the governor it was recorded under, on the machine it was recorded on
 * @path: the recording's file (its name may say the governor), for
 *	messages
 * @t: its intervals (cpuidle_lab_trace_open() of @path); it must outlive
 *	the plan
 * @opt: the options; NULL: all defaults
 * @out: the plan (cpuidle_lab_fidelity_run() replays it)
 * @err: a message on failure ("FILE: ...")
 * @errlen: its size
 *
 * The recording's description (cpuidle-record(1)) gives the governor, the
 * platform, its tunables and a periodic tick, unless @opt overrides them.
 *
 * Return: 0; -ENOENT if nothing says which governor recorded it;
 * -EOPNOTSUPP if that governor has no port here; -EINVAL for a malformed
 * description or platform; -E2BIG for too many attribute writes; -ENOMEM.
 */
int cpuidle_lab_fidelity_plan(const char *path, const struct cpuidle_lab_trace *t,
			      const struct cpuidle_lab_fidelity_options *opt,
			      struct cpuidle_lab_fidelity **out, char *err, size_t errlen);

/** cpuidle_lab_fidelity_run() - the replay @f plans (kernel_entries, kernel_matched... in its result) */
const struct cpuidle_lab_run *cpuidle_lab_fidelity_run(const struct cpuidle_lab_fidelity *f);

/** cpuidle_lab_fidelity_census() - the kernel's choices in @f's trace */
const struct cpuidle_lab_census *cpuidle_lab_fidelity_census(const struct cpuidle_lab_fidelity *f);

/** cpuidle_lab_fidelity_clock_offset() - the trace's timers' clock offset (iv_notes), ns */
int64_t cpuidle_lab_fidelity_clock_offset(const struct cpuidle_lab_fidelity *f);

/** cpuidle_lab_fidelity_free() - free @f (NULL: nothing) */
void cpuidle_lab_fidelity_free(struct cpuidle_lab_fidelity *f);

#ifdef __cplusplus
}
#endif

#endif /* CPUIDLE_LAB_H */
