#!/bin/bash
# The control channel with the flight recorder:
# `precord record --overwrite --switch-output --control=fifo:CTL,ACK`
# answers ping, writes a snapshot file for `snapshot` before acking it,
# stops recording for `disable` until `enable`, and on `stop` writes the
# final file and exits 0. Every ack is the 5 bytes "ack\n\0". precord and
# its workload are killed on any failure; no wait is without a timeout.
. "$(dirname "$0")/../lib.sh"
ensure_tracefs
export LC_ALL=C
MARKER=${MARKER:-$TOP/build/tests/marker}
[ -x "$MARKER" ] || fail "no marker workload at $MARKER (run make)"

# The test holds both FIFOs open read-write itself: opening a FIFO O_RDWR
# never waits for a peer (Linux), so nothing here blocks on open whenever
# precord opens its ends, a command written before precord opens CTL waits
# in the pipe, and a write to CTL cannot block or raise SIGPIPE if precord
# is gone. Every read of an ack runs under a timeout.
mkfifo "$T/ctl" "$T/ack" || fail "cannot make the FIFOs"
exec 7<>"$T/ctl" 8<>"$T/ack"

pid='' mpid=''
stop_all() {	# on any exit: precord and its workload, by pid, then the scratch
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		mpid=${mpid:-$(ps -o pid= --ppid "$pid")}
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	[ -z "$mpid" ] || kill -KILL $mpid 2>/dev/null
	cleanup_test
}
trap stop_all EXIT

# send CMD: send it; the 5-byte ack must come within 5 s. dd reads one
# byte at a time so it never takes more than this ack from the pipe.
send() {
	local got
	printf '%s\n' "$1" >&7
	got=$(timeout 5 dd bs=1 count=5 <&8 2>/dev/null | od -An -c | tr -d ' \n')
	[ "$got" = 'ack\n\0' ] || { cat "$T/sum"; fail "'$1': ack '$got' within 5 s, want 'ack\n\0'"; }
}

markers_of() {	# SCRIPT: the marker numbers, decimal, in time order
	local h
	sed -n 's/.*raw_syscalls:sys_enter: NR [0-9]* (6d61726b, \([0-9a-f]*\),.*/\1/p' "$1" |
		while read -r h; do echo $((16#$h)); done
}

outputs() {	# the finished output files, PREFIX.<16-digit timestamp>, oldest first
	ls "$T/out" | grep -xE 'c\.[0-9]{16}' | sed "s|^|$T/out/|"
}

read_clean() {	# PATH TAG: perf reads it with nothing on stderr
	perf_clean "$T/$2.script" "$T/$2.err" -- script --show-lost-events -i "$1"
	perf_clean "$T/$2.stats" "$T/$2.err" -- report --stats -i "$1"
	perf_clean "$T/$2.header" "$T/$2.err" -- report --header-only -i "$1"
}

mkdir -p "$T/out"
"$PRECORD" record --overwrite --switch-output --control="fifo:$T/ctl,$T/ack" -e raw_syscalls:sys_enter \
	-o "$T/out/c" -- "$MARKER" 400 10 2>"$T/sum" &
pid=$!

send ping
mpid=$(ps -o pid= --ppid "$pid")
note "ping: acked"
sleep 0.3

# snapshot, 0.3 s in: acked once the file is written; it holds every marker
# so far (the default ring holds far more than 400 markers). precord may
# keep a working file or directory beside it while it records.
send snapshot
outputs >"$T/files"
[ "$(wc -l <"$T/files")" -eq 1 ] || { cat "$T/sum"; fail "after the snapshot's ack: $(wc -l <"$T/files") files, want 1"; }
snap=$(cat "$T/files")
read_clean "$snap" snap
markers_of "$T/snap.script" >"$T/snap.m"
last=$(tail -1 "$T/snap.m")
[ -n "$last" ] || fail "the snapshot holds no marker"
seq 1 "$last" | cmp -s - "$T/snap.m" || fail "the snapshot does not hold markers 1..$last, each once"
note "snapshot: $(basename "$snap"), markers 1..$last"

# disable, 300 ms, enable: about 30 markers go unrecorded.
send disable
sleep 0.3
send enable
note "disable, enable: acked"
sleep 0.3

# stop: precord writes the final file and exits 0 within 5 s.
send stop
for i in $(seq 50); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null && { cat "$T/sum"; fail "precord still runs 5 s after 'stop'"; }
wait "$pid"
st=$?
pid=
cat "$T/sum"
[ "$st" -eq 0 ] || fail "precord exited $st after 'stop', want 0"
outputs >"$T/files"
[ "$(wc -l <"$T/files")" -eq 2 ] || fail "after 'stop': $(wc -l <"$T/files") files, want the snapshot and the final one"
[ "$(ls "$T/out" | wc -l)" -eq 2 ] || fail "after 'stop', precord left more than its two files: $(ls "$T/out" | tr '\n' ' ')"
[ "$(head -1 "$T/files")" = "$snap" ] || fail "the snapshot file is gone"
final=$(tail -1 "$T/files")
grep -qxF "[ perf record: Dump $snap ]" "$T/sum" || fail "no 'Dump' line for $snap"
grep -qxF "[ perf record: Dump $final ]" "$T/sum" || fail "no 'Dump' line for $final"
read_clean "$final" final
# The final file starts after the snapshot (records made while the rings
# were paused for it are dropped: 1 or 2 markers with the CPUs loaded, so up
# to 10 are allowed), has one hole of at least 20 markers where the events
# were disabled, and ends before the marker's 400: stop ended it.
markers_of "$T/final.script" | awk -v snap="$last" '
	NR == 1 { if ($1 <= snap || $1 > snap + 11) { printf "starts at marker %d after a snapshot ending at %d\n", $1, snap; bad = 1 } }
	NR > 1 && $1 != prev + 1 { if ($1 <= prev || $1 - prev < 20) { printf "marker %d after %d\n", $1, prev; bad = 1 } holes++ }
	{ prev = $1 }
	END { if (NR == 0) { print "no markers"; exit 1 }
	      if (holes != 1) { printf "%d holes, want 1 for the disabled time\n", holes; bad = 1 }
	      if (prev >= 390) { printf "ends at marker %d: stop did not end the recording\n", prev; bad = 1 }
	      exit bad }' >"$T/final.check" || { cat "$T/final.check"; fail "$(basename "$final"): wrong markers"; }
note "stop: exit 0, final $(basename "$final"), markers $(markers_of "$T/final.script" | head -1)..$(markers_of "$T/final.script" | tail -1) with the disabled hole"
exit 0
