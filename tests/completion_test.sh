#!/bin/sh
# completion_test.sh SHELL CPUIDLE - the shell's completion of cpuidle
# (tools/completion: bash's cpuidle.bash, zsh's _cpuidle), run in SHELL
# against this build's cpuidle: the commands after 'cpuidle s', the options
# after 'cpuidle sim --', the governors after 'cpuidle sim -g ', an item of
# a list, the platforms, a sub-command, a trace's file name, the command
# after '--'.  What each should offer is asked of the CLI itself (its
# --list-commands, --list-options, governors, platform list), never
# written here.  zsh: driven as a user would, in a terminal (zsh/zpty),
# through compinit; skipped, saying why, where zsh is not installed.
set -u
sh_name=$1
cli=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")	# it is run from another directory
src=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# what to expect, from the CLI: one a line, sorted
"$cli" --list-commands | grep '^s' | sort >"$tmp/want.s"
"$cli" --list-options sim | sed 's/[= ].*//' | sort >"$tmp/want.simopts"
{ "$cli" governors | cut -d' ' -f1; echo oracle; } | sort >"$tmp/want.gov"
"$cli" governors | cut -d' ' -f1 | grep '^t' | sed 's/^/menu,/' | sort >"$tmp/want.govt"
"$cli" platform list | sort >"$tmp/want.plat"
"$cli" --list-commands qos | sort >"$tmp/want.qos"
[ -s "$tmp/want.s" ] && [ -s "$tmp/want.gov" ] && [ -s "$tmp/want.plat" ] &&
	[ "$(wc -l <"$tmp/want.simopts")" -gt 10 ] && [ -s "$tmp/want.govt" ] ||
	{ echo "FAIL: the CLI does not list its commands, options, governors, platforms"; exit 1; }
mkdir "$tmp/cwd"
: >"$tmp/cwd/io-menu.perf.txt.xz"
: >"$tmp/cwd/io.ivf"

case $sh_name in
bash)
	command -v bash >/dev/null || { echo "SKIP: no bash"; exit 77; }
	comp=$src/tools/completion/cpuidle.bash
	cd "$tmp/cwd" && bash -c '
		. "$1" || exit 1
		cli=$2 tmp=$3
		pass=0 fail=0
		# got WORDS...: what _cpuidle offers for the last word, sorted
		got() {
			COMP_WORDS=("$cli" "$@")
			COMP_CWORD=$#
			COMPREPLY=()
			_cpuidle
			printf "%s\n" "${COMPREPLY[@]}" | sed "/^\$/d" | sort -u
		}
		check() {	# check DESC WANTFILE [subset] WORDS...
			desc=$1 want=$2 how=$3
			shift 3
			got "$@" >"$tmp/got"
			if [ "$how" = subset ]; then
				comm -23 "$want" "$tmp/got" >"$tmp/missing"
			else
				diff "$want" "$tmp/got" >"$tmp/missing"
			fi
			if [ -s "$want" ] && [ ! -s "$tmp/missing" ]; then pass=$((pass + 1)); else
				fail=$((fail + 1))
				echo "FAIL: $desc: offered [$(tr "\n" " " <"$tmp/got")], want [$(tr "\n" " " <"$want")]"
			fi
		}
		check "cpuidle s<TAB>" "$tmp/want.s" exact s
		check "cpuidle sim --<TAB>" "$tmp/want.simopts" exact sim --
		# every command, every sub-command: the long options of its own table
		for c in $("$cli" --list-commands); do
			for sub in "" $("$cli" --list-commands "$c"); do
				"$cli" --list-options "$c" $sub | sed "s/[= ].*//" | sort >"$tmp/want.opts"
				check "cpuidle $c $sub --<TAB>" "$tmp/want.opts" exact "$c" $sub --
			done
		done
		check "cpuidle sim -g <TAB>" "$tmp/want.gov" exact sim -g ""
		check "cpuidle sim --governor <TAB>" "$tmp/want.gov" exact sim --governor ""
		check "cpuidle sim -g menu,t<TAB>" "$tmp/want.govt" exact sim -g menu,t
		check "cpuidle sweep -p <TAB>" "$tmp/want.plat" subset sweep -p ""
		check "cpuidle sweep --platform=<TAB>" "$tmp/want.plat" subset sweep --platform = ""
		check "cpuidle qos <TAB>" "$tmp/want.qos" exact qos ""
		printf "io-menu.perf.txt.xz\n" >"$tmp/want.file"
		check "cpuidle sim io-<TAB>" "$tmp/want.file" exact sim io-
		check "cpuidle sim -g menu io-<TAB>" "$tmp/want.file" exact sim -g menu io-
		printf "sleep\n" >"$tmp/want.cmd"
		check "cpuidle qos hold 10 -- slee<TAB>" "$tmp/want.cmd" subset qos hold 10 -- slee
		echo "$pass passed, $fail failed"
		[ $fail -eq 0 ]
	' bash "$comp" "$cli" "$tmp"
	;;
zsh)
	command -v zsh >/dev/null || { echo "SKIP: zsh is not installed (apt-get install zsh); its completion not checked"; exit 77; }
	zsh -n "$src/tools/completion/_cpuidle" || { echo "FAIL: zsh -n _cpuidle"; exit 1; }
	zsh -c 'zmodload zsh/zpty' 2>/dev/null || { echo "SKIP: zsh has no zsh/zpty module to drive its line editor"; exit 77; }
	mkdir "$tmp/bin" "$tmp/fpath"
	ln -s "$cli" "$tmp/bin/cpuidle"
	cp "$src/tools/completion/_cpuidle" "$tmp/fpath/"
	cd "$tmp/cwd" && PATH=$tmp/bin:$PATH zsh -f -c '
		tmp=$1
		zmodload zsh/zpty || exit 1
		export TERM=dumb
		zpty z "zsh -f -i -o zle"
		# every match offered (compadd -O: after the prefix filter), between markers
		zpty -w z "PS1=; fpath=($tmp/fpath \$fpath); autoload -Uz compinit; compinit -u -D"
		zpty -w z "compadd() { local -a m; builtin compadd -O m \"\$@\"; _got+=(\$m); builtin compadd \"\$@\"; }"
		zpty -w z "_dumpc() { typeset -ga _got=(); _main_complete; print -rn -- \"<<GOT\${(j:|:)_got}END>>\"; }"
		zpty -w z "zle -C dumpc complete-word _dumpc; bindkey \"^X\" dumpc"
		zpty -w z "print READY"
		out=
		while zpty -r -t z chunk || sleep 0.2; do
			out+=$chunk
			[[ $out == *READY*READY* || $out == *$'"'"'\n'"'"'READY* ]] && break
		done
		pass=0 fail=0
		# check DESC WANTFILE exact|subset LINE
		check() {
			local desc=$1 want=$2 how=$3 line=$4 out= chunk got
			integer n=0
			# ^U (kill-whole-line) first: the line before, in band, gone
			zpty -w -n z $'"'"'\x15'"'"'"$line"$'"'"'\x18'"'"'
			while (( n++ < 100 )); do
				zpty -r -t z chunk && out+=$chunk
				[[ $out == *"<<GOT"*"END>>"* ]] && break
				sleep 0.1
			done
			got=${${out##*<<GOT}%%END>>*}
			print -rl -- ${(s:|:)got} | sed "s/ \$//" | sort -u >$tmp/got
			if [[ $how == subset ]]; then comm -23 $want $tmp/got >$tmp/missing
			else diff $want $tmp/got >$tmp/missing; fi
			if [[ -s $want && ! -s $tmp/missing && $out == *"<<GOT"* ]]; then (( pass++ )); else
				(( fail++ ))
				print -r -- "FAIL: zsh: $desc: offered [${(j: :)${(f)"$(<$tmp/got)"}}], want [${(j: :)${(f)"$(<$want)"}}]"
			fi
			# (no ^C to clear the line: zle took it as a signal, and under
			# load after the next line had begun: cpuidle qos completed as
			# cpuidle sweep -p cpuidle qos, files)
			sleep 0.2
			while zpty -r -t z chunk; do :; done
		}
		check "cpuidle s<TAB>" $tmp/want.s exact "cpuidle s"
		check "cpuidle sim --<TAB>" $tmp/want.simopts exact "cpuidle sim --"
		check "cpuidle sim -g <TAB>" $tmp/want.gov exact "cpuidle sim -g "
		check "cpuidle sim --governor=<TAB>" $tmp/want.gov exact "cpuidle sim --governor="
		sed "s/^menu,//" $tmp/want.govt >$tmp/want.govt1
		check "cpuidle sim -g menu,t<TAB>" $tmp/want.govt1 exact "cpuidle sim -g menu,t"
		check "cpuidle sweep -p <TAB>" $tmp/want.plat subset "cpuidle sweep -p "
		check "cpuidle qos <TAB>" $tmp/want.qos exact "cpuidle qos "
		print io-menu.perf.txt.xz >$tmp/want.file
		check "cpuidle sim io-<TAB>" $tmp/want.file exact "cpuidle sim io-"
		print sleep >$tmp/want.cmd
		check "cpuidle qos hold 10 -- slee<TAB>" $tmp/want.cmd subset "cpuidle qos hold 10 -- slee"
		zpty -d z
		print "$pass passed, $fail failed"
		(( fail == 0 ))
	' zsh "$tmp"
	;;
*)
	echo "usage: completion_test.sh bash|zsh CPUIDLE"
	exit 2
	;;
esac
