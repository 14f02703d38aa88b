#!/bin/sh
# cli_idlestat_test.sh CPUIDLE - cpuidle stats's wake-up (-w) and frequency
# (-f) tables against what idlestat itself (Debian's idlestat 0.8,
# scripts/install-deps installs it) prints for the same trace file: a
# trace made here by hand in idlestat's format, the both-idle recording of
# tests/fixtures, and where ../shared/traces is at hand, idlestat's two
# recordings there and the Juno's real frequencies.  The interrupts'
# counts (and early/late, given the same target residencies) and the
# frequencies' hits are equal; the times to idlestat's rounding
# (tests/idlestat_compare.py).  Without idlestat: a skip (exit 77) that
# says so, never a pass.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"

if ! command -v idlestat >/dev/null 2>&1; then
	echo "cli_idlestat: no idlestat here (apt-get install idlestat): nothing compared"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
traces="$src/../shared/traces"

# idlestat's header: NCPUS, then each state as "NAME RESIDENCY_US"; CPUs of
# one cluster, a core each
idlestat_header() {
	n=$1
	shift
	printf 'idlestat version = 0.8\ncpus=%d\nclusterA:\n' "$n"
	c=0
	while [ "$c" -lt "$n" ]; do printf '\tcore%d\n\t\tcpu%d\n' "$c" "$c"; c=$((c + 1)); done
	c=0
	while [ "$c" -lt "$n" ]; do
		printf 'cpuid %d:\n' "$c"
		i=0
		for st in "$@"; do printf '\t%s\n\t%s\n' "${st% *}" "${st#* }"; i=$((i + 1)); done
		while [ "$i" -lt 16 ]; do printf '\t(null)\n\t-1\n'; i=$((i + 1)); done
		c=$((c + 1))
	done
}

# idlestat's report (-w -p) and ours (-w -f and the options before --) of FILE:
# equal in the tables idlestat_compare.py's options after -- name
compare() {
	what=$1 file=$2
	shift 2
	ours=""
	while [ "$1" != "--" ]; do ours="$ours $1"; shift; done
	shift
	if ! idlestat --import -f "$file" -w -p >"$tmp/idlestat.txt" 2>"$tmp/idlestat.err"; then
		bad "$what: idlestat failed: $(cat "$tmp/idlestat.err")"
		return
	fi
	# shellcheck disable=SC2086
	if "$cli" stats --json -w -f $ours "$file" >"$tmp/ours.json" 2>"$tmp/ours.err" &&
	   python3 "$src/tests/idlestat_compare.py" "$tmp/idlestat.txt" "$tmp/ours.json" "$@" \
		>"$tmp/cmp.out" 2>&1; then
		ok
		echo "$what: $(cat "$tmp/cmp.out")"
	else
		bad "$what: $(cat "$tmp/cmp.out" "$tmp/ours.err")"
	fi
}

# By hand: C1's target residency 100 us, C2's 1000 us.  CPU 0: a change of
# frequency before its first entry (idlestat drops the stretch it began),
# interrupts inside a period and just after one, one while running (not
# counted), periods early (50 us in C1) and late (2 ms in C1, C2's reached),
# a change while idle.  CPU 1: an interrupt before any entry (the period
# the trace began in), one after its exit (not counted), a period no
# interrupt ended.
{
	idlestat_header 2 "C0 0" "C1 100" "C2 1000"
	while read -r cpu ts ev; do
		printf '%16s [%03d] d..1. %s: %s\n' "<idle>-0" "$cpu" "$ts" "$ev"
	done <<'EOF'
0 100.000000 cpu_frequency: state=1000000 cpu_id=0
1 100.000000 cpu_frequency: state=1000000 cpu_id=1
0 100.000010 cpu_frequency: state=2000000 cpu_id=0
1 100.000050 irq_handler_entry: irq=7 name=usb
0 100.000100 cpu_idle: state=1 cpu_id=0
1 100.000100 cpu_idle: state=4294967295 cpu_id=1
0 100.000150 irq_handler_entry: irq=5 name=eth0
1 100.000150 irq_handler_entry: irq=8 name=other
0 100.000200 cpu_idle: state=4294967295 cpu_id=0
1 100.000200 cpu_frequency: state=3000000 cpu_id=1
0 100.000300 irq_handler_entry: irq=6 name=disk
1 100.000300 cpu_idle: state=1 cpu_id=1
0 100.000400 cpu_idle: state=2 cpu_id=0
1 100.000400 cpu_idle: state=4294967295 cpu_id=1
1 100.000500 cpu_frequency: state=3000000 cpu_id=1
0 100.005400 cpu_idle: state=4294967295 cpu_id=0
0 100.005500 irq_handler_entry: irq=6 name=disk
0 100.005600 cpu_frequency: state=1000000 cpu_id=0
0 100.005700 cpu_idle: state=1 cpu_id=0
0 100.005750 cpu_idle: state=4294967295 cpu_id=0
0 100.005760 irq_handler_entry: irq=5 name=eth0
0 100.006000 cpu_idle: state=1 cpu_id=0
0 100.008000 cpu_idle: state=4294967295 cpu_id=0
0 100.008100 irq_handler_entry: irq=5 name=eth0
0 100.009000 cpu_idle: state=1 cpu_id=0
EOF
} >"$tmp/hand.idlestat"
cat >"$tmp/hand.platform" <<'EOF'
platform hand
state C0 latency_us=0 residency_us=0 power_mw=1000
state C1 latency_us=10 residency_us=100 power_mw=500
state C2 latency_us=100 residency_us=1000 power_mw=100
EOF
compare "by hand" "$tmp/hand.idlestat" -p "$tmp/hand.platform" -- --wakeups --frequencies \
	--early-late --min-rows 3
# idlestat's early and late are there to compare: not all 0
if grep -q '^| 5   | eth0            |       3 |       1 |       1 |' "$tmp/idlestat.txt"
then ok; else bad "by hand: idlestat's eth0 row is not as worked out: $(cat "$tmp/idlestat.txt")"
fi

xz -dc "$src/tests/fixtures/both-idle.idlestat.xz" >"$tmp/both-idle.idlestat"
compare "both-idle" "$tmp/both-idle.idlestat" -- --wakeups --frequencies --min-rows 2

if [ -d "$traces" ]; then
	for t in mixed nginx; do
		xz -dc "$traces/$t.idlestat.xz" >"$tmp/$t.idlestat"
		compare "$t" "$tmp/$t.idlestat" -- --wakeups --frequencies
		rm -f "$tmp/$t.idlestat"
	done
	# The Juno's real frequencies, 6 CPUs: its trace-cmd report text in
	# idlestat's format (a FLAGS column added: idlestat's format has one),
	# less devlib's marker lines, which idlestat takes for the kernel's
	# events ("cpu_frequency_devlib:": it matches the substring)
	xz -dc "$traces/hardware/juno-lisa/trace.report.txt.xz" | python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
n = int(lines[0].split("=")[1])
print("idlestat version = 0.8\ncpus=%d\nclusterA:" % n)
for c in range(n):
    print("\tcore%d\n\t\tcpu%d" % (c, c))
for c in range(n):
    print("cpuid %d:" % c + "\n\t(null)\n\t-1" * 16)
for l in lines[1:]:
    m = re.match(r"^(.*?\[\d+\])\s+(\d+\.\d+: .*)$", l)
    if m and " print: " not in l:
        print("%s d..1. %s" % m.groups())' >"$tmp/juno.idlestat"
	compare "juno" "$tmp/juno.idlestat" -- --frequencies --min-rows 12
	# ... and what the binary reader makes of the trace.dat itself
	if "$cli" stats --json -f "$traces/hardware/juno-lisa/trace.dat.xz" >"$tmp/dat.json" \
		2>/dev/null && python3 "$src/tests/idlestat_compare.py" "$tmp/idlestat.txt" \
		"$tmp/dat.json" --frequencies --min-rows 12 >"$tmp/cmp.out" 2>&1; then ok; else
		bad "juno trace.dat: $(cat "$tmp/cmp.out")"; fi
else
	echo "cli_idlestat: no $traces: idlestat's recordings and the Juno's not compared"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
