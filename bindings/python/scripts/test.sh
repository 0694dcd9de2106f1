#!/usr/bin/env bash
# Build the Python wheel and run the whole Python test suite: unit, vectors, differential,
# driver drop-in, hostile input, and end to end against a real Neo4j server.
#
#   bindings/python/scripts/test.sh [PYTEST ARGS...]
#
# Runs setup-venv.sh first. The server comes from scripts/with-neo4j.sh (Neo4j 5.26 on
# 127.0.0.1:$NEO4J_TEST_PORT, default 17787). BOLTCODEC_SKIP_E2E=1 runs without a server
# (the e2e tests are then skipped). Exits with pytest's status; the last line printed is
# pytest's summary line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PKG="$ROOT/bindings/python"
PY="$ROOT/.venv/bin/python"
PORT="${NEO4J_TEST_PORT:-17787}"

"$PKG/scripts/install.sh"
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT

cd "$PKG"
status=0
if [ "${BOLTCODEC_SKIP_E2E:-0}" = 1 ]; then
  "$PY" -m pytest -p no:cacheprovider "$@" tests 2>&1 | tee "$LOG" || status=${PIPESTATUS[0]}
else
  "$ROOT/scripts/with-neo4j.sh" 5.26 "$PORT" -- \
    "$PY" -m pytest -p no:cacheprovider "$@" tests 2>&1 | tee "$LOG" || status=${PIPESTATUS[0]}
fi
# with-neo4j.sh reports the server's shutdown after pytest: repeat pytest's summary last.
summary=$(grep -E '(passed|failed|errors?|skipped|no tests ran).* in [0-9.]+s' "$LOG" | tail -n 1 || true)
[ -n "$summary" ] && echo "$summary"
exit "$status"
