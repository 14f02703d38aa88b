// SPDX-License-Identifier: MIT
/*
 * fuzz_attr.c - attribute-tree writes (cpuidle_attr_write()), as "cpuidle
 * sweep -s PATH=VALUE" and cpuidle_lab_run.attrs make them, on a small
 * simulated machine: a bundled platform's table driver, its CPUs (the
 * first of each cluster, and the others below 8), the built-in governors.
 *
 * Input: the first byte picks the platform; then records separated by NUL
 * bytes, each "PATH=VALUE" (split at the first '=', a record without one is
 * a path written with an empty value).  A PATH of '@' and one more byte is
 * the attribute of that number in the tree's walk order, so every file is
 * reached without the fuzzer having to spell it.
 *
 * After each write: a write that succeeded reads back as written (a state's
 * disable bit, a module parameter's value, a CPU's resume latency limit);
 * one that failed returned a
 * documented errno; and each CPU idles a few times under whatever governor
 * and parameters the writes left, where an absurd tunable must not break
 * the governor.  At the end every file of the tree still reads, with its
 * newline.
 */
#include <limits.h>

#include "fuzz_sys.h"

#define MAX_RECORDS	64
#define MAX_PATHS	1024

static const char *const platforms[] = { "haltpoll-vm", "laptop", "skylake", "spr", "juno-r2" };
#define NR_PLATFORMS	(sizeof(platforms) / sizeof(platforms[0]))

struct paths {
	char *path[MAX_PATHS];
	int n;
};

static int collect(const char *path, const char *value, bool writable, void *arg)
{
	struct paths *ps = arg;
	size_t len = strlen(value);

	FUZZ_CHECK(len && value[len - 1] == '\n');
	(void)writable;
	if (ps->n < MAX_PATHS) {
		ps->path[ps->n] = strdup(path);
		FUZZ_CHECK(ps->path[ps->n]);
		ps->n++;
	}
	return 0;
}

static int check_file(const char *path, const char *value, bool writable, void *arg)
{
	char buf[4096];
	ssize_t n;

	(void)writable;
	(void)arg;
	FUZZ_CHECK(strlen(value) && value[strlen(value) - 1] == '\n');
	n = cpuidle_attr_read(((struct fuzz_sys *)arg)->sys, path, buf, sizeof(buf));
	FUZZ_CHECK(n > 0 && (size_t)n == strlen(buf) && buf[n - 1] == '\n');
	return 0;
}

/* What a successful write left: the file reads back as the value says. */
static void check_written(struct fuzz_sys *fs, const char *path, const char *value)
{
	const char *file = strrchr(path, '/');
	char buf[4096], want[32];
	unsigned long long v;
	ssize_t n;

	n = cpuidle_attr_read(fs->sys, path, buf, sizeof(buf));
	FUZZ_CHECK(n > 0);
	file = file ? file + 1 : path;
	if (!strcmp(file, "disable") || strstr(path, "module/hazard/parameters/") ||
	    (strstr(path, "guest_halt_poll_") && strcmp(file, "guest_halt_poll_allow_shrink"))) {
		/* the kernel's kstrtouint() took it: strtoull() reads the same */
		v = strtoull(value, NULL, 0);
		FUZZ_CHECK(v <= UINT_MAX);
		if (!strcmp(file, "disable"))
			v = v != 0;
		snprintf(want, sizeof(want), "%llu\n", v);
		FUZZ_CHECK(!strcmp(buf, want));
	} else if (!strcmp(file, "guest_halt_poll_allow_shrink")) {
		FUZZ_CHECK(!strcmp(buf, "Y\n") || !strcmp(buf, "N\n"));
	} else if (!strcmp(file, "pm_qos_resume_latency_us")) {
		/* "n/a" is a limit of 0; a number (0: no constraint) reads back as itself */
		if (!strncmp(value, "n/a", 3)) {
			FUZZ_CHECK(!strcmp(buf, "n/a\n"));
		} else {
			v = strtoull(value, NULL, 0);
			FUZZ_CHECK(v < INT_MAX);
			snprintf(want, sizeof(want), "%llu\n", v);
			FUZZ_CHECK(!strcmp(buf, want));
		}
	}
}

static void write_one(struct fuzz_sys *fs, const struct paths *ps, char *rec)
{
	char *eq = strchr(rec, '='), *path = rec, *value = (char *)"";
	int ret;

	if (eq) {
		*eq = '\0';
		value = eq + 1;
	}
	if (path[0] == '@' && path[1] && !path[2] && ps->n)
		path = ps->path[(unsigned char)path[1] % ps->n];
	ret = cpuidle_attr_write(fs->sys, path, value);
	FUZZ_CHECK(ret <= 0);
	if (!ret)
		check_written(fs, path, value);
	else
		FUZZ_CHECK(ret == -EINVAL || ret == -ERANGE || ret == -ENOENT ||
			   ret == -EACCES || ret == -EISDIR || ret == -EBUSY);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cpuidle_platform plat[NR_PLATFORMS];
	static const int64_t stays[] = { 300, 30000, 3000000, 300000000 };
	static bool loaded;
	struct paths ps = { .n = 0 };
	struct fuzz_sys *fs;
	char *text, *rec, *end;
	char err[512];
	unsigned int i, k, nrec = 0;

	if (!loaded) {
		for (i = 0; i < NR_PLATFORMS; i++)
			FUZZ_CHECK(!cpuidle_platform_load(platforms[i], &plat[i], err, sizeof(err)));
		loaded = true;
	}
	if (!size || size > 65536)
		return 0;
	fs = fuzz_sys_create(&plat[data[0] % NR_PLATFORMS]);
	FUZZ_CHECK(!cpuidle_attr_walk(fs->sys, collect, &ps));

	/* the records, NUL-terminated one by one */
	text = malloc(size);
	FUZZ_CHECK(text);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	end = text + size - 1;
	for (rec = text; rec <= end && nrec < MAX_RECORDS; rec += strlen(rec) + 1, nrec++) {
		write_one(fs, &ps, rec);
		for (k = 0; k < (unsigned int)fs->nr_devs; k++) {
			int64_t stay = stays[(nrec + k) % 4];

			fuzz_sys_idle(fs, (int)k, stay * 2, stay, false);
			fuzz_sys_idle(fs, (int)k, CPUIDLE_TIME_INFINITE, stay * 10, true);
		}
	}
	free(text);
	FUZZ_CHECK(!cpuidle_attr_walk(fs->sys, check_file, fs));
	for (i = 0; i < (unsigned int)ps.n; i++)
		free(ps.path[i]);
	fuzz_sys_destroy(fs);
	return 0;
}
