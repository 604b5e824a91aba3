#!/bin/bash
# bench/loss-vs-perf.sh — data loss of perf record and precord, one run,
# alternating recorders inside each repetition, REPS repetitions each.
#
#   bench/loss-vs-perf.sh [-r REPS] [-d OUTDIR] [-F "1000 4000 25000 max"]
#                         [-M "32"] [-q] [-a] [-w] [-b]
#
# Workload: bench/matmul with 16 threads on this machine's CPUs (far more
# runnable threads than CPUs), recorded with --call-graph dwarf,8192 and
# -m 8 (small rings: three 8 KiB stacks a ring) at each -F; at -F max also
# with each -m of -M (case matmul-mN: default -m 32, a quarter of perf's
# default ring); and the feedback case of perf's mmap-output patch: raw_syscalls:*
# system-wide while a syscall-heavy dd runs.
# Recorders: perf (serial), perf --aio, perf --threads, perf --threads=numa,
# precord (default: --threads=adaptive, write()), precord --threads=numa
# and --threads=cpu (the fixed layouts), the other two writers (precord
# --aio, precord --mmap-output), precord --no-threads. -q: perf, perf
# --threads and precord only; -a: the adaptive layout against the fixed
# ones, perf, perf --threads, precord, precord --threads=numa, precord
# --threads=cpu, precord --no-merge (the adaptive default without its
# merge: what the per-ring files' merge adds to CPU per MB). Every file
# is judged by `precord report --loss` (one yardstick) and counted again
# by `perf report --stats`.
# Prints per configuration: samples, lost records, lost samples, lost
# fraction, data loss metric, recorder CPU s, MB written, recorder CPU ms
# per MB, streaming threads (precord: the most at once, from its closing
# lines), wall s, merge s, merge % of wall — medians [min–max] — then, per
# case, whether the adaptive default lost no more than the better fixed
# layout plus 0.2 percentage points (medians), then dd's write speed into the same
# file system (512 MB once per repetition, then 512 MB more into a second
# file while the first is kept: new memory, as the merge's output is, then
# 512 MB more after 3 s idle: memory free page reporting may have given to
# the host meanwhile, as after a recording of a few seconds), and
# writes OUTDIR/loss.svg:
# lost fraction against sample rate for each recorder. OUTDIR decides the
# file system: the default, /var/tmp/precord-loss, is on disk as a perf.data
# in the working directory usually is; -d /dev/shm/... for tmpfs. Each run
# starts after a sync (not timed), so no run pays for the last one's
# write-back.
# -w: on a VM whose balloon driver reports free pages to the host (virtio
# free page reporting), stop the reporting for the run and restore it at the
# end. Memory freed more than a moment ago is otherwise given back to the
# host, and the first write into it faults on the host: measured here, the
# merge of a fresh 600 MB recording ran at 0.75 GB/s instead of 3.5 GB/s,
# dd into the page cache at 0.5-4.8 GB/s. Both recorders are affected; -w
# measures them without it.
# -b: the kernel's writeback from the first second (vm.dirty_expire_centisecs
# 100, vm.dirty_writeback_centisecs 50; restored at the end), as in any
# recording longer than 30 s or with a tenth of memory dirty: the recorders
# then write files the flusher is writing back.
set -u
cd "$(dirname "$0")/.."
STATS_AWK=$(cat bench/stats.awk)
REPS=5 OUT=/var/tmp/precord-loss RATES="1000 4000 25000 max" QUICK=0 WARM=0 MAXRINGS="32"
EARLYWB=0 ADAPT=0
while getopts "r:d:F:M:qawbh" o; do
	case $o in
	r) REPS=$OPTARG ;; d) OUT=$OPTARG ;; F) RATES=$OPTARG ;; q) QUICK=1 ;; w) WARM=1 ;;
	M) MAXRINGS=$OPTARG ;; b) EARLYWB=1 ;; a) ADAPT=1 ;;
	*) sed -n '2,50p' "$0"; exit 0 ;;
	esac
done
make -s precord bench/matmul bench/runstat >/dev/null || exit 1
REPORTING=/sys/module/page_reporting/parameters/page_reporting_order
reporting="on"
[ -r $REPORTING ] || reporting="none (no free page reporting)"
restore=""
if [ $WARM = 1 ] && [ -w $REPORTING ]; then
	order_before=$(cat $REPORTING)
	restore="echo $order_before >$REPORTING;"
	echo 11 >$REPORTING	# above the largest order: nothing is reported
	reporting="off for the run (page_reporting_order 11, then $order_before again)"
fi
writeback="the kernel's default"
if [ $EARLYWB = 1 ]; then
	expire=$(cat /proc/sys/vm/dirty_expire_centisecs)
	period=$(cat /proc/sys/vm/dirty_writeback_centisecs)
	restore="$restore echo $expire >/proc/sys/vm/dirty_expire_centisecs;"
	restore="$restore echo $period >/proc/sys/vm/dirty_writeback_centisecs;"
	echo 100 >/proc/sys/vm/dirty_expire_centisecs
	echo 50 >/proc/sys/vm/dirty_writeback_centisecs
	writeback="from the first second (dirty_expire_centisecs 100, then $expire again)"
fi
trap "$restore" EXIT
mkdir -p "$OUT"
RAW=$OUT/raw.tsv
printf 'case\trate\trecorder\trep\tsamples\tlost_rec\tlost\tfrac\tmetric\tcpu\tmb\tcpu_ms_mb\tthreads\twall\tmerge\tmerge_pct\n' >"$RAW"
DD=$OUT/dd.tsv
printf 'rep\tkind\tmb\ts\n' >"$DD"

RECORDERS=("perf" "perf --aio" "perf --threads" "perf --threads=numa"
	   "precord" "precord --threads=numa" "precord --threads=cpu" "precord --aio"
	   "precord --mmap-output" "precord --no-threads")
[ $QUICK = 1 ] && RECORDERS=("perf" "perf --threads" "precord")
[ $ADAPT = 1 ] && RECORDERS=("perf" "precord" "perf --threads" "precord --threads=numa"
			     "precord --threads=cpu" "precord --no-merge")
WORK_MATMUL=(bench/matmul -t 16 -n 256 -r 3)
WORK_SYSCALL=(dd if=/dev/zero of=/dev/null bs=64 count=300000 status=none)

rate_before=$(cat /proc/sys/kernel/perf_event_max_sample_rate)

one_run() {	# case rate recorder-words rep -- options (the workload is WORK)
	local cas=$1 rate=$2 who=$3 rep=$4; shift 5
	local data=$OUT/run.data cmd
	rm -rf "$data" "$data.old" "$data.staging"
	sync	# every run starts with nothing of the last one left to write back
	read -r -a words <<<"$who"
	if [ "${words[0]}" = perf ]; then
		cmd=(perf record -q "${words[@]:1}")
	else
		cmd=(./precord "${words[@]:1}")
	fi
	bench/runstat -o "$OUT/rs" -- "${cmd[@]}" "$@" -o "$data" -- "${WORK[@]}" >"$OUT/wl" 2>"$OUT/err"
	local wall user sys wcpu mb merge rep_line threads
	read -r wall user sys < <(sed 's/wall=\([^ ]*\) user=\([^ ]*\) sys=\([^ ]*\).*/\1 \2 \3/' "$OUT/rs")
	wcpu=$(sed -n 's/.* cpu=\([0-9.]*\).*/\1/p' "$OUT/wl"); wcpu=${wcpu:-0}
	mb=$(du -sm --apparent-size "$data" 2>/dev/null | cut -f1)
	merge=$(sed -n 's/.*Merged .* in \([0-9.]*\) s.*/\1/p' "$OUT/err"); merge=${merge:-0}
	# precord's streaming threads: the adaptive layout's most at once, or
	# a fixed layout's thread lines; perf says nothing (0)
	threads=$(sed -n 's/.*adaptive layout: [0-9]* streaming threads\{0,1\} ran on [0-9]* nodes\{0,1\}, \([0-9]*\) at most at once.*/\1/p' "$OUT/err")
	[ -n "$threads" ] || threads=$(grep -c '^\[ precord: prec-rd/[0-9]*: CPUs' "$OUT/err")
	./precord report --loss "$data" >"$OUT/loss" 2>&1
	local samples lost lrec frac metric
	samples=$(sed -n '1s/.*: \([0-9]*\) samples, \([0-9]*\) lost.*/\1/p' "$OUT/loss")
	lost=$(sed -n '1s/.*: \([0-9]*\) samples, \([0-9]*\) lost.*/\2/p' "$OUT/loss")
	lrec=$(sed -n '2s/.*: \([0-9]*\) LOST records.*/\1/p' "$OUT/loss")
	metric=$(sed -n 's/.*Data loss metric \([0-9.]*\)%: .*/\1/p' "$OUT/loss" | head -1)
	frac=$(awk -v s="${samples:-0}" -v l="${lost:-0}" 'BEGIN{printf "%.4f", (s+l) ? 100*l/(s+l) : 0}')
	local cpu
	cpu=$(awk -v u="$user" -v s="$sys" -v w="$wcpu" 'BEGIN{printf "%.3f", u+s-w}')
	# CPU per MB from the bytes written (du -m rounds to whole MB: at least 1)
	mb=${mb:-0}
	printf '%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cas" "$rate" "$who" "$rep" \
		"${samples:-0}" "${lrec:-0}" "${lost:-0}" "$frac" "${metric:-0}" "$cpu" "$mb" \
		"$(awk -v c="$cpu" -v m="$mb" 'BEGIN{printf "%.3f", 1000 * c / (m > 1 ? m : 1)}')" \
		"${threads:-0}" "$wall" "$merge" "$(awk -v m="$merge" -v w="$wall" 'BEGIN{printf "%.1f", (w > 0 ? 100 * m / w : 0)}')" >>"$RAW"
}

for ((r = 1; r <= REPS; r++)); do
	for rate in $RATES; do
		WORK=("${WORK_MATMUL[@]}")
		for who in "${RECORDERS[@]}"; do
			one_run matmul "$rate" "$who" "$r" -- -F "$rate" --call-graph dwarf,8192 -m 8
		done
	done
	for m in $MAXRINGS; do
		for who in "${RECORDERS[@]}"; do
			one_run "matmul-m$m" max "$who" "$r" -- -F max --call-graph dwarf,8192 -m "$m"
		done
	done
	# The machine's sequential write speed on the same file system, as the
	# merge writes: into the page cache, 1 MiB at a time, 512 MB; then 512 MB
	# more into a second file while the first is kept, as the merge writes
	# its output while its inputs hold their pages (with free page reporting
	# on, that memory is what the host took back; the first dd may get
	# pages freed a moment before); then 512 MB more after 3 s idle, when
	# reporting has had time to hand what was freed before back to the
	# host: the memory a merge meets after a recording of a few seconds.
	rm -f "$OUT/dd.out" "$OUT/dd2.out" "$OUT/dd3.out"; sync
	for kind in first kept idle; do
		f=$OUT/dd.out; [ $kind = kept ] && f=$OUT/dd2.out
		[ $kind = idle ] && { f=$OUT/dd3.out; sleep 3; }
		t0=$(date +%s%N)
		dd if=/dev/zero of="$f" bs=1M count=512 status=none
		printf '%d\t%s\t512\t%s\n' "$r" $kind \
			"$(echo "scale=4; ($(date +%s%N) - $t0) / 1000000000" | bc)" >>"$DD"
	done
	rm -f "$OUT/dd.out" "$OUT/dd2.out" "$OUT/dd3.out"
	WORK=("${WORK_SYSCALL[@]}")
	for who in "${RECORDERS[@]}"; do
		one_run syscalls - "$who" "$r" -- -a -e 'raw_syscalls:*' -m 8
	done
done
rate_after=$(cat /proc/sys/kernel/perf_event_max_sample_rate)

awk -F'\t' -v svg="$OUT/loss.svg" "$STATS_AWK"'
function st(key, c, fmt,   n, i, v) { n = cnt[key]; for (i = 1; i <= n; i++) v[i] = val[key, c, i]; return medrange(v, n, fmt) }
function medof(key, c,   n, i, v) { n = cnt[key]; for (i = 1; i <= n; i++) v[i] = val[key, c, i]; return med(v, n) }
NR == 1 { for (i = 5; i <= 16; i++) col[i] = $i; next }
{
	key = $1 SUBSEP $2 SUBSEP $3; n = ++cnt[key]
	for (i = 5; i <= 16; i++) val[key, i, n] = $i
	if (!(($1, $2) in cs)) { cs[$1, $2] = 1; cases[++ncs] = $1 SUBSEP $2 }
	if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
	if (!($3 in rs)) { rs[$3] = 1; rec[++nr] = $3 }
	if ($1 == "matmul" && !($2 in ra)) { ra[$2] = 1; rate[++nra] = $2 }
}
END {
	printf "%-9s %-6s %-22s %-20s %-18s %-22s %-20s %-20s %-18s %-14s %-20s %-10s %-18s %-22s %s\n", "case", "-F", "recorder",
		"samples", "LOST recs", "lost samples", "lost %", "loss metric %", "rec CPU s", "MB", "CPU ms/MB", "threads", "wall s", "merge s", "merge % of wall"
	for (k = 1; k <= nk; k++) {
		split(order[k], p, SUBSEP)
		printf "%-9s %-6s %-22s %-20s %-18s %-22s %-20s %-20s %-18s %-14s %-20s %-10s %-18s %-22s %s\n", p[1], p[2], p[3],
			st(order[k], 5, "%d"), st(order[k], 6, "%d"), st(order[k], 7, "%d"), st(order[k], 8, "%.2f"),
			st(order[k], 9, "%.2f"), st(order[k], 10, "%.2f"), st(order[k], 11, "%d"),
			st(order[k], 12, "%.2f"), st(order[k], 13, "%d"),
			st(order[k], 14, "%.2f"), st(order[k], 15, "%.3f"), st(order[k], 16, "%.1f")
	}
	# The adaptive default against the better fixed layout, per case (medians).
	for (c = 1; c <= ncs; c++) {
		a = cases[c] SUBSEP "precord"; n1 = cases[c] SUBSEP "precord --threads=numa"
		c1 = cases[c] SUBSEP "precord --threads=cpu"
		if (!(a in seen) || !(n1 in seen) || !(c1 in seen)) continue
		split(cases[c], p, SUBSEP)
		best = medof(n1, 8) < medof(c1, 8) ? medof(n1, 8) : medof(c1, 8)
		nm = cases[c] SUBSEP "precord --no-merge"
		printf "adaptive vs fixed: %s -F %s: lost %.2f%% against numa %.2f%%, cpu %.2f%%: %s; threads %s; CPU ms/MB %.2f against numa %.2f%s\n",
			p[1], p[2], medof(a, 8), medof(n1, 8), medof(c1, 8),
			medof(a, 8) <= best + 0.2 ? "within 0.2 points of the better" : "MORE than the better + 0.2 points",
			st(a, 13, "%d"), medof(a, 12), medof(n1, 12),
			nm in seen ? sprintf(", %.2f without the merge (--no-merge)", medof(nm, 12)) : ""
	}
	# SVG: lost % (median) against -F for every recorder, matmul case.
	W = 720; H = 420; L = 60; B = 50; R = 200; T = 20
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"12\">\n", W, H > svg
	printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n" > svg
	printf "<text x=\"%d\" y=\"14\">lost samples %% (median) vs -F, matmul -t 16, dwarf,8192, -m 8</text>\n", L > svg
	for (y = 0; y <= 100; y += 20) {
		yy = H - B - (H - B - T) * y / 100
		printf "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n", L, W - R, yy, yy, L - 6, yy + 4, y > svg
	}
	for (i = 1; i <= nra; i++) {
		xx = L + (W - R - L) * (i - 1) / (nra > 1 ? nra - 1 : 1)
		printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", xx, H - B + 18, rate[i] > svg
	}
	printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">-F (samples/s per CPU)</text>\n", (L + W - R) / 2, H - 10 > svg
	split("#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #7f7f7f #bcbd22 #17becf", colors, " ")
	for (j = 1; j <= nr; j++) {
		pts = ""
		for (i = 1; i <= nra; i++) {
			key = "matmul" SUBSEP rate[i] SUBSEP rec[j]
			if (!(key in seen)) continue
			xx = L + (W - R - L) * (i - 1) / (nra > 1 ? nra - 1 : 1)
			yy = H - B - (H - B - T) * medof(key, 8) / 100
			pts = pts sprintf("%.1f,%.1f ", xx, yy)
			printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", xx, yy, colors[j] > svg
		}
		printf "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", pts, colors[j] > svg
		printf "<text x=\"%d\" y=\"%d\" fill=\"%s\">%s</text>\n", W - R + 10, T + 20 + 18 * j, colors[j], rec[j] > svg
	}
	print "</svg>" > svg
}' "$RAW" | tee "$OUT/summary.txt"
for kind in first kept idle; do
	awk -F'\t' -v kind=$kind 'NR > 1 && $2 == kind { v[++n] = $3 / $4 } END {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j-1] > v[j]; j--) { t = v[j]; v[j] = v[j-1]; v[j-1] = t }
		what = kind == "first" ? "dd, 512 MB into the page cache of the same file system" : \
		       kind == "kept" ? "dd, 512 MB more while the first file is kept (new memory, as the merge writes)" : \
		       "dd, 512 MB more after 3 s idle (memory free page reporting may have given back)"
		if (n) printf "%s: %.0f MB/s [%.0f–%.0f]\n", what, n % 2 ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2, v[1], v[n]
	}' "$DD"
done | tee -a "$OUT/summary.txt"
echo "output in $OUT ($(df -T "$OUT" | awk 'NR==2{print $2}')); $REPS repetitions, recorders alternating"
echo "perf_event_max_sample_rate before: $rate_before, after: $rate_after; plot: $OUT/loss.svg"
echo "free page reporting to the host: $reporting"
echo "kernel writeback during the runs: $writeback"
