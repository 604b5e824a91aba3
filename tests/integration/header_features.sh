#!/bin/bash
# perf report --header-only lists the features precord writes, with values
# that match the machine.
. "$(dirname "$0")/../lib.sh"
ensure_tracefs

"$PRECORD" -a -k monotonic -e cpu-clock,sched:sched_switch -o "$T/perf.data" -- sleep 0.3 2>"$T/sum" ||
	{ cat "$T/sum"; fail "precord failed"; }
perf_clean "$T/hdr" "$T/hdr.err" -- report --header-only -I -i "$T/perf.data"
cat "$T/hdr"
expect() { grep -q "$1" "$T/hdr" || fail "header lacks: $1"; }
expect "# hostname : $(uname -n)"
expect "# os release : $(uname -r)"
expect "# arch : $(uname -m)"
expect "# nrcpus online : $(nproc)"
expect "# cpudesc : "
expect "# cpuid : "
expect "# total memory : "
expect "# cmdline : .*precord"
expect "# event : name = cpu-clock"
expect "# event : name = sched:sched_switch"
expect "# sibling threads : "
expect "# node0 meminfo"
expect "# sample duration : "
expect "# clockid frequency: "
mem=$(awk '/MemTotal/{print $2}' /proc/meminfo)
expect "# total memory : $mem kB"
exit 0
