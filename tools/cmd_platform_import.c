// SPDX-License-Identifier: MIT
/*
 * cmd_platform_import.c - "cpuidle platform import": a platform file made
 * from LISA's description of a board (plat_info.yml)
 */

/**
 * DOC: platform import
 *
 * LISA (ARM-software/lisa) keeps, beside each trace it records, a
 * plat_info.yml: the target's CPU count, frequency domains, CPU capacities,
 * kernel version and energy model (per CPU: the power at each frequency
 * and the name and power of each idle state).  It does not hold the idle
 * states' exit latencies and target residencies (those are the device
 * tree's), so an import takes them, by state name, from a platform given
 * with --states-from; the board's own file wins for everything it says:
 *
 * - cpus: conf/cpus-count;
 * - one cluster per frequency domain (conf/freq-domains), named big and
 *   LITTLE when two domains differ in capacity (conf/cpu-capacities),
 *   else domain0, domain1...; listed largest capacity first;
 * - a cluster's active_power_mw: the energy model's power of its first
 *   CPU at that CPU's highest frequency;
 * - a cluster's states: the names its first CPU's energy model node lists,
 *   in that order; a state's model_power_mw the energy model's idle power,
 *   unless the model gives 0 for every idle state of every CPU (EAS
 *   models running CPUs only), in which case the powers of --states-from
 *   are kept and the file says so;
 * - the rest of each state (latency, residency, flags, entry and exit
 *   energies, sysfs power, domain power), the cluster's shared power and
 *   the tick rate: --states-from's, from its cluster of the same
 *   name, else the one that holds the same first CPU, else its first
 *   cluster with a state of that name.
 *
 * The YAML is read with libyaml into a document (its anchors and aliases
 * resolved to shared nodes), whose nodes are looked at without following
 * references; the nesting is checked first, on the event stream, since
 * libyaml's loader recurses once per level.  The result is parsed back
 * by cpuidle_platform_parse() before a byte is written.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "cli.h"
#include "libcpuidle.h"
#include "lazy_lib.h"

/*
 * libyaml, loaded by the first import (lazy_lib.h): linked, it took 40 us
 * of every command's start
 */
static struct {
	__typeof__(yaml_document_get_node) *yaml_document_get_node;
	__typeof__(yaml_parser_initialize) *yaml_parser_initialize;
	__typeof__(yaml_parser_set_input_file) *yaml_parser_set_input_file;
	__typeof__(yaml_parser_parse) *yaml_parser_parse;
	__typeof__(yaml_event_delete) *yaml_event_delete;
	__typeof__(yaml_parser_delete) *yaml_parser_delete;
	__typeof__(yaml_parser_load) *yaml_parser_load;
	__typeof__(yaml_document_get_root_node) *yaml_document_get_root_node;
	__typeof__(yaml_document_delete) *yaml_document_delete;
} yl;
static const struct lazy_sym yl_syms[] = {
	LAZY_SYM(yl, yaml_document_get_node),
	LAZY_SYM(yl, yaml_parser_initialize),
	LAZY_SYM(yl, yaml_parser_set_input_file),
	LAZY_SYM(yl, yaml_parser_parse),
	LAZY_SYM(yl, yaml_event_delete),
	LAZY_SYM(yl, yaml_parser_delete),
	LAZY_SYM(yl, yaml_parser_load),
	LAZY_SYM(yl, yaml_document_get_root_node),
	LAZY_SYM(yl, yaml_document_delete),
};
static struct lazy_lib yl_loader = LAZY_LIB("libyaml-0.so.2", "libyaml-0-2", yl_syms, &yl);

/* deeper than LISA's files (12 levels) by far; libyaml's loader recurses per level */
#define IMPORT_MAX_DEPTH	64
/* a plat_info.yml is ~15 KB; a file this large is something else */
#define IMPORT_MAX_BYTES	(16 << 20)

struct import {
	const char *path;
	yaml_document_t doc;
	char err[512];
	int err_line;		/* 1-based, 0: none */
};

__attribute__((format(printf, 3, 4)))
static int import_fail(struct import *im, const yaml_node_t *at, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(im->err, sizeof(im->err), fmt, ap);
	va_end(ap);
	im->err_line = at ? (int)at->start_mark.line + 1 : 0;
	return -EINVAL;
}

static yaml_node_t *node(struct import *im, int index)
{
	return yl.yaml_document_get_node(&im->doc, index);
}

static bool is_scalar(const yaml_node_t *n, const char *s)
{
	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.length == strlen(s) &&
	       !memcmp(n->data.scalar.value, s, n->data.scalar.length);
}

/* The value of @key in mapping @map, or NULL. */
static yaml_node_t *get(struct import *im, const yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;

	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++)
		if (is_scalar(node(im, p->key), key))
			return node(im, p->value);
	return NULL;
}

/* A scalar as a number (a YAML int or float); false if it is not one. */
static bool number(const yaml_node_t *n, double *v)
{
	char buf[64], *end;

	if (!n || n->type != YAML_SCALAR_NODE || !n->data.scalar.length ||
	    n->data.scalar.length >= sizeof(buf))
		return false;
	memcpy(buf, n->data.scalar.value, n->data.scalar.length);
	buf[n->data.scalar.length] = '\0';
	*v = strtod(buf, &end);
	return *end == '\0' && *v == *v;
}

static bool cpu_number(const yaml_node_t *n, unsigned int *cpu)
{
	double v;

	if (!number(n, &v) || v < 0 || v >= CPUIDLE_MAX_CPUS || v != (unsigned int)v)
		return false;
	*cpu = (unsigned int)v;
	return true;
}

static size_t seq_len(const yaml_node_t *n)
{
	return n && n->type == YAML_SEQUENCE_NODE ?
	       (size_t)(n->data.sequence.items.top - n->data.sequence.items.start) : 0;
}

static yaml_node_t *seq_at(struct import *im, const yaml_node_t *n, size_t i)
{
	return node(im, n->data.sequence.items.start[i]);
}

/*
 * An ordered map (YAML's !!omap, as LISA writes one): a sequence of
 * one-pair mappings, or a plain mapping.  Its @i-th key and value.
 */
static size_t omap_len(const yaml_node_t *n)
{
	if (n && n->type == YAML_MAPPING_NODE)
		return (size_t)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
	return seq_len(n);
}

static bool omap_at(struct import *im, const yaml_node_t *n, size_t i, yaml_node_t **key,
		    yaml_node_t **value)
{
	const yaml_node_t *m = n;
	yaml_node_pair_t *p;

	if (n->type == YAML_SEQUENCE_NODE) {
		m = seq_at(im, n, i);
		if (!m || m->type != YAML_MAPPING_NODE ||
		    m->data.mapping.pairs.top - m->data.mapping.pairs.start != 1)
			return false;
		i = 0;
	}
	p = &m->data.mapping.pairs.start[i];
	*key = node(im, p->key);
	*value = node(im, p->value);
	return *key && *value;
}

/* What LISA's energy model says of one CPU. */
struct em_cpu {
	const yaml_node_t *node;
	bool found;
	double top_freq, top_power;
	unsigned int nr_idle;
	char idle_name[CPUIDLE_STATE_MAX][CPUIDLE_NAME_LEN];
	double idle_power[CPUIDLE_STATE_MAX];
};

/*
 * Every mapping with a numeric "cpu", "active_states" and "idle_states" is
 * an energy model node of one CPU (lisa.energy_model.EnergyModelNode).
 */
static int read_energy_model(struct import *im, struct em_cpu *em, unsigned int nr_cpus)
{
	yaml_node_t *n, *key, *val;
	unsigned int cpu;
	size_t i;

	for (n = im->doc.nodes.start; n < im->doc.nodes.top; n++) {
		yaml_node_t *act = get(im, n, "active_states"), *idle = get(im, n, "idle_states");
		struct em_cpu *e;

		if (!act || !idle || act->type == YAML_SCALAR_NODE || !cpu_number(get(im, n, "cpu"), &cpu))
			continue;
		if (cpu >= nr_cpus)
			return import_fail(im, n, "an energy model node of CPU %u, of %u CPUs",
					   cpu, nr_cpus);
		e = &em[cpu];
		if (e->found)
			continue;	/* the same node again (an alias) */
		e->found = true;
		e->node = n;
		e->top_freq = -1;
		for (i = 0; i < omap_len(act); i++) {
			double f, p;

			/* frequency: [capacity, power] */
			if (!omap_at(im, act, i, &key, &val) || !number(key, &f) ||
			    seq_len(val) != 2 || !number(seq_at(im, val, 1), &p) || p < 0)
				return import_fail(im, act, "CPU %u: an active state that is not "
						   "FREQUENCY: [CAPACITY, POWER]", cpu);
			if (f > e->top_freq) {
				e->top_freq = f;
				e->top_power = p;
			}
		}
		if (e->top_freq < 0)
			return import_fail(im, act, "CPU %u: no active state", cpu);
		for (i = 0; i < omap_len(idle); i++) {
			double p;

			if (e->nr_idle == CPUIDLE_STATE_MAX)
				return import_fail(im, idle, "CPU %u: more than %d idle states",
						   cpu, CPUIDLE_STATE_MAX);
			if (!omap_at(im, idle, i, &key, &val) || key->type != YAML_SCALAR_NODE ||
			    !key->data.scalar.length ||
			    key->data.scalar.length >= CPUIDLE_NAME_LEN || !number(val, &p) || p < 0)
				return import_fail(im, idle, "CPU %u: an idle state that is not NAME: "
						   "POWER (a name of 1 to %d bytes)", cpu,
						   CPUIDLE_NAME_LEN - 1);
			memcpy(e->idle_name[e->nr_idle], key->data.scalar.value,
			       key->data.scalar.length);
			e->idle_name[e->nr_idle][key->data.scalar.length] = '\0';
			e->idle_power[e->nr_idle++] = p;
		}
	}
	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (!em[cpu].found)
			return import_fail(im, NULL, "the energy model (nrg-model) has no node of "
					   "CPU %u", cpu);
	return 0;
}

struct domain {
	uint64_t mask[CPUIDLE_PLATFORM_CPUMASK_WORDS];
	unsigned int first, nr;
	double capacity;
	char name[CPUIDLE_PLATFORM_CLUSTER_NAME_LEN];
};

static int read_domains(struct import *im, const yaml_node_t *conf, unsigned int nr_cpus,
			struct domain *d, unsigned int *nr)
{
	yaml_node_t *fd = get(im, conf, "freq-domains");
	yaml_node_t *caps = get(im, get(im, conf, "cpu-capacities"), "orig");
	uint64_t seen[CPUIDLE_PLATFORM_CPUMASK_WORDS] = { 0 };
	unsigned int cpu, i, j;

	if (!seq_len(fd))
		return import_fail(im, conf, "no freq-domains: a list of lists of CPUs");
	if (seq_len(fd) > CPUIDLE_PLATFORM_MAX_CLUSTERS)
		return import_fail(im, fd, "%zu frequency domains, a platform has at most %d "
				   "clusters", seq_len(fd), CPUIDLE_PLATFORM_MAX_CLUSTERS);
	*nr = (unsigned int)seq_len(fd);
	for (i = 0; i < *nr; i++) {
		yaml_node_t *list = seq_at(im, fd, i);

		memset(&d[i], 0, sizeof(d[i]));
		d[i].first = UINT_MAX;
		if (!seq_len(list))
			return import_fail(im, list, "freq-domains: an empty or malformed domain");
		for (j = 0; j < seq_len(list); j++) {
			if (!cpu_number(seq_at(im, list, j), &cpu) || cpu >= nr_cpus)
				return import_fail(im, list, "freq-domains: a CPU that is not 0 to %u",
						   nr_cpus - 1);
			if (seen[cpu / 64] & 1ull << (cpu % 64))
				return import_fail(im, list, "freq-domains: CPU %u twice", cpu);
			seen[cpu / 64] |= 1ull << (cpu % 64);
			d[i].mask[cpu / 64] |= 1ull << (cpu % 64);
			d[i].nr++;
			if (cpu < d[i].first)
				d[i].first = cpu;
		}
		/* the domain's capacity: its first CPU's, 0 if not said */
		d[i].capacity = 0;
		if (caps) {
			char k[16];
			yaml_node_pair_t *p;

			snprintf(k, sizeof(k), "%u", d[i].first);
			for (p = caps->type == YAML_MAPPING_NODE ? caps->data.mapping.pairs.start : NULL;
			     p && p < caps->data.mapping.pairs.top; p++)
				if (is_scalar(node(im, p->key), k) &&
				    !number(node(im, p->value), &d[i].capacity))
					return import_fail(im, caps, "cpu-capacities: CPU %s's is "
							   "not a number", k);
		}
	}
	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (!(seen[cpu / 64] & 1ull << (cpu % 64)))
			return import_fail(im, fd, "freq-domains: CPU %u in none", cpu);
	/* largest capacity first (a stable sort of at most 8) */
	for (i = 1; i < *nr; i++)
		for (j = i; j > 0 && d[j].capacity > d[j - 1].capacity; j--) {
			struct domain t = d[j];

			d[j] = d[j - 1];
			d[j - 1] = t;
		}
	for (i = 0; i < *nr; i++)
		snprintf(d[i].name, sizeof(d[i].name), "domain%u", i);
	if (*nr == 2 && d[0].capacity > d[1].capacity) {
		strcpy(d[0].name, "big");
		strcpy(d[1].name, "LITTLE");
	}
	return 0;
}

/* "0,3-5" */
static void cpu_list(char *buf, size_t len, const uint64_t *mask)
{
	size_t n = 0;
	unsigned int cpu, end;

	buf[0] = '\0';
	for (cpu = 0; cpu < CPUIDLE_MAX_CPUS && n < len; cpu++) {
		if (!(mask[cpu / 64] & 1ull << (cpu % 64)))
			continue;
		for (end = cpu; end + 1 < CPUIDLE_MAX_CPUS &&
		     mask[(end + 1) / 64] & 1ull << ((end + 1) % 64); end++)
			;
		n += (size_t)snprintf(buf + n, len - n, end > cpu ? "%s%u-%u" : "%s%u",
				      n ? "," : "", cpu, end);
		cpu = end;
	}
}

/* The --states-from state for cluster @d's state @name. */
static const struct cpuidle_platform_state *
base_state(const struct cpuidle_platform *base, const struct domain *d, const char *name,
	   const struct cpuidle_platform_cluster **cl_out)
{
	int c = cpuidle_platform_cluster_of(base, d->first), s, k;

	/* the cluster of the same name (big, LITTLE) first, else the one of its CPU */
	for (k = 0; k < base->nr_clusters; k++)
		if (!strcmp(base->clusters[k].name, d->name))
			c = k;

	for (k = -1; k < base->nr_clusters; k++) {
		const struct cpuidle_platform_cluster *cl;

		if (k == -1 && c < 0)
			continue;
		cl = &base->clusters[k == -1 ? c : k];
		for (s = 0; s < cl->state_count; s++)
			if (!strcmp(cl->states[s].name, name)) {
				*cl_out = cl;
				return &cl->states[s];
			}
	}
	return NULL;
}

static void fmt_power(char *buf, size_t len, int mw)
{
	if (mw == CPUIDLE_POWER_UNKNOWN)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%d", mw);
}

/* A quoted string of the platform format ('"' and '\' escaped). */
static void quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

struct import_opts {
	const char *name;
	const char *base_spec;
	const struct cpuidle_platform *base;
};

/* @n's text into @buf (cut to fit), or @fallback if @n is not a scalar */
static const char *scalar(const yaml_node_t *n, char *buf, size_t len, const char *fallback)
{
	size_t k;

	if (!n || n->type != YAML_SCALAR_NODE || !n->data.scalar.length)
		return fallback;
	k = n->data.scalar.length < len ? n->data.scalar.length : len - 1;
	memcpy(buf, n->data.scalar.value, k);
	buf[k] = '\0';
	return buf;
}

static int write_platform(struct import *im, FILE *f, const struct import_opts *o,
			  const yaml_node_t *conf, unsigned int nr_cpus, const struct em_cpu *em,
			  const struct domain *d, unsigned int nr_domains)
{
	const struct cpuidle_platform *base = o->base;
	char board[CPUIDLE_NAME_LEN * 2], release[128], desc[CPUIDLE_PLATFORM_DESC_LEN];
	const char *pname = o->name ? o->name :
			    scalar(get(im, conf, "name"), board, sizeof(board), "imported");
	bool em_idle = false;
	unsigned int i, cpu, s;
	char cpus[256], pw[16];

	for (cpu = 0; cpu < nr_cpus; cpu++)
		for (s = 0; s < em[cpu].nr_idle; s++)
			em_idle |= em[cpu].idle_power[s] > 0;
	fprintf(f, "# %s - imported by '" CLI_NAME " platform import' from %s\n", pname,
		im->path);
	fprintf(f, "#\n# [plat_info] %s: CPU count, frequency domains and capacities,\n"
		   "#\tthe energy model's power at each domain's top frequency (taken as mW)\n"
		   "#\tand its idle state names%s.\n", im->path,
		em_idle ? " and powers" : "");
	fprintf(f, "# [base] %s: the tick rate; each state's exit latency, target\n"
		   "#\tresidency, flags, entry and exit energy and sysfs power, and the\n"
		   "#\tclusters' shared and domain power, matched by cluster and state name%s\n",
		o->base_spec, em_idle ? "." : ";\n#\tand the idle states' model power: the energy "
		"model gives 0 for every\n#\tidle state (EAS models running CPUs only).");
	fprintf(f, "\nplatform ");
	quoted(f, pname);
	snprintf(desc, sizeof(desc), "LISA plat_info of %s, Linux %s",
		 scalar(get(im, conf, "name"), board, sizeof(board), "a board"),
		 scalar(get(im, get(im, get(im, conf, "kernel"), "version"), "release"),
			release, sizeof(release),
			scalar(get(im, get(im, conf, "kernel"), "release"), release,
			       sizeof(release), "(version not given)")));
	fprintf(f, "\ndesc ");
	quoted(f, desc);
	fprintf(f, "\n");
	if (base->tick_hz)
		fprintf(f, "# [base]\ntick_hz %u\n", base->tick_hz);
	fprintf(f, "# [plat_info]\ncpus %u\n", nr_cpus);
	for (i = 0; i < nr_domains; i++) {
		const struct em_cpu *e = &em[d[i].first];
		const struct cpuidle_platform_cluster *bcl = NULL;
		int bc = cpuidle_platform_cluster_of(base, d[i].first), k;

		for (k = 0; k < base->nr_clusters; k++)
			if (!strcmp(base->clusters[k].name, d[i].name))
				bc = k;
		if (bc >= 0)
			bcl = &base->clusters[bc];
		cpu_list(cpus, sizeof(cpus), d[i].mask);
		fprintf(f, "\n# [plat_info] CPUs %s, capacity %g; %g mW at %.0f kHz (CPU %u)%s\n",
			cpus, d[i].capacity, e->top_power, e->top_freq, d[i].first,
			bcl ? "; shared power [base]" : "");
		fprintf(f, "cluster %s cpus=%s active_power_mw=%d", d[i].name, cpus,
			(int)(e->top_power + 0.5));
		if (bcl && bcl->idle_power_mw)
			fprintf(f, " idle_power_mw=%d", bcl->idle_power_mw);
		fputc('\n', f);
		for (s = 0; s < e->nr_idle; s++) {
			const struct cpuidle_platform_cluster *scl;
			const struct cpuidle_platform_state *bs =
				base_state(base, &d[i], e->idle_name[s], &scl);
			char mp[16];

			if (!bs)
				return import_fail(im, e->node, "state '%s' of CPU %u: no state of "
						   "that name in %s to take its exit latency and "
						   "target residency from", e->idle_name[s],
						   d[i].first, o->base_spec);
			fmt_power(pw, sizeof(pw), bs->power_mw);
			if (em_idle)
				snprintf(mp, sizeof(mp), "%d", (int)(e->idle_power[s] + 0.5));
			else
				fmt_power(mp, sizeof(mp), bs->model_power_mw);
			fprintf(f, "# [plat_info] name%s; the rest [base] (cluster %s)\n",
				em_idle ? ", model power" : "", scl->name);
			fprintf(f, "state ");
			quoted(f, e->idle_name[s]);
			fprintf(f, " desc=");
			quoted(f, bs->desc);
			fprintf(f, " latency_ns=%lld residency_ns=%lld power_mw=%s model_power_mw=%s",
				(long long)bs->exit_latency_ns, (long long)bs->target_residency_ns,
				pw, mp);
			if (bs->cluster_power_mw >= 0 && cpuidle_platform_state_is_domain(bs))
				fprintf(f, " cluster_power_mw=%d", bs->cluster_power_mw);
			if (bs->entry_energy_nj || bs->exit_energy_nj)
				fprintf(f, " entry_energy_uj=%lld.%03lld exit_energy_uj=%lld.%03lld",
					(long long)(bs->entry_energy_nj / 1000),
					(long long)(bs->entry_energy_nj % 1000),
					(long long)(bs->exit_energy_nj / 1000),
					(long long)(bs->exit_energy_nj % 1000));
			if (bs->flags) {
				fputs(" flags=", f);
				cli_print_flags(f, bs->flags);
			}
			fputc('\n', f);
		}
	}
	return 0;
}

/* libyaml's loader recurses per level: refuse a file nested deeper than we read. */
static int check_depth(struct import *im, FILE *in)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int depth = 0, ret = 0;
	bool done = false;

	if (!yl.yaml_parser_initialize(&p))
		return -ENOMEM;
	yl.yaml_parser_set_input_file(&p, in);
	while (!done && !ret) {
		if (!yl.yaml_parser_parse(&p, &ev)) {
			snprintf(im->err, sizeof(im->err), "not YAML: %s",
				 p.problem ? p.problem : "a parse error");
			im->err_line = (int)p.problem_mark.line + 1;
			ret = -EINVAL;
			break;
		}
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			if (++depth > IMPORT_MAX_DEPTH) {
				snprintf(im->err, sizeof(im->err), "nested more than %d levels deep",
					 IMPORT_MAX_DEPTH);
				im->err_line = (int)ev.start_mark.line + 1;
				ret = -EINVAL;
			}
		} else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		yl.yaml_event_delete(&ev);
	}
	yl.yaml_parser_delete(&p);
	return ret;
}

static int load(struct import *im, FILE *in)
{
	yaml_parser_t p;
	int ret = 0;

	if (!yl.yaml_parser_initialize(&p))
		return -ENOMEM;
	yl.yaml_parser_set_input_file(&p, in);
	if (!yl.yaml_parser_load(&p, &im->doc)) {
		snprintf(im->err, sizeof(im->err), "not YAML: %s",
			 p.problem ? p.problem : "a parse error");
		im->err_line = (int)p.problem_mark.line + 1;
		ret = -EINVAL;
	} else if (!yl.yaml_document_get_root_node(&im->doc)) {
		yl.yaml_document_delete(&im->doc);
		snprintf(im->err, sizeof(im->err), "empty: no YAML document");
		ret = -EINVAL;
	}
	yl.yaml_parser_delete(&p);
	return ret;
}

static int import_file(struct import *im, const struct import_opts *o, char **text, size_t *len)
{
	struct em_cpu *em = NULL;
	struct domain d[CPUIDLE_PLATFORM_MAX_CLUSTERS];
	yaml_node_t *conf;
	unsigned int nr_cpus, nr_domains = 0;
	FILE *in, *out;
	char why[240];
	long size;
	int ret;

	if (lazy_lib_load(&yl_loader, why, sizeof(why)))
		return import_fail(im, NULL, "reading it %s", why);
	in = fopen(im->path, "rb");
	if (!in)
		return -errno;
	if (fseek(in, 0, SEEK_END) || (size = ftell(in)) < 0 || fseek(in, 0, SEEK_SET)) {
		fclose(in);
		return import_fail(im, NULL, "not a regular file");
	}
	if (size > IMPORT_MAX_BYTES) {
		fclose(in);
		return import_fail(im, NULL, "%ld bytes: a plat_info.yml is far smaller (at most "
				   "%d MiB read)", size, IMPORT_MAX_BYTES >> 20);
	}
	ret = check_depth(im, in);
	if (!ret && fseek(in, 0, SEEK_SET))
		ret = -errno;
	if (!ret)
		ret = load(im, in);
	fclose(in);
	if (ret)
		return ret;
	conf = get(im, get(im, yl.yaml_document_get_root_node(&im->doc), "platform-info"), "conf");
	if (!conf) {
		ret = import_fail(im, NULL, "no platform-info: conf: mapping (not a LISA "
				  "plat_info.yml?)");
		goto out;
	}
	if (!cpu_number(get(im, conf, "cpus-count"), &nr_cpus) || !nr_cpus) {
		ret = import_fail(im, conf, "no cpus-count of 1 to %d", CPUIDLE_MAX_CPUS);
		goto out;
	}
	em = calloc(nr_cpus, sizeof(*em));
	if (!em) {
		ret = -ENOMEM;
		goto out;
	}
	ret = read_energy_model(im, em, nr_cpus);
	if (!ret)
		ret = read_domains(im, conf, nr_cpus, d, &nr_domains);
	if (ret)
		goto out;
	out = open_memstream(text, len);
	if (!out) {
		ret = -ENOMEM;
		goto out;
	}
	ret = write_platform(im, out, o, conf, nr_cpus, em, d, nr_domains);
	if (fclose(out) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(*text);
		*text = NULL;
	}
out:
	free(em);
	yl.yaml_document_delete(&im->doc);
	return ret;
}

static void import_usage(FILE *f)
{
	fprintf(f, "usage: " CLI_NAME " platform import --states-from SPEC [--name NAME]\n"
		   "       [-o FILE] PLAT_INFO.yml\n\n"
		   "Make a platform file of a board that LISA describes (its plat_info.yml):\n"
		   "its CPUs, one cluster per frequency domain (big and LITTLE by capacity),\n"
		   "each cluster's running power and its idle states' names, from the file;\n"
		   "each state's exit latency, target residency, flags and energies (which\n"
		   "plat_info.yml does not hold) from the platform SPEC, by state name.\n"
		   "Written to standard output or -o FILE, checked by the platform parser\n"
		   "first.  NAME defaults to the file's board name.  See cpuidle(1).\n");
}

static const struct option platform_import_longopts[] = {
	{ "states-from", required_argument, NULL, 'b' },
	{ "name", required_argument, NULL, 'n' },
	{ "output", required_argument, NULL, 'o' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_platform_import_opts = {
	.shortopts = "o:qh",
	.longopts = platform_import_longopts,
};

int cli_platform_import(int argc, char **argv)
{
	struct import_opts o = { 0 };
	struct cpuidle_platform base, check;
	struct import im = { 0 };
	const char *out_path = "-";
	char err[600], *text = NULL;
	struct cli_out out;
	size_t len = 0;
	int c, ret;

	optind = 0;	/* after platform's own: getopt starts over (glibc, musl) */
	while ((c = cli_getopt(argc, argv, &cli_platform_import_opts)) != -1) {
		switch (c) {
		case 'b':
			o.base_spec = optarg;
			break;
		case 'n':
			o.name = optarg;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'h':
			import_usage(stdout);
			return 0;
		default:
			import_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		cli_error("platform", "import wants one PLAT_INFO.yml");
		return 2;
	}
	im.path = argv[optind];
	if (!o.base_spec)
		return cli_error("platform", "import: %s gives no exit latency or target "
				 "residency for its idle states: name a platform to take them "
				 "from with --states-from SPEC (e.g. juno-r2)", im.path);
	if (cpuidle_platform_load(o.base_spec, &base, err, sizeof(err)))
		return cli_error("platform", "import: --states-from %s: %s", o.base_spec, err);
	o.base = &base;
	{
		const struct cli_out_arg outs[] = { { "-o", out_path, false } };
		const char *ins[] = { im.path, cli_platform_file(o.base_spec) };

		if (cli_out_check("platform", outs, 1, ins, 2))
			return 1;
	}
	ret = import_file(&im, &o, &text, &len);
	if (ret) {
		if (im.err[0] && im.err_line)
			return cli_error("platform", "import: %s:%d: %s", im.path, im.err_line,
					 im.err);
		if (im.err[0])
			return cli_error("platform", "import: %s: %s", im.path, im.err);
		return cli_error("platform", "import: %s: %s", im.path, strerror(-ret));
	}
	if (cpuidle_platform_parse(text, len, "imported", &check, err, sizeof(err))) {
		free(text);
		return cli_error("platform", "import: %s: the platform made of it is not valid: "
				 "%s", im.path, err);
	}
	if (cli_out_open("platform", "-o", &out, out_path)) {
		free(text);
		return 1;
	}
	fwrite(text, 1, len, out.f);
	free(text);
	return cli_out_commit("platform", &out);
}
