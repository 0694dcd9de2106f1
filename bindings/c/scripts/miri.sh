#!/usr/bin/env bash
# Runs the C binding's Rust tests (src/miri_tests.rs: every entry point called as a C
# program calls it, with raw pointers, and pointers handed out kept and read later)
# under Miri, which checks the library's unsafe code against Rust's aliasing and
# lifetime rules (Stacked Borrows), uninitialised reads and leaks: what the C tests
# under AddressSanitizer cannot see.
#
#   bindings/c/scripts/miri.sh [TESTNAME]     # e.g. miri.sh connection
#
# Needs the nightly toolchain (rustup toolchain install nightly); installs its miri and
# rust-src components if they are missing. The tests take about a minute on 2 cores;
# a first run also builds Miri's standard library and the dependencies: about 2
# minutes in all. MIRIFLAGS is passed through (e.g. MIRIFLAGS=-Zmiri-tree-borrows).
#
# Honours CARGO_TARGET_DIR: builds in its `miri` subdirectory (default target/miri), so
# that a Miri run neither holds the lock of nor invalidates the ordinary builds.
#
# `--lib`: the unit tests are the crate's only Rust tests, and without it cargo also
# builds the bench_baseline example, a cdylib, which Miri cannot produce.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "miri.sh: needs the nightly toolchain: rustup toolchain install nightly" >&2
  exit 1
fi
installed="$(rustup component list --toolchain nightly --installed)"
missing=()
for component in miri rust-src; do
  grep -q "^$component" <<<"$installed" || missing+=("$component")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== rustup component add --toolchain nightly ${missing[*]}" >&2
  rustup component add --toolchain nightly "${missing[@]}"
fi

cd "$ROOT"
echo "== cargo +nightly miri test -p boltcodec-c --lib (target: $TARGET_DIR/miri)" >&2
CARGO_TARGET_DIR="$TARGET_DIR/miri" exec cargo +nightly miri test -p boltcodec-c --lib "$@"
