//! The errors of this crate.

use arrow_schema::{ArrowError, DataType};
use bolt::message::{BatchError, MessageError};

/// Why a batch could not be decoded. Every variant that concerns a record names it by
/// its index in the batch and gives byte offsets.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A record's bytes are not valid (malformed PackStream, bytes after the field
    /// list, exceeded limits).
    #[error("record {record}{}: {source}", at_stream(*stream_offset))]
    Record {
        /// The record's index in the batch.
        record: usize,
        /// Stream offset of the record message's first chunk header, when the bytes
        /// came through a [`PullDecoder`](crate::PullDecoder).
        stream_offset: Option<u64>,
        /// What went wrong, with the byte offset inside the message.
        source: MessageError,
    },
    /// A record has another number of fields than the result has columns.
    #[error("record {record}{}: {found} fields, but the result has {expected} columns", at_stream(*stream_offset))]
    FieldCount {
        /// The record's index in the batch.
        record: usize,
        /// Stream offset of the record message, when known.
        stream_offset: Option<u64>,
        /// The number of columns.
        expected: usize,
        /// The number of fields in the record.
        found: usize,
    },
    /// A value does not fit the type its column was given by the first batch (or by
    /// [`ArrowDecoder::with_schema`](crate::ArrowDecoder::with_schema)); see the crate
    /// documentation, "Batches after the first".
    #[error(
        "record {record}{}, column `{column}`, message byte {offset}: a {found} does not fit the column's type {expected} (fixed by the first batch; give the whole result at once, or the schema)",
        at_stream(*stream_offset)
    )]
    TypeChanged {
        /// The record's index in the batch.
        record: usize,
        /// Stream offset of the record message, when known.
        stream_offset: Option<u64>,
        /// The column's name.
        column: String,
        /// Byte offset of the field inside the record message.
        offset: usize,
        /// The column's Arrow type.
        expected: DataType,
        /// What the value is.
        found: &'static str,
    },
    /// One batch holds more than Arrow's 32-bit offsets can address (2 GiB of string or
    /// byte data in a column, or 2^31 list items): decode smaller batches.
    #[error("record {record}, column `{column}`: the batch is too large for 32-bit Arrow offsets; decode fewer records at a time")]
    TooLarge {
        /// The record that did not fit.
        record: usize,
        /// The column's name.
        column: String,
    },
    /// The schema given does not match the result or holds a type this crate does not
    /// write.
    #[error("schema: {0}")]
    Schema(String),
    /// The chunk stream or a message that is not a record failed to decode.
    #[error("{0}")]
    Stream(#[from] BatchError),
    /// The server answered with FAILURE.
    #[error("server FAILURE {code}: {message}")]
    Failure {
        /// The Neo4j status code.
        code: String,
        /// The server's message.
        message: String,
    },
    /// A response that does not belong in a PULL response (IGNORED, or any message
    /// after the final summary).
    #[error("{0}")]
    Protocol(String),
    /// Assembling the Arrow arrays failed: a schema given with
    /// [`ArrowDecoder::with_schema`](crate::ArrowDecoder::with_schema) declares a field
    /// non-nullable and a value is null; with an inferred schema this is a bug (report
    /// it).
    #[error("arrow: {0}")]
    Arrow(#[from] ArrowError),
}

fn at_stream(offset: Option<u64>) -> String {
    offset.map_or_else(String::new, |o| format!(" (stream byte {o})"))
}

impl Error {
    /// The byte offset the error points at: inside the record message for
    /// [`Error::Record`] and [`Error::TypeChanged`], in the stream for
    /// [`Error::Stream`]; `None` for the others ([`Error::stream_offset`] says where the
    /// record concerned starts, when known).
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Record { source, .. } => Some(source.offset() as u64),
            Error::TypeChanged { offset, .. } => Some(*offset as u64),
            Error::Stream(e) => e.offset(),
            _ => None,
        }
    }

    /// The stream offset of the record message concerned, when known.
    #[must_use]
    pub fn stream_offset(&self) -> Option<u64> {
        match self {
            Error::Record { stream_offset, .. }
            | Error::FieldCount { stream_offset, .. }
            | Error::TypeChanged { stream_offset, .. } => *stream_offset,
            Error::Stream(e) => e.offset(),
            _ => None,
        }
    }
}

packstream::error_kinds! {
    Error;
    own {
        Error::FieldCount { .. } => "field_count",
        Error::TypeChanged { .. } => "type_changed",
        Error::TooLarge { .. } => "too_large",
        Error::Schema(_) => "schema",
        Error::Failure { .. } => "failure",
        Error::Protocol(_) => "protocol",
        Error::Arrow(_) => "arrow",
    }
    wrapped {
        Error::Record { source, .. } => source.kind(),
        Error::Stream(e) => e.kind(),
    }
}
