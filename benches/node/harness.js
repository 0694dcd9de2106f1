'use strict'
// Timing helper. Each candidate runs a warm-up burst and then several short bursts in a
// row, and its best burst counts. A burst is timed by the CPU time the process used
// (process.cpuUsage: user + system, all threads) rather than by the wall clock, because the
// machines this runs on are shared: time spent waiting for a core would otherwise count.
// Candidates are not interleaved burst by burst, so that none pays for the collection of
// another's garbage.

/**
 * @param {Record<string, () => unknown>} fns the candidates, run on the same input
 * @param {{rounds?: number, burstMs?: number}} [opts]
 * @returns {Record<string, number>} best CPU time per call, in microseconds
 */
function compare (fns, opts = {}) {
  const rounds = opts.rounds || 15
  const burstMs = opts.burstMs || 20
  const best = {}
  for (const [name, fn] of Object.entries(fns)) {
    burst(fn, 4 * burstMs) // let the JIT settle
    best[name] = Infinity
    for (let r = 0; r < rounds; r++) best[name] = Math.min(best[name], burst(fn, burstMs))
  }
  return best
}

let sink
/**
 * CPU time per call of `fn` over one burst of about `ms` milliseconds. The clock is read
 * after batches of calls that double in size until a batch takes 1/64–1/32 of the burst:
 * `process.cpuUsage` itself costs 0.5–1 µs, which read after every call would be added to
 * each call of a small workload (and pull every ratio of the small workloads towards 1).
 */
function burst (fn, ms) {
  const limit = ms * 1000
  let calls = 0
  let batch = 1
  const c0 = process.cpuUsage()
  let used
  do {
    for (let i = 0; i < batch; i++) sink = fn()
    calls += batch
    const c = process.cpuUsage(c0)
    used = c.user + c.system
    if ((used / calls) * batch * 64 < limit) batch *= 2
  } while (used < limit)
  return used / calls
}

/**
 * neo4j-driver's internal modules, as installed for the package in `nodeDir`.
 *
 * @param {string} nodeDir the boltcodec package directory (bindings/node)
 * @returns {{lib: (p: string) => any, core: any, version: string}} `lib(p)` requires
 *   `neo4j-driver-bolt-connection/lib/<p>`; `core` is its neo4j-driver-core
 */
function driverInternals (nodeDir) {
  const path = require('path')
  const driverPkg = require.resolve('neo4j-driver/package.json', { paths: [nodeDir] })
  const boltDir = path.dirname(require.resolve('neo4j-driver-bolt-connection/package.json', { paths: [path.dirname(driverPkg)] }))
  return {
    lib: (p) => require(path.join(boltDir, 'lib', p)),
    core: require(require.resolve('neo4j-driver-core', { paths: [boltDir] })),
    version: require(driverPkg).version
  }
}

module.exports = { compare, driverInternals, sinkValue: () => sink }
