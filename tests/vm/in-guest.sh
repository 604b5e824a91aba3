#!/bin/bash
# The guest's side of the multi-node cases (run by tests/vm/run-cases.sh
# through guest.sh): saves the guest's topology, kallsyms and dmesg in
# OUT/info, then runs each case's guest() in its own directory on the
# guest's tmpfs, under a timeout, with core dumps on, and copies the
# directory to OUT/CASE on the results share for the host's check().
#
# usage: tests/vm/in-guest.sh OUT [CASE...]    (default: every case)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export TOP=$(cd "$HERE/../.." && pwd)
export PRECORD=$TOP/precord MATMUL=$TOP/bench/matmul
OUT=$1
shift
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=($(cd "$HERE/cases" && ls *.sh | sed 's/\.sh$//'))

mkdir -p "$OUT/info" /tmp/cores
. "$HERE/lib.sh"
save_topology "$OUT/info/sys"
cat /proc/kallsyms >"$OUT/info/kallsyms"
uname -r >"$OUT/info/kernel"
echo /tmp/cores/core.%E.%p >/proc/sys/kernel/core_pattern
ulimit -c unlimited
ncpu=$(ncpus)
# Per case: generous, as everything is emulated on two host CPUs and
# startup grows with the CPUs.
tmo=$((120 + 3 * ncpu))
echo "guest: $(nproc) CPUs online of $(cat /sys/devices/system/cpu/possible), nodes with CPUs: $(cpu_nodes)," \
	"CPU-less: $(for n in $(nodes); do [ -z "$(node_cpus "$n")" ] && printf '%s ' "$n"; done)"

for c in "${cases[@]}"; do
	f=$HERE/cases/$c.sh
	[ -f "$f" ] || { echo "guest: no case $c"; continue; }
	export D=/tmp/vm-cases/$c
	rm -rf "$D" && mkdir -p "$D"
	start=$(date +%s%N)
	# timeout runs the case in a process group of its own (its pid).
	(cd "$D" && exec timeout -k 10 "$tmo" bash -c '. "$1"; . "$2"; guest' _ "$HERE/lib.sh" "$f") >"$D/guest.log" 2>&1 &
	tpid=$!
	wait $tpid
	rc=$?
	# Whatever the case left running goes before the next one, and every CPU
	# it took offline comes back (a case killed by its timeout cannot).
	kill -KILL -- -$tpid 2>/dev/null
	for o in /sys/devices/system/cpu/cpu[0-9]*/online; do
		[ "$(cat "$o")" = 1 ] || echo 1 >"$o" 2>/dev/null
	done
	secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	[ $rc -eq 124 ] && echo "guest: $c timed out after ${tmo}s" >>"$D/guest.log"
	echo "$rc" >"$D/guest.rc"
	echo "$secs" >"$D/guest.time"
	mv /tmp/cores/core.* "$D/" 2>/dev/null
	rm -rf "$OUT/$c"
	cp -a "$D" "$OUT/$c"
	rm -rf "$D"
	echo "guest: $c: exit $rc in $secs s"
done
dmesg >"$OUT/info/dmesg"
