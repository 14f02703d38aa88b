// SPDX-License-Identifier: MIT
/*
 * trace_map.c - a plain file read through a window mapped on it, for the
 * binary readers: the bytes are read where the page cache holds them,
 * without read(2)'s copy into a buffer (on a 200 MB perf.data file the
 * copy was as long as cat's whole run).  The window moves along the file,
 * TRACE_MAP_WINDOW bytes at a time, so that the pages mapped, which count
 * in the process's memory, stay as few whatever the file's size; what
 * straddles two windows is gathered as with read(2)'s buffers
 * (trace_src_bytes()).
 *
 * A file cut short while it is mapped (another program truncating it)
 * would make its pages past the new end fault with SIGBUS, which kills a
 * process.  A handler, put in place as a file is mapped (again if
 * something replaced it since) and left there, takes such a fault when it
 * lies in a window of the thread's own sources (struct trace_map, listed
 * per thread): it maps zeros over the rest of the window, so that the read
 * goes on, and marks the source cut; the reader then fails with a message
 * instead of handing out what it reads from then on (trace_src_cut(),
 * trace_map_shrank(): a cut inside a page reads as zeros without a fault).
 * Any other SIGBUS goes to the handler that was there before (the default
 * one kills the process, as without this file).  A source that cannot be
 * mapped is read with read(2).
 *
 * A signal handler is the process's, not a library's: nothing is mapped,
 * and no handler installed, until the program asks for it
 * (cpuidle_lab_read_mapped(), as the cpuidle command does at its start);
 * an embedding that owns its signals (Python, a runtime) reads with
 * read(2), a little slower, and its SIGBUS stays its own.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_internal.h"

/*
 * The window: 4 MiB, a few hundred mmap(2) calls for a gigabyte, and a
 * resident size that does not grow with the file (the reader's own memory
 * is ~5 MB).  A multiple of any page size.
 */
#define TRACE_MAP_WINDOW	(4u << 20)
/* fuzz_trace_chunked reads with tiny buffers (TRACE_IO_SIZE), to try what straddles them */
#ifdef TRACE_IO_SIZE
#define TRACE_MAP_OFF		true
#else
#define TRACE_MAP_OFF		false
#endif

/* the program asked for mapped reads (trace_read_mapped()) */
static atomic_bool map_wanted;

void trace_read_mapped(bool on)
{
	atomic_store(&map_wanted, on);
}

/* this thread's mapped sources, for the SIGBUS handler */
static _Thread_local struct trace_map *thread_maps;

/* the SIGBUS handling there was before ours, for other faults */
static struct sigaction bus_before;
static pthread_mutex_t bus_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_bus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr, base, page;
	struct trace_map *m;
	size_t len;

	for (m = thread_maps; si->si_code > 0 && m; m = m->next) {
		base = (uintptr_t)m->base;
		len = m->len;
		atomic_signal_fence(memory_order_acquire);
		if (!len || a < base || a - base >= len)
			continue;
		/* zeros from the faulting page to the window's end: the read goes on */
		page = a - (a - base) % m->page;
		if (mmap((void *)page, len - (page - base), PROT_READ,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			break;
		m->cut = 1;
		return;
	}
	/* not ours: what was there before takes it */
	if ((bus_before.sa_flags & SA_SIGINFO) && bus_before.sa_sigaction) {
		bus_before.sa_sigaction(sig, si, uc);
	} else if (bus_before.sa_handler != SIG_DFL && bus_before.sa_handler != SIG_IGN) {
		bus_before.sa_handler(sig);
	} else {
		/* the default: the fault comes again as we return, and kills */
		sigaction(SIGBUS, &bus_before, NULL);
		if (si->si_code <= 0)
			raise(sig);	/* one that was sent is not sent again */
	}
}

/*
 * Our handler in place, unless it is: installed with a file's first window,
 * and again if something replaced it since (a test harness's own, for
 * one); what it replaces takes the faults that are not ours.  Return: it is.
 */
static bool bus_install(void)
{
	struct sigaction sa, now;
	bool ok;

	pthread_mutex_lock(&bus_lock);
	ok = !sigaction(SIGBUS, NULL, &now);
	if (ok && (!(now.sa_flags & SA_SIGINFO) || now.sa_sigaction != on_bus)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_bus;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		bus_before = now;
		ok = !sigaction(SIGBUS, &sa, NULL);
	}
	pthread_mutex_unlock(&bus_lock);
	return ok;
}

/* the window off: @len set to 0 first, so that the handler never sees a stale one */
static void unmap_window(struct trace_map *m)
{
	size_t len = m->len;

	m->len = 0;
	atomic_signal_fence(memory_order_release);
	if (len)
		munmap(m->base, len);
}

/*
 * The window over the file's bytes from @off (the page it lies in on),
 * as @s's buffer, its position at @off; at or past the end, an empty one
 * there.  A window already mapped that holds @off stays (a reader that goes
 * back, perf.data's to its data after the formats at its end, finds its
 * pages still mapped: a small file's whole, read once).  Return: 0, or
 * -errno with s->msg said.
 */
static int map_at(struct trace_src *s, uint64_t off)
{
	struct trace_map *m = s->map;
	uint64_t at = off - off % m->page;
	size_t len;
	void *p;

	if (m->len && off >= s->out_base && off - s->out_base < m->len) {
		s->out_pos = (size_t)(off - s->out_base);
		return 0;
	}
	unmap_window(m);
	s->out_pos = 0;
	s->out_nul = 0;
	if (off >= m->size) {
		s->out = m->heap_out;
		s->out_base = off;
		s->out_len = 0;
		s->out_end = true;
		s->consumed = m->size;
		return 0;
	}
	len = m->size - at < TRACE_MAP_WINDOW ? (size_t)(m->size - at) : TRACE_MAP_WINDOW;
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, s->fd, (off_t)at);
	if (p == MAP_FAILED) {
		s->out = m->heap_out;
		s->out_base = off;
		s->out_len = 0;
		snprintf(s->msg, sizeof(s->msg), "cannot map the file: %s", strerror(errno));
		return -errno;
	}
	m->base = p;
	atomic_signal_fence(memory_order_release);
	m->len = len;
	s->out = p;
	s->out_base = at;
	s->out_len = len;
	s->out_nul = len;
	s->out_pos = (size_t)(off - at);
	s->out_end = at + len >= m->size;
	s->consumed = at + len;
	return 0;
}

static void src_map_free(struct trace_src *s)
{
	struct trace_map **pp;

	for (pp = &thread_maps; *pp; pp = &(*pp)->next)
		if (*pp == s->map) {
			*pp = s->map->next;
			break;
		}
	s->out = s->map->heap_out;
	free(s->map);
	s->map = NULL;
}

/**
 * trace_src_map() - read @s through a mapped window from here on
 *
 * Only where the program asked for it (trace_read_mapped()), only a plain
 * (uncompressed) regular file, and only where the SIGBUS handler could be
 * installed; others are read on as they were.
 * The position stays where it is.
 */
void trace_src_map(struct trace_src *s)
{
	uint64_t here = trace_src_offset(s);
	struct trace_src before = *s;
	struct stat st;
	long page = sysconf(_SC_PAGESIZE);

	if (TRACE_MAP_OFF || !atomic_load(&map_wanted) || s->map || s->kind != SRC_PLAIN || s->fd < 0 || fstat(s->fd, &st) ||
	    !S_ISREG(st.st_mode) || !st.st_size || page <= 0 ||
	    TRACE_MAP_WINDOW % (unsigned long)page || here > (uint64_t)st.st_size)
		return;
	if (!bus_install())
		return;
	s->map = calloc(1, sizeof(*s->map));
	if (!s->map)
		return;
	s->map->size = (uint64_t)st.st_size;
	s->map->page = (uintptr_t)page;
	s->map->heap_out = s->out;
	s->map->next = thread_maps;
	thread_maps = s->map;
	if (map_at(s, here)) {
		/* read(2) goes on where it was: its buffer as it was */
		src_map_free(s);
		*s = before;
	}
}

/* fill_out() of a mapped source: the next window */
int trace_map_next(struct trace_src *s)
{
	return map_at(s, s->out_base + s->out_len);
}

/* trace_src_skip() of a mapped source: the window moves, never past the end */
int64_t trace_map_skip(struct trace_src *s, uint64_t n)
{
	uint64_t here = trace_src_offset(s), size = s->map->size, to;
	int err;

	to = here >= size ? here : n < size - here ? here + n : size;
	if (to < s->out_base + s->out_len) {
		s->out_pos = (size_t)(to - s->out_base);
	} else {
		err = map_at(s, to);
		if (err)
			return err;
	}
	return (int64_t)(to - here);
}

/* trace_src_rewind() of a mapped source */
int trace_map_rewind(struct trace_src *s)
{
	return map_at(s, 0);
}

/**
 * trace_map_shrank() - is @s mapped on a file that shrank since?
 *
 * What a reader asks when it fails or ends: a file cut inside the page
 * that holds its new end reads as zeros past it, without a fault, and
 * those zeros make a record that is not the file's.
 */
bool trace_map_shrank(const struct trace_src *s)
{
	struct stat st;

	return s->map && (s->map->cut || (!fstat(s->fd, &st) &&
					  (uint64_t)st.st_size < s->map->size));
}

/* trace_src_close() of a mapped source: its buffer is read(2)'s again */
void trace_map_close(struct trace_src *s)
{
	unmap_window(s->map);
	src_map_free(s);
}
