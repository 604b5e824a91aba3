#!/bin/bash
# perf's own shell tests of perf record (the ones the linux-perf package
# installs under /usr/lib/perf-core/tests/shell/), run twice: with stock
# perf, and with `perf record` replaced by `precord record` through a `perf`
# earlier on PATH, the drop-in use. Each test that passes with perf must
# pass with precord, and one that perf skips here (no PMU, no BPF skeleton,
# no probe point) must not fail with precord. The table says what each did.
#
# The tests run under bash: some are marked #!/bin/sh but use bash's
# ${@: -1}, which Debian's dash rejects for perf and precord alike.
. "$(dirname "$0")/../lib.sh"

SHELLS=/usr/lib/perf-core/tests/shell
[ -d "$SHELLS" ] || skip "perf's shell tests are not installed ($SHELLS)"
REAL_PERF=$(command -v perf) || skip "no perf"

# The perf of the second run: `[--buildid-dir DIR] record ARGS` becomes
# `precord [--buildid-dir DIR] record ARGS`; everything else is stock perf.
mkdir -p "$T/bin"
cat >"$T/bin/perf" <<EOF
#!/bin/bash
args=("\$@")
global=()
i=0
while [ \$i -lt \${#args[@]} ]; do
	case \${args[\$i]} in
	--buildid-dir) global+=(--buildid-dir "\${args[\$((i + 1))]}"); i=\$((i + 2)) ;;
	--buildid-dir=*) global+=("\${args[\$i]}"); i=\$((i + 1)) ;;
	record) echo "\${args[*]}" >>"$T/precord-runs"
		exec "$PRECORD" "\${global[@]}" record "\${args[@]:\$((i + 1))}" ;;
	*) break ;;
	esac
done
exec "$REAL_PERF" "\$@"
EOF
chmod +x "$T/bin/perf"

# Every installed test that runs perf record itself.
tests=$(cd "$SHELLS" && grep -l 'perf record\|perf} record\|perf_tool record' ./*.sh 2>/dev/null |
	sed 's|^\./||' | sort)
[ -n "$tests" ] || skip "no perf record test in $SHELLS"

run_one() {	# as test log
	local rc
	(cd "$T" && timeout 180 bash "$SHELLS/$2" >"$3" 2>&1)
	rc=$?
	case $rc in
	0) echo pass ;;
	2) echo skip ;;
	*) echo "fail($rc)" ;;
	esac
}

bad=0 passed=0 both=0
printf '  %-40s %-10s %s\n' test perf precord
for t in $tests; do
	# perf 6.1 here aborts at times in its end-of-run build-id pass: three tries
	for try in 1 2 3; do
		p=$(run_one perf "$t" "$T/perf-$t.log")
		[ "$p" = "${p#fail}" ] && break
	done
	q=$(PATH="$T/bin:$PATH" run_one precord "$t" "$T/precord-$t.log")
	printf '  %-40s %-10s %s\n' "$t" "$p" "$q"
	[ "$p" = pass ] && both=$((both + 1))
	[ "$q" = pass ] && passed=$((passed + 1))
	if { [ "$p" = pass ] && [ "$q" != pass ]; } || { [ "$p" = skip ] && [ "$q" != skip ] && [ "$q" != pass ]; }; then
		echo "  --- $t with precord:"
		tail -n 15 "$T/precord-$t.log" | sed 's/^/    /'
		bad=1
	fi
done
note "perf passes $both of these tests here; precord in its place passes $passed"
[ -s "$T/precord-runs" ] || fail "no test ran precord through the perf wrapper"
note "precord ran $(wc -l <"$T/precord-runs") times in place of perf record"
[ $bad -eq 0 ] || fail "a perf record test that perf passes (or skips) fails with precord"
exit 0
