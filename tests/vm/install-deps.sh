#!/bin/sh
# Install the Debian packages the multi-node guest needs (tests/vm/guest.sh),
# when they are missing: QEMU's x86 system emulator, a static busybox for the
# initramfs, cpio to pack it, kmod's modinfo to order the kernel modules, and
# xz to unpack the kernel. Run by `make check` and `make check-scale`; says
# nothing when everything is present. The kernel itself is not installed: the
# guest script downloads Debian's package and unpacks it in its cache.
exec "$(dirname "$0")/../../scripts/install-deps.sh" qemu-system-x86 busybox-static cpio kmod xz-utils
