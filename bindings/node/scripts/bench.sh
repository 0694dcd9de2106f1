#!/usr/bin/env bash
# Runs the Node benchmark (benches/node/bench.js): neo4j-driver's own codec, boltcodec,
# msgpackr and @msgpack/msgpack on the same data.
#
#   bindings/node/scripts/bench.sh [--quick] [--write]
#   bindings/node/scripts/bench.sh --e2e [--write] [--rows N] [--rounds R] [--replay] [--timeline] [--profile] [--base DIR]
#
# --quick: fewer rounds. --write: also rewrite the node section of benches/RESULTS.md.
# --e2e: instead, the end-to-end read on a real Neo4j 5.26 (benches/node/e2e.js, server
# started and stopped by scripts/with-neo4j.sh on port NEO4J_E2E_PORT, default 17889):
# neo4j-driver alone, with the drop-in, and the raw floors (PULLs as the driver, one PULL);
# --timeline adds where the time goes; --profile runs each driver read in a child process
# under V8's CPU profiler (GC share of the profile, issue 15's measure); --base DIR adds the
# drop-in of another build's bindings/node (e.g. the issue-filing one) to the rounds;
# --replay adds the client's side
# alone (the read's recorded responses served again without the database).
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
if [ "${1:-}" = "--e2e" ]; then
  shift
  ROOT="$(cd "$HERE/../.." && pwd)"
  exec "$ROOT/scripts/with-neo4j.sh" 5.26 "${NEO4J_E2E_PORT:-17889}" -- node --expose-gc "$ROOT/benches/node/e2e.js" "$@"
fi
exec node ../../benches/node/bench.js "$@"
