//! The table of Bolt value structures: tag, name, field count and the versions that
//! carry each (docs/protocol.md §2.1). Every version-dependent answer comes from
//! [`BoltVersion`]'s queries.

use core::fmt;

use crate::version::BoltVersion;

/// The kind of a Bolt value structure, independent of any version.
///
/// ```
/// use bolt::structs::StructKind;
/// use bolt::BoltVersion;
///
/// let kind = StructKind::from_tag(0x4E).unwrap();
/// assert_eq!(kind, StructKind::Node);
/// assert_eq!(kind.field_count(BoltVersion::V4_4), 3);
/// assert_eq!(kind.field_count(BoltVersion::V5_0), 4);
///
/// // The legacy DateTime exists only while UTC datetimes are not in effect.
/// assert!(StructKind::LegacyDateTime.is_valid_in(BoltVersion::V4_4));
/// assert!(!StructKind::LegacyDateTime.is_valid_in(BoltVersion::V4_4.with_utc_patch(true)));
/// assert!(!StructKind::Vector.is_valid_in(BoltVersion::V5_8));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StructKind {
    /// Node, `4E` (`N`).
    Node,
    /// Relationship, `52` (`R`).
    Relationship,
    /// UnboundRelationship, `72` (`r`); appears inside a Path.
    UnboundRelationship,
    /// Path, `50` (`P`).
    Path,
    /// Date, `44` (`D`).
    Date,
    /// Time with offset, `54` (`T`).
    Time,
    /// LocalTime, `74` (`t`).
    LocalTime,
    /// UTC-based DateTime with offset, `49` (`I`).
    DateTime,
    /// UTC-based DateTime with zone id, `69` (`i`).
    DateTimeZoneId,
    /// Legacy (local-seconds) DateTime with offset, `46` (`F`).
    LegacyDateTime,
    /// Legacy (local-seconds) DateTime with zone id, `66` (`f`).
    LegacyDateTimeZoneId,
    /// LocalDateTime, `64` (`d`).
    LocalDateTime,
    /// Duration, `45` (`E`).
    Duration,
    /// Two-dimensional point, `58` (`X`).
    Point2D,
    /// Three-dimensional point, `59` (`Y`).
    Point3D,
    /// Vector, `56` (`V`), Bolt 6.0+.
    Vector,
    /// UnsupportedType, `3F` (`?`), Bolt 6.0+.
    UnsupportedType,
}

impl StructKind {
    /// Every kind, in the order of docs/protocol.md §2.1.
    pub const ALL: [StructKind; 17] = [
        StructKind::Node,
        StructKind::Relationship,
        StructKind::UnboundRelationship,
        StructKind::Path,
        StructKind::Date,
        StructKind::Time,
        StructKind::LocalTime,
        StructKind::DateTime,
        StructKind::DateTimeZoneId,
        StructKind::LegacyDateTime,
        StructKind::LegacyDateTimeZoneId,
        StructKind::LocalDateTime,
        StructKind::Duration,
        StructKind::Point2D,
        StructKind::Point3D,
        StructKind::Vector,
        StructKind::UnsupportedType,
    ];

    /// The structure tag (signature byte).
    #[must_use]
    pub const fn tag(self) -> u8 {
        match self {
            StructKind::Node => 0x4E,
            StructKind::Relationship => 0x52,
            StructKind::UnboundRelationship => 0x72,
            StructKind::Path => 0x50,
            StructKind::Date => 0x44,
            StructKind::Time => 0x54,
            StructKind::LocalTime => 0x74,
            StructKind::DateTime => 0x49,
            StructKind::DateTimeZoneId => 0x69,
            StructKind::LegacyDateTime => 0x46,
            StructKind::LegacyDateTimeZoneId => 0x66,
            StructKind::LocalDateTime => 0x64,
            StructKind::Duration => 0x45,
            StructKind::Point2D => 0x58,
            StructKind::Point3D => 0x59,
            StructKind::Vector => 0x56,
            StructKind::UnsupportedType => 0x3F,
        }
    }

    /// The kind a tag names in *some* Bolt version, or `None` for a tag no version
    /// defines as a value. Whether it is valid in a given version is
    /// [`StructKind::is_valid_in`].
    #[must_use]
    pub const fn from_tag(tag: u8) -> Option<Self> {
        Some(match tag {
            0x4E => StructKind::Node,
            0x52 => StructKind::Relationship,
            0x72 => StructKind::UnboundRelationship,
            0x50 => StructKind::Path,
            0x44 => StructKind::Date,
            0x54 => StructKind::Time,
            0x74 => StructKind::LocalTime,
            0x49 => StructKind::DateTime,
            0x69 => StructKind::DateTimeZoneId,
            0x46 => StructKind::LegacyDateTime,
            0x66 => StructKind::LegacyDateTimeZoneId,
            0x64 => StructKind::LocalDateTime,
            0x45 => StructKind::Duration,
            0x58 => StructKind::Point2D,
            0x59 => StructKind::Point3D,
            0x56 => StructKind::Vector,
            0x3F => StructKind::UnsupportedType,
            _ => return None,
        })
    }

    /// The name used in messages and by [`fmt::Display`], e.g. `"DateTimeZoneId"`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            StructKind::Node => "Node",
            StructKind::Relationship => "Relationship",
            StructKind::UnboundRelationship => "UnboundRelationship",
            StructKind::Path => "Path",
            StructKind::Date => "Date",
            StructKind::Time => "Time",
            StructKind::LocalTime => "LocalTime",
            StructKind::DateTime => "DateTime",
            StructKind::DateTimeZoneId => "DateTimeZoneId",
            StructKind::LegacyDateTime => "LegacyDateTime",
            StructKind::LegacyDateTimeZoneId => "LegacyDateTimeZoneId",
            StructKind::LocalDateTime => "LocalDateTime",
            StructKind::Duration => "Duration",
            StructKind::Point2D => "Point2D",
            StructKind::Point3D => "Point3D",
            StructKind::Vector => "Vector",
            StructKind::UnsupportedType => "UnsupportedType",
        }
    }

    /// Whether this structure exists in `version` (docs/protocol.md §2.1, §2.9):
    ///
    /// * graph structures: every version;
    /// * temporal and spatial: v2+ ([`BoltVersion::has_temporal_spatial`]);
    /// * `49`/`69` only when [`BoltVersion::utc_datetime`], `46`/`66` only when not;
    /// * Vector: [`BoltVersion::has_vector`]; UnsupportedType:
    ///   [`BoltVersion::has_unsupported_type`].
    #[must_use]
    pub const fn is_valid_in(self, version: BoltVersion) -> bool {
        match self {
            StructKind::Node
            | StructKind::Relationship
            | StructKind::UnboundRelationship
            | StructKind::Path => true,
            StructKind::DateTime | StructKind::DateTimeZoneId => {
                version.has_temporal_spatial() && version.utc_datetime()
            }
            StructKind::LegacyDateTime | StructKind::LegacyDateTimeZoneId => {
                version.has_temporal_spatial() && !version.utc_datetime()
            }
            StructKind::Date
            | StructKind::Time
            | StructKind::LocalTime
            | StructKind::LocalDateTime
            | StructKind::Duration
            | StructKind::Point2D
            | StructKind::Point3D => version.has_temporal_spatial(),
            StructKind::Vector => version.has_vector(),
            StructKind::UnsupportedType => version.has_unsupported_type(),
        }
    }

    /// The number of fields this structure has in `version`. Only the graph structures
    /// depend on the version ([`BoltVersion::node_field_count`] and friends).
    #[must_use]
    pub const fn field_count(self, version: BoltVersion) -> usize {
        let n = match self {
            StructKind::Node => version.node_field_count(),
            StructKind::Relationship => version.relationship_field_count(),
            StructKind::UnboundRelationship => version.unbound_relationship_field_count(),
            StructKind::Path => 3,
            StructKind::Date | StructKind::LocalTime => 1,
            StructKind::Time | StructKind::LocalDateTime | StructKind::Vector => 2,
            StructKind::DateTime
            | StructKind::DateTimeZoneId
            | StructKind::LegacyDateTime
            | StructKind::LegacyDateTimeZoneId
            | StructKind::Point2D => 3,
            StructKind::Duration | StructKind::Point3D | StructKind::UnsupportedType => 4,
        };
        n as usize
    }
}

impl fmt::Display for StructKind {
    /// Writes [`StructKind::name`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_and_are_unique() {
        for kind in StructKind::ALL {
            assert_eq!(StructKind::from_tag(kind.tag()), Some(kind));
        }
        let known = (0..=255u8)
            .filter(|t| StructKind::from_tag(*t).is_some())
            .count();
        assert_eq!(known, StructKind::ALL.len());
    }

    #[test]
    fn validity_table() {
        use BoltVersion as V;
        let utc44 = V::V4_4.with_utc_patch(true);
        let b1 = V::new(1, 0);
        assert!(StructKind::Node.is_valid_in(b1));
        assert!(!StructKind::Date.is_valid_in(b1));
        assert!(!StructKind::LegacyDateTime.is_valid_in(b1));
        assert!(StructKind::Date.is_valid_in(V::new(2, 0)));
        assert!(StructKind::LegacyDateTime.is_valid_in(V::V4_4));
        assert!(!StructKind::DateTime.is_valid_in(V::V4_4));
        assert!(StructKind::DateTime.is_valid_in(utc44));
        assert!(StructKind::DateTimeZoneId.is_valid_in(V::V4_3.with_utc_patch(true)));
        assert!(!StructKind::LegacyDateTimeZoneId.is_valid_in(utc44));
        assert!(!StructKind::LegacyDateTime.is_valid_in(V::V5_0));
        assert!(!StructKind::Vector.is_valid_in(V::V5_8));
        assert!(StructKind::Vector.is_valid_in(V::V6_0));
        assert!(!StructKind::UnsupportedType.is_valid_in(V::V5_8));
        assert!(StructKind::UnsupportedType.is_valid_in(V::V6_1));
        assert_eq!(StructKind::Relationship.field_count(V::V4_4), 5);
        assert_eq!(StructKind::Relationship.field_count(V::V5_0), 8);
        assert_eq!(StructKind::UnboundRelationship.field_count(V::V5_0), 4);
        assert_eq!(StructKind::Point3D.to_string(), "Point3D");
    }
}
