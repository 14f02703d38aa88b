/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what the fuzz targets share: libFuzzer's entry points, a check
 * that aborts (so libFuzzer, and the corpus replay under the sanitizers,
 * report it as a crash), and files in memory for the parsers that take a
 * path.
 *
 * Every target is one LLVMFuzzerTestOneInput() in fuzz/fuzz_NAME.c.  With
 * -Dfuzz=true (clang) it links libFuzzer; otherwise it links
 * fuzz/replay_main.c, which runs it on every file of fuzz/corpus/NAME/, and
 * the test suite runs that (meson test --suite fuzz).
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A property every input must keep; a broken one is a crash. */
#define FUZZ_CHECK(cond)							\
	do {									\
		if (!(cond))							\
			fuzz_fail(__FILE__, __LINE__, #cond);			\
	} while (0)

static inline __attribute__((noreturn)) void fuzz_fail(const char *file, int line,
						       const char *what)
{
	fprintf(stderr, "%s:%d: fuzz check failed: %s\n", file, line, what);
	abort();
}

/**
 * struct fuzz_file - a file in memory, named by a path any open() takes
 * @fd: the memfd
 * @path: "/proc/self/fd/N"
 */
struct fuzz_file {
	int fd;
	char path[64];
};

/*
 * An empty file in memory, or abort: a target that cannot make one tests
 * nothing, which must not pass for a clean run.
 */
static inline void fuzz_file_open(struct fuzz_file *f, const char *name)
{
	f->fd = memfd_create(name, MFD_CLOEXEC);
	FUZZ_CHECK(f->fd >= 0);
	snprintf(f->path, sizeof(f->path), "/proc/self/fd/%d", f->fd);
}

/* Append @n bytes at @p to @f. */
static inline void fuzz_file_write(struct fuzz_file *f, const void *p, size_t n)
{
	const char *c = p;
	ssize_t k;

	while (n) {
		k = write(f->fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		FUZZ_CHECK(k > 0);
		c += k;
		n -= (size_t)k;
	}
}

static inline void fuzz_file_close(struct fuzz_file *f)
{
	close(f->fd);
	f->fd = -1;
}

#endif /* FUZZ_FUZZ_H */
