#!/usr/bin/env bash
# Run the official driver's PackStream unit tests against boltcodec's drop-in.
#
#   bindings/python/scripts/run-driver-unit-tests.sh DRIVER_CHECKOUT
#
# DRIVER_CHECKOUT is a work tree of the neo4j-python-driver repository at the tag of the
# installed driver (6.4.1); its code is not part of this repository. The script runs
# tests/unit/common/codec/packstream/ twice with the .venv interpreter: with the driver's
# pure-Python codec (BOLTCODEC_NEO4J=0), as the baseline, and with boltcodec active.
# The tests need numpy, pandas and pyarrow (pyarrow is installed into .venv if missing).
# Exits non-zero if the boltcodec run has a failure that the baseline does not.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PY="$ROOT/.venv/bin/python"
DRIVER="${1:?usage: $0 DRIVER_CHECKOUT}"
TESTS="$DRIVER/tests/unit/common/codec/packstream"
[ -d "$TESTS" ] || { echo "no $TESTS" >&2; exit 2; }
"$PY" -c "import pyarrow" 2>/dev/null || "$PY" -m pip install --quiet pyarrow

run() {
  BOLTCODEC_NEO4J=$1 "$PY" -m pytest -q -p no:cacheprovider -c /dev/null \
    --rootdir="$DRIVER" --import-mode=importlib -rf "$TESTS" 2>&1 | tee "$2" | tail -n 4
}
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
echo "== driver's pure-Python codec (baseline)"
run 0 "$LOGS/pure.log" || true
echo "== boltcodec drop-in"
run 1 "$LOGS/boltcodec.log" || true
grep '^FAILED' "$LOGS/pure.log" | sort > "$LOGS/pure.failed" || true
grep '^FAILED' "$LOGS/boltcodec.log" | sort > "$LOGS/boltcodec.failed" || true
if ! grep -q " passed" "$LOGS/boltcodec.log"; then
  echo "the boltcodec run did not complete" >&2
  exit 1
fi
new=$(comm -13 "$LOGS/pure.failed" "$LOGS/boltcodec.failed")
if [ -n "$new" ]; then
  echo "failures with boltcodec only:" >&2
  echo "$new" >&2
  exit 1
fi
echo "boltcodec: no failure beyond the baseline's"
