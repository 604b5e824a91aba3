#!/bin/bash
# bench/startup-vs-perf.sh — the wall time of one recording command line,
# perf record against precord (and, with -b, another precord binary, say
# an older build), alternating with the order rotating, REPS times each;
# also runs in a guest (tests/vm/guest.sh ... -- bench/startup-vs-perf.sh).
#
#   bench/startup-vs-perf.sh [-r REPS] [-d OUTDIR] [-b PRECORD] -- RECORD ARGS...
#   e.g. bench/startup-vs-perf.sh -r 7 -- -e 'sched:*' -a -- sleep 1
#
# Prints one line per run ("rep recorder wall_s"), each precord run's
# phases (its -v "time:" line), then medians [min–max] per recorder and
# the per-repetition ratio to perf. The outputs go to OUTDIR (default
# /dev/shm/precord-startup), removed after each run.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
REPS=5 OUT=/dev/shm/precord-startup OTHER=""
PRECORD=${PRECORD:-$TOP/precord}
while getopts "r:d:b:h" o; do
	case $o in
	r) REPS=$OPTARG ;; d) OUT=$OPTARG ;; b) OTHER=$OPTARG ;;
	*) sed -n '2,14p' "$0"; exit 0 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || { sed -n '2,14p' "$0"; exit 2; }
mkdir -p "$OUT" || exit 1
RAW=$OUT/raw.tsv
: >"$RAW"

who_list=(perf precord)
[ -n "$OTHER" ] && who_list+=(other)

run_one() {	# rep who
	local rep=$1 who=$2 s e
	rm -rf "$OUT/o.data" "$OUT/o.data.old" "$OUT/o.data.staging"
	s=$(date +%s.%N)
	case $who in
	perf) perf record -q -o "$OUT/o.data" "${ARGS[@]}" >/dev/null 2>"$OUT/err" ;;
	precord) "$PRECORD" -q -v -o "$OUT/o.data" "${ARGS[@]}" >/dev/null 2>"$OUT/err" ;;
	other) "$OTHER" -q -o "$OUT/o.data" "${ARGS[@]}" >/dev/null 2>"$OUT/err" ;;
	esac
	e=$(date +%s.%N)
	printf '%d\t%s\t%.3f\n' "$rep" "$who" "$(echo "$e - $s" | bc)" | tee -a "$RAW"
	grep -h '^precord: time:' "$OUT/err"
}

ARGS=("$@")
n=${#who_list[@]}
# an untimed run of each first: caches, tracefs inodes
for who in "${who_list[@]}"; do run_one 0 "$who" >/dev/null; done
for ((r = 1; r <= REPS; r++)); do
	for ((k = 0; k < n; k++)); do
		run_one "$r" "${who_list[(r + k) % n]}"
	done
done
rm -rf "$OUT/o.data" "$OUT/o.data.old" "$OUT/o.data.staging"

awk -F'\t' -v reps="$REPS" "$(cat "$TOP/bench/stats.awk")"'
function show(name, a, n) { printf "%-9s %s\n", name, medrange(a, n, "%.3f") }
$1 > 0 { t[$2, $1] = $3; seen[$2] = 1 }
END {
	print "wall s, median [min–max]:"
	for (who in seen) { for (i = 1; i <= reps; i++) v[i] = t[who, i]; show(who, v, reps) }
	print "per-repetition ratio to perf, median [min–max]:"
	for (who in seen) {
		if (who == "perf") continue
		for (i = 1; i <= reps; i++) v[i] = t[who, i] / t["perf", i]
		show(who, v, reps)
	}
}' "$RAW"
