/* SPDX-License-Identifier: MIT */
/*
 * lazy_lib.h - a library the process loads the first time it is needed
 *
 * The readers of compressed files (liblzma, zlib, libzstd), of trace.dat
 * (libtracecmd, which brings libtracefs) and LISA's platform files
 * (libyaml) are loaded with dlopen() when a file first asks for them, not
 * by the dynamic linker at every start: linked, they took 0.42 of the
 * 1.01 ms an empty program linked with all of them takes to run (medians
 * of 300 runs, BENCHMARKS.md "Start-up"), the half of a small perf.data's
 * `cpuidle stats` that is not reading it.  The idea is systemd's
 * (src/shared/dlfcn-util.c: optional libraries dlopen()ed on demand).
 *
 * A user keeps a table of the library's functions, each member named as
 * the function and typed by __typeof__ of its declaration (so a prototype
 * that changes breaks the build, not the call), and describes it:
 *
 *	static struct {
 *		__typeof__(lzma_code) *lzma_code;
 *	} xz;
 *	static const struct lazy_sym xz_syms[] = { LAZY_SYM(xz, lzma_code) };
 *	static struct lazy_lib xz_lib = LAZY_LIB("liblzma.so.5", "liblzma5",
 *						 xz_syms, &xz);
 *
 * then calls lazy_lib_load(&xz_lib, ...) before the first call through
 * the table.  What the dynamic linker holds is the process's, so the
 * table and its state are too: loaded once (under a lock, threads may
 * race to it), never unloaded.
 */
#ifndef LAZY_LIB_H
#define LAZY_LIB_H

#include <pthread.h>
#include <stddef.h>

/**
 * struct lazy_sym - one function of a lazily loaded library
 * @name: its symbol
 * @offset: of its pointer in the library's table
 */
struct lazy_sym {
	const char *name;
	size_t offset;
};

/* a member of @table (a variable) named as the function it holds */
#define LAZY_SYM(table, fn)	{ .name = #fn, .offset = offsetof(__typeof__(table), fn) }

/**
 * struct lazy_lib - a library loaded on first use
 * @soname: what dlopen() is given ("liblzma.so.5")
 * @package: the Debian package that holds it, for the error
 * @syms: its functions the caller calls
 * @nr_syms: how many
 * @table: where their addresses go (the caller's struct of pointers)
 * @lock: (private) held while loading
 * @state: (private) 0 not tried, 1 loaded, or the negative errno it failed with
 * @error: (private) what went wrong, for every later caller
 */
struct lazy_lib {
	const char *soname;
	const char *package;
	const struct lazy_sym *syms;
	size_t nr_syms;
	void *table;
	pthread_mutex_t lock;
	int state;
	char error[240];
};

#define LAZY_LIB(so, pkg, symbols, tbl) {					\
	.soname = (so), .package = (pkg), .syms = (symbols),			\
	.nr_syms = sizeof(symbols) / sizeof((symbols)[0]), .table = (tbl),	\
	.lock = PTHREAD_MUTEX_INITIALIZER }

/**
 * lazy_lib_load() - load @lib and fill its table, the first time
 * @lib: the library
 * @err: where to say what went wrong ("needs liblzma.so.5 (Debian package
 *       liblzma5): ..."), if it did
 * @errlen: its size
 *
 * Safe to call from several threads; after the first call, an atomic load.
 *
 * Return: 0, or -ELIBACC (the library cannot be loaded, or lacks one of
 * the functions), the same on every later call.
 */
int lazy_lib_load(struct lazy_lib *lib, char *err, size_t errlen);

#endif
