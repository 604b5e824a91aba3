#!/bin/bash
# perf record's options for whom to record and for what this machine lacks
# (a hardware PMU with branch stacks, an AUX area PMU, perf's BPF skeleton):
# -u, -G, --exclude-perf, -b/-j, -S, --aux-sample, -m DATA,AUX, --off-cpu,
# --clang-path, --clang-opt. Each is recorded by perf record and by precord
# on the same command line: the same attrs where both record, the option
# visibly at work in precord's file (a check that fails if it were
# ignored), and where perf refuses, precord refuses too, in one line, with
# a non-zero exit and no file.
. "$(dirname "$0")/../lib.sh"
ensure_tracefs

P="$T/p.data"
status=0

# perf evlist -v with what precord adds on purpose taken out: IDENTIFIER
# and ID in sample_type, build_id (README, "How it differs from perf record").
evlist_norm() {
	perf evlist -v -i "$1" 2>/dev/null | grep -v '^#' |
		sed -e ':a' -e 's/\(sample_type: [A-Z_|]*\)|IDENTIFIER/\1/; ta' \
		    -e ':b' -e 's/\(sample_type: [A-Z_|]*\)|ID\([|,]\)/\1\2/; tb' \
		    -e 's/, build_id: 1//'
}

# same_attrs ARGS... -- CMD: both record; their attrs compare equal.
same_attrs() {
	rm -f "$T/perf.data" "$P"
	perf record -B -q -o "$T/perf.data" "$@" >/dev/null 2>"$T/perr" ||
		{ cat "$T/perr"; fail "perf record $* failed"; }
	"$PRECORD" -q -o "$P" "$@" >/dev/null 2>"$T/err" || { cat "$T/err"; fail "precord $* failed"; }
	evlist_norm "$T/perf.data" >"$T/a"
	evlist_norm "$P" >"$T/b"
	if diff -u "$T/a" "$T/b" >"$T/diff"; then
		note "same attrs: $*"
	else
		echo "attrs differ for: $*"; cat "$T/diff"; status=1
	fi
}

# refused WORDS ARGS...: both refuse (perf with any non-zero status); precord
# says WORDS in one line and leaves no file.
refused() {
	local words=$1; shift
	rm -f "$P"
	perf record -B -q -o "$T/perf.data" "$@" >/dev/null 2>&1 && fail "perf took $*"
	"$PRECORD" -o "$P" "$@" >/dev/null 2>"$T/err" && fail "precord took $*"
	grep -qF -- "$words" "$T/err" || { cat "$T/err"; fail "precord $*: not '$words'"; }
	[ "$(wc -l <"$T/err")" = 1 ] || { cat "$T/err"; fail "precord $*: more than one line"; }
	[ -e "$P" ] && fail "precord $*: left a file"
	note "refused as perf: $* ($(cut -c1-70 "$T/err"))"
}

rec() { rm -f "$P"; "$PRECORD" -q -o "$P" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "precord $* failed"; }; }
pids_of() { perf script -i "$P" -F pid,event 2>/dev/null | awk -v e="$1" '$2 == e":" {print $1}' | sort -u | tr '\n' ' '; }

# What the cases start in the background goes, whichever way the test ends.
trap 'stop_busy; cleanup_test' EXIT
busy() { sh -c 'while :; do :; done' & BUSY+=($!); }

# ---- -b, -j: BRANCH_STACK with perf's filter bits -----------------------------
# A dummy takes the filter without sampling branches, so both record it.
same_attrs -a -b -e dummy -- sleep 0.1
same_attrs -a -j any_call,u -e dummy -- sleep 0.1
same_attrs -a -j save_type,priv,k -e dummy -- sleep 0.1
perf evlist -v -i "$P" | grep -q 'branch_sample_type: KERNEL|TYPE_SAVE|PRIV_SAVE' ||
	fail "-j save_type,priv,k: not in branch_sample_type"
# No PMU here samples branches: the open fails as perf's does.
refused "cpu-clock: PMU Hardware or event type doesn't support branch stack sampling." \
	-e cpu-clock -j any,u -- true
refused "doesn't support branch stack sampling." -b -- true
refused "unknown branch filter hw_index, check man page" -j hw_index -- true
refused "unknown branch filter no_cycles, check man page" -j any,no_cycles -- true
refused "Can't use --branch-any (-b) with --branch-filter (-j)" -b -j any -- true

# ---- -u: the user's processes at the start ------------------------------------
USER_NAME=nobody
if id -u "$USER_NAME" >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	uid=$(id -u "$USER_NAME")
	setpriv --reuid="$uid" --regid="$(id -g "$USER_NAME")" --clear-groups \
		sh -c 'while :; do :; done' & BUSY+=($!); theirs=$!
	busy; ours=$!
	sleep 0.2
	same_attrs -e cpu-clock -u "$USER_NAME" -- sleep 0.2
	rec -e cpu-clock -u "$USER_NAME" -- sleep 0.5
	got=$(pids_of cpu-clock)
	[ "$got" = "$theirs " ] || fail "-u $USER_NAME: samples of pids '$got', want only $theirs (not $ours)"
	rec -e cpu-clock -u "$uid" -- sleep 0.3
	[ "$(pids_of cpu-clock)" = "$theirs " ] || fail "-u $uid: not the user's process alone"
	note "-u $USER_NAME and -u $uid: samples of $theirs only"
	"$PRECORD" -o "$P" -u "$USER_NAME" -a -e cpu-clock -- sleep 0.1 >/dev/null 2>"$T/err" ||
		{ cat "$T/err"; fail "-u -a failed"; }
	grep -q 'Warning: UID switch overriding SYSTEM' "$T/err" || fail "-u -a: not perf's warning"
	stop_busy
else
	note "-u: no user $USER_NAME or no setpriv to run a process as it"
fi
# perf 6.1 prints these and exits 0; precord exits 129
for u in no-such-user-$$ 3999999999; do
	rm -f "$P"
	perf record -q -o "$T/perf.data" -u "$u" -- true >"$T/perr" 2>&1
	"$PRECORD" -o "$P" -u "$u" -- true 2>"$T/err" && fail "precord took -u $u"
	want=$(grep -oE 'Invalid User: [^ ]*|Problems obtaining information for user [^ ]*' "$T/perr")
	[ -n "$want" ] && grep -qF "$want" "$T/err" || { cat "$T/perr" "$T/err"; fail "-u $u: not perf's '$want'"; }
	[ -e "$P" ] && fail "-u $u: left a file"
	note "-u $u: $want"
done

# ---- -G: per-event cgroups --------------------------------------------------------
CGROOT=$(awk '$3 == "cgroup" && $4 ~ /(^|,)perf_event(,|$)/ {print $2; exit}' /proc/mounts)
[ -n "$CGROOT" ] || CGROOT=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
CG=precord-test-$$
if [ -n "$CGROOT" ] && mkdir "$CGROOT/$CG" 2>/dev/null; then
	CGDIR=$CGROOT/$CG
	sh -c "echo \$\$ > $CGDIR/cgroup.procs && exec sh -c 'while :; do :; done'" & BUSY+=($!); inside=$!
	busy; outside=$!
	sleep 0.2
	same_attrs -a -e cpu-clock,task-clock -G "$CG" -- sleep 0.1
	# one name: every event's
	rec -a -e cpu-clock,task-clock -G "$CG" -- sleep 0.4
	for e in cpu-clock task-clock; do
		[ "$(pids_of $e)" = "$inside " ] ||
			fail "-G $CG: $e samples of pids '$(pids_of $e)', want only $inside"
	done
	# names in -e order; an empty one leaves its event on every task
	rec -a -e cpu-clock -e task-clock -G ",$CG" -- sleep 0.4
	[ "$(pids_of task-clock)" = "$inside " ] || fail "-G ,$CG: task-clock not of the cgroup alone"
	pids_of cpu-clock | grep -qw "$outside" || fail "-G ,$CG: cpu-clock did not see every task"
	note "-G $CG: both events of pid $inside only; -G ,$CG: the second event only"
	refused "no access to cgroup $CGROOT/nosuch-$$" -a -e cpu-clock -G nosuch-$$ -- true
	refused "must define events before cgroups" -a -G "$CG" -e cpu-clock -- true
	refused "cgroup monitoring only available in system-wide mode" -e cpu-clock -G "$CG" -- true
	stop_busy
else
	note "-G: no cgroup hierarchy to make a cgroup in"
fi

# ---- --exclude-perf: "common_pid != <pid>" on the tracepoints ---------------------
main_thread_samples() {	# ARGS: how often the recorder's main thread was switched out
	"$PRECORD" -q -o "$P" -a -e sched:sched_switch "$@" -- sleep 0.3 >/dev/null 2>"$T/err" &
	local pid=$!
	wait $pid || { cat "$T/err"; fail "precord $* failed"; }
	perf script -i "$P" -F pid,tid 2>/dev/null | grep -cw "$pid/$pid"
}
without=$(main_thread_samples)
with=$(main_thread_samples --exclude-perf)
[ "$without" -gt 0 ] || fail "no sched_switch of precord's main thread to exclude"
[ "$with" = 0 ] || fail "--exclude-perf: $with sched_switch samples of precord's main thread"
note "--exclude-perf: $without switches of precord's main thread without it, none with it"
refused "--exclude-perf option should follow a -e tracepoint option" \
	-e sched:sched_switch,cpu-clock --exclude-perf -- true
refused "--exclude-perf option should follow a -e tracepoint option" --exclude-perf -- true

# ---- AUX area options: perf refuses them without an AUX area event -----------------
refused "No AUX area tracing to snapshot" -e cpu-clock -S -- true
refused "No AUX area tracing to snapshot" -e cpu-clock --snapshot=16 -- true
refused "No AUX area event to sample" -e cpu-clock --aux-sample -- true
refused "AUX area tracing options are not available in parallel streaming mode" \
	-e cpu-clock --threads -S -- true
# -m's AUX size: taken and unused, with perf's rounding note
perf record -o "$T/perf.data" -e cpu-clock -m 16,33 -- true 2>&1 | grep rounding >"$T/perfs"
"$PRECORD" -o "$P" -e cpu-clock -m 16,33 -- true 2>&1 | grep rounding >"$T/ours"
[ -s "$T/perfs" ] && diff "$T/perfs" "$T/ours" || fail "-m 16,33: not perf's note ($(cat "$T/ours"))"
perf report -i "$P" --stats >/dev/null 2>&1 || fail "-m 16,33: perf cannot read the file"
note "-m 16,33: $(cat "$T/ours")"

# ---- --off-cpu, --clang-path, --clang-opt: accepted as this perf takes them --------
if perf record -h 2>&1 | grep -A1 -- '--off-cpu' | grep -q 'not built-in'; then
	"$PRECORD" -o "$P" -e cpu-clock --off-cpu -- true >/dev/null 2>"$T/err" ||
		{ cat "$T/err"; fail "--off-cpu failed"; }
	grep -q "Warning: option \`off-cpu' is being ignored" "$T/err" || fail "--off-cpu: no warning"
	perf evlist -i "$P" 2>/dev/null | grep -q offcpu && fail "--off-cpu: an offcpu event"
	note "--off-cpu: ignored with perf's warning, as this perf (no BPF skeleton)"
else
	note "this perf has --off-cpu: precord's differs (it ignores the option)"
fi
same_attrs -e cpu-clock --clang-path=/bin/false --clang-opt=-O2 -- true

# ---- --help lists them as options precord has -------------------------------------
"$PRECORD" --help | sed -n '/precord refuses/,$p' >"$T/refused"
for o in -u/--uid -G/--cgroup -b/--branch-any -j/--branch-filter -S/--snapshot --aux-sample \
	 --exclude-perf --off-cpu --clang-path --clang-opt; do
	grep -qw -- "$o" "$T/refused" && fail "--help still lists $o as refused"
done
[ $status = 0 ] || fail "attrs differ from perf's"
exit 0
