// SPDX-License-Identifier: MIT
/*
 * cmd_conformance.c - "cpuidle conformance": the rules every governor
 * keeps (lab/check/conformance.c), checked on the built-in governors, one line
 * per governor and check.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cpuidle/conformance.h"
#include "cpuidle/lab.h"

#define MAX_GOVS 32

static void conformance_usage(FILE *f)
{
	int i;

	fprintf(f,
		"usage: " CLI_NAME " conformance [-g LIST] [-d LIST] [-n ENTRIES] [--seed N]\n"
		"                           [--csv | --json]\n\n"
		"Check that governors keep the rules every governor must keep, on simulated\n"
		"two-CPU machines driven through the real idle path with seeded random idle\n"
		"periods, timers, QoS requests and state disable toggles.  One line per\n"
		"governor and check: PASS, or FAIL with the first failure (driver shape,\n"
		"seed, idle entry, the inputs of select() and its answer).  Exit status 1 if\n"
		"any check fails.\n\n"
		"  -g, --governor LIST   comma-separated built-in governors, NAME@RELEASE\n"
		"                        ports too (default: every one, the ports included)\n"
		"  -d, --drivers LIST    comma-separated driver shapes (default: every one)\n"
		"  -n, --entries N       idle entries per run, 1..%d (default %d)\n"
		"      --seed N          the input's seed, >= 1 (default %d)\n"
		"      --csv             a header, then a row per governor and check (the\n"
		"                        JSON's names, the governor's entries)\n"
		"      --json            one JSON object\n"
		"  -q, --quiet           no notes, warnings or progress on stderr\n"
		"  -h, --help            this help\n\nChecks:\n",
		CONFORMANCE_MAX_ENTRIES, CONFORMANCE_DEFAULT_ENTRIES, CONFORMANCE_DEFAULT_SEED);
	for (i = 0; i < CONFORMANCE_NR_CHECKS; i++) {
		fprintf(f, "  %-12s ", conformance_check_name(i));
		cli_print_wrapped(f, 15, 15, conformance_check_desc(i));
	}
	fprintf(f, "\nDriver shapes:\n");
	for (i = 0; i < CONFORMANCE_NR_SHAPES; i++) {
		fprintf(f, "  %-12s ", conformance_shape_name(i));
		cli_print_wrapped(f, 15, 15, conformance_shape_desc(i));
	}
	fprintf(f, "\nSee cpuidle-conformance(1).\n");
}

static int parse_governors(char *list, const struct cpuidle_governor **govs, unsigned int *n)
{
	char *items[MAX_GOVS];
	unsigned int i;

	if (cli_split_list("conformance", "-g", list, items, MAX_GOVS, n))
		return 1;
	for (i = 0; i < *n; i++) {
		if (!strcmp(items[i], CPUIDLE_LAB_ORACLE))
			return cli_error("conformance", "'%s' is the lab's clairvoyant floor, "
					 "not a governor", items[i]);
		if (cli_governor("conformance", items[i], &govs[i]))
			return 1;
	}
	return 0;
}

static int parse_shapes(char *list, unsigned int *shapes)
{
	char *items[CONFORMANCE_NR_SHAPES];
	unsigned int i, n;

	*shapes = 0;
	if (cli_split_list("conformance", "-d", list, items, CONFORMANCE_NR_SHAPES, &n))
		return 1;
	for (i = 0; i < n; i++) {
		int s = conformance_shape_find(items[i]);

		if (s < 0)
			return cli_error("conformance", "unknown driver shape '%s' (see '" CLI_NAME
					 " conformance --help')", items[i]);
		*shapes |= 1u << s;
	}
	return 0;
}

/* "1 decision", "2 decisions" */
static const char *unit(int check, uint64_t count)
{
	static char buf[32];
	const char *u = conformance_check_unit(check);

	snprintf(buf, sizeof(buf), "%.*s", (int)strlen(u) - (count == 1), u);
	return buf;
}

static void print_table(const struct conformance_report *reps, unsigned int n)
{
	unsigned int g, failed = 0;
	int c;

	for (g = 0; g < n; g++) {
		const struct conformance_report *rep = &reps[g];

		for (c = 0; c < CONFORMANCE_NR_CHECKS; c++) {
			const struct conformance_result *r = &rep->checks[c];
			unsigned long long k = r->checked;

			printf("%-10s %-12s ", rep->governor, conformance_check_name(c));
			if (r->failures)
				printf("FAIL  %llu of %llu %s; first: %s\n",
				       (unsigned long long)r->failures, k, unit(c, k), r->message);
			else if (k)
				printf("PASS  %llu %s\n", k, unit(c, k));
			else
				printf("SKIP  never applied (0 %s)\n", unit(c, k));
		}
		failed += rep->nr_failed > 0;
	}
	printf("%u of %u governors pass every check\n", n - failed, n);
}

static void print_json(const struct conformance_report *reps, unsigned int n,
		       unsigned int entries, unsigned int shapes)
{
	bool all = true, first = true;
	unsigned int g;
	int c;

	printf("{\"seed\": %llu, \"entries\": %u, \"shapes\": [",
	       n ? (unsigned long long)reps[0].seed : CONFORMANCE_DEFAULT_SEED, entries);
	for (c = 0; c < CONFORMANCE_NR_SHAPES; c++) {
		if (!(shapes & (1u << c)))
			continue;
		printf("%s", first ? "" : ", ");
		json_string(stdout, conformance_shape_name(c));
		first = false;
	}
	printf("], \"governors\": [");
	for (g = 0; g < n; g++) {
		const struct conformance_report *rep = &reps[g];

		printf("%s{\"governor\": ", g ? ", " : "");
		json_string(stdout, rep->governor);
		printf(", \"passed\": %s, \"entries\": %llu, \"checks\": [",
		       rep->nr_failed ? "false" : "true", (unsigned long long)rep->entries);
		for (c = 0; c < CONFORMANCE_NR_CHECKS; c++) {
			const struct conformance_result *r = &rep->checks[c];

			printf("%s{\"check\": ", c ? ", " : "");
			json_string(stdout, conformance_check_name(c));
			printf(", \"passed\": %s, \"checked\": %llu, \"checked_unit\": ",
			       r->failures ? "false" : "true", (unsigned long long)r->checked);
			json_string(stdout, conformance_check_unit(c));
			printf(", \"failures\": %llu, \"message\": ",
			       (unsigned long long)r->failures);
			if (r->message[0])
				json_string(stdout, r->message);
			else
				printf("null");	/* none: it passed */
			printf("}");
		}
		printf("]}");
		all &= !rep->nr_failed;
	}
	printf("], \"passed\": %s}\n", all ? "true" : "false");
}

/* A row per governor and check, with the JSON's names (cpuidle-output(7)). */
static void print_csv(const struct conformance_report *reps, unsigned int n)
{
	unsigned int g;
	int c;

	printf("seed,governor,entries,check,passed,checked,checked_unit,failures,message\n");
	for (g = 0; g < n; g++) {
		const struct conformance_report *rep = &reps[g];

		for (c = 0; c < CONFORMANCE_NR_CHECKS; c++) {
			const struct conformance_result *r = &rep->checks[c];

			printf("%llu,", (unsigned long long)rep->seed);
			cli_csv_field(stdout, rep->governor);
			printf(",%llu,%s,%d,%llu,%s,%llu,", (unsigned long long)rep->entries,
			       conformance_check_name(c), !r->failures,
			       (unsigned long long)r->checked, conformance_check_unit(c),
			       (unsigned long long)r->failures);
			cli_csv_field(stdout, r->message);
			putchar('\n');
		}
	}
}

static const struct option conformance_longopts[] = {
	{ "governor", required_argument, NULL, 'g' },
	{ "drivers", required_argument, NULL, 'd' },
	{ "entries", required_argument, NULL, 'n' },
	{ "seed", required_argument, NULL, 'S' },
	{ "json", no_argument, NULL, 'J' },
	{ "csv", no_argument, NULL, 'C' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_conformance_opts = {
	.shortopts = "g:d:n:qh",
	.longopts = conformance_longopts,
};

int cmd_conformance(int argc, char **argv)
{
	struct conformance_options opt = { 0 };
	const struct cpuidle_governor *govs[MAX_GOVS];
	struct conformance_report *reps;
	char govlist[512] = "", shapelist[256] = "";
	unsigned int n = 0, g, failed = 0;
	bool json = false, csv = false;
	long long v;
	bool have_govlist = false;
	int c, ret;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_conformance_opts)) != -1) {
		switch (c) {
		case 'g':
			if (strlen(optarg) >= sizeof(govlist))
				return cli_error("conformance", "governor list too long");
			strcpy(govlist, optarg);
			have_govlist = true;
			break;
		case 'd':
			if (strlen(optarg) >= sizeof(shapelist))
				return cli_error("conformance", "driver shape list too long");
			strcpy(shapelist, optarg);
			if (parse_shapes(shapelist, &opt.shapes))
				return 1;
			break;
		case 'n':
			if (cli_parse_ll(optarg, 1, CONFORMANCE_MAX_ENTRIES, &v))
				return cli_error("conformance", "--entries wants 1..%d, not '%s'",
						 CONFORMANCE_MAX_ENTRIES, optarg);
			opt.entries = (unsigned int)v;
			break;
		case 'S':
			if (cli_parse_ll(optarg, 1, INT64_MAX, &v))
				return cli_error("conformance", "--seed wants a positive integer, "
						 "not '%s'", optarg);
			opt.seed = (uint64_t)v;
			break;
		case 'J':
			json = true;
			break;
		case 'C':
			csv = true;
			break;
		case 'h':
			conformance_usage(stdout);
			return 0;
		default:
			conformance_usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		return cli_usage_error("conformance", "unexpected argument '%s'", argv[optind]);
	if (json && csv)
		return cli_usage_error("conformance", "--csv and --json: one of them");
	if (have_govlist) {
		if (parse_governors(govlist, govs, &n))
			return 1;
	} else {
		const struct cpuidle_governor *const *p;

		for (p = cpuidle_builtin_governors(); *p && n < MAX_GOVS; p++)
			govs[n++] = *p;
		for (p = cpuidle_versioned_governors(); *p && n < MAX_GOVS; p++)
			govs[n++] = *p;	/* the ports by kernel release too */
	}

	reps = calloc(n, sizeof(*reps));
	if (!reps)
		return cli_error("conformance", "%s", strerror(ENOMEM));
	for (g = 0; g < n; g++) {
		ret = conformance_check(govs[g], &opt, &reps[g]);
		if (ret) {
			free(reps);
			return cli_error("conformance", "%s: %s", govs[g]->name, strerror(-ret));
		}
		failed += reps[g].nr_failed > 0;
	}
	if (json)
		print_json(reps, n, opt.entries ? opt.entries : CONFORMANCE_DEFAULT_ENTRIES,
			   opt.shapes ? opt.shapes : CONFORMANCE_ALL_SHAPES);
	else if (csv)
		print_csv(reps, n);
	else
		print_table(reps, n);
	free(reps);
	return failed ? 1 : 0;
}
