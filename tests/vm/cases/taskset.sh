# taskset: precord started on a few CPUs across nodes records every CPU
# with -a, and a workload on one CPU.
guest() {
	local cpus one
	cpus=$(pick_cpus)
	one=${cpus##*,}
	echo "$cpus" >"$D/cpus"
	echo "$one" >"$D/one"
	run all taskset -c "$cpus" "$PRECORD" $MAPS -a -F 1000 -e cpu-clock -o "$D/all.data" -- sleep 2
	run one taskset -c "$one" "$PRECORD" $MAPS -F 1000 -e cpu-clock -o "$D/one.data" -- "$MATMUL" -t 2 -n 200 -r 10
}

check() {
	want_rc all
	read_clean "$D/all.data" all
	want_all_cpus all
	want_rc one
	read_clean "$D/one.data" one
	grep -q ' matmul ' "$D/one.script" || fail "no sample of the workload"
	note "taskset -c $(cat "$D/cpus") -a: $(samples all) samples; taskset -c $(cat "$D/one"): $(samples one) samples"
}
