'use strict'
// tests/vectors/bolt-messages.json through the Node binding: every request kind, built
// with `requests.*` on a connection that negotiated the vector's version, must go out as
// exactly the bytes the official driver's packer wrote. The Rust tests
// (crates/bolt/tests/message_vectors.rs) and the Python suite (test_bolt.py) read the
// same file.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { ClientConnection, ServerHandshake, requests, Structure, packMessage } = require('..')

const VECTORS = path.join(__dirname, '..', '..', '..', 'tests', 'vectors', 'bolt-messages.json')
const SUCCESS = 0x70

/**
 * Values as the driver packed them: JSON integers are PackStream Integers (a JS number
 * would go out as a Float). The vectors hold no floats.
 */
function wire (v) {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v
  if (Array.isArray(v)) return v.map(wire)
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wire(x)]))
  }
  return v
}

/** The vectors' keyword names (the Python builders') as the Node options. */
function options (keyword) {
  const names = { bolt_agent: 'boltAgent', tx_timeout: 'txTimeout', tx_metadata: 'txMetadata', imp_user: 'impUser' }
  const out = {}
  for (const [k, v] of Object.entries(keyword)) {
    out[names[k] ?? k] = k === 'tx_timeout' ? v : wire(v)
  }
  return out
}

/** One request of the vector file as a `requests.*` call. */
function build (kind, positional = [], keyword = {}) {
  const kw = options(keyword)
  switch (kind) {
    case 'HELLO': return requests.hello({ userAgent: positional[0], ...kw })
    case 'LOGON': return requests.logon(wire(positional[0]))
    case 'LOGOFF': return requests.logoff()
    case 'RUN': return requests.run(positional[0], wire(positional[1] ?? {}), kw)
    case 'PULL':
    case 'DISCARD': {
      const [n, qid] = positional
      const f = kind === 'PULL' ? requests.pull : requests.discard
      return f(n, qid === undefined ? {} : { qid })
    }
    case 'BEGIN': return requests.begin(kw)
    case 'COMMIT': return requests.commit()
    case 'ROLLBACK': return requests.rollback()
    case 'RESET': return requests.reset()
    case 'ROUTE': {
      const [routing, bookmarks, db, impUser] = positional
      const opts = {}
      if (db !== undefined && db !== null) opts.db = db
      if (impUser !== undefined && impUser !== null) opts.impUser = impUser
      return requests.route(wire(routing), bookmarks, opts)
    }
    case 'TELEMETRY': return requests.telemetry(positional[0])
    case 'GOODBYE': return requests.goodbye()
    default: throw new Error(`no builder for ${kind}`)
  }
}

/** A connection on `version` (no bolt_agent or utc patch added), logged in unless the
 * vector is the HELLO or LOGON itself. */
function ready (version, kind) {
  const conn = new ClientConnection({ versions: [version], manifest: false, boltAgent: false, utcPatch: false })
  const server = new ServerHandshake({ versions: [version], manifest: false })
  const step = server.receive(conn.takeOutput())
  assert.equal(step.step, 'negotiated')
  conn.receive(step.send)
  if (kind === 'HELLO') return conn
  conn.send(requests.hello({ userAgent: 'x' }))
  if (kind !== 'LOGON' && version !== '4.4' && version !== '5.0') conn.send(requests.logon({ scheme: 'none' }))
  const n = conn.pendingRequests
  conn.receive(Buffer.concat(Array.from({ length: n }, () => packMessage(new Structure(SUCCESS, [{}])))))
  return conn
}

test('every request of the shared vectors goes out byte for byte as the driver packs it', () => {
  const { requests: cases } = JSON.parse(fs.readFileSync(VECTORS, 'utf8'))
  assert.ok(cases.length >= 13)
  const seen = new Set()
  for (const c of cases) {
    const version = c.version.join('.')
    const conn = ready(version, c.request)
    for (const [kind, ...positional] of c.before) conn.send(build(kind, positional))
    conn.takeOutput()
    conn.send(build(c.request, c.args.positional, c.args.keyword))
    const expected = Buffer.from(c.hex, 'hex')
    const framed = Buffer.concat([Buffer.from([expected.length >> 8, expected.length & 0xff]), expected, Buffer.from([0, 0])])
    assert.equal(Buffer.from(conn.takeOutput()).toString('hex'), framed.toString('hex'), c.name)
    seen.add(c.request)
  }
  assert.deepEqual([...seen].sort(), ['BEGIN', 'COMMIT', 'DISCARD', 'GOODBYE', 'HELLO', 'LOGOFF', 'LOGON', 'PULL', 'RESET', 'ROLLBACK', 'ROUTE', 'RUN', 'TELEMETRY'])
})
