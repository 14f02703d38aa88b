// SPDX-License-Identifier: MIT
/*
 * bench_format.c - the event formats of a perf.data's tracing data read by
 * libtraceevent's tep_parse_event() (as they are, or with their print
 * formats emptied, as trace_perf_format.c hands them over) and by
 * lab/ingest/trace_format.c, each in its own function for callgrind's
 * --toggle-collect:
 *
 *   for fn in parse_tep parse_tep_lean parse_ours; do
 *	valgrind --tool=callgrind --toggle-collect=$fn \
 *		build-release/bench/bench_format FILE.perf.data
 *   done
 *
 * (the file uncompressed; "I refs" is the function's count).  It prints
 * how many formats and fields each read.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "trace_format.h"

#define FORMATS_MAX	4096

struct text {
	const char *sys, *p;
	size_t len;
};

static uint64_t num(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/* the event formats of little-endian tracing data @b (@len bytes) into @out */
static size_t formats(const unsigned char *b, size_t len, struct text *out)
{
	size_t pos, i, j, n, nr_sys, nr = 0;
	const unsigned char *z = memchr(b + 10, '\0', len - 10);
	uint64_t size;

	if (len < 10 || memcmp(b, "\x17\x08\x44tracing", 10) || !z)
		return 0;
	pos = (size_t)(z - b) + 1 + 6;
	for (i = 0; i < 2; i++) {
		pos += strlen((const char *)b + pos) + 1;
		pos += 8 + num(b + pos, 8);
	}
	n = num(b + pos, 4);
	for (pos += 4, j = 0; j < n; j++)
		pos += 8 + num(b + pos, 8);
	nr_sys = num(b + pos, 4);
	for (pos += 4, i = 0; i < nr_sys; i++) {
		const char *sys = (const char *)b + pos;

		pos += strlen(sys) + 1;
		n = num(b + pos, 4);
		for (pos += 4, j = 0; j < n && nr < FORMATS_MAX; j++) {
			size = num(b + pos, 8);
			pos += 8;
			if (size > len - pos)
				return nr;
			out[nr++] = (struct text){ .sys = sys, .p = (const char *)b + pos,
						   .len = size };
			pos += size;
		}
	}
	return nr;
}

/*
 * One function each, none calling another (callgrind's toggles do not
 * nest), noipa: gcc would merge the two alike ones (clang has no noipa;
 * noinline keeps them apart there).
 */
#ifdef __clang__
#define BENCH_APART	__attribute__((noinline))
#else
#define BENCH_APART	__attribute__((noipa))
#endif

BENCH_APART static size_t parse_tep(struct tep_handle *tep,
							    const struct text *t, size_t nr)
{
	size_t i, ok = 0;

	for (i = 0; i < nr; i++)
		ok += !tep_parse_event(tep, t[i].p, t[i].len, t[i].sys);
	return ok;
}

BENCH_APART static size_t parse_tep_lean(struct tep_handle *tep,
								 const struct text *t, size_t nr)
{
	size_t i, ok = 0;

	for (i = 0; i < nr; i++)
		ok += !tep_parse_event(tep, t[i].p, t[i].len, t[i].sys);
	return ok;
}

BENCH_APART static size_t parse_ours(const struct text *t, size_t nr)
{
	struct event_format fmt;
	struct event_field f;
	size_t i, fields = 0;

	for (i = 0; i < nr; i++) {
		if (event_format_open(&fmt, t[i].p, t[i].len))
			continue;
		while (event_format_next(&fmt, &f) > 0)
			fields++;
	}
	return fields;
}

/* @t's texts with their print formats emptied, into @lean (freed by the caller) */
static char *lean_copies(const struct text *t, struct text *lean, size_t nr)
{
	static const char print[] = "print fmt: \"\"\n";
	size_t i, total = 0, o = 0, keep;
	const char *p;
	char *buf;

	for (i = 0; i < nr; i++)
		total += t[i].len + sizeof(print);
	buf = malloc(total);
	if (!buf)
		return NULL;
	for (i = 0; i < nr; i++) {
		p = memmem(t[i].p, t[i].len, "print fmt:", 10);
		keep = p ? (size_t)(p - t[i].p) : t[i].len;
		memcpy(buf + o, t[i].p, keep);
		memcpy(buf + o + keep, print, sizeof(print) - 1);
		lean[i] = (struct text){ .sys = t[i].sys, .p = buf + o,
					 .len = keep + sizeof(print) - 1 };
		o += keep + sizeof(print) - 1;
	}
	return buf;
}

int main(int argc, char **argv)
{
	static struct text t[FORMATS_MAX], lean[FORMATS_MAX];
	struct tep_handle *tep, *tep_lean;
	size_t len, nr, off, size;
	unsigned char *b;
	char *buf;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_format FILE.perf.data\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (len = (size_t)ftell(f)) < 104 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "%s: cannot read it\n", argv[1]);
		return 1;
	}
	b = malloc(len);
	if (!b || fread(b, 1, len, f) != len || memcmp(b, "PERFILE2", 8) || !(b[72] & 2)) {
		fprintf(stderr, "%s: not a perf.data with tracing data\n", argv[1]);
		return 1;
	}
	fclose(f);
	/* the first feature section: HEADER_TRACING_DATA */
	off = (size_t)(num(b + 40, 8) + num(b + 48, 8));
	size = (size_t)num(b + off + 8, 8);
	off = (size_t)num(b + off, 8);
	nr = off + size <= len ? formats(b + off, size, t) : 0;
	buf = lean_copies(t, lean, nr);
	tep = tep_alloc();
	tep_lean = tep_alloc();
	if (!nr || !buf || !tep || !tep_lean) {
		fprintf(stderr, "%s: no formats\n", argv[1]);
		return 1;
	}
	printf("%zu formats: tep_parse_event %zu, print formats emptied %zu; ours %zu fields\n", nr,
	       parse_tep(tep, t, nr), parse_tep_lean(tep_lean, lean, nr), parse_ours(t, nr));
	tep_free(tep);
	tep_free(tep_lean);
	free(buf);
	free(b);
	return 0;
}
