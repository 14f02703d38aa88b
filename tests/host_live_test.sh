#!/bin/sh
# host_live_test.sh CPUIDLE CHECK - the host commands on this machine's real
# cpuidle.  CHECK is one of info, cpupower, set, qos, monitor, record, advise.  Each
# skips (exit 77, meson's "skipped") saying why where it cannot run: no
# cpuidle in the kernel, no driver, not root, no cpupower.  Whatever a check
# changes (a state's disable, the governor) is put back, also on failure.
set -u
cli=$1
check=$2
sys=/sys/devices/system/cpu
unset CPUIDLE_SYSFS_ROOT CPUIDLE_QOS_DEVICE

skip() { echo "SKIP: $check: $*"; exit 77; }
die() { echo "FAIL: $check: $*"; exit 1; }

[ -d $sys/cpuidle ] || skip "no $sys/cpuidle: this kernel has no cpuidle"
driver=$(cat $sys/cpuidle/current_driver)
# record also works without a driver: the kernel's default idle is traced
if [ "$check" != record ]; then
	[ "$driver" != none ] || skip "cpuidle has no driver (current_driver is none)"
	[ -d $sys/cpu0/cpuidle/state0 ] || skip "cpu0 has no idle states"
fi
need_root() { [ "$(id -u)" = 0 ] || skip "needs root ($*)"; }

tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp"; }
trap cleanup EXIT

# the checks that change the host (or expect it unchanged) run one at a time,
# also across build trees and test runs on the same machine
case $check in
set | qos | record | advise)
	if [ "$(id -u)" = 0 ] && command -v flock >/dev/null 2>&1; then
		exec 9>"${TMPDIR:-/tmp}/cpuidle-host-live-test.lock"
		flock -w 300 9 || die "another live test holds the lock"
	fi
	;;
esac

case $check in
info)
	# every value we print is the file's, read around ours so counters may only grow
	"$cli" info --json >"$tmp/info.json" || die "info --json failed"
	python3 - "$tmp/info.json" $sys <<'PY' || die "info differs from sysfs"
import json, os, sys
d = json.load(open(sys.argv[1])); root = sys.argv[2]
def rd(p):
    try:
        return open(p).read().rstrip("\n")
    except FileNotFoundError:
        return None
assert d["driver"] == rd(root + "/cpuidle/current_driver")
for c in d["cpus"]:
    for s in c["states"]:
        base = "%s/cpu%d/cpuidle/state%d/" % (root, c["cpu"], s["index"])
        for f in ("name", "desc", "default_status"):
            assert s[f] == rd(base + f), (base, f)
        # the JSON's name, the sysfs file's, its scale (microseconds to ns)
        for k, f, scale in (("exit_latency_ns", "latency", 1000),
                            ("target_residency_ns", "residency", 1000),
                            ("power_mw", "power", 1), ("disable", "disable", 1)):
            v = rd(base + f)
            # a power of 4294967295 (the kernel's -1) is unknown: null
            want = None if v is None or (f == "power" and int(v) == 4294967295) else \
                int(v) * scale
            assert s[k] == want, (base, f)
        for k, f, scale in (("usage", "usage", 1), ("time_ns", "time", 1000),
                            ("above", "above", 1), ("below", "below", 1),
                            ("rejected", "rejected", 1)):
            v = rd(base + f)
            if v is None:
                assert s[k] is None, (base, f)
            else:
                assert s[k] <= int(v) * scale, (base, f, s[k], v)
print("info agrees with sysfs on %d CPUs" % len(d["cpus"]))
PY
	;;
cpupower)
	command -v cpupower >/dev/null 2>&1 || skip "no cpupower (Debian package linux-cpupower)"
	cpupower -c all idle-info >"$tmp/before.txt" 2>/dev/null || skip "cpupower idle-info fails here"
	"$cli" info --json >"$tmp/ours.json" || die "info --json failed"
	cpupower -c all idle-info >"$tmp/after.txt" 2>/dev/null
	python3 - "$tmp/ours.json" "$tmp/before.txt" "$tmp/after.txt" <<'PY' || die "info and cpupower idle-info disagree"
import json, re, sys
ours = json.load(open(sys.argv[1]))
def parse(path):
    """cpupower idle-info: driver, governor, per CPU: names, desc, latency, usage, duration"""
    text = open(path).read()
    out = {"driver": re.search(r"^CPUidle driver: (.*)$", text, re.M).group(1),
           "governor": re.search(r"^CPUidle governor: (.*)$", text, re.M).group(1), "cpus": {}}
    for m in re.finditer(r"^analyzing CPU (\d+):\n(.*?)(?=^analyzing CPU|\Z)", text, re.M | re.S):
        body = m.group(2)
        n = int(re.search(r"^Number of idle states: (\d+)$", body, re.M).group(1))
        states = re.findall(r"^(.+?)(?: \(DISABLED\) )?:\nFlags/Description: (.*)\nLatency: (\d+)\n"
                            r"Usage: (\d+)\nDuration: (\d+)$", body, re.M)
        assert len(states) == n, (m.group(1), n, states)
        out["cpus"][int(m.group(1))] = states
    return out
a, b = parse(sys.argv[2]), parse(sys.argv[3])
assert ours["driver"] == a["driver"], (ours["driver"], a["driver"])
assert ours.get("governor", ours.get("governor_ro")) == a["governor"]
checked = 0
for c in ours["cpus"]:
    pa, pb = a["cpus"][c["cpu"]], b["cpus"][c["cpu"]]
    assert len(pa) == len(c["states"]), (c["cpu"], len(pa))
    for s, x, y in zip(c["states"], pa, pb):
        assert s["name"] == x[0].rstrip(), (s["name"], x[0])
        assert s["desc"] == x[1] and s["exit_latency_ns"] == int(x[2]) * 1000, (s, x)
        assert int(x[3]) <= s["usage"] <= int(y[3]), ("usage", s, x, y)
        assert int(x[4]) * 1000 <= s["time_ns"] <= int(y[4]) * 1000, ("time", s, x, y)
        checked += 1
print("cpupower idle-info agrees: driver %s, governor %s, %d CPU states (name, desc, latency, usage, duration)"
      % (a["driver"], a["governor"], checked))
PY
	;;
set)
	need_root "writing sysfs"
	last=$(($(ls -d $sys/cpu0/cpuidle/state* | wc -l) - 1))
	saved=$(cat $sys/cpu0/cpuidle/state$last/disable)
	gov=$(cat $sys/cpuidle/current_governor 2>/dev/null || echo)
	restore() {
		echo "$saved" >$sys/cpu0/cpuidle/state$last/disable
		[ -n "$gov" ] && echo "$gov" >$sys/cpuidle/current_governor
		rm -rf "$tmp"
	}
	trap restore EXIT
	trap 'exit 1' INT TERM
	"$cli" set -c 0 -d $last >"$tmp/out" || die "set -d failed: $(cat "$tmp/out")"
	[ "$(cat $sys/cpu0/cpuidle/state$last/disable)" = 1 ] || die "state$last not disabled"
	grep -q "cpu0 state$last (.*): .*disabled" "$tmp/out" || die "no report: $(cat "$tmp/out")"
	"$cli" set -c 0 -e $last >"$tmp/out" || die "set -e failed"
	[ "$(cat $sys/cpu0/cpuidle/state$last/disable)" = 0 ] || die "state$last not enabled"
	echo "cpu0 state$last: disabled and enabled again through sysfs"
	if [ -n "$gov" ]; then
		other=$(tr ' ' '\n' <$sys/cpuidle/available_governors | grep -v "^$gov\$" | grep . | head -1)
		if [ -n "$other" ]; then
			"$cli" set -g "$other" >"$tmp/out" || die "set -g $other failed"
			[ "$(cat $sys/cpuidle/current_governor)" = "$other" ] || die "governor not switched"
			grep -q "governor: $gov -> $other" "$tmp/out" || die "no report: $(cat "$tmp/out")"
			"$cli" set -g "$gov" >/dev/null || die "set -g $gov failed"
			echo "governor: $gov -> $other -> $gov"
		fi
	fi
	;;
qos)
	need_root "/dev/cpu_dma_latency"
	[ -c /dev/cpu_dma_latency ] || skip "no /dev/cpu_dma_latency"
	state0=$(cat $sys/cpu0/cpuidle/state0/name)
	[ "$state0" = POLL ] || skip "state0 of cpu0 is '$state0', not the polling state POLL"
	[ -d $sys/cpu0/cpuidle/state1 ] || skip "only one idle state"
	before=$("$cli" qos show --json | python3 -c 'import json,sys; v = json.load(sys.stdin)["cpu_dma_latency_ns"]; print("none" if v is None else v)')
	[ "$before" != 0 ] || skip "a CPU latency request of 0 us is already held"
	# snapshots taken while 0 us is held: only POLL may be entered
	"$cli" qos hold 0 -- sh -c "\"$cli\" qos show --json >$tmp/held.json; \"$cli\" info --json >$tmp/a.json; sleep 1; \"$cli\" info --json >$tmp/b.json" \
		2>/dev/null || die "qos hold failed"
	after=$("$cli" qos show --json | python3 -c 'import json,sys; v = json.load(sys.stdin)["cpu_dma_latency_ns"]; print("none" if v is None else v)')
	# exit 3: no CPU went idle in the second (a saturated host): no evidence
	python3 - "$tmp/held.json" "$tmp/a.json" "$tmp/b.json" "$before" "$after" <<'PY'
import json, sys
held = json.load(open(sys.argv[1]))
assert held["cpu_dma_latency_ns"] == 0, held
assert sys.argv[4] == sys.argv[5], ("the request outlived the hold", sys.argv[4], sys.argv[5])
a, b = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
poll = other = 0
for ca, cb in zip(a["cpus"], b["cpus"]):
    for sa, sb in zip(ca["states"], cb["states"]):
        d = sb["usage"] - sa["usage"]
        print("cpu%d %-14s usage +%d time +%d us" % (ca["cpu"], sa["name"], d,
                                                     (sb["time_ns"] - sa["time_ns"]) // 1000))
        if sa["name"] == "POLL":
            poll += d
        else:
            other += d
if poll == 0 and other == 0:
    sys.exit(3)
assert poll > 0 and other == 0, (poll, other)
print("under 0 us: POLL +%d entries, every other state +0; the limit was %s ns before and after"
      % (poll, sys.argv[4]))
PY
	rc=$?
	[ $rc -ne 3 ] || skip "no CPU entered any idle state in a second: the host is saturated"
	[ $rc -eq 0 ] || die "POLL only under 0 us"
	;;
monitor)
	n=$(ls -d $sys/cpu*/cpuidle/state* | wc -l)
	lines=$("$cli" monitor -i 0.2 -n 2 | grep -c '^[0-9.]* cpu[0-9]* state[0-9]* ')
	[ "$lines" = $((3 * n)) ] || die "monitor -n 2: $lines lines for $n states, not $((3 * n))"
	"$cli" monitor -i 0.2 -- sleep 0.5 | grep -q '^summary: .*the command ended' || die "monitor -- sleep"
	echo "monitor: 2 intervals and a summary of $n CPU states"
	;;
record)
	# options are checked before anything else, root or not
	"$cli" record --perf --tracefs -o "$tmp/both.txt" -t 0.01 -- true >"$tmp/out" 2>&1 &&
		die "record --perf --tracefs accepted"
	grep -q 'record: --perf and --tracefs: choose one' "$tmp/out" || die "record --perf --tracefs: $(cat "$tmp/out")"
	[ -e "$tmp/both.txt" ] && die "record --perf --tracefs left $tmp/both.txt"
	need_root "tracing"
	# events_said ERRFILE TRACE: "N events (M tracepoints)" on ERRFILE, N the
	# trace's events (its lines but comments)
	events_said() {
		said=$(sed -n 's/^cpuidle record: \([0-9]*\) events ([0-9]* tracepoints) through .*/\1/p' "$1")
		lines=$(grep -vc '^#' "$2")
		[ -n "$said" ] && [ "$said" = "$lines" ] ||
			die "record: said '$(cat "$1")', the trace has $lines events"
	}
	# sig_record WAY HOW SIG [-- CMD...]: a recording stopped by SIG, sent
	# to cpuidle alone (HOW self) or to its process group (HOW group) once
	# it is under way, must end as if interrupted: exit 0 (or 128 + SIG from
	# a command the signal ended first), a trace the lab reads, nothing left
	sig_record() {
		way=$1 how=$2 sig=$3
		shift 3
		rm -f "$tmp/s.txt" "$tmp/s.txt.platform"
		if [ $how = group ]; then
			setsid "$cli" record $way --text -o "$tmp/s.txt" "$@" 2>"$tmp/s.err" &
		else
			"$cli" record $way --text -o "$tmp/s.txt" "$@" 2>"$tmp/s.err" &
		fi
		pid=$!
		# under way: perf has begun its data file, tracefs copies events
		i=0
		while [ $i -lt 300 ]; do
			if [ $way = --perf ]; then
				[ -s "$tmp/s.txt.perf.data" ] && break
			else
				[ "$(grep -vc '^#' "$tmp/s.txt" 2>/dev/null)" -gt 0 ] 2>/dev/null && break
			fi
			sleep 0.1
			i=$((i + 1))
		done
		sleep 0.5
		if [ $how = group ]; then kill -$sig -$pid; else kill -$sig $pid; fi
		wait $pid
		rc=$?
		what="record $way $* stopped by SIG$sig to $([ $how = group ] && echo its group || echo cpuidle)"
		case $sig in HUP) signo=1 ;; INT) signo=2 ;; TERM) signo=15 ;; esac
		case $rc in
		0) ;;
		$((128 + signo))) [ $# -gt 0 ] || die "$what: exit $rc: $(cat "$tmp/s.err")" ;;
		*) die "$what: exit $rc: $(cat "$tmp/s.err")" ;;
		esac
		[ -s "$tmp/s.txt" ] && ! grep -q failed "$tmp/s.err" ||
			die "$what: no trace: $(cat "$tmp/s.err")"
		events_said "$tmp/s.err" "$tmp/s.txt"
		[ "$said" -gt 0 ] || die "$what: no event recorded: $(cat "$tmp/s.err")"
		[ -e "$tmp/s.txt.perf.data" ] && die "$what: left s.txt.perf.data"
		"$cli" stats "$tmp/s.txt" >/dev/null 2>"$tmp/stats.err" ||
			grep -q 'no idle entries' "$tmp/stats.err" ||
			die "$what: stats cannot read it: $(cat "$tmp/stats.err")"
		echo "$what: $(grep -vc '^#' "$tmp/s.txt") events, exit $rc"
	}
	ran=0 busy=
	for way in --perf --tracefs; do
		if [ $way = --perf ] && ! perf --version >/dev/null 2>&1; then
			echo "no working perf: --perf not checked"
			continue
		fi
		before=$(ls /sys/kernel/tracing/instances 2>/dev/null | wc -l)
		# a command that cannot run: said so, and no file left
		"$cli" record $way --text -o "$tmp/nx.txt" -- /nonexistent 2>"$tmp/nx.err"
		rc=$?
		# not found exits 127, as a shell's (and qos hold's, monitor's)
		[ $rc = 127 ] || die "record $way -- /nonexistent: exit $rc, not 127"
		grep -q "record: cannot run '/nonexistent': No such file or directory" "$tmp/nx.err" ||
			die "record $way -- /nonexistent: $(cat "$tmp/nx.err")"
		for f in "$tmp"/nx.txt*; do
			[ -e "$f" ] && die "record $way -- /nonexistent left $f"
		done
		echo "$way -- /nonexistent: $(cat "$tmp/nx.err"); exit 127, no file left"
		# one that is there but cannot run: 126
		"$cli" record $way --text -o "$tmp/nx.txt" -- /dev/null 2>"$tmp/nx.err"
		rc=$?
		[ $rc = 126 ] && grep -q "record: cannot run '/dev/null': Permission denied" "$tmp/nx.err" ||
			die "record $way -- /dev/null: exit $rc, not 126: $(cat "$tmp/nx.err")"
		for f in "$tmp"/nx.txt*; do
			[ -e "$f" ] && die "record $way -- /dev/null left $f"
		done
		# -q: a recording, and nothing said on stderr
		"$cli" record -q $way --text -o "$tmp/q.txt" -t 0.3 2>"$tmp/q.err" ||
			die "record -q $way: $(cat "$tmp/q.err")"
		[ -s "$tmp/q.txt" ] && [ ! -s "$tmp/q.err" ] ||
			die "record -q $way said: $(cat "$tmp/q.err")"
		rm -f "$tmp"/q.txt*

		# SIGINT, SIGTERM and SIGHUP, to cpuidle or to its whole group (perf
		# is the one they used to kill; tracefs: two of them)
		sig_record $way self HUP
		if command -v setsid >/dev/null 2>&1; then
			[ $way = --perf ] && sig_record $way group INT
			[ $way = --perf ] && sig_record $way group HUP
			sig_record $way group TERM -- sleep 60
		fi
		if [ $way = --perf ] && command -v timeout >/dev/null 2>&1; then
			# timeout(1) sends SIGTERM to the command and to its own group
			rm -f "$tmp/z.txt"
			timeout 4 "$cli" record $way --text -o "$tmp/z.txt" 2>"$tmp/z.err"
			rc=$?
			[ $rc = 124 ] || die "timeout 4 record $way: exit $rc: $(cat "$tmp/z.err")"
			[ -s "$tmp/z.txt" ] && ! grep -q failed "$tmp/z.err" ||
				die "timeout 4 record $way: no trace: $(cat "$tmp/z.err")"
			events_said "$tmp/z.err" "$tmp/z.txt"
			echo "timeout 4 record $way: $(grep -vc '^#' "$tmp/z.txt") events"
		fi
		# an instance a killed recording left (its PID gone) is removed
		# and said by the next recording; a running one's is left alone
		stale= live=
		if [ $way = --tracefs ] && [ -d /sys/kernel/tracing/instances ]; then
			sh -c 'exit 0' &
			dead=$!
			wait $dead
			stale=/sys/kernel/tracing/instances/cpuidle-record-$dead
			live=/sys/kernel/tracing/instances/cpuidle-record-$$
			mkdir "$stale" "$live" || die "cannot make tracefs instances to test with"
			echo 1 >"$stale/events/power/cpu_idle/enable"
		fi
		# a CPU kept busy by other work may not idle at all: up to 3 tries
		for try in 1 2 3; do
			rm -f "$tmp/t.txt"	# record never replaces an earlier recording
			"$cli" record $way --text -o "$tmp/t.txt" -t 2 -- sh -c 'i=0; while [ $i -lt 50 ]; do sleep 0.02; i=$((i+1)); done' \
				2>"$tmp/rec.err" || die "record $way: $(cat "$tmp/rec.err")"
			[ $try = 1 ] && cp "$tmp/rec.err" "$tmp/rec1.err"
			if [ "$driver" = none ]; then
				# no table to write: said so, none written, and a platform to use
				[ -e "$tmp/t.txt.platform" ] && die "record $way: a t.txt.platform with no driver"
				grep -q "no CPU has an idle state (driver none): no .*t.txt.platform written" "$tmp/rec.err" ||
					die "record $way, no driver: $(cat "$tmp/rec.err")"
				grep -q "replay with: cpuidle sim -p PLATFORM " "$tmp/rec.err" ||
					die "record $way, no driver: $(cat "$tmp/rec.err")"
				platform=laptop
			else
				[ -s "$tmp/t.txt.platform" ] || die "record $way: no t.txt.platform"
				"$cli" platform show "$tmp/t.txt.platform" >/dev/null ||
					die "record $way: platform does not parse"
				platform=$tmp/t.txt.platform
			fi
			events_said "$tmp/rec.err" "$tmp/t.txt"
			"$cli" stats --json "$tmp/t.txt" >"$tmp/stats.json" 2>"$tmp/stats.err" && break
			grep -q 'no idle entries' "$tmp/stats.err" || die "record $way: stats cannot read it: $(cat "$tmp/stats.err")"
			echo "$way: no idle entry recorded (try $try): the CPUs were busy"
		done
		if [ ! -s "$tmp/stats.json" ]; then
			busy="$busy $way"
		else
			python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
hits = sum(s["usage"] for c in d["cpus"] for s in c["states"])
assert hits > 0, d
print("%s: %d idle entries on %d CPUs over %.3f s" % (sys.argv[2], hits, len(d["cpus"]), d["span_ns"] / 1e9))
' "$tmp/stats.json" "$way" || die "record $way: no idle entries"
			"$cli" sim -p "$platform" "$tmp/t.txt" >/dev/null || die "record $way: sim cannot replay it"
			rm -f "$tmp/stats.json"
		fi

		if [ -n "$stale" ]; then
			[ -e "$stale" ] && die "record $way left $stale, a killed recording's, in place"
			[ -d "$live" ] || die "record $way removed $live, a running recording's"
			rmdir "$live"
			grep -q "removed $stale, left tracing by a recording that was killed (PID $dead)" \
				"$tmp/rec1.err" || die "record $way: stale instance not said: $(cat "$tmp/rec1.err")"
			echo "record $way: removed $stale, kept $live"
		fi
		after=$(ls /sys/kernel/tracing/instances 2>/dev/null | wc -l)
		[ "$before" = "$after" ] || die "record $way left a tracefs instance behind"
		ran=$((ran + 1))
	done
	# the default through perf: FILE is perf.data, described beside it in
	# FILE.recording, read natively; the count said is the events read
	if perf --version >/dev/null 2>&1; then
		rm -f "$tmp/p.data" "$tmp/p.data".*
		"$cli" record --perf -o "$tmp/p.data" -t 1 2>"$tmp/p.err" || die "record (perf.data): $(cat "$tmp/p.err")"
		[ "$(head -c 8 "$tmp/p.data")" = PERFILE2 ] || die "record: $tmp/p.data is not perf.data"
		grep -q '^# cpuidle-recording driver ' "$tmp/p.data.recording" ||
			die "record: no description in p.data.recording"
		# the frequency changes stats -f reads, where the kernel has the event
		if [ -d /sys/kernel/tracing/events/power/cpu_frequency ]; then
			perf evlist -i "$tmp/p.data" 2>/dev/null | grep -qx 'power:cpu_frequency' ||
				die "record: power:cpu_frequency not recorded: $(perf evlist -i "$tmp/p.data" 2>&1 | tr '\n' ' ')"
		fi
		said=$(sed -n 's/^cpuidle record: \([0-9]*\) events ([0-9]* tracepoints) through perf into .*p.data (perf.data, described in .*p.data.recording).*/\1/p' "$tmp/p.err")
		conv=$("$cli" convert "$tmp/p.data" -o "$tmp/p.ivf" 2>&1)
		read_n=$(printf '%s\n' "$conv" | sed -n 's/.*: \([0-9]*\) events, .*/\1/p')
		if printf '%s\n' "$conv" | grep -q 'no idle entries or exits'; then
			# a second in which no CPU went idle (a loaded machine): the
			# file was read, but convert has no count to say
			echo "record --perf: no CPU went idle in the second recorded; count not compared"
		else
			[ -n "$said" ] && [ "$said" = "$read_n" ] ||
				die "record (perf.data): said '$(cat "$tmp/p.err")', convert read $read_n events: $conv"
		fi
		"$cli" stats "$tmp/p.data" 2>"$tmp/ps.err" >/dev/null || grep -q 'no idle entries' "$tmp/ps.err" ||
			die "record (perf.data): stats: $(cat "$tmp/ps.err")"
		if [ "$driver" != none ]; then
			grep -q 'on the platform it was recorded on' "$tmp/ps.err" ||
				die "record (perf.data): its description not used: $(cat "$tmp/ps.err")"
		fi
		echo "record --perf (perf.data): $said events, its description read"
	fi
	[ $ran -gt 0 ] || skip "neither way could be checked"
	[ -z "$busy" ] || skip "record$busy: the CPUs never went idle in 3 tries (a busy machine); the recordings themselves were read, and the other checks passed"
	;;
advise)
	# record -> advise --apply -> record -> compare, on this host: every
	# setting advise changes (the governor, haltpoll's window, grow and
	# shrink, the states' disable bits) is put back, with --restore, and
	# when it is killed during its recording
	need_root "it changes the governor and records"
	[ "$driver" = haltpoll ] ||
		skip "advise is checked on haltpoll guests (haltpoll-vm's modelled powers); driver $driver"
	gov0=$(cat $sys/cpuidle/current_governor)
	params=/sys/module/haltpoll/parameters
	# haltpoll's parameters and every state's disable bit, "FILE VALUE" a line
	settings() {
		for f in $params/guest_halt_poll_ns $params/guest_halt_poll_grow \
			 $params/guest_halt_poll_shrink $sys/cpu[0-9]*/cpuidle/state[0-9]*/disable; do
			[ -f "$f" ] && echo "$f $(cat "$f")"
		done
	}
	settings >"$tmp/settings0"
	saved0=$(cat "$tmp/settings0")
	putback() {
		echo "$gov0" >$sys/cpuidle/current_governor 2>/dev/null
		printf '%s\n' "$saved0" | while read -r f v; do
			[ -z "$f" ] || [ "$(cat "$f")" = "$v" ] || echo "$v" >"$f" 2>/dev/null
		done
		rm -rf "$tmp"
	}
	trap putback EXIT
	trap 'exit 1' INT TERM HUP
	# advise --apply's own recording on a host kept busy by other work (a
	# loaded test run, fuzzers beside it) may hold no idle entry: the
	# settings put back all the same, then a skip that says so
	busy() {
		grep -q "no idle entries (power:cpu_idle) in the trace" "$2" || return 0
		unchanged "$1, the host busy"
		skip "the host did not idle while $1 recorded (busy): $(tail -1 "$2")"
	}
	unchanged() {
		[ "$(cat $sys/cpuidle/current_governor)" = "$gov0" ] ||
			die "$1: governor $(cat $sys/cpuidle/current_governor), was $gov0"
		settings >"$tmp/settings1"
		cmp -s "$tmp/settings0" "$tmp/settings1" ||
			die "$1: not put back: $(diff "$tmp/settings0" "$tmp/settings1" | grep '^[<>]' | tr '\n' ' ')"
	}
	"$cli" record --text -o "$tmp/before.txt" -t 2 2>"$tmp/r.err" ||
		die "record: $(cat "$tmp/r.err")"
	# a host kept busy by other work (a loaded test run) may not idle in
	# 2 s: once more for longer, then a skip that says so
	if ! "$cli" stats "$tmp/before.txt" >/dev/null 2>&1; then
		# (record replaces no trace: the first one goes)
		rm -f "$tmp/before.txt" "$tmp/before.txt.platform"
		"$cli" record --text -o "$tmp/before.txt" -t 6 2>"$tmp/r.err" ||
			die "record: $(cat "$tmp/r.err")"
		"$cli" stats "$tmp/before.txt" >/dev/null 2>"$tmp/s.err" ||
			skip "the host did not idle while recording (busy): $(cat "$tmp/s.err")"
	fi
	# the host's recorded table has no powers: a bundled twin models it
	"$cli" advise "$tmp/before.txt" >/dev/null 2>"$tmp/t.err" &&
		grep -q "modelled as haltpoll-vm, whose states are the same" "$tmp/t.err" ||
		die "advise without -p: $(cat "$tmp/t.err")"
	# a budget of 0 us: only polling meets it, so advise holds a QoS
	# request of 0 while it records, and the kernel must poll
	"$cli" advise --json -p haltpoll-vm --latency-budget-us 0 --apply --restore \
		-o "$tmp/after.txt" "$tmp/before.txt" >"$tmp/a.json" 2>"$tmp/a.err" ||
		{ busy "advise --apply" "$tmp/a.err"; die "advise --apply: $(cat "$tmp/a.err")"; }
	unchanged "advise --apply --restore"
	python3 - "$tmp/a.json" <<'PY' || die "advise --apply: $(cat "$tmp/a.json") $(cat "$tmp/a.err")"
import json, sys
a = json.load(open(sys.argv[1]))
adv, app = a["advice"], a["applied"]
assert adv["qos_ns"] == 0 and app["restored"], a
fig = {f["metric"]: f for f in app["figures"]}
poll = fig["share_pct:POLL"]
# the kernel polled all along, as predicted
assert poll["predicted"] > 99 and poll["measured"] > 99, poll
assert app["span_ns"] > 1.5e9, app
PY
	[ -s "$tmp/after.txt" ] || die "advise --apply left no recording"
	# -- CMD: the second recording lasts while the workload runs again
	"$cli" advise --json -p haltpoll-vm --latency-budget-us 0 --apply --restore \
		-o "$tmp/after3.txt" "$tmp/before.txt" -- sleep 1 >"$tmp/c.json" 2>"$tmp/c.err" ||
		{ busy "advise --apply -- sleep 1" "$tmp/c.err"
		  die "advise --apply -- sleep 1: $(cat "$tmp/c.err")"; }
	unchanged "advise --apply --restore -- sleep 1"
	python3 -c '
import json, sys
app = json.load(open(sys.argv[1]))["applied"]
assert 0.8e9 < app["span_ns"] < 1.8e9, app' "$tmp/c.json" ||
		die "advise --apply -- sleep 1: not recorded while it ran: $(cat "$tmp/c.json")"
	# killed while it records: the settings are put back all the same
	rm -f "$tmp/after2.txt" "$tmp/after2.txt.platform"
	"$cli" advise -p haltpoll-vm --latency-budget-us 0 --apply -o "$tmp/after2.txt" \
		"$tmp/before.txt" >/dev/null 2>"$tmp/k.err" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && ! grep -q "applied governor" "$tmp/k.err" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 0.5
	kill -TERM $pid
	wait $pid && die "advise --apply, killed: exit 0"
	grep -q "putting the settings back" "$tmp/k.err" || die "advise, killed: $(cat "$tmp/k.err")"
	unchanged "advise --apply, killed (SIGTERM)"
	# grow and shrink applied: for a 0 us budget the shared nginx-haltpoll's
	# least energy is a 400 us window shrinking by 4, advised with
	# --least-energy (tests/cli_validate_test.sh); the second recording's
	# description has them, and they are put back
	nginx=$(cd "$(dirname "$0")/.." && pwd)/../shared/traces/nginx-haltpoll.perf.txt.xz
	if [ -f "$nginx" ]; then
		"$cli" advise --json -p haltpoll-vm --latency-budget-us 0 --least-energy --apply \
			--restore -o "$tmp/after4.txt" "$nginx" -- sleep 1 >"$tmp/g.json" 2>"$tmp/g.err" ||
			{ busy "advise --apply, grow and shrink" "$tmp/g.err"
			  die "advise --apply, grow and shrink: $(cat "$tmp/g.err")"; }
		unchanged "advise --apply --restore, grow and shrink"
		python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
assert a["advice"]["guest_halt_poll_shrink"] == "4" and a["applied"]["restored"], a' "$tmp/g.json" ||
			die "advise --apply, grow and shrink: $(cat "$tmp/g.json")"
		grep -q "set module/haltpoll/parameters/guest_halt_poll_shrink=4\$" "$tmp/after4.txt" &&
			grep -q "set module/haltpoll/parameters/guest_halt_poll_ns=400000\$" "$tmp/after4.txt" ||
			die "advise --apply: the recording was not made under shrink 4, window 400 us: $(grep 'parameters' "$tmp/after4.txt" | head -5)"
		echo "advise --apply: guest_halt_poll_ns=400000, guest_halt_poll_shrink=4 recorded, then put back"
	fi
	echo "advise --apply: $(python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); print(a["advice"]["governor"], "QoS ns", a["advice"]["qos_ns"], [(f["metric"], round(f["predicted"], 2), round(f["measured"], 2)) for f in a["applied"]["figures"]])' "$tmp/a.json")"
	;;
*)
	die "unknown check"
	;;
esac
echo "PASS: $check"
