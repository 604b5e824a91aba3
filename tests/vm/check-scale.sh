#!/bin/bash
# make check-scale: the multi-node cases on guests of several sizes, one
# boot each, one after the other (never two guests at once), then a table
# of case x size -> result: pass, FAIL, skip, known (a failure listed in
# tests/vm/known-failures). Logs in build/vm/results/SIZE/ and SIZE.log;
# the table also in build/vm/results/scale.txt.
#
# usage: tests/vm/check-scale.sh [SIZE...]   (default: small uneven 64 252)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
cd "$TOP" || exit 1
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(small uneven 64 252)
cases=($(cd "$HERE/cases" && ls *.sh | sed 's/\.sh$//'))
R=build/vm/results
mkdir -p $R
declare -A res
declare -A secs
bad=0
for size in "${sizes[@]}"; do
	echo "check-scale: booting the $size guest"
	"$HERE/run-cases.sh" "$size" >"$R/$size.log" 2>&1
	grc=$?
	tail -n 3 "$R/$size.log" | sed 's/^/    /'
	secs[$size]=$(cat "$R/$size/info/seconds" 2>/dev/null || echo "?")
	if [ $grc -eq 77 ]; then
		for c in "${cases[@]}"; do res[$c,$size]=skip; done
		continue
	fi
	[ $grc -eq 0 ] || { echo "check-scale: the $size guest exited $grc (see $R/$size.log)"; bad=1; }
	for c in "${cases[@]}"; do
		"$HERE/check-case.sh" "$R/$size" "$c" >"$R/$size/$c.check" 2>&1
		rc=$?
		case $rc in
		0) res[$c,$size]=pass ;;
		77) if grep -q '^known failure:' "$R/$size/$c.check"; then res[$c,$size]=known; else res[$c,$size]=skip; fi ;;
		*) res[$c,$size]=FAIL; bad=1 ;;
		esac
		echo "    $c: ${res[$c,$size]}$([ "${res[$c,$size]}" = pass ] || echo ": $(tail -n 1 "$R/$size/$c.check")")"
	done
done

{
	printf '\n%-22s' "case \\ guest"
	for size in "${sizes[@]}"; do printf ' %8s' "$size"; done
	echo
	for c in "${cases[@]}"; do
		printf '%-22s' "$c"
		for size in "${sizes[@]}"; do printf ' %8s' "${res[$c,$size]}"; done
		echo
	done
	printf '%-22s' "guest run (s)"
	for size in "${sizes[@]}"; do printf ' %8s' "${secs[$size]}"; done
	echo
	echo "(small: 8 vCPUs over 4 nodes + a CPU-less node; uneven: 10 vCPUs as 4,3,2,1 + a CPU-less node;"
	echo " 64: 64 vCPUs over 8 nodes; 252: 252 vCPUs over 4 nodes. Details: $R/SIZE/CASE.check)"
} | tee $R/scale.txt
exit $bad
