// SPDX-License-Identifier: MIT
/*
 * tracing_data.c - a walk of the tracing data's layout, the one perf's
 * HEADER_TRACING_DATA and trace-cmd's version 6 headers share (both written
 * by the same code's descendants: tools/perf/util/trace-event-info.c and
 * trace-cmd's tracecmd_create_file()): after the ring buffer's header
 * formats, a 4-byte count of ftrace's own formats, each an 8-byte size and
 * its text; a 4-byte count of systems, each a NUL-terminated name, a 4-byte
 * count and its formats likewise.  The readers hand on the formats they
 * read (trace_perf_format.c, trace_tracecmd.c).
 */
#include <errno.h>
#include <string.h>

#include "tracing_data.h"

/**
 * td_number() - the next @width-byte number (1 to 8), in the writer's order
 * @c: the cursor, moved past it
 * @width: its size, bytes
 * @v: the number
 *
 * Return: true, or false (@c unmoved) if the data ends first.
 */
bool td_number(struct td_cursor *c, size_t width, uint64_t *v)
{
	size_t i;

	if (!td_has(c, width))
		return false;
	*v = 0;
	for (i = 0; i < width; i++)
		*v = *v << 8 | c->b[c->pos + (c->big ? i : width - 1 - i)];
	c->pos += width;
	return true;
}

/**
 * td_blob() - a size of @width bytes and that many bytes after it
 * @c: the cursor, moved past both
 * @width: the size's size, bytes
 * @text: where the bytes are, in place
 * @size: how many
 *
 * Return: true, or false if the data ends first (before the size, or
 * before the bytes it says).
 */
bool td_blob(struct td_cursor *c, size_t width, const unsigned char **text, uint64_t *size)
{
	if (!td_number(c, width, size) || !td_has(c, *size))
		return false;
	*text = c->b + c->pos;
	c->pos += *size;
	return true;
}

/* @count formats, each given to @fn (NULL: passed over): 0, -ENODATA cut short, or fn's */
static int walk_some(struct td_cursor *c, uint64_t count, const char *sys,
		     const struct td_format_ops *ops, void *ctx)
{
	const unsigned char *text;
	uint64_t size;
	int err = 0;

	while (count-- && !err) {
		if (!td_blob(c, 8, &text, &size))
			return -ENODATA;
		if (!sys && ops->ftrace)
			err = ops->ftrace(ctx, text, (size_t)size);
		else if (sys && ops->event)
			err = ops->event(ctx, sys, text, (size_t)size);
	}
	return err;
}

/**
 * td_walk_formats() - ftrace's own formats, then the traced systems'
 * @c: the cursor, at ftrace's count; left past the last system's formats
 *	(where the kernel's symbols follow)
 * @ops: what is done with each format
 * @ctx: given to @ops
 * @ftrace_end: where ftrace's formats end (the systems' count starts), or NULL
 *
 * Return: 0; -ENODATA if the data ends first (a count, a size or a system's
 * name runs past it); or the first error @ops returns.
 */
int td_walk_formats(struct td_cursor *c, const struct td_format_ops *ops, void *ctx,
		    size_t *ftrace_end)
{
	uint64_t count, systems;
	const unsigned char *nul;
	const char *sys;
	int err;

	if (!td_number(c, 4, &count))
		return -ENODATA;
	err = walk_some(c, count, NULL, ops, ctx);
	if (err)
		return err;
	if (ftrace_end)
		*ftrace_end = c->pos;
	if (!td_number(c, 4, &systems))
		return -ENODATA;
	while (systems--) {
		nul = memchr(c->b + c->pos, '\0', c->len - c->pos);
		if (!nul)
			return -ENODATA;
		sys = (const char *)c->b + c->pos;
		c->pos = (size_t)(nul - c->b) + 1;
		if (!td_number(c, 4, &count))
			return -ENODATA;
		err = walk_some(c, count, sys, ops, ctx);
		if (err)
			return err;
	}
	return 0;
}
