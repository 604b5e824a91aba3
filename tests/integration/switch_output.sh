#!/bin/bash
# --switch-output without --overwrite: a normal streaming recording
# cut into pieces, each a complete perf.data named PREFIX.<16-digit
# timestamp> (the last one too), announced by "[ perf record: Dump PATH ]":
# (a) by size, (b) by time, (c) by signal with --switch-max-files, (d) with
# --no-merge, where each piece is a directory in perf's layout, (e) by a size
# smaller than what synthesis alone writes into each piece; then (f) a
# command's later pieces, and (g) a command that exits right after a switch.
. "$(dirname "$0")/../lib.sh"
ensure_tracefs
export LC_ALL=C
MARKER=${MARKER:-$TOP/build/tests/marker}
[ -x "$MARKER" ] || fail "no marker workload at $MARKER (run make)"

dumps() {	# SUMMARY: the outputs precord announced, in the order written
	sed -n 's/^\[ \(precord\|perf record\): Dump \(.*\) \]$/\2/p' "$1"
}

# check_names PREFIX SUMMARY [KEEP]: every announced output is
# PREFIX.<timestamp>, in time order; PREFIX's directory (one per case) holds
# exactly those outputs, or the newest KEEP of them, and nothing else (no
# plain PREFIX, no working files); sets n to how many were announced.
check_names() {
	local prefix=$1 sum=$2 keep=${3:-} f
	dumps "$sum" >"$T/dumps"
	[ -s "$T/dumps" ] || { cat "$sum"; fail "no 'Dump' line for $prefix"; }
	while read -r f; do
		[[ $f =~ ^"$prefix"\.[0-9]{16}$ ]] || fail "output $f is not $prefix.<16-digit timestamp>"
	done <"$T/dumps"
	sort -c "$T/dumps" 2>/dev/null || fail "the timestamps in the names do not grow: $(tr '\n' ' ' <"$T/dumps")"
	n=$(wc -l <"$T/dumps")
	tail -"${keep:-$n}" "$T/dumps" >"$T/dumps.kept"
	ls -d "$(dirname "$prefix")"/* >"$T/ondisk"
	diff -u "$T/dumps.kept" "$T/ondisk" >&2 ||
		fail "$(dirname "$prefix") does not hold exactly the ${keep:+newest $keep }outputs announced"
}

# read_clean PATH TAG: perf script, report --stats and --header-only read it
# with nothing on stderr.
read_clean() {
	perf_clean "$T/$2.script" "$T/$2.err" -- script -i "$1"
	perf_clean "$T/$2.stats" "$T/$2.err" -- report --stats -i "$1"
	perf_clean "$T/$2.header" "$T/$2.err" -- report --header-only -i "$1"
}

samples_in() {	# TAG: the samples in perf report --stats of a read_clean
	sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' "$T/$1.stats" | head -1 | grep . || echo 0
}

markers_of() {	# TAG: the marker numbers, decimal, in perf script (time) order
	local h
	sed -n 's/.*raw_syscalls:sys_enter: NR [0-9]* (6d61726b, \([0-9a-f]*\),.*/\1/p' "$T/$1.script" |
		while read -r h; do echo $((16#$h)); done
}

markers_of_pieces() {	# TAG N: markers_of TAG1 .. TAGN in turn, into $T/TAG.markers
	local i
	for ((i = 1; i <= $2; i++)); do markers_of "$1$i"; done >"$T/$1.markers"
}

contiguous() {	# FROM TO < numbers: exactly FROM..TO, in order, each once
	awk -v from="$1" -v to="$2" '{ want = NR == 1 ? from : prev + 1
		if ($1 != want) { printf "marker %d where %d was due\n", $1, want; bad = 1; exit } prev = $1 }
		END { if (!bad && prev != to) { printf "markers end at %d, not %d\n", prev, to; bad = 1 } exit bad }'
}

centis() {	# PATH: the timestamp of its name, in centiseconds since the epoch
	local s=${1##*.}
	echo $(( $(date -d "${s:0:4}-${s:4:2}-${s:6:2} ${s:8:2}:${s:10:2}:${s:12:2}" +%s) * 100 + 10#${s:14:2} ))
}

# (a) Size: a new piece once the current one holds 1 MiB. A piece can pass
# 1 MiB by what the last pass over the rings brought, at most one 256 KiB
# ring (64 pages) per CPU, plus the header, synthesized records and features
# (64 KiB allowed for them); every piece but the last reached 1 MiB.
mkdir -p "$T/size"
timeout -k 5 30 "$PRECORD" record --switch-output=1M -m 64 --call-graph dwarf,4096 -F 1000 -o "$T/size/s" -- \
	bash -c 'SECONDS=0; while [ $SECONDS -lt 3 ]; do :; done' 2>"$T/size.sum" ||
	{ cat "$T/size.sum"; fail "precord --switch-output=1M failed"; }
check_names "$T/size/s" "$T/size.sum"
[ "$n" -ge 2 ] || { cat "$T/size.sum"; fail "--switch-output=1M: $n output, want at least 2 for 3 s of dwarf samples"; }
max=$((1024 * 1024 + $(nproc --all) * 64 * 4096 + 64 * 1024))
i=0 total=0
while read -r f; do
	i=$((i + 1))
	[ -f "$f" ] || fail "$f was announced but is not a file"
	size=$(stat -c %s "$f")
	[ "$size" -le "$max" ] || fail "$f: $size bytes, more than 1 MiB + a ring per CPU + 64 KiB ($max)"
	[ "$i" -eq "$n" ] || [ "$size" -ge $((1024 * 1024)) ] || fail "$f: $size bytes, switched before 1 MiB"
	read_clean "$f" "size$i"
	samples=$(samples_in "size$i")
	[ "$i" -eq "$n" ] || [ "$samples" -gt 0 ] || fail "$f: no samples"
	total=$((total + samples))
	last=$samples
done <"$T/dumps"
# 1 kHz on a CPU-bound task for 2 to 3 s (bash's SECONDS is whole seconds):
# even on a loaded machine, well over 1000 samples.
[ "$total" -gt 1000 ] || fail "--switch-output=1M: $total samples in all, want > 1000"
# the closing line, as perf's, names the last piece and gives its samples
said=$(samples_of "$T/size.sum")
[ -z "$said" ] || [ "$said" -eq "$last" ] || fail "precord said $said samples, the last piece holds $last"
note "size: $n pieces of at most $(ls -l "$T/size/s".* | awk '$5 > m { m = $5 } END { print m }') bytes, $total samples"

# (b) Time: a piece per second, then the last at exit. The marker makes
# records every 10 ms for 3.3 s: three periods and the exit, and every
# marker in exactly one piece, in order.
mkdir -p "$T/time"
timeout -k 5 30 "$PRECORD" record --switch-output=1s -e raw_syscalls:sys_enter -o "$T/time/t" -- \
	"$MARKER" 330 10 2>"$T/time.sum" || { cat "$T/time.sum"; fail "precord --switch-output=1s failed"; }
check_names "$T/time/t" "$T/time.sum"
[ "$n" -eq 4 ] || { cat "$T/time.sum"; fail "--switch-output=1s over 3.3 s: $n outputs, want 4"; }
i=0 prev=0
while read -r f; do
	i=$((i + 1))
	[ -f "$f" ] || fail "$f was announced but is not a file"
	read_clean "$f" "time$i"
	c=$(centis "$f")
	if [ "$i" -gt 1 ]; then
		gap=$((c - prev))
		if [ "$i" -lt "$n" ]; then
			[ "$gap" -ge 60 ] && [ "$gap" -le 140 ] || fail "$f: written $gap cs after the previous piece, want 100 +- 40"
		else
			[ "$gap" -le 140 ] || fail "$f: the exit piece came $gap cs after the previous one, more than a period"
		fi
	fi
	prev=$c
done <"$T/dumps"
markers_of_pieces time "$n"
contiguous 1 330 <"$T/time.markers" >"$T/time.gaps" || { cat "$T/time.gaps"; fail "--switch-output=1s: markers lost or repeated across pieces"; }
note "time: $n pieces, markers per piece: $(for i in $(seq "$n"); do markers_of "time$i" | wc -l; done | tr '\n' ' ')"

# (c) --switch-max-files=2: five signals and the exit make six pieces; the
# two newest stay, holding markers 41..60 between them. The signals are
# 400 ms apart: signals of one kind that arrive while one is pending are
# one signal, and on a loaded machine a rotation can last long enough for
# two to arrive.
mkdir -p "$T/max"
timeout -k 5 30 "$PRECORD" record --switch-output --switch-max-files=2 -e raw_syscalls:sys_enter -o "$T/max/m" -- \
	"$MARKER" 60 40 10 20 30 40 50 2>"$T/max.sum" || { cat "$T/max.sum"; fail "precord --switch-max-files=2 failed"; }
check_names "$T/max/m" "$T/max.sum" 2
[ "$n" -eq 6 ] || { cat "$T/max.sum"; fail "5 signals and the exit: $n 'Dump' lines, want 6"; }
cp "$T/dumps.kept" "$T/max.want"
i=0
while read -r f; do
	i=$((i + 1))
	read_clean "$f" "max$i"
done <"$T/max.want"
markers_of_pieces max "$i"
# Rotation reads the rings first: marker 40, before the signal, stays in the
# fourth piece; 41 comes 40 ms later, so it should be in the fifth; allow
# for a rotation slower than that.
first=$(head -1 "$T/max.markers")
[ -n "$first" ] && [ "$first" -ge 41 ] && [ "$first" -le 45 ] || fail "the fifth piece starts at marker '$first', want 41"
contiguous "$first" 60 <"$T/max.markers" >"$T/max.gaps" || { cat "$T/max.gaps"; fail "--switch-max-files: the last two pieces do not hold $first..60"; }
note "max files: kept $(basename "$(head -1 "$T/max.want")") and $(basename "$(tail -1 "$T/max.want")"), markers $first..60"

# (d) --no-merge: each piece is a directory (data, data.N) that perf reads.
mkdir -p "$T/dir"
timeout -k 5 30 "$PRECORD" record --no-merge --switch-output -e raw_syscalls:sys_enter -o "$T/dir/d" -- \
	"$MARKER" 40 10 20 2>"$T/dir.sum" || { cat "$T/dir.sum"; fail "precord --no-merge --switch-output failed"; }
check_names "$T/dir/d" "$T/dir.sum"
[ "$n" -eq 2 ] || { cat "$T/dir.sum"; fail "--no-merge, one signal and the exit: $n outputs, want 2"; }
i=0
while read -r f; do
	i=$((i + 1))
	[ -d "$f" ] && [ -f "$f/data" ] && ls "$f"/data.[0-9]* >/dev/null 2>&1 ||
		fail "--no-merge: $f is not perf's directory layout (data + data.N)"
	read_clean "$f" "dir$i"
done <"$T/dumps"
markers_of_pieces dir "$n"
contiguous 1 40 <"$T/dir.markers" >"$T/dir.gaps" || { cat "$T/dir.gaps"; fail "--no-merge: markers lost or repeated across pieces"; }
note "no-merge: 2 directories, markers 1..40"

# (e) A size below what each piece's synthesis (all of /proc, -a) writes:
# every piece is full as it begins, before its limit is armed, while the
# streaming thread already writes into it. A new piece follows each one at
# once (several a second), never a thread holding its rings for a switch
# nobody asked for; every marker is in exactly one piece, in order.
mkdir -p "$T/small"
timeout -k 5 60 "$PRECORD" record --switch-output=4K -a -m 1024 -e raw_syscalls:sys_enter -o "$T/small/e" -- \
	"$MARKER" 200 10 2>"$T/small.sum" || { cat "$T/small.sum"; fail "precord --switch-output=4K failed"; }
check_names "$T/small/e" "$T/small.sum"
[ "$n" -ge 4 ] || { cat "$T/small.sum"; fail "--switch-output=4K over 2 s: $n pieces, want a new one as each fills (at least 4)"; }
i=0
while read -r f; do
	i=$((i + 1))
	# system-wide, the recorder's own syscalls are recorded too: the
	# kernel may drop some of those, which perf warns of; no marker may go
	perf script -i "$f" >"$T/small$i.script" 2>"$T/small$i.err" ||
		{ cat "$T/small$i.err"; fail "perf script cannot read $f"; }
done <"$T/dumps"
markers_of_pieces small "$n"
if ! contiguous 1 200 <"$T/small.markers" >"$T/small.gaps"; then
	# A starved reader on a loaded machine: the kernel drops, and says so.
	# A marker missing where nothing was reported lost is the failure.
	read -r _ got _ want _ <"$T/small.gaps"
	[ "${got:-0}" -gt "${want:-0}" ] 2>/dev/null ||
		{ cat "$T/small.gaps"; fail "--switch-output=4K: markers repeated or out of order across pieces"; }
	grep -q 'Lost [1-9]' "$T/small.sum" || grep -qi 'lost [1-9]' "$T"/small*.err ||
		{ cat "$T/small.gaps"; fail "--switch-output=4K: markers lost across pieces, and no loss reported"; }
	note "small size: $n pieces; $(cat "$T/small.gaps"), with the loss reported: $(grep -m1 'Lost' "$T/small.sum")"
else
	note "small size: $n pieces, markers 1..200"
fi

# A command's later pieces: its own process tree, not every task on the
# machine, and a child it starts after the first piece resolves in them.
mkdir -p "$T/tree" && (cd "$T/tree" &&
	"$PRECORD" -q --switch-output=1s -o t.data -- bash -c "sleep 1.2; $MATMUL -n 300 -r 300 >/dev/null" \
		>/dev/null 2>"$T/tree.err") || { cat "$T/tree.err"; fail "--switch-output of a command failed"; }
pieces=$(ls "$T"/tree/t.data.* | wc -l)
[ "$pieces" -ge 3 ] || fail "--switch-output=1s over 2 s and more: $pieces pieces"
with_child=0
for f in $(ls "$T"/tree/t.data.* | tail -n +2); do
	comms=$(perf script -i "$f" --show-task-events -F comm 2>/dev/null | grep 'PERF_RECORD_COMM' |
		awk '{ print $1 }' | sort -u | xargs)
	for c in $comms; do
		case $c in
		bash|sleep|matmul) ;;
		*) fail "${f##*/}: COMM of '$c', outside the command's tree ($comms)" ;;
		esac
	done
	[[ " $comms " == *" matmul "* ]] || continue
	perf report -i "$f" --stdio --comm matmul --sort dso 2>/dev/null | grep -v '^#' | grep -q 'unknown' &&
		fail "${f##*/}: matmul's samples do not all resolve"
	with_child=$((with_child + 1))
done
[ "$with_child" -gt 0 ] || fail "no piece after the first holds the child started after it"
note "a command's pieces: its own tree only; $with_child of $((pieces - 1)) later pieces hold the child, resolved"

# A command that exits just after a switch: the last piece holds its last
# samples, and by the time that piece is synthesized the process is gone
# from /proc; its maps must still be in the piece, so every one of its
# samples resolves (perf 6.1 leaves them [unknown]). bash spins, asks for
# the switch (SIGUSR2 to precord, its parent) and exits ~10 ms later.
mkdir -p "$T/exit"
for i in 1 2 3; do
	rm -f "$T"/exit/e.data.*
	(cd "$T/exit" && "$PRECORD" -q --switch-output -F 4000 -o e.data -- bash -c \
		'for ((i = 0; i < 100000; i++)); do :; done; kill -USR2 $PPID; for ((i = 0; i < 5000; i++)); do :; done' \
		>/dev/null 2>"$T/exit.err") || { cat "$T/exit.err"; fail "--switch-output of an exiting command failed"; }
	last=$(ls "$T"/exit/e.data.* | tail -1)
	[ "$(ls "$T"/exit/e.data.* | wc -l)" -eq 2 ] || fail "exit run $i: $(ls "$T"/exit/e.data.* | wc -l) pieces, want 2"
	perf report -i "$last" --stdio --comm bash --sort dso 2>/dev/null | grep -v '^#' | grep -v '^$' >"$T/exit.dsos"
	[ -s "$T/exit.dsos" ] || fail "exit run $i: the last piece has no samples of bash"
	grep -q unknown "$T/exit.dsos" && { cat "$T/exit.dsos"; fail "exit run $i: bash's samples after the switch do not resolve"; }
done
note "a command exiting right after a switch: its samples in the last piece resolve (3 runs)"
exit 0
