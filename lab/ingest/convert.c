// SPDX-License-Identifier: MIT
/*
 * convert.c - trace -> events -> intervals -> interval file, streaming:
 * memory stays bounded by the reorder window and the number of CPUs,
 * whatever the trace's length.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "convert.h"
#include "ivf.h"
#include "reconstruct.h"
#include "trace.h"

#define PROGRESS_EVERY	65536	/* events between progress calls */

/* the builder's sink: the interval file, whose write errors are its own */
struct sink {
	struct ivf_writer *w;
	int error;		/* a write failed: the output's fault, not the trace's */
};

static int write_interval(const struct idle_interval *iv, void *arg)
{
	struct sink *k = arg;
	int ret = ivf_write(k->w, iv);

	if (ret && ret != -EINVAL)
		k->error = ret;
	return ret;
}

/* The builder's error @ret, at the event of @line unless it names its own. */
static void builder_error(const struct iv_builder *b, const struct trace_reader *r,
			  const char *path, uint64_t line, int ret, char *err, size_t errlen)
{
	/* a text trace's place is a line, a binary one's a byte */
	const char *sep = trace_is_binary(r) ? ": byte " : ":";
	uint64_t at;
	const char *msg = iv_builder_error(b, &at);

	if (ret == -EINVAL && msg[0]) {
		if (at)
			snprintf(err, errlen, "%s%s%llu: %s", path, sep, (unsigned long long)at, msg);
		else
			snprintf(err, errlen, "%s: %s", path, msg);
	} else {
		snprintf(err, errlen, "%s%s%llu: cannot apply this event: %s", path, sep,
			 (unsigned long long)line, strerror(-ret));
	}
}

int lab_convert(const char *trace_path, const char *ivf_path, struct iv_stats *stats,
		lab_progress_fn progress, void *arg, char *err, size_t errlen)
{
	struct trace_reader *r = NULL;
	struct iv_builder *b = NULL;
	struct ivf_writer *w = NULL;
	struct sink k = { 0 };
	struct trace_event ev;
	struct ivf_info info;
	uint64_t n = 0, size = 0;
	struct stat st, ost;
	bool keep = false;	/* a device: never removed */
	int ret;

	if (!trace_path || !ivf_path)
		return -EINVAL;
	err[0] = 0;
	if (strcmp(trace_path, "-") && !stat(trace_path, &st) && S_ISREG(st.st_mode))
		size = (uint64_t)st.st_size;
	if (!stat(ivf_path, &ost)) {
		keep = !S_ISREG(ost.st_mode);
		/* the writer would truncate the trace it reads */
		if (!(strcmp(trace_path, "-") ? stat(trace_path, &st) : fstat(STDIN_FILENO, &st)) &&
		    S_ISREG(ost.st_mode) && st.st_dev == ost.st_dev && st.st_ino == ost.st_ino) {
			snprintf(err, errlen, "%s: the output would overwrite the input '%s'",
				 ivf_path, trace_path);
			return -EEXIST;
		}
	}
	ret = trace_open(trace_path, &r, err, errlen);
	if (ret)
		return ret;
	ret = ivf_writer_open(ivf_path, &w, err, errlen);
	if (ret)
		goto out;
	k.w = w;
	ret = iv_builder_create(write_interval, &k, &b);
	if (ret)
		goto out;
	memset(&ev, 0, sizeof(ev));
	while ((ret = trace_next(r, &ev)) > 0) {
		ret = iv_builder_feed(b, &ev);
		if (ret && k.error) {
			snprintf(err, errlen, "%s: %s", ivf_path, strerror(-k.error));
			goto out;
		}
		if (ret) {
			builder_error(b, r, trace_path, ev.line, ret, err, errlen);
			goto out;
		}
		if (progress && !(++n % PROGRESS_EVERY))
			progress(trace_bytes_read(r), size, arg);
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s", trace_error(r));
		goto out;
	}
	ret = iv_builder_finish(b);
	if (ret && k.error) {
		snprintf(err, errlen, "%s: %s", ivf_path, strerror(-k.error));
		goto out;
	}
	if (ret) {
		if (ret == -EINVAL)
			builder_error(b, r, trace_path, ev.line, ret, err, errlen);
		goto out;
	}
	if (!iv_builder_stats(b)->intervals) {
		snprintf(err, errlen, "%s: no idle entries or exits (power:cpu_idle) in the trace",
			 trace_path);
		ret = -ENODATA;
		goto out;
	}
	if (progress)
		progress(size, size, arg);
	memset(&info, 0, sizeof(info));
	info.nr_cpus = iv_builder_stats(b)->nr_cpus;
	info.first_ns = iv_builder_stats(b)->first_ns;
	info.last_ns = iv_builder_stats(b)->last_ns;
	info.source_format = (unsigned int)trace_format(r);
	info.notes = iv_builder_stats(b)->notes;
	info.notes.recording_len = (uint32_t)trace_info(r)->recording_len;
	memcpy(info.notes.recording, trace_info(r)->recording, trace_info(r)->recording_len);
	if (stats) {
		*stats = *iv_builder_stats(b);
		stats->notes = info.notes;
	}
	ret = ivf_writer_close(w, &info,
			       (const char (*)[TRACE_IRQ_NAME_LEN])iv_builder_stats(b)->irq_names);
	w = NULL;
	if (ret)
		snprintf(err, errlen, "%s: %s", ivf_path, strerror(-ret));
out:
	if (w)
		ivf_writer_close(w, NULL, NULL);
	if (ret && !keep)
		unlink(ivf_path);
	iv_builder_destroy(b);
	trace_close(r);
	return ret;
}
