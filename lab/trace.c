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
 * reverse, is an error.
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
 * "[CPU]" column (@bracket), after "COMM " (perf) or "COMM-" (ftrace).
 * -1 if there are none.
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
	if (p > line && p[-1] != ' ' && p[-1] != '-')
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

static int detect(struct trace_reader *r)
{
	struct trace_head h;
	char *line;
	size_t len;
	int n, ret;

	for (n = 0; n < DETECT_LINES; n++) {
		ret = trace_src_line(&r->src, &line, &len);
		if (ret < 0)
			return trace_src_fail(r, ret);
		if (!ret)
			return trace_fail(r, -EINVAL, 0, n ? "not a trace in a known format" :
							  "empty file");
		if (!n && !strncmp(line, "idlestat version", 16)) {
			r->fmt = TRACE_FMT_IDLESTAT;
			return trace_idlestat_header(r);
		}
		if (!strncmp(line, "# tracer:", 9)) {
			r->fmt = TRACE_FMT_FTRACE;
			return 0;
		}
		if (trace_is_comment(line))
			continue;
		switch (trace_split_line(line, len, &h)) {
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
			break;
		}
	}
	return trace_fail(r, -EINVAL, 0, "not a trace in a known format (no event line in %d lines)",
			  DETECT_LINES);
}

int trace_open(const char *path, struct trace_reader **out, char *err, size_t errlen)
{
	struct trace_reader *r;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!out || !path) {
		if (err && errlen)
			snprintf(err, errlen, "trace_open: no %s", path ? "reader" : "file");
		return -EINVAL;
	}
	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (r)
		r->path = strdup(strcmp(path, "-") ? path : "<stdin>");
	if (!r || !r->path) {
		if (err && errlen)
			snprintf(err, errlen, "%s: out of memory", path);
		free(r);
		return -ENOMEM;
	}
	ret = trace_src_open(&r->src, path);
	if (ret)
		trace_fail(r, ret, 0, "%s", r->src.msg);
	else
		ret = detect(r);
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
 * A line that is not one of our events with a good header (trace_next()
 * parses those): 0 to skip it, or the error.
 */
static int other_line(struct trace_reader *r, const char *line, const struct trace_head *h)
{
	uint64_t lineno = r->src.lineno;

	if (h->style == LINE_NONE) {
		if (trace_is_comment(line) || !trace_names_event(line))
			return 0;	/* the tools' own messages */
		return trace_fail(r, -EINVAL, lineno, "cannot parse this event line: \"%.100s\"",
				  line);
	}
	if (h->style != (r->fmt == TRACE_FMT_PERF ? LINE_PERF : LINE_FTRACE))
		return trace_fail(r, -EINVAL, lineno, "%s line in %s trace (mixed formats)",
				  style_name(h->style), r->fmt == TRACE_FMT_PERF ? "a perf" :
				  r->fmt == TRACE_FMT_FTRACE ? "an ftrace" : "an idlestat");
	if (h->id < 0)
		return 0;
	/* the header's numbers were read with it; only ours must be in range */
	if (h->cpu_err)
		return trace_fail(r, h->cpu_err, lineno, "CPU [%.*s] out of range",
				  (int)h->cpu_len, h->cpu);
	return trace_fail(r, h->ts_err, lineno, "timestamp %.*s out of range", (int)h->ts_len,
			  h->ts);
}

int trace_next(struct trace_reader *r, struct trace_event *ev)
{
	enum trace_line_style want;
	struct trace_head h;
	char *line, why[200];
	size_t len;
	int ret;

	if (!r || !ev)
		return -EINVAL;
	if (r->err)
		return r->err;
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
		if (trace_split_event(line, len, &h, &r->shape) != want || h.id < 0 ||
		    h.cpu_err || h.ts_err) {
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
		ret = trace_parse_payload(h.id, &h, ev, why, sizeof(why));
		if (ret > 0) {
			if (ev->type == TEV_QOS_ADD || ev->type == TEV_QOS_UPDATE ||
			    ev->type == TEV_QOS_REMOVE)
				ev->pid = line_pid(line, h.cpu - 1);
			return ret;
		}
		if (ret < 0)
			return trace_fail(r, ret, r->src.lineno, "%s", why);
	}
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
	trace_src_close(&r->src);
	free(r->path);
	free(r);
}
