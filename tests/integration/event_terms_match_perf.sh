#!/bin/bash
# -e event terms (/period=,call-graph=,name=.../), PMU terms, numeric,
# breakpoint, tool and tracepoint events recorded by perf record and precord
# on the same command line (tests/events-lib.sh).
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/events-lib.sh"
ensure_tracefs

# Event terms.
same -e cpu-clock/period=1000/
same -e cpu-clock/freq=100/
same -e cpu-clock/freq=100/ -c 100000
same -e cpu-clock/name=foo/u
same -e cpu-clock/max-stack=3/
same -e cpu-clock/call-graph=dwarf,stack-size=4096/
same -e cpu-clock/call-graph=dwarf/
same -e cpu-clock/call-graph=fp/
same -g -e cpu-clock/call-graph=no/
same --call-graph dwarf -e cpu-clock/call-graph=no/
same --call-graph dwarf -e cpu-clock/call-graph=fp/
same -e cpu-clock/stack-size=1024/
same -e cpu-clock/time=0/
same -e cpu-clock/no-inherit/
same -e cpu-clock/inherit=0/
same -i -e cpu-clock/inherit/
same -e cpu-clock/nr=5/
same -e cpu-clock/percore=1/
same -e cpu-clock/metric-id=x/
same -e cpu-clock/config=2/
same -e cpu-clock/config1=7,config2=9/
same -e cpu-clock/overwrite/
same -e cpu-clock//
same -e faults/period=0x10/
same -e 'cpu-clock/name=a,period=999/,task-clock/name=b/k'
# PMU terms through sysfs formats (software has none), numeric, breakpoints, tool events.
same -e software/config=0/
same -e software//
same -e software/config=0,@cfg/
same -e 1:0
same -e 1:2
same -e 1:0:u
same -e mem:0x1000
same -e mem:0x1000/8:rw
same -e mem:0x1000:rw:u
same -c 7 -e mem:0x1000
same -e duration_time
same -a -e duration_time
same -e sched:sched_switch/call-graph=fp/u
same -e 'sched:sched_switch,{cpu-clock,sched:sched_process_exec}:S'

[ $status = 0 ] || fail "precord's events differ from perf's"
exit 0
