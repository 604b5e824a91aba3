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
# evlist   `precord bench evlist-open-close -a -d` with E = 16, 50, 100
#          dummy events per CPU, serial (-j 1) and a worker per CPU,
#          alternating; per phase, the parallel times against E give the
#          local cost (slope) and the dispatch (intercept), the serial
#          slope minus (CPUs x local) the cross-CPU extra; enable is fitted
#          as a + b*k per event; mmap and munmap per ring. The per-worker
#          share of the dispatch cannot be told apart from its fixed part on
#          a 2-CPU machine: it is taken as 2.5 µs (a futex wake-up) and the
#          rest is the fixed part.
# synth    `precord bench synthesize -t -d -m 1 -M 2` on this machine's
#          /proc alone, then with bench/spawn-threads -p PROCS (processes of
#          one thread), then with -m MAPS more executable mappings each; the
#          differences give per pid listed, per task and per mapping, on one
#          participant (serial) and on two at once (per worker), and the
#          bytes of each kind of record.
# stream   precord and perf record, in a rotating order, -F 4000 -g and
#          -F 4000 --call-graph dwarf of bench/matmul -t CPUs: the bytes the
#          streaming thread moved (its summary line) over the workload's
#          own CPU seconds (bytes per busy CPU-second), perf's bytes beside
#          them as a check; and the streaming thread's CPU time over its
#          bytes (ns per byte drained), for -g at -F 25000, where the thread
#          moves enough to be timed to a few percent and takes bigger
#          batches per wake-up, as a saturated reader does.
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
	p) PARTS=$OPTARG ;; q) QUIET_WAIT=$OPTARG ;; *) sed -n '2,42p' "$0"; exit 0 ;;
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
evlist_run() {	# E J rep
	local e=$1 j=$2 rep=$3 out
	out=$(./precord bench evlist-open-close -a -d -n "$e" -j "$j" -i $((4000 / e)) 2>&1) ||
		{ echo "$out" >&2; exit 1; }
	for p in open mmap enable disable munmap close; do
		row evlist "$e" "$j" "$p" "$(sed -n "s/.*Average $p took: \([0-9.]*\) usec.*/\1/p" <<<"$out")"
	done
}
if want evlist; then
	quiet evlist
	for rep in $(seq "$REPS"); do
		for e in 16 50 100; do
			if [ $((rep % 2)) = 1 ]; then evlist_run $e 1 $rep; evlist_run $e "$NCPU" $rep
			else evlist_run $e "$NCPU" $rep; evlist_run $e 1 $rep; fi
		done
	done
	# least squares y = a + b*x over (E, median) pairs: prints "a b"
	fit() {	# phase j
		for e in 16 50 100; do echo "$e $(med evlist $e "$2" "$1")"; done |
			awk '{ n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
			     END { b = (n * sxy - sx * sy) / (n * sxx - sx * sx); printf "%.6g %.6g\n", (sy - b * sx) / n, b }'
	}
	declare -A LOC REM DISP
	for p in open disable close; do
		read -r DISP[$p] LOC[$p] < <(fit $p "$NCPU")
		read -r _ slope < <(fit $p 1)
		REM[$p]=$(calc "($slope - $NCPU * ${LOC[$p]}) / ($NCPU - 1)")
	done
	disp=$(calc "(${DISP[open]} + ${DISP[disable]} + ${DISP[close]}) / 3")
	# enable, parallel: p(E) - disp = a*E + b*E(E+1)/2; two unknowns, three points
	read -r ena enb < <(for e in 16 50 100; do echo "$e $(med evlist $e "$NCPU" enable)"; done |
		awk -v d="$disp" '{ x1 = $1; x2 = $1 * ($1 + 1) / 2; y = $2 - d
			s11 += x1 * x1; s12 += x1 * x2; s22 += x2 * x2; s1y += x1 * y; s2y += x2 * y }
			END { det = s11 * s22 - s12 * s12
			      printf "%.6g %.6g\n", (s1y * s22 - s2y * s12) / det, (s11 * s2y - s12 * s1y) / det }')
	enrem=$(for e in 16 50 100; do echo "$e $(med evlist $e 1 enable)"; done |
		awk -v a="$ena" -v b="$enb" -v n="$NCPU" '{ loc = $1 * a + b * $1 * ($1 + 1) / 2
			s += ($2 - n * loc) / ($1 * (n - 1)); k++ } END { printf "%.6g", s / k }')
	# mmap = CPUs * (ring + (E - 1) * set_output), both paths
	read -r mi ms < <(for e in 16 50 100; do for j in 1 "$NCPU"; do echo "$e $(med evlist $e $j mmap)"; done; done |
		awk '{ n++; sx += $1; sy += $2; sxx += $1 * $1; sxy += $1 * $2 }
		     END { b = (n * sxy - sx * sy) / (n * sxx - sx * sx); printf "%.6g %.6g\n", (sy - b * sx) / n, b }')
	setout=$(calc "$ms / $NCPU"); ring=$(calc "$mi / $NCPU + $setout")
	unmap=$(for e in 16 50 100; do for j in 1 "$NCPU"; do med evlist $e $j munmap; done; done |
		awk -v n="$NCPU" '{ s += $1; k++ } END { printf "%.6g", s / k / n }')
	percpu=2.5
	fixed=$(calc "$disp - $NCPU * $percpu")
	echo "# evlist, µs, medians of $REPS runs (means of each run's cycles):"
	printf '#   %-8s %s\n' E "serial open/mmap/enable/disable/munmap/close | parallel, same"
	for e in 16 50 100; do
		s=""; p=""
		for ph in open mmap enable disable munmap close; do
			s="$s $(med evlist $e 1 $ph)"; p="$p $(med evlist $e "$NCPU" $ph)"
		done
		printf '#   %-8s%s |%s\n' "$e" "$s" "$p"
	done
	FLAGS="$FLAGS --open-local=$(calc "${LOC[open]}") --open-remote=$(calc "${REM[open]}")"
	FLAGS="$FLAGS --enable-a=$ena --enable-b=$enb --enable-remote=$enrem"
	FLAGS="$FLAGS --disable-local=$(calc "${LOC[disable]}") --disable-remote=$(calc "${REM[disable]}")"
	FLAGS="$FLAGS --close-local=$(calc "${LOC[close]}") --close-remote=$(calc "${REM[close]}")"
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
		./precord -F "$hz" "${cg[@]}" -o "$data" -- bench/matmul -t "$NCPU" -n 600 -r 32 \
			>"$OUT/wl" 2>"$OUT/err" || { cat "$OUT/err" >&2; exit 1; }
		# [ precord: prec-rd/0: CPUs 0-1, X MB, N wakeups, N samples, N lost, Y s CPU ]
		read -r mb samples lost cpu < <(sed -n 's/^\[ precord: prec-rd\/[0-9]*: CPUs [^,]*\(,[0-9][^,]*\)*, \([0-9.]*\) MB, [0-9]* wakeups, \([0-9]*\) samples, \([0-9]*\) lost, \([0-9.]*\) s CPU \]$/\2 \3 \4 \5/p' "$OUT/err" |
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
