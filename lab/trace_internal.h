/* SPDX-License-Identifier: MIT */
/*
 * trace_internal.h - the parts of the trace reader, one job each:
 *
 *   trace_read.c      bytes to lines: the file, xz and gzip decompression,
 *                     lines of any length up to TRACE_LINE_MAX
 *   trace_line.c      one line to its header: CPU, timestamp, event name,
 *                     payload (perf and ftrace lines alike)
 *   trace_event.c     an event's name and payload to a struct trace_event
 *   trace_idlestat.c  idlestat's header (CPUs, state names)
 *   trace.c           the public API: open, format detection, the event loop
 *
 * Errors (trace_next() and trace_open() return them, negated):
 *   EINVAL   empty file, not a known format, a line naming one of our events
 *            that does not parse, a NUL byte, a line over TRACE_LINE_MAX,
 *            a line of the other format (perf in ftrace or the reverse),
 *            a malformed idlestat header
 *   ERANGE   a number out of range: a timestamp over INT64_MAX ns, a negative
 *            CPU or one >= TRACE_MAX_CPUS, a state >= TRACE_MAX_STATES, a
 *            field too large for its type
 *   EBADMSG  a corrupt or truncated xz or gzip stream
 *   ENOMEM   out of memory (or an xz stream that needs over XZ_MEMLIMIT)
 *   other    what open(2), fstat(2) or read(2) said (ENOENT, EISDIR, ...)
 */
#ifndef LAB_TRACE_INTERNAL_H
#define LAB_TRACE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lzma.h>
#include <zlib.h>

#include "trace.h"

/* Longest line accepted, '\n' excluded: longer is an error, never a cut. */
#define TRACE_LINE_MAX		(64 * 1024)

/* ---- trace_read.c: a file as lines ---- */

enum trace_src_kind {
	SRC_PLAIN,
	SRC_XZ,
	SRC_GZ,
};

/**
 * struct trace_src - a file read as lines, decompressed on the fly
 * @out: decompressed bytes; a line wholly inside is returned in place
 * @line: a line that straddles two @out fills, gathered here
 * @lineno: the number of the last line returned (1-based)
 * @msg: what went wrong, without file or line
 */
struct trace_src {
	int fd;
	bool close_fd;
	enum trace_src_kind kind;
	bool in_eof;		/* read(2) said end of file */
	bool out_end;		/* no more decompressed bytes will come */
	bool xz_init;
	bool gz_init;
	lzma_stream xz;
	z_stream gz;
	unsigned char *in;
	char *out;
	size_t out_pos;
	size_t out_len;
	char *line;
	size_t line_len;
	size_t line_cap;
	uint64_t bytes_in;
	uint64_t lineno;
	char msg[160];
};

int trace_src_open(struct trace_src *s, const char *path);
int trace_src_line(struct trace_src *s, char **line, size_t *len);
uint64_t trace_src_consumed(const struct trace_src *s);
void trace_src_close(struct trace_src *s);

/* ---- trace_line.c: the header of one line ---- */

enum trace_line_style {
	LINE_NONE,	/* not an event line */
	LINE_PERF,	/* COMM PID [CPU] SECS.FRAC: GROUP:EVENT: PAYLOAD */
	LINE_FTRACE,	/* COMM-PID [CPU] FLAGS SECS.FRAC: EVENT: PAYLOAD */
};

/**
 * struct trace_head - the fixed fields of an event line, as text
 * @cpu: the CPU number, an optional '-' and digits, @cpu_len long
 * @ts: "SECS.FRAC", @ts_len long
 * @event: the event name ("group:name" or "name"), @event_len long
 * @payload: the rest of the line, to its NUL
 */
struct trace_head {
	enum trace_line_style style;
	const char *cpu;
	size_t cpu_len;
	const char *ts;
	size_t ts_len;
	const char *event;
	size_t event_len;
	const char *payload;
};

enum trace_line_style trace_split_line(const char *line, struct trace_head *h);
bool trace_is_comment(const char *line);

/* ---- trace_event.c: numbers, event names and payloads ---- */

int trace_parse_u64(const char **p, uint64_t *v);
int trace_parse_cpu(const char *s, size_t len, unsigned int *cpu);
int trace_parse_ts(const char *s, size_t len, int64_t *ns);
int trace_event_lookup(const char *name, size_t len);
bool trace_names_event(const char *line);
int trace_parse_payload(int id, const struct trace_head *h, struct trace_event *ev,
			char *why, size_t whylen);

/* ---- trace.c and trace_idlestat.c: the reader ---- */

struct trace_reader {
	struct trace_src src;
	char *path;		/* as named in messages */
	enum trace_format fmt;
	struct trace_info info;
	char *pending;		/* a line read ahead, parsed by the next call */
	int err;		/* sticky: once failed, always failed */
	char errmsg[512];
};

int trace_fail(struct trace_reader *r, int err, uint64_t line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int trace_src_fail(struct trace_reader *r, int err);
int trace_idlestat_header(struct trace_reader *r);

#endif /* LAB_TRACE_INTERNAL_H */
