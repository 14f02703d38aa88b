// SPDX-License-Identifier: MIT
/*
 * cmd_sweep.c - "cpuidle sweep": every combination of traces, platforms,
 * governors, QoS values and governor tunables, replayed by a bounded pool
 * of threads, one CSV or JSON row per run, in a fixed order.
 *
 * The runs of one trace on one platform form a *block*, laid out the same
 * way for every block (a template): one row per governor x QoS x tunable
 * combination, and the jobs (runs) those rows need.  A row whose result
 * cannot depend on a tunable - a module parameter of another governor,
 * module/GOV/parameters/... read by GOV alone - shares the run made with
 * that axis at its first value; each row's energy is compared with the
 * oracle's on the same trace, platform, QoS and tunables that matter to the
 * oracle (the oracle's run is added to the block when -g does not name it).
 *
 * The runs go through lab/sim/batch.c, which hands their results back in
 * job order whatever thread finished first, within a window of a few jobs
 * a thread (memory stays bounded whatever the number of runs); a block's
 * rows are printed (sweep_output.c) once its last run is in.
 *
 * Each trace is parsed once, up front, into intervals held in memory (or,
 * past a budget, an interval file replayed from disk), which every run then
 * reads.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ivf.h"
#include "recording.h"
#include "sweep.h"

#ifndef CPUIDLE_BUNDLED_TRACE
#define CPUIDLE_BUNDLED_TRACE	"traces/io-menu.perf.txt.xz"
#endif

const char *const sweep_cmd = "sweep";

static void sweep_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " sweep [OPTIONS] [TRACE | FILE.ivf]...\n\n"
		"Replay every combination of traces, platforms, governors, QoS values and\n"
		"governor tunables, in parallel, and print one row per run (CSV, or JSON\n"
		"lines), in the order of the columns whatever the thread that finished\n"
		"first.  Each trace is parsed once; without one, the bundled trace.\n"
		"-g, -p and --qos may be repeated: the lists add up (each item once).\n\n"
		"  -g, --governor LIST     comma-separated governors, \"oracle\" the clairvoyant\n"
		"                          floor (default: every built-in and the oracle)\n"
		"  -p, --platform LIST     bundled platform names or platform files (default:\n"
		"                          every bundled platform with power numbers)\n"
		"      --qos LIST          CPU latency QoS values in us, \"trace\" for the\n"
		"                          trace's own QoS timeline (default: trace)\n"
		"  -s, --set PATH=V1,V2,.. write an attribute (a governor tunable) before each\n"
		"                          run, one run per value; repeatable: every combination\n"
		"                          (see the example below)\n"
		"  -j, --jobs N            worker threads (default: the online CPUs)\n"
		"      --no-oracle         do not add the oracle's runs for energy over the\n"
		"                          oracle (left empty unless -g names the oracle)\n"
		"      --timing            add decisions per second (varies between runs)\n"
		"      --csv | --json      CSV with a header (default), or one JSON object a line\n"
		"  -o, --output FILE       write the rows to FILE instead of stdout (put in place\n"
		"                          when the sweep succeeds; never a trace of the sweep)\n"
		REPORT_USAGE
		"                          (the timeline: the first trace on the first platform,\n"
		"                          at the first QoS value and -s values)\n"
		"  -h, --help              this text\n\n"
		"Columns: trace, platform, governor, qos, one per -s PATH, intervals, entries,\n"
		"timer_guessed, timer_unknown (intervals whose next timer was reconstructed\n"
		"or is not known), energy_mj, power_mw, over_oracle_pct, above, below, above_pct, below_pct,\n"
		"latency_mean_us, latency_p99_us, latency_max_us, qos_violations,\n"
		"qos_unmeetable, residency (\"STATE:PCT;...\"), [decisions_per_s].\n\n"
		"Example: two values of haltpoll's window growth, on the recording VM:\n"
		"  " CLI_NAME " sweep -g haltpoll -p haltpoll-vm \\\n"
		"      -s module/haltpoll/parameters/guest_halt_poll_grow=2,4\n\n"
		"See cpuidle-sweep(1).\n");
}

/* ------------------------------------------------------------------ traces */

/*
 * Parse @t->path once into its interval file and load that (lab.h): in
 * memory while *@budget allows, else left on disk.
 * Return: 0, or 1 after printing the error.
 */
static int trace_load(struct sweep_trace *t, size_t *budget)
{
	struct iv_stats *st = malloc(sizeof(*st));
	char err[512];
	int ret;

	if (!st)
		return cli_error(sweep_cmd, "out of memory");
	ret = cli_intervals(sweep_cmd, t->path, t->ivf, sizeof(t->ivf), &t->tmp, st);
	t->clock_offset_ns = st->notes.clock_offset_ns;
	free(st);
	if (ret)
		return 1;
	ret = cpuidle_lab_trace_open(t->ivf, &(struct cpuidle_lab_open_options){ .budget = budget },
				     &t->bt, err, sizeof(err));
	if (ret == -ENODATA)
		return cli_error(sweep_cmd, "%s: no complete idle interval to replay", t->path);
	if (ret)
		return cli_error(sweep_cmd, "%s", err);
	t->nr_cpus = cpuidle_lab_trace_cpus(t->bt);
	if (cpuidle_lab_trace_in_memory(t->bt) && t->tmp) {
		cli_temp_remove(t->ivf);
		t->tmp = 0;
	}
	return 0;
}

static void trace_free(struct sweep_trace *t)
{
	if (t->tmp)
		cli_temp_remove(t->ivf);
	cpuidle_lab_trace_close(t->bt);
	free(t->rec);
}

/* -------------------------------------------------------------------- lists */

/* cli_split_list() for sweep's lists */
static int split_list(char *list, const char *what, char **items, unsigned int *n)
{
	return cli_split_list(sweep_cmd, what, list, items, SWEEP_MAX_ITEMS, n);
}


/* GOV of module/GOV/parameters/NAME (or /sys/module/...), else NULL. */
static char *module_of(const char *path)
{
	const char *p = path, *end;
	char *gov;

	if (!strncmp(p, "/sys/", 5))
		p += 5;
	while (*p == '/')
		p++;
	if (strncmp(p, "module/", 7))
		return NULL;
	for (p += 7; *p == '/'; p++)
		;
	end = strchrnul(p, '/');
	gov = strndup(p, (size_t)(end - p));
	return gov;
}

static int parse_axis(const char *arg, struct sweep_axis *ax)
{
	const char *eq = strchr(arg, '=');
	char *vals, *v[SWEEP_MAX_ITEMS];
	size_t plen;
	unsigned int i;
	int ret;

	if (!eq || eq == arg)
		return cli_error(sweep_cmd, "-s '%s': PATH=VALUE[,VALUE...] expected", arg);
	plen = (size_t)(eq - arg);
	if (plen >= 256)
		return cli_error(sweep_cmd, "-s '%s': the path is too long", arg);
	ax->path = strndup(arg, plen);
	vals = strdup(eq + 1);
	if (!ax->path || !vals) {
		free(vals);
		return cli_error(sweep_cmd, "out of memory");
	}
	if (plen >= 24 && !strcmp(ax->path + plen - 24, "cpuidle/current_governor")) {
		free(vals);
		return cli_error(sweep_cmd, "-s '%s': choose governors with -g", arg);
	}
	if (split_list(vals, ax->path, v, &ax->n)) {
		free(vals);
		return 1;
	}
	ax->items = calloc(ax->n, sizeof(*ax->items));
	ax->values = calloc(ax->n, sizeof(*ax->values));
	ret = !ax->items || !ax->values;
	for (i = 0; !ret && i < ax->n; i++) {
		if (asprintf(&ax->items[i], "%s=%s", ax->path, v[i]) < 0) {
			ax->items[i] = NULL;
			ret = 1;
		} else {
			ax->values[i] = ax->items[i] + plen + 1;
		}
	}
	free(vals);
	if (ret)
		return cli_error(sweep_cmd, "out of memory");
	ax->module = module_of(ax->path);
	return 0;
}

static void axis_free(struct sweep_axis *ax)
{
	unsigned int i;

	for (i = 0; ax->items && i < ax->n; i++)
		free(ax->items[i]);
	free(ax->items);
	free(ax->values);
	free(ax->module);
	free(ax->path);
}





/* @combo with each axis that cannot change @gov's runs at its first value. */
static uint64_t effective_combo(const struct sweep *sw, unsigned int gov, uint64_t combo)
{
	const char *name = gov_name(sw, gov);
	uint64_t eff = 0;
	unsigned int a;

	for (a = 0; a < sw->nr_axes; a++) {
		const struct sweep_axis *ax = &sw->axes[a];
		unsigned int d = digit(sw, combo, a);

		if (ax->module && strcmp(ax->module, name))
			d = 0;
		eff = eff * ax->n + d;
	}
	return eff;
}

/* The job (gov, qos, combo) of the template, added if new. */
static unsigned int template_job(struct sweep *sw, unsigned int *map, unsigned int gov,
				 unsigned int qos, uint64_t combo, bool ref_only)
{
	unsigned int *slot = &map[((uint64_t)gov * sw->nr_qos + qos) * sw->combos + combo];

	if (*slot == UINT_MAX) {
		*slot = sw->nr_jobs;
		sw->jobs[sw->nr_jobs++] = (struct sweep_job){ gov, qos, combo, ref_only };
	}
	return *slot;
}

/*
 * The rows of a block, governor by governor, then QoS value by value, then
 * combination by combination (the last -s fastest), and the jobs they need.
 */
static int build_template(struct sweep *sw)
{
	unsigned int g, q, *map;
	uint64_t c, ref, nmap;
	bool refs = sw->oracle >= 0 || !sw->no_oracle;
	unsigned int oracle = sw->oracle >= 0 ? (unsigned int)sw->oracle : sw->nr_govs;

	sw->nr_rows = (unsigned int)(sw->nr_govs * sw->nr_qos * sw->combos);
	nmap = (uint64_t)(sw->nr_govs + 1) * sw->nr_qos * sw->combos;
	map = malloc(nmap * sizeof(*map));
	sw->jobs = calloc(nmap, sizeof(*sw->jobs));
	sw->row_job = calloc(sw->nr_rows, sizeof(*sw->row_job));
	sw->row_ref = calloc(sw->nr_rows, sizeof(*sw->row_ref));
	if (!map || !sw->jobs || !sw->row_job || !sw->row_ref) {
		free(map);
		return cli_error(sweep_cmd, "out of memory");
	}
	memset(map, 0xff, nmap * sizeof(*map));
	for (g = 0; g < sw->nr_govs; g++)
		for (q = 0; q < sw->nr_qos; q++)
			for (c = 0; c < sw->combos; c++) {
				uint64_t r = ((uint64_t)g * sw->nr_qos + q) * sw->combos + c;

				sw->row_job[r] = template_job(sw, map, g, q,
							      effective_combo(sw, g, c), false);
				ref = effective_combo(sw, oracle, c);
				sw->row_ref[r] = !refs ? UINT_MAX : template_job(sw, map, oracle, q,
							ref, oracle == sw->nr_govs);
			}
	free(map);
	return 0;
}

/* "trace T, platform P, governor G, qos Q, PATH=V, ..." */
static void run_name(const struct sweep *sw, const struct sweep_block *b,
		     const struct sweep_job *job, char *buf, size_t len)
{
	size_t n;
	unsigned int a;

	n = (size_t)snprintf(buf, len, "trace %s, platform %s, governor %s, qos ",
			     sw->traces[b->trace].path, sw->platforms[b->platform].name,
			     gov_name(sw, job->gov));
	if (n < len)
		n += (size_t)(sw->qos[job->qos] < 0 ? snprintf(buf + n, len - n, "trace") :
			      snprintf(buf + n, len - n, "%d", sw->qos[job->qos]));
	for (a = 0; a < sw->nr_axes && n < len; a++)
		n += (size_t)snprintf(buf + n, len - n, ", %s",
				      sw->axes[a].items[digit(sw, job->combo, a)]);
}

void sweep_run_config(const struct sweep *sw, const struct sweep_block *b,
		       const struct sweep_job *job, const char **attrs,
		       struct cpuidle_lab_run *cfg)
{
	unsigned int a;

	const struct sweep_trace *t = &sw->traces[b->trace];
	unsigned int n;

	for (n = 0; n < t->nr_fixed; n++)
		attrs[n] = t->fixed[n];
	for (a = 0; a < sw->nr_axes; a++)
		attrs[n++] = sw->axes[a].items[digit(sw, job->combo, a)];
	attrs[n] = NULL;
	*cfg = (struct cpuidle_lab_run){
		.platform = &sw->platforms[b->platform],
		.governor = gov_name(sw, job->gov),
		.governors = cli_plugin_governors(),
		.trace = sw->traces[b->trace].bt,
		.qos_us = sw->qos[job->qos],
		.tick_periodic = t->rec && t->rec->tick_periodic,
		.attrs = attrs,
	};
}

static void keep_result(const struct cpuidle_lab_result *res, struct sweep_out *o)
{
	int s;

	memset(o, 0, sizeof(*o));
	cpuidle_lab_figures(res, NULL, &o->fig);
	o->intervals = res->intervals;
	o->entries = res->entries;
	o->timer_guessed = res->timer_guessed;
	o->timer_unknown = res->timer_unknown;
	o->added_latency_ns = res->added_latency_ns;
	o->p99_latency_ns = res->p99_added_latency_ns;
	o->max_latency_ns = res->max_added_latency_ns;
	o->qos_violations = res->qos_violations;
	o->qos_unmeetable = res->qos_unmeetable;
	o->host_seconds = res->host_seconds;
	o->state_count = res->state_count;
	for (s = 0; s < res->state_count; s++) {
		o->usage[s] = res->states[s].usage;
		o->time_ns[s] = res->states[s].time_ns;
		o->state_wakes[s] = res->states[s].wakes;
	}
}

/* cpuidle_lab_batch_ops.plan: job @index, or 1 where it is skipped */
static int sweep_plan(void *ctx, uint64_t index, struct cpuidle_lab_job *bj)
{
	const struct sweep *sw = ctx;
	const struct sweep_block *b = &sw->blocks[index / sw->nr_jobs];
	const struct sweep_job *job = &sw->jobs[index % sw->nr_jobs];

	if (job->ref_only && !sw->energy[b->platform])
		return 1;	/* a reference nobody needs: energy is not known */
	sweep_run_config(sw, b, job, bj->attrs, &bj->cfg);
	/* a plugin's governor in a process of its own: a crash loses one run */
	bj->cfg.isolated = cli_plugin_path(bj->cfg.governor) != NULL;
	return 0;
}

/* cpuidle_lab_batch_ops.done: a block is printed once its last job is in */
static int sweep_done(void *ctx, uint64_t index, const struct cpuidle_lab_result *res)
{
	struct sweep *sw = ctx;
	struct sweep_out *o = &sw->slots[index % sw->nr_jobs];

	if (res && res->error == -EFAULT && cli_plugin_path(res->governor)) {
		char name[2048];

		run_name(sw, &sw->blocks[index / sw->nr_jobs], &sw->jobs[index % sw->nr_jobs],
			 name, sizeof(name));
		cli_say(CLI_NAME " sweep: governor plugin %s: %s, in %s: that run is "
			"left out\n", cli_plugin_path(res->governor), res->error_msg, name);
		memset(o, 0, sizeof(*o));
		o->lost = true;
		sw->lost_runs++;
	} else if (res && res->error) {
		snprintf(sw->fail_msg, sizeof(sw->fail_msg), "%s", res->error_msg);
		return res->error;	/* ends the sweep: sweep_run() says it */
	} else if (res) {
		keep_result(res, o);
	} else {
		memset(o, 0, sizeof(*o));
		o->skipped = true;
	}
	if (index % sw->nr_jobs == sw->nr_jobs - 1) {
		const struct sweep_block *b = &sw->blocks[index / sw->nr_jobs];
		const struct sweep_out *first = &sw->slots[0];

		/* once a trace, as its first platform's block is done */
		if (b->platform == 0 && !first->skipped)
			cli_warn_timer_unknown("sweep", sw->traces[b->trace].path,
					       first->intervals, first->timer_guessed,
					       first->timer_unknown);
		sweep_print_block(sw, (unsigned int)(index / sw->nr_jobs));
	}
	return 0;
}

static void sweep_progress(void *ctx, uint64_t done_jobs, uint64_t total)
{
	struct sweep *sw = ctx;
	unsigned int permille = (unsigned int)(done_jobs * 1000 / total);

	if (permille != sw->progress_permille) {	/* a terminal line, not one per job */
		cli_progress(done_jobs, total, "sweep");
		sw->progress_permille = permille;
	}
}

/* Run every block with @threads workers, printing each block when done. */
static int sweep_run(struct sweep *sw, unsigned int threads)
{
	static const struct cpuidle_lab_batch_ops ops = {
		.plan = sweep_plan,
		.done = sweep_done,
		.progress = sweep_progress,
		.keep_going = true,	/* sweep_done() decides */
	};
	struct cpuidle_lab_batch_error fail;
	char name[2048];
	int ret;

	sw->slots = calloc(sw->nr_jobs, sizeof(*sw->slots));
	if (!sw->slots)
		return cli_error(sweep_cmd, "out of memory");
	sw->progress_permille = UINT_MAX;
	ret = cpuidle_lab_batch_run(&ops, sw, (uint64_t)sw->nr_blocks * sw->nr_jobs, threads, &fail);
	cli_progress_end();
	if (!ret)
		return 0;
	run_name(sw, &sw->blocks[fail.job / sw->nr_jobs], &sw->jobs[fail.job % sw->nr_jobs],
		 name, sizeof(name));
	return cli_error(sweep_cmd, "%s: %s", name, fail.msg[0] ? fail.msg : sw->fail_msg[0] ?
			 sw->fail_msg : strerror(-ret));
}

/* ------------------------------------------------------------------ set up */

static bool platform_has_energy(const struct cpuidle_platform *p)
{
	int c, s;

	for (c = 0; c < p->nr_clusters; c++)
		for (s = 0; s < p->clusters[c].state_count; s++)
			if (p->clusters[c].states[s].model_power_mw < 0)
				return false;
	return true;
}

/*
 * Machine of @t on @p, with the recording's tunables and @attr (or none)
 * written: nothing replayed.
 */
static int dry_run(const struct sweep *sw, const struct sweep_trace *t,
		   const struct cpuidle_platform *p, const char *attr)
{
	const char *attrs[CPUIDLE_LAB_MAX_ATTRS + 2];
	struct cpuidle_lab_run cfg = {
		.platform = p,
		.governor = sw->govs[0],
		.governors = cli_plugin_governors(),
		.qos_us = -1,
		.attrs = attrs,
	};
	struct cpuidle_lab_result *res = malloc(sizeof(*res));
	struct cpuidle_lab_trace *empty;
	unsigned int n;
	int ret;

	for (n = 0; n < t->nr_fixed; n++)
		attrs[n] = t->fixed[n];
	if (attr)
		attrs[n++] = attr;
	attrs[n] = NULL;
	if (!res)
		return -ENOMEM;
	ret = cpuidle_lab_trace_empty(t->nr_cpus, &empty);
	if (!ret) {
		cfg.trace = empty;
		ret = cpuidle_lab_replay(&cfg, res);
		cpuidle_lab_trace_close(empty);
	}
	free(res);
	return ret;
}

/* Add @p, a recording's platform, for trace @t alone.  Return: its index, or -1. */
static int add_recording_platform(struct sweep *sw, const struct cpuidle_platform *p,
				  unsigned int t)
{
	unsigned int n = sw->nr_platforms + 1;
	struct cpuidle_platform *pl = realloc(sw->platforms, n * sizeof(*pl));
	bool *energy;
	int *owner;

	if (pl)
		sw->platforms = pl;
	energy = pl ? realloc(sw->energy, n * sizeof(*energy)) : NULL;
	if (energy)
		sw->energy = energy;
	owner = energy ? realloc(sw->plat_owner, n * sizeof(*owner)) : NULL;
	if (!owner)
		return -1;
	sw->plat_owner = owner;
	sw->platforms[n - 1] = *p;
	sw->energy[n - 1] = platform_has_energy(p);
	sw->plat_owner[n - 1] = (int)t;
	sw->nr_platforms = n;
	return (int)n - 1;
}

/*
 * What each trace's recording says (cpuidle record's description): its
 * tunables are written in every run of it, except those an -s sweeps (a
 * note each); without -p it is replayed on the platform it was recorded on
 * alone (a note; a note too if that platform has no power numbers), with
 * -p on those given (a note).  Return: 0, or 1 after a message.
 */
static int trace_recordings(struct sweep *sw, bool default_platforms)
{
	unsigned int t, i, a;

	for (t = 0; t < sw->nr_traces; t++) {
		struct sweep_trace *tr = &sw->traces[t];
		struct recording *rec = calloc(1, sizeof(*rec));
		struct cpuidle_platform p;
		char err[600];

		tr->platform = -1;
		if (!rec)
			return cli_error(sweep_cmd, "out of memory");
		tr->rec = rec;
		if (cli_recording(sweep_cmd, tr->path, rec))
			return 1;
		for (i = 0; i < rec->nr_attrs; i++) {
			size_t len = strcspn(rec->attrs[i], "=");

			for (a = 0; a < sw->nr_axes; a++)
				if (strlen(sw->axes[a].path) == len &&
				    !strncmp(sw->axes[a].path, rec->attrs[i], len))
					break;
			if (a < sw->nr_axes) {
				cli_say(CLI_NAME " sweep: note: %s: -s %s swept, not the "
					"recording's %s\n", tr->path, sw->axes[a].path, rec->attrs[i]);
				continue;
			}
			if (tr->nr_fixed + sw->nr_axes == CPUIDLE_LAB_MAX_ATTRS)
				return cli_error(sweep_cmd, "%s: its recording's tunables and the -s "
						 "options make more than %d attribute writes",
						 tr->path, CPUIDLE_LAB_MAX_ATTRS);
			tr->fixed[tr->nr_fixed++] = rec->attrs[i];
		}
		tr->fixed[tr->nr_fixed] = NULL;
		if (!rec->platform)
			continue;
		if (!default_platforms) {
			cli_say(CLI_NAME " sweep: note: %s: on the platforms of -p, not the "
				"one it was recorded on\n", tr->path);
			continue;
		}
		if (cpuidle_platform_parse(rec->platform, rec->platform_len,
					   "the recording's platform", &p, err, sizeof(err)))
			return cli_error(sweep_cmd, "%s: %s", tr->path, err);
		tr->platform = add_recording_platform(sw, &p, t);
		if (tr->platform < 0)
			return cli_error(sweep_cmd, "out of memory");
		cli_say(CLI_NAME " sweep: note: %s: on the platform it was recorded on "
			"(%s) alone, as its description says; -p chooses others\n", tr->path,
			p.desc);
		cli_note_power_unknown(sweep_cmd, &p, tr->path);
	}
	return 0;
}

/*
 * The (trace, platform) pairs to run, each checked: the platform holds the
 * trace's CPUs, every -s value can be written.  A default platform that
 * cannot hold a trace is left out for it, with a note; a platform given
 * with -p is an error.
 */
static int plan_blocks(struct sweep *sw, bool default_platforms)
{
	unsigned int t, p, a, v, n;
	int ret;

	sw->blocks = calloc((size_t)sw->nr_traces * sw->nr_platforms, sizeof(*sw->blocks));
	if (!sw->blocks)
		return cli_error(sweep_cmd, "out of memory");
	for (t = 0; t < sw->nr_traces; t++) {
		const struct sweep_trace *tr = &sw->traces[t];

		for (n = 0, p = 0; p < sw->nr_platforms; p++) {
			const struct cpuidle_platform *pl = &sw->platforms[p];

			/* a recording's platform is its trace's alone, and that trace's only one */
			if ((sw->plat_owner[p] >= 0 && sw->plat_owner[p] != (int)t) ||
			    (tr->platform >= 0 && (int)p != tr->platform))
				continue;
			ret = dry_run(sw, tr, pl, NULL);
			if (ret == -ERANGE || ret == -EOPNOTSUPP) {
				char why[128];

				if (ret == -ERANGE)
					snprintf(why, sizeof(why), "the platform has %u CPUs",
						 pl->nr_cpus);
				else
					snprintf(why, sizeof(why), "its clusters have different "
						 "numbers of states, which the replay does not "
						 "support yet");

				if (!default_platforms)
					return cli_error(sweep_cmd, "platform %s cannot replay %s "
							 "(%u CPUs): %s", pl->name, tr->path,
							 tr->nr_cpus, why);
				cli_say(CLI_NAME " sweep: note: platform %s left out for "
					"%s (%u CPUs): %s\n", pl->name, tr->path, tr->nr_cpus, why);
				continue;
			}
			if (ret)
				return cli_error(sweep_cmd, "platform %s, trace %s: %s", pl->name,
						 tr->path, strerror(-ret));
			for (a = 0; a < sw->nr_axes; a++)
				for (v = 0; v < sw->axes[a].n; v++) {
					ret = dry_run(sw, tr, pl, sw->axes[a].items[v]);
					if (ret)
						return cli_error(sweep_cmd,
							"-s '%s' on platform %s with trace %s "
							"(%u CPUs): %s", sw->axes[a].items[v],
							pl->name, tr->path, tr->nr_cpus,
							strerror(-ret));
				}
			sw->blocks[sw->nr_blocks++] = (struct sweep_block){ t, p };
			n++;
		}
		if (!n)
			return cli_error(sweep_cmd, "no platform can replay %s (%u CPUs): name "
					 "one with -p", tr->path, tr->nr_cpus);
	}
	return 0;
}

static int parse_governors(struct sweep *sw, char *list)
{
	char *items[SWEEP_MAX_ITEMS];
	unsigned int i;

	if (split_list(list, "-g", items, &sw->nr_govs))
		return 1;
	sw->govs = calloc(sw->nr_govs, sizeof(*sw->govs));
	if (!sw->govs)
		return cli_error(sweep_cmd, "out of memory");
	sw->oracle = -1;
	for (i = 0; i < sw->nr_govs; i++) {
		const struct cpuidle_governor *g = NULL;
		unsigned int j;

		if (!strcmp(items[i], CPUIDLE_LAB_ORACLE))
			sw->oracle = (int)i;
		else if (cli_governor(sweep_cmd, items[i], &g))
			return 1;
		sw->govs[i] = g ? g->name : items[i];	/* a plugin's by its governor's name */
		for (j = 0; j < i; j++)
			if (!strcmp(sw->govs[j], sw->govs[i]))
				return cli_error(sweep_cmd, "-g: governor '%s' listed twice",
						 sw->govs[i]);
	}
	return 0;
}

static int parse_platforms(struct sweep *sw, char *list, bool *defaults)
{
	const char *const *name;
	char *items[SWEEP_MAX_ITEMS], err[512];
	unsigned int i, n = 0;
	int ret;

	*defaults = !list;
	if (list) {
		if (split_list(list, "-p", items, &n))
			return 1;
	} else {
		for (name = cpuidle_platform_builtin_names(); *name && n < SWEEP_MAX_ITEMS; name++)
			items[n++] = (char *)*name;
	}
	sw->platforms = calloc(n, sizeof(*sw->platforms));
	sw->energy = calloc(n, sizeof(*sw->energy));
	sw->plat_owner = calloc(n, sizeof(*sw->plat_owner));
	if (!sw->platforms || !sw->energy || !sw->plat_owner)
		return cli_error(sweep_cmd, "out of memory");
	for (i = 0; i < n; i++)
		sw->plat_owner[i] = -1;
	for (i = 0; i < n; i++) {
		struct cpuidle_platform *p = &sw->platforms[sw->nr_platforms];

		ret = cpuidle_platform_load(items[i], p, err, sizeof(err));
		if (ret)
			return cli_error(sweep_cmd, "%s", err[0] ? err : strerror(-ret));
		sw->energy[sw->nr_platforms] = platform_has_energy(p);
		if (*defaults && !sw->energy[sw->nr_platforms])
			continue;	/* the default: those with power numbers */
		cli_note_power_unknown(sweep_cmd, p, items[i]);
		sw->nr_platforms++;
	}
	if (!sw->nr_platforms)
		return cli_error(sweep_cmd, "no bundled platform has power numbers: name one "
				 "with -p");
	return 0;
}

static int parse_qos(struct sweep *sw, char *list)
{
	char *items[SWEEP_MAX_ITEMS];
	unsigned int i;
	long long v;

	if (split_list(list, "--qos", items, &sw->nr_qos))
		return 1;
	sw->qos = calloc(sw->nr_qos, sizeof(*sw->qos));
	if (!sw->qos)
		return cli_error(sweep_cmd, "out of memory");
	for (i = 0; i < sw->nr_qos; i++) {
		if (!strcmp(items[i], "trace"))
			sw->qos[i] = -1;
		else if (cli_parse_ll(items[i], 0, INT32_MAX, &v))
			return cli_error(sweep_cmd, "--qos wants 0..%d microseconds or \"trace\", "
					 "not '%s'", INT32_MAX, items[i]);
		else
			sw->qos[i] = (int32_t)v;
	}
	return 0;
}

static int default_governors(char *buf, size_t len)
{
	const struct cpuidle_governor *const *g;
	size_t n = 0;

	for (g = cpuidle_builtin_governors(); *g; g++)
		n += (size_t)snprintf(buf + n, len - n, "%s,", (*g)->name);
	if (n + sizeof(CPUIDLE_LAB_ORACLE) > len)
		return cli_error(sweep_cmd, "too many governors");
	strcpy(buf + n, CPUIDLE_LAB_ORACLE);
	return 0;
}

static void sweep_free(struct sweep *sw)
{
	unsigned int i;

	for (i = 0; sw->traces && i < sw->nr_traces; i++)
		trace_free(&sw->traces[i]);
	for (i = 0; i < sw->nr_axes; i++)
		axis_free(&sw->axes[i]);
	free(sw->traces);
	free(sw->platforms);
	free(sw->energy);
	free(sw->plat_owner);
	free(sw->govs);
	free(sw->qos);
	free(sw->jobs);
	free(sw->row_job);
	free(sw->row_ref);
	free(sw->blocks);
	free(sw->slots);
	free(sw->plat_files);
	for (i = 0; i < 3; i++)
		free(sw->lists[i]);
}

/* Append @arg to the comma-separated *@list (allocated).  Return: 0 or 1. */
static int list_add(char **list, const char *arg)
{
	size_t len = *list ? strlen(*list) + 1 : 0;
	char *p = realloc(*list, len + strlen(arg) + 1);

	if (!p)
		return cli_error(sweep_cmd, "out of memory");
	if (len)
		p[len - 1] = ',';
	strcpy(p + len, arg);
	*list = p;
	return 0;
}

/*
 * -o and --report: neither one of the sweep's traces or platform files, nor
 * both the same file, nor an existing trace.  Return: 0, or 1 after a message.
 */
static int check_outputs(struct sweep *sw)
{
	const struct cli_out_arg outs[] = {
		{ "-o", sw->out_path, false },
		{ "--report", sw->ropts.path, false },
	};
	const char **ins;
	unsigned int n = 0, t;
	char *p, *comma;
	int ret;

	ins = calloc(sw->nr_traces + SWEEP_MAX_ITEMS, sizeof(*ins));
	if (!ins)
		return cli_error(sweep_cmd, "out of memory");
	for (t = 0; t < sw->nr_traces; t++)
		ins[n++] = sw->traces[t].path;
	for (p = sw->plat_files; p && n < sw->nr_traces + SWEEP_MAX_ITEMS; p = comma + 1) {
		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		ins[n++] = cli_platform_file(p);
		if (!comma)
			break;
	}
	ret = cli_out_check(sweep_cmd, outs, 2, ins, n);
	free(ins);
	return ret;
}

static int sweep_main(struct sweep *sw, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "governor", required_argument, NULL, 'g' },
		{ "platform", required_argument, NULL, 'p' },
		{ "qos", required_argument, NULL, 'q' },
		{ "set", required_argument, NULL, 's' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "no-oracle", no_argument, NULL, 'N' },
		{ "timing", no_argument, NULL, 'T' },
		{ "csv", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'J' },
		{ "output", required_argument, NULL, 'o' },
		REPORT_GETOPT_LONG,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *govlist = NULL, *platlist = NULL, *qoslist = NULL, defgovs[512];
	bool csv = false, json = false;
	static const char bundled[] = CPUIDLE_BUNDLED_TRACE;
	size_t budget = CPUIDLE_LAB_MEMORY_BUDGET;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int threads = online > 0 ? (unsigned int)online : 1, t, i;
	bool default_platforms;
	long long v;
	uint64_t rows;
	int c, ret;

	sw->fmt = FMT_CSV;
	if (threads > SWEEP_MAX_THREADS)
		threads = SWEEP_MAX_THREADS;
	optind = 1;
	while ((c = getopt_long(argc, argv, "g:p:s:j:o:h", opts, NULL)) != -1) {
		switch (c) {
		/* repeated, the lists add up: -p laptop -p skylake is -p laptop,skylake */
		case 'g':
			if (list_add(&govlist, optarg))
				return 1;
			sw->lists[0] = govlist;
			break;
		case 'p':
			if (list_add(&platlist, optarg))
				return 1;
			sw->lists[1] = platlist;
			break;
		case 'q':
			if (list_add(&qoslist, optarg))
				return 1;
			sw->lists[2] = qoslist;
			break;
		case 's':
			if (sw->nr_axes == SWEEP_MAX_AXES)
				return cli_error(sweep_cmd, "at most %d -s options",
						 SWEEP_MAX_AXES);
			if (parse_axis(optarg, &sw->axes[sw->nr_axes++]))
				return 1;
			for (i = 0; i + 1 < sw->nr_axes; i++)
				if (!strcmp(sw->axes[i].path, sw->axes[sw->nr_axes - 1].path))
					return cli_error(sweep_cmd, "-s %s given twice: list its "
							 "values in one -s", sw->axes[i].path);
			break;
		case 'j':
			if (cli_parse_ll(optarg, 1, SWEEP_MAX_THREADS, &v))
				return cli_error(sweep_cmd, "-j wants 1..%d threads, not '%s'",
						 SWEEP_MAX_THREADS, optarg);
			threads = (unsigned int)v;
			break;
		case 'N':
			sw->no_oracle = true;
			break;
		case 'T':
			sw->timing = true;
			break;
		case 'C':
			csv = true;
			sw->fmt = FMT_CSV;
			break;
		case 'J':
			json = true;
			sw->fmt = FMT_JSON;
			break;
		case 'o':
			sw->out_path = optarg;
			break;
		case 'R':
		case 'U':
		case 'I':
			if (report_parse_option(sweep_cmd, c, optarg, &sw->ropts))
				return 1;
			break;
		case 'h':
			sweep_usage(stdout);
			return 0;
		default:
			sweep_usage(stderr);
			return 1;
		}
	}

	if (csv && json)
		return cli_error(sweep_cmd, "--csv and --json: choose one");
	/* every list checked before any trace is parsed */
	if (!govlist) {
		if (default_governors(defgovs, sizeof(defgovs)))
			return 1;
		govlist = defgovs;
	}
	if (platlist) {
		/* the platform files, for the outputs' check (split_list cuts the list) */
		sw->plat_files = strdup(platlist);
		if (!sw->plat_files)
			return cli_error(sweep_cmd, "out of memory");
	}
	if (parse_governors(sw, govlist) || parse_platforms(sw, platlist, &default_platforms) ||
	    parse_qos(sw, qoslist ? qoslist : (char[]){ "trace" }))
		return 1;
	sw->combos = 1;
	for (i = 0; i < sw->nr_axes; i++) {
		sw->combos *= sw->axes[i].n;
		if (sw->combos > SWEEP_MAX_BLOCK)
			break;
	}
	rows = sw->combos * sw->nr_govs * sw->nr_qos;
	if (sw->combos > SWEEP_MAX_BLOCK || rows > SWEEP_MAX_BLOCK)
		return cli_error(sweep_cmd, "more than %d runs per trace and platform (governors x "
				 "QoS values x tunable values): split the sweep", SWEEP_MAX_BLOCK);
	sw->nr_traces = optind < argc ? (unsigned int)(argc - optind) : 1;
	sw->traces = calloc(sw->nr_traces, sizeof(*sw->traces));
	if (!sw->traces)
		return cli_error(sweep_cmd, "out of memory");
	for (t = 0; t < sw->nr_traces; t++) {
		sw->traces[t].path = optind < argc ? argv[optind + t] : bundled;
		for (i = 0; i < t; i++)
			if (!strcmp(sw->traces[i].path, sw->traces[t].path))
				return cli_error(sweep_cmd, "trace %s given twice",
						 sw->traces[t].path);
	}
	if (optind == argc && access(bundled, R_OK))
		return cli_error(sweep_cmd, "no trace given, and the bundled one is not at %s: "
				 "give a trace", bundled);
	if (!sw->ropts.path && (sw->ropts.cpu || sw->ropts.intervals))
		return cli_error(sweep_cmd, "--report-cpu and --report-intervals go with --report");
	if (check_outputs(sw))
		return 1;
	/* a regular file is written next to itself, put in place at the end */
	if (sw->out_path && strcmp(sw->out_path, "-")) {
		if (cli_out_open(sweep_cmd, NULL, &sw->outf, sw->out_path))
			return 1;
		sw->out = sw->outf.f;
	} else {
		sw->out = stdout;
	}

	if (sw->ropts.path && report_open(sweep_cmd, &sw->ropts, &sw->report))
		return 1;

	/* each trace parsed once; the machines of every pair tried */
	for (t = 0; t < sw->nr_traces; t++)
		if (trace_load(&sw->traces[t], &budget))
			return 1;
	if (trace_recordings(sw, default_platforms) || plan_blocks(sw, default_platforms) ||
	    build_template(sw))
		return 1;
	if (sw->report) {
		sweep_report_what(sw);
		for (t = 0; t < sw->nr_traces; t++)
			if (report_add_trace(sw->report, sw->traces[t].path, sw->traces[t].bt))
				return 1;
	}

	if (sw->fmt == FMT_CSV)
		sweep_csv_header(sw);
	ret = sweep_run(sw, threads);
	if (fflush(sw->out) || ferror(sw->out))
		ret = ret ? ret : cli_error(sweep_cmd, "%s: %s", sw->out == stdout ? "stdout" :
					    sw->out_path,
					    strerror(errno));
	if (!ret && sw->report) {
		if (sw->report_nomem)
			return cli_error(sweep_cmd, "--report: out of memory");
		ret = sweep_report_timeline(sw);
		if (!ret)
			ret = report_write(sw->report, sweep_cmd);
	}
	return ret;
}

/**
 * cmd_sweep() - "cpuidle sweep"
 * @argc: arguments, "sweep" first
 * @argv: their values
 *
 * Return: 0, or 1 after a message.
 */
int cmd_sweep(int argc, char **argv)
{
	struct sweep *sw = calloc(1, sizeof(*sw));
	int ret;

	if (!sw)
		return cli_error(sweep_cmd, "out of memory");
	ret = sweep_main(sw, argc, argv);
	if (!ret)
		ret = cli_out_commit(sweep_cmd, &sw->outf);
	/* runs lost to a plugin's crash: the others are written, and the exit says it */
	if (!ret && sw->lost_runs)
		ret = cli_error(sweep_cmd, "%llu run%s lost to a crashing governor plugin; the "
				"others written", (unsigned long long)sw->lost_runs,
				sw->lost_runs == 1 ? "" : "s");
	cli_out_abort(&sw->outf);	/* no partial sweep left behind; the file as it was */
	report_free(sw->report);	/* removes its temporary file unless it was written */
	sweep_free(sw);
	free(sw);
	return ret;
}
