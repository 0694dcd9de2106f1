'use strict'

/**
 * A PackStream structure: a signature (tag byte, 0–127) and its fields. Decoding returns
 * structures as instances of this class unless a `hydrate` hook is given; `pack` writes
 * instances of it as structures.
 */
class Structure {
  /**
   * @param {number} signature the tag byte (0–127)
   * @param {unknown[]} fields the field values
   */
  constructor (signature, fields) {
    /** @type {number} */
    this.signature = signature
    /** @type {unknown[]} */
    this.fields = fields
  }
}

const HEX = Array.from({ length: 256 }, (_, i) => (i + 0x100).toString(16).slice(1))

/**
 * A PackStream v2 UUID (marker `E0`, Bolt 6.1+): 16 bytes in RFC 4122 order.
 */
class Uuid {
  /**
   * @param {Uint8Array | string} value the 16 bytes, or the canonical text form
   *   `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`
   */
  constructor (value) {
    if (typeof value === 'string') {
      const hex = value.replace(/-/g, '')
      if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new TypeError(`not a UUID: ${value}`)
      value = Uint8Array.from(Buffer.from(hex, 'hex'))
    }
    if (!(value instanceof Uint8Array) || value.length !== 16) {
      throw new TypeError('a UUID needs exactly 16 bytes')
    }
    /** @type {Uint8Array} the 16 bytes */
    this.bytes = value
  }

  /** @returns {string} the canonical lowercase text form */
  toString () {
    const b = this.bytes
    let s = ''
    for (let i = 0; i < 16; i++) {
      s += HEX[b[i]]
      if (i === 3 || i === 5 || i === 7 || i === 9) s += '-'
    }
    return s
  }
}

/**
 * The error thrown for invalid or over-limit input. `kind` is one of the kinds of the
 * core crate (`unexpected_end`, `reserved_marker`, `invalid_utf8`, `non_string_key`,
 * `size_too_large`, `limit_exceeded`, `trailing_bytes`), `not_a_record` from
 * `decodeRecords`, or a framing kind (`message_too_large`, `too_many_chunks`,
 * `truncated`).
 */
class BoltcodecError extends Error {
  /**
   * @param {{kind: string, offset: number, messageOffset: number, message: string}} info
   */
  constructor (info) {
    super(info.message)
    this.name = 'BoltcodecError'
    /** @type {string} what went wrong */
    this.kind = info.kind
    /** @type {number} byte offset of the problem (in the message, or in the stream for framing errors) */
    this.offset = info.offset
    /** @type {number} stream offset of the message's first chunk header, or -1 */
    this.messageOffset = info.messageOffset
  }
}

module.exports = { Structure, Uuid, BoltcodecError }
