#!/bin/sh
# python_pip_test.sh SRC CLI - the Python package installed as the README
# says, from a copy of the tree: a venv over Debian's site packages
# (numpy, pandas, meson-python), "pip install --no-build-isolation .", no
# network; then imported from outside the tree, its intervals those the
# command reads.  Skips, saying why, without venv or meson-python.
set -u
src=$1 cli=$2
py=/usr/bin/python3
if ! $py -c 'import mesonpy, numpy, pandas, venv' 2>/dev/null; then
	echo "python_pip: no meson-python, numpy, pandas or venv for $py (scripts/install-deps)"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$py -m venv --system-site-packages "$tmp/venv" || { echo "FAIL: python3 -m venv"; exit 1; }
# a clean copy: the files of the tree, not its build directories
mkdir "$tmp/tree"
if git -C "$src" rev-parse 2>/dev/null; then
	(cd "$src" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 cp --parents -t "$tmp/tree")
else
	(cd "$src" && tar -c --exclude='./build*' . | tar -x -C "$tmp/tree")
fi
if ! PIP_NO_INDEX=1 "$tmp/venv/bin/pip" install -q --no-build-isolation "$tmp/tree" >"$tmp/pip.log" 2>&1; then
	echo "FAIL: pip install --no-build-isolation: $(tail -n 20 "$tmp/pip.log")"
	exit 1
fi
cd "$tmp" || exit 1
n=$("$tmp/venv/bin/python" -c '
import sys, cpuidle
assert "/venv/" in cpuidle.__file__, cpuidle.__file__
print(len(cpuidle.read_intervals(sys.argv[1])))' "$src/traces/io-menu.perf.txt.xz") ||
	{ echo "FAIL: the installed package"; exit 1; }
want=$("$cli" convert --csv "$src/traces/io-menu.perf.txt.xz" 2>/dev/null | grep -vc '^#\|^cpu,')
if [ "$n" = "$want" ]; then
	echo "PASS: pip install --no-build-isolation, then cpuidle.read_intervals: $n intervals, as convert --csv"
else
	echo "FAIL: $n intervals from the installed package, $want from convert --csv"
	exit 1
fi
