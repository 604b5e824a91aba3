# --no-threads: perf's serial layout, one file, samples from every CPU.
guest() {
	run rec "$PRECORD" $MAPS --no-threads -a -F 1000 -e cpu-clock -o "$D/rec.data" -- "$SPIN" 1
}

check() {
	# perf's serial layout orders records by its FINISHED_ROUNDs alone; under
	# emulation a vCPU can stall between a sample's time stamp and its write
	# into the ring for two rounds, and perf's reader says so (perf record's
	# own serial file has the same limit; the default layouts merge by time)
	PERF_ALLOW='^(Warning:)?$|^[0-9]+ out of order events recorded\.$'
	want_rc rec
	read_clean "$D/rec.data" rec
	want_all_cpus rec
	[ "$(threads rec | wc -l)" -eq 0 ] || fail "--no-threads started streaming threads"
	[ "$(samples rec)" = "$(summary_samples rec)" ] ||
		fail "perf reads $(samples rec) samples, the summary says $(summary_samples rec)"
	note "$(samples rec) samples in one file"
}
