'use strict'
// Node benchmark: neo4j-driver's own JS PackStream, boltcodec, msgpackr and
// @msgpack/msgpack on the same data (the MessagePack form of a RECORD is [0x71, [fields]],
// as in the Rust benches). Run through bindings/node/scripts/bench.sh.
//
//   node benches/node/bench.js [--quick] [--write]
//
// Every decoder gives integers as JS numbers (the driver with disableLosslessIntegers);
// the PackStream encoders get integers as neo4j-driver-core Integer objects (the driver's
// own type; JS numbers would be written as Floats), the MessagePack encoders as numbers.
//
// "plain" is the encoded value or messages in one buffer. "chunked" is the Bolt framing
// the driver writes (chunks of at most 1,398 bytes), read in 16 KiB socket-sized pieces
// and de-chunked by each codec's own dechunker; the MessagePack libraries, which have no
// framing, concatenate the same pieces and decode. For RECORD batches, "plain" is framed
// too (the largest chunks: one per message unless a message is over 65,535 bytes).

const path = require('path')
const fs = require('fs')
const os = require('os')
const { compare, driverInternals } = require('./harness.js')

const NODE_DIR = path.join(__dirname, '..', '..', 'bindings', 'node')
const req = (m) => require(require.resolve(m, { paths: [NODE_DIR] }))
const bc = require(NODE_DIR)
const native = require(path.join(NODE_DIR, 'native.js'))
const msgpackr = req('msgpackr')
const msgpack = req('@msgpack/msgpack')
const { lib, core: { int }, version: driverVersion } = driverInternals(NODE_DIR)
const { Packer, Unpacker } = lib('packstream/packstream-v2.js')
const { Structure } = lib('packstream/structure.js')
const ChannelBuffer = lib('channel/channel-buf.js').default
const { Chunker, Dechunker } = lib('channel/chunking.js')

const args = new Set(process.argv.slice(2))
const QUICK = args.has('--quick')
const CHUNK = 1398 // the payload of the driver's 1,400-byte chunk buffers
const READ = 16 * 1024

// ---------------------------------------------------------------------------------------
// Data: the workloads of benches/src/lib.rs
// ---------------------------------------------------------------------------------------

/** Cell j of row i: an integer, a float or a short string. `I` makes the integers. */
function mixed (i, j, I) {
  switch (j % 3) {
    case 0: return I((i * 31 + j * 7) * (j % 2 === 0 ? 1 : -1))
    case 1: return i * 0.5 + j
    default: return `s${i}-${j}`
  }
}

const asNumber = (v) => v
const asInteger = (v) => int(v)

function lists (n, m, I) {
  return Array.from({ length: n }, (_, i) => Array.from({ length: m }, (_, j) => mixed(i, j, I)))
}

function rows (n, m, I) {
  return Array.from({ length: n }, (_, i) => Array.from({ length: m }, (_, j) => mixed(i, j, I)))
}

/** Splits a buffer into socket-sized reads. */
function reads (buf, size) {
  const out = []
  for (let at = 0; at < buf.length; at += size) out.push(buf.subarray(at, at + size))
  return out
}

// ---------------------------------------------------------------------------------------
// The official codec, driven as the driver drives it
// ---------------------------------------------------------------------------------------

const unpacker = new Unpacker(true, false)

/** The driver's packer writing into one reused buffer (its best case: no chunking). */
function officialPacker (size) {
  const ch = new ChannelBuffer(size)
  const packer = new Packer(ch)
  return (value) => {
    ch.reset()
    packer.packable(value)()
    return ch._buffer.subarray(0, ch.position)
  }
}

/** Packs messages through the driver's Chunker (1,400-byte buffers); returns the writes. */
function officialPackFramed (messages) {
  const out = []
  const chunker = new Chunker({ write: (b) => out.push(b) }, CHUNK + 2)
  const packer = new Packer(chunker)
  for (const m of messages) {
    packer.packable(m)()
    chunker.messageBoundary()
  }
  chunker.flush()
  return out
}

/**
 * De-chunks and unpacks a stream given as reads, as a connection does; like a connection,
 * one dechunker serves every call.
 */
function officialReceiver () {
  const d = new Dechunker()
  let out
  d.onmessage = (buf) => out.push(unpacker.unpack(buf))
  return (pieces) => {
    out = []
    for (const p of pieces) d.write(new ChannelBuffer(p))
    return out
  }
}

/** The same value with boltcodec's structure class (the lists have none). */
function toOurs (v) {
  return v
}

function framedWire (messages, chunk) {
  return Buffer.concat(messages.map((m) => Buffer.from(bc.packMessage(m, { maxChunkSize: chunk }))))
}

// ---------------------------------------------------------------------------------------
// Workloads
// ---------------------------------------------------------------------------------------

function listWorkload (n, m) {
  const vInt = lists(n, m, asInteger)
  const vNum = lists(n, m, asNumber)
  const officialPack = officialPacker(1 << 22)
  const ps = Buffer.from(officialPack(vInt))
  const mp = msgpackr.pack(vNum)
  const wire = framedWire([toOurs(vInt)], CHUNK)
  const pieces = reads(wire, READ)
  const mpPieces = reads(mp, READ)
  const officialReceive = officialReceiver()
  const ours = new bc.Dechunker()
  return {
    name: `lists ${n}×${m}`,
    bytes: ps.length,
    plain: ps,
    unpack: {
      official: () => unpacker.unpack(new ChannelBuffer(ps)),
      boltcodec: () => bc.unpack(ps),
      msgpackr: () => msgpackr.unpack(mp),
      '@msgpack/msgpack': () => msgpack.decode(mp)
    },
    unpackChunked: {
      official: () => officialReceive(pieces),
      boltcodec: () => {
        let out
        for (const p of pieces) out = ours.messages(p)
        return out
      },
      msgpackr: () => msgpackr.unpack(Buffer.concat(mpPieces)),
      '@msgpack/msgpack': () => msgpack.decode(Buffer.concat(mpPieces))
    },
    pack: {
      official: () => officialPack(vInt),
      boltcodec: () => bc.pack(vInt),
      msgpackr: () => msgpackr.pack(vNum),
      '@msgpack/msgpack': () => msgpack.encode(vNum)
    },
    packChunked: {
      official: () => officialPackFramed([vInt]),
      boltcodec: () => bc.packMessage(vInt, { maxChunkSize: CHUNK }),
      msgpackr: () => msgpackr.pack(vNum),
      '@msgpack/msgpack': () => msgpack.encode(vNum)
    },
    check: () => sameValue(bc.unpack(ps), unpacker.unpack(new ChannelBuffer(ps)))
  }
}

function recordWorkload (n, m) {
  const fieldsInt = rows(n, m, asInteger)
  const fieldsNum = rows(n, m, asNumber)
  const msgs = fieldsInt.map((f) => new Structure(0x71, [f]))
  const ours = fieldsInt.map((f) => new bc.Structure(0x71, [f]))
  const officialPack = officialPacker(1 << 22)
  const plainWire = framedWire(ours, 0xffff)
  const chunkWire = framedWire(ours, CHUNK)
  const pieces = reads(chunkWire, READ)
  const mpRecords = fieldsNum.map((f) => [0x71, f])
  const mp = Buffer.concat(mpRecords.map((r) => msgpackr.pack(r)))
  const mpPieces = reads(mp, READ)
  const packr = new msgpackr.Packr()
  const officialReceive = officialReceiver()
  const stream = new bc.Dechunker({ records: true })
  const msgpackDecodeAll = (buf) => Array.from(msgpack.decodeMulti(buf))
  return {
    name: `records ${n}×${m}`,
    bytes: plainWire.length,
    unpack: {
      official: () => officialReceive([plainWire]),
      boltcodec: () => bc.decodeRecords(plainWire),
      msgpackr: () => msgpackr.unpackMultiple(mp),
      '@msgpack/msgpack': () => msgpackDecodeAll(mp)
    },
    unpackChunked: {
      official: () => officialReceive(pieces),
      boltcodec: () => {
        const out = []
        for (const p of pieces) {
          for (const m of stream.messages(p)) out.push(m)
        }
        return out
      },
      msgpackr: () => msgpackr.unpackMultiple(Buffer.concat(mpPieces)),
      '@msgpack/msgpack': () => msgpackDecodeAll(Buffer.concat(mpPieces))
    },
    pack: {
      official: () => msgs.map((s) => Buffer.from(officialPack(s))),
      boltcodec: () => ours.map((s) => bc.pack(s)),
      msgpackr: () => mpRecords.map((r) => packr.pack(r)),
      '@msgpack/msgpack': () => mpRecords.map((r) => msgpack.encode(r))
    },
    packChunked: {
      official: () => officialPackFramed(msgs),
      boltcodec: () => ours.map((s) => bc.packMessage(s, { maxChunkSize: CHUNK })),
      msgpackr: () => mpRecords.map((r) => packr.pack(r)),
      '@msgpack/msgpack': () => mpRecords.map((r) => msgpack.encode(r))
    },
    check: () => sameValue(bc.decodeRecords(plainWire), officialReceive([plainWire]).map((s) => s.fields[0]))
  }
}

function sameValue (a, b) {
  const x = JSON.stringify(a)
  const y = JSON.stringify(b)
  if (x !== y) throw new Error('boltcodec and the driver disagree on the benchmark data')
}

// ---------------------------------------------------------------------------------------
// Run and report
// ---------------------------------------------------------------------------------------

const OPS = [
  ['unpack', 'unpack'],
  ['unpackChunked', 'unpack, chunked'],
  ['pack', 'pack'],
  ['packChunked', 'pack, chunked']
]
const LIBS = ['official', 'boltcodec', 'msgpackr', '@msgpack/msgpack']

function fmt (us) {
  if (us >= 1000) return `${(us / 1000).toFixed(us >= 10000 ? 1 : 2)} ms`
  return `${us.toFixed(us >= 100 ? 0 : 1)} µs`
}

function main () {
  const workloads = [
    listWorkload(1, 1000), listWorkload(100, 10), listWorkload(1000, 1),
    listWorkload(100, 100), listWorkload(1000, 100),
    recordWorkload(10000, 3), recordWorkload(10, 10000)
  ]
  const opts = QUICK ? { rounds: 4, burstMs: 20 } : { rounds: 15, burstMs: 20 }
  const only = process.argv.slice(2).find((a) => !a.startsWith('--'))
  const results = []
  for (const w of workloads) {
    if (only && !w.name.includes(only)) continue
    for (const [op, label] of OPS) {
      const t = compare(w[op], opts)
      results.push({ workload: w.name, op: label, t })
      process.stderr.write(`${w.name.padEnd(18)} ${label.padEnd(16)} ${LIBS.map((l) => `${l} ${fmt(t[l])}`).join('  ')}\n`)
    }
  }
  // Where unpack's time goes: the native pass alone (decode into the tape and copy it into
  // a reused buffer, as `unpack` does), against the whole unpack and msgpackr's.
  const split = []
  const nat = native.nativeCodec({})
  const tapeBuf = Buffer.alloc(16 << 20)
  for (const w of workloads) {
    if (!w.plain || (only && !w.name.includes(only))) continue
    const t = compare({
      unpack: w.unpack.boltcodec,
      native: () => native.codecDecodeValue(nat, w.plain, tapeBuf, true),
      msgpackr: w.unpack.msgpackr
    }, opts)
    split.push({ workload: w.name, t })
    process.stderr.write(`split ${w.name}: ${Object.entries(t).map(([k, v]) => `${k} ${fmt(v)}`).join('  ')}\n`)
  }
  // The alternatives the design was chosen over, measured on two workloads.
  const alt = []
  for (const [n, m] of [[100, 100], [1000, 100]]) {
    const vBig = lists(n, m, (v) => BigInt(v))
    const vNum = lists(n, m, asNumber)
    const t = compare({
      'JS encoder (pack)': () => bc.pack(vBig),
      'native, value read through N-API (packNative)': () => native.packNative(vNum)
    }, opts)
    alt.push({ workload: `lists ${n}×${m}`, t })
    process.stderr.write(`alt lists ${n}×${m}: ${Object.entries(t).map(([k, v]) => `${k} ${fmt(v)}`).join('  ')}\n`)
  }
  // The check that boltcodec and the driver decode the data alike runs after every timing:
  // it holds two decoded values at once, and a collection that saw them held could make
  // V8 allocate every later list of those allocation sites in the old generation for the
  // rest of the process (lib/decode.js, newArray), for every codec so checked: run
  // before the timings, it made lists 1000×1 3× slower in about one process in four, for
  // boltcodec and the driver's codec, and for msgpackr too when its value was checked the
  // same way.
  for (const w of workloads) {
    if (!only || w.name.includes(only)) w.check()
  }
  const md = report(results, alt, split)
  process.stdout.write(md + '\n')
  if (args.has('--write')) writeResults(md)
}

function pkgVersion (name) {
  return JSON.parse(fs.readFileSync(path.join(NODE_DIR, 'node_modules', name, 'package.json'), 'utf8')).version
}

function ratio (a, b) {
  const r = a / b
  return `${r >= 10 ? r.toFixed(0) : r.toFixed(2)}×`
}

/** The analysis under the split table (facts measured 2026-11-24; see the issue 15 notes). */
const WHERE = 'Instruction counts (callgrind, load-independent: `valgrind --tool=callgrind --toggle-collect=Builtins_ArrayForEach` around 30 calls after 300 warm-up calls, node with `--no-concurrent-recompilation` so that the optimised code is in place whatever the timing under valgrind; without it one run in four measured unoptimised code, 2-3× the count), per call, boltcodec before → after this change (h-nodecodec2), against msgpackr: lists 1×1000 229,559 → 209,733 (msgpackr 213,411); 100×10 228,494 → 210,622 (239,009); 1000×1 373,100 → 285,159 (299,205); 1000×1 chunked 401,107 → 301,320 (327,678); 100×100 2,174,725 → 2,025,594 (2,125,331); records 10000×3 `decodeRecords` 15,964,245 → 15,203,661 (13,716,417), chunked `Dechunker` 17,165,515 → 15,617,940 (13,922,200). What changed: (1) the core\'s `visit_value` walks a list\'s leading scalars (numbers, tiny strings, null, booleans) in a tight loop with no frame opened for them, and opens the frame only at the first other item or at an error (so that the decoder\'s state is then the general walk\'s); a one-item list of numbers was about 190 native instructions, a frame push and pop for one token; (2) the tape writer copies an ASCII string of up to 16 bytes as two fixed-size pieces that overlap (first and last 8, 4 or 1 bytes) and checks ASCII on those same pieces (it was `is_ascii`, a byte loop on short strings, then a `memcpy` call: about 82 instructions per string, now about 40 with the call into the writer); (3) the JS rebuild makes a one-item list of numbers inside a long list as an array literal (`new Array(1)` calls a builtin); (4) the `Dechunker` decodes each message straight from the dechunker\'s batch (a slice of the read when the message is in one chunk) instead of queueing a copy through `bolt::inbox::Inbox` first (every message is decoded in the call that completes it, so nothing needs queueing). What is left: on records 10000×3 chunked the decoding is no longer the gap: in one process, alternating (15:50 UTC, load 1.8), the `Dechunker` alone (the messages of each 16 KiB read kept as returned) took 577-582 µs, `decodeRecords` 564-579 µs and msgpackr\'s `unpackMultiple` of the concatenated reads 554-574 µs; the chunked cell\'s loop then copies every message into one array with `push`, which costs 50-60 µs for 10,000 records whatever produced them (`decodeRecords` followed by the same copy: 624 µs). The native pass still costs about 60 instructions per token in the core walk; `String#substring` in V8 costs about 82 instructions per short string on the JS side (12 % of lists 1×1000). Tried and dropped: taking map keys out of line so that the tape writer\'s `string` inlines into the walk (the walk then called `Vec::extend_from_slice` out of line: 1.4 % more instructions on lists 1×1000).'

function report (results, alt, split) {
  const cpu = os.cpus()[0] ? os.cpus()[0].model.trim() : 'unknown CPU'
  const lines = []
  lines.push('## Node: boltcodec vs neo4j-driver\'s JS codec, msgpackr, @msgpack/msgpack')
  lines.push('')
  lines.push(`Measured ${new Date().toISOString().slice(0, 10)} on ${cpu} (${os.cpus().length} cores, shared), Node ${process.version}, neo4j-driver ${driverVersion}, msgpackr ${pkgVersion('msgpackr')} (native string extension loaded: ${Boolean(msgpackr.isNativeAccelerationEnabled)}), @msgpack/msgpack ${pkgVersion('@msgpack/msgpack')}. CPU time per call (process.cpuUsage: the machine is shared), best of ${QUICK ? 4 : 15} consecutive 20 ms bursts per cell, after a warm-up; the clock is read after batches of calls that double in size, not after every call (until 2026-11-24 it was read after every call, which added 0.5–1 µs, the cost of \`process.cpuUsage\` itself, to every call of every codec and pulled the ratios of the ~10 µs workloads towards 1×). Load average at the end of the run: ${os.loadavg().map((x) => x.toFixed(1)).join(', ')} (1, 5, 15 min). Regenerate with \`bindings/node/scripts/bench.sh --write\`.`)
  lines.push('')
  lines.push('Goals: unpack ≥ 3× the official codec on every workload, pack ≥ 2× (issue 5); unpack ≥ 1× msgpackr on every decode workload, and pack stays ≥ 1× msgpackr (issue 15).')
  lines.push('')
  for (const [kind, ops] of [['unpack', ['unpack', 'unpack, chunked']], ['pack', ['pack', 'pack, chunked']]]) {
    const cells = results.filter((r) => ops.includes(r.op))
    const below = cells.filter((r) => r.t.msgpackr < r.t.boltcodec)
    lines.push(`In this run, ${kind} vs msgpackr: ≥ 1× on ${cells.length - below.length} of ${cells.length} cells` + (below.length === 0 ? '.' : `; below 1× on ${below.map((r) => `${r.workload} ${r.op} (${ratio(r.t.msgpackr, r.t.boltcodec)})`).join(', ')}.`))
    lines.push('')
  }
  lines.push('')
  lines.push('| workload | operation | official | boltcodec | msgpackr | @msgpack/msgpack | boltcodec vs official | boltcodec vs msgpackr |')
  lines.push('| --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const r of results) {
    const t = r.t
    lines.push(`| ${r.workload} | ${r.op} | ${fmt(t.official)} | ${fmt(t.boltcodec)} | ${fmt(t.msgpackr)} | ${fmt(t['@msgpack/msgpack'])} | **${ratio(t.official, t.boltcodec)}** | ${ratio(t.msgpackr, t.boltcodec)} |`)
  }
  lines.push('')
  lines.push('Ratios are the other codec\'s time over boltcodec\'s (above 1× means boltcodec is faster). Workloads: `lists N×M` is one list of N lists of M mixed integers, floats and short strings; `records N×M` is N RECORD messages of M such fields. "chunked": the driver\'s framing (1,398-byte chunks) read in 16 KiB pieces through each codec\'s dechunker; the MessagePack libraries have no framing and decode the concatenated pieces. Pack of records: one call per message.')
  lines.push('')
  lines.push('Design (bindings/node/README.md has the details): decoding is one native call per value, socket read or batch. Rust de-chunks and decodes with the core `packstream::Decoder` (limits, strict UTF-8, offsets) into a tape: one i32 per token, the floats, and every string in one of two blobs (ASCII as latin1, the rest as UTF-8) that JS turns into strings of at most 64 KiB each (a string of 128 KiB or more is a large object in V8, about 80 µs to make) and slices with `substring`; map keys are interned natively across calls. A small JS routine rebuilds the values from the tape. Creating values through N-API one by one is slower than the driver\'s own JS, so the native side never creates values. Encoding is JS writing into a reused Buffer: reading JS values from Rust costs several N-API calls per value (table below).')
  lines.push('')
  lines.push('Where the time goes. The native pass alone (`codecDecodeValue` into a reused buffer: the core\'s `Decoder::visit_value` walking every token with the tape writer inlined, then one copy of the tape into the JS buffer), against the whole `unpack` and msgpackr\'s, in the same run:')
  lines.push('')
  lines.push('| workload | boltcodec unpack | of which the native pass | the rest (JS rebuild, call) | msgpackr unpack | native pass / msgpackr |')
  lines.push('| --- | --- | --- | --- | --- | --- |')
  for (const sp of split) {
    const t = sp.t
    lines.push(`| ${sp.workload} | ${fmt(t.unpack)} | ${fmt(t.native)} | ${fmt(Math.max(0, t.unpack - t.native))} | ${fmt(t.msgpackr)} | ${(t.native / t.msgpackr).toFixed(2)}× |`)
  }
  lines.push('')
  lines.push(WHERE)
  lines.push('')
  lines.push('Encoding alternatives (integers as bigint for the JS encoder, as numbers for packNative):')
  lines.push('')
  lines.push('| workload | JS encoder (`pack`) | native, reading the value through N-API (`packNative`) |')
  lines.push('| --- | --- | --- |')
  for (const a of alt) {
    const [js, nat] = Object.values(a.t)
    lines.push(`| ${a.workload} | ${fmt(js)} | ${fmt(nat)} (${ratio(nat, js)} slower) |`)
  }
  return lines.join('\n')
}

function writeResults (md) {
  const file = path.join(__dirname, '..', 'RESULTS.md')
  const start = '<!-- node:start -->'
  const end = '<!-- node:end -->'
  let text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmark results\n'
  const block = `${start}\n${md}\n${end}`
  const a = text.indexOf(start)
  const b = text.indexOf(end)
  if (a >= 0 && b > a) {
    text = text.slice(0, a) + block + text.slice(b + end.length)
  } else {
    text = text.replace(/\n*$/, '\n\n') + block + '\n'
  }
  fs.writeFileSync(file, text)
  process.stderr.write(`wrote the node section of ${path.relative(process.cwd(), file)}\n`)
}

main()
