//! Structures that cannot be read as the value they claim to be (docs/protocol.md §1.13,
//! §2.9).
//!
//! A broken structure does not end the stream: it is handed to the caller as a
//! [`Broken`] value carrying the tag, every field and the reason, so a driver can report
//! it for the one record field it spoils (as the official drivers do).

use core::fmt;

use packstream::ValueRef;

use super::display::{write_value, Ctx};
use super::kind::StructKind;
use crate::version::BoltVersion;

/// Why a structure could not be read as a Bolt value.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BrokenReason {
    /// No Bolt version defines a value structure with this tag.
    UnknownTag,
    /// The tag is a known value structure that the version does not carry (legacy
    /// DateTime once UTC datetimes are in effect, Vector before 6.0, …).
    NotInVersion {
        /// The version the structure was read for.
        version: BoltVersion,
    },
    /// The wrong number of fields for this structure in this version.
    FieldCount {
        /// The count the version requires.
        expected: usize,
        /// The count found.
        found: usize,
    },
    /// A field of the wrong PackStream type.
    FieldType {
        /// The field's name.
        field: &'static str,
        /// The type it must have.
        expected: &'static str,
        /// The type it had.
        found: &'static str,
    },
    /// An item of a list field had the wrong type.
    ListItemType {
        /// The list field's name.
        field: &'static str,
        /// The item's position in the list.
        index: usize,
        /// The type each item must have.
        expected: &'static str,
        /// The type it had.
        found: &'static str,
    },
    /// An integer field outside the range the protocol allows.
    OutOfRange {
        /// The field's name.
        field: &'static str,
        /// The value found.
        value: i64,
        /// The allowed range, for messages (e.g. `"0..=999999999"`).
        range: &'static str,
    },
    /// A Vector's type marker is not exactly one of the bytes `C8 C9 CA CB C6 C1`.
    VectorTypeMarker {
        /// The marker bytes found (their length is usually the problem when not 1).
        marker: Vec<u8>,
    },
    /// A Vector's data length is not a multiple of its element size.
    VectorLength {
        /// The data length in bytes.
        len: usize,
        /// The element size in bytes.
        element_size: usize,
    },
    /// A structure of another kind where the protocol requires a given one (inside a
    /// Path).
    WrongTag {
        /// The tag required.
        expected: u8,
        /// The tag found.
        found: u8,
    },
    /// A Path without any node (`nodes[0]` is the start of every path).
    PathWithoutNodes,
    /// A Path's `indices` list has an odd length.
    PathOddIndices {
        /// The length found.
        len: usize,
    },
    /// A relationship index in a Path is 0 or beyond the relationship list.
    PathRelationshipIndex {
        /// Position of the bad entry in `indices`.
        position: usize,
        /// The index found (1-based, sign = direction).
        index: i64,
        /// How many relationships the path has.
        relationships: usize,
    },
    /// A node index in a Path is negative or beyond the node list.
    PathNodeIndex {
        /// Position of the bad entry in `indices`.
        position: usize,
        /// The index found (0-based).
        index: i64,
        /// How many nodes the path has.
        nodes: usize,
    },
    /// An item of a Path's node list is not a valid Node.
    PathNode {
        /// The item's position in `nodes`.
        index: usize,
        /// What is wrong with it.
        reason: Box<BrokenReason>,
    },
    /// An item of a Path's relationship list is not a valid UnboundRelationship.
    PathRelationship {
        /// The item's position in `rels`.
        index: usize,
        /// What is wrong with it.
        reason: Box<BrokenReason>,
    },
}

impl fmt::Display for BrokenReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BrokenReason::UnknownTag => f.write_str("unknown structure tag"),
            BrokenReason::NotInVersion { version } => write!(f, "not valid in Bolt {version}"),
            BrokenReason::FieldCount { expected, found } => {
                write!(f, "expected {expected} fields, found {found}")
            }
            BrokenReason::FieldType {
                field,
                expected,
                found,
            } => write!(f, "field `{field}` must be {expected}, found {found}"),
            BrokenReason::ListItemType {
                field,
                index,
                expected,
                found,
            } => write!(f, "`{field}[{index}]` must be {expected}, found {found}"),
            BrokenReason::OutOfRange {
                field,
                value,
                range,
            } => write!(f, "field `{field}` = {value} is outside {range}"),
            BrokenReason::VectorTypeMarker { marker } => {
                f.write_str("vector type marker must be one byte of C8 C9 CA CB C6 C1, found ")?;
                if marker.is_empty() {
                    f.write_str("no bytes")
                } else {
                    f.write_str("#")?;
                    marker.iter().try_for_each(|b| write!(f, "{b:02X}"))
                }
            }
            BrokenReason::VectorLength { len, element_size } => write!(
                f,
                "vector data of {len} bytes is not a multiple of the element size {element_size}"
            ),
            BrokenReason::WrongTag { expected, found } => {
                write!(
                    f,
                    "expected structure tag {expected:#04X}, found {found:#04X}"
                )
            }
            BrokenReason::PathWithoutNodes => f.write_str("path has no nodes"),
            BrokenReason::PathOddIndices { len } => {
                write!(f, "path indices have odd length {len}")
            }
            BrokenReason::PathRelationshipIndex {
                position,
                index,
                relationships,
            } => write!(
                f,
                "path indices[{position}] = {index} is not a relationship index \
                 (±1..={relationships})"
            ),
            BrokenReason::PathNodeIndex {
                position,
                index,
                nodes,
            } => write!(
                f,
                "path indices[{position}] = {index} is not a node index (0..{nodes})"
            ),
            BrokenReason::PathNode { index, reason } => {
                write!(f, "path node {index}: {reason}")
            }
            BrokenReason::PathRelationship { index, reason } => {
                write!(f, "path relationship {index}: {reason}")
            }
        }
    }
}

impl std::error::Error for BrokenReason {}

/// A structure that could not be read as a Bolt value in the connection's version,
/// carried whole: its tag, all its fields and the reason.
///
/// Encoding a `Broken` writes the original tag and fields back unchanged, whatever the
/// version, so a proxy or inspection tool loses nothing.
///
/// ```
/// use bolt::structs::{BoltStruct, BrokenReason};
/// use bolt::BoltVersion;
/// use packstream::{StructRef, ValueRef};
///
/// // A legacy DateTime (`F`) on a Bolt 5 connection.
/// let s = StructRef { tag: 0x46, fields: vec![ValueRef::Int(8100), ValueRef::Int(42), ValueRef::Int(3600)] };
/// let BoltStruct::Broken(broken) = BoltStruct::from_struct(&s, BoltVersion::V5_0) else { panic!() };
/// assert_eq!(broken.reason, BrokenReason::NotInVersion { version: BoltVersion::V5_0 });
/// assert_eq!(broken.fields.len(), 3);
/// assert_eq!(
///     broken.to_string(),
///     "broken(LegacyDateTime 0x46 [8100, 42, 3600]: not valid in Bolt 5.0)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Broken<'a> {
    /// The structure's tag.
    pub tag: u8,
    /// Its fields, unchanged.
    pub fields: Vec<ValueRef<'a>>,
    /// Why it is broken.
    pub reason: BrokenReason,
}

impl<'a> Broken<'a> {
    /// A broken value with the given parts.
    #[must_use]
    pub fn new(tag: u8, fields: Vec<ValueRef<'a>>, reason: BrokenReason) -> Self {
        Broken {
            tag,
            fields,
            reason,
        }
    }

    /// The kind its tag names in some version, if any.
    #[must_use]
    pub fn kind(&self) -> Option<StructKind> {
        StructKind::from_tag(self.tag)
    }

    pub(super) fn write(&self, f: &mut fmt::Formatter<'_>, ctx: Ctx) -> fmt::Result {
        f.write_str("broken(")?;
        if let Some(kind) = self.kind() {
            write!(f, "{kind} ")?;
        }
        write!(f, "{:#04X} [", self.tag)?;
        for (i, v) in self.fields.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write_value(f, v, ctx)?;
        }
        write!(f, "]: {})", self.reason)
    }
}

impl fmt::Display for Broken<'_> {
    /// `broken(<kind> <tag> [<fields>]: <reason>)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, Ctx::ANY)
    }
}
