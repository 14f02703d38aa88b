#!/bin/sh
# cli_diff_test.sh CPUIDLE - cpuidle diff: a trace against itself changes
# nothing; a change made on purpose (stays twice as long) is found, its
# interval holding the true change; two traces drawn from one distribution
# give verdicts at about the intervals' error rate (the intervals are
# honest: calibrated, not too narrow); the output's forms agree; errors.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# gen.py SEED MEAN_IDLE_US [MEAN_IDLE_US_CPU1] OUT: a perf-script trace of 2
# CPUs, each alternating idle stays (exponential, mean MEAN_IDLE_US; state
# 0 below 100 us, else state 1) and busy spells (exponential, mean 300 us),
# 1.5 s
cat >"$tmp/gen.py" <<'PY'
import random, sys
seed, out = int(sys.argv[1]), sys.argv[-1]
means = [float(a) for a in sys.argv[2:-1]]
means = means * 2 if len(means) == 1 else means
rng = random.Random(seed)
ev = []
for cpu in (0, 1):
    t = 1000.0 + rng.random() * 1e-3
    while t < 1001.5:
        t += rng.expovariate(1 / 300e-6)
        stay = rng.expovariate(1 / (means[cpu] * 1e-6))
        state = 0 if stay < 100e-6 else 1
        ev.append((t, cpu, state))
        t += stay
        ev.append((t, cpu, 4294967295))
ev.sort()
with open(out, "w") as f:
    for t, cpu, state in ev:
        f.write("         swapper     0 [%03d] %15.9f: power:cpu_idle: state=%d cpu_id=%d\n"
                % (cpu, t, state, cpu))
PY
gen() { python3 "$tmp/gen.py" "$@"; }

# --- a trace against itself: every change 0, no verdict
gen 1 500 "$tmp/a.txt"
if "$cli" diff --json "$tmp/a.txt" "$tmp/a.txt" >"$tmp/self.json" 2>"$tmp/err"; then ok; else
	bad "diff A A: $(cat "$tmp/err")"; fi
if why=$(python3 - "$tmp/self.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
assert rows, "no rows"
units = {r["unit"] for r in rows}
assert units == {"all", "cpu0", "cpu1"}, units
for r in rows:
    assert r["change"] == 0, r
    assert r["verdict"] is None, r
    assert r["ci_low"] <= 0 <= r["ci_high"], r
PY
); then ok; else bad "diff A A: $why"; fi

# --- stays made twice as long: found, and the interval holds the true change
gen 2 500 "$tmp/b.txt"
gen 3 1000 "$tmp/c.txt"
"$cli" diff --json "$tmp/b.txt" "$tmp/c.txt" >"$tmp/bc.json" 2>"$tmp/err" ||
	bad "diff B C: $(cat "$tmp/err")"
if why=$(python3 - "$tmp/bc.json" <<'PY' 2>&1
import json, sys
d = json.load(open(sys.argv[1]))
row = {(r["unit"], r["state_name"], r["figure"]): r for r in d["rows"]}
for cpu in ("cpu0", "cpu1"):
    r = row[(cpu, "all", "avg_ns")]
    assert r["verdict"] == "higher", r
    # the stays' true mean went from 500 to 1000 us: +500 us
    assert r["ci_low"] < 500e3 < r["ci_high"], r
    r = row[(cpu, "all", "usage_per_s")]
    assert r["verdict"] == "lower", r    # longer stays, fewer of them
    assert r["ci_low"] <= r["change"] <= r["ci_high"], r
PY
); then ok; else bad "diff B C: $why"; fi

# --- one distribution, many pairs: verdicts at about the 5% error rate.
# Intervals that ignored the dependence or the resampling would be too
# narrow and give far more.
i=0
while [ $i -lt 16 ]; do
	gen $((100 + 2 * i)) 500 "$tmp/n1.txt"
	gen $((101 + 2 * i)) 500 "$tmp/n2.txt"
	"$cli" diff --json --resamples 1000 "$tmp/n1.txt" "$tmp/n2.txt" >"$tmp/null$i.json" \
		2>>"$tmp/err" || bad "null pair $i: exit $?"
	i=$((i + 1))
done
if why=$(python3 - "$tmp"/null*.json <<'PY' 2>&1
import json, sys
n = v = 0
for p in sys.argv[1:]:
    for r in json.load(open(p))["rows"]:
        if r["ci_low"] is not None:
            n += 1
            v += r["verdict"] is not None
rate = v / n
print("%d verdicts among %d intervals: %.1f%%" % (v, n, 100 * rate))
assert n > 300, n
assert rate <= 0.10, rate
PY
); then ok; echo "null pairs: $why"; else bad "calibration: $why"; fi

# --- runs of one setting that differ by themselves (the work lands on
# either CPU): one run against one finds that difference; repeats on each
# side (--before/--after) hold it in the interval, and find no change
gen 11 500 2000 "$tmp/r1.txt"
gen 12 2000 500 "$tmp/r2.txt"
gen 13 500 2000 "$tmp/r3.txt"
gen 14 2000 500 "$tmp/r4.txt"
"$cli" diff --json "$tmp/r1.txt" "$tmp/r4.txt" >"$tmp/one.json" 2>"$tmp/err" ||
	bad "diff R1 R4: $(cat "$tmp/err")"
"$cli" diff --json -b "$tmp/r1.txt" --before "$tmp/r2.txt" -a "$tmp/r3.txt" \
	--after "$tmp/r4.txt" >"$tmp/rep.json" 2>"$tmp/err" || bad "diff -b -b -a -a: $(cat "$tmp/err")"
if why=$(python3 - "$tmp/one.json" "$tmp/rep.json" <<'PY' 2>&1
import json, sys
one = {(r["unit"], r["state_name"], r["figure"]): r for r in json.load(open(sys.argv[1]))["rows"]}
d = json.load(open(sys.argv[2]))
rep = {(r["unit"], r["state_name"], r["figure"]): r for r in d["rows"]}
assert [s["trace"].rsplit("/", 1)[1] for s in d["before"] + d["after"]] == \
    ["r1.txt", "r2.txt", "r3.txt", "r4.txt"], d["before"]
for cpu in ("cpu0", "cpu1"):
    assert one[(cpu, "all", "avg_ns")]["verdict"] is not None, one[(cpu, "all", "avg_ns")]
    r = rep[(cpu, "all", "avg_ns")]
    assert r["verdict"] is None, r
    # wider than one run's: the runs' difference is in it
    w1 = one[(cpu, "all", "avg_ns")]["ci_high"] - one[(cpu, "all", "avg_ns")]["ci_low"]
    assert r["ci_high"] - r["ci_low"] > 2 * w1, (r, w1)
PY
); then ok; else bad "diff with repeats: $why"; fi
out=$("$cli" diff -b "$tmp/r1.txt" "$tmp/r2.txt" 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ]; then ok; else bad "diff -b without -a: rc=$rc"; fi

# --- the same seed gives the same bytes; another seed, other intervals
"$cli" diff --json "$tmp/b.txt" "$tmp/c.txt" >"$tmp/bc2.json" 2>/dev/null
if cmp -s "$tmp/bc.json" "$tmp/bc2.json"; then ok; else bad "diff is not reproducible"; fi
"$cli" diff --json --seed 7 "$tmp/b.txt" "$tmp/c.txt" >"$tmp/bc7.json" 2>/dev/null
if ! cmp -s "$tmp/bc.json" "$tmp/bc7.json"; then ok; else bad "--seed changes nothing"; fi

# --- text, CSV and JSON say the same; -p adds above/below and power
"$cli" diff -p haltpoll-vm --csv "$tmp/b.txt" "$tmp/c.txt" >"$tmp/bc.csv" 2>"$tmp/err" ||
	bad "diff --csv: $(cat "$tmp/err")"
"$cli" diff -p haltpoll-vm --json "$tmp/b.txt" "$tmp/c.txt" >"$tmp/bcp.json" 2>/dev/null
"$cli" diff -p haltpoll-vm "$tmp/b.txt" "$tmp/c.txt" >"$tmp/bc.txt" 2>/dev/null
if why=$(python3 - "$tmp/bc.csv" "$tmp/bcp.json" "$tmp/bc.txt" <<'PY' 2>&1
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
js = json.load(open(sys.argv[2]))["rows"]
assert len(rows) == len(js), (len(rows), len(js))
figs = {r["figure"] for r in rows}
assert figs == {"residency_pct", "usage_per_s", "avg_ns", "above_pct", "below_pct",
                "power_mw"}, figs
for c, j in zip(rows, js):
    assert c["unit"] == j["unit"] and c["figure"] == j["figure"], (c, j)
    for k in ("before", "after", "change", "ci_low", "ci_high"):
        if j[k] is None:
            assert c[k] == "", (k, c, j)
        else:
            assert abs(float(c[k]) - j[k]) <= 1e-9 * max(1, abs(j[k])), (k, c, j)
    assert c["verdict"] == (j["verdict"] or ""), (c, j)
# clusters have no verdicts or power of their own
assert not [r for r in rows if r["kind"] == "cluster" and r["figure"] in ("above_pct", "power_mw")]
text = open(sys.argv[3]).read()
n = sum(1 for j in js if j["verdict"])
assert ("%d verdicts among" % n) in text, text[-200:]
assert "haltpoll idle" in text and "power mW" in text
PY
); then ok; else bad "diff's forms: $why"; fi

# --- what ended the stays: on recordings with wake-up events, each stay
# ended by one kind (unknown included), so the kinds add up to entries/s
bundled="$src/traces/io-menu.perf.txt.xz"
"$cli" diff -q --json "$bundled" "$src/traces/mixed-nodriver.perf.txt.xz" >"$tmp/wk.json" \
	2>"$tmp/err" || bad "diff of the bundled traces: $(cat "$tmp/err")"
if why=$(python3 - "$tmp/wk.json" <<'PY' 2>&1
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
by = {}
for r in rows:
    by.setdefault((r["unit"], r["state_name"]), {})[r["figure"]] = r
kinds = ["woken_timer_per_s", "woken_resched_per_s", "woken_call_function_per_s",
         "woken_irq_per_s", "woken_unknown_per_s"]
n = 0
for key, f in by.items():
    if key[0].startswith("cpu"):
        for side in ("before", "after"):
            if f["usage_per_s"][side] is None:
                continue
            total = sum(f[k][side] for k in kinds)
            assert abs(total - f["usage_per_s"][side]) <= 1e-6 * max(1, total), (key, side)
            n += 1
    else:
        assert not any(k in f for k in kinds), key     # a cluster's: not known
assert n >= 3, n
assert any(by[k]["woken_timer_per_s"]["before"] for k in by if k[0] == "cpu0")
PY
); then ok; else bad "diff's wake-ups: $why"; fi

# --- the report: one page, the verdicts' rows, charts; onto an input refused
if "$cli" diff --report "$tmp/r.html" "$tmp/b.txt" "$tmp/c.txt" >/dev/null 2>"$tmp/err" &&
	grep -q "Changes beyond the noise" "$tmp/r.html" && grep -q '<tr class="higher">' \
	"$tmp/r.html" && grep -q "<svg" "$tmp/r.html" && ! grep -q "<script" "$tmp/r.html"; then
	ok; else bad "diff --report: $(cat "$tmp/err")"; fi
cp "$tmp/b.txt" "$tmp/keep.txt"
expect_fail "diff --report onto BEFORE" "" diff --report "$tmp/b.txt" "$tmp/b.txt" "$tmp/c.txt"
if cmp -s "$tmp/b.txt" "$tmp/keep.txt"; then ok; else bad "diff --report overwrote its input"; fi

# --- two results of sweep --csv: each run's figures matched, what changed
bundled="$src/traces/io-menu.perf.txt.xz"
"$cli" sweep --csv -g menu,teo -p laptop,skylake "$bundled" >"$tmp/r1.csv" 2>/dev/null ||
	bad "sweep --csv for the results diff"
# the same runs, teo's energy on skylake changed by hand, the rows in another order
python3 - "$tmp/r1.csv" "$tmp/r2.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["governor"] == "teo" and r["platform"] == "skylake":
        r["energy_mj"] = "%.3f" % (float(r["energy_mj"]) + 1.5)
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(rows[0]),
                   lineterminator="\n")
w.writeheader()
w.writerows(reversed(rows))
PY
"$cli" diff --json "$tmp/r1.csv" "$tmp/r2.csv" >"$tmp/res.json" 2>"$tmp/err" ||
	bad "diff of results: $(cat "$tmp/err")"
if why=$(python3 - "$tmp/res.json" <<'PY' 2>&1
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
changed = [r for r in rows if r["change"]]
assert len(changed) == 1, changed
r = changed[0]
assert r["figure"] == "energy_mj" and "governor=teo" in r["run"] and "skylake" in r["run"], r
assert abs(r["change"] - 1.5) < 1e-9, r
assert any(r["figure"].startswith("residency_pct:") for r in rows)
PY
); then ok; else bad "diff of results: $why"; fi
# the text: a line a changed figure, nothing for a figure unknown on both sides
"$cli" diff "$tmp/r1.csv" "$tmp/r2.csv" >"$tmp/res.txt" 2>"$tmp/err" ||
	bad "diff of results, text: $(cat "$tmp/err")"
if [ "$(grep -c '^  trace=' "$tmp/res.txt")" = 1 ] &&
   grep -q '^  trace=.*skylake.*governor=teo.* energy_mj  *[0-9.]*  *[0-9.]*  *+1\.5$' "$tmp/res.txt" &&
   grep -q '^1 of [0-9]* figures changed (the rest as they were)$' "$tmp/res.txt" &&
   ! grep -q nan "$tmp/res.txt" && [ "$(tail -c 1 "$tmp/res.txt" | od -An -c | tr -d ' ')" = '\n' ]; then
	ok; else bad "diff of results, text: $(cat "$tmp/res.txt")"; fi
if "$cli" diff "$tmp/r1.csv" "$tmp/r1.csv" 2>/dev/null | grep -q "^0 of [0-9]* figures changed"; then
	ok; else bad "diff of a result with itself"; fi
expect_fail "diff: a result and a trace" "two of a kind" diff "$tmp/r1.csv" "$tmp/b.txt"
expect_fail "diff: results with --report" "neither --report nor -p" \
	diff --report "$tmp/x.html" "$tmp/r1.csv" "$tmp/r2.csv"

# --- interval files: read back as the events they were built from
# chains.py SEED MAX OUT: 2 CPUs whose idle periods are chains of 1 to MAX
# kernel entries (state 0 for 20-80 us, re-entered 2-9 us later, nothing
# run between: reconstruction merges them into one interval), the last in
# state 1 for 50-3000 us; busy 100-400 us between periods; 1 s
cat >"$tmp/chains.py" <<'PY'
import random, sys
seed, most, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(seed)
ev = []
for cpu in (0, 1):
    t = 1000.0 + rng.random() * 1e-4
    while t < 1001.0:
        t += rng.uniform(100e-6, 400e-6)
        n = rng.randint(1, most)
        for j in range(n):
            last = j == n - 1
            ev.append((t, cpu, 1 if last else 0))
            t += rng.uniform(50e-6, 3000e-6) if last else rng.uniform(20e-6, 80e-6)
            ev.append((t, cpu, 4294967295))
            if not last:
                t += rng.uniform(2e-6, 9e-6)
ev.sort()
with open(out, "w") as f:
    for t, cpu, state in ev:
        f.write("         swapper     0 [%03d] %15.9f: power:cpu_idle: state=%d cpu_id=%d\n"
                % (cpu, t, state, cpu))
PY
# cpu_rows FILE: stats --csv's rows of the CPUs (not the clusters')
cpu_rows() { "$cli" stats -q --csv "$1" | awk -F, 'NR > 1 && $1 != ""'; }
# chains of up to 8 entries: every entry kept, every CPU row as the trace's
python3 "$tmp/chains.py" 3 8 "$tmp/ch8.txt"
"$cli" convert -q "$tmp/ch8.txt" -o "$tmp/ch8.ivf" >/dev/null 2>&1
cpu_rows "$tmp/ch8.txt" >"$tmp/ch8.rows"
cpu_rows "$tmp/ch8.ivf" >"$tmp/ch8.ivf.rows"
if [ -s "$tmp/ch8.rows" ] && [ "$(wc -l <"$tmp/ch8.rows")" -eq 4 ] &&
   cmp -s "$tmp/ch8.rows" "$tmp/ch8.ivf.rows"; then ok; else
	bad "stats of an interval file of chains <= 8: $(diff "$tmp/ch8.rows" "$tmp/ch8.ivf.rows" | head -4)"; fi
# ... and the note names only the approximation left: the re-entries' places
err=$("$cli" stats "$tmp/ch8.ivf" 2>&1 >/dev/null)
if printf '%s' "$err" | grep -q "ch8.ivf: an interval file, read back" &&
   printf '%s' "$err" | grep -q "re-entries fall inside their intervals is approximate" &&
   ! printf '%s' "$err" | grep -q "entries past"; then ok; else
	bad "stats of an interval file: its note: $err"; fi
# chains of up to 14: entries past the 8 kept get shares of the time left
# and the 8th's state (the chains' last, in state 1, is then counted in
# state 0: the note says so); each CPU's entries and time in all as the
# trace's
python3 "$tmp/chains.py" 4 14 "$tmp/ch14.txt"
"$cli" convert -q "$tmp/ch14.txt" -o "$tmp/ch14.ivf" >/dev/null 2>&1
cpu_rows "$tmp/ch14.txt" >"$tmp/ch14.rows"
cpu_rows "$tmp/ch14.ivf" >"$tmp/ch14.ivf.rows"
if why=$(python3 - "$tmp/ch14.rows" "$tmp/ch14.ivf.rows" <<'PY' 2>&1
import sys
def rows(p):
    return {(r[0], r[1]): r for r in (l.strip().split(",") for l in open(p))}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert a.keys() == b.keys() and len(a) == 4, (a.keys(), b.keys())
for cpu in ("0", "1"):
    for col in (3, 4):  # usage, time_ns
        ta = sum(int(a[k][col]) for k in a if k[0] == cpu)
        tb = sum(int(b[k][col]) for k in b if k[0] == cpu)
        assert ta == tb, (cpu, col, ta, tb)
# the entries past the 8th are approximate: state 1 loses those chains' last
assert all(int(b[(c, "1")][3]) < int(a[(c, "1")][3]) for c in ("0", "1")), "state 1 as the trace's"
PY
); then ok; else bad "stats of an interval file of chains <= 14: $why"; fi
err=$("$cli" stats "$tmp/ch14.ivf" 2>&1 >/dev/null)
if printf '%s' "$err" | grep -q "entries past the 8 an interval keeps.*(some the last kept state)"
then ok; else
	bad "stats of an interval file past 8 entries: its note: $err"; fi
# diff: an interval file against its trace changes nothing in a CPU's rows
if "$cli" diff -q --json "$tmp/ch8.ivf" "$tmp/ch8.txt" >"$tmp/self-ivf.json" 2>"$tmp/err" &&
   why=$(python3 - "$tmp/self-ivf.json" <<'PY' 2>&1
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["kind"] == "cpu"]
assert len(rows) > 10, len(rows)
for r in rows:
    assert r["change"] == 0 and r["verdict"] is None, r
PY
); then ok; else bad "diff of an interval file and its trace: $(cat "$tmp/err") $why"; fi
# ... and two interval files give a CPU's figures as their traces do, the
# verdicts too; the intervals nearly so (the clusters' periods, which are
# approximate, are resampled from the same random stream)
python3 "$tmp/chains.py" 5 8 "$tmp/ch8b.txt"
"$cli" convert -q "$tmp/ch8b.txt" -o "$tmp/ch8b.ivf" >/dev/null 2>&1
"$cli" diff -q --csv "$tmp/ch8.txt" "$tmp/ch8b.txt" >"$tmp/dt.csv"
"$cli" diff -q --csv "$tmp/ch8.ivf" "$tmp/ch8b.ivf" >"$tmp/di.csv"
if why=$(python3 - "$tmp/dt.csv" "$tmp/di.csv" <<'PY' 2>&1
import csv, sys
def rows(p):
    return {(r["unit"], r["state_index"], r["figure"]): r
            for r in csv.DictReader(open(p)) if r["kind"] == "cpu"}
a, b = rows(sys.argv[1]), rows(sys.argv[2])
assert len(a) > 10 and a.keys() == b.keys(), (len(a), a.keys() ^ b.keys())
assert any(r["verdict"] for r in a.values()), "no verdict to compare"
for k in a:
    x, y = a[k], b[k]
    assert (x["before"], x["after"], x["change"], x["verdict"]) == \
           (y["before"], y["after"], y["change"], y["verdict"]), (x, y)
    if x["ci_low"]:
        width = float(x["ci_high"]) - float(x["ci_low"])
        for e in ("ci_low", "ci_high"):
            assert abs(float(x[e]) - float(y[e])) <= 0.05 * width, (k, e, x[e], y[e])
PY
); then ok; else bad "diff of two interval files: $why"; fi
# a cut interval file: one line naming the file and the offset, nothing out
head -c 3000 "$tmp/ch8.ivf" >"$tmp/cut.ivf"
out=$("$cli" diff "$tmp/cut.ivf" "$tmp/ch8.txt" 2>"$tmp/err"); rc=$?
if [ $rc -eq 1 ] && [ -z "$out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
   grep -q "cut.ivf: offset" "$tmp/err"; then ok; else
	bad "diff of a cut interval file: rc=$rc $(cat "$tmp/err")"; fi

# --- errors: usage (2), a missing trace, no idle events
out=$("$cli" diff "$tmp/b.txt" 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ]; then ok; else bad "diff with one trace: rc=$rc"; fi
out=$("$cli" diff --resamples 5 "$tmp/b.txt" "$tmp/c.txt" 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ]; then ok; else bad "diff --resamples 5: rc=$rc"; fi
out=$("$cli" diff --csv --json "$tmp/b.txt" "$tmp/c.txt" 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ]; then ok; else bad "diff --csv --json: rc=$rc"; fi
expect_fail "diff: a missing trace" "$tmp/nope.txt" diff "$tmp/b.txt" "$tmp/nope.txt"
printf '         swapper     0 [000]  1000.000001000: timer:tick_stop: success=1 dependency=NONE\n' \
	>"$tmp/none.txt"
expect_fail "diff: no idle entries" "no idle entries" diff "$tmp/b.txt" "$tmp/none.txt"
err=$("$cli" diff "$tmp/b.txt" "$tmp/nope.txt" 2>&1 >/dev/null)
if [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ]; then ok; else bad "diff's error is not one line: $err"; fi

echo "cli_diff: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
