// SPDX-License-Identifier: MIT
/*
 * report.c - the governor comparison as one self-contained HTML file.
 *
 * Every chart is SVG written here, so the file needs nothing but a
 * browser, fetches nothing, and comes out the same, byte for byte, for the
 * same runs (no time stamp, no path of the output): a test can compare
 * two.  The only script zooms and pans the timeline by changing its
 * viewBox, and shows what a segment is under the pointer.  The file is
 * XHTML-clean (every element closed, the script in a CDATA section), so an
 * XML parser can check it.
 *
 * The timeline's choices come from the replay's decision tracer, typed
 * (replay_config.on_decision): the select() and reflect() of one CPU
 * within the window are kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "report.h"

#define HIST_PER_DECADE	10
#define HIST_MIN_EXP	(-2)		/* 10 ns, in us */
#define HIST_MAX_EXP	8		/* 100 s */
#define HIST_BINS	((HIST_MAX_EXP - HIST_MIN_EXP) * HIST_PER_DECADE)
#define MAX_GROUPS	1024		/* charted: platform x governor x settings */
#define MAX_ROWS	5000		/* runs listed one by one */
#define MAX_SEGMENTS	2000000		/* timeline choices kept per governor */
#define WINDOW_MARGIN_NS 1000000000LL	/* replayed past the window (sweep) */

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

/* ---------------------------------------------------------------- helpers */

/* @s as HTML text or a quoted attribute value. */
static void esc(FILE *f, const char *s)
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
static const char *num(char *buf, size_t len, double v, int prec)
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
static const char *dur(char *buf, size_t len, double ns)
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

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static const char *gov_color(const char *gov)
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
static const char *state_color(int s, int count)
{
	int last = (int)(sizeof(state_palette) / sizeof(state_palette[0])) - 1;

	return state_palette[count > 1 ? s * last / (count - 1) : 0];
}

/* A step of 1, 2 or 5 x 10^k giving about @ticks ticks over @range. */
static double nice_step(double range, int ticks)
{
	double raw = range / ticks, mag, f;

	if (!(raw > 0))
		return 1;
	mag = pow(10, floor(log10(raw)));
	f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

/* ------------------------------------------------------------- open, free */

int report_parse_option(const char *cmd, int opt, const char *arg, struct report_opts *opts)
{
	long long v;

	switch (opt) {
	case 'R':
		if (!arg[0] || !strcmp(arg, "-"))
			return cli_error(cmd, "--report wants a file name (FILE.html), not '%s'",
					 arg);
		opts->path = arg;
		return 0;
	case 'U':
		if (cli_parse_ll(arg, 0, 65535, &v))
			return cli_error(cmd, "--report-cpu wants a CPU number, not '%s'", arg);
		opts->cpu = (unsigned int)v;
		return 0;
	case 'I':
		if (cli_parse_ll(arg, 1, REPORT_MAX_INTERVALS, &v))
			return cli_error(cmd, "--report-intervals wants 1..%d, not '%s'",
					 REPORT_MAX_INTERVALS, arg);
		opts->intervals = (unsigned int)v;
		return 0;
	}
	return cli_error(cmd, "unknown report option");
}

int report_open(const char *cmd, const struct report_opts *opts, struct report **out)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return cli_error(cmd, "out of memory");
	r->o = *opts;
	r->cmd = cmd;
	if (!r->o.intervals)
		r->o.intervals = REPORT_DEFAULT_INTERVALS;
	/* a temporary file next to it, renamed over it by report_write() */
	if (cli_out_open(cmd, "--report", &r->out, opts->path)) {
		free(r);
		return 1;
	}
	r->f = r->out.f;
	*out = r;
	return 0;
}

void report_describe(struct report *r, const char *fmt, ...)
{
	va_list ap;

	free(r->what);
	va_start(ap, fmt);
	if (vasprintf(&r->what, fmt, ap) < 0)
		r->what = NULL;
	va_end(ap);
}

static void capture_free(struct report_capture *c)
{
	free(c->segs);
	free(c->governor);
	free(c);
}

void report_free(struct report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->ncaps; i++)
		capture_free(r->caps[i]);
	free(r->caps);
	/* no half-written report left behind; an earlier file as it was */
	cli_out_abort(&r->out);
	r->f = NULL;
	for (i = 0; i < r->ngroups; i++) {
		free(r->groups[i].governor);
		free(r->groups[i].settings);
	}
	for (i = 0; i < r->nrows; i++) {
		free(r->rows[i].trace);
		free((char *)r->rows[i].run.governor);
		free((char *)r->rows[i].run.settings);
	}
	for (i = 0; i < r->nr_traces; i++)
		free(r->traces[i]);
	free(r->traces);
	free(r->groups);
	free(r->hash);
	free(r->rows);
	free(r->ivs);
	free(r->tl_trace);
	free(r->what);
	free(r);
}

/* ----------------------------------------------------------------- traces */

static int hist_bin(int64_t ns)
{
	double e = log10((double)ns / 1000.0);
	int b = (int)floor((e - HIST_MIN_EXP) * HIST_PER_DECADE + 1e-9);

	return b < 0 ? 0 : b >= HIST_BINS ? HIST_BINS - 1 : b;
}

int report_add_trace(struct report *r, const char *label, unsigned int nr_cpus,
		     replay_open_fn open, void *arg)
{
	struct replay_source *src;
	struct idle_interval iv;
	bool first = !r->nr_traces;
	size_t cap = 0;
	char **t;
	int ret;

	if (first && r->o.cpu >= nr_cpus) {
		if (nr_cpus == 1)
			return cli_error(r->cmd, "--report-cpu %u: %s has CPU 0 only", r->o.cpu,
					 label);
		return cli_error(r->cmd, "--report-cpu %u: %s has CPUs 0 to %u", r->o.cpu,
				 label, nr_cpus - 1);
	}
	t = realloc(r->traces, (r->nr_traces + 1) * sizeof(*t));
	if (!t)
		return cli_error(r->cmd, "out of memory");
	r->traces = t;
	t[r->nr_traces] = xstrdup(label);
	if (!t[r->nr_traces])
		return cli_error(r->cmd, "out of memory");
	r->nr_traces++;
	if (first) {
		r->tl_trace = xstrdup(label);
		if (!r->tl_trace)
			return cli_error(r->cmd, "out of memory");
	}
	ret = open(arg, &src);
	if (ret)
		return cli_error(r->cmd, "%s: %s", label, strerror(-ret));
	while ((ret = src->next(src, &iv)) > 0) {
		if (iv.flags & (IV_PARTIAL_START | IV_PARTIAL_END) || iv.idle_ns <= 0)
			continue;
		r->hist[hist_bin(iv.idle_ns)]++;
		r->hist_total++;
		if (!first || iv.cpu != r->o.cpu)
			continue;
		r->cpu_intervals++;
		if (r->nivs == r->o.intervals)
			continue;
		if (r->nivs == cap) {
			size_t ncap = cap ? 2 * cap : 1024;
			struct tl_iv *p = realloc(r->ivs, ncap * sizeof(*p));

			if (!p) {
				ret = -ENOMEM;
				break;
			}
			r->ivs = p;
			cap = ncap;
		}
		r->ivs[r->nivs++] = (struct tl_iv){ iv.start_ns, iv.idle_ns, iv.wake };
	}
	if (ret < 0) {
		const char *msg = src->error ? src->error(src) : NULL;

		ret = cli_error(r->cmd, "%s: %s", label, msg && msg[0] ? msg : strerror(-ret));
		src->close(src);
		return ret;
	}
	src->close(src);
	if (first && r->nivs) {
		r->t0 = r->ivs[0].start_ns;
		r->t1 = r->ivs[r->nivs - 1].start_ns + r->ivs[r->nivs - 1].idle_ns;
	}
	return 0;
}

/* --------------------------------------------------------------- timeline */

/* A select() of the timeline's CPU opens a segment, its reflect() ends it. */
void report_capture_decision(void *capture, int64_t t_ns, const struct cpuidle_device *dev,
			     const struct cpuidle_decision *d)
{
	struct report_capture *c = capture;
	const struct report *r = c->r;
	struct tl_seg *s;
	size_t ncap;

	if (!r->nivs || d->cpu != r->o.cpu)
		return;
	if (!d->reflect) {
		c->pending = t_ns >= r->t0 && t_ns < r->t1;
		if (c->pending) {
			c->pending_ns = t_ns;
			c->pending_state = d->state;
		}
		return;
	}
	if (!c->pending)
		return;
	c->pending = false;
	if (c->n >= MAX_SEGMENTS) {
		c->truncated = true;
		return;
	}
	if (c->n == c->cap) {
		ncap = c->cap ? 2 * c->cap : 4096;
		s = realloc(c->segs, ncap * sizeof(*s));
		if (!s) {
			c->error = -ENOMEM;
			return;
		}
		c->segs = s;
		c->cap = ncap;
	}
	c->segs[c->n++] = (struct tl_seg){ c->pending_ns, (int64_t)d->last_residency_ns,
					   c->pending_state };
}

struct report_capture *report_timeline_capture(struct report *r,
					       const struct cpuidle_platform *platform,
					       const char *governor)
{
	struct report_capture **caps, *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	caps = realloc(r->caps, (r->ncaps + 1) * sizeof(*caps));
	if (!caps) {
		free(c);
		return NULL;
	}
	r->caps = caps;
	c->r = r;
	c->governor = xstrdup(governor);
	if (!c->governor) {
		free(c);
		return NULL;
	}
	if (!r->tl_platform)
		r->tl_platform = platform;
	r->caps[r->ncaps++] = c;
	return c;
}

int report_timeline_end(struct report *r)
{
	unsigned int i;

	for (i = 0; i < r->ncaps; i++)
		if (r->caps[i]->error)
			return r->caps[i]->error;
	return 0;
}

/* A source cut after the window: intervals starting past its end dropped. */
struct window_source {
	struct replay_source src;	/* first */
	struct replay_source *inner;
	int64_t end_ns;
};

struct window_arg {
	replay_open_fn open;
	void *arg;
	int64_t end_ns;
};

static int window_next(struct replay_source *src, struct idle_interval *iv)
{
	struct window_source *w = (struct window_source *)src;
	int ret;

	while ((ret = w->inner->next(w->inner, iv)) > 0)
		if (iv->start_ns <= w->end_ns)
			return 1;
	return ret;
}

static void window_close(struct replay_source *src)
{
	struct window_source *w = (struct window_source *)src;

	w->inner->close(w->inner);
	free(w);
}

static const char *window_error(struct replay_source *src)
{
	struct window_source *w = (struct window_source *)src;

	return w->inner->error ? w->inner->error(w->inner) : NULL;
}

static int window_open(void *arg, struct replay_source **out)
{
	const struct window_arg *a = arg;
	struct window_source *w = calloc(1, sizeof(*w));
	int ret;

	if (!w)
		return -ENOMEM;
	ret = a->open(a->arg, &w->inner);
	if (ret) {
		free(w);
		return ret;
	}
	w->src.next = window_next;
	w->src.close = window_close;
	w->src.error = window_error;
	w->end_ns = a->end_ns;
	*out = &w->src;
	return 0;
}

int report_timeline_replay(struct report *r, const char *cmd, struct replay_config *cfgs,
			   unsigned int n)
{
	struct replay_result *res;
	struct window_arg *args;
	struct batch_error fail = { 0 };
	unsigned int i;
	int ret = 0, end;

	if (!r->nivs || !n)
		return 0;
	res = calloc(n, sizeof(*res));
	args = calloc(n, sizeof(*args));
	if (!res || !args) {
		free(res);
		free(args);
		return cli_error(cmd, "out of memory");
	}
	for (i = 0; i < n && !ret; i++) {
		args[i] = (struct window_arg){ cfgs[i].open, cfgs[i].open_arg,
					       r->t1 + WINDOW_MARGIN_NS };
		cfgs[i].open = window_open;
		cfgs[i].open_arg = &args[i];
		cfgs[i].on_decision = report_capture_decision;
		cfgs[i].decision_ctx = report_timeline_capture(r, cfgs[i].platform,
							       cfgs[i].governor);
		if (!cfgs[i].decision_ctx)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = batch_run_configs(cfgs, res, n, 0, &fail);
	end = report_timeline_end(r);
	if (ret) {
		ret = cli_error(cmd, "the report's timeline: %s", fail.msg[0] ? fail.msg :
				strerror(-ret));
	} else if (end) {
		ret = cli_error(cmd, "the report's timeline: %s", strerror(-end));
	}
	free(res);
	free(args);
	return ret;
}

/* ------------------------------------------------------------------- runs */

static size_t hash_key(const struct cpuidle_platform *p, const char *gov, const char *set)
{
	size_t h = (size_t)(uintptr_t)p * 2654435761u;

	for (; *gov; gov++)
		h = h * 31 + (unsigned char)*gov;
	h = h * 131 + 7;
	for (; *set; set++)
		h = h * 31 + (unsigned char)*set;
	return h;
}

/* The group of @run, or NULL; *@slot: its hash slot, or the free one. */
static struct group *lookup_group(const struct report *r, const struct report_run *run,
				  size_t *slot)
{
	const char *set = run->settings ? run->settings : "";
	struct group *g;
	size_t h;

	if (!r->hcap)
		return NULL;
	h = hash_key(run->platform, run->governor, set) & (r->hcap - 1);
	for (; r->hash[h]; h = (h + 1) & (r->hcap - 1)) {
		g = &r->groups[r->hash[h] - 1];
		if (g->platform == run->platform && !strcmp(g->governor, run->governor) &&
		    !strcmp(g->settings, set))
			return g;
	}
	*slot = h;
	return NULL;
}

/* The group of @run, added if new; NULL without memory. */
static struct group *find_group(struct report *r, const struct report_run *run)
{
	struct group *g;
	size_t h = 0, i;

	if (2 * (r->ngroups + 1) > r->hcap) {	/* grow the table, rehash */
		size_t ncap = r->hcap ? 2 * r->hcap : 64, *nh = calloc(ncap, sizeof(*nh));

		if (!nh)
			return NULL;
		for (i = 0; i < r->ngroups; i++) {
			const struct group *old = &r->groups[i];

			h = hash_key(old->platform, old->governor, old->settings) & (ncap - 1);
			while (nh[h])
				h = (h + 1) & (ncap - 1);
			nh[h] = i + 1;
		}
		free(r->hash);
		r->hash = nh;
		r->hcap = ncap;
	}
	g = lookup_group(r, run, &h);
	if (g)
		return g;
	if (r->ngroups == r->capg) {
		size_t ncap = r->capg ? 2 * r->capg : 32;

		g = realloc(r->groups, ncap * sizeof(*g));
		if (!g)
			return NULL;
		r->groups = g;
		r->capg = ncap;
	}
	g = &r->groups[r->ngroups];
	memset(g, 0, sizeof(*g));
	g->platform = run->platform;
	g->governor = xstrdup(run->governor);
	g->settings = xstrdup(run->settings);
	if (!g->governor || !g->settings) {
		free(g->governor);
		free(g->settings);
		return NULL;
	}
	g->energy_known = true;
	r->hash[h] = ++r->ngroups;
	return g;
}

int report_add_run(struct report *r, const struct report_run *run)
{
	struct group *g;
	struct row *w;
	int s;

	/* charts of a thousand bars say nothing */
	if (r->ngroups >= MAX_GROUPS && !lookup_group(r, run, &(size_t){ 0 })) {
		r->dropped_groups++;
		return 0;
	}
	g = find_group(r, run);
	if (!g)
		return -ENOMEM;
	g->traces++;
	g->energy_known &= run->energy_known;
	g->energy_mj += run->energy_mj;
	if (run->over_known) {
		g->over_known = true;
		g->over_traces++;
		g->over_sum += run->over_oracle_pct;
	}
	g->intervals += run->intervals;
	g->entries += run->entries;
	g->above += run->above;
	g->below += run->below;
	g->wakes += run->wakes;
	g->added_ns += run->added_latency_ns;
	if (run->max_latency_ns > g->max_ns)
		g->max_ns = run->max_latency_ns;
	g->p99_ns = run->p99_latency_ns;	/* one trace: the run's own */
	g->qos += run->qos_violations;
	if (run->state_count > g->state_count)
		g->state_count = run->state_count;
	for (s = 0; s < run->state_count && s < CPUIDLE_STATE_MAX; s++) {
		g->usage[s] += run->states[s].usage;
		g->time_ns[s] += run->states[s].time_ns;
		g->state_wakes[s] += run->states[s].wakes;
	}

	if (r->nrows == MAX_ROWS) {
		r->rows_dropped = true;
		return 0;
	}
	if (r->nrows == r->caprows) {
		size_t ncap = r->caprows ? 2 * r->caprows : 64;
		struct row *rows = realloc(r->rows, ncap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		r->rows = rows;
		r->caprows = ncap;
	}
	w = &r->rows[r->nrows];
	w->run = *run;
	w->trace = xstrdup(run->trace);
	w->run.governor = xstrdup(run->governor);
	w->run.settings = xstrdup(run->settings);
	if (!w->trace || !w->run.governor || !w->run.settings) {
		free(w->trace);
		free((char *)w->run.governor);
		free((char *)w->run.settings);
		return -ENOMEM;
	}
	w->run.trace = w->trace;
	r->nrows++;
	return 0;
}

/* The 99th percentile of the added latency: the run's, or pooled per state. */
static double group_p99_us(const struct group *g)
{
	int order[CPUIDLE_STATE_MAX], i, j, n = g->state_count;
	uint64_t seen = 0;

	if (g->traces == 1 || !g->wakes)
		return (double)g->p99_ns / 1000.0;
	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = 1; i < n; i++)		/* by exit latency */
		for (j = i; j > 0 && g->platform->states[order[j]].exit_latency_ns <
				     g->platform->states[order[j - 1]].exit_latency_ns; j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < n; i++) {
		seen += g->state_wakes[order[i]];
		if (seen * 100 >= g->wakes * 99)
			return (double)g->platform->states[order[i]].exit_latency_ns / 1000.0;
	}
	return 0;
}

static double group_over(const struct group *g)
{
	return g->over_traces ? g->over_sum / g->over_traces : 0.0;
}

/* "menu" or "menu (qos 20)" */
static void group_label(FILE *f, const struct group *g)
{
	esc(f, g->governor);
	if (g->settings[0]) {
		fputs(" (", f);
		esc(f, g->settings);
		fputc(')', f);
	}
}

/* The distinct platforms of the groups, in order. */
static unsigned int platforms_of(const struct report *r, const struct cpuidle_platform **out,
				 unsigned int max)
{
	unsigned int n = 0, i;
	size_t g;

	for (g = 0; g < r->ngroups; g++) {
		for (i = 0; i < n && out[i] != r->groups[g].platform; i++)
			;
		if (i == n && n < max)
			out[n++] = r->groups[g].platform;
	}
	return n;
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
		return log10(v > 0 ? v : pow(10, s->lo));
	case SCALE_SYMLOG:
		return log10(1 + (v > 0 ? v : 0));
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
		s->lo = floor(log10(min));
		s->hi = ceil(log10(max));
		if (s->hi == s->lo)
			s->hi++;
		return;
	}
	if (symlog && min >= 0 && max > 30) {
		s->kind = SCALE_SYMLOG;
		s->lo = 0;
		s->hi = ceil(log10(1 + max));
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
			ticks[n++] = pow(10, v);
		return n;
	}
	if (s->kind == SCALE_SYMLOG) {
		static const double cand[] = { 0, 1, 3, 10, 30, 100, 300, 1000, 3000, 10000,
					       30000, 100000 };
		size_t i;

		for (i = 0; i < sizeof(cand) / sizeof(cand[0]) && n < max; i++)
			if (log10(1 + cand[i]) <= s->hi + 1e-9)
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
static void chart_scatter(FILE *f, const struct report *r, const struct cpuidle_platform *p,
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
		double x = group_p99_us(gr), y = group_over(gr);

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
		px[i] = scale_px(&xs, group_p99_us(gr));
		py[i] = scale_px(&ys, group_over(gr));
		member[i] = g;
		/* points on top of an earlier one share its label */
		for (lead[i] = i, j = 0; j < i; j++)
			if (lead[j] == j && fabs(px[j] - px[i]) < 4 && fabs(py[j] - py[i]) < 4) {
				lead[i] = j;
				break;
			}
		fprintf(f, "<circle class=\"pt\" cx=\"%s\" cy=\"%s\" r=\"6\" fill=\"%s\" "
			"data-governor=\"", NUM(px[i], 1), NUM(py[i], 1), gov_color(gr->governor));
		esc(f, gr->governor);
		fputs("\" data-platform=\"", f);
		esc(f, p->name);
		fputs("\"><title>", f);
		group_label(f, gr);
		fprintf(f, " on ");
		esc(f, p->name);
		fprintf(f, ": %s%% energy over the oracle%s, p99 added latency %s us</title>"
			"</circle>", NUM(group_over(gr), 3),
			gr->over_traces > 1 ? " (mean over the traces)" : "",
			NUM(group_p99_us(gr), 3));
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
				group_label(f, &r->groups[member[j]]);
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
		fprintf(f, "<span><i style=\"background:%s\"></i>", state_color(s, count));
		esc(f, p->states[s].name);
		fputs("</span> ", f);
	}
	fputs("</p>\n", f);
}

/* (b) residency per state, a stacked bar per governor */
static void chart_residency(FILE *f, const struct report *r, const struct cpuidle_platform *p,
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
		group_label(f, gr);
		fputs("</text>", f);
		for (s = 0; s < gr->state_count && total; s++) {
			double w = pw * (double)gr->time_ns[s] / (double)total;

			if (!gr->time_ns[s])
				continue;
			fprintf(f, "<rect class=\"bar\" x=\"%s\" y=\"%s\" width=\"%s\" "
				"height=\"%g\" fill=\"%s\" data-governor=\"", NUM(x, 2), NUM(y, 1),
				NUM(w, 2), BH, state_color(s, p->state_count));
			esc(f, gr->governor);
			fputs("\" data-state=\"", f);
			esc(f, p->states[s].name);
			fputs("\"><title>", f);
			group_label(f, gr);
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
	return pow(10, HIST_MIN_EXP + (double)b / HIST_PER_DECADE);
}

/* (c) the true idle lengths, with each platform's target residencies */
static void chart_histogram(FILE *f, const struct report *r)
{
	const struct cpuidle_platform *plats[64];
	unsigned int np = platforms_of(r, plats, 64), i;
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
				b = hist_bin(tr);
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
				state_color(s, plats[i]->state_count));
			fprintf(f, "<line class=\"target\" x1=\"%s\" x2=\"%s\" y1=\"%s\" y2=\"%g\" "
				"stroke=\"%s\" data-platform=\"", NUM(x, 1), NUM(x, 1), NUM(MT, 1),
				H - MB, state_color(s, plats[i]->state_count));
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
	double v;
	int dec = 0;

	while (dec < 6 && fabs(step / div * pow(10, dec) - round(step / div * pow(10, dec))) > 1e-6)
		dec++;
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

static void chart_timeline(FILE *f, const struct report *r)
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
		fprintf(f, "#tl-plot .s%d{fill:%s}", s, state_color(s, count));
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
	fprintf(f, "</td><td><i class=\"dot\" style=\"background:%s\"></i>", gov_color(governor));
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

static void chart_table(FILE *f, const struct report *r)
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
			    group_over(gr), gr->above, gr->below, gr->wakes, gr->added_ns,
			    group_p99_us(gr), gr->max_ns, gr->qos, gr->state_count, gr->time_ns);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
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

/* ------------------------------------------------------------------- page */

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",sans-serif;color:#222;"
	"margin:0 auto;max-width:1060px;padding:0 16px 40px}"
	"h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 6px;"
	"border-bottom:1px solid #ddd}h3{font-size:14px;margin:6px 0}"
	".desc,.note{color:#666}.what{margin:0 0 8px}nav a{margin-right:12px}"
	".panels{display:flex;flex-wrap:wrap;gap:8px 20px}figure{margin:0}"
	".panel{flex:0 1 460px}.panel.wide{flex:1 1 100%}svg.chart{width:100%;height:auto;"
	"display:block}.scatter{max-width:460px}.residency,.histogram{max-width:760px}"
	".plot{fill:#fafafa;stroke:#ccc}.grid{stroke:#e4e4e4}.tick,.lane,.marker{font-size:10px;"
	"fill:#555}.lane{font-weight:600}.axis{font-size:11px;fill:#333}"
	".pt{stroke:#fff;stroke-width:1.5}.ptlabel{font-size:11px}.rowlabel{font-size:11px}"
	".inbar{font-size:10px;fill:#222}.inbar.dark{fill:#fff}"
	".hbar{fill:#7b8fa6}.target{stroke-width:1.5;stroke-dasharray:4 3}.lanetick{stroke-width:2}"
	".legend{margin:2px 0 6px;font-size:12px}.legend span{margin-right:10px;"
	"white-space:nowrap}.legend i,i.dot{display:inline-block;width:11px;height:11px;"
	"margin-right:4px;vertical-align:-1px;border:1px solid #0003}"
	"i.ivt{background:#b4b4b4}i.ivo{background:#555}i.above{border:2px solid #e00000}"
	".tl-wrap{position:relative}.tl-controls{margin:4px 0}.tl-controls button{"
	"min-width:30px;margin-right:4px}#tl-plot{cursor:grab}#tl-plot .bg{fill:#fff}"
	".iv.t{fill:#b4b4b4}.iv.o{fill:#555}.seg.a{stroke:#e00000;stroke-width:1.5px;"
	"vector-effect:non-scaling-stroke}.rowsep{stroke:#eee}line.tick{stroke:#888}"
	".tip{position:absolute;background:#fff;border:1px solid #aaa;padding:3px 6px;"
	"font-size:12px;pointer-events:none;white-space:nowrap;box-shadow:0 1px 3px #0002}"
	"table.numbers{border-collapse:collapse;font-size:12px;margin:6px 0}"
	".numbers th,.numbers td{border:1px solid #ddd;padding:2px 6px;text-align:right}"
	".numbers th{background:#f3f3f3}.numbers td{white-space:nowrap}"
	".numbers td:nth-child(-n+3){text-align:left}"
	".numbers td:last-child{white-space:normal;text-align:left}"
	"details{margin:8px 0}";

/*
 * The timeline: the script draws each row from its data-segs, and zooms
 * and pans by placing, in pixels, the rectangles in view (#tl's data-view:
 * its start and width in units of data-unit-ns; data-in-view: the choices
 * in it), redrawing the axis on every change.
 */
static const char script[] =
	"(function () {\n"
	"  'use strict';\n"
	"  var outer = document.getElementById('tl');\n"
	"  var plot = document.getElementById('tl-plot');\n"
	"  if (!outer || !plot) return;\n"
	"  var NS = 'http://www.w3.org/2000/svg';\n"
	"  var span = parseFloat(outer.getAttribute('data-span'));\n"
	"  var U = parseFloat(outer.getAttribute('data-unit-ns')) / 1000;\n"
	"  var rows = parseInt(outer.getAttribute('data-rows'), 10);\n"
	"  var names = outer.getAttribute('data-states').split('|');\n"
	"  var targets = outer.getAttribute('data-targets').split('|').map(parseFloat);\n"
	"  var axis = document.getElementById('tl-axis');\n"
	"  var status = document.getElementById('tl-status');\n"
	"  var tip = document.getElementById('tl-tip');\n"
	"  var L = 120, W = 1000 - 120 - 16, Y = rows * 28 + 2;\n"
	"  // Each row's rectangles from its data-segs (\"KIND,GAP,WIDTH\" in units of\n"
	"  // data-unit-ns); their times are kept here, in double precision, and\n"
	"  // only those in view are drawn, in pixels (browsers lose precision, and\n"
	"  // clamp, far out in a zoomed coordinate space).\n"
	"  var items = [];\n"
	"  Array.prototype.forEach.call(plot.querySelectorAll('g.row'), function (g) {\n"
	"    var data = g.getAttribute('data-segs'), iv = g.getAttribute('data-kind') === 'iv';\n"
	"    var end = 0, frag = document.createDocumentFragment();\n"
	"    if (!data) return;\n"
	"    data.split(' ').forEach(function (item) {\n"
	"      var p = item.split(','), x = end + parseInt(p[1], 10), w = parseInt(p[2], 10);\n"
	"      var r = document.createElementNS(NS, 'rect');\n"
	"      end = x + w;\n"
	"      r.setAttribute('class', iv ? 'iv ' + p[0] :\n"
	"        'seg s' + parseInt(p[0], 10) + (p[0].slice(-1) === 'a' ? ' a' : ''));\n"
	"      r.setAttribute('height', iv ? 0.6 : 0.7);\n"
	"      r.style.display = 'none';\n"
	"      r.tlItem = { r: r, x: x, w: w, seg: !iv, shown: false };\n"
	"      items.push(r.tlItem);\n"
	"      frag.appendChild(r);\n"
	"    });\n"
	"    g.appendChild(frag);\n"
	"  });\n"
	"  document.getElementById('tl-nojs').hidden = true;\n"
	"  var minW = Math.min(span, 1 / U);\n"
	"  var view = { x: 0, w: span };\n"
	"  function fmt(u) {\n"
	"    var us = u * U;\n"
	"    if (us >= 1e6) return +(us / 1e6).toFixed(4) + ' s';\n"
	"    if (us >= 1e3) return +(us / 1e3).toFixed(3) + ' ms';\n"
	"    return +us.toFixed(1) + ' us';\n"
	"  }\n"
	"  function niceStep(range) {\n"
	"    var raw = range / 8, mag = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / mag;\n"
	"    return (f > 5 ? 10 : f > 2 ? 5 : f > 1 ? 2 : 1) * mag;\n"
	"  }\n"
	"  function drawAxis() {\n"
	"    while (axis.firstChild) axis.removeChild(axis.firstChild);\n"
	"    var wus = view.w * U, step = niceStep(wus);\n"
	"    var div = wus >= 2e6 ? 1e6 : wus >= 2e3 ? 1e3 : 1;\n"
	"    var unit = div === 1 ? ' us' : div === 1e3 ? ' ms' : ' s';\n"
	"    var dec = Math.max(0, -Math.floor(Math.log10(step / div) + 1e-9));\n"
	"    var x0 = view.x * U;\n"
	"    for (var t = Math.ceil(x0 / step) * step; t <= x0 + wus + step * 1e-6; t += step) {\n"
	"      var x = L + (t - x0) / wus * W;\n"
	"      var line = document.createElementNS(NS, 'line');\n"
	"      line.setAttribute('class', 'tick');\n"
	"      line.setAttribute('x1', x);\n"
	"      line.setAttribute('x2', x);\n"
	"      line.setAttribute('y1', Y);\n"
	"      line.setAttribute('y2', Y + 5);\n"
	"      var text = document.createElementNS(NS, 'text');\n"
	"      text.setAttribute('class', 'tick');\n"
	"      text.setAttribute('x', x);\n"
	"      text.setAttribute('y', Y + 17);\n"
	"      text.setAttribute('text-anchor', 'middle');\n"
	"      text.textContent = (t / div).toFixed(dec) + unit;\n"
	"      axis.appendChild(line);\n"
	"      axis.appendChild(text);\n"
	"    }\n"
	"  }\n"
	"  function apply() {\n"
	"    view.w = Math.min(Math.max(view.w, minW), span);\n"
	"    view.x = Math.min(Math.max(view.x, 0), span - view.w);\n"
	"    var end = view.x + view.w, n = 0, k = W / view.w;\n"
	"    items.forEach(function (it) {\n"
	"      var show = it.x < end && it.x + it.w > view.x;\n"
	"      if (show) {\n"
	"        var a = Math.max((it.x - view.x) * k, -2);\n"
	"        var b = Math.min((it.x + it.w - view.x) * k, W + 2);\n"
	"        it.r.setAttribute('x', a);\n"
	"        it.r.setAttribute('width', Math.max(b - a, 0));\n"
	"        if (it.seg) n++;\n"
	"      }\n"
	"      if (show !== it.shown) {\n"
	"        it.r.style.display = show ? '' : 'none';\n"
	"        it.shown = show;\n"
	"      }\n"
	"    });\n"
	"    outer.setAttribute('data-view', view.x + ' ' + view.w);\n"
	"    outer.setAttribute('data-in-view', n);\n"
	"    status.textContent = fmt(view.x) + ' to ' + fmt(end) + ' of ' + fmt(span) +\n"
	"      ': ' + n + ' choices in view (wheel: zoom, drag: pan)';\n"
	"    drawAxis();\n"
	"  }\n"
	"  function zoom(f, at) {\n"
	"    var w = Math.min(Math.max(view.w * f, minW), span);\n"
	"    view.x = at - (at - view.x) * w / view.w;\n"
	"    view.w = w;\n"
	"    apply();\n"
	"  }\n"
	"  function timeAt(clientX) {\n"
	"    var b = plot.getBoundingClientRect();\n"
	"    return view.x + (clientX - b.left) / b.width * view.w;\n"
	"  }\n"
	"  plot.addEventListener('wheel', function (e) {\n"
	"    e.preventDefault();\n"
	"    zoom(e.deltaY > 0 ? 1.25 : 0.8, timeAt(e.clientX));\n"
	"  }, { passive: false });\n"
	"  var drag = null;\n"
	"  plot.addEventListener('pointerdown', function (e) {\n"
	"    drag = { x: e.clientX, vx: view.x };\n"
	"    plot.setPointerCapture(e.pointerId);\n"
	"  });\n"
	"  plot.addEventListener('pointermove', function (e) {\n"
	"    if (drag) {\n"
	"      var b = plot.getBoundingClientRect();\n"
	"      view.x = drag.vx - (e.clientX - drag.x) / b.width * view.w;\n"
	"      apply();\n"
	"      return;\n"
	"    }\n"
	"    var r = e.target;\n"
	"    if (!r.tlItem) {\n"
	"      tip.hidden = true;\n"
	"      return;\n"
	"    }\n"
	"    var x = r.tlItem.x, w = r.tlItem.w;\n"
	"    var text = r.parentNode.getAttribute('data-name') + ': ';\n"
	"    if (r.classList.contains('seg')) {\n"
	"      var s = parseInt(/s(\\d+)/.exec(r.getAttribute('class'))[1], 10);\n"
	"      text += names[s] + ' for ' + fmt(w);\n"
	"      if (r.classList.contains('a'))\n"
	"        text += ' (too deep: target residency ' + fmt(targets[s] / U) + ')';\n"
	"    } else {\n"
	"      text += 'idle ' + fmt(w) + (r.classList.contains('t') ? ', ended by a timer' :\n"
	"        ', ended by an interrupt, an IPI or a task');\n"
	"    }\n"
	"    tip.textContent = text + ', at ' + fmt(x);\n"
	"    var box = outer.parentNode.getBoundingClientRect();\n"
	"    tip.style.left = (e.clientX - box.left + 12) + 'px';\n"
	"    tip.style.top = (e.clientY - box.top + 12) + 'px';\n"
	"    tip.hidden = false;\n"
	"  });\n"
	"  function release() { drag = null; }\n"
	"  plot.addEventListener('pointerup', release);\n"
	"  plot.addEventListener('pointercancel', release);\n"
	"  plot.addEventListener('pointerleave', function () { tip.hidden = true; });\n"
	"  Array.prototype.forEach.call(document.querySelectorAll('[data-zoom]'), function (b) {\n"
	"    b.addEventListener('click', function () {\n"
	"      var z = b.getAttribute('data-zoom'), mid = view.x + view.w / 2;\n"
	"      if (z === 'in') zoom(0.5, mid);\n"
	"      else if (z === 'out') zoom(2, mid);\n"
	"      else if (z === 'left') { view.x -= view.w / 2; apply(); }\n"
	"      else if (z === 'right') { view.x += view.w / 2; apply(); }\n"
	"      else { view.x = 0; view.w = span; apply(); }\n"
	"    });\n"
	"  });\n"
	"  apply();\n"
	"})();\n";

int report_write(struct report *r, const char *cmd)
{
	const struct cpuidle_platform *plats[64];
	unsigned int np = platforms_of(r, plats, 64), i;
	FILE *f = r->f;
	int ret;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n"
	      "<head>\n<meta charset=\"utf-8\"/>\n<meta name=\"viewport\" "
	      "content=\"width=device-width, initial-scale=1\"/>\n<meta name=\"generator\" "
	      "content=\"" CLI_NAME " " CPUIDLE_VERSION "\"/>\n<title>cpuidle: governor "
	      "comparison", f);
	if (r->nr_traces == 1) {
		fputs(", ", f);
		esc(f, r->traces[0]);
	}
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
	fputs("<h1>Governor comparison</h1>\n<p class=\"what\">", f);
	esc(f, r->what ? r->what : "");
	fputs("</p>\n<nav><a href=\"#tradeoff\">energy and latency</a><a href=\"#residency\">"
	      "residency</a><a href=\"#idle-lengths\">idle lengths</a><a href=\"#timeline\">"
	      "timeline</a><a href=\"#numbers-section\">numbers</a></nav>\n", f);
	if (r->dropped_groups)
		fprintf(f, "<p class=\"note\">Only the first %d combinations of platform, governor "
			"and settings are charted; %zu runs of others are left out.</p>\n",
			MAX_GROUPS, r->dropped_groups);

	fputs("<section id=\"tradeoff\">\n<h2>Energy against wake-up latency</h2>\n<p>One point "
	      "per governor and platform: the energy spent over the clairvoyant oracle's (the "
	      "floor), against the 99th percentile of the exit latency added to the wake-ups "
	      "that needed the CPU. Down and to the left is better.</p>\n<div class=\"panels\">\n",
	      f);
	for (i = 0; i < np; i++)
		chart_scatter(f, r, plats[i], i);
	fputs("</div>\n</section>\n", f);

	fputs("<section id=\"residency\">\n<h2>Where the idle time went</h2>\n<p>Each "
	      "governor's share of the idle time in each state, shallow (light) to deep "
	      "(dark).</p>\n<div class=\"panels\">\n", f);
	for (i = 0; i < np; i++)
		chart_residency(f, r, plats[i], i);
	fputs("</div>\n</section>\n", f);

	fprintf(f, "<section id=\"idle-lengths\">\n<h2>True idle lengths</h2>\n<p>How long the "
		"CPUs really stayed idle, entry to the wake-up that needed them: %" PRIu64
		" complete intervals%s. The dashed lines are the target residencies: a state "
		"pays off only for stays longer than its line.</p>\n", r->hist_total,
		r->nr_traces > 1 ? ", every trace" : "");
	chart_histogram(f, r);
	fputs("</section>\n", f);

	fputs("<section id=\"timeline\">\n<h2>Timeline</h2>\n<p class=\"what\">", f);
	if (r->nivs) {
		fprintf(f, "CPU %u of ", r->o.cpu);
		esc(f, r->tl_trace);
		fprintf(f, ": its first %zu complete idle intervals (of %" PRIu64 "), %s from "
			"trace "
			"time %s s; above them, what each governor chose, entry by entry.",
			r->nivs, r->cpu_intervals, DUR(r->t1 - r->t0),
			NUM((double)r->t0 / 1e9, 6));
		if (np > 1 && r->tl_platform) {
			fputs(" Platform ", f);
			esc(f, r->tl_platform->name);
			fputc('.', f);
		}
	}
	fputs("</p>\n", f);
	chart_timeline(f, r);
	fputs("</section>\n", f);

	fputs("<section id=\"numbers-section\">\n<h2>Numbers</h2>\n", f);
	chart_table(f, r);
	fputs("<p class=\"note\">above: entries into a state deeper than the stay paid for; "
	      "below: a deeper state would have paid; latency: exit latency added to each "
	      "real wake-up; QoS violations: entries into a state slower than the latency "
	      "limit while one within it was enabled.</p>\n</section>\n", f);
	fprintf(f, "<script>//<![CDATA[\n%s//]]></script>\n</body>\n</html>\n", script);

	r->f = NULL;
	ret = cli_out_commit(cmd, &r->out);
	if (ret)
		return ret;
	r->written = true;
	return 0;
}
