// SPDX-License-Identifier: MIT
/*
 * test_trace_format.c - the lab's event format parser (lab/ingest/trace_format.c)
 * against libtraceevent's, on every format at hand: those in the tracing
 * data of the shared perf.data files, those of the Juno trace.dat, and this
 * machine's tracefs events/SYSTEM/EVENT/format files.  For each format both
 * read, the event's name and ID and every field's name, offset, size,
 * signedness and dynamic, relative and array flags must agree, in order,
 * common fields and own; a format libtraceevent refuses, ours must refuse.
 */
#include <errno.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <traceevent/event-parse.h>

#include "trace_format.h"

#define TRACES		SRCDIR "/../shared/traces"
#define TRACEFS_EVENTS	"/sys/kernel/tracing/events"

/* what one source gave */
struct tally {
	const char *source;
	struct tep_handle *tep;
	unsigned int formats, refused, fields;
};

/* the fields of @list (libtraceevent's) against ours, in order */
static void compare_fields(const struct tally *t, const char *sys, struct tep_event *ev,
			   struct event_format *fmt, struct tep_format_field *list, bool common,
			   unsigned int *nr)
{
	struct tep_format_field *tf, *found;
	struct event_field f;
	char name[256];
	int ret;

	for (tf = list; tf; tf = tf->next) {
		ret = event_format_next(fmt, &f);
		if (ret != 1)
			fail_msg("%s: %s:%s: ours ended (%d) before field '%s'", t->source, sys,
				 ev->name, ret, tf->name);
		snprintf(name, sizeof(name), "%.*s", (int)f.name_len, f.name);
		if (strcmp(name, tf->name) || f.common != common || (int)f.offset != tf->offset ||
		    (int)f.size != tf->size ||
		    f.is_signed != !!(tf->flags & TEP_FIELD_IS_SIGNED) ||
		    f.dynamic != !!(tf->flags & TEP_FIELD_IS_DYNAMIC) ||
		    f.relative != !!(tf->flags & TEP_FIELD_IS_RELATIVE) ||
		    f.array != !!(tf->flags & TEP_FIELD_IS_ARRAY))
			fail_msg("%s: %s:%s: field '%s' (common %d) at %d, %d bytes, "
				 "flags %#lx; ours '%s' (common %d) at %u, %u bytes, signed %d "
				 "dynamic %d relative %d array %d", t->source, sys, ev->name,
				 tf->name, common, tf->offset, tf->size, tf->flags, name, f.common,
				 f.offset, f.size, f.is_signed, f.dynamic, f.relative, f.array);
		/* what the decoder asks: the field by its name (the first of that name) */
		found = common ? tep_find_common_field(ev, name) : tep_find_field(ev, name);
		assert_non_null(found);
		if (found == tf)
			assert_true(event_field_is(&f, tf->name));
		(*nr)++;
	}
}

/*
 * Did libtraceevent read the fields of a format it marked failed? (1.7.1
 * returns 0 and TEP_EVENT_FL_FAILED when the fields do not parse, as when
 * the print format does not.)  It did if the format with its print format
 * emptied parses.
 */
static bool fields_read(const char *text, size_t size, const char *sys)
{
	static const char print[] = "print fmt: \"\"\n";
	struct tep_handle *tep = tep_alloc();
	const char *p = memmem(text, size, "print fmt:", 10);
	size_t keep = p ? (size_t)(p - text) : size;
	struct tep_event *ev = NULL;
	char *copy = malloc(keep + sizeof(print));
	bool ok;

	assert_non_null(tep);
	assert_non_null(copy);
	memcpy(copy, text, keep);
	memcpy(copy + keep, print, sizeof(print));
	tep_parse_format(tep, &ev, copy, keep + sizeof(print) - 1, sys);
	ok = ev && !(ev->flags & TEP_EVENT_FL_FAILED);
	tep_free(tep);
	free(copy);
	return ok;
}

/* one format, @size bytes of @sys, read by both */
static void compare(struct tally *t, const char *sys, const char *text, size_t size)
{
	struct tep_event *ev = NULL;
	struct event_format fmt;
	struct event_field f;
	enum tep_errno err;
	bool theirs_ok;
	int ours, ret;

	t->formats++;
	err = tep_parse_format(t->tep, &ev, text, size, sys);
	theirs_ok = ev && !(ev->flags & TEP_EVENT_FL_FAILED);
	if (ev && !theirs_ok)
		theirs_ok = fields_read(text, size, sys);
	ours = event_format_open(&fmt, text, size);
	if (!theirs_ok) {
		t->refused++;
		while (!ours && (ret = event_format_next(&fmt, &f)) > 0)
			;
		if (!ours && !ret)
			fail_msg("%s: %s: libtraceevent refuses this format (%d), ours reads "
				 "it:\n%.*s", t->source, sys, err, (int)size, text);
		return;
	}
	if (ours)
		fail_msg("%s: %s:%s: ours refuses the name or ID", t->source, sys, ev->name);
	if (strlen(ev->name) != fmt.name_len || memcmp(ev->name, fmt.name, fmt.name_len) ||
	    ev->id != fmt.id)
		fail_msg("%s: %s:%s id %d: ours '%.*s' id %lld", t->source, sys, ev->name, ev->id,
			 (int)fmt.name_len, fmt.name, fmt.id);
	compare_fields(t, sys, ev, &fmt, ev->format.common_fields, true, &t->fields);
	compare_fields(t, sys, ev, &fmt, ev->format.fields, false, &t->fields);
	ret = event_format_next(&fmt, &f);
	if (ret)
		fail_msg("%s: %s:%s: ours has more fields (%d; libtraceevent said %d)",
			 t->source, sys, ev->name, ret, err);
}

static uint64_t num(const unsigned char *p, size_t n, bool big)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[big ? i : n - 1 - i];
	return v;
}

/*
 * The tracing data's event formats (perf.data's HEADER_TRACING_DATA, and
 * the start of a version 6 trace.dat: the same layout), each compared.
 * Return: the formats found.
 */
static unsigned int walk_tracing_data(struct tally *t, const unsigned char *b, size_t len)
{
	size_t pos = 10, i, j, n, nr_sys;
	const unsigned char *z;
	uint64_t size;
	unsigned int before = t->formats;
	bool big;

#define NEED(n) do { \
		if ((n) > len - pos) \
			fail_msg("%s: cut short at %zu", t->source, pos); \
	} while (0)
	assert_true(len > 10 && !memcmp(b, "\x17\x08\x44tracing", 10));
	z = memchr(b + pos, '\0', len - pos);
	assert_non_null(z);
	pos = (size_t)(z - b) + 1;
	NEED(6);
	big = b[pos];
	tep_set_file_bigendian(t->tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(t->tep, b[pos + 1]);
	pos += 6;
	for (i = 0; i < 2; i++) {
		const char *want = i ? "header_event" : "header_page";

		NEED(strlen(want) + 1 + 8);
		assert_memory_equal(b + pos, want, strlen(want) + 1);
		pos += strlen(want) + 1;
		size = num(b + pos, 8, big);
		pos += 8;
		NEED(size);
		pos += size;
	}
	/* ftrace's own events, then the others by system */
	NEED(4);
	n = num(b + pos, 4, big);
	pos += 4;
	for (j = 0; j < n; j++) {
		NEED(8);
		size = num(b + pos, 8, big);
		pos += 8;
		NEED(size);
		compare(t, "ftrace", (const char *)b + pos, size);
		pos += size;
	}
	NEED(4);
	nr_sys = num(b + pos, 4, big);
	pos += 4;
	for (i = 0; i < nr_sys; i++) {
		const char *sys = (const char *)b + pos;

		z = memchr(b + pos, '\0', len - pos);
		assert_non_null(z);
		pos = (size_t)(z - b) + 1;
		NEED(4);
		n = num(b + pos, 4, big);
		pos += 4;
		for (j = 0; j < n; j++) {
			NEED(8);
			size = num(b + pos, 8, big);
			pos += 8;
			NEED(size);
			compare(t, sys, (const char *)b + pos, size);
			pos += size;
		}
	}
#undef NEED
	return t->formats - before;
}

/* @path decompressed by xz(1) into memory: its size in *@len */
static unsigned char *unxz(const char *path, size_t *len)
{
	char cmd[4200];
	unsigned char *b = NULL;
	size_t cap = 0, got;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "xz -dc '%s'", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	*len = 0;
	do {
		if (cap - *len < 1 << 20) {
			cap += 8 << 20;
			b = realloc(b, cap);
			assert_non_null(b);
		}
		got = fread(b + *len, 1, cap - *len, p);
		*len += got;
	} while (got);
	assert_int_equal(pclose(p), 0);
	return b;
}

static void tally_start(struct tally *t, const char *source)
{
	*t = (struct tally){ .source = source, .tep = tep_alloc() };
	assert_non_null(t->tep);
}

static void tally_end(struct tally *t)
{
	print_message("%s: %u formats (%u refused by both), %u fields alike\n", t->source,
		      t->formats, t->refused, t->fields);
	tep_free(t->tep);
}

/* perf.data: the tracing data is the first feature section (HEADER_TRACING_DATA, bit 1) */
static void test_perf_data(void **state)
{
	static const char *const shared[] = {
		"video-haltpoll200", "udp-haltpoll", "pgbench-menu", "sqlite-ladder",
	};
	char path[4096];
	struct tally t;
	unsigned char *b;
	uint64_t data_off, data_size, sec_off, sec_size;
	size_t len, i;

	(void)state;
	for (i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		snprintf(path, sizeof(path), "%s/perf.data/%s.perf.data.xz", TRACES, shared[i]);
		if (access(path, R_OK)) {
			print_message("%s: not there, the shared recordings' check "
				      "skipped\n", path);
			skip();
		}
		b = unxz(path, &len);
		assert_true(len > 104 && !memcmp(b, "PERFILE2", 8));
		assert_true(b[72] & 2);		/* HEADER_TRACING_DATA */
		data_off = num(b + 40, 8, false);
		data_size = num(b + 48, 8, false);
		assert_true(data_off + data_size + 16 <= len);
		sec_off = num(b + data_off + data_size, 8, false);
		sec_size = num(b + data_off + data_size + 8, 8, false);
		assert_true(sec_off + sec_size <= len);
		tally_start(&t, shared[i]);
		assert_true(walk_tracing_data(&t, b + sec_off, sec_size) > 0);
		tally_end(&t);
		free(b);
	}
}

/* the Juno trace.dat (version 6: the tracing data at its start) */
static void test_trace_dat(void **state)
{
	const char *path = TRACES "/hardware/juno-lisa/trace.dat.xz";
	struct tally t;
	unsigned char *b;
	size_t len;

	(void)state;
	if (access(path, R_OK)) {
		print_message("%s: not there, its check skipped\n", path);
		skip();
	}
	b = unxz(path, &len);
	assert_true(len > 12 && b[10] == '6' && !b[11]);
	tally_start(&t, "juno trace.dat");
	/* 589: 15 of ftrace's own, 574 in 60 systems */
	assert_true(walk_tracing_data(&t, b, len) > 500);
	tally_end(&t);
	free(b);
}

/* this machine's tracefs formats, if it lets us read them */
static void test_tracefs(void **state)
{
	char sys[256], *text;
	struct tally t;
	glob_t g;
	size_t i, len;
	FILE *f;

	(void)state;
	if (glob(TRACEFS_EVENTS "/*/*/format", 0, NULL, &g) || !g.gl_pathc) {
		print_message("%s: no format files readable, this check skipped\n", TRACEFS_EVENTS);
		skip();
	}
	tally_start(&t, "tracefs");
	tep_set_long_size(t.tep, (int)sizeof(long));
	text = malloc(1 << 20);
	assert_non_null(text);
	for (i = 0; i < g.gl_pathc; i++) {
		const char *s = g.gl_pathv[i] + strlen(TRACEFS_EVENTS "/");

		f = fopen(g.gl_pathv[i], "r");
		if (!f)
			continue;	/* went, or not ours to read */
		len = fread(text, 1, (1 << 20) - 1, f);
		fclose(f);
		snprintf(sys, sizeof(sys), "%.*s", (int)(strchr(s, '/') - s), s);
		compare(&t, sys, text, len);
	}
	free(text);
	globfree(&g);
	assert_true(t.formats > 0);
	tally_end(&t);
}

/* formats made to break a rule: both refuse, or both read them alike */
static void test_edges(void **state)
{
	static const char *const formats[] = {
		/* an array after its type, a __rel_loc, an array's size by sizeof, no signed: */
		"name: a\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
		"\tfield:__data_loc char[] s;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:__rel_loc char[] r;\toffset:12;\tsize:4;\tsigned:0;\n"
		"\tfield:u8 x[sizeof(struct in6_addr)];\toffset:16;\tsize:16;\tsigned:0;\n"
		"\tfield:long v;\toffset:32;\tsize:8;\n"
		"\n"
		"print fmt: \"\"\n",
		/* no fields of its own, and no print fmt */
		"name: b\nID: 8\nformat:\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\n",
		/* refused: a '*' first, no offset, two dimensions, no name line, no blank line */
		"name: c\nID: 9\nformat:\n\tfield:* x;\toffset:0;\tsize:4;\tsigned:1;\n\n\n",
		"name: d\nID: 9\nformat:\n\tfield:int x;\tsize:4;\tsigned:1;\n\n\n",
		"name: e\nID: 9\nformat:\n"
		"\tfield:int x[2][3];\toffset:0;\tsize:24;\tsigned:1;\n\n\n",
		"ID: 9\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\n\n\n",
		"name: f\nID: 9\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\n",
		/*
		 * refused: mac80211's print-format macros, which libtraceevent
		 * takes for strings wherever they stand (fuzz_trace_perfdata
		 * found the first)
		 */
		"name: h\nID: 9\nformat:\n"
		"\tfield:VIF_PR_FMT char[] name;\toffset:0;\tsize:4;\tsigned:0;\n\n\n",
		"name: i\nID: 9\nformat:\n\tfield:int STA_PR_FMT;\toffset:0;\tsize:4;\tsigned:1;\n\n\n",
		"name: LOCAL_PR_FMT\nID: 9\nformat:\n"
		"\tfield:int x;\toffset:0;\tsize:4;\tsigned:1;\n\n\n",
	};
	static const char one_word[] =
		"name: c\nID: 9\nformat:\n\tfield:int;\toffset:0;\tsize:4;\tsigned:1;\n\n\n";
	static const char attribute[] =
		"name: g\nID: 9\nformat:\n"
		"\tfield:const char __attribute__((user)) * name;\toffset:8;\tsize:8;\tsigned:0;\n";
	struct event_format fmt;
	struct event_field f;
	struct tally t;
	size_t i;

	(void)state;
	tally_start(&t, "made");
	tep_set_long_size(t.tep, 8);
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		compare(&t, "made", formats[i], strlen(formats[i]));
	assert_int_equal(t.refused, 8);
	assert_int_equal(t.fields, 6);
	tally_end(&t);
	/*
	 * libtraceevent 1.7.1 leaks on these two, from frames LeakSanitizer's
	 * fast unwinder does not reach (fuzz/lsan.supp names the library):
	 * ours alone, by what libtraceevent makes of them.  A name with no
	 * type, refused ("no type found"); an attribute in the type, the word
	 * after it the name.
	 */
	assert_int_equal(event_format_open(&fmt, one_word, strlen(one_word)), 0);
	assert_int_equal(event_format_next(&fmt, &f), -EINVAL);
	assert_int_equal(event_format_open(&fmt, attribute, strlen(attribute)), 0);
	assert_int_equal(event_format_next(&fmt, &f), 1);
	assert_true(event_field_is(&f, "name") && f.common && f.offset == 8 && f.size == 8 &&
		    !f.is_signed && !f.dynamic && !f.array);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_perf_data),
		cmocka_unit_test(test_trace_dat),
		cmocka_unit_test(test_tracefs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
