'use strict'
/**
 * boltcodec: PackStream (Neo4j's value format) and Bolt message framing for Node.js.
 *
 * Decoding runs in Rust (the `boltcodec` core crates: every limit enforced, strict UTF-8,
 * errors with byte offsets) and hands JS a compact tape that one JS pass turns into
 * values. Encoding runs in JS straight into a Buffer. See README.md for the design and
 * `driver.js` for the drop-in codec for neo4j-driver.
 *
 * @module boltcodec
 */

const { Structure, Uuid, BoltcodecError } = require('./lib/types.js')
const decode = require('./lib/decode.js')
const encode = require('./lib/encode.js')
const native = require('./native.js')
const {
  ClientConnection, ClientHandshake, ServerHandshake, WebSocket, requests, basicAuth,
  ConnectionError, HandshakeError, WebSocketError
} = require('./lib/connection.js')

/**
 * Options for decoding. Every field is optional. They are read at each call (a changed
 * options object takes effect at the next call); a {@link Dechunker} reads them once, at
 * construction.
 *
 * @typedef {object} DecodeOptions
 * @property {'number' | 'bigint' | 'integer'} [int] how integers come out: `'number'`
 *   (default; as neo4j-driver's `disableLosslessIntegers`, values beyond ±(2^53 − 1) become
 *   ±Infinity), `'bigint'`, or `'integer'` (neo4j-driver-core `Integer` objects; needs that
 *   package)
 * @property {(signature: number, fields: unknown[]) => unknown} [hydrate] turns each
 *   structure into a value (called innermost first); default: a {@link Structure}
 * @property {(bytes: Uint8Array) => unknown} [createUuid] turns each UUID into a value;
 *   default: a {@link Uuid}
 * @property {'uint8' | 'int8'} [bytes] the array type of Bytes values (default `'uint8'`;
 *   neo4j-driver uses `'int8'`)
 * @property {boolean} [uuid] accept the PackStream v2 UUID marker `E0` (Bolt 6.1+)
 * @property {boolean} [legacyStructs] accept the legacy `DC`/`DD` structure markers
 * @property {number} [maxDepth] deepest nesting (default 1024)
 * @property {number} [maxStringLen] longest string in bytes (default 2^31 − 1)
 * @property {number} [maxBytesLen] longest byte array (default 2^31 − 1)
 * @property {number} [maxContainerLen] most items of one list, map or structure
 *   (default 2^31 − 1)
 * @property {number} [maxTotalElements] most items, entries and fields in one value,
 *   summed (default 2^26)
 * @property {number} [maxMessageSize] largest de-chunked message in bytes (default 64 MiB)
 * @property {number} [maxChunks] most chunks in one message (default 2^20)
 */

/**
 * Options for encoding. Every field is optional, and read at each call.
 *
 * @typedef {object} EncodeOptions
 * @property {(value: object) => unknown} [dehydrate] called on every object before it is
 *   written; may return a {@link Structure} (neo4j-driver's `toStructure` fits)
 * @property {boolean} [uuid] allow writing {@link Uuid} values (PackStream v2, Bolt 6.1+)
 * @property {boolean} [legacyStructs] write structures of 16+ fields with `DC`/`DD`
 *   instead of failing
 * @property {number} [maxChunkSize] largest chunk `packMessage` writes (default 65535)
 */

/** @typedef {import('./lib/connection.js').ConnectionOptions} ConnectionOptions */
/** @typedef {import('./lib/connection.js').ConnectionEvent} ConnectionEvent */
/** @typedef {import('./lib/connection.js').ServerState} ServerState */
/** @typedef {import('./lib/connection.js').Request} Request */
/** @typedef {import('./lib/connection.js').RequestType} RequestType */
/** @typedef {import('./lib/connection.js').TxOptions} TxOptions */
/** @typedef {import('./lib/connection.js').HandshakeStep} HandshakeStep */
/** @typedef {import('./lib/connection.js').WebSocketInput} WebSocketInput */

/**
 * Decodes one PackStream value that fills `input` exactly.
 *
 * Strings, lists, maps, floats, booleans and null map to their JS counterparts; integers
 * follow `options.int`; Bytes become `Uint8Array` (or `Int8Array`); structures and UUIDs
 * go through `options.hydrate` / `options.createUuid`.
 *
 * @param {Uint8Array | ArrayBuffer} input the encoded value
 * @param {DecodeOptions} [options]
 * @returns {unknown} the value
 * @throws {BoltcodecError} on invalid or over-limit input, with `kind` and `offset`
 */
function unpack (input, options) {
  return decode.unpack(input, options)
}

/**
 * Encodes one JS value as PackStream.
 *
 * `null`/`undefined` in lists → Null (`undefined` map values are left out), booleans →
 * Boolean, **every `number` → Float** (as neo4j-driver does; use a `bigint` or a
 * neo4j-driver-core `Integer` for Integer), strings → String, `Uint8Array`/`Int8Array` →
 * Bytes, arrays and other iterables → List, plain objects and `Map`s with string keys →
 * Dictionary, {@link Structure} → Structure, {@link Uuid} → UUID (with `options.uuid`).
 *
 * @param {unknown} value
 * @param {EncodeOptions} [options]
 * @returns {Buffer} the bytes (a view of an internal buffer that is not written again)
 * @throws {TypeError | RangeError} for values PackStream cannot hold
 */
function pack (value, options) {
  return encode.pack(value, options)
}

/**
 * Encodes one value as a framed Bolt message: chunks of at most `options.maxChunkSize`
 * bytes, then the end marker `00 00`.
 *
 * @param {unknown} value usually a {@link Structure} (a Bolt request)
 * @param {EncodeOptions} [options]
 * @returns {Buffer} the framed bytes
 */
function packMessage (value, options) {
  return encode.packMessage(value, options)
}

/**
 * Frames already encoded message bytes into chunks plus the end marker.
 *
 * @param {Uint8Array} message the message (not empty)
 * @param {number} [maxChunkSize] largest chunk, 1…65535 (default 65535)
 * @returns {Buffer} the framed bytes
 */
function frame (message, maxChunkSize = 0xffff) {
  if (!Number.isInteger(maxChunkSize) || maxChunkSize < 1 || maxChunkSize > 0xffff) {
    throw new RangeError(`boltcodec: maxChunkSize must be 1…65535, got ${maxChunkSize}`)
  }
  return encode.frame(message, maxChunkSize)
}

/**
 * Decodes a whole batch of RECORD messages in one native call: `input` holds complete
 * framed messages (as read from the socket), each a RECORD (`B1 71 [values]`).
 *
 * @param {Uint8Array | ArrayBuffer} input framed RECORD messages
 * @param {DecodeOptions} [options]
 * @returns {unknown[][]} each record's list of values
 * @throws {BoltcodecError} for invalid framing or PackStream, a message that is not a
 *   RECORD (`not_a_record`), or input ending inside a message (`truncated`)
 */
function decodeRecords (input, options) {
  return /** @type {unknown[][]} */ (decode.decodeFrames(input, options, true))
}

/**
 * {@link decodeRecords} for very large batches: the native decoding runs on the libuv
 * thread pool, and the JS values are built in slices of a few milliseconds, so the event
 * loop stays free. The input is copied at the call; the caller may reuse it at once.
 *
 * @param {Uint8Array | ArrayBuffer} input framed RECORD messages
 * @param {DecodeOptions} [options]
 * @returns {Promise<unknown[][]>} each record's list of values
 */
function decodeRecordsAsync (input, options) {
  return /** @type {Promise<unknown[][]>} */ (decode.decodeFramesAsync(input, options, true))
}

/**
 * Decodes every message of a buffer of complete framed messages (any kind: RECORD,
 * SUCCESS, FAILURE, …) in one native call.
 *
 * @param {Uint8Array | ArrayBuffer} input framed messages
 * @param {DecodeOptions} [options]
 * @returns {unknown[]} each message (a {@link Structure} unless `options.hydrate` says
 *   otherwise)
 */
function decodeMessages (input, options) {
  return decode.decodeFrames(input, options, false)
}

/**
 * Push parser for a Bolt byte stream (server responses, or client requests): feed it
 * reads as they come, take complete messages out. All messages that one read completes
 * are decoded in one native call.
 *
 * ```js
 * const d = new Dechunker({ int: 'bigint' })
 * socket.on('data', (bytes) => {
 *   for (const message of d.messages(bytes)) handle(message)
 * })
 * ```
 *
 * With `records: true`, a RECORD message comes out as its list of values (as from
 * {@link decodeRecords}) and any other message as a {@link Structure}.
 */
class Dechunker {
  /**
   * @param {DecodeOptions & {records?: boolean}} [options] read once, here: they are the
   *   stream's settings
   */
  constructor (options) {
    /** @private */
    this._s = new decode.StreamDecoder(options)
  }

  /**
   * Feeds the next bytes. Messages they complete are ready for {@link Dechunker#next};
   * incomplete data is kept. Unread messages of the previous push stay readable.
   *
   * @param {Uint8Array | ArrayBuffer} bytes
   * @returns {number} how many messages are ready
   */
  push (bytes) {
    return this._s.push(bytes)
  }

  /**
   * The next message, or `undefined` when none is ready.
   *
   * @returns {unknown}
   * @throws {BoltcodecError} for a message that failed to decode (the next call goes on
   *   with the following message), or for broken framing (the stream is then unusable
   *   until {@link Dechunker#reset}); also whatever a hook throws for this message
   *   (`hydrate`, `createUuid`), and the next call goes on with the following message
   */
  next () {
    return this._s.next()
  }

  /**
   * Feeds bytes and returns every message they complete.
   *
   * @param {Uint8Array | ArrayBuffer} bytes
   * @returns {unknown[]}
   * @throws {BoltcodecError} at the first message that fails (earlier ones are lost)
   */
  messages (bytes) {
    this._s.push(bytes)
    return this._s.takeAll()
  }

  /**
   * Checks that the stream ended between messages (call when the connection closes).
   *
   * @throws {BoltcodecError} `truncated` if it stopped inside a message
   */
  end () {
    this._s.end()
  }

  /** Forgets all state, as for a new connection. */
  reset () {
    this._s.reset()
  }
}

/**
 * Decodes a whole PULL response into Apache Arrow columns and returns them as Arrow IPC
 * stream bytes, which apache-arrow's `tableFromIPC` (and any Arrow IPC reader) takes.
 *
 * `bytes` are the chunked RECORD messages and the summary as received after the RUN's
 * SUCCESS; `fields` are that SUCCESS's `fields`. Column types follow the rules of the
 * `boltcodec-arrow` crate, from every row: integers `Int64`, floats (and integers mixed
 * with floats) `Float64`, strings `Utf8`, nulls join any type, nodes and relationships
 * structs, other mixes text; a result without rows has columns of the `Null` type.
 *
 * @param {Uint8Array} bytes the PULL response
 * @param {string[]} fields the column names
 * @param {string} [version] the negotiated Bolt version, `'5.8'` by default
 * @param {boolean} [utcPatch] whether Bolt 4.4's `utc` patch is in effect
 * @returns {Buffer} an Arrow IPC stream: the schema, one record batch (none without rows)
 * @throws {BoltcodecError} on malformed input (`offset` inside the record message,
 *   `messageOffset` where its message starts in `bytes`), a server FAILURE in the bytes
 *   (`kind` `'failure'`), or bytes that end before the summary (`'unexpected_end'`)
 */
function decodeRecordsToArrowIPC (bytes, fields, version = '5.8', utcPatch = false) {
  if (typeof native.decodeRecordsToArrowIpc !== 'function') {
    throw new Error('boltcodec was built without its `arrow` feature')
  }
  const result = native.decodeRecordsToArrowIpc(bytes, fields, version, utcPatch)
  if (result.error) throw new BoltcodecError(result.error)
  return /** @type {Buffer} */ (result.ipc)
}

module.exports = {
  pack,
  packMessage,
  frame,
  unpack,
  decodeRecords,
  decodeRecordsAsync,
  decodeMessages,
  Dechunker,
  decodeRecordsToArrowIPC,
  Structure,
  Uuid,
  BoltcodecError,
  ClientConnection,
  ClientHandshake,
  ServerHandshake,
  WebSocket,
  requests,
  basicAuth,
  ConnectionError,
  HandshakeError,
  WebSocketError
}
