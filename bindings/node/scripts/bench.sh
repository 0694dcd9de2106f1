#!/usr/bin/env bash
# Runs the Node benchmark (benches/node/bench.js): neo4j-driver's own codec, boltcodec,
# msgpackr and @msgpack/msgpack on the same data.
#
#   bindings/node/scripts/bench.sh [--quick] [--write]
#
# --quick: fewer rounds. --write: also rewrite the node section of benches/RESULTS.md.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HERE"
# napi-rs writes the generated type definitions under the target directory, and only
# finds it when the path is absolute.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$(cd "$HERE/../.." && pwd)/target}"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  scripts/npm-install.sh
fi
npm run --silent build >&2
exec node ../../benches/node/bench.js "$@"
