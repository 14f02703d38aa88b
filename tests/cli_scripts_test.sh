#!/bin/sh
# cli_scripts_test.sh CPUIDLE - the scripts/ tools (governor-results,
# lab-check, hindsight-bound, kernel-releases): run from anywhere, a clear one-line message
# and exit 2 for bad usage (never a Python traceback), the CLI's own message
# when it fails, comparisons printed the way they hold, tables whose
# columns line up whatever the names.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"
case $cli in /*) ;; *) cli=$(pwd)/$cli ;; esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trace=$src/traces/io-menu.perf.txt.xz
gr=$src/scripts/governor-results
lc=$src/scripts/lab-check
hb=$src/scripts/hindsight-bound

# run DESC WANT_RCS PATTERN CMD...: in $tmp/cwd, an exit status among
# WANT_RCS, PATTERN (if any) on stderr, no traceback; stdout in $tmp/out,
# stderr in $tmp/err
mkdir "$tmp/cwd"
run() {
	desc=$1 want=$2 pat=$3
	shift 3
	(cd "$tmp/cwd" && "$@") >"$tmp/out" 2>"$tmp/err"
	rc=$?
	case " $want " in *" $rc "*) rc_ok=1 ;; *) rc_ok= ;; esac
	if [ -n "$rc_ok" ] && { [ -z "$pat" ] || grep -q -- "$pat" "$tmp/err"; } &&
	   ! grep -q Traceback "$tmp/err"; then
		ok
	else
		bad "$desc: rc=$rc (want $want) stderr='$(cat "$tmp/err")'"
	fi
}

# --- the CLI, found from the script, not the current directory -----------
# a copy of the repository's scripts with no build beside them: the message
mkdir -p "$tmp/repo/scripts" "$tmp/shared/traces"
cp "$gr" "$lc" "$hb" "$tmp/repo/scripts/"
cp "$trace" "$tmp/shared/traces/"
for s in governor-results lab-check hindsight-bound; do
	run "$s without a build" 2 "^$s: .*build it first: meson setup build && ninja -C build, or pass --cli PATH" \
		"$tmp/repo/scripts/$s" "$trace"
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && ok || bad "$s without a build: not one line: $(cat "$tmp/err")"
	[ -s "$tmp/out" ] && bad "$s without a build: printed $(cat "$tmp/out")" || ok
done
run "--cli nonexistent" 2 "^lab-check: --cli $tmp/nosuch: not an executable" "$lc" --cli "$tmp/nosuch"
# ... and with one: the repository's build/tools/cpuidle and ../shared/traces,
# from another directory
mkdir -p "$tmp/repo/build/tools"
ln -s "$cli" "$tmp/repo/build/tools/cpuidle"
run "governor-results from elsewhere" "0 1" "" "$tmp/repo/scripts/governor-results"
grep -q '^laptop  *hazard ' "$tmp/out" && ok || bad "governor-results from elsewhere: $(cat "$tmp/out")"
run "hindsight-bound from elsewhere" 0 "" "$tmp/repo/scripts/hindsight-bound" "$trace"
grep -q '^io-menu.perf.txt.xz ' "$tmp/out" && ok || bad "hindsight-bound from elsewhere: $(cat "$tmp/out")"

# --- bad usage: exit 2, a usage message, no traceback ----------------------
run "governor-results --cli without a value" 2 "usage: governor-results" "$gr" --cli
run "governor-results --governor without a value" 2 "usage: governor-results" "$gr" --governor
run "governor-results --bogus" 2 "usage: governor-results" "$gr" --cli "$cli" --bogus
run "governor-results two directories" 2 "usage: governor-results" "$gr" --cli "$cli" "$tmp" "$tmp"
run "governor-results missing directory" 2 "^governor-results: /nonexistent: no such directory" \
	"$gr" --cli "$cli" /nonexistent
run "governor-results no traces" 2 "^governor-results: no traces .* in $tmp/cwd" "$gr" --cli "$cli" "$tmp/cwd"
run "governor-results --governor nosuch" 2 "^governor-results: --governor nosuch: not a governor .*hazard" \
	"$gr" --cli "$cli" --governor nosuch "$tmp/shared/traces"
[ -s "$tmp/out" ] && bad "--governor nosuch printed a table" || ok
run "governor-results --grid without --cv" 2 "^governor-results: --grid needs --cv" \
	"$gr" --cli "$cli" --grid decay_shift=1,2 "$tmp/shared/traces"
for g in decay_shift decay_shift= =1 'decay_shift=1,,2' 'decay_shift=-1' 'decay_shift=1,1' \
	 'a-b=1'; do
	run "governor-results --grid '$g'" 2 "^governor-results: --grid $g: " \
		"$gr" --cli "$cli" --cv --grid "$g" "$tmp/shared/traces"
done
run "governor-results --cv on one workload" 2 \
	"^governor-results: --cv: the traces in .* are of one workload (io)" \
	"$gr" --cli "$cli" --cv "$tmp/shared/traces"
run "governor-results --cv --governor ladder without --grid" 2 \
	"^governor-results: --cv: no default grid for ladder" \
	"$gr" --cli "$cli" --cv --governor ladder "$tmp/shared/traces"
run "governor-results --json --markdown" 2 "usage: governor-results" \
	"$gr" --cli "$cli" --json --markdown "$tmp/shared/traces"
run "lab-check --bogus" 2 "usage: lab-check" "$lc" --cli "$cli" --bogus
run "lab-check --cli without a value" 2 "usage: lab-check" "$lc" --cli
run "lab-check missing directory" 2 "^lab-check: /nonexistent: no such directory" "$lc" --cli "$cli" /nonexistent
run "hindsight-bound no trace" 2 "usage: hindsight-bound" "$hb" --cli "$cli"
run "hindsight-bound -p without a value" 2 "usage: hindsight-bound" "$hb" --cli "$cli" "$trace" -p
run "hindsight-bound --bogus" 2 "usage: hindsight-bound" "$hb" --cli "$cli" --bogus "$trace"
run "hindsight-bound missing trace" 2 "^hindsight-bound: /nonexistent: no such file" \
	"$hb" --cli "$cli" "$trace" /nonexistent
[ -s "$tmp/out" ] && bad "hindsight-bound missing trace: printed $(cat "$tmp/out")" || ok
for s in "$gr" "$lc" "$hb"; do
	(cd "$tmp/cwd" && "$s" --help) >"$tmp/out" 2>&1 && grep -q "usage:" "$tmp/out" && ok ||
		bad "$s --help: $(cat "$tmp/out")"
done

# --- the CLI fails: its message, then one line, exit 1 ---------------------
mkdir "$tmp/bad"
cp "$trace" "$tmp/bad/"
echo 'not a trace' | xz >"$tmp/bad/broken.perf.txt.xz"
run "lab-check on a broken trace" 1 "^lab-check: 'cpuidle convert .*broken.perf.txt.xz.*' failed (exit 1)" \
	"$lc" --cli "$cli" "$tmp/bad"
grep -q "^cpuidle convert: .*broken.perf.txt.xz: not a trace" "$tmp/err" && ok ||
	bad "lab-check on a broken trace: no message of the CLI: $(cat "$tmp/err")"
run "governor-results on a broken trace" 1 "^governor-results: 'cpuidle sweep --json' failed" \
	"$gr" --cli "$cli" "$tmp/bad"
run "hindsight-bound on a broken trace" 1 "^hindsight-bound: 'cpuidle convert .*broken" \
	"$hb" --cli "$cli" "$trace" "$tmp/bad/broken.perf.txt.xz"
[ -s "$tmp/out" ] && bad "hindsight-bound on a broken trace: printed $(cat "$tmp/out")" || ok
run "hindsight-bound -p nosuch" 1 "^hindsight-bound: 'cpuidle platform show --json nosuch' failed" \
	"$hb" --cli "$cli" -p nosuch "$trace"

# --- the checks say the comparison that holds ------------------------------
# "ok A <= B" where it passed, "FAIL A > B" where it failed; exit 1 iff a FAIL.
# ladder fails the energy checks on the bundled trace, hazard passes some.
checks_true() {
	python3 - "$1" "$2" <<'PY'
import re, sys
text, rc = open(sys.argv[1]).read(), int(sys.argv[2])
seen = {"ok": 0, "FAIL": 0}
for line in text.splitlines():
    m = re.match(r"^\S+\s+(mean|worst|p99)\s+(ok|FAIL)\s+([-+\d.]+)%?\s+(<=|>)\s+([-+\d.]+)", line)
    if not m:
        continue
    name, verdict, a, op, b = m.groups()
    a, b = float(a), float(b)
    seen[verdict] += 1
    if verdict == "ok":
        assert op == "<=" and a <= b, line
    else:
        assert op == ">" and a >= b, line   # shown rounded: a > b may print equal
assert seen["ok"] and seen["FAIL"], ("want both verdicts", seen)
assert (rc == 1) == (seen["FAIL"] > 0), ("exit status", rc, seen)
print("checks:", seen)
PY
}
(cd "$tmp/cwd" && "$gr" --cli "$cli" --governor ladder "$tmp/shared/traces") >"$tmp/out" 2>"$tmp/err"
checks_true "$tmp/out" $? >/dev/null && ok || bad "governor-results --governor ladder: $(cat "$tmp/out" "$tmp/err")"
shared=$src/../shared/traces
if [ -d "$shared" ]; then
	# the audit's case: juno-r2's mean check on every shared trace
	"$gr" --cli "$cli" "$shared" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	grep -q "^juno-r2  *mean  *FAIL .* > " "$tmp/out" || grep -q "^juno-r2  *mean  *ok .* <= " "$tmp/out" &&
		ok || bad "governor-results on the shared traces: no juno-r2 mean check: $(cat "$tmp/out")"
	python3 - "$tmp/out" <<'PY' && ok || bad "governor-results on the shared traces: $(cat "$tmp/out")"
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"^\S+\s+(mean|worst|p99)\s+(ok|FAIL)\s+([-+\d.]+)%?\s+(<=|>)\s+([-+\d.]+)", line)
    if m:
        verdict, a, op, b = m.group(2), float(m.group(3)), m.group(4), float(m.group(5))
        assert (op == "<=" and a <= b) if verdict == "ok" else (op == ">" and a >= b), line
PY
	[ $rc -le 1 ] && ok || bad "governor-results on the shared traces: exit $rc"
else
	echo "no $shared: governor-results on the shared traces not checked"
fi

# --- --cv: leave one workload out ------------------------------------------
# The rule: a workload is the file name's leading letters (timer1k and
# timer60 one "timer"); a tunable the grid does not know fails in the sweep.
mkdir "$tmp/names"
for n in io.ftrace.txt.xz timer1k-laptop-menu.perf.txt.xz timer60-laptop-menu.perf.txt.xz \
	 Nginx.idlestat.xz; do
	cp "$trace" "$tmp/names/$n"
done
"$gr" --cli "$cli" --cv --json -p laptop --grid decay_shift=2 --grid prior_wake_shift=4 \
	--grid context_short_ns=32000 --grid context_long_ns=512000 "$tmp/names" \
	>"$tmp/out" 2>"$tmp/err"
python3 - "$tmp/out" <<'PY' && ok || bad "governor-results --cv workloads: $(cat "$tmp/out" "$tmp/err")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["workloads"] == {"io": ["io.ftrace.txt.xz"], "nginx": ["Nginx.idlestat.xz"],
                          "timer": ["timer1k-laptop-menu.perf.txt.xz",
                                    "timer60-laptop-menu.perf.txt.xz"]}, d["workloads"]
# hazard's folds, then cluster's (laptop has no domain state: hazard's rows)
assert [(f["governor"], f["workload"], f["chosen"]["decay_shift"]) for f in d["folds"]] == \
    [(g, w, 2) for g in ("hazard", "cluster") for w in ("io", "nginx", "timer")], d["folds"]
assert all(f["chosen"]["offer"] == 1 for f in d["folds"][3:]), d["folds"]
PY
run "governor-results --cv --grid nosuch" 1 "^governor-results: 'cpuidle sweep --json' failed" \
	"$gr" --cli "$cli" --cv -p laptop --grid nosuch=1 "$tmp/names"

# On three workloads of the shared traces and one platform: the values
# chosen for a fold stay the same when its own traces are changed (one
# replaced by another workload's recording, one removed) while the other
# folds', which train on them, move; and the left-out figures are those of
# a plain sweep with the values chosen.
if [ -d "$shared" ]; then
	mkdir "$tmp/cv" "$tmp/cv2"
	for n in io-menu io-ladder sqlite-menu sqlite-ladder video-menu video-ladder; do
		ln -s "$shared/$n.perf.txt.xz" "$tmp/cv/"
		case $n in io-*) ;; *) ln -s "$shared/$n.perf.txt.xz" "$tmp/cv2/" ;; esac
	done
	cp "$shared/pgbench-menu.perf.txt.xz" "$tmp/cv2/io-menu.perf.txt.xz"
	"$gr" --cli "$cli" --cv --json -p spr "$tmp/cv" >"$tmp/cv.json" 2>"$tmp/err"
	rc=$?
	"$gr" --cli "$cli" --cv --json -p spr "$tmp/cv2" >"$tmp/cv2.json" 2>>"$tmp/err"
	[ $rc -le 1 ] && [ $? -le 1 ] && ok || bad "governor-results --cv: $(cat "$tmp/err")"
	python3 - "$tmp/cv.json" "$tmp/cv2.json" <<'PY' && ok || bad "governor-results --cv: a fold's choice saw its own traces"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
fa = {f["workload"]: f for f in a["folds"]}
fb = {f["workload"]: f for f in b["folds"]}
assert sorted(fa) == ["io", "sqlite", "video"] and sorted(fb) == sorted(fa), (fa, fb)
assert fa["io"]["chosen"] == fb["io"]["chosen"], (fa["io"]["chosen"], fb["io"]["chosen"])
# the change was felt: io's own figures, and the choice of a fold that trains on io
assert fa["io"]["left_out"] != fb["io"]["left_out"]
assert any(fa[w]["chosen"] != fb[w]["chosen"] for w in ("sqlite", "video")), "no fold moved"
PY
	# and on juno-r2, whose domain states cluster replays over its own grid
	# (a small one: decay_shift 2 or 3, offer 1 or 0)
	"$gr" --cli "$cli" --cv --json -p juno-r2 --grid decay_shift=2,3 --grid prior_wake_shift=4 \
		--grid context_short_ns=32000 --grid context_long_ns=512000 "$tmp/cv" \
		>"$tmp/cvj.json" 2>"$tmp/err"
	[ $? -le 1 ] && ok || bad "governor-results --cv -p juno-r2: $(cat "$tmp/err")"
	for j in cv cvj; do
	python3 - "$cli" "$tmp/cv" "$tmp/$j.json" <<'PY' && ok || bad "--cv ($j): not a sweep's"
import json, os, subprocess, sys
cli, tdir, got = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3]))
cv_rows = []
for f in got["folds"]:
    g = f["governor"]
    argv = [cli, "sweep", "--json", "-g", g, "-p", f["platform"]]
    for name, value in f["chosen"].items():
        argv += ["-s", f"module/{g}/parameters/{name}={value}"]
    out = subprocess.run(argv + [os.path.join(tdir, t) for t in f["traces"]],
                         capture_output=True, text=True, check=True).stdout
    rows = [json.loads(l) for l in out.splitlines()]
    assert len(rows) == len(f["traces"]) >= 2, rows
    cv_rows += [r | {"governor": g} for r in rows]

    def figures(rows):
        wakes = {}
        for r in rows:
            for s in r["states"]:
                wakes[s["exit_latency_ns"]] = wakes.get(s["exit_latency_ns"], 0) + s["wakes"]
        total, seen, p99 = sum(wakes.values()), 0, 0.0
        for lat in sorted(wakes):
            seen += wakes[lat]
            if seen * 100 >= total * 99:
                p99 = lat
                break
        entries = sum(r["entries"] for r in rows)
        return {"over_oracle_pct": sum(r["over_oracle_pct"] for r in rows) / len(rows),
                "above_pct": 100.0 * sum(r["above"] for r in rows) / entries,
                "below_pct": 100.0 * sum(r["below"] for r in rows) / entries,
                "p99_added_latency_ns": p99,
                "qos_violations": sum(r["qos_violations"] for r in rows)}

    want = figures(rows)
    for k, v in want.items():
        assert abs(f["left_out"][k] - v) < 1e-9, (f["workload"], k, f["left_out"][k], v)
# each governor's table row is its folds' left-out runs together
for g in ("hazard", "cluster"):
    rows = sorted((r for r in cv_rows if r["governor"] == g), key=lambda r: r["trace"])
    row = next(r for r in got["table"] if r["governor"] == g)
    for k, v in figures(rows).items():
        assert abs(row[k] - v) < 1e-9, ("table", g, k, row[k], v)
PY
	done
else
	echo "no $shared: governor-results --cv on the shared traces not checked"
fi

# --- tables: each column as wide as its widest cell ------------------------
# every line of a table as long as the others, the separators one above the other
long=$tmp/long
mkdir "$long"
cp "$trace" "$long/a-trace-name-far-longer-than-any-of-the-shared-traces-names.perf.txt.xz"
"$lc" --cli "$cli" "$long" >"$tmp/out" 2>"$tmp/err"
[ "$(awk '{ print length($0) }' "$tmp/out" | sort -u | wc -l)" -eq 1 ] && ok ||
	bad "lab-check: ragged table: $(head -3 "$tmp/out")"
grep -q "^a-trace-name-far-longer-than-any-of-the-shared-traces-names  *haltpoll-vm " "$tmp/out" && ok ||
	bad "lab-check: no row of the long trace: $(head -3 "$tmp/out")"
"$hb" --cli "$cli" "$long"/*.xz "$trace" >"$tmp/out" 2>"$tmp/err"
[ "$(awk '{ print index($0, "|") }' "$tmp/out" | sort -u | wc -l)" -eq 1 ] && [ "$(wc -l <"$tmp/out")" -eq 4 ] && ok ||
	bad "hindsight-bound: ragged table: $(cat "$tmp/out" "$tmp/err")"
"$gr" --cli "$cli" "$long" >"$tmp/out" 2>"$tmp/err"
sed '/^$/,$d' "$tmp/out" >"$tmp/table"
[ "$(awk '{ print length($0) }' "$tmp/table" | sort -u | wc -l)" -eq 1 ] && [ "$(wc -l <"$tmp/table")" -gt 5 ] && ok ||
	bad "governor-results: ragged table: $(cat "$tmp/table")"

# --- kernel-releases: the governors by release, pooled per platform -------
kr=$src/scripts/kernel-releases
run "kernel-releases without a CLI" 2 "no CLI at" "$kr" --cli "$tmp/nothing" "$trace"
run "kernel-releases on a trace that is not" 1 "cpuidle sweep: " "$kr" --cli "$cli" "$tmp/none.xz"
run "kernel-releases on the bundled trace" 0 "" "$kr" --cli "$cli" "$trace"
sed 1d "$tmp/out" >"$tmp/table"
# a header and 4 rows per platform with power numbers, columns lined up;
# each row's figures those of the sweep it pools (one trace: the same)
if [ "$(wc -l <"$tmp/table")" -eq 25 ] &&
   [ "$(awk '{ print length($0) }' "$tmp/table" | sort -u | wc -l)" -eq 1 ] &&
   "$cli" sweep --csv -p skylake -g teo@7.1 "$trace" 2>/dev/null | python3 -c '
import csv, sys
r = next(csv.DictReader(sys.stdin))
rows = open(sys.argv[1]).read().splitlines()
want = "skylake teo@7.1 %+.2f%% %.2f %.2f %s" % (float(r["over_oracle_pct"]), float(r["above_pct"]),
                                                 float(r["below_pct"]), r["entries"])
assert any(" ".join(l.split()[:6]) == want for l in rows), (want, rows)' "$tmp/table"
then ok; else bad "kernel-releases: table: $(cat "$tmp/table" "$tmp/err")"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
