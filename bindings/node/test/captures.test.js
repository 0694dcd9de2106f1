'use strict'
// Every capture of tests/captures (real Neo4j 5.26 and 2026.08 servers talking to the
// official Python driver, Bolt 4.4-6.1) replayed through ClientConnection: each request the
// driver sent is rebuilt with requests.* and must come out byte for byte as the driver
// wrote it (the connection adds nothing: boltAgent and utcPatch off), each server message
// is fed as received, and the events must match the server's messages one for one.

const test = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { ClientConnection, Structure, frame, decodeMessages } = require('..')

const ROOT = path.join(__dirname, '..', '..', '..', 'tests', 'captures')

/** The [messages] lines of a capture: {kind, dir, name, bytes}. */
function messages (file) {
  const text = fs.readFileSync(file, 'utf8')
  const at = text.indexOf('\n[messages]\n')
  const out = []
  for (const line of text.slice(at + 12).split('\n')) {
    const f = line.split(' ')
    if (f[0] === 'HS') out.push({ kind: 'HS', dir: f[1], bytes: Buffer.from(f[3], 'hex') })
    else if (f[0] === 'MSG') out.push({ kind: 'MSG', dir: f[1], name: f[3], bytes: Buffer.from(f[6], 'hex') })
    else if (f[0] === 'NOOP') out.push({ kind: 'NOOP', dir: f[1] })
  }
  return out
}

/** The driver's request (a decoded Structure) as requests.* would make it. */
function asRequest (s) {
  const [a, b, c] = s.fields
  const rest = (map, ...keys) => {
    const r = { ...map }
    for (const k of keys) delete r[k]
    return r
  }
  switch (s.signature) {
    case 0x01: return { type: 'HELLO', userAgent: a.user_agent, extra: rest(a, 'user_agent') }
    case 0x6a: return { type: 'LOGON', auth: a }
    case 0x10: return { type: 'RUN', query: a, parameters: b, extra: c }
    case 0x11: return { type: 'BEGIN', extra: a }
    case 0x3f: return { type: 'PULL', n: a.n, extra: rest(a, 'n') }
    case 0x2f: return { type: 'DISCARD', n: a.n, extra: rest(a, 'n') }
    case 0x66: return { type: 'ROUTE', routing: a, bookmarks: b, extra: c }
    case 0x54: return { type: 'TELEMETRY', api: a }
    default: return { type: { 0x02: 'GOODBYE', 0x0f: 'RESET', 0x12: 'COMMIT', 0x13: 'ROLLBACK', 0x6b: 'LOGOFF' }[s.signature] }
  }
}

const sets = []
for (const server of fs.readdirSync(ROOT).filter((d) => d.startsWith('neo4j-'))) {
  for (const set of fs.readdirSync(path.join(ROOT, server))) sets.push(path.join(server, set))
}

for (const set of sets) {
  test(`captures ${set}`, (t) => {
    const version = /bolt-(\d\.\d)/.exec(set)[1]
    const dir = path.join(ROOT, set)
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.txt'))
    assert.ok(files.length > 0)
    let requests = 0
    let responses = 0
    for (const file of files) {
      const conn = new ClientConnection({ versions: [version], int: 'bigint', boltAgent: false, utcPatch: false, uuid: true })
      conn.takeOutput()
      let received = 0
      let delivered = 0
      for (const m of messages(path.join(dir, file))) {
        const where = `${set}/${file} ${m.name || m.kind}`
        if (m.dir === 'C>S') {
          if (m.kind !== 'MSG') {
            conn.takeOutput()
            continue
          }
          if (conn.state === 'DEFUNCT') continue // the driver's GOODBYE after a failed login
          const [s] = decodeMessages(frame(m.bytes), { int: 'bigint', uuid: true })
          assert.ok(s instanceof Structure, where)
          conn.send(asRequest(s))
          assert.deepEqual(conn.takeOutput(), frame(m.bytes), where)
          requests++
        } else {
          const bytes = m.kind === 'HS' ? m.bytes : m.kind === 'NOOP' ? Buffer.from([0, 0]) : frame(m.bytes)
          if (m.kind === 'MSG') received++
          for (const e of conn.receive(bytes)) {
            delivered += e.type === 'records' ? e.rows.length : e.type === 'negotiated' ? 0 : 1
          }
        }
      }
      assert.equal(delivered, received, `${set}/${file}: events for every server message`)
      assert.equal(conn.version, version, file)
      responses += received
    }
    assert.ok(requests > 0 && responses > 0)
    t.diagnostic(`${set}: ${files.length} captures, ${requests} requests byte-exact, ${responses} server messages`)
  })
}
