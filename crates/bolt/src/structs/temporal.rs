//! Temporal structures (docs/protocol.md §2.6) and the calendar arithmetic for them, in the
//! proleptic Gregorian calendar, with no time-zone database and no clock.
//!
//! Every type keeps the wire representation in public fields and offers conversions
//! for humans and bindings. `Display` writes ISO-8601-like text: years outside
//! `0000..=9999` get a sign (`-0001-01-01`, `+999999999-12-31`), fractions of a second
//! come in groups of 3 digits (`.789`, `.000000789`), a zero offset is `Z`.
//!
//! ```
//! use bolt::structs::{Date, DateTime, Duration, LocalTime, Time};
//!
//! let d = Date::from_ymd(2007, 12, 3).unwrap();
//! assert_eq!(d.days, 13850);
//! assert_eq!(d.to_string(), "2007-12-03");
//! assert_eq!(Date::from_days(-719893).ymd(), (-1, 1, 1));
//!
//! let t = Time::new(12, 34, 56, 789, 3600).unwrap();
//! assert_eq!(t.to_string(), "12:34:56.000000789+01:00");
//! assert_eq!(LocalTime::new(23, 59, 59, 999_999_999).unwrap().nanoseconds, 86_399_999_999_999);
//!
//! // 1970-01-01T02:15:00.000000042+01:00 is 01:15 UTC (docs/protocol.md §2.6).
//! let dt = DateTime { seconds: 4500, nanoseconds: 42, tz_offset_seconds: 3600 };
//! assert_eq!(dt.to_string(), "1970-01-01T02:15:00.000000042+01:00");
//! assert_eq!(dt.to_legacy().unwrap().seconds, 8100);
//!
//! let p = Duration { months: 14, days: 3, seconds: 14706, nanoseconds: 700_000_000 };
//! assert_eq!(p.to_string(), "P1Y2M3DT4H5M6.7S");
//! ```

use core::fmt;

use packstream::ValueRef;

use super::broken::BrokenReason;
use super::fields::{in_range, Field, Fields};

/// Nanoseconds in one second.
pub const NANOS_PER_SECOND: u32 = 1_000_000_000;
/// Seconds in one day (Bolt has no leap seconds).
pub const SECONDS_PER_DAY: i64 = 86_400;
/// Nanoseconds in one day: the exclusive upper bound of a time of day.
pub const NANOS_PER_DAY: u64 = 86_400_000_000_000;

const NANOS_RANGE: &str = "0..=999999999";
const NANOS_OF_DAY_RANGE: &str = "0..=86399999999999";

// ---------------------------------------------------------------------------------------
// Calendar arithmetic (days since 1970-01-01 <-> proleptic Gregorian y/m/d), in i128 so
// that it is total over every i64 day count.
// ---------------------------------------------------------------------------------------

const DAYS_PER_ERA: i128 = 146_097; // 400 years
const EPOCH_SHIFT: i128 = 719_468; // days from 0000-03-01 to 1970-01-01

fn is_leap_year(year: i128) -> bool {
    year.rem_euclid(4) == 0 && (year.rem_euclid(100) != 0 || year.rem_euclid(400) == 0)
}

fn days_in_month(year: i128, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Days since 1970-01-01 of a valid (year, month, day).
fn days_from_civil(year: i128, month: u8, day: u8) -> i128 {
    // Count years from March so that the leap day is the last day of the year.
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400); // 0..=399
    let m = i128::from(month);
    let month_from_march = if m > 2 { m - 3 } else { m + 9 }; // 0..=11
    let day_of_year = (153 * month_from_march + 2) / 5 + i128::from(day) - 1; // 0..=365
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * DAYS_PER_ERA + day_of_era - EPOCH_SHIFT
}

/// (year, month, day) of a day count since 1970-01-01.
fn civil_from_days(days: i128) -> (i128, u8, u8) {
    let z = days + EPOCH_SHIFT;
    let era = z.div_euclid(DAYS_PER_ERA);
    let day_of_era = z.rem_euclid(DAYS_PER_ERA); // 0..=146096
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153; // 0..=11
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1; // 1..=31
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i128::from(month <= 2);
    // month and day are small by construction.
    (
        year,
        u8::try_from(month).unwrap_or(0),
        u8::try_from(day).unwrap_or(0),
    )
}

fn clamp_i64(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

// ---------------------------------------------------------------------------------------
// Formatting helpers, total over any input (invalid values print, they never panic).
// ---------------------------------------------------------------------------------------

fn write_year(f: &mut fmt::Formatter<'_>, year: i128) -> fmt::Result {
    if year < 0 {
        write!(f, "-{:04}", year.unsigned_abs())
    } else if year > 9999 {
        write!(f, "+{year}")
    } else {
        write!(f, "{year:04}")
    }
}

fn write_date(f: &mut fmt::Formatter<'_>, days: i128) -> fmt::Result {
    let (y, m, d) = civil_from_days(days);
    write_year(f, y)?;
    write!(f, "-{m:02}-{d:02}")
}

/// `.fff`, `.ffffff` or `.fffffffff` (nothing for 0), like Java's ISO formatters.
fn write_fraction(f: &mut fmt::Formatter<'_>, nanos: u64) -> fmt::Result {
    if nanos == 0 {
        Ok(())
    } else if nanos % 1_000_000 == 0 {
        write!(f, ".{:03}", nanos / 1_000_000)
    } else if nanos % 1_000 == 0 {
        write!(f, ".{:06}", nanos / 1_000)
    } else {
        write!(f, ".{nanos:09}")
    }
}

/// `HH:MM:SS[.fff]` of nanoseconds since midnight.
fn write_time_of_day(f: &mut fmt::Formatter<'_>, nanos: u64) -> fmt::Result {
    let secs = nanos / u64::from(NANOS_PER_SECOND);
    write!(
        f,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )?;
    write_fraction(f, nanos % u64::from(NANOS_PER_SECOND))
}

/// `Z`, `+HH:MM` or `+HH:MM:SS`.
fn write_offset(f: &mut fmt::Formatter<'_>, offset: i64) -> fmt::Result {
    if offset == 0 {
        return f.write_str("Z");
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let abs = offset.unsigned_abs();
    write!(f, "{sign}{:02}:{:02}", abs / 3600, abs / 60 % 60)?;
    if abs % 60 != 0 {
        write!(f, ":{:02}", abs % 60)?;
    }
    Ok(())
}

/// `YYYY-MM-DDTHH:MM:SS[.fff]` of wall-clock seconds since the epoch.
fn write_date_time(f: &mut fmt::Formatter<'_>, seconds: i128, nanos: u32) -> fmt::Result {
    let day_seconds = i128::from(SECONDS_PER_DAY);
    write_date(f, seconds.div_euclid(day_seconds))?;
    f.write_str("T")?;
    let secs_of_day = u64::try_from(seconds.rem_euclid(day_seconds)).unwrap_or(0);
    // Nanoseconds above one second (an invalid value) are printed as given.
    write!(
        f,
        "{:02}:{:02}:{:02}",
        secs_of_day / 3600,
        secs_of_day / 60 % 60,
        secs_of_day % 60
    )?;
    write_fraction(f, u64::from(nanos))
}

fn check_nanos(nanoseconds: u32) -> Field<()> {
    if nanoseconds < NANOS_PER_SECOND {
        Ok(())
    } else {
        Err(BrokenReason::OutOfRange {
            field: "nanoseconds",
            value: i64::from(nanoseconds),
            range: NANOS_RANGE,
        })
    }
}

fn check_nanos_of_day(nanoseconds: u64) -> Field<()> {
    if nanoseconds < NANOS_PER_DAY {
        Ok(())
    } else {
        Err(BrokenReason::OutOfRange {
            field: "nanoseconds",
            value: i64::try_from(nanoseconds).unwrap_or(i64::MAX),
            range: NANOS_OF_DAY_RANGE,
        })
    }
}

fn nanos_field(f: Fields<'_, '_>, i: usize) -> Field<u32> {
    in_range(
        f.int(i, "nanoseconds")?,
        0..=999_999_999,
        "nanoseconds",
        NANOS_RANGE,
    )
}

fn nanos_of_day_field(f: Fields<'_, '_>, i: usize) -> Field<u64> {
    in_range(
        f.int(i, "nanoseconds")?,
        0..=86_399_999_999_999,
        "nanoseconds",
        NANOS_OF_DAY_RANGE,
    )
}

fn nanos_of_day_value(nanoseconds: u64) -> ValueRef<'static> {
    // Valid values (< NANOS_PER_DAY) always fit.
    ValueRef::Int(i64::try_from(nanoseconds).unwrap_or(i64::MAX))
}

// ---------------------------------------------------------------------------------------
// Date
// ---------------------------------------------------------------------------------------

/// Date `44`: days since 1970-01-01.
///
/// The conversion to and from (year, month, day) is total over every `i64` day count
/// (years up to about ±2.5 × 10¹⁶), which covers the server's range of years
/// −999 999 999 to +999 999 999.
///
/// ```
/// use bolt::structs::Date;
/// assert_eq!(Date::from_ymd(-1, 1, 1), Some(Date::from_days(-719893)));
/// assert_eq!(Date::from_days(365241780471).ymd(), (999_999_999, 12, 31));
/// assert_eq!(Date::from_days(365241780471).to_string(), "+999999999-12-31");
/// assert_eq!(Date::from_ymd(2023, 2, 29), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Date {
    /// Days since 1970-01-01 (negative before).
    pub days: i64,
}

impl Date {
    /// 1970-01-01.
    pub const UNIX_EPOCH: Date = Date { days: 0 };
    /// The earliest year a Neo4j server sends.
    pub const MIN_SERVER_YEAR: i64 = -999_999_999;
    /// The latest year a Neo4j server sends.
    pub const MAX_SERVER_YEAR: i64 = 999_999_999;

    /// The date `days` days after 1970-01-01.
    #[must_use]
    pub const fn from_days(days: i64) -> Self {
        Date { days }
    }

    /// The date of a proleptic Gregorian (year, month 1–12, day 1–31); year 0 is 1 BCE.
    /// `None` if the month or day does not exist, or the day count would not fit `i64`.
    #[must_use]
    pub fn from_ymd(year: i64, month: u8, day: u8) -> Option<Self> {
        let y = i128::from(year);
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(y, month) {
            return None;
        }
        i64::try_from(days_from_civil(y, month, day))
            .ok()
            .map(Date::from_days)
    }

    /// The proleptic Gregorian (year, month, day).
    #[must_use]
    pub fn ymd(self) -> (i64, u8, u8) {
        let (y, m, d) = civil_from_days(i128::from(self.days));
        (clamp_i64(y), m, d)
    }

    /// The year (0 = 1 BCE, −1 = 2 BCE).
    #[must_use]
    pub fn year(self) -> i64 {
        self.ymd().0
    }

    /// The month, 1–12.
    #[must_use]
    pub fn month(self) -> u8 {
        self.ymd().1
    }

    /// The day of the month, 1–31.
    #[must_use]
    pub fn day(self) -> u8 {
        self.ymd().2
    }

    pub(super) fn from_fields(f: Fields<'_, '_>) -> Field<Self> {
        Ok(Date::from_days(f.int(0, "days")?))
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'static>>> {
        Ok(vec![ValueRef::Int(self.days)])
    }
}

impl fmt::Display for Date {
    /// `YYYY-MM-DD`, e.g. `2024-01-31`, `-0001-01-01`, `+999999999-12-31`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_date(f, i128::from(self.days))
    }
}

// ---------------------------------------------------------------------------------------
// LocalTime and Time
// ---------------------------------------------------------------------------------------

/// LocalTime `74`: nanoseconds since midnight, `0..NANOS_PER_DAY`.
///
/// ```
/// use bolt::structs::LocalTime;
/// let t = LocalTime { nanoseconds: 45_296_789_000_000 };
/// assert_eq!((t.hour(), t.minute(), t.second(), t.nanosecond()), (12, 34, 56, 789_000_000));
/// assert_eq!(t.to_string(), "12:34:56.789");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalTime {
    /// Nanoseconds since midnight.
    pub nanoseconds: u64,
}

impl LocalTime {
    /// 00:00:00.
    pub const MIDNIGHT: LocalTime = LocalTime { nanoseconds: 0 };

    /// The time `hour:minute:second.nanosecond`; `None` unless hour < 24, minute < 60,
    /// second < 60 and nanosecond < 10⁹.
    #[must_use]
    pub fn new(hour: u8, minute: u8, second: u8, nanosecond: u32) -> Option<Self> {
        if hour >= 24 || minute >= 60 || second >= 60 || nanosecond >= NANOS_PER_SECOND {
            return None;
        }
        let secs = u64::from(hour) * 3600 + u64::from(minute) * 60 + u64::from(second);
        Some(LocalTime {
            nanoseconds: secs * u64::from(NANOS_PER_SECOND) + u64::from(nanosecond),
        })
    }

    fn secs(self) -> u64 {
        self.nanoseconds / u64::from(NANOS_PER_SECOND)
    }

    /// The hour (0–23 for a valid time).
    #[must_use]
    pub fn hour(self) -> u32 {
        u32::try_from(self.secs() / 3600).unwrap_or(u32::MAX)
    }

    /// The minute, 0–59.
    #[must_use]
    pub fn minute(self) -> u32 {
        u32::try_from(self.secs() / 60 % 60).unwrap_or(0)
    }

    /// The second, 0–59.
    #[must_use]
    pub fn second(self) -> u32 {
        u32::try_from(self.secs() % 60).unwrap_or(0)
    }

    /// The nanosecond within the second, 0–999 999 999.
    #[must_use]
    pub fn nanosecond(self) -> u32 {
        u32::try_from(self.nanoseconds % u64::from(NANOS_PER_SECOND)).unwrap_or(0)
    }

    pub(super) fn check(&self) -> Field<()> {
        check_nanos_of_day(self.nanoseconds)
    }

    pub(super) fn from_fields(f: Fields<'_, '_>) -> Field<Self> {
        Ok(LocalTime {
            nanoseconds: nanos_of_day_field(f, 0)?,
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'static>>> {
        self.check()?;
        Ok(vec![nanos_of_day_value(self.nanoseconds)])
    }
}

impl fmt::Display for LocalTime {
    /// `HH:MM:SS[.fff]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_time_of_day(f, self.nanoseconds)
    }
}

/// Time `54`: a time of day with its offset from UTC.
///
/// `nanoseconds` counts from *local* midnight (docs/protocol.md §2.6).
///
/// ```
/// use bolt::structs::Time;
/// let t = Time { nanoseconds: 86_399_000_000_000, tz_offset_seconds: -30600 };
/// assert_eq!(t.to_string(), "23:59:59-08:30");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Time {
    /// Nanoseconds since local midnight, `0..NANOS_PER_DAY`.
    pub nanoseconds: u64,
    /// Offset from UTC in seconds (east positive).
    pub tz_offset_seconds: i64,
}

impl Time {
    /// The local time `hour:minute:second.nanosecond` at the given offset; `None` if
    /// the time of day is invalid (see [`LocalTime::new`]).
    #[must_use]
    pub fn new(
        hour: u8,
        minute: u8,
        second: u8,
        nanosecond: u32,
        tz_offset_seconds: i64,
    ) -> Option<Self> {
        LocalTime::new(hour, minute, second, nanosecond).map(|t| Time {
            nanoseconds: t.nanoseconds,
            tz_offset_seconds,
        })
    }

    /// The local time of day, without the offset.
    #[must_use]
    pub fn local_time(self) -> LocalTime {
        LocalTime {
            nanoseconds: self.nanoseconds,
        }
    }

    pub(super) fn check(&self) -> Field<()> {
        check_nanos_of_day(self.nanoseconds)
    }

    pub(super) fn from_fields(f: Fields<'_, '_>) -> Field<Self> {
        Ok(Time {
            nanoseconds: nanos_of_day_field(f, 0)?,
            tz_offset_seconds: f.int(1, "tz_offset_seconds")?,
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'static>>> {
        self.check()?;
        Ok(vec![
            nanos_of_day_value(self.nanoseconds),
            ValueRef::Int(self.tz_offset_seconds),
        ])
    }
}

impl fmt::Display for Time {
    /// `HH:MM:SS[.fff]±HH:MM` or `…Z`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_time_of_day(f, self.nanoseconds)?;
        write_offset(f, self.tz_offset_seconds)
    }
}

// ---------------------------------------------------------------------------------------
// LocalDateTime
// ---------------------------------------------------------------------------------------

/// LocalDateTime `64`: a wall-clock date and time written as if it were UTC.
///
/// ```
/// use bolt::structs::{Date, LocalDateTime, LocalTime};
/// let ldt = LocalDateTime { seconds: -2208988800, nanoseconds: 0 };
/// assert_eq!(ldt.to_string(), "1900-01-01T00:00:00");
/// assert_eq!(ldt.date(), Date::from_ymd(1900, 1, 1).unwrap());
/// let again = LocalDateTime::new(ldt.date(), ldt.time()).unwrap();
/// assert_eq!(again, ldt);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalDateTime {
    /// Seconds since 1970-01-01T00:00:00 (floor: negative before).
    pub seconds: i64,
    /// Nanoseconds within the second, `0..=999_999_999`.
    pub nanoseconds: u32,
}

impl LocalDateTime {
    /// The date and time of day combined; `None` if the time is invalid or the seconds
    /// would not fit `i64`.
    #[must_use]
    pub fn new(date: Date, time: LocalTime) -> Option<Self> {
        check_nanos_of_day(time.nanoseconds).ok()?;
        let secs_of_day = i64::try_from(time.secs()).ok()?;
        let seconds = date
            .days
            .checked_mul(SECONDS_PER_DAY)?
            .checked_add(secs_of_day)?;
        Some(LocalDateTime {
            seconds,
            nanoseconds: time.nanosecond(),
        })
    }

    /// The date part.
    #[must_use]
    pub fn date(self) -> Date {
        Date::from_days(self.seconds.div_euclid(SECONDS_PER_DAY))
    }

    /// The time-of-day part.
    #[must_use]
    pub fn time(self) -> LocalTime {
        // rem_euclid is in 0..86400, so the product fits.
        let secs = self.seconds.rem_euclid(SECONDS_PER_DAY).unsigned_abs();
        LocalTime {
            nanoseconds: secs * u64::from(NANOS_PER_SECOND) + u64::from(self.nanoseconds),
        }
    }

    pub(super) fn check(&self) -> Field<()> {
        check_nanos(self.nanoseconds)
    }

    pub(super) fn from_fields(f: Fields<'_, '_>) -> Field<Self> {
        Ok(LocalDateTime {
            seconds: f.int(0, "seconds")?,
            nanoseconds: nanos_field(f, 1)?,
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'static>>> {
        self.check()?;
        Ok(vec![
            ValueRef::Int(self.seconds),
            ValueRef::Int(i64::from(self.nanoseconds)),
        ])
    }
}

impl fmt::Display for LocalDateTime {
    /// `YYYY-MM-DDTHH:MM:SS[.fff]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_date_time(f, i128::from(self.seconds), self.nanoseconds)
    }
}

// ---------------------------------------------------------------------------------------
// DateTime (UTC-based and legacy)
// ---------------------------------------------------------------------------------------

/// DateTime `49` (Bolt 5+, or 4.3/4.4 with the utc patch): a UTC instant plus the offset
/// used to present it.
///
/// ```
/// use bolt::structs::DateTime;
/// let dt = DateTime { seconds: 17999, nanoseconds: 500_000_000, tz_offset_seconds: -18000 };
/// assert_eq!(dt.to_string(), "1969-12-31T23:59:59.500-05:00");
/// assert_eq!(dt.utc().to_string(), "1970-01-01T04:59:59.500");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DateTime {
    /// UTC seconds since the epoch (floor: negative before 1970).
    pub seconds: i64,
    /// Nanoseconds within the second, `0..=999_999_999`.
    pub nanoseconds: u32,
    /// Offset from UTC in seconds (east positive), used only for presentation.
    pub tz_offset_seconds: i64,
}

impl DateTime {
    /// The instant whose local wall-clock time at `tz_offset_seconds` is `local`;
    /// `None` on overflow.
    #[must_use]
    pub fn from_local(local: LocalDateTime, tz_offset_seconds: i64) -> Option<Self> {
        Some(DateTime {
            seconds: local.seconds.checked_sub(tz_offset_seconds)?,
            nanoseconds: local.nanoseconds,
            tz_offset_seconds,
        })
    }

    /// The instant as UTC wall-clock time.
    #[must_use]
    pub fn utc(self) -> LocalDateTime {
        LocalDateTime {
            seconds: self.seconds,
            nanoseconds: self.nanoseconds,
        }
    }

    /// The local wall-clock time at the offset; `None` on overflow.
    #[must_use]
    pub fn local(self) -> Option<LocalDateTime> {
        Some(LocalDateTime {
            seconds: self.seconds.checked_add(self.tz_offset_seconds)?,
            nanoseconds: self.nanoseconds,
        })
    }

    /// The same instant in the legacy form `46` (local seconds); `None` on overflow.
    #[must_use]
    pub fn to_legacy(self) -> Option<LegacyDateTime> {
        Some(LegacyDateTime {
            seconds: self.local()?.seconds,
            nanoseconds: self.nanoseconds,
            tz_offset_seconds: self.tz_offset_seconds,
        })
    }

    pub(super) fn check(&self) -> Field<()> {
        check_nanos(self.nanoseconds)
    }

    pub(super) fn from_fields(f: Fields<'_, '_>) -> Field<Self> {
        Ok(DateTime {
            seconds: f.int(0, "seconds")?,
            nanoseconds: nanos_field(f, 1)?,
            tz_offset_seconds: f.int(2, "tz_offset_seconds")?,
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'static>>> {
        self.check()?;
        Ok(vec![
            ValueRef::Int(self.seconds),
            ValueRef::Int(i64::from(self.nanoseconds)),
            ValueRef::Int(self.tz_offset_seconds),
        ])
    }
}

impl fmt::Display for DateTime {
    /// Local time and offset: `2024-02-29T12:34:56.123456789+01:00`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let local = i128::from(self.seconds) + i128::from(self.tz_offset_seconds);
        write_date_time(f, local, self.nanoseconds)?;
        write_offset(f, self.tz_offset_seconds)
    }
}

/// Legacy DateTime `46` (Bolt 2 to 4.4 without the utc patch): `seconds` is the
/// *local* wall-clock time, i.e. UTC seconds plus the offset.
///
/// ```
/// use bolt::structs::LegacyDateTime;
/// let dt = LegacyDateTime { seconds: 8100, nanoseconds: 42, tz_offset_seconds: 3600 };
/// assert_eq!(dt.to_utc().unwrap().seconds, 4500);
/// assert_eq!(dt.to_string(), "1970-01-01T02:15:00.000000042+01:00");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LegacyDateTime {
    /// Local wall-clock seconds since the epoch.
    pub seconds: i64,
    /// Nanoseconds within the second, `0..=999_999_999`.
    pub nanoseconds: u32,
    /// Offset from UTC in seconds (east positive).
    pub tz_offset_seconds: i64,
}

impl LegacyDateTime {
    /// The local wall-clock time.
    #[must_use]
    pub fn local(self) -> LocalDateTime {
        LocalDateTime {
            seconds: self.seconds,
            nanoseconds: self.nanoseconds,
        }
    }

    /// The same instant in the UTC-based form `49`; `None` on overflow.
    #[must_use]
    pub fn to_utc(self) -> Option<DateTime> {
        DateTime::from_local(self.local(), self.tz_offset_seconds)
    }

    pub(super) fn check(&self) -> Field<()> {
        check_nanos(self.nanoseconds)
    }

    pub(super) fn from_fields(f: Fields<'_, '_>) -> Field<Self> {
        Ok(LegacyDateTime {
            seconds: f.int(0, "seconds")?,
            nanoseconds: nanos_field(f, 1)?,
            tz_offset_seconds: f.int(2, "tz_offset_seconds")?,
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'static>>> {
        self.check()?;
        Ok(vec![
            ValueRef::Int(self.seconds),
            ValueRef::Int(i64::from(self.nanoseconds)),
            ValueRef::Int(self.tz_offset_seconds),
        ])
    }
}

impl fmt::Display for LegacyDateTime {
    /// Local time and offset, as for [`DateTime`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_date_time(f, i128::from(self.seconds), self.nanoseconds)?;
        write_offset(f, self.tz_offset_seconds)
    }
}

/// DateTimeZoneId `69` (Bolt 5+, or 4.3/4.4 with the utc patch): a UTC instant and an
/// IANA zone name.
///
/// Without a time-zone database the local time is unknown here, so `Display` shows the
/// UTC instant with the zone: `2024-02-29T11:34:56.123456789Z[Europe/Stockholm]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DateTimeZoneId<'a> {
    /// UTC seconds since the epoch.
    pub seconds: i64,
    /// Nanoseconds within the second, `0..=999_999_999`.
    pub nanoseconds: u32,
    /// The zone name, e.g. `"Europe/Paris"`.
    pub tz_id: &'a str,
}

impl<'a> DateTimeZoneId<'a> {
    /// The instant as UTC wall-clock time.
    #[must_use]
    pub fn utc(self) -> LocalDateTime {
        LocalDateTime {
            seconds: self.seconds,
            nanoseconds: self.nanoseconds,
        }
    }

    pub(super) fn check(&self) -> Field<()> {
        check_nanos(self.nanoseconds)
    }

    pub(super) fn from_fields(f: Fields<'_, 'a>) -> Field<Self> {
        Ok(DateTimeZoneId {
            seconds: f.int(0, "seconds")?,
            nanoseconds: nanos_field(f, 1)?,
            tz_id: f.string(2, "tz_id")?,
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'a>>> {
        self.check()?;
        Ok(vec![
            ValueRef::Int(self.seconds),
            ValueRef::Int(i64::from(self.nanoseconds)),
            ValueRef::String(self.tz_id),
        ])
    }
}

impl fmt::Display for DateTimeZoneId<'_> {
    /// The UTC instant and the zone: `…Z[Europe/Paris]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_date_time(f, i128::from(self.seconds), self.nanoseconds)?;
        write!(f, "Z[{}]", self.tz_id)
    }
}

/// Legacy DateTimeZoneId `66` (Bolt 2 to 4.4 without the utc patch): *local* wall-clock
/// seconds and an IANA zone name (ambiguous around DST changes, which is why it was
/// replaced).
///
/// `Display` shows the local time with the zone: `2024-02-29T12:34:56[Europe/Stockholm]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LegacyDateTimeZoneId<'a> {
    /// Local wall-clock seconds since the epoch.
    pub seconds: i64,
    /// Nanoseconds within the second, `0..=999_999_999`.
    pub nanoseconds: u32,
    /// The zone name.
    pub tz_id: &'a str,
}

impl<'a> LegacyDateTimeZoneId<'a> {
    /// The local wall-clock time.
    #[must_use]
    pub fn local(self) -> LocalDateTime {
        LocalDateTime {
            seconds: self.seconds,
            nanoseconds: self.nanoseconds,
        }
    }

    pub(super) fn check(&self) -> Field<()> {
        check_nanos(self.nanoseconds)
    }

    pub(super) fn from_fields(f: Fields<'_, 'a>) -> Field<Self> {
        Ok(LegacyDateTimeZoneId {
            seconds: f.int(0, "seconds")?,
            nanoseconds: nanos_field(f, 1)?,
            tz_id: f.string(2, "tz_id")?,
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'a>>> {
        self.check()?;
        Ok(vec![
            ValueRef::Int(self.seconds),
            ValueRef::Int(i64::from(self.nanoseconds)),
            ValueRef::String(self.tz_id),
        ])
    }
}

impl fmt::Display for LegacyDateTimeZoneId<'_> {
    /// The local time and the zone: `…[Europe/Paris]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_date_time(f, i128::from(self.seconds), self.nanoseconds)?;
        write!(f, "[{}]", self.tz_id)
    }
}

// ---------------------------------------------------------------------------------------
// Duration
// ---------------------------------------------------------------------------------------

/// Duration `45`: four signed components, kept apart and not normalised
/// (docs/protocol.md §2.6).
///
/// `Display` follows Neo4j: months as years and months, days as days, seconds and
/// nanoseconds as hours, minutes and seconds; each component keeps its sign.
///
/// ```
/// use bolt::structs::Duration;
/// let d = |months, days, seconds, nanoseconds| Duration { months, days, seconds, nanoseconds };
/// assert_eq!(d(14, 3, 14706, 789_000_000).to_string(), "P1Y2M3DT4H5M6.789S");
/// assert_eq!(d(0, 0, 0, 0).to_string(), "PT0S");
/// assert_eq!(d(0, -1, -3, 999_999_997).to_string(), "P-1DT-2.000000003S");
/// assert_eq!(d(14, 40, 90000, 0).to_string(), "P1Y2M40DT25H");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Duration {
    /// Months.
    pub months: i64,
    /// Days.
    pub days: i64,
    /// Seconds.
    pub seconds: i64,
    /// Nanoseconds (servers send 0–999 999 999, but any value is carried).
    pub nanoseconds: i64,
}

impl Duration {
    /// The seconds and nanoseconds together, in nanoseconds.
    #[must_use]
    pub fn total_nanoseconds(self) -> i128 {
        i128::from(self.seconds) * i128::from(NANOS_PER_SECOND) + i128::from(self.nanoseconds)
    }

    pub(super) fn from_fields(f: Fields<'_, '_>) -> Field<Self> {
        Ok(Duration {
            months: f.int(0, "months")?,
            days: f.int(1, "days")?,
            seconds: f.int(2, "seconds")?,
            nanoseconds: f.int(3, "nanoseconds")?,
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'static>>> {
        Ok(vec![
            ValueRef::Int(self.months),
            ValueRef::Int(self.days),
            ValueRef::Int(self.seconds),
            ValueRef::Int(self.nanoseconds),
        ])
    }
}

impl fmt::Display for Duration {
    /// `P[nY][nM][nD][T[nH][nM][n[.f]S]]`, or `PT0S` when all is zero.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total_nanoseconds();
        if self.months == 0 && self.days == 0 && total == 0 {
            return f.write_str("PT0S");
        }
        f.write_str("P")?;
        let (years, months) = (self.months / 12, self.months % 12);
        if years != 0 {
            write!(f, "{years}Y")?;
        }
        if months != 0 {
            write!(f, "{months}M")?;
        }
        if self.days != 0 {
            write!(f, "{}D", self.days)?;
        }
        if total == 0 {
            return Ok(());
        }
        f.write_str("T")?;
        let nanos_per_second = i128::from(NANOS_PER_SECOND);
        let (hours, rest) = (
            total / (3600 * nanos_per_second),
            total % (3600 * nanos_per_second),
        );
        let (minutes, rest) = (
            rest / (60 * nanos_per_second),
            rest % (60 * nanos_per_second),
        );
        if hours != 0 {
            write!(f, "{hours}H")?;
        }
        if minutes != 0 {
            write!(f, "{minutes}M")?;
        }
        if rest != 0 {
            let sign = if rest < 0 { "-" } else { "" };
            let abs = rest.unsigned_abs();
            let whole = abs / nanos_per_second.unsigned_abs();
            let frac = abs % nanos_per_second.unsigned_abs();
            write!(f, "{sign}{whole}")?;
            if frac != 0 {
                let digits = format!("{frac:09}");
                write!(f, ".{}", digits.trim_end_matches('0'))?;
            }
            f.write_str("S")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip_samples() {
        for (y, m, d, days) in [
            (1970, 1, 1, 0),
            (2007, 12, 3, 13850),
            (2024, 2, 29, 19782),
            (1969, 7, 20, -165),
            (9999, 12, 31, 2_932_896),
            (-1, 1, 1, -719_893),
            (999_999_999, 12, 31, 365_241_780_471),
            (0, 2, 29, -719_469),
            (1, 1, 1, -719_162),
            (1600, 2, 29, -135_081),
        ] {
            assert_eq!(
                Date::from_ymd(y, m, d),
                Some(Date::from_days(days)),
                "{y}-{m}-{d}"
            );
            assert_eq!(Date::from_days(days).ymd(), (y, m, d));
        }
        assert_eq!(Date::from_ymd(1900, 2, 29), None);
        assert_eq!(Date::from_ymd(2000, 13, 1), None);
        assert_eq!(Date::from_ymd(2000, 0, 1), None);
        assert_eq!(Date::from_ymd(2000, 4, 31), None);
        assert_eq!(Date::from_ymd(i64::MAX, 1, 1), None);
        // The ends of the i64 range convert and come back.
        for days in [i64::MIN, i64::MAX, i64::MIN + 1, i64::MAX - 1] {
            let (y, m, d) = Date::from_days(days).ymd();
            assert_eq!(Date::from_ymd(y, m, d), Some(Date::from_days(days)));
        }
    }

    #[test]
    fn date_display() {
        let show = |y, m, d| Date::from_ymd(y, m, d).map(|x| x.to_string());
        assert_eq!(show(2024, 1, 31).as_deref(), Some("2024-01-31"));
        assert_eq!(show(-1, 1, 1).as_deref(), Some("-0001-01-01"));
        assert_eq!(show(0, 1, 1).as_deref(), Some("0000-01-01"));
        assert_eq!(show(10000, 1, 1).as_deref(), Some("+10000-01-01"));
        assert_eq!(show(-12345, 6, 7).as_deref(), Some("-12345-06-07"));
        // Never panics at the extremes.
        let _ = Date::from_days(i64::MIN).to_string();
        let _ = Date::from_days(i64::MAX).to_string();
    }

    #[test]
    fn times() {
        let t = Time::new(12, 34, 56, 789, 3600).unwrap();
        assert_eq!(t.to_string(), "12:34:56.000000789+01:00");
        assert_eq!(Time::new(0, 0, 0, 0, 0).unwrap().to_string(), "00:00:00Z");
        assert_eq!(
            Time::new(1, 2, 3, 500_000_000, -(3600 + 1800 + 15))
                .unwrap()
                .to_string(),
            "01:02:03.500-01:30:15"
        );
        assert_eq!(
            LocalTime::new(1, 2, 3, 123_456_000).unwrap().to_string(),
            "01:02:03.123456"
        );
        assert_eq!(LocalTime::new(24, 0, 0, 0), None);
        assert_eq!(LocalTime::new(0, 60, 0, 0), None);
        assert_eq!(LocalTime::new(0, 0, 60, 0), None);
        assert_eq!(LocalTime::new(0, 0, 0, 1_000_000_000), None);
        let t = LocalTime {
            nanoseconds: u64::MAX,
        };
        let _ = t.to_string();
        assert!(t.check().is_err());
        let _ = (t.hour(), t.minute(), t.second(), t.nanosecond());
    }

    #[test]
    fn date_times() {
        let dt = DateTime {
            seconds: 1_709_206_496,
            nanoseconds: 123_456_789,
            tz_offset_seconds: 3600,
        };
        assert_eq!(dt.to_string(), "2024-02-29T12:34:56.123456789+01:00");
        assert_eq!(dt.to_legacy().unwrap().seconds, 1_709_210_096);
        assert_eq!(dt.to_legacy().unwrap().to_utc(), Some(dt));
        let z = DateTimeZoneId {
            seconds: 1_709_206_496,
            nanoseconds: 123_456_789,
            tz_id: "Europe/Stockholm",
        };
        assert_eq!(
            z.to_string(),
            "2024-02-29T11:34:56.123456789Z[Europe/Stockholm]"
        );
        let lz = LegacyDateTimeZoneId {
            seconds: 1_709_210_096,
            nanoseconds: 123_456_789,
            tz_id: "Europe/Stockholm",
        };
        assert_eq!(
            lz.to_string(),
            "2024-02-29T12:34:56.123456789[Europe/Stockholm]"
        );
        let extreme = DateTime {
            seconds: i64::MAX,
            nanoseconds: u32::MAX,
            tz_offset_seconds: i64::MAX,
        };
        let _ = extreme.to_string();
        assert_eq!(extreme.local(), None);
        assert_eq!(extreme.to_legacy(), None);
        let ldt = LocalDateTime {
            seconds: -1,
            nanoseconds: 500_000_000,
        };
        assert_eq!(ldt.to_string(), "1969-12-31T23:59:59.500");
        assert_eq!(ldt.date(), Date::from_ymd(1969, 12, 31).unwrap());
        assert_eq!(ldt.time(), LocalTime::new(23, 59, 59, 500_000_000).unwrap());
        assert_eq!(LocalDateTime::new(ldt.date(), ldt.time()), Some(ldt));
        assert_eq!(
            LocalDateTime::new(Date::from_days(i64::MAX), LocalTime::MIDNIGHT),
            None
        );
    }

    #[test]
    fn durations() {
        let d = |months, days, seconds, nanoseconds| Duration {
            months,
            days,
            seconds,
            nanoseconds,
        };
        assert_eq!(d(0, 0, 0, 1).to_string(), "PT0.000000001S");
        assert_eq!(d(-14, 0, 0, 0).to_string(), "P-1Y-2M");
        assert_eq!(d(12, 0, 0, 0).to_string(), "P1Y");
        assert_eq!(d(0, 0, -1, 500_000_000).to_string(), "PT-0.5S");
        assert_eq!(d(0, 0, 3661, 0).to_string(), "PT1H1M1S");
        assert_eq!(d(0, 0, 0, -1_000_000_000).to_string(), "PT-1S");
        assert_eq!(d(1, 0, 1, -1_000_000_000).to_string(), "P1M");
        let _ = d(i64::MIN, i64::MIN, i64::MIN, i64::MIN).to_string();
        let _ = d(i64::MAX, i64::MAX, i64::MAX, i64::MAX).to_string();
    }
}
