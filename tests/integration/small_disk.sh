#!/bin/bash
# Recording onto a small ext4 file system (a loop-mounted image), where a
# writer's first reservation (64 MiB for --mmap-output) cannot be had: the
# part ext4 allocated before it failed is given back, smaller reservations
# take what is left, and every ring's samples reach the file.
. "$(dirname "$0")/../lib.sh"
command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4 (e2fsprogs)"
[ "$(id -u)" = 0 ] || skip "mounting a loop image needs root"

truncate -s 40M "$T/ext4.img"
mkfs.ext4 -q -F "$T/ext4.img" >/dev/null 2>&1 || skip "mkfs.ext4 failed"
mkdir -p "$T/mnt"
mount -o loop "$T/ext4.img" "$T/mnt" 2>/dev/null || skip "cannot mount a loop image here"
trap 'umount "$T/mnt" 2>/dev/null; cleanup_test' EXIT
free_kb=$(df -k --output=avail "$T/mnt" | tail -1)
note "ext4 with ${free_kb} KiB free"

for layout in "" --no-threads --no-merge; do
	name=mmap${layout//-/}
	"$PRECORD" --mmap-output $layout -a -F 1000 -o "$T/mnt/$name.data" -- sleep 1 \
		>/dev/null 2>"$T/$name.err"
	st=$?
	[ $st -eq 0 ] || { cat "$T/$name.err"; fail "--mmap-output $layout: exit $st"; }
	perf_clean "$T/$name.stats" "$T/$name.perr" -- report --stats -i "$T/mnt/$name.data"
	said=$(samples_of "$T/$name.err")
	got=$(sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' "$T/$name.stats" | head -1)
	[ -n "$got" ] && [ "$got" -gt 500 ] || fail "--mmap-output $layout: ${got:-0} samples in the file, want a second of one CPU at least"
	[ "$got" = "$said" ] || fail "--mmap-output $layout: precord said $said samples, the file holds $got"
	note "--mmap-output $layout: $got samples"
	rm -rf "$T/mnt/$name.data"
done
exit 0
