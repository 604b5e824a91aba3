#!/bin/bash
# Boot one guest of a given size and run the multi-node cases in it (their
# guest() halves, tests/vm/in-guest.sh); the results land in
# build/vm/results/SIZE/, one directory per case, for check-case.sh.
#
# usage: tests/vm/run-cases.sh SIZE [CASE...]
# SIZE:  small   8 vCPUs over 4 nodes, plus a CPU-less memory node (make check)
#        uneven  10 vCPUs as 4,3,2,1 per node, plus a CPU-less memory node
#        64      64 vCPUs over 8 nodes
#        252     252 vCPUs over 4 nodes
# Exit status: guest.sh's (77: no guest can start here).
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
size=${1:?usage: tests/vm/run-cases.sh SIZE [CASE...]}
shift
case $size in
small) topo=(-c 8 -n 4 -z 1) tmo=900 ;;
uneven) topo=(-n 4,3,2,1 -z 1) tmo=900 ;;
64) topo=(-c 64 -n 8) tmo=2400 ;;
252) topo=(-c 252 -n 4) tmo=5400 ;;
*) echo "run-cases.sh: unknown size $size (small, uneven, 64, 252)" >&2; exit 2 ;;
esac
out=$TOP/build/vm/results/$size
rm -rf "$out" && mkdir -p "$out/info" || exit 2
echo "$size" >"$out/info/size"
start=$(date +%s)
"$HERE/guest.sh" -T "$tmo" -r "$out" "${topo[@]}" -- bash "$HERE/in-guest.sh" "$out" "$@"
rc=$?
echo "$(($(date +%s) - start))" >"$out/info/seconds"
echo "run-cases.sh: $size guest: exit $rc after $(cat "$out/info/seconds") s"
exit $rc
