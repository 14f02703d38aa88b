// SPDX-License-Identifier: MIT
/*
 * cmd_advise.c - "cpuidle advise": the cheapest setting a host can change
 * (its governor, haltpoll's polling window, a CPU latency QoS limit) whose
 * p99 added wake-up latency meets a budget, predicted by replaying a
 * recording of the host under each (lab/sim/sweep.c), printed as the
 * commands that apply it, with the model's own error on that recording
 * (cpuidle validate's figures) beside the prediction.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
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
		"(guest_halt_poll_ns 0, 50, 100, 200, 400 us), a CPU latency QoS limit at\n"
		"each state's exit latency - and print the one that uses least energy\n"
		"while its p99 added wake-up latency is within the budget (default: the\n"
		"recording's own, replayed as it was recorded), as the commands that\n"
		"apply it.  The recording's own setting comes from its description, else\n"
		"its name (NAME-GOVERNOR.*; -g and -s say it otherwise, e.g. -s\n"
		"module/haltpoll/parameters/guest_halt_poll_ns=0); its platform from its\n"
		"description, else -p, else haltpoll-vm.  Beside the prediction: the\n"
		"model's error replaying this recording as recorded, against what its\n"
		"kernel did (as cpuidle validate measures it).  --apply (root) sets the\n"
		"advised governor and window on this host, holds the QoS request, records\n"
		"FILE as long as TRACE, or while CMD runs (cpuidle record), and prints the\n"
		"prediction against\n"
		"what the kernel did; --restore then puts the previous settings back, as\n"
		"is done on any failure or signal.  Only the host's available governors\n"
		"are considered then.  Options come before TRACE.\n");
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
#define WINDOW_ATTR		"module/haltpoll/parameters/guest_halt_poll_ns"

/* the kernel's governors the lab ports (hazard and the oracle are not the host's) */
static const char *const host_governors[] = { "ladder", "menu", "teo", "haltpoll" };
/* haltpoll's window cap, ns: off, a quarter to twice the kernel's default of 200 us */
static const char *const window_values[] = { "0", "50000", "100000", "200000", "400000" };

struct candidate {
	struct cpuidle_lab_point at;
	double energy_mj;
	uint64_t p99_ns;
	uint64_t violations;
};

struct advice {
	struct candidate *rows;
	unsigned int n, cap;
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
	struct advise_host host;
	const char *govs[sizeof(host_governors) / sizeof(host_governors[0])];
	unsigned int nr_govs = 0;
	struct idle_figures *advised = NULL, *after = NULL;
	struct cpuidle_lab_axis axis;
	struct cpuidle_lab_block block;
	struct cpuidle_lab_sweep_spec spec;
	const char *attrs[ADVISE_MAX_ATTRS + 1];
	int nr_attrs = 0, c, ret, status = 1;
	long long budget_us = -1;
	bool json = false;
	static struct recording rec;
	struct cpuidle_lab_trace *trace = NULL;
	struct cpuidle_lab_fidelity *plan = NULL;
	struct cpuidle_lab_sweep *sw = NULL;
	struct cpuidle_lab_sweep_error fail;
	struct cpuidle_lab_batch_error bfail;
	struct cpuidle_lab_result *now = NULL;
	struct idle_figures *kernel = NULL, *replayed = NULL;
	struct advice adv = { 0 };
	int32_t qos[CPUIDLE_STATE_MAX + 1];
	unsigned int nr_qos = 0, i, best = 0;
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
	for (i = 0; i < sizeof(host_governors) / sizeof(host_governors[0]); i++)
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
	if (!now || !kernel || !replayed || !advised || !after) {
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

	/*
	 * every setting: governors x QoS limits x windows (haltpoll's alone);
	 * the sweep keeps its spec by pointer, for the advice's replay again
	 */
	{
		const struct cpuidle_platform *p = cpuidle_lab_fidelity_run(plan)->platform;
		static const struct cpuidle_lab_sweep_ops ops = { .row = keep_row };
		struct cpuidle_lab_sweep_spec *s = &spec;

		axis = (struct cpuidle_lab_axis){
			.path = WINDOW_ATTR,
			.values = window_values,
			.nr_values = sizeof(window_values) / sizeof(window_values[0]),
		};
		block = (struct cpuidle_lab_block){
			.trace = trace,
			.platform = p,
			.attrs = cpuidle_lab_fidelity_run(plan)->attrs,
			.tick_periodic = cpuidle_lab_fidelity_run(plan)->tick_periodic,
		};
		/* the trace's own QoS, then a limit at each state's exit latency but the deepest's */
		qos[nr_qos++] = -1;
		for (i = 0; (int)i + 1 < p->state_count; i++) {
			int32_t us = (int32_t)((p->states[i].exit_latency_ns + 999) / 1000);
			unsigned int k;

			for (k = 1; k < nr_qos && qos[k] != us; k++)
				;
			if (k == nr_qos)
				qos[nr_qos++] = us;
		}
		spec = (struct cpuidle_lab_sweep_spec){
			.blocks = &block,
			.nr_blocks = 1,
			.governors = govs,
			.nr_governors = nr_govs,
			.qos_us = qos,
			.nr_qos = nr_qos,
			.axes = &axis,
			.nr_axes = 1,
			.no_oracle = true,
		};
		ret = cpuidle_lab_sweep_new(s, &sw);
		if (!ret)
			ret = cpuidle_lab_sweep_run(sw, &ops, &adv, 0, &fail);
		if (ret) {
			cli_error("advise", "%s: %s", path, fail.msg[0] ? fail.msg : strerror(-ret));
			goto out;
		}
	}
	/* the least energy within the budget, with no QoS violation; the first of equals */
	for (i = 0; i < adv.n; i++) {
		const struct candidate *r = &adv.rows[i];

		if (r->p99_ns > budget_ns || r->violations || isnan(r->energy_mj))
			continue;
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
		const struct advise_setting st = {
			.governor = govs[b->at.governor],
			.window = !strcmp(govs[b->at.governor], "haltpoll") ?
				  window_values[b->at.values[0]] : NULL,
			.qos_us = qos[b->at.qos],
		};

		if (!res) {
			cli_error("advise", "out of memory");
			goto out;
		}
		cpuidle_lab_sweep_config(sw, &b->at, &job);
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
		const char *now_window = written(run->attrs, WINDOW_ATTR);
		double e_now = cpuidle_lab_energy_mj(now);
		double err_eps = change_pct(replayed->entries_per_s, kernel->entries_per_s);
		double err_share = replayed->share_pct[0] - kernel->share_pct[0];
		double ks = idle_figures_stays_distance(replayed->stays, kernel->stays);
		const struct candidate *b = found ? &adv.rows[best] : NULL;
		const char *b_gov = b ? govs[b->at.governor] : NULL;
		const char *b_window = b ? window_values[b->at.values[0]] : NULL;
		int32_t b_qos = b ? qos[b->at.qos] : -1;
		bool haltpoll = b && !strcmp(b_gov, "haltpoll");
		bool gov_change = b && strcmp(b_gov, run->governor);
		bool window_change = haltpoll && (!now_window || strcmp(now_window, b_window));

		if (json) {
			printf("{\"trace\": ");
			json_string(stdout, path);
			printf(", \"platform\": ");
			json_string(stdout, run->platform->name);
			printf(", \"now\": {\"governor\": ");
			json_string(stdout, run->governor);
			printf(", \"guest_halt_poll_ns\": ");
			if (now_window)
				json_string(stdout, now_window);
			else
				printf("null");
			printf(", \"energy_mj\": %.3f, \"latency_p99_us\": %.3f}",
			       e_now, (double)now->p99_added_latency_ns / 1000.0);
			printf(", \"budget_us\": %.3f", (double)budget_ns / 1000.0);
			printf(", \"model_error\": {\"entries_per_s_pct\": %.3f, "
			       "\"share_pct_state0\": %.3f, \"stays_ks\": ", err_eps, err_share);
			if (isnan(ks))
				printf("null}");
			else
				printf("%.4f}", ks);
			printf(", \"candidates\": %u, \"keep\": %s, \"advice\": ", adv.n,
			       keep ? "true" : "false");
			if (!b) {
				printf("null}\n");
			} else {
				printf("{\"governor\": ");
				json_string(stdout, b_gov);
				printf(", \"guest_halt_poll_ns\": ");
				if (haltpoll)
					json_string(stdout, b_window);
				else
					printf("null");
				printf(", \"qos_us\": ");
				if (b_qos >= 0)
					printf("%d", b_qos);
				else
					printf("null");
				printf(", \"energy_mj\": %.3f, \"energy_change_pct\": %.3f, "
				       "\"latency_p99_us\": %.3f, \"commands\": [",
				       b->energy_mj, change_pct(b->energy_mj, e_now),
				       (double)b->p99_ns / 1000.0);
				{
					const char *sep = "";

					if (keep)
						;
					else if (gov_change) {
						printf("\"" CLI_NAME " set -g %s\"", b_gov);
						sep = ", ";
					}
					if (!keep && window_change) {
						printf("%s\"echo %s > /sys/" WINDOW_ATTR "\"", sep, b_window);
						sep = ", ";
					}
					if (!keep && b_qos >= 0)
						printf("%s\"" CLI_NAME " qos hold %d -- WORKLOAD\"", sep,
						       b_qos);
				}
				printf("]}");
				if (applied)
					print_applied_json(out_path, restore, advised, after,
							   run->platform);
				printf("}\n");
			}
		} else {
			printf("%s on %s\n", path, run->platform->name);
			printf("  now:    %s%s%s, %.1f mJ, p99 added wake-up latency %.1f us\n",
			       run->governor, now_window ? ", guest_halt_poll_ns=" : "",
			       now_window ? now_window : "", e_now,
			       (double)now->p99_added_latency_ns / 1000.0);
			printf("  budget: p99 added wake-up latency <= %.1f us%s\n",
			       (double)budget_ns / 1000.0, budget_us < 0 ? " (now's)" : "");
			if (!b) {
				printf("  advice: none of the %u settings meets the budget\n", adv.n);
			} else {
				printf("  %s: %s%s%s", keep ? "best" : "advice", b_gov,
				       haltpoll ? ", guest_halt_poll_ns=" : "",
				       haltpoll ? b_window : "");
				if (b_qos >= 0)
					printf(", CPU latency QoS %d us", b_qos);
				printf(": %.1f mJ (%+.2f%%), p99 %.1f us (of %u settings)\n",
				       b->energy_mj, change_pct(b->energy_mj, e_now),
				       (double)b->p99_ns / 1000.0, adv.n);
				if (keep)
					printf("    keep the current setting: a saving under %.0f%% is "
					       "within what two recordings of one workload differ by\n",
					       ADVISE_MIN_SAVING_PCT);
				else if (!gov_change && !window_change && b_qos < 0)
					printf("    (keep the current setting)\n");
				if (keep)
					;
				else if (gov_change)
					printf("    " CLI_NAME " set -g %s\n", b_gov);
				if (!keep && window_change)
					printf("    echo %s > /sys/" WINDOW_ATTR "\n", b_window);
				if (!keep && b_qos >= 0)
					printf("    " CLI_NAME " qos hold %d -- WORKLOAD\n", b_qos);
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
		if (fflush(stdout)) {
			cli_error("advise", "stdout: %s", strerror(errno));
			goto out;
		}
	}
	status = 0;
out:
	cpuidle_lab_sweep_free(sw);
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
