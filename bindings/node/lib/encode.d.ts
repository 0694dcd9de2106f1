/**
 * Resolved settings for one kind of call.
 */
export type EncodeSettings = {
    dehydrate: ((value: object) => unknown) | null;
    /**
     * another structure class to accept
     */
    Structure: Function | null;
    uuid: boolean;
    legacyStructs: boolean;
    /**
     * neo4j-driver's rules (see driver.js)
     */
    driver: boolean;
    /**
     * whether byte arrays are allowed (driver's Bolt 1)
     */
    bytes: boolean;
    /**
     *   called instead of throwing a TypeError; `code` is `type`, `uuid`, `bytes`, `size` or
     *   `struct`
     */
    unpackable: ((value: unknown, reason: string, code: string) => never) | null;
    maxChunkSize: number;
};
/**
 * Encodes one value. The result is a view of an internal buffer that is never written
 * again (later calls write after it).
 */
export function pack(value: any, options: any): Buffer<ArrayBuffer>;
/** Encodes one value as a framed Bolt message: chunks, then the end marker `00 00`. */
export function packMessage(value: any, options: any): Buffer<ArrayBuffer>;
/**
 * Encodes one value and hands the bytes to `use`, which must copy them before it returns
 * (the space is reused by the next call).
 */
export function packTransient(value: any, settings: any, use: any): void;
/** Frames a message's bytes into chunks of at most `max` bytes plus `00 00`. */
export function frame(message: any, max: any): Buffer<ArrayBuffer>;
/**
 * Resolved settings for one kind of call.
 * @typedef {object} EncodeSettings
 * @property {((value: object) => unknown) | null} dehydrate
 * @property {Function | null} Structure another structure class to accept
 * @property {boolean} uuid
 * @property {boolean} legacyStructs
 * @property {boolean} driver neo4j-driver's rules (see driver.js)
 * @property {boolean} bytes whether byte arrays are allowed (driver's Bolt 1)
 * @property {((value: unknown, reason: string, code: string) => never) | null} unpackable
 *   called instead of throwing a TypeError; `code` is `type`, `uuid`, `bytes`, `size` or
 *   `struct`
 * @property {number} maxChunkSize
 */
/** @returns {EncodeSettings} */
export function makeSettings(options: any): EncodeSettings;
/**
 * The settings for an options object, read now: a caller may change an options object
 * between calls (nothing is cached by object identity).
 */
export function settingsFor(options: any): EncodeSettings;
