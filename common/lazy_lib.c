// SPDX-License-Identifier: MIT
/*
 * lazy_lib.c - libraries loaded the first time they are needed (lazy_lib.h)
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lazy_lib.h"

/* dlopen() @lib and look its functions up; @lib->lock held */
static int load(struct lazy_lib *lib)
{
	const char *why;
	void *handle;
	size_t i;

	/*
	 * RTLD_LOCAL: its symbols are for this table alone; its own
	 * references still bind to the process's first (the cpuidle
	 * command's tep_parse_event() filters, trace_tracecmd.c)
	 */
	handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
	if (!handle) {
		why = dlerror();
		snprintf(lib->error, sizeof(lib->error), "needs %s (Debian package %s), which "
			 "cannot be loaded: %s", lib->soname, lib->package, why ? why : "?");
		return -ELIBACC;
	}
	for (i = 0; i < lib->nr_syms; i++) {
		void *fn = dlsym(handle, lib->syms[i].name);

		if (!fn) {
			snprintf(lib->error, sizeof(lib->error), "needs %s() of %s, which it does "
				 "not have (Debian package %s, too old?)", lib->syms[i].name,
				 lib->soname, lib->package);
			dlclose(handle);
			return -ELIBACC;
		}
		memcpy((char *)lib->table + lib->syms[i].offset, &fn, sizeof(fn));
	}
	return 1;
}

int lazy_lib_load(struct lazy_lib *lib, char *err, size_t errlen)
{
	int state = __atomic_load_n(&lib->state, __ATOMIC_ACQUIRE);

	if (state == 0) {
		pthread_mutex_lock(&lib->lock);
		state = lib->state;
		if (state == 0) {
			state = load(lib);
			__atomic_store_n(&lib->state, state, __ATOMIC_RELEASE);
		}
		pthread_mutex_unlock(&lib->lock);
	}
	if (state > 0)
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "%s", lib->error);
	return state;
}
