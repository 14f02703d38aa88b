// SPDX-License-Identifier: MIT
/*
 * diff_report.c - cpuidle diff --report (diff.h): the comparison as one
 * self-contained HTML page, in the style of the other reports.
 *
 * The page answers, in order: what changed beyond the noise (the rows with
 * a verdict), by how much and how surely (per unit and figure, a chart of
 * each state's change with its interval, the zero line marked), and every
 * figure (per unit, the whole table).  Nothing fetched, no script, the
 * same bytes for the same comparison.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff.h"
#include "report_internal.h"
#include "math_lib.h"

#define CHART_WIDTH	300	/* px, the plot */
#define CHART_LABELS	90	/* px, the states' names left of it */
#define CHART_ROW	18	/* px per state */
#define CHART_PAD	22	/* px above and below, for the scale */

#define COLOR_HIGHER	"#a94442"
#define COLOR_LOWER	"#31708f"
#define COLOR_NONE	"#888888"

static const char page_style[] =
	REPORT_PAGE_BASE_STYLE
	"tr.higher td{background:#f2dede}tr.lower td{background:#d9edf7}"
	".charts{display:flex;flex-wrap:wrap;gap:12px}"
	"svg text{font:11px system-ui,sans-serif}";

static const char *row_class(const struct diff_row *r)
{
	return r->verdict > 0 ? "higher" : r->verdict < 0 ? "lower" : "";
}

static void table_row(FILE *f, const struct diff_row *r, bool with_unit)
{
	char b[32], a[32], c[32], lo[32], hi[32];

	diff_format(b, sizeof(b), r->figure, r->before, false);
	diff_format(a, sizeof(a), r->figure, r->after, false);
	diff_format(c, sizeof(c), r->figure, r->change, true);
	diff_format(lo, sizeof(lo), r->figure, r->lo, true);
	diff_format(hi, sizeof(hi), r->figure, r->hi, true);
	fprintf(f, "<tr class=\"%s\">", row_class(r));
	if (with_unit) {
		fputs("<td class=\"l\">", f);
		esc(f, r->unit);
		fputs("</td>", f);
	}
	fputs("<td class=\"l\">", f);
	esc(f, r->state);
	fprintf(f, "</td><td class=\"l\">%s</td><td>%s</td><td>%s</td><td>%s</td>",
		diff_figure_label(r->figure), b, a, c);
	if (isnan(r->lo))
		fputs("<td>-</td>", f);
	else
		fprintf(f, "<td>[%s, %s]</td>", lo, hi);
	fprintf(f, "<td class=\"l\">%s</td></tr>\n",
		r->verdict > 0 ? "higher" : r->verdict < 0 ? "lower" : "");
}

static void table_head(FILE *f, bool with_unit)
{
	fprintf(f, "<table><tr>%s<th class=\"l\">state</th><th class=\"l\">figure</th>"
		"<th>before</th><th>after</th><th>change</th><th>95%% interval</th>"
		"<th class=\"l\">verdict</th></tr>\n", with_unit ? "<th class=\"l\">unit</th>" : "");
}

/* same unit */
static bool same_unit(const struct diff_row *a, const struct diff_row *b)
{
	return a->cluster == b->cluster && a->index == b->index;
}

/*
 * One unit's figure @fig: each state's change (a dot) and its interval (a
 * bar), on a scale that holds them all and 0.
 */
static void chart(FILE *f, const struct diff_row *rows, size_t n, enum diff_figure fig)
{
	double lo = 0, hi = 0, scale;
	size_t i, k = 0;
	char buf[32];
	int h;

	for (i = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];

		if (r->figure != fig || isnan(r->change))
			continue;
		k++;
		lo = math_min(lo, isnan(r->lo) ? r->change : math_min(r->lo, r->change));
		hi = math_max(hi, isnan(r->hi) ? r->change : math_max(r->hi, r->change));
	}
	if (!k)
		return;
	if (hi - lo <= 0)
		hi = lo + 1;
	scale = CHART_WIDTH / (hi - lo);
	h = (int)k * CHART_ROW + 2 * CHART_PAD;
	fprintf(f, "<svg width=\"%d\" height=\"%d\" role=\"img\"><title>change of %s</title>"
		"<text x=\"%d\" y=\"12\">change of %s</text>\n", CHART_LABELS + CHART_WIDTH + 10,
		h, diff_figure_label(fig), CHART_LABELS, diff_figure_label(fig));
	fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>\n",
		CHART_LABELS + (0 - lo) * scale, CHART_PAD - 4, CHART_LABELS + (0 - lo) * scale,
		h - CHART_PAD + 4);
	diff_format(buf, sizeof(buf), fig, lo, true);
	fprintf(f, "<text x=\"%d\" y=\"%d\">%s</text>", CHART_LABELS, h - 6, buf);
	diff_format(buf, sizeof(buf), fig, hi, true);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
		CHART_LABELS + CHART_WIDTH, h - 6, buf);
	for (i = 0, k = 0; i < n; i++) {
		const struct diff_row *r = &rows[i];
		const char *color = r->verdict > 0 ? COLOR_HIGHER : r->verdict < 0 ? COLOR_LOWER :
			COLOR_NONE;
		int y = CHART_PAD + (int)k * CHART_ROW + CHART_ROW / 2;

		if (r->figure != fig || isnan(r->change))
			continue;
		k++;
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", CHART_LABELS - 6, y + 4);
		esc(f, r->state);
		fputs("</text>", f);
		if (!isnan(r->lo))
			fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
				"stroke-width=\"3\"/>", CHART_LABELS + (r->lo - lo) * scale, y,
				CHART_LABELS + (r->hi - lo) * scale, y, color);
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%d\" r=\"4\" fill=\"%s\"/>\n",
			CHART_LABELS + (r->change - lo) * scale, y, color);
	}
	fputs("</svg>\n", f);
}

static void recording_line(FILE *f, const char *label, const struct diff_recording *s)
{
	fprintf(f, "<li>%s: <code>", label);
	esc(f, s->path);
	fprintf(f, "</code>, %.3f s, above/below: %s", (double)(s->ks.last_ns - s->ks.first_ns) *
		1e-9, kstats_misses_source(&s->ks));
	if (s->p) {
		fputs(", platform ", f);
		esc(f, s->p->name);
	}
	fputs("</li>\n", f);
}

static void side_line(FILE *f, const struct diff_side *side)
{
	unsigned int r;

	for (r = 0; r < side->nr; r++)
		recording_line(f, side->label, &side->rec[r]);
}

static void write_page(FILE *f, const struct diff_run *run)
{
	size_t i, start, verdicts = 0, intervals = 0;
	int fig;

	for (i = 0; i < run->nr_rows; i++) {
		verdicts += run->rows[i].verdict != 0;
		intervals += !isnan(run->rows[i].lo);
	}
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		"<title>cpuidle diff</title><style>%s</style></head><body>\n"
		"<h1>cpuidle diff</h1>\n<ul>\n", page_style);
	side_line(f, &run->before);
	side_line(f, &run->after);
	fprintf(f, "</ul>\n<p>change = after &minus; before, with its %g%% interval: a bootstrap "
		"of %u resamples of blocks of consecutive idle periods, each recording on its "
		"own (seed %llu). A verdict only where the interval excludes 0: %zu among %zu "
		"intervals, about %.0f of which chance alone would give if nothing had "
		"changed.</p>\n", run->level * 100, run->resamples,
		(unsigned long long)run->seed, verdicts, intervals,
		(double)intervals * (1 - run->level));
	fputs("<h2>Changes beyond the noise</h2>\n", f);
	if (!verdicts) {
		fputs("<p>None.</p>\n", f);
	} else {
		table_head(f, true);
		for (i = 0; i < run->nr_rows; i++)
			if (run->rows[i].verdict)
				table_row(f, &run->rows[i], true);
		fputs("</table>\n", f);
	}
	for (start = 0; start < run->nr_rows; start = i) {
		const struct diff_row *first = &run->rows[start];

		for (i = start; i < run->nr_rows && same_unit(&run->rows[i], first); i++)
			;
		fputs("<h2>", f);
		esc(f, first->unit);
		fprintf(f, "%s</h2>\n<div class=\"charts\">\n",
			first->cluster ? ": every CPU idle" : "");
		for (fig = 0; fig < DIFF_NR_FIGURES; fig++)
			chart(f, first, i - start, fig);
		fputs("</div>\n", f);
		table_head(f, false);
		for (size_t j = start; j < i; j++)
			table_row(f, &run->rows[j], false);
		fputs("</table>\n", f);
	}
	fputs("</body></html>\n", f);
}

int diff_report_write(const struct diff_run *run, const char *path)
{
	struct cli_out o = { 0 };

	if (cli_out_open("diff", "--report", &o, path))
		return 1;
	write_page(o.f, run);
	if (cli_out_flush("diff", &o) || cli_out_commit("diff", &o)) {
		cli_out_abort(&o);
		return 1;
	}
	return 0;
}
