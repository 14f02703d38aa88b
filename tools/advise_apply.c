// SPDX-License-Identifier: MIT
/*
 * advise_apply.c - "cpuidle advise --apply": set the advised governor and
 * polling window on the host, hold the advised CPU latency QoS request,
 * record a second trace as long as the first (cpuidle record, run as a
 * child), and put the previous settings back on request, on failure or on
 * a signal.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "advise.h"
#include "cli.h"
#include "host_child.h"
#include "host_qos.h"
#include "host_sysfs.h"

#define WINDOW_SYSFS	"module/haltpoll/parameters/guest_halt_poll_ns"

int advise_host_read(struct advise_host *h, char *err, size_t errlen)
{
	struct host_cpuidle hc;
	char path[512];
	int ret;

	memset(h, 0, sizeof(*h));
	ret = host_cpuidle_read(&hc, err, errlen);
	if (ret)
		return ret;
	snprintf(h->governor, sizeof(h->governor), "%s", host_current_governor(&hc));
	snprintf(h->available, sizeof(h->available), "%s", hc.available);
	snprintf(h->driver, sizeof(h->driver), "%s", hc.driver);
	host_cpuidle_free(&hc);
	if (!host_sysfs_path(path, sizeof(path), WINDOW_SYSFS) &&
	    !host_read_line(path, h->window, sizeof(h->window)))
		h->has_window = true;
	return 0;
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

static int write_window(const char *value)
{
	char path[512];
	int ret = host_sysfs_path(path, sizeof(path), WINDOW_SYSFS);

	return ret ? ret : host_write_text(path, value);
}

/* the previous settings back; Return: 0, or the first write's errno */
static int put_back(const struct advise_host *before, bool governor, bool window)
{
	int ret = 0, r;

	if (governor) {
		r = host_set_governor(before->governor);
		if (r) {
			cli_error("advise", "putting back governor %s: %s", before->governor,
				  strerror(-r));
			ret = ret ? ret : r;
		}
	}
	if (window) {
		r = write_window(before->window);
		if (r) {
			cli_error("advise", "putting back guest_halt_poll_ns=%s: %s",
				  before->window, strerror(-r));
			ret = ret ? ret : r;
		}
	}
	if (!ret && (governor || window))
		cli_say(CLI_NAME " advise: put back governor %s%s%s\n", before->governor,
			before->has_window ? ", guest_halt_poll_ns=" : "",
			before->has_window ? before->window : "");
	return ret;
}

int advise_apply(const struct advise_host *before, const struct advise_setting *s,
		 const char *out, int64_t duration_ns, char *const *cmd, bool restore)
{
	bool gov_set = false, window_set = false;
	char secs[32];
	char *argv[ADVISE_MAX_CMD + 8];
	int qos_fd = -1, ret, status = 0, signo = 0, n = 0, i;
	pid_t pid;

	/* cpuidle record, as long as the first recording or while CMD runs */
	argv[n++] = "/proc/self/exe";
	argv[n++] = "record";
	argv[n++] = "--text";
	argv[n++] = "-o";
	argv[n++] = (char *)out;
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

	if (strcmp(before->governor, s->governor)) {
		ret = host_set_governor(s->governor);
		if (ret) {
			cli_error("advise", "governor %s: %s", s->governor, strerror(-ret));
			goto fail;
		}
		gov_set = true;
	}
	if (s->window && before->has_window && strcmp(before->window, s->window)) {
		ret = write_window(s->window);
		window_set = true;	/* a failed write may have half-happened */
		if (ret) {
			cli_error("advise", "guest_halt_poll_ns=%s: %s", s->window, strerror(-ret));
			goto fail;
		}
	}
	if (s->qos_us >= 0) {
		qos_fd = host_qos_hold(s->qos_us);
		if (qos_fd < 0) {
			ret = qos_fd;
			cli_error("advise", "CPU latency QoS %d us: %s", s->qos_us, strerror(-ret));
			goto fail;
		}
	}
	if (cmd && cmd[0])
		cli_say(CLI_NAME " advise: applied governor %s%s%s%s; recording %s while %s runs\n",
			s->governor, s->window ? ", guest_halt_poll_ns=" : "",
			s->window ? s->window : "", s->qos_us >= 0 ? ", the QoS request held" : "",
			out, cmd[0]);
	else
		cli_say(CLI_NAME " advise: applied governor %s%s%s%s; recording %s for %.1f s\n",
			s->governor, s->window ? ", guest_halt_poll_ns=" : "",
			s->window ? s->window : "", s->qos_us >= 0 ? ", the QoS request held" : "",
			out, (double)duration_ns / 1e9);
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
	if (restore && put_back(before, gov_set, window_set))
		return -EIO;
	return 0;
fail:
	if (qos_fd >= 0)
		host_qos_release(qos_fd);
	put_back(before, gov_set, window_set);
	return ret;
}
