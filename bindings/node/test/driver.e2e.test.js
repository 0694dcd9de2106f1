'use strict'
// The drop-in codec with the official neo4j-driver against a real Neo4j server: the same
// queries run with the driver's own codec and with boltcodec installed, and every result
// must be identical. Needs NEO4J_BOLT_PORT (scripts/test.sh starts a server through
// scripts/with-neo4j.sh); skipped without it. The release is the neo4j-driver found from
// BOLTCODEC_DRIVER_DIR (default: this package's; scripts/driver-releases.sh sets it).

const { test, before, after } = require('node:test')
const assert = require('node:assert/strict')
const path = require('node:path')
const driverDir = path.dirname(require.resolve('neo4j-driver/package.json', {
  paths: [process.env.BOLTCODEC_DRIVER_DIR || path.join(__dirname, '..')]
}))
const neo4j = require(driverDir)
const driverCodec = require('../driver.js')
const decode = require('../lib/decode.js')
const encode = require('../lib/encode.js')

const port = process.env.NEO4J_BOLT_PORT
const skip = port ? false : 'NEO4J_BOLT_PORT is not set (run scripts/test.sh)'
const url = `bolt://127.0.0.1:${port}`
const auth = neo4j.auth.basic(process.env.NEO4J_USER || 'neo4j', process.env.NEO4J_PASSWORD || 'password')

const CONFIGS = {
  integer: {},
  number: { disableLosslessIntegers: true },
  bigint: { useBigInt: true }
}

/** Parameters of every type the driver can send. */
function parameters () {
  return {
    nul: null,
    t: true,
    f: false,
    small: neo4j.int(42),
    neg: neo4j.int(-17),
    big: neo4j.int('9007199254740993'),
    min: neo4j.Integer.MIN_VALUE,
    max: neo4j.Integer.MAX_VALUE,
    bigint: 2n ** 40n + 1n,
    float: 1.5,
    nan: NaN,
    inf: -Infinity,
    str: 'Grüße, 世界 😀',
    long: 'x'.repeat(100000),
    bytes: Int8Array.from({ length: 300 }, (_, i) => (i % 256) - 128),
    list: [neo4j.int(1), 'two', 3.0, [true, null], { k: 'v' }],
    map: { a: neo4j.int(1), nested: { b: ['c'] }, empty: {} },
    date: new neo4j.types.Date(2024, 2, 29),
    time: new neo4j.types.Time(12, 30, 15, 123456789, 3600),
    localTime: new neo4j.types.LocalTime(1, 2, 3, 4),
    dateTime: new neo4j.types.DateTime(2024, 1, 15, 10, 20, 30, 5, -18000),
    zoned: new neo4j.types.DateTime(2024, 6, 1, 8, 0, 0, 0, undefined, 'Europe/Stockholm'),
    local: new neo4j.types.LocalDateTime(1999, 12, 31, 23, 59, 59, 999999999),
    duration: new neo4j.types.Duration(14, 3, 3600, 500),
    point2: new neo4j.types.Point(neo4j.int(7203), 1.25, -2.5),
    point3: new neo4j.types.Point(neo4j.int(4979), 12.5, 56.25, 100)
  }
}

const QUERIES = [
  ['echo every parameter type', 'RETURN $p AS p, size($p.long) AS n', { p: parameters() }],
  ['many rows (batches of RECORDs)', 'UNWIND range(1, 30000) AS i RETURN i, toString(i) AS s, i * 0.5 AS f, [i, -i] AS l, {k: i} AS m', {}],
  ['large values (multi-chunk messages)', 'RETURN [x IN range(1, 20000) | toString(x)] AS xs, reduce(s = "", x IN range(1, 2000) | s + "abcdefghij") AS s', {}],
  ['nodes, relationships and paths', 'MATCH p = (a:BcPerson)-[r:KNOWS]->(b:BcPerson) RETURN a, r, b, p ORDER BY a.name, b.name', {}],
  ['temporal and spatial values made by the server', "RETURN date('2020-02-29') AS d, datetime('2021-03-04T05:06:07.123456789+01:00') AS dt, datetime({year: 2022, month: 7, day: 1, hour: 12, timezone: 'America/New_York'}) AS dz, localdatetime('2019-01-01T00:00:00') AS ldt, time('10:11:12+02:00') AS t, localtime('23:59:59.999') AS lt, duration('P1Y2M3DT4H5M6.7S') AS du, point({x: 1, y: 2}) AS p2, point({longitude: 12.1, latitude: 57.7, height: 3}) AS p3", {}],
  ['integers at every width', 'UNWIND [0, -16, 127, -17, 128, -129, 32767, 32768, -32769, 2147483647, 2147483648, -2147483649, 9007199254740991, 9007199254740993, 9223372036854775807, -9223372036854775808] AS i RETURN i, -i AS neg', {}],
  ['an error from the server', 'RETURN 1/0', {}]
]

/** A canonical form of a result: records as objects, plus the error if there is one. */
async function runAll (config) {
  const driver = neo4j.driver(url, auth, { ...config, maxConnectionPoolSize: 2 })
  const out = []
  try {
    const session = driver.session()
    try {
      for (const [name, query, params] of QUERIES) {
        try {
          const res = await session.run(query, params)
          out.push({ name, keys: res.records[0] ? res.records[0].keys : [], records: res.records.map((r) => r.toObject()) })
        } catch (e) {
          out.push({ name, error: `${e.code}: ${e.message}` })
        }
      }
    } finally {
      await session.close()
    }
  } finally {
    await driver.close()
  }
  return out
}

before(async () => {
  if (skip) return
  const driver = neo4j.driver(url, auth)
  try {
    await driver.executeQuery('MATCH (n:BcPerson) DETACH DELETE n')
    await driver.executeQuery(
      "CREATE (a:BcPerson {name: 'Ada', born: 1815, tags: ['math', 'poetry']})-[:KNOWS {since: date('1833-06-05'), w: 0.5}]->(b:BcPerson:Friend {name: 'Charles', born: 1791}), (b)-[:KNOWS {since: 1834}]->(c:BcPerson {name: 'Mary'})")
  } finally {
    await driver.close()
  }
})

after(() => driverCodec.uninstall())

for (const [mode, config] of Object.entries(CONFIGS)) {
  test(`the drop-in codec gives the driver's own results (${mode} integers)`, { skip }, async () => {
    driverCodec.uninstall()
    const expected = await runAll(config)

    // Count the native decode calls and the encodes, to be sure the drop-in was used.
    let pushes = 0
    let packs = 0
    const push = decode.StreamDecoder.prototype.push
    decode.StreamDecoder.prototype.push = function (input) {
      pushes++
      return push.call(this, input)
    }
    const packTransient = encode.packTransient
    encode.packTransient = function (...args) {
      packs++
      return packTransient.apply(this, args)
    }
    driverCodec.install({ driverDir })
    let actual
    let records
    try {
      actual = await runAll(config)
      records = driverCodec.status().records
    } finally {
      driverCodec.uninstall()
      decode.StreamDecoder.prototype.push = push
      encode.packTransient = packTransient
    }
    assert.ok(pushes > 0, 'boltcodec decoded the responses')
    const hydrated = driverCodec.status().hydrated
    for (const kind of ['Node', 'Relationship', 'Path', 'Date', 'DateTime (zone id)', 'Duration', 'Point (3D)']) {
      assert.ok(hydrated.includes(kind), `the drop-in built ${kind} itself (${hydrated})`)
    }
    assert.ok(packs >= QUERIES.length, 'boltcodec encoded the requests')
    assert.equal(records, 'boltcodec', 'the drop-in built the records')
    assert.equal(actual.length, expected.length)
    for (let i = 0; i < expected.length; i++) {
      assert.deepStrictEqual(actual[i], expected[i], expected[i].name)
    }
    const rows = expected.find((r) => r.name.startsWith('many rows')).records.length
    assert.equal(rows, 30000)
    console.log(`# e2e (neo4j-driver ${neo4j.version || require(path.join(driverDir, 'package.json')).version}, ${mode}): ${expected.length} queries, ${rows} rows in the batch query, identical; ${pushes} native reads, ${packs} requests packed`)
  })
}
