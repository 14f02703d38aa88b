// SPDX-License-Identifier: MIT
/*
 * report_chart.c - the report's charts: the energy/latency scatter, the
 * residency bars, the idle-time histogram, the timeline and the table,
 * each SVG (or HTML) written here, the same bytes for the same runs
 */
#include <inttypes.h>
#include <limits.h>

#include "report_internal.h"
#include "math_lib.h"

/* the built-in governors' colours, then others' by a hash of their names */
static const char *const gov_palette[][2] = {
	{ "ladder", "#e69f00" }, { "menu", "#0072b2" }, { "teo", "#009e73" },
	{ "haltpoll", "#cc79a7" }, { "hazard", "#d55e00" }, { "oracle", "#222222" },
};
static const char *const other_palette[] = { "#56b4e9", "#b8a000", "#7f5fbf", "#8c564b",
					      "#999999" };
/* shallow to deep: viridis, reversed */
static const char *const state_palette[] = { "#fde725", "#b5de2b", "#6ece58", "#35b779",
					     "#1f9e89", "#26828e", "#31688e", "#3e4989",
					     "#482878", "#440154" };

const char *report_gov_color(const char *gov)
{
	size_t i, h = 0;

	for (i = 0; i < sizeof(gov_palette) / sizeof(gov_palette[0]); i++)
		if (!strcmp(gov, gov_palette[i][0]))
			return gov_palette[i][1];
	for (; *gov; gov++)	/* another governor: a colour of its own name */
		h = h * 31 + (unsigned char)*gov;
	return other_palette[h % (sizeof(other_palette) / sizeof(other_palette[0]))];
}

/* State @s of @count, from light (shallow) to dark (deep). */
const char *report_state_color(int s, int count)
{
	int last = (int)(sizeof(state_palette) / sizeof(state_palette[0])) - 1;

	return state_palette[count > 1 ? s * last / (count - 1) : 0];
}

/* ----------------------------------------------------------------- charts */

/* An axis scale: linear, log10, or log10(1 + v) ("symlog", for percentages). */
enum scale_kind { SCALE_LIN, SCALE_LOG, SCALE_SYMLOG };

struct scale {
	enum scale_kind kind;
	double lo, hi;		/* in the transformed domain */
	double p0, p1;		/* pixels */
};

static double scale_t(const struct scale *s, double v)
{
	switch (s->kind) {
	case SCALE_LOG:
		return math_log10(v > 0 ? v : math_exp10(s->lo));
	case SCALE_SYMLOG:
		return math_log10(1 + (v > 0 ? v : 0));
	default:
		return v;
	}
}

static double scale_px(const struct scale *s, double v)
{
	double t = scale_t(s, v);

	if (s->hi == s->lo)
		return s->p0;
	return s->p0 + (t - s->lo) / (s->hi - s->lo) * (s->p1 - s->p0);
}

/* A scale for values in [@min, @max]: log where they spread widely. */
static void scale_fit(struct scale *s, double min, double max, bool symlog, double p0, double p1)
{
	double step;

	s->p0 = p0;
	s->p1 = p1;
	if (!symlog && min > 0 && max / min >= 10) {
		s->kind = SCALE_LOG;
		s->lo = floor(math_log10(min));
		s->hi = ceil(math_log10(max));
		if (s->hi == s->lo)
			s->hi++;
		return;
	}
	if (symlog && min >= 0 && max > 30) {
		s->kind = SCALE_SYMLOG;
		s->lo = 0;
		s->hi = ceil(math_log10(1 + max));
		return;
	}
	s->kind = SCALE_LIN;
	if (min > 0)
		min = 0;
	if (max <= min)
		max = min + 1;
	step = nice_step(max - min, 5);
	s->lo = floor(min / step) * step;
	s->hi = ceil(max * 1.05 / step) * step;
}

/* Tick values of @s, in the data's domain. */
static int scale_ticks(const struct scale *s, double *ticks, int max)
{
	int n = 0;
	double v, step;

	if (s->kind == SCALE_LOG) {
		for (v = s->lo; v <= s->hi + 1e-9 && n < max; v++)
			ticks[n++] = math_exp10(v);
		return n;
	}
	if (s->kind == SCALE_SYMLOG) {
		static const double cand[] = { 0, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000,
					       30000, 100000 };
		size_t i;

		for (i = 0; i < sizeof(cand) / sizeof(cand[0]) && n < max; i++)
			if (math_log10(1 + cand[i]) <= s->hi + 1e-9)
				ticks[n++] = cand[i];
		return n;
	}
	step = nice_step(s->hi - s->lo, 5);
	for (v = s->lo; v <= s->hi + step * 1e-6 && n < max; v += step)
		ticks[n++] = fabs(v) < step * 1e-9 ? 0 : v;
	return n;
}

static void svg_text(FILE *f, double x, double y, const char *anchor, const char *cls,
		     const char *text)
{
	fprintf(f, "<text x=\"%s\" y=\"%s\"", NUM(x, 1), NUM(y, 1));
	if (anchor)
		fprintf(f, " text-anchor=\"%s\"", anchor);
	if (cls)
		fprintf(f, " class=\"%s\"", cls);
	fputc('>', f);
	esc(f, text);
	fputs("</text>", f);
}

static void platform_title(FILE *f, const struct cpuidle_platform *p)
{
	fputs("<h3>platform ", f);
	esc(f, p->name);
	if (p->desc[0]) {
		fputs(" <span class=\"desc\">(", f);
		esc(f, p->desc);
		fputs(")</span>", f);
	}
	fputs("</h3>\n", f);
}

/* (a) energy over the oracle against p99 added latency, a panel per platform */
void report_chart_scatter(FILE *f, const struct report *r, const struct cpuidle_platform *p,
			  unsigned int pi)
{
	const double W = 460, H = 320, ML = 62, MR = 24, MT = 16, MB = 46;
	double xmin = INFINITY, xmax = 0, ymin = 0, ymax = 0, ticks[16], *px, *py, *ly;
	struct scale xs, ys;
	unsigned int pts = 0, i, j, *lead;
	size_t g, *member;
	int nt, t;

	for (g = 0; g < r->ngroups; g++) {
		const struct group *gr = &r->groups[g];
		double x = report_group_p99_us(gr), y = report_group_over(gr);

		if (gr->platform != p || !gr->over_known)
			continue;
		pts++;
		if (x > 0 && x < xmin)
			xmin = x;
		if (x > xmax)
			xmax = x;
		if (y < ymin)
			ymin = y;
		if (y > ymax)
			ymax = y;
	}
	fprintf(f, "<figure class=\"panel\">");
	platform_title(f, p);
	if (!pts) {
		fputs("<p class=\"note\">No energy over the oracle here: the platform does not "
		      "give every state a power, or no oracle run was made.</p></figure>\n", f);
		return;
	}
	px = calloc(pts, sizeof(*px));
	py = calloc(pts, sizeof(*py));
	ly = calloc(pts, sizeof(*ly));
	lead = calloc(pts, sizeof(*lead));
	member = calloc(pts, sizeof(*member));
	if (!px || !py || !ly || !lead || !member) {
		fputs("<p class=\"note\">(out of memory)</p></figure>\n", f);
		goto out;
	}
	if (!isfinite(xmin))
		xmin = 0;
	scale_fit(&xs, xmin, xmax, false, ML, W - MR);
	scale_fit(&ys, ymin, ymax, true, H - MB, MT);
	fprintf(f, "<svg class=\"chart scatter\" id=\"scatter-%u\" viewBox=\"0 0 %g %g\" "
		"role=\"img\" data-platform=\"", pi, W, H);
	esc(f, p->name);
	fprintf(f, "\"><rect class=\"plot\" x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\"/>", ML,
		MT, W - ML - MR, H - MT - MB);
	nt = scale_ticks(&xs, ticks, 16);
	for (t = 0; t < nt; t++) {
		double x = scale_px(&xs, ticks[t]);

		fprintf(f, "<line class=\"grid\" x1=\"%s\" x2=\"%s\" y1=\"%g\" y2=\"%g\"/>",
			NUM(x, 1), NUM(x, 1), MT, H - MB);
		svg_text(f, x, H - MB + 15, "middle", "tick", NUM(ticks[t], 3));
	}
	nt = scale_ticks(&ys, ticks, 16);
	for (t = 0; t < nt; t++) {
		double y = scale_px(&ys, ticks[t]);
		char lab[48];

		snprintf(lab, sizeof(lab), "%s%%", NUM(ticks[t], 3));
		fprintf(f, "<line class=\"grid\" x1=\"%g\" x2=\"%g\" y1=\"%s\" y2=\"%s\"/>", ML,
			W - MR, NUM(y, 1), NUM(y, 1));
		svg_text(f, ML - 6, y + 4, "end", "tick", lab);
	}
	svg_text(f, (ML + W - MR) / 2, H - 8, "middle", "axis",
		 xs.kind == SCALE_LOG ? "p99 added wake-up latency (us, log scale)" :
		 "p99 added wake-up latency (us)");
	fprintf(f, "<text class=\"axis\" transform=\"translate(14,%s) rotate(-90)\" "
		"text-anchor=\"middle\">%s</text>", NUM((MT + H - MB) / 2, 1),
		ys.kind == SCALE_SYMLOG ? "energy over the oracle (%, log(1+x) scale)" :
		"energy over the oracle (%)");
	for (i = 0, g = 0; g < r->ngroups; g++) {
		const struct group *gr = &r->groups[g];

		if (gr->platform != p || !gr->over_known)
			continue;
		px[i] = scale_px(&xs, report_group_p99_us(gr));
		py[i] = scale_px(&ys, report_group_over(gr));
		member[i] = g;
		/* points on top of an earlier one share its label */
		for (lead[i] = i, j = 0; j < i; j++)
			if (lead[j] == j && fabs(px[j] - px[i]) < 4 && fabs(py[j] - py[i]) < 4) {
				lead[i] = j;
				break;
			}
		fprintf(f, "<circle class=\"pt\" cx=\"%s\" cy=\"%s\" r=\"6\" fill=\"%s\" "
			"data-governor=\"", NUM(px[i], 1), NUM(py[i], 1), report_gov_color(gr->governor));
		esc(f, gr->governor);
		fputs("\" data-platform=\"", f);
		esc(f, p->name);
		fputs("\"><title>", f);
		report_group_label(f, gr);
		fprintf(f, " on ");
		esc(f, p->name);
		fprintf(f, ": %s%% energy over the oracle%s, p99 added latency %s us</title>"
			"</circle>", NUM(report_group_over(gr), 3),
			gr->over_traces > 1 ? " (mean over the traces)" : "",
			NUM(report_group_p99_us(gr), 3));
		i++;
	}
	for (i = 0; i < pts; i++) {
		bool left = px[i] > W - 150;

		if (lead[i] != i)
			continue;
		/* moved down past the labels already placed near it */
		ly[i] = py[i] + 4;
		for (j = 0; j < i; j++)
			if (lead[j] == j && fabs(ly[j] - ly[i]) < 11 && fabs(px[j] - px[i]) < 120) {
				ly[i] = ly[j] + 11;
				j = (unsigned int)-1;
			}
		fprintf(f, "<text class=\"ptlabel\" x=\"%s\" y=\"%s\"%s>",
			NUM(px[i] + (left ? -9 : 9), 1), NUM(ly[i], 1),
			left ? " text-anchor=\"end\"" : "");
		for (j = i; j < pts; j++)
			if (lead[j] == i) {
				fputs(j == i ? "" : ", ", f);
				report_group_label(f, &r->groups[member[j]]);
			}
		fputs("</text>", f);
	}
	fputs("</svg></figure>\n", f);
out:
	free(px);
	free(py);
	free(ly);
	free(lead);
	free(member);
}

static void state_legend(FILE *f, const struct cpuidle_platform *p, int count)
{
	int s;

	fputs("<p class=\"legend\">", f);
	for (s = 0; s < count; s++) {
		fprintf(f, "<span><i style=\"background:%s\"></i>", report_state_color(s, count));
		esc(f, p->states[s].name);
		fputs("</span> ", f);
	}
	fputs("</p>\n", f);
}

/* (b) residency per state, a stacked bar per governor */
void report_chart_residency(FILE *f, const struct report *r, const struct cpuidle_platform *p,
			    unsigned int pi)
{
	const double W = 760, ML = 200, MR = 24, MT = 8, RH = 26, BH = 18;
	double pw = W - ML - MR, H;
	unsigned int rows = 0, row = 0;
	int s;
	size_t g;

	for (g = 0; g < r->ngroups; g++)
		rows += r->groups[g].platform == p;
	H = MT + rows * RH + 30;
	fprintf(f, "<figure class=\"panel wide\">");
	platform_title(f, p);
	state_legend(f, p, p->state_count);
	fprintf(f, "<svg class=\"chart residency\" id=\"residency-%u\" viewBox=\"0 0 %g %s\" "
		"role=\"img\" data-platform=\"", pi, W, NUM(H, 1));
	esc(f, p->name);
	fputs("\">", f);
	for (s = 0; s <= 4; s++) {
		double x = ML + pw * s / 4;
		char lab[16];

		snprintf(lab, sizeof(lab), "%d%%", s * 25);
		fprintf(f, "<line class=\"grid\" x1=\"%s\" x2=\"%s\" y1=\"%g\" y2=\"%s\"/>",
			NUM(x, 1), NUM(x, 1), MT, NUM(H - 24, 1));
		svg_text(f, x, H - 10, "middle", "tick", lab);
	}
	for (g = 0; g < r->ngroups; g++) {
		const struct group *gr = &r->groups[g];
		double y = MT + row * RH + (RH - BH) / 2, x = ML;
		uint64_t total = 0;

		if (gr->platform != p)
			continue;
		row++;
		for (s = 0; s < gr->state_count; s++)
			total += gr->time_ns[s];
		fprintf(f, "<text class=\"rowlabel\" x=\"%g\" y=\"%s\" text-anchor=\"end\">",
			ML - 8, NUM(y + BH - 4, 1));
		report_group_label(f, gr);
		fputs("</text>", f);
		for (s = 0; s < gr->state_count && total; s++) {
			double w = pw * (double)gr->time_ns[s] / (double)total;

			if (!gr->time_ns[s])
				continue;
			fprintf(f, "<rect class=\"bar\" x=\"%s\" y=\"%s\" width=\"%s\" "
				"height=\"%g\" fill=\"%s\" data-governor=\"", NUM(x, 2), NUM(y, 1),
				NUM(w, 2), BH, report_state_color(s, p->state_count));
			esc(f, gr->governor);
			fputs("\" data-state=\"", f);
			esc(f, p->states[s].name);
			fputs("\"><title>", f);
			report_group_label(f, gr);
			fputs(": ", f);
			esc(f, p->states[s].name);
			fprintf(f, " %s%% of the idle time, %" PRIu64 " entries</title></rect>",
				NUM(pct(gr->time_ns[s], total), 2), gr->usage[s]);
			if (w >= 34)
				fprintf(f, "<text class=\"inbar%s\" x=\"%s\" y=\"%s\" "
					"text-anchor=\"middle\">%s%%</text>",
					s * 2 >= p->state_count ? " dark" : "", NUM(x + w / 2, 1),
					NUM(y + BH - 5, 1), NUM(pct(gr->time_ns[s], total), 0));
			x += w;
		}
	}
	fputs("</svg></figure>\n", f);
}

static double hist_edge_us(int b)
{
	return math_exp10(HIST_MIN_EXP + (double)b / HIST_PER_DECADE);
}

/* (c) the true idle lengths, with each platform's target residencies */
void report_chart_histogram(FILE *f, const struct report *r)
{
	const struct cpuidle_platform *plats[64];
	unsigned int np = report_platforms_of(r, plats, 64), i;
	const double W = 760, ML = 92, MR = 20, LANE = 30, MB = 44;
	double MT = 10 + np * LANE, H = MT + 240 + MB, ticks[16];
	int lo = HIST_BINS, hi = -1, b, s, nt, t;
	uint64_t top = 0;
	struct scale xs, ys;

	for (b = 0; b < HIST_BINS; b++)
		if (r->hist[b]) {
			lo = b < lo ? b : lo;
			hi = b;
			top = r->hist[b] > top ? r->hist[b] : top;
		}
	if (hi < 0) {
		fputs("<p class=\"note\">No complete idle interval.</p>\n", f);
		return;
	}
	for (i = 0; i < np; i++)	/* the range holds every marker */
		for (s = 0; s < plats[i]->state_count; s++) {
			int64_t tr = plats[i]->states[s].target_residency_ns;

			if (tr > 0) {
				b = report_hist_bin(tr);
				lo = b < lo ? b : lo;
				hi = b > hi ? b : hi;
			}
		}
	lo = lo / HIST_PER_DECADE * HIST_PER_DECADE;
	hi = (hi / HIST_PER_DECADE + 1) * HIST_PER_DECADE;
	xs = (struct scale){ SCALE_LOG, HIST_MIN_EXP + (double)lo / HIST_PER_DECADE,
			     HIST_MIN_EXP + (double)hi / HIST_PER_DECADE, ML, W - MR };
	scale_fit(&ys, 0, (double)top, false, H - MB, MT);	/* from 0: linear */
	fprintf(f, "<svg class=\"chart histogram\" id=\"histogram\" viewBox=\"0 0 %g %s\" "
		"role=\"img\">", W, NUM(H, 1));
	fprintf(f, "<rect class=\"plot\" x=\"%g\" y=\"%s\" width=\"%g\" height=\"%s\"/>", ML,
		NUM(MT, 1), W - ML - MR, NUM(H - MT - MB, 1));
	nt = scale_ticks(&ys, ticks, 16);
	for (t = 0; t < nt; t++) {
		double y = scale_px(&ys, ticks[t]);

		fprintf(f, "<line class=\"grid\" x1=\"%g\" x2=\"%g\" y1=\"%s\" y2=\"%s\"/>", ML,
			W - MR, NUM(y, 1), NUM(y, 1));
		svg_text(f, ML - 6, y + 4, "end", "tick", NUM(ticks[t], 0));
	}
	for (b = lo; b <= hi; b += HIST_PER_DECADE) {
		double x = scale_px(&xs, hist_edge_us(b));

		fprintf(f, "<line class=\"grid\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%g\"/>",
			NUM(x, 1), NUM(x, 1), NUM(MT, 1), H - MB);
		svg_text(f, x, H - MB + 15, "middle", "tick", DUR(hist_edge_us(b) * 1000));
	}
	for (b = lo; b < hi; b++) {
		double x0 = scale_px(&xs, hist_edge_us(b)), x1 = scale_px(&xs, hist_edge_us(b + 1));
		double y = scale_px(&ys, (double)r->hist[b]);

		if (!r->hist[b])
			continue;
		fprintf(f, "<rect class=\"hbar\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\">"
			"<title>%s to ", NUM(x0 + 0.5, 1), NUM(y, 1), NUM(x1 - x0 - 1, 1),
			NUM(H - MB - y, 1), DUR(hist_edge_us(b) * 1000));
		fprintf(f, "%s: %" PRIu64 " intervals (%s%%)</title></rect>",
			DUR(hist_edge_us(b + 1) * 1000), r->hist[b],
			NUM(pct(r->hist[b], r->hist_total), 2));
	}
	/* a lane per platform above the plot: its states at their target residency */
	for (i = 0; i < np; i++) {
		double ly = 10 + i * LANE;
		int k = 0;

		svg_text(f, ML - 6, ly + 15, "end", "lane", plats[i]->name);
		for (s = 0; s < plats[i]->state_count; s++) {
			const struct cpuidle_platform_state *st = &plats[i]->states[s];
			double x;

			if (st->target_residency_ns <= 0)
				continue;
			x = scale_px(&xs, (double)st->target_residency_ns / 1000.0);
			/* a tick in the lane, the dashed line over the plot */
			fprintf(f, "<line class=\"lanetick\" x1=\"%s\" x2=\"%s\" y1=\"%s\" "
				"y2=\"%s\" stroke=\"%s\"/>", NUM(x, 1), NUM(x, 1),
				NUM(ly + (k % 2 ? 14 : 2), 1), NUM(ly + LANE - 2, 1),
				report_state_color(s, plats[i]->state_count));
			fprintf(f, "<line class=\"target\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%g\" "
				"stroke=\"%s\" data-platform=\"", NUM(x, 1), NUM(x, 1), NUM(MT, 1),
				H - MB, report_state_color(s, plats[i]->state_count));
			esc(f, plats[i]->name);
			fputs("\" data-state=\"", f);
			esc(f, st->name);
			fputs("\"><title>", f);
			esc(f, plats[i]->name);
			fputs(" ", f);
			esc(f, st->name);
			fprintf(f, ": target residency %s</title></line>",
				DUR(st->target_residency_ns));
			svg_text(f, x + 3, ly + (k % 2 ? 22 : 10), NULL, "marker", st->name);
			k++;
		}
	}
	svg_text(f, (ML + W - MR) / 2, H - 8, "middle", "axis",
		 "true idle length (log scale, 10 bins a decade)");
	fprintf(f, "<text class=\"axis\" transform=\"translate(16,%s) rotate(-90)\" "
		"text-anchor=\"middle\">intervals</text>", NUM(MT + (H - MT - MB) / 2, 1));
	fputs("</svg>\n", f);
}

/* (d) one CPU's window: the true intervals, then each governor's choices */
#define TL_W		1000.0
#define TL_ML		120.0
#define TL_MR		16.0
#define TL_ROW		28.0
#define TL_UNIT_NS	100		/* the timeline's resolution */

static void timeline_ticks(FILE *f, double span_us, double y)
{
	double step = nice_step(span_us, 8), div = span_us < 2e3 ? 1 : span_us < 2e6 ? 1e3 : 1e6;
	const char *unit = div == 1 ? "us" : div == 1e3 ? "ms" : "s";
	double v, shifted;
	int dec = 0;

	/* the decimals the step needs */
	for (; dec < 6; dec++) {
		shifted = step / div * math_exp10(dec);
		if (fabs(shifted - math_round(shifted)) <= 1e-6)
			break;
	}
	for (v = 0; v <= span_us + step * 1e-6; v += step) {
		double x = TL_ML + v / span_us * (TL_W - TL_ML - TL_MR);
		char lab[64];

		snprintf(lab, sizeof(lab), "%s %s", NUM(v / div, dec), unit);
		fprintf(f, "<line class=\"tick\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%s\"/>",
			NUM(x, 1), NUM(x, 1), NUM(y, 1), NUM(y + 5, 1));
		svg_text(f, x, y + 17, "middle", "tick", lab);
	}
}

/*
 * One rectangle of a timeline row, "KIND,GAP,WIDTH" in TL_UNIT_NS: the gap
 * from the end of the row's previous one, so that a row of thousands stays
 * small; the script draws them.  Ends are rounded, not lengths: no drift.
 */
static void tl_item(FILE *f, const char *kind, int64_t t0, int64_t start_ns, int64_t dur_ns,
		    int64_t *end)
{
	int64_t a = (start_ns - t0 + TL_UNIT_NS / 2) / TL_UNIT_NS;
	int64_t b = (start_ns + dur_ns - t0 + TL_UNIT_NS / 2) / TL_UNIT_NS;

	fprintf(f, "%s,%" PRId64 ",%" PRId64, kind, a - *end, b - a);
	*end = b;
}

void report_chart_timeline(FILE *f, const struct report *r)
{
	const struct cpuidle_platform *p = r->tl_platform;
	const struct cpuidle_platform_state *states;
	unsigned int rows = r->ncaps + 1, i;
	double span_us, H, plot_h = rows * TL_ROW;
	int64_t span_u, end;
	int cl, s, count;
	size_t k;

	if (!r->nivs || !p || !r->ncaps) {
		fprintf(f, "<p class=\"note\">No timeline: CPU %u has no complete idle interval "
			"in %s.</p>\n", r->o.cpu, r->nivs ? "the replay" : "the first trace");
		return;
	}
	cl = cpuidle_platform_cluster_of(p, r->o.cpu);
	states = cl >= 0 ? p->clusters[cl].states : p->states;
	count = cl >= 0 ? p->clusters[cl].state_count : p->state_count;
	span_u = (r->t1 - r->t0 + TL_UNIT_NS / 2) / TL_UNIT_NS;
	if (span_u <= 0)
		span_u = 1;
	span_us = (double)span_u * TL_UNIT_NS / 1e3;
	H = plot_h + 34;

	fputs("<style>", f);
	for (s = 0; s < count; s++)
		fprintf(f, "#tl-plot .s%d{fill:%s}", s, report_state_color(s, count));
	fputs("</style>\n", f);
	state_legend(f, p, count);
	fputs("<p class=\"legend\"><span><i class=\"ivt\"></i>true idle, ended by a timer or "
	      "the tick</span> <span><i class=\"ivo\"></i>ended by anything else (an "
	      "interrupt, an IPI, a task)</span> <span><i class=\"above\"></i>a stay shorter "
	      "than its state's target residency (too deep)</span></p>\n", f);
	fputs("<div class=\"tl-controls\"><button type=\"button\" id=\"tl-in\" "
	      "data-zoom=\"in\" title=\"zoom in\">+</button><button type=\"button\" id=\"tl-out\" "
	      "data-zoom=\"out\" title=\"zoom out\">&#8722;</button><button type=\"button\" "
	      "id=\"tl-left\" data-zoom=\"left\" title=\"earlier\">&#8592;</button><button "
	      "type=\"button\" id=\"tl-right\" data-zoom=\"right\" title=\"later\">&#8594;"
	      "</button><button type=\"button\" id=\"tl-reset\" data-zoom=\"reset\">whole "
	      "window</button> <span id=\"tl-status\" class=\"note\">wheel: zoom, drag: pan"
	      "</span></div>\n", f);
	fprintf(f, "<div class=\"tl-wrap\"><svg class=\"chart timeline\" id=\"tl\" "
		"viewBox=\"0 0 %g %s\" role=\"img\" data-span=\"%" PRId64 "\" "
		"data-unit-ns=\"%d\" data-rows=\"%u\" data-t0=\"%" PRId64 "\" data-states=\"",
		TL_W, NUM(H, 1), span_u, TL_UNIT_NS, rows, r->t0);
	for (s = 0; s < count; s++) {
		fputs(s ? "|" : "", f);
		esc(f, states[s].name);
	}
	fputs("\" data-targets=\"", f);
	for (s = 0; s < count; s++)
		fprintf(f, "%s%s", s ? "|" : "",
			NUM((double)states[s].target_residency_ns / 1e3, 3));
	fputs("\">", f);
	for (i = 0; i < rows; i++) {
		double y = i * TL_ROW;

		fprintf(f, "<text class=\"rowlabel\" x=\"%g\" y=\"%s\" text-anchor=\"end\">",
			TL_ML - 8, NUM(y + TL_ROW / 2 + 4, 1));
		esc(f, i ? r->caps[i - 1]->governor : "true idle");
		fputs("</text>", f);
		if (i)
			fprintf(f, "<line class=\"rowsep\" x1=\"%g\" x2=\"%g\" y1=\"%s\" "
				"y2=\"%s\"/>", TL_ML, TL_W - TL_MR, NUM(y, 1), NUM(y, 1));
	}
	/* x in pixels (the script places what is in view), y in rows */
	fprintf(f, "<svg id=\"tl-plot\" x=\"%g\" y=\"0\" width=\"%g\" height=\"%s\" "
		"viewBox=\"0 0 %g %u\" preserveAspectRatio=\"none\">", TL_ML, TL_W - TL_ML - TL_MR,
		NUM(plot_h, 1), TL_W - TL_ML - TL_MR, rows);
	fprintf(f, "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%g\" height=\"%u\"/>",
		TL_W - TL_ML - TL_MR, rows);
	fputs("<g class=\"row\" data-name=\"true idle\" data-kind=\"iv\" "
	      "transform=\"translate(0,.2)\" data-segs=\"", f);
	for (k = 0, end = 0; k < r->nivs; k++) {
		const struct tl_iv *iv = &r->ivs[k];
		bool timer = iv->wake == IV_WAKE_TIMER || iv->wake == IV_WAKE_TICK;

		fputs(k ? " " : "", f);
		tl_item(f, timer ? "t" : "o", r->t0, iv->start_ns, iv->idle_ns, &end);
	}
	fputs("\"></g>", f);
	for (i = 0; i < r->ncaps; i++) {
		const struct report_capture *c = r->caps[i];

		fprintf(f, "<g class=\"row\" data-name=\"");
		esc(f, c->governor);
		fprintf(f, "\" transform=\"translate(0,%u.15)\" data-segs=\"", i + 1);
		for (k = 0, end = 0; k < c->n; k++) {
			const struct tl_seg *sg = &c->segs[k];
			bool above = sg->state >= 0 && sg->state < count &&
				     sg->dur_ns < states[sg->state].target_residency_ns;
			char kind[16];

			snprintf(kind, sizeof(kind), "%d%s", sg->state, above ? "a" : "");
			fputs(k ? " " : "", f);
			tl_item(f, kind, r->t0, sg->start_ns, sg->dur_ns, &end);
		}
		fputs("\"></g>", f);
	}
	fputs("</svg>", f);
	fprintf(f, "<g id=\"tl-axis\">");
	timeline_ticks(f, span_us, plot_h + 2);
	fputs("</g></svg><div id=\"tl-tip\" class=\"tip\" hidden=\"hidden\"></div></div>\n"
	      "<p class=\"note\" id=\"tl-nojs\">(The timeline is drawn by the page's script: "
	      "JavaScript is off.)</p>\n", f);
	for (i = 0; i < r->ncaps; i++) {
		if (!r->caps[i]->truncated)
			continue;
		fputs("<p class=\"note\">", f);
		esc(f, r->caps[i]->governor);
		fprintf(f, ": only the first %d choices are drawn.</p>\n", MAX_SEGMENTS);
	}
}

/* (e) the numbers */
static void table_head(FILE *f, bool trace, bool settings)
{
	fputs("<tr>", f);
	if (trace)
		fputs("<th>trace</th>", f);
	fputs("<th>platform</th><th>governor</th>", f);
	if (settings)
		fputs("<th>settings</th>", f);
	fputs("<th>intervals</th><th>entries</th><th>energy mJ</th><th>over oracle %</th>"
	      "<th>above %</th><th>below %</th><th>latency mean us</th><th>p99 us</th>"
	      "<th>max us</th><th>QoS violations</th><th>residency per state</th></tr>\n", f);
}

static void table_cells(FILE *f, const struct cpuidle_platform *p, const char *governor,
			const char *settings, bool show_settings, uint64_t intervals,
			uint64_t entries, bool energy_known, double energy, bool over_known,
			double over, uint64_t above, uint64_t below, uint64_t wakes, uint64_t added,
			double p99_us, uint64_t max_ns, uint64_t qos, int state_count,
			const uint64_t *time_ns)
{
	uint64_t total = 0;
	int s;

	fputs("<td>", f);
	esc(f, p->name);
	fprintf(f, "</td><td><i class=\"dot\" style=\"background:%s\"></i>", report_gov_color(governor));
	esc(f, governor);
	fputs("</td>", f);
	if (show_settings) {
		fputs("<td>", f);
		esc(f, settings);
		fputs("</td>", f);
	}
	fprintf(f, "<td>%" PRIu64 "</td><td>%" PRIu64 "</td><td>%s</td>", intervals, entries,
		energy_known ? NUM(energy, 3) : "unknown");
	fprintf(f, "<td>%s</td>", over_known ? NUM(over, 3) : "-");
	fprintf(f, "<td>%s</td>", NUM(pct(above, entries), 2));
	fprintf(f, "<td>%s</td>", NUM(pct(below, entries), 2));
	fprintf(f, "<td>%s</td>", NUM(wakes ? (double)added / (double)wakes / 1e3 : 0, 3));
	fprintf(f, "<td>%s</td><td>%s</td>", NUM(p99_us, 3), NUM((double)max_ns / 1e3, 3));
	fprintf(f, "<td>%" PRIu64 "</td><td>", qos);
	for (s = 0; s < state_count; s++)
		total += time_ns[s];
	for (s = 0; s < state_count; s++) {
		fputs(s ? " " : "", f);
		esc(f, p->states[s].name);
		fprintf(f, "&#160;%s%%%s", NUM(pct(time_ns[s], total), 1),
			s + 1 < state_count ? "," : "");
	}
	fputs("</td>", f);
}

void report_chart_table(FILE *f, const struct report *r)
{
	bool settings = false;
	size_t g, i;

	for (g = 0; g < r->ngroups; g++)
		settings |= r->groups[g].settings[0] != '\0';
	fputs("<table class=\"numbers\" id=\"numbers\">\n", f);
	table_head(f, false, settings);
	for (g = 0; g < r->ngroups; g++) {
		const struct group *gr = &r->groups[g];

		fputs("<tr>", f);
		table_cells(f, gr->platform, gr->governor, gr->settings, settings, gr->intervals,
			    gr->entries, gr->energy_known, gr->energy_mj, gr->over_known,
			    report_group_over(gr), gr->above, gr->below, gr->wakes, gr->added_ns,
			    report_group_p99_us(gr), gr->max_ns, gr->qos, gr->state_count, gr->time_ns);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	if (r->timer_intervals)
		fprintf(f, "<p class=\"note\">Next timer at entry, over the replayed intervals: "
			"%s%% traced, %s%% reconstructed from the local timer interrupts, %s%% "
			"unknown (replayed as none).</p>\n",
			NUM(pct(r->timer_intervals - r->timer_guessed - r->timer_unknown,
				r->timer_intervals), 1),
			NUM(pct(r->timer_guessed, r->timer_intervals), 1),
			NUM(pct(r->timer_unknown, r->timer_intervals), 1));
	if (r->nr_traces > 1)
		fputs("<p class=\"note\">Over several traces: energy and counts summed, energy "
		      "over the oracle the mean of the traces', p99 pooled over every wake-up, "
		      "max the largest.</p>\n", f);
	if (r->nr_traces <= 1 || !r->nrows)
		return;
	fprintf(f, "<details><summary>Every run (%zu%s)</summary>\n<table class=\"numbers\" "
		"id=\"runs\">\n", r->nrows, r->rows_dropped ? ", the first ones" : "");
	table_head(f, true, settings);
	for (i = 0; i < r->nrows; i++) {
		const struct report_run *x = &r->rows[i].run;
		uint64_t time_ns[CPUIDLE_STATE_MAX];
		int s;

		for (s = 0; s < x->state_count && s < CPUIDLE_STATE_MAX; s++)
			time_ns[s] = x->states[s].time_ns;
		fputs("<tr><td>", f);
		esc(f, x->trace);
		fputs("</td>", f);
		table_cells(f, x->platform, x->governor, x->settings, settings, x->intervals,
			    x->entries, x->energy_known, x->energy_mj, x->over_known,
			    x->over_oracle_pct, x->above, x->below, x->wakes, x->added_latency_ns,
			    (double)x->p99_latency_ns / 1e3, x->max_latency_ns, x->qos_violations,
			    x->state_count, time_ns);
		fputs("</tr>\n", f);
	}
	fputs("</table></details>\n", f);
}
