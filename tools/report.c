// SPDX-License-Identifier: MIT
/*
 * report.c - the governor comparison as one self-contained HTML file: the
 * report as data (traces, runs grouped, the timeline's captures); its
 * charts are report_chart.c, the page around them report_page.c.
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
 * (cpuidle_lab_run.on_decision): the select() and reflect() of one CPU
 * within the window are kept.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <unistd.h>

#include "batch.h"
#include "cli.h"
#include "report_internal.h"
#include "math_lib.h"

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

int report_hist_bin(int64_t ns)
{
	double e = math_log10((double)ns / 1000.0);
	int b = (int)floor((e - HIST_MIN_EXP) * HIST_PER_DECADE + 1e-9);

	return b < 0 ? 0 : b >= HIST_BINS ? HIST_BINS - 1 : b;
}

int report_add_trace(struct report *r, const char *label, const struct cpuidle_lab_trace *trace)
{
	unsigned int nr_cpus = cpuidle_lab_trace_cpus(trace);
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
	ret = lab_trace_stream(trace, &src);
	if (ret)
		return cli_error(r->cmd, "%s: %s", label, strerror(-ret));
	while ((ret = src->next(src, &iv)) > 0) {
		if (iv.flags & (IV_PARTIAL_START | IV_PARTIAL_END) || iv.idle_ns <= 0)
			continue;
		r->hist[report_hist_bin(iv.idle_ns)]++;
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

int report_timeline_replay(struct report *r, const char *cmd, struct cpuidle_lab_run *cfgs,
			   unsigned int n)
{
	struct cpuidle_lab_result *res;
	struct cpuidle_lab_trace **views;
	struct cpuidle_lab_batch_error fail = { 0 };
	unsigned int i;
	int ret = 0, end;

	if (!r->nivs || !n)
		return 0;
	res = calloc(n, sizeof(*res));
	views = calloc(n, sizeof(*views));
	if (!res || !views) {
		free(res);
		free(views);
		return cli_error(cmd, "out of memory");
	}
	/* the runs go only as far as the window needs */
	for (i = 0; i < n && !ret; i++) {
		ret = cpuidle_lab_trace_until(cfgs[i].trace, r->t1 + WINDOW_MARGIN_NS, &views[i]);
		if (ret)
			break;
		cfgs[i].trace = views[i];
		cfgs[i].on_decision = report_capture_decision;
		cfgs[i].decision_ctx = report_timeline_capture(r, cfgs[i].platform,
							       cfgs[i].governor);
		if (!cfgs[i].decision_ctx)
			ret = -ENOMEM;
	}
	if (!ret)
		ret = cpuidle_lab_replay_many(cfgs, res, n, 0, &fail);
	end = report_timeline_end(r);
	if (ret) {
		ret = cli_error(cmd, "the report's timeline: %s", fail.msg[0] ? fail.msg :
				strerror(-ret));
	} else if (end) {
		ret = cli_error(cmd, "the report's timeline: %s", strerror(-end));
	}
	for (i = 0; i < n; i++)
		cpuidle_lab_trace_close(views[i]);
	free(res);
	free(views);
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
	r->timer_intervals += run->intervals;
	r->timer_guessed += run->timer_guessed;
	r->timer_unknown += run->timer_unknown;
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
double report_group_p99_us(const struct group *g)
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

double report_group_over(const struct group *g)
{
	return g->over_traces ? g->over_sum / g->over_traces : 0.0;
}

/* "menu" or "menu (qos 20)" */
void report_group_label(FILE *f, const struct group *g)
{
	esc(f, g->governor);
	if (g->settings[0]) {
		fputs(" (", f);
		esc(f, g->settings);
		fputc(')', f);
	}
}

/* The distinct platforms of the groups, in order. */
unsigned int report_platforms_of(const struct report *r, const struct cpuidle_platform **out,
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
