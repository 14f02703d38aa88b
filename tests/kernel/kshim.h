/* SPDX-License-Identifier: MIT */
/*
 * kshim.h - just enough of the kernel's headers to compile Linux v6.18's
 * drivers/cpuidle/governors/menu.c and teo.c, unmodified, from
 * ../shared/reference/kernel-v6.18/, for the differential test
 * (kernel_diff.c).  Written for this project from the kernel's documented
 * types and semantics; nothing here is kernel code.
 *
 * Facts that decide decisions and are kept as the kernel has them:
 * NSEC_PER_* are signed longs, so TICK_NSEC is one and a comparison of an
 * s64 with it is signed; target residencies and exit latencies are s64
 * (since 5.13), last_residency_ns is u64; do_div() divides a u64 in place.
 * The files are built with -fwrapv -fno-strict-aliasing, as the kernel.
 */
#ifndef KSHIM_H
#define KSHIM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t u64;
typedef int64_t s64;
typedef uint32_t u32;
typedef s64 ktime_t;

#define KSHIM_NR_CPUS		64
#define CPUIDLE_STATE_MAX	10
#define CPUIDLE_NAME_LEN	16
#define CPUIDLE_FLAG_POLLING	(1u << 0)	/* the kernel's BIT(0) */

#define NSEC_PER_USEC		1000L
#define NSEC_PER_MSEC		1000000L
#define NSEC_PER_SEC		1000000000L
/* per call: the tick of the replayed system (a signed long, as the kernel's) */
extern long kshim_tick_nsec;
#define TICK_NSEC		kshim_tick_nsec

#define KTIME_MAX		((s64)~((u64)1 << 63))
#define U64_MAX			UINT64_MAX
#define S64_MAX			INT64_MAX

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define __init
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))

/* do_div(n, base): n /= base in place (n a u64), the remainder returned */
#define do_div(n, base) ({				\
	u32 __base = (base);				\
	u32 __rem = (u32)((u64)(n) % __base);		\
	(n) = (u64)(n) / __base;			\
	__rem;						\
})
static inline u64 div_u64(u64 dividend, u32 divisor) { return dividend / divisor; }
static inline u64 div64_u64(u64 dividend, u64 divisor) { return dividend / divisor; }
static inline s64 ktime_to_us(ktime_t t) { return t / NSEC_PER_USEC; }

/* per-CPU data: an array; each also gets an accessor for the test */
extern int kshim_cpu;	/* this_cpu_ptr()'s CPU, set before each call */
#define DEFINE_PER_CPU(type, name)					\
	type name[KSHIM_NR_CPUS];					\
	void *kshim_percpu_##name(int cpu) { return &name[cpu]; }	\
	size_t kshim_percpu_size_##name(void) { return sizeof(type); }	\
	static type name[KSHIM_NR_CPUS]
#define per_cpu_ptr(ptr, cpu)	(&(*(ptr))[(cpu)])
#define per_cpu(var, cpu)	((var)[(cpu)])
#define this_cpu_ptr(ptr)	(&(*(ptr))[kshim_cpu])

struct cpuidle_state_usage {
	unsigned long long disable;
};

struct cpuidle_state {
	char name[CPUIDLE_NAME_LEN];
	s64 exit_latency_ns;
	s64 target_residency_ns;
	unsigned int flags;
};

struct cpuidle_device {
	unsigned int cpu;
	int last_state_idx;
	u64 last_residency_ns;
	u64 poll_limit_ns;
	bool poll_time_limit;
	struct cpuidle_state_usage states_usage[CPUIDLE_STATE_MAX];
};

struct cpuidle_driver {
	struct cpuidle_state states[CPUIDLE_STATE_MAX];
	int state_count;
};

struct cpuidle_governor {
	char name[CPUIDLE_NAME_LEN];
	unsigned int rating;
	int (*enable)(struct cpuidle_driver *drv, struct cpuidle_device *dev);
	void (*disable)(struct cpuidle_driver *drv, struct cpuidle_device *dev);
	int (*select)(struct cpuidle_driver *drv, struct cpuidle_device *dev, bool *stop_tick);
	void (*reflect)(struct cpuidle_device *dev, int index);
};

/* the kernel's names, renamed: libcpuidle has functions of the same names */
#define cpuidle_register_governor	kshim_register_governor
#define cpuidle_governor_latency_req	kshim_governor_latency_req
#define tick_nohz_get_sleep_length	kshim_get_sleep_length
#define tick_nohz_tick_stopped		kshim_tick_stopped
#define tick_nohz_idle_got_tick		kshim_idle_got_tick

int cpuidle_register_governor(struct cpuidle_governor *gov);
s64 cpuidle_governor_latency_req(unsigned int cpu);
ktime_t tick_nohz_get_sleep_length(ktime_t *delta_next);
bool tick_nohz_tick_stopped(void);
bool tick_nohz_idle_got_tick(void);

/* postcore_initcall(fn): a named entry the test calls to register */
#define postcore_initcall(fn)	int kshim_initcall_##fn(void) { return fn(); }

#endif /* KSHIM_H */
