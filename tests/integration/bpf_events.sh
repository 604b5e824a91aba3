#!/bin/bash
# The BPF programs loaded when recording starts, against perf record 6.1 on
# this machine: with two programs of tests/bpfprog.c kept loaded (one plain,
# one of two functions named by BTF), `perf report -D` shows the same
# KSYMBOL and BPF_EVENT records for them in precord's file as in perf's,
# and `perf report --header-only -I` the same bpf_prog_info and btf lines;
# --no-bpf-event keeps the KSYMBOLs and the BTF and drops the rest, as
# perf's does; a user who may not list BPF programs gets none, and no word
# about it without -v.
. "$(dirname "$0")/../lib.sh"

BPFPROG=${BPFPROG:-$TOP/build/tests/bpfprog}
[ -x "$BPFPROG" ] || fail "no $BPFPROG (run make)"
[ "$(id -u)" = 0 ] || skip "loading BPF programs needs root"

"$BPFPROG" prec_plain prec_btf >"$T/ids" 2>"$T/bpf.err" &
BPF_PID=$!
trap 'kill $BPF_PID 2>/dev/null; wait $BPF_PID 2>/dev/null; cleanup_test' EXIT
for _ in $(seq 50); do
	[ -s "$T/ids" ] && [ "$(wc -l <"$T/ids")" -ge 2 ] && break
	kill -0 $BPF_PID 2>/dev/null || { cat "$T/bpf.err"; skip "cannot load a BPF program here"; }
	sleep 0.1
done
read -r _ PLAIN_ID PLAIN_TAG < <(grep '^plain ' "$T/ids")
read -r _ BTF_PROG_ID _ BTF_ID < <(grep '^btf ' "$T/ids")
[ -n "$PLAIN_ID" ] && [ -n "$BTF_ID" ] || { cat "$T/ids" "$T/bpf.err"; fail "bpfprog printed no ids"; }
note "programs $PLAIN_ID (plain) and $BTF_PROG_ID (BTF $BTF_ID) loaded"

# ksyms FILE: the KSYMBOL and BPF_EVENT lines of the test's programs, without their offsets.
ksyms() {
	perf_clean "$T/dump" "$T/dump.err" -- report -D -i "$1"
	grep -E "PERF_RECORD_KSYMBOL .*_prec_(plain|main|sub)$|PERF_RECORD_BPF_EVENT .* id ($PLAIN_ID|$BTF_PROG_ID)$" \
		"$T/dump" | sed 's/^.*PERF_RECORD_/PERF_RECORD_/'
}
# bpf_header FILE: the header's lines about the test's programs and their BTF.
bpf_header() {
	perf_clean "$T/hdr" "$T/hdr.err" -- report --header-only -I -i "$1"
	awk -v a="$PLAIN_ID" -v b="$BTF_PROG_ID" -v btf="$BTF_ID" '
		/^# bpf_prog_info / { id = $3; sub(":", "", id); keep = (id == a || id == b) }
		/^# bpf_prog_info / || /^# \tsub_prog / { if (keep) print; next }
		{ keep = 0 }
		$0 == "# btf info of id " btf { print }' "$T/hdr"
}
# perf 6.1 aborts now and then in its BPF pass ("stack smashing detected"): taken again.
run_perf() { # OUT perf-record-args...
	local out=$1 i; shift
	for i in 1 2 3 4 5; do
		perf record -q -o "$out" "$@" >/dev/null 2>"$T/perr" && return 0
		grep -Eq 'stack smashing|assertion failed' "$T/perr" || { cat "$T/perr"; fail "perf record $* failed"; }
	done
	return 1
}
run_p() { # OUT precord-args...
	local out=$1; shift
	"$PRECORD" -q -o "$out" "$@" >/dev/null 2>"$T/err" || { cat "$T/err"; fail "precord $* failed"; }
	[ -s "$T/err" ] && { cat "$T/err"; fail "precord $* printed something"; }
	return 0
}

# 1. The records and the header, with the default layout and with one file.
run_p "$T/p.data" -a -- sleep 0.2
run_p "$T/one.data" --no-threads -a -- sleep 0.2
ksyms "$T/p.data" >"$T/p.ksyms"
cat "$T/p.ksyms"
grep -q "PERF_RECORD_KSYMBOL .* name bpf_prog_${PLAIN_TAG}_prec_plain$" "$T/p.ksyms" ||
	fail "no KSYMBOL bpf_prog_${PLAIN_TAG}_prec_plain"
[ "$(grep -c 'PERF_RECORD_KSYMBOL .*_prec_\(main\|sub\)$' "$T/p.ksyms")" = 2 ] ||
	fail "the BTF program's two functions are not named from its BTF"
grep -q "PERF_RECORD_BPF_EVENT type 1, flags 0, id $PLAIN_ID$" "$T/p.ksyms" || fail "no BPF_EVENT for $PLAIN_ID"
grep -q "PERF_RECORD_BPF_EVENT type 1, flags 0, id $BTF_PROG_ID$" "$T/p.ksyms" || fail "no BPF_EVENT for $BTF_PROG_ID"
ksyms "$T/one.data" | diff "$T/p.ksyms" - || fail "--no-threads: the BPF records differ"
bpf_header "$T/p.data" >"$T/p.hdr"
cat "$T/p.hdr"
[ "$(wc -l <"$T/p.hdr")" = 5 ] || fail "the header does not describe both programs and their BTF"
bpf_header "$T/one.data" | diff "$T/p.hdr" - || fail "--no-threads: the header's BPF lines differ"

if run_perf "$T/perf.data" -a -- sleep 0.2; then
	ksyms "$T/perf.data" | diff - "$T/p.ksyms" || fail "the BPF records differ from perf's"
	bpf_header "$T/perf.data" | diff - "$T/p.hdr" || fail "the header's BPF lines differ from perf's"
	note "records and header as perf's"
else
	note "perf record aborted five times: compared with the programs' ids and tags only"
fi

# 2. --no-bpf-event: the KSYMBOLs and the BTF, no BPF_EVENT, no bpf_prog_info (perf 6.1's choice).
run_p "$T/nb.data" --no-bpf-event -a -- sleep 0.2
ksyms "$T/nb.data" >"$T/nb.ksyms"
grep -v BPF_EVENT "$T/p.ksyms" | diff - "$T/nb.ksyms" || fail "--no-bpf-event: not the KSYMBOLs alone"
bpf_header "$T/nb.data" >"$T/nb.hdr"
[ "$(cat "$T/nb.hdr")" = "# btf info of id $BTF_ID" ] || { cat "$T/nb.hdr"; fail "--no-bpf-event: the header is not the BTF alone"; }
if run_perf "$T/nbperf.data" --no-bpf-event -a -- sleep 0.2; then
	ksyms "$T/nbperf.data" | diff - "$T/nb.ksyms" || fail "--no-bpf-event: the records differ from perf's"
	bpf_header "$T/nbperf.data" | diff - "$T/nb.hdr" || fail "--no-bpf-event: the header differs from perf's"
fi
note "--no-bpf-event as perf's"

# 3. A user who may not list BPF programs (EPERM): none described, said with -v only.
chmod 711 "$T"
mkdir -m 777 "$T/user"
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_user "$PRECORD" -e cpu-clock:u -o "$T/user/u.data" -- true >/dev/null 2>"$T/uerr" ||
	{ cat "$T/uerr"; fail "precord as an unprivileged user failed"; }
grep -i bpf "$T/uerr" && fail "precord spoke of BPF without -v"
chown root "$T/user/u.data"	# perf reads only its own user's files and root's
ksyms "$T/user/u.data" | grep -q . && fail "an unprivileged user's file describes BPF programs"
bpf_header "$T/user/u.data" | grep -q . && fail "an unprivileged user's header describes BPF programs"
as_user "$PRECORD" -v -e cpu-clock:u -o "$T/user/v.data" -- true >/dev/null 2>"$T/uerr" ||
	{ cat "$T/uerr"; fail "precord -v as an unprivileged user failed"; }
grep -q "BPF programs not described: this user may not list them" "$T/uerr" ||
	{ cat "$T/uerr"; fail "-v does not say why no BPF program was described"; }
note "an unprivileged user: no BPF program, said with -v only"
exit 0
