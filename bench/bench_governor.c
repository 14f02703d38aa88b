// SPDX-License-Identifier: MIT
/*
 * bench_governor.c - what a governor's select() + reflect() cost per idle
 * entry, every built-in governor in the same benchmark, so that they can be
 * compared (issue #4).
 */

/**
 * DOC: the simulated CPU
 *
 * One CPU of a platform (the 4-state table bench_idle uses, "bench4", and
 * the bundled laptop and haltpoll-vm by default), its driver the table
 * driver, driven through the real idle path (cpuidle_idle_call()) by an
 * idle loop like the lab's replay: each stay of the pattern (bench/
 * patterns.h: "mixed" or "nginx") is one idle period, with its next timer
 * and 2-20 us of running before it; the polling state stops at its time
 * limit (setting dev->poll_time_limit), a tick the governor kept wakes the
 * CPU at the next tick boundary (got_tick), and the loop then calls the
 * governor again with the time left, as the kernel's idle loop does.  So
 * each governor meets the inputs it would meet in the kernel and goes
 * down the paths it would really take.  enter() only advances a fake
 * clock.
 */

/**
 * DOC: measuring select() + reflect() alone
 *
 * A timestamp around each call would cost more than the calls: on the
 * development VM clock_gettime() takes ~24 ns, rdtscp ~20 ns, and a bare
 * rdtsc (~10 ns) is not ordered with the instructions around it, while
 * ladder's select() + reflect() are 55-80 instructions, a few ns.  So the
 * cost is a difference of whole idle entries instead: each governor G is
 * paired with a *replay baseline*, a second identical CPU whose governor
 * answers from a record of G's own choices (the state, the tick verdict
 * and the polling window of each entry of the same round) and has no
 * reflect().  Both CPUs then make exactly the same idle entries: the same
 * states entered, the same poll cut-offs and tick wake-ups, the same
 * accounting, the same branches in the core and the loop (checked after
 * every round).  The difference of the two is what G's select() and
 * reflect() cost, the calls included, less the baseline's select() (ten
 * instructions, < 1 ns).  A baseline that always returned one fixed state
 * would instead change the core's work (another state's accounting, no
 * poll cut-offs, no tick wake-ups) and charge or credit that to the
 * governor.  A round alternates G and its baseline every 65536 entries
 * (G's chunk, then the same chunk replayed), so that the host's slower
 * changes of speed hit both alike; the pairs are interleaved round by
 * round.  Reported per governor: the median of the rounds' differences;
 * "min", the fastest G round less the fastest baseline round; the median's
 * ratio to menu's on the same platform and pattern.  Time is the thread's
 * CPU time (CLOCK_THREAD_CPUTIME_ID, read once a chunk), so the periods the
 * host's other work preempts the benchmark are not counted; --wall uses
 * CLOCK_MONOTONIC as bench_idle does.  A busy host still slows every
 * instruction alike (shared caches, the sibling thread), so the ratios
 * move much less than the ns.
 *
 * --probe is for callgrind: each governor is wrapped in probe_select() and
 * probe_reflect(), which forward to it and count their calls, so that
 * callgrind's inclusive cost of each, less its own, is the governor's
 * instructions (bench/run-governors --callgrind does the arithmetic).
 *
 * Usage: bench_governor [-n ENTRIES] [-r ROUNDS] [-g GOV,...] [-p PATTERN,...]
 *                       [-P PLATFORM,...] [--stays FILE] [--json] [--wall]
 *                       [--probe] [--list]
 *
 * -P takes "bench4" or any platform cpuidle_platform_load() accepts (a
 * bundled name or a file); --list prints the "PLATFORM PATTERN GOVERNOR"
 * triples a run covers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libcpuidle.h"
#include "patterns.h"

#define PATTERN_LEN	BENCH_PATTERN_LEN
#define MAX_RUNS	256
#define MAX_PLATFORMS	16
#define CHUNK		65536	/* entries a governor and its baseline alternate by */

/* bench_idle's four states, as a platform file. */
static const char bench4_text[] =
	"platform bench4\n"
	"desc \"bench_idle's four states\"\n"
	"tick_hz 250\n"
	"state POLL latency_us=0 residency_us=0 flags=polling,time-valid\n"
	"state C1 latency_us=2 residency_us=2 flags=time-valid\n"
	"state C1E latency_us=10 residency_us=20 flags=time-valid\n"
	"state C6 latency_us=85 residency_us=200 flags=time-valid\n";

static const char *const default_platforms = "bench4,laptop,haltpoll-vm";

struct pattern {
	const char *name;
	int64_t stay[PATTERN_LEN];	/* idle period, ns */
	int64_t timer[PATTERN_LEN];	/* its start to the next timer, ns */
	int64_t busy[PATTERN_LEN];	/* running before it, ns */
};

/* What one idle entry of the governor did: all the baseline replays. */
struct rec {
	uint32_t poll_limit_ns;
	int16_t index;
	uint8_t stop_tick;
};

/* The simulated CPU's side of one device. */
struct sim {
	const struct pattern *pat;
	struct cpuidle_idle_ctx *ctx;
	struct rec *rec;		/* shared by a governor and its baseline */
	long k;				/* entry number in the chunk: rec[k] */
	uint64_t clock;
	uint64_t next_tick;
	uint64_t tick_ns;
	int64_t remaining;		/* of the current idle period */
	int64_t timer_left;
	int64_t consumed;		/* by the last enter() */
	unsigned int pos;
	bool tick_stopped;
	bool bad_limit;
	uint64_t start;			/* of the round */
	uint64_t elapsed;		/* simulated time of the round so far */
	const struct cpuidle_governor *inner;	/* --probe */
};

struct machine {
	struct cpuidle_system *sys;
	struct cpuidle_governor probe;	/* --probe: the governor, wrapped */
	struct cpuidle_table_driver td;
	struct cpuidle_device dev;
	struct sim sim;
};

struct run {
	const char *gov;
	const char *platform;
	const struct pattern *pat;
	struct machine m[2];		/* 0: the governor, 1: its replay baseline */
	double *t[2];			/* ns per entry, per round */
	double *d;			/* t[0] - t[1], per round */
	double *d_raw;			/* the same, in round order */
	double median, min, entry, base;
};

static struct rec *rec_buf;

/* the thread's CPU time: a host busy elsewhere preempts it, uncounted */
static clockid_t bench_clockid = CLOCK_THREAD_CPUTIME_ID;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(bench_clockid, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* @name is one of the comma-separated @list (NULL: all). */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	if (!list)
		return true;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, n))
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

static uint64_t sim_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)ctx;
	return ((struct sim *)dev->embed_data)->clock;
}

/* Time to the next tick boundary (ticks fall on multiples of TICK_NSEC). */
static int64_t time_to_tick(struct sim *s)
{
	if (s->clock >= s->next_tick || s->clock + s->tick_ns < s->next_tick)
		s->next_tick = (s->clock / s->tick_ns + 1) * s->tick_ns;
	return (int64_t)(s->next_tick - s->clock);
}

/* The table driver's idle callback: let simulated time pass, as the replay does. */
static int sim_idle(struct cpuidle_device *dev, struct cpuidle_state *state, int index,
		    void *ctx)
{
	struct sim *s = dev->embed_data;
	struct rec *r = &s->rec[s->k];
	int64_t stay = s->remaining;
	bool got_tick = false;

	(void)ctx;
	if (state->flags & CPUIDLE_FLAG_POLLING) {
		int64_t limit = (int64_t)cpuidle_poll_time(dev);

		if (stay > limit) {
			stay = limit;
			dev->poll_time_limit = true;
		}
	}
	if (!s->ctx->stop_tick) {
		int64_t tick = time_to_tick(s);

		if (tick < stay) {
			stay = tick;
			got_tick = true;
		}
	}
	s->ctx->got_tick = got_tick;
	s->consumed = stay;
	s->clock += (uint64_t)(stay + state->exit_latency_ns);

	/* the same record, written by the governor's CPU and its baseline's alike */
	if (dev->poll_limit_ns > UINT32_MAX)
		s->bad_limit = true;
	r->poll_limit_ns = (uint32_t)dev->poll_limit_ns;
	r->index = (int16_t)index;
	r->stop_tick = s->ctx->stop_tick;
	return 0;
}

/* The replay baseline: the governor's answers, from the record of its round. */
static int replay_select(struct cpuidle_device *dev, bool *stop_tick)
{
	const struct sim *s = dev->embed_data;
	const struct rec *r = &s->rec[s->k];

	dev->poll_limit_ns = r->poll_limit_ns;
	*stop_tick = r->stop_tick;
	return r->index;
}

static const struct cpuidle_governor replay_governor = {
	.name = "replay",
	.select = replay_select,
};

/* --probe: forwarders whose callgrind cost, less their own, is the governor's. */
static unsigned long long probe_selects, probe_reflects;

static const struct cpuidle_governor *probe_inner(const struct cpuidle_device *dev)
{
	return ((const struct sim *)dev->embed_data)->inner;
}

static int probe_enable(struct cpuidle_device *dev)
{
	const struct cpuidle_governor *g = probe_inner(dev);

	return g->enable ? g->enable(dev) : 0;
}

static void probe_disable(struct cpuidle_device *dev)
{
	const struct cpuidle_governor *g = probe_inner(dev);

	if (g->disable)
		g->disable(dev);
}

/* noinline, and the count after the call keeps it from being a tail call */
__attribute__((noinline)) static int probe_select(struct cpuidle_device *dev, bool *stop_tick)
{
	int ret = probe_inner(dev)->select(dev, stop_tick);

	probe_selects++;
	return ret;
}

__attribute__((noinline)) static void probe_reflect(struct cpuidle_device *dev, int index)
{
	const struct cpuidle_governor *g = probe_inner(dev);

	if (g->reflect)
		g->reflect(dev, index);
	probe_reflects++;
}

static void probe_init(struct machine *m, const struct cpuidle_governor *inner)
{
	m->sim.inner = inner;
	strcpy(m->probe.name, "probe");
	m->probe.enable = probe_enable;
	m->probe.disable = probe_disable;
	m->probe.select = probe_select;
	m->probe.reflect = probe_reflect;
	m->probe.governor_data_size = inner->governor_data_size;
}

/*
 * @gov: a built-in governor's name, run as itself; or @own, registered
 * alone (the baseline, or the probe).
 */
static int machine_init(struct machine *m, const struct cpuidle_platform *platform,
			const struct pattern *pat, const char *gov,
			const struct cpuidle_governor *own)
{
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = { .clock_ns = sim_clock },
		.tick_hz = platform->tick_hz,
		.governor = own ? NULL : gov,
		.flags = own ? CPUIDLE_SYS_NO_BUILTIN_GOVERNORS : 0,
	};
	const struct cpuidle_governor *cur;
	int ret;

	ret = cpuidle_system_create(&opts, &m->sys);
	if (ret)
		return ret;
	if (own)
		ret = cpuidle_register_governor(m->sys, own);
	if (!ret)
		ret = cpuidle_table_driver_init(&m->td, platform, sim_idle, NULL);
	if (!ret)
		ret = cpuidle_register_driver(m->sys, &m->td.drv);
	if (!ret)
		ret = cpuidle_table_device_init(&m->td, &m->dev, 0);
	if (ret)
		return ret;
	m->sim.pat = pat;
	m->sim.rec = rec_buf;
	m->sim.tick_ns = (uint64_t)cpuidle_tick_nsec(m->sys);
	m->dev.embed_data = &m->sim;
	ret = cpuidle_register_device(m->sys, &m->dev);
	if (ret)
		return ret;
	cur = cpuidle_current_governor(m->sys);
	if (!cur || strcmp(cur->name, own ? own->name : gov))
		return -ENOENT;
	return 0;
}

/* Every round starts alike: at the pattern's start, in the same tick phase. */
static void sim_reset(struct sim *s)
{
	s->clock = (s->clock / s->tick_ns + 1) * s->tick_ns;
	s->start = s->clock;
	s->next_tick = 0;
	s->remaining = 0;
	s->pos = 0;
	s->tick_stopped = false;
}

/* The next @n idle entries of the simulated CPU, recorded at rec[0..n-1]. */
static int run_entries(struct machine *m, long n)
{
	struct cpuidle_idle_ctx ctx = { 0 };
	struct sim *s = &m->sim;
	const struct pattern *p = s->pat;
	bool tick_stopped = s->tick_stopped;
	long k;

	s->ctx = &ctx;
	for (k = 0; k < n; k++) {
		int64_t tick;

		if (s->remaining <= 0) {	/* the next idle period */
			s->clock += (uint64_t)p->busy[s->pos];
			s->remaining = p->stay[s->pos];
			s->timer_left = p->timer[s->pos];
			s->pos = (s->pos + 1) & (PATTERN_LEN - 1);
			tick_stopped = false;	/* it ran: the tick runs */
		}
		tick = time_to_tick(s);
		ctx.sleep_length_ns = s->timer_left;
		ctx.delta_tick_ns = s->timer_left < tick ? s->timer_left : tick;
		ctx.tick_stopped = tick_stopped;
		s->k = k;
		if (cpuidle_idle_call(&m->dev, &ctx) < 0)
			return -1;
		s->remaining -= s->consumed;
		s->timer_left -= s->consumed;
		tick_stopped = ctx.stop_tick;
	}
	s->tick_stopped = tick_stopped;
	s->elapsed = s->clock - s->start;
	return 0;
}

/*
 * One round of @n idle entries of the governor's CPU (@r->m[0]) and, if it
 * has one, of its baseline's (@r->m[1]), in chunks of CHUNK entries: each
 * chunk of the governor, then the same chunk replayed by the baseline, so
 * that the host's slow changes of speed hit both alike.  @ns: ns per entry
 * of each.
 */
static int run_round(struct run *r, long n, double ns[2])
{
	uint64_t total[2] = { 0, 0 }, t0, t1, t2;
	bool pair = r->m[1].sys != NULL;
	long done, c;

	sim_reset(&r->m[0].sim);
	if (pair)
		sim_reset(&r->m[1].sim);
	for (done = 0; done < n; done += c) {
		c = n - done < CHUNK ? n - done : CHUNK;
		t0 = now_ns();
		if (run_entries(&r->m[0], c))
			return -1;
		t1 = now_ns();
		if (pair && run_entries(&r->m[1], c))
			return -1;
		t2 = now_ns();
		total[0] += t1 - t0;
		total[1] += t2 - t1;
	}
	ns[0] = (double)total[0] / (double)n;
	ns[1] = (double)total[1] / (double)n;
	return 0;
}

/* The baseline made exactly the governor's entries. */
static bool same_entries(const struct run *r)
{
	const struct machine *a = &r->m[0], *b = &r->m[1];
	int i;

	if (a->sim.elapsed != b->sim.elapsed || a->sim.pos != b->sim.pos ||
	    a->sim.remaining != b->sim.remaining || a->sim.bad_limit || b->sim.bad_limit)
		return false;
	for (i = 0; i < a->dev.state_count; i++)
		if (a->dev.states_usage[i].usage != b->dev.states_usage[i].usage ||
		    a->dev.states_usage[i].time_ns != b->dev.states_usage[i].time_ns ||
		    a->dev.states_usage[i].above != b->dev.states_usage[i].above ||
		    a->dev.states_usage[i].below != b->dev.states_usage[i].below)
			return false;
	return true;
}

static int load_platform(const char *spec, struct cpuidle_platform *out)
{
	char err[512];
	int ret;

	if (!strcmp(spec, "bench4"))
		ret = cpuidle_platform_parse(bench4_text, sizeof(bench4_text) - 1, "bench4", out,
					     err, sizeof(err));
	else
		ret = cpuidle_platform_load(spec, out, err, sizeof(err));
	if (ret)
		fprintf(stderr, "bench_governor: %s\n", err);
	return ret;
}

static int fill(struct pattern *p, const char *name, const char *file)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int i;

	p->name = name;
	if (bench_fill_pattern(file, p->stay, p->timer))
		return -1;
	for (i = 0; i < PATTERN_LEN; i++)
		p->busy[i] = 2000 + (int64_t)(bench_xorshift(&x) >> 8) % 18000;	/* 2-20 us */
	return 0;
}

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [-n ENTRIES] [-r ROUNDS] [-g GOV,...] [-p mixed,nginx]"
		" [-P PLATFORM,...] [--stays FILE] [--json] [--wall] [--probe] [--list]\n", argv0);
}

static void print_results(struct run **runs, int nr, long n, int rounds, bool json)
{
	int i, j;

	if (json)
		printf("{\"entries_per_round\": %ld, \"rounds\": %d, \"results\": [", n, rounds);
	else
		printf("%-12s %-7s %-9s %9s %8s %7s %9s %9s\n", "platform", "pattern", "governor",
		       "median", "min", "x menu", "entry", "baseline");
	for (i = 0; i < nr; i++) {
		const struct run *r = runs[i], *menu = NULL;
		const struct cpuidle_device *dev = &r->m[0].dev;
		double ratio = 0;

		for (j = 0; j < nr; j++)
			if (!strcmp(runs[j]->gov, "menu") && runs[j]->pat == r->pat &&
			    !strcmp(runs[j]->platform, r->platform))
				menu = runs[j];
		if (menu && menu->median > 0)
			ratio = r->median / menu->median;
		else
			menu = NULL;	/* no ratio */
		if (json) {
			printf("%s{\"platform\": \"%s\", \"pattern\": \"%s\", \"governor\": \"%s\", "
			       "\"median_ns\": %.2f, \"min_ns\": %.2f, ", i ? ", " : "",
			       r->platform, r->pat->name, r->gov, r->median, r->min);
			if (menu)
				printf("\"ratio_to_menu\": %.3f, ", ratio);
			else
				printf("\"ratio_to_menu\": null, ");
			printf("\"entry_median_ns\": %.2f, \"baseline_median_ns\": %.2f, "
			       "\"rounds_ns\": [", r->entry, r->base);
			for (j = 0; j < rounds; j++)
				printf("%s%.2f", j ? ", " : "", r->d_raw[j]);
			printf("], \"usage\": {");
			for (j = 0; j < dev->state_count; j++)
				printf("%s\"%s\": %llu", j ? ", " : "", dev->states[j].name,
				       dev->states_usage[j].usage);
			printf("}}");
		} else {
			char rs[16] = "-";

			if (menu)
				snprintf(rs, sizeof(rs), "%.2f", ratio);
			printf("%-12s %-7s %-9s %9.2f %8.2f %7s %9.2f %9.2f\n", r->platform,
			       r->pat->name, r->gov, r->median, r->min, rs, r->entry, r->base);
		}
	}
	if (json)
		printf("]}\n");
	else
		printf("(ns per idle entry, %d rounds of %ld entries: median and min of select()"
		       " + reflect(), = entry - baseline;\n x menu: median over menu's on the same"
		       " platform and pattern; entry, baseline: medians of the whole entry)\n",
		       rounds, n);
}

int main(int argc, char **argv)
{
	static struct pattern patterns[2];
	static struct cpuidle_platform platforms[MAX_PLATFORMS];
	const struct cpuidle_governor *const *g;
	const char *stays = SRCDIR "/bench/patterns/nginx-cpu0.txt";
	const char *only_gov = NULL, *only_pattern = NULL, *platform_list = default_platforms;
	char plist[1024], *save = NULL, *tok;
	const char *platform_names[MAX_PLATFORMS];
	struct run **runs;
	long n = 1000000, warm;
	double ns[2];
	int rounds = 11, nr = 0, np = 0, i, k, p;
	bool json = false, probe = false, list = false;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc) {
			n = strtol(argv[++i], NULL, 10);
		} else if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			rounds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-g") && i + 1 < argc) {
			only_gov = argv[++i];
		} else if (!strcmp(argv[i], "-p") && i + 1 < argc) {
			only_pattern = argv[++i];
		} else if (!strcmp(argv[i], "-P") && i + 1 < argc) {
			platform_list = argv[++i];
		} else if (!strcmp(argv[i], "--stays") && i + 1 < argc) {
			stays = argv[++i];
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--wall")) {
			bench_clockid = CLOCK_MONOTONIC;
		} else if (!strcmp(argv[i], "--probe")) {
			probe = true;
		} else if (!strcmp(argv[i], "--list")) {
			list = true;
		} else {
			usage(argv[0]);
			return 2;
		}
	}
	if (n < 1000 || rounds < 1 || rounds > 1000) {
		fprintf(stderr, "bench_governor: -n must be >= 1000 and -r in 1..1000\n");
		return 2;
	}
	if (strlen(platform_list) >= sizeof(plist)) {
		fprintf(stderr, "bench_governor: -P: too long\n");
		return 2;
	}
	strcpy(plist, platform_list);
	for (tok = strtok_r(plist, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (np == MAX_PLATFORMS) {
			fprintf(stderr, "bench_governor: at most %d platforms\n", MAX_PLATFORMS);
			return 2;
		}
		if (load_platform(tok, &platforms[np]))
			return 1;
		platform_names[np++] = tok;
	}
	if (fill(&patterns[0], "mixed", NULL) || fill(&patterns[1], "nginx", stays)) {
		fprintf(stderr, "bench_governor: cannot read stays from %s\n", stays);
		return 1;
	}
	if (list) {	/* what a full run covers, one "platform pattern governor" a line */
		for (p = 0; p < np; p++)
			for (k = 0; k < 2; k++)
				for (g = cpuidle_builtin_governors(); *g; g++)
					if (in_list(only_gov, (*g)->name) &&
					    in_list(only_pattern, patterns[k].name))
						printf("%s %s %s\n", platform_names[p],
						       patterns[k].name, (*g)->name);
		return 0;
	}

	warm = n / 10;
	rec_buf = calloc(CHUNK, sizeof(*rec_buf));
	runs = calloc(MAX_RUNS, sizeof(*runs));
	if (!rec_buf || !runs)
		return perror("bench_governor"), 1;
	for (p = 0; p < np; p++) {
		for (k = 0; k < 2; k++) {
			for (g = cpuidle_builtin_governors(); *g; g++) {
				struct run *r;
				int ret;

				if (!in_list(only_gov, (*g)->name) ||
				    !in_list(only_pattern, patterns[k].name))
					continue;
				if (nr == MAX_RUNS) {
					fprintf(stderr, "bench_governor: too many runs\n");
					return 2;
				}
				r = runs[nr] = calloc(1, sizeof(*r));
				if (!r)
					return perror("bench_governor"), 1;
				r->gov = (*g)->name;
				r->platform = platform_names[p];
				r->pat = &patterns[k];
				r->t[0] = calloc((size_t)rounds, sizeof(double));
				r->t[1] = calloc((size_t)rounds, sizeof(double));
				r->d = calloc((size_t)rounds, sizeof(double));
				r->d_raw = calloc((size_t)rounds, sizeof(double));
				if (!r->t[0] || !r->t[1] || !r->d || !r->d_raw)
					return perror("bench_governor"), 1;
				if (probe) {
					probe_init(&r->m[0], *g);
					ret = machine_init(&r->m[0], &platforms[p], r->pat, NULL,
							   &r->m[0].probe);
				} else {
					ret = machine_init(&r->m[0], &platforms[p], r->pat, r->gov, NULL);
					if (!ret)
						ret = machine_init(&r->m[1], &platforms[p], r->pat, NULL,
								   &replay_governor);
				}
				if (ret) {
					fprintf(stderr, "bench_governor: cannot set up %s on %s, %s: %s\n",
						r->gov, r->platform, r->pat->name, strerror(-ret));
					return 1;
				}
				nr++;
			}
		}
	}
	if (!nr) {
		fprintf(stderr, "bench_governor: no platform/pattern/governor matches\n");
		return 2;
	}

	if (probe) {
		/*
		 * One run at a time: the probe counts are per process, so
		 * bench/run-governors --callgrind runs one per process.
		 */
		for (i = 0; i < nr; i++) {
			struct run *r = runs[i];

			probe_selects = probe_reflects = 0;
			if (run_round(r, warm, ns) < 0)
				return 1;
			for (k = 0; k < rounds; k++)
				if (run_round(r, n, ns) < 0)
					return 1;
			printf("probe %s %s %s selects %llu reflects %llu\n", r->platform,
			       r->pat->name, r->gov, probe_selects, probe_reflects);
			cpuidle_system_destroy(r->m[0].sys);
		}
		return 0;
	}

	for (i = 0; i < nr; i++) {	/* warm up */
		if (run_round(runs[i], warm, ns) < 0 || !same_entries(runs[i])) {
			fprintf(stderr, "bench_governor: warm-up of %s failed\n", runs[i]->gov);
			return 1;
		}
	}
	for (k = 0; k < rounds; k++) {
		for (i = 0; i < nr; i++) {
			struct run *r = runs[i];

			if (run_round(r, n, ns) < 0 || !same_entries(r)) {
				fprintf(stderr, "bench_governor: %s on %s, %s: the baseline did not"
					" replay the governor's entries\n", r->gov, r->platform,
					r->pat->name);
				return 1;
			}
			r->t[0][k] = ns[0];
			r->t[1][k] = ns[1];
			r->d[k] = r->d_raw[k] = ns[0] - ns[1];
		}
	}
	for (i = 0; i < nr; i++) {
		struct run *r = runs[i];

		qsort(r->t[0], (size_t)rounds, sizeof(double), cmp_double);
		qsort(r->t[1], (size_t)rounds, sizeof(double), cmp_double);
		qsort(r->d, (size_t)rounds, sizeof(double), cmp_double);
		r->median = r->d[rounds / 2];
		r->min = r->t[0][0] - r->t[1][0];
		r->entry = r->t[0][rounds / 2];
		r->base = r->t[1][rounds / 2];
	}
	print_results(runs, nr, n, rounds, json);
	for (i = 0; i < nr; i++) {
		cpuidle_system_destroy(runs[i]->m[0].sys);
		cpuidle_system_destroy(runs[i]->m[1].sys);
		free(runs[i]->t[0]);
		free(runs[i]->t[1]);
		free(runs[i]->d);
		free(runs[i]->d_raw);
		free(runs[i]);
	}
	free(runs);
	free(rec_buf);
	return 0;
}
