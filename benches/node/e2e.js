'use strict'
// End to end on a real Neo4j: the demo's read (scripts/demo_workload.py: 100,000 rows of
// ints, strings, floats, lists, dates, points, a node per row, a relationship every other
// row) with neo4j-driver's executeQuery, alone and with boltcodec's drop-in, against the
// raw floor: the same query's PULL responses read from a bare socket and decoded by
// boltcodec, in two ways: pulling as the driver does (PULL {n: fetchSize}, the next one
// on SUCCESS {has_more}; the goal's floor, since its round trips to the server are the
// driver's) and one PULL {n: -1} (the whole result in one response).
// The four alternate in rounds within one run; wall-clock time, this process's CPU
// time (process.cpuUsage) and its garbage-collection pauses (perf_hooks 'gc' entries) are
// taken per read.
//
//   NEO4J_BOLT_PORT=7687 node benches/node/e2e.js [--rows N] [--rounds R] [--replay] [--timeline] [--profile] [--base DIR] [--write]
//
// --timeline: also where each read's time goes, from timestamps on this process's
// sockets (each 'data' event's handling, each write) and its GC pauses: time in 'data'
// handlers, the round trips (from the 'data' event that completed a SUCCESS {has_more}
// to the next PULL written, and from there to the server's first bytes), GC pauses inside
// handlers, inside the server's turns and elsewhere, and CPU time of the main thread
// against the other threads (V8's GC and compiler workers). The socket hooks cost time
// of their own, so the other columns of a --timeline run are not the benchmark's.
//
// --replay: also the client's side alone. One read's conversation with the server is
// recorded (through a proxy in this process), then served again to each read by a replay
// server in a child process (benches/node/replay-server.js), which sends the recorded
// responses without running the query: the same bytes, with no database on the machine's
// cores. The driver alone and with the drop-in then alternate against it.
//
// BOLTCODEC_NODE_DIR: the boltcodec package to measure (default bindings/node), e.g. an
// export of an earlier commit's bindings/node, to compare builds on the same server.
// Builds are compared in separate runs, not in one process: what one build does to V8's
// hidden classes of the driver's objects (the Integer class, for instance) holds for the
// whole process, so it would change the other build's numbers and the driver's alone.
//
// --profile: each read by the driver (alone, with the drop-in, and the issue-filing build
// given by --base) runs in a child process of its own (this script with --child), which
// makes one warm-up read and then the measured read, with V8's sampling CPU profiler
// (the inspector's Profiler, 1 ms interval) running from just before `executeQuery` to
// its result: the share of the profile's samples that are "(garbage collector)", among
// all samples (idle included, as the profile issue 15 quoted), among the non-idle ones,
// and weighted by time as DevTools shows a profile (the sampler is late during
// collections, so the two differ). E2E_PROFILE_DIR=<dir> also writes each profile there
// (.cpuprofile). Children also keep builds apart (see BOLTCODEC_NODE_DIR below).
// --base DIR: also the drop-in of another build (a bindings/node directory, e.g. of the
// commit at which issue 15 was filed, 91147a5), in its own child processes, alternating
// with the others; implies --profile. The GC goal is judged against it.
//
// Run through `make demo-node` (starts and stops a Neo4j 5.26 with scripts/with-neo4j.sh).
// --write replaces the "Node end to end" section of benches/RESULTS.md.

const path = require('path')
const fs = require('fs')
const net = require('net')
const os = require('os')
const crypto = require('crypto')
const { performance, PerformanceObserver, constants } = require('perf_hooks')

const inspector = require('inspector')
const { spawn } = require('child_process')

const NODE_DIR = process.env.BOLTCODEC_NODE_DIR || path.join(__dirname, '..', '..', 'bindings', 'node')
const req = (m) => require(req.resolve(m))
req.resolve = (m) => require.resolve(m, { paths: [NODE_DIR] })
const neo4j = req('neo4j-driver')
const bc = require(NODE_DIR)
const dropIn = require(path.join(NODE_DIR, 'driver.js'))
const driverVersion = req('neo4j-driver/package.json').version
const driverDir = path.dirname(req.resolve('neo4j-driver/package.json'))

const argv = process.argv.slice(2)
const arg = (name, dflt) => {
  const i = argv.indexOf(name)
  return i >= 0 ? Number(argv[i + 1]) : dflt
}
const ROWS = arg('--rows', 100000)
const ROUNDS = arg('--rounds', 3)
const WRITE = argv.includes('--write')
const REPLAY = argv.includes('--replay')
const TIMELINE = argv.includes('--timeline')
const BASE_DIR = argv.includes('--base') ? path.resolve(argv[argv.indexOf('--base') + 1]) : null
const PROFILE = argv.includes('--profile') || BASE_DIR !== null
// In a child process of --profile: { dropIn, uri } of the read to make.
const CHILD = argv.includes('--child') ? JSON.parse(argv[argv.indexOf('--child') + 1]) : null
// The GC share of the CPU profile quoted when issue 15 was filed (drop-in, demo read).
const ISSUE_GC_SHARE = 0.24
const PORT = Number(process.env.NEO4J_BOLT_PORT || 7687)
const USER = process.env.NEO4J_USER || 'neo4j'
const PASSWORD = process.env.NEO4J_PASSWORD || 'password'
const URI = `bolt://127.0.0.1:${PORT}`
const RUN = 'node-e2e'

const QUERY =
  'MATCH (p:DemoPerson {run: $run}) OPTIONAL MATCH (p)-[k:KNOWS]->() ' +
  'RETURN p.id AS id, p.name AS name, p.score AS score, p.tags AS tags, ' +
  'p.born AS born, p.location AS location, p AS node, k AS rel ORDER BY id'

/** Writes the demo's data (in the server: UNWIND over ranges), as demo_workload.py. */
async function setup () {
  const driver = neo4j.driver(URI, neo4j.auth.basic(USER, PASSWORD))
  try {
    await driver.executeQuery('CREATE INDEX demo_run_id IF NOT EXISTS FOR (p:DemoPerson) ON (p.run, p.id)')
    await driver.executeQuery('MATCH (p:DemoPerson {run: $run}) DETACH DELETE p', { run: RUN })
    for (let start = 0; start < ROWS; start += 10000) {
      await driver.executeQuery(
        'UNWIND range($start, $end) AS i CREATE (p:DemoPerson) SET p = {run: $run, id: i, ' +
        "name: 'person-' + right('00000' + toString(i), 6), score: i * 0.25, " +
        "tags: ['a', 'b', toString(i % 7)], born: date('1970-01-01') + duration({days: i % 20000}), " +
        'location: point({x: toFloat(i % 100), y: toFloat(i % 37)})}',
        { run: RUN, start: neo4j.int(start), end: neo4j.int(Math.min(ROWS, start + 10000) - 1) })
    }
    await driver.executeQuery(
      'MATCH (a:DemoPerson {run: $run}) WHERE a.id % 2 = 0 ' +
      'MATCH (b:DemoPerson {run: $run, id: a.id + 1}) ' +
      "CREATE (a)-[:KNOWS {since: date('2020-01-01') + duration({days: a.id % 1000})}]->(b)",
      { run: RUN })
  } finally {
    await driver.close()
  }
}

async function cleanup () {
  const driver = neo4j.driver(URI, neo4j.auth.basic(USER, PASSWORD))
  try {
    await driver.executeQuery('MATCH (p:DemoPerson {run: $run}) DETACH DELETE p', { run: RUN })
  } finally {
    await driver.close()
  }
}

/** A digest of everything read, so that the driver with and without the drop-in agree. */
function digest (records) {
  const h = crypto.createHash('sha256')
  for (const r of records) {
    const node = r.get('node')
    const rel = r.get('rel')
    const loc = r.get('location')
    h.update(JSON.stringify([
      String(r.get('id')), r.get('name'), r.get('score'), r.get('tags'), r.get('born').toString(),
      [loc.x, loc.y], node.labels, String(node.properties.id),
      rel === null ? null : [rel.type, rel.properties.since.toString()]
    ]))
  }
  return h.digest('hex').slice(0, 16)
}

/**
 * Every garbage-collection pause of this process: [start, duration] in ms
 * (performance.now()), and whether it was a scavenge (a young-generation collection).
 */
const gcPauses = []
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = e.detail ? e.detail.kind : e.kind
    gcPauses.push([e.startTime, e.duration, kind === constants.NODE_PERFORMANCE_GC_MINOR])
  }
}).observe({ entryTypes: ['gc'] })

/**
 * With --timeline: this process's socket activity during a timed read, as
 * [kind, start, end] in performance.now() ms: kind 0 a 'data' event (from the start of
 * its handlers to their end, so the messages it completed were handled within), kind 1 a
 * socket write (end unused). `null` outside timed reads.
 */
let socketLog = null
if (TIMELINE) {
  const emit = net.Socket.prototype.emit
  net.Socket.prototype.emit = function (event, ...args) {
    if (socketLog === null || event !== 'data') return emit.call(this, event, ...args)
    const e = [0, performance.now(), 0]
    socketLog.push(e)
    try {
      return emit.call(this, event, ...args)
    } finally {
      e[2] = performance.now()
    }
  }
  const write = net.Socket.prototype.write
  net.Socket.prototype.write = function (...args) {
    if (socketLog !== null) socketLog.push([1, performance.now(), 0])
    return write.apply(this, args)
  }
}

/**
 * CPU time (ms) of this process's main thread and of its other threads (V8's workers:
 * parallel scavenging, concurrent marking and compiling; libuv's), from /proc (Linux);
 * null elsewhere.
 */
function threadCpu () {
  try {
    let main = 0
    let other = 0
    for (const tid of fs.readdirSync('/proc/self/task')) {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      const ms = (Number(f[11]) + Number(f[12])) * 1000 / 100 // utime + stime, USER_HZ 100
      if (Number(tid) === process.pid) main += ms
      else other += ms
    }
    return { main, other }
  } catch (e) {
    return null
  }
}

/**
 * Where a read's time went, from its socket log and GC pauses (--timeline), in seconds:
 * `busy` in socket 'data' handlers (decoding and handing on the messages, GC pauses that
 * fell within included); per round trip (a write made while handling a 'data' event, such
 * as the next PULL after a SUCCESS {has_more}), `toWrite`: from the start of that handler
 * to the write, and `toReply`: from the write to the next 'data' event (the server's
 * turn); the GC pauses within 'data' handlers, within the server's turns, and elsewhere
 * (between 'data' events while the server streams).
 */
function timelineOf (log, pauses, t0, t1) {
  const t = { busy: 0, roundTrips: 0, toWrite: 0, toReply: 0, gcInData: 0, gcInReply: 0, gcElsewhere: 0 }
  const turns = []
  let data = null
  for (let i = 0; i < log.length; i++) {
    const [kind, start, end] = log[i]
    if (kind === 0) {
      t.busy += end - start
      data = log[i]
      continue
    }
    if (data === null || start > data[2]) continue // not written while handling a 'data' event
    const next = log.slice(i + 1).find((e) => e[0] === 0)
    if (next === undefined) continue
    t.roundTrips++
    t.toWrite += start - data[1]
    t.toReply += next[1] - start
    turns.push([start, next[1]])
  }
  for (const [at, d] of pauses) {
    if (at < t0 || at >= t1) continue
    if (log.some((e) => e[0] === 0 && at >= e[1] && at < e[2])) t.gcInData += d
    else if (turns.some(([a, b]) => at >= a && at < b)) t.gcInReply += d
    else t.gcElsewhere += d
  }
  for (const k of Object.keys(t)) if (k !== 'roundTrips') t[k] /= 1e3
  return t
}

/** Posts an inspector command; resolves with its result. */
function post (session, method, params = {}) {
  return new Promise((resolve, reject) => {
    session.post(method, params, (err, result) => err ? reject(err) : resolve(result))
  })
}

/**
 * Sample counts of a V8 CPU profile (the inspector's Profiler.stop result): all samples,
 * "(garbage collector)" ones and "(idle)" ones, and the same as time (seconds).
 */
function profileShares (profile) {
  const kind = new Map(profile.nodes.map((n) => [n.id, n.callFrame.functionName]))
  let gc = 0
  let idle = 0
  // Also by time, as DevTools counts it: each sample stands for the time to the next one.
  let gcTime = 0
  let idleTime = 0
  let time = 0
  const { samples, timeDeltas } = profile
  for (let i = 0; i < samples.length; i++) {
    const name = kind.get(samples[i])
    const dt = i + 1 < samples.length ? timeDeltas[i + 1] : 0
    time += dt
    if (name === '(garbage collector)') {
      gc++
      gcTime += dt
    } else if (name === '(idle)') {
      idle++
      idleTime += dt
    }
  }
  if (process.env.E2E_PROFILE_DIR) {
    const file = path.join(process.env.E2E_PROFILE_DIR, `e2e-${process.pid}.cpuprofile`)
    fs.writeFileSync(file, JSON.stringify(profile))
  }
  return { samples: samples.length, gcSamples: gc, idleSamples: idle, profileTime: time / 1e6, gcTime: gcTime / 1e6, idleTime: idleTime / 1e6 }
}

/** Starts the CPU profiler of an inspector session (1 ms sampling interval). */
async function startProfile (session) {
  await post(session, 'Profiler.enable')
  await post(session, 'Profiler.setSamplingInterval', { interval: 1000 })
  await post(session, 'Profiler.start')
}

/**
 * Starts timing a read: its wall clock, CPU time and the GC pauses within it; with
 * `session` (an inspector session whose profiler startProfile started), also the CPU
 * profile's sample counts, the profile stopped at the end of the read.
 */
function startRead (session = null) {
  const th0 = TIMELINE ? threadCpu() : null
  if (TIMELINE) socketLog = []
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  return async (rows, digestOf) => {
    const t1 = performance.now()
    const c = process.cpuUsage(c0)
    const th1 = TIMELINE ? threadCpu() : null
    const log = socketLog
    socketLog = null
    const prof = session === null ? null : profileShares((await post(session, 'Profiler.stop')).profile)
    if (session !== null) await post(session, 'Profiler.disable')
    await new Promise(setImmediate) // GC entries are delivered asynchronously
    let gc = 0
    let scavenges = 0
    for (const [at, d, minor] of gcPauses) {
      if (at >= t0 && at < t1) {
        gc += d
        if (minor) scavenges++
      }
    }
    const result = { wall: (t1 - t0) / 1e3, cpu: (c.user + c.system) / 1e6, gc: gc / 1e3, scavenges, rows, digest: digestOf(), ...prof }
    if (TIMELINE) {
      result.timeline = timelineOf(log, gcPauses, t0, t1)
      if (th0 !== null && th1 !== null) {
        result.timeline.cpuMain = (th1.main - th0.main) / 1e3
        result.timeline.cpuOther = (th1.other - th0.other) / 1e3
      }
    }
    gcPauses.length = 0
    return result
  }
}

/**
 * The heap bytes per row that `records` keeps: the heap with them, less the heap once
 * they are dropped (after full collections; needs --expose-gc, else NaN).
 */
function keptPerRow (records) {
  if (typeof global.gc !== 'function' || records.length === 0) return NaN
  const n = records.length
  global.gc()
  global.gc()
  const withRows = process.memoryUsage().heapUsed
  records.length = 0
  global.gc()
  global.gc()
  return (withRows - process.memoryUsage().heapUsed) / n
}

/**
 * One read through neo4j-driver (a new driver, so that each read has its own connection);
 * with `session`, CPU-profiled.
 */
async function driverRead (withDropIn, uri = URI, measureKept = false, session = null) {
  if (withDropIn) dropIn.install({ driverDir })
  const driver = neo4j.driver(uri, neo4j.auth.basic(USER, PASSWORD))
  try {
    await driver.verifyConnectivity()
    if (typeof global.gc === 'function') global.gc() // start each read from a clean heap
    if (session !== null) await startProfile(session)
    const done = startRead(session)
    const { records } = await driver.executeQuery(QUERY, { run: RUN })
    const result = await done(records.length, () => digest(records))
    // (Only when asked: the full collections it takes change how V8 sizes the young
    // generation for the next read.)
    if (measureKept) result.kept = keptPerRow(records)
    return result
  } finally {
    await driver.close()
    if (withDropIn) dropIn.uninstall()
  }
}

/**
 * One read through neo4j-driver in a child process (--profile): this script with --child,
 * the boltcodec package `nodeDir`; the child makes a warm-up read, then the profiled one,
 * and prints its result.
 */
function childRead (nodeDir, withDropIn, uri = URI) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', __filename, '--child', JSON.stringify({ dropIn: withDropIn, uri })],
      { env: { ...process.env, BOLTCODEC_NODE_DIR: nodeDir }, stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (b) => { out += b })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`e2e child (${nodeDir}, drop-in ${withDropIn}) exited with ${code}`))
      resolve(JSON.parse(out))
    })
  })
}

/** The commit of the --base build's checkout (its directory is not printed: a machine path). */
function baseCommit () {
  try {
    return require('child_process').execFileSync('git', ['-C', BASE_DIR, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
  } catch (e) {
    return path.basename(path.resolve(BASE_DIR, '..', '..'))
  }
}

/** The read of a --child process: a warm-up read, then the profiled one (printed). */
async function childMain () {
  await driverRead(CHILD.dropIn, CHILD.uri)
  const session = new inspector.Session()
  session.connect()
  try {
    const r = await driverRead(CHILD.dropIn, CHILD.uri, false, session)
    process.stdout.write(JSON.stringify(r) + '\n')
  } finally {
    session.disconnect()
  }
}

/**
 * The PULL size of the driver's own reads: its default `fetchSize` (neo4j-driver's
 * config, 1000 in 5.x and 6.x), read from a driver instance's resolved config.
 */
async function driverFetchSize () {
  const driver = neo4j.driver(URI, neo4j.auth.basic(USER, PASSWORD))
  try {
    const n = driver._config && driver._config.fetchSize
    if (!Number.isInteger(n) || n <= 0) throw new Error(`neo4j-driver ${driverVersion}: no fetchSize in its config`)
    return n
  } finally {
    await driver.close()
  }
}

/**
 * The raw floor: Bolt 5.x on a bare socket, the PULL response decoded by boltcodec.
 * `fetch`: -1 sends one PULL {n: -1} (the whole result in one response); a positive n
 * pulls as the driver does: PULL {n} after the RUN, and the next PULL {n} (with the
 * RUN's qid, if it gave one) when a PULL's SUCCESS says has_more.
 */
function rawRead (fetch) {
  return new Promise((resolve, reject) => {
    const S = (sig, ...fields) => bc.packMessage(new bc.Structure(sig, fields))
    const sock = net.connect(PORT, '127.0.0.1')
    const dechunker = new bc.Dechunker({ records: true })
    let stage = 'handshake'
    let successes = 0
    let rows = 0
    let pulls = 0
    let pull = { n: BigInt(fetch) }
    let done
    sock.setNoDelay(true)
    sock.on('error', reject)
    sock.on('connect', () => {
      // Magic, then Bolt 5.8 down to 5.0 (one range), as the drivers offer.
      sock.write(Buffer.from([0x60, 0x60, 0xb0, 0x17, 0, 8, 8, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]))
    })
    let pending = Buffer.alloc(0)
    sock.on('data', (chunk) => {
      if (stage === 'handshake') {
        pending = Buffer.concat([pending, chunk])
        if (pending.length < 4) return
        if (pending[3] !== 5) return reject(new Error(`server chose Bolt ${pending[3]}.${pending[2]}`))
        const rest = pending.subarray(4)
        stage = 'query'
        const agent = { product: 'boltcodec-e2e/0.1' }
        if (typeof global.gc === 'function') global.gc() // start each read from a clean heap
        done = startRead()
        pulls = 1
        sock.write(Buffer.concat([
          S(0x01, { user_agent: 'boltcodec-e2e/0.1', bolt_agent: agent }),
          S(0x6a, { scheme: 'basic', principal: USER, credentials: PASSWORD }),
          S(0x10, QUERY, { run: RUN }, {}),
          S(0x3f, pull)
        ]))
        if (rest.length === 0) return
        chunk = rest
      }
      for (const m of dechunker.messages(chunk)) {
        if (Array.isArray(m)) {
          rows++
        } else if (m.signature === 0x70) {
          const meta = m.fields[0]
          successes++
          if (successes === 3 && meta.qid !== undefined) pull = { n: BigInt(fetch), qid: meta.qid }
          if (successes < 4) continue
          if (meta.has_more === true) {
            pulls++
            sock.write(S(0x3f, pull))
            continue
          }
          const result = done(rows, () => '-')
          sock.end(S(0x02))
          resolve(result.then((r) => ({ ...r, pulls })))
        } else {
          sock.destroy()
          reject(new Error(`server answered ${JSON.stringify(m, (k, v) => typeof v === 'bigint' ? String(v) : v)}`))
        }
      }
    })
  })
}

/**
 * Records the conversation of one read by the driver alone, through a proxy to the
 * server; returns the file (replay-server.js's format).
 */
async function recordRead () {
  const conversations = []
  const proxy = net.createServer((client) => {
    const segments = []
    conversations.push(segments)
    const server = net.connect(PORT, '127.0.0.1')
    const add = (fromClient, b) => {
      const last = segments[segments.length - 1]
      if (last && last.fromClient === fromClient) last.parts.push(b)
      else segments.push({ fromClient, parts: [b] })
    }
    client.on('data', (b) => { add(true, b); server.write(b) })
    server.on('data', (b) => { add(false, b); client.write(b) })
    client.on('close', () => server.destroy())
    server.on('close', () => client.destroy())
    client.on('error', () => {})
    server.on('error', () => {})
  })
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  try {
    await driverRead(false, `bolt://127.0.0.1:${proxy.address().port}`)
  } finally {
    proxy.close()
  }
  // The read's connection is the one that carried the most.
  const size = (c) => c.reduce((n, s) => n + s.parts.reduce((m, b) => m + b.length, 0), 0)
  const read = conversations.sort((a, b) => size(b) - size(a))[0]
  const file = path.join(os.tmpdir(), `boltcodec-e2e-replay-${process.pid}.bin`)
  fs.writeFileSync(file, Buffer.concat(read.flatMap((s) => {
    const bytes = Buffer.concat(s.parts)
    const head = Buffer.alloc(5)
    head[0] = s.fromClient ? 0 : 1
    head.writeUInt32BE(bytes.length, 1)
    return [head, bytes]
  })))
  return file
}

/** Starts replay-server.js on `file` in a child process: its URI and a stop function. */
async function startReplay (file) {
  const { spawn } = require('child_process')
  const child = spawn(process.execPath, [path.join(__dirname, 'replay-server.js'), file], { stdio: ['ignore', 'pipe', 'inherit'] })
  const port = await new Promise((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (b) => {
      out += b
      if (out.includes('\n')) resolve(Number(out.trim()))
    })
    child.on('exit', (code) => reject(new Error(`replay server exited (${code})`)))
  })
  return { uri: `bolt://127.0.0.1:${port}`, stop: () => child.kill() }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

async function main () {
  process.stderr.write(`e2e: writing ${ROWS.toLocaleString('en')} rows to Neo4j on port ${PORT}\n`)
  await setup()
  const fetchSize = await driverFetchSize()
  const modes = [
    [`raw floor, PULL n=${fetchSize} as the driver (bare socket, boltcodec decode)`, () => rawRead(fetchSize)],
    ['raw floor, one PULL n=-1 (bare socket, boltcodec decode)', () => rawRead(-1)],
    [`neo4j-driver ${driverVersion} alone`, () => PROFILE ? childRead(NODE_DIR, false) : driverRead(false)],
    ['neo4j-driver + boltcodec drop-in', () => PROFILE ? childRead(NODE_DIR, true) : driverRead(true)]
  ]
  if (BASE_DIR !== null) modes.push([`neo4j-driver + boltcodec drop-in, --base build (${baseCommit()})`, () => childRead(BASE_DIR, true)])
  // Indices into modes: the floor the goal is judged against (its PULLs are the
  // driver's), the one-PULL floor, the driver alone, the driver with the drop-in, and
  // with --base the drop-in of that build.
  const [FLOOR, FLOOR_ALL, ALONE, DROP, BASE] = [0, 1, 2, 3, 4]
  const results = modes.map(() => [])
  const replayModes = modes.slice(ALONE, DROP + 1)
  const replayResults = replayModes.map(() => [])
  let loadStart = 0
  let replayLoad = [0, 0]
  try {
    // A warm-up read of each, then alternating rounds.
    // (A read in a child process makes its own warm-up read.)
    for (let i = 0; i < modes.length; i++) if (!PROFILE || i < ALONE) await modes[i][1]()
    loadStart = os.loadavg()[0]
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < modes.length; i++) {
        const r = await modes[i][1]()
        if (r.rows !== ROWS) throw new Error(`${modes[i][0]}: ${r.rows} rows, expected ${ROWS}`)
        results[i].push(r)
        process.stderr.write(`round ${round + 1}: ${modes[i][0]}: ${r.wall.toFixed(2)} s, CPU ${r.cpu.toFixed(2)} s, GC ${r.gc.toFixed(2)} s (${r.scavenges} scavenges), load ${os.loadavg()[0].toFixed(1)}${r.samples ? `, profile: GC ${(100 * r.gcSamples / r.samples).toFixed(1)} % of ${r.samples} samples (${(100 * r.gcTime / r.profileTime).toFixed(1)} % by time), idle ${(100 * r.idleSamples / r.samples).toFixed(0)} %` : ''}\n`)
        if (r.timeline) process.stderr.write(`  timeline: ${JSON.stringify(r.timeline, (k, v) => typeof v === 'number' ? Number(v.toFixed(3)) : v)}\n`)
      }
    }
    // What the result keeps: one more read of each, after the timed rounds.
    for (let i = ALONE; i <= DROP; i++) results[i].kept = (await driverRead(i === DROP, URI, true)).kept
    if (REPLAY) {
      const file = await recordRead()
      const replay = await startReplay(file)
      try {
        const reads = [() => driverRead(false, replay.uri), () => driverRead(true, replay.uri)]
        for (const fn of reads) await fn()
        replayLoad = [os.loadavg()[0], 0]
        for (let round = 0; round < ROUNDS; round++) {
          for (let i = 0; i < reads.length; i++) {
            const r = await reads[i]()
            if (r.rows !== ROWS) throw new Error(`replayed ${replayModes[i][0]}: ${r.rows} rows, expected ${ROWS}`)
            replayResults[i].push(r)
            process.stderr.write(`replayed round ${round + 1}: ${replayModes[i][0]}: ${r.wall.toFixed(2)} s, CPU ${r.cpu.toFixed(2)} s, GC ${r.gc.toFixed(2)} s (${r.scavenges} scavenges), load ${os.loadavg()[0].toFixed(1)}\n`)
          }
        }
        replayLoad[1] = os.loadavg()[0]
        for (let i = 0; i < reads.length; i++) replayResults[i].kept = (await driverRead(i === 1, replay.uri, true)).kept
      } finally {
        replay.stop()
        fs.rmSync(file, { force: true })
      }
    }
  } finally {
    await cleanup()
  }
  const digests = new Set([...results.slice(ALONE), ...replayResults].flatMap((rs) => rs.map((r) => r.digest)))
  if (digests.size !== 1) throw new Error(`the driver read different results with and without the drop-in: ${[...digests]}`)

  const floor = median(results[FLOOR].map((r) => r.wall))
  const floorAll = median(results[FLOOR_ALL].map((r) => r.wall))
  const aloneCpu = median(results[ALONE].map((r) => r.cpu))
  const lines = [
    '## Node end to end: neo4j-driver with and without boltcodec, against the raw floor',
    '',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus()[0].model.trim()} (${os.cpus().length} cores, shared with the server), ` +
    `Node ${process.version}, neo4j-driver ${driverVersion}, Neo4j on the same machine; load average ${loadStart.toFixed(1)} at the start of the rounds, ${os.loadavg()[0].toFixed(1)} at the end. ` +
    `The demo's read (scripts/demo_workload.py): ${ROWS.toLocaleString('en')} rows of ints, strings, floats, lists, dates, points, ` +
    'a node per row and a relationship every other row, with `driver.executeQuery` (default integer mode). ' +
    `Median of ${ROUNDS} alternating rounds in one run, after one warm-up read each. ` +
    'Raw floors: the same query on a bare socket, every message decoded by boltcodec (no hydration, rows not kept), in two ways: ' +
    `pulling as the driver does (PULL {n: ${fetchSize}}, the driver's fetchSize, and the next PULL when a SUCCESS says has_more; ${median(results[FLOOR].map((r) => r.pulls))} PULLs), which is the floor the goal is judged against since its PULLs, and so the server's round trips, match the driver's; ` +
    'and one PULL {n: -1} (the whole result in one response, no round trip: what the server alone can stream). ' +
    'CPU: this process, `process.cpuUsage` over the read. GC: the garbage-collection pauses within the read (perf_hooks `gc` entries, wall-clock time of each pause; each read starts after a full collection when run with `--expose-gc`), and their share of the read\'s wall clock; scavenges: how many of those pauses were young-generation collections; kept per row: the heap the result holds, per row (heap used after full collections with the records, less without them; `--expose-gc`), from one more read of each after the timed rounds. Regenerate with `make demo-node` (`--write`: `node benches/node/e2e.js --write` under `scripts/with-neo4j.sh`).',
    '',
    `| read | wall clock | vs raw floor (n=${fetchSize}) | vs raw floor (n=-1) | client CPU | CPU vs driver alone | GC pauses | GC share of the read | scavenges | kept per row |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |'
  ]
  const kept = (rs) => rs.kept === undefined || Number.isNaN(rs.kept) ? '–' : `${Math.round(rs.kept).toLocaleString('en')} B`
  for (let i = 0; i < modes.length; i++) {
    const wall = median(results[i].map((r) => r.wall))
    const cpu = median(results[i].map((r) => r.cpu))
    const gc = median(results[i].map((r) => r.gc))
    const share = median(results[i].map((r) => r.gc / r.wall))
    const scavenges = median(results[i].map((r) => r.scavenges))
    lines.push(`| ${modes[i][0]} | ${wall.toFixed(2)} s | ${(wall / floor).toFixed(2)}× | ${(wall / floorAll).toFixed(2)}× | ${cpu.toFixed(2)} s | ${(cpu / aloneCpu).toFixed(2)}× | ${gc.toFixed(2)} s | ${(100 * share).toFixed(0)} % | ${scavenges} | ${kept(results[i])} |`)
  }
  const profShare = (r) => r.gcSamples / r.samples
  const profTimeShare = (r) => r.gcTime / r.profileTime
  const shareBusy = (r) => r.gcSamples / (r.samples - r.idleSamples)
  if (PROFILE) {
    lines.push('', `GC measured three ways (\`--profile\`): each driver read in a child process of its own (one warm-up read, then the measured read), with V8's sampling CPU profiler (the inspector's Profiler, 1 ms interval) running from just before \`executeQuery\` to its result; the same reads as the table above, medians. (a) "(garbage collector)" samples among all samples of the profile (idle included, as the profile quoted by issue 15: 24 % with 43 % idle), and among the non-idle samples; (a, by time) the same weighted by time, as DevTools counts a profile (each sample stands for the time to the next; the sampler is late during scavenges, so GC samples stand for more time); (b) GC pauses (perf_hooks) over the read's wall clock; (c) GC pause seconds.`, '',
      '| read | (a) GC samples / all samples | (a) GC / non-idle samples | idle samples | (a, by time) GC / profile time | (b) GC pauses / wall clock | (c) GC pauses | scavenges | wall clock | client CPU |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for (let i = ALONE; i < modes.length; i++) {
      const rs = results[i]
      const m = (f) => median(rs.map(f))
      lines.push(`| ${modes[i][0]} | ${(100 * m(profShare)).toFixed(1)} % | ${(100 * m(shareBusy)).toFixed(1)} % | ${(100 * m((r) => r.idleSamples / r.samples)).toFixed(0)} % | ${(100 * m(profTimeShare)).toFixed(1)} % | ${(100 * m((r) => r.gc / r.wall)).toFixed(1)} % | ${m((r) => r.gc).toFixed(3)} s | ${m((r) => r.scavenges)} | ${m((r) => r.wall).toFixed(2)} s | ${m((r) => r.cpu).toFixed(2)} s |`)
    }
  }
  if (TIMELINE) {
    lines.push('', `Where the time went (\`--timeline\`, medians of the same rounds, in seconds): time in socket 'data' handlers (decoding and handing on the messages; GC pauses within included); round trips: writes made while handling a 'data' event (the next PULL after a SUCCESS {has_more}, the COMMIT), with the time from the start of that handler to the write and from the write to the server's next bytes; GC pauses inside handlers, inside those server turns, and elsewhere (between 'data' events while the server streams); CPU of this process's main thread and of its other threads (V8's parallel scavenging, concurrent marking and compiling).`, '',
      '| read | wall clock | in data handlers | round trips | handler start to write | write to reply | GC in handlers | GC in server turns | GC elsewhere | CPU main thread | CPU other threads |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for (let i = 0; i < modes.length; i++) {
      const m = (k) => median(results[i].map((r) => r.timeline[k]))
      const f = (k) => Number.isFinite(m(k)) ? m(k).toFixed(3) : '–'
      lines.push(`| ${modes[i][0]} | ${median(results[i].map((r) => r.wall)).toFixed(2)} | ${f('busy')} | ${m('roundTrips')} | ${f('toWrite')} | ${f('toReply')} | ${f('gcInData')} | ${f('gcInReply')} | ${f('gcElsewhere')} | ${f('cpuMain')} | ${f('cpuOther')} |`)
    }
  }
  if (REPLAY) {
    const rAloneCpu = median(replayResults[0].map((r) => r.cpu))
    const rAloneWall = median(replayResults[0].map((r) => r.wall))
    lines.push('', `The client's side alone (\`--replay\`): the same read's recorded responses served by a replay server in a child process, no database running (load average ${replayLoad[0].toFixed(1)} at the start of these rounds, ${replayLoad[1].toFixed(1)} at the end); median of ${ROUNDS} alternating rounds:`, '',
      '| read, server replayed | wall clock | vs driver alone | client CPU | CPU vs driver alone | GC pauses | GC share of the read | scavenges | kept per row |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for (let i = 0; i < replayModes.length; i++) {
      const rs = replayResults[i]
      const wall = median(rs.map((r) => r.wall))
      const cpu = median(rs.map((r) => r.cpu))
      const gc = median(rs.map((r) => r.gc))
      const share = median(rs.map((r) => r.gc / r.wall))
      lines.push(`| ${replayModes[i][0]} | ${wall.toFixed(2)} s | ${(wall / rAloneWall).toFixed(2)}× | ${cpu.toFixed(2)} s | ${(cpu / rAloneCpu).toFixed(2)}× | ${gc.toFixed(2)} s | ${(100 * share).toFixed(0)} % | ${median(rs.map((r) => r.scavenges))} | ${kept(rs)} |`)
    }
  }
  const dropWall = median(results[DROP].map((r) => r.wall))
  const dropCpu = median(results[DROP].map((r) => r.cpu))
  const dropShare = median(results[DROP].map((r) => r.gc / r.wall))
  const aloneShare = median(results[ALONE].map((r) => r.gc / r.wall))
  const met = (ok) => ok ? 'met' : 'not met'
  lines.push('', 'The driver read identical results with and without the drop-in (digest of every value read).',
    '', `Goals (issue 15): the drop-in within 1.2× of the raw floor that pulls as the driver (n=${fetchSize}): ${(dropWall / floor).toFixed(2)}× (${met(dropWall / floor <= 1.2)}; ${(dropWall / floorAll).toFixed(2)}× the one-PULL floor); ` +
    `at most half the client CPU time of the driver alone: ${(dropCpu / aloneCpu).toFixed(2)}× (${met(dropCpu / aloneCpu <= 0.5)}); ` +
    gcGoal())
  function gcGoal () {
    const wallShares = `GC pauses over the wall clock: drop-in ${(100 * dropShare).toFixed(0)} %, driver alone ${(100 * aloneShare).toFixed(0)} %` +
      (BASE_DIR === null ? '' : `, issue-filing build ${(100 * median(results[BASE].map((r) => r.gc / r.wall))).toFixed(0)} %`)
    if (!PROFILE) {
      return `GC share of the profile at most half of the issue's (${(100 * ISSUE_GC_SHARE).toFixed(0)} % of a CPU profile's samples when it was filed): not measured in this run (needs \`--profile --base <the issue-filing build's bindings/node>\`); ${wallShares}.`
    }
    const drop = median(results[DROP].map(profShare))
    if (BASE_DIR === null) {
      return `GC share of the profile at most half of the issue's: ${(100 * drop).toFixed(1)} % of the drop-in's profile samples against the ${(100 * ISSUE_GC_SHARE).toFixed(0)} % quoted when the issue was filed (not from this run; \`--base\` measures the issue-filing build in the same run): ${met(drop <= ISSUE_GC_SHARE / 2)}; ${wallShares}.`
    }
    const base = median(results[BASE].map(profShare))
    const dropT = median(results[DROP].map(profTimeShare))
    const baseT = median(results[BASE].map(profTimeShare))
    return `GC share of the profile at most half of the issue-filing build's, in this run: ${(100 * drop).toFixed(1)} % of the drop-in's profile samples against ${(100 * base).toFixed(1)} % (${(drop / base).toFixed(2)}×; ${met(drop <= base / 2)}); ` +
      `by time ${(100 * dropT).toFixed(1)} % against ${(100 * baseT).toFixed(1)} % (${(dropT / baseT).toFixed(2)}×; ${met(dropT <= baseT / 2)}); ` +
      `of the non-idle samples ${(100 * median(results[DROP].map(shareBusy))).toFixed(1)} % against ${(100 * median(results[BASE].map(shareBusy))).toFixed(1)} %; ${wallShares}.`
  }
  const section = lines.join('\n') + '\n'
  process.stdout.write('\n' + section)
  if (WRITE) {
    const file = path.join(__dirname, '..', 'RESULTS.md')
    const text = fs.readFileSync(file, 'utf8')
    const start = text.indexOf('## Node end to end')
    let next = start < 0 ? -1 : text.indexOf('\n## ', start + 1)
    if (next >= 0) next += 1
    const updated = start < 0
      ? text.replace(/\n*$/, '\n\n') + section
      : text.slice(0, start) + section + (next >= 0 ? '\n' + text.slice(next) : '')
    fs.writeFileSync(file, updated)
    process.stderr.write('e2e: wrote the "Node end to end" section of benches/RESULTS.md\n')
  }
}

;(CHILD === null ? main() : childMain()).catch((e) => {
  console.error(e)
  process.exit(1)
})
