'use strict'
// The interleaving property test of issue 13 ("one bad call must never touch another"),
// shared by test/isolation.test.js (a few thousand operations) and scripts/fuzz-node (the
// long run, BOLTCODEC_FUZZ_OPS operations).
//
// A seeded generator mixes, in one process: good and bad `unpack` calls, good and bad
// `decodeRecords` / `decodeMessages` batches (a reserved marker in a message, a truncated
// tail, too many chunks), several live `Dechunker` streams fed in random pieces and read
// with `next` and `messages`, `decodeRecordsAsync` batches left running across the other
// calls (sliced one message at a time), hooks that throw, hooks that decode and encode
// re-entrantly (checking their own results), options objects changed between calls,
// values nested deeper than the recursive rebuild goes, and client connections fed RECORD
// batches in random pieces. Every good call's result is
// checked against the value it was made from (what a fresh decoder with no prior state
// gives), and every bad call must fail with the error of its bad message; a fresh codec
// (a new `Dechunker`, with its own native key table) decodes a sample of the inputs too.

const assert = require('node:assert/strict')
const bc = require('..')
const decode = require('../lib/decode.js')
const { pack, unpack, packMessage, frame, decodeRecords, decodeRecordsAsync, decodeMessages, Dechunker, Structure, BoltcodecError } = bc

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

/** A string leaf that is replaced by a reserved marker byte (C7) in a bad input. */
const PLACEHOLDER = 'ZZBADPLACEHOLDR' // 15 ASCII chars: encoded as 8F + the chars
const PLACEHOLDER_BYTES = Buffer.from([0x8f, ...Buffer.from(PLACEHOLDER)])
/** A structure tag the throwing hook refuses. */
const POISON = 0x7e

class PoisonError extends Error {}

/** Replaces the first placeholder of encoded bytes by C7: returns the bytes and its offset. */
function spoil (bytes) {
  const at = bytes.indexOf(PLACEHOLDER_BYTES)
  if (at < 0) throw new Error('no placeholder to spoil')
  return { bytes: Buffer.concat([bytes.subarray(0, at), Buffer.from([0xc7]), bytes.subarray(at + 16)]), at }
}

async function runInterleaved ({ ops, seed, log = null }) {
  const r = rng(seed)
  const int = (n) => Math.floor(r() * n)
  const pick = (a) => a[int(a.length)]
  const stats = { ops: 0, checked: 0, badChecked: 0, hookThrows: 0, reentrant: 0, asyncBatches: 0, freshChecks: 0, deep: 0, connections: 0 }

  // Keys: a pool shared by all calls (interned across calls), and now and then a new one,
  // so that the key table fills up (4096 keys) and later keys go as plain strings.
  const pool = Array.from({ length: 200 }, (_, i) => `k${i}`)
  let fresh = 0
  const key = () => (r() < 0.02 ? `n${fresh++}` : pick(pool))

  /** A random value, with bigints for Integers (see `expect`). */
  function gen (d, bad) {
    const t = int(d > 3 ? 6 : 11)
    switch (t) {
      case 0: return null
      case 1: return r() < 0.5
      case 2: return BigInt(int(2000001) - 1000000) * (r() < 0.1 ? 1000000n : 1n)
      case 3: return (r() - 0.5) * 1e6
      case 4: return r() < 0.8 ? pick(['', 'a', 'hello', 'héllo', '日本', '😀x', 'x'.repeat(70)]) : `s${int(1e6)}`
      case 5: return Uint8Array.from({ length: int(5) }, () => int(256))
      case 6: case 7: {
        const a = Array.from({ length: int(5) }, () => gen(d + 1, bad))
        return a
      }
      case 8: case 9: {
        const o = {}
        const n = int(5)
        for (let i = 0; i < n; i++) o[key()] = gen(d + 1, bad)
        return o
      }
      default:
        return new Structure(r() < 0.15 ? POISON : pick([0x4e, 0x52, 0x58, 0x44]), Array.from({ length: int(4) }, () => gen(d + 1, bad)))
    }
  }

  /** A value that may hold the placeholder (to be spoiled) and may be deeply nested. */
  function genTop (withBad) {
    let v = gen(0)
    if (r() < 0.03) {
      stats.deep++
      const n = 65 + int(400)
      for (let i = 0; i < n; i++) v = i % 3 === 0 ? [v] : i % 3 === 1 ? { [key()]: v } : new Structure(0x4e, [v])
    }
    if (withBad) v = [v, PLACEHOLDER, gen(1)]
    return v
  }

  // Conversions: what a fresh decoder gives for a value under the options of a call.
  function expect (v, o) {
    if (typeof v === 'bigint') return o.int === 'bigint' ? v : Number(v)
    if (Array.isArray(v)) return v.map((x) => expect(x, o))
    if (v instanceof Structure) {
      const fields = v.fields.map((x) => expect(x, o))
      if (o.hook === 'throw' && v.signature === POISON) throw new PoisonError('poison')
      if (o.hook === 'tag') return { tag: v.signature, fields }
      return new Structure(v.signature, fields)
    }
    if (v instanceof Uint8Array) return Uint8Array.from(v)
    if (v !== null && typeof v === 'object') {
      const out = {}
      for (const k of Object.keys(v)) out[k] = expect(v[k], o)
      return out
    }
    return v
  }

  // Deep values recurse in `expect` and in deepStrictEqual: compare them by their bytes.
  function same (actual, expected) {
    assert.deepStrictEqual(actual, expected)
  }

  let reentrantDepth = 0
  /** Hooks for a call: none, a tagging one, a throwing one, or one that decodes inside. */
  function hooksFor (mode) {
    switch (mode) {
      case 'tag': return { hydrate: (sig, fields) => ({ tag: sig, fields }) }
      case 'throw': return {
        hydrate: (sig, fields) => {
          if (sig === POISON) {
            stats.hookThrows++
            throw new PoisonError('poison')
          }
          return new Structure(sig, fields)
        }
      }
      case 'reenter': return {
        hydrate: (sig, fields) => {
          if (reentrantDepth < 2) {
            reentrantDepth++
            try {
              stats.reentrant++
              nestedOp()
            } finally {
              reentrantDepth--
            }
          }
          return new Structure(sig, fields)
        }
      }
      default: return {}
    }
  }

  // Option sets: each selects a codec (native options) and conversions.
  const shared = { int: 'number' } // changed in place between calls
  function optionsFor () {
    const hook = pick(['none', 'none', 'tag', 'throw', 'reenter'])
    const base = pick([null, { int: 'bigint' }, { maxDepth: 5000 }, { maxChunks: 3 }, shared])
    if (base === shared) {
      if (r() < 0.3) shared.int = shared.int === 'number' ? 'bigint' : 'number'
      if (hook === 'none') return { opts: shared, model: { int: shared.int, hook } }
    }
    const opts = { ...(base || {}), ...hooksFor(hook) }
    return { opts, model: { int: opts.int || 'number', hook } }
  }

  /** Runs `fn`, which must fail as `want` says: a BoltcodecError {kind, offset} or the hook. */
  function failsAs (fn, want) {
    let threw = null
    try {
      fn()
    } catch (e) {
      threw = e
    }
    if (threw === null) assert.fail(`expected ${JSON.stringify(want)}, got a result`)
    if (want.poison) {
      if (!(threw instanceof PoisonError)) throw threw
    } else {
      if (!(threw instanceof BoltcodecError)) throw threw
      assert.equal(threw.kind, want.kind, threw.message)
      if (want.offset !== undefined) assert.equal(threw.offset, want.offset, threw.message)
    }
    stats.badChecked++
  }

  /** The outcome of decoding `v` (or its spoiled form) under `model`. */
  function outcome (v, model) {
    try {
      return { value: expect(v, model) }
    } catch (e) {
      if (e instanceof PoisonError) return { poison: true }
      throw e
    }
  }

  // A fresh codec for a sample of calls: a new Dechunker has its own native key table.
  function freshCheck (framedBytes, expected) {
    if (int(4) !== 0) return
    const d = new Dechunker()
    const got = d.messages(framedBytes)
    same(got, expected)
    stats.freshChecks++
  }

  // --- operations -----------------------------------------------------------------------

  function opUnpack () {
    const { opts, model } = optionsFor()
    const bad = r() < 0.3
    const v = genTop(bad)
    let bytes = Buffer.from(pack(v))
    if (bad) {
      const how = int(3)
      if (how === 0) {
        const s = spoil(bytes)
        return failsAs(() => unpack(s.bytes, opts), { kind: 'reserved_marker', offset: s.at })
      }
      if (how === 1) {
        bytes = bytes.subarray(0, int(bytes.length))
        return failsAs(() => unpack(bytes, opts), { kind: 'unexpected_end' })
      }
      // Random bytes: any result or a BoltcodecError, nothing else.
      const junk = Uint8Array.from({ length: int(12) }, () => int(256))
      try {
        unpack(junk, opts)
      } catch (e) {
        if (!(e instanceof BoltcodecError) && !(e instanceof PoisonError)) throw e
      }
      return
    }
    const out = outcome(v, model)
    if (out.poison) return failsAs(() => unpack(bytes, opts), { poison: true })
    same(unpack(bytes, opts), out.value)
    if (model.hook === 'none' && model.int === 'number') {
      freshCheck(packMessage(v), [out.value])
    }
    stats.checked++
  }

  /** A batch of RECORDs (or any messages): the bytes and the outcome of each message. */
  function genBatch (records, canBeBad, bigChunks) {
    const n = 1 + int(6)
    const parts = []
    const msgs = []
    let offset = 0
    for (let i = 0; i < n; i++) {
      const bad = canBeBad && r() < 0.15
      const fields = [genTop(bad), gen(1)]
      const msg = records || r() < 0.5 ? new Structure(0x71, [fields]) : new Structure(0x70, [{ [key()]: genTop(bad) }])
      let body = Buffer.from(pack(msg))
      let at
      if (bad) ({ bytes: body, at } = spoil(body))
      // Small chunks too, except under maxChunks: 3 (every message then fits one chunk).
      const framed = frame(body, bigChunks || r() < 0.5 ? 65535 : 7 + int(100))
      parts.push(framed)
      msgs.push({ msg, bad, at, offset })
      offset += framed.length
    }
    return { bytes: Buffer.concat(parts), msgs }
  }

  function expectedMessage (m, model, records) {
    if (m.bad) return { kind: 'reserved_marker', offset: m.at }
    if (records && m.msg.signature === 0x71) return outcome(m.msg.fields[0], model)
    return outcome(m.msg, model)
  }

  function opBatch () {
    const records = r() < 0.6
    const { opts, model } = optionsFor()
    const { bytes, msgs } = genBatch(records, true, opts.maxChunks !== undefined)
    const decodeBatch = records ? decodeRecords : decodeMessages
    const call = () => decodeBatch(bytes, opts)
    const tail = int(8)
    if (tail === 0) {
      // A stray byte after the batch: truncated, and nothing of the batch may stay.
      return failsAs(() => decodeBatch(Buffer.concat([bytes, Buffer.from([0])]), opts), { kind: 'truncated' })
    }
    if (tail === 1 && opts.maxChunks === 3) {
      const body = pack(new Structure(0x71, [['abcdef', 1.5]]))
      const four = Buffer.concat([0, 2, 4, 6].map((s, i, a) => {
        const piece = body.subarray(s, i === a.length - 1 ? body.length : a[i + 1])
        return Buffer.concat([Buffer.from([0, piece.length]), piece])
      }).concat([Buffer.from([0, 0])]))
      return failsAs(() => decodeBatch(Buffer.concat([bytes, four]), opts), { kind: 'too_many_chunks' })
    }
    const outs = msgs.map((m) => expectedMessage(m, model, records))
    // The batch fails at the first failed message, whichever way it fails; else all come.
    const first = outs.find((o) => o.kind !== undefined || o.poison)
    if (first) return failsAs(call, first)
    same(call(), outs.map((o) => o.value))
    stats.checked++
  }

  // Streams: each has its options, the bytes not yet pushed, and the expected outcomes of
  // the messages in order; `ready` counts the pushed ones.
  const streams = Array.from({ length: 3 }, () => newStream())
  function newStream () {
    const { opts, model } = optionsFor()
    const records = r() < 0.5
    const bigChunks = opts.maxChunks !== undefined
    return { d: new Dechunker({ ...opts, records }), model, records, bigChunks, unsent: [], ends: [], queue: [], sent: 0, total: 0, ready: 0 }
  }

  function opStreamFeed (s) {
    const { bytes, msgs } = genBatch(false, true, s.bigChunks)
    s.unsent.push(bytes)
    for (const m of msgs) {
      s.ends.push(s.total + m.offset + frameLength(bytes, m.offset))
      s.queue.push(expectedMessage(m, s.model, s.records))
    }
    s.total += bytes.length
  }

  function frameLength (bytes, at) {
    let q = at
    for (;;) {
      const n = bytes.readUInt16BE(q)
      q += 2 + n
      if (n === 0) return q - at
    }
  }

  function opStreamPush (s, useMessages) {
    const all = Buffer.concat(s.unsent)
    const n = all.length === 0 ? 0 : 1 + int(all.length)
    const piece = all.subarray(0, n)
    s.unsent = [all.subarray(n)]
    s.sent += n
    let complete = 0
    while (complete < s.ends.length && s.ends[complete] <= s.sent) complete++
    if (!useMessages) {
      const ready = s.d.push(piece)
      s.ready = complete
      assert.equal(ready, s.ready, 'ready messages after push')
      return
    }
    s.ready = complete
    // `messages`: every ready message, or the first failure (the ones before it are lost).
    const outs = s.queue.slice(0, s.ready)
    const fail = outs.findIndex((o) => o.kind !== undefined || o.poison)
    if (fail < 0) {
      same(s.d.messages(piece), outs.map((o) => o.value))
      drop(s, outs.length)
      stats.checked++
    } else {
      failsAs(() => s.d.messages(piece), outs[fail])
      drop(s, fail + 1)
    }
  }

  function drop (s, n) {
    s.queue.splice(0, n)
    s.ends.splice(0, n)
    s.ready -= n
  }

  function opStreamNext (s) {
    if (s.ready === 0) {
      assert.equal(s.d.next(), undefined)
      return
    }
    const o = s.queue[0]
    if (o.kind !== undefined || o.poison) failsAs(() => s.d.next(), o)
    else {
      same(s.d.next(), o.value)
      stats.checked++
    }
    drop(s, 1)
  }

  // Async batches, left running while other operations go on.
  const running = []
  function opAsync () {
    const { opts, model } = optionsFor()
    const { bytes, msgs } = genBatch(true, true, opts.maxChunks !== undefined)
    const outs = msgs.map((m) => expectedMessage(m, model, true))
    const first = outs.find((o) => o.kind !== undefined || o.poison)
    stats.asyncBatches++
    running.push(decodeRecordsAsync(bytes, opts).then(
      (rows) => {
        if (first) assert.fail(`async batch: expected ${JSON.stringify(first)}, got rows`)
        same(rows, outs.map((o) => o.value))
        stats.checked++
      },
      (e) => {
        if (!first) throw e
        failsAs(() => { throw e }, first)
      }
    ))
  }

  // Client connections (issue 17), logged in against a scripted server: RUN and PULL, then
  // a batch of RECORDs (good, spoiled, or tripping the throwing hook) and the summary fed
  // in random pieces. The rows must be the batch's, up to a spoiled message, which fails
  // the connection with that message's error (a new connection replaces it); a hook's
  // exception leaves out its row and the connection goes on.
  const conns = Array.from({ length: 2 }, () => newConn())
  function newConn () {
    const { opts, model } = optionsFor()
    const c = new bc.ClientConnection({ ...opts, versions: ['5.8'], manifest: false })
    const server = new bc.ServerHandshake({ versions: ['5.8'], manifest: false })
    c.receive(server.receive(c.takeOutput()).send)
    c.send(bc.requests.hello({ userAgent: 'interleave/1' })).send(bc.requests.logon({ scheme: 'none' }))
    c.takeOutput()
    c.receive(Buffer.concat([packMessage(new Structure(0x70, [{}])), packMessage(new Structure(0x70, [{}]))]))
    assert.equal(c.state, 'READY')
    return { c, model, bigChunks: opts.maxChunks !== undefined }
  }

  function opConnection () {
    const at = int(conns.length)
    const k = conns[at]
    stats.connections++
    const { bytes, msgs } = genBatch(true, true, k.bigChunks)
    k.c.send(bc.requests.run('RETURN 1')).send(bc.requests.pull(-1))
    k.c.takeOutput()
    const all = Buffer.concat([packMessage(new Structure(0x70, [{ fields: ['a', 'b'] }])), bytes,
      packMessage(new Structure(0x70, [{ type: 'r' }]))])
    const outs = msgs.map((m) => expectedMessage(m, k.model, true))
    const bad = outs.findIndex((o) => o.kind !== undefined)
    const want = (bad < 0 ? outs : outs.slice(0, bad)).filter((o) => !o.poison).map((o) => o.value)
    const rows = []
    const take = (events) => { for (const e of events) if (e.type === 'records') rows.push(...e.rows) }
    let failed = null
    for (let pos = 0; pos < all.length && failed === null;) {
      const n = 1 + int(all.length - pos)
      try {
        take(k.c.receive(all.subarray(pos, pos + n)))
      } catch (e) {
        if (e instanceof PoisonError) {
          take(e.events)
        } else {
          failed = e
          if (!(e instanceof bc.ConnectionError)) throw e
          take(e.events)
        }
      }
      pos += n
    }
    same(rows, want)
    if (bad >= 0) {
      failsAs(() => { throw failed }, outs[bad])
      assert.equal(k.c.state, 'DEFUNCT')
      conns[at] = newConn()
    } else {
      if (failed !== null) throw failed
      assert.equal(k.c.state, 'READY')
      stats.checked++
    }
  }

  /** What a re-entrant hook does: a small good or bad call, checked. */
  function nestedOp () {
    switch (int(4)) {
      case 0: {
        const v = gen(2)
        same(unpack(pack(v)), expect(v, { int: 'number', hook: 'none' }))
        break
      }
      case 1: {
        const s = spoil(Buffer.from(pack([1.5, PLACEHOLDER])))
        failsAs(() => unpack(s.bytes), { kind: 'reserved_marker', offset: s.at })
        break
      }
      case 2: {
        const { bytes, msgs } = genBatch(true, true, false)
        const outs = msgs.map((m) => expectedMessage(m, { int: 'number', hook: 'none' }, true))
        const first = outs.find((o) => o.kind !== undefined)
        if (first) failsAs(() => decodeRecords(bytes), first)
        else same(decodeRecords(bytes), outs.map((o) => o.value))
        break
      }
      default:
        failsAs(() => decodeRecords(Buffer.concat([packMessage(new Structure(0x71, [[{ [key()]: 1.5 }]])), Buffer.from([0])])), { kind: 'truncated' })
    }
  }

  /**
   * `pack` of objects whose getters answer differently at each read (and may pack and
   * unpack re-entrantly), `Map`s whose iterator does too, and a dehydrate hook that may
   * throw: what comes back must be what the first (and only) read gave.
   */
  function opPack () {
    const throwing = r() < 0.2
    let poisoned = false
    function flaky (d) {
      const v = gen(d)
      if (v === null || typeof v !== 'object' || v instanceof Uint8Array || v instanceof Structure) return { value: v, first: v }
      if (Array.isArray(v)) {
        const items = v.map(() => flaky(d + 1))
        return { value: items.map((x) => x.value), first: items.map((x) => x.first) }
      }
      const first = {}
      const o = {}
      const asMap = r() < 0.3
      const entries = Object.keys(v).map((k) => [k, flaky(d + 1)])
      for (const [k, x] of entries) {
        let reads = 0
        if (asMap) continue
        Object.defineProperty(o, k, {
          enumerable: true,
          get: () => {
            if (reads++ > 0) return r() < 0.5 ? undefined : 'changed'
            if (r() < 0.1) {
              // A getter that packs and unpacks re-entrantly.
              const inner = gen(3)
              same(unpack(pack(inner)), expect(inner, { int: 'number', hook: 'none' }))
            }
            return x.value
          }
        })
        if (x.first !== undefined) first[k] = x.first
      }
      if (asMap) {
        let calls = 0
        const m = new (class extends Map {
          * [Symbol.iterator] () {
            if (calls++ > 0) yield ['changed', 1.5]
            for (const [k, x] of entries) yield [k, x.value]
          }
        })()
        for (const [k, x] of entries) if (x.first !== undefined) first[k] = x.first
        return { value: m, first }
      }
      return { value: o, first }
    }
    const { value, first } = flaky(0)
    const opts = throwing
      ? {
          dehydrate: (x) => {
            if (r() < 0.05) {
              poisoned = true
              throw new PoisonError('dehydrate')
            }
            return x
          }
        }
      : undefined
    let bytes
    try {
      bytes = Buffer.from(pack(value, opts))
    } catch (e) {
      if (!(e instanceof PoisonError) || !poisoned) throw e
      stats.hookThrows++
      stats.badChecked++
      return
    }
    same(unpack(bytes), expect(first, { int: 'number', hook: 'none' }))
    stats.checked++
  }

  const savedSlices = { ...decode.asyncSlices }
  decode.asyncSlices.ms = 0
  decode.asyncSlices.messages = 1
  try {
    for (let i = 0; i < ops; i++) {
      stats.ops++
      const op = int(100)
      if (op < 25) opUnpack()
      else if (op < 45) opBatch()
      else if (op < 55) opStreamFeed(pick(streams))
      else if (op < 68) opStreamPush(pick(streams), r() < 0.3)
      else if (op < 88) opStreamNext(pick(streams))
      else if (op < 91) opAsync()
      else if (op < 93) opPack()
      else if (op < 95) opConnection()
      else if (op < 98) await new Promise(setImmediate)
      else {
        // Replace a stream (its unread messages go with it).
        const at = int(streams.length)
        streams[at] = newStream()
      }
      if (running.length > 64) await Promise.all(running.splice(0))
      if (log !== null && (i + 1) % 100000 === 0) log(`${i + 1} operations: ${JSON.stringify(stats)}`)
    }
    await Promise.all(running.splice(0))
  } finally {
    Object.assign(decode.asyncSlices, savedSlices)
  }
  return stats
}

module.exports = { runInterleaved }
