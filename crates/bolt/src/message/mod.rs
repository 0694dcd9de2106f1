//! Bolt messages: every request and response as a typed value, for every version
//! (docs/protocol.md §5).
//!
//! A message is one PackStream structure whose tag (the *signature*) names it and whose
//! fields depend on the negotiated [`BoltVersion`]. This module turns the de-chunked
//! bytes of one message into a [`Request`] or [`Response`] and back.
//!
//! * **Borrowed.** Decoded messages borrow from the message bytes: strings are `&'a str`,
//!   values [`packstream::ValueRef<'a>`], and the `extra` / parameter / metadata maps
//!   [`Dict<'a>`] (ordered, every entry kept, duplicates too). Built messages borrow the
//!   caller's data the same way; [`IntoValueRef`] converts scalars, strings and owned
//!   [`packstream::Value`]s for the builders (`Run::new(q).param("x", 1)`).
//! * **Version-aware in one place.** [`RequestKind`] (with [`BoltVersion`]'s queries)
//!   decides which request a signature means and its field count: `3F` is PULL_ALL in
//!   Bolt 3 and PULL from 4.0, RUN has 2 fields in Bolt 1/2 and 3 from Bolt 3, ROUTE's
//!   third field is a string in 4.3 and a dict from 4.4, HELLO is INIT before Bolt 3…
//!   A message that does not exist in the version, or has the wrong field count, is an
//!   error naming the message, version and counts.
//! * **Only the outermost structure is a message.** TELEMETRY (`54`) shares its byte with
//!   the Time structure and PULL (`3F`) with UnsupportedType; structures inside fields
//!   are values and left to [`crate::structs`].
//! * **Typed accessors, no data loss.** Each message has accessors for its well-known
//!   keys (`run.db()`, `success.has_more()`, `failure.gql_status()`, …) and keeps its
//!   dicts whole, so unknown keys survive and re-encoding reproduces the bytes (the
//!   official Python driver's client messages are reproduced exactly).
//! * **RECORDs are lazy** ([`Record`]): the field count is known at once, the fields are
//!   decoded on demand, and [`MessageCodec::decode_records`] /
//!   [`MessageCodec::feed_records`] handle a whole PULL response per call.
//! * **Errors** ([`MessageError`]) carry the byte offset in the message and what was
//!   expected; encoding misuse is a separate [`MessageEncodeError`].
//!
//! # Example: a client's side of a query
//!
//! ```
//! use bolt::chunk::{Chunker, Dechunker};
//! use bolt::message::{MessageCodec, Pull, Request, Response, Run, Summary};
//! use bolt::BoltVersion;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let version = BoltVersion::V5_8;
//! let chunker = Chunker::default();
//!
//! // Encode and frame RUN + PULL.
//! let mut to_server = Vec::new();
//! Request::Run(Run::new("UNWIND range(1, $n) AS x RETURN x").param("n", 3))
//!     .encode_framed(version, &chunker, &mut to_server)?;
//! Request::Pull(Pull::new(1000)).encode_framed(version, &chunker, &mut to_server)?;
//!
//! // The server's reply, as it would arrive from the socket.
//! let reply = b"\x00\x0D\xB1\x70\xA1\x86fields\x91\x81x\x00\x00\
//!               \x00\x04\xB1\x71\x91\x01\x00\x00\
//!               \x00\x04\xB1\x71\x91\x02\x00\x00\
//!               \x00\x04\xB1\x71\x91\x03\x00\x00\
//!               \x00\x0A\xB1\x70\xA1\x84type\x81r\x00\x00";
//!
//! let codec = MessageCodec::new(version);
//! let mut dechunker = Dechunker::new();
//! let batch = dechunker.feed_batch(reply);
//!
//! // The RUN's SUCCESS...
//! let Response::Success(run) = codec.decode_response(batch.get(0).unwrap().bytes())? else {
//!     panic!("expected SUCCESS")
//! };
//! assert_eq!(run.fields(), Some(vec!["x"]));
//!
//! // ...then all RECORDs and the PULL's summary in one call.
//! let pulled = codec.decode_batch_records(&batch, 1);
//! let rows: Vec<i64> = pulled
//!     .records()
//!     .iter()
//!     .map(|r| r.fields().map(|f| f[0].as_int().unwrap_or(0)))
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(rows, [1, 2, 3]);
//! let Some(Summary::Success(done)) = pulled.summary() else { panic!("expected SUCCESS") };
//! assert_eq!(done.query_type(), Some("r"));
//! assert!(!done.has_more());
//! # Ok(())
//! # }
//! ```

mod batch;
mod dict;
mod error;
mod failure;
mod pull;
mod query;
mod record;
mod request;
mod response;
mod route;
mod setup;
mod wire;

use packstream::{DecodeLimits, DecodeOptions, EncodeOptions, Sink};

use crate::chunk::Chunker;
use crate::version::BoltVersion;

pub use batch::{MessageSource, RecordBatch};
pub use dict::{Dict, Entries, IntoValueRef};
pub use error::{BatchError, MessageEncodeError, MessageError};
pub use failure::{Failure, GqlError};
pub use pull::{Discard, Pull};
pub use query::{Begin, Run, Telemetry, TelemetryApi};
pub use record::{Record, RecordIter};
pub use request::{Request, RequestKind};
pub use response::{QueryStats, Response, ResponseKind, RoutingTable, Success, Summary};
pub use route::Route;
pub use setup::{BoltAgent, Hello, Init, Logon};

/// The signature (structure tag) of every message (docs/protocol.md §5.1).
///
/// Some bytes have two meanings: `01` is INIT (Bolt 1/2) and HELLO (v3+); `2F` / `3F`
/// are DISCARD_ALL / PULL_ALL (Bolt 1–3) and DISCARD / PULL (v4.0+). Value structures
/// reuse some of these bytes (Time `54`, UnsupportedType `3F`); only the outermost
/// structure of a message is read as a message.
pub mod signature {
    /// INIT (Bolt 1/2).
    pub const INIT: u8 = 0x01;
    /// HELLO (v3+).
    pub const HELLO: u8 = 0x01;
    /// GOODBYE (v3+).
    pub const GOODBYE: u8 = 0x02;
    /// ACK_FAILURE (Bolt 1/2).
    pub const ACK_FAILURE: u8 = 0x0E;
    /// RESET.
    pub const RESET: u8 = 0x0F;
    /// RUN.
    pub const RUN: u8 = 0x10;
    /// BEGIN (v3+).
    pub const BEGIN: u8 = 0x11;
    /// COMMIT (v3+).
    pub const COMMIT: u8 = 0x12;
    /// ROLLBACK (v3+).
    pub const ROLLBACK: u8 = 0x13;
    /// DISCARD (v4.0+) and DISCARD_ALL (Bolt 1–3).
    pub const DISCARD: u8 = 0x2F;
    /// PULL (v4.0+) and PULL_ALL (Bolt 1–3).
    pub const PULL: u8 = 0x3F;
    /// TELEMETRY (v5.4+).
    pub const TELEMETRY: u8 = 0x54;
    /// ROUTE (v4.3+).
    pub const ROUTE: u8 = 0x66;
    /// LOGON (v5.1+).
    pub const LOGON: u8 = 0x6A;
    /// LOGOFF (v5.1+).
    pub const LOGOFF: u8 = 0x6B;
    /// SUCCESS.
    pub const SUCCESS: u8 = 0x70;
    /// RECORD.
    pub const RECORD: u8 = 0x71;
    /// IGNORED.
    pub const IGNORED: u8 = 0x7E;
    /// FAILURE.
    pub const FAILURE: u8 = 0x7F;
}

/// The PackStream decode options `version` needs: default limits, UUIDs (PackStream
/// v2) from 6.1 ([`BoltVersion::has_uuid`]).
fn decode_options(version: BoltVersion) -> DecodeOptions {
    DecodeOptions::default().with_uuid(version.has_uuid())
}

/// The PackStream encode options `version` needs.
fn encode_options(version: BoltVersion) -> EncodeOptions {
    EncodeOptions {
        legacy_structs: false,
        uuid: version.has_uuid(),
    }
}

/// A negotiated version plus PackStream options: decodes and encodes messages.
///
/// [`Request::decode`] and friends use `MessageCodec::new(version)`; build one yourself
/// to set [`DecodeLimits`] (for example a smaller nesting depth for untrusted peers)
/// or to accept the legacy `DC`/`DD` structure markers.
///
/// ```
/// use bolt::message::{MessageCodec, MessageError, Request};
/// use bolt::BoltVersion;
/// use packstream::{DecodeLimits, ErrorKind};
///
/// let codec = MessageCodec::new(BoltVersion::V5_8)
///     .with_limits(DecodeLimits { max_depth: 3, ..DecodeLimits::default() });
/// // RUN "" {"p": [[[]]]} {}: the message structure, the map and three lists
/// let bytes = b"\xB3\x10\x80\xA1\x81p\x91\x91\x90\xA0";
/// let Err(MessageError::PackStream(e)) = codec.decode_request(bytes) else { panic!() };
/// assert_eq!((e.kind(), e.offset()), (ErrorKind::LimitExceeded, 7)); // the 4th level
/// assert!(Request::decode(bytes, BoltVersion::V5_8).is_ok()); // default limits
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MessageCodec {
    version: BoltVersion,
    decode: DecodeOptions,
    encode: EncodeOptions,
}

impl MessageCodec {
    /// A codec for `version` with default limits, UUIDs enabled from 6.1.
    #[must_use]
    pub fn new(version: BoltVersion) -> Self {
        MessageCodec {
            version,
            decode: decode_options(version),
            encode: encode_options(version),
        }
    }

    /// This codec with other decode limits.
    #[must_use]
    pub fn with_limits(mut self, limits: DecodeLimits) -> Self {
        self.decode.limits = limits;
        self
    }

    /// This codec accepting (decode) and writing (encode, above 15 fields) the legacy
    /// `DC`/`DD` structure markers.
    #[must_use]
    pub fn with_legacy_structs(mut self, on: bool) -> Self {
        self.decode.legacy_structs = on;
        self.encode.legacy_structs = on;
        self
    }

    /// The version.
    #[must_use]
    pub fn version(&self) -> BoltVersion {
        self.version
    }

    /// The PackStream decode options.
    #[must_use]
    pub fn decode_options(&self) -> DecodeOptions {
        self.decode
    }

    /// The PackStream encode options.
    #[must_use]
    pub fn encode_options(&self) -> EncodeOptions {
        self.encode
    }

    /// Decodes one request; see [`Request::decode`].
    ///
    /// # Errors
    ///
    /// Any [`MessageError`].
    pub fn decode_request<'a>(&self, bytes: &'a [u8]) -> Result<Request<'a>, MessageError> {
        request::decode(bytes, self.version, self.decode)
    }

    /// Decodes one response; see [`Response::decode`].
    ///
    /// # Errors
    ///
    /// Any [`MessageError`].
    pub fn decode_response<'a>(&self, bytes: &'a [u8]) -> Result<Response<'a>, MessageError> {
        response::decode(bytes, self.version, self.decode)
    }

    /// Encodes a request; see [`Request::encode`].
    ///
    /// # Errors
    ///
    /// As [`Request::encode`].
    pub fn encode_request<B: Sink>(
        &self,
        request: &Request<'_>,
        out: &mut B,
    ) -> Result<(), MessageEncodeError> {
        request::encode(request, self.version, self.encode, out)
    }

    /// Encodes a response; see [`Response::encode`].
    ///
    /// # Errors
    ///
    /// As [`Response::encode`].
    pub fn encode_response<B: Sink>(
        &self,
        response: &Response<'_>,
        out: &mut B,
    ) -> Result<(), MessageEncodeError> {
        response::encode(response, self.encode, out)
    }
}

/// The buffers messages are encoded and framed into: `packstream`'s one output-buffer
/// trait (`Vec<u8>`, [`bytes::BytesMut`], or a `&mut` of either), under the name this
/// module has always used.
pub use packstream::Sink as FrameSink;

/// Encodes with `write` straight into `out` between the chunker's start and finish;
/// rolls `out` back on error.
fn framed<S: FrameSink>(
    chunker: &Chunker,
    out: &mut S,
    write: impl FnOnce(&mut S) -> Result<(), MessageEncodeError>,
) -> Result<usize, MessageEncodeError> {
    let start = chunker.start_message(out);
    if let Err(e) = write(out) {
        out.truncate_to(start.position());
        return Err(e);
    }
    match chunker.finish_message(out, start) {
        Ok(n) => Ok(n),
        Err(e) => {
            out.truncate_to(start.position());
            Err(e.into())
        }
    }
}

/// Helpers for the unit tests of this module.
#[cfg(test)]
mod testing {
    /// Bytes from hex written as in docs/protocol.md (`"B1 3F A1 81 6E FF"`).
    pub(crate) use test_support::hex;
}
