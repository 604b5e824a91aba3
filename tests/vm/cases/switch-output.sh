# --switch-output: a streaming recording cut in three by two SIGUSR2; perf
# reads each piece, and together they hold the samples the summary counts.
guest() {
	mkdir -p "$D/so"
	run_bg so "$PRECORD" $MAPS --switch-output -a -F 1000 -e cpu-clock -o "$D/so/so" -- "$SPIN" 600
	if wait_threads "$BG"; then
		sleep 1
		kill -USR2 "$BG"
		sleep 2
		kill -USR2 "$BG"
		sleep 2
	fi
	stop_workload "$BG"
	wait_bg so
}

check() {
	local f k=0 last=0
	want_rc so
	want_pieces so 3 "pieces (two SIGUSR2, exit)"
	for f in $(pieces so); do
		read_clean "$f" so$k
		last=$(samples so$k)
		k=$((k + 1))
	done
	want_all_cpus so1
	# as perf's, the closing line names the last piece and counts its samples
	[ "$last" -eq "$(summary_samples so)" ] || fail "the last piece holds $last samples, the summary says $(summary_samples so)"
	note "3 pieces: $(samples so0) + $(samples so1) + $(samples so2) samples"
}
