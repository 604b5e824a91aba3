# ulimit -n 1024 (soft and hard) with every sched tracepoint on every CPU:
# a descriptor per event and CPU, more than 1024 on a big guest. perf, as
# root, raises the hard limit by 1000 (and the soft one to it) each time
# an event's descriptors do not fit, so it records. precord records where perf does, and where neither
# can, fails as cleanly: an exit status, not a signal, and a message that
# names the limit.
guest() {
	(ulimit -n 1024 && run perf perf record $MAPS -e 'sched:*' -a -o "$D/perf.data" -- sleep 1)
	(ulimit -n 1024 && run rec "$PRECORD" $MAPS -e 'sched:*' -a -o "$D/rec.data" -- sleep 1)
}

check() {
	if [ "$(rc perf)" = 0 ]; then
		want_rc rec
		read_clean "$D/rec.data" rec
		note "perf and precord record at ulimit -n 1024 ($(samples rec) samples)"
		return 0
	fi
	if [ "$(rc rec)" = 0 ]; then
		read_clean "$D/rec.data" rec
		note "perf fails at ulimit -n 1024 (exit $(rc perf)), precord records ($(samples rec) samples)"
		return 0
	fi
	[ "$(rc rec)" -ne 0 ] && [ "$(rc rec)" -lt 128 ] ||
		{ tail -n 20 "$D/rec.err"; backtraces; fail "perf fails (exit $(rc perf)); precord exited $(rc rec)"; }
	grep -qiE 'open files|ulimit|RLIMIT_NOFILE|EMFILE' "$D/rec.err" ||
		{ cat "$D/rec.err"; fail "precord's error does not name the file limit"; }
	note "neither records at ulimit -n 1024: perf exit $(rc perf), precord exit $(rc rec): $(grep -m1 precord: "$D/rec.err")"
}
