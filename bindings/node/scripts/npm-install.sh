#!/usr/bin/env bash
# Installs the npm dev dependencies of bindings/node as pinned by package-lock.json.
#
# `npm ci` first. npm 11 rejects this lock file in `npm ci` ("Missing: @napi-rs/lzma-*
# from lock file": optional platform packages of @napi-rs/cli's dependencies, which it
# omits itself when writing the lock), so fall back to `npm install` with the same lock
# file, and put the committed lock file back afterwards so the tree stays clean.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if npm ci --no-audit --no-fund >&2 2>/tmp/npm-ci.$$.log; then
  rm -f /tmp/npm-ci.$$.log
  exit 0
fi
grep -E "npm error" /tmp/npm-ci.$$.log | head -3 >&2 || true
rm -f /tmp/npm-ci.$$.log
echo "npm-install.sh: npm ci refused the lock file; npm install with it instead" >&2
saved="$(mktemp)"
cp package-lock.json "$saved"
status=0
npm install --no-audit --no-fund >&2 || status=$?
cp "$saved" package-lock.json
rm -f "$saved"
exit "$status"
