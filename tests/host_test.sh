#!/bin/sh
# host_test.sh CPUIDLE - the host commands (info, set, qos, monitor,
# platform --from-host) against fake sysfs trees (tests/fixtures/sysfs-*,
# through CPUIDLE_SYSFS_ROOT) and a fake /dev/cpu_dma_latency (through
# CPUIDLE_QOS_DEVICE).  Nothing here touches the real host.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
fx=$src/tests/fixtures
. "$src/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset CPUIDLE_QOS_DEVICE

# --- info ---------------------------------------------------------------
export CPUIDLE_SYSFS_ROOT=$fx/sysfs-haltpoll
if "$cli" info --json | python3 -c '
import json, os, sys
d = json.load(sys.stdin)
assert d["driver"] == "haltpoll" and d["governor"] == "haltpoll", d
assert d["governor_ro"] == "haltpoll"
assert d["available_governors"] == ["ladder", "menu", "haltpoll"], d
assert [c["cpu"] for c in d["cpus"]] == [0, 1]
for c in d["cpus"]:
    assert c["resume_latency_ns"] is None    # sysfs "0": no constraint
    s0, s1 = c["states"]
    assert s0["name"] == "POLL" and s0["desc"] == "CPUIDLE CORE POLL IDLE", s0
    assert s1["name"] == "haltpoll idle" and s1["desc"] == "default architecture idle", s1
    assert (s0["exit_latency_ns"], s0["target_residency_ns"], s1["exit_latency_ns"],
            s1["target_residency_ns"]) == (0, 0, 1000, 1000)
    assert s0["power_mw"] is None and s1["power_mw"] is None  # sysfs 4294967295: unknown
    # sysfs time: microseconds
    t = open("%s/devices/system/cpu/cpu%d/cpuidle/state1/time" % (os.environ["CPUIDLE_SYSFS_ROOT"],
                                                               c["cpu"])).read()
    assert s1["time_ns"] == int(t) * 1000, (s1, t)
    keys = {"index", "name", "desc", "exit_latency_ns", "target_residency_ns", "power_mw",
            "usage", "time_ns", "above", "below", "rejected", "disable", "s2idle_usage",
            "s2idle_time_ns", "default_status"}
    assert set(s0) == keys and set(s1) == keys, set(s0) ^ keys
    assert s1["default_status"] == "enabled" and s1["disable"] == 0
'; then ok; else bad "info --json on the haltpoll fixture"; fi
# --csv: a row per CPU and state with the JSON's names and values, unknown empty
for root in sysfs-haltpoll sysfs-odd; do
	if CPUIDLE_SYSFS_ROOT=$fx/$root "$cli" info --csv >"$tmp/info.csv" &&
		CPUIDLE_SYSFS_ROOT=$fx/$root "$cli" info --json >"$tmp/info.json" &&
		python3 - "$tmp/info.csv" "$tmp/info.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
want = [(c, s) for c in d["cpus"] for s in c["states"]]
assert len(rows) == len(want) > 0, (len(rows), len(want))
for r, (c, s) in zip(rows, want):
    assert int(r["cpu"]) == c["cpu"] and int(r["state_index"]) == s["index"], (r, s)
    assert r["state_name"] == (s["name"] or ""), (r, s)
    assert r["driver"] == c.get("driver", ""), (r, c)
    for k, v in r.items():
        if k in ("cpu", "driver", "state_index", "state_name"):
            continue
        if s[k] is None:
            assert v == "", (k, v, s)
        else:
            assert v == str(s[k]), (k, v, s[k])
PY
	then ok; else bad "info --csv against --json on $root"; fi
done
out=$("$cli" info --csv --json 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ]; then ok; else bad "info --csv --json: rc=$rc"; fi
# the numbers are the files' (one check by hand)
u=$(cat "$fx/sysfs-haltpoll/devices/system/cpu/cpu1/cpuidle/state1/usage")
if "$cli" info | grep -E "^  1 +haltpoll idle +default architecture idle +1 +1 +unknown +$u " >/dev/null
then ok; else bad "info table: cpu1 state1"; fi
if [ "$("$cli" info -c 1 --json | python3 -c 'import json,sys; print([c["cpu"] for c in json.load(sys.stdin)["cpus"]])')" = "[1]" ]
then ok; else bad "info -c 1"; fi
expect_fail "info -c beyond the CPUs" "CPU 7 has no cpuidle directory" info -c 0,7
expect_fail "info -c garbage" "is not a CPU list" info -c 1-0
expect_fail "info stray argument" "unexpected argument 'x'" info x

# no driver: said so, no CPUs listed, and no table to make
export CPUIDLE_SYSFS_ROOT=$fx/sysfs-nodriver
if "$cli" info --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["driver"] == "none" and d["governor"] == "menu" and d["cpus"] == [], d
'; then ok; else bad "info --json without a driver"; fi
if "$cli" info | grep -q "^no CPU has idle states (no cpuidle driver: the kernel idles in its default routine)$"
then ok; else bad "info without a driver: $("$cli" info)"; fi
expect_fail "platform --from-host without a driver" "no CPU has an idle state (driver none)" \
	platform --from-host

export CPUIDLE_SYSFS_ROOT=$fx/sysfs-odd
if "$cli" info --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["driver"] == "intel_idle" and d["governor_ro"] == "menu", d
assert d["governor"] is None and d["available_governors"] is None, d
assert [c["cpu"] for c in d["cpus"]] == [0, 1, 2], d["cpus"]
s = d["cpus"][0]["states"]
assert s[0]["power_mw"] is None and s[1]["power_mw"] == 0    # 4294967295: unknown
assert s[1]["name"] == "C1 ACPI"
assert s[1]["above"] is None and s[1]["below"] == 11, s[1]   # missing: null, not zero
assert s[2]["default_status"] == "disabled" and s[2]["disable"] == 1
assert s[2]["s2idle_usage"] == 3 and s[2]["s2idle_time_ns"] == 12000000
assert d["cpus"][2]["resume_latency_ns"] == 0    # sysfs "n/a": 0 us
'; then ok; else bad "info --json on the odd fixture"; fi
if "$cli" info | grep -E "^  1 +C1 ACPI +ACPI FFH MWAIT 0x0 +1 +1 +0 +50000 +9000000 +- +11 " >/dev/null &&
   "$cli" info | grep -q "current_governor_ro: cannot be switched"; then ok; else
	bad "info table: a missing file shows as -"; fi

export CPUIDLE_SYSFS_ROOT=$fx/sysfs-none
expect_fail "info without cpuidle" "no cpuidle in this kernel" info
expect_fail "set without cpuidle" "no cpuidle in this kernel" set -E
expect_fail "from-host without cpuidle" "no cpuidle in this kernel" platform --from-host
export CPUIDLE_SYSFS_ROOT=$tmp/nowhere
expect_fail "info on a missing root" "no cpuidle in this kernel" info

# a file holding what the kernel never writes: named in the error
cp -r "$fx/sysfs-haltpoll" "$tmp/garbled"
echo banana >"$tmp/garbled/devices/system/cpu/cpu1/cpuidle/state0/usage"
export CPUIDLE_SYSFS_ROOT=$tmp/garbled
expect_fail "garbled usage" "cpu1/cpuidle/state0/usage: not what the kernel writes" info

# --- platform --from-host -----------------------------------------------
export CPUIDLE_SYSFS_ROOT=$fx/sysfs-haltpoll
if "$cli" platform --from-host >"$tmp/h.platform" &&
   "$cli" platform show --json "$tmp/h.platform" | python3 -c '
import json, sys
p = json.load(sys.stdin)
assert p["name"] == "host"
s = p["states"]
assert [x["name"] for x in s] == ["POLL", "haltpoll idle"], s
assert [x["exit_latency_ns"] for x in s] == [0, 1000] and [x["target_residency_ns"] for x in s] == [0, 1000]
assert s[0]["power_mw"] is None and s[1]["power_mw"] is None, s
assert s[0]["flags"] & 0x10 and not s[1]["flags"] & 0x10, s   # polling
'; then ok; else bad "platform --from-host (haltpoll)"; fi
if grep -qx 'cpus 2' "$tmp/h.platform" && ! grep -q '^tick_hz' "$tmp/h.platform"; then ok; else
	bad "from-host: cpus 2, no tick from a fixture"; fi
if "$cli" platform --from-host myvm | grep -qx 'platform "myvm"'; then ok; else bad "from-host NAME"; fi
export CPUIDLE_SYSFS_ROOT=$fx/sysfs-odd
if "$cli" platform --from-host >"$tmp/o.platform" &&
   grep -q '^state "C1 ACPI" .*power_mw=0 model_power_mw=unknown' "$tmp/o.platform" &&
   grep -q '^state "C6" .*flags=time-valid,off' "$tmp/o.platform" &&
   [ "$("$cli" platform show "$tmp/o.platform" | grep -c '^cluster ')" = 2 ]; then ok; else
	bad "platform --from-host (odd): clusters, power 0, off"; fi
cp -r "$fx/sysfs-haltpoll" "$tmp/unordered"
echo 5 >"$tmp/unordered/devices/system/cpu/cpu0/cpuidle/state0/latency"
export CPUIDLE_SYSFS_ROOT=$tmp/unordered
expect_fail "from-host unordered" "shallowest first" platform --from-host

# --- set ----------------------------------------------------------------
cp -r "$fx/sysfs-haltpoll" "$tmp/rw"
export CPUIDLE_SYSFS_ROOT=$tmp/rw
d=$tmp/rw/devices/system/cpu
out=$("$cli" set -c 0 -d 1)
if [ "$(cat $d/cpu0/cpuidle/state1/disable)" = 1 ] && [ "$(cat $d/cpu1/cpuidle/state1/disable)" = 0 ] &&
   printf '%s' "$out" | grep -q 'cpu0 state1 (haltpoll idle): enabled -> disabled' &&
   printf '%s' "$out" | grep -qx '1 change'; then ok; else bad "set -c 0 -d 1: $out"; fi
out=$("$cli" set -d 'haltpoll idle')
if [ "$(cat $d/cpu1/cpuidle/state1/disable)" = 1 ] && printf '%s' "$out" | grep -q 'cpu0 state1 (haltpoll idle): disabled (unchanged)'
then ok; else bad "set -d NAME: $out"; fi
# a name in another case, as a user types it
out=$("$cli" set -c 1 -d 'HALTPOLL IDLE' -d poll 2>"$tmp/set.err")
if [ "$(cat $d/cpu1/cpuidle/state0/disable)$(cat $d/cpu1/cpuidle/state1/disable)" = 11 ] &&
   printf '%s' "$out" | grep -q 'cpu1 state0 (POLL): enabled -> disabled' &&
   grep -qx "cpuidle set: warning: cpu1: every idle state is disabled: its governor has nothing to choose (-E enables them again)" "$tmp/set.err" &&
   ! grep -q cpu0 "$tmp/set.err"; then ok; else
	bad "set -d in any case, every state disabled: $out $(cat "$tmp/set.err")"; fi
"$cli" set -c 1 -e 0 >/dev/null 2>"$tmp/set.err"
if [ ! -s "$tmp/set.err" ]; then ok; else bad "set -e 0: a warning: $(cat "$tmp/set.err")"; fi
# -q: the warning not said, the change made and reported all the same
out=$("$cli" set -q -c 1 -d 0 2>"$tmp/set.err")
if [ "$(cat $d/cpu1/cpuidle/state0/disable)$(cat $d/cpu1/cpuidle/state1/disable)" = 11 ] &&
   printf '%s' "$out" | grep -q 'cpu1 state0 (POLL): enabled -> disabled' && [ ! -s "$tmp/set.err" ]
then ok; else bad "set -q, every state disabled: $out $(cat "$tmp/set.err")"; fi
"$cli" set -c 1 -e 0 >/dev/null 2>&1
out=$("$cli" set -E)
if [ "$(cat $d/cpu0/cpuidle/state1/disable)$(cat $d/cpu1/cpuidle/state1/disable)" = 00 ] &&
   printf '%s' "$out" | grep -qx '2 changes'; then ok; else bad "set -E: $out"; fi
"$cli" set -D 0 >/dev/null
if [ "$(cat $d/cpu0/cpuidle/state0/disable)$(cat $d/cpu0/cpuidle/state1/disable)$(cat $d/cpu1/cpuidle/state1/disable)" = 011 ]
then ok; else bad "set -D 0: only POLL left"; fi
"$cli" set -D 1 >/dev/null
if [ "$(cat $d/cpu0/cpuidle/state1/disable)" = 0 ]; then ok; else bad "set -D 1 enables state1"; fi
out=$("$cli" set -g menu)
if [ "$(cat $d/cpuidle/current_governor)" = menu ] && printf '%s' "$out" | grep -q 'governor: haltpoll -> menu'
then ok; else bad "set -g menu: $out"; fi
expect_fail "set unknown governor" "unknown governor 'nosuch' (available: ladder menu haltpoll)" set -g nosuch
expect_fail "set unknown state" "cpu0 has no state 'C9'" set -d C9
expect_fail "set state index out of range" "has no state '2'" set -e 2
expect_fail "set nothing" "nothing to do" set -c 0
expect_fail "set -D garbage" "-D: 'x' is not a latency" set -D x
expect_fail "set stray" "unexpected argument 'y'" set -E y
rm "$d/cpu1/cpuidle/state1/disable"
expect_fail "set without a disable file" "cpu1 state1 (haltpoll idle): this kernel has no disable file" set -d 1
# -c all with a present CPU that has no cpuidle directory (offline): said
cp -r "$fx/sysfs-odd" "$tmp/offline"
out=$(CPUIDLE_SYSFS_ROOT=$tmp/offline "$cli" set -d 1 2>"$tmp/offline.err")
if printf '%s' "$out" | grep -qx '3 changes' &&
   grep -qx 'cpuidle set: note: CPU 3 not changed: present, but without a cpuidle directory (offline, or without a driver)' \
	"$tmp/offline.err"; then ok; else bad "set -d 1 with CPU 3 offline: $out $(cat "$tmp/offline.err")"; fi
export CPUIDLE_SYSFS_ROOT=$fx/sysfs-odd
expect_fail "set -g on a read-only governor" "current_governor_ro only" set -g ladder

# not root: the real sysfs is refused before any write; a fake one by the kernel's rules
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	unset CPUIDLE_SYSFS_ROOT
	if [ -d /sys/devices/system/cpu/cpuidle ]; then
		err=$(asnobody "$cli" set -E 2>&1 >/dev/null)
		if [ $? -ne 0 ] && printf '%s' "$err" | grep -q "needs root"; then ok; else
			bad "set as nobody on the real sysfs: $err"; fi
	fi
	cp -r "$fx/sysfs-haltpoll" "$tmp/ro"
	chmod -R a+rX "$tmp"
	err=$(CPUIDLE_SYSFS_ROOT=$tmp/ro asnobody "$cli" set -d 1 2>&1 >/dev/null)
	if [ $? -ne 0 ] && printf '%s' "$err" | grep -q "Permission denied (changing cpuidle needs root)"; then ok
	else bad "set as nobody on a root-owned tree: $err"; fi
	# qos show without root: the device is root's, the CPUs' limits are not
	printf '\000\000\000\000' >"$tmp/rootdev"
	chmod 600 "$tmp/rootdev"
	out=$(CPUIDLE_SYSFS_ROOT=$fx/sysfs-odd CPUIDLE_QOS_DEVICE=$tmp/rootdev \
	      asnobody "$cli" qos show 2>&1)
	if [ $? -eq 0 ] && printf '%s' "$out" | grep -q "^CPU latency QoS: not known (.*rootdev is readable by root alone)" &&
	   printf '%s' "$out" | grep -qE '^cpu2 +0 \(n/a\) +at most 0$'; then ok; else
		bad "qos show as nobody: $out"; fi
	if CPUIDLE_SYSFS_ROOT=$fx/sysfs-odd CPUIDLE_QOS_DEVICE=$tmp/rootdev asnobody "$cli" qos show --json |
	   python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["cpu_dma_latency_ns"] is None and d["constrained"] is None, d
assert [c["resume_latency_ns"] for c in d["cpus"]] == [None, None, 0], d
assert all(c["effective_latency_ns"] is None for c in d["cpus"]), d'; then ok; else
		bad "qos show --json as nobody"; fi
else
	echo "skipping the not-root checks: not root, or no setpriv"
fi

# --- qos, on a fake device ----------------------------------------------
export CPUIDLE_SYSFS_ROOT=$fx/sysfs-odd
dev=$tmp/cpu_dma_latency
printf '\000\000\000\000' >"$dev"
export CPUIDLE_QOS_DEVICE=$dev
out=$("$cli" qos show)
if printf '%s' "$out" | grep -qx 'CPU latency QoS: 0 us' &&
   printf '%s' "$out" | grep -qE '^cpu2 +0 \(n/a\) +0$'; then ok; else bad "qos show: $out"; fi
if "$cli" qos show --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["cpu_dma_latency_ns"] == 0 and d["constrained"], d
assert [c["resume_latency_ns"] for c in d["cpus"]] == [None, None, 0], d
assert [c["effective_latency_ns"] for c in d["cpus"]] == [0, 0, 0], d'; then ok; else
	bad "qos show --json"; fi
# --csv: the device's row, then a row per CPU, the JSON's values (null empty);
# a request of 20 us, and none (the kernel's 2000000000: null)
for req in '\024\000\000\000' '\000\224\065\167'; do
	printf "$req" >"$dev"
	if "$cli" qos show --csv >"$tmp/qos.csv" && "$cli" qos show --json >"$tmp/qos.json" &&
	   python3 - "$tmp/qos.csv" "$tmp/qos.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
def cell(v):
    return "" if v is None else str(int(v)) if isinstance(v, bool) else str(v)
assert rows[0]["cpu"] == "" and rows[0]["resume_latency_ns"] == "", rows[0]
assert [r["cpu"] for r in rows[1:]] == [str(c["cpu"]) for c in d["cpus"]], rows
for r in rows:
    assert r["cpu_dma_latency_ns"] == cell(d["cpu_dma_latency_ns"]), (r, d)
    assert r["constrained"] == cell(d["constrained"]), (r, d)
for r, c in zip(rows[1:], d["cpus"]):
    for k in ("resume_latency_ns", "effective_latency_ns"):
        assert r[k] == cell(c[k]), (k, r, c)
assert d["cpu_dma_latency_ns"] in (20000, None), d
PY
	then ok; else bad "qos show --csv against --json ($req)"; fi
done
printf '\000\000\000\000' >"$dev"
# hold writes a binary s32 and keeps it while CMD runs; CMD's status comes back
got=$("$cli" qos hold 1234 -- od -An -td4 "$dev" 2>/dev/null | tr -d ' ')
if [ "$got" = 1234 ]; then ok; else bad "qos hold 1234 wrote '$got'"; fi
"$cli" qos hold 5 -- sh -c 'exit 7' 2>/dev/null
if [ $? -eq 7 ]; then ok; else bad "qos hold: CMD's exit status"; fi
# what it holds is said, but not under -q (before USEC, or before hold)
"$cli" qos hold 5 -- true 2>"$tmp/hold.err" && grep -q '^cpuidle qos: holding 5 us' "$tmp/hold.err" &&
   "$cli" qos hold -q 5 -- true 2>"$tmp/hold.err" && [ ! -s "$tmp/hold.err" ] &&
   "$cli" qos -q hold 5 -- true 2>"$tmp/hold.err" && [ ! -s "$tmp/hold.err" ] && ok ||
	bad "qos hold -q: $(cat "$tmp/hold.err")"
# without CMD: until SIGTERM
"$cli" qos hold 77 2>"$tmp/hold.err" &
hp=$!
sleep 0.3
got=$(od -An -td4 "$dev" | tr -d ' ')
kill -TERM $hp
wait $hp
rc=$?
if [ "$got" = 77 ] && [ $rc -eq 0 ] && grep -q 'released' "$tmp/hold.err"; then ok; else
	bad "qos hold until SIGTERM: got=$got rc=$rc $(cat "$tmp/hold.err")"; fi
expect_fail "qos hold negative" "'-5' is not a latency" qos hold -5
expect_fail "qos hold too large" "is not a latency" qos hold 2000000001
expect_fail "qos hold missing --" "after USEC comes -- CMD" qos hold 10 sleep 1
expect_fail "qos hold missing command" "cannot run 'nosuchcmd'" qos hold 10 -- nosuchcmd
# a command that is not there exits 127, one that cannot run 126, as a shell's
"$cli" qos hold 10 -- nosuchcmd 2>/dev/null; rc=$?
[ $rc -eq 127 ] && ok || bad "qos hold -- nosuchcmd: rc=$rc"
"$cli" qos hold 10 -- /dev/null 2>/dev/null; rc=$?
[ $rc -eq 126 ] && ok || bad "qos hold -- /dev/null: rc=$rc"
expect_fail "qos unknown" "not a qos command" qos frob
export CPUIDLE_QOS_DEVICE=$tmp/nodev
expect_fail "qos without a device" "no CPU latency QoS device" qos show
unset CPUIDLE_QOS_DEVICE

# --- monitor ------------------------------------------------------------
cp -r "$fx/sysfs-haltpoll" "$tmp/mon"
export CPUIDLE_SYSFS_ROOT=$tmp/mon
s=$tmp/mon/devices/system/cpu/cpu1/cpuidle/state1
u0=$(cat $s/usage)
t0=$(cat $s/time)
b0=$(cat $s/below)
# CMD bumps the counters and ends: the run stops at once, the summary has the deltas
"$cli" monitor -i 60 -- sh -c "echo $((u0 + 40)) >$s/usage; echo $((t0 + 100)) >$s/time; echo $((b0 + 3)) >$s/below" \
	>"$tmp/mon.out"
rc=$?
if [ $rc -eq 0 ] && grep -q '^summary: .*1 interval, the command ended' "$tmp/mon.out" &&
   [ "$(grep -c 'cpu1 state1 "haltpoll idle" usage=40 time%=[0-9.]* above=0 below=3$' "$tmp/mon.out")" = 2 ] &&
   [ "$(grep -c 'usage=0 time%=0.00 above=0 below=0$' "$tmp/mon.out")" = 6 ]; then ok; else
	bad "monitor -- CMD: rc=$rc $(cat "$tmp/mon.out")"; fi
# the same with --json: one object per interval and the summary, the deltas as numbers
u0=$(cat $s/usage)
t0=$(cat $s/time)
b0=$(cat $s/below)
"$cli" monitor --json -i 60 -c 1 -- sh -c "echo $((u0 + 7)) >$s/usage; echo $((t0 + 50)) >$s/time; echo $((b0 + 2)) >$s/below; exit 4" \
	>"$tmp/mon.json"
rc=$?
if [ $rc -eq 4 ] && python3 - "$tmp/mon.json" <<'PY'; then ok; else bad "monitor --json: rc=$rc $(cat "$tmp/mon.json")"; fi
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert len(lines) == 2, lines
iv, summ = lines
assert iv["interval"] == 1 and "summary" not in iv
assert summ["summary"] is True and summ["intervals"] == 1 and summ["command_exit"] == 4
assert summ["driver"] == "haltpoll"
for d in lines:
    assert [c["cpu"] for c in d["cpus"]] == [1], d
    st = d["cpus"][0]["states"]
    assert [s["name"] for s in st] == ["POLL", "haltpoll idle"], st
    assert (st[1]["usage"], st[1]["time_ns"], st[1]["above"], st[1]["below"]) == \
        (7, 50000, 0, 2), st
    assert (st[0]["usage"], st[0]["time_ns"]) == (0, 0), st
    assert d["span_ns"] > 0 and d["elapsed_ns"] >= d["span_ns"], d
PY
# the same with --csv: a row per interval, CPU and state, the summary's marked
u0=$(cat $s/usage)
t0=$(cat $s/time)
b0=$(cat $s/below)
"$cli" monitor --csv -i 60 -c 1 -- sh -c "echo $((u0 + 5)) >$s/usage; echo $((t0 + 30)) >$s/time; echo $((b0 + 1)) >$s/below" \
	>"$tmp/mon.csv"
rc=$?
if [ $rc -eq 0 ] && python3 - "$tmp/mon.csv" <<'PY'; then ok; else bad "monitor --csv: rc=$rc $(cat "$tmp/mon.csv")"; fi
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [(r["interval"], r["summary"], r["cpu"], r["state_name"]) for r in rows] == [
    ("1", "0", "1", "POLL"), ("1", "0", "1", "haltpoll idle"),
    ("1", "1", "1", "POLL"), ("1", "1", "1", "haltpoll idle")], rows
for r in rows[1], rows[3]:
    assert (r["usage"], r["time_ns"], r["above"], r["below"]) == ("5", "30000", "0", "1"), r
PY
out=$("$cli" monitor --csv --json -n 1 2>/dev/null); rc=$?
if [ $rc -eq 2 ] && [ -z "$out" ]; then ok; else bad "monitor --csv --json: rc=$rc"; fi
if [ "$("$cli" monitor -i 0.05 -n 3 -c 0 | grep -c '^[0-9.]* cpu0 state')" = 8 ]; then ok; else
	bad "monitor -n 3 -c 0: 3 intervals and the summary of 2 states"; fi
# a failed write (a full disk) ends the run at once, with a message
err=$(timeout 10 "$cli" monitor -i 0.05 2>&1 >/dev/full)
rc=$?
if [ $rc -eq 1 ] && printf '%s' "$err" | grep -q 'monitor: stdout: No space left on device'; then ok
else bad "monitor >/dev/full: rc=$rc $err"; fi
"$cli" monitor -i 0.05 -- sh -c 'exit 5' >/dev/null
if [ $? -eq 5 ]; then ok; else bad "monitor: CMD's exit status"; fi
# a CPU going offline while CMD runs: said, naming it; monitoring stops,
# CMD is left to finish (its exit status is the run's), the summary made
# of the intervals before; without CMD, the run ends with status 1
c=$tmp/mon/devices/system/cpu
"$cli" monitor -i 0.05 -- sh -c "sleep 0.3; mv $c/cpu1/cpuidle $c/cpu1/cpuidle.off; sleep 0.5; touch $tmp/mon.finished; exit 3" \
	>"$tmp/mon.out" 2>"$tmp/mon.err"
rc=$?
if [ $rc -eq 3 ] && [ -e "$tmp/mon.finished" ] &&
   grep -q "monitor: the CPUs or idle states changed (CPU hotplug or a new driver: CPU 1 gone): monitoring stops; waiting for the command" "$tmp/mon.err" &&
   grep -q '^summary: .*the command failed' "$tmp/mon.out"; then ok; else
	bad "monitor -- CMD with a CPU going offline: rc=$rc $(cat "$tmp/mon.err")"; fi
mv "$c/cpu1/cpuidle.off" "$c/cpu1/cpuidle"
( sleep 0.3; mv "$c/cpu1/cpuidle" "$c/cpu1/cpuidle.off" ) &
"$cli" monitor -i 0.05 >"$tmp/mon.out" 2>"$tmp/mon.err"
rc=$?
wait
if [ $rc -eq 1 ] && grep -q "CPU 1 gone): monitoring stops$" "$tmp/mon.err" &&
   grep -q '^summary: ' "$tmp/mon.out"; then ok; else
	bad "monitor with a CPU going offline: rc=$rc $(cat "$tmp/mon.err")"; fi
mv "$c/cpu1/cpuidle.off" "$c/cpu1/cpuidle"
expect_fail "monitor -i 0" "-i: '0' is not an interval" monitor -i 0
expect_fail "monitor -n x" "-n: 'x' is not a count" monitor -n x
expect_fail "monitor without --" "a command goes after --" monitor sleep 1
expect_fail "monitor missing command" "cannot run 'nosuchcmd'" monitor -- nosuchcmd
"$cli" monitor -- nosuchcmd >/dev/null 2>&1; rc=$?
[ $rc -eq 127 ] && ok || bad "monitor -- nosuchcmd: rc=$rc"

# --- record: bad input only (recording is a live test) -------------------
expect_fail "record without -o" "no output: give -o FILE" record -t 1
expect_fail "record -t 0" "-t: '0' is not a duration" record -o "$tmp/x" -t 0
expect_fail "record stray" "a command goes after --" record -o "$tmp/x" sleep

# --- help -----------------------------------------------------------------
for c in info set qos monitor record; do
	if "$cli" $c --help | grep -q "^usage: cpuidle $c" && "$cli" --help | grep -q "^  $c "; then ok; else
		bad "$c --help, and a line in cpuidle --help"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
