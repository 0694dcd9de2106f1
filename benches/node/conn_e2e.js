'use strict'
// boltcodec's ClientConnection (examples/node/bolt-query.js on a net.Socket) reading
// 1,000,000 scalar rows from a real Neo4j, against the raw floor: the same query on a bare
// socket with hand-written requests, every message decoded by boltcodec's Dechunker and
// nothing else. Rounds alternate (each starts with another mode); medians are printed.
// Then the same two reads in process, from one buffer, without the server.
//
//   NEO4J_BOLT_PORT=7687 node benches/node/conn_e2e.js [--rows N] [--rounds R]

const net = require('node:net')
const bc = require('../../bindings/node')
const { boltQuery } = require('../../examples/node/bolt-query.js')

const argv = process.argv.slice(2)
const arg = (name, dflt) => {
  const i = argv.indexOf(name)
  return i >= 0 ? Number(argv[i + 1]) : dflt
}
const ROWS = arg('--rows', 1000000)
const ROUNDS = arg('--rounds', 3)
const PORT = Number(process.env.NEO4J_BOLT_PORT || 7687)
const USER = process.env.NEO4J_USER || 'neo4j'
const PASSWORD = process.env.NEO4J_PASSWORD || 'password'
const QUERY = 'UNWIND range(1, $n) AS x RETURN x'

/** The floor: magic + 5.8-5.0, four pipelined requests, a Dechunker counting rows. */
function floor () {
  return new Promise((resolve, reject) => {
    const S = (sig, ...fields) => bc.packMessage(new bc.Structure(sig, fields))
    const sock = net.connect(PORT, '127.0.0.1')
    const dechunker = new bc.Dechunker({ records: true, int: 'bigint' })
    let handshake = true
    let successes = 0
    let rows = 0
    sock.setNoDelay(true)
    sock.on('error', reject)
    sock.on('connect', () => sock.write(Buffer.from([0x60, 0x60, 0xb0, 0x17, 0, 8, 8, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])))
    sock.on('data', (chunk) => {
      if (handshake) {
        handshake = false
        sock.write(Buffer.concat([
          S(0x01, { user_agent: 'floor/1', bolt_agent: { product: 'floor/1' } }),
          S(0x6a, { scheme: 'basic', principal: USER, credentials: PASSWORD }),
          S(0x10, QUERY, { n: BigInt(ROWS) }, {}),
          S(0x3f, { n: -1n })
        ]))
        chunk = chunk.subarray(4)
      }
      for (const m of dechunker.messages(chunk)) {
        if (Array.isArray(m)) rows++
        else if (m.signature !== 0x70) return reject(new Error(`floor: server answered ${m.signature}`))
        else if (++successes === 4) {
          sock.end(S(0x02))
          resolve(rows)
        }
      }
    })
  })
}

async function timed (fn) {
  const c0 = process.cpuUsage()
  const t0 = process.hrtime.bigint()
  const rows = await fn()
  const wall = Number(process.hrtime.bigint() - t0) / 1e9
  const c = process.cpuUsage(c0)
  if (rows !== ROWS) throw new Error(`read ${rows} rows, expected ${ROWS}`)
  return { wall, cpu: (c.user + c.system) / 1e6 }
}

const connection = (batch) => () =>
  boltQuery({ port: PORT, user: USER, password: PASSWORD, query: QUERY, parameters: { n: BigInt(ROWS) }, batch })
    .then((r) => r.rows)

/**
 * The same comparison without the server: one buffer of a RUN SUCCESS, ROWS RECORDs and
 * the summary, fed in 64 KiB reads to a Dechunker and to a logged-in ClientConnection.
 * Returns the client CPU of each (median of ROUNDS).
 */
function inProcess () {
  const msg = (sig, ...fields) => bc.packMessage(new bc.Structure(sig, fields))
  const records = []
  for (let i = 1; i <= ROWS; i++) records.push(msg(0x71, [BigInt(i)]))
  const all = Buffer.concat([msg(0x70, { fields: ['x'] }), ...records, msg(0x70, { type: 'r' })])
  const READ = 65536
  const viaDechunker = () => {
    const d = new bc.Dechunker({ records: true, int: 'bigint' })
    let rows = 0
    for (let p = 0; p < all.length; p += READ) for (const m of d.messages(all.subarray(p, p + READ))) if (Array.isArray(m)) rows++
    return rows
  }
  const viaConnection = () => {
    const c = new bc.ClientConnection({ versions: ['5.8'], manifest: false, int: 'bigint' })
    c.receive(new bc.ServerHandshake({ versions: ['5.8'], manifest: false }).receive(c.takeOutput()).send)
    c.send(bc.requests.hello({ userAgent: 'bench/1' })).send(bc.requests.logon({ scheme: 'none' }))
    c.receive(Buffer.concat([msg(0x70, {}), msg(0x70, {})]))
    c.send(bc.requests.run(QUERY)).send(bc.requests.pull(-1))
    c.takeOutput()
    let rows = 0
    for (let p = 0; p < all.length; p += READ) for (const e of c.receive(all.subarray(p, p + READ))) if (e.type === 'records') rows += e.rows.length
    return rows
  }
  const cpu = [[], []]
  for (let r = 0; r < ROUNDS + 1; r++) {
    [viaDechunker, viaConnection].forEach((f, i) => {
      const c0 = process.cpuUsage()
      if (f() !== ROWS) throw new Error('in process: wrong row count')
      const c = process.cpuUsage(c0)
      if (r > 0) cpu[i].push((c.user + c.system) / 1e6) // round 0 warms up
    })
  }
  return cpu
}

async function main () {
  const modes = [
    ['raw floor (bare socket, Dechunker)', floor],
    ['ClientConnection, PULL {-1}', connection(-1)],
    ['ClientConnection, PULL {100000}', connection(100000)]
  ]
  const results = modes.map(() => [])
  await connection(1000)() // warm the server's query cache and the JIT
  for (let r = 0; r < ROUNDS; r++) {
    // Each round starts with another mode, so that none always runs first.
    for (let k = 0; k < modes.length; k++) {
      const m = (r + k) % modes.length
      results[m].push(await timed(modes[m][1]))
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
  const floorWall = median(results[0].map((x) => x.wall))
  const floorCpu = median(results[0].map((x) => x.cpu))
  console.log(`${ROWS.toLocaleString('en')} scalar rows, Neo4j on port ${PORT}, median of ${ROUNDS} alternating rounds`)
  console.log('| read | wall clock | vs floor | client CPU | CPU vs floor |')
  console.log('| --- | ---: | ---: | ---: | ---: |')
  for (let m = 0; m < modes.length; m++) {
    const wall = median(results[m].map((x) => x.wall))
    const cpu = median(results[m].map((x) => x.cpu))
    console.log(`| ${modes[m][0]} | ${wall.toFixed(2)} s | ${(wall / floorWall).toFixed(2)}× | ${cpu.toFixed(2)} s | ${(cpu / floorCpu).toFixed(2)}× |`)
  }
  const [dech, conn] = inProcess().map(median)
  console.log(`\nIn process (the same ${ROWS.toLocaleString('en')} RECORDs from one buffer, 64 KiB reads, no server):`)
  console.log('| read | client CPU | vs Dechunker |')
  console.log('| --- | ---: | ---: |')
  console.log(`| Dechunker (records) | ${(dech * 1000).toFixed(0)} ms | 1.00× |`)
  console.log(`| ClientConnection | ${(conn * 1000).toFixed(0)} ms | ${(conn / dech).toFixed(2)}× |`)
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
