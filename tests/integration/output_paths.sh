#!/bin/bash
# Hostile and unusual output paths, as root, in a plain directory and in a
# sticky world-writable one (where other users plant things): a device at -o
# is written into and stays a device, a FIFO gets perf's pipe format and
# stays, nothing planted at FILE, FILE.old or FILE.staging is followed, and
# FILE and FILE.old of different kinds do not stop the next recording.
. "$(dirname "$0")/../lib.sh"
[ "$(id -u)" = 0 ] || skip "planting other users' files needs root"

record() {	# NAME -- precord args...: must exit 0
	local name=$1; shift 2
	"$PRECORD" -q "$@" >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "$name: precord exited $?"; }
}
refused() {	# NAME PATTERN -- precord args...: non-zero, one line matching PATTERN
	local name=$1 pat=$2; shift 3
	"$PRECORD" -q "$@" >"$T/out" 2>"$T/err" && fail "$name: precord exited 0"
	grep -q -- "$pat" "$T/err" || { cat "$T/err"; fail "$name: no '$pat' in the message"; }
	[ "$(grep -c . "$T/err")" -eq 1 ] || { cat "$T/err"; fail "$name: more than one line"; }
	note "$name: $(cat "$T/err")"
}
holds() {	# FILE TEXT: FILE is a regular file holding TEXT
	[ -f "$1" ] && [ ! -L "$1" ] && [ "$(cat "$1")" = "$2" ] || fail "$1 was changed"
}
victim_dir() {	# DIR: a recording directory of someone else's
	mkdir -p "$1" && echo header >"$1/data" && echo ring >"$1/data.0"
}
victim_intact() {
	holds "$1/data" header
	holds "$1/data.0" ring
}

for mode in plain sticky; do
	D=$T/$mode
	mkdir -p "$D"
	[ $mode = sticky ] && chmod 1777 "$D"
	note "--- in a $mode directory"

	# -o on a device: written into, never renamed, no .old, and the data went through it
	mknod "$D/null" c 1 3
	for layout in "" --no-threads --mmap-output --aio; do
		record "device $layout" -- -o "$D/null" $layout -- true
		[ -c "$D/null" ] || fail "device $layout: $D/null is no longer a device"
		[ ! -e "$D/null.old" ] && [ ! -e "$D/null.staging" ] ||
			fail "device $layout: something was written next to the device"
	done
	refused "device --switch-output" "is a device" -- -o "$D/null" --switch-output=1M -- true
	[ -c "$D/null" ] || fail "$D/null is no longer a device"

	# -o on a FIFO: perf's pipe mode, into it; the FIFO stays
	mkfifo "$D/fifo"
	cat "$D/fifo" >"$T/fifo.out" &
	record "fifo" -- -o "$D/fifo" -- true
	wait $!
	[ -p "$D/fifo" ] && [ ! -e "$D/fifo.old" ] && [ ! -e "$D/fifo.staging" ] ||
		fail "fifo: the FIFO was moved"
	perf report -i - --stdio <"$T/fifo.out" >/dev/null 2>&1 ||
		fail "fifo: perf cannot read what went through the FIFO"
	refused "fifo --switch-output" "pipe mode" -- -o "$D/fifo" --switch-output=1M -- true

	# FILE.old a link to someone's recording directory: only the link goes
	# (FILE an older file, and FILE an older --no-merge directory)
	victim_dir "$D/victim"
	for layout in "" --no-threads; do
		rm -rf "$D/a.data" "$D/a.data.old"
		echo old >"$D/a.data"
		ln -sfn "$D/victim" "$D/a.data.old"
		record "planted FILE.old $layout" -- -o "$D/a.data" $layout -- true
		victim_intact "$D/victim"
		[ -L "$D/a.data.old" ] && fail "planted FILE.old $layout: the link stayed"
		holds "$D/a.data.old" old

		rm -rf "$D/a.data" "$D/a.data.old"
		victim_dir "$D/a.data"
		ln -sfn "$D/victim" "$D/a.data.old"
		record "planted FILE.old, FILE a directory $layout" -- -o "$D/a.data" $layout -- true
		victim_intact "$D/victim"
		[ -d "$D/a.data.old" ] && [ ! -L "$D/a.data.old" ] ||
			fail "planted FILE.old, FILE a directory $layout: the old recording was not kept"
	done

	# FILE a link owned by another user (to a file, to a device): never written through
	echo precious >"$D/victim.txt"
	ln -s "$D/victim.txt" "$D/b.data"
	[ $mode = sticky ] && chown -h nobody "$D/b.data"
	record "planted FILE link" -- -o "$D/b.data" -- true
	holds "$D/victim.txt" precious
	[ -f "$D/b.data" ] && [ ! -L "$D/b.data" ] || fail "planted FILE link: no new file"
	perf_clean "$T/rep" "$T/rep.err" -- report --stdio -i "$D/b.data"

	# FILE.staging planted: refused, nothing followed
	victim_dir "$D/victim2"
	ln -s "$D/victim2" "$D/c.data.staging"
	"$PRECORD" -q -o "$D/c.data" --threads=cpu -- true >"$T/out" 2>"$T/err" &&
		fail "planted FILE.staging: precord exited 0"
	grep -q "in the way" "$T/err" || { cat "$T/err"; fail "planted FILE.staging: message"; }
	victim_intact "$D/victim2"
	[ ! -e "$D/victim2/data.1" ] || fail "planted FILE.staging: wrote into the link's target"

	# FILE and FILE.old of different kinds, in both orders, threaded and not
	record "file, then dir" -- -o "$D/k.data" --no-threads -- true
	record "dir over file" -- -o "$D/k.data" --threads=cpu --no-merge -- true
	[ -d "$D/k.data" ] && [ -f "$D/k.data.old" ] || fail "dir over file: wrong kinds"
	record "file over dir" -- -o "$D/k.data" --no-threads -- true
	[ -f "$D/k.data" ] && [ -d "$D/k.data.old" ] || fail "file over dir: wrong kinds"
	record "dir over file again" -- -o "$D/k.data" --threads=cpu --no-merge -- true
	record "merged over dir" -- -o "$D/k.data" --threads=cpu -- true
	[ -f "$D/k.data" ] && [ -d "$D/k.data.old" ] || fail "merged over dir: wrong kinds"
	[ ! -e "$D/k.data.staging" ] || fail "merged over dir: the staging directory stayed"
	perf_clean "$T/rep" "$T/rep.err" -- report --stdio -i "$D/k.data"

	# a directory that is no recording is in the way, whatever the layout
	mkdir "$D/mine" && echo mine >"$D/mine/notes"
	refused "plain directory" "in the way" -- -o "$D/mine" --no-threads -- true
	refused "plain directory, threaded" "in the way" -- -o "$D/mine" --threads=cpu -- true
	holds "$D/mine/notes" mine
	[ ! -e "$D/mine.old" ] && [ ! -e "$D/mine.staging" ] || fail "plain directory: moved"
done

# A name of 252 bytes, legal as it is, but with no room for ".staging" or a
# merge's ".XXXXXX" beside it: every layout still writes it.
long=$T/$(printf 'n%.0s' $(seq 252))
for layout in "" --no-threads --threads=cpu "--threads=cpu --no-merge"; do
	record "long name $layout" -- -o "$long" $layout -- true
	perf_clean "$T/rep" "$T/rep.err" -- report --stats -i "$long"
	rm -rf "$long"
	[ -z "$(ls "$T" | grep '^nnnn')" ] || fail "long name $layout: something was left beside it"
done

# -o /dev/null itself, the usual way to measure overhead
record "/dev/null" -- -o /dev/null -- true
[ -c /dev/null ] && [ ! -e /dev/null.old ] || fail "/dev/null was moved"
echo ok
