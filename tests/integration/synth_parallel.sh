#!/bin/bash
# Parallel synthesis (--num-thread-synthesize, default: the pool's size)
# writes what the serial walk writes, and perf resolves the same symbols.
#
# Three system-wide recordings of a machine running processes that exist
# before recording starts (so only synthesized records describe them): a
# few processes of 100 sleeping threads (more than SYNTH_SPLIT_TASKS, so the
# parallel walk splits them) and matmul spinning. Deterministic: the synthesized FORK/COMM/MMAP2
# of those processes, as perf script prints them, are the same set in every
# recording, and matmul's samples resolve to its multiply() in each. Other
# processes come and go, so their synthesized records only have to be the
# same for 90% of the processes present in all three.
. "$(dirname "$0")/../lib.sh"

SPAWN=${SPAWN:-$TOP/bench/spawn-threads}
[ -x "$SPAWN" ] || skip "no $SPAWN (make bench/spawn-threads)"
[ -x "$MATMUL" ] || skip "no $MATMUL (make bench/matmul)"

"$SPAWN" -q -p 3 -t 300 -r "$T/ready" &
spawn=$!
"$MATMUL" -t 1 -n 300 -r 1000000 >/dev/null &
matmul=$!
trap 'kill $spawn $matmul 2>/dev/null; wait 2>/dev/null; cleanup_test' EXIT
for ((i = 0; i < 100; i++)); do [ -f "$T/ready" ] && break; sleep 0.1; done
[ -f "$T/ready" ] || fail "the spawn-threads workload did not start"
pids="$(sed 's/.*pids=//; s/,/ /g' "$T/ready") $matmul"
sleep 0.2

record() {	# name [precord options]
	local name=$1; shift
	"$PRECORD" -a "$@" -o "$T/$name.data" -- sleep 0.5 2>"$T/$name.sum" ||
		{ cat "$T/$name.sum"; fail "precord -a $* failed"; }
}
record serial --num-thread-synthesize=1
record par2 --num-thread-synthesize=2
record default

# The synthesized (time 0) task and map records of our processes, sorted.
# "pid record" for every synthesized (time 0) task and map record, sorted.
synthesized_all() {	# name
	perf script -i "$T/$1.data" --show-task-events --show-mmap-events 2>/dev/null |
		awk '
		/ 0\.000000: PERF_RECORD_(COMM|FORK|MMAP2)/ {
			rec = $0; sub(/^.* 0\.000000: /, "", rec); s = rec
			if (rec ~ /^PERF_RECORD_FORK\(/)	# FORK(pid:tid):(ppid:ptid)
				{ sub(/^PERF_RECORD_FORK\(/, "", s); sub(/:.*/, "", s) }
			else if (rec ~ /^PERF_RECORD_COMM:/)	# COMM: name:pid/tid
				{ sub(/\/[0-9]+$/, "", s); sub(/^.*:/, "", s) }
			else					# MMAP2 pid/tid: [...]
				{ sub(/^PERF_RECORD_MMAP2 /, "", s); sub(/\/.*/, "", s) }
			print s, rec
		}' | sort >"$T/$1.all"
}
# The same for our processes only, without the pid column.
synthesized() {	# name
	synthesized_all "$1"
	awk -v pids="$pids" '
		BEGIN { n = split(pids, p, " "); for (i = 1; i <= n; i++) want[p[i]] = 1 }
		$1 in want { $1 = ""; sub(/^ /, ""); print }' "$T/$1.all" | sort >"$T/$1.synth"
}
for r in serial par2 default; do synthesized $r; done
n=$(wc -l <"$T/serial.synth")
forks=$(grep -c PERF_RECORD_FORK "$T/serial.synth")
note "$n synthesized records of our $(wc -w <<<"$pids") processes ($forks FORK)"
[ "$forks" -ge 300 ] || fail "expected at least 300 FORK records of the workload, got $forks"
grep -q "PERF_RECORD_MMAP2.*bench/matmul" "$T/serial.synth" || fail "no MMAP2 of matmul"
for r in par2 default; do
	if ! cmp -s "$T/serial.synth" "$T/$r.synth"; then
		diff "$T/serial.synth" "$T/$r.synth" | head -10
		fail "$r: synthesized records differ from the serial walk's"
	fi
done

# perf resolves matmul's samples (a process older than the recording, so
# described by synthesized MMAP2s only) the same way in each. Per sample, with
# perf script: perf report --pid filters merged entries, which hide ours when
# another matmul runs on the machine.
for r in serial par2 default; do
	perf script -i "$T/$r.data" -F pid,ip,sym,dso 2>/dev/null |
		awk -v pid="$matmul" '$1 == pid && $2 !~ /^ffffffff/ { $1 = $2 = ""; print }' |
		sort | uniq -c | sort -rn >"$T/$r.syms"
	top=$(awk 'NR == 1 { print $2, $3 }' "$T/$r.syms")
	note "$r: matmul's user samples: $(awk '{ n += $1 } END { print n + 0 }' "$T/$r.syms"), top: $top"
	[ "$top" = "multiply ($MATMUL)" ] || fail "$r: matmul's samples do not resolve to multiply"
	! grep -q unknown "$T/$r.syms" || fail "$r: unresolved samples of matmul"
done

# Everything else: processes start, exit, map and spawn threads meanwhile,
# so of the processes synthesized in all three files, 90% must have the
# very same records in each.
awk '
	FNR == 1 { f++ }
	{ pid = $1; $1 = ""; recs[f, pid] = recs[f, pid] "\n" $0; seen[pid] = 1 }
	END {
		for (pid in seen) {
			if (!((1, pid) in recs) || !((2, pid) in recs) || !((3, pid) in recs))
				continue
			n++
			same += recs[1, pid] == recs[2, pid] && recs[1, pid] == recs[3, pid]
		}
		printf "  - %d of the %d processes in all three recordings synthesized identically\n", same, n
		exit !(n > 0 && same >= 0.9 * n)
	}' "$T/serial.all" "$T/par2.all" "$T/default.all" ||
	fail "the parallel walks differ from the serial one for more than 10% of the processes"
exit 0
