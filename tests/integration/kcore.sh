#!/bin/bash
# --kcore against perf record --kcore on this machine: the output is a
# directory with kcore_dir beside the data; kcore_dir holds the files
# perf's holds (names, modes), kallsyms and modules as perf copied them,
# kcore with perf's ELF and program headers and size; perf report says it
# reads the kernel from precord's kcore_dir and perf script names the
# kernel's addresses through it as through its kallsyms. Both layouts: the
# streaming threads' directory and one file (--no-threads). The copy's
# bytes against perf's own kcore_copy() are tests/test_kcore.c's (on a
# made-up /proc); a guest with /proc/kcore runs this comparison as
# tests/vm/cases/kcore.sh where this machine has none.
# Without /proc/kcore: one line, non-zero, nothing on disk. Either way: a
# recording directory holding a kcore_dir goes aside as FILE.old and is
# removed as a recording, and precord merge refuses it.
. "$(dirname "$0")/../lib.sh"
. "$TOP/tests/kcore-lib.sh"

SPIN=${SPIN:-$TOP/build/tests/spin}
[ -x "$SPIN" ] || fail "no $SPIN (make tests)"

# ksyms DIR: the kernel samples' "ip sym" as perf script names them (ARGS: more options).
ksyms() { local d=$1; shift; perf script -F ip,sym "$@" -i "$d" 2>/dev/null | awk '$1 ~ /^ffff/ { print $1, $2 }'; }

# same_as_perf TAG DIR: DIR's kcore_dir against perf's in $T/perf.data.
same_as_perf() {
	local tag=$1 dir=$2
	[ -d "$dir/kcore_dir" ] && [ -f "$dir/data" ] || fail "$tag: no data and kcore_dir in $dir"
	same_kcore_dir "$tag" "$T/perf.data" "$dir"
	perf report -v --stdio --sort sym -i "$dir" >"$T/$tag.report" 2>&1 || fail "$tag: perf report failed"
	grep -q "Using $dir/kcore_dir/kcore for kernel data" "$T/$tag.report" ||
		{ grep -i 'using\|kcore' "$T/$tag.report"; fail "$tag: perf report does not read its kcore_dir"; }
	ksyms "$dir" >"$T/$tag.ksyms"
	[ -s "$T/$tag.ksyms" ] || fail "$tag: no kernel samples"
	grep -q ' \[unknown\]$' "$T/$tag.ksyms" && fail "$tag: kernel addresses left unnamed"
	diff -q "$T/$tag.ksyms" <(ksyms "$dir" --kallsyms="$dir/kcore_dir/kallsyms") >/dev/null ||
		fail "$tag: the kernel's names through kcore differ from kallsyms's"
	perf evlist -v -i "$dir" | grep '^dummy:u' | grep -q 'text_poke: 1' ||
		fail "$tag: no text-poke dummy (perf's dummy:u with text_poke)"
	note "$tag: kcore_dir as perf's, $(wc -l <"$T/$tag.ksyms") kernel samples named through it"
}

if [ -r /proc/kcore ]; then
	perf record -q --kcore -a -F 1000 -e cpu-clock -o "$T/perf.data" -- "$SPIN" 1 >/dev/null 2>"$T/perr" ||
		{ cat "$T/perr"; fail "perf record --kcore failed"; }
	"$PRECORD" -q --kcore -a -F 1000 -e cpu-clock -o "$T/rec.data" -- "$SPIN" 1 2>"$T/err" ||
		{ cat "$T/err"; fail "precord --kcore failed"; }
	same_as_perf rec "$T/rec.data"
	"$PRECORD" -q --kcore --no-threads -a -F 1000 -e cpu-clock -o "$T/one.data" -- "$SPIN" 1 2>"$T/err" ||
		{ cat "$T/err"; fail "precord --kcore --no-threads failed"; }
	same_as_perf one "$T/one.data"
	diff <(ls "$T/perf.data") <(ls "$T/one.data") || fail "one file: the directory is not perf's (data, kcore_dir)"
	# what cannot hold a directory: one line each, nothing written
	for args in "-o -" "-o /dev/null" "--switch-output -o $T/sw.data"; do
		if "$PRECORD" --kcore $args -e cpu-clock -- true >/dev/null 2>"$T/err"; then
			fail "--kcore $args succeeded"
		fi
		[ "$(wc -l <"$T/err")" = 1 ] || { cat "$T/err"; fail "--kcore $args: not one line"; }
	done
	ls "$T" | grep -q '^sw\.data' && fail "--kcore --switch-output left something on disk"
	note "--kcore refused with pipe output, a device and --switch-output"
else
	if "$PRECORD" --kcore -a -o "$T/k.data" -- true 2>"$T/err"; then fail "--kcore without /proc/kcore succeeded"; fi
	grep -q 'kcore is not readable' "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] || { cat "$T/err"; fail "not one line"; }
	[ -e "$T/k.data" ] && fail "--kcore without /proc/kcore left something on disk"
	note "no /proc/kcore here: refused as perf does; the comparison with perf's --kcore is tests/vm/cases/kcore.sh's"
fi

# A recording directory with a kcore_dir (made by hand here where no
# /proc/kcore can be read): FILE.old, then removed when FILE.old is replaced.
mkkdir() {
	"$PRECORD" -q --no-merge -e cpu-clock -o "$1" -- true 2>"$T/err" || { cat "$T/err"; fail "precord --no-merge failed"; }
	mkdir "$1/kcore_dir" && for f in kallsyms modules kcore; do echo x >"$1/kcore_dir/$f"; done
}
mkkdir "$T/d.data"
"$PRECORD" merge "$T/d.data" -o "$T/merged.data" 2>"$T/err" && fail "precord merge of a --kcore directory succeeded"
grep -q 'kcore_dir' "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] || { cat "$T/err"; fail "merge refusal: not one line"; }
[ -f "$T/d.data/kcore_dir/kcore" ] && [ ! -e "$T/merged.data" ] || fail "precord merge touched the directory"
"$PRECORD" -q -e cpu-clock -o "$T/d.data" -- true 2>"$T/err" || { cat "$T/err"; fail "recording over a --kcore directory failed"; }
[ -f "$T/d.data.old/kcore_dir/kcore" ] && [ -f "$T/d.data" ] || fail "the --kcore directory was not kept as FILE.old"
mkkdir "$T/e.data"
rm -f "$T/d.data" && mv "$T/e.data" "$T/d.data"
"$PRECORD" -q -e cpu-clock -o "$T/d.data" -- true 2>"$T/err" || { cat "$T/err"; fail "replacing FILE.old with a kcore_dir failed"; }
[ -f "$T/d.data.old/kcore_dir/kallsyms" ] || fail "the second --kcore directory is not FILE.old"
note "a directory with kcore_dir: kept as FILE.old, replaced as a recording, refused by precord merge"
echo "PASS"
