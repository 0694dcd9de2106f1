'use strict'
// Where V8 allocates the rebuilt lists. V8 decides once per allocation site
// whether its objects go straight to the old generation (pretenuring), from the first
// collections that see enough of them. The rebuild has two sets of sites (lib/decode.js,
// newArray): one for a caller that keeps what it decodes (option `retained`, which the
// drop-in sets for the driver's results) and one for every other caller, so that values
// kept through one never make the other's short-lived lists old-generation garbage.
// (Maps need no such care: an empty object literal has no allocation site.)
//
// Each case runs in a child node whose young generation is always at its largest size
// (--min-semi-space-size = --max-semi-space-size), so that V8 decides on the first
// collections it sees, and checks with %InYoungGeneration where a fresh value's objects
// are: no timing.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('path')
const { execFileSync } = require('child_process')

const CHILD = `
const bc = require(${JSON.stringify(path.join(__dirname, '..'))})
const [keptOpts, otherOpts] = JSON.parse(process.argv[1])
const N = 1000
// Each shape reaches its own allocation sites: one-item lists of a long list, short
// lists (0-3 items) of mixed items, lists of 4-8 items, and maps as a control.
const shapes = {
  one: Array.from({ length: N }, (_, i) => [BigInt(i)]),
  short: Array.from({ length: N }, (_, i) => [BigInt(i), 'x', [BigInt(i)]]),
  mid: Array.from({ length: N }, (_, i) => [BigInt(i), 1n, 2n, 3n, 4n, 5n]),
  map: Array.from({ length: N }, (_, i) => ({ a: BigInt(i) }))
}
const items = (v) => [v[0], v[v.length - 1], v[v.length - 1][2]].filter((x) => typeof x === 'object')
// A probe: a short value of the same shape, decoded into a young generation just emptied,
// so that no collection runs while it is made (one would move its objects).
function young (probe, opts) {
  gc({ type: 'minor' })
  return items(bc.unpack(probe, opts)).every((x) => %InYoungGeneration(x))
}
const out = {}
for (const [name, value] of Object.entries(shapes)) {
  const bytes = bc.pack(value)
  const probe = bc.pack(value.slice(0, 20))
  // Values kept across young collections: V8 marks the sites they come from for the
  // old generation.
  const keep = []
  let tenured = false
  for (let i = 0; i < 100 && !tenured; i++) {
    keep.push(bc.unpack(bytes, keptOpts))
    gc({ type: 'minor' })
    tenured = !young(probe, keptOpts)
  }
  out[name] = { tenured, otherYoung: young(probe, otherOpts) }
  if (name === 'map') out[name].keptYoung = young(probe, keptOpts)
}
process.stdout.write(JSON.stringify(out))
`

function run (keptOpts, otherOpts) {
  // V8 may also settle a site as not pretenured from a collection that saw few of the
  // kept values (about one child in 30): the check below then has nothing to test, so
  // such a child is run again (never one whose other caller's values were old).
  let res
  for (let attempt = 0; attempt < 4; attempt++) {
    const stdout = execFileSync(process.execPath, [
      '--allow-natives-syntax', '--expose-gc', '--min-semi-space-size=1', '--max-semi-space-size=1',
      '-e', CHILD, JSON.stringify([keptOpts, otherOpts])
    ], { encoding: 'utf8' })
    res = JSON.parse(stdout)
    const lists = Object.keys(res).filter((k) => k !== 'map')
    if (lists.every((k) => res[k].tenured) || lists.some((k) => !res[k].otherYoung)) break
  }
  return res
}

function check (res) {
  // An empty object literal has no allocation site: maps stay young however many are kept.
  assert.deepEqual(res.map, { tenured: false, otherYoung: true, keptYoung: true })
  delete res.map
  for (const [shape, r] of Object.entries(res)) {
    // The kept values did move their sites to the old generation (else this test could
    // not fail)...
    assert.equal(r.tenured, true, `${shape}: the kept values' sites were not pretenured`)
    // ... and the other caller's fresh lists are still young.
    assert.equal(r.otherYoung, true, `${shape}: the other caller's values went to the old generation`)
  }
}

test('one_allocation_site_for_kept_and_dropped_lists: retained values do not pretenure the codec\'s', () => {
  check(run({ retained: true }, {}))
})

test('one_allocation_site_for_kept_and_dropped_lists: kept codec values do not pretenure the retained ones', () => {
  check(run({}, { retained: true }))
})

test('option retained gives the same values, in each integer mode', () => {
  const bc = require('..')
  const value = [[1n], [2n, 'x', [3n]], [1n, 2n, 3n, 4n, 5n, 6n], { a: 1n, b: [1.5] }, Array.from({ length: 12 }, (_, i) => [BigInt(i), { k: 'v' }])]
  const bytes = bc.pack(value)
  for (const int of ['number', 'bigint', 'integer']) {
    const a = bc.unpack(bytes, { int })
    const b = bc.unpack(bytes, { int, retained: true })
    assert.deepStrictEqual(b, a, int)
    assert.deepStrictEqual(Object.keys(b[3]), ['a', 'b'])
    assert.equal(Object.getPrototypeOf(b[3]), Object.prototype)
  }
})
