#!/bin/sh
# cli_shared_test.sh CPUIDLE - the command-line tool on the shared real
# traces (../shared/traces beside the project, as CI has them): fidelity to
# the recording kernel's choices and windows, and idlestat's own figures.
# Without them: a skip (exit 77) that says so, never a pass.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"

traces="$src/../shared/traces"
if [ ! -d "$traces" ]; then
	echo "cli_shared: no $traces: nothing to check"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Fidelity to the kernel, where the shared traces are at hand (CI has them).
# every ladder and menu trace: 99% of the kernel's entries compared
# (coverage; the QoS-0 ones re-enter POLL far more often than an
# interval keeps states for), and 99% of those in the kernel's state
for t in $(cd "$traces" && ls *-ladder.perf.txt.xz *-menu.perf.txt.xz |
	   sed 's/\.perf\.txt\.xz$//'); do
	if why=$("$cli" fidelity --json "$traces/$t.perf.txt.xz" | python3 -c '
import json,sys
for r in json.load(sys.stdin):
    fig = "%d of %d entries compared, %d matched" % (r["entries"], r["kernel_entries"],
                                                    r["matched"])
    assert r["entries"] > 50 and r["matched"] >= 0.99 * r["entries"], fig
    assert r["entries"] >= 0.99 * r["kernel_entries"], fig' 2>&1); then ok; else
		bad "fidelity on $t: $(printf '%s' "$why" | tail -1)"; fi
done
# haltpoll: the kernel's polling windows (power:guest_halt_poll_ns) and
# states reproduced, 99% of each (and 99% of the entries compared), on every
# *-haltpoll200 trace (recorded with the default 200 us window, the name
# says so) and every plain *-haltpoll one (recorded with
# guest_halt_poll_ns=0, which nothing but the kernel's own window
# adjustments in the trace says: the plan must find it there).  Known
# failures, with their figures: io-haltpoll (8 entries merged into their
# intervals are not compared, and the windows after them not matched) and
# timer1k-haltpoll (QoS 0: 3 windows logged, 1 after an entry not compared).
for t in $(cd "$traces" && ls *-haltpoll200.perf.txt.xz *-haltpoll.perf.txt.xz |
	   sed 's/\.perf\.txt\.xz$//'); do
	floor=99
	# the windows the trace logged: where there are few (mixed: QoS 0,
	# so haltpoll polls without adjusting), every one must be compared
	logged=$(xz -dc "$traces/$t.perf.txt.xz" | grep -c 'power:guest_halt_poll_ns:')
	if why=$("$cli" fidelity --json "$traces/$t.perf.txt.xz" 2>"$tmp/fidelity.err" | python3 -c '
import json,sys
floor = float(sys.argv[1]) / 100
for r in json.load(sys.stdin):
    fig = "%d of %d entries compared (%.1f%%), %d of %d windows matched, %s logged" % (
        r["entries"], r["kernel_entries"], 100 * r["entries"] / max(r["kernel_entries"], 1),
        r["windows_matched"], r["kernel_windows"], sys.argv[2])
    assert r["governor"] == "haltpoll", r
    assert r["entries"] > 50 and r["matched"] >= 0.99 * r["entries"], fig
    assert r["entries"] >= 0.99 * r["kernel_entries"], fig
    assert r["kernel_windows"] > 50 or r["kernel_windows"] == int(sys.argv[2]) > 0, fig
    assert r["windows_matched"] >= floor * r["kernel_windows"], fig' "$floor" "$logged" 2>&1)
	then ok
	else
		case $t in
		io-haltpoll|timer1k-haltpoll)
			known_failure "haltpoll fidelity on $t: $(printf '%s' "$why" | tail -1)";;
		*)	bad "haltpoll fidelity on $t: $(printf '%s' "$why" | tail -1)";;
		esac
	fi
	# the plain ones' cap comes from the trace, said in a note
	case $t in *haltpoll)
		if grep -q "capped at 0 us (guest_halt_poll_ns), as the kernel's own" \
		   "$tmp/fidelity.err"; then ok; else
			bad "fidelity $t: no note of the cap found in the trace: $(cat "$tmp/fidelity.err")"
		fi;;
	esac
done
# ... and not where the default fits (a 200 us recording under a plain
# name), nor where the caller says it
cp "$traces/io-haltpoll200.perf.txt.xz" "$tmp/io-haltpoll.perf.txt.xz"
if err=$("$cli" fidelity "$tmp/io-haltpoll.perf.txt.xz" 2>&1 >/dev/null) &&
   ! printf '%s' "$err" | grep -q "capped at"; then ok; else
	bad "fidelity: a cap inferred where the default fits: $err"; fi
if err=$("$cli" fidelity -s module/haltpoll/parameters/guest_halt_poll_ns=200000 \
	 "$traces/nginx-haltpoll.perf.txt.xz" 2>&1 >/dev/null) &&
   ! printf '%s' "$err" | grep -q "capped at"; then ok; else
	bad "fidelity: a cap inferred over the caller's: $err"; fi
expect_fail "fidelity bad tunable" "guest_halt_poll_ns=-1" fidelity \
	-s module/haltpoll/parameters/guest_halt_poll_ns=-1 "$traces/idle-haltpoll200.perf.txt.xz"
# cpuidle stats agrees with what idlestat printed for its own trace
if "$cli" stats --json "$traces/nginx.idlestat.xz" | python3 -c '
import json, re, sys
d = json.load(sys.stdin)
report = open(sys.argv[1]).read()
report = report[report.index("| C-state"):]
report = report[:report.index("| IRQ") if "| IRQ" in report else len(report)]
rows = re.findall(r"\|\s*cpu(\d+)\s*\|.*?\n-+\n((?:\|.*\n)+?)-+", report)
assert rows, "no C-state table in the report"
def ms(v):
    n = float(re.sub("[a-z]+", "", v))
    return n * {"us": 1e-3, "ms": 1, "s": 1e3}[re.sub("[0-9.]", "", v)]
checked = 0
for cpu, body in rows:
    for line in body.splitlines():
        f = [x.strip() for x in line.strip("|").split("|")]
        total, hits = ms(f[4]), int(f[5])
        ours = [c for c in d["cpus"] if c["cpu"] == int(cpu)][0]
        st = max(ours["states"], key=lambda s: s["usage"] if s["usage"] == hits else -1)
        assert st["usage"] == hits, (st, hits)
        assert abs(st["time_ns"] / 1e6 - total) <= 0.001 * total, (st, total)
        checked += 1
assert checked > 0' "$traces/nginx.idlestat-report.txt"; then ok; else bad "stats vs idlestat"; fi
# ... and so do its wake-ups (-w): per CPU, the interrupts that ended idle
# periods, counted as idlestat -w counted them for its own traces
for t in mixed nginx; do
	if "$cli" stats --json -w "$traces/$t.idlestat.xz" >"$tmp/$t.json" 2>/dev/null &&
	   python3 "$src/tests/idlestat_compare.py" "$traces/$t.idlestat-report.txt" "$tmp/$t.json" \
		--wakeups >"$tmp/cmp.out" 2>&1
	then ok; else bad "stats -w vs idlestat's report of $t: $(cat "$tmp/cmp.out")"; fi
done
# frequencies: the Juno's trace.dat (binary, libtracecmd) and its trace-cmd
# report text give the same table, hits exactly, times to the text's
# microseconds; 6 CPUs at 2 frequencies each
juno="$traces/hardware/juno-lisa"
if "$cli" stats --json -f "$juno/trace.dat.xz" >"$tmp/dat.json" 2>/dev/null &&
   "$cli" stats --json -f "$juno/trace.report.txt.xz" >"$tmp/report.json" 2>/dev/null &&
   python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
n = 0
for x, y in zip(a["cpus"], b["cpus"]):
    assert x["cpu"] == y["cpu"]
    for f, g in zip(x["frequencies"], y["frequencies"]):
        assert (f["khz"], f["usage"]) == (g["khz"], g["usage"]), (x["cpu"], f, g)
        assert abs(f["time_ns"] - g["time_ns"]) <= 1000 * f["usage"], (x["cpu"], f, g)
        n += 1
    assert len(x["frequencies"]) == len(y["frequencies"]), (x, y)
assert n == 12, n' "$tmp/dat.json" "$tmp/report.json"
then ok; else bad "stats -f: the Juno's trace.dat against its report text"; fi
# every idle period of a perf recording ended once (its interrupt, timer or
# IPI, or unknown): per CPU as many wake-ups as periods, give or take the
# one still idle at the end and the one the trace began in; these carry
# irq_vectors' timer and IPIs, so few are unknown where the CPU halts
for t in $(cd "$traces" && ls *-menu.perf.txt.xz | sed 's/\.perf\.txt\.xz$//'); do
	if why=$("$cli" stats --json -w "$traces/$t.perf.txt.xz" 2>/dev/null | python3 -c '
import json, sys
for c in json.load(sys.stdin)["cpus"]:
    hits = sum(s["usage"] for s in c["states"])
    kinds = {}
    for w in c["wakeups"]:
        kinds[w["wake"]] = kinds.get(w["wake"], 0) + w["count"]
    n = sum(kinds.values())
    assert hits - 1 <= n <= hits + 1, ("cpu%d" % c["cpu"], hits, kinds)
    assert not hits or kinds.get("timer", 0) > 0, ("cpu%d" % c["cpu"], kinds)' 2>&1); then ok; else
		bad "stats -w on $t: $(printf '%s' "$why" | tail -1)"; fi
done

# an IRQ name with a comma and quotes: one quoted field, quotes doubled
tcsv=$(mktemp -d)
trap 'rm -rf "$tcsv" "$tmp"' EXIT
xz -dc "$traces/timer60-laptop-menu.perf.txt.xz" |
	sed 's/name=virtio4-input$/name=a "b",c/' >"$tcsv/quote.txt"
if "$cli" convert "$tcsv/quote.txt" --csv | python3 -c '
import csv, sys
rows = list(csv.reader(l for l in sys.stdin if l[0] != "#"))
assert all(len(r) == 14 for r in rows), [r for r in rows if len(r) != 14]
irqs = [r[6] for r in rows[1:] if r[5] == "irq"]
assert "a \"b\",c" in irqs and "virtio3-rx" in irqs, irqs'; then ok; else
	bad "convert --csv: a quoted IRQ name"; fi
# an IRQ name of a terminal escape sequence and bytes that are no UTF-8:
# \xNN in the CSV (tools/text.c), valid UTF-8, no control byte
xz -dc "$traces/timer60-laptop-menu.perf.txt.xz" |
	sed "s/name=virtio4-input\$/name=ab$(printf '\033')[31mc$(printf '\377\376')/" >"$tcsv/esc.txt"
if "$cli" convert "$tcsv/esc.txt" --csv 2>/dev/null | python3 -c '
import sys
b = sys.stdin.buffer.read()
b.decode("utf-8")
assert not any(c < 0x20 and c != 10 or c == 0x7f for c in b)
assert b",irq,ab\\x1b[31mc\\xff\\xfe," in b'; then ok; else
	bad "convert --csv: an IRQ name of control and non-UTF-8 bytes"; fi
# both CPUs idle in pgbench: both said, none never idle
line=$("$cli" convert --csv "$traces/pgbench-menu.perf.txt.xz" 2>/dev/null | head -n 1)
[ "$line" = "# nr_cpus=2 never_idle=" ] && ok || bad "convert --csv, pgbench's machine line: $line"

# juno-r2 is the board LISA describes beside its trace: its topology and
# running power from plat_info.yml, made back by platform import
plat_info="$traces/hardware/juno-lisa/plat_info.yml"
if "$cli" platform import --states-from juno-r2 -o "$tcsv/juno.platform" "$plat_info" &&
   "$cli" platform show --json "$tcsv/juno.platform" >"$tcsv/a.json" &&
   "$cli" platform show --json juno-r2 >"$tcsv/b.json" && python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["name"] == "juno" and "4.19.0" in a["desc"], (a["name"], a["desc"])
for d in (a, b):
    del d["name"], d["desc"]
assert a == b, (a, b)
assert [c["cpus"] for c in a["clusters"]] == [[1, 2], [0, 3, 4, 5]], a["clusters"]' \
	"$tcsv/a.json" "$tcsv/b.json"; then ok; else bad "platform import of Juno's plat_info.yml"; fi

# the ports by kernel release on a shared recording: each replays every
# interval; NAME@6.18 decides as NAME (the same figures but speed)
if "$cli" sim --json -p skylake -g teo,teo@6.18,teo@7.1,menu,menu@6.18,menu@7.1 \
	"$traces/nginx-menu.perf.txt.xz" 2>/dev/null | python3 -c '
import json,sys
runs = {r["governor"]: r for r in json.load(sys.stdin)["runs"]}
for g in ("teo", "menu"):
    a, b, c = runs[g], runs[g + "@6.18"], runs[g + "@7.1"]
    for k in ("entries", "energy_mj", "states", "added_latency_ns"):
        assert a[k] == b[k], (g, k, a[k], b[k])
    assert c["intervals"] == a["intervals"] > 1000 and c["entries"] > 0, (g, c)'; then ok; else
	bad "sim with the ports by kernel release on nginx-menu"; fi

# stats of an interval file, read back as the events it was built from:
# on traces where both CPUs idle (their cluster rows count) and ones whose
# intervals merge long chains of polls, each CPU's entries and time as the
# trace's; every CPU row as the trace's where no interval has more entries
# than it keeps (the note says so); the clusters' rows, whose periods move
# with the re-entries' places, within 0.5% of the trace's time and hits
# where every CPU idles
for t in pgbench-haltpoll200 pgbench-menu sqlite-haltpoll sqlite-ladder udp-menu \
	 video-haltpoll200 mixed-haltpoll200 timer1k-haltpoll; do
	"$cli" convert -q "$traces/$t.perf.txt.xz" -o "$tcsv/$t.ivf" >/dev/null 2>&1
	"$cli" stats -q --csv "$traces/$t.perf.txt.xz" >"$tcsv/$t.t.csv"
	"$cli" stats --csv "$tcsv/$t.ivf" >"$tcsv/$t.i.csv" 2>"$tcsv/$t.note"
	if why=$(python3 - "$tcsv/$t.t.csv" "$tcsv/$t.i.csv" "$tcsv/$t.note" <<'PY' 2>&1
import csv, sys
def rows(p):
    return list(csv.DictReader(open(p)))
a, b = rows(sys.argv[1]), rows(sys.argv[2])
note = open(sys.argv[3]).read()
cpu = lambda rs: {(r["cpu"], r["state_index"]): r for r in rs if r["cpu"] != ""}
ca, cb = cpu(a), cpu(b)
assert ca.keys() == cb.keys() and ca, (ca.keys(), cb.keys())
for c in {k[0] for k in ca}:
    for col in ("usage", "time_ns"):
        x = sum(int(r[col]) for k, r in ca.items() if k[0] == c)
        y = sum(int(r[col]) for k, r in cb.items() if k[0] == c)
        assert x == y, (c, col, x, y)
if "entries past" not in note:
    cols = ("usage", "time_ns", "min_ns", "avg_ns", "max_ns")
    for k in ca:
        assert [ca[k][c] for c in cols] == [cb[k][c] for c in cols], (k, ca[k], cb[k])
cl = lambda rs: {r["state_index"]: r for r in rs if r["cpu"] == ""}
la, lb = cl(a), cl(b)
assert la.keys() == lb.keys(), (la.keys(), lb.keys())
# where every CPU idles (a CPU without idle events takes part in its
# cluster from the trace's start here, from its first event in the trace)
if "no idle entry or exit" not in note:
    for k in la:
        for col in ("usage", "time_ns"):
            x, y = int(la[k][col]), int(lb[k][col])
            assert abs(x - y) <= 0.005 * x + 1, ("cluster", k, col, x, y)
PY
); then ok; else bad "stats of $t's interval file: $why"; fi
done

echo "$pass passed, $fail failed, $known known failures"
[ "$fail" -eq 0 ]
