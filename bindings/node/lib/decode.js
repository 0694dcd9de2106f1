'use strict'
// Decoding: the native side parses and validates the bytes into a "tape" (see
// src/tape.rs for its format); the routine here rebuilds the JS values from it in one pass.
// Strings come from one latin1 and one UTF-8 blob per call, cut into segments of under
// 128 KiB (one native-to-JS string conversion each; `T_SEG` words say where the next
// segment starts), as substrings; map keys are interned natively and kept here as strings.

const native = require('../native.js')
const { decodeFramesAsync } = native
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
const T_FLAT = 13
const T_SEG = 14
const LONG = 0xfffffff


const INT_NUMBER = 0
const INT_BIGINT = 1
const INT_INTEGER = 2

const MIN_OUT = 1 << 16
/** Largest tape buffer kept between calls: after a larger call it is given back. */
const KEEP_OUT = 4 << 20
/**
 * Nesting the recursive rebuild goes to; deeper values are rebuilt by an iterative loop
 * (`readDeep`), so that no input depth (`maxDepth` can be raised to any value) and no
 * thread stack size (a worker with a small stack) can overflow the JS stack.
 */
const MAX_NEST = 64

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

  /** Gives back the memory of a buffer grown above `KEEP_OUT` by a large call. */
  release () {
    if (this.buf.length > KEEP_OUT) this.alloc(MIN_OUT)
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
// Conversion options: read at every call (nothing is cached by object identity).
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
 * @property {Function | null} Integer
 * @property {boolean} retained whether the lists come from the retained
 *   allocation sites (option `retained`: see `newArray`)
 */

/** @returns {Conv} */
function makeConv (options) {
  if (options === undefined || options === null) return DEFAULT_CONV
  const o = options
  const oint = o.int
  const obytes = o.bytes
  const hydrate = o.hydrate
  const createUuid = o.createUuid
  let int = INT_NUMBER
  let Integer = null
  switch (oint === undefined ? 'number' : oint) {
    case 'number': break
    case 'bigint': int = INT_BIGINT; break
    case 'integer': {
      int = INT_INTEGER
      // The drop-in passes the driver's own neo4j-driver-core (`driverCore`), so that
      // Integers are of the class the driver's release uses.
      const core = o.driverCore !== undefined ? o.driverCore : driverCore()
      Integer = core.Integer
      break
    }
    default: throw new TypeError(`boltcodec: option int must be 'number', 'bigint' or 'integer', got ${oint}`)
  }
  const bytes = obytes === undefined ? 'uint8' : obytes
  if (bytes !== 'uint8' && bytes !== 'int8') {
    throw new TypeError(`boltcodec: option bytes must be 'uint8' or 'int8', got ${obytes}`)
  }
  return {
    int,
    hydrate: typeof hydrate === 'function' ? hydrate : null,
    uuid: typeof createUuid === 'function' ? createUuid : null,
    int8: bytes === 'int8',
    Integer,
    retained: o.retained === true
  }
}

/** @type {Conv} */
const DEFAULT_CONV = { int: INT_NUMBER, hydrate: null, uuid: null, int8: false, Integer: null, retained: false }

const NATIVE_KEYS = ['uuid', 'legacyStructs', 'maxDepth', 'maxStringLen', 'maxBytesLen',
  'maxContainerLen', 'maxTotalElements', 'maxMessageSize', 'maxChunks']

/**
 * The native options of an options object (each property read once), and a string that
 * identifies them (`''` when there are none: the default codec).
 */
function nativeOptions (options) {
  const opts = {}
  let key = ''
  if (options !== undefined && options !== null) {
    for (let i = 0; i < NATIVE_KEYS.length; i++) {
      const k = NATIVE_KEYS[i]
      const v = options[k]
      if (v !== undefined) {
        opts[k] = v
        key += `${k}:${typeof v}:${String(v)};`
      }
    }
  }
  return { opts, key }
}

// ---------------------------------------------------------------------------------------
// The reader. Its registers are module variables, so that the hot loop reads plain
// variables; each call or stream owns a `Reader` (its tape and cursors) and loads it into
// the registers for as long as it reads. Nothing of one call is left in the registers
// for another: a call loads its own reader on entry, and `enter`/`leave` save and restore
// the registers of the call a hook interrupted.
//
// The registers are `var`s, not `let`s: V8 checks a `let` read from another function for
// its temporal dead zone (a compare and branch on every read of `p`, `W`, … in the rebuild
// functions), and a `var` has none. Measured in alternating rounds in one process (two
// copies of this file): 4–9 % off decodeRecords and the Dechunker on records 10000×3,
// the list workloads unchanged (±1 %).
// ---------------------------------------------------------------------------------------

const NO_WORDS = new Int32Array(0)
const NO_FLOATS = new Float64Array(0)
const NO_BYTES = Buffer.alloc(0)
const NO_ERRORS = []

var W = NO_WORDS // tape words
var F = NO_FLOATS // floats
var B = NO_BYTES // the whole tape buffer (bytes, UUIDs)
var L = '' // all ASCII strings of the tape
var U = '' // all other strings of the tape
var K = [] // interned keys
var C = DEFAULT_CONV // conversions
var E = NO_ERRORS // errors of the tape's failed messages
var intMode = INT_NUMBER // C.int
var retained = false // C.retained
var rows = false // the tape's top-level lists are RECORDs' values (see `readRow`)
var p = 0 // next word
var fp = 0 // next float
var lp = 0 // next char of L
var up = 0 // next char of U
var bp = 0 // next byte of B
var nest = 0 // containers open in the recursive rebuild
var depth = 0 // calls under way (a hook's call is nested in the one that called the hook)
const saved = []

function enter () {
  if (depth++ > 0) saved.push([W, F, B, L, U, K, C, E, p, fp, lp, up, bp, nest, rows])
}

function leave () {
  if (--depth > 0) {
    const s = saved.pop()
    W = s[0]; F = s[1]; B = s[2]; L = s[3]; U = s[4]; K = s[5]; C = s[6]; E = s[7]; intMode = C.int; retained = C.retained
    p = s[8]; fp = s[9]; lp = s[10]; up = s[11]; bp = s[12]; nest = s[13]; rows = s[14]
  } else {
    // Keep nothing of the last call alive.
    W = NO_WORDS; F = NO_FLOATS; B = NO_BYTES; L = ''; U = ''; K = []; C = DEFAULT_CONV; E = NO_ERRORS; retained = false; rows = false
  }
}

/**
 * A tape and the cursors of its reader.
 * @typedef {object} Reader
 * @property {Int32Array} W @property {Float64Array} F @property {Buffer} B
 * @property {string} L @property {string} U @property {string[]} K @property {Conv} C
 * @property {object[]} E @property {number} p @property {number} fp @property {number} lp
 * @property {number} up @property {number} bp
 * @property {boolean} R whether the tape's top-level lists are RECORDs' values (`readRow`)
 */

/**
 * A reader on a freshly written tape. Registers the tape's new keys in `keys` first
 * (taking back from `native` any key a failed call interned but never handed over), and
 * takes the tape's errors at once, so that nothing a later call does can change them.
 * `records`: the tape was written for RECORDs (a RECORD as its list of values).
 *
 * @returns {Reader}
 */
function openTape (tb, keys, conv, native, errors, records) {
  const w = tb.w
  const buf = tb.buf
  const n = w[13]
  if (keys.length !== w[17]) syncKeys(keys, native, w[17])
  if (n > 0) {
    const s = buf.utf8Slice(w[14], w[14] + w[15])
    const at = w[12]
    let o = 0
    for (let i = 0; i < n; i++) keys.push(s.substring(o, (o += w[at + i])))
  }
  if (errors === null) {
    const ne = w[16]
    errors = NO_ERRORS
    if (ne > 0) {
      errors = new Array(ne)
      for (let i = 0; i < ne; i++) errors[i] = native.errorInfo(i)
    }
  }
  return {
    W: w,
    F: tb.f,
    B: buf,
    // The first segment of each string area (`nextSegment` reads the others).
    L: w[7] > 0 ? buf.latin1Slice(w[6], w[6] + Math.min(w[7], w[19])) : '',
    U: w[9] > 0 ? buf.utf8Slice(w[8], w[8] + Math.min(w[9], w[20])) : '',
    K: keys,
    C: conv,
    E: errors,
    p: w[2],
    fp: w[4],
    lp: 0,
    up: 0,
    bp: w[10],
    R: records
  }
}

/** Brings the JS key list to the `base` keys the native table had before the call. */
function syncKeys (keys, native, base) {
  if (keys.length > base) {
    keys.length = base
  } else if (native !== null) {
    const missing = native.keyStrings(keys.length, base)
    for (let i = 0; i < missing.length; i++) keys.push(missing[i])
  }
  if (keys.length !== base) throw new Error(`boltcodec: key table out of step (${keys.length} keys, expected ${base})`)
}

/** Loads a reader into the registers. */
function useReader (r) {
  W = r.W; F = r.F; B = r.B; L = r.L; U = r.U; K = r.K; C = r.C; E = r.E; intMode = C.int; retained = C.retained
  p = r.p; fp = r.fp; lp = r.lp; up = r.up; bp = r.bp; nest = 0; rows = r.R
}

/** Saves the registers' cursors (and the string segments they are in) into their reader. */
function keepReader (r) {
  r.L = L; r.U = U
  r.p = p; r.fp = fp; r.lp = lp; r.up = up; r.bp = bp
}

/**
 * Moves to the next segment of a string area (its `T_SEG` word `w` just read): makes it
 * the string the next strings of that area are taken from.
 */
function nextSegment (w) {
  const start = W[p++]
  const size = W[p++]
  if (w === T_SEG) {
    const at = W[6] // (the header: where `latin1` starts in the buffer, and its length)
    L = B.latin1Slice(at + start, at + Math.min(start + size, W[7]))
    lp = 0
  } else {
    const at = W[8]
    U = B.utf8Slice(at + start, at + Math.min(start + size, W[9]))
    up = 0
  }
}

/**
 * An integer of the tape's 28-bit range in the bigint or Integer mode. The Integer is
 * built as `int64` builds one, as the driver's `int` (`Integer.fromNumber`) ends up
 * building it: a new Integer of the low 32 bits and the sign as the high ones (its
 * `fromNumber` negates a negative value's Integer through `not` and `add`, four objects
 * for one).
 */
function smallInt (v) {
  return intMode === INT_BIGINT ? BigInt(v) : new C.Integer(v, v >> 31)
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
    case T_FLAT:
      return readFlat(w)
    case T_LIST:
      return readList(w)
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
    case T_SEG:
      nextSegment(w)
      return readValue()
    default:
      throw new Error(`boltcodec: corrupt tape (word ${w} at ${p - 1})`)
  }
}

/**
 * An array of `n` (1 to 8) items to fill in, for the list readers of a caller that did
 * not ask for `retained`: `rowArray`'s `new Array(k)` sites (a constant `k`, allocated
 * inline by optimised code), whose first item is set to `null` before any item is read,
 * so that V8 never allocates them in the old generation (see `rowArray`).
 *
 * Why: V8 tracks where array literals are allocated, and once most of what one site
 * allocates outlives young-generation collections, allocates its arrays straight in the
 * old generation (allocation-site pretenuring). V8 decides for each site once, from the
 * first collections that see enough of its objects (in practice the arrays made by the
 * first, unoptimised calls), and keeps the decision. If a site's objects were alive then
 * (a value a caller held across a collection, or one call's lists while it ran) and are
 * dropped later, every later list of that site is still allocated in the old generation,
 * where the dropped ones wait for full collections: lists 1000×1 took 3× as long in
 * about one fresh process in 27 while its lists came from literals (regression:
 * lists_pretenured_for_a_caller_that_drops_them).
 *
 * A caller that keeps what it decodes (option `retained`: the drop-in, whose records the
 * driver's result keeps) gets `retainedArray` and the literals under `C.retained`, which
 * V8 may pretenure (right for values that are kept), so that neither set of sites decides
 * for the other (regression: one_allocation_site_for_kept_and_dropped_lists). Lists of
 * more than 8 items keep `new Array(n)` (a site V8 tracks only while every item it has
 * held is a small integer; it gives a list of floats unboxed).
 *
 * @example
 * const a = newArray(2) // [null, <empty>]
 * a[0] = 1; a[1] = 'x' // as [1, 'x'] to JS
 */
function newArray (n) {
  return rowArray(n)
}

/**
 * An array of `n` (1 to 8) items to fill in, for `C.retained` (see `newArray`), from
 * array literals: V8 allocates those inline, and pretenures a site whose lists are kept.
 */
function retainedArray (n) {
  const u = undefined
  switch (n) {
    case 1: return [u]
    case 2: return [u, u]
    case 3: return [u, u, u]
    case 4: return [u, u, u, u]
    case 5: return [u, u, u, u, u]
    case 6: return [u, u, u, u, u, u]
    case 7: return [u, u, u, u, u, u, u]
    case 8: return [u, u, u, u, u, u, u, u]
    default: return new Array(n) // (not called so)
  }
}

/**
 * A list (its word `w` just read). Lists of at least 4 items read the common scalars
 * with the tape cursors in locals (module variables cost a memory access each), and
 * hand the cursors back to the module variables around any other item: 7–11 % off the
 * whole unpack of the list workloads (benches/node/bench.js).
 */
function readList (w) {
  if (nest >= MAX_NEST) {
    p--
    return readDeep()
  }
  nest++
  let n = w >>> 4
  if (n === LONG) n = W[p++]
  const kept = retained
  if (n < 4) {
    // Short lists read item by item (`shortList`).
    const a = kept ? retainedShortList(n) : shortList(n)
    nest--
    return a
  }
  // (Each allocation twice: the sites under `kept` are the retained ones, see `newArray`.)
  const a = n <= 8 ? (kept ? retainedArray(n) : newArray(n)) : kept ? new Array(n) : new Array(n)
  // The common scalars inline, with the cursors in locals; anything else through the
  // general path, with the cursors handed back and forth.
  const w0 = W
  const f0 = F
  let l0 = L // (taken again after any item read by the general path: a `T_SEG` word moves `L` on)
  const numbers = intMode === INT_NUMBER
  let q = p
  let fq = fp
  let lq = lp
  for (let i = 0; i < n; i++) {
    const x = w0[q]
    switch (x & 15) {
      case T_INT:
        if (!numbers) break
        q++
        a[i] = x >> 4
        continue
      case T_FLOAT:
        q++
        a[i] = f0[fq++]
        continue
      case T_LATIN1:
        if ((x >>> 4) === LONG) break
        q++
        a[i] = l0.substring(lq, (lq += x >>> 4))
        continue
      case T_FLAT: {
        // A list of scalars, read here with the same local cursors: no call, no
        // recursion (a list of one-item lists costs no more than its items).
        const m = x >>> 4
        q++
        if (m === 1) {
          // A one-item list at once (1000 one-item lists are a benchmark workload): an
          // array literal under `kept`, else `oneItem` (see `newArray`).
          const y = w0[q]
          const t = y & 15
          if (t === T_INT && numbers) {
            q++
            const v = y >> 4
            a[i] = kept ? [v] : oneItem(v)
            continue
          }
          if (t === T_FLOAT) {
            q++
            const v = f0[fq++]
            a[i] = kept ? [v] : oneItem(v)
            continue
          }
        }
        const b = m <= 8 ? (kept ? retainedArray(m) : newArray(m)) : kept ? new Array(m) : new Array(m)
        for (let j = 0; j < m; j++) {
          const y = w0[q]
          const t = y & 15
          if (t === T_INT && numbers) {
            q++
            b[j] = y >> 4
          } else if (t === T_FLOAT) {
            q++
            b[j] = f0[fq++]
          } else if (t === T_LATIN1 && (y >>> 4) !== LONG) {
            q++
            b[j] = l0.substring(lq, (lq += y >>> 4))
          } else {
            p = q
            fp = fq
            lp = lq
            b[j] = readValue()
            q = p
            fq = fp
            lq = lp
            l0 = L
          }
        }
        a[i] = b
        continue
      }
      case T_LIST:
        p = q + 1
        fp = fq
        lp = lq
        a[i] = readList(x)
        q = p
        fq = fp
        lq = lp
        l0 = L
        continue
    }
    p = q
    fp = fq
    lp = lq
    a[i] = readValue()
    q = p
    fq = fp
    lq = lp
    l0 = L
  }
  p = q
  fp = fq
  lp = lq
  nest--
  return a
}

/**
 * A list of scalars (its `T_FLAT` word `w` just read): no nesting to track, and the
 * common scalars read with the tape cursors in locals.
 */
function readFlat (w) {
  const n = w >>> 4
  const kept = retained
  if (n < 4) return kept ? retainedShortList(n) : shortList(n)
  const a = n <= 8 ? (kept ? retainedArray(n) : newArray(n)) : kept ? new Array(n) : new Array(n)
  const w0 = W
  const f0 = F
  let l0 = L // (taken again after any item read by the general path: a `T_SEG` word moves `L` on)
  const numbers = intMode === INT_NUMBER
  let q = p
  let fq = fp
  let lq = lp
  for (let i = 0; i < n; i++) {
    const x = w0[q]
    switch (x & 15) {
      case T_INT:
        if (!numbers) break
        q++
        a[i] = x >> 4
        continue
      case T_FLOAT:
        q++
        a[i] = f0[fq++]
        continue
      case T_LATIN1:
        if ((x >>> 4) === LONG) break
        q++
        a[i] = l0.substring(lq, (lq += x >>> 4))
        continue
    }
    p = q
    fp = fq
    lp = lq
    a[i] = readValue()
    q = p
    fq = fp
    lq = lp
    l0 = L
  }
  p = q
  fp = fq
  lp = lq
  return a
}

/**
 * A list of `n` (0 to 3) items read with `readItem`, for a caller that did not ask for
 * `retained`: `new Array(k)` of a constant `k` (allocated inline by optimised code), its
 * first item set to `null` before any item is read, as `newArray` (an empty list is a
 * copy of an empty array, which has no allocation site).
 */
function shortList (n) {
  let a
  switch (n) {
    case 1:
      a = new Array(1)
      a[0] = null
      a[0] = readItem()
      return a
    case 2:
      a = new Array(2)
      a[0] = null
      a[0] = readItem()
      a[1] = readItem()
      return a
    case 3:
      a = new Array(3)
      a[0] = null
      a[0] = readItem()
      a[1] = readItem()
      a[2] = readItem()
      return a
    default:
      return NO_ITEMS.slice()
  }
}

/** A one-item list of `v`, for a caller that did not ask for `retained` (see `newArray`). */
function oneItem (v) {
  const a = new Array(1)
  a[0] = null
  a[0] = v
  return a
}

/** `shortList` for `retained`, from array literals (see `newArray`). */
function retainedShortList (n) {
  if (n === 1) return [readItem()]
  if (n === 2) return [readItem(), readItem()]
  if (n === 3) return [readItem(), readItem(), readItem()]
  return []
}

/**
 * The next item of a short list: the common scalars inline (the cursors stay in the
 * module variables: taking them into locals costs more than it saves on a few items).
 */
function readItem () {
  const x = W[p]
  switch (x & 15) {
    case T_INT:
      if (intMode !== INT_NUMBER) break
      p++
      return x >> 4
    case T_FLOAT:
      p++
      return F[fp++]
    case T_LATIN1:
      if ((x >>> 4) === LONG) break
      p++
      return L.substring(lp, (lp += x >>> 4))
    case T_LIST:
      p++
      return readList(x)
  }
  return readValue()
}

/** A map key: a key word, or a string word (after a `T_SEG` word, if any). */
function readKey () {
  let kw = W[p++]
  if ((kw & 15) === T_SEG) {
    nextSegment(kw)
    kw = W[p++]
  }
  const t = kw & 15
  if (t === T_KEY) return K[kw >>> 4]
  let m = kw >>> 4
  if (m === LONG) m = W[p++]
  return t === T_LATIN1 ? L.substring(lp, (lp += m)) : U.substring(up, (up += m))
}

function setEntry (o, k, v) {
  if (k === '__proto__') {
    Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true })
  } else {
    o[k] = v
  }
}

function readMap (w) {
  if (nest >= MAX_NEST) {
    p--
    return readDeep()
  }
  nest++
  let n = w >>> 4
  if (n === LONG) n = W[p++]
  const o = {} // (no allocation site: V8 makes an empty object literal without one)
  for (let i = 0; i < n; i++) {
    let kw = W[p++]
    let k
    let t = kw & 15
    if (t === T_KEY) {
      k = K[kw >>> 4]
    } else {
      if (t === T_SEG) {
        nextSegment(kw)
        kw = W[p++]
        t = kw & 15
      }
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
  nest--
  return o
}

function readStruct (w) {
  if (nest >= MAX_NEST) {
    p--
    return readDeep()
  }
  nest++
  const signature = (w >>> 4) & 0xff
  const n = w >>> 12
  // (The site under `C.retained` is the retained one, see `newArray`.)
  const fields = retained ? new Array(n) : new Array(n)
  for (let i = 0; i < n; i++) fields[i] = readValue()
  nest--
  return C.hydrate === null ? new Structure(signature, fields) : C.hydrate(signature, fields)
}

/** A container being rebuilt by `readDeep`. */
class Open {
  constructor (t, c, n, sig) {
    this.t = t // T_LIST, T_MAP or T_STRUCT
    this.c = c // the array, object or fields
    this.n = n // items to read
    this.i = 0 // items read
    this.k = '' // the key of the entry being read
    this.sig = sig // structure signature
  }
}

function closeDeep (f) {
  if (f.t !== T_STRUCT) return f.c
  return C.hydrate === null ? new Structure(f.sig, f.c) : C.hydrate(f.sig, f.c)
}

/**
 * Rebuilds the value at the current word without recursion: the open containers are on
 * an explicit stack, so the depth is bounded by the heap, not by the JS stack. Hooks are
 * called in the same order as by the recursive rebuild (innermost first).
 */
function readDeep () {
  const stack = []
  let v
  for (;;) {
    const w = W[p]
    const t = w & 15
    if (t === T_LIST || t === T_MAP || t === T_STRUCT) {
      p++
      let f
      if (t === T_STRUCT) {
        const n = w >>> 12
        f = new Open(t, new Array(n), n, (w >>> 4) & 0xff)
      } else {
        let n = w >>> 4
        if (n === LONG) n = W[p++]
        f = new Open(t, t === T_LIST ? new Array(n) : {}, n, 0)
      }
      if (f.n > 0) {
        if (t === T_MAP) f.k = readKey()
        stack.push(f)
        continue
      }
      v = closeDeep(f)
    } else {
      v = readValue() // a scalar: no recursion
    }
    for (;;) {
      if (stack.length === 0) return v
      const f = stack[stack.length - 1]
      if (f.t === T_MAP) setEntry(f.c, f.k, v)
      else f.c[f.i] = v
      if (++f.i < f.n) {
        if (f.t === T_MAP) f.k = readKey()
        break
      }
      stack.pop()
      v = closeDeep(f)
    }
  }
}

/** Moves the cursors past the value (or failed message) at the current word. */
function skipValue () {
  let pending = 1
  while (pending > 0) {
    pending--
    const w = W[p++]
    let n = w >>> 4
    switch (w & 15) {
      case T_FLOAT: fp++; break
      case T_LATIN1: if (n === LONG) n = W[p++]; lp += n; break
      case T_UTF16: if (n === LONG) n = W[p++]; up += n; break
      case T_LIST: if (n === LONG) n = W[p++]; pending += n; break
      case T_FLAT: pending += n; break
      case T_MAP: if (n === LONG) n = W[p++]; pending += 2 * n; break
      case T_STRUCT: pending += w >>> 12; break
      case T_INT64: p += 2; break
      case T_BYTES: if (n === LONG) n = W[p++]; bp += n; break
      case T_UUID: bp += 16; break
      case T_ERROR: p++; break
      case T_SEG: nextSegment(w); pending++; break // (no item: the string after it is)
      // T_INT, T_CONST, T_KEY: the word alone.
    }
  }
}

/** Reads the next message of the tape; a failed message throws its error. */
function readMessage () {
  const w = W[p]
  const t = w & 15
  if (t === T_ERROR) {
    p += 2
    throw new BoltcodecError(E[w >>> 4])
  }
  if (rows && !retained && (t === T_FLAT || t === T_LIST)) return readRow(w)
  return readValue()
}

/**
 * A RECORD's list of values (its word `w` at `p`), for a caller that did not ask for
 * `retained`: the same list as `readValue` gives, in an array from `rowArray`.
 *
 * Why: in a batch (decodeRecords, a Dechunker read, a connection's rows) every RECORD
 * of the call is alive until the call returns. V8 samples a site's survival from the
 * arrays its unoptimised code made since the last young-generation collection; when
 * such a collection fell inside one of the first calls, while this code was still
 * unoptimised, it found nearly all of those RECORD arrays alive and marked the site for
 * the old generation (allocation-site pretenuring, see `newArray`) for the rest of the
 * process, even when the caller drops each batch: records 10000×3 then took
 * 0.86–0.96 ms instead of 0.59–0.69 ms (1.3–2.3× as long chunked), in a few fresh
 * processes in twenty. The arrays of `rowArray` are never pretenured (regression:
 * record_arrays_pretenured_for_a_caller_that_drops_them).
 *
 * The items are read one by one with `readItem` (scalars inline), not by `readList` or
 * `readFlat` given the array: that made the list reader's code slower for every list
 * (+7 % instructions on lists 1000×1, callgrind), while this loop takes 3–6 % fewer
 * instructions than the previous code on records 10000×3 and 10×10000.
 */
function readRow (w) {
  p++
  let n = w >>> 4
  if ((w & 15) === T_FLAT) {
    const a = rowArray(n)
    for (let i = 0; i < n; i++) a[i] = readItem()
    return a
  }
  if (n === LONG) n = W[p++]
  const a = rowArray(n)
  // (Counted in `nest` as `readList` counts a list.)
  nest++
  for (let i = 0; i < n; i++) a[i] = readItem()
  nest--
  return a
}

const NO_ITEMS = []

/**
 * An array of `n` items to fill in, for `readRow`, that V8 never allocates in the old
 * generation. V8 counts, per allocation site, how many of its objects outlive a
 * young-generation collection only for array literals (always) and for `new Array`
 * sites whose arrays hold small integers only: a site's arrays carry the bookkeeping
 * V8 needs (an allocation memento) only then, and a site whose arrays once held
 * anything else never counts again (V8 tracks elements-kind changes and pretenuring with
 * the same mementos). So the first item of each array here is set to `null` before any
 * item is read: the first array of each site moves the site to generic elements at once,
 * whatever the RECORDs hold, and later arrays carry no memento. A `new Array(k)` of a
 * constant length is allocated inline by optimised code; the array is the same to JS
 * once every item is set. An empty RECORD's array is a copy of an empty array (a copy
 * has no allocation site).
 */
function rowArray (n) {
  let a
  switch (n) {
    case 0: return NO_ITEMS.slice()
    case 1: a = new Array(1); break
    case 2: a = new Array(2); break
    case 3: a = new Array(3); break
    case 4: a = new Array(4); break
    case 5: a = new Array(5); break
    case 6: a = new Array(6); break
    case 7: a = new Array(7); break
    case 8: a = new Array(8); break
    default: a = new Array(n)
  }
  a[0] = null
  return a
}

/**
 * `readMessage` for a tape read message by message: whatever the message throws (its
 * decode error, a hook's exception, a RangeError), the cursors end after it, so the next
 * read goes on with the following message.
 */
function readMessageAndSkip () {
  const p0 = p
  const fp0 = fp
  const lp0 = lp
  const up0 = up
  const bp0 = bp
  try {
    return readMessage()
  } catch (e) {
    p = p0; fp = fp0; lp = lp0; up = up0; bp = bp0
    skipValue()
    throw e
  }
}

// ---------------------------------------------------------------------------------------
// Codecs: a native codec, its key strings and its tape buffer.
// ---------------------------------------------------------------------------------------

/**
 * A native codec (an external, driven by the `codec*` functions of native.js: plain
 * functions cost less per call than methods of a native class) with the methods that
 * `tapeSource` users and the tests call.
 */
class NativeCodec {
  constructor (nativeOpts) {
    this.h = native.nativeCodec(nativeOpts)
  }

  decodeValue (input, out, exact) { return native.codecDecodeValue(this.h, input, out, exact !== false) }
  decodeFrames (input, out, records) { return native.codecDecodeFrames(this.h, input, out, records) }
  push (input, out, records) { return native.codecPush(this.h, input, out, records) }
  copyOut (out) { return native.codecCopyOut(this.h, out) }
  keyStrings (from, to) { return native.codecKeyStrings(this.h, from, to) }
  keyCount () { return native.codecKeyCount(this.h) }
  errorInfo (index) { return native.codecErrorInfo(this.h, index) }
  streamError () { return native.codecStreamError(this.h) }
  endOfStream () { return native.codecEndOfStream(this.h) }
  reset () { native.codecReset(this.h) }
  isAtBoundary () { return native.codecIsAtBoundary(this.h) }
}

class Codec {
  constructor (nativeOpts) {
    this.native = new NativeCodec(nativeOpts)
    this.keys = []
    this.tape = new TapeBuffer(MIN_OUT)
  }

  /** The tape buffer to use now: a temporary one when this codec's is in use. */
  claim () {
    return this.tape.busy ? new TapeBuffer(MIN_OUT) : this.tape
  }
}

/** Completes a native call whose tape did not fit `tb` (`n < 0`). */
function finishCall (codec, tb, n) {
  if (n < 0) {
    tb.grow(-n)
    codec.native.copyOut(tb.buf)
  }
}

function streamError (codec) {
  return new BoltcodecError(codec.native.streamError())
}

const defaultCodec = new Codec({})
/** Codecs by their native options, so that equal options share one. */
const codecs = new Map()
const MAX_CODECS = 64

/** The codec for native options (read by `nativeOptions`). */
function codecFor (n) {
  if (n.key === '') return defaultCodec
  let codec = codecs.get(n.key)
  if (codec === undefined) {
    codec = new Codec(n.opts)
    if (codecs.size >= MAX_CODECS) codecs.delete(codecs.keys().next().value)
    codecs.set(n.key, codec)
  }
  return codec
}

/** The codec for an options object (no options: the default codec, with no allocation). */
function codecOf (options) {
  return options === undefined || options === null ? defaultCodec : codecFor(nativeOptions(options))
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
  const conv = makeConv(options)
  const codec = codecOf(options)
  const tb = codec.claim()
  tb.busy = true
  enter()
  try {
    finishCall(codec, tb, codec.native.decodeValue(input, tb.buf, true))
    useReader(openTape(tb, codec.keys, conv, codec.native, null, false))
    return readMessage()
  } finally {
    tb.busy = false
    tb.release()
    leave()
  }
}

/**
 * Decodes the value at the start of `input` and leaves the bytes after it alone, as a
 * reader of a stream of values does: returns the value and how many bytes it took.
 * @returns {[unknown, number]}
 */
function unpackPrefix (input, options) {
  input = checkInput(input)
  const conv = makeConv(options)
  const codec = codecOf(options)
  const tb = codec.claim()
  tb.busy = true
  enter()
  try {
    finishCall(codec, tb, codec.native.decodeValue(input, tb.buf, false))
    useReader(openTape(tb, codec.keys, conv, codec.native, null, false))
    const value = readMessage()
    return [value, tb.w[18]]
  } finally {
    tb.busy = false
    tb.release()
    leave()
  }
}

function decodeFrames (input, options, records) {
  input = checkInput(input)
  const conv = makeConv(options)
  const codec = codecOf(options)
  const tb = codec.claim()
  tb.busy = true
  enter()
  try {
    finishCall(codec, tb, codec.native.decodeFrames(input, tb.buf, records))
    // A failed call interned no keys (see NativeCodec#decodeFrames).
    if (tb.w[0] !== 0) throw streamError(codec)
    useReader(openTape(tb, codec.keys, conv, codec.native, null, records === true))
    return readMessages(tb.w[1])
  } finally {
    tb.busy = false
    tb.release()
    leave()
  }
}

/**
 * The next `n` messages of the tape in the registers. The loops over a tape's messages
 * are functions of their own, apart from the `try`/`finally` of the calls that run them:
 * a long loop is compiled on the fly while it runs (on-stack replacement), before its
 * caller's `finally` has ever run, so that code has no type feedback for the `finally`
 * and was thrown away at its end on every call, which then finished unoptimised
 * (regression: decode_frames_deoptimised_on_every_call).
 */
function readMessages (n) {
  const out = new Array(n)
  for (let i = 0; i < n; i++) out[i] = readMessage()
  return out
}

/**
 * The JS half of a native object that writes tapes as `NativeCodec` does (it has
 * `copyOut`, `keyStrings` and `errorInfo`): the key strings and the tape buffer.
 */
function tapeSource (native) {
  return { native, keys: [], tape: new TapeBuffer(MIN_OUT) }
}

/**
 * Runs `call(out)`, a native call that writes a tape into `out` and returns its length
 * (as `NativeCodec` does), and rebuilds every message of that tape with `conv`. A message
 * that fails (its decode error, or a hook that throws) does not stop the others: it is
 * left `undefined` in `values` and its error listed in `errors` with its index.
 * `records`: the tape's top-level lists are RECORDs' values (as a connection's are).
 *
 * @returns {{values: unknown[], errors: Array<[number, unknown]>}}
 */
function readTape (source, conv, call, records) {
  const tb = source.tape.busy ? new TapeBuffer(MIN_OUT) : source.tape
  tb.busy = true
  enter()
  try {
    finishCall(source, tb, call(tb.buf))
    useReader(openTape(tb, source.keys, conv, source.native, null, records === true))
    return readEachMessage(tb.w[1])
  } finally {
    tb.busy = false
    tb.release()
    leave()
  }
}

/** `readTape`'s loop (apart from its `finally`: see `readMessages`). */
function readEachMessage (n) {
  const values = new Array(n)
  const errors = []
  for (let i = 0; i < n; i++) {
    try {
      values[i] = readMessageAndSkip()
    } catch (e) {
      errors.push([i, e])
    }
  }
  return { values, errors }
}

/** How an asynchronous rebuild is sliced (changeable for tests). */
const asyncSlices = {
  /** How long one step may keep the event loop, in ms. */
  ms: 4,
  /** Messages rebuilt between two looks at the clock. */
  messages: 256
}

async function decodeFramesAsyncJs (input, options, records) {
  input = checkInput(input)
  const conv = makeConv(options)
  const res = await decodeFramesAsync(input, records, nativeOptions(options).opts)
  if (res.streamError) throw new BoltcodecError(res.streamError)
  // The call's own reader: its tape, keys, errors and cursors belong to no one else.
  const r = openTape(TapeBuffer.wrap(res.out), [], conv, null, res.errors, records === true)
  const n = r.W[1]
  const out = new Array(n)
  let i = 0
  while (i < n) {
    const until = Date.now() + asyncSlices.ms
    enter()
    try {
      useReader(r)
      i = readSlice(out, i, n, until)
    } finally {
      keepReader(r)
      leave()
    }
    if (i < n) await new Promise(setImmediate)
  }
  return out
}

/**
 * Rebuilds messages `i` … of `out` (the tape in the registers) until all `n` are out or
 * the clock passes `until`; returns the next index. (Apart from its caller's `finally`:
 * see `readMessages`.)
 */
function readSlice (out, i, n, until) {
  do {
    const end = Math.min(n, i + asyncSlices.messages)
    for (; i < end; i++) out[i] = readMessage()
  } while (i < n && Date.now() < until)
  return i
}

/**
 * Push parser for a Bolt byte stream: see `Dechunker` in index.js for the public API.
 * Messages are decoded natively at `push` and rebuilt as JS values one by one at `next`.
 * Its options are read once, at construction: they are the stream's settings.
 *
 * Every message, and a framing error, takes one slot: `next` gives slot `served`;
 * slots up to `available` are ready. Slots are numbered over the stream's life, so a
 * reader can ask for a given slot (`readAt`), as the neo4j-driver adapter does.
 */
class StreamDecoder {
  constructor (options) {
    this.codec = new Codec(nativeOptions(options).opts)
    this.conv = makeConv(options)
    this.records = Boolean(options && options.records)
    this.reader = null // the reader of the last push's tape
    this.count = 0 // messages on the tape
    this.read = 0 // of which rebuilt
    this.served = 0 // slots given out by `next`
    this.available = 0 // slots ready
    this.pending = [] // tapes kept by `drain`: {reader, left (messages unread)}
    this.tapeLen = 0 // bytes of the last push's tape
    this.error = null // the framing error, not yet thrown
  }

  push (input) {
    input = checkInput(input)
    if (this.read < this.count) this.drain()
    const codec = this.codec
    const tb = codec.tape
    if (tb.busy) throw new Error('boltcodec: Dechunker.push called while one of its messages is being decoded')
    this.reader = null
    tb.release()
    tb.busy = true
    let n
    try {
      const len = codec.native.push(input, tb.buf, this.records)
      finishCall(codec, tb, len)
      this.tapeLen = Math.abs(len)
      this.reader = openTape(tb, codec.keys, this.conv, codec.native, null, this.records)
      n = tb.w[1]
    } finally {
      tb.busy = false
    }
    this.count = n
    this.read = 0
    this.available += n
    if (tb.w[0] !== 0 && this.error === null) {
      this.error = streamError(codec)
      this.available++
    }
    if (n === 0) this.reader = null
    return this.available - this.served
  }

  /**
   * Keeps the unread messages of the tape for later, before the next push overwrites
   * it: their reader moves to a copy of the tape. They are rebuilt when read, with the
   * conversions of the read (a driver's reader gives its integer mode then), exactly as
   * if no push had come between.
   */
  drain () {
    const r = this.reader
    const copy = new TapeBuffer(this.tapeLen)
    this.codec.tape.buf.copy(copy.buf, 0, 0, this.tapeLen)
    r.W = copy.w
    r.F = copy.f
    r.B = copy.buf
    this.pending.push({ reader: r, left: this.count - this.read })
    this.read = this.count
    this.reader = null
  }

  /** Whether `next` has a message (or an error) to give. */
  hasNext () {
    return this.served < this.available
  }

  next (conv) {
    if (this.served >= this.available) return undefined
    this.served++
    if (this.pending.length > 0) {
      const kept = this.pending[0]
      if (--kept.left === 0) this.pending.shift()
      return this.rebuildKept(kept.reader, conv)
    }
    if (this.read < this.count) return this.rebuild(conv)
    const e = this.error
    this.error = null
    throw e
  }

  /**
   * The message of slot `index`, skipping unread earlier ones. A slot that is not ready
   * (not yet received) throws: it never waits.
   */
  readAt (index, conv) {
    if (index < this.served) throw new Error(`boltcodec: message ${index} was already read`)
    if (index >= this.available) {
      throw new Error(`boltcodec: message ${index} is not ready (${this.available} received)`)
    }
    while (this.served < index) {
      try {
        this.next(conv)
      } catch (e) {}
    }
    return this.next(conv)
  }

  /** Rebuilds the next message of a tape kept by `drain`. */
  rebuildKept (r, conv) {
    enter()
    try {
      useReader(r)
      if (conv) {
        C = conv
        intMode = conv.int
        retained = conv.retained
      }
      return readMessageAndSkip()
    } finally {
      keepReader(r)
      leave()
    }
  }

  /**
   * Rebuilds the next `n` messages of the tape (at least one), with `conv` or the
   * stream's conversions; stops at the first that throws, after moving past it. With
   * `out`, they are also served, and written to `out` from index `at` on.
   */
  rebuild (conv, n = 1, out = null, at = 0) {
    const tb = this.codec.tape
    if (tb.busy) throw new Error('boltcodec: a Dechunker message was read from inside a hook of the same Dechunker')
    const r = this.reader
    let value
    enter()
    tb.busy = true
    try {
      useReader(r)
      if (conv) {
        C = conv
        intMode = conv.int
        retained = conv.retained
      }
      if (n === 1 && out === null) {
        // (A connection's reads: one message at a time.)
        this.read++
        value = readMessageAndSkip()
      } else {
        value = rebuildMany(this, n, out, at)
      }
    } finally {
      keepReader(r)
      tb.busy = false
      leave()
      if (this.read >= this.count) {
        // Every message of the tape is out: keep nothing of it.
        this.reader = null
        tb.release()
      }
    }
    return value
  }

  /** Every ready message, rebuilt in one go; throws at the first that failed. */
  takeAll () {
    // Sized once: every ready slot gives a value, or throws (and `out` is dropped).
    const out = new Array(this.available - this.served)
    let k = 0
    while (this.served < this.available && this.pending.length > 0) out[k++] = this.next()
    const n = this.count - this.read
    if (n > 0 && this.served < this.available) {
      this.rebuild(null, n, out, k)
      k += n
    }
    while (this.served < this.available) out[k++] = this.next()
    return out
  }

  end () {
    const e = this.codec.native.endOfStream()
    if (e) throw new BoltcodecError(e)
  }

  reset () {
    this.codec.native.reset()
    this.reader = null
    this.count = 0
    this.read = 0
    this.served = 0
    this.available = 0
    this.pending = []
    this.error = null
  }
}

/**
 * `StreamDecoder#rebuild`'s loop over `n` messages (apart from its `finally`: see
 * `readMessages`); returns the last value.
 */
function rebuildMany (d, n, out, at) {
  let value
  for (let i = 0; i < n; i++) {
    d.read++
    if (out !== null) d.served++
    value = readMessageAndSkip()
    if (out !== null) out[at + i] = value
  }
  return value
}

module.exports = {
  unpack,
  unpackPrefix,
  decodeFrames,
  decodeFramesAsync: decodeFramesAsyncJs,
  StreamDecoder,
  makeConv,
  asyncSlices,
  tapeSource,
  readTape
}
