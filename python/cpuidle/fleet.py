# SPDX-License-Identifier: MIT
"""Sweeps over a fleet of traces on Dask (dask.distributed).

A task is one trace and every run of it (platforms x governors x QoS x
attribute values): the runs of a trace are independent of other traces', so
the tasks' rows, put together in the order of the traces, are the rows of
``cpuidle.sweep()`` of all of them at once, the same as ``cpuidle sweep``
prints - nothing is merged but whole rows, every figure (the latency
percentiles too) computed within one run.  Dask schedules the tasks,
reruns those of a worker lost, and the call works the same on a
LocalCluster or a cluster of machines (``Client("tcp://SCHEDULER:8786")``).

    >>> from dask.distributed import Client, LocalCluster
    >>> import cpuidle.fleet
    >>> with Client(LocalCluster(n_workers=2, threads_per_worker=1)) as client:
    ...     rows = cpuidle.fleet.sweep(traces, platforms=["skylake"],
    ...                                governors=["menu", "teo", "oracle"], client=client)
"""

import os
import tempfile

import pandas as pd

from . import Error, _sweep_frame, _sweep_rows

__all__ = ["sweep"]


def _one(trace, data, platforms, governors, qos, attrs, no_oracle, threads):
    """A task: one trace's runs, on a worker (its bytes shipped, or a path it
    can read): its rows as dicts, shipped back lighter than a DataFrame."""
    if data is None:
        return _sweep_rows(trace, platforms, governors, qos, attrs, no_oracle, threads)
    with tempfile.TemporaryDirectory(prefix="cpuidle-fleet-") as d:
        local = os.path.join(d, os.path.basename(trace) or "trace")
        with open(local, "wb") as f:
            f.write(data)
        rows, columns = _sweep_rows(local, platforms, governors, qos, attrs, no_oracle, threads)
    for row in rows:
        row["trace"] = trace	# the name given, not the worker's copy
    return rows, columns


def sweep(traces, platforms=("haltpoll-vm",), governors=("menu", "teo", "oracle"), qos=(None,),
          attrs=None, no_oracle=False, client=None, ship=False, threads=1, retries=1):
    """``cpuidle.sweep()`` of every trace, a Dask task a trace.

    ``client``: a ``dask.distributed.Client`` (None: the current one);
    ``ship``: send each trace's bytes to its worker (once: a task is a
    trace), for workers that do not share this machine's files; else the
    workers read the paths; ``threads``: replay threads inside a task (1:
    Dask's workers are the parallelism); ``retries``: reruns of a task
    that raised (a worker out of memory, say; a bad trace fails again the
    same way).  A task whose worker was lost (killed, its machine gone) is
    rerun by Dask's scheduler elsewhere, up to its
    ``distributed.scheduler.allowed-failures`` (3 by default), and the
    table is the same.

    Returns the rows, in the order of the traces, identical to
    ``cpuidle.sweep(traces, ...)`` of the ones that succeeded.  A trace that
    fails fails its task alone: ``frame.attrs["failed"]`` maps it to the
    message (file and line), the other traces' rows are there.
    """
    from dask.distributed import get_client, wait

    if isinstance(traces, (str, os.PathLike)):
        traces = [traces]
    traces = [os.fspath(t) for t in traces]
    client = client or get_client()
    futures = []
    for i, trace in enumerate(traces):
        data = None
        if ship:
            with open(trace, "rb") as f:
                data = client.scatter(f.read(), hash=False)
        futures.append(client.submit(_one, trace, data, platforms, governors, qos, attrs,
                                     no_oracle, threads, key=f"cpuidle-sweep-{i}-{os.getpid()}",
                                     pure=False, retries=retries))
    # every task waited for, the finished ones' rows gathered in one call
    wait(futures)
    done = [f for f in futures if f.status == "finished"]
    results = dict(zip((f.key for f in done), client.gather(done)))
    rows, columns, failed = [], None, {}
    for trace, future in zip(traces, futures):
        if future.key in results:
            task_rows, columns = results[future.key]
            rows += task_rows
            continue
        err = future.exception()
        if isinstance(err, Error):
            failed[trace] = str(err)
        else:
            failed[trace] = f"{type(err).__name__}: {err}"
    frame = _sweep_frame(rows, columns) if rows else pd.DataFrame()
    frame.attrs["failed"] = failed
    return frame
