#!/bin/bash
# bench/model-inputs.sh — measure, on this machine, the inputs of the cost
# model bench/evlist-model, and print them as its options.
#
#   bench/model-inputs.sh [-r REPS] [-P PROCS] [-K MAPS] [-d OUTDIR] [-p PARTS]
#
#   -r REPS   repetitions of each measurement (default 5); medians are used
#   -P PROCS  processes the synthesis workload starts (default 1000)
#   -K MAPS   executable mappings each of them adds (default 30)
#   -d DIR    where recordings go (default /var/tmp/precord-model)
#   -p PARTS  what to measure: evlist,synth,stream (default all)
#   -q SECS   before each part, wait up to SECS (default 600) for the other
#             processes to keep less than 0.1 CPU busy; how busy they were
#             is printed either way
#
# evlist   `precord bench evlist-open-close -d` with E = 16, 32, 64, 100
#          dummy events per CPU, in a rotating order: on one CPU (-C) from
#          the calling thread pinned there (local) and pinned to another
#          CPU (remote), serially; on every CPU (-a) serially and with a
#          worker per CPU (parallel). Per phase, the slope against E of
#          the local runs is the local cost per descriptor, the remote
#          slope minus it the cross-CPU extra; the parallel slope is the
#          cost per descriptor on each worker while every worker works at
#          once (contention included) and the intercept the dispatch;
#          enable is fitted as a + b*k for the k-th event of a CPU; mmap
#          and munmap per ring. The per-worker share of the dispatch cannot
#          be told apart from its fixed part on a 2-CPU machine: it is
#          taken as 2.5 µs (a futex wake-up) and the rest is the fixed part.
# synth    `precord bench synthesize -t -d -m 1 -M 2` on this machine's
#          /proc alone, then with bench/spawn-threads -p PROCS (processes of
#          one thread), then with -m MAPS more executable mappings each; the
#          differences give per pid listed, per task and per mapping, on one
#          participant (serial) and on two at once (per worker), and the
#          bytes of each kind of record.
# stream   precord and perf record, in a rotating order, -F 4000 -g and
#          -F 4000 --call-graph dwarf of bench/matmul -t CPUs, precord with
#          --threads=numa (one streaming thread per node, no helpers): the
#          bytes the streaming threads moved (their summary lines) over the
#          workload's own CPU seconds (bytes per busy CPU-second), perf's
#          bytes beside them as a check; and the streaming threads' CPU
#          time over their bytes (ns per byte drained), for -g at -F 25000,
#          where a thread moves enough to be timed to a few percent and
#          takes bigger batches per wake-up, as a saturated reader does.
# Run on a quiet machine, under the shared lock: the load average, the
# CPUs others kept busy before each part and perf_event_max_sample_rate
# before and after are printed. perf records with -B (no build-id pass:
# only its bytes are used). Raw rows go to
# OUTDIR/raw.tsv; the last line is the evlist-model options.
set -u
cd "$(dirname "$0")/.."
REPS=5 PROCS=1000 KMAPS=30 OUT=/var/tmp/precord-model PARTS=evlist,synth,stream QUIET_WAIT=600
while getopts "r:P:K:d:p:q:h" o; do
	case $o in
	r) REPS=$OPTARG ;; P) PROCS=$OPTARG ;; K) KMAPS=$OPTARG ;; d) OUT=$OPTARG ;;
	p) PARTS=$OPTARG ;; q) QUIET_WAIT=$OPTARG ;; *) sed -n '2,/^set -u/p' "$0" | sed '$d'; exit 0 ;;
	esac
done
make -s precord bench/matmul bench/spawn-threads bench/evlist-model >/dev/null || exit 1
mkdir -p "$OUT"
RAW=$OUT/raw.tsv
: >"$RAW"
NCPU=$(nproc)
want() { [[ ",$PARTS," == *",$1,"* ]]; }
row() { printf '%s\n' "$*" | tr ' ' '\t' >>"$RAW"; }
# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# med KEY...: median of column 2+n of the raw rows whose first fields are KEY...
med() {
	local key="$*" n=$#
	awk -F'\t' -v key="$key" -v n="$n" '{ k = $1; for (i = 2; i <= n; i++) k = k " " $i
		if (k == key) print $(n + 1) }' "$RAW" | median
}
range() {	# like med, "min–max"
	local key="$*" n=$#
	awk -F'\t' -v key="$key" -v n="$n" '{ k = $1; for (i = 2; i <= n; i++) k = k " " $i
		if (k == key) print $(n + 1) }' "$RAW" | sort -g | sed -n '1p;$p' | paste -sd'-'
}
calc() { awk "BEGIN { printf \"%.6g\", $* }"; }
# busy: CPUs kept busy by others over 2 s, from /proc/stat (nothing of ours runs meanwhile)
busy() {
	local a b
	a=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat); sleep 2
	b=$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat)
	awk -v a="$a" -v b="$b" -v n="$NCPU" 'BEGIN { split(a, x, " "); split(b, y, " ")
		printf "%.2f", n * (y[1] - x[1]) / (y[1] - x[1] + y[2] - x[2]) }'
}
# quiet PART: wait (up to QUIET_WAIT s) until others keep under 0.1 CPU busy; say how busy
quiet() {
	local t=0 b
	b=$(busy)
	while awk -v b="$b" 'BEGIN { exit !(b >= 0.1) }' && [ $t -lt "$QUIET_WAIT" ]; do
		sleep 8; t=$((t + 10)); b=$(busy)
	done
	echo "# $1: others kept $b CPUs busy before it (after waiting ${t} s)"
}

echo "# model-inputs: $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null), $NCPU CPUs, $(uname -r)"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg); max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
FLAGS=""

# ---- evlist ----------------------------------------------------------------
EVALS="16 32 64 100"
CPU_A=$(cut -d, -f1 /sys/devices/system/cpu/online | cut -d- -f1)
CPU_B=$(awk -F'[-,]' '{ print $NF }' /sys/devices/system/cpu/online)
evlist_run() {	# E variant: local remote serial par
	local e=$1 v=$2 out cmd
	case $v in
	local)  cmd=(taskset -c "$CPU_A" ./precord bench evlist-open-close -C "$CPU_A" -j 1) ;;
	remote) cmd=(taskset -c "$CPU_B" ./precord bench evlist-open-close -C "$CPU_A" -j 1) ;;
	serial) cmd=(./precord bench evlist-open-close -a -j 1) ;;
	par)    cmd=(./precord bench evlist-open-close -a -j "$NCPU") ;;
	esac
	out=$("${cmd[@]}" -d -n "$e" -i $((4000 / e)) 2>&1) || { echo "$out" >&2; exit 1; }
	for p in open mmap enable disable munmap close; do
		row evlist "$e" "$v" "$p" "$(sed -n "s/.*Average $p took: \([0-9.]*\) usec.*/\1/p" <<<"$out")"
	done
}
# pairs VARIANT PHASE [MINUS]: "E median" lines, minus b*E(E+1)/2 when MINUS=b is given
pairs() {
	local e
	for e in $EVALS; do echo "$e $(med evlist "$e" "$1" "$2")"; done |
		awk -v b="${3:-0}" '{ print $1, $2 - b * $1 * ($1 + 1) / 2 }'
}
# least squares y = c + m*x: prints "c m"
fit_line() {
	awk '{ n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
	     END { m = (n * sxy - sx * sy) / (n * sxx - sx * sx); printf "%.6g %.6g\n", (sy - m * sx) / n, m }'
}
# least squares y - c0 = a*x + b*x(x+1)/2 (c0 given; "fit" to fit it too): prints "c a b"
fit_enable() {
	awk -v c0="$1" '{ n++; x[n] = $1; y[n] = $2 }
	function solve3(  i, u, v, w, A, B, C, D, E, F, G, H, I, p, q, r, det) {
		for (i = 1; i <= n; i++) { u = 1; v = x[i]; w = x[i] * (x[i] + 1) / 2
			A += u * u; B += u * v; C += u * w; E += v * v; F += v * w; I += w * w
			p += u * y[i]; q += v * y[i]; r += w * y[i] }
		D = B; G = C; H = F
		det = A * (E * I - F * H) - B * (D * I - F * G) + C * (D * H - E * G)
		printf "%.6g %.6g %.6g\n", (p * (E * I - F * H) - B * (q * I - F * r) + C * (q * H - E * r)) / det,
			(A * (q * I - F * r) - p * (D * I - F * G) + C * (D * r - q * G)) / det,
			(A * (E * r - q * H) - B * (D * r - q * G) + p * (D * H - E * G)) / det }
	function solve2(  i, v, w, E, F, I, q, r, det) {
		for (i = 1; i <= n; i++) { v = x[i]; w = x[i] * (x[i] + 1) / 2
			E += v * v; F += v * w; I += w * w; q += v * (y[i] - c0); r += w * (y[i] - c0) }
		det = E * I - F * F
		printf "%.6g %.6g %.6g\n", c0, (q * I - F * r) / det, (E * r - F * q) / det }
	END { if (c0 == "fit") solve3(); else solve2() }'
}
if want evlist; then
	quiet evlist
	for rep in $(seq "$REPS"); do
		for e in $EVALS; do
			vs=(local remote serial par)
			for i in 0 1 2 3; do evlist_run "$e" "${vs[$(((i + rep) % 4))]}"; done
		done
	done
	declare -A LOC REM PAR DISP
	for p in open disable close; do
		read -r _ LOC[$p] < <(pairs local $p | fit_line)
		read -r _ rs < <(pairs remote $p | fit_line)
		REM[$p]=$(calc "$rs - ${LOC[$p]}")
		read -r DISP[$p] PAR[$p] < <(pairs par $p | fit_line)
	done
	disp=$(calc "(${DISP[open]} + ${DISP[disable]} + ${DISP[close]}) / 3")
	read -r _ ena enb < <(pairs local enable | fit_enable fit)
	read -r _ ers < <(pairs remote enable "$enb" | fit_line)
	enrem=$(calc "$ers - $ena")
	read -r _ enaw enbw < <(pairs par enable | fit_enable "$disp")
	# mmap = CPUs * (ring + (E - 1) * set_output) and munmap = CPUs * ring_munmap, both -a paths
	read -r mi ms < <(for v in serial par; do pairs $v mmap; done | fit_line)
	setout=$(calc "$ms / $NCPU"); ring=$(calc "$mi / $NCPU + $setout")
	unmap=$(for v in serial par; do pairs $v munmap; done |
		awk -v n="$NCPU" '{ s += $2; k++ } END { printf "%.6g", s / k / n }')
	percpu=2.5
	fixed=$(calc "$disp - $NCPU * $percpu")
	echo "# evlist, µs, medians of $REPS runs (each the mean of its cycles); local: -C $CPU_A from CPU $CPU_A," \
		"remote: -C $CPU_A from CPU $CPU_B, serial: -a -j 1, par: -a -j $NCPU"
	printf '#   %-4s %-7s %s\n' E variant "open mmap enable disable munmap close"
	for e in $EVALS; do
		for v in local remote serial par; do
			printf '#   %-4s %-7s' "$e" "$v"
			for ph in open mmap enable disable munmap close; do printf ' %s' "$(med evlist "$e" $v $ph)"; done
			echo
		done
	done
	FLAGS="$FLAGS --open-local=${LOC[open]} --open-remote=${REM[open]} --open-w=${PAR[open]}"
	FLAGS="$FLAGS --enable-a=$ena --enable-b=$enb --enable-remote=$enrem --enable-a-w=$enaw --enable-b-w=$enbw"
	FLAGS="$FLAGS --disable-local=${LOC[disable]} --disable-remote=${REM[disable]} --disable-w=${PAR[disable]}"
	FLAGS="$FLAGS --close-local=${LOC[close]} --close-remote=${REM[close]} --close-w=${PAR[close]}"
	FLAGS="$FLAGS --ring-mmap=$ring --set-output=$setout --ring-munmap=$unmap"
	FLAGS="$FLAGS --dispatch-fixed=$fixed --dispatch-per-cpu=$percpu"
fi

# ---- synthesis ---------------------------------------------------------------
WL_PID=""
stop_wl() { [ -n "$WL_PID" ] && kill "$WL_PID" 2>/dev/null && wait "$WL_PID" 2>/dev/null; WL_PID=""; }
trap 'stop_wl' EXIT
trap 'exit 130' INT TERM
start_wl() {	# spawn-threads args...
	rm -f "$OUT/ready"
	bench/spawn-threads -q -r "$OUT/ready" "$@" &
	WL_PID=$!
	for _ in $(seq 600); do [ -s "$OUT/ready" ] && return 0; kill -0 $WL_PID 2>/dev/null || break; sleep 0.1; done
	echo "model-inputs: bench/spawn-threads $* did not start" >&2; exit 1
}
synth_run() {	# workload
	local wl=$1 out t
	out=$(./precord bench synthesize -t -d -m 1 -M 2 -I 10 2>&1) || { echo "$out" >&2; exit 1; }
	for t in 1 2; do
		awk -v t=$t -v wl="$wl" '/Number of synthesis threads:/ { on = ($NF == t) }
			on && /Average synthesis took/ { us = $4 }
			on && /Average num. events/ { ev = $4 }
			on && /Average bytes per event/ { b = $5 }
			on && /Average pid listing took/ { l = $5; pids = $(NF - 1) }
			END { printf "synth\t%s\t%s\tus\t%.3f\nsynth\t%s\t%s\tevents\t%.3f\n", wl, t, us, wl, t, ev
			      printf "synth\t%s\t%s\tbytes\t%.1f\nsynth\t%s\t%s\tlist\t%.3f\n", wl, t, ev * b, wl, t, l
			      printf "synth\t%s\t%s\tpids\t%d\n", wl, t, pids }' <<<"$out" >>"$RAW"
	done
}
if want synth; then
	quiet synthesis
	for rep in $(seq "$REPS"); do
		synth_run base
		start_wl -p "$PROCS" -t "$PROCS"
		synth_run tasks
		stop_wl
		start_wl -p "$PROCS" -t "$PROCS" -m "$KMAPS"
		# every child holds the mappings asked for
		child=$(pgrep -P "$WL_PID" | head -1)
		have=$(grep -c ' r-xp .*/spawn-threads$' "/proc/$child/maps")
		[ "$have" -ge "$((KMAPS + 1))" ] || { echo "model-inputs: a workload process has $have executable mappings of itself, want $((KMAPS + 1))" >&2; exit 1; }
		synth_run maps
		stop_wl
	done
	S() { med synth "$@"; }
	dp=$(calc "$(S tasks 1 pids) - $(S base 1 pids)")
	list=$(calc "(($(S tasks 1 list) - $(S base 1 list)) + ($(S tasks 2 list) - $(S base 2 list))) / 2 / $dp")
	m0=$(calc "($(S tasks 1 events) - $(S base 1 events)) / $dp - 2")
	map=$(calc "($(S maps 1 us) - $(S tasks 1 us)) / ($PROCS * $KMAPS)")
	task=$(calc "($(S tasks 1 us) - $(S base 1 us)) / $dp - $list - $m0 * $map")
	mapw=$(calc "2 * ($(S maps 2 us) - $(S tasks 2 us)) / ($PROCS * $KMAPS)")
	taskw=$(calc "2 * (($(S tasks 2 us) - $(S base 2 us)) / $dp - $list) - $m0 * $mapw")
	mapb=$(calc "($(S maps 1 bytes) - $(S tasks 1 bytes)) / ($PROCS * $KMAPS)")
	taskb=$(calc "($(S tasks 1 bytes) - $(S base 1 bytes)) / $dp - $m0 * $mapb")
	echo "# synthesis, µs per walk of /proc, medians of $REPS runs (10 walks each) [min-max]:"
	for wl in base tasks maps; do
		echo "#   $wl: $(S $wl 1 pids) pids, $(S $wl 1 events) records;" \
			"1 participant $(S $wl 1 us) [$(range synth $wl 1 us)], 2 participants $(S $wl 2 us) [$(range synth $wl 2 us)]," \
			"pid listing $(S $wl 1 list)"
	done
	echo "#   workload: $PROCS processes of one thread (+1 parent) = $dp pids; $m0 executable mappings each, +$KMAPS with -m"
	FLAGS="$FLAGS --synth-list=$list --synth-task=$task --synth-map=$map"
	FLAGS="$FLAGS --synth-task-w=$taskw --synth-map-w=$mapw"
	FLAGS="$FLAGS --synth-task-bytes=$taskb --synth-map-bytes=$mapb"
fi

# ---- streaming -----------------------------------------------------------------
# mode: g or dwarf; its rows are keyed MODE-F: g4000, dwarf4000, g25000
stream_run() {	# who mode freq
	local who=$1 mode=$2 hz=$3 data=$OUT/$1.$2.data cg wl bytes samples lost mb cpu
	[ "$mode" = g ] && cg=(-g) || cg=(--call-graph dwarf)
	rm -rf "$data" "$data.old"
	sync
	if [ "$who" = precord ]; then
		./precord --threads=numa -F "$hz" "${cg[@]}" -o "$data" -- bench/matmul -t "$NCPU" -n 600 -r 32 \
			>"$OUT/wl" 2>"$OUT/err" || { cat "$OUT/err" >&2; exit 1; }
		# [ precord: prec-rd/0: CPUs 0-1, X MB, N wakeups, N samples, N lost, Y s CPU ],
		# and the same without "CPUs ..." for an adaptive layout's helpers
		read -r mb samples lost cpu < <(sed -En 's/^\[ precord: prec-rd\/[0-9.]+: (CPUs [^,]*(,[0-9][^,]*)*, )?([0-9.]+) MB, [0-9]+ wakeups, ([0-9]+) samples, ([0-9]+) lost, ([0-9.]+) s CPU \]$/\3 \4 \5 \6/p' "$OUT/err" |
			awk '{ mb += $1; s += $2; l += $3; c += $4 } END { printf "%.3f %d %d %.3f\n", mb, s, l, c }')
		bytes=$(calc "$mb * 1048576")
		row stream "$who" "$mode$hz" drain "$(calc "$cpu * 1e9 / $bytes")"
	else
		if ! perf record -B -F "$hz" "${cg[@]}" -o "$data" -- bench/matmul -t "$NCPU" -n 600 -r 32 \
			>"$OUT/wl" 2>"$OUT/err"; then
			echo "# perf record -F $hz $mode failed (left out): $(tail -1 "$OUT/err")"
			return
		fi
		bytes=$(stat -c %s "$data")
		read -r samples lost < <(perf report --stats -i "$data" 2>/dev/null | awk '
			/^ *SAMPLE events:/ { s = $3 } /^ *LOST_SAMPLES events:/ { l = $3 } END { print s + 0, l + 0 }')
	fi
	wl=$(sed -n 's/.* cpu=\([0-9.]*\).*/\1/p' "$OUT/wl")
	row stream "$who" "$mode$hz" rate "$(calc "$bytes / $wl")"
	row stream "$who" "$mode$hz" hz "$(calc "$samples / $wl")"
	row stream "$who" "$mode$hz" lost "${lost:-0}"
	row stream "$who" "$mode$hz" sample_bytes "$(calc "$bytes / ($samples + 1)")"
}
if want stream; then
	quiet streaming
	for rep in $(seq "$REPS"); do
		runs=("precord g 4000" "perf g 4000" "precord dwarf 4000" "perf dwarf 4000" "precord g 25000")
		for i in $(seq 0 4); do
			# rotate the order every repetition
			# shellcheck disable=SC2086
			stream_run ${runs[$(((i + rep) % 5))]}
		done
	done
	rm -rf "$OUT"/*.data "$OUT"/*.data.old
	echo "# streaming on bench/matmul -t $NCPU (every CPU busy), medians of $REPS [min-max]" \
		"(g4000: -F 4000 -g; dwarf4000: -F 4000 --call-graph dwarf; g25000: -F 25000 -g):"
	for c in g4000 dwarf4000 g25000; do
		echo "#   $c: precord $(med stream precord $c rate) B per CPU-s [$(range stream precord $c rate)]," \
			"$(med stream precord $c hz) samples per CPU-s, ~$(med stream precord $c sample_bytes) B each, lost $(med stream precord $c lost);" \
			"streaming thread $(med stream precord $c drain) ns/B [$(range stream precord $c drain)]"
		[ "$c" = g25000 ] ||
			echo "#     perf record -B: $(med stream perf $c rate) B per CPU-s [$(range stream perf $c rate)] (file size), lost $(med stream perf $c lost)"
	done
	FLAGS="$FLAGS --rate-g=$(med stream precord g4000 rate) --rate-dwarf=$(med stream precord dwarf4000 rate)"
	FLAGS="$FLAGS --drain-g=$(med stream precord g25000 drain) --drain-dwarf=$(med stream precord dwarf4000 drain)"
fi

echo "# after: others keep $(busy) CPUs busy; load $(cut -d' ' -f1-3 /proc/loadavg); max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
for f in $FLAGS; do
	case $f in *=-*) echo "# warning: ${f%%=*} came out negative: the machine was not quiet, or the fit does not hold; measure again";; esac
done
echo "bench/evlist-model$FLAGS"
