#!/bin/bash
# bench/buildid-vs-perf.sh — the cost of the end-of-run build ids: each
# recording into an empty build-id cache (a fresh HOME), REPS times per
# mode: precord's -v phases "build ids" (finding the DSOs sampled) and
# "build-id cache" (filling ~/.debug), precord's and perf record's wall
# time beyond the command's, and the DSOs listed.
#
#   bench/buildid-vs-perf.sh [-r REPS] [-d DIR] [-- RECORD ARGS...]
#   default RECORD ARGS: -a -- sleep 1 (system-wide: every process's DSOs)
#
# Modes: --buildid-all, --buildid-all -N, the default, -B (precord only).
# Both recorders get --no-bpf-event (perf 6.1 aborts in its BPF synthesis
# on some loaded BPF programs). Run it under the heavy lock.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
REPS=3 DIR=/tmp/precord-buildid
PRECORD=${PRECORD:-$TOP/precord}
while getopts "r:d:h" o; do
	case $o in
	r) REPS=$OPTARG ;; d) DIR=$OPTARG ;;
	*) sed -n '2,13p' "$0"; exit 0 ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = -- ] && shift
[ $# -gt 0 ] || set -- -a -- sleep 1
mkdir -p "$DIR" || exit 1
cmd_s=0 prev=""
for a in "$@"; do [ "$prev" = sleep ] 2>/dev/null && cmd_s=$a; prev=$a; done
ms() { echo $(( ($2 - $1) / 1000000 - ${cmd_s%.*} * 1000 )); }

for mode in "--buildid-all" "--buildid-all -N" "" "-B"; do
	for i in $(seq "$REPS"); do
		rm -rf "$DIR/home"; mkdir "$DIR/home"
		s=$(date +%s%N)
		HOME=$DIR/home "$PRECORD" -v --no-bpf-event $mode -o "$DIR/p.data" "$@" \
			>/dev/null 2>"$DIR/p.err"
		e=$(date +%s%N)
		ph=$(grep -o "build ids [0-9.]* ms\|build-id cache [0-9.]* ms" "$DIR/p.err" | tr '\n' ' ')
		echo "precord ${mode:-default}: wall +$(ms "$s" "$e") ms; ${ph:-no build ids}; $(perf buildid-list -i "$DIR/p.data" 2>/dev/null | wc -l) DSOs"
	done
	[ "$mode" = -B ] && continue
	for i in $(seq "$REPS"); do
		rm -rf "$DIR/home"; mkdir "$DIR/home"
		s=$(date +%s%N)
		HOME=$DIR/home perf record -q --no-bpf-event $mode -o "$DIR/q.data" "$@" >/dev/null 2>&1
		e=$(date +%s%N)
		echo "perf ${mode:-default}: wall +$(ms "$s" "$e") ms; $(perf buildid-list -i "$DIR/q.data" 2>/dev/null | wc -l) DSOs"
	done
done
rm -rf "$DIR"
