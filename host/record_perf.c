// SPDX-License-Identifier: MIT
/*
 * record_perf.c - recording through perf (host_record.h): perf record on
 * every CPU with the monotonic clock into FILE.perf.data, then perf script
 * in the shape of ../shared/traces into FILE.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_child.h"
#include "record_internal.h"

static int run_quiet(char *const *argv, int out_fd)
{
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC), status, ret;
	pid_t pid;

	ret = host_spawn(argv, out_fd >= 0 ? out_fd : null, null, &pid);
	if (null >= 0)
		close(null);
	if (ret)
		return ret;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return host_exit_code(status);
}

bool record_perf_runs(void)
{
	char *argv[] = { "perf", "--version", NULL };

	return run_quiet(argv, -1) == 0;
}

int record_perf(const struct record_ctx *ctx, const struct host_record_opts *o,
		struct host_record_result *r, char *err, size_t errlen)
{
	char data[4200], *argv[16 + 2 * RECORD_MAX_EVENTS + 256];
	int argc = 0, i, status = 0, signo, fd, ret, code;
	enum host_wake wake;
	pid_t pid;

	snprintf(data, sizeof(data), "%s.perf.data", o->out);
	argv[argc++] = "perf";
	argv[argc++] = "record";
	argv[argc++] = "-q";
	argv[argc++] = "-k";
	argv[argc++] = "CLOCK_MONOTONIC";
	argv[argc++] = "-a";
	argv[argc++] = "-m";
	argv[argc++] = "1024";
	argv[argc++] = "-o";
	argv[argc++] = data;
	for (i = 0; i < ctx->nr_events; i++) {
		argv[argc++] = "-e";
		argv[argc++] = (char *)ctx->events[i];
	}
	if (o->cmd) {
		argv[argc++] = "--";
		for (i = 0; o->cmd[i]; i++) {
			if (argc >= (int)(sizeof(argv) / sizeof(argv[0])) - 1) {
				snprintf(err, errlen, "too many arguments for the command");
				return -E2BIG;
			}
			argv[argc++] = o->cmd[i];
		}
	}
	argv[argc] = NULL;
	unlink(data);	/* else perf keeps it as .old */
	ret = host_spawn(argv, -1, -1, &pid);
	if (ret) {
		snprintf(err, errlen, "cannot run perf: %s", strerror(-ret));
		return ret == -ENOENT ? -ENOENT : ret;
	}
	wake = host_wait(pid, o->duration_ns > 0 ? o->duration_ns : -1, &status, &signo);
	if (wake != HOST_WAKE_CHILD) {
		/* time is up, or we were told to stop: perf stops on SIGINT and writes its data */
		kill(pid, SIGINT);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	code = host_exit_code(status);
	if (o->cmd && wake == HOST_WAKE_CHILD)
		r->cmd_exit = code;
	if (access(data, R_OK) || (!o->cmd && code && code != 128 + SIGINT)) {
		snprintf(err, errlen, "perf record failed (exit %d)", code);
		unlink(data);
		return -EIO;
	}
	fd = open(o->out, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", o->out, strerror(-ret));
		unlink(data);
		return ret;
	}
	{
		char *script[] = { "perf", "script", "-i", data, "-F", "comm,pid,cpu,time,event,trace",
				   "--ns", NULL };

		code = run_quiet(script, fd);
	}
	close(fd);
	unlink(data);
	if (code) {
		snprintf(err, errlen, "perf script failed (%s %d)", code < 0 ? "error" : "exit",
			 code);
		return -EIO;
	}
	return 0;
}
