// SPDX-License-Identifier: MIT
/* child.c - commands run under cpuidle, and waiting for them (host_child.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host_child.h"

static sigset_t saved_mask;
static bool blocked;

static void wait_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

void host_signals_block(void)
{
	sigset_t set;

	if (blocked)
		return;
	wait_set(&set);
	sigprocmask(SIG_BLOCK, &set, &saved_mask);
	blocked = true;
}

int64_t host_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int host_spawn_with(char *const *argv, int (*setup)(void *arg), void *arg, pid_t *pid)
{
	int pipefd[2], err = 0;
	ssize_t n;
	pid_t p;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	p = fork();
	if (p < 0) {
		err = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return err;
	}
	if (!p) {
		close(pipefd[0]);
		err = setup ? setup(arg) : 0;
		if (!err) {
			execvp(argv[0], argv);
			err = errno;
		}
		n = write(pipefd[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(pipefd[1]);
	/* the pipe closes on a successful exec; an error comes through it */
	do
		n = read(pipefd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pipefd[0]);
	if (n == (ssize_t)sizeof(err)) {
		waitpid(p, NULL, 0);
		return -err;
	}
	*pid = p;
	return 0;
}

struct spawn_fds {
	int out_fd, err_fd;
};

/* host_spawn()'s child: the signal mask we started with, its outputs */
static int spawn_setup(void *arg)
{
	const struct spawn_fds *fds = arg;

	if (blocked)
		sigprocmask(SIG_SETMASK, &saved_mask, NULL);
	if ((fds->out_fd >= 0 && dup2(fds->out_fd, STDOUT_FILENO) < 0) ||
	    (fds->err_fd >= 0 && dup2(fds->err_fd, STDERR_FILENO) < 0))
		return errno;
	return 0;
}

int host_spawn(char *const *argv, int out_fd, int err_fd, pid_t *pid)
{
	struct spawn_fds fds = { .out_fd = out_fd, .err_fd = err_fd };

	return host_spawn_with(argv, spawn_setup, &fds, pid);
}

enum host_wake host_wait(pid_t child, int64_t timeout_ns, int *status, int *signo)
{
	int64_t deadline = timeout_ns >= 0 ? host_now_ns() + timeout_ns : -1;
	struct timespec ts;
	siginfo_t si;
	sigset_t set;
	int sig;

	wait_set(&set);
	for (;;) {
		if (child > 0 && waitpid(child, status, WNOHANG) == child)
			return HOST_WAKE_CHILD;
		if (deadline >= 0) {
			int64_t left = deadline - host_now_ns();

			if (left <= 0)
				return HOST_WAKE_TIMEOUT;
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			sig = sigtimedwait(&set, &si, &ts);
		} else {
			sig = sigwaitinfo(&set, &si);
		}
		if (sig < 0) {
			if (errno == EAGAIN)
				return HOST_WAKE_TIMEOUT;
			continue;	/* EINTR */
		}
		if (sig == SIGCHLD)
			continue;
		if (child > 0 && si.si_code != SI_KERNEL)
			kill(child, sig);
		*signo = sig;
		return HOST_WAKE_SIGNAL;
	}
}

int host_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
