// SPDX-License-Identifier: MIT
/*
 * test_tp_formats.c - the perf.data reader's decoder, built from the event
 * formats by trace_format.c (tp_decoder_init_formats()), against the one
 * libtraceevent gives from the same formats (tp_decoder_init()), as the
 * reader built it before: on every perf.data at hand, the shared
 * recordings and each seed and finding of fuzz/corpus/trace_perfdata (cut,
 * corrupt and made-up tracing data among them).  Both must say the same:
 * the same error and message, or the same events under the same IDs, each
 * field at the same offset, of the same size and kind, the common_type at
 * the same place.
 *
 * The formats are those the reader kept (struct perf_reader.formats: every
 * format of the decoder's events that passed clean_format()); libtraceevent
 * is given each of them, as the reader once gave it every format, and
 * keeps what it keeps (an event whose fields go wrong part way, with the
 * fields before).
 */
#include <dirent.h>
#include <errno.h>
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

#include "trace_internal.h"
#include "trace_perf.h"

#define TRACES		SRCDIR "/../shared/traces"
#define PERFDATA_SEEDS	SRCDIR "/fuzz/corpus/trace_perfdata"

/* events a file may hold before its tracing data has surely been read */
#define EVENTS_MAX	100000

struct tally {
	unsigned int files, with_formats, formats, failed, events;
};

/* the two decoders of @path say the same (@a ours, @b libtraceevent's) */
static void compare(const char *path, const struct tp_decoder *a, int aerr, const char *awhy,
		    const struct tp_decoder *b, int berr, const char *bwhy)
{
	int i, j;

	if (aerr != berr || (aerr && strcmp(awhy, bwhy)))
		fail_msg("%s: ours %d '%s', libtraceevent's %d '%s'", path, aerr, awhy, berr,
			 bwhy);
	if (aerr)
		return;
	if (a->nr != b->nr || a->type_offset != b->type_offset ||
	    a->type_size != b->type_size || a->native != b->native ||
	    a->quick_from != b->quick_from)
		fail_msg("%s: ours %d events, common_type %d/%d; libtraceevent's %d, %d/%d", path,
			 a->nr, a->type_offset, a->type_size, b->nr, b->type_offset,
			 b->type_size);
	if (memcmp(a->slot, b->slot, sizeof(a->slot)))
		fail_msg("%s: the events' IDs differ", path);
	for (i = 0; i < a->nr; i++) {
		const struct tp_event *x = &a->events[i], *y = &b->events[i];

		if (x->id != y->id || x->min_size != y->min_size || x->quick != y->quick ||
		    x->quick_min != y->quick_min || x->bare_type != y->bare_type)
			fail_msg("%s: event %d: %s against %s", path, i, trace_event_name(x->id),
				 trace_event_name(y->id));
		for (j = 0; j < 3; j++)
			if (memcmp(&x->f[j], &y->f[j], sizeof(x->f[j])))
				fail_msg("%s: %s's field %d: at %d, %d bytes against at %d, %d "
					 "bytes", path, trace_event_name(x->id), j, x->f[j].offset,
					 x->f[j].size, y->f[j].offset, y->f[j].size);
	}
}

/* libtraceevent's decoder from @formats, into @d */
static int tep_decoder(const struct tp_format_text *formats, size_t nr, bool big,
		       struct tp_decoder *d, struct tep_handle **tep, char *why, size_t whylen,
		       struct tally *t)
{
	struct tep_event **events;
	char *copy;
	size_t i;

	*tep = tep_alloc();
	assert_non_null(*tep);
	tep_set_file_bigendian(*tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (i = 0; i < nr; i++) {
		copy = malloc(formats[i].len + 1);
		assert_non_null(copy);
		memcpy(copy, formats[i].text, formats[i].len);
		copy[formats[i].len] = '\0';
		tep_parse_event(*tep, copy, formats[i].len, formats[i].system);
		free(copy);
	}
	/* an event whose fields go wrong part way is kept, marked failed */
	events = tep_list_events(*tep, TEP_EVENT_SORT_ID);
	for (i = 0; events && events[i]; i++)
		t->failed += !!(events[i]->flags & TEP_EVENT_FL_FAILED);
	return tp_decoder_init(d, *tep, "the tracing data", why, whylen);
}

/* @path's decoders, built both ways, compared */
static void check_file(const char *path, struct tally *t)
{
	struct tp_decoder *ours = calloc(1, sizeof(*ours)), *theirs = calloc(1, sizeof(*theirs));
	char err[1024], why_a[300] = "", why_b[300] = "";
	struct trace_reader *r;
	struct tep_handle *tep;
	struct trace_event ev;
	struct perf_reader *p;
	int aerr, berr, n = 0;

	assert_non_null(ours);
	assert_non_null(theirs);
	t->files++;
	if (trace_open(path, &r, err, sizeof(err)))
		goto out;
	/* in pipe mode the formats come as records: read on to the end */
	while (n < EVENTS_MAX && trace_next(r, &ev) > 0)
		n++;
	t->events += (unsigned int)n;
	p = r->perf;
	if (p && p->tracing_data) {
		t->with_formats++;
		t->formats += (unsigned int)p->nr_formats;
		aerr = tp_decoder_init_formats(ours, p->formats, p->nr_formats, p->big_endian,
					       "the tracing data", why_a, sizeof(why_a));
		berr = tep_decoder(p->formats, p->nr_formats, p->big_endian, theirs, &tep, why_b,
				   sizeof(why_b), t);
		compare(path, ours, aerr, why_a, theirs, berr, why_b);
		tp_decoder_free(theirs);
		tep_free(tep);
		tp_decoder_free(ours);
	}
	trace_close(r);
out:
	free(ours);
	free(theirs);
}

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
#define IDLE_FIELDS(state, cpu) \
	"\tfield:u32 state;\toffset:" state ";\tsize:4;\tsigned:0;\n" \
	"\tfield:u32 cpu_id;\toffset:" cpu ";\tsize:4;\tsigned:0;\n"
#define PRINT	"print fmt: \"\"\n"
#define IDLE(id, state, cpu) \
	"name: cpu_idle\nID: " id "\nformat:\n" COMMON IDLE_FIELDS(state, cpu) "\n" PRINT
#define TICK(id, rest) "name: tick_stop\nID: " id "\nformat:\n" rest PRINT
#define TICK_OWN	"\tfield:int success;\toffset:8;\tsize:4;\tsigned:1;\n"

/* both decoders of @nr made-up formats: the same, or the same error */
static void check_made(const char *what, const struct tp_format_text *formats, size_t nr,
		       int want_nr, int want_err)
{
	struct tp_decoder *ours = calloc(1, sizeof(*ours)), *theirs = calloc(1, sizeof(*theirs));
	char why_a[300] = "", why_b[300] = "";
	struct tally t = { 0 };
	struct tep_handle *tep;
	int aerr, berr;

	assert_non_null(ours);
	assert_non_null(theirs);
	aerr = tp_decoder_init_formats(ours, formats, nr, false, "the tracing data", why_a,
				       sizeof(why_a));
	berr = tep_decoder(formats, nr, false, theirs, &tep, why_b, sizeof(why_b), &t);
	print_message("%s: %d events, %d '%s'\n", what, ours->nr, aerr, why_a);
	compare(what, ours, aerr, why_a, theirs, berr, why_b);
	assert_int_equal(aerr, want_err);
	if (!aerr)
		assert_int_equal(ours->nr, want_nr);
	tp_decoder_free(ours);
	tp_decoder_free(theirs);
	tep_free(tep);
	free(ours);
	free(theirs);
}

/* formats made to take the odd paths: duplicates, fields that go wrong part way */
static void test_made(void **state)
{
	const struct tp_format_text twice[] = {
		{ "power", IDLE("500", "8", "12"), sizeof(IDLE("500", "8", "12")) - 1 },
		{ "power", IDLE("400", "12", "8"), sizeof(IDLE("400", "12", "8")) - 1 },
	};
	const struct tp_format_text same_id[] = {
		{ "power", IDLE("400", "8", "12"), sizeof(IDLE("400", "8", "12")) - 1 },
		{ "power", IDLE("400", "12", "8"), sizeof(IDLE("400", "12", "8")) - 1 },
	};
	const struct tp_format_text other_system[] = {
		{ "timer", IDLE("300", "8", "12"), sizeof(IDLE("300", "8", "12")) - 1 },
		{ "power", IDLE("400", "12", "8"), sizeof(IDLE("400", "12", "8")) - 1 },
	};
	static const char no_blank[] = "name: cpu_idle\nID: 7\nformat:\n" COMMON
		IDLE_FIELDS("8", "12") PRINT;
	static const char bad_own[] = "name: cpu_idle\nID: 7\nformat:\n" COMMON
		"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:u32 cpu_id offset:12;\tsize:4;\tsigned:0;\n\n" PRINT;
	static const char bad_common[] = "name: cpu_idle\nID: 7\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		"\tfield:unsigned char common_flags\toffset:2;\tsize:1;\tsigned:0;\n\n"
		IDLE_FIELDS("8", "12") "\n" PRINT;
	static const char huge_id[] = "name: cpu_idle\nID: 70000\nformat:\n" COMMON
		IDLE_FIELDS("8", "12") "\n" PRINT;
	static const char no_common_type[] = TICK("9", "\tfield:int common_pid;\toffset:4;"
						  "\tsize:4;\tsigned:1;\n\n" TICK_OWN "\n");
	const struct tp_format_text idle_and_tick[] = {
		{ "power", IDLE("7", "8", "12"), sizeof(IDLE("7", "8", "12")) - 1 },
		{ "timer", no_common_type, sizeof(no_common_type) - 1 },
	};
#define ONE(sys, text) (const struct tp_format_text[]){ { sys, text, sizeof(text) - 1 } }

	(void)state;
	check_made("cpu_idle twice", twice, 2, 1, 0);
	check_made("cpu_idle twice, one ID", same_id, 2, 1, 0);
	check_made("cpu_idle in another system", other_system, 2, 1, 0);
	check_made("no blank line before print fmt", ONE("power", no_blank), 1, 1, 0);
	check_made("a bad own field", ONE("power", bad_own), 1, 0, -EINVAL);
	check_made("a bad common field", ONE("power", bad_common), 1, 0, -EINVAL);
	check_made("an ID out of range", ONE("power", huge_id), 1, 0, -EINVAL);
	check_made("tick_stop without common_type", idle_and_tick, 2, 0, -EINVAL);
#undef ONE
}

static void test_shared(void **state)
{
	static const char *const shared[] = {
		"video-haltpoll200", "udp-haltpoll", "pgbench-menu", "sqlite-ladder",
	};
	struct tally t = { 0 };
	char path[4096];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		snprintf(path, sizeof(path), "%s/perf.data/%s.perf.data.xz", TRACES, shared[i]);
		if (access(path, R_OK)) {
			print_message("%s: not there, the shared recordings' check skipped\n",
				      path);
			skip();
		}
		check_file(path, &t);
	}
	print_message("shared: %u files, %u with tracing data, %u formats of ours, "
		      "%u events read\n", t.files, t.with_formats, t.formats, t.events);
	assert_int_equal(t.with_formats, 4);
	assert_true(t.formats >= 4 * 10);
}

static void test_seeds(void **state)
{
	struct tally t = { 0 };
	char path[4096];
	struct dirent *de;
	DIR *dir;

	(void)state;
	dir = opendir(PERFDATA_SEEDS);
	assert_non_null(dir);
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", PERFDATA_SEEDS, de->d_name);
		check_file(path, &t);
	}
	closedir(dir);
	print_message("seeds: %u files, %u with tracing data, %u formats of ours "
		      "(%u of them libtraceevent fails to read to the end)\n",
		      t.files, t.with_formats, t.formats, t.failed);
	/*
	 * the corpus: over a thousand files, hundreds with tracing data, some
	 * with formats libtraceevent reads only part of
	 */
	assert_true(t.files > 1000);
	assert_true(t.with_formats > 300);
	assert_true(t.failed > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_made),
		cmocka_unit_test(test_shared),
		cmocka_unit_test(test_seeds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
