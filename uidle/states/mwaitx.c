// SPDX-License-Identifier: MIT
/*
 * mwaitx.c - the MWAITX state (AMD): arm the monitor on the word's cache
 * line (MONITORX), look at the word, and wait (MWAITX) until the line is
 * written or a timer runs out.
 *
 * MWAITX's timer is RELATIVE: EBX holds a number of TSC-rate cycles from
 * the instruction (ECX bit 1 enables it), where UMWAIT takes an absolute
 * TSC deadline (umwait.c).  DPDK passes one kind where the other is meant
 * (ecosystem notes, section 4); here both are computed from the same
 * CLOCK_MONOTONIC limit: converted to an absolute TSC once, and each
 * MWAITX gets the cycles left, at most 2^32 - 1 (EBX is 32 bits).  EAX =
 * 0xf0 asks for no C-state deeper than C0, as the kernel's delay_mwaitx()
 * does: the point is to stop issuing instructions, not to let the core go
 * to sleep under a thread the scheduler thinks is running.
 *
 * Compiled for x86 only, with the instructions enabled per function
 * (target("mwaitx")); built only where CPUID 0x80000001 ECX bit 29 says
 * MONITORX (cpu.c).  AMD allows both at any privilege level.
 */
#include "../uidle_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>

#define MWAITX_ECX_TIMER_ENABLE	0x2u	/* ECX bit 1 */
#define MWAITX_EAX_C0		0xf0u	/* the kernel's MWAITX_DISABLE_CSTATES */
#define MWAITX_MAX_CYCLES	UINT32_MAX

__attribute__((target("mwaitx")))
static void monitorx(const uint32_t *addr)
{
	_mm_monitorx((void *)(uintptr_t)addr, 0, 0);
}

__attribute__((target("mwaitx")))
static void mwaitx(uint32_t cycles)
{
	_mm_mwaitx(MWAITX_ECX_TIMER_ENABLE, MWAITX_EAX_C0, cycles);
}

enum uidle_stop uidle_wait_mwaitx(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				  int64_t limit_ns)
{
	const uint32_t *addr = __atomic_load_n(&wc->addr, __ATOMIC_RELAXED);
	uint64_t tsc = uidle_rdtsc(), limit_tsc, left;

	limit_tsc = limit_ns == UIDLE_NO_DEADLINE ? UINT64_MAX :
		    tsc + uidle_ns_to_tsc(limit_ns - uidle_now_ns(), env->tsc_khz);
	if (limit_tsc < tsc)
		limit_tsc = UINT64_MAX;
	for (;;) {
		monitorx(addr);
		if (__atomic_load_n(addr, __ATOMIC_RELAXED) != wc->expected)
			return UIDLE_STOP_WORD;
		if (__atomic_load_n(&wc->kick, __ATOMIC_RELAXED))
			return UIDLE_STOP_KICK;
		tsc = uidle_rdtsc();
		if (tsc >= limit_tsc)
			return UIDLE_STOP_LIMIT;
		left = limit_tsc - tsc;
		mwaitx(left > MWAITX_MAX_CYCLES ? MWAITX_MAX_CYCLES : (uint32_t)left);
	}
}

#else

enum uidle_stop uidle_wait_mwaitx(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				  int64_t limit_ns)
{
	(void)env;
	(void)wc;
	(void)limit_ns;
	return UIDLE_STOP_LIMIT;	/* never built here */
}

#endif
