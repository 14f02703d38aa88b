#!/bin/sh
# cli_validate_test.sh CPUIDLE - cpuidle validate on the shared recordings
# of pgbench (menu and haltpoll200, each recorded twice): its measured
# figures are stats', its predictions sim's, its noise floors the two
# recordings' difference, its verdicts the bound's; and its errors.  Then
# cpuidle advise on them: its "now" is sim's, its advice sweep's best row
# within the budget.
# Without ../shared/traces: a skip (exit 77) that says so.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"

traces="$src/../shared/traces"
if [ ! -f "$traces/repeat/pgbench-menu.perf.txt.xz" ]; then
	echo "cli_validate: no $traces/repeat/pgbench-menu.perf.txt.xz: nothing to check"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# run_ok OUT ARGS...: the CLI's standard output into OUT; any exit but 0 (a
# sanitizer's report included) is a failure
run_ok() {
	o=$1
	shift
	"$cli" "$@" >"$o" 2>"$tmp/run_ok.err" ||
		bad "$*: exit $?: $(tail -3 "$tmp/run_ok.err")"
}

set -- "$traces/pgbench-menu.perf.txt.xz" "$traces/pgbench-haltpoll200.perf.txt.xz" \
	"$traces/repeat/pgbench-menu.perf.txt.xz" "$traces/repeat/pgbench-haltpoll200.perf.txt.xz"
if "$cli" validate --json "$@" >"$tmp/v.json" 2>"$tmp/err"; then ok; else
	bad "validate --json: $(cat "$tmp/err")"; fi
"$cli" stats --json -p haltpoll-vm "$1" >"$tmp/s1.json" 2>/dev/null
"$cli" stats --json -p haltpoll-vm "$3" >"$tmp/s3.json" 2>/dev/null
"$cli" sim --json -p haltpoll-vm -g haltpoll \
	-s module/haltpoll/parameters/guest_halt_poll_ns=200000 "$1" >"$tmp/sim.json" 2>/dev/null
if why=$(python3 - "$tmp/v.json" "$tmp/s1.json" "$tmp/s3.json" "$tmp/sim.json" "$@" <<'PY' 2>&1
import json, sys
rows = json.load(open(sys.argv[1]))
s1, s3, sim = (json.load(open(p)) for p in sys.argv[2:5])
menu, hp200, menu2, hp2 = sys.argv[5:9]
# every recording replayed as each setting (the first of each): 4 x 2 pairs
pairs = {(r["source"], r["target"]) for r in rows}
assert pairs == {(s, t) for s in (menu, hp200, menu2, hp2) for t in (menu, hp200)}, pairs
assert {r["workload"] for r in rows} == {"pgbench"}

def kernel(stats):
    """stats --json's figures, summed over CPUs, as validate measures them"""
    time, hits, above, below = {}, 0, 0, 0
    for cpu in stats["cpus"]:
        for st in cpu["states"]:
            time[st["name"]] = time.get(st["name"], 0) + st["time_ns"]
            hits += st["usage"]
            above += st["above"]
            below += st["below"]
    total = sum(time.values())
    # every state's share but the deepest's (the rest)
    figs = {"share_pct:" + n: 100.0 * t / total for n, t in list(time.items())[:-1]}
    figs["entries_per_s"] = hits / (stats["span_ns"] / 1e9)
    figs["above_pct"] = 100.0 * above / hits
    figs["below_pct"] = 100.0 * below / hits
    return figs

k1, k3 = kernel(s1), kernel(s3)
mine = {r["metric"]: r for r in rows if r["source"] == menu and r["target"] == menu}
assert set(mine) == set(k1) | {"stays_ks", "together_pct:haltpoll idle"}, (set(mine), set(k1))
# the stays' distance: a share of the stays, its noise the repeat's own distance
for r in rows:
    if r["metric"] == "stays_ks":
        assert 0 < r["predicted"] <= 1 and r["measured"] == 0 and 0 < r["noise"] <= 1, r
        assert r["within"] == (r["predicted"] <= r["bound"] + 1e-9), r
# the overlap: both CPUs halted at once, a share of the trace's span, as
# the trace's own lines give it (a CPU counts from its first event on)
import lzma, re
def together(path):
    deep, seen, now, total, first = {}, set(), None, 0, None
    for line in lzma.open(path, "rt"):
        m = re.search(r"\[(\d+)\]\s+(\d+\.\d{9}):\s+(\S+):", line)
        if not m:
            continue
        cpu, ts = int(m.group(1)), round(float(m.group(2)) * 1e9)
        first = ts if first is None else first
        if now is not None and ts > now:
            if seen and all(deep.get(c, False) for c in seen):
                total += ts - now
        now = ts if now is None else max(now, ts)
        seen.add(cpu)
        if m.group(3) == "power:cpu_idle":
            st = int(re.search(r"state=(\d+)", line).group(1))
            c = int(re.search(r"cpu_id=(\d+)", line).group(1))
            deep[c] = st != 4294967295 and st >= 1
    return 100.0 * total / (now - first)
k1["together_pct:haltpoll idle"] = together(menu)
k3["together_pct:haltpoll idle"] = together(menu2)
assert 50 < k1["together_pct:haltpoll idle"] < 100, k1
for m, r in mine.items():
    if m == "stays_ks":
        continue
    assert abs(r["measured"] - k1[m]) <= 1e-4 * max(1, abs(k1[m])), (m, r, k1[m])
    # the noise floor: the two recordings' difference
    assert abs(r["noise"] - abs(k3[m] - k1[m])) <= 1e-4 * max(1, abs(k1[m])), (m, r, k3[m])
    assert abs(r["error"] - (r["predicted"] - r["measured"])) <= 1e-4 * max(1, abs(r["measured"]))
    # 1.5 noise floors, at least the figure's resolution (0.01 point, 0.1%)
    floor = 0.001 * r["measured"] if m == "entries_per_s" else 0.01
    assert abs(r["bound"] - max(1.5 * r["noise"], floor)) < 1e-4 * max(1, r["bound"]), r
    assert r["within"] == (abs(r["error"]) <= r["bound"] + 1e-9), r
# a prediction is sim's: menu's recording replayed as haltpoll200
run = sim["runs"][0]
p = {r["metric"]: r["predicted"] for r in rows if r["source"] == menu and r["target"] == hp200}
total = sum(s["time_ns"] for s in run["states"])
usage = sum(s["usage"] for s in run["states"])
for s in run["states"][:-1]:
    want = 100.0 * s["time_ns"] / total
    assert abs(p["share_pct:" + s["name"]] - want) < 1e-3, (s, p)
assert abs(p["below_pct"] - 100.0 * sum(s["below"] for s in run["states"]) / usage) < 1e-3, p
# haltpoll's window figures: under haltpoll200 alone (the kernel logged
# its adjustments there), measured as the trace's own lines say
import lzma, re
lines = lzma.open(hp200, "rt").read().splitlines()
stamps = [float(m.group(1)) for m in (re.search(r"\s(\d+\.\d{9}):", l) for l in lines) if m]
span2 = (max(stamps) - min(stamps)) * 1e9
adj = [(int(a), int(b)) for a, b in re.findall(r"guest_halt_poll_ns: halt_poll_ns (\d+) \((?:grow|shrink) (\d+)\)",
                                              "\n".join(lines))]
assert len(adj) > 100, len(adj)
wide = {r["metric"]: r for r in rows if r["source"] == menu and r["target"] == hp200}
assert abs(wide["window_widened_per_s"]["measured"] - sum(a > b for a, b in adj) / (span2 / 1e9)) \
    < 1e-3 * wide["window_widened_per_s"]["measured"], (wide["window_widened_per_s"], span2)
assert abs(wide["window_mean_ns"]["measured"] - sum(a for a, _ in adj) / len(adj)) < 1, \
    wide["window_mean_ns"]
assert wide["window_widened_per_s"]["predicted"] > 0 and wide["window_mean_ns"]["predicted"] > 0
assert not [r for r in rows if r["target"] == menu and r["metric"].startswith("window_")]
PY
); then ok; else bad "validate's figures: $(printf '%s' "$why" | tail -4)"; fi

# replayed as itself through the kernel's own loop, menu's recording stays
# as the kernel's did: the distance of its stays' distribution under 0.05
# (0.019 when written; as sim replays it, without the kernel's tick
# wake-ups and re-entries, 0.23)
run_ok "$tmp/kl.json" validate --json --kernel-loop "$1" "$3"
if python3 -c '
import json, sys
ks = [r for r in json.load(sys.stdin) if r["metric"] == "stays_ks" and r["source"] == sys.argv[1]
      and r["target"] == sys.argv[1]][0]
assert ks["predicted"] < 0.05, ks' "$1" <"$tmp/kl.json"; then ok; else bad "validate --kernel-loop: menu's stays"; fi

# the table says how many figures are within their bound; CSV has a row per figure
if "$cli" validate "$@" 2>/dev/null | tail -1 | grep -q "^[0-9]* of [0-9]* figures within" &&
   [ "$("$cli" validate --csv "$@" 2>/dev/null | wc -l)" -eq \
     "$(($(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/v.json") + 1))" ]
then ok; else bad "validate's table and CSV"; fi

# -s SETTING:... reaches that setting's replays alone: haltpoll200's
# predictions change with its window capped at 0 (no more polling), menu's do not
run_ok "$tmp/v0.json" validate --json -s haltpoll200:module/haltpoll/parameters/guest_halt_poll_ns=0 \
	"$1" "$2"
if python3 - "$tmp/v.json" "$tmp/v0.json" "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
menu, hp = sys.argv[3:5]
pick = lambda rows, t, m: [r["predicted"] for r in rows if r["source"] == menu and
                           r["target"] == t and r["metric"] == m][0]
poll = "share_pct:POLL"
assert pick(b, hp, poll) == 0 < pick(a, hp, poll), (pick(a, hp, poll), pick(b, hp, poll))
assert pick(a, menu, poll) == pick(b, menu, poll)
PY
then ok; else bad "validate -s SETTING:..."; fi

# --report: one page, its count the table's, a chart per figure but the
# stays' distance, a table per workload with a cell per figure of the JSON
run_ok "$tmp/v.txt" validate "$@" "$traces/io-menu.perf.txt.xz" "$traces/io-ladder.perf.txt.xz" \
	--report "$tmp/v.html"
run_ok "$tmp/vr.json" validate --json "$@" "$traces/io-menu.perf.txt.xz" \
	"$traces/io-ladder.perf.txt.xz"
if why=$(python3 - "$tmp/v.html" "$tmp/v.txt" "$tmp/vr.json" <<'PY' 2>&1
import json, re, sys
page, text, rows = open(sys.argv[1]).read(), open(sys.argv[2]).read(), json.load(open(sys.argv[3]))
within, judged = re.search(r"(\d+) of (\d+) figures within", text).groups()
assert f"{within} of {judged} judged figures within" in page, (within, judged)
figures = []
for r in rows:
    if r["metric"] not in figures:
        figures.append(r["metric"])
assert page.count("<svg") == len(figures) - 1, (page.count("<svg"), figures)
assert re.findall(r"<h3>([^<]*)</h3>", page) == ["pgbench", "io"], re.findall(r"<h3>([^<]*)</h3>", page)
cells = re.findall(r'<td class="(ok|bad|nj)" title="error', page)
assert len(cells) == len(rows), (len(cells), len(rows))
assert cells.count("ok") == int(within) and cells.count("bad") == int(judged) - int(within)
assert "<script" not in page and "http" not in page
PY
); then ok; else bad "validate --report: $(printf '%s' "$why" | tail -2)"; fi
# the report may not replace a recording, and a failed run leaves none
cp "$1" "$tmp/keep-menu.perf.txt.xz"
expect_fail "validate --report over a recording" "keep-menu.perf.txt.xz" \
	validate --report "$tmp/keep-menu.perf.txt.xz" "$tmp/keep-menu.perf.txt.xz"
if cmp -s "$1" "$tmp/keep-menu.perf.txt.xz"; then ok; else bad "validate --report replaced a recording"; fi
"$cli" validate --report "$tmp/none.html" "$1" "$tmp/missing-menu.perf.txt.xz" >/dev/null 2>&1
if [ ! -e "$tmp/none.html" ] && [ -z "$(ls "$tmp" | grep none.html)" ]; then ok; else
	bad "validate --report: a failed run left $(ls "$tmp" | grep none.html)"; fi
# errors: a name that says no setting, a setting with no governor, bad -s
cp "$1" "$tmp/pgbench.perf.txt.xz"
expect_fail "validate: a name without its setting" "pgbench.perf.txt.xz: name it WORKLOAD-SETTING" \
	validate "$1" "$tmp/pgbench.perf.txt.xz"
cp "$1" "$tmp/pgbench-fast.perf.txt.xz"
expect_fail "validate: a setting that names no governor" "setting 'fast' names no governor" \
	validate "$tmp/pgbench-fast.perf.txt.xz"
# a plain haltpoll recording (window capped at 0, said by nothing but its
# own window adjustments): its setting's replays take the cap from them,
# with a note, as -s would give it
hp0="$traces/pgbench-haltpoll.perf.txt.xz"
"$cli" validate --csv "$1" "$hp0" >"$tmp/inferred.csv" 2>"$tmp/err"
"$cli" validate --csv -s haltpoll:module/haltpoll/parameters/guest_halt_poll_ns=0 \
	"$1" "$hp0" >"$tmp/given.csv" 2>/dev/null
"$cli" validate --csv -s haltpoll:module/haltpoll/parameters/guest_halt_poll_ns=200000 \
	"$1" "$hp0" >"$tmp/default.csv" 2>/dev/null
if grep -q "pgbench-haltpoll.perf.txt.xz: haltpoll's polling window capped at 0 us" "$tmp/err" &&
   [ -s "$tmp/inferred.csv" ] && cmp -s "$tmp/inferred.csv" "$tmp/given.csv" &&
   ! cmp -s "$tmp/inferred.csv" "$tmp/default.csv"; then ok; else
	bad "validate: haltpoll's cap not taken from the trace: $(cat "$tmp/err")"; fi
expect_fail "validate --event-cost-off with --kernel-loop" "event-cost-off is for sim" \
	validate --kernel-loop --event-cost-off "$1"
# --event-cost-off shortens every period: the replays' time in states falls
run_ok "$tmp/ec.json" validate --json --event-cost-off "$1" "$2"
if python3 - "$tmp/v.json" "$tmp/ec.json" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
hp = sys.argv[3]
pick = lambda rows: [r["predicted"] for r in rows if r["source"] == hp and r["target"] == hp
                     and r["metric"] == "below_pct"][0]
assert pick(b) < pick(a), (pick(a), pick(b))
PY
then ok; else bad "validate --event-cost-off changes nothing"; fi
out=$("$cli" validate -s nocolon "$1" 2>"$tmp/err"); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ] && grep -q "SETTING:PATH=VALUE" "$tmp/err"; then ok; else
	bad "validate -s without SETTING: rc=$rc"; fi
# a write a setting's replays refuse: nothing on stdout, the file and setting named
out=$("$cli" validate -s menu:module/nosuch/parameters/x=1 "$1" "$2" 2>"$tmp/err"); rc=$?
if [ $rc -eq 1 ] && [ -z "$out" ] && grep -q "pgbench-menu.perf.txt.xz under menu" "$tmp/err"
then ok; else bad "validate, a refused write: rc=$rc $(cat "$tmp/err")"; fi

# --- advise ---------------------------------------------------------------
# pgbench-haltpoll200: "now" is sim's replay of its own setting; the grid's
# best is the least energy among sweep's rows of the same grid within the
# budget, and the advice the least of every kind's best
hp=$2
run_ok "$tmp/a.json" advise --json "$hp"
"$cli" sweep --json --no-oracle -p haltpoll-vm -g ladder,menu,teo,haltpoll --qos trace,0 \
	-s module/haltpoll/parameters/guest_halt_poll_ns=0,50000,100000,200000,400000 "$hp" \
	>"$tmp/grid.json" 2>/dev/null
"$cli" sim --json -p haltpoll-vm -g haltpoll \
	-s module/haltpoll/parameters/guest_halt_poll_ns=200000 "$hp" >"$tmp/now.json" 2>/dev/null
if why=$(python3 - "$tmp/a.json" "$tmp/grid.json" "$tmp/now.json" <<'PY' 2>&1
import json, sys
a = json.load(open(sys.argv[1]))
grid = [json.loads(l) for l in open(sys.argv[2])]
now = json.load(open(sys.argv[3]))["runs"][0]
assert a["now"]["governor"] == "haltpoll" and a["now"]["guest_halt_poll_ns"] == "200000", a
assert abs(a["now"]["energy_mj"] - now["energy_mj"]) < 0.01, (a["now"], now["energy_mj"])
assert a["latency_budget_ns"] == a["now"]["p99_added_latency_ns"] == now["p99_added_latency_ns"], a
# the grid: 4 governors x 2 QoS (the trace's, 0 us) x 5 windows; no depth
# to disable (haltpoll-vm's state 1 is the first over its polling state 0);
# haltpoll's grow x shrink but the kernel's 2/2: 5 pairs x the 3 windows
# above grow_start (50 us)
kinds = a["candidates_by_kind"]
assert kinds == {"grid": 4 * 2 * 5, "disabled_states": 0, "grow_shrink": 5 * 3}, kinds
assert a["candidates"] == sum(kinds.values()) == 55 and kinds["grid"] == len(grid), a
ok = [r for r in grid
      if r["p99_added_latency_ns"] <= a["latency_budget_ns"] and r["qos_violations"] == 0]
best = min(ok, key=lambda r: r["energy_mj"])
g = a["best_by_kind"]["grid"]
assert abs(g["energy_mj"] - best["energy_mj"]) < 0.01 and g["governor"] == best["governor"], (g, best)
adv = a["advice"]
mine = min((k for k in a["best_by_kind"].values() if k), key=lambda k: k["energy_mj"])
assert abs(adv["energy_mj"] - best["energy_mj"]) < 0.01, (adv, best)
assert adv["energy_mj"] == mine["energy_mj"] and adv["governor"] == best["governor"], (adv, mine)
assert a["best_by_kind"]["disabled_states"] is None, a["best_by_kind"]
gs = a["best_by_kind"]["grow_shrink"]
assert gs["governor"] == "haltpoll" and (gs["guest_halt_poll_grow"], gs["guest_halt_poll_shrink"]) \
    != ("2", "2") and gs["guest_halt_poll_ns"] in ("100000", "200000", "400000"), gs
saving = 100.0 * (best["energy_mj"] - now["energy_mj"]) / now["energy_mj"]
assert abs(adv["energy_change_pct"] - saving) < 0.01, (adv, saving)
# a saving of at least 1%: the commands that apply it
assert a["keep"] == (saving > -1.0), (a, saving)
# the halves are replayed for an advice only
assert (adv["energy_change_halves_pct"] is None) == a["keep"], adv
if not a["keep"] and adv["governor"] != "haltpoll":
    assert adv["commands"][0] == "cpuidle set -g " + adv["governor"], adv
PY
); then ok; else bad "advise against sweep: $(printf '%s' "$why" | tail -2)"; fi
# a budget of 0 us: only polling meets it, held by a QoS request
run_ok "$tmp/b0.json" advise --json --latency-budget-us 0 "$1"
if python3 -c '
import json, sys
a = json.load(sys.stdin)
adv = a["advice"]
assert a["latency_budget_ns"] == 0 and adv["qos_ns"] == 0 and adv["p99_added_latency_ns"] == 0, a
assert not a["keep"] and "cpuidle qos hold 0 -- WORKLOAD" in adv["commands"], a
assert adv["energy_change_pct"] > 100, adv' <"$tmp/b0.json"; then ok; else bad "advise --latency-budget-us 0"; fi
# states K.. disabled on skylake (9 states, 2 CPUs): a candidate per K
# from 2 to 8 under ladder, menu and teo, whose energy is sim's with those
# writes on every CPU; for a 10 us budget on video-menu the least energy
# is teo with states 3-8 disabled (4.2 mJ, 0.014%, under the grid's best,
# menu with a QoS limit of 10 us, when written), and the advice is that
# QoS limit: one command where the least takes two, for a saving under
# the noise (1%)
video="$traces/video-menu.perf.txt.xz"
run_ok "$tmp/d.json" advise --json -p skylake --latency-budget-us 10 "$video"
run_ok "$tmp/d.txt" advise -p skylake --latency-budget-us 10 "$video"
dis=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))["best_by_kind"]["disabled_states"]
print(d["governor"], " ".join("-s cpu%d/cpuidle/state%d/disable=1" % (c, k)
                              for c in (0, 1) for k in d["disabled_states"]))' "$tmp/d.json" 2>/dev/null)
# shellcheck disable=SC2086
"$cli" sim --json -p skylake -g $dis "$video" >"$tmp/dsim.json" 2>/dev/null
if why=$(python3 - "$tmp/d.json" "$tmp/dsim.json" <<'PY' 2>&1
import json, sys
a = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))["runs"][0]
kinds = a["candidates_by_kind"]
# 9 QoS limits (the trace's, 8 exit latencies) on the grid; 5 pairs x 3 windows
assert kinds == {"grid": 4 * 9 * 5, "disabled_states": 7 * 3, "grow_shrink": 5 * 3}, kinds
d = a["best_by_kind"]["disabled_states"]
k = d["disabled_states"][0]
assert d["disabled_states"] == list(range(k, 9)) and k >= 2, d
assert d["governor"] in ("ladder", "menu", "teo") and d["qos_ns"] is None, d
assert d["guest_halt_poll_ns"] is d["guest_halt_poll_grow"] is d["guest_halt_poll_shrink"] is None, d
assert abs(d["energy_mj"] - run["energy_mj"]) < 0.01, (d, run["energy_mj"])
assert d["p99_added_latency_ns"] == run["p99_added_latency_ns"] <= 10000, (d, run)
least, adv = a["least_energy"], a["advice"]
assert least["governor"] == "teo" and least["disabled_states"] == [3, 4, 5, 6, 7, 8], least
assert least["energy_mj"] == d["energy_mj"] < a["best_by_kind"]["grid"]["energy_mj"], a
assert least["nr_commands"] == 2, least
assert not a["keep"] and adv["governor"] == "menu" and adv["qos_ns"] == 10000, adv
assert adv["energy_mj"] == a["best_by_kind"]["grid"]["energy_mj"] <= 1.01 * least["energy_mj"], a
assert adv["commands"] == ["cpuidle qos hold 10 -- WORKLOAD"], adv
# the change on each half of the recording: the whole's lies between them
# (the whole's energies are about the halves' sums), and they differ
h = adv["energy_change_halves_pct"]
assert min(h) - 1 <= adv["energy_change_pct"] <= max(h) + 1 and h[0] != h[1], adv
PY
) && grep -q "^  advice: menu, CPU latency QoS 10 us: " "$tmp/d.txt" &&
   grep -q "^    least energy: teo, states 3-8 (C3 and deeper) disabled: .*, 2 commands for 1: a saving under 1% does not pay for them" "$tmp/d.txt"
then ok; else bad "advise, disabled states: $(printf '%s' "$why" | tail -2) $(cat "$tmp/d.txt")"; fi
# over a state 0 that does not poll (laptop's C1), K from 1: 2 depths
run_ok "$tmp/lap.json" advise --json -p laptop "$video"
if python3 -c '
import json, sys
a = json.load(sys.stdin)
assert a["candidates_by_kind"] == {"grid": 4 * 2 * 5, "disabled_states": 2 * 3, "grow_shrink": 15}, a' \
	<"$tmp/lap.json"
then ok; else bad "advise on laptop: the depths over C1"; fi
# a recording of many CPUs (the EPYC's, 41 traced): disabling a depth on
# each takes more than a replay's 16 writes: none is swept, and a note says so
epyc="$traces/hardware/epyc7502/perf.data.xz"
if [ -f "$epyc" ]; then
	if "$cli" advise --json -g menu -p epyc7502 "$epyc" 2>"$tmp/e.err" | python3 -c '
import json, sys
a = json.load(sys.stdin)
assert a["candidates_by_kind"]["disabled_states"] == 0 and a["candidates"] == 4 * 3 * 5 + 15, a' &&
	   grep -q "on each of its 41 CPUs takes more than the 16 attribute writes a replay makes" "$tmp/e.err"
	then ok; else bad "advise on 41 CPUs: $(cat "$tmp/e.err")"; fi
fi

# haltpoll's grow and shrink: for a 0 us budget on nginx-haltpoll, polling
# that catches 99% of wake-ups at the least energy is a 400 us window that
# shrinks by 4 (16.4 mJ, 0.14%, under the grid's best, the same window
# shrinking by 2, when written); its energy is sim's with those writes; the
# advice is the window alone, one command for a saving under the noise
nginx="$traces/nginx-haltpoll.perf.txt.xz"
run_ok "$tmp/g.json" advise --json -p haltpoll-vm --latency-budget-us 0 "$nginx"
run_ok "$tmp/g.txt" advise -p haltpoll-vm --latency-budget-us 0 "$nginx"
"$cli" sim --json -p haltpoll-vm -g haltpoll -s module/haltpoll/parameters/guest_halt_poll_ns=400000 \
	-s module/haltpoll/parameters/guest_halt_poll_shrink=4 "$nginx" >"$tmp/gsim.json" 2>/dev/null
if why=$(python3 - "$tmp/g.json" "$tmp/gsim.json" <<'PY' 2>&1
import json, sys
a = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))["runs"][0]
least, adv = a["least_energy"], a["advice"]
assert a["now"]["governor"] == "haltpoll" and not a["keep"], a
assert (least["governor"], least["guest_halt_poll_ns"], least["guest_halt_poll_grow"],
        least["guest_halt_poll_shrink"], least["disabled_states"], least["qos_ns"]) == \
    ("haltpoll", "400000", "2", "4", [], None), least
assert abs(least["energy_mj"] - run["energy_mj"]) < 0.01 and run["p99_added_latency_ns"] == 0, (least, run)
assert least["energy_mj"] == a["best_by_kind"]["grow_shrink"]["energy_mj"], a["best_by_kind"]
assert (adv["governor"], adv["guest_halt_poll_ns"], adv["guest_halt_poll_shrink"]) == \
    ("haltpoll", "400000", "2"), adv
assert least["energy_mj"] < adv["energy_mj"] <= 1.01 * least["energy_mj"], (least, adv)
assert adv["commands"] == ["echo 400000 > /sys/module/haltpoll/parameters/guest_halt_poll_ns"], adv
PY
) && grep -q "^  advice: haltpoll, guest_halt_poll_ns=400000: " "$tmp/g.txt" &&
   grep -q "^    least energy: haltpoll, guest_halt_poll_ns=400000, guest_halt_poll_shrink=4: .*2 commands for 1" "$tmp/g.txt"
then ok; else bad "advise, grow and shrink: $(printf '%s' "$why" | tail -2) $(cat "$tmp/g.txt")"; fi
# --least-energy: that window shrinking by 4 is the advice itself
run_ok "$tmp/gl.json" advise --json -p haltpoll-vm --latency-budget-us 0 --least-energy "$nginx"
if python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
adv = a["advice"]
assert (adv["guest_halt_poll_ns"], adv["guest_halt_poll_shrink"]) == ("400000", "4"), adv
assert "least_energy" not in a and len(adv["commands"]) == 2, a' "$tmp/gl.json"
then ok; else bad "advise --least-energy: $(cat "$tmp/gl.json")"; fi

# errors: no governor to call "now", a bad budget, two traces
expect_fail "advise: a recording without its governor" "which governor recorded it" \
	advise "$tmp/pgbench.perf.txt.xz"
out=$("$cli" advise --latency-budget-us soon "$1" 2>"$tmp/err"); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ] && grep -q "latency-budget-us 'soon'" "$tmp/err"; then ok; else
	bad "advise --latency-budget-us soon: rc=$rc"; fi
expect_fail "advise: standard input" "standard input cannot be read twice" advise -
expect_fail "validate: standard input" "standard input cannot be read twice" validate "$1" -
out=$("$cli" advise "$1" "$2" 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ]; then ok; else bad "advise with two traces: rc=$rc"; fi

echo "cli_validate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
