// SPDX-License-Identifier: MIT
/*
 * umwait.c - the UMWAIT state (Intel WAITPKG): arm the monitor on the
 * word's cache line (UMONITOR), look at the word, and wait (UMWAIT) until
 * the line is written or a TSC deadline passes.
 *
 * UMWAIT's deadline is an ABSOLUTE TSC value (EDX:EAX), unlike MWAITX's
 * relative timer (mwaitx.c): the limit in CLOCK_MONOTONIC ns is turned
 * into TSC cycles from now once, and each UMWAIT is given now + the rest.
 * The OS caps one UMWAIT at umwait_control/max_time cycles (IA32_UMWAIT_
 * CONTROL; the kernel's default 100000); the engine honours it by never
 * asking for more, so each UMWAIT ends by the cap at the latest and the
 * loop looks at the word, the kick flag and the limit again.  Bit 0 of the
 * control operand picks C0.1 (1: faster wake) or C0.2 (0: deeper, lets an
 * SMT sibling run faster); C0.2 is asked for where enable_c02 allows it.
 *
 * A store to the line from another CPU ends the wait, as do interrupts
 * and, by design, some other events: every exit is followed by a look.
 * Compiled for x86 only, with the instructions enabled per function
 * (target("waitpkg")), so the rest of the library needs no -mwaitpkg; the
 * engine builds this state only where CPUID says WAITPKG (cpu.c).
 */
#include "../uidle_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

#define UMWAIT_CTRL_C01		1u	/* bit 0: 1 = C0.1, 0 = C0.2 */
#define UMWAIT_CTRL_C02		0u

__attribute__((target("waitpkg")))
static void umonitor(const uint32_t *addr)
{
	_umonitor((void *)(uintptr_t)addr);
}

__attribute__((target("waitpkg")))
static void umwait(uint32_t ctrl, uint64_t deadline_tsc)
{
	_umwait(ctrl, deadline_tsc);
}

enum uidle_stop uidle_wait_umwait(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				  int64_t limit_ns)
{
	const uint32_t *addr = __atomic_load_n(&wc->addr, __ATOMIC_RELAXED);
	uint32_t ctrl = env->umwait_c02 ? UMWAIT_CTRL_C02 : UMWAIT_CTRL_C01;
	uint64_t tsc = uidle_rdtsc(), limit_tsc, end;

	limit_tsc = limit_ns == UIDLE_NO_DEADLINE ? UINT64_MAX :
		    tsc + uidle_ns_to_tsc(limit_ns - uidle_now_ns(), env->tsc_khz);
	if (limit_tsc < tsc)
		limit_tsc = UINT64_MAX;	/* wrapped: as good as never */
	for (;;) {
		umonitor(addr);
		if (__atomic_load_n(addr, __ATOMIC_RELAXED) != wc->expected)
			return UIDLE_STOP_WORD;
		if (__atomic_load_n(&wc->kick, __ATOMIC_RELAXED))
			return UIDLE_STOP_KICK;
		tsc = uidle_rdtsc();
		if (tsc >= limit_tsc)
			return UIDLE_STOP_LIMIT;
		end = limit_tsc;
		if (env->umwait_max_time && end - tsc > env->umwait_max_time)
			end = tsc + env->umwait_max_time;
		umwait(ctrl, end);
	}
}

#else

enum uidle_stop uidle_wait_umwait(const struct uidle_wait_env *env, struct uidle_wait_ctx *wc,
				  int64_t limit_ns)
{
	(void)env;
	(void)wc;
	(void)limit_ns;
	return UIDLE_STOP_LIMIT;	/* never built here */
}

#endif
