#!/bin/bash
# The adaptive layout (--threads=adaptive[:MAX], the default): at a low
# rate one streaming thread per node and nothing added; at a rate one
# thread cannot keep up with, helpers added on the node, up to one thread
# per CPU, each with the closing line saying when and why; every ring
# still in its own file, merged into a file perf reads with every sample
# the summary counts. adaptive:1 on a one-node machine writes one file;
# a bad MAX is refused before anything is written; -v says what the layout
# may do, and that --switch-output keeps it fixed.
. "$(dirname "$0")/../lib.sh"

NODES=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
NCPU=$(nproc)

# read_back TAG: perf reads T/TAG.data cleanly (but for its word of the
# records the kernel lost, when the summary counts some), with the samples
# the summary counts.
read_back() {
	perf script -F tid,time -i "$T/$1.data" >"$T/$1.script" 2>"$T/$1.err" ||
		{ cat "$T/$1.err"; fail "$1: perf script failed"; }
	if grep -q 'Lost [0-9]* samples' "$T/$1.sum"; then
		sed -i -E '/^Warning:$|^$|Processed [0-9]+ events and lost [0-9]+ chunks!|Check IO\/CPU overload!/d' "$T/$1.err"
	fi
	[ ! -s "$T/$1.err" ] || { sed 's/^/    perf: /' "$T/$1.err"; fail "$1: perf script printed a warning"; }
	[ "$(wc -l <"$T/$1.script")" -eq "$(samples_of "$T/$1.sum")" ] ||
		{ cat "$T/$1.sum"; fail "$1: perf reads $(wc -l <"$T/$1.script") samples, precord says $(samples_of "$T/$1.sum")"; }
}

# 1. A low rate: one thread per node ran, none added; per-ring files, merged.
"$PRECORD" -v -F 1000 -g -o "$T/low.data" -- "$MATMUL" -t 2 -n 300 -r 6 >/dev/null 2>"$T/low.sum" ||
	{ cat "$T/low.sum"; fail "the default recording failed"; }
grep -q "^precord: adaptive layout: prec-rd/0 reads the rings of CPUs .* may run up to" "$T/low.sum" ||
	{ cat "$T/low.sum"; fail "-v: no word of what the adaptive layout may do"; }
grep -q "adaptive layout: $NODES streaming threads\? ran on $NODES nodes\?, $NODES at most at once" "$T/low.sum" ||
	{ cat "$T/low.sum"; fail "-F 1000: not one streaming thread per node"; }
grep -q ' added at ' "$T/low.sum" && { cat "$T/low.sum"; fail "-F 1000: a helper was added"; }
if [ "$NCPU" -gt 1 ]; then
	grep -q 'Merged [0-9]* ring files' "$T/low.sum" || { cat "$T/low.sum"; fail "-F 1000: per-ring files not merged"; }
fi
read_back low
note "-F 1000: $(samples_of "$T/low.sum") samples, one thread per node"

# 2. A rate one thread cannot keep up with (DWARF stacks at -F max into
# 32 KiB rings, far more runnable threads than CPUs): helpers, at most one
# thread per CPU, each added for a reason given, and the file reads.
if [ "$NCPU" -gt 1 ]; then
	"$PRECORD" -F max --call-graph dwarf,8192 -m 8 -o "$T/high.data" -- \
		"$MATMUL" -t 16 -n 256 -r 3 >/dev/null 2>"$T/high.sum" ||
		{ cat "$T/high.sum"; fail "the high-rate recording failed"; }
	grep -Eq '^\[ precord: prec-rd/[0-9]+\.[0-9]+ added at [0-9.]+ s by prec-rd/[0-9.]+ for CPUs [0-9,-]+: (the kernel lost [0-9]+ records|rings [0-9]+% full when read .*); ' "$T/high.sum" ||
		{ cat "$T/high.sum"; fail "-F max: no helper was added, or its line does not say when and why"; }
	grep -Eq '^\[ precord: prec-rd/[0-9]+\.[0-9]+: [0-9.]+ MB, [0-9]+ wakeups, [0-9]+ samples, [0-9]+ lost, [0-9]+\.[0-9]{3} s CPU \]' "$T/high.sum" ||
		{ cat "$T/high.sum"; fail "-F max: no counters of the helper"; }
	peak=$(sed -n 's/.*adaptive layout: [0-9]* streaming threads\? ran on [0-9]* nodes\?, \([0-9]*\) at most at once.*/\1/p' "$T/high.sum")
	[ -n "$peak" ] && [ "$peak" -gt "$NODES" ] && [ "$peak" -le "$NCPU" ] ||
		{ cat "$T/high.sum"; fail "-F max: $peak threads at once, want more than $NODES and at most $NCPU"; }
	read_back high
	# The helpers' samples are in the total the summary and perf agree on.
	note "-F max: $peak threads at once; $(grep -c ' added at ' "$T/high.sum") helper runs; $(samples_of "$T/high.sum") samples read back"
	grep ' added at ' "$T/high.sum" | head -3 | sed 's/^/    /'
fi

# 3. adaptive:1 on a one-node machine: one thread, which writes the file itself.
if [ "$NODES" -le 1 ]; then
	"$PRECORD" --threads=adaptive:1 -F 1000 -g -o "$T/one.data" -- "$MATMUL" -t 2 -n 300 -r 6 \
		>/dev/null 2>"$T/one.sum" || { cat "$T/one.sum"; fail "--threads=adaptive:1 failed"; }
	[ -f "$T/one.data" ] && ! grep -q 'Merged' "$T/one.sum" ||
		{ cat "$T/one.sum"; fail "adaptive:1 on one node: not one file written by one thread"; }
	read_back one
	note "adaptive:1: one file, no merge"
fi

# 4. A bad MAX: one line, exit non-zero, nothing at the output.
for bad in adaptive:0 adaptive:x adaptive:; do
	"$PRECORD" --threads=$bad -F 1000 -o "$T/bad.data" -- true >/dev/null 2>"$T/bad.err" &&
		fail "--threads=$bad was taken"
	[ "$(wc -l <"$T/bad.err")" -eq 1 ] && grep -q "^precord: Invalid --threads=$bad: adaptive takes" "$T/bad.err" ||
		{ cat "$T/bad.err"; fail "--threads=$bad: not one line saying what is wrong"; }
	[ ! -e "$T/bad.data" ] && [ ! -e "$T/bad.data.staging" ] || fail "--threads=$bad left an output"
done
note "bad MAX: $(cat "$T/bad.err")"

# 5. --switch-output keeps the first threads, and -v says so.
"$PRECORD" -v --switch-output=1s -F 1000 -o "$T/sw.data" -- sleep 0.3 >/dev/null 2>"$T/sw.sum" ||
	{ cat "$T/sw.sum"; fail "--switch-output with the default layout failed"; }
grep -q 'adaptive layout: --switch-output and --overwrite keep one streaming thread per node' "$T/sw.sum" ||
	{ cat "$T/sw.sum"; fail "-v --switch-output: no word that the layout stays fixed"; }
grep -q ' added at ' "$T/sw.sum" && fail "--switch-output: a helper was added"
note "--switch-output: fixed, as -v says"
echo ok
