// SPDX-License-Identifier: MIT
/*
 * record.c - recording an idle trace (host_record.h): finding tracefs,
 * choosing the events the kernel has, and the way to record them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record_internal.h"

/* as ../shared/traces/README.md lists them; the readers of lab/ingest/trace_event.c */
const char *const host_record_events[] = {
	"power:cpu_idle",
	"power:cpu_idle_miss",
	"power:cpu_frequency",
	"power:guest_halt_poll_ns",
	"power:pm_qos_add_request",
	"power:pm_qos_update_request",
	"power:pm_qos_remove_request",
	"timer:hrtimer_start",
	"timer:hrtimer_cancel",
	"timer:hrtimer_expire_entry",
	"timer:tick_stop",
	"irq_vectors:local_timer_entry",
	"irq_vectors:reschedule_entry",
	"irq_vectors:call_function_single_entry",
	"irq_vectors:call_function_entry",
	"irq:irq_handler_entry",
	"sched:sched_wakeup",
	"ipi:ipi_entry",
	NULL,
};

/*
 * Events one architecture has and another not, without loss: x86 names its
 * IPIs and local timer in irq_vectors; arm and arm64 trace an "IPI"
 * interrupt and the IPI's reason in ipi:ipi_entry instead.  The one x86
 * lacks is not worth a word; irq_vectors lacking elsewhere is still said.
 */
static bool quietly_optional(const char *ev)
{
	return !strcmp(ev, "ipi:ipi_entry");
}

#define TRACEFS_MOUNT	"/sys/kernel/tracing"


static bool has_events_dir(const char *dir)
{
	char path[300];
	struct stat st;

	snprintf(path, sizeof(path), "%s/events", dir);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* the tracefs mount point in ctx->tracefs; *mounted if we mounted it */
static int find_tracefs(struct record_ctx *ctx, bool *mounted, char *err, size_t errlen)
{
	static const char *const where[] = { TRACEFS_MOUNT, "/sys/kernel/debug/tracing" };
	unsigned int i;

	*mounted = false;
	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (has_events_dir(where[i])) {
			snprintf(ctx->tracefs, sizeof(ctx->tracefs), "%s", where[i]);
			return 0;
		}
	if (mount("nodev", TRACEFS_MOUNT, "tracefs", 0, NULL)) {
		int e = errno;

		snprintf(err, errlen, "tracefs is not mounted and mounting it at " TRACEFS_MOUNT
			 " failed: %s%s", strerror(e),
			 e == EPERM || e == EACCES ? " (recording needs root)" : "");
		return e == ENODEV ? -ENOENT : -e;
	}
	*mounted = true;
	snprintf(ctx->tracefs, sizeof(ctx->tracefs), "%s", TRACEFS_MOUNT);
	if (!has_events_dir(ctx->tracefs)) {
		umount(TRACEFS_MOUNT);
		*mounted = false;
		snprintf(err, errlen, "tracefs at " TRACEFS_MOUNT " has no events directory");
		return -ENOENT;
	}
	return 0;
}

/* keep the events the kernel has; name the others on @log */
static int choose_events(struct record_ctx *ctx, FILE *log, char *err, size_t errlen)
{
	const char *const *ev;
	char path[512], group[64];
	bool any_missing = false;
	struct stat st;

	ctx->nr_events = 0;
	for (ev = host_record_events; *ev; ev++) {
		const char *colon = strchr(*ev, ':');

		snprintf(group, sizeof(group), "%.*s", (int)(colon - *ev), *ev);
		snprintf(path, sizeof(path), "%s/events/%s/%s", ctx->tracefs, group, colon + 1);
		if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
			ctx->events[ctx->nr_events++] = *ev;
			continue;
		}
		if (quietly_optional(*ev))
			continue;
		if (log)
			fprintf(log, "%s %s", any_missing ? "," : "cpuidle record: the kernel lacks",
				*ev);
		any_missing = true;
	}
	if (any_missing && log)
		fprintf(log, "; recording without\n");
	for (int i = 0; i < ctx->nr_events; i++)
		if (!strcmp(ctx->events[i], "power:cpu_idle"))
			return 0;
	snprintf(err, errlen, "the kernel has no power:cpu_idle event (under %s/events)",
		 ctx->tracefs);
	return -ENODEV;
}

int host_record(const struct host_record_opts *o, struct host_record_result *r, char *err,
		size_t errlen)
{
	struct record_ctx ctx;
	bool mounted;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	r->cmd_exit = -1;
	err[0] = '\0';
	/* the output must be writable before anything is set up */
	fd = open(o->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", o->out, strerror(-ret));
		return ret;
	}
	close(fd);
	memset(&ctx, 0, sizeof(ctx));
	ret = find_tracefs(&ctx, &mounted, err, errlen);
	if (ret)
		return ret;
	ret = choose_events(&ctx, o->log, err, errlen);
	if (!ret) {
		r->nr_events = ctx.nr_events;
		if (o->backend == HOST_RECORD_PERF ||
		    (o->backend == HOST_RECORD_AUTO && record_perf_runs())) {
			r->backend = HOST_RECORD_PERF;
			ret = record_perf(&ctx, o, r, err, errlen);
		} else {
			r->backend = HOST_RECORD_TRACEFS;
			ret = record_tracefs(&ctx, o, r, err, errlen);
		}
	}
	if (mounted)
		umount(ctx.tracefs);
	return ret;
}

int record_write_description(int fd, const struct host_record_opts *o)
{
	size_t len = o->description ? strlen(o->description) : 0, done = 0;

	while (done < len) {
		ssize_t n = write(fd, o->description + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}
