/* SPDX-License-Identifier: MIT */
/*
 * trace.h - reading idle traces: one stream of normalised events, whatever
 * the file's format.
 *
 * Formats, detected from the content (not the name): perf.data (perf
 * record's own file, trace_perf.c; trace_format() says perf), trace.dat
 * (trace-cmd's, through libtracecmd; trace_format() says ftrace), "perf
 * script" text (perf script -F comm,pid,cpu,time,event,trace --ns), raw
 * ftrace text (/sys/kernel/tracing/trace, trace-cmd report), and idlestat's
 * own trace files (an ftrace text log behind a header naming the CPUs and
 * states).  xz, gzip and zstd compressed files are read through liblzma,
 * zlib and libzstd.
 *
 * Reading streams: memory does not grow with the file.  Events come in file
 * order; a trace interleaves CPUs and is not strictly ordered across them,
 * so consumers order per CPU.
 */
#ifndef LAB_TRACE_H
#define LAB_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lab_limits.h"

enum trace_format {
	TRACE_FMT_PERF,		/* perf script text */
	TRACE_FMT_FTRACE,	/* ftrace / trace-cmd report text */
	TRACE_FMT_IDLESTAT,	/* idlestat --trace output */
};

enum trace_ev_type {
	TEV_IDLE_ENTER,		/* power:cpu_idle state=N (N != 4294967295) */
	TEV_IDLE_EXIT,		/* power:cpu_idle state=4294967295 */
	TEV_IDLE_MISS,		/* power:cpu_idle_miss state=N type=above|below */
	TEV_HALT_POLL_NS,	/* power:guest_halt_poll_ns halt_poll_ns N (grow|shrink M) */
	TEV_QOS_ADD,		/* power:pm_qos_add_request CPU_DMA_LATENCY value=V */
	TEV_QOS_UPDATE,		/* power:pm_qos_update_request */
	TEV_QOS_REMOVE,		/* power:pm_qos_remove_request */
	TEV_HRTIMER_START,	/* timer:hrtimer_start */
	TEV_HRTIMER_CANCEL,	/* timer:hrtimer_cancel */
	TEV_HRTIMER_EXPIRE,	/* timer:hrtimer_expire_entry */
	TEV_TICK_STOP,		/* timer:tick_stop success=S dependency=D */
	TEV_LOCAL_TIMER,	/* irq_vectors:local_timer_entry; irq:irq_handler_entry
				 * of a per-CPU timer (name=arch_timer...); ipi:ipi_entry
				 * (Timer broadcast interrupts) */
	TEV_RESCHED_IPI,	/* irq_vectors:reschedule_entry; ipi:ipi_entry
				 * (Rescheduling interrupts) */
	TEV_CALL_FUNC_IPI,	/* irq_vectors:call_function_entry / _single_entry;
				 * ipi:ipi_entry (Function call interrupts) */
	TEV_IRQ,		/* irq:irq_handler_entry irq=N name=S */
	TEV_WAKEUP,		/* sched:sched_wakeup target_cpu=N */
	TEV_LOST,		/* the tracer lost events of this CPU here
				 * (ftrace "CPU:N [LOST M EVENTS]", trace-cmd
				 * "[M EVENTS DROPPED]", perf PERF_RECORD_LOST) */
	TEV_CPU_FREQ,		/* power:cpu_frequency state=KHZ cpu_id=N */
};

#define TRACE_IRQ_NAME_LEN	LAB_IRQ_NAME_LEN
#define TRACE_MAX_CPUS		LAB_MAX_CPUS
#define TRACE_MAX_STATES	LAB_MAX_STATES

/**
 * struct trace_event - one event, units normalised
 * @ts_ns: timestamp, ns (CLOCK_MONOTONIC in our traces)
 * @cpu: the CPU it was recorded on
 * @type: what happened
 * @line: 1-based line number in the (decompressed) file, for messages; in
 *	a binary file (trace_is_binary()), the byte offset of its record
 *
 * Fields by type, others zero.  Three groups share their bytes: @name
 * (IRQ's); the hrtimer fields (@timer, @expires_ns, @now_ns, @function);
 * @value, @old and @qos_class.  No type has two of them, and none is read
 * for a type that does not name it.
 * - IDLE_ENTER: @state (the index entered); IDLE_EXIT: none.  The CPU is
 *   that of the cpu_id field, which may differ from @cpu only in theory.
 * - IDLE_MISS: @state, @below (true: "below", false: "above").
 * - HALT_POLL_NS: @value (new window, ns), @grow (true: grow, false: shrink),
 *   @old (the window before).
 * - QOS_*: @qos_class (0: CPU_DMA_LATENCY, other classes are skipped by
 *   the reader), @value (us; -1 = default), @pid (the task that made the
 *   call, from the line's "COMM PID" or "COMM-PID"; -1 if the line has
 *   none).  The tracepoints do not say which request changed: a task's
 *   own requests are the best key the trace gives.
 * - HRTIMER_*: @timer (its address), @tick (function is tick_nohz_handler
 *   or tick_sched_timer; or, where the trace gives the function only as an
 *   address, as trace-cmd report -R does, the timer is at the address the
 *   CPU's last start naming the tick function armed), @expires_ns (START:
 *   hard expiry), @now_ns (EXPIRE: the kernel's now=), @function (START,
 *   EXPIRE: its function's address, where the trace holds it as a number:
 *   perf.data; 0 in text).
 * - LOST: @value (events lost, 0 if the trace does not say).  ftrace's
 *   marker has no time of its own: @ts_ns is that of the last event read
 *   before it.
 * - TICK_STOP: @success.
 * - IRQ: @irq, @name.
 * - WAKEUP: @target_cpu.
 * - CPU_FREQ: @value (the CPU's new frequency, kHz, as the kernel gives it;
 *   0 where the writer did not know it: idlestat's own markers).  The CPU
 *   is that of the cpu_id field: cpufreq logs a change of a policy's
 *   frequency once for each CPU of it, all from the CPU that made it.
 *   Replay and conversion pass it by (iv_builder_feed()).
 */
struct trace_event {
	int64_t ts_ns;
	unsigned int cpu;
	enum trace_ev_type type;
	uint64_t line;

	int state;
	bool below;
	bool grow;
	bool success;
	bool tick;
	int pid;
	int irq;
	int target_cpu;
	/*
	 * (shared: the event is 80 bytes, not 128, and a small perf.data's
	 * queue of them touches a third fewer fresh pages)
	 */
	union {
		char name[TRACE_IRQ_NAME_LEN];
		struct {
			uint64_t timer;
			int64_t expires_ns;
			int64_t now_ns;
			uint64_t function;
		};
		struct {
			int64_t value;
			int64_t old;
			int qos_class;
		};
	};
};

/*
 * A recording's description (cpuidle record): comment lines before the
 * first event, "# cpuidle-recording KEY VALUE" (see recording.h).
 */
#define TRACE_RECORDING_PREFIX	"# cpuidle-recording "
#define TRACE_RECORDING_MAX	LAB_RECORDING_MAX

/**
 * struct trace_info - what the file says about the machine, if anything
 * @nr_cpus: CPUs declared by the header (idlestat), else 0
 * @nr_states: states named by the header for CPU 0, else 0
 * @state_names: their names as the header gives them
 * @recording_len: bytes in @recording
 * @recording: the recording's description lines, without their prefix,
 *	each ended by a newline (none: the file has no description)
 */
#define TRACE_MAX_CLUSTERS	26	/* idlestat's clusterA to clusterZ */

struct trace_info {
	unsigned int nr_cpus;
	int nr_states;
	char state_names[TRACE_MAX_STATES][32];
	size_t recording_len;
	char recording[TRACE_RECORDING_MAX];
	/*
	 * the topology the trace's header gives (idlestat's clusterA: ...):
	 * @nr_clusters (0: none), each CPU's cluster in @cluster_of (-1: none)
	 */
	int nr_clusters;
	int8_t cluster_of[TRACE_MAX_CPUS];
};

struct trace_reader;
struct ivf_info;

/**
 * trace_read_mapped() - read plain binary files through a mapped window
 * @on: map (true) or read(2) them (false, the default)
 *
 * What cpuidle_lab_read_mapped() (lab.h) sets for the whole process.
 */
void trace_read_mapped(bool on);

/**
 * trace_open() - open a trace file (plain, .xz or .gz: detected by magic)
 * @path: the file; "-" for standard input
 * @out: the reader
 * @err: on error, a message naming the file (and line, if any)
 * @errlen: size of @err
 *
 * Return: 0; -ENOENT, -EISDIR or another errno if the file cannot be
 * opened; -EINVAL if it is empty or not a trace in a known format (the
 * first lines decide); -ENOMEM.
 */
int trace_open(const char *path, struct trace_reader **out, char *err, size_t errlen);

/**
 * trace_open_intervals() - an interval file (ivf.h) read back as the idle
 * events it was built from, as near as it keeps them (trace_ivf.c says
 * what is exact and what is not)
 * @path: the interval file, a regular file (it is read twice)
 * @out: the reader: trace_next() and the rest as for a trace; its
 *	trace_info() carries the recording's description
 * @err: on error, a message naming the file (and offset, if any)
 * @errlen: size of @err
 *
 * Return: 0, or a negative errno as ivf_open() and ivf_next() give it.
 */
int trace_open_intervals(const char *path, struct trace_reader **out, char *err,
			 size_t errlen);

/**
 * struct trace_ivf_approx - what an interval file's events could not give
 * exactly, counted as trace_next() hands them on (trace_ivf.c)
 * @intervals: intervals read back (the trace's first and last of a CPU,
 *	cut, not counted)
 * @entries: kernel entries made of them
 * @gaps_spread: gaps between re-entries placed by an even share of the
 *	interval's time between entries (kernel_loop_ns)
 * @entries_unkept: entries past the IV_MAX_KSTATES an interval keeps:
 *	their residencies an even share of what its kernel_idle_ns leaves
 * @states_unkept: of those, entries whose state the file does not say
 *	(given the last kept one's)
 * @residency_spread: kept entries whose residency the file does not hold
 *	(saturated at 4.29 s, or a version before 4): given a share too
 * @count_floor: intervals whose entry count is at UINT16_MAX, a floor
 * @misses_unplaced: intervals the kernel marked above or below with more
 *	than one entry: no verdict of the file is placed (a reader judges by
 *	a state table instead)
 */
struct trace_ivf_approx {
	uint64_t intervals, entries;
	uint64_t gaps_spread;
	uint64_t entries_unkept, states_unkept;
	uint64_t residency_spread;
	uint64_t count_floor;
	uint64_t misses_unplaced;
};

/**
 * trace_ivf_approx() - what @r's events could not give exactly, so far
 * Return: the counts, or NULL if @r is not reading an interval file.
 */
const struct trace_ivf_approx *trace_ivf_approx(const struct trace_reader *r);

/**
 * trace_ivf_info() - an interval file's header and trace notes (the
 * trace's span, its lost events, CPUs without idle events, ...)
 * Return: the info, or NULL if @r is not reading an interval file.
 */
const struct ivf_info *trace_ivf_info(const struct trace_reader *r);

/**
 * trace_read_info() - what a trace file says of itself, its events left unread
 * @path: the file, as trace_open() takes it
 * @info: filled as trace_info() would be after trace_open()
 * @err: on error, a message naming the file
 * @errlen: size of @err
 *
 * For a command that wants a recording's description before it reads the
 * events: a text trace's first lines are read as trace_open() reads them,
 * but a binary file (perf.data, trace.dat) is told by its magic only and
 * its description read from PATH.recording; its header and event formats,
 * which trace_open() parses, are not (a corrupt one is said when the
 * events are read).
 *
 * Return: 0, or as trace_open().
 */
int trace_read_info(const char *path, struct trace_info *info, char *err, size_t errlen);

/**
 * trace_next() - the next event
 * @r: the reader
 * @ev: filled on success
 *
 * Lines that are not events the lab uses (other tracepoints, comments,
 * the tool's own messages) are skipped.  A line that claims to be one of
 * the events above but does not parse is an error, as is a corrupt or
 * truncated compressed stream, a NUL byte, a line over 64 KiB, a
 * timestamp or number out of range, or a CPU number >= TRACE_MAX_CPUS.
 *
 * Return: 1 with @ev filled; 0 at the end of the file; a negative errno on
 * error, with trace_error() saying "FILE:LINE: what is wrong".
 */
int trace_next(struct trace_reader *r, struct trace_event *ev);

/**
 * trace_next_ref() - trace_next(), the event lent rather than copied
 * @r: the reader
 * @ev: set to the event on success; it stays valid (and unchanged) until
 *	the next call on @r, or trace_close()
 *
 * For a loop that reads each event once: a perf.data file's events are
 * handed out where its reader keeps them, without a copy.
 *
 * Return: as trace_next().
 */
int trace_next_ref(struct trace_reader *r, const struct trace_event **ev);

/**
 * trace_next_batch() - trace_next_ref(), the next events lent at once
 * @r: the reader
 * @evs: set to the events, in order; they stay valid (and unchanged) until
 *	the next call on @r, or trace_close()
 * @max: how many @evs holds (at least 1)
 *
 * A perf.data file's (file mode) lends the events that may come out before
 * its next record is read, up to @max; other readers one event a call.
 *
 * Return: how many events were lent (1 to @max), 0 at the end of the file,
 * or a negative errno as trace_next().
 */
int trace_next_batch(struct trace_reader *r, const struct trace_event **evs, size_t max);

/**
 * trace_want() - the types of event the caller reads, so that the reader may
 * leave others out
 * @r: the reader, before its first event is read
 * @types: a bit (1u << TEV_*) for each type read
 *
 * A perf.data file read from a regular file by its name (not a pipe, not
 * standard input) then leaves out of what trace_next*() give samples of
 * the other types it decodes without fail, but for each CPU's first event
 * (every CPU with events has one given, the first); what those left out
 * add up to is trace_skipped() and trace_skipped_before(), so that a
 * caller that reads of them only their time and CPU loses nothing.  Errors
 * are said as without it, at the same record, unless trace_skipped() says
 * a failure is no answer (@redo_failed: with no hrtimer start or expiry
 * asked for, the reader does not look for the tick's function, and says
 * of those it gives whether they are the tick's by the file's symbols
 * alone).  A trace.dat's reader gives every event, but with no hrtimer
 * start or expiry asked for does not read a version 6 file's kernel
 * symbols, where it looks the tick's function up: the hrtimer events it
 * gives are then none the tick's.  Other readers give every event, as
 * without the call.
 */
void trace_want(struct trace_reader *r, uint32_t types);

/**
 * struct trace_skipped - what the events trace_want() left out add up to
 * @events: how many were left out
 * @last_ns: the latest time stamp among them (INT64_MIN: none)
 * @redo: the events came out of time order (one read before what had come
 *	out, or a queue so full that it let events out by their count): what
 *	was left out no longer stands for itself, so the caller must read the
 *	file again without trace_want() (what it read is no answer)
 * @redo_failed: the reader left out a read ahead that a read in full does
 *	(perf.data's vote for the tick's function, with no hrtimer event
 *	asked for), which may fail first, elsewhere: if the caller's read
 *	failed (the reader's error or its own), that is no answer either, and
 *	it must read the file again without trace_want() to say why
 */
struct trace_skipped {
	uint64_t events;
	int64_t last_ns;
	bool redo;
	bool redo_failed;
};

/** trace_skipped() - what the events left out so far add up to (zeroes, for none) */
void trace_skipped(const struct trace_reader *r, struct trace_skipped *out);

/**
 * trace_skipped_before() - the latest time among the events left out that
 * come before @ev in the order the events come out
 * @r: the reader
 * @ev: a CPU's first event, lent by trace_next_ref() or trace_next_batch(),
 *	still valid
 *
 * Asked once a CPU, at its first event.  Once it was asked of every CPU a
 * perf.data file says the machine had, the reader keeps nothing more to
 * answer it (most of what the events left out cost it): a later ask (a
 * CPU more than the file said) makes trace_skipped() say @redo.
 *
 * Return: that time, or INT64_MIN if none was left out before it.
 */
int64_t trace_skipped_before(struct trace_reader *r, const struct trace_event *ev);

/** trace_error() - the last error's message (empty if none) */
const char *trace_error(const struct trace_reader *r);

/**
 * trace_format() - the detected format.  A file whose first lines read as
 * either format (perf -F comm,cpu,... lines look like ftrace's) is settled
 * by its first line that does not: until then this may say perf and later
 * ftrace.
 */
enum trace_format trace_format(const struct trace_reader *r);

/** trace_format_name() - "perf", "ftrace" or "idlestat" */
const char *trace_format_name(enum trace_format fmt);

/**
 * trace_is_binary() - is the file a binary one (perf.data, trace.dat)?
 * Its events' @line is then the byte offset of their record, not a line.
 */
bool trace_is_binary(const struct trace_reader *r);

/**
 * trace_where() - "PATH:LINE" for a text trace, "PATH: byte N" for a binary one
 * @r: the reader
 * @line: an event's @line
 * @buf: filled
 * @len: its size
 *
 * Return: @buf.
 */
const char *trace_where(const struct trace_reader *r, uint64_t line, char *buf, size_t len);

/** trace_info() - what the header said (zeroes if it said nothing) */
const struct trace_info *trace_info(const struct trace_reader *r);

/** trace_bytes_read() - compressed bytes consumed so far (for progress) */
uint64_t trace_bytes_read(const struct trace_reader *r);

/** trace_close() - close and free; NULL is fine */
void trace_close(struct trace_reader *r);

#endif /* LAB_TRACE_H */
