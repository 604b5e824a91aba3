# SIGINT ends a system-wide recording without a workload: it exits as perf
# does (killed by the SIGINT it raises again, 130 in the shell) and the file
# holds samples from every CPU.
guest() {
	run_bg rec "$PRECORD" $MAPS -a -F 1000 -e cpu-clock -o "$D/rec.data"
	if wait_threads "$BG"; then
		sleep 1
		kill -INT "$BG"
	fi
	wait_bg rec
	run_bg perf perf record $MAPS -a -F 1000 -e cpu-clock -o "$D/perf.data"
	if wait_file "$D/perf.data"; then
		sleep 2
		kill -INT "$BG"
	fi
	wait_bg perf
	return 0
}

check() {
	want_rc rec "$(rc perf)"
	read_clean "$D/rec.data" rec
	want_all_cpus rec
	[ "$(samples rec)" = "$(summary_samples rec)" ] ||
		fail "perf reads $(samples rec) samples, the summary says $(summary_samples rec)"
	note "exit $(rc rec) (perf: $(rc perf)); $(samples rec) samples"
}
