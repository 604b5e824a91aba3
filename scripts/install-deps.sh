#!/bin/sh
# Install the Debian packages precord needs to build, test and demo, when
# they are missing. Run by `make check` and `make demo`; does nothing when
# everything is present. With arguments, those packages instead (the
# multi-node guest's, from tests/vm/install-deps.sh).
set -e
# clang and its runtime (libFuzzer, the sanitizers) build the fuzz targets:
# make check and make fuzz only. libclang-rt-dev is the runtime of the
# default clang, whichever version that is (14 on Debian 12). librsvg2-bin's
# rsvg-convert renders the loss timeline in its test; tmux is the terminal
# the status line's test runs in.
PKGS="build-essential pkg-config libhwloc-dev libnuma-dev libzstd-dev libcmocka-dev linux-perf hwloc-nox
      clang libclang-rt-dev librsvg2-bin tmux"
[ $# -gt 0 ] && PKGS="$*"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "precord: missing Debian packages:$missing; run: sudo apt-get install$missing" >&2
	exit 1
fi
echo "  APT    $missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends $missing >/dev/null
