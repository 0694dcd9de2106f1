'use strict'
// The drop-in keeps the contracts of the driver methods it replaces (issue 15, item 0):
// `Unpacker#unpack` reads one value and leaves the buffer after it; the patched
// `Dechunker#write` announces each message exactly once, whenever it is read; a message
// that is not ready throws instead of waiting; errors reach the driver's users as the
// driver's own error types. Each case runs with the driver alone and with the drop-in,
// and the two must agree.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const driver = require('../driver.js')
const decode = require('../lib/decode.js')
const bc = require('..')

const boltDir = path.dirname(require.resolve('neo4j-driver-bolt-connection/package.json', {
  paths: [path.dirname(require.resolve('neo4j-driver/package.json'))]
}))
const lib = (p) => require(path.join(boltDir, 'lib', p))
const { Packer, Unpacker } = lib('packstream/packstream-v2.js')
const ChannelBuffer = lib('channel/channel-buf.js').default
const { Chunker, Dechunker } = lib('channel/chunking.js')
const core = require(require.resolve('neo4j-driver-core', { paths: [boltDir] }))

/** Runs `fn` with the driver alone, then with the drop-in installed. */
function both (fn) {
  const alone = fn()
  driver.install()
  try {
    return { alone, dropIn: fn() }
  } finally {
    driver.uninstall()
  }
}

/** The bytes the driver's packer writes for `values`, back to back (no framing). */
function packed (values) {
  const buf = new ChannelBuffer(1 << 16)
  const packer = new Packer(buf)
  for (const v of values) packer.packable(v)()
  return Buffer.from(buf._buffer.subarray(0, buf.position))
}

/** `values`, each framed as one Bolt message (chunks of at most `size` bytes). */
function framed (values, size = 1400) {
  const out = []
  const chunker = new Chunker({ write: (b) => out.push(Buffer.from(b._buffer)) }, size)
  const packer = new Packer(chunker)
  for (const v of values) {
    packer.packable(v)()
    chunker.messageBoundary()
  }
  chunker.flush()
  return Buffer.concat(out)
}

test('unpack_consumed_the_whole_buffer_instead_of_one_value', () => {
  const values = [core.int(1), 'two', [core.int(3), 4.5], { five: null }, true]
  const bytes = packed(values)
  const run = () => {
    const buf = new ChannelBuffer(bytes)
    const unpacker = new Unpacker(false, false)
    const seen = []
    while (buf.hasRemaining()) seen.push({ value: unpacker.unpack(buf), position: buf.position })
    return seen
  }
  const { alone, dropIn } = both(run)
  assert.equal(alone.length, values.length)
  assert.deepEqual(dropIn, alone)
  // One value followed by bytes that are not a value: the value is read, the position
  // stops after it, and what follows is the caller's to check (as BoltProvider does:
  // "unclean decode").
  const trailing = Buffer.concat([packed(['x']), Buffer.from([0xc7, 0xc7])])
  const r = both(() => {
    const buf = new ChannelBuffer(trailing)
    return [new Unpacker(false, false).unpack(buf), buf.position, buf.hasRemaining()]
  })
  assert.deepEqual(r.dropIn, ['x', 2, true])
  assert.deepEqual(r.dropIn, r.alone)
})

test('unpack of invalid bytes raises the driver error type, and leaves the position alone', () => {
  driver.install()
  try {
    const buf = new ChannelBuffer(Buffer.from([0x92, 0x01, 0xc7]))
    assert.throws(() => new Unpacker(false, false).unpack(buf), (e) => {
      assert.ok(e instanceof core.Neo4jError, String(e))
      assert.equal(e.code, core.error.PROTOCOL_ERROR)
      assert.ok(e.cause instanceof bc.BoltcodecError)
      assert.equal(e.cause.kind, 'reserved_marker')
      assert.equal(e.cause.offset, 2)
      return true
    })
    assert.equal(buf.position, 0)
  } finally {
    driver.uninstall()
  }
})

test('dechunker_announced_unread_messages_again_as_phantoms', () => {
  // A consumer that keeps the messages and reads them later, across several writes,
  // with keep-alive NOOPs between them: each message is announced once.
  const values = [[core.int(1)], 'b', { c: core.int(3) }, [], 'e']
  const noop = Buffer.from([0, 0])
  const wire = Buffer.concat([noop, ...values.flatMap((v) => [framed([v], 16), noop])])
  const reads = []
  for (let at = 0, n = 1; at < wire.length; at += n, n += 3) reads.push(wire.subarray(at, at + n))
  const run = (readWhen) => {
    const d = new Dechunker()
    const unpacker = new Unpacker(false, false)
    const kept = []
    const got = []
    d.onmessage = (m) => {
      kept.push(m)
      if (readWhen === 'at once') got.push(unpacker.unpack(m))
    }
    for (const r of reads) {
      d.write(new ChannelBuffer(r))
      if (readWhen === 'after each write') while (got.length < kept.length) got.push(unpacker.unpack(kept[got.length]))
    }
    if (readWhen === 'at the end') for (const m of kept) got.push(unpacker.unpack(m))
    return { announced: kept.length, got }
  }
  for (const readWhen of ['at once', 'after each write', 'at the end']) {
    const { alone, dropIn } = both(() => run(readWhen))
    assert.equal(alone.announced, values.length, readWhen)
    assert.deepEqual(dropIn, alone, readWhen)
  }
})

test('reading_a_message_not_yet_received_looped_forever', () => {
  const s = new decode.StreamDecoder({})
  assert.equal(s.push(bc.frame(Buffer.from([0xb1, 0x70, 0xa0]))), 1)
  assert.throws(() => s.readAt(3), /message 3 is not ready \(1 received\)/)
  assert.deepEqual(s.readAt(0).fields, [{}])
  assert.throws(() => s.readAt(0), /message 0 was already read/)
  assert.throws(() => s.readAt(1), /message 1 is not ready/)
})

test('messages_read_after_a_later_write_lost_the_readers_integer_mode', () => {
  // Messages not read before the next socket read were rebuilt at that read with the
  // stream's default conversions (integers as numbers) instead of the reader's mode.
  const wire = Buffer.concat([framed([[core.int(7)]]), framed([{ k: core.int(-8) }])])
  for (const [lossless, bigint] of [[false, false], [true, false], [false, true]]) {
    const run = () => {
      const d = new Dechunker()
      const kept = []
      d.onmessage = (m) => kept.push(m)
      d.write(new ChannelBuffer(wire.subarray(0, 7)))
      d.write(new ChannelBuffer(wire.subarray(7)))
      const u = new Unpacker(lossless, bigint)
      return kept.map((m) => u.unpack(m))
    }
    const { alone, dropIn } = both(run)
    assert.equal(alone.length, 2)
    assert.deepEqual(dropIn, alone, `disableLosslessIntegers ${lossless}, useBigInt ${bigint}`)
  }
})

/** A fake `neo4j-driver` package of `version` over the real or a fake bolt-connection. */
function fakeDriver (version, boltConnection) {
  const fs = require('node:fs')
  const os = require('node:os')
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boltcodec-fake-driver-'))
  const pkg = path.join(dir, 'neo4j-driver')
  fs.mkdirSync(path.join(pkg, 'node_modules'), { recursive: true })
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'neo4j-driver', version }))
  if (boltConnection === 'real') {
    fs.symlinkSync(boltDir, path.join(pkg, 'node_modules', 'neo4j-driver-bolt-connection'))
  } else {
    const b = path.join(pkg, 'node_modules', 'neo4j-driver-bolt-connection')
    const coreDir = path.dirname(require.resolve('neo4j-driver-core/package.json', { paths: [boltDir] }))
    fs.mkdirSync(path.join(b, 'node_modules'), { recursive: true })
    fs.symlinkSync(coreDir, path.join(b, 'node_modules', 'neo4j-driver-core'))
    fs.writeFileSync(path.join(b, 'package.json'), JSON.stringify({ name: 'neo4j-driver-bolt-connection', version }))
    for (const [file, text] of Object.entries(boltConnection)) {
      fs.mkdirSync(path.dirname(path.join(b, 'lib', file)), { recursive: true })
      fs.writeFileSync(path.join(b, 'lib', file), text)
    }
  }
  return { pkg, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) }
}

test('status() names the release; an untested release or another layout leaves the driver untouched', () => {
  const originals = [Packer.prototype.packable, Unpacker.prototype.unpack, Dechunker.prototype.write]
  const untouched = () => assert.deepEqual(
    [Packer.prototype.packable, Unpacker.prototype.unpack, Dechunker.prototype.write], originals)
  const installedVersion = require('neo4j-driver/package.json').version
  driver.install()
  try {
    assert.deepEqual(driver.status(), { installed: true, level: 'hydration', version: installedVersion, reason: null, records: 'boltcodec', hydrated: [] })
  } finally {
    driver.uninstall()
  }
  untouched()

  // A release the drop-in is not tested with, over the real internals: off, with the
  // reason; `force` installs it.
  const future = fakeDriver('7.0.0', 'real')
  try {
    driver.install({ driverDir: future.pkg })
    const s = driver.status()
    assert.equal(s.installed, false)
    assert.equal(s.level, 'off')
    assert.equal(s.version, '7.0.0')
    assert.match(s.reason, /not a tested release/)
    untouched()
    driver.install({ driverDir: future.pkg, force: true })
    assert.equal(driver.status().installed, true)
    driver.uninstall()
    untouched()
  } finally {
    driver.uninstall()
    future.cleanup()
  }

  // Internals laid out otherwise (the integer mode under other field names): off even
  // with `force`, and the driver still works with its own codec.
  const other = fakeDriver('6.99.0', {
    'packstream/packstream-v1.js': `
      class Packer { constructor (ch) { this.channel = ch } packable () {} }
      class Unpacker { constructor (a, b) { this.lossless = !a; this.bigint = b } unpack () {} }
      module.exports = { Packer, Unpacker }`,
    'channel/chunking.js': 'module.exports = { Dechunker: class { write () {} } }',
    'channel/channel-buf.js': 'module.exports = { default: class {} }',
    'packstream/structure.js': 'module.exports = { Structure: class {} }'
  })
  try {
    driver.install({ driverDir: other.pkg, force: true })
    const s = driver.status()
    assert.equal(s.installed, false)
    assert.match(s.reason, /unrecognised driver layout \(Unpacker keeps its integer mode/)
    assert.equal(driver.isInstalled(), false)
    untouched()
  } finally {
    driver.uninstall()
    other.cleanup()
  }
  const buf = new ChannelBuffer(packed(['still works']))
  assert.equal(new Unpacker(false, false).unpack(buf), 'still works')
})
