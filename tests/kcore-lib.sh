# Sourced by tests/integration/kcore.sh and tests/vm/cases/kcore.sh (after
# their lib.sh, which gives fail): a recording's kcore_dir against perf's.
#   same_kcore_dir TAG REF DIR   DIR/kcore_dir and REF/kcore_dir (perf's)
#                                hold the same files with the same modes,
#                                the same kallsyms and modules, and a kcore
#                                of the same ELF and program headers and size
#                                (the text's bytes change as the kernel
#                                patches itself; the layout must not)
same_kcore_dir() {
	local tag=$1 ref=$2/kcore_dir dir=$3/kcore_dir f
	diff <(cd "$ref" && ls -l | awk 'NR > 1 { print $1, $NF }') \
	     <(cd "$dir" && ls -l | awk 'NR > 1 { print $1, $NF }') ||
		fail "$tag: kcore_dir's files (names, modes) are not perf's"
	for f in kallsyms modules; do
		cmp -s "$ref/$f" "$dir/$f" || fail "$tag: $f is not perf's copy"
	done
	diff <(readelf -hlW "$ref/kcore") <(readelf -hlW "$dir/kcore") ||
		fail "$tag: kcore's ELF and program headers are not perf's"
	[ "$(stat -c %s "$ref/kcore")" = "$(stat -c %s "$dir/kcore")" ] ||
		fail "$tag: kcore's size is not perf's"
}
