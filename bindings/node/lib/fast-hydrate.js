'use strict'
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
const MAX_EPOCH_DAY = 365 * 1000000

/**
 * Proleptic Gregorian year, month (1-12) and day (1-31) of a day counted from
 * 1970-01-01, by whole 400-year eras (146,097 days) counted from 0000-03-01, so that
 * the leap day ends each era's year.
 *
 * @param {number} epochDay an integer with |epochDay| <= MAX_EPOCH_DAY
 * @returns {[number, number, number]}
 */
function civilFromEpochDay (epochDay) {
  const z = epochDay + 719468 // days since 0000-03-01
  const era = Math.floor(z / 146097)
  const dayOfEra = z - era * 146097 // 0 … 146096
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) -
    Math.floor(dayOfEra / 146096)) / 365) // 0 … 399
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100)) // from March 1
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153) // 0 = March … 11 = February
  const day = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  return [year, month, day]
}

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
function makeFastHydrate (core, Structure, hydrate, mode) {
  const DateClass = core.Date
  if (typeof DateClass !== 'function' || typeof core.int !== 'function') return null
  const I = mode === 'bigint' ? BigInt : mode === 'number' ? Number : core.int
  const toNumber = mode === 'integer'
    ? (v) => (v instanceof core.Integer && v.high >= -0x200000 && v.high < 0x200000 ? v.toNumber() : NaN)
    : (v) => Number(v)
  /** Builds a Date as the driver's transformer does, from numbers. */
  const makeDate = (y, m, d) => {
    const date = Object.create(DateClass.prototype)
    date.year = I(y)
    date.month = I(m)
    date.day = I(d)
    return Object.freeze(date)
  }
  // The probe: a few days, each built by the driver and by this module, must agree.
  try {
    for (const days of [0, -1, 59, 60, 11016, -719528, 2932896]) {
      const theirs = hydrate(new Structure(0x44, [I(days)]))
      const [y, m, d] = civilFromEpochDay(days)
      const ours = makeDate(y, m, d)
      if (!(theirs instanceof DateClass) || !Object.isFrozen(theirs)) return null
      const keys = Object.keys(theirs)
      if (keys.length !== 3 || keys.join() !== 'year,month,day') return null
      for (const k of keys) {
        const a = theirs[k]
        const b = ours[k]
        const same = mode === 'integer' ? (a instanceof core.Integer && a.equals(b)) : a === b
        if (!same) return null
      }
    }
  } catch (e) {
    return null
  }
  return function fastHydrate (signature, fields) {
    if (signature === 0x44 && fields.length === 1) {
      const days = toNumber(fields[0])
      if (Number.isInteger(days) && days >= -MAX_EPOCH_DAY && days <= MAX_EPOCH_DAY) {
        const [y, m, d] = civilFromEpochDay(days)
        return makeDate(y, m, d)
      }
    }
    return undefined
  }
}

module.exports = { civilFromEpochDay, makeFastHydrate, MAX_EPOCH_DAY }
