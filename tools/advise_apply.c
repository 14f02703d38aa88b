// SPDX-License-Identifier: MIT
/*
 * advise_apply.c - "cpuidle advise --apply": set the advised governor,
 * haltpoll's polling window and its grow and shrink factors, disable the
 * advised states on every CPU, hold the advised CPU latency QoS request,
 * record a second trace as long as the first (cpuidle record, run as a
 * child), and put the previous settings back on request, on failure or on
 * a signal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "advise.h"
#include "cli.h"
#include "host_child.h"
#include "host_qos.h"
#include "host_sysfs.h"

/* a haltpoll parameter's value; Return: whether it exists (and was read) */
static bool read_param(const char *attr, char *buf, size_t len)
{
	char path[512];

	return !host_sysfs_path(path, sizeof(path), "%s", attr) &&
	       !host_read_line(path, buf, len);
}

int advise_host_read(struct advise_host *h, char *err, size_t errlen)
{
	struct host_cpuidle hc;
	unsigned int i;
	int ret, k;

	memset(h, 0, sizeof(*h));
	ret = host_cpuidle_read(&hc, err, errlen);
	if (ret)
		return ret;
	snprintf(h->governor, sizeof(h->governor), "%s", host_current_governor(&hc));
	snprintf(h->available, sizeof(h->available), "%s", hc.available);
	snprintf(h->driver, sizeof(h->driver), "%s", hc.driver);
	h->cpus = calloc(hc.nr_cpus ? hc.nr_cpus : 1, sizeof(*h->cpus));
	if (!h->cpus) {
		host_cpuidle_free(&hc);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	h->nr_cpus = hc.nr_cpus;
	for (i = 0; i < hc.nr_cpus; i++) {
		const struct host_cpu *c = &hc.cpus[i];
		struct advise_cpu *a = &h->cpus[i];

		a->cpu = c->cpu;
		a->state_count = c->state_count;
		for (k = 0; k < c->state_count; k++) {
			if (!host_state_has(&c->states[k], HOST_F_DISABLE))
				continue;
			a->can_disable |= 1u << k;
			if (c->states[k].disable)
				a->disabled |= 1u << k;
		}
	}
	host_cpuidle_free(&hc);
	h->has_window = read_param(ADVISE_WINDOW_ATTR, h->window, sizeof(h->window));
	h->has_grow = read_param(ADVISE_GROW_ATTR, h->grow, sizeof(h->grow));
	h->has_shrink = read_param(ADVISE_SHRINK_ATTR, h->shrink, sizeof(h->shrink));
	return 0;
}

void advise_host_free(struct advise_host *h)
{
	free(h->cpus);
	h->cpus = NULL;
	h->nr_cpus = 0;
}

bool advise_host_has_governor(const struct advise_host *h, const char *name)
{
	const char *p = h->available;
	size_t n = strlen(name);

	while ((p = strstr(p, name))) {
		if ((p == h->available || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static int write_param(const char *attr, const char *value)
{
	char path[512];
	int ret = host_sysfs_path(path, sizeof(path), "%s", attr);

	return ret ? ret : host_write_text(path, value);
}

/* a parameter's name: the last part of its path */
static const char *param_name(const char *attr)
{
	const char *slash = strrchr(attr, '/');

	return slash ? slash + 1 : attr;
}

/**
 * struct changes - what advise_apply() wrote, to be put back
 * @governor: current_governor
 * @window: guest_halt_poll_ns
 * @grow: guest_halt_poll_grow
 * @shrink: guest_halt_poll_shrink
 * @from: the first state disabled (0: none)
 * @cpus: how many of the host's CPUs (advise_host.cpus, in order) had
 *	states disabled, the last one perhaps in part
 */
struct changes {
	bool governor, window, grow, shrink;
	int from;
	unsigned int cpus;
};

/*
 * Check that every CPU has stateK (@from) and a disable file for it and for
 * each deeper state, before anything is written.  Return: 0, or -ENOENT.
 */
static int check_disable(const struct advise_host *h, int from)
{
	unsigned int i;
	int k;

	if (!h->nr_cpus) {
		cli_error("advise", "no CPU has a cpuidle directory: no state to disable");
		return -ENOENT;
	}
	for (i = 0; i < h->nr_cpus; i++) {
		const struct advise_cpu *c = &h->cpus[i];

		if (c->state_count <= from) {
			cli_error("advise", "cpu%u has no state%d (%d states): the recording's "
				  "platform is not this host's", c->cpu, from, c->state_count);
			return -ENOENT;
		}
		for (k = from; k < c->state_count; k++)
			if (!(c->can_disable & (1u << k))) {
				cli_error("advise", "cpu%u state%d: this kernel has no disable "
					  "file", c->cpu, k);
				return -ENOENT;
			}
	}
	return 0;
}

/* stateK (@from) and deeper disabled on every CPU; @ch->cpus counts the CPUs touched */
static int disable_states(const struct advise_host *h, int from, struct changes *ch)
{
	unsigned int i;
	int k, ret;

	ch->from = from;
	for (i = 0; i < h->nr_cpus; i++) {
		const struct advise_cpu *c = &h->cpus[i];

		ch->cpus = i + 1;	/* a failed write may have half-happened */
		for (k = from; k < c->state_count; k++) {
			if (c->disabled & (1u << k))
				continue;
			ret = host_state_set_disable(c->cpu, k, true);
			if (ret) {
				cli_error("advise", "disabling cpu%u state%d: %s", c->cpu, k,
					  strerror(-ret));
				return ret;
			}
		}
	}
	return 0;
}

/* the previous settings back; Return: 0, or the first write's errno */
static int put_back(const struct advise_host *before, const struct changes *ch)
{
	const struct {
		bool changed;
		const char *attr, *value;
	} params[] = {
		{ ch->window, ADVISE_WINDOW_ATTR, before->window },
		{ ch->grow, ADVISE_GROW_ATTR, before->grow },
		{ ch->shrink, ADVISE_SHRINK_ATTR, before->shrink },
	};
	unsigned int i;
	int ret = 0, r, k;

	if (ch->governor) {
		r = host_set_governor(before->governor);
		if (r) {
			cli_error("advise", "putting back governor %s: %s", before->governor,
				  strerror(-r));
			ret = ret ? ret : r;
		}
	}
	for (i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		if (!params[i].changed)
			continue;
		r = write_param(params[i].attr, params[i].value);
		if (r) {
			cli_error("advise", "putting back %s=%s: %s", param_name(params[i].attr),
				  params[i].value, strerror(-r));
			ret = ret ? ret : r;
		}
	}
	/* the states found enabled are enabled again; those found disabled were left */
	for (i = 0; i < ch->cpus; i++) {
		const struct advise_cpu *c = &before->cpus[i];

		for (k = ch->from; k < c->state_count; k++) {
			if (c->disabled & (1u << k))
				continue;
			r = host_state_set_disable(c->cpu, k, false);
			if (r) {
				cli_error("advise", "enabling cpu%u state%d again: %s", c->cpu, k,
					  strerror(-r));
				ret = ret ? ret : r;
			}
		}
	}
	if (!ret && (ch->governor || ch->window || ch->grow || ch->shrink || ch->cpus)) {
		char msg[512];
		size_t n = 0;

		msg[0] = '\0';
		for (i = 0; i < sizeof(params) / sizeof(params[0]) && n < sizeof(msg); i++)
			if (params[i].changed)
				n += (size_t)snprintf(msg + n, sizeof(msg) - n, ", %s=%s",
						      param_name(params[i].attr), params[i].value);
		if (ch->cpus && n < sizeof(msg))
			snprintf(msg + n, sizeof(msg) - n, ", state%d and deeper as they were on "
				 "%u CPU%s", ch->from, ch->cpus, ch->cpus == 1 ? "" : "s");
		cli_info("advise", "put back governor %s%s", before->governor, msg);
	}
	return ret;
}

/* write haltpoll parameter @attr as @value where it exists and differs from @now */
static int set_param(bool exists, const char *now, const char *attr, const char *value,
		     bool *changed)
{
	int ret;

	if (!value || !exists || !strcmp(now, value))
		return 0;
	ret = write_param(attr, value);
	*changed = true;	/* a failed write may have half-happened */
	if (ret)
		cli_error("advise", "%s=%s: %s", param_name(attr), value, strerror(-ret));
	return ret;
}

/* what was applied, for the message: ", guest_halt_poll_ns=V, ..." */
static void describe(const struct advise_setting *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	if (s->window)
		n += (size_t)snprintf(buf + n, len - n, ", guest_halt_poll_ns=%s", s->window);
	if (s->grow && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", guest_halt_poll_grow=%s", s->grow);
	if (s->shrink && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", guest_halt_poll_shrink=%s", s->shrink);
	if (s->disable_from && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", state%d and deeper disabled",
				      s->disable_from);
	if (s->qos_us >= 0 && n < len)
		snprintf(buf + n, len - n, ", the QoS request held");
}

int advise_apply(const struct advise_host *before, const struct advise_setting *s,
		 const char *out, int64_t duration_ns, char *const *cmd, bool restore)
{
	struct changes ch = { 0 };
	char secs[32], what[256];
	char *argv[ADVISE_MAX_CMD + 8];
	int qos_fd = -1, ret, status = 0, signo = 0, n = 0, i;
	pid_t pid;

	/* cpuidle record, as long as the first recording or while CMD runs */
	argv[n++] = "/proc/self/exe";
	argv[n++] = "record";
	argv[n++] = "--text";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
	if (cli_is_quiet())
		argv[n++] = "-q";	/* advise's -q is its recording's too */
	if (cmd && cmd[0]) {
		argv[n++] = "--";
		for (i = 0; cmd[i]; i++) {
			if (i == ADVISE_MAX_CMD) {
				cli_error("advise", "a command of more than %d words", ADVISE_MAX_CMD);
				return -E2BIG;
			}
			argv[n++] = cmd[i];
		}
	} else {
		snprintf(secs, sizeof(secs), "%.3f", (double)duration_ns / 1e9);
		argv[n++] = "-t";
		argv[n++] = secs;
	}
	argv[n] = NULL;

	/* nothing is written before every CPU is known to take the disables */
	if (s->disable_from > 0) {
		ret = check_disable(before, s->disable_from);
		if (ret)
			return ret;
	}
	if (strcmp(before->governor, s->governor)) {
		ret = host_set_governor(s->governor);
		if (ret) {
			cli_error("advise", "governor %s: %s", s->governor, strerror(-ret));
			goto fail;
		}
		ch.governor = true;
	}
	ret = set_param(before->has_window, before->window, ADVISE_WINDOW_ATTR, s->window,
			&ch.window);
	if (!ret)
		ret = set_param(before->has_grow, before->grow, ADVISE_GROW_ATTR, s->grow,
				&ch.grow);
	if (!ret)
		ret = set_param(before->has_shrink, before->shrink, ADVISE_SHRINK_ATTR, s->shrink,
				&ch.shrink);
	if (!ret && s->disable_from > 0)
		ret = disable_states(before, s->disable_from, &ch);
	if (ret)
		goto fail;
	if (s->qos_us >= 0) {
		qos_fd = host_qos_hold(s->qos_us);
		if (qos_fd < 0) {
			ret = qos_fd;
			cli_error("advise", "CPU latency QoS %d us: %s", s->qos_us, strerror(-ret));
			goto fail;
		}
	}
	describe(s, what, sizeof(what));
	if (cmd && cmd[0])
		cli_info("advise", "applied governor %s%s; recording %s while %s runs",
			s->governor, what, out, cmd[0]);
	else
		cli_info("advise", "applied governor %s%s; recording %s for %.1f s",
			s->governor, what, out, (double)duration_ns / 1e9);
	host_signals_block();
	ret = host_spawn(argv, -1, -1, &pid);
	if (ret) {
		cli_error("advise", "cpuidle record: %s", strerror(-ret));
		goto fail;
	}
	for (;;) {
		enum host_wake w = host_wait(pid, -1, &status, &signo);

		if (w == HOST_WAKE_CHILD)
			break;
		if (w == HOST_WAKE_SIGNAL && !ret) {
			/* passed on to the recording, which ends as interrupted */
			ret = -EINTR;
			cli_error("advise", "interrupted (signal %d): putting the settings back",
				  signo);
		}
	}
	if (!ret && host_exit_code(status)) {
		cli_error("advise", "cpuidle record exited %d", host_exit_code(status));
		ret = -EIO;
	}
	if (qos_fd >= 0)
		host_qos_release(qos_fd);
	qos_fd = -1;
	if (ret)
		goto fail;
	if (restore && put_back(before, &ch))
		return -EIO;
	return 0;
fail:
	if (qos_fd >= 0)
		host_qos_release(qos_fd);
	put_back(before, &ch);
	return ret;
}
