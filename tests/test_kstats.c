// SPDX-License-Identifier: MIT
/*
 * test_kstats.c - what cpuidle stats tallies beside the C-states, on tiny
 * traces made by hand (ftrace text): what ended each idle period
 * (lab/ingest/kwake.c, idlestat's rule) and the time at each frequency
 * while running (lab/ingest/kfreq.c, idlestat's rule).  Every expected
 * figure is worked out by hand from the lines, in the comments beside them.
 */
#include <errno.h>
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dirent.h>

#include <cmocka.h>

#include "kstats.h"
#include "trace.h"

#define TRACES		SRCDIR "/../shared/traces"
#define FIXTURES	SRCDIR "/tests/fixtures"
#define PERF_SEEDS	SRCDIR "/fuzz/corpus/trace_perfdata"
#define TRACECMD_SEEDS	SRCDIR "/fuzz/corpus/trace_tracecmd"

static char tmpdir[64];

/* ftrace text lines: "<idle>-0 [CPU] d..1. TS: EVENT: PAYLOAD" */
#define L(cpu, ts, ev) "          <idle>-0     [00" #cpu "] d..1. " ts ": " ev "\n"
#define ENTER(cpu, ts, s)	L(cpu, ts, "cpu_idle: state=" #s " cpu_id=" #cpu)
#define EXIT(cpu, ts)		L(cpu, ts, "cpu_idle: state=4294967295 cpu_id=" #cpu)

/* write @text to a file of tmpdir and tally it with @p (may be NULL) */
static void tally(const char *name, const char *text, const struct cpuidle_platform *p,
		  struct kstats *ks)
{
	char path[128], err[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	if (kstats_from_trace(path, p, ks, NULL, err, sizeof(err)))
		fail_msg("%s", err);
	unlink(path);
}

/* C0 0 us, C1 100 us, C2 1000 us of target residency */
static void platform(struct cpuidle_platform *p)
{
	static const int64_t residency_us[] = { 0, 100, 1000 };

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "hand");
	p->state_count = 3;
	for (int s = 0; s < 3; s++) {
		snprintf(p->states[s].name, sizeof(p->states[s].name), "C%d", s);
		p->states[s].target_residency_ns = residency_us[s] * 1000;
		p->states[s].exit_latency_ns = residency_us[s] * 100;
	}
	p->nr_clusters = 1;
	snprintf(p->clusters[0].name, sizeof(p->clusters[0].name), "all");
}

/* CPU @cpu's source of @kind (and @irq), or NULL */
static const struct kwake_source *source(const struct kstats *ks, unsigned int cpu,
					 enum kwake_kind kind, int irq)
{
	const struct kwake_cpu *c;

	assert_true(cpu < ks->wake.nr_cpus);
	c = &ks->wake.cpu[cpu];
	for (unsigned int i = 0; i < c->nr; i++)
		if (c->src[i].kind == kind && (kind != KWAKE_IRQ || c->src[i].irq == irq))
			return &c->src[i];
	return NULL;
}

static void assert_source(const struct kstats *ks, unsigned int cpu, enum kwake_kind kind,
			  int irq, uint64_t count, uint64_t early, uint64_t late)
{
	const struct kwake_source *s = source(ks, cpu, kind, irq);

	if (!count) {
		assert_true(!s || !s->count);
		return;
	}
	assert_non_null(s);
	assert_int_equal(s->count, count);
	assert_int_equal(s->early, early);
	assert_int_equal(s->late, late);
}

static const char wake_trace[] =
	/* A: the local timer inside the state ends it; 60 us in C1: early */
	ENTER(0, "100.000100", 1)
	L(0, "100.000150", "local_timer_entry: vector=236")
	EXIT(0, "100.000160")
	/* an interrupt while running: A has its wake-up, not counted */
	L(0, "100.000200", "irq_handler_entry: irq=5 name=eth0")
	/* B: the interrupt just after the exit ends it; 200 us in C1: neither */
	ENTER(0, "100.000300", 1)
	EXIT(0, "100.000500")
	L(0, "100.000502", "irq_handler_entry: irq=5 name=eth0")
	/* C: nothing before the next entry: unknown; 1000 us in C2: neither */
	ENTER(0, "100.000600", 2)
	EXIT(0, "100.001600")
	/* D: a rescheduling IPI; 20 us in C1: early */
	ENTER(0, "100.001700", 1)
	L(0, "100.001710", "reschedule_entry: vector=253")
	EXIT(0, "100.001720")
	/* E: nothing until the trace ends: unknown; 1000 us in C1, C2's: late */
	ENTER(0, "100.001800", 1)
	EXIT(0, "100.002800")
	/*
	 * CPU 1: the trace began in a period (its entry not traced): its first
	 * interrupt ended it, no verdict; the exit before any entry and a
	 * second interrupt change nothing.
	 */
	L(1, "100.000050", "irq_handler_entry: irq=7 name=usb")
	EXIT(1, "100.000060")
	L(1, "100.000070", "irq_handler_entry: irq=8 name=other")
	/* F: arm's "IPI" interrupt, then its reason: a rescheduling IPI; 300 us: neither */
	ENTER(1, "100.000100", 1)
	L(1, "100.000150", "irq_handler_entry: irq=9 name=IPI")
	L(1, "100.000151", "ipi_entry: (Rescheduling interrupts)")
	EXIT(1, "100.000400")
	/* G: an "IPI" whose reason is not the lab's: the interrupt stays; 30 us: early */
	ENTER(1, "100.000500", 1)
	L(1, "100.000520", "irq_handler_entry: irq=9 name=IPI")
	L(1, "100.000521", "ipi_entry: (CPU stop interrupts)")
	EXIT(1, "100.000530")
	/* H: still idle when the trace ends: no wake-up, not unknown either */
	ENTER(1, "100.000600", 1);

static void test_wakeup_sources(void **state)
{
	struct cpuidle_platform p;
	struct kstats ks;

	(void)state;
	platform(&p);
	tally("wake.txt", wake_trace, &p, &ks);
	assert_true(kwake_judged(&ks.wake));
	assert_int_equal(ks.wake.events, 9);
	assert_source(&ks, 0, KWAKE_TIMER, -1, 1, 1, 0);
	assert_source(&ks, 0, KWAKE_IRQ, 5, 1, 0, 0);
	assert_source(&ks, 0, KWAKE_RESCHED, -1, 1, 1, 0);
	assert_source(&ks, 0, KWAKE_UNKNOWN, -1, 2, 0, 1);
	assert_int_equal(ks.wake.cpu[0].nr, 4);
	assert_source(&ks, 1, KWAKE_IRQ, 7, 1, 0, 0);
	assert_source(&ks, 1, KWAKE_IRQ, 8, 0, 0, 0);
	assert_source(&ks, 1, KWAKE_RESCHED, -1, 1, 0, 0);
	assert_source(&ks, 1, KWAKE_IRQ, 9, 1, 1, 0);
	assert_source(&ks, 1, KWAKE_UNKNOWN, -1, 0, 0, 0);
	assert_string_equal(source(&ks, 1, KWAKE_IRQ, 9)->name, "IPI");
	assert_string_equal(source(&ks, 0, KWAKE_IRQ, 5)->name, "eth0");
	/* sorted: most periods first, the unknown ones last */
	assert_int_equal(ks.wake.cpu[0].src[3].kind, KWAKE_UNKNOWN);
	assert_int_equal(ks.wake.cpu[0].src[0].kind, KWAKE_TIMER);
	kstats_free(&ks);

	/* without a state table: the same counts, early and late not judged */
	tally("wake.txt", wake_trace, NULL, &ks);
	assert_false(kwake_judged(&ks.wake));
	assert_source(&ks, 0, KWAKE_TIMER, -1, 1, 0, 0);
	assert_source(&ks, 0, KWAKE_UNKNOWN, -1, 2, 0, 0);
	kstats_free(&ks);
}

/* lost events: the period in progress gets no wake-up, the next one does */
static void test_wakeup_lost(void **state)
{
	static const char text[] =
		ENTER(0, "100.000100", 1)
		"CPU:0 [LOST 3 EVENTS]\n"
		L(0, "100.000200", "irq_handler_entry: irq=5 name=eth0")
		EXIT(0, "100.000300")
		ENTER(0, "100.000400", 1)
		L(0, "100.000450", "irq_handler_entry: irq=6 name=disk")
		EXIT(0, "100.000500");
	struct kstats ks;

	(void)state;
	tally("lost.txt", text, NULL, &ks);
	assert_source(&ks, 0, KWAKE_IRQ, 5, 0, 0, 0);
	assert_source(&ks, 0, KWAKE_IRQ, 6, 1, 0, 0);
	assert_source(&ks, 0, KWAKE_UNKNOWN, -1, 0, 0, 0);
	kstats_free(&ks);
}

/* CPU @cpu's row of @khz, or NULL */
static const struct kfreq_row *row(const struct kstats *ks, unsigned int cpu, uint32_t khz)
{
	const struct kfreq_cpu *c;

	assert_true(cpu < ks->freq.nr_cpus);
	c = &ks->freq.cpu[cpu];
	for (unsigned int i = 0; i < c->nr; i++)
		if (c->rows[i].khz == khz)
			return &c->rows[i];
	return NULL;
}

static void assert_row(const struct kstats *ks, unsigned int cpu, uint32_t khz, uint64_t hits,
		       int64_t total_us, int64_t min_us, int64_t max_us)
{
	const struct kfreq_row *r = row(ks, cpu, khz);

	assert_non_null(r);
	assert_int_equal(r->hits, hits);
	assert_int_equal(r->total_ns, total_us * 1000);
	assert_int_equal(r->min_ns, min_us * 1000);
	assert_int_equal(r->max_ns, max_us * 1000);
}

static const char freq_trace[] =
	/* before the first entry: a change starts a stretch, the next one drops it */
	L(0, "100.000000", "cpu_frequency: state=1000000 cpu_id=0")
	L(0, "100.000010", "cpu_frequency: state=2000000 cpu_id=0")
	/* the first entry ends 2 GHz's stretch: 90 us */
	ENTER(0, "100.000100", 1)
	/* a change while idle: the frequency after the exit */
	L(0, "100.000150", "cpu_frequency: state=1000000 cpu_id=0")
	EXIT(0, "100.000200")
	/* 1 GHz, 200 us */
	ENTER(0, "100.000400", 1)
	EXIT(0, "100.000500")
	/* 1 GHz, 100 us; then a change to the same at once: 0 ns, no hit */
	L(0, "100.000600", "cpu_frequency: state=2000000 cpu_id=0")
	L(0, "100.000600", "cpu_frequency: state=2000000 cpu_id=0")
	/* 2 GHz, 1000 us */
	ENTER(0, "100.001600", 1)
	/* still running at the end: not counted */
	EXIT(0, "100.001700")
	/*
	 * CPU 1: its frequency logged by CPU 0 (cpufreq logs a policy's
	 * change from the CPU that makes it); an exit before any entry says
	 * nothing: the first entry ends the stretch from the change, 300 us
	 */
	L(0, "100.000000", "cpu_frequency: state=3000000 cpu_id=1")
	EXIT(1, "100.000050")
	ENTER(1, "100.000300", 1)
	EXIT(1, "100.000400")
	/* events lost: nothing counted until an idle event says it runs */
	"CPU:1 [LOST 3 EVENTS]\n"
	ENTER(1, "100.000700", 1)
	EXIT(1, "100.000800")
	/* 3 GHz, 100 us */
	ENTER(1, "100.000900", 1);

static void test_frequencies(void **state)
{
	struct kstats ks;

	(void)state;
	tally("freq.txt", freq_trace, NULL, &ks);
	assert_int_equal(ks.freq.events, 6);
	assert_int_equal(ks.freq.cpu[0].nr, 2);
	assert_row(&ks, 0, 1000000, 2, 300, 100, 200);
	assert_row(&ks, 0, 2000000, 2, 1090, 90, 1000);
	/* lowest first */
	assert_int_equal(ks.freq.cpu[0].rows[0].khz, 1000000);
	assert_int_equal(ks.freq.cpu[1].nr, 1);
	assert_row(&ks, 1, 3000000, 2, 400, 100, 300);
	/* the frequency events are no part of the span: the idle events' */
	assert_int_equal(ks.first_ns, 100000050000LL);
	assert_int_equal(ks.last_ns, 100001700000LL);
	kstats_free(&ks);
}

/* a trace without frequency changes has none to show */
static void test_no_frequencies(void **state)
{
	struct kstats ks;

	(void)state;
	tally("nofreq.txt", ENTER(0, "100.000100", 1) EXIT(0, "100.000200")
		ENTER(0, "100.000300", 1) EXIT(0, "100.000400"), NULL, &ks);
	assert_int_equal(ks.freq.events, 0);
	for (unsigned int cpu = 0; cpu < ks.freq.nr_cpus; cpu++)
		assert_int_equal(ks.freq.cpu[cpu].nr, 0);
	assert_int_equal(ks.wake.events, 0);
	assert_source(&ks, 0, KWAKE_UNKNOWN, -1, 2, 0, 0);
	kstats_free(&ks);
}

/* @a's and @b's C-state tallies (CPUs, clusters, span, time together), equal */
static void assert_same_cstates(const struct kstats *a, const struct kstats *b)
{
	assert_int_equal(a->nr_cpus, b->nr_cpus);
	assert_int_equal(a->nr_states, b->nr_states);
	assert_int_equal(a->first_ns, b->first_ns);
	assert_int_equal(a->last_ns, b->last_ns);
	assert_int_equal(a->events, b->events);
	assert_int_equal(a->nr_clusters, b->nr_clusters);
	assert_memory_equal(a->together_ns, b->together_ns, sizeof(a->together_ns));
	assert_memory_equal(a->cpu, b->cpu, a->nr_cpus * TRACE_MAX_STATES * sizeof(*a->cpu));
	assert_memory_equal(a->cluster, b->cluster,
			    (size_t)a->nr_clusters * TRACE_MAX_STATES * sizeof(*a->cluster));
}

/* the first stay a read hands on, kept */
static int first_stay(void *ctx, const struct kstats_stay *stay)
{
	struct kstats_stay *first = ctx;

	if (first->ns < 0)
		*first = *stay;
	return 0;
}

/*
 * kstats_read(): the tables asked for are those of kstats_from_trace(), the
 * others empty, the C-states the same whatever is asked; a stay sink gets
 * what ended each stay even where the wake-up table is not asked for.
 */
static void test_read_asks(void **state)
{
	static const char *const traces[] = { wake_trace, freq_trace };
	struct kstats_stay first = { .ns = -1 };
	struct cpuidle_platform p;
	struct kstats all, ks;
	char path[128], err[512];
	FILE *f;

	(void)state;
	platform(&p);
	snprintf(path, sizeof(path), "%s/asks.txt", tmpdir);
	for (size_t t = 0; t < sizeof(traces) / sizeof(traces[0]); t++) {
		f = fopen(path, "w");
		assert_non_null(f);
		assert_int_equal(fputs(traces[t], f) >= 0, 1);
		assert_int_equal(fclose(f), 0);
		if (kstats_from_trace(path, &p, &all, NULL, err, sizeof(err)))
			fail_msg("%s", err);
		assert_true(all.wake.events || all.freq.events);
		for (int ask = 0; ask < 4; ask++) {
			const struct kstats_want want = { .wakeups = ask & 1, .freqs = ask & 2 };

			if (kstats_read(path, &p, &want, &ks, NULL, err, sizeof(err)))
				fail_msg("%s", err);
			assert_same_cstates(&ks, &all);
			assert_int_equal(ks.wake.events, want.wakeups ? all.wake.events : 0);
			assert_int_equal(ks.wake.nr_cpus, want.wakeups ? all.wake.nr_cpus : 0);
			assert_int_equal(ks.freq.events, want.freqs ? all.freq.events : 0);
			assert_int_equal(ks.freq.nr_cpus, want.freqs ? all.freq.nr_cpus : 0);
			for (unsigned int cpu = 0; cpu < ks.freq.nr_cpus; cpu++)
				assert_memory_equal(ks.freq.cpu[cpu].rows, all.freq.cpu[cpu].rows,
						    all.freq.cpu[cpu].nr * sizeof(struct kfreq_row));
			kstats_free(&ks);
		}
		kstats_free(&all);
	}

	/* wake_trace's stay A: 60 us in C1, ended by the local timer */
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(wake_trace, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	if (kstats_read(path, &p, &(struct kstats_want){ .stay = first_stay, .ctx = &first }, &ks,
			NULL, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(first.ns, 60000);
	assert_int_equal(first.wake, KWAKE_TIMER);
	assert_int_equal(ks.freq.events, 0);
	kstats_free(&ks);
	unlink(path);
}

/*
 * Everything the lean read (no wake-ups, frequencies or stays asked) and
 * the full one give alike: the C-states, the span and count, the clusters
 * and their CPUs, the CPUs without idle events, the lost events, the
 * polling windows
 */
static void assert_same_lean(const struct kstats *a, const struct kstats *b)
{
	assert_same_cstates(a, b);
	assert_memory_equal(a->cluster_cpus, b->cluster_cpus, sizeof(a->cluster_cpus));
	assert_memory_equal(a->cluster_member, b->cluster_member, sizeof(a->cluster_member));
	assert_int_equal(a->nr_idle_less, b->nr_idle_less);
	assert_memory_equal(a->idle_less, b->idle_less, sizeof(a->idle_less));
	assert_int_equal(a->lost_gaps, b->lost_gaps);
	assert_int_equal(a->lost_events, b->lost_events);
	assert_int_equal(a->lost_cpu, b->lost_cpu);
	assert_int_equal(a->lost_line, b->lost_line);
	assert_int_equal(a->lost_n, b->lost_n);
	assert_int_equal(a->misses_recorded, b->misses_recorded);
	assert_int_equal(a->misses_recomputed, b->misses_recomputed);
	assert_int_equal(a->windows, b->windows);
	assert_int_equal(a->windows_widened, b->windows_widened);
	assert_true(a->window_sum_ns == b->window_sum_ns);
}

/*
 * @path read lean (the reader asked for the C-states' events alone) and in
 * full, with each of @plats: the same tally, or the same error.  Return:
 * how many of its events the reader left out (trace_want() with kstats'
 * types, read to the end).
 */
static uint64_t lean_as_full(const char *path, const struct cpuidle_platform *const *plats,
			     size_t nr_plats)
{
	static const uint32_t cstates = 1u << TEV_IDLE_ENTER | 1u << TEV_IDLE_EXIT |
		1u << TEV_IDLE_MISS | 1u << TEV_HALT_POLL_NS | 1u << TEV_LOST | 1u << TEV_CPU_FREQ;
	const struct kstats_want lean = { 0 };
	char err[1024], lerr[1024];
	const struct trace_event *evs[64];
	struct trace_skipped sk = { 0 };
	struct trace_reader *r;
	struct kstats all, ks;
	int ret, lret, n;

	for (size_t i = 0; i < nr_plats; i++) {
		ret = kstats_from_trace(path, plats[i], &all, NULL, err, sizeof(err));
		lret = kstats_read(path, plats[i], &lean, &ks, NULL, lerr, sizeof(lerr));
		if (ret != lret || (ret && strcmp(err, lerr)))
			fail_msg("%s: full read %d (%s), lean %d (%s)", path, ret, err, lret, lerr);
		if (ret)
			continue;
		assert_same_lean(&ks, &all);
		kstats_free(&ks);
		kstats_free(&all);
	}
	if (trace_open(path, &r, err, sizeof(err)))
		return 0;
	trace_want(r, cstates);
	while ((n = trace_next_batch(r, evs, 64)) > 0)
		;
	trace_skipped(r, &sk);
	trace_close(r);
	return n ? 0 : sk.events;
}

/* lean_as_full() on every file of the directory @dir: how many there were */
static uint64_t lean_as_full_dir(const char *dir, const struct cpuidle_platform *const *plats,
				 size_t nr_plats)
{
	char path[2048];
	struct dirent *de;
	uint64_t files = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		lean_as_full(path, plats, nr_plats);
		files++;
	}
	closedir(d);
	return files;
}

/* @src (xz) decompressed into tmpdir as @name: its path in @path */
static void unxz(const char *src, const char *name, char *path, size_t len)
{
	char cmd[4200];

	snprintf(path, len, "%s/%s", tmpdir, name);
	snprintf(cmd, sizeof(cmd), "xz -dc '%s' > '%s'", src, path);
	assert_int_equal(system(cmd), 0);
}

/*
 * kstats_read()'s lean read leaves out of the perf.data reader the events
 * of which it reads only the time and CPU (trace_want()), and tallies what
 * the full read does, errors said alike: on the shared recordings (mapped,
 * and through xz), the perf.data fixtures and every perf.data fuzz seed,
 * with no platform, one cluster and two.  On the recordings, most events
 * are left out (else this would compare a read with itself).
 */
static void test_lean_skips(void **state)
{
	static const char *const shared[] = { "video-haltpoll200", "udp-haltpoll", "pgbench-menu",
					      "sqlite-ladder" };
	static struct cpuidle_platform hand, juno;
	const struct cpuidle_platform *plats[] = { NULL, &hand, &juno };
	char src[512], path[2048], err[512];
	uint64_t left_out;

	(void)state;
	platform(&hand);
	if (cpuidle_platform_load("juno-r2", &juno, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(juno.nr_clusters == 2);
	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		snprintf(src, sizeof(src), "%s/perf.data/%s.perf.data.xz", TRACES, shared[i]);
		if (access(src, R_OK)) {
			print_message("%s: not there, the shared recordings' check skipped\n", src);
			skip();
		}
		left_out = lean_as_full(src, plats, 3);
		unxz(src, "lean.perf.data", path, sizeof(path));
		assert_int_equal(lean_as_full(path, plats, 3), left_out);
		print_message("%s: %llu events left out\n", shared[i],
			      (unsigned long long)left_out);
		assert_true(left_out > 5000);
		unlink(path);
	}
	unxz(FIXTURES "/zstd-records.perf.data.xz", "zstd.perf.data", path, sizeof(path));
	lean_as_full(path, plats, 3);
	unlink(path);
	unxz(FIXTURES "/pipe-mode.perf.data.xz", "pipe.perf.data", path, sizeof(path));
	assert_int_equal(lean_as_full(path, plats, 3), 0);	/* (a pipe's: read once) */
	unlink(path);
	assert_true(lean_as_full_dir(PERF_SEEDS, plats, 3) > 1000);
}

/* @path's HEADER_NRCPUS section (bit 7) says @n CPUs were available */
static void set_nr_cpus(const char *path, uint32_t n)
{
	unsigned char h[104], idx[16];
	uint64_t bits, data_off, data_size, off;
	unsigned int at;
	FILE *f = fopen(path, "r+b");

	assert_non_null(f);
	assert_int_equal(fread(h, 1, sizeof(h), f), sizeof(h));
	memcpy(&bits, h + 72, 8);
	assert_true((bits >> 7) & 1);
	memcpy(&data_off, h + 40, 8);
	memcpy(&data_size, h + 48, 8);
	at = (unsigned int)__builtin_popcountll(bits & 0x7f);
	assert_int_equal(fseek(f, (long)(data_off + data_size + 16 * at), SEEK_SET), 0);
	assert_int_equal(fread(idx, 1, sizeof(idx), f), sizeof(idx));
	memcpy(&off, idx, 8);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fwrite(&n, 4, 1, f), 1);
	assert_int_equal(fclose(f), 0);
}

/*
 * The lean read's reader asked, at each CPU's first event, what was left
 * out before it (trace_skipped_before(), as kstats asks): whether it then
 * says to read again
 */
static bool asks_say_redo(const char *path)
{
	static const uint32_t cstates = 1u << TEV_IDLE_ENTER | 1u << TEV_IDLE_EXIT |
		1u << TEV_IDLE_MISS | 1u << TEV_HALT_POLL_NS | 1u << TEV_LOST | 1u << TEV_CPU_FREQ;
	const struct trace_event *evs[64];
	struct trace_skipped sk = { 0 };
	bool seen[TRACE_MAX_CPUS] = { false };
	struct trace_reader *r;
	char err[1024];
	int n;

	if (trace_open(path, &r, err, sizeof(err)))
		fail_msg("%s", err);
	trace_want(r, cstates);
	while ((n = trace_next_batch(r, evs, 64)) > 0)
		for (int i = 0; i < n; i++)
			if (!seen[evs[i]->cpu]) {
				seen[evs[i]->cpu] = true;
				trace_skipped_before(r, evs[i]);
			}
	assert_int_equal(n, 0);
	trace_skipped(r, &sk);
	trace_close(r);
	assert_true(sk.events > 5000);
	return sk.redo;
}

/*
 * Once every CPU a perf.data says the machine had was asked of, the reader
 * keeps nothing more for trace_skipped_before(); a CPU more than the file
 * said is then asked of too late, and the reader says to read again:
 * video-haltpoll200 (2 CPUs, both with events) as recorded, and saying 1
 * CPU and 3, read lean as in full; only the 1 asks for a second read.
 */
static void test_lean_nr_cpus(void **state)
{
	static struct cpuidle_platform hand;
	const struct cpuidle_platform *plats[] = { NULL, &hand };
	const char *src = TRACES "/perf.data/video-haltpoll200.perf.data.xz";
	char path[2048];

	(void)state;
	if (access(src, R_OK)) {
		print_message("%s: not there, the check skipped\n", src);
		skip();
	}
	platform(&hand);
	unxz(src, "cpus.perf.data", path, sizeof(path));
	assert_false(asks_say_redo(path));
	assert_true(lean_as_full(path, plats, 2) > 5000);
	set_nr_cpus(path, 1);
	assert_true(asks_say_redo(path));
	assert_true(lean_as_full(path, plats, 2) > 5000);
	set_nr_cpus(path, 3);
	assert_false(asks_say_redo(path));
	assert_true(lean_as_full(path, plats, 2) > 5000);
	unlink(path);
}

/* the types the lean read leaves out, where it may */
static bool time_only(enum trace_ev_type t)
{
	return t == TEV_WAKEUP || t == TEV_IRQ || t == TEV_LOCAL_TIMER || t == TEV_RESCHED_IPI ||
	       t == TEV_CALL_FUNC_IPI || t == TEV_HRTIMER_START || t == TEV_HRTIMER_EXPIRE ||
	       t == TEV_HRTIMER_CANCEL;
}

/*
 * video-haltpoll200 with the events of the second half that the lean read
 * leaves out moved 10 s on: they raise the rounds' limit, so that the
 * events read after them come out after them, back in time, which the full
 * read refuses.  The lean read, which left them out and would not see
 * that, must read the file again (trace_skipped().redo) and say the same.
 */
static void test_lean_out_of_order(void **state)
{
	static struct cpuidle_platform hand;
	const struct cpuidle_platform *plats[] = { NULL, &hand };
	const char *src = TRACES "/perf.data/video-haltpoll200.perf.data.xz";
	char path[512], err[512];
	struct trace_reader *r;
	struct trace_event ev;
	uint64_t *lines, n = 0, moved = 0;
	int64_t *times;
	unsigned char *b;
	struct kstats ks;
	long size;
	FILE *f;

	(void)state;
	platform(&hand);
	if (access(src, R_OK)) {
		print_message("%s: not there, skipped\n", src);
		skip();
	}
	unxz(src, "moved.perf.data", path, sizeof(path));
	lines = calloc(1 << 16, sizeof(*lines));
	times = calloc(1 << 16, sizeof(*times));
	assert_non_null(lines);
	assert_non_null(times);
	if (trace_open(path, &r, err, sizeof(err)))
		fail_msg("%s", err);
	while (trace_next(r, &ev) > 0 && n < (1 << 16)) {
		lines[n] = time_only(ev.type) ? ev.line : 0;
		times[n++] = ev.ts_ns;
	}
	trace_close(r);
	f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	b = malloc((size_t)size);
	assert_non_null(b);
	rewind(f);
	assert_int_equal(fread(b, 1, (size_t)size, f), (size_t)size);
	for (uint64_t i = n / 2; i < n; i++) {
		unsigned char *rec = b + lines[i];
		uint16_t len;

		if (!lines[i])
			continue;
		memcpy(&len, rec + 6, 2);
		/* the sample's time: the record's one u64 of that value */
		for (unsigned int at = 8; at + 8 <= len; at += 8) {
			int64_t t;

			memcpy(&t, rec + at, 8);
			if (t == times[i]) {
				t += 10 * 1000000000LL;
				memcpy(rec + at, &t, 8);
				moved++;
				break;
			}
		}
	}
	print_message("video-haltpoll200: %llu events moved 10 s on\n", (unsigned long long)moved);
	assert_true(moved > 1000);
	rewind(f);
	assert_int_equal(fwrite(b, 1, (size_t)size, f), (size_t)size);
	assert_int_equal(fclose(f), 0);
	free(b);
	free(lines);
	free(times);
	assert_int_not_equal(kstats_from_trace(path, NULL, &ks, NULL, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "back"));
	lean_as_full(path, plats, 2);
	unlink(path);
}

/* the file at @path, whole, into memory: its bytes (free()) and their count in @size */
static unsigned char *slurp(const char *path, size_t *size)
{
	unsigned char *b;
	FILE *f = fopen(path, "rb");
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	b = malloc((size_t)n);
	assert_non_null(b);
	rewind(f);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	assert_int_equal(fclose(f), 0);
	*size = (size_t)n;
	return b;
}

static void spill(const char *path, const unsigned char *b, size_t size)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
}

/* where in the record at @rec the @n bytes of @want are first, after its 8-byte header */
static unsigned char *find_in(unsigned char *rec, const void *want, size_t n)
{
	uint16_t len;

	memcpy(&len, rec + 6, 2);	/* (the header's size field) */
	for (size_t at = 8; at + n <= len; at++)
		if (!memcmp(rec + at, want, n))
			return rec + at;
	return NULL;
}

/*
 * The hrtimer events @path gives with @types asked (trace_want()): each
 * says whether it is the tick's as the full read (@tick, by the record's
 * offset: 1 + its flag) does.  Return: how many said they are.
 */
static unsigned int ticks_as_full(const char *path, uint32_t types, const signed char *tick,
				  size_t size)
{
	struct trace_reader *r;
	struct trace_event ev;
	unsigned int ticks = 0;
	char err[512];
	int ret;

	if (trace_open(path, &r, err, sizeof(err)))
		fail_msg("%s", err);
	trace_want(r, types);
	while ((ret = trace_next(r, &ev)) > 0) {
		if (ev.type != TEV_HRTIMER_START && ev.type != TEV_HRTIMER_EXPIRE)
			continue;
		assert_true(ev.line < size && tick[ev.line]);
		assert_int_equal(ev.tick, tick[ev.line] - 1);
		ticks += ev.tick;
	}
	assert_int_equal(ret, 0);
	trace_close(r);
	return ticks;
}

/*
 * With no hrtimer event asked for, the lean read does not look for the
 * tick's function first (a vote over the data, read before the data),
 * and fails only where a read in full fails alike: video-haltpoll200 with
 * an early idle entry's state out of range, and a later hrtimer_start's
 * expiry: the full read's vote, reading the hrtimer events alone, meets
 * the second first and says so; the lean read, without the vote, would
 * meet the first, and must read again to say what the full read does.
 * With an hrtimer start or expiry asked for, the vote runs: the events
 * say which are the tick's as in full, and the broken file fails alike.
 */
static void test_lean_vote(void **state)
{
	static const uint32_t cstates = 1u << TEV_IDLE_ENTER | 1u << TEV_IDLE_EXIT |
		1u << TEV_IDLE_MISS | 1u << TEV_HALT_POLL_NS | 1u << TEV_LOST | 1u << TEV_CPU_FREQ;
	static const uint32_t timers[] = { 1u << TEV_HRTIMER_START, 1u << TEV_HRTIMER_EXPIRE };
	static struct cpuidle_platform hand;
	const struct cpuidle_platform *plats[] = { NULL, &hand };
	const char *src = TRACES "/perf.data/video-haltpoll200.perf.data.xz";
	uint64_t idle_at = 0, timer_at = 0, idles = 0;
	unsigned char *b, *field;
	char path[512], err[512];
	struct trace_reader *r;
	struct trace_event ev;
	signed char *tick;
	struct kstats ks;
	uint32_t pair[2] = { 0 };
	uint64_t pair64[2] = { 0 };
	size_t size;

	(void)state;
	platform(&hand);
	if (access(src, R_OK)) {
		print_message("%s: not there, skipped\n", src);
		skip();
	}
	unxz(src, "vote.perf.data", path, sizeof(path));
	b = slurp(path, &size);
	tick = calloc(size, 1);
	assert_non_null(tick);
	if (trace_open(path, &r, err, sizeof(err)))
		fail_msg("%s", err);
	while (trace_next(r, &ev) > 0) {
		if (ev.type == TEV_HRTIMER_START || ev.type == TEV_HRTIMER_EXPIRE) {
			assert_true(ev.line < size);
			tick[ev.line] = (signed char)(1 + ev.tick);
		}
		/* the 20th idle entry, and the first hrtimer_start in the file after it */
		if (ev.type == TEV_IDLE_ENTER && ++idles == 20)
			idle_at = ev.line;
		if (ev.type == TEV_HRTIMER_START && idle_at && ev.line > idle_at &&
		    (!timer_at || ev.line < timer_at)) {
			timer_at = ev.line;
			pair64[0] = ev.function;
			pair64[1] = (uint64_t)ev.expires_ns;
		}
		if (ev.type == TEV_IDLE_ENTER && ev.line == idle_at) {
			pair[0] = (uint32_t)ev.state;
			pair[1] = ev.cpu;
		}
	}
	trace_close(r);
	assert_true(idle_at && timer_at);
	for (size_t i = 0; i < sizeof(timers) / sizeof(timers[0]); i++)
		assert_true(ticks_as_full(path, cstates | timers[i], tick, size) > 100);

	/* the entry's state (its state and cpu_id, u32 each), 1000; the start's expiry, < 0 */
	field = find_in(b + idle_at, pair, sizeof(pair));
	assert_non_null(field);
	pair[0] = 1000;
	memcpy(field, pair, 4);
	field = find_in(b + timer_at, pair64, sizeof(pair64));
	assert_non_null(field);
	pair64[1] |= 1ULL << 63;
	memcpy(field, pair64, sizeof(pair64));
	spill(path, b, size);
	assert_int_not_equal(kstats_from_trace(path, NULL, &ks, NULL, err, sizeof(err)), 0);
	if (!strstr(err, "expires"))
		fail_msg("the full read's vote did not meet the hrtimer first: %s", err);
	lean_as_full(path, plats, 2);
	for (size_t i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
		if (trace_open(path, &r, err, sizeof(err)))
			fail_msg("%s", err);
		trace_want(r, cstates | timers[i]);
		while (trace_next(r, &ev) > 0)
			;
		if (!strstr(trace_error(r), "expires"))
			fail_msg("asked for hrtimer events, no vote: %s", trace_error(r));
		trace_close(r);
	}
	unlink(path);
	free(tick);
	free(b);
}

/*
 * The hrtimer events of @path with @types asked (trace_want(); 0: not
 * called): how many are the tick's, and how many there are (@timers)
 */
static unsigned int ticks_read(const char *path, uint32_t types, unsigned int *timers)
{
	struct trace_reader *r;
	struct trace_event ev;
	unsigned int ticks = 0;
	char err[512];
	int ret;

	if (trace_open(path, &r, err, sizeof(err)))
		fail_msg("%s", err);
	if (types)
		trace_want(r, types);
	*timers = 0;
	while ((ret = trace_next(r, &ev)) > 0) {
		if (ev.type != TEV_HRTIMER_START && ev.type != TEV_HRTIMER_EXPIRE)
			continue;
		ticks += ev.tick;
		++*timers;
	}
	assert_int_equal(ret, 0);
	trace_close(r);
	return ticks;
}

/* a little-endian number of @n bytes at @b */
static uint64_t le(const unsigned char *b, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | b[n];
	return v;
}

/*
 * Where a little-endian version 6 trace.dat's kernel symbols begin (their
 * 4-byte size), after its headers and event formats (trace-cmd's
 * Documentation/trace-cmd/trace-cmd.dat.v6.5.txt), or 0
 */
static size_t v6_symbols_at(const unsigned char *b, size_t size)
{
	size_t p = 18, n, e;	/* magic, "tracing", "6", endian, long size, page size */

	if (size < p + 12 || memcmp(b + 10, "6", 2) || memcmp(b + p, "header_page", 12))
		return 0;
	p += 12;
	p += 8 + le(b + p, 8);
	if (p + 13 > size || memcmp(b + p, "header_event", 13))
		return 0;
	p += 13;
	p += 8 + le(b + p, 8);
	for (n = le(b + p, 4), p += 4; n--; )			/* ftrace's formats */
		p += 8 + le(b + p, 8);
	for (n = le(b + p, 4), p += 4; n--; ) {			/* the systems' */
		p += strlen((const char *)b + p) + 1;
		for (e = le(b + p, 4), p += 4; e--; )
			p += 8 + le(b + p, 8);
	}
	return p < size ? p : 0;
}

/*
 * The lean read of a trace.dat (trace_want() with kstats' types: no hrtimer
 * event) leaves out a version 6 file's kernel symbols, where the tick's
 * function is named: its hrtimer events are then none the tick's, where
 * the full read and a read asking for hrtimer events name it (on the
 * fuzz seed, recorded here); a version 7 file's are read as before.  A
 * version 6 file's formats are walked by the reader, a version 7 file's
 * read by libtracecmd: the seed as both gives the same hrtimer events and
 * ticks.  The
 * tally is the full read's (the seeds, the Juno recording as shipped and
 * decompressed) with each platform, and on the seed with its symbols cut
 * short, its symbols' size past the file's end, and on every trace.dat of
 * the fuzz corpus, the errors are the full read's.
 */
static void test_lean_tracedat(void **state)
{
	static const uint32_t cstates = 1u << TEV_IDLE_ENTER | 1u << TEV_IDLE_EXIT |
		1u << TEV_IDLE_MISS | 1u << TEV_HALT_POLL_NS | 1u << TEV_LOST | 1u << TEV_CPU_FREQ;
	static const uint32_t timers[] = { 1u << TEV_HRTIMER_START, 1u << TEV_HRTIMER_EXPIRE };
	static const char *const seeds[] = { "seed-v6.dat", "seed-v7-compressed.dat" };
	static const char juno_xz[] = TRACES "/hardware/juno-lisa/trace.dat.xz";
	static struct cpuidle_platform hand, juno;
	const struct cpuidle_platform *plats[] = { NULL, &hand, &juno };
	unsigned int full, n, nt, v6_ticks = 0, v6_timers = 0;
	char path[2048], err[512];
	const char *perturb;
	struct kstats ks;
	uint64_t files;
	unsigned char *b;
	size_t size, at;

	(void)state;
	platform(&hand);
	if (cpuidle_platform_load("juno-r2", &juno, err, sizeof(err)))
		fail_msg("%s", err);
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", TRACECMD_SEEDS, seeds[i]);
		full = ticks_read(path, 0, &n);
		assert_true(full > 10 && n > full);
		if (i) {	/* the same recording: version 7's read by libtracecmd alone */
			assert_int_equal(full, v6_ticks);
			assert_int_equal(n, v6_timers);
		}
		v6_ticks = full;
		v6_timers = n;
		for (size_t k = 0; k < sizeof(timers) / sizeof(timers[0]); k++) {
			assert_int_equal(ticks_read(path, cstates | timers[k], &nt), full);
			assert_int_equal(nt, n);
		}
		assert_int_equal(ticks_read(path, cstates, &nt), i == 0 ? 0 : full);
		assert_int_equal(nt, n);
		lean_as_full(path, plats, 3);
	}
	if (!access(juno_xz, R_OK)) {
		lean_as_full(juno_xz, plats, 3);
		unxz(juno_xz, "juno.trace.dat", path, sizeof(path));
		lean_as_full(path, plats, 3);
		unlink(path);
	} else {
		print_message("%s: not there, its check skipped\n", juno_xz);
	}

	/* the seed, its symbols cut short, then their size past its end: both fail, alike */
	snprintf(path, sizeof(path), "%s/seed-v6.dat", TRACECMD_SEEDS);
	b = slurp(path, &size);
	at = v6_symbols_at(b, size);
	assert_true(at > 0 && at + 4 + le(b + at, 4) < size);
	snprintf(path, sizeof(path), "%s/symbols.dat", tmpdir);
	spill(path, b, at + 4 + le(b + at, 4) / 2);
	assert_int_not_equal(kstats_from_trace(path, NULL, &ks, NULL, err, sizeof(err)), 0);
	lean_as_full(path, plats, 1);
	b[at + 2] = 0x7f;
	spill(path, b, size);
	assert_int_not_equal(kstats_from_trace(path, NULL, &ks, NULL, err, sizeof(err)), 0);
	lean_as_full(path, plats, 1);
	unlink(path);
	free(b);

	/*
	 * The corpus without meson test's MALLOC_PERTURB_, which has glibc
	 * fill every block: libtracecmd's of the sizes corrupt files claim
	 * took 100 s (tests/meson.build says the same of the corpus's replay)
	 */
	perturb = getenv("MALLOC_PERTURB_");
	mallopt(M_PERTURB, 0);
	files = lean_as_full_dir(TRACECMD_SEEDS, plats, 1);
	mallopt(M_PERTURB, perturb ? atoi(perturb) : 0);
	assert_true(files > 100);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_kstats.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wakeup_sources),
		cmocka_unit_test(test_wakeup_lost),
		cmocka_unit_test(test_frequencies),
		cmocka_unit_test(test_no_frequencies),
		cmocka_unit_test(test_read_asks),
		cmocka_unit_test(test_lean_skips),
		cmocka_unit_test(test_lean_nr_cpus),
		cmocka_unit_test(test_lean_out_of_order),
		cmocka_unit_test(test_lean_vote),
		cmocka_unit_test(test_lean_tracedat),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
