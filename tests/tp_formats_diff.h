/* SPDX-License-Identifier: MIT */
/*
 * tp_formats_diff.h - the perf.data reader's decoder as trace_format.c builds
 * it (tp_decoder_init_formats()) against the one libtraceevent builds from
 * the same formats (tp_decoder_init(), each format given to libtraceevent's
 * own tep_parse_event(), not to the CLI's filter in front of it): for
 * test_tp_formats (the shared recordings, the fuzz seeds, made-up formats)
 * and fuzz_trace_perfdata (every input).
 */
#ifndef TESTS_TP_FORMATS_DIFF_H
#define TESTS_TP_FORMATS_DIFF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>

#include "tep_lib.h"
#include "trace_internal.h"
#include "trace_perf.h"

/* events a file may hold before its tracing data has surely been read */
#define TP_DIFF_EVENTS_MAX	100000

/* what the files compared held */
struct tp_diff_tally {
	unsigned int files, with_formats, formats, failed, events;
};

static inline bool tp_diff_say(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline bool tp_diff_say(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return true;
}

/*
 * Do the two decoders of @what differ (@a ours, @b libtraceevent's)?
 * Return: true with @msg saying how, or false.
 */
static inline bool tp_decoders_differ(const char *what, const struct tp_decoder *a, int aerr,
				      const char *awhy, const struct tp_decoder *b, int berr,
				      const char *bwhy, char *msg, size_t len)
{
	int i, j;

	if (aerr != berr || (aerr && strcmp(awhy, bwhy)))
		return tp_diff_say(msg, len, "%s: ours %d '%s', libtraceevent's %d '%s'", what,
				   aerr, awhy, berr, bwhy);
	if (aerr)
		return false;
	if (a->nr != b->nr || a->type_offset != b->type_offset ||
	    a->type_size != b->type_size || a->native != b->native ||
	    a->quick_from != b->quick_from)
		return tp_diff_say(msg, len, "%s: ours %d events, common_type %d/%d; "
				   "libtraceevent's %d, %d/%d", what, a->nr, a->type_offset,
				   a->type_size, b->nr, b->type_offset, b->type_size);
	if (memcmp(a->slot, b->slot, sizeof(a->slot)))
		return tp_diff_say(msg, len, "%s: the events' IDs differ", what);
	for (i = 0; i < a->nr; i++) {
		const struct tp_event *x = &a->events[i], *y = &b->events[i];

		if (x->id != y->id || x->min_size != y->min_size || x->quick != y->quick ||
		    x->quick_min != y->quick_min || x->bare_type != y->bare_type)
			return tp_diff_say(msg, len, "%s: event %d: %s against %s", what, i,
					   trace_event_name(x->id), trace_event_name(y->id));
		for (j = 0; j < 3; j++)
			if (memcmp(&x->f[j], &y->f[j], sizeof(x->f[j])))
				return tp_diff_say(msg, len, "%s: %s's field %d: at %d, %d bytes "
						   "against at %d, %d bytes", what,
						   trace_event_name(x->id), j, x->f[j].offset,
						   x->f[j].size, y->f[j].offset, y->f[j].size);
	}
	return false;
}

/*
 * libtraceevent's decoder from @formats, into @d (@tep: the handle, for the
 * caller to free).  Return: tp_decoder_init()'s.
 */
static inline int tp_diff_tep_decoder(const struct tp_format_text *formats, size_t nr, bool big,
				      struct tp_decoder *d, struct tep_handle **tep, char *why,
				      size_t whylen, struct tp_diff_tally *t)
{
	const struct tep_lib *tl = tep_lib(NULL, 0);
	struct tep_event **events;
	char *copy;
	size_t i;

	if (!tl)
		abort();
	*tep = tep_alloc();
	if (!*tep)
		abort();
	tep_set_file_bigendian(*tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	for (i = 0; i < nr; i++) {
		copy = malloc(formats[i].len + 1);
		if (!copy)
			abort();
		memcpy(copy, formats[i].text, formats[i].len);
		copy[formats[i].len] = '\0';
		/*
		 * libtraceevent's own parse, not the CLI's filter in front of it
		 * (trace_tracecmd.c), which drops two common fields' lines by
		 * their names for a trace.dat: fuzz_trace_perfdata found a bad
		 * line it dropped, which libtraceevent refuses as we do
		 */
		tl->tep_parse_event(*tep, copy, formats[i].len, formats[i].system);
		free(copy);
	}
	/* an event whose fields go wrong part way is kept, marked failed */
	events = tep_list_events(*tep, TEP_EVENT_SORT_ID);
	for (i = 0; events && events[i]; i++)
		t->failed += !!(events[i]->flags & TEP_EVENT_FL_FAILED);
	return tp_decoder_init(d, *tep, "the tracing data", why, whylen);
}

/* do the decoders built both ways from @nr @formats differ? (@msg says how) */
static inline bool tp_formats_differ(const char *what, const struct tp_format_text *formats,
				     size_t nr, bool big, struct tp_diff_tally *t, int *err,
				     char *msg, size_t len)
{
	struct tp_decoder *ours = calloc(1, sizeof(*ours)), *theirs = calloc(1, sizeof(*theirs));
	char why_a[300] = "", why_b[300] = "";
	struct tep_handle *tep;
	int berr;
	bool differ;

	if (!ours || !theirs)
		abort();
	*err = tp_decoder_init_formats(ours, formats, nr, big, "the tracing data", why_a,
				       sizeof(why_a));
	berr = tp_diff_tep_decoder(formats, nr, big, theirs, &tep, why_b, sizeof(why_b), t);
	differ = tp_decoders_differ(what, ours, *err, why_a, theirs, berr, why_b, msg, len);
	if (!differ && !*err)
		snprintf(msg, len, "%d events", ours->nr);
	else if (!differ)
		snprintf(msg, len, "%s", why_a);
	tp_decoder_free(ours);
	tp_decoder_free(theirs);
	tep_free(tep);
	free(ours);
	free(theirs);
	return differ;
}

/*
 * @path read by the perf.data reader (to its end: in pipe mode the formats
 * come as records), then the formats it kept compared both ways.
 * Return: true with @msg if the decoders differ.
 */
static inline bool tp_formats_file_differs(const char *path, struct tp_diff_tally *t, char *msg,
					   size_t len)
{
	struct trace_reader *r;
	struct trace_event ev;
	struct perf_reader *p;
	bool differ = false;
	char err[1024];
	int n = 0, ret;

	t->files++;
	if (trace_open(path, &r, err, sizeof(err)))
		return false;
	while (n < TP_DIFF_EVENTS_MAX && trace_next(r, &ev) > 0)
		n++;
	t->events += (unsigned int)n;
	p = r->perf;
	if (p && p->tracing_data) {
		t->with_formats++;
		t->formats += (unsigned int)p->nr_formats;
		differ = tp_formats_differ(path, p->formats, p->nr_formats, p->big_endian, t, &ret,
					   msg, len);
	}
	trace_close(r);
	return differ;
}

#endif /* TESTS_TP_FORMATS_DIFF_H */
