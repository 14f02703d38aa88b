// SPDX-License-Identifier: MIT
/*
 * diff_output.c - cpuidle diff's rows as a text table, CSV or JSON
 * (diff.h).  CSV and JSON are long-form: one row per unit, state and
 * figure, in the figure's own unit (avg_ns in ns); null (empty in CSV)
 * where a value is not known.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff.h"

static const char *verdict_word(int v)
{
	return v > 0 ? "higher" : v < 0 ? "lower" : "";
}

static void json_num(double v)
{
	if (isnan(v))
		printf("null");
	else
		printf("%.10g", v);
}

static void csv_num(double v)
{
	if (!isnan(v))
		printf("%.10g", v);
}

static void recording_json(const struct diff_recording *s)
{
	printf("{\"trace\": ");
	json_string(stdout, s->path);
	printf(", \"span_ns\": %lld, \"above_below\": \"%s\", \"platform\": ",
	       (long long)(s->ks.last_ns - s->ks.first_ns), kstats_misses_source(&s->ks));
	if (s->p)
		json_string(stdout, s->p->name);
	else
		printf("null");
	printf(", ");
	cli_json_read_back(s->ks.from_intervals ? &s->ks.approx : NULL);
	printf("}");
}

static void side_json(const struct diff_side *side)
{
	unsigned int r;

	printf("[");
	for (r = 0; r < side->nr; r++) {
		printf("%s", r ? ", " : "");
		recording_json(&side->rec[r]);
	}
	printf("]");
}

static void print_json(const struct diff_run *run)
{
	size_t i;

	printf("{\"before\": ");
	side_json(&run->before);
	printf(", \"after\": ");
	side_json(&run->after);
	printf(", \"resamples\": %u, \"seed\": %llu, \"level\": %g, \"rows\": [", run->resamples,
	       (unsigned long long)run->seed, run->level);
	for (i = 0; i < run->nr_rows; i++) {
		const struct diff_row *r = &run->rows[i];

		printf("%s\n{\"unit\": ", i ? "," : "");
		json_string(stdout, r->unit);
		printf(", \"kind\": \"%s\", \"state_index\": ", r->cluster ? "cluster" : "cpu");
		if (r->slot == DIFF_ALL)
			printf("null");
		else
			printf("%d", r->slot);
		printf(", \"state_name\": ");
		json_string(stdout, r->state);
		printf(", \"figure\": \"%s\", \"before\": ", diff_figure_name(r->figure));
		json_num(r->before);
		printf(", \"after\": ");
		json_num(r->after);
		printf(", \"change\": ");
		json_num(r->change);
		printf(", \"ci_low\": ");
		json_num(r->lo);
		printf(", \"ci_high\": ");
		json_num(r->hi);
		printf(", \"verdict\": ");
		if (r->verdict)
			printf("\"%s\"}", verdict_word(r->verdict));
		else
			printf("null}");
	}
	printf("]}\n");
}

static void print_csv(const struct diff_run *run)
{
	size_t i;

	printf("unit,kind,state_index,state_name,figure,before,after,change,ci_low,ci_high,"
	       "verdict\n");
	for (i = 0; i < run->nr_rows; i++) {
		const struct diff_row *r = &run->rows[i];

		cli_csv_field(stdout, r->unit);
		printf(",%s,", r->cluster ? "cluster" : "cpu");
		if (r->slot != DIFF_ALL)
			printf("%d", r->slot);
		putchar(',');
		cli_csv_field(stdout, r->state);
		printf(",%s,", diff_figure_name(r->figure));
		csv_num(r->before);
		putchar(',');
		csv_num(r->after);
		putchar(',');
		csv_num(r->change);
		putchar(',');
		csv_num(r->lo);
		putchar(',');
		csv_num(r->hi);
		printf(",%s\n", verdict_word(r->verdict));
	}
}

static void side_text(const struct diff_side *side)
{
	unsigned int r;

	for (r = 0; r < side->nr; r++) {
		const struct diff_recording *s = &side->rec[r];

		printf("%-7s %s: %.3f s; above/below: %s\n", r ? "" : side->label, s->path,
		       (double)(s->ks.last_ns - s->ks.first_ns) * 1e-9,
		       kstats_misses_source(&s->ks));
	}
}

static void print_text(const struct diff_run *run)
{
	const struct diff_row *prev = NULL;
	size_t i, verdicts = 0, intervals = 0;

	side_text(&run->before);
	side_text(&run->after);
	if (run->before.nr > 1 || run->after.nr > 1)
		printf("change = after - before, with its %g%% interval (a bootstrap: %u resamples\n"
		       "of the recordings, then of their blocks of consecutive idle periods,\n"
		       "seed %llu); a verdict only where the interval excludes 0\n",
		       run->level * 100, run->resamples, (unsigned long long)run->seed);
	else
		printf("change = after - before, with its %g%% interval (a bootstrap: %u resamples\n"
		       "of blocks of consecutive idle periods, seed %llu); a verdict only where\n"
		       "the interval excludes 0\n", run->level * 100, run->resamples,
		       (unsigned long long)run->seed);
	for (i = 0; i < run->nr_rows; i++) {
		const struct diff_row *r = &run->rows[i];
		char b[32], a[32], c[32], lo[32], hi[32], in[72];

		if (!prev || strcmp(prev->unit, r->unit) || prev->cluster != r->cluster)
			printf("\n%s%s\n  %-14s %-15s %10s %10s %10s  %-22s %s\n", r->unit,
			       r->cluster ? ": every CPU idle" : "", "state", "figure", "before",
			       "after", "change", "95% interval", "verdict");
		diff_format(b, sizeof(b), r->figure, r->before, false);
		diff_format(a, sizeof(a), r->figure, r->after, false);
		diff_format(c, sizeof(c), r->figure, r->change, true);
		if (isnan(r->lo)) {
			snprintf(in, sizeof(in), "-");
		} else {
			diff_format(lo, sizeof(lo), r->figure, r->lo, true);
			diff_format(hi, sizeof(hi), r->figure, r->hi, true);
			snprintf(in, sizeof(in), "[%s, %s]", lo, hi);
			intervals++;
		}
		verdicts += r->verdict != 0;
		printf("  %-14s %-15s %10s %10s %10s  %-22s %s\n",
		       prev && prev->slot == r->slot && !strcmp(prev->unit, r->unit) &&
		       prev->cluster == r->cluster ? "" : r->state,
		       diff_figure_label(r->figure), b, a, c, in, verdict_word(r->verdict));
		prev = r;
	}
	printf("\n%zu verdict%s among %zu intervals (about %.0f expected by chance alone if "
	       "nothing changed)\n", verdicts, verdicts == 1 ? "" : "s", intervals,
	       (double)intervals * (1 - run->level));
}

void diff_print(const struct diff_run *run, enum cli_format fmt)
{
	if (fmt == FMT_JSON)
		print_json(run);
	else if (fmt == FMT_CSV)
		print_csv(run);
	else
		print_text(run);
}
