// SPDX-License-Identifier: MIT
/*
 * trace_tracecmd.c - trace.dat, trace-cmd's binary file (versions 6 and 7,
 * compressed sections or not), read through libtracecmd: it parses the
 * file's event formats, the kernel's symbols and each CPU's ring buffer
 * pages; its records are decoded as perf.data's are (trace_tep.c), so the
 * tick is known by its function's name, from the file's own symbols.
 *
 * libtracecmd reads a file by seeking in it: a plain regular file is given
 * as it is; a compressed one, or one on a pipe, is first decompressed into
 * an unlinked temporary file ($TMPDIR, else /tmp), whose disk space goes
 * when the reader closes.
 *
 * Order: each CPU's records come in time order; the reader keeps each
 * CPU's next record and gives the earliest (ties: the lowest CPU, as
 * trace-cmd report does).  Events the kernel dropped before a record
 * (its missed_events) come first, as a lost-events event of that CPU at
 * the time of the event read before, as the text readers give trace-cmd's
 * "[N EVENTS DROPPED]" marker.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>

#include "trace_internal.h"

/* CPUs a trace.dat may have: the lab's own limit */
#define TRACECMD_MAX_CPUS	TRACE_MAX_CPUS

struct tracecmd_reader {
	struct tracecmd_input *in;
	int fd;			/* the file libtracecmd reads (ours to close) */
	struct tp_decoder dec;
	int nr_cpus;
	struct tep_record **next;	/* each CPU's next record, NULL at its end */
	int64_t last_ts;
};

/* the decompressed file into an unlinked temporary one; its descriptor */
static int spool(struct trace_reader *r)
{
	const char *dir = getenv("TMPDIR");
	const unsigned char *b;
	char path[4096];
	ssize_t n, w;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(path, sizeof(path), "%s/cpuidle-trace.dat.XXXXXX", dir);
		fd = mkstemp(path);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0)
		return trace_fail(r, -errno, 0, "cannot make a temporary file in %s for the "
				  "decompressed trace.dat: %s", dir, strerror(errno));
	for (;;) {
		n = trace_src_bytes(&r->src, 1 << 16, &b);
		if (n < 0) {
			close(fd);
			return trace_src_fail(r, (int)n);
		}
		if (!n)
			break;
		for (ssize_t done = 0; done < n; done += w) {
			w = write(fd, b + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w < 0) {
				int err = errno;

				close(fd);
				return trace_fail(r, -err, 0, "cannot write the decompressed trace.dat "
						  "to %s: %s", dir, strerror(err));
			}
		}
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return trace_fail(r, -errno, 0, "seek error: %s", strerror(errno));
	}
	return fd;
}

/**
 * trace_tracecmd_open() - open a trace.dat file (its magic is checked)
 * @r: the reader, its source at the file's first byte
 *
 * Return: 0, or a negative errno with the reader's message set.
 */
int trace_tracecmd_open(struct trace_reader *r)
{
	struct tracecmd_input *in;
	struct tracecmd_reader *t;
	struct tep_handle *tep;
	char why[300], path[64];
	int err, cpu;

	t = calloc(1, sizeof(*t));
	if (!t)
		return trace_fail(r, -ENOMEM, 0, "out of memory");
	r->tracecmd = t;
	t->fd = -1;
	if (r->src.kind == SRC_PLAIN && trace_src_seekable(&r->src)) {
		t->fd = dup(r->src.fd);
		if (t->fd < 0 || lseek(t->fd, 0, SEEK_SET) < 0)
			return trace_fail(r, -errno, 0, "%s", strerror(errno));
	} else {
		t->fd = spool(r);
		if (t->fd < 0)
			return t->fd;
	}
	tracecmd_set_loglevel(TEP_LOG_NONE);
	/*
	 * The headers, then the data: libtracecmd 1.3.1's tracecmd_open_fd()
	 * crashes freeing what it made when the data does not load (a file cut
	 * short), so the two steps are taken apart and a handle whose data
	 * failed is not closed (its memory goes with the process).
	 */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", t->fd);
	in = tracecmd_open_head(path, TRACECMD_FL_LOAD_NO_PLUGINS |
				TRACECMD_FL_LOAD_NO_SYSTEM_PLUGINS);
	close(t->fd);
	t->fd = -1;
	if (!in)
		return trace_fail(r, -EINVAL, 0, "libtracecmd cannot read this trace.dat file's "
				  "headers (cut short, corrupt, or of a version it does not know: "
				  "trace-cmd report says more)");
	if (tracecmd_init_data(in) < 0)
		return trace_fail(r, -EINVAL, 0, "libtracecmd cannot load this trace.dat file's "
				  "data (cut short, or corrupt: trace-cmd report says more)");
	t->in = in;
	tep = tracecmd_get_tep(t->in);
	t->nr_cpus = tep ? tep_get_cpus(tep) : 0;
	if (t->nr_cpus <= 0 || t->nr_cpus > TRACECMD_MAX_CPUS)
		return trace_fail(r, -EINVAL, 0, "the trace.dat file says it has %d CPUs",
				  t->nr_cpus);
	err = tp_decoder_init(&t->dec, tep, "the trace.dat's event formats", why, sizeof(why));
	if (err)
		return trace_fail(r, err, 0, "%s", why);
	if (!t->dec.nr)
		return trace_fail(r, -EINVAL, 0, "none of the events the lab reads was recorded "
				  "(power:cpu_idle and the others: see cpuidle-record(1))");
	t->next = calloc((size_t)t->nr_cpus, sizeof(*t->next));
	if (!t->next)
		return trace_fail(r, -ENOMEM, 0, "out of memory");
	for (cpu = 0; cpu < t->nr_cpus; cpu++)
		t->next[cpu] = tracecmd_read_cpu_first(t->in, cpu);
	t->last_ts = 0;
	return 0;
}

/**
 * trace_tracecmd_next() - trace_next() for a trace.dat file
 */
int trace_tracecmd_next(struct trace_reader *r, struct trace_event *ev)
{
	static const struct trace_event none = { .pid = -1 };
	struct tracecmd_reader *t = r->tracecmd;
	struct tep_record *rec;
	char why[200];
	bool fn_addr;
	int cpu, best, ret;

	for (;;) {
		best = -1;
		for (cpu = 0; cpu < t->nr_cpus; cpu++)
			if (t->next[cpu] && (best < 0 || t->next[cpu]->ts < t->next[best]->ts))
				best = cpu;
		if (best < 0)
			return 0;
		rec = t->next[best];
		if (rec->missed_events) {
			/* the drop comes before the record, at the time last read */
			*ev = none;
			ev->type = TEV_LOST;
			ev->cpu = (unsigned int)best;
			ev->ts_ns = t->last_ts;
			ev->line = rec->offset;
			ev->value = rec->missed_events > 0 ? rec->missed_events : 0;
			rec->missed_events = 0;
			return 1;
		}
		t->next[best] = tracecmd_read_data(t->in, best);
		if (rec->ts > INT64_MAX) {
			tracecmd_free_record(rec);
			return trace_fail(r, -ERANGE, 0, "CPU %d's record at byte %llu: time stamp "
					  "out of range", best, (unsigned long long)rec->offset);
		}
		*ev = none;
		ev->ts_ns = (int64_t)rec->ts;
		ev->cpu = (unsigned int)best;
		ev->line = rec->offset;
		ev->pid = tep_data_pid(tracecmd_get_tep(t->in), rec);
		ret = rec->size > 0 ? tp_decode(&t->dec, rec->data, (size_t)rec->size, ev, &fn_addr,
						why, sizeof(why)) : 0;
		if (ret < 0) {
			unsigned long long off = rec->offset;

			tracecmd_free_record(rec);
			return trace_fail(r, ret, 0, "byte %llu: %s", off, why);
		}
		tracecmd_free_record(rec);
		if (ret > 0) {
			t->last_ts = ev->ts_ns;
			return 1;
		}
	}
}

void trace_tracecmd_close(struct trace_reader *r)
{
	struct tracecmd_reader *t = r->tracecmd;

	if (!t)
		return;
	tp_decoder_free(&t->dec);
	if (t->next) {
		for (int cpu = 0; cpu < t->nr_cpus; cpu++)
			tracecmd_free_record(t->next[cpu]);
		free(t->next);
	}
	if (t->in)
		tracecmd_close(t->in);
	if (t->fd >= 0)
		close(t->fd);
	free(t);
	r->tracecmd = NULL;
}
