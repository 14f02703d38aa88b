# SPDX-License-Identifier: MIT
"""libcpuidle's governor lab from Python: traces as pandas DataFrames, and
replays of them through governors on modelled platforms.

The C library does the work (cpuidle/lab.h, the same code as the cpuidle
command), with the GIL released, so threads overlap; the columns are the
command's JSON names (cpuidle(1)).  Errors raise cpuidle.Error carrying the
command's message, which names the file and the line or byte.

    >>> import cpuidle
    >>> iv = cpuidle.read_intervals("traces/io-menu.perf.txt.xz")
    >>> runs = cpuidle.sim("traces/io-menu.perf.txt.xz", platform="haltpoll-vm",
    ...                    governors=["menu", "teo", "oracle"])
"""

import os
import warnings

import numpy as np
import pandas as pd

from . import _cpuidle

__all__ = ["Error", "read_intervals", "platforms", "stats", "sim", "sweep", "fidelity", "FLAGS"]


class Error(ValueError):
    """A trace, platform or run the lab refused; the message names the file and place."""


_cpuidle._set_error(Error)

# cpuidle_lab_interval.flags (include/cpuidle/lab.h)
FLAGS = {
    "partial_start": 0x01,
    "partial_end": 0x02,
    "timer_unknown": 0x04,
    "kernel_above": 0x08,
    "kernel_below": 0x10,
    "task_wake": 0x20,
    "timer_guessed": 0x80,
}


# read_intervals()' integer columns whose -1 means "none" (the CSV's empty field)
_MAYBE_UNKNOWN = ("irq", "kernel_state")


def read_intervals(path):
    """Every idle interval of a trace, one row each.

    ``path``: a trace in any format the cpuidle command reads (perf script
    text, perf.data, trace.dat, ftrace, idlestat; plain or compressed) or
    an interval file.  Columns, named as ``cpuidle convert --csv`` names
    them: ``cpu``, ``start_ns``, ``idle_ns`` (entry to the wake-up that
    needed the CPU), ``busy_ns`` (to the CPU's next entry),
    ``next_timer_ns`` (entry to the next timer armed; NaN where the trace
    cannot tell, inf where none was armed), ``qos_ns`` (NaN: no request), ``wake`` (what ended
    it: a categorical of unknown, timer, tick, resched, call-func, irq),
    ``irq`` (<NA> unless an IRQ did), ``flags`` (``FLAGS``: partial
    intervals at the trace's edges included), ``entries`` (the kernel's
    idle entries merged in), ``kernel_state`` (the state of the kernel's
    first entry, <NA> if unknown; ``irq`` and ``kernel_state`` are pandas'
    nullable integers, as the CSV leaves them empty).  The columns are
    numpy arrays filled by the C library, not a Python object per row.
    """
    n, cols, wakes = _cpuidle.read_intervals(os.fspath(path))
    data = {}
    for name, (raw, dtype) in cols.items():
        data[name] = np.frombuffer(raw, dtype=np.dtype(dtype), count=n)
    for name in _MAYBE_UNKNOWN:     # the C library's -1 for "none": a mask
        if name in data:
            data[name] = pd.arrays.IntegerArray(data[name], data[name] < 0)
    frame = pd.DataFrame(data, copy=False)
    frame["wake"] = pd.Categorical.from_codes(frame["wake"].astype(np.int16), categories=wakes)
    return frame


def platforms():
    """The names of the bundled platforms (cpuidle platform list)."""
    return _cpuidle.platforms()


def stats(path, platform=None):
    """What the kernel did in a trace, as ``cpuidle stats --json`` shows it:
    a row per CPU (those that entered a state) and state, the JSON's names
    (``cpu``, ``index``, ``name``, ``usage``, ``time_ns``, ``min_ns``,
    ``avg_ns``, ``max_ns``, ``above``, ``below``; above and below NaN where
    not known).  ``platform`` names the states and recomputes above/below
    where the trace has no cpu_idle_miss events.  The frame's
    ``attrs["span_ns"]`` and ``attrs["above_below"]`` ("kernel",
    "recomputed" or "none") are the JSON's too.  ``path`` may be an interval
    file, read back as the events it was built from (every row the trace's
    where no interval merged more than the 8 kernel entries it keeps:
    cpuidle-stats(1), INTERVAL FILES).
    """
    span, source, rows = _cpuidle.stats(os.fspath(path),
                                        None if platform is None else os.fspath(platform))
    frame = pd.DataFrame(rows)
    frame.attrs["span_ns"] = span
    frame.attrs["above_below"] = source
    return frame


def sim(path, platform="laptop", governors=("menu",), qos=None, attrs=None, threads=0):
    """Replay one trace under each governor, as ``cpuidle sim --json`` does.

    ``platform``: a bundled platform's name or a platform file;
    ``governors``: built-in names, or "oracle"; ``qos``: a CPU latency QoS
    in microseconds (as the command's --qos) in force all along (None: the trace's own);
    ``attrs``: {"module/haltpoll/parameters/guest_halt_poll_ns": 200000, ...}
    written before each run (``-s``); ``threads``: 0 for one per CPU.

    Returns one row per governor and state: the run's columns (``governor``,
    ``entries``, ``energy_mj``, ... as in the command's JSON) and the
    state's (``state_index`` and ``state_name``, its JSON ``index`` and
    ``name``; ``usage``, ``time_ns``, ``above``, ``below``, ``rejected``,
    ``wakes``).
    """
    if isinstance(governors, str):
        governors = [governors]
    writes = [f"{k}={v}" for k, v in (attrs or {}).items()]
    runs = _cpuidle.sim(os.fspath(path), os.fspath(platform), list(governors),
                        -1 if qos is None else int(qos), writes, int(threads))
    rows = []
    for run in runs:
        states = run.pop("states")
        for st in states:
            row = dict(run)
            row["state_index"] = st.pop("index")
            row["state_name"] = st.pop("name")
            row.update(st)
            rows.append(row)
    return pd.DataFrame(rows)


def sweep(traces, platforms=("haltpoll-vm",), governors=("menu", "teo", "oracle"), qos=(None,),
          attrs=None, no_oracle=False, threads=0):
    """Every combination of traces x platforms x governors x QoS values x
    attribute values, as ``cpuidle sweep --json`` runs it (the same rows, in
    the same order, with its names): one row per run.

    ``traces`` and ``platforms``: lists (a single one may be given as a
    str); ``qos``: microseconds, None for the trace's own; ``attrs``:
    {path: [values]}, each path a column of the frame; ``no_oracle``: no
    oracle runs are added, ``over_oracle_pct`` then NaN unless the
    governors name the oracle.  Energy columns are NaN where a platform
    lacks a state's power.  Every (trace, platform) pair is checked before
    anything runs.
    """
    rows, columns = _sweep_rows(traces, platforms, governors, qos, attrs, no_oracle, threads)
    return _sweep_frame(rows, columns)


def _sweep_rows(traces, platforms, governors, qos, attrs, no_oracle, threads):
    """sweep()'s rows as dicts, and the columns that lead: what a fleet's
    task returns (lighter to ship than a DataFrame, put together once)."""
    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    if isinstance(platforms, (str, os.PathLike)):
        platforms = [platforms]
    if isinstance(governors, str):
        governors = [governors]
    if qos is None or isinstance(qos, int):
        qos = [qos]
    axes = [(path, [str(v) for v in values]) for path, values in (attrs or {}).items()]
    rows = _cpuidle.sweep([os.fspath(t) for t in traces], [os.fspath(p) for p in platforms],
                          list(governors), [-1 if q is None else int(q) for q in qos], axes,
                          bool(no_oracle), int(threads))
    return rows, ["trace", "platform", "governor", "qos_ns"] + [path for path, _ in axes]


def _sweep_frame(rows, columns):
    frame = pd.DataFrame(rows)
    if frame.empty:
        return frame
    return frame[columns + [c for c in frame.columns if c not in columns]]


def fidelity(traces, governor=None, platform=None, attrs=None, kernel_loop=True, threads=0):
    """Replay each recording through the governor that recorded it, on the
    machine that recorded it, as ``cpuidle fidelity --json`` does: how often
    the port chose the kernel's state, and haltpoll's polling window.

    ``traces``: recordings (a single one may be given as a str);
    ``governor``: the governor they were recorded under (None: each
    recording's description, else its file name, NAME-GOVERNOR.*;
    NAME-haltpollN.* also sets guest_halt_poll_ns to N us); ``platform``:
    None for the recording's description's, else haltpoll-vm;
    ``attrs``: {path: value} written after the recording's own;
    ``kernel_loop``: False replays as ``sim`` does (``--no-kernel-loop``).

    One row per trace, the command's JSON names: ``kernel_entries``,
    ``entries`` (compared), ``matched``, ``kernel_top_state`` (<NA>: none
    known) and ``kernel_top_entries`` (always choosing the kernel's most frequent
    state: the baseline), ``kernel_windows``, ``windows_matched``, ... and
    the shares the command's text prints, as ``fidelity_pct``,
    ``one_state_pct``, ``cover_pct``, ``windows_pct``.  The notes the
    command prints (the recorded platform taken, a write replacing the
    recording's, a platform with too few states) are Python warnings.
    Nothing is returned unless every trace succeeds.
    """
    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    writes = [f"{k}={v}" for k, v in (attrs or {}).items()]
    rows, notes = _cpuidle.fidelity([os.fspath(t) for t in traces], governor,
                                    None if platform is None else os.fspath(platform),
                                    writes, not kernel_loop, int(threads))
    for line in notes.splitlines():
        warnings.warn(line, stacklevel=2)
    frame = pd.DataFrame(rows)
    frame["kernel_top_state"] = frame["kernel_top_state"].astype("Int64")   # <NA>: none

    def pct(a, b):
        return 100.0 * frame[a] / frame[b].where(frame[b] > 0)

    frame["fidelity_pct"] = pct("matched", "entries")
    frame["one_state_pct"] = pct("kernel_top_entries", "kernel_known_entries")
    frame["cover_pct"] = pct("entries", "kernel_entries")
    frame["windows_pct"] = pct("windows_matched", "kernel_windows")
    return frame
