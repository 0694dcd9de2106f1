#!/usr/bin/env bash
# Builds the boltcodec wheel (release, .pth start-up hook included) and installs it into
# the repository's .venv, creating the environments first (setup-venv.sh). Used by
# test.sh, bench.sh and `make demo`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PKG="$ROOT/bindings/python"

"$PKG/scripts/setup-venv.sh"
WHEELS="$(mktemp -d)"
trap 'rm -rf "$WHEELS"' EXIT
(cd "$PKG" && "$ROOT/.venv/bin/maturin" build --release --quiet -o "$WHEELS")
"$ROOT/.venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps \
  "$WHEELS"/boltcodec-*.whl
echo "install.sh: boltcodec installed into .venv" >&2
