'use strict'
// Decoding: the native side parses and validates the bytes into a "tape" (see
// src/tape.rs for its format); the routine here rebuilds the JS values from it in one pass.
// Strings come from one latin1 and one UTF-8 blob per call (one native-to-JS string
// conversion each) as substrings; map keys are interned natively and kept here as strings.

const { NativeCodec, decodeFramesAsync } = require('../native.js')
const { Structure, Uuid, BoltcodecError } = require('./types.js')

// Tape word types: keep in step with src/tape.rs.
const T_INT = 0
const T_FLOAT = 1
const T_LATIN1 = 2
const T_UTF16 = 3
const T_LIST = 4
const T_MAP = 5
const T_STRUCT = 6
const T_CONST = 7
const T_INT64 = 8
const T_BYTES = 9
const T_UUID = 10
const T_KEY = 11
const T_ERROR = 12
const LONG = 0xfffffff

const INT_NUMBER = 0
const INT_BIGINT = 1
const INT_INTEGER = 2

const MIN_OUT = 1 << 16

/** A JS-owned buffer the native side copies a tape into, with its typed views. */
class TapeBuffer {
  constructor (size) {
    this.busy = false
    this.alloc(size)
  }

  alloc (size) {
    const ab = new ArrayBuffer(size)
    this.buf = Buffer.from(ab)
    this.w = new Int32Array(ab)
    this.f = new Float64Array(ab)
  }

  /** Makes room for `size` bytes (at least doubling). */
  grow (size) {
    this.alloc(Math.max(size, this.buf.length * 2))
  }

  /** A tape handed over whole (from the thread pool), made 8-byte aligned if needed. */
  static wrap (buf) {
    const t = Object.create(TapeBuffer.prototype)
    t.busy = false
    if (buf.byteOffset % 8 !== 0) {
      const copy = new TapeBuffer(buf.length)
      buf.copy(copy.buf)
      return copy
    }
    t.buf = buf
    t.w = new Int32Array(buf.buffer, buf.byteOffset, buf.length >> 2)
    t.f = new Float64Array(buf.buffer, buf.byteOffset, buf.length >> 3)
    return t
  }
}

// ---------------------------------------------------------------------------------------
// Conversion options
// ---------------------------------------------------------------------------------------

let integerModule = null
function driverCore () {
  if (integerModule === null) {
    try {
      integerModule = require('neo4j-driver-core')
    } catch (e) {
      throw new Error("boltcodec: option int: 'integer' needs the neo4j-driver-core package", { cause: e })
    }
  }
  return integerModule
}

/**
 * Resolved conversion settings: how tape values become JS values.
 * @typedef {object} Conv
 * @property {number} int
 * @property {((signature: number, fields: unknown[]) => unknown) | null} hydrate
 * @property {((bytes: Uint8Array) => unknown) | null} uuid
 * @property {boolean} int8
 * @property {Function | null} intFn
 * @property {Function | null} Integer
 */

/** @returns {Conv} */
function makeConv (options) {
  const o = options || {}
  let int = INT_NUMBER
  let intFn = null
  let Integer = null
  switch (o.int === undefined ? 'number' : o.int) {
    case 'number': break
    case 'bigint': int = INT_BIGINT; break
    case 'integer': {
      int = INT_INTEGER
      const core = driverCore()
      intFn = core.int
      Integer = core.Integer
      break
    }
    default: throw new TypeError(`boltcodec: option int must be 'number', 'bigint' or 'integer', got ${o.int}`)
  }
  const bytes = o.bytes === undefined ? 'uint8' : o.bytes
  if (bytes !== 'uint8' && bytes !== 'int8') {
    throw new TypeError(`boltcodec: option bytes must be 'uint8' or 'int8', got ${o.bytes}`)
  }
  return {
    int,
    hydrate: typeof o.hydrate === 'function' ? o.hydrate : null,
    uuid: typeof o.createUuid === 'function' ? o.createUuid : null,
    int8: bytes === 'int8',
    intFn,
    Integer
  }
}

const NATIVE_KEYS = ['uuid', 'legacyStructs', 'maxDepth', 'maxStringLen', 'maxBytesLen',
  'maxContainerLen', 'maxTotalElements', 'maxMessageSize', 'maxChunks']

function nativeOptions (options) {
  const n = {}
  if (options) {
    for (const k of NATIVE_KEYS) if (options[k] !== undefined) n[k] = options[k]
  }
  return n
}

function hasNativeOptions (options) {
  if (!options) return false
  for (const k of NATIVE_KEYS) if (options[k] !== undefined) return true
  return false
}

// ---------------------------------------------------------------------------------------
// The reader: module-level state, so that the hot loop reads plain variables.
// ---------------------------------------------------------------------------------------

let W = new Int32Array(0) // tape words
let F = new Float64Array(0) // floats
let B = Buffer.alloc(0) // the whole tape buffer (bytes, UUIDs)
let L = '' // all ASCII strings of the call
let U = '' // all other strings of the call
let K = [] // interned keys
let C = makeConv() // conversions
let intMode = INT_NUMBER // C.int
let p = 0 // next word
let fp = 0 // next float
let lp = 0 // next char of L
let up = 0 // next char of U
let bp = 0 // next byte of B
let depth = 0
const saved = []
// The StreamDecoder whose tape the reader is on, if any: its cursors live in the variables
// above until another tape is loaded (`takeOver` saves them then), so reading one message
// after another costs no state copying.
let owner = null

function enter () {
  if (depth++ > 0) saved.push([W, F, B, L, U, K, C, p, fp, lp, up, bp, owner])
}

function leave () {
  if (--depth > 0) {
    const s = saved.pop()
    W = s[0]; F = s[1]; B = s[2]; L = s[3]; U = s[4]; K = s[5]; C = s[6]; intMode = C.int
    p = s[7]; fp = s[8]; lp = s[9]; up = s[10]; bp = s[11]; owner = s[12]
  }
}

/** Saves the cursors of the stream the reader is on, before the reader is reused. */
function takeOver () {
  if (owner !== null) {
    cursors(owner.st)
    owner = null
  }
}

/** Points the reader at a freshly written tape; registers its new keys in `keys`. */
function load (tb, keys, conv) {
  takeOver()
  const w = tb.w
  W = w; F = tb.f; B = tb.buf; C = conv; K = keys; intMode = conv.int
  p = w[2]; fp = w[4]; lp = 0; up = 0; bp = w[10]
  L = w[7] > 0 ? B.latin1Slice(w[6], w[6] + w[7]) : ''
  U = w[9] > 0 ? B.utf8Slice(w[8], w[8] + w[9]) : ''
  const n = w[13]
  if (n > 0) {
    const s = B.utf8Slice(w[14], w[14] + w[15])
    const at = w[12]
    let o = 0
    for (let i = 0; i < n; i++) keys.push(s.substring(o, (o += w[at + i])))
  }
}

/** Saves the reader's cursors (for a tape read in several steps). */
function cursors (st) {
  st.W = W; st.F = F; st.B = B; st.L = L; st.U = U; st.K = K; st.C = C
  st.p = p; st.fp = fp; st.lp = lp; st.up = up; st.bp = bp
}

function resume (st) {
  W = st.W; F = st.F; B = st.B; L = st.L; U = st.U; K = st.K; C = st.C; intMode = C.int
  p = st.p; fp = st.fp; lp = st.lp; up = st.up; bp = st.bp
}

function smallInt (v) {
  return intMode === INT_BIGINT ? BigInt(v) : C.intFn(v)
}

function int64 (hi, lo) {
  switch (intMode) {
    case INT_NUMBER:
      // As neo4j-driver's Integer#toNumberOrInfinity: outside ±(2^53 - 1) is ±Infinity.
      if (hi > 0x1fffff) return Infinity
      if (hi < -0x200000) return -Infinity
      {
        const v = hi * 4294967296 + (lo >>> 0)
        return v < -9007199254740991 ? -Infinity : v
      }
    case INT_BIGINT:
      return (BigInt(hi) << 32n) | BigInt(lo >>> 0)
    default:
      return new C.Integer(lo, hi)
  }
}

function readBytes (n) {
  const start = B.byteOffset + bp
  bp += n
  const copy = B.buffer.slice(start, start + n)
  return C.int8 ? new Int8Array(copy) : new Uint8Array(copy)
}

function readValue () {
  const w = W[p++]
  switch (w & 15) {
    case T_INT:
      return intMode === INT_NUMBER ? w >> 4 : smallInt(w >> 4)
    case T_FLOAT:
      return F[fp++]
    case T_LATIN1: {
      let n = w >>> 4
      if (n === LONG) n = W[p++]
      return L.substring(lp, (lp += n))
    }
    case T_UTF16: {
      let n = w >>> 4
      if (n === LONG) n = W[p++]
      return U.substring(up, (up += n))
    }
    case T_LIST: {
      let n = w >>> 4
      if (n === LONG) n = W[p++]
      const a = new Array(n)
      for (let i = 0; i < n; i++) {
        // The common scalars inline; anything else through the general path.
        const x = W[p]
        switch (x & 15) {
          case T_INT:
            if (intMode !== INT_NUMBER) break
            p++
            a[i] = x >> 4
            continue
          case T_FLOAT:
            p++
            a[i] = F[fp++]
            continue
          case T_LATIN1:
            if ((x >>> 4) === LONG) break
            p++
            a[i] = L.substring(lp, (lp += x >>> 4))
            continue
        }
        a[i] = readValue()
      }
      return a
    }
    case T_MAP:
      return readMap(w)
    case T_STRUCT:
      return readStruct(w)
    case T_CONST:
      return w === T_CONST ? null : w === (T_CONST | 32)
    case T_INT64: {
      const hi = W[p++]
      return int64(hi, W[p++])
    }
    case T_BYTES: {
      let n = w >>> 4
      if (n === LONG) n = W[p++]
      return readBytes(n)
    }
    case T_UUID: {
      const start = B.byteOffset + bp
      bp += 16
      const bytes = new Uint8Array(B.buffer.slice(start, start + 16))
      return C.uuid === null ? new Uuid(bytes) : C.uuid(bytes)
    }
    default:
      throw new Error(`boltcodec: corrupt tape (word ${w} at ${p - 1})`)
  }
}

function readMap (w) {
  let n = w >>> 4
  if (n === LONG) n = W[p++]
  const o = {}
  for (let i = 0; i < n; i++) {
    const kw = W[p++]
    let k
    const t = kw & 15
    if (t === T_KEY) {
      k = K[kw >>> 4]
    } else {
      let m = kw >>> 4
      if (m === LONG) m = W[p++]
      k = t === T_LATIN1 ? L.substring(lp, (lp += m)) : U.substring(up, (up += m))
    }
    const v = readValue()
    if (k === '__proto__') {
      Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true })
    } else {
      o[k] = v
    }
  }
  return o
}

function readStruct (w) {
  const signature = (w >>> 4) & 0xff
  const n = w >>> 12
  const fields = new Array(n)
  for (let i = 0; i < n; i++) fields[i] = readValue()
  return C.hydrate === null ? new Structure(signature, fields) : C.hydrate(signature, fields)
}

/**
 * Reads the next message of the tape; a failed message throws its error (fetched with
 * `errorInfo`).
 */
function readMessage (errorInfo) {
  const w = W[p]
  if ((w & 15) === T_ERROR) {
    p += 2
    throw new BoltcodecError(errorInfo(w >>> 4))
  }
  return readValue()
}

// ---------------------------------------------------------------------------------------
// Codecs: a native codec, its key strings, its tape buffer and its conversions.
// ---------------------------------------------------------------------------------------

class Codec {
  constructor (options) {
    this.native = new NativeCodec(nativeOptions(options))
    this.keys = []
    this.tape = new TapeBuffer(MIN_OUT)
    this.conv = makeConv(options)
    this.errorInfo = (i) => this.native.errorInfo(i)
  }

  /** The tape buffer to use now: a temporary one when this codec's is being read. */
  claim () {
    return this.tape.busy ? new TapeBuffer(MIN_OUT) : this.tape
  }
}

function finishCall (codec, tb, n) {
  if (n < 0) {
    tb.grow(-n)
    codec.native.copyOut(tb.buf)
  }
}

function streamError (codec) {
  return new BoltcodecError(codec.native.streamError())
}

const defaultCodec = new Codec()
/** Codecs by their native options (as JSON), so that equal options share one. */
const codecs = new Map()
const MAX_CODECS = 64

const DEFAULT = { codec: defaultCodec, conv: defaultCodec.conv }
let lastOptions = null
let lastResolved = DEFAULT

/**
 * The codec and conversions for an options object. The last one is remembered, so a
 * caller that passes the same object each time pays nothing.
 */
function codecFor (options) {
  if (options === undefined || options === null) return DEFAULT
  if (options === lastOptions) return lastResolved
  let codec = defaultCodec
  if (hasNativeOptions(options)) {
    const key = JSON.stringify(nativeOptions(options))
    codec = codecs.get(key)
    if (codec === undefined) {
      if (codecs.size >= MAX_CODECS) codecs.delete(codecs.keys().next().value)
      codec = new Codec(options)
      codecs.set(key, codec)
    }
  }
  lastOptions = options
  lastResolved = { codec, conv: makeConv(options) }
  return lastResolved
}

function checkInput (input) {
  if (!ArrayBuffer.isView(input)) {
    if (input instanceof ArrayBuffer) return Buffer.from(input)
    throw new TypeError('boltcodec: expected a Buffer or Uint8Array')
  }
  return input
}

function unpack (input, options) {
  input = checkInput(input)
  const { codec, conv } = codecFor(options)
  const tb = codec.claim()
  finishCall(codec, tb, codec.native.decodeValue(input, tb.buf))
  enter()
  tb.busy = true
  try {
    load(tb, codec.keys, conv)
    return readMessage(codec.errorInfo)
  } finally {
    tb.busy = false
    leave()
  }
}

function decodeFrames (input, options, records) {
  input = checkInput(input)
  const { codec, conv } = codecFor(options)
  const tb = codec.claim()
  finishCall(codec, tb, codec.native.decodeFrames(input, tb.buf, records))
  if (tb.w[0] !== 0) throw streamError(codec)
  enter()
  tb.busy = true
  try {
    load(tb, codec.keys, conv)
    const n = tb.w[1]
    const out = new Array(n)
    const errorInfo = codec.errorInfo
    for (let i = 0; i < n; i++) out[i] = (W[p] & 15) === T_ERROR ? readMessage(errorInfo) : readValue()
    return out
  } finally {
    tb.busy = false
    leave()
  }
}

/** How long one step of an asynchronous rebuild may keep the event loop, in ms. */
const ASYNC_SLICE_MS = 4

async function decodeFramesAsyncJs (input, options, records) {
  input = checkInput(input)
  const conv = options === undefined || options === null ? defaultCodec.conv : makeConv(options)
  const res = await decodeFramesAsync(input, records, nativeOptions(options))
  if (res.streamError) throw new BoltcodecError(res.streamError)
  const tb = TapeBuffer.wrap(res.out)
  const errorInfo = (i) => res.errors[i]
  const n = tb.w[1]
  const out = new Array(n)
  const st = {}
  let i = 0
  enter()
  try {
    load(tb, [], conv)
    cursors(st)
  } finally {
    leave()
  }
  while (i < n) {
    const until = Date.now() + ASYNC_SLICE_MS
    enter()
    try {
      resume(st)
      do {
        const end = Math.min(n, i + 256)
        for (; i < end; i++) out[i] = readMessage(errorInfo)
      } while (i < n && Date.now() < until)
      cursors(st)
    } finally {
      leave()
    }
    if (i < n) await new Promise(setImmediate)
  }
  return out
}

/**
 * Push parser for a Bolt byte stream: see `Dechunker` in index.js for the public API.
 * Messages are decoded natively at `push` and rebuilt as JS values one by one at `next`.
 *
 * Every message, and a framing error, takes one slot: `next` gives slot `served`;
 * slots up to `available` are ready. Slots are numbered over the stream's life, so a
 * reader can ask for a given slot (`readAt`), as the neo4j-driver adapter does.
 */
class StreamDecoder {
  constructor (options) {
    this.codec = new Codec(options)
    this.records = Boolean(options && options.records)
    this.count = 0 // messages on the tape
    this.read = 0 // of which rebuilt
    this.served = 0 // slots given out by `next`
    this.available = 0 // slots ready
    this.pending = [] // decoded early (see `drain`): {value} or {error}
    this.error = null // the framing error, not yet thrown
    this.st = {}
  }

  push (input) {
    input = checkInput(input)
    if (this.read < this.count) this.drain()
    const codec = this.codec
    if (codec.tape.busy) throw new Error('boltcodec: Dechunker.push called while one of its messages is being decoded')
    const tb = codec.tape
    finishCall(codec, tb, codec.native.push(input, tb.buf, this.records))
    enter()
    try {
      load(tb, codec.keys, codec.conv)
      cursors(this.st)
      if (depth === 1) owner = this
    } finally {
      leave()
    }
    this.count = tb.w[1]
    this.read = 0
    this.available += this.count
    if (tb.w[0] !== 0 && this.error === null) {
      this.error = streamError(codec)
      this.available++
    }
    return this.available - this.served
  }

  /** Rebuilds the unread messages now, before the next push overwrites the tape. */
  drain () {
    const queue = []
    while (this.read < this.count) {
      try {
        queue.push({ value: this.rebuild(null) })
      } catch (error) {
        queue.push({ error })
      }
    }
    this.pending.push(...queue)
  }

  /** Whether `next` has a message (or an error) to give. */
  hasNext () {
    return this.served < this.available
  }

  next (conv) {
    if (this.served >= this.available) return undefined
    this.served++
    if (this.pending.length > 0) {
      const m = this.pending.shift()
      if (m.error) throw m.error
      return m.value
    }
    if (this.read < this.count) return this.rebuild(conv)
    const e = this.error
    this.error = null
    throw e
  }

  /** The message of slot `index`, skipping unread earlier ones. */
  readAt (index, conv) {
    if (index < this.served) throw new Error(`boltcodec: message ${index} was already read`)
    while (this.served < index) {
      try {
        this.next(conv)
      } catch (e) {}
    }
    return this.next(conv)
  }

  /** Rebuilds the next message of the tape. */
  rebuild (conv) {
    const tb = this.codec.tape
    if (tb.busy) throw new Error('boltcodec: a Dechunker message was read from inside a hook of the same Dechunker')
    enter()
    tb.busy = true
    try {
      if (owner !== this) {
        takeOver()
        resume(this.st)
        owner = this
      }
      C = conv || this.codec.conv
      intMode = C.int
      this.read++
      return readMessage(this.codec.errorInfo)
    } finally {
      tb.busy = false
      if (depth > 1) {
        // A hook is decoding: the outer reader's state comes back at `leave`.
        cursors(this.st)
        owner = null
      }
      leave()
    }
  }

  /** Every ready message, rebuilt in one go; throws at the first that failed. */
  takeAll () {
    const out = []
    while (this.served < this.available && this.pending.length > 0) out.push(this.next())
    const n = this.count - this.read
    if (n > 0) {
      const tb = this.codec.tape
      if (tb.busy) throw new Error('boltcodec: a Dechunker message was read from inside a hook of the same Dechunker')
      enter()
      tb.busy = true
      try {
        if (owner !== this) {
          takeOver()
          resume(this.st)
          owner = this
        }
        C = this.codec.conv
        intMode = C.int
        for (let i = 0; i < n; i++) {
          this.read++
          this.served++
          out.push(readMessage(this.codec.errorInfo))
        }
      } finally {
        tb.busy = false
        if (depth > 1) {
          cursors(this.st)
          owner = null
        }
        leave()
      }
    }
    while (this.served < this.available) out.push(this.next())
    return out
  }

  end () {
    const e = this.codec.native.endOfStream()
    if (e) throw new BoltcodecError(e)
  }

  reset () {
    this.codec.native.reset()
    this.count = 0
    this.read = 0
    this.served = 0
    this.available = 0
    this.pending = []
    this.error = null
  }
}

module.exports = {
  unpack,
  decodeFrames,
  decodeFramesAsync: decodeFramesAsyncJs,
  StreamDecoder,
  makeConv
}

