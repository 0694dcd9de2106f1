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
let depth = 0
const saved = []

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
  const max = o.maxChunkSize === undefined ? MAX_CHUNK : o.maxChunkSize
  if (!Number.isInteger(max) || max < 1 || max > MAX_CHUNK) {
    throw new RangeError(`boltcodec: maxChunkSize must be 1…65535, got ${o.maxChunkSize}`)
  }
  return {
    dehydrate: typeof o.dehydrate === 'function' ? o.dehydrate : null,
    Structure: typeof o.Structure === 'function' ? o.Structure : null,
    uuid: o.uuid === true,
    legacyStructs: o.legacyStructs === true,
    driver: o.driver === true,
    bytes: o.bytes !== false,
    unpackable: typeof o.unpackable === 'function' ? o.unpackable : null,
    maxChunkSize: max
  }
}

const DEFAULT_SETTINGS = makeSettings()
let lastOptions = null
let lastSettings = DEFAULT_SETTINGS

/** The settings for an options object; the last one is remembered. */
function settingsFor (options) {
  if (options === undefined || options === null) return DEFAULT_SETTINGS
  if (options !== lastOptions) {
    lastSettings = makeSettings(options)
    lastOptions = options
  }
  return lastSettings
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
  writeSize(0x90, 0xd4, n, 'list', a)
  for (let i = 0; i < n; i++) {
    const x = a[i]
    if (x === undefined) {
      ensure(1)
      target[pos++] = 0xc0
    } else {
      writeValue(x)
    }
  }
}

function writeObjectMap (o) {
  const keys = Object.keys(o)
  let n = 0
  for (let i = 0; i < keys.length; i++) if (o[keys[i]] !== undefined) n++
  writeSize(0xa0, 0xd8, n, 'map', o)
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]
    const x = o[k]
    if (x !== undefined) {
      writeString(k)
      writeValue(x)
    }
  }
}

function writeMap (m) {
  let n = 0
  for (const [k, x] of m) {
    if (typeof k !== 'string') fail(m, 'map keys must be strings', 'type')
    if (x !== undefined) n++
  }
  writeSize(0xa0, 0xd8, n, 'map', m)
  for (const [k, x] of m) {
    if (x !== undefined) {
      writeString(k)
      writeValue(x)
    }
  }
}

function writeStruct (s) {
  const tag = s.signature
  const fields = s.fields
  const n = fields.length
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
  for (let i = 0; i < n; i++) {
    const x = fields[i]
    if (x === undefined && !O.driver) {
      ensure(1)
      target[pos++] = 0xc0
    } else {
      writeValue(x)
    }
  }
}

function writeObject (v) {
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
  switch (typeof v) {
    case 'string':
      return writeString(v)
    case 'number':
      return writeFloat(v)
    case 'boolean':
      ensure(1)
      target[pos++] = v ? 0xc3 : 0xc2
      return
    case 'bigint':
      return writeBigInt(v)
    case 'object':
      if (v === null) {
        ensure(1)
        target[pos++] = 0xc0
        return
      }
      if (O.dehydrate !== null) {
        v = O.dehydrate(v)
        if (typeof v !== 'object' || v === null) return writePlain(v)
      }
      return writeObject(v)
    default:
      return fail(v, `cannot pack a value of type ${typeof v}: ${String(v)}`, 'type')
  }
}

/** `writeValue` for what a dehydrate hook returned (not dehydrated again). */
function writePlain (v) {
  const d = O.dehydrate
  O = { ...O, dehydrate: null }
  try {
    writeValue(v)
  } finally {
    O = { ...O, dehydrate: d }
  }
}

// ---------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------

function enter (settings) {
  if (depth++ > 0) {
    saved.push([target, view, pos, start, O])
    fresh(1 << 12)
  } else if (target.length - pos < MIN_FREE) {
    fresh(Math.min(target.length, 1 << 20))
  }
  O = settings
  start = pos
}

function leave () {
  if (--depth > 0) {
    const s = saved.pop()
    target = s[0]; view = s[1]; pos = s[2]; start = s[3]; O = s[4]
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
