#!/bin/bash
# perf record's options for what samples carry and which tasks are recorded:
# each one, recorded by perf record and by precord on the same command line,
# gives the same attrs, ids aside (precord samples IDENTIFIER on every event
# and sets build_id: README, "How it differs from perf record"), both in
# `perf evlist -v` and in the raw attrs of the file (perf 6.1's evlist does
# not print every sample_type bit: TRANSACTION). Then what each option is
# for shows in perf script or perf report of precord's file, and the
# options that cannot work here fail with perf's words.
. "$(dirname "$0")/../lib.sh"
ensure_tracefs
[ -x "$MATMUL" ] || fail "no workload at $MATMUL (run make)"
MARKER=${MARKER:-$TOP/build/tests/marker}
[ -x "$MARKER" ] || fail "no marker workload at $MARKER (run make)"

# ---- attrs, ids aside ------------------------------------------------------

# The u64 at byte offset $2 of file $1.
u64() { od -An -tu8 -j "$2" -N 8 "$1" | tr -d ' '; }
u32() { od -An -tu4 -j "$2" -N 4 "$1" | tr -d ' '; }

# Each attr of a perf.data as "type config sample_type read_format flags
# regs_user regs_intr max_stack", ID (1 << 6), IDENTIFIER (1 << 16) and
# build_id (flags bit 34) masked out.
raw_attrs() {
	local f=$1 stride off size i base st flags
	stride=$(u64 "$f" 16); off=$(u64 "$f" 24); size=$(u64 "$f" 32)
	for ((i = 0; i < size / stride; i++)); do
		base=$((off + i * stride))
		st=$(u64 "$f" $((base + 24)))
		flags=$(u64 "$f" $((base + 40)))
		printf 'type=%s config=%s sample_type=%#x read_format=%#x flags=%#x regs_user=%#x regs_intr=%#x stack_user=%s max_stack=%s\n' \
			"$(u32 "$f" "$base")" "$(u64 "$f" $((base + 8)))" \
			$((st & ~0x10040)) "$(u64 "$f" $((base + 32)))" $((flags & ~(1 << 34))) \
			"$(u64 "$f" $((base + 80)))" "$(u64 "$f" $((base + 104)))" \
			"$(u32 "$f" $((base + 88)))" "$(od -An -tu2 -j $((base + 116)) -N 2 "$f" | tr -d ' ')"
	done
}

# perf evlist -v with ID and IDENTIFIER left out of sample_type, and build_id.
evlist_norm() {
	perf evlist -v -i "$1" 2>/dev/null | grep -v '^#' |
		sed -e ':a' -e 's/\(sample_type: [A-Z_|]*\)|IDENTIFIER/\1/; ta' \
		    -e ':b' -e 's/\(sample_type: [A-Z_|]*\)|ID\([|,]\)/\1\2/; tb' \
		    -e 's/, build_id: 1//'
}

status=0
# same_attrs ARGS...: record `true` (or what follows --) with both; compare.
same_attrs() {
	local args=("$@") cmd=(true) i
	for ((i = 0; i < ${#args[@]}; i++)); do
		if [ "${args[i]}" = -- ]; then
			cmd=("${args[@]:i+1}"); args=("${args[@]:0:i}"); break
		fi
	done
	rm -f "$T/perf.data" "$T/precord.data"
	# -B: perf 6.1's end-of-run build-id pass crashes now and then ("stack
	# smashing detected" in util/build-id.c); it sets no attr bit
	perf record -B -q -o "$T/perf.data" "${args[@]}" -- "${cmd[@]}" >/dev/null 2>"$T/perr" ||
		{ cat "$T/perr"; fail "perf record ${args[*]} failed"; }
	"$PRECORD" -q -o "$T/precord.data" "${args[@]}" -- "${cmd[@]}" >/dev/null 2>"$T/err" ||
		{ cat "$T/err"; fail "precord ${args[*]} failed"; }
	evlist_norm "$T/perf.data" >"$T/a"; raw_attrs "$T/perf.data" >>"$T/a"
	evlist_norm "$T/precord.data" >"$T/b"; raw_attrs "$T/precord.data" >>"$T/b"
	if diff -u "$T/a" "$T/b" >"$T/diff"; then
		note "same attrs: ${args[*]}"
	else
		echo "attrs differ for: ${args[*]}"; cat "$T/diff"; status=1
	fi
}

# What the cases start in the background goes, whichever way the test ends.
sleep 600 & SLEEPER=$!
trap 'kill $SLEEPER 2>/dev/null; stop_busy; cleanup_test' EXIT
E=(-e cpu-clock)
# One option a line; system-wide (-a) adds perf's dummy, which takes most of
# them too: those lines group options that set bits alike.
while IFS= read -r line; do
	[ -n "$line" ] || continue
	# shellcheck disable=SC2086
	same_attrs "${E[@]}" ${line//SLEEPER/$SLEEPER}
done <<'LIST'
-d
-P
-P -c 100000
--no-period
-T
--no-timestamp
-s
-n
-R
-W
-N
--sample-cpu
--sample-identifier
--phys-data
--data-page-size
--code-page-size
--transaction
--running-time
--all-user
--all-kernel
--user-callchains -g
--kernel-callchains -g
--all-cgroups
--namespaces
--strict-freq
--call-graph fp,5
--call-graph dwarf --user-regs=ax
-I
-Iax,bx,ip
--user-regs
--user-regs=ip,sp
--per-thread
--per-thread -T
-t SLEEPER -- sleep 0.2
-t SLEEPER --inherit -- sleep 0.2
-t SLEEPER --per-thread -- sleep 0.2
-p SLEEPER --per-thread -s -- sleep 0.2
-a -d -W -R --phys-data --data-page-size --code-page-size --transaction --sample-cpu
-a -s -n --running-time -N --strict-freq -T
-a -P -c 100000 --all-user
-a --no-period --no-timestamp --all-kernel
-a -g --user-callchains
-a --call-graph fp,5 --kernel-callchains
-a --call-graph dwarf
-a -e sched:sched_switch -F 99 --no-timestamp --no-period
-a -I --user-regs=ip,sp
-a --per-thread
-C 0 --per-thread
-a --all-cgroups --namespaces
LIST
[ $status = 0 ] || fail "attrs differ from perf's"

# ---- what each option is for, in precord's file ---------------------------

P="$T/p.data"
rec() { rm -f "$P"; "$PRECORD" -q -o "$P" "$@" >"$T/out" 2>"$T/err" || { cat "$T/err"; fail "precord $* failed"; }; }
script() { perf script -i "$P" "$@" 2>"$T/serr"; }
nonempty() { [ -s "$1" ] || fail "$2"; }

# -T, -d, -W, --sample-cpu, -R, --phys-data, page sizes, -I, --user-regs:
# perf script prints the field (it refuses a field the samples lack)
while read -r opt field; do
	rec -e cpu-clock $opt -- "$MATMUL" -n 120
	script -F "comm,$field" >"$T/s" || { cat "$T/serr"; fail "$opt: perf script -F $field refused"; }
	nonempty "$T/s" "$opt: no samples with $field"
	note "$opt: perf script -F $field: $(head -1 "$T/s" | tr -s ' ' | cut -c1-60)"
done <<'FIELDS'
-T time
-d addr
-W weight
--sample-cpu cpu
-R cpu,time
--phys-data phys_addr
--data-page-size data_page_size
--code-page-size code_page_size
-I iregs
--user-regs=ip,sp uregs
FIELDS
rec -e cpu-clock --user-regs=ip,sp -- "$MATMUL" -n 120
script -F uregs | grep -q 'SP:0x.*IP:0x' || fail "--user-regs=ip,sp: no SP and IP in perf script"
script -F uregs | grep -q 'AX:' && fail "--user-regs=ip,sp: registers not asked for"
# without TIME, perf script refuses the field: --per-thread records none, as perf
rec -e cpu-clock --per-thread -- "$MATMUL" -n 120
script -F comm,time >/dev/null && fail "--per-thread: samples carry a time (perf's have none)"
rec -e cpu-clock --per-thread -T -- "$MATMUL" -n 120
script -F comm,time | grep -q '[0-9]\.[0-9]' || fail "--per-thread -T: no times"
note "--per-thread: no times; with -T, times"

# --no-timestamp: tracepoints keep their times, other events have none; the
# header's first and last sample times are perf's (none) whichever comes first
for evs in "-e sched:sched_switch -e cpu-clock" "-e cpu-clock -e sched:sched_switch"; do
	# shellcheck disable=SC2086
	rec $evs --no-timestamp -a -- "$MATMUL" -n 200
	perf report -i "$P" --header-only 2>/dev/null | grep '^# time of' >"$T/ours"
	# shellcheck disable=SC2086
	perf record -B -q -o "$T/perf.data" $evs --no-timestamp -a -- "$MATMUL" -n 200 >/dev/null 2>&1
	perf report -i "$T/perf.data" --header-only 2>/dev/null | grep '^# time of' >"$T/perfs"
	diff "$T/perfs" "$T/ours" || fail "--no-timestamp $evs: the header's sample times are not perf's"
done
note "--no-timestamp with a tracepoint: the header's sample times as perf's"

# -P / --no-period: the samples grow or shrink by the period's 8 bytes
sample_size() { perf report -D -i "$P" 2>/dev/null | sed -n 's/.*\[\(0x[0-9a-f]*\)\]: PERF_RECORD_SAMPLE.*/\1/p' | head -1; }
rec -e cpu-clock -c 100000 -- "$MATMUL" -n 120; without=$(sample_size)
rec -e cpu-clock -c 100000 -P -- "$MATMUL" -n 120; with=$(sample_size)
[ $((with - without)) = 8 ] || fail "-P: samples of $with bytes, $without without"
rec -e cpu-clock --no-period -- "$MATMUL" -n 120; [ $((with - $(sample_size))) = 8 ] ||
	fail "--no-period: samples keep a period"
note "-P adds the period to the samples, --no-period takes it away"

# --per-thread: one ring per thread, no CPU-wide event (ID_INDEX: cpu -1, a tid each)
"$MATMUL" -t 2 -n 600 -r 100000 -q & W=$!
BUSY=($W)
sleep 0.3
rec -e cpu-clock --per-thread -p $W -- sleep 0.3
stop_busy
perf report -D -i "$P" 2>/dev/null | grep -E '^ \.\.\. id: .* cpu: ' >"$T/idx"
nthreads=$(wc -l <"$T/idx")
[ "$nthreads" -ge 2 ] || { cat "$T/idx"; fail "--per-thread -p: $nthreads rings, want one per thread"; }
grep -qv 'cpu: -1 ' "$T/idx" && { cat "$T/idx"; fail "--per-thread: a CPU-wide event"; }
[ "$(awk '{print $9}' "$T/idx" | sort -u | wc -l)" = "$nthreads" ] ||
	{ cat "$T/idx"; fail "--per-thread: not one ring per thread"; }
[ "$(script -F tid | sort -u | wc -l)" -ge 2 ] || fail "--per-thread: samples of fewer than 2 threads"
note "--per-thread -p: $nthreads rings, one per thread, samples from each"

# -t TID: that thread alone, not the children it starts (perf turns inherit off)
sh -c 'while :; do i=0; while [ $i -lt 300 ]; do i=$((i+1)); done; /bin/true; done' & S=$!
BUSY=($S)
sleep 0.2
rec -e task-clock -c 100000 -t $S -- sleep 0.5
script -F tid | sort -u | tr -d ' ' >"$T/tids"
rec -e task-clock -c 100000 -t $S --inherit -- sleep 0.5
stop_busy
[ "$(cat "$T/tids")" = "$S" ] || fail "-t $S: samples of threads $(tr '\n' ' ' <"$T/tids")"
[ "$(script -F tid | sort -u | wc -l)" -gt 1 ] || fail "-t --inherit: the children are not followed"
note "-t: only thread $S; with --inherit its children too"

# -s: per-thread counts, PERF_RECORD_READ at each child's exit, perf report -T
rec -e cpu-clock -s -- sh -c 'for i in 1 2; do (i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done) & done; wait'
perf report -D -i "$P" 2>/dev/null | grep -q 'PERF_RECORD_READ:' || fail "-s: no PERF_RECORD_READ"
perf report -i "$P" -T --stdio 2>/dev/null | sed -n '/PID *TID *cpu-clock/,$p' | awk 'NF == 3 && $3 > 0' >"$T/t"
[ "$(wc -l <"$T/t")" -ge 2 ] || { perf report -i "$P" -T --stdio | tail; fail "-s: perf report -T has no per-thread counts"; }
note "-s: perf report -T: $(wc -l <"$T/t") threads counted"

# -n: no samples, the rest still there
rec -e cpu-clock -n -- "$MATMUL" -n 200
perf report -i "$P" --stats 2>/dev/null >"$T/stats"
grep -q 'SAMPLE events' "$T/stats" && fail "-n: samples recorded"
grep -q 'COMM events' "$T/stats" || fail "-n: no COMM records"
note "-n: no samples, $(grep -c events "$T/stats") kinds of records"

# -N: accepted; precord never fills a build-id cache
rec -e cpu-clock -N -- "$MATMUL" -n 120
perf report -i "$P" --stdio >/dev/null 2>&1 || fail "-N: perf report failed"

# --all-user / --all-kernel: the sampled addresses are user's / kernel's only
rec -e cpu-clock --all-user -- "$MATMUL" -n 200
script -F ip | grep -q '^ *ffffffff' && fail "--all-user: kernel samples"
rec -e cpu-clock --all-kernel -- "$MATMUL" -n 200
script -F ip | grep -vq '^ *ffffffff' && fail "--all-kernel: user samples"
note "--all-user: user addresses only; --all-kernel: kernel addresses only"

# --user-callchains / --kernel-callchains: the call chains' other half is gone
chains() { script -F ip | grep -E '^\s+[0-9a-f]+$'; }
rec -e cpu-clock -g --user-callchains -- "$MATMUL" -n 200
chains | grep -q '^\s*ffffffff' && fail "--user-callchains: kernel frames"
chains | grep -vq '^\s*ffffffff' || fail "--user-callchains: no user frames"
rec -e cpu-clock -g --kernel-callchains -- "$MATMUL" -n 200
chains | grep -vq '^\s*ffffffff' && fail "--kernel-callchains: user frames"
note "--user-callchains: user frames only; --kernel-callchains: kernel frames only"

# --call-graph fp,N: at most N frames a sample (perf keeps N; without it, deeper)
depth() { script -F ip | awk 'NF == 0 { if (n > max) max = n; n = 0; next } { n++ } END { if (n > max) max = n; print max + 0 }'; }
rec -e cpu-clock --call-graph fp,3 -- "$MATMUL" -n 200
d3=$(depth)
rec -e cpu-clock --call-graph fp -- "$MATMUL" -n 200
d=$(depth)
[ "$d3" -le 3 ] && [ "$d" -gt 3 ] || fail "--call-graph fp,3: $d3 frames at most ($d without a depth)"
note "--call-graph fp,3: at most $d3 frames (up to $d without)"

# --namespaces: NAMESPACES records, synthesized for the command and from the kernel
rec -e cpu-clock --namespaces -- sh -c 'true'
script --show-namespace-events >"$T/s"
grep -q 'PERF_RECORD_NAMESPACES.*nr_namespaces: 7' "$T/s" || fail "--namespaces: no NAMESPACES records"
rec -e cpu-clock --namespaces -a -- true
[ "$(perf report -i "$P" --stats | awk '/NAMESPACES events/ {print $3}')" -gt 1 ] ||
	fail "--namespaces -a: no NAMESPACES synthesized for the running tasks"
note "--namespaces: NAMESPACES for the command and every running task"

# --all-cgroups: samples name their cgroup, known from the CGROUP records
CGROOT=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
if [ -n "$CGROOT" ] && mkdir "$CGROOT/precord-test-$$" 2>/dev/null; then
	CGDIR=$CGROOT/precord-test-$$
	# busy in the cgroup for as long as the recording runs, whatever the machine's speed
	sh -c "echo \$\$ > $CGDIR/cgroup.procs && exec $MATMUL -n 400 -r 100000 -q" &
	BUSY=($!)
	sleep 0.1
	rec -e cpu-clock --all-cgroups -a -- sleep 0.3
	stop_busy
	perf report -i "$P" --sort cgroup --stdio 2>/dev/null | grep -q "/precord-test-$$" ||
		{ perf report -i "$P" --sort cgroup --stdio; fail "--all-cgroups: no samples of the cgroup"; }
	note "--all-cgroups: samples of /precord-test-$$ by name"
	rec -e cpu-clock --all-cgroups --synth=cgroup -a -- true
	perf report -D -i "$P" 2>/dev/null | grep -q '^0 0 0x.*PERF_RECORD_CGROUP' || fail "--synth=cgroup: no CGROUP"
	perf report -D -i "$P" 2>/dev/null | grep -q '^0 0 0x.*PERF_RECORD_FORK' && fail "--synth=cgroup: tasks synthesized"
	note "--synth=cgroup: the cgroups, not the tasks"
else
	note "--all-cgroups content: no cgroup2 mount to make a cgroup in"
fi

# --filter: a tracepoint filter drops what it filters, as perf's does
nmarks=30
rec -e raw_syscalls:sys_enter --filter 'id == 110' -- "$MARKER" $nmarks 1
script >"$T/s"
got=$(grep -c 'NR 110 ' "$T/s"); all=$(wc -l <"$T/s")
[ "$got" = "$all" ] || fail "--filter 'id == 110': $((all - got)) other system calls kept"
# the marker calls getppid once before its markers
[ "$got" = $((nmarks + 1)) ] || fail "--filter 'id == 110': $got getppid calls, want $((nmarks + 1))"
for try in 1 2 3; do	# perf's own run, on a machine others load too
	perf record -B -q -o "$T/perf.data" -e raw_syscalls:sys_enter --filter 'id == 110' \
		-- "$MARKER" $nmarks 1 >/dev/null 2>&1 || continue
	want=$(perf script -i "$T/perf.data" 2>/dev/null | grep -c 'NR 110 ')
	[ "$want" = "$got" ] && break
done
[ "$want" = "$got" ] || fail "--filter: $got getppid calls, perf $want"
note "--filter 'id == 110': $got getppid calls and nothing else, as perf"

# ---- what cannot work: perf's words, a non-zero exit, no file ---------------

refused() {	# WORDS ARGS...: both refuse; precord says WORDS
	local words=$1; shift
	rm -f "$P"
	perf record -B -q -o "$T/perf.data" "$@" >/dev/null 2>&1 && fail "perf took $*"
	"$PRECORD" -o "$P" "$@" >/dev/null 2>"$T/err" && fail "precord took $*"
	grep -qi -- "$words" "$T/err" || { cat "$T/err"; fail "precord $*: not '$words'"; }
	[ -e "$P" ] && fail "precord $*: left a file"
	note "refused as perf: $* ($(head -1 "$T/err" | cut -c1-70))"
}
refused 'should follow a -e tracepoint' --filter x -e cpu-clock -- true
refused 'does not support address filtering' -e cpu-clock --filter x -- true
refused 'failed to set filter "bogus ==" on event sched:sched_switch' \
	-e sched:sched_switch --filter 'bogus ==' -a -- true
refused "cannot be used with '--all-user'" --all-user --all-kernel -e cpu-clock -- true
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
refused 'maximum frequency rate' -e cpu-clock -F $((max * 2)) --strict-freq -- true
refused 'mutually exclusive to parallel streaming mode' -e cpu-clock --per-thread --threads=cpu -- true
refused 'unknown register "foo"' -e cpu-clock --user-regs=foo -- true
# XMM registers: only where the PMU samples them, then both take them
if perf record -B -q -o "$T/perf.data" -e cpu-clock -IXMM0 -- true >/dev/null 2>&1; then
	same_attrs -e cpu-clock -IXMM0
else
	refused 'unknown register "XMM0"' -e cpu-clock -IXMM0 -- true
fi
# LBR call stacks: where the PMU has a branch stack, the attrs perf sets; else perf's error
if perf record -B -q -o "$T/perf.data" --call-graph lbr -- true >/dev/null 2>&1; then
	same_attrs --call-graph lbr
else
	refused "doesn't support branch stack sampling" --call-graph lbr -- true
fi
"$PRECORD" --user-regs=? 2>"$T/err" >/dev/null
perf record --user-regs=? 2>&1 | grep 'available registers' >"$T/perf-regs"
grep -qxF "$(cat "$T/perf-regs")" "$T/err" || { cat "$T/err" "$T/perf-regs"; fail "--user-regs=?: not perf's list"; }
note "--user-regs=? lists perf's registers"
# The kernel's map is synthesized as perf does it: whatever --synth says,
# unless every event excludes the kernel.
kmaps() { perf script -i "$1" --show-mmap-events 2>/dev/null | grep MMAP | grep -c 'kernel\.kallsyms'; }
for args in "-e cpu-clock:u" "-e cpu-clock" "--synth=no -e cpu-clock" "-a -e cpu-clock:u" "--synth=no -e cpu-clock:u"; do
	perf record -B -q -o "$T/perf.data" $args -- true >/dev/null 2>&1 || fail "perf record $args failed"
	"$PRECORD" -B -q -o "$T/precord.data" $args -- true >/dev/null 2>&1 || fail "precord $args failed"
	[ "$(kmaps "$T/perf.data")" = "$(kmaps "$T/precord.data")" ] ||
		fail "$args: $(kmaps "$T/precord.data") kernel maps synthesized, perf $(kmaps "$T/perf.data")"
done
note "the kernel's map synthesized where perf's is (--synth, :u)"
# --help names every option perf record's does (those precord refuses too)
"$PRECORD" --help | grep -oE -- '--[a-z][a-z-]+' | sort -u >"$T/ours"
perf record -h 2>&1 | grep -oE -- '--[a-z][a-z-]+' | sort -u >"$T/perfs"
comm -23 "$T/perfs" "$T/ours" >"$T/missing"
[ -s "$T/missing" ] && fail "precord --help lacks $(tr '\n' ' ' <"$T/missing")"
note "--help names every option of perf record -h"
[ $status = 0 ] || fail "attrs differ from perf's"
exit 0
