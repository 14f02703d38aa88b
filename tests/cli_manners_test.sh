#!/bin/sh
# cli_manners_test.sh CPUIDLE - what every command owes its user alike
# (issue #12 item 7): its help lists every option it takes, as the tables
# it parses with say them ('cpuidle --list-options', checked against the
# source's own tables); one-line errors.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- the commands: --list-commands is the usage's list ----------------------
cmds=$("$cli" --list-commands)
[ -n "$cmds" ] && [ "$cmds" = "$("$cli" --help | awk '/^  [a-z]/ {print $1}')" ] && ok ||
	bad "--list-commands is not 'cpuidle --help''s list: $cmds"

# --- every command's help: each option of its tables, as -S, --LONG ---------
# has_option HELPFILE LINE: LINE is --list-options' ("--LONG[=] [-S]")
has_option() {
	long=${2%% *}
	long=${long%=}
	case $2 in
	*" "-?) short=${2##* }
		grep -Eq -- "(^|[^[:alnum:]-])$short, $long([^[:alnum:]-]|$)" "$1" ;;
	*) grep -Eq -- "(^|[^[:alnum:]-])$long([^[:alnum:]-]|$)" "$1" ;;
	esac
}
nopts=0
for c in $cmds; do
	if ! "$cli" "$c" --help >"$tmp/help" 2>"$tmp/err" || [ -s "$tmp/err" ]; then
		bad "$c --help: $(cat "$tmp/err")"
		continue
	fi
	"$cli" help "$c" >"$tmp/help2" 2>&1 && cmp -s "$tmp/help" "$tmp/help2" && ok ||
		bad "help $c is not $c --help"
	awk -v c="$c" 'length > 80 { print c " --help: a line of " length " columns: " $0 }' \
		"$tmp/help" >"$tmp/long"
	[ ! -s "$tmp/long" ] && ok || bad "$(cat "$tmp/long")"
	grep -q "See cpuidle-$c(1)" "$tmp/help" && ok || bad "$c --help names no cpuidle-$c(1)"
	# the command's options, and each sub-command's (qos show, platform import)
	{ "$cli" --list-options "$c"
	  for sub in $("$cli" --list-commands "$c"); do
		"$cli" --list-options "$c" "$sub" || echo "(no options for $c $sub)"
		# its help, whichever way asked
		"$cli" help "$c" "$sub" >"$tmp/help3" 2>&1 && "$cli" "$c" "$sub" --help |
			cmp -s - "$tmp/help3" && [ -s "$tmp/help3" ] ||
			echo "(help $c $sub is not $c $sub --help)"
		# the sub-command is named in the usage
		grep -q "^ *\(usage: \)\{0,1\}cpuidle $c $sub\b" "$tmp/help" ||
			echo "(sub-command $sub not in the usage)"
	  done; } >"$tmp/opts" 2>&1
	while read -r line; do
		case $line in
		--*) has_option "$tmp/help" "$line" && ok ||
			bad "$c --help does not list '$line' (as -S, --LONG where it has -S)"
		     nopts=$((nopts + 1)) ;;
		*) bad "$c: $line" ;;	# a short option without a long one, a failure
		esac
	done <"$tmp/opts"
done
# a sweep of the checks: the tables have many options, none of them missed
[ $nopts -gt 100 ] && ok || bad "only $nopts options seen in the tables"

# --- the tables --list-options shows are those of the source ----------------
# every long option any getopt table of tools/ names (a table a command
# parses with but left out of struct cli_options would be missing here)
if [ -d "$src/tools" ]; then
	# a table's line, or a macro's that one is made of (CLI_OPT_HELP)
	sed -n 's/^\(#define [A-Z_]*\)\{0,1\}[[:space:]]*{ "\([a-z][a-z-]*\)", *\(no\|required\|optional\)_argument.*/\2/p' \
		"$src"/tools/*.c "$src"/tools/*.h | sort -u >"$tmp/src.opts"
	for c in $cmds; do
		"$cli" --list-options "$c"
		for sub in $("$cli" --list-commands "$c"); do "$cli" --list-options "$c" "$sub"; done
	done | sed -n 's/^--\([a-z-]*\).*/\1/p' | sort -u >"$tmp/cli.opts"
	[ "$(wc -l <"$tmp/src.opts")" -gt 40 ] && cmp -s "$tmp/src.opts" "$tmp/cli.opts" && ok ||
		bad "the source's getopt tables and --list-options differ:" \
		    "$(diff "$tmp/src.opts" "$tmp/cli.opts" | grep '^[<>]' | tr '\n' ' ')"
else
	echo "SKIP: $src/tools is not there: the source's tables not compared"
fi
expect_fail "--list-options of no command" "usage: cpuidle --list-commands" --list-options nosuch
"$cli" --list-options nosuch >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok || bad "--list-options nosuch: rc=$rc, not 2"

# --- -q, --quiet: every command, no notes or warnings, errors still ----------
for c in $cmds; do
	for sub in "" $("$cli" --list-commands "$c"); do
		# shellcheck disable=SC2086
		"$cli" --list-options "$c" $sub | grep -qx -- '--quiet -q' && ok ||
			bad "$c $sub takes no -q, --quiet"
	done
done
trace=$src/traces/io-menu.perf.txt.xz	# CPU 1 never idles: a warning
heads=$src/tests/fixtures/io-haltpoll200-head.perf.txt.xz
mkdir "$tmp/q"
cp "$trace" "$tmp/q/w-menu.perf.txt.xz"
cp "$heads" "$tmp/q/w-haltpoll200.perf.txt.xz"
# quiet CMD ARGS...: a note or warning on stderr without -q (the test
# means something), none with it, and the same standard output and status
quiet() {
	"$cli" "$@" >"$tmp/out1" 2>"$tmp/err1"
	rc1=$?
	"$cli" "$@" -q >"$tmp/out2" 2>"$tmp/err2"
	rc2=$?
	if [ $rc1 -eq $rc2 ] && grep -q 'note: \|warning: \|derived traces' "$tmp/err1" &&
	   [ ! -s "$tmp/err2" ] && cmp -s "$tmp/out1" "$tmp/out2"; then ok; else
		bad "$* -q: rc $rc1/$rc2, said without -q '$(head -c 300 "$tmp/err1")', with -q '$(cat "$tmp/err2")'"
	fi
}
quiet sim --csv -g menu "$trace"	# (the table has decisions per second, which vary)
quiet stats "$trace"
quiet convert --csv "$trace"
quiet sweep -g menu -p laptop "$trace"
quiet fidelity "$tmp/q/w-menu.perf.txt.xz"
quiet validate "$tmp/q/w-menu.perf.txt.xz" "$tmp/q/w-haltpoll200.perf.txt.xz"
# fleet-gen says what it made (never the same directory twice)
"$cli" fleet-gen -n 2 -o "$tmp/fleet1" "$trace" 2>"$tmp/err1" >"$tmp/out1"
"$cli" fleet-gen -q -n 2 -o "$tmp/fleet2" "$trace" 2>"$tmp/err2" >"$tmp/out2"
grep -q '2 derived traces' "$tmp/err1" && [ ! -s "$tmp/err2" ] &&
	cmp -s "$tmp/fleet1/derived-000001.ivf" "$tmp/fleet2/derived-000001.ivf" && ok ||
	bad "fleet-gen -q: '$(cat "$tmp/err1")' / '$(cat "$tmp/err2")'"
# before the command's name too (cpuidle -q sim is no command: the option is the command's)
"$cli" sim -q -g menu "$trace" 2>"$tmp/err2" >/dev/null && [ ! -s "$tmp/err2" ] && ok ||
	bad "sim -q before the trace: $(cat "$tmp/err2")"
# errors are said whatever -q
for args in "sim -q $tmp/nosuch" "stats -q $tmp/nosuch" "sweep -q $tmp/nosuch" \
	    "platform show -q $tmp/nosuch" "sim -q --bogus"; do
	# shellcheck disable=SC2086
	"$cli" $args >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -ne 0 ] && grep -q "^cpuidle ${args%% *}" "$tmp/err" && ok ||
		bad "$args: rc=$rc, error not said: '$(cat "$tmp/err")'"
done

# --- a warning many traces give, said once, with their count ------------------
for i in 1 2 3; do cp "$trace" "$tmp/q/t$i-menu.perf.txt.xz"; done
"$cli" sweep -g menu -p laptop "$tmp/q"/t?-menu.perf.txt.xz >/dev/null 2>"$tmp/err"
want="cpuidle sweep: warning: $tmp/q/t1-menu.perf.txt.xz: CPU 1 has events but no idle entry or exit (power:cpu_idle): taken as always busy; was it traced? (and on 2 more traces)"
[ "$(cat "$tmp/err")" = "$want" ] && ok || bad "sweep over 3 traces alike said: $(cat "$tmp/err")"
"$cli" fidelity "$tmp/q"/t?-menu.perf.txt.xz >/dev/null 2>"$tmp/err"
[ "$(grep -c 'has events but no idle entry' "$tmp/err")" = 1 ] &&
	grep -q "t1-menu.perf.txt.xz: CPU 1 has events.*(and on 2 more traces)$" "$tmp/err" && ok ||
	bad "fidelity over 3 traces alike said: $(cat "$tmp/err")"
# the same note with other numbers: said once, saying the others differ
"$cli" sweep -g menu -p laptop "$src/tests/fixtures/pipe-mode.perf.txt.xz" \
	"$src/tests/fixtures/pipe-mode.perf.data.xz" >/dev/null 2>"$tmp/err"
[ "$(grep -c 'the next timer is reconstructed' "$tmp/err")" = 1 ] &&
	grep -q "pipe-mode.perf.txt.xz: the next timer is reconstructed in 211 of 212 .*(and on 1 more trace, with figures of their own)$" "$tmp/err" && ok ||
	bad "sweep over 2 traces with notes alike said: $(cat "$tmp/err")"
# one trace: said as it comes, no count
"$cli" sweep -g menu -p laptop "$trace" >/dev/null 2>"$tmp/err"
[ "$(cat "$tmp/err")" = "cpuidle sweep: warning: $trace: CPU 1 has events but no idle entry or exit (power:cpu_idle): taken as always busy; was it traced?" ] && ok ||
	bad "sweep over one trace said: $(cat "$tmp/err")"

# --- -c is a CPU list wherever it is taken -------------------------------------
for c in $cmds; do
	for sub in "" $("$cli" --list-commands "$c"); do
		# shellcheck disable=SC2086
		opt=$("$cli" --list-options "$c" $sub | grep -- ' -c$')
		[ -z "$opt" ] && continue
		"$cli" "$c" --help >"$tmp/help"
		[ "$opt" = "--cpus= -c" ] && grep -q -- '-c, --cpus CPULIST' "$tmp/help" && ok ||
			bad "$c $sub: -c is '$opt', not --cpus CPULIST"
	done
done
# sim's CPU count, once -c, is --nr-cpus: -c refused (a number is a list
# too), saying what to give; never read as a count or a list
for args in "-c 4" "-c4" "--cpus 4" "--cpus=4"; do
	# shellcheck disable=SC2086
	"$cli" sim $args -n 100 >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] &&
	grep -q "^cpuidle sim: -c/--cpus is a CPU list in other commands, and sim takes none; the simulated CPUs' count is --nr-cpus N" "$tmp/err" && ok ||
		bad "sim $args: rc=$rc, $(cat "$tmp/err")"
done
"$cli" sim --nr-cpus 4 -n 200 -g menu -p laptop --json >"$tmp/out" &&
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["nr_cpus"] == 4, d' "$tmp/out" &&
	ok || bad "sim --nr-cpus 4: $(head -c 300 "$tmp/out")"

# --- usage errors exit 2, with one line naming the command -----------------------
for args in "sim a b" "sim --csv --json" "sweep --csv --json" "sim --report-cpu 1" \
	    "sim --pattern io $trace" "sim --seed 3 $trace" "set -E y" "conformance x" \
	    "info x" "monitor x" "record -o $tmp/rec y" "record --perf --tracefs -o $tmp/rec" \
	    "convert a b" "platform list x" "governors x" "qos show x"; do
	# shellcheck disable=SC2086
	"$cli" $args >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] && grep -q "^cpuidle ${args%% *}: " "$tmp/err" && ok ||
		bad "$args: rc=$rc, not a usage error: $(cat "$tmp/err")"
done

# --- errors are one whole line ------------------------------------------------
# a file that is no trace, under a long path: the message whole, to its end
deep=$tmp/$(printf '%0200d' 0)/$(printf '%0200d' 1)
mkdir -p "$deep"
cp "$src/README.md" "$deep/README.md"
for p in "$src/README.md" "$deep/README.md"; do
	for c in stats sim sweep; do
		"$cli" $c "$p" >/dev/null 2>"$tmp/err"
		rc=$?
		[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
		[ "$(cat "$tmp/err")" = "cpuidle $c: $p: not a trace in a known format" ] && ok ||
			bad "$c $p: rc=$rc, not one whole line: $(cat "$tmp/err")"
	done
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
