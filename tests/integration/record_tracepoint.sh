#!/bin/bash
# precord -a -e sched:sched_switch -- sleep 1: perf script prints the
# tracepoint's fields (from the TRACING_DATA feature).
. "$(dirname "$0")/../lib.sh"
ensure_tracefs

"$PRECORD" -a -e sched:sched_switch -o "$T/perf.data" -- sleep 1 2>"$T/summary" ||
	{ cat "$T/summary"; fail "precord failed"; }
cat "$T/summary"
perf_clean "$T/script" "$T/script.err" -- script -i "$T/perf.data"
head -3 "$T/script"
grep -q 'prev_comm=' "$T/script" || fail "no prev_comm= field in perf script"
grep -q 'next_comm=' "$T/script" || fail "no next_comm= field in perf script"
n=$(samples_of "$T/summary")
lines=$(wc -l <"$T/script")
[ "$lines" -eq "$n" ] || fail "perf script printed $lines events, precord said $n"
exit 0
