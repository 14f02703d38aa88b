/* SPDX-License-Identifier: MIT */
/*
 * page_block.h - blocks of memory of their own pages, for the readers'
 * blocks that grow (perf.data's queue) or that are large and read sparsely
 * (the decoder's table by event type): page_block.c says why.
 */
#ifndef LAB_PAGE_BLOCK_H
#define LAB_PAGE_BLOCK_H

#include <stddef.h>

/**
 * page_block_alloc() - a block of @size bytes, zeroed, on pages of its own
 *
 * Return: the block, or NULL (out of memory; @size 0).
 */
void *page_block_alloc(size_t size);

/**
 * page_block_grow() - @p, a block of @old bytes, made @size bytes (more),
 * its bytes kept and the new ones zero
 *
 * Return: the block, maybe moved, or NULL (out of memory: @p stays as it was).
 */
void *page_block_grow(void *p, size_t old, size_t size);

/** page_block_free() - @p, a block of @size bytes, given back (NULL: nothing) */
void page_block_free(void *p, size_t size);

#endif
