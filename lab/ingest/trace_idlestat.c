// SPDX-License-Identifier: MIT
/*
 * trace_idlestat.c - the header of idlestat's trace files (idlestat 0.8,
 * "idlestat --trace -f FILE"), before the ftrace text it copied:
 *
 *	idlestat version = 0.8
 *	cpus=2
 *	clusterA:			the topology (trace_info.cluster_of)
 *		core0
 *			cpu0		(or "\tcpu0" without core lines)
 *	...
 *	cpuid 0:
 *		POLL			a state's name
 *		0			its target residency, us
 *		haltpoll		"haltpoll idle", see below
 *		1
 *		(null)			unused slots, up to idlestat's 16
 *		-1
 *	cpuid 1:
 *	...
 *	          <idle>-0       [000] d..1.  3125.477852: cpu_idle: state=1 cpu_id=0
 *
 * The haltpoll driver's second state is named "haltpoll idle".  idlestat
 * reads the name from sysfs and cuts it at the first space (strtok() on
 * "\n "), so its header says "haltpoll"; the "1" on the next line is that
 * state's target residency (1 us), not the lost word.  What is not in the
 * file cannot be restored, so trace_info() gives the names exactly as the
 * header has them: "POLL", "haltpoll".  Each name is read as a whole line,
 * so a header that does keep the space ("haltpoll idle") is read in full.
 * "(null)" slots are not states; names come from CPU 0's list.
 */
#include <errno.h>
#include <string.h>

#include "trace_internal.h"

static int next_line(struct trace_reader *r, char **line, size_t *len)
{
	int ret;

	ret = trace_src_line(&r->src, line, len);
	if (ret < 0)
		return trace_src_fail(r, ret);
	return ret;
}

static char *trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

static bool only_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return !*s;
}

/* "-1" or "N", alone */
static bool is_residency(const char *s)
{
	uint64_t v;

	if (*s == '-')
		s++;
	return !trace_parse_u64(&s, s + strlen(s), &v) && !*s;
}

static int header_fail(struct trace_reader *r, int err, const char *what)
{
	return trace_fail(r, err, r->src.lineno, "idlestat header: %s", what);
}

/**
 * trace_idlestat_header() - read the header after its "idlestat version" line
 * @r: the reader, its first line just read
 *
 * Fills r->info; the first event line is left in r->pending.
 *
 * Return: 0, or a negative errno with the reader's error set.
 */
int trace_idlestat_header(struct trace_reader *r)
{
	struct trace_info *info = &r->info;
	char name[sizeof(info->state_names[0])];
	struct trace_head h;
	const char *p;
	char *line, *t;
	uint64_t v, name_line;
	size_t len;
	int64_t cpu = -1;
	int cluster = -1;	/* the topology's, being read */
	int ret;

	ret = next_line(r, &line, &len);
	if (ret < 0)
		return ret;
	if (!ret || strncmp(line, "cpus=", 5))
		return header_fail(r, -EINVAL, "no \"cpus=N\" line after the version");
	p = line + 5;
	ret = trace_parse_u64(&p, line + len, &v);
	if (ret == -EINVAL || (!ret && !only_space(p)))
		return header_fail(r, -EINVAL, "cannot parse \"cpus=N\"");
	if (ret || !v || v > TRACE_MAX_CPUS)
		return header_fail(r, -ERANGE, "cpus= out of range");
	info->nr_cpus = (unsigned int)v;
	memset(info->cluster_of, -1, sizeof(info->cluster_of));

	for (;;) {
		ret = next_line(r, &line, &len);
		if (ret <= 0)
			return ret;	/* a header and no events is a trace */
		if (trace_split_line(line, len, &h) != LINE_NONE) {
			r->pending = line;
			r->pending_len = len;
			return 0;
		}
		t = trim(line);
		if (!strncmp(t, "cpuid ", 6)) {
			p = t + 6;
			ret = trace_parse_u64(&p, p + strlen(p), &v);
			if (ret == -EINVAL || (!ret && strcmp(p, ":")))
				return header_fail(r, -EINVAL, "cannot parse \"cpuid N:\"");
			if (ret || v >= info->nr_cpus)
				return header_fail(r, -ERANGE, "cpuid beyond cpus=");
			cpu = (int64_t)v;
			continue;
		}
		if (cpu < 0 && !strncmp(t, "cluster", 7) && t[7] >= 'A' && t[7] <= 'Z' &&
		    !strcmp(t + 8, ":")) {
			cluster = t[7] - 'A';
			if (cluster + 1 > info->nr_clusters)
				info->nr_clusters = cluster + 1;
			continue;
		}
		if (cpu < 0 && cluster >= 0 && !strncmp(t, "cpu", 3)) {
			p = t + 3;
			ret = trace_parse_u64(&p, p + strlen(p), &v);
			if (ret || *p || v >= info->nr_cpus)
				return header_fail(r, -EINVAL, "a topology line names no CPU of "
						   "cpus=");
			info->cluster_of[v] = (int8_t)cluster;
			continue;
		}
		if (cpu < 0 || !*t)
			continue;	/* the topology's cores, or a blank line */

		/* a state's name; its target residency follows */
		len = strlen(t);
		if (len >= sizeof(name))
			len = sizeof(name) - 1;	/* names are for display */
		memcpy(name, t, len);
		name[len] = '\0';
		name_line = r->src.lineno;
		ret = next_line(r, &line, &len);
		if (ret < 0)
			return ret;
		if (!ret || !is_residency(trim(line)))
			return trace_fail(r, -EINVAL, name_line + 1,
					  "idlestat header: no target residency after state \"%s\"",
					  name);
		if (cpu != 0 || !strcmp(name, "(null)"))
			continue;
		if (info->nr_states == TRACE_MAX_STATES)
			return trace_fail(r, -ERANGE, name_line,
					  "idlestat header: more than %d states", TRACE_MAX_STATES);
		memcpy(info->state_names[info->nr_states++], name, sizeof(name));
	}
}
