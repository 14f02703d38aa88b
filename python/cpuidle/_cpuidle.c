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
	[COL_QOS] = { "qos_us", "<i4", 4 },
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
	int32_t qos = iv->qos_us, irq = iv->irq, kstate = iv->kernel_state;
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

/* ---- sim ---- */

static int set_item(PyObject *d, const char *key, PyObject *v)
{
	int ret = v ? PyDict_SetItemString(d, key, v) : -1;

	Py_XDECREF(v);
	return ret;
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
		if (set_item(st, "name", PyUnicode_FromString(p->states[s].name)) ||
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

/*
 * attrs: a sequence of "PATH=VALUE" strings, copied into @out
 * (NULL-terminated; the caller frees them): another thread may change the
 * sequence while the GIL is released
 */
static int attrs_of(PyObject *seq, char **out, size_t max)
{
	Py_ssize_t n, i;

	if (seq == Py_None) {
		out[0] = NULL;
		return 0;
	}
	n = PySequence_Size(seq);
	if (n < 0)
		return -1;
	if ((size_t)n > max) {
		PyErr_Format(PyExc_ValueError, "at most %zu attribute writes", max);
		return -1;
	}
	for (i = 0; i < n; i++) {
		PyObject *item = PySequence_GetItem(seq, i);
		const char *v = item ? PyUnicode_AsUTF8(item) : NULL;

		out[i] = v ? strdup(v) : NULL;
		Py_XDECREF(item);
		out[i + 1] = NULL;
		if (!out[i]) {
			if (v)
				PyErr_NoMemory();
			return -1;
		}
	}
	out[n] = NULL;
	return 0;
}

/* sim(path, platform, governors, qos_us, attrs, threads) -> [result dict] */
static PyObject *py_sim(PyObject *self, PyObject *args)
{
	const char *path, *platform;
	char *attrs[CPUIDLE_LAB_MAX_ATTRS + 1] = { NULL };
	PyObject *govs, *attr_seq, *list = NULL;
	struct cpuidle_platform *p = NULL;
	struct cpuidle_lab_trace *t = NULL;
	struct cpuidle_lab_run *runs = NULL;
	struct cpuidle_lab_result *res = NULL;
	struct cpuidle_lab_batch_error fail;
	char **names = NULL;
	unsigned int threads;
	char err[1024];
	Py_ssize_t n, i;
	int qos, ret;

	(void)self;
	if (!PyArg_ParseTuple(args, "ssOiOI", &path, &platform, &govs, &qos, &attr_seq, &threads))
		return NULL;
	n = PySequence_Size(govs);
	if (n <= 0) {
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_ValueError, "no governor given");
		return NULL;
	}
	if (attrs_of(attr_seq, attrs, CPUIDLE_LAB_MAX_ATTRS))
		goto out;
	names = calloc((size_t)n, sizeof(*names));
	runs = calloc((size_t)n, sizeof(*runs));
	res = calloc((size_t)n, sizeof(*res));
	p = calloc(1, sizeof(*p));
	if (!names || !runs || !res || !p) {
		PyErr_NoMemory();
		goto out;
	}
	for (i = 0; i < n; i++) {
		PyObject *g = PySequence_GetItem(govs, i);
		const char *v = g ? PyUnicode_AsUTF8(g) : NULL;

		names[i] = v ? strdup(v) : NULL;
		Py_XDECREF(g);
		if (!names[i]) {
			if (v)
				PyErr_NoMemory();
			goto out;
		}
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
	for (i = 0; names && i < n; i++)
		free(names[i]);
	for (i = 0; attrs[i]; i++)
		free(attrs[i]);
	free(names);
	free(runs);
	free(res);
	free(p);
	return list;
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
	{ "sim", py_sim, METH_VARARGS, "replay one trace under governors" },
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
