#!/usr/bin/env bash
# Runs neo4j-javascript-driver's own unit tests for PackStream, chunking, the Bolt
# protocols and the result stream observers against an installed neo4j-driver, once with
# the driver alone and once with boltcodec's drop-in installed
# (require('boltcodec/driver').install()), and compares.
#
#   bindings/node/scripts/driver-unit-tests.sh REPO [DRIVER_DIR]
#
# REPO: a checkout of github.com/neo4j/neo4j-javascript-driver at the tag of the
#   installed release (this script fetches nothing and changes nothing in it).
# DRIVER_DIR: a directory whose node_modules holds the neo4j-driver to test (default:
#   bindings/node, i.e. the release in package.json).
#
# The tests are copied into a temporary directory with Jest and Babel (installed there
# from the npm registry on the first run, cached in $BOLTCODEC_JEST_CACHE, default
# ~/.cache/boltcodec-driver-tests); their imports of the driver's sources
# (`../../src/...`, `bolt-connection/lib/...`) are mapped to the installed package's
# `lib/`. Prints the counts of both runs and every test that passes without the drop-in
# and fails with it; exits 1 if there is any such test. Nothing is written to the repo.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ $# -lt 1 ] || [ ! -d "$1/packages/bolt-connection/test" ]; then
  echo "usage: $0 REPO [DRIVER_DIR]  (REPO: a neo4j-javascript-driver checkout)" >&2
  exit 2
fi
REPO="$(cd "$1" && pwd)"
DRIVER_DIR="$(cd "${2:-$HERE}" && pwd)"
CACHE="${BOLTCODEC_JEST_CACHE:-$HOME/.cache/boltcodec-driver-tests}"

driver_pkg="$(cd "$DRIVER_DIR" && node -p "require.resolve('neo4j-driver/package.json')")"
version="$(node -p "require('$driver_pkg').version")"
bolt_dir="$(node -p "require('path').dirname(require.resolve('neo4j-driver-bolt-connection/package.json', {paths: [require('path').dirname('$driver_pkg')]}))")"
core_dir="$(node -p "require('path').dirname(require.resolve('neo4j-driver-core/package.json', {paths: ['$bolt_dir']}))")"
echo "driver-unit-tests: neo4j-driver $version ($bolt_dir)" >&2
echo "driver-unit-tests: tests from $REPO ($(git -C "$REPO" describe --tags 2>/dev/null || echo 'no tag'))" >&2

# Jest and Babel, once.
deps="jest@29.7.0 babel-jest@29.7.0 @babel/core@7.26.0 @babel/plugin-transform-modules-commonjs@7.26.3
  @babel/plugin-transform-export-namespace-from@7.25.9 fast-check@3.23.2 lolex@6.0.0"
if [ "$(cat "$CACHE/.deps" 2>/dev/null)" != "$deps" ]; then
  mkdir -p "$CACHE"
  (cd "$CACHE" && [ -f package.json ] || echo '{"private": true}' > package.json)
  # shellcheck disable=SC2086
  (cd "$CACHE" && npm install --no-audit --no-fund --silent $deps)
  echo "$deps" > "$CACHE/.deps"
fi

work="$(mktemp -d /tmp/boltcodec-driver-tests.XXXXXX)"
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
mkdir -p "$work/bolt-connection" "$work/neo4j-driver/test/internal"
cp -r "$REPO/packages/bolt-connection/test" "$work/bolt-connection/test"
# Only the packstream, chunking, protocol and stream observer tests (and the helpers they
# import): the code the drop-in replaces.
find "$work/bolt-connection/test" -name '*.test.js' \
  ! -path '*/packstream/*' ! -path '*/bolt/bolt-protocol-v*' ! -name 'stream-observer.test.js' -delete
internal="$REPO/packages/neo4j-driver/test/internal"
cp "$internal/chunking.test.js" "$work/neo4j-driver/test/internal/"
for helper in dummy-channel.js; do
  [ -f "$internal/$helper" ] && cp "$internal/$helper" "$work/neo4j-driver/test/internal/"
done
ln -s "$CACHE/node_modules" "$work/node_modules"

cat > "$work/babel.config.js" <<'EOF'
module.exports = {
  plugins: ['@babel/plugin-transform-export-namespace-from', '@babel/plugin-transform-modules-commonjs']
}
EOF
# force: the tags in the repository need not be releases install() is tested with; the
# layout check still applies, and a drop-in that did not install fails every test file.
cat > "$work/dropin.setup.js" <<EOF
const dropIn = require('$HERE/driver.js')
dropIn.install({ driverDir: require('path').dirname('$driver_pkg'), force: true })
if (!dropIn.isInstalled()) throw new Error('boltcodec drop-in not installed: ' + dropIn.status().reason)
EOF
write_config () { # $1: file, $2: setup file or empty
  cat > "$1" <<EOF
module.exports = {
  rootDir: '$work',
  testEnvironment: 'node',
  transform: { '^.+\\\\.js\$': ['babel-jest', { configFile: '$work/babel.config.js' }] },
  transformIgnorePatterns: ['/node_modules/'],
  moduleNameMapper: {
    '^(?:\\\\.\\\\./)+(?:bolt-connection/)?(?:src|lib)/(.*)\$': '$bolt_dir/lib/\$1',
    '^neo4j-driver-core\$': '$core_dir',
    '^neo4j-driver-core/(.*)\$': '$core_dir/\$1'
  },
  setupFiles: [$2],
  testTimeout: 60000
}
EOF
}
write_config "$work/jest.alone.config.js" ""
write_config "$work/jest.dropin.config.js" "'$work/dropin.setup.js'"

run () { # $1: alone|dropin
  (cd "$work" && "$CACHE/node_modules/.bin/jest" --config "$work/jest.$1.config.js" \
    --ci --silent --json --outputFile "$work/$1.json" >"$work/$1.log" 2>&1) || true
  if [ ! -s "$work/$1.json" ]; then
    echo "driver-unit-tests: jest gave no result ($1):" >&2
    tail -40 "$work/$1.log" >&2
    exit 1
  fi
}
run alone
run dropin

node - "$work/alone.json" "$work/dropin.json" "$work" <<'EOF'
const fs = require('fs')
const [a, d, work] = process.argv.slice(2).map((p, i) => i < 2 ? JSON.parse(fs.readFileSync(p)) : p)
const outcomes = (r) => {
  const m = new Map()
  for (const f of r.testResults) {
    for (const t of f.assertionResults) {
      // Some tests share a name (generated cases): number the repeats.
      const base = `${f.name.replace(work + '/', '')} > ${t.fullName}`
      let key = base
      for (let n = 2; m.has(key); n++) key = `${base} (#${n})`
      m.set(key, { status: t.status, msg: t.failureMessages.join('\n') })
    }
  }
  return m
}
const alone = outcomes(a)
const dropin = outcomes(d)
const count = (r) => `${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped ` +
  `(${r.numTotalTests} tests, ${r.numFailedTestSuites} of ${r.numTotalTestSuites} files failed to pass)`
console.log(`driver alone: ${count(a)}`)
console.log(`with drop-in: ${count(d)}`)
const regressions = [...alone].filter(([k, v]) => v.status === 'passed' && dropin.get(k)?.status !== 'passed')
const fixed = [...dropin].filter(([k, v]) => v.status === 'passed' && alone.get(k)?.status !== 'passed')
console.log(`pass alone, not with the drop-in: ${regressions.length}`)
for (const [k] of regressions) {
  const msg = (dropin.get(k)?.msg || 'missing').split('\n').find((l) => l.trim()) || ''
  console.log(`  ${k}\n      ${msg.trim().slice(0, 200)}`)
}
if (fixed.length) console.log(`pass with the drop-in only: ${fixed.length}`)
process.exitCode = regressions.length > 0 ? 1 : 0
EOF
