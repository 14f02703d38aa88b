// SPDX-License-Identifier: MIT
/*
 * isolate.c - a run in a child process (cpuidle_lab_run.isolated): a
 * governor that crashes, a plugin's say, ends that run alone.
 *
 * The child replays as the caller would have, writes the result down a
 * pipe and leaves with _exit(); the parent reads it and reaps the child.
 * A child killed by a signal gives -EFAULT and the signal's name in
 * error_msg.  The child starts with the fatal signals at their default
 * action, so a crash handler of the program's (which may remove its
 * output files) does not run in it; its decisions FILE is flushed first,
 * so that nothing buffered is written twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay_internal.h"

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGPIPE };

/* the child: replay, hand the result over, never return */
static void child(const struct cpuidle_lab_run *cfg, int fd)
{
	struct cpuidle_lab_run run = *cfg;
	struct cpuidle_lab_result res;
	const char *p = (const char *)&res;
	size_t left = sizeof(res);
	unsigned int i;

	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		signal(fatal_signals[i], SIG_DFL);
	run.isolated = false;
	cpuidle_lab_replay(&run, &res);
	if (run.decisions && fflush(run.decisions))
		res.error = res.error ? res.error : -EIO;
	while (left) {
		ssize_t n = write(fd, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);
		p += n;
		left -= (size_t)n;
	}
	_exit(0);
}

int replay_isolated(const struct cpuidle_lab_run *cfg, struct cpuidle_lab_result *res)
{
	size_t got = 0;
	int fds[2], status;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	snprintf(res->governor, sizeof(res->governor), "%s", cfg->governor ? cfg->governor : "");
	if (cfg->on_decision)		/* it would be called in the child, to no effect */
		return res->error = -EINVAL;
	if (cfg->decisions && fflush(cfg->decisions))
		return res->error = -EIO;
	if (pipe2(fds, O_CLOEXEC))
		return res->error = -errno;
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(fds[0]);
		close(fds[1]);
		return res->error = err;
	}
	if (!pid) {
		close(fds[0]);
		child(cfg, fds[1]);
	}
	close(fds[1]);
	while (got < sizeof(*res)) {
		ssize_t n = read(fds[0], (char *)res + got, sizeof(*res) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got == sizeof(*res) && WIFEXITED(status) && !WEXITSTATUS(status))
		return res->error;
	memset(res, 0, sizeof(*res));
	snprintf(res->governor, sizeof(res->governor), "%s", cfg->governor);
	if (WIFSIGNALED(status)) {
		snprintf(res->error_msg, sizeof(res->error_msg),
			 "governor %s crashed: signal %d (%s)",
			 cfg->governor, WTERMSIG(status), strsignal(WTERMSIG(status)));
		return res->error = -EFAULT;
	}
	snprintf(res->error_msg, sizeof(res->error_msg),
		 "governor %s: its run's process ended without a result", cfg->governor);
	return res->error = -EIO;
}
