#!/usr/bin/env bash
# Installs the npm dev dependencies of bindings/node exactly as package-lock.json pins
# them, with `npm ci` (node_modules is removed and rebuilt from the lock file alone).
#
# No fallback: when the lock file is out of sync with package.json, `npm ci` refuses it
# and this script fails, naming what npm found missing. A fresh machine must get the
# locked versions, never whatever `npm install` would resolve that day. To mend the lock
# after changing package.json: `npm install --package-lock-only` in bindings/node, check
# that `git diff package-lock.json` only adds or changes what the change needs, commit.
# (The lock lists every platform's optional package of the dev tools, e.g. the
# @napi-rs/lzma-* builds; npm ci checks they are all there, even those it skips here.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if npm ci --no-audit --no-fund >"$log" 2>&1; then
  cat "$log" >&2
  exit 0
fi
{
  echo "npm-install.sh: npm ci failed in bindings/node (no fallback to npm install):"
  grep -E "^npm error [^ ]" "$log" | head -20
  echo "npm-install.sh: if it says the lock file is out of sync, mend package-lock.json"
  echo "  (npm install --package-lock-only) and commit it; see the comment in this script."
} >&2
exit 1
