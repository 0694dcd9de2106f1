//! Decode and encode errors.
//!
//! A decode error carries a small `Copy` [`ErrorKind`], the byte offset where it was found,
//! and a short description of what was expected there. [`ErrorKind::UnexpectedEnd`] is a
//! category of its own: the bytes seen so far are a valid *prefix*, so a streaming caller
//! should wait for more input rather than give up.

use core::fmt;

/// What went wrong while decoding.
///
/// The names match the `error` strings of `tests/vectors/packstream.json`
/// (see [`ErrorKind::as_str`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The input ended before the value did; more bytes may complete it.
    UnexpectedEnd,
    /// A reserved marker byte (including `E0` without PackStream v2, and `DC`/`DD`
    /// without legacy structures enabled).
    ReservedMarker,
    /// A string was not valid UTF-8.
    InvalidUtf8,
    /// A map key was not a string.
    NonStringKey,
    /// A 32-bit size above 2 147 483 647, the PackStream maximum.
    SizeTooLarge,
    /// One of the [`DecodeLimits`](crate::DecodeLimits) was exceeded.
    LimitExceeded,
    /// Bytes were left over after the one value that was expected.
    TrailingBytes,
}

impl ErrorKind {
    /// The stable snake_case name used by the test vectors and by every binding.
    ///
    /// ```
    /// assert_eq!(packstream::ErrorKind::UnexpectedEnd.as_str(), "unexpected_end");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::UnexpectedEnd => "unexpected_end",
            ErrorKind::ReservedMarker => "reserved_marker",
            ErrorKind::InvalidUtf8 => "invalid_utf8",
            ErrorKind::NonStringKey => "non_string_key",
            ErrorKind::SizeTooLarge => "size_too_large",
            ErrorKind::LimitExceeded => "limit_exceeded",
            ErrorKind::TrailingBytes => "trailing_bytes",
        }
    }

    /// Whether more input could still make the value decodable.
    pub const fn is_incomplete(self) -> bool {
        matches!(self, ErrorKind::UnexpectedEnd)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ErrorKind::UnexpectedEnd => "input ended early",
            ErrorKind::ReservedMarker => "reserved marker",
            ErrorKind::InvalidUtf8 => "invalid UTF-8",
            ErrorKind::NonStringKey => "map key is not a string",
            ErrorKind::SizeTooLarge => "size above the PackStream maximum of 2147483647",
            ErrorKind::LimitExceeded => "decode limit exceeded",
            ErrorKind::TrailingBytes => "trailing bytes after the value",
        })
    }
}

/// A decoding error: what went wrong, where, and what was expected there.
///
/// ```
/// use packstream::{ErrorKind, ValueRef};
/// let err = ValueRef::decode_exact(&[0x93, 0x01, 0xC1, 0x40]).unwrap_err();
/// assert_eq!(err.kind(), ErrorKind::UnexpectedEnd);
/// assert_eq!(err.offset(), 2); // the float's marker
/// assert!(err.is_incomplete());
/// assert_eq!(err.to_string(), "input ended early at byte 2 (expected 8 bytes of FLOAT_64)");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{kind} at byte {offset} (expected {expected})")]
pub struct Error {
    kind: ErrorKind,
    offset: usize,
    expected: &'static str,
}

impl Error {
    /// Builds an error. Decoders use this; it is public so that layers built on top
    /// (Bolt messages, bindings) can report errors in the same shape.
    pub const fn new(kind: ErrorKind, offset: usize, expected: &'static str) -> Self {
        Error {
            kind,
            offset,
            expected,
        }
    }

    /// The category of the error.
    pub const fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// Byte offset in the decoded input where the problem was found.
    pub const fn offset(&self) -> usize {
        self.offset
    }

    /// What the decoder expected at that offset.
    pub const fn expected(&self) -> &'static str {
        self.expected
    }

    /// True for [`ErrorKind::UnexpectedEnd`]: the input is a valid prefix; wait for more.
    pub const fn is_incomplete(&self) -> bool {
        self.kind.is_incomplete()
    }

    /// The same error moved by `base` bytes, for input that was a slice of a larger stream.
    #[must_use]
    pub const fn shifted(self, base: usize) -> Self {
        Error {
            offset: self.offset.saturating_add(base),
            ..self
        }
    }
}

/// An encoding error: the value cannot be written as PackStream.
///
/// ```
/// use packstream::{EncodeError, Encoder};
/// let mut out = Vec::new();
/// let err = Encoder::new(&mut out).write_struct_header(0x4E, 16).unwrap_err();
/// assert_eq!(err, EncodeError::TooManyFields(16));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// A string, byte array, list or map is longer than 2 147 483 647.
    #[error("size {0} is above the PackStream maximum of 2147483647")]
    SizeTooLarge(usize),
    /// A structure has more than 15 fields (the tiny form) and legacy structures are off.
    #[error("a structure may have at most 15 fields, got {0}")]
    TooManyFields(usize),
    /// A structure tag above 0x7F.
    #[error("structure tag {0:#04x} is above 0x7F")]
    InvalidTag(u8),
    /// A UUID was written but PackStream v2 is not enabled.
    #[error("UUID values need PackStream v2 (Bolt 6.1+)")]
    UuidNotEnabled,
    /// Produced by serde serialisation.
    #[error("{0}")]
    Message(String),
}
