declare namespace _exports {
    export { Conv, Reader };
}
declare namespace _exports {
    export { unpack };
    export { unpackPrefix };
    export { decodeFrames };
    export { decodeFramesAsyncJs as decodeFramesAsync };
    export { StreamDecoder };
    export { makeConv };
    export { asyncSlices };
    export { tapeSource };
    export { readTape };
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
    Integer: Function | null;
    /**
     * whether the lists come from the retained
     * allocation sites (option `retained`: see `newArray`)
     */
    retained: boolean;
};
/**
 * A tape and the cursors of its reader.
 */
type Reader = {
    W: Int32Array;
    F: Float64Array;
    B: Buffer;
    L: string;
    U: string;
    K: string[];
    C: Conv;
    E: object[];
    p: number;
    fp: number;
    lp: number;
    up: number;
    bp: number;
    /**
     * whether the tape's top-level lists are RECORDs' values (`readRow`)
     */
    R: boolean;
};
declare function unpack(input: any, options: any): any;
/**
 * Decodes the value at the start of `input` and leaves the bytes after it alone, as a
 * reader of a stream of values does: returns the value and how many bytes it took.
 * @returns {[unknown, number]}
 */
declare function unpackPrefix(input: any, options: any): [unknown, number];
declare function decodeFrames(input: any, options: any, records: any): any[];
declare function decodeFramesAsyncJs(input: any, options: any, records: any): Promise<any[]>;
/**
 * Push parser for a Bolt byte stream: see `Dechunker` in index.js for the public API.
 * Messages are decoded natively at `push` and rebuilt as JS values one by one at `next`.
 * Its options are read once, at construction: they are the stream's settings.
 *
 * Every message, and a framing error, takes one slot: `next` gives slot `served`;
 * slots up to `available` are ready. Slots are numbered over the stream's life, so a
 * reader can ask for a given slot (`readAt`), as the neo4j-driver adapter does.
 */
declare class StreamDecoder {
    constructor(options: any);
    codec: Codec;
    conv: Conv;
    records: boolean;
    reader: Reader | null;
    count: number;
    read: number;
    served: number;
    available: number;
    pending: any[];
    tapeLen: number;
    error: BoltcodecError | null;
    push(input: any): number;
    /**
     * Keeps the unread messages of the tape for later, before the next push overwrites
     * it: their reader moves to a copy of the tape. They are rebuilt when read, with the
     * conversions of the read (a driver's reader gives its integer mode then), exactly as
     * if no push had come between.
     */
    drain(): void;
    /** Whether `next` has a message (or an error) to give. */
    hasNext(): boolean;
    next(conv: any): any;
    /**
     * The message of slot `index`, skipping unread earlier ones. A slot that is not ready
     * (not yet received) throws: it never waits.
     */
    readAt(index: any, conv: any): any;
    /** Rebuilds the next message of a tape kept by `drain`. */
    rebuildKept(r: any, conv: any): any;
    /**
     * Rebuilds the next `n` messages of the tape (at least one), with `conv` or the
     * stream's conversions; stops at the first that throws, after moving past it. With
     * `out`, they are also served, and written to `out` from index `at` on.
     */
    rebuild(conv: any, n?: number, out?: null, at?: number): any;
    /** Every ready message, rebuilt in one go; throws at the first that failed. */
    takeAll(): any[];
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
 * @property {Function | null} Integer
 * @property {boolean} retained whether the lists come from the retained
 *   allocation sites (option `retained`: see `newArray`)
 */
/** @returns {Conv} */
declare function makeConv(options: any): Conv;
declare namespace asyncSlices {
    let ms: number;
    let messages: number;
}
/**
 * The JS half of a native object that writes tapes as `NativeCodec` does (it has
 * `copyOut`, `keyStrings` and `errorInfo`): the key strings and the tape buffer.
 */
declare function tapeSource(native: any): {
    native: any;
    keys: never[];
    tape: TapeBuffer;
};
/**
 * Runs `call(out)`, a native call that writes a tape into `out` and returns its length
 * (as `NativeCodec` does), and rebuilds every message of that tape with `conv`. A message
 * that fails (its decode error, or a hook that throws) does not stop the others: it is
 * left `undefined` in `values` and its error listed in `errors` with its index.
 * `records`: the tape's top-level lists are RECORDs' values (as a connection's are).
 *
 * @returns {{values: unknown[], errors: Array<[number, unknown]>}}
 */
declare function readTape(source: any, conv: any, call: any, records: any): {
    values: unknown[];
    errors: Array<[number, unknown]>;
};
declare class Codec {
    constructor(nativeOpts: any);
    native: NativeCodec;
    keys: any[];
    tape: TapeBuffer;
    /** The tape buffer to use now: a temporary one when this codec's is in use. */
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
    /** Gives back the memory of a buffer grown above `KEEP_OUT` by a large call. */
    release(): void;
}
/**
 * A native codec (an external, driven by the `codec*` functions of native.js: plain
 * functions cost less per call than methods of a native class) with the methods that
 * `tapeSource` users and the tests call.
 */
declare class NativeCodec {
    constructor(nativeOpts: any);
    h: native.ExternalObject<"NativeCodec">;
    decodeValue(input: any, out: any, exact: any): number;
    decodeFrames(input: any, out: any, records: any): number;
    push(input: any, out: any, records: any): number;
    copyOut(out: any): number;
    keyStrings(from: any, to: any): string[];
    keyCount(): number;
    errorInfo(index: any): native.ErrorInfo | null;
    streamError(): native.ErrorInfo | null;
    endOfStream(): native.ErrorInfo | null;
    reset(): void;
    isAtBoundary(): boolean;
}
import native = require("../native.js");
