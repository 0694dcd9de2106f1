#!/usr/bin/env bash
# Build the Python wheel and run the whole Python test suite: unit, vectors, differential,
# driver drop-in, hostile input, and end to end against a real Neo4j server.
#
#   bindings/python/scripts/test.sh [PYTEST ARGS...]
#
# Runs setup-venv.sh first, then pytest, then scripts/driver-matrix.sh (the drop-in on
# every supported neo4j driver release, each installed once into .venv-drivers/). The
# server comes from scripts/with-neo4j.sh (Neo4j 5.26 on 127.0.0.1:$NEO4J_TEST_PORT,
# default 17787). BOLTCODEC_SKIP_E2E=1 runs without a server (the e2e tests are then
# skipped). Exits non-zero if pytest or the matrix failed; the last two lines printed are
# the matrix's summary and pytest's summary line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PKG="$ROOT/bindings/python"
PY="$ROOT/.venv/bin/python"
PORT="${NEO4J_TEST_PORT:-17787}"

# The whole suite, then the drop-in on every supported driver release (with a server,
# the matrix also runs the e2e tests on a 5.x and a 6.x release). pytest's output also
# goes to $PYTEST_LOG.
run_suites() {
  local rc=0
  cd "$PKG"
  "$PY" -m pytest -p no:cacheprovider "$@" tests 2>&1 | tee "$PYTEST_LOG" || rc=${PIPESTATUS[0]}
  "$PKG/scripts/driver-matrix.sh" || rc=$((rc == 0 ? 1 : rc))
  return "$rc"
}
if [ "${1:-}" = "--suites" ]; then # run by with-neo4j.sh below, after the build
  shift
  run_suites "$@"
  exit
fi

"$PKG/scripts/install.sh"
LOG="$(mktemp)"
PYTEST_LOG="$(mktemp)"
export PYTEST_LOG
trap 'rm -f "$LOG" "$PYTEST_LOG"' EXIT

status=0
if [ "${BOLTCODEC_SKIP_E2E:-0}" = 1 ]; then
  run_suites "$@" 2>&1 | tee "$LOG" || status=${PIPESTATUS[0]}
else
  "$ROOT/scripts/with-neo4j.sh" 5.26 "$PORT" -- \
    "$PKG/scripts/test.sh" --suites "$@" 2>&1 | tee "$LOG" || status=${PIPESTATUS[0]}
fi
# with-neo4j.sh reports the server's shutdown after the tests: repeat the summaries last.
grep -E '^driver-matrix: (all|FAILED)' "$LOG" | tail -n 1 || true
summary=$(grep -E '(passed|failed|errors?|skipped|no tests ran).* in [0-9.]+s' "$PYTEST_LOG" | tail -n 1 || true)
[ -n "$summary" ] && echo "$summary"
exit "$status"
