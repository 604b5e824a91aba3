#!/bin/bash
# `precord report --loss` gives perf's own counts on files from both
# recorders: with rings too small for the rate (so both lose), the samples,
# LOST records and lost samples it finds are perf report's (--stats, the
# "# Total Lost Samples:" header line and its "lost N%" warning), the LOST
# records' sum is what perf script --show-lost-events prints, the per-CPU
# rows add up to the totals (and, for -a, match perf script's CPUs), and the
# data loss metric is a fraction. Inputs: perf's file, precord's file, a perf
# --threads directory (data + data.N), and perf -z (COMPRESSED records).
. "$(dirname "$0")/../lib.sh"

LOSSY=(-m 2 --call-graph dwarf,4096 -F max)
WORK=("$MATMUL" -t 4 -n 300 -r 3)

record_perf() {	# OUT perf-args...
	local out=$1; shift
	perf record -q "$@" "${LOSSY[@]}" -o "$out" -- "${WORK[@]}" >/dev/null 2>"$T/rec.err" ||
		{ cat "$T/rec.err"; fail "perf record $* failed"; }
}

# field NAME REPORT: one figure from the report's totals.
field() {
	case $1 in
	samples) sed -n 's/^\[ precord: .*: \([0-9]*\) samples, [0-9]* lost (.*/\1/p' "$2" | head -1 ;;
	lost)    sed -n 's/^\[ precord: .*: [0-9]* samples, \([0-9]*\) lost (.*/\1/p' "$2" | head -1 ;;
	pct)     sed -n 's/^\[ precord: .* lost (\([0-9.]*\)% of .*/\1/p' "$2" | head -1 ;;
	lrec)    sed -n 's/^\[ precord: \([0-9]*\) LOST records dropped.*/\1/p' "$2" ;;
	lsum)    sed -n 's/^\[ precord: [0-9]* LOST records dropped \([0-9]*\) records.*/\1/p' "$2" ;;
	lsamp)   sed -n 's/.*LOST_SAMPLES count \([0-9]*\) lost samples.*/\1/p' "$2" ;;
	metric)  sed -n 's/^\[ precord: Data loss metric \([0-9.]*\)%: .*/\1/p' "$2" ;;
	window)  sed -n 's/^\[ precord: Data loss metric over 10 ms windows \([0-9.]*\)%.*/\1/p' "$2" ;;
	esac
}

# check_against_perf LABEL INPUT: the report of INPUT against perf's view of it.
check_against_perf() {
	local label=$1 in=$2 rep=$T/$1.report
	"$PRECORD" report --loss "$in" >"$rep" 2>"$T/report.err" ||
		{ cat "$T/report.err"; fail "$label: precord report --loss exited non-zero"; }
	[ -s "$T/report.err" ] && { cat "$T/report.err"; fail "$label: precord report printed errors"; }
	sed 's/^/    /' "$rep"

	perf report --stats -i "$in" >"$T/stats" 2>&1
	local p_samples p_lrec p_lost p_lsum p_pct
	p_samples=$(awk '/^ *SAMPLE events:/ {print $3; exit}' "$T/stats")
	p_lrec=$(awk '/^ *LOST events:/ {print $3; exit}' "$T/stats")
	LC_ALL=C perf report --stdio -i "$in" >"$T/perf-stdio" 2>"$T/perf-stdio.err"
	p_lost=$(sed -n 's/^# Total Lost Samples: \([0-9]*\).*/\1/p' "$T/perf-stdio" | head -1)
	p_pct=$(sed -n 's/.*Processed [0-9]* samples and lost \([0-9.]*\)%.*/\1/p' "$T/perf-stdio.err")
	p_lsum=$(perf script --show-lost-events -F time -i "$in" 2>/dev/null |
		 awk '/PERF_RECORD_LOST lost/ {s += $NF} END {print s + 0}')

	local samples lrec lost lsum lsamp pct metric window
	samples=$(field samples "$rep"); lrec=$(field lrec "$rep"); lost=$(field lost "$rep")
	lsum=$(field lsum "$rep"); lsamp=$(field lsamp "$rep"); pct=$(field pct "$rep")
	metric=$(field metric "$rep"); window=$(field window "$rep")
	note "$label: precord report: $samples samples, $lrec LOST records (sum $lsum), $lsamp lost samples, $pct% lost, metric $metric% / windows $window%"
	note "$label: perf:           $p_samples samples, ${p_lrec:-0} LOST records (sum $p_lsum), $p_lost lost samples, ${p_pct:-?}% lost"
	[ -n "$samples" ] && [ "$samples" = "$p_samples" ] || fail "$label: samples differ from perf report --stats"
	[ "$lrec" = "${p_lrec:-0}" ] || fail "$label: LOST record counts differ from perf report --stats"
	[ "$lsamp" = "${p_lost:-0}" ] || fail "$label: lost samples differ from perf's Total Lost Samples"
	[ "$lsum" = "$p_lsum" ] || fail "$label: the LOST records' sum differs from perf script's"
	[ "$lost" = "$lsamp" ] || fail "$label: the lost fraction does not count LOST_SAMPLES"
	case $label in
	perf*)	[ "$lrec" -gt 0 ] || fail "$label: no LOST records although the rings were too small" ;;
	esac
	if [ -n "$p_pct" ]; then
		[ "$pct" = "$p_pct" ] || fail "$label: lost $pct%, perf says $p_pct%"
	fi
	# A fraction, and 0 exactly when nothing was lost.
	awk -v m="$metric" -v w="$window" -v n="$lrec" 'BEGIN {
		if (n == 0) exit !(m == 0 && w == 0)
		exit !(m > 0 && m <= 100 && w > 0 && w <= 100) }' ||
		fail "$label: data loss metric $metric% / $window% with $lrec LOST records"
	# The per-CPU rows add up to the totals.
	awk '/^\[ precord: +-?[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ / { s += $4; r += $5; l += $6; q += $7 }
	     END { print s, r, l, q }' "$rep" >"$T/rows"
	[ "$(cat "$T/rows")" = "$samples $lrec $lsum $lsamp" ] ||
		fail "$label: per-CPU rows ($(cat "$T/rows")) do not add up to the totals"
}

# perf's default recording: no CPU in the samples, one row (cpu -1).
record_perf "$T/perf.data"
check_against_perf perf "$T/perf.data"
grep -q '^\[ precord:   -1 ' "$T/perf.report" || fail "perf's default file should give a cpu -1 row"

# precord: ids in every record, ID_INDEX gives the CPUs.
"$PRECORD" "${LOSSY[@]}" -o "$T/precord.data" -- "${WORK[@]}" >/dev/null 2>"$T/rec.err" ||
	{ cat "$T/rec.err"; fail "precord failed"; }
check_against_perf precord "$T/precord.data"
grep -q '^\[ precord:    0 ' "$T/precord.report" && grep -q '^\[ precord:    1 ' "$T/precord.report" ||
	fail "precord's file should give rows for CPU 0 and 1 (ID_INDEX)"

# perf -a: CPU in every sample; the rows match perf script's CPUs.
record_perf "$T/perf-a.data" -a
check_against_perf perf-a "$T/perf-a.data"
perf script -F cpu -i "$T/perf-a.data" 2>/dev/null | tr -d '[] ' | sort -n | uniq -c |
	awk '{ printf "%d %d\n", $2, $1 }' >"$T/cpus.perf"
awk '/^\[ precord: +[0-9]+ +[0-9]+ +[0-9]+ / && $4 > 0 { printf "%d %d\n", $3, $4 }' \
	"$T/perf-a.report" >"$T/cpus.report"
diff -u "$T/cpus.perf" "$T/cpus.report" || fail "perf-a: per-CPU samples differ from perf script -F cpu"

# perf --threads: a directory, data + data.N.
record_perf "$T/perf-dir.data" --threads
[ -d "$T/perf-dir.data" ] && ls "$T/perf-dir.data"/data.* >/dev/null 2>&1 ||
	fail "perf --threads did not write a directory"
check_against_perf perf-dir "$T/perf-dir.data"

# perf -z: PERF_RECORD_COMPRESSED records.
record_perf "$T/perf-z.data" -z
check_against_perf perf-z "$T/perf-z.data"

# --svg: the loss timeline of a recording with known loss opens (rsvg-convert
# renders it) and draws a row per CPU row of the report and a red stretch for
# each CPU that lost records.
"$PRECORD" report --loss --svg "$T/loss.svg" "$T/perf-a.data" >"$T/svg.report" 2>"$T/svg.err" ||
	{ cat "$T/svg.err"; fail "report --loss --svg failed"; }
rsvg-convert -o "$T/loss.png" "$T/loss.svg" 2>"$T/rsvg.err" && [ -s "$T/loss.png" ] ||
	{ cat "$T/rsvg.err"; fail "the loss timeline does not render"; }
rows=$(grep -c '^\[ precord: \+-\?[0-9]\+ \+[0-9]\+ \+[0-9]\+ ' "$T/svg.report")
lossy=$(awk '/^\[ precord: +-?[0-9]+ +[0-9]+ +[0-9]+ / && $5 > 0' "$T/svg.report" | wc -l)
drawn=$(grep -c '>cpu [0-9]*</text>\|>no cpu</text>' "$T/loss.svg")
red=$(grep -o '<title>cpu [0-9]*:' "$T/loss.svg" | sort -u | wc -l)
note "svg: $drawn rows for $rows CPU rows, red on $red CPUs of the $lossy with LOST records"
[ "$drawn" = "$rows" ] || fail "the timeline draws $drawn rows for $rows CPUs"
[ "$red" = "$lossy" ] || fail "the timeline shows loss on $red CPUs where $lossy lost records"

# Errors: one line each, exit non-zero, the good file still reported.
echo "not a perf file" >"$T/junk"
"$PRECORD" report --loss "$T/junk" "$T/nonexistent" "$T/perf.data" >"$T/out" 2>"$T/err" &&
	fail "report --loss on a bad file exited 0"
cat "$T/err"
[ "$(wc -l <"$T/err")" = 2 ] || fail "expected two error lines"
grep -qx "precord: '$T/junk' is not a perf.data file (bad magic)" "$T/err" || fail "no bad magic error"
grep -qx "precord: cannot open '$T/nonexistent': No such file or directory" "$T/err" ||
	fail "no missing-file error"
grep -q 'samples, ' "$T/out" || fail "the good file was not reported"
exit 0
