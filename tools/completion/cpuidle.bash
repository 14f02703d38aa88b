# bash completion for cpuidle(1), the libcpuidle command-line tool.
#
# Nothing is listed here that the command can say itself: the commands
# and sub-commands come from 'cpuidle --list-commands [CMD]', each one's
# options from 'cpuidle --list-options CMD [SUB]' (the tables its parser
# uses), the governors from 'cpuidle governors', the platforms from
# 'cpuidle platform list'.  Only what an option's value is (a governor, a
# platform, a file) is known here, by the option's name, which means the
# same in every command (cpuidle(1), COMMANDS).  The cpuidle asked is the
# one being completed (./build/tools/cpuidle too).
# SPDX-License-Identifier: MIT

# the governors a -g takes: the built-in ones, the oracle where the command
# replays beside it, and plugin files
_cpuidle_governors()
{
	local prog=$1 cmd=$2 cur=$3 head= item names
	# a comma-separated list: the items before the last comma stay
	if [[ $cur == *,* ]]; then
		head=${cur%,*},
		item=${cur##*,}
	else
		item=$cur
	fi
	if [[ $cmd == set ]]; then
		# the host's governors, which set -g switches between
		names=$(cat "${CPUIDLE_SYSFS_ROOT:-/sys}/devices/system/cpu/cpuidle/available_governors" 2>/dev/null)
	else
		names=$("$prog" governors 2>/dev/null | while read -r name _; do echo "$name"; done)
		case $cmd in sim | sweep) names="$names oracle" ;; esac
	fi
	local IFS=$' \t\n'
	COMPREPLY=($(compgen -P "$head" -W "$names" -- "$item"))
	# a plugin's file, once the item looks like a path: a file ending in
	# .so, or a directory on the way to one
	IFS=$'\n'
	[[ $cmd != set && ( $item == */* || $item == .* ) ]] &&
		COMPREPLY+=($(compgen -P "$head" -f -X '!*.so' -- "$item")
			    $(compgen -P "$head" -d -S / -- "$item"))
	return 0
}

# the value of option $opt (as --long, or -s) of $cmd; 1 if it takes none
# this completion knows how to offer
_cpuidle_value()
{
	local prog=$1 cmd=$2 opt=$3 cur=$4
	case $opt in
	--governor | -g)
		_cpuidle_governors "$prog" "$cmd" "$cur" ;;
	--platform | -p | --states-from)
		local IFS=$'\n'
		COMPREPLY=($(compgen -W "$("$prog" platform list 2>/dev/null)" -- "${cur##*,}"))
		[[ $cur == *,* ]] && COMPREPLY=("${COMPREPLY[@]/#/${cur%,*},}")
		COMPREPLY+=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null ;;
	--output | -o | --report | --log-decisions)
		local IFS=$'\n'
		COMPREPLY=($(compgen -f -- "$cur"))
		compopt -o filenames 2>/dev/null ;;
	--cpus | -c)
		COMPREPLY=($(compgen -W "all" -- "$cur")) ;;
	*)
		COMPREPLY=() ;;
	esac
	return 0
}

_cpuidle()
{
	local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]}
	local cmd= sub= i w opts= line long short takes= after_dashes=
	[[ $prog == cpuidle || -x $prog ]] || prog=cpuidle

	# the command, its sub-command, and whether "--" came (a command's words)
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [[ -n $cmd && $w == -- ]]; then
			after_dashes=$i
			break
		fi
		[[ $w == -* || $w == = ]] && continue
		if [[ -z $cmd ]]; then
			cmd=$w
		elif [[ -z $sub ]] && "$prog" --list-commands "$cmd" 2>/dev/null | grep -qxF -- "$w"; then
			sub=$w
		fi
	done

	# after "--": the command to run, then its arguments
	if [[ -n $after_dashes ]]; then
		local IFS=$'\n'
		if ((COMP_CWORD == after_dashes + 1)); then
			COMPREPLY=($(compgen -c -- "$cur"))
		else
			COMPREPLY=($(compgen -f -- "$cur"))
			compopt -o filenames 2>/dev/null
		fi
		return 0
	fi

	# no command yet: the commands (and help COMMAND)
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "--help --version --list-commands --list-options" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$("$prog" --list-commands 2>/dev/null) help" -- "$cur"))
		fi
		return 0
	fi
	if [[ $cmd == help ]]; then
		COMPREPLY=($(compgen -W "$("$prog" --list-commands 2>/dev/null)" -- "$cur"))
		return 0
	fi

	# the options of the command (or its sub-command), from its own tables
	opts=$("$prog" --list-options "$cmd" $sub 2>/dev/null) || return 0

	# the word before: an option that takes a value ("--platform x" or "--platform=x")
	local prev=${COMP_WORDS[COMP_CWORD - 1]} optword=
	if [[ $prev == = && COMP_CWORD -ge 2 ]]; then
		optword=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == = ]]; then
		optword=$prev
		cur=
	elif [[ $prev == -* ]]; then
		optword=$prev
	fi
	if [[ -n $optword ]]; then
		while read -r long short; do
			[[ $long == *= ]] || continue
			if [[ $optword == "${long%=}" || (-n $short && $optword == "$short") ]]; then
				_cpuidle_value "$prog" "$cmd" "${long%=}" "$cur"
				return 0
			fi
		done <<<"$opts"
	fi

	if [[ $cur == -* ]]; then
		local words=
		while read -r long short; do
			words+=" ${long%=}"
			[[ -n $short && $cur != --* ]] && words+=" $short"
		done <<<"$opts"
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		return 0
	fi
	# a sub-command, where the command has them and none was given
	if [[ -z $sub ]]; then
		local subs
		subs=$("$prog" --list-commands "$cmd" 2>/dev/null)
		if [[ -n $subs ]]; then
			COMPREPLY=($(compgen -W "$subs" -- "$cur"))
			return 0
		fi
	fi
	# otherwise a file: a trace, an interval file, a platform file
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -- "$cur"))
	compopt -o filenames 2>/dev/null
	return 0
}

complete -F _cpuidle cpuidle
