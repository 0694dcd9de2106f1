'use strict'
// Differential tests against neo4j-driver's own JS PackStream: seeded random values, both
// directions, every integer mode, plain and through the driver's structure transformers,
// and the whole drop-in path (dechunker + unpacker + packer) on random chunked streams.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const driver = require('../driver.js')

const boltDir = path.dirname(require.resolve('neo4j-driver-bolt-connection/package.json', {
  paths: [path.dirname(require.resolve('neo4j-driver/package.json'))]
}))
const lib = (p) => require(path.join(boltDir, 'lib', p))
const { Packer, Unpacker } = lib('packstream/packstream-v2.js')
const { Structure } = lib('packstream/structure.js')
const ChannelBuffer = lib('channel/channel-buf.js').default
const { Chunker, Dechunker } = lib('channel/chunking.js')
const BoltProtocolV6x1 = lib('bolt/bolt-protocol-v6x1.js').default
const neo4j = require('neo4j-driver')
const { Integer, int, UUID } = require(require.resolve('neo4j-driver-core', { paths: [boltDir] }))

/** mulberry32: a small seeded generator, so that failures can be replayed. */
function rng (seed) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const r = {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p
  }
  return r
}

const CHARS = ['a', 'Z', '0', ' ', '~', 'é', 'ß', '€', '中', '😀', '\u0000', '\u007f', '\u0080', '\u07ff', '\u0800', '\uffff']

function randString (r) {
  const len = r.chance(0.003) ? 65536 + r.int(100) : r.pick([0, 1, 5, 15, 16, 17, 40, 63, 64, 65, 100, 255, 256, 300, r.int(700)])
  const ascii = r.chance(0.6)
  let s = ''
  for (let i = 0; i < len; i++) {
    s += ascii ? String.fromCharCode(32 + r.int(95)) : r.pick(CHARS)
  }
  return s
}

function randInteger (r) {
  switch (r.int(6)) {
    case 0: return int(r.int(144) - 16)
    case 1: return int(r.int(256) - 128)
    case 2: return int(r.int(65536) - 32768)
    case 3: return int((r.int(2 ** 32) | 0))
    case 4: return Integer.fromBits(r.int(2 ** 32) | 0, r.int(2 ** 32) | 0)
    default: return r.pick([Integer.MAX_VALUE, Integer.MIN_VALUE, int(2 ** 27), int(-(2 ** 27) - 1), int(2 ** 53), int(-(2 ** 53))])
  }
}

function randFloat (r) {
  switch (r.int(4)) {
    case 0: return r.pick([0, -0, NaN, Infinity, -Infinity, 1, -1, 0.5, 1e308, 5e-324, 2 ** 53])
    case 1: return r.int(1000) - 500
    default: {
      const b = Buffer.alloc(8)
      b.writeUInt32BE(r.int(2 ** 32), 0)
      b.writeUInt32BE(r.int(2 ** 32), 4)
      return b.readDoubleBE(0)
    }
  }
}

function randKey (r) {
  return r.pick(['name', 'id', 'a', 'b', '1', '10', '__proto__', 'größe', 'k'.repeat(70), randString(r).slice(0, 12)])
}

/** Compares bytes; on a difference, reports its offset instead of two huge strings. */
function sameBytes (actual, expected, what) {
  if (Buffer.compare(actual, expected) === 0) return
  let i = 0
  while (i < actual.length && i < expected.length && actual[i] === expected[i]) i++
  const at = (b) => b.subarray(Math.max(0, i - 8), i + 8).toString('hex')
  assert.fail(`${what}: bytes differ at ${i} (lengths ${actual.length}, ${expected.length}): ${at(actual)} vs ${at(expected)}`)
}

/** The message payloads of a chunked stream. */
function unframe (wire) {
  const messages = []
  let cur = []
  for (let at = 0; at < wire.length;) {
    const n = wire.readUInt16BE(at)
    at += 2
    if (n === 0) {
      if (cur.length) messages.push(Buffer.concat(cur))
      cur = []
    } else {
      cur.push(wire.subarray(at, at + n))
      at += n
    }
  }
  return messages
}

/** A random value the driver can pack (`structs`: also random structures). */
function randValue (r, depth, uuid, structs = true) {
  const leaf = depth >= 3 || r.chance(0.6)
  if (leaf) {
    switch (r.int(uuid ? 9 : 8)) {
      case 0: return null
      case 1: return r.chance(0.5)
      case 2: return randFloat(r)
      case 3: case 4: return randInteger(r)
      case 5: case 6: return randString(r)
      case 7: return Int8Array.from({ length: r.chance(0.003) ? 65536 + r.int(1000) : r.pick([0, 1, 15, 16, 255, 256, r.int(600)]) }, () => r.int(256) - 128)
      default: return new UUID(Uint8Array.from({ length: 16 }, () => r.int(256)))
    }
  }
  switch (r.int(structs ? 3 : 2)) {
    case 0: return Array.from({ length: r.pick([0, 1, 3, 15, 16, 20]) }, () => randValue(r, depth + 1, uuid, structs))
    case 1: {
      const o = {}
      const n = r.pick([0, 1, 3, 15, 16, 18])
      for (let i = 0; i < n; i++) {
        Object.defineProperty(o, randKey(r), { value: randValue(r, depth + 1, uuid, structs), writable: true, enumerable: true, configurable: true })
      }
      return o
    }
    default:
      return new Structure(r.int(128), Array.from({ length: r.int(16) }, () => randValue(r, depth + 1, uuid)))
  }
}

/** The driver's packer output for one value. */
function officialPack (value, allowUUID, dehydrate) {
  const ch = new ChannelBuffer(1 << 22)
  const packer = new Packer(ch, allowUUID)
  packer.packable(value, dehydrate)()
  return Buffer.from(ch._buffer.subarray(0, ch.position))
}

function officialUnpack (bytes, mode, allowUUID, hydrate) {
  const u = new Unpacker(mode === 'number', mode === 'bigint', allowUUID)
  return u.unpack(new ChannelBuffer(Buffer.from(bytes)), hydrate)
}

/** deepStrictEqual, plus the order of object keys (users iterate them). */
function same (a, b, where = '$') {
  assert.deepStrictEqual(a, b, where)
  if (a && typeof a === 'object' && !ArrayBuffer.isView(a)) {
    if (!Array.isArray(a)) assert.deepStrictEqual(Object.keys(a), Object.keys(b), `${where}: key order`)
    for (const k of Object.keys(a)) same(a[k], b[k], `${where}.${k}`)
  }
}

const MODES = ['integer', 'number', 'bigint']
const COUNT = 1000
const counts = { pack: 0, unpack: 0, transformed: 0, streams: 0, messages: 0 }

test(`pack: boltcodec bytes equal the driver's (${COUNT} values × UUID off/on)`, () => {
  for (const allowUUID of [false, true]) {
    const r = rng(allowUUID ? 2 : 1)
    const ours = driver.createCodec({ allowUUID })
    for (let i = 0; i < COUNT; i++) {
      const v = randValue(r, 0, allowUUID)
      sameBytes(ours.pack(v), officialPack(v, allowUUID), `value ${i}`)
      counts.pack++
    }
  }
})

test(`unpack: boltcodec values equal the driver's (${COUNT} values × 3 integer modes × UUID off/on)`, () => {
  for (const allowUUID of [false, true]) {
    for (const mode of MODES) {
      const r = rng(10 + MODES.indexOf(mode) + (allowUUID ? 100 : 0))
      const ours = driver.createCodec({
        allowUUID,
        disableLosslessIntegers: mode === 'number',
        useBigInt: mode === 'bigint'
      })
      for (let i = 0; i < COUNT; i++) {
        const bytes = officialPack(randValue(r, 0, allowUUID), allowUUID)
        same(ours.unpack(bytes), officialUnpack(bytes, mode, allowUUID), `value ${i} (${mode})`)
        counts.unpack++
      }
    }
  }
})

function protocol (mode) {
  const log = { isDebugEnabled: () => false, isWarnEnabled: () => false, warn () {}, debug () {}, info () {}, error () {} }
  return new BoltProtocolV6x1({}, null, { disableLosslessIntegers: mode === 'number', useBigInt: mode === 'bigint' }, () => null, log, () => {})
}

/** Random driver types that the protocol's transformers turn into structures and back. */
function randDriverType (r) {
  switch (r.int(8)) {
    case 0: return new neo4j.types.Point(int(r.pick([4326, 7203, 9157])), r.next() * 100, r.next() * 100)
    case 1: return new neo4j.types.Point(int(4979), r.next(), r.next(), r.next())
    case 2: return new neo4j.types.Date(2000 + r.int(50), 1 + r.int(12), 1 + r.int(28))
    case 3: return new neo4j.types.LocalTime(r.int(24), r.int(60), r.int(60), r.int(1e9))
    case 4: return new neo4j.types.Duration(r.int(100), r.int(100), r.int(100000), r.int(1e9))
    case 5: return new neo4j.types.DateTime(2020, 1 + r.int(12), 1 + r.int(28), r.int(24), r.int(60), r.int(60), r.int(1e9), 3600 * (r.int(24) - 12))
    case 6: return new neo4j.types.LocalDateTime(1999, 12, 31, 23, 59, 59, 1)
    default: return randValue(r, 2, true, false) // (random structures would hydrate to broken objects)
  }
}

test(`with the driver's Bolt 6.1 transformers: temporal and spatial types (${COUNT} × 3 integer modes)`, () => {
  for (const mode of MODES) {
    const p = protocol(mode)
    const ours = driver.createCodec({
      allowUUID: true,
      disableLosslessIntegers: mode === 'number',
      useBigInt: mode === 'bigint',
      hydrateStructure: p.transformer.fromStructure,
      dehydrateStructure: p.transformer.toStructure
    })
    const r = rng(30 + MODES.indexOf(mode))
    for (let i = 0; i < COUNT; i++) {
      const v = Array.from({ length: 1 + r.int(4) }, () => randDriverType(r))
      const bytes = officialPack(v, true, p.transformer.toStructure)
      sameBytes(ours.pack(v), bytes, `pack ${i}`)
      same(ours.unpack(bytes), officialUnpack(bytes, mode, true, p.transformer.fromStructure), `unpack ${i} (${mode})`)
      counts.transformed++
    }
  }
})

/** Frames messages with the driver's chunker (small buffers, so messages span chunks). */
function officialFrames (messages, bufferSize) {
  const out = []
  const chunker = new Chunker({ write: (b) => out.push(Buffer.from(b._buffer)) }, bufferSize)
  const packer = new Packer(chunker, true)
  for (const m of messages) {
    packer.packable(m)()
    chunker.messageBoundary()
    if (messages.length < 3 || Math.random() < 0.5) chunker.flush()
  }
  chunker.flush()
  return Buffer.concat(out)
}

/** Feeds `pieces` to the driver's Dechunker + Unpacker, as a connection does. */
function dechunkAndUnpack (pieces, mode) {
  const d = new Dechunker()
  const u = new Unpacker(mode === 'number', mode === 'bigint', true)
  const out = []
  d.onmessage = (buf) => {
    try {
      out.push(u.unpack(buf))
    } catch (e) {
      out.push(`error: ${e.message}`)
    }
  }
  for (const p of pieces) d.write(new ChannelBuffer(p))
  return out
}

test('the installed drop-in: random chunked streams split into random reads', () => {
  const r = rng(42)
  for (let s = 0; s < 150; s++) {
    const messages = Array.from({ length: 1 + r.int(30) }, () =>
      new Structure(r.pick([0x70, 0x71, 0x7e, 0x7f]), [randValue(r, 1, true)]))
    const wire = officialFrames(messages, r.pick([64, 100, 1400, 8192]))
    const pieces = []
    for (let at = 0; at < wire.length;) {
      const n = 1 + r.int(r.pick([3, 50, 2000, 70000]))
      pieces.push(wire.subarray(at, at + n))
      at += n
    }
    const mode = MODES[s % 3]
    const expected = dechunkAndUnpack(pieces, mode)
    driver.install()
    let actual
    try {
      actual = dechunkAndUnpack(pieces, mode)
      // The patched packer sends the same messages. (Chunk boundaries may differ: the
      // driver closes a chunk early rather than split a number across two.)
      const size = r.pick([64, 1400])
      const ours = unframe(officialFrames(messages, size))
      driver.uninstall()
      const theirs = unframe(officialFrames(messages, size))
      assert.equal(ours.length, theirs.length, `stream ${s}: framed message count`)
      for (let i = 0; i < ours.length; i++) sameBytes(ours[i], theirs[i], `stream ${s}: packed message ${i}`)
    } finally {
      driver.uninstall()
    }
    assert.equal(actual.length, messages.length, `stream ${s}: message count`)
    same(actual, expected, `stream ${s} (${mode})`)
    counts.streams++
    counts.messages += messages.length
  }
})

test('differential counts', () => {
  // One line for the report: how many values each direction compared.
  console.log(`# differential: pack ${counts.pack}, unpack ${counts.unpack}, with transformers ${counts.transformed}, drop-in streams ${counts.streams} (${counts.messages} messages)`)
  assert.ok(counts.pack > 0 && counts.unpack > 0)
})
