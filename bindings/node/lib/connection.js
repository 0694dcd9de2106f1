'use strict'
// The Bolt layer for JS drivers: the sans-IO client connection, the request builders,
// both handshake roles and the WebSocket adapter. The protocol lives in the Rust crate
// (`bolt`); this file converts values (requests are packed by the JS encoder, responses
// come back through the decoding tape) and turns errors into exceptions.

const native = require('../native.js')
const { pack } = require('./encode.js')
const { makeConv, tapeSource, readTape } = require('./decode.js')
const { BoltcodecError } = require('./types.js')

/**
 * An error of the Bolt layer: a request the connection refuses (`kind`
 * `'illegal_request'`, `'not_negotiated'`, `'defunct'`, `'bad_request'`, or an encoding
 * kind), or bytes from the server it cannot accept (a handshake, framing, message or
 * protocol kind; `'unexpected_response'`). `offset` is where in the received bytes the
 * problem is (-1 for errors about what the caller sent): inside the message for a message
 * that failed to decode, whose start in the stream is `messageOffset`; otherwise counted
 * in the stream (from the first byte after the handshake reply). After an error in
 * received bytes the connection is defunct.
 */
class ConnectionError extends BoltcodecError {
  /**
   * @param {{kind: string, offset: number, messageOffset: number, message: string}} info
   * @param {ConnectionEvent[]} [events] the events of the same read before the error
   */
  constructor (info, events = []) {
    super(info)
    this.name = 'ConnectionError'
    /** @type {ConnectionEvent[]} the events the same read delivered before the error */
    this.events = events
  }
}

/**
 * The handshake on its own failed (`kind` as `bolt::handshake`'s errors: `'bad_magic'`,
 * `'http_response'`, …; `offset` counted from the first byte of the peer's bytes).
 */
class HandshakeError extends BoltcodecError {
  /** @param {{kind: string, offset: number, messageOffset: number, message: string}} info */
  constructor (info) {
    super(info)
    this.name = 'HandshakeError'
  }
}

/**
 * A WebSocket error: a bad upgrade response or request, a malformed or forbidden frame
 * (`offset` in the received frame stream), or data sent after this end's close frame.
 */
class WebSocketError extends BoltcodecError {
  /**
   * @param {{kind: string, offset: number, messageOffset: number, message: string}} info
   * @param {WebSocketInput | null} [input] what the same read gave before the error
   */
  constructor (info, input = null) {
    super(info)
    this.name = 'WebSocketError'
    /** @type {WebSocketInput | null} what the same read gave before the error (for a server, `send` is the refusal to write) */
    this.input = input
  }
}

/**
 * @typedef {'HELLO' | 'LOGON' | 'LOGOFF' | 'RUN' | 'PULL' | 'DISCARD' | 'BEGIN' | 'COMMIT' |
 *   'ROLLBACK' | 'RESET' | 'ROUTE' | 'TELEMETRY' | 'GOODBYE'} RequestType
 */

/**
 * The state of the server's side of a connection, as the connection tracks it.
 *
 * @typedef {'HANDSHAKE' | 'NEGOTIATION' | 'AUTHENTICATION' | 'READY' | 'STREAMING' |
 *   'TX_READY' | 'TX_STREAMING' | 'FAILED' | 'INTERRUPTED' | 'DEFUNCT'} ServerState
 */

/**
 * A request, as the builders make it: its `type` and its options (undefined ones are left
 * out). Values (parameters, metadata, routing context) are written as `pack` writes them:
 * a JS `number` is a Float, a `bigint` an Integer.
 *
 * @typedef {{type: RequestType} & Record<string, unknown>} Request
 */

/**
 * Settings shared by an auto-commit RUN and BEGIN.
 *
 * @typedef {object} TxOptions
 * @property {string[]} [bookmarks]
 * @property {number | bigint} [txTimeout] milliseconds
 * @property {Record<string, unknown>} [txMetadata]
 * @property {'r' | 'w'} [mode] `'r'` for a read
 * @property {string} [db]
 * @property {string} [impUser]
 * @property {string} [notificationsMinimumSeverity]
 * @property {string[]} [notificationsDisabledClassifications]
 * @property {Record<string, unknown>} [extra] more `extra` entries, as they are on the wire
 */

function request (type, options) {
  const r = { type }
  if (options) {
    for (const k of Object.keys(options)) if (options[k] !== undefined) r[k] = options[k]
  }
  return /** @type {Request} */ (r)
}

/**
 * The request builders: each returns a plain {@link Request} for
 * {@link ClientConnection#send}. The connection checks them against the negotiated version
 * and the server's state.
 */
const requests = {
  /**
   * HELLO. On 5.3+ the connection adds `boltAgent` if it has none; on 4.4 it asks for the
   * `utc` patch if `patchBolt` is not given. `auth` belongs here only before 5.1 (later
   * versions authenticate with LOGON).
   *
   * @param {object} options
   * @param {string} options.userAgent
   * @param {{product: string, platform?: string, language?: string, languageDetails?: string}} [options.boltAgent]
   * @param {Record<string, unknown> | null} [options.routing] the routing context (null: none)
   * @param {string[]} [options.patchBolt]
   * @param {Record<string, unknown>} [options.auth]
   * @param {string} [options.notificationsMinimumSeverity]
   * @param {string[]} [options.notificationsDisabledClassifications]
   * @param {Record<string, unknown>} [options.extra]
   * @returns {Request}
   */
  hello (options) { return request('HELLO', options) },
  /**
   * LOGON (5.1+) with an auth token, such as {@link basicAuth} makes.
   * @param {Record<string, unknown>} auth
   * @returns {Request}
   */
  logon (auth) { return request('LOGON', { auth }) },
  /** LOGOFF (5.1+). @returns {Request} */
  logoff () { return request('LOGOFF') },
  /**
   * RUN.
   * @param {string} query
   * @param {Record<string, unknown>} [parameters]
   * @param {TxOptions} [options] only for an auto-commit RUN
   * @returns {Request}
   */
  run (query, parameters, options) { return request('RUN', { ...options, query, parameters }) },
  /**
   * PULL of `n` records (-1: all): the server sends at most `n` and says `hasMore`.
   * @param {number} [n] default -1
   * @param {{qid?: number | bigint, extra?: Record<string, unknown>}} [options]
   * @returns {Request}
   */
  pull (n = -1, options) { return request('PULL', { ...options, n }) },
  /**
   * DISCARD of `n` records (-1: all).
   * @param {number} [n] default -1
   * @param {{qid?: number | bigint, extra?: Record<string, unknown>}} [options]
   * @returns {Request}
   */
  discard (n = -1, options) { return request('DISCARD', { ...options, n }) },
  /**
   * BEGIN an explicit transaction.
   * @param {TxOptions} [options]
   * @returns {Request}
   */
  begin (options) { return request('BEGIN', options) },
  /** COMMIT. @returns {Request} */
  commit () { return request('COMMIT') },
  /** ROLLBACK. @returns {Request} */
  rollback () { return request('ROLLBACK') },
  /** RESET. @returns {Request} */
  reset () { return request('RESET') },
  /**
   * ROUTE (asks for a routing table).
   * @param {Record<string, unknown>} [routing] the routing context
   * @param {string[]} [bookmarks]
   * @param {{db?: string, impUser?: string, extra?: Record<string, unknown>}} [options]
   * @returns {Request}
   */
  route (routing = {}, bookmarks, options) { return request('ROUTE', { ...options, routing, bookmarks }) },
  /**
   * TELEMETRY (5.4+): which driver API ran the next query (0 managed transaction,
   * 1 explicit transaction, 2 auto-commit, 3 `executeQuery`).
   * @param {number} api
   * @returns {Request}
   */
  telemetry (api) { return request('TELEMETRY', { api }) },
  /** GOODBYE: nothing may be sent after it. @returns {Request} */
  goodbye () { return request('GOODBYE') }
}

/**
 * A `basic` auth token for {@link requests.logon} (or HELLO's `auth` before 5.1).
 * @param {string} principal
 * @param {string} credentials
 * @param {string} [realm]
 * @returns {Record<string, string>}
 */
function basicAuth (principal, credentials, realm) {
  const auth = { scheme: 'basic', principal, credentials }
  if (realm !== undefined) auth.realm = realm
  return auth
}

/**
 * What {@link ClientConnection#receive} delivers, in the order of the bytes.
 *
 * * `negotiated`: the handshake agreed on `version`; requests may be sent now.
 * * `records`: the rows that arrived for the PULL at the front, each its list of values
 *   (decoded with the connection's {@link DecodeOptions}).
 * * `success`: a request succeeded; `metadata` is the SUCCESS map. A PULL or DISCARD's
 *   has `hasMore` (true: send another PULL for the rest).
 * * `failure`: a request failed (`code`, `message`, and the whole FAILURE map); later
 *   requests are ignored until RESET.
 * * `ignored`: a request was ignored after a failure or a RESET.
 *
 * @typedef {{type: 'negotiated', version: string}
 *   | {type: 'records', rows: unknown[][]}
 *   | {type: 'success', request: RequestType, metadata: Record<string, unknown>, hasMore?: boolean}
 *   | {type: 'failure', request: RequestType, code: string | null, message: string | null, metadata: Record<string, unknown>}
 *   | {type: 'ignored', request: RequestType}} ConnectionEvent
 */

/**
 * Options of a {@link ClientConnection}; every field is optional. The decoding options
 * ({@link DecodeOptions}: `int`, `hydrate`, limits, …) apply to every received value.
 *
 * @typedef {object} ConnectionOptions
 * @property {string[]} [versions] versions to accept (`'5.8'`); default 6.1 … 4.4
 * @property {boolean} [manifest] offer manifest v1 (default true)
 * @property {string | false} [boltAgent] the `bolt_agent` product the connection adds to
 *   a HELLO without one on 5.3+ (default `boltcodec/<version>`); false adds none
 * @property {boolean} [utcPatch] ask for the `utc` patch on 4.4 (default true)
 * @property {number} [maxChunkSize] largest chunk written (default 65535)
 * @property {'number' | 'bigint' | 'integer'} [int] how integers come out (as `unpack`)
 * @property {(signature: number, fields: unknown[]) => unknown} [hydrate] turns each
 *   structure into a value (default: a `Structure`)
 * @property {(bytes: Uint8Array) => unknown} [createUuid] turns each UUID into a value
 * @property {'uint8' | 'int8'} [bytes] the array type of Bytes values
 * @property {number} [maxDepth] the decoding limits, as for `unpack`
 * @property {number} [maxStringLen]
 * @property {number} [maxBytesLen]
 * @property {number} [maxContainerLen]
 * @property {number} [maxTotalElements]
 * @property {number} [maxMessageSize]
 * @property {number} [maxChunks]
 */

/** The decoding limits among the options, for the native side. */
const LIMIT_KEYS = ['maxDepth', 'maxStringLen', 'maxBytesLen', 'maxContainerLen', 'maxTotalElements',
  'maxMessageSize', 'maxChunks']

function checkBytes (bytes) {
  if (ArrayBuffer.isView(bytes)) return bytes
  if (bytes instanceof ArrayBuffer) return Buffer.from(bytes)
  throw new TypeError('boltcodec: expected a Buffer or Uint8Array')
}

/** @returns {Record<string, unknown>} */
function metadataOf (map) {
  // Always a map: the connection has checked the message before it reached the tape.
  return map !== null && typeof map === 'object' ? /** @type {Record<string, unknown>} */ (map) : {}
}

/**
 * A Bolt client connection without I/O: write {@link ClientConnection#takeOutput} to the
 * socket, feed what the socket reads to {@link ClientConnection#receive}, which returns
 * the events. The Rust connection underneath keeps the protocol: the handshake (manifest
 * v1 or legacy), chunking, matching each response to its request, and the server's state:
 * {@link ClientConnection#send} refuses a request that the server could reject in a state
 * it may be in once the queued requests have run, before a byte of it is written.
 * Requests may be pipelined (several sends, one write). Records arrive as batches through
 * the same decoding path as {@link decodeRecords}; `PULL {n}` gives back-pressure.
 *
 * ```js
 * const conn = new ClientConnection()
 * socket.write(conn.takeOutput()) // the handshake
 * socket.on('data', (bytes) => {
 *   for (const event of conn.receive(bytes)) {
 *     if (event.type === 'negotiated') {
 *       conn.send(requests.hello({ userAgent: 'app/1.0' }))
 *         .send(requests.logon(basicAuth('neo4j', 'secret')))
 *         .send(requests.run('RETURN $x AS x', { x: 1n }))
 *         .send(requests.pull(1000))
 *     } else if (event.type === 'records') {
 *       for (const row of event.rows) console.log(row)
 *     }
 *   }
 *   socket.write(conn.takeOutput())
 * })
 * ```
 */
class ClientConnection {
  /**
   * @param {ConnectionOptions} [options] read once, here
   */
  constructor (options = {}) {
    const decode = {}
    for (const k of LIMIT_KEYS) if (options[k] !== undefined) decode[k] = options[k]
    /** @private */
    this._native = new native.NativeConnection({
      versions: options.versions,
      manifest: options.manifest,
      boltAgent: options.boltAgent === false ? '' : options.boltAgent,
      utcPatch: options.utcPatch,
      maxChunkSize: options.maxChunkSize,
      decode
    })
    /** @private */
    this._source = tapeSource(this._native)
    /** @private */
    this._conv = makeConv(options)
  }

  /** @returns {string | null} the negotiated version (`'5.8'`), null until then */
  get version () {
    return this._native.version()
  }

  /**
   * @returns {ServerState} the server's state as of the responses received
   *   (`INTERRUPTED` while a RESET is on its way; `DEFUNCT`: close the socket)
   */
  get state () {
    return /** @type {ServerState} */ (this._native.state())
  }

  /** @returns {number} how many requests await their summary */
  get pendingRequests () {
    return this._native.pendingRequests()
  }

  /**
   * Whether a request of this type may be sent now.
   * @param {RequestType} type
   * @returns {boolean}
   */
  canSend (type) {
    return this._native.canSend(type)
  }

  /**
   * Queues a request (see {@link requests}); its bytes join {@link ClientConnection#takeOutput}.
   * @param {Request} req
   * @returns {this}
   * @throws {ConnectionError} when the request is not allowed now (nothing is queued),
   *   does not exist in the negotiated version, or has a bad option; `TypeError` for a
   *   value `pack` cannot write
   */
  send (req) {
    if (req === null || typeof req !== 'object' || typeof req.type !== 'string') {
      throw new TypeError('boltcodec: send takes a request made by requests.*')
    }
    const options = {}
    for (const k of Object.keys(req)) if (k !== 'type') options[k] = req[k]
    // UUID values are written; the native side refuses them before 6.1.
    const bytes = pack(options, { uuid: true })
    const error = this._native.send(req.type, bytes)
    if (error) throw new ConnectionError(error)
    return this
  }

  /**
   * Takes every byte waiting to be written to the socket.
   * @returns {Buffer}
   */
  takeOutput () {
    return this._native.takeOutput()
  }

  /**
   * Feeds bytes read from the socket and returns the events they complete.
   *
   * @param {Uint8Array | ArrayBuffer} bytes
   * @returns {ConnectionEvent[]}
   * @throws {ConnectionError} for bytes the connection cannot accept (the connection is
   *   defunct afterwards; the events before the error are on the error's `events`), or
   *   whatever a `hydrate`/`createUuid` hook threw (the connection goes on; the rows of
   *   that read are on the error's `events`, without the row that threw)
   */
  receive (bytes) {
    bytes = checkBytes(bytes)
    const n = this._native
    // The call's events and error are taken before any value is rebuilt: a hook may feed
    // this connection again, and that call must not replace them.
    let list = []
    let error = null
    const { values, errors } = readTape(this._source, this._conv, (out) => {
      const len = n.receive(bytes, out)
      list = n.events()
      error = n.error()
      return len
    }, true)
    const events = this._events(list, values, errors.length > 0)
    if (error) throw new ConnectionError(error, events)
    if (errors.length > 0) {
      const e = errors[0][1]
      if (e !== null && typeof e === 'object') /** @type {any} */ (e).events = events
      throw e
    }
    return events
  }

  /** @private */
  _events (list, values, failed) {
    const events = new Array(list.length)
    let at = 0
    for (let i = 0; i < list.length; i++) {
      const e = list[i]
      switch (e.kind) {
        case 'negotiated':
          events[i] = { type: 'negotiated', version: e.version }
          break
        case 'records': {
          // A row whose hook threw is left out (its error is thrown after the events).
          let rows = values.slice(at, at + e.count)
          if (failed) rows = rows.filter((row) => row !== undefined)
          at += e.count
          events[i] = { type: 'records', rows }
          break
        }
        case 'success': {
          const ev = { type: 'success', request: e.request, metadata: metadataOf(values[at++]) }
          if (e.hasMore !== undefined && e.hasMore !== null) ev.hasMore = e.hasMore
          events[i] = ev
          break
        }
        case 'failure':
          events[i] = {
            type: 'failure',
            request: e.request,
            code: e.code ?? null,
            message: e.message ?? null,
            metadata: metadataOf(values[at++])
          }
          break
        default:
          events[i] = { type: 'ignored', request: e.request }
      }
    }
    return events
  }
}

/**
 * What a handshake wants next: `needMore` (feed more bytes), `continue` (send `send`,
 * keep feeding), `negotiated` (send `send`; `version` agreed; `input` from `consumed` on
 * belongs to the messages), `rejected` (send `send`, then close).
 *
 * @typedef {{step: 'needMore' | 'continue' | 'negotiated' | 'rejected', send: Buffer,
 *   consumed: number, version: string | null}} HandshakeStep
 */

function step (s) {
  if (s.step === 'error') throw new HandshakeError(s.error)
  return /** @type {HandshakeStep} */ ({ step: s.step, send: s.send, consumed: s.consumed, version: s.version ?? null })
}

/**
 * The client role of the Bolt handshake, on its own (a {@link ClientConnection} runs it
 * itself): send {@link ClientHandshake#hello}, feed the server's bytes.
 */
class ClientHandshake {
  /**
   * @param {{versions?: string[], manifest?: boolean}} [options] the versions to offer
   *   (default 6.1 … 4.4) and whether to offer manifest v1 (default true)
   */
  constructor (options = {}) {
    /** @private */
    this._native = new native.NativeClientHandshake(options.versions, options.manifest)
  }

  /** @returns {Buffer} the magic and the four proposals: the first bytes to send */
  hello () {
    return this._native.hello()
  }

  /**
   * @param {Uint8Array} bytes from the server
   * @returns {HandshakeStep}
   * @throws {HandshakeError} for a malformed reply
   */
  receive (bytes) {
    return step(this._native.receive(checkBytes(bytes)))
  }
}

/**
 * The server role of the Bolt handshake (for test servers and proxies): feed the client's
 * bytes, send what each step says.
 */
class ServerHandshake {
  /**
   * @param {{versions?: string[], manifest?: boolean}} [options] the versions to accept
   *   (default 6.1 … 4.4) and whether to answer manifest proposals (default true)
   */
  constructor (options = {}) {
    /** @private */
    this._native = new native.NativeServerHandshake(options.versions, options.manifest)
  }

  /**
   * @param {Uint8Array} bytes from the client
   * @returns {HandshakeStep}
   * @throws {HandshakeError} for a malformed request
   */
  receive (bytes) {
    return step(this._native.receive(checkBytes(bytes)))
  }
}

/**
 * What {@link WebSocket#receive} found in the bytes: `data`, the Bolt bytes the frames
 * carried (feed them to the connection); `send`, bytes to write back (the upgrade
 * response, pongs, the close reply); `open`, whether the opening handshake is done;
 * `closed`, whether the peer's close frame has arrived.
 *
 * @typedef {{data: Buffer, send: Buffer, open: boolean, closed: boolean}} WebSocketInput
 */

/**
 * Bolt over WebSocket, sans-IO (Neo4j accepts it on its Bolt port): the opening handshake
 * and binary frames. Put it between the socket and a {@link ClientConnection}:
 *
 * ```js
 * const ws = WebSocket.client('localhost:7687')
 * socket.write(ws.upgradeRequest())
 * socket.on('data', (bytes) => {
 *   const { data, send } = ws.receive(bytes)
 *   if (send.length) socket.write(send)
 *   const events = conn.receive(data)
 *   // ...
 *   socket.write(ws.send(conn.takeOutput()))
 * })
 * ```
 */
class WebSocket {
  /** @private */
  constructor (n) {
    /** @private */
    this._native = n
  }

  /**
   * The client end. The key and the mask seed come from `crypto.randomBytes` unless given.
   * @param {string} host the `Host` header (`'localhost:7687'`)
   * @param {{path?: string, key?: Uint8Array, maskSeed?: Uint8Array}} [options] path
   *   default `'/'`; `key` 16 bytes, `maskSeed` 8 bytes (for tests)
   * @returns {WebSocket}
   */
  static client (host, options = {}) {
    const crypto = require('node:crypto')
    const key = options.key ?? crypto.randomBytes(16)
    const seed = options.maskSeed ?? crypto.randomBytes(8)
    return new WebSocket(native.NativeWebSocket.client(host, options.path ?? '/', checkBytes(key), checkBytes(seed)))
  }

  /**
   * The server end (for test servers): waits for the client's upgrade request.
   * @returns {WebSocket}
   */
  static server () {
    return new WebSocket(native.NativeWebSocket.server())
  }

  /** @returns {Buffer} the client's upgrade request: the first bytes to send */
  upgradeRequest () {
    return this._native.upgradeRequest()
  }

  /** @returns {boolean} whether the opening handshake is complete */
  get open () {
    return this._native.isOpen()
  }

  /**
   * Feeds bytes from the socket.
   * @param {Uint8Array} bytes
   * @returns {WebSocketInput}
   * @throws {WebSocketError} for a refused upgrade or a malformed or forbidden frame (its
   *   `input` holds what came before it)
   */
  receive (bytes) {
    const r = this._native.receive(checkBytes(bytes))
    const input = { data: r.data, send: r.send, open: r.open, closed: r.closed }
    if (r.error) throw new WebSocketError(r.error, input)
    return input
  }

  /**
   * Bolt bytes as binary frames, to write to the socket.
   * @param {Uint8Array} bolt
   * @returns {Buffer}
   * @throws {WebSocketError} before the opening handshake is done, or after this end's close
   */
  send (bolt) {
    const r = this._native.send(checkBytes(bolt))
    if (Buffer.isBuffer(r)) return r
    throw new WebSocketError(r)
  }

  /**
   * This end's close frame (empty if already sent); wait for the peer's, then close.
   * @param {number} [code] a close status (1000: normal)
   * @param {string} [reason]
   * @returns {Buffer}
   */
  close (code, reason) {
    const r = this._native.close(code, reason)
    if (Buffer.isBuffer(r)) return r
    throw new WebSocketError(r)
  }
}

module.exports = {
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
