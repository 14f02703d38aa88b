// SPDX-License-Identifier: MIT
/*
 * test_host.c - the host module (host/): CPU lists, the sysfs snapshot and
 * its writes on the fake trees of tests/fixtures, the platform file made
 * from them, a QoS request on a fake device, running commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_child.h"
#include "host_cpulist.h"
#include "host_platform.h"
#include "host_qos.h"
#include "host_sysfs.h"

#define FIXTURES SRCDIR "/tests/fixtures"

static void use_root(const char *name)
{
	setenv(HOST_SYSFS_ROOT_ENV, name, 1);
}

/* a writable copy of a fixture in a temporary directory; its path in @dir */
static void copy_fixture(const char *name, char *dir, size_t len)
{
	char cmd[1024];

	snprintf(dir, len, "/tmp/test_host.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -r '%s/%s/.' '%s'", FIXTURES, name, dir);
	assert_int_equal(system(cmd), 0);
}

static void remove_dir(const char *dir)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_cpulist(void **state)
{
	struct host_cpuset set;
	char buf[64];

	(void)state;
	assert_int_equal(host_cpulist_parse("0-3,6,8-9", &set), 0);
	assert_true(host_cpuset_has(&set, 0) && host_cpuset_has(&set, 3) && host_cpuset_has(&set, 6));
	assert_false(host_cpuset_has(&set, 4) || host_cpuset_has(&set, 7) || host_cpuset_has(&set, 10));
	assert_int_equal(host_cpulist_format(&set, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-3,6,8-9");
	assert_int_equal(host_cpulist_parse("all", &set), 0);
	assert_true(host_cpuset_has(&set, CPUIDLE_MAX_CPUS - 1));
	assert_int_equal(host_cpulist_parse("", &set), -EINVAL);
	assert_int_equal(host_cpulist_parse("3-1", &set), -EINVAL);
	assert_int_equal(host_cpulist_parse("1,", &set), -EINVAL);
	assert_int_equal(host_cpulist_parse("-1", &set), -EINVAL);
	assert_int_equal(host_cpulist_parse("4096", &set), -ERANGE);
	assert_int_equal(host_cpulist_parse("1", &set), 0);
	assert_int_equal(host_cpulist_format(&set, buf, 1), -ENOSPC);
}

static void test_read_haltpoll(void **state)
{
	struct host_cpuidle h;
	const struct host_cpu *c;
	char err[512];

	(void)state;
	use_root(FIXTURES "/sysfs-haltpoll");
	assert_false(host_sysfs_is_real());
	assert_int_equal(host_cpuidle_read(&h, err, sizeof(err)), 0);
	assert_string_equal(h.driver, "haltpoll");
	assert_string_equal(host_current_governor(&h), "haltpoll");
	assert_string_equal(h.available, "ladder menu haltpoll");	/* trailing blank gone */
	assert_int_equal(h.nr_cpus, 2);
	c = host_find_cpu(&h, 1);
	assert_non_null(c);
	assert_null(host_find_cpu(&h, 2));
	assert_int_equal(c->state_count, 2);
	assert_string_equal(c->states[1].name, "haltpoll idle");
	assert_int_equal(c->states[0].power, HOST_POWER_UNKNOWN);
	assert_int_equal(c->states[1].latency_us, 1);
	assert_true(host_state_has(&c->states[1], HOST_F_ABOVE));
	assert_false(host_state_has(&c->states[1], HOST_F_S2IDLE_USAGE));
	assert_int_equal(host_find_state(c, "haltpoll idle"), 1);
	assert_int_equal(host_find_state(c, "0"), 0);
	assert_int_equal(host_find_state(c, "2"), -ENOENT);
	assert_int_equal(host_find_state(c, "haltpoll"), -ENOENT);
	host_cpuidle_free(&h);
}

static void test_read_odd(void **state)
{
	struct host_cpuidle h;
	const struct host_state *s;
	char err[512];

	(void)state;
	use_root(FIXTURES "/sysfs-odd");
	assert_int_equal(host_cpuidle_read(&h, err, sizeof(err)), 0);
	assert_false(host_has(&h, HOST_G_GOVERNOR));
	assert_false(host_has(&h, HOST_G_AVAILABLE));
	assert_string_equal(host_current_governor(&h), "menu");	/* from _ro */
	assert_int_equal(h.nr_cpus, 3);	/* cpu3 has no cpuidle directory */
	s = &h.cpus[0].states[1];
	assert_string_equal(s->name, "C1 ACPI");
	assert_false(host_state_has(s, HOST_F_ABOVE));	/* missing, not zero */
	assert_true(host_state_has(s, HOST_F_BELOW));
	assert_int_equal(s->below, 11);
	s = &h.cpus[1].states[2];
	assert_string_equal(s->default_status, "disabled");
	assert_int_equal(s->s2idle_usage, 4);
	assert_string_equal(h.cpus[2].resume_latency, "n/a");
	host_cpuidle_free(&h);

	use_root(FIXTURES "/sysfs-none");
	assert_int_equal(host_cpuidle_read(&h, err, sizeof(err)), -ENODEV);
	assert_non_null(strstr(err, "no cpuidle in this kernel"));
}

static void test_write(void **state)
{
	struct host_cpuidle h;
	char dir[256], err[512], path[512];
	FILE *f;

	(void)state;
	copy_fixture("sysfs-haltpoll", dir, sizeof(dir));
	use_root(dir);
	assert_int_equal(host_state_set_disable(1, 1, true), 0);
	assert_int_equal(host_set_governor("menu"), 0);
	assert_int_equal(host_cpuidle_read(&h, err, sizeof(err)), 0);
	assert_int_equal(h.cpus[1].states[1].disable, 1);
	assert_int_equal(h.cpus[0].states[1].disable, 0);
	assert_string_equal(h.governor, "menu");
	host_cpuidle_free(&h);
	assert_int_equal(host_state_set_disable(1, 1, false), 0);
	assert_int_equal(host_state_set_disable(1, 5, true), -ENOENT);
	/* a kernel with current_governor_ro only */
	snprintf(path, sizeof(path), "%s/devices/system/cpu/cpuidle/current_governor", dir);
	unlink(path);
	assert_int_equal(host_set_governor("menu"), -EOPNOTSUPP);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	remove_dir(dir);
}

static void test_platform(void **state)
{
	struct cpuidle_platform p;
	struct host_cpuidle h;
	char err[512], perr[512], *text;
	size_t len;

	(void)state;
	use_root(FIXTURES "/sysfs-haltpoll");
	assert_int_equal(host_cpuidle_read(&h, err, sizeof(err)), 0);
	assert_int_equal(host_platform_text(&h, "vm", &text, &len, err, sizeof(err)), 0);
	assert_int_equal(cpuidle_platform_parse(text, len, "t", &p, perr, sizeof(perr)), 0);
	assert_string_equal(p.name, "vm");
	assert_int_equal(p.nr_cpus, 2);
	assert_int_equal(p.nr_clusters, 1);
	assert_int_equal(p.state_count, 2);
	assert_string_equal(p.states[1].name, "haltpoll idle");
	assert_int_equal(p.states[1].exit_latency_ns, 1000);
	assert_int_equal(p.states[0].power_mw, CPUIDLE_POWER_UNKNOWN);
	assert_true(p.states[0].flags & CPUIDLE_FLAG_POLLING);
	assert_false(p.states[1].flags & CPUIDLE_FLAG_POLLING);
	assert_int_equal(p.tick_hz, 0);	/* not from a fixture */
	free(text);
	host_cpuidle_free(&h);

	use_root(FIXTURES "/sysfs-odd");
	assert_int_equal(host_cpuidle_read(&h, err, sizeof(err)), 0);
	assert_int_equal(host_platform_text(&h, "odd one", &text, &len, err, sizeof(err)), 0);
	assert_int_equal(cpuidle_platform_parse(text, len, "t", &p, perr, sizeof(perr)), 0);
	assert_int_equal(p.nr_clusters, 2);
	assert_int_equal(p.clusters[0].state_count, 3);
	assert_int_equal(p.clusters[1].state_count, 2);
	assert_int_equal(cpuidle_platform_cluster_of(&p, 2), 1);
	assert_int_equal(p.clusters[0].states[1].power_mw, 0);	/* what sysfs says */
	assert_int_equal(p.clusters[0].states[1].model_power_mw, CPUIDLE_POWER_UNKNOWN);
	assert_true(p.clusters[0].states[2].flags & CPUIDLE_FLAG_OFF);
	free(text);
	/* a table out of order cannot be a platform file */
	h.cpus[0].states[2].latency_us = 0;
	assert_int_equal(host_platform_text(&h, "x", &text, &len, err, sizeof(err)), -EINVAL);
	assert_null(text);
	assert_non_null(strstr(err, "cpu0 state2 (C6)"));
	host_cpuidle_free(&h);
}

static void test_qos(void **state)
{
	char path[] = "/tmp/test_host_qos.XXXXXX";
	int32_t v = -1, zero = 0;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, &zero, sizeof(zero)), sizeof(zero));
	close(fd);
	setenv(HOST_QOS_DEVICE_ENV, path, 1);
	assert_string_equal(host_qos_device(), path);
	assert_int_equal(host_qos_hold(-1), -EINVAL);
	assert_int_equal(host_qos_hold(HOST_QOS_NO_CONSTRAINT + 1), -EINVAL);
	fd = host_qos_hold(250);
	assert_true(fd >= 0);
	assert_int_equal(host_qos_read(&v), 0);
	assert_int_equal(v, 250);	/* a file reads back what was written */
	host_qos_release(fd);
	unlink(path);
	assert_int_equal(host_qos_read(&v), -ENOENT);
	unsetenv(HOST_QOS_DEVICE_ENV);
	assert_string_equal(host_qos_device(), HOST_QOS_DEVICE);
}

static void test_child(void **state)
{
	char *ok[] = { "sh", "-c", "exit 3", NULL }, *missing[] = { "no-such-command-xyz", NULL };
	char *slow[] = { "sleep", "5", NULL };
	int status = 0, signo = 0;
	int64_t t0;
	pid_t pid;

	(void)state;
	host_signals_block();
	assert_int_equal(host_spawn(missing, -1, -1, &pid), -ENOENT);
	assert_int_equal(host_spawn(ok, -1, -1, &pid), 0);
	assert_int_equal(host_wait(pid, -1, &status, &signo), HOST_WAKE_CHILD);
	assert_int_equal(host_exit_code(status), 3);
	t0 = host_now_ns();
	assert_int_equal(host_wait(0, 50000000, &status, &signo), HOST_WAKE_TIMEOUT);
	assert_true(host_now_ns() - t0 >= 50000000);
	assert_int_equal(host_spawn(slow, -1, -1, &pid), 0);
	kill(getpid(), SIGTERM);	/* from a process: passed on to the child */
	assert_int_equal(host_wait(pid, -1, &status, &signo), HOST_WAKE_SIGNAL);
	assert_int_equal(signo, SIGTERM);
	assert_int_equal(host_wait(pid, -1, &status, &signo), HOST_WAKE_CHILD);
	assert_int_equal(host_exit_code(status), 128 + SIGTERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_read_haltpoll),
		cmocka_unit_test(test_read_odd),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_platform),
		cmocka_unit_test(test_qos),
		cmocka_unit_test(test_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
