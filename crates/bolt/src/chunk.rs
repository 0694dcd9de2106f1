//! Message framing: chunking and de-chunking (docs/protocol.md §4).
//!
//! On the wire every Bolt message is cut into chunks, each a big-endian `u16` length
//! (1…65 535) followed by that many bytes, and ended by the marker `00 00`. A `00 00`
//! between messages is a NOOP keep-alive.
//!
//! * [`Chunker`] frames a message: into a `Vec<u8>` or [`bytes::BytesMut`], either by
//!   copying a finished message ([`Chunker::write_message`]) or by letting the encoder
//!   write straight into the output and patching the chunk headers in afterwards
//!   ([`Chunker::start_message`] / [`Chunker::finish_message`]).
//! * [`Dechunker`] is a push parser: feed it whatever the transport delivered and take
//!   out complete messages. A message that lies in one chunk inside one fed buffer is
//!   handed out as a slice **of that buffer** (no copy); a message of several chunks, or
//!   one that straddles two feeds, is assembled in an internal buffer that is reused.
//!
//! # Example
//!
//! ```
//! use bolt::chunk::{Chunker, Dechunker};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let chunker = Chunker::new(4)?; // tiny chunks, to show the framing
//! let mut wire = Vec::new();
//! chunker.write_message(&[0xB0, 0x0F], &mut wire)?; // RESET
//! chunker.write_message(&[0xB1, 0x3F, 0xA1, 0x81, 0x6E, 0xFF], &mut wire)?; // PULL {"n": -1}
//! assert_eq!(wire[..6], [0x00, 0x02, 0xB0, 0x0F, 0x00, 0x00]);
//!
//! let mut dechunker = Dechunker::new();
//! // The transport may split the stream anywhere.
//! let (first, second) = wire.split_at(9);
//! let mut seen = Vec::new();
//! for piece in [first, second] {
//!     let mut feed = dechunker.feed(piece);
//!     while let Some(message) = feed.next_message()? {
//!         seen.push((message.to_vec(), message.is_copied()));
//!     }
//! }
//! assert_eq!(seen[0], (vec![0xB0, 0x0F], false)); // one chunk inside one read: borrowed
//! assert_eq!(seen[1], (vec![0xB1, 0x3F, 0xA1, 0x81, 0x6E, 0xFF], true)); // two chunks: copied
//! # Ok(())
//! # }
//! ```

use core::ops::{Deref, Range};
use std::collections::VecDeque;

use packstream::Sink;

/// The largest chunk payload the wire format allows (a `u16` length).
pub const MAX_CHUNK_SIZE: usize = 65_535;

/// The chunk size [`Chunker::default`] uses: the largest allowed.
pub const DEFAULT_MAX_CHUNK_SIZE: usize = MAX_CHUNK_SIZE;

/// The end-of-message marker, and on its own between messages a NOOP.
pub const END_MARKER: [u8; 2] = [0, 0];

/// The default maximum size of one de-chunked message: 64 MiB.
///
/// Bolt messages are usually small (a RECORD row, a SUCCESS summary), but one RECORD can
/// hold a large string or list; 64 MiB leaves room for those while bounding what a peer
/// can make the receiver buffer. Raise it with [`DechunkLimits::max_message_size`].
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

/// The default maximum number of chunks in one message: 1 048 576 (2^20).
///
/// Real senders use chunks of at least about 1 400 bytes (docs/protocol.md §4), so a 64 MiB
/// message needs at most ~48 000 of them. The cap stops a peer from spending the
/// receiver's time on floods of tiny (1-byte) chunks while still accepting any sender
/// whose chunks average 64 bytes or more at the default message size.
pub const DEFAULT_MAX_CHUNKS: u32 = 1 << 20;

/// A misuse of the [`Chunker`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChunkError {
    /// The maximum chunk size must be 1…65 535.
    #[error("invalid maximum chunk size {size}: expected 1..=65535")]
    InvalidMaxChunkSize {
        /// The size asked for.
        size: usize,
    },
    /// An empty message cannot be framed: `00 00` alone reads as a NOOP.
    #[error("cannot frame an empty message (it would read as a NOOP)")]
    EmptyMessage,
    /// [`Chunker::finish_message`] got a start position beyond the output's end: the
    /// output was truncated or the position belongs to another buffer.
    #[error("message start {start} lies beyond the end of the output ({len} bytes)")]
    InvalidStart {
        /// The start position given.
        start: usize,
        /// The output's length.
        len: usize,
    },
}

packstream::error_kinds! {
    ChunkError;
    own {
        ChunkError::InvalidMaxChunkSize { .. } => "invalid_max_chunk_size",
        ChunkError::EmptyMessage => "empty_message",
        ChunkError::InvalidStart { .. } => "invalid_start",
    }
    wrapped {}
}

impl ChunkError {
    /// Always `None`: these are misuses of the [`Chunker`], not faults in bytes.
    #[must_use]
    pub const fn offset(&self) -> Option<u64> {
        None
    }
}

/// The buffers a [`Chunker`] frames into: `packstream`'s one output-buffer trait
/// (`Vec<u8>`, `BytesMut`, or a `&mut` of either), under the name this module has
/// always used.
pub use packstream::Sink as ChunkSink;

/// Where a message started by [`Chunker::start_message`] begins in its output buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use = "pass it to Chunker::finish_message"]
pub struct MessageStart(usize);

impl MessageStart {
    /// The position (in the output buffer) of the message's first chunk header.
    #[must_use]
    pub fn position(self) -> usize {
        self.0
    }
}

/// Frames messages into chunks of at most a configured size, followed by `00 00`.
///
/// Output is byte-identical to what any sender with the same chunk size produces: full
/// chunks of `max_chunk_size` bytes and one shorter last chunk. Note that official
/// drivers use smaller sizes (Python 16 384, Java 16 383; docs/protocol.md §4); receivers
/// must accept any size.
///
/// ```
/// use bolt::chunk::Chunker;
///
/// let mut out = Vec::new();
/// Chunker::default().write_message(&[0xB0, 0x02], &mut out)?; // GOODBYE
/// assert_eq!(out, [0x00, 0x02, 0xB0, 0x02, 0x00, 0x00]);
/// # Ok::<(), bolt::chunk::ChunkError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Chunker {
    max: u16,
}

impl Default for Chunker {
    /// A chunker with [`DEFAULT_MAX_CHUNK_SIZE`] (65 535).
    fn default() -> Self {
        Self { max: u16::MAX }
    }
}

impl Chunker {
    /// A chunker whose chunks carry at most `max_chunk_size` bytes.
    ///
    /// # Errors
    ///
    /// [`ChunkError::InvalidMaxChunkSize`] unless `1 <= max_chunk_size <= 65_535`.
    pub fn new(max_chunk_size: usize) -> Result<Self, ChunkError> {
        match u16::try_from(max_chunk_size) {
            Ok(max) if max > 0 => Ok(Self { max }),
            _ => Err(ChunkError::InvalidMaxChunkSize {
                size: max_chunk_size,
            }),
        }
    }

    /// The largest chunk payload this chunker writes.
    #[must_use]
    pub fn max_chunk_size(&self) -> usize {
        usize::from(self.max)
    }

    /// The exact number of bytes framing a message of `message_len` bytes takes: the
    /// payload, 2 header bytes per chunk and the 2-byte end marker.
    #[must_use]
    pub fn framed_len(&self, message_len: usize) -> usize {
        let chunks = message_len.div_ceil(self.max_chunk_size());
        message_len
            .saturating_add(chunks.saturating_mul(2))
            .saturating_add(END_MARKER.len())
    }

    /// Appends `message` to `out` as chunks plus the end marker. Reserves the exact
    /// space once. Returns the number of bytes appended.
    ///
    /// # Errors
    ///
    /// [`ChunkError::EmptyMessage`] if `message` is empty (nothing is written).
    pub fn write_message<S: ChunkSink>(
        &self,
        message: &[u8],
        out: &mut S,
    ) -> Result<usize, ChunkError> {
        if message.is_empty() {
            return Err(ChunkError::EmptyMessage);
        }
        let total = self.framed_len(message.len());
        Sink::reserve(out, total);
        for chunk in message.chunks(self.max_chunk_size()) {
            out.put_slice(&chunk_header(chunk.len()));
            out.put_slice(chunk);
        }
        out.put_slice(&END_MARKER);
        Ok(total)
    }

    /// Appends a NOOP (`00 00`), the keep-alive that may go between messages (v4.1+).
    pub fn write_noop<S: ChunkSink>(out: &mut S) {
        out.put_slice(&END_MARKER);
    }

    /// Starts a message that the caller will encode directly into `out`: writes a
    /// 2-byte placeholder header and returns where it is. Encode the message by
    /// appending to `out`, then call [`Chunker::finish_message`].
    ///
    /// This avoids copying the message: when it fits in one chunk (the common case),
    /// finishing only fills in the header and appends `00 00`. A longer message is split
    /// in place, moving each later chunk up by the header bytes inserted before it.
    ///
    /// ```
    /// use bolt::chunk::Chunker;
    ///
    /// let chunker = Chunker::default();
    /// let mut out = Vec::new();
    /// let start = chunker.start_message(&mut out);
    /// out.extend_from_slice(&[0xB0, 0x0F]); // the encoder writes RESET
    /// chunker.finish_message(&mut out, start)?;
    /// assert_eq!(out, [0x00, 0x02, 0xB0, 0x0F, 0x00, 0x00]);
    /// # Ok::<(), bolt::chunk::ChunkError>(())
    /// ```
    pub fn start_message<S: ChunkSink>(&self, out: &mut S) -> MessageStart {
        let start = out.written_len();
        out.put_slice(&[0, 0]);
        MessageStart(start)
    }

    /// Finishes a message begun with [`Chunker::start_message`]: everything appended to
    /// `out` since then is the message. Writes the chunk headers and the end marker and
    /// returns the framed length (as [`Chunker::framed_len`]).
    ///
    /// # Errors
    ///
    /// [`ChunkError::EmptyMessage`] if nothing was appended (the placeholder is removed
    /// again), [`ChunkError::InvalidStart`] if `start` lies beyond the end of `out`.
    pub fn finish_message<S: ChunkSink>(
        &self,
        out: &mut S,
        start: MessageStart,
    ) -> Result<usize, ChunkError> {
        let s = start.0;
        let end = out.written_len();
        let invalid = ChunkError::InvalidStart { start: s, len: end };
        let payload_start = s
            .checked_add(2)
            .filter(|p| *p <= end)
            .ok_or(invalid.clone())?;
        let len = end - payload_start;
        if len == 0 {
            out.truncate_to(s);
            return Err(ChunkError::EmptyMessage);
        }
        let max = self.max_chunk_size();
        let chunks = len.div_ceil(max);
        let total = self.framed_len(len);
        if chunks > 1 {
            // Make room for the extra headers and move every chunk after the first up,
            // last one first, so nothing is overwritten before it has moved.
            Sink::reserve(out, 2 * (chunks - 1) + END_MARKER.len());
            out.resize_to(end + 2 * (chunks - 1));
            let region = out.bytes_mut().get_mut(s..).ok_or(invalid)?;
            for i in (1..chunks).rev() {
                let src = 2 + i * max;
                let chunk_len = max.min(len - i * max);
                let dst = src + 2 * i;
                if src + chunk_len <= region.len() && dst + chunk_len <= region.len() {
                    region.copy_within(src..src + chunk_len, dst);
                }
                if let Some(h) = region.get_mut(dst - 2..dst) {
                    h.copy_from_slice(&chunk_header(chunk_len));
                }
            }
            if let Some(h) = region.get_mut(..2) {
                h.copy_from_slice(&chunk_header(max));
            }
        } else if let Some(h) = out.bytes_mut().get_mut(s..payload_start) {
            h.copy_from_slice(&chunk_header(len));
        }
        out.put_slice(&END_MARKER);
        Ok(total)
    }
}

/// The big-endian header of a chunk of `len` bytes (`len` is at most 65 535 here).
fn chunk_header(len: usize) -> [u8; 2] {
    u16::try_from(len).unwrap_or(u16::MAX).to_be_bytes()
}

// ---------------------------------------------------------------------------------------
// Dechunker
// ---------------------------------------------------------------------------------------

/// A malformed or over-limit chunk stream. Offsets are absolute positions in the stream
/// given to the [`Dechunker`] (the first byte ever fed is offset 0).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DechunkError {
    /// The chunks of one message declare more bytes than
    /// [`DechunkLimits::max_message_size`]. Detected from the chunk header, before its
    /// payload is buffered.
    #[error(
        "stream offset {offset}: a chunk header makes the message that starts at offset \
         {message_offset} {size} bytes long; expected at most {max}"
    )]
    MessageTooLarge {
        /// Offset of the chunk header that exceeded the limit.
        offset: u64,
        /// Offset of the message's first chunk header.
        message_offset: u64,
        /// The message size declared so far, including that chunk.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// One message has more chunks than [`DechunkLimits::max_chunks`].
    #[error(
        "stream offset {offset}: the message that starts at offset {message_offset} has \
         more than {max} chunks"
    )]
    TooManyChunks {
        /// Offset of the chunk header that exceeded the limit.
        offset: u64,
        /// Offset of the message's first chunk header.
        message_offset: u64,
        /// The limit.
        max: u32,
    },
    /// The stream ended inside a message or chunk header (see
    /// [`Dechunker::end_of_stream`]).
    #[error(
        "stream offset {offset}: the stream ended inside the message or chunk header that \
         starts at offset {message_offset}; expected more bytes"
    )]
    Truncated {
        /// The end of the stream.
        offset: u64,
        /// Where the unfinished message (or lone header byte) starts.
        message_offset: u64,
    },
    /// An internal consistency check failed. Never produced unless this crate has a bug.
    #[error("stream offset {offset}: internal dechunker error (a bug in boltcodec)")]
    Internal {
        /// The stream offset being processed.
        offset: u64,
    },
}

packstream::error_kinds! {
    DechunkError;
    own {
        DechunkError::MessageTooLarge { .. } => "message_too_large",
        DechunkError::TooManyChunks { .. } => "too_many_chunks",
        DechunkError::Truncated { .. } => "truncated",
        DechunkError::Internal { .. } => "internal",
    }
    wrapped {}
}

impl DechunkError {
    /// Where the error was found, counted from the first byte ever fed to the
    /// [`Dechunker`] (for a connection: the first byte after the handshake reply). For
    /// the limits, the chunk header that crossed them; for `Truncated`, the end of the
    /// stream.
    ///
    /// ```
    /// use bolt::chunk::{DechunkLimits, Dechunker};
    /// let mut d = Dechunker::with_limits(DechunkLimits { max_message_size: 4, ..DechunkLimits::default() });
    /// let err = d.feed(&[0x00, 0x00, 0x00, 0x05]).next_message().unwrap_err();
    /// assert_eq!((err.kind(), err.offset(), err.message_offset()), ("message_too_large", 2, 2));
    /// ```
    #[must_use]
    pub const fn offset(&self) -> u64 {
        match *self {
            DechunkError::MessageTooLarge { offset, .. }
            | DechunkError::TooManyChunks { offset, .. }
            | DechunkError::Truncated { offset, .. }
            | DechunkError::Internal { offset } => offset,
        }
    }

    /// Where the message the error is about starts (its first chunk header), on the same
    /// scale as [`DechunkError::offset`]; for `Internal`, the same as the offset.
    #[must_use]
    pub const fn message_offset(&self) -> u64 {
        match *self {
            DechunkError::MessageTooLarge { message_offset, .. }
            | DechunkError::TooManyChunks { message_offset, .. }
            | DechunkError::Truncated { message_offset, .. } => message_offset,
            DechunkError::Internal { offset } => offset,
        }
    }
}

/// Limits a [`Dechunker`] enforces on each message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DechunkLimits {
    /// The largest accepted message, in payload bytes (default
    /// [`DEFAULT_MAX_MESSAGE_SIZE`], 64 MiB). Checked at every chunk header, before the
    /// chunk's payload is buffered.
    pub max_message_size: usize,
    /// The most chunks one message may have (default [`DEFAULT_MAX_CHUNKS`]).
    pub max_chunks: u32,
}

impl Default for DechunkLimits {
    fn default() -> Self {
        Self {
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            max_chunks: DEFAULT_MAX_CHUNKS,
        }
    }
}

/// One de-chunked message: the bytes of one PackStream structure, without chunk headers.
///
/// It borrows either the buffer that was fed ([`Message::is_copied`] is `false`, and
/// [`Message::input_range`] says where) or the dechunker's internal buffer. It derefs to
/// `[u8]`.
///
/// To get an owned, reference-counted message without copying from a `bytes::Bytes`
/// input, use `input.slice(range)` with [`Message::input_range`] when it is `Some`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Message<'a> {
    bytes: &'a [u8],
    offset: u64,
    chunks: u32,
    input_start: Option<usize>,
}

impl<'a> Message<'a> {
    /// The message bytes.
    #[must_use]
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The stream offset of the message's first chunk header.
    #[must_use]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// How many chunks carried the message.
    #[must_use]
    pub fn chunk_count(&self) -> u32 {
        self.chunks
    }

    /// `true` if the bytes were copied into the dechunker's buffer (several chunks, or
    /// split across feeds); `false` if they are a slice of the fed input.
    #[must_use]
    pub fn is_copied(&self) -> bool {
        self.input_start.is_none()
    }

    /// Where the message lies in the input of the feed that produced it, if it was not
    /// copied.
    #[must_use]
    pub fn input_range(&self) -> Option<Range<usize>> {
        self.input_start.map(|s| s..s + self.bytes.len())
    }
}

impl Deref for Message<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.bytes
    }
}

impl AsRef<[u8]> for Message<'_> {
    fn as_ref(&self) -> &[u8] {
        self.bytes
    }
}

/// Where a framed message lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Loc {
    /// `input[start..start + len]` of the current feed.
    Input,
    /// `buf[start..start + len]` of the dechunker.
    Buf,
}

/// A framed message, before it is turned into a [`Message`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    loc: Loc,
    start: usize,
    len: usize,
    offset: u64,
    chunks: u32,
}

/// Push parser that turns a chunked byte stream back into messages.
///
/// Feed bytes in any pieces with [`Dechunker::feed`] and take the complete messages out of
/// the returned [`Feed`]; or take all messages of a piece at once with
/// [`Dechunker::feed_batch`].
///
/// * **Zero copy where possible.** A message sent as one chunk whose bytes, end marker
///   included, lie in one fed buffer is returned as a slice of that buffer. Otherwise
///   (several chunks, or a message straddling feeds) its payload is assembled in an
///   internal buffer that is reused from message to message.
/// * **Incomplete tails** (part of a header, chunk or message at the end of a fed buffer)
///   are kept inside the dechunker: only those bytes are copied.
/// * **NOOPs** (`00 00` between messages) are skipped and counted
///   ([`Dechunker::noop_count`]).
/// * **Limits** ([`DechunkLimits`]) are checked at each chunk header, before its payload
///   is buffered.
/// * **Poisoning.** After an error the stream is out of sync and cannot be trusted: the
///   dechunker keeps returning that error (after any messages that were complete before
///   it) until [`Dechunker::reset`]. Close the connection.
///
/// ```
/// use bolt::chunk::Dechunker;
///
/// let mut d = Dechunker::new();
/// let wire = [0x00, 0x00, 0x00, 0x02, 0xB0, 0x7E, 0x00, 0x00, 0x00, 0x03, 0xB1, 0x70];
/// let mut feed = d.feed(&wire);
/// let ignored = feed.next_message()?.expect("complete");
/// assert_eq!(ignored.bytes(), [0xB0, 0x7E]);
/// assert!(!ignored.is_copied());
/// assert!(feed.next_message()?.is_none()); // SUCCESS is incomplete
/// drop(feed);
/// assert_eq!(d.noop_count(), 1);
///
/// let mut feed = d.feed(&[0xA0, 0x00, 0x00]);
/// let success = feed.next_message()?.expect("complete");
/// assert_eq!(success.bytes(), [0xB1, 0x70, 0xA0]);
/// assert!(success.is_copied()); // it straddled two feeds
/// # Ok::<(), bolt::chunk::DechunkError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Dechunker {
    limits: DechunkLimits,
    /// The first byte of a chunk header whose second byte has not arrived yet.
    half: Option<u8>,
    /// Payload bytes still to come in the current chunk.
    remaining: usize,
    /// Whether a message is in progress (at least one chunk header seen).
    in_message: bool,
    /// Payload bytes declared so far for the current message.
    msg_len: usize,
    /// Chunks seen so far in the current message.
    msg_chunks: u32,
    /// Stream offset of the current message's first chunk header.
    msg_offset: u64,
    /// `[messages already handed out or queued | the current message's payload]`.
    buf: Vec<u8>,
    /// Where the current message's payload starts in `buf`.
    cur_start: usize,
    /// Messages completed while draining a dropped [`Feed`], not yet handed out.
    ready: VecDeque<Span>,
    /// Reused list of the messages of the last batch.
    spans: Vec<Span>,
    /// Stream offset of the first byte of the next feed.
    offset: u64,
    noops: u64,
    messages: u64,
    error: Option<DechunkError>,
}

impl Dechunker {
    /// A dechunker with the default [`DechunkLimits`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// A dechunker with these limits.
    #[must_use]
    pub fn with_limits(limits: DechunkLimits) -> Self {
        Self {
            limits,
            ..Self::default()
        }
    }

    /// The limits in force.
    #[must_use]
    pub fn limits(&self) -> DechunkLimits {
        self.limits
    }

    /// How many NOOPs (`00 00` between messages) were skipped.
    #[must_use]
    pub fn noop_count(&self) -> u64 {
        self.noops
    }

    /// How many messages were framed so far (handed out or queued).
    #[must_use]
    pub fn message_count(&self) -> u64 {
        self.messages
    }

    /// The stream offset of the next byte to be fed: the total number of bytes fed.
    #[must_use]
    pub fn stream_offset(&self) -> u64 {
        self.offset
    }

    /// Whether the stream is between messages: no partial header, chunk or message, and
    /// no queued message.
    #[must_use]
    pub fn is_at_boundary(&self) -> bool {
        !self.in_message && self.half.is_none() && self.ready.is_empty()
    }

    /// The error the dechunker is poisoned with, if any.
    #[must_use]
    pub fn error(&self) -> Option<&DechunkError> {
        self.error.as_ref()
    }

    /// How many bytes the internal buffer holds (partial and queued messages, and the
    /// last copied message until the next call).
    #[must_use]
    pub fn buffered_len(&self) -> usize {
        self.buf.len()
    }

    /// The internal buffer's capacity. It grows to the largest copied message and is
    /// never shrunk automatically (so a stream of large messages does not reallocate).
    #[must_use]
    pub fn buffer_capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Gives back buffer memory above `min_capacity` (and above what is buffered), for
    /// example after a rare huge message on a long-lived connection.
    pub fn shrink_buffer_to(&mut self, min_capacity: usize) {
        self.release();
        self.buf.shrink_to(min_capacity);
    }

    /// Clears all state, errors and counters (keeping the limits and the buffer's
    /// capacity), as for a new connection.
    pub fn reset(&mut self) {
        let limits = self.limits;
        let mut buf = core::mem::take(&mut self.buf);
        let mut spans = core::mem::take(&mut self.spans);
        buf.clear();
        spans.clear();
        *self = Self {
            limits,
            buf,
            spans,
            ..Self::default()
        };
    }

    /// Call when the transport reached the end of the stream: reports a stream that
    /// stopped inside a message or a chunk header. Messages still queued are not an
    /// error; take them out with `feed(&[])`.
    ///
    /// # Errors
    ///
    /// The poisoning error, or [`DechunkError::Truncated`].
    pub fn end_of_stream(&self) -> Result<(), DechunkError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.in_message {
            return Err(DechunkError::Truncated {
                offset: self.offset,
                message_offset: self.msg_offset,
            });
        }
        if self.half.is_some() {
            return Err(DechunkError::Truncated {
                offset: self.offset,
                message_offset: self.offset.saturating_sub(1),
            });
        }
        Ok(())
    }

    /// Starts feeding `input`. Take messages out with [`Feed::next_message`] until it
    /// returns `Ok(None)`.
    ///
    /// When the [`Feed`] is dropped, whatever of `input` it has not processed is
    /// processed then: incomplete data is kept, and complete messages not taken out
    /// (when the loop stopped early) are copied and queued; the next feed returns them
    /// first. Nothing is lost either way.
    pub fn feed<'d, 'i>(&'d mut self, input: &'i [u8]) -> Feed<'d, 'i> {
        let base = self.offset;
        Feed {
            dechunker: self,
            input,
            pos: 0,
            base,
        }
    }

    /// Feeds `input` and returns every message that completes, all at once (for example
    /// a whole batch of RECORDs for one native call from a binding).
    ///
    /// Messages that lie in one chunk inside `input` borrow it; the others are copied
    /// into the internal buffer, which is only reclaimed at the next call. If an error
    /// occurs, the batch holds the messages before it and [`Batch::error`] reports it (the
    /// dechunker is poisoned).
    pub fn feed_batch<'s>(&'s mut self, input: &'s [u8]) -> Batch<'s> {
        self.release();
        self.spans.clear();
        self.spans.extend(self.ready.drain(..));
        let base = self.offset;
        let mut pos = 0;
        let mut error = self.error.clone();
        if error.is_none() {
            loop {
                match self.step(input, &mut pos, base) {
                    Ok(Some(span)) => self.spans.push(span),
                    Ok(None) => break,
                    Err(e) => {
                        self.error = Some(e.clone());
                        error = Some(e);
                        break;
                    }
                }
            }
        }
        self.offset = base.saturating_add(input.len() as u64);
        Batch {
            input,
            buf: &self.buf,
            spans: &self.spans,
            error,
        }
    }

    /// Reclaims the buffer space of messages already handed out. Only called when no
    /// [`Message`] or [`Batch`] can be alive (they borrow the dechunker).
    fn release(&mut self) {
        if !self.ready.is_empty() || self.cur_start == 0 {
            return;
        }
        if self.cur_start >= self.buf.len() {
            self.buf.clear();
        } else {
            self.buf.drain(..self.cur_start);
        }
        self.cur_start = 0;
    }

    /// Checks that a chunk of `size` bytes (header at `offset`) may join a message that
    /// already has `chunks` chunks and `len` bytes.
    fn check_limits(
        &self,
        len: usize,
        chunks: u32,
        size: usize,
        offset: u64,
        message_offset: u64,
    ) -> Result<usize, DechunkError> {
        let total = len.saturating_add(size);
        if total > self.limits.max_message_size {
            return Err(DechunkError::MessageTooLarge {
                offset,
                message_offset,
                size: total,
                max: self.limits.max_message_size,
            });
        }
        if chunks >= self.limits.max_chunks {
            return Err(DechunkError::TooManyChunks {
                offset,
                message_offset,
                max: self.limits.max_chunks,
            });
        }
        Ok(total)
    }

    /// Checks the limits for a new chunk of `size` bytes whose header is at `offset`, and
    /// registers it in the current message (starting one if needed).
    fn begin_chunk(&mut self, size: usize, offset: u64) -> Result<(), DechunkError> {
        if !self.in_message {
            self.in_message = true;
            self.msg_offset = offset;
            self.msg_len = 0;
            self.msg_chunks = 0;
            self.cur_start = self.buf.len();
        }
        self.msg_len =
            self.check_limits(self.msg_len, self.msg_chunks, size, offset, self.msg_offset)?;
        self.msg_chunks += 1;
        self.remaining = size;
        self.buf.reserve(size);
        Ok(())
    }

    /// Advances through `input[*pos..]` until a message completes (returned), the input
    /// ends (`Ok(None)`; partial data is kept) or an error occurs. `base` is the stream
    /// offset of `input[0]`.
    fn step(
        &mut self,
        input: &[u8],
        pos: &mut usize,
        base: u64,
    ) -> Result<Option<Span>, DechunkError> {
        loop {
            let rest = input.get(*pos..).unwrap_or_default();
            let here = base.saturating_add(*pos as u64);
            if self.remaining > 0 {
                // Inside a chunk's payload: copy what is there.
                let take = self.remaining.min(rest.len());
                let Some(bytes) = rest.get(..take) else {
                    return Err(DechunkError::Internal { offset: here });
                };
                if take == 0 {
                    return Ok(None);
                }
                self.buf.extend_from_slice(bytes);
                self.remaining -= take;
                *pos += take;
                continue;
            }
            // At a chunk header.
            let (size, header_offset, header_len) = match (self.half, rest) {
                (_, []) => return Ok(None),
                (Some(hi), [lo, ..]) => {
                    self.half = None;
                    (u16::from_be_bytes([hi, *lo]), here.saturating_sub(1), 1)
                }
                (None, [hi]) => {
                    self.half = Some(*hi);
                    *pos += 1;
                    return Ok(None);
                }
                (None, [hi, lo, tail @ ..]) => {
                    let size = u16::from_be_bytes([*hi, *lo]);
                    // Fast path: a whole one-chunk message in this input is returned as a
                    // slice of it.
                    if !self.in_message && size > 0 {
                        let len = usize::from(size);
                        if tail.get(len..len + 2) == Some(&END_MARKER[..]) {
                            self.check_limits(0, 0, len, here, here)?;
                            self.messages += 1;
                            let span = Span {
                                loc: Loc::Input,
                                start: *pos + 2,
                                len,
                                offset: here,
                                chunks: 1,
                            };
                            *pos += len + 4;
                            return Ok(Some(span));
                        }
                    }
                    (size, here, 2)
                }
            };
            *pos += header_len;
            if size == 0 {
                if !self.in_message {
                    self.noops += 1;
                    continue;
                }
                // End of message: its payload is buf[cur_start..].
                let span = Span {
                    loc: Loc::Buf,
                    start: self.cur_start,
                    len: self.buf.len().saturating_sub(self.cur_start),
                    offset: self.msg_offset,
                    chunks: self.msg_chunks,
                };
                self.in_message = false;
                self.cur_start = self.buf.len();
                self.messages += 1;
                return Ok(Some(span));
            }
            self.begin_chunk(usize::from(size), header_offset)?;
        }
    }

    /// Turns a span into a message, borrowing `input` or the buffer.
    fn message<'a>(&'a self, input: &'a [u8], span: Span) -> Result<Message<'a>, DechunkError> {
        let (source, input_start) = match span.loc {
            Loc::Input => (input, Some(span.start)),
            Loc::Buf => (self.buf.as_slice(), None),
        };
        let bytes = source
            .get(span.start..span.start.saturating_add(span.len))
            .ok_or(DechunkError::Internal {
                offset: span.offset,
            })?;
        Ok(Message {
            bytes,
            offset: span.offset,
            chunks: span.chunks,
            input_start,
        })
    }

    /// Processes the rest of a feed's input when the [`Feed`] is dropped: complete
    /// messages are copied to the buffer and queued, partial data kept.
    fn finish_feed(&mut self, input: &[u8], mut pos: usize, base: u64) {
        if self.error.is_none() {
            loop {
                match self.step(input, &mut pos, base) {
                    Ok(Some(span)) => {
                        let span = match span.loc {
                            Loc::Buf => span,
                            Loc::Input => {
                                // No message is in progress after a fast-path message, so
                                // the copy lands exactly at the end of the buffer.
                                let start = self.buf.len();
                                let bytes = input
                                    .get(span.start..span.start + span.len)
                                    .unwrap_or_default();
                                self.buf.extend_from_slice(bytes);
                                self.cur_start = self.buf.len();
                                Span {
                                    loc: Loc::Buf,
                                    start,
                                    ..span
                                }
                            }
                        };
                        self.ready.push_back(span);
                    }
                    Ok(None) => break,
                    Err(e) => {
                        self.error = Some(e);
                        break;
                    }
                }
            }
        }
        self.offset = base.saturating_add(input.len() as u64);
    }
}

/// One fed buffer being taken apart; see [`Dechunker::feed`].
///
/// Dropping it finishes processing the input (see there).
#[derive(Debug)]
pub struct Feed<'d, 'i> {
    dechunker: &'d mut Dechunker,
    input: &'i [u8],
    pos: usize,
    base: u64,
}

impl Feed<'_, '_> {
    /// The next complete message, or `Ok(None)` when the input holds no further complete
    /// message (its tail is then kept in the dechunker).
    ///
    /// Messages queued by an earlier feed that was dropped early come first.
    ///
    /// # Errors
    ///
    /// [`DechunkError::MessageTooLarge`] or [`DechunkError::TooManyChunks`] at the
    /// offending chunk header; afterwards the dechunker is poisoned and every call
    /// returns the same error.
    pub fn next_message(&mut self) -> Result<Option<Message<'_>>, DechunkError> {
        let d = &mut *self.dechunker;
        // Every message handed out before borrowed `self`, so none is alive now.
        d.release();
        if let Some(span) = d.ready.pop_front() {
            return d.message(self.input, span).map(Some);
        }
        if let Some(e) = &d.error {
            return Err(e.clone());
        }
        match d.step(self.input, &mut self.pos, self.base) {
            Ok(Some(span)) => d.message(self.input, span).map(Some),
            Ok(None) => Ok(None),
            Err(e) => {
                d.error = Some(e.clone());
                Err(e)
            }
        }
    }

    /// How many bytes of the input have not been processed yet.
    #[must_use]
    pub fn unprocessed(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }
}

impl Drop for Feed<'_, '_> {
    fn drop(&mut self) {
        self.dechunker.finish_feed(self.input, self.pos, self.base);
    }
}

/// All messages completed by one [`Dechunker::feed_batch`] call.
#[derive(Clone, Debug)]
#[must_use = "a batch holds messages and possibly an error"]
pub struct Batch<'a> {
    input: &'a [u8],
    buf: &'a [u8],
    spans: &'a [Span],
    error: Option<DechunkError>,
}

impl<'a> Batch<'a> {
    /// The number of messages.
    #[must_use]
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether the batch holds no message.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The error that stopped the batch, if any (the dechunker is then poisoned).
    #[must_use]
    pub fn error(&self) -> Option<&DechunkError> {
        self.error.as_ref()
    }

    /// The `index`-th message.
    #[must_use]
    pub fn get(&self, index: usize) -> Option<Message<'a>> {
        self.spans.get(index).and_then(|s| self.resolve(*s))
    }

    /// The messages in stream order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Message<'a>> + '_ {
        self.spans.iter().map(|s| {
            self.resolve(*s).unwrap_or(Message {
                bytes: &[],
                offset: s.offset,
                chunks: s.chunks,
                input_start: None,
            })
        })
    }

    fn resolve(&self, span: Span) -> Option<Message<'a>> {
        let (source, input_start) = match span.loc {
            Loc::Input => (self.input, Some(span.start)),
            Loc::Buf => (self.buf, None),
        };
        let bytes = source.get(span.start..span.start.saturating_add(span.len))?;
        Some(Message {
            bytes,
            offset: span.offset,
            chunks: span.chunks,
            input_start,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::BytesMut;

    /// (bytes, copied, offset, chunk count) of each message.
    type Collected = Vec<(Vec<u8>, bool, u64, u32)>;

    fn collect(d: &mut Dechunker, input: &[u8]) -> Result<Collected, DechunkError> {
        let mut out = Vec::new();
        let mut feed = d.feed(input);
        while let Some(m) = feed.next_message()? {
            out.push((m.to_vec(), m.is_copied(), m.offset(), m.chunk_count()));
        }
        Ok(out)
    }

    fn frame(max: usize, messages: &[&[u8]]) -> Vec<u8> {
        let c = Chunker::new(max).unwrap();
        let mut out = Vec::new();
        for m in messages {
            c.write_message(m, &mut out).unwrap();
        }
        out
    }

    #[test]
    fn chunker_validates_size() {
        assert_eq!(
            Chunker::new(0),
            Err(ChunkError::InvalidMaxChunkSize { size: 0 })
        );
        assert_eq!(
            Chunker::new(65_536),
            Err(ChunkError::InvalidMaxChunkSize { size: 65_536 })
        );
        assert_eq!(Chunker::new(1).unwrap().max_chunk_size(), 1);
        assert_eq!(Chunker::new(65_535).unwrap(), Chunker::default());
        assert_eq!(Chunker::default().max_chunk_size(), DEFAULT_MAX_CHUNK_SIZE);
    }

    /// docs/protocol.md §4 examples.
    #[test]
    fn chunker_reference_examples() {
        let m16: Vec<u8> = (0..16).collect();
        let mut expected = vec![0x00, 0x10];
        expected.extend(&m16);
        expected.extend([0, 0]);
        assert_eq!(frame(65_535, &[&m16]), expected);

        let m20: Vec<u8> = (0..20).collect();
        let mut expected = vec![0x00, 0x10];
        expected.extend(&m20[..16]);
        expected.extend([0x00, 0x04]);
        expected.extend(&m20[16..]);
        expected.extend([0, 0]);
        assert_eq!(frame(16, &[&m20]), expected);

        assert_eq!(
            frame(65_535, &[&[0xB1, 0x3F, 0xA1, 0x81, 0x6E, 0xFF]]),
            [0x00, 0x06, 0xB1, 0x3F, 0xA1, 0x81, 0x6E, 0xFF, 0x00, 0x00]
        );
        assert_eq!(
            frame(65_535, &[&[0xB0, 0x02]]),
            [0x00, 0x02, 0xB0, 0x02, 0x00, 0x00]
        );
    }

    #[test]
    fn chunker_sizes_and_sinks() {
        let msg: Vec<u8> = (0..=255u8).cycle().take(200_000).collect();
        for max in [1, 2, 3, 7, 255, 16_383, 16_384, 65_534, 65_535] {
            let c = Chunker::new(max).unwrap();
            let mut v = Vec::new();
            let n = c.write_message(&msg, &mut v).unwrap();
            assert_eq!(n, v.len());
            assert_eq!(n, c.framed_len(msg.len()));
            let mut b = BytesMut::new();
            c.write_message(&msg, &mut b).unwrap();
            assert_eq!(&b[..], &v[..]);
            // every chunk but the last is full
            let mut d = Dechunker::new();
            let got = collect(&mut d, &v).unwrap();
            assert_eq!(got.len(), 1);
            assert_eq!(got[0].0, msg);
            assert_eq!(got[0].3 as usize, msg.len().div_ceil(max));
        }
        assert_eq!(
            Chunker::default().write_message(&[], &mut Vec::new()),
            Err(ChunkError::EmptyMessage)
        );
        let mut out = vec![1];
        Chunker::write_noop(&mut out);
        assert_eq!(out, [1, 0, 0]);
    }

    #[test]
    fn in_place_matches_copying() {
        for max in [1, 2, 3, 5, 16, 100] {
            let c = Chunker::new(max).unwrap();
            for len in [1usize, 2, 3, 4, 5, 15, 16, 17, 99, 100, 101, 250, 1000] {
                let msg: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
                let mut expected = vec![9, 9, 9];
                c.write_message(&msg, &mut expected).unwrap();

                let mut v = vec![9, 9, 9];
                let start = c.start_message(&mut v);
                assert_eq!(start.position(), 3);
                v.extend_from_slice(&msg);
                assert_eq!(c.finish_message(&mut v, start), Ok(c.framed_len(len)));
                assert_eq!(v, expected, "max {max} len {len}");

                let mut b = BytesMut::from(&[9u8, 9, 9][..]);
                let start = c.start_message(&mut b);
                b.extend_from_slice(&msg);
                c.finish_message(&mut b, start).unwrap();
                assert_eq!(&b[..], &expected[..]);
            }
        }
    }

    #[test]
    fn in_place_errors() {
        let c = Chunker::default();
        let mut v = vec![7];
        let start = c.start_message(&mut v);
        assert_eq!(
            c.finish_message(&mut v, start),
            Err(ChunkError::EmptyMessage)
        );
        assert_eq!(v, [7]); // placeholder removed
        assert_eq!(
            c.finish_message(&mut v, start),
            Err(ChunkError::InvalidStart { start: 1, len: 1 })
        );
        let mut other = Vec::new();
        assert_eq!(
            c.finish_message(&mut other, MessageStart(usize::MAX)),
            Err(ChunkError::InvalidStart {
                start: usize::MAX,
                len: 0
            })
        );
    }

    #[test]
    fn one_chunk_in_one_feed_is_borrowed() {
        let wire = frame(65_535, &[&[0xB0, 0x7E], &[0xB1, 0x71, 0x91, 0x01]]);
        let mut d = Dechunker::new();
        let mut feed = d.feed(&wire);
        let m = feed.next_message().unwrap().unwrap();
        assert_eq!(m.bytes(), [0xB0, 0x7E]);
        assert!(!m.is_copied());
        assert_eq!(m.input_range(), Some(2..4));
        assert_eq!((m.offset(), m.chunk_count()), (0, 1));
        let m = feed.next_message().unwrap().unwrap();
        assert_eq!(m.input_range(), Some(8..12));
        assert_eq!(m.offset(), 6);
        assert!(feed.next_message().unwrap().is_none());
        drop(feed);
        assert_eq!(d.message_count(), 2);
        assert_eq!(d.stream_offset(), wire.len() as u64);
        assert!(d.is_at_boundary());
        assert_eq!(d.end_of_stream(), Ok(()));
    }

    #[test]
    fn several_chunks_are_copied() {
        let wire = frame(2, &[&[1, 2, 3, 4, 5]]);
        let mut d = Dechunker::new();
        assert_eq!(
            collect(&mut d, &wire).unwrap(),
            [(vec![1, 2, 3, 4, 5], true, 0, 3)]
        );
    }

    #[test]
    fn straddling_messages_and_headers() {
        let wire = frame(3, &[&[1, 2, 3, 4], &[5], &[6, 7, 8]]);
        // every split point, and byte-by-byte
        for cut in 0..=wire.len() {
            let mut d = Dechunker::new();
            let mut got = collect(&mut d, &wire[..cut]).unwrap();
            got.extend(collect(&mut d, &wire[cut..]).unwrap());
            let msgs: Vec<_> = got.iter().map(|g| g.0.clone()).collect();
            assert_eq!(
                msgs,
                [vec![1, 2, 3, 4], vec![5], vec![6, 7, 8]],
                "cut {cut}"
            );
            let offsets: Vec<_> = got.iter().map(|g| g.2).collect();
            assert_eq!(offsets, [0, 10, 15], "cut {cut}");
            assert_eq!(d.end_of_stream(), Ok(()));
        }
        let mut d = Dechunker::new();
        let mut got = Vec::new();
        for b in &wire {
            got.extend(collect(&mut d, std::slice::from_ref(b)).unwrap());
        }
        assert_eq!(got.len(), 3);
        assert!(got.iter().all(|g| g.1)); // all copied
    }

    #[test]
    fn noops_are_skipped_and_counted() {
        let mut wire = vec![0, 0, 0, 0];
        wire.extend(frame(65_535, &[&[0xB0, 0x7E]]));
        wire.extend([0, 0]);
        wire.extend(frame(1, &[&[1, 2]]));
        wire.extend([0]);
        let mut d = Dechunker::new();
        let got = collect(&mut d, &wire).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].2, 4);
        assert_eq!(got[1].2, 12);
        assert_eq!(d.noop_count(), 3);
        assert!(!d.is_at_boundary()); // half a NOOP
        assert_eq!(
            d.end_of_stream(),
            Err(DechunkError::Truncated {
                offset: 21,
                message_offset: 20
            })
        );
        assert!(collect(&mut d, &[0]).unwrap().is_empty());
        assert_eq!(d.noop_count(), 4);
        assert!(d.is_at_boundary());
    }

    #[test]
    fn limits_are_checked_at_the_header() {
        let limits = DechunkLimits {
            max_message_size: 10,
            max_chunks: 3,
        };
        // a single header announcing 11 bytes fails before any payload arrives
        let mut d = Dechunker::with_limits(limits);
        assert!(collect(&mut d, &[0x00, 0x05, 1, 2, 3, 4, 5])
            .unwrap()
            .is_empty());
        let err = collect(&mut d, &[0x00, 0x06]).unwrap_err();
        assert_eq!(
            err,
            DechunkError::MessageTooLarge {
                offset: 7,
                message_offset: 0,
                size: 11,
                max: 10
            }
        );
        // poisoned
        assert_eq!(collect(&mut d, &[0, 0]), Err(err.clone()));
        assert_eq!(d.error(), Some(&err));
        assert_eq!(d.end_of_stream(), Err(err));
        d.reset();
        assert_eq!(collect(&mut d, &[0, 1, 9, 0, 0]).unwrap().len(), 1);
        assert_eq!(d.stream_offset(), 5);

        // the fast path checks too
        let mut d = Dechunker::with_limits(limits);
        assert_eq!(
            collect(&mut d, &frame(65_535, &[&[0; 11]])),
            Err(DechunkError::MessageTooLarge {
                offset: 0,
                message_offset: 0,
                size: 11,
                max: 10
            })
        );

        let mut d = Dechunker::with_limits(limits);
        assert_eq!(collect(&mut d, &frame(1, &[&[1, 2, 3]])).unwrap().len(), 1);
        assert_eq!(
            collect(&mut d, &frame(1, &[&[1, 2, 3, 4]])),
            Err(DechunkError::TooManyChunks {
                offset: 20,
                message_offset: 11,
                max: 3
            })
        );
    }

    #[test]
    fn dropping_a_feed_early_loses_nothing() {
        let wire = frame(2, &[&[1], &[2, 3, 4], &[5, 6], &[7, 8, 9]]);
        let mut d = Dechunker::new();
        {
            let mut feed = d.feed(&wire[..wire.len() - 1]);
            let m = feed.next_message().unwrap().unwrap();
            assert_eq!(m.bytes(), [1]);
            // stop early: the rest is queued, copied
        }
        assert!(!d.is_at_boundary());
        let got = collect(&mut d, &wire[wire.len() - 1..]).unwrap();
        let msgs: Vec<_> = got.iter().map(|g| g.0.clone()).collect();
        assert_eq!(msgs, [vec![2, 3, 4], vec![5, 6], vec![7, 8, 9]]);
        assert!(got.iter().all(|g| g.1));
        assert_eq!(got[1].2, 14);
        assert!(d.is_at_boundary());
    }

    #[test]
    fn error_in_a_dropped_feed_comes_after_its_messages() {
        let limits = DechunkLimits {
            max_message_size: 3,
            ..DechunkLimits::default()
        };
        let mut wire = frame(65_535, &[&[1, 2]]);
        wire.extend(frame(65_535, &[&[1, 2, 3, 4]]));
        let mut d = Dechunker::with_limits(limits);
        drop(d.feed(&wire));
        let mut feed = d.feed(&[]);
        assert_eq!(feed.next_message().unwrap().unwrap().bytes(), [1, 2]);
        assert!(matches!(
            feed.next_message(),
            Err(DechunkError::MessageTooLarge { offset: 6, .. })
        ));
    }

    #[test]
    fn buffer_is_reused() {
        let wire = frame(4, &[&[7; 10]]);
        let mut d = Dechunker::new();
        for _ in 0..100 {
            let got = collect(&mut d, &wire).unwrap();
            assert_eq!(got.len(), 1);
        }
        assert!(d.buffer_capacity() < 64);
        assert!(d.buffered_len() == 10 || d.cur_start == 0);

        let big = frame(1000, &[&[1; 100_000]]);
        assert_eq!(collect(&mut d, &big).unwrap().len(), 1);
        assert!(d.buffer_capacity() >= 100_000);
        d.shrink_buffer_to(1024);
        assert_eq!(d.buffered_len(), 0);
        assert!(d.buffer_capacity() <= 1024);
    }

    #[test]
    fn batch_mixes_borrowed_and_copied() {
        let mut wire = frame(65_535, &[&[1, 2, 3]]);
        wire.extend(frame(2, &[&[4, 5, 6]]));
        wire.extend(frame(65_535, &[&[7]]));
        wire.extend(frame(65_535, &[&[8, 9]]));
        let cut = wire.len() - 2;
        let mut d = Dechunker::new();
        let batch = d.feed_batch(&wire[..cut]);
        assert!(batch.error().is_none());
        assert_eq!(batch.len(), 3);
        let got: Vec<_> = batch.iter().map(|m| (m.to_vec(), m.is_copied())).collect();
        assert_eq!(
            got,
            [
                (vec![1, 2, 3], false),
                (vec![4, 5, 6], true),
                (vec![7], false)
            ]
        );
        assert_eq!(batch.get(1).map(|m| m.offset()), Some(7));
        assert!(batch.get(3).is_none());
        let batch = d.feed_batch(&wire[cut..]);
        assert_eq!(batch.len(), 1);
        assert_eq!(batch.get(0).map(|m| m.to_vec()), Some(vec![8, 9]));
        assert!(batch.get(0).is_some_and(|m| m.is_copied()));
        let batch = d.feed_batch(&[]);
        assert!(batch.is_empty());
    }

    #[test]
    fn batch_reports_error_after_messages() {
        let limits = DechunkLimits {
            max_chunks: 1,
            ..DechunkLimits::default()
        };
        let mut wire = frame(65_535, &[&[1]]);
        wire.extend(frame(1, &[&[1, 2]]));
        let mut d = Dechunker::with_limits(limits);
        let batch = d.feed_batch(&wire);
        assert_eq!(batch.len(), 1);
        let expected = DechunkError::TooManyChunks {
            offset: 8,
            message_offset: 5,
            max: 1,
        };
        assert_eq!(batch.error(), Some(&expected));
        let batch = d.feed_batch(&[]);
        assert!(batch.is_empty());
        assert_eq!(batch.error(), Some(&expected));
    }

    #[test]
    fn end_of_stream_inside_a_message() {
        let mut d = Dechunker::new();
        assert!(collect(&mut d, &[0, 0, 0, 3, 1]).unwrap().is_empty());
        assert_eq!(
            d.end_of_stream(),
            Err(DechunkError::Truncated {
                offset: 5,
                message_offset: 2
            })
        );
    }

    #[test]
    fn errors_name_offsets() {
        let e = DechunkError::MessageTooLarge {
            offset: 70,
            message_offset: 2,
            size: 100,
            max: 64,
        };
        assert_eq!(
            e.to_string(),
            "stream offset 70: a chunk header makes the message that starts at offset 2 100 \
             bytes long; expected at most 64"
        );
    }
}
