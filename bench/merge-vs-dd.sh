#!/bin/bash
# bench/merge-vs-dd.sh — the merge alone against the machine's sequential
# write speed, on one file system, in one run, alternating, REPS times each.
#
#   bench/merge-vs-dd.sh [-r REPS] [-d DIR] [-F RATE]
#
# Makes one staging directory with `precord --no-merge -F RATE --call-graph
# dwarf,8192 -m 8` of bench/matmul (the loss benchmark's heaviest case),
# then, in turn: dd writing as many bytes (bs=1M, into the page cache like
# the merge), `precord merge -j 1` (one thread), and `precord merge` (one
# thread per CPU, the default). Before each: the previous output removed
# and `sync`, so no write-back of the last run is timed. Prints medians
# [min–max] of seconds and MB/s, and each merge's speed as a share of dd's.
# DIR (default /var/tmp/precord-merge-bench) decides the file system.
set -u
cd "$(dirname "$0")/.."
REPS=7 DIR=/var/tmp/precord-merge-bench RATE=max
while getopts "r:d:F:h" o; do
	case $o in
	r) REPS=$OPTARG ;; d) DIR=$OPTARG ;; F) RATE=$OPTARG ;;
	*) sed -n '2,15p' "$0"; exit 0 ;;
	esac
done
make -s precord bench/matmul >/dev/null || exit 1
mkdir -p "$DIR" || exit 1
STAGE=$DIR/stage OUTF=$DIR/out RAW=$DIR/raw.tsv
rm -rf "$STAGE" "$OUTF"
./precord --no-merge -q -F "$RATE" --call-graph dwarf,8192 -m 8 -o "$STAGE" -- \
	bench/matmul -t 16 -n 256 -r 3 >/dev/null || exit 1
MB=$(du -sm --apparent-size "$STAGE" | cut -f1)
echo "# $(df -T "$DIR" | awk 'NR==2 {print $2}') at $DIR: staging directory of $MB MB ($(ls "$STAGE" | wc -l) files)"

now() { date +%s.%N; }
printf 'who\trep\ts\n' >"$RAW"
for ((r = 1; r <= REPS; r++)); do
	for who in dd merge-j1 merge; do
		rm -f "$OUTF"; sync
		t0=$(now)
		case $who in
		dd) dd if=/dev/zero of="$OUTF" bs=1M count="$MB" status=none ;;
		merge-j1) ./precord merge -q -j 1 "$STAGE" -o "$OUTF" ;;
		merge) ./precord merge -q "$STAGE" -o "$OUTF" ;;
		esac || exit 1
		t1=$(now)
		printf '%s\t%d\t%s\n' "$who" "$r" "$(echo "$t1 - $t0" | bc)" >>"$RAW"
	done
done
rm -f "$OUTF"
awk -F'\t' -v mb="$MB" "$(cat bench/stats.awk)"'
NR > 1 { n = ++cnt[$1]; v[$1, n] = $3; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
END {
	for (i = 1; i <= k; i++) {
		w = order[i]; lo = 1e9; hi = 0
		for (j = 1; j <= cnt[w]; j++) { a[j] = v[w, j]; if (a[j] < lo) lo = a[j]; if (a[j] > hi) hi = a[j] }
		m[w] = med(a, cnt[w])
		printf "%-9s %.3f s [%.3f–%.3f]  %6.0f MB/s", w, m[w], lo, hi, mb / m[w]
		if (w != "dd") printf "  %.2f of dd", m["dd"] / m[w]
		printf "\n"
	}
}' "$RAW"
