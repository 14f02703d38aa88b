// SPDX-License-Identifier: MIT
/*
 * cmd_stats.c - "cpuidle stats": what the kernel itself did in a trace,
 * per CPU and state, in the manner of idlestat's C-state table.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "recording.h"
#include "kstats.h"
#include "stats_report.h"
#include "stats_tables.h"

static void stats_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " stats [-p PLATFORM] [-w] [-f] [--csv | --json]\n"
		"                     [--report FILE.html] TRACE\n\n"
		"Per CPU and idle state, what the kernel did: entries (hits; usage in the\n"
		"CSV and JSON), total time (time_ns),\n"
		"min/avg/max residency, and its above/below verdicts (the trace's\n"
		"cpu_idle_miss events; recomputed from PLATFORM's table if it has none;\n"
		"else not known: '-', empty in the CSV, null in the JSON).  A PLATFORM\n"
		"without a state the trace enters, or whose states the trace's header\n"
		"names otherwise, is warned about.  Each cluster (the trace's topology,\n"
		"else PLATFORM's, else all CPUs as one) has a row per state too: the\n"
		"periods during which every CPU of it was idle, the shallowest of them in\n"
		"that state, as idlestat's cluster rows.\n\n"
		"  -p, --platform SPEC     the platform whose state table names the trace's\n"
		"                          states and judges them (default: the recording's,\n"
		"                          where its description gives one)\n"
		"  -w, --wakeups           per CPU, what ended its idle periods: the first\n"
		"                          interrupt, local timer or IPI after each entry (as\n"
		"                          idlestat -w counts them), 'unknown' where none came\n"
		"                          before the next entry; with PLATFORM, how many were\n"
		"                          early (short of the state's target residency) or\n"
		"                          late (past the next deeper state's)\n"
		"  -f, --frequencies       per CPU, the time at each frequency while running\n"
		"                          (power:cpu_frequency; as idlestat -p): min, max,\n"
		"                          avg and total of its stretches, and their number\n"
		"      --csv               CSV rows; with -w or -f, columns table (cstate,\n"
		"                          wakeup, frequency), wake, irq, irq_name, early,\n"
		"                          late, khz follow\n"
		"      --json              JSON; with -w or -f, each CPU has 'wakeups' or\n"
		"                          'frequencies' too\n"
		"      --report FILE.html  also write it as one HTML page: where the time went,\n"
		"                          each state's stays against the target residencies,\n"
		"                          what ended the periods, a timeline, the table\n"
		CLI_USAGE_QUIET
		"  -h, --help              this text\n\n"
		"See cpuidle-stats(1).\n");
}

/* the CPUs of cluster @c as a list: "0-1,4" */
static void cpu_list(char *buf, size_t len, const struct kstats *ks, int c)
{
	unsigned int cpu, from;
	size_t n = 0;

	buf[0] = '\0';
	for (cpu = 0; cpu < TRACE_MAX_CPUS; cpu++) {
		if (!(ks->cluster_cpus[c][cpu / 64] >> (cpu % 64) & 1))
			continue;
		for (from = cpu; cpu + 1 < TRACE_MAX_CPUS &&
		     ks->cluster_cpus[c][(cpu + 1) / 64] >> ((cpu + 1) % 64) & 1; cpu++)
			;
		n += (size_t)snprintf(buf + n, n < len ? len - n : 0, from == cpu ? "%s%u" :
				      "%s%u-%u", n ? "," : "", from, cpu);
		if (n >= len)
			return;
	}
}

static void print_row(enum cli_format fmt, int cpu, const char *cluster, int s, const char *name,
		      const struct kstate_stats *st, const char *above, const char *below,
		      bool first_of_block, const char *csv_tail);

/* every cluster with a CPU: its periods of every CPU idle, per state */
static void print_clusters(enum cli_format fmt, const struct kstats *ks,
			   const struct cpuidle_platform *p, const struct trace_info *info,
			   const char *unknown, const char *csv_tail)
{
	bool first = true;
	char cpus[256], nb[32];
	int c, s;

	for (c = 0; c < ks->nr_clusters; c++) {
		cpu_list(cpus, sizeof(cpus), ks, c);
		if (!cpus[0])
			continue;
		if (fmt == FMT_TABLE)
			printf("\n%s (cpus %s): every CPU idle\n  %-16s %9s %9s %9s %10s %8s %7s %7s\n",
			       ks->cluster_names[c], cpus, "state", "min", "max", "avg", "total",
			       "hits", "above", "below");
		if (fmt == FMT_JSON) {
			unsigned int cpu;
			bool first_cpu = true;

			printf("%s{\"name\": ", first ? "" : ", ");
			json_string(stdout, ks->cluster_names[c]);
			printf(", \"cpus\": [");
			for (cpu = 0; cpu < TRACE_MAX_CPUS; cpu++)
				if (ks->cluster_cpus[c][cpu / 64] >> (cpu % 64) & 1) {
					printf("%s%u", first_cpu ? "" : ", ", cpu);
					first_cpu = false;
				}
			printf("], \"states\": [");
		}
		first = false;
		for (s = 0; s < ks->nr_states; s++)
			print_row(fmt, -1, ks->cluster_names[c], s,
				  kstats_state_name(p, info, s, nb, sizeof(nb)),
				  kstats_cluster_get(ks, c, s), unknown, unknown, !s, csv_tail);
		if (fmt == FMT_JSON)
			printf("]}");
	}
}

/* the cluster that @cpu belongs to, or NULL */
static const char *cluster_name(const struct kstats *ks, unsigned int cpu)
{
	int c;

	for (c = 0; c < ks->nr_clusters; c++)
		if (ks->cluster_cpus[c][cpu / 64] >> (cpu % 64) & 1)
			return ks->cluster_names[c];
	return NULL;
}

/*
 * one row: a CPU's state (@cpu >= 0) or a cluster's (@cluster), in @fmt;
 * a CSV row ends with @csv_tail
 */
static void print_row(enum cli_format fmt, int cpu, const char *cluster, int s, const char *name,
		      const struct kstate_stats *st, const char *above, const char *below,
		      bool first_of_block, const char *csv_tail)
{
	int64_t avg = st->hits ? (int64_t)(st->total_ns / st->hits) : 0;
	char mn[32], mx[32], av[32], tot[32];

	if (fmt == FMT_CSV) {
		if (cpu >= 0)
			printf("%d", cpu);
		printf(",%d,", s);
		cli_csv_field(stdout, name);
		printf(",%llu,%llu,%lld,%lld,%lld,%s,%s,", (unsigned long long)st->hits,
		       (unsigned long long)st->total_ns, (long long)st->min_ns, (long long)avg,
		       (long long)st->max_ns, above, below);
		if (cluster)
			cli_csv_field(stdout, cluster);
		printf("%s\n", csv_tail);
	} else if (fmt == FMT_JSON) {
		printf("%s{\"index\": %d, \"name\": ", first_of_block ? "" : ", ", s);
		json_string(stdout, name);
		printf(", \"usage\": %llu, \"time_ns\": %llu, \"min_ns\": %lld, "
		       "\"avg_ns\": %lld, \"max_ns\": %lld, \"above\": %s, "
		       "\"below\": %s}", (unsigned long long)st->hits,
		       (unsigned long long)st->total_ns, (long long)st->min_ns,
		       (long long)avg, (long long)st->max_ns, above, below);
	} else {
		stats_print_time(mn, sizeof(mn), st->min_ns);
		stats_print_time(mx, sizeof(mx), st->max_ns);
		stats_print_time(av, sizeof(av), avg);
		stats_print_time(tot, sizeof(tot), (int64_t)st->total_ns);
		printf("  %-16s %9s %9s %9s %10s %8llu %7s %7s\n", name, mn, mx, av, tot,
		       (unsigned long long)st->hits, above, below);
	}
}

static const struct option stats_longopts[] = {
	{ "platform", required_argument, NULL, 'p' },
	{ "csv", no_argument, NULL, 'C' },
	{ "json", no_argument, NULL, 'J' },
	{ "report", required_argument, NULL, 'r' },
	{ "wakeups", no_argument, NULL, 'w' },
	{ "frequencies", no_argument, NULL, 'f' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_stats_opts = {
	.shortopts = "p:wfqh",
	.longopts = stats_longopts,
};

int cmd_stats(int argc, char **argv)
{
	const char *platform_spec = NULL, *misses, *report = NULL;
	struct stats_timeline tl = { .end_ns = INT64_MAX };
	struct cpuidle_platform platform, *p = NULL;
	static struct recording rec;
	enum cli_format fmt = FMT_TABLE;
	struct kstats_want want;
	struct trace_info info;
	struct kstats ks;
	char err[1024], nb[32];
	unsigned int cpu, nr_cpus;
	int c, s, ret;
	bool first = true, wakeups = false, freqs = false;
	const char *unknown, *csv_tail;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_stats_opts)) != -1) {
		switch (c) {
		case 'p':
			platform_spec = optarg;
			break;
		case 'w':
			wakeups = true;
			break;
		case 'f':
			freqs = true;
			break;
		case 'C':
			fmt = FMT_CSV;
			break;
		case 'J':
			fmt = FMT_JSON;
			break;
		case 'r':
			report = optarg;
			break;
		case 'h':
			stats_usage(stdout);
			return 0;
		default:
			stats_usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		stats_usage(stderr);
		return 2;
	}
	unknown = fmt == FMT_CSV ? "" : fmt == FMT_JSON ? "null" : "-";
	if (report) {
		const struct cli_out_arg out = { .opt = "--report", .path = report };
		const char *in = argv[optind];

		if (cli_out_check("stats", &out, 1, &in, 1))
			return 1;
	}
	/* the CSV's table columns only where a table beside the C-states is asked for */
	csv_tail = wakeups || freqs ? STATS_CSV_CSTATE_TAIL : "";
	/* the recording's platform names and judges its states, unless -p */
	if (cli_recording("stats", argv[optind], &rec))
		return 1;
	if (platform_spec || rec.platform) {
		if (cli_recording_platform("stats", argv[optind], &rec, platform_spec, NULL,
					   &platform))
			return 1;
		p = &platform;
	}
	/* the report shows the wake-ups; the tables not shown are not tallied */
	want = (struct kstats_want){
		.wakeups = wakeups || report,
		.freqs = freqs,
		.stay = report ? stats_timeline_add : NULL,
		.ctx = &tl,
	};
	ret = kstats_read(argv[optind], p, &want, &ks, &info, err, sizeof(err));
	if (ret) {
		stats_timeline_free(&tl);
		return cli_error("stats", "%s", err[0] ? err : strerror(-ret));
	}
	if (!ks.nr_states) {
		kstats_free(&ks);
		stats_timeline_free(&tl);
		return cli_error("stats", "%s: no idle entries (power:cpu_idle) in the trace",
				 argv[optind]);
	}
	misses = kstats_misses_source(&ks);
	if (ks.from_intervals)
		cli_note_intervals("stats", argv[optind], &ks.approx,
				   ks.misses_recomputed ? p->name : NULL);
	cli_warn_lost("stats", argv[optind], ks.lost_gaps, ks.lost_events, ks.lost_cpu,
		      ks.lost_line, ks.lost_n);
	cli_warn_idle_less("stats", argv[optind], ks.idle_less, ks.nr_idle_less);
	if (p && kstats_platform_mismatch(ks.nr_states, &info, p, err, sizeof(err)))
		cli_warn_on("stats", argv[optind], "%s; its states are named and judged "
			    "by %s's table (is -p the machine that recorded it?)", err, p->name);
	if (wakeups && !ks.wake.events)
		cli_warn_on("stats", argv[optind], "no interrupt, local timer or IPI events "
			    "(irq:irq_handler_entry, irq_vectors:*, ipi:ipi_entry) in the trace: "
			    "what ended each idle period is unknown");
	if (freqs && !ks.freq.events)
		cli_warn_on("stats", argv[optind], "no frequency changes (power:cpu_frequency) "
			    "in the trace: no frequencies to show");

	if (report) {
		ret = stats_report_write(report, argv[optind], &ks, p, &info, &tl);
		stats_timeline_free(&tl);
		if (ret) {
			kstats_free(&ks);
			return 1;
		}
	}
	if (fmt == FMT_JSON) {
		printf("{\"trace\": ");
		json_string(stdout, argv[optind]);
		printf(", \"span_ns\": %lld, \"above_below\": \"%s\", ",
		       (long long)(ks.last_ns - ks.first_ns), misses);
		cli_json_read_back(ks.from_intervals ? &ks.approx : NULL);
		printf(", \"cpus\": [");
	} else if (fmt == FMT_CSV) {
		printf("cpu,state_index,state_name,usage,time_ns,min_ns,avg_ns,max_ns,above,below,"
		       "cluster%s\n", wakeups || freqs ? STATS_CSV_TABLE_COLUMNS : "");
	} else {
		printf("%s: %.3f s; above/below: %s\n", argv[optind],
		       (double)(ks.last_ns - ks.first_ns) * 1e-9,
		       ks.misses_recorded ? "the kernel's cpu_idle_miss events" :
		       ks.misses_recomputed ? "recomputed from the platform's table" :
		       "not known (no cpu_idle_miss events; give -p PLATFORM)");
	}
	/* the clusters first, as idlestat prints them (in the JSON, after the CPUs) */
	if (fmt != FMT_JSON)
		print_clusters(fmt, &ks, p, &info, unknown, csv_tail);
	/* a CPU with no idle period shown may still have wake-ups or frequencies */
	nr_cpus = wakeups || freqs ? stats_nr_cpus(&ks) : ks.nr_cpus;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		bool shown = cpu < ks.nr_cpus && kstats_cpu_shown(&ks, cpu);

		if (!shown && !stats_cpu_has_rows(&ks, cpu, wakeups, freqs))
			continue;
		if (fmt == FMT_TABLE && shown)
			printf("\ncpu%u\n  %-16s %9s %9s %9s %10s %8s %7s %7s\n", cpu, "state", "min",
			       "max", "avg", "total", "hits", "above", "below");
		if (fmt == FMT_JSON)
			printf("%s{\"cpu\": %u, \"states\": [", first ? "" : ", ", cpu);
		first = false;
		for (s = 0; shown && s < ks.nr_states; s++) {
			const struct kstate_stats *st = kstats_get(&ks, cpu, s);
			const char *name = kstats_state_name(p, &info, s, nb, sizeof(nb));
			char above[24], below[24];
			/*
			 * Above/below are known from the kernel's verdicts, or
			 * where the platform's table has the state; else they
			 * are unknown: empty (CSV), null (JSON), "-" (text).
			 */
			bool known = kstats_misses_known(&ks, p, s);

			if (known) {
				snprintf(above, sizeof(above), "%llu",
					 (unsigned long long)st->above);
				snprintf(below, sizeof(below), "%llu",
					 (unsigned long long)st->below);
			} else {
				snprintf(above, sizeof(above), "%s", unknown);
				snprintf(below, sizeof(below), "%s", unknown);
			}
			print_row(fmt, (int)cpu, cluster_name(&ks, cpu), s, name, st, above, below,
				  !s, csv_tail);
		}
		if (fmt == FMT_JSON) {
			printf("]");
			if (wakeups) {
				printf(", \"wakeups\": [");
				stats_print_wakeups(fmt, &ks, cpu, NULL, unknown);
				printf("]");
			}
			if (freqs) {
				printf(", \"frequencies\": [");
				stats_print_freqs(fmt, &ks, cpu, NULL);
				printf("]");
			}
			printf("}");
		} else if (fmt == FMT_CSV) {
			if (wakeups)
				stats_print_wakeups(fmt, &ks, cpu, cluster_name(&ks, cpu), unknown);
			if (freqs)
				stats_print_freqs(fmt, &ks, cpu, cluster_name(&ks, cpu));
		}
	}
	/* the text tables after the C-states, as idlestat prints them */
	for (cpu = 0; fmt == FMT_TABLE && freqs && cpu < nr_cpus; cpu++)
		stats_print_freqs(fmt, &ks, cpu, NULL);
	for (cpu = 0; fmt == FMT_TABLE && wakeups && cpu < nr_cpus; cpu++)
		stats_print_wakeups(fmt, &ks, cpu, NULL, unknown);
	if (fmt == FMT_JSON) {
		printf("], \"clusters\": [");
		print_clusters(fmt, &ks, p, &info, unknown, csv_tail);
		printf("]}\n");
	}
	kstats_free(&ks);
	return 0;
}
