#!/bin/bash
# bench/evlist-model, the cost model at scale: it runs on its two default
# machines and says it is a model; on a tiny synthetic topology (2 nodes of
# 2 CPUs) with round costs, every kind of figure it prints equals the
# same arithmetic done by hand here; bad input is one line and a non-zero
# exit. And `precord bench synthesize -t -d`, which measures two of its
# inputs, prints the pid count and bytes per record it claims to.
. "$(dirname "$0")/../lib.sh"
MODEL=${MODEL:-$TOP/bench/evlist-model}
[ -x "$MODEL" ] || fail "no model binary at $MODEL (run make)"

# 1. The defaults: both machines, and the word "model" before any figure.
"$MODEL" >"$T/default" 2>"$T/default.err" || { cat "$T/default.err"; fail "evlist-model exited non-zero"; }
head -1 "$T/default" | grep -q '^THIS IS A MODEL' || fail "the output does not open by saying it is a model"
grep -q '^== xeon-phi-7250: .*: 272 CPUs, 4 NUMA nodes ==$' "$T/default" || fail "no 272-CPU, 4-node machine"
grep -q '^== epyc-2x128: .*: 512 CPUs, 8 NUMA nodes ==$' "$T/default" || fail "no 512-CPU, 8-node machine"
[ "$(grep -c '^  node=[0-9]* cpus=68 ' "$T/default")" -eq 8 ] || fail "not 2 drain rows for each of 4 nodes of 68 CPUs"
[ "$(grep -c '^  node=[0-9]* cpus=64 ' "$T/default")" -eq 16 ] || fail "not 2 drain rows for each of 8 nodes of 64 CPUs"
note "default machines: $(grep -c '^== ' "$T/default") modelled"

# 2. A tiny machine, round costs: the figures against hand arithmetic.
"$MODEL" -x -t tiny="numa:2 core:2 pu:1" -e 5,1 --tasks 10 --maps 3 \
	--open-local=2 --open-remote=1 --open-w=3 --node-factor=3 --dispatch-fixed=10 --dispatch-per-cpu=1 \
	--enable-a=1 --enable-b=2 --enable-remote=4 --enable-a-w=2 --enable-b-w=1 \
	--disable-local=1 --disable-remote=2 --disable-w=4 --close-local=1 --close-remote=10 --close-w=2 \
	--ring-mmap=100 --set-output=1 \
	--synth-list=1 --synth-task=10 --synth-map=2 --synth-task-w=20 --synth-map-w=4 \
	--synth-task-bytes=100 --synth-map-bytes=50 \
	--rate-g=3e6 --drain-g=2 --rate-dwarf=300e6 --drain-dwarf=4 >"$T/tiny" 2>"$T/tiny.err" ||
	{ cat "$T/tiny.err"; fail "evlist-model -x on a tiny topology exited non-zero"; }
grep -q '^# MODEL' "$T/tiny" || fail "-x output does not say it is a model"
"$MODEL" -s drain -t tiny="numa:2 core:2 pu:1" --rate-dwarf=300e6 --drain-dwarf=4 >"$T/human" ||
	fail "evlist-model -s drain exited non-zero"
grep -q '^# input	open-remote	1	µs	set$' "$T/tiny" || fail "-x does not list the inputs it was given"

# want SECTION CASE ITEM V1 V2 [V3]: the row's values, to a millionth
want() {
	local row
	row=$(awk -F'\t' -v s="$1" -v c="$2" -v i="$3" '$1 == s && $4 == c && $5 == i' "$T/tiny")
	[ -n "$row" ] || fail "no row $1 / $2 / $3"
	awk -F'\t' -v a="$4" -v b="$5" -v c="${6:-}" '
		function off(x, y) { return (x - y) > 1e-6 || (y - x) > 1e-6 }
		{ exit off($6, a) || off($7, b) || (c != "" && off($8, c)) }' <<<"$row" ||
		fail "$1 $2 $3: got '$(cut -f6-8 <<<"$row" | tr '\t' ' ')', want '$4 $5 ${6:-}'"
}
# 4 CPUs; the caller's node has 1 other CPU, the other node 2 (x node-factor 3): 7
# open, E=5: 4*5*2 + 7*5*1 = 75 serial; dispatch 10 + 4*1, + 5*3 on each worker = 29
want evlist "E=5 fds=20" open 75 29
# enable: a CPU's 5 events cost 5*1 + 2*(1+…+5) = 35 serially, 4*35 + 7*5*4 = 280;
# on a worker 5*2 + 1*(1+…+5) = 25, 14 + 25 = 39
want evlist "E=5 fds=20" enable 280 39
# disable: 4*5*1 + 7*5*2 = 90; 14 + 5*4 = 34
want evlist "E=5 fds=20" disable 90 34
# close: 4*5*1 + 7*5*10 = 370; 14 + 5*2 = 24
want evlist "E=5 fds=20" close 370 24
# mmap, serial on both: 4 * (100 + 4*1) = 416
want evlist "E=5 fds=20" mmap 416 416 1
# E=1 is 4 descriptors, under the inline cutoff of 8: parallel is serial, 4*2 + 7*1 = 15
want evlist "E=1 fds=4" open 15 15 1
# synthesis, ms: list 10*1 µs; dispatch 10 + 4*1 µs; walk 10*(10 + 3*2) µs serial,
# ceil(10/4) = 3 tasks * (20 + 3*4) µs per worker; write 10*(100 + 3*50) B * 2 ns
want synth "tasks=10 maps=3" list 0.010 0.010 1
want synth "tasks=10 maps=3" dispatch 0 0.014
want synth "tasks=10 maps=3" walk 0.160 0.096
want synth "tasks=10 maps=3" write 0.005 0.005 1
want synth "tasks=10 maps=3" total 0.175 0.125 1.4
# drain, per node of 2 CPUs: 2*3e6 B/s = 6 MB/s against 1e9/2 = 500 MB/s, 0.012 of a
# reader; dwarf 2*300e6 = 600 MB/s against 1e9/4 = 250 MB/s: 2.4 readers' worth, 3 readers
want drain "node=0 cpus=2" -g 6 500 0.012
want drain "node=1 cpus=2" dwarf 600 250 2.4
grep -Eq '^  node=1 cpus=2 +dwarf +600\.0 +250\.0 +2\.40 +3 ' "$T/human" ||
	{ cat "$T/human"; fail "the table does not say 3 readers for 2.4 readers' worth"; }
note "tiny topology: evlist, synthesis and drain rows equal the hand arithmetic"

# 3. Bad input: one line, non-zero, no figures.
"$MODEL" --open-local=abc >"$T/bad.out" 2>"$T/bad.err" && fail "a non-numeric cost was accepted"
[ "$(wc -l <"$T/bad.err")" -eq 1 ] && grep -q "bad value 'abc' for open-local" "$T/bad.err" ||
	{ cat "$T/bad.err"; fail "a bad cost does not give one line naming it"; }
[ -s "$T/bad.out" ] && fail "a bad cost still printed figures"
"$MODEL" -e 1,x >"$T/bad.out" 2>"$T/bad.err" && fail "-e 1,x was accepted"
grep -q "bad value 'x' for -e" "$T/bad.err" || { cat "$T/bad.err"; fail "a bad -e is not named"; }
"$MODEL" -t "bogus:3" >"$T/bad.out" 2>"$T/bad.err" && fail "a bad topology was accepted"
grep -q "cannot load topology 'bogus:3'" "$T/bad.err" || { cat "$T/bad.err"; fail "a bad topology is not named"; }

# 4. The synthesis bench's details: pids listed (as many as /proc holds, give or
# take what starts and stops meanwhile) and bytes per record (a COMM is 40+).
"$PRECORD" bench synthesize -t -d -m 1 -M 1 -I 2 >"$T/synth" 2>&1 || { cat "$T/synth"; fail "bench synthesize -t -d failed"; }
nr=$(ls /proc | grep -c '^[0-9]')
pids=$(sed -n 's/.*Average pid listing took: [0-9.]* usec (+- [0-9.]* usec) for \([0-9]*\) pids$/\1/p' "$T/synth")
bytes=$(sed -n 's/.*Average bytes per event: \([0-9.]*\)$/\1/p' "$T/synth")
[ -n "$pids" ] && [ "$pids" -ge $((nr - 50)) ] && [ "$pids" -le $((nr + 50)) ] ||
	{ cat "$T/synth"; fail "bench synthesize -d: $pids pids listed, /proc holds $nr"; }
awk -v b="$bytes" 'BEGIN { exit !(b >= 40 && b <= 4096) }' || { cat "$T/synth"; fail "bench synthesize -d: $bytes bytes per record"; }
note "bench synthesize -d: $pids pids, $bytes bytes per record"
exit 0
