#!/bin/bash
# -e symbols, modifiers and groups recorded by perf record and precord on
# the same command line (tests/events-lib.sh): the same attrs, groups and
# event names; cycles falls back to cpu-clock as in perf where no PMU counts it.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/events-lib.sh"
ensure_tracefs

# Symbols; cycles falls back to cpu-clock where no PMU counts it, as in perf.
same -e cycles
same -e cycles:u
same -e cpu-cycles -c 100000
same -e cycles/period=100000/
same -e cpu-clock,task-clock:k,page-faults:u
# Modifiers.
for m in S D e P W I b ppp G H GH uk; do
	same -e "cpu-clock:$m"
done
same -e cpu-clocku
same -e 'cpu-clock:'
# Groups, their modifiers, --group.
same -e '{cpu-clock,page-faults}'
same -e '{cpu-clock,page-faults}:S'
same -e '{cpu-clock,page-faults}:S' -c 100000
same -e '{cpu-clock,page-faults/period=5/}:S'
same -e 'foo{cpu-clock,page-faults}:u'
same -e '{cpu-clock:k,page-faults}:u'
same -e '{cpu-clock,page-faults}:D'
same -e '{cpu-clock,page-faults}:e'
same -e '{cpu-clock,page-faults}:P'
same -e 'cs,{cpu-clock,page-faults},task-clock'
same -e '{cpu-clock:ppp}:D'
same --group -e cpu-clock,page-faults
same --group -e '{cpu-clock,page-faults},task-clock'
same -a --group -e cpu-clock,page-faults
same -a -e '{cpu-clock,page-faults}:S'

[ $status = 0 ] || fail "precord's events differ from perf's"
exit 0
