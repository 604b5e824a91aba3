#!/bin/bash
# Streaming threads and the merge: the merged file holds exactly
# the records of the per-ring files, in time order, and reads in perf like the
# --no-merge directory; -z and --mmap-output read in perf; a recording killed
# with SIGKILL is saved by `precord merge`; SIGINT during a heavy recording
# finishes the file. With one streaming thread (the numa layout on a
# one-node machine) precord writes the file itself, as perf does without
# --threads: no staging directory, no merge; a kill leaves the file for
# `precord merge FILE`. The merge's own cases use --threads=cpu; the
# adaptive default's are in adaptive_layout.sh.
. "$(dirname "$0")/../lib.sh"
ensure_tracefs

stats() {	# perf report --stats totals, without the markers the merge adds
	perf report --stats -i "$1" 2>/dev/null | grep -E '^ *[A-Z_]+ events:' |
		grep -vE 'FINISHED_ROUND|COMPRESSED|TOTAL' | sed 's/(.*//; s/  */ /g' | sort
}

# 1. --no-merge directory, then precord merge: same records, perf reads both.
"$PRECORD" --threads=cpu --no-merge -a -e cpu-clock,sched:sched_switch -o "$T/dir" -- \
	"$MATMUL" -t 4 -n 300 -r 6 >/dev/null 2>"$T/sum" || { cat "$T/sum"; fail "--no-merge recording failed"; }
cat "$T/sum"
[ -d "$T/dir" ] && [ -f "$T/dir/data" ] && [ -f "$T/dir/data.0" ] || fail "--no-merge did not keep the directory layout"
[ "$(grep -c 'prec-rd/' "$T/sum")" -eq "$(nproc)" ] || fail "--threads=cpu: not one streaming thread per CPU"
[ "$(grep -cE '^\[ precord: prec-rd/[0-9]+: .*, [0-9]+ lost, [0-9]+\.[0-9]{3} s CPU \]$' "$T/sum")" -eq "$(nproc)" ] ||
	fail "a streaming thread's summary line does not end with its CPU time"
perf_clean "$T/d.script" "$T/d.err" -- script -i "$T/dir"
"$PRECORD" merge "$T/dir" -o "$T/merged.data" 2>"$T/merge.sum" || { cat "$T/merge.sum"; fail "precord merge failed"; }
cat "$T/merge.sum"
perf_clean "$T/m.script" "$T/m.err" -- script -i "$T/merged.data"
stats "$T/dir" >"$T/d.stats"; stats "$T/merged.data" >"$T/m.stats"
diff -u "$T/d.stats" "$T/m.stats" || fail "perf report --stats differs between the directory and the merged file"
[ "$(wc -l <"$T/d.script")" -eq "$(wc -l <"$T/m.script")" ] || fail "perf script line counts differ"
note "directory and merged file: same --stats ($(tr '\n' ';' <"$T/m.stats"))"

# Kernel records of the merged data section never go back in time.
perf report -D -i "$T/merged.data" 2>/dev/null |
	awk '/^[0-9]+ [0-9]+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_/ { if ($2 > 0) { if ($2 < last) bad++; last = $2; n++ } }
	     END { printf "%d timed records, %d out of order\n", n, bad; exit bad > 0 }' >"$T/order" ||
	{ cat "$T/order"; fail "the merged file goes back in time"; }
note "merged order: $(cat "$T/order")"

NODES=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)

# 2. The default (adaptive: per-ring files, merged) and -z read in perf,
# same samples as summary.
"$PRECORD" -z -F 2000 -g -o "$T/z.data" -- "$MATMUL" -t 2 -n 300 -r 6 >/dev/null 2>"$T/z.sum" ||
	{ cat "$T/z.sum"; fail "-z recording failed"; }
perf_clean "$T/z.script" "$T/z.err" -- script -G -i "$T/z.data"
perf report --header-only -i "$T/z.data" 2>/dev/null | grep -q '# compressed : Zstd' || fail "-z: no HEADER_COMPRESSED"
[ "$(wc -l <"$T/z.script")" -eq "$(samples_of "$T/z.sum")" ] || fail "-z: perf script and precord disagree on samples"
note "-z: $(samples_of "$T/z.sum") samples read back"

# 2a. One streaming thread: the file written directly in perf's serial
# layout (FINISHED_ROUND after passes that moved data), at real time, no
# merge; perf reads it in order with every sample the summary counts.
if [ "$NODES" -le 1 ]; then
	"$PRECORD" --threads=numa -F 4000 -g -o "$T/one.data" -- "$MATMUL" -t 4 -n 300 -r 40 >/dev/null 2>"$T/one.sum" ||
		{ cat "$T/one.sum"; fail "one-thread recording failed"; }
	[ -f "$T/one.data" ] && [ ! -e "$T/one.data.staging" ] || fail "one thread: not a single file"
	grep -q 'Merged' "$T/one.sum" && { cat "$T/one.sum"; fail "one thread: merged anyway"; }
	[ "$(grep -c 'prec-rd/' "$T/one.sum")" -eq 1 ] || { cat "$T/one.sum"; fail "one thread: not one streaming thread"; }
	# Several MB drained: the thread's own CPU time is not zero (under a
	# millisecond, which the line rounds to 0.000 s, for less than that).
	sed -n 's/^\[ precord: prec-rd\/0: .* \([0-9.]*\) MB, .* \([0-9.]*\) s CPU \]$/\1 \2/p' "$T/one.sum" |
		awk '{ mb = $1; v = $2 } END { exit !(mb < 2 || v > 0) }' ||
		{ cat "$T/one.sum"; fail "one thread: no CPU time for the streaming thread"; }
	perf_clean "$T/one.script" "$T/one.err" -- script -F tid,time -i "$T/one.data"
	[ "$(wc -l <"$T/one.script")" -eq "$(samples_of "$T/one.sum")" ] ||
		fail "one thread: perf script and precord disagree on samples"
	perf report --stats -i "$T/one.data" 2>/dev/null | grep -q 'FINISHED_ROUND events' ||
		fail "one thread: no FINISHED_ROUND in the file"
	note "one thread: $(samples_of "$T/one.sum") samples in one file, no merge"
else
	note "$NODES NUMA nodes: numa has several threads (merged), no one-thread case"
fi

# 2b. --mmap-output (the writer that copies into a shared mapping of each
# file), merged and with --no-threads: perf reads the same samples as said.
for mode in "" --no-threads; do
	"$PRECORD" --mmap-output $mode -F 2000 -g -o "$T/mo.data" -- "$MATMUL" -t 2 -n 300 -r 6 \
		>/dev/null 2>"$T/mo.sum" || { cat "$T/mo.sum"; fail "--mmap-output $mode recording failed"; }
	perf_clean "$T/mo.script" "$T/mo.err" -- script -G -i "$T/mo.data"
	[ "$(wc -l <"$T/mo.script")" -eq "$(samples_of "$T/mo.sum")" ] ||
		fail "--mmap-output $mode: perf script and precord disagree on samples"
	note "--mmap-output $mode: $(samples_of "$T/mo.sum") samples read back"
done

# record_killed ARGS...: precord ARGS recording a long matmul, SIGKILLed after 1.5 s.
record_killed() {
	"$PRECORD" "$@" -- "$MATMUL" -t 2 -n 400 -r 400 >/dev/null 2>&1 &
	local pid=$!
	sleep 1.5
	kill -KILL $pid; wait $pid 2>/dev/null
	pkill -f "$MATMUL -t 2 -n 400 -r 400" 2>/dev/null
}

# finish_killed LABEL FILE FIELD PATTERN: precord merge FILE finishes it in
# place, and perf script -F FIELD prints a line matching PATTERN for every
# sample the summary counts.
finish_killed() {
	local label=$1 f=$2 field=$3 pat=$4 want n
	"$PRECORD" merge "$f" 2>"$f.sum" || { cat "$f.sum"; fail "$label: precord merge FILE failed"; }
	perf_clean "$f.script" "$f.err" -- script -F "$field" -i "$f"
	want=$(sed -n 's/.*Finished .*: [0-9]* records, \([0-9]*\) samples.*/\1/p' "$f.sum")
	n=$(grep -c -- "$pat" "$f.script")
	[ "${want:-0}" -gt 0 ] && [ "$n" -eq "$want" ] ||
		{ cat "$f.sum"; fail "$label: perf script reads $n of $want samples"; }
	note "$label: precord merge FILE finished it; perf script reads all $want samples"
}

# 3. SIGKILL: the staging directory stays, and precord merge saves it.
record_killed --threads=cpu -a -F 2000 -o "$T/k.data"
[ -d "$T/k.data.staging" ] || fail "SIGKILL: no staging directory left"
"$PRECORD" merge "$T/k.data.staging" 2>"$T/k.sum" || { cat "$T/k.sum"; fail "merge after SIGKILL failed"; }
[ -f "$T/k.data" ] || fail "merge of X.staging did not write X"
perf report --stats -i "$T/k.data" >/dev/null 2>"$T/k.err" || { cat "$T/k.err"; fail "perf cannot read the file saved after SIGKILL"; }
n=$(perf script -i "$T/k.data" 2>/dev/null | wc -l)
[ "$n" -gt 0 ] || fail "SIGKILL: the saved file has no samples"
note "SIGKILL: precord merge saved $n samples"

# 3b. The same with --mmap-output: each data.N ends in reserved zeroes,
# which the merge leaves out (and says so).
record_killed --threads=cpu --mmap-output -a -F 2000 -o "$T/km.data"
"$PRECORD" merge "$T/km.data.staging" 2>"$T/km.sum" || { cat "$T/km.sum"; fail "merge after SIGKILL (--mmap-output) failed"; }
# (or, killed in the middle of a copy, at the zero header of the record being copied)
grep -qE 'bytes of zeroes from offset|record of size 0' "$T/km.sum" ||
	{ cat "$T/km.sum"; fail "--mmap-output SIGKILL: no word of the zeroed tail"; }
n=$(perf script -i "$T/km.data" 2>/dev/null | wc -l)
[ "$n" -gt 0 ] || fail "SIGKILL (--mmap-output): the saved file has no samples"
note "SIGKILL with --mmap-output: precord merge saved $n samples"

# 3c. SIGKILL with one streaming thread: the file stays, its header's data
# size kept up to date by the thread (every 4 MiB and when idle), so perf
# reads it as it is; precord merge FILE finishes it in place, with what lies
# past that size and the features written ahead of the data.
if [ "$NODES" -le 1 ]; then
	record_killed --threads=numa -a -F 2000 -o "$T/k1.data"
	[ -f "$T/k1.data" ] || fail "SIGKILL, one thread: no file left"
	perf script -F tid,time -i "$T/k1.data" >"$T/k1.s0" 2>"$T/k1.e0" ||
		{ cat "$T/k1.e0"; fail "SIGKILL, one thread: perf cannot read the file as it is"; }
	grep -q 'data size field is 0' "$T/k1.e0" && fail "SIGKILL, one thread: the header says no data"
	n0=$(wc -l <"$T/k1.s0")
	[ "$n0" -gt 0 ] || fail "SIGKILL, one thread: perf reads no sample in the killed file"
	"$PRECORD" merge "$T/k1.data" 2>"$T/k1.sum" || { cat "$T/k1.sum"; fail "precord merge FILE after SIGKILL failed"; }
	perf_clean "$T/k1.script" "$T/k1.err" -- script -F tid,time -i "$T/k1.data"
	n1=$(wc -l <"$T/k1.script")
	[ "$n1" -ge "$n0" ] || fail "SIGKILL, one thread: precord merge FILE kept $n1 samples of $n0"
	perf report --header-only -i "$T/k1.data" 2>/dev/null | grep -q '^# hostname :' ||
		fail "SIGKILL, one thread: the finished file has no features"
	note "SIGKILL, one thread: perf read $n0 samples as it was; precord merge FILE kept $n1, with $(sed -n 's/.* \([0-9]*\) feature sections.*/\1/p' "$T/k1.sum") feature sections"

	# A tracepoint: perf needs the tracing data, a feature, which only the
	# finished file has.
	"$PRECORD" --threads=numa -a -e raw_syscalls:sys_enter -o "$T/kt.data" -- sleep 10 >/dev/null 2>&1 &
	pid=$!
	sleep 1.5
	kill -KILL $pid; wait $pid 2>/dev/null
	finish_killed "SIGKILL, tracepoint, one thread" "$T/kt.data" event 'raw_syscalls:sys_enter'

	# -z: perf decompresses only with the COMPRESSED feature, which again
	# only the finished file has.
	record_killed --threads=numa -z -a -F 2000 -o "$T/kz.data"
	finish_killed "SIGKILL, -z, one thread" "$T/kz.data" tid .
fi

# 4. SIGINT during a heavy recording finishes a valid file. Its merge
# consumes its inputs (PRECORD_MERGE_CONSUME=1; by default only where the
# host takes free memory back, checked in 4c).
PRECORD_MERGE_CONSUME=1 "$PRECORD" --threads=cpu -F max --call-graph dwarf -o "$T/i.data" -- "$MATMUL" -t 4 -n 400 -r 400 >/dev/null 2>"$T/i.sum" &
pid=$!
sleep 1
kill -INT $pid; wait $pid; st=$?
[ $st -eq 130 ] || { cat "$T/i.sum"; fail "SIGINT: exit $st, want 130"; }
perf report --stats -i "$T/i.data" >/dev/null 2>"$T/i.err" || { cat "$T/i.err"; fail "SIGINT: perf cannot read the file"; }
[ ! -e "$T/i.data.staging" ] || fail "SIGINT: the staging directory was left behind"
note "SIGINT: $(samples_of "$T/i.sum") samples, file reads"
# That merge split on the threads' record index (no walk over the files),
# and its output never goes back in time either.
if grep -q 'a thread per CPU' "$T/i.sum"; then
	grep -q "no walk: the threads' record index" "$T/i.sum" ||
		{ cat "$T/i.sum"; fail "the in-process merge walked the files instead of using the index"; }
	perf script -F time -i "$T/i.data" 2>"$T/i.serr" |
		awk '{ t = $1 + 0; if (t < last) bad++; last = t; n++ }
		     END { printf "%d samples, %d out of order\n", n, bad; exit bad > 0 }' >"$T/i.order" ||
		{ cat "$T/i.order"; fail "the merge from the index goes back in time"; }
	grep -qi 'out of order' "$T/i.serr" && fail "perf script: out of order events after the indexed merge"
	note "indexed merge: $(cat "$T/i.order")"
	# The merge punched its inputs out as it went (their pages became the
	# output's), and perf finds every sample the recording counted.
	grep -q 'their pages reused as merged' "$T/i.sum" ||
		{ cat "$T/i.sum"; fail "the in-process merge did not give its inputs' space back"; }
	n=$(perf report --stats -i "$T/i.data" 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }')
	[ "$n" = "$(samples_of "$T/i.sum")" ] ||
		fail "perf counts $n samples in the consuming merge's output, precord said $(samples_of "$T/i.sum")"
else
	note "the SIGINT recording merged on one thread (tmpfs, or under 16 MiB): no index to check"
fi

# 4b. SIGKILL during that merge, once it has begun punching its inputs out
# (merge.journal exists): precord merge finishes it from the partial output
# and what the inputs still hold. The merge takes a fraction of a second;
# when the kill comes too late the case is noted, not failed.
PRECORD_MERGE_CONSUME=1 "$PRECORD" --threads=cpu -F max --call-graph dwarf -o "$T/j.data" -- "$MATMUL" -t 4 -n 400 -r 400 >/dev/null 2>&1 &
pid=$!
sleep 1
kill -INT $pid
while kill -0 $pid 2>/dev/null; do
	[ -e "$T/j.data.staging/merge.journal" ] && { kill -KILL $pid; break; }
done
wait $pid 2>/dev/null
if [ -e "$T/j.data.staging/merge.journal" ]; then
	"$PRECORD" merge "$T/j.data.staging" -o "$T/j.data" 2>"$T/j.sum" ||
		{ cat "$T/j.sum"; fail "precord merge could not finish a merge killed half-way"; }
	grep -q 'finished the merge that was killed' "$T/j.sum" || { cat "$T/j.sum"; fail "precord merge did not resume"; }
	[ ! -e "$T/j.data.staging/merge.journal" ] || fail "the journal of the finished merge was left behind"
	ls "$T"/j.data.?????? >/dev/null 2>&1 && fail "the killed merge's partial output was left behind"
	# What the merge gave back is no recording: the directory is gone, and
	# merging it again fails and leaves the output as it is.
	[ ! -e "$T/j.data.staging" ] || fail "what is left of the consumed staging directory stayed"
	sum=$(md5sum <"$T/j.data")
	"$PRECORD" merge "$T/j.data.staging" -o "$T/j.data" 2>"$T/j.again" &&
		fail "merging the finished staging directory again succeeded"
	[ "$(md5sum <"$T/j.data")" = "$sum" ] || fail "merging the finished staging directory again changed the output"
	perf script -F time -i "$T/j.data" 2>"$T/j.serr" |
		awk '{ t = $1 + 0; if (t < last) bad++; last = t; n++ }
		     END { printf "%d samples, %d out of order\n", n, bad; exit bad > 0 || n == 0 }' >"$T/j.order" ||
		{ cat "$T/j.order" "$T/j.serr"; fail "the finished merge is empty or goes back in time"; }
	grep -qi 'out of order\|error' "$T/j.serr" && { cat "$T/j.serr"; fail "perf script complains about the finished merge"; }
	note "SIGKILL during the merge: precord merge finished it, $(cat "$T/j.order")"
else
	note "SIGKILL during the merge: the merge was over before the kill (or ran on one thread)"
fi
pkill -f "$MATMUL -t 4 -n 400 -r 400" 2>/dev/null

# 4c. By default the merge consumes exactly where this machine's balloon
# reports free pages to the host: page_reporting_order no higher than the
# buddy allocator's top order, and a virtio balloon (device 5) offering
# feature bit 5 (VIRTIO_BALLOON_F_REPORTING).
host_reclaims() {
	local order max d
	order=$(cat /sys/module/page_reporting/parameters/page_reporting_order 2>/dev/null) || return 1
	max=$(( $(head -1 /proc/buddyinfo | awk '{ print NF - 4 }') - 1 ))
	[ "$order" -le "$max" ] || return 1
	for d in /sys/bus/virtio/devices/*; do
		[ "$(cat "$d/device" 2>/dev/null)" = 0x0005 ] &&
			[ "$(cut -c6 "$d/features" 2>/dev/null)" = 1 ] && return 0
	done
	return 1
}
"$PRECORD" --threads=cpu -F max --call-graph dwarf -o "$T/a.data" -- "$MATMUL" -t 4 -n 300 -r 3 >/dev/null 2>"$T/a.sum" ||
	{ cat "$T/a.sum"; fail "the default-merge recording failed"; }
if ! grep -q 'a thread per CPU' "$T/a.sum"; then
	note "default merge: on one thread (tmpfs, or under 16 MiB): nothing to consume"
elif host_reclaims; then
	grep -q 'their pages reused as merged' "$T/a.sum" ||
		{ cat "$T/a.sum"; fail "the host takes free memory back, but the merge did not consume its inputs"; }
	note "default merge: consumed its inputs (free page reporting on)"
else
	grep -q 'their pages reused as merged' "$T/a.sum" &&
		{ cat "$T/a.sum"; fail "no free page reporting here, yet the merge consumed its inputs"; }
	note "default merge: kept its inputs (no free page reporting)"
fi

# 5. Real time: the streaming threads, and the --aio writer threads they
# start, run at SCHED_FIFO 10; with --no-realtime at normal priority.
policies() {	# PID: "comm policy priority" for each streaming and writer thread
	local t
	for t in /proc/"$1"/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in
		prec-rd*|prec-aio*)
			echo "$(cat "$t/comm") $(chrt -p "${t##*/}" | sed -n 's/.*policy: //p' | head -1)" \
			     "$(chrt -p "${t##*/}" | sed -n 's/.*priority: //p')" ;;
		esac
	done
}
for mode in realtime realtime-cpu no-realtime; do
	extra=(); [ $mode = no-realtime ] && extra=(--no-realtime)
	[ $mode = realtime-cpu ] && extra=(--threads=cpu)
	"$PRECORD" -q --aio "${extra[@]}" -a -o "$T/rt.data" -- sleep 2 >/dev/null 2>&1 &
	pid=$!
	sleep 1
	policies $pid >"$T/rt.pol"
	wait $pid
	grep -q '^prec-rd' "$T/rt.pol" && grep -q '^prec-aio' "$T/rt.pol" ||
		{ cat "$T/rt.pol"; fail "$mode: no streaming or writer thread seen"; }
	if [ $mode != no-realtime ]; then
		! grep -v 'SCHED_FIFO 10$' "$T/rt.pol" || fail "realtime: a thread is not at SCHED_FIFO 10"
	else
		! grep -v 'SCHED_OTHER 0$' "$T/rt.pol" || fail "no-realtime: a thread is not at SCHED_OTHER"
	fi
	note "$mode: $(tr '\n' ';' <"$T/rt.pol")"
done
exit 0
