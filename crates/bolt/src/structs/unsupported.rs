//! The Bolt 6.0 UnsupportedType structure `3F` (docs/protocol.md §2.8): the server's
//! placeholder for a value the negotiated version cannot carry.

use core::fmt;

use packstream::ValueRef;

use super::display::{write_map, Ctx};
use super::fields::{in_range, Field, Fields};
use crate::version::BoltVersion;

/// UnsupportedType `3F` (Bolt 6.0+, server to client): the name of a type the
/// negotiated protocol cannot carry and the minimum Bolt version that could.
///
/// ```
/// use bolt::structs::{BoltStruct, UnsupportedType};
/// use bolt::BoltVersion;
/// use packstream::{StructRef, ValueRef};
///
/// let s = StructRef { tag: 0x3F, fields: vec![
///     ValueRef::String("UUID"), ValueRef::Int(6), ValueRef::Int(1),
///     ValueRef::Map(vec![("message", ValueRef::String("needs Bolt 6.1"))]),
/// ]};
/// let BoltStruct::Unsupported(u) = BoltStruct::from_struct(&s, BoltVersion::V6_0) else { panic!() };
/// assert_eq!(u.name, "UUID");
/// assert_eq!(u.minimum_version(), BoltVersion::V6_1);
/// assert_eq!(u.message(), Some("needs Bolt 6.1"));
/// assert_eq!(u.to_string(), r#"unsupported(UUID, minimum Bolt 6.1, {message: "needs Bolt 6.1"})"#);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct UnsupportedType<'a> {
    /// The type's name, e.g. `"UUID"`.
    pub name: &'a str,
    /// Major number of the minimum Bolt version that carries the type.
    pub minimum_protocol_major: u8,
    /// Minor number of the minimum Bolt version that carries the type.
    pub minimum_protocol_minor: u8,
    /// Further information, in wire order; `message` (a string) is the one key the
    /// reference names.
    pub extra: Vec<(&'a str, ValueRef<'a>)>,
}

impl<'a> UnsupportedType<'a> {
    /// The minimum Bolt version that carries the type.
    #[must_use]
    pub fn minimum_version(&self) -> BoltVersion {
        BoltVersion::new(self.minimum_protocol_major, self.minimum_protocol_minor)
    }

    /// `extra.message`, if it is a string (the last entry wins on duplicates).
    #[must_use]
    pub fn message(&self) -> Option<&'a str> {
        self.extra
            .iter()
            .rev()
            .find(|(k, _)| *k == "message")
            .and_then(|(_, v)| match v {
                ValueRef::String(s) => Some(*s),
                _ => None,
            })
    }

    pub(super) fn from_fields(f: Fields<'_, 'a>) -> Field<Self> {
        Ok(UnsupportedType {
            name: f.string(0, "name")?,
            minimum_protocol_major: in_range(
                f.int(1, "minimum_protocol_major")?,
                0..=255,
                "minimum_protocol_major",
                "0..=255",
            )?,
            minimum_protocol_minor: in_range(
                f.int(2, "minimum_protocol_minor")?,
                0..=255,
                "minimum_protocol_minor",
                "0..=255",
            )?,
            extra: f.map(3, "extra")?.to_vec(),
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'a>>> {
        Ok(vec![
            ValueRef::String(self.name),
            ValueRef::Int(i64::from(self.minimum_protocol_major)),
            ValueRef::Int(i64::from(self.minimum_protocol_minor)),
            ValueRef::Map(self.extra.clone()),
        ])
    }

    pub(super) fn write(&self, f: &mut fmt::Formatter<'_>, ctx: Ctx) -> fmt::Result {
        write!(
            f,
            "unsupported({}, minimum Bolt {}",
            self.name,
            self.minimum_version()
        )?;
        if !self.extra.is_empty() {
            f.write_str(", ")?;
            write_map(f, &self.extra, ctx)?;
        }
        f.write_str(")")
    }
}

impl fmt::Display for UnsupportedType<'_> {
    /// `unsupported(UUID, minimum Bolt 6.1, {message: "…"})`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, Ctx::ANY)
    }
}
