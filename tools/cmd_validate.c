// SPDX-License-Identifier: MIT
/*
 * cmd_validate.c - "cpuidle validate": the lab's what-if checked against
 * the kernel's own outcome.  Recordings of one workload under several
 * settings (WORKLOAD-SETTING.*: a governor, haltpollN for haltpoll with an
 * N us window): each is replayed under every setting of its workload and
 * the prediction compared with what the kernel did in a recording made
 * under that setting (cpuidle stats' figures): the share of idle time per
 * state, entries per second, too-deep (above) and too-shallow (below)
 * rates.  Where two recordings of one setting exist, their difference is
 * the noise floor each error is judged against.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "intervals.h"
#include "recording.h"
#include "idle_figures.h"
#include "validate_report.h"
#include "cpuidle/lab.h"
#include "math_lib.h"

static void validate_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " validate [-p PLATFORM] [-s SETTING:PATH=VALUE]...\n"
		"       [--kernel-loop | --event-cost-off] [--csv | --json] [--report FILE.html]\n"
		"       TRACE...\n\n"
		"Check the lab's predictions against the kernel.  The traces are\n"
		"recordings of workloads under settings, named WORKLOAD-SETTING.* (SETTING:\n"
		"a governor, or haltpollN: haltpoll with guest_halt_poll_ns = N us), or\n"
		"described by cpuidle record.  Each recording is replayed under every\n"
		"setting its workload was recorded under (its own too), and each\n"
		"prediction compared with the first recording of that setting: the share\n"
		"of idle time in each state, idle entries per second, and the shares of\n"
		"entries too deep (above) and too shallow (below).  A second recording of\n"
		"a setting gives the noise floor: how much two runs differ by themselves;\n"
		"an error is within its goal if it is at most 1.5 times that, else (no\n"
		"second recording) at most 2 percentage points, or 10%% for entries per\n"
		"second.\n\n"
		"  -p, --platform SPEC     the platform (default: a recording's\n"
		"                          description's, else haltpoll-vm)\n"
		"  -s, --set SETTING:PATH=VALUE  a write added to SETTING's replays (what\n"
		"                          a name cannot say), e.g. -s haltpoll:module/\n"
		"                          haltpoll/parameters/guest_halt_poll_ns=0\n"
		"      --kernel-loop       replay the kernel's idle loop as traced (its tick\n"
		"                          wake-ups and re-entries), not as sim does\n"
		"      --event-cost-off    take the trace's own cost of writing its events\n"
		"                          off every idle period (doc/validate.md)\n"
		"      --csv | --json      machine-readable output (one of them)\n"
		"      --report FILE.html  also write the figures as one HTML page (charts\n"
		"                          of predicted against measured, each workload's\n"
		"                          table)\n"
		CLI_USAGE_QUIET
		"  -h, --help              this text\n\n"
		"See cpuidle-validate(1).\n");
}

#define VALIDATE_MAX_ATTRS	32
/*
 * a share per state but the deepest, entries/s, above, below, two window
 * figures, an overlap per state but the shallowest, stays
 */
#define VALIDATE_MAX_METRICS	(2 * CPUIDLE_STATE_MAX + 6)
#define NOISE_FACTOR		1.5	/* the goal: within 1.5 noise floors */
#define NO_REPEAT_PP		2.0	/* ... or 2 percentage points without a repeat */
#define NO_REPEAT_REL		0.10	/* ... or 10% for a rate */
/*
 * A noise floor of 0 (neither run ever polled, say) judges an error at
 * the figures' resolution: a share to 0.01 point, a rate to 0.1%, below
 * which a difference is rounding, not a prediction.
 */
#define RESOLUTION_PP		0.01
#define RESOLUTION_REL		0.001
#define RESOLUTION_KS		0.001

enum metric_kind { METRIC_SHARE, METRIC_RATE, METRIC_DISTANCE };

struct input {
	const char *path;
	char workload[128];
	char setting[CPUIDLE_NAME_LEN + 16];
	int setting_id;			/* index of its setting's first recording */
	int repeat;			/* 0: the first of its setting */
	const char *set_attrs[VALIDATE_MAX_ATTRS + 1];	/* -s for its setting */
	struct cpuidle_lab_fidelity *plan;	/* its setting: governor, writes, platform */
	struct idle_figures measured;
	char ivf[4096];
	int tmp;
	struct cpuidle_lab_trace *trace;
};

/* a replay of @source under @target's setting */
struct pair {
	int source, target;
	struct idle_figures predicted;
};

/* "io-haltpoll200.perf.txt.xz" -> workload "io", setting "haltpoll200" */
static int split_name(struct input *in)
{
	const char *base = strrchr(in->path, '/'), *dot, *dash;
	size_t n;

	base = base ? base + 1 : in->path;
	dot = strchr(base, '.');
	n = dot ? (size_t)(dot - base) : strlen(base);
	for (dash = base + n; dash > base && dash[-1] != '-'; dash--)
		;
	if (dash <= base + 1 || dash == base + n)
		return -EINVAL;
	snprintf(in->workload, sizeof(in->workload), "%.*s", (int)(dash - 1 - base), base);
	snprintf(in->setting, sizeof(in->setting), "%.*s", (int)(base + n - dash), dash);
	return 0;
}

/* one figure of a pair: its name, kind and values */
struct metric {
	char name[CPUIDLE_NAME_LEN + 16];
	enum metric_kind kind;
	double predicted, measured, noise;	/* noise NAN: no second recording */
	bool known;
};

static int metrics_of(const struct idle_figures *p, const struct idle_figures *m,
		      const struct idle_figures *repeat, const struct cpuidle_platform *plat,
		      struct metric *out)
{
	int n = 0, s;

	/* every state's share but the deepest's, which is the rest */
	for (s = 0; s + 1 < m->nr_states && s + 1 < p->nr_states; s++, n++) {
		snprintf(out[n].name, sizeof(out[n].name), "share_pct:%s",
			 s < (int)plat->state_count ? plat->states[s].name : "?");
		out[n].kind = METRIC_SHARE;
		out[n].predicted = p->share_pct[s];
		out[n].measured = m->share_pct[s];
		out[n].noise = repeat ? fabs(repeat->share_pct[s] - m->share_pct[s]) : NAN;
		out[n].known = true;
	}
	out[n] = (struct metric){ .name = "entries_per_s", .kind = METRIC_RATE,
				  .predicted = p->entries_per_s, .measured = m->entries_per_s,
				  .noise = repeat ? fabs(repeat->entries_per_s - m->entries_per_s) : NAN,
				  .known = true };
	n++;
	out[n] = (struct metric){ .name = "above_pct", .kind = METRIC_SHARE,
				  .predicted = p->above_pct, .measured = m->above_pct,
				  .noise = repeat ? fabs(repeat->above_pct - m->above_pct) : NAN,
				  .known = m->misses_known && (!repeat || repeat->misses_known) };
	n++;
	out[n] = (struct metric){ .name = "below_pct", .kind = METRIC_SHARE,
				  .predicted = p->below_pct, .measured = m->below_pct,
				  .noise = repeat ? fabs(repeat->below_pct - m->below_pct) : NAN,
				  .known = m->misses_known && (!repeat || repeat->misses_known) };
	n++;
	/* haltpoll's window, where the kernel logged it (a haltpoll setting) */
	out[n] = (struct metric){ .name = "window_widened_per_s", .kind = METRIC_RATE,
				  .predicted = p->widened_per_s, .measured = m->widened_per_s,
				  .noise = repeat ? fabs(repeat->widened_per_s - m->widened_per_s) : NAN,
				  .known = p->windows_known && m->windows_known &&
					   (!repeat || repeat->windows_known) };
	n++;
	out[n] = (struct metric){ .name = "window_mean_ns", .kind = METRIC_RATE,
				  .predicted = p->window_mean_ns, .measured = m->window_mean_ns,
				  .noise = repeat ? fabs(repeat->window_mean_ns - m->window_mean_ns) : NAN,
				  .known = out[n - 1].known };
	n++;
	/* the clusters' overlap: all their CPUs that deep at once */
	for (s = 1; s < m->nr_states && s < p->nr_states; s++, n++) {
		snprintf(out[n].name, sizeof(out[n].name), "together_pct:%s",
			 s < (int)plat->state_count ? plat->states[s].name : "?");
		out[n].kind = METRIC_SHARE;
		out[n].predicted = p->together_pct[s];
		out[n].measured = m->together_pct[s];
		out[n].noise = repeat ? fabs(repeat->together_pct[s] - m->together_pct[s]) : NAN;
		out[n].known = p->together_known && m->together_known &&
			       (!repeat || repeat->together_known);
	}
	/*
	 * The stays' distribution: the distance from the kernel's is the
	 * error itself (measured 0); the repeat's distance, its noise.
	 */
	out[n] = (struct metric){ .name = "stays_ks", .kind = METRIC_DISTANCE,
				  .predicted = idle_figures_stays_distance(p->stays, m->stays), .measured = 0,
				  .noise = repeat ? idle_figures_stays_distance(repeat->stays, m->stays) : NAN };
	out[n].known = !isnan(out[n].predicted) && (!repeat || !isnan(out[n].noise));
	return n + 1;
}

/* the error's bound: 1.5 noise floors, else 2 points or 10% */
static double bound_of(const struct metric *m)
{
	double floor = m->kind == METRIC_SHARE ? RESOLUTION_PP :
		       m->kind == METRIC_DISTANCE ? RESOLUTION_KS : RESOLUTION_REL * fabs(m->measured);

	if (!isnan(m->noise))
		return math_max(NOISE_FACTOR * m->noise, floor);
	if (m->kind == METRIC_DISTANCE)
		return NAN;	/* no goal without a repeat: shown, not judged */
	return m->kind == METRIC_SHARE ? NO_REPEAT_PP : NO_REPEAT_REL * fabs(m->measured);
}

struct validate {
	struct input *in;
	int nr_in;
	struct pair *pairs;
	int nr_pairs;
	enum cli_format fmt;
	FILE *out;
	unsigned long within, judged;
	struct validate_cell *cells;	/* every figure: the summary, --report */
	size_t nr_cells, cap_cells;
	bool oom;
};

/* keep a figure for the report */
static void keep_cell(struct validate *v, const struct input *src, const struct input *dst,
		      bool self, const struct metric *m, double bound, bool ok)
{
	struct validate_cell *c;

	if (v->nr_cells == v->cap_cells) {
		size_t cap = v->cap_cells ? 2 * v->cap_cells : 256;

		c = realloc(v->cells, cap * sizeof(*c));
		if (!c) {
			v->oom = true;
			return;
		}
		v->cells = c;
		v->cap_cells = cap;
	}
	c = &v->cells[v->nr_cells++];
	*c = (struct validate_cell){
		.workload = src->workload,
		.source = src->path,
		.target_setting = dst->setting,
		.rate = m->kind == METRIC_RATE,
		.predicted = m->predicted,
		.measured = m->measured,
		.noise = m->noise,
		.bound = bound,
		.within = ok,
		.self = self,
	};
	snprintf(c->source_label, sizeof(c->source_label), "%s%s", src->setting,
		 src->repeat ? " (repeat)" : "");
	snprintf(c->metric, sizeof(c->metric), "%.*s", (int)sizeof(c->metric) - 1, m->name);
}

static void print_metric(struct validate *v, const struct input *src, const struct input *dst,
			 const struct metric *m, double err, double bound, bool judge, bool ok,
			 bool *first)
{
	if (v->fmt == FMT_CSV) {
		fprintf(v->out, "%s,%s,%s,%s,%s,%s,%.6g,%.6g,%.6g,", src->workload, src->path,
			src->setting, dst->path, dst->setting, m->name, m->predicted, m->measured,
			err);
		if (isnan(m->noise))
			fprintf(v->out, ",");
		else
			fprintf(v->out, "%.6g,", m->noise);
		if (judge)
			fprintf(v->out, "%.6g,%d\n", bound, ok);
		else
			fprintf(v->out, ",\n");
	} else if (v->fmt == FMT_JSON) {
		fprintf(v->out, "%s{\"workload\": ", *first ? "" : ",\n ");
		json_string(v->out, src->workload);
		fprintf(v->out, ", \"source\": ");
		json_string(v->out, src->path);
		fprintf(v->out, ", \"source_setting\": ");
		json_string(v->out, src->setting);
		fprintf(v->out, ", \"target\": ");
		json_string(v->out, dst->path);
		fprintf(v->out, ", \"target_setting\": ");
		json_string(v->out, dst->setting);
		fprintf(v->out, ", \"metric\": ");
		json_string(v->out, m->name);
		fprintf(v->out, ", \"predicted\": %.6g, \"measured\": %.6g, \"error\": %.6g",
			m->predicted, m->measured, err);
		if (isnan(m->noise))
			fprintf(v->out, ", \"noise\": null");
		else
			fprintf(v->out, ", \"noise\": %.6g", m->noise);
		if (judge)
			fprintf(v->out, ", \"bound\": %.6g, \"within\": %s}", bound,
				ok ? "true" : "false");
		else
			fprintf(v->out, ", \"bound\": null, \"within\": null}");
		*first = false;
	} else if (m->kind == METRIC_DISTANCE) {
		fprintf(v->out, " %6.3f  %-6s%c", m->predicted, "", judge && !ok ? '*' : ' ');
	} else if (!strcmp(m->name, "window_mean_ns")) {
		/* the text in us, as haltpoll's window is thought of */
		fprintf(v->out, " %7.4g/%-7.4g%c", m->predicted / 1e3, m->measured / 1e3,
			ok ? ' ' : '*');
	} else if (m->kind == METRIC_RATE && !strncmp(m->name, "window_", 7)) {
		fprintf(v->out, " %7.4g/%-7.4g%c", m->predicted, m->measured, ok ? ' ' : '*');
	} else if (m->kind == METRIC_RATE) {
		fprintf(v->out, " %7.0f/%-7.0f%c", m->predicted, m->measured, ok ? ' ' : '*');
	} else {
		fprintf(v->out, " %6.2f/%-6.2f%c", m->predicted, m->measured, ok ? ' ' : '*');
	}
}

/* a figure's column in the table */
static const char *column_label(const char *name)
{
	static const struct {
		const char *name, *label;
	} labels[] = {
		{ "entries_per_s", "entries/s" },
		{ "above_pct", "above%" },
		{ "below_pct", "below%" },
		{ "window_widened_per_s", "widened/s" },
		{ "window_mean_ns", "window us" },
		{ "stays_ks", "stays KS" },
	};
	size_t i;

	static char together[CPUIDLE_NAME_LEN + 8];

	if (!strncmp(name, "share_pct:", 10))
		return name + 10;
	if (!strncmp(name, "together_pct:", 13)) {
		snprintf(together, sizeof(together), "all>=%s", name + 13);
		return together;
	}
	for (i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcmp(name, labels[i].name))
			return labels[i].label;
	return name;
}

/* the table's header for a workload: its figures' names */
static void print_header(struct validate *v, const struct pair *pr)
{
	const struct input *src = &v->in[pr->source];
	struct metric m[VALIDATE_MAX_METRICS];
	int n, i;

	n = metrics_of(&pr->predicted, &v->in[pr->target].measured, NULL,
		       cpuidle_lab_fidelity_run(src->plan)->platform, m);
	fprintf(v->out, "%s (predicted/measured; * beyond its bound)\n  %-22s %-14s",
		src->workload, "recording", "replayed as");
	for (i = 0; i < n; i++)
		fprintf(v->out, m[i].kind == METRIC_RATE ? " %-16s" : " %-14.14s",
			column_label(m[i].name));
	fprintf(v->out, " within\n");
}

static void print_pair(struct validate *v, const struct pair *pr, bool *first)
{
	const struct input *src = &v->in[pr->source], *dst = &v->in[pr->target];
	const struct input *rep = NULL;
	struct metric m[VALIDATE_MAX_METRICS];
	unsigned long within = 0, judged = 0;
	int n, i, j;

	/* the second recording of the target's setting, if any */
	for (j = 0; j < v->nr_in; j++)
		if (v->in[j].setting_id == dst->setting_id && v->in[j].repeat == 1)
			rep = &v->in[j];
	n = metrics_of(&pr->predicted, &dst->measured, rep ? &rep->measured : NULL,
		       cpuidle_lab_fidelity_run(src->plan)->platform, m);
	if (v->fmt == FMT_TABLE) {
		char label[96];

		snprintf(label, sizeof(label), "%s%s", src->setting,
			 src->repeat ? " (repeat)" : "");
		fprintf(v->out, "  %-22s %-14s", label,
			pr->source == pr->target ? "(itself)" : dst->setting);
	}
	for (i = 0; i < n; i++) {
		double err = m[i].predicted - m[i].measured, bound = bound_of(&m[i]);
		bool judge = !isnan(bound), ok = judge && fabs(err) <= bound + 1e-9;

		if (!m[i].known) {
			if (v->fmt == FMT_TABLE)
				fprintf(v->out, m[i].kind == METRIC_RATE ? " %-16s" : " %-14s", "-");
			continue;
		}
		print_metric(v, src, dst, &m[i], err, bound, judge, ok, first);
		keep_cell(v, src, dst, src->setting_id == dst->setting_id, &m[i],
				  judge ? bound : NAN, ok);
		judged += judge;
		within += ok;
	}
	if (v->fmt == FMT_TABLE)
		fprintf(v->out, " %lu/%lu\n", within, judged);
	v->judged += judged;
	v->within += within;
}

/* the table's end: the verdicts by figure, self apart from cross, then in all */
static void print_summary(struct validate *v)
{
	const char *seen[VALIDATE_MAX_METRICS * 2];
	size_t nseen = 0, i, j;

	fprintf(v->out, "\nwithin their bound, by figure: each recording under its own setting; "
		"under the others'\n");
	for (i = 0; i < v->nr_cells; i++) {
		unsigned long w[2] = { 0 }, n[2] = { 0 };
		const char *name = v->cells[i].metric;

		for (j = 0; j < nseen && strcmp(seen[j], name); j++)
			;
		if (j < nseen || nseen == sizeof(seen) / sizeof(seen[0]))
			continue;
		seen[nseen++] = name;
		for (j = i; j < v->nr_cells; j++) {
			const struct validate_cell *c = &v->cells[j];

			if (strcmp(c->metric, name) || isnan(c->bound))
				continue;
			n[!c->self]++;
			w[!c->self] += c->within;
		}
		if (!n[0] && !n[1])
			continue;	/* shown, never judged */
		fprintf(v->out, "  %-28s %5lu of %-5lu %5lu of %lu\n", name, w[0], n[0], w[1],
			n[1]);
	}
	fprintf(v->out, "%lu of %lu figures within their bound (1.5 noise floors where a "
		"setting was recorded twice, else 2 points or 10%%)\n", v->within, v->judged);
}

/* a plan's notes and warnings ("PATH: ..."; @ctx the path), as the other commands say theirs */
static void validate_note(void *ctx, bool warning, const char *msg)
{
	cli_plan_note("validate", ctx, warning, msg);
}

/*
 * The setting a recording was made under, as fidelity replays it
 * (cpuidle_lab_fidelity_plan(): its description, else its name, and
 * haltpoll's cap from the kernel's own adjustments where nothing says
 * it), with the -s writes given for its setting; its trace opened.
 */
static int plan_input(struct input *in, const char *platform_spec, char *const *set_writes,
		      int nr_set_writes)
{
	const struct cpuidle_lab_run *run;
	char err[600];
	int n = 0, i, ret;

	if (split_name(in))
		return cli_error("validate", "%s: name it WORKLOAD-SETTING.* (e.g. "
				 "io-menu.perf.txt.xz) to say what it recorded", in->path);
	for (i = 0; i < nr_set_writes; i++) {
		const char *colon = strchr(set_writes[i], ':');

		if ((size_t)(colon - set_writes[i]) == strlen(in->setting) &&
		    !strncmp(set_writes[i], in->setting, strlen(in->setting)))
			in->set_attrs[n++] = colon + 1;
	}
	in->set_attrs[n] = NULL;
	if (cli_intervals("validate", in->path, in->ivf, sizeof(in->ivf), &in->tmp, NULL))
		return 1;
	if (cpuidle_lab_trace_open(in->ivf, &(struct cpuidle_lab_open_options){ .stream = true },
				   &in->trace, err, sizeof(err)))
		return cli_error("validate", "%s", err);
	ret = cpuidle_lab_fidelity_plan(in->path, in->trace,
					&(struct cpuidle_lab_fidelity_options){
						.platform = platform_spec,
						.attrs = in->set_attrs,
						.note = validate_note,
						.note_ctx = (void *)in->path,
					}, &in->plan, err, sizeof(err));
	if (ret == -ENOENT)
		return cli_error("validate", "%s: setting '%s' names no governor (and the "
				 "recording has no description)", in->path, in->setting);
	if (ret)
		return cli_error("validate", "%s", err);
	run = cpuidle_lab_fidelity_run(in->plan);
	if (!cli_builtin_governor(run->governor))
		return cli_error("validate", "%s: governor '%s' has no port here", in->path,
				 run->governor);
	return 0;
}

static const struct option validate_longopts[] = {
	{ "platform", required_argument, NULL, 'p' },
	{ "set", required_argument, NULL, 's' },
	{ "kernel-loop", no_argument, NULL, 'K' },
	{ "event-cost-off", no_argument, NULL, 'E' },
	{ "csv", no_argument, NULL, 'C' },
	{ "json", no_argument, NULL, 'J' },
	{ "report", required_argument, NULL, 'R' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_validate_opts = {
	.shortopts = "p:s:qh",
	.longopts = validate_longopts,
};

int cmd_validate(int argc, char **argv)
{
	const char *platform_spec = NULL, *report_path = NULL;
	struct cli_out report = { 0 };
	char *set_writes[VALIDATE_MAX_ATTRS];
	struct validate v = { .fmt = FMT_TABLE };
	struct cpuidle_lab_run *runs = NULL;
	struct cpuidle_lab_result *res = NULL;
	struct cpuidle_lab_batch_error fail;
	bool kernel_loop = false, event_cost_off = false, first = true;
	int c, i, j, k, w, nr_set = 0, status = 1;
	char *buf = NULL;
	size_t buflen = 0;
	char err[600];

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_validate_opts)) != -1) {
		switch (c) {
		case 'p':
			platform_spec = optarg;
			break;
		case 's': {
			const char *colon = strchr(optarg, ':');

			if (!colon || colon == optarg || !strchr(colon, '=')) {
				cli_error("validate", "-s '%s': SETTING:PATH=VALUE", optarg);
				return 2;
			}
			if (nr_set == VALIDATE_MAX_ATTRS) {
				cli_error("validate", "at most %d -s", VALIDATE_MAX_ATTRS);
				return 2;
			}
			set_writes[nr_set++] = optarg;
			break;
		}
		case 'K':
			kernel_loop = true;
			break;
		case 'E':
			event_cost_off = true;
			break;
		case 'C':
			v.fmt = FMT_CSV;
			break;
		case 'J':
			v.fmt = FMT_JSON;
			break;
		case 'R':
			report_path = optarg;
			break;
		case 'h':
			validate_usage(stdout);
			return 0;
		default:
			validate_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		validate_usage(stderr);
		return 2;
	}
	if (kernel_loop && event_cost_off) {
		cli_error("validate", "--event-cost-off is for sim's replays: the kernel's loop "
			  "takes the cost off its own way");
		return 2;
	}
	if (report_path) {
		/* not one of the recordings, nor anything that holds a trace */
		const struct cli_out_arg outs[] = { { "--report", report_path, false } };

		if (cli_out_check("validate", outs, 1, (const char *const *)argv + optind,
				  (unsigned int)(argc - optind)) ||
		    cli_out_open("validate", "--report", &report, report_path))
			return 1;
	}
	v.nr_in = argc - optind;
	v.in = calloc((size_t)v.nr_in, sizeof(*v.in));
	if (!v.in) {
		cli_out_abort(&report);
		return cli_error("validate", "out of memory");
	}
	/* every recording named and measured before any replay */
	cli_notes_hold(v.nr_in);	/* a note many recordings give, said once */
	for (i = 0; i < v.nr_in; i++) {
		struct input *in = &v.in[i];

		in->path = argv[optind + i];
		if (!strcmp(in->path, "-")) {	/* read twice: the kernel's figures, the replays */
			cli_error("validate", "standard input cannot be read twice: give files");
			goto out;
		}
		if (access(in->path, R_OK)) {
			cli_error("validate", "%s: %s", in->path, strerror(errno));
			goto out;
		}
		if (plan_input(in, platform_spec, set_writes, nr_set))
			goto out;
		for (j = 0; j < i; j++)
			if (!strcmp(v.in[j].workload, in->workload) &&
			    !strcmp(v.in[j].setting, in->setting))
				break;
		in->setting_id = j < i ? v.in[j].setting_id : i;
		for (in->repeat = 0, j = 0; j < i; j++)
			in->repeat += v.in[j].setting_id == in->setting_id;
		if (idle_figures_kernel(in->path, cpuidle_lab_fidelity_run(in->plan)->platform,
					&in->measured, err,
					sizeof(err))) {
			cli_error("validate", "%s", err);
			goto out;
		}
	}
	/* every recording under every setting of its workload (its own too) */
	v.pairs = calloc((size_t)v.nr_in * (size_t)v.nr_in, sizeof(*v.pairs));
	if (!v.pairs) {
		cli_error("validate", "out of memory");
		goto out;
	}
	/* a workload's together, in the order its recordings came */
	for (w = 0; w < v.nr_in; w++) {
		for (k = 0; k < w && strcmp(v.in[k].workload, v.in[w].workload); k++)
			;
		if (k < w)
			continue;	/* not the workload's first recording */
		for (i = w; i < v.nr_in; i++)
			for (j = 0; j < v.nr_in; j++)
				if (!strcmp(v.in[i].workload, v.in[w].workload) &&
				    !strcmp(v.in[j].workload, v.in[w].workload) && !v.in[j].repeat)
					v.pairs[v.nr_pairs++] = (struct pair){ .source = i,
									       .target = j };
	}
	runs = calloc((size_t)v.nr_pairs, sizeof(*runs));
	res = calloc((size_t)v.nr_pairs, sizeof(*res));
	if (!runs || !res) {
		cli_error("validate", "out of memory");
		goto out;
	}
	for (i = 0; i < v.nr_pairs; i++) {
		const struct cpuidle_lab_run *src = cpuidle_lab_fidelity_run(v.in[v.pairs[i].source].plan);
		const struct cpuidle_lab_run *dst = cpuidle_lab_fidelity_run(v.in[v.pairs[i].target].plan);

		/* the source's trace and machine, the target's governor and writes */
		runs[i] = (struct cpuidle_lab_run){
			.trace = src->trace,
			.platform = src->platform,
			.governor = dst->governor,
			.qos_us = -1,
			.tick_periodic = src->tick_periodic,
			.kernel_loop = kernel_loop,
			.event_cost_off = event_cost_off,
			.attrs = dst->attrs,
			.on_decision = idle_figures_keep_stay,
			.decision_ctx = &v.pairs[i].predicted,
			.overlap = true,
		};
	}
	if (cpuidle_lab_replay_many(runs, res, (unsigned int)v.nr_pairs, 0, &fail)) {
		const struct input *src = &v.in[v.pairs[fail.job].source];

		cli_error("validate", "%s under %s: %s", src->path,
			  v.in[v.pairs[fail.job].target].setting,
			  fail.msg[0] ? fail.msg : strerror(-fail.error));
		goto out;
	}
	for (i = 0; i < v.nr_pairs; i++) {
		idle_figures_replay(&v.pairs[i].predicted, &res[i]);
		v.pairs[i].predicted.together_known = true;	/* .overlap */
	}

	v.out = open_memstream(&buf, &buflen);
	if (!v.out) {
		cli_error("validate", "out of memory");
		goto out;
	}
	if (v.fmt == FMT_CSV)
		fprintf(v.out, "workload,source,source_setting,target,target_setting,metric,"
			"predicted,measured,error,noise,bound,within\n");
	else if (v.fmt == FMT_JSON)
		fprintf(v.out, "[");
	for (i = 0; i < v.nr_pairs; i++) {
		if (v.fmt == FMT_TABLE && (!i || strcmp(v.in[v.pairs[i].source].workload,
						       v.in[v.pairs[i - 1].source].workload))) {
			if (i)
				fprintf(v.out, "\n");
			print_header(&v, &v.pairs[i]);
		}
		print_pair(&v, &v.pairs[i], &first);
	}
	if (v.fmt == FMT_JSON)
		fprintf(v.out, "]\n");
	else if (v.fmt == FMT_TABLE)
		print_summary(&v);
	if (fclose(v.out)) {
		cli_error("validate", "out of memory");
		goto out;
	}
	if (v.oom) {
		cli_error("validate", "out of memory");
		goto out;
	}
	if (report_path &&
	    (validate_report_write(&report, v.cells, v.nr_cells, v.nr_in) ||
	     cli_out_flush("validate", &report) || cli_out_commit("validate", &report)))
		goto out;
	if (fwrite(buf, 1, buflen, stdout) != buflen || fflush(stdout)) {
		cli_error("validate", "stdout: %s", strerror(errno));
		goto out;
	}
	status = 0;
out:
	cli_out_abort(&report);
	free(v.cells);
	for (i = 0; i < v.nr_in; i++) {
		cpuidle_lab_fidelity_free(v.in[i].plan);
		cpuidle_lab_trace_close(v.in[i].trace);
		if (v.in[i].tmp)
			cli_temp_remove(v.in[i].ivf);
	}
	free(buf);
	free(v.in);
	for (i = 0; v.pairs && i < v.nr_pairs; i++)
		idle_figures_release(&v.pairs[i].predicted);
	free(v.pairs);
	free(runs);
	free(res);
	return status;
}
