# Shared by the integration tests (sourced, not run): a scratch directory,
# precord/perf wrappers, and the check that stock perf read a file cleanly.
set -u
TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
PRECORD=${PRECORD:-$TOP/precord}
MATMUL=${MATMUL:-$TOP/bench/matmul}
T=$(mktemp -d /tmp/precord-test.XXXXXX)
trap 'cleanup_test' EXIT
cleanup_test() { [ -n "${KEEP:-}" ] || rm -rf "$T"; }

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
note() { echo "  - $*"; }

[ -x "$PRECORD" ] || fail "no precord binary at $PRECORD (run make)"
command -v perf >/dev/null || skip "stock perf is not installed"
[ "$(id -u)" = 0 ] || [ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ] ||
	skip "needs root or perf_event_paranoid <= 0"

ensure_tracefs() {
	[ -d /sys/kernel/tracing/events ] && return 0
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	[ -d /sys/kernel/tracing/events ] || skip "tracefs is not available"
}

# perf_clean OUT ERR -- perf args...: run perf, fail on any warning on stderr.
perf_clean() {
	local out=$1 err=$2; shift 3
	perf "$@" >"$out" 2>"$err" || { cat "$err"; fail "perf $* exited non-zero"; }
	if grep -Eiq 'warning|out of order|failed|corrupt|not present|lost|invalid|cannot|error|unknown|unexpected|no samples|bad' "$err"; then
		sed 's/^/    perf: /' "$err"
		fail "perf $1 printed a warning"
	fi
}

# samples_of SUMMARY_FILE: the sample count from "[ precord: Captured and wrote … (N samples) ]".
samples_of() {
	sed -n 's/.*Captured and wrote .* (\([0-9]*\) samples) \]/\1/p' "$1" | tail -1
}

# Processes a test starts in the background (pids in BUSY) and the cgroup
# directory it made (CGDIR): stop_busy kills and reaps the one, removes the
# other; a test calls it from its EXIT trap too, whichever way it ends.
BUSY=() CGDIR=
stop_busy() {
	local p
	for p in "${BUSY[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	BUSY=()
	[ -z "$CGDIR" ] || rmdir "$CGDIR" 2>/dev/null
	CGDIR=
}
