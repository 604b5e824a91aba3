#!/bin/bash
# The build ids at the end of a recording, against perf record 6.1 on this
# machine: HEADER_BUILD_ID lists the DSOs sampled (perf's own reading of
# the same file agrees), every DSO mapped with --buildid-all, [vdso]
# always; the build-id cache (~/.debug, a temporary HOME here) gets what
# perf's own run of the same command puts there; -N, -B, --buildid-mmap,
# -z, --buildid-dir, buildid.dir, --no-bpf-event, --vmlinux, --debuginfod
# and --kcore do what perf's do.
. "$(dirname "$0")/../lib.sh"

run_p() { # HOME precord-args...
	local home=$1; shift
	mkdir -p "$home"
	HOME=$home "$PRECORD" -q "$@" >/dev/null 2>"$T/err" || { cat "$T/err"; fail "precord $* failed"; }
}
# perf 6.1 aborts in its BPF event synthesis on some loaded BPF programs
# (build_id__init() of an oversized build id): then its run is taken again
# with --no-bpf-event, which changes no build id.
run_perf() { # HOME perf-record-args...
	local home=$1; shift
	mkdir -p "$home"
	HOME=$home perf record -q "$@" >/dev/null 2>"$T/perr" && return 0
	grep -q 'assertion failed at util/build-id.c' "$T/perr" || { cat "$T/perr"; fail "perf record $* failed"; }
	rm -rf "$home"; mkdir -p "$home"
	HOME=$home perf record -q --no-bpf-event "$@" >/dev/null 2>"$T/perr" ||
		{ cat "$T/perr"; fail "perf record --no-bpf-event $* failed"; }
	PERF_NO_BPF=1
	note "perf aborted in its BPF event synthesis; its run was taken again with --no-bpf-event"
}
PERF_NO_BPF=
# The cache as a listing: path, type, link target, mode.
tree() { (cd "$1/.debug" 2>/dev/null && find . -printf '%p %y %l %m\n' | sort); }
ids() { perf buildid-list -i "$1" 2>/dev/null | sort; }
WORK=(-- "$MATMUL" -q -t 2 -n 160 -r 2)

# 1. --buildid-all is independent of sampling: the same table and the same cache as perf's.
run_p "$T/h1" --buildid-all -o "$T/all.data" "${WORK[@]}"
run_perf "$T/h2" --buildid-all -o "$T/all.perf" "${WORK[@]}"
ids "$T/all.data" >"$T/all.ids"
ids "$T/all.perf" >"$T/all.pids"
grep -q " $MATMUL$" "$T/all.ids" || { cat "$T/all.ids"; fail "--buildid-all: the command's binary is not listed"; }
grep -q ' \[vdso\]$' "$T/all.ids" || fail "--buildid-all: [vdso] is not listed"
diff "$T/all.pids" "$T/all.ids" || fail "--buildid-all: the table differs from perf's"
# The feature's bytes too: perf's records, in perf's order.
feature() { python3 - "$1" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
data_off, data_size = struct.unpack_from('<QQ', b, 40)
feats = struct.unpack_from('<4Q', b, 72)
bits = [i for i in range(256) if feats[i // 64] >> (i % 64) & 1]
off, size = struct.unpack_from('<QQ', b, data_off + data_size + 16 * bits.index(2))
sys.stdout.write(b[off:off + size].hex())
PY
}
[ "$(feature "$T/all.data")" = "$(feature "$T/all.perf")" ] ||
	fail "--buildid-all: the BUILD_ID feature's bytes differ from perf's"
tree "$T/h1" >"$T/t1"
tree "$T/h2" >"$T/t2"
diff "$T/t2" "$T/t1" || fail "--buildid-all: the build-id cache differs from perf's"
note "--buildid-all: $(wc -l <"$T/all.ids") DSOs, table and cache as perf's"
# A shell that forks and execs others: their DSOs in perf's order, byte for byte.
SH=(-- bash -c 'ls -l / >/dev/null; date >/dev/null; cat /dev/null')
run_p "$T/h1b" --buildid-all -o "$T/sh.data" "${SH[@]}"
run_perf "$T/h2b" --buildid-all -o "$T/sh.perf" "${SH[@]}"
[ "$(feature "$T/sh.data")" = "$(feature "$T/sh.perf")" ] ||
	{ ids "$T/sh.perf" >"$T/a"; ids "$T/sh.data" | diff "$T/a" -; fail "--buildid-all, bash -c: the BUILD_ID feature differs from perf's"; }
[ "$(tree "$T/h1b")" = "$(tree "$T/h2b")" ] || fail "--buildid-all, bash -c: the cache differs from perf's"
note "--buildid-all, bash -c: $(ids "$T/sh.data" | wc -l) DSOs of 4 programs, as perf's"

# 2. By default the DSOs sampled: what perf itself finds hit in the same file, plus [vdso].
run_p "$T/h3" -o "$T/hit.data" "${WORK[@]}"
ids "$T/hit.data" >"$T/hit.ids"
{ perf buildid-list -H -i "$T/hit.data" 2>/dev/null; grep ' \[vdso\]$' "$T/all.ids"; } |
	sort -u >"$T/hit.want"
diff "$T/hit.want" "$T/hit.ids" || fail "the DSOs listed are not the ones perf finds sampled"
grep -q " $MATMUL$" "$T/hit.ids" || fail "the command's binary (where it spends its time) is not listed"
perf report --header-only -i "$T/hit.data" 2>/dev/null | grep -q 'missing features:.*BUILD_ID' &&
	fail "no BUILD_ID feature"
# Each entry cached as perf caches it: the same files for the same build id.
tree "$T/h3" >"$T/t3"
while read -r id name; do
	link=".build-id/${id:0:2}/${id:2}"
	grep -q "^./$link l " "$T/t3" || fail "$name ($id) is not in the cache"
	[ -e "$T/h3/.debug/$link" ] || fail "the cache's link for $name dangles"
	want=$(grep "/$id" "$T/t2"); got=$(grep "/$id" "$T/t3")
	[ "$want" = "$got" ] || { echo "perf: $want"; echo "precord: $got"; fail "$name cached unlike perf"; }
done <"$T/hit.ids"
note "default: $(wc -l <"$T/hit.ids") DSOs sampled, as perf reads the file; each cached as perf does"

# 3. The same through the streaming threads' files and the merge.
run_p "$T/h4" --threads=cpu -o "$T/thr.data" "${WORK[@]}"
ids "$T/thr.data" >"$T/thr.ids"
{ perf buildid-list -H -i "$T/thr.data" 2>/dev/null; grep ' \[vdso\]$' "$T/all.ids"; } |
	sort -u >"$T/thr.want"
diff "$T/thr.want" "$T/thr.ids" || fail "--threads=cpu: the DSOs listed are not the ones sampled"

# 4. -N: the table, no cache. -B, --buildid-mmap, -z: neither.
run_p "$T/h5" -N -o "$T/n.data" "${WORK[@]}"
[ -s "$T/n.data" ] && [ -n "$(ids "$T/n.data")" ] || fail "-N: no build ids in the file"
[ -e "$T/h5/.debug" ] && fail "-N: the cache was filled"
for opt in -B --buildid-mmap -z; do
	rm -rf "$T/h6"
	run_p "$T/h6" "$opt" -o "$T/b.data" "${WORK[@]}"
	perf report --header-only -i "$T/b.data" 2>/dev/null | grep -q 'missing features:.*BUILD_ID' ||
		fail "$opt: a BUILD_ID feature was written"
	[ -e "$T/h6/.debug" ] && fail "$opt: the cache was filled"
done
note "-N: table without cache; -B, --buildid-mmap, -z: neither"

# 5. Where the cache is: --buildid-dir (perf's global option), then buildid.dir; the command sees it.
mkdir -p "$T/h7"
printf '[buildid]\n\tdir = "%s" ; a comment\n' "$T/cfgdir" >"$T/h7/.perfconfig"
run_p "$T/h7" -o "$T/c.data" -- true
[ -d "$T/cfgdir/.build-id" ] || fail "buildid.dir in ~/.perfconfig is not used"
HOME=$T/h7 "$PRECORD" --buildid-dir "$T/optdir" record -q -o "$T/d.data" -- env >"$T/env" 2>&1 ||
	fail "precord --buildid-dir DIR record failed"
[ -d "$T/optdir/.build-id" ] || fail "--buildid-dir is not used"
grep -qx "PERF_BUILDID_DIR=$T/optdir" "$T/env" || fail "the command does not get PERF_BUILDID_DIR"
grep -qx "DEBUGINFOD_URLS=" "$T/env" || fail "the command does not get an empty DEBUGINFOD_URLS"
HOME=$T/h7 "$PRECORD" -q --debuginfod=http://127.0.0.1:9/ -o "$T/e.data" -- env >"$T/env" 2>&1
grep -qx "DEBUGINFOD_URLS=http://127.0.0.1:9/" "$T/env" || fail "--debuginfod=URLS is not passed on"
DEBUGINFOD_URLS=keep HOME=$T/h7 "$PRECORD" -q --debuginfod -o "$T/e.data" -- env >"$T/env" 2>&1
grep -qx "DEBUGINFOD_URLS=keep" "$T/env" || fail "--debuginfod does not keep DEBUGINFOD_URLS"
note "--buildid-dir, buildid.dir, PERF_BUILDID_DIR and DEBUGINFOD_URLS as perf"

# 6. --no-bpf-event: attr.bpf_event off on the tracking event (ksymbol stays), on by default.
bpf() { perf evlist -v -i "$1" 2>/dev/null | grep -o 'bpf_event: 1' | sort -u; }
run_p "$T/h8" --no-bpf-event -o "$T/nb.data" -- true
run_perf "$T/h8" --no-bpf-event -o "$T/nb.perf" -- true
[ "$(bpf "$T/nb.data")" = "$(bpf "$T/nb.perf")" ] && [ -z "$(bpf "$T/nb.data")" ] ||
	fail "--no-bpf-event: bpf_event is set"
run_p "$T/h8" -o "$T/b1.data" -- true
PERF_NO_BPF=
run_perf "$T/h8" -o "$T/b1.perf" -- true
[ -n "$PERF_NO_BPF" ] || [ "$(bpf "$T/b1.data")" = "$(bpf "$T/b1.perf")" ] ||
	fail "bpf_event differs from perf's by default"
[ "$(bpf "$T/b1.data")" = "bpf_event: 1" ] || fail "bpf_event is off by default"
note "--no-bpf-event: bpf_event off, as perf's; on by default"

# 7. --vmlinux=FILE names the kernel's entry (its build id stays the kernel's); unreadable: refused.
kid=$(grep ' \[kernel.kallsyms\]$' "$T/all.ids" | cut -d' ' -f1)
run_p "$T/h9" -a --vmlinux="$MATMUL" -o "$T/v.data" -- sleep 0.3
ids "$T/v.data" | grep -qx "$kid $MATMUL" || { ids "$T/v.data"; fail "--vmlinux does not name the kernel"; }
if HOME=$T/h9 "$PRECORD" --vmlinux="$T/none" -o "$T/v2.data" -- true 2>"$T/err"; then
	fail "--vmlinux=missing file accepted"
fi
[ "$(wc -l <"$T/err")" = 1 ] && [ ! -e "$T/v2.data" ] || { cat "$T/err"; fail "--vmlinux=missing: not one line, or a file left"; }
note "--vmlinux: the kernel's entry named after it; an unreadable file refused"

# 8. --kcore: without a readable /proc/kcore perf stops ("kcore is not readable"); so does precord.
if [ ! -r /proc/kcore ]; then
	if "$PRECORD" --kcore -a -o "$T/k.data" -- true 2>"$T/err"; then fail "--kcore without /proc/kcore succeeded"; fi
	grep -q 'kcore is not readable' "$T/err" && [ "$(wc -l <"$T/err")" = 1 ] || { cat "$T/err"; fail "--kcore: not one line"; }
	[ -e "$T/k.data" ] && fail "--kcore: something left on disk"
	note "--kcore: no /proc/kcore here, refused as perf does"
fi
exit 0
