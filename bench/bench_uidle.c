// SPDX-License-Identifier: MIT
/*
 * bench_uidle.c - the idle engine against fixed waiting policies: wake-up
 * latency and CPU burnt while waiting, on ping-pong hand-offs with real and
 * fixed idle gaps.
 *
 * Two threads, pinned to two different CPUs when the process may use two:
 * a waker P and a waiter W.  Each hand-off: W says it is waiting and
 * waits, by the method under test, for a word to change; P lets the gap
 * pass (spinning, or sleeping then spinning for gaps of 100 us and more),
 * notes the time, changes the word and wakes W by the method's means; W
 * notes the time it runs again.  The latency is the difference; W's
 * thread CPU time (CLOCK_THREAD_CPUTIME_ID) over the time it spent waiting
 * is the CPU burnt per second of waiting.  P's own time is not counted.
 *
 * Methods, side by side in every round, in the same order:
 *   engine:GOV   uidle_wait()/uidle_wake() on an engine governed by GOV
 *                (menu, teo, ladder, haltpoll, hazard); the engine's
 *                calibration is measured once at start and given to every
 *                engine (uidle_engine_opts.calibration)
 *   spin         a busy poll of plain loads
 *   spin-pause   a spin with PAUSE between loads
 *   condvar      pure futex: a pthread condition variable
 *   spin2us-futex, spin200us-futex
 *                a PAUSE spin for 2 us (folly's default) or 200 us
 *                (Seastar's), then FUTEX_WAIT on the word itself
 *
 * Gaps: fixed (1 us to 10 ms) and drawn from the idle periods of real
 * traces: bench/patterns/nginx-cpu0.txt (one ns value per line) and, where
 * ../shared/traces is at hand, the power:cpu_idle periods of
 * io-menu.perf.txt.xz and timer1k-menu.perf.txt.xz (both CPUs); any other
 * with --gaps FILE or --trace FILE.  Trace gaps longer than MAX_GAP_NS are
 * cut to it, to bound the run.  Every method sees the same gaps.
 *
 * Each round runs every cell (gap x method) once; the median over the
 * rounds of each cell's p50, p99 and CPU is reported.  The goal of issue
 * #6: p50 within 1.5x pure spin's where gaps are short (< 20 us), and CPU
 * within 1.1x pure futex's (condvar) where gaps are long (> 1 ms).
 *
 * Usage: bench_uidle [-r ROUNDS] [-s SECONDS] [-m METHOD,...] [--quick]
 *                    [--fixed US,...] [--gaps FILE]... [--trace FILE]...
 *                    [--no-traces]
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "libcpuidle.h"

#define US		1000LL
#define MS		(1000 * US)
#define SEC		(1000 * MS)

#define MAX_METHODS	16
#define MAX_CELLS	32
#define MAX_ROUNDS	99
#define MAX_SAMPLES	20000
#define WARMUP		20		/* hand-offs not measured: governors learn */
#define MIN_HANDOFFS	60		/* per cell and round, at least */
#define MAX_GAP_NS	(20 * MS)	/* trace gaps are cut here */
#define SLEEP_GAP_NS	(100 * US)	/* P sleeps through longer gaps, then spins */
#define SLEEP_MARGIN_NS	(60 * US)	/* ... waking this early */
#define WAIT_SAFETY_NS	SEC		/* no wait may hang the benchmark */
#define TRACE_GAPS_MAX	200000

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static long futex(uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

/* ---------------------------------------------------------------- methods */

enum method_kind { M_ENGINE, M_SPIN, M_SPIN_PAUSE, M_CONDVAR, M_SPIN_FUTEX };

struct method {
	char name[32];
	enum method_kind kind;
	const char *gov;	/* M_ENGINE */
	int64_t spin_ns;	/* M_SPIN_FUTEX */
};

/*
 * One hand-off channel, shared by W and P.  What both touch on every
 * hand-off shares one cache line; W's waiter, whose counters the idle
 * path writes at every stay, has lines of its own (a waiter next to data
 * the waker reads costs a cache-line transfer on every wake-up).
 */
struct chan {
	uint32_t word;		/* the value W waits on */
	uint32_t ready;		/* W is waiting for hand-off N */
	uint32_t sleeping;	/* M_SPIN_FUTEX: W may be in FUTEX_WAIT */
	int quit;		/* W gave up */
	int64_t t_store;
	struct uidle_engine *e;	/* M_ENGINE */
	pthread_mutex_t mu __attribute__((aligned(64)));	/* M_CONDVAR */
	pthread_cond_t cv;
	struct uidle_waiter w __attribute__((aligned(64)));
};

struct run {
	const struct method *m;
	struct chan *c;
	const int64_t *gaps;
	int n;			/* hand-offs, warm-up included */
	int cpus[2];		/* P, W; -1: not pinned */
	/* results, from W */
	int64_t lat[MAX_SAMPLES];
	int64_t cpu, waited;
	int errors;
	int nr_states;		/* M_ENGINE: stays per state, measured hand-offs only */
	uint64_t usage[CPUIDLE_STATE_MAX];
	char state_name[CPUIDLE_STATE_MAX][CPUIDLE_NAME_LEN];
};

static void wait_for_change(const struct method *m, struct chan *c, uint32_t old)
{
	int64_t deadline = now_ns() + WAIT_SAFETY_NS;
	struct timespec ts;

	switch (m->kind) {
	case M_ENGINE:
		while (__atomic_load_n(&c->word, __ATOMIC_ACQUIRE) == old)
			if (uidle_wait(&c->w, &c->word, old, deadline))
				return;
		break;
	case M_SPIN:
		while (__atomic_load_n(&c->word, __ATOMIC_RELAXED) == old)
			;
		break;
	case M_SPIN_PAUSE:
		while (__atomic_load_n(&c->word, __ATOMIC_RELAXED) == old)
			relax();
		break;
	case M_CONDVAR:
		ts.tv_sec = deadline / SEC;
		ts.tv_nsec = deadline % SEC;
		pthread_mutex_lock(&c->mu);
		while (__atomic_load_n(&c->word, __ATOMIC_RELAXED) == old)
			if (pthread_cond_timedwait(&c->cv, &c->mu, &ts) == ETIMEDOUT)
				break;
		pthread_mutex_unlock(&c->mu);
		break;
	case M_SPIN_FUTEX: {
		int64_t until = now_ns() + m->spin_ns;
		unsigned int k = 0;

		while (__atomic_load_n(&c->word, __ATOMIC_RELAXED) == old) {
			relax();
			if (++k % 32 == 0 && now_ns() >= until)
				break;
		}
		__atomic_store_n(&c->sleeping, 1, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&c->word, __ATOMIC_SEQ_CST) == old) {
			struct timespec rel = { 0, 100 * MS };

			futex(&c->word, FUTEX_WAIT_PRIVATE, old, &rel);
			if (now_ns() > deadline)
				break;
		}
		__atomic_store_n(&c->sleeping, 0, __ATOMIC_RELAXED);
		break;
	}
	}
	/* the caller's acquire load of the word follows */
}

static void change_and_wake(const struct method *m, struct chan *c, uint32_t v)
{
	switch (m->kind) {
	case M_ENGINE:
		__atomic_store_n(&c->t_store, now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&c->word, v, __ATOMIC_RELEASE);
		uidle_wake(c->e, &c->word, 1);
		break;
	case M_SPIN:
	case M_SPIN_PAUSE:
		__atomic_store_n(&c->t_store, now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&c->word, v, __ATOMIC_RELEASE);
		break;
	case M_CONDVAR:
		pthread_mutex_lock(&c->mu);
		__atomic_store_n(&c->t_store, now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&c->word, v, __ATOMIC_RELAXED);
		pthread_cond_signal(&c->cv);
		pthread_mutex_unlock(&c->mu);
		break;
	case M_SPIN_FUTEX:
		__atomic_store_n(&c->t_store, now_ns(), __ATOMIC_RELAXED);
		__atomic_store_n(&c->word, v, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&c->sleeping, __ATOMIC_SEQ_CST))
			futex(&c->word, FUTEX_WAKE_PRIVATE, 1, NULL);
		break;
	}
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *waiter_main(void *arg)
{
	struct run *r = arg;
	struct chan *c = r->c;
	int64_t c0 = 0, t_wait, waited = 0;
	int i, k;

	pin(r->cpus[1]);
	for (i = 0; i < r->n; i++) {
		if (i == WARMUP) {
			c0 = cpu_ns();
			if (r->m->kind == M_ENGINE)
				for (k = 0; k < c->w.dev.state_count; k++)
					r->usage[k] = c->w.dev.states_usage[k].usage;
		}
		t_wait = now_ns();
		__atomic_store_n(&c->ready, (uint32_t)i + 1, __ATOMIC_RELEASE);
		wait_for_change(r->m, c, (uint32_t)i);
		if (__atomic_load_n(&c->word, __ATOMIC_ACQUIRE) == (uint32_t)i) {
			r->errors++;	/* timed out: the benchmark is broken */
			__atomic_store_n(&c->quit, 1, __ATOMIC_RELEASE);
			break;
		}
		if (i >= WARMUP) {
			int64_t t = now_ns();

			r->lat[i - WARMUP] = t - __atomic_load_n(&c->t_store, __ATOMIC_RELAXED);
			waited += t - t_wait;
		}
	}
	r->cpu = cpu_ns() - c0;
	r->waited = waited;
	if (r->m->kind == M_ENGINE) {
		r->nr_states = c->w.dev.state_count;
		for (k = 0; k < r->nr_states; k++) {
			r->usage[k] = c->w.dev.states_usage[k].usage - r->usage[k];
			memcpy(r->state_name[k], c->w.dev.states[k].name, CPUIDLE_NAME_LEN);
		}
	}
	return NULL;
}

/* P: the gap, then the change. */
static void pace(int64_t gap)
{
	int64_t until = now_ns() + gap;

	if (gap >= SLEEP_GAP_NS) {
		struct timespec ts = { .tv_sec = 0, .tv_nsec = gap - SLEEP_MARGIN_NS };

		while (ts.tv_nsec >= SEC) {
			ts.tv_sec++;
			ts.tv_nsec -= SEC;
		}
		nanosleep(&ts, NULL);
	}
	while (now_ns() < until)
		;
}

static void run_one(struct run *r, const struct uidle_calibration *cal)
{
	struct chan *c = r->c;
	pthread_condattr_t ca;
	pthread_t tid;
	int i;

	memset(c, 0, sizeof(*c));
	pthread_mutex_init(&c->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);	/* the deadlines' clock */
	pthread_cond_init(&c->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (r->m->kind == M_ENGINE) {
		struct uidle_engine_opts o = {
			.sz = sizeof(o), .governor = r->m->gov, .calibration = cal,
		};

		if (uidle_engine_create(&o, &c->e) || uidle_waiter_init(c->e, &c->w)) {
			fprintf(stderr, "bench_uidle: cannot create an engine with %s\n", r->m->gov);
			exit(1);
		}
	}
	r->errors = 0;
	pin(r->cpus[0]);
	if (pthread_create(&tid, NULL, waiter_main, r)) {
		fprintf(stderr, "bench_uidle: pthread_create failed\n");
		exit(1);
	}
	for (i = 0; i < r->n; i++) {
		int64_t give_up = now_ns() + WAIT_SAFETY_NS;

		while (__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE) != (uint32_t)i + 1) {
			if (now_ns() > give_up || __atomic_load_n(&c->quit, __ATOMIC_ACQUIRE))
				break;
			relax();
		}
		if (__atomic_load_n(&c->quit, __ATOMIC_ACQUIRE))
			break;
		pace(r->gaps[i]);
		change_and_wake(r->m, c, (uint32_t)i + 1);
	}
	pthread_join(tid, NULL);
	if (c->e) {
		uidle_waiter_fini(&c->w);
		uidle_engine_destroy(c->e);
	}
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->mu);
}

/* ---------------------------------------------------------------- gaps */

struct cell {
	char name[40];
	bool fixed;
	int64_t fixed_ns;
	int64_t *pool;		/* trace gaps to draw from */
	int pool_n;
};

static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int add_gap(int64_t **v, int *n, int *cap, int64_t ns)
{
	if (ns <= 0 || *n >= TRACE_GAPS_MAX)
		return 0;
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		*v = realloc(*v, (size_t)*cap * sizeof(**v));
		if (!*v)
			return -1;
	}
	(*v)[(*n)++] = ns > MAX_GAP_NS ? MAX_GAP_NS : ns;
	return 0;
}

/* One ns value per line, '#' comments. */
static int load_gaps(const char *path, struct cell *cl)
{
	char line[256];
	int cap = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && line[0] != '\n')
			add_gap(&cl->pool, &cl->pool_n, &cap, strtoll(line, NULL, 10));
	fclose(f);
	return cl->pool_n ? 0 : -1;
}

/*
 * The idle periods of a perf script trace: power:cpu_idle entry (state N)
 * to exit (state=4294967295) on each CPU.  .xz through xz -dc.
 */
static int load_trace(const char *path, struct cell *cl)
{
	double start[64];
	char cmd[600], line[1024];
	size_t len = strlen(path);
	bool xz = len > 3 && !strcmp(path + len - 3, ".xz");
	int cap = 0, i;
	FILE *f;

	if (access(path, R_OK))
		return -1;
	if (xz) {
		snprintf(cmd, sizeof(cmd), "xz -dc '%s'", path);
		f = popen(cmd, "r");
	} else {
		f = fopen(path, "r");
	}
	if (!f)
		return -1;
	for (i = 0; i < 64; i++)
		start[i] = -1;
	while (fgets(line, sizeof(line), f)) {
		char *ev = strstr(line, " power:cpu_idle: "), *p;
		unsigned long long state;
		unsigned int cpu;
		double t;

		if (!ev)
			continue;
		*ev = '\0';
		p = strrchr(line, ']');	/* "comm pid [CPU] TIME:" */
		if (!p || sscanf(p + 1, "%lf", &t) != 1 ||
		    sscanf(ev + 1, "power:cpu_idle: state=%llu cpu_id=%u", &state, &cpu) != 2 ||
		    cpu >= 64)
			continue;
		if (state != 4294967295ull) {
			start[cpu] = t;
		} else if (start[cpu] >= 0) {
			add_gap(&cl->pool, &cl->pool_n, &cap, (int64_t)((t - start[cpu]) * 1e9));
			start[cpu] = -1;
		}
	}
	if (xz)
		pclose(f);
	else
		fclose(f);
	return cl->pool_n ? 0 : -1;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* ---------------------------------------------------------------- statistics */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of @n values, left in their order (rounds stay paired). */
static double median_d(const double *v, int n)
{
	double c[MAX_ROUNDS];

	memcpy(c, v, (size_t)n * sizeof(*v));
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	return c[n / 2];
}

struct result {
	double p50[MAX_ROUNDS], p99[MAX_ROUNDS], cpu[MAX_ROUNDS];	/* ns, ns, ms per s */
	int nr_states;
	double stays[CPUIDLE_STATE_MAX];	/* per hand-off, summed over rounds */
	char state_name[CPUIDLE_STATE_MAX][CPUIDLE_NAME_LEN];
};

/* ---------------------------------------------------------------- main */

static const char *const engine_govs[] = { "menu", "teo", "ladder", "haltpoll", "hazard" };

/* Is @name in the comma-separated @list? */
static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p = list;

	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
		p += len;
	}
	return false;
}

static int add_methods(struct method *ms, const char *only)
{
	int n = 0;
	unsigned int g;

#define ADD(nm, k, gv, sp)							\
	do {								\
		if (!only || in_list(only, nm)) {				\
			snprintf(ms[n].name, sizeof(ms[n].name), "%s", nm);	\
			ms[n].kind = k;					\
			ms[n].gov = gv;					\
			ms[n].spin_ns = sp;				\
			n++;						\
		}							\
	} while (0)
	for (g = 0; g < sizeof(engine_govs) / sizeof(engine_govs[0]); g++) {
		char nm[32];

		snprintf(nm, sizeof(nm), "engine:%s", engine_govs[g]);
		ADD(nm, M_ENGINE, engine_govs[g], 0);
	}
	ADD("spin", M_SPIN, NULL, 0);
	ADD("spin-pause", M_SPIN_PAUSE, NULL, 0);
	ADD("condvar", M_CONDVAR, NULL, 0);
	ADD("spin2us-futex", M_SPIN_FUTEX, NULL, 2 * US);
	ADD("spin200us-futex", M_SPIN_FUTEX, NULL, 200 * US);
#undef ADD
	return n;
}

static int find_method(const struct method *ms, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(ms[i].name, name))
			return i;
	return -1;
}

static void print_states(const struct uidle_calibration *cal)
{
	struct uidle_engine_opts o = { .sz = sizeof(o), .calibration = cal };
	struct uidle_engine_info info;
	struct uidle_engine *e;
	int i;

	if (uidle_engine_create(&o, &e))
		return;
	uidle_engine_info(e, &info);
	printf("engine states (calibrated at start):\n");
	for (i = 0; i < info.state_count; i++) {
		struct uidle_state_info si;

		uidle_engine_state(e, i, &si);
		printf("  state%d %-6s exit latency %7.2f us  target residency %7.2f us  "
		       "cpu %5.1f%% + %6.2f us per entry\n", i, si.name,
		       (double)si.exit_latency_ns / US, (double)si.target_residency_ns / US,
		       si.cost.cpu_ppm / 1e4, (double)si.cost.entry_cpu_ns / US);
	}
	uidle_engine_destroy(e);
}

int main(int argc, char **argv)
{
	static int64_t fixed[16] = {
		1 * US, 2 * US, 5 * US, 10 * US, 20 * US, 50 * US, 100 * US, 200 * US, 500 * US,
		1 * MS, 2 * MS, 5 * MS, 10 * MS,
	};
	int nr_fixed = 13;
	const char *gaps_files[8], *trace_files[8], *only = NULL;
	int nr_gaps_files = 0, nr_trace_files = 0;
	bool traces = true;
	double seconds = 0.25;
	int rounds = 3, nr_methods, nr_cells = 0, i, j, k, rd, spin_idx, futex_idx;
	static struct method methods[MAX_METHODS];
	static struct cell cells[MAX_CELLS];
	static struct result res[MAX_CELLS][MAX_METHODS];
	struct uidle_engine_opts cal_opts = { .sz = sizeof(cal_opts) };
	struct uidle_calibration cal;
	struct uidle_engine *cal_engine;
	struct uidle_engine_info info;
	static struct run r;
	static struct chan chan;
	uint64_t seed = 0x2545f4914f6cdd1dull;
	cpu_set_t set;
	int cpus[2] = { -1, -1 }, ncpus = 0;
	char shared[512];
	int64_t *gapv;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			rounds = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else if (!strcmp(argv[i], "-m") && i + 1 < argc) {
			only = argv[++i];
		} else if (!strcmp(argv[i], "--quick")) {
			rounds = 1;
			seconds = 0.05;
		} else if (!strcmp(argv[i], "--gaps") && i + 1 < argc && nr_gaps_files < 8) {
			gaps_files[nr_gaps_files++] = argv[++i];
		} else if (!strcmp(argv[i], "--trace") && i + 1 < argc && nr_trace_files < 8) {
			trace_files[nr_trace_files++] = argv[++i];
		} else if (!strcmp(argv[i], "--no-traces")) {
			traces = false;
		} else if (!strcmp(argv[i], "--fixed") && i + 1 < argc) {
			char *p = argv[++i], *end;

			nr_fixed = 0;
			while (*p && nr_fixed < (int)(sizeof(fixed) / sizeof(fixed[0]))) {
				fixed[nr_fixed++] = (int64_t)(strtod(p, &end) * US);
				if (end == p || fixed[nr_fixed - 1] <= 0)
					nr_fixed = 0, p = "";
				else
					p = *end == ',' ? end + 1 : end;
			}
			if (!nr_fixed) {
				fprintf(stderr, "bench_uidle: --fixed takes gaps in us, e.g. 1,10,1000\n");
				return 2;
			}
		} else {
			fprintf(stderr, "usage: %s [-r ROUNDS] [-s SECONDS] [-m METHOD,...] [--quick] "
				"[--fixed US,...] [--gaps FILE]... [--trace FILE]... [--no-traces]\n",
				argv[0]);
			return 2;
		}
	}
	if (rounds < 1 || rounds > MAX_ROUNDS || seconds <= 0) {
		fprintf(stderr, "bench_uidle: -r must be in 1..%d and -s positive\n", MAX_ROUNDS);
		return 2;
	}

	/* the two CPUs */
	if (!sched_getaffinity(0, sizeof(set), &set)) {
		for (i = 0; i < CPU_SETSIZE && ncpus < 2; i++)
			if (CPU_ISSET(i, &set))
				cpus[ncpus++] = i;
		ncpus = CPU_COUNT(&set);
	}
	if (ncpus < 2)
		cpus[0] = cpus[1] = -1;

	nr_methods = add_methods(methods, only);
	spin_idx = find_method(methods, nr_methods, "spin");
	futex_idx = find_method(methods, nr_methods, "condvar");

	/* cells: fixed gaps, then trace distributions */
	for (i = 0; i < nr_fixed; i++) {
		struct cell *cl = &cells[nr_cells++];

		cl->fixed = true;
		cl->fixed_ns = fixed[i];
		if (fixed[i] < MS)
			snprintf(cl->name, sizeof(cl->name), "%lld us", (long long)(fixed[i] / US));
		else
			snprintf(cl->name, sizeof(cl->name), "%lld ms", (long long)(fixed[i] / MS));
	}
	if (traces) {
		if (!nr_gaps_files)
			gaps_files[nr_gaps_files++] = SRCDIR "/bench/patterns/nginx-cpu0.txt";
		if (!nr_trace_files) {
			snprintf(shared, sizeof(shared), "%s/../shared/traces", SRCDIR);
			if (!access(shared, R_OK)) {
				static char a[600], b[600];

				snprintf(a, sizeof(a), "%s/io-menu.perf.txt.xz", shared);
				snprintf(b, sizeof(b), "%s/timer1k-menu.perf.txt.xz", shared);
				trace_files[nr_trace_files++] = a;
				trace_files[nr_trace_files++] = b;
			}
		}
	}
	for (i = 0; i < nr_gaps_files + nr_trace_files && nr_cells < MAX_CELLS; i++) {
		struct cell *cl = &cells[nr_cells];
		const char *path = i < nr_gaps_files ? gaps_files[i] : trace_files[i - nr_gaps_files];
		int rc = i < nr_gaps_files ? load_gaps(path, cl) : load_trace(path, cl);
		char nm[64];

		if (rc) {
			fprintf(stderr, "bench_uidle: no gaps in %s, skipped\n", path);
			continue;
		}
		snprintf(nm, sizeof(nm), "%s", base_name(path));
		if (strchr(nm, '.'))
			*strchr(nm, '.') = '\0';
		snprintf(cl->name, sizeof(cl->name), "trace %.30s", nm);
		nr_cells++;
	}

	/* calibrate once */
	if (uidle_engine_create(&cal_opts, &cal_engine)) {
		fprintf(stderr, "bench_uidle: cannot create an engine\n");
		return 1;
	}
	uidle_engine_calibration(cal_engine, &cal);
	uidle_engine_info(cal_engine, &info);
	uidle_engine_destroy(cal_engine);
	printf("bench_uidle: %d rounds, ~%.2f s per cell and round; waker on CPU %d, waiter on CPU %d%s\n",
	       rounds, seconds, cpus[0], cpus[1],
	       ncpus < 2 ? " (one CPU: not pinned; spinning methods measure the scheduler)" : "");
	printf("calibration took %.1f ms\n", (double)info.calibration_ns / MS);
	print_states(&cal);
	for (i = 0; i < nr_cells; i++)
		if (!cells[i].fixed)
			printf("%s: %d idle periods (cut at %lld ms)\n", cells[i].name, cells[i].pool_n,
			       (long long)(MAX_GAP_NS / MS));
	fflush(stdout);

	gapv = calloc(MAX_SAMPLES + WARMUP, sizeof(*gapv));
	if (!gapv)
		return 1;
	r.c = &chan;
	r.cpus[0] = cpus[0];
	r.cpus[1] = cpus[1];
	for (rd = 0; rd < rounds; rd++) {
		for (i = 0; i < nr_cells; i++) {
			struct cell *cl = &cells[i];
			int64_t mean = 0;
			int n;

			/* the gaps of this cell and round, the same for every method */
			if (cl->fixed) {
				mean = cl->fixed_ns;
			} else {
				for (k = 0; k < cl->pool_n; k++)
					mean += cl->pool[k] / cl->pool_n;
			}
			n = (int)(seconds * SEC / (double)(mean + 20 * US));
			if (n < MIN_HANDOFFS)
				n = MIN_HANDOFFS;
			if (n > MAX_SAMPLES)
				n = MAX_SAMPLES;
			n += WARMUP;
			for (k = 0; k < n; k++)
				gapv[k] = cl->fixed ? cl->fixed_ns :
					  cl->pool[xorshift(&seed) % (uint64_t)cl->pool_n];
			for (j = 0; j < nr_methods; j++) {
				int64_t *lat = r.lat;
				int m = n - WARMUP;

				r.m = &methods[j];
				r.gaps = gapv;
				r.n = n;
				run_one(&r, &cal);
				if (r.errors)
					fprintf(stderr, "bench_uidle: %s, %s: a wait timed out\n",
						methods[j].name, cl->name);
				qsort(lat, (size_t)m, sizeof(*lat), cmp_i64);
				res[i][j].p50[rd] = (double)lat[m / 2];
				res[i][j].p99[rd] = (double)lat[(m * 99) / 100];
				res[i][j].cpu[rd] = r.waited ? 1000.0 * (double)r.cpu / (double)r.waited : 0;
				if (methods[j].kind == M_ENGINE) {
					res[i][j].nr_states = r.nr_states;
					for (k = 0; k < r.nr_states; k++) {
						res[i][j].stays[k] += (double)r.usage[k] / m / rounds;
						memcpy(res[i][j].state_name[k], r.state_name[k],
						       CPUIDLE_NAME_LEN);
					}
				}
			}
			fprintf(stderr, "\rround %d/%d, cell %d/%d   ", rd + 1, rounds, i + 1, nr_cells);
		}
	}
	fprintf(stderr, "\n");

	/* the table */
	printf("\n%-22s %-16s %12s %12s %14s   %s\n", "gaps", "method",
	       "p50 lat us", "p99 lat us", "cpu ms per s", "engine: stays per hand-off");
	for (i = 0; i < nr_cells; i++) {
		for (j = 0; j < nr_methods; j++) {
			struct result *x = &res[i][j];

			printf("%-22s %-16s %12.2f %12.2f %14.2f  ", cells[i].name, methods[j].name,
			       median_d(x->p50, rounds) / US, median_d(x->p99, rounds) / US,
			       median_d(x->cpu, rounds));
			for (k = 0; k < x->nr_states; k++)
				if (x->stays[k] >= 0.005)
					printf(" %s %.2f", x->state_name[k], x->stays[k]);
			printf("\n");
		}
		printf("\n");
	}
	printf("(medians of %d rounds; stays: mean over the rounds)\n", rounds);

	/*
	 * The goal, judged on paired ratios: each round ran every method on the
	 * same gaps one after the other, so the ratio within a round cancels
	 * most of what the host does to both; the median over the rounds.
	 */
	if (spin_idx >= 0 && futex_idx >= 0) {
		printf("\ngoal: p50 <= 1.5x spin's for gaps < 20 us, cpu <= 1.1x condvar's for gaps > 1 ms\n"
		       "(per-round ratios, median over the rounds; the worst gap shown)\n");
		printf("%-16s %26s %28s   %s\n", "method", "worst p50 / spin (<20us)",
		       "worst cpu / condvar (>1ms)", "verdict");
		for (j = 0; j < nr_methods; j++) {
			double worst_lat = 0, worst_cpu = 0, q[MAX_ROUNDS];
			const char *wl = "", *wc = "";

			for (i = 0; i < nr_cells; i++) {
				double v;

				if (!cells[i].fixed)
					continue;
				if (cells[i].fixed_ns < 20 * US) {
					for (rd = 0; rd < rounds; rd++)
						q[rd] = res[i][j].p50[rd] / res[i][spin_idx].p50[rd];
					v = median_d(q, rounds);
					if (v > worst_lat) {
						worst_lat = v;
						wl = cells[i].name;
					}
				}
				if (cells[i].fixed_ns > MS) {
					for (rd = 0; rd < rounds; rd++)
						q[rd] = res[i][j].cpu[rd] / res[i][futex_idx].cpu[rd];
					v = median_d(q, rounds);
					if (v > worst_cpu) {
						worst_cpu = v;
						wc = cells[i].name;
					}
				}
			}
			printf("%-16s %16.2fx (%6s) %18.2fx (%6s)   %s\n", methods[j].name, worst_lat, wl,
			       worst_cpu, wc,
			       worst_lat <= 1.5 && worst_cpu <= 1.1 ? "meets both" :
			       worst_lat <= 1.5 ? "latency only" :
			       worst_cpu <= 1.1 ? "cpu only" : "neither");
		}
	}
	for (i = 0; i < nr_cells; i++)
		free(cells[i].pool);
	free(gapv);
	return 0;
}
