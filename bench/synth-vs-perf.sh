#!/bin/bash
# bench/synth-vs-perf.sh — synthesis of a machine with ~10 000 extra threads:
# `precord bench synthesize -t` with 1 and N threads against `perf bench
# internals synthesize -t` with 1 and N (the code path of perf record
# --num-thread-synthesize=N), in one run, alternating, REPS times each.
#
#   bench/synth-vs-perf.sh [-r REPS] [-I ITER] [-n THREADS] [-j N] [-l LAYOUTS] [-o FILE]
#
#   -r REPS     repetitions (default 5); the order of the variants rotates
#   -I ITER     walks per measurement, averaged by the bench itself (default 10)
#   -n THREADS  tasks the workload adds (default 10000)
#   -j N        the parallel thread count (default: online CPUs)
#   -l LAYOUTS  processes the THREADS are spread over, a comma list
#               (default "1,100": one process of 10 000 threads, then 100 of 100)
#   -o FILE     where to save the raw TSV (default bench/results/synth-vs-perf-<host>-<date>.tsv);
#               the summary printed goes to the same name with .txt
#
# Variants: precord-1 (serial walk), precord-N (parallel, workers pinned per
# CPU), precord-N-unbound (parallel, WQ_SCOPE_SYSTEM workers), perf-1,
# perf-N. Each measurement is the bench's average µs over ITER walks of
# the whole /proc; the table gives medians [min–max] over the repetitions,
# the records per walk and µs per record; ratios are computed per
# repetition, then their median [min–max]. PRECORD (default ./precord)
# picks the binary. Run it on a quiet machine: the load average before and
# after is printed.
set -u
cd "$(dirname "$0")/.."
REPS=5 ITER=10 NTHREADS=10000 J=$(nproc) LAYOUTS=1,100 RAW=""
PRECORD=${PRECORD:-./precord}
while getopts "r:I:n:j:l:o:h" o; do
	case $o in
	r) REPS=$OPTARG ;; I) ITER=$OPTARG ;; n) NTHREADS=$OPTARG ;; j) J=$OPTARG ;;
	l) LAYOUTS=$OPTARG ;; o) RAW=$OPTARG ;;
	*) sed -n '2,25p' "$0"; exit 0 ;;
	esac
done
if [ "$PRECORD" = ./precord ]; then
	make -s precord >/dev/null || exit 1
fi
# The workload needs nothing of precord: build it directly, so that work in
# progress elsewhere in the tree does not stop us.
${CC:-cc} -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -o bench/spawn-threads bench/spawn-threads.c \
	-lpthread || exit 1
if ! "$PRECORD" bench synthesize -h >/dev/null 2>&1; then
	echo "synth-vs-perf: '$PRECORD bench synthesize' does not run" >&2
	exit 1
fi
mkdir -p bench/results
RAW=${RAW:-bench/results/synth-vs-perf-$(hostname -s)-$(date +%Y%m%d-%H%M%S).tsv}
SUM=${RAW%.tsv}.txt
: >"$SUM"
TMP=$(mktemp -d /tmp/synth-vs-perf.XXXXXX)
WL_PID=""
cleanup() {
	[ -n "$WL_PID" ] && kill "$WL_PID" 2>/dev/null && wait "$WL_PID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

VARIANTS=(precord-1 precord-N precord-N-unbound perf-1 perf-N)

# perf warns on stderr about tasks that exit during its walk: kept in $TMP/err,
# shown when a run fails.
measure() {	# variant → "usec events"
	local out
	case $1 in
	precord-1) out=$("$PRECORD" bench synthesize -t -m 1 -M 1 -I "$ITER" 2>"$TMP/err") ;;
	precord-N) out=$("$PRECORD" bench synthesize -t -m "$J" -M "$J" -I "$ITER" 2>"$TMP/err") ;;
	precord-N-unbound)
		out=$("$PRECORD" bench synthesize -t -m "$J" -M "$J" -I "$ITER" --scope system \
			2>"$TMP/err") ;;
	perf-1) out=$(perf bench internals synthesize -t -m 1 -M 1 -I "$ITER" 2>"$TMP/err") ;;
	perf-N) out=$(perf bench internals synthesize -t -m "$J" -M "$J" -I "$ITER" 2>"$TMP/err") ;;
	esac || { cat "$TMP/err" >&2; return 1; }
	awk '/Average synthesis took:/ {t = $4} /Average num. events:/ {e = $4}
	     END {if (t == "" || e == "") exit 1; print t, e}' <<<"$out"
}

start_workload() {	# procs
	rm -f "$TMP/ready"
	bench/spawn-threads -q -p "$1" -t "$NTHREADS" -r "$TMP/ready" &
	WL_PID=$!
	for ((i = 0; i < 600; i++)); do
		[ -f "$TMP/ready" ] && return 0
		kill -0 "$WL_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "synth-vs-perf: the workload did not start" >&2
	exit 1
}

stop_workload() {
	kill "$WL_PID" 2>/dev/null
	wait "$WL_PID" 2>/dev/null
	WL_PID=""
}

echo "# host $(hostname -s), $(nproc) CPUs, $(uname -r); $(perf version)" | tee -a "$SUM"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$SUM"
printf 'layout\tvariant\trep\tusec\tevents\n' >"$RAW"
nv=${#VARIANTS[@]}
IFS=, read -r -a LAYOUT_LIST <<<"$LAYOUTS"
for procs in "${LAYOUT_LIST[@]}"; do
	start_workload "$procs"
	layout="${procs}x$((NTHREADS / procs))"
	for ((r = 1; r <= REPS; r++)); do
		for ((k = 0; k < nv; k++)); do
			v=${VARIANTS[$(((k + r - 1) % nv))]}
			res=$(measure "$v") || { echo "synth-vs-perf: $v failed" >&2; exit 1; }
			printf '%s\t%s\t%d\t%s\t%s\n' "$layout" "$v" "$r" ${res} >>"$RAW"
		done
	done
	stop_workload
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$SUM"
echo "# N = $J; $REPS repetitions of $ITER walks each; raw data in $RAW" | tee -a "$SUM"

awk -F'\t' -v J="$J" "$(cat bench/stats.awk)"'
function ratio(l, num, den, label,   i, n, x) {
	n = 0
	for (i = 1; i <= reps[l]; i++)
		if (((l, num, i) in us) && ((l, den, i) in us) && us[l, den, i] > 0)
			x[++n] = us[l, num, i] / us[l, den, i]
	if (n)
		printf "  %-44s %s\n", label, medrange(x, n, "%.2f")
}
NR == 1 { next }
{
	us[$1, $2, $3] = $4; ev[$1, $2, $3] = $5
	if (!($1 in seenl)) { seenl[$1] = 1; lay[++nl] = $1 }
	if (!($2 in seenv)) { seenv[$2] = 1; var[++nvar] = $2 }
	if ($3 > reps[$1]) reps[$1] = $3
}
END {
	for (l = 1; l <= nl; l++) {
		L = lay[l]
		printf "\n%s (processes x threads each), ms per walk of /proc:\n", L
		printf "  %-18s %-30s %-12s %s\n", "variant", "ms median [min–max]", "records", "us/record"
		for (v = 1; v <= nvar; v++) {
			n = 0
			for (i = 1; i <= reps[L]; i++)
				if ((L, var[v], i) in us) { t[++n] = us[L, var[v], i] / 1000; e[n] = ev[L, var[v], i] }
			if (!n)
				continue
			name = var[v]; sub(/-N/, "-" J, name)
			printf "  %-18s %-30s %-12.0f %.2f\n", name, medrange(t, n, "%.1f"), med(e, n),
				med(t, n) * 1000 / med(e, n)
		}
		print "  per-repetition ratios, median [min–max]:"
		ratio(L, "precord-1", "precord-N", "precord speed-up, 1 -> " J " threads")
		ratio(L, "precord-N", "precord-N-unbound", "pinned / unbound (below 1: pinned faster)")
		ratio(L, "perf-1", "perf-N", "perf speed-up, 1 -> " J " threads")
		ratio(L, "perf-1", "precord-1", "perf-1 / precord-1")
		ratio(L, "perf-N", "precord-N", "perf-" J " / precord-" J)
		ratio(L, "perf-1", "precord-N", "perf-1 / precord-" J)
	}
}' "$RAW" | tee -a "$SUM"
