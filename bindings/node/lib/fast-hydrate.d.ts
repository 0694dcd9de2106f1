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
 * Days from 1970-01-01 to a proleptic Gregorian date (the inverse of
 * {@link civilFromEpochDay}).
 *
 * @param {number} year @param {number} month 1-12 @param {number} day 1-31
 * @returns {number}
 */
export function epochDayFromCivil(year: number, month: number, day: number): number;
/**
 * Makes the hydrator for one driver transformer (`hydrate`, the protocol's
 * `fromStructure`) and integer mode: each structure kind whose probe values the
 * transformer builds exactly as this module does is built here, every other kind by the
 * transformer. The zone-id kinds are probed when first needed (see `pending` below). Returns
 * `null` when this module builds no kind with this driver core (the caller then keeps
 * the driver's path for everything).
 *
 * @param {any} core `neo4j-driver-core`
 * @param {any} Structure the driver's Structure class
 * @param {(s: unknown) => unknown} hydrate the driver's transformer
 * @param {'integer' | 'number' | 'bigint'} mode the unpacker's integer mode
 * @returns {{hydrate: (signature: number, fields: unknown[]) => unknown, kinds: string[]} | null}
 *   `hydrate` returns the hydrated value, or `undefined` when the driver must do it;
 *   `kinds` names the kinds built here (reading it probes the kinds not probed yet)
 */
export function makeFastHydrate(core: any, Structure: any, hydrate: (s: unknown) => unknown, mode: "integer" | "number" | "bigint"): {
    hydrate: (signature: number, fields: unknown[]) => unknown;
    kinds: string[];
} | null;
/** Whether two hydrated values are the same: class, own properties and their order,
 * frozenness, and the same values (Integers by value, typed arrays by content). */
export function sameValue(a: any, b: any, seen?: number): boolean;
/** How many zone offsets are cached (for tests: bounded by MAX_ZONE_HOURS). */
export function zoneCacheSize(): number;
/** How many labels and types are interned (for tests: bounded by MAX_INTERNED). */
export function internedCount(): number;
export const MAX_INTERNED: 4096;
/**
 * Faster hydration of neo4j-driver structures for the drop-in (`driver.js`): the result
 * is exactly what the driver's own transformer builds (same class, same own properties
 * in the same order, same integer representation, frozen where the driver freezes),
 * computed with plain numbers instead of the driver's 64-bit `Integer` arithmetic, and
 * without the driver's `Structure`, signature lookup and field destructuring.
 *
 * Each kind is used only after the protocol's own transformer has built the same
 * objects from a set of probe values (so a Bolt version whose transformer lacks a kind,
 * or builds it otherwise, keeps the driver's path for that kind). A structure this module
 * does not handle, a value outside the range it handles exactly, or anything a builder
 * does not accept goes to the driver's own transformer, which then gives its own result
 * (a broken object, for instance).
 *
 * @module boltcodec/lib/fast-hydrate
 * @internal
 */
/** Epoch days handled natively: years within ±1,000,000, far inside the driver's range. */
export const MAX_EPOCH_DAY: number;
export const MAX_ZONE_HOURS: number;
