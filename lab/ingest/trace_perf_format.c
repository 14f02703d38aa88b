// SPDX-License-Identifier: MIT
/*
 * trace_perf_format.c - perf.data's tracing data (HEADER_TRACING_DATA, as a
 * feature section or a pipe-mode record): the event formats the kernel
 * wrote, checked line by line and kept for the decoder (those of its events:
 * read by trace_format.c, tp_decoder_init_formats()), the kernel's symbols
 * (libtraceevent's, if the file has any) and the printk strings IPI reasons
 * are looked up in.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tep_lib.h"
#include "trace_format.h"
#include "trace_perf.h"
#include "tracing_data.h"

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* "ADDR : \"TEXT\"" (the kernel's printk_formats), @n bytes, no newline */
static bool printk_line(const char *l, size_t n)
{
	size_t i = 0;

	if (n > 1 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X'))
		i = 2;
	if (i >= n || !is_hex(l[i]))
		return false;
	while (i < n && is_hex(l[i]))
		i++;
	return n - i >= 5 && !memcmp(l + i, " : \"", 4) && l[n - 1] == '"';
}

/* "ADDR T NAME" with an optional " [MODULE]" (/proc/kallsyms) */
static bool kallsyms_line(const char *l, size_t n)
{
	size_t i = 0;

	while (i < n && is_hex(l[i]))
		i++;
	if (!i || i + 4 > n || l[i] != ' ' || l[i + 1] == ' ' || l[i + 2] != ' ' ||
	    l[i + 3] == ' ' || l[i + 3] == '\t')
		return false;
	for (i += 3; i < n; i++)
		if (l[i] == '\0')
			return false;
	return true;
}

/* the lines of @text (@size bytes) @ok accepts, NUL-terminated, into @out (size + 2) */
static void keep_lines(char *out, const unsigned char *text, size_t size,
		       bool (*ok)(const char *, size_t))
{
	const char *l = (const char *)text, *end = l + size, *nl;
	size_t n, o = 0;

	for (; l < end; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			nl = end;
		n = (size_t)(nl - l);
		if (!memchr(l, '\0', n) && ok(l, n)) {
			memcpy(out + o, l, n);
			o += n;
			out[o++] = '\n';
		}
		if (nl == end)
			break;
	}
	out[o] = '\0';
}

/*
 * A number as the kernel writes one at @l[*i], @n long: 1 to 9 decimal
 * digits, no leading zero (libtraceevent reads numbers as C does, "082"
 * as octal 0: fuzz_trace_perfdata found the decoders then disagree on a
 * format no kernel writes).  Return: true, *i past it.
 */
static bool digits(const char *l, size_t n, size_t *i)
{
	size_t s = *i;

	while (*i < n && l[*i] >= '0' && l[*i] <= '9')
		(*i)++;
	return *i > s && *i - s <= 9 && (l[s] != '0' || *i - s == 1);
}

/* does @l (@n bytes) start with @w, at *@i? then *@i moves past it */
static bool word(const char *l, size_t n, size_t *i, const char *w)
{
	size_t k = strlen(w);

	if (n - *i < k || memcmp(l + *i, w, k))
		return false;
	*i += k;
	return true;
}

static bool ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/*
 * A field's declaration, "TYPE NAME" as the kernel writes it: words of
 * identifier characters, '*' and spaces, brackets that hold a number or
 * nothing ("char comm[16]", "__data_loc char[] name"), a name last.
 * libtraceevent 1.7.1 dereferences NULL on some others (an unclosed '['
 * followed by bytes above 0x7f: found by fuzz_trace_perfdata).
 */
static bool field_decl(const char *d, size_t n)
{
	size_t i, last = 0;
	bool words = false;

	if (!n || d[0] == ' ' || d[n - 1] == ' ')
		return false;
	for (i = 0; i < n; i++) {
		if (d[i] == '[') {
			for (i++; i < n && d[i] >= '0' && d[i] <= '9'; i++)
				;
			if (i == n || d[i] != ']')
				return false;
		} else if (d[i] == ' ') {
			last = i + 1;
			words = true;
		} else if (!ident_char(d[i]) && d[i] != '*') {
			return false;
		}
	}
	/* the name: an identifier (its array brackets after it) */
	return words && last < n && ident_char(d[last]) && !(d[last] >= '0' && d[last] <= '9');
}

/*
 * "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;" (signed: since
 * 2.6.33), a line of an event's format
 */
static bool field_line(const char *l, size_t n)
{
	size_t i = 0, semi;

	if (!word(l, n, &i, "\tfield:"))
		return false;
	for (semi = i; semi < n && l[semi] != ';'; semi++)
		;
	if (semi == n || !field_decl(l + i, semi - i))
		return false;
	i = semi + 1;
	if (!word(l, n, &i, "\toffset:") || !digits(l, n, &i) || !word(l, n, &i, ";\tsize:") ||
	    !digits(l, n, &i) || !word(l, n, &i, ";"))
		return false;
	if (i < n && (!word(l, n, &i, "\tsigned:") || !digits(l, n, &i) || !word(l, n, &i, ";")))
		return false;
	return i == n;
}

/*
 * An event's format, checked line by line and given to libtraceevent with
 * its print format emptied: libtraceevent 1.7.1 crashes on some malformed
 * ones (fuzz_trace_perfdata found a NULL dereference in tep_parse_event()),
 * and the lab reads fields, never prints (an IPI's reason, the one string
 * it needs, is looked up in the printk strings: ipi_reason_text()).
 * Return: the length written to @out (at least @size + 32 bytes), or 0
 * for a format that is not well formed (its event is then unknown).
 */
static size_t clean_format(char *out, const unsigned char *text, size_t size)
{
	static const char print[] = "print fmt: \"\"\n";
	const char *l = (const char *)text, *end = l + size, *nl;
	size_t n, o = 0, i;
	int stage = 0;	/* 0 name, 1 ID, 2 "format:", 3 fields */

	for (; l < end && stage < 4; l = nl + 1) {
		nl = memchr(l, '\n', (size_t)(end - l));
		if (!nl)
			nl = end;
		n = (size_t)(nl - l);
		i = 0;
		switch (stage) {
		case 0:
			if (!word(l, n, &i, "name: ") || i == n || memchr(l, '\0', n))
				return 0;
			for (; i < n; i++)
				if (!(l[i] == '_' || (l[i] >= 'a' && l[i] <= 'z') ||
				      (l[i] >= 'A' && l[i] <= 'Z') || (l[i] >= '0' && l[i] <= '9')))
					return 0;
			break;
		case 1:
			if (!word(l, n, &i, "ID: ") || !digits(l, n, &i) || i != n)
				return 0;
			break;
		case 2:
			if (n != 7 || memcmp(l, "format:", 7))
				return 0;
			break;
		default:
			if (n >= 10 && !memcmp(l, "print fmt:", 10)) {
				stage = 4;
				continue;
			}
			if (!n) {
				/* a blank line between common and own fields, and after */
				out[o++] = '\n';
				continue;
			}
			if (!field_line(l, n))
				return 0;
			break;
		}
		if (stage < 3)
			stage++;
		memcpy(out + o, l, n);
		o += n;
		out[o++] = '\n';
		if (nl == end)
			break;
	}
	if (stage < 3)
		return 0;
	memcpy(out + o, print, sizeof(print) - 1);
	return o + sizeof(print) - 1;
}

/* what keep_format() is given: the reader, and where its tracing data is */
struct keep_ctx {
	struct perf_reader *p;
	uint64_t off;
};

/*
 * An event's format, @size bytes of @text in the system @sys: kept, checked
 * line by line, if the decoder reads that event (tp_event_wanted()); the
 * others are not read at all.  A format that is not well formed (it fails
 * clean_format(): libtraceevent was never given it) is one the decoder then
 * finds missing; one whose fields go wrong part way keeps those before, as
 * libtraceevent keeps them (tp_decoder_init_formats()).  A td_format_ops
 * event.
 */
static int keep_format(void *ctx, const char *sys, const unsigned char *text, size_t size)
{
	struct perf_reader *p = ((struct keep_ctx *)ctx)->p;
	uint64_t off = ((struct keep_ctx *)ctx)->off;
	struct tp_format_text *more, *kept;
	struct event_format fmt;
	size_t clean;
	char *copy, *system;

	/*
	 * Its name, read in place: a format clean_format() keeps starts with
	 * the same three lines, which event_format_open() accepts
	 */
	if (event_format_open(&fmt, (const char *)text, size) ||
	    !tp_event_wanted(sys, fmt.name, fmt.name_len))
		return 0;
	copy = malloc(size + 32);
	if (!copy)
		return perf_fail(p, -ENOMEM, off, "out of memory");
	clean = clean_format(copy, text, size);
	if (!clean) {
		free(copy);
		return 0;
	}
	system = strdup(sys);
	more = realloc(p->formats, (p->nr_formats + 1) * sizeof(*p->formats));
	if (!system || !more) {
		free(system);
		free(copy);
		if (more)
			p->formats = more;
		return perf_fail(p, -ENOMEM, off, "out of memory");
	}
	p->formats = more;
	kept = &p->formats[p->nr_formats++];
	*kept = (struct tp_format_text){ .system = system, .text = copy, .len = clean };
	return 0;
}

/* was a format of the system @sys kept? */
static bool keeps_system(const struct perf_reader *p, const char *sys)
{
	for (size_t i = 0; i < p->nr_formats; i++)
		if (!strcmp(p->formats[i].system, sys))
			return true;
	return false;
}

/*
 * The tracing data perf (and trace-cmd) write: a magic, a version, the byte
 * order and long size, the ring buffer's header formats, the formats of
 * ftrace's own events and of the traced events by system, the kernel's
 * symbols and printk strings, and (0.6) saved command lines.
 */
static int parse_tracing_data(struct perf_reader *p, const unsigned char *b, size_t len,
			      uint64_t off)
{
	static const unsigned char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	static const struct td_format_ops keep = { .event = keep_format };
	struct keep_ctx ctx = { .p = p, .off = off };
	struct td_cursor t = { .b = b, .len = len };
	const unsigned char *text;
	uint64_t size, i;
	unsigned int long_size;
	const unsigned char *z;
	char *copy, why[300];
	int err;

	if (len < sizeof(magic) || memcmp(b, magic, sizeof(magic)))
		return perf_fail(p, -EINVAL, off, "the tracing data does not start with its magic");
	t.pos = sizeof(magic);
	z = memchr(b + t.pos, '\0', len - t.pos);
	if (!z || (size_t)(z - (b + t.pos)) > 8)
		return perf_fail(p, -EINVAL, off, "the tracing data has no version");
	t.pos = (size_t)(z - b) + 1;
	if (!td_has(&t, 6))
		goto short_data;
	t.big = b[t.pos] != 0;
	long_size = b[t.pos + 1];
	t.pos += 2;
	if (long_size != 4 && long_size != 8)
		return perf_fail(p, -EINVAL, off, "the tracing data says longs are %u bytes", long_size);
	p->big_endian = t.big;
	t.pos += 4;	/* the page size: the ring buffer's, not perf's samples' */

	/* "header_page" and "header_event", each a size and a text */
	for (i = 0; i < 2; i++) {
		const char *want = i ? "header_event" : "header_page";
		size_t wl = strlen(want) + 1;

		if (!td_has(&t, wl) || memcmp(b + t.pos, want, wl))
			return perf_fail(p, -EINVAL, off, "the tracing data has no %s", want);
		t.pos += wl;
		if (!td_blob(&t, 8, &text, &size))
			goto short_data;
	}
	/* ftrace's own formats (not ours: passed over), the traced events' kept */
	err = td_walk_formats(&t, &keep, &ctx, NULL);
	if (err == -ENODATA)
		goto short_data;
	if (err)
		return err;
	/* the kernel's symbols (perf writes none), printk strings: optional */
	for (i = 0; i < 2 && td_has(&t, 4); i++) {
		if (!td_blob(&t, 4, &text, &size))
			goto short_data;
		/* the printk strings name IPI reasons alone: kept if ipi_entry is */
		if (!size || (i && !keeps_system(p, "ipi")))
			continue;
		copy = malloc(size + 2);	/* a last line gets its newline */
		if (!copy)
			return perf_fail(p, -ENOMEM, off, "out of memory");
		/* only well-formed lines: libtraceevent reads past the end of others */
		keep_lines(copy, text, size, i ? printk_line : kallsyms_line);
		if (i) {
			/* kept for the decoder (IPI reasons), not given to libtraceevent */
			free(p->printk);
			p->printk = copy;
			continue;
		}
		/* function names, for the tick's hrtimer (perf writes none) */
		if (*copy && !p->tep) {
			const struct tep_lib *tl = tep_lib(why, sizeof(why));

			p->tep = tl ? tl->tep_alloc() : NULL;
			if (!p->tep) {
				free(copy);
				return perf_fail(p, tl ? -ENOMEM : -ELIBACC, off, "%s",
						 tl ? "out of memory" : why);
			}
			/* the filter (trace_tracecmd.c) in front of libtraceevent's */
			tep_parse_kallsyms(p->tep, copy);
		}
		free(copy);
	}
	return 0;
short_data:
	return perf_fail(p, -EINVAL, off, "the tracing data is cut short (%zu bytes, or a size in it "
		     "is wrong)", len);
}

/* read @size bytes of tracing data at the source's position and parse them */
int perf_read_tracing_data(struct perf_reader *p, uint64_t size)
{
	uint64_t off = trace_src_offset(p->src);
	const unsigned char *b;
	int err;

	if (size > TRACING_DATA_MAX)
		return perf_fail(p, -EINVAL, off, "the tracing data claims %llu bytes (over %u MiB: "
			     "corrupt)", (unsigned long long)size, TRACING_DATA_MAX >> 20);
	if (p->tracing_data)
		return perf_fail(p, -EINVAL, off, "a second tracing data section");
	p->tracing_data = true;
	err = perf_need(p, (size_t)size, &b, "the tracing data");
	if (!err)
		err = parse_tracing_data(p, b, (size_t)size, off);
	return err;
}
