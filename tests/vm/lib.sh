# Shared by the multi-node cases (sourced, not run), on both sides: the
# guest runs a case's guest() in its directory D, the host runs its check()
# on what came back in D. Guest-side helpers run precord and perf and keep
# their output, exit status and core dump; host-side helpers read the files
# with stock perf and compare what they hold with the guest's topology.
#
# The topology is read from $SYS: /sys/devices/system in the guest, the copy
# in-guest.sh made of its node and CPU lists on the host (a case that changes
# it, such as taking CPUs offline, keeps its own copy in D/sys).
set -u
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
PRECORD=${PRECORD:-$TOP/precord}
MATMUL=${MATMUL:-$TOP/bench/matmul}
SPIN=${SPIN:-$TOP/build/tests/spin}	# a spinning thread pinned to every CPU
SYS=${SYS:-/sys/devices/system}
export LC_ALL=C

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "  - $*"; }

# --- lists and the topology -----------------------------------------------------

# expand LIST: "0-2,5" -> "0 1 2 5" (one line); an empty list gives nothing.
expand() {
	local r out=()
	for r in ${1//,/ }; do
		out+=($(seq "${r%-*}" "${r#*-}"))
	done
	echo "${out[*]}"
}

# online: the online CPUs, expanded; ncpus: how many.
online() { expand "$(cat "$SYS/cpu/online")"; }
ncpus() { online | wc -w; }

# nodes: every node; cpu_nodes: the nodes with online CPUs.
nodes() {
	local n
	for n in "$SYS"/node/node[0-9]*; do echo "${n##*node}"; done | sort -n | tr '\n' ' '
}
node_cpus() { expand "$(cat "$SYS/node/node$1/cpulist")"; }
cpu_nodes() {
	local n
	for n in $(nodes); do
		[ -n "$(node_cpus "$n")" ] && echo "$n"
	done | tr '\n' ' '
}

# save_topology DIR: the node and CPU lists now, for the host's check().
save_topology() {
	local n c
	mkdir -p "$1/cpu"
	cp /sys/devices/system/cpu/{online,possible,present} "$1/cpu/"
	for c in $(online); do
		mkdir -p "$1/cpu/cpu$c/topology"
		cp /sys/devices/system/cpu/cpu$c/topology/{package_cpus_list,core_cpus_list} "$1/cpu/cpu$c/topology/"
	done
	for n in /sys/devices/system/node/node[0-9]*; do
		mkdir -p "$1/node/${n##*/}"
		cp "$n/cpulist" "$1/node/${n##*/}/"
	done
}

# pick_cpus: a few CPUs across the nodes: the last of the first node with
# CPUs, the first of the second, both ends of the last; for cpusets, taskset
# and -C lists that cut across nodes.
pick_cpus() {
	local ns=($(cpu_nodes)) a b c
	a=($(node_cpus "${ns[0]}"))
	if [ ${#ns[@]} -lt 2 ]; then
		echo "${a[0]}"
		return
	fi
	b=($(node_cpus "${ns[1]}"))
	c=($(node_cpus "${ns[${#ns[@]} - 1]}"))
	printf '%s\n' "${a[${#a[@]} - 1]}" "${b[0]}" "${c[0]}" "${c[${#c[@]} - 1]}" | sort -nu | paste -sd,
}

# every_node_cpus: the last CPU of each node with CPUs, for a cpuset that
# leaves no node out.
every_node_cpus() {
	local n c
	for n in $(cpu_nodes); do
		c=($(node_cpus "$n"))
		echo "${c[${#c[@]} - 1]}"
	done | paste -sd,
}

# --- guest side -------------------------------------------------------------------

# enter_cpuset CPUS: move this shell into a cgroup v2 cpuset of CPUS (what a
# container on a big machine sees); leave_cpuset moves it back and removes
# the cgroup.
CG=/sys/fs/cgroup/precord-test
enter_cpuset() {
	echo +cpuset >/sys/fs/cgroup/cgroup.subtree_control
	mkdir -p $CG
	echo "$1" >$CG/cpuset.cpus
	echo $BASHPID >$CG/cgroup.procs
	echo "in $CG: cpuset.cpus.effective $(cat $CG/cpuset.cpus.effective); $(taskset -pc $BASHPID)"
}
leave_cpuset() {
	echo $BASHPID >/sys/fs/cgroup/cgroup.procs
	rmdir $CG
}

# at: seconds since the case started, for the log.
CASE_START=${CASE_START:-$EPOCHREALTIME}
at() { awk -v a="$CASE_START" -v b="$EPOCHREALTIME" 'BEGIN { printf "[%6.1f s]", b - a }'; }

# run NAME CMD...: run CMD, its stdout in D/NAME.out, stderr in D/NAME.err,
# exit status in D/NAME.rc; prints the status and stderr's last lines.
run() {
	local name=$1 rc
	shift
	"$@" >"$D/$name.out" 2>"$D/$name.err"
	rc=$?
	ran "$name" "$rc" "\$ $* -> exit $rc"
}

# run_bg NAME CMD...: the same in the background; BG is its pid. wait_bg
# NAME collects the status.
run_bg() {
	local name=$1
	shift
	echo "$(at) \$ $* &"
	"$@" >"$D/$name.out" 2>"$D/$name.err" &
	BG=$!
}
wait_bg() {
	local rc
	wait "$BG"
	rc=$?
	ran "$1" "$rc" "($1: exit $rc)"
}

# ran NAME RC LINE: NAME's exit status kept in $D/NAME.rc, LINE said with
# the time, then the end of NAME's stderr; returns RC.
ran() {
	echo "$2" >"$D/$1.rc"
	echo "$(at) $3"
	tail -n 12 "$D/$1.err" | sed 's/^/    /'
	return "$2"
}

# wait_threads PID [N]: wait (up to 5 minutes: startup is slow on a guest
# of hundreds of emulated CPUs) until PID has N (default 1) streaming
# threads and a second more; fails when PID ends first. Only the layout's
# threads count (prec-rd/N), not the adaptive layout's helpers
# (prec-rd/N.K), which can start before a slow thread has taken its name.
wait_threads() {
	local pid=$1 want=${2:-1} i n t comm
	for ((i = 0; i < 3000; i++)); do
		kill -0 "$pid" 2>/dev/null || return 1
		n=0
		for t in /proc/"$pid"/task/*/comm; do	# builtins only: a fork is slow here
			read -r comm <"$t" 2>/dev/null && [[ $comm =~ ^prec-rd/[0-9]+$ ]] && n=$((n + 1))
		done
		[ "$n" -ge "$want" ] && echo "$(at) $n streaming threads" && sleep 1 && return 0
		sleep 0.1
	done
	return 1
}

# wait_file PATH: wait (up to 5 minutes) until PATH is there; a perf record
# has set its signal handlers when its output file is there.
wait_file() {
	local i
	for ((i = 0; i < 3000; i++)); do
		[ -e "$1" ] && sleep 1 && return 0
		sleep 0.1
	done
	return 1
}

# stop_workload PID: end the workload PID started (spin ends at SIGTERM).
stop_workload() {
	kill -TERM $(pgrep -P "$1") 2>/dev/null
}

# affinity PID: "NAME CPULIST" for each streaming thread of PID (builtins
# only, but for the sort: hundreds of threads).
affinity() {
	local t comm key val
	for t in /proc/"$1"/task/*; do
		read -r comm <"$t/comm" 2>/dev/null || continue
		[[ $comm == prec-rd/* ]] || continue
		while read -r key val; do
			[ "$key" = Cpus_allowed_list: ] && echo "$comm $val"
		done <"$t/status"
	done | sort -V
}

# Every CPU of the guest is emulated, hundreds of them on two host CPUs:
# reading a process's /proc/PID/maps while synthesizing may take longer than
# perf's default 500 ms, which would leave a map out with a warning. Every
# recording gives it more time.
MAPS=--proc-map-timeout=60000

# --- host side ---------------------------------------------------------------------

# perf_quiet TAG -- ARGS...: perf ARGS with stdout in D/TAG and stderr in
# D/TAG.err; fails when perf fails or says anything on stderr, but lines
# matching the extended regex $PERF_ALLOW (a case sets it for a warning
# that is the truth about the file, such as samples the kernel dropped).
PERF_ALLOW=${PERF_ALLOW:-}
perf_quiet() {
	local tag=$1
	shift 2
	perf "$@" >"$D/$tag" 2>"$D/$tag.err" || { cat "$D/$tag.err"; fail "perf $* exited non-zero"; }
	if [ -n "$PERF_ALLOW" ] && [ -s "$D/$tag.err" ] && ! grep -qvE "$PERF_ALLOW" "$D/$tag.err"; then
		note "perf $1 said what the file holds: $(grep -vE '^(Warning:)?$' "$D/$tag.err" | xargs)"
		return 0
	fi
	if [ -s "$D/$tag.err" ]; then
		sed 's/^/    perf: /' "$D/$tag.err"
		fail "perf $1 printed a warning reading ${*: -1}"
	fi
}

# read_clean PATH TAG: stock perf reads PATH (a file or a --no-merge
# directory) with nothing on stderr: perf report --header-only -I, perf
# report --stats and perf script (the kernel's symbols from the guest's
# kallsyms; the CPU of each sample when the samples have one).
read_clean() {
	local f=$1 tag=$2 fields=comm,tid
	perf_quiet "$tag.header" -- report --header-only -I -i "$f"
	grep -q '^# event : .*sample_type = [A-Z|]*CPU' "$D/$tag.header" && fields=$fields,cpu
	perf_quiet "$tag.stats" -- report --stats -i "$f"
	perf_quiet "$tag.script" -- script --kallsyms="$INFO/kallsyms" -F $fields,time,event,ip,sym -i "$f"
}

# samples TAG: SAMPLE events in the --stats of a read_clean.
samples() {
	sed -n 's/^ *SAMPLE events: *\([0-9]*\).*/\1/p' "$D/$1.stats" | head -1 | grep . || echo 0
}

# sample_cpus TAG: the CPUs with samples in the perf script of a read_clean.
sample_cpus() {
	sed -n 's/^[^[]* \[0*\([0-9][0-9]*\)\] .*/\1/p' "$D/$1.script" | sort -nu | xargs
}

# threads NAME: "NAME CPULIST SAMPLES" for each streaming thread in the
# summary "[ precord: prec-rd/N: CPUs LIST, … N samples, … ]".
threads() {
	sed -n 's/^\[ precord: \(prec-rd\/[0-9]*\): CPUs \([^,]*\(,[0-9][^,]*\)*\), .* \([0-9]*\) samples, .*/\1 \2 \4/p' "$D/$1.err"
}

# summary_samples NAME: the count in "[ precord: Captured and wrote … (N samples) ]".
summary_samples() {
	sed -n 's/.*Captured and wrote .* (\([0-9]*\) samples) \]/\1/p' "$D/$1.err" | tail -1
}

# dumps NAME: the pieces NAME's stderr announces (precord's or perf
# record's "Dump" lines), as the guest named them. want_pieces NAME N WHAT
# fails unless there are N (WHAT says which) and each came back in
# $D/NAME/; pieces NAME: their paths there, in order.
dumps() { sed -n 's/^\[ \(precord\|perf record\): Dump \(.*\) \]$/\2/p' "$D/$1.err"; }
pieces() { dumps "$1" | sed "s|.*/|$D/$1/|"; }
want_pieces() {
	local f
	[ "$(dumps "$1" | wc -l)" -eq "$2" ] || fail "want $2 $3, got: $(dumps "$1" | xargs)"
	for f in $(pieces "$1"); do
		[ -f "$f" ] || fail "$f was announced but is not there"
	done
}

# rc NAME: the exit status run or wait_bg kept; want_rc NAME [RC] fails,
# showing the stderr and any core's backtrace, unless it is RC (default 0).
rc() { cat "$D/$1.rc" 2>/dev/null || echo none; }
want_rc() {
	local got
	got=$(rc "$1")
	[ "$got" = "${2:-0}" ] && return 0
	echo "--- stderr of $1:"
	tail -n 40 "$D/$1.err"
	backtraces
	fail "$1 exited $got, want ${2:-0}"
}

# backtraces: gdb's backtrace of every core the guest left in D, named
# core.<path of the program, / as !>.<pid> (the binaries are the host's own
# files, so the host's gdb reads them).
backtraces() {
	local core exe
	for core in "$D"/core.*; do
		[ -f "$core" ] || continue
		exe=${core##*/core.}
		exe=${exe%.*}
		exe=${exe//!//}
		echo "--- $core ($exe):"
		command -v gdb >/dev/null || { echo "    (no gdb for a backtrace)"; continue; }
		gdb -batch -q -ex 'bt' -ex 'info threads' -ex 'thread apply all bt 8' "$exe" "$core" 2>&1 |
			grep -v '^\[New LWP\|^warning: .*shared librar\|^$' | head -n 80
	done
}

# same_set A B: two space-separated lists hold the same numbers.
same_set() { [ "$(echo $1 | tr ' ' '\n' | sort -n | xargs)" = "$(echo $2 | tr ' ' '\n' | sort -n | xargs)" ]; }

# node_groups: the CPUs of each node with CPUs, a line each; package_groups,
# core_groups: the same for packages and cores (from the CPUs' topology).
node_groups() {
	local n
	for n in $(cpu_nodes); do node_cpus "$n"; done
}
topology_groups() {
	local c
	for c in $(online); do expand "$(cat "$SYS/cpu/cpu$c/topology/$1")"; done | sort -u
}

# want_threads NAME: the streaming threads in NAME's summary have exactly
# the CPU groups on stdin (a line each, CPUs separated by spaces), one each.
want_threads() {
	local name=$1
	sort >"$D/$name.want-groups"
	threads "$name" | while read -r t l s; do expand "$l"; done | sort >"$D/$name.groups"
	if ! cmp -s "$D/$name.want-groups" "$D/$name.groups"; then
		echo "--- $name: the summary's threads:"
		grep 'prec-rd/' "$D/$name.err"
		echo "--- the CPU groups wanted, a line each:"
		cat "$D/$name.want-groups"
		fail "$name: want one streaming thread per group above, each with its CPUs"
	fi
}

# want_affinity NAME: each streaming thread of NAME, seen while it ran
# (D/NAME.affinity, from affinity()), was pinned to the CPUs the summary
# gives it.
want_affinity() {
	local name=$1 t l s a
	[ -s "$D/$name.affinity" ] || fail "$name: no streaming thread was seen while it ran"
	while read -r t l s; do
		a=$(sed -n "s|^$t ||p" "$D/$name.affinity")
		[ -n "$a" ] || fail "$name: $t was not seen while it ran"
		same_set "$(expand "$a")" "$(expand "$l")" ||
			fail "$name: $t runs on CPUs $a, but the summary gives it $l"
	done < <(threads "$name")
}

# want_all_cpus TAG: the samples in TAG's perf script come from every online CPU.
want_all_cpus() {
	local got
	got=$(sample_cpus "$1")
	same_set "$got" "$(online)" || fail "$1: samples from CPUs [$got], want every online CPU [$(online)]"
}
