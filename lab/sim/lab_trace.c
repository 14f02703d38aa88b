// SPDX-License-Identifier: MIT
/*
 * lab_trace.c - a trace to replay (struct cpuidle_lab_trace): opened once,
 * shared by every run of it, on any thread.
 *
 * An interval file is read through once, each interval validated by the
 * reader, and its intervals kept in memory within a budget, so that the N
 * runs of a sweep read memory, not N times the file; past the budget (or
 * asked to stream) each run reads the file.  A trace in another format is
 * converted into a temporary interval file first.  A synthetic pattern, a
 * view of the first part of another trace and any source of the lab's own
 * are traces too, so that every run names its intervals the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "ivf.h"
#include "ivf_source.h"
#include "lab_trace.h"
#include "synth.h"
#include "trace.h"

/* the first allocation of a trace's intervals, which then doubles */
#define TRACE_FIRST_INTERVALS	4096

struct cpuidle_lab_trace {
	unsigned int nr_cpus;
	char *ivf;			/* the file, when the intervals stay on disk */
	char *tmp;			/* ... a temporary one, removed at close */
	struct idle_interval *iv;	/* else: in memory */
	size_t n;
	replay_open_fn open;		/* else: a source of the lab's own */
	void *open_arg;
	void *owned;			/* freed at close (a pattern's spec, a view's) */
	struct iv_notes *notes;		/* or NULL */
};

/* ---- streams ---- */

struct mem_source {
	struct replay_source src;	/* first: the replay sees only this */
	const struct cpuidle_lab_trace *t;
	size_t i;
};

static int mem_next(struct replay_source *src, struct idle_interval *iv)
{
	struct mem_source *m = (struct mem_source *)src;

	if (m->i == m->t->n)
		return 0;
	*iv = m->t->iv[m->i++];
	return 1;
}

static void mem_close(struct replay_source *src)
{
	free(src);
}

int lab_trace_stream(const struct cpuidle_lab_trace *t, struct replay_source **out)
{
	struct mem_source *m;

	if (t->open)
		return t->open(t->open_arg, out);
	if (t->ivf)
		return ivf_replay_open(t->ivf, out);
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->src.next = mem_next;
	m->src.close = mem_close;
	m->t = t;
	*out = &m->src;
	return 0;
}

/* lab.h's flags are the interval file's own */
_Static_assert(CPUIDLE_LAB_IV_PARTIAL_START == IV_PARTIAL_START &&
	       CPUIDLE_LAB_IV_PARTIAL_END == IV_PARTIAL_END &&
	       CPUIDLE_LAB_IV_TIMER_UNKNOWN == IV_TIMER_UNKNOWN &&
	       CPUIDLE_LAB_IV_KERNEL_ABOVE == IV_KERNEL_ABOVE &&
	       CPUIDLE_LAB_IV_KERNEL_BELOW == IV_KERNEL_BELOW &&
	       CPUIDLE_LAB_IV_TASK_WAKE == IV_TASK_WAKE &&
	       CPUIDLE_LAB_IV_TIMER_GUESSED == IV_TIMER_GUESSED, "interval flags");

const char *cpuidle_lab_wake_name(unsigned int wake)
{
	return iv_wake_name(wake);	/* the interval file's names, as convert --csv writes them */
}

int cpuidle_lab_trace_read(const struct cpuidle_lab_trace *t, cpuidle_lab_interval_fn fn,
			   void *ctx, char *err, size_t errlen)
{
	struct replay_source *src;
	struct idle_interval iv;
	int ret;

	err[0] = '\0';
	ret = lab_trace_stream(t, &src);
	if (ret) {
		snprintf(err, errlen, "%s", strerror(-ret));
		return ret;
	}
	while ((ret = src->next(src, &iv)) > 0) {
		struct cpuidle_lab_interval out = {
			.cpu = iv.cpu,
			.start_ns = iv.start_ns,
			.idle_ns = iv.idle_ns,
			.busy_ns = iv.busy_ns,
			.timer_ns = iv.flags & IV_TIMER_UNKNOWN ? -1 : iv.timer_ns,
			.qos_us = iv.qos_us,
			.wake = iv.wake,
			.irq = iv.irq,
			.flags = iv.flags & ~IV_KSTATES_REST,
			.kernel_entries = iv.nr_entries,
			.kernel_state = iv.nr_entries ? iv.kstates[0] : -1,
		};

		ret = fn(ctx, &out);
		if (ret)
			break;
	}
	if (ret < 0 && !err[0])
		snprintf(err, errlen, "%s", src->error && src->error(src) ? src->error(src) :
			 strerror(-ret));
	src->close(src);
	return ret < 0 ? ret : 0;
}

const struct iv_notes *lab_trace_notes(const struct cpuidle_lab_trace *t)
{
	return t->notes;
}

/* ---- made from ---- */

static int keep_notes(struct cpuidle_lab_trace *t, const struct iv_notes *notes)
{
	if (!notes)
		return 0;
	t->notes = malloc(sizeof(*t->notes));
	if (!t->notes)
		return -ENOMEM;
	*t->notes = *notes;
	return 0;
}

int lab_trace_load(const char *ivf, size_t *budget, bool stream, struct cpuidle_lab_trace **out,
		   char *err, size_t errlen)
{
	struct cpuidle_lab_trace *t = calloc(1, sizeof(*t));
	struct ivf_reader *rd = NULL;
	struct idle_interval iv, *p;
	size_t cap = 0, complete = 0, ncap;
	bool in_memory = !stream;
	int ret;

	*out = NULL;
	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = ivf_open(ivf, &rd, err, errlen);
	if (ret)
		goto fail;
	t->nr_cpus = ivf_reader_info(rd)->nr_cpus;
	if (ivf_reader_info(rd)->notes_known && keep_notes(t, &ivf_reader_info(rd)->notes)) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto fail;
	}
	while (!stream && (ret = ivf_next(rd, &iv)) > 0) {
		if (!(iv.flags & (IV_PARTIAL_START | IV_PARTIAL_END)))
			complete++;
		if (!in_memory)
			continue;
		if (t->n == cap) {
			ncap = cap ? 2 * cap : TRACE_FIRST_INTERVALS;
			p = ncap * sizeof(*p) <= *budget ? realloc(t->iv, ncap * sizeof(*p)) : NULL;
			if (!p) {	/* over the budget: the runs read the file */
				in_memory = false;
				free(t->iv);
				t->iv = NULL;
				t->n = 0;
				continue;
			}
			t->iv = p;
			cap = ncap;
		}
		t->iv[t->n++] = iv;
	}
	if (ret < 0) {
		snprintf(err, errlen, "%s", ivf_error(rd));
		goto fail;
	}
	ivf_close(rd);
	rd = NULL;
	if (!stream && !complete) {
		snprintf(err, errlen, "%s: no complete idle interval to replay", ivf);
		ret = -ENODATA;
		goto fail;
	}
	if (in_memory) {
		*budget -= cap * sizeof(*t->iv);
	} else {
		t->ivf = strdup(ivf);
		if (!t->ivf) {
			snprintf(err, errlen, "out of memory");
			ret = -ENOMEM;
			goto fail;
		}
	}
	*out = t;
	return 0;
fail:
	ivf_close(rd);
	cpuidle_lab_trace_close(t);
	return ret;
}

int lab_trace_from_intervals(const struct idle_interval *iv, size_t n, unsigned int nr_cpus,
			     struct cpuidle_lab_trace **out)
{
	struct cpuidle_lab_trace *t;

	*out = NULL;
	if (!nr_cpus || nr_cpus > LAB_MAX_CPUS)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->iv = malloc((n ? n : 1) * sizeof(*iv));
	if (!t->iv) {
		free(t);
		return -ENOMEM;
	}
	if (n)
		memcpy(t->iv, iv, n * sizeof(*iv));
	t->n = n;
	t->nr_cpus = nr_cpus;
	*out = t;
	return 0;
}

int lab_trace_from_source(replay_open_fn open, void *arg, unsigned int nr_cpus,
			  const struct iv_notes *notes, struct cpuidle_lab_trace **out)
{
	struct cpuidle_lab_trace *t;

	*out = NULL;
	if (!open || !nr_cpus || nr_cpus > LAB_MAX_CPUS)
		return -EINVAL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->open = open;
	t->open_arg = arg;
	t->nr_cpus = nr_cpus;
	if (keep_notes(t, notes)) {
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

/* ---- the public constructors ---- */

int cpuidle_lab_read_mapped(bool on)
{
	trace_read_mapped(on);
	return 0;
}

int cpuidle_lab_trace_open(const char *path, const struct cpuidle_lab_open_options *opt,
			   struct cpuidle_lab_trace **out, char *err, size_t errlen)
{
	static const struct cpuidle_lab_open_options defaults;
	const char *dir = getenv("TMPDIR");
	size_t own_budget = CPUIDLE_LAB_MEMORY_BUDGET;
	char tmp[4096];
	int fd, ret;

	*out = NULL;
	if (!opt)
		opt = &defaults;
	if (!path) {
		snprintf(err, errlen, "no trace given");
		return -EINVAL;
	}
	if (ivf_is_file(path) == 1)
		return lab_trace_load(path, opt->budget ? opt->budget : &own_budget, opt->stream,
				      out, err, errlen);
	if (!dir || !*dir)
		dir = "/tmp";
	if (snprintf(tmp, sizeof(tmp), "%s/cpuidle-lab-XXXXXX", dir) >= (int)sizeof(tmp)) {
		snprintf(err, errlen, "$TMPDIR too long");
		return -ENAMETOOLONG;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot create a temporary file in %s: %s", dir,
			 strerror(errno));
		return ret;
	}
	close(fd);
	ret = lab_convert(path, tmp, NULL, opt->progress, opt->progress_arg, err, errlen);
	if (!ret)
		ret = lab_trace_load(tmp, opt->budget ? opt->budget : &own_budget, opt->stream,
				     out, err, errlen);
	if (ret == -ENODATA)
		snprintf(err, errlen, "%s: no complete idle interval to replay", path);
	if (ret || cpuidle_lab_trace_in_memory(*out)) {
		unlink(tmp);
		return ret;
	}
	(*out)->tmp = strdup(tmp);
	if (!(*out)->tmp) {
		unlink(tmp);
		cpuidle_lab_trace_close(*out);
		*out = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int cpuidle_lab_trace_pattern(const char *pattern, unsigned int nr_cpus, uint64_t intervals,
			      uint64_t seed, struct cpuidle_lab_trace **out)
{
	struct synth_spec *spec;
	int ret;

	*out = NULL;
	if (!pattern || !nr_cpus || nr_cpus > LAB_MAX_CPUS || !intervals)
		return -EINVAL;
	spec = calloc(1, sizeof(*spec));
	if (!spec)
		return -ENOMEM;
	ret = synth_parse(pattern, spec);
	if (!ret) {
		spec->intervals = intervals;
		spec->seed = seed;
		spec->nr_cpus = nr_cpus;
		ret = lab_trace_from_source(synth_open, spec, nr_cpus, NULL, out);
	}
	if (ret) {
		free(spec);
		return ret;
	}
	(*out)->owned = spec;
	return 0;
}

int cpuidle_lab_trace_empty(unsigned int nr_cpus, struct cpuidle_lab_trace **out)
{
	return lab_trace_from_intervals(NULL, 0, nr_cpus, out);
}

/* a view: the intervals of a trace that start within a span of time */
struct until {
	const struct cpuidle_lab_trace *inner;
	int64_t start_ns, end_ns;
};

struct until_source {
	struct replay_source src;	/* first: the replay sees only this */
	struct replay_source *inner;
	int64_t start_ns, end_ns;
};

static int until_next(struct replay_source *src, struct idle_interval *iv)
{
	struct until_source *u = (struct until_source *)src;
	int ret;

	/* CPUs interleave: a later CPU's interval may still start in time */
	while ((ret = u->inner->next(u->inner, iv)) > 0)
		if (iv->start_ns >= u->start_ns && iv->start_ns <= u->end_ns)
			return 1;
	return ret;
}

static void until_close(struct replay_source *src)
{
	struct until_source *u = (struct until_source *)src;

	u->inner->close(u->inner);
	free(u);
}

static const char *until_error(struct replay_source *src)
{
	struct until_source *u = (struct until_source *)src;

	return u->inner->error ? u->inner->error(u->inner) : NULL;
}

static int until_open(void *arg, struct replay_source **out)
{
	const struct until *a = arg;
	struct until_source *u = calloc(1, sizeof(*u));
	int ret;

	if (!u)
		return -ENOMEM;
	ret = lab_trace_stream(a->inner, &u->inner);
	if (ret) {
		free(u);
		return ret;
	}
	u->src.next = until_next;
	u->src.close = until_close;
	u->src.error = until_error;
	u->start_ns = a->start_ns;
	u->end_ns = a->end_ns;
	*out = &u->src;
	return 0;
}

int cpuidle_lab_trace_until(const struct cpuidle_lab_trace *t, int64_t end_ns,
			    struct cpuidle_lab_trace **out)
{
	return cpuidle_lab_trace_window(t, INT64_MIN, end_ns, out);
}

int cpuidle_lab_trace_window(const struct cpuidle_lab_trace *t, int64_t start_ns,
			     int64_t end_ns, struct cpuidle_lab_trace **out)
{
	struct until *a;
	int ret;

	*out = NULL;
	if (!t)
		return -EINVAL;
	a = malloc(sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->inner = t;
	a->start_ns = start_ns;
	a->end_ns = end_ns;
	ret = lab_trace_from_source(until_open, a, t->nr_cpus, t->notes, out);
	if (ret) {
		free(a);
		return ret;
	}
	(*out)->owned = a;
	return 0;
}

/* ---- what it is ---- */

int cpuidle_lab_trace_bounds(const struct cpuidle_lab_trace *t, int64_t *first_ns,
			     int64_t *last_ns)
{
	struct replay_source *src;
	struct idle_interval iv;
	bool any = false;
	int ret;

	ret = lab_trace_stream(t, &src);
	if (ret)
		return ret;
	while ((ret = src->next(src, &iv)) > 0) {
		if (!any || iv.start_ns < *first_ns)
			*first_ns = iv.start_ns;
		if (!any || iv.start_ns > *last_ns)
			*last_ns = iv.start_ns;
		any = true;
	}
	src->close(src);
	return ret < 0 ? ret : any ? 0 : -ENODATA;
}

unsigned int cpuidle_lab_trace_cpus(const struct cpuidle_lab_trace *t)
{
	return t->nr_cpus;
}

bool cpuidle_lab_trace_in_memory(const struct cpuidle_lab_trace *t)
{
	return !t->ivf && !t->open;
}

void cpuidle_lab_trace_close(struct cpuidle_lab_trace *t)
{
	if (!t)
		return;
	if (t->tmp)
		unlink(t->tmp);
	free(t->tmp);
	free(t->ivf);
	free(t->iv);
	free(t->owned);
	free(t->notes);
	free(t);
}
