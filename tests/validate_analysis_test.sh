#!/bin/sh
# validate_analysis_test.sh CPUIDLE TRACE_DIR - scripts/validate-analysis
# (doc/validate.md's figures) on the shared recordings: replayed through
# the kernel's own loop, every recording's entries/s is within its bound;
# nginx-haltpoll200's too-shallow polls are the kernel's with an event cost
# of 600 to 900 ns taken off the trace's stays.  A skip without the traces.
set -u
cli=$1
traces=$2
src=$(cd "$(dirname "$0")/.." && pwd)
[ -f "$traces/nginx-haltpoll200.perf.txt.xz" ] || {
	echo "validate_analysis: no $traces/nginx-haltpoll200.perf.txt.xz: nothing to check"
	exit 77
}
out=$("$src/scripts/validate-analysis" --cli "$cli" "$traces") || {
	echo "FAIL: validate-analysis failed: $out"
	exit 1
}
printf '%s\n' "$out"
printf '%s\n' "$out" | grep -q "kernel loop : 100.0% of [0-9]* within" || {
	echo "FAIL: entries/s through the kernel's loop not all within their bound"
	exit 1
}
printf '%s\n' "$out" | grep "nginx-haltpoll200" | grep -q "(nearest: c=[6-9]00)" || {
	echo "FAIL: nginx-haltpoll200's too-shallow polls not the kernel's at 600-900 ns"
	exit 1
}
# the cost off: nginx-haltpoll200's polls judged within 5 points of the kernel
printf '%s\n' "$out" | awk '/nginx-haltpoll200 +as itself/ {
	c = $0; sub(/.*as traced, */, "", c); sub(/%.*/, "", c)
	k = $0; sub(/.*kernel */, "", k); sub(/%.*/, "", k)
	found = 1; d = c - k; if (d < 0) d = -d; exit !(d <= 5) }
	END { if (!found) exit 1 }' || {
	echo "FAIL: nginx-haltpoll200's too-shallow polls with the event cost off"
	exit 1
}
# wake-up timing: nginx's median idle period halting is over 3 times polling's
printf '%s\n' "$out" | awk '/^   nginx  (menu|haltpoll200) / {
	v = $0; sub(/.*idle +/, "", v); sub(/ us.*/, "", v); m[$2] = v }
	END { exit !(m["menu"] > 3 * m["haltpoll200"] && m["haltpoll200"] > 0) }' || {
	echo "FAIL: nginx's idle periods, halting against polling"
	exit 1
}
echo "validate_analysis: 4 checks passed"
