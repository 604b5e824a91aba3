# --overwrite, the flight recorder: the exit snapshot to -o FILE, and with
# --switch-output a snapshot file on SIGUSR2 and one at exit; perf reads
# each, with samples from every CPU.
guest() {
	run one "$PRECORD" $MAPS --overwrite -a -F 1000 -e cpu-clock -m 8 -o "$D/one.data" -- "$SPIN" 2
	mkdir -p "$D/fr"
	run_bg fr "$PRECORD" $MAPS --overwrite --switch-output -a -F 1000 -e cpu-clock -m 8 -o "$D/fr/fr" -- \
		"$SPIN" 600
	if wait_threads "$BG"; then
		sleep 1
		kill -USR2 "$BG"
		sleep 2
	fi
	stop_workload "$BG"
	wait_bg fr
}

check() {
	local f k=0
	# The kernel writes nothing into a paused ring: samples it drops while
	# a snapshot is taken are counted (LOST_SAMPLES), the summary says so,
	# and perf warns of them. More rings take longer to pause and read.
	grep -q 'samples were dropped while the rings were paused' "$D/one.err" "$D/fr.err" &&
		PERF_ALLOW='^Warning:$|^Processed [0-9]+ samples and lost [0-9.]+%!$|^$'
	want_rc one
	read_clean "$D/one.data" one
	want_all_cpus one
	want_rc fr
	want_pieces fr 2 "snapshots (SIGUSR2, exit)"
	for f in $(pieces fr); do
		read_clean "$f" fr$k
		want_all_cpus fr$k
		k=$((k + 1))
	done
	note "exit snapshot: $(samples one) samples; --switch-output: $(samples fr0) + $(samples fr1) samples"
}
