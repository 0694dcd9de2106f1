'use strict'
// Smoke test of the boltcodec npm packages as installed from their tarballs, run by
// scripts/dist/test.sh from a fresh project that has them in node_modules:
//
//   node smoke_node.js VECTORS_JSON PLATFORM
//
// Checks that `require('boltcodec')` loads the native addon from the platform package
// (node_modules/boltcodec-PLATFORM, not from a source tree), that every case of
// tests/vectors/packstream.json decodes (valid ones re-encode to the same bytes, invalid
// ones fail with the vector's error kind and byte offset), that a framed message decodes
// through the Dechunker, and that `boltcodec/driver` loads. Exits non-zero on failure.
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')

const [vectorsPath, platform] = process.argv.slice(2)
if (!vectorsPath || !platform) {
  console.error('usage: node smoke_node.js VECTORS_JSON PLATFORM')
  process.exit(2)
}

function fail (message) {
  console.error(`smoke_node: FAILED: ${message}`)
  process.exit(1)
}

const boltcodec = require('boltcodec')
require('boltcodec/driver')

const here = fs.realpathSync(process.cwd())
const addon = Object.keys(require.cache).filter((f) => f.endsWith('.node'))
const expected = path.join(here, 'node_modules', `boltcodec-${platform}`, `boltcodec.${platform}.node`)
if (addon.length !== 1 || fs.realpathSync(addon[0]) !== expected) {
  fail(`native addon loaded from ${JSON.stringify(addon)}, expected ${expected}`)
}
const main = fs.realpathSync(require.resolve('boltcodec'))
if (!main.startsWith(path.join(here, 'node_modules', 'boltcodec') + path.sep)) {
  fail(`boltcodec resolved to ${main}`)
}

const vectors = JSON.parse(fs.readFileSync(vectorsPath, 'utf8'))
const LIMIT_NAMES = {
  max_depth: 'maxDepth',
  max_string_len: 'maxStringLen',
  max_bytes_len: 'maxBytesLen',
  max_container_len: 'maxContainerLen',
  max_total_elements: 'maxTotalElements'
}
function bytesOf (c, prefix = '') {
  const parts = c[`${prefix}hex_parts`]
  if (parts) return Buffer.concat(parts.map(([h, n]) => Buffer.from(h.repeat(n), 'hex')))
  return Buffer.from(c[`${prefix}hex`], 'hex')
}
function optionsOf (c) {
  const o = { int: 'bigint' }
  if (c.options && c.options.uuid) o.uuid = true
  if (c.options && c.options.legacy_structs) o.legacyStructs = true
  for (const [k, v] of Object.entries(c.limits || {})) o[LIMIT_NAMES[k]] = v
  return o
}
const hex = (b) => Buffer.from(b).toString('hex')

// Valid cases re-encode to their bytes, except where a JS object puts integer-like keys
// first (a map's key order is not kept): those must re-encode to the same length and
// decode to the same value.
let n = 0
let reordered = 0
for (const [group, prefix] of [['valid', ''], ['decode_only', 'canonical_']]) {
  for (const c of vectors[group]) {
    const opts = optionsOf(c)
    const value = boltcodec.unpack(bytesOf(c), opts)
    const again = boltcodec.pack(value, opts)
    const want = bytesOf(c, prefix)
    if (hex(again) !== hex(want)) {
      try {
        assert.equal(again.length, want.length)
        assert.deepStrictEqual(boltcodec.unpack(again, opts), value)
      } catch (e) {
        fail(`${group} ${c.name}: re-encoded ${hex(again).slice(0, 64)}...: ${e.message.slice(0, 200)}`)
      }
      reordered++
    }
    n++
  }
}
for (const c of vectors.invalid) {
  try {
    boltcodec.unpack(bytesOf(c), optionsOf(c))
  } catch (e) {
    if (!(e instanceof boltcodec.BoltcodecError) || e.kind !== c.error || e.offset !== c.offset) {
      fail(`invalid ${c.name}: ${e && e.kind} at ${e && e.offset}: ${e}`)
    }
    n++
    continue
  }
  fail(`invalid ${c.name} decoded`)
}

// A framed RECORD message through the Dechunker: the Bolt path the driver uses.
const record = boltcodec.packMessage(new boltcodec.Structure(0x71, [[1n, 'two', null]]))
const d = new boltcodec.Dechunker({ int: 'bigint' })
const got = d.messages(record)
if (got.length !== 1 || got[0].signature !== 0x71 || got[0].fields[0][1] !== 'two') {
  fail(`Dechunker: ${JSON.stringify(got, (k, v) => (typeof v === 'bigint' ? `${v}n` : v))}`)
}

console.log(`smoke_node: Node ${process.version}: ${n} vector cases ok (${reordered} maps re-encoded in JS key order), Dechunker ok (${path.relative(here, addon[0])})`)
