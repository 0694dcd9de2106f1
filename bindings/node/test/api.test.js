'use strict'
// Unit tests of the public API: options, errors, hostile input, streaming, batches,
// re-entrancy and the encoder's edge cases.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const bc = require('..')
const { pack, unpack, packMessage, frame, decodeRecords, decodeRecordsAsync, decodeMessages, Dechunker, Structure, Uuid, BoltcodecError } = bc

const hex = (h) => Buffer.from(h.replace(/\s+/g, ''), 'hex')
const hexOf = (b) => Buffer.from(b).toString('hex')

function throwsKind (fn, kind, offset) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof BoltcodecError, String(e))
    assert.equal(e.kind, kind, e.message)
    if (offset !== undefined) assert.equal(e.offset, offset, e.message)
    return true
  })
}

/** mulberry32 */
function rng (seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const record = (fields) => packMessage(new Structure(0x71, [fields]))

test('integers in the three modes', () => {
  const cases = [0n, -1n, 1n, -16n, 127n, -17n, 2n ** 27n - 1n, 2n ** 27n, -(2n ** 27n), -(2n ** 27n) - 1n, 2n ** 31n, 2n ** 53n - 1n, -(2n ** 53n - 1n), 2n ** 53n, -(2n ** 53n), 2n ** 63n - 1n, -(2n ** 63n)]
  const { Integer } = require('neo4j-driver-core')
  for (const v of cases) {
    const bytes = pack(v)
    assert.equal(unpack(bytes, { int: 'bigint' }), v)
    const n = unpack(bytes)
    const safe = v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)
    assert.equal(n, safe ? Number(v) : (v > 0n ? Infinity : -Infinity), `number ${v}`)
    const i = unpack(bytes, { int: 'integer' })
    assert.ok(i instanceof Integer)
    assert.equal(i.toString(), v.toString())
    // The driver's own Integer for the value, field for field (small ones are built
    // directly, not through its int()).
    const theirs = Integer.fromString(v.toString())
    assert.deepStrictEqual(i, theirs, `Integer ${v}`)
    assert.deepEqual(Reflect.ownKeys(i), Reflect.ownKeys(theirs))
    if (v >= -(2n ** 27n) && v < 2n ** 27n) assert.deepStrictEqual(i, require('neo4j-driver-core').int(Number(v)))
    assert.equal(hexOf(pack(i)), hexOf(bytes), 'Integer packs like bigint')
  }
  assert.throws(() => pack(2n ** 63n), RangeError)
  assert.throws(() => unpack(pack(1n), { int: 'long' }), TypeError)
})

test('floats, strings, bytes, lists, maps, structures and UUIDs', () => {
  assert.equal(hexOf(pack(1)), 'c13ff0000000000000', 'every number is a Float')
  assert.ok(Object.is(unpack(pack(-0)), -0))
  assert.deepEqual(unpack(pack(new Uint8Array([1, 2]))), new Uint8Array([1, 2]))
  assert.deepEqual(unpack(pack(new Uint8Array([255])), { bytes: 'int8' }), new Int8Array([-1]))
  assert.deepEqual(unpack(pack(Buffer.from([7]))), new Uint8Array([7]))
  assert.equal(hexOf(pack(new Map([['b', 1n], ['a', 2n]]))), 'a2816201816102')
  assert.deepEqual(unpack(pack({ a: [1n, null, undefined], b: undefined })), { a: [1, null, null] })
  const s = unpack(pack(new Structure(0x4e, [1n, ['L'], {}])))
  assert.ok(s instanceof Structure)
  assert.deepEqual([s.signature, s.fields], [0x4e, [1, ['L'], {}]])
  assert.equal(unpack(pack(new Structure(0x58, [1n])), { hydrate: (sig, f) => `${sig}:${f}` }), '88:1')
  const u = new Uuid('550e8400-e29b-41d4-a716-446655440000')
  assert.throws(() => pack(u), TypeError)
  const ub = pack(u, { uuid: true })
  assert.equal(hexOf(ub), 'e0550e8400e29b41d4a716446655440000')
  throwsKind(() => unpack(ub), 'reserved_marker', 0)
  assert.equal(unpack(ub, { uuid: true }).toString(), u.toString())
  assert.equal(unpack(ub, { uuid: true, createUuid: (b) => b.length }), 16)
  assert.equal(hexOf(pack(new Set(['x']))), '918178', 'iterables are lists')
})

test('maps: the key __proto__ is an own property; later duplicates win', () => {
  const v = unpack(hex('a2 89 5f5f70726f746f5f5f 01 81 61 02'))
  assert.equal(Object.getPrototypeOf(v), Object.prototype)
  assert.deepEqual(Object.keys(v), ['__proto__', 'a'])
  assert.equal(v.__proto__, 1) // eslint-disable-line no-proto
  assert.deepEqual(unpack(hex('a3 81 61 01 81 62 02 81 61 03')), { a: 3, b: 2 })
})

/** PackStream bytes of a string (tiny or 8-bit length). */
function str8 (s) {
  const b = Buffer.from(s, 'utf8')
  return b.length < 16 ? Buffer.concat([Buffer.from([0x80 | b.length]), b]) : Buffer.concat([Buffer.from([0xd0, b.length]), b])
}

/** The object a map's entries make when set one at a time (the driver's way, `__proto__` as an own property). */
function mapByStores (entries) {
  const o = {}
  for (const [k, v] of entries) {
    if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true })
    else o[k] = v
  }
  return o
}

/** Asserts that `a` and `b` are the same plain object or array: prototype, own keys in order, descriptors, values. */
function sameShape (a, b, where) {
  assert.equal(Array.isArray(a), Array.isArray(b), where)
  assert.equal(Object.getPrototypeOf(a), Object.getPrototypeOf(b), where)
  assert.deepEqual(Reflect.ownKeys(a), Reflect.ownKeys(b), where)
  for (const k of Reflect.ownKeys(b)) {
    const da = Object.getOwnPropertyDescriptor(a, k)
    const db = Object.getOwnPropertyDescriptor(b, k)
    assert.deepEqual([da.writable, da.enumerable, da.configurable], [db.writable, db.enumerable, db.configurable], `${where}: ${String(k)}`)
    if (db.value !== null && typeof db.value === 'object') sameShape(da.value, db.value, `${where}.${String(k)}`)
    else assert.equal(da.value, db.value, `${where}: ${String(k)}`)
  }
  assert.ok(Object.isExtensible(a), where)
}

test('maps and lists of every size from 0 to 12 (array and object literals up to 8, the general path above) are the objects built one entry at a time', () => {
  const r = rng(15)
  const keyPool = ['a', 'b', 'id', '__proto__', '0', '10', '4294967295', 'größe', 'k'.repeat(20), 'constructor', 'toString', 'length']
  for (let round = 0; round < 40; round++) {
    for (let n = 0; n <= 12; n++) {
      // A map of n entries (keys may repeat), values: small ints, strings, nested lists and maps.
      const entries = []
      const parts = [Buffer.from(n < 16 ? [0xa0 | n] : [0xd8, n])]
      for (let i = 0; i < n; i++) {
        const k = keyPool[Math.floor(r() * keyPool.length)]
        const kind = Math.floor(r() * 4)
        let v
        let vb
        if (kind === 0) {
          v = Math.floor(r() * 100)
          vb = Buffer.from([v])
        } else if (kind === 1) {
          v = 'v'.repeat(Math.floor(r() * 20))
          vb = str8(v)
        } else if (kind === 2) {
          const m = Math.floor(r() * 11) // a list of strings: read flat, in place or not
          v = Array.from({ length: m }, (_, j) => `s${j}`.repeat(1 + (j % 8)))
          vb = Buffer.concat([Buffer.from([0x90 | m]), ...v.map(str8)])
        } else {
          v = mapByStores([['x', 1], [k, 2]])
          vb = Buffer.concat([Buffer.from([0xa2]), str8('x'), Buffer.from([1]), str8(k), Buffer.from([2])])
        }
        entries.push([k, v])
        parts.push(str8(k), vb)
      }
      const mapBytes = Buffer.concat(parts)
      const expected = mapByStores(entries)
      sameShape(unpack(mapBytes), expected, `map of ${n}`)
      // The same map inside a list of n + 4 items (the long-list path), mixed with
      // short string lists (read flat in place), and as a record's row.
      const list = [expected, ...Array.from({ length: n + 3 }, (_, j) => Array.from({ length: j % 10 }, (_, i) => `t${i}`))]
      const listBytes = Buffer.concat([
        Buffer.from(list.length < 16 ? [0x90 | list.length] : [0xd4, list.length]), mapBytes,
        ...list.slice(1).map((l) => Buffer.concat([Buffer.from([0x90 | l.length]), ...l.map(str8)]))
      ])
      sameShape(unpack(listBytes), list, `list of ${list.length}`)
      const rows = decodeRecords(frame(Buffer.concat([Buffer.from([0xb1, 0x71]), listBytes])))
      sameShape(rows[0], list, `record of ${list.length}`)
    }
  }
})

test('map keys are interned across calls, and a failed message does not leave stale ids', () => {
  const keys = Array.from({ length: 20 }, (_, i) => `key${i}`)
  const obj = Object.fromEntries(keys.map((k, i) => [k, BigInt(i)]))
  for (let i = 0; i < 3; i++) assert.deepEqual(unpack(pack(obj)), Object.fromEntries(keys.map((k, i) => [k, i])))
  // A message that interns new keys and then fails, then a message using the same keys.
  const good = packMessage({ fresh1: 1n, fresh2: 2n })
  const bad = packMessage(new Structure(0x70, [{ fresh1: 1n, fresh3: 3n }]))
  bad[bad.length - 3] = 0xc4 // the last value byte becomes a reserved marker
  const d = new Dechunker()
  assert.equal(d.push(Buffer.concat([bad, good, bad, good])), 4)
  throwsKind(() => d.next(), 'reserved_marker')
  assert.deepEqual(d.next(), { fresh1: 1, fresh2: 2 })
  throwsKind(() => d.next(), 'reserved_marker')
  assert.deepEqual(d.next(), { fresh1: 1, fresh2: 2 })
  assert.equal(d.next(), undefined)
  // More distinct keys than the table holds, and long keys.
  const many = {}
  for (let i = 0; i < 5000; i++) many[`k${i}-${'x'.repeat(i % 80)}`] = BigInt(i)
  for (let i = 0; i < 2; i++) assert.deepEqual(unpack(pack(many), { int: 'bigint' }), many)
})

test('strings: header sizes, non-ASCII, surrogates', () => {
  for (const s of ['', 'a', 'x'.repeat(15), 'x'.repeat(16), 'é'.repeat(7), 'é'.repeat(8), '€'.repeat(5), '€'.repeat(6),
    '😀'.repeat(4), 'y'.repeat(63), 'y'.repeat(64), 'ü'.repeat(100), 'z'.repeat(255), 'z'.repeat(256),
    '中'.repeat(30000), 'q'.repeat(70000), 'mixed ascii and ü and 😀 '.repeat(50)]) {
    const bytes = pack(s)
    assert.equal(hexOf(bytes), hexOf(Buffer.concat([header(Buffer.byteLength(s)), Buffer.from(s)])), `pack ${s.slice(0, 20)}… (${s.length})`)
    assert.equal(unpack(bytes), s)
  }
  assert.equal(hexOf(pack('\ud800')), '83efbfbd', 'a lone surrogate is written as U+FFFD')
  assert.equal(hexOf(pack('a\udc00b'.repeat(30))), hexOf(Buffer.concat([header(150), Buffer.from('a\udc00b'.repeat(30))])))
  throwsKind(() => unpack(hex('82 c3 28')), 'invalid_utf8', 1)
  function header (n) {
    if (n < 16) return Buffer.from([0x80 | n])
    if (n < 256) return Buffer.from([0xd0, n])
    if (n < 65536) return Buffer.from([0xd1, n >> 8, n & 255])
    return Buffer.from([0xd2, n >>> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255])
  }
})

test('encoder errors', () => {
  assert.throws(() => pack(undefined), TypeError)
  assert.throws(() => pack(() => 1), TypeError)
  assert.throws(() => pack(Symbol('x')), TypeError)
  assert.throws(() => pack(new Map([[1, 2]])), TypeError)
  assert.throws(() => pack(new Structure(200, [])), TypeError)
  const wide = new Structure(1, Array.from({ length: 16 }, () => null))
  assert.throws(() => pack(wide), TypeError)
  assert.equal(hexOf(pack(wide, { legacyStructs: true })).slice(0, 6), 'dc1001')
  // A failed pack leaves the encoder usable.
  assert.equal(hexOf(pack([1n, 2n])), '920102')
})

test('re-entrant hooks: hydrate may decode, dehydrate may encode', () => {
  const inner = pack({ inner: [1n, 'two'] })
  const outer = pack([new Structure(1, ['a']), new Structure(1, ['b']), 'tail'])
  const v = unpack(outer, { hydrate: (sig, fields) => ({ fields, nested: unpack(inner) }) })
  assert.deepEqual(v, [{ fields: ['a'], nested: { inner: [1, 'two'] } }, { fields: ['b'], nested: { inner: [1, 'two'] } }, 'tail'])
  class Point { constructor (x) { this.x = x } }
  const bytes = pack([new Point(1), 'z'], {
    dehydrate: (o) => o instanceof Point ? new Structure(0x58, [pack(o.x)]) : o
  })
  assert.deepEqual(unpack(bytes), [new Structure(0x58, [new Uint8Array([0xc1, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0])]), 'z'])
})

test('hostile input: clean errors with offsets, no crash', () => {
  throwsKind(() => unpack(Buffer.alloc(1_000_000, 0x91)), 'limit_exceeded', 1024)
  throwsKind(() => unpack(hex('d6 ffffffff')), 'size_too_large', 0)
  throwsKind(() => unpack(hex('da 7fffffff 81 61')), 'limit_exceeded', 0)
  throwsKind(() => unpack(hex('da 00100000 81 61')), 'unexpected_end', 0)
  throwsKind(() => unpack(hex('d2 7fffffff 61')), 'unexpected_end', 0)
  throwsKind(() => unpack(hex('a1 01 01')), 'non_string_key', 1)
  throwsKind(() => unpack(hex('c0 c0')), 'trailing_bytes', 1)
  throwsKind(() => unpack(Buffer.alloc(0)), 'unexpected_end', 0)
  throwsKind(() => unpack(hex('91 91 91 90'), { maxDepth: 2 }), 'limit_exceeded', 2)
  assert.throws(() => unpack('c0'), TypeError)
  // Random bytes and mutated valid encodings: a value or a BoltcodecError, nothing else.
  const next = rng(7)
  const seeds = [pack([1n, 'two', { three: [3.5, null, true] }, new Structure(0x4e, [1n, [], {}])]), pack({ a: 'b'.repeat(300) })]
  let errors = 0
  for (let i = 0; i < 20000; i++) {
    let input
    if (i % 2 === 0) {
      input = Buffer.from(Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 256)))
    } else {
      input = Buffer.from(seeds[i % 4 === 1 ? 0 : 1])
      for (let k = 0; k < 3; k++) input[Math.floor(next() * input.length)] = Math.floor(next() * 256)
    }
    try {
      unpack(input, { uuid: next() < 0.5, legacyStructs: next() < 0.5 })
    } catch (e) {
      assert.ok(e instanceof BoltcodecError, `input ${input.toString('hex')}: ${e}`)
      assert.ok(e.offset >= 0 && e.offset <= input.length)
      errors++
    }
    const d = new Dechunker()
    try {
      d.messages(input)
      d.end()
    } catch (e) {
      assert.ok(e instanceof BoltcodecError, `stream ${input.toString('hex')}: ${e}`)
    }
  }
  assert.ok(errors > 5000)
})

test('decodeRecords: a batch in one call; errors name the offset', () => {
  const rows = Array.from({ length: 3000 }, (_, i) => [BigInt(i), `row ${i}`, i / 2, { k: [true, null] }])
  const wire = Buffer.concat(rows.map(record))
  const expected = rows.map(([a, b, c, d]) => [Number(a), b, c, d])
  assert.deepEqual(decodeRecords(wire), expected)
  assert.deepEqual(decodeMessages(wire).map((m) => [m.signature, m.fields[0]]), expected.map((r) => [0x71, r]))
  const withSuccess = Buffer.concat([wire, packMessage(new Structure(0x70, [{}]))])
  throwsKind(() => decodeRecords(withSuccess), 'not_a_record', 0)
  throwsKind(() => decodeRecords(wire.subarray(0, wire.length - 1)), 'truncated')
  throwsKind(() => decodeRecords(wire, { maxMessageSize: 10 }), 'message_too_large', 0)
  const big = frame(pack(new Structure(0x71, [['x'.repeat(200000)]])), 1000)
  assert.equal(decodeRecords(big)[0][0].length, 200000)
})

test('decodeRecordsAsync: same result, and the event loop keeps turning', async () => {
  const rows = Array.from({ length: 60000 }, (_, i) => [BigInt(i), `r${i}`, i * 0.25])
  const wire = Buffer.concat(rows.map(record))
  const expected = decodeRecords(wire)
  let ticks = 0
  const timer = setInterval(() => ticks++, 0)
  const copy = Buffer.from(wire)
  const pending = decodeRecordsAsync(copy)
  copy.fill(0) // the input was copied at the call
  const got = await pending
  clearInterval(timer)
  assert.deepEqual(got, expected)
  assert.ok(ticks > 0, 'timers ran while decoding')
  await assert.rejects(decodeRecordsAsync(wire.subarray(1)), BoltcodecError)
})

test('Dechunker: any split of the stream, NOOPs, framing errors', () => {
  const msgs = [new Structure(0x70, [{ server: 'Neo4j/5.26' }]), new Structure(0x71, [[1n, 'a'.repeat(3000)]]), new Structure(0x7e, [])]
  const wire = Buffer.concat([Buffer.from([0, 0]), ...msgs.map((m) => packMessage(m, { maxChunkSize: 100 })), Buffer.from([0, 0])])
  const expected = msgs.map((m) => unpack(pack(m)))
  for (const step of [1, 2, 3, 7, 64, 1000, wire.length]) {
    const d = new Dechunker()
    const got = []
    for (let at = 0; at < wire.length; at += step) got.push(...d.messages(wire.subarray(at, at + step)))
    d.end()
    assert.deepEqual(got, expected, `reads of ${step}`)
  }
  const d = new Dechunker()
  d.push(wire.subarray(0, 10))
  throwsKind(() => d.end(), 'truncated')
  const small = new Dechunker({ maxMessageSize: 50 })
  assert.equal(small.push(Buffer.concat([packMessage('ok'), frame(Buffer.alloc(60, 0xc0))])), 2)
  assert.equal(small.next(), 'ok')
  throwsKind(() => small.next(), 'message_too_large', 7)
  assert.equal(small.push(packMessage('more')), 1, 'a broken stream stays broken')
  throwsKind(() => small.next(), 'message_too_large', 7)
  small.reset()
  assert.deepEqual(small.messages(packMessage('again')), ['again'])
  // Unread messages survive the next push.
  const lazy = new Dechunker()
  lazy.push(packMessage('first'))
  lazy.push(packMessage('second'))
  assert.deepEqual([lazy.next(), lazy.next(), lazy.next()], ['first', 'second', undefined])
})

test('packMessage and frame', () => {
  assert.equal(hexOf(packMessage(new Structure(0x0f, []))), '0002b00f0000')
  const v = 'x'.repeat(70000)
  const framed = packMessage(v)
  assert.equal(framed.readUInt16BE(0), 65535)
  assert.equal(decodeMessages(framed)[0], v)
  const small = packMessage([1n, 2n, 3n], { maxChunkSize: 2 })
  assert.equal(hexOf(small), '00029301' + '00020203' + '0000')
  assert.throws(() => frame(Buffer.alloc(0)), RangeError)
  assert.throws(() => packMessage(1, { maxChunkSize: 0 }), RangeError)
})

test('decodeRecords: the RECORD header counts against the limits as in any message', () => {
  // B1 71 91 91 91 81 78: RECORD [[["x"]]]; the fast path for `B1 71` must agree with the
  // general path (decodeMessages) on every limit.
  const wire = Buffer.concat([record([[['x']]]), record([1n, 2n])])
  const outcome = (fn) => {
    try {
      return { value: fn() }
    } catch (e) {
      assert.ok(e instanceof BoltcodecError, String(e))
      return { kind: e.kind, offset: e.offset }
    }
  }
  for (let maxDepth = 0; maxDepth <= 5; maxDepth++) {
    for (let maxTotalElements = 0; maxTotalElements <= 5; maxTotalElements++) {
      for (let maxContainerLen = 0; maxContainerLen <= 2; maxContainerLen++) {
        const opts = { maxDepth, maxTotalElements, maxContainerLen }
        const fast = outcome(() => decodeRecords(wire, opts))
        const general = outcome(() => decodeMessages(wire, opts).map((m) => m.fields[0]))
        assert.deepEqual(fast, general, JSON.stringify(opts))
      }
    }
  }
  // A RECORD in the legacy STRUCT_8 form takes the general path.
  assert.deepEqual(decodeRecords(frame(hex('dc 01 71 91 01')), { legacyStructs: true }), [[1]])
})

test('Dechunker with records: true gives RECORDs as their values, other messages whole', () => {
  const msgs = [new Structure(0x71, [[1n, 'a']]), new Structure(0x70, [{ t_last: 3n }]), new Structure(0x71, [[2n]])]
  const wire = Buffer.concat([...msgs.map((m) => packMessage(m, { maxChunkSize: 3 })), frame(hex('dc 01 71 91 05'))])
  const d = new Dechunker({ records: true, legacyStructs: true })
  const got = []
  for (let at = 0; at < wire.length; at += 5) got.push(...d.messages(wire.subarray(at, at + 5)))
  assert.deepEqual(got, [[1, 'a'], new Structure(0x70, [{ t_last: 3 }]), [2], [5]])
})

test('lists of every length and item kind; hooks that re-enter or throw inside a list leave the cursors in place', () => {
  // The list reader keeps the tape cursors in locals for lists of 4 items or more and
  // hands them back around other items (lib/decode.js readList): every item kind, at
  // every position, short and long lists, nested both ways.
  const items = [7n, -3n, 1.5, 'ascii', 'é€😀', null, true, new Uint8Array([1, 2]), { k: 'v', f: 0.25, s: 'é' }, [1n, 'x', 0.5], [], new Structure(1, ['s', 2n, 3.75, 'ü']), 2n ** 40n]
  const asNumbers = (v) => {
    if (typeof v === 'bigint') return Number(v)
    if (Array.isArray(v)) return v.map(asNumbers)
    if (v instanceof Structure) return new Structure(v.signature, v.fields.map(asNumbers))
    if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asNumbers(x)]))
    }
    return v
  }
  for (let n = 0; n <= 7; n++) {
    for (let first = 0; first < items.length; first++) {
      const list = Array.from({ length: n }, (_, i) => items[(first + i) % items.length])
      const value = [list, 'after', [list, 9n]]
      const got = unpack(pack(value))
      assert.deepEqual(got, asNumbers(value), `n ${n} first ${first}`)
      assert.deepEqual(unpack(pack(value), { int: 'bigint' }), value, `bigint, n ${n} first ${first}`)
    }
  }
  // A hook that decodes another long list in the middle of a long list.
  const inner = pack([1n, 2.5, 'in', 'ü', [3n, 4n, 5n, 6n], 'end'])
  const outer = pack(['a', 1n, 2.5, new Structure(1, []), 'b', 'ß', [7n, 8n, 9n, 10n, new Structure(1, [])], 3n])
  const hooked = unpack(outer, { hydrate: () => unpack(inner) })
  const innerValue = [1, 2.5, 'in', 'ü', [3, 4, 5, 6], 'end']
  assert.deepEqual(hooked, ['a', 1, 2.5, innerValue, 'b', 'ß', [7, 8, 9, 10, innerValue], 3])
  // A hook that throws in the middle of a long list: the stream goes on with the next
  // message, read whole.
  const d = new Dechunker({ hydrate: (sig, fields) => { if (fields[0] === 'boom') throw new Error('hook'); return fields[0] } })
  const wire = Buffer.concat([
    packMessage([1n, 'x', 2.5, new Structure(1, ['boom']), 'y', 'ÿ€', 3n, 4.5]),
    packMessage([5n, 'z', 6.5, new Structure(1, ['fine']), 'w', 'ü', 7n, 8.5])
  ])
  assert.equal(d.push(wire), 2)
  assert.throws(() => d.next(), /hook/)
  assert.deepEqual(d.next(), [5, 'z', 6.5, 'fine', 'w', 'ü', 7, 8.5])
})

test('pack: list items of every kind, short and long lists; a dehydrate hook still sees the Integers inside lists', () => {
  // writeList writes numbers, strings and the driver's Integers without the general
  // dispatch (lib/encode.js), unless a dehydrate hook may replace them.
  const { int } = require('neo4j-driver-core')
  const items = [int(5), 1.5, 'x', 'é😀', undefined, null, true, int(2 ** 40), int(-17), 7n, [int(1)], { k: int(2) }, new Structure(1, [int(3)]), new Uint8Array([9])]
  const expected = [5, 1.5, 'x', 'é😀', null, null, true, 2 ** 40, -17, 7, [1], { k: 2 }, new Structure(1, [3]), new Uint8Array([9])]
  for (const n of [0, 1, 15, 16, 17, 300]) {
    const list = Array.from({ length: n }, (_, i) => items[i % items.length])
    assert.deepEqual(unpack(pack(list)), Array.from({ length: n }, (_, i) => expected[i % items.length]), `${n} items`)
    const seen = []
    const hooked = pack(list, { dehydrate: (o) => { if (o.__isInteger__ === true) { seen.push(o.toNumber()); return 'I' } return o } })
    const want = Array.from({ length: n }, (_, i) => {
      const x = items[i % items.length]
      if (x !== undefined && x !== null && x.__isInteger__ === true) return 'I'
      const e = expected[i % items.length]
      return Array.isArray(e) ? ['I'] : e instanceof Structure ? new Structure(1, ['I']) : e !== null && typeof e === 'object' && !(e instanceof Uint8Array) ? { k: 'I' } : e
    })
    assert.deepEqual(unpack(hooked), want, `${n} items, dehydrate`)
    const count = (v) => v === 'I' ? 1 : Array.isArray(v) ? v.reduce((s, x) => s + count(x), 0) : v instanceof Structure ? count(v.fields) : v !== null && typeof v === 'object' && !(v instanceof Uint8Array) ? count(Object.values(v)) : 0
    assert.equal(seen.length, count(want), `${n} items: every Integer went through the hook`)
  }
})

test('short strings: every length 0-20, ASCII or with one non-ASCII byte at any place, alone and side by side', () => {
  // The native writer copies ASCII strings of up to 16 bytes as two fixed-size pieces
  // that overlap (first and last 8, 4 or 1 bytes) and checks ASCII on those pieces; any
  // other string goes the general way. Each length and each place of a non-ASCII char
  // must read back exactly, and the strings around it must stay intact.
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
  const all = []
  for (let n = 0; n <= 20; n++) {
    const s = alphabet.slice(0, n)
    all.push(s)
    for (let at = 0; at < n; at++) all.push(s.slice(0, at) + 'é' + s.slice(at + 1))
    for (let at = 0; at < n; at++) all.push(s.slice(0, at) + '\x7f' + s.slice(at + 1))
  }
  for (const s of all) assert.equal(unpack(pack(s)), s, JSON.stringify(s))
  assert.deepEqual(unpack(pack(all)), all)
  assert.deepEqual(unpack(pack(all.map((s) => [s]))), all.map((s) => [s]))
  const m = Object.fromEntries(all.map((s, i) => [`k${i}`, s]))
  assert.deepEqual(unpack(pack(m)), m)
})

test('lists of scalars are flat on the tape (T_FLAT) and read back item for item, inline in long lists too', () => {
  // The native writer marks a list whose items are all scalars T_FLAT once it ends; the
  // reader takes such lists in one loop (lib/decode.js readFlat, and inline in the loop
  // of a list of 4 or more items). Every scalar kind, at every position, in lists of
  // every short length, nested in short and long lists, maps and structures.
  const native = require('../native.js')
  const codec = native.nativeCodec({ uuid: true })
  const out = Buffer.alloc(1 << 16)
  const words = (value) => {
    const n = native.codecDecodeValue(codec, pack(value, { uuid: true }), out, true)
    assert.ok(n > 0)
    const w = new Int32Array(out.buffer, out.byteOffset, n >> 2)
    return Array.from(w.subarray(w[2], w[2] + w[3]), (x) => x & 15)
  }
  const [LIST, MAP, STRUCT, FLAT, INT, LATIN1] = [4, 5, 6, 13, 0, 2]
  assert.deepEqual(words([]), [FLAT])
  assert.deepEqual(words([1n, 'a']), [FLAT, INT, LATIN1])
  assert.deepEqual(words([[1n], [[]], { k: [2n] }, new Structure(1, [[]])]),
    [LIST, FLAT, INT, LIST, FLAT, MAP, 11, FLAT, INT, STRUCT, FLAT])
  assert.deepEqual(words([1n, [2n]]), [LIST, INT, FLAT, INT])
  assert.deepEqual(words([[2n], 1n]), [LIST, FLAT, INT, INT])

  const uuid = new Uuid('0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0')
  const scalars = [7n, -(2n ** 40n), 1.5, 'ascii', 'a long ascii string over thirteen characters', 'é€😀', null, false, true, new Uint8Array([1, 2]), uuid, 0n]
  const asNumbers = (v) => typeof v === 'bigint' ? Number(v) : Array.isArray(v) ? v.map(asNumbers) : v instanceof Structure ? new Structure(v.signature, v.fields.map(asNumbers)) : v
  const { Integer } = require('neo4j-driver-core')
  const asIntegers = (v) => typeof v === 'bigint' ? Integer.fromString(String(v)) : Array.isArray(v) ? v.map(asIntegers) : v instanceof Structure ? new Structure(v.signature, v.fields.map(asIntegers)) : v
  for (let m = 0; m <= 5; m++) {
    for (let first = 0; first < scalars.length; first++) {
      const flat = Array.from({ length: m }, (_, i) => scalars[(first + i) % scalars.length])
      for (const n of [1, 3, 4, 9]) {
        const value = [Array.from({ length: n }, () => flat), 'after', new Structure(1, [flat]), Array.from({ length: n }, (_, i) => i % 2 ? flat : 5n)]
        const b = pack(value, { uuid: true })
        assert.deepEqual(unpack(b, { uuid: true }), asNumbers(value), `m ${m} first ${first} n ${n}`)
        assert.deepEqual(unpack(b, { uuid: true, int: 'bigint' }), value, `bigint, m ${m} first ${first} n ${n}`)
        assert.deepEqual(unpack(b, { uuid: true, int: 'integer' }), asIntegers(value), `integer, m ${m} first ${first} n ${n}`)
      }
    }
  }
  // A hook called for an item of a flat list read inline (the UUID hook) that decodes
  // another value: the outer list's cursors are intact after it.
  const inner = pack([1n, [2n, 'x'], 'y'])
  const outer = pack([[1n, uuid, 'a'], [2.5, uuid], [uuid], ['b', 3n, uuid, 'c', 4.5]], { uuid: true })
  assert.deepEqual(unpack(outer, { uuid: true, createUuid: () => unpack(inner) }),
    [[1, [1, [2, 'x'], 'y'], 'a'], [2.5, [1, [2, 'x'], 'y']], [[1, [2, 'x'], 'y']], ['b', 3, [1, [2, 'x'], 'y'], 'c', 4.5]])
  // Flat records in a batch, after a message that failed inside a nested list.
  const good = (i) => packMessage(new Structure(0x71, [[BigInt(i), 'r', i + 0.5]]))
  const bad = frame(hex('b1 71 92 91 01 92 c1'))
  const d = new Dechunker({ records: true })
  assert.equal(d.push(Buffer.concat([good(1), bad, good(2)])), 3)
  assert.deepEqual(d.next(), [1, 'r', 1.5])
  throwsKind(() => d.next(), 'unexpected_end', 5)
  assert.deepEqual(d.next(), [2, 'r', 2.5])
})

test('codecStreamError answers for the last call: a value decoded after a failed push left the push\'s error behind', () => {
  const native = require('../native.js')
  const codec = native.nativeCodec({ maxMessageSize: 4 })
  const out = Buffer.alloc(1 << 12)
  const status = () => new Int32Array(out.buffer, out.byteOffset, 1)[0]
  // A chunk of 8 bytes is over maxMessageSize: a framing error (status 1).
  const tooLarge = Buffer.from([0x00, 0x08, 1, 2, 3, 4, 5, 6, 7, 8, 0x00, 0x00])
  assert.ok(native.codecPush(codec, tooLarge, out, false) > 0)
  assert.equal(status(), 1)
  assert.equal(native.codecStreamError(codec).kind, 'message_too_large')
  // The next call succeeds, and no framing error is reported for it.
  assert.ok(native.codecDecodeValue(codec, Buffer.from([0x01]), out, true) > 0)
  assert.equal(status(), 0)
  assert.equal(native.codecStreamError(codec) ?? null, null)
  // The stream itself stays broken until codecReset: the next push reports it again.
  assert.ok(native.codecPush(codec, Buffer.from([0x00, 0x00]), out, false) > 0)
  assert.equal(status(), 1)
  assert.equal(native.codecStreamError(codec).kind, 'message_too_large')
  native.codecReset(codec)
  assert.ok(native.codecPush(codec, Buffer.from([0x00, 0x01, 0x01, 0x00, 0x00]), out, false) > 0)
  assert.equal(status(), 0)
  assert.equal(native.codecStreamError(codec) ?? null, null)
})

// decodeFrames' loop used to be compiled on the fly (on-stack replacement) before its
// `finally` had run; that code then had no type feedback for the `finally` and was
// thrown away at the end of every call (one deoptimisation per call).
test('decode_frames_deoptimised_on_every_call (long batches keep their optimised code)', () => {
  const { spawnSync } = require('node:child_process')
  const child = `
    const bc = require(${JSON.stringify(require.resolve('..'))})
    const rows = []
    for (let i = 0; i < 10000; i++) rows.push(bc.packMessage(new bc.Structure(0x71, [[i, 'r' + i, i / 4, ['a', i % 7], { k: i }]])))
    const wire = Buffer.concat(rows)
    for (let k = 0; k < 3; k++) for (const s of [bc.decodeRecords, (b) => bc.decodeMessages(b), (b) => new bc.Dechunker({ records: true }).messages(b)]) s(wire)
    let n = 0
    for (let k = 0; k < 20; k++) n += bc.decodeRecords(wire).length + bc.decodeMessages(wire).length
    const d = new bc.Dechunker({ records: true })
    for (let k = 0; k < 20; k++) n += d.messages(wire).length
    console.log('decoded', n)
  `
  const res = spawnSync(process.execPath, ['--trace-deopt', '--no-concurrent-recompilation', '-e', child], { encoding: 'utf8', maxBuffer: 64 << 20 })
  assert.equal(res.status, 0, res.stderr)
  assert.match(res.stdout, /decoded 600000/)
  const deopts = res.stdout.split('\n').filter((l) => /bailout \(kind/.test(l) && /JSFunction (decodeFrames|rebuild|readTape|readMessages|rebuildMany|readEachMessage) /.test(l))
  // Each function may be thrown away once while its feedback settles, not once per call.
  assert.ok(deopts.length <= 4, `${deopts.length} deoptimisations:\n${deopts.slice(0, 8).join('\n')}`)
})

test('string_areas_of_128_KiB_or_more_were_one_large_object_string: the tape cuts them into segments, and every reader crosses the cuts', async () => {
  // V8 allocates a string of 128 KiB or more in its large-object space (about 80 µs a
  // call whatever the length), and the tape's string areas were each made one string:
  // a tenth of the unpack of records 10×10000 and lists 1000×100. Now `latin1` is cut
  // every 64 KiB and `utf8` every 32 KiB at most (a longer string is a segment of its
  // own), with a `T_SEG` word before the first string of each new segment.
  const native = require('../native.js')
  const codec = native.nativeCodec({})
  const T_LATIN1 = 2
  const T_SEG = 14
  const LONG = 0xfffffff
  /** The tape of `value`: its header and the latin1 segments as the words say. */
  const tape = (value) => {
    let out = Buffer.alloc(1 << 16)
    let n = native.codecDecodeValue(codec, pack(value), out, true)
    if (n < 0) {
      out = Buffer.alloc(-n)
      n = native.codecCopyOut(codec, out)
    }
    const w = new Int32Array(out.buffer, out.byteOffset, n >> 2)
    const segs = [{ start: 0, size: w[19], used: 0 }]
    const utf8Cuts = []
    let at = 0
    for (let i = w[2]; i < w[2] + w[3]; i++) {
      const x = w[i]
      if ((x & 15) === T_SEG) {
        if (x >>> 4 === 0) {
          assert.equal(w[i + 1], at, 'a latin1 segment starts where the strings before it end')
          segs.push({ start: w[i + 1], size: w[i + 2], used: 0 })
        } else {
          utf8Cuts.push([w[i + 1], w[i + 2]])
        }
        i += 2
      } else if ((x & 15) === T_LATIN1) {
        let len = x >>> 4
        if (len === LONG) len = w[++i]
        at += len
        segs[segs.length - 1].used += len
      } else if ((x & 15) === 8) {
        i += 2 // (T_INT64: two more words)
      }
    }
    assert.equal(at, w[7])
    return { header: [w[19], w[20]], latin1: w[7], utf8: w[9], segs, utf8Cuts }
  }
  const rand = rng(15)
  const ascii = (i) => `${i}:` + 'abcdefghijklmnopqrstuvwxyz0123456789'.slice(0, Math.floor(rand() * 30))
  const strings = Array.from({ length: 12000 }, (_, i) => ascii(i))
  const t = tape(strings)
  assert.deepEqual(t.header, [64 << 10, 32 << 10])
  assert.ok(t.latin1 > 3 * (64 << 10), `${t.latin1} bytes of strings`)
  assert.ok(t.segs.length >= 4, `${t.segs.length} segments`)
  for (const s of t.segs) assert.ok(s.used <= s.size && s.size === 64 << 10, JSON.stringify(s))
  // A string longer than a segment is one of its own, and the next starts after it.
  const huge = 'x'.repeat(200000)
  const t2 = tape([...strings.slice(0, 3000), huge, ...strings.slice(3000, 6000)])
  assert.ok(t2.segs.some((s) => s.size === 200000 && s.used === 200000), JSON.stringify(t2.segs))
  for (const s of t2.segs) assert.ok(s.used <= s.size, JSON.stringify(s))
  const utf8 = Array.from({ length: 6000 }, (_, i) => `ü€${i}` + '😀'.repeat(i % 4) + 'é'.repeat(Math.floor(rand() * 9)))
  const t3 = tape(utf8)
  assert.ok(t3.utf8 > 2 * (32 << 10) && t3.utf8Cuts.length >= 2, JSON.stringify(t3.utf8Cuts))
  for (const [start, size] of t3.utf8Cuts) assert.ok(start < t3.utf8 && size === 32 << 10)

  // Every reader across the cuts: long lists (inline), short and flat lists, map values
  // and keys too long to intern, structure fields, deep nesting (the iterative reader),
  // UTF-8, strings longer than a segment, in the three integer modes.
  const longKey = (i) => `a map key longer than sixty-four bytes, so never interned: number ${i}`
  const mixed = strings.map((s, i) => {
    switch (i % 7) {
      case 0: return [s, BigInt(i)]
      case 1: return [s, utf8[i % utf8.length], 1.5, s]
      case 2: return { [longKey(i)]: s, k: utf8[i % utf8.length] }
      case 3: return new Structure(1, [s, [s]])
      case 4: return i % 1000 === 4 ? huge : s
      case 5: return [[s], [s, s], [s, s, s, s, s]]
      default: return utf8[i % utf8.length]
    }
  })
  let deep = [strings[0], 'bottom']
  for (let i = 0; i < 100; i++) deep = [strings[i], { [longKey(i)]: deep, [`k${i}`]: strings[i + 1] }]
  // Maps whose keys alone fill segments (the cut falls before a key), read by the
  // recursive reader and, under 70 levels, by the iterative one.
  const keyed = Object.fromEntries(Array.from({ length: 2500 }, (_, i) => [longKey(i), i % 3 ? BigInt(i) : strings[i]]))
  let deepKeyed = keyed
  for (let i = 0; i < 70; i++) deepKeyed = [deepKeyed]
  const value = [mixed, deep, keyed, deepKeyed, mixed]
  const asNumbers = (v) => {
    if (typeof v === 'bigint') return Number(v)
    if (Array.isArray(v)) return v.map(asNumbers)
    if (v instanceof Structure) return new Structure(v.signature, v.fields.map(asNumbers))
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asNumbers(x)]))
    return v
  }
  const b = pack(value)
  assert.ok(tape(value).segs.length > 5)
  assert.deepEqual(unpack(b), asNumbers(value))
  assert.deepEqual(unpack(b, { int: 'bigint' }), value)
  const { Integer } = require('neo4j-driver-core')
  const asIntegers = (v) => typeof v === 'bigint' ? Integer.fromString(String(v)) : Array.isArray(v) ? v.map(asIntegers) : v instanceof Structure ? new Structure(v.signature, v.fields.map(asIntegers)) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asIntegers(x)])) : v
  assert.deepEqual(unpack(b, { int: 'integer' }), asIntegers(value))
  // A hook that decodes another large value in the middle: the outer reader's segment
  // is its own again after it.
  const inner = pack(strings.slice(0, 9000))
  const hooked = unpack(pack([strings, new Structure(1, []), strings]), { hydrate: () => unpack(inner).length })
  assert.deepEqual(hooked, [strings, 9000, strings])

  // Batches: a message that fails after a cut takes its segment back (the next message's
  // strings start where the failed one started); the Dechunker keeps unread messages
  // across pushes, and a hook that throws after a cut leaves the stream at the next
  // message; the asynchronous batch reads in slices.
  const rows = (from, n) => Array.from({ length: n }, (_, i) => [BigInt(from + i), strings[(from + i) % strings.length], utf8[(from + i) % utf8.length]])
  const big = (from) => packMessage(new Structure(0x71, [rows(from, 2500)]))
  const failing = Buffer.concat([packMessage(new Structure(0x71, [[...strings.slice(0, 5000)]])).subarray(0, -4), hex('81 61 00 00')])
  const batch = Buffer.concat([big(0), failing, big(2500), big(5000)])
  const d = new Dechunker({ records: true })
  assert.equal(d.push(batch), 4)
  assert.deepEqual(d.next(), asNumbers(rows(0, 2500)))
  assert.throws(() => d.next(), BoltcodecError)
  // The next push comes before the last two messages are read: they are kept.
  assert.equal(d.push(big(7500)), 3)
  assert.deepEqual(d.messages(Buffer.alloc(0)), [asNumbers(rows(2500, 2500)), asNumbers(rows(5000, 2500)), asNumbers(rows(7500, 2500))])
  const hookedStream = new Dechunker({ hydrate: (sig, fields) => { if (fields[0] === 'boom') throw new Error('hook'); return fields[0] } })
  const struct = (s) => new Structure(1, [s])
  assert.equal(hookedStream.push(Buffer.concat([
    packMessage([...strings.slice(0, 8000), struct('boom'), ...strings.slice(0, 10)]),
    packMessage([strings[1], struct('fine'), ...strings.slice(0, 9000)])
  ])), 2)
  assert.throws(() => hookedStream.next(), /hook/)
  assert.deepEqual(hookedStream.next(), [strings[1], 'fine', ...strings.slice(0, 9000)])
  const decode = require('../lib/decode.js')
  const slices = { ...decode.asyncSlices }
  decode.asyncSlices.ms = 0
  decode.asyncSlices.messages = 1
  try {
    const records = Buffer.concat([big(0), big(2500), big(5000)])
    assert.deepEqual(await decodeRecordsAsync(records), [rows(0, 2500), rows(2500, 2500), rows(5000, 2500)].map(asNumbers))
    assert.deepEqual(decodeRecords(records), [rows(0, 2500), rows(2500, 2500), rows(5000, 2500)].map(asNumbers))
  } finally {
    Object.assign(decode.asyncSlices, slices)
  }
})
