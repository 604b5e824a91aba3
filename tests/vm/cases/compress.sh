# -z: zstd-compressed records, in the default layout, that perf reads back
# sample for sample.
guest() {
	run rec "$PRECORD" $MAPS -z -a -F 1000 -e cpu-clock -o "$D/rec.data" -- "$SPIN" 1
}

check() {
	want_rc rec
	read_clean "$D/rec.data" rec
	grep -q '^# compressed : Zstd' "$D/rec.header" || fail "no HEADER_COMPRESSED (# compressed : Zstd)"
	grep -q 'COMPRESSED' "$D/rec.stats" || fail "no COMPRESSED records in perf report --stats"
	want_all_cpus rec
	[ "$(wc -l <"$D/rec.script")" = "$(summary_samples rec)" ] ||
		fail "perf script prints $(wc -l <"$D/rec.script") samples, the summary says $(summary_samples rec)"
	note "$(summary_samples rec) samples read back from the compressed file"
}
