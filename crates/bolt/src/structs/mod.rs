//! Bolt value structures: the version-aware meaning of PackStream structures
//! (docs/protocol.md §2).
//!
//! PackStream gives a structure only a tag and fields; Bolt says, per protocol version,
//! which tags are values and what their fields mean. [`BoltStruct::from_struct`] reads a
//! [`StructRef`] for a [`BoltVersion`] into a typed, borrowed value, and the
//! [`EncodeStruct`] trait writes typed values back for a version.
//!
//! * graph: [`Node`], [`Relationship`], [`UnboundRelationship`], [`Path`] (with
//!   [`Path::segments`]);
//! * temporal: [`Date`], [`Time`], [`LocalTime`], [`DateTime`], [`DateTimeZoneId`],
//!   [`LegacyDateTime`], [`LegacyDateTimeZoneId`], [`LocalDateTime`], [`Duration`],
//!   with calendar conversions and ISO-8601-like `Display` (no time-zone database);
//! * spatial: [`Point2D`], [`Point3D`];
//! * Bolt 6.0: [`Vector`] and [`UnsupportedType`];
//! * anything else: [`Broken`], which carries the tag, the fields and a
//!   [`BrokenReason`]. Reading never fails and never ends the stream: an unknown tag,
//!   a tag the version does not carry, a wrong field count or a field of the wrong type
//!   or range all give `Broken`.
//!
//! Which version carries what is decided by [`StructKind`] from [`BoltVersion`]'s
//! queries only. UUIDs (Bolt 6.1) are not structures but a PackStream marker: the
//! `packstream` decoder reads them when `DecodeOptions::uuid` is on (turn it on
//! when [`BoltVersion::has_uuid`]); [`DisplayValue`] shows them as `uuid("…")`.
//!
//! # Example
//!
//! ```
//! use bolt::structs::{BoltStruct, Date, EncodeStruct};
//! use bolt::BoltVersion;
//! use packstream::ValueRef;
//!
//! // A RECORD's field list: [date 2007-12-03, point(7203, 1.0, 2.0)].
//! let bytes = [
//!     0x92, 0xB1, 0x44, 0xC9, 0x36, 0x1A, 0xB3, 0x58, 0xC9, 0x1C, 0x23, 0xC1, 0x3F, 0xF0, 0, 0,
//!     0, 0, 0, 0, 0xC1, 0x40, 0, 0, 0, 0, 0, 0, 0,
//! ];
//! let fields = ValueRef::decode_exact(&bytes).unwrap();
//! let version = BoltVersion::V5_8;
//! let values: Vec<BoltStruct<'_>> = fields
//!     .as_list()
//!     .unwrap()
//!     .iter()
//!     .filter_map(|v| BoltStruct::from_value(v, version))
//!     .collect();
//! assert_eq!(values[0], BoltStruct::Date(Date::from_ymd(2007, 12, 3).unwrap()));
//! assert_eq!(values[0].to_string(), r#"date("2007-12-03")"#);
//! assert_eq!(values[1].to_string(), "point({srid: 7203, x: 1.0, y: 2.0})");
//!
//! // Encoding writes the same bytes back.
//! assert_eq!(values[0].to_bytes(version).unwrap(), bytes[1..6]);
//! ```

use core::fmt;

use packstream::{StructRef, ValueRef};

mod broken;
mod display;
mod encode;
mod fields;
mod graph;
mod kind;
mod spatial;
mod temporal;
mod unsupported;
mod vector;

pub use broken::{Broken, BrokenReason};
pub use display::DisplayValue;
pub use encode::{EncodeStruct, StructEncodeError};
pub use graph::{Node, Path, Relationship, Segment, Segments, UnboundRelationship};
pub use kind::StructKind;
pub use spatial::{
    Point2D, Point3D, SRID_CARTESIAN_2D, SRID_CARTESIAN_3D, SRID_WGS84_2D, SRID_WGS84_3D,
};
pub use temporal::{
    Date, DateTime, DateTimeZoneId, Duration, LegacyDateTime, LegacyDateTimeZoneId, LocalDateTime,
    LocalTime, Time, NANOS_PER_DAY, NANOS_PER_SECOND, SECONDS_PER_DAY,
};
pub use unsupported::UnsupportedType;
pub use vector::{Vector, VectorElement, VectorElements, VectorIter, VectorType};

use display::Ctx;
use encode::check_version;
use fields::Fields;

use crate::version::BoltVersion;

/// A Bolt value structure read for one protocol version.
///
/// Strings, byte arrays and nested values borrow from the decoded input (`'a`).
/// Nested values that are not part of the structure's own shape — node and
/// relationship properties, UnsupportedType's `extra` — stay [`ValueRef`]s; run
/// [`BoltStruct::from_value`] on them to interpret structures inside.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum BoltStruct<'a> {
    /// Node `4E`.
    Node(Node<'a>),
    /// Relationship `52`.
    Relationship(Relationship<'a>),
    /// UnboundRelationship `72` (normally only inside a Path).
    UnboundRelationship(UnboundRelationship<'a>),
    /// Path `50`.
    Path(Path<'a>),
    /// Date `44`.
    Date(Date),
    /// Time `54`.
    Time(Time),
    /// LocalTime `74`.
    LocalTime(LocalTime),
    /// UTC-based DateTime `49`.
    DateTime(DateTime),
    /// UTC-based DateTimeZoneId `69`.
    DateTimeZoneId(DateTimeZoneId<'a>),
    /// Legacy DateTime `46`.
    LegacyDateTime(LegacyDateTime),
    /// Legacy DateTimeZoneId `66`.
    LegacyDateTimeZoneId(LegacyDateTimeZoneId<'a>),
    /// LocalDateTime `64`.
    LocalDateTime(LocalDateTime),
    /// Duration `45`.
    Duration(Duration),
    /// Point2D `58`.
    Point2D(Point2D),
    /// Point3D `59`.
    Point3D(Point3D),
    /// Vector `56` (6.0+).
    Vector(Vector<'a>),
    /// UnsupportedType `3F` (6.0+).
    Unsupported(UnsupportedType<'a>),
    /// Anything that is not a valid value structure in the version.
    Broken(Broken<'a>),
}

impl<'a> BoltStruct<'a> {
    /// Reads `s` as a value structure of `version`. Never fails: what cannot be read
    /// becomes [`BoltStruct::Broken`] with everything it carried.
    ///
    /// ```
    /// use bolt::structs::{BoltStruct, BrokenReason};
    /// use bolt::BoltVersion;
    /// use packstream::{StructRef, ValueRef};
    ///
    /// let date = StructRef { tag: 0x44, fields: vec![ValueRef::Int(13850)] };
    /// assert!(matches!(BoltStruct::from_struct(&date, BoltVersion::V4_4), BoltStruct::Date(_)));
    ///
    /// let wrong = StructRef { tag: 0x44, fields: vec![ValueRef::String("2007-12-03")] };
    /// let BoltStruct::Broken(b) = BoltStruct::from_struct(&wrong, BoltVersion::V4_4) else { panic!() };
    /// assert_eq!(b.reason.to_string(), "field `days` must be an integer, found string");
    ///
    /// let unknown = StructRef { tag: 0x5A, fields: vec![] };
    /// let BoltStruct::Broken(b) = BoltStruct::from_struct(&unknown, BoltVersion::V4_4) else { panic!() };
    /// assert_eq!(b.reason, BrokenReason::UnknownTag);
    /// ```
    #[must_use]
    pub fn from_struct(s: &StructRef<'a>, version: BoltVersion) -> Self {
        let broken = |reason| BoltStruct::Broken(Broken::new(s.tag, s.fields.clone(), reason));
        let Some(kind) = StructKind::from_tag(s.tag) else {
            return broken(BrokenReason::UnknownTag);
        };
        if !kind.is_valid_in(version) {
            return broken(BrokenReason::NotInVersion { version });
        }
        let f = match Fields(&s.fields).expect(kind.field_count(version)) {
            Ok(f) => f,
            Err(reason) => return broken(reason),
        };
        let parsed = match kind {
            StructKind::Node => Node::from_fields(f, version).map(BoltStruct::Node),
            StructKind::Relationship => {
                Relationship::from_fields(f, version).map(BoltStruct::Relationship)
            }
            StructKind::UnboundRelationship => {
                UnboundRelationship::from_fields(f, version).map(BoltStruct::UnboundRelationship)
            }
            StructKind::Path => Path::from_fields(f, version).map(BoltStruct::Path),
            StructKind::Date => Date::from_fields(f).map(BoltStruct::Date),
            StructKind::Time => Time::from_fields(f).map(BoltStruct::Time),
            StructKind::LocalTime => LocalTime::from_fields(f).map(BoltStruct::LocalTime),
            StructKind::DateTime => DateTime::from_fields(f).map(BoltStruct::DateTime),
            StructKind::DateTimeZoneId => {
                DateTimeZoneId::from_fields(f).map(BoltStruct::DateTimeZoneId)
            }
            StructKind::LegacyDateTime => {
                LegacyDateTime::from_fields(f).map(BoltStruct::LegacyDateTime)
            }
            StructKind::LegacyDateTimeZoneId => {
                LegacyDateTimeZoneId::from_fields(f).map(BoltStruct::LegacyDateTimeZoneId)
            }
            StructKind::LocalDateTime => {
                LocalDateTime::from_fields(f).map(BoltStruct::LocalDateTime)
            }
            StructKind::Duration => Duration::from_fields(f).map(BoltStruct::Duration),
            StructKind::Point2D => Point2D::from_fields(f).map(BoltStruct::Point2D),
            StructKind::Point3D => Point3D::from_fields(f).map(BoltStruct::Point3D),
            StructKind::Vector => Vector::from_fields(f).map(BoltStruct::Vector),
            StructKind::UnsupportedType => {
                UnsupportedType::from_fields(f).map(BoltStruct::Unsupported)
            }
        };
        parsed.unwrap_or_else(broken)
    }

    /// [`BoltStruct::from_struct`] if `value` is a structure, else `None`.
    #[must_use]
    pub fn from_value(value: &ValueRef<'a>, version: BoltVersion) -> Option<Self> {
        value.as_struct().map(|s| Self::from_struct(s, version))
    }

    /// Reads `s` under whichever version makes it valid, preferring the newest rules
    /// (Bolt 6.1, then 4.4 without the utc patch for the 3-field graph structures and
    /// the legacy DateTimes). For inspection tools that do not know the version; a
    /// connection must use [`BoltStruct::from_struct`].
    ///
    /// ```
    /// use bolt::structs::BoltStruct;
    /// use packstream::{StructRef, ValueRef};
    /// let legacy = StructRef { tag: 0x46, fields: vec![ValueRef::Int(8100), ValueRef::Int(42), ValueRef::Int(3600)] };
    /// assert_eq!(
    ///     BoltStruct::from_struct_any_version(&legacy).to_string(),
    ///     r#"datetime("1970-01-01T02:15:00.000000042+01:00")"#
    /// );
    /// ```
    #[must_use]
    pub fn from_struct_any_version(s: &StructRef<'a>) -> Self {
        let modern = Self::from_struct(s, BoltVersion::V6_1);
        if !modern.is_broken() {
            return modern;
        }
        let legacy = Self::from_struct(s, BoltVersion::V4_4);
        match &modern {
            BoltStruct::Broken(b)
                if !legacy.is_broken()
                    || matches!(
                        b.reason,
                        BrokenReason::NotInVersion { .. } | BrokenReason::FieldCount { .. }
                    ) =>
            {
                legacy
            }
            _ => modern,
        }
    }

    /// The structure's kind; for a broken value the kind its tag names, if any.
    #[must_use]
    pub fn kind(&self) -> Option<StructKind> {
        Some(match self {
            BoltStruct::Node(_) => StructKind::Node,
            BoltStruct::Relationship(_) => StructKind::Relationship,
            BoltStruct::UnboundRelationship(_) => StructKind::UnboundRelationship,
            BoltStruct::Path(_) => StructKind::Path,
            BoltStruct::Date(_) => StructKind::Date,
            BoltStruct::Time(_) => StructKind::Time,
            BoltStruct::LocalTime(_) => StructKind::LocalTime,
            BoltStruct::DateTime(_) => StructKind::DateTime,
            BoltStruct::DateTimeZoneId(_) => StructKind::DateTimeZoneId,
            BoltStruct::LegacyDateTime(_) => StructKind::LegacyDateTime,
            BoltStruct::LegacyDateTimeZoneId(_) => StructKind::LegacyDateTimeZoneId,
            BoltStruct::LocalDateTime(_) => StructKind::LocalDateTime,
            BoltStruct::Duration(_) => StructKind::Duration,
            BoltStruct::Point2D(_) => StructKind::Point2D,
            BoltStruct::Point3D(_) => StructKind::Point3D,
            BoltStruct::Vector(_) => StructKind::Vector,
            BoltStruct::Unsupported(_) => StructKind::UnsupportedType,
            BoltStruct::Broken(b) => return b.kind(),
        })
    }

    /// The structure tag it is written with.
    #[must_use]
    pub fn tag(&self) -> u8 {
        match self {
            BoltStruct::Broken(b) => b.tag,
            other => other.kind().map_or(0, StructKind::tag),
        }
    }

    /// Whether this is [`BoltStruct::Broken`].
    #[must_use]
    pub fn is_broken(&self) -> bool {
        matches!(self, BoltStruct::Broken(_))
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, ctx: Ctx) -> fmt::Result {
        match self {
            BoltStruct::Node(n) => n.write(f, ctx),
            BoltStruct::Relationship(r) => r.write(f, ctx),
            BoltStruct::UnboundRelationship(r) => r.write(f, ctx),
            BoltStruct::Path(p) => p.write(f, ctx),
            BoltStruct::Date(d) => write!(f, "date(\"{d}\")"),
            BoltStruct::Time(t) => write!(f, "time(\"{t}\")"),
            BoltStruct::LocalTime(t) => write!(f, "localtime(\"{t}\")"),
            BoltStruct::DateTime(t) => write!(f, "datetime(\"{t}\")"),
            BoltStruct::DateTimeZoneId(t) => write!(f, "datetime(\"{t}\")"),
            BoltStruct::LegacyDateTime(t) => write!(f, "datetime(\"{t}\")"),
            BoltStruct::LegacyDateTimeZoneId(t) => write!(f, "datetime(\"{t}\")"),
            BoltStruct::LocalDateTime(t) => write!(f, "localdatetime(\"{t}\")"),
            BoltStruct::Duration(d) => write!(f, "duration(\"{d}\")"),
            BoltStruct::Point2D(p) => write!(f, "{p}"),
            BoltStruct::Point3D(p) => write!(f, "{p}"),
            BoltStruct::Vector(v) => write!(f, "{v}"),
            BoltStruct::Unsupported(u) => u.write(f, ctx),
            BoltStruct::Broken(b) => b.write(f, ctx),
        }
    }
}

impl fmt::Display for BoltStruct<'_> {
    /// A readable, Cypher-like form for logs and inspection tools:
    ///
    /// | value | rendering |
    /// |---|---|
    /// | Node | `(:Person {name: "Alice"})` (`{:#}` adds `#id`) |
    /// | Relationship, UnboundRelationship | `[:KNOWS {since: 2020}]` |
    /// | Path | `(:A)-[:KNOWS]->(:B)<-[:EMPLOYS]-(:C)` |
    /// | Date, Time, LocalTime | `date("2024-01-31")`, `time("12:34:56.000000789+01:00")`, `localtime("12:34:56")` |
    /// | DateTime (both forms) | `datetime("2024-02-29T12:34:56.123456789+01:00")` |
    /// | DateTimeZoneId | `datetime("2024-02-29T11:34:56Z[Europe/Stockholm]")` (UTC instant) |
    /// | Legacy DateTimeZoneId | `datetime("2024-02-29T12:34:56[Europe/Stockholm]")` (local time) |
    /// | LocalDateTime, Duration | `localdatetime("…")`, `duration("P1Y2M3DT4H5M6.7S")` |
    /// | Point2D, Point3D | `point({srid: 7203, x: 1.0, y: 2.0})` |
    /// | Vector | `vector<f32>[1.0, 2.0]` |
    /// | UnsupportedType | `unsupported(UUID, minimum Bolt 6.1, {message: "…"})` |
    /// | Broken | `broken(Node 0x4E [1, []]: expected 4 fields, found 2)` |
    ///
    /// Structures nested in properties are interpreted with
    /// [`BoltStruct::from_struct_any_version`]; see [`DisplayValue`] for values.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, Ctx::ANY)
    }
}

impl EncodeStruct for BoltStruct<'_> {
    fn to_struct_ref(&self, version: BoltVersion) -> Result<StructRef<'_>, StructEncodeError> {
        match self {
            BoltStruct::Node(v) => v.to_struct_ref(version),
            BoltStruct::Relationship(v) => v.to_struct_ref(version),
            BoltStruct::UnboundRelationship(v) => v.to_struct_ref(version),
            BoltStruct::Path(v) => v.to_struct_ref(version),
            BoltStruct::Date(v) => v.to_struct_ref(version),
            BoltStruct::Time(v) => v.to_struct_ref(version),
            BoltStruct::LocalTime(v) => v.to_struct_ref(version),
            BoltStruct::DateTime(v) => v.to_struct_ref(version),
            BoltStruct::DateTimeZoneId(v) => v.to_struct_ref(version),
            BoltStruct::LegacyDateTime(v) => v.to_struct_ref(version),
            BoltStruct::LegacyDateTimeZoneId(v) => v.to_struct_ref(version),
            BoltStruct::LocalDateTime(v) => v.to_struct_ref(version),
            BoltStruct::Duration(v) => v.to_struct_ref(version),
            BoltStruct::Point2D(v) => v.to_struct_ref(version),
            BoltStruct::Point3D(v) => v.to_struct_ref(version),
            BoltStruct::Vector(v) => v.to_struct_ref(version),
            BoltStruct::Unsupported(v) => v.to_struct_ref(version),
            BoltStruct::Broken(b) => Ok(StructRef {
                tag: b.tag,
                fields: b.fields.clone(),
            }),
        }
    }
}

macro_rules! encode_plain {
    ($($ty:ty => $kind:ident),* $(,)?) => {$(
        impl EncodeStruct for $ty {
            fn to_struct_ref(
                &self,
                version: BoltVersion,
            ) -> Result<StructRef<'_>, StructEncodeError> {
                let kind = StructKind::$kind;
                check_version(kind, version)?;
                let fields = self
                    .encode_fields()
                    .map_err(|reason| StructEncodeError::Invalid { kind, reason })?;
                Ok(StructRef { tag: kind.tag(), fields })
            }
        }
    )*};
}
encode_plain!(
    Date => Date,
    Time => Time,
    LocalTime => LocalTime,
    DateTime => DateTime,
    DateTimeZoneId<'_> => DateTimeZoneId,
    LegacyDateTime => LegacyDateTime,
    LegacyDateTimeZoneId<'_> => LegacyDateTimeZoneId,
    LocalDateTime => LocalDateTime,
    Duration => Duration,
    Point2D => Point2D,
    Point3D => Point3D,
    Vector<'_> => Vector,
    UnsupportedType<'_> => UnsupportedType,
);

macro_rules! from_variant {
    ($($ty:ty => $variant:ident),* $(,)?) => {$(
        impl<'a> From<$ty> for BoltStruct<'a> {
            fn from(v: $ty) -> Self {
                BoltStruct::$variant(v)
            }
        }
    )*};
}
from_variant!(
    Node<'a> => Node,
    Relationship<'a> => Relationship,
    UnboundRelationship<'a> => UnboundRelationship,
    Path<'a> => Path,
    Date => Date,
    Time => Time,
    LocalTime => LocalTime,
    DateTime => DateTime,
    DateTimeZoneId<'a> => DateTimeZoneId,
    LegacyDateTime => LegacyDateTime,
    LegacyDateTimeZoneId<'a> => LegacyDateTimeZoneId,
    LocalDateTime => LocalDateTime,
    Duration => Duration,
    Point2D => Point2D,
    Point3D => Point3D,
    Vector<'a> => Vector,
    UnsupportedType<'a> => Unsupported,
    Broken<'a> => Broken,
);

impl DateTime {
    /// This instant in the form `version` uses: itself where UTC datetimes are in
    /// effect ([`BoltVersion::utc_datetime`]), else the equivalent [`LegacyDateTime`].
    /// `None` only if the legacy seconds overflow. Handy for query parameters.
    ///
    /// ```
    /// use bolt::structs::{BoltStruct, DateTime};
    /// use bolt::BoltVersion;
    /// let dt = DateTime { seconds: 4500, nanoseconds: 42, tz_offset_seconds: 3600 };
    /// assert!(matches!(dt.for_version(BoltVersion::V5_0), Some(BoltStruct::DateTime(_))));
    /// let Some(BoltStruct::LegacyDateTime(l)) = dt.for_version(BoltVersion::V4_4) else { panic!() };
    /// assert_eq!(l.seconds, 8100);
    /// ```
    #[must_use]
    pub fn for_version(self, version: BoltVersion) -> Option<BoltStruct<'static>> {
        if version.utc_datetime() {
            Some(BoltStruct::DateTime(self))
        } else {
            self.to_legacy().map(BoltStruct::LegacyDateTime)
        }
    }
}
