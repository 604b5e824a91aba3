#!/bin/bash
# Restricted CPU sets, as containers and taskset give: precord may not run
# on some CPU it records. Every layout still records every CPU (system-wide
# events need no affinity), the thread whose CPUs are forbidden runs on the
# nearest allowed one and -v says so, and perf reads the file cleanly.
# An idle CPU need not take cpu-clock samples (on some VMs only one idle
# CPU does), so a light spinner outside the restriction, started before
# the recordings, keeps every CPU running something.
. "$(dirname "$0")/../lib.sh"
export LC_ALL=C

ncpu=$(nproc --all)
[ "$ncpu" -ge 2 ] || skip "needs 2 CPUs"
last=$((ncpu - 1))
SPIN=${SPIN:-$TOP/build/tests/spin}
[ -x "$SPIN" ] || fail "no spinner at $SPIN (run make)"
"$SPIN" 0 20 & spinner=$!
stop_spin() { kill "$spinner" 2>/dev/null; wait "$spinner" 2>/dev/null; }
trap 'stop_spin; cleanup_test' EXIT

# check NAME FILE: perf reads it cleanly and every CPU has samples
check() {
	perf_clean "$T/$1.stats" "$T/$1.err" -- report --stats -i "$2"
	perf script -F cpu -i "$2" 2>/dev/null | tr -d ' []' | sort -un >"$T/$1.cpus"
	[ "$(wc -l <"$T/$1.cpus")" -eq "$ncpu" ] ||
		fail "$1: samples from CPUs $(tr '\n' ' ' <"$T/$1.cpus"), want all $ncpu"
}

# run_in NAME PREFIX... -- precord args: run under a restriction, must exit 0
run_in() {
	local name=$1; shift
	local pre=()
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	"${pre[@]}" "$PRECORD" "$@" >"$T/$name.out" 2>"$T/$name.sum" ||
		{ cat "$T/$name.sum"; fail "$name: precord exited $?"; }
}

for layout in --threads=cpu --threads=numa --no-threads; do
	name=taskset${layout#--}; name=${name//=/_}
	run_in "$name" taskset -c "$last" -- -v -a -F 1000 $layout -o "$T/$name.data" -- sleep 0.5
	check "$name" "$T/$name.data"
done
grep -q "prec-rd/0 drains CPUs 0, where this process may not run: it runs on CPUs $last" \
	"$T/tasksetthreads_cpu.sum" || { cat "$T/tasksetthreads_cpu.sum"; fail "-v does not say where prec-rd/0 runs"; }
note "taskset -c $last: every layout records all $ncpu CPUs"

# A cpuset cgroup (v1 here, or v2 with the cpuset controller), as a container has.
cg=""
if [ -w /sys/fs/cgroup/cpuset ] && [ -f /sys/fs/cgroup/cpuset/cpuset.cpus ]; then
	cg=/sys/fs/cgroup/cpuset/precord-test.$$
	mkdir "$cg" && cat /sys/fs/cgroup/cpuset/cpuset.mems >"$cg/cpuset.mems" &&
		echo "$last" >"$cg/cpuset.cpus" && tasks=$cg/tasks || cg=""
elif grep -qw cpuset /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	cg=/sys/fs/cgroup/precord-test.$$
	mkdir "$cg" && echo "$last" >"$cg/cpuset.cpus" && tasks=$cg/cgroup.procs || cg=""
fi
if [ -n "$cg" ]; then
	trap 'stop_spin; rmdir "$cg" 2>/dev/null; cleanup_test' EXIT
	for layout in --threads=cpu ""; do
		name=cpuset${layout#--}; name=${name//=/_}
		run_in "$name" sh -c 'echo $$ >"$0"; exec "$@"' "$tasks" -- -a -F 1000 $layout \
			-o "$T/$name.data" -- sleep 0.5
		check "$name" "$T/$name.data"
	done
	note "cpuset of CPU $last: every layout records all $ncpu CPUs"
else
	note "no cpuset cgroup to make here: only taskset checked"
fi
exit 0
