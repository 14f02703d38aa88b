/* SPDX-License-Identifier: MIT */
/*
 * tep_lib.h - libtraceevent, loaded on first use (lazy_lib.h).  A perf.data's
 * event formats are read by trace_format.c; libtraceevent is needed for a
 * trace.dat (libtracecmd hands it the formats), a file's kernel symbols
 * and the trace.dat's IPI reasons, so every other command starts without
 * it (linked, it took 51 us of each start: BENCHMARKS.md, "Start-up").
 */
#ifndef TEP_LIB_H
#define TEP_LIB_H

#include <stddef.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

/** struct tep_lib - libtraceevent's functions the readers call */
struct tep_lib {
	__typeof__(tep_alloc) *tep_alloc;
	__typeof__(tep_free) *tep_free;
	__typeof__(tep_parse_event) *tep_parse_event;
	__typeof__(tep_parse_kallsyms) *tep_parse_kallsyms;
	__typeof__(tep_is_file_bigendian) *tep_is_file_bigendian;
	__typeof__(tep_is_local_bigendian) *tep_is_local_bigendian;
	__typeof__(tep_find_event_by_name) *tep_find_event_by_name;
	__typeof__(tep_find_field) *tep_find_field;
	__typeof__(tep_find_common_field) *tep_find_common_field;
	__typeof__(tep_find_function) *tep_find_function;
	__typeof__(tep_find_function_address) *tep_find_function_address;
	__typeof__(tep_print_event) *tep_print_event;
	__typeof__(tep_get_cpus) *tep_get_cpus;
	__typeof__(tep_data_pid) *tep_data_pid;
	__typeof__(trace_seq_init) *trace_seq_init;
	__typeof__(trace_seq_terminate) *trace_seq_terminate;
	__typeof__(trace_seq_destroy) *trace_seq_destroy;
};

/**
 * tep_lib() - libtraceevent, loaded
 * @err: where to say why not ("needs libtraceevent.so.1 (Debian package
 *	libtraceevent1), which cannot be loaded: ..."), or NULL
 * @errlen: its size
 *
 * The functions are the library's own, even where the process defines
 * one of the same name in front of it (the CLI's tep_parse_event() and
 * tep_parse_kallsyms() filters, trace_tracecmd.c, call on through these).
 *
 * Return: its table, or NULL.
 */
const struct tep_lib *tep_lib(char *err, size_t errlen);

#endif
