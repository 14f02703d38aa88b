/* SPDX-License-Identifier: MIT */
/*
 * tracing_data.h - the tracing data's layout, shared by perf.data (its
 * HEADER_TRACING_DATA) and trace.dat (version 6's headers, one after
 * another): numbers in the writer's byte order, sized texts, and the event
 * formats, ftrace's own and then the traced events' by system.
 */
#ifndef LAB_TRACING_DATA_H
#define LAB_TRACING_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * struct td_cursor - where a walk of tracing data is
 * @b: the bytes, in place (a mapping or a buffer: not copied)
 * @len: how many
 * @pos: the next one read
 * @big: the writer's numbers are big-endian
 */
struct td_cursor {
	const unsigned char *b;
	size_t len, pos;
	bool big;
};

/**
 * td_has() - are @n more bytes there?
 * @c: the cursor
 * @n: how many
 *
 * Return: true if they are.
 */
static inline bool td_has(const struct td_cursor *c, size_t n)
{
	return n <= c->len - c->pos;
}

bool td_number(struct td_cursor *c, size_t width, uint64_t *v);
bool td_blob(struct td_cursor *c, size_t width, const unsigned char **text, uint64_t *size);

/**
 * struct td_format_ops - what a walk of the formats does with each
 * @ftrace: one of ftrace's own events' formats (NULL: passed over)
 * @event: one of a traced system's, @sys NUL-terminated (NULL: passed over)
 *
 * Each is given the format's text in place, @size bytes (not NUL-ended),
 * and the walk's @ctx, and returns 0 or a negative errno that ends the walk.
 */
struct td_format_ops {
	int (*ftrace)(void *ctx, const unsigned char *text, size_t size);
	int (*event)(void *ctx, const char *sys, const unsigned char *text, size_t size);
};

int td_walk_formats(struct td_cursor *c, const struct td_format_ops *ops, void *ctx,
		    size_t *ftrace_end);

#endif
