#!/bin/bash
# pack.sh [-o BYTE] DIR [PARTIAL] — a perf directory as one fuzz input on
# stdout, in the container of tests/fuzz/fuzz.h: BYTE (octal escape, e.g.
# '\001') before the first mark when given, then DIR/data, DIR/data.N and
# DIR/merge.journal (its partial output's path left out: the fuzz target
# writes its own), and PARTIAL, the partial output that journal names.
set -e
opts=
if [ "$1" = -o ]; then opts=$2; shift 2; fi
dir=$1 partial=$2
PATH_MAX=4096
mark() { printf 'PRECFUZZ'; printf "\\$(printf %03o "$1")"; }

[ -n "$opts" ] && printf "$opts"
[ -f "$dir/data" ] && { mark 0; cat "$dir/data"; }
for f in "$dir"/data.*; do
	[ -f "$f" ] || continue
	n=${f##*/data.}
	mark $((3 + n)); cat "$f"
done
if [ -f "$dir/merge.journal" ]; then
	mark 1
	head -c 24 "$dir/merge.journal"
	tail -c +$((24 + PATH_MAX + 1)) "$dir/merge.journal"
fi
if [ -n "$partial" ]; then mark 2; cat "$partial"; fi
