// SPDX-License-Identifier: MIT
/*
 * sweep.c - a sweep planned and run (lab.h's "a sweep"): the runs of a
 * (trace, platform) block laid out once as a template, every block run
 * through the batch (batch.c) in that order, and a block's rows handed on
 * once its last run is in.
 *
 * The template: one row per governor x QoS value x combination of the
 * axes' values, and the runs those rows need.  A row whose governor cannot
 * read an axis (module/GOV/parameters/... read by GOV alone) uses the run
 * made with that axis at its first value; each row is paired with the
 * oracle's run on the same QoS and the values the oracle reads, added to
 * the template when the governors do not name the oracle (such a run is
 * skipped on a platform without powers: nobody could use it).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"

/* one run of the template */
struct sweep_run {
	unsigned int governor;	/* index into the spec's; nr_governors: the added oracle */
	unsigned int qos;
	uint64_t combo;		/* the axes' values, one digit per axis */
	unsigned int row;	/* the first row it serves */
	bool ref_only;		/* the oracle of other rows alone */
};

enum slot_state { SLOT_DONE, SLOT_SKIPPED, SLOT_LOST };

struct cpuidle_lab_sweep {
	const struct cpuidle_lab_sweep_spec *spec;
	uint64_t combos;
	char **items;			/* "PATH=VALUE": items[axis_base[a] + v] */
	unsigned int *axis_base;
	bool *power;			/* per block: its platform's powers known */

	struct sweep_run *runs;		/* a block's */
	unsigned int nr_runs;
	unsigned int *row_run, *row_ref;	/* per row; row_ref UINT_MAX: none */
	unsigned int nr_rows;

	/* while it runs */
	const struct cpuidle_lab_sweep_ops *ops;
	void *ctx;
	struct cpuidle_lab_result *slots;	/* the block being completed */
	enum slot_state *state;
	char fail_msg[512];		/* a failed run's message */
};

/* ---- the template ---- */

/* GOV of module/GOV/parameters/NAME (or /sys/module/...), of length *@len; else NULL */
static const char *module_of(const char *path, size_t *len)
{
	const char *p = path;

	if (!strncmp(p, "/sys/", 5))
		p += 5;
	while (*p == '/')
		p++;
	if (strncmp(p, "module/", 7))
		return NULL;
	for (p += 7; *p == '/'; p++)
		;
	*len = strcspn(p, "/");
	return p;
}

static const char *governor_name(const struct cpuidle_lab_sweep_spec *spec, unsigned int g)
{
	return g < spec->nr_governors ? spec->governors[g] : CPUIDLE_LAB_ORACLE;
}

/* whether axis @a can change a run of governor @name */
static bool axis_reads(const struct cpuidle_lab_axis *ax, const char *name)
{
	size_t len;
	const char *module = module_of(ax->path, &len);

	return !module || (strlen(name) == len && !strncmp(module, name, len));
}

static unsigned int digit(const struct cpuidle_lab_sweep *sw, uint64_t combo, unsigned int axis)
{
	unsigned int a;

	for (a = sw->spec->nr_axes - 1; a > axis; a--)
		combo /= sw->spec->axes[a].nr_values;
	return (unsigned int)(combo % sw->spec->axes[axis].nr_values);
}

/* @combo with each axis that cannot change governor @g's runs at its first value */
static uint64_t effective_combo(const struct cpuidle_lab_sweep *sw, unsigned int g,
				uint64_t combo)
{
	const struct cpuidle_lab_sweep_spec *spec = sw->spec;
	const char *name = governor_name(spec, g);
	uint64_t eff = 0;
	unsigned int a;

	for (a = 0; a < spec->nr_axes; a++) {
		unsigned int d = digit(sw, combo, a);

		if (!axis_reads(&spec->axes[a], name))
			d = 0;
		eff = eff * spec->axes[a].nr_values + d;
	}
	return eff;
}

/* the run (@g, @q, @combo) of the template, added for row @row if new */
static unsigned int template_run(struct cpuidle_lab_sweep *sw, unsigned int *map, unsigned int g,
				 unsigned int q, uint64_t combo, unsigned int row, bool ref_only)
{
	unsigned int *slot = &map[((uint64_t)g * sw->spec->nr_qos + q) * sw->combos + combo];

	if (*slot == UINT_MAX) {
		*slot = sw->nr_runs;
		sw->runs[sw->nr_runs++] = (struct sweep_run){ g, q, combo, row, ref_only };
	}
	return *slot;
}

static int build_template(struct cpuidle_lab_sweep *sw)
{
	const struct cpuidle_lab_sweep_spec *spec = sw->spec;
	unsigned int g, q, oracle = spec->nr_governors, *map;
	uint64_t c, nmap;
	bool refs;

	for (g = 0; g < spec->nr_governors; g++)
		if (!strcmp(spec->governors[g], CPUIDLE_LAB_ORACLE))
			oracle = g;
	refs = oracle < spec->nr_governors || !spec->no_oracle;
	nmap = (uint64_t)(spec->nr_governors + 1) * spec->nr_qos * sw->combos;
	map = malloc(nmap * sizeof(*map));
	sw->runs = calloc(nmap, sizeof(*sw->runs));
	sw->row_run = calloc(sw->nr_rows, sizeof(*sw->row_run));
	sw->row_ref = calloc(sw->nr_rows, sizeof(*sw->row_ref));
	if (!map || !sw->runs || !sw->row_run || !sw->row_ref) {
		free(map);
		return -ENOMEM;
	}
	memset(map, 0xff, nmap * sizeof(*map));
	for (g = 0; g < spec->nr_governors; g++)
		for (q = 0; q < spec->nr_qos; q++)
			for (c = 0; c < sw->combos; c++) {
				unsigned int r = (unsigned int)(((uint64_t)g * spec->nr_qos + q) *
								sw->combos + c);

				sw->row_run[r] = template_run(sw, map, g, q, effective_combo(sw, g, c),
							      r, false);
				sw->row_ref[r] = !refs ? UINT_MAX :
						 template_run(sw, map, oracle, q,
							      effective_combo(sw, oracle, c), r,
							      oracle == spec->nr_governors);
			}
	free(map);
	return 0;
}

/* "PATH=VALUE" of every value of every axis */
static int build_items(struct cpuidle_lab_sweep *sw)
{
	const struct cpuidle_lab_sweep_spec *spec = sw->spec;
	unsigned int a, v, n = 0;

	sw->axis_base = calloc(spec->nr_axes + 1, sizeof(*sw->axis_base));
	if (!sw->axis_base)
		return -ENOMEM;
	for (a = 0; a < spec->nr_axes; a++) {
		sw->axis_base[a] = n;
		n += spec->axes[a].nr_values;
	}
	sw->axis_base[a] = n;
	sw->items = calloc(n ? n : 1, sizeof(*sw->items));
	if (!sw->items)
		return -ENOMEM;
	for (a = 0; a < spec->nr_axes; a++)
		for (v = 0; v < spec->axes[a].nr_values; v++)
			if (asprintf(&sw->items[sw->axis_base[a] + v], "%s=%s", spec->axes[a].path,
				     spec->axes[a].values[v]) < 0) {
				sw->items[sw->axis_base[a] + v] = NULL;
				return -ENOMEM;
			}
	return 0;
}

static unsigned int nr_attrs(const char *const *attrs)
{
	unsigned int n = 0;

	while (attrs && attrs[n])
		n++;
	return n;
}

static int check_spec(const struct cpuidle_lab_sweep_spec *spec, uint64_t *combos)
{
	unsigned int a, b, g, h;

	if (!spec->nr_blocks || !spec->nr_governors || !spec->nr_qos ||
	    spec->nr_axes > CPUIDLE_LAB_MAX_ATTRS)
		return -EINVAL;
	for (g = 0; g < spec->nr_governors; g++)
		for (h = 0; h < g; h++)
			if (!strcmp(spec->governors[g], spec->governors[h]))
				return -EINVAL;
	for (b = 0; b < spec->nr_blocks; b++)
		if (!spec->blocks[b].trace || !spec->blocks[b].platform ||
		    nr_attrs(spec->blocks[b].attrs) + spec->nr_axes > CPUIDLE_LAB_MAX_ATTRS)
			return -EINVAL;
	*combos = 1;
	for (a = 0; a < spec->nr_axes; a++) {
		if (!spec->axes[a].nr_values)
			return -EINVAL;
		*combos *= spec->axes[a].nr_values;
		if (*combos > CPUIDLE_LAB_SWEEP_MAX_ROWS)
			return -E2BIG;
	}
	if (*combos * spec->nr_governors * spec->nr_qos > CPUIDLE_LAB_SWEEP_MAX_ROWS)
		return -E2BIG;
	return 0;
}

int cpuidle_lab_sweep_new(const struct cpuidle_lab_sweep_spec *spec,
			  struct cpuidle_lab_sweep **out)
{
	struct cpuidle_lab_sweep *sw;
	unsigned int b;
	uint64_t combos;
	int ret;

	*out = NULL;
	ret = check_spec(spec, &combos);
	if (ret)
		return ret;
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return -ENOMEM;
	sw->spec = spec;
	sw->combos = combos;
	sw->nr_rows = (unsigned int)(combos * spec->nr_governors * spec->nr_qos);
	sw->power = calloc(spec->nr_blocks, sizeof(*sw->power));
	ret = sw->power ? build_items(sw) : -ENOMEM;
	if (!ret)
		ret = build_template(sw);
	if (ret) {
		cpuidle_lab_sweep_free(sw);
		return ret;
	}
	for (b = 0; b < spec->nr_blocks; b++)
		sw->power[b] = cpuidle_platform_power_known(spec->blocks[b].platform);
	*out = sw;
	return 0;
}

void cpuidle_lab_sweep_free(struct cpuidle_lab_sweep *sw)
{
	unsigned int i;

	if (!sw)
		return;
	for (i = 0; sw->items && i < sw->axis_base[sw->spec->nr_axes]; i++)
		free(sw->items[i]);
	free(sw->items);
	free(sw->axis_base);
	free(sw->power);
	free(sw->runs);
	free(sw->row_run);
	free(sw->row_ref);
	free(sw->slots);
	free(sw->state);
	free(sw);
}

unsigned int cpuidle_lab_sweep_rows(const struct cpuidle_lab_sweep *sw)
{
	return sw->nr_rows;
}

uint64_t cpuidle_lab_sweep_runs(const struct cpuidle_lab_sweep *sw)
{
	return (uint64_t)sw->spec->nr_blocks * sw->nr_runs;
}

/* ---- points and runs ---- */

static void point_of(const struct cpuidle_lab_sweep *sw, unsigned int block, unsigned int row,
		     unsigned int g, unsigned int q, uint64_t combo, struct cpuidle_lab_point *at)
{
	unsigned int a;

	memset(at, 0, sizeof(*at));
	at->block = block;
	at->row = row;
	at->governor = g;
	at->qos = q;
	for (a = 0; a < sw->spec->nr_axes; a++)
		at->values[a] = digit(sw, combo, a);
}

void cpuidle_lab_sweep_row(const struct cpuidle_lab_sweep *sw, unsigned int block,
			   unsigned int row, struct cpuidle_lab_point *at)
{
	unsigned int per_gov = (unsigned int)(sw->spec->nr_qos * sw->combos);

	point_of(sw, block, row, row / per_gov, (unsigned int)(row % per_gov / sw->combos),
		 row % sw->combos, at);
}

static void run_point(const struct cpuidle_lab_sweep *sw, uint64_t index,
		      struct cpuidle_lab_point *at)
{
	const struct sweep_run *run = &sw->runs[index % sw->nr_runs];

	point_of(sw, (unsigned int)(index / sw->nr_runs), run->row, run->governor, run->qos,
		 run->combo, at);
}

static bool is_own(const struct cpuidle_lab_sweep_spec *spec, const char *name)
{
	const struct cpuidle_governor *const *g;

	for (g = spec->own; g && *g; g++)
		if (!strcmp((*g)->name, name))
			return true;
	return false;
}

void cpuidle_lab_sweep_config(const struct cpuidle_lab_sweep *sw,
			      const struct cpuidle_lab_point *at, struct cpuidle_lab_job *job)
{
	const struct cpuidle_lab_sweep_spec *spec = sw->spec;
	const struct cpuidle_lab_block *b = &spec->blocks[at->block];
	unsigned int a, n;

	for (n = 0; b->attrs && b->attrs[n]; n++)
		job->attrs[n] = b->attrs[n];
	for (a = 0; a < spec->nr_axes; a++)
		job->attrs[n++] = sw->items[sw->axis_base[a] + at->values[a]];
	job->attrs[n] = NULL;
	job->cfg = (struct cpuidle_lab_run){
		.trace = b->trace,
		.platform = b->platform,
		.governor = governor_name(spec, at->governor),
		.governors = spec->own,
		.qos_us = spec->qos_us[at->qos],
		.tick_periodic = b->tick_periodic,
		.attrs = job->attrs,
	};
	job->cfg.isolated = spec->isolate_own && is_own(spec, job->cfg.governor);
}

/* ---- checking a block ---- */

/* @b's machine with its attributes and @extra (or none), nothing replayed */
static int dry_run(const struct cpuidle_lab_sweep_spec *spec, const struct cpuidle_lab_block *b,
		   const char *extra, char *msg, size_t msglen)
{
	const char *attrs[CPUIDLE_LAB_MAX_ATTRS + 2];
	struct cpuidle_lab_result *res = malloc(sizeof(*res));
	struct cpuidle_lab_trace *empty;
	unsigned int n;
	int ret;

	if (!res)
		return -ENOMEM;
	for (n = 0; b->attrs && b->attrs[n] && n < CPUIDLE_LAB_MAX_ATTRS; n++)
		attrs[n] = b->attrs[n];
	if (extra)
		attrs[n++] = extra;
	attrs[n] = NULL;
	ret = cpuidle_lab_trace_empty(cpuidle_lab_trace_cpus(b->trace), &empty);
	if (!ret) {
		ret = cpuidle_lab_replay(&(struct cpuidle_lab_run){
						.trace = empty,
						.platform = b->platform,
						.governor = spec->governors[0],
						.governors = spec->own,
						.qos_us = -1,
						.tick_periodic = b->tick_periodic,
						.attrs = attrs,
					 }, res);
		if (ret)
			snprintf(msg, msglen, "%s", res->error_msg);
		cpuidle_lab_trace_close(empty);
	}
	free(res);
	return ret;
}

int cpuidle_lab_sweep_check(const struct cpuidle_lab_sweep_spec *spec,
			    const struct cpuidle_lab_block *block,
			    struct cpuidle_lab_sweep_error *fail)
{
	unsigned int a, v;
	int ret;

	memset(fail, 0, sizeof(*fail));
	fail->axis = -1;
	if (!spec->nr_governors || nr_attrs(block->attrs) >= CPUIDLE_LAB_MAX_ATTRS)
		return fail->error = -EINVAL;
	ret = dry_run(spec, block, NULL, fail->msg, sizeof(fail->msg));
	for (a = 0; !ret && a < spec->nr_axes; a++)
		for (v = 0; !ret && v < spec->axes[a].nr_values; v++) {
			char *item;

			if (asprintf(&item, "%s=%s", spec->axes[a].path,
				     spec->axes[a].values[v]) < 0)
				return fail->error = -ENOMEM;
			ret = dry_run(spec, block, item, fail->msg, sizeof(fail->msg));
			free(item);
			if (ret) {
				fail->axis = (int)a;
				fail->at.values[a] = v;
			}
		}
	return fail->error = ret;
}

/* ---- running ---- */

/* cpuidle_lab_batch_ops.plan: run @index, or 1 where nobody needs it */
static int sweep_plan(void *ctx, uint64_t index, struct cpuidle_lab_job *job)
{
	const struct cpuidle_lab_sweep *sw = ctx;
	struct cpuidle_lab_point at;

	if (sw->runs[index % sw->nr_runs].ref_only && !sw->power[index / sw->nr_runs])
		return 1;	/* an oracle for energy over it, on a platform without powers */
	run_point(sw, index, &at);
	cpuidle_lab_sweep_config(sw, &at, job);
	return 0;
}

/* a block's rows, in order, once its last run is in */
static int hand_on_block(struct cpuidle_lab_sweep *sw, unsigned int block)
{
	struct cpuidle_lab_point at;
	unsigned int r;
	int ret;

	for (r = 0; r < sw->nr_rows; r++) {
		unsigned int run = sw->row_run[r], ref = sw->row_ref[r];

		if (sw->state[run] == SLOT_LOST)
			continue;	/* its loss was said */
		cpuidle_lab_sweep_row(sw, block, r, &at);
		ret = sw->ops->row(sw->ctx, &at, &sw->slots[run],
				   ref != UINT_MAX && sw->state[ref] == SLOT_DONE ?
				   &sw->slots[ref] : NULL);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* cpuidle_lab_batch_ops.done, in run order */
static int sweep_done(void *ctx, uint64_t index, const struct cpuidle_lab_result *res)
{
	struct cpuidle_lab_sweep *sw = ctx;
	unsigned int run = (unsigned int)(index % sw->nr_runs);
	int ret;

	if (!res) {
		sw->state[run] = SLOT_SKIPPED;
	} else if (res->error == -EFAULT && sw->ops->lost &&
		   sw->spec->isolate_own &&
		   is_own(sw->spec, governor_name(sw->spec, sw->runs[run].governor))) {
		struct cpuidle_lab_point at;

		run_point(sw, index, &at);
		ret = sw->ops->lost(sw->ctx, &at, res);
		if (ret < 0)
			return ret;
		sw->state[run] = SLOT_LOST;
	} else if (res->error) {
		snprintf(sw->fail_msg, sizeof(sw->fail_msg), "%s", res->error_msg);
		return res->error;
	} else {
		sw->slots[run] = *res;
		sw->state[run] = SLOT_DONE;
	}
	if (run == sw->nr_runs - 1)
		return hand_on_block(sw, (unsigned int)(index / sw->nr_runs));
	return 0;
}

static void sweep_progress(void *ctx, uint64_t done, uint64_t total)
{
	const struct cpuidle_lab_sweep *sw = ctx;

	sw->ops->progress(sw->ctx, done, total);
}

int cpuidle_lab_sweep_run(struct cpuidle_lab_sweep *sw, const struct cpuidle_lab_sweep_ops *ops,
			  void *ctx, unsigned int threads, struct cpuidle_lab_sweep_error *fail)
{
	const struct cpuidle_lab_batch_ops batch_ops = {
		.plan = sweep_plan,
		.done = sweep_done,
		.progress = ops->progress ? sweep_progress : NULL,
		.keep_going = true,	/* sweep_done() decides */
	};
	struct cpuidle_lab_batch_error bfail;
	int ret;

	memset(fail, 0, sizeof(*fail));
	fail->axis = -1;
	free(sw->slots);
	free(sw->state);
	sw->slots = calloc(sw->nr_runs, sizeof(*sw->slots));
	sw->state = calloc(sw->nr_runs, sizeof(*sw->state));
	if (!sw->slots || !sw->state)
		return fail->error = -ENOMEM;
	sw->ops = ops;
	sw->ctx = ctx;
	sw->fail_msg[0] = '\0';
	ret = cpuidle_lab_batch_run(&batch_ops, sw, cpuidle_lab_sweep_runs(sw), threads, &bfail);
	if (!ret)
		return 0;
	fail->error = ret;
	run_point(sw, bfail.job, &fail->at);
	snprintf(fail->msg, sizeof(fail->msg), "%s", bfail.msg[0] ? bfail.msg : sw->fail_msg);
	return ret;
}
