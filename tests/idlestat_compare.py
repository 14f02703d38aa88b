#!/usr/bin/env python3
"""idlestat_compare - cpuidle stats's tables against idlestat's report of
the same trace (the shell tests' helper).

usage: idlestat_compare.py REPORT OURS.json [--wakeups] [--frequencies]
                           [--early-late] [--min-rows N]

REPORT is what idlestat printed (idlestat --import -f TRACE -w -p, or a
saved report); OURS.json is cpuidle stats --json -w -f of the same trace.
--wakeups: every CPU's IRQ table equals ours, interrupt by interrupt
(number and name, as idlestat cuts it at 15 characters): the count, and
with --early-late the early and late columns too.  --frequencies: every
CPU's P-state table equals ours, frequency by frequency: the hits exactly,
min, max, avg and total to idlestat's rounding.  Either fails when the
report lacks the table.  --min-rows: at least N rows compared.  Exit 0 and
one line saying what was compared, or 1 and what differs.
"""
import json
import re
import sys


def tables(report):
    """idlestat's tables: {"C-state"|"P-state"|"IRQ": {cpu: [row fields]}}."""
    out = {}
    kind, cpu = None, None
    for line in report.splitlines():
        m = re.match(r"\| (C-state|P-state|IRQ) ", line)
        if m:
            kind, cpu = m.group(1), None
            out[kind] = {}
            continue
        if kind is None or not line.startswith("|"):
            continue
        fields = [f.strip() for f in line.strip().strip("|").split("|")]
        if len(fields) == 1:
            # a heading: "cpu0", or a cluster's or core's (not compared)
            m = re.fullmatch(r"cpu(\d+)", fields[0])
            cpu = int(m.group(1)) if m else None
            continue
        if cpu is not None:
            out[kind].setdefault(cpu, []).append(fields)
    return out


def us(v):
    """idlestat's time ("12us", "4.23ms", "1.86s") in us."""
    n = float(re.sub("[a-z]+", "", v))
    return n * {"us": 1, "ms": 1e3, "s": 1e6}[re.sub("[0-9.]", "", v)]


def close(ours_ns, theirs):
    """Within idlestat's rounding: half its last digit (its times go
    through doubles in seconds: a little more), or 1% for totals summed
    from rounded microseconds."""
    t = us(theirs)
    decimals = len(theirs.split(".")[1].rstrip("munsa")) if "." in theirs else 0
    unit = {"us": 1, "ms": 1e3, "s": 1e6}[re.sub("[0-9.]", "", theirs)]
    step = unit / 10 ** decimals
    return abs(ours_ns / 1e3 - t) <= step * 0.51 + 0.01 * t + 1


def khz(v):
    """idlestat's frequency: it prints kHz values below 1000 as "Hz"."""
    n = float(re.sub("[A-Za-z]+", "", v))
    return round(n * {"Hz": 1, "MHz": 1e3, "GHz": 1e6}[re.sub("[0-9.]", "", v)])


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    report, ours = open(args[0]).read(), json.load(open(args[1]))
    min_rows = int(args[args.index("--min-rows") + 1]) if "--min-rows" in args else 1
    theirs = tables(report)
    cpus = {c["cpu"]: c for c in ours["cpus"]}
    bad, said = [], []
    if "--wakeups" in args:
        if "IRQ" not in theirs:
            bad.append("the report has no IRQ table")
        t = {cpu: {(int(f[0]), f[1]): f[2:] for f in rows if f[0] != "IPI"}
             for cpu, rows in theirs.get("IRQ", {}).items()}
        o = {cpu: {(w["irq"], w["irq_name"][:15]): w for w in c.get("wakeups", [])
                   if w["wake"] == "irq"} for cpu, c in cpus.items()}
        n = 0
        for cpu in sorted(set(t) | {c for c in o if o[c]}):
            if set(t.get(cpu, {})) != set(o.get(cpu, {})):
                bad.append("cpu%d: interrupts %s, idlestat's %s" %
                           (cpu, sorted(o.get(cpu, {})), sorted(t.get(cpu, {}))))
                continue
            for key, f in t[cpu].items():
                w = o[cpu][key]
                want = [int(x) for x in f]
                got = [w["count"]]
                if "--early-late" in args:
                    got += [w["early"], w["late"]]
                else:
                    want = want[:1]
                if got != want:
                    bad.append("cpu%d irq %d %s: %s, idlestat's %s" % (cpu, key[0], key[1],
                                                                       got, want))
                n += 1
        said.append("%d interrupt rows" % n)
        if n < min_rows:
            bad.append("only %d interrupt rows compared" % n)
    if "--frequencies" in args:
        if "P-state" not in theirs:
            bad.append("the report has no P-state table")
        n = 0
        for cpu, rows in sorted(theirs.get("P-state", {}).items()):
            mine = {f["khz"]: f for f in cpus.get(cpu, {}).get("frequencies", [])}
            if {khz(f[0]) for f in rows} != set(mine):
                bad.append("cpu%d: frequencies %s, idlestat's %s" %
                           (cpu, sorted(mine), [f[0] for f in rows]))
                continue
            for f in rows:
                r = mine[khz(f[0])]
                if r["usage"] != int(f[5]):
                    bad.append("cpu%d %s: %d hits, idlestat's %s" % (cpu, f[0], r["usage"], f[5]))
                for key, v in (("min_ns", f[1]), ("max_ns", f[2]), ("avg_ns", f[3]),
                               ("time_ns", f[4])):
                    if not close(r[key], v):
                        bad.append("cpu%d %s: %s %d, idlestat's %s" % (cpu, f[0], key, r[key], v))
                n += 1
        theirs_cpus = set(theirs.get("P-state", {}))
        for cpu, c in cpus.items():
            if c.get("frequencies") and cpu not in theirs_cpus:
                bad.append("cpu%d: frequencies idlestat has none of" % cpu)
        said.append("%d frequency rows" % n)
        if n < min_rows:
            bad.append("only %d frequency rows compared" % n)
    for b in bad:
        print(b)
    if not bad:
        print("idlestat_compare: %s equal" % ", ".join(said))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
