#!/bin/bash
# make-corpus.sh — writes the seed corpus of every fuzz target into
# tests/fuzz/corpus/<target>/ from small real recordings: stock perf's and
# precord's (-- true, a few samples), with tracepoints, -z, pipe mode,
# --threads directories, recordings killed with SIGKILL, a consuming merge
# killed half-way (kill-merge.c), and LOST records from a 4 KiB ring; plus
# --threads specs and -e strings (the PMU ones for the sysfs tree that
# fuzz_events.c writes). Needs root, perf, and `make` done. The
# corpus is checked in: run this again only to renew it.
set -e
cd "$(dirname "$0")/../.."
TOP=$PWD
C=$TOP/tests/fuzz/corpus
W=$(mktemp -d /tmp/precord-corpus.XXXXXX)
trap 'rm -rf "$W"' EXIT
P=$TOP/precord
PACK=$TOP/tests/fuzz/pack.sh
MATMUL="$TOP/bench/matmul -q -t 2 -n 48"

rm -rf "$C"
mkdir -p "$C"/{report,merge_file,merge_dir,header,layout,events}
cd "$W"

# perf 6.1 aborts now and then at its end: try again
retry() {
	"$@" || "$@" || "$@"
}

# killed NAME CMD...: run CMD, SIGKILL it once it has recorded a while
killed() {
	local name=$1; shift
	"$@" -- sleep 3 & local pid=$!
	sleep 0.7
	kill -9 $pid; wait $pid 2>/dev/null || true
}

retry perf record -q -o perf.plain -- true
# -B: perf 6.1 aborts in its build-id pass (util/build-id.c:1010) on some hosts
retry perf record -q -B -e sched:sched_switch -o perf.sched -- true
retry perf record -q -z -o perf.z -- true
retry perf record -q -o - -- true >perf.pipe
retry perf record -q --threads=cpu -o perf.threads -- true
retry perf record -q -m 1 -c 1000 -e cpu-clock -o perf.lost -- $MATMUL
killed perf.killed perf record -q -o perf.killed
killed perf.sched.killed perf record -q -e sched:sched_switch -o perf.sched.killed
retry $P -q -o pre.plain -- true
retry $P -q -e sched:sched_switch -o pre.sched -- true
retry $P -q -z -o pre.z -- true
retry $P -q --threads=cpu --no-merge -o pre.threads -- true
retry $P -q -z --threads=cpu --no-merge -o pre.threads.z -- $MATMUL
retry $P -q -m 1 -c 1000 -e cpu-clock -o pre.lost -- $MATMUL
killed pre.killed $P -q -o pre.killed
killed pre.sched.killed $P -q -e sched:sched_switch -o pre.sched.killed
killed pre.staging $P -q --threads=cpu -o pre.staging
retry $P -q --threads=cpu --no-merge -o pre.threads.matmul -- $MATMUL
# a consuming merge killed at its first journal entry
cp -r pre.threads.matmul pre.consumed
cc -O1 -g -I"$TOP/include" -D_GNU_SOURCE -o kill-merge "$TOP/tests/fuzz/kill-merge.c" \
	"$TOP/build/libprecord.a" "$TOP/build/libwq.a" \
	$(pkg-config --libs hwloc numa libzstd) -lpthread -lrt -lm
./kill-merge pre.consumed consumed.out 1

for f in perf.plain perf.sched perf.z perf.pipe perf.lost perf.killed \
	 pre.plain pre.sched pre.z pre.lost pre.killed; do
	cp $f "$C/report/$f"
done
$PACK perf.threads >"$C/report/perf.threads.dir"
$PACK pre.threads >"$C/report/pre.threads.dir"
$PACK pre.threads.z >"$C/report/pre.threads.z.dir"

for f in perf.killed perf.sched.killed pre.killed pre.sched.killed perf.plain pre.plain; do
	cp $f "$C/merge_file/$f"
done

$PACK -o '\000' perf.threads >"$C/merge_dir/perf.threads"
$PACK -o '\001' pre.threads >"$C/merge_dir/pre.threads.jobs2"
$PACK -o '\002' pre.threads.z >"$C/merge_dir/pre.threads.z.comp"
$PACK -o '\005' pre.threads.matmul >"$C/merge_dir/pre.threads.matmul.jobs2-consume"
$PACK -o '\015' pre.threads.matmul >"$C/merge_dir/pre.threads.matmul.jobs2-consume-round64k"
$PACK -o '\000' pre.staging.staging >"$C/merge_dir/pre.staging"
$PACK -o '\000' pre.consumed consumed.out.* >"$C/merge_dir/pre.consumed.journal"
$PACK -o '\000' pre.consumed >"$C/merge_dir/pre.consumed.no-partial"

for f in perf.plain perf.sched perf.z pre.plain pre.sched pre.z pre.killed perf.killed; do
	cp $f "$C/header/$f"
done
cp perf.threads/data "$C/header/perf.threads.data"
cp pre.threads/data "$C/header/pre.threads.data"

# layout: topology byte, CPUs byte (recorded: bits 0-1, allowed: bits 2-3), spec
i=0
while IFS='|' read -r t c spec; do
	printf "\\$(printf %03o "$t")\\$(printf %03o "$c")%s" "$spec" >"$C/layout/spec.$i"
	i=$((i + 1))
done <<'SPECS'
0|0|cpu
0|0|core
1|0|package
0|1|numa
2|0|socket
3|0|numa
0|0|
0|0|0-3/0-3:4-7/4-7
0|1|0,2/0:4-6/4-6
2|0|1/1:2/2
0|2|0-15/16-31
3|4|0-67/0-67:68-135/68-135
0|8|Core
1|0|0x3/0x3
0|0|0-3/8:4-7
SPECS

i=0
while read -r ev; do
	printf '%s' "$ev" >"$C/events/event.$i"
	i=$((i + 1))
done <<'EVENTS'
cpu-clock
cs:u
cycles:k
task-clock:uhppp
cpu-clock,cs,page-faults:u
instructions:GH
sched:sched_switch
sched:sched_switch:u
sched:sched_wak*
*:sched_switch
irq:*
cpu/event=0x3c/
r1a8
mem:0x1000
{cycles,instructions}
L1-dcache-loads
cpu/event=0x3c,umask=0x1,edge,cmask=2,ldlat=5,fe=0x11/u
cpu/cpu-cycles,period=1000,name=x/
cpu/ev-param,umask=3/
mem-loads
topdown-fe-bound:u
slots,tsc
uncore_imc/cas_count_read/
imc/event=0x1/
{cpu-clock,page-faults}:S
foo{cpu-clock:k,page-faults/period=5/}:uW
cpu-clock/call-graph=dwarf,stack-size=4096,max-stack=3,no-inherit,overwrite,time=0/
cpu-clock/branch_type=any_call,u,freq=99,@cfg,aux-output,nr=5,percore=1,metric-id=m/
mem:0x1000/8:rw:u
1:2,4:0x3c/config1=7/,r0x1a8
L1-dcache-load-misses/name='a,b'/
duration_time,cpu-clock:SDePWIb
sched:sched_switch/call-graph=fp/:u
EVENTS
du -sh "$C" "$C"/*
