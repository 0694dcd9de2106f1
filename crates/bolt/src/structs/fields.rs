//! Typed access to structure fields, reporting what is wrong as a [`BrokenReason`].

use packstream::ValueRef;

use super::broken::BrokenReason;

pub(super) type Field<T> = Result<T, BrokenReason>;

/// The fields of one structure, read by position.
#[derive(Clone, Copy)]
pub(super) struct Fields<'s, 'a>(pub(super) &'s [ValueRef<'a>]);

impl<'s, 'a> Fields<'s, 'a> {
    /// Checks the field count.
    pub(super) fn expect(self, count: usize) -> Field<Self> {
        if self.0.len() == count {
            Ok(self)
        } else {
            Err(BrokenReason::FieldCount {
                expected: count,
                found: self.0.len(),
            })
        }
    }

    fn get(self, i: usize) -> Field<&'s ValueRef<'a>> {
        self.0.get(i).ok_or(BrokenReason::FieldCount {
            expected: i.saturating_add(1),
            found: self.0.len(),
        })
    }

    fn wrong(field: &'static str, expected: &'static str, v: &ValueRef<'_>) -> BrokenReason {
        BrokenReason::FieldType {
            field,
            expected,
            found: v.type_name(),
        }
    }

    pub(super) fn int(self, i: usize, field: &'static str) -> Field<i64> {
        match self.get(i)? {
            ValueRef::Int(v) => Ok(*v),
            other => Err(Self::wrong(field, "an integer", other)),
        }
    }

    pub(super) fn float(self, i: usize, field: &'static str) -> Field<f64> {
        match self.get(i)? {
            ValueRef::Float(v) => Ok(*v),
            other => Err(Self::wrong(field, "a float", other)),
        }
    }

    pub(super) fn string(self, i: usize, field: &'static str) -> Field<&'a str> {
        match self.get(i)? {
            ValueRef::String(v) => Ok(v),
            other => Err(Self::wrong(field, "a string", other)),
        }
    }

    pub(super) fn bytes(self, i: usize, field: &'static str) -> Field<&'a [u8]> {
        match self.get(i)? {
            ValueRef::Bytes(v) => Ok(v),
            other => Err(Self::wrong(field, "bytes", other)),
        }
    }

    pub(super) fn map(self, i: usize, field: &'static str) -> Field<&'s [(&'a str, ValueRef<'a>)]> {
        match self.get(i)? {
            ValueRef::Map(v) => Ok(v),
            other => Err(Self::wrong(field, "a map", other)),
        }
    }

    pub(super) fn list(self, i: usize, field: &'static str) -> Field<&'s [ValueRef<'a>]> {
        match self.get(i)? {
            ValueRef::List(v) => Ok(v),
            other => Err(Self::wrong(field, "a list", other)),
        }
    }

    /// A list whose items are all strings.
    pub(super) fn strings(self, i: usize, field: &'static str) -> Field<Vec<&'a str>> {
        self.list(i, field)?
            .iter()
            .enumerate()
            .map(|(index, item)| match item {
                ValueRef::String(s) => Ok(*s),
                other => Err(BrokenReason::ListItemType {
                    field,
                    index,
                    expected: "a string",
                    found: other.type_name(),
                }),
            })
            .collect()
    }

    /// A list whose items are all integers.
    pub(super) fn ints(self, i: usize, field: &'static str) -> Field<Vec<i64>> {
        self.list(i, field)?
            .iter()
            .enumerate()
            .map(|(index, item)| match item {
                ValueRef::Int(v) => Ok(*v),
                other => Err(BrokenReason::ListItemType {
                    field,
                    index,
                    expected: "an integer",
                    found: other.type_name(),
                }),
            })
            .collect()
    }
}

/// `value` if it lies in `range`, else [`BrokenReason::OutOfRange`].
pub(super) fn in_range<T>(
    value: i64,
    range: core::ops::RangeInclusive<i64>,
    field: &'static str,
    range_text: &'static str,
) -> Field<T>
where
    T: TryFrom<i64>,
{
    let out = || BrokenReason::OutOfRange {
        field,
        value,
        range: range_text,
    };
    if range.contains(&value) {
        T::try_from(value).map_err(|_| out())
    } else {
        Err(out())
    }
}
