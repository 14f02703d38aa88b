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

	fprintf(sw->out, "trace,platform,governor,qos");
	for (a = 0; a < sw->nr_axes; a++) {
		fputc(',', sw->out);
		cli_csv_field(sw->out, sw->axes[a].path);
	}
	fprintf(sw->out, ",intervals,entries,timer_guessed,timer_unknown,energy_mj,power_mw,over_oracle_pct,above,below,"
		"above_pct,below_pct,latency_mean_us,latency_p99_us,latency_max_us,"
		"qos_violations,qos_unmeetable,residency%s\n",
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

static void print_row(const struct sweep *sw, const struct sweep_block *b, unsigned int row,
		      const struct sweep_out *o, const struct sweep_out *ref)
{
	const struct cpuidle_platform *p = &sw->platforms[b->platform];
	unsigned int per_gov = (unsigned int)(sw->nr_qos * sw->combos);
	unsigned int g = row / per_gov, q = (unsigned int)(row % per_gov / sw->combos);
	uint64_t combo = row % sw->combos, idle_ns = 0;
	bool json = sw->fmt == FMT_JSON;
	double over_pct;
	bool over = cpuidle_lab_over_oracle(&o->fig, ref && !ref->skipped ? &ref->fig : NULL,
					    &over_pct);
	FILE *f = sw->out;
	unsigned int a;
	int s;

	for (s = 0; s < o->state_count; s++)
		idle_ns += o->time_ns[s];
	if (json) {
		fprintf(f, "{\"trace\": ");
		json_string(f, sw->traces[b->trace].path);
		fprintf(f, ", \"platform\": ");
		json_string(f, p->name);
		fprintf(f, ", \"governor\": ");
		json_string(f, sw->govs[g]);
		fprintf(f, ", \"qos_us\": ");
		if (sw->qos[q] < 0)
			fprintf(f, "null");
		else
			fprintf(f, "%d", sw->qos[q]);
		fprintf(f, ", \"settings\": {");
		for (a = 0; a < sw->nr_axes; a++) {
			fprintf(f, "%s", a ? ", " : "");
			json_string(f, sw->axes[a].path);
			fprintf(f, ": ");
			json_string(f, sw->axes[a].values[digit(sw, combo, a)]);
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
		fprintf(f, ",%s,", sw->govs[g]);
		if (sw->qos[q] < 0)
			fprintf(f, "trace");
		else
			fprintf(f, "%d", sw->qos[q]);
		for (a = 0; a < sw->nr_axes; a++) {
			fputc(',', f);
			cli_csv_field(f, sw->axes[a].values[digit(sw, combo, a)]);
		}
		fprintf(f, ",%llu,%llu,%llu,%llu,", (unsigned long long)o->intervals,
			(unsigned long long)o->entries, (unsigned long long)o->timer_guessed,
			(unsigned long long)o->timer_unknown);
	}
	number(sw, o->fig.energy_known, "%.3f", o->fig.energy_mj);
	fprintf(f, json ? ", \"power_mw\": " : ",");
	number(sw, o->fig.energy_known, "%.2f", o->fig.power_mw);
	fprintf(f, json ? ", \"over_oracle_pct\": " : ",");
	number(sw, over, "%.2f", over_pct);
	fprintf(f, json ? ", \"above\": %llu, \"below\": %llu, \"above_pct\": %.2f, "
			  "\"below_pct\": %.2f, \"latency_mean_us\": %.3f, "
			  "\"latency_p99_us\": %.3f, \"latency_max_us\": %.3f, "
			  "\"qos_violations\": %llu, \"qos_unmeetable\": %llu, \"states\": [" :
			  ",%llu,%llu,%.2f,%.2f,%.3f,%.3f,%.3f,%llu,%llu,",
		(unsigned long long)o->fig.above, (unsigned long long)o->fig.below,
		o->fig.above_pct, o->fig.below_pct, o->fig.lat_mean_us, o->fig.lat_p99_us,
		o->fig.lat_max_us,
		(unsigned long long)o->qos_violations, (unsigned long long)o->qos_unmeetable);
	if (json) {
		for (s = 0; s < o->state_count; s++) {
			fprintf(f, "%s{\"name\": ", s ? ", " : "");
			json_string(f, p->states[s].name);
			fprintf(f, ", \"usage\": %llu, \"residency_pct\": %.2f, "
				"\"exit_latency_us\": %.3f, \"wakes\": %llu}",
				(unsigned long long)o->usage[s], pct(o->time_ns[s], idle_ns),
				(double)p->states[s].exit_latency_ns / 1000.0,
				(unsigned long long)o->state_wakes[s]);
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
					      pct(o->time_ns[s], idle_ns));
		}
		cli_csv_field(f, resid);
	}
	if (sw->timing)
		fprintf(f, json ? ", \"decisions_per_s\": %.0f" : ",%.0f",
			o->host_seconds > 0 ? (double)o->entries / o->host_seconds : 0.0);
	fprintf(f, json ? "}\n" : "\n");
}

/* A row for the report: what tells it from the governor's other rows. */
static void report_row(struct sweep *sw, const struct sweep_block *b, unsigned int row,
		       const struct sweep_out *o, const struct sweep_out *ref)
{
	unsigned int per_gov = (unsigned int)(sw->nr_qos * sw->combos);
	unsigned int g = row / per_gov, q = (unsigned int)(row % per_gov / sw->combos), a;
	uint64_t combo = row % sw->combos;
	char settings[4096];
	size_t n = 0;
	int s;
	struct report_run run = {
		.trace = sw->traces[b->trace].path,
		.platform = &sw->platforms[b->platform],
		.governor = sw->govs[g],
		.settings = settings,
		.energy_known = o->fig.energy_known,
		.energy_mj = o->fig.energy_mj,
		.intervals = o->intervals,
		.timer_guessed = o->timer_guessed,
		.timer_unknown = o->timer_unknown,
		.entries = o->entries,
		.above = o->fig.above,
		.below = o->fig.below,
		.wakes = o->fig.wakes,
		.added_latency_ns = o->added_latency_ns,
		.p99_latency_ns = o->p99_latency_ns,
		.max_latency_ns = o->max_latency_ns,
		.qos_violations = o->qos_violations,
		.state_count = o->state_count,
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
					      n ? ", " : "", sw->axes[a].items[digit(sw, combo, a)]);
	run.over_known = cpuidle_lab_over_oracle(&o->fig, ref && !ref->skipped ? &ref->fig : NULL,
						 &run.over_oracle_pct);
	for (s = 0; s < o->state_count; s++) {
		run.states[s].usage = o->usage[s];
		run.states[s].time_ns = o->time_ns[s];
		run.states[s].wakes = o->state_wakes[s];
	}
	if (report_add_run(sw->report, &run))
		sw->report_nomem = true;
}

void sweep_print_block(struct sweep *sw, unsigned int bi)
{
	const struct sweep_out *slots = sw->slots;
	unsigned int r;

	for (r = 0; r < sw->nr_rows; r++) {
		const struct sweep_out *ref = sw->row_ref[r] == UINT_MAX ? NULL :
					      &slots[sw->row_ref[r]];

		if (slots[sw->row_job[r]].lost)
			continue;	/* said when it crashed */
		print_row(sw, &sw->blocks[bi], r, &slots[sw->row_job[r]], ref);
		if (sw->report)
			report_row(sw, &sw->blocks[bi], r, &slots[sw->row_job[r]], ref);
	}
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
			(unsigned long long)sw->nr_blocks * sw->nr_rows);
}

/*
 * The timeline: each governor on the first trace and its first platform,
 * at the first QoS value and -s values, replayed again as far as the
 * window needs, its decisions captured.
 */
int sweep_report_timeline(struct sweep *sw)
{
	const struct sweep_block *b = &sw->blocks[0];
	struct cpuidle_lab_run *cfgs = calloc(sw->nr_govs, sizeof(*cfgs));
	const char **attrs = calloc((size_t)sw->nr_govs * (SWEEP_MAX_AXES + 1), sizeof(*attrs));
	unsigned int g;
	int ret;

	if (!cfgs || !attrs) {
		free(cfgs);
		free(attrs);
		return cli_error(sweep_cmd, "out of memory");
	}
	for (g = 0; g < sw->nr_govs; g++) {
		struct sweep_job job = { .gov = g, .qos = 0, .combo = 0 };

		sweep_run_config(sw, b, &job, &attrs[g * (SWEEP_MAX_AXES + 1)], &cfgs[g]);
	}
	ret = report_timeline_replay(sw->report, sweep_cmd, cfgs, sw->nr_govs);
	free(cfgs);
	free(attrs);
	return ret;
}
