//! The Bolt version handshake, both roles, sans-IO (docs/protocol.md §3).
//!
//! Nothing here touches a socket: each role is a small state machine that takes the
//! bytes the peer sent (in pieces of any size) and says what to send back. The pure
//! parsers and encoders underneath ([`ClientHello`], [`ServerResponse`],
//! [`ManifestOffer`], [`ManifestPick`], …) are public too, for tools and tests; with the
//! `test-support` feature, so is the varint codec (`decode_varint`, `encode_varint`).
//!
//! # The exchange
//!
//! ```text
//! client                                   server
//!   60 60 B0 17  + 4 proposals (16 bytes) ->
//!                                        <- 00 00 mm MM         chosen version, or
//!                                        <- 00 00 00 00         none (server closes), or
//!                                        <- 00 00 01 FF N ranges… caps   manifest v1
//!   (manifest only) 00 00 mm MM caps     ->
//!   chunked HELLO …                      ->
//! ```
//!
//! A proposal is `00 RR mm MM`: version MM.mm and the RR minors below it
//! (docs/protocol.md §3.3), or the manifest marker `00 00 01 FF`
//! (docs/protocol.md §3.4). The manifest's counts and capabilities are unsigned LEB128
//! varints of at most [`MAX_VARINT_LEN`] (10) bytes.
//!
//! # Example: a client and a server talking to each other
//!
//! ```
//! use bolt::handshake::{ClientConfig, ClientHandshake, ServerConfig, ServerHandshake, Step};
//! use bolt::BoltVersion;
//!
//! # fn main() -> Result<(), bolt::handshake::HandshakeError> {
//! let mut client = ClientHandshake::new(ClientConfig::default()); // offers the manifest
//! let mut server = ServerHandshake::new(ServerConfig::default());
//!
//! // client -> server: magic and proposals
//! let hello = client.hello();
//! let Step::Continue { send: offer, .. } = server.receive(&hello)? else { panic!() };
//! // server -> client: the manifest offer; the client picks and answers
//! let Step::Negotiated { version, send: pick, .. } = client.receive(&offer)? else { panic!() };
//! assert_eq!(version, BoltVersion::V6_1);
//! // client -> server: the pick (a real client may append its HELLO message right away)
//! let Step::Negotiated { version: agreed, .. } = server.receive(&pick)? else { panic!() };
//! assert_eq!(agreed, version);
//! # Ok(())
//! # }
//! ```
//!
//! # Errors and partial input
//!
//! "Need more bytes" is not an error: the state machines return [`Step::NeedMore`] and the
//! pure parsers [`Status::NeedMore`]. Malformed input gives a [`HandshakeError`] naming the
//! byte offset (counted from the first byte this direction sent) and what was expected.
//! After an error a state machine is poisoned and returns the same error again.

use crate::version::BoltVersion;

mod client;
mod options;
mod server;
#[cfg(test)]
mod tests;
mod varint;
mod wire;

pub use client::{ClientConfig, ClientHandshake};
pub use options::{HandshakeOptions, VersionListError};
pub use server::{ServerConfig, ServerHandshake};
use varint::decode_varint_at;
#[cfg(not(any(test, feature = "test-support")))]
use varint::encode_varint;
/// The varint codec on its own: test support (the `test-support` feature), for property
/// tests and fuzzing; the wire types above use it.
#[cfg(any(test, feature = "test-support"))]
pub use varint::{decode_varint, encode_varint, varint_len};
pub use wire::{ClientHello, ManifestOffer, ManifestPick, Proposal, ServerResponse, VersionRange};

/// The 4 bytes every Bolt client sends first (docs/protocol.md §3.2).
pub const MAGIC: [u8; 4] = [0x60, 0x60, 0xB0, 0x17];

/// The proposal slot (and server reply) announcing handshake manifest v1: two reserved
/// zero bytes, manifest version `01`, marker `FF` (docs/protocol.md §3.4).
pub const MANIFEST_V1: [u8; 4] = [0x00, 0x00, 0x01, 0xFF];

/// The "no version" slot filler and the server's "nothing in common" reply.
pub const NO_VERSION: [u8; 4] = [0; 4];

/// Length of the client's opening bytes: magic plus four 4-byte proposals.
pub const CLIENT_HELLO_LEN: usize = 20;

/// The longest accepted varint: 10 bytes carry 64 bits (docs/protocol.md §3.4).
pub const MAX_VARINT_LEN: usize = 10;

/// The most version ranges accepted in a manifest offer. Real servers send about four;
/// the cap bounds the memory a hostile server can make a client hold.
pub const MAX_MANIFEST_RANGES: usize = 256;

/// The 4-byte reply that an HTTP server starts with (`"HTTP"`).
const HTTP: [u8; 4] = *b"HTTP";

/// The longest server reply the client buffers: marker, count, ranges, capabilities.
const MAX_SERVER_RESPONSE_LEN: usize =
    4 + MAX_VARINT_LEN + 4 * MAX_MANIFEST_RANGES + MAX_VARINT_LEN;

/// The longest manifest pick: version plus capabilities.
const MAX_PICK_LEN: usize = 4 + MAX_VARINT_LEN;

/// Result of a parser that may need more input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status<T> {
    /// Parsed; the value (and, where the type says so, the bytes consumed).
    Complete(T),
    /// The input ends before the item does. Call again with more bytes.
    NeedMore,
}

/// A malformed handshake. Offsets count bytes from the start of the sending side's stream
/// (the client's magic is byte 0 of the client stream, the server's first reply byte is
/// byte 0 of the server stream).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HandshakeError {
    /// The client did not start with `60 60 B0 17`.
    #[error("byte {offset}: expected Bolt magic byte {expected:#04x}, found {found:#04x}")]
    BadMagic {
        /// Offset of the wrong byte.
        offset: usize,
        /// The magic byte expected there.
        expected: u8,
        /// The byte found.
        found: u8,
    },
    /// The server answered `"HTTP"`: this port speaks HTTP, not Bolt.
    #[error("byte {offset}: expected a 4-byte Bolt version reply, found \"HTTP\" (an HTTP port?)")]
    HttpResponse {
        /// Offset of the reply.
        offset: usize,
    },
    /// A version field that is not `00 00 minor major`.
    #[error("byte {offset}: expected a version \"00 00 minor major\", found {found:02x?}")]
    MalformedVersion {
        /// Offset of the 4 bytes.
        offset: usize,
        /// The 4 bytes found.
        found: [u8; 4],
    },
    /// A manifest marker with a manifest version other than 1.
    #[error("byte {offset}: expected handshake manifest version 1, found version {version}")]
    UnknownManifestVersion {
        /// Offset of the 4-byte marker.
        offset: usize,
        /// The manifest version found.
        version: u8,
    },
    /// The server answered with a manifest although the client did not offer one.
    #[error(
        "byte {offset}: the server replied with a handshake manifest the client did not offer"
    )]
    ManifestNotOffered {
        /// Offset of the marker.
        offset: usize,
    },
    /// A varint whose 10th byte still has the continuation bit set.
    #[error("byte {offset}: varint longer than {MAX_VARINT_LEN} bytes")]
    VarintTooLong {
        /// Offset of the 10th byte.
        offset: usize,
    },
    /// A 10-byte varint whose value does not fit in 64 bits.
    #[error("byte {offset}: varint value does not fit in 64 bits")]
    VarintOverflow {
        /// Offset of the 10th byte.
        offset: usize,
    },
    /// A manifest offer that announces more ranges than [`MAX_MANIFEST_RANGES`].
    #[error(
        "byte {offset}: manifest announces {count} version ranges, at most {max} are accepted"
    )]
    TooManyRanges {
        /// Offset of the count varint.
        offset: usize,
        /// The announced count.
        count: u64,
        /// The accepted maximum.
        max: usize,
    },
    /// The peer chose a version that was not offered to it.
    #[error("byte {offset}: expected one of the offered versions, the peer chose {version}")]
    VersionNotOffered {
        /// Offset of the version.
        offset: usize,
        /// The version chosen.
        version: BoltVersion,
    },
    /// The server chose a version the client offered in a range but does not implement
    /// (for example 5.5 inside an offered 5.8–5.0 range).
    #[error("byte {offset}: the server chose {version}, which this client does not support")]
    UnsupportedVersion {
        /// Offset of the version.
        offset: usize,
        /// The version chosen.
        version: BoltVersion,
    },
    /// The client selected capability bits the server did not offer.
    #[error("byte {offset}: expected capabilities within {offered:#x}, the client selected {selected:#x}")]
    CapabilitiesNotOffered {
        /// Offset of the capabilities varint.
        offset: usize,
        /// The bits selected.
        selected: u64,
        /// The bits offered.
        offered: u64,
    },
    /// `receive` was called after the handshake had finished.
    #[error(
        "the handshake has already finished; the remaining bytes belong to the message stream"
    )]
    Finished,
}

packstream::error_kinds! {
    HandshakeError;
    own {
        HandshakeError::BadMagic { .. } => "bad_magic",
        HandshakeError::HttpResponse { .. } => "http_response",
        HandshakeError::MalformedVersion { .. } => "malformed_version",
        HandshakeError::UnknownManifestVersion { .. } => "unknown_manifest_version",
        HandshakeError::ManifestNotOffered { .. } => "manifest_not_offered",
        HandshakeError::VarintTooLong { .. } => "varint_too_long",
        HandshakeError::VarintOverflow { .. } => "varint_overflow",
        HandshakeError::TooManyRanges { .. } => "too_many_ranges",
        HandshakeError::VersionNotOffered { .. } => "version_not_offered",
        HandshakeError::UnsupportedVersion { .. } => "unsupported_version",
        HandshakeError::CapabilitiesNotOffered { .. } => "capabilities_not_offered",
        HandshakeError::Finished => "handshake_finished",
    }
    wrapped {}
}

impl HandshakeError {
    /// Where the error was found, counted from the first byte of the sending side's
    /// handshake stream (the client's magic, or the server's first reply byte); `None`
    /// for `Finished`, which is a misuse rather than a fault in bytes.
    #[must_use]
    pub const fn offset(&self) -> Option<usize> {
        match *self {
            HandshakeError::BadMagic { offset, .. }
            | HandshakeError::HttpResponse { offset }
            | HandshakeError::MalformedVersion { offset, .. }
            | HandshakeError::UnknownManifestVersion { offset, .. }
            | HandshakeError::ManifestNotOffered { offset }
            | HandshakeError::VarintTooLong { offset }
            | HandshakeError::VarintOverflow { offset }
            | HandshakeError::TooManyRanges { offset, .. }
            | HandshakeError::VersionNotOffered { offset, .. }
            | HandshakeError::UnsupportedVersion { offset, .. }
            | HandshakeError::CapabilitiesNotOffered { offset, .. } => Some(offset),
            HandshakeError::Finished => None,
        }
    }
}

/// What a handshake state machine wants next. Returned by [`ClientHandshake::receive`]
/// and [`ServerHandshake::receive`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum Step {
    /// Every byte given was buffered; call `receive` again when more arrive.
    NeedMore,
    /// Send `send` to the peer and keep feeding its bytes (the server after offering a
    /// manifest). `input[consumed..]` was not used and must be fed again.
    Continue {
        /// Bytes to send.
        send: Vec<u8>,
        /// How many bytes of the last input the handshake used.
        consumed: usize,
    },
    /// The handshake is complete. Send `send` (possibly empty: the client's manifest
    /// pick); `input[consumed..]` already belongs to the message stream.
    Negotiated {
        /// The agreed version, with the agreed capability bits.
        version: BoltVersion,
        /// Bytes to send (may be empty).
        send: Vec<u8>,
        /// How many bytes of the last input the handshake used.
        consumed: usize,
    },
    /// Nothing in common. Send `send` (possibly empty), then close the connection.
    Rejected {
        /// Bytes to send (may be empty).
        send: Vec<u8>,
        /// How many bytes of the last input the handshake used.
        consumed: usize,
    },
}

/// Keeps versions this crate knows, newest first, without duplicates (by number).
fn normalize(versions: &[BoltVersion]) -> Vec<BoltVersion> {
    let mut out: Vec<BoltVersion> = versions.iter().copied().filter(|v| v.is_known()).collect();
    out.sort_by(|a, b| b.cmp(a));
    out.dedup_by(|a, b| a.same_number(*b));
    out
}

/// What both state machines keep alike between calls: the bytes received so far in the
/// current phase, and the error that poisoned the handshake.
#[derive(Clone, Debug, Default)]
struct Received {
    buf: Vec<u8>,
    error: Option<HandshakeError>,
}

/// A parser of one phase's bytes: the item and how many bytes it took, or "need more".
type Parse<T> = fn(&[u8]) -> Result<Status<(T, usize)>, HandshakeError>;

impl Received {
    /// The error that poisoned the handshake, again.
    fn check(&self) -> Result<(), HandshakeError> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Buffers as much of `input` as a phase of at most `max` bytes can need and parses
    /// the phase's bytes so far: the item and how many bytes of `input` it used, or
    /// `None` when more bytes are needed.
    fn parse<T>(
        &mut self,
        input: &[u8],
        max: usize,
        parse: Parse<T>,
    ) -> Result<Option<(T, usize)>, HandshakeError> {
        let before = self.buf.len();
        let take = max.saturating_sub(before).min(input.len());
        self.buf
            .extend_from_slice(input.get(..take).unwrap_or_default());
        Ok(match parse(&self.buf)? {
            Status::Complete((item, used)) => Some((item, used.saturating_sub(before))),
            Status::NeedMore => None,
        })
    }

    /// Records the outcome of a call: an error poisons the handshake; any step but
    /// [`Step::NeedMore`] ends the phase, whose bytes are dropped.
    fn settle(&mut self, result: Result<Step, HandshakeError>) -> Result<Step, HandshakeError> {
        match &result {
            Err(e) => self.error = Some(e.clone()),
            Ok(Step::NeedMore) => {}
            Ok(_) => self.buf = Vec::new(),
        }
        result
    }
}
