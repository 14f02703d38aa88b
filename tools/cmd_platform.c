// SPDX-License-Identifier: MIT
/* cmd_platform.c - "cpuidle platform" and "cpuidle governors". */
#include <errno.h>
#include <string.h>

#include "cli.h"
#include "libcpuidle.h"

static void platform_usage(FILE *f)
{
	fprintf(f, "usage: " CLI_NAME " platform list\n"
		   "       " CLI_NAME " platform show [--csv | --json] SPEC\n"
		   "       " CLI_NAME " platform cat NAME\n"
		   "       " CLI_NAME " platform --from-host [NAME]\n"
		   "       " CLI_NAME " platform import --states-from SPEC [--name NAME] [-o FILE]\n"
		   "                PLAT_INFO.yml\n\n"
		   "SPEC is a bundled platform's name or a platform file; 'list' names the\n"
		   "bundled platforms, 'show' validates SPEC and prints its states, 'cat'\n"
		   "prints a bundled platform's file, '--from-host' prints this host's state\n"
		   "table as a platform file (named NAME, default host), 'import' makes one\n"
		   "of a LISA plat_info.yml (its topology and energy model; the states'\n"
		   "latencies and residencies from SPEC, by name).\n\n"
		   "      --csv               (show) a header, then a row per cluster and\n"
		   "                          state (cpuidle-output(7))\n"
		   "      --json              (show) one JSON object\n"
		   "      --from-host         this host's state table, from sysfs\n"
		   "      --states-from SPEC  (import) the platform whose states give the\n"
		   "                          latencies and residencies\n"
		   "      --name NAME         (import) the platform's name (default: the board's)\n"
		   "  -o, --output FILE       (import) where to write it (default: standard\n"
		   "                          output)\n"
		   CLI_USAGE_QUIET
		   "  -h, --help              this text\n\n"
		   "See cpuidle-platform(1), libcpuidle-platform(5).\n");
}

static const struct option platform_longopts[] = {
	{ "from-host", no_argument, NULL, 'F' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct option platform_show_longopts[] = {
	{ "json", no_argument, NULL, 'J' },
	{ "csv", no_argument, NULL, 'C' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct option platform_plain_longopts[] = {
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

static const struct cli_options platform_show_opts = {
	.shortopts = "qh",
	.longopts = platform_show_longopts,
};

/* list and cat */
static const struct cli_options platform_plain_opts = {
	.shortopts = "qh",
	.longopts = platform_plain_longopts,
};

/* "+": NAME after --from-host, and the sub-command's own options after it */
const struct cli_options cli_platform_opts = {
	.shortopts = "+qh",
	.longopts = platform_longopts,
	.subs = (const struct cli_subcommand[]){
		{ "list", &platform_plain_opts },
		{ "show", &platform_show_opts },
		{ "cat", &platform_plain_opts },
		{ "import", &cli_platform_import_opts },
		{ NULL, NULL },
	},
};

static const struct {
	unsigned int bit;
	const char *name;
} flag_names[] = {
	{ CPUIDLE_FLAG_TIME_VALID, "time-valid" }, { CPUIDLE_FLAG_CHECK_BM, "check-bm" },
	{ CPUIDLE_FLAG_POLLING, "polling" }, { CPUIDLE_FLAG_SHALLOW, "shallow" },
	{ CPUIDLE_FLAG_BALANCED, "balanced" }, { CPUIDLE_FLAG_DEEP, "deep" },
	{ CPUIDLE_FLAG_TIMER_STOP, "timer-stop" }, { CPUIDLE_FLAG_UNUSABLE, "unusable" },
	{ CPUIDLE_FLAG_OFF, "off" },
};

#define NR_FLAG_NAMES	(sizeof(flag_names) / sizeof(flag_names[0]))

int cli_print_flags(FILE *f, unsigned int flags)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < NR_FLAG_NAMES; i++)
		if (flags & flag_names[i].bit)
			fprintf(f, "%s%s", n++ ? "," : "", flag_names[i].name);
	return n;
}

static void print_flags(unsigned int flags)
{
	if (!cli_print_flags(stdout, flags))
		printf("-");
}

/* The names of @flags as a JSON array, in the text's order. */
static void flags_json(unsigned int flags)
{
	unsigned int i;
	bool first = true;

	printf("[");
	for (i = 0; i < NR_FLAG_NAMES; i++)
		if (flags & flag_names[i].bit) {
			printf("%s", first ? "" : ", ");
			json_string(stdout, flag_names[i].name);
			first = false;
		}
	printf("]");
}

static void power_text(char *buf, size_t len, int mw)
{
	if (mw == CPUIDLE_POWER_UNKNOWN)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%d", mw);
}

/* A power in mW for JSON: null when unknown. */
static void power_json(int mw)
{
	if (mw == CPUIDLE_POWER_UNKNOWN)
		printf("null");
	else
		printf("%d", mw);
}

/*
 * One state as JSON: what the driver declares; with @model, also what the
 * lab's energy model charges (model power, entry and exit energy, and a
 * domain state's cluster power, null for a per-CPU state).
 */
static void state_json(const struct cpuidle_platform_state *st, int index, bool model)
{
	printf("%s{\"index\": %d, \"name\": ", index ? ", " : "", index);
	json_string(stdout, st->name);
	printf(", \"desc\": ");
	json_string(stdout, st->desc);
	printf(", \"exit_latency_ns\": %lld, \"target_residency_ns\": %lld, \"power_mw\": ",
	       (long long)st->exit_latency_ns, (long long)st->target_residency_ns);
	power_json(st->power_mw);
	/* the bitmask for compatibility, and its names as the text shows them */
	printf(", \"flags\": %u, \"flag_names\": ", st->flags);
	flags_json(st->flags);
	if (model) {
		printf(", \"model_power_mw\": ");
		power_json(st->model_power_mw);
		printf(", \"entry_energy_nj\": %lld, \"exit_energy_nj\": %lld, "
		       "\"cluster_power_mw\": ", (long long)st->entry_energy_nj,
		       (long long)st->exit_energy_nj);
		if (cpuidle_platform_state_is_domain(st))
			printf("%d", st->cluster_power_mw);
		else
			printf("null");
	}
	printf("}");
}

/* One cluster as JSON; "cpus" is null for a cluster of every CPU. */
static void cluster_json(const struct cpuidle_platform_cluster *cl, bool comma)
{
	unsigned int cpu, n = 0;
	int i;

	printf("%s{\"name\": ", comma ? ", " : "");
	json_string(stdout, cl->name);
	printf(", \"cpus\": ");
	if (!cl->nr_cpus) {
		printf("null");
	} else {
		printf("[");
		for (cpu = 0; cpu < CPUIDLE_MAX_CPUS; cpu++)
			if (cpuidle_platform_cluster_has_cpu(cl, cpu))
				printf("%s%u", n++ ? ", " : "", cpu);
		printf("]");
	}
	printf(", \"active_power_mw\": ");
	power_json(cl->active_power_mw);
	printf(", \"idle_power_mw\": %d, \"states\": [", cl->idle_power_mw);
	for (i = 0; i < cl->state_count; i++)
		state_json(&cl->states[i], i, true);
	printf("]}");
}

/* A power in mW for CSV: empty when unknown. */
static void power_csv(int mw)
{
	if (mw != CPUIDLE_POWER_UNKNOWN)
		printf("%d", mw);
}

/*
 * --csv: a row per cluster and state, the JSON's names: the cluster's, then
 * the state's as the energy model has it (cpuidle-output(7)).
 */
static void platform_csv(const struct cpuidle_platform *p)
{
	int c, i;

	printf("cluster,active_power_mw,idle_power_mw,state_index,state_name,desc,"
	       "exit_latency_ns,target_residency_ns,power_mw,flags,model_power_mw,"
	       "entry_energy_nj,exit_energy_nj,cluster_power_mw\n");
	for (c = 0; c < p->nr_clusters; c++) {
		const struct cpuidle_platform_cluster *cl = &p->clusters[c];

		for (i = 0; i < cl->state_count; i++) {
			const struct cpuidle_platform_state *st = &cl->states[i];

			cli_csv_field(stdout, cl->name);
			putchar(',');
			power_csv(cl->active_power_mw);
			printf(",%d,%d,", cl->idle_power_mw, i);
			cli_csv_field(stdout, st->name);
			putchar(',');
			cli_csv_field(stdout, st->desc);
			printf(",%lld,%lld,", (long long)st->exit_latency_ns,
			       (long long)st->target_residency_ns);
			power_csv(st->power_mw);
			printf(",%u,", st->flags);
			power_csv(st->model_power_mw);
			printf(",%lld,%lld,", (long long)st->entry_energy_nj,
			       (long long)st->exit_energy_nj);
			if (cpuidle_platform_state_is_domain(st))
				printf("%d", st->cluster_power_mw);
			putchar('\n');
		}
	}
}

static int platform_show(const char *spec, enum cli_format fmt)
{
	struct cpuidle_platform p;
	char err[512];
	int c, i, ret;

	ret = cpuidle_platform_load(spec, &p, err, sizeof(err));
	if (ret)
		return cli_error("platform", "%s", err[0] ? err : strerror(-ret));
	if (fmt == FMT_CSV) {
		platform_csv(&p);
		return 0;
	}
	if (fmt == FMT_JSON) {
		printf("{\"name\": ");
		json_string(stdout, p.name);
		printf(", \"desc\": ");
		json_string(stdout, p.desc);
		/* 0: the file does not say (cpuidle-output(7): unknown is null) */
		printf(", \"tick_hz\": ");
		p.tick_hz ? printf("%u", p.tick_hz) : printf("null");
		printf(", \"nr_cpus\": ");
		p.nr_cpus ? printf("%u", p.nr_cpus) : printf("null");
		printf(", \"states\": [");
		for (i = 0; i < p.state_count; i++)
			state_json(&p.states[i], i, false);
		printf("], \"clusters\": [");
		for (c = 0; c < p.nr_clusters; c++)
			cluster_json(&p.clusters[c], c > 0);
		printf("]}\n");
		return 0;
	}
	printf("platform %s: %s\n", p.name, p.desc);
	if (p.tick_hz)
		printf("tick %u Hz\n", p.tick_hz);
	if (p.nr_cpus)
		printf("%u CPUs\n", p.nr_cpus);
	for (c = 0; c < p.nr_clusters; c++) {
		const struct cpuidle_platform_cluster *cl = &p.clusters[c];
		char active[16], shared[16];

		power_text(active, sizeof(active), cl->active_power_mw);
		power_text(shared, sizeof(shared), cl->idle_power_mw);
		char cpus[32];

		if (cl->nr_cpus)
			snprintf(cpus, sizeof(cpus), "%u CPU%s", cl->nr_cpus, cl->nr_cpus == 1 ? "" : "s");
		else
			snprintf(cpus, sizeof(cpus), "every CPU");
		printf("\ncluster %s: %s, running %s mW per CPU, shared %s mW\n", cl->name, cpus,
		       active, shared);
		printf("%-5s %-16s %11s %13s %9s %9s %9s  %s\n", "index", "name", "latency[us]",
		       "residency[us]", "power", "model", "E in+out", "flags");
		for (i = 0; i < cl->state_count; i++) {
			const struct cpuidle_platform_state *st = &cl->states[i];
			char power[16], model[16], energy[32];

			power_text(power, sizeof(power), st->power_mw);
			power_text(model, sizeof(model), st->model_power_mw);
			snprintf(energy, sizeof(energy), "%.3fuJ",
				 (double)(st->entry_energy_nj + st->exit_energy_nj) / 1000.0);
			printf("%-5d %-16s %11.3f %13.3f %9s %9s %9s  ", i, st->name,
			       (double)st->exit_latency_ns / 1000.0,
			       (double)st->target_residency_ns / 1000.0, power, model, energy);
			print_flags(st->flags);
			if (cpuidle_platform_state_is_domain(st))
				printf(" (domain: cluster %d mW)", st->cluster_power_mw);
			printf("\n");
		}
	}
	return 0;
}

int cmd_platform(int argc, char **argv)
{
	const char *const *name;
	enum cli_format fmt = FMT_TABLE;
	bool from_host = false;
	char prog[64];
	int i, c;

	/* -h or --help anywhere: every sub-command's usage is this one */
	for (i = 1; i < argc; i++)
		if (cli_is_help(argv[i])) {
			platform_usage(stdout);
			return 0;
		}
	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_platform_opts)) != -1) {
		if (c != 'F') {
			platform_usage(stderr);
			return 2;
		}
		from_host = true;
	}
	if (from_host) {
		if (optind < argc - 1) {
			cli_error("platform", "--from-host takes at most a NAME");
			return 2;
		}
		return cli_platform_from_host(optind < argc ? argv[optind] : NULL);
	}
	if (optind == argc || !cli_subcommand(&cli_platform_opts, argv[optind])) {
		if (optind < argc)
			cli_error("platform", "'%s' is not a platform command (list, show, cat, "
				  "import, --from-host)", argv[optind]);
		platform_usage(stderr);
		return 2;
	}
	/* getopt's messages: "cpuidle platform show: unrecognized option ..." */
	snprintf(prog, sizeof(prog), CLI_NAME " platform %s", argv[optind]);
	argv[optind] = prog;
	argc -= optind;
	argv += optind;
	if (!strcmp(prog, CLI_NAME " platform import"))
		return cli_platform_import(argc, argv);
	i = cli_sub_options(argc, argv, cli_subcommand(&cli_platform_opts, prog +
			    strlen(CLI_NAME " platform ")), &fmt, platform_usage);
	if (i < 0)
		return 2;
	if (!strcmp(prog, CLI_NAME " platform list")) {
		if (i < argc) {
			cli_error("platform", "list: unexpected argument '%s'", argv[i]);
			return 2;
		}
		for (name = cpuidle_platform_builtin_names(); *name; name++)
			printf("%s\n", *name);
		return 0;
	}
	if (i != argc - 1) {
		cli_error("platform", "%s wants one %s", prog + strlen(CLI_NAME " platform "),
			  strcmp(prog, CLI_NAME " platform show") ? "NAME" : "SPEC");
		return 2;
	}
	if (!strcmp(prog, CLI_NAME " platform show"))
		return platform_show(argv[i], fmt);
	{	/* cat */
		size_t len;
		const char *text = cpuidle_platform_builtin_text(argv[i], &len);

		if (!text)
			return cli_error("platform", "no bundled platform '%s'", argv[i]);
		fwrite(text, 1, len, stdout);
		return 0;
	}
}

static const struct option governors_longopts[] = {
	{ "json", no_argument, NULL, 'J' },
	{ "csv", no_argument, NULL, 'C' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_governors_opts = {
	.shortopts = "qh",
	.longopts = governors_longopts,
};

#define GOVERNORS_USAGE	"usage: " CLI_NAME " governors [--csv | --json]\n"

/*
 * One governor in @fmt: its name, its rating, and the plain governor a
 * release's port is the same as (@same, NULL if none).
 */
static void governor_line(enum cli_format fmt, const struct cpuidle_governor *g,
			  const char *same, bool first)
{
	if (fmt == FMT_JSON) {
		printf("%s{\"name\": ", first ? "" : ", ");
		json_string(stdout, g->name);
		printf(", \"rating\": %u, \"same_as\": ", g->rating);
		if (same)
			json_string(stdout, same);
		else
			printf("null");
		printf("}");
	} else if (fmt == FMT_CSV) {
		cli_csv_field(stdout, g->name);
		printf(",%u,", g->rating);
		if (same)
			cli_csv_field(stdout, same);
		putchar('\n');
	} else {
		printf("%-10s rating %u%s%s%s\n", g->name, g->rating, same ? "  (the same as " : "",
		       same ? same : "", same ? ")" : "");
	}
}

int cmd_governors(int argc, char **argv)
{
	const struct cpuidle_governor *const *g;
	enum cli_format fmt = FMT_TABLE;
	bool first = true;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_governors_opts)) != -1) {
		if (c == 'J' || c == 'C') {
			if (fmt != FMT_TABLE)
				return cli_usage_error("governors",
						       "--csv and --json: one of them");
			fmt = c == 'J' ? FMT_JSON : FMT_CSV;
			continue;
		}
		if (c == 'h') {
			printf(GOVERNORS_USAGE "\n"
			       "List the built-in governors and their ratings: the name a -g\n"
			       "takes, and the rating by which the kernel chooses its default\n"
			       "(the highest); then each port by kernel release (NAME@RELEASE;\n"
			       "the plain name is Linux 6.18's).\n\n"
			       "      --csv           a header, then a row per governor: name,\n"
			       "                      rating, same_as (the plain governor a port\n"
			       "                      is, else empty)\n"
			       "      --json          one JSON array, an object per governor with\n"
			       "                      the CSV's names (same_as null for none)\n"
			       "  -q, --quiet         no notes, warnings or progress on stderr\n"
			       "  -h, --help          this text\n\n"
			       "See cpuidle-governors(1).\n");
			return 0;
		}
		fprintf(stderr, GOVERNORS_USAGE);
		return 2;
	}
	if (optind < argc) {
		cli_error("governors", "unexpected argument '%s'\n" GOVERNORS_USAGE, argv[optind]);
		return 2;
	}
	if (fmt == FMT_JSON)
		printf("[");
	else if (fmt == FMT_CSV)
		printf("name,rating,same_as\n");
	for (g = cpuidle_builtin_governors(); *g; g++, first = false)
		governor_line(fmt, *g, NULL, first);
	for (g = cpuidle_versioned_governors(); *g; g++, first = false) {
		const struct cpuidle_governor *plain;
		char base[CPUIDLE_NAME_LEN];

		snprintf(base, sizeof(base), "%.*s", (int)strcspn((*g)->name, "@"), (*g)->name);
		plain = cli_builtin_governor(base);
		governor_line(fmt, *g, plain && plain->select == (*g)->select ? base : NULL, first);
	}
	if (fmt == FMT_JSON)
		printf("]\n");
	return 0;
}
