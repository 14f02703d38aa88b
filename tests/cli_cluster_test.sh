#!/bin/sh
# cli_cluster_test.sh CPUIDLE - the cluster governor against hazard, and
# scripts/cluster-results: on every bundled platform without domain states
# cluster is hazard, figure for figure (its replays byte-identical but for
# the governor's name); on one with them it is not; cluster-results'
# recovered share agrees with the energies it prints, bad usage exits 2.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"
case $cli in /*) ;; *) cli=$(pwd)/$cli ;; esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
traces="$src/traces/mixed-nodriver.perf.txt.xz $src/traces/io-menu.perf.txt.xz"

# rows of GOVERNOR from sweep CSV on stdin, the governor column blanked
rows_of() {
	awk -F, -v g="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "governor") c = i; next }
		$c == g { $c = ""; print }' OFS=,
}

# --- byte-identical to hazard where no state is a domain state -----------
for p in spr epyc7502 laptop haltpoll-vm; do
	# shellcheck disable=SC2086
	"$cli" sweep --csv --no-oracle -g hazard,cluster -p $p $traces >"$tmp/$p.csv" 2>/dev/null ||
		bad "sweep on $p failed"
	rows_of hazard <"$tmp/$p.csv" >"$tmp/h"
	rows_of cluster <"$tmp/$p.csv" >"$tmp/c"
	[ "$(wc -l <"$tmp/h")" -eq 2 ] && cmp -s "$tmp/h" "$tmp/c" && ok ||
		bad "$p: cluster is not hazard: $(diff "$tmp/h" "$tmp/c" | head -4)"
done
# the comparison can fail: on skylake's package states (both CPUs of
# mixed-nodriver idle) the two differ
# shellcheck disable=SC2086
"$cli" sweep --csv --no-oracle -g hazard,cluster -p skylake $traces >"$tmp/sk.csv" 2>/dev/null
rows_of hazard <"$tmp/sk.csv" | head -1 >"$tmp/h"
rows_of cluster <"$tmp/sk.csv" | head -1 >"$tmp/c"
[ -s "$tmp/h" ] && ! cmp -s "$tmp/h" "$tmp/c" && ok || bad "skylake: cluster is hazard there too"
# the decisions too, not only their sums: every select() and reflect() alike
"$cli" sim -p spr -g hazard --log-decisions "$tmp/h.log" "$src/traces/mixed-nodriver.perf.txt.xz" \
	>/dev/null 2>&1
"$cli" sim -p spr -g cluster --log-decisions "$tmp/c.log" "$src/traces/mixed-nodriver.perf.txt.xz" \
	>/dev/null 2>&1
[ -s "$tmp/h.log" ] && cmp -s "$tmp/h.log" "$tmp/c.log" && ok ||
	bad "spr: cluster's decisions are not hazard's: $(diff "$tmp/h.log" "$tmp/c.log" | head -4)"

# --- its tunables: hazard's five as its own copies, and its switches -------
# cluster reads module/cluster/parameters/, not hazard's: on spr (no domain
# state) cluster with its decay_shift at 3 is hazard with hazard's at 3; a
# write to hazard's leaves cluster as it was; on skylake offer=N moves it
one=$src/traces/mixed-nodriver.perf.txt.xz
"$cli" sim -p spr -g hazard -s module/hazard/parameters/decay_shift=3 --log-decisions \
	"$tmp/h3.log" "$one" >/dev/null 2>&1
"$cli" sim -p spr -g cluster -s module/cluster/parameters/decay_shift=3 --log-decisions \
	"$tmp/c3.log" "$one" >/dev/null 2>&1
"$cli" sim -p spr -g cluster --log-decisions "$tmp/c2.log" "$one" >/dev/null 2>&1
[ -s "$tmp/h3.log" ] && cmp -s "$tmp/h3.log" "$tmp/c3.log" &&
	! cmp -s "$tmp/c3.log" "$tmp/c2.log" && ok ||
	bad "spr: cluster's decay_shift is not its own copy of hazard's"
"$cli" sim -p skylake -g cluster -s module/hazard/parameters/decay_shift=3 --log-decisions \
	"$tmp/ch.log" "$one" >/dev/null 2>&1
"$cli" sim -p skylake -g cluster --log-decisions "$tmp/c.log" "$one" >/dev/null 2>&1
"$cli" sim -p skylake -g cluster -s module/cluster/parameters/offer=N --log-decisions \
	"$tmp/co.log" "$one" >/dev/null 2>&1
[ -s "$tmp/c.log" ] && cmp -s "$tmp/c.log" "$tmp/ch.log" && ok ||
	bad "skylake: hazard's decay_shift moved cluster"
[ -s "$tmp/co.log" ] && ! cmp -s "$tmp/c.log" "$tmp/co.log" && ok ||
	bad "skylake: cluster's offer=N changed nothing"

# --- scripts/cluster-results ----------------------------------------------
cr=$src/scripts/cluster-results
mkdir "$tmp/none"
(cd "$tmp" && "$cr" --cli "$cli" "$tmp/none" >/dev/null 2>"$tmp/err"); rc=$?
# the repository's own trace alone is there: it runs on that one
[ $rc -eq 0 ] && ok || bad "cluster-results on no shared trace: rc=$rc $(cat "$tmp/err")"
(cd "$tmp" && "$cr" --cli "$cli" --platform spr "$tmp/none" >/dev/null 2>"$tmp/err"); rc=$?
[ $rc -eq 2 ] && grep -q "^cluster-results: --platform spr: no domain state" "$tmp/err" &&
	! grep -q Traceback "$tmp/err" && ok ||
	bad "cluster-results --platform spr: rc=$rc $(cat "$tmp/err")"
(cd "$tmp" && "$cr" --nosuch >/dev/null 2>"$tmp/err"); rc=$?
[ $rc -eq 2 ] && ! grep -q Traceback "$tmp/err" && ok || bad "cluster-results --nosuch: rc=$rc"
# recovered = (E_hazard - E_cluster) / (E_hazard - E_oracle), from its own energies
"$cr" --cli "$cli" --json "$tmp/none" >"$tmp/cr.json" 2>"$tmp/err" ||
	bad "cluster-results --json failed"
/usr/bin/python3 - "$tmp/cr.json" <<'PY' && ok ||
	bad "cluster-results: recovered disagrees with its energies"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert {r["platform"] for r in rows} == {"skylake", "juno-r2"}, rows
for r in rows:
    e = r["energy_mj"]
    want = 100 * (e["hazard"] - e["cluster"]) / (e["hazard"] - e["oracle"])
    assert abs(r["recovered_pct"] - want) < 1e-9, r
    assert abs(r["over_oracle_pct"]["cluster"] - 100 * (e["cluster"] / e["oracle"] - 1)) < 1e-9
PY

# --- hindsight-bound --cluster -----------------------------------------------
hb=$src/scripts/hindsight-bound
(cd "$tmp" && "$hb" --cli "$cli" --cluster -p spr "$src/traces/mixed-nodriver.perf.txt.xz" \
	>/dev/null 2>"$tmp/err"); rc=$?
[ $rc -eq 2 ] && grep -q "^hindsight-bound: -p spr: no domain state" "$tmp/err" && ok ||
	bad "hindsight-bound --cluster -p spr: rc=$rc $(cat "$tmp/err")"
"$hb" --cli "$cli" --cluster --json -p skylake "$src/traces/mixed-nodriver.perf.txt.xz" \
	>"$tmp/hb.json" 2>"$tmp/err" || bad "hindsight-bound --cluster failed: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/hb.json" <<'PY' && ok ||
	bad "hindsight-bound --cluster: $(cat "$tmp/hb.json")"
import json, sys
r = json.loads(open(sys.argv[1]).read())
# the model's always-deepest is the sim's; cluster-dist beats it
m = r["model_over_oracle_pct"]
assert abs(m["always-deepest"] - r["sim_always_deepest_pct"]) < 0.01, r
assert m["cluster-dist"] < m["always-deepest"], r
PY

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
