'use strict'
// The drop-in's own hydration (lib/fast-hydrate.js) against the driver's transformers:
// the same objects (class, own properties, integer representation, frozen) for every
// epoch day it handles, in each integer mode, and the driver's own path elsewhere.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const driver = require('../driver.js')
const { civilFromEpochDay, makeFastHydrate, MAX_EPOCH_DAY } = require('../lib/fast-hydrate.js')

const boltDir = path.dirname(require.resolve('neo4j-driver-bolt-connection/package.json', {
  paths: [path.dirname(require.resolve('neo4j-driver/package.json'))]
}))
const lib = (p) => require(path.join(boltDir, 'lib', p))
const { Packer } = lib('packstream/packstream-v2.js')
const { Structure } = lib('packstream/structure.js')
const ChannelBuffer = lib('channel/channel-buf.js').default
const { epochDayToDate } = lib('bolt/temporal-factory.js')
const BoltProtocolV1 = lib('bolt/bolt-protocol-v1.js').default
const BoltProtocolV6x1 = lib('bolt/bolt-protocol-v6x1.js').default
const { Unpacker } = lib('packstream/packstream-v2.js')
const core = require(require.resolve('neo4j-driver-core', { paths: [boltDir] }))

const MODES = ['integer', 'number', 'bigint']
const log = { isDebugEnabled: () => false, isWarnEnabled: () => false, warn () {}, debug () {}, info () {}, error () {} }
const protocol = (P, mode) => new P({}, null, { disableLosslessIntegers: mode === 'number', useBigInt: mode === 'bigint' }, () => null, log, () => {})

/** Epoch days: every edge the calendar has near the eras' ends, and a seeded sample. */
function epochDays () {
  const days = new Set([0, -1, 1, 59, 60, -719528, -719529, -719162, 2932896, MAX_EPOCH_DAY, -MAX_EPOCH_DAY])
  for (const era of [-2500, -5, -1, 0, 1, 5, 2500]) {
    for (let d = -3; d <= 3; d++) days.add(era * 146097 - 719468 + d)
  }
  for (let y = -401; y <= 2401; y += 97) {
    for (const md of [[1, 1], [2, 28], [2, 29], [3, 1], [12, 31]]) {
      // Days through the driver's own inverse, so that leap rules are the driver's.
      if (md[1] === 29 && !(y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0))) continue
      days.add(core.internal.temporalUtil.dateToEpochDay(y, md[0], md[1]).toNumber())
    }
  }
  let a = 0x15
  for (let i = 0; i < 4000; i++) {
    a = (Math.imul(a, 1103515245) + 12345) >>> 0
    days.add(Math.round((a / 2 ** 32 - 0.5) * 2 * (i % 2 ? 80000 : MAX_EPOCH_DAY)))
  }
  return [...days]
}

test('civilFromEpochDay agrees with the driver\'s epochDayToDate', () => {
  const days = epochDays()
  for (const d of days) {
    const theirs = epochDayToDate(core.int(d))
    assert.deepEqual(civilFromEpochDay(d), [theirs.year.toNumber(), theirs.month.toNumber(), theirs.day.toNumber()], `epoch day ${d}`)
  }
  assert.ok(days.length > 4000)
})

test('Dates hydrated by the drop-in are the driver\'s, in every integer mode and out of range', () => {
  const days = [...epochDays(), MAX_EPOCH_DAY + 1, -MAX_EPOCH_DAY - 1, 2 ** 40, -(2 ** 40)]
  for (const mode of MODES) {
    const p = protocol(BoltProtocolV6x1, mode)
    assert.notEqual(makeFastHydrate(core, Structure, p.transformer.fromStructure, mode), null, `the fast path is on (${mode})`)
    const ours = driver.createCodec({ disableLosslessIntegers: mode === 'number', useBigInt: mode === 'bigint', hydrateStructure: p.transformer.fromStructure })
    for (const d of days) {
      const buf = new ChannelBuffer(64)
      new Packer(buf).packable([new Structure(0x44, [core.int(d)]), core.int(d)])()
      const bytes = buf._buffer.subarray(0, buf.position)
      const unpacker = new Unpacker(mode === 'number', mode === 'bigint')
      let theirs
      try {
        theirs = unpacker.unpack(new ChannelBuffer(Buffer.from(bytes)), p.transformer.fromStructure)
      } catch (e) {
        theirs = e
      }
      let mine
      try {
        mine = ours.unpack(bytes)
      } catch (e) {
        mine = e
      }
      if (theirs instanceof Error) {
        assert.ok(mine instanceof Error, `epoch day ${d} (${mode}): the driver throws ${theirs.message}`)
        assert.equal(mine.message, theirs.message)
        continue
      }
      // Out of the driver's range, its transformer gives a "broken object" that throws
      // on any property access: the drop-in must give the same.
      const yearOf = (x) => {
        try {
          return x.year
        } catch (e) {
          return `throws ${e.message}`
        }
      }
      if (String(yearOf(theirs[0])).startsWith('throws')) {
        assert.equal(yearOf(mine[0]), yearOf(theirs[0]), `epoch day ${d} (${mode})`)
        assert.deepStrictEqual(mine[1], theirs[1])
        continue
      }
      assert.deepStrictEqual(mine, theirs, `epoch day ${d} (${mode})`)
      assert.ok(Object.isFrozen(mine[0]), `epoch day ${d} (${mode}): frozen`)
      assert.equal(mine[0].toString(), theirs[0].toString())
    }
  }
})

test('a transformer that does not build Dates (Bolt 1) keeps the driver\'s path', () => {
  for (const mode of MODES) {
    const p = protocol(BoltProtocolV1, mode)
    const fast = makeFastHydrate(core, Structure, p.transformer.fromStructure, mode)
    assert.deepEqual(fast.kinds.sort(), ['Node', 'Path', 'Relationship', 'UnboundRelationship'], mode)
    const ours = driver.createCodec({ disableLosslessIntegers: mode === 'number', useBigInt: mode === 'bigint', hydrateStructure: p.transformer.fromStructure })
    const v = ours.unpack(Buffer.from([0xb1, 0x44, 0x01]))
    assert.ok(v instanceof Structure, mode)
    assert.equal(v.signature, 0x44)
  }
})

// The zone-id probes, run when a connection's hydrator was made, made the process load
// Intl's time-zone data (about 35 ms) even when no result ever held a zone-id DateTime.
// Those kinds are now probed at their first structure; `kinds` (status().hydrated) still
// names every kind built here.
test('zone_probes_loaded_intl_for_every_process (zone-id kinds are probed at their first structure)', () => {
  const { spawnSync } = require('node:child_process')
  const child = `
    let made = 0
    const Real = Intl.DateTimeFormat
    Intl.DateTimeFormat = new Proxy(Real, { construct (t, args) { made++; return new Real(...args) } })
    const path = require('path')
    const driver = require(${JSON.stringify(path.join(__dirname, '..', 'driver.js'))})
    const { makeFastHydrate } = require(${JSON.stringify(path.join(__dirname, '..', 'lib', 'fast-hydrate.js'))})
    const boltDir = ${JSON.stringify(boltDir)}
    const lib = (p) => require(path.join(boltDir, 'lib', p))
    const core = require(require.resolve('neo4j-driver-core', { paths: [boltDir] }))
    const { Structure } = lib('packstream/structure.js')
    const P = lib('bolt/bolt-protocol-v5x8.js').default
    const log = { isDebugEnabled: () => false, isWarnEnabled: () => false, warn () {}, debug () {}, info () {}, error () {} }
    const hydrate = new P({}, null, {}, () => null, log, () => {}).transformer.fromStructure
    const out = {}
    const calls = []
    // (RECORD probes aside: the drop-in checks once whether RECORDs come back as they are.)
    const counting = (s) => { if (s.signature !== 0x71) calls.push(s.signature); return hydrate(s) }
    const codec = driver.createCodec({ hydrateStructure: counting })
    out.afterCreate = [made, calls.length]
    // A Date, a Point and a Node: no Intl formatter.
    const { Packer } = lib('packstream/packstream-v1.js')
    const ChannelBuffer = lib('channel/channel-buf.js').default
    const bytes = (v) => { const b = new ChannelBuffer(1024); new Packer(b).packable(v)(); return Buffer.from(b._buffer.subarray(0, b.position)) }
    const int = core.int
    const v = codec.unpack(bytes([new Structure(0x44, [int(28)]), new Structure(0x58, [int(7203), 1.5, 1]), new Structure(0x4e, [int(1), ['A'], {}, 'n1'])]))
    out.values = [v[0].constructor.name, v[0].toString(), v[1].constructor.name, v[2].constructor.name, v[2].labels]
    out.probed = [...new Set(calls)].sort((a, b) => a - b)
    out.afterRead = made
    // A zone-id DateTime: probed (Intl) at its first structure, and the driver's result.
    const z = codec.unpack(bytes(new Structure(0x69, [int(28), int(0), 'Europe/Berlin'])))
    out.zone = [z.constructor.name, z.toString(), made > 0]
    out.kinds = makeFastHydrate(core, Structure, hydrate, 'integer').kinds
    console.log(JSON.stringify(out))
  `
  const res = spawnSync(process.execPath, ['-e', child], { encoding: 'utf8' })
  assert.equal(res.status, 0, res.stderr)
  const out = JSON.parse(res.stdout)
  assert.equal(out.afterCreate[0], 0, 'no Intl formatter when the hydrator is made')
  assert.deepEqual(out.values, ['Date', '1970-01-29', 'Point', 'Node', ['A']])
  assert.ok(out.probed.includes(0x44) && out.probed.includes(0x4e), 'the other kinds are probed at once')
  assert.ok(!out.probed.includes(0x69) && !out.probed.includes(0x66), 'the zone-id kinds are not probed before a zone id')
  assert.equal(out.afterRead, 0, 'no Intl formatter for a read without zone ids')
  assert.deepEqual(out.zone, ['DateTime', '1970-01-01T01:00:28+01:00[Europe/Berlin]', true])
  for (const kind of ['Date', 'DateTime (zone id)', 'Point (2D)', 'Node', 'Relationship', 'Path', 'Duration']) {
    assert.ok(out.kinds.includes(kind), `${kind} in ${out.kinds}`)
  }
})
