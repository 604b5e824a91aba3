# SIGKILL during a recording with a thread per node: the staging directory
# stays, and precord merge DIR.staging makes a perf.data of it that perf
# reads, with samples from every CPU.
guest() {
	local spin
	run_bg rec "$PRECORD" $MAPS -a -F 1000 -e cpu-clock -o "$D/rec.data" -- "$SPIN" 60
	if wait_threads "$BG"; then
		sleep 3
		spin=$(pgrep -P "$BG")
		kill -KILL "$BG"
		kill -TERM $spin
	fi
	wait_bg rec
	ls -la "$D" "$D/rec.data.staging" >"$D/ls.out" 2>&1
	run merge "$PRECORD" merge "$D/rec.data.staging"
}

check() {
	want_rc rec 137
	[ -d "$D/rec.data.staging" ] || { cat "$D/ls.out"; fail "no rec.data.staging left after SIGKILL"; }
	want_rc merge
	[ -f "$D/rec.data" ] || fail "precord merge rec.data.staging did not write rec.data"
	read_clean "$D/rec.data" rec
	want_all_cpus rec
	note "precord merge saved $(samples rec) samples from $(ls "$D/rec.data.staging" | grep -c '^data\.') ring files"
}
