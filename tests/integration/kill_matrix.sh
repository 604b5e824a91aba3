#!/bin/bash
# SIGKILL at any moment, with every writer, compressed or not, one thread or
# several: whatever is left (one file, or a staging directory) is turned by
# `precord merge` into a file perf reads cleanly, or the merge exits
# non-zero with one line saying why. Never exit 0 with a file perf rejects.
. "$(dirname "$0")/../lib.sh"
export LC_ALL=C

offsets=${KILL_OFFSETS:-"0.005 0.03 0.15 0.6"}
runs=0 merged=0 refused=0 empty=0

# leftover: the output or staging directory a killed recording left
leftover() {
	if [ -d "$1.staging" ]; then echo "$1.staging"
	elif [ -e "$1" ]; then echo "$1"
	fi
}

for layout in --no-threads "" --threads=cpu; do
	for writer in "" --mmap-output --aio -z; do
		for at in $offsets; do
			name="${layout:-default} ${writer:-write} at ${at}s"
			rm -rf "$T/k.data" "$T/k.data.staging" "$T/k.out"
			"$PRECORD" -q $layout $writer -a -F 2000 -g -o "$T/k.data" -- \
				"$MATMUL" -t 2 -n 200 -r 100 >/dev/null 2>&1 &
			pid=$!
			sleep "$at"
			kill -KILL $pid 2>/dev/null
			wait $pid 2>/dev/null
			runs=$((runs + 1))
			left=$(leftover "$T/k.data")
			if [ -z "$left" ]; then
				empty=$((empty + 1))	# killed before it created anything
				continue
			fi
			"$PRECORD" merge -q "$left" -o "$T/k.out" >"$T/merge.out" 2>"$T/merge.err"
			st=$?
			if [ $st -ne 0 ]; then
				[ "$(grep -c . "$T/merge.err")" -ge 1 ] && grep -q '^precord: ' "$T/merge.err" ||
					{ cat "$T/merge.err"; fail "$name: merge exited $st without saying why"; }
				[ $st -lt 128 ] || { cat "$T/merge.err"; fail "$name: merge died of signal $((st - 128))"; }
				refused=$((refused + 1))
				continue
			fi
			[ -f "$T/k.out" ] || fail "$name: merge exited 0 and wrote no $T/k.out"
			perf report --stats -i "$T/k.out" >"$T/rep" 2>"$T/rep.err" ||
				{ cat "$T/rep.err"; fail "$name: merge exited 0 and perf cannot read the file"; }
			if grep -Eiq 'warning|unexpected|corrupt|invalid|cannot|error' "$T/rep.err"; then
				sed 's/^/    perf: /' "$T/rep.err"
				fail "$name: merge exited 0 and perf warns about the file"
			fi
			perf script -i "$T/k.out" >/dev/null 2>"$T/script.err" ||
				{ head -3 "$T/script.err"; fail "$name: perf script cannot read the merged file"; }
			merged=$((merged + 1))
		done
	done
done
note "$runs kills: $merged merged and read by perf, $refused refused with a reason, $empty left nothing"
[ $merged -gt 0 ] || fail "no killed recording could be merged"
exit 0
