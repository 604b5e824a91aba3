#!/bin/bash
# -D/--delay: a delay, and perf's ranges of milliseconds in which events are
# on (-D 100-300,500-700). The samples fall inside the ranges, measured from
# the workload's exec; the recording ends, and the workload is stopped, at
# the end of the last range; a dummy event carries the side-band from the
# exec, as perf's does, so the delayed samples resolve to symbols. Bad
# lists get one line, exit 129 and nothing on disk, where perf refuses them.
. "$(dirname "$0")/../lib.sh"

# The sample times as ms after the workload's exec, one per line.
sample_ms() {	# file
	perf script -i "$1" --show-task-events -F comm,time,event 2>/dev/null | awk '
		/PERF_RECORD_COMM exec: matmul/ { sub(":", "", $2); exec = $2 + 0; next }
		exec && $3 ~ /cpu-clock/ { sub(":", "", $2); printf "%d\n", ($2 - exec) * 1000 }'
}

# --- ranges: two windows, then the end of the recording
start=$(date +%s%N)
"$PRECORD" -D 100-300,600-800 -F 1000 -o "$T/r.data" -- "$MATMUL" -n 400 -r 200 \
	>/dev/null 2>"$T/r.err" || { cat "$T/r.err"; fail "precord -D ranges failed"; }
took=$((($(date +%s%N) - start) / 1000000))
cat "$T/r.err"
[ $took -lt 5000 ] || fail "the recording went on ${took} ms after a last range ending at 800 ms"
for w in "enabled after 100" "disabled after 300" "enabled after 600" "disabled after 800"; do
	grep -q "events $w ms" "$T/r.err" || fail "no line 'events $w ms'"
done
sample_ms "$T/r.data" >"$T/ms"
n=$(wc -l <"$T/ms")
[ "$n" -gt 50 ] || fail "only $n samples in 400 ms of ranges"
# ranges of 200 ms at 1000 Hz on a busy CPU; 40 ms of slack for the timer and the IPI
awk '{ if (!(($1 >= 60 && $1 <= 340) || ($1 >= 560 && $1 <= 840))) bad++ }
     END { exit bad > 0 }' "$T/ms" || fail "samples outside the ranges: $(awk '$1 < 60 || ($1 > 340 && $1 < 560) || $1 > 840' "$T/ms" | head -5 | xargs)"
awk '$1 < 400' "$T/ms" | grep -q . || fail "no sample in the first range"
awk '$1 > 400' "$T/ms" | grep -q . || fail "no sample in the second range"
perf_clean "$T/rep" "$T/rep.err" -- report -i "$T/r.data" --stdio --sort sym
grep -q 'multiply' "$T/rep" || { head -20 "$T/rep"; fail "the delayed samples do not resolve to matmul's symbols"; }
perf evlist -v -i "$T/r.data" 2>/dev/null | grep '^dummy' | grep -q 'enable_on_exec: 1' ||
	fail "no dummy enabled on exec to carry the side-band through the delay"
note "-D 100-300,600-800: $n samples, all in the ranges; ended after ${took} ms"

# --- a plain delay: samples from 200 ms on, symbols resolved (a workload
# of a second or more, which the delay does not outlast)
"$PRECORD" -q -D 200 -F 1000 -o "$T/d.data" -- "$MATMUL" -n 400 -r 60 >/dev/null 2>"$T/d.err" ||
	{ cat "$T/d.err"; fail "precord -D 200 failed"; }
first=$(sample_ms "$T/d.data" | sort -n | head -1)
[ -n "$first" ] && [ "$first" -ge 160 ] || fail "-D 200: a sample at ${first:-none} ms"
perf_clean "$T/drep" "$T/drep.err" -- report -i "$T/d.data" --stdio --sort sym
grep -q 'multiply' "$T/drep" || fail "-D 200: samples do not resolve"

# --- what perf refuses
for bad in 0 20-10 10-20,20-30 10-20,15-30 10-20, x 10-; do
	rm -f "$T/bad.data"
	"$PRECORD" -D "$bad" -o "$T/bad.data" -- true >/dev/null 2>"$T/bad.err"
	rc=$?
	[ $rc -eq 129 ] || fail "-D '$bad': exit $rc, not 129"
	[ "$(wc -l <"$T/bad.err")" -eq 1 ] || { cat "$T/bad.err"; fail "-D '$bad': not one line"; }
	[ ! -e "$T/bad.data" ] || fail "-D '$bad' left a file"
	perf record -D "$bad" -o "$T/perf-bad.data" -- true >/dev/null 2>&1 &&
		fail "perf takes -D '$bad'; precord refuses it"
done
exit 0
