'use strict'
// Encoding in JS, straight into a Buffer. Walking JS values from native code costs several
// N-API calls per value, more than the encoding itself (benches/node shows the numbers), so
// this side of the codec stays in JS. The output is byte-identical to the core crate's
// `Encoder` and to neo4j-driver's packer: smallest markers, every JS number a Float.

const { Structure, Uuid } = require('./types.js')

const MAX_SIZE = 0x7fffffff
const MAX_CHUNK = 0xffff
const MIN_FREE = 1024

let target = Buffer.allocUnsafeSlow(1 << 16)
let view = new DataView(target.buffer, target.byteOffset, target.length)
let pos = 0 // next byte to write
let start = 0 // where the value being written starts
let O = null // settings of the current call
let nest = 0 // containers open in the recursive writer
let depth = 0 // calls under way (a hook's call is nested in the one that called the hook)
const saved = []
/** Largest output buffer kept between calls: after a larger call it is given back. */
const KEEP_TARGET = 4 << 20
/**
 * Nesting the recursive writer goes to; deeper values are written by an iterative loop
 * (`writeDeep`), so that no nesting depth and no thread stack size can overflow the JS
 * stack.
 */
const MAX_NEST = 64

function fresh (size) {
  target = Buffer.allocUnsafeSlow(size)
  view = new DataView(target.buffer, target.byteOffset, target.length)
  pos = 0
  start = 0
}

/** Moves the value written so far to a larger buffer. */
function grow (n) {
  const used = pos - start
  const old = target
  const from = start
  fresh(Math.max(old.length * 2, used + n + MIN_FREE))
  old.copy(target, 0, from, from + used)
  pos = used
}

function ensure (n) {
  if (pos + n > target.length) grow(n)
}

/**
 * Resolved settings for one kind of call.
 * @typedef {object} EncodeSettings
 * @property {((value: object) => unknown) | null} dehydrate
 * @property {Function | null} Structure another structure class to accept
 * @property {boolean} uuid
 * @property {boolean} legacyStructs
 * @property {boolean} driver neo4j-driver's rules (see driver.js)
 * @property {boolean} bytes whether byte arrays are allowed (driver's Bolt 1)
 * @property {((value: unknown, reason: string, code: string) => never) | null} unpackable
 *   called instead of throwing a TypeError; `code` is `type`, `uuid`, `bytes`, `size` or
 *   `struct`
 * @property {number} maxChunkSize
 */

/** @returns {EncodeSettings} */
function makeSettings (options) {
  const o = options || {}
  const chunk = o.maxChunkSize
  const max = chunk === undefined ? MAX_CHUNK : chunk
  if (!Number.isInteger(max) || max < 1 || max > MAX_CHUNK) {
    throw new RangeError(`boltcodec: maxChunkSize must be 1…65535, got ${chunk}`)
  }
  const dehydrate = o.dehydrate
  const S = o.Structure
  const unpackable = o.unpackable
  return {
    dehydrate: typeof dehydrate === 'function' ? dehydrate : null,
    Structure: typeof S === 'function' ? S : null,
    uuid: o.uuid === true,
    legacyStructs: o.legacyStructs === true,
    driver: o.driver === true,
    bytes: o.bytes !== false,
    unpackable: typeof unpackable === 'function' ? unpackable : null,
    maxChunkSize: max
  }
}

const DEFAULT_SETTINGS = makeSettings()

/**
 * The settings for an options object, read now: a caller may change an options object
 * between calls (nothing is cached by object identity).
 */
function settingsFor (options) {
  if (options === undefined || options === null) return DEFAULT_SETTINGS
  return makeSettings(options)
}

function fail (value, reason, code) {
  if (O.unpackable !== null) O.unpackable(value, reason, code)
  throw code === 'size' ? new RangeError(`boltcodec: ${reason}`) : new TypeError(`boltcodec: ${reason}`)
}

// ---------------------------------------------------------------------------------------
// Writers
// ---------------------------------------------------------------------------------------

function writeInt32 (n) {
  ensure(5)
  if (n >= -16 && n <= 127) {
    target[pos++] = n & 0xff
  } else if (n >= -128 && n < -16) {
    target[pos++] = 0xc8
    target[pos++] = n & 0xff
  } else if (n >= -32768 && n <= 32767) {
    target[pos++] = 0xc9
    target[pos++] = (n >> 8) & 0xff
    target[pos++] = n & 0xff
  } else {
    target[pos] = 0xca
    view.setInt32(pos + 1, n)
    pos += 5
  }
}

function writeBigInt (v) {
  if (v >= -2147483648n && v <= 2147483647n) return writeInt32(Number(v))
  if (v < -9223372036854775808n || v > 9223372036854775807n) {
    fail(v, `integer ${v} does not fit in 64 bits`, 'size')
  }
  ensure(9)
  target[pos] = 0xcb
  view.setBigInt64(pos + 1, v)
  pos += 9
}

function writeInteger (v) {
  const hi = v.high | 0
  const lo = v.low | 0
  if (hi === (lo >> 31)) return writeInt32(lo)
  ensure(9)
  target[pos] = 0xcb
  view.setInt32(pos + 1, hi)
  view.setInt32(pos + 5, lo)
  pos += 9
}

function writeFloat (v) {
  ensure(9)
  target[pos] = 0xc1
  view.setFloat64(pos + 1, v)
  pos += 9
}

/** A size header: `tiny` (if non-zero) below 16, then 8-, 16- or 32-bit forms. */
function writeSize (tiny, m8, n, what, value) {
  ensure(5)
  if (n < 16 && tiny !== 0) {
    target[pos++] = tiny | n
  } else if (n < 0x100) {
    target[pos++] = m8
    target[pos++] = n
  } else if (n < 0x10000) {
    target[pos++] = m8 + 1
    target[pos++] = n >> 8
    target[pos++] = n & 0xff
  } else if (n <= MAX_SIZE) {
    target[pos] = m8 + 2
    view.setUint32(pos + 1, n)
    pos += 5
  } else {
    fail(value, `${what} of size ${n} is above the PackStream maximum of 2147483647`, 'size')
  }
}

function writeString (s) {
  const len = s.length
  if (len < 64) {
    // Encode char by char: cheaper than a call into the runtime for short strings.
    ensure(3 * len + 2)
    const hdr = len < 16 ? 1 : 2
    let q = pos + hdr
    for (let i = 0; i < len; i++) {
      let c = s.charCodeAt(i)
      if (c < 0x80) {
        target[q++] = c
      } else if (c < 0x800) {
        target[q++] = 0xc0 | (c >> 6)
        target[q++] = 0x80 | (c & 0x3f)
      } else {
        if (c >= 0xd800 && c <= 0xdfff) {
          const d = i + 1 < len ? s.charCodeAt(i + 1) : 0
          if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
            const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
            target[q++] = 0xf0 | (cp >> 18)
            target[q++] = 0x80 | ((cp >> 12) & 0x3f)
            target[q++] = 0x80 | ((cp >> 6) & 0x3f)
            target[q++] = 0x80 | (cp & 0x3f)
            i++
            continue
          }
          c = 0xfffd // a lone surrogate, as Buffer and TextEncoder write it
        }
        target[q++] = 0xe0 | (c >> 12)
        target[q++] = 0x80 | ((c >> 6) & 0x3f)
        target[q++] = 0x80 | (c & 0x3f)
      }
    }
    const n = q - pos - hdr
    if (n < 16) {
      target[pos] = 0x80 | n
      pos = q
    } else {
      if (hdr === 1) {
        target.copyWithin(pos + 2, pos + 1, q)
        q++
      }
      target[pos] = 0xd0
      target[pos + 1] = n
      pos = q
    }
    return
  }
  const max = 3 * len
  const hdr = max < 0x100 ? 2 : max < 0x10000 ? 3 : 5
  ensure(max + hdr)
  const n = target.utf8Write(s, pos + hdr, max)
  const real = n < 0x100 ? 2 : n < 0x10000 ? 3 : 5
  if (n > MAX_SIZE) fail(s, `string of ${n} bytes is above the PackStream maximum of 2147483647`, 'size')
  if (real !== hdr) target.copyWithin(pos + real, pos + hdr, pos + hdr + n)
  if (real === 2) {
    target[pos] = 0xd0
    target[pos + 1] = n
  } else if (real === 3) {
    target[pos] = 0xd1
    target[pos + 1] = n >> 8
    target[pos + 2] = n & 0xff
  } else {
    target[pos] = 0xd2
    view.setUint32(pos + 1, n)
  }
  pos += real + n
}

function writeBytes (v) {
  if (!O.bytes) fail(v, 'byte arrays are not supported by this connection', 'bytes')
  const n = v.byteLength
  writeSize(0, 0xcc, n, 'byte array', v)
  ensure(n)
  target.set(new Uint8Array(v.buffer, v.byteOffset, n), pos)
  pos += n
}

function writeUuid (bytes, value) {
  if (!O.uuid) fail(value, 'UUID values need PackStream v2 (Bolt 6.1+): pass the option uuid: true', 'uuid')
  ensure(17)
  target[pos++] = 0xe0
  target.set(bytes, pos)
  pos += 16
}

function writeList (a) {
  const n = a.length
  if (n < 16) {
    // The tiny header inline: most lists are short.
    ensure(1)
    target[pos++] = 0x90 | n
  } else {
    writeSize(0x90, 0xd4, n, 'list', a)
  }
  nest++
  for (let i = 0; i < n; i++) {
    const x = a[i]
    // The common items without the general dispatch: numbers, strings, and (when no
    // dehydrate hook may replace them) nested lists and the driver's Integers.
    if (typeof x === 'number') {
      writeFloat(x)
    } else if (typeof x === 'string') {
      writeString(x)
    } else if (x === undefined) {
      ensure(1)
      target[pos++] = 0xc0
    } else if (typeof x === 'object' && x !== null && O.dehydrate === null) {
      // As writeValue, without its dispatch on the type.
      if (nest >= MAX_NEST) writeDeep(x)
      else if (Array.isArray(x)) writeList(x)
      else if (x.__isInteger__ === true) writeInteger(x)
      else writeObject(x)
    } else {
      writeValue(x)
    }
  }
  nest--
}

/** Size of a map header for `n` entries. */
function mapHeaderSize (n) {
  return n < 16 ? 1 : n < 0x100 ? 2 : n < 0x10000 ? 3 : 5
}

/**
 * Reserves the header of a map of at most `max` entries; returns its place (relative to
 * `start`, which `grow` may move).
 */
function reserveMap (max, o) {
  if (max > MAX_SIZE) fail(o, `map of size ${max} is above the PackStream maximum of 2147483647`, 'size')
  const size = mapHeaderSize(max)
  ensure(size)
  const at = pos - start
  pos += size
  return at
}

/**
 * Writes the header reserved by `reserveMap(max)` for the `n` entries written since,
 * moving them back if the header is shorter than reserved.
 */
function closeMap (at, max, n) {
  const size = mapHeaderSize(max)
  const real = mapHeaderSize(n)
  const h = start + at
  if (real !== size) {
    target.copyWithin(h + real, h + size, pos)
    pos -= size - real
  }
  if (real === 1) {
    target[h] = 0xa0 | n
  } else if (real === 2) {
    target[h] = 0xd8
    target[h + 1] = n
  } else if (real === 3) {
    target[h] = 0xd9
    target[h + 1] = n >> 8
    target[h + 2] = n & 0xff
  } else {
    target[h] = 0xda
    view.setUint32(h + 1, n)
  }
}

/**
 * An object as a map. Each property is read once, and the count is that of the entries
 * written: a getter that answers differently on a second read cannot make the header
 * disagree with the entries.
 */
function writeObjectMap (o) {
  const keys = Object.keys(o)
  const len = keys.length
  const at = reserveMap(len, o)
  let n = 0
  nest++
  for (let i = 0; i < len; i++) {
    const k = keys[i]
    const x = o[k]
    if (x !== undefined) {
      n++
      writeString(k)
      writeValue(x)
    }
  }
  nest--
  closeMap(at, len, n)
}

/**
 * The entries of a `Map`, iterated once (a subclass may answer differently each time):
 * its string keys and values, and how many values are defined.
 */
function mapEntries (m) {
  const keys = []
  const values = []
  let defined = 0
  for (const e of m) {
    const k = e[0]
    const x = e[1]
    if (typeof k !== 'string') fail(m, 'map keys must be strings', 'type')
    keys.push(k)
    values.push(x)
    if (x !== undefined) defined++
  }
  return { keys, values, defined }
}

function writeMap (m) {
  const { keys, values, defined } = mapEntries(m)
  writeSize(0xa0, 0xd8, defined, 'map', m)
  nest++
  for (let i = 0; i < keys.length; i++) {
    const x = values[i]
    if (x !== undefined) {
      writeString(keys[i])
      writeValue(x)
    }
  }
  nest--
}

/** A structure's marker and tag, for `n` fields. */
function writeStructHeader (s, tag, n) {
  if (!O.driver && !(Number.isInteger(tag) && tag >= 0 && tag <= 0x7f)) {
    fail(s, `structure signature must be an integer 0…127, got ${tag}`, 'struct')
  }
  ensure(4)
  if (n < 16) {
    target[pos++] = 0xb0 | n
  } else if (n < 0x100 && O.legacyStructs) {
    target[pos++] = 0xdc
    target[pos++] = n
  } else if (n < 0x10000 && O.legacyStructs) {
    target[pos++] = 0xdd
    target[pos++] = n >> 8
    target[pos++] = n & 0xff
  } else {
    fail(s, `a structure may have at most 15 fields, got ${n}`, 'struct')
  }
  target[pos++] = tag & 0xff
}

function writeStruct (s) {
  const tag = s.signature
  const fields = s.fields
  const n = fields.length
  writeStructHeader(s, tag, n)
  nest++
  for (let i = 0; i < n; i++) {
    const x = fields[i]
    if (x === undefined && !O.driver) {
      ensure(1)
      target[pos++] = 0xc0
    } else {
      writeValue(x)
    }
  }
  nest--
}

// What an object is written as (`kindOf`).
const K_LIST = 0
const K_INTEGER = 1
const K_STRUCT = 2
const K_BYTES = 3
const K_UUID = 4
const K_DRIVER_UUID = 5
const K_MAP = 6
const K_ITERABLE = 7
const K_OBJECT = 8

function kindOf (v) {
  if (Array.isArray(v)) return K_LIST
  if (v.__isInteger__ === true) return K_INTEGER
  if (v instanceof Structure || (O.Structure !== null && v instanceof O.Structure)) return K_STRUCT
  if (ArrayBuffer.isView(v)) {
    if (v instanceof Int8Array) return K_BYTES
    if (!O.driver && (v instanceof Uint8Array || v instanceof Uint8ClampedArray)) return K_BYTES
  }
  if (v instanceof Uuid) return K_UUID
  if (v.__isUUID__ === true) return K_DRIVER_UUID
  if (typeof v[Symbol.iterator] === 'function') return !O.driver && v instanceof Map ? K_MAP : K_ITERABLE
  return K_OBJECT
}

function writeObject (v) {
  // The same tests as `kindOf`, inline (the common case, arrays, first).
  if (Array.isArray(v)) return writeList(v)
  if (v.__isInteger__ === true) return writeInteger(v)
  if (v instanceof Structure || (O.Structure !== null && v instanceof O.Structure)) {
    return writeStruct(v)
  }
  if (ArrayBuffer.isView(v)) {
    if (v instanceof Int8Array) return writeBytes(v)
    if (!O.driver && (v instanceof Uint8Array || v instanceof Uint8ClampedArray)) {
      return writeBytes(v)
    }
  }
  if (v instanceof Uuid) return writeUuid(v.bytes, v)
  if (v.__isUUID__ === true) return writeUuid(v.getTypedArray(), v)
  if (typeof v[Symbol.iterator] === 'function') {
    if (!O.driver && v instanceof Map) return writeMap(v)
    return writeList(Array.from(v))
  }
  return writeObjectMap(v)
}

function writeValue (v) {
  // `typeof v === '...'` tests, not a `switch (typeof v)`: V8 compiles each test to a type
  // check, while the switch computes the type's name with a builtin call for every value
  // (18 % of packing lists of one item).
  if (typeof v === 'string') return writeString(v)
  if (typeof v === 'number') return writeFloat(v)
  if (typeof v === 'object') {
    if (v === null) {
      ensure(1)
      target[pos++] = 0xc0
      return
    }
    if (nest >= MAX_NEST) return writeDeep(v)
    if (O.dehydrate !== null) {
      v = O.dehydrate(v)
      // What the hook returns is not dehydrated again (a primitive never is).
      if (typeof v !== 'object' || v === null) return writeValue(v)
    }
    return writeObject(v)
  }
  if (typeof v === 'bigint') return writeBigInt(v)
  if (typeof v === 'boolean') {
    ensure(1)
    target[pos++] = v ? 0xc3 : 0xc2
    return
  }
  return fail(v, `cannot pack a value of type ${typeof v}: ${String(v)}`, 'type')
}

// ---------------------------------------------------------------------------------------
// The iterative writer, for values nested deeper than MAX_NEST
// ---------------------------------------------------------------------------------------

/** A container being written by `writeDeep`. */
class Frame {
  constructor (kind, items, n, keys, at) {
    this.kind = kind // K_LIST, K_STRUCT, K_MAP or K_OBJECT
    this.items = items // the array, fields, Map values or object
    this.n = n // items (or keys) to go through
    this.i = 0 // next one
    this.keys = keys // the keys (K_MAP, K_OBJECT)
    this.at = at // K_OBJECT: the reserved header (see reserveMap)
    this.written = 0 // K_OBJECT: entries written
  }
}

const DONE = Symbol('done')

/** Writes `v`, or only its header if it is a container: then returns its frame. */
function openDeep (v) {
  if (typeof v !== 'object' || v === null) {
    writeValue(v) // a primitive: no recursion
    return null
  }
  if (O.dehydrate !== null) {
    v = O.dehydrate(v)
    if (typeof v !== 'object' || v === null) {
      writeValue(v)
      return null
    }
  }
  switch (kindOf(v)) {
    case K_ITERABLE:
      v = Array.from(v)
    // falls through
    case K_LIST: {
      const n = v.length
      writeSize(0x90, 0xd4, n, 'list', v)
      return new Frame(K_LIST, v, n, null, 0)
    }
    case K_STRUCT: {
      const tag = v.signature
      const fields = v.fields
      const n = fields.length
      writeStructHeader(v, tag, n)
      return new Frame(K_STRUCT, fields, n, null, 0)
    }
    case K_MAP: {
      const { keys, values, defined } = mapEntries(v)
      writeSize(0xa0, 0xd8, defined, 'map', v)
      return new Frame(K_MAP, values, keys.length, keys, 0)
    }
    case K_OBJECT: {
      const keys = Object.keys(v)
      return new Frame(K_OBJECT, v, keys.length, keys, reserveMap(keys.length, v))
    }
    case K_INTEGER: writeInteger(v); return null
    case K_BYTES: writeBytes(v); return null
    case K_UUID: writeUuid(v.bytes, v); return null
    default: writeUuid(v.getTypedArray(), v); return null
  }
}

/** The next item of an open container (writing its key first), or DONE. */
function nextDeep (f) {
  switch (f.kind) {
    case K_LIST:
      if (f.i < f.n) {
        const x = f.items[f.i++]
        return x === undefined ? null : x
      }
      return DONE
    case K_STRUCT:
      if (f.i < f.n) {
        const x = f.items[f.i++]
        return x === undefined && !O.driver ? null : x
      }
      return DONE
    case K_MAP:
      while (f.i < f.n) {
        const i = f.i++
        const x = f.items[i]
        if (x !== undefined) {
          writeString(f.keys[i])
          return x
        }
      }
      return DONE
    default:
      while (f.i < f.n) {
        const k = f.keys[f.i++]
        const x = f.items[k]
        if (x !== undefined) {
          f.written++
          writeString(k)
          return x
        }
      }
      return DONE
  }
}

/**
 * Writes `v` without recursion: the open containers are on an explicit stack, so the
 * depth is bounded by the heap, not by the JS stack.
 */
function writeDeep (v) {
  const stack = []
  for (;;) {
    const f = openDeep(v)
    if (f !== null) stack.push(f)
    for (;;) {
      if (stack.length === 0) return
      const top = stack[stack.length - 1]
      const x = nextDeep(top)
      if (x !== DONE) {
        v = x
        break
      }
      stack.pop()
      if (top.kind === K_OBJECT) closeMap(top.at, top.n, top.written)
    }
  }
}

// ---------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------

function enter (settings) {
  if (depth++ > 0) {
    saved.push([target, view, pos, start, O, nest])
    fresh(1 << 12)
  } else if (target.length - pos < MIN_FREE) {
    fresh(Math.min(target.length, 1 << 20))
  }
  O = settings
  start = pos
  nest = 0
}

function leave () {
  if (--depth > 0) {
    const s = saved.pop()
    target = s[0]; view = s[1]; pos = s[2]; start = s[3]; O = s[4]; nest = s[5]
  } else {
    // A large call's buffer is not kept (the views `pack` returned keep it alive as long
    // as they are used).
    if (target.length > KEEP_TARGET) fresh(1 << 16)
    O = null
  }
}

/**
 * Encodes one value. The result is a view of an internal buffer that is never written
 * again (later calls write after it).
 */
function pack (value, options) {
  enter(settingsFor(options))
  try {
    writeValue(value)
    const out = target.subarray(start, pos)
    start = pos
    return out
  } catch (e) {
    pos = start
    throw e
  } finally {
    leave()
  }
}

/**
 * Encodes one value and hands the bytes to `use`, which must copy them before it returns
 * (the space is reused by the next call).
 */
function packTransient (value, settings, use) {
  enter(settings)
  try {
    writeValue(value)
    use(target.subarray(start, pos))
  } finally {
    pos = start
    leave()
  }
}

/** Encodes one value as a framed Bolt message: chunks, then the end marker `00 00`. */
function packMessage (value, options) {
  const s = settingsFor(options)
  enter(s)
  try {
    ensure(2)
    pos += 2
    writeValue(value)
    const len = pos - start - 2
    if (len <= s.maxChunkSize) {
      target[start] = len >> 8
      target[start + 1] = len & 0xff
      ensure(2)
      target[pos++] = 0
      target[pos++] = 0
      const out = target.subarray(start, pos)
      start = pos
      return out
    }
    const out = frame(target.subarray(start + 2, pos), s.maxChunkSize)
    pos = start
    return out
  } catch (e) {
    pos = start
    throw e
  } finally {
    leave()
  }
}

/** Frames a message's bytes into chunks of at most `max` bytes plus `00 00`. */
function frame (message, max) {
  const len = message.length
  if (len === 0) throw new RangeError('boltcodec: cannot frame an empty message (it would read as a NOOP)')
  const chunks = Math.ceil(len / max)
  const out = Buffer.allocUnsafe(len + 2 * chunks + 2)
  let q = 0
  for (let at = 0; at < len; at += max) {
    const n = Math.min(max, len - at)
    out[q++] = n >> 8
    out[q++] = n & 0xff
    out.set(message.subarray(at, at + n), q)
    q += n
  }
  out[q++] = 0
  out[q++] = 0
  return out
}

module.exports = { pack, packMessage, packTransient, frame, makeSettings, settingsFor }
