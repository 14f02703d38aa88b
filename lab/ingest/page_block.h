/* SPDX-License-Identifier: MIT */
/*
 * page_block.h - blocks of memory of their own pages, for the readers'
 * blocks that grow (perf.data's queue) or that are large and used at a few
 * places (the decoder's table by event type): page_block.c says why.
 */
#ifndef LAB_PAGE_BLOCK_H
#define LAB_PAGE_BLOCK_H

#include <stddef.h>

/**
 * page_block_alloc() - a block of at least @size bytes, zeroed, on pages of
 * its own
 * @size: bytes (not 0)
 * @mapped: set to the bytes it spans, @size or more: it grows within them
 *	without a system call (page_block_grow())
 *
 * Return: the block, or NULL (out of memory).
 */
void *page_block_alloc(size_t size, size_t *mapped);

/**
 * page_block_grow() - @p, a block page_block_alloc() gave, made at least
 * @size bytes, its bytes kept and the new ones zero
 * @mapped: the bytes it spans, updated
 *
 * Return: the block, maybe moved, or NULL (out of memory: @p stays as it was).
 */
void *page_block_grow(void *p, size_t *mapped, size_t size);

/** page_block_free() - @p, a block spanning @mapped bytes, given back (NULL: nothing) */
void page_block_free(void *p, size_t mapped);

#endif
