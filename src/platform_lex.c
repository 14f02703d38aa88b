// SPDX-License-Identifier: MIT
/*
 * platform_lex.c - the platform file's words: a line's tokens (bare or
 * quoted), whole numbers, decimal times and energies, powers, flag names
 * and CPU lists, each checked as platform.c's format says, and the error
 * message that names the file, the line and the offending word.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform_internal.h"

static const char *show(struct snippet *sn, const char *s, size_t n)
{
	size_t i, k = n > SNIPPET_MAX ? SNIPPET_MAX : n;

	for (i = 0; i < k; i++) {
		unsigned char c = (unsigned char)s[i];

		sn->buf[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	strcpy(sn->buf + k, n > k ? "..." : "");
	return sn->buf;
}

const char *plat_show_tok(struct snippet *sn, const struct token *t)
{
	return show(sn, t->s, t->n);
}

/* Write "FILE:LINE: " and the message into the caller's buffer. */
int plat_fail(struct parser *ps, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (!ps->err || !ps->errlen)
		return -EINVAL;
	k = snprintf(ps->err, ps->errlen, "%s:%u: ", ps->file, ps->line);
	if (k >= 0 && (size_t)k < ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err + k, ps->errlen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Skip blanks; true if nothing but a comment is left. */
bool plat_at_eol(struct cursor *c)
{
	while (c->pos < c->end && is_blank(*c->pos))
		c->pos++;
	return c->pos == c->end || *c->pos == '#';
}

bool plat_ends_word(const struct cursor *c)
{
	return c->pos == c->end || is_blank(*c->pos) || *c->pos == '#';
}

bool plat_tok_is(const struct token *t, const char *word)
{
	return !t->quoted && strlen(word) == t->n && !memcmp(t->s, word, t->n);
}

/*
 * Read one NAME/TEXT/VALUE at c->pos (not at the end of the line) into @t.
 * @what names it in error messages.
 */
int plat_read_value(struct parser *ps, struct cursor *c, struct token *t,
		      const char *what)
{
	struct snippet sn;
	const char *start = c->pos;

	if (*c->pos == '"') {
		c->pos++;
		t->s = c->pos;
		t->quoted = true;
		while (c->pos < c->end && *c->pos != '"') {
			if (*c->pos == '\\' && c->pos + 1 < c->end)
				c->pos++;
			c->pos++;
		}
		if (c->pos == c->end)
			return plat_fail(ps, "unterminated quote in %s", what);
		t->n = (size_t)(c->pos - t->s);
		c->pos++;
		if (!plat_ends_word(c))
			return plat_fail(ps, "junk after the closing quote of %s: '%s'", what,
				    show(&sn, c->pos, (size_t)(c->end - c->pos)));
		return 0;
	}
	t->s = start;
	t->quoted = false;
	while (!plat_ends_word(c)) {
		if (*c->pos == '"')
			return plat_fail(ps, "stray quote in %s '%s' (quote the whole value)",
				    what, show(&sn, start, (size_t)(c->end - start)));
		if (*c->pos == '=')
			return plat_fail(ps, "unexpected '=' in %s '%s'", what,
				    show(&sn, start, (size_t)(c->end - start)));
		c->pos++;
	}
	t->n = (size_t)(c->pos - start);
	return 0;
}

/*
 * Copy @t into @dst of @size bytes, resolving escapes.  Too long is an
 * error, never a truncation.  An empty result is an error unless
 * @allow_empty.
 */
int plat_copy_string(struct parser *ps, const struct token *t, char *dst, size_t size,
		       const char *what, bool allow_empty)
{
	size_t i, n = 0;

	for (i = 0; i < t->n; i++) {
		char c = t->s[i];

		if (t->quoted && c == '\\') {
			c = t->s[++i];	/* plat_read_value() saw it inside the quotes */
			if (c != '\\' && c != '"')
				return plat_fail(ps, "unknown escape '\\%c' in %s (only \\\" and \\\\)",
					    c, what);
		}
		if (n + 1 >= size)
			return plat_fail(ps, "%s too long (at most %zu bytes)", what, size - 1);
		dst[n++] = c;
	}
	if (!n && !allow_empty)
		return plat_fail(ps, "empty %s", what);
	dst[n] = '\0';
	return 0;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* All of @t is decimal digits (at least one). */
static bool all_digits(const struct token *t)
{
	size_t i;

	if (!t->n)
		return false;
	for (i = 0; i < t->n; i++)
		if (!is_digit(t->s[i]))
			return false;
	return true;
}

/* Whole number of @t, at most @max; *@out is set.  Syntax checked by caller. */
static bool digits_value(const struct token *t, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		v = v * 10 + (uint64_t)(t->s[i] - '0');
		if (v > max)
			return false;
	}
	*out = v;
	return true;
}

/* A whole number from 0 to @max for key @key. */
int plat_parse_uint(struct parser *ps, const struct token *t, const char *key,
		      uint64_t max, uint64_t *out)
{
	struct snippet sn;

	if (!all_digits(t))
		return plat_fail(ps, "%s: '%s' is not a whole number", key, plat_show_tok(&sn, t));
	if (!digits_value(t, t->n, max, out))
		return plat_fail(ps, "%s: %s is out of range (at most %llu)", key,
			    plat_show_tok(&sn, t), (unsigned long long)max);
	return 0;
}

enum decimal_result {
	DECIMAL_OK,
	DECIMAL_BAD,	/* not of the form */
	DECIMAL_FINE,	/* a non-zero fourth decimal */
	DECIMAL_RANGE,	/* above @max */
};

/*
 * The number @t in thousandths: with @frac "D[.D...]" (at most three
 * decimals that are not zero), without it whole digits only, taken as
 * thousandths already.  The result is at most @max.
 */
static enum decimal_result decimal_milli(const struct token *t, bool frac, int64_t max,
					 int64_t *out)
{
	int64_t scale = frac ? 1000 : 1;
	size_t i, whole_n = 0;
	uint64_t whole, part = 0;
	int digits = 0;
	bool fine = false;

	while (whole_n < t->n && is_digit(t->s[whole_n]))
		whole_n++;
	if (!whole_n)
		return DECIMAL_BAD;
	if (whole_n < t->n) {
		if (!frac || t->s[whole_n] != '.' || whole_n + 1 == t->n)
			return DECIMAL_BAD;
		for (i = whole_n + 1; i < t->n; i++) {
			if (!is_digit(t->s[i]))
				return DECIMAL_BAD;
			if (digits < 3) {
				part = part * 10 + (uint64_t)(t->s[i] - '0');
				digits++;
			} else if (t->s[i] != '0') {
				fine = true;
			}
		}
		if (fine)
			return DECIMAL_FINE;
	}
	for (; digits < 3 && frac; digits++)
		part *= 10;
	if (!digits_value(t, whole_n, (uint64_t)(max / scale), &whole) ||
	    (int64_t)whole * scale + (int64_t)part > max)
		return DECIMAL_RANGE;
	*out = (int64_t)whole * scale + (int64_t)part;
	return DECIMAL_OK;
}

/*
 * A time for key @key: with @unit_ns 1000 decimal microseconds ("57",
 * "0.5"), with @unit_ns 1 whole nanoseconds.
 */
int plat_parse_time(struct parser *ps, const struct token *t, const char *key,
		      int64_t unit_ns, int64_t *out)
{
	struct snippet sn;

	switch (decimal_milli(t, unit_ns != 1, PLATFORM_MAX_TIME_NS, out)) {
	case DECIMAL_OK:
		return 0;
	case DECIMAL_FINE:
		return plat_fail(ps, "%s: %s is finer than 1 ns", key, plat_show_tok(&sn, t));
	case DECIMAL_RANGE:
		return plat_fail(ps, "%s: %s is out of range (at most %u us)", key,
			    plat_show_tok(&sn, t), UINT_MAX);
	default:
		return plat_fail(ps, "%s: '%s' is not a %s", key, plat_show_tok(&sn, t),
			    unit_ns == 1 ? "whole number of ns" :
			    "number of us (like 57 or 0.5)");
	}
}

/* An energy for key @key: decimal microjoules ("12", "0.5"), kept in nJ. */
int plat_parse_energy(struct parser *ps, const struct token *t, const char *key,
			int64_t *out)
{
	struct snippet sn;

	switch (decimal_milli(t, true, PLATFORM_MAX_ENERGY_NJ, out)) {
	case DECIMAL_OK:
		return 0;
	case DECIMAL_FINE:
		return plat_fail(ps, "%s: %s is finer than 1 nJ", key, plat_show_tok(&sn, t));
	case DECIMAL_RANGE:
		return plat_fail(ps, "%s: %s is out of range (at most %u uJ)", key,
			    plat_show_tok(&sn, t), UINT_MAX);
	default:
		return plat_fail(ps, "%s: '%s' is not a number of uJ (like 12 or 0.5)", key,
			    plat_show_tok(&sn, t));
	}
}

/* A power in mW for key @key; "unknown" too if @unknown_ok. */
int plat_parse_power(struct parser *ps, const struct token *t, const char *key,
		       bool unknown_ok, int *out)
{
	struct snippet sn;
	uint64_t v;
	int ret;

	if (unknown_ok) {
		if (plat_tok_is(t, "unknown")) {
			*out = CPUIDLE_POWER_UNKNOWN;
			return 0;
		}
		if (!all_digits(t))
			return plat_fail(ps, "%s: '%s' is neither a whole number of mW nor "
				    "'unknown'", key, plat_show_tok(&sn, t));
	}
	ret = plat_parse_uint(ps, t, key, INT_MAX, &v);
	if (!ret)
		*out = (int)v;
	return ret;
}

static const struct {
	const char *name;
	unsigned int flag;
} flag_names[] = {
	{ "time-valid",	CPUIDLE_FLAG_TIME_VALID },
	{ "check-bm",	CPUIDLE_FLAG_CHECK_BM },
	{ "poll",	CPUIDLE_FLAG_POLL },
	{ "polling",	CPUIDLE_FLAG_POLLING },
	{ "shallow",	CPUIDLE_FLAG_SHALLOW },
	{ "balanced",	CPUIDLE_FLAG_BALANCED },
	{ "deep",	CPUIDLE_FLAG_DEEP },
	{ "timer-stop",	CPUIDLE_FLAG_TIMER_STOP },
	{ "unusable",	CPUIDLE_FLAG_UNUSABLE },
	{ "off",	CPUIDLE_FLAG_OFF },
};

#define FLAG_LIST "time-valid, check-bm, poll, polling, shallow, balanced, deep, " \
		  "timer-stop, unusable, off"

/* A comma-separated list of flag names. */
int plat_parse_flags(struct parser *ps, const struct token *t, unsigned int *out)
{
	struct snippet sn;
	unsigned int flags = 0;
	size_t i = 0, j, k;

	for (;;) {
		struct token item = { .s = t->s + i };

		for (j = i; j < t->n && t->s[j] != ','; j++)
			;
		item.n = j - i;
		if (!item.n)
			return plat_fail(ps, "flags: empty flag name in '%s'", plat_show_tok(&sn, t));
		for (k = 0; k < sizeof(flag_names) / sizeof(flag_names[0]); k++)
			if (plat_tok_is(&item, flag_names[k].name))
				break;
		if (k == sizeof(flag_names) / sizeof(flag_names[0]))
			return plat_fail(ps, "flags: unknown flag '%s' (known: " FLAG_LIST ")",
				    plat_show_tok(&sn, &item));
		if (flags & flag_names[k].flag)
			return plat_fail(ps, "flags: '%s' given twice", flag_names[k].name);
		flags |= flag_names[k].flag;
		if (j == t->n)
			break;
		i = j + 1;
	}
	*out = flags;
	return 0;
}

void plat_cpumask_set(uint64_t *mask, unsigned int cpu)
{
	mask[cpu / 64] |= (uint64_t)1 << (cpu % 64);
}

/* The highest CPU of @cl (which has at least one). */
unsigned int plat_cluster_last_cpu(const struct cpuidle_platform_cluster *cl)
{
	int w;

	for (w = CPUIDLE_PLATFORM_CPUMASK_WORDS - 1; w > 0 && !cl->cpumask[w]; w--)
		;
	return (unsigned int)w * 64 + 63 - (unsigned int)__builtin_clzll(cl->cpumask[w] | 1);
}

/* A comma-separated list of CPUs and CPU ranges into @cl's mask. */
int plat_parse_cpulist(struct parser *ps, const struct token *t, const char *owner,
			 struct cpuidle_platform_cluster *cl)
{
	struct snippet sn;
	size_t i = 0, j, dash;

	for (;;) {
		struct token item = { .s = t->s + i }, lo, hi;
		uint64_t first, last, cpu;

		for (j = i; j < t->n && t->s[j] != ','; j++)
			;
		item.n = j - i;
		if (!item.n)
			return plat_fail(ps, "%s: cpus: empty item in '%s'", owner, plat_show_tok(&sn, t));
		for (dash = 0; dash < item.n && item.s[dash] != '-'; dash++)
			;
		lo = item;
		lo.n = dash;
		hi = lo;
		if (dash < item.n) {
			hi.s = item.s + dash + 1;
			hi.n = item.n - dash - 1;
		}
		if (!all_digits(&lo) || !all_digits(&hi))
			return plat_fail(ps, "%s: cpus: '%s' is neither a CPU number nor a range "
				    "like 2-5", owner, plat_show_tok(&sn, &item));
		if (!digits_value(&lo, lo.n, CPUIDLE_MAX_CPUS - 1, &first) ||
		    !digits_value(&hi, hi.n, CPUIDLE_MAX_CPUS - 1, &last))
			return plat_fail(ps, "%s: cpus: '%s' is out of range (CPUs are 0 to %d)",
				    owner, plat_show_tok(&sn, &item), CPUIDLE_MAX_CPUS - 1);
		if (first > last)
			return plat_fail(ps, "%s: cpus: range '%s' runs backwards", owner,
				    plat_show_tok(&sn, &item));
		for (cpu = first; cpu <= last; cpu++) {
			if (cpuidle_platform_cluster_has_cpu(cl, (unsigned int)cpu))
				return plat_fail(ps, "%s: cpus: CPU %u given twice", owner,
					    (unsigned int)cpu);
			plat_cpumask_set(cl->cpumask, (unsigned int)cpu);
			cl->nr_cpus++;
		}
		if (j == t->n)
			break;
		i = j + 1;
	}
	return 0;
}

/* "57 us" or "500 ns" for messages. */
const char *plat_show_time(char *buf, size_t size, int64_t ns)
{
	if (ns % CPUIDLE_NSEC_PER_USEC)
		snprintf(buf, size, "%lld ns", (long long)ns);
	else
		snprintf(buf, size, "%lld us", (long long)(ns / CPUIDLE_NSEC_PER_USEC));
	return buf;
}

/*
 * The KEY of a KEY=VALUE at c->pos, and its '='.  @owner names what the
 * line describes ("state 'C1'").
 */
int plat_read_key(struct parser *ps, struct cursor *c, const char *owner, struct token *key)
{
	struct snippet sn;

	key->s = c->pos;
	key->quoted = false;
	while (!plat_ends_word(c) && *c->pos != '=' && *c->pos != '"')
		c->pos++;
	key->n = (size_t)(c->pos - key->s);
	if (c->pos == c->end || *c->pos != '=') {
		while (!plat_ends_word(c))
			c->pos++;
		return plat_fail(ps, "%s: expected KEY=VALUE, got '%s'", owner,
			    show(&sn, key->s, (size_t)(c->pos - key->s)));
	}
	if (!key->n)
		return plat_fail(ps, "%s: '=' without a key", owner);
	c->pos++;
	return 0;
}

/* The VALUE after "KEY=", @name being the key's. */
int plat_read_key_value(struct parser *ps, struct cursor *c, const char *owner,
			  const char *name, struct token *val)
{
	if (plat_ends_word(c))
		return plat_fail(ps, "%s: empty value for %s", owner, name);
	return plat_read_value(ps, c, val, name);
}

/* Fail on a key given twice: @seen holds the spelling used first, or NULL. */
int plat_check_once(struct parser *ps, const char *owner, const char **seen,
		      const char *name)
{
	if (*seen) {
		if (!strcmp(*seen, name))
			return plat_fail(ps, "%s: duplicate key %s", owner, name);
		return plat_fail(ps, "%s: duplicate key %s (%s already given)", owner, name, *seen);
	}
	*seen = name;
	return 0;
}
