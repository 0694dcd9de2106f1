'use strict'
// decodeRecordsToArrowIPC: PULL responses built with packMessage, the IPC bytes read
// back with apache-arrow's tableFromIPC and checked value by value against the rows
// written (and against boltcodec's own decodeRecords); errors with offsets.

const { test } = require('node:test')
const assert = require('node:assert/strict')
const { tableFromIPC, Type } = require('apache-arrow')
const { packMessage, decodeRecords, decodeRecordsToArrowIPC, Structure, BoltcodecError } = require('..')

const record = (values) => packMessage(new Structure(0x71, [values]))
const success = (meta = {}) => packMessage(new Structure(0x70, [meta]))
// Integers are BigInts: the encoder writes JS numbers as PackStream floats.
const response = (rows, meta) => Buffer.concat([...rows.map(record), success(meta)])

function throwsKind (fn, kind, check) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof BoltcodecError, String(e))
    assert.equal(e.kind, kind, e.message)
    if (check) check(e)
    return true
  })
}

test('scalars: types, nulls and values as tableFromIPC reads them', () => {
  const bytes = response([[1n, 1.5, 'a'], [null, 2.5, 'bc'], [-3n, null, null]])
  const ipc = decodeRecordsToArrowIPC(bytes, ['i', 'f', 's'])
  assert.ok(Buffer.isBuffer(ipc))
  const table = tableFromIPC(ipc)
  assert.equal(table.numRows, 3)
  assert.deepEqual(table.schema.fields.map((f) => f.name), ['i', 'f', 's'])
  const [i, f, s] = table.schema.fields.map((field) => field.type)
  assert.equal(i.typeId, Type.Int)
  assert.equal(i.bitWidth, 64)
  assert.equal(f.typeId, Type.Float)
  assert.equal(s.typeId, Type.Utf8)
  assert.deepEqual([...table.getChild('i')], [1n, null, -3n])
  assert.deepEqual([...table.getChild('f')], [1.5, 2.5, null])
  assert.deepEqual([...table.getChild('s')], ['a', 'bc', null])
})

test('integers and floats in one column are Float64; other mixes are text', () => {
  const bytes = response([[7n, 'x'], [0.5, 2n]])
  const table = tableFromIPC(decodeRecordsToArrowIPC(bytes, ['n', 'mixed']))
  assert.equal(table.schema.fields[0].type.typeId, Type.Float)
  assert.deepEqual([...table.getChild('n')], [7, 0.5])
  assert.equal(table.schema.fields[1].type.typeId, Type.Utf8)
  assert.deepEqual([...table.getChild('mixed')], ['x', '2'])
})

test('lists, maps and nodes are nested columns', () => {
  const node = new Structure(0x4e, [7n, ['Person'], { name: 'Alice' }, '4:db:7'])
  const bytes = response([[[1n, 2n, 3n], { k: 'v' }, node]])
  const table = tableFromIPC(decodeRecordsToArrowIPC(bytes, ['l', 'm', 'n'], '5.8'))
  const [l, m, n] = table.schema.fields.map((field) => field.type)
  assert.equal(l.typeId, Type.List)
  assert.equal(m.typeId, Type.Map)
  assert.equal(n.typeId, Type.Struct)
  assert.deepEqual([...table.getChild('l').get(0)], [1n, 2n, 3n])
  assert.deepEqual(table.getChild('m').get(0).toJSON(), { k: 'v' })
  const row = table.getChild('n').get(0)
  assert.equal(row.id, 7n)
  assert.equal(row.element_id, '4:db:7')
  assert.deepEqual([...row.labels], ['Person'])
  assert.deepEqual(row.properties.toJSON(), { name: 'Alice' })
})

test('value by value against decodeRecords, 2,000 random rows', () => {
  let seed = 12345
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648
  }
  const rows = []
  for (let r = 0; r < 2000; r++) {
    const v = Math.floor((rnd() - 0.5) * 2 ** 40)
    rows.push([
      rnd() < 0.1 ? null : BigInt(v),
      rnd() < 0.1 ? null : v / 7 + 0.25,
      rnd() < 0.1 ? null : `name-${v}-é`
    ])
  }
  const bytes = response(rows)
  const table = tableFromIPC(decodeRecordsToArrowIPC(bytes, ['a', 'b', 'c']))
  const decoded = decodeRecords(bytes.subarray(0, bytes.length - success().length), { int: 'bigint' })
  assert.equal(table.numRows, decoded.length)
  const cols = ['a', 'b', 'c'].map((name) => [...table.getChild(name)])
  decoded.forEach((values, r) => {
    values.forEach((v, c) => assert.deepEqual(cols[c][r], v, `row ${r} column ${c}`))
  })
})

test('an empty result has Null columns and no rows', () => {
  const table = tableFromIPC(decodeRecordsToArrowIPC(success(), ['a', 'b']))
  assert.equal(table.numRows, 0)
  assert.deepEqual(table.schema.fields.map((f) => f.type.typeId), [Type.Null, Type.Null])
})

test('a PULL with has_more is a complete reply', () => {
  const bytes = response([[1n]], { has_more: true })
  assert.equal(tableFromIPC(decodeRecordsToArrowIPC(bytes, ['x'])).numRows, 1)
})

test('errors carry the kind and offsets', () => {
  const good = record([1n, 2.5, 'a'])
  // [1, null, "a…"]: a string that claims 5 bytes and has 1, in one 7-byte chunk.
  const badFramed = Buffer.from('0007' + 'b17193' + '01' + 'c0' + '8561' + '0000', 'hex')
  const bytes = Buffer.concat([good, badFramed, success()])
  throwsKind(() => decodeRecordsToArrowIPC(bytes, ['a', 'b', 'c']), 'unexpected_end', (e) => {
    assert.equal(e.messageOffset, good.length)
    assert.ok(e.offset >= 5 && e.offset <= 7, `offset ${e.offset}`)
  })
  // Bytes that end before the summary.
  throwsKind(() => decodeRecordsToArrowIPC(good, ['a', 'b', 'c']), 'unexpected_end', (e) => {
    assert.equal(e.offset, good.length)
  })
  // Two columns named, three fields sent.
  throwsKind(() => decodeRecordsToArrowIPC(Buffer.concat([good, success()]), ['a', 'b']), 'field_count', (e) => {
    assert.equal(e.messageOffset, 0)
  })
  // A server FAILURE.
  const failure = packMessage(new Structure(0x7f, [{ code: 'Neo.X', message: 'boom' }]))
  throwsKind(() => decodeRecordsToArrowIPC(failure, ['a']), 'failure', (e) => {
    assert.match(e.message, /Neo\.X/)
  })
  assert.throws(() => decodeRecordsToArrowIPC(success(), ['a'], 'not a version'), /version/)
})
