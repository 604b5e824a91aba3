#!/bin/bash
# Run a command in a many-CPU, multi-node Linux guest: Debian's stock kernel
# under QEMU TCG (KVM here is a hypervisor for its own kernels only), with N
# vCPUs over M NUMA nodes, even or uneven, with CPU-less memory nodes and
# CPUs taken offline if asked. The guest's root is an overlay of the host's
# / (read-only over virtio-9p, a tmpfs on top), so the freshly built
# ./precord and stock perf run at their usual paths; a read-write 9p share
# of a host directory, mounted at the same path in the guest, brings results
# back. See /init beside this script for the guest's side.
#
# The kernel package (the one linux-image-amd64 depends on) is downloaded
# with apt-get download, unpacked with dpkg-deb (nothing is installed), and
# cached with the initramfs in $PRECORD_VM_CACHE (default build/vm/cache).
#
# Exit status: the command's; 77 (with a one-line reason) when the guest
# cannot be started here; 124 when the run timed out (QEMU is killed); 125
# when the guest ended without the command's status (a panic, a crash of
# init: the console's last lines are shown).
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
CACHE=${PRECORD_VM_CACHE:-$TOP/build/vm/cache}

usage() {
	cat <<EOF
usage: tests/vm/guest.sh [options] [--] COMMAND [ARG...]
       tests/vm/guest.sh prepare        fetch the kernel, build the initramfs
Run COMMAND (with bash, in the current directory) in a multi-node guest and
return its stdout, stderr and exit status.
  -c, --cpus N          vCPUs, split evenly over the --nodes count (default 8)
  -n, --nodes M|LIST    nodes: a count M, or the CPUs of each node, e.g.
                        3,3,2 or 2,0,2 (0: a node with memory and no CPU;
                        the guest's kernel numbers it after the nodes with
                        CPUs, as it meets them in the ACPI tables) (default 4)
  -z, --memory-nodes K  add K nodes with memory and no CPU after the others
  -t, --smt T           threads per core (even splits only; default 1)
  -m, --mem MB          guest memory in MiB, shared out over the nodes
                        (default 768 + 8 per vCPU)
  -f, --offline LIST    take these CPUs offline before COMMAND (e.g. 3,5-6)
  -r, --results DIR     the host directory shared read-write at the same
                        path (default build/vm/run, emptied first)
  -T, --timeout S       kill the guest after S seconds (default 600)
  -a, --append ARGS     more kernel command-line arguments
  -e, --env VAR=VALUE   set VAR in COMMAND's environment (repeatable)
  -v, --verbose         show the QEMU command line and the console
EOF
	exit "${1:-2}"
}

skip() { echo "guest.sh: cannot start a guest here: $*"; exit 77; }
die() { echo "guest.sh: $*" >&2; exit 2; }

# --- the kernel and the initramfs, cached ------------------------------------

# The modules the initramfs loads, with their dependencies (kmod's modinfo
# reads them from each .ko), in an order insmod accepts.
ROOT_MODULES="virtio_pci 9pnet_virtio 9p overlay"

# mod_path TREE NAME: the .ko of NAME in TREE (names use - and _ alike).
mod_path() {
	local alt=${2//_/-}
	find "$1" \( -name "$2.ko" -o -name "$alt.ko" -o -name "$2.ko.xz" -o -name "$alt.ko.xz" \) | head -1
}

# mod_order TREE NAME...: NAMEs and their dependencies, dependencies first.
mod_order() {
	local tree=$1 m dep p
	shift
	for m in "$@"; do
		[[ " $ORDERED " == *" $m "* ]] && continue
		p=$(mod_path "$tree" "$m")
		[ -n "$p" ] || { echo "guest.sh: no module $m in the kernel package" >&2; return 1; }
		for dep in $(modinfo -F depends "$p" | tr ',' ' '); do
			mod_order "$tree" "$dep" || return 1
		done
		ORDERED="$ORDERED $m "
	done
}

# extract_vmlinux BZIMAGE OUT: the uncompressed ELF kernel inside a bzImage
# (the kernel tree's scripts/extract-vmlinux does the same), so QEMU boots it
# through its PVH entry point and skips the decompressor (~3 s under TCG).
extract_vmlinux() {
	local off
	for off in $(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$1" | cut -d: -f1); do
		tail -c +$((off + 1)) "$1" | xz -dc --single-stream >"$2" 2>/dev/null
		[ "$(head -c 4 "$2" | od -An -c | tr -d ' ')" = "177ELF" ] && return 0
	done
	rm -f "$2"
	return 1
}

fetch_kernel() {
	local k=$CACHE/kernel tmp pkg deb kver
	[ -f "$k/ready" ] && return 0
	command -v apt-get >/dev/null || skip "no apt-get to download Debian's kernel package"
	rm -rf "$k" && mkdir -p "$k" || die "cannot create $k"
	tmp=$(mktemp -d "$CACHE/fetch.XXXXXX")
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' | head -1)
	if [ -z "$pkg" ]; then
		apt-get update -qq >/dev/null 2>&1
		pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)/\1/p' | head -1)
	fi
	[ -n "$pkg" ] || { rm -rf "$tmp"; skip "apt knows no linux-image-amd64 (no package lists?)"; }
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -qq "$pkg" >download.log 2>&1) ||
		{ rm -rf "$tmp"; skip "cannot download $pkg (no network?)"; }
	deb=$(ls "$tmp"/*.deb)
	echo "guest.sh: unpacking ${deb##*/} into $k" >&2
	dpkg-deb -x "$deb" "$tmp/x" || { rm -rf "$tmp"; die "dpkg-deb cannot unpack $deb"; }
	kver=$(ls "$tmp/x/lib/modules" | head -1)
	cp "$tmp/x/boot/vmlinuz-$kver" "$k/vmlinuz" && cp "$tmp/x/boot/config-$kver" "$k/config" ||
		die "no kernel image in $deb"
	ORDERED=""
	mod_order "$tmp/x/lib/modules/$kver" $ROOT_MODULES || { rm -rf "$tmp"; die "cannot order the modules"; }
	mkdir -p "$k/modules"
	for m in $ORDERED; do
		cp "$(mod_path "$tmp/x/lib/modules/$kver" "$m")" "$k/modules/" || die "cannot copy module $m"
	done
	echo $ORDERED >"$k/modules/order"
	extract_vmlinux "$k/vmlinuz" "$k/vmlinux" || echo "guest.sh: no vmlinux in the bzImage; booting it as is" >&2
	echo "$kver" >"$k/version"
	rm -rf "$tmp"
	touch "$k/ready"
}

# The initramfs: busybox, /init and the modules; rebuilt when /init, the
# kernel or busybox changes.
build_initramfs() {
	local k=$CACHE/kernel ir=$CACHE/initramfs key tmp m
	key=$(cat "$HERE/init" "$k/version" /bin/busybox | cksum)
	[ -f "$ir.cpio.gz" ] && [ "$(cat "$ir.key" 2>/dev/null)" = "$key" ] && return 0
	tmp=$(mktemp -d "$CACHE/initramfs.XXXXXX")
	mkdir -p "$tmp/bin" "$tmp/modules"
	cp /bin/busybox "$tmp/bin/busybox" && cp "$HERE/init" "$tmp/init" && chmod 755 "$tmp/init" || die "cannot fill $tmp"
	for m in $(cat "$k/modules/order"); do
		case $(ls "$k/modules/" | grep -E "^(${m}|${m//_/-})\.ko") in
		*.xz) xz -dc "$k/modules/"*"$m".ko.xz >"$tmp/modules/$m.ko" ;;
		*) cp "$(mod_path "$k/modules" "$m")" "$tmp/modules/$m.ko" ;;
		esac || die "cannot copy module $m"
	done
	cp "$k/modules/order" "$tmp/modules/order"
	(cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) >"$ir.cpio.gz.tmp" || die "cannot pack the initramfs"
	mv "$ir.cpio.gz.tmp" "$ir.cpio.gz" && echo "$key" >"$ir.key"
	rm -rf "$tmp"
}

prepare() {
	command -v qemu-system-x86_64 >/dev/null || skip "no qemu-system-x86_64 (tests/vm/install-deps.sh installs it)"
	[ -x /bin/busybox ] && /bin/busybox --list 2>/dev/null | grep -qx insmod ||
		skip "no static busybox at /bin/busybox (package busybox-static)"
	for tool in cpio modinfo xz; do
		command -v $tool >/dev/null || skip "no $tool (tests/vm/install-deps.sh installs it)"
	done
	mkdir -p "$CACHE" || die "cannot create $CACHE"
	fetch_kernel
	build_initramfs
}

# --- the topology -------------------------------------------------------------

# topology: sets SMP and NUMA (QEMU arguments) from CPUS, NODES, MEMNODES,
# SMT and MEM. An even split is sockets=M, cores=N/M (one socket per node);
# an uneven one puts each CPU in its own socket and sockets on nodes.
topology() {
	local per=() i n=0 s cpu=0 nmem total_nodes size
	if [[ $NODES == *,* ]]; then
		per=(${NODES//,/ })
		CPUS=0
		for i in "${per[@]}"; do CPUS=$((CPUS + i)); done
		[ "$SMT" -eq 1 ] || die "--smt needs an even split (--cpus N --nodes M)"
	else
		[ $((CPUS % NODES)) -eq 0 ] || die "$CPUS vCPUs do not split evenly over $NODES nodes; give a list"
		for ((i = 0; i < NODES; i++)); do per+=($((CPUS / NODES))); done
	fi
	for ((i = 0; i < MEMNODES; i++)); do per+=(0); done
	total_nodes=${#per[@]}
	[ "$CPUS" -ge 1 ] || die "no vCPU"
	[ "$CPUS" -le 252 ] || die "at most 252 vCPUs (APIC IDs must stay below 255 without an IOMMU)"
	MEM=${MEM:-$((768 + 8 * CPUS))}
	size=$((MEM / total_nodes / 2 * 2))
	[ "$size" -ge 128 ] || die "$MEM MiB over $total_nodes nodes is less than 128 MiB a node"
	MEM=$((size * total_nodes))
	NUMA=()
	if [[ $NODES == *,* ]]; then
		SMP="$CPUS,sockets=$CPUS,cores=1,threads=1"
	else
		nmem=$((CPUS / NODES / SMT))
		[ $((CPUS % (NODES * SMT))) -eq 0 ] || die "$CPUS vCPUs do not make $NODES nodes of $SMT-thread cores"
		SMP="$CPUS,sockets=$NODES,cores=$nmem,threads=$SMT"
	fi
	for ((i = 0; i < total_nodes; i++)); do
		NUMA+=(-object "memory-backend-ram,id=mem$i,size=${size}M" -numa "node,nodeid=$i,memdev=mem$i")
	done
	for ((i = 0; i < total_nodes; i++)); do
		[ "${per[i]}" -gt 0 ] || continue
		if [[ $NODES == *,* ]]; then
			for ((s = cpu; s < cpu + per[i]; s++)); do
				NUMA+=(-numa "cpu,node-id=$i,socket-id=$s")
			done
			cpu=$((cpu + per[i]))
		else
			NUMA+=(-numa "cpu,node-id=$i,socket-id=$n")
			n=$((n + 1))
		fi
	done
	DESCR="$CPUS vCPUs, nodes $(IFS=,; echo "${per[*]}") (CPUs per node), $MEM MiB"
}

# lpj= for the host's clock: every vCPU otherwise calibrates its delay loop.
lpj() {
	local mhz
	mhz=$(sed -n 's/^cpu MHz[^:]*: *\([0-9]*\).*/\1/p' /proc/cpuinfo | head -1)
	echo $(( ${mhz:-2000} * 1000000 / $(sed -n 's/^CONFIG_HZ=//p' "$CACHE/kernel/config") ))
}

# --- run ----------------------------------------------------------------------

CPUS=8 NODES=4 MEMNODES=0 SMT=1 MEM= OFFLINE= RESULTS= TIMEOUT=600 APPEND= VERBOSE=0 ENVS=()
[ $# -gt 0 ] || usage
if [ "$1" = prepare ]; then
	prepare
	exit 0
fi
while [ $# -gt 0 ]; do
	case $1 in
	-c|--cpus) CPUS=$2; shift 2 ;;
	-n|--nodes) NODES=$2; shift 2 ;;
	-z|--memory-nodes) MEMNODES=$2; shift 2 ;;
	-t|--smt) SMT=$2; shift 2 ;;
	-m|--mem) MEM=$2; shift 2 ;;
	-f|--offline) OFFLINE=$2; shift 2 ;;
	-r|--results) RESULTS=$2; shift 2 ;;
	-T|--timeout) TIMEOUT=$2; shift 2 ;;
	-a|--append) APPEND="$APPEND $2"; shift 2 ;;
	-e|--env) ENVS+=("$2"); shift 2 ;;
	-v|--verbose) VERBOSE=1; shift ;;
	-h|--help) usage 0 ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || usage
topology
prepare

if [ -z "$RESULTS" ]; then
	RESULTS=$TOP/build/vm/run
	rm -rf "$RESULTS"
fi
mkdir -p "$RESULTS" && RESULTS=$(cd "$RESULTS" && pwd) || die "cannot create $RESULTS"
G=$RESULTS/.guest
rm -rf "$G" && mkdir -p "$G" || die "cannot create $G"
{
	echo "cd $(printf %q "$PWD") || exit 1"
	for e in "${ENVS[@]}"; do echo "export $(printf %q "$e")"; done
	printf '%q ' "$@"
	echo
} >"$G/cmd"

K=$CACHE/kernel
KERNEL=$K/vmlinux
[ -f "$KERNEL" ] || KERNEL=$K/vmlinuz
CMDLINE="console=ttyS0 quiet lpj=$(lpj) tsc=reliable mitigations=off panic=-1 nowatchdog"
CMDLINE="$CMDLINE precord.results=$RESULTS${OFFLINE:+ precord.offline=$OFFLINE}$APPEND"
QEMU=(qemu-system-x86_64 -machine pc -accel tcg,thread=multi -cpu max
	-smp "$SMP" -m "${MEM}M" "${NUMA[@]}"
	-kernel "$KERNEL" -initrd "$CACHE/initramfs.cpio.gz" -append "$CMDLINE"
	-nodefaults -no-user-config -display none -no-reboot
	-serial "file:$G/console"
	-virtfs "local,path=/,mount_tag=hostroot,readonly=on,security_model=none,multidevs=remap"
	-virtfs "local,path=$RESULTS,mount_tag=results,security_model=none,multidevs=remap")
[ "$VERBOSE" = 1 ] && echo "guest.sh: $DESCR: ${QEMU[*]}" >&2

# boot: run the guest under the timeout; 2 when it has not started the
# command (init says so on the console) within BOOT_TIMEOUT seconds, and
# was killed.
boot() {
	local qpid i
	: >"$G/console"
	timeout -k 5 "$TIMEOUT" "${QEMU[@]}" >"$G/qemu.log" 2>&1 &
	qpid=$!
	for ((i = 0; i < BOOT_TIMEOUT; i++)); do
		grep -q '^guest init: running the command' "$G/console" 2>/dev/null && break
		kill -0 $qpid 2>/dev/null || break
		sleep 1
	done
	if [ $i -ge "$BOOT_TIMEOUT" ]; then
		kill -TERM $qpid 2>/dev/null
		wait $qpid
		return 2
	fi
	wait $qpid
}

# Booting takes 3 s for 8 vCPUs and 90 s for 252 on an idle machine.
BOOT_TIMEOUT=${PRECORD_VM_BOOT_TIMEOUT:-$((120 + 2 * CPUS))}
start=$(date +%s%N)
boot
qrc=$?
if [ $qrc -eq 2 ]; then
	echo "guest.sh: the guest ($DESCR) did not start the command within ${BOOT_TIMEOUT}s; booting it again. Its console:" >&2
	tail -n 20 "$G/console" | sed 's/^/    /' >&2
	boot
	qrc=$?
	if [ $qrc -eq 2 ]; then
		echo "guest.sh: the guest ($DESCR) did not start the command within ${BOOT_TIMEOUT}s, twice; its console:" >&2
		tail -n 20 "$G/console" | sed 's/^/    /' >&2
		exit 124
	fi
fi
secs=$(awk -v a="$start" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
[ "$VERBOSE" = 1 ] && sed 's/^/console: /' "$G/console" >&2
cat "$G/stdout" 2>/dev/null
cat "$G/stderr" >&2 2>/dev/null
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	echo "guest.sh: the guest ($DESCR) timed out after ${TIMEOUT}s and was killed; its console ended:" >&2
	tail -20 "$G/console" | sed 's/^/    /' >&2
	exit 124
fi
if [ ! -s "$G/status" ]; then
	echo "guest.sh: the guest ($DESCR) ended without the command's status (QEMU exit $qrc); its console ended:" >&2
	cat "$G/qemu.log" >&2
	tail -30 "$G/console" | sed 's/^/    /' >&2
	exit 125
fi
[ "$VERBOSE" = 1 ] && echo "guest.sh: $DESCR: ran in $secs s" >&2
exit "$(cat "$G/status")"
