#!/bin/bash
# The test runner of `make check`: every cmocka unit test (plain, ASan+UBSan,
# and the threaded ones under TSan), then every integration test in
# tests/integration/ (exit 0 pass, 77 skip, anything else fail), the replay
# of every fuzz target's inputs, and the multi-node cases in a small guest
# (tests/vm/), each under a timeout. Output of a failing test is shown in
# full; the last line is
# "N passed, N failed, N skipped".
cd "$(dirname "$0")/.." || exit 1
TOP=$PWD
LOG=$TOP/build/test-logs
rm -rf "$LOG"; mkdir -p "$LOG"
pass=0 fail=0 skip=0 cases=0
failed=()

run_one() {	# label timeout cmd...
	local label=$1 tmo=$2; shift 2
	local log="$LOG/${label//\//_}.log" rc
	timeout -k 10 "$tmo" "$@" >"$log" 2>&1
	rc=$?
	local n
	n=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	[ -n "$n" ] && cases=$((cases + n))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1)); printf '  PASS  %s\n' "$label"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); printf '  SKIP  %s: %s\n' "$label" "$(tail -1 "$log")"
	else
		fail=$((fail + 1)); failed+=("$label")
		[ $rc -eq 124 ] && echo "timed out after $tmo" >>"$log"
		printf '  FAIL  %s (exit %d)\n' "$label" "$rc"
		sed 's/^/        /' "$log"
	fi
	return $rc
}

export PRECORD=$TOP/precord MATMUL=$TOP/bench/matmul TOP
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

for t in build/tests/test_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] && [ "${t%.o}" = "$t" ] || continue
	run_one "unit/${t##*/}" 300 "$t"
done
for t in build/address-undefined/tests/test_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] && [ "${t%.o}" = "$t" ] || continue
	run_one "asan+ubsan/${t##*/}" 600 "$t"
done
for name in $(cat tests/threaded.list); do
	t=build/thread/tests/$name
	[ -x "$t" ] || continue
	run_one "tsan/$name" 900 setarch "$(uname -m)" -R "$t"
done
for t in tests/integration/*.sh; do
	[ -f "$t" ] || continue
	run_one "integration/$(basename "$t" .sh)" 300 bash "$t"
done
# each fuzz target on its seed corpus and past findings (tests/fuzz/fuzz.sh)
for t in build/fuzz/tests/fuzz/fuzz_*; do
	[ -x "$t" ] && [ "${t%.d}" = "$t" ] && [ "${t%.o}" = "$t" ] || continue
	run_one "fuzz/${t##*/fuzz_}" 600 tests/fuzz/fuzz.sh replay "${t##*/fuzz_}"
done

# The multi-node guest (tests/vm/): one boot of a small guest, 8 vCPUs over
# 4 NUMA nodes and a CPU-less memory node, runs every case; each is then
# checked on the host with stock perf. PRECORD_VM=0 leaves it out.
if [ "${PRECORD_VM:-1}" != 0 ]; then
	vm_start=$(date +%s)
	run_one "multinode/guest" 1200 tests/vm/run-cases.sh small
	if [ -d build/vm/results/small/info/sys ]; then
		for c in tests/vm/cases/*.sh; do
			c=$(basename "$c" .sh)
			run_one "multinode/$c" 300 tests/vm/check-case.sh build/vm/results/small "$c"
		done
	fi
	echo "  (multi-node guest: $(($(date +%s) - vm_start)) s, results in build/vm/results/small/)"
fi

echo
[ ${#failed[@]} -gt 0 ] && printf 'failed: %s\n' "${failed[*]}"
echo "($cases cmocka test cases in the unit binaries; logs in build/test-logs/)"
echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
