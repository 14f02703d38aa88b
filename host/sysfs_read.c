// SPDX-License-Identifier: MIT
/*
 * sysfs_read.c - a snapshot of the host's cpuidle sysfs (host_sysfs.h):
 * the global files, then every cpuN/cpuidle/stateK directory.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host_sysfs.h"

const char *host_sysfs_root(void)
{
	const char *root = getenv(HOST_SYSFS_ROOT_ENV);

	return root && *root ? root : "/sys";
}

bool host_sysfs_is_real(void)
{
	return !strcmp(host_sysfs_root(), "/sys");
}

int host_sysfs_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n, m;

	n = snprintf(buf, len, "%s/", host_sysfs_root());
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	va_start(ap, fmt);
	m = vsnprintf(buf + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	if (m < 0 || (size_t)m >= len - (size_t)n)
		return -ENAMETOOLONG;
	return 0;
}

int host_read_line(const char *path, char *buf, size_t len)
{
	ssize_t n;
	char *nl;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	nl = strchr(buf, '\n');
	if (nl)
		*nl = '\0';
	return 0;
}

int host_read_u64(const char *path, uint64_t *out)
{
	char buf[64], *end;
	int ret;

	ret = host_read_line(path, buf, sizeof(buf));
	if (ret)
		return ret;
	if (!isdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	*out = strtoull(buf, &end, 10);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

const char *host_current_governor(const struct host_cpuidle *h)
{
	if (host_has(h, HOST_G_GOVERNOR))
		return h->governor;
	if (host_has(h, HOST_G_GOVERNOR_RO))
		return h->governor_ro;
	return "";
}

static int fail(char *err, size_t errlen, int ret, const char *path)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: %s", path,
			 ret == -EINVAL ? "not what the kernel writes there" : strerror(-ret));
	return ret;
}

/* a text file: sets @bit in *@present unless missing */
static int read_text(const char *path, char *buf, size_t len, unsigned int *present,
		     unsigned int bit, char *err, size_t errlen)
{
	int ret = host_read_line(path, buf, len);

	if (ret == -ENOENT) {
		buf[0] = '\0';
		return 0;
	}
	if (ret)
		return fail(err, errlen, ret, path);
	*present |= 1u << bit;
	return 0;
}

static int read_number(const char *path, uint64_t *v, unsigned int *present, unsigned int bit,
		       char *err, size_t errlen)
{
	int ret = host_read_u64(path, v);

	if (ret == -ENOENT) {
		*v = 0;
		return 0;
	}
	if (ret)
		return fail(err, errlen, ret, path);
	*present |= 1u << bit;
	return 0;
}

static int read_state(unsigned int cpu, int k, struct host_state *s, char *err, size_t errlen)
{
	static const struct {
		const char *file;
		enum host_state_field f;
		size_t off;
	} numbers[] = {
		{ "latency", HOST_F_LATENCY, offsetof(struct host_state, latency_us) },
		{ "residency", HOST_F_RESIDENCY, offsetof(struct host_state, residency_us) },
		{ "power", HOST_F_POWER, offsetof(struct host_state, power) },
		{ "usage", HOST_F_USAGE, offsetof(struct host_state, usage) },
		{ "time", HOST_F_TIME, offsetof(struct host_state, time_us) },
		{ "above", HOST_F_ABOVE, offsetof(struct host_state, above) },
		{ "below", HOST_F_BELOW, offsetof(struct host_state, below) },
		{ "rejected", HOST_F_REJECTED, offsetof(struct host_state, rejected) },
		{ "disable", HOST_F_DISABLE, offsetof(struct host_state, disable) },
		{ "s2idle/usage", HOST_F_S2IDLE_USAGE, offsetof(struct host_state, s2idle_usage) },
		{ "s2idle/time", HOST_F_S2IDLE_TIME, offsetof(struct host_state, s2idle_time_us) },
	};
	char dir[4096], path[4200];
	unsigned int i;
	int ret;

	memset(s, 0, sizeof(*s));
	s->index = k;
	ret = host_sysfs_path(dir, sizeof(dir), "devices/system/cpu/cpu%u/cpuidle/state%d", cpu, k);
	if (ret)
		return fail(err, errlen, ret, "sysfs root");
	snprintf(path, sizeof(path), "%s/name", dir);
	ret = read_text(path, s->name, sizeof(s->name), &s->present, HOST_F_NAME, err, errlen);
	snprintf(path, sizeof(path), "%s/desc", dir);
	if (!ret)
		ret = read_text(path, s->desc, sizeof(s->desc), &s->present, HOST_F_DESC, err,
				errlen);
	snprintf(path, sizeof(path), "%s/default_status", dir);
	if (!ret)
		ret = read_text(path, s->default_status, sizeof(s->default_status), &s->present,
				HOST_F_DEFAULT_STATUS, err, errlen);
	for (i = 0; !ret && i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, numbers[i].file);
		ret = read_number(path, (uint64_t *)((char *)s + numbers[i].off), &s->present,
				  numbers[i].f, err, errlen);
	}
	return ret;
}

static int read_cpu(struct host_cpu *c, char *err, size_t errlen)
{
	char path[4096];
	unsigned int dummy = 0;
	struct stat st;
	int k, ret;

	ret = host_sysfs_path(path, sizeof(path), "devices/system/cpu/cpu%u/cpuidle/driver/name",
			      c->cpu);
	if (!ret)
		ret = read_text(path, c->driver, sizeof(c->driver), &dummy, 0, err, errlen);
	if (!ret)
		ret = host_sysfs_path(path, sizeof(path),
				      "devices/system/cpu/cpu%u/power/pm_qos_resume_latency_us",
				      c->cpu);
	if (!ret)
		ret = read_text(path, c->resume_latency, sizeof(c->resume_latency), &dummy, 0, err,
				errlen);
	if (ret)
		return ret;
	for (k = 0; k < CPUIDLE_STATE_MAX; k++) {
		ret = host_sysfs_path(path, sizeof(path), "devices/system/cpu/cpu%u/cpuidle/state%d",
				      c->cpu, k);
		if (ret)
			return fail(err, errlen, ret, "sysfs root");
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			break;
		ret = read_state(c->cpu, k, &c->states[k], err, errlen);
		if (ret)
			return ret;
		c->state_count = k + 1;
	}
	return 0;
}

/* "cpuN" with N decimal, no leading zeros: N; else -1 */
static long cpu_number(const char *name)
{
	const char *p = name + 3;
	long n = 0;

	if (strncmp(name, "cpu", 3) || !isdigit((unsigned char)*p) || (*p == '0' && p[1]))
		return -1;
	for (; *p; p++) {
		if (!isdigit((unsigned char)*p) || n >= CPUIDLE_MAX_CPUS)
			return -1;
		n = n * 10 + (*p - '0');
	}
	return n < CPUIDLE_MAX_CPUS ? n : -1;
}

static int cmp_cpu(const void *a, const void *b)
{
	const struct host_cpu *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static int read_globals(struct host_cpuidle *h, char *err, size_t errlen)
{
	static const struct {
		const char *file;
		enum host_global_field f;
		size_t off, len;
	} files[] = {
		{ "current_driver", HOST_G_DRIVER, offsetof(struct host_cpuidle, driver),
		  HOST_STR_LEN },
		{ "current_governor", HOST_G_GOVERNOR, offsetof(struct host_cpuidle, governor),
		  HOST_STR_LEN },
		{ "current_governor_ro", HOST_G_GOVERNOR_RO,
		  offsetof(struct host_cpuidle, governor_ro), HOST_STR_LEN },
		{ "available_governors", HOST_G_AVAILABLE,
		  offsetof(struct host_cpuidle, available), HOST_GOVERNORS_LEN },
	};
	char path[4096];
	struct stat st;
	unsigned int i;
	size_t n;
	int ret;

	ret = host_sysfs_path(path, sizeof(path), "devices/system/cpu/cpuidle");
	if (ret)
		return fail(err, errlen, ret, "sysfs root");
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		if (err && errlen)
			snprintf(err, errlen, "no cpuidle in this kernel (no %s)", path);
		return -ENODEV;
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		host_sysfs_path(path, sizeof(path), "devices/system/cpu/cpuidle/%s", files[i].file);
		ret = read_text(path, (char *)h + files[i].off, files[i].len, &h->present,
				files[i].f, err, errlen);
		if (ret)
			return ret;
	}
	n = strlen(h->available);
	while (n && h->available[n - 1] == ' ')
		h->available[--n] = '\0';
	return 0;
}

int host_cpuidle_read(struct host_cpuidle *h, char *err, size_t errlen)
{
	char path[4096];
	struct dirent *de;
	struct stat st;
	size_t cap = 0;
	DIR *d;
	int ret;

	memset(h, 0, sizeof(*h));
	if (err && errlen)
		err[0] = '\0';
	ret = read_globals(h, err, errlen);
	if (ret)
		return ret;
	host_sysfs_path(path, sizeof(path), "devices/system/cpu");
	d = opendir(path);
	if (!d)
		return fail(err, errlen, -errno, path);
	while ((de = readdir(d))) {
		long cpu = cpu_number(de->d_name);

		if (cpu < 0)
			continue;
		host_sysfs_path(path, sizeof(path), "devices/system/cpu/%s/cpuidle", de->d_name);
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		if (h->nr_cpus == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct host_cpu *n = realloc(h->cpus, ncap * sizeof(*n));

			if (!n) {
				closedir(d);
				host_cpuidle_free(h);
				return fail(err, errlen, -ENOMEM, "snapshot");
			}
			h->cpus = n;
			cap = ncap;
		}
		memset(&h->cpus[h->nr_cpus], 0, sizeof(h->cpus[0]));
		h->cpus[h->nr_cpus++].cpu = (unsigned int)cpu;
	}
	closedir(d);
	if (h->nr_cpus)
		qsort(h->cpus, h->nr_cpus, sizeof(h->cpus[0]), cmp_cpu);
	for (unsigned int i = 0; i < h->nr_cpus; i++) {
		ret = read_cpu(&h->cpus[i], err, errlen);
		if (ret) {
			host_cpuidle_free(h);
			return ret;
		}
	}
	return 0;
}

void host_cpuidle_free(struct host_cpuidle *h)
{
	free(h->cpus);
	h->cpus = NULL;
	h->nr_cpus = 0;
}

const struct host_cpu *host_find_cpu(const struct host_cpuidle *h, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < h->nr_cpus; i++)
		if (h->cpus[i].cpu == cpu)
			return &h->cpus[i];
	return NULL;
}

int host_find_state(const struct host_cpu *c, const char *spec)
{
	const char *p = spec;
	int k;

	int found = -1;

	for (k = 0; k < c->state_count; k++)
		if (host_state_has(&c->states[k], HOST_F_NAME) && !strcmp(c->states[k].name, spec))
			return k;
	/* as a user types it ("poll"): one state whose name differs in case alone */
	for (k = 0; k < c->state_count; k++)
		if (host_state_has(&c->states[k], HOST_F_NAME) &&
		    !strcasecmp(c->states[k].name, spec)) {
			if (found >= 0)
				return -EINVAL;	/* two: which? */
			found = k;
		}
	if (found >= 0)
		return found;
	while (*p && isdigit((unsigned char)*p))
		p++;
	if (*spec && !*p && p - spec < 4) {
		k = atoi(spec);
		if (k < c->state_count)
			return k;
	}
	return -ENOENT;
}
