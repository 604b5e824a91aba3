# Sourced by tests/integration/event*_match_perf.sh (after lib.sh): -e
# forms recorded by perf record and by precord on the same command line.
#   same ARGS...          both record; the same attrs in `perf evlist -v`
#                         (ids aside: precord sets PERF_SAMPLE_IDENTIFIER on
#                         purpose, README "Differences from perf record"), the
#                         same groups in `perf evlist -g`, the same events in
#                         `perf report --group` (every event, sampled or not),
#                         and `perf script` reads precord's file cleanly
#   same_error ARGS...    both refuse; precord's one line is perf's line
#                         (the one after "Error:"), and no file is left
#   syntax_error ARGS...  both refuse; precord with one line about the event
# Both run with -B: perf 6.1 here aborts in its end-of-run build-id pass
# ("assertion failed at util/build-id.c", "stack smashing detected") about
# every other run without it, and now and then with it, leaving a file with
# no samples; -B leaves every attr as it is, and a perf run that crashed is
# run again (perf_record). `status` is 1 once a case failed.

# Busy in user space, page faults, a context switch: every event of the
# cases fires, but those that cannot here (a breakpoint nobody touches).
WL=(sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; sleep 0.01')
status=0

normalize() {
	sed -E -e 's/\|IDENTIFIER//; s/IDENTIFIER\|//; s/, build_id: 1//' \
	       -e 's/(sample_type: [A-Z_|]*)\|ID([|,])/\1\2/'
}

report_names() {
	perf report --stdio --group --sort comm -i "$1" 2>"$T/report.err" |
		sed -n "s/^# Samples: .* of events\{0,1\} '\(.*\)'$/\1/p"
}

bad() { echo "  ✗ $*"; status=1; }

# perf_record ARGS...: perf record -B into $T/perf.data, again when perf crashed.
perf_record() {
	local try rc
	for try in 1 2 3 4; do
		LIBC_FATAL_STDERR_=1 perf record -B -o "$T/perf.data" "$@" >/dev/null 2>"$T/perf.err"
		rc=$?
		# the crash may leave a status of 0 and a file without its final header
		# or, killed before its header was final, a file that lists no event
		if ! grep -Eq 'assertion failed at util/build-id|stack smashing' "$T/perf.err" &&
		   ! { [ -e "$T/perf.data" ] && perf evlist -i "$T/perf.data" 2>&1 |
			grep -q 'data size field is 0'; } &&
		   ! { [ $rc = 0 ] && [ -z "$(perf evlist -i "$T/perf.data" 2>/dev/null)" ]; }; then
			return $rc
		fi
	done
	return 1
}

# same ARGS...: both record; attrs, groups and names agree; perf script reads it.
same() {
	rm -f "$T/perf.data" "$T/precord.data"
	if ! perf_record -q "$@" -- "${WL[@]}"; then
		bad "perf record $* failed: $(head -3 "$T/perf.err")"; return
	fi
	if ! "$PRECORD" -B -q -o "$T/precord.data" "$@" -- "${WL[@]}" >/dev/null 2>"$T/err"; then
		bad "precord $* failed: $(cat "$T/err")"; return
	fi
	perf evlist -v -i "$T/perf.data" 2>/dev/null | grep -v '^#' | normalize >"$T/a"
	perf evlist -v -i "$T/precord.data" 2>/dev/null | grep -v '^#' | normalize >"$T/b"
	if ! diff -u "$T/a" "$T/b" >"$T/diff"; then
		bad "attrs differ for: $*"; cat "$T/diff"; return
	fi
	perf evlist -g -i "$T/perf.data" >"$T/a" 2>&1
	perf evlist -g -i "$T/precord.data" >"$T/b" 2>&1
	if ! diff -u "$T/a" "$T/b" >"$T/diff"; then
		bad "groups differ for: $*"; cat "$T/diff"; return
	fi
	report_names "$T/perf.data" >"$T/a"
	report_names "$T/precord.data" >"$T/b"
	if ! diff -u "$T/a" "$T/b" >"$T/diff"; then
		bad "perf report's events differ for: $*"; cat "$T/diff" "$T/report.err"; return
	fi
	# no samples at all (a breakpoint nobody touched): perf report says so for both
	[ -s "$T/b" ] && perf_clean "$T/script" "$T/script.err" -- script -i "$T/precord.data"
	note "same: $*"
}

# same_error ARGS...: both refuse; precord says perf's line (after "Error:").
same_error() {
	local want got
	rm -f "$T/perf.data" "$T/precord.data"
	if perf_record "$@" -- true; then
		bad "perf record $* did not fail"; return
	fi
	if "$PRECORD" -B -q -o "$T/precord.data" "$@" -- true >/dev/null 2>"$T/err"; then
		bad "precord $* did not fail"; return
	fi
	want=$(sed -n '/^Error:$/{n;p;q}' "$T/perf.err")
	[ -n "$want" ] || want=$(grep -v '^$' "$T/perf.err" | head -1)
	[ -n "$want" ] || { bad "$*: perf said nothing"; return; }
	got=$(cat "$T/err")
	if [ "$(wc -l <"$T/err")" != 1 ] || [ "${got#precord: "$want"}" = "$got" ]; then
		bad "$*: perf says '$want', precord '$got'"; return
	fi
	[ -s "$T/precord.data" ] && { bad "$*: precord left a file behind"; return; }
	note "same error: $* ($want)"
}

# syntax_error ARGS...: both refuse; precord with one line naming the event.
syntax_error() {
	if perf record -B -q -o "$T/perf.data" "$@" -- true >/dev/null 2>&1; then
		bad "perf record $* did not fail"; return
	fi
	if "$PRECORD" -B -q -o "$T/precord.data" "$@" -- true >/dev/null 2>"$T/err"; then
		bad "precord $* did not fail"; return
	fi
	if [ "$(wc -l <"$T/err")" != 1 ] || ! grep -q "^precord: event '" "$T/err"; then
		bad "$*: not one line about the event: $(cat "$T/err")"; return
	fi
	note "both refuse: $* ($(cat "$T/err"))"
}

