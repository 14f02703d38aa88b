# lib.sh - what the shell tests share; sourced after setting cli=CPUIDLE.
# ok / bad count checks; expect_fail runs the CLI and wants a clear error.
pass=0
fail=0

known=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
# known_fail ISSUE WHAT: a check that still fails while the fix is
# under way; it says so with its figures, and counts neither as passed nor
# as failed (tests end with the count)
known_fail() { known=$((known + 1)); echo "KNOWN FAILURE (issue $1): $2"; }

# expect_fail DESCRIPTION PATTERN ARGS...: non-zero exit, PATTERN on stderr
expect_fail() {
	desc=$1 pat=$2
	shift 2
	err=$("$cli" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 0 ] && printf '%s' "$err" | grep -q -- "$pat"; then ok; else
		bad "$desc: rc=$rc stderr='$err'"; fi
}
