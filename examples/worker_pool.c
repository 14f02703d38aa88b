// SPDX-License-Identifier: MIT
/*
 * worker_pool.c - a small worker pool whose idle workers wait with the
 * idle engine (libcpuidle-uidle(3)): public headers and the shared library
 * only, as a user would build it.
 *
 * A queue under a mutex, and a sequence word bumped at every submission:
 * an idle worker notes the word while it finds the queue empty, drops the
 * mutex and waits for the word to change.  Whether it spins or sleeps in
 * the kernel meanwhile is the governor's choice, from how long its waits
 * have lasted; a latency limit (pm_qos) would rule out sleeping.  The
 * submitter does the same on a second word when the queue is full.
 *
 * Work comes in bursts with pauses between them, so the workers see short
 * and long waits.  At the end each worker's states show in the attribute
 * tree, as any CPU's would.  Exit status 0 when every task ran once.
 *
 *   cc worker_pool.c $(pkg-config --cflags --libs libcpuidle) -o worker_pool
 *   ./worker_pool [GOVERNOR]
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libcpuidle.h>

#define WORKERS		3
#define QUEUE_LEN	64
#define TASKS		3000
#define BURST		100			/* tasks per burst */
#define PAUSE_NS	(2 * 1000 * 1000)	/* between bursts */
#define SAFETY_NS	(2LL * 1000 * 1000 * 1000)	/* no wait lasts longer */

struct pool {
	struct uidle_engine *e;
	pthread_mutex_t mu;
	unsigned long queue[QUEUE_LEN];
	unsigned int head, tail;	/* under mu */
	bool stop;			/* under mu */
	uint32_t work;			/* bumped at each submission and at stop */
	uint32_t room;			/* bumped each time a task is taken */
	unsigned long long sum;		/* under mu */
	unsigned long done;		/* under mu */
};

struct worker {
	struct pool *p;
	struct uidle_waiter w;
	pthread_t tid;
	int err;
};

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A task: something to compute. */
static unsigned long long run_task(unsigned long x)
{
	unsigned long long h = x;
	int i;

	for (i = 0; i < 200; i++)
		h = h * 6364136223846793005ULL + 1442695040888963407ULL;
	return (h >> 60) + x;	/* x plus a small number, the same every time */
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct pool *p = wk->p;

	for (;;) {
		unsigned long x;
		uint32_t seen;

		pthread_mutex_lock(&p->mu);
		if (p->head != p->tail) {
			x = p->queue[p->head++ % QUEUE_LEN];
			pthread_mutex_unlock(&p->mu);
			__atomic_fetch_add(&p->room, 1, __ATOMIC_RELEASE);
			uidle_wake(p->e, &p->room, 1);
			x = (unsigned long)run_task(x);
			pthread_mutex_lock(&p->mu);
			p->sum += x;
			p->done++;
			pthread_mutex_unlock(&p->mu);
			continue;
		}
		if (p->stop) {
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		/* noted under the mutex: a submission after this bumps it */
		seen = __atomic_load_n(&p->work, __ATOMIC_ACQUIRE);
		pthread_mutex_unlock(&p->mu);
		wk->err = uidle_wait(&wk->w, &p->work, seen, now_ns() + SAFETY_NS);
		if (wk->err && wk->err != -ETIMEDOUT)
			return NULL;
	}
}

static int submit(struct pool *p, struct uidle_waiter *self, unsigned long x)
{
	uint32_t seen;
	int ret;

	pthread_mutex_lock(&p->mu);
	while (p->tail - p->head == QUEUE_LEN) {	/* full: wait for room */
		seen = __atomic_load_n(&p->room, __ATOMIC_ACQUIRE);
		pthread_mutex_unlock(&p->mu);
		ret = uidle_wait(self, &p->room, seen, now_ns() + SAFETY_NS);
		if (ret && ret != -ETIMEDOUT)
			return ret;
		pthread_mutex_lock(&p->mu);
	}
	p->queue[p->tail++ % QUEUE_LEN] = x;
	__atomic_fetch_add(&p->work, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&p->mu);
	uidle_wake(p->e, &p->work, 1);
	return 0;
}

/* Per worker and state: usage and time from the attribute tree. */
static void show_states(struct pool *p, struct worker *wk)
{
	struct cpuidle_system *sys = uidle_engine_system(p->e);
	char path[64], name[32], usage[32], time_us[32];
	int i, s;

	printf("%-8s %-8s %10s %12s\n", "worker", "state", "usage", "time[us]");
	for (i = 0; i < WORKERS; i++) {
		for (s = 0; s < wk[i].w.dev.state_count; s++) {
			snprintf(path, sizeof(path), "cpu%u/cpuidle/state%d/name", wk[i].w.dev.cpu, s);
			if (cpuidle_attr_read(sys, path, name, sizeof(name)) < 0)
				continue;
			snprintf(path, sizeof(path), "cpu%u/cpuidle/state%d/usage", wk[i].w.dev.cpu, s);
			cpuidle_attr_read(sys, path, usage, sizeof(usage));
			snprintf(path, sizeof(path), "cpu%u/cpuidle/state%d/time", wk[i].w.dev.cpu, s);
			cpuidle_attr_read(sys, path, time_us, sizeof(time_us));
			name[strcspn(name, "\n")] = '\0';
			usage[strcspn(usage, "\n")] = '\0';
			time_us[strcspn(time_us, "\n")] = '\0';
			printf("%-8u %-8s %10s %12s\n", wk[i].w.dev.cpu, name, usage, time_us);
		}
	}
}

int main(int argc, char **argv)
{
	struct uidle_engine_opts opts = {
		.sz = sizeof(opts),
		.governor = argc > 1 ? argv[1] : NULL,	/* NULL: menu */
	};
	struct worker wk[WORKERS];
	struct uidle_waiter self;
	struct pool p;
	unsigned long long want = 0;
	unsigned long i;
	int ret, k;

	memset(&p, 0, sizeof(p));
	pthread_mutex_init(&p.mu, NULL);
	ret = uidle_engine_create(&opts, &p.e);
	if (ret) {
		fprintf(stderr, "worker_pool: uidle_engine_create: %s\n", strerror(-ret));
		return 1;
	}
	memset(&self, 0, sizeof(self));
	ret = uidle_waiter_init(p.e, &self);
	for (k = 0; k < WORKERS && !ret; k++) {
		memset(&wk[k], 0, sizeof(wk[k]));
		wk[k].p = &p;
		ret = uidle_waiter_init(p.e, &wk[k].w);	/* before the thread starts */
		if (!ret)
			ret = pthread_create(&wk[k].tid, NULL, worker_main, &wk[k]) ? -EAGAIN : 0;
	}
	if (ret) {
		fprintf(stderr, "worker_pool: setup: %s\n", strerror(-ret));
		return 1;
	}

	for (i = 0; i < TASKS; i++) {
		if (i && i % BURST == 0) {
			struct timespec ts = { 0, PAUSE_NS };

			nanosleep(&ts, NULL);	/* the workers go idle for a while */
		}
		want += run_task(i);
		ret = submit(&p, &self, i);
		if (ret) {
			fprintf(stderr, "worker_pool: submit: %s\n", strerror(-ret));
			return 1;
		}
	}
	pthread_mutex_lock(&p.mu);
	p.stop = true;
	__atomic_fetch_add(&p.work, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&p.mu);
	uidle_wake(p.e, &p.work, UIDLE_WAKE_ALL);
	for (k = 0; k < WORKERS; k++)
		pthread_join(wk[k].tid, NULL);

	printf("governor %s: %lu tasks done by %d workers\n",
	       cpuidle_current_governor(uidle_engine_system(p.e))->name, p.done, WORKERS);
	show_states(&p, wk);
	for (k = 0; k < WORKERS; k++) {
		if (wk[k].err && wk[k].err != -ETIMEDOUT)
			fprintf(stderr, "worker_pool: worker %d: %s\n", k, strerror(-wk[k].err));
		uidle_waiter_fini(&wk[k].w);
	}
	uidle_waiter_fini(&self);
	uidle_engine_destroy(p.e);
	if (p.done != TASKS || p.sum != want) {
		fprintf(stderr, "worker_pool: %lu tasks done, sum %llu, want %d and %llu\n", p.done,
			p.sum, TASKS, want);
		return 1;
	}
	return 0;
}
