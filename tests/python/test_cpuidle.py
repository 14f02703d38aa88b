# SPDX-License-Identifier: MIT
"""The Python package against the cpuidle command on the same inputs: the
intervals convert --csv writes, the runs sim --json gives, and errors
carrying the command's message.  Run by meson (test "python"), with
PYTHONPATH at the build tree's python/ and CPUIDLE_CLI, CPUIDLE_SRC set."""

import csv
import io
import json
import math
import os
import subprocess
import threading

import numpy as np
import pandas as pd
import pytest

import cpuidle

CLI = os.environ["CPUIDLE_CLI"]
SRC = os.environ["CPUIDLE_SRC"]
TRACE = os.path.join(SRC, "traces", "io-menu.perf.txt.xz")


def cli(*args):
    return subprocess.run([CLI, *args], check=True, capture_output=True, text=True).stdout


def test_read_intervals_is_convert_csv():
    frame = cpuidle.read_intervals(TRACE)
    text = cli("convert", "--csv", TRACE)
    rows = list(csv.DictReader(io.StringIO("".join(l for l in text.splitlines(True)
                                                    if not l.startswith("#")))))
    assert len(frame) == len(rows) > 700
    for name in ("cpu", "start_ns", "idle_ns", "busy_ns", "entries"):
        assert frame[name].tolist() == [int(r[name]) for r in rows], name
    assert frame["wake"].astype(str).tolist() == [r["wake"] for r in rows]
    # the next timer: the CSV's number, or inf where none is armed
    for got, r in zip(frame["next_timer_ns"], rows):
        assert (math.isinf(got) and r["next_timer_ns"] == "inf") or got == int(r["next_timer_ns"])
    # the QoS: the CSV's nanoseconds, NaN where it is empty (no request)
    for got, r in zip(frame["qos_ns"], rows):
        assert (math.isnan(got) and r["qos_ns"] == "") or got == int(r["qos_ns"]), (got, r)
    # an IRQ or a kernel state that is not known: <NA>, as the CSV's empty field
    for name in ("irq", "kernel_state"):
        assert [None if v is pd.NA else int(v) for v in frame[name]] == \
            [None if r[name] == "" else int(r[name]) for r in rows], name
    assert frame["irq"].isna().any() and frame["kernel_state"].notna().all()
    assert isinstance(frame["start_ns"].values, np.ndarray)
    assert frame["start_ns"].dtype == np.int64


def test_sim_is_cli_json():
    govs = ["menu", "teo", "haltpoll", "oracle"]
    frame = cpuidle.sim(TRACE, platform="haltpoll-vm", governors=govs)
    want = json.loads(cli("sim", "--json", "-g", ",".join(govs), "-p", "haltpoll-vm", TRACE))
    assert list(frame["governor"].unique()) == govs
    for run in want["runs"]:
        mine = frame[frame["governor"] == run["governor"]]
        assert mine["entries"].iloc[0] == run["entries"]
        assert mine["intervals"].iloc[0] == run["intervals"]
        assert round(mine["energy_mj"].iloc[0], 6) == run["energy_mj"]
        assert mine["state_name"].tolist() == [s["name"] for s in run["states"]]
        assert mine["state_index"].tolist() == [s["index"] for s in run["states"]]
        for key in ("usage", "time_ns", "above", "below", "wakes"):
            assert mine[key].tolist() == [s[key] for s in run["states"]], key


def test_sim_kernel_releases():
    """NAME@RELEASE: the CLI's figures; NAME@6.18 is NAME renamed; an
    unknown release is refused naming the known ones."""
    govs = ["teo", "teo@6.18", "teo@7.1", "menu@7.1"]
    frame = cpuidle.sim(TRACE, platform="haltpoll-vm", governors=govs)
    want = json.loads(cli("sim", "--json", "-g", ",".join(govs), "-p", "haltpoll-vm", TRACE))
    assert list(frame["governor"].unique()) == govs
    for run in want["runs"]:
        mine = frame[frame["governor"] == run["governor"]]
        assert mine["entries"].iloc[0] == run["entries"]
        assert mine["usage"].tolist() == [s["usage"] for s in run["states"]]
    plain, same = (frame[frame["governor"] == g] for g in ("teo", "teo@6.18"))
    assert plain["usage"].tolist() == same["usage"].tolist()
    with pytest.raises(Exception, match=r"teo@6\.18 \(= teo\), teo@7\.1"):
        cpuidle.sim(TRACE, platform="haltpoll-vm", governors=["teo@9.9"])


def test_sim_attrs_and_qos():
    base = cpuidle.sim(TRACE, platform="haltpoll-vm", governors="haltpoll",
                       attrs={"module/haltpoll/parameters/guest_halt_poll_ns": 0})
    poll = cpuidle.sim(TRACE, platform="haltpoll-vm", governors="haltpoll",
                       attrs={"module/haltpoll/parameters/guest_halt_poll_ns": 200000})
    want = json.loads(cli("sim", "--json", "-g", "haltpoll", "-p", "haltpoll-vm", "-s",
                          "module/haltpoll/parameters/guest_halt_poll_ns=200000", TRACE))
    assert poll["usage"].tolist() == [s["usage"] for s in want["runs"][0]["states"]]
    assert base["usage"].iloc[0] == 0 < poll["usage"].iloc[0]	# only a window polls
    q0 = cpuidle.sim(TRACE, platform="haltpoll-vm", governors="menu", qos=0)
    assert q0["usage"].iloc[1] == 0	# nothing but polling under a QoS of 0


def test_platforms():
    names = cpuidle.platforms()
    assert "haltpoll-vm" in names and "juno-r2" in names
    assert names == cli("platform", "list").split() or set(names) <= set(
        cli("platform", "list").split())


def test_errors_carry_the_message(tmp_path):
    with pytest.raises(cpuidle.Error, match="nosuch.txt: No such file or directory"):
        cpuidle.read_intervals(tmp_path / "nosuch.txt")
    bad = tmp_path / "bad.txt"
    bad.write_text("swapper 0 [000] 1.000000000: power:cpu_idle: state=1 cpu_id=0\n"
                   "swapper 0 [000] 0.500000000: power:cpu_idle: state=x cpu_id=0\n")
    with pytest.raises(cpuidle.Error, match=r"bad.txt:2: "):
        cpuidle.read_intervals(bad)
    with pytest.raises(cpuidle.Error, match="governor nosuch"):
        cpuidle.sim(TRACE, governors=["menu", "nosuch"])
    with pytest.raises(cpuidle.Error, match="nosuch-platform"):
        cpuidle.sim(TRACE, platform="nosuch-platform")


def test_threads_give_the_same():
    """Replays on several Python threads at once (the GIL released in C) agree."""
    out = [None] * 4

    def run(i):
        out[i] = cpuidle.sim(TRACE, platform="haltpoll-vm", governors=["menu", "teo"], threads=1)

    ts = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for frame in out[1:]:
        pd.testing.assert_frame_equal(frame, out[0])


def test_sweep_is_cli_json():
    """The same rows, in the same order, as cpuidle sweep --json of the same inputs."""
    trace2 = os.path.join(SRC, "tests", "fixtures", "io-haltpoll200-head.perf.txt.xz")
    axis = "module/haltpoll/parameters/guest_halt_poll_ns"
    frame = cpuidle.sweep([TRACE, trace2], platforms=["haltpoll-vm", "skylake"],
                          governors=["menu", "haltpoll"], qos=[None, 20],
                          attrs={axis: [0, 200000]})
    want = [json.loads(l) for l in cli("sweep", "--json", "-g", "menu,haltpoll",
                                       "-p", "haltpoll-vm,skylake", "--qos", "trace,20",
                                       "-s", axis + "=0,200000", TRACE, trace2).splitlines()]
    assert len(frame) == len(want) == 2 * 2 * 2 * 2 * 2
    for (_, got), row in zip(frame.iterrows(), want):
        assert got["trace"] == row["trace"] and got["platform"] == row["platform"]
        assert got["governor"] == row["governor"]
        assert (math.isnan(got["qos_ns"]) and row["qos_ns"] is None) or got["qos_ns"] == row["qos_ns"]
        assert got[axis] == row["settings"][axis]
        for key in ("intervals", "entries", "above", "below", "qos_violations"):
            assert got[key] == row[key], key
        for key, places in (("energy_mj", 3), ("power_mw", 2), ("over_oracle_pct", 2),
                            ("mean_added_latency_ns", 0), ("p99_added_latency_ns", 0)):
            assert (row[key] is None and math.isnan(got[key])) or \
                f"{got[key]:.{places}f}" == f"{row[key]:.{places}f}", key


def test_sweep_errors():
    with pytest.raises(cpuidle.Error, match="on platform haltpoll-vm with trace"):
        cpuidle.sweep(TRACE, governors="menu", attrs={"module/haltpoll/parameters/guest_halt_poll_ns": ["x"]})
    with pytest.raises(cpuidle.Error, match="nosuch"):
        cpuidle.sweep(TRACE, governors=["menu", "nosuch"])


@pytest.mark.parametrize("platform", [None, "haltpoll-vm"])
def test_stats_is_cli_json(platform):
    frame = cpuidle.stats(TRACE, platform=platform)
    want = json.loads(cli("stats", "--json", *(["-p", platform] if platform else []), TRACE))
    assert frame.attrs["span_ns"] == want["span_ns"]
    assert frame.attrs["above_below"] == want["above_below"]
    rows = [dict(st, cpu=c["cpu"]) for c in want["cpus"] for st in c["states"]]
    assert len(frame) == len(rows) > 0
    for (_, got), row in zip(frame.iterrows(), rows):
        for key in ("cpu", "index", "name", "usage", "time_ns", "min_ns", "avg_ns", "max_ns"):
            assert got[key] == row[key], key
        for key in ("above", "below"):
            assert (row[key] is None and math.isnan(got[key])) or got[key] == row[key], key


def test_stats_of_an_interval_file_is_cli_json(tmp_path):
    # read back as the events it was built from, as cpuidle stats does;
    # no interval of the bundled trace merges more than 8 entries, so
    # every CPU's rows are the trace's
    ivf = tmp_path / "t.ivf"
    cli("convert", TRACE, "-o", str(ivf))
    frame = cpuidle.stats(ivf)
    want = json.loads(cli("stats", "--json", str(ivf)))
    trace = cpuidle.stats(TRACE)
    rows = [dict(st, cpu=c["cpu"]) for c in want["cpus"] for st in c["states"]]
    assert len(frame) == len(rows) == len(trace) > 0
    for (_, got), row, (_, orig) in zip(frame.iterrows(), rows, trace.iterrows()):
        for key in ("cpu", "index", "usage", "time_ns", "min_ns", "avg_ns", "max_ns"):
            assert got[key] == row[key] == orig[key], key


SHARED = os.path.join(SRC, "..", "shared", "traces")


def test_fidelity_is_cli_json():
    traces = [TRACE] + [os.path.join(SHARED, f) for f in ("io-haltpoll200.perf.txt.xz",
                                                          "mixed-ladder.perf.txt.xz")
                        if os.path.exists(os.path.join(SHARED, f))]
    frame = cpuidle.fidelity(traces)
    want = json.loads(cli("fidelity", "--json", *traces))
    assert len(frame) == len(want) == len(traces)
    for (_, got), row in zip(frame.iterrows(), want):
        for key, value in row.items():
            assert got[key] == value, (key, got[key], value)
        assert got["fidelity_pct"] == pytest.approx(100.0 * row["matched"] / row["entries"])
    # the haltpoll recording's window comes from its name (haltpoll200)
    if len(traces) > 1:
        assert frame["kernel_windows"].iloc[1] > 0 and frame["windows_pct"].iloc[1] > 90
    # --no-kernel-loop and -g are the command's too
    frame = cpuidle.fidelity(TRACE, governor="teo", kernel_loop=False)
    row = json.loads(cli("fidelity", "--json", "-g", "teo", "--no-kernel-loop", TRACE))[0]
    assert frame["governor"].iloc[0] == "teo" and frame["matched"].iloc[0] == row["matched"]


def test_fidelity_described_recording(tmp_path):
    """A recording's description gives governor, platform and tunables;
    its notes are warnings; a write given replaces the recording's."""
    desc = tmp_path / "described.txt"
    with open(os.path.join(SRC, "platforms", "haltpoll-vm.platform")) as f:
        plat = [l.strip() for l in f if l.strip() and not l.startswith("#")]
    plat = ['platform "recorded"' if l.startswith("platform ") else l for l in plat]
    head = ["version 1", "governor haltpoll",
            "set module/haltpoll/parameters/guest_halt_poll_ns=0"]
    head += ["platform " + l for l in plat]
    body = subprocess.run(["xz", "-dc", TRACE], check=True, capture_output=True).stdout
    desc.write_bytes("".join(f"# cpuidle-recording {l}\n" for l in head).encode() + body)
    with pytest.warns(UserWarning, match="on the platform it was recorded on"):
        frame = cpuidle.fidelity(desc)
    assert frame["governor"].iloc[0] == "haltpoll" and frame["platform"].iloc[0] == "recorded"
    want = json.loads(cli("fidelity", "--json", str(desc)))[0]
    assert frame["matched"].iloc[0] == want["matched"]
    with pytest.warns(UserWarning, match="guest_halt_poll_ns=200000, not the recording's"):
        cpuidle.fidelity(desc, attrs={"module/haltpoll/parameters/guest_halt_poll_ns": 200000})


def test_fidelity_errors(tmp_path):
    nameless = tmp_path / "noname.perf.txt"
    nameless.write_bytes(subprocess.run(["xz", "-dc", TRACE], check=True,
                                        capture_output=True).stdout)
    with pytest.raises(cpuidle.Error, match="noname.perf.txt: which governor recorded it"):
        cpuidle.fidelity([TRACE, nameless])
    with pytest.raises(cpuidle.Error, match="no governor 'nosuch'"):
        cpuidle.fidelity(TRACE, governor="nosuch")
    with pytest.raises(cpuidle.Error, match="nosuch-menu.txt"):
        cpuidle.fidelity(tmp_path / "nosuch-menu.txt")
