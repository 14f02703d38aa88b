// SPDX-License-Identifier: MIT
/*
 * kernel_diff.c - kernel in the loop: Linux v6.18's own menu.c and teo.c,
 * compiled from ../shared/reference/kernel-v6.18/ against this project's
 * shim (kshim.h), are fed every select() and reflect() our ports of them
 * make, with the same inputs, and must answer the same and hold the same
 * per-CPU data after every call.
 *
 * The inputs come from two sources:
 *
 * - replays of every trace given on the command line (the shared traces in
 *   the test suite), each on every bundled platform, through the lab's
 *   replay with a hook on the governor's calls (cpuidle_lab_run.on_decision);
 * - random inputs on random state tables: the tick stopped or not,
 *   disabled states, a QoS limit at every exit latency (and 0), sleep
 *   lengths negative, zero, near and far, entries the driver rejects, polls
 *   cut by their time limit, tick wake-ups.
 *
 * One documented deviation is not compared: menu asked for a timer beyond
 * the kernel's arithmetic (src/governors/menu.c's DOC: its 64-bit product
 * wraps and its 32-bit quotient is truncated there; no real system has
 * such a timer, but the lab's "next timer unknown" is infinite).  Such a
 * select() is counted apart, and the kernel's data is then set to ours so
 * that the calls after it are compared again.  Any other difference is a
 * failure; the first few are printed with the call's inputs.
 *
 * Usage: kernel_diff [-n RANDOM_CALLS] [-s SEED] TRACE|DIR... (a directory: its
 * *.perf.txt.xz)
 * Ends with "N passed, N failed"; exit 0 only if nothing differed.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "convert.h"
#include "ivf_source.h"
#include "lab_trace.h"
#include "replay.h"
#include "menu.h"
#include "teo.h"
#include "kshim_api.h"

/*
 * Beyond this sleep length menu's arithmetic is not the kernel's: the
 * kernel's timer_us keeps 32 bits of a quotient that reaches 2^32 us
 * (~71.6 minutes) at a correction factor of unity, and its product wraps
 * further out.  A select() asking for such a timer is the deviation.
 */
#define MENU_DOMAIN_NS	((int64_t)UINT32_MAX * 1000)

#define MAX_REPORTS	5

struct diff {
	const char *what;	/* "menu on laptop, TRACE", for the messages */
	int kgov;		/* the kernel governor */
	bool menu;		/* else teo */
	uint64_t enabled[KSHIM_CPUS / 64];
	uint64_t selects, reflects, deviations, differ;
	int reports;
};

static unsigned int reports_left = 20;

__attribute__((format(printf, 2, 3)))
static void report(struct diff *df, const char *fmt, ...)
{
	va_list ap;

	df->differ++;
	if (df->reports >= MAX_REPORTS || !reports_left)
		return;
	df->reports++;
	reports_left--;
	printf("DIFFER %s: ", df->what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static void menu_to_kernel(const struct menu_device *o, struct kshim_menu_device *k)
{
	memset(k, 0, sizeof(*k));
	k->needs_update = o->needs_update;
	k->tick_wakeup = o->tick_wakeup;
	k->next_timer_ns = o->next_timer_ns;
	k->bucket = o->bucket;
	memcpy(k->correction_factor, o->correction_factor, sizeof(k->correction_factor));
	memcpy(k->intervals, o->intervals, sizeof(k->intervals));
	k->interval_ptr = (int)o->interval_ptr;
}

static void teo_to_kernel(const struct teo_device *o, struct kshim_teo_cpu *k)
{
	int i;

	memset(k, 0, sizeof(*k));
	k->sleep_length_ns = o->sleep_length_ns;
	for (i = 0; i < CPUIDLE_STATE_MAX; i++) {
		k->state_bins[i].intercepts = o->bins[i].intercepts;
		k->state_bins[i].hits = o->bins[i].hits;
	}
	k->total = o->total;
	k->tick_intercepts = o->tick_intercepts;
	k->short_idles = o->short_idles;
	k->artificial_wakeup = o->artificial_wakeup;
}

/* Our data against the kernel's after a call; @call names it. */
static void compare_data(struct diff *df, const struct cpuidle_device *dev, const char *call)
{
	unsigned int cpu = dev->cpu;

	if (df->menu) {
		struct kshim_menu_device ours;
		const struct kshim_menu_device *k = kshim_menu(cpu);

		menu_to_kernel(dev->governor_data, &ours);
		if (!!ours.needs_update != !!k->needs_update ||
		    !!ours.tick_wakeup != !!k->tick_wakeup)
			report(df, "cpu %u after %s: needs_update %d/%d tick_wakeup %d/%d (ours/kernel)",
			       cpu, call, ours.needs_update, k->needs_update, ours.tick_wakeup,
			       k->tick_wakeup);
		else if (ours.next_timer_ns != k->next_timer_ns || ours.bucket != k->bucket)
			report(df, "cpu %u after %s: next_timer_ns %" PRIu64 "/%" PRIu64
			       " bucket %u/%u", cpu, call, ours.next_timer_ns, k->next_timer_ns,
			       ours.bucket, k->bucket);
		else if (memcmp(ours.correction_factor, k->correction_factor,
				sizeof(ours.correction_factor)))
			report(df, "cpu %u after %s: correction factors differ", cpu, call);
		else if (memcmp(ours.intervals, k->intervals, sizeof(ours.intervals)) ||
			 ours.interval_ptr != k->interval_ptr)
			report(df, "cpu %u after %s: the ring of stays differs (ptr %d/%d)", cpu,
			       call, ours.interval_ptr, k->interval_ptr);
		else
			return;
		kshim_menu_set(cpu, &ours);	/* compare what follows afresh */
	} else {
		struct kshim_teo_cpu ours;
		const struct kshim_teo_cpu *k = kshim_teo(cpu);

		teo_to_kernel(dev->governor_data, &ours);
		if (ours.sleep_length_ns != k->sleep_length_ns)
			report(df, "cpu %u after %s: sleep_length_ns %" PRId64 "/%" PRId64, cpu,
			       call, ours.sleep_length_ns, k->sleep_length_ns);
		else if (memcmp(ours.state_bins, k->state_bins, sizeof(ours.state_bins)))
			report(df, "cpu %u after %s: bins differ", cpu, call);
		else if (ours.total != k->total || ours.tick_intercepts != k->tick_intercepts ||
			 ours.short_idles != k->short_idles)
			report(df, "cpu %u after %s: total %u/%u tick_intercepts %u/%u "
			       "short_idles %u/%u", cpu, call, ours.total, k->total,
			       ours.tick_intercepts, k->tick_intercepts, ours.short_idles,
			       k->short_idles);
		else if (ours.artificial_wakeup != k->artificial_wakeup)
			report(df, "cpu %u after %s: artificial_wakeup %d/%d", cpu, call,
			       ours.artificial_wakeup, k->artificial_wakeup);
		else if (dev->poll_time_limit != kshim_poll_time_limit(cpu))
			report(df, "cpu %u after %s: poll_time_limit %d/%d", cpu, call,
			       dev->poll_time_limit, kshim_poll_time_limit(cpu));
		else
			return;
		kshim_teo_set(cpu, &ours);
	}
}

/* The hook on our governor's calls: the kernel's makes the same call. */
static void on_call(void *ctx, const struct cpuidle_device *dev, const struct cpuidle_decision *d)
{
	struct diff *df = ctx;
	unsigned int cpu = dev->cpu;
	struct kshim_input in = {
		.sleep_length_ns = d->sleep_length_ns,
		.delta_tick_ns = d->delta_tick_ns,
		.tick_stopped = d->tick_stopped,
		.got_tick = d->got_tick,
		.latency_req_ns = d->latency_req_ns,
		.tick_nsec = (long)cpuidle_dev_tick_nsec(dev),
	};
	bool stop_tick;
	int i, k;

	if (cpu >= KSHIM_CPUS)
		return;
	if (!(df->enabled[cpu / 64] >> (cpu % 64) & 1)) {
		int64_t exit_ns[CPUIDLE_STATE_MAX], res_ns[CPUIDLE_STATE_MAX];
		bool polling[CPUIDLE_STATE_MAX];

		for (i = 0; i < dev->state_count; i++) {
			exit_ns[i] = dev->states[i].exit_latency_ns;
			res_ns[i] = dev->states[i].target_residency_ns;
			polling[i] = dev->states[i].flags & CPUIDLE_FLAG_POLLING;
		}
		/* the first call is a select, ours made from a fresh enable */
		kshim_set_states(cpu, dev->state_count, exit_ns, res_ns, polling);
		kshim_enable(df->kgov, cpu);
		df->enabled[cpu / 64] |= 1ull << (cpu % 64);
	}
	if (d->reflect) {
		df->reflects++;
		kshim_reflect(df->kgov, cpu, &in, d->state, d->last_residency_ns,
			      d->poll_time_limit);
		compare_data(df, dev, "reflect");
		return;
	}
	df->selects++;
	k = kshim_select(df->kgov, cpu, &in, d->disabled, d->last_residency_ns,
			 d->poll_time_limit, &stop_tick);
	if (df->menu && d->sleep_length_ns > MENU_DOMAIN_NS &&
	    ((const struct menu_device *)dev->governor_data)->next_timer_ns ==
	    (uint64_t)d->sleep_length_ns) {
		struct kshim_menu_device ours;

		df->deviations++;	/* it read a timer the kernel never meets */
		menu_to_kernel(dev->governor_data, &ours);
		kshim_menu_set(cpu, &ours);
		return;
	}
	if (k != d->state || stop_tick != d->stop_tick) {
		char line[512];

		cpuidle_decision_format(d, line, sizeof(line));
		report(df, "%s; the kernel: state=%d stop_tick=%d", line, k, stop_tick);
	}
	compare_data(df, dev, "select");
}

/* the same, from a replay (cpuidle_lab_run.on_decision: the time is not needed) */
static void on_replay_call(void *ctx, int64_t t_ns, const struct cpuidle_device *dev,
			   const struct cpuidle_decision *d)
{
	on_call(ctx, dev, d);
}

static bool diff_result(const struct diff *df)
{
	printf("%-44s %9" PRIu64 " selects %9" PRIu64 " reflects %7" PRIu64
	       " deviations %5" PRIu64 " differ\n", df->what, df->selects, df->reflects,
	       df->deviations, df->differ);
	return df->differ == 0 && df->selects > 0;
}

/* ------------------------------------------------------------ traces */

static const char *const governors[] = { "menu", "teo" };

static int replay_trace(const char *ivf, unsigned int nr_cpus, const char *name,
			unsigned int *passed, unsigned int *failed)
{
	const char *const *plat;
	struct cpuidle_lab_trace *trace;

	if (lab_trace_from_source(ivf_replay_open, (void *)ivf, nr_cpus, NULL, &trace)) {
		printf("kernel_diff: %s: cannot open\n", name);
		return -1;
	}
	for (plat = cpuidle_platform_builtin_names(); *plat; plat++) {
		struct cpuidle_platform platform;
		char err[512];
		size_t g;

		if (cpuidle_platform_load(*plat, &platform, err, sizeof(err))) {
			printf("kernel_diff: platform %s: %s\n", *plat, err);
			cpuidle_lab_trace_close(trace);
			return -1;
		}
		for (g = 0; g < sizeof(governors) / sizeof(governors[0]); g++) {
			char what[256];
			struct diff df = {
				.what = what,
				.kgov = kshim_find(governors[g]),
				.menu = !strcmp(governors[g], "menu"),
			};
			struct cpuidle_lab_run cfg = {
				.platform = &platform,
				.governor = governors[g],
				.trace = trace,
				.qos_us = -1,
				.on_decision = on_replay_call,
				.decision_ctx = &df,
			};
			struct cpuidle_lab_result *res = calloc(1, sizeof(*res));
			int ret;

			if (!res) {
				cpuidle_lab_trace_close(trace);
				return -1;
			}
			snprintf(what, sizeof(what), "%s on %s, %s", governors[g], *plat, name);
			ret = cpuidle_lab_replay(&cfg, res);
			free(res);
			if (ret == -ERANGE) {	/* more CPUs than the platform has */
				continue;
			}
			if (ret) {
				printf("kernel_diff: %s: replay failed: %s\n", what, strerror(-ret));
				(*failed)++;
				continue;
			}
			if (diff_result(&df))
				(*passed)++;
			else
				(*failed)++;
		}
	}
	cpuidle_lab_trace_close(trace);
	return 0;
}

/* ------------------------------------------------------------ random inputs */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from the seed printed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}

static int64_t rnd_in(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* A sleep length from every region a governor treats apart. */
static int64_t rnd_sleep(void)
{
	switch (rnd() % 20) {
	case 0:
		return -rnd_in(1, 2000000);		/* a timer already due */
	case 1:
		return 0;
	case 2:
		return CPUIDLE_TIME_INFINITE;		/* none: beyond menu's domain */
	case 3:
		return rnd_in(MENU_DOMAIN_NS, INT64_MAX / 2);
	case 4: case 5: case 6:
		return rnd_in(1, 50000);		/* below 50 us */
	case 7: case 8: case 9: case 10:
		return rnd_in(50000, 4000000);		/* within a tick */
	case 11: case 12: case 13:
		return rnd_in(4000000, 100000000);
	default:
		return rnd_in(1, 20000000000LL);	/* up to 20 s */
	}
}

/* A random state table: POLL first or not, exit latencies and residencies rising. */
static int rnd_states(struct fx_state_desc *st, char names[][8])
{
	int n = (int)rnd_in(1, 6), i;
	unsigned int exit_us = 0, res_us = 0;
	bool poll = rnd() % 4 != 0;

	for (i = 0; i < n; i++) {
		snprintf(names[i], 8, "S%d", i);
		st[i].name = names[i];
		st[i].power_mw = 1000 / (i + 1);
		st[i].flags = CPUIDLE_FLAG_TIME_VALID;
		if (i == 0 && poll) {
			st[i].flags |= CPUIDLE_FLAG_POLLING;
			st[i].exit_us = 0;
			st[i].residency_us = 0;
			continue;
		}
		exit_us += (unsigned int)rnd_in(i ? 1 : 0, 300);
		res_us += (unsigned int)rnd_in(1, rnd() % 3 ? 600 : 30000);
		if (res_us < exit_us)
			res_us = exit_us;
		st[i].exit_us = exit_us;
		st[i].residency_us = res_us;
	}
	return n;
}

static void random_run(const char *gov, unsigned int calls, unsigned int *passed,
		       unsigned int *failed)
{
	struct fx_state_desc st[6];
	char names[6][8], what[128];
	struct cpuidle_governor_tracer tracer;
	struct diff df = {
		.what = what,
		.kgov = kshim_find(gov),
		.menu = !strcmp(gov, "menu"),
	};
	struct fixture *fx = calloc(1, sizeof(*fx));
	unsigned int done = 0, tables = 0;

	snprintf(what, sizeof(what), "%s, random inputs (%u calls)", gov, calls);
	while (fx && done < calls) {
		int n = rnd_states(st, names), i, j;
		bool qos = false;

		fx_init(fx, st, n, 1, 0);
		tables++;
		memset(df.enabled, 0, sizeof(df.enabled));
		assert_int_equal(cpuidle_governor_tracer_init(&tracer,
			cpuidle_find_governor(fx->sys, gov), on_call, &df), 0);
		assert_int_equal(cpuidle_register_governor(fx->sys, &tracer.gov), 0);
		assert_int_equal(cpuidle_switch_governor(fx->sys, tracer.gov.name), 0);
		for (j = 0; j < 5000 && done < calls; j++, done++) {
			int64_t tick = cpuidle_tick_nsec(fx->sys);
			bool running = rnd() % 10 < 7;
			int64_t sleep = rnd_sleep(), delta = sleep, stay;
			struct cpuidle_idle_ctx ctx = { 0 };

			if (rnd() % 50 == 0) {	/* a QoS limit at an exit latency, 0, or none */
				int k = (int)rnd_in(0, n);
				int32_t us = k == n ? 0 : (int32_t)st[k].exit_us + (int32_t)rnd_in(-1, 1);

				if (qos)
					pm_qos_remove_requirement(fx->sys, PM_QOS_CPU_DMA_LATENCY, "kd");
				qos = rnd() % 4 != 0 && us >= 0;
				if (qos)
					assert_int_equal(pm_qos_add_requirement(fx->sys,
						PM_QOS_CPU_DMA_LATENCY, "kd", us), 0);
			}
			if (rnd() % 40 == 0)	/* a state disabled or enabled again */
				cpuidle_disable_state(&fx->dev[0], (int)rnd_in(0, n - 1),
						      CPUIDLE_STATE_DISABLED_BY_USER, rnd() % 2);
			if (running && (delta < 0 || delta > tick))
				delta = delta < 0 ? delta : rnd_in(1, tick);
			switch (rnd() % 4) {	/* the stay: to the timer, short of it, or past */
			case 0:
				stay = sleep > 0 && sleep < 100000000 ? sleep : rnd_in(0, 100000);
				break;
			case 1:
				stay = rnd_in(0, 2000);
				break;
			default:
				stay = rnd_in(0, sleep > 0 && sleep < 100000000 ? sleep : 50000000);
				break;
			}
			fx->reject[0] = rnd() % 50 == 0 ? (int)rnd_in(0, n - 1) : -1;
			fx->stay_ns[0] = stay;
			ctx.sleep_length_ns = sleep;
			ctx.delta_tick_ns = delta;
			ctx.tick_stopped = !running;
			ctx.got_tick = running && rnd() % 8 == 0;
			i = cpuidle_idle_call(&fx->dev[0], &ctx);
			(void)i;
		}
		if (qos)
			pm_qos_remove_requirement(fx->sys, PM_QOS_CPU_DMA_LATENCY, "kd");
		fx_fini(fx);
	}
	free(fx);
	snprintf(what, sizeof(what), "%s, random inputs (%u tables)", gov, tables);
	if (diff_result(&df))
		(*passed)++;
	else
		(*failed)++;
}

static int is_trace(const struct dirent *e)
{
	size_t n = strlen(e->d_name), k = strlen(".perf.txt.xz");

	return n > k && !strcmp(e->d_name + n - k, ".perf.txt.xz");
}

static void diff_trace(const char *path, const char *dir, unsigned int *passed,
		       unsigned int *failed)
{
	struct iv_stats *st = calloc(1, sizeof(*st));
	const char *base = strrchr(path, '/');
	char ivf[64], err[512];

	snprintf(ivf, sizeof(ivf), "%s/t.ivf", dir);
	if (!st || lab_convert(path, ivf, st, NULL, NULL, err, sizeof(err))) {
		printf("kernel_diff: %s\n", st ? err : "out of memory");
		(*failed)++;
		free(st);
		return;
	}
	replay_trace(ivf, st->nr_cpus, base ? base + 1 : path, passed, failed);
	unlink(ivf);
	free(st);
}

int main(int argc, char **argv)
{
	unsigned int passed = 0, failed = 0, calls = 1000000;
	uint64_t seed = 1;
	char dir[] = "/tmp/kernel-diff-XXXXXX";
	int c, i;

	while ((c = getopt(argc, argv, "n:s:")) != -1) {
		switch (c) {
		case 'n':
			calls = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: kernel_diff [-n CALLS] [-s SEED] TRACE...\n");
			return 2;
		}
	}
	if (kshim_init() || kshim_find("menu") < 0 || kshim_find("teo") < 0) {
		printf("kernel_diff: the kernel's governors did not register\n");
		return 1;
	}
	if (kshim_menu_size() != sizeof(struct kshim_menu_device) ||
	    kshim_teo_size() != sizeof(struct kshim_teo_cpu)) {
		printf("kernel_diff: the kernel's per-CPU data is not laid out as kshim_api.h "
		       "says (menu %zu/%zu, teo %zu/%zu bytes)\n", kshim_menu_size(),
		       sizeof(struct kshim_menu_device), kshim_teo_size(),
		       sizeof(struct kshim_teo_cpu));
		return 1;
	}
	rng_state = seed * 0x9E3779B97F4A7C15ull | 1;
	printf("kernel_diff: seed %" PRIu64 ", %u random calls per governor\n", seed, calls);
	random_run("menu", calls, &passed, &failed);
	random_run("teo", calls, &passed, &failed);

	if (optind < argc && !mkdtemp(dir)) {
		printf("kernel_diff: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (i = optind; i < argc; i++) {
		struct dirent **names;
		int n, k;

		n = scandir(argv[i], &names, is_trace, alphasort);
		if (n < 0) {	/* a file */
			diff_trace(argv[i], dir, &passed, &failed);
			continue;
		}
		for (k = 0; k < n; k++) {
			char path[4096];

			snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
			diff_trace(path, dir, &passed, &failed);
			free(names[k]);
		}
		free(names);
	}
	if (optind < argc)
		rmdir(dir);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
