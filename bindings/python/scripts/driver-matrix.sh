#!/usr/bin/env bash
# The drop-in on every official neo4j Python driver release it supports: the newest patch
# of each minor from 5.18 to 6.4 (and 5.28.2, the release the 5.x report was made on).
#
#   bindings/python/scripts/driver-matrix.sh [VERSION...]
#
# Each release is installed from PyPI once (pip --no-deps --target) into
# .venv-drivers/neo4j-VERSION (git-ignored; reruns reuse it) and put first on PYTHONPATH
# of the .venv interpreter, where boltcodec is installed (test.sh builds it). Per release,
# tests/test_dropin_release.py runs: status() at the receive level, packing and unpacking
# identical to that release's pure-Python codec (shared vectors, hydrated values), and
# the native receive path giving the same records as the release's own Inbox; and
# tests/test_hydration.py: native hydration identical to the release's own; and
# tests/test_records.py: native Record building (Record._new 6.2 on, Record.__new__
# before) identical to the release's.
# When NEO4J_BOLT_PORT is set (scripts/with-neo4j.sh), tests/test_e2e.py runs too for the
# releases in E2E_RELEASES: the driver against the real server, results compared with
# the same release's pure-Python driver.
#
# Prints one line per release and a summary line last; exits non-zero if any failed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PKG="$ROOT/bindings/python"
PY="$ROOT/.venv/bin/python"
DRIVERS="$ROOT/.venv-drivers"

RELEASES=(5.18.0 5.19.0 5.20.0 5.21.0 5.22.0 5.23.1 5.24.0 5.25.0 5.26.0 5.27.0 5.28.2 5.28.8
  6.0.3 6.1.0 6.2.0 6.3.1 6.4.1)
E2E_RELEASES=" 5.28.8 6.4.1 "
if [ $# -gt 0 ]; then RELEASES=("$@"); fi

mkdir -p "$DRIVERS"
install_release() {
  local version=$1 dir="$DRIVERS/neo4j-$1"
  if [ -f "$dir/.ok" ]; then return 0; fi
  rm -rf "$dir"
  "$PY" -m pip install --quiet --disable-pip-version-check --no-deps --no-compile \
    --target "$dir" "neo4j==$version" >&2
  touch "$dir/.ok"
}

start=$(date +%s)
failed=()
passed=0
for version in "${RELEASES[@]}"; do
  install_release "$version"
  tests=(tests/test_dropin_release.py tests/test_hydration.py tests/test_records.py)
  if [ -n "${NEO4J_BOLT_PORT:-}" ] && [[ "$E2E_RELEASES" == *" $version "* ]]; then
    tests+=(tests/test_e2e.py)
  fi
  t0=$(date +%s)
  log=$(cd "$PKG" && PYTHONPATH="$DRIVERS/neo4j-$version" BOLTCODEC_EXPECT_DRIVER="$version" \
    "$PY" -m pytest -q -p no:cacheprovider "${tests[@]}" 2>&1) && rc=0 || rc=$?
  summary=$(grep -E '(passed|failed|errors?|skipped|no tests ran).* in [0-9.]+s' <<<"$log" | tail -n 1)
  if [ "$rc" -ne 0 ]; then
    failed+=("$version")
    echo "$log" | tail -n 40
  else
    passed=$((passed + 1))
  fi
  echo "driver-matrix: neo4j $version (${tests[*]}): ${summary:-no summary} [$(($(date +%s) - t0)) s]"
done
elapsed=$(($(date +%s) - start))
if [ ${#failed[@]} -gt 0 ]; then
  echo "driver-matrix: FAILED on ${failed[*]}; $passed of ${#RELEASES[@]} releases passed in $elapsed s"
  exit 1
fi
echo "driver-matrix: all $passed releases passed in $elapsed s"
