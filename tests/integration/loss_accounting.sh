#!/bin/bash
# Loss is accounted exactly: with rings too small for the rate, precord's
# closing lines give the same lost samples, LOST records and samples that
# perf report finds in the file (the kernel's LOST records kept,
# LOST_SAMPLES written at exit from PERF_FORMAT_LOST).
. "$(dirname "$0")/../lib.sh"

"$PRECORD" -m 2 --call-graph dwarf,4096 -F max -o "$T/perf.data" -- "$MATMUL" -t 4 -n 300 -r 3 \
	>/dev/null 2>"$T/summary" || { cat "$T/summary"; fail "precord failed"; }
cat "$T/summary"
line=$(grep 'Lost [0-9]* samples' "$T/summary") || fail "no loss line although the rings were too small"
lost=$(echo "$line" | sed 's/.*Lost \([0-9]*\) samples.*/\1/')
lrec=$(echo "$line" | sed 's/.* in \([0-9]*\) LOST records.*/\1/')
samples=$(samples_of "$T/summary")

perf report --stats -i "$T/perf.data" >"$T/stats" 2>&1
perf_lrec=$(awk '/^ *LOST events:/ {print $3; exit}' "$T/stats")
perf_samples=$(awk '/^ *SAMPLE events:/ {print $3; exit}' "$T/stats")
perf report --stdio -i "$T/perf.data" 2>/dev/null >"$T/report"
perf_lost=$(sed -n 's/^# Total Lost Samples: \([0-9]*\).*/\1/p' "$T/report")
note "precord: $samples samples, $lost lost in $lrec LOST records"
note "perf:    $perf_samples samples, $perf_lost lost in $perf_lrec LOST records"
[ "$samples" = "$perf_samples" ] || fail "sample counts differ"
[ "$lost" = "$perf_lost" ] || fail "lost sample counts differ"
[ "$lrec" = "$perf_lrec" ] || fail "LOST record counts differ"
exit 0
