'use strict'
// Hydration cost: the same rows, as the server sends them (the demo's columns plus a
// zone-id DateTime, a LocalDateTime and a Duration per row), decoded and hydrated by
// neo4j-driver's own Unpacker and transformer, and by boltcodec's drop-in codec
// (driver.createCodec with the same transformer), in each integer mode. CPU time per
// call (benches/node/harness.js), both in one run.
//
//   node benches/node/hydration.js [--rows N] [--demo]
//
// --demo: only the demo's columns (scripts/demo_workload.py: Date, Point, Node,
// Relationship), without the zone-id DateTime, LocalDateTime and Duration.
//
// BOLTCODEC_BASELINE_DIR: another boltcodec package directory (an earlier build) to add
// as a third column.

const path = require('path')
const { compare, driverInternals } = require('./harness.js')

const NODE_DIR = path.join(__dirname, '..', '..', 'bindings', 'node')
const { lib, core, version: driverVersion } = driverInternals(NODE_DIR)
const { Packer, Unpacker } = lib('packstream/packstream-v1.js')
const { Structure } = lib('packstream/structure.js')
const ChannelBuffer = lib('channel/channel-buf.js').default
const Protocol = lib('bolt/bolt-protocol-v5x8.js').default
const ours = require(path.join(NODE_DIR, 'driver.js'))
const baseline = process.env.BOLTCODEC_BASELINE_DIR ? require(path.join(process.env.BOLTCODEC_BASELINE_DIR, 'driver.js')) : null

const argv = process.argv.slice(2)
const ROWS = argv.includes('--rows') ? Number(argv[argv.indexOf('--rows') + 1]) : 10000
const DEMO = argv.includes('--demo')
const int = core.int
const log = { isDebugEnabled: () => false, isWarnEnabled: () => false, warn () {}, debug () {}, info () {}, error () {} }

/** One row's fields as structures (what the server sends). */
function row (i) {
  const date = new Structure(0x44, [int(i % 20000)])
  const point = new Structure(0x58, [int(7203), i % 100, i % 37])
  const props = { run: 'node-e2e', id: int(i), name: `person-${i}`, score: i * 0.25, tags: ['a', 'b', String(i % 7)], born: date, location: point }
  const node = new Structure(0x4e, [int(i), ['DemoPerson'], props, `4:db:${i}`])
  const rel = i % 2 ? null : new Structure(0x52, [int(i), int(i), int(i + 1), 'KNOWS', { since: new Structure(0x44, [int(18262 + (i % 1000))]) }, `5:db:${i}`, `4:db:${i}`, `4:db:${i + 1}`])
  const demo = [int(i), `person-${i}`, i * 0.25, ['a', 'b', String(i % 7)], date, point, node, rel]
  if (DEMO) return demo
  return [...demo,
    new Structure(0x69, [int(1700000000 + i * 60), int(i), 'Europe/Berlin']),
    new Structure(0x64, [int(1600000000 + i), int(5)]),
    new Structure(0x45, [int(i % 12), int(i % 30), int(i), int(i * 1000)])]
}

const buf = new ChannelBuffer(64 << 20)
new Packer(buf).packable(Array.from({ length: ROWS }, (_, i) => row(i)))()
const wire = Buffer.from(buf._buffer.subarray(0, buf.position))

const fmt = (us) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(0)} µs`)
console.log(`hydration: ${ROWS.toLocaleString('en')} rows${DEMO ? ' (the demo\'s columns)' : ''} (${wire.length.toLocaleString('en')} bytes), neo4j-driver ${driverVersion}, Bolt 5.8 transformer, Node ${process.version}`)
console.log('| integer mode | neo4j-driver alone | boltcodec drop-in codec | driver / boltcodec |' + (baseline ? ' baseline build | baseline / boltcodec |' : ''))
console.log('| --- | --- | --- | --- |' + (baseline ? ' --- | --- |' : ''))
for (const mode of ['integer', 'number', 'bigint']) {
  const config = { disableLosslessIntegers: mode === 'number', useBigInt: mode === 'bigint' }
  const hydrate = new Protocol({}, null, config, () => null, log, () => {}).transformer.fromStructure
  const unpacker = new Unpacker(config.disableLosslessIntegers, config.useBigInt)
  const candidates = {
    driver: () => unpacker.unpack(new ChannelBuffer(wire), hydrate),
    boltcodec: ((c) => () => c.unpack(wire))(ours.createCodec({ ...config, hydrateStructure: hydrate }))
  }
  if (baseline) candidates.baseline = ((c) => () => c.unpack(wire))(baseline.createCodec({ ...config, hydrateStructure: hydrate }))
  const t = compare(candidates, { rounds: 8, burstMs: 200 })
  console.log(`| ${mode} | ${fmt(t.driver)} | ${fmt(t.boltcodec)} | **${(t.driver / t.boltcodec).toFixed(2)}×** |` +
    (baseline ? ` ${fmt(t.baseline)} | ${(t.baseline / t.boltcodec).toFixed(2)}× |` : ''))
}
