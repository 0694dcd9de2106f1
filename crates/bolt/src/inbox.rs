//! The receive path every binding shares: bytes from the socket in; complete messages out,
//! in stream order, with a framing error delivered only after every message that was
//! complete before it.
//!
//! An [`Inbox`] owns the messages it queues (one copy per message, into a buffer that is
//! reused), so a binding may run host code — hooks, object constructors, other decodes on
//! the same thread — between taking messages out, without any borrow of the caller's
//! buffer staying alive. It answers the questions a binding would otherwise answer
//! itself from signature bytes and marker ranges: is this a RECORD, how many RECORDs are
//! queued back to back, where do a message's fields start (framing: docs/protocol.md §4;
//! messages: docs/protocol.md §5.1).
//!
//! ```
//! use bolt::inbox::Inbox;
//! use packstream::DecodeOptions;
//!
//! let mut inbox = Inbox::new();
//! // RECORD [1], RECORD [2], SUCCESS {}, then half of the next message.
//! inbox.feed(&[0x00, 0x04, 0xB1, 0x71, 0x91, 0x01, 0x00, 0x00,
//!              0x00, 0x04, 0xB1, 0x71, 0x91, 0x02, 0x00, 0x00,
//!              0x00, 0x03, 0xB1, 0x70, 0xA0, 0x00, 0x00,
//!              0x00, 0x03, 0xB1]);
//! assert_eq!(inbox.len(), 3);
//! assert_eq!(inbox.leading_records(), 2);
//! let record = inbox.get(1).unwrap();
//! let mut fields = record.fields(DecodeOptions::default())?;
//! assert_eq!((fields.signature, fields.count), (0x71, 1));
//! assert_eq!(fields.decoder.read_value()?, packstream::Value::List(vec![2.into()]));
//! inbox.consume(2);
//! assert!(!inbox.get(0).unwrap().is_record());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::VecDeque;

use packstream::{DecodeOptions, Decoder, Token};

use crate::chunk::{DechunkError, DechunkLimits, Dechunker};
use crate::message::{signature::RECORD, MessageError};

/// A queued message: where its bytes lie in the inbox's buffer.
#[derive(Clone, Copy, Debug)]
struct Slot {
    start: usize,
    len: usize,
    offset: u64,
}

/// Complete Bolt messages queued in stream order; see the [module docs](self).
///
/// State changes only in [`Inbox::feed`] and [`Inbox::consume`] (and `reset`), never
/// while a binding decodes a message it looked at with [`Inbox::get`]: a failed or
/// abandoned decode leaves the queue as it was, so the same message can be looked at
/// again or consumed, and nothing before it is lost.
#[derive(Clone, Debug, Default)]
pub struct Inbox {
    dechunker: Dechunker,
    /// The queued messages' bytes, back to back; `raw[..consumed]` is already consumed.
    raw: Vec<u8>,
    consumed: usize,
    queue: VecDeque<Slot>,
    /// The framing error that ended the stream, delivered after the queued messages.
    error: Option<DechunkError>,
}

/// The fields of a message: its signature, how many fields it has, and a decoder
/// positioned at the first of them (read each with the decoder's pull or visitor API).
#[derive(Clone, Debug)]
pub struct Fields<'i> {
    /// The message's signature (tag) byte.
    pub signature: u8,
    /// How many fields follow.
    pub count: u32,
    /// Positioned at the first field; its offsets count from the message's first byte.
    pub decoder: Decoder<'i>,
}

/// One queued message, borrowed from the [`Inbox`].
#[derive(Clone, Copy, Debug)]
pub struct Received<'i> {
    bytes: &'i [u8],
    offset: u64,
}

impl<'i> Received<'i> {
    /// The message bytes (one PackStream structure, chunk headers removed).
    #[must_use]
    pub fn bytes(&self) -> &'i [u8] {
        self.bytes
    }

    /// The stream offset of the message's first chunk header.
    #[must_use]
    pub fn stream_offset(&self) -> u64 {
        self.offset
    }

    /// The signature byte, if the message starts with a structure header (in either
    /// form: the tiny one, or the legacy `DC`/`DD` markers some servers used).
    #[must_use]
    pub fn signature(&self) -> Option<u8> {
        // The header alone: no decoder to set up per message.
        let header = DecodeOptions::default().with_legacy_structs(true);
        match Token::read_first(self.bytes, &header) {
            Ok((Token::Struct { tag, .. }, _)) => Some(tag),
            _ => None,
        }
    }

    /// Whether the message is a RECORD.
    #[must_use]
    pub fn is_record(&self) -> bool {
        self.signature() == Some(RECORD)
    }

    /// Reads the structure header and gives a decoder positioned at the first field.
    ///
    /// # Errors
    /// [`MessageError::NotAStructure`] when the message does not start with a structure;
    /// [`MessageError::PackStream`] when its header is malformed.
    pub fn fields(&self, opts: DecodeOptions) -> Result<Fields<'i>, MessageError> {
        let mut decoder = Decoder::with_options(self.bytes, opts);
        let (signature, count) = self.read_fields(&mut decoder)?;
        Ok(Fields {
            signature,
            count,
            decoder,
        })
    }

    /// Like [`Received::fields`], reusing `decoder` (and its options and buffers, for a
    /// binding that decodes many messages): resets it to this message, reads the
    /// structure header and returns the signature and field count, leaving the decoder
    /// at the first field.
    ///
    /// # Errors
    /// As for [`Received::fields`].
    pub fn read_fields(&self, decoder: &mut Decoder<'i>) -> Result<(u8, u32), MessageError> {
        decoder.reset(self.bytes);
        match decoder.next_token()? {
            Token::Struct { tag, len } => Ok((tag, len)),
            other => Err(MessageError::NotAStructure {
                offset: 0,
                found: token_name(&other),
            }),
        }
    }
}

/// A short name of a token's type, for errors.
fn token_name(t: &Token<'_>) -> &'static str {
    match t {
        Token::Null => "null",
        Token::Bool(_) => "boolean",
        Token::Int(_) => "integer",
        Token::Float(_) => "float",
        Token::String(_) => "string",
        Token::Bytes(_) => "bytes",
        Token::List(_) => "list",
        Token::Map(_) => "map",
        Token::Struct { .. } => "structure",
        Token::Uuid(_) => "uuid",
    }
}

/// Consumed bytes are given back once they are at least this many and at least half
/// of the buffer, so the buffer stays within twice the queued bytes (plus this).
const COMPACT_AT: usize = 64 * 1024;

impl Inbox {
    /// An inbox with the default [`DechunkLimits`].
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An inbox with these framing limits.
    #[must_use]
    pub fn with_limits(limits: DechunkLimits) -> Self {
        Inbox {
            dechunker: Dechunker::with_limits(limits),
            ..Self::default()
        }
    }

    /// Feeds bytes as they arrive; every message they complete is queued. A framing
    /// error is kept and reported by [`Inbox::error`] once the messages before it are
    /// consumed; bytes fed after it are ignored (the stream cannot be trusted).
    pub fn feed(&mut self, input: &[u8]) {
        if self.error.is_some() {
            return;
        }
        self.compact();
        let batch = self.dechunker.feed_batch(input);
        self.raw.reserve(batch.iter().map(|m| m.len()).sum());
        for m in batch.iter() {
            self.queue.push_back(Slot {
                start: self.raw.len(),
                len: m.len(),
                offset: m.offset(),
            });
            self.raw.extend_from_slice(m.bytes());
        }
        if let Some(e) = batch.error() {
            self.error = Some(e.clone());
        }
    }

    /// How many complete messages are queued.
    #[must_use]
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether no complete message is queued (there may still be an error to report).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The `i`-th queued message (0 is the oldest).
    #[must_use]
    pub fn get(&self, i: usize) -> Option<Received<'_>> {
        let slot = self.queue.get(i)?;
        let bytes = self.raw.get(slot.start..slot.start + slot.len)?;
        Some(Received {
            bytes,
            offset: slot.offset,
        })
    }

    /// The queued messages, oldest first.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Received<'_>> + '_ {
        self.queue.iter().map(|slot| Received {
            bytes: self
                .raw
                .get(slot.start..slot.start + slot.len)
                .unwrap_or_default(),
            offset: slot.offset,
        })
    }

    /// How many of the queued messages, from the oldest on, are RECORDs: the run a
    /// binding decodes as one batch.
    #[must_use]
    pub fn leading_records(&self) -> usize {
        self.iter().take_while(Received::is_record).count()
    }

    /// Removes the `n` oldest queued messages (all of them if fewer are queued).
    pub fn consume(&mut self, n: usize) {
        let n = n.min(self.queue.len());
        if let Some(last) = self.queue.drain(..n).next_back() {
            self.consumed = last.start + last.len;
        }
        if self.queue.is_empty() {
            self.raw.clear();
            self.consumed = 0;
        }
    }

    /// The framing error that ended the stream, once every message complete before it
    /// has been consumed (`None` while messages are queued: they come first).
    #[must_use]
    pub fn error(&self) -> Option<&DechunkError> {
        if self.queue.is_empty() {
            self.error.as_ref()
        } else {
            None
        }
    }

    /// Call at the end of the stream: the error of a stream that stopped inside a
    /// message, or the framing error that ended it.
    ///
    /// # Errors
    /// As described.
    pub fn end_of_stream(&self) -> Result<(), DechunkError> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => self.dechunker.end_of_stream(),
        }
    }

    /// Whether the stream is between messages and nothing is queued.
    #[must_use]
    pub fn is_at_boundary(&self) -> bool {
        self.queue.is_empty() && self.dechunker.is_at_boundary()
    }

    /// How many NOOPs (keep-alive `00 00`) were skipped.
    #[must_use]
    pub fn noop_count(&self) -> u64 {
        self.dechunker.noop_count()
    }

    /// The total number of bytes fed.
    #[must_use]
    pub fn stream_offset(&self) -> u64 {
        self.dechunker.stream_offset()
    }

    /// The framing limits in force.
    #[must_use]
    pub fn limits(&self) -> DechunkLimits {
        self.dechunker.limits()
    }

    /// How many bytes of buffer the inbox holds (queued messages, a partial message,
    /// and capacity kept for reuse).
    #[must_use]
    pub fn buffer_capacity(&self) -> usize {
        self.raw.capacity() + self.dechunker.buffer_capacity()
    }

    /// Gives back buffer memory above `min_capacity`, e.g. after a rare huge message.
    pub fn shrink_buffer_to(&mut self, min_capacity: usize) {
        self.compact_now();
        self.raw.shrink_to(min_capacity);
        self.dechunker.shrink_buffer_to(min_capacity);
    }

    /// Forgets everything (queued messages, partial input, error), as for a new
    /// connection; the limits stay.
    pub fn reset(&mut self) {
        self.dechunker.reset();
        self.raw.clear();
        self.consumed = 0;
        self.queue.clear();
        self.error = None;
    }

    fn compact(&mut self) {
        if self.consumed >= COMPACT_AT && self.consumed * 2 >= self.raw.len() {
            self.compact_now();
        }
    }

    fn compact_now(&mut self) {
        if self.consumed == 0 {
            return;
        }
        self.raw.drain(..self.consumed.min(self.raw.len()));
        for slot in &mut self.queue {
            slot.start -= self.consumed;
        }
        self.consumed = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::Chunker;

    fn framed(messages: &[&[u8]]) -> Vec<u8> {
        let chunker = Chunker::default();
        let mut out = Vec::new();
        for m in messages {
            chunker.write_message(m, &mut out).unwrap();
        }
        out
    }

    const RECORD_1: &[u8] = &[0xB1, 0x71, 0x91, 0x01];
    const SUCCESS: &[u8] = &[0xB1, 0x70, 0xA0];

    #[test]
    fn messages_before_a_framing_error_come_first() {
        let mut wire = framed(&[RECORD_1, RECORD_1, SUCCESS]);
        wire.extend_from_slice(&[0x00, 0x05, 0xB1]); // then the stream stops mid-chunk
        let mut inbox = Inbox::with_limits(DechunkLimits {
            max_message_size: 4,
            ..DechunkLimits::default()
        });
        wire.extend_from_slice(&[0x00, 0x09]); // a chunk over the limit: a framing error
        inbox.feed(&wire);
        assert_eq!(inbox.len(), 3);
        assert!(inbox.error().is_none(), "the messages come first");
        assert_eq!(inbox.leading_records(), 2);
        inbox.consume(2);
        assert_eq!(inbox.get(0).unwrap().signature(), Some(0x70));
        inbox.consume(1);
        let e = inbox.error().expect("then the error");
        assert!(matches!(e, DechunkError::MessageTooLarge { .. }), "{e}");
        inbox.feed(&framed(&[SUCCESS]));
        assert!(inbox.is_empty(), "nothing after the error is trusted");
    }

    #[test]
    fn a_message_split_over_feeds_and_a_slow_consumer_keep_stream_order() {
        let wire = framed(&[RECORD_1, SUCCESS, RECORD_1]);
        let mut inbox = Inbox::new();
        let mut seen = Vec::new();
        for (i, b) in wire.iter().enumerate() {
            inbox.feed(&[*b]);
            if i % 3 == 0 && !inbox.is_empty() {
                seen.push(inbox.get(0).unwrap().bytes().to_vec());
                inbox.consume(1);
            }
        }
        seen.extend(inbox.iter().map(|m| m.bytes().to_vec()));
        assert_eq!(seen, [RECORD_1, SUCCESS, RECORD_1]);
        assert!(inbox.end_of_stream().is_ok());
    }

    #[test]
    fn consumed_bytes_are_given_back() {
        let big = [0xB1, 0x71, 0x91, 0xD0, 0x00, 0x10, 0x00]
            .into_iter()
            .chain(core::iter::repeat_n(b'x', 0x1000))
            .collect::<Vec<u8>>();
        let mut inbox = Inbox::new();
        for _ in 0..200 {
            inbox.feed(&framed(&[&big, &big]));
            inbox.consume(1); // always one message behind
        }
        assert_eq!(inbox.len(), 200);
        assert!(inbox.raw.len() <= 2 * 200 * big.len() + COMPACT_AT + big.len());
        inbox.consume(usize::MAX);
        assert!(inbox.is_empty() && inbox.raw.is_empty());
        inbox.shrink_buffer_to(0);
        assert!(inbox.buffer_capacity() < big.len());
    }

    #[test]
    fn fields_of_a_message_that_is_not_a_structure_is_an_error() {
        let mut inbox = Inbox::new();
        inbox.feed(&framed(&[&[0x91, 0x01]]));
        let m = inbox.get(0).unwrap();
        assert_eq!(m.signature(), None);
        let e = m.fields(DecodeOptions::default()).unwrap_err();
        assert!(
            matches!(e, MessageError::NotAStructure { offset: 0, .. }),
            "{e}"
        );
    }

    #[test]
    fn a_legacy_structure_header_was_not_seen_as_a_record() {
        // RECORD [1] written with the legacy STRUCT_8 marker.
        let legacy: &[u8] = &[0xDC, 0x01, 0x71, 0x91, 0x01];
        let mut inbox = Inbox::new();
        inbox.feed(&framed(&[legacy, RECORD_1]));
        assert_eq!(inbox.leading_records(), 2);
        let opts = DecodeOptions::default().with_legacy_structs(true);
        let mut decoder = Decoder::with_options(&[], opts);
        for (i, m) in inbox.iter().enumerate() {
            assert_eq!(
                m.read_fields(&mut decoder).unwrap(),
                (0x71, 1),
                "message {i}"
            );
            assert_eq!(
                decoder.read_value().unwrap(),
                packstream::Value::List(vec![1.into()])
            );
        }
    }
}
