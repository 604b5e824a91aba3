#!/bin/bash
# Build the workqueue example program (Documentation/workqueue.md) with the
# top Makefile and run it: every check it prints must say "ok".
# Exit 0 pass, 77 skip, anything else fail.
cd "$(dirname "$0")/../.." || exit 1
if ! make -s workqueue/examples/wq-example >/dev/null; then
	echo "wq_example: cannot build workqueue/examples/wq-example"
	exit 1
fi
out=$(timeout 60 workqueue/examples/wq-example -v 2>&1)
rc=$?
echo "$out"
if [ $rc -ne 0 ]; then
	echo "wq_example: exit status $rc"
	exit 1
fi
grep -q '^example: ok$' <<<"$out" || exit 1
grep -q 'FAILED' <<<"$out" && exit 1
# the dump names the workers in the kernel's style
grep -qE 'worker 0 example/[0-9]+ cpus' <<<"$out" || { echo "wq_example: no worker in the dump"; exit 1; }
exit 0
