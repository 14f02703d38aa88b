/* SPDX-License-Identifier: MIT */
/*
 * host_child.h - running a command while something is held or measured
 * (qos hold, monitor, record), and waiting for it, a deadline or a signal.
 *
 * host_signals_block() blocks SIGCHLD, SIGINT, SIGTERM and SIGHUP in the
 * calling process so that host_wait() can take them synchronously; the
 * command gets the signal mask and dispositions the process started with.
 */
#ifndef HOST_CHILD_H
#define HOST_CHILD_H

#include <stdint.h>
#include <sys/types.h>

/** host_signals_block() - block the signals host_wait() takes */
void host_signals_block(void);

/**
 * host_spawn() - start a command
 * @argv: the command and its arguments, NULL-terminated; found in PATH
 * @out_fd: its standard output, or -1 for ours
 * @err_fd: its standard error, or -1 for ours
 * @pid: out: its process id
 *
 * Return: 0 once the command has been executed; the negative errno of
 * fork, or of exec (-ENOENT: no such command), in which case no child is
 * left behind.
 */
int host_spawn(char *const *argv, int out_fd, int err_fd, pid_t *pid);

/**
 * host_spawn_with() - start a command after a set-up of its own
 * @argv: the command and its arguments, NULL-terminated; found in PATH
 * @setup: run in the child between fork and exec (async-signal-safe calls
 *	only); returns 0, or an errno that fails the spawn; NULL for none
 * @arg: its argument
 * @pid: out: its process id
 *
 * Return: as host_spawn(); also the negative errno @setup returned.
 */
int host_spawn_with(char *const *argv, int (*setup)(void *arg), void *arg, pid_t *pid);

enum host_wake {
	HOST_WAKE_TIMEOUT,	/* the timeout passed */
	HOST_WAKE_CHILD,	/* the child ended: *status is its wait status */
	HOST_WAKE_SIGNAL,	/* SIGINT, SIGTERM or SIGHUP: *signo */
};

/**
 * host_wait() - wait for a child, a timeout or a signal
 * @child: a child's pid, or 0 for none
 * @timeout_ns: how long at most; < 0 for no limit
 * @status: out, for HOST_WAKE_CHILD
 * @signo: out, for HOST_WAKE_SIGNAL
 *
 * Needs host_signals_block().  A signal sent to this process by another
 * one (kill(1)) while @child runs is passed on to @child; one from the
 * terminal (Ctrl-C) reached the child already.  Either way it is reported.
 *
 * Return: an enum host_wake.
 */
enum host_wake host_wait(pid_t child, int64_t timeout_ns, int *status, int *signo);

/** host_now_ns() - CLOCK_MONOTONIC, ns */
int64_t host_now_ns(void);

/**
 * host_exit_code() - a shell-style exit code for a wait status
 * @status: from waitpid()
 *
 * Return: the exit status, or 128 + the signal that ended it.
 */
int host_exit_code(int status);

#endif /* HOST_CHILD_H */
