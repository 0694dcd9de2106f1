#!/usr/bin/env bash
# Python benchmark: the neo4j driver's pure-Python codec, neo4j-rust-ext (its own venv),
# boltcodec and ormsgpack, at codec level and at execute_query level (real Neo4j 5.26).
#
#   bindings/python/scripts/bench.sh [--update]
#
# Prints the Markdown table; --update writes it into benches/RESULTS.md between the
# <!-- python:start --> / <!-- python:end --> markers. The JSON of every run is kept in
# $BENCH_OUT (default target/bench-python) for benches/python/report.py. NEO4J_BENCH_PORT (default 17788)
# is the server's port; BOLTCODEC_SKIP_E2E=1 skips the driver-level part.
# The implementations run in BENCH_ROUNDS (default 2) alternating rounds and the report
# keeps each measurement's best round, so that load from other processes on a shared
# machine affects them alike. benches/python/driver_e2e.py then measures the driver end
# to end (the demo read and 1,000,000 scalar rows) with a raw-floor column.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PKG="$ROOT/bindings/python"
BENCH="$ROOT/benches/python"
PY="$ROOT/.venv/bin/python"
PY_RUST="$ROOT/.venv-rustext/bin/python"
PORT="${NEO4J_BENCH_PORT:-17788}"

"$PKG/scripts/install.sh"
# Raw results stay for report.py (target/ is git-ignored).
OUT="${BENCH_OUT:-$ROOT/target/bench-python}"
rm -rf "$OUT"
mkdir -p "$OUT"
ROUNDS="${BENCH_ROUNDS:-2}"

# Codec level, without a server running.
for ((r = 1; r <= ROUNDS; r++)); do
  BOLTCODEC_NEO4J=0 "$PY" "$BENCH/bench.py" --impl pure > "$OUT/pure.$r.json"
  "$PY_RUST" "$BENCH/bench.py" --impl rustext > "$OUT/rustext.$r.json"
  "$PY" "$BENCH/bench.py" --impl boltcodec > "$OUT/boltcodec.$r.json"
  "$PY" "$BENCH/bench.py" --impl ormsgpack > "$OUT/ormsgpack.$r.json"
done

# Driver level.
DRIVER_E2E_UPDATE=""
if [ "${1:-}" = --update ]; then DRIVER_E2E_UPDATE="--update $ROOT/benches/RESULTS.md"; fi
if [ "${BOLTCODEC_SKIP_E2E:-0}" != 1 ]; then
  DRIVER_E2E_UPDATE="$DRIVER_E2E_UPDATE" OUT="$OUT" PY="$PY" PY_RUST="$PY_RUST" BENCH="$BENCH" ROUNDS="$ROUNDS" \
    "$ROOT/scripts/with-neo4j.sh" 5.26 "$PORT" -- bash -c '
      set -e
      for ((r = 1; r <= ROUNDS; r++)); do
        BOLTCODEC_NEO4J=0 "$PY" "$BENCH/bench.py" --impl pure --e2e --no-codec > "$OUT/pure-e2e.$r.json"
        "$PY_RUST" "$BENCH/bench.py" --impl rustext --e2e --no-codec > "$OUT/rustext-e2e.$r.json"
        "$PY" "$BENCH/bench.py" --impl boltcodec --e2e --no-codec > "$OUT/boltcodec-e2e.$r.json"
      done
      # The driver end to end on the demo read and 1,000,000 scalar rows: pure, rust-ext,
      # boltcodec and the raw floor, alternating rounds (its own RESULTS.md section).
      "$PY" "$BENCH/driver_e2e.py" --rounds "$ROUNDS" --rustext "$PY_RUST" $DRIVER_E2E_UPDATE \
        | tee "$OUT/driver-e2e.md"
    '
fi

if [ "${1:-}" = --update ]; then
  "$PY" "$BENCH/report.py" "$OUT" --update "$ROOT/benches/RESULTS.md"
  echo "updated benches/RESULTS.md" >&2
fi
"$PY" "$BENCH/report.py" "$OUT"
