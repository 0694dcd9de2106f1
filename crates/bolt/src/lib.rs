//! The Bolt protocol layer of boltcodec: versions, the version handshake and message
//! framing for Neo4j's Bolt protocol, sans-IO.
//!
//! This crate does no I/O and reads no clock. Callers push the bytes they received in and
//! get bytes to send and complete messages out, so it works under any runtime, any
//! language binding, and in deterministic client/server tests.
//!
//! * [`version`]: [`BoltVersion`], the negotiated version and the one place that answers
//!   every version-dependent question (field counts, message shapes, metadata keys).
//! * [`handshake`]: both roles of the handshake, the legacy four-proposal form and
//!   manifest v1 (docs/protocol.md §3).
//! * [`chunk`]: [`Chunker`] and [`Dechunker`], message framing (docs/protocol.md §4); the
//!   dechunker hands out messages as slices of the input whenever it can.
//! * [`message`]: every request and response of every version as typed, borrowed
//!   values; lazy RECORDs and a batch API that decodes a whole PULL response per call.
//! * [`structs`]: Node, Relationship, Path, the temporal and spatial types, Vector,
//!   UnsupportedType, per version; anything malformed becomes a `Broken` value.
//! * [`connection`]: a sans-IO client connection (handshake, pipelining, the server
//!   state machine, back-pressure); with the `test-support` feature, a minimal server
//!   peer for tests.
//! * [`ws`]: Bolt over WebSocket, sans-IO.
//!
//! Every input is treated as hostile: parsing never panics, allocations are bounded by
//! configured limits, and errors carry the byte offset and what was expected.
//!
//! # Example: a client connection up to its first message
//!
//! ```
//! use bolt::chunk::{Chunker, Dechunker};
//! use bolt::handshake::{ClientConfig, ClientHandshake, Step};
//! use bolt::BoltVersion;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let mut handshake = ClientHandshake::new(ClientConfig::default());
//! let mut to_server: Vec<u8> = handshake.hello().to_vec();
//!
//! // The server (a Neo4j 5.26) accepts the manifest and offers 4.4–4.0, 5.4–5.0 and
//! // 5.8–5.6; in the same read its first bytes of the message stream arrive.
//! let from_server = [
//!     0x00, 0x00, 0x01, 0xFF, 0x03, 0x00, 0x04, 0x04, 0x04, 0x00, 0x04, 0x04, 0x05,
//!     0x00, 0x02, 0x08, 0x05, 0x00, // end of the handshake
//!     0x00, 0x00, // a NOOP
//! ];
//! let Step::Negotiated { version, send, consumed } = handshake.receive(&from_server)? else {
//!     return Err("handshake failed".into());
//! };
//! assert_eq!(version, BoltVersion::V5_8);
//! assert_eq!(send, [0x00, 0x00, 0x08, 0x05, 0x00]);
//! to_server.extend_from_slice(&send);
//!
//! // The version decides the message shapes (here: auth goes in LOGON, not HELLO).
//! assert!(version.has_logon());
//!
//! // Pipeline a message right after the pick.
//! Chunker::default().write_message(&[0xB0, 0x0F], &mut to_server)?; // RESET
//!
//! // The rest of the server's bytes go to the dechunker.
//! let mut dechunker = Dechunker::new();
//! let mut feed = dechunker.feed(&from_server[consumed..]);
//! assert!(feed.next_message()?.is_none());
//! drop(feed);
//! assert_eq!(dechunker.noop_count(), 1);
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)
)]

#[cfg(feature = "arbitrary")]
pub mod arbitrary;
pub mod chunk;
pub mod connection;
pub mod handshake;
pub mod inbox;
pub mod message;
pub mod structs;
pub mod version;
pub mod ws;

pub use chunk::{Chunker, Dechunker};
pub use version::BoltVersion;
