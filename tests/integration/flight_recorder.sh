#!/bin/bash
# The flight recorder: `precord record --overwrite --switch-output`
# keeps the newest ring's worth of records per CPU, writes a snapshot file
# PREFIX.<16-digit timestamp> on each SIGUSR2 and one at exit, and each
# snapshot holds a contiguous run of the newest markers (the ring was
# overwritten, the oldest torn record left out, nothing read twice); without
# --switch-output the exit snapshot goes to -o FILE; with --threads=cpu every
# ring is paused before any is read, so the CPUs' newest samples coincide.
. "$(dirname "$0")/../lib.sh"
ensure_tracefs
export LC_ALL=C
MARKER=${MARKER:-$TOP/build/tests/marker}
[ -x "$MARKER" ] || fail "no marker workload at $MARKER (run make)"

# The marker workload's records must all go to one ring for its run of
# markers to be contiguous: a task that migrates leaves its older markers in
# the other CPU's ring. taskset execs the marker, so precord stays its parent
# (the one its SIGUSR2 goes to).
PIN=$(sed 's/[-,].*//' /sys/devices/system/cpu/online)

# With -m 1 a ring is one 4 KiB page. A marker costs two raw_syscalls
# records (getppid, clock_nanosleep), each at least 96 bytes (header, tid,
# time and the 72-byte raw payload, whatever else the sample type adds;
# precord's are 128 bytes, perf's 120), so a ring holds at most
# 4096 / 192 = 21 markers: far fewer than the 300 between two signals.
RING_MARKERS=21

dumps() {	# SUMMARY: the files precord announced, in the order written
	sed -n 's/^\[ \(precord\|perf record\): Dump \(.*\) \]$/\2/p' "$1"
}

# check_outputs PREFIX SUMMARY N: N "Dump" lines, each PREFIX.<timestamp>,
# in time order, exactly the files on disk, and no plain PREFIX.
check_outputs() {
	local prefix=$1 sum=$2 want=$3 f
	dumps "$sum" >"$T/dumps"
	[ "$(wc -l <"$T/dumps")" -eq "$want" ] || { cat "$sum"; fail "want $want 'Dump' lines for $prefix"; }
	while read -r f; do
		[[ $f =~ ^"$prefix"\.[0-9]{16}$ ]] || fail "output $f is not $prefix.<16-digit timestamp>"
		[ -f "$f" ] || fail "$f was announced but is not a file"
	done <"$T/dumps"
	sort -c "$T/dumps" 2>/dev/null || fail "the timestamps in the names do not grow: $(tr '\n' ' ' <"$T/dumps")"
	ls -d "$prefix"* >"$T/ondisk"
	diff -u "$T/dumps" "$T/ondisk" >&2 || fail "the files on disk are not the ones announced"
	[ ! -e "$prefix" ] || fail "a plain $prefix was left beside the timestamped files"
}

# read_clean FILE TAG: perf script (with --show-lost-events, so that a LOST
# record would show as a line; precord leaves the ones a snapshot's pause
# causes out, and the caller checks there are none), perf report --stats and
# --header-only all read FILE with nothing on stderr, and --stats shows only
# record types a recording writes.
read_clean() {
	local f=$1 tag=$2 types
	perf_clean "$T/$tag.script" "$T/$tag.err" -- script --ns --show-lost-events -i "$f"
	perf_clean "$T/$tag.stats" "$T/$tag.err" -- report --stats -i "$f"
	perf_clean "$T/$tag.header" "$T/$tag.err" -- report --header-only -i "$f"
	types=$(sed -n 's/^ *\([A-Z0-9_]*\) events:.*/\1/p' "$T/$tag.stats" | sort -u |
		grep -vxE 'TOTAL|SAMPLE|MMAP2?|COMM|FORK|EXIT|LOST|LOST_SAMPLES|FINISHED_ROUND|FINISHED_INIT|ID_INDEX|THREAD_MAP|CPU_MAP|TIME_CONV|KSYMBOL|BPF_EVENT|CGROUP|TEXT_POKE|BUILD_ID|EVENT_UPDATE')
	[ -z "$types" ] || fail "$f: unexpected record types in perf report --stats: $types"
}

lost_of() {	# TAG: LOST records in that file's --stats
	sed -n 's/^ *LOST events: *\([0-9]*\).*/\1/p' "$T/$1.stats" | head -1 | grep . || echo 0
}

markers_of() {	# TAG: the marker numbers, decimal, in perf script (time) order
	local h
	sed -n 's/.*raw_syscalls:sys_enter: NR [0-9]* (6d61726b, \([0-9a-f]*\),.*/\1/p' "$T/$1.script" |
		while read -r h; do echo $((16#$h)); done
}

run_of() {	# TAG: "FIRST LAST COUNT" of the markers; fails on a gap or a repeat
	markers_of "$1" | awk 'NR > 1 && $1 != prev + 1 { printf "marker %d after %d\n", $1, prev; bad = 1 }
		{ if (NR == 1) first = $1; prev = $1 }
		END { if (NR == 0) print "no markers"; else if (!bad) print first, prev, NR; exit NR == 0 || bad }'
}

sample_times() {	# FILE: "N BACKWARDS OLDEST NEWEST" of the samples, in file order
	perf report -D -i "$1" 2>/dev/null |
		awk '/^-?[0-9]+ [0-9]+ 0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE/ {
			if (n && $2 < last) bad++; if (!n) first = $2; last = $2; n++ }
		     END { printf "%d %d %.0f %.0f\n", n, bad, first, last }'
}

# 1. Three signals and the exit: four snapshots of the newest markers.
mkdir -p "$T/fr"
timeout -k 5 40 "$PRECORD" record --overwrite --switch-output -e raw_syscalls:sys_enter -m 1 -o "$T/fr/fr" -- \
	taskset -c "$PIN" "$MARKER" 1000 10 300 600 900 2>"$T/fr.sum" || { cat "$T/fr.sum"; fail "precord --overwrite --switch-output failed"; }
cat "$T/fr.sum"
check_outputs "$T/fr/fr" "$T/fr.sum" 4
k=0 prev_sig=0 prev_newest=0
for sig in 300 600 900 1000; do	# 1000: the exit snapshot ends at the last marker
	f=$(sed -n "$((k + 1))p" "$T/dumps")
	read_clean "$f" "fr$k"
	run=$(run_of "fr$k") || fail "$f: the markers are not one contiguous run: $run"
	read -r first last count <<<"$run"
	[ "$first" -le "$sig" ] && [ "$last" -ge "$sig" ] ||
		fail "$f: markers $first..$last, but the snapshot after marker $sig must hold it"
	[ "$count" -le "$RING_MARKERS" ] ||
		fail "$f: $count markers ($first..$last), more than a 4 KiB ring holds: not overwritten"
	[ "$first" -gt $((prev_sig + 50)) ] ||
		fail "$f: markers from $first, the oldest records were not overwritten since marker $prev_sig"
	lost=$(lost_of "fr$k")
	# The kernel drops records only while a ring is paused for a snapshot;
	# precord counts them in its summary and leaves the LOST record out.
	[ "$lost" -eq 0 ] || fail "$f: $lost LOST records in a snapshot (pause drops are left out)"
	read -r n back oldest newest <<<"$(sample_times "$f")"
	[ "$back" -eq 0 ] || fail "$f: the samples go back in time $back times"
	[ "$oldest" -gt "$prev_newest" ] || fail "$f: oldest sample $oldest not after the previous snapshot's newest $prev_newest"
	note "$(basename "$f"): markers $first..$last ($count), $n samples in time order, $lost LOST"
	prev_sig=$sig prev_newest=$newest k=$((k + 1))
done

# 2. No --switch-output: one file, -o as given, with the newest markers.
mkdir -p "$T/one"
timeout -k 5 30 "$PRECORD" record --overwrite -e raw_syscalls:sys_enter -m 1 -o "$T/one/single" -- \
	taskset -c "$PIN" "$MARKER" 200 5 2>"$T/single.sum" || { cat "$T/single.sum"; fail "precord --overwrite failed"; }
[ "$(ls "$T/one")" = single ] || { cat "$T/single.sum"; fail "--overwrite without --switch-output wrote [$(ls "$T/one")], not single"; }
read_clean "$T/one/single" single
run=$(run_of single) || fail "single: the markers are not one contiguous run: $run"
read -r first last count <<<"$run"
[ "$last" -eq 200 ] && [ "$count" -le "$RING_MARKERS" ] ||
	fail "single: markers $first..$last ($count); want the newest ring's worth, ending at 200"
[ "$(lost_of single)" -eq 0 ] || fail "single: LOST records without any pause"
note "single: markers $first..$last"

# 3. Two streaming threads: a snapshot pauses every ring before reading any.
# Both CPUs are kept busy (an idle CPU takes few cpu-clock samples) by two
# loops that end when the marker (the shell's pid after exec) is reaped; the
# marker signals after its 15th and 30th markers, at 1.4 s and 2.9 s. A
# 64 KiB ring holds about 1.2 s of 1 kHz samples (56 bytes each).
mkdir -p "$T/two"
timeout -k 5 40 "$PRECORD" record --overwrite --switch-output --threads=cpu -a -e cpu-clock -F 1000 -m 16 -o "$T/two/two" -- \
	sh -c 'for i in 1 2; do timeout 10 sh -c "while kill -0 $$ 2>/dev/null; do :; done" & done
	       exec "$0" 45 100 15 30' "$MARKER" 2>"$T/two.sum" || { cat "$T/two.sum"; fail "precord --threads=cpu --overwrite failed"; }
cat "$T/two.sum"
[ "$(grep -c 'prec-rd/' "$T/two.sum")" -eq "$(nproc)" ] || fail "--threads=cpu: not one streaming thread per CPU"
check_outputs "$T/two/two" "$T/two.sum" 3
# Per CPU, the oldest and newest sample of each snapshot.
k=0
while read -r f; do
	read_clean "$f" "two$k"
	awk -v k=$k '/^ *\[[0-9]+\] +[0-9]+\.[0-9]+: *$/ {
			c = $1; gsub(/[^0-9]/, "", c); t = $2; sub(/:$/, "", t); t += 0
			if (!(c in lo) || t < lo[c]) lo[c] = t; if (!(c in hi) || t > hi[c]) hi[c] = t }
		END { for (c in lo) printf "%d %d %.9f %.9f\n", k, c, lo[c], hi[c] }' \
		<(perf script -F cpu,time --ns -i "$f" 2>/dev/null) >>"$T/two.span"
	[ "$(awk -v k=$k '$1 == k' "$T/two.span" | wc -l)" -eq "$(nproc)" ] || fail "$f: not every CPU has samples"
	k=$((k + 1))
done <"$T/dumps"
# The newest samples of the CPUs in a snapshot taken while both are busy lie
# within 10 ms of each other (measured: ~0.01 ms): 10 sample periods of slack
# for timer jitter and the microseconds between the pauses, far below the
# 1.5 s between snapshots. It catches rings paused more than 10 ms apart,
# e.g. each streaming thread pausing its rings when it next wakes up, or one
# ring's file written before the other ring is paused; a pause-read-resume
# of one ring after the other, microseconds each, would go unseen. The exit
# snapshot comes after the loops end (an idle CPU stops sampling), so only
# the two signal snapshots are held to it.
awk '$1 < 2 { if (!($1 in lo) || $4 < lo[$1]) lo[$1] = $4; if (!($1 in hi) || $4 > hi[$1]) hi[$1] = $4 }
     END { for (k in lo) { d = (hi[k] - lo[k]) * 1000; printf "snapshot %d: newest samples of the CPUs %.3f ms apart\n", k, d
	   if (d >= 10) bad = 1 } exit bad }' "$T/two.span" >"$T/skew" || { cat "$T/skew"; fail "the rings were not paused together"; }
# Snapshots do not overlap: per CPU, each starts after the previous ended.
sort -k2,2n -k1,1n "$T/two.span" | awk 'NR > 1 && $2 == cpu && $3 <= newest {
		printf "cpu %d: snapshot %d starts at %.9f, snapshot %d ended at %.9f\n", $2, $1, $3, $1 - 1, newest; bad = 1 }
	{ cpu = $2; newest = $4 } END { exit bad }' >"$T/overlap" || { cat "$T/overlap"; fail "snapshots overlap"; }
sort "$T/skew" | while read -r line; do note "$line"; done
exit 0
