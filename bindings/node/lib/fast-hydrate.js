'use strict'
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
const MAX_EPOCH_DAY = 365 * 1000000
const SECONDS_PER_DAY = 86400
const NANOS_PER_SECOND = 1000000000
const NANOS_PER_DAY = SECONDS_PER_DAY * NANOS_PER_SECOND
/**
 * Zone-id date-times are computed through `Intl` (as the driver does) only between these
 * epoch seconds, 1600-01-01 and 9999-12-31: before the Gregorian reform `Intl` counts in
 * the Julian calendar, which the driver then mixes with its proleptic Gregorian arithmetic.
 */
const ZONE_MIN_SECOND = -11676096000
const ZONE_MAX_SECOND = 253402300799

/**
 * Proleptic Gregorian year, month (1-12) and day (1-31) of a day counted from
 * 1970-01-01, by whole 400-year eras (146,097 days) counted from 0000-03-01, so that
 * the leap day ends each era's year.
 *
 * @param {number} epochDay an integer with |epochDay| <= MAX_EPOCH_DAY
 * @returns {[number, number, number]}
 */
function civilFromEpochDay (epochDay) {
  splitEpochDay(epochDay)
  return [civilYear, civilMonth, civilDay]
}

// The date of the last epoch day split by splitEpochDay (module registers: the hydrators
// read them at once, so that a date makes no array).
let civilYear = 0
let civilMonth = 0
let civilDay = 0

/**
 * Splits an epoch day into civilYear, civilMonth and civilDay (see
 * {@link civilFromEpochDay}).
 *
 * @param {number} epochDay an integer with |epochDay| <= MAX_EPOCH_DAY
 */
function splitEpochDay (epochDay) {
  const z = epochDay + 719468 // days since 0000-03-01
  const era = Math.floor(z / 146097)
  const dayOfEra = z - era * 146097 // 0 … 146096
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) -
    Math.floor(dayOfEra / 146096)) / 365) // 0 … 399
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100)) // from March 1
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153) // 0 = March … 11 = February
  const day = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9
  // (| 0: small integers, never heap numbers; |year| <= 1,000,001 here.)
  civilYear = (yearOfEra + era * 400 + (month <= 2 ? 1 : 0)) | 0
  civilMonth = month | 0
  civilDay = day | 0
}

/**
 * Days from 1970-01-01 to a proleptic Gregorian date (the inverse of
 * {@link civilFromEpochDay}).
 *
 * @param {number} year @param {number} month 1-12 @param {number} day 1-31
 * @returns {number}
 */
function epochDayFromCivil (year, month, day) {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yearOfEra = y - era * 400
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear
  return era * 146097 + dayOfEra - 719468
}

/** `Intl` formatters by zone id, as the driver makes them; `null` for an invalid zone. */
const zoneFormats = new Map()
/** Offsets by zone id and UTC hour (see {@link zoneOffset}), at most MAX_ZONE_HOURS in all. */
const zoneHours = new Map()
const MAX_ZONE_HOURS = 1 << 16
let zoneHourCount = 0

function zoneFormat (zone) {
  let f = zoneFormats.get(zone)
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        hour12: false,
        era: 'narrow'
      })
    } catch (e) {
      f = null
    }
    if (zoneFormats.size < 4096) zoneFormats.set(zone, f)
  }
  return f
}

/**
 * The offset of `zone` at UTC second `second` as the driver computes it: the local
 * wall-clock time `Intl` gives for that instant, read back as if it were UTC, minus the
 * instant.
 */
function intlOffset (format, second) {
  const parts = format.formatToParts(second * 1000)
  let year = 0; let month = 0; let day = 0; let hour = 0; let minute = 0; let sec = 0; let bc = false
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]
    switch (p.type) {
      case 'year': year = Number(p.value); break
      case 'month': month = Number(p.value); break
      case 'day': day = Number(p.value); break
      case 'hour': hour = Number(p.value) % 24; break
      case 'minute': minute = Number(p.value); break
      case 'second': sec = Number(p.value); break
      case 'era': bc = p.value.toUpperCase() === 'B'; break
    }
  }
  if (bc) year = 1 - year
  return epochDayFromCivil(year, month, day) * SECONDS_PER_DAY + hour * 3600 + minute * 60 + sec - second
}

/**
 * The offset of `zone` at UTC second `second`. Offsets are looked up once per zone and
 * UTC hour: when `Intl` gives the same offset at the hour's first and last second, that
 * offset holds for the whole hour (zones change offset at most once an hour) and is
 * kept; an hour with a change is computed second by second.
 */
function zoneOffset (zone, format, second) {
  const hour = Math.floor(second / 3600)
  let hours = zoneHours.get(zone)
  let off = hours === undefined ? undefined : hours.get(hour)
  if (off === undefined) {
    const a = intlOffset(format, hour * 3600)
    off = a === intlOffset(format, hour * 3600 + 3599) ? a : NaN
    if (zoneHourCount >= MAX_ZONE_HOURS) {
      // Bounded memory whatever the zones and instants read: start over.
      zoneHours.clear()
      zoneHourCount = 0
      hours = undefined
    }
    if (hours === undefined) {
      hours = new Map()
      zoneHours.set(zone, hours)
    }
    hours.set(hour, off)
    zoneHourCount++
  }
  return off === off ? off : intlOffset(format, second)
}

/** Labels and relationship types seen, each string once (at most MAX_INTERNED). */
const interned = new Map()
const MAX_INTERNED = 4096
const MAX_INTERNED_LENGTH = 64

/**
 * The one copy of a short string kept here, so that a label or type repeated over many
 * rows is one string in a kept result rather than one per row (strings are values: which
 * copy a field holds cannot be told apart). Anything else is returned as it is.
 */
function intern (v) {
  if (typeof v !== 'string' || v.length > MAX_INTERNED_LENGTH) return v
  const s = interned.get(v)
  if (s !== undefined) return s
  if (interned.size >= MAX_INTERNED) interned.clear()
  interned.set(v, v)
  return v
}

/** A node's label list with each label interned (in place: the list is the decoder's). */
function labels (list) {
  if (Array.isArray(list)) for (let i = 0; i < list.length; i++) list[i] = intern(list[i])
  return list
}

/** Whether two hydrated values are the same: class, own properties and their order,
 * frozenness, and the same values (Integers by value, typed arrays by content). */
function sameValue (a, b, seen = 0) {
  if (Object.is(a, b)) return true
  if (typeof a !== typeof b || typeof a !== 'object' || a === null || b === null || seen > 16) return false
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  if (Object.isFrozen(a) !== Object.isFrozen(b)) return false
  if (ArrayBuffer.isView(a)) {
    if (a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false
    return true
  }
  const ka = Reflect.ownKeys(a)
  const kb = Reflect.ownKeys(b)
  if (ka.length !== kb.length) return false
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return false
    if (!sameValue(a[ka[i]], b[kb[i]], seen + 1)) return false
  }
  return true
}

/**
 * The builders of one integer mode: for each structure signature (and variant), a
 * function of the fields that returns the driver's object, or `undefined` to leave the
 * structure to the driver.
 *
 * @param {any} core `neo4j-driver-core`
 * @param {'integer' | 'number' | 'bigint'} mode
 */
function makeBuilders (core, mode) {
  const { Integer } = core
  // Whole numbers computed here with divisions may be held by V8 as heap numbers even
  // when they are small integers; `v | 0` makes them small integers again before they are
  // stored. This matters for what is kept: one object (Integer, Date, …) stored with a
  // heap number in a field makes V8 keep that field of every object of its class in a
  // separate box from then on (the class's field turns "double"), an extra object per
  // field for the garbage collector to copy
  // (regression: integer_fields_boxed_after_probes).
  /** A whole number (|v| < 2^53) as an Integer. */
  const toInteger = (v) => (v >= -2147483648 && v <= 2147483647 ? new Integer(v | 0, v < 0 ? -1 : 0) : Integer.fromNumber(v))
  /** A whole number (|v| < 2^53) as a number, a small integer where it fits in 32 bits. */
  const toNumber = (v) => (v >= -2147483648 && v <= 2147483647 ? v | 0 : v)
  /** A whole number (|v| < 2^53) in the mode's integer type. */
  const I = mode === 'bigint' ? BigInt : mode === 'number' ? toNumber : toInteger
  /** A field of the mode's integer type as a safe integer, or NaN. */
  const num = mode === 'integer'
    ? (v) => (v instanceof Integer && v.high >= -0x200000 && v.high < 0x200000 ? v.high * 4294967296 + (v.low >>> 0) : NaN)
    : mode === 'number'
      ? (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? v + 0 : NaN) // + 0: -0 is 0, as in the driver's int()
      : (v) => (typeof v === 'bigint' && v >= -9007199254740991n && v <= 9007199254740991n ? Number(v) : NaN)
  /** Whether a field passed through unchanged is of the mode's integer type. */
  const isModeInt = mode === 'integer'
    ? (v) => v instanceof Integer
    : mode === 'number' ? (v) => typeof v === 'number' : (v) => typeof v === 'bigint'
  const nano = (v) => {
    const n = num(v)
    return n >= 0 && n < NANOS_PER_SECOND ? n : NaN
  }

  const { Date: DateClass, LocalTime, Time, LocalDateTime, DateTime, Duration, Point } = core
  const { Node, Relationship, UnboundRelationship, Path, PathSegment } = core

  // The temporal kinds are built by constructors that share the driver's prototypes:
  // objects of the driver's class with exactly its fields in the object itself, as the
  // driver's constructors make them (Object.create leaves room for four fields and puts
  // any further ones in a separate array: one more object per DateTime kept). Only heap
  // snapshots tell them apart (they name the constructor: DateObject for Date, …).
  function DateObject (year, month, day) {
    this.year = year
    this.month = month
    this.day = day
    Object.freeze(this)
  }
  DateObject.prototype = DateClass.prototype
  function LocalTimeObject (hour, minute, second, nanosecond) {
    this.hour = hour
    this.minute = minute
    this.second = second
    this.nanosecond = nanosecond
    Object.freeze(this)
  }
  LocalTimeObject.prototype = LocalTime.prototype
  function TimeObject (hour, minute, second, nanosecond, timeZoneOffsetSeconds) {
    this.hour = hour
    this.minute = minute
    this.second = second
    this.nanosecond = nanosecond
    this.timeZoneOffsetSeconds = timeZoneOffsetSeconds
    Object.freeze(this)
  }
  TimeObject.prototype = Time.prototype
  function LocalDateTimeObject (year, month, day, hour, minute, second, nanosecond) {
    this.year = year
    this.month = month
    this.day = day
    this.hour = hour
    this.minute = minute
    this.second = second
    this.nanosecond = nanosecond
    Object.freeze(this)
  }
  LocalDateTimeObject.prototype = LocalDateTime.prototype
  function DateTimeObject (year, month, day, hour, minute, second, nanosecond, timeZoneOffsetSeconds, timeZoneId) {
    this.year = year
    this.month = month
    this.day = day
    this.hour = hour
    this.minute = minute
    this.second = second
    this.nanosecond = nanosecond
    this.timeZoneOffsetSeconds = timeZoneOffsetSeconds
    this.timeZoneId = timeZoneId
    Object.freeze(this)
  }
  DateTimeObject.prototype = DateTime.prototype
  function DurationObject (months, days, seconds, nanoseconds) {
    this.months = months
    this.days = days
    this.seconds = seconds
    this.nanoseconds = nanoseconds
    Object.freeze(this)
  }
  DurationObject.prototype = Duration.prototype

  const date = (days) => {
    if (!(days >= -MAX_EPOCH_DAY && days <= MAX_EPOCH_DAY)) return undefined
    splitEpochDay(days)
    return new DateObject(I(civilYear), I(civilMonth), I(civilDay))
  }
  // The fields of the last time of day split by splitTime.
  let hour = 0
  let minute = 0
  let second = 0
  let nanosecond = 0
  /** Splits a nanosecond of the day (0 <= n < 86400e9) into hour … nanosecond. */
  const splitTime = (n) => {
    const s = Math.floor(n / NANOS_PER_SECOND)
    hour = Math.floor(s / 3600)
    minute = Math.floor((s - hour * 3600) / 60)
    second = s - hour * 3600 - minute * 60
    nanosecond = n - s * NANOS_PER_SECOND
  }
  /**
   * A LocalDateTime (zone `null`) or DateTime (an offset, kept as it is, or a zone id)
   * from local epoch seconds and a nanosecond; undefined when out of range.
   */
  const dateTime = (local, ns, offset, zone) => {
    const days = Math.floor(local / SECONDS_PER_DAY)
    if (!(days >= -MAX_EPOCH_DAY && days <= MAX_EPOCH_DAY) || ns !== ns) return undefined
    splitEpochDay(days)
    splitTime((local - days * SECONDS_PER_DAY) * NANOS_PER_SECOND + ns)
    return zone === null
      ? new LocalDateTimeObject(I(civilYear), I(civilMonth), I(civilDay), I(hour), I(minute), I(second), I(nanosecond))
      : new DateTimeObject(I(civilYear), I(civilMonth), I(civilDay), I(hour), I(minute), I(second), I(nanosecond), offset, zone)
  }
  const localDateTime = (local, ns) => dateTime(local, ns, undefined, null)
  const validZone = (zone) => typeof zone === 'string' && zone !== '' && zoneFormat(zone) !== null

  const b = []
  b[0x44] = { name: 'Date', size: 1, build: (f) => date(num(f[0])) }
  b[0x74] = {
    name: 'LocalTime',
    size: 1,
    build: (f) => {
      const n = num(f[0])
      if (!(n >= 0 && n < NANOS_PER_DAY)) return undefined
      splitTime(n)
      return new LocalTimeObject(I(hour), I(minute), I(second), I(nanosecond))
    }
  }
  b[0x54] = {
    name: 'Time',
    size: 2,
    build: (f) => {
      const n = num(f[0])
      if (!(n >= 0 && n < NANOS_PER_DAY) || !isModeInt(f[1])) return undefined
      splitTime(n)
      return new TimeObject(I(hour), I(minute), I(second), I(nanosecond), f[1])
    }
  }
  b[0x64] = { name: 'LocalDateTime', size: 2, build: (f) => localDateTime(num(f[0]), nano(f[1])) }
  // Bolt < 5 (without the utc patch): seconds are local.
  b[0x46] = {
    name: 'DateTime (offset, legacy)',
    size: 3,
    build: (f) => isModeInt(f[2]) ? dateTime(num(f[0]), nano(f[1]), f[2], undefined) : undefined
  }
  b[0x66] = {
    name: 'DateTime (zone id, legacy)',
    size: 3,
    build: (f) => validZone(f[2]) ? dateTime(num(f[0]), nano(f[1]), undefined, f[2]) : undefined
  }
  // Bolt 5+ (and 4.4 with the utc patch): seconds are UTC.
  b[0x49] = {
    name: 'DateTime (offset)',
    size: 3,
    build: (f) => {
      const off = num(f[2])
      return off === off ? dateTime(num(f[0]) + off, nano(f[1]), f[2], undefined) : undefined
    }
  }
  b[0x69] = {
    name: 'DateTime (zone id)',
    size: 3,
    build: (f) => {
      const utc = num(f[0])
      const zone = f[2]
      if (!(utc >= ZONE_MIN_SECOND && utc <= ZONE_MAX_SECOND) || !validZone(zone)) return undefined
      const off = zoneOffset(zone, zoneFormat(zone), utc)
      return dateTime(utc + off, nano(f[1]), I(off), zone)
    }
  }
  /**
   * A Duration whose normalised seconds and nanoseconds are of type `J`: the mode's
   * integer type (6.x), or always an Integer (5.x, whose constructor does not convert
   * them back); probing picks the one the release builds.
   */
  const duration = (J) => ({
    name: 'Duration',
    size: 4,
    build: (f) => {
      const s = num(f[2])
      const n = num(f[3])
      if (s !== s || n !== n || !isModeInt(f[0]) || !isModeInt(f[1])) return undefined
      const carry = Math.floor(n / NANOS_PER_SECOND)
      const seconds = s + carry
      if (!Number.isSafeInteger(seconds)) return undefined
      return new DurationObject(f[0], f[1], J(seconds), J(n - carry * NANOS_PER_SECOND))
    }
  })
  // Points: the driver's class and fields, built by a constructor sharing its prototype
  // (the fields checked as the driver's constructor checks them; anything else goes to
  // it). The driver's Points keep each coordinate in a box of its own (V8 stores the
  // fields as doubles); these hold any value, so whole-number coordinates take no box.
  function PointObject (srid, x, y, z) {
    this.srid = srid
    this.x = x
    this.y = y
    this.z = z
    Object.freeze(this)
  }
  PointObject.prototype = Point.prototype
  new PointObject(null, null, null, null) // (the fields are of any type from now on)
  const isSrid = (v) => typeof v === 'number' || typeof v === 'bigint' || v instanceof Integer
  b[0x58] = {
    name: 'Point (2D)',
    size: 3,
    build: (f) => (isSrid(f[0]) && typeof f[1] === 'number' && typeof f[2] === 'number'
      ? new PointObject(f[0], f[1], f[2], undefined)
      : new Point(f[0], f[1], f[2], undefined))
  }
  b[0x59] = {
    name: 'Point (3D)',
    size: 4,
    build: (f) => (isSrid(f[0]) && typeof f[1] === 'number' && typeof f[2] === 'number' && typeof f[3] === 'number'
      ? new PointObject(f[0], f[1], f[2], f[3])
      : new Point(f[0], f[1], f[2], f[3]))
  }

  // Graph types: Bolt 5+ adds element ids (the variant is chosen by probing). Labels and
  // relationship types repeat from row to row: each is kept once (see `intern`).
  const graph = [
    { name: 'Node', size: 3, build: (f) => new Node(f[0], labels(f[1]), f[2]) },
    { name: 'Node', size: 4, build: (f) => new Node(f[0], labels(f[1]), f[2], f[3]) },
    { name: 'Relationship', size: 5, build: (f) => new Relationship(f[0], f[1], f[2], intern(f[3]), f[4]) },
    {
      name: 'Relationship',
      size: 8,
      build: (f) => new Relationship(f[0], f[1], f[2], intern(f[3]), f[4], f[5], f[6], f[7])
    },
    { name: 'UnboundRelationship', size: 3, build: (f) => new UnboundRelationship(f[0], intern(f[1]), f[2]) },
    { name: 'UnboundRelationship', size: 4, build: (f) => new UnboundRelationship(f[0], intern(f[1]), f[2], f[3]) }
  ]
  const variants = {
    0x4e: [graph[0], graph[1]],
    0x52: [graph[2], graph[3]],
    0x72: [graph[4], graph[5]],
    0x45: [duration(I), duration(toInteger)]
  }

  b[0x50] = {
    name: 'Path',
    size: 3,
    build: (f) => {
      const nodes = f[0]
      const sequence = f[2]
      if (!Array.isArray(nodes) || !Array.isArray(f[1]) || !Array.isArray(sequence)) return undefined
      // The driver binds relationships in its field array; a copy keeps the fields as
      // they came, should the driver have to take over.
      const rels = f[1].slice()
      const segments = []
      let prev = nodes[0]
      for (let i = 0; i < sequence.length; i += 2) {
        const next = nodes[sequence[i + 1]]
        const at = core.toNumber(sequence[i])
        let rel
        if (at > 0) {
          rel = rels[at - 1]
          if (rel instanceof UnboundRelationship) rels[at - 1] = rel = rel.bindTo(prev, next)
        } else {
          rel = rels[-at - 1]
          if (rel instanceof UnboundRelationship) rels[-at - 1] = rel = rel.bindTo(next, prev)
        }
        segments.push(new PathSegment(prev, rel, next))
        prev = next
      }
      return new Path(nodes[0], nodes[nodes.length - 1], segments)
    }
  }

  if (typeof core.Vector === 'function') {
    const kinds = { 0xc8: [Int8Array, 1], 0xc9: [Int16Array, 2], 0xca: [Int32Array, 4], 0xcb: [BigInt64Array, 8], 0xc6: [Float32Array, 4], 0xc1: [Float64Array, 8] }
    b[0x56] = {
      name: 'Vector',
      size: -1,
      build: (f) => {
        const type = f[0]
        const data = f[1]
        if (!(type instanceof Int8Array) || type.length < 1 || !(data instanceof Int8Array) ||
            data.byteOffset !== 0 || data.byteLength !== data.buffer.byteLength) return undefined
        const k = kinds[type[0] & 0xff]
        if (k === undefined || data.length % k[1] !== 0) return undefined
        // Big-endian on the wire: reverse each element's bytes into a fresh buffer.
        const src = new Uint8Array(data.buffer)
        const out = new Uint8Array(src.length)
        const w = k[1]
        if (w === 1) out.set(src)
        else for (let i = 0; i < src.length; i += w) for (let j = 0; j < w; j++) out[i + j] = src[i + w - 1 - j]
        return new core.Vector(new k[0](out.buffer))
      }
    }
  }
  if (typeof core.UnsupportedType === 'function') {
    b[0x3f] = {
      name: 'UnsupportedType',
      size: -1,
      build: (f) => {
        const extra = f[3]
        if (typeof extra !== 'object' || extra === null) return undefined
        return new core.UnsupportedType(f[0], f[1], f[2], extra.message)
      }
    }
  }
  return { b, variants, I }
}

/**
 * Probe fields for signature `sig`, in the mode's integer type (`I`): typical values and
 * the edges of each kind's arithmetic (negative seconds, the last nanosecond of a day,
 * the ends of a DST change). Each call makes fresh arrays (only the signature's).
 *
 * @returns {unknown[][] | undefined}
 */
function probes (core, I, sig) {
  const int = I
  const node = (id) => new core.Node(int(id), ['L'], { id: int(id) }, `e${id}`)
  const unbound = (id) => new core.UnboundRelationship(int(id), 'T', { w: 1.5 }, `r${id}`)
  const berlinSpring = 1711846800 // 2024-03-31T01:00:00Z, Europe/Berlin springs forward
  switch (sig) {
    case 0x44: return [[int(0)], [int(-1)], [int(59)], [int(11016)], [int(-719528)], [int(2932896)]]
    case 0x74: return [[int(0)], [int(86399999999999)], [int(45296000000789)]]
    case 0x54: return [[int(0), int(0)], [int(86399999999999), int(-3600)], [int(45296000000789), int(50400)]]
    case 0x64: return [[int(0), int(0)], [int(-1), int(999999999)], [int(1700000000), int(123)], [int(-62135596800), int(1)]]
    case 0x46: return [[int(0), int(0), int(3600)], [int(-1), int(5), int(-7200)], [int(1700000000), int(123), int(0)]]
    case 0x66: return [[int(0), int(0), 'Europe/Berlin'], [int(-86401), int(7), 'UTC'], [int(1700000000), int(1), 'America/New_York']]
    case 0x49: return [[int(0), int(0), int(3600)], [int(-1), int(5), int(-7200)], [int(1700000000), int(123), int(19800)]]
    case 0x69: return [[int(0), int(0), 'Europe/Berlin'], [int(berlinSpring - 1), int(9), 'Europe/Berlin'],
      [int(berlinSpring), int(0), 'Europe/Berlin'], [int(1700000000), int(123), 'Asia/Kolkata'],
      [int(-1), int(999999999), 'America/New_York'], [int(1700000000), int(0), 'UTC']]
    case 0x45: return [[int(14), int(3), int(5), int(1)], [int(-1), int(0), int(-5), int(-1500000000)], [int(0), int(0), int(0), int(999999999)]]
    case 0x58: return [[int(7203), 1.5, -2.25], [int(4326), 0, 1e300]]
    case 0x59: return [[int(9157), 1.5, -2.25, 3], [int(4979), 0, 0, -0.5]]
    case 0x4e: return [[int(1), ['A', 'B'], { p: int(1) }], [int(2), [], {}, 'n2']]
    case 0x52: return [[int(1), int(2), int(3), 'T', { w: 1 }], [int(4), int(5), int(6), 'R', {}, 'r4', 's5', 'e6']]
    case 0x72: return [[int(1), 'T', {}], [int(2), 'U', { a: 'b' }, 'u2']]
    case 0x50: return [
      [[node(1), node(2), node(3)], [unbound(10), unbound(11)], [int(1), int(1), int(-2), int(2)]],
      [[node(1)], [], []]
    ]
    case 0x56: return [
      [Int8Array.of(0xc8 - 256), Int8Array.of(1, -2, 3)],
      [Int8Array.of(0xc9 - 256), Int8Array.of(1, 2, -1, -2)],
      [Int8Array.of(0xca - 256), Int8Array.of(0, 0, 1, 2)],
      [Int8Array.of(0xcb - 256), Int8Array.of(-128, 0, 0, 0, 0, 0, 0, 1)],
      [Int8Array.of(0xc6 - 256), Int8Array.of(63, -64, 0, 0)],
      [Int8Array.of(0xc1 - 256), Int8Array.of(64, 9, 33, -5, 84, 68, 45, 24)]
    ]
    case 0x3f: return [['Thing', int(6), int(2), { message: 'needs 6.2' }], ['X', int(9), int(0), {}]]
    default: return undefined
  }
}

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
function makeFastHydrate (core, Structure, hydrate, mode) {
  if (typeof core.int !== 'function' || typeof core.Integer !== 'function') return null
  let built
  try {
    built = makeBuilders(core, mode)
  } catch (e) {
    return null
  }
  const { b, variants, I } = built
  const table = new Array(256).fill(undefined)
  /**
   * Signatures with kinds not yet probed. The zone-id DateTimes are probed at the first
   * structure of their signature (or when `kinds` is read), not when the connection
   * starts: their probes made every process create its first `Intl` formatter, about
   * 35 ms as `Intl`'s time-zone data loads, even when no result held a zone id
   * (regression: zone_probes_loaded_intl_for_every_process). The other kinds are probed
   * at once: probed lazily as well, they left the demo read's result 24 B per row larger
   * (1,816 B against 1,792 B, benches/RESULTS.md).
   */
  const pending = new Array(256).fill(false)
  let waiting = 0
  for (let sig = 0; sig < 256; sig++) {
    if (variants[sig] || b[sig]) {
      pending[sig] = true
      waiting++
    }
  }
  if (waiting === 0) return null
  /** Whether the transformer builds every probe of `kind`'s size as `kind` does. */
  const agrees = (sig, kind) => {
    const sized = (f) => kind.size < 0 || f.length === kind.size
    let tried = 0
    try {
      const theirsIn = probes(core, I, sig)
      const oursIn = probes(core, I, sig) // fresh arrays: builders may not share them
      for (let i = 0; i < theirsIn.length; i++) {
        if (!sized(theirsIn[i])) continue
        tried++
        const theirs = hydrate(new Structure(sig, theirsIn[i]))
        const ours = kind.build(oursIn[i])
        if (ours === undefined || !sameValue(theirs, ours)) return false
      }
    } catch (e) {
      return false
    }
    return tried > 0
  }
  /** Probes the kinds of `sig`: the first that agrees is built here from now on. */
  const probe = (sig) => {
    pending[sig] = false
    waiting--
    const candidates = variants[sig] || [b[sig]]
    for (const kind of candidates) {
      if (agrees(sig, kind)) {
        table[sig] = kind
        return kind
      }
    }
    return undefined
  }
  // Every kind but the zone-id ones now, before any real structure.
  for (let sig = 0; sig < 256; sig++) if (pending[sig] && sig !== 0x66 && sig !== 0x69) probe(sig)
  return {
    /** The kinds built here (every kind probed first), by signature. */
    get kinds () {
      for (let sig = 0; waiting > 0 && sig < 256; sig++) if (pending[sig]) probe(sig)
      const names = []
      for (let sig = 0; sig < 256; sig++) if (table[sig] !== undefined) names.push(table[sig].name)
      return names
    },
    hydrate (signature, fields) {
      let kind = table[signature]
      if (kind === undefined) {
        if (!pending[signature]) return undefined
        kind = probe(signature)
        if (kind === undefined) return undefined
      }
      if (kind.size >= 0 && fields.length !== kind.size) return undefined
      try {
        return kind.build(fields)
      } catch (e) {
        return undefined
      }
    }
  }
}

/** How many labels and types are interned (for tests: bounded by MAX_INTERNED). */
function internedCount () {
  return interned.size
}

/** How many zone offsets are cached (for tests: bounded by MAX_ZONE_HOURS). */
function zoneCacheSize () {
  return zoneHourCount
}

module.exports = { civilFromEpochDay, epochDayFromCivil, makeFastHydrate, sameValue, zoneCacheSize, internedCount, MAX_INTERNED, MAX_EPOCH_DAY, MAX_ZONE_HOURS }
