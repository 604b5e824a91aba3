#!/bin/bash
# precord --call-graph dwarf: perf report -g unwinds the workload's user
# stacks: a chain main → worker → multiply.
. "$(dirname "$0")/../lib.sh"

"$PRECORD" --call-graph dwarf -F 500 -o "$T/perf.data" -- "$MATMUL" -t 2 -n 400 -r 6 >/dev/null 2>"$T/summary" ||
	{ cat "$T/summary"; fail "precord failed"; }
cat "$T/summary"
perf_clean "$T/report" "$T/report.err" -- report -g caller --stdio --no-children -i "$T/perf.data" --sort sym
grep -A40 'multiply' "$T/report" | head -60 >"$T/chain"
# Caller order: main, then worker, then multiply, in one chain.
awk '/main/{m=NR} /worker/{if(m)w=NR} /multiply/{if(w){print "ok"; exit}}' "$T/report" | grep -q ok ||
	{ head -60 "$T/report"; fail "no main → worker → multiply chain"; }
perf script -i "$T/perf.data" 2>/dev/null | grep -q 'worker' || fail "perf script shows no worker frame"
exit 0
