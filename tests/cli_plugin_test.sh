#!/bin/sh
# cli_plugin_test.sh CPUIDLE TIMER_PLUGIN REFERENCE BAD_ABI BAD_NAME BAD_EMPTY BAD_CRASH -
# a governor from outside the tree, as a plugin (include/cpuidle/plugin.h):
# the example's timer governor runs through sim, sweep (beside menu and
# teo), fidelity and conformance, takes its tunable with -s, is found on
# CPUIDLE_GOVERNOR_PATH, and replays exactly as the same governor compiled
# into a program that calls the replay API (REFERENCE); plugins that cannot
# be used are refused with the reason.
set -u
cli=$1 plugin=$2 reference=$3 bad_abi=$4 bad_name=$5 bad_empty=$6 bad_crash=$7
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trace=$src/traces/io-menu.perf.txt.xz

# sim: the plugin's governor by its own name; the same replay as compiled in
"$cli" convert "$trace" -o "$tmp/t.ivf" 2>/dev/null
if "$cli" sim --json -p laptop -g "$plugin" "$tmp/t.ivf" >"$tmp/sim.json" 2>"$tmp/err" &&
   "$reference" "$tmp/t.ivf" laptop >"$tmp/ref" && python3 - "$tmp/sim.json" "$tmp/ref" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
ref = [l.split() for l in open(sys.argv[2])]
assert run["governor"] == "timer", run["governor"]
assert run["entries"] == int(ref[0][1]) > 700, (run["entries"], ref[0])
got = [(s["name"], s["usage"]) for s in run["states"]]
want = [(r[0], int(r[2])) for r in ref[1:]]
assert got == want, (got, want)
assert sum(u for _, u in got[1:]) > 0, got
PY
then ok; else bad "sim -g PLUGIN: not the replay of the governor compiled in: $(cat "$tmp/err")"; fi

# sweep: beside menu and teo, the rows of each; -s sets the plugin's tunable
if "$cli" sweep --json -p laptop -g menu,teo,"$plugin" \
	-s module/timer/parameters/margin_us=0,3000 "$trace" >"$tmp/sw.json" 2>"$tmp/err" &&
   python3 - "$tmp/sw.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
govs = {r["governor"] for r in rows}
assert govs == {"menu", "teo", "timer", "oracle"} or govs == {"menu", "teo", "timer"}, govs
t = {r["settings"]["module/timer/parameters/margin_us"]: r for r in rows
     if r["governor"] == "timer"}
# a margin of 3 ms keeps it out of states it would just fit in
deep = lambda r: sum(s["usage"] for s in r["states"][2:])
assert deep(t["3000"]) < deep(t["0"]), (t["0"]["states"], t["3000"]["states"])
PY
then ok; else bad "sweep -g menu,teo,PLUGIN -s its tunable: $(cat "$tmp/err")"; fi

# fidelity and conformance take it as any governor
if "$cli" fidelity --json -g "$plugin" "$trace" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r["governor"] == "timer" and r["entries"] > 700, r' &&
   "$cli" conformance -g "$plugin" >"$tmp/conf" 2>&1 && grep -q "PASS" "$tmp/conf" &&
   ! grep -q "FAIL" "$tmp/conf"; then ok; else
	bad "fidelity and conformance -g PLUGIN: $(cat "$tmp/conf" 2>/dev/null)"; fi

# found by name on CPUIDLE_GOVERNOR_PATH (NAME.so), PATH:GOVERNOR too
if CPUIDLE_GOVERNOR_PATH="/nonexistent:$(dirname "$plugin")" "$cli" sim --json -p laptop \
	-g timer_plugin "$tmp/t.ivf" 2>/dev/null | cmp -s - "$tmp/sim.json" &&
   "$cli" sim --json -p laptop -g "$plugin:timer" "$tmp/t.ivf" 2>/dev/null |
	cmp -s - "$tmp/sim.json"; then ok; else bad "a plugin by name on CPUIDLE_GOVERNOR_PATH"; fi

# refused, with the reason, before any work
expect_fail "a plugin for another ABI" \
	"governor plugin .*plugin_bad_abi.so: built for plugin ABI version 100, this cpuidle has version 2" \
	sim -g "$bad_abi" "$trace"
expect_fail "a plugin governor named as a built-in one" \
	"a governor with the name of a built-in one ('menu')" sweep -g "$bad_name" "$trace"
expect_fail "a plugin with no governor" "plugin_bad_empty.so: no governor" \
	conformance -g "$bad_empty"
expect_fail "a shared object that is no plugin" \
	"no cpuidle_plugin_governors(): not a governor plugin" \
	fidelity -g "$(ls /lib/*/libm.so.6 /usr/lib/*/libm.so.6 2>/dev/null | head -n 1)" "$trace"
expect_fail "a missing plugin" "governor plugin ./nosuch.so: " sim -g nosuch.so "$trace"
expect_fail "a name found nowhere" "unknown governor 'nosuch' (see 'cpuidle governors'" \
	sim -g nosuch "$trace"
expect_fail "a plugin without the governor asked for" "has no governor 'menu'" \
	sim -g "$plugin:menu" "$trace"

# one that crashes: in sim, named, with its function, and the command
# stops; in sweep, which runs a plugin's governor in a process of its own,
# its runs alone are lost, each said, the others written, the exit 1
"$cli" sim --log-decisions "$tmp/crash.log" -g "$bad_crash" "$trace" \
	>/dev/null 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ] && [ ! -e "$tmp/crash.log" ] && [ -z "$(ls "$tmp" | grep 'crash.log.')" ] &&
   grep -q "^cpuidle: governor plugin .*plugin_bad_crash.so crashed (a segmentation fault.*): the command stops, nothing written$" \
	"$tmp/err"; then ok; else bad "a crashing plugin in sim: rc=$rc $(cat "$tmp/err")"; fi
"$cli" sweep -g menu,"$bad_crash" -p laptop,skylake -o "$tmp/crash.csv" "$trace" >/dev/null \
	2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c ',laptop,menu,\|,skylake,menu,' "$tmp/crash.csv")" = 2 ] &&
   ! grep -q ',bad,' "$tmp/crash.csv" &&
   [ "$(grep -c "^cpuidle sweep: governor plugin .*plugin_bad_crash.so: governor bad crashed: signal 11 (Segmentation fault), in trace .*, platform \(laptop\|skylake\), governor bad, qos trace: that run is left out$" "$tmp/err")" = 2 ] &&
   grep -q "^cpuidle sweep: 2 runs lost to a crashing governor plugin; the others written$" \
	"$tmp/err"; then ok; else bad "a crashing plugin in sweep: rc=$rc $(cat "$tmp/err")"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
