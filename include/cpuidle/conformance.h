/* SPDX-License-Identifier: MIT */
/*
 * conformance.h - the rules every governor must keep, checked on simulated
 * machines: the built-in governors, the kernel's ports, and any a user
 * writes (struct cpuidle_governor is all it needs).  Part of the lab's
 * library (libcpuidle-lab; lab.h includes it).
 *
 * The checker builds small systems of its own (two CPUs, a fake clock per
 * CPU, an enter() that advances it), drives them through the library's idle
 * path, cpuidle_idle_call(), with seeded random idle periods, timers, tick
 * states, QoS requests and per-state disable toggles, and judges every
 * select() of the governor under test.  The same seed gives the same run.
 */
#ifndef CPUIDLE_CONFORMANCE_H
#define CPUIDLE_CONFORMANCE_H

#include <stdbool.h>
#include <stdint.h>

#include "cpuidle.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * enum conformance_check_id - the checks, in report order
 * @CONFORMANCE_ENABLE: the governor enables on every driver shape and
 *	every idle call goes through (an enable() error, or an idle call
 *	failing other than by a refused enter(), fails it)
 * @CONFORMANCE_INDEX: select() returns an index in [0, state_count)
 * @CONFORMANCE_DISABLED: never a disabled state (by the user on that CPU
 *	or by the driver on every CPU); the one exception is state 0 when no
 *	enabled state meets the QoS limit, the kernel's last resort
 * @CONFORMANCE_QOS: with a QoS limit above 0, never a state whose exit
 *	latency exceeds it, unless no enabled state meets it
 * @CONFORMANCE_QOS0: with a QoS limit of 0, only a polling state when an
 *	enabled one exists (else only an enabled state of exit latency 0, if
 *	there is one)
 * @CONFORMANCE_SWITCH: the governor is switched to mid-run from every
 *	partner governor and back, devices keeping their state: the switches
 *	succeed, and it breaks no rule it kept when running alone
 * @CONFORMANCE_DETERMINISM: two independent systems fed the same input
 *	make the same decisions, bit for bit; so do two systems run
 *	interleaved in one process (no hidden global state)
 * @CONFORMANCE_NR_CHECKS: the number of checks
 */
enum conformance_check_id {
	CONFORMANCE_ENABLE,
	CONFORMANCE_INDEX,
	CONFORMANCE_DISABLED,
	CONFORMANCE_QOS,
	CONFORMANCE_QOS0,
	CONFORMANCE_SWITCH,
	CONFORMANCE_DETERMINISM,
	CONFORMANCE_NR_CHECKS,
};

/**
 * enum conformance_shape_id - the drivers the governor is run on
 * @CONFORMANCE_SHAPE_POLL: one state, polling
 * @CONFORMANCE_SHAPE_HALT: one state, not polling
 * @CONFORMANCE_SHAPE_HALTPOLL: POLL and a 1 us halt (cpuidle-haltpoll)
 * @CONFORMANCE_SHAPE_LAPTOP: the LWN article's ACPI C1/C2/C3, no polling
 *	state, two states of equal exit latency, C3 needs no bus-master DMA
 * @CONFORMANCE_SHAPE_FOUR: POLL, C1, C1E, C6 (the local timer stops in C6)
 * @CONFORMANCE_SHAPE_TEN: CPUIDLE_STATE_MAX states, exit latencies from 0
 *	to 1.2 ms (some with ns precision), residencies beyond the 1 ms tick,
 *	one state off by default and one unusable (disabled by the driver)
 * @CONFORMANCE_NR_SHAPES: the number of shapes
 */
enum conformance_shape_id {
	CONFORMANCE_SHAPE_POLL,
	CONFORMANCE_SHAPE_HALT,
	CONFORMANCE_SHAPE_HALTPOLL,
	CONFORMANCE_SHAPE_LAPTOP,
	CONFORMANCE_SHAPE_FOUR,
	CONFORMANCE_SHAPE_TEN,
	CONFORMANCE_NR_SHAPES,
};

#define CONFORMANCE_ALL_SHAPES	((1u << CONFORMANCE_NR_SHAPES) - 1)
#define CONFORMANCE_DEFAULT_SEED	1
#define CONFORMANCE_DEFAULT_ENTRIES	10000
#define CONFORMANCE_MAX_ENTRIES		10000000
#define CONFORMANCE_MSG_LEN		768

/**
 * struct conformance_options - what to run
 * @seed: the input's seed (0: CONFORMANCE_DEFAULT_SEED)
 * @entries: idle entries per run (0: CONFORMANCE_DEFAULT_ENTRIES); each
 *	shape is run once alone, three times more for determinism (once
 *	alone, twice interleaved; the first 2^20 decisions are compared) and
 *	once per partner with switches
 * @shapes: bit i set runs shape i (0: every shape)
 * @partners: the governors switched to and from, NULL-terminated (NULL:
 *	cpuidle_builtin_governors()); the governor under test, and any of
 *	the same name, is left out
 */
struct conformance_options {
	uint64_t seed;
	unsigned int entries;
	unsigned int shapes;
	const struct cpuidle_governor *const *partners;
};

/**
 * struct conformance_result - the outcome of one check
 * @checked: how many times the check applied: decisions where the rule
 *	constrained the choice (some state would have broken it), decisions
 *	after a switch, driver shapes enabled, or runs compared
 * @failures: how many of those broke it
 * @message: the first failure: governor, driver shape, idle entry (from
 *	1), CPU, the inputs of select(), its answer, and the rule broken;
 *	empty if none
 */
struct conformance_result {
	uint64_t checked;
	uint64_t failures;
	char message[CONFORMANCE_MSG_LEN];
};

/**
 * struct conformance_report - every check of one governor
 * @governor: its name
 * @seed: the seed used
 * @entries: idle calls made, every run counted
 * @nr_failed: checks with at least one failure
 * @checks: indexed by enum conformance_check_id
 */
struct conformance_report {
	char governor[CPUIDLE_NAME_LEN];
	uint64_t seed;
	uint64_t entries;
	unsigned int nr_failed;
	struct conformance_result checks[CONFORMANCE_NR_CHECKS];
};

/**
 * conformance_check() - run every check on a governor
 * @gov: the governor; it need not be registered anywhere (the checker
 *	registers it in systems of its own, with @opt->partners)
 * @opt: the options, or NULL for the defaults
 * @rep: the report, overwritten
 *
 * A governor breaking a rule is not an error of the call: it shows in
 * @rep->nr_failed and @rep->checks.
 *
 * Return: 0 when every check ran; -EINVAL for a NULL @gov or @rep, a
 * governor that cannot be registered (no select(), a bad name), too many
 * entries or an unknown shape bit; -ENOMEM; or an error of the library
 * met while setting up a system.
 */
int conformance_check(const struct cpuidle_governor *gov, const struct conformance_options *opt,
		      struct conformance_report *rep);

/** conformance_check_name() - "enable", "index", ... (NULL if out of range) */
const char *conformance_check_name(enum conformance_check_id id);

/** conformance_check_unit() - what @checked counts: "decisions", "shapes", ... */
const char *conformance_check_unit(enum conformance_check_id id);

/** conformance_check_desc() - the rule, in one line */
const char *conformance_check_desc(enum conformance_check_id id);

/** conformance_shape_name() - "poll", "halt", ..., "10-state" (NULL if out of range) */
const char *conformance_shape_name(enum conformance_shape_id id);

/** conformance_shape_desc() - the shape's states, in one line */
const char *conformance_shape_desc(enum conformance_shape_id id);

/**
 * conformance_shape_find() - a shape by name
 * @name: as conformance_shape_name() gives it
 *
 * Return: its id, or -EINVAL.
 */
int conformance_shape_find(const char *name);

#ifdef __cplusplus
}
#endif

#endif /* CPUIDLE_CONFORMANCE_H */
