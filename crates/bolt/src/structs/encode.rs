//! Encoding typed structures for a Bolt version.

use packstream::{
    EncodeError, EncodeOptions, Encoder, Sink, StructRef, Structure, Value, ValueRef,
};

use super::broken::BrokenReason;
use super::kind::StructKind;
use crate::version::BoltVersion;

/// Why a structure cannot be encoded for a version.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StructEncodeError {
    /// The structure does not exist in that version (e.g. Vector before 6.0, a
    /// UTC DateTime on 4.4 without the utc patch).
    #[error("{kind} does not exist in Bolt {version}")]
    NotInVersion {
        /// The structure.
        kind: StructKind,
        /// The version asked for.
        version: BoltVersion,
    },
    /// The version needs a field the value does not have (an element id from 5.0).
    #[error("{kind} needs `{field}` in Bolt {version}")]
    MissingField {
        /// The structure.
        kind: StructKind,
        /// The missing field.
        field: &'static str,
        /// The version asked for.
        version: BoltVersion,
    },
    /// The value breaks a rule of its structure (for example nanoseconds ≥ 10⁹).
    #[error("invalid {kind}: {reason}")]
    Invalid {
        /// The structure.
        kind: StructKind,
        /// What is wrong.
        reason: BrokenReason,
    },
    /// PackStream could not write it (too many items, …).
    #[error(transparent)]
    PackStream(#[from] EncodeError),
}

packstream::error_kinds! {
    StructEncodeError;
    own {
        StructEncodeError::NotInVersion { .. } => "not_in_version",
        StructEncodeError::MissingField { .. } => "missing_field",
        StructEncodeError::Invalid { .. } => "broken_struct",
    }
    wrapped {
        StructEncodeError::PackStream(e) => e.kind(),
    }
}

impl StructEncodeError {
    /// Always `None`: encoding errors are about the caller's value, not about bytes.
    #[must_use]
    pub const fn offset(&self) -> Option<u64> {
        None
    }
}

pub(super) fn check_version(
    kind: StructKind,
    version: BoltVersion,
) -> Result<(), StructEncodeError> {
    if kind.is_valid_in(version) {
        Ok(())
    } else {
        Err(StructEncodeError::NotInVersion { kind, version })
    }
}

/// A typed Bolt structure that can be encoded for a given version.
///
/// Implemented by [`BoltStruct`](super::BoltStruct) and every type it holds.
/// [`EncodeStruct::to_struct_ref`] is the one required method; the others write its
/// result. Encoding fails, rather than writing something the peer would not accept,
/// when the structure does not exist in the version or a field the version needs is
/// missing. A [`Broken`](super::Broken) value is written back unchanged, whatever the
/// version.
///
/// ```
/// use bolt::structs::{Date, EncodeStruct, StructEncodeError, Vector};
/// use bolt::BoltVersion;
/// use packstream::Encoder;
///
/// let mut out = Vec::new();
/// Date::from_ymd(2007, 12, 3).unwrap().encode(&mut Encoder::new(&mut out), BoltVersion::V5_0)?;
/// assert_eq!(out, [0xB1, 0x44, 0xC9, 0x36, 0x1A]);
///
/// let v = Vector::from_slice(&[1i8, -1]);
/// assert_eq!(v.to_bytes(BoltVersion::V6_0)?, [0xB2, 0x56, 0xCC, 0x01, 0xC8, 0xCC, 0x02, 0x01, 0xFF]);
/// assert!(matches!(v.to_bytes(BoltVersion::V5_8), Err(StructEncodeError::NotInVersion { .. })));
/// # Ok::<(), StructEncodeError>(())
/// ```
pub trait EncodeStruct {
    /// The structure as a borrowed PackStream structure for `version`.
    ///
    /// # Errors
    /// [`StructEncodeError::NotInVersion`], [`StructEncodeError::MissingField`] or
    /// [`StructEncodeError::Invalid`].
    fn to_struct_ref(&self, version: BoltVersion) -> Result<StructRef<'_>, StructEncodeError>;

    /// Writes the structure with `encoder`.
    ///
    /// # Errors
    /// As [`EncodeStruct::to_struct_ref`], plus PackStream errors. Nothing is written
    /// on a version or validity error.
    fn encode<B: Sink>(
        &self,
        encoder: &mut Encoder<B>,
        version: BoltVersion,
    ) -> Result<(), StructEncodeError>
    where
        Self: Sized,
    {
        let s = self.to_struct_ref(version)?;
        encoder.write_value_ref(&ValueRef::Struct(s))?;
        Ok(())
    }

    /// The structure as an owned [`Structure`] (for example for query parameters).
    ///
    /// # Errors
    /// As [`EncodeStruct::to_struct_ref`].
    fn to_structure(&self, version: BoltVersion) -> Result<Structure, StructEncodeError> {
        let s = self.to_struct_ref(version)?;
        Ok(Structure::new(
            s.tag,
            s.fields.iter().map(ValueRef::to_owned_value).collect(),
        ))
    }

    /// The structure as an owned [`Value::Struct`].
    ///
    /// # Errors
    /// As [`EncodeStruct::to_struct_ref`].
    fn to_value(&self, version: BoltVersion) -> Result<Value, StructEncodeError> {
        self.to_structure(version).map(Value::Struct)
    }

    /// The structure's PackStream bytes (smallest markers; UUIDs inside are written
    /// only when the version has them).
    ///
    /// # Errors
    /// As [`EncodeStruct::encode`].
    fn to_bytes(&self, version: BoltVersion) -> Result<Vec<u8>, StructEncodeError>
    where
        Self: Sized,
    {
        let mut out = Vec::new();
        let opts = EncodeOptions {
            uuid: version.has_uuid(),
            ..EncodeOptions::default()
        };
        self.encode(&mut Encoder::with_options(&mut out, opts), version)?;
        Ok(out)
    }
}
