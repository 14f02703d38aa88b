// SPDX-License-Identifier: MIT
/*
 * tep_lib.c - libtraceevent, loaded on first use (tep_lib.h, lazy_lib.h).
 * libtraceevent.so.1 is the ABI of Debian 12's libtraceevent-dev (1.7).
 * dlsym() on the library's own handle finds its functions, never the
 * process's filters of the same names.
 */
#include "lazy_lib.h"
#include "tep_lib.h"

static struct tep_lib tl;
static const struct lazy_sym tl_syms[] = {
	LAZY_SYM(tl, tep_alloc),
	LAZY_SYM(tl, tep_free),
	LAZY_SYM(tl, tep_parse_event),
	LAZY_SYM(tl, tep_parse_kallsyms),
	LAZY_SYM(tl, tep_is_file_bigendian),
	LAZY_SYM(tl, tep_is_local_bigendian),
	LAZY_SYM(tl, tep_find_event_by_name),
	LAZY_SYM(tl, tep_find_field),
	LAZY_SYM(tl, tep_find_common_field),
	LAZY_SYM(tl, tep_find_function),
	LAZY_SYM(tl, tep_find_function_address),
	LAZY_SYM(tl, tep_print_event),
	LAZY_SYM(tl, tep_get_cpus),
	LAZY_SYM(tl, tep_data_pid),
	LAZY_SYM(tl, trace_seq_init),
	LAZY_SYM(tl, trace_seq_terminate),
	LAZY_SYM(tl, trace_seq_destroy),
};
static struct lazy_lib tl_loader = LAZY_LIB("libtraceevent.so.1", "libtraceevent1", tl_syms, &tl);

const struct tep_lib *tep_lib(char *err, size_t errlen)
{
	return lazy_lib_load(&tl_loader, err, errlen) ? NULL : &tl;
}
