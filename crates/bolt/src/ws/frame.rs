//! The frame format of RFC 6455 §5.2: header layout, opcodes, masking, close codes, and
//! the errors of a malformed frame stream.

use crate::handshake::Status;

/// Which end of the connection this is. It decides masking: a client masks every frame it
/// sends and refuses masked frames; a server sends unmasked frames and refuses unmasked
/// ones (RFC 6455 §5.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The end that sent the upgrade request (a Bolt driver).
    Client,
    /// The end that accepted it (Neo4j).
    Server,
}

/// The largest control frame payload (ping, pong, close): 125 bytes (RFC 6455 §5.5).
pub const MAX_CONTROL_PAYLOAD: usize = 125;

/// The longest frame header: 2 bytes, an 8-byte extended length and a 4-byte mask key.
pub const MAX_HEADER_LEN: usize = 14;

/// A frame's opcode, the low 4 bits of its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// `0x0`: a later fragment of a fragmented message.
    Continuation,
    /// `0x1`: UTF-8 text. Bolt never uses it; decoders here refuse it.
    Text,
    /// `0x2`: binary data, the only data frame Bolt uses.
    Binary,
    /// `0x8`: close.
    Close,
    /// `0x9`: ping.
    Ping,
    /// `0xA`: pong.
    Pong,
    /// `0x3`–`0x7` and `0xB`–`0xF`: reserved, undefined.
    Reserved(u8),
}

impl Opcode {
    /// The opcode in the low 4 bits of `bits` (the high bits are ignored).
    ///
    /// ```
    /// use bolt::ws::Opcode;
    /// assert_eq!(Opcode::from_bits(0x82), Opcode::Binary);
    /// assert_eq!(Opcode::from_bits(0x0B), Opcode::Reserved(0xB));
    /// ```
    #[must_use]
    pub const fn from_bits(bits: u8) -> Self {
        match bits & 0x0F {
            0x0 => Self::Continuation,
            0x1 => Self::Text,
            0x2 => Self::Binary,
            0x8 => Self::Close,
            0x9 => Self::Ping,
            0xA => Self::Pong,
            other => Self::Reserved(other),
        }
    }

    /// The 4-bit value (a `Reserved` value is masked to 4 bits).
    #[must_use]
    pub const fn bits(self) -> u8 {
        match self {
            Self::Continuation => 0x0,
            Self::Text => 0x1,
            Self::Binary => 0x2,
            Self::Close => 0x8,
            Self::Ping => 0x9,
            Self::Pong => 0xA,
            Self::Reserved(b) => b & 0x0F,
        }
    }

    /// Whether this is a control opcode (`0x8`–`0xF`).
    #[must_use]
    pub const fn is_control(self) -> bool {
        self.bits() & 0x08 != 0
    }
}

/// A frame header as it is laid out on the wire (RFC 6455 §5.2).
///
/// [`FrameHeader::encode`] writes any header, valid or not, always with the shortest
/// length form, so tests and tools can build frames by hand; [`FrameHeader::parse`]
/// reads one without judging it. The decoders validate.
///
/// ```
/// use bolt::ws::{FrameHeader, Opcode};
/// use bolt::handshake::Status;
///
/// let header = FrameHeader::new(Opcode::Binary, 256);
/// let mut out = Vec::new();
/// header.encode(&mut out);
/// assert_eq!(out, [0x82, 0x7E, 0x01, 0x00]);
/// assert_eq!(FrameHeader::parse(&out), Status::Complete((header, 4)));
/// assert_eq!(FrameHeader::parse(&out[..3]), Status::NeedMore);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FrameHeader {
    /// FIN: this frame ends its message.
    pub fin: bool,
    /// RSV1–RSV3 in the low 3 bits (must be 0 without extensions).
    pub rsv: u8,
    /// The opcode.
    pub opcode: Opcode,
    /// The masking key, if the MASK bit is set.
    pub mask: Option<[u8; 4]>,
    /// The payload length.
    pub payload_len: u64,
}

impl FrameHeader {
    /// A final (FIN), unmasked frame header with no reserved bits.
    #[must_use]
    pub const fn new(opcode: Opcode, payload_len: u64) -> Self {
        Self {
            fin: true,
            rsv: 0,
            opcode,
            mask: None,
            payload_len,
        }
    }

    /// This header with the given masking key.
    #[must_use]
    pub const fn with_mask(mut self, mask: Option<[u8; 4]>) -> Self {
        self.mask = mask;
        self
    }

    /// This header with FIN set or cleared.
    #[must_use]
    pub const fn with_fin(mut self, fin: bool) -> Self {
        self.fin = fin;
        self
    }

    /// The number of bytes [`FrameHeader::encode`] writes: 2 to 14.
    #[must_use]
    pub const fn encoded_len(&self) -> usize {
        let ext = if self.payload_len < 126 {
            0
        } else if self.payload_len <= 0xFFFF {
            2
        } else {
            8
        };
        let mask = if self.mask.is_some() { 4 } else { 0 };
        2 + ext + mask
    }

    /// Appends the header, with the payload length in its shortest form.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let b0 = u8::from(self.fin) << 7 | (self.rsv & 0x07) << 4 | self.opcode.bits();
        let m = if self.mask.is_some() { 0x80 } else { 0 };
        let len = self.payload_len;
        if len < 126 {
            out.extend_from_slice(&[b0, m | len.to_be_bytes()[7]]);
        } else if len <= 0xFFFF {
            let [.., hi, lo] = len.to_be_bytes();
            out.extend_from_slice(&[b0, m | 126, hi, lo]);
        } else {
            out.extend_from_slice(&[b0, m | 127]);
            out.extend_from_slice(&len.to_be_bytes());
        }
        if let Some(key) = self.mask {
            out.extend_from_slice(&key);
        }
    }

    /// Reads a header from the start of `input`: the header and its length in bytes, or
    /// [`Status::NeedMore`]. Nothing is validated (any opcode, reserved bits, length form).
    #[must_use]
    pub fn parse(input: &[u8]) -> Status<(Self, usize)> {
        let (Some(&b0), Some(&b1)) = (input.first(), input.get(1)) else {
            return Status::NeedMore;
        };
        let (ext, len7) = ext_len_size(b1);
        let masked = b1 & 0x80 != 0;
        let total = 2 + ext + if masked { 4 } else { 0 };
        let Some(bytes) = input.get(..total) else {
            return Status::NeedMore;
        };
        let payload_len = read_ext_len(bytes.get(2..2 + ext).unwrap_or_default(), len7);
        let mask = masked.then(|| read_mask(bytes.get(2 + ext..).unwrap_or_default()));
        Status::Complete((
            Self {
                fin: b0 & 0x80 != 0,
                rsv: (b0 >> 4) & 0x07,
                opcode: Opcode::from_bits(b0),
                mask,
                payload_len,
            },
            total,
        ))
    }
}

/// The size of the extended length field (0, 2 or 8) and the 7-bit length of byte 1.
pub(crate) const fn ext_len_size(b1: u8) -> (usize, u8) {
    match b1 & 0x7F {
        126 => (2, 126),
        127 => (8, 127),
        n => (0, n),
    }
}

/// The payload length from the extended length bytes (empty for a 7-bit length).
pub(crate) fn read_ext_len(ext: &[u8], len7: u8) -> u64 {
    if ext.is_empty() {
        return u64::from(len7);
    }
    ext.iter().fold(0u64, |acc, &b| acc << 8 | u64::from(b))
}

/// A mask key from 4 bytes (zeros where bytes are missing).
pub(crate) fn read_mask(bytes: &[u8]) -> [u8; 4] {
    let mut key = [0u8; 4];
    for (k, b) in key.iter_mut().zip(bytes) {
        *k = *b;
    }
    key
}

/// XORs `data` with the masking key (RFC 6455 §5.3). Masking and unmasking are the same
/// operation. `position` is the index of `data[0]` within the frame payload, so a payload
/// can be (un)masked piece by piece.
///
/// ```
/// // RFC 6455 §5.7: "Hello" masked with 37 fa 21 3d
/// let mut data = *b"Hello";
/// bolt::ws::apply_mask(&mut data, [0x37, 0xFA, 0x21, 0x3D], 0);
/// assert_eq!(data, [0x7F, 0x9F, 0x4D, 0x51, 0x58]);
/// let (a, b) = data.split_at_mut(2);
/// bolt::ws::apply_mask(a, [0x37, 0xFA, 0x21, 0x3D], 0);
/// bolt::ws::apply_mask(b, [0x37, 0xFA, 0x21, 0x3D], 2);
/// assert_eq!(&data, b"Hello");
/// ```
pub fn apply_mask(data: &mut [u8], key: [u8; 4], position: usize) {
    let mut key = key;
    key.rotate_left(position % 4);
    let [a, b, c, d] = key;
    let wide = u64::from_ne_bytes([a, b, c, d, a, b, c, d]);
    let mut words = data.chunks_exact_mut(8);
    for word in words.by_ref() {
        if let Ok(bytes) = <[u8; 8]>::try_from(&*word) {
            word.copy_from_slice(&(u64::from_ne_bytes(bytes) ^ wide).to_ne_bytes());
        }
    }
    for (byte, k) in words.into_remainder().iter_mut().zip(key.iter().cycle()) {
        *byte ^= k;
    }
}

/// A close status code (RFC 6455 §7.4).
///
/// ```
/// use bolt::ws::CloseCode;
/// assert!(CloseCode::NORMAL.is_valid());
/// assert!(!CloseCode(1005).is_valid()); // "no status": never on the wire
/// assert_eq!(CloseCode::MESSAGE_TOO_BIG.0, 1009);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CloseCode(pub u16);

impl CloseCode {
    /// 1000: normal closure.
    pub const NORMAL: Self = Self(1000);
    /// 1001: the endpoint is going away.
    pub const GOING_AWAY: Self = Self(1001);
    /// 1002: protocol error.
    pub const PROTOCOL_ERROR: Self = Self(1002);
    /// 1003: a data type the endpoint cannot accept (here: text frames).
    pub const UNSUPPORTED_DATA: Self = Self(1003);
    /// 1007: data inconsistent with its type (such as a close reason that is not UTF-8).
    pub const INVALID_PAYLOAD: Self = Self(1007);
    /// 1008: policy violation.
    pub const POLICY_VIOLATION: Self = Self(1008);
    /// 1009: a frame or message too big to process.
    pub const MESSAGE_TOO_BIG: Self = Self(1009);
    /// 1011: the server hit an unexpected condition.
    pub const INTERNAL_ERROR: Self = Self(1011);

    /// Whether the code may appear in a close frame: 1000–1003, 1007–1014 (1012–1014 were
    /// registered with IANA after RFC 6455) and 3000–4999. The rest of 0–2999 is reserved
    /// or (1005, 1006, 1015) meant for APIs only.
    #[must_use]
    pub const fn is_valid(self) -> bool {
        matches!(self.0, 1000..=1003 | 1007..=1014 | 3000..=4999)
    }
}

impl core::fmt::Display for CloseCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// A malformed, forbidden or over-limit frame stream. Offsets count bytes of the frame
/// stream from its first byte (the byte after the HTTP upgrade head) and point at the
/// field at fault: the first header byte for opcode and flag errors, the second for
/// masking and 7-bit lengths, the third for extended lengths, the payload for close
/// frame contents.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// A text frame: Bolt uses binary frames only (docs/protocol.md §8).
    #[error("stream offset {offset}: expected a binary frame, found a text frame")]
    TextFrame {
        /// Offset of the frame.
        offset: u64,
    },
    /// RSV1–RSV3 set, but no extension was negotiated.
    #[error("stream offset {offset}: reserved bits {bits:#05b} set, expected 0 (no extension was negotiated)")]
    ReservedBits {
        /// Offset of the frame.
        offset: u64,
        /// The 3 reserved bits.
        bits: u8,
    },
    /// An opcode RFC 6455 does not define.
    #[error("stream offset {offset}: unknown opcode {opcode:#x}")]
    UnknownOpcode {
        /// Offset of the frame.
        offset: u64,
        /// The opcode.
        opcode: u8,
    },
    /// A masked frame from the server (servers must not mask).
    #[error(
        "stream offset {offset}: expected an unmasked frame from the server, found a masked one"
    )]
    MaskedFrame {
        /// Offset of the byte with the MASK bit.
        offset: u64,
    },
    /// An unmasked frame from the client (clients must mask).
    #[error(
        "stream offset {offset}: expected a masked frame from the client, found an unmasked one"
    )]
    UnmaskedFrame {
        /// Offset of the byte with the MASK bit.
        offset: u64,
    },
    /// A ping, pong or close frame without FIN: control frames cannot be fragmented.
    #[error("stream offset {offset}: control frame (opcode {opcode:#x}) without FIN; control frames cannot be fragmented")]
    FragmentedControlFrame {
        /// Offset of the frame.
        offset: u64,
        /// The opcode.
        opcode: u8,
    },
    /// A control frame with more than [`MAX_CONTROL_PAYLOAD`] bytes.
    #[error("stream offset {offset}: control frame of {len} bytes, expected at most 125")]
    ControlFrameTooLong {
        /// Offset of the length byte.
        offset: u64,
        /// The length declared.
        len: u64,
    },
    /// A 64-bit length with its most significant bit set.
    #[error("stream offset {offset}: 64-bit payload length with the most significant bit set")]
    LengthTopBit {
        /// Offset of the 8-byte length.
        offset: u64,
    },
    /// A length not in its shortest form (RFC 6455 §5.2: "the minimal number of bytes
    /// MUST be used").
    #[error("stream offset {offset}: payload length {len} not in its shortest form")]
    NonMinimalLength {
        /// Offset of the extended length.
        offset: u64,
        /// The length.
        len: u64,
    },
    /// A frame longer than [`FrameLimits::max_frame_size`](super::FrameLimits).
    #[error("stream offset {offset}: frame payload of {len} bytes, expected at most {max}")]
    FrameTooLarge {
        /// Offset of the length field.
        offset: u64,
        /// The length declared.
        len: u64,
        /// The limit.
        max: u64,
    },
    /// A fragmented message longer than
    /// [`FrameLimits::max_message_size`](super::FrameLimits).
    #[error(
        "stream offset {offset}: fragmented message of {size} bytes so far, expected at most {max}"
    )]
    MessageTooLarge {
        /// Offset of the length field that exceeded the limit.
        offset: u64,
        /// The message size including that frame.
        size: u64,
        /// The limit.
        max: u64,
    },
    /// A continuation frame with no fragmented message to continue.
    #[error("stream offset {offset}: continuation frame outside a fragmented message")]
    UnexpectedContinuation {
        /// Offset of the frame.
        offset: u64,
    },
    /// A new data frame while a fragmented message still expects continuations.
    #[error("stream offset {offset}: expected a continuation frame, found a new data frame")]
    ExpectedContinuation {
        /// Offset of the frame.
        offset: u64,
    },
    /// A close frame with a 1-byte payload (a status code takes 2).
    #[error(
        "stream offset {offset}: close frame payload of 1 byte; expected none or a 2-byte code"
    )]
    InvalidClosePayload {
        /// Offset of the payload.
        offset: u64,
    },
    /// A close code that may not be sent ([`CloseCode::is_valid`]).
    #[error("stream offset {offset}: close code {code} may not appear on the wire")]
    InvalidCloseCode {
        /// Offset of the code.
        offset: u64,
        /// The code.
        code: u16,
    },
    /// A close reason that is not UTF-8.
    #[error("stream offset {offset}: close reason is not valid UTF-8")]
    InvalidCloseReason {
        /// Offset of the first invalid byte.
        offset: u64,
    },
    /// The stream ended inside a frame (see `WsDecoder::end_of_stream`).
    #[error("stream offset {offset}: the stream ended inside the frame that starts at offset {frame_offset}")]
    Truncated {
        /// The end of the stream.
        offset: u64,
        /// Offset of the unfinished frame.
        frame_offset: u64,
    },
}

packstream::error_kinds! {
    FrameError;
    own {
        FrameError::TextFrame { .. } => "ws_text_frame",
        FrameError::ReservedBits { .. } => "ws_reserved_bits",
        FrameError::UnknownOpcode { .. } => "ws_unknown_opcode",
        FrameError::MaskedFrame { .. } => "ws_masked_frame",
        FrameError::UnmaskedFrame { .. } => "ws_unmasked_frame",
        FrameError::FragmentedControlFrame { .. } => "ws_fragmented_control_frame",
        FrameError::ControlFrameTooLong { .. } => "ws_control_frame_too_long",
        FrameError::LengthTopBit { .. } => "ws_length_top_bit",
        FrameError::NonMinimalLength { .. } => "ws_non_minimal_length",
        FrameError::FrameTooLarge { .. } => "ws_frame_too_large",
        FrameError::MessageTooLarge { .. } => "ws_message_too_large",
        FrameError::UnexpectedContinuation { .. } => "ws_unexpected_continuation",
        FrameError::ExpectedContinuation { .. } => "ws_expected_continuation",
        FrameError::InvalidClosePayload { .. } => "ws_invalid_close_payload",
        FrameError::InvalidCloseCode { .. } => "ws_invalid_close_code",
        FrameError::InvalidCloseReason { .. } => "ws_invalid_close_reason",
        FrameError::Truncated { .. } => "ws_truncated",
    }
    wrapped {}
}

impl FrameError {
    /// The stream offset the error names.
    #[must_use]
    pub fn offset(&self) -> u64 {
        match *self {
            Self::TextFrame { offset }
            | Self::ReservedBits { offset, .. }
            | Self::UnknownOpcode { offset, .. }
            | Self::MaskedFrame { offset }
            | Self::UnmaskedFrame { offset }
            | Self::FragmentedControlFrame { offset, .. }
            | Self::ControlFrameTooLong { offset, .. }
            | Self::LengthTopBit { offset }
            | Self::NonMinimalLength { offset, .. }
            | Self::FrameTooLarge { offset, .. }
            | Self::MessageTooLarge { offset, .. }
            | Self::UnexpectedContinuation { offset }
            | Self::ExpectedContinuation { offset }
            | Self::InvalidClosePayload { offset }
            | Self::InvalidCloseCode { offset, .. }
            | Self::InvalidCloseReason { offset }
            | Self::Truncated { offset, .. } => offset,
        }
    }

    /// The close code to send the peer before dropping the connection (RFC 6455 §7.4.1):
    /// 1003 for a text frame, 1009 for a frame or message over the limit, 1007 for a
    /// close reason that is not UTF-8, 1002 (protocol error) otherwise.
    ///
    /// ```
    /// use bolt::ws::{CloseCode, FrameError};
    /// assert_eq!(FrameError::TextFrame { offset: 0 }.close_code(), CloseCode::UNSUPPORTED_DATA);
    /// ```
    #[must_use]
    pub fn close_code(&self) -> CloseCode {
        match self {
            Self::TextFrame { .. } => CloseCode::UNSUPPORTED_DATA,
            Self::FrameTooLarge { .. } | Self::MessageTooLarge { .. } => CloseCode::MESSAGE_TOO_BIG,
            Self::InvalidCloseReason { .. } => CloseCode::INVALID_PAYLOAD,
            _ => CloseCode::PROTOCOL_ERROR,
        }
    }
}

/// A misuse of the encoder: a control payload or frame size outside what RFC 6455 allows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The maximum frame size must be 1…65 536.
    #[error("invalid maximum frame size {size}: expected 1..=65536")]
    InvalidMaxFrameSize {
        /// The size asked for.
        size: usize,
    },
    /// A ping or pong payload, or a close code plus reason, longer than 125 bytes.
    #[error("control frame payload of {len} bytes, expected at most 125")]
    ControlPayloadTooLong {
        /// The payload length.
        len: usize,
    },
    /// A close code that may not be sent ([`CloseCode::is_valid`]).
    #[error("close code {code} may not be sent")]
    InvalidCloseCode {
        /// The code.
        code: CloseCode,
    },
    /// A close reason without a close code (the reason follows the code on the wire).
    #[error("a close reason needs a close code")]
    ReasonWithoutCode,
}

packstream::error_kinds! {
    EncodeError;
    own {
        EncodeError::InvalidMaxFrameSize { .. } => "ws_invalid_max_frame_size",
        EncodeError::ControlPayloadTooLong { .. } => "ws_control_payload_too_long",
        EncodeError::InvalidCloseCode { .. } => "ws_invalid_close_code",
        EncodeError::ReasonWithoutCode => "ws_reason_without_code",
    }
    wrapped {}
}

impl EncodeError {
    /// Always `None`: these are misuses of the encoder, not faults in bytes.
    #[must_use]
    pub const fn offset(&self) -> Option<u64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_every_length_form() {
        for len in [0, 1, 125, 126, 127, 0xFFFF, 0x1_0000, u64::MAX >> 1] {
            for mask in [None, Some([1, 2, 3, 4])] {
                for opcode in [Opcode::Binary, Opcode::Continuation, Opcode::Reserved(3)] {
                    let h = FrameHeader {
                        fin: len % 2 == 0,
                        rsv: 5,
                        opcode,
                        mask,
                        payload_len: len,
                    };
                    let mut out = Vec::new();
                    h.encode(&mut out);
                    assert_eq!(out.len(), h.encoded_len());
                    assert_eq!(FrameHeader::parse(&out), Status::Complete((h, out.len())));
                    for cut in 0..out.len() {
                        assert_eq!(FrameHeader::parse(&out[..cut]), Status::NeedMore);
                    }
                }
            }
        }
    }

    #[test]
    fn opcodes() {
        for bits in 0..16u8 {
            let op = Opcode::from_bits(bits);
            assert_eq!(op.bits(), bits);
            assert_eq!(op.is_control(), bits >= 8);
        }
    }

    #[test]
    fn mask_matches_bytewise_xor_at_every_phase() {
        let key = [0x37, 0xFA, 0x21, 0x3D];
        let data: Vec<u8> = (0..=255).collect();
        for start in 0..data.len() {
            for phase in 0..4 {
                let mut fast = data[start..].to_vec();
                apply_mask(&mut fast, key, phase);
                let slow: Vec<u8> = data[start..]
                    .iter()
                    .enumerate()
                    .map(|(i, b)| b ^ key[(i + phase) % 4])
                    .collect();
                assert_eq!(fast, slow);
            }
        }
    }

    #[test]
    fn close_codes() {
        let valid: Vec<u16> = (0..=5000).filter(|c| CloseCode(*c).is_valid()).collect();
        assert_eq!(valid.len(), 4 + 8 + 2000);
        for c in [999, 1004, 1005, 1006, 1015, 2999, 5000] {
            assert!(!CloseCode(c).is_valid());
        }
    }
}
