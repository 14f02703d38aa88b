// SPDX-License-Identifier: MIT
/*
 * test_attr.c - the attribute tree: the exact text of every file, the
 * kernel's parsing of writes, every documented errno, the walk.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixture.h"

#define LONG_STAY	1000000		/* 1 ms */
#define SHORT_STAY	500		/* 0.5 us */
#define TIMER		10000000	/* 10 ms */

#define N_GLOBAL	4
#define N_STATE_FILES	12

static const char *const state_files[N_STATE_FILES] = {
	"name", "desc", "latency", "residency", "power", "usage", "time",
	"disable", "above", "below", "rejected", "default_status",
};

static const char *const global_files[N_GLOBAL] = {
	"current_driver", "current_governor", "current_governor_ro",
	"available_governors",
};

/*
 * The governors' module parameters, after the state files in a walk, in
 * the order the governors are registered (haltpoll, hazard, cluster).
 */
#define N_MODULE_FILES	17

static const char *const module_files[N_MODULE_FILES] = {
	"module/haltpoll/parameters/guest_halt_poll_ns",
	"module/haltpoll/parameters/guest_halt_poll_shrink",
	"module/haltpoll/parameters/guest_halt_poll_grow",
	"module/haltpoll/parameters/guest_halt_poll_grow_start",
	"module/haltpoll/parameters/guest_halt_poll_allow_shrink",
	"module/hazard/parameters/decay_shift",
	"module/hazard/parameters/hit_slack_shift",
	"module/hazard/parameters/prior_wake_shift",
	"module/hazard/parameters/context_short_ns",
	"module/hazard/parameters/context_long_ns",
	"module/cluster/parameters/decay_shift",
	"module/cluster/parameters/hit_slack_shift",
	"module/cluster/parameters/prior_wake_shift",
	"module/cluster/parameters/context_short_ns",
	"module/cluster/parameters/context_long_ns",
	"module/cluster/parameters/siblings_remaining",
	"module/cluster/parameters/offer",
};

/* Read @path, asserting success and a consistent length. */
static const char *rd(struct cpuidle_system *sys, const char *path)
{
	static char buf[4096];
	ssize_t n;

	n = cpuidle_attr_read(sys, path, buf, sizeof(buf));
	if (n < 0)
		fail_msg("read %s: %zd", path, n);
	assert_int_equal((size_t)n, strlen(buf));
	return buf;
}

static const char *rds(struct cpuidle_system *sys, unsigned int cpu, int state,
		       const char *file)
{
	char path[96];

	snprintf(path, sizeof(path), "cpu%u/cpuidle/state%d/%s", cpu, state, file);
	return rd(sys, path);
}

static int wrs(struct cpuidle_system *sys, unsigned int cpu, int state, const char *file,
	       const char *value)
{
	char path[96];

	snprintf(path, sizeof(path), "cpu%u/cpuidle/state%d/%s", cpu, state, file);
	return cpuidle_attr_write(sys, path, value);
}

static void expect_state_file(struct cpuidle_system *sys, unsigned int cpu, int state,
			      const char *file, const char *want)
{
	const char *got = rds(sys, cpu, state, file);

	if (strcmp(got, want))
		fail_msg("cpu%u/state%d/%s: got \"%s\", want \"%s\"", cpu, state, file,
			 got, want);
}

/* The text every file of state @i of @dev must hold, from its fields. */
static void expect_state_matches_device(struct cpuidle_system *sys,
					struct cpuidle_device *dev, int i)
{
	const struct cpuidle_state *s = &dev->states[i];
	const struct cpuidle_state_usage *su = &dev->states_usage[i];
	char want[128];

	snprintf(want, sizeof(want), "%s\n", s->name[0] ? s->name : "<null>");
	expect_state_file(sys, dev->cpu, i, "name", want);
	snprintf(want, sizeof(want), "%s\n", s->desc[0] ? s->desc : "<null>");
	expect_state_file(sys, dev->cpu, i, "desc", want);
	snprintf(want, sizeof(want), "%lld\n", (long long)(s->exit_latency_ns / 1000));
	expect_state_file(sys, dev->cpu, i, "latency", want);
	snprintf(want, sizeof(want), "%lld\n", (long long)(s->target_residency_ns / 1000));
	expect_state_file(sys, dev->cpu, i, "residency", want);
	snprintf(want, sizeof(want), "%u\n", (unsigned int)s->power_usage);
	expect_state_file(sys, dev->cpu, i, "power", want);
	snprintf(want, sizeof(want), "%llu\n", su->usage);
	expect_state_file(sys, dev->cpu, i, "usage", want);
	snprintf(want, sizeof(want), "%llu\n", (unsigned long long)(su->time_ns / 1000));
	expect_state_file(sys, dev->cpu, i, "time", want);
	snprintf(want, sizeof(want), "%llu\n", su->time);
	expect_state_file(sys, dev->cpu, i, "time", want);
	snprintf(want, sizeof(want), "%u\n", su->disable & CPUIDLE_STATE_DISABLED_BY_USER);
	expect_state_file(sys, dev->cpu, i, "disable", want);
	snprintf(want, sizeof(want), "%llu\n", (unsigned long long)su->above);
	expect_state_file(sys, dev->cpu, i, "above", want);
	snprintf(want, sizeof(want), "%llu\n", (unsigned long long)su->below);
	expect_state_file(sys, dev->cpu, i, "below", want);
	snprintf(want, sizeof(want), "%llu\n", (unsigned long long)su->rejected);
	expect_state_file(sys, dev->cpu, i, "rejected", want);
	expect_state_file(sys, dev->cpu, i, "default_status",
			  (s->flags & CPUIDLE_FLAG_OFF) ? "disabled\n" : "enabled\n");
}

/*
 * "name name ... \n" of the built-in governors, then the ports by release
 * (NAME@RELEASE), in registration order.
 */
static void builtin_list(char *buf, size_t size)
{
	const struct cpuidle_governor *const *g;
	size_t len = 0;

	buf[0] = '\0';
	for (g = cpuidle_builtin_governors(); *g; g++)
		len += (size_t)snprintf(buf + len, size - len, "%s ", (*g)->name);
	for (g = cpuidle_versioned_governors(); *g; g++)
		len += (size_t)snprintf(buf + len, size - len, "%s ", (*g)->name);
	snprintf(buf + len, size - len, "\n");
}

/* ---------------------------------------------------------------- reads */

static void test_global_files_text(void **state)
{
	struct fixture fx;
	char want[512];

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	assert_string_equal(rd(fx.sys, "cpuidle/current_driver"), "fixture\n");
	snprintf(want, sizeof(want), "%s\n", cpuidle_current_governor(fx.sys)->name);
	assert_string_equal(rd(fx.sys, "cpuidle/current_governor"), want);
	assert_string_equal(rd(fx.sys, "cpuidle/current_governor_ro"), want);
	builtin_list(want, sizeof(want));
	assert_string_equal(rd(fx.sys, "cpuidle/available_governors"), want);
	/* the absolute prefix is tolerated, as are doubled slashes */
	assert_string_equal(rd(fx.sys, "/sys/devices/system/cpu/cpuidle/current_driver"),
			    "fixture\n");
	assert_string_equal(rd(fx.sys, "/sys/devices/system/cpu/cpu1/cpuidle/state2/name"),
			    "C3\n");
	assert_string_equal(rd(fx.sys, "cpu1//cpuidle/state2/latency"), "57\n");
	fx_fini(&fx);
}

static uint64_t zero_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	(void)ctx;
	return 0;
}

static int count_visit(const char *path, const char *value, bool writable, void *arg)
{
	(void)path;
	(void)value;
	(void)writable;
	(*(int *)arg)++;
	return 0;
}

static void test_no_driver_no_governor(void **state)
{
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = { .clock_ns = zero_clock },
		.flags = CPUIDLE_SYS_NO_BUILTIN_GOVERNORS,
	};
	struct cpuidle_system *sys;
	int n = 0;

	(void)state;
	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	assert_string_equal(rd(sys, "cpuidle/current_driver"), "none\n");
	assert_string_equal(rd(sys, "cpuidle/current_governor"), "none\n");
	assert_string_equal(rd(sys, "cpuidle/current_governor_ro"), "none\n");
	assert_string_equal(rd(sys, "cpuidle/available_governors"), "\n");
	assert_int_equal(cpuidle_attr_write(sys, "cpuidle/current_governor", "ladder"),
			 -EINVAL);
	/* no governor registered, so no governor's tunables (module/ is empty) */
	assert_int_equal(cpuidle_attr_walk(sys, count_visit, &n), 0);
	assert_int_equal(n, N_GLOBAL);
	assert_int_equal(cpuidle_attr_read(sys, "module/haltpoll/parameters/guest_halt_poll_ns",
					   (char[64]){ 0 }, 64), -ENOENT);
	cpuidle_system_destroy(sys);
}

/* Long and short stays under the ladder, and one rejected entry. */
static void run_some_idle(struct fixture *fx, int cpu)
{
	int i;

	for (i = 0; i < 12; i++)
		assert_true(fx_idle(fx, cpu, LONG_STAY, TIMER, false) >= 0);
	for (i = 0; i < 3; i++)
		assert_true(fx_idle(fx, cpu, SHORT_STAY, TIMER, false) >= 0);
	/* whatever the governor picks next, one entry is refused */
	for (i = 0; i < fx->dev[cpu].state_count; i++) {
		fx->reject[cpu] = i;
		if (fx_idle(fx, cpu, LONG_STAY, TIMER, false) == -EBUSY)
			break;
	}
	assert_true(i < fx->dev[cpu].state_count);
	fx->reject[cpu] = -1;
	assert_true(fx_idle(fx, cpu, LONG_STAY, TIMER, false) >= 0);
}

static void test_state_files_text_laptop(void **state)
{
	uint64_t above = 0, below = 0, rejected = 0, used = 0;
	struct fixture fx;
	char want[64];
	int cpu, i;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "ladder"), 0);
	run_some_idle(&fx, 0);
	for (i = 0; i < 3; i++)
		assert_true(fx_idle(&fx, 1, LONG_STAY, TIMER, false) >= 0);

	for (i = 0; i < 3; i++) {
		const struct cpuidle_state_usage *su = &fx.dev[0].states_usage[i];

		above += su->above;
		below += su->below;
		rejected += su->rejected;
		used += su->usage != 0;
	}
	/* the counters really move, so the text below really is checked */
	assert_true(above > 0);
	assert_true(below > 0);
	assert_int_equal(rejected, 1);
	assert_true(used >= 2);
	assert_true(fx.dev[0].states_usage[0].time_ns >= 1000);

	for (cpu = 0; cpu < 2; cpu++) {
		for (i = 0; i < 3; i++) {
			expect_state_matches_device(fx.sys, &fx.dev[cpu], i);
			snprintf(want, sizeof(want), "%s\n", fx_laptop[i].name);
			expect_state_file(fx.sys, cpu, i, "name", want);
			snprintf(want, sizeof(want), "test %s\n", fx_laptop[i].name);
			expect_state_file(fx.sys, cpu, i, "desc", want);
			snprintf(want, sizeof(want), "%u\n", fx_laptop[i].exit_us);
			expect_state_file(fx.sys, cpu, i, "latency", want);
			snprintf(want, sizeof(want), "%u\n", fx_laptop[i].residency_us);
			expect_state_file(fx.sys, cpu, i, "residency", want);
			snprintf(want, sizeof(want), "%d\n", fx_laptop[i].power_mw);
			expect_state_file(fx.sys, cpu, i, "power", want);
			expect_state_file(fx.sys, cpu, i, "disable", "0\n");
			expect_state_file(fx.sys, cpu, i, "default_status", "enabled\n");
		}
	}
	/* cpu1: three long stays starting on C1, 1 ms each */
	expect_state_file(fx.sys, 1, 0, "usage", "3\n");
	expect_state_file(fx.sys, 1, 0, "time", "3000\n");
	expect_state_file(fx.sys, 1, 0, "below", "3\n");
	expect_state_file(fx.sys, 1, 0, "above", "0\n");
	expect_state_file(fx.sys, 1, 2, "usage", "0\n");
	fx_fini(&fx);
}

static void test_state_files_text_haltpoll(void **state)
{
	struct fixture fx;
	int i;

	(void)state;
	fx_init(&fx, fx_haltpoll, FX_ARRAY_SIZE(fx_haltpoll), 1, 0);
	for (i = 0; i < 20; i++)
		assert_true(fx_idle(&fx, 0, i % 2 ? LONG_STAY : 2000, TIMER, false) >= 0);
	assert_true(fx.dev[0].states_usage[0].usage + fx.dev[0].states_usage[1].usage == 20);
	for (i = 0; i < 2; i++)
		expect_state_matches_device(fx.sys, &fx.dev[0], i);
	expect_state_file(fx.sys, 0, 0, "name", "POLL\n");
	expect_state_file(fx.sys, 0, 1, "name", "haltpoll idle\n");
	expect_state_file(fx.sys, 0, 0, "latency", "0\n");
	expect_state_file(fx.sys, 0, 0, "residency", "0\n");
	expect_state_file(fx.sys, 0, 1, "latency", "1\n");
	/* power_usage -1 printed with %u */
	expect_state_file(fx.sys, 0, 0, "power", "4294967295\n");
	expect_state_file(fx.sys, 0, 1, "power", "4294967295\n");
	fx_fini(&fx);
}

/*
 * ns precision truncated to us, an empty description, and the two
 * registration flags: OFF (user bit set, default_status "disabled") and
 * UNUSABLE (driver bit set, disable still reads 0).
 */
static void test_state_units_null_desc_flags(void **state)
{
	struct cpuidle_state own[3];
	struct fixture fx;
	struct cpuidle_device *dev;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 1, 0);
	dev = &fx.dev[1];
	dev->cpu = 1;
	dev->state_count = 3;
	memcpy(own, fx.drv.states, sizeof(own));
	dev->states = own;	/* a table of its own, not the driver's */
	dev->states[0].exit_latency = 0;
	dev->states[0].exit_latency_ns = 999;
	dev->states[0].target_residency = 0;
	dev->states[0].target_residency_ns = 1999;
	dev->states[0].desc[0] = '\0';
	dev->states[1].flags |= CPUIDLE_FLAG_OFF;
	dev->states[2].flags |= CPUIDLE_FLAG_UNUSABLE;
	dev->states[2].power_usage = 0;
	assert_int_equal(cpuidle_register_device(fx.sys, dev), 0);

	expect_state_file(fx.sys, 1, 0, "latency", "0\n");
	expect_state_file(fx.sys, 1, 0, "residency", "1\n");
	expect_state_file(fx.sys, 1, 0, "desc", "<null>\n");
	expect_state_file(fx.sys, 1, 1, "default_status", "disabled\n");
	expect_state_file(fx.sys, 1, 1, "disable", "1\n");
	expect_state_file(fx.sys, 1, 2, "default_status", "enabled\n");
	expect_state_file(fx.sys, 1, 2, "disable", "0\n");
	expect_state_file(fx.sys, 1, 2, "power", "0\n");
	assert_int_equal(dev->states_usage[2].disable, CPUIDLE_STATE_DISABLED_BY_DRIVER);
	/* the user may enable a default-off state */
	assert_int_equal(wrs(fx.sys, 1, 1, "disable", "0"), 0);
	expect_state_file(fx.sys, 1, 1, "disable", "0\n");
	expect_state_file(fx.sys, 1, 1, "default_status", "disabled\n");
	assert_int_equal(dev->states_usage[1].disable, 0);
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- disable */

static void test_disable_write_read_back(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	assert_true(cpuidle_poll_time(&fx.dev[0]) != 0);
	assert_true(fx.dev[0].poll_limit_ns != 0);
	assert_int_equal(wrs(fx.sys, 0, 2, "disable", "1\n"), 0);
	expect_state_file(fx.sys, 0, 2, "disable", "1\n");
	assert_int_equal(fx.dev[0].states_usage[2].disable, CPUIDLE_STATE_DISABLED_BY_USER);
	/* a state write forgets the cached poll limit */
	assert_int_equal(fx.dev[0].poll_limit_ns, 0);
	/* only that CPU, only that state */
	expect_state_file(fx.sys, 1, 2, "disable", "0\n");
	expect_state_file(fx.sys, 0, 1, "disable", "0\n");
	expect_state_file(fx.sys, 0, 3, "disable", "0\n");
	/* idempotent */
	assert_int_equal(wrs(fx.sys, 0, 2, "disable", "7"), 0);
	expect_state_file(fx.sys, 0, 2, "disable", "1\n");
	assert_int_equal(wrs(fx.sys, 0, 2, "disable", "0\n"), 0);
	expect_state_file(fx.sys, 0, 2, "disable", "0\n");
	assert_int_equal(fx.dev[0].states_usage[2].disable, 0);
	/* through the absolute path too */
	assert_int_equal(cpuidle_attr_write(fx.sys,
					    "/sys/devices/system/cpu/cpu1/cpuidle/state3/disable",
					    "1"), 0);
	assert_int_equal(fx.dev[1].states_usage[3].disable, CPUIDLE_STATE_DISABLED_BY_USER);
	fx_fini(&fx);
}

struct parse_case {
	const char *text;
	int ret;	/* expected return */
	int bit;	/* expected user bit after a successful write */
};

/* kstrtouint(buf, 0): the kernel's rules, case by case. */
static void test_disable_parse_kstrtouint(void **state)
{
	static const struct parse_case cases[] = {
		{ "1", 0, 1 },
		{ "1\n", 0, 1 },
		{ "0", 0, 0 },
		{ "0\n", 0, 0 },
		{ "0x1", 0, 1 },
		{ "0X1", 0, 1 },
		{ "0x0", 0, 0 },
		{ "0xfF", 0, 1 },
		{ "010", 0, 1 },	/* octal 8 */
		{ "00", 0, 0 },
		{ "+1", 0, 1 },
		{ "+0", 0, 0 },
		{ "+0x10", 0, 1 },
		{ "4294967295", 0, 1 },
		{ "0xffffffff", 0, 1 },
		{ "037777777777", 0, 1 },
		{ "abc", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "\n", -EINVAL, 0 },
		{ "1 2", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "1\n\n", -EINVAL, 0 },
		{ "1\t", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "-0", -EINVAL, 0 },
		{ "+", -EINVAL, 0 },
		{ "++1", -EINVAL, 0 },
		{ "+-1", -EINVAL, 0 },
		{ "0x", -EINVAL, 0 },	/* "0" in octal, then junk */
		{ "0xg", -EINVAL, 0 },
		{ "08", -EINVAL, 0 },
		{ "09", -EINVAL, 0 },
		{ "1a", -EINVAL, 0 },
		{ "0b1", -EINVAL, 0 },
		{ "1.0", -EINVAL, 0 },
		{ "4294967296", -ERANGE, 0 },
		{ "0x100000000", -ERANGE, 0 },
		{ "040000000000", -ERANGE, 0 },
		{ "18446744073709551615", -ERANGE, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
		/* 64-bit overflow is reported before trailing junk */
		{ "99999999999999999999x", -ERANGE, 0 },
		{ "4294967296x", -EINVAL, 0 },
	};
	struct fixture fx;
	size_t i;
	int before;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 1, 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct parse_case *c = &cases[i];
		char want[4];
		int ret;

		/* start from the opposite of what a success would leave */
		before = c->ret ? (int)(i & 1) : !c->bit;
		assert_int_equal(cpuidle_disable_state(&fx.dev[0], 1,
						       CPUIDLE_STATE_DISABLED_BY_USER,
						       before), 0);
		fx.dev[0].poll_limit_ns = 777;
		ret = wrs(fx.sys, 0, 1, "disable", c->text);
		if (ret != c->ret)
			fail_msg("\"%s\": got %d, want %d", c->text, ret, c->ret);
		snprintf(want, sizeof(want), "%d\n", c->ret ? before : c->bit);
		expect_state_file(fx.sys, 0, 1, "disable", want);
		assert_int_equal(fx.dev[0].states_usage[1].disable,
				 (unsigned int)(c->ret ? before : c->bit));
		if (!c->ret)
			assert_int_equal(fx.dev[0].poll_limit_ns, 0);
	}
	fx_fini(&fx);
}

/* Sixteen long stays: enough for the ladder to climb every rung. */
static int max_entered(struct fixture *fx, int cpu, int n)
{
	int i, idx, max = -1;

	for (i = 0; i < n; i++) {
		idx = fx_idle(fx, cpu, LONG_STAY, TIMER, false);
		assert_true(idx >= 0);
		if (idx > max)
			max = idx;
	}
	return max;
}

static void test_disabled_state_never_selected(void **state)
{
	struct fixture fx;
	uint64_t usage;
	int i;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "ladder"), 0);
	/* control: cpu1 climbs to C3 */
	assert_int_equal(max_entered(&fx, 1, 16), 2);

	assert_int_equal(wrs(fx.sys, 0, 2, "disable", "1"), 0);
	assert_true(max_entered(&fx, 0, 40) < 2);
	assert_int_equal(fx.dev[0].states_usage[2].usage, 0);
	expect_state_file(fx.sys, 0, 2, "usage", "0\n");

	/* disabled while standing on it: the next selection leaves it */
	usage = fx.dev[1].states_usage[2].usage;
	assert_int_equal(wrs(fx.sys, 1, 2, "disable", "0x1"), 0);
	for (i = 0; i < 20; i++)
		assert_true(fx_idle(&fx, 1, LONG_STAY, TIMER, false) < 2);
	assert_int_equal(fx.dev[1].states_usage[2].usage, usage);

	/* enabled again: selectable again */
	assert_int_equal(wrs(fx.sys, 0, 2, "disable", "0"), 0);
	assert_int_equal(max_entered(&fx, 0, 16), 2);
	fx_fini(&fx);
}

static void test_driver_bit_survives_user_write(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 1, 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "ladder"), 0);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 2,
					       CPUIDLE_STATE_DISABLED_BY_DRIVER, true), 0);
	expect_state_file(fx.sys, 0, 2, "disable", "0\n");
	assert_int_equal(wrs(fx.sys, 0, 2, "disable", "1"), 0);
	assert_int_equal(fx.dev[0].states_usage[2].disable,
			 CPUIDLE_STATE_DISABLED_BY_DRIVER | CPUIDLE_STATE_DISABLED_BY_USER);
	expect_state_file(fx.sys, 0, 2, "disable", "1\n");
	assert_int_equal(wrs(fx.sys, 0, 2, "disable", "0"), 0);
	assert_int_equal(fx.dev[0].states_usage[2].disable, CPUIDLE_STATE_DISABLED_BY_DRIVER);
	expect_state_file(fx.sys, 0, 2, "disable", "0\n");
	/* still kept away from the governor */
	assert_true(max_entered(&fx, 0, 40) < 2);
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- governor */

struct snapshot {
	int n;
	char text[256][96];
};

static int snap_visit(const char *path, const char *value, bool writable, void *arg)
{
	struct snapshot *s = arg;

	(void)writable;
	assert_true(s->n < 256);
	snprintf(s->text[s->n++], sizeof(s->text[0]), "%s=%s", path, value);
	return 0;
}

static void snapshot(struct cpuidle_system *sys, struct snapshot *s)
{
	s->n = 0;
	assert_int_equal(cpuidle_attr_walk(sys, snap_visit, s), 0);
}

static void assert_same_snapshot(const struct snapshot *a, const struct snapshot *b)
{
	int i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++)
		assert_string_equal(a->text[i], b->text[i]);
}

static void test_current_governor_switch_keeps_stats(void **state)
{
	static struct snapshot before, after;
	struct fixture fx;
	int i, n;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "menu"), 0);
	run_some_idle(&fx, 0);
	run_some_idle(&fx, 1);
	snapshot(fx.sys, &before);

	assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_governor", "ladder\n"), 0);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "ladder");
	assert_string_equal(rd(fx.sys, "cpuidle/current_governor"), "ladder\n");
	assert_string_equal(rd(fx.sys, "cpuidle/current_governor_ro"), "ladder\n");
	/* only the governor lines changed: every statistic is kept */
	snapshot(fx.sys, &after);
	assert_int_equal(before.n, after.n);
	for (i = 0, n = 0; i < before.n; i++) {
		if (strcmp(before.text[i], after.text[i])) {
			assert_true(strstr(before.text[i], "cpuidle/current_governor") ==
				    before.text[i]);
			n++;
		}
	}
	assert_int_equal(n, 2);
	/* and the new governor governs */
	assert_true(fx_idle(&fx, 0, LONG_STAY, TIMER, false) >= 0);

	/* first word only, surrounding blanks ignored; same name again is fine */
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_governor",
					    " \tmenu  trailing words\n"), 0);
	assert_string_equal(rd(fx.sys, "cpuidle/current_governor"), "menu\n");
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_governor", "menu"), 0);
	assert_string_equal(rd(fx.sys, "cpuidle/current_governor"), "menu\n");
	fx_fini(&fx);
}

static void test_current_governor_rejects(void **state)
{
	static const char *const bad[] = {
		"LADDER", "Ladder\n", "nosuch", "nosuch\n", "", "\n", "   ", "lad",
		"ladderx", "menu_", "\tLADDER ladder",
	};
	static struct snapshot before, after;
	struct fixture fx;
	size_t i;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "menu"), 0);
	run_some_idle(&fx, 0);
	snapshot(fx.sys, &before);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (cpuidle_attr_write(fx.sys, "cpuidle/current_governor", bad[i]) != -EINVAL)
			fail_msg("\"%s\" accepted", bad[i]);
	}
	/* nothing changed, anywhere */
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "menu");
	snapshot(fx.sys, &after);
	assert_same_snapshot(&before, &after);
	fx_fini(&fx);
}

static int nop_select(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)dev;
	(void)stop_tick;
	return 0;
}

/*
 * The kernel reads at most 16 characters ("%16s") and compares 16 bytes:
 * a word longer than the longest possible name never matches, even when
 * it starts with one.
 */
static void test_current_governor_long_word(void **state)
{
	static const struct cpuidle_governor gov15 = {
		.name = "abcdefghijklmno",	/* 15 characters */
		.rating = 1,
		.select = nop_select,
	};
	struct fixture fx;
	char want[512];

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 1, 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "menu"), 0);
	assert_int_equal(cpuidle_register_governor(fx.sys, &gov15), 0);
	builtin_list(want, sizeof(want));
	strcpy(want + strlen(want) - 1, "abcdefghijklmno \n");
	assert_string_equal(rd(fx.sys, "cpuidle/available_governors"), want);
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_governor",
					    "abcdefghijklmnop"), -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_governor",
					    "abcdefghijklmnopqrstuvwxyz\n"), -EINVAL);
	assert_string_equal(rd(fx.sys, "cpuidle/current_governor"), "menu\n");
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_governor",
					    "abcdefghijklmno\n"), 0);
	assert_string_equal(rd(fx.sys, "cpuidle/current_governor"), "abcdefghijklmno\n");
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_governor", "menu"), 0);
	assert_int_equal(cpuidle_unregister_governor(fx.sys, &gov15), 0);
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- errnos */

struct ro_ctx {
	struct cpuidle_system *sys;
	int ro, rw;
};

static int ro_visit(const char *path, const char *value, bool writable, void *arg)
{
	struct ro_ctx *c = arg;
	char again[4096];

	if (writable) {
		c->rw++;
		return 0;
	}
	c->ro++;
	if (cpuidle_attr_write(c->sys, path, "0") != -EACCES)
		fail_msg("%s: writable", path);
	if (cpuidle_attr_write(c->sys, path, value) != -EACCES)
		fail_msg("%s: writable", path);
	/* the visitor runs without the lock: it may read */
	assert_true(cpuidle_attr_read(c->sys, path, again, sizeof(again)) >= 0);
	return 0;
}

static void test_readonly_eacces(void **state)
{
	static struct snapshot before, after;
	struct fixture fx;
	struct ro_ctx c = { 0 };

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	run_some_idle(&fx, 0);
	snapshot(fx.sys, &before);
	c.sys = fx.sys;
	assert_int_equal(cpuidle_attr_walk(fx.sys, ro_visit, &c), 0);
	/* current_governor, stateK/disable, power/pm_qos_resume_latency_us, the module parameters */
	assert_int_equal(c.rw, 1 + 2 * 3 + 2 + N_MODULE_FILES);
	assert_int_equal(c.ro, 3 + 2 * 3 * 11);
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_governor_ro", "ladder"),
			 -EACCES);
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_driver", "x"), -EACCES);
	assert_int_equal(wrs(fx.sys, 0, 0, "usage", "0"), -EACCES);
	assert_int_equal(wrs(fx.sys, 0, 0, "default_status", "enabled"), -EACCES);
	/* a path error comes before the permission check */
	assert_int_equal(wrs(fx.sys, 0, 3, "usage", "0"), -ENOENT);
	snapshot(fx.sys, &after);
	assert_same_snapshot(&before, &after);
	fx_fini(&fx);
}

static void test_unknown_path_enoent(void **state)
{
	static const char *const bad[] = {
		"cpuidle/nosuch", "cpuidle/Current_governor", "cpuidle/current_governor/",
		"cpuidle/current_governor/x", "cpuidle/driver", "cpuidlex", "nosuch",
		"cpu", "cpux", "cpu2", "cpu2/cpuidle", "cpu9/cpuidle/state0/name",
		"cpu4095/cpuidle", "cpu4096", "cpu01", "cpu00", "cpu-1", "cpu+1", "cpu 0",
		"cpu0 ", "cpu99999999999", "cpu18446744073709551616/cpuidle",
		"cpu0/nosuch", "cpu0/cpuidle/nosuch", "cpu0/cpuidle/state", "cpu0/cpuidle/state3",
		"cpu0/cpuidle/state3/name", "cpu0/cpuidle/state01/name", "cpu0/cpuidle/state-1",
		"cpu0/cpuidle/state0x/name", "cpu0/cpuidle/state0/nosuch",
		"cpu0/cpuidle/state0/Name", "cpu0/cpuidle/state0/name/x",
		"cpu0/cpuidle/state0/name/", "cpu0/cpuidle/state0/s2idle",
		"cpu0/cpuidle/driver/name", "/cpuidle/current_driver",
		"/sys/devices/system/cpux/cpuidle/current_driver",
		"sys/devices/system/cpu/cpuidle/current_driver",
		"./cpuidle/current_driver", "cpuidle/../cpuidle/current_driver",
	};
	struct fixture fx;
	char buf[64];
	size_t i;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ssize_t r = cpuidle_attr_read(fx.sys, bad[i], buf, sizeof(buf));
		int w = cpuidle_attr_write(fx.sys, bad[i], "1");

		if (r != -ENOENT || w != -ENOENT)
			fail_msg("\"%s\": read %zd, write %d", bad[i], r, w);
	}
	/* an unregistered CPU has no directory */
	assert_int_equal(cpuidle_unregister_device(fx.sys, &fx.dev[1]), 0);
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpu1/cpuidle/state0/name", buf,
					   sizeof(buf)), -ENOENT);
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpu1", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpu1/cpuidle/state0/disable", "1"),
			 -ENOENT);
	fx_fini(&fx);
}

static void test_directory_eisdir(void **state)
{
	static const char *const dirs[] = {
		"cpuidle", "cpuidle/", "cpu0", "cpu1/", "cpu0/cpuidle", "cpu0/cpuidle/",
		"cpu0/cpuidle/state0", "cpu1/cpuidle/state2/", "cpu0//cpuidle",
		"/sys/devices/system/cpu/cpuidle", "/sys/devices/system/cpu/cpu0/cpuidle",
		"/sys/devices/system/cpu/cpu0/cpuidle/state1", "/sys/devices/system/cpu",
		"/sys/devices/system/cpu/", "",
	};
	struct fixture fx;
	char buf[64];
	size_t i;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		ssize_t r = cpuidle_attr_read(fx.sys, dirs[i], buf, sizeof(buf));
		int w = cpuidle_attr_write(fx.sys, dirs[i], "1");

		if (r != -EISDIR || w != -EISDIR)
			fail_msg("\"%s\": read %zd, write %d", dirs[i], r, w);
	}
	fx_fini(&fx);
}

static void test_small_buffer_enospc(void **state)
{
	struct fixture fx;
	char buf[16];

	(void)state;
	fx_init(&fx, fx_haltpoll, FX_ARRAY_SIZE(fx_haltpoll), 1, 0);
	/* "4294967295\n" is 11 characters and needs 12 bytes */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpu0/cpuidle/state0/power", buf, 11),
			 -ENOSPC);
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpu0/cpuidle/state0/power", buf, 1),
			 -ENOSPC);
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpu0/cpuidle/state0/power", buf, 0),
			 -ENOSPC);
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpu0/cpuidle/state0/power", buf, 12),
			 11);
	assert_string_equal(buf, "4294967295\n");
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpuidle/current_driver", buf, 8),
			 -ENOSPC);
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpuidle/current_driver", buf, 9), 8);
	assert_string_equal(buf, "fixture\n");
	/* the path is checked before the size */
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpuidle/nosuch", buf, 0), -ENOENT);
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpuidle", buf, 0), -EISDIR);
	fx_fini(&fx);
}

static int never_visit(const char *path, const char *value, bool writable, void *arg)
{
	(void)path;
	(void)value;
	(void)writable;
	(void)arg;
	fail();
	return 0;
}

static void test_null_args_einval(void **state)
{
	struct fixture fx;
	char buf[64];

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 1, 0);
	assert_int_equal(cpuidle_attr_read(NULL, "cpuidle/current_driver", buf, sizeof(buf)),
			 -EINVAL);
	assert_int_equal(cpuidle_attr_read(fx.sys, NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(cpuidle_attr_read(fx.sys, "cpuidle/current_driver", NULL, 10),
			 -EINVAL);
	assert_int_equal(cpuidle_attr_write(NULL, "cpuidle/current_governor", "menu"),
			 -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, NULL, "menu"), -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_governor", NULL),
			 -EINVAL);
	assert_int_equal(cpuidle_attr_walk(NULL, never_visit, NULL), -EINVAL);
	assert_int_equal(cpuidle_attr_walk(fx.sys, NULL, NULL), -EINVAL);
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- walk */

struct walk_log {
	struct cpuidle_system *sys;
	int n;
	int stop_at;		/* return non-zero at this visit (0: never) */
	char path[160][64];
	bool writable[160];
};

static int log_visit(const char *path, const char *value, bool writable, void *arg)
{
	struct walk_log *w = arg;
	char again[4096];

	assert_true(w->n < 160);
	snprintf(w->path[w->n], sizeof(w->path[0]), "%s", path);
	w->writable[w->n] = writable;
	w->n++;
	/* the value handed over is what a read gives */
	assert_true(cpuidle_attr_read(w->sys, path, again, sizeof(again)) >= 0);
	assert_string_equal(again, value);
	assert_true(strlen(value) > 0 && value[strlen(value) - 1] == '\n');
	if (w->stop_at && w->n == w->stop_at)
		return 42;
	return 0;
}

static void expect_walk_order(const struct walk_log *w, const unsigned int *cpus, int ncpus,
			      int nstates)
{
	char want[64];
	int i, c, s, f, k = 0;

	assert_int_equal(w->n, N_GLOBAL + ncpus * nstates * N_STATE_FILES + ncpus +
			       N_MODULE_FILES);
	for (i = 0; i < N_GLOBAL; i++, k++) {
		snprintf(want, sizeof(want), "cpuidle/%s", global_files[i]);
		assert_string_equal(w->path[k], want);
		assert_int_equal(w->writable[k], i == 1);
	}
	for (c = 0; c < ncpus; c++) {
		for (s = 0; s < nstates; s++) {
			for (f = 0; f < N_STATE_FILES; f++, k++) {
				snprintf(want, sizeof(want), "cpu%u/cpuidle/state%d/%s", cpus[c],
					 s, state_files[f]);
				assert_string_equal(w->path[k], want);
				assert_int_equal(w->writable[k], f == 7);
			}
		}
	}
	for (c = 0; c < ncpus; c++, k++) {
		snprintf(want, sizeof(want), "cpu%u/power/pm_qos_resume_latency_us", cpus[c]);
		assert_string_equal(w->path[k], want);
		assert_true(w->writable[k]);
	}
	for (i = 0; i < N_MODULE_FILES; i++, k++) {
		assert_string_equal(w->path[k], module_files[i]);
		assert_true(w->writable[k]);
	}
}

/*
 * cpuN/power/pm_qos_resume_latency_us, as the kernel's: 0 reads and
 * writes as "no constraint", "n/a" as a limit of 0; neither a negative
 * number nor the "no constraint" value itself may be written.  The
 * governor obeys it on that CPU only.
 */
static void test_resume_latency_file(void **state)
{
	static const struct { const char *in; int ret; const char *out; int32_t us; } cases[] = {
		{ "20", 0, "20\n", 20 },
		{ "0x10\n", 0, "16\n", 16 },
		{ "n/a", 0, "n/a\n", 0 },
		{ "n/a\n", 0, "n/a\n", 0 },
		{ "0", 0, "0\n", CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT },
		{ "2147483646", 0, "2147483646\n", 2147483646 },
		{ "2147483647", -EINVAL, NULL, 0 },
		{ "4294967296", -EINVAL, NULL, 0 },
		{ "-1", -EINVAL, NULL, 0 },
		{ "N/A", -EINVAL, NULL, 0 },
		{ "", -EINVAL, NULL, 0 },
		{ "5 us", -EINVAL, NULL, 0 },
	};
	const char *path = "cpu1/power/pm_qos_resume_latency_us";
	struct fixture fx;
	char buf[64];
	size_t i;
	int k;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	assert_int_equal(cpuidle_attr_read(fx.sys, path, buf, sizeof(buf)), 2);
	assert_string_equal(buf, "0\n");	/* no constraint */
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int32_t before = cpuidle_resume_latency(&fx.dev[1]);

		print_message("write '%s'\n", cases[i].in);
		assert_int_equal(cpuidle_attr_write(fx.sys, path, cases[i].in), cases[i].ret);
		if (cases[i].ret) {
			assert_int_equal(cpuidle_resume_latency(&fx.dev[1]), before);
			continue;
		}
		assert_int_equal(cpuidle_resume_latency(&fx.dev[1]), cases[i].us);
		assert_true(cpuidle_attr_read(fx.sys, path, buf, sizeof(buf)) > 0);
		assert_string_equal(buf, cases[i].out);
	}
	assert_int_equal(cpuidle_resume_latency(&fx.dev[0]), CPUIDLE_RESUME_LATENCY_NO_CONSTRAINT);
	/* "n/a": only polling on CPU 1, while CPU 0 sleeps deep */
	assert_int_equal(cpuidle_attr_write(fx.sys, path, "n/a"), 0);
	for (k = 0; k < 20; k++) {
		assert_int_equal(fx_idle(&fx, 1, 5000000, 10000000, false), 0);
		assert_true(fx_idle(&fx, 0, 5000000, 10000000, false) > 0);
	}
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpu1/power", "1"), -EISDIR);
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpu1/power/", "1"), -EISDIR);
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpu1/power/pm_qos_resume_latency_us/", "1"),
			 -ENOENT);
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpu1/power/nosuch", "1"), -ENOENT);
	assert_int_equal(cpuidle_attr_write(fx.sys, "cpu7/power/pm_qos_resume_latency_us", "1"),
			 -ENOENT);
	fx_fini(&fx);
}

static void test_walk_order_and_count(void **state)
{
	static const unsigned int all[] = { 0, 1, 2 }, sparse[] = { 0, 2 };
	static struct walk_log w;
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 3, 0);
	run_some_idle(&fx, 2);
	memset(&w, 0, sizeof(w));
	w.sys = fx.sys;
	assert_int_equal(cpuidle_attr_walk(fx.sys, log_visit, &w), 0);
	expect_walk_order(&w, all, 3, 3);
	assert_int_equal(w.n, 4 + 3 * 3 * 12 + 3 + N_MODULE_FILES);

	/* a hole in the CPU numbers is skipped */
	assert_int_equal(cpuidle_unregister_device(fx.sys, &fx.dev[1]), 0);
	memset(&w, 0, sizeof(w));
	w.sys = fx.sys;
	assert_int_equal(cpuidle_attr_walk(fx.sys, log_visit, &w), 0);
	expect_walk_order(&w, sparse, 2, 3);
	fx_fini(&fx);
}

static void test_walk_stops(void **state)
{
	static struct walk_log w;
	struct fixture fx;
	int stop;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	for (stop = 1; stop <= 4 + 2 * 3 * 12; stop += 7) {
		memset(&w, 0, sizeof(w));
		w.sys = fx.sys;
		w.stop_at = stop;
		assert_int_equal(cpuidle_attr_walk(fx.sys, log_visit, &w), 42);
		assert_int_equal(w.n, stop);
	}
	/* stopping at the very last file still returns the visitor's value */
	memset(&w, 0, sizeof(w));
	w.sys = fx.sys;
	w.stop_at = 4 + 2 * 3 * 12;
	assert_int_equal(cpuidle_attr_walk(fx.sys, log_visit, &w), 42);
	fx_fini(&fx);
}

/* A visitor may write: the walk holds no lock while it runs. */
static int disable_visit(const char *path, const char *value, bool writable, void *arg)
{
	struct cpuidle_system *sys = arg;

	(void)value;
	if (writable && strstr(path, "/disable"))
		assert_int_equal(cpuidle_attr_write(sys, path, "1"), 0);
	if (writable && !strcmp(path, "cpuidle/current_governor"))
		assert_int_equal(cpuidle_attr_write(sys, path, "ladder"), 0);
	return 0;
}

static void test_walk_visitor_may_write(void **state)
{
	struct fixture fx;
	int i;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	assert_int_equal(cpuidle_attr_walk(fx.sys, disable_visit, fx.sys), 0);
	assert_string_equal(cpuidle_current_governor(fx.sys)->name, "ladder");
	for (i = 0; i < 3; i++) {
		assert_int_equal(fx.dev[0].states_usage[i].disable, CPUIDLE_STATE_DISABLED_BY_USER);
		assert_int_equal(fx.dev[1].states_usage[i].disable, CPUIDLE_STATE_DISABLED_BY_USER);
	}
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- threads */

struct idler {
	struct fixture *fx;
	int stop;
};

static void *idle_thread(void *arg)
{
	struct idler *id = arg;
	int i;

	for (i = 0; i < 200000 && !__atomic_load_n(&id->stop, __ATOMIC_RELAXED); i++)
		fx_idle(id->fx, 1, i % 3 ? LONG_STAY : SHORT_STAY, TIMER, false);
	return NULL;
}

/* Reads while an idle thread updates the counters: monotonic, never torn. */
static void test_reads_during_idle(void **state)
{
	static struct fixture fx;
	struct idler id = { &fx, 0 };
	unsigned long long last = 0, v;
	pthread_t t;
	int i, n = 0;

	(void)state;
	fx_init(&fx, fx_laptop, FX_ARRAY_SIZE(fx_laptop), 2, 0);
	assert_int_equal(pthread_create(&t, NULL, idle_thread, &id), 0);
	for (i = 0; i < 2000; i++) {
		v = strtoull(rds(fx.sys, 1, 0, "usage"), NULL, 10);
		assert_true(v >= last);
		last = v;
		rds(fx.sys, 1, 0, "time");
		rds(fx.sys, 1, 1, "below");
		if (i % 200 == 0) {
			assert_int_equal(cpuidle_attr_write(fx.sys, "cpuidle/current_governor",
							    i % 400 ? "menu" : "ladder"), 0);
			assert_int_equal(wrs(fx.sys, 1, 2, "disable", i % 400 ? "0" : "1"), 0);
			n = 0;
			assert_int_equal(cpuidle_attr_walk(fx.sys, count_visit, &n), 0);
			assert_int_equal(n, 4 + 2 * 3 * 12 + 2 + N_MODULE_FILES);
		}
	}
	__atomic_store_n(&id.stop, 1, __ATOMIC_RELAXED);
	assert_int_equal(pthread_join(t, NULL), 0);
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_global_files_text),
		cmocka_unit_test(test_no_driver_no_governor),
		cmocka_unit_test(test_state_files_text_laptop),
		cmocka_unit_test(test_state_files_text_haltpoll),
		cmocka_unit_test(test_state_units_null_desc_flags),
		cmocka_unit_test(test_disable_write_read_back),
		cmocka_unit_test(test_disable_parse_kstrtouint),
		cmocka_unit_test(test_disabled_state_never_selected),
		cmocka_unit_test(test_driver_bit_survives_user_write),
		cmocka_unit_test(test_current_governor_switch_keeps_stats),
		cmocka_unit_test(test_current_governor_rejects),
		cmocka_unit_test(test_current_governor_long_word),
		cmocka_unit_test(test_readonly_eacces),
		cmocka_unit_test(test_unknown_path_enoent),
		cmocka_unit_test(test_directory_eisdir),
		cmocka_unit_test(test_small_buffer_enospc),
		cmocka_unit_test(test_null_args_einval),
		cmocka_unit_test(test_resume_latency_file),
		cmocka_unit_test(test_walk_order_and_count),
		cmocka_unit_test(test_walk_stops),
		cmocka_unit_test(test_walk_visitor_may_write),
		cmocka_unit_test(test_reads_during_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
