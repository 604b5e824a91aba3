#!/bin/bash
# make demo: record the bundled workload system-wide with precord, then show
# precord's summary and the top of perf report.
set -e
cd "$(dirname "$0")/.."
out=build/demo
mkdir -p "$out"
echo "== precord --threads=numa -a -F 1000 -g -o $out/perf.data -- bench/matmul -t 4 -n 512 -r 2"
./precord --threads=numa -a -F 1000 -g -o "$out/perf.data" -- bench/matmul -t 4 -n 512 -r 2
echo
echo "== perf report --stdio --no-children --sort comm,dso,sym (top)"
perf report --stdio --no-children --sort comm,dso,sym -i "$out/perf.data" -g none 2>&1 \
	| grep -v '^$' | head -40
