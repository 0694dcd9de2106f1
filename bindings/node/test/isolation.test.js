'use strict'
// Issue 13: one bad call must never touch another. Regression tests for each way a
// failed batch, a throwing hook, a re-entrant call, an async batch or a reused options
// object used to leave state behind; stack safety (a value nested 1,000,000 deep, and the
// default limit in a worker with a small stack); memory given back after large calls;
// errors reaching neo4j-driver users as the driver's protocol errors; and a short run of
// the interleaving property test (test/interleave.js; the long run is scripts/fuzz-node).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { Worker } = require('node:worker_threads')
const { spawnSync } = require('node:child_process')
const bc = require('..')
const decode = require('../lib/decode.js')
const { runInterleaved } = require('./interleave.js')
const { pack, unpack, packMessage, decodeRecords, decodeRecordsAsync, decodeMessages, Dechunker, Structure, BoltcodecError } = bc

const record = (fields) => packMessage(new Structure(0x71, [fields]))
const success = (meta) => packMessage(new Structure(0x70, [meta]))

function throwsKind (fn, kind) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof BoltcodecError, String(e))
    assert.equal(e.kind, kind, e.message)
    return true
  })
}

/** Raw chunks `len, bytes` of a message, without its end marker. */
function chunk (bytes) {
  return Buffer.concat([Buffer.from([bytes.length >> 8, bytes.length & 0xff]), bytes])
}

test('failed_batch_left_its_keys_in_the_shared_key_table (decodeRecords, truncated)', () => {
  // A RECORD with keys no call has interned yet, then one stray byte: `truncated`.
  const bad = Buffer.concat([record([{ iso1Gamma: 1, iso1Delta: 2 }]), Buffer.from([0x00])])
  throwsKind(() => decodeRecords(bad), 'truncated')
  assert.deepEqual(unpack(pack({ iso1Alpha: 1, iso1Beta: 2 })), { iso1Alpha: 1, iso1Beta: 2 })
  assert.deepEqual(unpack(pack({ iso1Gamma: 1, iso1Delta: 2 })), { iso1Gamma: 1, iso1Delta: 2 })
  assert.deepEqual(decodeRecords(record([{ iso1Delta: 3 }, { iso1Epsilon: 4 }])), [[{ iso1Delta: 3 }, { iso1Epsilon: 4 }]])
})

test('failed_batch_left_its_keys_in_the_shared_key_table (decodeMessages, too_many_chunks)', () => {
  const opts = { maxChunks: 2 }
  // A good message with new keys, then one of three chunks.
  const body = pack(new Structure(0x71, [[{ iso2Zeta: 1 }]]))
  const three = Buffer.concat([chunk(body.subarray(0, 1)), chunk(body.subarray(1, 2)), chunk(body.subarray(2)), Buffer.from([0, 0])])
  const bad = Buffer.concat([success({ iso2Eta: 1, iso2Theta: 2 }), three])
  throwsKind(() => decodeMessages(bad, opts), 'too_many_chunks')
  assert.deepEqual(unpack(pack({ iso2Iota: 1, iso2Kappa: 2 }), opts), { iso2Iota: 1, iso2Kappa: 2 })
  assert.deepEqual(unpack(pack({ iso2Eta: 5 }), opts), { iso2Eta: 5 })
  assert.deepEqual(decodeMessages(success({ iso2Theta: 6, iso2Zeta: 7 }), opts), [new Structure(0x70, [{ iso2Theta: 6, iso2Zeta: 7 }])])
})

test('dechunker_read_between_async_slices_returned_the_async_batchs_rows', async () => {
  const saved = { ...decode.asyncSlices }
  decode.asyncSlices.ms = 0
  decode.asyncSlices.messages = 1
  try {
    const n = 40
    const batch = Buffer.concat(Array.from({ length: n }, (_, i) => record([`async-${i}`, i])))
    const d = new Dechunker({ records: true })
    const pending = decodeRecordsAsync(batch)
    const seen = []
    for (let i = 0; i < 20; i++) {
      d.push(record([`stream-${i}`]))
      d.push(record([`stream-${i}b`]))
      seen.push(d.next())
      await new Promise(setImmediate)
      seen.push(d.next())
    }
    assert.deepEqual(seen, Array.from({ length: 20 }, (_, i) => [[`stream-${i}`], [`stream-${i}b`]]).flat())
    assert.deepEqual(await pending, Array.from({ length: n }, (_, i) => [`async-${i}`, i]))
  } finally {
    Object.assign(decode.asyncSlices, saved)
  }
})

test('throwing_hydrate_hook_left_the_dechunker_mid_message', () => {
  const hydrate = (sig, fields) => {
    if (sig === 0x58) throw new Error('hook refuses')
    return new Structure(sig, fields)
  }
  const d = new Dechunker({ records: true, hydrate })
  d.push(Buffer.concat([
    record([1, new Structure(0x58, ['a', 'b', [1.5, 'c']]), 'after', { k: 'v' }]),
    record([2, 'two']),
    success({ has_more: false })
  ]))
  assert.throws(() => d.next(), /hook refuses/)
  assert.deepEqual(d.next(), [2, 'two'])
  assert.deepEqual(d.next(), new Structure(0x70, [{ has_more: false }]))
  assert.equal(d.next(), undefined)
  // takeAll (messages) too: the message after the failed one is there at the next read.
  d.push(Buffer.concat([record([new Structure(0x58, [])]), record([3])]))
  assert.throws(() => d.next(), /hook refuses/)
  assert.deepEqual(d.messages(record([4])), [[3], [4]])
})

test('throwing_create_uuid_hook_left_the_dechunker_mid_message', () => {
  const uuid = Buffer.concat([Buffer.from([0xe0]), Buffer.alloc(16, 7)])
  const body = Buffer.concat([Buffer.from([0xb1, 0x71, 0x93]), uuid, Buffer.from([0x81, 0x61, 0x05])])
  const msg = Buffer.concat([chunk(body), Buffer.from([0, 0])])
  const d = new Dechunker({ uuid: true, records: true, createUuid: () => { throw new Error('no uuids') } })
  d.push(Buffer.concat([msg, record(['next'])]))
  assert.throws(() => d.next(), /no uuids/)
  assert.deepEqual(d.next(), ['next'])
})

test('js_stack_overflow_in_a_hook_left_the_dechunker_mid_message', () => {
  const hydrate = function deep (sig, fields) { return sig === 0x58 ? deep(sig, fields) : new Structure(sig, fields) }
  const d = new Dechunker({ records: true, hydrate, maxDepth: 100000 })
  d.push(Buffer.concat([record([new Structure(0x58, [1, 'x', [2]]), 'rest']), record(['following'])]))
  assert.throws(() => d.next(), RangeError)
  assert.deepEqual(d.next(), ['following'])
})

/** `n` nested lists, `[[[…[]…]]]`: `n` list markers. */
function nestedListBytes (n) {
  return Buffer.concat([Buffer.alloc(n - 1, 0x91), Buffer.from([0x90])])
}

/** Depth of `[[[…]]]` (or of nested single-entry maps / 1-field structures), walked iteratively. */
function depthOf (v) {
  let d = 0
  for (;;) {
    if (Array.isArray(v)) {
      d++
      if (v.length === 0) return d
      v = v[0]
    } else if (v instanceof Structure) {
      d++
      if (v.fields.length === 0) return d
      v = v.fields[0]
    } else if (v !== null && typeof v === 'object') {
      d++
      const k = Object.keys(v)
      if (k.length === 0) return d
      v = v[k[0]]
    } else {
      return d
    }
  }
}

test('deep_value_overflowed_the_js_stack_under_a_raised_max_depth (1,000,000 levels)', () => {
  const n = 1000000
  const opts = { maxDepth: n + 10 }
  // Lists.
  const bytes = nestedListBytes(n)
  const v = unpack(bytes, opts)
  assert.equal(depthOf(v), n)
  assert.equal(Buffer.compare(pack(v), bytes), 0)
  // Maps, structures and lists mixed, through a hook, in a batch and a stream.
  const parts = []
  for (let i = 0; i < n - 1; i++) parts.push(i % 3 === 0 ? [0x91] : i % 3 === 1 ? [0xa1, 0x81, 0x6b] : [0xb1, 0x4e])
  const mixed = Buffer.concat([Buffer.from(parts.flat()), Buffer.from([0x90])])
  let hydrated = 0
  const hydrate = (sig, fields) => { hydrated++; return new Structure(sig, fields) }
  const m = unpack(mixed, { ...opts, hydrate })
  assert.equal(hydrated, Math.floor((n - 1) / 3))
  assert.equal(depthOf(m), n)
  assert.equal(Buffer.compare(pack(m), mixed), 0)
  const framed = bc.frame(Buffer.concat([Buffer.from([0xb1, 0x71, 0x91]), bytes]))
  const rows = decodeRecords(Buffer.concat([framed, record(['after'])]), opts)
  assert.equal(depthOf(rows[0]), n + 1)
  assert.deepEqual(rows[1], ['after'])
  const d = new Dechunker({ ...opts, records: true })
  d.push(Buffer.concat([framed, record(['after'])]))
  assert.equal(depthOf(d.next()), n + 1)
  assert.deepEqual(d.next(), ['after'])
  // packMessage of the same depth frames the same bytes.
  assert.equal(Buffer.compare(packMessage(v, { maxChunkSize: 65535 }), bc.frame(bytes)), 0)
})

/**
 * A script that decodes and encodes at the default depth limit (1024) through every
 * entry point and reports what worked (through `report`).
 */
function defaultLimitScript (report) {
  return `
    const bc = require(${JSON.stringify(path.join(__dirname, '..'))})
    const out = {}
    try {
      const n = 1024 // the default maxDepth
      const bytes = Buffer.concat([Buffer.alloc(n - 1, 0x91), Buffer.from([0x90])])
      const v = bc.unpack(bytes)
      out.unpack = Buffer.compare(bc.pack(v), bytes) === 0
      const rec = bc.frame(Buffer.concat([Buffer.from([0xb1, 0x71, 0x91]), bytes.subarray(2)]))
      out.records = bc.decodeRecords(rec).length === 1
      const d = new bc.Dechunker({ records: true })
      d.push(rec)
      out.dechunker = Array.isArray(d.next())
      let deep = []
      for (let i = 0; i < 200000; i++) deep = [deep, { k: deep.length }]
      out.packDeep = bc.pack(deep).length > 200000
    } catch (e) {
      out.error = String(e)
    }
    ${report}
  `
}

const ALL_WORKED = { unpack: true, records: true, dechunker: true, packDeep: true }

test('deep_value_overflowed_a_small_worker_stack_at_the_default_limit', async () => {
  // Node 20 cannot start a worker below ~0.3 MiB of stack (its own bootstrap overflows
  // at 0.25), so this is the smallest stack a worker can have; the next test limits the
  // JS stack to 256 KiB.
  const code = `const { parentPort } = require('node:worker_threads')
    ${defaultLimitScript('parentPort.postMessage(out)')}`
  const result = await new Promise((resolve, reject) => {
    const w = new Worker(code, { eval: true, resourceLimits: { stackSizeMb: 0.3 } })
    w.once('message', resolve)
    w.once('error', reject)
  })
  assert.deepEqual(result, ALL_WORKED)
})

test('deep_value_overflowed_a_256_kib_js_stack_at_the_default_limit', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boltcodec-'))
  const file = path.join(dir, 'stack.js')
  fs.writeFileSync(file, defaultLimitScript('console.log(JSON.stringify(out))'))
  const res = spawnSync(process.execPath, ['--stack-size=256', file], { encoding: 'utf8' })
  fs.rmSync(dir, { recursive: true, force: true })
  assert.equal(res.status, 0, res.stderr)
  assert.deepEqual(JSON.parse(res.stdout.trim().split('\n').pop()), ALL_WORKED)
})

test('options_object_was_cached_by_identity', () => {
  const opts = {}
  const five = pack([[[[[1n]]]]])
  assert.deepEqual(unpack(five, opts), [[[[[1]]]]])
  opts.maxDepth = 2
  throwsKind(() => unpack(five, opts), 'limit_exceeded')
  delete opts.maxDepth
  opts.int = 'bigint'
  assert.deepEqual(unpack(five, opts), [[[[[1n]]]]])
  const u = Buffer.concat([Buffer.from([0xe0]), Buffer.alloc(16, 1)])
  throwsKind(() => unpack(u, opts), 'reserved_marker')
  opts.uuid = true
  assert.ok(unpack(u, opts) instanceof bc.Uuid)
  opts.createUuid = () => 'made'
  assert.equal(unpack(u, opts), 'made')
  // The encoder's options likewise.
  const eopts = {}
  const id = new bc.Uuid(Buffer.alloc(16, 2))
  assert.throws(() => pack(id, eopts), TypeError)
  eopts.uuid = true
  assert.equal(pack(id, eopts)[0], 0xe0)
  eopts.maxChunkSize = 4
  assert.equal(packMessage('abcdefgh', eopts).readUInt16BE(0), 4)
})

test('reentrant_decode_in_a_hook_corrupted_the_outer_error_report', () => {
  let inner = 0
  const hydrate = (sig, fields) => {
    inner++
    // Nested calls on the same codec, one failing and one not.
    assert.throws(() => decodeMessages(Buffer.concat([success({ x: 1 }), bc.frame(Buffer.from([0xb1, 0x70, 0xe9]))]), { hydrate: null }), BoltcodecError)
    assert.deepEqual(unpack(pack({ inner: [1, 2] })), { inner: [1, 2] })
    throwsKind(() => unpack(Buffer.from([0xa1, 0x01, 0x02])), 'non_string_key')
    return new Structure(sig, fields)
  }
  // The outer batch: a good message that runs the hook, then one with a reserved marker.
  const batch = Buffer.concat([success({ a: 1 }), bc.frame(Buffer.from([0xb1, 0x70, 0x91, 0xc7]))])
  assert.throws(() => decodeMessages(batch, { hydrate }), (e) => {
    assert.ok(e instanceof BoltcodecError, String(e))
    assert.equal(e.kind, 'reserved_marker')
    assert.equal(e.offset, 3)
    assert.equal(e.messageOffset, success({ a: 1 }).length)
    return true
  })
  assert.equal(inner, 1)
  // The same through a Dechunker.
  const d = new Dechunker({ hydrate })
  d.push(batch)
  assert.deepEqual(d.next(), new Structure(0x70, [{ a: 1 }]))
  assert.throws(() => d.next(), (e) => e instanceof BoltcodecError && e.kind === 'reserved_marker' && e.offset === 3)
})

test('pack_of_a_getter_answering_differently_wrote_a_wrong_count', () => {
  // `a` is undefined at its first read only, `b` defined at its first read only: a count
  // taken in one pass and entries written in another disagree.
  let ra = 0
  let rb = 0
  const flaky = {}
  Object.defineProperty(flaky, 'a', { enumerable: true, get: () => (ra++ === 0 ? undefined : 1) })
  Object.defineProperty(flaky, 'b', { enumerable: true, get: () => (rb++ === 0 ? 2 : undefined) })
  const out = unpack(pack(flaky))
  assert.deepEqual([ra, rb], [1, 1], 'each property is read once')
  assert.deepEqual(out, { b: 2 })
  // 17 properties of which one is undefined at the (only) read: the header shrinks to
  // the tiny form and the bytes equal those of the plain object.
  const many = {}
  for (let i = 0; i < 17; i++) {
    const v = i === 3 ? undefined : i
    Object.defineProperty(many, `k${i}`, { enumerable: true, get: () => v })
  }
  const plain = Object.fromEntries(Object.entries(many).filter(([, v]) => v !== undefined))
  assert.equal(Buffer.compare(pack(many), pack(plain)), 0)
  assert.deepEqual(unpack(pack(many)), plain)
  // A Map whose iterator answers differently each time.
  class Shifty extends Map {
    * [Symbol.iterator] () {
      this.calls = (this.calls || 0) + 1
      for (let i = 0; i < this.calls; i++) yield [`e${i}`, i]
    }
  }
  const m = new Shifty()
  const mo = unpack(pack(m))
  assert.equal(m.calls, 1)
  assert.deepEqual(mo, { e0: 0 })
  // The same through the iterative writer (deeper than its recursion bound).
  let deep = flaky
  for (let i = 0; i < 500; i++) deep = { d: deep, m: new Shifty() }
  const back = unpack(pack(deep))
  assert.equal(depthOf(back), 501) // 500 wrappers, then flaky, now { a: 1 }
})

test('large_calls_kept_their_memory_after_the_call', () => {
  // Run in a child with --expose-gc: one 8 MiB decodeRecords and one 8 MiB pack, then
  // what stays allocated.
  const script = `
    const bc = require(${JSON.stringify(path.join(__dirname, '..'))})
    const rows = Array.from({ length: 40000 }, (_, i) => bc.packMessage(new bc.Structure(0x71, [['x'.repeat(200), i * 0.5, { key: i }]])))
    const batch = Buffer.concat(rows)
    let r = bc.decodeRecords(batch)
    const d = new bc.Dechunker({ records: true })
    d.messages(batch)
    let p = bc.pack(r)
    const size = batch.length + p.length
    r = null; p = null
    rows.length = 0
    gc(); gc()
    const m = process.memoryUsage()
    console.log(JSON.stringify({ size, arrayBuffers: m.arrayBuffers, batch: batch.length }))
  `
  // From a file: under `node -e` the eval keeps the last call's result alive.
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'boltcodec-')), 'memory.js')
  fs.writeFileSync(file, script)
  const res = spawnSync(process.execPath, ['--expose-gc', file], { encoding: 'utf8' })
  fs.rmSync(path.dirname(file), { recursive: true, force: true })
  assert.equal(res.status, 0, res.stderr)
  const m = JSON.parse(res.stdout.trim().split("\n").pop())
  assert.ok(m.batch > 8 << 20, `batch of ${m.batch} bytes`)
  // The input batch itself is still referenced; beyond it, at most a few MiB.
  assert.ok(m.arrayBuffers - m.batch < 12 << 20, `${m.arrayBuffers - m.batch} bytes of ArrayBuffer kept beyond the input`)
})

test('hostile_bytes_reached_driver_users_without_a_protocol_error_code', () => {
  const driver = require('../driver.js')
  const uninstall = driver.install()
  try {
    const boltDir = path.dirname(require.resolve('neo4j-driver-bolt-connection/package.json', {
      paths: [path.dirname(require.resolve('neo4j-driver/package.json'))]
    }))
    const { Unpacker } = require(path.join(boltDir, 'lib/packstream/packstream-v1.js'))
    const { Dechunker: DriverDechunker } = require(path.join(boltDir, 'lib/channel/chunking.js'))
    const ChannelBuffer = require(path.join(boltDir, 'lib/channel/channel-buf.js')).default
    const core = require(require.resolve('neo4j-driver-core', { paths: [boltDir] }))
    const isProtocolError = (e) => {
      assert.ok(e instanceof core.Neo4jError, String(e))
      assert.equal(e.code, core.error.PROTOCOL_ERROR)
      assert.ok(e.cause instanceof BoltcodecError)
      assert.equal(e.cause.kind, 'reserved_marker')
      return true
    }
    const unpacker = new Unpacker(false, false)
    assert.throws(() => unpacker.unpack(new ChannelBuffer(Buffer.from([0x91, 0xc7]))), isProtocolError)
    const dechunker = new DriverDechunker()
    const got = []
    dechunker.onmessage = (m) => got.push(m)
    const bytes = Buffer.concat([bc.frame(Buffer.from([0xb1, 0x71, 0x91, 0xc7])), record([1])])
    dechunker.write(new ChannelBuffer(bytes))
    assert.equal(got.length, 2)
    assert.throws(() => unpacker.unpack(got[0]), isProtocolError)
    assert.deepEqual(unpacker.unpack(got[1]).fields, [[1]])
  } finally {
    uninstall()
  }
})

test('interleaved good and bad calls, hooks, re-entrancy and async batches agree with a fresh decoder', async () => {
  const ops = Number(process.env.BOLTCODEC_TEST_OPS || 3000)
  const stats = await runInterleaved({ ops, seed: 0x13 })
  assert.equal(stats.ops, ops)
  assert.ok(stats.checked + stats.badChecked > ops / 2, JSON.stringify(stats))
  assert.ok(stats.hookThrows > 0 && stats.reentrant > 0 && stats.asyncBatches > 0 && stats.freshChecks > 0 && stats.deep > 0, JSON.stringify(stats))
})

test('failed_batch_left_its_keys_in_the_shared_key_table (JS side repairs a key list that fell behind)', () => {
  // Keys interned by a native call whose tape the JS side never read (as a failed batch
  // did): the next call finds its key list short of the native key base and takes the
  // missing keys back, so every id still names the right key.
  const d = new Dechunker()
  const native = d._s.codec.native
  const out = Buffer.alloc(1 << 16)
  assert.ok(native.push(success({ iso3Lost1: 1, iso3Lost2: 2 }), out, false) > 0)
  assert.equal(native.keyCount(), 2)
  assert.deepEqual(d.messages(success({ iso3New: 3, iso3Lost2: 4 })), [new Structure(0x70, [{ iso3New: 3, iso3Lost2: 4 }])])
  assert.deepEqual(d.messages(success({ iso3Lost1: 5 })), [new Structure(0x70, [{ iso3Lost1: 5 }])])
  assert.deepEqual(d._s.codec.keys, ['iso3Lost1', 'iso3Lost2', 'iso3New'])
})
