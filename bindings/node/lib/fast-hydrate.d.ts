/**
 * Proleptic Gregorian year, month (1-12) and day (1-31) of a day counted from
 * 1970-01-01, by whole 400-year eras (146,097 days) counted from 0000-03-01, so that
 * the leap day ends each era's year.
 *
 * @param {number} epochDay an integer with |epochDay| <= MAX_EPOCH_DAY
 * @returns {[number, number, number]}
 */
export function civilFromEpochDay(epochDay: number): [number, number, number];
/**
 * Makes the hydrator for one driver transformer (`hydrate`, the protocol's
 * `fromStructure`) and integer mode, or returns `null` when that transformer does not
 * build Dates the way this module does (checked once, on a probe value): the caller then
 * keeps the driver's own path for everything.
 *
 * @param {any} core `neo4j-driver-core`
 * @param {any} Structure the driver's Structure class
 * @param {(s: unknown) => unknown} hydrate the driver's transformer
 * @param {'integer' | 'number' | 'bigint'} mode the unpacker's integer mode
 * @returns {((signature: number, fields: unknown[]) => unknown) | null} a function that
 *   returns the hydrated value, or `undefined` when the driver must do it
 */
export function makeFastHydrate(core: any, Structure: any, hydrate: (s: unknown) => unknown, mode: "integer" | "number" | "bigint"): ((signature: number, fields: unknown[]) => unknown) | null;
/**
 * Faster hydration of neo4j-driver structures for the drop-in (`driver.js`): the result
 * is exactly what the driver's own transformer builds (same class, same own properties
 * in the same order, same integer representation, frozen), computed with plain numbers
 * instead of the driver's 64-bit `Integer` arithmetic. A structure this module does not
 * handle, or a value outside the range it handles exactly, goes to the driver's own
 * transformer.
 *
 * @module boltcodec/lib/fast-hydrate
 * @internal
 */
/** Epoch days handled natively: years within ±1,000,000, far inside the driver's range. */
export const MAX_EPOCH_DAY: number;
