# Offline CPUs: one CPU of the first node, and every CPU of the last node
# with CPUs when there are three or more. The default layout has a thread
# per node with online CPUs, --threads=cpu one per online CPU, and the
# samples and the header say which CPUs were online.
guest() {
	local ns first last c
	ns=($(cpu_nodes))
	first=($(node_cpus "${ns[0]}"))
	off=()
	[ ${#first[@]} -ge 2 ] && off+=("${first[${#first[@]} - 1]}")
	[ ${#ns[@]} -ge 3 ] && off+=($(node_cpus "${ns[${#ns[@]} - 1]}"))
	[ ${#off[@]} -gt 0 ] || { echo "no CPU to take offline"; return 0; }
	for c in "${off[@]}"; do echo 0 >/sys/devices/system/cpu/cpu$c/online; done
	echo "offline: ${off[*]}; online: $(cat /sys/devices/system/cpu/online)"
	save_topology "$D/sys"
	run_bg rec "$PRECORD" $MAPS -a -F 1000 -e cpu-clock -o "$D/rec.data" -- "$SPIN" 600
	wait_threads "$BG" "$(cpu_nodes | wc -w)" && affinity "$BG" >"$D/rec.affinity"
	stop_workload "$BG"
	wait_bg rec
	run cpu "$PRECORD" $MAPS --threads=cpu -a -F 1000 -e cpu-clock -o "$D/cpu.data" -- "$SPIN" 1
	for c in "${off[@]}"; do echo 1 >/sys/devices/system/cpu/cpu$c/online; done
}

check() {
	[ -d "$D/sys" ] || skip "no CPU to take offline on this guest"
	SYS=$D/sys
	want_rc rec
	read_clean "$D/rec.data" rec
	node_groups | want_threads rec
	want_affinity rec
	want_all_cpus rec
	grep -q "^# nrcpus online : $(ncpus)\$" "$D/rec.header" || fail "the header's nrcpus online is not $(ncpus)"
	want_rc cpu
	read_clean "$D/cpu.data" cpu
	online | tr ' ' '\n' | want_threads cpu
	want_all_cpus cpu
	note "online $(cat "$SYS/cpu/online") of $(cat "$SYS/cpu/possible"): $(threads rec | wc -l) node threads, $(threads cpu | wc -l) CPU threads"
}
