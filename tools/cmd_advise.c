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
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise.h"
#include "advise_sweep.h"
#include "cli.h"
#include "idle_figures.h"
#include "intervals.h"
#include "recording.h"
#include "cpuidle/lab.h"

static void advise_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " advise [-p PLATFORM] [-g GOVERNOR] [-s PATH=VALUE]...\n"
		"       [--latency-budget-us USEC] [--least-energy] [--json]\n"
		"       [--apply -o FILE [--restore]] TRACE\n"
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
		"/sys/module/haltpoll/parameters/, cpuidle qos hold); of the settings within\n"
		"1%% of the least energy, the one with the fewest commands, unless\n"
		"--least-energy.  The recording's own\n"
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
		"then.  Options come before TRACE.\n\n"
		"  -p, --platform SPEC       the platform, where the recording names none\n"
		"                            (default haltpoll-vm)\n"
		"  -g, --governor NAME       the governor the recording was made under\n"
		"  -s, --set PATH=VALUE      a tunable of the recording's own setting;\n"
		"                            repeatable\n"
		"      --latency-budget-us USEC  the p99 added wake-up latency allowed\n"
		"      --least-energy        the least energy, even within 1%% of a simpler\n"
		"                            setting\n"
		"      --json                one JSON object\n"
		"      --apply               apply the advice on this host (root), record again\n"
		"  -o, --output FILE         where --apply records\n"
		"      --restore             after --apply, put the previous settings back\n"
		"  -q, --quiet               no notes, warnings or progress on stderr\n"
		"  -h, --help                this text\n\n"
		"See cpuidle-advise(1).\n");
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

static void show_advice(const struct sweeps *s, const struct candidate *b,
			const struct cpuidle_lab_run *run, bool keep, struct shown *sh);

/*
 * The predicted change on each half of the recording (by the start of its
 * intervals), now's setting (@now_run) against the advice's (@adv_run):
 * how much the recording's own course moves it, as a second recording of
 * the workload would (doc/validate.md, section 3).  Return: 0 with @out
 * set, or a negative errno with @err set.
 */
static int change_halves(const struct cpuidle_lab_run *now_run,
			 const struct cpuidle_lab_run *adv_run, double out[2], char *err,
			 size_t errlen)
{
	struct cpuidle_lab_trace *half[2] = { NULL, NULL };
	struct cpuidle_lab_result *res = calloc(4, sizeof(*res));
	struct cpuidle_lab_batch_error fail;
	struct cpuidle_lab_run runs[4];
	int64_t first, last, mid;
	int ret, h;

	if (!res)
		return -ENOMEM;
	ret = cpuidle_lab_trace_bounds(now_run->trace, &first, &last);
	mid = first + (last - first) / 2;
	if (!ret)
		ret = cpuidle_lab_trace_window(now_run->trace, first, mid, &half[0]);
	if (!ret)
		ret = cpuidle_lab_trace_window(now_run->trace, mid + 1, last, &half[1]);
	for (h = 0; !ret && h < 2; h++) {
		runs[2 * h] = *now_run;
		runs[2 * h + 1] = *adv_run;
		runs[2 * h].trace = runs[2 * h + 1].trace = half[h];
		runs[2 * h].on_decision = runs[2 * h + 1].on_decision = NULL;
	}
	if (!ret) {
		ret = cpuidle_lab_replay_many(runs, res, 4, 0, &fail);
		if (ret)
			snprintf(err, errlen, "%s", fail.msg[0] ? fail.msg : strerror(-ret));
	} else {
		snprintf(err, errlen, "%s", strerror(-ret));
	}
	for (h = 0; !ret && h < 2; h++)
		out[h] = change_pct(cpuidle_lab_energy_mj(&res[2 * h + 1]),
				    cpuidle_lab_energy_mj(&res[2 * h]));
	cpuidle_lab_trace_close(half[0]);
	cpuidle_lab_trace_close(half[1]);
	free(res);
	return ret;
}

/*
 * Of the candidates within the budget whose energy is within the noise
 * (ADVISE_MIN_SAVING_PCT) of the least, @least, the one that changes the
 * fewest settings (the fewest commands; then the least energy, then the
 * first): a saving under the noise does not pay for another knob turned.
 * Return: 0 with @out set, or -ENOMEM.
 */
static int simplest_near(const struct sweeps *s, const struct advice *adv, unsigned int least,
			 uint64_t budget_ns, const struct cpuidle_lab_run *run, unsigned int *out)
{
	double limit = adv->rows[least].energy_mj * (1.0 + ADVISE_MIN_SAVING_PCT / 100.0);
	unsigned int *cmds = malloc(adv->n * sizeof(*cmds)), fewest = UINT_MAX, i;
	struct shown *sh = malloc(sizeof(*sh));

	if (!cmds || !sh) {
		free(cmds);
		free(sh);
		return -ENOMEM;
	}
	for (i = 0; i < adv->n; i++) {
		const struct candidate *r = &adv->rows[i];

		cmds[i] = UINT_MAX;	/* not eligible */
		if (r->p99_ns > budget_ns || r->violations || isnan(r->energy_mj) ||
		    r->energy_mj > limit)
			continue;
		show_advice(s, r, run, false, sh);
		cmds[i] = sh->nr_cmds;
		if (cmds[i] < fewest)
			fewest = cmds[i];
	}
	*out = least;
	for (i = 0; i < adv->n; i++)
		if (cmds[i] == fewest && (cmds[*out] != fewest ||
					  adv->rows[i].energy_mj < adv->rows[*out].energy_mj))
			*out = i;
	free(cmds);
	free(sh);
	return 0;
}

/* candidate @b as printed, against @run (now); @keep: the current setting is kept */
static void show_advice(const struct sweeps *s, const struct candidate *b,
			const struct cpuidle_lab_run *run, bool keep, struct shown *sh)
{
	const struct cpuidle_platform *p = run->platform;
	const char *now_window = advise_written(run->attrs, ADVISE_WINDOW_ATTR);
	bool gov_change, window_change, grow_change, shrink_change;
	int k;

	memset(sh, 0, sizeof(*sh));
	advise_setting_of(s, b, &sh->st);
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

/* @sh's setting as JSON members: governor .. qos_ns */
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
	printf("], \"qos_ns\": ");
	if (sh->st.qos_us >= 0)
		printf("%lld", (long long)sh->st.qos_us * 1000);
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
		printf(", \"energy_mj\": %.3f, \"p99_added_latency_ns\": %lld}", c->energy_mj,
		       (long long)c->p99_ns);
	}
	printf("}");
}

static const struct option advise_longopts[] = {
	{ "platform", required_argument, NULL, 'p' },
	{ "governor", required_argument, NULL, 'g' },
	{ "set", required_argument, NULL, 's' },
	{ "latency-budget-us", required_argument, NULL, 'B' },
	{ "json", no_argument, NULL, 'J' },
	{ "apply", no_argument, NULL, 'A' },
	{ "restore", no_argument, NULL, 'R' },
	{ "least-energy", no_argument, NULL, 'L' },
	{ "output", required_argument, NULL, 'o' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_advise_opts = {
	.shortopts = "+p:g:s:o:qh",
	.longopts = advise_longopts,
};

int cmd_advise(int argc, char **argv)
{
	const char *platform_spec = NULL, *gov = NULL, *path, *out_path = NULL;
	char *const *cmd = NULL;
	bool apply = false, restore = false, applied = false, least_energy = false;
	struct advise_host host = { 0 };
	const char *govs[ARRAY_SIZE(advise_host_governors)];
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
	unsigned int i, best = 0, least = 0;
	double halves[2] = { NAN, NAN };	/* the advice's change on each half */
	int best_of[NR_SWEEPS] = { -1, -1, -1 };	/* per sweep, its best row */
	bool found = false, keep = false;
	char ivf[4096], err[600];
	int tmp = 0;
	uint64_t budget_ns;

	optind = 1;
	/* "+": options before TRACE, and what follows "--" is the workload's */
	while ((c = cli_getopt(argc, argv, &cli_advise_opts)) != -1) {
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
		case 'L':
			least_energy = true;
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
	for (i = 0; i < ARRAY_SIZE(advise_host_governors); i++)
		if (!apply || advise_host_has_governor(&host, advise_host_governors[i]))
			govs[nr_govs++] = advise_host_governors[i];
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
		const char *twin = advise_powered_twin(cpuidle_lab_fidelity_run(plan)->platform);

		if (twin) {
			cli_note_on("advise", path, "its platform gives no power; modelled "
				"as %s, whose states are the same (-p chooses another)", twin);
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
	ret = advise_sweeps_plan(sws, cpuidle_lab_fidelity_run(plan), trace, govs, nr_govs);
	if (ret) {
		cli_error("advise", "%s: %s", path, strerror(-ret));
		goto out;
	}
	if (sws->unfit)
		cli_note_on("advise", path, "disabling state%d and the deeper ones (or "
			"a shallower state and the deeper ones) on each of its %u CPUs takes more "
			"than the %d attribute writes a replay makes: those depths are not "
			"considered", sws->unfit, cpuidle_lab_trace_cpus(trace),
			CPUIDLE_LAB_MAX_ATTRS);
	if (sws->adapt_unfit)
		cli_note_on("advise", path, "its own attribute writes leave no room for "
			"haltpoll's grow and shrink (at most %d a replay): they are not "
			"considered", CPUIDLE_LAB_MAX_ATTRS);
	ret = advise_sweeps_run(sws, &adv, &fail);
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
	least = best;
	if (found && !keep) {
		struct cpuidle_lab_job job;

		ret = least_energy ? 0 :
		      simplest_near(sws, &adv, least, budget_ns, cpuidle_lab_fidelity_run(plan),
				    &best);
		if (ret) {
			cli_error("advise", "out of memory");
			goto out;
		}
		cpuidle_lab_sweep_config(sws->sw[adv.rows[best].sweep], &adv.rows[best].at, &job);
		ret = change_halves(cpuidle_lab_fidelity_run(plan), &job.cfg, halves, err,
				    sizeof(err));
		if (ret) {
			cli_error("advise", "%s: the halves: %s", path, err);
			goto out;
		}
	}
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
		advise_setting_of(sws, b, &st);
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
		cli_info("advise", "nothing to apply (%s)", found ?
			"the current setting is kept" : "no setting meets the budget");
	}
	{
		const struct cpuidle_lab_run *run = cpuidle_lab_fidelity_run(plan);
		const char *now_window = advise_written(run->attrs, ADVISE_WINDOW_ATTR);
		const char *now_grow = advise_written(run->attrs, ADVISE_GROW_ATTR);
		const char *now_shrink = advise_written(run->attrs, ADVISE_SHRINK_ATTR);
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
			printf(", \"energy_mj\": %.3f, \"p99_added_latency_ns\": %lld}",
			       e_now, (long long)now->p99_added_latency_ns);
			printf(", \"latency_budget_ns\": %lld", (long long)budget_ns);
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
				printf(", \"energy_mj\": %.3f, \"energy_change_pct\": %.3f, ",
				       b->energy_mj, change_pct(b->energy_mj, e_now));
				if (isnan(halves[0]))
					printf("\"energy_change_halves_pct\": null, ");
				else
					printf("\"energy_change_halves_pct\": [%.3f, %.3f], ",
					       halves[0], halves[1]);
				printf("\"p99_added_latency_ns\": %lld, \"commands\": [",
				       (long long)b->p99_ns);
				for (i = 0; i < sh->nr_cmds; i++) {
					printf("%s", i ? ", " : "");
					json_string(stdout, sh->cmds[i]);
				}
				printf("]}");
				if (least != best && adv.rows[least].energy_mj < adv.rows[best].energy_mj) {
					show_advice(sws, &adv.rows[least], run, false, sh);
					printf(", \"least_energy\": {");
					print_setting_json(sh);
					printf(", \"energy_mj\": %.3f, \"nr_commands\": %u}",
					       adv.rows[least].energy_mj, sh->nr_cmds);
				}
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
				printf("  %s: %s: %.1f mJ (%+.2f%%", keep ? "best" : "advice",
				       sh->what, b->energy_mj, change_pct(b->energy_mj, e_now));
				if (!isnan(halves[0]))
					printf("; on the recording's halves %+.2f%%, %+.2f%%",
					       halves[0], halves[1]);
				printf("), p99 %.1f us (of %u settings)\n", (double)b->p99_ns / 1000.0,
				       adv.n);
				if (keep)
					printf("    keep the current setting: a saving under %.0f%% is "
					       "within what two recordings of one workload differ by\n",
					       ADVISE_MIN_SAVING_PCT);
				else if (!sh->nr_cmds)
					printf("    (keep the current setting)\n");
				for (i = 0; i < sh->nr_cmds; i++)
					printf("    %s\n", sh->cmds[i]);
				if (least != best && adv.rows[least].energy_mj < adv.rows[best].energy_mj) {
					unsigned int n = sh->nr_cmds;

					show_advice(sws, &adv.rows[least], run, false, sh);
					printf("    least energy: %s: %.1f mJ (%+.2f%%), %u commands "
					       "for %u: a saving under %.0f%% does not pay for them\n",
					       sh->what, adv.rows[least].energy_mj,
					       change_pct(adv.rows[least].energy_mj, e_now),
					       sh->nr_cmds, n, ADVISE_MIN_SAVING_PCT);
				}
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
	advise_sweeps_free(sws);
	advise_host_free(&host);
	cpuidle_lab_fidelity_free(plan);
	cpuidle_lab_trace_close(trace);
	if (tmp)
		cli_temp_remove(ivf);
	free(adv.rows);
	free(now);
	free(kernel);
	if (replayed)
		idle_figures_release(replayed);
	if (advised)
		idle_figures_release(advised);
	free(replayed);
	free(advised);
	free(after);
	return status;
}
