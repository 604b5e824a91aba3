#!/bin/bash
# bench/record-vs-perf.sh — precord against perf record on the same workload,
# in one run, alternating (perf, precord, perf, precord, …), REPS times each.
#
#   bench/record-vs-perf.sh [-r REPS] [-d OUTDIR] [-o RESULTS.tsv]
#
# Configurations:
#   f1000  -F 1000                         on bench/matmul -t 2 -n 500 -r 4
#   fmax   -F max --call-graph dwarf       on bench/matmul -t 2 -n 400 -r 2
#   true   -e cpu-clock -- true            the fixed cost of every run
#   true-nobpf  as true, perf with --no-bpf-event
# For each: medians [min–max] of wall time, recorder CPU (user+sys of the
# recorder minus the workload's own, from wait4), bytes written, samples,
# lost samples (perf report --stats on each file: one yardstick), and the
# per-repetition ratio precord/perf of recorder CPU per MB.
set -u
cd "$(dirname "$0")/.."
STATS_AWK=$(cat bench/stats.awk)
REPS=5 OUT=/dev/shm/precord-bench RESULTS=""
while getopts "r:d:o:h" o; do
	case $o in
	r) REPS=$OPTARG ;; d) OUT=$OPTARG ;; o) RESULTS=$OPTARG ;;
	*) sed -n '2,15p' "$0"; exit 0 ;;
	esac
done
make -s precord bench/matmul bench/runstat >/dev/null || exit 1
mkdir -p "$OUT"
RAW=$OUT/raw.tsv
printf 'config\trecorder\trep\twall\trec_cpu\tbytes\tsamples\tlost\n' >"$RAW"

rate_before=$(cat /proc/sys/kernel/perf_event_max_sample_rate)

stats_of() {	# file → "samples lost"
	perf report --stats -i "$1" 2>/dev/null | awk '
		/^ *SAMPLE events:/ {s=$3} /^ *LOST_SAMPLES events:/ {ls=$3}
		END {printf "%d %d\n", s, ls}'
}

run_one() {	# config recorder rep -- recorder args (workload after --)
	local cfg=$1 who=$2 rep=$3; shift 4
	local data=$OUT/$cfg.$who.data
	rm -f "$data" "$data.old"
	sync
	bench/runstat -o "$OUT/rs" -- "$@" -o "$data" -- "${WORK[@]}" >"$OUT/wl" 2>"$OUT/err"
	local wall user sys wcpu bytes s l
	read -r wall user sys < <(sed 's/wall=\([^ ]*\) user=\([^ ]*\) sys=\([^ ]*\).*/\1 \2 \3/' "$OUT/rs")
	wcpu=$(sed -n 's/.* cpu=\([0-9.]*\).*/\1/p' "$OUT/wl"); wcpu=${wcpu:-0}
	bytes=$(stat -c %s "$data" 2>/dev/null || echo 0)
	read -r s l < <(stats_of "$data")
	printf '%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n' "$cfg" "$who" "$rep" "$wall" \
		"$(awk -v u="$user" -v s="$sys" -v w="$wcpu" 'BEGIN{printf "%.4f", u+s-w}')" \
		"$bytes" "$s" "$l" >>"$RAW"
}

bench_config() {	# name "perf args" "precord args" workload...
	local name=$1 pargs=$2 qargs=$3; shift 3
	WORK=("$@")
	for ((r = 1; r <= REPS; r++)); do
		# shellcheck disable=SC2086
		run_one "$name" perf "$r" -- perf record -q $pargs
		# shellcheck disable=SC2086
		run_one "$name" precord "$r" -- ./precord -q $qargs
	done
}

bench_config f1000 "-F 1000" "-F 1000" bench/matmul -t 2 -n 500 -r 4
bench_config fmax "-F max --call-graph dwarf" "-F max --call-graph dwarf" bench/matmul -t 2 -n 400 -r 2
bench_config true "-e cpu-clock" "-e cpu-clock" true
bench_config true-nobpf "-e cpu-clock --no-bpf-event" "-e cpu-clock" true

rate_after=$(cat /proc/sys/kernel/perf_event_max_sample_rate)

# Medians [min–max] per config and recorder, then per-rep ratios precord/perf.
report() {
	awk -F'\t' -v reps="$REPS" "$STATS_AWK"'
	function stat(key, col, fmt,   n, i, v) {
		n = cnt[key]
		for (i = 1; i <= n; i++) v[i] = val[key, col, i]
		return medrange(v, n, fmt)
	}
	NR == 1 { next }
	{
		key = $1 SUBSEP $2; n = ++cnt[key]
		val[key, "wall", n] = $4; val[key, "cpu", n] = $5; val[key, "mb", n] = $6 / 1048576
		val[key, "s", n] = $7; val[key, "l", n] = $8
		val[key, "cpumb", n] = ($6 > 0) ? $5 / ($6 / 1048576) : 0
		if (!($1 in seen)) { seen[$1] = 1; order[++nc] = $1 }
		r[$1, $2, $3] = ($6 > 0) ? $5 / ($6 / 1048576) : 0
		w[$1, $2, $3] = $4
	}
	END {
		printf "%-11s %-8s %-26s %-26s %-24s %-22s %-18s %s\n", "config", "recorder", "wall s", "recorder CPU s", "MB written", "samples", "lost", "CPU s/MB"
		for (c = 1; c <= nc; c++) for (k = 1; k <= 2; k++) {
			who = k == 1 ? "perf" : "precord"; key = order[c] SUBSEP who
			printf "%-11s %-8s %-26s %-26s %-24s %-22s %-18s %s\n", order[c], who,
				stat(key, "wall", "%.3f"), stat(key, "cpu", "%.3f"), stat(key, "mb", "%.2f"),
				stat(key, "s", "%d"), stat(key, "l", "%d"), stat(key, "cpumb", "%.4f")
		}
		print ""
		print "per-repetition ratios precord/perf, median [min–max]:"
		for (c = 1; c <= nc; c++) {
			n = 0
			for (i = 1; i <= reps; i++) {
				if (r[order[c], "perf", i] > 0) x[++n] = r[order[c], "precord", i] / r[order[c], "perf", i]
				y[i] = w[order[c], "precord", i] / w[order[c], "perf", i]
			}
			lo = 1e9; hi = 0; for (i = 1; i <= n; i++) { if (x[i] < lo) lo = x[i]; if (x[i] > hi) hi = x[i] }
			ylo = 1e9; yhi = 0; for (i = 1; i <= reps; i++) { if (y[i] < ylo) ylo = y[i]; if (y[i] > yhi) yhi = y[i] }
			printf "  %-11s CPU/MB %s   wall %.3f [%.3f–%.3f]\n", order[c],
				n ? sprintf("%.3f [%.3f–%.3f]", med(x, n), lo, hi) : "n/a",
				med(y, reps), ylo, yhi
		}
	}' "$RAW"
}
echo "output in $OUT ($(df -T "$OUT" | awk 'NR==2{print $2}')); $REPS repetitions each, alternating perf/precord"
echo "perf_event_max_sample_rate before: $rate_before, after: $rate_after"
report | tee "${RESULTS:-$OUT/summary.txt}"
