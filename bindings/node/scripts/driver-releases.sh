#!/usr/bin/env bash
# Runs the drop-in's hydration and record differential tests (test/hydration.test.js,
# test/records.test.js) against every neo4j-driver release the drop-in supports besides
# the one in package.json, and the end-to-end test (test/driver.e2e.test.js) against the 5.x LTS when NEO4J_BOLT_PORT is
# set (scripts/test.sh runs this inside its server).
#
#   bindings/node/scripts/driver-releases.sh
#
# Each release is installed once from the npm registry into
# $BOLTCODEC_NODE_DRIVERS (default ~/.cache/boltcodec-node-drivers/<version>); nothing is
# written into the repository.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$HERE"
CACHE="${BOLTCODEC_NODE_DRIVERS:-$HOME/.cache/boltcodec-node-drivers}"
# The 5.x LTS and each 6.x minor (its latest patch); 6.3.0 is package.json's own.
RELEASES="5.28.3 6.0.1 6.1.0 6.2.0"
E2E_RELEASE="5.28.3"

status=0
for v in $RELEASES; do
  dir="$CACHE/$v"
  if [ ! -f "$dir/node_modules/neo4j-driver/package.json" ]; then
    mkdir -p "$dir"
    (cd "$dir" && [ -f package.json ] || echo '{"private": true}' > package.json)
    (cd "$dir" && npm install --no-audit --no-fund --silent "neo4j-driver@$v")
  fi
  tests=(test/hydration.test.js test/records.test.js)
  if [ "$v" = "$E2E_RELEASE" ] && [ -n "${NEO4J_BOLT_PORT:-}" ]; then tests+=(test/driver.e2e.test.js); fi
  echo "driver-releases: neo4j-driver $v: ${tests[*]}" >&2
  BOLTCODEC_DRIVER_DIR="$dir" node --test "${tests[@]}" || status=1
done
exit "$status"
