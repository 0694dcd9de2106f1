'use strict'
// The examples/node client (boltcodec's ClientConnection on a net.Socket, plain and over
// WebSocket) against the real Neo4j that scripts/test.sh starts (NEO4J_BOLT_PORT): it
// authenticates, runs a query with parameters and streams the result with PULL {n}.

const test = require('node:test')
const assert = require('node:assert/strict')
const { boltQuery } = require('../../../examples/node/bolt-query.js')

const port = Number(process.env.NEO4J_BOLT_PORT)
const skip = port ? false : 'NEO4J_BOLT_PORT is not set (run scripts/test.sh)'
const login = { port, user: process.env.NEO4J_USER || 'neo4j', password: process.env.NEO4J_PASSWORD || 'password' }

for (const websocket of [false, true]) {
  test(`a query with parameters streamed in batches${websocket ? ' over WebSocket' : ''}`, { skip }, async () => {
    const batches = []
    const r = await boltQuery({
      ...login,
      websocket,
      batch: 7,
      query: 'UNWIND range(1, $n) AS x RETURN x, $prefix + x AS s, {x: x, l: [x, 1.5]} AS m',
      parameters: { n: 100n, prefix: 'p' },
      onRows: (rows) => batches.push(rows)
    })
    assert.equal(r.version, '5.8')
    assert.deepEqual(r.fields, ['x', 's', 'm'])
    assert.equal(r.rows, 100)
    const rows = batches.flat()
    assert.deepEqual(rows[41], [42n, 'p42', { x: 42n, l: [42n, 1.5] }])
    // PULL {7}: no batch holds more than 7 rows; 100 rows need at least 15 of them.
    assert.ok(batches.every((b) => b.length <= 7))
    assert.ok(batches.length >= 15)
    assert.equal(r.summary.type, 'r')
  })
}

test('a failing query reports the server failure', { skip }, async () => {
  await assert.rejects(boltQuery({ ...login, query: 'RETURN $missing' }), /ParameterMissing|Expected parameter/)
})
