/* SPDX-License-Identifier: MIT */
/*
 * report_internal.h - what the report's three files share: the report as
 * data (report.c: traces, runs grouped, the timeline's captures), its
 * charts (report_chart.c) and the page around them (report_page.c)
 */
#ifndef TOOLS_REPORT_INTERNAL_H
#define TOOLS_REPORT_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "intervals.h"
#include "report.h"
#include "math_lib.h"


#define HIST_PER_DECADE	10
#define HIST_MIN_EXP	(-2)		/* 10 ns, in us */
#define HIST_MAX_EXP	8		/* 100 s */
#define HIST_BINS	((HIST_MAX_EXP - HIST_MIN_EXP) * HIST_PER_DECADE)
#define MAX_GROUPS	1024		/* charted: platform x governor x settings */
#define MAX_ROWS	5000		/* runs listed one by one */
#define MAX_SEGMENTS	2000000		/* timeline choices kept per governor */
#define WINDOW_MARGIN_NS 1000000000LL	/* replayed past the window (sweep) */

struct tl_iv {
	int64_t start_ns, idle_ns;
	uint8_t wake;
};

struct tl_seg {
	int64_t start_ns, dur_ns;
	int state;
};

/* One governor's row of the timeline: its choices, captured. */
struct report_capture {
	struct report *r;
	char *governor;
	int error;
	bool pending;			/* a select() without its reflect() yet */
	int64_t pending_ns;
	int pending_state;
	struct tl_seg *segs;
	size_t n, cap;
	bool truncated;
};

struct group {
	const struct cpuidle_platform *platform;
	char *governor, *settings;
	unsigned int traces, over_traces;
	bool energy_known, over_known;
	double energy_mj, over_sum;
	uint64_t intervals, entries, above, below, wakes, added_ns, max_ns, p99_ns, qos;
	int state_count;
	uint64_t usage[CPUIDLE_STATE_MAX], time_ns[CPUIDLE_STATE_MAX];
	uint64_t state_wakes[CPUIDLE_STATE_MAX];
};

struct row {
	char *trace;
	struct report_run run;
};

struct report {
	struct report_opts o;
	const char *cmd;		/* for messages */
	struct cli_out out;		/* the file (a temporary one until written) */
	FILE *f;
	bool written;
	char *what;

	/* the true idle lengths, every trace */
	uint64_t hist[HIST_BINS];
	uint64_t hist_total;
	char **traces;
	unsigned int nr_traces;
	uint64_t timer_intervals, timer_guessed, timer_unknown;	/* over every run */

	/* the timeline */
	char *tl_trace;
	struct tl_iv *ivs;
	size_t nivs;
	uint64_t cpu_intervals;		/* the CPU's complete intervals */
	int64_t t0, t1;
	const struct cpuidle_platform *tl_platform;
	struct report_capture **caps;
	unsigned int ncaps;

	/* the runs */
	struct group *groups;
	size_t ngroups, capg, dropped_groups;
	size_t *hash;			/* open addressing: group index + 1 */
	size_t hcap;
	struct row *rows;
	size_t nrows, caprows;
	bool rows_dropped;
};

/* the pages of stats, diff and validate: their text and tables alike */
#define REPORT_PAGE_BASE_STYLE \
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}" \
	"h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}" \
	"table{border-collapse:collapse;margin:.5em 0}" \
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right;white-space:nowrap}" \
	"th{background:#f4f4f4}td.l,th.l{text-align:left}"

/* ---------------------------------------------------------------- helpers */

/* @s as HTML text or a quoted attribute value. */
static inline void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			/* control characters are not allowed in XML 1.0 */
			fputc((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n' ? '?' : *s, f);
		}
	}
}

/* @v with at most @prec decimals, trailing zeros dropped: "12.5", "3". */
static inline const char *num(char *buf, size_t len, double v, int prec)
{
	char *p;

	snprintf(buf, len, "%.*f", prec, v);
	if (strchr(buf, '.')) {
		p = buf + strlen(buf) - 1;
		while (*p == '0')
			*p-- = '\0';
		if (*p == '.')
			*p = '\0';
	}
	if (!strcmp(buf, "-0"))
		strcpy(buf, "0");
	return buf;
}

#define NUM(v, prec) num((char[40]){ 0 }, 40, (v), (prec))

/* A duration in ns, for people: "850 ns", "12.5 us", "3.2 ms", "1.25 s". */
static inline const char *dur(char *buf, size_t len, double ns)
{
	char n[40];

	if (ns < 1e3)
		snprintf(buf, len, "%s ns", num(n, sizeof(n), ns, 0));
	else if (ns < 1e6)
		snprintf(buf, len, "%s us", num(n, sizeof(n), ns / 1e3, ns < 1e4 ? 2 : 1));
	else if (ns < 1e9)
		snprintf(buf, len, "%s ms", num(n, sizeof(n), ns / 1e6, ns < 1e7 ? 2 : 1));
	else
		snprintf(buf, len, "%s s", num(n, sizeof(n), ns / 1e9, 3));
	return buf;
}

#define DUR(ns) dur((char[40]){ 0 }, 40, (double)(ns))

static inline double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}



/* A step of 1, 2 or 5 x 10^k giving about @ticks ticks over @range. */
static inline double nice_step(double range, int ticks)
{
	double raw = range / ticks, mag, f;

	if (!(raw > 0))
		return 1;
	mag = math_exp10(floor(math_log10(raw)));
	f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static inline char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

/* ---- report.c: the report as data ---- */

/* the histogram's bin of an idle time */
int report_hist_bin(int64_t ns);
/* the 99th percentile of the added latency: the run's, or pooled per state */
double report_group_p99_us(const struct group *g);
/* the mean energy over the oracle of a group's traces */
double report_group_over(const struct group *g);
/* "menu" or "menu (qos 20)" */
void report_group_label(FILE *f, const struct group *g);
/* the distinct platforms of the groups, in order */
unsigned int report_platforms_of(const struct report *r, const struct cpuidle_platform **out,
				 unsigned int max);

/* ---- report_chart.c: the charts, as SVG ---- */

/* a governor's colour (its own for the built-in ones, else by its name) */
const char *report_gov_color(const char *gov);
/* state @s of @count, from light (shallow) to dark (deep) */
const char *report_state_color(int s, int count);
void report_chart_scatter(FILE *f, const struct report *r, const struct cpuidle_platform *p,
			  unsigned int pi);
void report_chart_residency(FILE *f, const struct report *r, const struct cpuidle_platform *p,
			    unsigned int pi);
void report_chart_histogram(FILE *f, const struct report *r);
void report_chart_timeline(FILE *f, const struct report *r);
void report_chart_table(FILE *f, const struct report *r);

#endif /* TOOLS_REPORT_INTERNAL_H */
