//! [`WsEncoder`]: wraps outgoing bytes into frames, masking them on the client side.

use super::frame::{
    apply_mask, CloseCode, EncodeError, FrameHeader, Opcode, Role, MAX_CONTROL_PAYLOAD,
};

/// The largest frame payload [`WsEncoder`] writes by default, and the most it can be set
/// to: 65 536 bytes, what a Neo4j server accepts (docs/protocol.md §8).
pub const MAX_FRAME_SIZE: usize = 65_536;

/// Where a client's 4-byte masking keys come from (RFC 6455 §5.3).
///
/// The encoder is sans-IO, so it holds no random number generator: the caller supplies
/// one. RFC 6455 asks for keys an intermediary cannot predict (they protect proxies from
/// cache poisoning by hostile scripts); the payload's confidentiality does not depend on
/// them. Any `FnMut() -> [u8; 4]` is a source, and so is [`XorShiftMask`].
///
/// ```
/// use bolt::ws::WsEncoder;
///
/// let mut encoder = WsEncoder::client(|| [0x37, 0xFA, 0x21, 0x3D]);
/// let mut out = Vec::new();
/// encoder.encode(b"Hello", &mut out);
/// assert_eq!(out, [0x82, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]);
/// ```
pub trait MaskSource {
    /// The key for the next frame.
    fn next_mask(&mut self) -> [u8; 4];
}

impl<F: FnMut() -> [u8; 4]> MaskSource for F {
    fn next_mask(&mut self) -> [u8; 4] {
        self()
    }
}

/// A small xorshift64* generator for masking keys, seeded by the caller.
///
/// It is fast and spreads keys well, but it is **not** cryptographically secure: its
/// keys are unpredictable only as long as the seed is. Seed it from a good source of
/// randomness once per connection, for example the operating system's generator, or
/// (with the standard library only) the randomly keyed hasher:
///
/// ```
/// use std::hash::{BuildHasher, Hasher};
/// use bolt::ws::{MaskSource, XorShiftMask};
///
/// let seed = std::collections::hash_map::RandomState::new().build_hasher().finish();
/// let mut masks = XorShiftMask::new(seed);
/// let (a, b) = (masks.next_mask(), masks.next_mask());
/// assert_ne!(a, b);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XorShiftMask {
    state: u64,
}

impl XorShiftMask {
    /// A generator with this seed (a zero seed, which xorshift cannot use, is replaced by
    /// a fixed non-zero constant).
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self {
            state: if seed == 0 {
                0x9E37_79B9_7F4A_7C15
            } else {
                seed
            },
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

impl MaskSource for XorShiftMask {
    fn next_mask(&mut self) -> [u8; 4] {
        let [.., a, b, c, d] = self.next_u64().to_be_bytes();
        [a, b, c, d]
    }
}

/// The mask "source" of a server-side encoder: it has no values, because a server never
/// masks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NoMask {}

impl MaskSource for NoMask {
    fn next_mask(&mut self) -> [u8; 4] {
        match *self {}
    }
}

/// Wraps outgoing bytes into WebSocket frames (RFC 6455 §5), sans-IO.
///
/// [`WsEncoder::encode`] turns bytes of the Bolt stream into final (FIN) binary frames of
/// at most [`WsEncoder::max_frame_size`] payload bytes each (65 536 by default, the most a
/// Neo4j server accepts), never fragmented messages. A client encoder masks every frame
/// with a fresh key from its [`MaskSource`]; a server encoder ([`WsEncoder::server`])
/// writes unmasked frames. Control frames: [`WsEncoder::ping`], [`WsEncoder::pong`],
/// [`WsEncoder::close`].
///
/// ```
/// use bolt::ws::WsEncoder;
///
/// // RFC 6455 §5.7: 256 bytes of binary data in a single unmasked frame.
/// let mut out = Vec::new();
/// WsEncoder::server().encode(&[0xAB; 256], &mut out);
/// assert_eq!(out[..4], [0x82, 0x7E, 0x01, 0x00]);
/// assert_eq!(out.len(), 4 + 256);
///
/// // A client splits at the frame size and masks each frame.
/// let mut encoder = WsEncoder::client(|| [1, 2, 3, 4]).with_max_frame_size(2)?;
/// let mut out = Vec::new();
/// encoder.encode(&[1, 2, 3], &mut out);
/// assert_eq!(out, [0x82, 0x82, 1, 2, 3, 4, 0, 0, 0x82, 0x81, 1, 2, 3, 4, 2]);
/// # Ok::<(), bolt::ws::EncodeError>(())
/// ```
#[derive(Clone, Debug)]
pub struct WsEncoder<M = NoMask> {
    mask: Option<M>,
    max_frame_size: usize,
}

impl WsEncoder<NoMask> {
    /// An encoder for a server: unmasked frames.
    #[must_use]
    pub fn server() -> Self {
        Self {
            mask: None,
            max_frame_size: MAX_FRAME_SIZE,
        }
    }
}

impl<M: MaskSource> WsEncoder<M> {
    /// An encoder for a client: every frame masked with a key from `mask`.
    #[must_use]
    pub fn client(mask: M) -> Self {
        Self {
            mask: Some(mask),
            max_frame_size: MAX_FRAME_SIZE,
        }
    }

    /// This encoder with frames of at most `size` payload bytes.
    ///
    /// # Errors
    ///
    /// [`EncodeError::InvalidMaxFrameSize`] unless `1 <= size <= 65_536`.
    pub fn with_max_frame_size(mut self, size: usize) -> Result<Self, EncodeError> {
        if size == 0 || size > MAX_FRAME_SIZE {
            return Err(EncodeError::InvalidMaxFrameSize { size });
        }
        self.max_frame_size = size;
        Ok(self)
    }

    /// The largest frame payload this encoder writes.
    #[must_use]
    pub fn max_frame_size(&self) -> usize {
        self.max_frame_size
    }

    /// The role this encoder writes for.
    #[must_use]
    pub fn role(&self) -> Role {
        if self.mask.is_some() {
            Role::Client
        } else {
            Role::Server
        }
    }

    /// The exact number of bytes [`WsEncoder::encode`] appends for `len` bytes of data.
    #[must_use]
    pub fn encoded_len(&self, len: usize) -> usize {
        let max = self.max_frame_size;
        let full = len / max;
        let rest = len % max;
        let header = |n: usize| {
            FrameHeader::new(Opcode::Binary, n as u64)
                .with_mask(self.mask.as_ref().map(|_| [0; 4]))
                .encoded_len()
        };
        let mut total = full.saturating_mul(header(max).saturating_add(max));
        if rest > 0 {
            total = total.saturating_add(header(rest) + rest);
        }
        total
    }

    /// Appends `data` to `out` as binary frames with FIN set, each of at most
    /// [`WsEncoder::max_frame_size`] payload bytes. Empty `data` writes nothing. Reserves
    /// the exact space once; returns the number of bytes appended.
    pub fn encode(&mut self, data: &[u8], out: &mut Vec<u8>) -> usize {
        let total = self.encoded_len(data.len());
        out.reserve(total);
        for piece in data.chunks(self.max_frame_size) {
            self.write_frame(true, Opcode::Binary, &[piece], out);
        }
        total
    }

    /// Appends a ping frame. Returns the number of bytes appended.
    ///
    /// # Errors
    ///
    /// [`EncodeError::ControlPayloadTooLong`] if `payload` exceeds 125 bytes.
    pub fn ping(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<usize, EncodeError> {
        self.control(Opcode::Ping, &[payload], out)
    }

    /// Appends a pong frame; to answer a ping, pass the ping's payload. Returns the number
    /// of bytes appended.
    ///
    /// # Errors
    ///
    /// [`EncodeError::ControlPayloadTooLong`] if `payload` exceeds 125 bytes.
    pub fn pong(&mut self, payload: &[u8], out: &mut Vec<u8>) -> Result<usize, EncodeError> {
        self.control(Opcode::Pong, &[payload], out)
    }

    /// Appends a close frame: empty when `code` is `None`, else the code and the UTF-8
    /// `reason`. Returns the number of bytes appended.
    ///
    /// ```
    /// use bolt::ws::{CloseCode, WsEncoder};
    ///
    /// let mut out = Vec::new();
    /// WsEncoder::server().close(Some(CloseCode::NORMAL), "bye", &mut out)?;
    /// assert_eq!(out, [0x88, 0x05, 0x03, 0xE8, b'b', b'y', b'e']);
    /// # Ok::<(), bolt::ws::EncodeError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`EncodeError::InvalidCloseCode`] for a code that may not be sent,
    /// [`EncodeError::ReasonWithoutCode`] for a reason without a code, and
    /// [`EncodeError::ControlPayloadTooLong`] if the reason exceeds 123 bytes.
    pub fn close(
        &mut self,
        code: Option<CloseCode>,
        reason: &str,
        out: &mut Vec<u8>,
    ) -> Result<usize, EncodeError> {
        match code {
            None if reason.is_empty() => self.control(Opcode::Close, &[], out),
            None => Err(EncodeError::ReasonWithoutCode),
            Some(code) if !code.is_valid() => Err(EncodeError::InvalidCloseCode { code }),
            Some(code) => self.control(
                Opcode::Close,
                &[&code.0.to_be_bytes(), reason.as_bytes()],
                out,
            ),
        }
    }

    /// Appends one frame of any opcode, FIN as given, masked if this is a client
    /// encoder, without splitting `payload`: a building block for tests and tools (such
    /// as sending a fragmented message). Returns the number of bytes appended.
    ///
    /// # Errors
    ///
    /// [`EncodeError::ControlPayloadTooLong`] for a control frame over 125 bytes.
    pub fn frame(
        &mut self,
        fin: bool,
        opcode: Opcode,
        payload: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<usize, EncodeError> {
        if opcode.is_control() && payload.len() > MAX_CONTROL_PAYLOAD {
            return Err(EncodeError::ControlPayloadTooLong { len: payload.len() });
        }
        Ok(self.write_frame(fin, opcode, &[payload], out))
    }

    fn control(
        &mut self,
        opcode: Opcode,
        parts: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> Result<usize, EncodeError> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        if len > MAX_CONTROL_PAYLOAD {
            return Err(EncodeError::ControlPayloadTooLong { len });
        }
        Ok(self.write_frame(true, opcode, parts, out))
    }

    /// Writes one frame whose payload is the concatenation of `parts`.
    fn write_frame(
        &mut self,
        fin: bool,
        opcode: Opcode,
        parts: &[&[u8]],
        out: &mut Vec<u8>,
    ) -> usize {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let mask = self.mask.as_mut().map(MaskSource::next_mask);
        let header = FrameHeader::new(opcode, len as u64)
            .with_fin(fin)
            .with_mask(mask);
        let start = out.len();
        out.reserve(header.encoded_len() + len);
        header.encode(out);
        let payload_start = out.len();
        for part in parts {
            out.extend_from_slice(part);
        }
        if let (Some(key), Some(payload)) = (mask, out.get_mut(payload_start..)) {
            apply_mask(payload, key, 0);
        }
        out.len() - start
    }
}
