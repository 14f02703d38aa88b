/* SPDX-License-Identifier: MIT */
/*
 * trace_format.h - an event's format as the kernel writes it (the
 * tracefs events/SYSTEM/EVENT/format file, stored as is in perf.data's
 * tracing data and trace.dat): its name, ID and fields, read in place.
 */
#ifndef LAB_TRACE_FORMAT_H
#define LAB_TRACE_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

/**
 * struct event_field - one field of an event's format
 * @name: the field's name, in the format's text (not NUL-terminated)
 * @name_len: its length
 * @offset: where the field starts in a record, bytes
 * @size: its size, bytes (of the 4-byte locator for __data_loc and __rel_loc)
 * @is_signed: "signed:" said non-zero
 * @dynamic: __data_loc or __rel_loc: the field holds where its data is
 * @relative: __rel_loc: that place counts from the field's end
 * @array: declared with brackets ("char comm[16]", "__data_loc char[] name")
 * @common: one of the fields every event has (before the blank line)
 */
struct event_field {
	const char *name;
	size_t name_len;
	unsigned int offset, size;
	bool is_signed, dynamic, relative, array, common;
};

/**
 * struct event_format - an event's format being read
 * @name: the event's name, in the format's text (not NUL-terminated)
 * @name_len: its length
 * @id: the event's ID (a record's common_type), as written (any number of
 *	digits: held at 999,999,999,999 past it)
 * @pos: where the next field's line starts (private)
 * @end: the text's end (private)
 * @common: still in the common fields (private)
 * @done: the fields' end was reached (private)
 */
struct event_format {
	const char *name;
	size_t name_len;
	long long id;
	const char *pos, *end;
	bool common, done;
};

int event_format_open(struct event_format *fmt, const char *text, size_t size);
int event_format_next(struct event_format *fmt, struct event_field *f);
bool event_field_is(const struct event_field *f, const char *name);

#endif
