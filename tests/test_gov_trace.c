// SPDX-License-Identifier: MIT
/*
 * test_gov_trace.c - the tracing wrapper: logs each call with its inputs and
 * changes no decision.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "libcpuidle.h"

struct machine {
	struct cpuidle_system *sys;
	struct cpuidle_table_driver td;
	struct cpuidle_device dev;
	uint64_t now;
	int64_t stay;		/* how long the next idle period lasts */
};

#define MAX_LOG	4096
static struct cpuidle_decision logged[MAX_LOG];
static int nr_logged;

static void sink(void *ctx, const struct cpuidle_device *dev, const struct cpuidle_decision *d)
{
	(void)dev;
	assert_ptr_equal(ctx, &nr_logged);
	assert_true(nr_logged < MAX_LOG);
	logged[nr_logged++] = *d;
}

static uint64_t clk(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	return ((struct machine *)ctx)->now;
}

static int idle(struct cpuidle_device *dev, struct cpuidle_state *state, int index, void *ctx)
{
	struct machine *m = ctx;

	(void)dev;
	(void)state;
	(void)index;
	m->now += (uint64_t)m->stay;
	return 0;
}

static void machine_up(struct machine *m, const char *governor)
{
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts), .ops = { .clock_ns = clk }, .governor = governor,
	};
	struct cpuidle_platform p;
	char err[256];

	memset(m, 0, sizeof(*m));
	opts.ctx = m;
	assert_int_equal(cpuidle_platform_load("laptop", &p, err, sizeof(err)), 0);
	assert_int_equal(cpuidle_system_create(&opts, &m->sys), 0);
	assert_int_equal(cpuidle_table_driver_init(&m->td, &p, idle, m), 0);
	assert_int_equal(cpuidle_register_driver(m->sys, &m->td.drv), 0);
	assert_int_equal(cpuidle_table_device_init(&m->td, &m->dev, 0), 0);
	assert_int_equal(cpuidle_register_device(m->sys, &m->dev), 0);
}

/* Stays and timers from a fixed pseudo-random sequence. */
static int step(struct machine *m, uint64_t *seed, struct cpuidle_idle_ctx *ctx)
{
	uint64_t x = *seed;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*seed = x;
	m->stay = (int64_t)(1000 + x % 3000000);
	*ctx = (struct cpuidle_idle_ctx){
		.sleep_length_ns = (x >> 32) % 4 ? m->stay + (int64_t)(x % 50000) :
						  CPUIDLE_TIME_INFINITE,
		.delta_tick_ns = 1000000,
	};
	return cpuidle_idle_call(&m->dev, ctx);
}

/* The wrapped governor decides exactly as the plain one; each call is logged. */
static void test_same_decisions_logged(void **state)
{
	const char *govs[] = { "ladder", "menu" };
	unsigned int g;

	(void)state;
	for (g = 0; g < 2; g++) {
		struct cpuidle_governor_tracer t;
		struct machine plain, traced;
		uint64_t s1 = 88172645463325252ull, s2 = s1;
		int i;

		machine_up(&plain, govs[g]);
		machine_up(&traced, govs[g]);
		assert_int_equal(cpuidle_governor_tracer_init(&t, cpuidle_current_governor(traced.sys),
							      sink, &nr_logged), 0);
		assert_int_equal(cpuidle_register_governor(traced.sys, &t.gov), 0);
		assert_int_equal(cpuidle_attr_write(traced.sys, "cpuidle/current_governor",
						    t.gov.name), 0);
		assert_string_equal(cpuidle_current_governor(traced.sys)->name,
				    g ? "menu+trace" : "ladder+trace");
		/* QoS and a disabled state reach the log */
		assert_int_equal(pm_qos_add_requirement(plain.sys, PM_QOS_CPU_DMA_LATENCY, "t", 100), 0);
		assert_int_equal(pm_qos_add_requirement(traced.sys, PM_QOS_CPU_DMA_LATENCY, "t", 100), 0);
		assert_int_equal(cpuidle_attr_write(plain.sys, "cpu0/cpuidle/state1/disable", "1"), 0);
		assert_int_equal(cpuidle_attr_write(traced.sys, "cpu0/cpuidle/state1/disable", "1"), 0);
		nr_logged = 0;
		for (i = 0; i < 1000; i++) {
			struct cpuidle_idle_ctx a, b;
			int x = step(&plain, &s1, &a), y = step(&traced, &s2, &b);

			assert_int_equal(x, y);
			assert_int_equal(a.stop_tick, b.stop_tick);
			assert_int_equal(nr_logged, 2 * (i + 1));
			/* select, then reflect */
			assert_false(logged[2 * i].reflect);
			assert_int_equal(logged[2 * i].state, y);
			assert_int_equal(logged[2 * i].stop_tick, b.stop_tick);
			assert_int_equal(logged[2 * i].sleep_length_ns, b.sleep_length_ns);
			assert_int_equal(logged[2 * i].latency_req_ns, 100000);
			assert_int_equal(logged[2 * i].disabled, 1u << 1);
			assert_true(logged[2 * i + 1].reflect);
			assert_int_equal(logged[2 * i + 1].state, b.entered);
			assert_int_equal(logged[2 * i + 1].last_residency_ns, traced.dev.last_residency_ns);
			if (i)	/* select saw the period before it */
				assert_int_equal(logged[2 * i].last_residency_ns,
						 logged[2 * i - 1].last_residency_ns);
		}
		/* switched away, nothing more is logged */
		assert_int_equal(cpuidle_attr_write(traced.sys, "cpuidle/current_governor",
						    govs[g]), 0);
		step(&traced, &s2, &(struct cpuidle_idle_ctx){ 0 });
		assert_int_equal(nr_logged, 2000);
		cpuidle_system_destroy(plain.sys);
		cpuidle_system_destroy(traced.sys);
	}
}

static void test_init_errors(void **state)
{
	static const struct cpuidle_governor no_select = { .name = "x" };
	static const struct cpuidle_governor long_name = {
		.name = "abcdefghijklmno", .select = (void *)1,
	};
	struct cpuidle_governor_tracer t;

	(void)state;
	assert_int_equal(cpuidle_governor_tracer_init(NULL, &no_select, sink, NULL), -EINVAL);
	assert_int_equal(cpuidle_governor_tracer_init(&t, NULL, sink, NULL), -EINVAL);
	assert_int_equal(cpuidle_governor_tracer_init(&t, &no_select, sink, NULL), -EINVAL);
	assert_int_equal(cpuidle_governor_tracer_init(&t, &long_name, sink, NULL), -EINVAL);
	assert_int_equal(cpuidle_governor_tracer_init(&t, cpuidle_builtin_governors()[0], NULL,
						      NULL), -EINVAL);
}

static void test_format(void **state)
{
	struct cpuidle_decision d = {
		.cpu = 3, .sleep_length_ns = CPUIDLE_TIME_INFINITE, .delta_tick_ns = 4000000,
		.latency_req_ns = 20000, .disabled = 0x5, .last_state_idx = 1,
		.last_residency_ns = 123, .state = 2, .stop_tick = true,
	};
	char buf[256];
	int n;

	(void)state;
	n = cpuidle_decision_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, "cpu=3 select next_timer_ns=none delta_tick_ns=4000000 "
			    "tick_stopped=0 latency_req_ns=20000 disabled=0x5 last_state=1 "
			    "last_residency_ns=123 poll_time_limit=0 -> state=2 stop_tick=1");
	assert_int_equal(n, (int)strlen(buf));
	d.reflect = true;
	d.got_tick = true;
	cpuidle_decision_format(&d, buf, sizeof(buf));
	assert_string_equal(buf, "cpu=3 reflect state=2 residency_ns=123 got_tick=1 "
			    "poll_time_limit=0");
	/* too small a buffer: truncated, the needed length returned */
	assert_true(cpuidle_decision_format(&d, buf, 8) > 8);
	assert_int_equal(strlen(buf), 7);
	assert_int_equal(cpuidle_decision_format(NULL, buf, sizeof(buf)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_decisions_logged),
		cmocka_unit_test(test_init_errors),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
