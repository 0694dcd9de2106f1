//! Decode and encode errors.
//!
//! A decode error carries a small `Copy` [`ErrorKind`], the byte offset where it was found,
//! and a short description of what was expected there. [`ErrorKind::UnexpectedEnd`] is a
//! category of its own: the bytes seen so far are a valid *prefix*, so a streaming caller
//! should wait for more input rather than give up.
//!
//! Every error type of the core crates (these two, the serde error, and all of
//! `boltcodec-bolt`'s) implements [`ErrorInfo`]: a stable snake_case kind name, shared
//! with the test vectors (`tests/vectors/README.md`, "Error kinds"), and the byte offset
//! where the problem was found. A binding maps errors to its own exceptions once,
//! generically, through that trait.

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
    /// Every kind, in declaration order.
    pub const ALL: [ErrorKind; 7] = [
        ErrorKind::UnexpectedEnd,
        ErrorKind::ReservedMarker,
        ErrorKind::InvalidUtf8,
        ErrorKind::NonStringKey,
        ErrorKind::SizeTooLarge,
        ErrorKind::LimitExceeded,
        ErrorKind::TrailingBytes,
    ];

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

/// The stable name and the position of an error: implemented by every error type of the
/// core crates, so that a binding maps all of them with one generic function.
///
/// The kind names are listed, with their meaning and what their offset counts from, in
/// `tests/vectors/README.md` ("Error kinds"); a test checks that every name any type
/// returns is in that table. An error that wraps another one of a lower layer (a
/// PackStream error inside a message, a framing error inside a connection error) has the
/// wrapped error's kind: the same condition keeps the same name.
///
/// ```
/// use packstream::{EncodeError, ErrorInfo, ValueRef};
///
/// fn describe<E: ErrorInfo>(e: &E) -> String {
///     match e.byte_offset() {
///         Some(at) => format!("{} at byte {at}", e.kind_name()),
///         None => e.kind_name().to_owned(),
///     }
/// }
/// let err = ValueRef::decode(&[0x92, 0x01, 0xC1, 0x40]).unwrap_err(); // a float cut short
/// assert_eq!(describe(&err), "unexpected_end at byte 2");
/// assert_eq!(describe(&EncodeError::UuidNotEnabled), "uuid_not_enabled");
/// ```
pub trait ErrorInfo: std::error::Error {
    /// Every kind name this type's own variants can return. Kinds of wrapped errors are
    /// not repeated here: the wrapped type lists them.
    fn kinds() -> &'static [&'static str]
    where
        Self: Sized;

    /// The stable snake_case name of what went wrong.
    fn kind_name(&self) -> &'static str;

    /// The byte offset where the problem was found, if the error has one. What it
    /// counts from (the value, the message, the stream) is documented on each type's
    /// own `offset` method.
    fn byte_offset(&self) -> Option<u64>;
}

/// Implements `kind()`, `KINDS` and [`ErrorInfo`] for an error enum from one list, so
/// that the names a type returns and the names it declares cannot drift apart.
///
/// `own` arms map variants to a literal name; `wrapped` arms delegate to the kind of a
/// wrapped error. The type must have an inherent `offset()` returning `usize`, `u64` or
/// an `Option` of one of them.
#[doc(hidden)]
#[macro_export]
macro_rules! error_kinds {
    (
        $ty:ty;
        own { $($own:pat => $name:literal),* $(,)? }
        wrapped { $($wrap:pat => $inner:expr),* $(,)? }
    ) => {
        impl $ty {
            /// Every kind name the variants of this type return themselves (wrapped
            /// errors keep their own kinds): see `tests/vectors/README.md`.
            pub const KINDS: &'static [&'static str] = &[$($name),*];

            /// The stable snake_case name of this error, shared with
            /// `tests/vectors/README.md` and every binding.
            #[must_use]
            pub fn kind(&self) -> &'static str {
                match self {
                    $($own => $name,)*
                    $($wrap => $inner,)*
                }
            }
        }

        impl $crate::ErrorInfo for $ty {
            fn kinds() -> &'static [&'static str] {
                <$ty>::KINDS
            }
            fn kind_name(&self) -> &'static str {
                self.kind()
            }
            fn byte_offset(&self) -> Option<u64> {
                $crate::IntoByteOffset::into_byte_offset(self.offset())
            }
        }
    };
}

/// The offset types of the error types' `offset()` methods, as an `Option<u64>`: used by
/// [`error_kinds!`].
#[doc(hidden)]
pub trait IntoByteOffset {
    /// The offset, widened to `u64`.
    fn into_byte_offset(self) -> Option<u64>;
}

impl IntoByteOffset for usize {
    fn into_byte_offset(self) -> Option<u64> {
        Some(self as u64)
    }
}

impl IntoByteOffset for u64 {
    fn into_byte_offset(self) -> Option<u64> {
        Some(self)
    }
}

impl<T: IntoByteOffset> IntoByteOffset for Option<T> {
    fn into_byte_offset(self) -> Option<u64> {
        self.and_then(IntoByteOffset::into_byte_offset)
    }
}

/// The names of every [`ErrorKind`], in declaration order.
const ERROR_KIND_NAMES: [&str; 7] = {
    let [a, b, c, d, e, f, g] = ErrorKind::ALL;
    [
        a.as_str(),
        b.as_str(),
        c.as_str(),
        d.as_str(),
        e.as_str(),
        f.as_str(),
        g.as_str(),
    ]
};

impl ErrorInfo for Error {
    fn kinds() -> &'static [&'static str] {
        &ERROR_KIND_NAMES
    }
    fn kind_name(&self) -> &'static str {
        self.kind.as_str()
    }
    /// Always `Some`: [`Error::offset`], counted from the first byte of the input given
    /// to the decoder.
    fn byte_offset(&self) -> Option<u64> {
        Some(self.offset as u64)
    }
}

error_kinds! {
    EncodeError;
    own {
        EncodeError::SizeTooLarge(_) => "size_too_large",
        EncodeError::TooManyFields(_) => "too_many_fields",
        EncodeError::InvalidTag(_) => "invalid_tag",
        EncodeError::UuidNotEnabled => "uuid_not_enabled",
        EncodeError::Message(_) => "serde_custom",
    }
    wrapped {}
}

impl EncodeError {
    /// Always `None`: encoding errors are about a value the caller gave, not about bytes.
    #[must_use]
    pub const fn offset(&self) -> Option<usize> {
        None
    }
}

#[cfg(feature = "serde")]
error_kinds! {
    crate::serde::ErrorDetail;
    own {
        crate::serde::ErrorDetail::Data { .. } => "type_mismatch",
    }
    wrapped {
        crate::serde::ErrorDetail::Decode(e) => e.kind().as_str(),
        crate::serde::ErrorDetail::Encode(e) => e.kind(),
    }
}

#[cfg(feature = "serde")]
impl crate::serde::Error {
    /// Every kind name the variants of this type return themselves (wrapped errors
    /// keep their own kinds): see `tests/vectors/README.md`.
    pub const KINDS: &'static [&'static str] = crate::serde::ErrorDetail::KINDS;

    /// The stable snake_case name of this error, shared with `tests/vectors/README.md`
    /// and every binding.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        self.kind_str()
    }
}

#[cfg(feature = "serde")]
impl ErrorInfo for crate::serde::Error {
    fn kinds() -> &'static [&'static str] {
        Self::KINDS
    }
    fn kind_name(&self) -> &'static str {
        self.kind()
    }
    fn byte_offset(&self) -> Option<u64> {
        IntoByteOffset::into_byte_offset(self.offset())
    }
}
