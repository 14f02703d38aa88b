/* SPDX-License-Identifier: MIT */
/*
 * stats_tables.h - the tables cpuidle stats prints on request, beside its
 * C-state table: what ended each idle period (-w) and the time at each
 * frequency while running (-f), per CPU, as text, CSV rows or JSON.
 */
#ifndef CPUIDLE_STATS_TABLES_H
#define CPUIDLE_STATS_TABLES_H

#include <stdbool.h>

#include "cli.h"
#include "kstats.h"

/* the columns a CSV row of any table ends with, once one is asked for */
#define STATS_CSV_TABLE_COLUMNS	",table,wake,irq,irq_name,early,late,khz"
/* what a C-state row (a CPU's or a cluster's) has in them */
#define STATS_CSV_CSTATE_TAIL	",cstate,,,,,,"

/* does @cpu have a row in the wake-up table (@wakeups) or the frequency one (@freqs)? */
bool stats_cpu_has_rows(const struct kstats *ks, unsigned int cpu, bool wakeups, bool freqs);

/*
 * @cpu's wake-up rows: a text table under its heading, CSV rows (@cluster
 * is the CPU's, or NULL), or the JSON list's items (the caller writes the
 * brackets); @unknown stands for a value not known.
 */
void stats_print_wakeups(enum cli_format fmt, const struct kstats *ks, unsigned int cpu,
			 const char *cluster, const char *unknown);

/* @cpu's frequency rows, the same ways */
void stats_print_freqs(enum cli_format fmt, const struct kstats *ks, unsigned int cpu,
		       const char *cluster);

/* @ns in idlestat's style: us below 1 ms, ms below 1 s, else s */
void stats_print_time(char *buf, size_t len, int64_t ns);

/* what a wake-up source is, as the text table names it ("irq 41 virtio3-rx") */
void stats_wake_label(char *buf, size_t len, const struct kwake_source *s);

/* the highest CPU any table has, + 1 */
unsigned int stats_nr_cpus(const struct kstats *ks);

#endif /* CPUIDLE_STATS_TABLES_H */
