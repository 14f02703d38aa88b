// SPDX-License-Identifier: MIT
/*
 * cmd_set.c - "cpuidle set": enable and disable the host's idle states and
 * switch its governor, in the manner of cpupower idle-set.  Every write is
 * read back, and what changed is reported.
 */
#include <errno.h>
#include <getopt.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "host_cli.h"

#define MAX_ACTIONS	64

enum action_type { ACT_DISABLE, ACT_ENABLE, ACT_LATENCY, ACT_ENABLE_ALL };

struct action {
	enum action_type type;
	const char *state;	/* ACT_DISABLE, ACT_ENABLE: index or name */
	long long usec;		/* ACT_LATENCY */
};

static void set_usage(FILE *f)
{
	fprintf(f,
		"usage: " CLI_NAME " set [-c CPULIST] [-d STATE]... [-e STATE]... [-D USEC] [-E]\n"
		"                   [-g GOVERNOR]\n\n"
		"Change the host's cpuidle (needs root).  Actions apply in the order given;\n"
		"each change is read back and reported.\n\n"
		"  -d, --disable STATE     disable a state (its index, or its name, in any\n"
		"                          case)\n"
		"  -e, --enable STATE      enable a state\n"
		"  -D, --disable-by-latency USEC  disable every state whose exit latency is\n"
		"                          above USEC us, enable the others\n"
		"  -E, --enable-all        enable every state\n"
		"  -g, --governor NAME     switch the kernel's governor (one of\n"
		"                          available_governors)\n"
		"  -c, --cpus CPULIST      the CPUs for -d/-e/-D/-E (0-3,6 or all; default\n"
		"                          all)\n"
		CLI_USAGE_QUIET
		"  -h, --help              this text\n\n"
		"See cpuidle-set(1).\n");
}

/*
 * -c all (or no -c) means the CPUs with a cpuidle directory: the present
 * ones without (offline, most often) are said, not passed over in silence.
 */
static void say_not_changed(const struct host_cpuidle *h)
{
	struct host_cpuset present, missed;
	char path[4096], line[4096], list[4096];
	unsigned int c, n = 0;

	if (host_sysfs_path(path, sizeof(path), "devices/system/cpu/present") ||
	    host_read_line(path, line, sizeof(line)) || host_cpulist_parse(line, &present))
		return;
	memset(&missed, 0, sizeof(missed));
	for (c = 0; c < CPUIDLE_MAX_CPUS; c++)
		if (host_cpuset_has(&present, c) && !host_find_cpu(h, c)) {
			host_cpuset_add(&missed, c);
			n++;
		}
	if (n && !host_cpulist_format(&missed, list, sizeof(list)))
		cli_note("set", "CPU%s %s not changed: present, but without a cpuidle "
			"directory (offline, or without a driver)", n == 1 ? "" : "s", list);
}

/* the disable bit @c's state @k should have after @a, or -1 if @a leaves it */
static int wanted(const struct action *a, const struct host_cpu *c, int k, int named)
{
	switch (a->type) {
	case ACT_DISABLE:
		return k == named ? 1 : -1;
	case ACT_ENABLE:
		return k == named ? 0 : -1;
	case ACT_LATENCY:
		return c->states[k].latency_us > (unsigned long long)a->usec;
	case ACT_ENABLE_ALL:
		return 0;
	}
	return -1;
}

static int write_error(int ret, const char *what)
{
	if (ret == -EACCES || ret == -EPERM)
		return cli_error("set", "%s: %s (changing cpuidle needs root)", what, strerror(-ret));
	if (ret == -EIO)
		return cli_error("set", "%s: the kernel took the write but reads back otherwise",
				 what);
	return cli_error("set", "%s: %s", what, strerror(-ret));
}

static int apply_state_action(const struct action *a, struct host_cpuidle *h,
			      const struct host_cpuset *set, int *changed)
{
	unsigned int i;
	int k, ret;

	for (i = 0; i < h->nr_cpus; i++) {
		struct host_cpu *c = &h->cpus[i];
		int named = -1;

		if (!host_cpuset_has(set, c->cpu) || !c->state_count)
			continue;
		if (a->type == ACT_DISABLE || a->type == ACT_ENABLE) {
			named = host_find_state(c, a->state);
			if (named == -EINVAL)
				return cli_error("set", "cpu%u: '%s' names more than one state in "
						 "another case: give its exact name or index", c->cpu,
						 a->state);
			if (named < 0)
				return cli_error("set", "cpu%u has no state '%s' (%d states: give an "
						 "index or a name)", c->cpu, a->state, c->state_count);
		}
		for (k = 0; k < c->state_count; k++) {
			struct host_state *s = &c->states[k];
			int want = wanted(a, c, k, named);
			char what[128];

			if (want < 0)
				continue;
			snprintf(what, sizeof(what), "cpu%u state%d (%s)", c->cpu, k, s->name);
			if (!host_state_has(s, HOST_F_DISABLE))
				return cli_error("set", "%s: this kernel has no disable file", what);
			if (a->type == ACT_LATENCY && !host_state_has(s, HOST_F_LATENCY))
				return cli_error("set", "%s: this kernel has no latency file", what);
			if ((s->disable != 0) == (want != 0)) {
				printf("%s: %s (unchanged)\n", what, want ? "disabled" : "enabled");
				continue;
			}
			ret = host_state_set_disable(c->cpu, k, want);
			if (ret)
				return write_error(ret, what);
			printf("%s: %s -> %s\n", what, s->disable ? "disabled" : "enabled",
			       want ? "disabled" : "enabled");
			s->disable = (uint64_t)want;
			(*changed)++;
		}
	}
	return 0;
}

/*
 * Every state of a CPU disabled leaves its governor nothing to choose: the
 * kernel then idles in the architecture's default routine (or polls), as
 * if there were no cpuidle driver.  Allowed, but said.
 */
static void warn_all_disabled(const struct host_cpuidle *h, const struct host_cpuset *set)
{
	unsigned int i;
	int k;

	for (i = 0; i < h->nr_cpus; i++) {
		const struct host_cpu *c = &h->cpus[i];

		if (!host_cpuset_has(set, c->cpu) || !c->state_count)
			continue;
		for (k = 0; k < c->state_count && c->states[k].disable; k++)
			;
		if (k == c->state_count)
			cli_warn("set", "cpu%u: every idle state is disabled: "
				"its governor has nothing to choose (-E enables them again)",
				c->cpu);
	}
}

static bool governor_available(const struct host_cpuidle *h, const char *name)
{
	char buf[HOST_GOVERNORS_LEN], *tok, *save;

	snprintf(buf, sizeof(buf), "%s", h->available);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

static int switch_governor(const struct host_cpuidle *h, const char *name, int *changed)
{
	const char *now = host_current_governor(h);
	int ret;

	if (!host_has(h, HOST_G_GOVERNOR))
		return cli_error("set", "this kernel's governor cannot be switched at run time (it has "
				 "current_governor_ro only; boot with cpuidle.governor=%s)", name);
	if (host_has(h, HOST_G_AVAILABLE) && !governor_available(h, name))
		return cli_error("set", "unknown governor '%s' (available: %s)", name, h->available);
	if (!strcmp(now, name)) {
		printf("governor: %s (unchanged)\n", name);
		return 0;
	}
	ret = host_set_governor(name);
	if (ret)
		return write_error(ret, "current_governor");
	printf("governor: %s -> %s\n", now, name);
	(*changed)++;
	return 0;
}

static const struct option set_longopts[] = {
	{ "cpus", required_argument, NULL, 'c' },
	{ "disable", required_argument, NULL, 'd' },
	{ "enable", required_argument, NULL, 'e' },
	{ "disable-by-latency", required_argument, NULL, 'D' },
	{ "enable-all", no_argument, NULL, 'E' },
	{ "governor", required_argument, NULL, 'g' },
	CLI_OPT_QUIET,
	CLI_OPT_HELP,
	CLI_OPT_END,
};

const struct cli_options cli_set_opts = {
	.shortopts = "c:d:e:D:Eg:qh",
	.longopts = set_longopts,
};

int cmd_set(int argc, char **argv)
{
	struct action actions[MAX_ACTIONS];
	const char *cpus = NULL, *governor = NULL;
	int nr = 0, c, i, changed = 0, ret = 0;
	struct host_cpuidle h;
	struct host_cpuset set;

	optind = 1;
	while ((c = cli_getopt(argc, argv, &cli_set_opts)) != -1) {
		if (strchr("deDE", c) && nr == MAX_ACTIONS)
			return cli_error("set", "too many actions");
		switch (c) {
		case 'c':
			cpus = optarg;
			break;
		case 'd':
		case 'e':
			actions[nr].type = c == 'd' ? ACT_DISABLE : ACT_ENABLE;
			actions[nr++].state = optarg;
			break;
		case 'D':
			actions[nr].type = ACT_LATENCY;
			if (cli_parse_ll(optarg, 0, UINT32_MAX, &actions[nr].usec))
				return cli_error("set", "-D: '%s' is not a latency in us (0 to %u)",
						 optarg, UINT32_MAX);
			nr++;
			break;
		case 'E':
			actions[nr++].type = ACT_ENABLE_ALL;
			break;
		case 'g':
			governor = optarg;
			break;
		case 'h':
			set_usage(stdout);
			return 0;
		default:
			set_usage(stderr);
			return 2;
		}
	}
	if (optind != argc)
		return cli_usage_error("set", "unexpected argument '%s'", argv[optind]);
	if (!nr && !governor)
		return cli_error("set", "nothing to do: give -d, -e, -D, -E or -g (see --help)");
	if (host_cli_read("set", &h))
		return 1;
	if (geteuid() && host_sysfs_is_real()) {
		host_cpuidle_free(&h);
		return cli_error("set", "changing cpuidle needs root (sysfs writes need CAP_SYS_ADMIN)");
	}
	if (host_cli_cpus("set", cpus, &h, &set)) {
		host_cpuidle_free(&h);
		return 1;
	}
	if (nr && !strcmp(h.driver, "none")) {
		host_cpuidle_free(&h);
		return cli_error("set", "no cpuidle driver: there are no idle states to change");
	}
	for (i = 0; i < nr && !ret; i++)
		ret = apply_state_action(&actions[i], &h, &set, &changed);
	if (!ret && governor)
		ret = switch_governor(&h, governor, &changed);
	if (!ret && nr && (!cpus || !strcmp(cpus, "all")))
		say_not_changed(&h);
	if (!ret && nr)
		warn_all_disabled(&h, &set);
	host_cpuidle_free(&h);
	if (!ret)
		printf("%d change%s\n", changed, changed == 1 ? "" : "s");
	return ret;
}
