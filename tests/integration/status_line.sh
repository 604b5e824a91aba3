#!/bin/bash
# The live status line, in a real terminal (tmux): on a terminal it shows
# once a second (elapsed seconds count up, samples grow), and at the end the
# screen holds the closing lines and no status line; with -q, and when
# stderr is a file, nothing of it is written.
. "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed"

S=precord-status-$$
export TMUX_TMPDIR=$T	# a tmux server of this test's own
trap 'tmux kill-server 2>/dev/null; cleanup_test' EXIT

# shown SCREEN: the status lines on a screen capture
shown() { grep -E '^\[ precord: [0-9]+ s, [0-9.]+ MB \([0-9.]+ MB/s\), [0-9]+ samples, [0-9]+ lost \([0-9.]+%\), [0-9]+ threads? \]$' "$1"; }

# run_in_tmux NAME precord-args...: record `sleep 3.5` in a 160x40 terminal,
# capturing the screen at 1.5 s, 2.5 s and after the end.
run_in_tmux() {
	local name=$1; shift
	tmux new-session -d -s "$S" -x 160 -y 40 \
		"$PRECORD $* -o $T/$name.data -- sleep 3.5; echo EXIT=\$?; sleep 60" ||
		fail "tmux cannot start a session"
	sleep 1.5; tmux capture-pane -p -t "$S" >"$T/$name.1"
	sleep 1;   tmux capture-pane -p -t "$S" >"$T/$name.2"
	local i
	for i in $(seq 100); do
		tmux capture-pane -p -t "$S" >"$T/$name.end"
		grep -q '^EXIT=' "$T/$name.end" && break
		sleep 0.2
	done
	tmux kill-session -t "$S"
	grep -q '^EXIT=0$' "$T/$name.end" || { cat "$T/$name.end"; fail "$name: precord did not exit 0"; }
}

run_in_tmux tty -a
s1=$(shown "$T/tty.1"); s2=$(shown "$T/tty.2")
note "at 1.5 s: $s1"
note "at 2.5 s: $s2"
[ -n "$s1" ] && [ -n "$s2" ] || { cat "$T/tty.1" "$T/tty.2"; fail "no status line on a terminal"; }
[ "$(shown "$T/tty.1" | wc -l)" = 1 ] || fail "more than one status line on the screen"
t1=$(sed 's/^\[ precord: \([0-9]*\) s.*/\1/' <<<"$s1"); t2=$(sed 's/^\[ precord: \([0-9]*\) s.*/\1/' <<<"$s2")
n1=$(sed 's/.*), \([0-9]*\) samples.*/\1/' <<<"$s1"); n2=$(sed 's/.*), \([0-9]*\) samples.*/\1/' <<<"$s2")
[ "$t2" -gt "$t1" ] || fail "the status line did not move on in a second ($t1 s, then $t2 s)"
[ "$n2" -gt "$n1" ] || fail "samples did not grow ($n1, then $n2)"
grep -q 'Captured and wrote' "$T/tty.end" || { cat "$T/tty.end"; fail "no closing line"; }
[ -z "$(shown "$T/tty.end")" ] || { cat "$T/tty.end"; fail "the status line is left on the screen at the end"; }
grep -q '^\[ precord: Captured and wrote' "$T/tty.end" ||
	fail "the closing line does not begin its own line"

run_in_tmux quiet -q -a
[ -z "$(shown "$T/quiet.1")$(shown "$T/quiet.2")" ] || { cat "$T/quiet.1"; fail "a status line under -q"; }

"$PRECORD" -a -o "$T/file.data" -- sleep 1.5 2>"$T/file.err" || { cat "$T/file.err"; fail "precord failed"; }
grep -q 'Captured and wrote' "$T/file.err" || fail "no closing line in the log"
if grep -q $'\r' "$T/file.err" || grep -Eq '\[ precord: [0-9]+ s, ' "$T/file.err"; then
	cat -A "$T/file.err"; fail "a status line in a log (stderr is a file)"
fi
note "stderr a file: $(wc -l <"$T/file.err") lines, no status line"
perf_clean "$T/report" "$T/report.err" -- report --stats -i "$T/tty.data"
exit 0
