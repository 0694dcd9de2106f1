//! Bolt over WebSocket (RFC 6455, docs/protocol.md §8), sans-IO.
//!
//! A Neo4j server accepts WebSocket connections on its ordinary Bolt port: the client
//! sends an HTTP/1.1 upgrade request for path `/` (no subprotocol, no extension), and
//! from then on binary frames carry exactly the bytes a TCP connection would: the magic
//! and proposals, the version reply or manifest exchange, then chunked messages. Frame
//! boundaries mean nothing; a frame may hold part of a chunk header. The server accepts
//! frames, and fragmented messages, of at most 65 536 bytes.
//!
//! This module is the adapter between the two, for both ends, without sockets, clocks or
//! randomness:
//!
//! * [`ClientUpgrade`] / [`ServerUpgrade`]: the opening handshake. The client's key comes
//!   from the caller and **must be random for every connection**.
//! * [`WsEncoder`]: bytes → binary frames of at most 65 536 bytes, masked on the client
//!   side with keys from a caller-supplied [`MaskSource`] (such as [`XorShiftMask`]).
//! * [`WsDecoder`]: frames → payload pieces (borrowed from the input whenever they can
//!   be) and ping / pong / close events, refusing everything RFC 6455 or Bolt forbids
//!   with a [`FrameError`] naming the stream offset.
//! * [`WsStream`]: both together, so a Bolt client only calls [`WsStream::to_wire`] and
//!   [`WsStream::from_wire`]; pings and the close exchange are answered for it.
//! * [`FrameHeader`], [`apply_mask`], [`accept_key`]: the pieces underneath, for tools
//!   and tests.
//!
//! # Example: a client and a server, up to the negotiated Bolt version
//!
//! ```
//! use bolt::handshake::{ClientConfig, ClientHandshake, ServerConfig, ServerHandshake, Status, Step};
//! use bolt::ws::{ClientUpgrade, ServerUpgrade, WsStream, XorShiftMask};
//! use bolt::BoltVersion;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // The opening handshake (the key and the mask seed must be random in real code).
//! let mut upgrade = ClientUpgrade::new("localhost:7687", "/", [0x5A; 16])?;
//! let mut server_upgrade = ServerUpgrade::new();
//! let Status::Complete(request) = server_upgrade.receive(upgrade.request())? else {
//!     return Err("incomplete request".into());
//! };
//! let Status::Complete(used) = upgrade.receive(&request.response())? else {
//!     return Err("incomplete response".into());
//! };
//! assert_eq!(used, request.response().len());
//!
//! // From now on, every byte goes through the WebSocket streams.
//! let mut client_ws = WsStream::client(XorShiftMask::new(0x1234_5678));
//! let mut server_ws = WsStream::server();
//! let mut client = ClientHandshake::new(ClientConfig::default());
//! let mut server = ServerHandshake::new(ServerConfig::default());
//! let (mut wire, mut bolt, mut send) = (Vec::new(), Vec::new(), Vec::new());
//!
//! client_ws.to_wire(&client.hello(), &mut wire)?;
//! server_ws.from_wire(&wire, &mut bolt, &mut send)?;
//! let Step::Continue { send: offer, .. } = server.receive(&bolt)? else {
//!     return Err("expected the manifest offer".into());
//! };
//! wire.clear();
//! bolt.clear();
//! server_ws.to_wire(&offer, &mut wire)?;
//! client_ws.from_wire(&wire, &mut bolt, &mut send)?;
//! let Step::Negotiated { version, send: pick, .. } = client.receive(&bolt)? else {
//!     return Err("expected a version".into());
//! };
//! assert_eq!(version, BoltVersion::V6_1);
//! wire.clear();
//! client_ws.to_wire(&pick, &mut wire)?; // then HELLO, chunked, and so on
//! assert!(send.is_empty());
//! # Ok(())
//! # }
//! ```

mod base64;
mod decoder;
mod encoder;
mod frame;
mod sha1;
mod stream;
mod upgrade;

pub use decoder::{
    CloseFrame, CloseInfo, Event, FrameLimits, Payload, WsDecoder, NEO4J_MAX_FRAME_SIZE,
};
pub use encoder::{MaskSource, NoMask, WsEncoder, XorShiftMask, MAX_FRAME_SIZE};
pub use frame::{
    apply_mask, CloseCode, EncodeError, FrameError, FrameHeader, Opcode, Role, MAX_CONTROL_PAYLOAD,
    MAX_HEADER_LEN,
};
pub use stream::{StreamError, WireStatus, WsStream};
pub use upgrade::{
    accept_key, ClientUpgrade, ServerUpgrade, UpgradeError, UpgradeRequest, MAX_HEAD_SIZE, WS_GUID,
};

#[cfg(test)]
mod tests;
