// SPDX-License-Identifier: MIT
/*
 * _cpuidle.c - the Python binding's C side: the lab's API (cpuidle/lab.h)
 * called with the GIL released, results handed to Python as columns of
 * raw bytes (numpy.frombuffer() makes arrays of them without an object a
 * row) or as dicts keyed by the command's JSON names.  cpuidle/__init__.py
 * turns them into pandas DataFrames; errors raise cpuidle.Error with the
 * command's message (file and line or offset).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpuidle/lab.h"
#include "cpuidle/pm_qos.h"

static PyObject *cpuidle_error;	/* cpuidle.Error, set by the package */

/* ---- intervals as columns ---- */

/* one growable column of fixed-size cells */
struct column {
	char *data;
	size_t cell, len, cap;
};

static int column_push(struct column *c, const void *v)
{
	if (c->len == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096;
		char *d = realloc(c->data, cap * c->cell);

		if (!d)
			return -ENOMEM;
		c->data = d;
		c->cap = cap;
	}
	memcpy(c->data + c->len * c->cell, v, c->cell);
	c->len++;
	return 0;
}

enum { COL_CPU, COL_START, COL_DURATION, COL_BUSY, COL_TIMER, COL_QOS, COL_WAKE, COL_IRQ,
       COL_FLAGS, COL_ENTRIES, COL_KSTATE, NR_COLS };

/* name, cell size, numpy dtype: what __init__.py builds the frame from */
static const struct {
	const char *name, *dtype;
	size_t cell;
} columns[NR_COLS] = {
	[COL_CPU] = { "cpu", "<u4", 4 },
	[COL_START] = { "start_ns", "<i8", 8 },
	[COL_DURATION] = { "idle_ns", "<i8", 8 },
	[COL_BUSY] = { "busy_ns", "<i8", 8 },
	[COL_TIMER] = { "next_timer_ns", "<f8", 8 },
	[COL_QOS] = { "qos_ns", "<f8", 8 },
	[COL_WAKE] = { "wake", "u1", 1 },
	[COL_IRQ] = { "irq", "<i4", 4 },
	[COL_FLAGS] = { "flags", "u1", 1 },
	[COL_ENTRIES] = { "entries", "<u4", 4 },
	[COL_KSTATE] = { "kernel_state", "<i4", 4 },
};

static int collect(void *ctx, const struct cpuidle_lab_interval *iv)
{
	struct column *c = ctx;
	uint32_t cpu = iv->cpu, entries = iv->kernel_entries;
	int32_t irq = iv->irq, kstate = iv->kernel_state;
	/* the QoS in ns, NaN where no request was in force (convert --csv: empty) */
	double qos = iv->qos_us == PM_QOS_CPU_DMA_LAT_DEFAULT_VALUE ? NAN :
		     (double)iv->qos_us * 1000.0;
	uint8_t wake = (uint8_t)iv->wake, flags = (uint8_t)iv->flags;
	/* the next timer: NaN where unknown, infinity where none is armed */
	double timer = iv->timer_ns < 0 ? NAN : iv->timer_ns == INT64_MAX ? INFINITY :
		       (double)iv->timer_ns;

	if (column_push(&c[COL_CPU], &cpu) || column_push(&c[COL_START], &iv->start_ns) ||
	    column_push(&c[COL_DURATION], &iv->idle_ns) || column_push(&c[COL_BUSY], &iv->busy_ns) ||
	    column_push(&c[COL_TIMER], &timer) || column_push(&c[COL_QOS], &qos) ||
	    column_push(&c[COL_WAKE], &wake) || column_push(&c[COL_IRQ], &irq) ||
	    column_push(&c[COL_FLAGS], &flags) || column_push(&c[COL_ENTRIES], &entries) ||
	    column_push(&c[COL_KSTATE], &kstate))
		return -ENOMEM;
	return 0;
}

static PyObject *raise_error(int ret, const char *msg)
{
	if (ret == -ENOMEM)
		return PyErr_NoMemory();
	PyErr_SetString(cpuidle_error ? cpuidle_error : PyExc_RuntimeError,
			msg && *msg ? msg : strerror(-ret));
	return NULL;
}

/* read_intervals(path) -> (n, {name: (bytes, dtype)}, wake names) */
static PyObject *py_read_intervals(PyObject *self, PyObject *args)
{
	struct column cols[NR_COLS] = { 0 };
	struct cpuidle_lab_trace *t = NULL;
	PyObject *dict = NULL, *wakes = NULL, *out = NULL;
	const char *path;
	char err[1024];
	unsigned int i;
	int ret;

	(void)self;
	if (!PyArg_ParseTuple(args, "s", &path))
		return NULL;
	for (i = 0; i < NR_COLS; i++)
		cols[i].cell = columns[i].cell;
	Py_BEGIN_ALLOW_THREADS
	ret = cpuidle_lab_trace_open(path, &(struct cpuidle_lab_open_options){ .stream = true },
				     &t, err, sizeof(err));
	if (!ret)
		ret = cpuidle_lab_trace_read(t, collect, cols, err, sizeof(err));
	cpuidle_lab_trace_close(t);
	Py_END_ALLOW_THREADS
	if (ret == -ENODATA)
		ret = 0;	/* no complete interval: an empty frame is the answer */
	if (ret) {
		raise_error(ret, err);
		goto out;
	}
	dict = PyDict_New();
	wakes = PyList_New(0);
	if (!dict || !wakes)
		goto out;
	for (i = 0; i < NR_COLS; i++) {
		PyObject *v = Py_BuildValue("(y#s)", cols[i].data ? cols[i].data : "",
					    (Py_ssize_t)(cols[i].len * cols[i].cell), columns[i].dtype);

		if (!v || PyDict_SetItemString(dict, columns[i].name, v)) {
			Py_XDECREF(v);
			goto out;
		}
		Py_DECREF(v);
	}
	for (i = 0; i < 6; i++) {
		PyObject *s = PyUnicode_FromString(cpuidle_lab_wake_name(i));

		if (!s || PyList_Append(wakes, s)) {
			Py_XDECREF(s);
			goto out;
		}
		Py_DECREF(s);
	}
	out = Py_BuildValue("(nOO)", (Py_ssize_t)cols[COL_CPU].len, dict, wakes);
out:
	Py_XDECREF(dict);
	Py_XDECREF(wakes);
	for (i = 0; i < NR_COLS; i++)
		free(cols[i].data);
	return out;
}

/* ---- platforms ---- */

static PyObject *py_platforms(PyObject *self, PyObject *noargs)
{
	const char *const *name;
	PyObject *list = PyList_New(0);

	(void)self;
	(void)noargs;
	for (name = cpuidle_platform_builtin_names(); list && *name; name++) {
		PyObject *s = PyUnicode_FromString(*name);

		if (!s || PyList_Append(list, s)) {
			Py_XDECREF(s);
			Py_CLEAR(list);
		} else {
			Py_DECREF(s);
		}
	}
	return list;
}

/* @v into dict @d at @key, the reference taken (NULL: the error already set) */
static int set_item(PyObject *d, const char *key, PyObject *v)
{
	int ret = v ? PyDict_SetItemString(d, key, v) : -1;

	Py_XDECREF(v);
	return ret;
}

/* ---- what the kernel did ---- */

struct kernel_rows {
	PyObject *list;		/* filled after the C side is done, with the GIL */
	struct cpuidle_lab_kernel_row *rows;
	char (*names)[CPUIDLE_NAME_LEN];
	size_t n, cap;
};

static int keep_kernel_row(void *ctx, const struct cpuidle_lab_kernel_row *row)
{
	struct kernel_rows *k = ctx;

	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		void *r = realloc(k->rows, cap * sizeof(*k->rows));

		if (!r)
			return -ENOMEM;
		k->rows = r;
		r = realloc(k->names, cap * sizeof(*k->names));
		if (!r)
			return -ENOMEM;
		k->names = r;
		k->cap = cap;
	}
	k->rows[k->n] = *row;
	snprintf(k->names[k->n], sizeof(k->names[k->n]), "%s", row->name);
	k->n++;
	return 0;
}

/* stats(path, platform or None) -> (span_ns, above_below, [row dict]) */
static PyObject *py_stats(PyObject *self, PyObject *args)
{
	const char *path, *platform = NULL;
	struct cpuidle_platform *p = NULL;
	struct cpuidle_lab_kernel_summary sum = { 0 };
	struct kernel_rows k = { 0 };
	PyObject *list = NULL, *out = NULL;
	char err[1024] = "";
	int ret = 0;

	(void)self;
	if (!PyArg_ParseTuple(args, "sz", &path, &platform))
		return NULL;
	if (platform) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return PyErr_NoMemory();
	}
	Py_BEGIN_ALLOW_THREADS
	if (p)
		ret = cpuidle_platform_load(platform, p, err, sizeof(err));
	if (!ret)
		ret = cpuidle_lab_kernel_stats(path, p, keep_kernel_row, &k, &sum, err, sizeof(err));
	Py_END_ALLOW_THREADS
	if (ret) {
		raise_error(ret, err);
		goto out;
	}
	list = PyList_New(0);
	for (size_t i = 0; list && i < k.n; i++) {
		const struct cpuidle_lab_kernel_row *r = &k.rows[i];
		PyObject *d = PyDict_New();

#define U(key, v)	set_item(d, key, PyLong_FromUnsignedLongLong((unsigned long long)(v)))
#define I(key, v)	set_item(d, key, PyLong_FromLongLong((long long)(v)))
		if (!d || U("cpu", r->cpu) || I("index", r->state) ||
		    set_item(d, "name", PyUnicode_FromString(k.names[i])) ||
		    U("usage", r->hits) || U("time_ns", r->total_ns) || I("min_ns", r->min_ns) ||
		    I("avg_ns", r->avg_ns) || I("max_ns", r->max_ns) ||
		    set_item(d, "above", r->misses_known ? PyFloat_FromDouble((double)r->above) :
						       PyFloat_FromDouble(NAN)) ||
		    set_item(d, "below", r->misses_known ? PyFloat_FromDouble((double)r->below) :
						       PyFloat_FromDouble(NAN)) ||
		    PyList_Append(list, d))
			Py_CLEAR(list);
#undef U
#undef I
		Py_XDECREF(d);
	}
	if (list)
		out = Py_BuildValue("(LsO)", (long long)sum.span_ns, sum.above_below, list);
out:
	Py_XDECREF(list);
	free(k.rows);
	free(k.names);
	free(p);
	return out;
}

/* ---- sim ---- */

/* a Python sequence of str into a calloc'ed array of copies; NULL after an exception */
static char **strings_of(PyObject *seq, Py_ssize_t *n)
{
	char **out;
	Py_ssize_t i;

	*n = PySequence_Size(seq);
	if (*n < 0)
		return NULL;
	out = calloc((size_t)*n + 1, sizeof(*out));
	if (!out)
		return (char **)PyErr_NoMemory();
	for (i = 0; i < *n; i++) {
		PyObject *item = PySequence_GetItem(seq, i);
		const char *v = item ? PyUnicode_AsUTF8(item) : NULL;

		out[i] = v ? strdup(v) : NULL;
		Py_XDECREF(item);
		if (!out[i]) {
			if (v)
				PyErr_NoMemory();
			while (i--)
				free(out[i]);
			free(out);
			return NULL;
		}
	}
	return out;
}

static void strings_free(char **v, Py_ssize_t n)
{
	Py_ssize_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}


/* a result as the command's JSON gives it (cpuidle-sim(1)) */
static PyObject *result_dict(const struct cpuidle_lab_result *r, const struct cpuidle_platform *p)
{
	struct cpuidle_lab_figures fig;
	PyObject *d = PyDict_New(), *states = PyList_New(0);
	int s;

	if (!d || !states)
		goto fail;
	cpuidle_lab_figures(r, NULL, &fig);
#define U(key, v)	set_item(d, key, PyLong_FromUnsignedLongLong((unsigned long long)(v)))
#define F(key, v)	set_item(d, key, PyFloat_FromDouble(v))
	if (set_item(d, "governor", PyUnicode_FromString(r->governor)) ||
	    U("intervals", r->intervals) || U("timer_unknown", r->timer_unknown) ||
	    U("timer_guessed", r->timer_guessed) || U("skipped", r->skipped) ||
	    U("entries", r->entries) || U("idle_ns", r->idle_ns) || U("busy_ns", r->busy_ns) ||
	    U("added_latency_ns", r->added_latency_ns) ||
	    U("p99_added_latency_ns", r->p99_added_latency_ns) ||
	    U("max_added_latency_ns", r->max_added_latency_ns) ||
	    U("qos_violations", r->qos_violations) || U("qos_unmeetable", r->qos_unmeetable) ||
	    U("kernel_compared", r->kernel_compared) || U("kernel_matched", r->kernel_matched) ||
	    U("domain_ns", r->domain_ns) || U("extrapolated", r->extrapolated) ||
	    F("energy_mj", fig.energy_known ? fig.energy_mj : NAN) ||
	    F("idle_energy_mj", r->energy_known ? r->idle_energy_mj : NAN) ||
	    F("cluster_energy_mj", r->cluster_energy_mj) ||
	    F("active_energy_mj", r->active_known ? r->active_energy_mj : NAN) ||
	    F("power_mw", fig.energy_known ? fig.power_mw : NAN))
		goto fail;
	for (s = 0; s < r->state_count; s++) {
		PyObject *st = PyDict_New();
		const struct cpuidle_lab_state_result *x = &r->states[s];

		if (!st)
			goto fail;
#undef U
#define U(key, v)	set_item(st, key, PyLong_FromUnsignedLongLong((unsigned long long)(v)))
		if (set_item(st, "index", PyLong_FromLong(s)) ||
		    set_item(st, "name", PyUnicode_FromString(p->states[s].name)) ||
		    U("usage", x->usage) || U("time_ns", x->time_ns) || U("above", x->above) ||
		    U("below", x->below) || U("rejected", x->rejected) || U("wakes", x->wakes) ||
		    PyList_Append(states, st)) {
			Py_DECREF(st);
			goto fail;
		}
		Py_DECREF(st);
	}
#undef U
#undef F
	if (PyDict_SetItemString(d, "states", states))
		goto fail;
	Py_DECREF(states);
	return d;
fail:
	Py_XDECREF(d);
	Py_XDECREF(states);
	return NULL;
}

/* sim(path, platform, governors, qos_us, attrs, threads) -> [result dict] */
static PyObject *py_sim(PyObject *self, PyObject *args)
{
	const char *path, *platform;
	PyObject *govs, *attr_seq, *list = NULL;
	struct cpuidle_platform *p = NULL;
	struct cpuidle_lab_trace *t = NULL;
	struct cpuidle_lab_run *runs = NULL;
	struct cpuidle_lab_result *res = NULL;
	struct cpuidle_lab_batch_error fail;
	char **names = NULL, **attrs = NULL;
	Py_ssize_t n = 0, na = 0, i;
	unsigned int threads;
	char err[1024];
	int qos, ret;

	(void)self;
	if (!PyArg_ParseTuple(args, "ssOiOI", &path, &platform, &govs, &qos, &attr_seq, &threads))
		return NULL;
	/* copies: another thread may change the lists while the GIL is released */
	names = strings_of(govs, &n);
	attrs = names ? strings_of(attr_seq, &na) : NULL;
	if (!attrs)
		goto out;
	if (!n || na > CPUIDLE_LAB_MAX_ATTRS) {
		PyErr_Format(PyExc_ValueError, n ? "at most %d attribute writes" :
				 "no governor given", CPUIDLE_LAB_MAX_ATTRS);
		goto out;
	}
	runs = calloc((size_t)n, sizeof(*runs));
	res = calloc((size_t)n, sizeof(*res));
	p = calloc(1, sizeof(*p));
	if (!runs || !res || !p) {
		PyErr_NoMemory();
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	ret = cpuidle_platform_load(platform, p, err, sizeof(err));
	if (!ret)
		ret = cpuidle_lab_trace_open(path, NULL, &t, err, sizeof(err));
	if (!ret) {
		for (i = 0; i < n; i++)
			runs[i] = (struct cpuidle_lab_run){
				.trace = t,
				.platform = p,
				.governor = names[i],
				.qos_us = qos,
				.attrs = (const char *const *)attrs,
			};
		ret = cpuidle_lab_replay_many(runs, res, (unsigned int)n, threads, &fail);
		if (ret)
			snprintf(err, sizeof(err), "%s: governor %s: %s", path, names[fail.job],
				 fail.msg[0] ? fail.msg : strerror(-ret));
	}
	cpuidle_lab_trace_close(t);
	Py_END_ALLOW_THREADS
	if (ret == -ENODATA)
		snprintf(err, sizeof(err), "%s: no complete idle interval to replay", path);
	if (ret) {
		raise_error(ret, err);
		goto out;
	}
	list = PyList_New(0);
	for (i = 0; list && i < n; i++) {
		PyObject *d = result_dict(&res[i], p);

		if (!d || PyList_Append(list, d))
			Py_CLEAR(list);
		Py_XDECREF(d);
	}
out:
	strings_free(names, n);
	strings_free(attrs, na);
	free(runs);
	free(res);
	free(p);
	return list;
}

/* ---- sweep ---- */

/* one row kept by the sweep's row callback, the GIL released */
struct sweep_row {
	struct cpuidle_lab_point at;
	struct cpuidle_lab_result res;
	struct cpuidle_lab_figures fig;
};

struct sweep_rows {
	struct sweep_row *rows;
	size_t n, cap;
};

static int keep_row(void *ctx, const struct cpuidle_lab_point *at,
		    const struct cpuidle_lab_result *res, const struct cpuidle_lab_result *oracle)
{
	struct sweep_rows *r = ctx;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct sweep_row *rows = realloc(r->rows, cap * sizeof(*rows));

		if (!rows)
			return -ENOMEM;
		r->rows = rows;
		r->cap = cap;
	}
	r->rows[r->n].at = *at;
	r->rows[r->n].res = *res;
	cpuidle_lab_figures(res, oracle, &r->rows[r->n].fig);
	r->n++;
	return 0;
}

/* a sweep row as sweep --json gives it, the states aside */
static PyObject *sweep_row_dict(const struct sweep_row *r, char *const *traces,
				char *const *govs,
				const int32_t *qos, const struct cpuidle_lab_axis *axes,
				unsigned int nr_axes, const struct cpuidle_lab_block *blocks,
				const unsigned int *block_trace)
{
	const struct cpuidle_lab_result *x = &r->res;
	const struct cpuidle_lab_figures *f = &r->fig;
	unsigned int b = r->at.block, a;
	PyObject *d = PyDict_New();

	if (!d)
		return NULL;
#define U(key, v)	set_item(d, key, PyLong_FromUnsignedLongLong((unsigned long long)(v)))
#define F(key, known, v) set_item(d, key, PyFloat_FromDouble((known) ? (v) : NAN))
	if (set_item(d, "trace", PyUnicode_FromString(traces[block_trace[b]])) ||
	    set_item(d, "platform", PyUnicode_FromString(blocks[b].platform->name)) ||
	    set_item(d, "governor", PyUnicode_FromString(govs[r->at.governor])) ||
	    F("qos_ns", qos[r->at.qos] >= 0, (double)qos[r->at.qos] * 1000.0) ||
	    U("intervals", x->intervals) || U("entries", x->entries) ||
	    U("timer_guessed", x->timer_guessed) || U("timer_unknown", x->timer_unknown) ||
	    F("energy_mj", f->energy_known, f->energy_mj) ||
	    F("power_mw", f->energy_known, f->power_mw) ||
	    F("over_oracle_pct", f->over_known, f->over_oracle_pct) ||
	    U("above", f->above) || U("below", f->below) ||
	    F("above_pct", 1, f->above_pct) || F("below_pct", 1, f->below_pct) ||
	    F("mean_added_latency_ns", 1, round(f->lat_mean_us * 1e3)) ||
	    U("p99_added_latency_ns", x->p99_added_latency_ns) ||
	    U("max_added_latency_ns", x->max_added_latency_ns) ||
	    U("qos_violations", x->qos_violations) || U("qos_unmeetable", x->qos_unmeetable) ||
	    U("extrapolated", x->extrapolated))
		goto fail;
#undef U
#undef F
	for (a = 0; a < nr_axes; a++)
		if (set_item(d, axes[a].path, PyUnicode_FromString(axes[a].values[r->at.values[a]])))
			goto fail;
	return d;
fail:
	Py_DECREF(d);
	return NULL;
}

/*
 * sweep(traces, platforms, governors, qos, axes, no_oracle, threads) ->
 * [row dict]: axes a list of (path, [values]); qos a list of ints (< 0:
 * the trace's own).  Every (trace, platform) pair is checked first; a
 * platform that cannot hold a trace is an error naming both.
 */
static PyObject *py_sweep(PyObject *self, PyObject *args)
{
	PyObject *tr_seq, *pl_seq, *gov_seq, *qos_seq, *axes_seq, *list = NULL;
	Py_ssize_t nt = 0, np_ = 0, ng = 0, nq, na, i, j;
	char **traces = NULL, **plat_names = NULL, **govs = NULL;
	char **axis_paths = NULL, ***axis_values = NULL;
	Py_ssize_t *axis_n = NULL;
	struct cpuidle_platform *plats = NULL;
	struct cpuidle_lab_trace **ts = NULL;
	struct cpuidle_lab_block *blocks = NULL;
	unsigned int *block_trace = NULL, nr_blocks = 0, threads;
	struct cpuidle_lab_axis axes[CPUIDLE_LAB_MAX_ATTRS];
	int32_t *qos = NULL;
	struct cpuidle_lab_sweep_spec spec;
	struct cpuidle_lab_sweep *sw = NULL;
	struct cpuidle_lab_sweep_error fail;
	struct sweep_rows rows = { 0 };
	static const struct cpuidle_lab_sweep_ops ops = { .row = keep_row };
	char err[1024] = "";
	int no_oracle, ret = 0;
	size_t budget = CPUIDLE_LAB_MEMORY_BUDGET;

	(void)self;
	if (!PyArg_ParseTuple(args, "OOOOOpI", &tr_seq, &pl_seq, &gov_seq, &qos_seq, &axes_seq,
			      &no_oracle, &threads))
		return NULL;
	traces = strings_of(tr_seq, &nt);
	plat_names = traces ? strings_of(pl_seq, &np_) : NULL;
	govs = plat_names ? strings_of(gov_seq, &ng) : NULL;
	if (!govs)
		goto out;
	nq = PySequence_Size(qos_seq);
	na = PySequence_Size(axes_seq);
	if (nq <= 0 || na < 0 || !nt || !np_ || !ng) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_ValueError, "no trace, platform, governor or QoS value");
		goto out;
	}
	if (na > CPUIDLE_LAB_MAX_ATTRS) {
		PyErr_Format(PyExc_ValueError, "at most %d attributes swept", CPUIDLE_LAB_MAX_ATTRS);
		goto out;
	}
	qos = calloc((size_t)nq, sizeof(*qos));
	axis_paths = calloc((size_t)na + 1, sizeof(*axis_paths));
	axis_values = calloc((size_t)na + 1, sizeof(*axis_values));
	axis_n = calloc((size_t)na + 1, sizeof(*axis_n));
	if (!qos || !axis_paths || !axis_values || !axis_n) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < nq; i++) {
		PyObject *q = PySequence_GetItem(qos_seq, i);
		long v = q ? PyLong_AsLong(q) : -1;

		Py_XDECREF(q);
		if (PyErr_Occurred())
			goto out;
		qos[i] = v < 0 ? -1 : v > INT32_MAX ? INT32_MAX : (int32_t)v;
	}
	for (i = 0; i < na; i++) {
		PyObject *ax = PySequence_GetItem(axes_seq, i), *path, *vals;
		const char *pv;

		if (!ax || !PyArg_ParseTuple(ax, "OO", &path, &vals)) {
			Py_XDECREF(ax);
			goto out;
		}
		pv = PyUnicode_AsUTF8(path);
		axis_paths[i] = pv ? strdup(pv) : NULL;
		axis_values[i] = pv ? strings_of(vals, &axis_n[i]) : NULL;
		Py_DECREF(ax);
		if (!axis_paths[i] || !axis_values[i]) {
			if (!PyErr_Occurred())
				PyErr_NoMemory();
			goto out;
		}
		if (!axis_n[i]) {
			PyErr_Format(PyExc_ValueError, "%s: no value to sweep", axis_paths[i]);
			goto out;
		}
		axes[i] = (struct cpuidle_lab_axis){
			.path = axis_paths[i],
			.values = (const char *const *)axis_values[i],
			.nr_values = (unsigned int)axis_n[i],
		};
	}
	plats = calloc((size_t)np_, sizeof(*plats));
	ts = calloc((size_t)nt, sizeof(*ts));
	blocks = calloc((size_t)(nt * np_), sizeof(*blocks));
	block_trace = calloc((size_t)(nt * np_), sizeof(*block_trace));
	if (!plats || !ts || !blocks || !block_trace) {
		PyErr_NoMemory();
		goto out;
	}
	spec = (struct cpuidle_lab_sweep_spec){
		.governors = (const char *const *)govs,
		.nr_governors = (unsigned int)ng,
		.qos_us = qos,
		.nr_qos = (unsigned int)nq,
		.axes = axes,
		.nr_axes = (unsigned int)na,
		.no_oracle = no_oracle,
	};
	Py_BEGIN_ALLOW_THREADS
	for (j = 0; !ret && j < np_; j++)
		ret = cpuidle_platform_load(plat_names[j], &plats[j], err, sizeof(err));
	for (i = 0; !ret && i < nt; i++) {
		ret = cpuidle_lab_trace_open(traces[i],
					     &(struct cpuidle_lab_open_options){ .budget = &budget },
					     &ts[i], err, sizeof(err));
		if (ret == -ENODATA)
			snprintf(err, sizeof(err), "%s: no complete idle interval to replay",
				 traces[i]);
	}
	for (i = 0; !ret && i < nt; i++)
		for (j = 0; !ret && j < np_; j++) {
			struct cpuidle_lab_block b = { .trace = ts[i], .platform = &plats[j] };

			ret = cpuidle_lab_sweep_check(&spec, &b, &fail);
			if (ret && fail.axis >= 0)
				snprintf(err, sizeof(err), "%s=%s on platform %s with trace %s: %s",
					 axes[fail.axis].path,
					 axes[fail.axis].values[fail.at.values[fail.axis]],
					 plats[j].name, traces[i], strerror(-ret));
			else if (ret)
				snprintf(err, sizeof(err), "platform %s cannot replay %s: %s",
					 plats[j].name, traces[i], ret == -ERANGE ?
					 "the trace has more CPUs than it" : strerror(-ret));
			block_trace[nr_blocks] = (unsigned int)i;
			blocks[nr_blocks++] = b;
		}
	if (!ret) {
		spec.blocks = blocks;
		spec.nr_blocks = nr_blocks;
		ret = cpuidle_lab_sweep_new(&spec, &sw);
		if (!ret) {
			ret = cpuidle_lab_sweep_run(sw, &ops, &rows, threads, &fail);
			if (ret)
				snprintf(err, sizeof(err), "trace %s, platform %s, governor %s: %s",
					 traces[block_trace[fail.at.block]],
					 blocks[fail.at.block].platform->name,
					 fail.at.governor < (unsigned int)ng ?
					 govs[fail.at.governor] : "oracle",
					 fail.msg[0] ? fail.msg : strerror(-ret));
		}
	}
	Py_END_ALLOW_THREADS
	if (ret) {
		raise_error(ret, err);
		goto out;
	}
	list = PyList_New(0);
	for (size_t r = 0; list && r < rows.n; r++) {
		PyObject *d = sweep_row_dict(&rows.rows[r], traces, govs, qos, axes,
					     (unsigned int)na, blocks, block_trace);

		if (!d || PyList_Append(list, d))
			Py_CLEAR(list);
		Py_XDECREF(d);
	}
out:
	cpuidle_lab_sweep_free(sw);
	for (i = 0; ts && i < nt; i++)
		cpuidle_lab_trace_close(ts[i]);
	free(ts);
	free(rows.rows);
	free(blocks);
	free(block_trace);
	free(plats);
	free(qos);
	for (i = 0; axis_values && i < na; i++) {
		free(axis_paths[i]);
		strings_free(axis_values[i], axis_n[i]);
	}
	free(axis_paths);
	free(axis_values);
	free(axis_n);
	strings_free(traces, nt);
	strings_free(plat_names, np_);
	strings_free(govs, ng);
	return list;
}

/* ---- fidelity ---- */

/* the plans' notes, kept as they come (the GIL released), said afterwards */
struct notes {
	char *text;
	size_t len;
	FILE *f;
};

static void keep_note(void *ctx, bool warning, const char *msg)
{
	struct notes *n = ctx;

	if (n->f)
		fprintf(n->f, "%s: %s\n", warning ? "warning" : "note", msg);
}

static PyObject *fidelity_row(const char *path, const struct cpuidle_lab_fidelity *f,
			      const struct cpuidle_lab_result *r)
{
	const struct cpuidle_lab_census *kc = cpuidle_lab_fidelity_census(f);
	const struct cpuidle_lab_run *run = cpuidle_lab_fidelity_run(f);
	PyObject *d = PyDict_New();

	if (!d)
		return NULL;
	/* cpuidle fidelity --json's names, in its order */
	if (set_item(d, "trace", PyUnicode_FromString(path)) ||
	    set_item(d, "governor", PyUnicode_FromString(run->governor)) ||
	    set_item(d, "platform", PyUnicode_FromString(run->platform->name)) ||
	    set_item(d, "kernel_entries", PyLong_FromUnsignedLongLong(r->kernel_entries)) ||
	    set_item(d, "entries", PyLong_FromUnsignedLongLong(r->kernel_compared)) ||
	    set_item(d, "matched", PyLong_FromUnsignedLongLong(r->kernel_matched)) ||
	    /* none (no kernel entry known): None, as the command's null */
	    set_item(d, "kernel_top_state", kc->top_state < 0 ? Py_NewRef(Py_None) :
			PyLong_FromLong(kc->top_state)) ||
	    set_item(d, "kernel_top_entries", PyLong_FromUnsignedLongLong(kc->top_entries)) ||
	    set_item(d, "kernel_known_entries", PyLong_FromUnsignedLongLong(kc->entries)) ||
	    set_item(d, "intervals", PyLong_FromUnsignedLongLong(r->intervals)) ||
	    set_item(d, "timer_unknown", PyLong_FromUnsignedLongLong(r->timer_unknown)) ||
	    set_item(d, "timer_guessed", PyLong_FromUnsignedLongLong(r->timer_guessed)) ||
	    set_item(d, "kernel_windows", PyLong_FromUnsignedLongLong(r->kernel_windows)) ||
	    set_item(d, "windows_matched", PyLong_FromUnsignedLongLong(r->window_matched)) ||
	    set_item(d, "windows_extra", PyLong_FromUnsignedLongLong(r->window_extra)) ||
	    set_item(d, "clock_offset_ns",
		     PyLong_FromLongLong(cpuidle_lab_fidelity_clock_offset(f)))) {
		Py_DECREF(d);
		return NULL;
	}
	return d;
}

/*
 * fidelity(paths, governor or None, platform or None, [PATH=VALUE...],
 * no_kernel_loop, threads) -> (rows, notes): cpuidle fidelity --json
 */
static PyObject *py_fidelity(PyObject *self, PyObject *args)
{
	const char *governor, *platform;
	PyObject *path_seq, *attr_seq, *rows = NULL, *ret_obj = NULL;
	struct cpuidle_lab_trace **traces = NULL;
	struct cpuidle_lab_fidelity **plans = NULL;
	struct cpuidle_lab_run *runs = NULL;
	struct cpuidle_lab_result *res = NULL;
	struct cpuidle_lab_batch_error fail;
	struct notes notes = { 0 };
	char **paths = NULL, **attrs = NULL;
	Py_ssize_t n = 0, na = 0, i;
	int no_kernel_loop, ret = 0;
	unsigned int threads;
	char err[1024] = "";

	(void)self;
	if (!PyArg_ParseTuple(args, "OzzOpI", &path_seq, &governor, &platform, &attr_seq,
			      &no_kernel_loop, &threads))
		return NULL;
	paths = strings_of(path_seq, &n);
	attrs = paths ? strings_of(attr_seq, &na) : NULL;
	if (!attrs)
		goto out;
	if (!n) {
		PyErr_SetString(PyExc_ValueError, "no trace given");
		goto out;
	}
	traces = calloc((size_t)n, sizeof(*traces));
	plans = calloc((size_t)n, sizeof(*plans));
	runs = calloc((size_t)n, sizeof(*runs));
	res = calloc((size_t)n, sizeof(*res));
	notes.f = open_memstream(&notes.text, &notes.len);
	if (!traces || !plans || !runs || !res || !notes.f) {
		PyErr_NoMemory();
		goto out;
	}
	Py_BEGIN_ALLOW_THREADS
	{
		const struct cpuidle_lab_fidelity_options opt = {
			.governor = governor,
			.platform = platform,
			.attrs = (const char *const *)attrs,
			.no_kernel_loop = no_kernel_loop,
			.note = keep_note,
			.note_ctx = &notes,
		};

		/* every trace planned before any runs: a bad one fails the call */
		for (i = 0; !ret && i < n; i++) {
			ret = cpuidle_lab_trace_open(paths[i], &(struct cpuidle_lab_open_options){
							     .stream = true }, &traces[i], err,
						     sizeof(err));
			if (!ret)
				ret = cpuidle_lab_fidelity_plan(paths[i], traces[i], &opt,
								&plans[i], err, sizeof(err));
			if (!ret)
				runs[i] = *cpuidle_lab_fidelity_run(plans[i]);
		}
	}
	if (!ret) {
		ret = cpuidle_lab_replay_many(runs, res, (unsigned int)n, threads, &fail);
		if (ret == -ERANGE)
			snprintf(err, sizeof(err), "%s: the trace has CPUs that platform %s does "
				 "not (it has %u)", paths[fail.job], runs[fail.job].platform->name,
				 runs[fail.job].platform->nr_cpus);
		else if (ret)
			snprintf(err, sizeof(err), "%s: replay failed: %s", paths[fail.job],
				 fail.msg[0] ? fail.msg : strerror(-ret));
	}
	Py_END_ALLOW_THREADS
	if (ret) {
		raise_error(ret, err);
		goto out;
	}
	rows = PyList_New(0);
	for (i = 0; rows && i < n; i++) {
		PyObject *d = fidelity_row(paths[i], plans[i], &res[i]);

		if (!d || PyList_Append(rows, d))
			Py_CLEAR(rows);
		Py_XDECREF(d);
	}
	if (rows && !fflush(notes.f))
		ret_obj = Py_BuildValue("(Os#)", rows, notes.text ? notes.text : "",
					(Py_ssize_t)notes.len);
	else if (rows)
		PyErr_NoMemory();
out:
	Py_XDECREF(rows);
	for (i = 0; i < n; i++) {
		if (plans)
			cpuidle_lab_fidelity_free(plans[i]);
		if (traces)
			cpuidle_lab_trace_close(traces[i]);
	}
	if (notes.f)
		fclose(notes.f);
	free(notes.text);
	strings_free(paths, n);
	strings_free(attrs, na);
	free(traces);
	free(plans);
	free(runs);
	free(res);
	return ret_obj;
}

static PyObject *py_set_error(PyObject *self, PyObject *cls)
{
	(void)self;
	Py_XINCREF(cls);
	Py_XSETREF(cpuidle_error, cls);
	Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
	{ "read_intervals", py_read_intervals, METH_VARARGS, "intervals as raw columns" },
	{ "platforms", py_platforms, METH_NOARGS, "the bundled platforms' names" },
	{ "stats", py_stats, METH_VARARGS, "what the kernel did, per CPU and state" },
	{ "sim", py_sim, METH_VARARGS, "replay one trace under governors" },
	{ "sweep", py_sweep, METH_VARARGS, "traces x platforms x governors x QoS x attributes" },
	{ "fidelity", py_fidelity, METH_VARARGS, "replay recordings through their governor" },
	{ "_set_error", py_set_error, METH_O, "the exception class errors raise" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "_cpuidle", "libcpuidle's lab, for cpuidle/__init__.py", -1, methods,
	NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__cpuidle(void);

PyMODINIT_FUNC PyInit__cpuidle(void)
{
	return PyModule_Create(&module);
}
