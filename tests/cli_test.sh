#!/bin/sh
# cli_test.sh CPUIDLE - the command-line tool: outputs that must hold, and
# bad input that must give a clear message and a non-zero exit.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"

expect_fail "no command" "usage"
expect_fail "unknown command" "not a command" frobnicate
expect_fail "unknown governor" "unknown governor 'nosuch'" sim -g nosuch
expect_fail "empty governor list" "empty governor list" sim -g ,
expect_fail "bad intervals" "--intervals" sim -n 12x
expect_fail "zero intervals" "--intervals" sim -n 0
expect_fail "bad CPU count" "--nr-cpus wants 1..1024, not '99999'" sim --nr-cpus 99999
expect_fail "negative qos" "--qos" sim --qos -5
expect_fail "bad pattern" "unknown pattern" sim --pattern periodic:0
expect_fail "missing platform" "nosuch.platform" sim -p ./nosuch.platform
expect_fail "stray argument" "unexpected argument 'b'" sim a b
expect_fail "missing trace" "nosuch.trace: No such file" sim ./nosuch.trace
expect_fail "not a trace" "not a trace" sim "$src/README.md"
expect_fail "platform without spec" "show wants one SPEC" platform show
expect_fail "platform of /dev/zero" "zero" platform show /dev/zero

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'platform x\nstate A latency_us=5 residency_us=10\nstate B latency_us=2 residency_us=20\n' >"$tmp/bad.platform"
expect_fail "states out of order" "bad.platform:3:" platform show "$tmp/bad.platform"

# Outputs: deterministic per seed, parseable JSON, every governor present.
a=$("$cli" sim -n 2000 --seed 7 --csv) && b=$("$cli" sim -n 2000 --seed 7 --csv)
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "same seed, different output"; fi
c=$("$cli" sim -n 2000 --seed 8 --csv)
if [ "$a" != "$c" ]; then ok; else bad "another seed, same output"; fi
# every built-in governor ("cpuidle governors", less the ports by release,
# NAME@RELEASE, which sim runs only when asked) and the oracle
govs=$("$cli" governors | awk '$1 !~ /@/ {printf "%s,", $1}')oracle
if "$cli" sim -n 500 --json | GOVS=$govs python3 -c 'import json,os,sys; d=json.load(sys.stdin); assert {r["governor"] for r in d["runs"]} == set(os.environ["GOVS"].split(",")), d["runs"]'; then ok; else bad "json"; fi
# Under QoS 0 every governor may only use state 0 of the haltpoll VM (POLL).
if "$cli" sim -p haltpoll-vm --qos 0 -n 500 --json | python3 -c '
import json,sys
d=json.load(sys.stdin)
for r in d["runs"]:
    assert r["states"][1]["usage"] == 0, r
    assert r["states"][0]["usage"] > 0, r'; then ok; else bad "qos 0 must poll only"; fi
if "$cli" platform list | grep -qx laptop; then ok; else bad "platform list"; fi
if [ "$("$cli" platform show juno-r2 | grep -c '^cluster ')" = 2 ] &&
   "$cli" platform show juno-r2 | grep -q 'cluster-sleep-0 .*domain: cluster 24 mW'; then ok; else
	bad "platform show: every cluster"; fi
# --json carries the energy model too, per cluster: what the text shows
if "$cli" platform show --json juno-r2 | python3 -c '
import json,sys
d=json.load(sys.stdin)
big, little = d["clusters"]
assert d["nr_cpus"] == 6 and d["tick_hz"] == 250, d
assert big["cpus"] == [1, 2] and little["cpus"] == [0, 3, 4, 5], d["clusters"]
assert (big["active_power_mw"], big["idle_power_mw"]) == (583, 65), big
wfi, sleep, cluster = big["states"]
assert wfi["power_mw"] is None and wfi["model_power_mw"] == 15, wfi
assert (sleep["entry_energy_nj"], sleep["exit_energy_nj"]) == (6000, 24000), sleep
assert sleep["cluster_power_mw"] is None and cluster["cluster_power_mw"] == 24, big
assert little["states"][0]["model_power_mw"] == 6, little
assert [s["name"] for s in d["states"]] == [s["name"] for s in big["states"]], d' &&
   "$cli" platform show --json laptop | python3 -c '
import json,sys
d=json.load(sys.stdin)
assert len(d["clusters"]) == 1 and d["clusters"][0]["cpus"] is None, d
assert d["tick_hz"] is None and d["nr_cpus"] is None, d      # the file says neither
assert [s["index"] for s in d["states"]] == [0, 1, 2], d
assert [s["model_power_mw"] for s in d["clusters"][0]["states"]] == [1000, 500, 100], d'; then ok
else bad "platform show --json: clusters and the energy model"; fi
# --csv: a row per cluster and state, the JSON's values (null empty)
for p in juno-r2 laptop; do
	if "$cli" platform show --csv $p >"$tmp/p.csv" && "$cli" platform show --json $p >"$tmp/p.json" &&
	   python3 - "$tmp/p.csv" "$tmp/p.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
want = [(cl, s) for cl in d["clusters"] for s in cl["states"]]
assert len(rows) == len(want) > 0, (rows, want)
def cell(v):
    return "" if v is None else str(v)
for r, (cl, s) in zip(rows, want):
    assert r["cluster"] == cl["name"] and r["state_name"] == s["name"], (r, s)
    assert r["state_index"] == str(s["index"]), (r, s)
    for k in ("active_power_mw", "idle_power_mw"):
        assert r[k] == cell(cl[k]), (k, r, cl)
    for k in ("desc", "exit_latency_ns", "target_residency_ns", "power_mw", "flags",
              "model_power_mw", "entry_energy_nj", "exit_energy_nj", "cluster_power_mw"):
        assert r[k] == cell(s[k]), (k, r, s)
PY
	then ok; else bad "platform show --csv against --json ($p)"; fi
done
if "$cli" sim --help | grep -q -- "--platform"; then ok; else bad "sim --help"; fi

# The bundled real trace: every governor and the oracle replay it; the
# oracle's energy is the floor; no governor violates QoS.
if "$cli" sim -p laptop --json "$src/traces/io-menu.perf.txt.xz" | GOVS=$govs python3 -c '
import json,os,sys
d=json.load(sys.stdin)
runs={r["governor"]: r for r in d["runs"]}
assert set(runs) == set(os.environ["GOVS"].split(",")), runs.keys()
for r in runs.values():
    assert r["qos_violations"] == 0, r
    assert r["energy_mj"] >= runs["oracle"]["energy_mj"] - 1e-9, r
    assert r["intervals"] > 700, r'; then ok; else bad "sim on the bundled trace"; fi

# The bundled trace in which both CPUs idle (recorded without a cpuidle
# driver): on skylake the two CPUs share the package, whose states take
# effect only while both are in one; the oracle stays the floor.
if "$cli" sim -p skylake --json "$src/traces/mixed-nodriver.perf.txt.xz" 2>/dev/null | python3 -c '
import json,sys
d=json.load(sys.stdin)
runs={r["governor"]: r for r in d["runs"]}
for r in runs.values():
    assert r["qos_violations"] == 0, r
    assert r["energy_mj"] >= runs["oracle"]["energy_mj"] - 1e-9, r
o = runs["oracle"]
assert o["domain_ns"] > 10000000 and o["cluster_energy_mj"] > 0, o
assert d["nr_cpus"] == 2 and o["intervals"] > 2000, o' &&
   "$cli" stats --json "$src/traces/mixed-nodriver.perf.txt.xz" | python3 -c '
import json,sys
d=json.load(sys.stdin)
hits = {c["cpu"]: sum(s["usage"] for s in c["states"]) for c in d["cpus"]}
assert set(hits) == {0, 1} and min(hits.values()) > 1000, hits'
then ok; else bad "sim skylake on the trace where both CPUs idle"; fi

# (The checks on ../shared/traces: tests/cli_shared_test.sh.)

# Bad input: a clear message naming the file, a non-zero exit, never a hang.
tmpd=$(mktemp -d)
printf 'swapper 0 [000] 12.000000001: power:cpu_idle: state=1 cpu_id=0\n' >"$tmpd/one.txt"
head -c 4000 "$src/traces/io-menu.perf.txt.xz" >"$tmpd/truncated.xz"
head -c 65536 /dev/urandom >"$tmpd/noise.bin"
: >"$tmpd/empty.txt"
printf 'hello\nworld\n' >"$tmpd/garbage.txt"
printf '          <idle>-0       [000] d..1.  3166.935486: cpu_idle: state=1 cpu_id=0\n%s\n' \
	'         swapper     0 [000]  2730.243561922:    power:cpu_idle: state=1 cpu_id=0' \
	>"$tmpd/mixed.txt"
printf '%s\n' '  swapper     0 [000] 99999999999.000000000: power:cpu_idle: state=1 cpu_id=0' \
	>"$tmpd/absurd.txt"
printf '%s\n' '  swapper     0 [000]  12.000000001: power:cpu_idle: state=banana cpu_id=0' \
	>"$tmpd/badfield.txt"
"$cli" convert "$src/traces/io-menu.perf.txt.xz" -o "$tmpd/good.ivf" >/dev/null
cp "$tmpd/good.ivf" "$tmpd/corrupt.ivf"
printf 'XXXX' | dd of="$tmpd/corrupt.ivf" bs=1 seek=5000 conv=notrunc 2>/dev/null
for cmd in sim stats convert; do
	extra=
	[ "$cmd" = convert ] && extra="-o $tmpd/out.ivf"
	expect_fail "$cmd truncated xz" "truncated.xz" $cmd "$tmpd/truncated.xz" $extra
	expect_fail "$cmd noise" "noise.bin" $cmd "$tmpd/noise.bin" $extra
	expect_fail "$cmd empty" "empty.txt" $cmd "$tmpd/empty.txt" $extra
	expect_fail "$cmd garbage" "garbage.txt" $cmd "$tmpd/garbage.txt" $extra
	expect_fail "$cmd mixed formats" "mixed.txt:2" $cmd "$tmpd/mixed.txt" $extra
	expect_fail "$cmd absurd time" "absurd.txt:1" $cmd "$tmpd/absurd.txt" $extra
	expect_fail "$cmd bad field" "badfield.txt:1" $cmd "$tmpd/badfield.txt" $extra
	expect_fail "$cmd /dev/zero" "/dev/zero" $cmd /dev/zero $extra
	expect_fail "$cmd directory" "$tmpd" $cmd "$tmpd" $extra
done
expect_fail "sim corrupt ivf" "corrupt.ivf: offset" sim "$tmpd/corrupt.ivf"
# an interval file is read back as its events, saying so
if "$cli" stats "$tmpd/good.ivf" >/dev/null 2>"$tmpd/err" &&
   grep -q "good.ivf: an interval file, read back as the idle events" "$tmpd/err"; then ok; else
	bad "stats of an interval file: $(cat "$tmpd/err")"; fi
expect_fail "sim trace without idle" "no complete idle interval" sim "$tmpd/one.txt"
rm -rf "$tmpd"

# convert --csv: a header, then one row of 13 fields per interval, the same
# rows from a trace and from its interval file; a corrupt interval file or
# a failed write: a message, exit 1, no partial output; the temporary
# interval file of a trace removed, whatever happened.
tcsv=$(mktemp -d)
mkdir "$tcsv/tmp"
# the shared copy of the bundled trace where it is at hand, else the bundled one
traces="$src/../shared/traces"
ctrace="$traces/io-menu.perf.txt.xz"
[ -f "$ctrace" ] || ctrace="$src/traces/io-menu.perf.txt.xz"
hdr=cpu,start_ns,idle_ns,next_timer_ns,busy_ns,wake,irq,qos_ns,entries,kernel_state
hdr=$hdr,kernel_idle_ns,partial,timer_unknown,timer_guessed
n=$("$cli" convert "$ctrace" -o "$tcsv/t.ivf" | sed -n 's/.*; \([0-9][0-9]*\) intervals .*/\1/p')
if [ -n "$n" ] && TMPDIR="$tcsv/tmp" "$cli" convert "$ctrace" --csv >"$tcsv/t.csv" &&
   "$cli" convert "$tcsv/t.ivf" --csv -o "$tcsv/i.csv"; then ok; else
	bad "convert --csv: rc=$? intervals='$n'"; fi
# the machine above the header: both CPUs, CPU 1 never idle (this trace's)
if [ "$(head -n 1 "$tcsv/t.csv")" = "# nr_cpus=2 never_idle=1" ]; then ok; else
	bad "convert --csv machine line: $(head -n 1 "$tcsv/t.csv")"; fi
if [ "$(sed -n 2p "$tcsv/t.csv")" = "$hdr" ]; then ok; else
	bad "convert --csv header: $(sed -n 2p "$tcsv/t.csv")"; fi
rows=$(($(wc -l <"$tcsv/t.csv") - 2))
if [ "$rows" -gt 0 ] && [ "$rows" = "$n" ]; then ok; else
	bad "convert --csv: $rows rows, convert said $n intervals"; fi
if cmp -s "$tcsv/t.csv" "$tcsv/i.csv" &&
   "$cli" convert "$tcsv/t.ivf" --csv -o - | cmp -s - "$tcsv/t.csv"; then ok; else
	bad "convert --csv: the trace's rows and its interval file's differ"; fi
if awk -F, 'NR > 2 {
	if (NF != 14 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ ||
	    $4 !~ /^([0-9]+|inf|)$/ || $5 !~ /^[0-9]+$/ ||
	    $6 !~ /^(timer|tick|resched|call-func|irq|unknown)$/ || $8 !~ /^[0-9]*$/ ||
	    $9 !~ /^[0-9]+$/ || $10 !~ /^[0-9]*$/ || $11 !~ /^[0-9]+$/ ||
	    $12 !~ /^(start|end|both|)$/ || $13 !~ /^[01]$/ || ($4 == "") != ($13 == 1) ||
	    $14 !~ /^[01]$/ || ($13 == 1 && $14 == 1) ||
	    $4 == "9223372036854775807" || $8 == "2000000000") {
		bad = 1
		exit
	}
	idle += $3
} END { exit bad || !(NR > 1 && idle > 0) }' "$tcsv/t.csv"; then ok; else
	bad "convert --csv: a row with a bad field, or no idle time"; fi
if [ -z "$(ls "$tcsv/tmp")" ]; then ok; else bad "convert --csv left $(ls "$tcsv/tmp")"; fi
head -c 30000 "$tcsv/t.ivf" >"$tcsv/trunc.ivf"
expect_fail "convert --csv truncated ivf" "trunc.ivf: offset .*truncated" convert \
	"$tcsv/trunc.ivf" --csv
cp "$tcsv/t.ivf" "$tcsv/corrupt.ivf"
printf 'XXXX' | dd of="$tcsv/corrupt.ivf" bs=1 seek=5000 conv=notrunc 2>/dev/null
expect_fail "convert --csv corrupt ivf" "corrupt.ivf: offset .*checksum" convert \
	"$tcsv/corrupt.ivf" --csv -o "$tcsv/corrupt.csv"
if [ ! -e "$tcsv/corrupt.csv" ]; then ok; else bad "convert --csv left a partial CSV"; fi
expect_fail "convert --csv bad trace" "README.md: not a trace" convert "$src/README.md" --csv
expect_fail "convert --csv onto its input" "overwrite the input" convert "$tcsv/t.ivf" --csv \
	-o "$tcsv/t.ivf"
if [ -w /dev/full ]; then
	expect_fail "convert --csv -o /dev/full" "/dev/full: No space left" convert "$tcsv/t.ivf" \
		--csv -o /dev/full
	# a short one too, which fits in the output buffer until the end
	xz -dc "$ctrace" | head -n 300 >"$tcsv/short.txt"
	for t in "$ctrace" "$tcsv/short.txt"; do
		err=$(TMPDIR="$tcsv/tmp" "$cli" convert "$t" --csv 2>&1 >/dev/full)
		rc=$?
		if [ $rc = 1 ] && printf '%s' "$err" | grep -q "stdout: No space"; then ok; else
			bad "convert --csv $t >/dev/full: rc=$rc stderr='$err'"; fi
	done
fi
# a reader that stops early: a long dump ends by SIGPIPE, the temporary file removed
big="$traces/nginx-menu.perf.txt.xz"
[ -f "$big" ] || big=$ctrace
TMPDIR="$tcsv/tmp" "$cli" convert "$big" --csv 2>/dev/null | head -n 1 >/dev/null
if [ -z "$(ls "$tcsv/tmp")" ]; then ok; else
	bad "convert --csv left $(ls "$tcsv/tmp") after an error or a closed pipe"; fi
rm -rf "$tcsv"

# --log-decisions: one select and one reflect line per idle entry, the same
# decisions as without it
tmpl=$(mktemp)
if "$cli" sim -g menu -n 300 --json --log-decisions "$tmpl" >"$tmpl.json" &&
   entries=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["entries"])' "$tmpl.json") &&
   [ "$(grep -c ' select ' "$tmpl")" -eq "$entries" ] &&
   [ "$(grep -c ' reflect ' "$tmpl")" -eq "$entries" ] &&
   "$cli" sim -g menu -n 300 --json | cmp -s - "$tmpl.json"; then ok; else bad "--log-decisions"; fi
rm -f "$tmpl" "$tmpl.json"
expect_fail "--log-decisions with two governors" "one governor" sim -g menu,ladder --log-decisions /dev/null
expect_fail "--log-decisions unwritable" "/nonexistent/x" sim -g menu --log-decisions /nonexistent/x

# sweep: one row per combination of the axes, in an order that does not
# depend on the threads; the oracle is the floor; tunables reach haltpoll.
tsw=$(mktemp -d)
trace="$src/traces/io-menu.perf.txt.xz"
grow=module/haltpoll/parameters/guest_halt_poll_grow
"$cli" convert "$trace" -o "$tsw/io.ivf" >/dev/null
if "$cli" sweep -g menu,teo,oracle -p laptop,haltpoll-vm --qos trace,20 -s "$grow=2,4" \
	"$tsw/io.ivf" >"$tsw/a.csv" && python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 3 * 2 * 2 * 2, len(rows)
keys = [(r["platform"], r["governor"], r["qos_ns"], r[sys.argv[2]]) for r in rows]
assert keys == sorted(keys, key=lambda k: (["laptop", "haltpoll-vm"].index(k[0]),
	["menu", "teo", "oracle"].index(k[1]), ["", "20000"].index(k[2]), k[3])), keys
for r in rows:
    over = float(r["over_oracle_pct"])
    assert over == 0 if r["governor"] == "oracle" else over >= 0, r
    assert int(r["intervals"]) > 700 and int(r["qos_violations"]) == 0, r
    assert r["residency_pct"].count(":") == (3 if r["platform"] == "laptop" else 2), r
    if r["qos_ns"] == "20000":
        assert int(r["max_added_latency_ns"]) <= 20000, r' "$tsw/a.csv" "$grow"; then ok; else
	bad "sweep: rows, order, oracle floor"; fi
# the residency column splits the same whatever the state names
printf 'platform q\nstate "A;B:C%%" latency_us=1 residency_us=2 power_mw=5 flags=time-valid\nstate C2 latency_us=5 residency_us=10 power_mw=1 flags=time-valid\n' >"$tsw/q.platform"
if "$cli" sweep -p "$tsw/q.platform" -g menu "$tsw/io.ivf" | python3 -c '
import csv,sys
r = list(csv.DictReader(sys.stdin))[0]
names = [f.rsplit(":", 1)[0] for f in r["residency_pct"].split(";")]
assert names == ["A%3BB%3AC%25", "C2"], r["residency_pct"]'; then ok; else
	bad "sweep: residency with ; : and % in a state name"; fi
# the same bytes whatever the number of threads; JSON lines hold the same runs
if "$cli" sweep -j 1 -g menu,haltpoll -p haltpoll-vm,spr --qos trace,0,50 -s "$grow=2,4" \
	-s module/haltpoll/parameters/guest_halt_poll_shrink=1,2 "$tsw/io.ivf" >"$tsw/j1" &&
   "$cli" sweep -j 4 -g menu,haltpoll -p haltpoll-vm,spr --qos trace,0,50 -s "$grow=2,4" \
	-s module/haltpoll/parameters/guest_halt_poll_shrink=1,2 "$tsw/io.ivf" >"$tsw/j4" &&
   cmp -s "$tsw/j1" "$tsw/j4" && [ "$(wc -l <"$tsw/j1")" -eq $((2 * 2 * 3 * 4 + 1)) ]; then ok; else
	bad "sweep: -j 1 and -j 4 differ"; fi
if "$cli" sweep --json -j 3 -g menu,haltpoll -p haltpoll-vm,spr --qos trace,0,50 -s "$grow=2,4" \
	-s module/haltpoll/parameters/guest_halt_poll_shrink=1,2 "$tsw/io.ivf" | python3 -c '
import csv, json, sys
rows = [json.loads(l) for l in sys.stdin]
want = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == len(want) == 48, len(rows)
for j, c in zip(rows, want):
    assert j["governor"] == c["governor"] and j["entries"] == int(c["entries"]), (j, c)
    assert (j["qos_ns"] is None) == (c["qos_ns"] == ""), (j, c)
    assert j["qos_ns"] is None or j["qos_ns"] == int(c["qos_ns"]), (j, c)
    assert "%.3f" % j["energy_mj"] == c["energy_mj"], (j, c)
    assert j["settings"][sys.argv[2]] == c[sys.argv[2]], (j, c)' "$tsw/j1" "$grow"; then ok; else
	bad "sweep --json"; fi
# a tunable changes haltpoll's runs and no other governor's
if "$cli" sweep -g haltpoll,menu -p haltpoll-vm \
	-s module/haltpoll/parameters/guest_halt_poll_ns=0,50000,400000 "$trace" | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
col = "module/haltpoll/parameters/guest_halt_poll_ns"
hp = {r[col]: r["energy_mj"] + r["entries"] for r in rows if r["governor"] == "haltpoll"}
menu = {r["energy_mj"] + r["entries"] for r in rows if r["governor"] == "menu"}
assert len(hp) == 3 and len(set(hp.values())) == 3, hp
assert len(menu) == 1, menu'; then ok; else bad "sweep: haltpoll tunable"; fi
# the same numbers as sim; without a trace, the bundled one on every platform
if "$cli" sweep -g menu,oracle -p laptop "$trace" | python3 -c '
import csv, json, subprocess, sys
rows = {r["governor"]: r for r in csv.DictReader(sys.stdin)}
sim = json.loads(subprocess.check_output([sys.argv[1], "sim", "-p", "laptop", "-g", "menu,oracle",
	"--json", sys.argv[2]]))
for run in sim["runs"]:
    r = rows[run["governor"]]
    assert "%.3f" % run["energy_mj"] == r["energy_mj"] and run["entries"] == int(r["entries"]), r' \
	"$cli" "$trace"; then ok; else bad "sweep vs sim"; fi
if [ "$("$cli" sweep -g menu --no-oracle | awk -F, 'NR > 1 && $11 == ""' | wc -l)" -eq \
     "$("$cli" platform list | wc -l)" ]; then ok; else bad "sweep: default trace and platforms"; fi
if "$cli" sweep --help | grep -q -- "--qos LIST"; then ok; else bad "sweep --help"; fi
# bad input: a message, exit 1, before any run
printf '         swapper     0 [002]  10.000000000:    power:cpu_idle: state=1 cpu_id=2\n%s\n%s\n' \
	'         swapper     0 [002]  10.001000000:    power:cpu_idle: state=4294967295 cpu_id=2' \
	'         swapper     0 [002]  10.002000000:    power:cpu_idle: state=1 cpu_id=2' >"$tsw/cpu2.txt"
expect_fail "sweep unknown governor" "unknown governor 'nosuch'" sweep -g menu,nosuch
expect_fail "sweep empty item" "-g: an empty item" sweep -g menu,,teo
expect_fail "sweep governor twice" "'menu' listed twice" sweep -g menu,menu
expect_fail "sweep unknown platform" "nosuch" sweep -p laptop,nosuch
expect_fail "sweep bad qos" "--qos wants" sweep --qos trace,5x
expect_fail "sweep negative qos" "--qos wants" sweep --qos -1
expect_fail "sweep bad jobs" "-j wants" sweep -j 0
expect_fail "sweep -s without =" "PATH=VALUE" sweep -s "$grow"
expect_fail "sweep -s unknown path" "module/haltpoll/parameters/nosuch=1.*No such file" \
	sweep -s module/haltpoll/parameters/nosuch=1 "$tsw/io.ivf"
expect_fail "sweep -s bad value" "$grow=x'.*Invalid argument" sweep -s "$grow=2,x" "$tsw/io.ivf"
expect_fail "sweep -s empty value" "an empty item" sweep -s "$grow=2,"
expect_fail "sweep -s twice" "given twice" sweep -s "$grow=2" -s "$grow=4"
expect_fail "sweep -s governor" "choose governors with -g" sweep -s cpuidle/current_governor=menu
expect_fail "sim -s governor" "choose governors with -g" \
	sim -g oracle -s cpuidle/current_governor=menu
expect_fail "fidelity -s governor" "choose governors with -g" \
	fidelity -g menu -s cpuidle/current_governor=teo "$src/traces/io-menu.perf.txt.xz"
expect_fail "sweep -s CPU the trace lacks" "cpu5/cpuidle/state1/disable=1.*No such file" \
	sweep -s cpu5/cpuidle/state1/disable=1 "$tsw/io.ivf"
expect_fail "sweep missing trace" "nosuch.trace: No such file" sweep ./nosuch.trace
expect_fail "sweep not a trace" "not a trace" sweep "$src/README.md"
cp "$tsw/io.ivf" "$tsw/corrupt.ivf"
printf 'XXXX' | dd of="$tsw/corrupt.ivf" bs=1 seek=5000 conv=notrunc 2>/dev/null
expect_fail "sweep corrupt ivf" "corrupt.ivf: offset" sweep "$tsw/corrupt.ivf"
expect_fail "sweep platform too small" "haltpoll-vm cannot replay .*cpu2.txt (3 CPUs)" \
	sweep -p haltpoll-vm "$tsw/cpu2.txt"
expect_fail "sweep unwritable output" "/nonexistent/x" sweep -o /nonexistent/x
if "$cli" sweep -g menu -p haltpoll-vm "$tsw/cpu2.txt" -o "$tsw/out.csv" 2>/dev/null ||
   [ -e "$tsw/out.csv" ]; then bad "sweep: a failed sweep leaves its output"; else ok; fi
rm -rf "$tsw"

# --report: one self-contained HTML file that an XML parser accepts (the
# script in CDATA), every governor and the oracle in each chart, the same
# bytes twice, the other output unchanged; names escaped; bad input: a
# message, exit 1, no file left.  (tests/report_test.py opens it in Chromium.)
trp=$(mktemp -d)
trace="$src/traces/io-menu.perf.txt.xz"
odd="$trp/io <b>&\"'.perf.txt.xz"
cp "$trace" "$odd"
if "$cli" sim -p laptop --json --report "$trp/a.html" "$odd" >"$trp/a.json" &&
   "$cli" sim -p laptop --json "$odd" | cmp -s - "$trp/a.json" &&
   "$cli" sim -p laptop --json --report "$trp/b.html" "$odd" >/dev/null &&
   cmp -s "$trp/a.html" "$trp/b.html" &&
   GOVS=$govs python3 -c '
import os, sys, xml.etree.ElementTree as ET
page = ET.parse(sys.argv[1]).getroot()
els = list(page.iter())
govs = set(os.environ["GOVS"].split(","))
def where(cls):
    return [e for e in els if cls in e.get("class", "").split()]
assert {e.get("data-governor") for e in where("pt")} == govs, "scatter"
assert {e.get("data-governor") for e in where("bar")} == govs, "residency"
assert len(where("hbar")) > 5 and len(where("target")) == 3, "histogram"
rows = [e.get("data-name") for e in where("row")]
assert rows[0] == "true idle" and set(rows[1:]) == govs, rows
assert all(e.get("data-segs") for e in where("row")), "timeline data"
title = [e for e in els if e.tag == "title"][0].text
assert title.endswith("io <b>&\"\x27.perf.txt.xz"), title
raw = open(sys.argv[1]).read()
assert "<b>" not in raw and "&\"" not in raw, "unescaped"
assert "http:" not in raw.replace("http://www.w3.org/2000/svg", "") and "https:" not in raw
' "$trp/a.html"; then ok; else bad "sim --report"; fi
# the tee: --log-decisions writes the same with --report
if "$cli" sim -g menu -p laptop --log-decisions "$trp/log1" "$trace" >/dev/null &&
   "$cli" sim -g menu -p laptop --log-decisions "$trp/log2" --report "$trp/c.html" \
	--report-intervals 50 "$trace" >/dev/null &&
   cmp -s "$trp/log1" "$trp/log2" && [ -s "$trp/c.html" ]; then ok; else
	bad "--report with --log-decisions"; fi
# a synthetic pattern, another CPU; a sweep over two platforms
if "$cli" sim -n 300 --nr-cpus 2 --report "$trp/p.html" --report-cpu 1 >/dev/null &&
   grep -q 'CPU 1 of pattern mixed' "$trp/p.html"; then ok; else bad "sim --report, pattern"; fi
if "$cli" sweep -g menu,teo -p laptop,skylake -o "$trp/s.csv" --report "$trp/s.html" "$trace" &&
   python3 -c '
import sys, xml.etree.ElementTree as ET
els = list(ET.parse(sys.argv[1]).getroot().iter())
pts = [(e.get("data-platform"), e.get("data-governor")) for e in els if e.get("class") == "pt"]
assert pts == [(p, g) for p in ("laptop", "skylake") for g in ("menu", "teo")], pts
' "$trp/s.html"; then ok; else bad "sweep --report"; fi
expect_fail "--report unwritable" "--report /nonexistent/x.html: No such file" \
	sim -n 100 --report /nonexistent/x.html
expect_fail "--report a directory" "Is a directory" sim -n 100 --report "$trp"
expect_fail "--report -" "--report wants a file name" sim -n 100 --report -
expect_fail "--report-cpu without --report" "go with --report" sim -n 100 --report-cpu 1
expect_fail "--report-cpu bad" "--report-cpu wants" sim -n 100 --report "$trp/x.html" \
	--report-cpu x
expect_fail "--report-cpu beyond the trace" "--report-cpu 3: .* has CPUs 0 to 1" \
	sim --report "$trp/x.html" --report-cpu 3 "$trace"
expect_fail "--report-intervals 0" "--report-intervals wants 1..100000" \
	sim -n 100 --report "$trp/x.html" --report-intervals 0
expect_fail "sweep --report unwritable" "--report /nonexistent/x.html" \
	sweep -g menu -p laptop --report /nonexistent/x.html "$trace"
if [ -e "$trp/x.html" ]; then bad "a failed --report leaves its file"; else ok; fi
"$cli" sim --report "$trp/y.html" "$trp/nosuch.trace" 2>/dev/null
if [ -e "$trp/y.html" ]; then bad "a failed sim leaves its report"; else ok; fi
rm -rf "$trp"

# conformance: every built-in governor keeps the rules (the kernel's ports
# included); the same seed gives the same report; --json parses and agrees;
# bad input: a message, exit 1.
if out=$("$cli" conformance -g menu) &&
   [ "$(printf '%s\n' "$out" | grep -c '^menu .* PASS ')" = 7 ] &&
   printf '%s\n' "$out" | tail -n 1 | grep -qx "1 of 1 governors pass every check"; then ok; else
	bad "conformance -g menu: rc=$? $out"; fi
ngov=$("$cli" governors | wc -l)
if out=$("$cli" conformance -n 3000 --seed 5) &&
   [ "$(printf '%s\n' "$out" | grep -c ' FAIL ')" = 0 ] &&
   printf '%s\n' "$out" | tail -n 1 | grep -qx "$ngov of $ngov governors pass every check"; then
	ok; else bad "conformance: every built-in governor passes: $(printf '%s\n' "$out" | grep -v ' PASS ')"; fi
if [ "$("$cli" conformance -g ladder,haltpoll -n 3000 --seed 9)" = \
     "$("$cli" conformance -g ladder,haltpoll -n 3000 --seed 9)" ]; then ok; else
	bad "conformance: same seed, different report"; fi
if "$cli" conformance -g menu -d poll | grep -q '^menu  *qos0  *SKIP  never applied'; then ok; else
	bad "conformance -d poll: qos0 never applies to a single state"; fi
cj="conformance --json -g ladder,haltpoll -d 4-state,10-state -n 2000"
if "$cli" $cj | python3 -m json.tool >/dev/null && "$cli" $cj | python3 -c '
import json,sys
d=json.load(sys.stdin)
assert d["passed"] is True and d["entries"] == 2000, d
assert d["shapes"] == ["4-state", "10-state"], d["shapes"]
assert [g["governor"] for g in d["governors"]] == ["ladder", "haltpoll"], d
for g in d["governors"]:
    assert g["passed"] and len(g["checks"]) == 7, g
    for c in g["checks"]:
        assert c["passed"] and c["failures"] == 0 and c["message"] is None, c
    assert {c["check"]: c["checked"] for c in g["checks"]}["qos"] > 0, g'; then ok; else
	bad "conformance --json"; fi
# --csv: a row per governor and check, the JSON's names and values
if "$cli" $cj >"$tmp/conf.json" && "$cli" conformance --csv -g ladder,haltpoll -d 4-state,10-state \
	-n 2000 >"$tmp/conf.csv" && python3 - "$tmp/conf.json" "$tmp/conf.csv" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
want = [(g, c) for g in d["governors"] for c in g["checks"]]
assert len(rows) == len(want) == 14, rows
for r, (g, c) in zip(rows, want):
    assert int(r["seed"]) == d["seed"] and r["governor"] == g["governor"], (r, g)
    assert int(r["entries"]) == g["entries"], (r, g)
    for k in ("check", "checked_unit"):
        assert r[k] == c[k], (k, r, c)
    for k in ("checked", "failures"):
        assert int(r[k]) == c[k], (k, r, c)
    assert r["passed"] == str(int(c["passed"])) and r["message"] == (c["message"] or ""), (r, c)
PY
then ok; else bad "conformance --csv against --json"; fi
if "$cli" conformance --help | grep -q '^  qos0 '; then ok; else bad "conformance --help"; fi
expect_fail "conformance oracle" "'oracle' is the lab's clairvoyant floor, not a governor" \
	conformance -g oracle
expect_fail "conformance unknown governor" "unknown governor 'nosuch'" conformance -g menu,nosuch
expect_fail "conformance empty governor list" "-g: an empty item in the list" conformance -g ,
expect_fail "conformance unknown shape" "unknown driver shape 'nosuch'" conformance -d poll,nosuch
expect_fail "conformance zero entries" "--entries wants 1..10000000, not '0'" conformance -n 0
expect_fail "conformance too many entries" "--entries wants" conformance -n 10000001
expect_fail "conformance bad seed" "--seed wants a positive integer, not '0'" conformance --seed 0
expect_fail "conformance stray argument" "unexpected argument 'x'" conformance -g menu x

# sim -s writes an attribute first, as sweep and fidelity do: haltpoll with
# no polling window never polls, with the default one it does
if a=$("$cli" sim --json -p haltpoll-vm -g haltpoll "$src/traces/io-menu.perf.txt.xz" 2>/dev/null) &&
   b=$("$cli" sim --json -p haltpoll-vm -g haltpoll \
	-s module/haltpoll/parameters/guest_halt_poll_ns=0 "$src/traces/io-menu.perf.txt.xz" 2>/dev/null) &&
   python3 -c '
import json, sys
a, b = (json.loads(x)["runs"][0] for x in sys.argv[1:])
assert a["states"][0]["usage"] > 50, a
assert b["states"][0]["usage"] == 0, b' "$a" "$b"; then ok; else bad "sim -s"; fi
expect_fail "sim -s without =" "-s 'nosuch': PATH=VALUE expected" sim -s nosuch
expect_fail "sim -s bad value" "guest_halt_poll_ns=-1" sim \
	-s module/haltpoll/parameters/guest_halt_poll_ns=-1
# a platform whose states have no power says so, and how to give it
CPUIDLE_SYSFS_ROOT="$src/tests/fixtures/sysfs-haltpoll" "$cli" platform --from-host \
	>"${TMPDIR:-/tmp}/cli-test-host.$$.platform" 2>/dev/null
if err=$("$cli" sim -g menu -p "${TMPDIR:-/tmp}/cli-test-host.$$.platform" \
	"$src/traces/io-menu.perf.txt.xz" 2>&1 >/dev/null) &&
   printf '%s' "$err" | grep -q "gives no power for states POLL, haltpoll idle" &&
   printf '%s' "$err" | grep -q "model_power_mw in ${TMPDIR:-/tmp}/cli-test-host.$$.platform" &&
   ! "$cli" sim -g menu -p haltpoll-vm "$src/traces/io-menu.perf.txt.xz" 2>&1 >/dev/null |
	grep -q "gives no power"; then ok; else bad "sim: power unknown note: $err"; fi
rm -f "${TMPDIR:-/tmp}/cli-test-host.$$.platform"

# cluster rows against idlestat's own: tests/fixtures/both-idle.idlestat.xz
# was written on this project's haltpoll guest by "idlestat --trace -f FILE
# -t 3 -c -w -- sh -c '(sleep loop of 3 ms) & (sleep loop of 7 ms); wait'"
# (idlestat 0.8, Debian 12), both CPUs idling; the report beside it is what
# idlestat printed.  Every row (clusterA, cpu0, cpu1) agrees: hits exactly,
# the times to idlestat's rounding.
if "$cli" stats --json "$src/tests/fixtures/both-idle.idlestat.xz" | python3 -c '
import json, re, sys
d = json.load(sys.stdin)
report = open(sys.argv[1]).read()
table = report[report.index("| C-state"):report.index("| IRQ")]
rows = re.findall(r"\|\s*(clusterA|cpu\d+)\s*\|.*?\n-+\n((?:\|.*\n)+?)-+", table)
def us(v):
    n = float(re.sub("[a-z]+", "", v))
    return n * {"us": 1, "ms": 1e3, "s": 1e6}[re.sub("[0-9.]", "", v)]
def close(ours_ns, theirs, v):
    # idlestat prints 3 significant digits: within half its last digit
    digits = len(re.sub("[^0-9]", "", v).lstrip("0")) or 1
    step = 10 ** (len(str(int(us(v)))) - digits) if us(v) >= 1 else 1
    return abs(ours_ns / 1e3 - us(v)) <= max(step / 2, 0.5) + 0.01 * us(v)
names = set()
for name, body in rows:
    f = [x.strip() for x in body.splitlines()[0].strip("|").split("|")]
    mn, mx, avg, total, hits = f[1], f[2], f[3], f[4], int(f[5])
    if name.startswith("cluster"):
        states = [c for c in d["clusters"] if c["name"] == name][0]["states"]
    else:
        states = [c for c in d["cpus"] if c["cpu"] == int(name[3:])][0]["states"]
    st = max(states, key=lambda s: s["usage"])
    assert st["usage"] == hits, (name, st, hits)
    for ours, theirs in ((st["min_ns"], mn), (st["max_ns"], mx), (st["avg_ns"], avg),
                         (st["time_ns"], total)):
        assert close(ours, theirs, theirs), (name, ours, theirs)
    names.add(name)
assert names == {"clusterA", "cpu0", "cpu1"}, names' "$src/tests/fixtures/both-idle.idlestat-report.txt"
then ok; else bad "stats: cluster and CPU rows against idlestat's report"; fi
# wake-ups against idlestat's (-w): the fixture's report lists, per CPU, the
# interrupts that ended idle periods; stats -w gives the same counts
# (tests/idlestat_compare.py reads the report)
if "$cli" stats --json -w "$src/tests/fixtures/both-idle.idlestat.xz" >"$tmp/wake.json" &&
   python3 "$src/tests/idlestat_compare.py" "$src/tests/fixtures/both-idle.idlestat-report.txt" \
	"$tmp/wake.json" --wakeups --min-rows 3 >"$tmp/cmp.out" 2>&1
then ok; else bad "stats -w against idlestat's report: $(cat "$tmp/cmp.out")"; fi
# the tables beside the C-states: only on request; the CSV one table whose
# rows say which (a column 'table'), its C-state rows as without -w/-f; the
# JSON's CPUs with 'wakeups' and 'frequencies'; the text's sections
bi="$src/tests/fixtures/both-idle.idlestat.xz"
if "$cli" stats --csv "$bi" >"$tmp/plain.csv" && "$cli" stats --csv -w -f "$bi" >"$tmp/wf.csv" &&
   "$cli" stats --json "$bi" >"$tmp/plain.json" && "$cli" stats --json -w -f "$bi" >"$tmp/wf.json" &&
   "$cli" stats -w -f "$bi" >"$tmp/wf.txt" && python3 -c '
import csv, json, sys
d = sys.argv[1]
plain = list(csv.reader(open(d + "/plain.csv")))
wf = list(csv.reader(open(d + "/wf.csv")))
assert wf[0] == plain[0] + ["table", "wake", "irq", "irq_name", "early", "late", "khz"], wf[0]
assert all(len(r) == len(wf[0]) for r in wf), [r for r in wf if len(r) != len(wf[0])]
rows = [dict(zip(wf[0], r)) for r in wf[1:]]
assert {r["table"] for r in rows} == {"cstate", "wakeup", "frequency"}, rows
cstate = [r[:11] for r in wf[1:] if r[11] == "cstate"]
assert cstate == plain[1:], "the C-state rows differ with -w -f"
j, jp = json.load(open(d + "/wf.json")), json.load(open(d + "/plain.json"))
assert "wakeups" not in json.dumps(jp) and "frequencies" not in json.dumps(jp)
for c in j["cpus"]:
    w = [r for r in rows if r["table"] == "wakeup" and int(r["cpu"]) == c["cpu"]]
    assert [(x["wake"], x["irq"] or None, int(x["usage"])) for x in w] == \
        [(x["wake"], str(x["irq"]) if x["irq"] is not None else None, x["count"])
         for x in c["wakeups"]], (w, c["wakeups"])
    f = [r for r in rows if r["table"] == "frequency" and int(r["cpu"]) == c["cpu"]]
    assert [(int(x["khz"]), int(x["usage"]), int(x["time_ns"])) for x in f] == \
        [(x["khz"], x["usage"], x["time_ns"]) for x in c["frequencies"]], (f, c)
    # each idle period of a CPU ended once: its hits, and at most one
    # still idle at the end, one the trace began in
    hits = sum(s["usage"] for s in c["states"])
    assert hits - 1 <= sum(x["count"] for x in c["wakeups"]) <= hits + 1, c
    assert all(x["early"] is None and x["late"] is None for x in c["wakeups"]), c
text = open(d + "/wf.txt").read()
assert "cpu1 wake-ups: what ended its idle periods" in text, text
assert "cpu0 frequencies: time at each while running" in text, text
assert text.index("frequencies:") < text.index("wake-ups:"), text' "$tmp"
then ok; else bad "stats -w -f: CSV, JSON and text tables"; fi
# asked for, but the trace has none: said on stderr, status 0
if err=$("$cli" stats -f "$trace" 2>&1 >/dev/null) &&
   printf '%s' "$err" | grep -q "no frequency changes (power:cpu_frequency) in the trace"
then ok; else bad "stats -f without frequency events: $err"; fi
if "$cli" stats --help | grep -q -- "-w, --wakeups" && "$cli" stats --help | grep -q -- "-f, --frequencies"
then ok; else bad "stats --help: -w and -f"; fi
# without a topology or -p, the machine is one cluster, named "all"
if "$cli" stats "$src/traces/mixed-nodriver.perf.txt.xz" 2>/dev/null | grep -q "^all (cpus 0-1): every CPU idle"
then ok; else bad "stats: the machine as one cluster"; fi

# usage errors exit 2, for every command; "help CMD" is "CMD --help"
for c in $("$cli" --help | awk '/^  [a-z]/ {print $1}'); do
	out=$("$cli" "$c" --no-such-option 2>"$tmp/usage.err"); rc=$?
	if [ $rc -eq 2 ] && [ -z "$out" ] && grep -q "usage: cpuidle $c" "$tmp/usage.err"; then ok; else
		bad "$c --no-such-option: rc=$rc, $(head -1 "$tmp/usage.err")"; fi
	if [ "$("$cli" help "$c")" = "$("$cli" "$c" --help)" ] &&
	   "$cli" help "$c" | grep -q "usage: cpuidle $c"; then ok; else
		bad "help $c differs from $c --help"; fi
done
"$cli" no-such-command 2>/dev/null; rc=$?
[ $rc -eq 2 ] && ok || bad "no such command: rc=$rc"
"$cli" 2>/dev/null; rc=$?
[ $rc -eq 2 ] && ok || bad "no command: rc=$rc"

# Governors by kernel release (NAME@RELEASE): listed after the built-in
# ones; the plain names are the 6.18 ports, so NAME@6.18's replay is NAME's
# with the name changed; 7.1's is another; a release not ported is refused
# naming those that are.
out=$("$cli" governors)
if printf '%s\n' "$out" | awk '{print $1}' | tail -n 4 | tr '\n' ' ' |
   grep -qx "menu@6.18 menu@7.1 teo@6.18 teo@7.1 " &&
   printf '%s\n' "$out" | grep -q '^teo@6.18 *rating 19  (the same as teo)$' &&
   printf '%s\n' "$out" | grep -q '^menu@7.1 *rating 20$'; then ok; else
	bad "governors lists the ports by release: $out"; fi
bundled="$src/traces/io-menu.perf.txt.xz"
for g in teo menu; do
	a=$("$cli" sim --csv -g $g "$bundled" 2>/dev/null)
	b=$("$cli" sim --csv -g $g@6.18 "$bundled" 2>/dev/null)
	c=$("$cli" sim --csv -g $g@7.1 "$bundled" 2>/dev/null)
	if [ -n "$a" ] && [ "$(printf '%s\n' "$b" | sed "s/^$g@6.18,/$g,/")" = "$a" ] &&
	   [ "$(printf '%s\n' "$b" | grep -c "^$g@6.18,")" -gt 0 ] &&
	   [ "$(printf '%s\n' "$c" | grep -c "^$g@7.1,")" -gt 0 ]; then ok; else
		bad "sim -g $g@6.18 is sim -g $g renamed, $g@7.1 runs"; fi
done
# teo@7.1 decides otherwise than teo on the bundled trace (its entries differ)
if [ "$("$cli" sim --json -g teo,teo@7.1 "$bundled" 2>/dev/null | python3 -c '
import json,sys
r = {x["governor"]: x["entries"] for x in json.load(sys.stdin)["runs"]}
print(r["teo"] != r["teo@7.1"])')" = True ]; then ok; else bad "teo@7.1 decides as teo"; fi
expect_fail "sim -g teo@9.9" \
	"unknown governor 'teo@9.9': the releases of teo known here are teo@6.18 (= teo), teo@7.1" \
	sim -g teo@9.9 "$bundled"
expect_fail "sweep -g menu@5.4" "the releases of menu known here are menu@6.18 (= menu), menu@7.1" \
	sweep -g menu,menu@5.4 "$bundled"
expect_fail "conformance -g teo@1" "the releases of teo known here" conformance -g teo@1
expect_fail "sim -g ladder@6.18" "unknown governor 'ladder@6.18' (see" sim -g ladder@6.18 "$bundled"
if out=$("$cli" sweep --csv --no-oracle -p laptop -g teo@6.18,teo@7.1,menu@6.18,menu@7.1 "$bundled" \
	 2>/dev/null) && [ "$(printf '%s\n' "$out" | grep -c ',teo@7.1,\|,menu@7.1,\|,teo@6.18,\|,menu@6.18,')" = 4 ]
then ok; else bad "sweep -g NAME@RELEASE: $out"; fi
if out=$("$cli" conformance -g teo@7.1,menu@7.1 -n 3000) &&
   printf '%s\n' "$out" | tail -n 1 | grep -qx "2 of 2 governors pass every check"; then ok; else
	bad "conformance -g teo@7.1,menu@7.1: $out"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
