// SPDX-License-Identifier: MIT
/*
 * kconfig.c - the running kernel's build configuration (host_kconfig.h),
 * through zlib loaded the first time it is read (lazy_lib.h): linked, it
 * cost every command 43 us a start, for a file that `record` and
 * `host platform` alone read.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <zlib.h>

#include "host_kconfig.h"
#include "lazy_lib.h"

_Static_assert(ZLIB_VER_MAJOR == 1, "libz.so.1 is the ABI of these headers");

static struct {
	__typeof__(gzopen) *gzopen;
	__typeof__(gzgets) *gzgets;
	__typeof__(gzclose) *gzclose;
} gz;
static const struct lazy_sym gz_syms[] = {
	LAZY_SYM(gz, gzopen),
	LAZY_SYM(gz, gzgets),
	LAZY_SYM(gz, gzclose),
};
static struct lazy_lib gz_loader = LAZY_LIB("libz.so.1", "zlib1g", gz_syms, &gz);

/* a kernel configuration's longest line: ample (they are "CONFIG_X=value") */
#define KCONFIG_LINE_MAX	4096

int host_kconfig_find(bool (*match)(const char *line, void *ctx), void *ctx)
{
	char line[KCONFIG_LINE_MAX], path[320];
	struct utsname u;
	gzFile f;
	int found = 0;

	if (lazy_lib_load(&gz_loader, NULL, 0))
		return -ELIBACC;
	f = gz.gzopen("/proc/config.gz", "rb");
	if (!f && !uname(&u)) {
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		f = gz.gzopen(path, "rb");	/* (zlib reads a plain file too) */
	}
	if (!f)
		return -ENOENT;
	while (!found && gz.gzgets(f, line, sizeof(line)))
		found = match(line, ctx);
	gz.gzclose(f);
	return found;
}
