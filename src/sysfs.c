// SPDX-License-Identifier: MIT
/*
 * sysfs.c - the attribute tree: a sysfs-compatible view of a system (the
 * kernel's drivers/cpuidle/sysfs.c).
 *
 * Paths are those under /sys/devices/system/cpu/:
 *
 *   cpuidle/{current_driver,current_governor,current_governor_ro,
 *            available_governors}
 *   cpuN/cpuidle/stateK/{name,desc,latency,residency,power,usage,time,
 *                        disable,above,below,rejected,default_status}
 *   cpuN/power/pm_qos_resume_latency_us
 *
 * and, for the governors' module parameters (/sys/module/GOV/parameters/
 * in the kernel, per system here), module/GOV/parameters/NAME, also
 * reachable by its absolute kernel path:
 *
 *   module/GOV/parameters/NAME for each tunable of each registered
 *   governor (struct cpuidle_governor.params)
 *
 * As in the kernel, the files are two tables of attribute descriptors, each
 * with a show() and, when writable, a store().  A show() formats exactly
 * what the kernel's file holds (its units, its printf format, the trailing
 * newline) into a page-sized buffer; a store() validates the text as the
 * kernel does and then calls the public API, so no policy lives here.
 *
 * Locking: a path is resolved, and a show() runs, under the system lock,
 * which keeps devices from coming and going meanwhile.  Per-state counters
 * are written by the idle threads without any lock, so they are read with
 * READ_ONCE.  A store() runs without the lock: the API call it makes takes
 * it.  cpuidle_attr_walk() drops the lock around every visit, so a visitor
 * may itself read or write attributes.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "cpuidle/attr.h"

#define ATTR_PAGE_SIZE		4096	/* a sysfs buffer is one page */
#define ATTR_PATH_MAX		96
#define ATTR_ROOT		"/sys/devices/system/cpu"
#define ATTR_SYS_ROOT		"/sys"	/* module/ lives at /sys/module */
#define ATTR_MAX_DEPTH		4	/* cpuN/cpuidle/stateK/file */
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* ---------------------------------------------------------------- helpers */

/* sysfs_emit(): format into a page, return the length kept. */
__attribute__((format(printf, 2, 3)))
static int emit(char *buf, const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, ATTR_PAGE_SIZE, fmt, ap);
	va_end(ap);
	if (len < 0) {
		buf[0] = '\0';
		return 0;
	}
	return len >= ATTR_PAGE_SIZE ? ATTR_PAGE_SIZE - 1 : len;
}

/*
 * The kernel's isspace(): the ASCII blanks plus Latin-1 no-break space,
 * independent of the C library's locale.
 */
static bool kspace(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

/* Value of a digit in any base up to 16, or 16 if @c is not one. */
static unsigned int kdigit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;	/* ASCII tolower for letters */
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return 16;
}

/*
 * kstrtouint(s, 0, res): an optional '+', then a number whose base comes
 * from its prefix ("0x" followed by a hex digit: 16, "0": 8, else 10),
 * then at most one newline and nothing else.  Overflow of 64 bits is found
 * before junk is, as in the kernel's _kstrtoull(); then the value must fit
 * 32 bits.
 */
static int attr_kstrtouint(const char *s, unsigned int *res)
{
	unsigned long long acc = 0;
	unsigned int base = 10, d;
	bool overflow = false;
	size_t n = 0;

	if (*s == '+')
		s++;
	if (s[0] == '0') {
		if ((s[1] | 0x20) == 'x' && kdigit((unsigned char)s[2]) < 16) {
			base = 16;
			s += 2;
		} else {
			base = 8;
		}
	}
	for (; (d = kdigit((unsigned char)*s)) < base; s++, n++) {
		if (acc > (ULLONG_MAX - d) / base)
			overflow = true;
		acc = acc * base + d;
	}
	if (overflow)
		return -ERANGE;
	if (!n)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	if (acc > UINT_MAX)
		return -ERANGE;
	*res = (unsigned int)acc;
	return 0;
}

/*
 * kstrtobool(): only the first character counts ('y', 'Y', 't', 'T', '1'
 * for true; 'n', 'N', 'f', 'F', '0' for false), or the first two for
 * "on" and "off", in any case; anything else is -EINVAL.  This is what a
 * bool module parameter accepts (param_set_bool()).
 */
static int attr_kstrtobool(const char *s, bool *res)
{
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		switch (s[1]) {
		case 'n': case 'N':
			*res = true;
			return 0;
		case 'f': case 'F':
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}

/* ---------------------------------------------------------------- cpuidle/ */

/**
 * struct cpuidle_global_attr - one file of cpuidle/
 * @name: the file name
 * @show: format its content into a page; system lock held
 * @store: parse a write and apply it; system lock not held.  NULL for a
 *	read-only file.
 */
struct cpuidle_global_attr {
	const char *name;
	int (*show)(struct cpuidle_system *sys, char *buf);
	int (*store)(struct cpuidle_system *sys, const char *buf);
};

static int show_current_driver(struct cpuidle_system *sys, char *buf)
{
	return emit(buf, "%s\n", sys->driver ? sys->driver->name : "none");
}

static int show_current_governor(struct cpuidle_system *sys, char *buf)
{
	return emit(buf, "%s\n", sys->governor ? sys->governor->name : "none");
}

static int show_available_governors(struct cpuidle_system *sys, char *buf)
{
	int i, n, len = 0;

	for (i = 0; i < sys->nr_governors; i++) {
		if (len >= ATTR_PAGE_SIZE - (CPUIDLE_NAME_LEN + 2))
			break;
		/* scnprintf(): count what was kept, not what was cut */
		n = snprintf(buf + len, CPUIDLE_NAME_LEN + 1, "%s ", sys->governors[i]->name);
		len += n > CPUIDLE_NAME_LEN ? CPUIDLE_NAME_LEN : n;
	}
	return len + emit(buf + len, "\n");
}

/*
 * The kernel reads the first word with sscanf("%16s") into a 17-byte
 * buffer and compares with strncmp(.., CPUIDLE_NAME_LEN): case-sensitive,
 * and a word longer than a name can be (15 characters) never matches.
 */
static int store_current_governor(struct cpuidle_system *sys, const char *buf)
{
	char name[CPUIDLE_NAME_LEN + 1];
	size_t n = 0;

	while (kspace((unsigned char)*buf))
		buf++;
	while (*buf && !kspace((unsigned char)*buf) && n < CPUIDLE_NAME_LEN)
		name[n++] = *buf++;
	name[n] = '\0';
	if (!n)
		return -EINVAL;
	return cpuidle_switch_governor(sys, name);
}

static const struct cpuidle_global_attr global_attrs[] = {
	{ "current_driver", show_current_driver, NULL },
	{ "current_governor", show_current_governor, store_current_governor },
	{ "current_governor_ro", show_current_governor, NULL },
	{ "available_governors", show_available_governors, NULL },
};

/* ---------------------------------------------------------------- stateK/ */

/**
 * struct cpuidle_state_attr - one file of cpuN/cpuidle/stateK/
 * @name: the file name
 * @show: format its content (from the state's constants @s or its
 *	counters @su) into a page; system lock held, counters changing under it
 * @store: parse a write and apply it to state @index of @dev; system lock
 *	not held.  NULL for a read-only file.
 */
struct cpuidle_state_attr {
	const char *name;
	int (*show)(const struct cpuidle_state *s, const struct cpuidle_state_usage *su,
		    char *buf);
	int (*store)(struct cpuidle_device *dev, int index, const char *buf);
};

#define define_show_state_str_function(_name)				\
static int show_state_##_name(const struct cpuidle_state *s,		\
			      const struct cpuidle_state_usage *su, char *buf) \
{									\
	if (s->_name[0] == '\0')					\
		return emit(buf, "<null>\n");				\
	return emit(buf, "%.*s\n", (int)sizeof(s->_name), s->_name);	\
}

/* Times are kept in ns and shown in us, truncated (ktime_to_us()). */
#define define_show_state_time_function(_name)				\
static int show_state_##_name(const struct cpuidle_state *s,		\
			      const struct cpuidle_state_usage *su, char *buf) \
{									\
	return emit(buf, "%llu\n",					\
		    (unsigned long long)(s->_name##_ns / 1000));	\
}

/* Counters written by the idle path, lock-free. */
#define define_show_state_ull_function(_name)				\
static int show_state_##_name(const struct cpuidle_state *s,		\
			      const struct cpuidle_state_usage *su, char *buf) \
{									\
	return emit(buf, "%llu\n", (unsigned long long)READ_ONCE(su->_name)); \
}

define_show_state_str_function(name)
define_show_state_str_function(desc)
define_show_state_time_function(exit_latency)
define_show_state_time_function(target_residency)
define_show_state_ull_function(usage)
define_show_state_ull_function(above)
define_show_state_ull_function(below)
define_show_state_ull_function(rejected)

/* An int printed with %u: "unknown" (-1) reads 4294967295. */
static int show_state_power_usage(const struct cpuidle_state *s,
				  const struct cpuidle_state_usage *su, char *buf)
{
	return emit(buf, "%u\n", (unsigned int)s->power_usage);
}

static int show_state_time(const struct cpuidle_state *s, const struct cpuidle_state_usage *su,
			   char *buf)
{
	return emit(buf, "%llu\n", (unsigned long long)(READ_ONCE(su->time_ns) / 1000));
}

/* Only the user's bit: a state the driver disabled may still read 0. */
static int show_state_disable(const struct cpuidle_state *s,
			      const struct cpuidle_state_usage *su, char *buf)
{
	return emit(buf, "%u\n", READ_ONCE(su->disable) & CPUIDLE_STATE_DISABLED_BY_USER);
}

/* Non-zero sets the user's bit, 0 clears it; the driver's bit stays. */
static int store_state_disable(struct cpuidle_device *dev, int index, const char *buf)
{
	unsigned int value;
	int ret;

	ret = attr_kstrtouint(buf, &value);
	if (ret)
		return ret;
	return cpuidle_disable_state(dev, index, CPUIDLE_STATE_DISABLED_BY_USER, value != 0);
}

static int show_state_default_status(const struct cpuidle_state *s,
				     const struct cpuidle_state_usage *su, char *buf)
{
	return emit(buf, "%s\n", (s->flags & CPUIDLE_FLAG_OFF) ? "disabled" : "enabled");
}

static const struct cpuidle_state_attr state_attrs[] = {
	{ "name", show_state_name, NULL },
	{ "desc", show_state_desc, NULL },
	{ "latency", show_state_exit_latency, NULL },
	{ "residency", show_state_target_residency, NULL },
	{ "power", show_state_power_usage, NULL },
	{ "usage", show_state_usage, NULL },
	{ "time", show_state_time, NULL },
	{ "disable", show_state_disable, store_state_disable },
	{ "above", show_state_above, NULL },
	{ "below", show_state_below, NULL },
	{ "rejected", show_state_rejected, NULL },
	{ "default_status", show_state_default_status, NULL },
};

/* ---------------------------------------------------------------- module/ */

/*
 * A tunable of a registered governor (struct cpuidle_governor.params), as
 * the kernel's module parameter files show and take them: a uint "%u",
 * written as kstrtouint() reads (base 0); a bool Y or N, written as
 * kstrtobool() reads.  Every parameter is 0644 in the kernel: readable and
 * writable.  System lock held.
 */
static int show_module_param(struct cpuidle_system *sys, const struct cpuidle_governor *gov,
			     const struct cpuidle_param *param, char *buf)
{
	unsigned int v = cpuidle_gov_param_read(sys, gov, param);

	if (param->type == CPUIDLE_PARAM_BOOL)
		return emit(buf, "%c\n", v ? 'Y' : 'N');
	return emit(buf, "%u\n", v);
}

/* no lock held: the public call takes it */
static int store_module_param(struct cpuidle_system *sys, const struct cpuidle_governor *gov,
			      const struct cpuidle_param *param, const char *buf)
{
	unsigned int v;
	bool b;
	int ret;

	if (param->type == CPUIDLE_PARAM_BOOL) {
		ret = attr_kstrtobool(buf, &b);
		v = !ret && b;	/* b is set only when the text parsed */
	} else {
		ret = attr_kstrtouint(buf, &v);
	}
	if (ret)
		return ret;
	return cpuidle_param_set(sys, gov->name, param->name, v);
}

/* ------------------------------------------------- cpuN/power/ */

#define RESUME_LATENCY_FILE	"pm_qos_resume_latency_us"

/*
 * The kernel's drivers/base/power/sysfs.c: "n/a" for a limit of 0 (only
 * polling), 0 for no constraint, else the limit in us.
 */
static int show_resume_latency(const struct cpuidle_device *dev, char *page)
{
	int32_t us = READ_ONCE(dev->resume_latency_us);

	if (us == 0)
		return emit(page, "n/a\n");
	return emit(page, "%d\n", us == CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT ? 0 : us);
}

/*
 * As the kernel stores it: a number (kstrtos32(), base from its prefix)
 * where 0 means no constraint, and neither a negative one nor the "no
 * constraint" value itself may be written; or "n/a" for 0.
 */
static int store_resume_latency(struct cpuidle_device *dev, const char *buf)
{
	unsigned int v;

	if (!strcmp(buf, "n/a") || !strcmp(buf, "n/a\n"))
		return cpuidle_set_resume_latency(dev, 0);
	if (buf[0] == '-' || attr_kstrtouint(buf, &v) ||
	    v >= (unsigned int)CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT)
		return -EINVAL;
	return cpuidle_set_resume_latency(dev, v ? (int32_t)v :
					   CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT);
}

/* ---------------------------------------------------------------- paths */

/**
 * struct attr_ref - what a path resolved to
 * @gattr: a file of cpuidle/, or NULL
 * @mgov: the governor of a module parameter file, or NULL
 * @mparam: that file's tunable
 * @sattr: a file of a state directory, or NULL
 * @resume: cpuN/power/pm_qos_resume_latency_us
 * @dev: the device of @sattr or @resume
 * @index: the state of @sattr
 */
struct attr_ref {
	const struct cpuidle_global_attr *gattr;
	const struct cpuidle_governor *mgov;
	const struct cpuidle_param *mparam;
	const struct cpuidle_state_attr *sattr;
	bool resume;
	struct cpuidle_device *dev;
	int index;
};

struct path_comp {
	const char *s;
	size_t len;
};

static bool comp_is(const struct path_comp *c, const char *name)
{
	return c->len == strlen(name) && !memcmp(c->s, name, c->len);
}

/*
 * "<prefix><number>" with the number in canonical decimal (no sign, no
 * leading zero, no blank) and below @limit, as the directory names are
 * printed with "%d".
 */
static bool comp_index(const struct path_comp *c, const char *prefix,
		       unsigned long limit, unsigned long *out)
{
	size_t plen = strlen(prefix), i;
	unsigned long v = 0;

	if (c->len <= plen || memcmp(c->s, prefix, plen))
		return false;
	if (c->s[plen] == '0' && c->len > plen + 1)
		return false;
	for (i = plen; i < c->len; i++) {
		if (c->s[i] < '0' || c->s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(c->s[i] - '0');
		if (v >= limit)
			return false;
	}
	*out = v;
	return true;
}

/*
 * Split @path into at most ATTR_MAX_DEPTH components, tolerating the
 * absolute prefix and empty components ("a//b", a trailing '/').  Returns
 * the number of components, or -ENOENT.
 */
static int split_path(const char *path, struct path_comp *comp, bool *trailing_slash)
{
	size_t rlen = strlen(ATTR_ROOT);
	int n = 0;

	if (!strncmp(path, ATTR_ROOT, rlen) && (path[rlen] == '/' || !path[rlen]))
		path += rlen;
	else if (!strncmp(path, ATTR_SYS_ROOT "/module", sizeof(ATTR_SYS_ROOT "/module") - 1) &&
		 (path[sizeof(ATTR_SYS_ROOT "/module") - 1] == '/' ||
		  !path[sizeof(ATTR_SYS_ROOT "/module") - 1]))
		path += sizeof(ATTR_SYS_ROOT) - 1;	/* "/module/...": relative below */
	else if (path[0] == '/')
		return -ENOENT;	/* absolute, but not below the root */
	*trailing_slash = false;
	while (*path) {
		const char *end;

		if (*path == '/') {
			path++;
			*trailing_slash = true;
			continue;
		}
		if (n == ATTR_MAX_DEPTH)
			return -ENOENT;
		end = strchrnul(path, '/');
		comp[n].s = path;
		comp[n].len = (size_t)(end - path);
		n++;
		path = end;
		*trailing_slash = false;
	}
	return n;
}

/* the registered governor with tunables named by @c, or NULL (lock held) */
static const struct cpuidle_governor *module_of(struct cpuidle_system *sys,
						const struct path_comp *c)
{
	int i;

	for (i = 0; i < sys->nr_governors; i++)
		if (sys->governors[i]->nr_params && comp_is(c, sys->governors[i]->name))
			return sys->governors[i];
	return NULL;
}

/* module/GOV/parameters/NAME: @n components, @slash after the last. */
static int module_lookup(struct cpuidle_system *sys, const struct path_comp *comp, int n,
			 bool slash, struct attr_ref *ref)
{
	const struct cpuidle_governor *gov;
	const struct cpuidle_param *param;

	if (n == 1)
		return -EISDIR;
	gov = module_of(sys, &comp[1]);
	if (!gov)
		return -ENOENT;
	if (n == 2)
		return -EISDIR;
	if (!comp_is(&comp[2], "parameters"))
		return -ENOENT;
	if (n == 3)
		return -EISDIR;
	if (slash)
		return -ENOENT;
	param = cpuidle_gov_param_find(gov, comp[3].s, comp[3].len);
	if (!param)
		return -ENOENT;
	ref->mgov = gov;
	ref->mparam = param;
	return 0;
}

/*
 * Resolve @path.  Returns 0 with @ref filled for a file, -EISDIR for a
 * directory, -ENOENT for anything else.  System lock held.
 */
static int attr_lookup(struct cpuidle_system *sys, const char *path, struct attr_ref *ref)
{
	struct path_comp comp[ATTR_MAX_DEPTH];
	struct cpuidle_device *dev;
	unsigned long cpu, index;
	bool slash;
	size_t i;
	int n;

	memset(ref, 0, sizeof(*ref));
	n = split_path(path, comp, &slash);
	if (n < 0)
		return n;
	if (n == 0)
		return -EISDIR;	/* the root itself */

	if (comp_is(&comp[0], "cpuidle")) {
		if (n == 1)
			return -EISDIR;
		if (n > 2 || slash)
			return -ENOENT;
		for (i = 0; i < ARRAY_SIZE(global_attrs); i++) {
			if (comp_is(&comp[1], global_attrs[i].name)) {
				ref->gattr = &global_attrs[i];
				return 0;
			}
		}
		return -ENOENT;
	}

	if (comp_is(&comp[0], "module"))
		return module_lookup(sys, comp, n, slash, ref);

	if (!comp_index(&comp[0], "cpu", CPUIDLE_MAX_CPUS, &cpu))
		return -ENOENT;
	dev = cpu < sys->devices_cap ? sys->devices[cpu] : NULL;
	if (!dev)
		return -ENOENT;
	if (n == 1)
		return -EISDIR;
	if (comp_is(&comp[1], "power")) {
		if (n == 2)
			return -EISDIR;
		if (n > 3 || slash || !comp_is(&comp[2], RESUME_LATENCY_FILE))
			return -ENOENT;
		ref->resume = true;
		ref->dev = dev;
		return 0;
	}
	if (!comp_is(&comp[1], "cpuidle"))
		return -ENOENT;
	if (n == 2)
		return -EISDIR;
	if (!comp_index(&comp[2], "state", (unsigned long)dev->state_count, &index))
		return -ENOENT;
	if (n == 3)
		return -EISDIR;
	if (slash)
		return -ENOENT;
	for (i = 0; i < ARRAY_SIZE(state_attrs); i++) {
		if (comp_is(&comp[3], state_attrs[i].name)) {
			ref->sattr = &state_attrs[i];
			ref->dev = dev;
			ref->index = (int)index;
			return 0;
		}
	}
	return -ENOENT;
}

/* Format the file @ref into @page.  System lock held. */
static int attr_show(struct cpuidle_system *sys, const struct attr_ref *ref, char *page)
{
	if (ref->gattr)
		return ref->gattr->show(sys, page);
	if (ref->mgov)
		return show_module_param(sys, ref->mgov, ref->mparam, page);
	if (ref->resume)
		return show_resume_latency(ref->dev, page);
	return ref->sattr->show(&ref->dev->states[ref->index], &ref->dev->states_usage[ref->index],
				page);
}

/* ---------------------------------------------------------------- API */

ssize_t cpuidle_attr_read(struct cpuidle_system *sys, const char *path, char *buf,
			  size_t size)
{
	char page[ATTR_PAGE_SIZE];
	struct attr_ref ref;
	bool locked;
	int ret, len = 0;

	if (!sys || !path || !buf)
		return -EINVAL;
	locked = cpuidle_sys_lock(sys);
	ret = attr_lookup(sys, path, &ref);
	if (!ret)
		len = attr_show(sys, &ref, page);
	cpuidle_sys_unlock(sys, locked);
	if (ret)
		return ret;
	if ((size_t)len >= size)
		return -ENOSPC;
	memcpy(buf, page, (size_t)len + 1);
	return len;
}

int cpuidle_attr_write(struct cpuidle_system *sys, const char *path, const char *value)
{
	struct attr_ref ref;
	bool locked;
	int ret;

	if (!sys || !path || !value)
		return -EINVAL;
	locked = cpuidle_sys_lock(sys);
	ret = attr_lookup(sys, path, &ref);
	cpuidle_sys_unlock(sys, locked);
	if (ret)
		return ret;
	if (ref.gattr)
		return ref.gattr->store ? ref.gattr->store(sys, value) : -EACCES;
	if (ref.mgov)
		return store_module_param(sys, ref.mgov, ref.mparam, value);
	/*
	 * The device may go away once the lock is dropped;
	 * cpuidle_disable_state() and cpuidle_set_resume_latency() then
	 * report -ENOENT.
	 */
	if (ref.resume)
		return store_resume_latency(ref.dev, value);
	return ref.sattr->store ? ref.sattr->store(ref.dev, ref.index, value) : -EACCES;
}

/**
 * struct walk_pos - where cpuidle_attr_walk() is among the state files
 * @cpu: the CPU number; the next registered one at or above it is visited
 * @state: the state index
 * @file: the index in state_attrs[]
 */
struct walk_pos {
	unsigned int cpu;
	int state;
	size_t file;
};

/*
 * Fill @path and @page with the state file at @pos, or at the first file
 * after it that exists, moving @pos there.  Returns false at the end.
 * The position survives devices coming and going between two calls.
 */
static bool walk_state_file(struct cpuidle_system *sys, struct walk_pos *pos,
			    char *path, char *page, bool *writable)
{
	const struct cpuidle_state_attr *a;
	struct cpuidle_device *dev;
	bool locked, found = false;

	locked = cpuidle_sys_lock(sys);
	for (; pos->cpu < sys->devices_cap; pos->cpu++, pos->state = 0, pos->file = 0) {
		dev = sys->devices[pos->cpu];
		if (!dev || pos->state >= dev->state_count)
			continue;
		a = &state_attrs[pos->file];
		snprintf(path, ATTR_PATH_MAX, "cpu%u/cpuidle/state%d/%s", pos->cpu,
			 pos->state, a->name);
		a->show(&dev->states[pos->state], &dev->states_usage[pos->state], page);
		*writable = a->store != NULL;
		found = true;
		break;
	}
	cpuidle_sys_unlock(sys, locked);
	return found;
}

int cpuidle_attr_walk(struct cpuidle_system *sys, cpuidle_attr_visit_fn fn, void *arg)
{
	char path[ATTR_PATH_MAX], page[ATTR_PAGE_SIZE];
	struct walk_pos pos = { 0, 0, 0 };
	bool locked, writable;
	unsigned int cpu, g, mp = 0;
	size_t i;
	int ret;

	if (!sys || !fn)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(global_attrs); i++) {
		locked = cpuidle_sys_lock(sys);
		global_attrs[i].show(sys, page);
		cpuidle_sys_unlock(sys, locked);
		snprintf(path, sizeof(path), "cpuidle/%s", global_attrs[i].name);
		ret = fn(path, page, global_attrs[i].store != NULL, arg);
		if (ret)
			return ret;
	}
	while (walk_state_file(sys, &pos, path, page, &writable)) {
		ret = fn(path, page, writable, arg);
		if (ret)
			return ret;
		if (++pos.file == ARRAY_SIZE(state_attrs)) {
			pos.file = 0;
			pos.state++;
		}
	}
	for (cpu = 0; ; cpu++) {	/* each CPU's power/ file; devices may come and go */
		bool found = false;

		locked = cpuidle_sys_lock(sys);
		for (; cpu < sys->devices_cap; cpu++) {
			if (sys->devices[cpu]) {
				show_resume_latency(sys->devices[cpu], page);
				found = true;
				break;
			}
		}
		cpuidle_sys_unlock(sys, locked);
		if (!found)
			break;
		snprintf(path, sizeof(path), "cpu%u/power/" RESUME_LATENCY_FILE, cpu);
		ret = fn(path, page, true, arg);
		if (ret)
			return ret;
	}
	/* each registered governor's tunables; governors may come and go */
	for (g = 0, mp = 0;; mp++) {
		const struct cpuidle_governor *gov = NULL;
		bool found = false;

		locked = cpuidle_sys_lock(sys);
		for (; (int)g < sys->nr_governors; g++, mp = 0) {
			gov = sys->governors[g];
			if (mp < gov->nr_params) {
				show_module_param(sys, gov, &gov->params[mp], page);
				found = true;
				break;
			}
		}
		cpuidle_sys_unlock(sys, locked);
		if (!found)
			break;
		snprintf(path, sizeof(path), "module/%s/parameters/%s", gov->name,
			 gov->params[mp].name);
		ret = fn(path, page, true, arg);
		if (ret)
			return ret;
	}
	return 0;
}
