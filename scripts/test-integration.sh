#!/usr/bin/env bash
# Integration tests against real Neo4j servers.
#
#   scripts/test-integration.sh
#
# Builds the tests of crates/bolt/tests/server.rs, crates/arrow/tests/server.rs and the
# `query` example once, then for each server flavour starts a throw-away Neo4j
# (scripts/with-neo4j.sh) and, against it, runs
#
#   cargo test -p boltcodec-bolt --test server -- --ignored --test-threads=2
#   cargo test -p boltcodec-bolt --test ws_server -- --ignored   (Bolt over WebSocket)
#   cargo test -p boltcodec-arrow --test server -- --ignored --test-threads=1
#       (every Cypher type into Arrow, every Bolt version; not the timed tests)
#   cargo run -p boltcodec-bolt --example query -- "RETURN 1 AS x"   (must print the row)
#
#   5.26 on port 17687: Bolt 4.4 (with and without the utc patch) and 5.0-5.8
#   2026 on port 17697: the same plus 6.0 and 6.1; skipped (exit 0) without a Java 21+ JDK
#
# Exits non-zero if anything failed. Cargo's own output (the `test result:` lines) is
# shown as usual; honours CARGO_TARGET_DIR and the other cargo variables.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT" || exit 1

# Inner mode: run by with-neo4j.sh, with the NEO4J_* variables set.
if [ "${1:-}" = "--against-server" ]; then
  status=0
  cargo test -p boltcodec-bolt --test server -- --ignored --test-threads=2 || status=1
  cargo test -p boltcodec-bolt --test ws_server -- --ignored --test-threads=2 || status=1
  # The two timed tests (1,000,000 and 10,000,000 rows) belong to
  # crates/arrow/scripts/bench.sh, in a release build.
  cargo test -p boltcodec-arrow --test server -- --ignored --test-threads=1 \
    --skip one_million_rows --skip peak_memory || status=1

  echo "example: query \"RETURN 1 AS x\" on Neo4j $NEO4J_FLAVOUR"
  out=$(cargo run -q -p boltcodec-bolt --example query -- "RETURN 1 AS x")
  rc=$?
  printf '%s\n' "$out"
  if [ "$rc" -ne 0 ] || [ "$out" != $'x\n1' ]; then
    echo "FAILED: the query example did not print the row (exit $rc)"
    status=1
  fi
  echo "example: a syntax error must exit non-zero"
  if cargo run -q -p boltcodec-bolt --example query -- "RETURN 1 +"; then
    echo "FAILED: the query example exited 0 on a FAILURE"
    status=1
  fi
  exit "$status"
fi

t_start=$(date +%s)
echo "== building the integration tests and the query example"
if ! cargo test -p boltcodec-bolt --test server --test ws_server --no-run ||
   ! cargo test -p boltcodec-arrow --test server --no-run ||
   ! cargo build -p boltcodec-bolt --example query; then
  echo "build failed"
  exit 1
fi
echo "built in $(( $(date +%s) - t_start )) s"

failed=()
for target in "5.26 17687" "2026 17697"; do
  read -r flavour port <<<"$target"
  t0=$(date +%s)
  echo "== Neo4j $flavour on port $port"
  if ! scripts/with-neo4j.sh "$flavour" "$port" -- bash scripts/test-integration.sh --against-server; then
    failed+=("$flavour")
  fi
  echo "== Neo4j $flavour done in $(( $(date +%s) - t0 )) s"
done

echo "== integration tests finished in $(( $(date +%s) - t_start )) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED against Neo4j ${failed[*]}"
  exit 1
fi
echo "all passed"
