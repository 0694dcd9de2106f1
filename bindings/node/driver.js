'use strict'
/**
 * Drop-in codec for the official `neo4j-driver` (5.28.x and 6.x): makes the driver pack,
 * de-chunk and unpack with boltcodec, with the driver's own types and results. Another
 * release, or internals laid out otherwise, is left untouched; `status()` says why.
 *
 * ```js
 * require('boltcodec/driver').install() // before or after require('neo4j-driver')
 * const neo4j = require('neo4j-driver')
 * ```
 *
 * `install` replaces three methods of the driver's internal classes, and a fourth where
 * the release's is the known one (in the `neo4j-driver-bolt-connection` package that
 * `neo4j-driver` loads):
 *
 * * `Dechunker.prototype.write` (`lib/channel/chunking.js`): each read from the socket
 *   goes to one native call that de-chunks it and decodes every message it completes.
 * * `Unpacker.prototype.unpack` (`lib/packstream/packstream-v1.js`, inherited by v2):
 *   turns a decoded message into JS values, with the unpacker's integer mode
 *   (`Integer`, `number` via `disableLosslessIntegers`, or `bigint` via `useBigInt`), its
 *   UUID setting and the protocol's structure hydration (Node, DateTime, …).
 * * `Packer.prototype.packable` (same file): encodes the whole message in JS with
 *   boltcodec's encoder and hands the bytes to the driver's chunker in one write.
 * * `ResultStreamObserver.prototype.onNext` (`lib/bolt/stream-observers.js`): builds the
 *   `Record` of each row and hands it to the result's observers as the driver's does,
 *   without its two closures per row; only where the release's method is the known one
 *   (5.28.x, 6.0–6.3), else the driver's stays and `status().records` says why.
 *
 * What differs from the driver's own codec: invalid input is rejected instead of
 * decoded leniently (a string that is not UTF-8 fails with `invalid_utf8` where the driver
 * substitutes U+FFFD), and decoding enforces the default limits (64 MiB per message,
 * nesting depth 1024). Either failure reaches the driver, and its users, as the driver's
 * own protocol error: a `Neo4jError` with code `ProtocolError` (`error.PROTOCOL_ERROR`)
 * whose `cause` is the {@link BoltcodecError} (kind and byte offset); the driver closes
 * the connection, as for its own protocol errors.
 *
 * @module boltcodec/driver
 */

const path = require('path')
const encode = require('./lib/encode.js')
const decode = require('./lib/decode.js')
const { BoltcodecError } = require('./lib/types.js')
const { makeFastHydrate } = require('./lib/fast-hydrate.js')

/**
 * The driver's internal modules, found from `neo4j-driver`.
 * @typedef {object} DriverModules
 * @property {any} packstream `lib/packstream/packstream-v1.js`
 * @property {any} chunking `lib/channel/chunking.js`
 * @property {any} ChannelBuffer `lib/channel/channel-buf.js` default export
 * @property {any} Structure `lib/packstream/structure.js` Structure
 * @property {any} observers `lib/bolt/stream-observers.js` (`null` if missing)
 * @property {any} core `neo4j-driver-core`
 * @property {string} version the `neo4j-driver` release
 */

/** A module of the driver's, or `null` when the release has no such file. */
function optionalRequire (file) {
  try {
    return require(file)
  } catch (e) {
    return null
  }
}

/**
 * @param {string} [driverDir] the `neo4j-driver` package directory
 * @returns {DriverModules}
 */
function driverModules (driverDir) {
  const driverPkg = driverDir
    ? path.join(driverDir, 'package.json')
    : require.resolve('neo4j-driver/package.json', { paths: [process.cwd(), ...module.paths] })
  const boltDir = path.dirname(require.resolve('neo4j-driver-bolt-connection/package.json', {
    paths: [path.dirname(driverPkg)]
  }))
  const core = require(require.resolve('neo4j-driver-core', { paths: [boltDir] }))
  return {
    packstream: require(path.join(boltDir, 'lib/packstream/packstream-v1.js')),
    chunking: require(path.join(boltDir, 'lib/channel/chunking.js')),
    ChannelBuffer: require(path.join(boltDir, 'lib/channel/channel-buf.js')).default,
    Structure: require(path.join(boltDir, 'lib/packstream/structure.js')).Structure,
    observers: optionalRequire(path.join(boltDir, 'lib/bolt/stream-observers.js')),
    core,
    version: require(driverPkg).version
  }
}

const identity = (x) => x

/**
 * Encoder settings that reproduce the driver's `Packer`.
 *
 * @param {DriverModules} m
 * @param {{allowUUID?: boolean, byteArrays?: boolean, dehydrate?: (x: unknown) => unknown}} o
 */
function packSettings (m, o) {
  const { newError, error } = m.core
  return encode.makeSettings({
    driver: true,
    legacyStructs: true,
    Structure: m.Structure,
    uuid: o.allowUUID === true,
    bytes: o.byteArrays !== false,
    dehydrate: o.dehydrate && o.dehydrate !== identity ? o.dehydrate : undefined,
    unpackable (value, reason, code) {
      switch (code) {
        case 'uuid':
          throw newError('Cannot pack UUID, negotiated bolt version uses older packstream', error.PROTOCOL_ERROR)
        case 'bytes':
          throw newError('Byte arrays are not supported by the database this driver is connected to')
        case 'type':
          throw newError(`Unable to pack the given value: ${String(value)}`, error.PROTOCOL_ERROR)
        default:
          throw newError(reason)
      }
    }
  })
}

/** The signature of the RECORD message. */
const RECORD = 0x71

/**
 * Whether `hydrate` returns structures of signature `sig` as they are (the same object),
 * whatever their fields: checked on probes of several sizes and field kinds.
 *
 * @param {any} S the driver's Structure class
 * @param {(s: unknown) => unknown} hydrate
 * @param {number} sig
 */
function passesThrough (S, hydrate, sig) {
  if (hydrate === identity) return true
  const probes = [[], [[]], [[1, 'a', null]], [{}], [1, 2, 3, 4, 5, 6, 7, 8]]
  try {
    return probes.every((fields) => {
      const before = fields.slice()
      const s = new S(sig, fields)
      return hydrate(s) === s && s.signature === sig && s.fields === fields &&
        fields.length === before.length && fields.every((v, i) => v === before[i])
    })
  } catch (e) {
    return false
  }
}

/**
 * Decoder conversions that reproduce the driver's `Unpacker`.
 *
 * @param {DriverModules} m
 * @param {{disableLosslessIntegers?: boolean, useBigInt?: boolean, allowUUID?: boolean,
 *   hydrate?: (s: unknown) => unknown, fastHydrate?: boolean}} o
 */
function unpackOptions (m, o) {
  const { newError, UUID } = m.core
  const hydrate = o.hydrate || identity
  const S = m.Structure
  const int = o.useBigInt ? 'bigint' : o.disableLosslessIntegers ? 'number' : 'integer'
  // Structures the drop-in builds itself, exactly as this transformer would (checked on
  // probe values first; `null` keeps the driver's transformer for everything).
  const fast = o.fastHydrate === false || hydrate === identity ? null : makeFastHydrate(m.core, S, hydrate, int)
  // (Its kinds are probed when first needed; status() asks for all of them.)
  if (fast !== null) lastFast = fast
  const fastHydrate = fast === null ? null : fast.hydrate
  // A RECORD message (and any structure of its signature) that the transformer hands back
  // as it is, checked on probes, is made here without the call.
  const asIs = passesThrough(S, hydrate, RECORD)
  return {
    int,
    driverCore: m.core,
    bytes: 'int8',
    hydrate: fast === null
      ? (signature, fields) => signature === RECORD && asIs ? new S(signature, fields) : hydrate(new S(signature, fields))
      : (signature, fields) => {
          if (signature === RECORD && asIs) return new S(signature, fields)
          const v = fastHydrate(signature, fields)
          return v !== undefined ? v : hydrate(new S(signature, fields))
        },
    createUuid: o.allowUUID
      ? (bytes) => new UUID(bytes)
      : () => { throw newError('Unknown packed value with marker e0') },
    uuid: true,
    legacyStructs: true,
    // The driver's result keeps its records: their lists and maps come from allocation
    // sites of their own, which V8 may then pretenure (lib/decode.js, newArray).
    retained: true
  }
}

/**
 * A codec with exactly the driver's conventions, for use outside the driver (tests,
 * tools): `pack` gives the bytes the driver's `Packer` writes, `unpack` the values its
 * `Unpacker` returns.
 *
 * @param {object} [options]
 * @param {boolean} [options.disableLosslessIntegers] integers as numbers
 * @param {boolean} [options.useBigInt] integers as bigints
 * @param {boolean} [options.allowUUID] PackStream v2 (Bolt 6.1)
 * @param {(s: unknown) => unknown} [options.hydrateStructure] as the driver's
 *   `transformer.fromStructure`
 * @param {(x: unknown) => unknown} [options.dehydrateStructure] as the driver's
 *   `transformer.toStructure`
 * @param {string} [options.driverDir] the `neo4j-driver` package directory
 * @returns {{pack: (value: unknown) => Buffer, unpack: (bytes: Uint8Array) => unknown}}
 */
function createCodec (options = {}) {
  const m = driverModules(options.driverDir)
  const settings = packSettings(m, { allowUUID: options.allowUUID, dehydrate: options.dehydrateStructure })
  const uopts = unpackOptions(m, { ...options, hydrate: options.hydrateStructure })
  return {
    pack: (value) => Buffer.from(encode.pack(value, settings)),
    unpack: (bytes) => decode.unpack(bytes, uopts)
  }
}

/**
 * `fn()`, with a {@link BoltcodecError} it throws turned into the driver's protocol error
 * (a `Neo4jError` with code `ProtocolError`, the boltcodec error as its `cause`). Other
 * errors (the driver's own, from its hydration hooks) pass unchanged.
 *
 * @param {DriverModules} m
 * @param {() => unknown} fn
 */
function asDriverError (m, fn) {
  try {
    return fn()
  } catch (e) {
    throw driverError(m, e)
  }
}

/**
 * The error to throw for `e`: a {@link BoltcodecError} as the driver's protocol error,
 * anything else as it is.
 *
 * @param {DriverModules} m
 * @param {unknown} e
 */
function driverError (m, e) {
  return e instanceof BoltcodecError
    ? m.core.newError(`boltcodec: ${e.message}`, m.core.error.PROTOCOL_ERROR, e)
    : e
}

/** A message decoded by the patched `Dechunker`, waiting for `Unpacker#unpack`. */
class PendingMessage {
  constructor (stream, index, error) {
    this.stream = stream
    this.index = index
    this.error = error
  }

  read (conv) {
    if (this.error) throw this.error
    return this.stream.readAt(this.index, conv)
  }
}

/** The remaining bytes of one of the driver's buffers, which are then consumed. */
function remainingBytes (buf) {
  const bytes = peekRemaining(buf)
  skipBytes(buf, bytes.length)
  return bytes
}

/** The remaining bytes of one of the driver's buffers, leaving its position alone. */
function peekRemaining (buf) {
  if (buf._buffer && typeof buf.position === 'number') {
    return buf._buffer.subarray(buf.position, buf.length)
  }
  const n = buf.remaining()
  const bytes = Buffer.allocUnsafe(n)
  const at = buf.position
  for (let i = 0; i < n; i++) bytes[i] = buf.getUInt8(at + i)
  return bytes
}

/** Moves a driver buffer's position `n` bytes on (as its own reads do). */
function skipBytes (buf, n) {
  if (typeof buf.position === 'number') {
    buf.position += n
  } else {
    for (let i = 0; i < n; i++) buf.readUInt8()
  }
}

/**
 * `ResultStreamObserver#onNext` of neo4j-driver 5.28.x and 6.0–6.3
 * (`lib/bolt/stream-observers.js`), white space removed. The drop-in replaces the
 * method only where the release's is this one.
 */
const DRIVER_ON_NEXT = 'function(rawRecord){this._haveRecordStreamed=true;varrecord=newneo4j_driver_core_1.Record(' +
  'this._fieldKeys,rawRecord,this._fieldLookup);if(this._observers.some(function(o){returno.onNext;})){' +
  'this._observers.forEach(function(o){if(o.onNext){o.onNext(record);}});}else{this._queuedRecords.push(record);' +
  'if(this._queuedRecords.length>this._highRecordWatermark){this._autoPull=false;}}}'

/**
 * Why the drop-in cannot build records itself on this release (the driver's own
 * `ResultStreamObserver#onNext` then stays), or `null` when it can: the method must be the
 * known one, and the core's `Record` must keep the row it is given as it is.
 *
 * @param {DriverModules} m
 * @returns {string | null}
 */
function recordsProblem (m) {
  const RSO = m.observers && m.observers.ResultStreamObserver
  if (typeof RSO !== 'function' || typeof RSO.prototype.onNext !== 'function') {
    return 'stream-observers.js has no ResultStreamObserver#onNext'
  }
  if (String(RSO.prototype.onNext).replace(/\s+/g, '') !== DRIVER_ON_NEXT) {
    return 'ResultStreamObserver#onNext is not the one of neo4j-driver 5.28.x / 6.0-6.3'
  }
  const Record = m.core.Record
  if (typeof Record !== 'function') return 'neo4j-driver-core has no Record'
  const row = [1, 'x']
  const r = new Record(['a', 'b'], row, { a: 0, b: 1 })
  if (r._fields !== row || r.get('b') !== 'x' || r.length !== 2) return 'Record does not keep its row as it is'
  return null
}

/**
 * `ResultStreamObserver#onNext` of the drop-in: the driver's (`DRIVER_ON_NEXT`) step for
 * step — the same `Record`, the same observers called in the same order, the same queue
 * and watermark — without the two closures and array callbacks per record.
 *
 * @param {any} Record the core's Record class
 */
function makeOnNext (Record) {
  return function onNext (rawRecord) {
    this._haveRecordStreamed = true
    const record = new Record(this._fieldKeys, rawRecord, this._fieldLookup)
    const observers = this._observers
    // As `some` then `forEach`: the length read once each, holes skipped.
    let n = observers.length
    let any = false
    for (let i = 0; i < n; i++) {
      if (i in observers && observers[i].onNext) {
        any = true
        break
      }
    }
    if (any) {
      n = observers.length
      for (let i = 0; i < n; i++) {
        if (!(i in observers)) continue
        const o = observers[i]
        if (o.onNext) o.onNext(record)
      }
    } else {
      const queue = this._queuedRecords
      queue.push(record)
      if (queue.length > this._highRecordWatermark) this._autoPull = false
    }
  }
}

let installed = null

/** What the last {@link install} call did, for {@link status}. */
let lastStatus = { installed: false, level: 'off', version: null, reason: 'install() was not called', records: 'driver' }

/**
 * The hydrator of the last connection whose transformer was checked: status() names the
 * structure kinds it builds itself.
 */
let lastFast = null

/**
 * Checks that the driver's internals are the ones the drop-in replaces, by their
 * layout (not only by the version number): the three methods, and the fields the
 * patched methods read. Returns why not, or `null` when they are.
 *
 * @param {DriverModules} m
 * @returns {string | null}
 */
function layoutProblem (m) {
  const { Packer, Unpacker } = m.packstream || {}
  const Dechunker = m.chunking && m.chunking.Dechunker
  const fn = (C, name) => C && C.prototype && typeof C.prototype[name] === 'function'
  if (!fn(Packer, 'packable')) return 'packstream-v1.js has no Packer#packable'
  if (!fn(Unpacker, 'unpack')) return 'packstream-v1.js has no Unpacker#unpack'
  if (!fn(Dechunker, 'write')) return 'chunking.js has no Dechunker#write'
  if (typeof m.ChannelBuffer !== 'function') return 'channel-buf.js has no default export'
  if (typeof m.Structure !== 'function') return 'structure.js has no Structure'
  const core = m.core || {}
  if (typeof core.newError !== 'function' || !core.error || typeof core.error.PROTOCOL_ERROR !== 'string') {
    return 'neo4j-driver-core has no newError / error.PROTOCOL_ERROR'
  }
  const unpacker = new Unpacker(true, true)
  if (unpacker._disableLosslessIntegers !== true || unpacker._useBigInt !== true) {
    return 'Unpacker keeps its integer mode in fields the drop-in does not know'
  }
  const ch = {}
  const packer = new Packer(ch)
  if (packer._ch !== ch || typeof packer._byteArraysSupported !== 'boolean') {
    return 'Packer keeps its channel or byte-array flag in fields the drop-in does not know'
  }
  return null
}

/**
 * Whether a release is one the drop-in is tested with: neo4j-driver 5.28.x (the 5.x
 * LTS) and 6.x.
 *
 * @param {string} version
 */
function supportedRelease (version) {
  const [major, minor] = String(version).split('.').map(Number)
  return (major === 5 && minor === 28) || major === 6
}

/**
 * Makes `neo4j-driver` use boltcodec for packing, de-chunking and unpacking (see the
 * module docs). Connections opened afterwards use it; calling it twice does nothing.
 * On a release it does not recognise it changes nothing and {@link status} says why.
 *
 * @param {object} [options]
 * @param {string} [options.driverDir] the `neo4j-driver` package directory (default:
 *   resolved from the working directory)
 * @param {boolean} [options.pack] replace the packer (default true)
 * @param {boolean} [options.unpack] replace the dechunker and unpacker (default true)
 * @param {boolean} [options.force] install on a release that is not a tested one
 *   (5.28.x, 6.x) when its internals have the expected layout
 * @returns {() => void} a function that restores the driver's own codec
 */
function install (options = {}) {
  if (installed !== null) return uninstall
  let m
  let version = null
  try {
    m = driverModules(options.driverDir)
    version = m.version
  } catch (e) {
    lastStatus = { installed: false, level: 'off', version, reason: `neo4j-driver not found: ${e.message}`, records: 'driver' }
    return uninstall
  }
  const problem = layoutProblem(m)
  if (problem !== null || (!supportedRelease(version) && options.force !== true)) {
    // Leave the driver as it is: its own codec works, a half-patched one might not.
    lastStatus = {
      installed: false,
      level: 'off',
      version,
      reason: problem !== null
        ? `unrecognised driver layout (${problem}); the driver's own codec is in use`
        : `neo4j-driver ${version} is not a tested release (5.28.x, 6.x); pass force: true to use it anyway`,
      records: 'driver'
    }
    return uninstall
  }
  const Packer = m.packstream.Packer
  const Unpacker = m.packstream.Unpacker
  const Dechunker = m.chunking.Dechunker
  const saved = {
    packable: Packer.prototype.packable,
    unpack: Unpacker.prototype.unpack,
    write: Dechunker.prototype.write,
    onNext: null
  }
  // Records: built by the drop-in's onNext where the release's is the known one.
  const recordsWhyNot = options.unpack === false ? 'the unpacker is the driver\'s (unpack: false)' : recordsProblem(m)
  const Observer = m.observers && m.observers.ResultStreamObserver
  if (recordsWhyNot === null) {
    saved.onNext = Observer.prototype.onNext
    Observer.prototype.onNext = makeOnNext(m.core.Record)
  }
  const ChannelBuffer = m.ChannelBuffer

  if (options.pack !== false) {
    Packer.prototype.packable = function packable (x, dehydrateStruct = identity) {
      const packer = this
      let cache = packer.__boltcodec
      if (cache === undefined || cache.dehydrate !== dehydrateStruct ||
          cache.allowUUID !== packer.allowUUID || cache.bytes !== packer._byteArraysSupported) {
        cache = {
          dehydrate: dehydrateStruct,
          allowUUID: packer.allowUUID,
          bytes: packer._byteArraysSupported,
          settings: packSettings(m, {
            allowUUID: packer.allowUUID,
            byteArrays: packer._byteArraysSupported,
            dehydrate: dehydrateStruct
          })
        }
        packer.__boltcodec = cache
      }
      const settings = cache.settings
      return () => encode.packTransient(x, settings, (bytes) => {
        packer._ch.writeBytes(new ChannelBuffer(bytes))
      })
    }
  }

  if (options.unpack !== false) {
    Unpacker.prototype.unpack = function unpack (buffer, hydrateStructure = identity) {
      let cache = this.__boltcodec
      if (cache === undefined || cache.hydrate !== hydrateStructure) {
        const opts = unpackOptions(m, {
          disableLosslessIntegers: this._disableLosslessIntegers,
          useBigInt: this._useBigInt,
          allowUUID: this.allowUUID,
          hydrate: hydrateStructure
        })
        cache = { hydrate: hydrateStructure, opts, conv: decode.makeConv(opts) }
        this.__boltcodec = cache
      }
      const conv = cache.conv
      const opts = cache.opts
      if (buffer instanceof PendingMessage) {
        // (Not through asDriverError: no closure per message.)
        try {
          return buffer.read(conv)
        } catch (e) {
          throw driverError(m, e)
        }
      }
      // The driver's contract: read one value and leave the buffer after it (the bytes
      // that follow are the caller's: the next value, or data it checks for).
      return asDriverError(m, () => {
        const [value, used] = decode.unpackPrefix(peekRemaining(buffer), opts)
        skipBytes(buffer, used)
        return value
      })
    }

    Dechunker.prototype.write = function write (buf) {
      let s = this.__boltcodec
      if (s === undefined) {
        s = this.__boltcodec = { stream: new decode.StreamDecoder({ uuid: true, legacyStructs: true }), handed: 0 }
      }
      const bytes = remainingBytes(buf)
      try {
        s.stream.push(bytes)
      } catch (e) {
        // Not a decode error (those come with their message) but misuse: report it where
        // the driver handles errors, in `unpack`, rather than throw in a socket callback.
        this.onmessage(new PendingMessage(s.stream, -1, e))
        return
      }
      // Announce each slot exactly once, whenever its reader reads it: the slots this
      // push made ready are those from the last announced one to `available` (messages
      // of earlier pushes not read yet were announced then).
      const ready = s.stream.available
      while (s.handed < ready) this.onmessage(new PendingMessage(s.stream, s.handed++))
    }
  }

  installed = { Packer, Unpacker, Dechunker, Observer, saved }
  lastFast = null
  lastStatus = {
    installed: true,
    level: options.unpack !== false ? 'hydration' : 'codec',
    version,
    reason: null,
    records: recordsWhyNot === null ? 'boltcodec' : `driver: ${recordsWhyNot}`
  }
  return uninstall
}

/** Restores the driver's own codec (undoes {@link install}). */
function uninstall () {
  if (installed === null) return
  const { Packer, Unpacker, Dechunker, Observer, saved } = installed
  Packer.prototype.packable = saved.packable
  Unpacker.prototype.unpack = saved.unpack
  Dechunker.prototype.write = saved.write
  if (saved.onNext !== null) Observer.prototype.onNext = saved.onNext
  installed = null
  lastStatus = { ...lastStatus, installed: false, level: 'off', reason: 'uninstalled', records: 'driver' }
}

/**
 * What the drop-in does now: `installed`, `level` (`'hydration'`: boltcodec packs,
 * de-chunks and unpacks, and builds the driver's structure types itself wherever the
 * connection's transformer builds them as it does; `'codec'`: the same without the
 * unpacker (`install({ unpack: false })`), so the driver decodes and hydrates; `'off'`:
 * the driver's own codec), the `version` of neo4j-driver found, the `reason` when it is
 * off (driver not found, a release that is not tested, or internals laid out otherwise
 * than the drop-in expects — the driver is then left untouched), and `hydrated`: the
 * structure kinds built by the drop-in for the last connection whose transformer it
 * checked (the others go through the driver's transformer); `records`: `'boltcodec'`
 * when the drop-in hands each row to the result as a `Record` itself (the driver's
 * `ResultStreamObserver#onNext` replaced, on releases where it is the known one), else
 * `'driver'`, with the reason after a colon when the drop-in is installed.
 *
 * @example
 * require('boltcodec/driver').install()
 * // … after a query: { installed: true, level: 'hydration', version: '6.3.0',
 * //   reason: null, records: 'boltcodec',
 * //   hydrated: ['Date', 'Duration', 'DateTime (offset)', …] }
 * console.log(require('boltcodec/driver').status())
 *
 * @returns {{installed: boolean, level: 'hydration' | 'codec' | 'off', version: string | null,
 *   reason: string | null, records: string, hydrated: string[]}}
 */
function status () {
  return { ...lastStatus, hydrated: lastFast === null ? [] : lastFast.kinds }
}

/** @returns {boolean} whether {@link install} is in effect */
function isInstalled () {
  return installed !== null
}

module.exports = { install, uninstall, isInstalled, status, createCodec }
