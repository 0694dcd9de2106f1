'use strict'
// The drop-in's hydration (lib/fast-hydrate.js through driver.createCodec) against the
// driver alone: every structure kind the driver's transformers know, with typical values
// and the edges of each kind (ranges, wrong sizes, wrong field types, DST changes, broken
// objects), through every Bolt protocol's transformer of the release, in each integer
// mode. The same bytes go through the driver's own Unpacker and through the drop-in; the
// results must be the same objects (class, own properties in order, frozenness, values;
// a broken object must be broken with the same message).
//
// The release tested is the neo4j-driver found from BOLTCODEC_DRIVER_DIR (a directory
// whose node_modules hold it; default: this package's). scripts/driver-releases.sh runs
// this file for each supported release.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const fs = require('node:fs')
const driver = require('../driver.js')

const driverDir = path.dirname(require.resolve('neo4j-driver/package.json', {
  paths: [process.env.BOLTCODEC_DRIVER_DIR || path.join(__dirname, '..')]
}))
const version = require(path.join(driverDir, 'package.json')).version
const boltDir = path.dirname(require.resolve('neo4j-driver-bolt-connection/package.json', { paths: [driverDir] }))
const lib = (p) => require(path.join(boltDir, 'lib', p))
const core = require(require.resolve('neo4j-driver-core', { paths: [boltDir] }))
const { Packer, Unpacker } = lib('packstream/packstream-v1.js')
const { Structure } = lib('packstream/structure.js')
const ChannelBuffer = lib('channel/channel-buf.js').default
const { isBrokenObject, getBrokenObjectReason } = core.internal.objectUtil

const MODES = ['integer', 'number', 'bigint']
const log = { isDebugEnabled: () => false, isWarnEnabled: () => false, warn () {}, debug () {}, info () {}, error () {} }
const protocols = fs.readdirSync(path.join(boltDir, 'lib/bolt'))
  .filter((f) => /^bolt-protocol-v[0-9x]+\.js$/.test(f))
  .map((f) => [f.slice(14, -3), lib(`bolt/${f}`).default])
/**
 * One protocol per distinct transformer: protocols whose transformer modules export the
 * same factory functions (a later version re-exporting an earlier one's) hydrate alike.
 */
const distinctProtocols = (() => {
  const seen = []
  return protocols.filter(([name]) => {
    const file = path.join(boltDir, 'lib/bolt', `bolt-protocol-${name}.transformer.js`)
    if (!fs.existsSync(file)) return true
    const factories = Object.values(require(file).default)
    if (seen.some((s) => s.length === factories.length && s.every((f, i) => f === factories[i]))) return false
    seen.push(factories)
    return true
  })
})()

/** The first difference between two hydrated values, or null. */
function difference (a, b, at = '$') {
  const brokenA = typeof a === 'object' && a !== null && isBrokenObject(a)
  const brokenB = typeof b === 'object' && b !== null && isBrokenObject(b)
  if (brokenA || brokenB) {
    if (brokenA !== brokenB) return `${at}: broken ${brokenA} vs ${brokenB}`
    const ra = getBrokenObjectReason(a)
    const rb = getBrokenObjectReason(b)
    return ra.message === rb.message && ra.constructor === rb.constructor ? null : `${at}: ${ra.message} vs ${rb.message}`
  }
  if (Object.is(a, b)) return null
  if (typeof a !== typeof b) return `${at}: ${typeof a} vs ${typeof b}`
  if (typeof a !== 'object' || a === null || b === null) return `${at}: ${String(a)} vs ${String(b)}`
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${at}: prototype ${a.constructor?.name} vs ${b.constructor?.name}`
  if (Object.isFrozen(a) !== Object.isFrozen(b)) return `${at}: frozen ${Object.isFrozen(a)} vs ${Object.isFrozen(b)}`
  if (ArrayBuffer.isView(a)) {
    if (a.length !== b.length || a.some((x, i) => !Object.is(x, b[i]))) return `${at}: ${a} vs ${b}`
    return null
  }
  const ka = Reflect.ownKeys(a)
  const kb = Reflect.ownKeys(b)
  if (ka.join() !== kb.join()) return `${at}: keys ${ka.join()} vs ${kb.join()}`
  for (const k of ka) {
    const d = difference(a[k], b[k], `${at}.${String(k)}`)
    if (d !== null) return d
  }
  return null
}

/** A seeded generator of numbers in [0, 1). */
function prng (seed) {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0
    s = (s ^ (s >>> 12)) >>> 0
    return s / 4294967296
  }
}

const int = core.int
const MAX_DAY = 365 * 1000000

/** The structures to compare: [signature, fields] with fields as the driver packs them. */
function structures (seed) {
  const r = prng(seed)
  const between = (lo, hi) => Math.floor(lo + r() * (hi - lo + 1))
  const out = []
  const add = (sig, fields) => out.push(new Structure(sig, fields))
  const oddInts = [int(0), int(-1), int(1), int('9223372036854775807'), int('-9223372036854775808'),
    int(2 ** 53), int(-(2 ** 53)), int(2 ** 31), int(-(2 ** 31) - 1)]
  const odd = [...oddInts, 1.5, -0.0, 'x', null, true, [], {}]
  // Date
  for (const d of [0, -1, 59, 60, MAX_DAY, -MAX_DAY, MAX_DAY + 1, -MAX_DAY - 1, 2 ** 40, -(2 ** 40)]) add(0x44, [int(d)])
  for (let i = 0; i < 300; i++) add(0x44, [int(between(-800000, 3000000))])
  for (const v of odd) add(0x44, [v])
  add(0x44, []); add(0x44, [int(1), int(2)])
  // LocalTime, Time
  const dayNanos = 86400e9
  const nanosOfDay = [0, 1, dayNanos - 1, dayNanos, -1, 3600e9, 43200e9 + 999999999]
  for (let i = 0; i < 200; i++) nanosOfDay.push(between(0, dayNanos - 1))
  const offsets = [0, 3600, -3600, 50400, -64800, 19800, 1, -1]
  for (const n of nanosOfDay) {
    add(0x74, [int(n)])
    add(0x54, [int(n), int(offsets[between(0, offsets.length - 1)])])
  }
  for (const v of odd) { add(0x74, [v]); add(0x54, [int(5), v]); add(0x54, [v, int(0)]) }
  add(0x74, []); add(0x54, [int(1)]); add(0x54, [int(1), int(2), int(3)])
  // LocalDateTime and the four DateTimes
  const seconds = [0, -1, 1, 86399, 86400, -86400, -86401, 951782400, -62135596800, -62135596801,
    253402300799, 253402300800, -11676096001, MAX_DAY * 86400, MAX_DAY * 86400 + 86400, -(2 ** 45)]
  for (let i = 0; i < 200; i++) seconds.push(between(-30000000000, 300000000000))
  for (let i = 0; i < 60; i++) seconds.push(between(-(2 ** 50), 2 ** 50))
  const nanos = [0, 1, 999999999, 1000000000, -1, 123456789]
  const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe',
    'America/St_Johns', 'Pacific/Chatham', 'Europe/London', 'Africa/Casablanca', 'America/Sao_Paulo',
    'Europe/Amsterdam', 'Asia/Kathmandu', 'Etc/GMT+5', '+02:00', 'Mars/Olympus', '', 'europe/berlin']
  for (const s of seconds) {
    const ns = nanos[between(0, nanos.length - 1)]
    const off = offsets[between(0, offsets.length - 1)]
    const zone = zones[between(0, zones.length - 1)]
    add(0x64, [int(s), int(ns)])
    add(0x46, [int(s), int(ns), int(off)])
    add(0x49, [int(s), int(ns), int(off)])
    add(0x66, [int(s), int(ns), zone])
    add(0x69, [int(s), int(ns), zone])
  }
  // Around DST changes: every 15 minutes over two days at each end of 2024's changes.
  for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'America/St_Johns', 'Pacific/Chatham']) {
    for (const start of [1711670400, 1729987200, 1709856000, 1730592000, 1712412000, 1727560800]) {
      for (let s = start; s < start + 2 * 86400; s += 900 + between(0, 7)) add(0x69, [int(s), int(between(0, 999999999)), zone])
    }
  }
  for (const v of odd) {
    add(0x64, [v, int(0)]); add(0x64, [int(0), v])
    add(0x49, [int(0), int(0), v]); add(0x49, [v, int(0), int(0)])
    add(0x69, [int(0), int(0), v]); add(0x69, [v, int(0), 'UTC'])
    add(0x66, [int(0), v, 'UTC']); add(0x46, [int(0), int(0), v])
  }
  add(0x64, [int(0)]); add(0x49, [int(0), int(0)]); add(0x69, [int(0), int(0), 'UTC', int(1)])
  // Duration
  const durationInts = [0, 1, -1, 999999999, 1000000000, -1000000000, -1500000000, 2 ** 40, -(2 ** 40), 2 ** 53 - 1]
  for (let i = 0; i < 200; i++) {
    const pick = () => (r() < 0.3 ? durationInts[between(0, durationInts.length - 1)] : between(-1e12, 1e12))
    add(0x45, [int(pick()), int(pick()), int(pick()), int(pick())])
  }
  for (const v of odd) { add(0x45, [v, int(0), int(0), int(0)]); add(0x45, [int(0), int(0), v, int(0)]); add(0x45, [int(0), int(0), int(0), v]) }
  add(0x45, [int(1), int(2), int(3)])
  // Points
  for (let i = 0; i < 60; i++) {
    add(0x58, [int(between(0, 10000)), r() * 1e6 - 5e5, r() - 0.5])
    add(0x59, [int(between(0, 10000)), r() * 1e6 - 5e5, r() - 0.5, r() * 100])
  }
  for (const v of odd) { add(0x58, [v, 1.5, 2.5]); add(0x58, [int(1), v, 2.5]); add(0x59, [int(1), 1.5, 2.5, v]) }
  add(0x58, [int(1), 1.5]); add(0x59, [int(1), 1.5, 2.5])
  // Graph
  const props = () => ({ name: `n${between(0, 99)}`, since: int(between(1900, 2100)), tags: ['a', 'b'] })
  for (let i = 0; i < 40; i++) {
    add(0x4e, [int(i), ['Person'], props()])
    add(0x4e, [int(i), ['Person', 'Admin'], props(), `4:abc:${i}`])
    add(0x52, [int(i), int(i + 1), int(i + 2), 'KNOWS', props()])
    add(0x52, [int(i), int(i + 1), int(i + 2), 'KNOWS', props(), `5:r:${i}`, `4:s:${i}`, `4:e:${i}`])
    add(0x72, [int(i), 'LIKES', props()])
    add(0x72, [int(i), 'LIKES', props(), `5:u:${i}`])
  }
  for (const v of odd) { add(0x4e, [v, ['L'], {}, 'e']); add(0x52, [int(1), v, int(2), 'T', {}]) }
  add(0x4e, [int(1), ['L']]); add(0x52, [int(1), int(2), int(3), 'T']); add(0x72, [int(1)])
  // Paths (built from hydrated nodes and unbound relationships in the same message)
  const n3 = (id) => new Structure(0x4e, [int(id), ['N'], { id: int(id) }])
  const n4 = (id) => new Structure(0x4e, [int(id), ['N'], { id: int(id) }, `n${id}`])
  const u3 = (id) => new Structure(0x72, [int(id), 'R', { w: id * 0.5 }])
  const u4 = (id) => new Structure(0x72, [int(id), 'R', { w: id * 0.5 }, `u${id}`])
  for (const [n, u] of [[n3, u3], [n4, u4]]) {
    add(0x50, [[n(1), n(2), n(3)], [u(10), u(11)], [int(1), int(1), int(-2), int(2)]])
    add(0x50, [[n(1)], [], []])
    add(0x50, [[n(1), n(2)], [u(10)], [int(1), int(1), int(-1), int(0), int(1), int(1)]])
    add(0x50, [[n(1), n(2)], [u(10)], [int(5), int(1)]]) // no such relationship
    add(0x50, [[n(1), n(2)], [u(10)], [int(1), int(7)]]) // no such node
    add(0x50, [[n(1), n(2)], [u(10)], [int(1)]]) // odd sequence
    add(0x50, [[], [], []])
    add(0x50, ['x', [], []])
    add(0x50, [[n(1)], [], 'seq'])
    add(0x50, [[n(1)], []])
  }
  // Vectors (6.x) and UnsupportedType (6.x)
  const i8 = (...b) => Int8Array.from(b.map((x) => (x > 127 ? x - 256 : x)))
  const bytes = (n) => Int8Array.from({ length: n }, () => between(-128, 127))
  for (const [marker, size] of [[0xc8, 1], [0xc9, 2], [0xca, 4], [0xcb, 8], [0xc6, 4], [0xc1, 8]]) {
    for (const n of [0, 1, 3, 17]) add(0x56, [i8(marker), bytes(n * size)])
    if (size > 1) add(0x56, [i8(marker), bytes(size + 1)])
  }
  add(0x56, [i8(0x00), bytes(4)]); add(0x56, [i8(0xc8)]); add(0x56, [int(0xc8), bytes(4)]); add(0x56, [])
  add(0x56, [i8(0xc9, 0x00), bytes(4)]); add(0x56, [i8(), bytes(4)]); add(0x56, [i8(0xc8), 'x'])
  add(0x3f, ['Thing', int(6), int(2), { message: 'needs 6.2' }])
  add(0x3f, ['Thing', int(6), int(2), {}])
  add(0x3f, ['Thing', int(6), int(2), null])
  add(0x3f, ['Thing', int(6), int(2)])
  add(0x3f, ['Thing', int(6), int(2), { message: 'm' }, 'extra'])
  // Signatures no transformer knows, and a structure inside a structure.
  add(0x01, [int(1)])
  add(0x7f, [])
  add(0x4e, [int(1), ['L'], { when: new Structure(0x44, [int(19000)]), where: new Structure(0x58, [int(7203), 1, 2]) }])
  return out
}

function pack (value) {
  const buf = new ChannelBuffer(1 << 22)
  new Packer(buf).packable(value)()
  return Buffer.from(buf._buffer.subarray(0, buf.position))
}

test(`hydration: the drop-in builds what neo4j-driver ${version} builds, every kind, transformer and integer mode`, () => {
  const all = structures(0x5eed)
  const wire = pack(all)
  let compared = 0
  const fastKinds = new Set()
  assert.ok(distinctProtocols.length >= 3, distinctProtocols.map(([n]) => n).join())
  for (const [name, P] of distinctProtocols) {
    for (const mode of MODES) {
      const config = { disableLosslessIntegers: mode === 'number', useBigInt: mode === 'bigint' }
      const protocol = new P({}, null, config, () => null, log, () => {})
      const hydrate = protocol.transformer.fromStructure
      const theirs = new Unpacker(config.disableLosslessIntegers, config.useBigInt).unpack(new ChannelBuffer(wire), hydrate)
      const codec = driver.createCodec({ ...config, driverDir, hydrateStructure: hydrate })
      const ours = codec.unpack(wire)
      assert.equal(ours.length, theirs.length)
      for (let i = 0; i < theirs.length; i++) {
        const d = difference(ours[i], theirs[i])
        if (d !== null) {
          assert.fail(`${name} ${mode}: structure ${i} (0x${all[i].signature.toString(16)} ` +
            `${all[i].fields.map(String).join(', ')}): ${d}`)
        }
        compared++
      }
      const fast = require('../lib/fast-hydrate.js').makeFastHydrate(core, Structure, hydrate, mode)
      if (fast) for (const k of fast.kinds) fastKinds.add(k)
    }
  }
  assert.ok(compared > 4000 * distinctProtocols.length * MODES.length, `compared ${compared}`)
  console.log(`${compared} structures compared through the transformers of ${distinctProtocols.map(([n]) => n).join(', ')}`)
  // Every kind of this release is built by the drop-in for some protocol.
  const expected = ['Date', 'LocalTime', 'Time', 'LocalDateTime', 'DateTime (offset)', 'DateTime (zone id)',
    'DateTime (offset, legacy)', 'DateTime (zone id, legacy)', 'Duration', 'Point (2D)', 'Point (3D)', 'Node',
    'Relationship', 'UnboundRelationship', 'Path']
  if (typeof core.Vector === 'function') expected.push('Vector')
  if (typeof core.UnsupportedType === 'function') expected.push('UnsupportedType')
  assert.deepEqual([...fastKinds].sort(), expected.sort())
})

test(`hydration: UUIDs (PackStream v2) come out as neo4j-driver ${version}'s`, { skip: typeof core.UUID !== 'function' }, () => {
  const uuids = Array.from({ length: 50 }, (_, i) => new core.UUID(Uint8Array.from({ length: 16 }, (_, j) => (i * 31 + j * 7) & 0xff)))
  const buf = new ChannelBuffer(4096)
  new Packer(buf, true).packable(uuids)()
  const wire = Buffer.from(buf._buffer.subarray(0, buf.position))
  for (const mode of MODES) {
    const config = { disableLosslessIntegers: mode === 'number', useBigInt: mode === 'bigint' }
    const theirs = new Unpacker(config.disableLosslessIntegers, config.useBigInt, true).unpack(new ChannelBuffer(wire))
    const ours = driver.createCodec({ ...config, driverDir, allowUUID: true }).unpack(wire)
    assert.equal(difference(ours, theirs), null, mode)
  }
})

test(`hydration: a zone-id DateTime is computed as neo4j-driver ${version} computes it, hour by hour over DST changes`, () => {
  // Every 3 hours (plus the second before and at each hour's start) through 2024 in zones
  // with DST, half-hour offsets and offsets that change by 30 minutes.
  const P = protocols.find(([n]) => n === 'v5x0')[1]
  const hydrate = new P({}, null, {}, () => null, log, () => {}).transformer.fromStructure
  const fields = []
  for (const zone of ['Europe/Berlin', 'Australia/Lord_Howe', 'America/Santiago']) {
    for (let s = 1704067200; s < 1735689600; s += 3 * 3600 + 61) {
      for (const t of [s, s - (s % 3600) - 1, s - (s % 3600)]) fields.push(new Structure(0x69, [int(t), int(0), zone]))
    }
  }
  const wire = pack(fields)
  const theirs = new Unpacker(false, false).unpack(new ChannelBuffer(wire), hydrate)
  const ours = driver.createCodec({ driverDir, hydrateStructure: hydrate }).unpack(wire)
  for (let i = 0; i < theirs.length; i++) {
    const d = difference(ours[i], theirs[i])
    if (d !== null) assert.fail(`${fields[i].fields.map(String).join(' ')}: ${d}`)
  }
  assert.ok(theirs.length > 20000, String(theirs.length))
})

test(`hydration: hostile structures give neo4j-driver ${version}'s own results or a protocol error, and the stream goes on`, () => {
  const bc = require('../index.js')
  const { Dechunker } = lib('channel/chunking.js')
  const P = protocols.find(([n]) => n === 'v5x8')[1]
  const hydrate = new P({}, null, {}, () => null, log, () => {}).transformer.fromStructure
  const record = (value) => bc.frame(Buffer.concat([Buffer.from([0xb1, 0x71]), pack([value])]))
  const raw = (hex) => bc.frame(Buffer.from(hex.replace(/ /g, ''), 'hex'))
  const nest = (n) => Buffer.concat([Buffer.alloc(n, 0), Buffer.from([0x01])]).map((b, i) => (i < n ? (i % 2 ? 0x4e : 0xb1) : b))
  const valid = [
    record(new Structure(0x44, [int(1), int(2), int(3)])), // wrong size
    record(new Structure(0x69, [int(0), int(0), 'x'.repeat(70000)])), // no such zone
    record(new Structure(0x69, [int(-(2 ** 62)), int(0), 'UTC'])), // beyond Intl's dates
    record(new Structure(0x50, [[new Structure(0x4e, [int(1), [], {}, 'a'])], [], Array.from({ length: 10000 }, (_, i) => int(i % 3 ? -99 : 99))])),
    record(new Structure(0x45, [int('9223372036854775807'), int(0), int('9223372036854775807'), int('9223372036854775807')])),
    record(new Structure(0x4e, Array.from({ length: 15 }, (_, i) => int(i)))),
    record(new Structure(0x56, [Int8Array.of(-54), Int8Array.from({ length: 65535 }, (_, i) => i)]))
  ]
  const invalid = [
    raw('b1 71 91 b3 44 01'), // the structure ends early
    raw('b1 71 91 b1 69 c7'), // a reserved marker inside a DateTime
    raw('b1 71 91 b2 56 cc 01 ca cd ff ff'), // a Vector's bytes claim more than there is
    bc.frame(Buffer.concat([Buffer.from([0xb1, 0x71, 0x91]), nest(2 * 1100)])) // 1,100 nested Nodes: over the depth limit
  ]
  const good = record(int(1))
  /** Feeds `bytes` then a good RECORD through the driver's Dechunker; the two outcomes. */
  const run = (bytes) => {
    const unpacker = new Unpacker(false, false)
    const dechunker = new Dechunker()
    const got = []
    dechunker.onmessage = (m) => {
      try {
        got.push({ value: unpacker.unpack(m, hydrate) })
      } catch (e) {
        got.push({ error: e })
      }
    }
    dechunker.write(new ChannelBuffer(Buffer.concat([bytes, good])))
    return got
  }
  const uninstall = driver.install({ driverDir, force: true })
  let checked = 0
  try {
    assert.ok(driver.isInstalled(), driver.status().reason)
    for (const bytes of [...valid, ...invalid]) {
      driver.uninstall()
      const theirs = run(bytes)
      driver.install({ driverDir, force: true })
      const ours = run(bytes)
      assert.equal(ours.length, 2)
      assert.equal(theirs.length, 2)
      // The stream goes on: the next message is the good RECORD.
      assert.ok(ours[1].value && Number(ours[1].value.fields[0][0]) === 1, `${String(ours[1].error)} after ${String(ours[0].error)}`)
      if (valid.includes(bytes)) {
        assert.ok(theirs[0].value, String(theirs[0].error))
        assert.equal(difference(ours[0].value, theirs[0].value), null)
      } else {
        const e = ours[0].error
        assert.ok(e instanceof core.Neo4jError && e.code === core.error.PROTOCOL_ERROR, String(e))
        assert.ok(e.cause && e.cause.name === 'BoltcodecError' && typeof e.cause.offset === 'number', String(e.cause))
      }
      checked++
    }
  } finally {
    uninstall()
  }
  assert.equal(checked, valid.length + invalid.length)
})

// The cache is boltcodec's own: checked once, with the package's release.
test('zone_offset_cache_grew_without_bound (offsets kept per zone and hour are capped)', { skip: process.env.BOLTCODEC_DRIVER_DIR ? 'checked with the package\'s own release' : false }, () => {
  const { makeFastHydrate, zoneCacheSize, MAX_ZONE_HOURS } = require('../lib/fast-hydrate.js')
  const P = protocols.find(([n]) => n === 'v5x0')[1]
  const hydrate = new P({}, null, {}, () => null, log, () => {}).transformer.fromStructure
  const fast = makeFastHydrate(core, Structure, hydrate, 'integer')
  assert.ok(fast.kinds.includes('DateTime (zone id)'))
  // More distinct (zone, UTC hour) pairs than the cap, over several zones.
  const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo']
  const start = 946684800 // 2000-01-01
  let last
  for (let h = 0; h < MAX_ZONE_HOURS + 5000; h++) {
    last = fast.hydrate(0x69, [int(start + h * 3600 + 17), int(0), zones[h % 3]])
    assert.ok(zoneCacheSize() <= MAX_ZONE_HOURS, `${zoneCacheSize()} cached after ${h + 1} hours`)
  }
  const h = MAX_ZONE_HOURS + 4999
  const theirs = hydrate(new Structure(0x69, [int(start + h * 3600 + 17), int(0), zones[h % 3]]))
  assert.equal(difference(last, theirs), null)
})

test('labels and relationship types are kept once, in a bounded table, and come out as the driver\'s', { skip: process.env.BOLTCODEC_DRIVER_DIR ? 'checked with the package\'s own release' : false }, () => {
  const { makeFastHydrate, internedCount, MAX_INTERNED } = require('../lib/fast-hydrate.js')
  const P = protocols.find(([n]) => n === 'v5x0')[1]
  const hydrate = new P({}, null, {}, () => null, log, () => {}).transformer.fromStructure
  const fast = makeFastHydrate(core, Structure, hydrate, 'integer')
  for (let i = 0; i < MAX_INTERNED + 500; i++) {
    const fields = () => [int(i), [`L${i}`, 'Person', 'x'.repeat(65 + (i % 3))], { i: int(i) }, `4:e:${i}`]
    const node = fast.hydrate(0x4e, fields())
    assert.equal(difference(node, hydrate(new Structure(0x4e, fields()))), null)
    const rfields = () => [int(i), int(1), int(2), `T${i % 7}`, {}, `5:r:${i}`, '4:s', '4:e']
    assert.equal(difference(fast.hydrate(0x52, rfields()), hydrate(new Structure(0x52, rfields()))), null)
    assert.ok(internedCount() <= MAX_INTERNED, `${internedCount()} interned after ${i + 1} nodes`)
  }
  // Labels that are not strings reach the driver's constructor as they are.
  const odd = [int(1), [int(5), null], {}, 'e']
  assert.equal(difference(fast.hydrate(0x4e, odd.slice()), hydrate(new Structure(0x4e, odd.slice()))), null)
})

// In a fresh process (V8's hidden classes are per process): the bytes each kept object
// takes, measured around a batch of them kept in an array.
const HEAP_CHILD = `
const path = require('node:path')
const driver = require(${JSON.stringify(path.join(__dirname, '..', 'driver.js'))})
const fastHydrate = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'fast-hydrate.js'))})
const driverDir = process.env.DRIVER_DIR
const boltDir = path.dirname(require.resolve('neo4j-driver-bolt-connection/package.json', { paths: [driverDir] }))
const lib = (p) => require(path.join(boltDir, 'lib', p))
const core = require(require.resolve('neo4j-driver-core', { paths: [boltDir] }))
const { Packer } = lib('packstream/packstream-v1.js')
const { Structure } = lib('packstream/structure.js')
const ChannelBuffer = lib('channel/channel-buf.js').default
const P = lib('bolt/bolt-protocol-v5x0.js').default
const log = { isDebugEnabled: () => false, isWarnEnabled: () => false, warn () {}, debug () {}, info () {}, error () {} }
const N = 200000
/**
 * Heap bytes per element of the N-element array that makeAll returns, kept alive (the
 * median of three tries: the heap also holds what the compiler makes meanwhile).
 */
function bytesEach (makeAll) {
  const tries = []
  let keep = null
  for (let t = 0; t < 3; t++) {
    keep = null // (the last try's objects are not counted as there before this one)
    global.gc(); global.gc()
    const h0 = process.memoryUsage().heapUsed
    keep = makeAll()
    global.gc(); global.gc()
    const h1 = process.memoryUsage().heapUsed
    if (keep.length !== N) throw new Error('expected ' + N + ' objects, got ' + keep.length)
    tries.push((h1 - h0) / N)
  }
  keep = null
  return tries.sort((a, b) => a - b)[1]
}
const each = (make) => () => Array.from({ length: N }, (_, i) => make(i))
// Before anything of the drop-in ran: the driver's own objects, small integers in fields.
const before = {
  integer: bytesEach(each((i) => new core.Integer(i & 0xffff, 0))),
  date: bytesEach(each((i) => new core.Date(1970 + (i & 63), 1 + (i % 12), 1 + (i % 28))))
}
const buf = new ChannelBuffer(1 << 22)
new Packer(buf).packable(Array.from({ length: N }, (_, i) => new Structure(0x44, [core.int(i % 40000)])))()
const wire = Buffer.from(buf._buffer.subarray(0, buf.position))
const after = {}
for (const mode of ['integer', 'number', 'bigint']) {
  const config = { disableLosslessIntegers: mode === 'number', useBigInt: mode === 'bigint' }
  const protocol = new P({}, null, config, () => null, log, () => {})
  const codec = driver.createCodec({ ...config, driverDir, hydrateStructure: protocol.transformer.fromStructure })
  // Probes every kind through the transformer and the drop-in (as status() does; a
  // connection probes each kind at its first structure).
  fastHydrate.makeFastHydrate(core, Structure, protocol.transformer.fromStructure, mode).kinds
  if (mode === 'number') {
    codec.unpack(wire) // the first call's one-time allocations are not the Dates'
    after.date = bytesEach(() => codec.unpack(wire))
  }
}
after.integer = bytesEach(each((i) => new core.Integer(i & 0xffff, 0)))
process.stdout.write(JSON.stringify({ before, after }))

`

test('integer_fields_boxed_after_probes (kept Integers and Dates take no more room once the drop-in has hydrated)', () => {
  const { execFileSync } = require('node:child_process')
  const out = execFileSync(process.execPath, ['--expose-gc', '-e', HEAP_CHILD], {
    env: { ...process.env, DRIVER_DIR: driverDir },
    encoding: 'utf8'
  })
  const { before, after } = JSON.parse(out)
  // Before the fix, a field that once held a heap number (an integral value computed with
  // a division) made V8 box that field of every later Integer (and of every Date built in
  // number mode): an extra object per field.
  assert.ok(after.integer <= before.integer * 1.2, `bytes per Integer: ${before.integer} before, ${after.integer} after`)
  assert.ok(after.date <= before.date * 1.2, `bytes per Date (number mode): the driver's ${before.date}, the drop-in's ${after.date}`)
})
