'use strict'
// Records built by the drop-in (its `ResultStreamObserver#onNext`) against the driver's
// own method: the same scripted streams of rows go to a fresh observer of the release,
// once with the driver alone and once with the drop-in installed, and everything a user
// or the driver can see must be the same: the records handed to each subscriber (class,
// own fields, the row and lookup they hold), in the same order, how often each
// subscriber's `onNext` was read, what was queued, the auto-pull flag, and the errors
// thrown. A release whose method is not the known one keeps the driver's, and
// `status().records` says why.
//
// The release tested is the neo4j-driver found from BOLTCODEC_DRIVER_DIR (default: this
// package's); scripts/driver-releases.sh runs this file for each supported release.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const driver = require('../driver.js')

const driverDir = path.dirname(require.resolve('neo4j-driver/package.json', {
  paths: [process.env.BOLTCODEC_DRIVER_DIR || path.join(__dirname, '..')]
}))
const boltDir = path.dirname(require.resolve('neo4j-driver-bolt-connection/package.json', { paths: [driverDir] }))
const core = require(require.resolve('neo4j-driver-core', { paths: [boltDir] }))
const { ResultStreamObserver } = require(path.join(boltDir, 'lib/bolt/stream-observers.js'))

/** What a record handed on shows: its class, own fields, and the row it holds. */
function describe (record, row) {
  return {
    record: record instanceof core.Record,
    prototype: Object.getPrototypeOf(record) === core.Record.prototype,
    own: Object.keys(record),
    keys: record.keys,
    length: record.length,
    sameRow: record._fields === row,
    fields: record._fields.slice(),
    lookup: record._fieldLookup
  }
}

/**
 * Runs `script` against a fresh observer of the release (keys `a`, `b`; high watermark
 * 3) and returns the log of everything observable. `script(o, next, sub)`: `next(row)`
 * feeds a row, `sub(name, spec)` subscribes a logging subscriber.
 */
function run (script) {
  const o = new ResultStreamObserver({ server: {}, highRecordWatermark: 3, lowRecordWatermark: 1 })
  o._fieldKeys = ['a', 'b']
  o._fieldLookup = { a: 0, b: 1 }
  const log = []
  const rows = []
  const next = (row) => {
    rows.push(row)
    try {
      o.onNext(row)
      log.push(['fed', rows.length, o._autoPull, o._queuedRecords.length])
    } catch (e) {
      log.push(['threw', e.message])
    }
  }
  const sub = (name, spec = {}) => {
    const s = { onKeys () {}, onCompleted () {}, onError () {} }
    if (spec.noNext) {
      o._observers.push(s)
      return s
    }
    let reads = 0
    const onNext = (record) => {
      log.push([name, describe(record, rows[rows.length - 1])])
      if (spec.then) spec.then(record)
    }
    if (spec.getter) {
      Object.defineProperty(s, 'onNext', { get () { log.push([name, 'read', ++reads]); return onNext }, enumerable: true })
    } else {
      s.onNext = onNext
    }
    o._observers.push(s)
    return s
  }
  script(o, next, sub)
  log.push(['queued', o._queuedRecords.map((r) => describe(r, r._fields))])
  log.push(['state', o._autoPull, o._haveRecordStreamed, o._observers.length])
  return log
}

const SCRIPTS = {
  'no subscriber: queued past the watermark': (o, next) => {
    for (let i = 0; i < 5; i++) next([core.int(i), `r${i}`])
  },
  'one subscriber': (o, next, sub) => {
    sub('s1')
    for (let i = 0; i < 4; i++) next([i, null])
  },
  'subscribers without onNext only: queued': (o, next, sub) => {
    sub('s1', { noNext: true })
    sub('s2', { noNext: true })
    for (let i = 0; i < 4; i++) next([i, i])
  },
  'a subscriber without onNext before and after one with': (o, next, sub) => {
    sub('s0', { noNext: true })
    sub('s1')
    sub('s2', { noNext: true })
    sub('s3')
    next(['x', 'y'])
    next([1.5, { k: 'v' }])
  },
  'onNext read through a getter (counted)': (o, next, sub) => {
    sub('g1', { getter: true })
    sub('g2', { getter: true })
    next([1, 2])
    next([3, 4])
  },
  'a subscriber added from onNext does not get the current record': (o, next, sub) => {
    let added = false
    sub('s1', { then: () => { if (!added) { added = true; sub('late') } } })
    next([1, 2])
    next([3, 4])
  },
  'a subscriber removed from onNext': (o, next, sub) => {
    sub('s1', { then: () => { o._observers.splice(1, 1) } })
    sub('s2')
    sub('s3')
    next([1, 2])
    next([3, 4])
  },
  'a hole in the subscribers': (o, next, sub) => {
    sub('s1')
    o._observers.length = 3
    sub('s3')
    next([1, 2])
  },
  'a subscriber that throws stops the others': (o, next, sub) => {
    sub('s1', { then: () => { throw new Error('boom') } })
    sub('s2')
    next([1, 2])
    next([3, 4])
  },
  'a null subscriber throws as in the driver': (o, next, sub) => {
    o._observers.push(null)
    sub('s1')
    next([1, 2])
  }
}

test(`records from the drop-in's onNext are the driver's (neo4j-driver ${require(path.join(driverDir, 'package.json')).version})`, () => {
  const original = ResultStreamObserver.prototype.onNext
  for (const [name, script] of Object.entries(SCRIPTS)) {
    const alone = run(script)
    driver.install({ driverDir, force: true })
    let dropIn
    try {
      assert.equal(driver.status().records, 'boltcodec', driver.status().records)
      assert.notEqual(ResultStreamObserver.prototype.onNext, original)
      dropIn = run(script)
    } finally {
      driver.uninstall()
    }
    assert.equal(ResultStreamObserver.prototype.onNext, original, 'uninstall restores the driver\'s onNext')
    assert.deepStrictEqual(dropIn, alone, name)
    assert.ok(alone.length > 2, name)
  }
})

test('a release whose onNext is not the known one keeps it, and status() says why', () => {
  // A copy of the release's bolt-connection whose onNext differs (one statement more).
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boltcodec-records-'))
  try {
    const pkg = path.join(dir, 'neo4j-driver')
    const bolt = path.join(pkg, 'node_modules', 'neo4j-driver-bolt-connection')
    fs.mkdirSync(path.join(bolt, 'node_modules'), { recursive: true })
    fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'neo4j-driver', version: '6.99.0' }))
    fs.cpSync(path.join(boltDir, 'lib'), path.join(bolt, 'lib'), { recursive: true })
    fs.copyFileSync(path.join(boltDir, 'package.json'), path.join(bolt, 'package.json'))
    fs.symlinkSync(path.dirname(require.resolve('neo4j-driver-core/package.json', { paths: [boltDir] })),
      path.join(bolt, 'node_modules', 'neo4j-driver-core'))
    const file = path.join(bolt, 'lib/bolt/stream-observers.js')
    const text = fs.readFileSync(file, 'utf8')
    const changed = text.replace('this._haveRecordStreamed = true;', 'this._haveRecordStreamed = true; this._seen = (this._seen || 0) + 1;')
    assert.notEqual(changed, text)
    fs.writeFileSync(file, changed)
    const Observer = require(file).ResultStreamObserver
    const theirs = Observer.prototype.onNext
    driver.install({ driverDir: pkg, force: true })
    try {
      const s = driver.status()
      assert.equal(s.installed, true)
      assert.match(s.records, /^driver: ResultStreamObserver#onNext is not the one of/)
      assert.equal(Observer.prototype.onNext, theirs)
    } finally {
      driver.uninstall()
    }
    // Without a stream-observers.js at all: the same, with its own reason.
    fs.rmSync(file)
    delete require.cache[file]
    driver.install({ driverDir: pkg, force: true })
    try {
      assert.match(driver.status().records, /^driver: stream-observers.js has no ResultStreamObserver#onNext/)
    } finally {
      driver.uninstall()
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
  // With the driver's unpacker (unpack: false), records stay the driver's too.
  driver.install({ driverDir, force: true, unpack: false })
  try {
    assert.match(driver.status().records, /^driver: the unpacker is the driver's/)
  } finally {
    driver.uninstall()
  }
})

test('a RECORD structure goes to the hydration hook unless the hook hands it back as it is', () => {
  const { Structure } = require(path.join(boltDir, 'lib/packstream/structure.js'))
  const bytes = driver.createCodec({ driverDir }).pack(new Structure(0x71, [[core.int(1), 'a']]))
  const unpackWith = (hook) => driver.createCodec({ driverDir, hydrateStructure: hook }).unpack(bytes)
  // A hook that builds something of its own for the signature is called.
  assert.equal(unpackWith((s) => (s.signature === 0x71 ? 'hooked' : s)), 'hooked')
  // One that hands it back changed (its fields rewritten) is called too.
  const changed = unpackWith((s) => {
    if (s.signature === 0x71 && s.fields.length > 0) s.fields[0] = 'rewritten'
    return s
  })
  assert.deepEqual(changed.fields, ['rewritten'])
  // One that hands every structure back as it is: the same Structure, without the call.
  let calls = 0
  const counting = driver.createCodec({
    driverDir,
    hydrateStructure: (s) => {
      calls++
      return s
    }
  })
  const probes = calls // (the drop-in's probes of the hook)
  const same = counting.unpack(bytes)
  const again = driver.createCodec({ driverDir, hydrateStructure: (s) => s }).unpack(bytes)
  for (const r of [same, again]) {
    assert.ok(r instanceof Structure)
    assert.equal(r.signature, 0x71)
    assert.equal(r.fields.length, 1)
    assert.equal(Number(r.fields[0][0]), 1)
    assert.equal(r.fields[0][1], 'a')
  }
  assert.equal(calls, probes, 'the RECORD itself was not handed to the hook')
})
