# A cgroup v2 cpuset of a few CPUs across nodes that leaves out every CPU of
# some node (a container's view of a big machine): precord -a, and precord
# of a workload, record from inside it as perf does; every streaming thread
# stays in the cpuset.
guest() {
	pick_cpus >"$D/cpuset"
	cpuset_guest
}

# cpuset_guest: record in the cpuset D/cpuset, perf first.
cpuset_guest() {
	enter_cpuset "$(cat "$D/cpuset")"
	run perf perf record $MAPS -a -F 1000 -e cpu-clock -o "$D/perf.data" -- sleep 3
	run_bg rec "$PRECORD" $MAPS -a -F 1000 -e cpu-clock -o "$D/rec.data" -- sleep 3
	wait_threads "$BG" && affinity "$BG" >"$D/rec.affinity"
	wait_bg rec
	run wl "$PRECORD" $MAPS -F 1000 -e cpu-clock -o "$D/wl.data" -- "$MATMUL" -t 4 -n 200 -r 10
	leave_cpuset
}

check() {
	local cpus t l c
	cpus=$(expand "$(cat "$D/cpuset")")
	want_rc perf
	want_rc rec
	read_clean "$D/rec.data" rec
	want_all_cpus rec
	while read -r t l; do
		for c in $(expand "$l"); do
			[[ " $cpus " == *" $c "* ]] || fail "$t runs on CPU $c, outside the cpuset $(cat "$D/cpuset")"
		done
	done <"$D/rec.affinity"
	want_rc wl
	read_clean "$D/wl.data" wl
	grep -q ' matmul ' "$D/wl.script" || fail "no sample of the workload"
	note "cpuset $(cat "$D/cpuset"): -a $(samples rec) samples from $(sample_cpus rec | wc -w) CPUs, $(threads rec | wc -l) threads; workload $(samples wl) samples"
}
