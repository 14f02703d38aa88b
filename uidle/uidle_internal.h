/* SPDX-License-Identifier: MIT */
/*
 * uidle_internal.h - what passes between the idle engine's files.  Not
 * installed.  The engine is a client of the library's public API (an
 * embedding with its own driver); nothing here reaches into the core.
 */
#ifndef UIDLE_INTERNAL_H
#define UIDLE_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "cpuidle/cpuidle.h"
#include "cpuidle/pm_qos.h"
#include "cpuidle/uidle.h"

#define uidle_likely(x)		__builtin_expect(!!(x), 1)
#define uidle_unlikely(x)	__builtin_expect(!!(x), 0)

#define uidle_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

#define UIDLE_CACHELINE		64

/* ---------------------------------------------------------------- cpu.c */

/* What the CPU offers, as far as the engine cares. */
struct uidle_cpu {
	bool x86;		/* CPUID exists */
	bool pause;		/* a relax hint for spins (x86 PAUSE, arm64 YIELD) */
	bool waitpkg;		/* UMONITOR/UMWAIT/TPAUSE */
	bool monitorx;		/* MONITORX/MWAITX */
};

int uidle_cpu_detect(uidle_cpuid_fn cpuid, void *ctx, struct uidle_cpu *out);
void uidle_cpu_and(struct uidle_cpu *a, const struct uidle_cpu *b);
unsigned int uidle_cpu_kinds(const struct uidle_cpu *cpu);

/* WAITPKG's OS limits (/sys/devices/system/cpu/umwait_control). */
#define UIDLE_UMWAIT_CONTROL_DIR	"/sys/devices/system/cpu/umwait_control"
void uidle_umwait_control_read(const char *dir, uint32_t *max_time, bool *c02);

/* TSC */
uint64_t uidle_rdtsc(void);
uint64_t uidle_tsc_khz_measure(void);

/* ---------------------------------------------------------------- time */

static inline int64_t uidle_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * CPUIDLE_NSEC_PER_SEC + ts.tv_nsec;
}

static inline int64_t uidle_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * CPUIDLE_NSEC_PER_SEC + ts.tv_nsec;
}

/* ---------------------------------------------------------------- park.c */

/*
 * One bucket of the parking lot: the waiters parked (asleep in the
 * kernel) on the words that hash here, and how many there are, readable
 * without the lock.
 */
struct uidle_bucket {
	pthread_mutex_t lock;
	uint32_t nr_parked;		/* atomic */
	struct uidle_wait_ctx *head;	/* FIFO, under lock */
	struct uidle_wait_ctx *tail;
} __attribute__((aligned(UIDLE_CACHELINE)));

/*
 * 256 buckets: with 8 words parked on at once, two share a bucket with a
 * probability of 10% (the birthday bound, 28/256), and sharing costs no
 * correctness, only a wake that takes the lock and finds nobody of its
 * word; 256 lines of 64 bytes are 16 KiB per engine.
 */
#define UIDLE_BUCKET_BITS	8
#define UIDLE_NR_BUCKETS	(1u << UIDLE_BUCKET_BITS)

/* Why a wait in a state ended. */
enum uidle_stop {
	UIDLE_STOP_WORD,	/* the word was seen changed (or, parked: unparked by a waker) */
	UIDLE_STOP_KICK,	/* kicked: the engine wants a new selection */
	UIDLE_STOP_LIMIT,	/* the time limit passed */
};

struct uidle_bucket *uidle_buckets_alloc(void);
void uidle_buckets_free(struct uidle_bucket *b);
enum uidle_stop uidle_park(struct uidle_bucket *buckets, struct uidle_wait_ctx *wc,
			   int64_t limit_ns);
int uidle_unpark(struct uidle_bucket *buckets, const uint32_t *addr, int32_t n);
void uidle_kick(struct uidle_bucket *buckets, struct uidle_wait_ctx *wc);

/* ---------------------------------------------------------------- states */

/*
 * One way to wait: until the word changes, the waiter is kicked, or
 * CLOCK_MONOTONIC passes @limit_ns (UIDLE_NO_DEADLINE: never).
 */
struct uidle_wait_env {
	struct uidle_bucket *buckets;	/* the parking lot (FUTEX) */
	uint64_t tsc_khz;		/* UMWAIT, MWAITX */
	uint32_t umwait_max_time;	/* UMWAIT: TSC cycles per UMWAIT, 0 = none */
	bool umwait_c02;		/* UMWAIT: C0.2 allowed */
};

typedef enum uidle_stop (*uidle_wait_fn)(const struct uidle_wait_env *env,
					  struct uidle_wait_ctx *wc, int64_t limit_ns);

enum uidle_stop uidle_wait_poll(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				int64_t limit_ns);
enum uidle_stop uidle_wait_pause(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				 int64_t limit_ns);
enum uidle_stop uidle_wait_umwait(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				  int64_t limit_ns);
enum uidle_stop uidle_wait_mwaitx(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				  int64_t limit_ns);
enum uidle_stop uidle_wait_futex(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				 int64_t limit_ns);

/* TSC cycles for @ns at @tsc_khz, saturating. */
uint64_t uidle_ns_to_tsc(int64_t ns, uint64_t tsc_khz);

/* states.c: the kinds and the table */
struct uidle_kind_desc {
	const char *name;
	const char *what;	/* the start of the state's desc */
	uidle_wait_fn wait;
	bool polling;		/* holds the CPU: CPUIDLE_FLAG_POLLING */
};

extern const struct uidle_kind_desc uidle_kinds[UIDLE_NR_STATE_KINDS];

/* One state of a table being built. */
struct uidle_table_state {
	enum uidle_state_kind kind;
	int64_t exit_latency_ns;
	int64_t target_residency_ns;
};

struct uidle_table {
	int count;
	struct uidle_table_state states[UIDLE_NR_STATE_KINDS];
};

void uidle_calibration_defaults(struct uidle_calibration *cal);
int uidle_calibration_check(const struct uidle_calibration *cal);
int uidle_table_build(unsigned int kinds, const struct uidle_calibration *cal,
		      struct uidle_table *out);
int uidle_state_enter(struct cpuidle_device *dev, struct cpuidle_state *state);

/* ---------------------------------------------------------------- calibrate.c */

int uidle_calibrate(const struct uidle_wait_env *env, unsigned int kinds,
		    struct uidle_calibration *cal, unsigned int *measured);

/* ---------------------------------------------------------------- engine.c */

struct uidle_engine {
	struct cpuidle_system *sys;
	struct cpuidle_driver drv;
	struct uidle_wait_env env;
	struct uidle_bucket *buckets;

	struct uidle_table table;
	struct uidle_calibration cal;
	unsigned int measured;		/* kinds whose costs were measured here */
	struct uidle_engine_info info;

	/* waiter numbers; under lock */
	pthread_mutex_t lock;
	struct uidle_waiter **waiters;	/* UIDLE_MAX_WAITERS */
	unsigned int nr_waiters;

	/* haltpoll, refusing tables it cannot govern (engine.c) */
	struct cpuidle_governor haltpoll;

	/* the live engines (engine.c), under its lock */
	struct uidle_engine *next;
};

#endif /* UIDLE_INTERNAL_H */
