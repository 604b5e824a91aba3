# --kcore (the guest's kernel has /proc/kcore; the host's may not): the
# output is a directory with kcore_dir beside the data, as perf record
# --kcore makes it. Against perf's own: the same files in kcore_dir, the
# same ELF and program headers in kcore, kallsyms and modules the same;
# perf report says it reads the kernel's text from precord's kcore_dir, and
# perf script names the kernel addresses as the guest's kallsyms does; the
# text-poke dummy is perf's. Both layouts: the streaming threads' (data +
# data.N) and one file (--no-threads: data alone, perf's --kcore layout).
guest() {
	[ -r /proc/kcore ] || { echo "no /proc/kcore in the guest"; return 0; }
	run perf perf record --kcore -a -F 1000 -e cpu-clock -o "$D/perf.data" -- "$SPIN" 1
	run rec "$PRECORD" $MAPS --kcore -a -F 1000 -e cpu-clock -o "$D/rec.data" -- "$SPIN" 1
	run one "$PRECORD" $MAPS --kcore --no-threads -a -F 1000 -e cpu-clock -o "$D/one.data" -- "$SPIN" 1
	# what cannot hold a directory
	run pipe "$PRECORD" --kcore -e cpu-clock -o - -- true
	run dev "$PRECORD" --kcore -e cpu-clock -o /dev/null -- true
	run sw "$PRECORD" --kcore --switch-output -e cpu-clock -o "$D/sw.data" -- true
	return 0
}

# kernel_syms TAG: the kernel samples' "ip sym" lines of a perf script.
kernel_syms() {
	awk '$1 ~ /^ffff/ { print $1, $2 }' "$D/$1.ksyms"
}

. "$TOP/tests/kcore-lib.sh"

check_one() {
	local tag=$1 dir=$D/$1.data
	want_rc "$tag"
	[ -d "$dir/kcore_dir" ] || fail "$tag: no kcore_dir in $dir"
	[ -f "$dir/data" ] || fail "$tag: no data in $dir"
	same_kcore_dir "$tag" "$D/perf.data" "$dir"
	perf report -v --stdio --sort sym -i "$dir" >"$D/$tag.report" 2>&1 ||
		{ tail "$D/$tag.report"; fail "$tag: perf report failed"; }
	grep -q "Using $dir/kcore_dir/kcore for kernel data" "$D/$tag.report" ||
		{ grep -i 'using\|kcore' "$D/$tag.report"; fail "$tag: perf report does not read its kcore_dir"; }
	perf script -F ip,sym -i "$dir" >"$D/$tag.ksyms" 2>"$D/$tag.ksyms.err" ||
		fail "$tag: perf script failed"
	[ "$(kernel_syms "$tag" | wc -l)" -gt 0 ] || fail "$tag: no kernel samples"
	kernel_syms "$tag" | grep -q ' \[unknown\]$' && fail "$tag: kernel addresses left unnamed"
	perf script -F ip,sym --kallsyms="$dir/kcore_dir/kallsyms" -i "$dir" >"$D/$tag.kall" 2>/dev/null
	diff <(kernel_syms "$tag") <(awk '$1 ~ /^ffff/ { print $1, $2 }' "$D/$tag.kall") >/dev/null ||
		fail "$tag: the kernel's names through kcore differ from kallsyms's"
	perf evlist -v -i "$dir" | grep '^dummy:u' | grep -q 'text_poke: 1' ||
		fail "$tag: no text-poke dummy (perf's dummy:u with text_poke)"
	note "$tag: kcore_dir as perf's ($(stat -c %s "$dir/kcore_dir/kcore") bytes of text), $(kernel_syms "$tag" | wc -l) kernel samples named through it"
}

check() {
	[ "$(rc perf)" = none ] && skip "the guest has no /proc/kcore"
	want_rc perf
	[ -d "$D/perf.data/kcore_dir" ] || fail "perf record --kcore made no kcore_dir"
	check_one rec
	[ "$(ls "$D/rec.data" | grep -c '^data\.[0-9]*$')" -gt 0 ] ||
		fail "rec: the streaming threads' layout has no data.N"
	check_one one
	diff <(ls "$D/perf.data") <(ls "$D/one.data") || fail "one: the directory is not perf's (data, kcore_dir)"
	for t in pipe dev sw; do
		[ "$(rc $t)" != 0 ] || fail "$t: --kcore succeeded"
		[ "$(wc -l <"$D/$t.err")" = 1 ] || { cat "$D/$t.err"; fail "$t: --kcore refused in more than one line"; }
	done
	ls "$D" | grep -q '^sw\.data' && fail "sw: --kcore --switch-output left something on disk"
	note "--kcore refused in one line with pipe output, a device and --switch-output: $(cat "$D/pipe.err")"
}
