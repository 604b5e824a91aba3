# --threads=cpu: one streaming thread per CPU, pinned to it, one ring file
# each merged into one perf.data that perf reads, with samples from every CPU.
guest() {
	run_bg rec "$PRECORD" $MAPS --threads=cpu -a -F 1000 -e cpu-clock -o "$D/rec.data" -- "$SPIN" 600
	wait_threads "$BG" "$(ncpus)" && affinity "$BG" >"$D/rec.affinity"
	stop_workload "$BG"
	wait_bg rec
}

check() {
	want_rc rec
	read_clean "$D/rec.data" rec
	online | tr ' ' '\n' | want_threads rec
	want_affinity rec
	want_all_cpus rec
	grep -q "Merged $(ncpus) ring files" "$D/rec.err" || fail "not 'Merged $(ncpus) ring files'"
	[ "$(samples rec)" = "$(summary_samples rec)" ] ||
		fail "perf reads $(samples rec) samples, the summary says $(summary_samples rec)"
	note "$(ncpus) threads, $(ncpus) ring files merged, $(samples rec) samples"
}
