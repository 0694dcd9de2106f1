export type RequestType = "HELLO" | "LOGON" | "LOGOFF" | "RUN" | "PULL" | "DISCARD" | "BEGIN" | "COMMIT" | "ROLLBACK" | "RESET" | "ROUTE" | "TELEMETRY" | "GOODBYE";
/**
 * The state of the server's side of a connection, as the connection tracks it.
 */
export type ServerState = "HANDSHAKE" | "NEGOTIATION" | "AUTHENTICATION" | "READY" | "STREAMING" | "TX_READY" | "TX_STREAMING" | "FAILED" | "INTERRUPTED" | "DEFUNCT";
/**
 * A request, as the builders make it: its `type` and its options (undefined ones are left
 * out). Values (parameters, metadata, routing context) are written as `pack` writes them:
 * a JS `number` is a Float, a `bigint` an Integer.
 */
export type Request = {
    type: RequestType;
} & Record<string, unknown>;
/**
 * Settings shared by an auto-commit RUN and BEGIN.
 */
export type TxOptions = {
    bookmarks?: string[] | undefined;
    /**
     * milliseconds
     */
    txTimeout?: number | bigint | undefined;
    txMetadata?: Record<string, unknown> | undefined;
    /**
     * `'r'` for a read
     */
    mode?: "r" | "w" | undefined;
    db?: string | undefined;
    impUser?: string | undefined;
    notificationsMinimumSeverity?: string | undefined;
    notificationsDisabledClassifications?: string[] | undefined;
    /**
     * more `extra` entries, as they are on the wire
     */
    extra?: Record<string, unknown> | undefined;
};
/**
 * What a handshake wants next: `needMore` (feed more bytes), `continue` (send `send`,
 * keep feeding), `negotiated` (send `send`; `version` agreed; `input` from `consumed` on
 * belongs to the messages), `rejected` (send `send`, then close).
 */
export type HandshakeStep = {
    step: "needMore" | "continue" | "negotiated" | "rejected";
    send: Buffer;
    consumed: number;
    version: string | null;
};
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
 */
export type ConnectionEvent = {
    type: "negotiated";
    version: string;
} | {
    type: "records";
    rows: unknown[][];
} | {
    type: "success";
    request: RequestType;
    metadata: Record<string, unknown>;
    hasMore?: boolean;
} | {
    type: "failure";
    request: RequestType;
    code: string | null;
    message: string | null;
    metadata: Record<string, unknown>;
} | {
    type: "ignored";
    request: RequestType;
};
/**
 * Options of a {@link ClientConnection}; every field is optional. The decoding options
 * ({@link DecodeOptions}: `int`, `hydrate`, limits, …) apply to every received value.
 */
export type ConnectionOptions = {
    /**
     * versions to accept (`'5.8'`); default 6.1 … 4.4
     */
    versions?: string[] | undefined;
    /**
     * offer manifest v1 (default true)
     */
    manifest?: boolean | undefined;
    /**
     * the `bolt_agent` product the connection adds to
     * a HELLO without one on 5.3+ (default `boltcodec/<version>`); false adds none
     */
    boltAgent?: string | false | undefined;
    /**
     * ask for the `utc` patch on 4.4 (default true)
     */
    utcPatch?: boolean | undefined;
    /**
     * largest chunk written (default 65535)
     */
    maxChunkSize?: number | undefined;
    /**
     * how integers come out (as `unpack`)
     */
    int?: "number" | "bigint" | "integer" | undefined;
    /**
     * turns each
     * structure into a value (default: a `Structure`)
     */
    hydrate?: ((signature: number, fields: unknown[]) => unknown) | undefined;
    /**
     * turns each UUID into a value
     */
    createUuid?: ((bytes: Uint8Array) => unknown) | undefined;
    /**
     * the array type of Bytes values
     */
    bytes?: "uint8" | "int8" | undefined;
    /**
     * the decoding limits, as for `unpack`
     */
    maxDepth?: number | undefined;
    maxStringLen?: number | undefined;
    maxBytesLen?: number | undefined;
    maxContainerLen?: number | undefined;
    maxTotalElements?: number | undefined;
    maxMessageSize?: number | undefined;
    maxChunks?: number | undefined;
};
/**
 * What {@link WebSocket#receive} found in the bytes: `data`, the Bolt bytes the frames
 * carried (feed them to the connection); `send`, bytes to write back (the upgrade
 * response, pongs, the close reply); `open`, whether the opening handshake is done;
 * `closed`, whether the peer's close frame has arrived.
 */
export type WebSocketInput = {
    data: Buffer;
    send: Buffer;
    open: boolean;
    closed: boolean;
};
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
export class ClientConnection {
    /**
     * @param {ConnectionOptions} [options] read once, here
     */
    constructor(options?: ConnectionOptions);
    /** @private */
    private _native;
    /** @private */
    private _source;
    /** @private */
    private _conv;
    /** @returns {string | null} the negotiated version (`'5.8'`), null until then */
    get version(): string | null;
    /**
     * @returns {ServerState} the server's state as of the responses received
     *   (`INTERRUPTED` while a RESET is on its way; `DEFUNCT`: close the socket)
     */
    get state(): ServerState;
    /** @returns {number} how many requests await their summary */
    get pendingRequests(): number;
    /**
     * Whether a request of this type may be sent now.
     * @param {RequestType} type
     * @returns {boolean}
     */
    canSend(type: RequestType): boolean;
    /**
     * Queues a request (see {@link requests}); its bytes join {@link ClientConnection#takeOutput}.
     * @param {Request} req
     * @returns {this}
     * @throws {ConnectionError} when the request is not allowed now (nothing is queued),
     *   does not exist in the negotiated version, or has a bad option; `TypeError` for a
     *   value `pack` cannot write
     */
    send(req: Request): this;
    /**
     * Takes every byte waiting to be written to the socket.
     * @returns {Buffer}
     */
    takeOutput(): Buffer;
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
    receive(bytes: Uint8Array | ArrayBuffer): ConnectionEvent[];
    /** @private */
    private _events;
}
/**
 * The client role of the Bolt handshake, on its own (a {@link ClientConnection} runs it
 * itself): send {@link ClientHandshake#hello}, feed the server's bytes.
 */
export class ClientHandshake {
    /**
     * @param {{versions?: string[], manifest?: boolean}} [options] the versions to offer
     *   (default 6.1 … 4.4) and whether to offer manifest v1 (default true)
     */
    constructor(options?: {
        versions?: string[];
        manifest?: boolean;
    });
    /** @private */
    private _native;
    /** @returns {Buffer} the magic and the four proposals: the first bytes to send */
    hello(): Buffer;
    /**
     * @param {Uint8Array} bytes from the server
     * @returns {HandshakeStep}
     * @throws {HandshakeError} for a malformed reply
     */
    receive(bytes: Uint8Array): HandshakeStep;
}
/**
 * The server role of the Bolt handshake (for test servers and proxies): feed the client's
 * bytes, send what each step says.
 */
export class ServerHandshake {
    /**
     * @param {{versions?: string[], manifest?: boolean}} [options] the versions to accept
     *   (default 6.1 … 4.4) and whether to answer manifest proposals (default true)
     */
    constructor(options?: {
        versions?: string[];
        manifest?: boolean;
    });
    /** @private */
    private _native;
    /**
     * @param {Uint8Array} bytes from the client
     * @returns {HandshakeStep}
     * @throws {HandshakeError} for a malformed request
     */
    receive(bytes: Uint8Array): HandshakeStep;
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
export class WebSocket {
    /**
     * The client end. The key and the mask seed come from `crypto.randomBytes` unless given.
     * @param {string} host the `Host` header (`'localhost:7687'`)
     * @param {{path?: string, key?: Uint8Array, maskSeed?: Uint8Array}} [options] path
     *   default `'/'`; `key` 16 bytes, `maskSeed` 8 bytes (for tests)
     * @returns {WebSocket}
     */
    static client(host: string, options?: {
        path?: string;
        key?: Uint8Array;
        maskSeed?: Uint8Array;
    }): WebSocket;
    /**
     * The server end (for test servers): waits for the client's upgrade request.
     * @returns {WebSocket}
     */
    static server(): WebSocket;
    /** @private */
    private constructor();
    /** @private */
    private _native;
    /** @returns {Buffer} the client's upgrade request: the first bytes to send */
    upgradeRequest(): Buffer;
    /** @returns {boolean} whether the opening handshake is complete */
    get open(): boolean;
    /**
     * Feeds bytes from the socket.
     * @param {Uint8Array} bytes
     * @returns {WebSocketInput}
     * @throws {WebSocketError} for a refused upgrade or a malformed or forbidden frame (its
     *   `input` holds what came before it)
     */
    receive(bytes: Uint8Array): WebSocketInput;
    /**
     * Bolt bytes as binary frames, to write to the socket.
     * @param {Uint8Array} bolt
     * @returns {Buffer}
     * @throws {WebSocketError} before the opening handshake is done, or after this end's close
     */
    send(bolt: Uint8Array): Buffer;
    /**
     * This end's close frame (empty if already sent); wait for the peer's, then close.
     * @param {number} [code] a close status (1000: normal)
     * @param {string} [reason]
     * @returns {Buffer}
     */
    close(code?: number, reason?: string): Buffer;
}
export namespace requests {
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
    function hello(options: {
        userAgent: string;
        boltAgent?: {
            product: string;
            platform?: string;
            language?: string;
            languageDetails?: string;
        } | undefined;
        routing?: Record<string, unknown> | null | undefined;
        patchBolt?: string[] | undefined;
        auth?: Record<string, unknown> | undefined;
        notificationsMinimumSeverity?: string | undefined;
        notificationsDisabledClassifications?: string[] | undefined;
        extra?: Record<string, unknown> | undefined;
    }): Request;
    /**
     * LOGON (5.1+) with an auth token, such as {@link basicAuth} makes.
     * @param {Record<string, unknown>} auth
     * @returns {Request}
     */
    function logon(auth: Record<string, unknown>): Request;
    /** LOGOFF (5.1+). @returns {Request} */
    function logoff(): Request;
    /**
     * RUN.
     * @param {string} query
     * @param {Record<string, unknown>} [parameters]
     * @param {TxOptions} [options] only for an auto-commit RUN
     * @returns {Request}
     */
    function run(query: string, parameters?: Record<string, unknown>, options?: TxOptions): Request;
    /**
     * PULL of `n` records (-1: all): the server sends at most `n` and says `hasMore`.
     * @param {number} [n] default -1
     * @param {{qid?: number | bigint, extra?: Record<string, unknown>}} [options]
     * @returns {Request}
     */
    function pull(n?: number, options?: {
        qid?: number | bigint;
        extra?: Record<string, unknown>;
    }): Request;
    /**
     * DISCARD of `n` records (-1: all).
     * @param {number} [n] default -1
     * @param {{qid?: number | bigint, extra?: Record<string, unknown>}} [options]
     * @returns {Request}
     */
    function discard(n?: number, options?: {
        qid?: number | bigint;
        extra?: Record<string, unknown>;
    }): Request;
    /**
     * BEGIN an explicit transaction.
     * @param {TxOptions} [options]
     * @returns {Request}
     */
    function begin(options?: TxOptions): Request;
    /** COMMIT. @returns {Request} */
    function commit(): Request;
    /** ROLLBACK. @returns {Request} */
    function rollback(): Request;
    /** RESET. @returns {Request} */
    function reset(): Request;
    /**
     * ROUTE (asks for a routing table).
     * @param {Record<string, unknown>} [routing] the routing context
     * @param {string[]} [bookmarks]
     * @param {{db?: string, impUser?: string, extra?: Record<string, unknown>}} [options]
     * @returns {Request}
     */
    function route(routing?: Record<string, unknown>, bookmarks?: string[], options?: {
        db?: string;
        impUser?: string;
        extra?: Record<string, unknown>;
    }): Request;
    /**
     * TELEMETRY (5.4+): which driver API ran the next query (0 managed transaction,
     * 1 explicit transaction, 2 auto-commit, 3 `executeQuery`).
     * @param {number} api
     * @returns {Request}
     */
    function telemetry(api: number): Request;
    /** GOODBYE: nothing may be sent after it. @returns {Request} */
    function goodbye(): Request;
}
/**
 * A `basic` auth token for {@link requests.logon} (or HELLO's `auth` before 5.1).
 * @param {string} principal
 * @param {string} credentials
 * @param {string} [realm]
 * @returns {Record<string, string>}
 */
export function basicAuth(principal: string, credentials: string, realm?: string): Record<string, string>;
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
export class ConnectionError extends BoltcodecError {
    /**
     * @param {{kind: string, offset: number, messageOffset: number, message: string}} info
     * @param {ConnectionEvent[]} [events] the events of the same read before the error
     */
    constructor(info: {
        kind: string;
        offset: number;
        messageOffset: number;
        message: string;
    }, events?: ConnectionEvent[]);
    /** @type {ConnectionEvent[]} the events the same read delivered before the error */
    events: ConnectionEvent[];
}
/**
 * The handshake on its own failed (`kind` as `bolt::handshake`'s errors: `'bad_magic'`,
 * `'http_response'`, …; `offset` counted from the first byte of the peer's bytes).
 */
export class HandshakeError extends BoltcodecError {
}
/**
 * A WebSocket error: a bad upgrade response or request, a malformed or forbidden frame
 * (`offset` in the received frame stream), or data sent after this end's close frame.
 */
export class WebSocketError extends BoltcodecError {
    /**
     * @param {{kind: string, offset: number, messageOffset: number, message: string}} info
     * @param {WebSocketInput | null} [input] what the same read gave before the error
     */
    constructor(info: {
        kind: string;
        offset: number;
        messageOffset: number;
        message: string;
    }, input?: WebSocketInput | null);
    /** @type {WebSocketInput | null} what the same read gave before the error (for a server, `send` is the refusal to write) */
    input: WebSocketInput | null;
}
import { BoltcodecError } from "./types.js";
