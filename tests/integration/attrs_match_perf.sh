#!/bin/bash
# The same command line recorded by perf record and by precord gives the same
# attrs in `perf evlist -v`, apart from what precord sets on purpose
# (README, "Differences from perf record"): PERF_SAMPLE_IDENTIFIER and
# build_id on every recording.
. "$(dirname "$0")/../lib.sh"
ensure_tracefs

normalize() {
	sed -e 's/|IDENTIFIER//; s/IDENTIFIER|//; s/, build_id: 1//' \
	    -e 's/sample_type: IP|TID|TIME|ID|CPU/sample_type: IP|TID|TIME|CPU/'
}
status=0
while IFS= read -r args; do
	[ -n "$args" ] || continue
	# -B: perf 6.1's end-of-run build-id pass crashes now and then ("stack
	# smashing detected" in util/build-id.c); it sets no attr bit
	# shellcheck disable=SC2086
	perf record -B -q -o "$T/perf.data" $args -- true >/dev/null 2>&1 || fail "perf record $args failed"
	# shellcheck disable=SC2086
	"$PRECORD" -q -o "$T/precord.data" $args -- true >/dev/null 2>"$T/err" || { cat "$T/err"; fail "precord $args failed"; }
	perf evlist -v -i "$T/perf.data" 2>/dev/null | grep -v '^#' | normalize >"$T/a"
	perf evlist -v -i "$T/precord.data" 2>/dev/null | grep -v '^#' | normalize >"$T/b"
	if diff -u "$T/a" "$T/b" >"$T/diff"; then
		note "same attrs: $args"
	else
		echo "attrs differ for: $args"; cat "$T/diff"; status=1
	fi
done <<'LIST'
-e cpu-clock
-e cpu-clock:u -c 10000 --switch-events
-e task-clock -F 999
-a -e cpu-clock,task-clock
-a -e sched:sched_switch
-g -e cpu-clock
--call-graph dwarf -e cpu-clock
-C 0 -e cpu-clock -k monotonic
-e page-faults --no-inherit
-a -g -e cpu-clock
-a --call-graph dwarf -e cpu-clock
--call-graph fp,5 -e cpu-clock
-a --call-graph fp,5 -e cpu-clock
-a -e cpu-clock -F 999
-a -e cpu-clock -c 5000
-a -e sched:sched_switch -c 7
-a -e sched:sched_switch -F 99
LIST
[ $status = 0 ] || fail "attrs differ from perf's"
exit 0
