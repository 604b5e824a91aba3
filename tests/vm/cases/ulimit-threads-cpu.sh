# A low soft limit on open files (the hard one high): perf record $MAPS raises
# the soft limit to the hard one and records; so must precord, with
# --threads=cpu and in the default layout with every sched tracepoint.
guest() {
	local soft=$((2 * $(ncpus)))
	echo "soft limit $soft, hard $(ulimit -Hn)"
	(ulimit -Sn $soft && run perf perf record $MAPS --threads=cpu -a -e cpu-clock -o "$D/perf.data" -- sleep 1)
	(ulimit -Sn $soft && run cpu "$PRECORD" $MAPS --threads=cpu -a -e cpu-clock -o "$D/cpu.data" -- sleep 1)
	(ulimit -Sn $soft && run psched perf record $MAPS -e 'sched:*' -a -o "$D/psched.data" -- sleep 1)
	(ulimit -Sn $soft && run sched "$PRECORD" $MAPS -e 'sched:*' -a -o "$D/sched.data" -- sleep 1)
}

check() {
	want_rc perf
	want_rc cpu
	read_clean "$D/cpu.data" cpu
	want_all_cpus cpu
	want_rc psched
	want_rc sched
	read_clean "$D/sched.data" sched
	note "soft limit $((2 * $(ncpus))): --threads=cpu $(samples cpu) samples, sched:* $(samples sched) samples"
}
