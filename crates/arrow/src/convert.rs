//! Value conversions into Arrow's units, each `None` when the value does not fit.

use arrow_buffer::IntervalMonthDayNano;
use bolt::structs::{Duration, NANOS_PER_SECOND};

/// Seconds and nanoseconds since the epoch as nanoseconds in an `i64` (about the years
/// 1677 to 2262).
pub(crate) fn nanos(seconds: i64, nanoseconds: u32) -> Option<i64> {
    seconds
        .checked_mul(i64::from(NANOS_PER_SECOND))?
        .checked_add(i64::from(nanoseconds))
}

/// A Duration as Arrow's month-day-nanosecond interval: months and days must fit an
/// `i32`, seconds and nanoseconds together an `i64` of nanoseconds.
pub(crate) fn interval(d: &Duration) -> Option<IntervalMonthDayNano> {
    let months = i32::try_from(d.months).ok()?;
    let days = i32::try_from(d.days).ok()?;
    let nanos = i64::try_from(d.total_nanoseconds()).ok()?;
    Some(IntervalMonthDayNano::new(months, days, nanos))
}

/// A UTC offset in seconds (a whole number of minutes, less than a day) written the way
/// Arrow names fixed-offset time zones: `+01:00`, `-05:30`, `+00:00`.
pub(crate) fn offset_string(seconds: i64) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let minutes = seconds.unsigned_abs() / 60;
    format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_written_as_arrow_expects() {
        assert_eq!(offset_string(0), "+00:00");
        assert_eq!(offset_string(3600), "+01:00");
        assert_eq!(offset_string(-19800), "-05:30");
        assert_eq!(offset_string(50400), "+14:00");
    }

    #[test]
    fn conversions_refuse_what_does_not_fit() {
        assert_eq!(nanos(1, 5), Some(1_000_000_005));
        assert_eq!(nanos(-1, 5), Some(-999_999_995));
        assert_eq!(nanos(i64::MAX / 1_000_000_000 + 1, 0), None);
        let d = Duration {
            months: 14,
            days: 3,
            seconds: 2,
            nanoseconds: 7,
        };
        assert_eq!(
            interval(&d),
            Some(IntervalMonthDayNano::new(14, 3, 2_000_000_007))
        );
        let big = Duration {
            months: i64::from(i32::MAX) + 1,
            ..d
        };
        assert_eq!(interval(&big), None);
        let long = Duration {
            seconds: i64::MAX / 2,
            ..d
        };
        assert_eq!(interval(&long), None);
    }
}
