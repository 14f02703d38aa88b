#!/bin/sh
# install_test.sh BUILD SRC - the lab as an installed library, used as a
# user outside the tree would: 'meson install' into a staging directory
# (DESTDIR), examples/ewma built there by its Makefile from pkg-config alone,
# its governor run as a plugin through the installed cpuidle's sim, sweep
# (beside menu and teo), fidelity and conformance, and its sim result
# compared with the same governor linked into a program that calls the
# installed <cpuidle/lab.h> (replay_ewma); and conformance_check() called
# from a program of one's own (check_ewma) as the CLI's conformance does.
. "$(dirname "$0")/lib.sh"
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest

if ! meson install -C "$build" --destdir "$dest" --no-rebuild >"$tmp/inst" 2>&1; then
	echo "FAIL: meson install --destdir: $(tail -n 3 "$tmp/inst")"
	exit 1
fi
pc=$(find "$dest" -name libcpuidle-lab.pc | head -n 1)
cli=$(find "$dest" -path '*/bin/cpuidle' -type f | head -n 1)
[ -n "$pc" ] && [ -n "$cli" ] && ok || bad "installed: libcpuidle-lab.pc '$pc', cpuidle '$cli'"
libdir=$(dirname "$(dirname "$pc")")
for f in libcpuidle-lab.so libcpuidle-lab.a libcpuidle.so; do
	[ -e "$libdir/$f" ] && ok || bad "not installed: $libdir/$f"
done
# a man page for the command and for every command it lists
man1=$(find "$dest" -path '*/man1/cpuidle.1' | head -n 1)
if [ -n "$man1" ] && cmds=$("$cli" --list-commands) && [ -n "$cmds" ]; then
	for c in $cmds; do
		[ -s "$(dirname "$man1")/cpuidle-$c.1" ] && ok ||
			bad "no man page installed for 'cpuidle $c' ($(dirname "$man1")/cpuidle-$c.1)"
		grep -q "cpuidle-$c\\fR(1)\|cpuidle-$c(1)" "$man1" && ok ||
			bad "cpuidle(1) does not refer to cpuidle-$c(1)"
	done
else
	bad "cpuidle.1 not installed, or no commands listed: '$man1'"
fi
# the shell's completion, where bash-completion and zsh look under the prefix
share=$(dirname "$(dirname "$(dirname "$man1")")")
[ -s "$share/bash-completion/completions/cpuidle" ] && ok ||
	bad "no bash completion installed at $share/bash-completion/completions/cpuidle"
[ -s "$share/zsh/site-functions/_cpuidle" ] && head -n 1 "$share/zsh/site-functions/_cpuidle" |
	grep -qx '#compdef cpuidle' && ok ||
	bad "no zsh completion installed at $share/zsh/site-functions/_cpuidle"
# the installed bash completion, sourced, completes the installed cpuidle's commands
if command -v bash >/dev/null; then
	bash -c '. "$1" && COMP_WORDS=("$2" s) COMP_CWORD=1 && _cpuidle &&
		[ "$(printf "%s\n" "${COMPREPLY[@]}" | sort)" = "$("$2" --list-commands | grep "^s" | sort)" ] &&
		[ ${#COMPREPLY[@]} -gt 1 ]' \
		bash "$share/bash-completion/completions/cpuidle" "$cli" && ok ||
		bad "the installed bash completion does not complete 'cpuidle s'"
fi
inc=$(find "$dest" -path '*/include/cpuidle/lab.h' | head -n 1)
[ -n "$inc" ] && [ -e "$(dirname "$inc")/conformance.h" ] && ok || bad "lab.h, conformance.h not installed"

# the example, copied out of the tree and built by pkg-config alone
cp -r "$src/examples/ewma" "$tmp/ewma"
cd "$tmp/ewma" || exit 1
if PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$dest make >"$tmp/make" 2>&1 &&
   ! grep -q -e "$src" -e "$build" "$tmp/make"; then ok
else bad "examples/ewma: make from the installed tree: $(tail -n 5 "$tmp/make")"; fi
LD_LIBRARY_PATH=$libdir
export LD_LIBRARY_PATH
ldd ./replay_ewma | grep -q "libcpuidle-lab.so.0 => $libdir/" && ok ||
	bad "replay_ewma does not use the installed libcpuidle-lab: $(ldd ./replay_ewma)"

trace=$src/traces/io-menu.perf.txt.xz
# sim -g ./ewma.so equals the governor linked in, replayed through the
# API: at the tunable's default (3) and at 0, which gives other figures
for w in 3 0; do
	if "$cli" sim --json -p laptop -g ./ewma.so -s module/ewma/parameters/weight_shift=$w \
		"$trace" >"$tmp/sim.json" 2>"$tmp/err" &&
	   ./replay_ewma "$trace" laptop $w >"$tmp/ref.$w" 2>>"$tmp/err" &&
	   python3 - "$tmp/sim.json" "$tmp/ref.$w" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
ref = [l.rsplit(" ", 4) for l in open(sys.argv[2]).read().splitlines()]
assert run["governor"] == "ewma", run["governor"]
assert ref[0][0] == "entries" and int(ref[0][1]) == run["entries"] > 700, (run["entries"], ref[0])
got = [(s["name"], s["usage"], s["time_ns"]) for s in run["states"]]
want = [(r[0], int(r[2]), int(r[4])) for r in ref[1:] if r[1] == "usage"]
assert got == want, (got, want)
assert sum(u for _, u, _ in got[1:]) > 0, got
PY
	then ok; else bad "sim -g ./ewma.so (weight_shift $w) is not the installed API's replay: $(cat "$tmp/err")"; fi
done
cmp -s "$tmp/ref.3" "$tmp/ref.0" && bad "weight_shift 0 and 3 alike: the comparison tells nothing" || ok

# sweep: beside menu and teo, its own tunable swept
if "$cli" sweep --json -p laptop -g menu,teo,./ewma.so \
	-s module/ewma/parameters/weight_shift=0,3 "$trace" >"$tmp/sw.json" 2>"$tmp/err" &&
   python3 - "$tmp/sw.json" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert {"menu", "teo", "ewma"} <= {r["governor"] for r in rows}, rows
e = {r["settings"]["module/ewma/parameters/weight_shift"]: r["entries"] for r in rows
     if r["governor"] == "ewma"}
assert set(e) == {"0", "3"} and e["0"] != e["3"], e
PY
then ok; else bad "sweep -g menu,teo,./ewma.so: $(cat "$tmp/err")"; fi

# fidelity and conformance take it as any governor
if "$cli" fidelity --json -g ./ewma.so "$trace" 2>/dev/null | python3 -c '
import json, sys
rows = json.load(sys.stdin)
assert rows[0]["governor"] == "ewma" and rows[0]["entries"] > 0, rows' &&
   "$cli" conformance -g ./ewma.so >"$tmp/conf" 2>&1 &&
   grep -q "1 of 1 governors pass every check" "$tmp/conf"; then ok
else bad "fidelity and conformance -g ./ewma.so: $(cat "$tmp/conf" 2>/dev/null)"; fi

# conformance_check(), documented for one's own governor: declared in the
# installed <cpuidle/conformance.h>, exported by the installed
# libcpuidle-lab (check_ewma links it), and what the CLI's conformance says
ldd ./check_ewma | grep -q "libcpuidle-lab.so.0 => $libdir/" && ok ||
	bad "check_ewma does not use the installed libcpuidle-lab: $(ldd ./check_ewma)"
if ./check_ewma 2000 >"$tmp/check" 2>"$tmp/err" &&
   "$cli" conformance --json -n 2000 -g ./ewma.so >"$tmp/conf.json" 2>>"$tmp/err" &&
   [ -s "$tmp/check" ] && python3 - "$tmp/check" "$tmp/conf.json" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
g = json.load(open(sys.argv[2]))["governors"][0]
want = ["%s checked %d failures %d" % (c["check"], c["checked"], c["failures"]) for c in g["checks"]]
assert lines[:-1] == want and len(want) == 7, (lines, want)
assert lines[-1] == ("passed" if g["passed"] else "failed"), (lines[-1], g["passed"])
assert sum(int(l.split()[2]) for l in lines[:-1]) > 0, lines
PY
then ok; else bad "check_ewma (conformance_check) is not conformance -g ./ewma.so: $(cat "$tmp/check" "$tmp/err")"; fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
