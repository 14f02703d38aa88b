// SPDX-License-Identifier: MIT
/*
 * spin.c - the two spinning states: POLL, a busy poll of plain loads, and
 * PAUSE, the same with the CPU's relax hint between loads (x86 PAUSE,
 * arm64 YIELD; the kernel's own poll_idle() spins with it).
 *
 * Both look at the word and at the kick flag on every turn, and at the
 * clock every few turns, as the kernel's poll_idle() checks its time limit
 * every POLL_IDLE_RELAX_COUNT turns: a clock reading (~30 ns through the
 * vDSO) on every turn would slow the poll down.  The word is read with a
 * relaxed load (a plain MOV); the caller's final look is the acquire.
 *
 * A PAUSE spin need not notice a change later than plain loads: leaving a
 * tight load loop costs a memory-ordering machine clear that PAUSE avoids,
 * while each PAUSE is a pause (25 ns on this project's AMD EPYC guest, ~40
 * ns on Intel since Skylake) that a change may have to wait out; on that
 * guest both see a change ~100 ns after the store (bench/bench_uidle).  A
 * busy poll keeps the core's pipeline to itself, a PAUSE spin shares it
 * with an SMT sibling.  The calibration measures the difference, and the
 * table keeps POLL shallowest (exit latency 0) for QoS 0.
 */
#include "../uidle_internal.h"

/*
 * Turns between clock readings.  The kernel's POLL_IDLE_RELAX_COUNT (200)
 * for plain loads, whose turn is a nanosecond or less: the limit is seen
 * within ~0.2 us.  32 for PAUSE, whose turn is 25-40 ns: within ~1 us,
 * the clock then costing ~3% of the time.
 */
#define POLL_CLOCK_EVERY	200
#define PAUSE_CLOCK_EVERY	32

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

static inline bool keep_waiting(const struct uidle_wait_ctx *wc, const uint32_t *addr)
{
	return __atomic_load_n(addr, __ATOMIC_RELAXED) == wc->expected &&
	       !__atomic_load_n(&wc->kick, __ATOMIC_RELAXED);
}

static enum uidle_stop stopped(const struct uidle_wait_ctx *wc)
{
	return __atomic_load_n(&wc->kick, __ATOMIC_RELAXED) ? UIDLE_STOP_KICK : UIDLE_STOP_WORD;
}

enum uidle_stop uidle_wait_poll(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				int64_t limit_ns)
{
	const uint32_t *addr = __atomic_load_n(&wc->addr, __ATOMIC_RELAXED);
	unsigned int n = 0;

	(void)env;
	while (keep_waiting(wc, addr)) {
		if (++n < POLL_CLOCK_EVERY)
			continue;
		n = 0;
		if (uidle_now_ns() >= limit_ns)
			return UIDLE_STOP_LIMIT;
	}
	return stopped(wc);
}

enum uidle_stop uidle_wait_pause(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				 int64_t limit_ns)
{
	const uint32_t *addr = __atomic_load_n(&wc->addr, __ATOMIC_RELAXED);
	unsigned int n = 0;

	(void)env;
	while (keep_waiting(wc, addr)) {
		cpu_relax();
		if (++n < PAUSE_CLOCK_EVERY)
			continue;
		n = 0;
		if (uidle_now_ns() >= limit_ns)
			return UIDLE_STOP_LIMIT;
	}
	return stopped(wc);
}
