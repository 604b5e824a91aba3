#!/bin/bash
# CPUs that cannot be recorded. A CPU where the events fail to open while
# they open on the others is left out, with one line saying which and why,
# and the rest is recorded (the failure is injected with strace into the
# real open of one CPU: on this machine no CPU may be taken offline; the
# multi-node guest's offline case takes one offline during the open). A -C
# list or a --threads mask naming a CPU that does not exist is bad input:
# one line, a non-zero exit, nothing made, an older output left in place.
# So is an open that fails on every CPU. A -C list of CPUs outside this
# process's affinity is recorded, as the kernel and perf record allow.
. "$(dirname "$0")/../lib.sh"
export LC_ALL=C

ncpu=$(nproc --all)
[ "$ncpu" -ge 2 ] || skip "needs 2 CPUs"
# An idle CPU need not take cpu-clock samples: a light spinner on every CPU
# gives each recorded CPU something to sample.
SPIN=${SPIN:-$TOP/build/tests/spin}
[ -x "$SPIN" ] || fail "no spinner at $SPIN (run make)"
"$SPIN" 0 20 & spinner=$!
trap 'kill "$spinner" 2>/dev/null; wait "$spinner" 2>/dev/null; cleanup_test' EXIT

# sample_cpus FILE: the CPUs FILE has samples from, as numbers
sample_cpus() {
	perf script -F cpu -i "$1" 2>/dev/null | tr -d ' []' | sed 's/^0*\(.\)/\1/' | sort -un | xargs
}

# untouched NAME: the older recording at $T/old.data is as it was, nothing beside it
untouched() {
	[ "$(cat "$T/old.data")" = "an earlier recording" ] || fail "$1: the older output was changed"
	[ "$(ls "$T" | grep -c '^old\.data')" -eq 1 ] || { ls "$T"; fail "$1: something was made beside the output"; }
}

# bad NAME PATTERN -- precord args: one line matching PATTERN, non-zero, nothing made
bad() {
	local name=$1 pat=$2 rc
	shift 3
	printf 'an earlier recording\n' >"$T/old.data"
	"$PRECORD" "$@" -o "$T/old.data" -- true >"$T/out" 2>"$T/err"
	rc=$?
	[ $rc -ne 0 ] || fail "$name: exit status 0"
	[ "$(grep -c . "$T/err")" -eq 1 ] || { cat "$T/err"; fail "$name: not one line on stderr"; }
	grep -q -- "$pat" "$T/err" || { cat "$T/err"; fail "$name: no '$pat' in the message"; }
	untouched "$name"
	note "$name: exit $rc, $(cat "$T/err")"
}

cpus="0-$((ncpu - 1))"
for layout in "" --no-threads --threads=cpu; do
	bad "-C 999 $layout" "^precord: CPU 999 of -C does not exist: this machine's CPUs are $cpus; fix the -C list$" \
		-- -C 999 $layout -e cpu-clock
	bad "-C 0,999 $layout" "^precord: CPU 999 of -C does not exist" -- -C 0,999 $layout -e cpu-clock
done
bad "--threads mask of CPU 999" "^precord: .*CPU 999 does not exist" -- -a --threads=0/0:999/999 -e cpu-clock

# Events that open nowhere (every perf_event_open fails): an error, and the
# older output stays where it is (perf 6.1 has moved it to .old by then).
command -v strace >/dev/null || skip "no strace to inject a failed open"
for layout in "" --no-threads --threads=cpu; do
	printf 'an earlier recording\n' >"$T/old.data"
	strace -f -qq -o /dev/null -e trace=perf_event_open -e inject=perf_event_open:error=ENODEV:when=1+ \
		"$PRECORD" -a $layout -e cpu-clock -o "$T/old.data" -- true >"$T/out" 2>"$T/err" &&
		fail "every open failing $layout: exit status 0"
	[ "$(grep -c . "$T/err")" -eq 1 ] || { cat "$T/err"; fail "every open failing $layout: not one line"; }
	untouched "every open failing $layout"
done
note "an open failing on every CPU: one line, the older output in place"

# One CPU refuses: -C 0,1 with one event and the tracking dummy is 4
# descriptors, opened in order on the main thread (CPU 0's two, then
# CPU 1's), so the third perf_event_open is cpu-clock on CPU 1.
for layout in "" --no-threads --threads=cpu; do
	name=skip${layout//[-=]/_}
	strace -f -qq -o "$T/$name.strace" -e trace=perf_event_open \
		-e inject=perf_event_open:error=ENODEV:when=3 \
		"$PRECORD" -C 0,1 $layout -e cpu-clock -F 1000 -o "$T/$name.data" -- sleep 0.5 \
		>"$T/$name.out" 2>"$T/$name.err" || { cat "$T/$name.err"; fail "$name: exit status $?"; }
	grep -q 'cpu_clock.*, -1, 1, .*INJECTED\|CPU_CLOCK.*, -1, 1, .*INJECTED' "$T/$name.strace" ||
		{ grep INJECTED "$T/$name.strace"; fail "$name: the failure was not injected into CPU 1's open"; }
	want="^precord: warning: cannot record CPU 1 (No such device); recording CPU 0$"
	[ "$(grep -c "^precord: " "$T/$name.err")" -eq 1 ] && grep -q "$want" "$T/$name.err" ||
		{ cat "$T/$name.err"; fail "$name: want one line '$want'"; }
	perf_clean "$T/$name.stats" "$T/$name.perr" -- report --stats -i "$T/$name.data"
	got=$(sample_cpus "$T/$name.data")
	[ "$got" = 0 ] || fail "$name: samples from CPUs '$got', want CPU 0 only"
	note "$name: $(grep '^precord: ' "$T/$name.err"); samples from CPU $got"
done

# -C of CPUs this process may not run on: system-wide events need no
# affinity, so they are recorded, as perf records them.
last=$((ncpu - 1))
taskset -c "$last" "$PRECORD" -C 0 -e cpu-clock -F 1000 -o "$T/aff.data" -- sleep 0.5 \
	>"$T/aff.out" 2>"$T/aff.err" || { cat "$T/aff.err"; fail "taskset -c $last precord -C 0: exit $?"; }
perf_clean "$T/aff.stats" "$T/aff.perr" -- report --stats -i "$T/aff.data"
got=$(sample_cpus "$T/aff.data")
[ "$got" = 0 ] || fail "taskset -c $last precord -C 0: samples from CPUs '$got', want 0"
note "taskset -c $last precord -C 0: CPU 0 recorded"
exit 0
