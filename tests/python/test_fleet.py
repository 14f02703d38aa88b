# SPDX-License-Identifier: MIT
"""cpuidle.fleet.sweep() on a Dask LocalCluster of two worker processes:
the rows identical to the local cpuidle.sweep() of the same traces (paths
read by the workers, or the traces' bytes shipped), a trace that fails
failing its task alone and said, a worker killed mid-task changing
nothing."""

import os
import shutil

import pandas as pd
import pytest

import cpuidle
import cpuidle.fleet

from dask import distributed   # no skip: tests/meson.build skips the suite without it

SRC = os.environ["CPUIDLE_SRC"]
TRACES = [os.path.join(SRC, "traces", "io-menu.perf.txt.xz"),
          os.path.join(SRC, "tests", "fixtures", "io-haltpoll200-head.perf.txt.xz"),
          os.path.join(SRC, "tests", "fixtures", "qos0-poll-only.perf.txt")]
ARGS = dict(platforms=["haltpoll-vm", "skylake"], governors=["menu", "teo", "oracle"],
            qos=[None, 10], attrs={"module/haltpoll/parameters/guest_halt_poll_ns": [0, 200000]})


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_fleet_is_the_local_sweep(client):
    local = cpuidle.sweep(TRACES, **ARGS)
    assert len(local) == 3 * 2 * 3 * 2 * 2
    fleet = cpuidle.fleet.sweep(TRACES, client=client, **ARGS)
    assert fleet.attrs["failed"] == {}
    pd.testing.assert_frame_equal(fleet, local)
    shipped = cpuidle.fleet.sweep(TRACES, client=client, ship=True, **ARGS)
    pd.testing.assert_frame_equal(shipped, local)


def test_a_failing_trace_fails_alone(client, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("swapper 0 [000] 1.000000000: power:cpu_idle: state=x cpu_id=0\n")
    fleet = cpuidle.fleet.sweep([TRACES[0], str(bad), TRACES[1]], client=client, **ARGS)
    assert list(fleet.attrs["failed"]) == [str(bad)]
    assert "bad.txt:1:" in fleet.attrs["failed"][str(bad)]
    pd.testing.assert_frame_equal(fleet, cpuidle.sweep([TRACES[0], TRACES[1]], **ARGS))


def _worker_killer(marker):
    """A worker plugin that ends its worker's process (os._exit, as a crash
    or an OOM kill would) when a task first starts executing anywhere:
    @marker, created then, makes it once across processes and restarts.
    Defined in a function so that it is pickled by value for the workers."""

    class KillOnce(distributed.WorkerPlugin):
        def transition(self, key, start, finish, **kwargs):
            if finish != "executing" or not str(key).startswith("cpuidle-sweep-"):
                return
            try:
                fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.write(fd, f"{key} {os.getpid()}\n".encode())
            os.close(fd)
            os._exit(1)

    return KillOnce()


def test_a_lost_worker_changes_nothing(tmp_path):
    """A worker killed in the middle of a task: Dask reruns its tasks on the
    workers left (or the one its nanny restarts), and the table is still
    the local sweep's, with nothing failed."""
    marker = tmp_path / "killed"
    traces = TRACES * 3
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    with cluster, distributed.Client(cluster) as c:
        pids_before = set(c.run(os.getpid).values())
        c.register_worker_plugin(_worker_killer(str(marker)), name="kill-once")
        fleet = cpuidle.fleet.sweep(traces, client=c, **ARGS)
        killed_key, killed_pid = marker.read_text().split()
        pids_after = set(c.run(os.getpid).values())
    assert int(killed_pid) in pids_before and int(killed_pid) not in pids_after
    assert fleet.attrs["failed"] == {}
    pd.testing.assert_frame_equal(fleet, cpuidle.sweep(traces, **ARGS))
