// SPDX-License-Identifier: MIT
/*
 * test_haltpoll.c - the haltpoll governor: its selection rules, the
 * polling window's growth and shrinkage, and its tunables (per system,
 * through the attribute tree).
 */
#include "fixture.h"

#define US		1000LL
#define TIMER		(100 * 1000 * US)	/* far away: never the limit */
#define PARAM(name)	"module/haltpoll/parameters/" name

static void setup(struct fixture *fx)
{
	fx_init(fx, fx_haltpoll, FX_ARRAY_SIZE(fx_haltpoll), 1, 0);
	assert_int_equal(cpuidle_switch_governor(fx->sys, "haltpoll"), 0);
	assert_int_equal(fx->dev[0].poll_limit_ns, 0);
}

/* One idle period of @stay_ns with the tick running; *@stop_tick: the verdict. */
static int idle(struct fixture *fx, int64_t stay_ns, bool *stop_tick)
{
	struct cpuidle_idle_ctx ctx = {
		.sleep_length_ns = TIMER,
		.delta_tick_ns = cpuidle_tick_nsec(fx->sys),
	};
	int ret;

	fx->stay_ns[0] = stay_ns;
	ret = cpuidle_idle_call(&fx->dev[0], &ctx);
	if (stop_tick)
		*stop_tick = ctx.stop_tick;
	return ret;
}

static uint64_t window(const struct fixture *fx)
{
	return fx->dev[0].poll_limit_ns;
}

static const char *rd(struct cpuidle_system *sys, const char *path)
{
	static char buf[64];

	assert_true(cpuidle_attr_read(sys, path, buf, sizeof(buf)) > 0);
	return buf;
}

/* Poll (limit reached), then halt for @halt_ns: one idle interval. */
static void poll_then_halt(struct fixture *fx, int64_t halt_ns)
{
	bool stop;

	assert_int_equal(idle(fx, (int64_t)window(fx) + 10 * US, &stop), 0);
	assert_false(stop);
	assert_true(fx->dev[0].poll_time_limit);
	assert_int_equal(idle(fx, halt_ns, &stop), 1);
	assert_true(stop);
}

static void test_rating_and_registration(void **state)
{
	const struct cpuidle_governor *const *g;
	struct fixture fx;
	bool found = false;

	(void)state;
	for (g = cpuidle_builtin_governors(); *g; g++)
		if (!strcmp((*g)->name, "haltpoll")) {
			assert_int_equal((*g)->rating, 9);
			found = true;
		}
	assert_true(found);
	/* rated below ladder and menu: never the default */
	fx_init(&fx, fx_haltpoll, FX_ARRAY_SIZE(fx_haltpoll), 1, 0);
	assert_string_not_equal(cpuidle_current_governor(fx.sys)->name, "haltpoll");
	fx_fini(&fx);
}

/* A window of 0 halts at once; a stay within guest_halt_poll_ns grows it to grow_start. */
static void test_grow_from_grow_start(void **state)
{
	struct fixture fx;
	bool stop;

	(void)state;
	setup(&fx);
	assert_int_equal(idle(&fx, 100 * US, &stop), 1);
	assert_true(stop);
	assert_int_equal(window(&fx), 50000);
	fx_fini(&fx);
}

/* Each halt the poll would have caught doubles the window, up to guest_halt_poll_ns. */
static void test_doubling_and_cap(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	idle(&fx, 100 * US, NULL);
	assert_int_equal(window(&fx), 50000);
	poll_then_halt(&fx, 60 * US);
	assert_int_equal(window(&fx), 100000);
	poll_then_halt(&fx, 150 * US);
	assert_int_equal(window(&fx), 200000);
	/* a window at the maximum cannot grow: block > window > max */
	poll_then_halt(&fx, 199 * US);
	assert_int_equal(window(&fx), 200000);
	/* a grow past the maximum stops at it */
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_ns"), "300000"), 0);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_grow"), "4"), 0);
	poll_then_halt(&fx, 250 * US);
	assert_int_equal(window(&fx), 300000);
	fx_fini(&fx);
}

/* A halt within the window changes nothing; polls ended by work adjust nothing. */
static void test_no_adjustment(void **state)
{
	struct fixture fx;
	bool stop;

	(void)state;
	setup(&fx);
	idle(&fx, 100 * US, NULL);
	poll_then_halt(&fx, 60 * US);
	assert_int_equal(window(&fx), 100000);
	poll_then_halt(&fx, 80 * US);	/* 80 us <= 100 us */
	assert_int_equal(window(&fx), 100000);
	/* a poll ended by work: poll again, the tick kept */
	assert_int_equal(idle(&fx, 30 * US, &stop), 0);
	assert_false(fx.dev[0].poll_time_limit);
	assert_int_equal(idle(&fx, 30 * US, &stop), 0);
	assert_false(stop);
	assert_int_equal(window(&fx), 100000);
	fx_fini(&fx);
}

/* A stay beyond guest_halt_poll_ns halves the window, to 0 below grow_start. */
static void test_shrink(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	idle(&fx, 100 * US, NULL);
	poll_then_halt(&fx, 60 * US);
	poll_then_halt(&fx, 150 * US);
	assert_int_equal(window(&fx), 200000);
	poll_then_halt(&fx, 5000 * US);
	assert_int_equal(window(&fx), 100000);
	poll_then_halt(&fx, 5000 * US);
	assert_int_equal(window(&fx), 50000);
	poll_then_halt(&fx, 5000 * US);	/* 25000 < grow_start */
	assert_int_equal(window(&fx), 0);
	/* with no window: halt directly, the window stays 0 */
	assert_int_equal(idle(&fx, 5000 * US, NULL), 1);
	assert_int_equal(window(&fx), 0);
	/* a shrink divisor of 0 empties the window at once */
	idle(&fx, 100 * US, NULL);
	assert_int_equal(window(&fx), 50000);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_shrink"), "0"), 0);
	poll_then_halt(&fx, 5000 * US);
	assert_int_equal(window(&fx), 0);
	fx_fini(&fx);
}

static void test_allow_shrink_off(void **state)
{
	struct fixture fx;

	(void)state;
	setup(&fx);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_allow_shrink"), "N\n"),
			 0);
	assert_string_equal(rd(fx.sys, PARAM("guest_halt_poll_allow_shrink")), "N\n");
	idle(&fx, 100 * US, NULL);
	poll_then_halt(&fx, 60 * US);
	assert_int_equal(window(&fx), 100000);
	poll_then_halt(&fx, 5000 * US);
	assert_int_equal(window(&fx), 100000);
	fx_fini(&fx);
}

/* QoS 0: poll only, the tick kept, and polls never adjust the window. */
static void test_qos_zero_polls_with_tick(void **state)
{
	struct fixture fx;
	bool stop;
	int i;

	(void)state;
	setup(&fx);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 0), 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(idle(&fx, 5000 * US, &stop), 0);
		assert_false(stop);
	}
	/* the polling state derived its own limit and cached it (TICK_NSEC/16) */
	assert_int_equal(window(&fx), (uint64_t)cpuidle_tick_nsec(fx.sys) / 16);
	assert_int_equal(pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t"), 0);
	/*
	 * which then serves as the window, as in the kernel: the poll timed
	 * out, so halt; the long halt shrinks it (the timer1k-haltpoll trace
	 * logs exactly this: "halt_poll_ns 125000 (shrink 250000)")
	 */
	assert_int_equal(idle(&fx, 5000 * US, &stop), 1);
	assert_true(stop);
	assert_int_equal(window(&fx), 125000);
	fx_fini(&fx);
}

/* The tunables: kernel text, validated writes, one set per system. */
static void test_tunables_attr(void **state)
{
	static const struct {
		const char *file, *value;
	} defaults[] = {
		{ "guest_halt_poll_ns", "200000\n" },
		{ "guest_halt_poll_shrink", "2\n" },
		{ "guest_halt_poll_grow", "2\n" },
		{ "guest_halt_poll_grow_start", "50000\n" },
		{ "guest_halt_poll_allow_shrink", "Y\n" },
	};
	struct cpuidle_haltpoll_params p;
	struct fixture fx, other;
	char path[96];
	size_t i;

	(void)state;
	setup(&fx);
	fx_init(&other, fx_haltpoll, FX_ARRAY_SIZE(fx_haltpoll), 1, 0);
	for (i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++) {
		snprintf(path, sizeof(path), "module/haltpoll/parameters/%s", defaults[i].file);
		assert_string_equal(rd(fx.sys, path), defaults[i].value);
	}
	/* uint: kstrtouint(base 0) */
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_ns"), "abc"), -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_ns"), "-1"), -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_ns"), ""), -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_ns"), "12 3"), -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_ns"), "4294967296"),
			 -ERANGE);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_grow"),
					    "99999999999999999999999"), -ERANGE);
	assert_string_equal(rd(fx.sys, PARAM("guest_halt_poll_ns")), "200000\n");
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_grow_start"), "0x10\n"),
			 0);
	assert_string_equal(rd(fx.sys, PARAM("guest_halt_poll_grow_start")), "16\n");
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_ns"), "4294967295"), 0);
	assert_string_equal(rd(fx.sys, PARAM("guest_halt_poll_ns")), "4294967295\n");
	/* bool: kstrtobool */
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_allow_shrink"), "maybe"),
			 -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_allow_shrink"), "2"),
			 -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_allow_shrink"), ""),
			 -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_allow_shrink"), "o"),
			 -EINVAL);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_allow_shrink"), "0"), 0);
	assert_string_equal(rd(fx.sys, PARAM("guest_halt_poll_allow_shrink")), "N\n");
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_allow_shrink"), "on"), 0);
	assert_string_equal(rd(fx.sys, PARAM("guest_halt_poll_allow_shrink")), "Y\n");
	/* the kernel's absolute path; unknown files and modules */
	assert_int_equal(cpuidle_attr_write(fx.sys, "/sys/module/haltpoll/parameters/"
					    "guest_halt_poll_shrink", "3"), 0);
	assert_string_equal(rd(fx.sys, PARAM("guest_halt_poll_shrink")), "3\n");
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("nosuch"), "1"), -ENOENT);
	assert_int_equal(cpuidle_attr_write(fx.sys, "module/nosuch/parameters/x", "1"), -ENOENT);
	assert_int_equal(cpuidle_attr_write(fx.sys, "module/haltpoll/parameters", "1"), -EISDIR);
	/* the API agrees, and the other system kept the defaults */
	assert_int_equal(cpuidle_haltpoll_get_params(fx.sys, &p), 0);
	assert_int_equal(p.guest_halt_poll_ns, 4294967295u);
	assert_int_equal(p.guest_halt_poll_shrink, 3);
	assert_int_equal(p.guest_halt_poll_grow_start, 16);
	assert_true(p.guest_halt_poll_allow_shrink);
	assert_string_equal(rd(other.sys, PARAM("guest_halt_poll_ns")), "200000\n");
	assert_string_equal(rd(other.sys, PARAM("guest_halt_poll_shrink")), "2\n");
	/* set_params takes only the fields named */
	p.guest_halt_poll_grow = 7;
	p.guest_halt_poll_ns = 1;
	assert_int_equal(cpuidle_haltpoll_set_params(other.sys, &p, CPUIDLE_HALTPOLL_GROW), 0);
	assert_string_equal(rd(other.sys, PARAM("guest_halt_poll_grow")), "7\n");
	assert_string_equal(rd(other.sys, PARAM("guest_halt_poll_ns")), "200000\n");
	assert_int_equal(cpuidle_haltpoll_set_params(other.sys, &p, 0x100), -EINVAL);
	assert_int_equal(cpuidle_haltpoll_set_params(NULL, &p, 0), -EINVAL);
	assert_int_equal(cpuidle_haltpoll_get_params(other.sys, NULL), -EINVAL);
	fx_fini(&other);
	fx_fini(&fx);
}

/* guest_halt_poll_ns = 0 (the recording VM's boot setting): halt only. */
static void test_window_zero(void **state)
{
	struct fixture fx;
	int i;

	(void)state;
	setup(&fx);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_ns"), "0"), 0);
	for (i = 0; i < 10; i++) {
		assert_int_equal(idle(&fx, (i % 3 + 1) * 40 * US, NULL), 1);
		assert_int_equal(window(&fx), 0);
	}
	fx_fini(&fx);
}

/*
 * Deviation (DOC block): Linux 6.18 halts in a disabled halt state; here
 * the kernel's halt becomes a poll, which keeps the tick as every poll of
 * haltpoll does and adjusts no window.
 */
static void test_halt_disabled_polls(void **state)
{
	struct fixture fx;
	bool stop;
	int i;

	(void)state;
	setup(&fx);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 1, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(idle(&fx, 5000 * US, &stop), 0);
		assert_false(stop);
	}
	/* the poll derived its own limit (no enabled state to bound it: TICK_NSEC/16) */
	assert_int_equal(window(&fx), (uint64_t)cpuidle_tick_nsec(fx.sys) / 16);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 1, CPUIDLE_STATE_DISABLED_BY_USER,
					       false), 0);
	/* enabled again: the poll timed out, so the kernel's halt, as before */
	assert_int_equal(idle(&fx, 5000 * US, &stop), 1);
	assert_true(stop);
	fx_fini(&fx);
}

/*
 * Deviation: Linux 6.18 polls in a disabled polling state; here the halt
 * is entered instead, the tick as the kernel decided (kept: it meant to
 * poll), and the window learns from that halt.
 */
static void test_poll_disabled_halts(void **state)
{
	struct fixture fx;
	bool stop;

	(void)state;
	setup(&fx);
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 0, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	/* a window of 0: the kernel's own halt, the tick free to stop */
	assert_int_equal(idle(&fx, 100 * US, &stop), 1);
	assert_true(stop);
	assert_int_equal(window(&fx), 50000);
	/* after a halt the kernel polls: halt, tick kept; 60 us > 50 us grows the window */
	assert_int_equal(idle(&fx, 60 * US, &stop), 1);
	assert_false(stop);
	assert_int_equal(window(&fx), 100000);
	/* QoS 0: the kernel's poll, disabled, and no enabled state meets 0: state 0 */
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 0), 0);
	assert_int_equal(idle(&fx, 60 * US, &stop), 0);
	assert_false(stop);
	assert_int_equal(pm_qos_remove_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t"), 0);
	/* both disabled: the kernel's halt, disabled, gives state 0, the last resort */
	assert_int_equal(cpuidle_disable_state(&fx.dev[0], 1, CPUIDLE_STATE_DISABLED_BY_USER,
					       true), 0);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_ns"), "0"), 0);
	assert_int_equal(cpuidle_attr_write(fx.sys, PARAM("guest_halt_poll_shrink"), "0"), 0);
	fx.dev[0].poll_limit_ns = 0;
	assert_int_equal(idle(&fx, 60 * US, &stop), 0);
	fx_fini(&fx);
}

/*
 * Deviation: on a driver whose state 1 is slower than cpuidle-haltpoll's
 * 1 us halt, Linux 6.18 takes state 1 under a QoS limit only POLL meets;
 * here POLL, keeping the tick.  A limit the halt meets changes nothing.
 */
static void test_qos_below_state1_polls(void **state)
{
	static const struct fx_state_desc st[] = {
		{ "POLL", 0, 0, -1, CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_POLLING },
		{ "C1", 2, 2, 1000, CPUIDLE_FLAG_TIME_VALID },
		{ "C6", 85, 200, 50, CPUIDLE_FLAG_TIME_VALID },
	};
	struct fixture fx;
	bool stop;

	(void)state;
	fx_init(&fx, st, FX_ARRAY_SIZE(st), 1, 0);
	assert_int_equal(cpuidle_switch_governor(fx.sys, "haltpoll"), 0);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 1), 0);
	/* window 0: the kernel halts in C1 (2 us > 1 us) */
	assert_int_equal(idle(&fx, 100 * US, &stop), 0);
	assert_false(stop);
	assert_int_equal(pm_qos_update_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 2), 0);
	fx.dev[0].poll_limit_ns = 0;
	assert_int_equal(idle(&fx, 100 * US, &stop), 1);
	assert_true(stop);
	fx_fini(&fx);

	/* the haltpoll driver: its 1 us halt meets a 1 us limit, as in the kernel */
	setup(&fx);
	assert_int_equal(pm_qos_add_requirement(fx.sys, PM_QOS_CPU_DMA_LATENCY, "t", 1), 0);
	assert_int_equal(idle(&fx, 100 * US, &stop), 1);
	assert_true(stop);
	assert_int_equal(window(&fx), 50000);
	fx_fini(&fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rating_and_registration),
		cmocka_unit_test(test_grow_from_grow_start),
		cmocka_unit_test(test_doubling_and_cap),
		cmocka_unit_test(test_no_adjustment),
		cmocka_unit_test(test_shrink),
		cmocka_unit_test(test_allow_shrink_off),
		cmocka_unit_test(test_qos_zero_polls_with_tick),
		cmocka_unit_test(test_tunables_attr),
		cmocka_unit_test(test_window_zero),
		cmocka_unit_test(test_halt_disabled_polls),
		cmocka_unit_test(test_poll_disabled_halts),
		cmocka_unit_test(test_qos_below_state1_polls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
