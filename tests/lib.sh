# lib.sh - what the shell tests share; sourced after setting cli=CPUIDLE.
# ok / bad count checks; expect_fail runs the CLI and wants a clear error.
pass=0
fail=0

known=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# a check that fails while its fix is under way: said with its figure,
# counted apart, never as a pass
known_failure() { known=$((known + 1)); echo "KNOWN FAILURE: $*"; }

# expect_fail DESCRIPTION PATTERN ARGS...: non-zero exit, PATTERN on stderr
expect_fail() {
	desc=$1 pat=$2
	shift 2
	err=$("$cli" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 0 ] && printf '%s' "$err" | grep -q -- "$pat"; then ok; else
		bad "$desc: rc=$rc stderr='$err'"; fi
}
