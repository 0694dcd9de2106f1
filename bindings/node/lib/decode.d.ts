declare namespace _exports {
    export { Conv };
}
declare namespace _exports {
    export { unpack };
    export { decodeFrames };
    export { decodeFramesAsyncJs as decodeFramesAsync };
    export { StreamDecoder };
    export { makeConv };
}
export = _exports;
/**
 * Resolved conversion settings: how tape values become JS values.
 */
type Conv = {
    int: number;
    hydrate: ((signature: number, fields: unknown[]) => unknown) | null;
    uuid: ((bytes: Uint8Array) => unknown) | null;
    int8: boolean;
    intFn: Function | null;
    Integer: Function | null;
};
declare function unpack(input: any, options: any): any;
declare function decodeFrames(input: any, options: any, records: any): any[];
declare function decodeFramesAsyncJs(input: any, options: any, records: any): Promise<any[]>;
/**
 * Push parser for a Bolt byte stream: see `Dechunker` in index.js for the public API.
 * Messages are decoded natively at `push` and rebuilt as JS values one by one at `next`.
 *
 * Every message, and a framing error, takes one slot: `next` gives slot `served`;
 * slots up to `available` are ready. Slots are numbered over the stream's life, so a
 * reader can ask for a given slot (`readAt`), as the neo4j-driver adapter does.
 */
declare class StreamDecoder {
    constructor(options: any);
    codec: Codec;
    count: number;
    read: number;
    served: number;
    available: number;
    pending: any[];
    error: BoltcodecError | null;
    st: {};
    push(input: any): number;
    /** Rebuilds the unread messages now, before the next push overwrites the tape. */
    drain(): void;
    /** Whether `next` has a message (or an error) to give. */
    hasNext(): boolean;
    next(conv: any): any;
    /** The message of slot `index`, skipping unread earlier ones. */
    readAt(index: any, conv: any): any;
    rebuild(conv: any): any;
    end(): void;
    reset(): void;
}
/**
 * Resolved conversion settings: how tape values become JS values.
 * @typedef {object} Conv
 * @property {number} int
 * @property {((signature: number, fields: unknown[]) => unknown) | null} hydrate
 * @property {((bytes: Uint8Array) => unknown) | null} uuid
 * @property {boolean} int8
 * @property {Function | null} intFn
 * @property {Function | null} Integer
 */
/** @returns {Conv} */
declare function makeConv(options: any): Conv;
declare class Codec {
    constructor(options: any);
    native: any;
    keys: any[];
    tape: TapeBuffer;
    conv: Conv;
    errorInfo: (i: any) => any;
    /** The tape buffer to use now: a temporary one when this codec's is being read. */
    claim(): TapeBuffer;
}
import { BoltcodecError } from "./types.js";
/** A JS-owned buffer the native side copies a tape into, with its typed views. */
declare class TapeBuffer {
    /** A tape handed over whole (from the thread pool), made 8-byte aligned if needed. */
    static wrap(buf: any): any;
    constructor(size: any);
    busy: boolean;
    alloc(size: any): void;
    buf: Buffer<ArrayBuffer> | undefined;
    w: Int32Array<ArrayBuffer> | undefined;
    f: Float64Array<ArrayBuffer> | undefined;
    /** Makes room for `size` bytes (at least doubling). */
    grow(size: any): void;
}
