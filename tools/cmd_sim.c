// SPDX-License-Identifier: MIT
/*
 * cmd_sim.c - "cpuidle sim": replay idle intervals through several
 * governors on one platform, each governor in its own simulated machine
 * and thread, and compare what they did.
 */
#include <errno.h>
#include <getopt.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "recording.h"
#include "ivf.h"
#include "cpuidle/lab.h"
#include "report.h"
#include "synth.h"

#define MAX_RUNS	16
#define MAX_SIM_CPUS	1024

#define SIM_MAX_ATTRS	32	/* -s writes, as fidelity's */

static void sim_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " sim [OPTIONS] [TRACE | FILE.ivf]\n\n"
		"Replay a trace's idle intervals (or a synthetic pattern, without TRACE)\n"
		"through governors on a modelled platform, each in its own thread.\n\n"
		"  -p, --platform SPEC     bundled platform name or platform file (default\n"
		"                          laptop; given twice, the last one counts)\n"
		"  -g, --governor LIST     comma-separated governors, \"oracle\" the clairvoyant\n"
		"                          floor (default: every built-in and the oracle); each\n"
		"                          once; repeatable: the lists add up; NAME@RELEASE\n"
		"                          a port of a kernel release (cpuidle governors)\n"
		"Without TRACE, a synthetic pattern (these four go with no TRACE only):\n"
		"      --pattern NAME      mixed, io, periodic:USEC (default mixed)\n"
		"  -n, --intervals N       idle intervals per CPU (default 20000)\n"
		"      --nr-cpus N         simulated CPUs (default 2); -c, a CPU list in\n"
		"                          other commands, is refused: see cpuidle-sim(1)\n"
		"      --seed N            pattern seed (default 1)\n"
		"\n"
		"      --qos USEC          hold a CPU latency QoS request of USEC microseconds\n"
		"  -s, --set PATH=VALUE    write an attribute of each replayed system first\n"
		"                          (libcpuidle(7)), e.g. -s module/haltpoll/parameters/\n"
		"                          guest_halt_poll_ns=0; repeatable\n"
		"      --log-decisions FILE  log every select() and reflect() of the one governor\n"
		"                          given with -g: its inputs and its choice (\"-\": stdout)\n"
		"      --csv | --json      machine-readable output (one of them)\n"
		REPORT_USAGE
		CLI_USAGE_QUIET
		"  -h, --help              this text\n\n"
		"--csv: a header, then one row per governor and state (tidy data: pandas'\n"
		"read_csv, then groupby(\"governor\")), each row carrying its run's figures too:\n"
		"  governor, state_index, state_name   the run and the state (quoted if need be)\n"
		"  usage, time_ns, above, below, rejected, wakes   the state's counts\n"
		"  residency_pct   the state's share of the run's time in idle states (as the\n"
		"                  text's resid%%: the states of a run sum to 100)\n"
		"  effect_pct      a domain state: share of its time it took effect, else empty\n"
		"  intervals, skipped, entries     the run: intervals replayed, partial ones\n"
		"                  skipped, idle entries\n"
		"  energy_mj, power_mw, over_oracle_pct   empty when not known\n"
		"  above_pct, below_pct            the run's entries too deep, too shallow\n"
		"  mean_added_latency_ns, p99_added_latency_ns, max_added_latency_ns   exit\n"
		"                  latency added per wake-up\n"
		"  qos_violations, qos_unmeetable  entries over the QoS limit while a state\n"
		"                  within it was enabled; entries when no state met it\n"
		"  timer_guessed, timer_unknown    replayed intervals whose next timer was\n"
		"                  reconstructed from local timer interrupts, or not known\n"
		"The same figures as the text (decisions per second left out: they vary).\n"
		"--json: one object, a run per governor with the CSV's figures (null where\n"
		"not known) and its states (index, name, usage, time_ns, residency_pct, ...).\n"
		"Every name and unit: cpuidle-output(7).\n\n"
		"See cpuidle-sim(1).\n");
}

static const struct cpuidle_lab_result *find_oracle(const struct cpuidle_lab_result *res,
						    unsigned int n)
{
	unsigned int r;

	for (r = 0; r < n; r++)
		if (!strcmp(res[r].governor, CPUIDLE_LAB_ORACLE))
			return &res[r];
	return NULL;
}

static void print_table(const struct cpuidle_platform *p, const char *source, bool trace,
			const struct cpuidle_lab_result *res, unsigned int n)
{
	const struct cpuidle_lab_result *oracle = find_oracle(res, n);
	bool domains = false, unmeetable = false;
	unsigned int r;
	int s, gw = 8;

	for (s = 0; s < p->state_count; s++)
		domains |= cpuidle_platform_state_is_domain(&p->states[s]);
	printf("platform %s (%s)\n%s\n", p->name, p->desc, source);
	if (trace && n) {
		char split[128];

		cli_timer_split(split, sizeof(split), &res[0]);
		printf("next timer at entry: %s\n", split);
	}
	for (r = 0; r < n; r++) {
		const struct cpuidle_lab_result *x = &res[r];

		printf("\ngovernor %s: %llu idle entries over %llu intervals", x->governor,
		       (unsigned long long)x->entries, (unsigned long long)x->intervals);
		if (x->skipped)
			printf(" (%llu partial ones at the trace's edges skipped)",
			       (unsigned long long)x->skipped);
		printf("\n");
		uint64_t total_ns = 0;

		for (s = 0; s < x->state_count; s++)
			total_ns += x->states[s].time_ns;
		printf("  %-16s %10s %12s %7s %9s %9s %9s%s\n", "state", "usage", "time[ms]",
		       "resid%", "above", "below", "rejected", domains ? "  effect%" : "");
		for (s = 0; s < x->state_count; s++) {
			const struct cpuidle_lab_state_result *st = &x->states[s];

			printf("  %-16s %10llu %12.3f %7.2f %9llu %9llu %9llu",
			       p->states[s].name, (unsigned long long)st->usage,
			       (double)st->time_ns * 1e-6,
			       total_ns ? 100.0 * (double)st->time_ns / (double)total_ns : 0.0,
			       (unsigned long long)st->above, (unsigned long long)st->below,
			       (unsigned long long)st->rejected);
			if (domains && cpuidle_platform_state_is_domain(&p->states[s]))
				printf(" %8.2f", st->time_ns ? 100.0 * (double)st->effective_ns /
							      (double)st->time_ns : 0.0);
			printf("\n");
		}
	}
	if (domains)
		printf("\n(effect%%: share of the time asked for in a domain state during which it "
		       "took effect,\n every CPU of the cluster being in one)\n");
	/* as wide as the longest name (menu@6.18), 8 as ever for the plain names */
	for (r = 0; r < n; r++)
		if ((int)strlen(res[r].governor) > gw)
			gw = (int)strlen(res[r].governor);
	printf("\n%-*s %9s %11s %9s %8s %7s %7s %21s %6s %9s\n", gw, "governor", "entries",
	       "energy[mJ]", "power[mW]", "vs-orcl", "above%", "below%",
	       "wake lat mean/p99/max", "QoS-x", "Mdec/s");
	for (r = 0; r < n; r++) {
		const struct cpuidle_lab_result *x = &res[r];
		char energy[32], power[32], over[32];
		struct cpuidle_lab_figures f;

		cpuidle_lab_figures(x, oracle, &f);
		if (f.energy_known) {
			snprintf(energy, sizeof(energy), "%.3f", cpuidle_lab_energy_mj(x));
			snprintf(power, sizeof(power), "%.2f", f.power_mw);
		} else {
			strcpy(energy, "unknown");
			strcpy(power, "unknown");
		}
		if (f.over_known)
			snprintf(over, sizeof(over), "%+.2f%%", f.over_oracle_pct);
		else
			strcpy(over, "-");
		printf("%-*s %9llu %11s %9s %8s %7.2f %7.2f %7.2f/%6.1f/%6.1f %6llu %9.2f\n",
		       gw, x->governor, (unsigned long long)x->entries, energy, power, over,
		       f.above_pct, f.below_pct, f.lat_mean_us, f.lat_p99_us, f.lat_max_us,
		       (unsigned long long)x->qos_violations,
		       x->host_seconds > 0 ? (double)x->entries / x->host_seconds / 1e6 : 0.0);
	}
	for (r = 0; r < n; r++)
		if (res[r].qos_unmeetable) {
			printf("%-*s QoS-u %llu\n", gw, res[r].governor,
			       (unsigned long long)res[r].qos_unmeetable);
			unmeetable = true;
		}
	printf("(energy: idle states%s%s; vs-orcl: energy over the oracle's; resid%%: share of "
	       "idle time;\n wake lat: exit latency added per wake-up, us; QoS-x: entries over "
	       "the latency limit%s)\n", res[0].active_known ? " + running" : "",
	       res[0].cluster_energy_mj > 0 ? " + clusters' shared power" : "",
	       unmeetable ? ";\n QoS-u: entries when no enabled state met the limit, not counted "
			    "in QoS-x" : "");
}

/* Print @v with @fmt, or an empty field when not @known. */
static void csv_number(bool known, const char *fmt, double v)
{
	if (known)
		printf(fmt, v);
}

/*
 * One row per governor and state: the state's numbers, then its run's
 * (repeated on each of the run's rows), so that one read_csv() holds it
 * all.  residency_pct is the share of the time in idle states, as the
 * text's resid%.
 */
static void print_csv(const struct cpuidle_platform *p, const struct cpuidle_lab_result *res,
		      unsigned int n)
{
	const struct cpuidle_lab_result *oracle = find_oracle(res, n);
	unsigned int r;
	int s;

	printf("governor,state_index,state_name,usage,time_ns,residency_pct,above,below,rejected,"
	       "wakes,effect_pct,intervals,skipped,entries,energy_mj,power_mw,over_oracle_pct,"
	       "above_pct,below_pct,mean_added_latency_ns,p99_added_latency_ns,"
	       "max_added_latency_ns,"
	       "qos_violations,qos_unmeetable,timer_guessed,timer_unknown\n");
	for (r = 0; r < n; r++) {
		const struct cpuidle_lab_result *x = &res[r];
		struct cpuidle_lab_figures f;
		uint64_t total_ns = 0;

		cpuidle_lab_figures(x, oracle, &f);
		for (s = 0; s < x->state_count; s++)
			total_ns += x->states[s].time_ns;
		for (s = 0; s < x->state_count; s++) {
			const struct cpuidle_lab_state_result *st = &x->states[s];

			cli_csv_field(stdout, x->governor);
			printf(",%d,", s);
			cli_csv_field(stdout, p->states[s].name);
			printf(",%llu,%llu,%.4f,%llu,%llu,%llu,%llu,", (unsigned long long)st->usage,
			       (unsigned long long)st->time_ns,
			       total_ns ? 100.0 * (double)st->time_ns / (double)total_ns : 0.0,
			       (unsigned long long)st->above, (unsigned long long)st->below,
			       (unsigned long long)st->rejected, (unsigned long long)st->wakes);
			csv_number(cpuidle_platform_state_is_domain(&p->states[s]), "%.2f",
				   st->time_ns ? 100.0 * (double)st->effective_ns /
						 (double)st->time_ns : 0.0);
			printf(",%llu,%llu,%llu,", (unsigned long long)x->intervals,
			       (unsigned long long)x->skipped, (unsigned long long)x->entries);
			csv_number(f.energy_known, "%.3f", f.energy_mj);
			putchar(',');
			csv_number(f.energy_known, "%.2f", f.power_mw);
			putchar(',');
			csv_number(f.over_known, "%.2f", f.over_oracle_pct);
			printf(",%.2f,%.2f,%.0f,%llu,%llu,%llu,%llu,%llu,%llu\n", f.above_pct,
			       f.below_pct, f.lat_mean_us * 1e3,
			       (unsigned long long)x->p99_added_latency_ns,
			       (unsigned long long)x->max_added_latency_ns,
			       (unsigned long long)x->qos_violations,
			       (unsigned long long)x->qos_unmeetable,
			       (unsigned long long)x->timer_guessed,
			       (unsigned long long)x->timer_unknown);
		}
	}
}

static void print_json(const struct cpuidle_platform *p, const char *trace,
			const struct synth_spec *spec, unsigned int cpus,
			const struct cpuidle_lab_result *res, unsigned int n, int64_t clock_offset_ns)
{
	const struct cpuidle_lab_result *oracle = find_oracle(res, n);
	unsigned int r;
	int s;

	printf("{\"platform\": ");
	json_string(stdout, p->name);
	if (trace) {
		printf(", \"trace\": ");
		json_string(stdout, trace);
		/* the trace clock's correction (0: none; cli_trace_notes()) */
		printf(", \"nr_cpus\": %u, \"clock_offset_ns\": %lld, \"runs\": [", cpus,
		       (long long)clock_offset_ns);
	} else {
		printf(", \"pattern\": ");
		json_string(stdout, spec->name);
		printf(", \"nr_cpus\": %u, \"intervals_per_cpu\": %llu, \"seed\": %llu, "
		       "\"runs\": [", cpus, (unsigned long long)spec->intervals,
		       (unsigned long long)spec->seed);
	}
	for (r = 0; r < n; r++) {
		const struct cpuidle_lab_result *x = &res[r];
		struct cpuidle_lab_figures f;
		uint64_t idle_time = 0;

		for (s = 0; s < x->state_count; s++)
			idle_time += x->states[s].time_ns;
		printf("%s{\"governor\": ", r ? ", " : "");
		json_string(stdout, x->governor);
		printf(", \"intervals\": %llu, \"timer_unknown\": %llu, \"timer_guessed\": %llu",
		       (unsigned long long)x->intervals, (unsigned long long)x->timer_unknown,
		       (unsigned long long)x->timer_guessed);
		printf(", \"skipped\": %llu, \"entries\": %llu, "
		       "\"idle_ns\": %llu, \"busy_ns\": %llu, \"added_latency_ns\": %llu, "
		       "\"p99_added_latency_ns\": %llu, \"max_added_latency_ns\": %llu, "
		       "\"qos_violations\": %llu, \"qos_unmeetable\": %llu, \"kernel_compared\": %llu, "
		       "\"kernel_matched\": %llu, "
		       "\"energy_mj\": ",
		       (unsigned long long)x->skipped,
		       (unsigned long long)x->entries, (unsigned long long)x->idle_ns,
		       (unsigned long long)x->busy_ns, (unsigned long long)x->added_latency_ns,
		       (unsigned long long)x->p99_added_latency_ns,
		       (unsigned long long)x->max_added_latency_ns,
		       (unsigned long long)x->qos_violations,
		       (unsigned long long)x->qos_unmeetable,
		       (unsigned long long)x->kernel_compared,
		       (unsigned long long)x->kernel_matched);
		if (x->energy_known)
			printf("%.6f, \"idle_energy_mj\": %.6f, \"cluster_energy_mj\": %.6f",
			       cpuidle_lab_energy_mj(x), x->idle_energy_mj, x->cluster_energy_mj);
		else
			printf("null");
		printf(", \"active_energy_mj\": ");
		if (x->active_known)
			printf("%.6f", x->active_energy_mj);
		else
			printf("null");
		/* the text's and the CSV's figures too (null where not known) */
		cpuidle_lab_figures(x, oracle, &f);
		printf(", \"power_mw\": ");
		if (f.energy_known)
			printf("%.6f", f.power_mw);
		else
			printf("null");
		printf(", \"over_oracle_pct\": ");
		if (f.over_known)
			printf("%.6f", f.over_oracle_pct);
		else
			printf("null");
		printf(", \"above_pct\": %.6f, \"below_pct\": %.6f, "
		       "\"mean_added_latency_ns\": %.0f", f.above_pct, f.below_pct,
		       f.lat_mean_us * 1e3);
		printf(", \"domain_ns\": %llu, \"states\": [", (unsigned long long)x->domain_ns);
		for (s = 0; s < x->state_count; s++) {
			const struct cpuidle_lab_state_result *st = &x->states[s];

			printf("%s{\"index\": %d, \"name\": ", s ? ", " : "", s);
			json_string(stdout, p->states[s].name);
			printf(", \"usage\": %llu, \"time_ns\": %llu, \"above\": %llu, \"below\": %llu, "
			       "\"rejected\": %llu, \"wakes\": %llu", (unsigned long long)st->usage,
			       (unsigned long long)st->time_ns, (unsigned long long)st->above,
			       (unsigned long long)st->below, (unsigned long long)st->rejected,
			       (unsigned long long)st->wakes);
			/* as the text's resid%: the run's time in idle states */
			printf(", \"residency_pct\": %.6f", idle_time ?
			       100.0 * (double)st->time_ns / (double)idle_time : 0.0);
			if (cpuidle_platform_state_is_domain(&p->states[s]))
				printf(", \"effective_ns\": %llu, \"effect_pct\": %.6f",
				       (unsigned long long)st->effective_ns,
				       st->time_ns ? 100.0 * (double)st->effective_ns /
						     (double)st->time_ns : 0.0);
			printf("}");
		}
		printf("]}");
	}
	printf("]}\n");
}

/* One run, as the report shows it. */
static int report_result(struct report *rep, const char *trace,
			 const struct cpuidle_platform *p, const struct cpuidle_lab_result *x,
			 const struct cpuidle_lab_result *oracle)
{
	struct cpuidle_lab_figures f;
	struct report_run run;
	int s;

	cpuidle_lab_figures(x, oracle, &f);
	run = (struct report_run){
		.trace = trace,
		.platform = p,
		.governor = x->governor,
		.settings = "",
		.energy_known = f.energy_known,
		.energy_mj = f.energy_mj,
		.over_known = f.over_known,
		.over_oracle_pct = f.over_oracle_pct,
		.intervals = x->intervals,
		.timer_guessed = x->timer_guessed,
		.timer_unknown = x->timer_unknown,
		.entries = x->entries,
		.above = f.above,
		.below = f.below,
		.wakes = f.wakes,
		.added_latency_ns = x->added_latency_ns,
		.p99_latency_ns = x->p99_added_latency_ns,
		.max_latency_ns = x->max_added_latency_ns,
		.qos_violations = x->qos_violations,
		.state_count = x->state_count,
	};
	for (s = 0; s < x->state_count; s++) {
		run.states[s].usage = x->states[s].usage;
		run.states[s].time_ns = x->states[s].time_ns;
		run.states[s].wakes = x->states[s].wakes;
	}
	return report_add_run(rep, &run);
}

/*
 * Split "a,b,c" into governor names, checking each exists in a system: no
 * empty item, none twice (as sweep).
 */
static int parse_governors(char *list, const char **names, unsigned int *n)
{
	char *items[MAX_RUNS];
	unsigned int i, j;

	if (!list[strspn(list, ",")])
		return cli_error("sim", "empty governor list");
	if (cli_split_list("sim", "-g", list, items, MAX_RUNS, n))
		return 1;
	for (i = 0; i < *n; i++) {
		const struct cpuidle_governor *g = NULL;

		if (strcmp(items[i], CPUIDLE_LAB_ORACLE) && cli_governor("sim", items[i], &g))
			return 1;
		names[i] = g ? g->name : items[i];	/* a plugin's by its governor's name */
		for (j = 0; j < i; j++)
			if (!strcmp(names[j], names[i]))
				return cli_error("sim", "-g: governor '%s' listed twice", names[i]);
	}
	return 0;
}

static const struct option sim_longopts[] = {
	{ "platform", required_argument, NULL, 'p' },
	{ "governor", required_argument, NULL, 'g' },
	{ "pattern", required_argument, NULL, 'P' },
	{ "intervals", required_argument, NULL, 'n' },
	{ "nr-cpus", required_argument, NULL, 'N' },
	{ "seed", required_argument, NULL, 'S' },
	{ "qos", required_argument, NULL, 'Q' },
	{ "log-decisions", required_argument, NULL, 'L' },
	{ "set", required_argument, NULL, 's' },
	{ "csv", no_argument, NULL, 'C' },
	{ "json", no_argument, NULL, 'J' },
	REPORT_GETOPT_LONG,
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_sim_opts = {
	.shortopts = "p:g:n:s:qh",
	.longopts = sim_longopts,
};

int cmd_sim(int argc, char **argv)
{
	struct synth_spec spec = { .name = "mixed", .intervals = 20000, .seed = 1 };
	const char *platform_spec = NULL, *names[MAX_RUNS];
	static struct recording rec;	/* its strings are the runs' attrs */
	struct cpuidle_lab_run cfgs[MAX_RUNS];
	struct cpuidle_lab_result res[MAX_RUNS];
	struct cpuidle_lab_batch_error fail;
	struct cpuidle_lab_trace *bt = NULL;
	size_t budget = CPUIDLE_LAB_MEMORY_BUDGET;
	struct cpuidle_platform platform;
	enum cli_format fmt = FMT_TABLE;
	char govlist[512] = "", err[512], ivf[4096], source[4200];
	const char *trace = NULL, *log_path = NULL, *synth_opt = NULL, *pattern = "mixed";
	struct cli_out logo = { 0 };
	FILE *log = NULL;
	struct report_opts ropts = { 0 };
	struct report *rep = NULL;
	int64_t clock_offset_ns = 0;
	const char *user_attrs[SIM_MAX_ATTRS + 1], *attrs[RECORDING_MAX_ATTRS + SIM_MAX_ATTRS + 1];
	int tmp = 0, nr_attrs = 0;
	unsigned int n, n_shown, r, cpus = 2;
	long long v, qos = -1;
	bool csv = false, json = false;
	int c, ret;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_sim_opts)) != -1) {
		switch (c) {
		case 's':
			if (nr_attrs == SIM_MAX_ATTRS)
				return cli_error("sim", "at most %d -s", SIM_MAX_ATTRS);
			user_attrs[nr_attrs++] = optarg;
			break;
		case 'p':
			platform_spec = optarg;
			break;
		case 'g':
			/* repeated: the lists add up (each governor still once) */
			if (strlen(govlist) + !!govlist[0] + strlen(optarg) >= sizeof(govlist))
				return cli_error("sim", "governor list too long");
			if (govlist[0])
				strcat(govlist, ",");
			strcat(govlist, optarg);
			if (!optarg[0])
				return cli_error("sim", "empty governor list");
			break;
		case 'P':
			pattern = optarg;
			if (synth_parse(optarg, &spec))
				return cli_error("sim", "unknown pattern '%s' (mixed, io, "
					      "periodic:USEC with 1 <= USEC <= 10000000)", optarg);
			synth_opt = "--pattern";
			break;
		case 'n':
			if (cli_parse_ll(optarg, 1, 1000000000LL, &v))
				return cli_error("sim", "--intervals wants 1..1000000000, not '%s'",
						 optarg);
			spec.intervals = (uint64_t)v;
			synth_opt = "-n/--intervals";
			break;
		case 'N':
			if (cli_parse_ll(optarg, 1, MAX_SIM_CPUS, &v)) {
				cli_error("sim", "--nr-cpus wants 1..%d, not '%s'", MAX_SIM_CPUS,
					  optarg);
				return 2;
			}
			cpus = (unsigned int)v;
			synth_opt = "--nr-cpus";
			break;
		case 'S':
			if (cli_parse_ll(optarg, 0, INT64_MAX, &v))
				return cli_error("sim", "--seed wants a non-negative integer, not '%s'",
						 optarg);
			spec.seed = (uint64_t)v;
			synth_opt = "--seed";
			break;
		case 'Q':
			if (cli_parse_ll(optarg, 0, INT32_MAX, &qos))
				return cli_error("sim", "--qos wants 0..%d microseconds, not '%s'",
						 INT32_MAX, optarg);
			break;
		case 'L':
			log_path = optarg;
			break;
		case 'C':
			csv = true;
			fmt = FMT_CSV;
			break;
		case 'J':
			json = true;
			fmt = FMT_JSON;
			break;
		case 'R':
		case 'U':
		case 'I':
			if (report_parse_option("sim", c, optarg, &ropts))
				return 1;
			break;
		case 'h':
			sim_usage(stdout);
			return 0;
		default:
			/*
			 * -c N was the synthetic machine's CPU count; -c is a CPU
			 * list in every other command, and "-c 2" a list too: a
			 * clear refusal, not a count read as a list or one taken
			 * on trust (cpuidle-sim(1), OPTIONS)
			 */
			if (optopt == 'c' || !strncmp(argv[optind - 1], "--cpus", 6))
				cli_error("sim", "-c/--cpus is a CPU list in other commands, and "
					  "sim takes none; the simulated CPUs' count is --nr-cpus "
					  "N (see '" CLI_NAME " sim --help')");
			else
				sim_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		trace = argv[optind++];
	if (optind < argc)
		return cli_usage_error("sim", "unexpected argument '%s'", argv[optind]);
	if (csv && json)
		return cli_usage_error("sim", "--csv and --json: choose one");
	/* the pattern's options would be silently ignored */
	if (trace && synth_opt) {
		if (!strcmp(synth_opt, "--pattern"))
			return cli_usage_error("sim", "--pattern replaces the trace: give one or "
					       "the other, not both");
		return cli_usage_error("sim", "%s applies to synthetic patterns (--pattern), not "
				       "to a trace", synth_opt);
	}

	/* a recording's description gives the platform and tunables; -p, -s win */
	user_attrs[nr_attrs] = NULL;
	if (trace && cli_recording("sim", trace, &rec))
		return 1;
	if (cli_recording_platform("sim", trace, &rec, platform_spec, "laptop", &platform) ||
	    cli_recording_attrs("sim", trace, &rec, user_attrs, attrs,
				RECORDING_MAX_ATTRS + SIM_MAX_ATTRS))
		return 1;
	if (!trace && platform.nr_cpus && cpus > platform.nr_cpus)
		return cli_error("sim", "--nr-cpus %u: platform %s has %u CPU%s", cpus,
				 platform.name, platform.nr_cpus, platform.nr_cpus == 1 ? "" : "s");
	if (!govlist[0]) {
		const struct cpuidle_governor *const *g;
		size_t len = 0;

		for (g = cpuidle_builtin_governors(); *g; g++)
			len += (size_t)snprintf(govlist + len, sizeof(govlist) - len, "%s%s",
						len ? "," : "", (*g)->name);
		snprintf(govlist + len, sizeof(govlist) - len, "," CPUIDLE_LAB_ORACLE);
	}
	/* the plugins first: their tunables are among those -s may write */
	if (parse_governors(govlist, names, &n) || cli_check_attrs("sim", attrs))
		return 1;
	if (log_path && n != 1)
		return cli_error("sim", "--log-decisions traces one governor: give it with -g");
	if (log_path && !strcmp(names[0], CPUIDLE_LAB_ORACLE))
		return cli_error("sim", "--log-decisions: the oracle's choices need no "
				 "explaining; trace a governor");
	n_shown = n;
	if (ropts.path) {
		/* the report measures every governor against the oracle */
		for (r = 0; r < n && strcmp(names[r], CPUIDLE_LAB_ORACLE); r++)
			;
		if (r == n) {
			if (n == MAX_RUNS)
				return cli_error("sim", "--report adds the oracle: at most %d "
						 "other governors", MAX_RUNS - 1);
			names[n++] = CPUIDLE_LAB_ORACLE;
		}
	} else if (ropts.cpu || ropts.intervals) {
		return cli_usage_error("sim", "--report-cpu and --report-intervals go with "
				       "--report");
	}
	{
		/* no output may be an input, nor both outputs the same file */
		const struct cli_out_arg outs[] = {
			{ "--log-decisions", log_path, false },
			{ "--report", ropts.path, false },
		};
		const char *ins[] = { trace, platform_spec ? cli_platform_file(platform_spec) : NULL };

		if (cli_out_check("sim", outs, 2, ins, 2))
			return 1;
	}
	if (log_path) {
		if (cli_out_open("sim", NULL, &logo, log_path))
			return 1;
		log = logo.f;
	}
	if (ropts.path && report_open("sim", &ropts, &rep)) {
		cli_out_abort(&logo);
		return 1;
	}

	if (trace) {
		struct iv_stats *st = malloc(sizeof(*st));

		if (!st) {
			ret = cli_error("sim", "out of memory");
			goto out;
		}
		if (cli_intervals("sim", trace, ivf, sizeof(ivf), &tmp, st)) {
			free(st);
			ret = 1;
			goto out;
		}
		clock_offset_ns = st->notes.clock_offset_ns;
		free(st);
		/* once, into memory: every run, and the report, read it there */
		ret = cpuidle_lab_trace_open(ivf, &(struct cpuidle_lab_open_options){
						     .budget = &budget }, &bt, err, sizeof(err));
		if (ret == -ENODATA) {
			ret = cli_error("sim", "%s: no complete idle interval to replay", trace);
			goto out;
		}
		if (ret) {
			ret = cli_error("sim", "%s", err);
			goto out;
		}
		cpus = cpuidle_lab_trace_cpus(bt);
		snprintf(source, sizeof(source), "trace %s, %u CPU%s", trace, cpus,
			 cpus == 1 ? "" : "s");
	} else {
		snprintf(source, sizeof(source), "pattern %s, %u CPU%s x %llu intervals, seed %llu",
			 spec.name, cpus, cpus == 1 ? "" : "s",
			 (unsigned long long)spec.intervals, (unsigned long long)spec.seed);
	}
	if (!trace) {
		ret = cpuidle_lab_trace_pattern(pattern, cpus, spec.intervals, spec.seed, &bt);
		if (ret) {
			ret = cli_error("sim", "pattern %s: %s", pattern, strerror(-ret));
			goto out;
		}
	}
	spec.nr_cpus = cpus;
	for (r = 0; r < n; r++)
		cfgs[r] = (struct cpuidle_lab_run){
			.platform = &platform,
			.governor = names[r],
			.trace = bt,
			.governors = cli_plugin_governors(),
			.qos_us = (int32_t)qos,
			.tick_periodic = trace && rec.tick_periodic,
			.decisions = log,
			.attrs = attrs,
		};
	if (rep) {
		if (qos >= 0)
			report_describe(rep, "%s; platform %s (%s); a latency QoS request of %lld us",
					source, platform.name, platform.desc, qos);
		else
			report_describe(rep, "%s; platform %s (%s)", source, platform.name,
					platform.desc);
		if (report_add_trace(rep, trace ? trace : source, bt)) {
			ret = 1;
			goto out;
		}
		/* each run's choices on the timeline's CPU */
		for (r = 0; r < n; r++) {
			cfgs[r].decisions = r < n_shown ? log : NULL;
			cfgs[r].on_decision = report_capture_decision;
			cfgs[r].decision_ctx = report_timeline_capture(rep, &platform, names[r]);
			if (!cfgs[r].decision_ctx) {
				ret = cli_error("sim", "out of memory");
				goto out;
			}
		}
	}
	ret = cpuidle_lab_replay_many(cfgs, res, n, 0, &fail);
	if (rep) {
		int end = report_timeline_end(rep);

		if (end && !ret) {
			ret = cli_error("sim", "--report: %s", strerror(-end));
			goto out;
		}
	}
	if (log && !ret && cli_out_flush("sim", &logo)) {
		ret = 1;
		goto out;
	}
	if (ret == -ERANGE && !trace) {
		ret = cli_error("sim", "--nr-cpus %u: platform %s has %u CPU%s", cpus, platform.name,
				platform.nr_cpus, platform.nr_cpus == 1 ? "" : "s");
	} else if (ret == -ERANGE) {
		ret = cli_error("sim", "the trace has CPUs that platform %s does not (it has %u)",
				platform.name, platform.nr_cpus);
	} else if (ret == -EOPNOTSUPP) {
		ret = cli_error("sim", "platform %s: clusters with different numbers of states "
				"are not supported by the replay yet", platform.name);
	} else if (ret) {
		ret = fail.msg[0] ? cli_error("sim", "%s", fail.msg) :
				    cli_error("sim", "replay failed: %s", strerror(-ret));
	} else if (!res[0].intervals) {
		ret = cli_error("sim", "%s: no complete idle interval to replay", trace ? trace :
				"pattern");
	}
	if (ret)
		goto out;

	/* whatever the platform does not give: the states' power, or the running one */
	cli_note_power_unknown("sim", &platform, platform_spec ? platform_spec : "");
	if (trace)
		cli_warn_timer_unknown("sim", trace, res[0].intervals, res[0].timer_guessed,
				       res[0].timer_unknown);
	for (r = 0; r < n_shown; r++)
		cli_note_extrapolated("sim", trace ? trace : "the pattern", &res[r]);
	if (fmt == FMT_JSON)
		print_json(&platform, trace, &spec, cpus, res, n_shown, clock_offset_ns);
	else if (fmt == FMT_CSV)
		print_csv(&platform, res, n_shown);
	else
		print_table(&platform, source, trace != NULL, res, n_shown);
	if (rep) {
		const struct cpuidle_lab_result *oracle = find_oracle(res, n);

		for (r = 0; r < n && !ret; r++)
			if (report_result(rep, trace ? trace : source, &platform, &res[r], oracle))
				ret = cli_error("sim", "out of memory");
		if (!ret)
			ret = report_write(rep, "sim");
	}
	if (!ret && log)
		ret = cli_out_commit("sim", &logo);
out:
	cpuidle_lab_trace_close(bt);
	if (tmp)
		cli_temp_remove(ivf);
	cli_out_abort(&logo);	/* a failed run: the file as it was */
	report_free(rep);
	return ret;
}
