// SPDX-License-Identifier: MIT
/*
 * validate_report.c - cpuidle validate --report (validate_report.h).
 *
 * The page answers, in order: how often is the lab right (a table by
 * figure, its own setting apart from the others'), how far off and in
 * which direction (predicted against measured, a chart per figure, the
 * diagonal exact), and where (each workload's table, a cell per figure
 * coloured by its verdict, the numbers in its tooltip).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_internal.h"
#include "validate_report.h"
#include "math_lib.h"

#define CHART_SIZE	240	/* px, the plot's square */
#define CHART_MARGIN	40	/* px, for the axes' labels */
#define MAX_METRICS	64	/* distinct figures shown */

static const char page_style[] =
	REPORT_PAGE_BASE_STYLE
	"td.ok{background:#dff0d8}td.bad{background:#f2dede}td.nj{background:#f7f7f7}"
	".charts{display:flex;flex-wrap:wrap;gap:12px}"
	"svg text{font:11px system-ui,sans-serif}"
	".key span{display:inline-block;width:10px;height:10px;margin:0 4px 0 12px}";

#define COLOR_OK	"#3c763d"
#define COLOR_BAD	"#a94442"
#define COLOR_NJ	"#888888"

/* the distinct figures, in order of first appearance */
static size_t metrics_of(const struct validate_cell *c, size_t n, const char **out)
{
	size_t m = 0, i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < m && strcmp(out[j], c[i].metric); j++)
			;
		if (j == m && m < MAX_METRICS)
			out[m++] = c[i].metric;
	}
	return m;
}

static bool judged(const struct validate_cell *c)
{
	return !isnan(c->bound);
}

static const char *verdict_class(const struct validate_cell *c)
{
	return !judged(c) ? "nj" : c->within ? "ok" : "bad";
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* one row of the table by figure: self and cross verdicts, the median miss */
static void summary_row(FILE *f, const struct validate_cell *c, size_t n, const char *metric)
{
	unsigned int within[2] = { 0 }, judged_n[2] = { 0 };
	double *err = malloc(n * sizeof(*err));
	size_t i, ne = 0;
	int k;

	for (i = 0; i < n; i++) {
		if (strcmp(c[i].metric, metric))
			continue;
		k = c[i].self ? 0 : 1;
		if (judged(&c[i])) {
			judged_n[k]++;
			within[k] += c[i].within;
		}
		if (!c[i].self && err) {
			double e = fabs(c[i].predicted - c[i].measured);

			err[ne++] = c[i].rate && c[i].measured ? 100.0 * e / fabs(c[i].measured) : e;
		}
	}
	fprintf(f, "<tr><td class=\"l\">");
	esc(f, metric);
	fprintf(f, "</td>");
	for (k = 0; k < 2; k++)
		if (judged_n[k])
			fprintf(f, "<td>%u of %u (%s%%)</td>", within[k], judged_n[k],
				NUM(100.0 * within[k] / judged_n[k], 0));
		else
			fprintf(f, "<td>-</td>");
	if (ne) {
		qsort(err, ne, sizeof(*err), cmp_double);
		fprintf(f, "<td>%s%s</td>", NUM(ne % 2 ? err[ne / 2] :
						(err[ne / 2 - 1] + err[ne / 2]) / 2, 3),
			strstr(metric, "_per_s") || strstr(metric, "_us") ? "%" :
			strstr(metric, "_ks") ? "" : " points");
	} else {
		fprintf(f, "<td>-</td>");
	}
	fprintf(f, "</tr>\n");
	free(err);
}

/* predicted (y) against measured (x) of one figure, on one scale */
static void scatter(FILE *f, const struct validate_cell *c, size_t n, const char *metric)
{
	double top = 0, step, v;
	const int w = CHART_SIZE + CHART_MARGIN + 24, h = CHART_SIZE + CHART_MARGIN + 20;
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(c[i].metric, metric))
			top = math_max(top, math_max(c[i].predicted, c[i].measured));
	if (!(top > 0))
		top = 1;
	step = nice_step(top, 4);
	top = ceil(top / step) * step;
	fprintf(f, "<svg width=\"%d\" height=\"%d\" role=\"img\">\n<text x=\"%d\" y=\"14\">",
		w, h, CHART_MARGIN);
	esc(f, metric);
	fprintf(f, "</text>\n");
#define X(v) (CHART_MARGIN + (v) / top * CHART_SIZE)
#define Y(v) (20 + CHART_SIZE - (v) / top * CHART_SIZE)
	fprintf(f, "<rect x=\"%d\" y=\"20\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#999\"/>\n", CHART_MARGIN, CHART_SIZE, CHART_SIZE);
	fprintf(f, "<line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#bbb\" "
		"stroke-dasharray=\"4 3\"/>\n", NUM(X(0), 1), NUM(Y(0), 1), NUM(X(top), 1),
		NUM(Y(top), 1));
	for (v = 0; v <= top + step / 2; v += step) {
		fprintf(f, "<text x=\"%s\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			NUM(X(v), 1), CHART_SIZE + 34, NUM(v, 3));
		fprintf(f, "<text x=\"%d\" y=\"%s\" text-anchor=\"end\">%s</text>\n",
			CHART_MARGIN - 4, NUM(Y(v) + 4, 1), NUM(v, 3));
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">measured</text>\n",
		CHART_MARGIN + CHART_SIZE / 2, CHART_SIZE + 50);
	for (i = 0; i < n; i++) {
		const struct validate_cell *p = &c[i];
		const char *color = !judged(p) ? COLOR_NJ : p->within ? COLOR_OK : COLOR_BAD;

		if (strcmp(p->metric, metric))
			continue;
		/* self: hollow; cross: filled */
		fprintf(f, "<circle cx=\"%s\" cy=\"%s\" r=\"3.5\" fill=\"%s\" stroke=\"%s\" "
			"fill-opacity=\"0.7\"><title>", NUM(X(p->measured), 1),
			NUM(Y(p->predicted), 1), p->self ? "none" : color, color);
		esc(f, p->workload);
		fputs(": ", f);
		esc(f, p->source_label);
		fputs(" replayed as ", f);
		esc(f, p->self ? "itself" : p->target_setting);
		fprintf(f, ": predicted %s, measured %s", NUM(p->predicted, 3),
			NUM(p->measured, 3));
		if (judged(p))
			fprintf(f, ", bound %s", NUM(p->bound, 3));
		fprintf(f, "</title></circle>\n");
	}
#undef X
#undef Y
	fprintf(f, "</svg>\n");
}

/* a workload's table: a row per prediction, a cell per figure */
static void workload_table(FILE *f, const struct validate_cell *c, size_t n, size_t first)
{
	const char *metric[MAX_METRICS];
	size_t end, i, j, m;

	for (end = first; end < n && !strcmp(c[end].workload, c[first].workload); end++)
		;
	m = metrics_of(c + first, end - first, metric);
	fprintf(f, "<h3>");
	esc(f, c[first].workload);
	fprintf(f, "</h3>\n<table>\n<tr><th class=\"l\">recording</th>"
		"<th class=\"l\">replayed as</th>");
	for (j = 0; j < m; j++) {
		fprintf(f, "<th>");
		esc(f, metric[j]);
		fprintf(f, "</th>");
	}
	fprintf(f, "</tr>\n");
	for (i = first; i < end;) {
		size_t row_end;

		for (row_end = i; row_end < end && !strcmp(c[row_end].source, c[i].source) &&
		     !strcmp(c[row_end].target_setting, c[i].target_setting); row_end++)
			;
		fprintf(f, "<tr><td class=\"l\">");
		esc(f, c[i].source_label);
		fprintf(f, "</td><td class=\"l\">");
		esc(f, c[i].self ? "(itself)" : c[i].target_setting);
		fprintf(f, "</td>");
		for (j = 0; j < m; j++) {
			size_t k;

			for (k = i; k < row_end && strcmp(c[k].metric, metric[j]); k++)
				;
			if (k == row_end) {
				fprintf(f, "<td class=\"nj\">-</td>");
				continue;
			}
			fprintf(f, "<td class=\"%s\" title=\"error %s", verdict_class(&c[k]),
				NUM(c[k].predicted - c[k].measured, 4));
			if (judged(&c[k]))
				fprintf(f, ", bound %s", NUM(c[k].bound, 4));
			if (!isnan(c[k].noise))
				fprintf(f, ", noise %s", NUM(c[k].noise, 4));
			fprintf(f, "\">%s / %s</td>", NUM(c[k].predicted, 2),
				NUM(c[k].measured, 2));
		}
		fprintf(f, "</tr>\n");
		i = row_end;
	}
	fprintf(f, "</table>\n");
}

int validate_report_write(struct cli_out *o, const struct validate_cell *cells, size_t n,
			  int nr_recordings)
{
	const char *metric[MAX_METRICS];
	unsigned long within = 0, nj = 0;
	FILE *f = o->f;
	size_t m, i;

	for (i = 0; i < n; i++)
		if (judged(&cells[i])) {
			nj++;
			within += cells[i].within;
		}
	m = metrics_of(cells, n, metric);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
		"<title>cpuidle validate</title>\n<style>%s</style>\n</head>\n<body>\n"
		"<h1>cpuidle validate: the lab's predictions against the kernel</h1>\n",
		page_style);
	fprintf(f, "<p>%d recordings, each replayed under every setting its workload was "
		"recorded under; %lu of %lu judged figures within their bound (1.5 noise "
		"floors where a setting was recorded twice, else 2 percentage points, or 10%% "
		"of a rate). A figure is <em>self</em> where a recording is replayed under its "
		"own setting, <em>cross</em> under another's.</p>\n", nr_recordings, within, nj);
	fprintf(f, "<h2>By figure</h2>\n<table>\n<tr><th class=\"l\">figure</th><th>self: "
		"within</th><th>cross: within</th><th>cross: median miss</th></tr>\n");
	for (i = 0; i < m; i++)
		summary_row(f, cells, n, metric[i]);
	fprintf(f, "</table>\n<p>The median miss is in percentage points for a share, in "
		"%% of the measured value for a rate, as the distance itself for the "
		"stays' distribution.</p>\n");
	fprintf(f, "<h2>Predicted against measured</h2>\n<p class=\"key\">"
		"<span style=\"background:" COLOR_OK "\"></span>within its bound"
		"<span style=\"background:" COLOR_BAD "\"></span>beyond it"
		"<span style=\"background:" COLOR_NJ "\"></span>not judged; "
		"hollow: a recording under its own setting. On the dashed line the "
		"prediction is exact.</p>\n<div class=\"charts\">\n");
	for (i = 0; i < m; i++)
		if (strcmp(metric[i], "stays_ks"))	/* a distance: measured is 0 */
			scatter(f, cells, n, metric[i]);
	fprintf(f, "</div>\n<h2>Workloads</h2>\n<p>Each cell: predicted / measured; its "
		"tooltip: the error, its bound and the noise floor.</p>\n");
	for (i = 0; i < n;) {
		size_t first = i;

		workload_table(f, cells, n, first);
		while (i < n && !strcmp(cells[i].workload, cells[first].workload))
			i++;
	}
	fprintf(f, "</body>\n</html>\n");
	return ferror(f) ? -1 : 0;
}
