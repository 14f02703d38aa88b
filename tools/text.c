// SPDX-License-Identifier: MIT
/*
 * text.c - untrusted bytes as text.  A trace, a platform file or an
 * interval file may hold any bytes in a name; what the command prints of
 * them (messages, CSV, JSON) is valid UTF-8 without control characters,
 * so that no terminal escape sequence reaches a terminal and every JSON
 * parser reads it.  The rule, the same everywhere: a control character
 * (below 0x20, and 0x7f; a message keeps its own newlines and tabs) and
 * every byte that is not part of a valid UTF-8 sequence is shown as the
 * four characters \xNN; all else as it is.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

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
