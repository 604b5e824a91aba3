#!/bin/bash
# Check on the host, with stock perf, what one multi-node case brought back
# from the guest (run-cases.sh): the case's check() on OUT/CASE. A failure
# listed in tests/vm/known-failures for this case and guest size is
# reported as a skip, "known failure: …", with the failure shown above it.
#
# usage: tests/vm/check-case.sh OUT CASE      (exit 0 pass, 77 skip, 1 fail)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OUT=$1 CASE=$2
export D=$OUT/$CASE INFO=$OUT/info SYS=$OUT/info/sys
size=$(cat "$INFO/size" 2>/dev/null)
f=$HERE/cases/$CASE.sh
[ -f "$f" ] || { echo "no case $CASE"; exit 1; }
[ -f "$D/guest.rc" ] || { echo "FAIL: the guest did not run $CASE (see $OUT/.guest)"; exit 1; }
echo "--- guest ($size): exit $(cat "$D/guest.rc") in $(cat "$D/guest.time") s"
sed 's/^/    /' "$D/guest.log"
echo "--- host:"
( . "$HERE/lib.sh"; . "$f"; check )
rc=$?
[ "$(cat "$D/guest.rc")" = 124 ] && [ $rc -eq 0 ] && { echo "FAIL: the guest's half timed out"; rc=1; }

# known-failures: "CASE SIZES REASON", SIZES a comma list of sizes or *.
known=$(awk -v c="$CASE" -v s="$size" '!/^#/ && $1 == c {
		n = split($2, z, ","); for (i = 1; i <= n; i++) if (z[i] == s || z[i] == "*") {
			$1 = $2 = ""; sub(/^ +/, ""); print; exit } }' "$HERE/known-failures")
if [ $rc -ne 0 ] && [ $rc -ne 77 ] && [ -n "$known" ]; then
	echo "known failure: $known"
	exit 77
fi
[ $rc -eq 0 ] && [ -n "$known" ] && echo "note: listed in tests/vm/known-failures ($known) but passed: the entry can go"
exit $rc
