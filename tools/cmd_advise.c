// SPDX-License-Identifier: MIT
/*
 * cmd_advise.c - "cpuidle advise": the cheapest setting a host can change
 * (its governor, haltpoll's polling window and its grow and shrink
 * factors, a CPU latency QoS limit, its deepest states disabled) whose p99
 * added wake-up latency meets a budget, predicted by replaying a recording
 * of the host under each (lab/sim/sweep.c), printed as the commands that
 * apply it, with the model's own error on that recording (cpuidle
 * validate's figures) beside the prediction.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise.h"
#include "cli.h"
#include "idle_figures.h"
#include "intervals.h"
#include "recording.h"
#include "cpuidle/lab.h"

static void advise_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " advise [-p PLATFORM] [-g GOVERNOR] [-s PATH=VALUE]...\n"
		"       [--latency-budget-us USEC] [--json] [--apply -o FILE [--restore]] TRACE\n"
		"       [-- CMD [ARGS]]\n\n"
		"Replay a recording of the host under every setting the host can change -\n"
		"its governor (ladder, menu, teo, haltpoll), haltpoll's polling window\n"
		"(guest_halt_poll_ns 0, 50, 100, 200, 400 us) and, under a window, its\n"
		"guest_halt_poll_grow (2, 4) and guest_halt_poll_shrink (2, 4, 0), a CPU\n"
		"latency QoS limit at each state's exit latency, states K and deeper\n"
		"disabled on every CPU for each K from 1 (2 over a polling state 0) to the\n"
		"deepest (not under haltpoll) - and print the one that uses least energy\n"
		"while its p99 added wake-up latency is within the budget (default: the\n"
		"recording's own, replayed as it was recorded), as the commands that apply\n"
		"it (cpuidle set -g, cpuidle set -d, echo to\n"
		"/sys/module/haltpoll/parameters/, cpuidle qos hold).  The recording's own\n"
		"setting comes from its description, else its name (NAME-GOVERNOR.*; -g and\n"
		"-s say it otherwise, e.g. -s\n"
		"module/haltpoll/parameters/guest_halt_poll_ns=0); its platform from its\n"
		"description, else -p, else haltpoll-vm.  Beside the prediction: the model's\n"
		"error replaying this recording as recorded, against what its kernel did\n"
		"(as cpuidle validate measures it).  --apply (root) applies the advice on\n"
		"this host (governor, haltpoll's parameters, the states' disable bits on\n"
		"every CPU), holds the QoS request, records FILE as long as TRACE, or while\n"
		"CMD runs (cpuidle record), and prints the prediction against what the\n"
		"kernel did; --restore then puts the previous settings back, as is done on\n"
		"any failure or signal.  Only the host's available governors are considered\n"
		"then.  Options come before TRACE.\n");
}

#define ADVISE_MAX_ATTRS	16
/*
 * A change is advised for its energy only if it saves at least this much:
 * the same change predicted from two recordings of one workload (the
 * shared pgbench-menu, pgbench-haltpoll200 and sqlite-menu and their
 * repeats, on haltpoll-vm) differed by up to 0.9 points (menu -> haltpoll:
 * +5.9% against +6.8%), so a smaller saving may be the recording's, not
 * the setting's.
 */
#define ADVISE_MIN_SAVING_PCT	1.0
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* the kernel's governors the lab ports (hazard and the oracle are not the host's) */
static const char *const host_governors[] = { "ladder", "menu", "teo", "haltpoll" };
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
#define NR_PAIRS			(ARRAY_SIZE(grow_values) * ARRAY_SIZE(shrink_values))
/* "cpuN/cpuidle/stateK/disable=1", any unsigned N, int K: 3 + 10 + 14 + 11 + 10 + 1 */
#define DISABLE_ITEM_LEN	49

/*
 * The sweeps advise runs, their rows the candidates in this order (the
 * first of equal energies wins):
 * - the grid: every governor x QoS limit x haltpoll's window (the other
 *   governors' rows share one run per limit: they do not read it);
 * - depth: states K.. disabled on every CPU, one block per K from 1 (2
 *   where state 0 polls) to the deepest, x the governors but haltpoll,
 *   under the recording's own QoS only.  haltpoll chooses between states
 *   0 and 1 alone, so disabling deeper ones changes nothing.  State 1
 *   disabled over a polling state 0 leaves menu and teo polling, as the
 *   grid's limit of 0 does, and Linux's ladder keeps entering it (its
 *   first rung; the lab's ladder does not, src/governors/ladder.c: seen
 *   on a haltpoll guest).  A limit and a depth both stop the governor at
 *   some state: with exit latencies growing with depth, whichever stops
 *   it shallower makes the other one idle, and the grid has the limits;
 * - adapt: haltpoll's grow x shrink but the recording's own pair, one
 *   block each, x its windows above guest_halt_poll_grow_start (at or
 *   under it, a grow starts the window at the cap, and any shrink by 2, 4
 *   or 0 takes it under grow_start, so to 0: neither factor acts), under
 *   the recording's own QoS only: haltpoll reads the limit only to poll
 *   when it is below state 1's exit latency, where neither acts either.
 * Another governor does not read haltpoll's parameters, and no governor is
 * run under grow or shrink but haltpoll: no run is made twice for them.
 */
enum { SWEEP_GRID, SWEEP_DEPTH, SWEEP_ADAPT, NR_SWEEPS };

/**
 * struct sweeps - the sweeps' specs and what they point to (kept in place
 *	while the sweeps live)
 * @govs: the governors considered, @nr_govs
 * @qos: the QoS limits (-1: the trace's own), @nr_qos
 * @own_qos: -1, the depth and adapt sweeps' only QoS
 * @now_grow: the recording's guest_halt_poll_grow (else the default)
 * @now_shrink: the recording's guest_halt_poll_shrink (else the default)
 * @spec: per sweep
 * @sw: per sweep, NULL for one with nothing to run
 * @rows: per sweep, the candidates it gave
 * @depth_from: per depth block, the first state it disables
 * @unfit: the depths (first states up to @unfit) whose writes exceed a run's
 * @adapt_pair: per adapt block, grow_values[pair / 3], shrink_values[pair % 3]
 * @adapt_unfit: the recording's writes leave no room for grow and shrink
 */
struct sweeps {
	const char *const *govs;
	unsigned int nr_govs;
	int32_t qos[CPUIDLE_STATE_MAX + 1];
	unsigned int nr_qos;
	const char *now_grow, *now_shrink;
	struct cpuidle_lab_sweep_spec spec[NR_SWEEPS];
	struct cpuidle_lab_sweep *sw[NR_SWEEPS];
	unsigned int rows[NR_SWEEPS];

	struct cpuidle_lab_axis window_axis;
	struct cpuidle_lab_block grid_block;

	const char *depth_govs[ARRAY_SIZE(host_governors)];
	unsigned int nr_depth_govs;
	struct cpuidle_lab_block depth_blocks[CPUIDLE_STATE_MAX];
	int depth_from[CPUIDLE_STATE_MAX];
	const char *depth_attrs[CPUIDLE_STATE_MAX][CPUIDLE_LAB_MAX_ATTRS + 1];
	char (*disable_items)[DISABLE_ITEM_LEN];
	int unfit;

	int32_t own_qos;
	const char *adapt_gov;
	const char *adapt_windows[ARRAY_SIZE(window_values)];
	struct cpuidle_lab_axis adapt_axis;
	struct cpuidle_lab_block adapt_blocks[NR_PAIRS];
	unsigned int adapt_pair[NR_PAIRS];
	const char *adapt_attrs[NR_PAIRS][CPUIDLE_LAB_MAX_ATTRS + 1];
	char adapt_items[NR_PAIRS][2][sizeof(ADVISE_SHRINK_ATTR) + 16];
	bool adapt_unfit;
};

struct candidate {
	unsigned int sweep;
	struct cpuidle_lab_point at;
	double energy_mj;
	uint64_t p99_ns;
	uint64_t violations;
};

struct advice {
	struct candidate *rows;
	unsigned int n, cap;
	unsigned int sweep;	/* the one running */
};

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
static const char *powered_twin(const struct cpuidle_platform *p)
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
static const char *written(const char *const *attrs, const char *path)
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
	s->disable_items = calloc((size_t)cpus * (size_t)p->state_count, DISABLE_ITEM_LEN);
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

				snprintf(item, DISABLE_ITEM_LEN, "cpu%u/cpuidle/state%d/disable=1",
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
	const char *v = written(grid->attrs, GROW_START_ATTR);
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
	for (pair = 0; pair < NR_PAIRS; pair++) {
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
static int plan_sweeps(struct sweeps *s, const struct cpuidle_lab_run *run,
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
	v = written(run->attrs, ADVISE_GROW_ATTR);
	s->now_grow = v ? v : HALTPOLL_GROW_DEFAULT;
	v = written(run->attrs, ADVISE_SHRINK_ATTR);
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
static int run_sweeps(struct sweeps *s, struct advice *adv, struct cpuidle_lab_sweep_error *fail)
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

static void free_sweeps(struct sweeps *s)
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
static void setting_of(const struct sweeps *s, const struct candidate *c,
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

static double change_pct(double now, double then)
{
	return then > 0 ? 100.0 * (now - then) / then : 0;
}

/* the advice's predicted figures against the second recording's */
struct applied_figure {
	const char *name;
	double predicted, measured;
};

static int applied_figures(const struct idle_figures *p, const struct idle_figures *m,
			   const struct cpuidle_platform *plat, struct applied_figure *out)
{
	static char share_name[CPUIDLE_NAME_LEN + 16];
	int n = 0;

	snprintf(share_name, sizeof(share_name), "share_pct:%s", plat->states[0].name);
	out[n++] = (struct applied_figure){ share_name, p->share_pct[0], m->share_pct[0] };
	out[n++] = (struct applied_figure){ "entries_per_s", p->entries_per_s, m->entries_per_s };
	if (m->misses_known) {
		out[n++] = (struct applied_figure){ "above_pct", p->above_pct, m->above_pct };
		out[n++] = (struct applied_figure){ "below_pct", p->below_pct, m->below_pct };
	}
	out[n++] = (struct applied_figure){ "stays_ks",
					    idle_figures_stays_distance(p->stays, m->stays), 0 };
	return n;
}

static void print_applied(const char *out, bool restore, const struct idle_figures *p,
			  const struct idle_figures *m, const struct cpuidle_platform *plat)
{
	struct applied_figure f[5];
	int n = applied_figures(p, m, plat, f), i;

	printf("  applied, then recorded %s (%.1f s)%s: predicted / measured\n", out,
	       (double)m->span_ns / 1e9, restore ? ", the previous settings put back" : "");
	for (i = 0; i < n; i++)
		printf("    %-24s %10.3f %10.3f %+10.3f\n", f[i].name, f[i].predicted, f[i].measured,
		       f[i].predicted - f[i].measured);
}

static void print_applied_json(const char *out, bool restore, const struct idle_figures *p,
			       const struct idle_figures *m, const struct cpuidle_platform *plat)
{
	struct applied_figure f[5];
	int n = applied_figures(p, m, plat, f), i;

	printf(", \"applied\": {\"recording\": ");
	json_string(stdout, out);
	printf(", \"span_ns\": %lld, \"restored\": %s, \"figures\": [", (long long)m->span_ns,
	       restore ? "true" : "false");
	for (i = 0; i < n; i++) {
		printf("%s{\"metric\": ", i ? ", " : "");
		json_string(stdout, f[i].name);
		if (isnan(f[i].predicted))
			printf(", \"predicted\": null, \"measured\": %.6g}", f[i].measured);
		else
			printf(", \"predicted\": %.6g, \"measured\": %.6g}", f[i].predicted,
			       f[i].measured);
	}
	printf("]}");
}

/* the most commands an advice takes: set -g, set -d, three echos, qos hold */
#define ADVISE_MAX_COMMANDS	6
/* one: "cpuidle set" and a "-d K" for each state, or an echo to a parameter */
#define ADVISE_COMMAND_LEN	(64 + 6 * CPUIDLE_STATE_MAX)

/**
 * struct shown - an advice as it is printed
 * @st: its setting
 * @haltpoll: its governor is haltpoll
 * @grow: haltpoll's guest_halt_poll_grow under it (NULL: another governor)
 * @shrink: haltpoll's guest_halt_poll_shrink under it (likewise)
 * @deepest: the platform's deepest state
 * @what: the setting in words: "haltpoll, guest_halt_poll_ns=400000, ..."
 * @cmds: the commands that apply it (none where the current one is kept)
 * @nr_cmds: how many
 */
struct shown {
	struct advise_setting st;
	bool haltpoll;
	const char *grow, *shrink;
	int deepest;
	char what[512];
	char cmds[ADVISE_MAX_COMMANDS][ADVISE_COMMAND_LEN];
	unsigned int nr_cmds;
};

__attribute__((format(printf, 2, 3)))
static void add_command(struct shown *sh, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sh->cmds[sh->nr_cmds++], ADVISE_COMMAND_LEN, fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 2, 3)))
static void add_words(struct shown *sh, const char *fmt, ...)
{
	size_t n = strlen(sh->what);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sh->what + n, sizeof(sh->what) - n, fmt, ap);
	va_end(ap);
}

/* candidate @b as printed, against @run (now); @keep: the current setting is kept */
static void show_advice(const struct sweeps *s, const struct candidate *b,
			const struct cpuidle_lab_run *run, bool keep, struct shown *sh)
{
	const struct cpuidle_platform *p = run->platform;
	const char *now_window = written(run->attrs, ADVISE_WINDOW_ATTR);
	bool gov_change, window_change, grow_change, shrink_change;
	int k;

	memset(sh, 0, sizeof(*sh));
	setting_of(s, b, &sh->st);
	sh->deepest = p->state_count - 1;
	sh->haltpoll = !strcmp(sh->st.governor, "haltpoll");
	if (sh->haltpoll) {
		sh->grow = sh->st.grow ? sh->st.grow : s->now_grow;
		sh->shrink = sh->st.shrink ? sh->st.shrink : s->now_shrink;
	}
	gov_change = strcmp(sh->st.governor, run->governor);
	window_change = sh->haltpoll && (!now_window || strcmp(now_window, sh->st.window));
	grow_change = sh->st.grow && strcmp(sh->st.grow, s->now_grow);
	shrink_change = sh->st.shrink && strcmp(sh->st.shrink, s->now_shrink);

	add_words(sh, "%s", sh->st.governor);
	if (sh->haltpoll)
		add_words(sh, ", guest_halt_poll_ns=%s", sh->st.window);
	if (grow_change)
		add_words(sh, ", guest_halt_poll_grow=%s", sh->st.grow);
	if (shrink_change)
		add_words(sh, ", guest_halt_poll_shrink=%s", sh->st.shrink);
	if (sh->st.disable_from == sh->deepest)
		add_words(sh, ", state%d (%s) disabled", sh->deepest, p->states[sh->deepest].name);
	else if (sh->st.disable_from)
		add_words(sh, ", states %d-%d (%s and deeper) disabled", sh->st.disable_from,
			  sh->deepest, p->states[sh->st.disable_from].name);
	if (sh->st.qos_us >= 0)
		add_words(sh, ", CPU latency QoS %d us", sh->st.qos_us);
	if (keep)
		return;
	if (gov_change)
		add_command(sh, CLI_NAME " set -g %s", sh->st.governor);
	if (sh->st.disable_from) {
		char *c = sh->cmds[sh->nr_cmds++];
		size_t n = (size_t)snprintf(c, ADVISE_COMMAND_LEN, CLI_NAME " set");

		for (k = sh->st.disable_from; k <= sh->deepest && n < ADVISE_COMMAND_LEN; k++)
			n += (size_t)snprintf(c + n, ADVISE_COMMAND_LEN - n, " -d %d", k);
	}
	if (window_change)
		add_command(sh, "echo %s > /sys/" ADVISE_WINDOW_ATTR, sh->st.window);
	if (grow_change)
		add_command(sh, "echo %s > /sys/" ADVISE_GROW_ATTR, sh->st.grow);
	if (shrink_change)
		add_command(sh, "echo %s > /sys/" ADVISE_SHRINK_ATTR, sh->st.shrink);
	if (sh->st.qos_us >= 0)
		add_command(sh, CLI_NAME " qos hold %d -- WORKLOAD", sh->st.qos_us);
}

static void json_string_or_null(const char *s)
{
	if (s)
		json_string(stdout, s);
	else
		printf("null");
}

/* @sh's setting as JSON members: governor .. qos_us */
static void print_setting_json(const struct shown *sh)
{
	int k;

	printf("\"governor\": ");
	json_string(stdout, sh->st.governor);
	printf(", \"guest_halt_poll_ns\": ");
	json_string_or_null(sh->haltpoll ? sh->st.window : NULL);
	printf(", \"guest_halt_poll_grow\": ");
	json_string_or_null(sh->grow);
	printf(", \"guest_halt_poll_shrink\": ");
	json_string_or_null(sh->shrink);
	printf(", \"disabled_states\": [");
	for (k = sh->st.disable_from; k && k <= sh->deepest; k++)
		printf("%s%d", k > sh->st.disable_from ? ", " : "", k);
	printf("], \"qos_us\": ");
	if (sh->st.qos_us >= 0)
		printf("%d", sh->st.qos_us);
	else
		printf("null");
}

/* each sweep's best candidate within the budget, or null */
static void print_kinds_json(const struct sweeps *s, const struct advice *adv,
			     const int *best_of, const struct cpuidle_lab_run *run,
			     struct shown *sh)
{
	static const char *const kinds[NR_SWEEPS] = {
		[SWEEP_GRID] = "grid",
		[SWEEP_DEPTH] = "disabled_states",
		[SWEEP_ADAPT] = "grow_shrink",
	};
	unsigned int i;

	printf(", \"best_by_kind\": {");
	for (i = 0; i < NR_SWEEPS; i++) {
		const struct candidate *c = best_of[i] >= 0 ? &adv->rows[best_of[i]] : NULL;

		printf("%s\"%s\": ", i ? ", " : "", kinds[i]);
		if (!c) {
			printf("null");
			continue;
		}
		show_advice(s, c, run, true, sh);
		printf("{");
		print_setting_json(sh);
		printf(", \"energy_mj\": %.3f, \"latency_p99_us\": %.3f}", c->energy_mj,
		       (double)c->p99_ns / 1000.0);
	}
	printf("}");
}

int cmd_advise(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "platform", required_argument, NULL, 'p' },
		{ "governor", required_argument, NULL, 'g' },
		{ "set", required_argument, NULL, 's' },
		{ "latency-budget-us", required_argument, NULL, 'B' },
		{ "json", no_argument, NULL, 'J' },
		{ "apply", no_argument, NULL, 'A' },
		{ "restore", no_argument, NULL, 'R' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *platform_spec = NULL, *gov = NULL, *path, *out_path = NULL;
	char *const *cmd = NULL;
	bool apply = false, restore = false, applied = false;
	struct advise_host host = { 0 };
	const char *govs[ARRAY_SIZE(host_governors)];
	unsigned int nr_govs = 0;
	struct idle_figures *advised = NULL, *after = NULL;
	struct sweeps *sws = NULL;
	const char *attrs[ADVISE_MAX_ATTRS + 1];
	int nr_attrs = 0, c, ret, status = 1;
	long long budget_us = -1;
	bool json = false;
	static struct recording rec;
	struct cpuidle_lab_trace *trace = NULL;
	struct cpuidle_lab_fidelity *plan = NULL;
	struct cpuidle_lab_sweep_error fail;
	struct cpuidle_lab_batch_error bfail;
	struct cpuidle_lab_result *now = NULL;
	struct idle_figures *kernel = NULL, *replayed = NULL;
	struct advice adv = { 0 };
	unsigned int i, best = 0;
	int best_of[NR_SWEEPS] = { -1, -1, -1 };	/* per sweep, its best row */
	bool found = false, keep = false;
	char ivf[4096], err[600];
	int tmp = 0;
	uint64_t budget_ns;

	optind = 1;
	/* "+": options before TRACE, and what follows "--" is the workload's */
	while ((c = getopt_long(argc, argv, "+p:g:s:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			platform_spec = optarg;
			break;
		case 'g':
			gov = optarg;
			break;
		case 'A':
			apply = true;
			break;
		case 'R':
			restore = true;
			break;
		case 'o':
			out_path = optarg;
			break;
		case 's':
			if (nr_attrs == ADVISE_MAX_ATTRS) {
				cli_error("advise", "at most %d -s", ADVISE_MAX_ATTRS);
				return 2;
			}
			attrs[nr_attrs++] = optarg;
			break;
		case 'B': {
			char *end;

			errno = 0;
			budget_us = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end || budget_us < 0 ||
			    budget_us > INT32_MAX) {
				cli_error("advise", "--latency-budget-us '%s': microseconds, 0 to %d",
					  optarg, INT32_MAX);
				return 2;
			}
			break;
		}
		case 'J':
			json = true;
			break;
		case 'h':
			advise_usage(stdout);
			return 0;
		default:
			advise_usage(stderr);
			return 2;
		}
	}
	if (optind < argc - 1 && !strcmp(argv[optind + 1], "--")) {
		cmd = argv + optind + 2;
		if (!*cmd || !apply) {
			cli_error("advise", !*cmd ? "-- without a command" :
				  "-- CMD: the workload run while --apply records");
			return 2;
		}
	} else if (optind != argc - 1) {
		advise_usage(stderr);
		return 2;
	}
	attrs[nr_attrs] = NULL;
	path = argv[optind];
	if ((restore || out_path) && !apply) {
		cli_error("advise", "--restore and -o go with --apply");
		return 2;
	}
	if (apply && !out_path) {
		cli_error("advise", "--apply needs -o FILE: where the second recording goes");
		return 2;
	}
	if (apply && geteuid())
		return cli_error("advise", "--apply needs root (it changes the host's cpuidle)");
	if (apply && !access(out_path, F_OK))
		return cli_error("advise", "%s exists: the second recording would replace it",
				 out_path);
	if (!strcmp(path, "-"))	/* read twice: the kernel's figures, then the replays */
		return cli_error("advise", "standard input cannot be read twice: give a file");
	if (access(path, R_OK))
		return cli_error("advise", "%s: %s", path, strerror(errno));
	if (cli_recording("advise", path, &rec))
		return 1;
	if (cli_intervals("advise", path, ivf, sizeof(ivf), &tmp, NULL))
		return 1;
	/* the governors: the lab's ports of the kernel's, the host's own alone with --apply */
	if (apply && advise_host_read(&host, err, sizeof(err))) {
		cli_error("advise", "%s", err);
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(host_governors); i++)
		if (!apply || advise_host_has_governor(&host, host_governors[i]))
			govs[nr_govs++] = host_governors[i];
	if (!nr_govs) {
		cli_error("advise", "the host offers none of ladder, menu, teo, haltpoll (it "
			  "has: %s)", host.available);
		goto out;
	}
	now = calloc(1, sizeof(*now));
	kernel = calloc(1, sizeof(*kernel));
	replayed = calloc(1, sizeof(*replayed));
	advised = calloc(1, sizeof(*advised));
	after = calloc(1, sizeof(*after));
	sws = calloc(1, sizeof(*sws));
	if (!now || !kernel || !replayed || !advised || !after || !sws) {
		cli_error("advise", "out of memory");
		goto out;
	}
	ret = cpuidle_lab_trace_open(ivf, &(struct cpuidle_lab_open_options){ .stream = true },
				     &trace, err, sizeof(err));
	/* the recording's own setting, replayed as sim does: "now" */
	if (!ret)
		ret = cpuidle_lab_fidelity_plan(path, trace, &(struct cpuidle_lab_fidelity_options){
							.governor = gov,
							.platform = platform_spec,
							.attrs = attrs,
							.no_kernel_loop = true,
						}, &plan, err, sizeof(err));
	if (ret) {
		cli_error("advise", "%s%s", err, ret == -ENOENT ? " (-g)" : "");
		goto out;
	}
	/* the host's own table has no powers: a bundled platform with the same states */
	if (!platform_spec && !cpuidle_platform_power_known(cpuidle_lab_fidelity_run(plan)->platform)) {
		const char *twin = powered_twin(cpuidle_lab_fidelity_run(plan)->platform);

		if (twin) {
			cli_say(CLI_NAME " advise: note: %s: its platform gives no power; modelled "
				"as %s, whose states are the same (-p chooses another)\n", path, twin);
			cpuidle_lab_fidelity_free(plan);
			plan = NULL;
			ret = cpuidle_lab_fidelity_plan(path, trace,
							&(struct cpuidle_lab_fidelity_options){
								.governor = gov,
								.platform = twin,
								.attrs = attrs,
								.no_kernel_loop = true,
							}, &plan, err, sizeof(err));
			if (ret) {
				cli_error("advise", "%s", err);
				goto out;
			}
		}
	}
	{
		struct cpuidle_lab_run run = *cpuidle_lab_fidelity_run(plan);

		run.on_decision = idle_figures_keep_stay;
		run.decision_ctx = replayed;
		if (cpuidle_lab_replay_many(&run, now, 1, 1, &bfail)) {
			cli_error("advise", "%s as recorded: %s", path,
				  bfail.msg[0] ? bfail.msg : strerror(-bfail.error));
			goto out;
		}
		if (!now->energy_known) {
			cli_error("advise", "platform %s gives no power for some state: energy "
				  "cannot be compared (-p a platform with power figures)",
				  run.platform->name);
			goto out;
		}
		idle_figures_replay(replayed, now);
	}
	if (idle_figures_kernel(path, cpuidle_lab_fidelity_run(plan)->platform, kernel, err,
				sizeof(err))) {
		cli_error("advise", "%s", err);
		goto out;
	}
	budget_ns = budget_us >= 0 ? (uint64_t)budget_us * 1000 : now->p99_added_latency_ns;

	/* every setting (struct sweeps); the sweeps keep their specs, for the advice's replay again */
	ret = plan_sweeps(sws, cpuidle_lab_fidelity_run(plan), trace, govs, nr_govs);
	if (ret) {
		cli_error("advise", "%s: %s", path, strerror(-ret));
		goto out;
	}
	if (sws->unfit)
		cli_say(CLI_NAME " advise: note: %s: disabling state%d and the deeper ones (or "
			"a shallower state and the deeper ones) on each of its %u CPUs takes more "
			"than the %d attribute writes a replay makes: those depths are not "
			"considered\n", path, sws->unfit, cpuidle_lab_trace_cpus(trace),
			CPUIDLE_LAB_MAX_ATTRS);
	if (sws->adapt_unfit)
		cli_say(CLI_NAME " advise: note: %s: its own attribute writes leave no room for "
			"haltpoll's grow and shrink (at most %d a replay): they are not "
			"considered\n", path, CPUIDLE_LAB_MAX_ATTRS);
	ret = run_sweeps(sws, &adv, &fail);
	if (ret) {
		cli_error("advise", "%s: %s", path, fail.msg[0] ? fail.msg : strerror(-ret));
		goto out;
	}
	/* the least energy within the budget, with no QoS violation; the first of equals */
	for (i = 0; i < adv.n; i++) {
		const struct candidate *r = &adv.rows[i];
		int *kb = &best_of[r->sweep];

		if (r->p99_ns > budget_ns || r->violations || isnan(r->energy_mj))
			continue;
		if (*kb < 0 || r->energy_mj < adv.rows[*kb].energy_mj)
			*kb = (int)i;
		if (!found || r->energy_mj < adv.rows[best].energy_mj) {
			best = i;
			found = true;
		}
	}
	/* where now meets the budget, a saving smaller than the noise is no reason to change */
	if (found && now->p99_added_latency_ns <= budget_ns && !now->qos_violations &&
	    change_pct(adv.rows[best].energy_mj, cpuidle_lab_energy_mj(now)) > -ADVISE_MIN_SAVING_PCT)
		keep = true;
	/* --apply: the advice replayed again for its figures, set, recorded, measured */
	if (apply && found && !keep) {
		const struct candidate *b = &adv.rows[best];
		struct cpuidle_lab_result *res = calloc(1, sizeof(*res));
		struct cpuidle_lab_job job;
		struct advise_setting st;

		if (!res) {
			cli_error("advise", "out of memory");
			goto out;
		}
		setting_of(sws, b, &st);
		cpuidle_lab_sweep_config(sws->sw[b->sweep], &b->at, &job);
		job.cfg.on_decision = idle_figures_keep_stay;
		job.cfg.decision_ctx = advised;
		ret = cpuidle_lab_replay_many(&job.cfg, res, 1, 1, &bfail);
		if (!ret)
			idle_figures_replay(advised, res);
		free(res);
		if (ret) {
			cli_error("advise", "%s as advised: %s", path,
				  bfail.msg[0] ? bfail.msg : strerror(-bfail.error));
			goto out;
		}
		if (advise_apply(&host, &st, out_path, kernel->span_ns, cmd, restore))
			goto out;
		if (idle_figures_kernel(out_path, cpuidle_lab_fidelity_run(plan)->platform, after,
					err, sizeof(err))) {
			cli_error("advise", "%s", err);
			goto out;
		}
		applied = true;
	} else if (apply) {
		cli_say(CLI_NAME " advise: nothing to apply (%s)\n", found ?
			"the current setting is kept" : "no setting meets the budget");
	}
	{
		const struct cpuidle_lab_run *run = cpuidle_lab_fidelity_run(plan);
		const char *now_window = written(run->attrs, ADVISE_WINDOW_ATTR);
		const char *now_grow = written(run->attrs, ADVISE_GROW_ATTR);
		const char *now_shrink = written(run->attrs, ADVISE_SHRINK_ATTR);
		double e_now = cpuidle_lab_energy_mj(now);
		double err_eps = change_pct(replayed->entries_per_s, kernel->entries_per_s);
		double err_share = replayed->share_pct[0] - kernel->share_pct[0];
		double ks = idle_figures_stays_distance(replayed->stays, kernel->stays);
		const struct candidate *b = found ? &adv.rows[best] : NULL;
		struct shown *sh = calloc(1, sizeof(*sh));

		if (!sh) {
			cli_error("advise", "out of memory");
			goto out;
		}
		if (b)
			show_advice(sws, b, run, keep, sh);
		if (json) {
			printf("{\"trace\": ");
			json_string(stdout, path);
			printf(", \"platform\": ");
			json_string(stdout, run->platform->name);
			printf(", \"now\": {\"governor\": ");
			json_string(stdout, run->governor);
			printf(", \"guest_halt_poll_ns\": ");
			json_string_or_null(now_window);
			printf(", \"guest_halt_poll_grow\": ");
			json_string_or_null(now_grow);
			printf(", \"guest_halt_poll_shrink\": ");
			json_string_or_null(now_shrink);
			printf(", \"energy_mj\": %.3f, \"latency_p99_us\": %.3f}",
			       e_now, (double)now->p99_added_latency_ns / 1000.0);
			printf(", \"budget_us\": %.3f", (double)budget_ns / 1000.0);
			printf(", \"model_error\": {\"entries_per_s_pct\": %.3f, "
			       "\"share_pct_state0\": %.3f, \"stays_ks\": ", err_eps, err_share);
			if (isnan(ks))
				printf("null}");
			else
				printf("%.4f}", ks);
			printf(", \"candidates\": %u, \"candidates_by_kind\": {\"grid\": %u, "
			       "\"disabled_states\": %u, \"grow_shrink\": %u}", adv.n,
			       sws->rows[SWEEP_GRID], sws->rows[SWEEP_DEPTH], sws->rows[SWEEP_ADAPT]);
			print_kinds_json(sws, &adv, best_of, run, sh);
			printf(", \"keep\": %s, \"advice\": ", keep ? "true" : "false");
			if (!b) {
				printf("null}\n");
			} else {
				show_advice(sws, b, run, keep, sh);
				printf("{");
				print_setting_json(sh);
				printf(", \"energy_mj\": %.3f, \"energy_change_pct\": %.3f, "
				       "\"latency_p99_us\": %.3f, \"commands\": [",
				       b->energy_mj, change_pct(b->energy_mj, e_now),
				       (double)b->p99_ns / 1000.0);
				for (i = 0; i < sh->nr_cmds; i++) {
					printf("%s", i ? ", " : "");
					json_string(stdout, sh->cmds[i]);
				}
				printf("]}");
				if (applied)
					print_applied_json(out_path, restore, advised, after,
							   run->platform);
				printf("}\n");
			}
		} else {
			printf("%s on %s\n", path, run->platform->name);
			printf("  now:    %s", run->governor);
			if (now_window)
				printf(", guest_halt_poll_ns=%s", now_window);
			if (now_grow)
				printf(", guest_halt_poll_grow=%s", now_grow);
			if (now_shrink)
				printf(", guest_halt_poll_shrink=%s", now_shrink);
			printf(", %.1f mJ, p99 added wake-up latency %.1f us\n", e_now,
			       (double)now->p99_added_latency_ns / 1000.0);
			printf("  budget: p99 added wake-up latency <= %.1f us%s\n",
			       (double)budget_ns / 1000.0, budget_us < 0 ? " (now's)" : "");
			if (!b) {
				printf("  advice: none of the %u settings meets the budget\n", adv.n);
			} else {
				printf("  %s: %s: %.1f mJ (%+.2f%%), p99 %.1f us (of %u settings)\n",
				       keep ? "best" : "advice", sh->what, b->energy_mj,
				       change_pct(b->energy_mj, e_now), (double)b->p99_ns / 1000.0,
				       adv.n);
				if (keep)
					printf("    keep the current setting: a saving under %.0f%% is "
					       "within what two recordings of one workload differ by\n",
					       ADVISE_MIN_SAVING_PCT);
				else if (!sh->nr_cmds)
					printf("    (keep the current setting)\n");
				for (i = 0; i < sh->nr_cmds; i++)
					printf("    %s\n", sh->cmds[i]);
			}
			if (applied)
				print_applied(out_path, restore, advised, after, run->platform);
			printf("  the model's error on this recording, replayed as recorded: entries/s "
			       "%+.1f%%, %s share %+.2f points", err_eps,
			       run->platform->states[0].name, err_share);
			if (!isnan(ks))
				printf(", stays' distance %.3f", ks);
			printf(" (cpuidle validate)\n");
		}
		free(sh);
		if (fflush(stdout)) {
			cli_error("advise", "stdout: %s", strerror(errno));
			goto out;
		}
	}
	status = 0;
out:
	free_sweeps(sws);
	advise_host_free(&host);
	cpuidle_lab_fidelity_free(plan);
	cpuidle_lab_trace_close(trace);
	if (tmp)
		cli_temp_remove(ivf);
	free(adv.rows);
	free(now);
	free(kernel);
	free(replayed);
	free(advised);
	free(after);
	return status;
}
