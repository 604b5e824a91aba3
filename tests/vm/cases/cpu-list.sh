# -C with a list across nodes: a streaming thread per node the list touches,
# with the listed CPUs of that node, and samples from those CPUs only.
guest() {
	local cpus
	cpus=$(pick_cpus)
	echo "$cpus" >"$D/cpus"
	run_bg rec "$PRECORD" $MAPS -C "$cpus" -F 1000 -e cpu-clock -o "$D/rec.data" -- "$SPIN" 600
	wait_threads "$BG" && affinity "$BG" >"$D/rec.affinity"
	stop_workload "$BG"
	wait_bg rec
}

check() {
	local cpus n g
	cpus=$(expand "$(cat "$D/cpus")")
	want_rc rec
	read_clean "$D/rec.data" rec
	for n in $(cpu_nodes); do
		g=$(for c in $(node_cpus "$n"); do [[ " $cpus " == *" $c "* ]] && echo "$c"; done | xargs)
		[ -n "$g" ] && echo "$g"
	done | want_threads rec
	want_affinity rec
	same_set "$(sample_cpus rec)" "$cpus" || fail "samples from CPUs [$(sample_cpus rec)], want [$cpus]"
	note "-C $(cat "$D/cpus"): $(threads rec | wc -l) threads, $(samples rec) samples"
}
