#!/usr/bin/env bash
# Builds the addon and runs every Node test: vectors, unit, differential against
# neo4j-driver's own codec and hydration, and the drop-in e2e test against a real Neo4j
# 5.26; then the hydration differential against every other supported neo4j-driver
# release and the e2e test with the 5.x LTS (scripts/driver-releases.sh).
#
#   bindings/node/scripts/test.sh [--no-server]
#
# Installs the npm dev dependencies (scripts/npm-install.sh) when node_modules is missing or stale,
# builds boltcodec.<platform>.node in release mode (CARGO_TARGET_DIR is respected), checks
# that the generated files (native.js, native.d.ts, *.d.ts) match the sources, then runs
# `node --test` with the server of scripts/with-neo4j.sh on port NEO4J_TEST_PORT (default
# 17887). --no-server runs the e2e test file too, which then skips itself.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$HERE"
# napi-rs writes the generated type definitions under the target directory, and only
# finds it when the path is absolute.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

server=1
if [ "${1:-}" = "--no-server" ]; then server=0; fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  scripts/npm-install.sh
fi

echo "test.sh: building the addon" >&2
npm run --silent build >&2

# The generated declarations and loader must be the ones checked in.
if git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  if ! git -C "$ROOT" diff --quiet -- bindings/node/native.js bindings/node/native.d.ts \
      bindings/node/index.d.ts bindings/node/driver.d.ts bindings/node/lib; then
    echo "test.sh: generated files differ from the committed ones (commit them):" >&2
    git -C "$ROOT" diff --stat -- bindings/node >&2
    exit 1
  fi
fi

tests=(test/vectors.test.js test/api.test.js test/allocation-sites.test.js test/isolation.test.js test/connection.test.js test/message-vectors.test.js test/captures.test.js test/connection.e2e.test.js test/differential.test.js test/driver-contract.test.js test/records.test.js test/fast-hydrate.test.js test/hydration.test.js test/arrow.test.js test/driver.e2e.test.js)
# Every run of the test runner (this package's release, then the others) into one log.
run_all='s=0; node --test "${@:1}" 2>&1 | tee "$0"; s=${PIPESTATUS[0]}; scripts/driver-releases.sh 2>&1 | tee -a "$0"; r=${PIPESTATUS[0]}; exit $(( s != 0 ? s : r ))'
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
if [ "$server" = 1 ]; then
  "$ROOT/scripts/with-neo4j.sh" 5.26 "${NEO4J_TEST_PORT:-17887}" -- \
    bash -c "$run_all" "$log" "${tests[@]}" || status=$?
else
  bash -c "$run_all" "$log" "${tests[@]}" || status=$?
fi
# The server's shutdown message comes after the runner's output: repeat its summary, so
# that the run ends with it.
echo
grep -E '^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) |^driver-releases: ' "$log" || true
pass=$(grep -E '^# pass ' "$log" | awk '{s += $3} END {if (NR) print s}')
fail=$(grep -E '^# fail ' "$log" | awk '{s += $3} END {if (NR) print s}')
if [ -z "$pass" ]; then
  echo "test.sh: the test runner printed no summary (status $status)" >&2
  exit "$(( status == 0 ? 1 : status ))"
fi
echo "${pass} passed, ${fail:-0} failed"
exit "$status"
