'use strict'
// The drop-in's per-row path without a socket or a server, for profiles, deoptimisation
// traces and instruction counts: the demo read's RECORD messages (benches/node/e2e.js's
// columns: id, name, score, tags, a Date, a Point, a Node, a Relationship every other
// row), framed in the driver's chunks and cut into 16 KiB socket reads, go through the
// driver's own Dechunker and Unpacker (patched by `install()`), the Bolt 5.8 protocol's
// transformer and a ResultStreamObserver (the drop-in's onNext), as a connection would.
//
//   node [--trace-deopt] [--cpu-prof] benches/node/stream-profile.js [--rows N] [--reads R] [--int integer|number|bigint] [--server-strings]
//
// --server-strings: the strings as Neo4j 5.26 sends the demo's (names 'person-' and six
// digits, element ids '4:' + a database id of 36 characters + ':' + the id), rather than
// short ones: strings of 13 characters or more are what V8 makes slices of.
//
// Prints the CPU time per read of N rows (R reads after one warm-up read); with
// STREAM_PROFILE_KEPT=1 and node --expose-gc, also the heap one read's result keeps per row.
// Instruction counts of the reads alone (stable from run to run with node --predictable):
//   valgrind --tool=callgrind --toggle-collect=Builtins_ArrayReduceRight node --predictable benches/node/stream-profile.js

const path = require('path')
const { driverInternals } = require('./harness.js')

const NODE_DIR = process.env.BOLTCODEC_NODE_DIR || path.join(__dirname, '..', '..', 'bindings', 'node')
const { lib, core, version } = driverInternals(NODE_DIR)
const argv = process.argv.slice(2)
const arg = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt)
const ROWS = Number(arg('--rows', 10000))
const READS = Number(arg('--reads', 20))
const MODE = arg('--int', 'integer')
const SERVER_STRINGS = argv.includes('--server-strings')
const DB = '5f0b2c44-6e1d-4a8e-9b3c-2d7f1e0a9c51'
const name = (i) => SERVER_STRINGS ? `person-${String(i).padStart(6, '0')}` : `person-${i}`
const eid = (kind, i) => SERVER_STRINGS ? `${kind}:${DB}:${i}` : `${kind}:db:${i}`

const { Packer } = lib('packstream/packstream-v1.js')
const { Structure } = lib('packstream/structure.js')
const ChannelBuffer = lib('channel/channel-buf.js').default
const { Dechunker } = lib('channel/chunking.js')
const Protocol = lib('bolt/bolt-protocol-v5x8.js').default
const { ResultStreamObserver } = lib('bolt/stream-observers.js')
const dropIn = require(path.join(NODE_DIR, 'driver.js'))

const int = core.int
/** One row as the server sends it (the demo's columns). */
function row (i) {
  const date = new Structure(0x44, [int(i % 20000)])
  const point = new Structure(0x58, [int(7203), i % 100 + 0.5, i % 37 + 0.25])
  const props = { run: 'node-e2e', id: int(i), name: name(i), score: i * 0.25, tags: ['a', 'b', String(i % 7)], born: date, location: point }
  const node = new Structure(0x4e, [int(i), ['DemoPerson'], props, eid(4, i)])
  const rel = i % 2 ? null : new Structure(0x52, [int(i), int(i), int(i + 1), 'KNOWS', {}, eid(5, i), eid(4, i), eid(4, i + 1)])
  return [int(i), name(i), i * 0.25, ['a', 'b', String(i % 7)], date, point, node, rel]
}

/** The RECORD messages of `n` rows, in the driver's chunks, cut into 16 KiB reads. */
function wireReads (n) {
  const parts = []
  for (let i = 0; i < n; i++) {
    const buf = new ChannelBuffer(4096)
    new Packer(buf).packable(new Structure(0x71, [row(i)]))()
    const msg = buf._buffer.subarray(0, buf.position)
    for (let at = 0; at < msg.length; at += 1398) {
      const piece = msg.subarray(at, Math.min(msg.length, at + 1398))
      const head = Buffer.alloc(2)
      head.writeUInt16BE(piece.length)
      parts.push(head, piece)
    }
    parts.push(Buffer.alloc(2))
  }
  const all = Buffer.concat(parts)
  const reads = []
  for (let at = 0; at < all.length; at += 16384) reads.push(Buffer.from(all.subarray(at, at + 16384)))
  return reads
}

const reads = wireReads(ROWS)
dropIn.install()
const log = { isDebugEnabled: () => false, isWarnEnabled: () => false, warn () {}, debug () {}, info () {}, error () {} }
const config = { disableLosslessIntegers: MODE === 'number', useBigInt: MODE === 'bigint' }
const protocol = new Protocol({}, null, config, () => null, log, () => {})
const hydrate = protocol.transformer.fromStructure
const unpacker = protocol._unpacker

let kept = null
/** One read: every socket read through a fresh Dechunker, each message unpacked and fed
 * to a fresh observer with a subscriber that keeps the records, as executeQuery does. */
function read () {
  const o = new ResultStreamObserver({ server: {}, highRecordWatermark: Infinity, lowRecordWatermark: Infinity })
  o._fieldKeys = ['id', 'name', 'score', 'tags', 'born', 'location', 'node', 'rel']
  o._fieldLookup = { id: 0, name: 1, score: 2, tags: 3, born: 4, location: 5, node: 6, rel: 7 }
  const records = []
  o._observers.push({ onKeys () {}, onNext (r) { records.push(r) }, onCompleted () {}, onError () {} })
  const d = new Dechunker()
  d.onmessage = (m) => {
    const msg = unpacker.unpack(m, hydrate)
    o.onNext(msg.fields[0])
  }
  for (let i = 0; i < reads.length; i++) d.write(new ChannelBuffer(reads[i]))
  if (records.length !== ROWS) throw new Error(`read ${records.length} records of ${ROWS}`)
  kept = records
}

read()
const t0 = process.cpuUsage()
// (Through reduceRight, a builtin nothing else here calls: instruction counts of the
// reads alone with valgrind --tool=callgrind --toggle-collect=Builtins_ArrayReduceRight.)
new Array(READS).fill(0).reduceRight(() => read(), 0)
const t = process.cpuUsage(t0)
if (process.env.STREAM_PROFILE_KEPT && global.gc) {
  // Heap the result of one read holds, per row (heap used after full collections with
  // the records, less without them).
  global.gc(); global.gc()
  const withRecords = process.memoryUsage().heapUsed
  kept = null
  global.gc(); global.gc()
  console.log(`kept per row: ${((withRecords - process.memoryUsage().heapUsed) / ROWS).toFixed(0)} B`)
  kept = []
  kept.length = ROWS
}
const st = dropIn.status()
console.log(`stream-profile: neo4j-driver ${version}, ${MODE}, ${ROWS} rows x ${READS} reads: ` +
  `${((t.user + t.system) / 1000 / READS).toFixed(2)} ms CPU per read (records: ${st.records}; ` +
  `hydrated: ${st.hydrated.length} kinds; kept ${kept.length})`)
