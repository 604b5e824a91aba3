#!/bin/bash
# perf's pipe mode: precord -o - (and a FIFO at -o, and a stdout that is a
# pipe with no -o) streams perf's pipe format, which stock perf reads as it
# comes: perf report, perf script (tracepoint fields: the tracing data
# went through), perf inject, compressed with -z, in every layout. A reader
# that goes away ends the recording with one line and a non-zero exit, no
# hang and no death by SIGPIPE.
. "$(dirname "$0")/../lib.sh"
shopt -s lastpipe	# perf_clean at the end of a pipeline runs here: its fail exits

[ -x "$MATMUL" ] || fail "no $MATMUL (run make)"

# rec_ok NAME: precord of the pipeline just run exited 0 and said where it wrote
rec_ok() {
	[ "$1" = 0 ] || { cat "$T/$2.rec"; fail "$2: precord exited $1"; }
	grep -q 'Captured and wrote .* - (' "$T/$2.rec" ||
		{ cat "$T/$2.rec"; fail "$2: no summary naming '-' on stderr"; }
}
samples_in() {	# REPORT: its sample count
	sed -n 's/^# Samples: \([0-9]*\).*/\1/p' "$1" | head -1
}

# 1. precord -o - | perf report -i -: no warning, the samples are there
"$PRECORD" -o - -- true 2>"$T/basic.rec" |
	perf_clean "$T/basic.out" "$T/basic.err" -- report -i - --stdio
rec_ok "${PIPESTATUS[0]}" basic
[ "$(samples_in "$T/basic.out")" -gt 0 ] || { cat "$T/basic.out"; fail "basic: no samples"; }
note "basic: $(samples_in "$T/basic.out") samples through the pipe"

# 2. a tracepoint: perf script decodes its fields from the streamed tracing data
ensure_tracefs
"$PRECORD" -o - -a -e sched:sched_switch -- sleep 0.5 2>"$T/tp.rec" |
	perf_clean "$T/tp.out" "$T/tp.err" -- script -i -
rec_ok "${PIPESTATUS[0]}" tp
n=$(grep -c 'sched:sched_switch: prev_comm=.* ==> next_comm=' "$T/tp.out")
[ "$n" -gt 0 ] || { head "$T/tp.out"; fail "tp: no decoded sched_switch line"; }
note "tracepoint: $n sched_switch lines decoded by perf script"

# 3. perf inject in the middle of the pipe, then perf report: symbols resolve
"$PRECORD" -o - -- "$MATMUL" -q 2>"$T/inj.rec" | perf inject -b 2>"$T/inj.inject" |
	perf_clean "$T/inj.out" "$T/inj.err" -- report -i - --stdio
st=("${PIPESTATUS[@]}")
rec_ok "${st[0]}" inj
[ "${st[1]}" = 0 ] || { cat "$T/inj.inject"; fail "inject: perf inject exited ${st[1]}"; }
[ ! -s "$T/inj.inject" ] || { cat "$T/inj.inject"; fail "inject: perf inject complained"; }
grep -q 'matmul *matmul *\[\.\] multiply' "$T/inj.out" ||
	{ cat "$T/inj.out"; fail "inject: matmul's multiply is not in the report"; }
note "inject: $(samples_in "$T/inj.out") samples, multiply resolved"

# 4. a FIFO at -o. perf 6.1's 'report -i FIFO' refuses any FIFO ("zero-sized
# data"), whoever writes it: the reader takes it on its stdin, as perf's own
# pipe mode needs.
mkfifo "$T/fifo"
( perf_clean "$T/fifo.out" "$T/fifo.err" -- report -i - --stdio <"$T/fifo" ) &
reader=$!
timeout 60 "$PRECORD" -o "$T/fifo" -- true 2>"$T/fifo.rec" ||
	{ cat "$T/fifo.rec"; fail "fifo: precord exited $?"; }
wait $reader || fail "fifo: perf report of the FIFO failed"
[ -p "$T/fifo" ] && [ ! -e "$T/fifo.old" ] || fail "fifo: the FIFO was moved"
[ "$(samples_in "$T/fifo.out")" -gt 0 ] || { cat "$T/fifo.out"; fail "fifo: no samples"; }
note "fifo: $(samples_in "$T/fifo.out") samples through $T/fifo"

# 5. no -o, stdout a pipe: the stream goes there and no perf.data is made
mkdir "$T/cwd"
(cd "$T/cwd" && "$PRECORD" -- true 2>"$T/nod.rec") |
	perf_clean "$T/nod.out" "$T/nod.err" -- report -i - --stdio
rec_ok "${PIPESTATUS[0]}" nod
[ -z "$(ls -A "$T/cwd")" ] || { ls -la "$T/cwd"; fail "no -o: something was written in the cwd"; }
[ "$(samples_in "$T/nod.out")" -gt 0 ] || fail "no -o: no samples"
note "no -o, stdout a pipe: $(samples_in "$T/nod.out") samples, nothing in the cwd"

# 6. -z: perf reads COMPRESSED records in a pipe
"$PRECORD" -z -o - -- "$MATMUL" -q 2>"$T/z.rec" |
	perf_clean "$T/z.out" "$T/z.err" -- report -i - --stdio
rec_ok "${PIPESTATUS[0]}" z
grep -q 'matmul *matmul *\[\.\] multiply' "$T/z.out" || { cat "$T/z.out"; fail "-z: no multiply"; }
"$PRECORD" -q -z -o - -- true | perf report -i - -D 2>/dev/null >"$T/z.dump"
grep -Eq 'COMPRESSED events: *[1-9]' "$T/z.dump" || fail "-z: no COMPRESSED record in the stream"
note "-z: $(samples_in "$T/z.out") samples from COMPRESSED records"

# 7. every layout writes the same stream, with one thread; --threads says so
for layout in "" --no-threads --threads=cpu --aio --mmap-output; do
	name=layout${layout//[-=]/_}
	"$PRECORD" -o - $layout -- "$MATMUL" -q 2>"$T/$name.rec" |
		perf_clean "$T/$name.out" "$T/$name.err" -- report -i - --stdio
	rec_ok "${PIPESTATUS[0]}" "$name"
	grep -q 'multiply' "$T/$name.out" || { cat "$T/$name.out"; fail "$name: no multiply"; }
	if [ "$layout" = --threads=cpu ]; then
		grep -q 'note: --threads=cpu is not used: pipe mode' "$T/$name.rec" ||
			{ cat "$T/$name.rec"; fail "--threads=cpu: no note"; }
	elif grep -q '^precord: ' "$T/$name.rec"; then
		cat "$T/$name.rec"; fail "'$layout': precord printed more than the summary"
	fi
	note "layout '${layout:-default}': $(samples_in "$T/$name.out") samples"
done

# 8. what the workload prints goes to stderr, not into the stream
"$PRECORD" -o - -- echo workload-output-marker 2>"$T/echo.rec" |
	perf_clean "$T/echo.out" "$T/echo.err" -- report -i - --stdio
rec_ok "${PIPESTATUS[0]}" echo
grep -q '^workload-output-marker$' "$T/echo.rec" || fail "echo: the workload's output is lost"

# 9. the stream in a regular file at stdout: perf reads pipe-format files too
"$PRECORD" -q -o - -- true >"$T/stream.data" || fail "file at stdout: precord failed"
perf_clean "$T/file.out" "$T/file.err" -- report -i "$T/stream.data" --stdio
[ "$(samples_in "$T/file.out")" -gt 0 ] || fail "file at stdout: no samples"

# 10. options that need the threads' files: refused with one line
for opt in --switch-output --no-merge --overwrite; do
	"$PRECORD" -o - $opt -- true >"$T/refused.out" 2>"$T/refused.err" &&
		fail "$opt in pipe mode: precord exited 0"
	[ "$(grep -c . "$T/refused.err")" -eq 1 ] && grep -q 'pipe mode' "$T/refused.err" ||
		{ cat "$T/refused.err"; fail "$opt in pipe mode: not one line about pipe mode"; }
	[ ! -s "$T/refused.out" ] || fail "$opt in pipe mode: something was written"
done

# 11. the reader goes away: while records flow (-a), and while nothing is
# written (a sleeping workload); one line, exit 1, well before the workload ends
for args in "-a -- sleep 5" "-- sleep 5"; do
	start=$(date +%s)
	timeout 30 "$PRECORD" -o - $args 2>"$T/gone.err" | head -c 100 >/dev/null
	st=${PIPESTATUS[0]}
	took=$(($(date +%s) - start))
	[ "$st" = 1 ] || { cat "$T/gone.err"; fail "reader gone ($args): exit $st, not 1"; }
	[ "$(grep -c . "$T/gone.err")" -eq 1 ] &&
		grep -q '^precord: the reader of stdout went away' "$T/gone.err" ||
		{ cat "$T/gone.err"; fail "reader gone ($args): not one line saying so"; }
	[ "$took" -lt 5 ] || fail "reader gone ($args): took ${took}s, the workload's whole run"
	note "reader gone ($args): exit 1 after ${took}s: $(cat "$T/gone.err")"
done
echo ok
