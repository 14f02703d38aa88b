// SPDX-License-Identifier: MIT
/*
 * stats_tables.c - cpuidle stats's wake-up and frequency tables
 * (lab/ingest/kwake.c and kfreq.c tally them), in the manner of
 * idlestat's -w and -p tables.
 */
#include <stdio.h>

#include "stats_tables.h"

/* what the source is, in the CSV and the JSON */
static const char *source_key(enum kwake_kind kind)
{
	switch (kind) {
	case KWAKE_TIMER:
		return "timer";
	case KWAKE_RESCHED:
		return "resched";
	case KWAKE_CALL_FUNC:
		return "call_function";
	case KWAKE_IRQ:
		return "irq";
	default:
		return "unknown";
	}
}

void stats_wake_label(char *buf, size_t len, const struct kwake_source *s)
{
	switch (s->kind) {
	case KWAKE_TIMER:
		snprintf(buf, len, "local timer");
		break;
	case KWAKE_RESCHED:
		snprintf(buf, len, "resched IPI");
		break;
	case KWAKE_CALL_FUNC:
		snprintf(buf, len, "call-function IPI");
		break;
	case KWAKE_IRQ:
		snprintf(buf, len, "irq %d %s", s->irq, s->name);
		break;
	default:
		snprintf(buf, len, "unknown");
		break;
	}
}

unsigned int stats_nr_cpus(const struct kstats *ks)
{
	unsigned int n = ks->nr_cpus;

	if (ks->wake.nr_cpus > n)
		n = ks->wake.nr_cpus;
	if (ks->freq.nr_cpus > n)
		n = ks->freq.nr_cpus;
	return n;
}

static bool has_wakeups(const struct kstats *ks, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; cpu < ks->wake.nr_cpus && i < ks->wake.cpu[cpu].nr; i++)
		if (ks->wake.cpu[cpu].src[i].count)
			return true;
	return false;
}

static bool has_freqs(const struct kstats *ks, unsigned int cpu)
{
	unsigned int i;

	for (i = 0; cpu < ks->freq.nr_cpus && i < ks->freq.cpu[cpu].nr; i++)
		if (ks->freq.cpu[cpu].rows[i].hits)
			return true;
	return false;
}

bool stats_cpu_has_rows(const struct kstats *ks, unsigned int cpu, bool wakeups, bool freqs)
{
	return (wakeups && has_wakeups(ks, cpu)) || (freqs && has_freqs(ks, cpu));
}

void stats_print_wakeups(enum cli_format fmt, const struct kstats *ks, unsigned int cpu,
			 const char *cluster, const char *unknown)
{
	const struct kwake_cpu *c;
	bool judged = kwake_judged(&ks->wake), first = true;
	char label[TRACE_IRQ_NAME_LEN + 32], early[24], late[24];
	unsigned int i;

	if (!has_wakeups(ks, cpu))
		return;
	c = &ks->wake.cpu[cpu];
	if (fmt == FMT_TABLE)
		printf("\ncpu%u wake-ups: what ended its idle periods\n  %-32s %8s %7s %7s\n", cpu,
		       "source", "count", "early", "late");
	for (i = 0; i < c->nr; i++) {
		const struct kwake_source *s = &c->src[i];

		if (!s->count)
			continue;
		snprintf(early, sizeof(early), "%llu", (unsigned long long)s->early);
		snprintf(late, sizeof(late), "%llu", (unsigned long long)s->late);
		if (fmt == FMT_CSV) {
			printf("%u,,,%llu,,,,,,,", cpu, (unsigned long long)s->count);
			if (cluster)
				cli_csv_field(stdout, cluster);
			printf(",wakeup,%s,", source_key(s->kind));
			if (s->kind == KWAKE_IRQ) {
				printf("%d,", s->irq);
				cli_csv_field(stdout, s->name);
			} else {
				printf(",");
			}
			printf(",%s,%s,\n", judged ? early : unknown, judged ? late : unknown);
		} else if (fmt == FMT_JSON) {
			printf("%s{\"wake\": \"%s\", ", first ? "" : ", ", source_key(s->kind));
			if (s->kind == KWAKE_IRQ) {
				printf("\"irq\": %d, \"irq_name\": ", s->irq);
				json_string(stdout, s->name);
			} else {
				printf("\"irq\": null, \"irq_name\": null");
			}
			printf(", \"count\": %llu, \"early\": %s, \"late\": %s}",
			       (unsigned long long)s->count, judged ? early : unknown,
			       judged ? late : unknown);
		} else {
			stats_wake_label(label, sizeof(label), s);
			printf("  %-32s %8llu %7s %7s\n", label, (unsigned long long)s->count,
			       judged ? early : unknown, judged ? late : unknown);
		}
		first = false;
	}
}

/* a frequency in kHz as idlestat shows one (but in the right unit): 850.00MHz */
static void print_khz(char *buf, size_t len, uint32_t khz)
{
	if (khz < 1000)
		snprintf(buf, len, "%ukHz", khz);
	else if (khz < 1000000)
		snprintf(buf, len, "%.2fMHz", khz / 1e3);
	else
		snprintf(buf, len, "%.2fGHz", khz / 1e6);
}

void stats_print_freqs(enum cli_format fmt, const struct kstats *ks, unsigned int cpu,
		       const char *cluster)
{
	char fq[32], mn[32], mx[32], av[32], tot[32];
	const struct kfreq_cpu *c;
	bool first = true;
	unsigned int i;

	if (!has_freqs(ks, cpu))
		return;
	c = &ks->freq.cpu[cpu];
	if (fmt == FMT_TABLE)
		printf("\ncpu%u frequencies: time at each while running\n  %-16s %9s %9s %9s %10s "
		       "%8s\n", cpu, "frequency", "min", "max", "avg", "total", "hits");
	for (i = 0; i < c->nr; i++) {
		const struct kfreq_row *r = &c->rows[i];
		int64_t avg = r->hits ? (int64_t)(r->total_ns / r->hits) : 0;

		if (!r->hits)
			continue;
		if (fmt == FMT_CSV) {
			printf("%u,,,%llu,%llu,%lld,%lld,%lld,,,", cpu, (unsigned long long)r->hits,
			       (unsigned long long)r->total_ns, (long long)r->min_ns,
			       (long long)avg, (long long)r->max_ns);
			if (cluster)
				cli_csv_field(stdout, cluster);
			printf(",frequency,,,,,,%u\n", r->khz);
		} else if (fmt == FMT_JSON) {
			printf("%s{\"khz\": %u, \"usage\": %llu, \"time_ns\": %llu, "
			       "\"min_ns\": %lld, \"avg_ns\": %lld, \"max_ns\": %lld}",
			       first ? "" : ", ", r->khz,
			       (unsigned long long)r->hits, (unsigned long long)r->total_ns,
			       (long long)r->min_ns, (long long)avg, (long long)r->max_ns);
		} else {
			print_khz(fq, sizeof(fq), r->khz);
			stats_print_time(mn, sizeof(mn), r->min_ns);
			stats_print_time(mx, sizeof(mx), r->max_ns);
			stats_print_time(av, sizeof(av), avg);
			stats_print_time(tot, sizeof(tot), (int64_t)r->total_ns);
			printf("  %-16s %9s %9s %9s %10s %8llu\n", fq, mn, mx, av, tot,
			       (unsigned long long)r->hits);
		}
		first = false;
	}
}

void stats_print_time(char *buf, size_t len, int64_t ns)
{
	if (ns < 1000000)
		snprintf(buf, len, "%lldus", (long long)((ns + 500) / 1000));
	else if (ns < 1000000000)
		snprintf(buf, len, "%.2fms", (double)ns * 1e-6);
	else
		snprintf(buf, len, "%.2fs", (double)ns * 1e-9);
}
