#!/bin/bash
# bench/evlist-vs-perf.sh — evlist open…close cycles: `precord bench
# evlist-open-close` serial (-j 1) and parallel (-j NCPU), against `perf
# bench internals evlist-open-close` with the same options; in one run,
# alternating (the order rotates every repetition), REPS times each.
#
#   bench/evlist-vs-perf.sh [-r REPS] [-c CASES] [-s SCALE] [-o RAW.tsv] [-S]
#
#   -r REPS   repetitions of every variant (default 7)
#   -c CASES  comma list of cases to run (default a,b,c,c2,d)
#   -s SCALE  multiply every case's iteration count (default 1)
#   -o FILE   keep the raw results (case, variant, rep, usec) there
#   -S        also run the synthesis section
#
# Cases (each an average over its own -i iterations, per run):
#   a   1 dummy event, system-wide (-a)                      2 fds here
#   b   -n 100 dummy events, system-wide (-a -n 100)         200 fds
#   c   4 events on each of 500 threads, on every CPU (-p): the workload is
#       NCPU processes of 500/NCPU sleeping threads, each process pinned to
#       one CPU, so the threads are spread as a busy workload's are
#   c2  the same with --per-thread (one ring per thread)     2000 fds
#   d   8 tracepoints, system-wide                           16 fds
# Prints, per case: medians [min–max] in µs, and ratios computed per
# repetition (serial/parallel = the speed-up, perf/parallel), then their
# median [min–max]; then the targets.  Needs root (or perf_event_paranoid
# <= -1) for -a and tracepoints, perf 5.15+ for its benchmark.
#
# PRECORD: the precord binary (default ./precord); its `bench` subcommand
# must exist.  The load average before and after is printed: other work on
# the machine changes every figure.
set -u
cd "$(dirname "$0")/.." || exit 1
REPS=7 CASES=a,b,c,c2,d SCALE=1 RAW="" SYNTH=0
while getopts "r:c:s:o:Sh" o; do
	case $o in
	r) REPS=$OPTARG ;; c) CASES=$OPTARG ;; s) SCALE=$OPTARG ;; o) RAW=$OPTARG ;;
	S) SYNTH=1 ;;
	*) sed -n '2,31p' "$0"; exit 0 ;;
	esac
done
PRECORD=${PRECORD:-./precord}
NCPU=$(nproc)
TMP=$(mktemp -d /tmp/evlist-vs-perf.XXXXXX)
RAW=${RAW:-$TMP/raw.tsv}
WL_PIDS=()
TPS=sched:sched_switch,sched:sched_wakeup,sched:sched_wakeup_new,sched:sched_process_fork
TPS=$TPS,sched:sched_process_exit,sched:sched_migrate_task,raw_syscalls:sys_enter,raw_syscalls:sys_exit

cleanup() {
	local p
	for p in "${WL_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

die() { echo "evlist-vs-perf: $*" >&2; exit 1; }

[ -x "$PRECORD" ] || die "no $PRECORD: build it with 'make precord'"
"$PRECORD" bench evlist-open-close -h >/dev/null 2>&1 || die "$PRECORD has no 'bench' subcommand"
perf bench internals evlist-open-close -h 2>&1 | grep -q Usage ||
	die "perf bench internals evlist-open-close is missing"
if [ ! -d /sys/kernel/tracing/events/sched ]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
fi
[ -x bench/spawn-threads ] || make -s bench/spawn-threads >/dev/null || die "cannot build bench/spawn-threads"

# ---- the workload of case c: NCPU processes, each pinned to its CPU ---------

start_workload() {
	local c per=$((500 / NCPU)) pids=() f
	for ((c = 0; c < NCPU; c++)); do
		f=$TMP/ready.$c
		taskset -c "$c" bench/spawn-threads -q -p 1 -t "$per" -r "$f" -s 7200 &
		WL_PIDS+=($!)
	done
	for ((c = 0; c < NCPU; c++)); do
		f=$TMP/ready.$c
		for ((i = 0; i < 300; i++)); do [ -s "$f" ] && break; sleep 0.1; done
		[ -s "$f" ] || die "the workload did not start"
		pids+=("$(sed 's/.*pids=//' "$f")")
	done
	WL=$(IFS=,; echo "${pids[*]}")
}

# ---- one measurement ----------------------------------------------------------

case_args() {	# case -> "iterations|options"
	case $1 in
	a)  echo "$((200 * SCALE))|-a" ;;
	b)  echo "$((40 * SCALE))|-a -n 100" ;;
	c)  echo "$((10 * SCALE))|-e cpu-clock -n 4 -p $WL" ;;
	c2) echo "$((5 * SCALE))|-e cpu-clock -n 4 -p $WL --per-thread" ;;
	d)  echo "$((3 * SCALE))|-a -e $TPS" ;;
	*)  die "unknown case '$1'" ;;
	esac
}

measure() {	# case variant -> µs of one open…close cycle (average of -i)
	local ca=$1 v=$2 iter opts out
	IFS='|' read -r iter opts <<<"$(case_args "$ca")"
	case $v in
	serial)   out=$("$PRECORD" bench evlist-open-close -i "$iter" -j 1 $opts 2>&1) ;;
	parallel) out=$("$PRECORD" bench evlist-open-close -i "$iter" -j "$NCPU" $opts 2>&1) ;;
	perf)     out=$(perf bench internals evlist-open-close -i "$iter" $opts 2>&1) ;;
	esac
	awk '/Average open-close took:/ {print $4; ok = 1} END {exit !ok}' <<<"$out" ||
		{ echo "$out" >&2; die "case $ca, $v failed"; }
}

VARIANTS=(serial parallel perf)

run_case() {	# case: REPS repetitions, the variants' order rotated each time
	local ca=$1 r k v us
	for ((r = 1; r <= REPS; r++)); do
		for ((k = 0; k < 3; k++)); do
			v=${VARIANTS[$(((r + k) % 3))]}
			us=$(measure "$ca" "$v") || exit 1
			printf '%s\t%s\t%d\t%s\n' "$ca" "$v" "$r" "$us" >>"$RAW"
		done
	done
}

# ---- summary ------------------------------------------------------------------

# median [min–max] of the numbers on stdin
med() {
	sort -g | awk '{v[NR] = $1} END {
		if (!NR) { print "-"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		f = m >= 100 ? "%.0f" : "%.2f"
		printf f " [" f "–" f "]\n", m, v[1], v[NR] }'
}

col() { awk -F'\t' -v c="$1" -v v="$2" '$1 == c && $2 == v {print $4}' "$RAW"; }

ratio() {	# case num den -> per-repetition num/den
	awk -F'\t' -v c="$1" -v n="$2" -v d="$3" '$1 == c {x[$2, $3] = $4; r[$3] = 1}
		END {for (k in r) if (x[d, k] > 0) printf "%.3f\n", x[n, k] / x[d, k]}' "$RAW"
}

median_of() { sort -g | awk '{v[NR] = $1} END {print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

summary() {
	local ca
	printf '\n%-4s %-26s %-26s %-26s %-22s %-22s\n' case "serial -j 1 (µs)" "parallel -j $NCPU (µs)" \
		"perf bench (µs)" "serial/parallel" "perf/parallel"
	for ca in ${CASES//,/ }; do
		printf '%-4s %-26s %-26s %-26s %-22s %-22s\n' "$ca" "$(col "$ca" serial | med)" \
			"$(col "$ca" parallel | med)" "$(col "$ca" perf | med)" \
			"$(ratio "$ca" serial parallel | med)" "$(ratio "$ca" perf parallel | med)"
	done
}

targets() {
	local ca sp pp
	echo
	echo "targets (medians of the per-repetition ratios):"
	for ca in ${CASES//,/ }; do
		sp=$(ratio "$ca" serial parallel | median_of)
		pp=$(ratio "$ca" perf parallel | median_of)
		case $ca in
		a) awk -v s="$sp" 'BEGIN {printf "  a: parallel within 10%% of serial: %s (parallel/serial %.3f)\n",
			(1 / s <= 1.10 ? "met" : "MISSED"), 1 / s}' ;;
		b|c) awk -v s="$sp" -v c="$ca" 'BEGIN {printf "  %s: parallel >= 1.7x serial: %s (%.2fx)\n",
			c, (s >= 1.7 ? "met" : "MISSED"), s}' ;;
		*) awk -v s="$sp" -v c="$ca" 'BEGIN {printf "  %s: (no serial target) %.2fx\n", c, s}' ;;
		esac
		awk -v p="$pp" -v c="$ca" 'BEGIN {printf "  %s: parallel faster than perf bench: %s (%.2fx)\n",
			c, (p > 1 ? "met" : "MISSED"), p}'
	done
}

# ---- synthesis (filled in by the synthesis benchmark) -----------------------

# Hook for the synthesis section: runs precord's and perf's synthesis
# benchmarks once each as they are, so their outputs sit next to the evlist
# figures; the alternating, repeated comparison lives in bench/synth-vs-perf.sh.
run_synthesis() {
	echo
	echo "== synthesis =="
	if "$PRECORD" bench synthesize -h >/dev/null 2>&1; then
		"$PRECORD" bench synthesize
	else
		echo "($PRECORD has no 'bench synthesize')"
	fi
	if perf bench internals synthesize -h 2>&1 | grep -q Usage; then
		perf bench internals synthesize
	fi
}

# ---- main -----------------------------------------------------------------------

printf 'case\tvariant\trep\tusec\n' >"$RAW"
echo "evlist-vs-perf: $NCPU CPUs, kernel $(uname -r), $(perf version 2>/dev/null), $REPS repetitions"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
case ,$CASES, in *,c,*|*,c2,*) start_workload; echo "workload: 500 threads in processes $WL" ;; esac
for ca in ${CASES//,/ }; do
	case_args "$ca" >/dev/null
	echo "case $ca: $(case_args "$ca" | sed 's/^\([0-9]*\)|/-i \1 /')"
	run_case "$ca"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
summary
targets
[ "$SYNTH" = 1 ] && run_synthesis
[ "$RAW" != "$TMP/raw.tsv" ] && echo "raw results: $RAW"
exit 0
