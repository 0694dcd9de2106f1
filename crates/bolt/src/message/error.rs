//! Errors of the message layer: [`MessageError`] for decoding (always with the byte
//! offset inside the message and what was expected) and [`MessageEncodeError`] for
//! encoding (misuse: a message or field the negotiated version cannot carry).

use crate::chunk::{ChunkError, DechunkError};
use crate::version::BoltVersion;

/// A message that could not be decoded.
///
/// Every variant carries `offset`: the byte position **inside the message** (the
/// de-chunked bytes, so `0` is the structure marker) where the problem was found. For a
/// message that came out of a [`Dechunker`](crate::chunk::Dechunker), add nothing to it:
/// the dechunker reports where the message started in the stream
/// ([`Message::offset`](crate::chunk::Message::offset)), and batch errors
/// ([`BatchError`]) carry both.
///
/// ```
/// use bolt::message::{MessageError, Request};
/// use bolt::BoltVersion;
///
/// // RUN with two fields is Bolt 1/2; Bolt 4.4 wants three.
/// let err = Request::decode(&[0xB2, 0x10, 0x80, 0xA0], BoltVersion::V4_4).unwrap_err();
/// assert_eq!(
///     err,
///     MessageError::FieldCount {
///         offset: 0,
///         message: "RUN",
///         version: BoltVersion::V4_4,
///         expected: 3,
///         found: 2,
///     }
/// );
/// assert_eq!(err.to_string(), "message byte 0: RUN in Bolt 4.4 has 3 fields, found 2");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MessageError {
    /// The bytes are not valid PackStream (or exceed the decode limits). The wrapped
    /// error's offset is the byte position inside the message.
    #[error("invalid PackStream in message: {0}")]
    PackStream(#[from] packstream::Error),
    /// The message does not start with a structure marker (`B0`…`BF`).
    #[error("message byte {offset}: expected a message structure, found {found}")]
    NotAStructure {
        /// Byte position of the value found instead (always 0).
        offset: usize,
        /// The type of that value.
        found: &'static str,
    },
    /// The structure's signature (tag) names no message of this direction.
    #[error("message byte {offset}: unknown {direction} message signature {signature:#04X}")]
    UnknownSignature {
        /// Byte position of the structure marker (always 0).
        offset: usize,
        /// `"request"` or `"response"`.
        direction: &'static str,
        /// The signature byte.
        signature: u8,
    },
    /// The signature names a message that does not exist in the negotiated version
    /// (for example LOGON before 5.1, ACK_FAILURE after 2, TELEMETRY before 5.4).
    #[error("message byte {offset}: {message} does not exist in Bolt {version}")]
    NotInVersion {
        /// Byte position of the structure marker (always 0).
        offset: usize,
        /// The message's name.
        message: &'static str,
        /// The negotiated version.
        version: BoltVersion,
    },
    /// The structure has the wrong number of fields for this message in this version.
    #[error(
        "message byte {offset}: {message} in Bolt {version} has {expected} field{}, found {found}",
        if *.expected == 1 { "" } else { "s" }
    )]
    FieldCount {
        /// Byte position of the structure marker (always 0).
        offset: usize,
        /// The message's name.
        message: &'static str,
        /// The negotiated version.
        version: BoltVersion,
        /// The field count this version defines.
        expected: u8,
        /// The field count of the structure.
        found: u32,
    },
    /// A field holds a value of the wrong type (for example a RUN query that is not a
    /// string, or a PULL `extra` that is not a map).
    #[error("message byte {offset}: {message} field `{field}` must be {expected}, found {found}")]
    FieldType {
        /// Byte position of the field's marker.
        offset: usize,
        /// The message's name.
        message: &'static str,
        /// The field's name.
        field: &'static str,
        /// What the field must hold.
        expected: &'static str,
        /// The type found.
        found: &'static str,
    },
    /// Bytes follow the end of the message's structure.
    #[error("message byte {offset}: {count} trailing byte(s) after the {message} message")]
    TrailingBytes {
        /// Byte position of the first trailing byte.
        offset: usize,
        /// How many bytes follow the structure.
        count: usize,
        /// The message's name.
        message: &'static str,
    },
}

packstream::error_kinds! {
    MessageError;
    own {
        MessageError::NotAStructure { .. } => "not_a_structure",
        MessageError::UnknownSignature { .. } => "unknown_signature",
        MessageError::NotInVersion { .. } => "not_in_version",
        MessageError::FieldCount { .. } => "field_count",
        MessageError::FieldType { .. } => "field_type",
        MessageError::TrailingBytes { .. } => "trailing_bytes",
    }
    wrapped {
        MessageError::PackStream(e) => e.kind().as_str(),
    }
}

impl MessageError {
    /// The byte position inside the message where the problem was found.
    ///
    /// ```
    /// use bolt::message::Response;
    /// use bolt::BoltVersion;
    /// // SUCCESS whose metadata is an integer
    /// let err = Response::decode(&[0xB1, 0x70, 0x01], BoltVersion::V5_8).unwrap_err();
    /// assert_eq!(err.offset(), 2);
    /// ```
    #[must_use]
    pub fn offset(&self) -> usize {
        match self {
            MessageError::PackStream(e) => e.offset(),
            MessageError::NotAStructure { offset, .. }
            | MessageError::UnknownSignature { offset, .. }
            | MessageError::NotInVersion { offset, .. }
            | MessageError::FieldCount { offset, .. }
            | MessageError::FieldType { offset, .. }
            | MessageError::TrailingBytes { offset, .. } => *offset,
        }
    }

    /// What was expected at [`MessageError::offset`], in a few words.
    #[must_use]
    pub fn expected(&self) -> &'static str {
        match self {
            MessageError::PackStream(e) => e.expected(),
            MessageError::NotAStructure { .. } => "a message structure",
            MessageError::UnknownSignature { .. } => "a known message signature",
            MessageError::NotInVersion { .. } => "a message of the negotiated version",
            MessageError::FieldCount { .. } => "the field count of the negotiated version",
            MessageError::FieldType { expected, .. } => expected,
            MessageError::TrailingBytes { .. } => "the end of the message",
        }
    }

    /// The same error with its offset moved by `base` bytes (for a message that was
    /// decoded from a slice of a larger buffer).
    #[must_use]
    pub fn shifted(self, base: usize) -> Self {
        let mut e = self;
        match &mut e {
            MessageError::PackStream(p) => *p = p.shifted(base),
            MessageError::NotAStructure { offset, .. }
            | MessageError::UnknownSignature { offset, .. }
            | MessageError::NotInVersion { offset, .. }
            | MessageError::FieldCount { offset, .. }
            | MessageError::FieldType { offset, .. }
            | MessageError::TrailingBytes { offset, .. } => {
                *offset = offset.saturating_add(base);
            }
        }
        e
    }
}

/// A message that cannot be encoded for the chosen version. These are caller mistakes,
/// kept apart from [`MessageError`] (which is about untrusted input).
///
/// ```
/// use bolt::message::{MessageEncodeError, Request};
/// use bolt::BoltVersion;
///
/// let err = Request::Logoff.to_vec(BoltVersion::V5_0).unwrap_err();
/// assert_eq!(
///     err,
///     MessageEncodeError::NotInVersion { message: "LOGOFF", version: BoltVersion::V5_0 }
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MessageEncodeError {
    /// The message does not exist in this version (for example PULL_ALL in 4.0+, LOGON
    /// before 5.1).
    #[error("{message} does not exist in Bolt {version}")]
    NotInVersion {
        /// The message's name.
        message: &'static str,
        /// The version asked for.
        version: BoltVersion,
    },
    /// A field's content cannot be expressed in this version's form of the message (for
    /// example a non-empty RUN `extra` in Bolt 1/2, or ROUTE `imp_user` in 4.3).
    #[error("{message} in Bolt {version} cannot carry {what}")]
    Unrepresentable {
        /// The message's name.
        message: &'static str,
        /// The version asked for.
        version: BoltVersion,
        /// What cannot be carried.
        what: &'static str,
    },
    /// A value cannot be written as PackStream (too large, a structure of more than 15
    /// fields, or a UUID before Bolt 6.1).
    #[error("cannot encode value: {0}")]
    PackStream(#[from] packstream::EncodeError),
    /// Framing failed (never happens for a well-formed message; kept for completeness).
    #[error("cannot frame message: {0}")]
    Chunk(#[from] ChunkError),
}

packstream::error_kinds! {
    MessageEncodeError;
    own {
        MessageEncodeError::NotInVersion { .. } => "not_in_version",
        MessageEncodeError::Unrepresentable { .. } => "unrepresentable",
    }
    wrapped {
        MessageEncodeError::PackStream(e) => e.kind(),
        MessageEncodeError::Chunk(e) => e.kind(),
    }
}

impl MessageEncodeError {
    /// Always `None`: encoding errors are about the caller's message, not about bytes.
    #[must_use]
    pub const fn offset(&self) -> Option<u64> {
        None
    }
}

/// An error met while decoding a batch of messages
/// ([`MessageCodec::decode_records`](super::MessageCodec::decode_records) and friends).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// Message number `index` of the batch did not decode.
    #[error("message {index} of the batch{}: {source}", fmt_stream_offset(*.stream_offset))]
    Message {
        /// Position of the message in the list of messages given (or in the
        /// dechunker's batch).
        index: usize,
        /// Stream offset of the message's first chunk header, when the messages came
        /// from a [`Dechunker`](crate::chunk::Dechunker).
        stream_offset: Option<u64>,
        /// What went wrong, with the offset inside the message.
        source: MessageError,
    },
    /// The chunk stream itself is broken (the dechunker is poisoned); reported after the
    /// messages that were complete before the error.
    #[error("{0}")]
    Dechunk(#[from] DechunkError),
}

packstream::error_kinds! {
    BatchError;
    own {}
    wrapped {
        BatchError::Message { source, .. } => source.kind(),
        BatchError::Dechunk(e) => e.kind(),
    }
}

impl BatchError {
    /// A stream offset, counted like [`DechunkError::offset`]: for `Dechunk`, where the
    /// framing broke; for `Message`, where the message that did not decode starts (its
    /// first chunk header), or `None` when the messages did not come from a
    /// [`Dechunker`](crate::chunk::Dechunker). The position inside that message is
    /// [`MessageError::offset`] of the `source`.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match self {
            BatchError::Message { stream_offset, .. } => *stream_offset,
            BatchError::Dechunk(e) => Some(e.offset()),
        }
    }
}

fn fmt_stream_offset(offset: Option<u64>) -> String {
    offset.map_or_else(String::new, |o| format!(" (stream offset {o})"))
}
