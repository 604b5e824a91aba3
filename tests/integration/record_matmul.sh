#!/bin/bash
# precord -F 1000 -- bench/matmul: the workload's multiply() is the top user
# symbol in perf report, perf script prints exactly precord's sample count,
# and perf says nothing on stderr.
. "$(dirname "$0")/../lib.sh"

"$PRECORD" -F 1000 -o "$T/perf.data" -- "$MATMUL" -t 2 -n 400 -r 10 >"$T/out" 2>"$T/summary" ||
	{ cat "$T/summary"; fail "precord exited $?"; }
cat "$T/summary"
grep -q 'Woken up [0-9]* times to write data' "$T/summary" || fail "no wakeup line"
n=$(samples_of "$T/summary")
[ -n "$n" ] && [ "$n" -gt 50 ] || fail "too few samples reported: '$n'"

perf_clean "$T/report" "$T/report.err" -- report --stdio --no-children -i "$T/perf.data" --sort sym
top=$(grep -v '^#' "$T/report" | grep -v '^$' | grep '\[\.\]' | head -1)
note "top user symbol: $top"
echo "$top" | grep -q 'multiply' || { head -30 "$T/report"; fail "multiply is not the top user symbol"; }

perf_clean "$T/script" "$T/script.err" -- script -i "$T/perf.data"
lines=$(wc -l <"$T/script")
note "precord samples: $n, perf script lines: $lines"
[ "$lines" -eq "$n" ] || fail "perf script printed $lines samples, precord said $n"
exit 0
