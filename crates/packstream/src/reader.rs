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

/// Reads one token at a time without tracking nesting. Shared by [`Decoder`] and the
/// value builders; every read checks what remains first.
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
    promised: u64,
}

#[inline]
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
        let others = self.promised.saturating_sub(own);
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

    #[inline]
    fn array<const N: usize>(
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

    #[inline]
    fn u8(&mut self, start: usize, expected: &'static str) -> Result<u8, Error> {
        Ok(self.array::<1>(start, expected)?[0])
    }

    #[inline]
    fn u16(&mut self, start: usize, expected: &'static str) -> Result<u32, Error> {
        Ok(u32::from(u16::from_be_bytes(self.array(start, expected)?)))
    }

    #[inline]
    fn u32(&mut self, start: usize, expected: &'static str) -> Result<u32, Error> {
        Ok(u32::from_be_bytes(self.array(start, expected)?))
    }

    /// Checks a declared size against the spec maximum and a limit.
    #[inline]
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

    #[inline]
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

    #[inline]
    fn string(&mut self, start: usize, size: u32) -> Result<Token<'a>, Error> {
        let len = self.check_size(start, size, self.opts.limits.max_string_len, "string bytes")?;
        let payload_at = self.pos;
        let bytes = self.payload(start, len, "string bytes")?;
        match core::str::from_utf8(bytes) {
            Ok(s) => Ok(Token::String(s)),
            Err(e) => Err(err(
                ErrorKind::InvalidUtf8,
                payload_at + e.valid_up_to(),
                "UTF-8 string bytes",
            )),
        }
    }

    #[inline]
    fn bytes(&mut self, start: usize, size: u32) -> Result<Token<'a>, Error> {
        let len = self.check_size(start, size, self.opts.limits.max_bytes_len, "byte array")?;
        Ok(Token::Bytes(self.payload(start, len, "byte array")?))
    }

    /// Checks a container header: spec maximum, per-container and total limits, and that
    /// the bytes left can hold `size * min_bytes` bytes of items.
    #[inline]
    fn container(
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

    #[inline]
    fn structure(&mut self, start: usize, size: u32) -> Result<Token<'a>, Error> {
        let tag = self.u8(start, "a structure tag")?;
        let len = self.container(start, size, 1, "structure fields")?;
        Ok(Token::Struct { tag, len })
    }

    /// Reads the token at the current position. On error the position is unspecified.
    ///
    /// Always inlined: returning the large `Result` through memory from an out-of-line
    /// call cost more than the parsing itself (store-forwarding stalls, seen with perf).
    #[inline(always)]
    pub(crate) fn token(&mut self) -> Result<Token<'a>, Error> {
        let start = self.pos;
        // This item fills one promised slot (none at the top level).
        self.promised = self.promised.saturating_sub(1);
        let marker = *self
            .buf
            .get(start)
            .ok_or_else(|| err(ErrorKind::UnexpectedEnd, start, "a marker byte"))?;
        self.pos = start + 1;
        match marker {
            0x00..=0x7F => Ok(Token::Int(i64::from(marker))),
            0xF0..=0xFF => Ok(Token::Int(i64::from(marker as i8))),
            0x80..=0x8F => self.string(start, u32::from(marker & 0x0F)),
            0x90..=0x9F => Ok(Token::List(self.container(
                start,
                u32::from(marker & 0x0F),
                1,
                "list items",
            )?)),
            0xA0..=0xAF => Ok(Token::Map(self.container(
                start,
                u32::from(marker & 0x0F),
                2,
                "map entries",
            )?)),
            0xB0..=0xBF => self.structure(start, u32::from(marker & 0x0F)),
            m::NULL => Ok(Token::Null),
            m::FALSE => Ok(Token::Bool(false)),
            m::TRUE => Ok(Token::Bool(true)),
            m::FLOAT_64 => Ok(Token::Float(f64::from_be_bytes(
                self.array(start, "8 bytes of FLOAT_64")?,
            ))),
            m::INT_8 => Ok(Token::Int(i64::from(i8::from_be_bytes(
                self.array(start, "1 byte of INT_8")?,
            )))),
            m::INT_16 => Ok(Token::Int(i64::from(i16::from_be_bytes(
                self.array(start, "2 bytes of INT_16")?,
            )))),
            m::INT_32 => Ok(Token::Int(i64::from(i32::from_be_bytes(
                self.array(start, "4 bytes of INT_32")?,
            )))),
            m::INT_64 => Ok(Token::Int(i64::from_be_bytes(
                self.array(start, "8 bytes of INT_64")?,
            ))),
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
            m::STRING_8 => {
                let n = self.u8(start, "a STRING_8 size")?;
                self.string(start, u32::from(n))
            }
            m::STRING_16 => {
                let n = self.u16(start, "a STRING_16 size")?;
                self.string(start, n)
            }
            m::STRING_32 => {
                let n = self.u32(start, "a STRING_32 size")?;
                self.string(start, n)
            }
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

/// An open container in [`Decoder`]'s nesting stack.
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
