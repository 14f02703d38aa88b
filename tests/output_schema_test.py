#!/usr/bin/python3
"""output_schema_test.py CPUIDLE [--list] - every command's --json and --csv
against cpuidle-output(7), the one vocabulary: runs each command that has
them on bundled inputs (traces/, tests/fixtures, fake sysfs trees and a
fake /dev/cpu_dma_latency as host_test.sh uses) and checks that

  - every key (JSON) and column (CSV) emitted is documented in the page's
    KEYS section, and every key documented there is emitted by some command;
  - no name ends in _us, _ms or _s (a duration is _ns; a rate _per_s);
  - no value is 4294967295 or 18446744073709551615 (the kernel's -1 read
    unsigned): unknown is null, or an empty CSV field;
  - a list of CPUs (cpus) is a list (or null: every CPU), never a count;
  - a CSV header uses the JSON's names: each column is a key the same
    command's JSON has, or state_index/state_name (a states array's index
    and name in a flat row), or a key the page marks "CSV only".

Keys chosen by the user are not the vocabulary's and are skipped: sweep's
attribute paths (they hold a '/') and the names of validate's and advise's
metrics.  --list prints every name with the commands that emit it.
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(SRC, "doc", "cpuidle-output.7.scd")
TRACE = os.path.join(SRC, "traces", "io-menu.perf.txt.xz")
MIXED = os.path.join(SRC, "traces", "mixed-nodriver.perf.txt.xz")
FX = os.path.join(SRC, "tests", "fixtures")
HALTPOLL = os.path.join(FX, "io-haltpoll200-head.perf.txt.xz")
IDLESTAT = os.path.join(FX, "both-idle.idlestat.xz")	# has cpu_frequency events
KERNEL_MINUS_ONE = (4294967295, 18446744073709551615)
# the names whose value may be -1: differences and offsets (elsewhere -1 is
# an unknown or a none that should be null)
SIGNED = {"clock_offset_ns", "error", "change", "ci_low", "ci_high", "energy_change_pct",
          "energy_change_halves_pct"}
# the JSON objects whose keys are data, not names (their values are walked):
# sweep's settings (attribute paths), advise's model_error (a metric's name
# and its state) and its candidates and best settings by kind of sweep
DATA_KEYS = {"settings", "model_error", "candidates_by_kind", "best_by_kind"}


def documented():
    """The page's KEYS section: each *name* that opens a definition line,
    those whose description says "CSV only", and those it says are printed
    by "advise --apply only" (which changes the host: not run here)."""
    text = open(PAGE).read()
    m = re.search(r"^# KEYS\n(.*?)(?=^# )", text, re.S | re.M)
    if not m:
        sys.exit("%s: no KEYS section" % PAGE)
    keys, csv_only, apply_only, current = set(), set(), set(), []
    for line in m.group(1).splitlines():
        if re.match(r"^\*[a-z0-9_]+\*(, \*[a-z0-9_]+\*)*$", line):
            current = re.findall(r"\*([a-z0-9_]+)\*", line)
            keys.update(current)
        elif line.startswith("\t") and "CSV only" in line:
            csv_only.update(current)
        elif line.startswith("\t") and "advise --apply only" in line:
            apply_only.update(current)
    return keys, csv_only, apply_only


class Run:
    """Each command's outputs, parsed: JSON documents and CSV tables."""

    def __init__(self, cli, tmp):
        self.cli, self.tmp = cli, tmp
        self.json = {}		# command label -> [documents]
        self.csv = {}		# command label -> [(header, rows)]
        self.failed = []

    def out(self, label, args, env=None):
        e = dict(os.environ, **(env or {}))
        p = subprocess.run([self.cli] + args, capture_output=True, text=True, env=e)
        if p.returncode:
            self.failed.append("%s: %s exited %d: %s" % (label, " ".join(args), p.returncode,
                                                        p.stderr.strip()[-300:]))
            return None
        return p.stdout

    def add_json(self, label, args, env=None, lines=False):
        text = self.out(label, args, env)
        if text is None:
            return
        docs = [json.loads(l) for l in text.splitlines() if l.strip()] if lines else \
            [json.loads(text)]
        self.json.setdefault(label, []).extend(docs)

    def add_csv(self, label, args, env=None):
        text = self.out(label, args, env)
        if text is None:
            return
        body = "".join(l for l in text.splitlines(True) if not l.startswith("#"))
        rows = list(csv.reader(io.StringIO(body)))
        if not rows:
            self.failed.append("%s: %s printed no header" % (label, " ".join(args)))
            return
        self.csv.setdefault(label, []).append((rows[0], rows[1:]))


def run_all(cli, tmp):
    r = Run(cli, tmp)
    grow = "module/haltpoll/parameters/guest_halt_poll_grow"
    # (label, arguments, JSON lines): each run with --json and with --csv
    both = [
        ("sim", ["-p", "juno-r2", "-g", "menu,oracle", MIXED], False),	# domain states
        ("sim", ["--pattern", "periodic:1000", "-g", "menu", "-n", "200"], False),
        ("sweep", ["--timing", "-g", "menu,haltpoll", "-p", "haltpoll-vm", "--qos", "trace,20",
                   "-s", grow + "=2,4", TRACE], True),
        ("stats", ["-w", "-f", "-p", "haltpoll-vm", IDLESTAT], False),
        ("stats", ["-p", "haltpoll-vm", TRACE], False),
        ("fidelity", [TRACE], False),
        ("validate", [TRACE], False),
        ("diff", [TRACE, TRACE], False),
        ("governors", [], False),
    ]
    for label, args, lines in both:
        r.add_json(label, [label, "--json", "-q"] + args, lines=lines)
        r.add_csv(label, [label, "--csv", "-q"] + args)
    r.add_csv("convert", ["convert", "--csv", "-q", TRACE])
    # stats and diff of an interval file: their read_back member
    ivf = os.path.join(tmp, "t.ivf")
    if r.out("convert", ["convert", "-q", TRACE, "-o", ivf]) is not None:
        r.add_json("stats", ["stats", "--json", "-q", ivf])
        r.add_json("diff", ["diff", "--json", "-q", ivf, TRACE])
    # diff of two results (sim --csv), its other rows
    for name, g in (("a", "menu"), ("b", "menu")):
        text = r.out("sim", ["sim", "--csv", "-q", "-g", g, "-p", "laptop", TRACE])
        if text is not None:
            open(os.path.join(tmp, name + ".csv"), "w").write(text)
    a, b = (os.path.join(tmp, n + ".csv") for n in "ab")
    r.add_json("diff", ["diff", "--json", "-q", a, b])
    r.add_csv("diff", ["diff", "--csv", "-q", a, b])
    r.add_json("advise", ["advise", "--json", "-q", "-p", "haltpoll-vm", "-g", "haltpoll", HALTPOLL])
    # a budget under which the least energy's setting is not the advice's
    r.add_json("advise", ["advise", "--json", "-q", "-p", "spr", "-g", "menu",
                          "--latency-budget-us", "10", TRACE])
    for fmt in ("--json", "--csv"):
        add = r.add_json if fmt == "--json" else r.add_csv
        add("conformance", ["conformance", fmt, "-g", "menu", "-d", "laptop", "-n", "100"])
    for p in ("juno-r2", "laptop"):
        r.add_json("platform show", ["platform", "show", "--json", p])
        r.add_csv("platform show", ["platform", "show", "--csv", p])
    # the host commands on fake sysfs trees and a fake QoS device
    dev = os.path.join(tmp, "cpu_dma_latency")
    for root in ("sysfs-haltpoll", "sysfs-odd"):
        env = {"CPUIDLE_SYSFS_ROOT": os.path.join(FX, root), "CPUIDLE_QOS_DEVICE": dev}
        r.add_json("info", ["info", "--json"], env)
        r.add_csv("info", ["info", "--csv"], env)
        r.add_json("monitor", ["monitor", "--json", "-i", "0.01", "-n", "1"], env, lines=True)
        r.add_csv("monitor", ["monitor", "--csv", "-i", "0.01", "-n", "1"], env)
        r.add_json("monitor", ["monitor", "--json", "-i", "60", "--", "true"], env, lines=True)
        for value in (20, 2000000000):		# a request of 20 us; none
            with open(dev, "wb") as f:
                f.write(value.to_bytes(4, "little"))
            r.add_json("qos show", ["qos", "show", "--json"], env)
            r.add_csv("qos show", ["qos", "show", "--csv"], env)
    return r


def walk(v, path, found, bad):
    """Every key under @v into @found, with the checks on names and values."""
    if isinstance(v, dict):
        for k, x in v.items():
            found.add(k)
            if k == "cpus" and not (x is None or isinstance(x, list)):
                bad.append("%s.cpus is %r, not a list" % (path, x))
            if k not in SIGNED and isinstance(x, int) and not isinstance(x, bool) and x == -1:
                bad.append("%s.%s is -1 (null where unknown or none)" % (path, k))
            if k in DATA_KEYS and isinstance(x, dict):
                for name, y in x.items():
                    walk(y, path + "." + k + "." + name, found, bad)
            else:
                walk(x, path + "." + k, found, bad)
    elif isinstance(v, list):
        for x in v:
            walk(x, path + "[]", found, bad)
    elif isinstance(v, int) and not isinstance(v, bool) and v in KERNEL_MINUS_ONE:
        bad.append("%s is %d (the kernel's -1: null where unknown)" % (path, v))


def user_named(name):
    """a CSV column named by the user (sweep -s PATH), not the vocabulary"""
    return "/" in name


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cli = sys.argv[1]
    keys, csv_only, apply_only = documented()
    tmp = tempfile.mkdtemp()
    try:
        r = run_all(cli, tmp)
    finally:
        shutil.rmtree(tmp)
    bad = list(r.failed)
    emitted = {}		# name -> commands
    json_keys = {}		# command -> its JSON's keys
    for label, docs in r.json.items():
        found = set()
        for d in docs:
            walk(d, label, found, bad)
        json_keys[label] = found
        for k in found:
            emitted.setdefault(k, set()).add(label + " --json")
    for label, tables in r.csv.items():
        for header, rows in tables:
            for c in header:
                if user_named(c):
                    continue
                emitted.setdefault(c, set()).add(label + " --csv")
                if label in json_keys and c not in json_keys[label] and \
                   c not in ("state_index", "state_name") and c not in csv_only:
                    bad.append("%s --csv: column %s is not a key of its --json (nor marked "
                               "CSV only)" % (label, c))
            for row in rows:
                for c, v in zip(header, row):
                    if v in [str(x) for x in KERNEL_MINUS_ONE] or (v == "-1" and c not in SIGNED):
                        bad.append("%s --csv: %s is %s (empty where unknown or none)"
                                   % (label, c, v))
    if "--list" in sys.argv:
        for k in sorted(emitted):
            print("%-28s %s" % (k, ", ".join(sorted(emitted[k]))))
    for k in sorted(emitted):
        if re.search(r"_(us|ms|s)$", k) and not k.endswith("_per_s"):
            bad.append("%s (%s): a duration is integer ns, named _ns" %
                       (k, ", ".join(sorted(emitted[k]))))
        if k not in keys:
            bad.append("%s (%s): not in %s's KEYS" % (k, ", ".join(sorted(emitted[k])),
                                                        os.path.basename(PAGE)))
    for k in sorted(keys - set(emitted) - apply_only):
        bad.append("%s: documented in %s but no command emits it" % (k, os.path.basename(PAGE)))
    for b in bad:
        print("FAIL: " + b)
    print("%d names from %d commands; %d problems" %
          (len(emitted), len(set(r.json) | set(r.csv)), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
