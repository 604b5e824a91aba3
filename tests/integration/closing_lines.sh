#!/bin/bash
# The closing lines: run as `precord record …` (the drop-in form of
# `perf record …`), the lines perf record prints are perf's word for word,
# for the scripts that read them; run as `precord …` they carry precord's
# own label. Each file reads in perf with the count the line gives.
. "$(dirname "$0")/../lib.sh"

NUM='[0-9]+\.[0-9]{3}'
"$PRECORD" record -o "$T/r.data" -- "$MATMUL" -n 200 >/dev/null 2>"$T/r.err" ||
	{ cat "$T/r.err"; fail "precord record failed"; }
cat "$T/r.err"
grep -Eqx "\[ perf record: Woken up [0-9]+ times to write data \]" "$T/r.err" ||
	fail "no perf 'Woken up' line as 'precord record'"
grep -Eqx "\[ perf record: Captured and wrote $NUM MB $T/r.data \([0-9]+ samples\) \]" "$T/r.err" ||
	fail "no perf 'Captured and wrote' line as 'precord record'"
n=$(samples_of "$T/r.err")
perf_clean "$T/stats" "$T/stats.err" -- report --stats -i "$T/r.data"
[ "$(awk '/^ *SAMPLE events:/ {print $3; exit}' "$T/stats")" = "$n" ] ||
	fail "the closing line's $n samples are not perf report's"

"$PRECORD" record -z -o "$T/z.data" -- "$MATMUL" -n 200 >/dev/null 2>"$T/z.err" ||
	{ cat "$T/z.err"; fail "precord record -z failed"; }
grep -Eqx "\[ perf record: Captured and wrote $NUM MB $T/z.data \([0-9]+ samples\), compressed \(original $NUM MB, ratio is $NUM\) \]" "$T/z.err" ||
	{ cat "$T/z.err"; fail "no perf 'compressed' closing line as 'precord record -z'"; }

"$PRECORD" -o "$T/p.data" -- true 2>"$T/p.err" || { cat "$T/p.err"; fail "precord failed"; }
grep -Eqx "\[ precord: Captured and wrote $NUM MB $T/p.data \([0-9]+ samples\) \]" "$T/p.err" ||
	{ cat "$T/p.err"; fail "no precord closing line as 'precord'"; }
grep -q 'perf record:' "$T/p.err" && fail "perf's label as 'precord'"
exit 0
