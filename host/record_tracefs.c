// SPDX-License-Identifier: MIT
/*
 * record_tracefs.c - recording through tracefs (host_record.h): a private
 * ftrace instance with the monotonic clock, its trace_pipe copied into the
 * file as the kernel fills it, and the instance removed at the end.
 * An instance a killed recording left (SIGKILL: no chance to remove it)
 * keeps its events on and its buffers allocated: the next recording
 * removes those whose PID no longer runs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_child.h"
#include "host_sysfs.h"
#include "record_internal.h"

#define DRAIN_EVERY_NS	100000000	/* copy trace_pipe ten times a second */
#define BUFFER_KB	"8192"		/* per CPU */
#define INSTANCE_PREFIX	"cpuidle-record-"	/* then the recording's PID */

static int inst_write(const char *inst, const char *file, const char *text, char *err,
		      size_t errlen)
{
	char path[1024];
	int ret;

	snprintf(path, sizeof(path), "%s/%s", inst, file);
	ret = host_write_text(path, text);
	if (ret)
		snprintf(err, errlen, "%s: %s", path, strerror(-ret));
	return ret;
}

/* copy what trace_pipe has now; 0, or a negative errno */
static int drain(int pipe_fd, int out_fd)
{
	char buf[65536];
	ssize_t n, w;

	for (;;) {
		n = read(pipe_fd, buf, sizeof(buf));
		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -errno;
		if (!n)
			return 0;
		for (ssize_t off = 0; off < n; off += w) {
			w = write(out_fd, buf + off, (size_t)(n - off));
			if (w < 0)
				return -errno;
		}
	}
}

/* the sum of "overrun:" over per_cpu/cpuN/stats */
static uint64_t overruns(const char *inst)
{
	char path[1024], line[128];
	uint64_t sum = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/per_cpu/cpu%u/stats", inst, cpu);
		f = fopen(path, "re");
		if (!f)
			break;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "overrun:", 8))
				sum += strtoull(line + 8, NULL, 10);
		fclose(f);
	}
	return sum;
}

static int enable_events(const struct record_ctx *ctx, const char *inst, char *err,
			 size_t errlen)
{
	char file[300];
	int i, ret;

	for (i = 0; i < ctx->nr_events; i++) {
		const char *colon = strchr(ctx->events[i], ':');

		snprintf(file, sizeof(file), "events/%.*s/%s/enable",
			 (int)(colon - ctx->events[i]), ctx->events[i], colon + 1);
		ret = inst_write(inst, file, "1", err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* record until the command ends, the time is up or a signal comes */
static int copy_until_done(const struct host_record_opts *o, int pipe_fd, int out_fd,
			   struct host_record_result *r, char *err, size_t errlen)
{
	int64_t end = o->duration_ns > 0 ? host_now_ns() + o->duration_ns : -1;
	int status, signo, ret;
	pid_t pid = 0;

	if (o->cmd) {
		ret = host_spawn(o->cmd, -1, -1, &pid);
		if (ret) {
			snprintf(err, errlen, "cannot run '%s': %s", o->cmd[0], strerror(-ret));
			r->cmd_start_err = ret;
			return ret;
		}
	}
	for (;;) {
		int64_t wait = DRAIN_EVERY_NS;
		enum host_wake wake;

		ret = drain(pipe_fd, out_fd);
		if (ret) {
			snprintf(err, errlen, "copying trace_pipe to %s: %s", o->out, strerror(-ret));
			break;
		}
		if (end >= 0 && end - host_now_ns() < wait)
			wait = end - host_now_ns();
		if (end >= 0 && wait <= 0)
			break;
		wake = host_wait(pid, wait, &status, &signo);
		if (wake == HOST_WAKE_CHILD) {
			r->cmd_exit = host_exit_code(status);
			pid = 0;
			break;
		}
		if (wake == HOST_WAKE_SIGNAL)
			break;
	}
	if (pid > 0) {
		/* the recording ends before the command: it is asked to stop */
		kill(pid, SIGTERM);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	return ret;
}

/*
 * Remove the instances of recordings that died without removing theirs
 * (their PID no longer runs), each said on @log.
 */
static void remove_stale_instances(const char *tracefs, FILE *log)
{
	char dir[400], path[1024];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/instances", tracefs);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(e->d_name, INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)))
			continue;
		errno = 0;
		pid = strtol(e->d_name + strlen(INSTANCE_PREFIX), &end, 10);
		if (errno || pid <= 0 || pid > INT_MAX || *end)
			continue;
		if (pid == getpid() || !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;	/* its recording still runs */
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (rmdir(path)) {
			if (log)
				fprintf(log, "cpuidle record: %s, left by a recording that was killed "
					"(PID %ld), cannot be removed: %s\n", path, pid,
					strerror(errno));
		} else if (log) {
			fprintf(log, "cpuidle record: removed %s, left tracing by a recording that "
				"was killed (PID %ld)\n", path, pid);
		}
	}
	closedir(d);
}

int record_tracefs(const struct record_ctx *ctx, const struct host_record_opts *o,
		   struct host_record_result *r, char *err, size_t errlen)
{
	static const char header[] = "# tracer: nop\n"
				     "# recorded by cpuidle record through tracefs, trace_clock=mono\n";
	char inst[400], path[1024];
	int pipe_fd = -1, out_fd = -1, ret, ret2;
	struct stat st;

	remove_stale_instances(ctx->tracefs, o->log);
	snprintf(inst, sizeof(inst), "%s/instances/" INSTANCE_PREFIX "%d", ctx->tracefs,
		 (int)getpid());
	if (mkdir(inst, 0755)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s%s", inst, strerror(-ret),
			 ret == -EACCES || ret == -EPERM ? " (recording needs root)" : "");
		return ret;
	}
	ret = inst_write(inst, "tracing_on", "0", err, errlen);
	if (!ret)
		ret = inst_write(inst, "trace_clock", "mono", err, errlen);
	if (!ret)
		ret = inst_write(inst, "buffer_size_kb", BUFFER_KB, err, errlen);
	if (!ret)
		ret = enable_events(ctx, inst, err, errlen);
	if (!ret) {
		snprintf(path, sizeof(path), "%s/trace_pipe", inst);
		pipe_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (pipe_fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(-ret));
		}
	}
	if (!ret) {
		/* the description first: a reader stops at "# tracer:" */
		out_fd = open(o->out, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (out_fd < 0)
			ret = -errno;
		else if (!(ret = record_write_description(out_fd, o)) &&
			 write(out_fd, header, sizeof(header) - 1) < 0)
			ret = -errno;
		if (ret)
			snprintf(err, errlen, "%s: %s", o->out, strerror(-ret));
	}
	if (!ret)
		ret = inst_write(inst, "tracing_on", "1", err, errlen);
	if (!ret) {
		ret = copy_until_done(o, pipe_fd, out_fd, r, err, errlen);
		inst_write(inst, "tracing_on", "0", err, ret ? 0 : errlen);
		ret2 = drain(pipe_fd, out_fd);
		if (!ret && ret2) {
			ret = ret2;
			snprintf(err, errlen, "copying trace_pipe to %s: %s", o->out, strerror(-ret));
		}
		r->lost = overruns(inst);
	}
	if (out_fd >= 0 && close(out_fd) && !ret) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", o->out, strerror(-ret));
	}
	if (pipe_fd >= 0)
		close(pipe_fd);
	/* removing the instance disables its events and frees its buffers */
	if (rmdir(inst) && o->log)
		fprintf(o->log, "cpuidle record: could not remove %s: %s\n", inst, strerror(errno));
	/* no trace, not even its header, from a failed recording */
	if (ret && out_fd >= 0 && !lstat(o->out, &st) && S_ISREG(st.st_mode))
		unlink(o->out);
	return ret;
}
