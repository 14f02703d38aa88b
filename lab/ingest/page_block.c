// SPDX-License-Identifier: MIT
/*
 * page_block.c - blocks of memory mapped on pages of their own.
 *
 * A page first touched is a fault, and on a virtual machine the host may
 * then back it: ~2 us each on the machine the benchmarks ran on
 * (BENCHMARKS.md, 2026-12-06), where stats of a 1.6 MB perf.data took
 * ~2 ms.  Blocks of perf.data's reader touched more pages through
 * malloc() than they hold:
 *
 * - one that grows by doubling (a CPU's lane of the queue, the marks of
 *   the events left out): realloc() moves a block below glibc's mmap
 *   threshold (128 KiB) by copying it into new memory, each step's pages
 *   touched anew; here it grows by mremap(2), which moves the pages
 *   themselves, from the first step on;
 * - one that is large, zeroed, and used at a few places (the decoder's
 *   table by event type, 64 KiB; the tick's vote by CPU, 96 KiB):
 *   calloc() clears a block it reuses, page by page; here its pages are
 *   the kernel's zeroed ones, and only those used are ever faulted.
 *
 * Under AddressSanitizer they are malloc()'s, so that its checks of
 * bounds and of use after free cover them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "page_block.h"

#if defined(__SANITIZE_ADDRESS__)
#define PAGE_BLOCK_MALLOC	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PAGE_BLOCK_MALLOC	1
#endif
#endif

#ifdef PAGE_BLOCK_MALLOC

void *page_block_alloc(size_t size)
{
	return size ? calloc(1, size) : NULL;
}

void *page_block_grow(void *p, size_t old, size_t size)
{
	unsigned char *n = realloc(p, size);

	if (n && size > old)
		memset(n + old, 0, size - old);
	return n;
}

void page_block_free(void *p, size_t size)
{
	(void)size;
	free(p);
}

#else

void *page_block_alloc(size_t size)
{
	void *p;

	if (!size)
		return NULL;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void *page_block_grow(void *p, size_t old, size_t size)
{
	void *n;

	if (!p)
		return page_block_alloc(size);
	n = mremap(p, old, size, MREMAP_MAYMOVE);
	return n == MAP_FAILED ? NULL : n;
}

void page_block_free(void *p, size_t size)
{
	if (p)
		munmap(p, size);
}

#endif
