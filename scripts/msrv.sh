#!/usr/bin/env bash
# Checks that every crate builds with the oldest Rust its Cargo.toml declares
# (`rust-version`), using that very toolchain (`rustup toolchain install`, a download:
# this is `make msrv`, not part of `make test`).
#
#   the workspace's rust-version (Cargo.toml): the libraries and binaries of every crate
#     but the Node addon, with all features, and every target (tests, benches, examples)
#     of the crates whose dev-dependencies allow it;
#   the Node addon's own rust-version (bindings/node/Cargo.toml; napi 3 needs 1.88):
#     the addon, and the tests and examples of packstream and bolt (their
#     dev-dependency proptest 1.12 needs 1.88 too).
#
# Each toolchain has its own target directory under CARGO_TARGET_DIR (default target/),
# so the stable build is left alone.
#
#   scripts/msrv.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

rust_version() { sed -n 's/^rust-version = "\(.*\)"$/\1/p' "$1"; }
WS="$(rust_version Cargo.toml)"
NODE="$(rust_version bindings/node/Cargo.toml)"
[ -n "$WS" ] && [ -n "$NODE" ] || {
  echo "msrv.sh: no rust-version in Cargo.toml or bindings/node/Cargo.toml" >&2
  exit 1
}

check() { # TOOLCHAIN CARGO-CHECK-ARGS...
  local tc=$1
  shift
  echo "msrv.sh: cargo +$tc check $*" >&2
  CARGO_TARGET_DIR="$TARGET_DIR/msrv-$tc" cargo "+$tc" check --quiet --all-features "$@"
}

rustup toolchain install "$WS" --profile minimal
check "$WS" --workspace --exclude boltcodec-node --lib --bins
check "$WS" --workspace --exclude boltcodec-node --exclude boltcodec-packstream \
  --exclude boltcodec-bolt --all-targets

rustup toolchain install "$NODE" --profile minimal
check "$NODE" -p boltcodec-node -p boltcodec-packstream -p boltcodec-bolt --all-targets

echo "msrv.sh: every crate builds with its rust-version ($WS; the Node addon $NODE)"
