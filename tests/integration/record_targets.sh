#!/bin/bash
# -p PID, -t TID and -C 0 record only what was asked for.
. "$(dirname "$0")/../lib.sh"

"$MATMUL" -t 2 -n 400 -r 200 >/dev/null &
victim=$!
other_spin() { while :; do :; done; }
other_spin & other=$!
sleep 0.2
tid=$(ls /proc/$victim/task | sort -n | tail -1)

"$PRECORD" -p "$victim" -o "$T/p.data" -- sleep 0.5 2>"$T/p.sum" || { cat "$T/p.sum"; fail "-p failed"; }
perf script -F pid -i "$T/p.data" 2>/dev/null | sort -u >"$T/p.pids"
note "-p $victim saw pids: $(tr '\n' ' ' <"$T/p.pids")"
[ -s "$T/p.pids" ] || fail "-p recorded no samples"
[ "$(cat "$T/p.pids" | tr -d ' ')" = "$victim" ] || fail "-p recorded other processes"

"$PRECORD" -t "$tid" -o "$T/t.data" -- sleep 0.5 2>"$T/t.sum" || { cat "$T/t.sum"; fail "-t failed"; }
perf script -F tid -i "$T/t.data" 2>/dev/null | sort -u | tr -d ' ' >"$T/t.tids"
note "-t $tid saw tids: $(tr '\n' ' ' <"$T/t.tids")"
[ -s "$T/t.tids" ] || fail "-t recorded no samples"
[ "$(cat "$T/t.tids")" = "$tid" ] || fail "-t recorded other threads"

"$PRECORD" -C 0 -o "$T/c.data" -- sleep 0.5 2>"$T/c.sum" || { cat "$T/c.sum"; fail "-C failed"; }
perf script -F cpu -i "$T/c.data" 2>/dev/null | tr -d ' []' | sort -u >"$T/c.cpus"
note "-C 0 saw cpus: $(tr '\n' ' ' <"$T/c.cpus")"
[ "$(cat "$T/c.cpus")" = "000" ] || [ "$(cat "$T/c.cpus")" = "0" ] || fail "-C 0 recorded other CPUs"

kill "$victim" "$other" 2>/dev/null; wait 2>/dev/null
exit 0
