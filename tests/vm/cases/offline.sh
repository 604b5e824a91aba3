# Offline CPUs: one CPU of the first node, and every CPU of the last node
# with CPUs when there are three or more. The default layout has a thread
# per node with online CPUs, --threads=cpu one per online CPU, and the
# samples and the header say which CPUs were online. A -C list or a
# --threads mask naming an offline CPU is refused in one line, with
# nothing made and an older output left as it was. A CPU that goes offline
# while the events are being opened (strace holds every first
# perf_event_open for a few seconds meanwhile) is left out with one
# warning line, and every other CPU is recorded.
guest() {
	local ns first last c i t sc victim pid
	ns=($(cpu_nodes))
	first=($(node_cpus "${ns[0]}"))
	off=()
	[ ${#first[@]} -ge 2 ] && off+=("${first[${#first[@]} - 1]}")
	[ ${#ns[@]} -ge 3 ] && off+=($(node_cpus "${ns[${#ns[@]} - 1]}"))
	[ ${#off[@]} -gt 0 ] || { echo "no CPU to take offline"; return 0; }
	for c in "${off[@]}"; do echo 0 >/sys/devices/system/cpu/cpu$c/online; done
	echo "offline: ${off[*]}; online: $(cat /sys/devices/system/cpu/online)"
	save_topology "$D/sys"
	echo "${off[*]}" >"$D/offline"
	run_bg rec "$PRECORD" $MAPS -a -F 1000 -e cpu-clock -o "$D/rec.data" -- "$SPIN" 600
	wait_threads "$BG" "$(cpu_nodes | wc -w)" && affinity "$BG" >"$D/rec.affinity"
	stop_workload "$BG"
	wait_bg rec
	run cpu "$PRECORD" $MAPS --threads=cpu -a -F 1000 -e cpu-clock -o "$D/cpu.data" -- "$SPIN" 1

	# bad input: nothing made, the older output untouched
	for t in C mask; do
		printf 'an earlier recording\n' >"$D/$t.data"
	done
	run C "$PRECORD" -C "${first[0]},${off[0]}" -e cpu-clock -o "$D/C.data" -- true
	run mask "$PRECORD" -a --threads="${first[0]}/${first[0]}:${off[0]}/${off[0]}" -e cpu-clock \
		-o "$D/mask.data" -- true
	ls "$D" >"$D/bad.ls"

	# a CPU gone offline during the open: the first CPU of the second node
	if command -v strace >/dev/null && [ ${#ns[@]} -ge 2 ]; then
		victim=$(node_cpus "${ns[1]}" | awk '{ print $1 }')
		echo "$victim" >"$D/gone.victim"
		# --seccomp-bpf: only perf_event_open stops the tracee; stopping every
		# system call of hundreds of threads on emulated CPUs takes many minutes
		run_bg gone strace --seccomp-bpf -f -qq -o "$D/gone.strace" -e trace=perf_event_open \
			-e inject=perf_event_open:delay_enter=5000000:when=1 \
			"$PRECORD" $MAPS -a -F 1000 -e cpu-clock -o "$D/gone.data" -- "$SPIN" 2
		# once a thread of precord waits in perf_event_open (298), the CPU goes
		for ((i = 0; i < 3000; i++)); do
			pid=$(pgrep -P "$BG" -x precord)
			sc=""
			[ -n "$pid" ] && for t in /proc/"$pid"/task/*/syscall; do
				read -r sc _ <"$t" 2>/dev/null && [ "$sc" = 298 ] && break
			done
			[ "$sc" = 298 ] && break
			sleep 0.1
		done
		echo "$(at) precord waits in perf_event_open ($sc): CPU $victim goes offline"
		echo 0 >/sys/devices/system/cpu/cpu$victim/online
		wait_bg gone
		echo 1 >/sys/devices/system/cpu/cpu$victim/online
	fi
	for c in "${off[@]}"; do echo 1 >/sys/devices/system/cpu/cpu$c/online; done
}

# bad_input NAME PATTERN: NAME failed in one line matching PATTERN and left
# its older output as it was, with nothing beside it
bad_input() {
	[ "$(rc "$1")" != 0 ] || fail "$1: exit status 0"
	[ "$(grep -c . "$D/$1.err")" -eq 1 ] && grep -q -- "$2" "$D/$1.err" ||
		{ cat "$D/$1.err"; fail "$1: want one line '$2'"; }
	[ "$(cat "$D/$1.data")" = "an earlier recording" ] || fail "$1: the older output was changed"
	! grep -q "^$1\.data\." "$D/bad.ls" || fail "$1: $(grep "^$1\.data\." "$D/bad.ls" | xargs) made beside the output"
	note "$1: exit $(rc "$1"): $(cat "$D/$1.err")"
}

check() {
	local off victim want want_list
	[ -d "$D/sys" ] || skip "no CPU to take offline on this guest"
	SYS=$D/sys
	off=($(cat "$D/offline"))
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

	bad_input C "^precord: CPU ${off[0]} of -C is offline (online: $(cat "$SYS/cpu/online")): bring it online or leave it out of -C$"
	bad_input mask "^precord: Failed to initialize maps thread mask: CPU ${off[0]} is offline (online: $(cat "$SYS/cpu/online")); bring it online or leave it out of --threads$"

	[ -f "$D/gone.victim" ] || { note "no strace, or one node: no CPU taken offline during the open"; return 0; }
	victim=$(cat "$D/gone.victim")
	grep -q '(DELAYED)$' "$D/gone.strace" || fail "gone: strace held no perf_event_open"
	want_rc gone
	want=$(online | tr ' ' '\n' | grep -vx "$victim" | xargs)
	want_list=$(echo $want | tr ' ' '\n' | awk 'NR == 1 { s = p = $1; next }
		$1 == p + 1 { p = $1; next } { printf "%s%s,", s, s == p ? "" : "-" p; s = p = $1 }
		END { printf "%s%s\n", s, s == p ? "" : "-" p }')
	[ "$(grep -c '^precord: ' "$D/gone.err")" -eq 1 ] &&
		grep -qx "precord: warning: cannot record CPU $victim (offline); recording CPUs $want_list" "$D/gone.err" || {
		cat "$D/gone.err"
		fail "gone: want one line 'precord: warning: cannot record CPU $victim (offline); recording CPUs $want_list'"
	}
	read_clean "$D/gone.data" gone
	same_set "$(sample_cpus gone)" "$want" || fail "gone: samples from CPUs [$(sample_cpus gone)], want [$want]"
	note "gone: CPU $victim offline during the open: $(grep '^precord: ' "$D/gone.err"); samples from CPUs $(sample_cpus gone)"
}
