//! The lowest layer of decoding: [`Token`]s read one at a time from a byte slice, every
//! read checked against what remains. Nesting is not tracked here; the value builders
//! (`build.rs`) and the [`Decoder`](crate::Decoder) do that.

use crate::error::{Error, ErrorKind};
use crate::limits::DecodeOptions;
use crate::marker as m;

/// One item of PackStream as it appears on the wire: a scalar, or the header of a container
/// whose items follow as further tokens.
///
/// ```
/// use packstream::{Decoder, Token};
/// let mut dec = Decoder::new(&[0x92, 0x01, 0x81, 0x61]);
/// assert_eq!(dec.next_token().unwrap(), Token::List(2));
/// assert_eq!(dec.next_token().unwrap(), Token::Int(1));
/// assert_eq!(dec.next_token().unwrap(), Token::String("a"));
/// assert!(dec.is_complete());
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Token<'a> {
    /// Null.
    Null,
    /// Boolean.
    Bool(bool),
    /// Integer (any width).
    Int(i64),
    /// Float.
    Float(f64),
    /// String, borrowed from the input and already checked to be UTF-8.
    String(&'a str),
    /// Byte array, borrowed from the input.
    Bytes(&'a [u8]),
    /// A list header; that many values follow.
    List(u32),
    /// A map header; that many key/value pairs follow (keys are always strings).
    Map(u32),
    /// A structure header: tag, then `len` field values follow.
    Struct {
        /// The structure's tag byte.
        tag: u8,
        /// The number of fields that follow.
        len: u32,
    },
    /// PackStream v2 UUID (16 bytes in RFC 4122 order).
    Uuid([u8; 16]),
}

impl<'a> Token<'a> {
    /// The first token of `buf` and the bytes it used: what a new
    /// [`Decoder`](crate::Decoder) over `buf` with `opts` gives from its first
    /// [`next_token`](crate::Decoder::next_token) (same token, same errors and offsets,
    /// the depth limit included), without setting a decoder up. For reading one header,
    /// such as a message's structure header, on its own.
    ///
    /// ```
    /// use packstream::{DecodeOptions, Token};
    /// let record = [0xB1, 0x71, 0x91, 0x2A];
    /// let (tok, used) = Token::read_first(&record, &DecodeOptions::default()).unwrap();
    /// assert_eq!((tok, used), (Token::Struct { tag: 0x71, len: 1 }, 2));
    /// // A structure of one field needs at least one more byte.
    /// let err = Token::read_first(&record[..2], &DecodeOptions::default()).unwrap_err();
    /// assert_eq!(err.offset(), 0);
    /// ```
    ///
    /// # Errors
    /// Any decode error of the first token, with its offset.
    pub fn read_first(buf: &'a [u8], opts: &DecodeOptions) -> Result<(Self, usize), Error> {
        let mut r = Reader::new(buf, *opts);
        // No container is open around the first token.
        r.depth_full = opts.limits.max_depth == 0;
        let tok = r.token()?;
        Ok((tok, r.pos))
    }
}

/// What a marker byte starts, for dispatch: one table load and one jump per token
/// instead of a chain of range compares (about 15 instructions on the sized integers).
/// Tiny integers are tested before the table (one compare); `Other` markers (byte
/// arrays, sized lists and maps, UUIDs, legacy structures, reserved bytes) are rarer and
/// matched on the marker itself.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    Other,
    TinyString,
    TinyList,
    TinyMap,
    TinyStruct,
    Null,
    False,
    True,
    Float,
    Int8,
    Int16,
    Int32,
    Int64,
    String8,
    String16,
    String32,
}

/// The [`Kind`] of a marker byte.
const fn kind_of(marker: u8) -> Kind {
    match marker {
        0x80..=0x8F => Kind::TinyString,
        0x90..=0x9F => Kind::TinyList,
        0xA0..=0xAF => Kind::TinyMap,
        0xB0..=0xBF => Kind::TinyStruct,
        m::NULL => Kind::Null,
        m::FALSE => Kind::False,
        m::TRUE => Kind::True,
        m::FLOAT_64 => Kind::Float,
        m::INT_8 => Kind::Int8,
        m::INT_16 => Kind::Int16,
        m::INT_32 => Kind::Int32,
        m::INT_64 => Kind::Int64,
        m::STRING_8 => Kind::String8,
        m::STRING_16 => Kind::String16,
        m::STRING_32 => Kind::String32,
        _ => Kind::Other,
    }
}

/// [`kind_of`] every marker byte, as a table.
// Evaluated at compile time: an index out of bounds would fail the build.
#[allow(clippy::indexing_slicing)]
static KINDS: [Kind; 256] = {
    let mut kinds = [Kind::Other; 256];
    let mut marker = 0;
    while marker < 256 {
        kinds[marker] = kind_of(marker as u8);
        marker += 1;
    }
    kinds
};

/// The [`Kind`] of `marker`, from the table (every `u8` is in it: the fallback is
/// never taken and compiles away).
#[inline(always)]
pub(crate) fn kind(marker: u8) -> Kind {
    KINDS
        .get(usize::from(marker))
        .copied()
        .unwrap_or(Kind::Other)
}

/// Reads one token at a time without tracking nesting. Shared by
/// [`Decoder`](crate::Decoder) and the value builders; every read checks what remains
/// first.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    pub(crate) buf: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) opts: DecodeOptions,
    /// Declared container sizes summed so far (for `max_total_elements`).
    total: u64,
    /// Set by the caller when the next container would exceed `max_depth`.
    pub(crate) depth_full: bool,
    /// Item slots declared by open containers and not yet filled (a map entry is two).
    /// Every slot needs at least one byte, so the bytes left minus the slots promised to
    /// others bound what a new container can really hold; pre-allocation uses that bound.
    pub(crate) promised: u64,
}

/// Marks a structure's tag in what [`Reader::seq_header`] returns.
#[cfg(feature = "serde")]
pub(crate) const TAG: usize = 0x100;

/// Builds an error, out of line: inlined error values in the decode loops made the
/// compiler set up every possible error's fields before the loop, on each call.
#[cold]
#[inline(never)]
pub(crate) fn err(kind: ErrorKind, offset: usize, expected: &'static str) -> Error {
    Error::new(kind, offset, expected)
}

impl<'a> Reader<'a> {
    #[inline]
    pub(crate) fn new(buf: &'a [u8], opts: DecodeOptions) -> Self {
        Reader {
            buf,
            pos: 0,
            opts,
            total: 0,
            depth_full: false,
            promised: 0,
        }
    }

    /// Takes over the state `walked` reached: a copy of this reader (same input, same
    /// options) that has read on. Only the fields reading changes are stored, which costs
    /// less than assigning the whole reader back.
    #[inline(always)]
    pub(crate) fn catch_up(&mut self, walked: &Reader<'a>) {
        self.pos = walked.pos;
        self.total = walked.total;
        self.depth_full = walked.depth_full;
        self.promised = walked.promised;
    }

    /// How many items to pre-allocate for a container of `n` items just read, whose items
    /// need `per_item` bytes each at least: never more than the bytes not yet promised to
    /// other open containers can hold. Nested headers that each claim the whole remaining
    /// input therefore cannot multiply the memory used.
    ///
    /// A non-empty container always gets at least one slot: its own marker byte pays for
    /// it. Without that, a container whose share was promised away grew its `Vec` from
    /// zero to the allocator's minimum of four items on its first push, so nested
    /// one-item lists cost four nodes per input byte and broke the documented bound
    /// (regression test `one_item_lists_behind_exhausted_promises_stay_within_the_bound`).
    #[inline]
    pub(crate) fn capacity_for(&self, n: u32, per_item: u64) -> usize {
        let own = u64::from(n) * per_item;
        self.capacity_beside(n, per_item, self.promised.saturating_sub(own))
    }

    /// [`Reader::capacity_for`] when the caller knows how many item slots the other open
    /// containers still hold (`others`; the tree builders count them instead of the
    /// reader doing it per token).
    #[inline]
    pub(crate) fn capacity_beside(&self, n: u32, per_item: u64, others: u64) -> usize {
        let avail = (self.remaining() as u64).saturating_sub(others) / per_item.max(1);
        avail.min(u64::from(n)).max(u64::from(n.min(1))) as usize
    }

    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    #[inline]
    fn remaining(&self) -> usize {
        self.buf.len().saturating_sub(self.pos)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn array<const N: usize>(
        &mut self,
        start: usize,
        expected: &'static str,
    ) -> Result<[u8; N], Error> {
        let chunk = self
            .buf
            .get(self.pos..)
            .and_then(|rest| rest.first_chunk::<N>())
            .ok_or_else(|| err(ErrorKind::UnexpectedEnd, start, expected))?;
        self.pos += N;
        Ok(*chunk)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn u8(&mut self, start: usize, expected: &'static str) -> Result<u8, Error> {
        Ok(self.array::<1>(start, expected)?[0])
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn u16(&mut self, start: usize, expected: &'static str) -> Result<u32, Error> {
        Ok(u32::from(u16::from_be_bytes(self.array(start, expected)?)))
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn u32(&mut self, start: usize, expected: &'static str) -> Result<u32, Error> {
        Ok(u32::from_be_bytes(self.array(start, expected)?))
    }

    /// Checks a declared size against the spec maximum and a limit.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn check_size(
        &self,
        start: usize,
        size: u32,
        limit: u32,
        what: &'static str,
    ) -> Result<usize, Error> {
        if size > m::MAX_SIZE {
            return Err(err(ErrorKind::SizeTooLarge, start, what));
        }
        if size > limit {
            return Err(err(ErrorKind::LimitExceeded, start, what));
        }
        Ok(size as usize)
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn payload(
        &mut self,
        start: usize,
        len: usize,
        expected: &'static str,
    ) -> Result<&'a [u8], Error> {
        let end = self
            .pos
            .checked_add(len)
            .ok_or_else(|| err(ErrorKind::UnexpectedEnd, start, expected))?;
        let bytes = self
            .buf
            .get(self.pos..end)
            .ok_or_else(|| err(ErrorKind::UnexpectedEnd, start, expected))?;
        self.pos = end;
        Ok(bytes)
    }

    /// A string of `size` bytes whose marker (and size) were read at `start`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn string(&mut self, start: usize, size: u32) -> Result<&'a str, Error> {
        let len = self.check_size(start, size, self.opts.limits.max_string_len, "string bytes")?;
        let payload_at = self.pos;
        if let Some(s) = short_ascii(self.buf, payload_at, len) {
            self.pos = payload_at + len;
            return Ok(s);
        }
        let bytes = self.payload(start, len, "string bytes")?;
        match core::str::from_utf8(bytes) {
            Ok(s) => Ok(s),
            Err(e) => Err(err(
                ErrorKind::InvalidUtf8,
                payload_at + e.valid_up_to(),
                "UTF-8 string bytes",
            )),
        }
    }

    #[cfg_attr(not(debug_assertions), inline(always))]
    fn bytes(&mut self, start: usize, size: u32) -> Result<Token<'a>, Error> {
        let len = self.check_size(start, size, self.opts.limits.max_bytes_len, "byte array")?;
        Ok(Token::Bytes(self.payload(start, len, "byte array")?))
    }

    /// Checks a container header: spec maximum, per-container and total limits, and that
    /// the bytes left can hold `size * min_bytes` bytes of items.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn container(
        &mut self,
        start: usize,
        size: u32,
        min_bytes: u64,
        what: &'static str,
    ) -> Result<u32, Error> {
        if size > m::MAX_SIZE {
            return Err(err(ErrorKind::SizeTooLarge, start, what));
        }
        if self.depth_full {
            return Err(err(
                ErrorKind::LimitExceeded,
                start,
                "less deeply nested containers",
            ));
        }
        self.check_size(start, size, self.opts.limits.max_container_len, what)?;
        let total = self.total.saturating_add(u64::from(size));
        if total > self.opts.limits.max_total_elements {
            return Err(err(
                ErrorKind::LimitExceeded,
                start,
                "fewer elements in total",
            ));
        }
        let slots = u64::from(size) * min_bytes;
        if slots > self.remaining() as u64 {
            return Err(err(ErrorKind::UnexpectedEnd, start, what));
        }
        self.total = total;
        self.promised += slots;
        Ok(size)
    }

    /// (The two reads of [`Reader::struct_header`] written out: calling it here made
    /// LLVM compile the bare tokenizer 4% dearer on `records_10000x3`.)
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn structure(&mut self, start: usize, size: u32) -> Result<Token<'a>, Error> {
        let tag = self.u8(start, "a structure tag")?;
        let len = self.container(start, size, 1, "structure fields")?;
        Ok(Token::Struct { tag, len })
    }

    /// The tag and checked field count of a structure of `size` fields whose marker
    /// (and size) were read at `start`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn struct_header(&mut self, start: usize, size: u32) -> Result<(u8, u32), Error> {
        let tag = self.u8(start, "a structure tag")?;
        let len = self.container(start, size, 1, "structure fields")?;
        Ok((tag, len))
    }

    /// The payload of a FLOAT_64 whose marker was read at `start`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn float(&mut self, start: usize) -> Result<f64, Error> {
        Ok(f64::from_be_bytes(
            self.array(start, "8 bytes of FLOAT_64")?,
        ))
    }

    /// The payload of an INT_8, INT_16, INT_32 or INT_64 `marker` read at `start`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn sized_int(&mut self, start: usize, marker: u8) -> Result<i64, Error> {
        Ok(match marker {
            m::INT_8 => i64::from(i8::from_be_bytes(self.array(start, "1 byte of INT_8")?)),
            m::INT_16 => i64::from(i16::from_be_bytes(self.array(start, "2 bytes of INT_16")?)),
            m::INT_32 => i64::from(i32::from_be_bytes(self.array(start, "4 bytes of INT_32")?)),
            _ => i64::from_be_bytes(self.array(start, "8 bytes of INT_64")?),
        })
    }

    /// The size and payload of a STRING_8, STRING_16 or STRING_32 `marker` read at
    /// `start`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn sized_string(&mut self, start: usize, marker: u8) -> Result<&'a str, Error> {
        let n = match marker {
            m::STRING_8 => u32::from(self.u8(start, "a STRING_8 size")?),
            m::STRING_16 => self.u16(start, "a STRING_16 size")?,
            _ => self.u32(start, "a STRING_32 size")?,
        };
        self.string(start, n)
    }

    /// A list (tiny, LIST_8 or LIST_16) or tiny structure header at the current
    /// position that passes every check [`Reader::token`] makes (its size or the
    /// structure's tag is there, the per-container and total limits, one byte left per
    /// item): its items, the structure's tag counted as one, and 0 for a list or [`TAG`]
    /// plus the tag for a structure (two words: a `(u32, Option<u8>)` was packed into one
    /// register and unpacked with shifts and masks at every use), with the header
    /// consumed and its items counted into the total. `None` changes nothing, and the
    /// caller reads the token the usual way, which gives the error if there is one. For
    /// the serde deserializer, which keeps its own depth and promised items, so neither
    /// the depth flag nor the promised slots are looked at here.
    #[cfg(feature = "serde")]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn seq_header(&mut self) -> Option<(usize, usize)> {
        let at = self.pos;
        let marker = *self.buf.get(at)?;
        // At least 1: the marker is there.
        let left = self.buf.len() - at;
        let n = u32::from(marker & 0x0F);
        match marker {
            0x90..=0x9F => {
                self.seq_items(n, 1, left)?;
                Some((n as usize, 0))
            }
            0xB0..=0xBF => {
                // The tag and the fields' bytes in one test; so the tag is there, and
                // reading it cannot fail after the header was taken.
                self.seq_items(n, 2, left)?;
                let tag = *self.buf.get(at + 1)?;
                Some((n as usize + 1, TAG | usize::from(tag)))
            }
            m::LIST_8 => {
                let n = u32::from(*self.buf.get(at + 1)?);
                self.seq_items(n, 2, left)?;
                Some((n as usize, 0))
            }
            m::LIST_16 => {
                let size = self.buf.get(at + 1..)?.first_chunk::<2>()?;
                let n = u32::from(u16::from_be_bytes(*size));
                self.seq_items(n, 3, left)?;
                Some((n as usize, 0))
            }
            _ => None,
        }
    }

    /// The checks of [`Reader::seq_header`] once its size is read: a header of
    /// `header` bytes then `n` items, each a byte at least, within the `left` bytes from
    /// the header on, and within the limits; if they pass, the items are counted and the
    /// position moves to them.
    #[cfg(feature = "serde")]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn seq_items(&mut self, n: u32, header: usize, left: usize) -> Option<()> {
        // Cannot overflow: every header adds at most 65,535 (the sizes read here go up to
        // LIST_16) and takes a byte of the input, so `total` stays below 2^16 times the
        // input's length.
        let total = self.total + u64::from(n);
        let limits = &self.opts.limits;
        if n > limits.max_container_len
            || total > limits.max_total_elements
            || n as usize + header > left
        {
            return None;
        }
        self.total = total;
        self.pos += header;
        Some(())
    }

    /// Reads the token at the current position. On error the position is unspecified.
    ///
    /// Always inlined: returning the large `Result` through memory from an out-of-line
    /// call cost more than the parsing itself (store-forwarding stalls, seen with perf).
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn token(&mut self) -> Result<Token<'a>, Error> {
        let start = self.pos;
        // This item fills one promised slot (none at the top level).
        self.promised = self.promised.saturating_sub(1);
        let marker = *self
            .buf
            .get(start)
            .ok_or_else(|| err(ErrorKind::UnexpectedEnd, start, "a marker byte"))?;
        self.pos = start + 1;
        // Tiny integers, 0x00..=0x7F and 0xF0..=0xFF: exactly the bytes that are -16 or
        // more as an i8, and that is their value.
        if marker as i8 >= -16 {
            return Ok(Token::Int(i64::from(marker as i8)));
        }
        let n = u32::from(marker & 0x0F);
        match kind(marker) {
            Kind::TinyString => Ok(Token::String(self.string(start, n)?)),
            Kind::TinyList => Ok(Token::List(self.container(start, n, 1, "list items")?)),
            Kind::TinyMap => Ok(Token::Map(self.container(start, n, 2, "map entries")?)),
            Kind::TinyStruct => self.structure(start, n),
            Kind::Null => Ok(Token::Null),
            Kind::False => Ok(Token::Bool(false)),
            Kind::True => Ok(Token::Bool(true)),
            Kind::Float => Ok(Token::Float(self.float(start)?)),
            Kind::Int8 | Kind::Int16 | Kind::Int32 | Kind::Int64 => {
                Ok(Token::Int(self.sized_int(start, marker)?))
            }
            Kind::String8 | Kind::String16 | Kind::String32 => {
                Ok(Token::String(self.sized_string(start, marker)?))
            }
            Kind::Other => self.other(start, marker),
        }
    }

    /// The rest of [`Reader::token`]: byte arrays, sized lists and maps, legacy
    /// structures, UUIDs and reserved markers.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn other(&mut self, start: usize, marker: u8) -> Result<Token<'a>, Error> {
        match marker {
            m::BYTES_8 => {
                let n = self.u8(start, "a BYTES_8 size")?;
                self.bytes(start, u32::from(n))
            }
            m::BYTES_16 => {
                let n = self.u16(start, "a BYTES_16 size")?;
                self.bytes(start, n)
            }
            m::BYTES_32 => {
                let n = self.u32(start, "a BYTES_32 size")?;
                self.bytes(start, n)
            }
            m::STRING_8..=m::STRING_32 => Ok(Token::String(self.sized_string(start, marker)?)),
            m::LIST_8 => {
                let n = self.u8(start, "a LIST_8 size")?;
                Ok(Token::List(self.container(
                    start,
                    u32::from(n),
                    1,
                    "list items",
                )?))
            }
            m::LIST_16 => {
                let n = self.u16(start, "a LIST_16 size")?;
                Ok(Token::List(self.container(start, n, 1, "list items")?))
            }
            m::LIST_32 => {
                let n = self.u32(start, "a LIST_32 size")?;
                Ok(Token::List(self.container(start, n, 1, "list items")?))
            }
            m::MAP_8 => {
                let n = self.u8(start, "a MAP_8 size")?;
                Ok(Token::Map(self.container(
                    start,
                    u32::from(n),
                    2,
                    "map entries",
                )?))
            }
            m::MAP_16 => {
                let n = self.u16(start, "a MAP_16 size")?;
                Ok(Token::Map(self.container(start, n, 2, "map entries")?))
            }
            m::MAP_32 => {
                let n = self.u32(start, "a MAP_32 size")?;
                Ok(Token::Map(self.container(start, n, 2, "map entries")?))
            }
            m::STRUCT_8 if self.opts.legacy_structs => {
                let n = self.u8(start, "a STRUCT_8 size")?;
                self.structure(start, u32::from(n))
            }
            m::STRUCT_16 if self.opts.legacy_structs => {
                let n = self.u16(start, "a STRUCT_16 size")?;
                self.structure(start, n)
            }
            m::UUID if self.opts.uuid => Ok(Token::Uuid(self.array(start, "16 bytes of UUID")?)),
            _ => Err(err(ErrorKind::ReservedMarker, start, "a PackStream marker")),
        }
    }
}

/// The `len` bytes at `at` in `buf` as a `&str` when they are ASCII, for `len <= 16`:
/// read as one 16-byte word of the buffer that starts at them (or, at the end of the
/// buffer, ends with them), the other bytes masked off. `None` otherwise (bytes that are
/// not ASCII, a longer string, a string that runs past the buffer, a buffer shorter than
/// 16 bytes), and the caller reads and validates the usual way. Short ASCII strings
/// (names, keys, labels) are most strings, and `from_utf8` costs about 80 instructions
/// on one.
#[cfg_attr(not(debug_assertions), inline(always))]
#[allow(unsafe_code)]
pub(crate) fn short_ascii(buf: &[u8], at: usize, len: usize) -> Option<&str> {
    let (bytes, word, keep) = match buf.get(at..).and_then(<[u8]>::first_chunk::<16>) {
        Some(word) => (word.get(..len)?, word, *FIRST.get(len)?),
        None => {
            let word = buf.get(..at.checked_add(len)?)?.last_chunk::<16>()?;
            (
                word.get(16_usize.checked_sub(len)?..)?,
                word,
                *LAST.get(len)?,
            )
        }
    };
    if u128::from_le_bytes(*word) & keep != 0 {
        return None;
    }
    // SAFETY: `keep` has the top bit of exactly the bytes of `word` that are `bytes` (the
    // first `len`, or the last `len`; tables below), and none of them is set: every byte
    // of `bytes` is ASCII, and ASCII is valid UTF-8.
    Some(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// The `len` bytes that end at `end` in `buf` as a `&str` when they are ASCII, for `len
/// <= 16`: as [`short_ascii`], but read as the one 16-byte word of the buffer that ends
/// with them, so that a string at the end of a message (the last field of a RECORD)
/// needs no second try. `None` otherwise, also when `end` is before the 16th byte of
/// the buffer or past its end.
#[cfg(feature = "serde")]
#[cfg_attr(not(debug_assertions), inline(always))]
#[allow(unsafe_code)]
pub(crate) fn ascii_ending_at(buf: &[u8], end: usize, len: usize) -> Option<&str> {
    let keep = *LAST.get(len)?;
    let word = buf.get(..end)?.last_chunk::<16>()?;
    if u128::from_le_bytes(*word) & keep != 0 {
        return None;
    }
    let bytes = word.get(16 - len..)?;
    // SAFETY: `keep` has the top bit of exactly the last `len` bytes of `word`, which are
    // `bytes`, and none of them is set: every byte of `bytes` is ASCII, and ASCII is
    // valid UTF-8.
    Some(unsafe { core::str::from_utf8_unchecked(bytes) })
}

/// The top bit of every byte of a word.
const HIGH: u128 = u128::MAX / 0xFF * 0x80;

/// The top bit of each of the first `n` bytes (`n <= 16`) of a little-endian word.
const fn first(n: u32) -> u128 {
    if n == 0 {
        0
    } else {
        HIGH >> (8 * (16 - n))
    }
}

/// The top bit of each of the last `n` bytes (`n <= 16`) of a little-endian word.
const fn last(n: u32) -> u128 {
    if n == 0 {
        0
    } else {
        HIGH << (8 * (16 - n))
    }
}

/// `FIRST[n] == first(n)`, looked up rather than shifted (a 128-bit shift by a variable
/// amount costs a dozen instructions).
const FIRST: [u128; 17] = [
    first(0),
    first(1),
    first(2),
    first(3),
    first(4),
    first(5),
    first(6),
    first(7),
    first(8),
    first(9),
    first(10),
    first(11),
    first(12),
    first(13),
    first(14),
    first(15),
    first(16),
];

/// `LAST[n] == last(n)`.
const LAST: [u128; 17] = [
    last(0),
    last(1),
    last(2),
    last(3),
    last(4),
    last(5),
    last(6),
    last(7),
    last(8),
    last(9),
    last(10),
    last(11),
    last(12),
    last(13),
    last(14),
    last(15),
    last(16),
];

/// An open container in [`Decoder`](crate::Decoder)'s nesting stack.
/// When an item's marker is missing because the input ended, the item that could not be
/// completed is the innermost open container: report its marker, as for any other
/// truncated item.
#[inline]
pub(crate) fn missing_item(e: Error, start: usize, len: usize, container: Option<usize>) -> Error {
    match container {
        Some(at) if start >= len && e.kind() == ErrorKind::UnexpectedEnd => {
            Error::new(e.kind(), at, "more container items")
        }
        _ => e,
    }
}
