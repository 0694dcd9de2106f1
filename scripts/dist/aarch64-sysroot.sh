#!/usr/bin/env bash
# Makes an aarch64 sysroot with Debian's CPython 3.11 in it, so that scripts/dist/test.sh
# can run the cp311 aarch64 wheel under qemu-user:
#
#   scripts/dist/aarch64-sysroot.sh [DIR]     (default: target/dist-aarch64-sysroot)
#
# Needs root on Debian: adds the arm64 architecture to dpkg (so that apt can download
# arm64 packages), installs qemu-user-static if missing, downloads the few arm64 packages
# CPython needs and unpacks them into DIR with `dpkg -x` (nothing arm64 is installed on
# the host). Run it by hand once; `make test-dist` uses the sysroot when it is there.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SYSROOT="${1:-$ROOT/target/dist-aarch64-sysroot}"
PACKAGES=(libc6 libgcc-s1 zlib1g libexpat1 libffi8 libcrypt1 libuuid1 libbz2-1.0 liblzma5 libssl3
  libpython3.11-minimal libpython3.11-stdlib python3.11-minimal)

if ! command -v qemu-aarch64-static >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static >&2
fi
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  dpkg --add-architecture arm64
fi
apt-get update -q >&2
debs="$(mktemp -d)"
trap 'rm -rf "$debs"' EXIT
(cd "$debs" && apt-get download -q "${PACKAGES[@]/%/:arm64}") >&2
mkdir -p "$SYSROOT"
for d in "$debs"/*.deb; do
  dpkg -x "$d" "$SYSROOT"
done
qemu-aarch64-static -L "$SYSROOT" "$SYSROOT/usr/bin/python3.11" -c \
  'import platform, sys; print("aarch64 sysroot:", platform.machine(), sys.version.split()[0])'
