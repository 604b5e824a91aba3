#!/bin/bash
# -e events this machine cannot count, and strings that are not perf's
# syntax: precord refuses them as perf does, with perf's own line for what
# the kernel refuses (tests/events-lib.sh), and leaves no file behind.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/events-lib.sh"
ensure_tracefs

# What this machine cannot count: perf's line.
if [ ! -e /sys/bus/event_source/devices/cpu ]; then
	for e in instructions cache-misses branches ref-cycles instructions:k r003c 4:0x3c \
		 L1-dcache-load-misses LLC-loads 'r1a8/period=3/' '{cpu-clock,instructions}'; do
		same_error -e "$e"
	done
fi
[ -d /sys/bus/event_source/devices/msr ] && same_error -e msr/tsc/ && same_error -e tsc &&
	same_error -a -e msr/tsc/
[ -d /sys/bus/event_source/devices/power ] && same_error -e power/energy-psys/
same_error -e cpu-clock/branch_type=any/
same_error -e cpu-clock/aux-output/
same_error -e cpu-clock/aux-sample-size=4096/
same_error -e '{cpu-clock,page-faults:D}'

# Not perf's syntax either.
for e in 'cpu-clock:uu' 'cpu-clock:pppp' 'cpu-clock:x' 'cpu-clock/period=100/:u' \
	 'cpu-clock:u/period=100/' 'cpu-clock/foo=1/' 'software/cpu-clock/' 'r1a8/u' \
	 'sched:sched_switch/period=3/' 'cpu-clock}' 'cpu/event=0x3c,umask=0/'; do
	syntax_error -e "$e"
done

[ $status = 0 ] || fail "precord's events differ from perf's"
exit 0

[ $status = 0 ] || fail "precord's events differ from perf's"
exit 0
