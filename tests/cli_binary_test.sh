#!/bin/sh
# cli_binary_test.sh CPUIDLE - binary recordings: a perf.data file and the
# text perf script made of it give the same stats, the same interval file
# (byte for byte) and the same sim results; compressed, piped and pipe-mode
# files read alike; broken and foreign files get one clear line.
set -u
cli=$1
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fx=$src/tests/fixtures

# same_outputs BINARY TEXT NAME: stats (but the file's name), convert (the
# .ivf's bytes) and sim --json (but the trace's name) agree
same_outputs() {
	bin=$1 txt=$2 name=$3
	"$cli" stats "$bin" 2>"$tmp/e1" | sed 1d >"$tmp/s1"
	"$cli" stats "$txt" 2>"$tmp/e2" | sed 1d >"$tmp/s2"
	if [ -s "$tmp/s1" ] && cmp -s "$tmp/s1" "$tmp/s2"; then ok; else
		bad "$name: stats differ from the text's: $(diff "$tmp/s1" "$tmp/s2" | head -5) $(cat "$tmp/e1")"; fi
	rm -f "$tmp/b.ivf" "$tmp/t.ivf"
	"$cli" convert "$bin" -o "$tmp/b.ivf" 2>"$tmp/e1" &&
		"$cli" convert "$txt" -o "$tmp/t.ivf" 2>/dev/null
	if [ -s "$tmp/b.ivf" ] && cmp -s "$tmp/b.ivf" "$tmp/t.ivf"; then ok; else
		bad "$name: interval files differ: $(cat "$tmp/e1")"; fi
	"$cli" sim --json "$bin" 2>/dev/null | sed 's|"trace": "[^"]*"||' >"$tmp/j1"
	"$cli" sim --json "$txt" 2>/dev/null | sed 's|"trace": "[^"]*"||' >"$tmp/j2"
	if grep -q '"runs"' "$tmp/j1" && cmp -s "$tmp/j1" "$tmp/j2"; then ok; else
		bad "$name: sim results differ"; fi
}

# --- every perf.data of the shared traces and its text twin ---------------
traces="$src/../shared/traces"
if [ -d "$traces/perf.data" ]; then
	n=0
	for f in "$traces"/perf.data/*.perf.data.xz; do
		name=$(basename "$f" .perf.data.xz)
		[ -f "$traces/$name.perf.txt.xz" ] || continue
		xz -dc "$f" >"$tmp/$name.perf.data"
		same_outputs "$tmp/$name.perf.data" "$traces/$name.perf.txt.xz" "$name"
		n=$((n + 1))
	done
	if [ "$n" -ge 4 ]; then ok; else bad "only $n perf.data twins found"; fi

	# compressed as shipped (xz), and as gzip and zstd; through a pipe
	# only in pipe mode (below): a file-mode one is refused, saying why
	one=$(ls "$tmp"/*.perf.data | head -1)
	"$cli" stats "$one" | sed 1d >"$tmp/plain"
	gzip -c "$one" >"$tmp/c.gz"
	for c in "$traces/perf.data/$(basename "$one").xz" "$tmp/c.gz"; do
		if "$cli" stats "$c" | sed 1d | cmp -s - "$tmp/plain"; then ok; else
			bad "stats of $c differ from the plain file's"; fi
	done
	if command -v zstd >/dev/null 2>&1; then
		zstd -q -c "$one" >"$tmp/c.zst"
		if "$cli" stats "$tmp/c.zst" | sed 1d | cmp -s - "$tmp/plain"; then ok; else
			bad "stats of a zstd-compressed perf.data differ"; fi
	fi
	err=$(cat "$one" | "$cli" stats - 2>&1 >/dev/null)
	if [ $? -ne 0 ] && printf '%s' "$err" |
	   grep -q "<stdin>: a perf.data file on a pipe: its event formats come after its data"
	then ok; else bad "file-mode perf.data on a pipe: '$err'"; fi
	# standard input that is the file itself can be read twice
	if "$cli" stats - <"$one" | sed 1d | cmp -s - "$tmp/plain"; then ok; else
		bad "perf.data as standard input (a file)"; fi

	# its samples in reverse order, in one round: the reader puts them back
	# in time order, and the interval file is the same byte for byte
	python3 - "$one" "$tmp/rev.data" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
data_off, data_size = struct.unpack_from('<2Q', b, 40)
end = data_off + data_size
recs, pos = [], data_off
while pos < end:
    t, _, size = struct.unpack_from('<IHH', b, pos)
    recs.append((t, b[pos:pos + size]))
    pos += size
other = [r for t, r in recs if t not in (9, 68)]
rounds = [r for t, r in recs if t == 68]
samples = [r for t, r in recs if t == 9]
out = b[:data_off] + b''.join(other + samples[::-1] + rounds) + b[end:]
open(sys.argv[2], 'wb').write(out)
PY
	"$cli" convert "$one" -o "$tmp/fwd.ivf" 2>/dev/null
	"$cli" convert "$tmp/rev.data" -o "$tmp/rev.ivf" 2>/dev/null
	if [ -s "$tmp/rev.ivf" ] && cmp -s "$tmp/fwd.ivf" "$tmp/rev.ivf"; then ok; else
		bad "a perf.data with its samples reversed"; fi

	# truncated anywhere: one line naming the file and the byte, no output
	size=$(wc -c <"$one")
	for cut in 50 104 1000 $((size / 2)) $((size * 9 / 10)); do
		head -c "$cut" "$one" >"$tmp/cut.data"
		rm -f "$tmp/cut.ivf"
		err=$("$cli" convert "$tmp/cut.data" -o "$tmp/cut.ivf" 2>&1 >/dev/null)
		rc=$?
		if [ $rc -ne 0 ] && [ ! -e "$tmp/cut.ivf" ] &&
		   [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
		   printf '%s' "$err" | grep -q "cut.data: .*byte [0-9]*: .*\(truncated\|ends\)"; then
			ok; else bad "perf.data cut at $cut: rc=$rc '$err'"; fi
	done

	# the EPYC recording (perf 5.4, 128 CPUs, two traced): CPUs 8 and 40
	# idle in C2 (state 2), the others only woken
	epyc="$traces/hardware/epyc7502/perf.data.xz"
	if [ -f "$epyc" ]; then
		out=$("$cli" stats "$epyc" 2>&1)
		if printf '%s\n' "$out" | grep -q '^cpu8$' &&
		   printf '%s\n' "$out" | grep -q '^cpu40$' &&
		   printf '%s\n' "$out" | grep -q '^  state2 .* 141  '; then ok; else
			bad "EPYC perf.data: $out"; fi
		# and as the text this machine's perf makes of it, where there is one
		xz -dc "$epyc" >"$tmp/epyc.perf.data"
		if command -v perf >/dev/null 2>&1 &&
		   perf script -i "$tmp/epyc.perf.data" -F comm,pid,cpu,time,event,trace --ns \
			>"$tmp/epyc.txt" 2>/dev/null && [ -s "$tmp/epyc.txt" ]; then
			same_outputs "$tmp/epyc.perf.data" "$tmp/epyc.txt" epyc7502
		else
			echo "SKIP (not counted): no perf here to make the EPYC file's text"
		fi
	fi
else
	echo "SKIP (not counted): ../shared/traces/perf.data not found"
fi

# --- trace.dat (trace-cmd), the Juno recording ------------------------------
juno="$traces/hardware/juno-lisa"
if [ -f "$juno/trace.dat.xz" ]; then
	xz -dc "$juno/trace.dat.xz" >"$tmp/trace.dat"
	"$cli" stats "$tmp/trace.dat" | sed 1d >"$tmp/jplain"
	# compressed (decompressed to a temporary file), and on a pipe
	if grep -q '^cpu5$' "$tmp/jplain" &&
	   "$cli" stats "$juno/trace.dat.xz" | sed 1d | cmp -s - "$tmp/jplain" &&
	   cat "$tmp/trace.dat" | "$cli" stats - | sed 1d | cmp -s - "$tmp/jplain"
	then ok; else bad "trace.dat: plain, xz and piped differ"; fi
	# the report shipped with it (trace-cmd report, microseconds): the same
	# events and intervals; its rounded times move some totals by 1 us
	"$cli" convert "$tmp/trace.dat" -o "$tmp/j1.ivf" 2>"$tmp/j1" &&
		"$cli" convert "$juno/trace.report.txt.xz" -o "$tmp/j2.ivf" 2>"$tmp/j2"
	# (their messages the same but for the file each names)
	strip='s/^[^:]*: //; s/^\(warning\|note\): [^:]*: /\1: /'
	if [ -s "$tmp/j1.ivf" ] && [ "$(sed "$strip" "$tmp/j1")" = "$(sed "$strip" "$tmp/j2")" ] &&
	   [ "$(awk '{print $1, $6}' "$tmp/jplain")" = \
	     "$("$cli" stats "$juno/trace.report.txt.xz" | sed 1d | awk '{print $1, $6}')" ]
	then ok; else bad "trace.dat against its report: $(cat "$tmp/j1" "$tmp/j2")"; fi
	# byte for byte against the report with nanoseconds, where trace-cmd is
	if command -v trace-cmd >/dev/null 2>&1 &&
	   trace-cmd report -t -i "$tmp/trace.dat" >"$tmp/juno.txt" 2>/dev/null; then
		same_outputs "$tmp/trace.dat" "$tmp/juno.txt" juno-trace.dat
		# as version 7, its sections compressed (trace-cmd convert)
		if trace-cmd convert -i "$tmp/trace.dat" -o "$tmp/juno7.dat" --file-version 7 \
			--compression any >/dev/null 2>&1 &&
		   "$cli" stats "$tmp/juno7.dat" | sed 1d | cmp -s - "$tmp/jplain"; then ok; else
			bad "trace.dat version 7, compressed"; fi
	else
		echo "SKIP (not counted): no trace-cmd here to write the Juno trace.dat's report"
	fi
	# cut short: one clear line
	head -c 1000000 "$tmp/trace.dat" >"$tmp/cut.dat"
	err=$("$cli" stats "$tmp/cut.dat" 2>&1 >/dev/null)
	if [ $? -ne 0 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
	   printf '%s' "$err" | grep -q "cut.dat: "; then ok; else
		bad "a trace.dat cut short: '$err'"; fi
else
	echo "SKIP (not counted): ../shared/traces/hardware/juno-lisa not found"
fi

# --- a pipe-mode recording (perf record -o -), as a file and on a pipe ----
xz -dc "$fx/pipe-mode.perf.data.xz" >"$tmp/pipe.data"
"$cli" stats "$fx/pipe-mode.perf.txt.xz" | sed 1d >"$tmp/ptxt"
for how in file pipe; do
	if [ $how = file ]; then
		"$cli" stats "$tmp/pipe.data" >"$tmp/pout" 2>"$tmp/perr"
	else
		"$cli" stats - <"$tmp/pipe.data" >"$tmp/pout" 2>"$tmp/perr"
	fi
	if grep -q '^cpu1$' "$tmp/pout" && sed 1d "$tmp/pout" | cmp -s - "$tmp/ptxt"; then ok; else
		bad "pipe-mode perf.data read as a $how: $(cat "$tmp/perr")"; fi
done

# lost events (PERF_RECORD_LOST, as perf writes it when a ring buffer was
# full): warned about with the CPU and the byte, and the intervals across
# the gap left out, as the text readers do with perf script's lost lines
python3 - "$tmp/pipe.data" "$tmp/lost.data" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pos, n, ident, at = 16, 0, None, None
while pos < len(b):
    t, _, size = struct.unpack_from('<IHH', b, pos)
    if t == 9:
        n += 1
        if n == 300:
            # IDENTIFIER, IP, TID, TIME, CPU: the sample's id, time and CPU
            ident, = struct.unpack_from('<Q', b, pos + 8)
            tid, = struct.unpack_from('<Q', b, pos + 24)
            time, = struct.unpack_from('<Q', b, pos + 32)
            cpu, = struct.unpack_from('<Q', b, pos + 40)
            at = pos + size
            break
    pos += size + (struct.unpack_from('<I', b, pos + 8)[0] if t == 66 else 0)
# id, lost, then the sample_id trailer: TID, TIME, CPU, IDENTIFIER
lost = struct.pack('<IHH', 2, 0, 56) + struct.pack('<QQQQQQ', ident, 5, tid, time, cpu, ident)
open(sys.argv[2], 'wb').write(b[:at] + lost + b[at:])
PY
err=$("$cli" stats "$tmp/lost.data" 2>&1 >/dev/null)
if printf '%s' "$err" | grep -q "warning: .*lost.data: the trace lost 5 events on CPU [01] (byte [0-9]*)"
then ok; else bad "lost events in a perf.data: '$err'"; fi

# --- zstd-compressed records (perf record -z) -----------------------------
xz -dc "$fx/zstd-records.perf.data.xz" >"$tmp/z.data"
"$cli" stats "$fx/zstd-records.perf.txt.xz" | sed 1d >"$tmp/zt"
if "$cli" stats "$tmp/z.data" | sed 1d | cmp -s - "$tmp/zt" && grep -q '^cpu0$' "$tmp/zt"
then ok; else bad "perf.data with zstd-compressed records"; fi
# described beside it (FILE.recording, as cpuidle record writes it): stats
# names the states by the recorded platform, the events read once
{
	printf '# cpuidle-recording version 1\n'
	grep -v '^#' "$src/platforms/haltpoll-vm.platform" | grep . |
		sed 's/^platform .*/platform "recorded"/; s/^/# cpuidle-recording platform /'
} >"$tmp/z.data.recording"
if "$cli" stats --json "$tmp/z.data" 2>/dev/null | python3 -c '
import json, sys
names = {s["name"] for c in json.load(sys.stdin)["cpus"] for s in c["states"]}
assert "haltpoll idle" in names, names'
then ok; else bad "stats of a perf.data described in FILE.recording"; fi
printf 'not a description\n' >"$tmp/z.data.recording"
expect_fail "a perf.data's malformed description" \
	"z.data.recording:1: not a recording's description line" stats "$tmp/z.data"
rm -f "$tmp/z.data.recording"
# cut inside its compressed records
head -c $(($(wc -c <"$tmp/z.data") * 2 / 3)) "$tmp/z.data" >"$tmp/zcut.data"
expect_fail "compressed records cut" "zcut.data: byte [0-9]*: " stats "$tmp/zcut.data"

# --- broken perf.data, made from a real one ------------------------------
# break WHAT IN OUT: the recording IN with one thing wrong (a python3 helper)
seed="$src/fuzz/corpus/trace_perfdata/seed-file-mode.perf.data"
break_perf() {
	python3 - "$@" <<'PY'
import struct, sys
what, src, dst = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from('<5Q', b, 16)
end = data_off + data_size
def records():
    pos = data_off
    while pos < end:
        t, _, size = struct.unpack_from('<IHH', b, pos)
        yield pos, t, size
        pos += size
if what == 'attr0':
    struct.pack_into('<Q', b, 16, 0)
elif what == 'attr1g':
    struct.pack_into('<Q', b, 16, 1 << 30)
elif what == 'noid':
    pos = next(p for p, t, _ in records() if t == 9)
    struct.pack_into('<Q', b, pos + 8, 0xdeadbeef)     # PERF_SAMPLE_IDENTIFIER
elif what == 'size0':
    pos = next(p for p, t, _ in records() if t == 9)
    struct.pack_into('<H', b, pos + 6, 0)
elif what == 'beyond':
    struct.pack_into('<Q', b, 48, data_size + (1 << 40))
elif what in ('garbage', 'nofield', 'badsize'):
    magic = b.index(b'\x17\x08Dtracing', end)
    if what == 'garbage':
        b[magic:magic + 64] = b'x' * 64
    else:
        at = b.index(b'name: cpu_idle\n', magic)
        f = b.index(b'field:u32 state;\toffset:8;\tsize:4;', at)
        new = b'field:u32 stat_;\toffset:8;\tsize:4;' if what == 'nofield' else \
              b'field:u32 state;\toffset:8;\tsize:3;'
        b[f:f + len(new)] = new
open(dst, 'wb').write(b)
PY
}
# broken WHAT PATTERN: refused with PATTERN, one line naming the file, no output
broken() {
	break_perf "$1" "$seed" "$tmp/$1.data" || { bad "break $1"; return; }
	rm -f "$tmp/$1.ivf"
	err=$("$cli" convert "$tmp/$1.data" -o "$tmp/$1.ivf" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 0 ] && [ ! -e "$tmp/$1.ivf" ] &&
	   [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
	   printf '%s' "$err" | grep -q "$1.data: .*$2"; then ok; else
		bad "perf.data, $1: rc=$rc '$err'"; fi
}
broken attr0 "byte 16: event attributes of 0 bytes"
broken attr1g "byte 16: event attributes of 1073741824 bytes"
broken noid "byte [0-9]*: a sample of an id no event attribute has"
broken size0 "byte [0-9]*: a record of 0 bytes, less than its own header"
broken beyond "byte [0-9]*: the file ends before the feature sections"
broken garbage "byte [0-9]*: the tracing data does not start with its magic"
broken nofield "the format of power:cpu_idle has no field 'state'"
broken badsize "power:cpu_idle's field 'state' is 3 bytes at 8, which no kernel writes"

# a pipe that ends early (pipe mode, cut in a record)
head -c 30000 "$tmp/pipe.data" >"$tmp/pipecut.data"
err=$(cat "$tmp/pipecut.data" | "$cli" stats - 2>&1 >/dev/null)
if [ $? -ne 0 ] && printf '%s' "$err" | grep -q "<stdin>: byte [0-9]*: the file ends in"
then ok; else bad "a pipe-mode perf.data cut short on a pipe: '$err'"; fi

# a zstd bomb: a compressed record of 1 GB of zeros (~40 KB) in pipe mode
if command -v zstd >/dev/null 2>&1; then
	head -c 1000000000 /dev/zero | zstd -q -19 -c >"$tmp/bomb.zst"
	python3 - "$tmp/pipe.data" "$tmp/bomb.zst" "$tmp/bomb.data" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
z = open(sys.argv[2], 'rb').read()
pos = 16
while True:                                   # before the first sample
    t, _, size = struct.unpack_from('<IHH', b, pos)
    if t == 9:
        break
    pos += size + (struct.unpack_from('<I', b, pos + 8)[0] if t == 66 else 0)
rec = struct.pack('<IHH', 81, 0, 8 + len(z)) + z
open(sys.argv[3], 'wb').write(b[:pos] + rec + b[pos:])
PY
	if [ "$(wc -c <"$tmp/bomb.zst")" -lt 65000 ]; then
		expect_fail "zstd bomb" "bomb.data: byte [0-9]*: a compressed record decompresses to over 64 MiB" \
			stats "$tmp/bomb.data"
	else
		bad "the zstd bomb came out at $(wc -c <"$tmp/bomb.zst") bytes"
	fi
fi

# --- foreign binary files: what they are, what to do ---------------------
printf 'BZh91AY&SY\001\002\003' >"$tmp/x.bz2"
expect_fail "bzip2" "x.bz2: a bzip2-compressed file: not read" stats "$tmp/x.bz2"
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000' >"$tmp/x.elf"
expect_fail "ELF" "x.elf: an ELF executable" stats "$tmp/x.elf"
printf '\001\002\003\000\377\376\375\374\000\000\000\000\000\000\000\000\000' >"$tmp/x.bin"
expect_fail "unknown binary" "x.bin: a binary file of a kind not read here (it starts 01 02 03 00)" \
	stats "$tmp/x.bin"
if err=$("$cli" stats "$tmp/x.bin" 2>&1); [ -n "$err" ] && ! printf '%s' "$err" | grep -q NUL
then ok; else bad "a binary file is refused for a NUL byte: $err"; fi
# a perf.data header and nothing else; a big-endian one
printf 'PERFILE2\150\000\000\000\000\000\000\000' >"$tmp/hdr.data"
expect_fail "perf.data header cut" "hdr.data: byte 16: the file ends in the file header" \
	stats "$tmp/hdr.data"
printf '2ELIFREP\000\000\000\000\000\000\000\150' >"$tmp/be.data"
expect_fail "big-endian perf.data" "be.data: a perf.data file written on a big-endian machine" \
	stats "$tmp/be.data"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
