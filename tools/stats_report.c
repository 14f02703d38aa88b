// SPDX-License-Identifier: MIT
/*
 * stats_report.c - cpuidle stats --report (stats_report.h).
 *
 * The page answers, in order: where did each CPU's time go (a bar per CPU
 * and cluster, a segment per state, the rest running), did the stays pay
 * for their states (per state, the histogram of its stays against the
 * platform's target residencies: stays left of a state's own mark were
 * too short for it), what did it look like (the first stays of every CPU
 * on one time axis), and the numbers (stats' table).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "stats_report.h"
#include "stats_tables.h"
#include "math_lib.h"

#define PAGE_WIDTH	760	/* px, every chart */
#define LABEL_WIDTH	150	/* px, the units' names left of the bars and lanes */
#define LANE_HEIGHT	22	/* px per unit */
#define HIST_HEIGHT	160	/* px, a histogram's plot */
#define COLOR_BUSY	"#e8e8e8"

static const char page_style[] =
	REPORT_PAGE_BASE_STYLE
	"svg text{font:11px system-ui,sans-serif}"
	".key i{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}";

int stats_timeline_add(void *ctx, const struct kstats_stay *stay)
{
	struct stats_timeline *tl = ctx;
	unsigned int unit = stay->cluster ? TRACE_MAX_CPUS + stay->index : stay->index;

	if (unit >= TRACE_MAX_CPUS + TRACE_MAX_CLUSTERS ||
	    tl->kept[unit] >= STATS_REPORT_TIMELINE_STAYS)
		return 0;
	if (tl->nr == tl->cap) {
		size_t cap = tl->cap ? tl->cap * 2 : 1024;
		struct kstats_stay *n = realloc(tl->stays, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		tl->stays = n;
		tl->cap = cap;
	}
	tl->stays[tl->nr++] = *stay;
	if (++tl->kept[unit] == STATS_REPORT_TIMELINE_STAYS &&
	    stay->start_ns + stay->ns < tl->end_ns)
		tl->end_ns = stay->start_ns + stay->ns;
	return 0;
}

void stats_timeline_free(struct stats_timeline *tl)
{
	free(tl->stays);
	tl->stays = NULL;
	tl->nr = tl->cap = 0;
}

/* the units shown: clusters with a CPU, then CPUs with an entry */
struct unit {
	bool cluster;
	unsigned int index;
	char name[CPUIDLE_NAME_LEN + 16];
};

static size_t units_of(const struct kstats *ks, struct unit *u, size_t max)
{
	size_t n = 0;
	unsigned int cpu, w;
	int c;

	for (c = 0; c < ks->nr_clusters && n < max; c++) {
		bool any = false;

		for (w = 0; w < TRACE_MAX_CPUS / 64; w++)
			any |= ks->cluster_cpus[c][w] != 0;
		if (!any)
			continue;
		u[n] = (struct unit){ .cluster = true, .index = (unsigned int)c };
		snprintf(u[n++].name, sizeof(u->name), "%s (all idle)", ks->cluster_names[c]);
	}
	for (cpu = 0; cpu < ks->nr_cpus && n < max; cpu++) {
		if (!kstats_cpu_shown(ks, cpu))
			continue;
		u[n] = (struct unit){ .index = cpu };
		snprintf(u[n++].name, sizeof(u->name), "cpu%u", cpu);
	}
	return n;
}

static const struct kstate_stats *unit_state(const struct kstats *ks, const struct unit *u, int s)
{
	return u->cluster ? kstats_cluster_get(ks, (int)u->index, s) :
		kstats_get(ks, u->index, s);
}

static void key(FILE *f, const struct kstats *ks, const struct cpuidle_platform *p,
		const struct trace_info *info, bool busy)
{
	char nb[CPUIDLE_NAME_LEN];
	int s;

	fputs("<p class=\"key\">", f);
	for (s = 0; s < ks->nr_states; s++) {
		fprintf(f, "<span><i style=\"background:%s\"></i>",
			report_state_color(s, ks->nr_states));
		esc(f, kstats_state_name(p, info, s, nb, sizeof(nb)));
		fputs("</span>", f);
	}
	if (busy)
		fprintf(f, "<span><i style=\"background:%s\"></i>running</span>", COLOR_BUSY);
	fputs("</p>\n", f);
}

/* where the time went: a bar per unit, a segment per state, the rest running */
static void chart_residency(FILE *f, const struct kstats *ks, const struct unit *u, size_t n,
			    const struct cpuidle_platform *p, const struct trace_info *info)
{
	double span = (double)(ks->last_ns - ks->first_ns), pw = PAGE_WIDTH - LABEL_WIDTH - 10;
	char nb[CPUIDLE_NAME_LEN], buf[32];
	size_t i;
	int s;

	if (span <= 0)
		span = 1;
	fprintf(f, "<svg class=\"chart residency\" id=\"residency\" width=\"%d\" height=\"%zu\" "
		"role=\"img\">\n", PAGE_WIDTH, n * LANE_HEIGHT + 4);
	for (i = 0; i < n; i++) {
		double x = LABEL_WIDTH, y = (double)i * LANE_HEIGHT + 2;

		fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", LABEL_WIDTH - 6,
			y + 14);
		esc(f, u[i].name);
		fprintf(f, "</text><rect x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"18\" "
			"fill=\"%s\"/>\n", LABEL_WIDTH, y, pw, COLOR_BUSY);
		for (s = 0; s < ks->nr_states; s++) {
			const struct kstate_stats *st = unit_state(ks, &u[i], s);
			double w = (double)st->total_ns / span * pw;

			if (!st->total_ns)
				continue;
			fprintf(f, "<rect class=\"res\" data-unit=\"");
			esc(f, u[i].name);
			fprintf(f, "\" data-state=\"%d\" x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" "
				"height=\"18\" fill=\"%s\"><title>", s, x, y, w,
				report_state_color(s, ks->nr_states));
			esc(f, kstats_state_name(p, info, s, nb, sizeof(nb)));
			fprintf(f, ": %s%% of the trace</title></rect>\n",
				num(buf, sizeof(buf), 100.0 * (double)st->total_ns / span, 2));
			x += w;
		}
	}
	fputs("</svg>\n", f);
	key(f, ks, p, info, true);
}

/* the lower edge of stays' bin @b (cpuidle_lab_stay_bin()), ns */
static double bin_edge_ns(int b)
{
	int e, m;

	if (b <= 0)
		return 0;
	e = CPUIDLE_LAB_STAY_BIN0_SHIFT + (b - 1) / 4;
	m = (b - 1) % 4;
	return math_ldexp(1.0 + m / 4.0, e);
}

/*
 * State @s's stays, pooled over the CPUs, binned a quarter octave wide on
 * a log axis; a mark at each state's target residency.
 */
static void chart_stays(FILE *f, const struct kstats *ks, int s,
			const struct cpuidle_platform *p, const struct trace_info *info)
{
	uint64_t bins[CPUIDLE_LAB_STAY_BINS] = { 0 }, top = 0;
	double x0, x1, lo_l, hi_l, pw = PAGE_WIDTH - 60 - 20;
	char nb[CPUIDLE_NAME_LEN], buf[32];
	int b, lo = CPUIDLE_LAB_STAY_BINS, hi = -1, t;
	unsigned int cpu;

	for (cpu = 0; cpu < ks->nr_cpus; cpu++)
		for (b = 0; b < CPUIDLE_LAB_STAY_BINS; b++)
			bins[b] += kstats_get(ks, cpu, s)->stays[b];
	for (b = 1; b < CPUIDLE_LAB_STAY_BINS; b++) {	/* bin 0 (under 256 ns) left out */
		if (!bins[b])
			continue;
		lo = b < lo ? b : lo;
		hi = b;
		top = bins[b] > top ? bins[b] : top;
	}
	if (hi < 0)
		return;
	for (t = 0; p && t < p->state_count; t++) {
		int64_t tr = p->states[t].target_residency_ns;

		if (tr > 0) {
			b = (int)cpuidle_lab_stay_bin((uint64_t)tr);
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
		}
	}
	lo_l = math_log10(bin_edge_ns(lo));
	hi_l = math_log10(bin_edge_ns(hi + 1));
	fprintf(f, "<svg class=\"chart stays\" data-state=\"%d\" width=\"%d\" height=\"%d\" "
		"role=\"img\"><text x=\"60\" y=\"12\">", s, PAGE_WIDTH, HIST_HEIGHT + 50);
	esc(f, kstats_state_name(p, info, s, nb, sizeof(nb)));
	fprintf(f, ": stays (%s most in one bin)</text>\n", num(buf, sizeof(buf), (double)top, 0));
#define X(ns) (60 + (math_log10(ns) - lo_l) / (hi_l - lo_l) * pw)
	for (b = lo; b <= hi; b++) {
		double h = (double)bins[b] / (double)top * HIST_HEIGHT;

		if (!bins[b])
			continue;
		x0 = X(bin_edge_ns(b));
		x1 = X(bin_edge_ns(b + 1));
		fprintf(f, "<rect class=\"bin\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			"fill=\"%s\"><title>%s: %llu</title></rect>\n", x0, 20 + HIST_HEIGHT - h,
			x1 - x0 > 1 ? x1 - x0 - 0.5 : 0.5, h, report_state_color(s, ks->nr_states),
			dur(buf, sizeof(buf), bin_edge_ns(b)), (unsigned long long)bins[b]);
	}
	/* decades on the axis */
	for (t = (int)ceil(lo_l); t <= (int)floor(hi_l); t++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", X(math_exp10(t)),
			HIST_HEIGHT + 34, dur(buf, sizeof(buf), math_exp10(t)));
	for (t = 0; p && t < p->state_count; t++) {
		int64_t tr = p->states[t].target_residency_ns;

		if (tr <= 0)
			continue;
		fprintf(f, "<line class=\"marker\" x1=\"%.1f\" x2=\"%.1f\" y1=\"16\" y2=\"%d\" "
			"stroke=\"%s\" stroke-dasharray=\"4 3\"%s/>", X((double)tr), X((double)tr),
			HIST_HEIGHT + 22, t == s ? "#222" : "#999",
			t == s ? " stroke-width=\"2\"" : "");
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", X((double)tr),
			HIST_HEIGHT + 46);
		esc(f, p->states[t].name);
		fputs("</text>\n", f);
	}
#undef X
	fputs("</svg>\n", f);
}

/* the first stays of every unit, on one time axis */
static void chart_timeline(FILE *f, const struct kstats *ks, const struct unit *u, size_t n,
			   const struct stats_timeline *tl, const struct cpuidle_platform *p,
			   const struct trace_info *info)
{
	int64_t from = ks->first_ns, to = tl->end_ns < ks->last_ns ? tl->end_ns : ks->last_ns;
	double pw = PAGE_WIDTH - LABEL_WIDTH - 10, span;
	char buf[32], nb[CPUIDLE_NAME_LEN];
	size_t i, k, row;

	if (to <= from)
		to = from + 1;
	span = (double)(to - from);
	fprintf(f, "<p>The trace's first %s", dur(buf, sizeof(buf), span));
	fprintf(f, " (every unit's first %d stays at most).</p>\n", STATS_REPORT_TIMELINE_STAYS);
	fprintf(f, "<svg class=\"chart timeline\" id=\"timeline\" width=\"%d\" height=\"%zu\" "
		"role=\"img\">\n", PAGE_WIDTH, n * LANE_HEIGHT + 24);
	for (row = 0; row < n; row++) {
		double y = (double)row * LANE_HEIGHT + 2;

		fprintf(f, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">", LABEL_WIDTH - 6,
			y + 14);
		esc(f, u[row].name);
		fprintf(f, "</text><rect x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"18\" "
			"fill=\"%s\"/>\n", LABEL_WIDTH, y, pw, COLOR_BUSY);
		for (i = 0; i < tl->nr; i++) {
			const struct kstats_stay *st = &tl->stays[i];
			int64_t a = st->start_ns, b = st->start_ns + st->ns;

			if (st->cluster != u[row].cluster || st->index != u[row].index ||
			    b <= from || a >= to)
				continue;
			a = a < from ? from : a;
			b = b > to ? to : b;
			fprintf(f, "<rect class=\"stay\" x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" "
				"height=\"18\" fill=\"%s\"><title>", LABEL_WIDTH +
				(double)(a - from) / span * pw, y, (double)(b - a) / span * pw,
				report_state_color(st->state, ks->nr_states));
			esc(f, kstats_state_name(p, info, st->state, nb, sizeof(nb)));
			fprintf(f, " %s</title></rect>\n", dur(buf, sizeof(buf), (double)st->ns));
		}
	}
	for (k = 0; k <= 4; k++)
		fprintf(f, "<text x=\"%.1f\" y=\"%zu\" text-anchor=\"%s\">%s</text>",
			LABEL_WIDTH + (double)k / 4 * pw, n * LANE_HEIGHT + 18,
			k == 0 ? "start" : k == 4 ? "end" : "middle",
			dur(buf, sizeof(buf), span * (double)k / 4));
	fputs("</svg>\n", f);
}

/* what ended each CPU's idle periods: a bar per source, its share of the periods */
static void wakeups(FILE *f, const struct kstats *ks)
{
	char label[64], buf[32];
	unsigned int cpu, i;
	bool judged = kwake_judged(&ks->wake);

	if (!ks->wake.events) {
		fputs("<p>The trace has no interrupt, local timer or IPI events: what ended the "
		      "periods is not known.</p>\n", f);
		return;
	}
	fprintf(f, "<table class=\"wakeups\"><tr><th class=\"l\">cpu</th><th class=\"l\">"
		"source</th><th>periods</th><th class=\"l\">share</th>%s</tr>\n",
		judged ? "<th>early</th><th>late</th>" : "");
	for (cpu = 0; cpu < ks->wake.nr_cpus; cpu++) {
		const struct kwake_cpu *w = &ks->wake.cpu[cpu];
		uint64_t all = 0;

		for (i = 0; i < w->nr; i++)
			all += w->src[i].count;
		for (i = 0; i < w->nr; i++) {
			const struct kwake_source *s = &w->src[i];
			double share = all ? (double)s->count / (double)all : 0;

			stats_wake_label(label, sizeof(label), s);
			fprintf(f, "<tr class=\"wake\"><td class=\"l\">cpu%u</td><td class=\"l\">", cpu);
			esc(f, label);
			fprintf(f, "</td><td>%llu</td><td class=\"l\"><svg width=\"200\" height=\"12\">"
				"<rect width=\"%.1f\" height=\"12\" fill=\"#5b7fa6\"/></svg> %s%%</td>",
				(unsigned long long)s->count, 200 * share,
				num(buf, sizeof(buf), 100 * share, 1));
			if (judged)
				fprintf(f, "<td>%llu</td><td>%llu</td>", (unsigned long long)s->early,
					(unsigned long long)s->late);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

/* stats' table: per unit and state */
static void table(FILE *f, const struct kstats *ks, const struct unit *u, size_t n,
		  const struct cpuidle_platform *p, const struct trace_info *info)
{
	char nb[CPUIDLE_NAME_LEN], b1[32], b2[32], b3[32], b4[32];
	size_t i;
	int s;

	fputs("<table><tr><th class=\"l\">unit</th><th class=\"l\">state</th><th>hits</th>"
	      "<th>total</th><th>min</th><th>avg</th><th>max</th><th>above</th><th>below</th>"
	      "</tr>\n", f);
	for (i = 0; i < n; i++)
		for (s = 0; s < ks->nr_states; s++) {
			const struct kstate_stats *st = unit_state(ks, &u[i], s);
			bool known = !u[i].cluster && kstats_misses_known(ks, p, s);

			fputs("<tr><td class=\"l\">", f);
			esc(f, u[i].name);
			fputs("</td><td class=\"l\">", f);
			esc(f, kstats_state_name(p, info, s, nb, sizeof(nb)));
			fprintf(f, "</td><td>%llu</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
				(unsigned long long)st->hits, dur(b1, sizeof(b1), (double)st->total_ns),
				st->hits ? dur(b2, sizeof(b2), (double)st->min_ns) : "-",
				st->hits ? dur(b3, sizeof(b3), (double)st->total_ns / (double)st->hits) :
				"-", st->hits ? dur(b4, sizeof(b4), (double)st->max_ns) : "-");
			if (known)
				fprintf(f, "<td>%llu</td><td>%llu</td></tr>\n",
					(unsigned long long)st->above, (unsigned long long)st->below);
			else
				fputs("<td>-</td><td>-</td></tr>\n", f);
		}
	fputs("</table>\n", f);
}

static void write_page(FILE *f, const char *trace, const struct kstats *ks,
		       const struct cpuidle_platform *p, const struct trace_info *info,
		       const struct stats_timeline *tl)
{
	struct unit *u = calloc(TRACE_MAX_CLUSTERS + ks->nr_cpus, sizeof(*u));
	size_t n = u ? units_of(ks, u, TRACE_MAX_CLUSTERS + ks->nr_cpus) : 0;
	char buf[32];
	int s;

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>cpuidle stats</title><style>%s</style></head><body>\n"
		"<h1>cpuidle stats: <code>", page_style);
	esc(f, trace);
	fprintf(f, "</code></h1>\n<p>%s of trace; above/below: %s", dur(buf, sizeof(buf),
		(double)(ks->last_ns - ks->first_ns)), kstats_misses_source(ks));
	if (p) {
		fputs("; platform ", f);
		esc(f, p->name);
	}
	fputs(". A cluster's row: the periods during which every CPU of it was idle, in the "
	      "shallowest of their states.</p>\n<h2>Where the time went</h2>\n", f);
	chart_residency(f, ks, u, n, p, info);
	fputs("<h2>Stays per state</h2>\n<p>Every CPU's stays in each state; the dashed "
	      "lines are the platform's target residencies (the state's own in black): a stay "
	      "left of its state's line was too short to pay for it.</p>\n", f);
	for (s = 0; s < ks->nr_states; s++)
		chart_stays(f, ks, s, p, info);
	fputs("<h2>What ended the idle periods</h2>\n<p>Per CPU, the first interrupt, local "
	      "timer or IPI after each entry (as idlestat -w counts them; unknown: none came "
	      "before the next entry); early and late, with a platform: the stay short of its "
	      "state's target residency, or past the next deeper one's.</p>\n", f);
	wakeups(f, ks);
	fputs("<h2>Timeline</h2>\n", f);
	chart_timeline(f, ks, u, n, tl, p, info);
	key(f, ks, p, info, true);
	fputs("<h2>Table</h2>\n", f);
	table(f, ks, u, n, p, info);
	fputs("</body></html>\n", f);
	free(u);
}

int stats_report_write(const char *path, const char *trace, const struct kstats *ks,
		       const struct cpuidle_platform *p, const struct trace_info *info,
		       const struct stats_timeline *tl)
{
	struct cli_out o = { 0 };

	if (cli_out_open("stats", "--report", &o, path))
		return 1;
	write_page(o.f, trace, ks, p, info, tl);
	if (cli_out_flush("stats", &o) || cli_out_commit("stats", &o)) {
		cli_out_abort(&o);
		return 1;
	}
	return 0;
}
