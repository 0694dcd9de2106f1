#!/usr/bin/env bash
# Build the Python wheel and run the whole Python test suite: unit, vectors, differential,
# driver drop-in, hostile input, and end to end against a real Neo4j server.
#
#   bindings/python/scripts/test.sh [PYTEST ARGS...]
#
# Runs setup-venv.sh first, then pytest, then scripts/driver-matrix.sh (the drop-in on
# every supported neo4j driver release, each installed once into .venv-drivers/). The
# server comes from scripts/with-neo4j.sh (Neo4j 5.26 on 127.0.0.1:$NEO4J_TEST_PORT,
# default 17787). Then tests/test_arrow_driver.py runs a second time against Neo4j 2026.x
# (on 127.0.0.1:$NEO4J_TEST_2026_PORT, default 17797): skipped, with with-neo4j.sh's
# "skipping Neo4j 2026.x: no Java 21+ JDK" message, where there is no JDK 21+.
# BOLTCODEC_SKIP_E2E=1 runs without a server (the e2e tests are then skipped, and the
# 2026 run is not made). Exits non-zero if pytest, the matrix or the 2026 run failed; the
# last lines printed are the matrix's summary, the 2026 run's summary line (prefixed
# "Neo4j 2026:") and pytest's summary line.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PKG="$ROOT/bindings/python"
PY="$ROOT/.venv/bin/python"
PORT="${NEO4J_TEST_PORT:-17787}"
PORT_2026="${NEO4J_TEST_2026_PORT:-17797}"

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
# Style first: ruff's formatter and linter over every Python file in the repository (the
# wheel's package by bindings/python/pyproject.toml, everything else by the root ruff.toml).
git -C "$ROOT" ls-files -z '*.py' '*.pyi' | (cd "$ROOT" && xargs -0 .venv/bin/ruff format --check --quiet) ||
  { echo "test.sh: ruff format would change the files above" >&2; exit 1; }
git -C "$ROOT" ls-files -z '*.py' '*.pyi' | (cd "$ROOT" && xargs -0 .venv/bin/ruff check --quiet) ||
  { echo "test.sh: ruff check failed" >&2; exit 1; }
LOG="$(mktemp)"
PYTEST_LOG="$(mktemp)"
export PYTEST_LOG
LOG_2026="$(mktemp)"
trap 'rm -f "$LOG" "$PYTEST_LOG" "$LOG_2026"' EXIT

status=0
if [ "${BOLTCODEC_SKIP_E2E:-0}" = 1 ]; then
  run_suites "$@" 2>&1 | tee "$LOG" || status=${PIPESTATUS[0]}
else
  "$ROOT/scripts/with-neo4j.sh" 5.26 "$PORT" -- \
    "$PKG/scripts/test.sh" --suites "$@" 2>&1 | tee "$LOG" || status=${PIPESTATUS[0]}
  # The Arrow transformer's server tests (every Cypher type, value by value against the
  # pure driver's records; issue 16 asks for them on 5.26 and 2026.x) against Neo4j 2026.x
  # too. Only this file: the rest of the suite runs against 5.26 alone.
  t0=$(date +%s)
  rc=0
  "$ROOT/scripts/with-neo4j.sh" 2026 "$PORT_2026" -- \
    bash -c 'cd "$1" && shift && exec "$@"' _ "$PKG" \
    "$PY" -m pytest -p no:cacheprovider tests/test_arrow_driver.py 2>&1 | tee "$LOG_2026" || rc=${PIPESTATUS[0]}
  echo "test.sh: the Neo4j 2026 run took $(( $(date +%s) - t0 )) s"
  if [ "$rc" -ne 0 ]; then
    status=$((status == 0 ? rc : status))
  fi
fi
# with-neo4j.sh reports the server's shutdown after the tests: repeat the summaries last.
grep -E '^driver-matrix: (all|FAILED)' "$LOG" | tail -n 1 || true
summary_2026=$(grep -E '(passed|failed|errors?|skipped|no tests ran).* in [0-9.]+s|^skipping Neo4j 2026' "$LOG_2026" | tail -n 1 || true)
[ -n "$summary_2026" ] && echo "Neo4j 2026: $summary_2026"
summary=$(grep -E '(passed|failed|errors?|skipped|no tests ran).* in [0-9.]+s' "$PYTEST_LOG" | tail -n 1 || true)
[ -n "$summary" ] && echo "$summary"
exit "$status"
