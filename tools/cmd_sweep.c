// SPDX-License-Identifier: MIT
/*
 * cmd_sweep.c - "cpuidle sweep": every combination of traces, platforms,
 * governors, QoS values and governor tunables, replayed by a bounded pool
 * of threads, one CSV or JSON row per run, in a fixed order.
 *
 * The runs of one trace on one platform form a *block*; the lab plans and
 * runs the blocks (cpuidle_lab_sweep_run(), cpuidle/lab.h): one row per
 * governor x QoS x tunable combination, a run shared by the rows it cannot
 * tell apart, each row's energy compared with the oracle's, the results
 * handed back in a fixed order whatever thread finished first.  This file
 * reads the options, loads the traces and checks each (trace, platform)
 * pair; sweep_output.c prints the rows.
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
		"                          floor (default: every built-in and the oracle);\n"
		"                          NAME@RELEASE a port of a kernel release: teo@6.18,\n"
		"                          teo@7.1, menu@6.18, menu@7.1 (cpuidle governors)\n"
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
		"      --shard K/N         the K-th of N parts: a contiguous run of the traces\n"
		"                          alone, after a line '# cpuidle sweep shard K/N'\n"
		"      --merge PART...     put the N parts back together: the rows of the\n"
		"                          unsharded sweep, in its order (with -o, --csv/--json\n"
		"                          as the parts were written)\n"
		REPORT_USAGE
		"                          (the timeline: the first trace on the first platform,\n"
		"                          at the first QoS value and -s values)\n"
		CLI_USAGE_QUIET
		"  -h, --help              this text\n\n"
		"Columns: trace, platform, governor, qos_ns (empty: the trace's own), one per\n"
		"-s PATH, intervals, entries,\n"
		"timer_guessed, timer_unknown (intervals whose next timer was reconstructed\n"
		"or is not known), energy_mj, power_mw, over_oracle_pct, above, below,\n"
		"above_pct, below_pct, mean_added_latency_ns, p99_added_latency_ns,\n"
		"max_added_latency_ns, qos_violations, qos_unmeetable, residency_pct\n"
		"(\"STATE:PCT;...\"), [decisions_per_s]; every name and unit:\n"
		"cpuidle-output(7).\n\n"
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
	return 0;
}

static void axis_free(struct sweep_axis *ax)
{
	unsigned int i;

	for (i = 0; ax->items && i < ax->n; i++)
		free(ax->items[i]);
	free(ax->items);
	free(ax->values);
	free(ax->path);
}


/* "trace T, platform P, governor G, qos Q, PATH=V, ..." */
static void run_name(const struct sweep *sw, const struct cpuidle_lab_point *at, char *buf,
		     size_t len)
{
	const struct sweep_block *b = &sw->blocks[at->block];
	size_t n;
	unsigned int a;

	n = (size_t)snprintf(buf, len, "trace %s, platform %s, governor %s, qos ",
			     sw->traces[b->trace].path, sw->platforms[b->platform].name,
			     at->governor < sw->nr_govs ? sw->govs[at->governor] :
			     CPUIDLE_LAB_ORACLE);
	if (n < len)
		n += (size_t)(sw->qos[at->qos] < 0 ? snprintf(buf + n, len - n, "trace") :
			      snprintf(buf + n, len - n, "%d", sw->qos[at->qos]));
	for (a = 0; a < sw->nr_axes && n < len; a++)
		n += (size_t)snprintf(buf + n, len - n, ", %s", sw->axes[a].items[at->values[a]]);
}

/* cpuidle_lab_sweep_ops.lost: a plugin's governor crashed in its own process */
static int sweep_lost(void *ctx, const struct cpuidle_lab_point *at,
		      const struct cpuidle_lab_result *res)
{
	struct sweep *sw = ctx;
	char name[2048];

	run_name(sw, at, name, sizeof(name));
	/* a failure (sweep exits 1 at its end), said whatever -q */
	cli_error("sweep", "governor plugin %s: %s, in %s: that run is left out",
		  cli_plugin_path(res->governor), res->error_msg, name);
	sw->lost_runs++;
	return 0;
}

static void sweep_progress(void *ctx, uint64_t done_runs, uint64_t total)
{
	struct sweep *sw = ctx;
	unsigned int permille = (unsigned int)(done_runs * 1000 / total);

	if (permille != sw->progress_permille) {	/* a terminal line, not one per run */
		cli_progress(done_runs, total, "sweep");
		sw->progress_permille = permille;
	}
}

/* Run every block with @threads workers, its rows printed as it completes. */
static int sweep_run(struct sweep *sw, unsigned int threads)
{
	static const struct cpuidle_lab_sweep_ops ops = {
		.row = sweep_row,
		.lost = sweep_lost,
		.progress = sweep_progress,
	};
	struct cpuidle_lab_sweep_error fail;
	char name[2048];
	int ret;

	sw->progress_permille = UINT_MAX;
	ret = cpuidle_lab_sweep_run(sw->plan, &ops, sw, threads, &fail);
	cli_progress_end();
	if (!ret)
		return 0;
	run_name(sw, &fail.at, name, sizeof(name));
	return cli_error(sweep_cmd, "%s: %s", name, fail.msg[0] ? fail.msg : strerror(-ret));
}

/* ------------------------------------------------------------------ set up */

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
	sw->energy[n - 1] = cpuidle_platform_power_known(p);
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
				cli_note_on("sweep", tr->path, "-s %s swept, not the "
					"recording's %s", sw->axes[a].path, rec->attrs[i]);
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
			cli_note_on("sweep", tr->path, "on the platforms of -p, not the "
				"one it was recorded on");
			continue;
		}
		if (cpuidle_platform_parse(rec->platform, rec->platform_len,
					   "the recording's platform", &p, err, sizeof(err)))
			return cli_error(sweep_cmd, "%s: %s", tr->path, err);
		tr->platform = add_recording_platform(sw, &p, t);
		if (tr->platform < 0)
			return cli_error(sweep_cmd, "out of memory");
		cli_note_on("sweep", tr->path, "on the platform it was recorded on "
			"(%s) alone, as its description says; -p chooses others",
			p.desc);
		cli_note_power_unknown(sweep_cmd, &p, tr->path);
	}
	return 0;
}

/* The lab's description of the sweep, blocks aside. */
static void sweep_spec(struct sweep *sw)
{
	unsigned int a;

	for (a = 0; a < sw->nr_axes; a++)
		sw->lab_axes[a] = (struct cpuidle_lab_axis){
			.path = sw->axes[a].path,
			.values = sw->axes[a].values,
			.nr_values = sw->axes[a].n,
		};
	sw->spec = (struct cpuidle_lab_sweep_spec){
		.governors = sw->govs,
		.nr_governors = sw->nr_govs,
		.own = cli_plugin_governors(),
		.isolate_own = true,	/* a plugin's crash loses one run */
		.qos_us = sw->qos,
		.nr_qos = sw->nr_qos,
		.axes = sw->lab_axes,
		.nr_axes = sw->nr_axes,
		.no_oracle = sw->no_oracle,
	};
}

/*
 * The (trace, platform) pairs to run, each checked (cpuidle_lab_sweep_check()):
 * the platform holds the trace's CPUs, every -s value can be written.  A
 * default platform that cannot hold a trace is left out for it, with a
 * note; a platform given with -p is an error.
 */
static int plan_blocks(struct sweep *sw, bool default_platforms)
{
	size_t most = (size_t)sw->nr_traces * sw->nr_platforms;
	struct cpuidle_lab_sweep_error fail;
	unsigned int t, p, n;
	int ret;

	sweep_spec(sw);
	sw->blocks = calloc(most, sizeof(*sw->blocks));
	sw->lab_blocks = calloc(most, sizeof(*sw->lab_blocks));
	if (!sw->blocks || !sw->lab_blocks)
		return cli_error(sweep_cmd, "out of memory");
	for (t = 0; t < sw->nr_traces; t++) {
		const struct sweep_trace *tr = &sw->traces[t];

		for (n = 0, p = 0; p < sw->nr_platforms; p++) {
			const struct cpuidle_platform *pl = &sw->platforms[p];
			const struct cpuidle_lab_block block = {
				.trace = tr->bt,
				.platform = pl,
				.attrs = tr->fixed,
				.tick_periodic = tr->rec && tr->rec->tick_periodic,
			};

			/* a recording's platform is its trace's alone, and that trace's only one */
			if ((sw->plat_owner[p] >= 0 && sw->plat_owner[p] != (int)t) ||
			    (tr->platform >= 0 && (int)p != tr->platform))
				continue;
			ret = cpuidle_lab_sweep_check(&sw->spec, &block, &fail);
			if (fail.axis < 0 && (ret == -ERANGE || ret == -EOPNOTSUPP)) {
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
				cli_note("sweep", "platform %s left out for "
					"%s (%u CPUs): %s", pl->name, tr->path, tr->nr_cpus, why);
				continue;
			}
			if (ret && fail.axis < 0)
				return cli_error(sweep_cmd, "platform %s, trace %s: %s", pl->name,
						 tr->path, strerror(-ret));
			if (ret)
				return cli_error(sweep_cmd, "-s '%s' on platform %s with trace %s "
						 "(%u CPUs): %s",
						 sw->axes[fail.axis].items[fail.at.values[fail.axis]],
						 pl->name, tr->path, tr->nr_cpus, strerror(-ret));
			sw->lab_blocks[sw->nr_blocks] = block;
			sw->blocks[sw->nr_blocks++] = (struct sweep_block){ t, p };
			n++;
		}
		if (!n)
			return cli_error(sweep_cmd, "no platform can replay %s (%u CPUs): name "
					 "one with -p", tr->path, tr->nr_cpus);
	}
	sw->spec.blocks = sw->lab_blocks;
	sw->spec.nr_blocks = sw->nr_blocks;
	ret = cpuidle_lab_sweep_new(&sw->spec, &sw->plan);
	if (ret)
		return cli_error(sweep_cmd, "%s", strerror(-ret));
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
	for (i = 0; i < sw->nr_govs; i++) {
		const struct cpuidle_governor *g = NULL;
		unsigned int j;

		if (strcmp(items[i], CPUIDLE_LAB_ORACLE) &&
		    cli_governor(sweep_cmd, items[i], &g))
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
		sw->energy[sw->nr_platforms] = cpuidle_platform_power_known(p);
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
	cpuidle_lab_sweep_free(sw->plan);
	free(sw->lab_blocks);
	free(sw->blocks);
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
	char *govlist = NULL, *platlist = NULL, *qoslist = NULL, defgovs[512];
	bool csv = false, json = false;
	static const char bundled[] = CPUIDLE_BUNDLED_TRACE;
	size_t budget = CPUIDLE_LAB_MEMORY_BUDGET;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int threads = online > 0 ? (unsigned int)online : 1, t, i;
	bool default_platforms, merge = false;
	char extra;
	long long v;
	uint64_t rows;
	int c, ret;

	sw->fmt = FMT_CSV;
	if (threads > SWEEP_MAX_THREADS)
		threads = SWEEP_MAX_THREADS;
	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_sweep_opts)) != -1) {
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
		case 'Q':
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
		case 'K':
			if (sscanf(optarg, "%u/%u%c", &sw->shard_k, &sw->shard_n, &extra) != 2 ||
			    !sw->shard_k || sw->shard_k > sw->shard_n || sw->shard_n > 1000000)
				return cli_error(sweep_cmd, "--shard wants K/N, 1 <= K <= N, not '%s'",
						 optarg);
			break;
		case 'M':
			merge = true;
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
			return 2;
		}
	}

	if (csv && json)
		return cli_usage_error(sweep_cmd, "--csv and --json: choose one");
	if (merge) {
		if (govlist || platlist || qoslist || sw->nr_axes || sw->shard_n || sw->ropts.path)
			return cli_error(sweep_cmd, "--merge takes the parts and -o alone: the sweep's "
					 "options were the shards'");
		return sweep_merge(sw->out_path, argv + optind, argc - optind);
	}
	if (sw->shard_n && sw->ropts.path)
		return cli_error(sweep_cmd, "--shard and --report: a report is of a whole sweep "
				 "(merge the parts, or report one trace)");
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
	rows = (uint64_t)sw->nr_govs * sw->nr_qos;
	for (i = 0; i < sw->nr_axes && rows <= CPUIDLE_LAB_SWEEP_MAX_ROWS; i++)
		rows *= sw->axes[i].n;
	if (rows > CPUIDLE_LAB_SWEEP_MAX_ROWS)
		return cli_error(sweep_cmd, "more than %d runs per trace and platform (governors x "
				 "QoS values x tunable values): split the sweep",
				 CPUIDLE_LAB_SWEEP_MAX_ROWS);
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
	if (sw->shard_n) {
		/* the K-th contiguous run of traces: the parts in order are the sweep's rows */
		unsigned int first = (unsigned int)((uint64_t)(sw->shard_k - 1) * sw->nr_traces /
						    sw->shard_n);
		unsigned int end = (unsigned int)((uint64_t)sw->shard_k * sw->nr_traces /
						  sw->shard_n);

		memmove(sw->traces, sw->traces + first, (end - first) * sizeof(*sw->traces));
		sw->nr_traces = end - first;
	}
	if (!sw->ropts.path && (sw->ropts.cpu || sw->ropts.intervals))
		return cli_usage_error(sweep_cmd, "--report-cpu and --report-intervals go "
				       "with --report");
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

	if (sw->shard_n)
		fprintf(sw->out, "# cpuidle sweep shard %u/%u\n", sw->shard_k, sw->shard_n);
	if (!sw->nr_traces) {	/* a shard of no trace: its header alone */
		if (sw->fmt == FMT_CSV)
			sweep_csv_header(sw);
		return fflush(sw->out) || ferror(sw->out) ?
		       cli_error(sweep_cmd, "%s: %s", sw->out == stdout ? "stdout" : sw->out_path,
				 strerror(errno)) : 0;
	}
	/* each trace parsed once; the machines of every pair tried */
	cli_notes_hold(sw->nr_traces);	/* a note many traces give, said once */
	for (t = 0; t < sw->nr_traces; t++)
		if (trace_load(&sw->traces[t], &budget))
			return 1;
	if (trace_recordings(sw, default_platforms) || plan_blocks(sw, default_platforms))
		return 1;
	cli_notes_flush();	/* the traces' notes before the runs; the runs' at the end */
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

static const struct option sweep_longopts[] = {
	{ "governor", required_argument, NULL, 'g' },
	{ "platform", required_argument, NULL, 'p' },
	{ "qos", required_argument, NULL, 'Q' },
	{ "set", required_argument, NULL, 's' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "no-oracle", no_argument, NULL, 'N' },
	{ "timing", no_argument, NULL, 'T' },
	{ "csv", no_argument, NULL, 'C' },
	{ "json", no_argument, NULL, 'J' },
	{ "output", required_argument, NULL, 'o' },
	{ "shard", required_argument, NULL, 'K' },
	{ "merge", no_argument, NULL, 'M' },
	REPORT_GETOPT_LONG,
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_sweep_opts = {
	.shortopts = "g:p:s:j:o:qh",
	.longopts = sweep_longopts,
};

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
