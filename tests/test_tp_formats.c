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

#include "tp_formats_diff.h"

#define TRACES		SRCDIR "/../shared/traces"
#define PERFDATA_SEEDS	SRCDIR "/fuzz/corpus/trace_perfdata"

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
	struct tp_diff_tally t = { 0 };
	char msg[1024];
	int err;

	if (tp_formats_differ(what, formats, nr, false, &t, &err, msg, sizeof(msg)))
		fail_msg("%s", msg);
	print_message("%s: %s\n", what, msg);
	assert_int_equal(err, want_err);
	if (!err)
		assert_int_equal(atoi(msg), want_nr);
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
	struct tp_diff_tally t = { 0 };
	char path[4096], msg[1024];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		snprintf(path, sizeof(path), "%s/perf.data/%s.perf.data.xz", TRACES, shared[i]);
		if (access(path, R_OK)) {
			print_message("%s: not there, the shared recordings' check skipped\n",
				      path);
			skip();
		}
		if (tp_formats_file_differs(path, &t, msg, sizeof(msg)))
			fail_msg("%s", msg);
	}
	print_message("shared: %u files, %u with tracing data, %u formats of ours, "
		      "%u events read\n", t.files, t.with_formats, t.formats, t.events);
	assert_int_equal(t.with_formats, 4);
	assert_true(t.formats >= 4 * 10);
}

static void test_seeds(void **state)
{
	struct tp_diff_tally t = { 0 };
	char path[4096], msg[1024];
	struct dirent *de;
	DIR *dir;

	(void)state;
	dir = opendir(PERFDATA_SEEDS);
	assert_non_null(dir);
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", PERFDATA_SEEDS, de->d_name);
		if (tp_formats_file_differs(path, &t, msg, sizeof(msg)))
			fail_msg("%s", msg);
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
