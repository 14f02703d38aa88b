// SPDX-License-Identifier: MIT
/*
 * page_block.c - blocks of memory mapped on pages of their own.
 *
 * A page first touched is a fault, and on a virtual machine the host may
 * then back it: ~1.2-2 us each on the machine the benchmarks ran on
 * (BENCHMARKS.md, 2026-12-06), where stats of a 1.6 MB perf.data took
 * ~2 ms.  Blocks of perf.data's reader touched more pages through
 * malloc() than they hold:
 *
 * - one that grows by doubling (a CPU's lane of the queue, the marks of
 *   the events left out): realloc() moves a block below glibc's mmap
 *   threshold (128 KiB) by copying it into new memory, each step's pages
 *   touched anew, and above it by mremap(2), ~5 us a call there;
 * - one that is large, zeroed, and used at a few places (the decoder's
 *   table by event type, 64 KiB; the tick's vote by CPU, 96 KiB):
 *   calloc() clears a block it reuses, page by page.
 *
 * Here a block spans PAGE_BLOCK_SPAN of address space from the start
 * (MAP_NORESERVE: pages are only the kernel's as they are touched, zeroed
 * by it), in which it grows without a system call or a copy; past that,
 * by mremap(2), which moves its pages rather than copying them.  Where
 * that span cannot be mapped (a limit on address space or on commit), a
 * block spans what it holds.
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

/*
 * The address space a block spans from the start: 1 MiB holds a lane of
 * 7,700 events, the marks of 65,536; 4 GiB for 4,096 CPUs' lanes, on a
 * 64-bit machine only
 */
#define PAGE_BLOCK_SPAN	(sizeof(void *) >= 8 ? (size_t)1 << 20 : 0)

#ifdef PAGE_BLOCK_MALLOC

void *page_block_alloc(size_t size, size_t *mapped)
{
	*mapped = size;
	return calloc(1, size);
}

void *page_block_grow(void *p, size_t *mapped, size_t size)
{
	unsigned char *n;

	if (size <= *mapped)
		return p;
	n = realloc(p, size);
	if (!n)
		return NULL;
	memset(n + *mapped, 0, size - *mapped);
	*mapped = size;
	return n;
}

void page_block_free(void *p, size_t mapped)
{
	(void)mapped;
	free(p);
}

#else

static void *map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void *page_block_alloc(size_t size, size_t *mapped)
{
	void *p = NULL;

	if (size < PAGE_BLOCK_SPAN) {
		p = map(PAGE_BLOCK_SPAN);
		*mapped = PAGE_BLOCK_SPAN;
	}
	if (!p) {
		p = map(size);
		*mapped = size;
	}
	return p;
}

void *page_block_grow(void *p, size_t *mapped, size_t size)
{
	void *n;

	if (size <= *mapped)
		return p;
	n = mremap(p, *mapped, size, MREMAP_MAYMOVE);
	if (n == MAP_FAILED)
		return NULL;
	*mapped = size;
	return n;
}

void page_block_free(void *p, size_t mapped)
{
	if (p)
		munmap(p, mapped);
}

#endif
