// SPDX-License-Identifier: MIT
/*
 * record_perf.c - recording through perf (host_record.h): perf record on
 * every CPU with the monotonic clock into FILE (perf.data, the lab reads it
 * natively), the recording's description beside it in FILE.recording; or,
 * with text asked for, into FILE.perf.data, then perf script in the shape
 * of ../shared/traces into FILE, the description at its top.
 *
 * perf runs in a process group of its own, so that a signal to ours
 * (Ctrl-C, a hangup, kill -TERM -PGID, timeout(1)) reaches us and not it:
 * we then stop it with SIGINT, on which it finishes its data file (on
 * SIGHUP it would die with the file unfinished).  If we die first, the
 * kernel sends it SIGINT (PR_SET_PDEATHSIG).  It starts with its events
 * disabled (-D -1) and enables them on our word (--control: "enable",
 * "ack"); the command is ours, not perf's, run in our process group once
 * the events are on, as the tracefs way runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_child.h"
#include "record_internal.h"

#define CHECK_PERF_NS	200000000	/* how often we look whether perf still runs */
#define ENABLE_TIMEOUT_MS 120000	/* perf sets up within this, or is given up */

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

/* remove a failed recording's output, if it is a regular file */
static void drop_output(const char *path)
{
	struct stat st;

	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		unlink(path);
}

struct perf_child {
	pid_t parent;
	int ctl_fd, ack_fd;
};

/*
 * perf's child set-up: the signals host_signals_block() blocked unblocked
 * and a plain SIGINT, a process group of its own, SIGINT on our death,
 * standard input /dev/null, @ctl_fd and @ack_fd kept open across exec.
 */
static int perf_setup(void *arg)
{
	const struct perf_child *pc = arg;
	sigset_t set;
	int null;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	signal(SIGINT, SIG_DFL);
	null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (setpgid(0, 0) || prctl(PR_SET_PDEATHSIG, SIGINT) ||
	    null < 0 || dup2(null, STDIN_FILENO) < 0 ||
	    fcntl(pc->ctl_fd, F_SETFD, 0) || fcntl(pc->ack_fd, F_SETFD, 0))
		return errno;
	if (getppid() != pc->parent)	/* we died before the death signal was set */
		return ESRCH;
	return 0;
}

/* Start perf record with perf_setup(); as host_spawn(). */
static int spawn_perf(char *const *argv, int ctl_fd, int ack_fd, pid_t *pid)
{
	struct perf_child pc = { .parent = getpid(), .ctl_fd = ctl_fd, .ack_fd = ack_fd };

	return host_spawn_with(argv, perf_setup, &pc, pid);
}

/* @fd moved above standard error if it is one of 0-2 (closed at our start) */
static int above_stdio(int fd)
{
	int moved;

	if (fd > STDERR_FILENO)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	close(fd);
	return moved;
}

/* whether SIGINT, SIGTERM or SIGHUP is pending (taken if so) */
static bool stop_pending(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	return sigtimedwait(&set, NULL, &zero) > 0;
}

enum enable_result { ENABLED, PERF_ENDED, STOPPED, TOO_LONG };

/* wait for perf's "ack" of the "enable" on @ack_fd */
static enum enable_result wait_enabled(int ack_fd)
{
	struct pollfd pfd = { .fd = ack_fd, .events = POLLIN };
	char buf[64];
	size_t len = 0;
	int waited;
	ssize_t n;

	for (waited = 0; waited < ENABLE_TIMEOUT_MS; waited += 100) {
		if (stop_pending())
			return STOPPED;
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(ack_fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return PERF_ENDED;	/* it closed the pipe: it exited */
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "ack"))
			return ENABLED;
		if (len >= sizeof(buf) - 1)
			len = 0;
	}
	return TOO_LONG;
}

/* stop perf (SIGINT: it writes its data; SIGKILL: no need); its exit code */
static int stop_perf(pid_t pid, int sig)
{
	int status = 0;

	kill(pid, sig);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	return host_exit_code(status);
}

/* end the command if it still runs (as the tracefs way: SIGTERM) */
static void stop_cmd(pid_t pid)
{
	int status;

	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/*
 * Record until the command ends, the time is up, a signal comes or perf
 * ends; then stop what runs.  Return: perf's exit code; or a negative
 * errno with @err set if the command cannot run.
 */
static int record_until_done(const struct host_record_opts *o, pid_t perf,
			     struct host_record_result *r, char *err, size_t errlen)
{
	int64_t end = o->duration_ns > 0 ? host_now_ns() + o->duration_ns : -1;
	int status = 0, signo, ret;
	pid_t cmd = 0;

	if (o->cmd) {
		ret = host_spawn(o->cmd, -1, -1, &cmd);
		if (ret) {
			snprintf(err, errlen, "cannot run '%s': %s", o->cmd[0], strerror(-ret));
			r->cmd_start_err = ret;
			stop_perf(perf, SIGKILL);
			return ret;
		}
	}
	for (;;) {
		int64_t wait = CHECK_PERF_NS;
		enum host_wake wake;

		if (end >= 0 && end - host_now_ns() < wait)
			wait = end - host_now_ns();
		if (end >= 0 && wait <= 0)
			break;
		wake = host_wait(cmd, wait, &status, &signo);
		if (wake == HOST_WAKE_CHILD) {
			r->cmd_exit = host_exit_code(status);
			cmd = 0;
			break;
		}
		if (wake == HOST_WAKE_SIGNAL)
			break;
		if (waitpid(perf, &status, WNOHANG) == perf) {
			/* perf ended on its own, or someone stopped it */
			stop_cmd(cmd);
			return host_exit_code(status);
		}
	}
	stop_cmd(cmd);
	return stop_perf(perf, SIGINT);
}

/* perf script of @data into @out; 0, or a negative errno with @err set */
static int write_script(const char *data, const struct host_record_opts *o, char *err,
			size_t errlen)
{
	char *script[] = { "perf", "script", "-i", (char *)data, "-F",
			   "comm,pid,cpu,time,event,trace", "--ns", NULL };
	const char *out = o->out;
	int fd, code, ret;

	fd = open(out, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0 || (ret = record_write_description(fd, o))) {
		ret = fd < 0 ? -errno : ret;
		snprintf(err, errlen, "%s: %s", out, strerror(-ret));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	code = run_quiet(script, fd);
	close(fd);
	if (code) {
		snprintf(err, errlen, "perf script failed (%s %d)", code < 0 ? "error" : "exit",
			 code);
		return -EIO;
	}
	return 0;
}

/* the description beside the perf.data, in FILE.recording; 0 or -errno */
static int write_side(const struct host_record_opts *o, char *err, size_t errlen)
{
	char side[4200];
	int fd, ret;

	if (!o->description)
		return 0;
	snprintf(side, sizeof(side), "%s" HOST_RECORD_SIDE_SUFFIX, o->out);
	fd = open(side, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ret = fd < 0 ? -errno : record_write_description(fd, o);
	if (fd >= 0 && close(fd) && !ret)
		ret = -errno;
	if (ret) {
		snprintf(err, errlen, "%s: %s", side, strerror(-ret));
		unlink(side);
	}
	return ret;
}

int record_perf(const struct record_ctx *ctx, const struct host_record_opts *o,
		struct host_record_result *r, char *err, size_t errlen)
{
	char data[4200], control[64], *argv[24 + 2 * RECORD_MAX_EVENTS];
	int argc = 0, i, ret, code, ctl[2] = { -1, -1 }, ack[2] = { -1, -1 };
	enum enable_result how;
	pid_t pid = 0;

	if (o->text)
		snprintf(data, sizeof(data), "%s.perf.data", o->out);
	else
		snprintf(data, sizeof(data), "%s", o->out);
	if (pipe2(ctl, O_CLOEXEC) || pipe2(ack, O_CLOEXEC)) {
		ret = -errno;
		snprintf(err, errlen, "pipe: %s", strerror(-ret));
		goto out;
	}
	/* perf's ends must survive its standard input becoming /dev/null */
	ctl[0] = above_stdio(ctl[0]);
	ack[1] = above_stdio(ack[1]);
	if (ctl[0] < 0 || ack[1] < 0) {
		ret = -errno;
		snprintf(err, errlen, "pipe: %s", strerror(-ret));
		goto out;
	}
	snprintf(control, sizeof(control), "fd:%d,%d", ctl[0], ack[1]);
	argv[argc++] = "perf";
	argv[argc++] = "record";
	argv[argc++] = "-q";
	argv[argc++] = "-k";
	argv[argc++] = "CLOCK_MONOTONIC";
	argv[argc++] = "-a";
	argv[argc++] = "-m";
	argv[argc++] = "1024";
	argv[argc++] = "-D";		/* the events off until "enable" */
	argv[argc++] = "-1";
	argv[argc++] = "--control";
	argv[argc++] = control;
	argv[argc++] = "-o";
	argv[argc++] = data;
	for (i = 0; i < ctx->nr_events; i++) {
		argv[argc++] = "-e";
		argv[argc++] = (char *)ctx->events[i];
	}
	argv[argc] = NULL;
	unlink(data);	/* else perf keeps it as .old */
	/* perf reads it once set up (the pipe holds it): no SIGPIPE if it fails first */
	if (write(ctl[1], "enable\n", 7) != 7) {
		ret = -errno;
		snprintf(err, errlen, "pipe: %s", strerror(-ret));
		goto out;
	}
	ret = spawn_perf(argv, ctl[0], ack[1], &pid);
	close(ctl[0]);
	close(ack[1]);
	ctl[0] = ack[1] = -1;
	if (ret) {
		snprintf(err, errlen, "cannot run perf: %s", strerror(-ret));
		goto out;
	}
	how = wait_enabled(ack[0]);
	switch (how) {
	case ENABLED:
		code = record_until_done(o, pid, r, err, errlen);
		if (code < 0) {
			ret = code;
			goto out;
		}
		break;
	case STOPPED:		/* told to stop before the events were on: an empty trace */
		stop_perf(pid, SIGKILL);
		ret = 0;
		goto out;
	case TOO_LONG:
		stop_perf(pid, SIGKILL);
		snprintf(err, errlen, "perf record did not start within %d s",
			 ENABLE_TIMEOUT_MS / 1000);
		ret = -ETIMEDOUT;
		goto out;
	default:		/* PERF_ENDED: it said why on standard error */
		code = stop_perf(pid, SIGKILL);
		snprintf(err, errlen, "perf record failed (exit %d)", code);
		ret = -EIO;
		goto out;
	}
	/* SIGINT: we stopped it; SIGTERM: someone else did; it wrote its data either way */
	if ((code && code != 128 + SIGINT && code != 128 + SIGTERM) || access(data, R_OK)) {
		snprintf(err, errlen, "perf record failed (exit %d)", code);
		ret = -EIO;
		goto out;
	}
	ret = o->text ? write_script(data, o, err, errlen) : write_side(o, err, errlen);
out:
	for (i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (ack[i] >= 0)
			close(ack[i]);
	}
	if (o->text)
		unlink(data);
	if (ret)
		drop_output(o->out);
	return ret;
}
