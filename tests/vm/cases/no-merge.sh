# --no-merge: perf's directory layout, one data.N file per ring, that perf
# reads as it is; precord merge of the directory holds the same records.
guest() {
	run rec "$PRECORD" $MAPS --no-merge -a -F 1000 -e cpu-clock -o "$D/dir" -- "$SPIN" 1
	run merge "$PRECORD" merge "$D/dir" -o "$D/merged.data"
}

# stats TAG: perf report --stats totals, without the records the merge adds.
stats() {
	grep -E '^ *[A-Z_]+ events:' "$D/$1.stats" | grep -vE 'FINISHED_ROUND|COMPRESSED|TOTAL' |
		sed 's/(.*//; s/  */ /g' | sort
}

check() {
	local n
	want_rc rec
	[ -f "$D/dir/data" ] || fail "no $D/dir/data"
	n=$(ls "$D/dir" | grep -c '^data\.[0-9]*$')
	[ "$n" -eq "$(ncpus)" ] || fail "$n data.N files, want one per ring ($(ncpus))"
	read_clean "$D/dir" dir
	want_all_cpus dir
	want_rc merge
	read_clean "$D/merged.data" merged
	diff -u <(stats dir) <(stats merged) || fail "perf report --stats differs between the directory and its merge"
	note "$n ring files; the directory and its merge: $(samples merged) samples"
}
