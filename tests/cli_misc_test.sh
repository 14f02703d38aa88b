#!/bin/sh
# cli_misc_test.sh CPUIDLE - what every command owes its caller: a failed
# write to stdout is an error, every message carries "cpuidle COMMAND: ",
# every command and sub-command has -h/--help; and the outputs of stats,
# fidelity, platform show, info and conformance (quoting, unknown values,
# warnings, arguments checked before any output).
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trace=$src/traces/io-menu.perf.txt.xz
fx=$src/tests/fixtures
# the host commands read fake trees, never the real host
export CPUIDLE_SYSFS_ROOT="$fx/sysfs-haltpoll"
printf '\000\000\000\000' >"$tmp/qosdev"
export CPUIDLE_QOS_DEVICE="$tmp/qosdev"

# The recording VM's CPU 1 logs no power:cpu_idle at all: every command on
# its traces warns about it (tested in cli_test.sh); the checks of other
# messages here leave that warning out.
IDLE_LESS='has events but no idle entry or exit (power:cpu_idle)'
drop_idle_less() {
	printf '%s\n' "$1" | grep -v -F "$IDLE_LESS"
}

# --- a failed write to stdout ---------------------------------------------
# expect_full CMD ARGS...: rc 1 and "cpuidle CMD: stdout: No space left on device"
expect_full() {
	err=$("$cli" "$@" 2>&1 >/dev/full)
	rc=$?
	err=$(drop_idle_less "$err")
	want="cpuidle $1: stdout: No space left on device"
	[ "$1" = --help ] || [ "$1" = --version ] && want="cpuidle: stdout: No space left on device"
	if [ $rc -eq 1 ] && [ "$err" = "$want" ]; then ok; else
		bad "$* >/dev/full: rc=$rc stderr='$err'"; fi
}
if [ -w /dev/full ]; then
	expect_full sim -n 300
	expect_full sim -n 300 --json
	expect_full sim -n 300 --csv
	expect_full stats "$trace"
	expect_full stats --json "$trace"
	expect_full stats --csv "$trace"
	expect_full fidelity "$trace"
	expect_full fidelity --json "$trace" "$trace"
	expect_full platform show laptop
	expect_full platform show --json juno-r2
	expect_full platform list
	expect_full platform cat laptop
	expect_full platform --from-host
	expect_full governors
	expect_full conformance -g menu -n 300
	expect_full conformance --json -g menu -n 300
	expect_full info
	expect_full info --json
	expect_full qos show
	expect_full qos show --json
	expect_full sweep -g menu -p laptop "$trace"
	expect_full convert "$trace" --csv
	expect_full convert "$trace" -o "$tmp/io.ivf"
	expect_full sim --help
	expect_full --help
	expect_full --version
else
	echo "skipping the /dev/full checks: no writable /dev/full"
fi
# a reader that went away: death by SIGPIPE, as for any filter; with SIGPIPE
# ignored, status 1 and no message (as convert --csv)
if python3 - "$cli" "$trace" <<'PY'; then ok; else bad "stdout to a closed pipe"; fi
import os, signal, subprocess, sys
cli, trace = sys.argv[1], sys.argv[2]
for args in (["platform", "list"], ["stats", "--csv", trace], ["governors"],
             ["sim", "-n", "300", "--json"], ["convert", trace, "--csv"]):
    for ignored in (False, True):
        r, w = os.pipe()
        os.close(r)
        # Python ignores SIGPIPE itself: restore_signals=False passes that on
        p = subprocess.run([cli] + args, stdout=w, stderr=subprocess.PIPE,
                           restore_signals=not ignored)
        os.close(w)
        want = 1 if ignored else -signal.SIGPIPE
        stderr = b"".join(l for l in p.stderr.splitlines(True)
                          if b"has events but no idle entry or exit" not in l)
        assert p.returncode == want and not stderr, (args, ignored, p.returncode, p.stderr)
PY

# --- getopt's messages carry the prefix -------------------------------------
expect_fail "sim --bogus" "^cpuidle sim: unrecognized option '--bogus'" sim --bogus
expect_fail "set -x" "^cpuidle set: invalid option -- 'x'" set -x
for c in sweep stats fidelity conformance info monitor record; do
	expect_fail "$c --bogus" "^cpuidle $c: unrecognized option '--bogus'" $c --bogus
done
expect_fail "stats -p without argument" "^cpuidle stats: option requires an argument -- 'p'" stats -p
expect_fail "platform show --bogus" "^cpuidle platform show: unrecognized option '--bogus'" \
	platform show --bogus laptop
expect_fail "qos show --bogus" "^cpuidle qos show: unrecognized option '--bogus'" qos show --bogus
expect_fail "convert --bogus" "^cpuidle convert: unrecognized option '--bogus'" convert --bogus

# --- -h and --help: usage on stdout, status 0 ---------------------------------
for args in sim sweep convert stats fidelity platform "platform list" "platform show" \
	    "platform show --json laptop" "platform cat" "platform --from-host" governors \
	    conformance info set qos "qos show" "qos show --json" "qos hold" monitor record; do
	for h in -h --help; do
		# shellcheck disable=SC2086
		out=$("$cli" $args $h 2>"$tmp/help.err")
		rc=$?
		word=${args%% *}
		if [ $rc -eq 0 ] && printf '%s\n' "$out" | head -n 1 | grep -q "^usage: cpuidle $word" &&
		   [ ! -s "$tmp/help.err" ]; then ok; else
			bad "$args $h: rc=$rc $(printf '%s' "$out" | head -n 1) $(cat "$tmp/help.err")"; fi
	done
done
# a command's own -h (after --) is the command's, not ours
# standard error closed: its messages must not land in the QoS device,
# which would read them as a latency
printf '\000\000\000\000' >"$tmp/qosclosed"
CPUIDLE_QOS_DEVICE="$tmp/qosclosed" "$cli" qos hold 5 -- true 2>&-
if [ "$(od -An -tx1 "$tmp/qosclosed" | tr -d ' \n')" = 05000000 ]; then ok; else
	bad "qos hold with stderr closed wrote into the QoS device: $(od -c "$tmp/qosclosed" | head -n 2)"; fi
out=$("$cli" qos hold 5 -- echo -h 2>/dev/null)
if [ "$out" = "-h" ]; then ok; else bad "qos hold 5 -- echo -h: '$out'"; fi

# --- stats: CSV quoting, JSON escaping, unknown above/below --------------------
# idlestat traces (lab/ingest/trace_idlestat.c): one CPU, the states named in the
# header; idlestat_trace NAME1 NAME2 [NAME3]: an entry into each state
idlestat_trace() {
	printf 'idlestat version = 0.8\ncpus=1\nclusterA:\n\tcore0\n\t\tcpu0\ncpuid 0:\n'
	res=0
	for n in "$@"; do
		printf '\t%s\n\t%d\n' "$n" $res
		res=$((res + 1))
	done
	printf '\t(null)\n\t-1\n'
	i=0
	for n in "$@"; do
		printf '          <idle>-0       [000] d..1.   100.%03d000: cpu_idle: state=%d cpu_id=0\n' $i $i
		printf '          <idle>-0       [000] d..1.   100.%03d%03d: cpu_idle: state=4294967295 cpu_id=0\n' \
			$i $((10 + 490 * i))
		i=$((i + 1))
	done
}
# the second state's name has a comma and quotes
idlestat_trace POLL 'C1,"a"' >"$tmp/q.idlestat"
if "$cli" stats --csv "$tmp/q.idlestat" | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["cpu"]]	# the CPU rows, not the cluster rows
assert [r["state_name"] for r in rows] == ["POLL", "C1,\"a\""], rows
assert [r["usage"] for r in rows] == ["1", "1"], rows
assert all(r["above"] == "" and r["below"] == "" for r in rows), rows'; then ok; else
	bad "stats --csv: a name with a comma and quotes"; fi
if "$cli" stats --json "$tmp/q.idlestat" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert [s["name"] for s in d["cpus"][0]["states"]] == ["POLL", "C1,\"a\""], d'; then ok; else
	bad "stats --json: a name with a comma and quotes"; fi
# a trace path with a comma, quotes and a backslash
odd="$tmp/a,b \"q\" \\x.perf.txt.xz"
cp "$trace" "$odd"
if "$cli" stats --json "$odd" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["trace"] == sys.argv[1], d["trace"]' "$odd"; then ok; else
	bad "stats --json: the trace path escaped"; fi
if "$cli" fidelity --json "$tmp/q.idlestat" -g menu 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[0]["trace"] == sys.argv[1] and d[0]["governor"] == "menu", d' "$tmp/q.idlestat"; then ok
else bad "fidelity --json"; fi
# the bundled trace has no cpu_idle_miss events: above/below not known
if "$cli" stats --csv "$trace" | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows and all(r["above"] == "" and r["below"] == "" for r in rows), rows'; then ok; else
	bad "stats --csv: unknown above/below empty"; fi
if "$cli" stats --json "$trace" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["above_below"] == "none", d
st = [s for c in d["cpus"] for s in c["states"]]
assert st and all(s["above"] is None and s["below"] is None for s in st), st'; then ok; else
	bad "stats --json: unknown above/below null"; fi
if "$cli" stats "$trace" | grep -Eq '^  state1 .* [0-9]+ +- +-$'; then ok; else
	bad "stats: unknown above/below shown as -"; fi
# fidelity --csv: a row per trace with the JSON's names and values; not with --json
if "$cli" fidelity -q --csv "$trace" >"$tmp/fid.csv" 2>/dev/null &&
	"$cli" fidelity -q --json "$trace" >"$tmp/fid.json" 2>/dev/null &&
	python3 - "$tmp/fid.csv" "$tmp/fid.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
objs = json.load(open(sys.argv[2]))
assert len(rows) == len(objs) == 1, (rows, objs)
for r, o in zip(rows, objs):
    assert list(r) == list(o), (list(r), list(o))
    for k, v in o.items():
        assert r[k] == str(v), (k, r[k], v)
PY
then ok; else bad "fidelity --csv against --json"; fi
out=$("$cli" fidelity --csv --json "$trace" 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ]; then ok; else bad "fidelity --csv --json: rc=$rc"; fi

# --report: the page written, its output the same as without; onto the trace refused
if "$cli" stats --report "$tmp/stats.html" "$trace" >"$tmp/with.txt" 2>/dev/null &&
	"$cli" stats "$trace" >"$tmp/without.txt" 2>/dev/null &&
	cmp -s "$tmp/with.txt" "$tmp/without.txt" && grep -q 'class="stay"' "$tmp/stats.html" &&
	grep -q '<svg class="chart stays"' "$tmp/stats.html"; then ok; else
	bad "stats --report"; fi
cp "$trace" "$tmp/own.perf.txt.xz"
out=$("$cli" stats --report "$tmp/own.perf.txt.xz" "$tmp/own.perf.txt.xz" 2>"$tmp/err"); rc=$?
if [ $rc -ne 0 ] && [ -z "$out" ] && cmp -s "$trace" "$tmp/own.perf.txt.xz"; then ok; else
	bad "stats --report onto its trace: rc=$rc $(cat "$tmp/err")"; fi
# recomputed from a platform: known, numbers
if "$cli" stats --json -p haltpoll-vm "$trace" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["above_below"] == "recomputed", d
st = [s for c in d["cpus"] for s in c["states"]]
assert all(isinstance(s["above"], int) and isinstance(s["below"], int) for s in st), st'; then ok
else bad "stats -p: recomputed above/below are numbers"; fi
# ... but not for a state beyond the platform's table (a third state here)
idlestat_trace POLL 'haltpoll idle' C2 >"$tmp/q3.idlestat"
if "$cli" stats --csv -p haltpoll-vm "$tmp/q3.idlestat" 2>/dev/null | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["cpu"]]
assert [(r["above"], r["below"]) for r in rows] == [("0", "1"), ("0", "0"), ("", "")], rows'; then ok
else bad "stats -p: a state beyond the platform is not judged"; fi

# --- a platform that is not the trace's: a warning, not an error ----------------
# one state: the haltpoll-vm trace enters two
printf 'platform one\ncpus 2\nstate C1 latency_us=1 residency_us=2 power_mw=100\n' \
	>"$tmp/one.platform"
err=$("$cli" stats -p "$tmp/one.platform" "$trace" 2>&1 >/dev/null)
if [ $? -eq 0 ] && printf '%s' "$err" | grep -q "^cpuidle stats: warning: .*the trace enters 2 idle states, platform one has 1"
then ok; else bad "stats -p one on a haltpoll-vm trace: '$err'"; fi
# a platform with more states than the trace enters may be the machine: its
# deepest states unused (laptop has 3), a QoS request that allowed only POLL
for p in haltpoll-vm laptop; do
	err=$("$cli" stats -p $p "$trace" 2>&1 >/dev/null)
	rc=$?
	err=$(drop_idle_less "$err")
	if [ $rc -eq 0 ] && [ -z "$err" ]; then ok; else bad "stats -p $p: '$err'"; fi
done
err=$("$cli" stats -p haltpoll-vm "$fx/qos0-poll-only.perf.txt" 2>&1 >/dev/null)
rc=$?
err=$(drop_idle_less "$err")
if [ $rc -eq 0 ] && [ -z "$err" ]; then ok; else bad "stats -p haltpoll-vm, a trace that enters POLL only: '$err'"; fi
err=$("$cli" stats -p haltpoll-vm "$tmp/q.idlestat" 2>&1 >/dev/null)
if [ $? -eq 0 ] && printf '%s' "$err" | grep -q "warning: .*the trace's state 1 is \"C1,\"a\"\", platform haltpoll-vm's is \"haltpoll idle\""
then ok; else bad "stats -p: another state name: '$err'"; fi
# idlestat cuts "haltpoll idle" at the space: that is the same state
idlestat_trace POLL haltpoll >"$tmp/h.idlestat"
err=$("$cli" stats -p haltpoll-vm "$tmp/h.idlestat" 2>&1 >/dev/null)
if [ $? -eq 0 ] && [ -z "$err" ]; then ok; else bad "stats -p: idlestat's cut name: '$err'"; fi
err=$("$cli" fidelity -p "$tmp/one.platform" "$trace" 2>&1 >/dev/null)
if [ $? -eq 0 ] && printf '%s' "$err" | grep -q "^cpuidle fidelity: warning: .*the trace enters 2 idle states, platform one has 1"
then ok; else bad "fidelity -p one on a haltpoll-vm trace: '$err'"; fi
# a trace of more CPUs than the platform: said so, not "replay failed"
if [ -f "$src/../shared/traces/hardware/juno-lisa/trace.dat.xz" ]; then
	expect_fail "fidelity, a 6-CPU trace on a 2-CPU platform" \
		"trace.dat.xz: the trace has CPUs that platform haltpoll-vm does not (it has 2)" \
		fidelity -g menu "$src/../shared/traces/hardware/juno-lisa/trace.dat.xz"
fi
err=$("$cli" fidelity "$trace" 2>&1 >/dev/null)
rc=$?
err=$(drop_idle_less "$err")
if [ $rc -eq 0 ] && [ -z "$err" ]; then ok; else bad "fidelity on its platform: '$err'"; fi

# --- fidelity: every argument checked before any output --------------------------
# expect_silent DESCRIPTION PATTERN ARGS...: status 1, PATTERN on stderr, nothing on stdout
expect_silent() {
	desc=$1 pat=$2
	shift 2
	out=$("$cli" "$@" 2>"$tmp/silent.err")
	rc=$?
	if [ $rc -eq 1 ] && [ -z "$out" ] && grep -q -- "$pat" "$tmp/silent.err"; then ok; else
		bad "$desc: rc=$rc stdout='$out' stderr='$(cat "$tmp/silent.err")'"; fi
}
expect_silent "fidelity -g oracle" "-g oracle: the lab's clairvoyant floor" fidelity -g oracle "$trace"
expect_silent "fidelity -g menu,teo" "-g 'menu,teo': one governor" fidelity -g menu,teo "$trace"
expect_silent "fidelity --json -g nosuch" "unknown governor 'nosuch'" fidelity --json -g nosuch "$trace"
cp "$trace" "$tmp/noname.perf.txt.xz"
expect_silent "fidelity: a trace without its governor" "noname.perf.txt.xz: which governor" \
	fidelity "$trace" "$tmp/noname.perf.txt.xz"
expect_silent "fidelity: a missing trace" "nosuch-menu.perf.txt.xz: No such file" \
	fidelity "$trace" "$tmp/nosuch-menu.perf.txt.xz"
if "$cli" fidelity --help | grep -q -- "--no-kernel-loop"; then ok; else
	bad "fidelity --help: --no-kernel-loop"; fi

# --- info --json: the resume latency limit as qos show has it --------------------
cp -r "$fx/sysfs-haltpoll" "$tmp/rl"
echo 25 >"$tmp/rl/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us"
for root in "$fx/sysfs-haltpoll" "$fx/sysfs-odd" "$tmp/rl"; do
	if CPUIDLE_SYSFS_ROOT=$root "$cli" info --json >"$tmp/info.json" &&
	   CPUIDLE_SYSFS_ROOT=$root "$cli" qos show --json >"$tmp/qos.json" &&
	   python3 - "$tmp/info.json" "$tmp/qos.json" "$root" <<'PY'; then ok; else bad "info --json resume latency ($root)"; fi
import json, os, sys
info, qos = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
root = sys.argv[3]
want = {c["cpu"]: c["resume_latency_ns"] for c in qos["cpus"]}
got = {c["cpu"]: c["resume_latency_ns"] for c in info["cpus"]}
assert got == want, (got, want)
for cpu, v in got.items():
    text = open("%s/devices/system/cpu/cpu%d/power/pm_qos_resume_latency_us" % (root, cpu)).read().strip()
    # the kernel prints no constraint as "0", a limit of 0 us as "n/a"
    assert v == {"0": None, "n/a": 0}.get(text, int(text) * 1000 if text.isdigit() else "?"), \
        (cpu, text, v)
PY
done

# --- governors --json and --csv: the text's names, ratings and ports -----------------
if "$cli" governors >"$tmp/gov.txt" && "$cli" governors --json >"$tmp/gov.json" &&
   "$cli" governors --csv >"$tmp/gov.csv" && python3 - "$tmp/gov.txt" "$tmp/gov.json" "$tmp/gov.csv" <<'PY'
import csv, json, re, sys
text = [re.match(r"(\S+) +rating (\d+)(?:  \(the same as (\S+)\))?$", l).groups()
        for l in open(sys.argv[1]).read().splitlines()]
j = json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[3])))
assert [(g["name"], str(g["rating"]), g["same_as"]) for g in j] == list(text), (j, text)
assert [(r["name"], r["rating"], r["same_as"] or None) for r in rows] == list(text), rows
assert ("menu@6.18", "20", "menu") in text and ("menu@7.1", "20", None) in text, text
PY
then ok; else bad "governors --json/--csv against the text"; fi
out=$("$cli" governors --csv --json 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ]; then ok; else bad "governors --csv --json: rc=$rc"; fi

# --- platform show --json: the flags' names -------------------------------------
for p in laptop haltpoll-vm juno-r2 skylake; do
	"$cli" platform show "$p" >"$tmp/p.txt"
	if "$cli" platform show --json "$p" | python3 -c '
import json, sys
d = json.load(sys.stdin)
import re
# the flags column follows the energy (E in+out, "...uJ")
text = [m.group(1) for m in (re.match(r"^\d+ .*uJ  (\S+)", l) for l in open(sys.argv[1])) if m]
names = {"time-valid": 1, "check-bm": 2, "polling": 0x10, "shallow": 0x20, "balanced": 0x40,
         "deep": 0x80, "timer-stop": 0x200, "unusable": 0x400, "off": 0x800}
states = [s for c in d["clusters"] for s in c["states"]]
assert len(states) == len(text), (states, text)
for s, t in zip(states, text):
    flags = t
    assert s["flag_names"] == ([] if flags == "-" else flags.split(",")), (s, t)
    assert sum(names[n] for n in s["flag_names"]) == s["flags"], s
for s in d["states"]:
    assert sum(names[n] for n in s["flag_names"]) == s["flags"], s' "$tmp/p.txt"; then ok; else
		bad "platform show --json $p: flag_names"; fi
done
if "$cli" platform show --json haltpoll-vm | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["states"][0]["flag_names"] == ["time-valid", "polling"], d["states"][0]'; then ok; else
	bad "platform show --json haltpoll-vm: POLL polls"; fi

# --- QoS judged against the limit the governor had: a device's resume latency too ---
# cpu0's resume latency "n/a" (0 us): no laptop state meets it, so every
# entry is one no state could meet; no violation
if out=$("$cli" sim --json -g menu -p laptop -s cpu0/power/pm_qos_resume_latency_us=n/a \
	"$trace" 2>/dev/null) && python3 -c '
import json, sys
r = json.loads(sys.argv[1])["runs"][0]
assert r["qos_unmeetable"] == r["entries"] > 700 and r["qos_violations"] == 0, r' "$out"
then ok; else bad "a device resume latency in the QoS counts: $out"; fi

# --- a platform without running power: its energy is the idle states' alone, said ---
"$cli" platform cat laptop | grep -v '^active_power_mw' >"$tmp/norun.platform"
if ! grep -q '^active_power_mw' "$tmp/norun.platform" &&
   "$cli" sim -g menu -p "$tmp/norun.platform" "$trace" 2>"$tmp/err" >/dev/null &&
   grep -q "note: platform laptop gives no running power (active_power_mw) for cluster all: energy counts the idle states" "$tmp/err" &&
   "$cli" sweep -g menu -p "$tmp/norun.platform" "$trace" 2>"$tmp/err" >/dev/null &&
   grep -q "gives no running power" "$tmp/err" &&
   "$cli" sim -g menu -p laptop "$trace" 2>"$tmp/err" >/dev/null &&
   ! grep -q "running power" "$tmp/err"; then ok; else
	bad "a platform without running power: $(cat "$tmp/err")"; fi

# --- platform import: a LISA plat_info.yml ------------------------------------------
# A small board as LISA writes one (python tags, an !!omap, an anchor and
# its alias): two frequency domains of unequal capacity, big first.
cat >"$tmp/pi.yml" <<'YML'
platform-info:
    conf:
        cpu-capacities:
            orig: {0: 400, 1: 1024, 2: 400}
        cpus-count: 3
        freq-domains:
        -   [0, 2]
        -   [1]
        kernel:
            version: !!python/object:devlib.target.KernelVersion
                release: 5.10.0-test
        name: tiny
        nrg-model: !!python/object:lisa.energy_model.EnergyModel
            cpu_nodes:
            - &id001 !!python/object:lisa.energy_model.EnergyModelNode
                active_states: !!omap
                -   500000: !!python/object/new:lisa.energy_model.ActiveState [200.0, 50]
                -   900000: !!python/object/new:lisa.energy_model.ActiveState [400.0, 90]
                cpu: 0
                idle_states: !!omap
                -   WFI: 0
                -   cpu-sleep-0: 0
            - !!python/object:lisa.energy_model.EnergyModelNode
                active_states: !!omap
                -   1100000: [1024.0, 600]
                cpu: 1
                idle_states: !!omap
                -   WFI: 0
                -   cpu-sleep-0: 0
                -   cluster-sleep-0: 0
            - !!python/object:lisa.energy_model.EnergyModelNode
                active_states: !!omap
                -   900000: [400.0, 90]
                cpu: 2
                idle_states: !!omap
                -   WFI: 0
                -   cpu-sleep-0: 0
            - *id001
YML
if "$cli" platform import --states-from juno-r2 "$tmp/pi.yml" >"$tmp/pi.platform" &&
   "$cli" platform show --json "$tmp/pi.platform" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["name"] == "tiny" and d["desc"] == "LISA plat_info of tiny, Linux 5.10.0-test", d
assert d["nr_cpus"] == 3 and d["tick_hz"] == 250, d
big, little = d["clusters"]
assert (big["name"], big["cpus"], big["active_power_mw"]) == ("big", [1], 600), big
assert (little["name"], little["cpus"], little["active_power_mw"]) == ("LITTLE", [0, 2], 90), little
assert [s["name"] for s in big["states"]] == ["WFI", "cpu-sleep-0", "cluster-sleep-0"], big
assert [s["name"] for s in little["states"]] == ["WFI", "cpu-sleep-0"], little
# latencies and the model power from juno-r2 (the energy model gives none)
assert little["states"][1]["exit_latency_ns"] == 1500000, little
assert little["states"][0]["model_power_mw"] == 6 and big["states"][0]["model_power_mw"] == 15, d
assert big["states"][2]["cluster_power_mw"] == 24, big'; then ok; else
	bad "platform import: a small plat_info.yml"; fi
# -o: a file, nothing on stdout; the same bytes
if "$cli" platform import --states-from juno-r2 --name tiny2 -o "$tmp/pi2.platform" "$tmp/pi.yml" >"$tmp/out" &&
   [ ! -s "$tmp/out" ] && grep -q '^platform "tiny2"$' "$tmp/pi2.platform" &&
   "$cli" platform show "$tmp/pi2.platform" >/dev/null; then ok; else bad "platform import -o"; fi
expect_fail "platform import without --states-from" \
	"pi.yml gives no exit latency or target residency for its idle states: name a platform to take them from with --states-from" \
	platform import "$tmp/pi.yml"
printf 'platform-info:\n  conf: [1, 2\n' >"$tmp/bad.yml"
expect_fail "platform import: not YAML" "import: $tmp/bad.yml:[0-9]*: not YAML" \
	platform import --states-from juno-r2 "$tmp/bad.yml"
printf 'a: 1\n' >"$tmp/bad.yml"
expect_fail "platform import: not plat_info" "no platform-info: conf: mapping" \
	platform import --states-from juno-r2 "$tmp/bad.yml"
sed 's/cpu-sleep-0: 0$/deep-sleep: 0/' "$tmp/pi.yml" >"$tmp/bad.yml"
expect_fail "platform import: a state the base lacks" \
	"bad.yml:[0-9]*: state 'deep-sleep' of CPU [0-9]: no state of that name in juno-r2" \
	platform import --states-from juno-r2 "$tmp/bad.yml"
sed 's/-   \[1\]$/-   [1, 2]/' "$tmp/pi.yml" >"$tmp/bad.yml"
expect_fail "platform import: a CPU in two frequency domains" "freq-domains: CPU 2 twice" \
	platform import --states-from juno-r2 "$tmp/bad.yml"
python3 -c 'print("[" * 200 + "]" * 200)' >"$tmp/bad.yml"
expect_fail "platform import: nested too deep" "nested more than 64 levels deep" \
	platform import --states-from juno-r2 "$tmp/bad.yml"
: >"$tmp/bad.yml"
expect_fail "platform import: an empty file" "bad.yml: empty: no YAML document" \
	platform import --states-from juno-r2 "$tmp/bad.yml"
expect_fail "platform import: no such base" "states-from nosuch" \
	platform import --states-from nosuch "$tmp/pi.yml"
if [ ! -e "$tmp/none.platform" ] &&
   ! "$cli" platform import --states-from juno-r2 -o "$tmp/none.platform" "$tmp/bad.yml" \
	2>/dev/null && [ ! -e "$tmp/none.platform" ]; then ok; else
	bad "platform import: a failed import writes nothing"; fi

# --- conformance: nothing listed twice -------------------------------------------
expect_silent "conformance -g menu,menu" "^cpuidle conformance: -g: 'menu' listed twice" \
	conformance -g menu,menu -n 100
expect_silent "conformance -g menu,ladder,menu" "-g: 'menu' listed twice" \
	conformance -g menu,ladder,menu -n 100
expect_silent "conformance -d poll,poll" "^cpuidle conformance: -d: 'poll' listed twice" \
	conformance -g menu -d poll,4-state,poll -n 100
# --- conformance: no empty list or item (-g "" used to check every governor) ---------
for g in "" "," "menu," ",menu" "menu,,ladder"; do
	expect_silent "conformance -g '$g'" "^cpuidle conformance: -g: an empty item in the list" \
		conformance -g "$g" -n 100
done
for d in "" "poll," "poll,,4-state"; do
	expect_silent "conformance -d '$d'" "^cpuidle conformance: -d: an empty item in the list" \
		conformance -g menu -d "$d" -n 100
done

# --- traces that would give wrong figures: refused, corrected or warned about ---
# a short piece of the bundled trace (about 0.4 s, two CPUs, tick expiries)
xz -dc "$trace" | head -n 30000 >"$tmp/piece.perf.txt"
# out of time order beyond the reorder window (a trace appended to itself):
# an error naming the line, in every command, nothing on stdout
cat "$tmp/piece.perf.txt" "$tmp/piece.perf.txt" >"$tmp/dup-menu.perf.txt"
line=$(($(grep -c '' "$tmp/piece.perf.txt") + 1))
while ! sed -n "${line}p" "$tmp/dup-menu.perf.txt" | grep -q -E '(power|irq|irq_vectors|timer|sched):'; do
	line=$((line + 1))
done
for args in "sim -p haltpoll-vm" "stats" "convert --csv" "fidelity" "sweep -g menu -p haltpoll-vm" \
	    "convert -o $tmp/dup.ivf"; do
	# shellcheck disable=SC2086
	set -- $args
	if [ "$1" = convert ] && [ "$2" = -o ]; then set -- convert "$tmp/dup-menu.perf.txt" "$2" "$3"
	else set -- "$@" "$tmp/dup-menu.perf.txt"; fi
	expect_silent "$args on a trace appended to itself" \
		"dup-menu.perf.txt:$line: time went back by .* on CPU [0-9]*, beyond the 10 ms the reader reorders: events out of order, two traces concatenated, or perf script --deltatime/--reltime" \
		"$@"
done
[ ! -e "$tmp/dup.ivf" ] && ok || bad "convert left an interval file of a refused trace"

# a trace clock 121 ms behind CLOCK_MONOTONIC (perf record's default clock):
# timestamps shifted, now= and expires= not: the timers are corrected, a note
# says so once, JSON gives the offset
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
	split(substr($i, 1, length($i) - 1), t, "."); ns = t[1] * 1000000000 + t[2] - 121000000
	sub(/[0-9]+\.[0-9]+:/, sprintf("%d.%09d:", int(ns / 1000000000), ns % 1000000000)); break }
	print }' "$tmp/piece.perf.txt" >"$tmp/noclk-menu.perf.txt"
out=$("$cli" sim -p haltpoll-vm -g menu --json "$tmp/noclk-menu.perf.txt" 2>"$tmp/noclk.err")
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c 'note: .*the trace clock is 12[01]\.[0-9]* ms behind CLOCK_MONOTONIC' "$tmp/noclk.err")" = 1 ] &&
   printf '%s' "$out" | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert abs(o["clock_offset_ns"] - 121000000) < 20000, o["clock_offset_ns"]'
then ok; else bad "sim on a trace clock 121 ms off: rc=$rc $(cat "$tmp/noclk.err")"; fi
out=$("$cli" sim -p haltpoll-vm -g menu --json "$tmp/piece.perf.txt" 2>/dev/null)
if printf '%s' "$out" | python3 -c '
import json, sys
assert json.load(sys.stdin)["clock_offset_ns"] == 0'; then ok; else bad "sim: clock_offset_ns 0 on CLOCK_MONOTONIC"; fi
# corrected, the next timers are those of the original (to the median delay
# of the tick's event, a few us), where the uncorrected ones were 121 ms off
"$cli" convert --csv "$tmp/piece.perf.txt" 2>/dev/null >"$tmp/mono.csv"
"$cli" convert --csv "$tmp/noclk-menu.perf.txt" 2>/dev/null >"$tmp/noclk.csv"
if python3 - "$tmp/mono.csv" "$tmp/noclk.csv" <<'PY'; then ok; else bad "corrected timers"; fi
import csv, sys
a = list(csv.DictReader(l for l in open(sys.argv[1]) if l[0] != "#"))
b = list(csv.DictReader(l for l in open(sys.argv[2]) if l[0] != "#"))
assert len(a) == len(b), (len(a), len(b))
n = 0
for x, y in zip(a, b):
    if y["timer_unknown"] == "1" or x["timer_unknown"] == "1":
        continue
    if x["next_timer_ns"] in ("inf", "") or y["next_timer_ns"] in ("inf", ""):
        continue
    assert abs(int(x["next_timer_ns"]) - int(y["next_timer_ns"])) < 20000, (x, y)
    n += 1
assert n > 50, n
PY
# an offset that jumps (one half of the trace shifted 1 ms more): an error
half=$(($(grep -c '' "$tmp/noclk-menu.perf.txt") / 2))
awk -v h="$half" 'NR > h { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {
	split(substr($i, 1, length($i) - 1), t, "."); ns = t[1] * 1000000000 + t[2] + 1000000
	sub(/[0-9]+\.[0-9]+:/, sprintf("%d.%09d:", int(ns / 1000000000), ns % 1000000000)); break } }
	{ print }' "$tmp/noclk-menu.perf.txt" >"$tmp/jump-menu.perf.txt"
expect_silent "a trace clock that jumps" \
	"jump-menu.perf.txt:[0-9]*: the trace clock jumped by -[0-9.]* [mu]s against CLOCK_MONOTONIC" \
	convert --csv "$tmp/jump-menu.perf.txt"

# CPU 1 logs no power:cpu_idle on the recording VM: named in a warning, in
# every command; left out of the machine where it appears only as a
# wake-up target
for args in "sim -p haltpoll-vm -g menu" "stats" "convert --csv" "fidelity -g menu" \
	    "sweep -g menu -p haltpoll-vm"; do
	# shellcheck disable=SC2086
	err=$("$cli" $args "$tmp/piece.perf.txt" 2>&1 >/dev/null)
	if [ "$(printf '%s\n' "$err" | grep -c "^cpuidle ${args%% *}: warning: .*piece.perf.txt: CPU 1 has events but no idle entry or exit (power:cpu_idle): taken as always busy; was it traced?")" = 1 ]
	then ok; else bad "$args: CPU 1 without idle events: '$err'"; fi
done
# converted once, the notes stay with the interval file: the warning and
# the clock offset again, from the file, in every command that replays it
"$cli" convert "$tmp/noclk-menu.perf.txt" -o "$tmp/noclk.ivf" 2>/dev/null >/dev/null ||
	bad "convert the 121 ms trace"
for args in "sim -p haltpoll-vm -g menu" "fidelity -g menu" "sweep -g menu -p haltpoll-vm"; do
	# shellcheck disable=SC2086
	err=$("$cli" $args "$tmp/noclk.ivf" 2>&1 >/dev/null)
	if [ "$(printf '%s\n' "$err" | grep -c "^cpuidle ${args%% *}: warning: .*noclk.ivf: CPU 1 has events but no idle entry or exit")" = 1 ] &&
	   [ "$(printf '%s\n' "$err" | grep -c "^cpuidle ${args%% *}: note: .*noclk.ivf: the trace clock is 12[01]\.[0-9]* ms behind CLOCK_MONOTONIC")" = 1 ]
	then ok; else bad "$args FILE.ivf: the trace's notes: '$err'"; fi
done
if "$cli" sim -p haltpoll-vm -g menu --json "$tmp/noclk.ivf" 2>/dev/null | python3 -c '
import json, sys
o = json.load(sys.stdin)
assert abs(o["clock_offset_ns"] - 121000000) < 20000, o["clock_offset_ns"]'
then ok; else bad "sim --json FILE.ivf: the clock offset"; fi

grep -v '\[001\]' "$tmp/piece.perf.txt" >"$tmp/cpu0-menu.perf.txt"
grep -q 'target_cpu=001' "$tmp/cpu0-menu.perf.txt" || bad "the CPU 0 piece names CPU 1"
out=$("$cli" convert "$tmp/cpu0-menu.perf.txt" -o "$tmp/cpu0.ivf" 2>"$tmp/cpu0.err")
if printf '%s' "$out" | grep -q ', 1 CPUs, ' && [ ! -s "$tmp/cpu0.err" ]; then ok; else
	bad "a CPU named only as a wake-up target: '$out' $(cat "$tmp/cpu0.err")"; fi

# fidelity: a trace that fails after another succeeded: nothing on stdout
: >"$tmp/empty-menu.txt"
expect_silent "fidelity, the second trace empty" "empty-menu.txt" \
	fidelity "$trace" "$tmp/empty-menu.txt"
expect_silent "fidelity --json, the first trace empty" "empty-menu.txt" \
	fidelity --json "$tmp/empty-menu.txt" "$trace"
expect_silent "fidelity --json, the second refused" "dup-menu.perf.txt:$line: time went back" \
	fidelity --json "$trace" "$tmp/dup-menu.perf.txt"

# --- a perf lost-events record with a time of its own: stats and convert agree -----
# Its time moves the trace on in both readers (found by fuzz_trace: stats
# skipped it and read on, convert refused the next event as going back).
cat > "$tmp/lost-ahead.perf.txt" <<'EOF'
         swapper     0 [000] 70100.000000100:                power:cpu_idle: state=1 cpu_id=0
            perf 16153 [001] 70124.000000000: PERF_RECORD_LOST lost 12
         swapper     0 [000] 70100.000000200:                power:cpu_idle: state=4294967295 cpu_id=0
EOF
expect_silent "stats: a lost record ahead, then an event 24 s back" \
	"lost-ahead.perf.txt:3: time went back by 24.000 s on CPU 0" stats "$tmp/lost-ahead.perf.txt"
expect_silent "convert: a lost record ahead, then an event 24 s back" \
	"lost-ahead.perf.txt:3: time went back by 24.000 s on CPU 0" \
	convert "$tmp/lost-ahead.perf.txt" -o "$tmp/lost-ahead.ivf"

# --- fidelity: the 1-state baseline, counted from the trace itself ----------------
# The first 4000 lines of a real haltpoll trace (guest_halt_poll_ns 200 us):
# CPU 0 enters POLL (0) and halt (1).  The baseline counts the entries of the
# replayed intervals: all of the trace's but those of its first and last
# (partial) interval, at most 8 each.
hp=$fx/io-haltpoll200-head.perf.txt.xz
if "$cli" fidelity --json -g haltpoll -s module/haltpoll/parameters/guest_halt_poll_ns=200000 \
	"$hp" 2>/dev/null | python3 -c '
import json, lzma, re, sys
d = json.load(sys.stdin)[0]
n = {0: 0, 1: 0}
for line in lzma.open(sys.argv[1], "rt"):
    m = re.search(r"cpu_idle: state=(\d+) ", line)
    if m and int(m.group(1)) in n:
        n[int(m.group(1))] += 1
top, known = d["kernel_top_entries"], d["kernel_known_entries"]
assert d["kernel_top_state"] == 1, d
assert n[1] - 16 <= top <= n[1], (n, d)
assert n[0] - 16 <= known - top <= n[0], (n, d)
assert 0 < known - top < top, d' "$hp"; then ok; else bad "fidelity --json: 1-state baseline counts"; fi
row=$("$cli" fidelity -g haltpoll -s module/haltpoll/parameters/guest_halt_poll_ns=200000 "$hp" 2>/dev/null | tail -1)
want=$("$cli" fidelity --json -g haltpoll -s module/haltpoll/parameters/guest_halt_poll_ns=200000 \
	"$hp" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)[0]
print("%.2f%%" % (100.0 * d["kernel_top_entries"] / d["kernel_known_entries"]))')
if [ "$(printf '%s\n' "$row" | awk '{print $7}')" = "$want" ]; then ok; else
	bad "fidelity: the 1-state column is not $want: '$row'"; fi

# --- wake-up causes where the interrupt is not x86's irq_vectors, or comes late ---
# arm64: the "IPI" interrupt, then ipi:ipi_entry with its reason; the
# architected timer as a plain interrupt; and, as with intel_idle or PSCI
# (states entered with interrupts off), the interrupt just after the exit
ln() { printf '         swapper     0 [000]   %s: %35s: %s\n' "$1" "$2" "$3"; }
{
	ln 100.000000000 power:cpu_idle 'state=1 cpu_id=0'
	ln 100.000500000 irq:irq_handler_entry 'irq=1 name=IPI'
	ln 100.000500100 ipi:ipi_entry '(Rescheduling interrupts)'
	ln 100.000501000 power:cpu_idle 'state=4294967295 cpu_id=0'
	ln 100.001000000 power:cpu_idle 'state=1 cpu_id=0'
	ln 100.002000000 irq:irq_handler_entry 'irq=11 name=arch_timer'
	ln 100.002000100 timer:hrtimer_expire_entry 'hrtimer=0xffff00007fbb2a80 now=100002000100 function=tick_nohz_handler'
	ln 100.002001000 power:cpu_idle 'state=4294967295 cpu_id=0'
	ln 100.003000000 power:cpu_idle 'state=1 cpu_id=0'
	ln 100.004000000 irq:irq_handler_entry 'irq=1 name=IPI'
	ln 100.004000100 ipi:ipi_entry '(IRQ work interrupts)'
	ln 100.004001000 power:cpu_idle 'state=4294967295 cpu_id=0'
	ln 100.005000000 power:cpu_idle 'state=1 cpu_id=0'
	ln 100.006000000 power:cpu_idle 'state=4294967295 cpu_id=0'
	ln 100.006000500 irq:irq_handler_entry 'irq=1 name=IPI'
	ln 100.006000600 ipi:ipi_entry '(Function call interrupts)'
	ln 100.007000000 power:cpu_idle 'state=1 cpu_id=0'
	ln 100.008000000 power:cpu_idle 'state=4294967295 cpu_id=0'
	ln 100.008000500 irq:irq_handler_entry 'irq=11 name=arch_timer'
	ln 100.008000600 timer:hrtimer_expire_entry 'hrtimer=0xffff00007fbb2a80 now=100008000600 function=tick_nohz_handler'
	ln 100.009000000 power:cpu_idle 'state=1 cpu_id=0'
	ln 100.010000000 power:cpu_idle 'state=4294967295 cpu_id=0'
	ln 100.010030000 irq:irq_handler_entry 'irq=40 name=eth0'
	ln 100.011000000 power:cpu_idle 'state=1 cpu_id=0'
	ln 100.012000000 power:cpu_idle 'state=4294967295 cpu_id=0'
	ln 100.012000100 timer:hrtimer_start 'hrtimer=0xffff00007fbb2a80 function=tick_nohz_handler expires=100016000000 softexpires=100016000000 mode=ABS'
	ln 100.012000200 irq:irq_handler_entry 'irq=40 name=eth0'
	ln 100.013000000 power:cpu_idle 'state=1 cpu_id=0'
	ln 100.014000000 power:cpu_idle 'state=4294967295 cpu_id=0'
} >"$tmp/arm64.perf.txt"
if "$cli" convert --csv "$tmp/arm64.perf.txt" 2>"$tmp/arm64.err" | python3 -c '
import csv, sys
rows = list(csv.DictReader(l for l in sys.stdin if l[0] != "#"))
got = [(r["wake"], r["irq"], int(r["idle_ns"])) for r in rows]
want = [("resched", "", 500000),      # IPI + its reason, inside the state
        ("tick", "", 1000000),        # arch_timer, the tick expiring
        ("irq", "IPI", 1000000),      # a reason not of ours: the interrupt stays
        ("call-func", "", 1000000),   # 0.5 us after the exit: the wake-up, ending at the exit
        ("tick", "", 1000000),        # arch_timer and the tick, after the exit
        ("unknown", "", 1000000),     # an interrupt 30 us after the exit: not it
        ("unknown", "", 1000000),     # not the first thing after the exit: not it
        ("unknown", "", 1000000)]     # the last: its end is the trace end
assert len(got) == 8 and got[:7] == want[:7], got'
then ok; else bad "arm64 and late wake-up causes: $(cat "$tmp/arm64.err")"; fi
ln 100.014000100 ipi:ipi_entry 'Rescheduling interrupts' >>"$tmp/arm64.perf.txt"
expect_silent "ipi_entry without its parentheses" \
	"arm64.perf.txt:30: ipi:ipi_entry: cannot parse the reason" convert --csv "$tmp/arm64.perf.txt"

# --- a recording's description (cpuidle record writes it) ---------------------
# The bundled trace behind the description record would write on the VM of
# ../shared/traces: its driver, governor, haltpoll's tunables and platform.
# The replay needs nothing else: the platform, the governor (whatever the
# file's name) and the tunables come from it; -p, -g and -s still win, each
# with a note; an interval file keeps it.
{
	printf '# cpuidle-recording version 1\n'
	printf '# cpuidle-recording driver haltpoll\n'
	printf '# cpuidle-recording governor menu\n'
	printf '# cpuidle-recording set module/haltpoll/parameters/guest_halt_poll_ns=0\n'
	printf '# cpuidle-recording later-key a future version may add\n'
	grep -v '^#' "$src/platforms/haltpoll-vm.platform" | grep . |
		sed 's/^platform .*/platform "recorded"/; s/^/# cpuidle-recording platform /'
	xz -dc "$trace"
} >"$tmp/described.txt"
plain=$("$cli" sim --json -g menu -p haltpoll-vm "$trace" 2>/dev/null)
if out=$("$cli" sim --json -g menu "$tmp/described.txt" 2>"$tmp/err") &&
   grep -q "on the platform it was recorded on (" "$tmp/err" &&
   python3 -c '
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert b["platform"] == "recorded", b["platform"]
assert a["runs"][0]["states"] == b["runs"][0]["states"], (a["runs"][0], b["runs"][0])' \
	"$plain" "$out"; then ok; else bad "sim on a described recording: $(cat "$tmp/err")"; fi
if "$cli" sim --json -g menu -p laptop "$tmp/described.txt" 2>"$tmp/err" |
	python3 -c 'import json,sys; assert json.load(sys.stdin)["platform"] == "laptop"' &&
   grep -q "on -p laptop, not the platform it was recorded on" "$tmp/err"; then ok; else
	bad "sim -p over a described recording: $(cat "$tmp/err")"; fi
# fidelity: the governor from the description, not the name (there is none)
if "$cli" fidelity --json "$tmp/described.txt" 2>/dev/null | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r["governor"] == "menu" and r["platform"] == "recorded", r
assert r["matched"] >= 0.99 * r["entries"] > 0, r'; then ok; else
	bad "fidelity takes the described governor"; fi
# the tunables: haltpoll with the recording's window of 0 never polls;
# -s gives it one back, with a note
if a=$("$cli" sim --json -g haltpoll "$tmp/described.txt" 2>/dev/null) &&
   b=$("$cli" sim --json -g haltpoll -s module/haltpoll/parameters/guest_halt_poll_ns=200000 \
	"$tmp/described.txt" 2>"$tmp/err") &&
   grep -q -- "-s module/haltpoll/parameters/guest_halt_poll_ns=200000, not the recording's" \
	"$tmp/err" && python3 -c '
import json, sys
a, b = (json.loads(x)["runs"][0] for x in sys.argv[1:])
assert a["states"][0]["usage"] == 0 and b["states"][0]["usage"] > 50, (a, b)' "$a" "$b"
then ok; else bad "the described tunables, and -s over them"; fi
# stats names the states by the recorded platform; an interval file keeps it
if "$cli" stats --json "$tmp/described.txt" 2>/dev/null | python3 -c '
import json, sys
names = {s["name"] for c in json.load(sys.stdin)["cpus"] for s in c["states"]}
assert "haltpoll idle" in names, names' &&
   "$cli" convert "$tmp/described.txt" -o "$tmp/described.ivf" 2>/dev/null &&
   "$cli" sim --json -g menu "$tmp/described.ivf" 2>/dev/null |
	python3 -c 'import json,sys; assert json.load(sys.stdin)["platform"] == "recorded"'
then ok; else bad "stats and an interval file with a described recording"; fi
# sweep: on the recorded platform alone (as sim), with the recorded
# tunables in every run; -s sweeps one of them instead, -p other platforms
if "$cli" sweep --json -g haltpoll,menu "$tmp/described.txt" "$trace" \
	>"$tmp/sw.json" 2>"$tmp/err" &&
   grep -q "described.txt: on the platform it was recorded on (.*) alone" "$tmp/err" &&
   python3 - "$tmp/sw.json" "$a" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
mine = [r for r in rows if r["trace"].endswith("described.txt")]
other = [r for r in rows if not r["trace"].endswith("described.txt")]
assert {r["platform"] for r in mine} == {"recorded"}, mine
assert "recorded" not in {r["platform"] for r in other} and len(other) > len(mine), other
sim = json.loads(sys.argv[2])["runs"][0]
hp = [r for r in mine if r["governor"] == "haltpoll"][0]
# the recording's window of 0: haltpoll never polls, as sim with it
assert hp["states"][0]["usage"] == sim["states"][0]["usage"] == 0, (hp, sim)
assert hp["entries"] == sim["entries"], (hp, sim)
PY
then ok; else bad "sweep on a described recording: $(cat "$tmp/err")"; fi
if "$cli" sweep --json -g haltpoll -s module/haltpoll/parameters/guest_halt_poll_ns=0,200000 \
	"$tmp/described.txt" >"$tmp/sw.json" 2>"$tmp/err" &&
   grep -q -- "-s module/haltpoll/parameters/guest_halt_poll_ns swept, not the recording's" \
	"$tmp/err" && python3 - "$tmp/sw.json" <<'PY'
import json, sys
rows = {r["settings"]["module/haltpoll/parameters/guest_halt_poll_ns"]: r
        for r in map(json.loads, open(sys.argv[1])) if r["governor"] == "haltpoll"}
assert rows["0"]["states"][0]["usage"] == 0 < rows["200000"]["states"][0]["usage"], rows
PY
then ok; else bad "sweep -s over a described recording's tunable: $(cat "$tmp/err")"; fi
if "$cli" sweep --json -g menu -p laptop "$tmp/described.txt" 2>"$tmp/err" |
	python3 -c 'import json,sys; assert {json.loads(l)["platform"] for l in sys.stdin} == {"laptop"}' &&
   grep -q "described.txt: on the platforms of -p, not the one it was recorded on" "$tmp/err"
then ok; else bad "sweep -p over a described recording: $(cat "$tmp/err")"; fi
# a malformed description is refused, naming it
{ printf '# cpuidle-recording set nothing-to-set\n'; xz -dc "$trace"; } >"$tmp/baddesc.txt"
expect_fail "a malformed description" "baddesc.txt: the recording's description: a bad line" \
	sim "$tmp/baddesc.txt"
{ printf '# cpuidle-recording tick sometimes\n'; xz -dc "$trace"; } >"$tmp/baddesc.txt"
expect_fail "a tick mode of no kind" "a bad line \"tick sometimes\"" sim "$tmp/baddesc.txt"
# a kernel whose tick never stops (tick periodic): every replay keeps the
# tick, whatever the governor asks, so menu's long stays are cut by it;
# nohz-idle changes nothing; each said
{ printf '# cpuidle-recording tick periodic\n'; xz -dc "$trace"; } >"$tmp/periodic.txt"
{ printf '# cpuidle-recording tick nohz-idle\n'; xz -dc "$trace"; } >"$tmp/nohz.txt"
if p=$("$cli" sim --json -g menu -p laptop "$tmp/periodic.txt" 2>"$tmp/err") &&
   grep -q "periodic.txt: its kernel never stopped its tick" "$tmp/err" &&
   n=$("$cli" sim --json -g menu -p laptop "$tmp/nohz.txt" 2>"$tmp/err") &&
   ! grep -q "never stopped its tick" "$tmp/err" &&
   plain=$("$cli" sim --json -g menu -p laptop "$trace" 2>/dev/null) &&
   s=$("$cli" sweep --json -g menu -p laptop "$tmp/periodic.txt" 2>/dev/null) && python3 -c '
import json, sys
p, n, plain = (json.loads(x)["runs"][0] for x in sys.argv[1:4])
s = json.loads(sys.argv[4])
assert n["entries"] == plain["entries"] and n["states"] == plain["states"], (n, plain)
assert p["entries"] > 1.5 * n["entries"], (p["entries"], n["entries"])
assert s["entries"] == p["entries"], (s["entries"], p["entries"])' "$p" "$n" "$plain" "$s"
then ok; else bad "a periodic tick's recording: $(cat "$tmp/err")"; fi

# --- no silent replay on unknown timers --------------------------------------
# The bundled trace without its timer events and local timer interrupts
# (as the Juno recording is): every interval's next timer unknown, said
# with the share; with them, a handful at the start, nothing said.
xz -dc "$trace" | grep -v -e ' timer:' -e local_timer_entry >"$tmp/notimers.txt"
if out=$("$cli" sim --json -g menu -p haltpoll-vm "$tmp/notimers.txt" 2>"$tmp/err") &&
   grep -q "the next timer is unknown in [0-9]* of [0-9]* replayed intervals (100.0%)" \
	"$tmp/err" && python3 -c '
import json, sys
r = json.loads(sys.argv[1])["runs"][0]
assert r["timer_unknown"] == r["intervals"] > 700 and r["timer_guessed"] == 0, r' "$out" &&
   out=$("$cli" sim --json -g menu -p haltpoll-vm "$trace" 2>"$tmp/err") &&
   ! grep -q "the next timer is" "$tmp/err" && python3 -c '
import json, sys
r = json.loads(sys.argv[1])["runs"][0]
assert r["timer_unknown"] + r["timer_guessed"] < 0.01 * r["intervals"], r' "$out" &&
   "$cli" fidelity --json -g menu "$tmp/notimers.txt" 2>"$tmp/err" | python3 -c '
import json, sys
r = json.load(sys.stdin)[0]
assert r["timer_unknown"] == r["intervals"] > 700, r' &&
   grep -q "the next timer is unknown" "$tmp/err"; then ok; else
	bad "unknown timers said: $(cat "$tmp/err")"; fi
# sweep says it once a trace, whichever platforms the trace is replayed
# on: its recording's own (not the sweep's first), or two of -p
{ grep '^# cpuidle-recording' "$tmp/described.txt"; cat "$tmp/notimers.txt"; } \
	>"$tmp/described-notimers.txt"
if "$cli" sweep -g menu "$tmp/described-notimers.txt" "$trace" >/dev/null 2>"$tmp/err" &&
   [ "$(grep -c "described-notimers.txt: the next timer is unknown in [0-9]* of" "$tmp/err")" = 1 ] &&
   [ "$(grep -c "the next timer is unknown" "$tmp/err")" = 1 ] &&
   "$cli" sweep -g menu -p laptop,skylake "$tmp/notimers.txt" >/dev/null 2>"$tmp/err" &&
   [ "$(grep -c "notimers.txt: the next timer is unknown in [0-9]* of" "$tmp/err")" = 1 ]
then ok; else bad "sweep's unknown timers said once a trace: $(cat "$tmp/err")"; fi

# Without its timer events but with its local timer interrupts: every
# next timer reconstructed from them, said as a note, counted in every
# output (sim's text, JSON, CSV and report; sweep's CSV; fidelity's JSON
# and text; convert's CSV); nothing said unknown.
xz -dc "$trace" | grep -v ' timer:' >"$tmp/guessed.txt"
if out=$("$cli" sim --json -g menu -p haltpoll-vm "$tmp/guessed.txt" 2>"$tmp/err") &&
   grep -q "note: .*the next timer is reconstructed in [0-9]* of [0-9]* replayed intervals (100.0%)" \
	"$tmp/err" && ! grep -q "unknown in" "$tmp/err" && python3 -c '
import json, sys
r = json.loads(sys.argv[1])["runs"][0]
assert r["timer_guessed"] == r["intervals"] > 700 and r["timer_unknown"] == 0, r' "$out" &&
   "$cli" sim -g menu -p haltpoll-vm --report "$tmp/guessed.html" "$tmp/guessed.txt" \
	2>/dev/null |
	grep -q "^next timer at entry: 0 traced, [1-9][0-9]* reconstructed, 0 unknown$" &&
   grep -q "intervals: 0% traced, 100% reconstructed from the local timer interrupts, 0% unknown" \
	"$tmp/guessed.html" &&
   "$cli" sim --csv -g menu -p haltpoll-vm "$tmp/guessed.txt" 2>/dev/null | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows and all(r["timer_guessed"] == r["intervals"] and r["timer_unknown"] == "0"
                    for r in rows), rows' &&
   "$cli" sweep -g menu -p haltpoll-vm "$tmp/guessed.txt" 2>"$tmp/err" | python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
assert rows and all(r["timer_guessed"] == r["intervals"] for r in rows), rows' &&
   grep -c "the next timer is reconstructed" "$tmp/err" | grep -qx 1 &&
   "$cli" fidelity -g menu "$tmp/guessed.txt" 2>/dev/null | awk 'NR == 2 &&
	$(NF - 1) == "100.0%" && $NF == "0.0%" { ok = 1 } END { exit !ok }' &&
   "$cli" convert "$tmp/guessed.txt" -o "$tmp/guessed.ivf" 2>&1 >/dev/null |
	grep -q "note: .*the next timer is reconstructed in [1-9][0-9]* of [0-9]* replayed intervals (100.0%)" &&
   "$cli" convert --csv "$tmp/guessed.txt" 2>/dev/null | python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(l for l in sys.stdin if l[0] != "#") if not r["partial"]]
assert rows and all(r["timer_guessed"] == "1" and r["next_timer_ns"] != ""
                    and int(r["next_timer_ns"]) >= int(r["idle_ns"]) for r in rows), rows'
then ok; else
	bad "reconstructed timers said and counted: $(cat "$tmp/err")"; fi

# Inputs that are not regular files: a process substitution of the
# compressed or the decompressed trace (/dev/fd/N, a pipe), a FIFO and
# standard input give every command the regular file's output.  The format
# is told from the one stream the reader opens, never by opening the path
# first (which lost the pipe's first bytes: wrong figures, exit 0).  An
# interval file through a pipe is refused, saying to save it first.
plain_out() {	# the output with the input's name and the speed column out
	sed -e "s#$trace#TRACE#g; s#/dev/fd/[0-9]*#TRACE#g; s#$tmp/fifo#TRACE#g" \
	    -e 's#^\(TRACE\|io-menu.perf.txt.xz\|[0-9][0-9]*\|fifo\|-\)\([ :,]\)  *#TRACE\2#' \
	    -e 's#^\(TRACE\|io-menu.perf.txt.xz\|[0-9][0-9]*\|fifo\|-\)\([:,]\)#TRACE\2#' \
	    -e 's/ *[0-9.]* *$//' -e 's/^trace -, /trace TRACE, /'
}
for args in "stats" "sim -g menu,teo" "convert --csv" "fidelity -g menu" "sweep -g menu -p laptop"; do
	# shellcheck disable=SC2086
	"$cli" $args "$trace" 2>/dev/null | plain_out >"$tmp/want"
	[ -s "$tmp/want" ] || bad "$args: no output from the regular file"
	for how in xz cat fifo stdin; do
		case $how in
		xz) bash -c "\"\$0\" $args <(xz -dc \"\$1\")" "$cli" "$trace" ;;
		cat) bash -c "\"\$0\" $args <(cat \"\$1\")" "$cli" "$trace" ;;
		fifo) rm -f "$tmp/fifo"; mkfifo "$tmp/fifo"
		      cat "$trace" >"$tmp/fifo" &
		      # shellcheck disable=SC2086
		      timeout 60 "$cli" $args "$tmp/fifo" ;;
		# shellcheck disable=SC2086
		stdin) xz -dc "$trace" | "$cli" $args - ;;
		esac 2>/dev/null | plain_out >"$tmp/got"
		if cmp -s "$tmp/want" "$tmp/got"; then ok; else
			bad "$args from $how: not the regular file's output: $(diff "$tmp/want" "$tmp/got" | head -n 4)"; fi
	done
done
# a compressed trace with garbage after it: named with the byte of the
# compressed file where decoding stopped (the garbage, past the stream)
size=$(wc -c <"$trace")
{ cat "$trace"; printf 'garbage!garbage!'; } >"$tmp/tail.xz"
err=$("$cli" stats "$tmp/tail.xz" 2>&1 >/dev/null)
case $err in
"cpuidle stats: $tmp/tail.xz:"*": corrupt xz stream (data error) at byte "*" of the compressed file")
	at=${err##*at byte }
	at=${at%% *}
	[ "$at" -gt "$size" ] && ok || bad "trailing garbage: byte $at, the stream is $size" ;;
*) bad "trailing garbage after an xz stream: $err" ;;
esac

# Untrusted bytes stay text: a trace path with a terminal escape sequence
# and bytes that are no UTF-8, a missing file's name in a message: written
# as \xNN, never as the bytes (text.c's rule; cli_shared checks an IRQ name)
escpath=$(printf '%s/e\033]0;x\007\377.txt' "$tmp")
xz -dc "$trace" >"$escpath"
if "$cli" sim --json -g menu "$escpath" >"$tmp/esc.json" 2>"$tmp/esc.err" &&
   python3 - "$tmp/esc.json" "$tmp/esc.err" <<'PY'
import json, sys
json_b, err_b = (open(f, "rb").read() for f in sys.argv[1:])
for b in (json_b, err_b):
    b.decode("utf-8")				# valid UTF-8, strictly
    assert not any(c < 0x20 and c not in (9, 10) or c == 0x7f for c in b), b[:200]
run = json.loads(json_b)
assert run["trace"].endswith("/e\\x1b]0;x\\x07\\xff.txt"), run["trace"]
PY
then ok; else bad "untrusted bytes in JSON and warnings: $(cat "$tmp/esc.err")"; fi
# the text tables too: the path as \xNN, no control byte on stdout
for args in "stats" "sim -g menu" "fidelity -g menu" "sweep -g menu -p laptop"; do
	# shellcheck disable=SC2086
	"$cli" $args "$escpath" >"$tmp/esc.txt" 2>/dev/null
	if grep -q 'e\\x1b\]0;x\\x07\\xff\.txt' "$tmp/esc.txt" &&
	   python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
b.decode("utf-8")
assert not any(c < 0x20 and c not in (9, 10) or c == 0x7f for c in b)' "$tmp/esc.txt"
	then ok; else bad "$args: untrusted bytes in the text output: $(od -c "$tmp/esc.txt" | head -n 3)"; fi
done
err=$("$cli" stats "$(printf '%s/no\033[2Jsuch' "$tmp")" 2>&1 >/dev/null)
case $err in
*"no\x1b[2Jsuch: No such file or directory") ok ;;
*) bad "a name with a control sequence in a message: $(printf '%s' "$err" | od -c | head -n 3)" ;;
esac

# sweep --shard K/N and --merge: the parts, each a contiguous run of the
# traces, merged in order of K whatever the order given, are the unsharded
# sweep byte for byte, CSV and JSON, an empty shard (3 traces in 4) too;
# a part missing, twice, of another N or another sweep is refused
head2=$src/tests/fixtures/io-haltpoll200-head.perf.txt.xz
xz -dc "$trace" | head -n 3000 >"$tmp/third.txt"
for fmt in --csv --json; do
	"$cli" sweep $fmt -g menu,oracle -p haltpoll-vm,skylake "$trace" "$head2" "$tmp/third.txt" \
		>"$tmp/whole" 2>/dev/null
	for n in 2 4; do
		k=1 parts=""
		while [ $k -le $n ]; do
			rm -f "$tmp/part$k"
			"$cli" sweep $fmt --shard $k/$n -g menu,oracle -p haltpoll-vm,skylake "$trace" \
				"$head2" "$tmp/third.txt" -o "$tmp/part$k" 2>/dev/null || bad "shard $k/$n"
			parts="$tmp/part$k $parts"	# given in reverse
			k=$((k + 1))
		done
		# shellcheck disable=SC2086
		if "$cli" sweep --merge $parts >"$tmp/merged" && [ -s "$tmp/whole" ] &&
		   cmp -s "$tmp/whole" "$tmp/merged"; then ok; else
			bad "sweep $fmt --shard K/$n merged: not the whole sweep's rows"; fi
	done
done
expect_fail "sweep --merge, a part missing" "shard 2/4 is missing (3 of 4 given)" \
	sweep --merge "$tmp/part1" "$tmp/part3" "$tmp/part4"
expect_fail "sweep --merge, a part twice" "shard 1/4 given twice" \
	sweep --merge "$tmp/part1" "$tmp/part1" "$tmp/part2" "$tmp/part3" "$tmp/part4"
"$cli" sweep --json --shard 1/2 -g menu -p laptop "$trace" -o "$tmp/other1" 2>/dev/null
expect_fail "sweep --merge, parts of two sweeps" "is a part of 2 shards" \
	sweep --merge "$tmp/part1" "$tmp/other1"
expect_fail "sweep --merge, not a part" "not a part of a sharded sweep" \
	sweep --merge "$tmp/whole"
expect_fail "sweep --merge with the sweep's options" "takes the parts and -o alone" \
	sweep --merge -g menu "$tmp/part1"
expect_fail "sweep --shard 3/2" "--shard wants K/N" sweep --shard 3/2 "$trace"
expect_fail "sweep --shard with --report" "a report is of a whole sweep" \
	sweep --shard 1/2 --report "$tmp/r.html" "$trace"

# fleet-gen: the same sources and seed, the same files; another seed,
# others; each says it is derived (noted by every command), covers its
# source's span (its idle time within 15% of the source's), and replays;
# an existing file is not replaced
"$cli" fleet-gen -n 3 -o "$tmp/fleetA" "$trace" "$head2" 2>/dev/null &&
   "$cli" fleet-gen -n 3 -o "$tmp/fleetB" "$trace" "$head2" 2>/dev/null &&
   "$cli" fleet-gen -n 3 --seed 2 -o "$tmp/fleetC" "$trace" "$head2" 2>/dev/null ||
	bad "fleet-gen failed"
if cmp -s "$tmp/fleetA/derived-000002.ivf" "$tmp/fleetB/derived-000002.ivf" &&
   ! cmp -s "$tmp/fleetA/derived-000002.ivf" "$tmp/fleetC/derived-000002.ivf"; then ok; else
	bad "fleet-gen: the same seed, the same files; another, others"; fi
"$cli" sim --json -g menu -p haltpoll-vm "$tmp/fleetA/derived-000002.ivf" >"$tmp/d.json" 2>"$tmp/d.err"
"$cli" sim --json -g menu -p haltpoll-vm "$trace" >"$tmp/s.json" 2>/dev/null
if grep -q "derived-000002.ivf: not a recording: derived from $trace, seed 1, trace 2 (cpuidle fleet-gen)" \
	"$tmp/d.err" && python3 -c '
import json, sys
d, s = (json.load(open(f))["runs"][0] for f in sys.argv[1:])
assert abs(d["idle_ns"] - s["idle_ns"]) < 0.15 * s["idle_ns"], (d["idle_ns"], s["idle_ns"])
assert d["intervals"] > 0.5 * s["intervals"], (d["intervals"], s["intervals"])' "$tmp/d.json" "$tmp/s.json"
then ok; else bad "fleet-gen: a derived trace: $(cat "$tmp/d.err")"; fi
expect_fail "fleet-gen over an earlier fleet" "derived-000000.ivf exists: not replacing it" \
	fleet-gen -n 1 -o "$tmp/fleetA" "$trace"
expect_fail "fleet-gen without -n" "usage:" fleet-gen -o "$tmp/fleetD" "$trace"

# record never replaces a recording, and writes no trace to standard output
# (its description goes beside it): refused before anything, root or not
cp "$trace" "$tmp/earlier.perf.txt.xz"
expect_fail "record -o an earlier recording" \
	"^cpuidle record: -o $tmp/earlier.perf.txt.xz: that file is a trace; not replacing it" \
	record -o "$tmp/earlier.perf.txt.xz" -t 1
cmp -s "$trace" "$tmp/earlier.perf.txt.xz" && ok || bad "record -o: the earlier recording changed"
expect_fail "record -o -" "^cpuidle record: -o -: a recording goes to a file" record -o - -t 1

# standard input a socket (socket activation, a program's socketpair):
# "-", /dev/stdin and /dev/fd/0 alike, though a socket cannot be opened
# by its /proc link
if python3 - "$cli" "$trace" <<'PY'
import lzma, socket, subprocess, sys, threading
cli, trace = sys.argv[1:]
data = lzma.open(trace).read()
def run(arg, stdin=None):
    p = subprocess.run([cli, "stats", arg], stdin=stdin, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, (arg, p.stderr)
    return p.stdout.splitlines()[1:]		# the first line names the input
want = run(trace)
for arg in ("-", "/dev/stdin", "/dev/fd/0"):
    a, b = socket.socketpair()
    def feed():
        try:
            a.sendall(data)
        except BrokenPipeError:
            pass
        a.close()
    t = threading.Thread(target=feed)
    t.start()
    got = run(arg, b)
    b.close()
    t.join()
    assert got == want, (arg, got[:3], want[:3])
PY
then ok; else bad "stats from a socket on standard input"; fi
"$cli" convert "$trace" -o "$tmp/pipe.ivf" >/dev/null 2>&1
err=$(bash -c '"$0" sim <(cat "$1")' "$cli" "$tmp/pipe.ivf" 2>&1 >/dev/null)
case $err in
"cpuidle sim: /dev/fd/"*": an interval file, which is read from a regular file only"*) ok ;;
*) bad "an interval file through a pipe: $err" ;;
esac

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
