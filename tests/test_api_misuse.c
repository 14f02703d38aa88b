// SPDX-License-Identifier: MIT
/*
 * test_api_misuse.c - every public entry point, misused: a clear errno and
 * nothing changed (issue #8, item 2).
 *
 * Each misuse is checked twice: the call returns the documented negative
 * errno, and a snapshot of everything a user can observe is the same after
 * it as before: the whole attribute tree (current driver and governor,
 * available governors, every state file with its counters and disable
 * flag, the module parameters), the registry seen through the API (the
 * current governor, the driver, the device of each CPU), the QoS
 * aggregates, the haltpoll tunables, the number of kicks, and the bytes of
 * every device and of the driver involved.
 *
 * Some errnos are also asserted, without the snapshot, in test_core.c
 * (registration), test_registry.c (governors), test_pm_qos.c,
 * test_attr.c (the exhaustive path and number-parsing tables),
 * test_platform.c and test_uidle.c; here the point is "nothing changed".
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "fixture.h"

#define SNAP_CPUS	8	/* CPUs whose device the snapshot looks up */
#define SNAP_DEVS	8	/* devices whose bytes it keeps */
#define SNAP_ATTR_MAX	(256 * 1024)

/* A time no state may have: two hours, in ns. */
#define TWO_HOURS_NS	(2 * 3600 * CPUIDLE_NSEC_PER_SEC)

/* ---------------------------------------------------------------- snapshots */

/**
 * struct snap - what a user can observe of one system
 * @attrs: "path=value" of every attribute, in walk order
 * @len: its length
 * @gov: the current governor
 * @drv: the registered driver's name (a pointer into the driver)
 * @by_cpu: the device registered for CPUs 0..SNAP_CPUS-1
 * @qos: the aggregate of each QoS class
 * @hp: the haltpoll tunables
 * @kicks_src: the fixture's kick counter, or NULL
 * @kicks: its value
 * @ndev: number of @devp
 * @devp: devices whose bytes are kept
 * @dev: their bytes
 */
struct snap {
	char *attrs;
	size_t len;
	const struct cpuidle_governor *gov;
	const char *drv;
	struct cpuidle_device *by_cpu[SNAP_CPUS];
	int32_t qos[PM_QOS_NUM_CLASSES];
	struct cpuidle_haltpoll_params hp;
	int hp_ret;			/* -ENOENT: haltpoll not registered */
	const int *kicks_src;
	int kicks;
	int ndev;
	struct cpuidle_device *devp[SNAP_DEVS];
	struct cpuidle_device dev[SNAP_DEVS];
};

static int dump_attr(const char *path, const char *value, bool writable, void *arg)
{
	struct snap *s = arg;
	int n;

	n = snprintf(s->attrs + s->len, SNAP_ATTR_MAX - s->len, "%s%s=%s", path,
		     writable ? "(rw)" : "", value);
	assert_true(n > 0 && (size_t)n < SNAP_ATTR_MAX - s->len);
	s->len += (size_t)n;
	return 0;
}

static void snap_take_sys(struct snap *s, struct cpuidle_system *sys, const int *kicks,
			  struct cpuidle_device *const *devs, int ndev)
{
	unsigned int cpu;
	int i;

	memset(s, 0, sizeof(*s));
	s->attrs = malloc(SNAP_ATTR_MAX);
	assert_non_null(s->attrs);
	s->attrs[0] = '\0';
	assert_int_equal(cpuidle_attr_walk(sys, dump_attr, s), 0);
	s->gov = cpuidle_current_governor(sys);
	s->drv = cpuidle_driver_name(sys);
	for (cpu = 0; cpu < SNAP_CPUS; cpu++)
		s->by_cpu[cpu] = cpuidle_get_device(sys, cpu);
	for (i = 0; i < PM_QOS_NUM_CLASSES; i++)
		s->qos[i] = pm_qos_requirement(sys, i);
	s->hp_ret = cpuidle_haltpoll_get_params(sys, &s->hp);
	assert_true(s->hp_ret == 0 || s->hp_ret == -ENOENT);
	s->kicks_src = kicks;
	s->kicks = kicks ? __atomic_load_n(kicks, __ATOMIC_RELAXED) : 0;
	assert_true(ndev <= SNAP_DEVS);
	s->ndev = ndev;
	for (i = 0; i < ndev; i++) {
		s->devp[i] = devs[i];
		memcpy(&s->dev[i], devs[i], sizeof(s->dev[i]));
	}
}

/*
 * The same as when @s was taken.  @loose: a device's governor data and the
 * governor's record of the last state may differ (a failed switch has the
 * old governor start again on every device).  The core's pointer to the
 * last idle call's context is never compared: it is the caller's.
 */
static void snap_check_sys(struct snap *s, struct cpuidle_system *sys, bool loose)
{
	struct snap now;
	unsigned int cpu;
	int i;

	snap_take_sys(&now, sys, s->kicks_src, s->devp, s->ndev);
	assert_string_equal(now.attrs, s->attrs);
	assert_ptr_equal(now.gov, s->gov);
	assert_ptr_equal(now.drv, s->drv);
	for (cpu = 0; cpu < SNAP_CPUS; cpu++)
		assert_ptr_equal(now.by_cpu[cpu], s->by_cpu[cpu]);
	for (i = 0; i < PM_QOS_NUM_CLASSES; i++)
		assert_int_equal(now.qos[i], s->qos[i]);
	assert_int_equal(now.hp_ret, s->hp_ret);
	assert_memory_equal(&now.hp, &s->hp, sizeof(s->hp));
	assert_int_equal(now.kicks, s->kicks);
	for (i = 0; i < s->ndev; i++) {
		now.dev[i].idle_ctx = s->dev[i].idle_ctx;
		if (loose) {
			now.dev[i].governor_data = s->dev[i].governor_data;
			now.dev[i].last_state_idx = s->dev[i].last_state_idx;
		}
		assert_memory_equal(&now.dev[i], &s->dev[i], sizeof(s->dev[i]));
	}
	free(now.attrs);
	free(s->attrs);
	s->attrs = NULL;
}

static void snap_take(struct snap *s, struct fixture *fx)
{
	struct cpuidle_device *devs[FX_MAX_CPUS];
	int i;

	for (i = 0; i < FX_MAX_CPUS; i++)
		devs[i] = &fx->dev[i];
	snap_take_sys(s, fx->sys, &fx->kicks, devs, FX_MAX_CPUS);
}

static void snap_check(struct snap *s, struct fixture *fx)
{
	snap_check_sys(s, fx->sys, false);
}

/* @call returns @err and nothing in @fx changes. */
#define MISUSE(fx, call, err)						\
	do {								\
		struct snap snap_;					\
									\
		snap_take(&snap_, (fx));				\
		assert_int_equal((call), (err));			\
		snap_check(&snap_, (fx));				\
	} while (0)

/* As MISUSE() for a call that returns NULL, and sets errno to @err unless 0. */
#define MISUSE_PTR(fx, call, err)					\
	do {								\
		struct snap snap_;					\
		int errno_;						\
									\
		snap_take(&snap_, (fx));				\
		errno = 0;						\
		assert_null(call);					\
		errno_ = errno;						\
		snap_check(&snap_, (fx));				\
		if (err)						\
			assert_int_equal(errno_, (err));		\
	} while (0)

/* ---------------------------------------------------------------- helpers */

static uint64_t zero_clock(struct cpuidle_device *dev, void *ctx)
{
	(void)dev;
	(void)ctx;
	return 0;
}

static void set_state(struct cpuidle_state *s, const char *name, unsigned int lat_us,
		      unsigned int res_us)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->desc, sizeof(s->desc), "misuse %s", name);
	s->exit_latency = lat_us;
	s->target_residency = res_us;
	s->power_usage = -1;
	s->flags = CPUIDLE_FLAG_TIME_VALID;
	s->enter = fx_enter;
}

/* A fixture whose driver has no state template, @ncpus devices with their own. */
static void fx_init_no_template(struct fixture *fx, int ncpus)
{
	int i, k;

	fx_init(fx, NULL, 0, 0, 0);
	for (i = 0; i < ncpus; i++) {
		struct cpuidle_device *dev = &fx->dev[i];

		dev->cpu = (unsigned int)i;
		dev->state_count = FX_ARRAY_SIZE(fx_four);
		dev->states = fx->own_states[i];
		for (k = 0; k < dev->state_count; k++) {
			set_state(&dev->states[k], fx_four[k].name, fx_four[k].exit_us,
				  fx_four[k].residency_us);
			dev->states[k].flags = fx_four[k].flags;
		}
		fx->reject[i] = -1;
		fx->redirect[i] = -1;
		fx->clock[i] = 1000000000ull;
		assert_int_equal(cpuidle_register_device(fx->sys, dev), 0);
	}
}

/* Some history on every registered device, so that counters are not all 0. */
static void fx_history(struct fixture *fx, int ncpus)
{
	int cpu, i;

	for (cpu = 0; cpu < ncpus; cpu++)
		for (i = 0; i < 5; i++)
			assert_true(fx_idle(fx, cpu, 30000 * (i + 1), 1000000, false) >= 0);
}

/* ---------------------------------------------------------------- test governors */

static int select_index = 1;

static int select_fixed(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)dev;
	(void)stop_tick;
	return select_index;
}

/* Returns whatever select_index says: a broken governor when it is out of range. */
static const struct cpuidle_governor rogue_gov = {
	.name = "rogue",
	.select = select_fixed,
};

/* Refuses to govern CPU picky_cpu. */
static unsigned int picky_cpu = UINT_MAX;

static int picky_enable(struct cpuidle_device *dev)
{
	return dev->cpu == picky_cpu ? -EIO : 0;
}

static const struct cpuidle_governor picky_gov = {
	.name = "picky",
	.enable = picky_enable,
	.select = select_fixed,
	.governor_data_size = 16,
};

/* The same, rated to take over at registration. */
static const struct cpuidle_governor picky_hi_gov = {
	.name = "picky-hi",
	.rating = 99,
	.enable = picky_enable,
	.select = select_fixed,
	.governor_data_size = 16,
};

/* ---------------------------------------------------------------- SYSTEM */

static void test_system_create(void **state)
{
	static const struct {
		const char *what;
		size_t sz;
		bool no_clock;
		unsigned int tick_hz;
		const char *governor;
		unsigned int flags;
	} bad[] = {
		{ "sz 0", 0, false, 0, NULL, 0 },
		{ "sz too small", sizeof(struct cpuidle_system_opts) - 1, false, 0, NULL, 0 },
		{ "no clock", sizeof(struct cpuidle_system_opts), true, 0, NULL, 0 },
		{ "tick_hz 10001", sizeof(struct cpuidle_system_opts), false, 10001, NULL, 0 },
		{ "tick_hz UINT_MAX", sizeof(struct cpuidle_system_opts), false, UINT_MAX, NULL, 0 },
		{ "empty governor", sizeof(struct cpuidle_system_opts), false, 0, "", 0 },
		{ "governor too long", sizeof(struct cpuidle_system_opts), false, 0,
		  "sixteen-chars-xx", 0 },
		{ "unknown flag", sizeof(struct cpuidle_system_opts), false, 0, NULL, 0x2 },
		{ "driver-private flag", sizeof(struct cpuidle_system_opts), false, 0, NULL,
		  0x80000000u },
	};
	struct cpuidle_system *const sentinel = (struct cpuidle_system *)&bad;
	struct cpuidle_system *sys = sentinel;
	struct cpuidle_system_opts opts;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&opts, 0, sizeof(opts));
		opts.sz = bad[i].sz;
		opts.ops.clock_ns = bad[i].no_clock ? NULL : zero_clock;
		opts.tick_hz = bad[i].tick_hz;
		opts.governor = bad[i].governor;
		opts.flags = bad[i].flags;
		print_message("%s\n", bad[i].what);
		assert_int_equal(cpuidle_system_create(&opts, &sys), -EINVAL);
		assert_ptr_equal(sys, sentinel);	/* *out untouched */
	}
	memset(&opts, 0, sizeof(opts));
	opts.sz = sizeof(opts);
	opts.ops.clock_ns = zero_clock;
	assert_int_equal(cpuidle_system_create(NULL, &sys), -EINVAL);
	assert_int_equal(cpuidle_system_create(&opts, NULL), -EINVAL);
	assert_ptr_equal(sys, sentinel);
	/* the longest name that fits is fine, and so is a known flag */
	opts.governor = "fifteen-chars-x";
	opts.flags = CPUIDLE_SYS_NO_BUILTIN_GOVERNORS;
	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	cpuidle_system_destroy(sys);

	/* the accessors of no system */
	cpuidle_system_destroy(NULL);
	assert_null(cpuidle_system_ctx(NULL));
	assert_int_equal(cpuidle_tick_nsec(NULL), 0);
}

/* ---------------------------------------------------------------- state tables */

/*
 * A valid three-state table, us fields only (so normalising it to ns would
 * show), spoiled one way per case.  Applied both to a driver's template
 * and to a device's own states.
 */
struct table {
	struct cpuidle_state st[CPUIDLE_STATE_MAX];
	int count;
	int safe;	/* index, -1: the default */
};

static void table_valid(struct table *t)
{
	memset(t, 0, sizeof(*t));
	set_state(&t->st[0], "S0", 1, 2);
	set_state(&t->st[1], "S1", 10, 20);
	set_state(&t->st[2], "S2", 100, 200);
	t->count = 3;
	t->safe = -1;
}

static void sp_count_zero(struct table *t)
{
	t->count = 0;
}

static void sp_count_negative(struct table *t)
{
	t->count = -1;
}

static void sp_count_above_max(struct table *t)
{
	t->count = CPUIDLE_STATE_MAX + 1;
}

static void sp_count_int_max(struct table *t)
{
	t->count = INT_MAX;
}

static void sp_no_enter(struct table *t)
{
	t->st[2].enter = NULL;
}

static void sp_empty_name(struct table *t)
{
	t->st[1].name[0] = '\0';
}

static void sp_name_unterminated(struct table *t)
{
	memset(t->st[1].name, 'n', sizeof(t->st[1].name));
}

static void sp_desc_unterminated(struct table *t)
{
	memset(t->st[2].desc, 'd', sizeof(t->st[2].desc));
}

static void sp_latency_negative(struct table *t)
{
	t->st[1].exit_latency_ns = -1;
}

static void sp_residency_negative(struct table *t)
{
	t->st[2].target_residency_ns = INT64_MIN;
}

static void sp_latency_two_hours(struct table *t)
{
	t->st[2].exit_latency = 0;
	t->st[2].exit_latency_ns = TWO_HOURS_NS;
	t->st[2].target_residency = 0;
	t->st[2].target_residency_ns = TWO_HOURS_NS;
}

static void sp_residency_two_hours(struct table *t)
{
	t->st[2].target_residency = 0;
	t->st[2].target_residency_ns = TWO_HOURS_NS;
}

static void sp_latency_above_max(struct table *t)
{
	t->st[2].exit_latency = 0;
	t->st[2].exit_latency_ns = CPUIDLE_STATE_TIME_MAX_NS + 1;
	t->st[2].target_residency = 0;
	t->st[2].target_residency_ns = CPUIDLE_STATE_TIME_MAX_NS + 1;
}

static void sp_latency_int64_max(struct table *t)
{
	t->st[2].exit_latency = 0;
	t->st[2].exit_latency_ns = INT64_MAX;
}

static void sp_latency_order(struct table *t)
{
	t->st[2].exit_latency = 5;
}

static void sp_residency_order(struct table *t)
{
	t->st[1].target_residency = 1;
}

static void sp_us_ns_disagree(struct table *t)
{
	t->st[1].exit_latency_ns = 11000;
}

static void sp_all_check_bm(struct table *t)
{
	t->st[0].flags |= CPUIDLE_FLAG_CHECK_BM;
}

static void sp_safe_check_bm(struct table *t)
{
	t->st[1].flags |= CPUIDLE_FLAG_CHECK_BM;
	t->safe = 1;
}

static void sp_safe_past_count(struct table *t)
{
	t->safe = 3;
}

static void sp_safe_below_default(struct table *t)
{
	t->safe = -2;
}

/* Which registrations a case applies to. */
#define T_DRV	0x1
#define T_DEV	0x2

static const struct {
	const char *what;
	void (*spoil)(struct table *t);
	unsigned int applies;
} bad_tables[] = {
	{ "state_count 0 (device: no template to take)", sp_count_zero, T_DEV },
	{ "state_count -1", sp_count_negative, T_DRV | T_DEV },
	{ "state_count above CPUIDLE_STATE_MAX", sp_count_above_max, T_DRV | T_DEV },
	{ "state_count INT_MAX", sp_count_int_max, T_DRV | T_DEV },
	{ "no enter()", sp_no_enter, T_DRV | T_DEV },
	{ "empty name", sp_empty_name, T_DRV | T_DEV },
	{ "unterminated name", sp_name_unterminated, T_DRV | T_DEV },
	{ "unterminated desc", sp_desc_unterminated, T_DRV | T_DEV },
	{ "negative exit latency", sp_latency_negative, T_DRV | T_DEV },
	{ "negative target residency", sp_residency_negative, T_DRV | T_DEV },
	{ "two-hour exit latency and residency", sp_latency_two_hours, T_DRV | T_DEV },
	{ "two-hour target residency", sp_residency_two_hours, T_DRV | T_DEV },
	{ "exit latency above CPUIDLE_STATE_TIME_MAX_NS", sp_latency_above_max, T_DRV | T_DEV },
	{ "exit latency INT64_MAX", sp_latency_int64_max, T_DRV | T_DEV },
	{ "exit latency decreasing", sp_latency_order, T_DRV | T_DEV },
	{ "target residency decreasing", sp_residency_order, T_DRV | T_DEV },
	{ "us and ns disagree", sp_us_ns_disagree, T_DRV | T_DEV },
	{ "every state CHECK_BM", sp_all_check_bm, T_DRV | T_DEV },
	{ "safe state is CHECK_BM", sp_safe_check_bm, T_DRV | T_DEV },
	{ "safe state past the last", sp_safe_past_count, T_DRV | T_DEV },
	{ "safe_state_index below -1", sp_safe_below_default, T_DRV },
};

#define NR_BAD_TABLES	((int)(sizeof(bad_tables) / sizeof(bad_tables[0])))

/* The unspoiled table registers, both ways: the cases fail for their spoil. */
static void test_valid_table_registers(void **state)
{
	struct cpuidle_system_opts opts = { .sz = sizeof(opts), .ops = { .clock_ns = zero_clock } };
	struct cpuidle_driver drv;
	struct cpuidle_state own[CPUIDLE_STATE_MAX];
	struct cpuidle_device dev;
	struct cpuidle_system *sys;
	struct table t;

	(void)state;
	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	table_valid(&t);
	memset(&drv, 0, sizeof(drv));
	strcpy(drv.name, "good");
	memcpy(drv.states, t.st, sizeof(t.st));
	drv.state_count = t.count;
	drv.safe_state_index = t.safe;
	assert_int_equal(cpuidle_register_driver(sys, &drv), 0);
	memset(&dev, 0, sizeof(dev));
	memcpy(own, t.st, sizeof(t.st));
	dev.states = own;
	dev.state_count = t.count;
	assert_int_equal(cpuidle_register_device(sys, &dev), 0);
	/* the longest time allowed is allowed */
	assert_int_equal(cpuidle_unregister_device(sys, &dev), 0);
	dev.states[2].exit_latency = 0;
	dev.states[2].exit_latency_ns = CPUIDLE_STATE_TIME_MAX_NS;
	dev.states[2].target_residency = 0;
	dev.states[2].target_residency_ns = CPUIDLE_STATE_TIME_MAX_NS;
	assert_int_equal(cpuidle_register_device(sys, &dev), 0);
	assert_int_equal(dev.states[2].exit_latency, UINT_MAX);
	cpuidle_system_destroy(sys);
}

static void test_driver_bad_template(void **state)
{
	struct cpuidle_system_opts opts = { .sz = sizeof(opts), .ops = { .clock_ns = zero_clock } };
	struct cpuidle_driver drv, copy;
	struct cpuidle_system *sys;
	struct table t;
	int i;

	(void)state;
	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	for (i = 0; i < NR_BAD_TABLES; i++) {
		if (!(bad_tables[i].applies & T_DRV))
			continue;
		print_message("driver: %s\n", bad_tables[i].what);
		table_valid(&t);
		bad_tables[i].spoil(&t);
		memset(&drv, 0, sizeof(drv));
		strcpy(drv.name, "bad");
		memcpy(drv.states, t.st, sizeof(t.st));
		drv.state_count = t.count;
		drv.safe_state_index = t.safe;
		memcpy(&copy, &drv, sizeof(copy));
		assert_int_equal(cpuidle_register_driver(sys, &drv), -EINVAL);
		assert_memory_equal(&drv, &copy, sizeof(drv));	/* not normalised */
		assert_null(cpuidle_driver_name(sys));
		assert_string_equal(cpuidle_current_governor(sys)->name, "menu");
	}
	cpuidle_system_destroy(sys);
}

static void test_device_bad_states(void **state)
{
	struct cpuidle_state own[CPUIDLE_STATE_MAX];
	struct cpuidle_device dev, copy;
	struct fixture fx;
	struct table t;
	int i;

	(void)state;
	fx_init_no_template(&fx, 2);
	fx_history(&fx, 2);
	for (i = 0; i < NR_BAD_TABLES; i++) {
		if (!(bad_tables[i].applies & T_DEV))
			continue;
		print_message("device: %s\n", bad_tables[i].what);
		table_valid(&t);
		bad_tables[i].spoil(&t);
		memset(&dev, 0, sizeof(dev));
		dev.cpu = 2;
		memcpy(own, t.st, sizeof(t.st));
		dev.states = own;
		dev.state_count = t.count;
		dev.safe_state = t.safe >= 0 ? &dev.states[t.safe] : NULL;
		memcpy(&copy, &dev, sizeof(copy));
		MISUSE(&fx, cpuidle_register_device(fx.sys, &dev), -EINVAL);
		assert_memory_equal(&dev, &copy, sizeof(dev));
		assert_memory_equal(own, t.st, sizeof(t.st));	/* its table untouched */
	}
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- DRIVER */

static void test_driver_misuse(void **state)
{
	struct cpuidle_driver other = { .name = "other" }, noname = { .name = "" };
	struct cpuidle_driver unterminated = { .state_count = 0 }, copy;
	struct fixture fx;

	(void)state;
	memset(unterminated.name, 'u', sizeof(unterminated.name));
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_history(&fx, 2);

	MISUSE(&fx, cpuidle_register_driver(NULL, &other), -EINVAL);
	MISUSE(&fx, cpuidle_register_driver(fx.sys, NULL), -EINVAL);
	MISUSE(&fx, cpuidle_register_driver(fx.sys, &noname), -EINVAL);
	MISUSE(&fx, cpuidle_register_driver(fx.sys, &unterminated), -EINVAL);
	/* registering twice, and a second driver */
	memcpy(&copy, &fx.drv, sizeof(copy));
	MISUSE(&fx, cpuidle_register_driver(fx.sys, &fx.drv), -EBUSY);
	assert_memory_equal(&fx.drv, &copy, sizeof(copy));
	MISUSE(&fx, cpuidle_register_driver(fx.sys, &other), -EBUSY);

	MISUSE(&fx, cpuidle_unregister_driver(NULL, &fx.drv), -EINVAL);
	MISUSE(&fx, cpuidle_unregister_driver(fx.sys, NULL), -EINVAL);
	MISUSE(&fx, cpuidle_unregister_driver(fx.sys, &other), -ENOENT);
	/* same name, another object: not the registered driver */
	memcpy(&copy, &fx.drv, sizeof(copy));
	MISUSE(&fx, cpuidle_unregister_driver(fx.sys, &copy), -ENOENT);
	/* devices still registered */
	MISUSE(&fx, cpuidle_unregister_driver(fx.sys, &fx.drv), -EBUSY);

	/* unregistering what is not registered (any more) */
	assert_int_equal(cpuidle_unregister_device(fx.sys, &fx.dev[0]), 0);
	assert_int_equal(cpuidle_unregister_device(fx.sys, &fx.dev[1]), 0);
	assert_int_equal(cpuidle_unregister_driver(fx.sys, &fx.drv), 0);
	MISUSE(&fx, cpuidle_unregister_driver(fx.sys, &fx.drv), -ENOENT);
	assert_null(cpuidle_driver_name(NULL));
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- DEVICE */

static void test_device_register_misuse(void **state)
{
	struct cpuidle_system_opts opts = { .sz = sizeof(opts), .ops = { .clock_ns = zero_clock } };
	struct cpuidle_device dev, copy;
	struct cpuidle_system *nodrv;
	struct fixture fx, fx2;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_history(&fx, 2);

	memset(&dev, 0, sizeof(dev));
	dev.cpu = 2;
	MISUSE(&fx, cpuidle_register_device(NULL, &dev), -EINVAL);
	MISUSE(&fx, cpuidle_register_device(fx.sys, NULL), -EINVAL);
	/* CPU numbers out of range */
	dev.cpu = CPUIDLE_MAX_CPUS;
	memcpy(&copy, &dev, sizeof(copy));
	MISUSE(&fx, cpuidle_register_device(fx.sys, &dev), -EINVAL);
	dev.cpu = UINT_MAX;
	memcpy(&copy, &dev, sizeof(copy));
	MISUSE(&fx, cpuidle_register_device(fx.sys, &dev), -EINVAL);
	assert_memory_equal(&dev, &copy, sizeof(dev));
	/* registering twice */
	MISUSE(&fx, cpuidle_register_device(fx.sys, &fx.dev[1]), -EEXIST);
	/* another device on a CPU taken (with the template) */
	memset(&dev, 0, sizeof(dev));
	dev.cpu = 1;
	memcpy(&copy, &dev, sizeof(copy));
	MISUSE(&fx, cpuidle_register_device(fx.sys, &dev), -EEXIST);
	assert_memory_equal(&dev, &copy, sizeof(dev));
	/* a device registered in another system */
	fx_init(&fx2, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	MISUSE(&fx, cpuidle_register_device(fx.sys, &fx2.dev[0]), -EEXIST);
	assert_ptr_equal(cpuidle_get_device(fx2.sys, 0), &fx2.dev[0]);
	fx_fini(&fx2);

	/* no driver */
	assert_int_equal(cpuidle_system_create(&opts, &nodrv), 0);
	memset(&dev, 0, sizeof(dev));
	dev.state_count = 1;
	dev.states = fx.own_states[0];
	set_state(&dev.states[0], "S0", 0, 0);
	memcpy(&copy, &dev, sizeof(copy));
	assert_int_equal(cpuidle_register_device(nodrv, &dev), -ENODEV);
	assert_memory_equal(&dev, &copy, sizeof(dev));
	assert_null(cpuidle_get_device(nodrv, 0));
	cpuidle_system_destroy(nodrv);
	fx_fini(&fx);
}

/* The governor refuses the new device: it is left exactly as it was. */
static void test_device_register_governor_refuses(void **state)
{
	struct cpuidle_state own[2];
	struct cpuidle_device dev, copy;
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	assert_int_equal(cpuidle_register_governor(fx.sys, &picky_gov), 0);
	picky_cpu = UINT_MAX;
	assert_int_equal(cpuidle_switch_governor(fx.sys, "picky"), 0);
	fx_history(&fx, 2);
	picky_cpu = 3;

	/* with the driver's template (state_count 0) */
	memset(&dev, 0, sizeof(dev));
	dev.cpu = 3;
	memcpy(&copy, &dev, sizeof(copy));
	MISUSE(&fx, cpuidle_register_device(fx.sys, &dev), -EIO);
	assert_memory_equal(&dev, &copy, sizeof(dev));
	/* with states of its own, us only: not normalised */
	dev.state_count = 2;
	dev.states = fx.own_states[3];
	set_state(&dev.states[0], "A", 1, 2);
	set_state(&dev.states[1], "B", 5, 10);
	memcpy(&copy, &dev, sizeof(copy));
	memcpy(&own, dev.states, sizeof(own));
	MISUSE(&fx, cpuidle_register_device(fx.sys, &dev), -EIO);
	assert_memory_equal(&dev, &copy, sizeof(dev));
	assert_memory_equal(dev.states, own, sizeof(own));

	picky_cpu = UINT_MAX;
	assert_int_equal(cpuidle_register_device(fx.sys, &dev), 0);
	fx_fini(&fx);
}

static void test_device_unregister_misuse(void **state)
{
	struct cpuidle_device never;
	struct fixture fx, fx2;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_init(&fx2, fx_four, FX_ARRAY_SIZE(fx_four), 3, 0);
	fx_history(&fx, 2);
	memset(&never, 0, sizeof(never));

	MISUSE(&fx, cpuidle_unregister_device(NULL, &fx.dev[0]), -EINVAL);
	MISUSE(&fx, cpuidle_unregister_device(fx.sys, NULL), -EINVAL);
	MISUSE(&fx, cpuidle_unregister_device(fx.sys, &never), -ENOENT);
	/* registered, but in another system (fx2's cpu 0 and cpu 2) */
	MISUSE(&fx, cpuidle_unregister_device(fx.sys, &fx2.dev[0]), -ENOENT);
	MISUSE(&fx, cpuidle_unregister_device(fx.sys, &fx2.dev[2]), -ENOENT);
	assert_ptr_equal(cpuidle_get_device(fx2.sys, 0), &fx2.dev[0]);
	assert_ptr_equal(cpuidle_get_device(fx2.sys, 2), &fx2.dev[2]);
	/* twice */
	assert_int_equal(cpuidle_unregister_device(fx.sys, &fx.dev[1]), 0);
	MISUSE(&fx, cpuidle_unregister_device(fx.sys, &fx.dev[1]), -ENOENT);
	fx_fini(&fx2);
	fx_fini(&fx);
}

static void test_device_lookup_misuse(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	MISUSE_PTR(&fx, cpuidle_get_device(NULL, 0), EINVAL);
	MISUSE_PTR(&fx, cpuidle_get_device(fx.sys, 2), ENODEV);
	MISUSE_PTR(&fx, cpuidle_get_device(fx.sys, CPUIDLE_MAX_CPUS), ENODEV);
	MISUSE_PTR(&fx, cpuidle_get_device(fx.sys, UINT_MAX), ENODEV);
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- pause, enable, disable */

struct pauser {
	struct cpuidle_system *sys;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stage;	/* 1: paused; 2: may resume; 3: resumed */
	pthread_t tid;
};

static void pauser_set(struct pauser *p, int stage)
{
	pthread_mutex_lock(&p->mu);
	p->stage = stage;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static void pauser_await(struct pauser *p, int stage)
{
	pthread_mutex_lock(&p->mu);
	while (p->stage < stage)
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
}

static void *pauser_main(void *arg)
{
	struct pauser *p = arg;

	cpuidle_pause_and_lock(p->sys);
	pauser_set(p, 1);
	pauser_await(p, 2);
	cpuidle_resume_and_unlock(p->sys);
	pauser_set(p, 3);
	return NULL;
}

static void test_enable_disable_not_paused(void **state)
{
	struct cpuidle_device never;
	struct pauser p = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
	struct snap s;
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_history(&fx, 2);
	memset(&never, 0, sizeof(never));

	/* not paused at all */
	MISUSE(&fx, cpuidle_enable_device(&fx.dev[0]), -EPERM);
	MISUSE(&fx, cpuidle_disable_device(&fx.dev[0]), -EPERM);
	MISUSE(&fx, cpuidle_enable_device(NULL), -EINVAL);
	MISUSE(&fx, cpuidle_disable_device(NULL), -EINVAL);
	MISUSE(&fx, cpuidle_enable_device(&never), -ENOENT);
	MISUSE(&fx, cpuidle_disable_device(&never), -ENOENT);
	/* resuming what this thread did not pause, and pausing no system */
	snap_take(&s, &fx);
	cpuidle_resume_and_unlock(fx.sys);
	cpuidle_resume_and_unlock(NULL);
	cpuidle_pause_and_lock(NULL);
	snap_check(&s, &fx);
	assert_true(fx_idle(&fx, 0, 1000, 100000, false) >= 0);

	/* paused, but by another thread: still refused, and no unlock of its pause */
	snap_take(&s, &fx);
	p.sys = fx.sys;
	assert_int_equal(pthread_create(&p.tid, NULL, pauser_main, &p), 0);
	pauser_await(&p, 1);
	assert_int_equal(cpuidle_disable_device(&fx.dev[0]), -EPERM);
	assert_int_equal(cpuidle_enable_device(&fx.dev[1]), -EPERM);
	cpuidle_resume_and_unlock(fx.sys);
	assert_int_equal(fx_idle(&fx, 0, 1000, 100000, false), -EAGAIN);	/* still paused */
	pauser_set(&p, 2);
	assert_int_equal(pthread_join(p.tid, NULL), 0);
	snap_check(&s, &fx);
	assert_true(fx.dev[0].enabled && fx.dev[1].enabled);
	fx_fini(&fx);
}

/* Enabling a device under no governor: -ENODEV, it stays disabled. */
static void test_enable_without_governor(void **state)
{
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, CPUIDLE_SYS_NO_BUILTIN_GOVERNORS);
	assert_false(fx.dev[0].enabled);
	cpuidle_pause_and_lock(fx.sys);
	MISUSE(&fx, cpuidle_enable_device(&fx.dev[0]), -ENODEV);
	assert_false(fx.dev[0].enabled);
	assert_int_equal(cpuidle_disable_device(&fx.dev[0]), 0);	/* already: a no-op */
	cpuidle_resume_and_unlock(fx.sys);
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- per-state disable */

static void test_disable_state_misuse(void **state)
{
	static const struct {
		int index;
		unsigned int reason;
	} bad[] = {
		{ -1, CPUIDLE_STATE_DISABLED_BY_USER },
		{ INT_MIN, CPUIDLE_STATE_DISABLED_BY_USER },
		{ 4, CPUIDLE_STATE_DISABLED_BY_USER },	/* == state_count */
		{ CPUIDLE_STATE_MAX - 1, CPUIDLE_STATE_DISABLED_BY_DRIVER },
		{ CPUIDLE_STATE_MAX, CPUIDLE_STATE_DISABLED_BY_USER },
		{ INT_MAX, CPUIDLE_STATE_DISABLED_BY_USER },
		{ 1, 0 },
		{ 1, CPUIDLE_STATE_DISABLED_BY_USER | CPUIDLE_STATE_DISABLED_BY_DRIVER },
		{ 1, 0x4 },
		{ 1, 0x80000000u },
	};
	struct cpuidle_device never;
	struct fixture fx;
	size_t i;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_history(&fx, 2);
	/* a disabled state and a cached poll limit that a write would reset */
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 2, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_true(cpuidle_poll_time(&fx.dev[0]) > 0);
	assert_true(fx.dev[0].poll_limit_ns > 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("index %d reason %#x\n", bad[i].index, bad[i].reason);
		MISUSE(&fx, cpuidle_disable_state(&fx.dev[0], bad[i].index, bad[i].reason, true),
		       -EINVAL);
		MISUSE(&fx, cpuidle_disable_state(&fx.dev[0], bad[i].index, bad[i].reason, false),
		       -EINVAL);
	}
	MISUSE(&fx, cpuidle_disable_state(NULL, 0, CPUIDLE_STATE_DISABLED_BY_USER, true),
	       -EINVAL);
	memset(&never, 0, sizeof(never));
	never.state_count = 1;
	never.states = fx.own_states[0];
	set_state(&never.states[0], "S0", 0, 0);
	MISUSE(&fx, cpuidle_disable_state(&never, 0, CPUIDLE_STATE_DISABLED_BY_USER, true),
	       -ENOENT);
	assert_int_equal(never.states_usage[0].disable, 0);
	/* an unregistered device's state_count is no licence either */
	assert_int_equal(cpuidle_unregister_device(fx.sys, &fx.dev[1]), 0);
	MISUSE(&fx, cpuidle_disable_state(&fx.dev[1], 0, CPUIDLE_STATE_DISABLED_BY_USER, true),
	       -ENOENT);
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- the idle path */

static void test_idle_call_misuse(void **state)
{
	struct cpuidle_idle_ctx ctx = { .sleep_length_ns = 1000000, .delta_tick_ns = 1000000 };
	struct cpuidle_device never;
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 3, 0);
	fx_history(&fx, 3);
	memset(&never, 0, sizeof(never));

	MISUSE(&fx, cpuidle_idle_call(NULL, &ctx), -EINVAL);
	MISUSE(&fx, cpuidle_idle_call(&fx.dev[0], NULL), -EINVAL);
	MISUSE(&fx, cpuidle_idle_call(&never, &ctx), -ENODEV);
	assert_int_equal(ctx.entered, -1);
	/* a device unregistered */
	assert_int_equal(cpuidle_unregister_device(fx.sys, &fx.dev[2]), 0);
	MISUSE(&fx, cpuidle_idle_call(&fx.dev[2], &ctx), -ENODEV);
	/* a device disabled */
	cpuidle_pause_and_lock(fx.sys);
	assert_int_equal(cpuidle_disable_device(&fx.dev[1]), 0);
	/* paused (by this thread) */
	MISUSE(&fx, cpuidle_idle_call(&fx.dev[0], &ctx), -EAGAIN);
	cpuidle_resume_and_unlock(fx.sys);
	MISUSE(&fx, cpuidle_idle_call(&fx.dev[1], &ctx), -ENODEV);

	/* a governor that returns no valid index: nothing entered, nothing counted */
	assert_int_equal(cpuidle_register_governor(fx.sys, &rogue_gov), 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "rogue"), 0);
	select_index = -1;
	MISUSE(&fx, cpuidle_idle_call(&fx.dev[0], &ctx), -ERANGE);
	assert_int_equal(ctx.selected, -1);
	assert_int_equal(ctx.entered, -1);
	select_index = 4;	/* == state_count */
	MISUSE(&fx, cpuidle_idle_call(&fx.dev[0], &ctx), -ERANGE);
	assert_int_equal(ctx.selected, 4);
	select_index = INT_MAX;
	MISUSE(&fx, cpuidle_idle_call(&fx.dev[0], &ctx), -ERANGE);
	select_index = 1;
	assert_int_equal(cpuidle_idle_call(&fx.dev[0], &ctx), 1);

	/* the other lookups of the idle path */
	MISUSE(&fx, cpuidle_find_deepest_state(NULL, INT64_MAX, 0), -EINVAL);
	MISUSE(&fx, cpuidle_find_deepest_state(&never, INT64_MAX, 0), -EINVAL);
	MISUSE(&fx, cpuidle_find_deepest_state(&fx.dev[2], INT64_MAX, 0), -EINVAL);
	MISUSE(&fx, (int)cpuidle_poll_time(NULL), 0);
	fx_fini(&fx);
}

/* No governor at all: -ENODEV. */
static void test_idle_call_no_governor(void **state)
{
	struct cpuidle_idle_ctx ctx = { .sleep_length_ns = 1000000, .delta_tick_ns = 1000000 };
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, CPUIDLE_SYS_NO_BUILTIN_GOVERNORS);
	MISUSE(&fx, cpuidle_idle_call(&fx.dev[0], &ctx), -ENODEV);
	fx_fini(&fx);
}

/*
 * A second idle call on a device while the first runs (here from inside
 * its enter()): -EBUSY, and the outer call is accounted as if alone.
 */
static struct {
	int ret;
	bool states_same;
	bool inner_entered_none;
} reentry;

static int reentrant_enter(struct cpuidle_device *dev, struct cpuidle_state *state)
{
	struct cpuidle_state before[CPUIDLE_STATE_MAX];
	struct cpuidle_idle_ctx inner = { .sleep_length_ns = 1000, .delta_tick_ns = 1000 };

	memcpy(before, dev->states, sizeof(before));
	reentry.ret = cpuidle_idle_call(dev, &inner);
	reentry.states_same = !memcmp(before, dev->states, sizeof(before));
	reentry.inner_entered_none = inner.entered == -1;
	return fx_enter(dev, state);
}

static void test_idle_call_reentered(void **state)
{
	struct fixture fx;
	uint64_t usage;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	assert_int_equal(cpuidle_register_governor(fx.sys, &rogue_gov), 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "rogue"), 0);
	select_index = 1;
	fx.dev[0].states[1].enter = reentrant_enter;
	usage = fx.dev[0].states_usage[1].usage;
	assert_int_equal(fx_idle(&fx, 0, 50000, 1000000, false), 1);
	assert_int_equal(reentry.ret, -EBUSY);
	assert_true(reentry.states_same);
	assert_true(reentry.inner_entered_none);
	assert_int_equal(fx.dev[0].states_usage[1].usage, usage + 1);
	fx.dev[0].states[1].enter = fx_enter;
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- GOVERNOR */

static void test_governor_register_misuse(void **state)
{
	struct cpuidle_governor noselect = { .name = "noselect", .select = NULL };
	struct cpuidle_governor noname = { .name = "", .select = select_fixed };
	struct cpuidle_governor unterminated = { .select = select_fixed };
	struct cpuidle_governor upper = { .name = "MENU", .select = select_fixed };
	static struct cpuidle_governor many[CPUIDLE_STATE_MAX * 4];
	const struct cpuidle_governor *const *builtin = cpuidle_builtin_governors();
	struct fixture fx;
	int i, ret;

	(void)state;
	memset(unterminated.name, 'g', sizeof(unterminated.name));
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_history(&fx, 2);

	MISUSE(&fx, cpuidle_register_governor(NULL, &rogue_gov), -EINVAL);
	MISUSE(&fx, cpuidle_register_governor(fx.sys, NULL), -EINVAL);
	MISUSE(&fx, cpuidle_register_governor(fx.sys, &noselect), -EINVAL);
	MISUSE(&fx, cpuidle_register_governor(fx.sys, &noname), -EINVAL);
	MISUSE(&fx, cpuidle_register_governor(fx.sys, &unterminated), -EINVAL);
	/* twice: the same object, and another of the same name in other case */
	MISUSE(&fx, cpuidle_register_governor(fx.sys, builtin[0]), -EEXIST);
	MISUSE(&fx, cpuidle_register_governor(fx.sys, &upper), -EEXIST);

	/* the registry full */
	for (i = 0, ret = 0; ret == 0; i++) {
		assert_true(i < (int)(sizeof(many) / sizeof(many[0])));
		snprintf(many[i].name, sizeof(many[i].name), "g%d", i);
		many[i].select = select_fixed;
		ret = cpuidle_register_governor(fx.sys, &many[i]);
	}
	assert_int_equal(ret, -ENOSPC);
	assert_null(cpuidle_find_governor(fx.sys, many[i - 1].name));
	MISUSE(&fx, cpuidle_register_governor(fx.sys, &rogue_gov), -ENOSPC);
	assert_null(cpuidle_find_governor(fx.sys, "rogue"));
	fx_fini(&fx);

	/* the lookups, of nothing */
	assert_null(cpuidle_current_governor(NULL));
	assert_null(cpuidle_find_governor(NULL, "menu"));
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	MISUSE_PTR(&fx, cpuidle_find_governor(fx.sys, NULL), 0);
	MISUSE_PTR(&fx, cpuidle_find_governor(fx.sys, "nosuch"), 0);
	fx_fini(&fx);
}

static void test_governor_unregister_misuse(void **state)
{
	struct cpuidle_governor menu_copy;
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_history(&fx, 2);
	memcpy(&menu_copy, cpuidle_current_governor(fx.sys), sizeof(menu_copy));

	MISUSE(&fx, cpuidle_unregister_governor(NULL, &rogue_gov), -EINVAL);
	MISUSE(&fx, cpuidle_unregister_governor(fx.sys, NULL), -EINVAL);
	MISUSE(&fx, cpuidle_unregister_governor(fx.sys, &rogue_gov), -ENOENT);
	/* same name as a registered one, another object */
	MISUSE(&fx, cpuidle_unregister_governor(fx.sys, &menu_copy), -ENOENT);
	/* the one in use */
	MISUSE(&fx, cpuidle_unregister_governor(fx.sys, cpuidle_current_governor(fx.sys)),
	       -EBUSY);
	/* twice */
	assert_int_equal(cpuidle_register_governor(fx.sys, &rogue_gov), 0);
	assert_int_equal(cpuidle_unregister_governor(fx.sys, &rogue_gov), 0);
	MISUSE(&fx, cpuidle_unregister_governor(fx.sys, &rogue_gov), -ENOENT);
	fx_fini(&fx);
}

static void test_governor_switch_misuse(void **state)
{
	static const char *const bad[] = {
		"", "nosuch", "MENU", "Menu", "menu ", " menu", "menu\n",
		"menu-and-a-long-tail-beyond-sixteen",
	};
	struct fixture fx;
	size_t i;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_history(&fx, 2);
	MISUSE(&fx, cpuidle_switch_governor(NULL, "ladder"), -EINVAL);
	MISUSE(&fx, cpuidle_switch_governor(fx.sys, NULL), -EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("switch to \"%s\"\n", bad[i]);
		MISUSE(&fx, cpuidle_switch_governor(fx.sys, bad[i]), -EINVAL);
	}
	fx_fini(&fx);
}

/*
 * A switch (or a registration that would switch) the new governor refuses
 * on one CPU: the old governor stays, on the same devices, and a device
 * disabled before stays disabled.
 */
static void test_governor_switch_refused(void **state)
{
	struct snap s;
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 3, 0);
	fx_history(&fx, 3);
	picky_cpu = 1;
	assert_int_equal(cpuidle_register_governor(fx.sys, &picky_gov), 0);
	cpuidle_pause_and_lock(fx.sys);
	assert_int_equal(cpuidle_disable_device(&fx.dev[2]), 0);
	cpuidle_resume_and_unlock(fx.sys);

	snap_take(&s, &fx);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "picky"), -EIO);
	snap_check_sys(&s, fx.sys, true);
	assert_true(fx.dev[0].enabled && fx.dev[1].enabled);
	assert_false(fx.dev[2].enabled);

	snap_take(&s, &fx);
	assert_int_equal(cpuidle_register_governor(fx.sys, &picky_hi_gov), -EIO);
	snap_check_sys(&s, fx.sys, true);
	assert_false(fx.dev[2].enabled);
	assert_null(cpuidle_find_governor(fx.sys, "picky-hi"));
	picky_cpu = UINT_MAX;
	fx_fini(&fx);
}

static void log_nothing(void *ctx, const struct cpuidle_device *dev,
			const struct cpuidle_decision *d)
{
	(void)ctx;
	(void)dev;
	(void)d;
}

static void test_tracer_misuse(void **state)
{
	struct cpuidle_governor noselect = { .name = "noselect" };
	struct cpuidle_governor noname = { .name = "", .select = select_fixed };
	struct cpuidle_governor longname = { .name = "ten-chars!", .select = select_fixed };
	struct cpuidle_governor_tracer t, copy;
	struct cpuidle_decision d = { .sleep_length_ns = CPUIDLE_TIME_INFINITE };
	char buf[16];

	(void)state;
	memset(&t, 0x5a, sizeof(t));
	memcpy(&copy, &t, sizeof(copy));
	assert_int_equal(cpuidle_governor_tracer_init(NULL, &rogue_gov, log_nothing, NULL),
			 -EINVAL);
	assert_int_equal(cpuidle_governor_tracer_init(&t, NULL, log_nothing, NULL), -EINVAL);
	assert_int_equal(cpuidle_governor_tracer_init(&t, &rogue_gov, NULL, NULL), -EINVAL);
	assert_int_equal(cpuidle_governor_tracer_init(&t, &noselect, log_nothing, NULL),
			 -EINVAL);
	assert_int_equal(cpuidle_governor_tracer_init(&t, &noname, log_nothing, NULL), -EINVAL);
	/* "ten-chars!+trace" does not fit CPUIDLE_NAME_LEN */
	assert_int_equal(cpuidle_governor_tracer_init(&t, &longname, log_nothing, NULL),
			 -EINVAL);
	/* a tracer of itself would call itself for ever */
	strcpy(t.gov.name, "self");
	t.gov.select = select_fixed;
	memcpy(&copy, &t, sizeof(copy));
	assert_int_equal(cpuidle_governor_tracer_init(&t, &t.gov, log_nothing, NULL), -EINVAL);
	assert_memory_equal(&t, &copy, sizeof(t));

	memset(buf, 'Z', sizeof(buf));
	assert_int_equal(cpuidle_decision_format(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(cpuidle_decision_format(&d, NULL, sizeof(buf)), -EINVAL);
	assert_int_equal(buf[0], 'Z');
	/* a NULL buffer of size 0 only measures, as snprintf() */
	assert_true(cpuidle_decision_format(&d, NULL, 0) > 0);
}

static void test_haltpoll_params_misuse(void **state)
{
	struct cpuidle_haltpoll_params p, untouched;
	struct cpuidle_device never;
	struct fixture fx;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 1, 0);
	memset(&p, 0, sizeof(p));	/* every value 0: any write would show */
	MISUSE(&fx, cpuidle_haltpoll_set_params(NULL, &p, CPUIDLE_HALTPOLL_ALL), -EINVAL);
	MISUSE(&fx, cpuidle_haltpoll_set_params(fx.sys, NULL, CPUIDLE_HALTPOLL_ALL), -EINVAL);
	MISUSE(&fx, cpuidle_haltpoll_set_params(fx.sys, &p, CPUIDLE_HALTPOLL_ALL + 1), -EINVAL);
	MISUSE(&fx, cpuidle_haltpoll_set_params(fx.sys, &p, 0x80000000u | CPUIDLE_HALTPOLL_GROW),
	       -EINVAL);
	MISUSE(&fx, cpuidle_haltpoll_get_params(NULL, &p), -EINVAL);
	MISUSE(&fx, cpuidle_haltpoll_get_params(fx.sys, NULL), -EINVAL);

	/* the governors' accessor: no device, no output, a device of no system */
	memset(&untouched, 0x5a, sizeof(untouched));
	memcpy(&p, &untouched, sizeof(p));
	cpuidle_dev_haltpoll_params(NULL, &p);
	assert_memory_equal(&p, &untouched, sizeof(p));
	cpuidle_dev_haltpoll_params(&fx.dev[0], NULL);
	memset(&never, 0, sizeof(never));
	cpuidle_dev_haltpoll_params(&never, &p);
	assert_memory_equal(&p, &untouched, sizeof(p));
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- PM QOS */

static void test_pm_qos_misuse(void **state)
{
	static const struct {
		int qos;
		const char *name;
		int32_t value;
		int add, update, remove;
	} bad[] = {
		/* class             name      value     add      update   remove */
		{ PM_QOS_RESERVED, "live", 5, -EINVAL, -EINVAL, -EINVAL },
		{ PM_QOS_NUM_CLASSES, "live", 5, -EINVAL, -EINVAL, -EINVAL },
		{ -1, "live", 5, -EINVAL, -EINVAL, -EINVAL },
		{ INT_MAX, "live", 5, -EINVAL, -EINVAL, -EINVAL },
		{ PM_QOS_CPU_DMA_LATENCY, NULL, 5, -EINVAL, -EINVAL, -EINVAL },
		{ PM_QOS_CPU_DMA_LATENCY, "", 5, -EINVAL, -EINVAL, -EINVAL },
		{ PM_QOS_CPU_DMA_LATENCY,
		  "a-name-of-sixty-four-characters-is-one-more-than-the-longest-ok!", 5,
		  -EINVAL, -EINVAL, -EINVAL },
		{ PM_QOS_CPU_DMA_LATENCY, "live", -2, -EINVAL, -EINVAL, 0 },
		{ PM_QOS_CPU_DMA_LATENCY, "live", INT32_MIN, -EINVAL, -EINVAL, 0 },
		{ PM_QOS_CPU_DMA_LATENCY, "live", 1, -EEXIST, 0, 0 },
		{ PM_QOS_CPU_DMA_LATENCY, "nosuch", 1, 0, -ENOENT, -ENOENT },
		/* a request of another class */
		{ PM_QOS_CPU_DMA_LATENCY, "net", 1, 0, -ENOENT, -ENOENT },
		{ PM_QOS_NETWORK_THROUGHPUT, "live", 1, 0, -ENOENT, -ENOENT },
	};
	char name[16];
	struct fixture fx;
	size_t i;
	int n;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_history(&fx, 2);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "live", 100), 0);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_NETWORK_LATENCY, "net", 7), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("class %d name %s value %d\n", bad[i].qos,
			      bad[i].name ? bad[i].name : "(null)", bad[i].value);
		if (bad[i].add)
			MISUSE(&fx, pm_qos_add_requirement(fx.sys, bad[i].qos, bad[i].name,
							   bad[i].value), bad[i].add);
		if (bad[i].update)
			MISUSE(&fx, pm_qos_update_requirement(fx.sys, bad[i].qos, bad[i].name,
							      bad[i].value), bad[i].update);
		if (bad[i].remove)
			MISUSE(&fx, pm_qos_remove_requirement(fx.sys, bad[i].qos, bad[i].name),
			       bad[i].remove);
	}
	MISUSE(&fx, pm_qos_add_requirement(NULL, PM_QOS_CPU_DMA_LATENCY, "x", 1), -EINVAL);
	MISUSE(&fx, pm_qos_update_requirement(NULL, PM_QOS_CPU_DMA_LATENCY, "live", 1), -EINVAL);
	MISUSE(&fx, pm_qos_remove_requirement(NULL, PM_QOS_CPU_DMA_LATENCY, "live"), -EINVAL);
	assert_int_equal(pm_qos_requirement(NULL, PM_QOS_CPU_DMA_LATENCY), -EINVAL);
	MISUSE(&fx, pm_qos_requirement(fx.sys, PM_QOS_RESERVED), -EINVAL);
	MISUSE(&fx, pm_qos_requirement(fx.sys, PM_QOS_NUM_CLASSES), -EINVAL);
	/* the live requests are still there, with their values */
	assert_int_equal(pm_qos_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY), 100);
	assert_int_equal(pm_qos_requirement(fx.sys, PM_QOS_NETWORK_LATENCY), 7);

	/* the class full */
	for (n = 1; n < PM_QOS_MAX_REQUESTS; n++) {
		snprintf(name, sizeof(name), "r%d", n);
		assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, name,
							1000 + n), 0);
	}
	MISUSE(&fx, pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "one-more", 0),
	       -ENOSPC);
	/* removing twice */
	assert_int_equal(pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "live"), 0);
	MISUSE(&fx, pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "live"), -ENOENT);
	assert_int_equal(pm_qos_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY), 1001);
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- the attribute tree */

static void test_attr_misuse(void **state)
{
	static const struct {
		const char *path;
		const char *value;
		int write, read;
	} bad[] = {
		/* unknown files */
		{ "cpuidle/nosuch", "1", -ENOENT, -ENOENT },
		{ "cpu9/cpuidle/state0/disable", "1", -ENOENT, -ENOENT },	/* no device */
		{ "cpu0/cpuidle/state4/disable", "1", -ENOENT, -ENOENT },	/* no state */
		{ "cpu0/cpuidle/state01/disable", "1", -ENOENT, -ENOENT },
		{ "cpu0/cpuidle/state-1/disable", "1", -ENOENT, -ENOENT },
		{ "cpu4096/cpuidle/state0/disable", "1", -ENOENT, -ENOENT },
		{ "cpu0/cpuidle/state0/disable/", "1", -ENOENT, -ENOENT },
		{ "cpu0/cpuidle/state0/disable/x", "1", -ENOENT, -ENOENT },
		{ "module/menu/parameters/x", "1", -ENOENT, -ENOENT },
		{ "/etc/passwd", "1", -ENOENT, -ENOENT },
		{ "", "1", -EISDIR, -EISDIR },
		/* directories */
		{ "cpu0/cpuidle/state1", "1", -EISDIR, -EISDIR },
		{ "cpuidle", "menu", -EISDIR, -EISDIR },
		{ "module/haltpoll/parameters", "1", -EISDIR, -EISDIR },
		/* read-only files */
		{ "cpuidle/current_driver", "x", -EACCES, 0 },
		{ "cpuidle/current_governor_ro", "ladder", -EACCES, 0 },
		{ "cpuidle/available_governors", "x", -EACCES, 0 },
		{ "cpu0/cpuidle/state1/usage", "0", -EACCES, 0 },
		{ "cpu0/cpuidle/state1/latency", "0", -EACCES, 0 },
		/* malformed or out-of-range values */
		{ "cpu0/cpuidle/state1/disable", "", -EINVAL, 0 },
		{ "cpu0/cpuidle/state1/disable", "yes", -EINVAL, 0 },
		{ "cpu0/cpuidle/state1/disable", "-1", -EINVAL, 0 },
		{ "cpu0/cpuidle/state1/disable", "1 ", -EINVAL, 0 },
		{ "cpu0/cpuidle/state1/disable", "4294967296", -ERANGE, 0 },
		{ "cpuidle/current_governor", "", -EINVAL, 0 },
		{ "cpuidle/current_governor", "nosuch", -EINVAL, 0 },
		{ "cpuidle/current_governor", "LADDER", -EINVAL, 0 },
		{ "module/haltpoll/parameters/guest_halt_poll_ns", "x", -EINVAL, 0 },
		{ "module/haltpoll/parameters/guest_halt_poll_ns", "99999999999", -ERANGE, 0 },
		{ "module/haltpoll/parameters/guest_halt_poll_allow_shrink", "maybe", -EINVAL, 0 },
	};
	char buf[64], zeds[64];
	struct fixture fx;
	size_t i;

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_history(&fx, 2);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 2, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_true(cpuidle_poll_time(&fx.dev[0]) > 0);
	memset(zeds, 'Z', sizeof(zeds));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("%s <- \"%s\"\n", bad[i].path, bad[i].value);
		MISUSE(&fx, cpuidle_attr_write(fx.sys, bad[i].path, bad[i].value), bad[i].write);
		if (!bad[i].read)
			continue;
		memcpy(buf, zeds, sizeof(buf));
		MISUSE(&fx, (int)cpuidle_attr_read(fx.sys, bad[i].path, buf, sizeof(buf)),
		       bad[i].read);
		assert_memory_equal(buf, zeds, sizeof(buf));
	}
	/* NULL arguments, and a buffer too small (left untouched) */
	MISUSE(&fx, cpuidle_attr_write(NULL, "cpu0/cpuidle/state1/disable", "1"), -EINVAL);
	MISUSE(&fx, cpuidle_attr_write(fx.sys, NULL, "1"), -EINVAL);
	MISUSE(&fx, cpuidle_attr_write(fx.sys, "cpu0/cpuidle/state1/disable", NULL), -EINVAL);
	memcpy(buf, zeds, sizeof(buf));
	MISUSE(&fx, (int)cpuidle_attr_read(NULL, "cpuidle/current_governor", buf, sizeof(buf)),
	       -EINVAL);
	MISUSE(&fx, (int)cpuidle_attr_read(fx.sys, NULL, buf, sizeof(buf)), -EINVAL);
	MISUSE(&fx, (int)cpuidle_attr_read(fx.sys, "cpuidle/current_governor", NULL, 64),
	       -EINVAL);
	MISUSE(&fx, (int)cpuidle_attr_read(fx.sys, "cpuidle/current_governor", buf, 5),
	       -ENOSPC);	/* "menu\n" needs 6 */
	MISUSE(&fx, (int)cpuidle_attr_read(fx.sys, "cpuidle/current_governor", buf, 0),
	       -ENOSPC);
	assert_memory_equal(buf, zeds, sizeof(buf));
	MISUSE(&fx, cpuidle_attr_walk(NULL, dump_attr, NULL), -EINVAL);
	MISUSE(&fx, cpuidle_attr_walk(fx.sys, NULL, NULL), -EINVAL);
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- platforms */

static int idle_nop(struct cpuidle_device *dev, struct cpuidle_state *state, int index,
		    void *ctx)
{
	(void)dev;
	(void)state;
	(void)index;
	(void)ctx;
	return 0;
}

static void test_platform_misuse(void **state)
{
	static const char bad_text[] = "platform p\nstate C1 latency_us=5 residency_us=1\n"
				       "state C2 latency_us=1 residency_us=2\n";
	static struct cpuidle_platform p, copy, juno;
	static struct cpuidle_table_driver td, tdcopy;
	struct cpuidle_device dev, devcopy;
	size_t len = 12345;
	char err[128];

	(void)state;
	/* parse and load leave their output alone when they fail */
	memset(&p, 0x5a, sizeof(p));
	memcpy(&copy, &p, sizeof(copy));
	assert_int_equal(cpuidle_platform_parse(bad_text, sizeof(bad_text) - 1, "bad", &p, err,
						sizeof(err)), -EINVAL);
	assert_memory_equal(&p, &copy, sizeof(p));
	assert_int_equal(cpuidle_platform_parse(NULL, 0, "bad", &p, err, sizeof(err)), -EINVAL);
	assert_int_equal(cpuidle_platform_parse(bad_text, CPUIDLE_PLATFORM_MAX_FILE + 1ul, "big",
						&p, err, sizeof(err)), -EFBIG);
	assert_int_equal(cpuidle_platform_load("no-such-platform", &p, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(cpuidle_platform_load("/", &p, err, sizeof(err)), -EISDIR);
	assert_int_equal(cpuidle_platform_load(NULL, &p, NULL, 0), -EINVAL);
	assert_memory_equal(&p, &copy, sizeof(p));

	errno = 0;
	assert_null(cpuidle_platform_builtin_text(NULL, &len));
	assert_int_equal(errno, EINVAL);
	assert_null(cpuidle_platform_builtin_text("no-such-platform", &len));
	assert_int_equal(errno, ENOENT);
	assert_int_equal(len, 12345);

	assert_int_equal(cpuidle_platform_load("juno-r2", &juno, err, sizeof(err)), 0);
	assert_int_equal(cpuidle_platform_cluster_of(NULL, 0), -EINVAL);
	assert_int_equal(cpuidle_platform_cluster_of(&juno, juno.nr_cpus), -ENOENT);
	assert_int_equal(cpuidle_platform_cluster_of(&juno, CPUIDLE_MAX_CPUS), -ENOENT);
	assert_int_equal(cpuidle_platform_cluster_of(&juno, UINT_MAX), -ENOENT);
	/* a hand-made platform claiming more clusters than there is room for */
	memcpy(&p, &juno, sizeof(p));
	p.nr_clusters = 1000;
	p.nr_cpus = 0;
	assert_int_equal(cpuidle_platform_cluster_of(&p, CPUIDLE_MAX_CPUS - 1), -ENOENT);

	/* the table driver */
	memset(&td, 0x5a, sizeof(td));
	memcpy(&tdcopy, &td, sizeof(td));
	assert_int_equal(cpuidle_table_driver_init(NULL, &juno, idle_nop, NULL), -EINVAL);
	assert_int_equal(cpuidle_table_driver_init(&td, NULL, idle_nop, NULL), -EINVAL);
	assert_int_equal(cpuidle_table_driver_init(&td, &juno, NULL, NULL), -EINVAL);
	memcpy(&p, &juno, sizeof(p));
	p.state_count = 0;
	assert_int_equal(cpuidle_table_driver_init(&td, &p, idle_nop, NULL), -EINVAL);
	p.state_count = -1;
	assert_int_equal(cpuidle_table_driver_init(&td, &p, idle_nop, NULL), -EINVAL);
	p.state_count = CPUIDLE_STATE_MAX + 1;
	assert_int_equal(cpuidle_table_driver_init(&td, &p, idle_nop, NULL), -EINVAL);
	assert_memory_equal(&td, &tdcopy, sizeof(td));

	memset(&dev, 0x5a, sizeof(dev));
	dev.registered = false;
	memcpy(&devcopy, &dev, sizeof(dev));
	memset(&td, 0, sizeof(td));	/* not initialised */
	assert_int_equal(cpuidle_table_device_init(&td, &dev, 0), -EINVAL);
	assert_int_equal(cpuidle_table_driver_init(&td, &juno, idle_nop, NULL), 0);
	assert_int_equal(cpuidle_table_device_init(NULL, &dev, 0), -EINVAL);
	assert_int_equal(cpuidle_table_device_init(&td, NULL, 0), -EINVAL);
	assert_int_equal(cpuidle_table_device_init(&td, &dev, CPUIDLE_MAX_CPUS), -EINVAL);
	assert_int_equal(cpuidle_table_device_init(&td, &dev, juno.nr_cpus), -ENOENT);
	assert_memory_equal(&dev, &devcopy, sizeof(dev));
	/* a cluster table that is no table: refused when the driver is built */
	memcpy(&tdcopy, &td, sizeof(td));
	juno.clusters[0].state_count = CPUIDLE_STATE_MAX + 1;
	assert_int_equal(cpuidle_table_driver_init(&td, &juno, idle_nop, NULL), -EINVAL);
	juno.clusters[0].state_count = 0;
	assert_int_equal(cpuidle_table_driver_init(&td, &juno, idle_nop, NULL), -EINVAL);
	assert_memory_equal(&td, &tdcopy, sizeof(td));
	assert_memory_equal(&dev, &devcopy, sizeof(dev));
}

/* A registered device is not re-initialised under the system. */
static void test_table_device_init_registered(void **state)
{
	static struct cpuidle_table_driver td;
	struct cpuidle_platform p;
	struct fixture fx;
	char err[128];

	(void)state;
	fx_init(&fx, fx_four, FX_ARRAY_SIZE(fx_four), 2, 0);
	fx_history(&fx, 2);
	assert_int_equal(cpuidle_platform_load("laptop", &p, err, sizeof(err)), 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, idle_nop, NULL), 0);
	MISUSE(&fx, cpuidle_table_device_init(&td, &fx.dev[1], 1), -EBUSY);
	fx_fini(&fx);
}

/* ---------------------------------------------------------------- the idle engine */


/* A CPUID that only counts its calls: detection, the first step of any work. */
static int cpuid_calls;

static int cpuid_count(uint32_t leaf, uint32_t subleaf, uint32_t regs[4], void *ctx)
{
	(void)leaf;
	(void)subleaf;
	(void)ctx;
	memset(regs, 0, 4 * sizeof(regs[0]));
	cpuid_calls++;
	return -ENOENT;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * CPUIDLE_NSEC_PER_SEC + ts.tv_nsec;
}

static void engine_snap(struct snap *s, struct uidle_engine *e, struct uidle_waiter **w, int n)
{
	struct cpuidle_device *devs[SNAP_DEVS];
	int i;

	for (i = 0; i < n; i++)
		devs[i] = &w[i]->dev;
	snap_take_sys(s, uidle_engine_system(e), NULL, devs, n);
}

#define ENGINE_MISUSE(e, w, n, call, err)				\
	do {								\
		struct snap snap_;					\
									\
		engine_snap(&snap_, (e), (w), (n));			\
		assert_int_equal((call), (err));			\
		snap_check_sys(&snap_, uidle_engine_system(e), false);	\
	} while (0)

static void test_uidle_engine_create_misuse(void **state)
{
	static const struct {
		const char *what;
		const char *governor;
		unsigned int states, flags, tick_hz;
		int err;
	} bad[] = {
		{ "empty governor", "", 0, 0, 0, -EINVAL },
		{ "governor too long", "sixteen-chars-xx", 0, 0, 0, -EINVAL },
		{ "unknown governor", "nosuch", 0, 0, 0, -ENOENT },
		{ "unknown state kind", NULL, UIDLE_STATES_ALL + 1, 0, 0, -EINVAL },
		{ "unknown flag", NULL, 0, 0x2, 0, -EINVAL },
		{ "tick_hz above 10000", NULL, 0, 0, 10001, -EINVAL },
	};
	struct uidle_engine *const sentinel = (struct uidle_engine *)&bad;
	struct uidle_engine *e = sentinel;
	struct uidle_calibration cal = fx_uidle_cal;
	struct uidle_engine_opts o;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&o, 0, sizeof(o));
		o.sz = sizeof(o);
		o.governor = bad[i].governor;
		o.states = bad[i].states;
		o.flags = bad[i].flags;
		o.tick_hz = bad[i].tick_hz;
		/*
		 * No override: a misuse must be refused before the detection
		 * and the calibration's tens of ms run.
		 */
		o.cpuid = cpuid_count;
		cpuid_calls = 0;
		print_message("%s\n", bad[i].what);
		assert_int_equal(uidle_engine_create(&o, &e), bad[i].err);
		assert_int_equal(cpuid_calls, 0);
		assert_ptr_equal(e, sentinel);
	}
	/* override numbers no state may have */
	memset(&o, 0, sizeof(o));
	o.sz = sizeof(o);
	o.calibration = &cal;
	cal.cost[UIDLE_STATE_FUTEX].exit_latency_ns = TWO_HOURS_NS;
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	cal = fx_uidle_cal;
	cal.cost[UIDLE_STATE_FUTEX].entry_cpu_ns = INT64_MAX;
	assert_int_equal(uidle_engine_create(&o, &e), -EINVAL);
	assert_ptr_equal(e, sentinel);
}

struct bg {
	struct uidle_waiter *w;
	uint32_t *word;
	int ret;
	pthread_t tid;
};

static void *bg_main(void *arg)
{
	struct bg *b = arg;

	b->ret = uidle_wait(b->w, b->word, 0, mono_ns() + 5 * CPUIDLE_NSEC_PER_SEC);
	return NULL;
}

static void test_uidle_misuse(void **state)
{
	struct uidle_engine_opts o = { .sz = sizeof(o), .calibration = &fx_uidle_cal };
	struct uidle_waiter w, w2, zero, copy, *ws[2] = { &w, &w2 };
	struct uidle_state_info info, info_copy;
	struct uidle_engine *e;
	uint32_t word = 0, words[2] = { 0, 0 };
	const uint32_t *misaligned = (const uint32_t *)((char *)words + 2);
	struct bg b = { .w = &w2, .word = &word, .ret = 1 };
	int64_t end;

	(void)state;
	assert_int_equal(uidle_engine_create(&o, &e), 0);
	assert_int_equal(uidle_waiter_init(e, &w), 0);
	assert_int_equal(uidle_waiter_init(e, &w2), 0);
	memset(&zero, 0, sizeof(zero));
	/* some history */
	assert_int_equal(uidle_wait(&w, &word, 0, mono_ns() + 200000), -ETIMEDOUT);

	/* waiters */
	memcpy(&copy, &w, sizeof(copy));
	ENGINE_MISUSE(e, ws, 2, uidle_waiter_init(e, &w), -EBUSY);
	assert_memory_equal(&w, &copy, sizeof(w));
	ENGINE_MISUSE(e, ws, 2, uidle_waiter_init(NULL, &zero), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_waiter_init(e, NULL), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_waiter_fini(NULL), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_waiter_fini(&zero), -ENOENT);

	/* waits */
	ENGINE_MISUSE(e, ws, 2, uidle_wait(NULL, &word, 0, 0), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_wait(&w, NULL, 0, 0), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_wait(&w, misaligned, 0, 0), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_wait(&zero, &word, 0, mono_ns() + 1000000), -ENOENT);

	/* wakes */
	ENGINE_MISUSE(e, ws, 2, uidle_wake(NULL, &word, 1), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_wake(e, NULL, 1), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_wake(e, &word, -1), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_wake(e, &word, INT32_MIN), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_wake(e, misaligned, 1), -EINVAL);

	/* the engine's description */
	memset(&info, 0x5a, sizeof(info));
	memcpy(&info_copy, &info, sizeof(info));
	ENGINE_MISUSE(e, ws, 2, uidle_engine_state(e, -1, &info), -ENOENT);
	ENGINE_MISUSE(e, ws, 2, uidle_engine_state(e, w.dev.state_count, &info), -ENOENT);
	ENGINE_MISUSE(e, ws, 2, uidle_engine_state(e, INT_MAX, &info), -ENOENT);
	ENGINE_MISUSE(e, ws, 2, uidle_engine_state(e, 0, NULL), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_engine_info(e, NULL), -EINVAL);
	ENGINE_MISUSE(e, ws, 2, uidle_engine_calibration(e, NULL), -EINVAL);
	assert_memory_equal(&info, &info_copy, sizeof(info));

	/* the engine's system is not the user's to register drivers in */
	ENGINE_MISUSE(e, ws, 2, cpuidle_register_driver(uidle_engine_system(e),
						      &(struct cpuidle_driver){ .name = "x" }),
		      -EBUSY);

	/* destroying an engine with waiters: refused, the engine still works */
	ENGINE_MISUSE(e, ws, 2, uidle_engine_destroy(e), -EBUSY);
	assert_int_equal(uidle_wait(&w, &word, 0, mono_ns() + 100000), -ETIMEDOUT);

	/* while a wait runs on w2: a second wait, and its fini, are refused */
	assert_int_equal(pthread_create(&b.tid, NULL, bg_main, &b), 0);
	end = mono_ns() + 5 * CPUIDLE_NSEC_PER_SEC;
	while (!__atomic_load_n(&w2.wait.addr, __ATOMIC_ACQUIRE) && mono_ns() < end)
		sched_yield();
	assert_non_null(__atomic_load_n(&w2.wait.addr, __ATOMIC_ACQUIRE));
	assert_int_equal(uidle_wait(&w2, &word, 0, 0), -EBUSY);
	assert_int_equal(uidle_waiter_fini(&w2), -EBUSY);
	__atomic_store_n(&word, 1, __ATOMIC_RELEASE);
	assert_true(uidle_wake(e, &word, UIDLE_WAKE_ALL) >= 0);
	assert_int_equal(pthread_join(b.tid, NULL), 0);
	assert_int_equal(b.ret, 0);

	/* finalised twice; waiting on a finalised waiter; a destroyed engine */
	assert_int_equal(uidle_waiter_fini(&w2), 0);
	ws[1] = &w;
	ENGINE_MISUSE(e, ws, 1, uidle_waiter_fini(&w2), -ENOENT);
	ENGINE_MISUSE(e, ws, 1, uidle_wait(&w2, &word, 1, 0), -ENOENT);
	assert_int_equal(uidle_waiter_fini(&w), 0);
	assert_int_equal(uidle_engine_destroy(e), 0);
	memcpy(&copy, &w, sizeof(copy));
	assert_int_equal(uidle_wait(&w, &word, 1, mono_ns() + 1000000), -ENOENT);
	assert_int_equal(uidle_waiter_fini(&w), -ENOENT);
	assert_memory_equal(&w, &copy, sizeof(w));
	assert_int_equal(uidle_engine_destroy(NULL), 0);
	assert_null(uidle_engine_system(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_system_create),
		cmocka_unit_test(test_valid_table_registers),
		cmocka_unit_test(test_driver_bad_template),
		cmocka_unit_test(test_device_bad_states),
		cmocka_unit_test(test_driver_misuse),
		cmocka_unit_test(test_device_register_misuse),
		cmocka_unit_test(test_device_register_governor_refuses),
		cmocka_unit_test(test_device_unregister_misuse),
		cmocka_unit_test(test_device_lookup_misuse),
		cmocka_unit_test(test_enable_disable_not_paused),
		cmocka_unit_test(test_enable_without_governor),
		cmocka_unit_test(test_disable_state_misuse),
		cmocka_unit_test(test_idle_call_misuse),
		cmocka_unit_test(test_idle_call_no_governor),
		cmocka_unit_test(test_idle_call_reentered),
		cmocka_unit_test(test_governor_register_misuse),
		cmocka_unit_test(test_governor_unregister_misuse),
		cmocka_unit_test(test_governor_switch_misuse),
		cmocka_unit_test(test_governor_switch_refused),
		cmocka_unit_test(test_tracer_misuse),
		cmocka_unit_test(test_haltpoll_params_misuse),
		cmocka_unit_test(test_pm_qos_misuse),
		cmocka_unit_test(test_attr_misuse),
		cmocka_unit_test(test_platform_misuse),
		cmocka_unit_test(test_table_device_init_registered),
		cmocka_unit_test(test_uidle_engine_create_misuse),
		cmocka_unit_test(test_uidle_misuse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
