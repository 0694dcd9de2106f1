/**
 * The driver's internal modules, found from `neo4j-driver`.
 */
export type DriverModules = {
    /**
     * `lib/packstream/packstream-v1.js`
     */
    packstream: any;
    /**
     * `lib/channel/chunking.js`
     */
    chunking: any;
    /**
     * `lib/channel/channel-buf.js` default export
     */
    ChannelBuffer: any;
    /**
     * `lib/packstream/structure.js` Structure
     */
    Structure: any;
    /**
     * `lib/bolt/stream-observers.js` (`null` if missing)
     */
    observers: any;
    /**
     * `neo4j-driver-core`
     */
    core: any;
    /**
     * the `neo4j-driver` release
     */
    version: string;
};
/**
 * Makes `neo4j-driver` use boltcodec for packing, de-chunking and unpacking (see the
 * module docs). Connections opened afterwards use it; calling it twice does nothing.
 * On a release it does not recognise it changes nothing and {@link status} says why.
 *
 * @param {object} [options]
 * @param {string} [options.driverDir] the `neo4j-driver` package directory (default:
 *   resolved from the working directory)
 * @param {boolean} [options.pack] replace the packer (default true)
 * @param {boolean} [options.unpack] replace the dechunker and unpacker (default true)
 * @param {boolean} [options.force] install on a release that is not a tested one
 *   (5.28.x, 6.x) when its internals have the expected layout
 * @returns {() => void} a function that restores the driver's own codec
 */
export function install(options?: {
    driverDir?: string | undefined;
    pack?: boolean | undefined;
    unpack?: boolean | undefined;
    force?: boolean | undefined;
}): () => void;
/** Restores the driver's own codec (undoes {@link install}). */
export function uninstall(): void;
/** @returns {boolean} whether {@link install} is in effect */
export function isInstalled(): boolean;
/**
 * What the drop-in does now: `installed`, `level` (`'hydration'`: boltcodec packs,
 * de-chunks and unpacks, and builds the driver's structure types itself wherever the
 * connection's transformer builds them as it does; `'codec'`: the same without the
 * unpacker (`install({ unpack: false })`), so the driver decodes and hydrates; `'off'`:
 * the driver's own codec), the `version` of neo4j-driver found, the `reason` when it is
 * off (driver not found, a release that is not tested, or internals laid out otherwise
 * than the drop-in expects — the driver is then left untouched), and `hydrated`: the
 * structure kinds built by the drop-in for the last connection whose transformer it
 * checked (the others go through the driver's transformer); `records`: `'boltcodec'`
 * when the drop-in hands each row to the result as a `Record` itself (the driver's
 * `ResultStreamObserver#onNext` replaced, on releases where it is the known one), else
 * `'driver'`, with the reason after a colon when the drop-in is installed.
 *
 * @example
 * require('boltcodec/driver').install()
 * // … after a query: { installed: true, level: 'hydration', version: '6.3.0',
 * //   reason: null, records: 'boltcodec',
 * //   hydrated: ['Date', 'Duration', 'DateTime (offset)', …] }
 * console.log(require('boltcodec/driver').status())
 *
 * @returns {{installed: boolean, level: 'hydration' | 'codec' | 'off', version: string | null,
 *   reason: string | null, records: string, hydrated: string[]}}
 */
export function status(): {
    installed: boolean;
    level: "hydration" | "codec" | "off";
    version: string | null;
    reason: string | null;
    records: string;
    hydrated: string[];
};
/**
 * A codec with exactly the driver's conventions, for use outside the driver (tests,
 * tools): `pack` gives the bytes the driver's `Packer` writes, `unpack` the values its
 * `Unpacker` returns.
 *
 * @param {object} [options]
 * @param {boolean} [options.disableLosslessIntegers] integers as numbers
 * @param {boolean} [options.useBigInt] integers as bigints
 * @param {boolean} [options.allowUUID] PackStream v2 (Bolt 6.1)
 * @param {(s: unknown) => unknown} [options.hydrateStructure] as the driver's
 *   `transformer.fromStructure`
 * @param {(x: unknown) => unknown} [options.dehydrateStructure] as the driver's
 *   `transformer.toStructure`
 * @param {string} [options.driverDir] the `neo4j-driver` package directory
 * @returns {{pack: (value: unknown) => Buffer, unpack: (bytes: Uint8Array) => unknown}}
 */
export function createCodec(options?: {
    disableLosslessIntegers?: boolean | undefined;
    useBigInt?: boolean | undefined;
    allowUUID?: boolean | undefined;
    hydrateStructure?: ((s: unknown) => unknown) | undefined;
    dehydrateStructure?: ((x: unknown) => unknown) | undefined;
    driverDir?: string | undefined;
}): {
    pack: (value: unknown) => Buffer;
    unpack: (bytes: Uint8Array) => unknown;
};
