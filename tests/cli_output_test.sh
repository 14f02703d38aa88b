#!/bin/sh
# cli_output_test.sh CPUIDLE - outputs never destroy inputs or earlier
# results: an output that is an input (or another output, or a trace) is
# refused before anything is written; a failed run leaves an existing
# output file as it was.  And the output options' other promises: sim's
# pattern options refused with a trace, --csv with --json refused,
# governors listed twice refused, sim --csv (residency, quoting, the run's
# figures), sim's QoS-u, convert's messages.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"

d=$(mktemp -d)
trap 'chmod -R u+w "$d"; rm -rf "$d"' EXIT
trace=$src/traces/io-menu.perf.txt.xz

sum() { cksum <"$1"; }
# intact DESC FILE SUM: FILE still there, the same bytes
intact() {
	if [ -f "$2" ] && [ "$(sum "$2")" = "$3" ]; then ok; else bad "$1: $2 changed or gone"; fi
}
# no_temp DESC: no FILE.XXXXXX left in $d
no_temp() {
	left=$(ls -A "$d" | grep -E '\.[A-Za-z0-9]{6}$')
	if [ -z "$left" ]; then ok; else bad "$1: left $left"; fi
}

# the inputs: a text trace, a compressed one (read-only: root writes it
# all the same, only the check protects it), an interval file, a platform
# file whose first state's name needs quoting in CSV
xz -dc "$trace" >"$d/io.txt"
cp "$trace" "$d/victim.xz"
chmod 444 "$d/victim.xz"
"$cli" convert "$trace" -o "$d/io.ivf" >/dev/null || bad "convert to io.ivf"
cat >"$d/q.platform" <<'EOF'
platform q
state "C1, \"fast\"" latency_us=1 residency_us=2 power_mw=100
state C2 latency_us=100 residency_us=300 power_mw=10
EOF
txt=$(sum "$d/io.txt") vic=$(sum "$d/victim.xz") ivf=$(sum "$d/io.ivf") qp=$(sum "$d/q.platform")

# --- an output that is an input: refused, the input intact -----------------
# A full disk is the output's fault, said as such: the interval file named
# with the cause, not the trace's line ("cannot apply this event: Input/
# output error") or "write failed"; a long trace fails mid-way, a short one
# at the end
expect_fail "convert to a full disk" "^cpuidle convert: /dev/full: No space left on device$" \
	convert "$trace" -o /dev/full
if [ -f "$src/../shared/traces/nginx-menu.perf.txt.xz" ]; then
	expect_fail "convert a long trace to a full disk" \
		"^cpuidle convert: /dev/full: No space left on device$" \
		convert "$src/../shared/traces/nginx-menu.perf.txt.xz" -o /dev/full
fi

expect_fail "convert onto its text trace" "io.txt: the output would overwrite the input '.*io.txt'" \
	convert "$d/io.txt" -o "$d/io.txt"
intact "convert onto its text trace" "$d/io.txt" "$txt"
expect_fail "convert onto its read-only xz trace" "the output would overwrite the input" \
	convert "$d/victim.xz" -o "$d/victim.xz"
intact "convert onto its read-only xz trace" "$d/victim.xz" "$vic"
ln "$d/victim.xz" "$d/hardlink.xz"
expect_fail "convert onto a hard link of its trace" "hardlink.xz: the output would overwrite" \
	convert "$d/victim.xz" -o "$d/hardlink.xz"
intact "convert onto a hard link of its trace" "$d/victim.xz" "$vic"
ln -s io.txt "$d/symlink.txt"
expect_fail "convert --output onto a symbolic link to its trace" "the output would overwrite" \
	convert "$d/io.txt" --output "$d/symlink.txt"
intact "convert --output onto a symbolic link to its trace" "$d/io.txt" "$txt"
expect_fail "convert --csv onto its interval file" "io.ivf: the output would overwrite" \
	convert "$d/io.ivf" --csv -o "$d/io.ivf"
intact "convert --csv onto its interval file" "$d/io.ivf" "$ivf"
for args in "sweep -g menu -p laptop -o" "sweep -g menu -p laptop --report" \
	    "sim -g menu --report" "sim -g menu --log-decisions"; do
	for f in victim.xz io.txt io.ivf; do
		# shellcheck disable=SC2086
		expect_fail "$args X X ($f)" "$f: the output would overwrite the input" \
			$args "$d/$f" "$d/$f"
	done
	intact "$args X X" "$d/victim.xz" "$vic"
	intact "$args X X" "$d/io.txt" "$txt"
	intact "$args X X" "$d/io.ivf" "$ivf"
done
# the trace among several, or the bundled one that sweep reads by default
expect_fail "sweep -o onto its second trace" "the output would overwrite the input" \
	sweep -g menu -p laptop -o "$d/io.txt" "$d/io.ivf" "$d/io.txt"
intact "sweep -o onto its second trace" "$d/io.txt" "$txt"
# a platform file given as a path is an input too
expect_fail "sim --log-decisions onto its platform file" "q.platform: the output would overwrite" \
	sim -p "$d/q.platform" -g menu -n 10 --log-decisions "$d/q.platform"
expect_fail "sweep -o onto its platform file" "q.platform: the output would overwrite" \
	sweep -p "laptop,$d/q.platform" -g menu -o "$d/q.platform" "$d/io.ivf"
intact "outputs onto the platform file" "$d/q.platform" "$qp"
# the report's name left out: the shell's glob puts the first trace there
mkdir "$d/glob"
cp "$trace" "$d/glob/a.perf.txt.xz"
cp "$trace" "$d/glob/b.perf.txt.xz"
expect_fail "sweep --report onto a trace" "--report .*a.perf.txt.xz: that file is a trace" \
	sweep -g menu -p laptop --report "$d"/glob/*.perf.txt.xz
intact "sweep --report onto a trace" "$d/glob/a.perf.txt.xz" "$vic"
expect_fail "sim --report onto a text trace" "that file is a trace" \
	sim -g menu -n 10 --report "$d/io.txt"
expect_fail "sweep -o onto an interval file" "-o .*io.ivf: that file is an interval file" \
	sweep -g menu -p laptop -o "$d/io.ivf" "$trace"
intact "outputs onto other traces" "$d/io.txt" "$txt"
intact "outputs onto other traces" "$d/io.ivf" "$ivf"

# --- two outputs, one file ---------------------------------------------------
expect_fail "sweep -o f --report f" "both -o and --report would write it" \
	sweep -g menu -p laptop -o "$d/f" --report "$d/f" "$d/io.ivf"
expect_fail "sweep -o f --report ./f" "both -o and --report would write it" \
	sweep -g menu -p laptop -o "$d/f" --report "$d/./f" "$d/io.ivf"
expect_fail "sim --log-decisions f --report f" "both --log-decisions and --report would write it" \
	sim -g menu -n 10 --log-decisions "$d/f" --report "$d/f"
if [ ! -e "$d/f" ]; then ok; else bad "-o f --report f created f"; fi
echo precious >"$d/f"
p=$(sum "$d/f")
expect_fail "sweep -o f --report f (existing f)" "both -o and --report would write it" \
	sweep -g menu -p laptop -o "$d/f" --report "$d/f" "$d/io.ivf"
intact "sweep -o f --report f (existing f)" "$d/f" "$p"

# --- a failed run leaves an earlier output as it was ------------------------
echo precious >"$d/results.csv"
echo '<html>old</html>' >"$d/old.html"
echo 'old log' >"$d/log.txt"
cp "$d/io.ivf" "$d/old.ivf"
echo 'old csv' >"$d/old.csv"
csv=$(sum "$d/results.csv") html=$(sum "$d/old.html") log=$(sum "$d/log.txt")
oldcsv=$(sum "$d/old.csv")
head -c 10000 "$trace" >"$d/trunc.xz"
# a typo in the trace's name, before any run
expect_fail "sweep -o, missing trace" "nonexistent.txt: No such file" \
	sweep -g menu -p laptop -o "$d/results.csv" "$d/nonexistent.txt"
intact "sweep -o, missing trace" "$d/results.csv" "$csv"
expect_fail "sweep --report, missing trace" "nonexistent.txt: No such file" \
	sweep -g menu -p laptop --report "$d/old.html" "$d/nonexistent.txt"
intact "sweep --report, missing trace" "$d/old.html" "$html"
expect_fail "sim --report, missing trace" "nonexistent.txt: No such file" \
	sim -g menu --report "$d/old.html" "$d/nonexistent.txt"
intact "sim --report, missing trace" "$d/old.html" "$html"
expect_fail "sim --log-decisions, missing trace" "nonexistent.txt: No such file" \
	sim -g menu --log-decisions "$d/log.txt" "$d/nonexistent.txt"
intact "sim --log-decisions, missing trace" "$d/log.txt" "$log"
# a trace that breaks half-way, once the outputs are open
expect_fail "sweep -o, a broken second trace" "truncated xz stream" \
	sweep -g menu -p laptop -o "$d/results.csv" --report "$d/old.html" "$d/io.ivf" "$d/trunc.xz"
intact "sweep -o, a broken second trace" "$d/results.csv" "$csv"
intact "sweep --report, a broken second trace" "$d/old.html" "$html"
expect_fail "convert -o, a broken trace" "truncated xz stream" \
	convert "$d/trunc.xz" -o "$d/old.ivf"
intact "convert -o, a broken trace" "$d/old.ivf" "$ivf"
expect_fail "convert --csv -o, a broken trace" "truncated xz stream" \
	convert "$d/trunc.xz" --csv -o "$d/old.csv"
intact "convert --csv -o, a broken trace" "$d/old.csv" "$oldcsv"
# a replay that fails, the outputs open: a platform with fewer CPUs than the trace
printf 'platform one\ncpus 1\nstate C1 latency_us=1 residency_us=2 power_mw=100\n' \
	>"$d/one.platform"
expect_fail "sim --report, a failed replay" "the trace has CPUs that platform one does not" \
	sim -p "$d/one.platform" -g menu --report "$d/old.html" --log-decisions "$d/log.txt" \
	"$d/io.ivf"
intact "sim, a failed replay" "$d/old.html" "$html"
intact "sim, a failed replay" "$d/log.txt" "$log"
# a write that fails (a file size limit): the message names the file given
# and the cause
err=$( (trap '' XFSZ; ulimit -f 16; "$cli" convert "$trace" -o "$d/old.ivf") 2>&1 >/dev/null)
if [ "$err" = "cpuidle convert: $d/old.ivf: File too large" ]; then ok; else
	bad "convert -o, a failed write: '$err'"; fi
intact "convert -o, a failed write" "$d/old.ivf" "$ivf"
err=$( (trap '' XFSZ; ulimit -f 8; "$cli" sweep -g menu,teo,ladder -p laptop,skylake \
	--qos 0,1,2,3,4,5,6,7,8,9,10 -o "$d/results.csv" "$d/io.ivf") 2>&1 >/dev/null |
	grep -v 'io.ivf: CPU 1 has events but no idle entry or exit')	# the trace's note
if [ "$err" = "cpuidle sweep: $d/results.csv: File too large" ]; then ok; else
	bad "sweep -o, a failed write: '$err'"; fi
intact "sweep -o, a failed write" "$d/results.csv" "$csv"
no_temp "failed runs"

# --- and a run that succeeds replaces them --------------------------------------
if "$cli" sweep -g menu -p laptop -o "$d/results.csv" --report "$d/old.html" "$d/io.ivf" &&
   head -n 1 "$d/results.csv" | grep -q '^trace,platform,governor' &&
   grep -q '^<!DOCTYPE html>' "$d/old.html"; then ok; else bad "sweep -o, --report: replaced"; fi
ln -s results.csv "$d/link.csv"
if "$cli" sweep -g teo -p laptop -o "$d/link.csv" "$d/io.ivf" && [ -L "$d/link.csv" ] &&
   grep -q ',teo,' "$d/results.csv"; then ok; else bad "sweep -o through a symbolic link"; fi
chmod 640 "$d/results.csv"
if "$cli" sweep -g menu -p laptop -o "$d/results.csv" "$d/io.ivf" &&
   [ "$(stat -c %a "$d/results.csv")" = 640 ]; then ok; else
	bad "sweep -o: the file's permissions kept"; fi
if "$cli" sim -g menu -n 300 --log-decisions "$d/log.txt" >/dev/null &&
   "$cli" sim -g menu -n 300 --log-decisions "$d/log.txt" >/dev/null &&
   grep -q ' select ' "$d/log.txt"; then ok; else bad "sim --log-decisions: replaced"; fi
if "$cli" convert "$trace" -o "$d/old.ivf" >/dev/null && [ "$(sum "$d/old.ivf")" = "$ivf" ]; then
	ok; else bad "convert -o: an interval file replaced"; fi
# not regular files: written directly, never replaced
if "$cli" sweep -g menu -p laptop -o /dev/null --report /dev/null "$d/io.ivf" &&
   [ -c /dev/null ] && [ "$("$cli" sweep -g menu -p laptop -o - "$d/io.ivf" | wc -l)" = 2 ]; then
	ok; else bad "sweep -o /dev/null, -o -"; fi
if [ "$(id -u)" = 0 ] && mknod "$d/nulldev" c 1 3 2>/dev/null; then
	"$cli" convert "$d/trunc.xz" -o "$d/nulldev" 2>/dev/null
	if [ -c "$d/nulldev" ]; then ok; else bad "a failed convert removed a device"; fi
fi
no_temp "runs that succeeded"

# --- sim: the pattern's options with a trace ------------------------------------
expect_fail "sim -n with a trace" \
	"-n/--intervals applies to synthetic patterns (--pattern), not to a trace" \
	sim -n 10 -g menu "$trace"
expect_fail "sim --nr-cpus with a trace" "--nr-cpus applies to synthetic patterns" \
	sim --nr-cpus 4 "$trace"
expect_fail "sim --seed with a trace" "--seed applies to synthetic patterns" \
	sim --seed 7 "$d/io.ivf"
expect_fail "sim --pattern with a trace" "--pattern replaces the trace" \
	sim --pattern io "$trace"
expect_fail "sim --nr-cpus beyond the platform" "--nr-cpus 4: platform haltpoll-vm has 2 CPUs" \
	sim -p haltpoll-vm --nr-cpus 4 -n 100
if "$cli" sim -p haltpoll-vm --nr-cpus 2 -n 100 -g menu >/dev/null; then ok; else
	bad "sim --nr-cpus 2 on haltpoll-vm"; fi

# --- sim --csv -------------------------------------------------------------------
# residency_pct: share of the time in idle states, 100 per governor (on a
# trace, where that time exceeds the span's idle time); the run's figures
# are those of --json; a state name with a comma and quotes, quoted
if "$cli" sim -p laptop --csv "$d/io.ivf" >"$d/sim.csv" &&
   "$cli" sim -p laptop --json "$d/io.ivf" >"$d/sim.json" && python3 -c '
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
runs = {r["governor"]: r for r in json.load(open(sys.argv[2]))["runs"]}
assert {r["governor"] for r in rows} == set(runs), rows
for g, run in runs.items():
    mine = [r for r in rows if r["governor"] == g]
    assert len(mine) == len(run["states"]) == 3, mine
    total = sum(float(r["residency_pct"]) for r in mine)
    assert abs(total - 100) < 0.01, (g, total)
    for r, s in zip(mine, run["states"]):
        assert r["state_name"] == s["name"] and int(r["usage"]) == s["usage"], (r, s)
        assert int(r["state_index"]) == s["index"] and int(r["time_ns"]) == s["time_ns"], (r, s)
        assert abs(float(r["energy_mj"]) - run["energy_mj"]) < 0.001, (r, run)
        assert int(r["entries"]) == run["entries"] and int(r["intervals"]) == run["intervals"]
        assert int(r["qos_violations"]) == run["qos_violations"], r
        assert int(r["qos_unmeetable"]) == run["qos_unmeetable"], r
        assert int(r["p99_added_latency_ns"]) == run["p99_added_latency_ns"], (r, run)
        assert int(r["mean_added_latency_ns"]) == run["mean_added_latency_ns"], (r, run)
        assert r["over_oracle_pct"] != "" and r["effect_pct"] == "", r
    assert float(mine[0]["over_oracle_pct"]) == 0 if g == "oracle" else True
' "$d/sim.csv" "$d/sim.json"; then ok; else bad "sim --csv: residency, the run's figures"; fi
if "$cli" sim -p "$d/q.platform" -g menu,oracle --csv -n 200 >"$d/q.csv" &&
   grep -q '^menu,0,"C1, ""fast""",' "$d/q.csv" && python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["state_name"] for r in rows] == ["C1, \"fast\"", "C2"] * 2, rows
assert all(len(r) == len(rows[0]) and None not in r for r in rows), rows
' "$d/q.csv"; then ok; else bad "sim --csv: a state name quoted"; fi
# a domain state: effect_pct
if "$cli" sim -p juno-r2 --nr-cpus 6 -n 200 -g menu --csv | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert [r["effect_pct"] != "" for r in rows] == [False, False, True], rows
'; then ok; else bad "sim --csv: effect_pct"; fi

# --- sim: entries that could not meet the QoS limit ---------------------------------
if out=$("$cli" sim --qos 0 -p laptop -g menu,oracle "$d/io.ivf") &&
   n=$("$cli" sim --qos 0 -p laptop -g menu --json "$d/io.ivf" |
       python3 -c 'import json,sys; print(json.load(sys.stdin)["runs"][0]["qos_unmeetable"])') &&
   [ "$n" -gt 0 ] &&
   printf '%s\n' "$out" | grep -qx "menu *QoS-u $n" &&
   printf '%s\n' "$out" | grep -qx "oracle *QoS-u $n" &&
   printf '%s\n' "$out" | grep -q "QoS-u: entries when no enabled state met the limit"; then ok
else bad "sim: QoS-u in the text: $out"; fi
# (the output first: a sim that crashed must fail this, not pass it)
if out=$("$cli" sim -p laptop -g menu "$d/io.ivf") && [ -n "$out" ] &&
   ! printf '%s\n' "$out" | grep -q 'QoS-u'; then ok; else
	bad "sim: QoS-u without one (or sim failed): $out"; fi

# --- one format, each governor once ------------------------------------------------
expect_fail "sim --csv --json" "--csv and --json: choose one" sim -n 10 --csv --json
expect_fail "sweep --csv --json" "--csv and --json: choose one" sweep --json --csv "$d/io.ivf"
expect_fail "sim -g menu,menu" "-g: 'menu' listed twice" sim -n 10 -g menu,menu
expect_fail "sim -g menu," "-g: an empty item" sim -n 10 -g menu,
expect_fail "sim -g menu -g menu" "-g: 'menu' listed twice" sim -n 10 -g menu -g menu
expect_fail "sweep -g menu,menu" "'menu' listed twice" sweep -g menu,menu "$d/io.ivf"
expect_fail "sweep -p laptop -p laptop" "-p: 'laptop' listed twice" \
	sweep -g menu -p laptop -p laptop "$d/io.ivf"
# repeated -g and -p add up
if "$cli" sweep -g menu -g teo -p laptop -p skylake "$d/io.ivf" | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert [(r["platform"], r["governor"]) for r in rows] == \
    [(p, g) for p in ("laptop", "skylake") for g in ("menu", "teo")], rows
'; then ok; else bad "sweep -g -g, -p -p add up"; fi
if [ "$("$cli" sim -n 100 -g menu -g teo --json | python3 -c '
import json, sys
print(",".join(r["governor"] for r in json.load(sys.stdin)["runs"]))')" = menu,teo ]; then ok
else bad "sim -g -g add up"; fi

# --- convert's messages ---------------------------------------------------------------
err=$("$cli" convert "$d/io.txt" 2>&1 >/dev/null)
rc=$?
if [ $rc = 2 ] && [ "$(printf '%s\n' "$err" | head -n 1)" = \
     "cpuidle convert: -o FILE.ivf (or --csv) is missing" ] &&
   [ "$(printf '%s\n' "$err" | wc -l)" = 2 ] &&
   printf '%s\n' "$err" | tail -n 1 | grep -q '^usage: cpuidle convert'; then ok; else
	bad "convert without -o: rc=$rc '$err'"; fi
expect_fail "convert an interval file" "io.ivf: already an interval file" \
	convert "$d/io.ivf" -o "$d/x.ivf"
if [ ! -e "$d/x.ivf" ]; then ok; else bad "convert an interval file: x.ivf created"; fi
if "$cli" convert "$d/io.txt" --output "$d/out.ivf" >/dev/null &&
   [ "$(sum "$d/out.ivf")" = "$ivf" ]; then ok; else bad "convert --output"; fi
expect_fail "convert -o -" "an interval file needs a real file, not standard output" \
	convert "$trace" -o -
no_temp "the end"

# A run that a signal ends (INT, TERM, HUP, QUIT) leaves no temporary
# interval file behind and dies of the signal: each command waits on a FIFO
# holding the trace without its end, its temporary file made, when the
# signal comes (from Python: a shell's background job ignores INT and QUIT)
if python3 - "$cli" "$trace" >"$d/sig.out" 2>&1 <<'PY'
import os, signal, subprocess, sys, tempfile, time, lzma
cli, trace = sys.argv[1:3]
data = lzma.open(trace).read()
fails = 0
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
  for cmd in (["sim", "-g", "menu"], ["sweep", "-g", "menu", "-p", "laptop"], ["convert", "--csv"], ["fidelity", "-g", "menu"]):
    d = tempfile.mkdtemp()
    tmpdir = os.path.join(d, "tmp"); os.mkdir(tmpdir)
    fifo = os.path.join(d, "fifo"); os.mkfifo(fifo)
    env = dict(os.environ, TMPDIR=tmpdir)
    # the signals at their defaults, whatever this suite inherited (a
    # background job of a shell without job control ignores INT and QUIT,
    # nohup HUP; a command that keeps an ignored signal ignored is right)
    p = subprocess.Popen([cli] + cmd + [fifo], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in
                                             (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)])
    w = open(fifo, "wb")
    w.write(data); w.flush()	# the trace, and no end of it yet: the command waits, its temporary file there
    for _ in range(200):
        if os.listdir(tmpdir):
            break
        time.sleep(0.05)
    created = bool(os.listdir(tmpdir))
    p.send_signal(sig)
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:	# said, not a Python traceback
        p.kill()
        rc = f"still running 60 s after {sig.name}"
        p.wait()
    w.close()
    left = os.listdir(tmpdir)
    ok = created and not left and rc == -sig
    if not ok:
        fails += 1
        print(f"FAIL: {cmd[0]} ended by {sig.name}: created {created}, rc {rc}, left {left}")
    subprocess.run(["rm", "-rf", d])
sys.exit(1 if fails else 0)
PY
then ok; else bad "a run ended by a signal left its temporary interval file: $(cat "$d/sig.out")"; fi

# What a killed run left (SIGKILL: no handler runs) is removed by the next
# command that makes a temporary interval file there: ours, of a PID that no
# longer runs; a running command's, and any other file, are left
mkdir "$d/stale"
dead=$(sh -c 'echo $$')
: >"$d/stale/cpuidle-$dead-abcdef"
: >"$d/stale/cpuidle-$$-ghijkl"
: >"$d/stale/cpuidle-notapid-123456"
: >"$d/stale/unrelated"
TMPDIR="$d/stale" "$cli" sim -g menu "$trace" >/dev/null 2>&1
if [ ! -e "$d/stale/cpuidle-$dead-abcdef" ] && [ -e "$d/stale/cpuidle-$$-ghijkl" ] &&
   [ -e "$d/stale/cpuidle-notapid-123456" ] && [ -e "$d/stale/unrelated" ] &&
   [ "$(ls "$d/stale" | wc -l)" -eq 3 ]; then ok; else
	bad "stale temporaries: $(ls "$d/stale" | tr '\n' ' ')"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
