// SPDX-License-Identifier: MIT
/*
 * test_platform.c - platform files (parser, loader, bundled platforms) and
 * the table driver.
 *
 * Every parse goes through a heap buffer of exactly the text's length, so
 * the address sanitizer catches any read past @len.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"

#define FILENAME "t.platform"

static char err[512];

/* Parse the first @len bytes of @text from an exact-size heap copy. */
static int parse_n(const char *text, size_t len, struct cpuidle_platform *p)
{
	char *buf = malloc(len ? len : 1);
	int ret;

	assert_non_null(buf);
	memcpy(buf, text, len);
	memset(err, 'X', sizeof(err));
	ret = cpuidle_platform_parse(buf, len, FILENAME, p, err, sizeof(err));
	free(buf);
	return ret;
}

static int parse(const char *text, struct cpuidle_platform *p)
{
	return parse_n(text, strlen(text), p);
}

static void assert_state(const struct cpuidle_platform_state *s, const char *name,
			 const char *desc, int64_t lat_ns, int64_t res_ns, int power_mw,
			 unsigned int flags)
{
	assert_string_equal(s->name, name);
	assert_string_equal(s->desc, desc);
	assert_int_equal(s->exit_latency_ns, lat_ns);
	assert_int_equal(s->target_residency_ns, res_ns);
	assert_int_equal(s->power_mw, power_mw);
	assert_int_equal(s->flags, flags);
}

static void assert_energy(const struct cpuidle_platform_state *s, int model_power_mw,
			  int64_t entry_nj, int64_t exit_nj, int cluster_power_mw)
{
	assert_int_equal(s->model_power_mw, model_power_mw);
	assert_int_equal(s->entry_energy_nj, entry_nj);
	assert_int_equal(s->exit_energy_nj, exit_nj);
	assert_int_equal(s->cluster_power_mw, cluster_power_mw);
}

/* One implicit cluster "all" that holds the top-level table. */
static void assert_implicit_cluster(const struct cpuidle_platform *p)
{
	const struct cpuidle_platform_cluster *cl = &p->clusters[0];
	unsigned int cpu;

	assert_int_equal(p->nr_clusters, 1);
	assert_string_equal(cl->name, "all");
	assert_int_equal(cl->nr_cpus, p->nr_cpus);
	assert_int_equal(cl->active_power_mw, p->active_power_mw);
	assert_int_equal(cl->idle_power_mw, 0);
	assert_int_equal(cl->state_count, p->state_count);
	assert_memory_equal(cl->states, p->states, sizeof(p->states));
	for (cpu = 0; cpu < CPUIDLE_MAX_CPUS; cpu++)
		assert_int_equal(cpuidle_platform_cluster_has_cpu(cl, cpu),
				 !p->nr_cpus || cpu < p->nr_cpus);
}

/* ---------------------------------------------------------------- bundled */

static void test_builtin_names(void **state)
{
	static const char *const expect[] = {
		"epyc7502", "haltpoll-vm", "juno-r2", "laptop", "skylake", "spr",
	};
	const char *const *names = cpuidle_platform_builtin_names();
	bool found[FX_ARRAY_SIZE(expect)] = { false };
	const char *text;
	size_t len = 0, k;
	int i;

	(void)state;
	assert_non_null(names);
	for (i = 0; names[i]; i++) {
		for (k = 0; k < FX_ARRAY_SIZE(expect); k++)
			found[k] |= !strcmp(names[i], expect[k]);
		text = cpuidle_platform_builtin_text(names[i], &len);
		assert_non_null(text);
		assert_true(len > 0);
	}
	for (k = 0; k < FX_ARRAY_SIZE(expect); k++)
		if (!found[k])
			fail_msg("bundled platform '%s' missing", expect[k]);

	errno = 0;
	assert_null(cpuidle_platform_builtin_text("no-such-platform", &len));
	assert_int_equal(errno, ENOENT);
	assert_null(cpuidle_platform_builtin_text("laptop.platform", &len));
	assert_null(cpuidle_platform_builtin_text("", &len));
	assert_null(cpuidle_platform_builtin_text(NULL, &len));
	assert_non_null(cpuidle_platform_builtin_text("laptop", NULL));
}

static void check_laptop(const struct cpuidle_platform *p)
{
	const unsigned int tv = CPUIDLE_FLAG_TIME_VALID;

	assert_string_equal(p->name, "laptop");
	assert_string_equal(p->desc, "The LWN cpuidle article's laptop: ACPI C1/C2/C3");
	assert_int_equal(p->tick_hz, 0);
	assert_int_equal(p->state_count, 3);
	assert_state(&p->states[0], "C1", "processor clock off", 1000, 2000, 1000,
		     tv | CPUIDLE_FLAG_SHALLOW);
	assert_state(&p->states[1], "C2", "other clocks off too", 1000, 2000, 500,
		     tv | CPUIDLE_FLAG_BALANCED);
	assert_state(&p->states[2], "C3", "parts of the CPU powered down", 57000, 114000, 100,
		     tv | CPUIDLE_FLAG_DEEP | CPUIDLE_FLAG_CHECK_BM);
	/* the energy model: active power added, states as the article has them */
	assert_int_equal(p->active_power_mw, 4000);
	assert_int_equal(p->nr_cpus, 0);
	assert_implicit_cluster(p);
	assert_energy(&p->states[0], 1000, 0, 0, CPUIDLE_POWER_UNKNOWN);
	assert_energy(&p->states[1], 500, 0, 0, CPUIDLE_POWER_UNKNOWN);
	assert_energy(&p->states[2], 100, 0, 0, CPUIDLE_POWER_UNKNOWN);
}

static void check_haltpoll_vm(const struct cpuidle_platform *p)
{
	assert_string_equal(p->name, "haltpoll-vm");
	assert_int_equal(p->tick_hz, 250);
	assert_int_equal(p->state_count, 2);
	assert_state(&p->states[0], "POLL", "CPUIDLE CORE POLL IDLE", 0, 0,
		     CPUIDLE_POWER_UNKNOWN, CPUIDLE_FLAG_POLLING | CPUIDLE_FLAG_TIME_VALID);
	assert_state(&p->states[1], "haltpoll idle", "default architecture idle", 1000, 1000,
		     CPUIDLE_POWER_UNKNOWN, CPUIDLE_FLAG_TIME_VALID);
	/* sysfs says unknown; the energy model has estimates */
	assert_int_equal(p->nr_cpus, 2);
	assert_int_equal(p->active_power_mw, 2000);
	assert_implicit_cluster(p);
	assert_energy(&p->states[0], 2000, 0, 0, CPUIDLE_POWER_UNKNOWN);
	assert_energy(&p->states[1], 200, 4000, 4000, CPUIDLE_POWER_UNKNOWN);
}

/* The unit tests' hand-written tables (fixture.h) agree with the files. */
static void check_like_fixture(const struct cpuidle_platform *p,
			       const struct fx_state_desc *fx, int n)
{
	int i;

	assert_int_equal(p->state_count, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(p->states[i].name, fx[i].name);
		assert_int_equal(p->states[i].exit_latency_ns, fx[i].exit_us * 1000LL);
		assert_int_equal(p->states[i].target_residency_ns, fx[i].residency_us * 1000LL);
		assert_int_equal(p->states[i].power_mw, fx[i].power_mw);
		assert_int_equal(p->states[i].flags, fx[i].flags);
	}
}

static void test_laptop_exact(void **state)
{
	struct cpuidle_platform p;
	const char *text;
	size_t len;

	(void)state;
	assert_int_equal(cpuidle_platform_load("laptop", &p, err, sizeof(err)), 0);
	check_laptop(&p);
	text = cpuidle_platform_builtin_text("laptop", &len);
	assert_int_equal(parse_n(text, len, &p), 0);
	check_laptop(&p);
	check_like_fixture(&p, fx_laptop, FX_ARRAY_SIZE(fx_laptop));
}

static void test_haltpoll_vm_exact(void **state)
{
	struct cpuidle_platform p;

	(void)state;
	assert_int_equal(cpuidle_platform_load("haltpoll-vm", &p, err, sizeof(err)), 0);
	check_haltpoll_vm(&p);
	check_like_fixture(&p, fx_haltpoll, FX_ARRAY_SIZE(fx_haltpoll));
}

static void test_juno_r2_exact(void **state)
{
	const unsigned int ts = CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_TIMER_STOP;
	const struct cpuidle_platform_cluster *big, *little;
	struct cpuidle_platform p;
	unsigned int cpu;

	(void)state;
	assert_int_equal(cpuidle_platform_load("juno-r2", &p, err, sizeof(err)), 0);
	assert_string_equal(p.name, "juno-r2");
	assert_int_equal(p.tick_hz, 250);
	assert_int_equal(p.nr_cpus, 6);
	assert_int_equal(p.active_power_mw, CPUIDLE_POWER_UNKNOWN);
	assert_int_equal(p.nr_clusters, 2);
	big = &p.clusters[0];
	little = &p.clusters[1];

	assert_string_equal(big->name, "big");
	assert_int_equal(big->nr_cpus, 2);
	assert_int_equal(big->active_power_mw, 583);
	assert_int_equal(big->idle_power_mw, 65);
	assert_int_equal(big->state_count, 3);
	assert_state(&big->states[0], "WFI", "ARM WFI", 1000, 1000, CPUIDLE_POWER_UNKNOWN,
		     CPUIDLE_FLAG_TIME_VALID);
	assert_energy(&big->states[0], 15, 0, 0, CPUIDLE_POWER_UNKNOWN);
	assert_state(&big->states[1], "cpu-sleep-0", "cpu-sleep-0", 1500000, 2000000, 0, ts);
	assert_energy(&big->states[1], 0, 6000, 24000, CPUIDLE_POWER_UNKNOWN);
	assert_state(&big->states[2], "cluster-sleep-0", "cluster-sleep-0", 1600000, 2500000,
		     0, ts);
	assert_energy(&big->states[2], 0, 20313, 60937, 24);

	assert_string_equal(little->name, "LITTLE");
	assert_int_equal(little->nr_cpus, 4);
	assert_int_equal(little->active_power_mw, 119);
	assert_int_equal(little->idle_power_mw, 56);
	assert_int_equal(little->state_count, 3);
	assert_state(&little->states[0], "WFI", "ARM WFI", 1000, 1000, CPUIDLE_POWER_UNKNOWN,
		     CPUIDLE_FLAG_TIME_VALID);
	assert_energy(&little->states[0], 6, 0, 0, CPUIDLE_POWER_UNKNOWN);
	assert_state(&little->states[1], "cpu-sleep-0", "cpu-sleep-0", 1500000, 2000000, 0,
		     ts);
	assert_energy(&little->states[1], 0, 2400, 9600, CPUIDLE_POWER_UNKNOWN);
	assert_state(&little->states[2], "cluster-sleep-0", "cluster-sleep-0", 1600000,
		     2500000, 0, ts);
	assert_energy(&little->states[2], 0, 9094, 27281, 17);

	/* CPUs 1-2 big, 0 and 3-5 LITTLE (Linux's CPU 0 is the boot CPU, an A53), nothing beyond */
	for (cpu = 0; cpu < 6; cpu++)
		assert_int_equal(cpuidle_platform_cluster_of(&p, cpu), cpu == 1 || cpu == 2 ? 0 : 1);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 6), -ENOENT);
	/* a cluster-sleep request with a sibling awake is a cpu-sleep */
	assert_int_equal(cpuidle_platform_domain_fallback(big), 1);
	assert_int_equal(cpuidle_platform_domain_fallback(little), 1);
	/* the top-level table is cluster 0's */
	assert_int_equal(p.state_count, 3);
	assert_memory_equal(p.states, big->states, sizeof(p.states));
}

static void test_skylake_exact(void **state)
{
	const struct cpuidle_platform_cluster *pkg;
	struct cpuidle_platform p;
	int i;

	(void)state;
	assert_int_equal(cpuidle_platform_load("skylake", &p, err, sizeof(err)), 0);
	assert_int_equal(p.tick_hz, 1000);
	assert_int_equal(p.nr_cpus, 4);
	assert_int_equal(p.active_power_mw, 2500);
	assert_int_equal(p.nr_clusters, 1);
	pkg = &p.clusters[0];
	assert_string_equal(pkg->name, "package");
	assert_int_equal(pkg->nr_cpus, 4);
	assert_int_equal(pkg->active_power_mw, 2500);
	assert_int_equal(pkg->idle_power_mw, 2000);
	assert_int_equal(p.state_count, 9);
	assert_state(&p.states[0], "POLL", "CPUIDLE CORE POLL IDLE", 0, 0,
		     CPUIDLE_POWER_UNKNOWN, CPUIDLE_FLAG_POLLING | CPUIDLE_FLAG_TIME_VALID);
	assert_energy(&p.states[0], 2500, 0, 0, CPUIDLE_POWER_UNKNOWN);
	assert_state(&p.states[7], "C9", "MWAIT 0x50", 480000, 5000000, 0,
		     CPUIDLE_FLAG_TIME_VALID);
	assert_energy(&p.states[7], 0, 307900, 307900, 200);
	/* C7s..C10 are the package's domain states; C6 is where they fall */
	for (i = 0; i < p.state_count; i++)
		assert_int_equal(cpuidle_platform_state_is_domain(&p.states[i]), i >= 5);
	assert_string_equal(p.states[cpuidle_platform_domain_fallback(pkg)].name, "C6");
}

static void test_spr_exact(void **state)
{
	struct cpuidle_platform p;

	(void)state;
	assert_int_equal(cpuidle_platform_load("spr", &p, err, sizeof(err)), 0);
	assert_int_equal(p.tick_hz, 1000);
	assert_int_equal(p.nr_cpus, 0);
	assert_int_equal(p.active_power_mw, 2100);
	assert_implicit_cluster(&p);
	assert_int_equal(p.state_count, 4);
	assert_state(&p.states[2], "C1E", "MWAIT 0x01", 2000, 4000, 0, CPUIDLE_FLAG_TIME_VALID);
	assert_energy(&p.states[2], 200, 1400, 1400, CPUIDLE_POWER_UNKNOWN);
	assert_state(&p.states[3], "C6", "MWAIT 0x20", 290000, 800000, 0,
		     CPUIDLE_FLAG_TIME_VALID);
	assert_energy(&p.states[3], 0, 81400, 81400, CPUIDLE_POWER_UNKNOWN);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 4095), 0);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 4096), -ENOENT);
}

/* The embedded text is the file, byte for byte; the file loads the same. */
static void test_bundled_match_files(void **state)
{
	const char *const *names = cpuidle_platform_builtin_names();
	char path[4096], *buf;
	const char *text;
	size_t len;
	FILE *f;
	int i;

	(void)state;
	for (i = 0; names[i]; i++) {
		struct cpuidle_platform a, b;

		snprintf(path, sizeof(path), "%s/platforms/%s.platform", SRCDIR, names[i]);
		text = cpuidle_platform_builtin_text(names[i], &len);
		buf = malloc(len + 1);
		assert_non_null(buf);
		f = fopen(path, "rb");
		assert_non_null(f);
		assert_int_equal(fread(buf, 1, len + 1, f), len);
		fclose(f);
		assert_memory_equal(buf, text, len);
		free(buf);

		assert_int_equal(cpuidle_platform_load(path, &a, err, sizeof(err)), 0);
		assert_int_equal(cpuidle_platform_load(names[i], &b, err, sizeof(err)), 0);
		assert_memory_equal(&a, &b, sizeof(a));
	}
}

/* ---------------------------------------------------------------- syntax */

static void test_valid_syntax(void **state)
{
	static const char text[] =
		"# leading comment\r\n"
		"\n"
		"   \t  # indented comment\n"
		"platform\t\"my \\\"quoted\\\" box\"   # trailing comment\n"
		"desc \"a # inside quotes is no comment\"\n"
		"tick_hz 1000\n"
		"state POLL latency_ns=0 residency_ns=0 flags=poll\n"
		"state \"C1 half\" desc=\"back\\\\slash\" latency_us=0.5 residency_us=0.75 "
		"power_mw=0 flags=time-valid,timer-stop,unusable,off,shallow\r\n"
		"state C1E residency_us=1.250 latency_us=1 power_mw=2147483647 desc=bare "
		"flags=balanced,deep,check-bm\n"
		"state 123456789012345 latency_ns=4294967295000 residency_us=4294967295.000";
	struct cpuidle_platform p;

	(void)state;
	assert_int_equal(parse(text, &p), 0);
	assert_string_equal(err, "");
	assert_string_equal(p.name, "my \"quoted\" box");
	assert_string_equal(p.desc, "a # inside quotes is no comment");
	assert_int_equal(p.tick_hz, 1000);
	assert_int_equal(p.state_count, 4);
	assert_state(&p.states[0], "POLL", "", 0, 0, CPUIDLE_POWER_UNKNOWN, CPUIDLE_FLAG_POLL);
	assert_state(&p.states[1], "C1 half", "back\\slash", 500, 750, 0,
		     CPUIDLE_FLAG_TIME_VALID | CPUIDLE_FLAG_TIMER_STOP | CPUIDLE_FLAG_UNUSABLE |
		     CPUIDLE_FLAG_OFF | CPUIDLE_FLAG_SHALLOW);
	assert_state(&p.states[2], "C1E", "bare", 1000, 1250, 2147483647,
		     CPUIDLE_FLAG_BALANCED | CPUIDLE_FLAG_DEEP | CPUIDLE_FLAG_CHECK_BM);
	assert_state(&p.states[3], "123456789012345", "", 4294967295000LL, 4294967295000LL,
		     CPUIDLE_POWER_UNKNOWN, 0);
}

static void test_longest_fields(void **state)
{
	char name[CPUIDLE_PLATFORM_NAME_LEN], desc[CPUIDLE_PLATFORM_DESC_LEN];
	char sdesc[CPUIDLE_DESC_LEN], text[1024];
	struct cpuidle_platform p;

	(void)state;
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memset(desc, 'd', sizeof(desc) - 1);
	desc[sizeof(desc) - 1] = '\0';
	memset(sdesc, 's', sizeof(sdesc) - 1);
	sdesc[sizeof(sdesc) - 1] = '\0';
	snprintf(text, sizeof(text),
		 "platform %s\ndesc \"%s\"\nstate ABCDEFGHIJKLMNO desc=\"%s\" latency_us=1 "
		 "residency_us=1\n", name, desc, sdesc);
	assert_int_equal(parse(text, &p), 0);
	assert_string_equal(p.name, name);
	assert_string_equal(p.desc, desc);
	assert_string_equal(p.states[0].name, "ABCDEFGHIJKLMNO");
	assert_string_equal(p.states[0].desc, sdesc);
}

/* No line-length limit: a 200 kB comment line and a 200 kB blank line. */
static void test_long_lines(void **state)
{
	const size_t n = 200000;
	struct cpuidle_platform p;
	char *text = malloc(2 * n + 100), *q = text;

	(void)state;
	assert_non_null(text);
	*q++ = '#';
	memset(q, 'c', n);
	q += n;
	*q++ = '\n';
	memset(q, ' ', n);
	q += n;
	q += sprintf(q, "\nplatform x\nstate C1 latency_us=1 residency_us=1\n");
	assert_int_equal(parse_n(text, (size_t)(q - text), &p), 0);
	assert_int_equal(p.state_count, 1);

	/* a long value is an error, not a truncation */
	q = text + sprintf(text, "platform x\nstate C1 desc=\"");
	memset(q, 'd', n);
	q += n;
	q += sprintf(q, "\" latency_us=1 residency_us=1\n");
	assert_int_equal(parse_n(text, (size_t)(q - text), &p), -EINVAL);
	assert_non_null(strstr(err, FILENAME ":2: "));
	assert_non_null(strstr(err, "too long"));
	free(text);
}

/* ---------------------------------------------------------------- errors */

struct bad_case {
	const char *text;
	unsigned int line;
	const char *what;	/* a substring of the message */
};

#define H "platform t\n"
#define S1 "state C1 latency_us=1 residency_us=2\n"
#define OK "latency_us=1 residency_us=2"

static const struct bad_case bad_cases[] = {
	/* keys */
	{ H "state C1 " OK " foo=1\n", 2, "unknown key 'foo'" },
	{ H "state C1 " OK " entry_energy_nj=5\n", 2, "unknown key 'entry_energy_nj'" },
	{ H "state C1 " OK " latency_us=1\n", 2, "duplicate key latency_us" },
	{ H "state C1 " OK " latency_ns=1000\n", 2, "duplicate key latency_ns" },
	{ H "state C1 " OK " residency_ns=1000\n", 2, "duplicate key residency_ns" },
	{ H "state C1 " OK " desc=a desc=b\n", 2, "duplicate key desc" },
	{ H "state C1 " OK " power_mw=1 power_mw=2\n", 2, "duplicate key power_mw" },
	{ H "state C1 " OK " flags=deep flags=deep\n", 2, "duplicate key flags" },
	{ H "state C1 residency_us=2\n", 2, "missing latency" },
	{ H "state C1 latency_us=2\n", 2, "missing residency" },
	{ H "state C1 " OK " latency\n", 2, "expected KEY=VALUE" },
	{ H "state C1 " OK " =5\n", 2, "'=' without a key" },
	{ H "state C1 " OK " desc=\n", 2, "empty value for desc" },
	{ H "state C1 latency_us= residency_us=2\n", 2, "empty value for latency_us" },
	{ H "state C1 latency_us=1#residency_us=2\n", 2, "missing residency" },
	/* numbers */
	{ H "state C1 latency_us=57x residency_us=2\n", 2, "'57x' is not a number" },
	{ H "state C1 latency_us=5 7 residency_us=2\n", 2, "expected KEY=VALUE" },
	{ H "state C1 latency_us=-1 residency_us=2\n", 2, "not a number" },
	{ H "state C1 latency_us=+1 residency_us=2\n", 2, "not a number" },
	{ H "state C1 latency_us=1. residency_us=2\n", 2, "not a number" },
	{ H "state C1 latency_us=.5 residency_us=2\n", 2, "not a number" },
	{ H "state C1 latency_us=1.5.1 residency_us=2\n", 2, "not a number" },
	{ H "state C1 latency_us=1e3 residency_us=2\n", 2, "not a number" },
	{ H "state C1 latency_us=0x10 residency_us=2\n", 2, "not a number" },
	{ H "state C1 latency_us=0.0001 residency_us=2\n", 2, "finer than 1 ns" },
	{ H "state C1 latency_ns=1.5 residency_us=2\n", 2, "whole number of ns" },
	{ H "state C1 latency_us=4294967296 residency_us=2\n", 2, "out of range" },
	{ H "state C1 latency_us=4294967295.001 residency_us=4294967296\n", 2, "out of range" },
	{ H "state C1 latency_ns=4294967295001 residency_us=2\n", 2, "out of range" },
	{ H "state C1 latency_us=1 residency_us=99999999999999999999999999\n", 2,
	  "out of range" },
	{ H "state C1 " OK " power_mw=2147483648\n", 2, "out of range" },
	{ H "state C1 " OK " power_mw=-1\n", 2, "nor 'unknown'" },
	{ H "state C1 " OK " power_mw=12mW\n", 2, "nor 'unknown'" },
	{ H "state C1 " OK " power_mw=Unknown\n", 2, "nor 'unknown'" },
	{ H "tick_hz 0\n" S1, 2, "tick_hz" },
	{ H "tick_hz 10001\n" S1, 2, "out of range" },
	{ H "tick_hz 250Hz\n" S1, 2, "not a whole number" },
	{ H "tick_hz\n" S1, 2, "tick_hz without" },
	{ H "tick_hz 250 1000\n" S1, 2, "junk after" },
	/* flags */
	{ H "state C1 " OK " flags=sleepy\n", 2, "unknown flag 'sleepy'" },
	{ H "state C1 " OK " flags=deep,,shallow\n", 2, "empty flag" },
	{ H "state C1 " OK " flags=deep,\n", 2, "empty flag" },
	{ H "state C1 " OK " flags=poll,polling\n", 2, "given twice" },
	{ H "state C1 " OK " flags=DEEP\n", 2, "unknown flag" },
	{ H "state C3 " OK " flags=check-bm\n", 2, "check-bm on the first state" },
	/* lengths */
	{ H "state ABCDEFGHIJKLMNOP " OK "\n", 2, "state name too long (at most 15" },
	{ H "state C1 " OK " desc=\"0123456789012345678901234567890X\"\n", 2,
	  "state desc too long (at most 31" },
	{ "platform 0123456789012345678901234567890123456789012345678901234567890123\n" S1,
	  1, "platform name too long (at most 63" },
	{ H "desc \"0123456789012345678901234567890123456789012345678901234567890123456789"
	  "0123456789012345678901234567890123456789012345678901234567890123456789"
	  "0123456789012345678901234567890123456789012345678901234567890123456789"
	  "0123456789012345678901234567890123456789012345X\"\n" S1, 2,
	  "platform desc too long (at most 255" },
	{ H "state \"\" " OK "\n", 2, "empty state name" },
	{ "platform \"\"\n" S1, 1, "empty platform name" },
	/* quoting */
	{ H "state \"C1 " OK "\n", 2, "unterminated quote" },
	{ H "state C1 " OK " desc=\"abc\n", 2, "unterminated quote" },
	{ H "state C1 " OK " desc=\"abc\\\"\n", 2, "unterminated quote" },
	{ H "state C1 " OK " desc=\"abc\\\n", 2, "unterminated quote" },
	{ H "desc \"oops\n" S1, 2, "unterminated quote" },
	{ H "state C1 " OK " desc=\"a\"b\n", 2, "junk after the closing quote" },
	{ H "state C1 " OK " desc=a\"b\"\n", 2, "stray quote" },
	{ H "state C1 " OK " desc=\"a\\tb\"\n", 2, "unknown escape" },
	{ H "desc two words\n" S1, 2, "junk after platform desc" },
	{ "platform two words\n" S1, 1, "junk after platform name" },
	/* structure */
	{ H "state\n", 2, "state without a name" },
	{ H "state latency_us=1 residency_us=1\n", 2, "unexpected '=' in state name" },
	{ H S1 "state C1 latency_us=2 residency_us=3\n", 3, "state 'C1' given twice" },
	{ H S1 "platform u\n", 3, "second 'platform' line (the first is line 1)" },
	{ H "desc a\n" S1 "desc b\n", 4, "second 'desc' line" },
	{ H "tick_hz 100\ntick_hz 100\n" S1, 3, "second 'tick_hz' line" },
	{ H S1 "stat C2 " OK "\n", 3, "unknown keyword 'stat'" },
	{ H S1 "State C2 " OK "\n", 3, "unknown keyword" },
	{ H S1 "\"state\" C2 " OK "\n", 3, "unknown keyword" },
	{ S1 H, 1, "expected 'platform NAME' first, got 'state'" },
	{ "# just a comment\n\ndesc x\n" H S1, 3, "expected 'platform NAME' first" },
	{ "", 1, "no 'platform NAME' line" },
	{ "# nothing\n# here\n", 2, "no 'platform NAME' line" },
	{ "platform\n", 1, "platform without platform name" },
	{ "# c\n" H "desc \"no states\"\n", 2, "platform 't' has no 'state' line" },
	{ H "state C1 latency_us=2 residency_us=2\nstate C2 latency_us=1 residency_us=3\n", 3,
	  "exit latency 1 us is below that of the previous state 'C1' (2 us)" },
	{ H "state C1 latency_us=2 residency_us=2\nstate C2 latency_us=2 residency_us=1.5\n", 3,
	  "target residency 1500 ns is below that of the previous state 'C1' (2 us)" },
	{ H S1 "\r\n", 3, NULL },	/* see below: no error */
	/* bytes */
	{ H "state C1 " OK " desc=\"a\x01\"\n", 2, "control character 0x01" },
	{ H "state C1 " OK "\rflags=deep\n", 2, "control character 0x0d" },
	{ H "# comment \x7f\n" S1, 2, "control character 0x7f" },
	/* energy keys */
	{ H "state C1 " OK " entry_energy_uj=1e3\n", 2, "'1e3' is not a number of uJ" },
	{ H "state C1 " OK " entry_energy_uj=-1\n", 2, "not a number of uJ" },
	{ H "state C1 " OK " exit_energy_uj=.5\n", 2, "not a number of uJ" },
	{ H "state C1 " OK " exit_energy_uj=0.0001\n", 2, "exit_energy_uj: 0.0001 is finer "
	  "than 1 nJ" },
	{ H "state C1 " OK " entry_energy_uj=4294967296\n", 2, "out of range (at most "
	  "4294967295 uJ)" },
	{ H "state C1 " OK " entry_energy_uj=4294967295.001\n", 2, "out of range" },
	{ H "state C1 " OK " exit_energy_uj=1 exit_energy_uj=1\n", 2,
	  "duplicate key exit_energy_uj" },
	{ H "state C1 " OK " entry_energy_uj=\n", 2, "empty value for entry_energy_uj" },
	{ H "state C1 " OK " model_power_mw=x\n", 2, "model_power_mw: 'x' is neither a whole "
	  "number of mW nor 'unknown'" },
	{ H "state C1 " OK " model_power_mw=2147483648\n", 2, "out of range" },
	{ H "state C1 " OK " model_power_mw=1 model_power_mw=2\n", 2, "duplicate key "
	  "model_power_mw" },
	/* domain states */
	{ H S1 "state C2 " OK " cluster_power_mw=unknown\n", 3, "cluster_power_mw: 'unknown' is "
	  "not a whole number" },
	{ H S1 "state C2 " OK " cluster_power_mw=-3\n", 3, "not a whole number" },
	{ H "state C1 " OK " cluster_power_mw=5\n", 2, "state 'C1': cluster_power_mw= on the "
	  "first state" },
	{ H S1 "state C2 " OK " cluster_power_mw=5\nstate C3 " OK "\n", 4, "state 'C3': an "
	  "ordinary state after the domain state 'C2'" },
	/* header lines */
	{ H "cpus 0\n" S1, 2, "cpus: must be 1 to 4096" },
	{ H "cpus 4097\n" S1, 2, "cpus: 4097 is out of range (at most 4096)" },
	{ H "cpus two\n" S1, 2, "cpus: 'two' is not a whole number" },
	{ H "cpus\n" S1, 2, "cpus without number of CPUs" },
	{ H "cpus 2\ncpus 2\n" S1, 3, "second 'cpus' line (the first is line 2)" },
	{ H "active_power_mw 12mW\n" S1, 2, "active_power_mw: '12mW' is neither" },
	{ H "active_power_mw 1 2\n" S1, 2, "junk after active power" },
	{ H "active_power_mw 1\nactive_power_mw 1\n" S1, 3, "second 'active_power_mw' line" },
	/* cluster lines */
	{ H "cluster\n" S1, 2, "cluster without a name" },
	{ H "cluster a\n" S1, 2, "cluster 'a': missing cpus=" },
	{ H "cluster \"\" cpus=0\n" S1, 2, "empty cluster name" },
	{ H "cluster 0123456789012345678901234567890X cpus=0\n" S1, 2,
	  "cluster name too long (at most 31" },
	{ H "cluster a cpus=0 cpu=1\n" S1, 2, "cluster 'a': unknown key 'cpu' (known: cpus, "
	  "active_power_mw, idle_power_mw)" },
	{ H "cluster a cpus=0 cpus=1\n" S1, 2, "cluster 'a': duplicate key cpus" },
	{ H "cluster a cpus=0 idle_power_mw=1 idle_power_mw=1\n" S1, 2, "duplicate key "
	  "idle_power_mw" },
	{ H "cluster a cpus=0 idle_power_mw=unknown\n" S1, 2, "idle_power_mw: 'unknown' is "
	  "not a whole number" },
	{ H "cluster a cpus=0 active_power_mw=unknown\n" S1, 2, "active_power_mw: 'unknown' is "
	  "not a whole number" },
	{ H "cluster a cpus=0 active_power_mw=2147483648\n" S1, 2, "out of range" },
	{ H "cluster a cpus\n" S1, 2, "cluster 'a': expected KEY=VALUE, got 'cpus'" },
	{ H "cluster a cpus=\n" S1, 2, "cluster 'a': empty value for cpus" },
	{ H "cluster a =1\n" S1, 2, "cluster 'a': '=' without a key" },
	{ H "cluster a cpus=0,,1\n" S1, 2, "cluster 'a': cpus: empty item in '0,,1'" },
	{ H "cluster a cpus=0,\n" S1, 2, "cpus: empty item" },
	{ H "cluster a cpus=1-\n" S1, 2, "cpus: '1-' is neither a CPU number nor a range" },
	{ H "cluster a cpus=-1\n" S1, 2, "cpus: '-1' is neither" },
	{ H "cluster a cpus=1-2-3\n" S1, 2, "cpus: '1-2-3' is neither" },
	{ H "cluster a cpus=x\n" S1, 2, "cpus: 'x' is neither" },
	{ H "cluster a cpus=3-1\n" S1, 2, "cpus: range '3-1' runs backwards" },
	{ H "cluster a cpus=4096\n" S1, 2, "cpus: '4096' is out of range (CPUs are 0 to 4095)" },
	{ H "cluster a cpus=0-99999999999999999999\n" S1, 2, "out of range" },
	{ H "cluster a cpus=0-2,1\n" S1, 2, "cluster 'a': cpus: CPU 1 given twice" },
	{ H "cluster a cpus=0-1\n" S1 "cluster b cpus=2,1\n" S1, 4, "cluster 'b': CPU 1 is "
	  "already in cluster 'a' (line 2)" },
	{ H "cluster a cpus=0\n" S1 "cluster a cpus=1\n" S1, 4, "cluster 'a' given twice (the "
	  "first is line 2)" },
	{ H S1 "cluster a cpus=0\n" S1, 3, "cluster line after states that belong to no "
	  "cluster (line 2)" },
	{ H "cluster a cpus=0\ncluster b cpus=1\n" S1, 2, "cluster 'a' has no 'state' line" },
	{ H "cluster a cpus=0\n" S1 "cluster b cpus=1\n", 4, "cluster 'b' has no 'state' line" },
	{ H "cluster a cpus=0\n" S1 S1, 4, "state 'C1' given twice" },
	{ H "cpus 4\ncluster a cpus=0-1\n" S1 "cluster b cpus=3\n" S1, 2,
	  "CPU 2 is in no cluster (every CPU below cpus 4 must be in one)" },
	{ H "cpus 2\ncluster a cpus=0-1\n" S1 "cluster b cpus=2\n" S1, 5,
	  "cluster 'b': CPU 2, but the platform has 2 CPUs (cpus, line 2)" },
	{ H "cluster a cpus=0-1\n" S1 "cluster b cpus=2-3\n" S1 "cpus 3\n", 4,
	  "cluster 'b': CPU 3, but the platform has 3 CPUs (cpus, line 6)" },
	{ H "cluster a cpus=0,3\n" S1 "cluster b cpus=2\n" S1, 2,
	  "CPU 1 is in no cluster (without a 'cpus' line the clusters must cover CPUs 0 to 3" },
	{ H "cluster a cpus=1\n" S1, 2, "CPU 0 is in no cluster" },
};

static void check_bad(const struct bad_case *bc, size_t len)
{
	struct cpuidle_platform p;
	char prefix[64];
	int ret;

	memset(&p, 0x5a, sizeof(p));
	ret = parse_n(bc->text, len, &p);
	if (!bc->what) {
		assert_int_equal(ret, 0);
		return;
	}
	if (ret != -EINVAL)
		fail_msg("accepted (%d): %s", ret, bc->text);
	snprintf(prefix, sizeof(prefix), FILENAME ":%u: ", bc->line);
	if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, bc->what))
		fail_msg("text:\n%s\nexpected \"%s...%s\"\ngot      \"%s\"", bc->text, prefix,
			 bc->what, err);
	/* the output is untouched on error */
	assert_int_equal(((unsigned char *)&p)[0], 0x5a);
	assert_int_equal(p.state_count, 0x5a5a5a5a);
}

static void test_errors(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++)
		check_bad(&bad_cases[i], strlen(bad_cases[i].text));
}

static void test_nul_bytes(void **state)
{
	static const char t1[] = H "state C1\0 " OK "\n";
	static const char t2[] = H S1 "# comment \0 with NUL\n";
	static const char t3[] = H S1 "\0";
	static const struct bad_case cases[] = {
		{ t1, 2, "NUL byte at column 9" },
		{ t2, 3, "NUL byte at column 11" },
		{ t3, 3, "NUL byte" },
	};
	const size_t lens[] = { sizeof(t1) - 1, sizeof(t2) - 1, sizeof(t3) - 1 };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++)
		check_bad(&cases[i], lens[i]);
}

static void test_state_count(void **state)
{
	char text[2048];
	struct cpuidle_platform p;
	size_t n;
	int i;

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "platform t\n");
	for (i = 0; i < CPUIDLE_STATE_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "state S%d latency_us=%d residency_us=%d\n", i, i, 2 * i);
	assert_int_equal(parse(text, &p), 0);
	assert_int_equal(p.state_count, CPUIDLE_STATE_MAX);
	assert_int_equal(p.states[9].target_residency_ns, 18000);

	snprintf(text + n, sizeof(text) - n, "# the eleventh\nstate S10 latency_us=10 "
		 "residency_us=20\n");
	assert_int_equal(parse(text, &p), -EINVAL);
	assert_string_equal(err, FILENAME ":13: more than 10 states");
}

/* Equal latency and residency are fine (the laptop's C1 and C2). */
static void test_equal_neighbours(void **state)
{
	struct cpuidle_platform p;

	(void)state;
	assert_int_equal(parse(H S1 "state C2 latency_us=1 residency_us=2\n", &p), 0);
	assert_int_equal(p.state_count, 2);
}

/* Clusters: lists, defaults, the derived CPU count, per-cluster tables. */
static void test_clusters(void **state)
{
	static const char text[] =
		"platform c\n"
		"active_power_mw 900\n"
		"cluster even cpus=0,2,4-6,8 idle_power_mw=7   # a comment\n"
		"state A latency_us=1 residency_us=1 power_mw=3\n"
		"state B latency_us=5 residency_us=9 cluster_power_mw=0\n"
		"cluster \"odd ones\" active_power_mw=40 cpus=1,3,7\n"
		"state A latency_us=2 residency_us=2 model_power_mw=11 entry_energy_uj=0.001 "
		"exit_energy_uj=4294967295\n"
		"state C latency_us=2 residency_us=3 power_mw=9 model_power_mw=unknown "
		"cluster_power_mw=2147483647\n"
		"state D latency_us=2 residency_us=3 cluster_power_mw=1\n";
	static const int owner[9] = { 0, 1, 0, 1, 0, 0, 0, 1, 0 };
	const struct cpuidle_platform_cluster *even, *odd;
	struct cpuidle_platform p;
	unsigned int cpu;

	(void)state;
	assert_int_equal(parse(text, &p), 0);
	assert_int_equal(p.nr_cpus, 9);	/* no cpus line: highest CPU + 1 */
	assert_int_equal(p.active_power_mw, 900);
	assert_int_equal(p.nr_clusters, 2);
	even = &p.clusters[0];
	odd = &p.clusters[1];
	assert_string_equal(even->name, "even");
	assert_int_equal(even->nr_cpus, 6);
	assert_int_equal(even->active_power_mw, 900);	/* the platform's */
	assert_int_equal(even->idle_power_mw, 7);
	assert_int_equal(even->state_count, 2);
	assert_energy(&even->states[0], 3, 0, 0, CPUIDLE_POWER_UNKNOWN);
	assert_energy(&even->states[1], CPUIDLE_POWER_UNKNOWN, 0, 0, 0);
	assert_string_equal(odd->name, "odd ones");
	assert_int_equal(odd->nr_cpus, 3);
	assert_int_equal(odd->active_power_mw, 40);
	assert_int_equal(odd->idle_power_mw, 0);		/* the default */
	assert_int_equal(odd->state_count, 3);
	assert_string_equal(odd->states[0].name, "A");	/* names are per table */
	assert_energy(&odd->states[0], 11, 1, 4294967295000LL, CPUIDLE_POWER_UNKNOWN);
	assert_int_equal(odd->states[1].power_mw, 9);
	assert_energy(&odd->states[1], CPUIDLE_POWER_UNKNOWN, 0, 0, 2147483647);
	assert_energy(&odd->states[2], CPUIDLE_POWER_UNKNOWN, 0, 0, 1);
	assert_int_equal(cpuidle_platform_domain_fallback(even), 0);
	assert_int_equal(cpuidle_platform_domain_fallback(odd), 0);
	for (cpu = 0; cpu < 9; cpu++) {
		assert_int_equal(cpuidle_platform_cluster_of(&p, cpu), owner[cpu]);
		assert_true(cpuidle_platform_cluster_has_cpu(&p.clusters[owner[cpu]], cpu));
		assert_false(cpuidle_platform_cluster_has_cpu(&p.clusters[!owner[cpu]], cpu));
	}
	assert_int_equal(cpuidle_platform_cluster_of(&p, 9), -ENOENT);
	assert_int_equal(p.state_count, 2);
	assert_memory_equal(p.states, even->states, sizeof(p.states));

	/* a cpus line may come after the clusters; every CPU must be covered */
	assert_int_equal(parse(H "cluster a cpus=1\n" S1 "cluster b cpus=0\n" S1 "cpus 2\n",
			       &p), 0);
	assert_int_equal(p.nr_cpus, 2);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 0), 1);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 1), 0);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 2), -ENOENT);
	/* the highest CPU */
	assert_int_equal(parse(H "cluster a cpus=0-4095\n" S1, &p), 0);
	assert_int_equal(p.nr_cpus, CPUIDLE_MAX_CPUS);
	assert_int_equal(p.clusters[0].nr_cpus, CPUIDLE_MAX_CPUS);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 4095), 0);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 4096), -ENOENT);
	/* a cpus line without clusters bounds the implicit cluster */
	assert_int_equal(parse(H "cpus 3\n" S1, &p), 0);
	assert_int_equal(p.nr_cpus, 3);
	assert_implicit_cluster(&p);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 2), 0);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 3), -ENOENT);
	/* and without any: every CPU, defaults everywhere */
	assert_int_equal(parse(H S1, &p), 0);
	assert_int_equal(p.nr_cpus, 0);
	assert_int_equal(p.active_power_mw, CPUIDLE_POWER_UNKNOWN);
	assert_implicit_cluster(&p);
	assert_energy(&p.states[0], CPUIDLE_POWER_UNKNOWN, 0, 0, CPUIDLE_POWER_UNKNOWN);
	/* domain states in the implicit cluster */
	assert_int_equal(parse(H S1 "state C2 latency_us=3 residency_us=4 cluster_power_mw=2\n"
			       "state C3 latency_us=3 residency_us=4 cluster_power_mw=1\n", &p), 0);
	assert_int_equal(cpuidle_platform_domain_fallback(&p.clusters[0]), 0);
	assert_int_equal(p.states[2].cluster_power_mw, 1);

	assert_int_equal(cpuidle_platform_cluster_of(NULL, 0), -EINVAL);
	/* a platform built by hand, without clusters, has none to name */
	memset(&p, 0, sizeof(p));
	p.state_count = 1;
	assert_int_equal(cpuidle_platform_cluster_of(&p, 0), -ENOENT);
	/* no cluster owns a CPU outside every mask */
	p.nr_clusters = 1;
	assert_int_equal(cpuidle_platform_cluster_of(&p, 0), -ENOENT);
	assert_int_equal(cpuidle_platform_domain_fallback(&p.clusters[0]), -ENOENT);
}

/* The eight-cluster limit and the ten-state limit of a cluster's table. */
static void test_cluster_limits(void **state)
{
	char text[4096];
	struct cpuidle_platform p;
	size_t n;
	int i;

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "platform t\n");
	for (i = 0; i < CPUIDLE_PLATFORM_MAX_CLUSTERS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "cluster c%d cpus=%d\n" S1,
				      i, i);
	assert_int_equal(parse(text, &p), 0);
	assert_int_equal(p.nr_clusters, CPUIDLE_PLATFORM_MAX_CLUSTERS);
	assert_int_equal(p.nr_cpus, CPUIDLE_PLATFORM_MAX_CLUSTERS);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 7), 7);
	snprintf(text + n, sizeof(text) - n, "cluster c8 cpus=8\n" S1);
	assert_int_equal(parse(text, &p), -EINVAL);
	assert_string_equal(err, FILENAME ":18: more than 8 clusters");

	n = (size_t)snprintf(text, sizeof(text), "platform t\ncluster big cpus=0\n");
	for (i = 0; i < CPUIDLE_STATE_MAX; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "state S%d latency_us=%d residency_us=%d\n", i, i, 2 * i);
	assert_int_equal(parse(text, &p), 0);
	assert_int_equal(p.clusters[0].state_count, CPUIDLE_STATE_MAX);
	snprintf(text + n, sizeof(text) - n, "state S10 latency_us=10 residency_us=20\n");
	assert_int_equal(parse(text, &p), -EINVAL);
	assert_string_equal(err, FILENAME ":13: cluster 'big': more than 10 states");
}

/* Energies: decimal microjoules kept in nanojoules. */
static void test_energy_values(void **state)
{
	static const struct {
		const char *text;
		int64_t nj;
	} cases[] = {
		{ "0", 0 }, { "0.001", 1 }, { "1", 1000 }, { "1.5", 1500 }, { "2.25", 2250 },
		{ "0.1230", 123 }, { "007", 7000 }, { "4294967295", 4294967295000LL },
		{ "4294967295.000", 4294967295000LL },
	};
	struct cpuidle_platform p;
	char text[256];
	size_t i;

	(void)state;
	for (i = 0; i < FX_ARRAY_SIZE(cases); i++) {
		snprintf(text, sizeof(text), H "state C1 " OK " entry_energy_uj=%s "
			 "exit_energy_uj=\"%s\"\n", cases[i].text, cases[i].text);
		assert_int_equal(parse(text, &p), 0);
		assert_int_equal(p.states[0].entry_energy_nj, cases[i].nj);
		assert_int_equal(p.states[0].exit_energy_nj, cases[i].nj);
	}
}

/* err may be NULL or tiny; NULL arguments; too large. */
static void test_err_buffer_and_args(void **state)
{
	static const char bad[] = H "state C1 latency_us=x residency_us=1\n";
	struct cpuidle_platform p;
	char small[8];
	char *big;

	(void)state;
	assert_int_equal(cpuidle_platform_parse(bad, sizeof(bad) - 1, FILENAME, &p, NULL, 0),
			 -EINVAL);
	assert_int_equal(cpuidle_platform_parse(bad, sizeof(bad) - 1, FILENAME, &p, NULL, 100),
			 -EINVAL);
	memset(small, 'X', sizeof(small));
	assert_int_equal(cpuidle_platform_parse(bad, sizeof(bad) - 1, FILENAME, &p, small,
						sizeof(small)), -EINVAL);
	assert_string_equal(small, "t.platf");
	small[0] = 'X';
	assert_int_equal(cpuidle_platform_parse(bad, sizeof(bad) - 1, FILENAME, &p, small, 0),
			 -EINVAL);
	assert_int_equal(small[0], 'X');

	assert_int_equal(cpuidle_platform_parse(NULL, 0, FILENAME, &p, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(cpuidle_platform_parse(bad, 1, NULL, &p, err, sizeof(err)), -EINVAL);
	assert_int_equal(cpuidle_platform_parse(bad, 1, FILENAME, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(cpuidle_platform_load(NULL, &p, err, sizeof(err)), -EINVAL);
	assert_int_equal(cpuidle_platform_load("laptop", NULL, err, sizeof(err)), -EINVAL);

	big = calloc(1, CPUIDLE_PLATFORM_MAX_FILE + 1);
	assert_non_null(big);
	memset(big, '\n', CPUIDLE_PLATFORM_MAX_FILE + 1);
	assert_int_equal(cpuidle_platform_parse(big, CPUIDLE_PLATFORM_MAX_FILE + 1, FILENAME, &p,
						err, sizeof(err)), -EFBIG);
	assert_non_null(strstr(err, FILENAME));
	/* exactly the limit is allowed (and here lacks a platform line) */
	assert_int_equal(cpuidle_platform_parse(big, CPUIDLE_PLATFORM_MAX_FILE, FILENAME, &p,
						err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":1048576: no 'platform NAME' line"));
	free(big);
}

/*
 * Every prefix of both bundled platforms, and many single-byte mutations:
 * never a crash or an over-read (sanitizer build), and every error names
 * the file and a line.
 */
static void test_prefixes_and_mutations(void **state)
{
	const char *const *names = cpuidle_platform_builtin_names();
	static const char bytes[] = "\0\"\\#=,. \t\r\n0x9-_aZ\x01\x7f\xff";
	struct cpuidle_platform p;
	uint32_t seed = 12345;
	const char *text;
	size_t len, n;
	char *copy;
	int i, k, ret;

	(void)state;
	for (i = 0; names[i]; i++) {
		text = cpuidle_platform_builtin_text(names[i], &len);
		for (n = 0; n <= len; n++) {
			ret = parse_n(text, n, &p);
			assert_true(ret == 0 || ret == -EINVAL);
			if (ret)
				assert_int_equal(strncmp(err, FILENAME ":", strlen(FILENAME) + 1),
						 0);
		}
		copy = malloc(len);
		assert_non_null(copy);
		for (k = 0; k < 4000; k++) {
			memcpy(copy, text, len);
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % len] = bytes[(seed >> 20) % (sizeof(bytes) - 1)];
			ret = parse_n(copy, len, &p);
			assert_true(ret == 0 || ret == -EINVAL);
			if (ret)
				assert_int_equal(strncmp(err, FILENAME ":", strlen(FILENAME) + 1),
						 0);
		}
		free(copy);
	}
}

/* ---------------------------------------------------------------- loading */

static void write_file(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void test_load_missing(void **state)
{
	struct cpuidle_platform p;

	(void)state;
	assert_int_equal(cpuidle_platform_load("/nonexistent/dir/x.platform", &p, err,
					       sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/dir/x.platform"));
	assert_int_equal(cpuidle_platform_load("no-such-platform-here", &p, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "no-such-platform-here: no such file, and no bundled"));
}

static void test_load_dev_zero(void **state)
{
	struct cpuidle_platform p;

	(void)state;
	assert_int_equal(cpuidle_platform_load("/dev/zero", &p, err, sizeof(err)), -EFBIG);
	assert_non_null(strstr(err, "/dev/zero"));
	/* an empty character device reads as an empty file */
	assert_int_equal(cpuidle_platform_load("/dev/null", &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "/dev/null:1: no 'platform NAME' line");
}

static void test_load_directory(void **state)
{
	struct cpuidle_platform p;

	(void)state;
	assert_int_equal(cpuidle_platform_load(SRCDIR "/platforms", &p, err, sizeof(err)),
			 -EISDIR);
	assert_non_null(strstr(err, "platforms"));
	/* no '/' and not bundled: tried as a file, and "." is a directory */
	assert_int_equal(cpuidle_platform_load(".", &p, err, sizeof(err)), -EISDIR);
}

static void test_load_files(void **state)
{
	static const char good[] = "platform file\nstate C1 latency_us=3 residency_us=6\n";
	static const char bad[] = "platform file\n\nstate C1 latency_us=3\n";
	char path[] = "/tmp/test_platform.XXXXXX";
	struct cpuidle_platform p;
	char *big, msg[300];
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);

	write_file(path, good, sizeof(good) - 1);
	assert_int_equal(cpuidle_platform_load(path, &p, err, sizeof(err)), 0);
	assert_string_equal(p.name, "file");
	assert_int_equal(p.states[0].target_residency_ns, 6000);

	write_file(path, bad, sizeof(bad) - 1);
	assert_int_equal(cpuidle_platform_load(path, &p, err, sizeof(err)), -EINVAL);
	snprintf(msg, sizeof(msg), "%s:3: state 'C1': missing residency", path);
	assert_int_equal(strncmp(err, msg, strlen(msg)), 0);

	big = malloc(CPUIDLE_PLATFORM_MAX_FILE + 1);
	assert_non_null(big);
	memset(big, '#', CPUIDLE_PLATFORM_MAX_FILE + 1);
	write_file(path, big, CPUIDLE_PLATFORM_MAX_FILE + 1);
	assert_int_equal(cpuidle_platform_load(path, &p, err, sizeof(err)), -EFBIG);
	assert_non_null(strstr(err, path));
	free(big);

	assert_int_equal(chmod(path, 0), 0);
	if (geteuid() != 0) {
		assert_int_equal(cpuidle_platform_load(path, &p, err, sizeof(err)), -EACCES);
		assert_non_null(strstr(err, path));
	}
	unlink(path);
}

/* ---------------------------------------------------------------- table driver */

struct tsim {
	uint64_t clock[8];
	int calls;
	int last_index;
	struct cpuidle_device *last_dev;
	struct cpuidle_state *last_state;
	void *last_ctx;
	int bm;
	int reject;	/* index the idle callback refuses, -1: none */
};

static uint64_t tsim_clock(struct cpuidle_device *dev, void *ctx)
{
	return ((struct tsim *)ctx)->clock[dev->cpu];
}

static bool tsim_bm(struct cpuidle_system *sys, void *ctx)
{
	(void)sys;
	return ((struct tsim *)ctx)->bm;
}

static int tsim_idle(struct cpuidle_device *dev, struct cpuidle_state *state, int index,
		     void *ctx)
{
	struct tsim *t = ctx;

	t->calls++;
	t->last_index = index;
	t->last_dev = dev;
	t->last_state = state;
	t->last_ctx = ctx;
	if (index == t->reject)
		return -EBUSY;
	t->clock[dev->cpu] += 200000;	/* 200 us */
	return 200;
}

static int fixed_index = 0;

static int fixed_select(struct cpuidle_device *dev, bool *stop_tick)
{
	(void)dev;
	(void)stop_tick;
	return fixed_index;
}

static const struct cpuidle_governor fixed_gov = {
	.name = "fixed",
	.rating = 1,
	.select = fixed_select,
};

static struct cpuidle_system *tsim_system(struct tsim *t, unsigned int flags)
{
	struct cpuidle_system_opts opts = {
		.sz = sizeof(opts),
		.ops = { .clock_ns = tsim_clock, .bm_active = tsim_bm },
		.ctx = t,
		.flags = flags,
	};
	struct cpuidle_system *sys = NULL;

	memset(t, 0, sizeof(*t));
	t->reject = -1;
	t->last_index = -1;
	assert_int_equal(cpuidle_system_create(&opts, &sys), 0);
	return sys;
}

static int idle_once(struct cpuidle_device *dev)
{
	struct cpuidle_idle_ctx ctx = {
		.sleep_length_ns = 10 * CPUIDLE_NSEC_PER_SEC / 1000,
		.delta_tick_ns = 4 * CPUIDLE_NSEC_PER_SEC / 1000,
		.tick_stopped = true,
	};

	return cpuidle_idle_call(dev, &ctx);
}

static void test_table_driver_laptop(void **state)
{
	static struct cpuidle_table_driver td;
	static struct cpuidle_device dev[2];
	struct cpuidle_platform p;
	struct cpuidle_system *sys;
	struct tsim t;
	int i, c;

	(void)state;
	assert_int_equal(cpuidle_platform_load("laptop", &p, err, sizeof(err)), 0);
	sys = tsim_system(&t, CPUIDLE_SYS_NO_BUILTIN_GOVERNORS);
	assert_int_equal(cpuidle_register_governor(sys, &fixed_gov), 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), 0);
	assert_string_equal(td.drv.name, "laptop");
	assert_int_equal(td.drv.state_count, 3);
	assert_int_equal(cpuidle_register_driver(sys, &td.drv), 0);
	assert_string_equal(cpuidle_driver_name(sys), "laptop");

	memset(dev, 0, sizeof(dev));
	for (c = 0; c < 2; c++) {
		dev[c].cpu = (unsigned int)c;
		assert_int_equal(cpuidle_register_device(sys, &dev[c]), 0);
		assert_int_equal(dev[c].state_count, 3);
		for (i = 0; i < 3; i++) {
			struct cpuidle_state *s = &dev[c].states[i];

			assert_string_equal(s->name, p.states[i].name);
			assert_string_equal(s->desc, p.states[i].desc);
			assert_int_equal(s->exit_latency_ns, p.states[i].exit_latency_ns);
			assert_int_equal(s->target_residency_ns, p.states[i].target_residency_ns);
			assert_int_equal(s->exit_latency, p.states[i].exit_latency_ns / 1000);
			assert_int_equal(s->target_residency,
					 p.states[i].target_residency_ns / 1000);
			assert_int_equal(s->power_usage, p.states[i].power_mw);
			assert_int_equal(s->flags, p.states[i].flags);
			assert_ptr_equal(cpuidle_table_state_driver(s), &td);
			/* the energy model, from the state itself */
			assert_ptr_equal(cpuidle_table_state_model(s), &p.states[i]);
			assert_int_equal(cpuidle_table_state_index(&dev[c], s), i);
		}
		/* C3 has CHECK_BM: the safe state is C2 */
		assert_ptr_equal(dev[c].safe_state, &dev[c].states[1]);
	}

	/* enter() of every copied state reaches the callback with its index */
	for (c = 0; c < 2; c++) {
		for (i = 0; i < 3; i++) {
			t.calls = 0;
			assert_int_equal(dev[c].states[i].enter(&dev[c], &dev[c].states[i]), 200);
			assert_int_equal(t.calls, 1);
			assert_int_equal(t.last_index, i);
			assert_ptr_equal(t.last_dev, &dev[c]);
			assert_ptr_equal(t.last_state, &dev[c].states[i]);
			assert_ptr_equal(t.last_ctx, &t);
		}
	}
	/* both devices took the driver's table: held once, not copied */
	assert_ptr_equal(dev[0].states, td.drv.states);
	assert_ptr_equal(dev[1].states, td.drv.states);
	/* a state that is not the device's own is refused */
	{
		struct cpuidle_state stray = dev[0].states[0];

		t.calls = 0;
		assert_int_equal(dev[0].states[0].enter(&dev[0], &stray), -EINVAL);
		assert_int_equal(t.calls, 0);
	}

	/* through the idle path */
	for (i = 0; i < 3; i++) {
		fixed_index = i;
		t.calls = 0;
		assert_int_equal(idle_once(&dev[1]), i);
		assert_int_equal(t.calls, 1);
		assert_int_equal(t.last_index, i);
		assert_ptr_equal(t.last_dev, &dev[1]);
		assert_int_equal(dev[1].states_usage[i].usage, 1);
		assert_int_equal(dev[1].states_usage[i].time_ns, 200000);
	}
	/* bus mastering: C3 is demoted to C2, and the callback is told so */
	t.bm = 1;
	fixed_index = 2;
	assert_int_equal(idle_once(&dev[0]), 1);
	assert_int_equal(t.last_index, 1);
	assert_ptr_equal(t.last_state, &dev[0].states[1]);
	t.bm = 0;
	/* a refusal of the callback is the idle call's error */
	t.reject = 2;
	assert_int_equal(idle_once(&dev[0]), -EBUSY);
	assert_int_equal(dev[0].states_usage[2].rejected, 1);

	cpuidle_system_destroy(sys);
}

static void test_table_driver_haltpoll_vm(void **state)
{
	static struct cpuidle_table_driver td;
	static struct cpuidle_device dev;
	struct cpuidle_platform p;
	struct cpuidle_system *sys;
	struct tsim t;
	int i, ret;

	(void)state;
	assert_int_equal(cpuidle_platform_load("haltpoll-vm", &p, err, sizeof(err)), 0);
	sys = tsim_system(&t, 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), 0);
	assert_string_equal(td.drv.name, "haltpoll-vm");
	assert_int_equal(cpuidle_register_driver(sys, &td.drv), 0);
	memset(&dev, 0, sizeof(dev));
	assert_int_equal(cpuidle_register_device(sys, &dev), 0);
	assert_int_equal(dev.state_count, 2);
	assert_string_equal(dev.states[1].name, "haltpoll idle");
	assert_int_equal(dev.states[0].power_usage, -1);
	assert_int_equal(dev.states[1].exit_latency, 1);

	/* whatever the default governor picks, the callback sees that index */
	for (i = 0; i < 20; i++) {
		t.calls = 0;
		ret = idle_once(&dev);
		assert_true(ret == 0 || ret == 1);
		assert_int_equal(t.calls, 1);
		assert_int_equal(t.last_index, ret);
	}
	cpuidle_system_destroy(sys);
}

static void test_table_driver_init(void **state)
{
	static struct cpuidle_table_driver td;
	struct cpuidle_system *sys;
	struct cpuidle_platform p;
	struct tsim t;

	(void)state;
	assert_int_equal(cpuidle_platform_load("laptop", &p, err, sizeof(err)), 0);
	assert_int_equal(cpuidle_table_driver_init(NULL, &p, tsim_idle, &t), -EINVAL);
	assert_int_equal(cpuidle_table_driver_init(&td, NULL, tsim_idle, &t), -EINVAL);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, NULL, &t), -EINVAL);
	/* ctx is the embedding's and may be NULL */
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, NULL), 0);

	p.state_count = 0;
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), -EINVAL);
	p.state_count = CPUIDLE_STATE_MAX + 1;
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), -EINVAL);

	/* the driver name is the platform's, truncated to fit */
	assert_int_equal(parse("platform a-rather-long-platform-name\n" S1, &p), 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), 0);
	assert_string_equal(td.drv.name, "a-rather-long-p");
	assert_ptr_equal(td.platform, &p);
	assert_int_equal(td.drv.safe_state_index, -1);
	/* ... and not in the middle of a UTF-8 character (U+00B5 is 2 bytes) */
	assert_int_equal(parse("platform 12345678901234\xc2\xb5" "s\n" S1, &p), 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), 0);
	assert_string_equal(td.drv.name, "12345678901234");
	assert_ptr_equal(cpuidle_table_state_driver(&td.drv.states[0]), &td);
	/* a 3-byte character (U+20AC) cut after its first or second byte */
	assert_int_equal(parse("platform 1234567890123\xe2\x82\xac\n" S1, &p), 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), 0);
	assert_string_equal(td.drv.name, "1234567890123");
	assert_int_equal(parse("platform 12345678901234\xe2\x82\xac\n" S1, &p), 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), 0);
	assert_string_equal(td.drv.name, "12345678901234");
	/*
	 * Bytes that are no UTF-8 are cut where they fall, never back to an
	 * empty name the core refuses (fuzz_platform: "platform s" and twenty
	 * 0x89 bytes gave "", and cpuidle_register_driver() -EINVAL).
	 */
	assert_int_equal(parse("platform s\x89\x89\x89\x89\x89\x89\x89\x89\x89\x89"
			       "\x89\x89\x89\x89\x89\x89\x89\x89\x89\x89kylake\n" S1, &p), 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), 0);
	assert_int_equal(strlen(td.drv.name), 15);
	assert_int_equal(td.drv.name[0], 's');
	assert_int_equal(parse("platform \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
			       "\xc3\xa9\xc3\xa9\n" S1, &p), 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), 0);
	assert_int_equal(strlen(td.drv.name), 14);	/* seven e-acute, not seven and a half */
	sys = tsim_system(&t, 0);
	assert_int_equal(cpuidle_register_driver(sys, &td.drv), 0);
	assert_int_equal(cpuidle_unregister_driver(sys, &td.drv), 0);
	cpuidle_system_destroy(sys);
}

/* Juno r2: every CPU gets its cluster's table, and idles through @td. */
static void test_table_device_init(void **state)
{
	static struct cpuidle_table_driver td;
	static struct cpuidle_device dev[6];
	struct cpuidle_platform p;
	struct cpuidle_system *sys;
	struct tsim t;
	int i, c;

	(void)state;
	assert_int_equal(cpuidle_platform_load("juno-r2", &p, err, sizeof(err)), 0);
	sys = tsim_system(&t, CPUIDLE_SYS_NO_BUILTIN_GOVERNORS);
	assert_int_equal(cpuidle_register_governor(sys, &fixed_gov), 0);
	assert_int_equal(cpuidle_table_driver_init(&td, &p, tsim_idle, &t), 0);
	/* the template is cluster 0's table */
	assert_int_equal(td.drv.state_count, 3);
	assert_string_equal(td.drv.states[0].name, "WFI");
	assert_int_equal(cpuidle_register_driver(sys, &td.drv), 0);

	for (c = 0; c < 6; c++) {
		const struct cpuidle_platform_cluster *cl = &p.clusters[c == 1 || c == 2 ? 0 : 1];

		memset(&dev[c], 0x5a, sizeof(dev[c]));
		dev[c].registered = false;
		assert_int_equal(cpuidle_table_device_init(&td, &dev[c], (unsigned int)c), 0);
		assert_int_equal(dev[c].cpu, c);
		assert_int_equal(dev[c].state_count, cl->state_count);
		assert_null(dev[c].safe_state);
		assert_int_equal(cpuidle_register_device(sys, &dev[c]), 0);
		for (i = 0; i < dev[c].state_count; i++) {
			struct cpuidle_state *s = &dev[c].states[i];

			assert_string_equal(s->name, cl->states[i].name);
			assert_string_equal(s->desc, cl->states[i].desc);
			assert_int_equal(s->exit_latency_ns, cl->states[i].exit_latency_ns);
			assert_int_equal(s->target_residency, cl->states[i].target_residency_ns /
					 1000);
			assert_int_equal(s->power_usage, cl->states[i].power_mw);
			/* a domain state is marked as one for the governors */
			assert_int_equal(s->flags, cl->states[i].flags |
					 (cpuidle_platform_state_is_domain(&cl->states[i]) ?
					  CPUIDLE_FLAG_DOMAIN : 0));
			assert_ptr_equal(cpuidle_table_state_driver(s), &td);
			assert_ptr_equal(cpuidle_table_state_model(s), &cl->states[i]);
		}
		/* enter() of each state reaches the callback with its index */
		for (i = 0; i < dev[c].state_count; i++) {
			t.calls = 0;
			assert_int_equal(dev[c].states[i].enter(&dev[c], &dev[c].states[i]), 200);
			assert_int_equal(t.calls, 1);
			assert_int_equal(t.last_index, i);
			assert_ptr_equal(t.last_dev, &dev[c]);
		}
	}
	/* a cluster's CPUs share its table, held once in the driver */
	assert_ptr_equal(dev[1].states, dev[2].states);
	assert_ptr_equal(dev[0].states, dev[3].states);
	assert_ptr_equal(dev[0].states, dev[5].states);
	assert_ptr_equal(dev[1].states, td.cluster_states[0]);
	assert_ptr_equal(dev[0].states, td.cluster_states[1]);
	/* through the idle path, on a LITTLE CPU */
	fixed_index = 2;
	t.calls = 0;
	assert_int_equal(idle_once(&dev[4]), 2);
	assert_int_equal(t.last_index, 2);
	assert_ptr_equal(t.last_state, &dev[4].states[2]);
	fixed_index = 0;

	/* errors */
	assert_int_equal(cpuidle_table_device_init(NULL, &dev[0], 0), -EINVAL);
	assert_int_equal(cpuidle_table_device_init(&td, NULL, 0), -EINVAL);
	assert_int_equal(cpuidle_table_device_init(&td, &dev[0], 0), -EBUSY);
	cpuidle_system_destroy(sys);
	{
		static struct cpuidle_table_driver blank, hand;
		static struct cpuidle_device d;

		memset(&d, 0, sizeof(d));
		assert_int_equal(cpuidle_table_device_init(&td, &d, 6), -ENOENT);
		assert_int_equal(cpuidle_table_device_init(&td, &d, CPUIDLE_MAX_CPUS), -EINVAL);
		memset(&blank, 0, sizeof(blank));
		assert_int_equal(cpuidle_table_device_init(&blank, &d, 0), -EINVAL);

		/* a cluster whose table was emptied by hand: no driver of it */
		p.clusters[1].state_count = 0;
		assert_int_equal(cpuidle_table_driver_init(&hand, &p, tsim_idle, &t), -EINVAL);

		/* a platform built by hand without clusters: the top-level table */
		memset(&p, 0, sizeof(p));
		strcpy(p.name, "hand");
		p.state_count = 1;
		strcpy(p.states[0].name, "S0");
		p.states[0].exit_latency_ns = 1000;
		p.states[0].target_residency_ns = 1000;
		assert_int_equal(cpuidle_table_driver_init(&hand, &p, tsim_idle, &t), 0);
		assert_int_equal(cpuidle_table_device_init(&hand, &d, 77), 0);
		assert_int_equal(d.cpu, 77);
		assert_int_equal(d.state_count, 1);
		assert_string_equal(d.states[0].name, "S0");
		assert_ptr_equal(cpuidle_table_state_driver(&d.states[0]), &hand);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_names),
		cmocka_unit_test(test_laptop_exact),
		cmocka_unit_test(test_haltpoll_vm_exact),
		cmocka_unit_test(test_juno_r2_exact),
		cmocka_unit_test(test_skylake_exact),
		cmocka_unit_test(test_spr_exact),
		cmocka_unit_test(test_bundled_match_files),
		cmocka_unit_test(test_valid_syntax),
		cmocka_unit_test(test_longest_fields),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_state_count),
		cmocka_unit_test(test_equal_neighbours),
		cmocka_unit_test(test_clusters),
		cmocka_unit_test(test_cluster_limits),
		cmocka_unit_test(test_energy_values),
		cmocka_unit_test(test_err_buffer_and_args),
		cmocka_unit_test(test_prefixes_and_mutations),
		cmocka_unit_test(test_load_missing),
		cmocka_unit_test(test_load_dev_zero),
		cmocka_unit_test(test_load_directory),
		cmocka_unit_test(test_load_files),
		cmocka_unit_test(test_table_driver_laptop),
		cmocka_unit_test(test_table_driver_haltpoll_vm),
		cmocka_unit_test(test_table_driver_init),
		cmocka_unit_test(test_table_device_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
