'use strict'
// The language-neutral vectors of tests/vectors/packstream.json (format: its README).

const { test } = require('node:test')
const assert = require('node:assert/strict')
const fs = require('node:fs')
const path = require('node:path')
const { pack, unpack, Structure, Uuid, BoltcodecError } = require('..')

const file = path.join(__dirname, '..', '..', '..', 'tests', 'vectors', 'packstream.json')
const vectors = JSON.parse(fs.readFileSync(file, 'utf8'))

function hexOf (c, prefix = '') {
  const parts = c[`${prefix}hex_parts`]
  if (parts) return Buffer.concat(parts.map(([h, n]) => Buffer.from(h.repeat(n), 'hex')))
  return Buffer.from(c[`${prefix}hex`], 'hex')
}

function floatOfBits (bits) {
  const b = Buffer.from(bits, 'hex')
  return b.readDoubleBE(0)
}

function bitsOfFloat (f) {
  const b = Buffer.alloc(8)
  b.writeDoubleBE(f)
  return b.toString('hex')
}

/** The vector value as the JS value `pack` takes (integers as bigint, maps as Map). */
function toJs (v) {
  switch (v.t) {
    case 'null': return null
    case 'bool': return v.v
    case 'int': return BigInt(v.v)
    case 'float': return floatOfBits(v.bits)
    case 'str': return v.repeat !== undefined ? v.repeat.repeat(v.count) : v.v
    case 'bytes': return Uint8Array.from(Buffer.from(v.repeat_hex !== undefined ? v.repeat_hex.repeat(v.count) : v.hex, 'hex'))
    case 'list': return v.repeat !== undefined ? Array.from({ length: v.count }, () => toJs(v.repeat)) : v.items.map(toJs)
    case 'map': {
      const m = new Map()
      if (v.gen_keys) {
        for (let i = 0; i < v.gen_keys.count; i++) m.set(String(i).padStart(v.gen_keys.width, '0'), toJs(v.value))
      } else {
        for (const [k, x] of v.entries) m.set(k, toJs(x))
      }
      return m
    }
    case 'struct': return new Structure(v.tag, v.fields.map(toJs))
    case 'uuid': return new Uuid(v.v)
    default: throw new Error(`unknown vector type ${v.t}`)
  }
}

/** Compares a decoded value with the expected one; floats by their bits. */
function check (actual, expected, where = '$') {
  if (expected instanceof Map) {
    assert.ok(actual !== null && typeof actual === 'object' && !Array.isArray(actual), `${where}: expected a map`)
    assert.deepEqual(Object.keys(actual).sort(), [...expected.keys()].sort(), `${where}: keys`)
    for (const [k, x] of expected) check(actual[k], x, `${where}.${k}`)
  } else if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual), `${where}: expected a list`)
    assert.equal(actual.length, expected.length, `${where}: length`)
    for (let i = 0; i < expected.length; i++) check(actual[i], expected[i], `${where}[${i}]`)
  } else if (expected instanceof Structure) {
    assert.ok(actual instanceof Structure, `${where}: expected a structure`)
    assert.equal(actual.signature, expected.signature, `${where}: signature`)
    check(actual.fields, expected.fields, `${where}.fields`)
  } else if (expected instanceof Uuid) {
    assert.ok(actual instanceof Uuid, `${where}: expected a UUID`)
    assert.equal(actual.toString(), expected.toString(), where)
  } else if (expected instanceof Uint8Array) {
    assert.ok(actual instanceof Uint8Array, `${where}: expected bytes`)
    assert.equal(Buffer.from(actual).toString('hex'), Buffer.from(expected).toString('hex'), where)
  } else if (typeof expected === 'number') {
    assert.equal(typeof actual, 'number', `${where}: expected a float`)
    assert.equal(bitsOfFloat(actual), bitsOfFloat(expected), `${where}: float bits`)
  } else {
    assert.equal(actual, expected, where)
  }
}

const LIMIT_NAMES = {
  max_depth: 'maxDepth',
  max_string_len: 'maxStringLen',
  max_bytes_len: 'maxBytesLen',
  max_container_len: 'maxContainerLen',
  max_total_elements: 'maxTotalElements'
}

function optionsOf (c) {
  const o = { int: 'bigint' }
  if (c.options && c.options.uuid) o.uuid = true
  if (c.options && c.options.legacy_structs) o.legacyStructs = true
  for (const [k, v] of Object.entries(c.limits || {})) o[LIMIT_NAMES[k]] = v
  return o
}

test(`valid vectors encode and decode (${vectors.valid.length})`, () => {
  for (const c of vectors.valid) {
    const opts = optionsOf(c)
    const bytes = hexOf(c)
    const value = toJs(c.value)
    assert.equal(Buffer.from(pack(value, opts)).toString('hex'), bytes.toString('hex'), `pack: ${c.name}`)
    check(unpack(bytes, opts), value, c.name)
  }
})

test(`decode-only vectors decode, and encode canonically (${vectors.decode_only.length})`, () => {
  for (const c of vectors.decode_only) {
    const opts = optionsOf(c)
    const value = toJs(c.value)
    check(unpack(hexOf(c), opts), value, c.name)
    assert.equal(Buffer.from(pack(value, opts)).toString('hex'), hexOf(c, 'canonical_').toString('hex'), `pack: ${c.name}`)
  }
})

test(`invalid vectors fail with their kind and offset (${vectors.invalid.length})`, () => {
  for (const c of vectors.invalid) {
    const opts = optionsOf(c)
    assert.throws(() => unpack(hexOf(c), opts), (e) => {
      assert.ok(e instanceof BoltcodecError, `${c.name}: ${e}`)
      assert.equal(e.kind, c.error, `${c.name}: kind (${e.message})`)
      assert.equal(e.offset, c.offset, `${c.name}: offset (${e.message})`)
      assert.match(e.message, new RegExp(`at byte ${c.offset}\\b`))
      return true
    }, c.name)
  }
})
