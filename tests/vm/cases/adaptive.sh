# The adaptive layout (the default) with a workload on every CPU at a high
# rate: every CPU runs a light spinner (2%), and the CPUs of the first node with
# CPUs a full one (in the 8-vCPU guest; see below), sampled with DWARF
# stacks at 25 kHz into 16 KiB rings: three 4 KiB stacks fill one to 3/4,
# the high-water mark, and the kernel wakes the reader after two, so a
# reader late by one sample period of a busy CPU reads it high (an idle
# moment's samples carry no user stack). Helpers
# appear where rings back up and only there: on the busy node; on any
# node, each helper for its rings' fill or the records its node lost (its
# line says which); every node whose CPUs lost records got one. The file
# reads in perf (which may say what was lost) with every sample the
# summary counts.
#
# Every vCPU is emulated on the host's two CPUs, so the load is sized to
# them, not to the guest: the rates and spinning above are the 8-vCPU
# guest's, and a bigger guest gets the same totals spread over its CPUs
# (the sample rate and the light spinning divided by ncpu/8, the busy node
# spinning two CPUs' worth). At 64 vCPUs the unscaled load (8 CPUs
# spinning, 1.6 M samples a second asked for) leaves the guest's own shell
# unscheduled for minutes.
#
# Then the same recording with user-space samples only (cpu-clock:u), only
# the first node busy, and the events on from 500 ms to 2500 ms (-D), after
# precord's own start-up work and before its teardown, which run on every
# CPU. The other nodes run little in user space (precord's own threads,
# the guest's housekeeping), and under emulation even that can fill a
# 16 KiB ring of 4 KiB stacks: a helper there is right only for a ring that
# backed up, and its line must say so.
guest() {
	local busy n freq heavy light_pct
	busy=$(node_cpus "$(cpu_nodes | awk '{ print $1 }')" | tr ' ' ,)
	echo "$busy" >"$D/busy"
	n=$(ncpus)
	freq=$((25000 * 8 / (n > 8 ? n : 8)))
	light_pct=$(awk -v n="$n" 'BEGIN { printf "%.2f", (n > 8 ? 16 / n : 2) }')
	heavy=$(awk -v b="$(expand "$busy" | wc -w)" -v n="$n" \
		'BEGIN { printf "%.2f", (n > 8 && b > 2 ? 200 / b : 100) }')
	echo "freq $freq light $light_pct% heavy $heavy%" >"$D/load"
	"$SPIN" 600 "$light_pct" >/dev/null 2>&1 &
	local light_pid=$!
	taskset -c "$busy" "$SPIN" 600 "$heavy" >/dev/null 2>&1 &
	local heavy_pid=$!
	sleep 1
	run rec "$PRECORD" $MAPS -a -F "$freq" --call-graph dwarf,4096 -m 4 -e cpu-clock \
		-o "$D/rec.data" -- sleep 3
	kill -TERM $light_pid $heavy_pid 2>/dev/null
	wait $light_pid $heavy_pid 2>/dev/null
	run loss "$PRECORD" report --loss "$D/rec.data"
	run quiet "$PRECORD" $MAPS -a -D 500-2500 -F "$freq" --call-graph dwarf,4096 -m 4 -e cpu-clock:u \
		-o "$D/quiet.data" -- taskset -c "$busy" "$SPIN" 3 "$heavy"
}

# The quiet-nodes recording: a helper on the busy node or on a ring that
# backed up, nowhere else; the count per node is reported.
check_quiet() {
	local busy_node=$1 line helper lead node busy=0 other=0
	want_rc quiet
	read_clean "$D/quiet.data" quiet
	[ "$(samples quiet)" = "$(summary_samples quiet)" ] ||
		fail "quiet nodes: perf reads $(samples quiet) samples, the summary says $(summary_samples quiet)"
	while read -r line; do
		helper=$(echo "$line" | sed -n 's/^\[ precord: \(prec-rd\/[0-9.]*\) added at .*/\1/p')
		lead=${helper#prec-rd/}
		lead=${lead%%.*}
		node=$(sed -n "s/^\[ precord: node \([0-9]*\) (prec-rd\/$lead): .*/\1/p" "$D/quiet.err")
		if [ "$node" = "$busy_node" ]; then
			busy=$((busy + 1))
			continue
		fi
		echo "$line" | grep -Eq ': (the kernel lost [1-9][0-9]* records|rings (7[5-9]|[89][0-9]|100)% full when read)' ||
			fail "quiet nodes: $helper added on quiet node $node with no ring backing up ($line)"
		other=$((other + 1))
	done < <(grep ' added at ' "$D/quiet.err")
	note "quiet nodes: $busy helper runs on the busy node $busy_node, $other on quiet nodes (each for a ring that backed up)"
}

# The node of streaming thread prec-rd/T, from its node line in the summary.
node_of_thread() {
	sed -n "s/^\[ precord: node \([0-9]*\) (prec-rd\/$1): .*/\1/p" "$D/rec.err"
}

check() {
	local busy_node busy line helper lead node cpus c n lost_nodes added helper_nodes=""
	# what perf may say of a recording that lost records, and nothing else
	PERF_ALLOW='^(Warning:)?$|Processed [0-9]+ events and lost [0-9]+ chunks!|Processed [0-9]+ samples and lost [0-9.]+%!|Check IO/CPU overload!|^ *$'
	want_rc rec
	read_clean "$D/rec.data" rec
	[ "$(samples rec)" = "$(summary_samples rec)" ] ||
		fail "perf reads $(samples rec) samples, the summary says $(summary_samples rec)"
	busy=$(expand "$(cat "$D/busy")")
	busy_node=$(for n in $(cpu_nodes); do same_set "$(node_cpus "$n")" "$busy" && echo "$n"; done)
	grep -q '^\[ precord: adaptive layout: ' "$D/rec.err" || fail "no closing line of the adaptive layout"
	added=$(grep -c ' added at ' "$D/rec.err")
	[ "$added" -gt 0 ] || { grep 'precord:' "$D/rec.err"; fail "no helper was added"; }
	# Every helper run: for CPUs of its node, for rings that backed up.
	while read -r line; do
		helper=$(echo "$line" | sed -n 's/^\[ precord: \(prec-rd\/[0-9.]*\) added at .*/\1/p')
		lead=${helper#prec-rd/}
		lead=${lead%%.*}
		node=$(node_of_thread "$lead")
		cpus=$(echo "$line" | sed -n 's/.* for CPUs \([0-9,-]*\): .*/\1/p')
		[ -n "$node" ] || fail "$helper: no node line for prec-rd/$lead"
		for c in $(expand "$cpus"); do
			[[ " $(node_cpus "$node") " == *" $c "* ]] || fail "$helper took CPU $c, not of its node $node"
		done
		echo "$line" | grep -Eq ': (the kernel lost [1-9][0-9]* records|rings (7[5-9]|[89][0-9]|100)% full when read)' ||
			fail "$helper: added with no ring backing up ($line)"
		[ "$node" = "$busy_node" ] || note "$helper on lightly loaded node $node: $line"
		helper_nodes="$helper_nodes $node"
	done < <(grep ' added at ' "$D/rec.err")
	[[ " $helper_nodes " == *" $busy_node "* ]] || fail "no helper on the busy node $busy_node"
	# Every node whose CPUs lost records got a helper.
	lost_nodes=$(cat "$D/loss.out" "$D/loss.err" 2>/dev/null |
		awk '$1 == "[" && $2 == "precord:" && $3 ~ /^[0-9]+$/ && $5 ~ /^[0-9]+$/ && $6 + 0 > 0 { print $3 }' |
		sort -nu | while read -r c; do
			for n in $(cpu_nodes); do
				[[ " $(node_cpus "$n") " == *" $c "* ]] && echo "$n"
			done
		done | sort -nu | xargs)
	for n in $lost_nodes; do
		[ "$n" = "$busy_node" ] || note "node $n lost records but spun lightly"
		[ "$(node_cpus "$n" | wc -w)" -gt 1 ] || continue	# no room for a helper
		grep -Eq "^\[ precord: node $n \(prec-rd/[0-9]+\): ([2-9]|[1-9][0-9]+) streaming threads ran" "$D/rec.err" ||
			fail "node $n lost records and got no helper"
	done
	note "load: $(cat "$D/load"); busy node $busy_node (CPUs $(cat "$D/busy")): $added helper runs, nodes that lost records: ${lost_nodes:-none}"
	grep '^\[ precord: node \|added at\|adaptive layout' "$D/rec.err" | sed 's/^/    /'
	check_quiet "$busy_node"
}
