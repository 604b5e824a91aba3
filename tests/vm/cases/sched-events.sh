# Several events, every sched tracepoint among them, system-wide: perf reads
# them all, with context switches on every CPU.
guest() {
	run rec "$PRECORD" $MAPS -a -e cpu-clock -e 'sched:*' -o "$D/rec.data" -- "$SPIN" 1
}

check() {
	local cpus
	want_rc rec
	read_clean "$D/rec.data" rec
	want_all_cpus rec
	grep -q 'sched:sched_switch stats' "$D/rec.stats" || fail "no sched:sched_switch in perf report --stats"
	cpus=$(sed -n 's/.* \[0*\([0-9][0-9]*\)\] *[0-9.]*: *sched:sched_switch:.*/\1/p' "$D/rec.script" | sort -nu | xargs)
	same_set "$cpus" "$(online)" || fail "sched_switch on CPUs [$cpus], want every online CPU"
	note "$(grep -c ' stats:' "$D/rec.stats") events with samples, $(samples rec) samples"
}
