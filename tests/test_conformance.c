// SPDX-License-Identifier: MIT
/*
 * test_conformance.c - the conformance suite (lab/check/conformance.c): every
 * built-in governor and the example governor of doc/writing-a-governor.md are run through it,
 * and governors broken on purpose, one rule each, must be caught by that
 * rule's check and no other, so the suite cannot pass vacuously.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpuidle/conformance.h"

/*
 * The example governor (doc/writing-a-governor.md), built as a user builds it: its own
 * source, the public header alone.  (Included, as the unit tests are one
 * source file each.)
 */
#include "../examples/timer_governor.c"

#define SMALL_RUN 2000	/* entries per run for the broken governors */

static unsigned int bit(enum conformance_check_id c)
{
	return 1u << c;
}

static unsigned int failed_mask(const struct conformance_report *rep)
{
	unsigned int mask = 0;
	int c;

	for (c = 0; c < CONFORMANCE_NR_CHECKS; c++)
		if (rep->checks[c].failures)
			mask |= bit(c);
	return mask;
}

static void print_failures(const struct conformance_report *rep)
{
	int c;

	for (c = 0; c < CONFORMANCE_NR_CHECKS; c++)
		if (rep->checks[c].failures)
			print_message("  %s %s: %s\n", rep->governor, conformance_check_name(c),
				      rep->checks[c].message);
}

/* Every check applied at least once: none passed for want of a case. */
static void assert_not_vacuous(const struct conformance_report *rep)
{
	int c;

	for (c = 0; c < CONFORMANCE_NR_CHECKS; c++) {
		if (!rep->checks[c].checked)
			print_message("%s: check %s never applied\n", rep->governor,
				      conformance_check_name(c));
		assert_true(rep->checks[c].checked > 0);
	}
}

/* Run @gov; exactly the checks in @expect must fail. */
static void expect_failures(const struct cpuidle_governor *gov, unsigned int entries,
			    unsigned int expect, struct conformance_report *rep)
{
	struct conformance_options opt = { .entries = entries };

	assert_int_equal(conformance_check(gov, &opt, rep), 0);
	assert_string_equal(rep->governor, gov->name);
	if (failed_mask(rep) != expect) {
		print_message("%s: failed checks 0x%x, expected 0x%x\n", gov->name,
			      failed_mask(rep), expect);
		print_failures(rep);
	}
	assert_int_equal(failed_mask(rep), expect);
	assert_int_equal(rep->nr_failed, (unsigned int)__builtin_popcount(expect));
}

/* ------------------------------------------------- governors for the test */

/*
 * A correct reference: the first enabled state (within QoS when it can
 * be), then deeper enabled states while QoS allows them and their target
 * residency fits before the next timer; state 0 when nothing is enabled.
 * The broken governors below each drop one of those rules.
 */
static int pick(struct cpuidle_device *dev, bool ignore_disable, bool ignore_qos)
{
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int64_t delta_tick, sleep = cpuidle_get_sleep_length(dev, &delta_tick);
	int i, idx = -1;

	for (i = 0; i < dev->state_count; i++) {
		const struct cpuidle_state *s = &dev->states[i];

		if (!ignore_disable && cpuidle_is_disabled(dev, i))
			continue;
		if (idx >= 0 && ((!ignore_qos && s->exit_latency_ns > latency_req) ||
				 s->target_residency_ns > sleep))
			break;
		idx = i;
	}
	return idx < 0 ? 0 : idx;
}

/* The shallowest enabled state within QoS, else what pick() gives. */
static int shallowest(struct cpuidle_device *dev)
{
	int64_t latency_req = cpuidle_governor_latency_req(dev);
	int i;

	for (i = 0; i < dev->state_count; i++)
		if (!cpuidle_is_disabled(dev, i) && dev->states[i].exit_latency_ns <= latency_req)
			return i;
	return pick(dev, false, false);
}

static int ref_select(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)stop_tick;
	return pick(dev, false, false);
}

/* Out of range when there is no timer at all. */
static int bad_index_select(struct cpuidle_device *dev, bool *stop_tick)
{
	int64_t delta_tick;

	(void)stop_tick;
	if (cpuidle_get_sleep_length(dev, &delta_tick) == CPUIDLE_TIME_INFINITE)
		return dev->state_count;
	return pick(dev, false, false);
}

static int ignore_disable_select(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)stop_tick;
	return pick(dev, true, false);
}

static int ignore_qos_select(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)stop_tick;
	return pick(dev, false, true);
}

/* Keeps QoS, except that 0 gets the deepest enabled state. */
static int deep_qos0_select(struct cpuidle_device *dev, bool *stop_tick)
{
	int i;

	(void)stop_tick;
	if (cpuidle_governor_latency_req(dev) == 0) {
		for (i = dev->state_count - 1; i > 0; i--)
			if (!cpuidle_is_disabled(dev, i))
				return i;
		return 0;
	}
	return pick(dev, false, false);
}

/* Valid answers, but every third one depends on a counter shared by all. */
static int counter_select(struct cpuidle_device *dev, bool *stop_tick)
{
	static unsigned int calls;

	(void)stop_tick;
	return calls++ % 3 ? pick(dev, false, false) : shallowest(dev);
}

/* Valid answers, chosen by rand(). */
static int rand_select(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)stop_tick;
	return rand() & 1 ? pick(dev, false, false) : shallowest(dev);
}

/*
 * Valid answers alternating between two rules, the alternation kept in a
 * static reset by enable(): each system alone starts the same way, so
 * only systems run side by side show it.
 */
static bool shared_toggle;

static int shared_enable(struct cpuidle_device *dev)
{
	(void)dev;
	shared_toggle = false;
	return 0;
}

static int shared_select(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)stop_tick;
	shared_toggle = !shared_toggle;
	return shared_toggle ? pick(dev, false, false) : shallowest(dev);
}

/* Cannot govern a device with more than four states. */
static int small_only_enable(struct cpuidle_device *dev)
{
	return dev->state_count > 4 ? -EOPNOTSUPP : 0;
}

/* Refuses to take over a device another governor has used. */
static int fresh_only_enable(struct cpuidle_device *dev)
{
	int i;

	for (i = 0; i < dev->state_count; i++)
		if (dev->states_usage[i].usage)
			return -EBUSY;
	return 0;
}

static const struct cpuidle_governor ref_gov = { .name = "ref", .select = ref_select };
static const struct cpuidle_governor bad_index_gov = {
	.name = "bad-index", .select = bad_index_select,
};
static const struct cpuidle_governor ignore_disable_gov = {
	.name = "no-disable", .select = ignore_disable_select,
};
static const struct cpuidle_governor ignore_qos_gov = {
	.name = "no-qos", .select = ignore_qos_select,
};
static const struct cpuidle_governor deep_qos0_gov = {
	.name = "deep-qos0", .select = deep_qos0_select,
};
static const struct cpuidle_governor counter_gov = {
	.name = "counter", .select = counter_select,
};
static const struct cpuidle_governor rand_gov = { .name = "rand", .select = rand_select };
static const struct cpuidle_governor shared_gov = {
	.name = "shared", .enable = shared_enable, .select = shared_select,
};
static const struct cpuidle_governor small_only_gov = {
	.name = "small-only", .enable = small_only_enable, .select = ref_select,
};
static const struct cpuidle_governor fresh_only_gov = {
	.name = "fresh-only", .enable = fresh_only_enable, .select = ref_select,
};

/* ------------------------------------------------- the built-in governors */

/*
 * Every built-in governor passes every check, each of which applied: ours
 * and the kernel's ports alike (where Linux 6.18's ladder and haltpoll
 * break a rule, the ports deviate, each deviation documented in the
 * governor's DOC block and tested in its own unit test).
 */
static void test_builtin_governors(void **state)
{
	const struct cpuidle_governor *const *g;
	struct conformance_report rep;
	unsigned int n = 0;

	(void)state;
	for (g = cpuidle_builtin_governors(); *g; g++, n++) {
		expect_failures(*g, 0, 0, &rep);
		assert_not_vacuous(&rep);
		assert_true(rep.entries > 0);
	}
	assert_true(n >= 4);
	/* the ports by kernel release (teo@7.1, menu@7.1, ...) too */
	for (n = 0, g = cpuidle_versioned_governors(); *g; g++, n++) {
		expect_failures(*g, 0, 0, &rep);
		assert_not_vacuous(&rep);
		assert_true(rep.entries > 0);
	}
	assert_int_equal(n, 4);
}

/* A correct governor passes every check, each of which applied. */
static void test_reference_passes(void **state)
{
	struct conformance_report rep;

	(void)state;
	expect_failures(&ref_gov, 0, 0, &rep);
	assert_not_vacuous(&rep);
	assert_string_equal(rep.checks[CONFORMANCE_QOS].message, "");
}

/*
 * The example governor (doc/writing-a-governor.md), as a user's, passes every check.  (It
 * once returned state 0 even when disabled as soon as the next enabled
 * state did not fit, e.g. POLL disabled and the timer closer than C1's
 * residency: "disabled" caught it.)
 */
static void test_example_governor(void **state)
{
	struct conformance_report rep;

	(void)state;
	expect_failures(&timer_governor, 0, 0, &rep);
	assert_not_vacuous(&rep);
}

/* ------------------------------------------------- the broken governors */

static void test_catches_bad_index(void **state)
{
	struct conformance_report rep;
	const char *msg;

	(void)state;
	expect_failures(&bad_index_gov, SMALL_RUN, bit(CONFORMANCE_INDEX), &rep);
	msg = rep.checks[CONFORMANCE_INDEX].message;
	assert_non_null(strstr(msg, "bad-index: shape "));
	assert_non_null(strstr(msg, "next_timer_ns=none"));
	assert_non_null(strstr(msg, "outside [0, "));
}

static void test_catches_ignored_disable(void **state)
{
	struct conformance_report rep;

	(void)state;
	expect_failures(&ignore_disable_gov, SMALL_RUN, bit(CONFORMANCE_DISABLED), &rep);
	assert_non_null(strstr(rep.checks[CONFORMANCE_DISABLED].message, "is disabled while"));
}

static void test_catches_ignored_qos(void **state)
{
	struct conformance_report rep;

	(void)state;
	expect_failures(&ignore_qos_gov, SMALL_RUN,
			bit(CONFORMANCE_QOS) | bit(CONFORMANCE_QOS0), &rep);
	assert_non_null(strstr(rep.checks[CONFORMANCE_QOS].message, "above the QoS limit"));
}

static void test_catches_deep_state_under_qos0(void **state)
{
	struct conformance_report rep;
	const char *msg;

	(void)state;
	expect_failures(&deep_qos0_gov, SMALL_RUN, bit(CONFORMANCE_QOS0), &rep);
	msg = rep.checks[CONFORMANCE_QOS0].message;
	assert_non_null(strstr(msg, "qos_us=0 "));
	assert_non_null(strstr(msg, "QoS 0 allows only polling"));
}

static void test_catches_static_counter(void **state)
{
	struct conformance_report rep;

	(void)state;
	expect_failures(&counter_gov, SMALL_RUN, bit(CONFORMANCE_DETERMINISM), &rep);
	assert_non_null(strstr(rep.checks[CONFORMANCE_DETERMINISM].message, "a second system fed the same input diverged from the first at idle entry "));
}

static void test_catches_rand(void **state)
{
	struct conformance_report rep;

	(void)state;
	srand(1);
	expect_failures(&rand_gov, SMALL_RUN, bit(CONFORMANCE_DETERMINISM), &rep);
}

static void test_catches_shared_state(void **state)
{
	struct conformance_report rep;

	(void)state;
	expect_failures(&shared_gov, SMALL_RUN, bit(CONFORMANCE_DETERMINISM), &rep);
	assert_non_null(strstr(rep.checks[CONFORMANCE_DETERMINISM].message,
			       "the second of two systems run interleaved diverged from the first"));
}

static void test_catches_enable_failure(void **state)
{
	struct conformance_report rep;

	(void)state;
	/* only the 10-state shape refuses; switching to it there fails as well */
	expect_failures(&small_only_gov, SMALL_RUN,
			bit(CONFORMANCE_ENABLE) | bit(CONFORMANCE_SWITCH), &rep);
	assert_non_null(strstr(rep.checks[CONFORMANCE_ENABLE].message, "shape 10-state"));
	assert_int_equal(rep.checks[CONFORMANCE_ENABLE].checked, CONFORMANCE_NR_SHAPES - 1);
}

static void test_catches_switch_failure(void **state)
{
	struct conformance_report rep;

	(void)state;
	expect_failures(&fresh_only_gov, SMALL_RUN, bit(CONFORMANCE_SWITCH), &rep);
	assert_non_null(strstr(rep.checks[CONFORMANCE_SWITCH].message, "failed"));
}

/* ------------------------------------------------- the options */

static const struct cpuidle_governor *builtin(const char *name)
{
	const struct cpuidle_governor *const *g;

	for (g = cpuidle_builtin_governors(); *g; g++)
		if (!strcmp((*g)->name, name))
			return *g;
	fail_msg("no built-in governor %s", name);
	return NULL;
}

static void test_options(void **state)
{
	struct conformance_options opt = { .entries = SMALL_RUN };
	struct conformance_report a, b;
	static const struct cpuidle_governor nameless = { .select = ref_select };
	static const struct cpuidle_governor no_select = { .name = "x" };

	(void)state;
	assert_int_equal(conformance_check(NULL, NULL, &a), -EINVAL);
	assert_int_equal(conformance_check(&ref_gov, NULL, NULL), -EINVAL);
	assert_int_equal(conformance_check(&nameless, NULL, &a), -EINVAL);
	assert_int_equal(conformance_check(&no_select, NULL, &a), -EINVAL);
	opt.shapes = 1u << CONFORMANCE_NR_SHAPES;
	assert_int_equal(conformance_check(&ref_gov, &opt, &a), -EINVAL);
	opt.shapes = 0;
	opt.entries = CONFORMANCE_MAX_ENTRIES + 1;
	assert_int_equal(conformance_check(&ref_gov, &opt, &a), -EINVAL);

	/* the report is a function of the options */
	opt.entries = SMALL_RUN;
	opt.seed = 42;
	assert_int_equal(conformance_check(cpuidle_builtin_governors()[0], &opt, &a), 0);
	assert_int_equal(conformance_check(cpuidle_builtin_governors()[0], &opt, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_true(a.seed == 42);

	/* one shape: the single polling state, where a bad index shows at once */
	opt.shapes = 1u << conformance_shape_find("poll");
	assert_int_equal(conformance_check(builtin("ladder"), &opt, &a), 0);
	assert_int_equal(a.checks[CONFORMANCE_ENABLE].checked, 1);
	assert_int_equal(a.nr_failed, 0);
	assert_true(a.checks[CONFORMANCE_INDEX].checked > 0);
	assert_int_equal(conformance_check(&bad_index_gov, &opt, &a), 0);
	assert_int_equal(a.checks[CONFORMANCE_ENABLE].checked, 1);
	assert_int_equal(a.nr_failed, 1);
	assert_non_null(strstr(a.checks[CONFORMANCE_INDEX].message,
			       "bad-index: shape poll, seed 42, idle entry "));
	assert_non_null(strstr(a.checks[CONFORMANCE_INDEX].message, "index 1 outside [0, 1)"));

	/* partners: none, so nothing to switch with */
	opt.shapes = 0;
	{
		static const struct cpuidle_governor *const none[] = { NULL };

		opt.partners = none;
		assert_int_equal(conformance_check(&ref_gov, &opt, &a), 0);
		assert_int_equal(a.checks[CONFORMANCE_SWITCH].checked, 0);
		assert_int_equal(a.nr_failed, 0);
	}

	assert_int_equal(conformance_shape_find("10-state"), CONFORMANCE_SHAPE_TEN);
	assert_int_equal(conformance_shape_find("nosuch"), -EINVAL);
	assert_null(conformance_check_name(CONFORMANCE_NR_CHECKS));
	assert_string_equal(conformance_check_name(CONFORMANCE_QOS0), "qos0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_governors),
		cmocka_unit_test(test_reference_passes),
		cmocka_unit_test(test_example_governor),
		cmocka_unit_test(test_catches_bad_index),
		cmocka_unit_test(test_catches_ignored_disable),
		cmocka_unit_test(test_catches_ignored_qos),
		cmocka_unit_test(test_catches_deep_state_under_qos0),
		cmocka_unit_test(test_catches_static_counter),
		cmocka_unit_test(test_catches_rand),
		cmocka_unit_test(test_catches_shared_state),
		cmocka_unit_test(test_catches_enable_failure),
		cmocka_unit_test(test_catches_switch_failure),
		cmocka_unit_test(test_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
