/**
 * A PackStream structure: a signature (tag byte, 0–127) and its fields. Decoding returns
 * structures as instances of this class unless a `hydrate` hook is given; `pack` writes
 * instances of it as structures.
 */
export class Structure {
    /**
     * @param {number} signature the tag byte (0–127)
     * @param {unknown[]} fields the field values
     */
    constructor(signature: number, fields: unknown[]);
    /** @type {number} */
    signature: number;
    /** @type {unknown[]} */
    fields: unknown[];
}
/**
 * A PackStream v2 UUID (marker `E0`, Bolt 6.1+): 16 bytes in RFC 4122 order.
 */
export class Uuid {
    /**
     * @param {Uint8Array | string} value the 16 bytes, or the canonical text form
     *   `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`
     */
    constructor(value: Uint8Array | string);
    /** @type {Uint8Array} the 16 bytes */
    bytes: Uint8Array;
    /** @returns {string} the canonical lowercase text form */
    toString(): string;
}
/**
 * The error thrown for invalid or over-limit input. `kind` is one of the kinds of the
 * core crate (`unexpected_end`, `reserved_marker`, `invalid_utf8`, `non_string_key`,
 * `size_too_large`, `limit_exceeded`, `trailing_bytes`), `not_a_record` from
 * `decodeRecords`, or a framing kind (`message_too_large`, `too_many_chunks`,
 * `truncated`).
 */
export class BoltcodecError extends Error {
    /**
     * @param {{kind: string, offset: number, messageOffset: number, message: string}} info
     */
    constructor(info: {
        kind: string;
        offset: number;
        messageOffset: number;
        message: string;
    });
    /** @type {string} what went wrong */
    kind: string;
    /** @type {number} byte offset of the problem (in the message, or in the stream for framing errors) */
    offset: number;
    /** @type {number} stream offset of the message's first chunk header, or -1 */
    messageOffset: number;
}
