// SPDX-License-Identifier: MIT
/*
 * cpu.c - which wait instructions this CPU offers (CPUID), the limits the
 * OS puts on them (umwait_control) and the rate of the TSC their timers
 * count in.
 *
 * A state whose instruction the CPU lacks is never built, so it can never
 * be executed: there is no SIGILL to catch.  The detection reads:
 *
 * - leaf 0: the highest basic leaf (and that CPUID exists at all);
 * - leaf 7 subleaf 0, ECX bit 5: WAITPKG (UMONITOR, UMWAIT, TPAUSE);
 * - leaf 0x80000000: the highest extended leaf;
 * - leaf 0x80000001, ECX bit 29: MONITORX/MWAITX (AMD's "MwaitExtended").
 *
 * PAUSE exists on every x86 CPU (older ones execute it as REP NOP, a
 * no-op), and arm64 always has YIELD.  Tests inject a CPUID of their own
 * (uidle_engine_opts.cpuid); the engine then keeps only what the injected
 * result and the real CPU both have.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uidle_internal.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#define UIDLE_X86 1
#else
#define UIDLE_X86 0
#endif

#define CPUID_LEAF_FEATURES7		7u
#define CPUID_LEAF_EXT_MAX		0x80000000u
#define CPUID_LEAF_EXT_FEATURES		0x80000001u
#define CPUID7_ECX_WAITPKG		(1u << 5)
#define CPUID_EXT_ECX_MONITORX		(1u << 29)

/*
 * The kernel's defaults for WAITPKG (arch/x86/kernel/cpu/umwait.c): C0.2
 * allowed, and at most 100000 TSC cycles per UMWAIT or TPAUSE, a bound
 * chosen so that the "time limit reached" exit is exercised everywhere.
 */
#define UMWAIT_DEFAULT_MAX_TIME		100000u
#define UMWAIT_DEFAULT_C02		true

/*
 * The TSC rate is measured against CLOCK_MONOTONIC over 2 ms: a clock
 * reading is exact to ~30 ns here, so the rate to 2e-5, far finer than
 * the wait slices it converts (microseconds).
 */
#define TSC_MEASURE_NS			(2 * CPUIDLE_NSEC_PER_SEC / 1000)

static int real_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t regs[4], void *ctx)
{
	(void)ctx;
#if UIDLE_X86
	unsigned int max = __get_cpuid_max(leaf & CPUID_LEAF_EXT_MAX, NULL);

	if (!max || leaf > max)
		return -ENOENT;
	__cpuid_count(leaf, subleaf, regs[0], regs[1], regs[2], regs[3]);
	return 0;
#else
	(void)leaf;
	(void)subleaf;
	(void)regs;
	return -ENOSYS;
#endif
}

int uidle_cpu_detect(uidle_cpuid_fn cpuid, void *ctx, struct uidle_cpu *out)
{
	uint32_t regs[4], max;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!cpuid)
		cpuid = real_cpuid;
	if (cpuid(0, 0, regs, ctx) < 0) {
		/* no CPUID: not x86; arm64's YIELD needs no detection */
#if defined(__aarch64__)
		out->pause = cpuid == real_cpuid;
#endif
		return 0;
	}
	out->x86 = true;
	out->pause = true;
	max = regs[0];
	if (max >= CPUID_LEAF_FEATURES7 && cpuid(CPUID_LEAF_FEATURES7, 0, regs, ctx) == 0)
		out->waitpkg = (regs[2] & CPUID7_ECX_WAITPKG) != 0;
	if (cpuid(CPUID_LEAF_EXT_MAX, 0, regs, ctx) == 0 && regs[0] >= CPUID_LEAF_EXT_FEATURES &&
	    cpuid(CPUID_LEAF_EXT_FEATURES, 0, regs, ctx) == 0)
		out->monitorx = (regs[2] & CPUID_EXT_ECX_MONITORX) != 0;
	return 0;
}

void uidle_cpu_and(struct uidle_cpu *a, const struct uidle_cpu *b)
{
	a->x86 = a->x86 && b->x86;
	a->pause = a->pause && b->pause;
	a->waitpkg = a->waitpkg && b->waitpkg;
	a->monitorx = a->monitorx && b->monitorx;
}

unsigned int uidle_cpu_kinds(const struct uidle_cpu *cpu)
{
	unsigned int kinds = UIDLE_STATE_BIT(UIDLE_STATE_POLL) | UIDLE_STATE_BIT(UIDLE_STATE_FUTEX);

	if (cpu->pause)
		kinds |= UIDLE_STATE_BIT(UIDLE_STATE_PAUSE);
	/* the instructions are compiled on x86 only */
	if (UIDLE_X86 && cpu->waitpkg)
		kinds |= UIDLE_STATE_BIT(UIDLE_STATE_UMWAIT);
	if (UIDLE_X86 && cpu->monitorx)
		kinds |= UIDLE_STATE_BIT(UIDLE_STATE_MWAITX);
	return kinds;
}

/* A decimal u32 file of @dir, or -1. */
static long long read_u32_file(const char *dir, const char *name)
{
	char path[512], buf[32], *end;
	unsigned long long v;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || v > UINT32_MAX)
		return -1;
	return (long long)v;
}

/*
 * The kernel's WAITPKG limits: max_time, the most TSC cycles one UMWAIT
 * may wait (0: no limit), and enable_c02.  Where the files are missing or
 * unreadable, the kernel's defaults.
 */
void uidle_umwait_control_read(const char *dir, uint32_t *max_time, bool *c02)
{
	long long v;

	*max_time = UMWAIT_DEFAULT_MAX_TIME;
	*c02 = UMWAIT_DEFAULT_C02;
	if (!dir)
		dir = UIDLE_UMWAIT_CONTROL_DIR;
	v = read_u32_file(dir, "max_time");
	if (v >= 0)
		*max_time = (uint32_t)v;
	v = read_u32_file(dir, "enable_c02");
	if (v >= 0)
		*c02 = v != 0;
}

uint64_t uidle_rdtsc(void)
{
#if UIDLE_X86
	return __rdtsc();
#else
	return 0;
#endif
}

uint64_t uidle_tsc_khz_measure(void)
{
	int64_t t0, t1;
	uint64_t c0, c1;

	if (!UIDLE_X86)
		return 0;
	t0 = uidle_now_ns();
	c0 = uidle_rdtsc();
	do
		t1 = uidle_now_ns();
	while (t1 - t0 < TSC_MEASURE_NS);
	c1 = uidle_rdtsc();
	/* cycles per ns, times the ns in a ms */
	return (c1 - c0) * (uint64_t)(CPUIDLE_NSEC_PER_SEC / 1000) / (uint64_t)(t1 - t0);
}

uint64_t uidle_ns_to_tsc(int64_t ns, uint64_t tsc_khz)
{
	if (ns <= 0)
		return 0;
	if ((uint64_t)ns > UINT64_MAX / (tsc_khz ? tsc_khz : 1))
		return UINT64_MAX;
	return (uint64_t)ns * tsc_khz / (uint64_t)(CPUIDLE_NSEC_PER_SEC / 1000);
}
