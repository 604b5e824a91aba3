# The default layout: one streaming thread per node that has CPUs, pinned to
# that node's CPUs, none for a CPU-less node; samples from every CPU; the
# header's topology as perf's own recording on the same guest has it.
guest() {
	run_bg rec "$PRECORD" $MAPS -a -F 1000 -e cpu-clock -o "$D/rec.data" -- "$SPIN" 600
	wait_threads "$BG" "$(cpu_nodes | wc -w)" && affinity "$BG" >"$D/rec.affinity"
	stop_workload "$BG"
	wait_bg rec
	run perf perf record $MAPS -a -F 1000 -e cpu-clock -o "$D/perf.data" -- sleep 0.5
}

check() {
	want_rc rec
	read_clean "$D/rec.data" rec
	node_groups | want_threads rec
	want_affinity rec
	want_all_cpus rec
	[ "$(samples rec)" = "$(summary_samples rec)" ] ||
		fail "perf reads $(samples rec) samples, the summary says $(summary_samples rec)"
	grep -q "^# nrcpus online : $(ncpus)\$" "$D/rec.header" || fail "the header's nrcpus online is not $(ncpus)"
	want_rc perf
	perf_quiet perf.header -- report --header-only -I -i "$D/perf.data"
	grep '^# node[0-9]* cpu list' "$D/perf.header" >"$D/perf.nodes"
	grep '^# node[0-9]* cpu list' "$D/rec.header" >"$D/rec.nodes"
	diff -u "$D/perf.nodes" "$D/rec.nodes" || fail "the header's NUMA topology differs from perf's"
	note "$(threads rec | wc -l) threads for nodes $(cpu_nodes)of $(nodes); $(samples rec) samples from CPUs $(sample_cpus rec | wc -w)/$(ncpus)"
}
