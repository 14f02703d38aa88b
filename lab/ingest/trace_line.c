// SPDX-License-Identifier: MIT
/*
 * trace_line.c - the header of one event line, perf or ftrace:
 *
 *   perf script:  COMM PID [CPU] SECS.FRAC: GROUP:EVENT: PAYLOAD
 *       "         swapper     0 [000]  2730.243561922:  power:cpu_idle: state=1 cpu_id=0"
 *       "             :-1    -1 [001] 70122.904797592:  irq:irq_handler_entry: irq=36 ..."
 *       (PID may be "PID/TID", or absent, or negative; -F +misc, +tod put one
 *       or two tokens before SECS.FRAC, +period a count after it)
 *   ftrace:       COMM-PID [CPU] FLAGS SECS.FRAC: EVENT: PAYLOAD
 *       "          <idle>-0       [000] d..1.  3166.935486: cpu_idle: state=1 cpu_id=0"
 *
 * COMM is free text: spaces, digits, brackets, colons ("kworker/1:1H-kb",
 * "memfd:sealed-91", ":-1", "Web Content").  The header is found as the
 * first place in the line where the whole pattern
 *
 *     ' ' '[' ['-'] DIGITS ']' ' '+ [FLAGS ' '+ [TOKEN ' '+]] DIGITS '.' 6..9 DIGITS ':'
 *     ' '+ [COUNT ' '+] TOKEN ':' (' ' | end)
 *
 * (COUNT: perf's +period, or trace-cmd report --ts-diff's "(+N)".)
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
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#if defined(__SSE2__) && !defined(TRACE_NO_SSE2)
#define TRACE_SSE2	1
#include <emmintrin.h>
#endif

#include "trace_internal.h"

#define MAX_SECS	9223372036ULL	/* INT64_MAX ns in whole seconds */

/*
 * Tokens between "[CPU]" and the timestamp, at most: ftrace's FLAGS
 * column is one, perf's +misc one ("K"), +tod two (date and time).
 */
#define STAMP_TOKENS_MAX	2

/* perf script --show-lost-events: "... TS: PERF_RECORD_LOST lost N" */
static const char perf_lost[] = "PERF_RECORD_LOST";

/* what FRAC with so many digits is multiplied by to be ns */
static const uint32_t frac_scale[10] = {
	0, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1,
};

/* h->ts_ns, or h->ts_err if past INT64_MAX ns */
static inline void set_ts(struct trace_head *h, uint64_t sec, uint64_t frac, size_t digits)
{
	frac *= frac_scale[digits];
	if (sec > MAX_SECS || sec * 1000000000ULL + frac > (uint64_t)INT64_MAX) {
		h->ts_err = -ERANGE;
	} else {
		h->ts_err = 0;
		h->ts_ns = (int64_t)(sec * 1000000000ULL + frac);
	}
}

/* "DIGITS.DIGITS:" with 6 to 9 decimals at @p: the ':' or NULL; its value in @h */
static const char *match_ts(const char *p, const char *end, struct trace_head *h)
{
	const char *s = p, *d;
	uint64_t sec = 0, frac;

	if (!trace_is_digit(*p))
		return NULL;
	do {
		sec = sec * 10 + (unsigned char)*p - '0';	/* modulo 2^64 */
		p++;
	} while (trace_is_digit(*p));
	if (*p != '.')
		return NULL;
	h->sec_len = (size_t)(p - s);
	/* over 11 digits (zeros aside) is out of range, and sec is not exact */
	if (p - s > 11) {
		while (*s == '0')
			s++;
		if (p - s > 11)
			sec = UINT64_MAX;
	}
	d = p + 1;
	p = trace_digits(d, end, &frac);
	if (p - d < 6 || p - d > 9 || *p != ':')
		return NULL;
	set_ts(h, sec, frac, (size_t)(p - d));
	return p;
}

/*
 * Who wrote the line, from what precedes the '[' at @br, the FLAGS column
 * and the event's name (@event, @event_len long):
 *
 *   perf:   "COMM PID" or "COMM PID/TID", the PID apart from COMM and
 *           negative when perf does not know the task (":-1    -1"); the
 *           event as "group:name"; no FLAGS column, but +misc and +tod
 *           write one or two tokens where ftrace writes it
 *   ftrace: "COMM-PID", the PID glued to COMM, perhaps a "(TGID)" column;
 *           a FLAGS column unless irq-info is off (trace-cmd report); the
 *           event as "name"
 *
 * A FLAGS column and a "name" event is ftrace's, whatever precedes them.
 * A glued "COMM-PID" and a "group:name" event with no FLAGS column is
 * either: perf -F comm,cpu,... with a COMM like "memfd:sealed-91", or
 * ftrace text naming the group.  LINE_EITHER lets it be read in both
 * (and a trace whose first lines are all so is settled by the first that
 * is not: trace.c).
 * (A COMM that is empty in ftrace, "      -1234 [000]", reads as perf's.)
 */
static enum trace_line_style classify(const char *line, const char *br, bool flags,
				      const char *event, size_t event_len)
{
	const char *p = br, *q;
	bool group = memchr(event, ':', event_len);

	if (flags && !group)
		return LINE_FTRACE;	/* the kernel's own text */
	while (p > line && trace_is_space(p[-1]))
		p--;
	if (p > line && p[-1] == ')')
		return LINE_FTRACE;	/* the "(TGID)" column of record-tgid */
	q = p;
	while (q > line && trace_is_digit(q[-1]))
		q--;
	if (q < p && q > line && q[-1] == '-' && q - 1 > line &&
	    !trace_is_space(q[-2]) && q[-2] != '/') {
		/* "COMM-PID" */
		return flags || !group ? LINE_FTRACE : LINE_EITHER;
	}
	/*
	 * Else perf's: "COMM PID", "PID/TID", a negative PID or TID (" -1",
	 * "-1/-1"), no PID at all (perf -F cpu,time,...), or an unknown shape.
	 */
	return LINE_PERF;
}

/*
 * The header's first half, from the '[' at @br to the timestamp's ':' and
 * the space after it: that space, or NULL if the pattern does not match.
 */
static const char *match_stamp(const char *line, const char *end, const char *br,
			       struct trace_head *h)
{
	const char *p = br + 1, *q, *ts;
	unsigned int n;
	uint64_t cpu;
	bool neg;

	if (br > line && !trace_is_space(br[-1]))
		return NULL;
	h->cpu = p;
	neg = *p == '-';
	if (neg)
		p++;
	if (!trace_is_digit(*p))
		return NULL;
	for (cpu = 0, q = p; trace_is_digit(*q); q++)
		cpu = cpu * 10 + (unsigned char)*q - '0';
	if (*q != ']')
		return NULL;
	h->cpu_len = (size_t)(q - h->cpu);
	/* over 19 digits (zeros aside), cpu is not exact, and out of range */
	if (q - p > 19) {
		while (*p == '0')
			p++;
		if (q - p > 19)
			cpu = UINT64_MAX;
	}
	h->cpu_err = neg || cpu >= TRACE_MAX_CPUS ? -ERANGE : 0;
	h->cpu_nr = (unsigned int)cpu;
	p = q + 1;
	if (!trace_is_space(*p))
		return NULL;
	ts = trace_skip_spaces(p, end);
	h->flags = NULL;
	q = trace_is_digit(*ts) ? match_ts(ts, end, h) : NULL;
	for (n = 0; !q; n++) {
		/*
		 * ftrace's FLAGS column ("d.h1.", "....") comes first, or
		 * perf's +misc ("K") or +tod ("2026-12-03 17:35:28.169440")
		 */
		if (n == STAMP_TOKENS_MAX)
			return NULL;
		p = trace_token_end(ts, end);
		if (p == ts)
			return NULL;
		if (!n)
			h->flags = ts;
		h->flags_len = (size_t)(p - h->flags);
		ts = trace_skip_spaces(p, end);
		q = match_ts(ts, end, h);
	}
	h->ts = ts;
	h->ts_len = (size_t)(q - ts);
	p = q + 1;
	return trace_is_space(*p) ? p : NULL;
}

/*
 * A column between the timestamp and the event: perf's +period (a count)
 * or trace-cmd report --ts-diff's "(+N)".  The token at @p, @n long.
 */
static bool extra_column(const char *p, size_t n)
{
	size_t i = 0;

	if (n > 3 && p[0] == '(' && p[1] == '+' && p[n - 1] == ')') {
		i = 2;
		n--;
	}
	if (i == n)
		return false;
	for (; i < n; i++) {
		if (!trace_is_digit(p[i]))
			return false;
	}
	return true;
}

/* the second half, from the space after the timestamp at @p */
static bool match_event(const char *line, const char *end, const char *br, const char *p,
			struct trace_head *h)
{
	const char *ev;

	ev = trace_skip_spaces(p, end);
	p = trace_token_end(ev, end);
	if (extra_column(ev, (size_t)(p - ev))) {
		ev = trace_skip_spaces(p, end);
		p = trace_token_end(ev, end);
	}
	if ((size_t)(p - ev) == sizeof(perf_lost) - 1 && !memcmp(ev, perf_lost, (size_t)(p - ev))) {
		/* perf's lost record: no ':', its name is its own */
		h->event = ev;
		h->event_len = (size_t)(p - ev);
	} else {
		if (p - ev < 2 || p[-1] != ':')
			return false;
		h->event = ev;
		h->event_len = (size_t)(p - ev - 1);
	}
	h->payload = trace_skip_spaces(p, end);
	h->end = end;
	h->style = classify(line, br, h->flags, h->event, h->event_len);
	return true;
}

/**
 * trace_split_line() - find the header of an event line
 * @line: the line
 * @len: its length (line[len] is its NUL)
 * @h: filled when it is one, but for h->id
 *
 * Return: the line's style, or LINE_NONE if it is not an event line.
 */
enum trace_line_style trace_split_line(const char *line, size_t len, struct trace_head *h)
{
	const char *end = line + len, *br = line, *p;

	while ((br = memchr(br, '[', (size_t)(end - br)))) {
		p = match_stamp(line, end, br, h);
		if (p && match_event(line, end, br, p, h))
			return h->style;
		br++;
	}
	h->style = LINE_NONE;
	return LINE_NONE;
}

/*
 * ---- the shape cache: the same split, the short way ----
 *
 * The lines of a trace look alike: the same columns, the same padding,
 * a few events over and over.  So the last event line's header is kept as
 * a template: which bytes must be what they were ('[', ']', spaces, '.',
 * ':', the event's name), which must be digits, which may be any printable
 * byte but a space (a FLAGS column, the payload's first byte).  The split
 * above looks at nothing else on its way, so a line that fits a template
 * is split as that line was: same offsets, same event; only the numbers
 * are read.  Two templates:
 *
 *   whole  the header from the line's start to the payload's first byte,
 *          for traces whose lines start alike (ftrace's "<idle>-0");
 *   stamp  from the '[' to the space after the timestamp, for lines whose
 *          COMM and PID differ (perf's); no '[' may come before, and the
 *          event names, looked up once, are remembered.
 *
 * A line that fits neither goes the long way, and becomes the template.
 * When lines keep missing the whole template it is not made for a while:
 * making one costs more than a split.
 */

#define WHOLE_MISSES	4	/* misses in a row before a rest */
#define WHOLE_REST	1024	/* lines without a whole template then */

/*
 * Are the @n bytes at @a and @b the same?  Words only: @n is 8 or more, or
 * the bytes before @a and @b are the same too (a name's first 8 bytes).
 */
static inline bool same8(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i + 8 < n; i += 8) {
		if (trace_load8(a + i) != trace_load8(b + i))
			return false;
	}
	return trace_load8(a + n - 8) == trace_load8(b + n - 8);
}

#ifdef TRACE_SSE2
/* do the bytes of @line fit @t? 16 at a time: each in its range */
static inline bool tmpl_fits(const char *line, const struct trace_tmpl *t)
{
	const char *b = line + t->base;
	__m128i d, ok = _mm_set1_epi8(-1);
	size_t i;

	for (i = 0; i < t->span; i += 16) {
		d = _mm_sub_epi8(_mm_loadu_si128((const __m128i *)(const void *)(b + i)),
				 _mm_loadu_si128((const __m128i *)(const void *)(t->lo + i)));
		ok = _mm_and_si128(ok, _mm_cmpeq_epi8(d, _mm_min_epu8(d,
			_mm_loadu_si128((const __m128i *)(const void *)(t->width + i)))));
	}
	return _mm_movemask_epi8(ok) == 0xffff && !(t->flags && trace_is_digit(line[t->flags_off]));
}
#else
/* 0x80 in each byte of @w that is printable ASCII but a space: 0x21..0x7f */
static inline uint64_t printable(uint64_t w)
{
	/*
	 * A byte over 0xa0 carries into the next one, but fails itself:
	 * the next byte's answer only matters if this one passed.
	 */
	return (w + 0x5f5f5f5f5f5f5f5fULL) & ~w & W_HIGH;
}

/* do the bytes of @line fit @t? 8 at a time */
static inline bool tmpl_fits(const char *line, const struct trace_tmpl *t)
{
	const char *b = line + t->base;
	uint64_t w, bad = 0;
	size_t i;

	for (i = 0; i < t->span; i += 8) {
		w = trace_load8(b + i);
		bad |= ((w ^ trace_load8((const char *)t->val + i)) &
			trace_load8((const char *)t->fix + i)) |
		       (trace_nondigits(w) & trace_load8((const char *)t->dig + i)) |
		       (~printable(w) & trace_load8((const char *)t->tok + i) & W_HIGH);
	}
	return !bad && !(t->flags && trace_is_digit(line[t->flags_off]));
}
#endif

/* the value of the first @n (1 to 8) bytes at @p, all digits */
static inline uint64_t digits_at(const char *p, unsigned int n)
{
	return trace_digits8(trace_load8(p), n);
}

/* the numbers of a line that fits @t, read where it says */
static inline void tmpl_read(const char *line, const struct trace_tmpl *t,
			     struct trace_shape *sh, struct trace_head *h)
{
	const char *b = line + t->br, *s = line + t->sec_off, *f = s + t->sec_len + 1, *p;
	uint64_t cpu, frac, w;

	/* CPUs come and go, two or so in turn: the last two are kept */
	w = trace_load8(b + 1) << (8 * (8 - t->cpu_len));
	if (w == sh->cpu_word[0]) {
		cpu = sh->cpu_val[0];
	} else if (w == sh->cpu_word[1]) {
		cpu = sh->cpu_val[1];
	} else {
		for (cpu = 0, p = b + 1; p <= b + t->cpu_len; p++)
			cpu = cpu * 10 + (unsigned char)*p - '0';
		sh->cpu_word[1] = sh->cpu_word[0];
		sh->cpu_val[1] = sh->cpu_val[0];
		sh->cpu_word[0] = w;
		sh->cpu_val[0] = cpu;
	}
	h->cpu = b + 1;
	h->cpu_len = t->cpu_len;
	h->cpu_nr = (unsigned int)cpu;
	h->cpu_err = cpu >= TRACE_MAX_CPUS ? -ERANGE : 0;
	h->flags = t->flags ? line + t->flags_off : NULL;
	h->flags_len = t->flags_len;
	if (t->frac_len <= 8)
		frac = digits_at(f, t->frac_len);
	else
		frac = digits_at(f, 8) * 10 + (unsigned char)f[8] - '0';
	/* the seconds change seldom: read them again only then */
	w = trace_load8(s) << (8 * (8 - t->sec_len));
	if (w != sh->sec_word) {
		sh->sec_word = w;
		sh->sec_val = digits_at(s, t->sec_len);
	}
	/* SECS has 8 digits at most: in range, and no overflow */
	h->ts_err = 0;
	h->ts_ns = (int64_t)(sh->sec_val * 1000000000ULL + frac * frac_scale[t->frac_len]);
	h->ts = s;
	h->sec_len = t->sec_len;
	h->ts_len = t->sec_len + 1 + t->frac_len;
}

/*
 * Make @t the template of the line @h was split from: its bytes from
 * @base, @n of them, the last one any printable byte if @tok_last.
 */
static void tmpl_make(struct trace_tmpl *t, const char *line, const struct trace_head *h,
		      size_t base, size_t n, bool tok_last)
{
	const char *b = h->cpu - 1, *f = h->ts + h->sec_len + 1, *c;
	size_t i;

	memset(t->lo, 0, sizeof(t->lo));
	memset(t->width, 0xff, sizeof(t->width));	/* any byte, past @n */
	memset(t->val, 0, sizeof(t->val));
	memset(t->fix, 0, sizeof(t->fix));
	memset(t->dig, 0, sizeof(t->dig));
	memset(t->tok, 0, sizeof(t->tok));
	for (i = 0; i < n; i++) {
		c = line + base + i;
		if ((c > b && c <= b + h->cpu_len) ||
		    (c >= h->ts && c < h->ts + h->sec_len) ||
		    (c >= f && c < h->ts + h->ts_len)) {
			t->lo[i] = '0';
			t->width[i] = 9;
			t->dig[i] = 0xff;
		} else if ((h->flags && c >= h->flags && c < h->flags + h->flags_len) ||
			   (tok_last && i == n - 1)) {
			t->lo[i] = 0x21;
			t->width[i] = 0x7f - 0x21;
			t->tok[i] = 0xff;
		} else {
			t->lo[i] = (unsigned char)*c;
			t->width[i] = 0;
			t->fix[i] = 0xff;
			t->val[i] = (unsigned char)*c;
		}
	}
	t->base = base;
	t->span = (n + 15) / 16 * 16;
	t->br = (size_t)(b - line);
	t->flags = h->flags;
	t->flags_off = h->flags ? (unsigned char)(h->flags - line) : 0;
	t->flags_len = h->flags ? (unsigned char)h->flags_len : 0;
	t->cpu_len = (unsigned char)h->cpu_len;
	t->sec_off = (unsigned char)(h->ts - line);
	t->sec_len = (unsigned char)h->sec_len;
	t->frac_len = (unsigned char)(h->ts_len - h->sec_len - 1);
}

/* can the numbers of the line @h was split from be read the short way? */
static bool tmpl_can(const char *line, const struct trace_head *h)
{
	/* offsets in bytes: all before the timestamp's end */
	return TRACE_SWAR && h->cpu[0] != '-' && h->cpu_len <= 4 && h->sec_len <= 8 &&
	       (size_t)(h->ts + h->ts_len - line) < 255 &&
	       (!h->flags || trace_token_end(h->flags, h->end) == h->flags + h->flags_len);
}

/* the stamp template, from the line @h was split from */
static void learn_stamp(const char *line, const char *end, const struct trace_head *h,
			struct trace_shape *sh)
{
	const char *b = h->cpu - 1;
	size_t n = (size_t)(h->ts + h->ts_len + 2 - b), br = (size_t)(b - line);

	sh->stamp_ok = false;
	if (!tmpl_can(line, h) || n > 32 || (size_t)(end - b) < (n + 15) / 16 * 16)
		return;
	tmpl_make(&sh->stamp, line, h, br, n, false);
	sh->rest_off = br + n;
	sh->prefix_ok = br >= 8 && br <= sizeof(sh->prefix) && !memchr(line, '[', br);
	if (sh->prefix_ok)
		memcpy(sh->prefix, line, br);
	sh->stamp_ok = true;
}

/* the whole template, from the line @h was split from */
static void learn_whole(const char *line, const char *end, const struct trace_head *h,
			struct trace_shape *sh)
{
	size_t n = (size_t)(h->payload - line) + 1;

	sh->whole_ok = false;
	if (!tmpl_can(line, h) || h->payload == end || n > TMPL_MAX ||
	    (size_t)(end - line) < (n + 15) / 16 * 16 || memchr(line, '[', (size_t)(h->cpu - 1 - line)))
		return;
	tmpl_make(&sh->whole, line, h, 0, n, true);
	sh->event_off = (size_t)(h->event - line);
	sh->event_len = h->event_len;
	sh->payload_off = (size_t)(h->payload - line);
	sh->id = h->id;
	sh->style = h->style;
	sh->whole_ok = true;
}

/* the whole template missed the line @h was split from: make it anew? */
static void whole_missed(const char *line, const char *end, const struct trace_head *h,
			 struct trace_shape *sh)
{
	if (sh->rest) {
		sh->rest--;
		return;
	}
	if (++sh->misses > WHOLE_MISSES) {
		sh->misses = 0;
		sh->rest = WHOLE_REST;
		sh->whole_ok = false;
		return;
	}
	learn_whole(line, end, h, sh);
}

/* the token at @ev, if remembered: its slot, or -1 */
static inline int name_seen(struct trace_shape *sh, const char *ev, const char *end)
{
	uint64_t head;
	unsigned int i, k;
	size_t n;

	if (!TRACE_SWAR || end - ev < 8)
		return -1;
	head = trace_load8(ev);
	for (i = 0, k = sh->last; i < SHAPE_EVENTS; i++, k = (k + 1) % SHAPE_EVENTS) {
		n = sh->names[k].len;
		if (sh->names[k].head != head || !n || (size_t)(end - ev) < n)
			continue;
		/* the first 8 bytes are the same: the rest, 8 at a time */
		if ((n > 8 && !same8(ev + 8, sh->names[k].name + 8, n - 8)) ||
		    (ev + n < end && !trace_is_space(ev[n])))
			continue;
		sh->last = k;
		return (int)k;
	}
	return -1;
}

/* remember the token at @ev, @n long, as event @id */
static void name_learn(struct trace_shape *sh, const char *ev, size_t n, int id)
{
	unsigned int k = sh->next;

	if (!TRACE_SWAR || n < 8 || n > SHAPE_NAME_MAX)
		return;
	sh->next = (k + 1) % SHAPE_EVENTS;
	memcpy(sh->names[k].name, ev, n);
	sh->names[k].head = trace_load8(ev);
	sh->names[k].len = n;
	sh->names[k].id = id;
	sh->last = k;
}

/* h->id for the event name the header holds */
static void event_id(struct trace_shape *sh, struct trace_head *h)
{
	int k = name_seen(sh, h->event, h->end);

	if (k >= 0) {
		h->id = sh->names[k].id;
		return;
	}
	h->id = trace_event_lookup(h->event, h->event_len);
	name_learn(sh, h->event, h->event_len + 1, h->id);
}

/* the second half, the short way if the name is remembered */
static inline bool event_seen(const char *line, const char *end, const char *p,
			      struct trace_shape *sh, struct trace_head *h)
{
	const char *ev = trace_skip_spaces(p, end);
	int k = name_seen(sh, ev, end);

	if (k < 0)
		return false;
	h->event = ev;
	h->event_len = sh->names[k].len - 1;
	h->id = sh->names[k].id;
	h->payload = trace_skip_spaces(ev + sh->names[k].len, end);
	h->end = end;
	h->style = classify(line, line + sh->stamp.br, sh->stamp.flags, h->event, h->event_len);
	return true;
}

/* a line that did not fit the whole template: the stamp's way, or the long way */
static __attribute__((noinline)) enum trace_line_style split_rest(const char *line, size_t len,
								  struct trace_head *h,
								  struct trace_shape *sh)
{
	const char *end = line + len, *b = line + sh->stamp.br;
	bool whole_missed_it = sh->whole_ok || sh->rest;

	if (sh->stamp_ok && len >= sh->stamp.base + sh->stamp.span &&
	    (!sh->stamp.br || (trace_is_space(b[-1]) &&
			       ((sh->prefix_ok && same8(line, sh->prefix, sh->stamp.br)) ||
				!memchr(line, '[', sh->stamp.br)))) &&
	    tmpl_fits(line, &sh->stamp)) {
		tmpl_read(line, &sh->stamp, sh, h);
		if (event_seen(line, end, line + sh->rest_off, sh, h))
			goto split;
	}
	if (trace_split_line(line, len, h) == LINE_NONE)
		return LINE_NONE;
	learn_stamp(line, end, h, sh);
	event_id(sh, h);
split:
	if (whole_missed_it)
		whole_missed(line, end, h, sh);
	else
		learn_whole(line, end, h, sh);
	return h->style;
}

/**
 * trace_split_event() - trace_split_line(), and h->id, the short way
 * @line: the line
 * @len: its length
 * @h: filled when it is an event line, h->id too
 * @sh: what the last lines looked like, updated
 *
 * Return: as trace_split_line(), always the same.
 */
enum trace_line_style trace_split_event(const char *line, size_t len, struct trace_head *h,
					struct trace_shape *sh)
{
	if (sh->whole_ok && len >= sh->whole.span && tmpl_fits(line, &sh->whole)) {
		tmpl_read(line, &sh->whole, sh, h);
		h->event = line + sh->event_off;
		h->event_len = sh->event_len;
		h->id = sh->id;
		h->payload = line + sh->payload_off;
		h->end = line + len;
		h->style = sh->style;
		sh->misses = 0;
		return h->style;
	}
	return split_rest(line, len, h, sh);
}

/* does @s, with @end past it, start with @word? */
static bool starts_with(const char *s, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - s) >= n && !memcmp(s, word, n);
}

/* the digits at *@p, past them: 0, or -ERANGE over UINT64_MAX */
static int lost_number(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	int err = trace_parse_u64(p, end, v);

	if (err) {
		while (trace_is_digit(*s))
			s++;
		*p = s;		/* past them all the same */
	}
	return err;
}

/**
 * trace_lost_marker() - is the line a lost-events marker?
 * @line: a line that is no event line
 * @end: its end
 * @cpu: set to the CPU it names
 * @lost: set to the events lost, 0 if it does not say
 *
 * The kernel writes "CPU:N [LOST M EVENTS]" (or "[LOST EVENTS]", the count
 * unknown) before the first event of CPU N after the loss; trace-cmd
 * report "CPU:N [M EVENTS DROPPED]" or "[EVENTS DROPPED]".  The marker may
 * follow other text (trace-cmd's "host: "), at a token's start.
 *
 * Return: 1 if it is one, 0 if not, -ERANGE if a number is out of range.
 */
int trace_lost_marker(const char *line, const char *end, uint64_t *cpu, uint64_t *lost)
{
	const char *p = line;
	const char *suffix;
	bool ftrace_form;
	int err, ret;

	for (;;) {
		p = memmem(p, (size_t)(end - p), "CPU:", 4);
		if (!p)
			return 0;
		if (p == line || trace_is_space(p[-1]))
			break;
		p += 4;
	}
	p += 4;
	if (!trace_is_digit(*p))
		return 0;
	err = lost_number(&p, end, cpu);
	if (!starts_with(p, end, " ["))
		return 0;
	p += 2;
	*lost = 0;
	/* ftrace's "[LOST N EVENTS]" or trace-cmd's "[N EVENTS DROPPED]", N optional */
	ftrace_form = starts_with(p, end, "LOST ");
	if (ftrace_form)
		p += 5;
	if (trace_is_digit(*p)) {
		ret = lost_number(&p, end, lost);
		err = err ? err : ret;
		if (*p++ != ' ')
			return 0;
	}
	suffix = ftrace_form ? "EVENTS]" : "EVENTS DROPPED]";
	if (!starts_with(p, end, suffix))
		return 0;
	p += strlen(suffix);
	if (trace_skip_spaces(p, end) != end)
		return 0;
	if (!err && *cpu >= TRACE_MAX_CPUS)
		err = -ERANGE;
	return err ? err : 1;
}

/* blank, or a comment ("# tracer: nop", perf's "# ====" header) */
bool trace_is_comment(const char *line)
{
	while (trace_is_space(*line))
		line++;
	return !*line || *line == '#';
}
