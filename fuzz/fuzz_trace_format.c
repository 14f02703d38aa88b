// SPDX-License-Identifier: MIT
/*
 * fuzz_trace_format.c - an event's format read by lab/ingest/trace_format.c,
 * the bytes as they would come from a perf.data's tracing data or a
 * trace.dat: the whole input is one format's text (not NUL-terminated).
 *
 * Checked: nothing is read outside the input (ASan, the input copied to a
 * buffer of its own length); the event's name and each field's name lie in
 * the input and are identifiers; a __rel_loc field is dynamic; offsets and
 * sizes have at most nine digits, an ID is held at twelve; the fields end, within as many steps as the input
 * has lines, with 0 or -EINVAL, and stay ended.
 */
#include "fuzz.h"

#include "trace_format.h"

static bool ident(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return n > 0;
}

static bool inside(const char *p, size_t n, const char *text, size_t size)
{
	return p >= text && n <= size && (size_t)(p - text) <= size - n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct event_format fmt;
	struct event_field f;
	size_t lines = 1, i, steps = 0;
	char *text = malloc(size ? size : 1);
	int ret;

	FUZZ_CHECK(text);
	memcpy(text, data, size);
	for (i = 0; i < size; i++)
		lines += text[i] == '\n';
	ret = event_format_open(&fmt, text, size);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL);
	if (!ret) {
		FUZZ_CHECK(inside(fmt.name, fmt.name_len, text, size));
		FUZZ_CHECK(ident(fmt.name, fmt.name_len));
		FUZZ_CHECK(fmt.id >= 0 && fmt.id <= 999999999999LL);
		while ((ret = event_format_next(&fmt, &f)) == 1) {
			FUZZ_CHECK(++steps <= lines);
			FUZZ_CHECK(inside(f.name, f.name_len, text, size));
			FUZZ_CHECK(ident(f.name, f.name_len));
			FUZZ_CHECK(!f.relative || f.dynamic);
			FUZZ_CHECK(f.offset <= 999999999 && f.size <= 999999999);
		}
		FUZZ_CHECK(ret == 0 || ret == -EINVAL);
		if (!ret)
			FUZZ_CHECK(event_format_next(&fmt, &f) == 0);
	}
	free(text);
	return 0;
}
