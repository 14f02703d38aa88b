// SPDX-License-Identifier: MIT
/*
 * trace_tracecmd.c - trace.dat, trace-cmd's binary file (versions 6 and 7,
 * compressed sections or not), read through libtracecmd: it parses the
 * file's event formats, the kernel's symbols and each CPU's ring buffer
 * pages; its records are decoded as perf.data's are (trace_tep.c), so the
 * tick is known by its function's name, from the file's own symbols (which
 * a read that asks for no hrtimer event leaves out: trace_tracecmd_want()).
 *
 * In a child process.  libtracecmd 1.3.1 reads past its buffers on some
 * malformed files (fuzz_trace_tracecmd found a heap overflow in
 * tracecmd_open_head() within its first runs) and crashes on others, and a
 * bad file must never crash the tool: a forked child opens the file with
 * libtracecmd, decodes it, and writes the events down a pipe in time
 * order; the reader reads them.  A child that dies, by a signal or by a
 * sanitizer's abort, makes the file an error that says so.  (glibc's fork
 * leaves malloc and stdio usable in the child of a threaded process.)
 *
 * libtracecmd reads a file by seeking in it: a plain regular file is given
 * as it is; a compressed one, or one on a pipe, is first decompressed into
 * an unlinked temporary file ($TMPDIR, else /tmp), whose disk space goes
 * when the reader closes.
 *
 * Order: each CPU's records come in time order; the child keeps each
 * CPU's next record and gives the earliest (ties: the lowest CPU, as
 * trace-cmd report does).  Events the kernel dropped before a record
 * (its missed_events) come first, as a lost-events event of that CPU at
 * the time of the event read before, as the text readers give trace-cmd's
 * "[N EVENTS DROPPED]" marker.
 *
 * libtracecmd (with libtracefs, which it needs) is loaded by the parent
 * before its first child, not at start (lazy_lib.h): linked, the two took
 * 0.3 ms of every command's start, trace.dat or not.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include "tep_lib.h"

#include "lazy_lib.h"
#include "trace_internal.h"
#include "tracing_data.h"

/*
 * libtracecmd's own steps of tracecmd_open_head(), which libtracecmd.so.1
 * exports but only trace-cmd's private header (trace-cmd-private.h, not
 * shipped) declares: the handle made from an open file (its first bytes
 * read), its headers read up to a state (enum tracecmd_file_states), and
 * the state they were read to
 */
struct tracecmd_input *tracecmd_alloc_fd(int fd, int flags);
int tracecmd_read_headers(struct tracecmd_input *handle, int state);
int tracecmd_get_file_state(struct tracecmd_input *handle);

/*
 * The states of enum tracecmd_file_states (trace-cmd-private.h) this file
 * reads a version 6 file's headers to: its event formats read (the kernel's
 * symbols come next), and its symbols read; 0, all of them
 */
#define TC_STATE_HEADERS	2
#define TC_STATE_FTRACE_EVENTS	3
#define TC_STATE_ALL_EVENTS	4
#define TC_STATE_KALLSYMS	5
#define TC_STATE_ALL		0

/* libtracecmd's functions the child calls, loaded by start_child() */
static struct {
	__typeof__(tracecmd_set_loglevel) *tracecmd_set_loglevel;
	__typeof__(tracecmd_alloc_fd) *tracecmd_alloc_fd;
	__typeof__(tracecmd_read_headers) *tracecmd_read_headers;
	__typeof__(tracecmd_get_file_state) *tracecmd_get_file_state;
	__typeof__(tracecmd_init_data) *tracecmd_init_data;
	__typeof__(tracecmd_get_tep) *tracecmd_get_tep;
	__typeof__(tracecmd_read_cpu_first) *tracecmd_read_cpu_first;
	__typeof__(tracecmd_read_data) *tracecmd_read_data;
	__typeof__(tracecmd_free_record) *tracecmd_free_record;
} tc;
static const struct lazy_sym tc_syms[] = {
	LAZY_SYM(tc, tracecmd_set_loglevel),
	LAZY_SYM(tc, tracecmd_alloc_fd),
	LAZY_SYM(tc, tracecmd_read_headers),
	LAZY_SYM(tc, tracecmd_get_file_state),
	LAZY_SYM(tc, tracecmd_init_data),
	LAZY_SYM(tc, tracecmd_get_tep),
	LAZY_SYM(tc, tracecmd_read_cpu_first),
	LAZY_SYM(tc, tracecmd_read_data),
	LAZY_SYM(tc, tracecmd_free_record),
};
static struct lazy_lib tc_loader = LAZY_LIB("libtracecmd.so.1", "libtracecmd1", tc_syms, &tc);

/* CPUs a trace.dat may have: the lab's own limit */
#define TRACECMD_MAX_CPUS	TRACE_MAX_CPUS

/* the child's side: libtracecmd's handle and the merge */
struct tracecmd_child {
	const struct tep_lib *tl;
	struct tracecmd_input *in;
	struct tp_decoder dec;
	int nr_cpus;
	struct tep_record **next;	/* each CPU's next record, NULL at its end */
	int64_t last_ts;
};

/*
 * What goes down the pipe, one after another: a message's kind and error,
 * then its event (msg_len(): the text is sent only with MSG_ERROR)
 */
enum msg_kind {
	MSG_READY,	/* the file opened: events follow */
	MSG_EVENT,
	MSG_ERROR,	/* @err, @text: the file is bad; nothing follows */
	MSG_END,
};

struct msg {
	int32_t kind;
	int32_t err;
	struct trace_event ev;
	char text[300];
};

/* the bytes of a message of kind @kind in the pipe */
static size_t msg_len(int32_t kind)
{
	return kind == MSG_ERROR ? sizeof(struct msg) : offsetof(struct msg, text);
}

/*
 * The child's messages are gathered and written this many bytes at a time
 * (120 events): a write and a wake-up of the reader for each event took
 * 1.2 of the 6.5 ms of `cpuidle stats` on the Juno trace.dat (its 490
 * events: 493 writes, as many polls and reads, 746 switches between the
 * two processes).  A block of the pipe's default 64 KiB keeps the child
 * one write ahead of a reader that is busy with the block before.
 */
#define CHILD_OUT_BYTES		(16 * 1024)

struct child_out {
	int fd;
	size_t len;
	unsigned char buf[CHILD_OUT_BYTES];
};

/* the reader's side: the child, and its pipe */
struct tracecmd_reader {
	pid_t pid;
	int fd;			/* the pipe's read end */
	bool started;		/* the child was started (at the first event) */
	bool no_symbols;	/* no tick asked for: the file's symbols not read */
	bool ended;
	size_t len, pos;
	unsigned char buf[2 * CHILD_OUT_BYTES];	/* a block and what is left of one */
};

/* the kernel's functions the lab looks up by name: the tick's */
static const char *const named_functions[] = { "tick_nohz_handler", "tick_sched_timer", NULL };
/* what every name of named_functions starts with */
#define KALLSYMS_PREFIX	"tick_"

/* is the /proc/kallsyms line @l (@n bytes) one of named_functions'? */
static bool wanted_symbol(const char *l, size_t n)
{
	const char *sp = memchr(l, ' ', n), *name;
	size_t len;

	if (!sp || (size_t)(sp - l) + 3 >= n || sp[2] != ' ')
		return false;
	name = sp + 3;
	len = (size_t)(l + n - name);
	for (const char *const *f = named_functions; *f; f++)
		if (len >= strlen(*f) && !memcmp(name, *f, strlen(*f)) &&
		    (len == strlen(*f) || name[strlen(*f)] == ' ' || name[strlen(*f)] == '\t'))
			return true;
	return false;
}

/**
 * tep_parse_kallsyms() - libtraceevent's, given only the lines the lab uses
 *
 * libtracecmd hands libtraceevent a trace.dat's whole kallsyms to parse,
 * line by line with sscanf: the Juno trace.dat's 2.7 MB take 40 of the
 * 55 ms of trace-cmd report, and 90% of reading it here.  The lab names
 * two functions (the tick's), so this definition, which the dynamic linker
 * binds libtracecmd's call to ahead of libtraceevent's (an executable's
 * symbols come first), keeps the lines naming them and passes those on to
 * the real one.  perf.data's tracing data has no symbols (perf writes
 * none); where it has, they go the same way.
 *
 * Return: what libtraceevent's returns; -1 if it cannot be found.
 */
int tep_parse_kallsyms(struct tep_handle *tep, const char *kallsyms)
{
	int (*real)(struct tep_handle *, const char *);
	const struct tep_lib *tl;
	const char *at, *l, *nl;
	char *kept = NULL, *nk;
	size_t n, o = 0, cap = 0;
	int ret;

	tl = tep_lib(NULL, 0);
	if (!tl)
		return -1;
	real = tl->tep_parse_kallsyms;
	/*
	 * One strstr() pass for the names' common prefix, KALLSYMS_PREFIX (the
	 * 2.7 MB are neither walked line by line nor once a name)
	 */
	for (at = kallsyms; (at = strstr(at, KALLSYMS_PREFIX)); at++) {
		for (l = at; l > kallsyms && l[-1] != '\n'; l--)
			;
		nl = strchr(at, '\n');
		n = nl ? (size_t)(nl - l) : strlen(l);
		if (!wanted_symbol(l, n))
			continue;
		if (o + n + 2 > cap) {
			cap = 2 * (o + n + 2);
			nk = realloc(kept, cap);
			if (!nk) {
				free(kept);
				return real(tep, kallsyms);
			}
			kept = nk;
		}
		memcpy(kept + o, l, n);
		o += n;
		kept[o++] = '\n';
		if (!nl)
			break;
		at = nl;
	}
	ret = real(tep, kept ? (kept[o] = '\0', kept) : "");
	free(kept);
	return ret;
}

/**
 * tep_parse_saved_cmdlines() - libtraceevent's, which the lab does without
 *
 * A trace.dat saves the names of the recorded tasks ("saved command
 * lines"), which libtracecmd hands to libtraceevent to parse line by line
 * (0.33 M instructions on the Juno file, 4% of reading it); the lab reads
 * pids, never a task's name, so as with tep_parse_kallsyms() above this
 * definition comes first and parses nothing.
 *
 * Return: 0.
 */
int tep_parse_saved_cmdlines(struct tep_handle *tep, const char *buf)
{
	(void)tep;
	(void)buf;
	return 0;
}

/* wanted_format()'s answer for a format not laid out as trace-cmd writes them */
#define FORMAT_UNREAD	(-2)

/*
 * The format @buf (@size bytes, of system @sys): the id of the lab's event
 * it describes (trace_event_lookup()), -1 for an event the lab does not
 * read, FORMAT_UNREAD where it does not start as trace-cmd writes it
 */
static int wanted_format(const char *buf, unsigned long size, const char *sys)
{
	static const char key[] = "name: ";
	char full[128];
	const char *name, *end;
	size_t slen, nlen;

	if (!sys || size < sizeof(key) - 1 || memcmp(buf, key, sizeof(key) - 1))
		return FORMAT_UNREAD;
	name = buf + sizeof(key) - 1;
	end = memchr(name, '\n', size - (sizeof(key) - 1));
	if (!end)
		return FORMAT_UNREAD;
	slen = strlen(sys);
	nlen = (size_t)(end - name);
	if (slen + 1 + nlen >= sizeof(full))
		return -1;	/* longer than any name of ours */
	memcpy(full, sys, slen);
	full[slen] = ':';
	memcpy(full + slen + 1, name, nlen);
	return trace_event_lookup(full, slen + 1 + nlen);
}

/* an empty print format, which libtraceevent parses at next to no cost */
static const char no_print[] = "print fmt: \"\"\n";

/*
 * The common fields no reader of the lab's reads (libtraceevent reads
 * common_type for an event's type and common_pid for its pid; these two
 * only for its latency output, which the lab never asks for)
 */
static const char *const unread_common[] = { " common_flags;", " common_preempt_count;" };

/* is the format line @l (@n bytes) one of an unread common field? */
static bool unread_field(const char *l, size_t n)
{
	for (size_t i = 0; i < sizeof(unread_common) / sizeof(unread_common[0]); i++)
		if (memmem(l, n, unread_common[i], strlen(unread_common[i])))
			return true;
	return false;
}

/*
 * The format @buf (@size bytes) made lean in @out (@size + sizeof(no_print)
 * + 1 bytes): its lines up to its print format, less those of the unread
 * common fields, then an empty print format.  Return: @out's length.
 */
static size_t lean_format(char *out, const char *buf, size_t size)
{
	static const char print[] = "print fmt:";
	const char *l, *end = buf + size, *nl;
	size_t o = 0, n;

	for (l = buf; l < end; l += n) {
		nl = memchr(l, '\n', (size_t)(end - l));
		n = nl ? (size_t)(nl - l) + 1 : (size_t)(end - l);
		if (n >= sizeof(print) - 1 && !memcmp(l, print, sizeof(print) - 1))
			break;
		if (unread_field(l, n))
			continue;
		memcpy(out + o, l, n);
		o += n;
	}
	if (o && out[o - 1] != '\n')
		out[o++] = '\n';
	memcpy(out + o, no_print, sizeof(no_print));
	return o + sizeof(no_print) - 1;
}

/**
 * tep_parse_event() - libtraceevent's, for the events the lab reads
 *
 * libtracecmd parses every event format a trace.dat holds (trace-cmd
 * record saves them all: 589 on the Juno file, 574 events of 60 systems
 * and ftrace's 15), most of the remaining time of reading it; the lab
 * decodes 18 events.  (A version 6 file's formats are walked by
 * read_headers_v6() below, which calls this as libtracecmd would.)  As with
 * tep_parse_kallsyms() above, this definition comes first and passes
 * those events' formats on (by their "name:" line and @sys), and takes the
 * others as parsed: their records are then of no event the decoder knows,
 * which it skips.  A format that does not start as trace-cmd and perf
 * write them goes on to libtraceevent, whose error it then is.
 *
 * Those passed on go lean (lean_format()), but for ipi:ipi_entry's, which
 * ipi_reason() (trace_tep.c) prints: libtraceevent reads a format token by
 * token, at over 10,000 instructions a field, and the decoder reads none
 * of a print format and two of the four common fields.  On the Juno
 * trace.dat, the 12 formats of ours took 1.96 M instructions, 1.54 M with
 * their print formats emptied (the idea is trace_perf_format.c's
 * clean_format(), which empties perf.data's before they come here), and
 * 1.14 M without the two common fields as well.
 *
 * Return: what libtraceevent's returns; 0 for a format not passed on.
 */
enum tep_errno tep_parse_event(struct tep_handle *tep, const char *buf, unsigned long size,
			       const char *sys)
{
	enum tep_errno (*real)(struct tep_handle *, const char *, unsigned long, const char *);
	int id = wanted_format(buf, size, sys);
	const struct tep_lib *tl;
	enum tep_errno ret;
	char *lean;

	if (id == -1)
		return 0;
	tl = tep_lib(NULL, 0);
	if (!tl)
		return TEP_ERRNO__MEM_ALLOC_FAILED;
	real = tl->tep_parse_event;
	if (id < 0 || id == EV_IPI_ENTRY)
		return real(tep, buf, size, sys);
	lean = malloc(size + sizeof(no_print) + 1);
	if (!lean)
		return TEP_ERRNO__MEM_ALLOC_FAILED;
	ret = real(tep, lean, lean_format(lean, buf, size), sys);
	free(lean);
	return ret;
}

/* the decompressed file into an unlinked temporary one; its descriptor */
static int spool(struct trace_reader *r)
{
	const char *dir = getenv("TMPDIR");
	const unsigned char *b;
	char path[4096];
	ssize_t n, w;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s/cpuidle-trace.dat.XXXXXX", dir);
		fd = mkstemp(path);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0)
		return trace_fail(r, -errno, 0, "cannot make a temporary file in %s for the "
				  "decompressed trace.dat: %s", dir, strerror(errno));
	for (;;) {
		n = trace_src_bytes(&r->src, 1 << 16, &b);
		if (n < 0) {
			close(fd);
			return trace_src_fail(r, (int)n);
		}
		if (!n)
			break;
		for (ssize_t done = 0; done < n; done += w) {
			w = write(fd, b + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w < 0) {
				int err = errno;

				close(fd);
				return trace_fail(r, -err, 0, "cannot write the decompressed trace.dat "
						  "to %s: %s", dir, strerror(err));
			}
		}
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return trace_fail(r, -errno, 0, "seek error: %s", strerror(errno));
	}
	return fd;
}

/* the version a trace.dat's magic (3 bytes, "tracing") is followed by, as a string */
#define TRACEDAT_VERSION_AT	10
#define TRACEDAT_VERSION_6	"6"

/* is the trace.dat open at @fd of version 6 (its headers one after another)? */
static bool version6(int fd)
{
	char v[sizeof(TRACEDAT_VERSION_6)];

	return pread(fd, v, sizeof(v), TRACEDAT_VERSION_AT) == (ssize_t)sizeof(v) &&
	       !memcmp(v, TRACEDAT_VERSION_6, sizeof(v));
}

/* libtracecmd's descriptor (@fd), and what step_past() puts there */
struct tracedat_fds {
	int fd;
	int file;	/* the file, as @fd */
	int zero;	/* /dev/zero */
};

/*
 * libtracecmd's step to @state (the one whose first field is a count or a
 * size) taken with /dev/zero standing at its descriptor: it reads that
 * field as 0, nothing to read; then the file is back there, at @resume,
 * where it goes on.  Return: 0, or -1 (the file's error, at @resume).
 */
static int step_past(struct tracecmd_input *in, const struct tracedat_fds *f, int state,
		     off_t resume)
{
	int ret = -1;

	if (dup2(f->zero, f->fd) == f->fd) {
		ret = tc.tracecmd_read_headers(in, state);
		if (dup2(f->file, f->fd) != f->fd)
			ret = -1;
	}
	if (ret < 0 || tc.tracecmd_get_file_state(in) != state ||
	    lseek(f->fd, resume, SEEK_SET) < 0)
		return -1;
	return 0;
}

/*
 * The release of libtracecmd whose steps read_headers_v6() was written
 * against, and checked with: 1.3 (Debian 12's 1.3.1), whose header steps
 * read(2) at the handle's descriptor what they need, no more, nothing kept
 * ahead.  Another release (its file's name, libtracecmd.so.1.X.Y, says
 * which) reads the whole file itself: slower, never wrong.
 */
#define TRACECMD_STEPS_RELEASE	"libtracecmd.so.1.3."

/* is the libtracecmd loaded the release whose steps are known? (once) */
static bool steps_known(void)
{
	static int known = -1;
	char path[PATH_MAX];
	const char *base;
	Dl_info info;

	if (known < 0) {
		known = dladdr((void *)tc.tracecmd_read_headers, &info) && info.dli_fname &&
			realpath(info.dli_fname, path);
		if (known) {
			base = strrchr(path, '/');
			base = base ? base + 1 : path;
			known = !strncmp(base, TRACECMD_STEPS_RELEASE,
					 strlen(TRACECMD_STEPS_RELEASE));
		}
	}
	return known;
}

/*
 * A format of ftrace's own (td_format_ops ftrace) or of a traced system
 * (event), handed to tep_parse_event() as libtracecmd would (the filter
 * above); @ctx: the handle
 */
static int hand_event_format(void *ctx, const char *sys, const unsigned char *text, size_t size)
{
	tep_parse_event(ctx, (const char *)text, (unsigned long)size, sys);
	return 0;
}

static int hand_ftrace_format(void *ctx, const unsigned char *text, size_t size)
{
	return hand_event_format(ctx, "ftrace", text, size);
}

/*
 * A version 6 file's headers (@fd: libtracecmd's, at its first headers),
 * but its kernel symbols with @no_symbols.
 *
 * libtracecmd reads a file's event formats by two read(2) calls each
 * (a size, then the text, into a buffer of its own) and its symbols whole
 * into a buffer it allocates for them (the Juno trace.dat's 2.7 MB: 665
 * pages the kernel gives afresh, ~1.5 ms on a VM that backs each page as
 * it is first touched); it has no way to leave either out, but reads its
 * headers in the file's order, up to a state.  So the first headers are
 * read, then the formats are walked in the file mapped (td_walk_formats(),
 * the walk perf.data's tracing data shares: each handed to libtraceevent as
 * libtracecmd would) and libtracecmd's steps for them are taken past them
 * (step_past()); then the symbols' step, likewise with @no_symbols; then
 * the rest.  A libtracecmd of another release (steps_known()) or whose
 * states are not the ones known here, or a file that cannot be mapped (or
 * no /dev/zero, or no descriptor left), is read whole by libtracecmd.
 *
 * Return: what tracecmd_read_headers() returns: 0, or -1 where the file is
 * cut short or corrupt (where libtracecmd's reads would fail).
 */
static int read_headers_v6(struct tracecmd_input *in, int fd, bool no_symbols)
{
	static const struct td_format_ops hand = {
		.ftrace = hand_ftrace_format,
		.event = hand_event_format,
	};
	struct tracedat_fds f = { .fd = fd, .file = -1, .zero = -1 };
	struct tep_handle *tep = tc.tracecmd_get_tep(in);
	struct td_cursor c = { 0 };
	const struct tep_lib *tl;
	void *map = MAP_FAILED;
	size_t ftrace_end, symbols;
	struct stat st;
	uint64_t size = 0;
	off_t at;
	int ret;

	if (tc.tracecmd_read_headers(in, TC_STATE_HEADERS) < 0)
		return -1;
	at = lseek(fd, 0, SEEK_CUR);
	tl = tep_lib(NULL, 0);
	if (tl && tep && steps_known() &&
	    tc.tracecmd_get_file_state(in) == TC_STATE_HEADERS && !fstat(fd, &st) &&
	    at >= 0 && at <= st.st_size) {
		c.big = tl->tep_is_file_bigendian(tep);
		f.file = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		f.zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
		if (f.file >= 0 && f.zero >= 0 && st.st_size > 0)
			map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	}
	if (map == MAP_FAILED) {	/* (libtracecmd's step not taken, or the file not mapped) */
		ret = tc.tracecmd_read_headers(in, TC_STATE_ALL);
		goto out;
	}
	c.b = map;
	c.len = (size_t)st.st_size;
	c.pos = (size_t)at;
	/* (the walk's only error: the file ends first, where libtracecmd's read fails) */
	ret = td_walk_formats(&c, &hand, tep, &ftrace_end) ? -1 : 0;
	symbols = c.pos;
	if (!ret && no_symbols && !td_number(&c, 4, &size))
		ret = -1;
	munmap(map, c.len);
	if (ret || step_past(in, &f, TC_STATE_FTRACE_EVENTS, (off_t)ftrace_end) ||
	    step_past(in, &f, TC_STATE_ALL_EVENTS, (off_t)symbols) ||
	    (no_symbols && step_past(in, &f, TC_STATE_KALLSYMS, (off_t)(symbols + 4 + size))))
		ret = -1;
	else
		ret = tc.tracecmd_read_headers(in, TC_STATE_ALL);
out:
	if (f.file >= 0)
		close(f.file);
	if (f.zero >= 0)
		close(f.zero);
	return ret;
}

#define CHILD_FAIL(err_, ...)	(snprintf(msg, msglen, __VA_ARGS__), (err_))

/*
 * the child: the file open (its symbols left out with @no_symbols), the
 * decoder ready; 0 or -errno with @msg
 */
static int child_open(struct tracecmd_child *t, int fd, bool no_symbols, char *msg,
		      size_t msglen)
{
	struct tracecmd_input *in;
	struct tep_handle *tep;
	char why[300], path[64];
	int err, cpu, own, ret;

	tc.tracecmd_set_loglevel(TEP_LOG_NONE);
	/*
	 * The headers, then the data (tracecmd_open_head()'s steps, then
	 * tracecmd_init_data()): libtracecmd 1.3.1's tracecmd_open_fd()
	 * crashes freeing what it made when the data does not load (a file cut
	 * short), so the two are taken apart (the child's exit frees all).
	 * The file is opened again, its offset libtracecmd's alone.
	 */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	own = open(path, O_RDONLY | O_CLOEXEC);
	in = own >= 0 ? tc.tracecmd_alloc_fd(own, TRACECMD_FL_LOAD_NO_PLUGINS |
					     TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS) : NULL;
	if (in && version6(own))
		ret = read_headers_v6(in, own, no_symbols);
	else
		ret = in ? tc.tracecmd_read_headers(in, TC_STATE_ALL) : -1;
	if (ret < 0)
		return CHILD_FAIL(-EINVAL, "libtracecmd cannot read this trace.dat file's headers "
				  "(cut short, corrupt, or of a version it does not know: "
				  "trace-cmd report says more)");
	if (tc.tracecmd_init_data(in) < 0)
		return CHILD_FAIL(-EINVAL, "libtracecmd cannot load this trace.dat file's data "
				  "(cut short, or corrupt: trace-cmd report says more)");
	t->in = in;
	t->tl = tep_lib(why, sizeof(why));
	if (!t->tl)
		return CHILD_FAIL(-ELIBACC, "%s", why);
	tep = tc.tracecmd_get_tep(t->in);
	t->nr_cpus = tep ? t->tl->tep_get_cpus(tep) : 0;
	if (t->nr_cpus <= 0 || t->nr_cpus > TRACECMD_MAX_CPUS)
		return CHILD_FAIL(-EINVAL, "the trace.dat file says it has %d CPUs", t->nr_cpus);
	err = tp_decoder_init(&t->dec, tep, "the trace.dat's event formats", why, sizeof(why));
	if (err)
		return CHILD_FAIL(err, "%s", why);
	if (!t->dec.nr)
		return CHILD_FAIL(-EINVAL, "none of the events the lab reads was recorded "
				  "(power:cpu_idle and the others: see cpuidle-record(1))");
	t->next = calloc((size_t)t->nr_cpus, sizeof(*t->next));
	if (!t->next)
		return CHILD_FAIL(-ENOMEM, "out of memory");
	for (cpu = 0; cpu < t->nr_cpus; cpu++)
		t->next[cpu] = tc.tracecmd_read_cpu_first(t->in, cpu);
	t->last_ts = 0;
	return 0;
}

/*
 * The pid a record is decoded with: tp_decode() keeps the one it is given
 * for the events that carry it (the QoS requests') and sets every other
 * event's, so the record's pid is looked up for those alone, not for each
 * record (tep_data_pid(): 90 instructions, and 87% of the Juno file's
 * records are of events the lab does not read)
 */
#define PID_UNREAD	INT_MIN

/* the child: the next event in time order; 1, 0 at the end, or -errno with @msg */
static int child_next(struct tracecmd_child *t, struct trace_event *ev, char *msg,
		      size_t msglen)
{
	static const struct trace_event none = { .pid = -1 };
	struct tep_record *rec;
	char why[200];
	bool fn_addr;
	int cpu, best, ret;

	for (;;) {
		best = -1;
		for (cpu = 0; cpu < t->nr_cpus; cpu++)
			if (t->next[cpu] && (best < 0 || t->next[cpu]->ts < t->next[best]->ts))
				best = cpu;
		if (best < 0)
			return 0;
		rec = t->next[best];
		if (rec->missed_events) {
			/* the drop comes before the record, at the time last read */
			*ev = none;
			ev->type = TEV_LOST;
			ev->cpu = (unsigned int)best;
			ev->ts_ns = t->last_ts;
			ev->line = rec->offset;
			ev->value = rec->missed_events > 0 ? rec->missed_events : 0;
			rec->missed_events = 0;
			return 1;
		}
		t->next[best] = tc.tracecmd_read_data(t->in, best);
		if (rec->ts > INT64_MAX)
			return CHILD_FAIL(-ERANGE, "CPU %d's record at byte %llu: time stamp out of "
					  "range", best, (unsigned long long)rec->offset);
		*ev = none;
		ev->ts_ns = (int64_t)rec->ts;
		ev->cpu = (unsigned int)best;
		ev->line = rec->offset;
		ev->pid = PID_UNREAD;
		ret = rec->size > 0 ? tp_decode(&t->dec, rec->data, (size_t)rec->size, ev, &fn_addr,
						why, sizeof(why)) : 0;
		if (ret < 0)
			return CHILD_FAIL(ret, "byte %llu: %s", (unsigned long long)rec->offset, why);
		if (ret > 0 && ev->pid == PID_UNREAD)
			ev->pid = t->tl->tep_data_pid(tc.tracecmd_get_tep(t->in), rec);
		tc.tracecmd_free_record(rec);
		if (ret > 0) {
			t->last_ts = ev->ts_ns;
			return 1;
		}
	}
}

/* the child's gathered messages written; false if the reader went away */
static bool out_flush(struct child_out *o)
{
	size_t done = 0;
	ssize_t n;

	while (done < o->len) {
		n = write(o->fd, o->buf + done, o->len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		done += (size_t)n;
	}
	o->len = 0;
	return true;
}

/* @m gathered, the block written first if it is full; false if the reader went away */
static bool out_put(struct child_out *o, const struct msg *m)
{
	size_t n = msg_len(m->kind);

	if (o->len + n > sizeof(o->buf) && !out_flush(o))
		return false;
	memcpy(o->buf + o->len, m, n);
	o->len += n;
	return true;
}

/* a sanitizer's, where the program is built with one */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

/*
 * The child's death is the file's error, not the process's: the crash
 * handlers it inherited (a fuzzer's, which would record the input as its
 * own finding) go, and what libtracecmd or a sanitizer says on the way
 * out is not shown (the parent says what happened).
 */
static void child_quiet(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(NULL);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	if (null >= 0) {
		dup2(null, STDERR_FILENO);
		close(null);
	}
}

/* the child's life: open, then every event, then the end; never returns */
static void __attribute__((noreturn)) child_main(int fd, bool no_symbols, int out)
{
	struct child_out o = { .fd = out };
	struct tracecmd_child t = { 0 };
	struct msg m = { 0 };
	int ret;

	child_quiet();
	ret = child_open(&t, fd, no_symbols, m.text, sizeof(m.text));
	m.kind = ret ? MSG_ERROR : MSG_READY;
	m.err = ret;
	if (!out_put(&o, &m) || ret) {
		out_flush(&o);
		_exit(0);
	}
	for (;;) {
		ret = child_next(&t, &m.ev, m.text, sizeof(m.text));
		m.kind = ret > 0 ? MSG_EVENT : ret ? MSG_ERROR : MSG_END;
		m.err = ret < 0 ? ret : 0;
		if (!out_put(&o, &m))
			_exit(0);
		if (ret <= 0) {
			out_flush(&o);
			_exit(0);
		}
	}
}

/*
 * How long the child may say nothing before it is taken to be stuck (a
 * loop in libtracecmd on a corrupt file), in ms: libtracecmd opens a
 * trace.dat of gigabytes in seconds, and then events keep coming.
 * CPUIDLE_TRACEDAT_TIMEOUT_MS sets another (the fuzz target's is short).
 */
#define CHILD_SILENCE_MS	60000

static int child_silence_ms(void)
{
	const char *e = getenv("CPUIDLE_TRACEDAT_TIMEOUT_MS");
	long v = e ? strtol(e, NULL, 10) : 0;

	return v > 0 && v <= 3600000 ? (int)v : CHILD_SILENCE_MS;
}

/* the bytes of the message at the reader's buffer's @pos, or 0 if it has not all come */
static size_t msg_waiting(const struct tracecmd_reader *t)
{
	size_t have = t->len - t->pos, need;
	int32_t kind;

	if (have < sizeof(kind))
		return 0;
	memcpy(&kind, t->buf + t->pos, sizeof(kind));
	need = msg_len(kind);
	return have >= need ? need : 0;
}

/* the next message from the child: 1, or -errno with the reader's message set */
static int recv_msg(struct trace_reader *r, struct msg *m)
{
	struct tracecmd_reader *t = r->tracecmd;
	struct pollfd pfd = { .fd = t->fd, .events = POLLIN };
	size_t need;
	int status, ready;
	ssize_t n;

	while (!(need = msg_waiting(t))) {
		if (t->pos) {
			memmove(t->buf, t->buf + t->pos, t->len - t->pos);
			t->len -= t->pos;
			t->pos = 0;
		}
		ready = poll(&pfd, 1, child_silence_ms());
		if (ready < 0 && errno == EINTR)
			continue;
		if (!ready) {
			kill(t->pid, SIGKILL);
			while (waitpid(t->pid, NULL, 0) < 0 && errno == EINTR)
				;
			t->pid = 0;
			return trace_fail(r, -ETIMEDOUT, 0, "libtracecmd made no progress on this "
					  "trace.dat for %d s: the file is corrupt (trace-cmd report "
					  "says more)", child_silence_ms() / 1000);
		}
		n = read(t->fd, t->buf + t->len, sizeof(t->buf) - t->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0) {
			t->len += (size_t)n;
			continue;
		}
		/* the child is gone without a word: how */
		while (waitpid(t->pid, &status, 0) < 0 && errno == EINTR)
			;
		t->pid = 0;
		if (WIFSIGNALED(status))
			return trace_fail(r, -EINVAL, 0, "libtracecmd crashed reading this trace.dat "
					  "(signal %d): the file is corrupt (trace-cmd report says "
					  "more)", WTERMSIG(status));
		return trace_fail(r, -EINVAL, 0, "libtracecmd failed reading this trace.dat "
				  "(exit %d): the file is corrupt (trace-cmd report says more)",
				  WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	memcpy(m, t->buf + t->pos, need);
	t->pos += need;
	if (need < sizeof(*m))
		m->text[0] = '\0';
	m->text[sizeof(m->text) - 1] = '\0';
	return 1;
}

/**
 * trace_tracecmd_open() - a trace.dat file (its magic is checked), to be
 * opened by libtracecmd at the first trace_next(), whose errors are then
 * the file's
 * @r: the reader, its source at the file's first byte
 *
 * Return: 0, or a negative errno with the reader's message set.
 */
int trace_tracecmd_open(struct trace_reader *r)
{
	struct tracecmd_reader *t;

	t = calloc(1, sizeof(*t));
	if (!t)
		return trace_fail(r, -ENOMEM, 0, "out of memory");
	r->tracecmd = t;
	t->fd = -1;
	/*
	 * libtracecmd opens the file when the first event is asked for: a
	 * command that opens a trace only for its description (the recording
	 * beside it) pays nothing more.
	 */
	return 0;
}

/* the child started on the file, and its first word: 0, or the error */
static int start_child(struct trace_reader *r)
{
	struct tracecmd_reader *t = r->tracecmd;
	int fd, pipefd[2], ret;
	char why[240];
	struct msg m;

	t->started = true;
	if (lazy_lib_load(&tc_loader, why, sizeof(why)))
		return trace_fail(r, -ELIBACC, 0, "reading trace.dat %s", why);
	if (r->src.kind == SRC_PLAIN && trace_src_seekable(&r->src)) {
		fd = dup(r->src.fd);
		if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0) {
			ret = -errno;
			if (fd >= 0)
				close(fd);
			return trace_fail(r, ret, 0, "%s", strerror(-ret));
		}
	} else {
		fd = spool(r);
		if (fd < 0)
			return fd;
	}
	if (pipe2(pipefd, O_CLOEXEC)) {
		ret = -errno;
		close(fd);
		return trace_fail(r, ret, 0, "pipe: %s", strerror(-ret));
	}
	t->pid = fork();
	if (t->pid < 0) {
		ret = -errno;
		t->pid = 0;
		close(fd);
		close(pipefd[0]);
		close(pipefd[1]);
		return trace_fail(r, ret, 0, "fork: %s", strerror(-ret));
	}
	if (!t->pid) {
		close(pipefd[0]);
		child_main(fd, t->no_symbols, pipefd[1]);
	}
	close(fd);
	close(pipefd[1]);
	t->fd = pipefd[0];
	ret = recv_msg(r, &m);
	if (ret < 0)
		return ret;
	if (m.kind == MSG_ERROR)
		return trace_fail(r, m.err < 0 ? m.err : -EINVAL, 0, "%s", m.text);
	if (m.kind != MSG_READY)
		return trace_fail(r, -EINVAL, 0, "internal error: message %d from the reader", m.kind);
	return 0;
}

/**
 * trace_tracecmd_want() - trace_want() for a trace.dat file: every event
 * is given, but with no hrtimer start or expiry asked for, a version 6
 * file's kernel symbols are not read (read_headers_v6()): only
 * the tick's function is looked up there, and the hrtimer events given
 * are then none the tick's, as perf.data's without its vote
 */
void trace_tracecmd_want(struct trace_reader *r, uint32_t types)
{
	struct tracecmd_reader *t = r->tracecmd;

	if (!t->started)
		t->no_symbols = !(types & (1u << TEV_HRTIMER_START | 1u << TEV_HRTIMER_EXPIRE));
}

/**
 * trace_tracecmd_next() - trace_next() for a trace.dat file
 */
int trace_tracecmd_next(struct trace_reader *r, struct trace_event *ev)
{
	struct tracecmd_reader *t = r->tracecmd;
	struct msg m;
	int ret;

	if (!t->started) {
		ret = start_child(r);
		if (ret)
			return ret;
	}
	if (t->ended)
		return 0;
	ret = recv_msg(r, &m);
	if (ret < 0)
		return ret;
	switch (m.kind) {
	case MSG_EVENT:
		*ev = m.ev;
		return 1;
	case MSG_END:
		t->ended = true;
		return 0;
	case MSG_ERROR:
		return trace_fail(r, m.err < 0 ? m.err : -EINVAL, 0, "%s", m.text);
	default:
		return trace_fail(r, -EINVAL, 0, "internal error: message %d from the reader", m.kind);
	}
}

void trace_tracecmd_close(struct trace_reader *r)
{
	struct tracecmd_reader *t = r->tracecmd;

	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	if (t->pid > 0) {
		/* one that said its end exits by itself (a profiler's child writes its data) */
		if (!t->ended)
			kill(t->pid, SIGKILL);
		while (waitpid(t->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	free(t);
	r->tracecmd = NULL;
}
