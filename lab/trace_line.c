// SPDX-License-Identifier: MIT
/*
 * trace_line.c - the header of one event line, perf or ftrace:
 *
 *   perf script:  COMM PID [CPU] SECS.FRAC: GROUP:EVENT: PAYLOAD
 *       "         swapper     0 [000]  2730.243561922:  power:cpu_idle: state=1 cpu_id=0"
 *   ftrace:       COMM-PID [CPU] FLAGS SECS.FRAC: EVENT: PAYLOAD
 *       "          <idle>-0       [000] d..1.  3166.935486: cpu_idle: state=1 cpu_id=0"
 *
 * COMM is free text: spaces, digits, brackets, colons ("kworker/1:1H-kb",
 * "memfd:sealed-91", ":-1", "Web Content").  The header is found as the
 * first place in the line where the whole pattern
 *
 *     ' ' '[' ['-'] DIGITS ']' ' '+ [FLAGS ' '+] DIGITS '.' 6..9 DIGITS ':' ' '+ TOKEN ':' (' ' | end)
 *
 * matches.  No COMM can fake it: the shortest match, "[0] 0.000000: e:",
 * is 16 characters and the kernel's comm holds 15 at most, so the first
 * match is the real header; text after it (sched_wakeup's comm=, an irq's
 * name=) is payload and never looked at here.
 *
 * The style (perf or ftrace) is told by what precedes the '[': ftrace
 * writes COMM-PID (and perhaps a "(TGID)" column) and a FLAGS column, perf
 * writes COMM, spaces, PID.
 */
#include <stdbool.h>
#include <string.h>

#include "trace_internal.h"

static inline bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static const char *skip_spaces(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *skip_token(const char *p)
{
	while (*p && *p != ' ' && *p != '\t')
		p++;
	return p;
}

/* "DIGITS.DIGITS:" with 6 to 9 decimals at @p: the ':' or NULL */
static const char *match_ts(const char *p)
{
	const char *d;

	if (!is_digit(*p))
		return NULL;
	while (is_digit(*p))
		p++;
	if (*p != '.')
		return NULL;
	d = ++p;
	while (is_digit(*p))
		p++;
	if (p - d < 6 || p - d > 9 || *p != ':')
		return NULL;
	return p;
}

/* what precedes the '[' at @br says who wrote the line */
static enum trace_line_style classify(const char *line, const char *br, bool flags)
{
	const char *p = br, *q;

	if (flags)
		return LINE_FTRACE;
	while (p > line && (p[-1] == ' ' || p[-1] == '\t'))
		p--;
	if (p > line && p[-1] == ')')
		return LINE_FTRACE;	/* the "(TGID)" column of record-tgid */
	q = p;
	while (q > line && is_digit(q[-1]))
		q--;
	if (q < p && q > line && q[-1] == '-')
		return LINE_FTRACE;
	return LINE_PERF;
}

static bool match_head(const char *line, const char *br, struct trace_head *h)
{
	const char *p = br + 1, *end, *ev;
	bool flags = false;

	if (br > line && br[-1] != ' ' && br[-1] != '\t')
		return false;
	h->cpu = p;
	if (*p == '-')
		p++;
	if (!is_digit(*p))
		return false;
	while (is_digit(*p))
		p++;
	if (*p != ']')
		return false;
	h->cpu_len = (size_t)(p - h->cpu);
	p++;
	if (*p != ' ' && *p != '\t')
		return false;
	p = skip_spaces(p);
	end = match_ts(p);
	if (!end) {
		/* ftrace's FLAGS column ("d.h1.", "....") comes first */
		end = skip_token(p);
		if (end == p)
			return false;
		p = skip_spaces(end);
		end = match_ts(p);
		if (!end)
			return false;
		flags = true;
	}
	h->ts = p;
	h->ts_len = (size_t)(end - p);
	p = end + 1;
	if (*p != ' ' && *p != '\t')
		return false;
	ev = skip_spaces(p);
	p = skip_token(ev);
	if (p - ev < 2 || p[-1] != ':')
		return false;
	h->event = ev;
	h->event_len = (size_t)(p - ev - 1);
	h->payload = skip_spaces(p);
	h->style = classify(line, br, flags);
	return true;
}

/**
 * trace_split_line() - find the header of an event line
 * @line: the line
 * @h: filled when it is one
 *
 * Return: the line's style, or LINE_NONE if it is not an event line.
 */
enum trace_line_style trace_split_line(const char *line, struct trace_head *h)
{
	const char *br = line;

	while ((br = strchr(br, '['))) {
		if (match_head(line, br, h))
			return h->style;
		br++;
	}
	h->style = LINE_NONE;
	return LINE_NONE;
}

/* blank, or a comment ("# tracer: nop", perf's "# ====" header) */
bool trace_is_comment(const char *line)
{
	line = skip_spaces(line);
	return !*line || *line == '#';
}
