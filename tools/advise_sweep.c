// SPDX-License-Identifier: MIT
/*
 * advise_sweep.c - the candidates cpuidle advise weighs (advise_sweep.h):
 * a recording replayed under every governor, QoS limit and haltpoll
 * window, with its deepest states disabled, and under haltpoll's grow and
 * shrink factors, through lab/sim/sweep.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_sweep.h"

/* the kernel's governors the lab ports (hazard and the oracle are not the host's) */
const char *const advise_host_governors[] = { "ladder", "menu", "teo", "haltpoll" };
/* haltpoll's window cap, ns: off, a quarter to twice the kernel's default of 200 us */
static const char *const window_values[] = { "0", "50000", "100000", "200000", "400000" };
/*
 * haltpoll's grow and shrink factors: the kernel's 2 each, and 4, a window
 * that reaches its cap in half as many halts, or is given up in half as
 * many; shrink 0 resets the window to 0 at the first halt past the cap
 * (the kernel's haltpoll.c sets it to 0 where the divisor is 0).
 */
static const char *const grow_values[] = { "2", "4" };
static const char *const shrink_values[] = { "2", "4", "0" };
/* what the kernel (drivers/cpuidle/governors/haltpoll.c) and the lab start with */
#define HALTPOLL_GROW_DEFAULT		"2"
#define HALTPOLL_SHRINK_DEFAULT		"2"
#define HALTPOLL_GROW_START_DEFAULT	50000ULL	/* ns */
#define GROW_START_ATTR			"module/haltpoll/parameters/guest_halt_poll_grow_start"

_Static_assert(ARRAY_SIZE(advise_host_governors) == ADVISE_NR_GOVERNORS, "governors");
_Static_assert(ARRAY_SIZE(window_values) == ADVISE_NR_WINDOWS, "windows");
_Static_assert(ARRAY_SIZE(grow_values) * ARRAY_SIZE(shrink_values) == ADVISE_NR_PAIRS, "pairs");

static int keep_row(void *ctx, const struct cpuidle_lab_point *at,
		    const struct cpuidle_lab_result *res, const struct cpuidle_lab_result *oracle)
{
	struct advice *a = ctx;

	(void)oracle;
	if (a->n == a->cap) {
		unsigned int cap = a->cap ? 2 * a->cap : 64;
		struct candidate *r = realloc(a->rows, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		a->rows = r;
		a->cap = cap;
	}
	a->rows[a->n++] = (struct candidate){
		.sweep = a->sweep,
		.at = *at,
		.energy_mj = cpuidle_lab_energy_mj(res),
		.p99_ns = res->p99_added_latency_ns,
		.violations = res->qos_violations,
	};
	return 0;
}

/*
 * A bundled platform with powers whose states are @p's (exit latency,
 * target residency, polling), at least as many CPUs: the model for a
 * recording whose own platform (the host's, as cpuidle record wrote it)
 * gives no power.  Return: its name, or NULL.
 */
const char *advise_powered_twin(const struct cpuidle_platform *p)
{
	const char *const *name;

	for (name = cpuidle_platform_builtin_names(); *name; name++) {
		struct cpuidle_platform q;
		char err[256];
		int s;

		if (cpuidle_platform_load(*name, &q, err, sizeof(err)) ||
		    !cpuidle_platform_power_known(&q) || q.state_count != p->state_count ||
		    q.nr_cpus < p->nr_cpus)
			continue;
		for (s = 0; s < q.state_count; s++)
			if (q.states[s].exit_latency_ns != p->states[s].exit_latency_ns ||
			    q.states[s].target_residency_ns != p->states[s].target_residency_ns ||
			    (q.states[s].flags & CPUIDLE_FLAG_POLLING) !=
			    (p->states[s].flags & CPUIDLE_FLAG_POLLING))
				break;
		if (s == q.state_count)
			return *name;
	}
	return NULL;
}

/* the value of PATH in a run's writes (the last one), or NULL */
const char *advise_written(const char *const *attrs, const char *path)
{
	const char *v = NULL;
	size_t n = strlen(path);

	for (; attrs && *attrs; attrs++)
		if (!strncmp(*attrs, path, n) && (*attrs)[n] == '=')
			v = *attrs + n + 1;
	return v;
}

static unsigned int count_attrs(const char *const *attrs)
{
	unsigned int n = 0;

	while (attrs && attrs[n])
		n++;
	return n;
}

/* @out: the recording's writes, then @extra's @n; Return: how many, or -E2BIG */
static int join_attrs(const char **out, const char *const *base, const char *const *extra,
		      unsigned int n)
{
	unsigned int i, nb = count_attrs(base);

	if (nb + n > CPUIDLE_LAB_MAX_ATTRS)
		return -E2BIG;
	for (i = 0; i < nb; i++)
		out[i] = base[i];
	for (i = 0; i < n; i++)
		out[nb + i] = extra[i];
	out[nb + n] = NULL;
	return (int)(nb + n);
}

/* the depth sweep's blocks: states K.. disabled on each of the trace's CPUs */
static int plan_depth(struct sweeps *s, const struct cpuidle_lab_block *grid, unsigned int cpus)
{
	const struct cpuidle_platform *p = grid->platform;
	const char *extra[CPUIDLE_LAB_MAX_ATTRS];
	unsigned int nb = 0, c, n;
	int k, st, first = p->states[0].flags & CPUIDLE_FLAG_POLLING ? 2 : 1;

	if (!cpus || p->state_count <= first)
		return 0;
	s->disable_items = calloc((size_t)cpus * (size_t)p->state_count, ADVISE_DISABLE_ITEM_LEN);
	if (!s->disable_items)
		return -ENOMEM;
	for (k = first; k < p->state_count; k++) {
		/* a run makes at most CPUIDLE_LAB_MAX_ATTRS writes: not on many CPUs */
		if ((uint64_t)cpus * (uint64_t)(p->state_count - k) > CPUIDLE_LAB_MAX_ATTRS) {
			s->unfit = k;
			continue;
		}
		n = 0;
		for (c = 0; c < cpus; c++)
			for (st = k; st < p->state_count; st++) {
				char *item = s->disable_items[(size_t)c * p->state_count + st];

				snprintf(item, ADVISE_DISABLE_ITEM_LEN, "cpu%u/cpuidle/state%d/disable=1",
					 c, st);
				extra[n++] = item;
			}
		if (join_attrs(s->depth_attrs[nb], grid->attrs, extra, n) < 0) {
			s->unfit = k;
			continue;
		}
		s->depth_blocks[nb] = *grid;
		s->depth_blocks[nb].attrs = s->depth_attrs[nb];
		s->depth_from[nb++] = k;
	}
	s->spec[SWEEP_DEPTH] = (struct cpuidle_lab_sweep_spec){
		.blocks = s->depth_blocks,
		.nr_blocks = nb,
		.governors = s->depth_govs,
		.nr_governors = s->nr_depth_govs,
		.qos_us = &s->own_qos,
		.nr_qos = 1,
		.no_oracle = true,
	};
	return 0;
}

/* the adapt sweep's blocks: haltpoll's grow and shrink, each pair but now's */
static void plan_adapt(struct sweeps *s, const struct cpuidle_lab_block *grid)
{
	const char *v = advise_written(grid->attrs, GROW_START_ATTR);
	unsigned long long grow_start = v ? strtoull(v, NULL, 0) : HALTPOLL_GROW_START_DEFAULT;
	unsigned int pair, nb = 0, nw = 0, i;

	s->adapt_gov = "haltpoll";
	for (i = 0; i < ARRAY_SIZE(window_values); i++)
		if (strtoull(window_values[i], NULL, 10) > grow_start)
			s->adapt_windows[nw++] = window_values[i];
	if (!nw)
		return;
	s->adapt_axis = (struct cpuidle_lab_axis){
		.path = ADVISE_WINDOW_ATTR,
		.values = s->adapt_windows,
		.nr_values = nw,
	};
	for (pair = 0; pair < ADVISE_NR_PAIRS; pair++) {
		const char *grow = grow_values[pair / ARRAY_SIZE(shrink_values)];
		const char *shrink = shrink_values[pair % ARRAY_SIZE(shrink_values)];
		const char *extra[2] = { s->adapt_items[nb][0], s->adapt_items[nb][1] };

		if (!strcmp(grow, s->now_grow) && !strcmp(shrink, s->now_shrink))
			continue;	/* the grid's haltpoll rows */
		snprintf(s->adapt_items[nb][0], sizeof(s->adapt_items[nb][0]), "%s=%s",
			 ADVISE_GROW_ATTR, grow);
		snprintf(s->adapt_items[nb][1], sizeof(s->adapt_items[nb][1]), "%s=%s",
			 ADVISE_SHRINK_ATTR, shrink);
		/* with the window's axis */
		if (join_attrs(s->adapt_attrs[nb], grid->attrs, extra, 2) < 0 ||
		    count_attrs(s->adapt_attrs[nb]) + 1 > CPUIDLE_LAB_MAX_ATTRS) {
			s->adapt_unfit = true;
			return;
		}
		s->adapt_blocks[nb] = *grid;
		s->adapt_blocks[nb].attrs = s->adapt_attrs[nb];
		s->adapt_pair[nb++] = pair;
	}
	s->spec[SWEEP_ADAPT] = (struct cpuidle_lab_sweep_spec){
		.blocks = s->adapt_blocks,
		.nr_blocks = nb,
		.governors = &s->adapt_gov,
		.nr_governors = 1,
		.qos_us = &s->own_qos,
		.nr_qos = 1,
		.axes = &s->adapt_axis,
		.nr_axes = 1,
		.no_oracle = true,
	};
}

/*
 * The sweeps of @run's recording (@trace) under governors @govs: their
 * specs in @s.  Return: 0, or a negative errno.
 */
int advise_sweeps_plan(struct sweeps *s, const struct cpuidle_lab_run *run,
		       const struct cpuidle_lab_trace *trace, const char *const *govs,
		       unsigned int nr_govs)
{
	const struct cpuidle_platform *p = run->platform;
	const char *v;
	unsigned int i, k;
	bool haltpoll = false;
	int ret;

	s->govs = govs;
	s->nr_govs = nr_govs;
	s->own_qos = -1;
	v = advise_written(run->attrs, ADVISE_GROW_ATTR);
	s->now_grow = v ? v : HALTPOLL_GROW_DEFAULT;
	v = advise_written(run->attrs, ADVISE_SHRINK_ATTR);
	s->now_shrink = v ? v : HALTPOLL_SHRINK_DEFAULT;
	/* the trace's own QoS, then a limit at each state's exit latency but the deepest's */
	s->qos[s->nr_qos++] = -1;
	for (i = 0; (int)i + 1 < p->state_count; i++) {
		int32_t us = (int32_t)((p->states[i].exit_latency_ns + 999) / 1000);

		for (k = 1; k < s->nr_qos && s->qos[k] != us; k++)
			;
		if (k == s->nr_qos)
			s->qos[s->nr_qos++] = us;
	}
	s->window_axis = (struct cpuidle_lab_axis){
		.path = ADVISE_WINDOW_ATTR,
		.values = window_values,
		.nr_values = ARRAY_SIZE(window_values),
	};
	s->grid_block = (struct cpuidle_lab_block){
		.trace = trace,
		.platform = p,
		.attrs = run->attrs,
		.tick_periodic = run->tick_periodic,
	};
	s->spec[SWEEP_GRID] = (struct cpuidle_lab_sweep_spec){
		.blocks = &s->grid_block,
		.nr_blocks = 1,
		.governors = govs,
		.nr_governors = nr_govs,
		.qos_us = s->qos,
		.nr_qos = s->nr_qos,
		.axes = &s->window_axis,
		.nr_axes = 1,
		.no_oracle = true,
	};
	for (i = 0; i < nr_govs; i++) {
		if (strcmp(govs[i], "haltpoll"))
			s->depth_govs[s->nr_depth_govs++] = govs[i];
		else
			haltpoll = true;
	}
	ret = plan_depth(s, &s->grid_block, cpuidle_lab_trace_cpus(trace));
	if (!ret && haltpoll)
		plan_adapt(s, &s->grid_block);
	return ret;
}

/* every sweep with something to run, rows into @adv; Return: 0, or a negative errno */
int advise_sweeps_run(struct sweeps *s, struct advice *adv, struct cpuidle_lab_sweep_error *fail)
{
	static const struct cpuidle_lab_sweep_ops ops = { .row = keep_row };
	unsigned int i, before;
	int ret;

	memset(fail, 0, sizeof(*fail));
	for (i = 0; i < NR_SWEEPS; i++) {
		if (!s->spec[i].nr_blocks || !s->spec[i].nr_governors)
			continue;
		ret = cpuidle_lab_sweep_new(&s->spec[i], &s->sw[i]);
		adv->sweep = i;
		before = adv->n;
		if (!ret)
			ret = cpuidle_lab_sweep_run(s->sw[i], &ops, adv, 0, fail);
		if (ret)
			return ret;
		s->rows[i] = adv->n - before;
	}
	return 0;
}

void advise_sweeps_free(struct sweeps *s)
{
	unsigned int i;

	if (!s)
		return;
	for (i = 0; i < NR_SWEEPS; i++)
		cpuidle_lab_sweep_free(s->sw[i]);
	free(s->disable_items);
	free(s);
}

/* candidate @c's setting (@st->grow, ->shrink set by the adapt sweep alone) */
void advise_setting_of(const struct sweeps *s, const struct candidate *c,
		       struct advise_setting *st)
{
	const struct cpuidle_lab_point *at = &c->at;
	unsigned int pair;

	memset(st, 0, sizeof(*st));
	st->qos_us = -1;
	switch (c->sweep) {
	case SWEEP_GRID:
		st->governor = s->govs[at->governor];
		if (!strcmp(st->governor, "haltpoll"))
			st->window = window_values[at->values[0]];
		st->qos_us = s->qos[at->qos];
		break;
	case SWEEP_DEPTH:
		st->governor = s->depth_govs[at->governor];
		st->disable_from = s->depth_from[at->block];
		break;
	case SWEEP_ADAPT:
		pair = s->adapt_pair[at->block];
		st->governor = s->adapt_gov;
		st->window = s->adapt_axis.values[at->values[0]];
		st->grow = grow_values[pair / ARRAY_SIZE(shrink_values)];
		st->shrink = shrink_values[pair % ARRAY_SIZE(shrink_values)];
		break;
	}
}
