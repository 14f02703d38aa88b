// SPDX-License-Identifier: MIT
/*
 * trace.c - reading idle traces (see trace.h): open a file, tell its
 * format from its first lines, and turn its lines into events.
 *
 * The format is decided by the first line that settles it: an "idlestat
 * version" first line (idlestat), a "# tracer:" line (ftrace), or else the
 * first event line, perf or ftrace by its shape (trace_line.c).  Blank
 * lines, comments and other preamble (trace-cmd's "cpus=2", "version = 6")
 * before it are skipped, up to DETECT_LINES lines.  From then on, every
 * event line must have that shape: a perf line in an ftrace trace, or the
 * reverse, is an error.  A line that could be either (trace_line.c)
 * is read in both.
 *
 * Lost-events markers ("CPU:N [LOST M EVENTS]", trace-cmd's "[M EVENTS
 * DROPPED]", perf's PERF_RECORD_LOST) become TEV_LOST events.  An ftrace
 * marker has no timestamp: it is given that of the last of our events
 * read before it, as it comes before the first event of its CPU after the
 * loss.
 *
 * The errors and their errno values are listed in trace_internal.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

#define DETECT_LINES	1000

static const struct trace_event no_event = { .pid = -1 };

/*
 * The PID of the task that wrote the line: the digits just before the
 * "[CPU]" column (@bracket), after "COMM " (perf), "PID/" (perf's TID) or
 * "COMM-" (ftrace).  -1 if there are none, or if perf says it does not
 * know the task (" -1").
 */
static int line_pid(const char *line, const char *bracket)
{
	const char *p = bracket;
	int pid = 0, scale = 1;

	while (p > line && p[-1] == ' ')
		p--;
	if (p == line || p[-1] < '0' || p[-1] > '9')
		return -1;
	while (p > line && p[-1] >= '0' && p[-1] <= '9') {
		if (scale > 100000000)
			return -1;	/* not a PID: over 9 digits */
		pid += (p[-1] - '0') * scale;
		scale *= 10;
		p--;
	}
	if (p > line && p[-1] == '-' && (p - 1 == line || p[-2] == ' ' || p[-2] == '/'))
		return -1;	/* a negative PID or TID: unknown */
	if (p > line && p[-1] != ' ' && p[-1] != '-' && p[-1] != '/')
		return -1;	/* digits ending a name, not a PID */
	return pid;
}

int trace_fail(struct trace_reader *r, int err, uint64_t line, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		snprintf(r->errmsg, sizeof(r->errmsg), "%s:%llu: %s", r->path,
			 (unsigned long long)line, msg);
	else
		snprintf(r->errmsg, sizeof(r->errmsg), "%s: %s", r->path, msg);
	r->err = err;
	return err;
}

/* an error of the source, about the line it was reading */
int trace_src_fail(struct trace_reader *r, int err)
{
	return trace_fail(r, err, r->src.lineno + 1, "%s", r->src.msg);
}

static const char *style_name(enum trace_line_style style)
{
	return style == LINE_PERF ? "a perf" : "an ftrace";
}

/*
 * Lines name our events but none has a header we read: the columns that
 * are needed, and the tools' options that write them.
 */
static const char unsupported_hint[] =
	": lines name trace events, but not with the columns read here: "
	"\"[CPU] SECS.FRAC: EVENT:\" after the task, as written by "
	"perf script (default fields, or -F comm,pid,cpu,time,event,trace; +period, "
	"+tod, +misc and fields after the event are fine; --ns or not), "
	"/sys/kernel/tracing/trace, and trace-cmd report with or without -R or -t "
	"(not -l, not --raw-ts)";

static int detect(struct trace_reader *r)
{
	struct trace_head h;
	uint64_t cpu, lost;
	bool named = false;
	char *line;
	size_t len;
	int n, ret;

	for (n = 0; n < DETECT_LINES; n++) {
		ret = trace_src_line(&r->src, &line, &len);
		if (ret < 0)
			return trace_src_fail(r, ret);
		if (!ret)
			return trace_fail(r, -EINVAL, 0, "%s%s", n ? "not a trace in a known format" :
				"empty file", named ? unsupported_hint : "");
		if (!n && !strncmp(line, "idlestat version", 16)) {
			r->fmt = TRACE_FMT_IDLESTAT;
			return trace_idlestat_header(r);
		}
		if (!strncmp(line, "# tracer:", 9)) {
			r->fmt = TRACE_FMT_FTRACE;
			return 0;
		}
		if (!strncmp(line, TRACE_RECORDING_PREFIX, sizeof(TRACE_RECORDING_PREFIX) - 1)) {
			size_t k = sizeof(TRACE_RECORDING_PREFIX) - 1, add = len - k + 1;

			if (r->info.recording_len + add > sizeof(r->info.recording))
				return trace_fail(r, -EINVAL, r->src.lineno, "the recording's "
						  "description is longer than %d bytes",
						  TRACE_RECORDING_MAX);
			memcpy(r->info.recording + r->info.recording_len, line + k, len - k);
			r->info.recording_len += add;
			r->info.recording[r->info.recording_len - 1] = '\n';
			continue;
		}
		if (trace_is_comment(line))
			continue;
		switch (trace_split_line(line, len, &h)) {
		case LINE_EITHER:
			/* perf's naming ("group:event"), until a line says */
			r->fmt_tentative = true;
			/* fall through */
		case LINE_PERF:
			r->fmt = TRACE_FMT_PERF;
			r->pending = line;
			r->pending_len = len;
			return 0;
		case LINE_FTRACE:
			r->fmt = TRACE_FMT_FTRACE;
			r->pending = line;
			r->pending_len = len;
			return 0;
		default:
			if (trace_lost_marker(line, line + len, &cpu, &lost)) {
				/* ftrace's or trace-cmd's, its events lost from the start */
				r->fmt = TRACE_FMT_FTRACE;
				r->pending = line;
				r->pending_len = len;
				return 0;
			}
			named = named || trace_names_event(line);
			break;
		}
	}
	return trace_fail(r, -EINVAL, 0, "not a trace in a known format (no event line in %d lines)%s",
			  DETECT_LINES, named ? unsupported_hint : "");
}

/*
 * Binary files, by their first bytes: perf.data is read (trace_perf.c); the
 * others are named, with what to do, rather than read as text and refused
 * for a NUL byte.
 */
static const struct {
	const char *magic;
	size_t len;
	const char *what;
} binary_kinds[] = {
	{ "PERFFILE", 8, "a perf.data file of the format before 2.6.37: not read; "
	  "give its text (perf script -F comm,pid,cpu,time,event,trace --ns)" },
	{ "BZh", 3, "a bzip2-compressed file: not read; decompress it (bunzip2 -k), "
	  "or recompress it with xz, gzip or zstd" },
	{ "\x04\x22\x4d\x18", 4, "an lz4-compressed file: not read; decompress it "
	  "(lz4 -d), or recompress it with xz, gzip or zstd" },
	{ "PK\x03\x04", 4, "a zip archive: not read; extract the trace from it" },
	{ "\x7f" "ELF", 4, "an ELF executable or object, not a trace" },
	{ "SQLite format 3", 15, "an SQLite database, not a trace" },
	{ "\x89PNG", 4, "a PNG image, not a trace" },
	{ "CPUIDLIV", 8, "an interval file, which is read from a regular file only "
	  "(its header is read again at the end): save it to a file first" },
};

/*
 * Text has no control bytes but tab, newline, vertical tab, form feed,
 * carriage return and escape (colours); UTF-8 is bytes of 0x80 and above.
 */
static bool looks_like_text(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] < 0x20 && (b[i] < '\t' || b[i] > '\r') && b[i] != 0x1b)
			return false;
	return true;
}

/* 1 if the file is binary (a perf.data opened, or an error said), else 0 */
static int binary(struct trace_reader *r)
{
	const unsigned char *b;
	ssize_t n;
	size_t i;

	n = trace_src_peek(&r->src, TRACE_PEEK_MAX, &b);
	if (n < 0)
		return trace_src_fail(r, (int)n);
	if (n >= 8 && (!memcmp(b, "PERFILE2", 8) || !memcmp(b, "2ELIFREP", 8))) {
		r->fmt = TRACE_FMT_PERF;
		r->binary = true;
		n = r->info_only ? 0 : trace_perf_open(r);
		return n ? (int)n : 1;
	}
	if (n >= 10 && !memcmp(b, "\x17\x08\x44tracing", 10)) {
		r->fmt = TRACE_FMT_FTRACE;
		r->binary = true;
		n = r->info_only ? 0 : trace_tracecmd_open(r);
		return n ? (int)n : 1;
	}
	for (i = 0; i < sizeof(binary_kinds) / sizeof(binary_kinds[0]); i++)
		if ((size_t)n >= binary_kinds[i].len &&
		    !memcmp(b, binary_kinds[i].magic, binary_kinds[i].len))
			return trace_fail(r, -EINVAL, 0, "%s", binary_kinds[i].what);
	if (!looks_like_text(b, (size_t)n))
		return trace_fail(r, -EINVAL, 0, "a binary file of a kind not read here (it "
				  "starts %02x %02x %02x %02x): give a perf.data file, or the "
				  "text of perf script, trace-cmd report, ftrace or idlestat",
				  n > 0 ? b[0] : 0, n > 1 ? b[1] : 0, n > 2 ? b[2] : 0,
				  n > 3 ? b[3] : 0);
	return 0;
}

/*
 * A binary recording's description, beside it in PATH.recording (cpuidle
 * record writes it: perf.data holds no comments), lines as a text trace's
 * description comments.  None is fine; a malformed one is an error.
 */
static int side_description(struct trace_reader *r, const char *path)
{
	static const char prefix[] = TRACE_RECORDING_PREFIX;
	char side[4200], line[1024];
	unsigned long lineno = 0;
	size_t k = sizeof(prefix) - 1, n;
	FILE *f;

	if (!strcmp(path, "-") || snprintf(side, sizeof(side), "%s.recording", path) >=
	    (int)sizeof(side))
		return 0;
	f = fopen(side, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		n = strcspn(line, "\n");
		if (line[n] != '\n' && !feof(f)) {
			fclose(f);
			return trace_fail(r, -EINVAL, 0, "%s:%lu: a line over %zu bytes", side, lineno,
					  sizeof(line) - 2);
		}
		line[n] = '\0';
		if (n < k || memcmp(line, prefix, k)) {
			fclose(f);
			return trace_fail(r, -EINVAL, 0, "%s:%lu: not a recording's description "
					  "line (\"%s...\")", side, lineno, prefix);
		}
		if (r->info.recording_len + n - k + 1 > sizeof(r->info.recording)) {
			fclose(f);
			return trace_fail(r, -EINVAL, 0, "%s: the recording's description is longer "
					  "than %d bytes", side, TRACE_RECORDING_MAX);
		}
		memcpy(r->info.recording + r->info.recording_len, line + k, n - k);
		r->info.recording_len += n - k + 1;
		r->info.recording[r->info.recording_len - 1] = '\n';
	}
	fclose(f);
	return 0;
}

/* a reader of @path allocated (*@r), none yet in *@out: 0, or an errno said in @err */
static int new_reader(const char *path, struct trace_reader **out, struct trace_reader **r,
		      char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!out || !path) {
		if (err && errlen)
			snprintf(err, errlen, "trace_open: no %s", path ? "reader" : "file");
		return -EINVAL;
	}
	*out = NULL;
	*r = calloc(1, sizeof(**r));
	if (*r)
		(*r)->path = strdup(strcmp(path, "-") ? path : "<stdin>");
	if (!*r || !(*r)->path) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", path);
		free(*r);
		return -ENOMEM;
	}
	(*r)->src.fd = -1;
	return 0;
}

/* @r opened (@ret 0: into *@out) or not (its message into @err, @r closed) */
static int opened(struct trace_reader *r, int ret, struct trace_reader **out, char *err,
		  size_t errlen)
{
	if (ret) {
		if (err && errlen)
			snprintf(err, errlen, "%s", r->errmsg);
		trace_close(r);
		return ret;
	}
	*out = r;
	return 0;
}

/*
 * trace_open(), or with @info_only the reader of trace_read_info(): a
 * binary file's events (its header, its formats) are not read then
 */
static int open_reader(const char *path, bool info_only, struct trace_reader **out, char *err,
		       size_t errlen)
{
	struct trace_reader *r;
	int ret = new_reader(path, out, &r, err, errlen);

	if (ret)
		return ret;
	r->info_only = info_only;
	ret = trace_src_open(&r->src, path);
	if (ret)
		trace_fail(r, ret, 0, "%s", r->src.msg);
	else
		ret = binary(r);
	if (!ret)
		ret = detect(r);
	else if (ret > 0)
		ret = side_description(r, path);
	return opened(r, ret, out, err, errlen);
}

int trace_open(const char *path, struct trace_reader **out, char *err, size_t errlen)
{
	return open_reader(path, false, out, err, errlen);
}

int trace_read_info(const char *path, struct trace_info *info, char *err, size_t errlen)
{
	struct trace_reader *r;
	int ret;

	if (!info) {
		if (err && errlen)
			snprintf(err, errlen, "trace_read_info: no info");
		return -EINVAL;
	}
	ret = open_reader(path, true, &r, err, errlen);
	if (ret)
		return ret;
	*info = r->info;
	trace_close(r);
	return 0;
}

/*
 * A line that is not one of our events with a good header (trace_next()
 * parses those): 0 to skip it, or the error.
 */
static int other_line(struct trace_reader *r, const char *line, const struct trace_head *h)
{
	uint64_t lineno = r->src.lineno;

	if (h->style == LINE_NONE) {
		if (trace_is_comment(line) || !trace_names_event(line))
			return 0;	/* the tools' own messages */
		if (r->src.unterminated)
			return trace_fail(r, -EINVAL, lineno, "the file ends in the middle of this "
					  "line (truncated): \"%.100s\"", line);
		return trace_fail(r, -EINVAL, lineno, "cannot parse this event line: \"%.100s\"",
				  line);
	}
	if (h->style != LINE_EITHER &&
	    h->style != (r->fmt == TRACE_FMT_PERF ? LINE_PERF : LINE_FTRACE))
		return trace_fail(r, -EINVAL, lineno, "%s line in %s trace (mixed formats)",
				  style_name(h->style), r->fmt == TRACE_FMT_PERF ? "a perf" :
				  r->fmt == TRACE_FMT_FTRACE ? "an ftrace" : "an idlestat");
	if (h->id < 0)
		return 0;
	if (h->cpu_err && trace_event_is_lost(h->id))
		return 0;	/* perf lost events of no known CPU: nothing to say */
	/* the header's numbers were read with it; only ours must be in range */
	if (h->cpu_err)
		return trace_fail(r, h->cpu_err, lineno, "CPU [%.*s] out of range",
				  (int)h->cpu_len, h->cpu);
	return trace_fail(r, h->ts_err, lineno, "timestamp %.*s out of range", (int)h->ts_len,
			  h->ts);
}

/* a line with no event header: a lost-events marker (1, @ev set), another (0), or an error */
static int no_event_line(struct trace_reader *r, const char *line, size_t len,
			 const struct trace_head *h, struct trace_event *ev)
{
	uint64_t cpu, lost;
	int ret;

	ret = trace_lost_marker(line, line + len, &cpu, &lost);
	if (ret < 0)
		return trace_fail(r, ret, r->src.lineno, "lost-events marker out of range: "
				  "\"%.100s\"", line);
	if (!ret)
		return other_line(r, line, h);
	*ev = no_event;
	ev->line = r->src.lineno;
	ev->type = TEV_LOST;
	ev->cpu = (unsigned int)cpu;
	ev->ts_ns = r->last_ts;
	ev->value = lost > INT64_MAX ? INT64_MAX : (int64_t)lost;
	return 1;
}

/*
 * An hrtimer event's tick flag, by address: an hrtimer_start naming the
 * tick's function arms the CPU's tick hrtimer; an event naming its
 * function by address only (@fn_addr) is the tick's if it is that one.
 * Return: 0, or -ENOMEM (said).
 */
static int tick_by_address(struct trace_reader *r, struct trace_event *ev, bool fn_addr)
{
	uint64_t *tick;

	if (!r->tick_timer) {
		r->tick_timer = calloc(TRACE_MAX_CPUS, sizeof(*r->tick_timer));
		if (!r->tick_timer)
			return trace_fail(r, -ENOMEM, ev->line, "out of memory");
	}
	tick = &r->tick_timer[ev->cpu];

	if (ev->tick) {
		if (ev->type == TEV_HRTIMER_START)
			*tick = ev->timer;
	} else if (fn_addr) {
		ev->tick = *tick && *tick == ev->timer;
	} else if (ev->type == TEV_HRTIMER_START && *tick == ev->timer) {
		*tick = 0;	/* the address now holds another timer */
	}
	return 0;
}

/* the error of the payload of line @lineno, said to be a cut line if it is */
static int payload_fail(struct trace_reader *r, int err, uint64_t lineno, const char *why)
{
	if (err == -EINVAL && r->src.unterminated && lineno == r->src.lineno)
		return trace_fail(r, err, lineno, "the file ends in the middle of this line "
				  "(truncated): %s", why);
	return trace_fail(r, err, lineno, "%s", why);
}

int trace_next(struct trace_reader *r, struct trace_event *ev)
{
	enum trace_line_style want, style;
	struct trace_head h;
	char *line, why[200];
	bool fn_addr;
	size_t len;
	int ret;

	if (!r || !ev)
		return -EINVAL;
	if (r->err)
		return r->err;
	if (r->perf)
		return trace_perf_next(r, ev);
	if (r->tracecmd)
		return trace_tracecmd_next(r, ev);
	if (r->ivf)
		return trace_ivf_next(r, ev);
	want = r->fmt == TRACE_FMT_PERF ? LINE_PERF : LINE_FTRACE;
	for (;;) {
		if (r->pending) {
			line = r->pending;
			len = r->pending_len;
			r->pending = NULL;
		} else {
			ret = trace_src_line(&r->src, &line, &len);
			if (ret < 0)
				return trace_src_fail(r, ret);
			if (!ret)
				return 0;
		}
		style = trace_split_event(line, len, &h, &r->shape);
		if (style == LINE_NONE) {
			ret = no_event_line(r, line, len, &h, ev);
			if (ret)
				return ret;
			continue;
		}
		if (style != want && style != LINE_EITHER && r->fmt_tentative) {
			/* the first line that is not either settles the format */
			r->fmt = style == LINE_PERF ? TRACE_FMT_PERF : TRACE_FMT_FTRACE;
			want = style;
		}
		if (style == want)
			r->fmt_tentative = false;
		if ((style != want && style != LINE_EITHER) || h.id < 0 || h.cpu_err || h.ts_err) {
			ret = other_line(r, line, &h);
			if (ret)
				return ret;
			continue;
		}
		/* one of our events, its header good: the payload says the rest */
		*ev = no_event;		/* a copy, not memset(): no rep stos per line */
		ev->line = r->src.lineno;
		ev->cpu = h.cpu_nr;
		ev->ts_ns = h.ts_ns;
		ret = trace_parse_payload(h.id, &h, ev, &fn_addr, why, sizeof(why));
		if (ret > 0) {
			/*
			 * What a lost-events marker after it is lent: the time of
			 * an event given out, so that a marker never runs ahead
			 * of the events read.
			 */
			r->last_ts = ev->ts_ns;
			if (ev->type == TEV_QOS_ADD || ev->type == TEV_QOS_UPDATE ||
			    ev->type == TEV_QOS_REMOVE)
				ev->pid = line_pid(line, h.cpu - 1);
			else if ((ev->type == TEV_HRTIMER_START ||
				  ev->type == TEV_HRTIMER_EXPIRE) && tick_by_address(r, ev, fn_addr))
				return r->err;
			return ret;
		}
		if (ret < 0)
			return payload_fail(r, ret, r->src.lineno, why);
	}
}

int trace_open_intervals(const char *path, struct trace_reader **out, char *err,
			 size_t errlen)
{
	struct trace_reader *r;
	int ret = new_reader(path, out, &r, err, errlen);

	if (ret)
		return ret;
	return opened(r, trace_ivf_open(r, path), out, err, errlen);
}

int trace_next_batch(struct trace_reader *r, const struct trace_event **evs, size_t max)
{
	if (!max)
		return -EINVAL;
	if (r && evs && r->perf && !r->err)
		return trace_perf_next_batch(r, evs, max);
	return trace_next_ref(r, evs);
}

int trace_next_ref(struct trace_reader *r, const struct trace_event **ev)
{
	int ret;

	if (r && ev && r->perf && !r->err)
		return trace_perf_next_ref(r, ev);
	ret = trace_next(r, r && ev ? &r->lent : NULL);
	if (ret > 0)
		*ev = &r->lent;
	return ret;
}

void trace_want(struct trace_reader *r, uint32_t types)
{
	if (r && r->perf && !r->err)
		trace_perf_want(r, types);
	else if (r && r->tracecmd && !r->err)
		trace_tracecmd_want(r, types);
}

void trace_skipped(const struct trace_reader *r, struct trace_skipped *out)
{
	*out = (struct trace_skipped){ .last_ns = INT64_MIN };
	if (r && r->perf)
		trace_perf_skipped(r, out);
}

int64_t trace_skipped_before(struct trace_reader *r, const struct trace_event *ev)
{
	return r && r->perf ? trace_perf_skipped_before(r, ev) : INT64_MIN;
}

const char *trace_error(const struct trace_reader *r)
{
	return r ? r->errmsg : "";
}

enum trace_format trace_format(const struct trace_reader *r)
{
	return r ? r->fmt : TRACE_FMT_PERF;
}

const char *trace_format_name(enum trace_format fmt)
{
	switch (fmt) {
	case TRACE_FMT_PERF:
		return "perf";
	case TRACE_FMT_FTRACE:
		return "ftrace";
	case TRACE_FMT_IDLESTAT:
		return "idlestat";
	}
	return "unknown";
}

bool trace_is_binary(const struct trace_reader *r)
{
	return r && r->binary;
}

const char *trace_where(const struct trace_reader *r, uint64_t line, char *buf, size_t len)
{
	if (trace_is_binary(r))
		snprintf(buf, len, "%s: byte %llu", r->path, (unsigned long long)line);
	else
		snprintf(buf, len, "%s:%llu", r ? r->path : "?", (unsigned long long)line);
	return buf;
}

const struct trace_info *trace_info(const struct trace_reader *r)
{
	static const struct trace_info none;

	return r ? &r->info : &none;
}

uint64_t trace_bytes_read(const struct trace_reader *r)
{
	return r ? trace_src_consumed(&r->src) : 0;
}

void trace_close(struct trace_reader *r)
{
	if (!r)
		return;
	trace_perf_close(r);
	trace_tracecmd_close(r);
	trace_ivf_close(r);
	trace_src_close(&r->src);
	free(r->tick_timer);
	free(r->path);
	free(r);
}
