#!/bin/bash
# wq-bench.sh — build bench/wq-bench and run it, keeping the CSV.
#
#   bench/wq-bench.sh [wq-bench options]     (default: -r 15)
#
# Writes bench/results/wq-bench-<host>-<date>.csv (the CSV of wq-bench plus
# '#' lines with the machine, kernel and load average before and after, so a
# busy machine shows) and prints it.  Run it on a quiet machine; the figures
# in workqueue/README.md come from it.
set -e
cd "$(dirname "$0")/.."
# Only the workqueue library is needed: build it and link the benchmark
# directly, so that work in progress elsewhere in the tree does not stop us.
make -s build/libwq.a
${CC:-cc} -std=gnu11 -D_GNU_SOURCE -O2 -g -Iworkqueue $(pkg-config --cflags hwloc) \
	-o bench/wq-bench bench/wq-bench.c build/libwq.a $(pkg-config --libs hwloc) -lpthread
mkdir -p bench/results
out=bench/results/wq-bench-$(hostname -s)-$(date +%Y%m%d-%H%M%S).csv
[ $# -eq 0 ] && set -- -r 15
{
	echo "# host $(hostname -s), $(nproc) CPUs, $(uname -r), $(lscpu | sed -n 's/^Model name: *//p')"
	echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
	bench/wq-bench "$@"
	echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out"
cat "$out"
echo "# saved in $out" >&2
