// SPDX-License-Identifier: MIT
/*
 * trace_format.c - an event's format read in place: its name, its ID and,
 * field by field, each field's name, offset, size, signedness and whether it
 * is an array, __data_loc or __rel_loc.  Nothing is allocated or copied.
 *
 * The grammar is the kernel's: tracefs writes events/SYSTEM/EVENT/format
 * (kernel/trace/trace_events.c, f_show()) as
 *
 *	name: NAME
 *	ID: N
 *	format:
 *		field:TYPE NAME;	offset:N;	size:N;	signed:N;
 *		... (the common fields)
 *
 *		... (the event's own fields)
 *
 *	print fmt: ...
 *
 * and perf record (the tracing data section of perf.data) and trace-cmd
 * record (trace.dat) store those files as they read them.  "signed:" came
 * with 2.6.33 and may be missing.  An array's brackets follow its name
 * ("char comm[16]") or, for __data_loc and __rel_loc strings, its type
 * ("__data_loc char[] name"); a type may hold __attribute__((...)).  What
 * counts as a field's name, an array or a dynamic field follows
 * libtraceevent's reading of the same files (event_read_fields() in
 * libtraceevent's event-parse.c), which tests/test_trace_format.c checks
 * on every format at hand.
 *
 * Why: libtraceevent's tep_parse_event() reads a format token by token,
 * allocating each, at ~94,000 instructions a format on the 16 of the
 * smallest shared perf.data (1.48 M of the 8.0 M its whole `cpuidle stats`
 * took, print formats already emptied); the lab's decoder needs a few
 * fields' places and sizes, which a pass over the lines gives.  The print
 * format is not read.
 */
#include <errno.h>
#include <string.h>

#include "trace_format.h"

/* digits a number may have: 999,999,999 fits an int and any real offset */
#define FORMAT_DIGITS_MAX	9
/* an ID past this is held at it: far out of any reader's range all the same */
#define FORMAT_ID_MAX		999999999999LL

struct cursor {
	const char *p, *end;
};

static bool is_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

static void skip_blanks(struct cursor *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/* @w next (blanks before it skipped): true, the cursor past it */
static bool take(struct cursor *c, const char *w)
{
	size_t n = strlen(w);

	skip_blanks(c);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n))
		return false;
	c->p += n;
	return true;
}

/* a decimal number of 1 to FORMAT_DIGITS_MAX digits into *@v */
static bool take_number(struct cursor *c, unsigned int *v)
{
	const char *s;

	skip_blanks(c);
	s = c->p;
	*v = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9' && c->p - s < FORMAT_DIGITS_MAX)
		*v = *v * 10 + (unsigned int)(*c->p++ - '0');
	return c->p > s && (c->p == c->end || *c->p < '0' || *c->p > '9');
}

/* the line's end: blanks, then '\n' or the text's end; the cursor past it */
static bool take_eol(struct cursor *c)
{
	skip_blanks(c);
	if (c->p == c->end)
		return true;
	if (*c->p != '\n')
		return false;
	c->p++;
	return true;
}

/*
 * An event's ID: any number of digits (libtraceevent takes them all, and a
 * reader then refuses an ID out of range, naming it), held at
 * FORMAT_ID_MAX if more
 */
static bool take_id(struct cursor *c, long long *v)
{
	const char *s;

	skip_blanks(c);
	s = c->p;
	*v = 0;
	for (; c->p < c->end && *c->p >= '0' && *c->p <= '9'; c->p++)
		*v = *v > FORMAT_ID_MAX / 10 ? FORMAT_ID_MAX : *v * 10 + (*c->p - '0');
	if (*v > FORMAT_ID_MAX)
		*v = FORMAT_ID_MAX;
	return c->p > s;
}

/*
 * Words libtraceevent's tokenizer takes for quoted strings wherever they
 * stand (mac80211's print-format macros, which old kernels wrote into
 * print formats unexpanded: its read_token()): a field declared with one
 * is none it reads, nor an event so named
 */
static bool string_word(const char *s, size_t n)
{
	static const char *const words[] = { "LOCAL_PR_FMT", "STA_PR_FMT", "VIF_PR_FMT" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (n == strlen(words[i]) && !memcmp(s, words[i], n))
			return true;
	return false;
}

/* an identifier at the cursor: its start and length */
static size_t take_ident(struct cursor *c, const char **s)
{
	skip_blanks(c);
	*s = c->p;
	while (c->p < c->end && is_ident(*c->p))
		c->p++;
	return (size_t)(c->p - *s);
}

/**
 * event_format_open() - read an event's name and ID
 * @fmt: the format, set up for event_format_next()
 * @text: the format's text (need not end in NUL; kept, not copied)
 * @size: its length
 *
 * Return: 0, or -EINVAL if the text does not start "name: NAME", "ID: N",
 * "format:", a line each.
 */
int event_format_open(struct event_format *fmt, const char *text, size_t size)
{
	struct cursor c = { .p = text, .end = text + size };
	long long id;

	*fmt = (struct event_format){ .common = true };
	if (!take(&c, "name:"))
		return -EINVAL;
	fmt->name_len = take_ident(&c, &fmt->name);
	if (!fmt->name_len || string_word(fmt->name, fmt->name_len) || !take_eol(&c))
		return -EINVAL;
	if (!take(&c, "ID:") || !take_id(&c, &id) || !take_eol(&c))
		return -EINVAL;
	if (!take(&c, "format:") || !take_eol(&c))
		return -EINVAL;
	fmt->id = id;
	fmt->pos = c.p;
	fmt->end = c.end;
	return 0;
}

/*
 * A field's declaration, "TYPE NAME" or "TYPE NAME[...]" or "TYPE[] NAME",
 * @d to @end (before the ';'): its name and whether it is an array.  As
 * libtraceevent reads it: words and '*' make the type, the last word
 * before the end or the '[' is the name (but a word after the ']' is, if
 * there is one); an "__attribute__" is followed by a parenthesised group.
 * A word comes first, and at least one word or '*' before the name.
 */
static bool read_decl(const char *d, const char *end, struct event_field *f)
{
	struct cursor c = { .p = d, .end = end };
	const char *s, *last = NULL;
	size_t n, last_len = 0;
	int words = 0, depth;

	for (;;) {
		skip_blanks(&c);
		if (c.p == end || *c.p == '[')
			break;
		if (*c.p == '*') {
			if (!words)
				return false;	/* a type starts with a word */
			c.p++;
			last = NULL;
			words++;
			continue;
		}
		if (*c.p == '(' && last && last_len == 13 && !memcmp(last, "__attribute__", 13)) {
			for (depth = 0; c.p < end; c.p++) {
				if (*c.p == '(')
					depth++;
				else if (*c.p == ')' && !--depth)
					break;
			}
			if (c.p == end)
				return false;
			c.p++;
			last = NULL;
			continue;
		}
		n = take_ident(&c, &s);
		if (!n || string_word(s, n))
			return false;
		last = s;
		last_len = n;
		words++;
	}
	/* the name, and a type before it */
	if (!last || words < 2)
		return false;
	f->name = last;
	f->name_len = last_len;
	f->array = c.p < end;
	if (!f->array)
		return true;
	s = memchr(c.p, ']', (size_t)(end - c.p));
	if (!s)
		return false;
	c.p = s + 1;
	n = take_ident(&c, &s);
	if (string_word(s, n))
		return false;
	if (n) {
		f->name = s;
		f->name_len = n;
	}
	skip_blanks(&c);
	return c.p == end;
}

/*
 * "field:DECL; offset:N; size:N; signed:N;" (signed: optional), the
 * cursor at "field:", into @f
 */
static bool read_field(struct cursor *c, struct event_field *f)
{
	const char *decl, *semi;
	unsigned int sign;

	if (!take(c, "field:"))
		return false;
	decl = c->p;
	for (semi = decl; semi < c->end && *semi != ';' && *semi != '\n'; semi++)
		;
	if (semi == c->end || *semi != ';' || !read_decl(decl, semi, f))
		return false;
	while (decl < semi && (*decl == ' ' || *decl == '\t'))
		decl++;
	f->relative = (size_t)(semi - decl) >= 9 && !memcmp(decl, "__rel_loc", 9);
	f->dynamic = f->relative ||
		     ((size_t)(semi - decl) >= 10 && !memcmp(decl, "__data_loc", 10));
	c->p = semi + 1;
	if (!take(c, "offset:") || !take_number(c, &f->offset) || !take(c, ";") ||
	    !take(c, "size:") || !take_number(c, &f->size) || !take(c, ";"))
		return false;
	f->is_signed = false;
	if (take(c, "signed:")) {
		if (!take_number(c, &sign) || !take(c, ";"))
			return false;
		f->is_signed = sign != 0;
	}
	return take_eol(c);
}

/**
 * event_format_next() - read the format's next field
 * @fmt: the format, opened by event_format_open()
 * @f: the field read
 *
 * The common fields come first (@f->common), then the event's own; a
 * blank line ends each list.
 *
 * Return: 1 with @f filled, 0 after the last field, or -EINVAL for a line
 * that is not a field's as the kernel writes it (@fmt then stays there).
 */
int event_format_next(struct event_format *fmt, struct event_field *f)
{
	struct cursor c = { .p = fmt->pos, .end = fmt->end };

	for (;;) {
		if (fmt->done)
			return 0;
		skip_blanks(&c);
		if (c.p == c.end || *c.p != '\n')
			break;
		/* a blank line: the common fields' end, then the own fields' */
		c.p++;
		fmt->pos = c.p;
		if (fmt->common)
			fmt->common = false;
		else
			fmt->done = true;
	}
	if (!read_field(&c, f))
		return -EINVAL;
	f->common = fmt->common;
	fmt->pos = c.p;
	return 1;
}

/**
 * event_field_is() - is @f the field called @name?
 * @f: a field event_format_next() read
 * @name: a NUL-terminated name
 *
 * Return: true if the names are the same.
 */
bool event_field_is(const struct event_field *f, const char *name)
{
	return strlen(name) == f->name_len && !memcmp(f->name, name, f->name_len);
}
