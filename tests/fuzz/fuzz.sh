#!/bin/bash
# fuzz.sh — runs the libFuzzer targets that `make fuzzers` built into
# build/fuzz/tests/fuzz/.
#
#   fuzz.sh replay NAME          every input of tests/fuzz/corpus/NAME and
#                                tests/fuzz/crashes/NAME, once each (make check)
#   fuzz.sh run SECONDS NAME...  fuzz each NAME for SECONDS, one after the
#                                other (make fuzz), into build/fuzz/corpus/NAME,
#                                seeded from both; findings go to
#                                build/fuzz/findings/NAME/
#   fuzz.sh coverage NAME...     the source lines each NAME's inputs reach:
#                                every input of build/fuzz/corpus/NAME and
#                                tests/fuzz/{corpus,crashes}/NAME run once by
#                                the coverage build (make fuzz-coverage) in
#                                build/fuzzcov/, reported by llvm-cov
#
# Both run under the same resource limits, so that an input whose cost is
# out of proportion to its size fails: a run over LIMIT_RSS_MB of memory, one
# malloc() of LIMIT_MALLOC_MB or more, or an input that takes LIMIT_SECONDS.
# Files are at most MAX_LEN bytes (256 KiB): the readers' own buffers are
# 4 MiB at most, and ASan's quarantine is kept to 32 MiB (a few hundred MiB
# by default, all of it resident), so 512 MiB leaves room only for
# mistakes. Strings are command-line sized (MAX_LEN_TEXT): each tracepoint
# glob of an -e string costs a walk of tracefs and adds every event it
# matches, as perf does, however often the string repeats it.
cd "$(dirname "$0")/../.." || exit 1
BIN=build/fuzz/tests/fuzz
MAX_LEN=262144
MAX_LEN_TEXT=128
LIMIT_RSS_MB=512
LIMIT_MALLOC_MB=64
LIMIT_SECONDS=10
LIMITS="-rss_limit_mb=$LIMIT_RSS_MB -malloc_limit_mb=$LIMIT_MALLOC_MB -timeout=$LIMIT_SECONDS"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=32:detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1:halt_on_error=1"

usage() {
	echo "usage: $0 replay NAME | run SECONDS NAME... | coverage NAME..." >&2
	exit 2
}

need() {	# name
	[ -x "$BIN/fuzz_$1" ] && return
	echo "fuzz: $BIN/fuzz_$1 is not built: run 'make fuzzers'" >&2
	exit 1
}

max_len() {	# name
	case $1 in
	events|layout)	echo $MAX_LEN_TEXT ;;
	*)		echo $MAX_LEN ;;
	esac
}

dict() {	# name: the dictionary option, when the target has one
	[ -f "tests/fuzz/$1.dict" ] && echo "-dict=tests/fuzz/$1.dict"
}

replay() {	# name
	local files=()

	need "$1"
	for d in "tests/fuzz/corpus/$1" "tests/fuzz/crashes/$1"; do
		[ -d "$d" ] || continue
		for f in "$d"/*; do
			[ -f "$f" ] && files+=("$f")
		done
	done
	if [ ${#files[@]} -eq 0 ]; then
		echo "no inputs for $1"
		exit 77
	fi
	echo "replaying ${#files[@]} inputs of $1"
	"$BIN/fuzz_$1" $LIMITS "${files[@]}"
}

run() {	# seconds names...
	local secs=$1 name log status=0
	shift
	for name in "$@"; do
		need "$name"
		log=build/fuzz/logs/$name.log
		mkdir -p "build/fuzz/corpus/$name" "build/fuzz/findings/$name" build/fuzz/logs
		printf '  FUZZ    %s (%s s)\n' "$name" "$secs"
		if ! "$BIN/fuzz_$name" $LIMITS -max_len="$(max_len "$name")" -max_total_time="$secs" \
			-print_final_stats=1 $(dict "$name") \
			-artifact_prefix="build/fuzz/findings/$name/" "build/fuzz/corpus/$name" \
			$(for d in "tests/fuzz/corpus/$name" "tests/fuzz/crashes/$name"; do
				[ -d "$d" ] && echo "$d"; done) >"$log" 2>&1; then
			status=1
			printf '  FAIL    %s: a finding in build/fuzz/findings/%s/, log %s:\n' \
				"$name" "$name" "$log"
			grep -E -A12 '^==[0-9]+==ERROR|runtime error|^fuzz: |ALARM|out-of-memory' \
				"$log" | head -40 | sed 's/^/          /'
		fi
		printf '          %s\n' "$(grep -E '(DONE|cov:).*ft:' "$log" | tail -1)"
	done
	return $status
}

# The line coverage of the project's sources (src/, workqueue/) reached by a
# target's inputs; one row per file it reaches, then the total over them.
coverage() {	# names...
	local name bin prof dirs d
	for name in "$@"; do
		bin=build/fuzzcov/tests/fuzz/fuzz_$name
		[ -x "$bin" ] || { echo "fuzz: $bin is not built: run 'make fuzz-coverage'" >&2; exit 1; }
		prof=build/fuzzcov/prof/$name
		rm -rf "$prof"; mkdir -p "$prof"
		dirs=()
		for d in "build/fuzz/corpus/$name" "tests/fuzz/corpus/$name" "tests/fuzz/crashes/$name"; do
			[ -d "$d" ] && dirs+=("$d")
		done
		LLVM_PROFILE_FILE="$prof/%p.profraw" "$bin" $LIMITS -runs=0 "${dirs[@]}" \
			>"$prof/run.log" 2>&1 || { echo "fuzz: $name failed on its corpus (see $prof/run.log)" >&2; exit 1; }
		llvm-profdata merge -sparse -o "$prof/all.profdata" "$prof"/*.profraw || exit 1
		echo "coverage of $name ($(find "${dirs[@]}" -type f | wc -l) inputs in ${dirs[*]}):"
		llvm-cov report "$bin" -instr-profile="$prof/all.profdata" src workqueue |
			awk '/^Filename/ { print "  " $0; next }
			     /^-|^TOTAL/ { next }
			     NF >= 13 && $9 != $8 { print "  " $0; lines += $8; missed += $9 }
			     END { if (lines) printf "  lines reached in those files: %d of %d (%.1f%%)\n",
					lines - missed, lines, 100 * (lines - missed) / lines }'
	done
}

case $1 in
coverage) [ $# -ge 2 ] || usage; shift; coverage "$@" ;;
replay)	[ $# -eq 2 ] || usage; replay "$2" ;;
run)	[ $# -ge 3 ] || usage; shift; run "$@" ;;
*)	usage ;;
esac
