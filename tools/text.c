// SPDX-License-Identifier: MIT
/*
 * text.c - untrusted bytes as text.  A trace, a platform file or an
 * interval file may hold any bytes in a name; what the command prints of
 * them (messages, CSV, JSON) is valid UTF-8 without control characters,
 * so that no terminal escape sequence reaches a terminal and every JSON
 * parser reads it.  The rule, the same everywhere: a control character
 * (below 0x20, and 0x7f; a message keeps its own newlines and tabs) and
 * every byte that is not part of a valid UTF-8 sequence is shown as the
 * four characters \xNN; all else as it is.  Standard output goes through
 * the same rule as a whole (cli_filter_stdout()), so that a text table
 * quoting a trace's path or an IRQ's name is safe too.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* the length of the valid UTF-8 sequence at @s (1-4), or 0 if none */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)	/* the terminator stops it too */
			return 0;
	/* overlong forms, UTF-16 surrogates and past U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

int cli_put_text(FILE *f, const char *text, enum cli_text how)
{
	bool json = how == CLI_TEXT_JSON;
	const unsigned char *s = (const unsigned char *)text;
	size_t n;

	while (*s) {
		n = utf8_len(s);
		if (!n || ((*s < 0x20 || *s == 0x7f) &&
			   !(how == CLI_TEXT_MSG && (*s == '\n' || *s == '\t')))) {
			if (fprintf(f, json ? "\\\\x%02x" : "\\x%02x", *s) < 0)
				return -1;
			s++;
			continue;
		}
		if ((json && (*s == '"' || *s == '\\')) || (how == CLI_TEXT_CSV && *s == '"')) {
			if (fputc(json ? '\\' : '"', f) == EOF)
				return -1;
		}
		if (fwrite(s, 1, n, f) != n)
			return -1;
		s += n;
	}
	return 0;
}

void cli_vsay(const char *fmt, va_list ap)
{
	char fixed[4096], *msg = NULL;
	va_list again;

	/* a message of any length; cut to the fixed buffer without memory */
	va_copy(again, ap);
	if (vasprintf(&msg, fmt, ap) < 0) {
		msg = NULL;
		vsnprintf(fixed, sizeof(fixed), fmt, again);
	}
	va_end(again);
	cli_put_text(stderr, msg ? msg : fixed, CLI_TEXT_MSG);
	free(msg);
}

void cli_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vsay(fmt, ap);
	va_end(ap);
}

/* ---- standard output as text ---- */

/* stdout's filter: the bytes of a UTF-8 sequence a write cut, held for the next */
struct text_filter {
	unsigned char held[4];
	size_t nheld;
};

/*
 * The length of the UTF-8 sequence at @s of @avail bytes: 1-4 if valid, 0
 * if not, -1 if the bytes so far could begin one (more are needed).
 */
static int utf8_len_n(const unsigned char *s, size_t avail)
{
	unsigned char b[5] = { 0 };
	size_t need = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;

	if (avail < need) {
		memcpy(b, s, avail);
		/* complete it with continuation bytes: valid so far, or not */
		memset(b + avail, 0x80, need - avail);
		if (b[0] == 0xe0 && avail == 1)
			b[1] = 0xa0;
		else if (b[0] == 0xf0 && avail == 1)
			b[1] = 0x90;
		return utf8_len(b) ? -1 : 0;
	}
	memcpy(b, s, need);
	return (int)utf8_len(b);
}

static int write_all(const char *buf, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(STDOUT_FILENO, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* a byte that needs no look: printable ASCII, a newline, a tab */
static bool plain_byte(unsigned char c)
{
	return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t';
}

/* Escape @n bytes at @s into stdout; keep an unfinished sequence at the end if @more. */
static int filter_bytes(struct text_filter *f, const unsigned char *s, size_t n, bool more)
{
	char out[65536];
	size_t o = 0, i = 0, run;
	int len;

	while (i < n) {
		for (run = 0; i + run < n && plain_byte(s[i + run]); run++)
			;
		while (run) {			/* a run of plain bytes, copied as it is */
			size_t take = run < sizeof(out) - o ? run : sizeof(out) - o;

			memcpy(out + o, s + i, take);
			o += take;
			i += take;
			run -= take;
			if (o == sizeof(out)) {
				if (write_all(out, o))
					return -1;
				o = 0;
			}
		}
		if (i == n)
			break;
		if (o > sizeof(out) - 8) {
			if (write_all(out, o))
				return -1;
			o = 0;
		}
		len = s[i] < 0x80 ? 0 : utf8_len_n(s + i, n - i);
		if (len < 0 && more) {		/* the rest of it in the next write */
			f->nheld = n - i;
			memcpy(f->held, s + i, f->nheld);
			break;
		}
		if (len <= 0) {
			o += (size_t)snprintf(out + o, sizeof(out) - o, "\\x%02x", s[i++]);
			continue;
		}
		memcpy(out + o, s + i, (size_t)len);
		o += (size_t)len;
		i += (size_t)len;
	}
	return o ? write_all(out, o) : 0;
}

static ssize_t filter_write(void *cookie, const char *buf, size_t size)
{
	struct text_filter *f = cookie;
	const unsigned char *in = (const unsigned char *)buf;
	size_t left = size;

	/* a sequence the last write cut: completed from this one's first bytes */
	while (f->nheld && left) {
		unsigned char seq[4];
		size_t k = f->nheld, need = f->held[0] >= 0xf0 ? 4 : f->held[0] >= 0xe0 ? 3 : 2;
		size_t add = need - k < left ? need - k : left;
		int len;

		memcpy(seq, f->held, k);
		memcpy(seq + k, in, add);
		len = utf8_len_n(seq, k + add);
		if (len < 0) {			/* still unfinished: this write is all of it */
			memcpy(f->held + k, in, add);
			f->nheld += add;
			return (ssize_t)size;
		}
		if (len > 0) {			/* whole and valid */
			if (write_all((const char *)seq, (size_t)len))
				return -1;
			in += (size_t)len - k;
			left -= (size_t)len - k;
			f->nheld = 0;
		} else {			/* its first byte escaped, the rest looked at again */
			if (filter_bytes(f, f->held, 1, false))
				return -1;
			memmove(f->held, f->held + 1, --f->nheld);
			while (f->nheld && (f->held[0] < 0xc2 || f->held[0] > 0xf4)) {
				if (filter_bytes(f, f->held, 1, false))
					return -1;
				memmove(f->held, f->held + 1, --f->nheld);
			}
		}
	}
	if (left && filter_bytes(f, in, left, true))
		return -1;
	return (ssize_t)size;
}

/* the one filter, over this process's standard output */
static struct text_filter stdout_filter;

/*
 * At exit, before stdio's own flush: the buffer through the filter, then a
 * sequence the last write left unfinished, escaped.
 */
static void filter_at_exit(void)
{
	fflush(stdout);
	if (stdout_filter.nheld)
		filter_bytes(&stdout_filter, stdout_filter.held, stdout_filter.nheld, false);
	stdout_filter.nheld = 0;
}

static int filter_close(void *cookie)
{
	struct text_filter *f = cookie;
	int ret = f->nheld ? filter_bytes(f, f->held, f->nheld, false) : 0;

	f->nheld = 0;
	return ret;
}

int cli_filter_stdout(void)
{
	static const cookie_io_functions_t io = {
		.write = filter_write,
		.close = filter_close,
	};
	static bool registered;
	FILE *out;

	memset(&stdout_filter, 0, sizeof(stdout_filter));
	out = fopencookie(&stdout_filter, "w", io);
	if (!out)
		return -1;
	setvbuf(out, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
	stdout = out;
	if (!registered && !atexit(filter_at_exit))
		registered = true;
	return 0;
}
