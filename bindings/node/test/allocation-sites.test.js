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

function run (keptOpts, otherOpts, attempts = 4) {
  // V8 may also settle a site as not pretenured from a collection that saw few of the
  // kept values (about one child in 30): the check below then has nothing to test, so
  // such a child is run again (never one whose other caller's values were old).
  let res
  for (let attempt = 0; attempt < attempts; attempt++) {
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
  // The codec's lists are never pretenured (lists_pretenured_for_a_caller_that_drops_them
  // below), and its kept values do not move the retained sites: the retained fresh lists
  // stay young. (One child: there is no tenure decision to wait for.)
  const res = run({}, { retained: true }, 1)
  assert.deepEqual(res.map, { tenured: false, otherYoung: true, keptYoung: true })
  delete res.map
  for (const [shape, r] of Object.entries(res)) {
    assert.deepEqual(r, { tenured: false, otherYoung: true }, `${shape}: pretenured lists`)
  }
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

// The RECORD arrays of the batch paths (decodeRecords, decodeRecordsAsync, a Dechunker
// with `records`, a connection's rows). Each call keeps all of its RECORDs until it
// returns, so a young-generation collection inside a call could see nearly every RECORD
// array of a site alive and pretenure the site: every later RECORD array was then
// allocated in the old generation for the rest of the process, however the caller used
// it (records 10000×3 took 1.3–2.3× as long in about one fresh process in six). The
// RECORD arrays of a caller that did not ask for `retained` now come from sites V8 never
// pretenures (lib/decode.js, readRow); those of `retained` callers still are pretenured,
// which the control shows (and so that this test can fail).
const ROWS_CHILD = `
const bc = require(${JSON.stringify(path.join(__dirname, '..'))})
const N = 1000
// Mixed, small-integer only (a site V8 tracks while its arrays hold only those), one
// item, 5 items (literal sites in the list reader), 12 items, nested values.
const shapes = {
  mixed3: (i) => [BigInt(i), i + 0.5, 's' + i],
  int3: (i) => [BigInt(i), BigInt(i + 1), BigInt(i + 2)],
  int1: (i) => [BigInt(i)],
  mixed5: (i) => [BigInt(i), i + 0.5, 's' + i, BigInt(i), 'x'],
  int12: (i) => Array.from({ length: 12 }, (_, j) => BigInt(i + j)),
  nested3: (i) => [[BigInt(i)], { a: BigInt(i) }, 'x']
}
const frame = (recs) => Buffer.concat(recs.map((f) => bc.packMessage(new bc.Structure(0x71, [f]))))
function streaming (opts) {
  const conn = new bc.ClientConnection({ versions: ['5.8'], manifest: false, ...opts })
  const server = new bc.ServerHandshake({ versions: ['5.8'], manifest: false })
  conn.receive(server.receive(conn.takeOutput()).send)
  conn.send(bc.requests.hello({ userAgent: 'test/1' }))
  conn.send(bc.requests.logon(bc.basicAuth('neo4j', 'pw')))
  conn.send(bc.requests.run('RETURN 1'))
  conn.send(bc.requests.pull(-1))
  conn.takeOutput()
  const ok = (m) => bc.packMessage(new bc.Structure(0x70, [m]))
  conn.receive(Buffer.concat([ok({}), ok({}), ok({ fields: ['a'] })]))
  return conn
}
const paths = {
  decodeRecords: async (b, o) => bc.decodeRecords(b, o),
  decodeRecordsAsync: (b, o) => bc.decodeRecordsAsync(b, o),
  dechunker: async (b, o) => new bc.Dechunker({ records: true, ...o }).messages(b),
  connection: async (b, o) => {
    const events = streaming(o).receive(b)
    if (events.length !== 1 || events[0].type !== 'records') throw new Error('no records event')
    return events[0].rows
  }
}
const which = JSON.parse(process.argv[1])
;(async () => {
  const out = {}
  for (const [pname, dec] of Object.entries(paths)) {
    if (!which.paths.includes(pname)) continue
    for (const [sname, make] of Object.entries(shapes)) {
      if (!which.shapes.includes(sname)) continue
      const recs = Array.from({ length: N }, (_, i) => make(i))
      const bytes = frame(recs)
      const probe = frame(recs.slice(0, 20))
      // Batches kept across young collections...
      // ... and a probe decoded into a young generation just emptied (the async call
      // rebuilds its values synchronously after the native pass).
      const probeOld = async () => {
        gc({ type: 'minor' })
        gc({ type: 'minor' })
        const rows = await dec(probe, which.opts)
        if (rows.length !== 20) throw new Error('probe: ' + rows.length + ' rows')
        return !rows.every((r) => %InYoungGeneration(r))
      }
      const keep = []
      let old = false
      for (let i = 0; i < 60 && !old; i++) {
        keep.push(await dec(bytes, which.opts))
        // A pretenured site makes every probe's arrays old; a collection of the old
        // generation that falls inside one probe promotes that probe's arrays once (seen
        // for the lists test below): three probes in a row.
        old = (await probeOld()) && (await probeOld()) && (await probeOld())
      }
      out[pname + ' ' + sname] = old
    }
  }
  process.stdout.write(JSON.stringify(out))
})()
`

const ROW_PATHS = ['decodeRecords', 'decodeRecordsAsync', 'dechunker', 'connection']
const ROW_SHAPES = ['mixed3', 'int3', 'int1', 'mixed5', 'int12', 'nested3']

function runRows (opts, paths, shapes) {
  const stdout = execFileSync(process.execPath, [
    '--allow-natives-syntax', '--expose-gc', '--min-semi-space-size=1', '--max-semi-space-size=1',
    '-e', ROWS_CHILD, JSON.stringify({ opts, paths, shapes })
  ], { encoding: 'utf8' })
  return JSON.parse(stdout)
}

test('record_arrays_pretenured_for_a_caller_that_drops_them: RECORD arrays of the batch paths stay young', () => {
  // Each path and shape in a child of its own: the first arrays of a site decide what
  // V8 does with it (an array of small integers only, first, is what makes a site that
  // V8 tracks).
  for (const p of ROW_PATHS) {
    for (const s of ROW_SHAPES) {
      const res = runRows({}, [p], [s])
      assert.deepEqual(res, { [`${p} ${s}`]: false }, `${p} ${s}: fresh RECORD arrays were allocated in the old generation`)
    }
  }
})

test('record_arrays_pretenured_for_a_caller_that_drops_them: control, retained RECORD arrays are pretenured', () => {
  // (V8 may settle a site as not pretenured from a collection that saw few of the kept
  // values, as above: such a child is run again.)
  let res
  for (let attempt = 0; attempt < 4; attempt++) {
    res = runRows({ retained: true }, ROW_PATHS, ['mixed3', 'int3', 'mixed5'])
    if (Object.values(res).every((old) => old)) break
  }
  assert.equal(Object.keys(res).length, 12)
  for (const [k, old] of Object.entries(res)) assert.equal(old, true, `${k}: kept retained RECORD arrays were not pretenured`)
})

// The lists of `unpack` and the nested lists of any value for a caller that did not ask
// for `retained`. A caller that kept such values across young collections (or a
// collection that fell inside one of the first calls, while its lists were all alive)
// moved their array-literal sites to the old generation for the rest of the process:
// lists 1000×1 took 3× as long in about one fresh process in 27, however the caller used
// later values. They now come from `new Array(k)` sites whose first item is set to
// `null` first (lib/decode.js, newArray), which V8 never pretenures.
const LISTS_CHILD = `
const bc = require(${JSON.stringify(path.join(__dirname, '..'))})
const N = 1000
// Each shape reaches its own allocation sites of the list readers: one-item lists of
// integers and of floats (readList's inline case), short lists (0-3 items), lists of
// 4-8 items read inline (readList) and through readValue (readFlat, readList), and
// lists inside RECORDs (decodeRecords).
const shapes = {
  one: (i) => [BigInt(i)],
  onef: (i) => [i + 0.5],
  empty: (i) => [],
  short: (i) => [BigInt(i), 'x', [BigInt(i)]],
  mid: (i) => [BigInt(i), 1n, 2n, 3n, 4n, 5n],
  flat: (i) => ({ a: [BigInt(i), 1n, 2n, 3n, 4n] }),
  nested: (i) => ({ b: [[BigInt(i)], 1n, 2n, 3n] }),
  records: (i) => [[BigInt(i)], [BigInt(i), 2n], [BigInt(i), 1n, 2n, 3n, 4n]]
}
const [shape, opts] = JSON.parse(process.argv[1])
const value = Array.from({ length: N }, (_, i) => shapes[shape](i))
const frame = (recs) => Buffer.concat(recs.map((f) => bc.packMessage(new bc.Structure(0x71, [f]))))
const enc = shape === 'records' ? frame : bc.pack
const dec = shape === 'records' ? (b) => bc.decodeRecords(b, opts) : (b) => bc.unpack(b, opts)
const bytes = enc(value)
const probe = enc(value.slice(0, 20))
// Every array inside a decoded value (not the outer list or batch itself).
function arrays (v, out) {
  if (Array.isArray(v)) { out.push(v); for (const x of v) arrays(x, out) } else if (v !== null && typeof v === 'object') { for (const x of Object.values(v)) arrays(x, out) }
  return out
}
const inner = (r) => r.flatMap((x) => arrays(x, []))
let seen = 0
// A probe decoded into a young generation just emptied: are any of its lists old?
function probeOld () {
  gc({ type: 'minor' })
  gc({ type: 'minor' })
  const lists = inner(dec(probe))
  seen = lists.length
  return !lists.every((a) => %InYoungGeneration(a))
}
const keep = []
let old = false
for (let i = 0; i < 60 && !old; i++) {
  keep.push(dec(bytes))
  // A pretenured site makes every probe's lists old; a collection of the old generation
  // that falls inside one probe (the kept values grow the heap) promotes that probe's
  // lists once (about one child in ten for RECORDs of bigints): three probes in a row.
  old = probeOld() && probeOld() && probeOld()
}
process.stdout.write(JSON.stringify({ old, seen }))
`

function runLists (shape, opts) {
  const stdout = execFileSync(process.execPath, [
    '--allow-natives-syntax', '--expose-gc', '--min-semi-space-size=1', '--max-semi-space-size=1',
    '-e', LISTS_CHILD, JSON.stringify([shape, opts])
  ], { encoding: 'utf8' })
  return JSON.parse(stdout)
}

const LIST_SHAPES = ['one', 'onef', 'empty', 'short', 'mid', 'flat', 'nested', 'records']

test('lists_pretenured_for_a_caller_that_drops_them: kept values do not move the codec\'s fresh lists to the old generation', () => {
  // Each shape and integer mode in a child of its own: the first arrays of a site decide
  // what V8 does with it.
  const old = {}
  for (const int of ['number', 'bigint']) {
    for (const shape of LIST_SHAPES) {
      const res = runLists(shape, { int })
      assert.ok(res.seen >= 20, `${shape} (${int}): the probe has ${res.seen} lists`)
      old[`${shape} ${int}`] = res.old
    }
  }
  // (Every case's result in the message: which shapes had fresh lists in the old generation.)
  const none = Object.fromEntries(Object.keys(old).map((k) => [k, false]))
  assert.deepEqual(old, none, 'fresh lists were allocated in the old generation')
})

test('lists_pretenured_for_a_caller_that_drops_them: control, kept retained lists are pretenured', () => {
  // (So that the test above can fail: the same children with `retained`, whose literal
  // sites V8 does pretenure. V8 may settle a site as not pretenured from a collection
  // that saw few of the kept values: such a child is run again.)
  for (const shape of ['one', 'short', 'mid']) {
    let res
    for (let attempt = 0; attempt < 4; attempt++) {
      res = runLists(shape, { int: 'number', retained: true })
      if (res.old) break
    }
    assert.equal(res.old, true, `${shape}: kept retained lists were not pretenured`)
  }
})
