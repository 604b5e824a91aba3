# precord bench evlist-open-close (every CPU, a worker per CPU, and serial)
# and precord bench synthesize (single and multi-threaded) run through.
guest() {
	run evl "$PRECORD" bench evlist-open-close -a -i 5 -n 4
	run evl1 "$PRECORD" bench evlist-open-close -a -i 5 -n 4 -j 1
	run synth "$PRECORD" bench synthesize -s -t -i 3 -I 3 -m 1 -M 4
}

check() {
	local b
	for b in evl evl1 synth; do
		want_rc $b
		[ ! -s "$D/$b.err" ] || { cat "$D/$b.err"; fail "$b wrote to stderr"; }
	done
	grep -q "Number of cpus:[[:space:]]*$(ncpus)\$" "$D/evl.out" || { cat "$D/evl.out"; fail "evlist-open-close -a did not open on $(ncpus) CPUs"; }
	grep -q 'Average open-close took' "$D/evl.out" || fail "no average in evlist-open-close's output"
	grep -q 'Average synthesis took' "$D/synth.out" || fail "no average in synthesize's output"
	note "$(grep -h 'Average open-close' "$D/evl.out" "$D/evl1.out" | xargs)"
}
