// SPDX-License-Identifier: MIT
/*
 * test_sweep.c - the lab's sweep (lab/sim/sweep.c): rows laid out governor
 * by governor, QoS by QoS, combination by combination; each row's result
 * the one a replay of its own configuration gives; a run shared by rows
 * that cannot differ (a parameter of another governor); the oracle beside
 * every row, skipped where energy is unknown; the same rows whatever the
 * threads; and the refusals and failures it names.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "batch.h"

#define MAX_ROWS	64

static struct cpuidle_platform laptop, unpowered;
static struct cpuidle_lab_trace *trace;

/* What a sweep handed back. */
struct seen {
	unsigned int nr;
	struct cpuidle_lab_point at[MAX_ROWS];
	struct cpuidle_lab_result res[MAX_ROWS];
	struct cpuidle_lab_result oracle[MAX_ROWS];
	bool has_oracle[MAX_ROWS];
	unsigned int lost;
	uint64_t last_done, last_total;
};

static int row(void *ctx, const struct cpuidle_lab_point *at,
	       const struct cpuidle_lab_result *res, const struct cpuidle_lab_result *oracle)
{
	struct seen *s = ctx;

	assert_true(s->nr < MAX_ROWS);
	s->at[s->nr] = *at;
	s->res[s->nr] = *res;
	s->has_oracle[s->nr] = oracle != NULL;
	if (oracle)
		s->oracle[s->nr] = *oracle;
	s->nr++;
	return 0;
}

static void progress(void *ctx, uint64_t done, uint64_t total)
{
	struct seen *s = ctx;

	assert_true(done >= s->last_done);
	s->last_done = done;
	s->last_total = total;
}

static const struct cpuidle_lab_sweep_ops ops = { .row = row, .progress = progress };

static const char *const govs[] = { "menu", "haltpoll" };
static const char *const polls[] = { "0", "200000" };
static const int32_t qos_trace[] = { -1 };
static const struct cpuidle_lab_axis poll_axis = {
	.path = "module/haltpoll/parameters/guest_halt_poll_ns",
	.values = polls,
	.nr_values = 2,
};

static int setup(void **state)
{
	char err[256];

	(void)state;
	if (cpuidle_platform_load("laptop", &laptop, err, sizeof(err)))
		return -1;
	unpowered = laptop;
	unpowered.clusters[0].states[1].model_power_mw = -1;	/* energy unknown */
	return cpuidle_lab_trace_pattern("mixed", 2, 400, 7, &trace) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	cpuidle_lab_trace_close(trace);
	return 0;
}

static void spec_of(struct cpuidle_lab_sweep_spec *spec, const struct cpuidle_lab_block *blocks,
		    unsigned int nr_blocks)
{
	*spec = (struct cpuidle_lab_sweep_spec){
		.blocks = blocks,
		.nr_blocks = nr_blocks,
		.governors = govs,
		.nr_governors = 2,
		.qos_us = qos_trace,
		.nr_qos = 1,
		.axes = &poll_axis,
		.nr_axes = 1,
	};
}

static void run_sweep(const struct cpuidle_lab_sweep_spec *spec, unsigned int threads,
		      struct seen *s, uint64_t *runs)
{
	struct cpuidle_lab_sweep *sw;
	struct cpuidle_lab_sweep_error fail;

	memset(s, 0, sizeof(*s));
	assert_int_equal(cpuidle_lab_sweep_new(spec, &sw), 0);
	*runs = cpuidle_lab_sweep_runs(sw);
	assert_int_equal(cpuidle_lab_sweep_run(sw, &ops, s, threads, &fail), 0);
	assert_int_equal(fail.error, 0);
	assert_int_equal(s->nr, spec->nr_blocks * cpuidle_lab_sweep_rows(sw));
	cpuidle_lab_sweep_free(sw);
}

/* the replay of one configuration, as a caller would make it alone */
static void replay_alone(const struct cpuidle_platform *p, const char *gov, const char *attr,
			 struct cpuidle_lab_result *res)
{
	const char *attrs[] = { attr, NULL };
	struct cpuidle_lab_run run = {
		.trace = trace,
		.platform = p,
		.governor = gov,
		.qos_us = -1,
		.attrs = attrs,
	};

	assert_int_equal(cpuidle_lab_replay(&run, res), 0);
}

static void assert_same_result(const struct cpuidle_lab_result *a,
			       const struct cpuidle_lab_result *b)
{
	int s;

	assert_string_equal(a->governor, b->governor);
	assert_int_equal(a->state_count, b->state_count);
	assert_int_equal(a->entries, b->entries);
	assert_int_equal(a->intervals, b->intervals);
	for (s = 0; s < a->state_count; s++) {
		assert_int_equal(a->states[s].usage, b->states[s].usage);
		assert_int_equal(a->states[s].time_ns, b->states[s].time_ns);
		assert_int_equal(a->states[s].above, b->states[s].above);
		assert_int_equal(a->states[s].below, b->states[s].below);
	}
	assert_true(a->idle_energy_mj == b->idle_energy_mj);
	assert_int_equal(a->added_latency_ns, b->added_latency_ns);
}

/*
 * menu x {0, 200000} shares one run (it reads no haltpoll parameter),
 * haltpoll makes two that differ; the oracle is added once; every row is
 * what its configuration gives replayed alone, beside the oracle's.
 */
static void test_rows_and_sharing(void **state)
{
	const struct cpuidle_lab_block block = { .trace = trace, .platform = &laptop };
	struct cpuidle_lab_sweep_spec spec;
	struct cpuidle_lab_result alone, oracle;
	struct seen s;
	uint64_t runs;
	unsigned int r;

	(void)state;
	spec_of(&spec, &block, 1);
	run_sweep(&spec, 2, &s, &runs);
	assert_int_equal(runs, 4);		/* menu, haltpoll x 2, the oracle */
	assert_int_equal(s.nr, 4);
	assert_int_equal(s.last_done, 4);
	assert_int_equal(s.last_total, 4);
	replay_alone(&laptop, CPUIDLE_LAB_ORACLE, NULL, &oracle);
	for (r = 0; r < 4; r++) {
		const char *gov = govs[r / 2];
		char attr[128];

		assert_int_equal(s.at[r].row, r);
		assert_int_equal(s.at[r].block, 0);
		assert_int_equal(s.at[r].governor, r / 2);
		assert_int_equal(s.at[r].qos, 0);
		assert_int_equal(s.at[r].values[0], r % 2);
		snprintf(attr, sizeof(attr), "%s=%s", poll_axis.path, polls[r % 2]);
		replay_alone(&laptop, gov, attr, &alone);
		assert_same_result(&s.res[r], &alone);
		assert_true(s.has_oracle[r]);
		assert_same_result(&s.oracle[r], &oracle);
	}
	assert_same_result(&s.res[0], &s.res[1]);
	/* a live window changes what haltpoll does */
	assert_true(s.res[2].states[0].usage != s.res[3].states[0].usage);
}

/* the same rows, in the same order, on one thread and on eight; two blocks */
static void test_threads(void **state)
{
	const struct cpuidle_lab_block blocks[] = {
		{ .trace = trace, .platform = &laptop },
		{ .trace = trace, .platform = &unpowered },
	};
	struct cpuidle_lab_sweep_spec spec;
	struct seen *one = malloc(sizeof(*one)), *eight = malloc(sizeof(*eight));
	uint64_t runs;
	unsigned int r;

	(void)state;
	assert_non_null(one);
	assert_non_null(eight);
	spec_of(&spec, blocks, 2);
	run_sweep(&spec, 1, one, &runs);
	run_sweep(&spec, 8, eight, &runs);
	assert_int_equal(one->nr, 8);
	for (r = 0; r < one->nr; r++) {
		assert_memory_equal(&one->at[r], &eight->at[r], sizeof(one->at[r]));
		assert_same_result(&one->res[r], &eight->res[r]);
		assert_int_equal(one->has_oracle[r], eight->has_oracle[r]);
	}
	assert_int_equal(one->at[4].block, 1);
	assert_int_equal(one->at[4].row, 0);
	/* the second block's platform has no power: its added oracle is not run */
	assert_true(one->has_oracle[0]);
	assert_false(one->has_oracle[4]);
	free(one);
	free(eight);
}

/* an oracle named by the governors is run even where energy is unknown, and shared */
static void test_named_oracle(void **state)
{
	static const char *const with_oracle[] = { "menu", CPUIDLE_LAB_ORACLE };
	const struct cpuidle_lab_block block = { .trace = trace, .platform = &unpowered };
	struct cpuidle_lab_sweep_spec spec;
	struct seen s;
	uint64_t runs;

	(void)state;
	spec_of(&spec, &block, 1);
	spec.governors = with_oracle;
	run_sweep(&spec, 2, &s, &runs);
	assert_int_equal(runs, 2);		/* neither reads the haltpoll axis */
	assert_int_equal(s.nr, 4);
	assert_true(s.has_oracle[0] && s.has_oracle[3]);
	assert_same_result(&s.res[2], &s.oracle[0]);
	/* --no-oracle: none added, the named one still paired */
	spec.governors = govs;
	spec.no_oracle = true;
	run_sweep(&spec, 2, &s, &runs);
	assert_int_equal(runs, 3);
	assert_false(s.has_oracle[0]);
}

/* what sweep_new and sweep_check refuse, and a failed run named by its point */
static void test_refusals(void **state)
{
	static const char *const twice[] = { "menu", "menu" };
	static const char *const bad_gov[] = { "menu", "no-such-governor" };
	static const char *const bad_values[] = { "0", "not-a-number" };
	const struct cpuidle_lab_axis bad_axis = {
		.path = poll_axis.path, .values = bad_values, .nr_values = 2,
	};
	static const int32_t many_qos[400] = { 0 };
	struct cpuidle_lab_block block = { .trace = trace, .platform = &laptop };
	struct cpuidle_lab_sweep_spec spec;
	struct cpuidle_lab_sweep_error fail;
	struct cpuidle_lab_sweep *sw;
	struct cpuidle_platform one_cpu = laptop;
	struct seen s;

	(void)state;
	spec_of(&spec, &block, 1);
	spec.governors = twice;
	assert_int_equal(cpuidle_lab_sweep_new(&spec, &sw), -EINVAL);
	assert_null(sw);
	spec_of(&spec, &block, 1);
	spec.nr_blocks = 0;
	assert_int_equal(cpuidle_lab_sweep_new(&spec, &sw), -EINVAL);
	spec_of(&spec, &block, 1);
	spec.qos_us = many_qos;
	spec.nr_qos = 400;
	{
		static const char *const vals[200] = { [0 ... 199] = "1" };
		const struct cpuidle_lab_axis big = { .path = "x", .values = vals, .nr_values = 200 };

		spec.axes = &big;	/* 2 x 400 x 200 rows */
		assert_int_equal(cpuidle_lab_sweep_new(&spec, &sw), -E2BIG);
	}

	/* the check: a platform too small, then a value refused */
	spec_of(&spec, &block, 1);
	one_cpu.nr_cpus = 1;
	block.platform = &one_cpu;
	assert_int_equal(cpuidle_lab_sweep_check(&spec, &block, &fail), -ERANGE);
	assert_int_equal(fail.axis, -1);
	block.platform = &laptop;
	assert_int_equal(cpuidle_lab_sweep_check(&spec, &block, &fail), 0);
	spec.axes = &bad_axis;
	assert_int_equal(cpuidle_lab_sweep_check(&spec, &block, &fail), -EINVAL);
	assert_int_equal(fail.axis, 0);
	assert_int_equal(fail.at.values[0], 1);

	/* a run that fails ends the sweep, named by where it sits */
	spec_of(&spec, &block, 1);
	spec.governors = bad_gov;
	assert_int_equal(cpuidle_lab_sweep_new(&spec, &sw), 0);
	memset(&s, 0, sizeof(s));
	assert_true(cpuidle_lab_sweep_run(sw, &ops, &s, 2, &fail) < 0);
	assert_true(fail.error < 0);
	assert_int_equal(fail.at.governor, 1);
	assert_int_equal(s.nr, 0);	/* its block never completed */
	cpuidle_lab_sweep_free(sw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_and_sharing),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_named_oracle),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
