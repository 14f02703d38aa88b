// SPDX-License-Identifier: MIT
/*
 * cmd_info.c - "cpuidle info": the host's cpuidle as sysfs shows it, in
 * the manner of cpupower idle-info: driver, governor, and per CPU and
 * state every file the kernel has.  A file the kernel does not have is
 * shown as "-" (left out of the JSON), never as zero.
 */
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "host_cli.h"

static void info_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " info [--csv | --json] [-c CPULIST]\n\n"
		"The host's cpuidle: driver, governor, available governors, and per CPU\n"
		"and idle state name, desc, latency and residency (us), power, usage,\n"
		"time (us), above, below, rejected, disable and default_status, as sysfs\n"
		"has them; '-' for a file this kernel does not have (null in the JSON,\n"
		"empty in the CSV), and for a power of 4294967295 (the kernel's -1:\n"
		"unknown).\n\n"
		"      --csv               a header, then a row per CPU and state\n"
		"      --json              one JSON object\n"
		"  -c, --cpus CPULIST      only these CPUs (0-3,6 or all; default all)\n"
		CLI_USAGE_QUIET
		"  -h, --help              this text\n\n"
		"CPUIDLE_SYSFS_ROOT replaces /sys.  See cpuidle-info(1).\n");
}

/*
 * the numeric files, in table and JSON order: the JSON's and CSV's names
 * (cpuidle-output(7)), a file in microseconds scaled to nanoseconds there
 */
#define INFO_US	1000
static const struct {
	const char *key;
	enum host_state_field f;
	size_t off;
	int width;
	unsigned int scale;
} columns[] = {
	{ "exit_latency_ns", HOST_F_LATENCY, offsetof(struct host_state, latency_us), 8, INFO_US },
	{ "target_residency_ns", HOST_F_RESIDENCY, offsetof(struct host_state, residency_us), 9,
	  INFO_US },
	{ "power_mw", HOST_F_POWER, offsetof(struct host_state, power), 0, 1 },
	{ "usage", HOST_F_USAGE, offsetof(struct host_state, usage), 11, 1 },
	{ "time_ns", HOST_F_TIME, offsetof(struct host_state, time_us), 14, INFO_US },
	{ "above", HOST_F_ABOVE, offsetof(struct host_state, above), 9, 1 },
	{ "below", HOST_F_BELOW, offsetof(struct host_state, below), 9, 1 },
	{ "rejected", HOST_F_REJECTED, offsetof(struct host_state, rejected), 8, 1 },
	{ "disable", HOST_F_DISABLE, offsetof(struct host_state, disable), 7, 1 },
	{ "s2idle_usage", HOST_F_S2IDLE_USAGE, offsetof(struct host_state, s2idle_usage), 0, 1 },
	{ "s2idle_time_ns", HOST_F_S2IDLE_TIME, offsetof(struct host_state, s2idle_time_us), 0,
	  INFO_US },
};

/* the file's value, as sysfs has it (the table's) */
static uint64_t field(const struct host_state *s, unsigned int i)
{
	return *(const uint64_t *)((const char *)s + columns[i].off);
}

/* whether the JSON and CSV have a value for column @i: the file, and a power not -1 */
static bool known(const struct host_state *s, unsigned int i)
{
	return host_state_has(s, columns[i].f) &&
	       !(columns[i].f == HOST_F_POWER && s->power == HOST_POWER_UNKNOWN);
}

static void json_governors(const char *list)
{
	char buf[HOST_GOVERNORS_LEN], *tok, *save;
	bool first = true;

	snprintf(buf, sizeof(buf), "%s", list);
	printf("[");
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		printf("%s", first ? "" : ", ");
		json_string(stdout, tok);
		first = false;
	}
	printf("]");
}

static void json_string_or_null(bool known, const char *s)
{
	if (known)
		json_string(stdout, s);
	else
		printf("null");
}

static void info_json(const struct host_cpuidle *h, const struct host_cpuset *set)
{
	static const struct {
		const char *key;
		enum host_global_field f;
		size_t off;
	} globals[] = {
		{ "driver", HOST_G_DRIVER, offsetof(struct host_cpuidle, driver) },
		{ "governor", HOST_G_GOVERNOR, offsetof(struct host_cpuidle, governor) },
		{ "governor_ro", HOST_G_GOVERNOR_RO, offsetof(struct host_cpuidle, governor_ro) },
	};
	unsigned int i, g, n = 0;
	int k;

	printf("{\"sysfs_root\": ");
	json_string(stdout, host_sysfs_root());
	/* a file the kernel lacks: null */
	for (g = 0; g < sizeof(globals) / sizeof(globals[0]); g++) {
		printf(", \"%s\": ", globals[g].key);
		json_string_or_null(host_has(h, globals[g].f), (const char *)h + globals[g].off);
	}
	printf(", \"available_governors\": ");
	if (host_has(h, HOST_G_AVAILABLE))
		json_governors(h->available);
	else
		printf("null");
	printf(", \"cpus\": [");
	for (i = 0; i < h->nr_cpus; i++) {
		const struct host_cpu *c = &h->cpus[i];
		long long lim;

		if (!host_cpuset_has(set, c->cpu))
			continue;
		printf("%s{\"cpu\": %u", n++ ? ", " : "", c->cpu);
		if (c->driver[0]) {
			printf(", \"driver\": ");
			json_string(stdout, c->driver);
		}
		/* as qos show --json has it: a number, null for no constraint */
		if (c->resume_latency[0] && !host_cli_resume_limit(c->resume_latency, &lim)) {
			printf(", \"resume_latency_ns\": ");
			if (lim < 0)
				printf("null");
			else
				printf("%lld", lim * 1000);
		}
		printf(", \"states\": [");
		for (k = 0; k < c->state_count; k++) {
			const struct host_state *s = &c->states[k];

			/* a file the kernel lacks, or a power of -1, null */
			printf("%s{\"index\": %d, \"name\": ", k ? ", " : "", k);
			json_string_or_null(host_state_has(s, HOST_F_NAME), s->name);
			printf(", \"desc\": ");
			json_string_or_null(host_state_has(s, HOST_F_DESC), s->desc);
			for (g = 0; g < sizeof(columns) / sizeof(columns[0]); g++)
				if (known(s, g))
					printf(", \"%s\": %llu", columns[g].key,
					       (unsigned long long)field(s, g) * columns[g].scale);
				else
					printf(", \"%s\": null", columns[g].key);
			printf(", \"default_status\": ");
			json_string_or_null(host_state_has(s, HOST_F_DEFAULT_STATUS),
					    s->default_status);
			printf("}");
		}
		printf("]}");
	}
	printf("]}\n");
}

/* a row per CPU and state; a file the kernel lacks, or a power it does not know, empty */
static void info_csv(const struct host_cpuidle *h, const struct host_cpuset *set)
{
	unsigned int i, g;
	int k;

	printf("cpu,driver,state_index,state_name,desc");
	for (g = 0; g < sizeof(columns) / sizeof(columns[0]); g++)
		printf(",%s", columns[g].key);
	printf(",default_status\n");
	for (i = 0; i < h->nr_cpus; i++) {
		const struct host_cpu *c = &h->cpus[i];

		if (!host_cpuset_has(set, c->cpu))
			continue;
		for (k = 0; k < c->state_count; k++) {
			const struct host_state *s = &c->states[k];

			printf("%u,", c->cpu);
			cli_csv_field(stdout, c->driver);
			printf(",%d,", k);
			if (host_state_has(s, HOST_F_NAME))
				cli_csv_field(stdout, s->name);
			putchar(',');
			if (host_state_has(s, HOST_F_DESC))
				cli_csv_field(stdout, s->desc);
			for (g = 0; g < sizeof(columns) / sizeof(columns[0]); g++) {
				putchar(',');
				if (known(s, g))
					printf("%llu",
					       (unsigned long long)field(s, g) * columns[g].scale);
			}
			putchar(',');
			if (host_state_has(s, HOST_F_DEFAULT_STATUS))
				cli_csv_field(stdout, s->default_status);
			putchar('\n');
		}
	}
}

static void info_table(const struct host_cpuidle *h, const struct host_cpuset *set)
{
	unsigned int i, g;
	int k;

	printf("driver: %s\n", host_has(h, HOST_G_DRIVER) ? h->driver : "-");
	printf("governor: %s%s\n", host_has(h, HOST_G_GOVERNOR) || host_has(h, HOST_G_GOVERNOR_RO) ?
	       host_current_governor(h) : "-",
	       !host_has(h, HOST_G_GOVERNOR) && host_has(h, HOST_G_GOVERNOR_RO) ?
	       " (current_governor_ro: cannot be switched)" : "");
	printf("available governors: %s\n", host_has(h, HOST_G_AVAILABLE) ? h->available : "-");
	if (!h->nr_cpus)
		printf("\nno CPU has idle states%s\n",
		       host_has(h, HOST_G_DRIVER) && !strcmp(h->driver, "none") ?
		       " (no cpuidle driver: the kernel idles in its default routine)" : "");
	for (i = 0; i < h->nr_cpus; i++) {
		const struct host_cpu *c = &h->cpus[i];

		if (!host_cpuset_has(set, c->cpu))
			continue;
		printf("\ncpu%u%s%s%s\n", c->cpu, c->driver[0] ? " (driver " : "", c->driver,
		       c->driver[0] ? ")" : "");
		if (!c->state_count) {
			printf("  no idle states\n");
			continue;
		}
		printf("  %-3s %-15s %-31s %8s %9s %10s %11s %14s %9s %9s %8s %7s %s\n", "idx",
		       "name", "desc", "latency", "residency", "power", "usage", "time[us]",
		       "above", "below", "rejected", "disable", "default");
		for (k = 0; k < c->state_count; k++) {
			const struct host_state *s = &c->states[k];
			char pw[32];

			printf("  %-3d %-15s %-31s", k, host_state_has(s, HOST_F_NAME) ? s->name : "-",
			       host_state_has(s, HOST_F_DESC) ? s->desc : "-");
			for (g = 0; g < 9; g++) {
				int w = columns[g].width;

				if (columns[g].f == HOST_F_POWER)
					printf(" %10s", host_cli_power(s, pw, sizeof(pw)));
				else if (host_state_has(s, columns[g].f))
					printf(" %*llu", w, (unsigned long long)field(s, g));
				else
					printf(" %*s", w, "-");
			}
			printf(" %s", host_state_has(s, HOST_F_DEFAULT_STATUS) ? s->default_status : "-");
			if (host_state_has(s, HOST_F_S2IDLE_USAGE) || host_state_has(s, HOST_F_S2IDLE_TIME))
				printf("  s2idle: usage %llu, time %llu us",
				       (unsigned long long)s->s2idle_usage,
				       (unsigned long long)s->s2idle_time_us);
			printf("\n");
		}
	}
}

static const struct option info_longopts[] = {
	{ "json", no_argument, NULL, 'J' },
	{ "csv", no_argument, NULL, 'C' },
	{ "cpus", required_argument, NULL, 'c' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_info_opts = {
	.shortopts = "c:qh",
	.longopts = info_longopts,
};

int cmd_info(int argc, char **argv)
{
	const char *cpus = NULL;
	struct host_cpuidle h;
	struct host_cpuset set;
	bool json = false, csv = false;
	int c;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_info_opts)) != -1) {
		switch (c) {
		case 'J':
			json = true;
			break;
		case 'C':
			csv = true;
			break;
		case 'c':
			cpus = optarg;
			break;
		case 'h':
			info_usage(stdout);
			return 0;
		default:
			info_usage(stderr);
			return 2;
		}
	}
	if (optind != argc)
		return cli_usage_error("info", "unexpected argument '%s'", argv[optind]);
	if (csv && json)
		return cli_usage_error("info", "--csv and --json: one of them");
	if (host_cli_read("info", &h))
		return 1;
	if (host_cli_cpus("info", cpus, &h, &set)) {
		host_cpuidle_free(&h);
		return 1;
	}
	if (json)
		info_json(&h, &set);
	else if (csv)
		info_csv(&h, &set);
	else
		info_table(&h, &set);
	host_cpuidle_free(&h);
	return 0;
}
