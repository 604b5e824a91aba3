#!/bin/bash
# perf record's output-control options, each run by perf record and by
# precord on the same command line: --max-size stops the recording with
# perf's line, --timestamp-filename names the file FILE.<timestamp> and
# says Dump, --timestamp-boundary leaves the first and last sample times in
# the header, --switch-output-event switches at each occurrence,
# --tail-synthesize writes the task records at the end where perf report
# still resolves the samples, --no-buffering sets perf's wakeup, and
# --affinity picks the layout (refused with --threads, as perf refuses it).
# perf runs with -B: perf 6.1 here aborts in its end-of-run build-id pass
# at times ("stack smashing detected"), leaving nothing to compare.
. "$(dirname "$0")/../lib.sh"
ensure_tracefs

BUSY=
trap '[ -z "$BUSY" ] || kill $BUSY 2>/dev/null; cleanup_test' EXIT
cd "$T" || fail "no scratch directory"
LOOP=(sh -c 'i=0; while [ $i -lt 600000 ]; do i=$((i + 1)); done')

# ---- --max-size -------------------------------------------------------------
# both stop a workload still running with SIGTERM and exit as it did (perf
# re-raises it): 143, or 0 when it was done by then
(perf record -B -q --max-size=20K -m 4 -e cpu-clock -F 10000 -o perf.data -- "${LOOP[@]}" \
	>/dev/null 2>perr); prc=$?
"$PRECORD" record --max-size=20K -m 4 -e cpu-clock -F 10000 -o max.data -- "${LOOP[@]}" \
	>/dev/null 2>err; rc=$?
[ $rc = 143 ] || [ $rc = 0 ] || { cat err; fail "--max-size: exit status $rc (perf's: $prc)"; }
line='^\[ perf record: perf size limit reached \([0-9]+ KB\), stopping session \]$'
grep -Eq "$line" err || { cat err; fail "--max-size: no 'size limit reached' line"; }
kb=$(sed -n 's/.*limit reached (\([0-9]*\) KB).*/\1/p' err)
[ "$kb" -ge 20 ] || fail "--max-size: stopped at $kb KB, below the limit"
"$PRECORD" record -m 4 -e cpu-clock -F 10000 -o full.data -- "${LOOP[@]}" >/dev/null 2>&1 ||
	fail "precord without --max-size failed"
[ "$(stat -c %s max.data)" -lt "$(stat -c %s full.data)" ] ||
	fail "--max-size: the file is as big as one recorded without it"
perf report -i max.data --stats >/dev/null 2>&1 || fail "--max-size: perf cannot read the file"
note "--max-size=20K: stopped at $kb KB with perf's line, exit $rc (perf: $prc)"
for v in 10 10k 10KB; do
	rm -f bad.data
	"$PRECORD" --max-size=$v -o bad.data -- true 2>err && fail "--max-size=$v accepted"
	perf record --max-size=$v -o bad.data -- true >/dev/null 2>&1 && fail "perf took --max-size=$v"
	[ -e bad.data ] && fail "--max-size=$v left a file"
done
note "--max-size without a B/K/M/G tag refused, as perf refuses it"

# ---- --timestamp-filename ---------------------------------------------------
for layout in "" --no-threads; do
	rm -rf ts.data*
	# shellcheck disable=SC2086
	"$PRECORD" record $layout --timestamp-filename -e cpu-clock -o ts.data -- true \
		>/dev/null 2>err || { cat err; fail "--timestamp-filename $layout failed"; }
	f=$(ls -d ts.data.* 2>/dev/null)
	[[ "$f" =~ ^ts\.data\.[0-9]{16}$ ]] || fail "--timestamp-filename $layout: wrote '$f'"
	[ -e ts.data ] && fail "--timestamp-filename $layout: ts.data is left too"
	grep -qxF "[ perf record: Dump $f ]" err || { cat err; fail "no Dump line for $f"; }
	perf report -i "$f" --stats >/dev/null 2>&1 || fail "perf cannot read $f"
done
perf record -B -q --timestamp-filename -e cpu-clock -o pts.data -- true >/dev/null 2>&1
ls pts.data.* 2>/dev/null | grep -Eq '^pts\.data\.[0-9]{16}$' || fail "perf names it otherwise"
note "--timestamp-filename: FILE.<16 digits> as perf, with the Dump line"

# ---- --timestamp-boundary ---------------------------------------------------
for opts in "" "-B" "--no-threads"; do
	# shellcheck disable=SC2086
	"$PRECORD" -q $opts --timestamp-boundary -e cpu-clock -o tb.data -- "${LOOP[@]}" \
		>/dev/null 2>&1 || fail "--timestamp-boundary $opts failed"
	first=$(perf report -i tb.data --header-only 2>/dev/null | sed -n 's/^# time of first sample : //p')
	last=$(perf report -i tb.data --header-only 2>/dev/null | sed -n 's/^# time of last sample : //p')
	times=$(perf script -i tb.data -F time 2>/dev/null | tr -d ' :' | sort -n)
	[ "$first" = "$(head -1 <<<"$times")" ] && [ "$last" = "$(tail -1 <<<"$times")" ] ||
		fail "--timestamp-boundary $opts: header says $first..$last, samples span $(head -1 <<<"$times")..$(tail -1 <<<"$times")"
done
note "--timestamp-boundary: the header's first/last sample are the samples' (also with -B)"

# ---- --switch-output-event --------------------------------------------------
EV=syscalls:sys_enter_clock_nanosleep
[ -d /sys/kernel/tracing/events/syscalls/sys_enter_clock_nanosleep ] ||
	skip "no $EV tracepoint"
SLEEPS=(sh -c 'sleep 0.3; sleep 0.3; sleep 0.3')
rm -rf pe.data* se.data*
perf record -B -q --switch-output-event=$EV -e cpu-clock -o pe.data -- "${SLEEPS[@]}" >/dev/null 2>&1
"$PRECORD" record --switch-output-event=$EV -e cpu-clock -o se.data -- "${SLEEPS[@]}" \
	>/dev/null 2>err || { cat err; fail "--switch-output-event failed"; }
np=$(ls -d pe.data.* | wc -l); ns=$(ls -d se.data.* | wc -l)
[ "$ns" -ge 4 ] || { cat err; fail "--switch-output-event: $ns files for 3 sleeps (perf: $np)"; }
[ "$(grep -c '^\[ perf record: Dump se.data.' err)" = "$ns" ] || fail "a Dump line per file"
for f in se.data.*; do
	perf report -i "$f" --stats >/dev/null 2>&1 || fail "perf cannot read $f"
done
note "--switch-output-event=$EV: $ns files (perf: $np)"
rm -f bad.data
"$PRECORD" --switch-output-event=foo:bar -o bad.data -- true 2>err && fail "a bad event accepted"
[ "$(wc -l <err)" = 1 ] && grep -q 'switch-output-event' err || { cat err; fail "not one line"; }
[ -e bad.data ] && fail "--switch-output-event=foo:bar left a file"
note "a bad --switch-output-event refused in one line: $(cut -c1-70 err)"

# ---- --tail-synthesize ------------------------------------------------------
sh -c 'while :; do :; done' & BUSY=$!
sleep 0.2
# the file offset of the first record matching $2 (perf report -D's second column)
first_at() {
	perf report -D -i "$1" 2>/dev/null | grep -- "$2" |
		while read -r _ off _; do printf '%d\n' "$off"; done | sort -n | head -1
}
for layout in "" --no-threads; do
	# shellcheck disable=SC2086
	"$PRECORD" -q $layout --tail-synthesize -e cpu-clock -p $BUSY -o tail.data -- sleep 1 \
		>/dev/null 2>&1 || fail "--tail-synthesize $layout failed"
	dash=$(perf report -i tail.data --stdio --sort dso 2>/dev/null |
		awk '$2 == "dash" || $2 == "bash" { sub("%", "", $1); print int($1) }')
	[ "${dash:-0}" -ge 50 ] || fail "--tail-synthesize $layout: the shell's samples unresolved (${dash:-0}%)"
	if [ -n "$layout" ]; then
		# one file: the task's MMAP2 records come after its samples
		s=$(first_at tail.data 'PERF_RECORD_SAMPLE'); m=$(first_at tail.data "PERF_RECORD_MMAP2 $BUSY/")
		[ -n "$s" ] && [ -n "$m" ] && [ "$m" -gt "$s" ] ||
			fail "--tail-synthesize --no-threads: MMAP2 at ${m:-none}, first sample at ${s:-none}"
		perf report -D -i tail.data 2>/dev/null | grep -q FINISHED_ROUND &&
			fail "--tail-synthesize --no-threads: FINISHED_ROUND records in the file"
	fi
done
kill $BUSY; wait $BUSY 2>/dev/null; BUSY=
note "--tail-synthesize: the maps at the end, perf report resolves ${dash}% to the shell"

# ---- --no-buffering ---------------------------------------------------------
perf record -B -q --no-buffering -e cpu-clock -e sched:sched_switch -o nb-perf.data -- true >/dev/null 2>&1
"$PRECORD" -q --no-buffering -e cpu-clock -e sched:sched_switch -o nb.data -- true >/dev/null 2>&1 ||
	fail "--no-buffering failed"
wp=$(perf evlist -v -i nb-perf.data 2>/dev/null | grep -c 'wakeup_events, wakeup_watermark }: 1')
ws=$(perf evlist -v -i nb.data 2>/dev/null | grep -c 'wakeup_events, wakeup_watermark }: 1')
[ "$ws" = 2 ] && [ "$wp" = "$ws" ] || fail "--no-buffering: wakeup_events 1 on $ws events (perf: $wp)"
note "--no-buffering: wakeup_events 1 on every event, as perf"

# ---- --affinity -------------------------------------------------------------
ncpu=$(nproc)
for v in cpu:$ncpu node:$(ls -d /sys/devices/system/node/node[0-9]* | wc -l); do
	"$PRECORD" record -a --affinity=${v%%:*} -e cpu-clock -o aff.data -- sleep 0.2 \
		>/dev/null 2>err || { cat err; fail "--affinity=${v%%:*} failed"; }
	n=$(grep -c '^\[ precord: prec-rd/[0-9]*: CPUs' err)
	[ "$n" = "${v#*:}" ] || { cat err; fail "--affinity=${v%%:*}: $n streaming threads, want ${v#*:}"; }
done
note "--affinity=cpu: a thread per CPU; node: a thread per node"
rm -f aff.data
"$PRECORD" --affinity=cpu --threads -o aff.data -- true 2>err && fail "--affinity with --threads accepted"
perf record --affinity=cpu --threads -o aff.data -- true 2>perr >/dev/null
grep -qF -- "--affinity option is mutually exclusive to parallel streaming mode" perr ||
	fail "perf says otherwise: $(cat perr)"
grep -qF -- "--affinity option is mutually exclusive to parallel streaming mode" err || fail "$(cat err)"
[ -e aff.data ] && fail "--affinity --threads left a file"
"$PRECORD" -q --affinity=bogus -e cpu-clock -o aff.data -- true >/dev/null 2>&1 ||
	fail "--affinity=bogus refused; perf ignores it"
note "--affinity with --threads refused in perf's words; another value ignored, as perf"
exit 0
