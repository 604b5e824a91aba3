#!/bin/sh
# Install the Debian packages the multi-node guest needs (tests/vm/guest.sh),
# when they are missing: QEMU's x86 system emulator, a static busybox for the
# initramfs, cpio to pack it, kmod's modinfo to order the kernel modules, and
# xz to unpack the kernel. Run by `make check` and `make check-scale`; says
# nothing when everything is present. The kernel itself is not installed: the
# guest script downloads Debian's package and unpacks it in its cache.
set -e
PKGS="qemu-system-x86 busybox-static cpio kmod xz-utils"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "precord: the multi-node guest needs:$missing; run: sudo apt-get install$missing" >&2
	exit 1
fi
echo "  APT    $missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends $missing >/dev/null
