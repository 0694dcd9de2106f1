//! [`WsStream`]: decoder and encoder together, as a byte-stream transport for Bolt.

use super::decoder::{CloseInfo, Event, WsDecoder};
use super::encoder::{MaskSource, NoMask, WsEncoder};
use super::frame::{CloseCode, EncodeError, FrameError};

/// What [`WsStream::from_wire`] saw of the connection's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireStatus {
    /// The stream is open.
    Open,
    /// The peer's close frame has arrived (in this call or an earlier one). If this end
    /// had not sent its own, the reply has been appended to `send`; send it, then close
    /// the connection.
    Closed(CloseInfo),
}

/// An error of a [`WsStream`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    /// The received frames are malformed or forbidden. Send a close frame with
    /// [`FrameError::close_code`] ([`WsStream::close`]) and drop the connection.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// A control frame could not be encoded.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// Data was given to send after this end sent its close frame.
    #[error("this end has sent its close frame: no more data may be sent")]
    Closing,
}

packstream::error_kinds! {
    StreamError;
    own {
        StreamError::Closing => "ws_closing",
    }
    wrapped {
        StreamError::Frame(e) => e.kind(),
        StreamError::Encode(e) => e.kind(),
    }
}

impl StreamError {
    /// For `Frame`, the offset in the received frame stream ([`FrameError::offset`]);
    /// `None` otherwise.
    #[must_use]
    pub fn offset(&self) -> Option<u64> {
        match self {
            StreamError::Frame(e) => Some(e.offset()),
            StreamError::Encode(_) | StreamError::Closing => None,
        }
    }
}

/// A WebSocket connection as a byte-stream transport, sans-IO: what Bolt writes goes
/// through [`WsStream::to_wire`] and becomes frames; what arrives goes through
/// [`WsStream::from_wire`] and becomes Bolt bytes again. Frame boundaries carry no
/// meaning (docs/protocol.md §8), so the Bolt handshake, dechunker and codec sit on top
/// unchanged.
///
/// Pings are answered with pongs, and a close frame from the peer with the close reply,
/// both appended to the `send` buffer of [`WsStream::from_wire`]. Start it after the
/// opening handshake ([`ClientUpgrade`](super::ClientUpgrade)), and give it the bytes
/// that arrived after the response head first.
///
/// ```
/// use bolt::ws::{WireStatus, WsStream};
///
/// # fn main() -> Result<(), bolt::ws::StreamError> {
/// let mut client = WsStream::client(|| [1, 2, 3, 4]); // use random masks in real code
/// let mut server = WsStream::server();
///
/// let mut wire = Vec::new();
/// client.to_wire(&[0x60, 0x60, 0xB0, 0x17], &mut wire)?;
/// let (mut bolt, mut send) = (Vec::new(), Vec::new());
/// assert_eq!(server.from_wire(&wire, &mut bolt, &mut send)?, WireStatus::Open);
/// assert_eq!(bolt, [0x60, 0x60, 0xB0, 0x17]);
/// assert!(send.is_empty()); // nothing to answer
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct WsStream<M = NoMask> {
    decoder: WsDecoder,
    encoder: WsEncoder<M>,
    close_sent: bool,
    close_received: Option<CloseInfo>,
}

impl WsStream<NoMask> {
    /// The server end: reads masked frames, writes unmasked ones.
    #[must_use]
    pub fn server() -> Self {
        Self::from_parts(WsDecoder::server(), WsEncoder::server())
    }
}

impl<M: MaskSource> WsStream<M> {
    /// The client end: reads unmasked frames, writes frames masked with keys from `mask`
    /// (see [`MaskSource`]).
    #[must_use]
    pub fn client(mask: M) -> Self {
        Self::from_parts(WsDecoder::client(), WsEncoder::client(mask))
    }

    /// A stream from a configured decoder and encoder (other limits, smaller frames).
    #[must_use]
    pub fn from_parts(decoder: WsDecoder, encoder: WsEncoder<M>) -> Self {
        Self {
            decoder,
            encoder,
            close_sent: false,
            close_received: None,
        }
    }

    /// The decoder.
    #[must_use]
    pub fn decoder(&self) -> &WsDecoder {
        &self.decoder
    }

    /// The encoder.
    #[must_use]
    pub fn encoder(&self) -> &WsEncoder<M> {
        &self.encoder
    }

    /// Whether this end has sent its close frame.
    #[must_use]
    pub fn is_close_sent(&self) -> bool {
        self.close_sent
    }

    /// The peer's close frame, once received.
    #[must_use]
    pub fn close_received(&self) -> Option<&CloseInfo> {
        self.close_received.as_ref()
    }

    /// Whether both close frames have been exchanged: the connection may be closed.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.close_sent && self.close_received.is_some()
    }

    /// Appends `bolt` (any bytes of the Bolt stream) to `out` as binary frames. Returns
    /// the number of bytes appended.
    ///
    /// # Errors
    ///
    /// [`StreamError::Closing`] after this end sent its close frame.
    pub fn to_wire(&mut self, bolt: &[u8], out: &mut Vec<u8>) -> Result<usize, StreamError> {
        if self.close_sent {
            return Err(StreamError::Closing);
        }
        Ok(self.encoder.encode(bolt, out))
    }

    /// Feeds received bytes: appends the Bolt bytes they carry to `bolt` and any reply
    /// (pongs, the close reply) to `send`.
    ///
    /// # Errors
    ///
    /// [`StreamError::Frame`] for malformed or forbidden frames. Bolt bytes and replies of
    /// the frames before the error have been appended.
    pub fn from_wire(
        &mut self,
        wire: &[u8],
        bolt: &mut Vec<u8>,
        send: &mut Vec<u8>,
    ) -> Result<WireStatus, StreamError> {
        self.from_wire_with(wire, send, |piece| bolt.extend_from_slice(piece))
    }

    /// Like [`WsStream::from_wire`], but hands each piece of Bolt bytes to `data`
    /// instead of copying it: a client's pieces are slices of `wire`, ready for
    /// [`Dechunker::feed`](crate::chunk::Dechunker::feed).
    ///
    /// # Errors
    ///
    /// As [`WsStream::from_wire`].
    pub fn from_wire_with<F: FnMut(&[u8])>(
        &mut self,
        wire: &[u8],
        send: &mut Vec<u8>,
        mut data: F,
    ) -> Result<WireStatus, StreamError> {
        let mut pos = 0;
        loop {
            let (used, event) = self
                .decoder
                .next_event(wire.get(pos..).unwrap_or_default())?;
            pos += used;
            match event {
                None => break,
                Some(Event::Data(payload)) => {
                    if !payload.is_empty() {
                        data(payload.bytes());
                    }
                }
                Some(Event::Ping(payload)) => {
                    if !self.close_sent {
                        self.encoder.pong(payload, send)?;
                    }
                }
                Some(Event::Pong(_)) => {}
                Some(Event::Close(close)) => {
                    if !self.close_sent {
                        self.encoder.close(close.code, "", send)?;
                        self.close_sent = true;
                    }
                    self.close_received = Some(close.to_info());
                }
            }
        }
        Ok(match &self.close_received {
            Some(close) => WireStatus::Closed(close.clone()),
            None => WireStatus::Open,
        })
    }

    /// Appends a ping frame (a keep-alive; the peer answers with a pong).
    ///
    /// # Errors
    ///
    /// [`StreamError::Encode`] for a payload over 125 bytes, [`StreamError::Closing`]
    /// after this end sent its close frame.
    pub fn ping(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<usize, StreamError> {
        if self.close_sent {
            return Err(StreamError::Closing);
        }
        Ok(self.encoder.ping(payload, out)?)
    }

    /// Appends this end's close frame (see [`WsEncoder::close`]) and stops sending
    /// data; wait for the peer's close reply in [`WsStream::from_wire`], then close the
    /// connection. Does nothing (returns 0) if the close frame was already sent.
    ///
    /// After a [`StreamError::Frame`], pass [`FrameError::close_code`].
    ///
    /// # Errors
    ///
    /// [`StreamError::Encode`] for an invalid code or a reason over 123 bytes.
    pub fn close(
        &mut self,
        code: Option<CloseCode>,
        reason: &str,
        out: &mut Vec<u8>,
    ) -> Result<usize, StreamError> {
        if self.close_sent {
            return Ok(0);
        }
        let n = self.encoder.close(code, reason, out)?;
        self.close_sent = true;
        Ok(n)
    }
}
