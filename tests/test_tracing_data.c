// SPDX-License-Identifier: MIT
/*
 * test_tracing_data.c - the walk of the tracing data's formats both binary
 * readers share (lab/ingest/tracing_data.c), on layouts built here in both
 * byte orders: every format reaches its callback with its system, in order;
 * ftrace's end is where the systems' count starts; a callback's error ends
 * the walk; and data cut short at any byte is -ENODATA, never a read past it
 * (ASan watches the copy each cut is made into).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tracing_data.h"

struct layout {
	unsigned char b[512];
	size_t len;
	bool big;
};

static void put(struct layout *l, uint64_t v, size_t width)
{
	for (size_t i = 0; i < width; i++)
		l->b[l->len + (l->big ? width - 1 - i : i)] = (unsigned char)(v >> (8 * i));
	l->len += width;
}

static void put_bytes(struct layout *l, const void *p, size_t n)
{
	memcpy(l->b + l->len, p, n);
	l->len += n;
}

static void put_format(struct layout *l, const char *text)
{
	put(l, strlen(text), 8);
	put_bytes(l, text, strlen(text));
}

/*
 * ftrace: two formats; systems "power" (two) and "irq" (one), "empty"
 * (none); then 4 bytes the walk must leave alone.  @ftrace_end: where the
 * systems' count starts.
 */
static void build(struct layout *l, bool big, size_t *ftrace_end)
{
	*l = (struct layout){ .big = big };
	put(l, 2, 4);
	put_format(l, "name: function");
	put_format(l, "name: print");
	*ftrace_end = l->len;
	put(l, 3, 4);
	put_bytes(l, "power", 6);
	put(l, 2, 4);
	put_format(l, "name: cpu_idle");
	put_format(l, "name: cpu_frequency");
	put_bytes(l, "irq", 4);
	put(l, 1, 4);
	put_format(l, "name: irq_handler_entry");
	put_bytes(l, "empty", 6);
	put(l, 0, 4);
	put(l, 0xdeadbeef, 4);
}

struct seen {
	char got[8][48];
	int n, fail_at;
};

static int note(struct seen *s, const char *sys, const unsigned char *text, size_t size)
{
	if (s->n == s->fail_at)
		return -ENOMEM;
	assert_true(s->n < 8);
	snprintf(s->got[s->n++], sizeof(s->got[0]), "%s/%.*s", sys, (int)size, (const char *)text);
	return 0;
}

static int on_ftrace(void *ctx, const unsigned char *text, size_t size)
{
	return note(ctx, "ftrace", text, size);
}

static int on_event(void *ctx, const char *sys, const unsigned char *text, size_t size)
{
	return note(ctx, sys, text, size);
}

static const struct td_format_ops both = { .ftrace = on_ftrace, .event = on_event };

static void test_walk(void **state)
{
	static const char *const want[] = {
		"ftrace/name: function", "ftrace/name: print", "power/name: cpu_idle",
		"power/name: cpu_frequency", "irq/name: irq_handler_entry",
	};
	struct layout l;
	size_t ftrace_end, end;
	int big;

	(void)state;
	for (big = 0; big < 2; big++) {
		struct seen s = { .fail_at = -1 };
		struct td_cursor c;

		build(&l, big, &ftrace_end);
		c = (struct td_cursor){ .b = l.b, .len = l.len, .big = big };
		assert_int_equal(td_walk_formats(&c, &both, &s, &end), 0);
		assert_int_equal(s.n, 5);
		for (int i = 0; i < 5; i++)
			assert_string_equal(s.got[i], want[i]);
		assert_int_equal(end, ftrace_end);
		/* left at what follows the formats */
		assert_int_equal(c.pos, l.len - 4);
	}
}

/* ops left NULL pass their formats over, the walk still whole */
static void test_passed_over(void **state)
{
	static const struct td_format_ops events_only = { .event = on_event };
	struct seen s = { .fail_at = -1 };
	struct layout l;
	struct td_cursor c;
	size_t ftrace_end;

	(void)state;
	build(&l, false, &ftrace_end);
	c = (struct td_cursor){ .b = l.b, .len = l.len };
	assert_int_equal(td_walk_formats(&c, &events_only, &s, NULL), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.got[0], "power/name: cpu_idle");
	assert_int_equal(c.pos, l.len - 4);
}

/* a callback's error ends the walk there, and is what the walk returns */
static void test_callback_error(void **state)
{
	struct seen s = { .fail_at = 3 };
	struct layout l;
	struct td_cursor c;
	size_t ftrace_end;

	(void)state;
	build(&l, true, &ftrace_end);
	c = (struct td_cursor){ .b = l.b, .len = l.len, .big = true };
	assert_int_equal(td_walk_formats(&c, &both, &s, NULL), -ENOMEM);
	assert_int_equal(s.n, 3);
}

/* cut at every byte before the formats' end: -ENODATA, nothing read past the cut */
static void test_cut_short(void **state)
{
	struct layout l;
	size_t ftrace_end, cut;

	(void)state;
	build(&l, false, &ftrace_end);
	for (cut = 0; cut < l.len - 4; cut++) {
		unsigned char *copy = malloc(cut ? cut : 1);
		struct seen s = { .fail_at = -1 };
		struct td_cursor c = { .b = copy, .len = cut };

		assert_non_null(copy);
		memcpy(copy, l.b, cut);
		assert_int_equal(td_walk_formats(&c, &both, &s, NULL), -ENODATA);
		assert_true(c.pos <= cut);
		free(copy);
	}
}

/* a size beyond the data: -ENODATA, the cursor not moved past the end */
static void test_size_beyond(void **state)
{
	struct layout l = { 0 };
	struct seen s = { .fail_at = -1 };
	struct td_cursor c;
	const unsigned char *text;
	uint64_t size;

	(void)state;
	put(&l, 1, 4);
	put(&l, UINT64_MAX, 8);
	put_bytes(&l, "abc", 3);
	c = (struct td_cursor){ .b = l.b, .len = l.len };
	assert_int_equal(td_walk_formats(&c, &both, &s, NULL), -ENODATA);
	assert_int_equal(s.n, 0);
	c = (struct td_cursor){ .b = l.b, .len = l.len, .pos = 4 };
	assert_false(td_blob(&c, 8, &text, &size));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_passed_over),
		cmocka_unit_test(test_callback_error),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_size_beyond),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
