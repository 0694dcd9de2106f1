'use strict'
// The Bolt layer through the binding: the client connection's state rules, every request
// of 4.4-6.1 on the wire, responses and records as events, back-pressure, hostile server
// bytes (errors with offsets, never a crash, later calls unharmed), both handshake roles
// and the WebSocket adapter end to end in process.

const test = require('node:test')
const assert = require('node:assert/strict')
const {
  ClientConnection, ClientHandshake, ServerHandshake, WebSocket, requests, basicAuth,
  ConnectionError, HandshakeError, WebSocketError, BoltcodecError, Structure, packMessage,
  decodeMessages
} = require('..')

const SUCCESS = 0x70
const RECORD = 0x71
const IGNORED = 0x7e
const FAILURE = 0x7f

/** Server bytes: each [signature, ...fields] framed as a message. */
function reply (...messages) {
  return Buffer.concat(messages.map(([sig, ...fields]) => packMessage(new Structure(sig, fields))))
}

/** A connection that negotiated `version` with the binding's own server handshake. */
function connected (version = '5.8', options = {}) {
  const conn = new ClientConnection({ versions: [version], manifest: false, ...options })
  const server = new ServerHandshake({ versions: [version], manifest: false })
  const step = server.receive(conn.takeOutput())
  assert.equal(step.step, 'negotiated')
  assert.equal(step.version, version)
  assert.deepEqual(conn.receive(step.send), [{ type: 'negotiated', version }])
  assert.equal(conn.state, 'NEGOTIATION')
  return conn
}

/** HELLO (+ LOGON from 5.1) answered with SUCCESS: READY. Returns the bytes fed. */
function login (conn) {
  conn.send(requests.hello({ userAgent: 'test/1' }))
  if (conn.version !== '4.4' && conn.version !== '5.0') conn.send(requests.logon(basicAuth('neo4j', 'pw')))
  conn.takeOutput()
  const n = conn.pendingRequests
  const bytes = reply(...Array.from({ length: n }, () => [SUCCESS, { server: 'Neo4j/5' }]))
  const events = conn.receive(bytes)
  assert.equal(events.length, n)
  assert.equal(conn.state, 'READY')
  return bytes.length
}

/** The requests in the connection's output, as [signature, ...fields]. */
function sent (conn) {
  return decodeMessages(conn.takeOutput(), { int: 'bigint', uuid: true }).map((s) => [s.signature, ...s.fields])
}

test('every request of 4.4-6.1 goes out as its message', () => {
  for (const version of ['4.4', '5.0', '5.1', '5.4', '5.8', '6.0', '6.1']) {
    const conn = connected(version, { boltAgent: false, utcPatch: false })
    conn.send(requests.hello({ userAgent: 'app/1', routing: { address: 'x:7687' } }))
    const [[sig, extra]] = sent(conn)
    assert.equal(sig, 0x01)
    assert.deepEqual(extra, { user_agent: 'app/1', routing: { address: 'x:7687' } })
    const hasLogon = version !== '4.4' && version !== '5.0'
    if (hasLogon) {
      conn.send(requests.logon(basicAuth('neo4j', 'pw')))
      assert.deepEqual(sent(conn), [[0x6a, { scheme: 'basic', principal: 'neo4j', credentials: 'pw' }]])
    }
    conn.receive(reply(...Array.from({ length: conn.pendingRequests }, () => [SUCCESS, {}])))
    assert.equal(conn.state, 'READY', version)

    conn.send(requests.run('RETURN $x', { x: 1n }, { db: 'neo4j', mode: 'r', txTimeout: 5000, bookmarks: ['b1'] }))
    conn.send(requests.pull(10))
    assert.deepEqual(sent(conn), [
      [0x10, 'RETURN $x', { x: 1n }, { db: 'neo4j', mode: 'r', tx_timeout: 5000n, bookmarks: ['b1'] }],
      [0x3f, { n: 10n }]
    ])
    conn.receive(reply([SUCCESS, { fields: ['x'] }], [RECORD, [1n]], [SUCCESS, { has_more: true }]))
    conn.send(requests.discard(-1))
    assert.deepEqual(sent(conn), [[0x2f, { n: -1n }]])
    conn.receive(reply([SUCCESS, {}]))
    assert.equal(conn.state, 'READY')

    conn.send(requests.begin({ txMetadata: { app: 'a' } }))
    conn.send(requests.run('RETURN 1'))
    conn.send(requests.pull(-1, { qid: -1 }))
    conn.send(requests.commit())
    assert.deepEqual(sent(conn), [
      [0x11, { tx_metadata: { app: 'a' } }],
      [0x10, 'RETURN 1', {}, {}],
      [0x3f, { n: -1n, qid: -1n }],
      [0x12]
    ])
    conn.receive(reply([SUCCESS, {}], [SUCCESS, { fields: [] }], [SUCCESS, {}], [SUCCESS, { bookmark: 'b2' }]))
    conn.send(requests.begin()).send(requests.rollback())
    assert.deepEqual(sent(conn), [[0x11, {}], [0x13]])
    conn.receive(reply([SUCCESS, {}], [SUCCESS, {}]))

    conn.send(requests.route({ address: 'x' }, ['b'], { db: 'neo4j' }))
    assert.deepEqual(sent(conn), [[0x66, { address: 'x' }, ['b'], { db: 'neo4j' }]])
    conn.receive(reply([SUCCESS, { rt: { ttl: 300n } }]))

    const telemetry = !['4.4', '5.0', '5.1', '5.2', '5.3'].includes(version)
    if (telemetry) {
      conn.send(requests.telemetry(2))
      assert.deepEqual(sent(conn), [[0x54, 2n]])
      conn.receive(reply([SUCCESS, {}]))
    } else {
      assert.throws(() => conn.send(requests.telemetry(2)), (e) => e instanceof ConnectionError)
      assert.equal(conn.takeOutput().length, 0)
    }
    conn.send(requests.reset())
    assert.deepEqual(sent(conn), [[0x0f]])
    conn.receive(reply([SUCCESS, {}]))
    if (hasLogon) {
      conn.send(requests.logoff())
      assert.deepEqual(sent(conn), [[0x6b]])
      conn.receive(reply([SUCCESS, {}]))
      assert.equal(conn.state, 'AUTHENTICATION')
    }
    conn.send(requests.goodbye())
    assert.deepEqual(sent(conn), [[0x02]])
    assert.equal(conn.state, 'DEFUNCT')
  }
})

test('the connection adds bolt_agent on 5.3+ and asks for the utc patch on 4.4', () => {
  const c53 = connected('5.3')
  c53.send(requests.hello({ userAgent: 'a/1' }))
  const [[, extra]] = sent(c53)
  assert.match(extra.bolt_agent.product, /^boltcodec\//)
  const c44 = connected('4.4')
  c44.send(requests.hello({ userAgent: 'a/1', auth: basicAuth('u', 'p') }))
  const [[, extra44]] = sent(c44)
  assert.deepEqual(extra44.patch_bolt, ['utc'])
  assert.equal(extra44.bolt_agent, undefined)
  const own = connected('5.8', { boltAgent: 'mine/2' })
  own.send(requests.hello({ userAgent: 'a/1' }))
  assert.equal(sent(own)[0][1].bolt_agent.product, 'mine/2')
})

test('state rules: requests the server could refuse are refused before anything is written', () => {
  const conn = connected('5.8')
  assert.throws(() => conn.send(requests.run('RETURN 1')), (e) =>
    e instanceof ConnectionError && e instanceof BoltcodecError && e.kind === 'illegal_request' && e.offset === -1)
  assert.equal(conn.takeOutput().length, 0)
  login(conn)
  for (const bad of [requests.pull(), requests.commit(), requests.rollback(), requests.logon(basicAuth('a', 'b'))]) {
    assert.equal(conn.canSend(bad.type), false, bad.type)
    assert.throws(() => conn.send(bad), (e) => e.kind === 'illegal_request', bad.type)
  }
  conn.send(requests.run('RETURN 1'))
  // A RUN while the first result may still be streaming is refused (auto-commit).
  assert.throws(() => conn.send(requests.run('RETURN 2')), (e) => e.kind === 'illegal_request')
  conn.send(requests.pull(1))
  // After PULL {1} the result may or may not be done: RUN and PULL are refused until the
  // summary says which; RESET is always allowed.
  assert.equal(conn.canSend('RUN'), false)
  assert.equal(conn.canSend('PULL'), false)
  assert.equal(conn.canSend('RESET'), true)
  conn.takeOutput()
  const events = conn.receive(reply([SUCCESS, { fields: ['x'] }], [RECORD, [1n]], [SUCCESS, { has_more: true }]))
  assert.deepEqual(events.map((e) => e.type), ['success', 'records', 'success'])
  assert.equal(events[2].hasMore, true)
  assert.equal(conn.state, 'STREAMING')
  conn.send(requests.pull(-1))
  conn.takeOutput()
  conn.receive(reply([RECORD, [2n]], [SUCCESS, { type: 'r' }]))
  assert.equal(conn.state, 'READY')
  assert.throws(() => conn.send({ type: 'NOPE' }), (e) => e.kind === 'bad_request')
  assert.throws(() => conn.send(requests.run('x', {}, { dbb: 'x' })), (e) => e.kind === 'bad_request' && /dbb/.test(e.message))
  assert.throws(() => conn.send('RUN'), TypeError)
  // A value pack cannot write, a wrong option type, a non-integral n: nothing is queued.
  assert.throws(() => conn.send(requests.run('RETURN $f', { f: () => 1 })), TypeError)
  assert.throws(() => conn.send(requests.run('RETURN 1', {}, { txTimeout: 'soon' })), (e) => e.kind === 'bad_request')
  assert.throws(() => conn.send(requests.pull(1.5)), (e) => e.kind === 'bad_request')
  assert.throws(() => conn.send({ type: 'HELLO' }), (e) => e.kind === 'bad_request' && /userAgent/.test(e.message))
  assert.equal(conn.pendingRequests, 0)
  assert.equal(conn.state, 'READY')
  assert.throws(() => new ClientConnection({ maxChunkSize: 70000 }), /maxChunkSize/)
  assert.throws(() => new ClientConnection({ versions: ['x'] }), /"x"/)
  // Small chunks: a request split over several, read back whole.
  const small = connected('5.8', { maxChunkSize: 3 })
  small.send(requests.hello({ userAgent: 'chunked/1' }))
  const out = small.takeOutput()
  assert.equal(out.readUInt16BE(0), 3)
  assert.equal(decodeMessages(out)[0].fields[0].user_agent, 'chunked/1')
  assert.equal(conn.takeOutput().length, 0)
})

test('records arrive as batches of rows; PULL {n} gives back-pressure', () => {
  const conn = connected('5.8', { int: 'bigint' })
  login(conn)
  conn.send(requests.run('UNWIND range(1, 5) AS x RETURN x, "s" + x')).send(requests.pull(2))
  conn.takeOutput()
  let events = conn.receive(reply([SUCCESS, { fields: ['x', 'y'], t_first: 1n }],
    [RECORD, [1n, 's1']], [RECORD, [2n, 's2']], [SUCCESS, { has_more: true }]))
  assert.deepEqual(events, [
    { type: 'success', request: 'RUN', metadata: { fields: ['x', 'y'], t_first: 1n } },
    { type: 'records', rows: [[1n, 's1'], [2n, 's2']] },
    { type: 'success', request: 'PULL', metadata: { has_more: true }, hasMore: true }
  ])
  conn.send(requests.pull(10))
  // The rest split at every byte: the same events, whatever the reads.
  const rest = reply([RECORD, [3n, 's3']], [RECORD, [4n, { k: [1.5, null, true] }]], [SUCCESS, { type: 'r' }])
  const got = []
  for (let i = 0; i < rest.length; i++) got.push(...conn.receive(rest.subarray(i, i + 1)))
  events = got
  assert.deepEqual(events.filter((e) => e.type === 'records').flatMap((e) => e.rows), [[3n, 's3'], [4n, { k: [1.5, null, true] }]])
  assert.deepEqual(events.at(-1), { type: 'success', request: 'PULL', metadata: { type: 'r' }, hasMore: false })
  assert.equal(conn.state, 'READY')
})

test('failure, ignored and reset', () => {
  const conn = connected('5.8')
  login(conn)
  conn.send(requests.run('bad')).send(requests.pull(10))
  conn.takeOutput()
  const events = conn.receive(reply(
    [FAILURE, { neo4j_code: 'Neo.ClientError.Statement.SyntaxError', message: 'bad' }], [IGNORED]))
  assert.deepEqual(events, [
    { type: 'failure', request: 'RUN', code: 'Neo.ClientError.Statement.SyntaxError', message: 'bad', metadata: { neo4j_code: 'Neo.ClientError.Statement.SyntaxError', message: 'bad' } },
    { type: 'ignored', request: 'PULL' }
  ])
  assert.equal(conn.state, 'FAILED')
  conn.send(requests.reset())
  assert.equal(conn.state, 'INTERRUPTED')
  conn.receive(reply([SUCCESS, {}]))
  assert.equal(conn.state, 'READY')
})

test('hostile server bytes: a clear error with its offset, then defunct; other connections unharmed', () => {
  const cases = [
    // [the bytes after a good RUN SUCCESS and RECORD, kind, offset in the message,
    //  offset of the message among these bytes]
    [Buffer.from([0x00, 0x03, 0xb1, 0x71, 0xc1, 0x00, 0x00]), 'unexpected_end', 2, 0],
    [Buffer.from([0x00, 0x04, 0xb1, 0x71, 0x91, 0xc7, 0x00, 0x00]), 'reserved_marker', 3, 0],
    [Buffer.from([0x00, 0x02, 0xb0, 0x55, 0x00, 0x00]), 'unknown_signature', 0, 0],
    [Buffer.from([0x00, 0x05, 0xb1, 0x71, 0x91, 0x81, 0xff, 0x00, 0x00]), 'invalid_utf8', 4, 0],
    [Buffer.from([0x00, 0x04, 0xb1, 0x71, 0xd6, 0xff, 0x00, 0x00]), 'unexpected_end', 2, 0]
  ]
  const good = connected('5.8')
  login(good)
  for (const [bytes, kind, offset, messageOffset] of cases) {
    const conn = connected('5.8')
    const fed = login(conn)
    conn.send(requests.run('RETURN 1')).send(requests.pull(-1))
    conn.takeOutput()
    const head = reply([SUCCESS, { fields: ['x'] }], [RECORD, [7n]])
    let error
    try {
      conn.receive(Buffer.concat([head, bytes]))
    } catch (e) {
      error = e
    }
    assert.ok(error instanceof ConnectionError, `${kind}: ${error}`)
    assert.equal(error.kind, kind)
    assert.equal(error.offset, offset, kind)
    // Stream offsets count from the first byte after the handshake reply.
    assert.equal(error.messageOffset, fed + head.length + messageOffset, kind)
    assert.deepEqual(error.events.map((e) => e.type), ['success', 'records'])
    assert.deepEqual(error.events[1].rows, [[7]])
    assert.equal(conn.state, 'DEFUNCT')
    assert.throws(() => conn.receive(reply([SUCCESS, {}])), (e) => e.kind === 'defunct')
    assert.throws(() => conn.send(requests.reset()), (e) => e.kind === 'defunct')
    // Another connection is not touched by any of it.
    good.send(requests.run('RETURN 1')).send(requests.pull(-1))
    good.takeOutput()
    const ev = good.receive(reply([SUCCESS, { fields: ['x'] }], [RECORD, [{ a: 'b' }]], [SUCCESS, {}]))
    assert.deepEqual(ev[1].rows, [[{ a: 'b' }]])
  }
  // A response nobody asked for, a record for a RUN, an over-long message.
  const c = connected('5.8')
  login(c)
  assert.throws(() => c.receive(reply([SUCCESS, {}])), (e) => e.kind === 'unexpected_response' && e.offset >= 0)
  const d = connected('5.8', { maxMessageSize: 16 })
  assert.throws(() => d.receive(Buffer.from([0x00, 0x20])), (e) => e.kind === 'message_too_large' && e.offset === 0)
})

test('a UUID before 6.1 is refused from the server and in parameters; 6.1 takes both', () => {
  const c58 = connected('5.8')
  login(c58)
  const { Uuid } = require('..')
  const u = new Uuid('00112233-4455-6677-8899-aabbccddeeff')
  assert.throws(() => c58.send(requests.run('RETURN $u', { u })), (e) => e.kind === 'bad_request')
  c58.send(requests.run('RETURN 1')).send(requests.pull())
  c58.takeOutput()
  const uuidRecord = Buffer.from([0x00, 0x14, 0xb1, 0x71, 0x91, 0xe0, ...u.bytes, 0x00, 0x00])
  assert.throws(() => c58.receive(Buffer.concat([reply([SUCCESS, { fields: ['u'] }]), uuidRecord])),
    (e) => e.kind === 'reserved_marker' && e.offset === 3)
  const c61 = connected('6.1')
  login(c61)
  c61.send(requests.run('RETURN $u', { u })).send(requests.pull())
  assert.deepEqual(sent(c61)[0][2].u.bytes, u.bytes)
  const ev = c61.receive(Buffer.concat([reply([SUCCESS, { fields: ['u'] }]), uuidRecord]))
  assert.equal(ev[1].rows[0][0].toString(), u.toString())
})

test('a throwing hydrate hook fails that read only; the connection goes on', () => {
  let calls = 0
  const conn = connected('5.8', { hydrate: (sig, fields) => { if (++calls === 1) throw new Error('hook'); return { sig, fields } } })
  login(conn)
  conn.send(requests.run('RETURN 1')).send(requests.pull())
  conn.takeOutput()
  const point = new Structure(0x58, [7203n, 1.0, 2.0])
  assert.throws(() => conn.receive(reply([SUCCESS, { fields: ['p'] }], [RECORD, [point]], [RECORD, [point]])),
    (e) => e.message === 'hook' && e.events[1].rows.length === 1)
  const ev = conn.receive(reply([SUCCESS, {}]))
  assert.equal(ev[0].type, 'success')
  assert.equal(conn.state, 'READY')
})

test('handshake roles: manifest v1 and legacy, errors with offsets', () => {
  for (const manifest of [true, false]) {
    const client = new ClientHandshake({ manifest })
    const server = new ServerHandshake({ versions: ['5.4', '4.4'], manifest })
    let s = server.receive(client.hello())
    let c
    if (manifest) {
      assert.equal(s.step, 'continue')
      c = client.receive(s.send)
      assert.equal(c.step, 'negotiated')
      s = server.receive(c.send)
    } else {
      c = client.receive(s.send)
    }
    assert.equal(s.step, 'negotiated')
    assert.equal(c.version, '5.4')
    assert.equal(s.version, '5.4')
  }
  assert.throws(() => new ServerHandshake().receive(Buffer.from('GET / HTTP/1.1\r\n\r\n')),
    (e) => e instanceof HandshakeError && e.kind === 'bad_magic' && e.offset === 0)
  assert.throws(() => new ClientHandshake({ manifest: false }).receive(Buffer.from('HTTP/1.1 400')),
    (e) => e instanceof HandshakeError && e.kind === 'http_response')
  const none = new ServerHandshake({ versions: ['4.4'], manifest: false })
  assert.equal(none.receive(new ClientHandshake({ versions: ['5.8'], manifest: false }).hello()).step, 'rejected')
  assert.throws(() => new ClientHandshake({ versions: ['five'] }), /five/)
})

// Regression: ServerHandshake built its version list itself and dropped an unknown
// version (or took an empty list) without a word; both roles and the connection now read
// versions and manifest through the core's one HandshakeOptions.
test('server_handshake_accepted_unknown_versions_silently: every role refuses an empty or unknown list', () => {
  for (const manifest of [true, false]) {
    for (const make of [
      (o) => new ClientHandshake(o), (o) => new ServerHandshake(o), (o) => new ClientConnection(o)
    ]) {
      assert.throws(() => make({ versions: ['5.8', '9.9'], manifest }), /Bolt 9\.9 is not a version/)
      assert.throws(() => make({ versions: ['5.5'], manifest }), /Bolt 5\.5 is not a version/)
      assert.throws(() => make({ versions: [], manifest }), /version list is empty/)
    }
  }
  // The proposals come from the core: the manifest, then the list's newest versions.
  const hello = (manifest) => new ClientHandshake({ versions: ['4.4', '5.4'], manifest }).hello().subarray(4)
  assert.equal(hello(true).toString('hex'), '000001ff' + '00000405' + '00000404' + '00000000')
  assert.equal(hello(false).toString('hex'), '00000405' + '00000404' + '00000000' + '00000000')
})

test('WebSocket: a client connection talks to a server handshake through both adapters', () => {
  const client = WebSocket.client('localhost:7687', { key: Buffer.alloc(16, 7), maskSeed: Buffer.alloc(8, 1) })
  const server = WebSocket.server()
  assert.throws(() => client.send(Buffer.from([1])), (e) => e instanceof WebSocketError && e.kind === 'ws_not_open')
  const up = server.receive(client.upgradeRequest())
  assert.equal(up.open, true)
  assert.equal(client.receive(up.send).open, true)
  const conn = new ClientConnection({ versions: ['5.8'], manifest: false })
  const hs = new ServerHandshake({ versions: ['5.8'] })
  // Bolt bytes through frames, split at every byte on the way back.
  const step = hs.receive(server.receive(client.send(conn.takeOutput())).data)
  const wire = server.send(step.send)
  const events = []
  for (let i = 0; i < wire.length; i++) events.push(...conn.receive(client.receive(wire.subarray(i, i + 1)).data))
  assert.deepEqual(events, [{ type: 'negotiated', version: '5.8' }])
  conn.send(requests.hello({ userAgent: 'ws/1' }))
  const hello = decodeMessages(server.receive(client.send(conn.takeOutput())).data)
  assert.equal(hello[0].signature, 0x01)
  // A text frame from the server is refused with its offset; a close is answered.
  // (offsets count every frame byte the client has received: the 6 of the version reply)
  assert.throws(() => client.receive(Buffer.from([0x81, 0x01, 0x41])),
    (e) => e instanceof WebSocketError && e.kind === 'ws_text_frame' && e.offset === wire.length)
  const other = WebSocket.server()
  assert.throws(() => other.receive(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')),
    (e) => e instanceof WebSocketError && e.input.send.toString().startsWith('HTTP/1.1 4'))
  const closing = server.close(1000, 'bye')
  const c2 = WebSocket.client('h', { key: Buffer.alloc(16, 1) })
  assert.ok(closing.length > 0 && c2 !== null)
})

test('a hook feeding the same connection replaced the outer read\'s events', () => {
  let inner = null
  const conn = connected('5.8', {
    hydrate: (sig, fields) => {
      // Re-entrant: the next response, fed from inside the outer read.
      if (inner === null) inner = conn.receive(reply([RECORD, [2n]], [SUCCESS, { type: 'r' }]))
      return { sig, fields }
    }
  })
  login(conn)
  conn.send(requests.run('RETURN 1')).send(requests.pull())
  conn.takeOutput()
  const outer = conn.receive(reply([SUCCESS, { fields: ['p'] }], [RECORD, [new Structure(0x58, [1n, 1.0, 2.0])]]))
  assert.deepEqual(outer.map((e) => e.type), ['success', 'records'])
  assert.deepEqual(outer[1].rows[0][0].sig, 0x58)
  assert.deepEqual(inner.map((e) => e.type), ['records', 'success'])
  assert.equal(conn.state, 'READY')
})

test('mutated server streams: an error with kind and offset or events, never a crash', () => {
  // A deterministic generator, so that a failure can be replayed.
  let seed = 20261124
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) >>> 0
    return seed % n
  }
  const base = reply([SUCCESS, { fields: ['x', 'y'] }],
    [RECORD, [1n, 'a']], [RECORD, [{ k: [1.5, null] }, new Structure(0x58, [1n, 2.0, 3.0])]],
    [SUCCESS, { has_more: false, type: 'r' }])
  let errors = 0
  for (let i = 0; i < 3000; i++) {
    const bytes = Buffer.from(base)
    for (let k = 1 + rand(4); k > 0; k--) bytes[rand(bytes.length)] = rand(256)
    const cut = rand(4) === 0 ? rand(bytes.length) : bytes.length
    const conn = connected('5.8')
    login(conn)
    conn.send(requests.run('RETURN 1')).send(requests.pull(-1))
    conn.takeOutput()
    try {
      for (const e of conn.receive(bytes.subarray(0, cut))) assert.ok(typeof e.type === 'string')
    } catch (e) {
      errors++
      assert.ok(e instanceof ConnectionError, String(e))
      assert.equal(typeof e.kind, 'string')
      assert.ok(Number.isInteger(e.offset) && e.offset >= 0, `${e.kind} ${e.offset}`)
      assert.equal(conn.state, 'DEFUNCT')
    }
  }
  // Most mutations hit a chunk header and leave the stream waiting for more; the rest fail.
  assert.ok(errors > 200, `${errors} of 3000 mutated streams failed`)
  // And the good stream still reads the same afterwards.
  const conn = connected('5.8', { int: 'bigint' })
  login(conn)
  conn.send(requests.run('RETURN 1')).send(requests.pull(-1))
  const ev = conn.receive(base)
  assert.deepEqual(ev[1].rows[0], [1n, 'a'])
})
