// SPDX-License-Identifier: MIT
/*
 * platform_parse.c - the platform file's grammar (its format: platform.c):
 * header lines, cluster and state lines with their keys, and the checks
 * once the file is read; cpuidle_platform_parse().
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform_internal.h"

enum state_key {
	KEY_DESC,
	KEY_LATENCY,
	KEY_RESIDENCY,
	KEY_POWER,
	KEY_MODEL_POWER,
	KEY_ENTRY_ENERGY,
	KEY_EXIT_ENERGY,
	KEY_CLUSTER_POWER,
	KEY_FLAGS,
	NR_STATE_KEYS
};

static const struct {
	const char *name;
	enum state_key key;
	int64_t unit_ns;	/* times only */
} state_keys[] = {
	{ "desc",		KEY_DESC,		0 },
	{ "latency_us",		KEY_LATENCY,		CPUIDLE_NSEC_PER_USEC },
	{ "latency_ns",		KEY_LATENCY,		1 },
	{ "residency_us",	KEY_RESIDENCY,		CPUIDLE_NSEC_PER_USEC },
	{ "residency_ns",	KEY_RESIDENCY,		1 },
	{ "power_mw",		KEY_POWER,		0 },
	{ "model_power_mw",	KEY_MODEL_POWER,	0 },
	{ "entry_energy_uj",	KEY_ENTRY_ENERGY,	0 },
	{ "exit_energy_uj",	KEY_EXIT_ENERGY,	0 },
	{ "cluster_power_mw",	KEY_CLUSTER_POWER,	0 },
	{ "flags",		KEY_FLAGS,		0 },
};

#define NR_KEY_NAMES	(sizeof(state_keys) / sizeof(state_keys[0]))
#define STATE_KEY_LIST	"desc, latency_us, latency_ns, residency_us, residency_ns, " \
			"power_mw, model_power_mw, entry_energy_uj, exit_energy_uj, " \
			"cluster_power_mw, flags"

/* One KEY=VALUE of a state line, at c->pos. */
static int parse_state_key(struct parser *ps, struct cursor *c, const char *owner,
			   struct cpuidle_platform_state *s, const char *seen[NR_STATE_KEYS])
{
	struct token key, val;
	struct snippet sn;
	const char *name;
	size_t k;
	int ret;

	ret = plat_read_key(ps, c, owner, &key);
	if (ret)
		return ret;
	for (k = 0; k < NR_KEY_NAMES; k++)
		if (plat_tok_is(&key, state_keys[k].name))
			break;
	if (k == NR_KEY_NAMES)
		return plat_fail(ps, "%s: unknown key '%s' (known: " STATE_KEY_LIST ")", owner,
			    plat_show_tok(&sn, &key));
	name = state_keys[k].name;
	ret = plat_check_once(ps, owner, &seen[state_keys[k].key], name);
	if (!ret)
		ret = plat_read_key_value(ps, c, owner, name, &val);
	if (ret)
		return ret;

	switch (state_keys[k].key) {
	case KEY_DESC:
		return plat_copy_string(ps, &val, s->desc, sizeof(s->desc), "state desc", true);
	case KEY_LATENCY:
		return plat_parse_time(ps, &val, name, state_keys[k].unit_ns, &s->exit_latency_ns);
	case KEY_RESIDENCY:
		return plat_parse_time(ps, &val, name, state_keys[k].unit_ns,
				  &s->target_residency_ns);
	case KEY_POWER:
		return plat_parse_power(ps, &val, name, true, &s->power_mw);
	case KEY_MODEL_POWER:
		return plat_parse_power(ps, &val, name, true, &s->model_power_mw);
	case KEY_ENTRY_ENERGY:
		return plat_parse_energy(ps, &val, name, &s->entry_energy_nj);
	case KEY_EXIT_ENERGY:
		return plat_parse_energy(ps, &val, name, &s->exit_energy_nj);
	case KEY_CLUSTER_POWER:
		return plat_parse_power(ps, &val, name, false, &s->cluster_power_mw);
	case KEY_FLAGS:
		return plat_parse_flags(ps, &val, &s->flags);
	default:
		return -EINVAL;
	}
}

/* The table the next state line joins: the last cluster's, or the top level's. */
static struct cpuidle_platform_cluster *current_table(struct parser *ps)
{
	struct cpuidle_platform *p = ps->p;

	return &p->clusters[p->nr_clusters ? p->nr_clusters - 1 : 0];
}

/* "state NAME KEY=VALUE...", the keyword already read. */
static int parse_state(struct parser *ps, struct cursor *c)
{
	const char *seen[NR_STATE_KEYS] = { NULL };
	struct cpuidle_platform *p = ps->p;
	struct cpuidle_platform_cluster *cl = current_table(ps);
	struct cpuidle_platform_state *s, *prev;
	char a[32], b[32], owner[OWNER_LEN];
	struct token name;
	int i, ret;

	if (cl->state_count == CPUIDLE_STATE_MAX) {
		if (p->nr_clusters)
			return plat_fail(ps, "cluster '%s': more than %d states", cl->name,
				    CPUIDLE_STATE_MAX);
		return plat_fail(ps, "more than %d states", CPUIDLE_STATE_MAX);
	}
	if (!p->nr_clusters && !ps->toplevel_line)
		ps->toplevel_line = ps->line;
	s = &cl->states[cl->state_count];
	memset(s, 0, sizeof(*s));
	s->power_mw = CPUIDLE_POWER_UNKNOWN;
	s->cluster_power_mw = CPUIDLE_POWER_UNKNOWN;

	if (plat_at_eol(c))
		return plat_fail(ps, "state without a name");
	ret = plat_read_value(ps, c, &name, "state name");
	if (ret)
		return ret;
	ret = plat_copy_string(ps, &name, s->name, sizeof(s->name), "state name", false);
	if (ret)
		return ret;
	for (i = 0; i < cl->state_count; i++)
		if (!strcmp(cl->states[i].name, s->name))
			return plat_fail(ps, "state '%s' given twice (state %d has that name)",
				    s->name, i);
	snprintf(owner, sizeof(owner), "state '%s'", s->name);

	while (!plat_at_eol(c)) {
		ret = parse_state_key(ps, c, owner, s, seen);
		if (ret)
			return ret;
	}
	if (!seen[KEY_LATENCY])
		return plat_fail(ps, "state '%s': missing latency_us= (or latency_ns=)", s->name);
	if (!seen[KEY_RESIDENCY])
		return plat_fail(ps, "state '%s': missing residency_us= (or residency_ns=)", s->name);
	if (!seen[KEY_MODEL_POWER])
		s->model_power_mw = s->power_mw;

	/* Index order is depth order: the governors and the core rely on it. */
	if (cl->state_count > 0) {
		prev = s - 1;
		if (s->exit_latency_ns < prev->exit_latency_ns)
			return plat_fail(ps, "state '%s': exit latency %s is below that of the "
				    "previous state '%s' (%s); list states shallowest first",
				    s->name, plat_show_time(a, sizeof(a), s->exit_latency_ns),
				    prev->name, plat_show_time(b, sizeof(b), prev->exit_latency_ns));
		if (s->target_residency_ns < prev->target_residency_ns)
			return plat_fail(ps, "state '%s': target residency %s is below that of the "
				    "previous state '%s' (%s); list states shallowest first",
				    s->name, plat_show_time(a, sizeof(a), s->target_residency_ns),
				    prev->name,
				    plat_show_time(b, sizeof(b), prev->target_residency_ns));
		/* A domain request falls back to the deepest ordinary state. */
		if (!cpuidle_platform_state_is_domain(s) &&
		    cpuidle_platform_state_is_domain(prev))
			return plat_fail(ps, "state '%s': an ordinary state after the domain state "
				    "'%s'; domain states (cluster_power_mw=) must be the "
				    "deepest", s->name, prev->name);
	} else if (s->flags & CPUIDLE_FLAG_CHECK_BM) {
		return plat_fail(ps, "state '%s': check-bm on the first state leaves no state "
			    "safe to enter during bus-master activity", s->name);
	} else if (cpuidle_platform_state_is_domain(s)) {
		return plat_fail(ps, "state '%s': cluster_power_mw= on the first state leaves no "
			    "ordinary state to fall back on while the cluster is not all "
			    "idle", s->name);
	}
	cl->state_count++;
	return 0;
}

enum cluster_key {
	CKEY_CPUS,
	CKEY_ACTIVE,
	CKEY_IDLE,
	NR_CLUSTER_KEYS
};

static const struct {
	const char *name;
	enum cluster_key key;
} cluster_keys[] = {
	{ "cpus",		CKEY_CPUS },
	{ "active_power_mw",	CKEY_ACTIVE },
	{ "idle_power_mw",	CKEY_IDLE },
};

#define NR_CLUSTER_KEY_NAMES	(sizeof(cluster_keys) / sizeof(cluster_keys[0]))

/* One KEY=VALUE of a cluster line, at c->pos. */
static int parse_cluster_key(struct parser *ps, struct cursor *c, const char *owner,
			     struct cpuidle_platform_cluster *cl,
			     const char *seen[NR_CLUSTER_KEYS])
{
	struct token key, val;
	struct snippet sn;
	const char *name;
	size_t k;
	int ret;

	ret = plat_read_key(ps, c, owner, &key);
	if (ret)
		return ret;
	for (k = 0; k < NR_CLUSTER_KEY_NAMES; k++)
		if (plat_tok_is(&key, cluster_keys[k].name))
			break;
	if (k == NR_CLUSTER_KEY_NAMES)
		return plat_fail(ps, "%s: unknown key '%s' (known: cpus, active_power_mw, "
			    "idle_power_mw)", owner, plat_show_tok(&sn, &key));
	name = cluster_keys[k].name;
	ret = plat_check_once(ps, owner, &seen[cluster_keys[k].key], name);
	if (!ret)
		ret = plat_read_key_value(ps, c, owner, name, &val);
	if (ret)
		return ret;

	switch (cluster_keys[k].key) {
	case CKEY_CPUS:
		return plat_parse_cpulist(ps, &val, owner, cl);
	case CKEY_ACTIVE:
		return plat_parse_power(ps, &val, name, false, &cl->active_power_mw);
	case CKEY_IDLE:
		return plat_parse_power(ps, &val, name, false, &cl->idle_power_mw);
	default:
		return -EINVAL;
	}
}

/* "cluster NAME KEY=VALUE...", the keyword already read. */
static int parse_cluster(struct parser *ps, struct cursor *c)
{
	const char *seen[NR_CLUSTER_KEYS] = { NULL };
	struct cpuidle_platform *p = ps->p;
	struct cpuidle_platform_cluster *cl, *other;
	char owner[OWNER_LEN];
	struct token name;
	unsigned int w;
	int i, ret;

	if (p->nr_clusters == CPUIDLE_PLATFORM_MAX_CLUSTERS)
		return plat_fail(ps, "more than %d clusters", CPUIDLE_PLATFORM_MAX_CLUSTERS);
	cl = &p->clusters[p->nr_clusters];
	if (ps->toplevel_line)
		return plat_fail(ps, "cluster line after states that belong to no cluster (line "
			    "%u): with clusters, every state follows its cluster line",
			    ps->toplevel_line);
	memset(cl, 0, sizeof(*cl));
	cl->active_power_mw = CPUIDLE_POWER_UNKNOWN;

	if (plat_at_eol(c))
		return plat_fail(ps, "cluster without a name");
	ret = plat_read_value(ps, c, &name, "cluster name");
	if (ret)
		return ret;
	ret = plat_copy_string(ps, &name, cl->name, sizeof(cl->name), "cluster name", false);
	if (ret)
		return ret;
	for (i = 0; i < p->nr_clusters; i++)
		if (!strcmp(p->clusters[i].name, cl->name))
			return plat_fail(ps, "cluster '%s' given twice (the first is line %u)",
				    cl->name, ps->cluster_line[i]);
	snprintf(owner, sizeof(owner), "cluster '%s'", cl->name);

	while (!plat_at_eol(c)) {
		ret = parse_cluster_key(ps, c, owner, cl, seen);
		if (ret)
			return ret;
	}
	if (!seen[CKEY_CPUS])
		return plat_fail(ps, "%s: missing cpus=", owner);
	for (i = 0; i < p->nr_clusters; i++) {
		other = &p->clusters[i];
		for (w = 0; w < CPUIDLE_PLATFORM_CPUMASK_WORDS; w++) {
			uint64_t both = cl->cpumask[w] & other->cpumask[w];

			if (both)
				return plat_fail(ps, "%s: CPU %u is already in cluster '%s' (line %u)",
					    owner, w * 64 + (unsigned int)__builtin_ctzll(both),
					    other->name, ps->cluster_line[i]);
		}
	}
	ps->cluster_line[p->nr_clusters] = ps->line;
	ps->cluster_active[p->nr_clusters] = seen[CKEY_ACTIVE] != NULL;
	p->nr_clusters++;
	return 0;
}

/* The single argument of a header line, then the end of the line. */
static int header_value(struct parser *ps, struct cursor *c, struct token *t,
			const char *keyword, const char *what)
{
	int ret;

	if (plat_at_eol(c))
		return plat_fail(ps, "%s without %s", keyword, what);
	ret = plat_read_value(ps, c, t, what);
	if (ret)
		return ret;
	if (!plat_at_eol(c))
		return plat_fail(ps, "junk after %s (quote a value that has blanks)", what);
	return 0;
}

/* Whether this header line was already given (and fail if so). */
static int once(struct parser *ps, unsigned int *line, const char *keyword)
{
	if (*line)
		return plat_fail(ps, "second '%s' line (the first is line %u)", keyword, *line);
	*line = ps->line;
	return 0;
}

/* Reject NUL and control bytes anywhere in the line. */
static int check_bytes(struct parser *ps, const char *s, const char *end)
{
	const char *q;

	for (q = s; q < end; q++) {
		unsigned char c = (unsigned char)*q;

		if (!c)
			return plat_fail(ps, "NUL byte at column %zu", (size_t)(q - s) + 1);
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return plat_fail(ps, "control character 0x%02x at column %zu", c,
				    (size_t)(q - s) + 1);
	}
	return 0;
}

/* One line, [s, end) without its '\n'. */
static int parse_line(struct parser *ps, const char *s, const char *end)
{
	struct cpuidle_platform *p = ps->p;
	struct cursor c = { .pos = s, .end = end };
	struct token kw, val;
	struct snippet sn;
	uint64_t v;
	int ret;

	if (end > s && end[-1] == '\r')
		c.end = --end;
	ret = check_bytes(ps, s, end);
	if (ret)
		return ret;
	if (plat_at_eol(&c))
		return 0;

	kw.s = c.pos;
	kw.quoted = false;
	while (!plat_ends_word(&c))
		c.pos++;
	kw.n = (size_t)(c.pos - kw.s);

	if (!ps->platform_line && !plat_tok_is(&kw, "platform"))
		return plat_fail(ps, "expected 'platform NAME' first, got '%s'", plat_show_tok(&sn, &kw));

	if (plat_tok_is(&kw, "platform")) {
		ret = once(ps, &ps->platform_line, "platform");
		if (!ret)
			ret = header_value(ps, &c, &val, "platform", "platform name");
		if (!ret)
			ret = plat_copy_string(ps, &val, p->name, sizeof(p->name), "platform name",
					  false);
		return ret;
	}
	if (plat_tok_is(&kw, "desc")) {
		ret = once(ps, &ps->desc_line, "desc");
		if (!ret)
			ret = header_value(ps, &c, &val, "desc", "platform desc");
		if (!ret)
			ret = plat_copy_string(ps, &val, p->desc, sizeof(p->desc), "platform desc",
					  true);
		return ret;
	}
	if (plat_tok_is(&kw, "tick_hz")) {
		ret = once(ps, &ps->tick_line, "tick_hz");
		if (!ret)
			ret = header_value(ps, &c, &val, "tick_hz", "tick rate");
		if (!ret)
			ret = plat_parse_uint(ps, &val, "tick_hz", PLATFORM_MAX_TICK_HZ, &v);
		if (!ret && !v)
			ret = plat_fail(ps, "tick_hz: must be 1 to %d", PLATFORM_MAX_TICK_HZ);
		if (!ret)
			p->tick_hz = (unsigned int)v;
		return ret;
	}
	if (plat_tok_is(&kw, "cpus")) {
		ret = once(ps, &ps->cpus_line, "cpus");
		if (!ret)
			ret = header_value(ps, &c, &val, "cpus", "number of CPUs");
		if (!ret)
			ret = plat_parse_uint(ps, &val, "cpus", CPUIDLE_MAX_CPUS, &v);
		if (!ret && !v)
			ret = plat_fail(ps, "cpus: must be 1 to %d (leave the line out for any "
				   "number)", CPUIDLE_MAX_CPUS);
		if (!ret)
			p->nr_cpus = (unsigned int)v;
		return ret;
	}
	if (plat_tok_is(&kw, "active_power_mw")) {
		ret = once(ps, &ps->active_line, "active_power_mw");
		if (!ret)
			ret = header_value(ps, &c, &val, "active_power_mw", "active power");
		if (!ret)
			ret = plat_parse_power(ps, &val, "active_power_mw", true, &p->active_power_mw);
		return ret;
	}
	if (plat_tok_is(&kw, "cluster"))
		return parse_cluster(ps, &c);
	if (plat_tok_is(&kw, "state"))
		return parse_state(ps, &c);
	return plat_fail(ps, "unknown keyword '%s' (known: platform, desc, tick_hz, cpus, "
		    "active_power_mw, cluster, state)", plat_show_tok(&sn, &kw));
}

/*
 * After the last line: the implicit cluster, or the checks that need every
 * cluster and the cpus line; then the top-level copy of cluster 0's table.
 */
static int finish(struct parser *ps)
{
	struct cpuidle_platform *p = ps->p;
	struct cpuidle_platform_cluster *cl;
	uint64_t all[CPUIDLE_PLATFORM_CPUMASK_WORDS] = { 0 };
	unsigned int cpu, last = 0, w;
	int i;

	if (!p->nr_clusters) {
		cl = &p->clusters[0];
		if (!cl->state_count) {
			ps->line = ps->platform_line;
			return plat_fail(ps, "platform '%s' has no 'state' line", p->name);
		}
		strcpy(cl->name, "all");
		cl->nr_cpus = p->nr_cpus;
		if (p->nr_cpus)
			for (cpu = 0; cpu < p->nr_cpus; cpu++)
				plat_cpumask_set(cl->cpumask, cpu);
		else
			memset(cl->cpumask, 0xff, sizeof(cl->cpumask));
		cl->active_power_mw = p->active_power_mw;
		p->nr_clusters = 1;
	} else {
		for (i = 0; i < p->nr_clusters; i++) {
			cl = &p->clusters[i];
			if (!cl->state_count) {
				ps->line = ps->cluster_line[i];
				return plat_fail(ps, "cluster '%s' has no 'state' line", cl->name);
			}
			if (p->nr_cpus && plat_cluster_last_cpu(cl) >= p->nr_cpus) {
				ps->line = ps->cluster_line[i];
				return plat_fail(ps, "cluster '%s': CPU %u, but the platform has %u "
					    "CPUs (cpus, line %u)", cl->name,
					    plat_cluster_last_cpu(cl), p->nr_cpus, ps->cpus_line);
			}
			if (plat_cluster_last_cpu(cl) > last)
				last = plat_cluster_last_cpu(cl);
			for (w = 0; w < CPUIDLE_PLATFORM_CPUMASK_WORDS; w++)
				all[w] |= cl->cpumask[w];
			if (!ps->cluster_active[i])
				cl->active_power_mw = p->active_power_mw;
		}
		for (cpu = 0; cpu < (p->nr_cpus ? p->nr_cpus : last + 1); cpu++) {
			if ((all[cpu / 64] >> (cpu % 64)) & 1)
				continue;
			if (p->nr_cpus) {
				ps->line = ps->cpus_line;
				return plat_fail(ps, "CPU %u is in no cluster (every CPU below cpus "
					    "%u must be in one)", cpu, p->nr_cpus);
			}
			ps->line = ps->cluster_line[0];
			return plat_fail(ps, "CPU %u is in no cluster (without a 'cpus' line the "
				    "clusters must cover CPUs 0 to %u, their highest)", cpu, last);
		}
		if (!p->nr_cpus)
			p->nr_cpus = last + 1;
	}
	p->state_count = p->clusters[0].state_count;
	memcpy(p->states, p->clusters[0].states, sizeof(p->states));
	return 0;
}

int cpuidle_platform_parse(const char *text, size_t len, const char *filename,
			   struct cpuidle_platform *out, char *err, size_t errlen)
{
	struct cpuidle_platform pf;
	struct parser ps = {
		.file = filename,
		.err = err,
		.errlen = errlen,
		.p = &pf,
	};
	const char *pos = text, *end, *nl;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!text || !filename || !out) {
		if (err && errlen)
			snprintf(err, errlen, "%s: invalid argument",
				 filename ? filename : "(null)");
		errno = EINVAL;
		return -EINVAL;
	}
	if (len > CPUIDLE_PLATFORM_MAX_FILE) {
		if (err && errlen)
			snprintf(err, errlen, "%s: larger than %d bytes", filename,
				 CPUIDLE_PLATFORM_MAX_FILE);
		errno = EFBIG;
		return -EFBIG;
	}

	memset(&pf, 0, sizeof(pf));
	pf.active_power_mw = CPUIDLE_POWER_UNKNOWN;
	end = text + len;
	while (pos < end) {
		nl = memchr(pos, '\n', (size_t)(end - pos));
		ps.line++;
		ret = parse_line(&ps, pos, nl ? nl : end);
		if (ret)
			goto out;
		pos = nl ? nl + 1 : end;
	}
	if (!ps.platform_line) {
		if (!ps.line)
			ps.line = 1;
		ret = plat_fail(&ps, "no 'platform NAME' line");
		goto out;
	}
	ret = finish(&ps);
	if (ret)
		goto out;
	/* memcpy, not assignment: padding too, so equal files give equal bytes */
	memcpy(out, &pf, sizeof(pf));
	return 0;
out:
	errno = -ret;
	return ret;
}

int cpuidle_platform_cluster_of(const struct cpuidle_platform *platform, unsigned int cpu)
{
	int i;

	if (!platform) {
		errno = EINVAL;
		return -EINVAL;
	}
	if (cpu < CPUIDLE_MAX_CPUS && (!platform->nr_cpus || cpu < platform->nr_cpus))
		for (i = 0; i < platform->nr_clusters && i < CPUIDLE_PLATFORM_MAX_CLUSTERS; i++)
			if (cpuidle_platform_cluster_has_cpu(&platform->clusters[i], cpu))
				return i;
	errno = ENOENT;
	return -ENOENT;
}
