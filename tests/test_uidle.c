// SPDX-License-Identifier: MIT
/*
 * test_uidle.c - the idle engine for user-space threads: its API and its
 * misuse, the state table (detection with an injected CPUID, the
 * derivation of target residencies, calibration and its override), QoS,
 * governor switches and kicks.  Every wait has a deadline: no test can
 * hang.  The stress test and the protocol's model have their own files.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "../uidle/uidle_internal.h"

#define MS		(1000 * CPUIDLE_NSEC_PER_USEC)
#define SEC		CPUIDLE_NSEC_PER_SEC

/* Deadlines for waits that a correct engine ends much sooner. */
#define SAFETY_NS	(5 * SEC)


static int64_t now_ns(void)
{
	return uidle_now_ns();
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / SEC, .tv_nsec = ns % SEC };

	nanosleep(&ts, NULL);
}

static struct uidle_engine *mk_engine(const char *gov, unsigned int states)
{
	struct uidle_engine_opts o = {
		.sz = sizeof(o),
		.governor = gov,
		.states = states,
		.calibration = &fx_uidle_cal,
	};
	struct uidle_engine *e = NULL;

	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_non_null(e);
	return e;
}

static int state_index(struct uidle_engine *e, enum uidle_state_kind kind)
{
	struct uidle_state_info si;
	int i;

	for (i = 0; uidle_engine_state(e, i, &si) == 0; i++)
		if (si.kind == kind)
			return i;
	return -1;
}

static uint64_t usage_of(struct uidle_waiter *w, int i)
{
	return __atomic_load_n(&w->dev.states_usage[i].usage, __ATOMIC_RELAXED);
}

/* Whether @e's state 1 holds the CPU (a table haltpoll cannot govern). */
static bool spin1(struct uidle_engine *e)
{
	struct uidle_state_info si;

	return uidle_engine_state(e, 1, &si) == 0 && si.kind != UIDLE_STATE_FUTEX;
}

/* Only the futex sleep left enabled on @w. */
static void only_futex(struct uidle_engine *e, struct uidle_waiter *w)
{
	int i, f = state_index(e, UIDLE_STATE_FUTEX);

	for (i = 0; i < w->dev.state_count; i++)
		assert_int_equal(cpuidle_disable_state(&w->dev, i, CPUIDLE_STATE_DISABLED_BY_USER,
						       i != f), 0);
}

/* ---------------------------------------------------------------- a waiting thread */

struct bg_wait {
	struct uidle_waiter *w;
	uint32_t *word;
	uint32_t expected;
	int64_t deadline;
	int ret;
	int64_t elapsed;
	pthread_t tid;
};

static void *bg_wait_main(void *arg)
{
	struct bg_wait *b = arg;
	int64_t t0 = now_ns();

	b->ret = uidle_wait(b->w, b->word, b->expected, b->deadline);
	b->elapsed = now_ns() - t0;
	return NULL;
}

static void bg_start(struct bg_wait *b, struct uidle_waiter *w, uint32_t *word)
{
	b->w = w;
	b->word = word;
	b->expected = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	b->deadline = now_ns() + SAFETY_NS;
	b->ret = 1;
	assert_int_equal(pthread_create(&b->tid, NULL, bg_wait_main, b), 0);
}

/* Until @w has entered state @idx @n times (or the safety deadline). */
static bool await_usage(struct uidle_waiter *w, int idx, uint64_t n)
{
	int64_t end = now_ns() + SAFETY_NS;

	while (usage_of(w, idx) < n && now_ns() < end)
		sleep_ns(100 * CPUIDLE_NSEC_PER_USEC);
	return usage_of(w, idx) >= n;
}

/* Until @w is parked in the kernel: in its stay and listed. */
static void await_parked(struct uidle_waiter *w)
{
	int64_t end = now_ns() + SAFETY_NS;

	while (!__atomic_load_n(&w->wait.park, __ATOMIC_ACQUIRE) && now_ns() < end)
		sleep_ns(100 * CPUIDLE_NSEC_PER_USEC);
	assert_true(__atomic_load_n(&w->wait.park, __ATOMIC_ACQUIRE));
}

/* ---------------------------------------------------------------- API misuse */

static void test_engine_create_args(void **state)
{
	struct uidle_engine_opts o = { .sz = sizeof(o), .calibration = &fx_uidle_cal };
	struct uidle_calibration bad = fx_uidle_cal;
	struct uidle_engine *e = NULL;

	(void)state;
	assert_int_equal(uidle_engine_create(NULL, &e), -EINVAL);
	assert_int_equal(uidle_engine_create(&o, NULL), -EINVAL);
	o.sz = sizeof(o) - 1;
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	o.sz = sizeof(o);
	o.states = UIDLE_STATES_ALL + 1;
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	o.states = 0;
	o.flags = 0x80;
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	o.flags = 0;
	o.tick_hz = 10001;
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	o.tick_hz = 0;
	bad.cost[UIDLE_STATE_FUTEX].cpu_ppm = 1000001;
	o.calibration = &bad;
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	bad = fx_uidle_cal;
	bad.cost[UIDLE_STATE_PAUSE].entry_cpu_ns = -1;
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	bad = fx_uidle_cal;
	bad.cost[UIDLE_STATE_PAUSE].exit_latency_ns = -2;
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	o.calibration = &fx_uidle_cal;
	o.governor = "";
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	o.governor = "a-name-far-too-long-for-a-governor";
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	o.governor = "no-such";
	assert_int_equal(uidle_engine_create(&o, &e), -ENOENT);
	assert_null(e);
	assert_int_equal(uidle_engine_destroy(NULL), 0);
	assert_null(uidle_engine_system(NULL));
	assert_int_equal(uidle_engine_state(NULL, 0, NULL), -EINVAL);
	assert_int_equal(uidle_engine_info(NULL, NULL), -EINVAL);
	assert_int_equal(uidle_engine_calibration(NULL, NULL), -EINVAL);

	o.governor = "TEO";	/* by name, case-insensitively as the core finds it */
	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_string_equal(cpuidle_current_governor(uidle_engine_system(e))->name, "teo");
	assert_int_equal(uidle_engine_state(e, -1, &(struct uidle_state_info){ 0 }), -ENOENT);
	assert_int_equal(uidle_engine_state(e, 99, &(struct uidle_state_info){ 0 }), -ENOENT);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

static void test_waiter_misuse(void **state)
{
	struct uidle_engine *e = mk_engine(NULL, 0), *e2 = mk_engine(NULL, 0);
	struct uidle_waiter w, w2, zero;
	uint32_t word = 7, words[2] = { 0, 0 };

	(void)state;
	memset(&w, 0xa5, sizeof(w));	/* garbage: init must not be fooled */
	memset(&zero, 0, sizeof(zero));
	assert_int_equal(uidle_waiter_init(NULL, &w), -EINVAL);
	assert_int_equal(uidle_waiter_init(e, NULL), -EINVAL);
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	assert_int_equal(w.dev.cpu, 0);
	assert_int_equal(uidle_waiter_init(e, &w), -EBUSY);	/* double init */
	assert_int_equal(uidle_waiter_init(e, &w2), 0);
	assert_int_equal(w2.dev.cpu, 1);			/* the next number */
	assert_int_equal(uidle_engine_destroy(e), -EBUSY);	/* waiters remain */

	assert_int_equal(uidle_wait(NULL, &word, 7, 0), -EINVAL);
	assert_int_equal(uidle_wait(&w, NULL, 7, 0), -EINVAL);
	assert_int_equal(uidle_wait(&w, (const uint32_t *)((char *)words + 1), 0, 0), -EINVAL);
	assert_int_equal(uidle_wait(&zero, &word, 7, 0), -ENOENT);	/* never initialised */
	assert_int_equal(uidle_waiter_fini(&zero), -ENOENT);
	assert_int_equal(uidle_waiter_fini(NULL), -EINVAL);

	/* waking nothing */
	assert_int_equal(uidle_wake(NULL, &word, 1), -EINVAL);
	assert_int_equal(uidle_wake(e, NULL, 1), -EINVAL);
	assert_int_equal(uidle_wake(e, &word, -1), -EINVAL);
	assert_int_equal(uidle_wake(e, &word, 0), 0);
	assert_int_equal(uidle_wake(e, &word, UIDLE_WAKE_ALL), 0);
	assert_int_equal(uidle_wake(e2, &word, 1), 0);

	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_waiter_fini(&w), -ENOENT);	/* double fini */
	assert_int_equal(uidle_wait(&w, &word, 7, 0), -ENOENT);
	assert_int_equal(uidle_waiter_init(e2, &w), 0);		/* initialised again */
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_waiter_fini(&w2), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
	assert_int_equal(uidle_engine_destroy(e2), 0);
}

/*
 * A waiter of one engine initialised into another without
 * uidle_waiter_fini(): refused, and the first engine keeps it intact.
 * A stale engine pointer in memory that no engine lists is accepted.
 */
static void test_waiter_of_other_engine(void **state)
{
	struct uidle_engine *a = mk_engine("menu", 0), *b = mk_engine("teo", 0);
	struct uidle_waiter w, w0, stale;
	uint32_t word = 0;

	(void)state;
	memset(&w, 0, sizeof(w));
	assert_int_equal(uidle_waiter_init(a, &w0), 0);
	assert_int_equal(uidle_waiter_init(a, &w), 0);
	assert_int_equal(w.dev.cpu, 1);
	assert_int_equal(uidle_waiter_init(b, &w), -EBUSY);
	/* untouched: still a's, under a's governor */
	assert_ptr_equal(w.engine, a);
	assert_int_equal(w.dev.cpu, 1);
	assert_true(w.dev.registered);
	assert_int_equal(cpuidle_switch_governor(uidle_engine_system(a), "ladder"), 0);
	assert_int_equal(uidle_wait(&w, &word, 0, now_ns() + MS), -ETIMEDOUT);
	assert_int_equal(uidle_engine_destroy(a), -EBUSY);
	assert_int_equal(uidle_engine_destroy(b), 0);	/* b never had it */
	b = mk_engine("teo", 0);

	/* garbage that names a live engine and a taken number: not a waiter */
	memset(&stale, 0x5a, sizeof(stale));
	stale.engine = a;
	stale.dev.cpu = 0;	/* w0's */
	stale.busy = 0;		/* fini's "not waiting" */
	assert_int_equal(uidle_waiter_fini(&stale), -ENOENT);
	assert_true(w0.dev.registered);
	assert_int_equal(uidle_waiter_init(b, &stale), 0);
	assert_int_equal(stale.dev.cpu, 0);
	assert_int_equal(uidle_waiter_fini(&stale), 0);

	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_waiter_init(b, &w), 0);	/* finalised: free to move */
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_waiter_fini(&w0), 0);
	assert_int_equal(uidle_engine_destroy(a), 0);
	assert_int_equal(uidle_engine_destroy(b), 0);
}

/* The numbers run out: UIDLE_MAX_WAITERS waiters, then -ENOSPC. */
static void test_waiter_numbers(void **state)
{
	struct uidle_engine *e = mk_engine(NULL, 0);
	struct uidle_waiter *w = calloc(UIDLE_MAX_WAITERS + 1, sizeof(*w));
	unsigned int i;

	(void)state;
	assert_non_null(w);
	for (i = 0; i < UIDLE_MAX_WAITERS; i++)
		assert_int_equal(uidle_waiter_init(e, &w[i]), 0);
	assert_int_equal(uidle_waiter_init(e, &w[UIDLE_MAX_WAITERS]), -ENOSPC);
	assert_int_equal(uidle_waiter_fini(&w[5]), 0);
	assert_int_equal(uidle_waiter_init(e, &w[UIDLE_MAX_WAITERS]), 0);
	assert_int_equal(w[UIDLE_MAX_WAITERS].dev.cpu, 5);	/* the lowest free number */
	for (i = 0; i <= UIDLE_MAX_WAITERS; i++)
		if (i != 5)
			assert_int_equal(uidle_waiter_fini(&w[i]), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
	free(w);
}

/* ---------------------------------------------------------------- waits that end at once */

static void test_wait_returns_at_once(void **state)
{
	struct uidle_engine *e = mk_engine(NULL, 0);
	struct uidle_waiter w;
	uint32_t word = 3;
	uint64_t usage = 0;
	int64_t t0;
	int i;

	(void)state;
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	t0 = now_ns();
	/* the word already changed: 0, whatever the deadline */
	assert_int_equal(uidle_wait(&w, &word, 2, UIDLE_NO_DEADLINE), 0);
	assert_int_equal(uidle_wait(&w, &word, 2, 0), 0);
	assert_int_equal(uidle_wait(&w, &word, 2, -5), 0);
	/* deadline in the past */
	assert_int_equal(uidle_wait(&w, &word, 3, 0), -ETIMEDOUT);
	assert_int_equal(uidle_wait(&w, &word, 3, now_ns() - MS), -ETIMEDOUT);
	assert_int_equal(uidle_wait(&w, &word, 3, INT64_MIN), -ETIMEDOUT);
	assert_true(now_ns() - t0 < 100 * MS);
	/* none of them idled */
	for (i = 0; i < w.dev.state_count; i++)
		usage += usage_of(&w, i);
	assert_int_equal(usage, 0);
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

static void test_wait_times_out(void **state)
{
	struct uidle_engine *e = mk_engine(NULL, 0);
	struct uidle_waiter w;
	uint32_t word = 0;
	uint64_t usage = 0;
	int64_t t0, dt;
	int i;

	(void)state;
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	t0 = now_ns();
	assert_int_equal(uidle_wait(&w, &word, 0, t0 + 3 * MS), -ETIMEDOUT);
	dt = now_ns() - t0;
	assert_true(dt >= 3 * MS);
	assert_true(dt < SEC);
	for (i = 0; i < w.dev.state_count; i++)
		usage += usage_of(&w, i);
	assert_true(usage >= 1);
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/* ---------------------------------------------------------------- wake-ups */

static void test_wake_from_futex(void **state)
{
	struct uidle_engine *e = mk_engine(NULL, 0);
	int f = state_index(e, UIDLE_STATE_FUTEX);
	struct uidle_waiter w;
	struct bg_wait b;
	uint32_t word = 0;

	(void)state;
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	only_futex(e, &w);
	bg_start(&b, &w, &word);
	await_parked(&w);
	/* the same waiter from a second thread, and its fini: busy */
	assert_int_equal(uidle_wait(&w, &word, 0, now_ns() + MS), -EBUSY);
	assert_int_equal(uidle_waiter_fini(&w), -EBUSY);
	__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
	assert_int_equal(uidle_wake(e, &word, 1), 1);
	pthread_join(b.tid, NULL);
	assert_int_equal(b.ret, 0);
	assert_true(b.elapsed < SAFETY_NS);
	assert_int_equal(usage_of(&w, f), 1);
	assert_int_equal(uidle_wake(e, &word, 1), 0);	/* nobody left */
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/* Three sleepers on one word: wake(1) wakes one, the oldest; ALL the rest. */
static void test_wake_counts(void **state)
{
	struct uidle_engine *e = mk_engine(NULL, 0);
	struct uidle_waiter w[3];
	struct bg_wait b[3];
	uint32_t word = 0, other = 0;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		assert_int_equal(uidle_waiter_init(e, &w[i]), 0);
		only_futex(e, &w[i]);
		bg_start(&b[i], &w[i], &word);
		await_parked(&w[i]);
	}
	assert_int_equal(uidle_wake(e, &other, UIDLE_WAKE_ALL), 0);	/* another word */
	__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
	assert_int_equal(uidle_wake(e, &word, 1), 1);
	pthread_join(b[0].tid, NULL);	/* the first parked */
	assert_int_equal(b[0].ret, 0);
	/* futex semantics: the others see the change only when woken */
	assert_true(__atomic_load_n(&w[1].wait.park, __ATOMIC_ACQUIRE));
	assert_int_equal(uidle_wake(e, &word, UIDLE_WAKE_ALL), 2);
	for (i = 1; i < 3; i++) {
		pthread_join(b[i].tid, NULL);
		assert_int_equal(b[i].ret, 0);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(uidle_waiter_fini(&w[i]), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/* A producer with gaps and a consumer counting up to @n, on @e. */
struct handoff {
	struct uidle_engine *e;
	uint32_t word;
	int n;
	const int64_t *gaps;
	int nr_gaps;
	int switch_every;	/* the producer switches governor every so many */
};

static const char *const all_governors[] = { "menu", "teo", "ladder", "haltpoll", "hazard" };

static void *producer_main(void *arg)
{
	struct handoff *h = arg;
	int i;

	for (i = 0; i < h->n; i++) {
		int64_t gap = h->gaps[i % h->nr_gaps];

		if (gap >= 50 * CPUIDLE_NSEC_PER_USEC) {
			sleep_ns(gap);
		} else {
			int64_t end = now_ns() + gap;

			while (now_ns() < end)
				;
		}
		__atomic_fetch_add(&h->word, 1, __ATOMIC_RELEASE);
		uidle_wake(h->e, &h->word, 1);
		if (h->switch_every && i % h->switch_every == 0) {
			const char *gov = all_governors[(i / h->switch_every) % 5];
			int ret = cpuidle_switch_governor(uidle_engine_system(h->e), gov);

			/* haltpoll refuses a table whose state 1 spins */
			if (!(ret == -EOPNOTSUPP && !strcmp(gov, "haltpoll") && spin1(h->e)))
				assert_int_equal(ret, 0);
		}
	}
	return NULL;
}

/* Consume @h's @n changes as waiter @w; all within the safety deadline. */
static void run_handoffs(struct handoff *h, struct uidle_waiter *w)
{
	int64_t deadline = now_ns() + 4 * SAFETY_NS;
	pthread_t tid;
	uint32_t v;

	assert_int_equal(pthread_create(&tid, NULL, producer_main, h), 0);
	while ((v = __atomic_load_n(&h->word, __ATOMIC_ACQUIRE)) < (uint32_t)h->n)
		assert_int_equal(uidle_wait(w, &h->word, v, deadline), 0);
	pthread_join(tid, NULL);
}

static const int64_t mixed_gaps[] = {
	2 * CPUIDLE_NSEC_PER_USEC, 300 * CPUIDLE_NSEC_PER_USEC, 5 * CPUIDLE_NSEC_PER_USEC,
	2 * MS, 20 * CPUIDLE_NSEC_PER_USEC, 1 * CPUIDLE_NSEC_PER_USEC,
};

/* ---------------------------------------------------------------- QoS */

/* Under @qos_us, every governor leaves the states slower than it alone. */
static void check_qos(int32_t qos_us)
{
	unsigned int g;

	for (g = 0; g < sizeof(all_governors) / sizeof(all_governors[0]); g++) {
		struct uidle_engine *e = mk_engine(all_governors[g], 0);
		struct cpuidle_system *sys = uidle_engine_system(e);
		struct handoff h = { .e = e, .n = 60, .gaps = mixed_gaps,
				     .nr_gaps = FX_ARRAY_SIZE(mixed_gaps) };
		struct uidle_waiter w;
		int i;

		assert_int_equal(pm_qos_add_requirement(sys, PM_QOS_CPU_DMA_LATENCY, "rt", qos_us), 0);
		assert_int_equal(uidle_waiter_init(e, &w), 0);
		run_handoffs(&h, &w);
		for (i = 0; i < w.dev.state_count; i++) {
			if (w.dev.states[i].exit_latency_ns > (int64_t)qos_us * CPUIDLE_NSEC_PER_USEC) {
				if (usage_of(&w, i))
					fail_msg("%s: state %s entered under QoS %d us", all_governors[g],
						 w.dev.states[i].name, qos_us);
			}
		}
		if (qos_us == 0)	/* only the busy poll */
			for (i = 1; i < w.dev.state_count; i++)
				assert_int_equal(usage_of(&w, i), 0);
		assert_true(usage_of(&w, 0) + (w.dev.state_count > 1 ? usage_of(&w, 1) : 0) > 0);
		assert_int_equal(uidle_waiter_fini(&w), 0);
		assert_int_equal(uidle_engine_destroy(e), 0);
	}
}

static void test_qos_zero_only_poll(void **state)
{
	(void)state;
	check_qos(0);
}

/* A latency-critical thread asks for 5 us and never sleeps in the kernel. */
static void test_qos_5us_never_sleeps(void **state)
{
	(void)state;
	check_qos(5);
}

/*
 * Per thread: a waiter with its own 5 us limit (its device's resume
 * latency) never sleeps in the kernel, while another waiter of the same
 * engine, without one, does.
 */
static void test_resume_latency_per_waiter(void **state)
{
	unsigned int g;

	(void)state;
	for (g = 0; g < sizeof(all_governors) / sizeof(all_governors[0]); g++) {
		struct uidle_engine *e = mk_engine(all_governors[g], 0);
		struct handoff h = { .e = e, .n = 60, .gaps = mixed_gaps,
				     .nr_gaps = FX_ARRAY_SIZE(mixed_gaps) };
		struct handoff h2 = h;
		int f = state_index(e, UIDLE_STATE_FUTEX), i;
		struct uidle_waiter rt, any;

		assert_int_equal(uidle_waiter_init(e, &rt), 0);
		assert_int_equal(uidle_waiter_init(e, &any), 0);
		assert_int_equal(cpuidle_set_resume_latency(&rt.dev, 5), 0);
		run_handoffs(&h, &rt);
		run_handoffs(&h2, &any);
		for (i = 0; i < rt.dev.state_count; i++)
			if (rt.dev.states[i].exit_latency_ns > 5 * CPUIDLE_NSEC_PER_USEC &&
			    usage_of(&rt, i))
				fail_msg("%s: state %s entered under a 5 us limit", all_governors[g],
					 rt.dev.states[i].name);
		assert_int_equal(usage_of(&rt, f), 0);
		print_message("%s: FUTEX stays: limited waiter %llu, the other %llu\n",
			      all_governors[g], (unsigned long long)usage_of(&rt, f),
			      (unsigned long long)usage_of(&any, f));
		assert_true(usage_of(&any, f) > 0);	/* 2 ms and 300 us gaps: it sleeps */
		assert_int_equal(uidle_waiter_fini(&rt), 0);
		assert_int_equal(uidle_waiter_fini(&any), 0);
		assert_int_equal(uidle_engine_destroy(e), 0);
	}
}

/* What lowers a sleeping waiter's latency limit to 5 us. */
typedef int (*limit_fn)(struct uidle_engine *e, struct uidle_waiter *w);

static int limit_by_qos(struct uidle_engine *e, struct uidle_waiter *w)
{
	(void)w;
	return pm_qos_add_requirement(uidle_engine_system(e), PM_QOS_CPU_DMA_LATENCY, "rt", 5);
}

static int limit_by_resume_latency(struct uidle_engine *e, struct uidle_waiter *w)
{
	(void)e;
	return cpuidle_set_resume_latency(&w->dev, 5);
}

/*
 * A waiter asleep in FUTEX (menu, no deadline to speak of), then @limit:
 * it is kicked, its FUTEX stay ends at once and the next one spins.
 */
static void check_limit_kicks_sleeper(limit_fn limit)
{
	struct uidle_engine *e = mk_engine("menu", 0);
	int f = state_index(e, UIDLE_STATE_FUTEX), p = state_index(e, UIDLE_STATE_PAUSE);
	struct uidle_waiter w;
	struct bg_wait b;
	uint32_t word = 0;

	if (p < 0)
		p = 0;	/* no PAUSE on this CPU: POLL */
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	bg_start(&b, &w, &word);
	await_parked(&w);
	assert_int_equal(usage_of(&w, p), 0);
	assert_int_equal(limit(e, &w), 0);
	assert_true(await_usage(&w, f, 1));
	assert_true(await_usage(&w, p, 1));
	assert_false(__atomic_load_n(&w.wait.park, __ATOMIC_ACQUIRE));
	__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
	uidle_wake(e, &word, 1);
	pthread_join(b.tid, NULL);
	assert_int_equal(b.ret, 0);
	assert_int_equal(usage_of(&w, f), 1);
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/* A QoS change kicks a sleeper out of the kernel; it goes on spinning. */
static void test_qos_change_kicks(void **state)
{
	(void)state;
	check_limit_kicks_sleeper(limit_by_qos);
}

/* A waiter's own resume latency, set while it sleeps, kicks it too. */
static void test_resume_latency_change_kicks(void **state)
{
	(void)state;
	check_limit_kicks_sleeper(limit_by_resume_latency);
}

/* ---------------------------------------------------------------- governors */

/* A switch pauses the system: it must kick a sleeper, not wait for it. */
static void test_governor_switch_while_sleeping(void **state)
{
	struct uidle_engine *e = mk_engine("menu", 0);
	struct cpuidle_system *sys = uidle_engine_system(e);
	struct uidle_waiter w;
	struct bg_wait b;
	uint32_t word = 0;
	char buf[32];
	int64_t t0;
	int i;

	(void)state;
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	only_futex(e, &w);
	bg_start(&b, &w, &word);
	await_parked(&w);
	t0 = now_ns();
	assert_int_equal(cpuidle_switch_governor(sys, "teo"), 0);
	assert_int_equal(cpuidle_attr_write(sys, "cpuidle/current_governor", "hazard\n"), 0);
	assert_true(now_ns() - t0 < SEC);
	assert_true(cpuidle_attr_read(sys, "cpuidle/current_governor", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "hazard\n");
	/* still waiting: the word has not changed */
	await_parked(&w);
	assert_int_equal(b.ret, 1);
	__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
	/* 1, or 0 if it was in a last default-idle slice that just ended */
	i = uidle_wake(e, &word, 1);
	assert_true(i == 0 || i == 1);
	pthread_join(b.tid, NULL);
	assert_int_equal(b.ret, 0);
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/* Hand-offs keep flowing while the producer switches governors under them. */
static void test_governor_switch_under_load(void **state)
{
	struct uidle_engine *e = mk_engine(NULL, 0);
	struct handoff h = { .e = e, .n = 400, .gaps = mixed_gaps,
			     .nr_gaps = FX_ARRAY_SIZE(mixed_gaps), .switch_every = 20 };
	struct uidle_waiter w;
	uint64_t total = 0;
	int i;

	(void)state;
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	run_handoffs(&h, &w);
	for (i = 0; i < w.dev.state_count; i++)
		total += usage_of(&w, i);
	assert_true(total > 0);
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/* A disabled device idles outside the governor, bounded and uncounted. */
static void test_disabled_device(void **state)
{
	struct uidle_engine *e = mk_engine(NULL, 0);
	struct cpuidle_system *sys = uidle_engine_system(e);
	struct uidle_waiter w;
	uint32_t word = 0;
	uint64_t usage = 0;
	int i;

	(void)state;
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	cpuidle_pause_and_lock(sys);
	assert_int_equal(cpuidle_disable_device(&w.dev), 0);
	cpuidle_resume_and_unlock(sys);
	assert_int_equal(uidle_wait(&w, &word, 0, now_ns() + 3 * MS), -ETIMEDOUT);
	for (i = 0; i < w.dev.state_count; i++)
		usage += usage_of(&w, i);
	assert_int_equal(usage, 0);
	cpuidle_pause_and_lock(sys);
	assert_int_equal(cpuidle_enable_device(&w.dev), 0);
	cpuidle_resume_and_unlock(sys);
	assert_int_equal(uidle_wait(&w, &word, 0, now_ns() + MS), -ETIMEDOUT);
	for (i = 0; i < w.dev.state_count; i++)
		usage += usage_of(&w, i);
	assert_true(usage > 0);
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/* haltpoll comes with the cpuidle-haltpoll driver's shape: poll, then sleep. */
static void test_haltpoll_layout(void **state)
{
	struct uidle_engine *e = mk_engine("haltpoll", 0);
	struct uidle_engine_info info;
	struct uidle_state_info si;

	(void)state;
	assert_int_equal(uidle_engine_info(e, &info), 0);
	assert_int_equal(info.state_count, 2);
	assert_int_equal(uidle_engine_state(e, 0, &si), 0);
	assert_int_equal(si.kind, UIDLE_STATE_POLL);
	assert_int_equal(uidle_engine_state(e, 1, &si), 0);
	assert_int_equal(si.kind, UIDLE_STATE_FUTEX);
	assert_int_equal(uidle_engine_destroy(e), 0);

	/* an explicit set wins; POLL is always there */
	e = mk_engine("haltpoll", UIDLE_STATE_BIT(UIDLE_STATE_FUTEX));
	assert_int_equal(uidle_engine_info(e, &info), 0);
	assert_int_equal(info.built, UIDLE_STATE_BIT(UIDLE_STATE_POLL) |
				     UIDLE_STATE_BIT(UIDLE_STATE_FUTEX));
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/*
 * haltpoll chooses only between states 0 and 1: on a table whose state 1
 * spins, an idle waiter would never sleep.  Such a table is refused, at
 * creation and at a switch; the old governor stays.
 */
static void test_haltpoll_refuses_spinning_table(void **state)
{
	struct uidle_engine_opts o = {
		.sz = sizeof(o), .governor = "haltpoll", .states = UIDLE_STATES_ALL,
		.calibration = &fx_uidle_cal,
	};
	struct uidle_engine *e = mk_engine("menu", 0);
	struct cpuidle_system *sys = uidle_engine_system(e);
	struct uidle_waiter w;

	(void)state;
	if (!spin1(e)) {	/* no PAUSE, UMWAIT or MWAITX here */
		assert_int_equal(uidle_engine_destroy(e), 0);
		skip();
	}
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	assert_int_equal(cpuidle_switch_governor(sys, "haltpoll"), -EOPNOTSUPP);
	assert_string_equal(cpuidle_current_governor(sys)->name, "menu");
	assert_int_equal(cpuidle_switch_governor(sys, "teo"), 0);
	assert_int_equal(uidle_waiter_fini(&w), 0);
	/* with no waiter the switch succeeds; the first waiter is refused */
	assert_int_equal(cpuidle_switch_governor(sys, "haltpoll"), 0);
	assert_int_equal(uidle_waiter_init(e, &w), -EOPNOTSUPP);
	assert_int_equal(uidle_engine_destroy(e), 0);

	e = NULL;
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	assert_null(e);
	o.states = UIDLE_STATE_BIT(UIDLE_STATE_POLL);	/* spins as asked */
	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/* ---------------------------------------------------------------- the table */

/* A fake CPUID: leaf 0 max, leaf 7 ECX, extended max, extended ECX. */
struct fake_cpuid {
	int present;
	uint32_t max, leaf7_ecx, ext_max, ext1_ecx;
};

static int fake_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t regs[4], void *ctx)
{
	const struct fake_cpuid *f = ctx;

	(void)subleaf;
	memset(regs, 0, 4 * sizeof(regs[0]));
	if (!f->present)
		return -ENOSYS;
	if (leaf == 0) {
		regs[0] = f->max;
	} else if (leaf == 7) {
		if (f->max < 7)
			return -ENOENT;
		regs[2] = f->leaf7_ecx;
	} else if (leaf == 0x80000000u) {
		regs[0] = f->ext_max;
	} else if (leaf == 0x80000001u) {
		if (f->ext_max < 0x80000001u)
			return -ENOENT;
		regs[2] = f->ext1_ecx;
	} else {
		return -ENOENT;
	}
	return 0;
}

static const struct fake_cpuid intel_spr = { 1, 0x20, 1u << 5, 0x80000008u, 0 };
static const struct fake_cpuid amd_zen = { 1, 0x10, 0, 0x80000021u, 1u << 29 };
static const struct fake_cpuid amd_guest = { 1, 0x10, 0, 0x80000021u, 0 };
static const struct fake_cpuid old_x86 = { 1, 5, 1u << 5, 0x80000000u, 1u << 29 };
static const struct fake_cpuid no_cpuid = { 0, 0, 0, 0, 0 };

static void expect_kinds(const struct fake_cpuid *f, unsigned int want)
{
	struct uidle_cpu cpu;

	assert_int_equal(uidle_cpu_detect(fake_cpuid, (void *)f, &cpu), 0);
	assert_int_equal(uidle_cpu_kinds(&cpu), want);
}

#define B(k)	UIDLE_STATE_BIT(UIDLE_STATE_##k)

static void test_detection(void **state)
{
	bool x86 = false;

	(void)state;
#if defined(__x86_64__) || defined(__i386__)
	x86 = true;
#endif
	assert_int_equal(uidle_cpu_detect(NULL, NULL, NULL), -EINVAL);
	expect_kinds(&intel_spr, B(POLL) | B(PAUSE) | B(FUTEX) | (x86 ? B(UMWAIT) : 0));
	expect_kinds(&amd_zen, B(POLL) | B(PAUSE) | B(FUTEX) | (x86 ? B(MWAITX) : 0));
	expect_kinds(&amd_guest, B(POLL) | B(PAUSE) | B(FUTEX));
	/* bits set in leaves the CPU says it does not have count for nothing */
	expect_kinds(&old_x86, B(POLL) | B(PAUSE) | B(FUTEX));
	{
		struct uidle_cpu cpu;

		assert_int_equal(uidle_cpu_detect(fake_cpuid, (void *)&no_cpuid, &cpu), 0);
		assert_false(cpu.x86);
		assert_false(cpu.waitpkg);
		assert_false(cpu.monitorx);
		assert_false(cpu.pause);
	}
}

/* The table with every kind: order, and the derivation of the DOC block. */
static void test_table_derivation(void **state)
{
	struct uidle_calibration cal = fx_uidle_cal;
	struct uidle_table t;
	int i;

	(void)state;
	assert_int_equal(uidle_table_build(UIDLE_STATES_ALL, &cal, &t), 0);
	assert_int_equal(t.count, UIDLE_NR_STATE_KINDS);
	for (i = 0; i < t.count; i++)
		assert_int_equal(t.states[i].kind, i);
	assert_int_equal(t.states[0].exit_latency_ns, 0);
	assert_int_equal(t.states[0].target_residency_ns, 0);
	assert_int_equal(t.states[1].exit_latency_ns, 50);
	assert_int_equal(t.states[1].target_residency_ns, 100);	/* 2 x latency */
	assert_int_equal(t.states[2].exit_latency_ns, 500);
	assert_int_equal(t.states[3].target_residency_ns, 1400);
	/* futex: c 0 against 1, E 20 us: break-even 20 us < 2 x 30 us */
	assert_int_equal(t.states[4].exit_latency_ns, 30000);
	assert_int_equal(t.states[4].target_residency_ns, 60000);

	/* a dear entry: the CPU break-even wins */
	cal.cost[UIDLE_STATE_FUTEX].entry_cpu_ns = 100000;
	assert_int_equal(uidle_table_build(B(PAUSE) | B(FUTEX), &cal, &t), 0);
	assert_int_equal(t.count, 3);	/* POLL comes uninvited */
	assert_int_equal(t.states[2].target_residency_ns, 100000);
	/* half a CPU saved: twice the break-even */
	cal.cost[UIDLE_STATE_FUTEX].cpu_ppm = 500000;
	assert_int_equal(uidle_table_build(B(FUTEX), &cal, &t), 0);
	assert_int_equal(t.states[1].target_residency_ns, 200000);
	/* 5% saved is noise: the latency rule alone */
	cal.cost[UIDLE_STATE_FUTEX].cpu_ppm = 950000;
	assert_int_equal(uidle_table_build(B(FUTEX), &cal, &t), 0);
	assert_int_equal(t.states[1].target_residency_ns, 60000);

	/* a deeper kind measured faster is recorded 1 ns slower; residencies never drop */
	cal = fx_uidle_cal;
	cal.cost[UIDLE_STATE_PAUSE].exit_latency_ns = 0;
	cal.cost[UIDLE_STATE_UMWAIT].exit_latency_ns = 400;
	cal.cost[UIDLE_STATE_MWAITX].exit_latency_ns = 100;
	assert_int_equal(uidle_table_build(UIDLE_STATES_ALL, &cal, &t), 0);
	assert_int_equal(t.states[1].exit_latency_ns, 1);
	assert_int_equal(t.states[3].exit_latency_ns, 401);
	assert_int_equal(t.states[3].target_residency_ns, 802);
	for (i = 1; i < t.count; i++) {
		assert_true(t.states[i].exit_latency_ns > t.states[i - 1].exit_latency_ns);
		assert_true(t.states[i].target_residency_ns >= t.states[i - 1].target_residency_ns);
	}
	assert_int_equal(uidle_table_build(1u << UIDLE_NR_STATE_KINDS, &cal, &t), -EINVAL);
}

/* The real CPU: a kind is built exactly where /proc/cpuinfo shows its flag. */
static bool cpuinfo_has(const char *flag)
{
	char line[8192];
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *tok, *save;

		if (strncmp(line, "flags", 5))
			continue;
		for (tok = strtok_r(strchr(line, ':'), " \n:", &save); tok;
		     tok = strtok_r(NULL, " \n", &save))
			if (!strcmp(tok, flag))
				found = true;
		break;
	}
	fclose(f);
	return found;
}

static void test_real_table(void **state)
{
	struct uidle_engine_opts o = { .sz = sizeof(o), .flags = UIDLE_ENGINE_NO_CALIBRATE };
	struct uidle_engine_info info;
	struct uidle_engine *e;
	char buf[64], path[64];
	int i;

	(void)state;
	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_int_equal(uidle_engine_info(e, &info), 0);
	assert_int_equal(info.calibration_ns, 0);
	assert_int_equal(!!(info.built & B(UMWAIT)), cpuinfo_has("waitpkg"));
	assert_int_equal(!!(info.built & B(MWAITX)), cpuinfo_has("mwaitx"));
	assert_true(info.built & B(POLL));
	assert_true(info.built & B(FUTEX));
	print_message("uidle: this CPU: %s%s%s%s%s (%d states)\n",
		      info.built & B(POLL) ? "POLL " : "", info.built & B(PAUSE) ? "PAUSE " : "",
		      info.built & B(UMWAIT) ? "UMWAIT " : "", info.built & B(MWAITX) ? "MWAITX " : "",
		      info.built & B(FUTEX) ? "FUTEX" : "", info.state_count);
	/* the attribute tree shows the driver's table on every waiter */
	{
		struct uidle_waiter w;

		assert_int_equal(uidle_waiter_init(e, &w), 0);
		assert_true(cpuidle_attr_read(uidle_engine_system(e), "cpuidle/current_driver",
					      buf, sizeof(buf)) > 0);
		assert_string_equal(buf, "uidle\n");
		for (i = 0; i < info.state_count; i++) {
			struct uidle_state_info si;

			assert_int_equal(uidle_engine_state(e, i, &si), 0);
			assert_false(si.measured);
			snprintf(path, sizeof(path), "cpu0/cpuidle/state%d/name", i);
			assert_true(cpuidle_attr_read(uidle_engine_system(e), path, buf,
						      sizeof(buf)) > 0);
			buf[strlen(buf) - 1] = '\0';
			assert_string_equal(buf, si.name);
		}
		assert_int_equal(uidle_waiter_fini(&w), 0);
	}
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/* An injected CPUID can take instructions away, never add them. */
static void test_injected_cpuid(void **state)
{
	struct uidle_engine_opts o = {
		.sz = sizeof(o), .calibration = &fx_uidle_cal, .cpuid = fake_cpuid,
	};
	struct fake_cpuid everything = { 1, 0x20, ~0u, 0x80000021u, ~0u };
	struct uidle_engine_info info, real;
	struct uidle_engine *e;

	(void)state;
	e = mk_engine(NULL, 0);
	assert_int_equal(uidle_engine_info(e, &real), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);

	o.cpuid_ctx = &everything;
	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_int_equal(uidle_engine_info(e, &info), 0);
	assert_int_equal(info.built, real.built);
	assert_int_equal(uidle_engine_destroy(e), 0);

	o.cpuid_ctx = (void *)&amd_guest;	/* this VM's answer, wherever it runs */
	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_int_equal(uidle_engine_info(e, &info), 0);
	assert_int_equal(info.built & (B(UMWAIT) | B(MWAITX)), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);

	o.cpuid_ctx = (void *)&no_cpuid;	/* not even PAUSE */
	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_int_equal(uidle_engine_info(e, &info), 0);
	assert_int_equal(info.built, B(POLL) | B(FUTEX));
	assert_int_equal(info.state_count, 2);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/* Only states this CPU lacks asked for: refused, not a POLL-only engine. */
static void test_states_unavailable(void **state)
{
	struct uidle_engine_opts o = {
		.sz = sizeof(o), .calibration = &fx_uidle_cal, .cpuid = fake_cpuid,
		.cpuid_ctx = (void *)&no_cpuid,
	};
	struct uidle_engine_info info;
	struct uidle_engine *e = NULL;

	(void)state;
	o.states = B(UMWAIT);
	assert_int_equal(uidle_engine_create(&o, &e), -EOPNOTSUPP);
	o.states = B(POLL) | B(PAUSE) | B(UMWAIT) | B(MWAITX);
	assert_int_equal(uidle_engine_create(&o, &e), -EOPNOTSUPP);
	assert_null(e);
	o.states = B(UMWAIT) | B(FUTEX);	/* one of them exists */
	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_int_equal(uidle_engine_info(e, &info), 0);
	assert_int_equal(info.built, B(POLL) | B(FUTEX));
	assert_int_equal(uidle_engine_destroy(e), 0);
	o.states = B(POLL);			/* a busy poll, as asked */
	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_int_equal(uidle_engine_info(e, &info), 0);
	assert_int_equal(info.built, B(POLL));
	assert_int_equal(uidle_engine_destroy(e), 0);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_umwait_control(void **state)
{
	char dir[] = "/tmp/uidle-umwait-XXXXXX";
	uint32_t max_time;
	bool c02;

	(void)state;
	assert_non_null(mkdtemp(dir));
	uidle_umwait_control_read("/nonexistent/umwait_control", &max_time, &c02);
	assert_int_equal(max_time, 100000);	/* the kernel's defaults */
	assert_true(c02);
	write_file(dir, "max_time", "50000\n");
	write_file(dir, "enable_c02", "0\n");
	uidle_umwait_control_read(dir, &max_time, &c02);
	assert_int_equal(max_time, 50000);
	assert_false(c02);
	write_file(dir, "max_time", "0\n");	/* no limit */
	uidle_umwait_control_read(dir, &max_time, &c02);
	assert_int_equal(max_time, 0);
	write_file(dir, "max_time", "lots\n");	/* unreadable: the default */
	write_file(dir, "enable_c02", "1\n");
	uidle_umwait_control_read(dir, &max_time, &c02);
	assert_int_equal(max_time, 100000);
	assert_true(c02);
	{
		char path[256];

		snprintf(path, sizeof(path), "%s/max_time", dir);
		unlink(path);
		snprintf(path, sizeof(path), "%s/enable_c02", dir);
		unlink(path);
		rmdir(dir);
	}
	/* TSC conversions saturate */
	assert_int_equal(uidle_ns_to_tsc(-5, 3000000), 0);
	assert_int_equal(uidle_ns_to_tsc(1000, 3000000), 3000);
	assert_true(uidle_ns_to_tsc(INT64_MAX, 3000000) == UINT64_MAX);
}

/* ---------------------------------------------------------------- calibration */

static void fx_uidle_calibration_override(void **state)
{
	struct uidle_calibration given = fx_uidle_cal, got;
	struct uidle_engine_opts o = { .sz = sizeof(o), .calibration = &given };
	struct uidle_engine_info info;
	struct uidle_state_info si;
	struct uidle_engine *e;
	struct uidle_waiter w;
	char buf[64], path[64];
	int f;

	(void)state;
	given.cost[UIDLE_STATE_PAUSE].exit_latency_ns = -1;	/* not given: default */
	given.cost[UIDLE_STATE_FUTEX] = (struct uidle_state_cost){ 42000, 0, 30000 };
	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_int_equal(uidle_engine_info(e, &info), 0);
	assert_int_equal(info.calibration_ns, 0);
	assert_int_equal(uidle_engine_calibration(e, &got), 0);
	assert_int_equal(got.cost[UIDLE_STATE_FUTEX].exit_latency_ns, 42000);
	assert_int_equal(got.cost[UIDLE_STATE_PAUSE].exit_latency_ns, 100);	/* the default */
	f = state_index(e, UIDLE_STATE_FUTEX);
	assert_int_equal(uidle_engine_state(e, f, &si), 0);
	assert_false(si.measured);
	assert_int_equal(si.exit_latency_ns, 42000);
	assert_int_equal(si.target_residency_ns, 84000);
	/* as any state, in us, in the attribute tree */
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	snprintf(path, sizeof(path), "cpu0/cpuidle/state%d/latency", f);
	assert_true(cpuidle_attr_read(uidle_engine_system(e), path, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "42\n");
	snprintf(path, sizeof(path), "cpu0/cpuidle/state%d/residency", f);
	assert_true(cpuidle_attr_read(uidle_engine_system(e), path, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "84\n");
	snprintf(path, sizeof(path), "cpu0/cpuidle/state%d/desc", f);
	assert_true(cpuidle_attr_read(uidle_engine_system(e), path, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "futex sleep, cpu 0% +30000ns\n");
	snprintf(path, sizeof(path), "cpu0/cpuidle/state%d/power", f);
	assert_true(cpuidle_attr_read(uidle_engine_system(e), path, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "4294967295\n");	/* unknown, as intel_idle's */
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
}

/*
 * One calibration, judged: every kind measured is plausible (the futex
 * sleep uses little CPU and has an exit latency, a spinning kind nearly a
 * whole CPU), and the futex sleep, which needs no second CPU, is measured.
 * NULL if so, else what is wrong.
 */
static const char *calibration_fault(struct uidle_engine *e)
{
	struct uidle_engine_info info;
	struct uidle_state_info si;
	int i;

	if (uidle_engine_info(e, &info) || info.calibration_ns <= 0)
		return "no calibration time";
	print_message("uidle: calibration took %.1f ms\n", (double)info.calibration_ns / MS);
	for (i = 0; i < info.state_count; i++) {
		if (uidle_engine_state(e, i, &si))
			return "a state cannot be read";
		print_message("uidle: %-6s exit %8lld ns  residency %8lld ns  cpu %7u ppm + %6lld ns%s\n",
			      si.name, (long long)si.exit_latency_ns,
			      (long long)si.target_residency_ns, si.cost.cpu_ppm,
			      (long long)si.cost.entry_cpu_ns, si.measured ? "" : "  (not measured)");
		if (!si.measured)
			continue;
		if (si.kind == UIDLE_STATE_FUTEX && (si.cost.cpu_ppm >= 500000 || si.exit_latency_ns <= 0))
			return "the futex sleep measured as spinning, or without exit latency";
		if (si.kind != UIDLE_STATE_FUTEX && si.cost.cpu_ppm <= 500000)
			return "a spinning kind measured as sleeping";
	}
	if (uidle_engine_state(e, state_index(e, UIDLE_STATE_FUTEX), &si) || !si.measured)
		return "the futex sleep not measured";
	return NULL;
}

/*
 * The real thing: every kind built is measured, in well under 100 ms.
 * Calibration measures the machine: a busy neighbour (a shared VM, other
 * tests) can spoil one, which the engine then reports as not measured or
 * measures wrong.  Up to CAL_TRIES engines are made; one of them must
 * calibrate right.  A calibration that is wrong every time still fails.
 */
#define CAL_TRIES	5

static void fx_uidle_calibration_measures(void **state)
{
	struct uidle_engine_opts o = { .sz = sizeof(o) };
	const char *fault = "not tried";
	struct uidle_engine *e;
	cpu_set_t set;
	int try;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (try = 1; try <= CAL_TRIES && fault; try++) {
		assert_int_equal(uidle_engine_create(&o, &e), 0);
		fault = calibration_fault(e);
		if (fault)
			print_message("uidle: try %d: %s\n", try, fault);
		assert_int_equal(uidle_engine_destroy(e), 0);
	}
	if (fault)
		fail_msg("%d calibrations, none right; the last: %s", CAL_TRIES, fault);
	if (CPU_COUNT(&set) < 2)
		print_message("uidle: one CPU: the spinning states are not measured\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_engine_create_args),
		cmocka_unit_test(test_waiter_misuse),
		cmocka_unit_test(test_waiter_of_other_engine),
		cmocka_unit_test(test_waiter_numbers),
		cmocka_unit_test(test_wait_returns_at_once),
		cmocka_unit_test(test_wait_times_out),
		cmocka_unit_test(test_wake_from_futex),
		cmocka_unit_test(test_wake_counts),
		cmocka_unit_test(test_qos_zero_only_poll),
		cmocka_unit_test(test_qos_5us_never_sleeps),
		cmocka_unit_test(test_qos_change_kicks),
		cmocka_unit_test(test_resume_latency_per_waiter),
		cmocka_unit_test(test_resume_latency_change_kicks),
		cmocka_unit_test(test_governor_switch_while_sleeping),
		cmocka_unit_test(test_governor_switch_under_load),
		cmocka_unit_test(test_disabled_device),
		cmocka_unit_test(test_haltpoll_layout),
		cmocka_unit_test(test_haltpoll_refuses_spinning_table),
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_table_derivation),
		cmocka_unit_test(test_real_table),
		cmocka_unit_test(test_injected_cpuid),
		cmocka_unit_test(test_states_unavailable),
		cmocka_unit_test(test_umwait_control),
		cmocka_unit_test(fx_uidle_calibration_override),
		cmocka_unit_test(fx_uidle_calibration_measures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
