#!/bin/bash
# Bad input: one clear line on stderr, a non-zero exit, and where recording
# had started, a perf.data that still opens in perf report.
. "$(dirname "$0")/../lib.sh"

# expect_error NAME WANT_STATUS PATTERN -- precord args...
expect_error() {
	local name=$1 want=$2 pat=$3; shift 4
	${RUNAS:-} "$PRECORD" "$@" >"$T/out" 2>"$T/err"
	local st=$?
	if [ "$want" = nonzero ]; then
		[ $st -ne 0 ] || fail "$name: exit status 0"
	else
		[ $st -eq "$want" ] || { cat "$T/err"; fail "$name: exit status $st, want $want"; }
	fi
	grep -q -- "$pat" "$T/err" || { cat "$T/err"; fail "$name: no '$pat' in the message"; }
	note "$name: $(grep -m1 -- "$pat" "$T/err")"
}
one_line() { [ "$(grep -c . "$T/err")" -eq 1 ] || { cat "$T/err"; fail "$1: more than one line on stderr"; }; }
opens_in_perf() {
	perf report --stdio -i "$1" >/dev/null 2>"$T/rep.err" || { cat "$T/rep.err"; fail "$2: perf report cannot open $1"; }
}

expect_error "unknown event" nonzero "^precord: event 'foo' is not known; 'perf list' shows the events$" -- -e foo -o "$T/x.data" -- true
one_line "unknown event"
[ ! -e "$T/x.data" ] || fail "unknown event: a perf.data was created"
expect_error "bad cpu list" nonzero "CPU list" -- -C 0-x -o "$T/x.data" -- true
one_line "bad cpu list"
expect_error "absent cpu" nonzero "CPU 4095 of -C does not exist" -- -C 4095 -o "$T/x.data" -- true
one_line "absent cpu"
expect_error "bad option" nonzero "precord: " -- --no-such-option
one_line "bad option"
expect_error "bad frequency" nonzero "abc" -- -F abc -- true
one_line "bad frequency"

sleep 0.01 & dead=$!; wait $dead
expect_error "dead pid" nonzero "$dead does not exist" -- -p "$dead" -o "$T/x.data"
one_line "dead pid"

expect_error "command not found" 127 "cannot run 'no-such-command-xyz'" -- -o "$T/nx.data" -- no-such-command-xyz
opens_in_perf "$T/nx.data" "command not found"

# The flight recorder's options: usage errors, one line each, nothing written.
expect_error "bad --switch-output" 129 "invalid value '12' for --switch-output" -- --switch-output=12 -o "$T/so.data" -- true
one_line "bad --switch-output"
expect_error "missing control fifo" 129 "^precord: --control: cannot open '$T/no-fifo'" -- --control=fifo:"$T/no-fifo" -o "$T/cf.data" -- true
one_line "missing control fifo"
touch "$T/not-a-fifo"
expect_error "control path not a fifo" 129 "not a FIFO" -- --control=fifo:"$T/not-a-fifo" -o "$T/cf.data" -- true
expect_error "control fd not open" 129 "^precord: --control: " -- --control=fd:57 -o "$T/cf.data" -- true
expect_error "overwrite without threads" 129 "drop --no-threads" -- --overwrite --no-threads -o "$T/ow.data" -- true
[ ! -e "$T/so.data" ] && [ ! -e "$T/cf.data" ] && [ ! -e "$T/ow.data" ] ||
	fail "a usage error left an output behind"

# A --threads spec that gives no layout fails before the output is touched:
# an earlier recording under that name stays as it was, with no .old made.
printf 'an earlier recording\n' >"$T/th.data"
expect_error "bad --threads spec" nonzero "^precord: Invalid thread maps or affinity specs$" -- --threads=bogus -o "$T/th.data" -- true
one_line "bad --threads spec"
expect_error "overlapping --threads masks" nonzero "^precord: Intersecting maps mask" -- --threads=0/0:0/0 -o "$T/th.data" -- true
one_line "overlapping --threads masks"
[ "$(cat "$T/th.data")" = "an earlier recording" ] && [ ! -e "$T/th.data.old" ] ||
	fail "a bad --threads spec touched the output"

expect_error "missing directory" nonzero "cannot create '$T/no/such/dir/perf.data" -- -o "$T/no/such/dir/perf.data" -- true
one_line "missing directory"

mkdir -p "$T/ro"
if mount -t tmpfs -o ro,size=1m none "$T/ro" 2>/dev/null; then
	expect_error "read-only directory" nonzero "Read-only file system" -- -o "$T/ro/perf.data" -- true
	one_line "read-only directory"
	umount "$T/ro"
else
	note "read-only directory: skipped (cannot mount tmpfs)"
fi

# A full disk: the error says so, the exit is non-zero, and the file opens,
# with every writer (an --aio write can fail after the ones before it went
# through: the file must end at its last whole record on the disk, or perf
# script dies of SIGBUS on the record cut in two).
mkdir -p "$T/full"
for writer in "" --aio --mmap-output --threads=cpu; do
	mount -t tmpfs -o size=1m none "$T/full" 2>/dev/null || { note "full disk: skipped (cannot mount tmpfs)"; break; }
	# Leave about 300 KB free: room for the start, less than the recording needs.
	dd if=/dev/zero of="$T/full/filler" bs=1k count=700 status=none 2>/dev/null
	"$PRECORD" $writer -a -F 4000 -g -o "$T/full/perf.data" -- "$MATMUL" -t 2 -n 400 -r 60 >/dev/null 2>"$T/err"
	st=$?
	umount_full() { umount "$T/full" 2>/dev/null; }
	[ $st -ne 0 ] || { umount_full; fail "full disk $writer: exit status 0"; }
	grep -q "No space left on device" "$T/err" || { cat "$T/err"; umount_full; fail "full disk $writer: no ENOSPC message"; }
	note "full disk $writer: $(grep -m1 'No space' "$T/err")"
	# One file (one streaming thread), or merged if there was room, else perf's
	# directory layout: perf reads each.
	rm -rf "$T/full.data"
	cp -r "$T/full/perf.data" "$T/full.data"; umount_full
	opens_in_perf "$T/full.data" "full disk $writer"
	perf script -i "$T/full.data" >/dev/null 2>"$T/full.err"
	st=$?
	[ $st -eq 0 ] || { head -3 "$T/full.err"; fail "full disk $writer: perf script exited $st"; }
	n=$(perf script -G -i "$T/full.data" 2>/dev/null | wc -l)
	note "full disk $writer: the cut file still holds $n samples"
	[ "$n" -gt 0 ] || fail "full disk $writer: the samples written before the disk filled are gone"
	# the closing line counts what reached the file, not what was read
	said=$(samples_of "$T/err")
	[ -z "$said" ] || [ "$said" -eq "$n" ] ||
		fail "full disk $writer: precord said $said samples, the file holds $n"
done

# Room for the recording but not for its merge: a non-zero exit, the
# message says what to run, and the directory kept holds every sample the
# summary counts (the syscalls of a dd make the same 1.3 MB every time).
# With --mmap-output the per-ring files share what is left of the disk.
for opts in --threads=cpu --mmap-output; do
	mkdir -p "$T/nomerge"
	mount -t tmpfs -o size=2m none "$T/nomerge" 2>/dev/null || { note "no room to merge: skipped (cannot mount tmpfs)"; break; }
	"$PRECORD" $opts -e raw_syscalls:sys_enter -o "$T/nomerge/perf.data" -- \
		dd if=/dev/zero of=/dev/null bs=64 count=5000 status=none >/dev/null 2>"$T/err"
	st=$?
	cp -r "$T/nomerge/perf.data" "$T/nomerge.data"; umount "$T/nomerge"
	[ $st -ne 0 ] || { cat "$T/err"; fail "no room to merge ($opts): exit status 0"; }
	grep -q "keeps perf's directory layout instead ('precord merge" "$T/err" ||
		{ cat "$T/err"; fail "no room to merge ($opts): no message"; }
	! grep -q "Merged" "$T/err" || fail "no room to merge ($opts): a merge is announced"
	want=$(sed -n 's/.*Captured and wrote .*(\([0-9]*\) samples).*/\1/p' "$T/err")
	n=$(perf script -i "$T/nomerge.data" 2>/dev/null | wc -l)
	[ "${want:-0}" -gt 10000 ] && [ "$n" -eq "$want" ] ||
		{ cat "$T/err"; fail "no room to merge ($opts): perf script reads $n samples, the summary counts $want"; }
	note "no room to merge ($opts): exit $st, the directory holds all $n samples"
	rm -rf "$T/nomerge.data"
done

# A full disk under --switch-output: every piece announced before and at the
# end is kept (merged, or as a directory) and opens in perf.
mkdir -p "$T/fullsw"
if mount -t tmpfs -o size=1m none "$T/fullsw" 2>/dev/null; then
	dd if=/dev/zero of="$T/fullsw/filler" bs=1k count=500 status=none 2>/dev/null
	"$PRECORD" -a -F 4000 -g --switch-output=100K -o "$T/fullsw/p.data" -- \
		"$MATMUL" -t 2 -n 400 -r 60 >/dev/null 2>"$T/err"
	st=$?
	grep -q "No space left on device" "$T/err" || { cat "$T/err"; umount "$T/fullsw"; fail "full disk, switch: no ENOSPC message"; }
	cp -r "$T/fullsw" "$T/fullsw.copy"; umount "$T/fullsw"
	[ $st -ne 0 ] || fail "full disk, switch: exit status 0"
	pieces=$(sed -n 's/^\[ precord: Dump .*\/\(p\.data\.[0-9]*\) \]$/\1/p' "$T/err")
	[ -n "$pieces" ] || { cat "$T/err"; fail "full disk, switch: no piece announced"; }
	for p in $pieces; do
		opens_in_perf "$T/fullsw.copy/$p" "full disk, switch"
		# A piece kept as a directory ends every data.N at a whole record
		# (perf report can crash on a partial one).
		if [ -d "$T/fullsw.copy/$p" ] &&
		   "$PRECORD" report --loss "$T/fullsw.copy/$p" 2>&1 | grep -q 'not a whole record'; then
			fail "full disk, switch: $p keeps a partial record"
		fi
	done
	note "full disk, switch: $(echo $pieces | wc -w) pieces kept and read"
fi

# SIGINT and SIGTERM during a system-wide recording finish the file.
for sig in INT TERM; do
	"$PRECORD" -a -o "$T/sig.data" -- sleep 30 >/dev/null 2>"$T/err" &
	pid=$!
	sleep 1
	kill -$sig $pid
	wait $pid; st=$?
	want=$((128 + $(kill -l $sig)))
	[ $st -eq $want ] || { cat "$T/err"; fail "SIG$sig: exit $st, want $want"; }
	grep -q 'Captured and wrote' "$T/err" || { cat "$T/err"; fail "SIG$sig: no summary"; }
	opens_in_perf "$T/sig.data" "SIG$sig"
	note "SIG$sig: exit $st, file opens"
done

# Without privileges: the paranoid explanation.
if command -v setpriv >/dev/null && [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 1 ]; then
	chmod 777 "$T"
	RUNAS="setpriv --reuid=65534 --regid=65534 --clear-groups" \
		expect_error "no permission" nonzero "perf_event_paranoid" -- -a -o "$T/np.data" -- true
	one_line "no permission"
fi

# Out of descriptors, without the right to raise the hard limit: say how.
if command -v setpriv >/dev/null && command -v prlimit >/dev/null; then
	RUNAS="prlimit --nofile=16:16 setpriv --inh-caps=-sys_resource --bounding-set=-sys_resource" \
		expect_error "too many files" nonzero "ulimit -n" -- -a -e cpu-clock,task-clock,page-faults,cs,minor-faults,major-faults,migrations,dummy -o "$T/mf.data" -- true
	one_line "too many files"

	# The same with a good older recording under the name, a ring file per
	# CPU and a thread each: it stays as it was, nothing made or moved.
	printf 'an earlier recording\n' >"$T/keep.data"
	RUNAS="prlimit --nofile=16:16 setpriv --inh-caps=-sys_resource --bounding-set=-sys_resource" \
		expect_error "too many files, threaded" nonzero "ulimit -n" -- -a --threads=cpu -o "$T/keep.data" -- true
	one_line "too many files, threaded"
	[ "$(cat "$T/keep.data")" = "an earlier recording" ] || fail "too many files: the older output was displaced"
	[ ! -e "$T/keep.data.old" ] && [ ! -e "$T/keep.data.staging" ] ||
		fail "too many files: an .old or a staging directory was made"
fi
exit 0
