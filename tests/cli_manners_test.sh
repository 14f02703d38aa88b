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
	sed -n 's/^[[:space:]]*{ "\([a-z][a-z-]*\)", *\(no\|required\|optional\)_argument.*/\1/p' \
		"$src"/tools/*.c "$src"/tools/*.h | sort -u >"$tmp/src.opts"
	echo help >>"$tmp/src.opts"
	sort -u -o "$tmp/src.opts" "$tmp/src.opts"
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
