#!/usr/bin/env bash
# Create (or update) the Python environments the Python binding needs. Idempotent: what CI
# and a fresh machine run before bindings/python/scripts/test.sh or bench.sh.
#
#   .venv           maturin, pytest, neo4j (pure Python: never neo4j-rust-ext here),
#                   numpy, pandas, ormsgpack, ruff; boltcodec is built into it by test.sh
#   .venv-rustext   neo4j + neo4j-rust-ext (the accelerator we compare with), benchmark only
#
# Both live at the repository root and are git-ignored (/.venv*/).
# PYTHON selects the interpreter (default: python3.11, else python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PY="${PYTHON:-$(command -v python3.11 || command -v python3)}"

NEO4J_VERSION=6.4.1
RUST_EXT_VERSION=6.4.1.0

make_venv() {
  local dir=$1
  if [ ! -x "$dir/bin/python" ]; then
    echo "setup-venv: creating $dir with $PY" >&2
    "$PY" -m venv "$dir"
  fi
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
}

make_venv "$ROOT/.venv"
"$ROOT/.venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "maturin>=1.9.4,<2" pytest "neo4j==$NEO4J_VERSION" numpy pandas ormsgpack ruff
# tests/test_arrow.py reads boltcodec.arrow's exported stream with these (optional at run time).
"$ROOT/.venv/bin/python" -m pip install --quiet --disable-pip-version-check pyarrow polars
# The test venv must run the driver's pure-Python codec: the accelerator must not be there.
if "$ROOT/.venv/bin/python" -m pip show neo4j-rust-ext >/dev/null 2>&1; then
  "$ROOT/.venv/bin/python" -m pip uninstall --quiet --yes neo4j-rust-ext
fi

make_venv "$ROOT/.venv-rustext"
"$ROOT/.venv-rustext/bin/python" -m pip install --quiet --disable-pip-version-check \
  "neo4j==$NEO4J_VERSION" "neo4j-rust-ext==$RUST_EXT_VERSION" numpy pandas ormsgpack

echo "setup-venv: .venv and .venv-rustext are ready" >&2
