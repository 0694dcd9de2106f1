//! [`WsDecoder`]: a push parser turning received frame bytes into payload pieces and
//! control events.

use core::ops::{Deref, Range};

use super::frame::{
    apply_mask, ext_len_size, read_ext_len, read_mask, CloseCode, FrameError, Opcode, Role,
    MAX_CONTROL_PAYLOAD, MAX_HEADER_LEN,
};

/// Neo4j's cap on one frame's payload, and on a fragmented message: 65 536 bytes
/// (docs/protocol.md §8).
pub const NEO4J_MAX_FRAME_SIZE: u64 = 65_536;

/// The most payload bytes a server-role decoder unmasks into its buffer for one
/// [`Event::Data`]; a longer frame comes out in several pieces.
const MAX_UNMASK_PIECE: usize = 64 * 1024;

/// The limits a [`WsDecoder`] enforces, checked at each frame header before any of the
/// frame's payload is handed out.
///
/// Payload bytes are passed on as they arrive, never buffered whole, so the limits are a
/// policy, not a memory bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FrameLimits {
    /// The largest accepted frame payload.
    pub max_frame_size: u64,
    /// The largest accepted message: the sum of the payloads of a fragmented message's
    /// frames (an unfragmented frame counts alone).
    pub max_message_size: u64,
}

impl FrameLimits {
    /// What a Neo4j server accepts: frames and fragmented messages of at most 65 536
    /// bytes (docs/protocol.md §8). The default for [`Role::Server`].
    pub const NEO4J: Self = Self {
        max_frame_size: NEO4J_MAX_FRAME_SIZE,
        max_message_size: NEO4J_MAX_FRAME_SIZE,
    };

    /// The default for [`Role::Client`]: 64 MiB frames and messages.
    ///
    /// A Neo4j server does not keep *its* frames under 64 KiB: it sends each write as one
    /// frame, and a large RECORD makes a large write (Neo4j 5.26 and 2026.08 send a
    /// RECORD holding a 1 MB string as one frame of 1 000 040 bytes). 64 MiB matches the
    /// dechunker's default message limit ([`crate::chunk::DEFAULT_MAX_MESSAGE_SIZE`]).
    pub const CLIENT_DEFAULT: Self = Self {
        max_frame_size: 64 * 1024 * 1024,
        max_message_size: 64 * 1024 * 1024,
    };

    /// The default limits for a role: [`FrameLimits::CLIENT_DEFAULT`] for a client,
    /// [`FrameLimits::NEO4J`] for a server.
    #[must_use]
    pub const fn for_role(role: Role) -> Self {
        match role {
            Role::Client => Self::CLIENT_DEFAULT,
            Role::Server => Self::NEO4J,
        }
    }
}

/// One thing the decoder found in the frame stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    /// The next bytes of binary payload: the next piece of the carried byte stream.
    Data(Payload<'a>),
    /// A ping; answer it with a pong carrying the same bytes
    /// ([`WsEncoder::pong`](super::WsEncoder::pong)).
    Ping(&'a [u8]),
    /// A pong (a reply to a ping, or an unsolicited heartbeat).
    Pong(&'a [u8]),
    /// The peer's close frame. If this end has not sent one yet, reply with one
    /// ([`WsEncoder::close`](super::WsEncoder::close)), then close the connection. The
    /// decoder ignores whatever follows it ([`WsDecoder::ignored_after_close`]).
    Close(CloseFrame<'a>),
}

/// A piece of binary payload, borrowed from the input when it can be.
///
/// A frame's payload comes out as soon as its bytes arrive, so a frame split over several
/// inputs gives several pieces; frame boundaries mean nothing to Bolt
/// (docs/protocol.md §8). A client-role decoder never copies: every piece is a slice of the
/// input. A server-role decoder unmasks into a buffer it reuses ([`Payload::is_copied`]).
///
/// An empty piece only ever marks the end of a message whose last frame was empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Payload<'a> {
    bytes: &'a [u8],
    offset: u64,
    input_start: Option<usize>,
    end_of_frame: bool,
    end_of_message: bool,
}

impl<'a> Payload<'a> {
    /// The payload bytes.
    #[must_use]
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The stream offset of the first byte.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// `true` if the bytes were unmasked into the decoder's buffer, `false` if they are a
    /// slice of the input.
    #[must_use]
    pub fn is_copied(&self) -> bool {
        self.input_start.is_none()
    }

    /// Where the bytes lie in the input given to the call that returned them, if not
    /// copied.
    #[must_use]
    pub fn input_range(&self) -> Option<Range<usize>> {
        self.input_start.map(|s| s..s + self.bytes.len())
    }

    /// Whether this piece ends its frame.
    #[must_use]
    pub fn is_end_of_frame(&self) -> bool {
        self.end_of_frame
    }

    /// Whether this piece ends a message (the end of a frame with FIN set).
    #[must_use]
    pub fn is_end_of_message(&self) -> bool {
        self.end_of_message
    }
}

impl Deref for Payload<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.bytes
    }
}

impl AsRef<[u8]> for Payload<'_> {
    fn as_ref(&self) -> &[u8] {
        self.bytes
    }
}

/// A received close frame: the status code, if any, and the reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CloseFrame<'a> {
    /// The status code; `None` for an empty close frame.
    pub code: Option<CloseCode>,
    /// The reason text (may be empty).
    pub reason: &'a str,
}

impl CloseFrame<'_> {
    /// An owned copy.
    #[must_use]
    pub fn to_info(&self) -> CloseInfo {
        CloseInfo {
            code: self.code,
            reason: self.reason.to_owned(),
        }
    }
}

/// An owned close frame: the status code, if any, and the reason.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CloseInfo {
    /// The status code; `None` for an empty close frame.
    pub code: Option<CloseCode>,
    /// The reason text (may be empty).
    pub reason: String,
}

/// The frame being read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Frame {
    opcode: Opcode,
    fin: bool,
    len: u64,
    /// Payload bytes read so far.
    done: u64,
    mask: Option<[u8; 4]>,
    /// Stream offset of the first header byte.
    offset: u64,
}

/// What `advance` found, before it is turned into an [`Event`] borrowing the input or
/// the decoder.
#[derive(Clone, Copy, Debug)]
enum Ready {
    Data {
        start: usize,
        len: usize,
        copied: bool,
        offset: u64,
        end_of_frame: bool,
        end_of_message: bool,
    },
    Control(Opcode),
}

/// Push parser for a WebSocket frame stream (RFC 6455 §5), sans-IO.
///
/// Give it the received bytes, in pieces of any size, with [`WsDecoder::next_event`] and
/// act on each [`Event`]: append [`Event::Data`] payload to the Bolt byte stream, answer
/// [`Event::Ping`], handle [`Event::Close`]. Only the few bytes of an incomplete frame
/// header, a control frame's payload (≤ 125 bytes) and, on the server side, unmasked
/// payload pieces are buffered.
///
/// Everything RFC 6455 or Bolt forbids is an error naming its stream offset: text
/// frames, reserved bits, unknown opcodes, masked frames from a server or unmasked ones
/// from a client, fragmented or over-long control frames, lengths with the top bit set
/// or not in their shortest form, frames and fragmented messages over the
/// [`FrameLimits`], continuation frames out of place and malformed close frames. After an
/// error the decoder is poisoned and returns it again; send a close frame with
/// [`FrameError::close_code`] and drop the connection.
///
/// Bytes after the peer's close frame are consumed and ignored: RFC 6455 forbids sending
/// frames after a close frame but says nothing about receiving them, and a real server
/// does send them (Neo4j 5.26 and 2026.08 follow a 1009 or 1007 close with a second close
/// frame, 1000 "Bye").
///
/// ```
/// use bolt::ws::{Event, WsDecoder};
///
/// # fn main() -> Result<(), bolt::ws::FrameError> {
/// let mut decoder = WsDecoder::client();
/// // A binary frame "ab", a ping "p", and half of a binary frame "cd".
/// let input = [0x82, 0x02, b'a', b'b', 0x89, 0x01, b'p', 0x82, 0x02, b'c'];
/// let mut bolt = Vec::new();
/// let mut pos = 0;
/// loop {
///     let (used, event) = decoder.next_event(&input[pos..])?;
///     pos += used;
///     match event {
///         None => break, // everything consumed; wait for more bytes
///         Some(Event::Data(payload)) => bolt.extend_from_slice(&payload),
///         Some(Event::Ping(p)) => assert_eq!(p, b"p"), // answer with a pong
///         Some(other) => panic!("{other:?}"),
///     }
/// }
/// assert_eq!(bolt, b"abc"); // "c" arrived, "d" has not
/// assert_eq!(pos, input.len());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct WsDecoder {
    role: Role,
    limits: FrameLimits,
    /// Stream offset of the next byte.
    offset: u64,
    head: [u8; MAX_HEADER_LEN],
    head_len: usize,
    frame: Option<Frame>,
    /// Whether a fragmented message expects continuation frames.
    in_message: bool,
    /// Payload bytes of the current message so far (including the current frame).
    message_len: u64,
    control: [u8; MAX_CONTROL_PAYLOAD],
    control_len: usize,
    scratch: Vec<u8>,
    closed: bool,
    after_close: u64,
    error: Option<FrameError>,
}

impl WsDecoder {
    /// A decoder for `role` with [`FrameLimits::for_role`].
    #[must_use]
    pub fn new(role: Role) -> Self {
        Self::with_limits(role, FrameLimits::for_role(role))
    }

    /// A decoder for a client: it reads the server's (unmasked) frames.
    #[must_use]
    pub fn client() -> Self {
        Self::new(Role::Client)
    }

    /// A decoder for a server: it reads the client's (masked) frames.
    #[must_use]
    pub fn server() -> Self {
        Self::new(Role::Server)
    }

    /// A decoder for `role` with the given limits.
    #[must_use]
    pub fn with_limits(role: Role, limits: FrameLimits) -> Self {
        Self {
            role,
            limits,
            offset: 0,
            head: [0; MAX_HEADER_LEN],
            head_len: 0,
            frame: None,
            in_message: false,
            message_len: 0,
            control: [0; MAX_CONTROL_PAYLOAD],
            control_len: 0,
            scratch: Vec::new(),
            closed: false,
            after_close: 0,
            error: None,
        }
    }

    /// The role this decoder reads for.
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
    }

    /// The limits.
    #[must_use]
    pub fn limits(&self) -> FrameLimits {
        self.limits
    }

    /// The number of stream bytes consumed so far.
    #[must_use]
    pub fn stream_offset(&self) -> u64 {
        self.offset
    }

    /// Whether the stream consumed so far ends exactly after a frame, with no
    /// fragmented message open.
    #[must_use]
    pub fn is_at_boundary(&self) -> bool {
        self.head_len == 0 && self.frame.is_none() && !self.in_message
    }

    /// Whether the peer's close frame has been read.
    #[must_use]
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// The number of bytes received after the peer's close frame, and ignored.
    #[must_use]
    pub fn ignored_after_close(&self) -> u64 {
        self.after_close
    }

    /// The error that poisoned the decoder, if any.
    #[must_use]
    pub fn error(&self) -> Option<&FrameError> {
        self.error.as_ref()
    }

    /// Checks that the stream may end here: call it when the connection closes.
    ///
    /// # Errors
    ///
    /// The poisoning error, if any, or [`FrameError::Truncated`] if the stream ended
    /// inside a frame. Ending inside a fragmented message between its frames is not an
    /// error (the Bolt layer notices any truncation of its own stream).
    pub fn end_of_stream(&self) -> Result<(), FrameError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let frame_offset = match self.frame {
            Some(frame) => frame.offset,
            None if self.head_len > 0 => self.offset - self.head_len as u64,
            None => return Ok(()),
        };
        Err(FrameError::Truncated {
            offset: self.offset,
            frame_offset,
        })
    }

    /// Reads the next event from `input`: the number of bytes of `input` used, and the
    /// event, or `None` once all of `input` has been used without completing one (a
    /// partial header or control frame is kept inside the decoder).
    ///
    /// Call it again with `&input[used..]` until it returns `None`.
    ///
    /// # Errors
    ///
    /// Any [`FrameError`]; afterwards every call returns it again.
    pub fn next_event<'a>(
        &'a mut self,
        input: &'a [u8],
    ) -> Result<(usize, Option<Event<'a>>), FrameError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        match self.advance(input) {
            Ok((used, Some(ready))) => Ok((used, Some(self.event(input, ready)))),
            Ok((used, None)) => Ok((used, None)),
            Err(e) => {
                self.error = Some(e.clone());
                Err(e)
            }
        }
    }

    fn event<'a>(&'a self, input: &'a [u8], ready: Ready) -> Event<'a> {
        match ready {
            Ready::Data {
                start,
                len,
                copied,
                offset,
                end_of_frame,
                end_of_message,
            } => {
                let bytes = if copied {
                    &self.scratch
                } else {
                    input.get(start..start + len).unwrap_or_default()
                };
                Event::Data(Payload {
                    bytes,
                    offset,
                    input_start: (!copied).then_some(start),
                    end_of_frame,
                    end_of_message,
                })
            }
            Ready::Control(opcode) => {
                let payload = self.control.get(..self.control_len).unwrap_or_default();
                match opcode {
                    Opcode::Ping => Event::Ping(payload),
                    Opcode::Pong => Event::Pong(payload),
                    _ => Event::Close(match payload {
                        [hi, lo, reason @ ..] => CloseFrame {
                            code: Some(CloseCode(u16::from_be_bytes([*hi, *lo]))),
                            reason: core::str::from_utf8(reason).unwrap_or(""),
                        },
                        _ => CloseFrame {
                            code: None,
                            reason: "",
                        },
                    }),
                }
            }
        }
    }

    fn advance(&mut self, input: &[u8]) -> Result<(usize, Option<Ready>), FrameError> {
        let mut pos = 0;
        loop {
            let mut frame = match self.frame {
                Some(frame) => frame,
                None if self.closed => {
                    let rest = input.len().saturating_sub(pos) as u64;
                    self.after_close = self.after_close.saturating_add(rest);
                    self.offset = self.offset.saturating_add(rest);
                    return Ok((input.len(), None));
                }
                None => {
                    let Some(&b) = input.get(pos) else {
                        return Ok((pos, None));
                    };
                    pos += 1;
                    match self.header_byte(b)? {
                        Some(frame) => frame,
                        None => continue,
                    }
                }
            };
            let remaining = frame.len - frame.done;
            let available = input.len().saturating_sub(pos);
            let take = usize::try_from(remaining).map_or(available, |r| r.min(available));
            if frame.opcode.is_control() {
                let piece = input.get(pos..pos + take).unwrap_or_default();
                if let Some(dst) = self
                    .control
                    .get_mut(self.control_len..self.control_len + take)
                {
                    dst.copy_from_slice(piece);
                }
                self.control_len += take;
                pos += take;
                self.offset += take as u64;
                frame.done += take as u64;
                if frame.done < frame.len {
                    self.frame = Some(frame);
                    return Ok((pos, None));
                }
                self.frame = None;
                let payload = self.control.get_mut(..self.control_len).unwrap_or_default();
                if let Some(key) = frame.mask {
                    apply_mask(payload, key, 0);
                }
                if frame.opcode == Opcode::Close {
                    check_close(payload, self.offset - frame.len)?;
                    self.closed = true;
                }
                return Ok((pos, Some(Ready::Control(frame.opcode))));
            }
            if frame.len == 0 {
                self.frame = None;
                if frame.fin {
                    let ready = Ready::Data {
                        start: pos,
                        len: 0,
                        copied: false,
                        offset: self.offset,
                        end_of_frame: true,
                        end_of_message: true,
                    };
                    return Ok((pos, Some(ready)));
                }
                continue;
            }
            if take == 0 {
                self.frame = Some(frame);
                return Ok((pos, None));
            }
            let start = pos;
            let offset = self.offset;
            let copied = frame.mask.is_some();
            let take = if let Some(key) = frame.mask {
                let take = take.min(MAX_UNMASK_PIECE);
                self.scratch.clear();
                self.scratch
                    .extend_from_slice(input.get(pos..pos + take).unwrap_or_default());
                let position = usize::try_from(frame.done % 4).unwrap_or(0);
                apply_mask(&mut self.scratch, key, position);
                take
            } else {
                take
            };
            pos += take;
            self.offset += take as u64;
            frame.done += take as u64;
            let end_of_frame = frame.done == frame.len;
            self.frame = (!end_of_frame).then_some(frame);
            let ready = Ready::Data {
                start,
                len: take,
                copied,
                offset,
                end_of_frame,
                end_of_message: end_of_frame && frame.fin,
            };
            return Ok((pos, Some(ready)));
        }
    }

    /// Takes one header byte; returns the frame once its header is complete.
    fn header_byte(&mut self, b: u8) -> Result<Option<Frame>, FrameError> {
        let start = self.offset - self.head_len as u64;
        let i = self.head_len;
        if let Some(slot) = self.head.get_mut(i) {
            *slot = b;
        }
        self.head_len = i + 1;
        self.offset += 1;
        match i {
            0 => self.check_first(b, start)?,
            1 => self.check_second(b, start)?,
            _ => {}
        }
        if self.head_len < 2 {
            return Ok(None);
        }
        let [b0, b1, ..] = self.head;
        let (ext, len7) = ext_len_size(b1);
        let masked = b1 & 0x80 != 0;
        let ext_bytes = self.head.get(2..2 + ext).unwrap_or_default();
        let len = read_ext_len(ext_bytes, len7);
        if self.head_len == 2 + ext {
            self.check_len(len, ext, start)?;
        }
        let total = 2 + ext + if masked { 4 } else { 0 };
        if self.head_len < total {
            return Ok(None);
        }
        let mask = masked.then(|| read_mask(self.head.get(2 + ext..).unwrap_or_default()));
        let opcode = Opcode::from_bits(b0);
        let fin = b0 & 0x80 != 0;
        match opcode {
            Opcode::Binary => {
                self.message_len = len;
                self.in_message = !fin;
            }
            Opcode::Continuation => {
                self.message_len = self.message_len.saturating_add(len);
                self.in_message = !fin;
            }
            _ => self.control_len = 0,
        }
        self.head_len = 0;
        Ok(Some(Frame {
            opcode,
            fin,
            len,
            done: 0,
            mask,
            offset: start,
        }))
    }

    fn check_first(&self, b0: u8, start: u64) -> Result<(), FrameError> {
        let offset = start;
        let bits = (b0 >> 4) & 0x07;
        if bits != 0 {
            return Err(FrameError::ReservedBits { offset, bits });
        }
        let fin = b0 & 0x80 != 0;
        match Opcode::from_bits(b0) {
            Opcode::Reserved(opcode) => Err(FrameError::UnknownOpcode { offset, opcode }),
            Opcode::Text => Err(FrameError::TextFrame { offset }),
            op @ (Opcode::Close | Opcode::Ping | Opcode::Pong) if !fin => {
                Err(FrameError::FragmentedControlFrame {
                    offset,
                    opcode: op.bits(),
                })
            }
            Opcode::Continuation if !self.in_message => {
                Err(FrameError::UnexpectedContinuation { offset })
            }
            Opcode::Binary if self.in_message => Err(FrameError::ExpectedContinuation { offset }),
            _ => Ok(()),
        }
    }

    fn check_second(&self, b1: u8, start: u64) -> Result<(), FrameError> {
        let offset = start + 1;
        match (self.role, b1 & 0x80 != 0) {
            (Role::Client, true) => Err(FrameError::MaskedFrame { offset }),
            (Role::Server, false) => Err(FrameError::UnmaskedFrame { offset }),
            _ => Ok(()),
        }
    }

    /// Checks a frame's length once its length field is complete.
    fn check_len(&self, len: u64, ext: usize, start: u64) -> Result<(), FrameError> {
        let offset = start + if ext == 0 { 1 } else { 2 };
        if ext == 8 && len >> 63 != 0 {
            return Err(FrameError::LengthTopBit { offset });
        }
        let opcode = Opcode::from_bits(self.head[0]);
        if opcode.is_control() && len > MAX_CONTROL_PAYLOAD as u64 {
            return Err(FrameError::ControlFrameTooLong { offset, len });
        }
        if (ext == 2 && len < 126) || (ext == 8 && len <= 0xFFFF) {
            return Err(FrameError::NonMinimalLength { offset, len });
        }
        if opcode.is_control() {
            return Ok(());
        }
        let max = self.limits.max_frame_size;
        if len > max {
            return Err(FrameError::FrameTooLarge { offset, len, max });
        }
        let size = if opcode == Opcode::Continuation {
            self.message_len.saturating_add(len)
        } else {
            len
        };
        let max = self.limits.max_message_size;
        if size > max {
            return Err(FrameError::MessageTooLarge { offset, size, max });
        }
        Ok(())
    }
}

/// Validates a close frame's payload (`offset`: its stream offset).
fn check_close(payload: &[u8], offset: u64) -> Result<(), FrameError> {
    match payload {
        [] => Ok(()),
        [_] => Err(FrameError::InvalidClosePayload { offset }),
        [hi, lo, reason @ ..] => {
            let code = u16::from_be_bytes([*hi, *lo]);
            if !CloseCode(code).is_valid() {
                return Err(FrameError::InvalidCloseCode { offset, code });
            }
            match core::str::from_utf8(reason) {
                Ok(_) => Ok(()),
                Err(e) => Err(FrameError::InvalidCloseReason {
                    offset: offset + 2 + e.valid_up_to() as u64,
                }),
            }
        }
    }
}
