#!/usr/bin/env bash
# Run the official driver's own hydration and time unit tests with boltcodec's native
# hydration in place of the driver's.
#
#   bindings/python/scripts/run-driver-hydration-tests.sh DRIVER_CHECKOUT [VERSION]
#
# DRIVER_CHECKOUT is a work tree (or `git archive` of the tests/ directory) of the
# neo4j-python-driver repository at the tag of VERSION (default 5.26.0); its code is not
# part of this repository, and the PyPI sdist does not carry the tests. The release is
# installed once into .venv-drivers/neo4j-VERSION (as driver-matrix.sh does) and put
# first on PYTHONPATH of the .venv interpreter (boltcodec installed by install.sh); the
# test dependencies the driver's configuration loads go to .venv-drivers/unit-test-deps.
#
# Runs tests/unit/common/codec/hydration and tests/unit/common/time twice: with the
# driver's own hydration (baseline) and with every hydration scope's Structure hook
# replaced by boltcodec's native Hydrator (native_hydration_plugin.py, which also prints
# how many structures were built natively). Exits non-zero if the native run fails a test
# the baseline passes, or hydrated nothing natively.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
HERE="$ROOT/bindings/python/scripts"
PY="$ROOT/.venv/bin/python"
DRIVER="${1:?usage: $0 DRIVER_CHECKOUT [VERSION]}"
VERSION="${2:-5.26.0}"
DIR="$ROOT/.venv-drivers/neo4j-$VERSION"
TESTS=("$DRIVER/tests/unit/common/codec/hydration" "$DRIVER/tests/unit/common/time")
for t in "${TESTS[@]}"; do [ -d "$t" ] || { echo "no $t" >&2; exit 2; }; done
if [ ! -f "$DIR/.ok" ]; then
  rm -rf "$DIR"
  "$PY" -m pip install --quiet --disable-pip-version-check --no-deps --no-compile \
    --target "$DIR" "neo4j==$VERSION" >&2
  touch "$DIR/.ok"
fi
# What the driver's test configuration loads, kept out of .venv (its own --target dir).
DEPS="$ROOT/.venv-drivers/unit-test-deps"
if [ ! -f "$DEPS/.ok" ]; then
  "$PY" -m pip install --quiet --disable-pip-version-check --no-compile --target "$DEPS" \
    pytest-asyncio freezegun pytest-mock mock >&2
  touch "$DEPS/.ok"
fi

run() { # $1: extra pytest args, $2: log
  # shellcheck disable=SC2086
  (cd "$DRIVER" && PYTHONPATH="$DIR:$HERE:$DEPS" "$PY" -m pytest -q -p no:cacheprovider $1 \
    --import-mode=importlib -rf "${TESTS[@]}" 2>&1) | tee "$2" | tail -n 5
}
LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
echo "== neo4j $VERSION, the driver's own hydration (baseline)"
run "" "$LOGS/pure.log" || true
echo "== neo4j $VERSION, boltcodec's native hydration"
status=0
run "-p native_hydration_plugin" "$LOGS/native.log" || status=$?
grep '^FAILED' "$LOGS/pure.log" | sort > "$LOGS/pure.failed" || true
grep '^FAILED' "$LOGS/native.log" | sort > "$LOGS/native.failed" || true
new=$(comm -13 "$LOGS/pure.failed" "$LOGS/native.failed")
if [ -n "$new" ]; then
  echo "failures with native hydration only:" >&2
  echo "$new" >&2
  exit 1
fi
if ! grep -q "built natively" "$LOGS/native.log" || grep -q " 0 structures built natively" "$LOGS/native.log"; then
  echo "the native run did not hydrate natively (exit $status)" >&2
  exit 1
fi
echo "run-driver-hydration-tests: no failure beyond the baseline's"
