'use strict'
// A minimal Bolt client on boltcodec's sans-IO connection: it authenticates, runs one
// query with parameters and streams the result in batches (PULL {n}: the next batch is
// asked for only once the previous one has arrived). The transport is a plain
// net.Socket, or the same socket carrying Bolt over WebSocket (Neo4j accepts both on its
// Bolt port) through boltcodec's WebSocket adapter. The protocol — handshake, chunking,
// which request may follow which — is the connection's; this file only moves bytes.
//
//   node examples/node/bolt-query.js [--ws] [--batch N] "UNWIND range(1, $n) AS x RETURN x" '{"n": 5}'
//
// Reads NEO4J_BOLT_PORT (default 7687), NEO4J_USER and NEO4J_PASSWORD.

const net = require('node:net')
const { ClientConnection, WebSocket, requests, basicAuth } = require('../../bindings/node')

/**
 * Runs `query` and calls `onRows` with each batch of rows as it arrives.
 *
 * @param {object} o
 * @param {number} o.port
 * @param {string} [o.host]
 * @param {string} o.user
 * @param {string} o.password
 * @param {string} o.query
 * @param {Record<string, unknown>} [o.parameters]
 * @param {number} [o.batch] records per PULL (-1: all at once)
 * @param {boolean} [o.websocket] Bolt over WebSocket
 * @param {(rows: unknown[][]) => void} [o.onRows]
 * @returns {Promise<{version: string, fields: string[], rows: number, summary: Record<string, unknown>}>}
 */
function boltQuery (o) {
  const host = o.host ?? '127.0.0.1'
  const batch = o.batch ?? 1000
  return new Promise((resolve, reject) => {
    const conn = new ClientConnection({ int: 'bigint' })
    const sock = net.connect(o.port, host)
    const ws = o.websocket ? WebSocket.client(`${host}:${o.port}`) : null
    const flush = () => {
      const out = conn.takeOutput()
      if (out.length > 0) sock.write(ws ? ws.send(out) : out)
    }
    const fail = (e) => { sock.destroy(); reject(e) }
    let fields = []
    let rows = 0
    sock.setNoDelay(true)
    sock.on('error', reject)
    sock.on('connect', () => (ws ? sock.write(ws.upgradeRequest()) : flush()))
    sock.on('data', (chunk) => {
      try {
        let bytes = chunk
        if (ws) {
          const wasOpen = ws.open
          const input = ws.receive(chunk)
          if (input.send.length > 0) sock.write(input.send)
          if (!wasOpen && input.open) flush() // the Bolt handshake, once upgraded
          bytes = input.data
        }
        for (const event of conn.receive(bytes)) {
          switch (event.type) {
            case 'negotiated': {
              // Pipelined: one write carries HELLO, LOGON, RUN and the first PULL. Before
              // 5.1 the credentials travel in HELLO.
              const auth = basicAuth(o.user, o.password)
              const early = event.version === '4.4' || event.version === '5.0'
              conn.send(requests.hello({ userAgent: 'boltcodec-example/1.0', auth: early ? auth : undefined }))
              if (!early) conn.send(requests.logon(auth))
              conn.send(requests.run(o.query, o.parameters)).send(requests.pull(batch))
              break
            }
            case 'records':
              rows += event.rows.length
              if (o.onRows) o.onRows(event.rows)
              break
            case 'success':
              if (event.request === 'RUN') fields = /** @type {string[]} */ (event.metadata.fields)
              if (event.request === 'PULL') {
                if (event.hasMore) {
                  conn.send(requests.pull(batch))
                } else {
                  conn.send(requests.goodbye())
                  flush()
                  sock.end()
                  resolve({ version: conn.version ?? '', fields, rows, summary: event.metadata })
                  return
                }
              }
              break
            case 'failure':
              return fail(new Error(`${event.request} failed: ${event.code}: ${event.message}`))
            case 'ignored':
              break
          }
        }
        flush()
      } catch (e) {
        fail(e)
      }
    })
  })
}

module.exports = { boltQuery }

if (require.main === module) {
  const argv = process.argv.slice(2)
  const websocket = argv.includes('--ws')
  const at = argv.indexOf('--batch')
  const batch = at >= 0 ? Number(argv[at + 1]) : 1000
  const rest = argv.filter((a, i) => a !== '--ws' && (at < 0 || (i !== at && i !== at + 1)))
  const query = rest[0] ?? 'UNWIND range(1, $n) AS x RETURN x, x * x AS square'
  // JSON numbers are integers here (Cypher's range() wants them); fractions stay floats.
  const parameters = JSON.parse(rest[1] ?? '{"n": 5}', (k, v) => (Number.isInteger(v) ? BigInt(v) : v))
  boltQuery({
    port: Number(process.env.NEO4J_BOLT_PORT || 7687),
    user: process.env.NEO4J_USER || 'neo4j',
    password: process.env.NEO4J_PASSWORD || 'password',
    query,
    parameters,
    batch,
    websocket,
    onRows: (rows) => { for (const row of rows) console.log(row.map(String).join('\t')) }
  }).then((r) => {
    console.error(`${r.rows} rows (${r.fields.join(', ')}) over Bolt ${r.version}${websocket ? ' on WebSocket' : ''}`)
  }, (e) => {
    console.error(e)
    process.exit(1)
  })
}
