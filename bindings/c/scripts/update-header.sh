#!/usr/bin/env bash
# Regenerates bindings/c/include/boltcodec.h from the Rust sources (cbindgen, in build.rs).
# Honours CARGO_TARGET_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
cd "$ROOT"
BOLTCODEC_UPDATE_HEADER=1 cargo build -q -p boltcodec-c
echo "bindings/c/include/boltcodec.h is up to date"
