// SPDX-License-Identifier: MIT
/*
 * sweep_output.c - sweep's rows: the CSV header, one row (CSV or JSON) per
 * run with its derived figures (cpuidle_lab_figures()), a block printed when its
 * last run is in, and the report's runs, description and timeline.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

/* ------------------------------------------------------------------ output */

void sweep_csv_header(const struct sweep *sw)
{
	unsigned int a;

	fprintf(sw->out, "trace,platform,governor,qos_ns");
	for (a = 0; a < sw->nr_axes; a++) {
		fputc(',', sw->out);
		cli_csv_field(sw->out, sw->axes[a].path);
	}
	fprintf(sw->out, ",intervals,entries,timer_guessed,timer_unknown,energy_mj,power_mw,over_oracle_pct,above,below,"
		"above_pct,below_pct,mean_added_latency_ns,p99_added_latency_ns,"
		"max_added_latency_ns,qos_violations,qos_unmeetable,residency_pct%s\n",
		sw->timing ? ",decisions_per_s" : "");
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Print @v with @fmt, or "" (CSV) / null (JSON) when not @known. */
static void number(const struct sweep *sw, bool known, const char *fmt, double v)
{
	if (known)
		fprintf(sw->out, fmt, v);
	else if (sw->fmt == FMT_JSON)
		fputs("null", sw->out);
}

/*
 * A state's name in the residency column ("NAME:PCT;..."), at @n in @buf:
 * the column's separators and '%' percent-encoded ("%3B", "%3A", "%25"),
 * so that the field splits the same whatever the names.  Return: the new
 * end.
 */
static size_t residency_name(char *buf, size_t size, size_t n, const char *name)
{
	for (; *name && n + 4 < size; name++) {
		if (*name == ';' || *name == ':' || *name == '%')
			n += (size_t)snprintf(buf + n, size - n, "%%%02X",
					      (unsigned int)(unsigned char)*name);
		else
			buf[n++] = *name;
	}
	buf[n] = '\0';
	return n;
}

static void print_row(const struct sweep *sw, const struct cpuidle_lab_point *at,
		      const struct cpuidle_lab_result *o, const struct cpuidle_lab_figures *fig)
{
	const struct sweep_block *b = &sw->blocks[at->block];
	const struct cpuidle_platform *p = &sw->platforms[b->platform];
	unsigned int g = at->governor, q = at->qos;
	uint64_t idle_ns = 0;
	bool json = sw->fmt == FMT_JSON;
	FILE *f = sw->out;
	unsigned int a;
	int s;

	for (s = 0; s < o->state_count; s++)
		idle_ns += o->states[s].time_ns;
	if (json) {
		fprintf(f, "{\"trace\": ");
		json_string(f, sw->traces[b->trace].path);
		fprintf(f, ", \"platform\": ");
		json_string(f, p->name);
		fprintf(f, ", \"governor\": ");
		json_string(f, sw->govs[g]);
		fprintf(f, ", \"qos_ns\": ");
		if (sw->qos[q] < 0)
			fprintf(f, "null");
		else
			fprintf(f, "%lld", (long long)sw->qos[q] * 1000);
		fprintf(f, ", \"settings\": {");
		for (a = 0; a < sw->nr_axes; a++) {
			fprintf(f, "%s", a ? ", " : "");
			json_string(f, sw->axes[a].path);
			fprintf(f, ": ");
			json_string(f, sw->axes[a].values[at->values[a]]);
		}
		fprintf(f, "}, \"clock_offset_ns\": %lld, \"intervals\": %llu, \"entries\": %llu, "
			"\"timer_guessed\": %llu, \"timer_unknown\": %llu, \"energy_mj\": ",
			(long long)sw->traces[b->trace].clock_offset_ns,
			(unsigned long long)o->intervals, (unsigned long long)o->entries,
			(unsigned long long)o->timer_guessed, (unsigned long long)o->timer_unknown);
	} else {
		cli_csv_field(f, sw->traces[b->trace].path);
		fputc(',', f);
		cli_csv_field(f, p->name);
		/* the trace's own QoS: empty, as the JSON's null */
		fprintf(f, ",%s,", sw->govs[g]);
		if (sw->qos[q] >= 0)
			fprintf(f, "%lld", (long long)sw->qos[q] * 1000);
		for (a = 0; a < sw->nr_axes; a++) {
			fputc(',', f);
			cli_csv_field(f, sw->axes[a].values[at->values[a]]);
		}
		fprintf(f, ",%llu,%llu,%llu,%llu,", (unsigned long long)o->intervals,
			(unsigned long long)o->entries, (unsigned long long)o->timer_guessed,
			(unsigned long long)o->timer_unknown);
	}
	number(sw, fig->energy_known, "%.3f", fig->energy_mj);
	fprintf(f, json ? ", \"power_mw\": " : ",");
	number(sw, fig->energy_known, "%.2f", fig->power_mw);
	fprintf(f, json ? ", \"over_oracle_pct\": " : ",");
	number(sw, fig->over_known, "%.2f", fig->over_oracle_pct);
	fprintf(f, json ? ", \"above\": %llu, \"below\": %llu, \"above_pct\": %.2f, "
			  "\"below_pct\": %.2f, \"mean_added_latency_ns\": %.0f, "
			  "\"p99_added_latency_ns\": %llu, \"max_added_latency_ns\": %llu, "
			  "\"qos_violations\": %llu, \"qos_unmeetable\": %llu, \"states\": [" :
			  ",%llu,%llu,%.2f,%.2f,%.0f,%llu,%llu,%llu,%llu,",
		(unsigned long long)fig->above, (unsigned long long)fig->below,
		fig->above_pct, fig->below_pct, fig->lat_mean_us * 1e3,
		(unsigned long long)o->p99_added_latency_ns,
		(unsigned long long)o->max_added_latency_ns,
		(unsigned long long)o->qos_violations, (unsigned long long)o->qos_unmeetable);
	if (json) {
		for (s = 0; s < o->state_count; s++) {
			fprintf(f, "%s{\"index\": %d, \"name\": ", s ? ", " : "", s);
			json_string(f, p->states[s].name);
			fprintf(f, ", \"usage\": %llu, \"residency_pct\": %.2f, "
				"\"exit_latency_ns\": %lld, \"wakes\": %llu}",
				(unsigned long long)o->states[s].usage,
				pct(o->states[s].time_ns, idle_ns),
				(long long)p->states[s].exit_latency_ns,
				(unsigned long long)o->states[s].wakes);
		}
		fputc(']', f);
	} else {
		/* a name escaped takes at most three bytes per byte */
		char resid[CPUIDLE_STATE_MAX * (3 * CPUIDLE_NAME_LEN + 16)];
		size_t n = 0;

		resid[0] = '\0';
		for (s = 0; s < o->state_count && n < sizeof(resid); s++) {
			if (s)
				resid[n++] = ';';
			n = residency_name(resid, sizeof(resid), n, p->states[s].name);
			n += (size_t)snprintf(resid + n, sizeof(resid) - n, ":%.2f",
					      pct(o->states[s].time_ns, idle_ns));
		}
		cli_csv_field(f, resid);
	}
	if (sw->timing)
		fprintf(f, json ? ", \"decisions_per_s\": %.0f" : ",%.0f",
			o->host_seconds > 0 ? (double)o->entries / o->host_seconds : 0.0);
	fprintf(f, json ? "}\n" : "\n");
}

/* A row for the report: what tells it from the governor's other rows. */
static void report_row(struct sweep *sw, const struct cpuidle_lab_point *at,
		       const struct cpuidle_lab_result *o, const struct cpuidle_lab_figures *fig)
{
	const struct sweep_block *b = &sw->blocks[at->block];
	unsigned int q = at->qos, a;
	char settings[4096];
	size_t n = 0;
	int s;
	struct report_run run = {
		.trace = sw->traces[b->trace].path,
		.platform = &sw->platforms[b->platform],
		.governor = sw->govs[at->governor],
		.settings = settings,
		.energy_known = fig->energy_known,
		.energy_mj = fig->energy_mj,
		.intervals = o->intervals,
		.timer_guessed = o->timer_guessed,
		.timer_unknown = o->timer_unknown,
		.entries = o->entries,
		.above = fig->above,
		.below = fig->below,
		.wakes = fig->wakes,
		.added_latency_ns = o->added_latency_ns,
		.p99_latency_ns = o->p99_added_latency_ns,
		.max_latency_ns = o->max_added_latency_ns,
		.qos_violations = o->qos_violations,
		.state_count = o->state_count,
		.over_known = fig->over_known,
		.over_oracle_pct = fig->over_oracle_pct,
	};

	settings[0] = '\0';
	if (sw->nr_qos > 1) {
		if (sw->qos[q] < 0)
			n += (size_t)snprintf(settings, sizeof(settings), "qos trace");
		else
			n += (size_t)snprintf(settings, sizeof(settings), "qos %d us", sw->qos[q]);
	}
	for (a = 0; a < sw->nr_axes && n < sizeof(settings); a++)
		if (sw->axes[a].n > 1)
			n += (size_t)snprintf(settings + n, sizeof(settings) - n, "%s%s",
					      n ? ", " : "", sw->axes[a].items[at->values[a]]);
	for (s = 0; s < o->state_count; s++) {
		run.states[s].usage = o->states[s].usage;
		run.states[s].time_ns = o->states[s].time_ns;
		run.states[s].wakes = o->states[s].wakes;
	}
	if (report_add_run(sw->report, &run))
		sw->report_nomem = true;
}

/* cpuidle_lab_sweep_ops.row: a row printed, and added to the report */
int sweep_row(void *ctx, const struct cpuidle_lab_point *at, const struct cpuidle_lab_result *res,
	      const struct cpuidle_lab_result *oracle)
{
	struct sweep *sw = ctx;
	const struct sweep_block *b = &sw->blocks[at->block];
	struct cpuidle_lab_figures fig;

	/* once a trace, before the rows of its first block */
	if (at->row == 0 && (at->block == 0 || sw->blocks[at->block - 1].trace != b->trace))
		cli_warn_timer_unknown("sweep", sw->traces[b->trace].path, res->intervals,
				       res->timer_guessed, res->timer_unknown);
	if (res->extrapolated && !sw->traces[b->trace].noted_steady) {	/* once a trace */
		cli_note_extrapolated("sweep", sw->traces[b->trace].path, res);
		sw->traces[b->trace].noted_steady = true;
	}
	cpuidle_lab_figures(res, oracle, &fig);
	print_row(sw, at, res, &fig);
	if (sw->report)
		report_row(sw, at, res, &fig);
	return 0;
}

/* ------------------------------------------------------------------ report */

/* "a, b, c" of @n strings into @buf */
static void join(char *buf, size_t len, const char *const *items, unsigned int n)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", items[i]);
}

/* What the report says was swept. */
void sweep_report_what(struct sweep *sw)
{
	char traces[1024], plats[512], govs[512], qos[512], set[1024];
	const char *names[SWEEP_MAX_ITEMS];
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < sw->nr_traces && i < SWEEP_MAX_ITEMS; i++)
		names[i] = sw->traces[i].path;
	join(traces, sizeof(traces), names, i);
	for (i = 0; i < sw->nr_platforms && i < SWEEP_MAX_ITEMS; i++)
		names[i] = sw->platforms[i].name;
	join(plats, sizeof(plats), names, i);
	join(govs, sizeof(govs), sw->govs, sw->nr_govs);
	qos[0] = '\0';
	for (i = 0; i < sw->nr_qos && n < sizeof(qos); i++)
		n += (size_t)(sw->qos[i] < 0 ?
			      snprintf(qos + n, sizeof(qos) - n, "%strace", i ? ", " : "") :
			      snprintf(qos + n, sizeof(qos) - n, "%s%d us", i ? ", " : "",
				       sw->qos[i]));
	set[0] = '\0';
	for (i = 0, n = 0; i < sw->nr_axes && n < sizeof(set); i++) {
		unsigned int v;

		n += (size_t)snprintf(set + n, sizeof(set) - n, "; -s %s=", sw->axes[i].path);
		for (v = 0; v < sw->axes[i].n && n < sizeof(set); v++)
			n += (size_t)snprintf(set + n, sizeof(set) - n, "%s%s", v ? "," : "",
					      sw->axes[i].values[v]);
	}
	report_describe(sw->report, "sweep of %s (trace%s) x %s (platform%s) x %s; QoS %s%s: "
			"%llu runs", traces, sw->nr_traces > 1 ? "s" : "", plats,
			sw->nr_platforms > 1 ? "s" : "", govs, qos, set,
			(unsigned long long)sw->nr_blocks * cpuidle_lab_sweep_rows(sw->plan));
}

/*
 * The timeline: each governor on the first trace and its first platform,
 * at the first QoS value and -s values, replayed again as far as the
 * window needs, its decisions captured.
 */
int sweep_report_timeline(struct sweep *sw)
{
	struct cpuidle_lab_run *cfgs = calloc(sw->nr_govs, sizeof(*cfgs));
	struct cpuidle_lab_job *jobs = calloc(sw->nr_govs, sizeof(*jobs));
	unsigned int g;
	int ret;

	if (!cfgs || !jobs) {
		free(cfgs);
		free(jobs);
		return cli_error(sweep_cmd, "out of memory");
	}
	for (g = 0; g < sw->nr_govs; g++) {
		struct cpuidle_lab_point at = { .block = 0, .governor = g };

		cpuidle_lab_sweep_config(sw->plan, &at, &jobs[g]);
		cfgs[g] = jobs[g].cfg;		/* its attrs stay in jobs[g] */
		cfgs[g].isolated = false;	/* decisions are captured in this process */
	}
	ret = report_timeline_replay(sw->report, sweep_cmd, cfgs, sw->nr_govs);
	free(cfgs);
	free(jobs);
	return ret;
}
