//! Decoding: a pull API of [`Token`]s and iterative builders of [`ValueRef`] and [`Value`].
//!
//! All decoding reads from a `&'a [u8]` and borrows strings and byte arrays from it. Nothing
//! here recurses: nesting is tracked with an explicit stack, so hostile nesting gives a
//! [`LimitExceeded`](ErrorKind::LimitExceeded) error instead of a stack overflow.

use crate::build::{build, missing_item, Node};
use crate::error::{Error, ErrorKind};
use crate::limits::DecodeOptions;
use crate::marker as m;
use crate::value::ValueRef;

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

/// Receives the items of a value walked by [`Decoder::visit_value`], in wire order.
///
/// Containers are announced with their length; their items follow. The methods are
/// called inline (the walk is generic over the visitor), so a binding can write its own
/// representation — host objects, a tape — at full speed.
pub trait Visitor<'a> {
    /// Null.
    fn null(&mut self);
    /// A boolean.
    fn bool(&mut self, v: bool);
    /// An integer.
    fn int(&mut self, v: i64);
    /// A float.
    fn float(&mut self, v: f64);
    /// A string, borrowed from the input; `is_key` when it is a map key.
    fn string(&mut self, v: &'a str, is_key: bool);
    /// A byte array, borrowed from the input.
    fn bytes(&mut self, v: &'a [u8]);
    /// A UUID (PackStream v2).
    fn uuid(&mut self, v: [u8; 16]);
    /// A list of `len` items follows.
    fn list(&mut self, len: u32);
    /// A map of `len` entries follows: key, value, key, value…
    fn map(&mut self, len: u32);
    /// A structure with `tag` and `len` fields follows.
    fn structure(&mut self, tag: u8, len: u32);
}

/// Reads one token at a time without tracking nesting. Shared by [`Decoder`] and the
/// value builders; every read checks what remains first.
#[derive(Debug, Clone)]
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    opts: DecodeOptions,
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
fn err(kind: ErrorKind, offset: usize, expected: &'static str) -> Error {
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
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// Items still to come; for maps, keys and values counted separately.
    remaining: u64,
    is_map: bool,
    /// Offset of the container's marker.
    start: usize,
}

/// The pull decoder: yields one [`Token`] at a time, tracking nesting so that it can enforce
/// the depth limit and that map keys are strings, and can build whole values at any point.
///
/// This is the API for bindings that build their own host objects straight from the bytes
/// without an intermediate tree.
///
/// ```
/// use packstream::{Decoder, Token, ValueRef};
/// // A structure B1 71 (RECORD) holding one list field.
/// let bytes = [0xB1, 0x71, 0x92, 0x2A, 0x81, 0x78];
/// let mut dec = Decoder::new(&bytes);
/// assert_eq!(dec.next_token().unwrap(), Token::Struct { tag: 0x71, len: 1 });
/// let fields = dec.read_value_ref().unwrap();
/// assert_eq!(fields, ValueRef::List(vec![ValueRef::Int(42), ValueRef::String("x")]));
/// assert!(dec.is_complete());
/// assert_eq!(dec.position(), bytes.len());
/// ```
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    reader: Reader<'a>,
    stack: Vec<Frame>,
}

impl<'a> Decoder<'a> {
    /// A decoder over `buf` with default options (PackStream v1, default limits).
    pub fn new(buf: &'a [u8]) -> Self {
        Self::with_options(buf, DecodeOptions::default())
    }

    /// A decoder over `buf` with the given options.
    pub fn with_options(buf: &'a [u8], opts: DecodeOptions) -> Self {
        Decoder {
            reader: Reader::new(buf, opts),
            stack: Vec::new(),
        }
    }

    /// Starts over on a new buffer, keeping options and the stack's allocation.
    pub fn reset(&mut self, buf: &'a [u8]) {
        self.reader = Reader::new(buf, self.reader.opts);
        self.stack.clear();
    }

    /// Byte offset of the next token.
    pub fn position(&self) -> usize {
        self.reader.pos
    }

    /// The bytes not yet read.
    pub fn remaining(&self) -> &'a [u8] {
        self.reader.buf.get(self.reader.pos..).unwrap_or_default()
    }

    /// How many containers are open around the next token.
    pub fn depth(&self) -> usize {
        self.stack.len()
    }

    /// True when no container is open: the tokens read so far form whole values.
    pub fn is_complete(&self) -> bool {
        self.stack.is_empty()
    }

    /// The options in force.
    pub fn options(&self) -> &DecodeOptions {
        &self.reader.opts
    }

    /// Checks the key rule and counts the item against the innermost open container.
    #[inline]
    fn begin_item(
        &mut self,
        tok_is_string: impl FnOnce() -> bool,
        start: usize,
    ) -> Result<(), Error> {
        if let Some(top) = self.stack.last_mut() {
            if top.is_map && top.remaining % 2 == 0 && !tok_is_string() {
                return Err(err(ErrorKind::NonStringKey, start, "a string map key"));
            }
            top.remaining -= 1;
        }
        Ok(())
    }

    /// Pops every container whose last item has been read.
    #[inline]
    fn end_items(&mut self) {
        while let Some(top) = self.stack.last() {
            if top.remaining != 0 {
                break;
            }
            self.stack.pop();
        }
    }

    /// Reads the next token.
    ///
    /// # Errors
    /// Any decode error, with its offset. After an error the decoder's state is
    /// unspecified; start again with [`Decoder::reset`].
    #[inline]
    pub fn next_token(&mut self) -> Result<Token<'a>, Error> {
        let start = self.reader.pos;
        self.reader.depth_full =
            self.stack.len() as u64 >= u64::from(self.reader.opts.limits.max_depth);
        let tok = self.reader.token().map_err(|e| {
            missing_item(
                e,
                start,
                self.reader.buf.len(),
                self.stack.last().map(|f| f.start),
            )
        })?;
        self.begin_item(|| matches!(tok, Token::String(_)), start)?;
        let (len, is_map) = match tok {
            Token::List(n) | Token::Struct { len: n, .. } => (u64::from(n), false),
            Token::Map(n) => (u64::from(n) * 2, true),
            _ => (0, false),
        };
        if len > 0 {
            self.stack.push(Frame {
                remaining: len,
                is_map,
                start,
            });
            return Ok(tok);
        }
        self.end_items();
        Ok(tok)
    }

    /// Walks the next complete value, calling `visitor` for each of its items in wire
    /// order: the fastest way for a binding to build host objects straight from the bytes.
    ///
    /// The checks and errors are those of [`Decoder::next_token`] (limits, UTF-8, string
    /// map keys, offsets); the visitor is also told which strings are map keys. Inside an
    /// open container it walks the next item, like [`Decoder::read_value_ref`]. The walk
    /// is iterative, so any depth allowed by the limits is safe for the stack.
    ///
    /// ```
    /// use packstream::{Decoder, Visitor};
    ///
    /// /// Collects a flat, readable trace.
    /// #[derive(Default)]
    /// struct Trace(Vec<String>);
    /// impl<'a> Visitor<'a> for Trace {
    ///     fn null(&mut self) { self.0.push("null".into()) }
    ///     fn bool(&mut self, v: bool) { self.0.push(v.to_string()) }
    ///     fn int(&mut self, v: i64) { self.0.push(v.to_string()) }
    ///     fn float(&mut self, v: f64) { self.0.push(v.to_string()) }
    ///     fn string(&mut self, v: &'a str, is_key: bool) { self.0.push(if is_key { format!("{v}:") } else { v.into() }) }
    ///     fn bytes(&mut self, v: &'a [u8]) { self.0.push(format!("{v:?}")) }
    ///     fn uuid(&mut self, _: [u8; 16]) { self.0.push("uuid".into()) }
    ///     fn list(&mut self, len: u32) { self.0.push(format!("list({len})")) }
    ///     fn map(&mut self, len: u32) { self.0.push(format!("map({len})")) }
    ///     fn structure(&mut self, tag: u8, len: u32) { self.0.push(format!("struct({tag:#x}, {len})")) }
    /// }
    ///
    /// // {"k": [1, "v"]}
    /// let bytes = [0xA1, 0x81, b'k', 0x92, 0x01, 0x81, b'v'];
    /// let mut trace = Trace::default();
    /// Decoder::new(&bytes).visit_value(&mut trace).unwrap();
    /// assert_eq!(trace.0, ["map(1)", "k:", "list(2)", "1", "v"]);
    /// ```
    ///
    /// # Errors
    /// Any decode error, with its offset. The visitor has then seen a prefix of the value.
    #[inline]
    pub fn visit_value<V: Visitor<'a>>(&mut self, visitor: &mut V) -> Result<(), Error> {
        let base = self.stack.len();
        let max_depth = u64::from(self.reader.opts.limits.max_depth);
        let len = self.reader.buf.len();
        loop {
            let start = self.reader.pos;
            let is_key = self
                .stack
                .last()
                .is_some_and(|f| f.is_map && f.remaining % 2 == 0);
            self.reader.depth_full = self.stack.len() as u64 >= max_depth;
            let tok = self
                .reader
                .token()
                .map_err(|e| missing_item(e, start, len, self.stack.last().map(|f| f.start)))?;
            if let Some(top) = self.stack.last_mut() {
                if is_key && !matches!(tok, Token::String(_)) {
                    return Err(err(ErrorKind::NonStringKey, start, "a string map key"));
                }
                top.remaining -= 1;
            }
            let opened = match tok {
                Token::Int(i) => {
                    visitor.int(i);
                    0
                }
                Token::String(s) => {
                    visitor.string(s, is_key);
                    0
                }
                Token::Float(f) => {
                    visitor.float(f);
                    0
                }
                Token::Null => {
                    visitor.null();
                    0
                }
                Token::Bool(b) => {
                    visitor.bool(b);
                    0
                }
                Token::Bytes(b) => {
                    visitor.bytes(b);
                    0
                }
                Token::Uuid(u) => {
                    visitor.uuid(u);
                    0
                }
                Token::List(n) => {
                    visitor.list(n);
                    u64::from(n)
                }
                Token::Map(n) => {
                    visitor.map(n);
                    2 * u64::from(n)
                }
                Token::Struct { tag, len } => {
                    visitor.structure(tag, len);
                    u64::from(len)
                }
            };
            if opened > 0 {
                self.stack.push(Frame {
                    remaining: opened,
                    is_map: matches!(tok, Token::Map(_)),
                    start,
                });
                continue;
            }
            self.end_items();
            if self.stack.len() <= base {
                return Ok(());
            }
        }
    }

    /// Skips the next complete value (a scalar, or a container with all its contents).
    ///
    /// # Errors
    /// Any decode error met inside the value.
    pub fn skip_value(&mut self) -> Result<(), Error> {
        let depth = self.stack.len();
        self.next_token()?;
        while self.stack.len() > depth {
            self.next_token()?;
        }
        Ok(())
    }

    /// Reads the next complete value as a borrowed [`ValueRef`].
    ///
    /// At the top level this reads one whole value; inside an open container it reads the
    /// next item (so a binding can read a structure header and then its fields).
    ///
    /// # Errors
    /// Any decode error met inside the value.
    pub fn read_value_ref(&mut self) -> Result<ValueRef<'a>, Error> {
        self.read_node()
    }

    /// Reads the next complete value as an owned [`Value`](crate::Value).
    ///
    /// # Errors
    /// Any decode error met inside the value.
    pub fn read_value(&mut self) -> Result<crate::Value, Error> {
        self.read_node()
    }

    fn read_node<N: Node<'a>>(&mut self) -> Result<N, Error> {
        let start = self.reader.pos;
        let base_depth = self.stack.len();
        let limit = u64::from(self.reader.opts.limits.max_depth);
        let key_expected = self
            .stack
            .last()
            .is_some_and(|top| top.is_map && top.remaining % 2 == 0);
        let container = self.stack.last().map(|f| f.start);
        let value = build(
            &mut self.reader,
            base_depth as u64,
            limit,
            container,
            key_expected,
        )?;
        self.begin_item(|| true, start)?;
        self.end_items();
        Ok(value)
    }

    /// Fails with [`TrailingBytes`](ErrorKind::TrailingBytes) unless all input was read.
    ///
    /// # Errors
    /// When bytes remain.
    pub fn finish(&self) -> Result<(), Error> {
        if self.reader.pos < self.reader.buf.len() {
            return Err(err(
                ErrorKind::TrailingBytes,
                self.reader.pos,
                "the end of the input",
            ));
        }
        Ok(())
    }
}

/// Decodes one value from the start of `buf`; returns it and the number of bytes it used.
pub(crate) fn decode_ref<'a>(
    buf: &'a [u8],
    opts: &DecodeOptions,
) -> Result<(ValueRef<'a>, usize), Error> {
    decode_node(buf, opts)
}

/// Decodes one value of any tree node type from the start of `buf`.
pub(crate) fn decode_node<'a, N: Node<'a>>(
    buf: &'a [u8],
    opts: &DecodeOptions,
) -> Result<(N, usize), Error> {
    let mut r = Reader::new(buf, *opts);
    let v = build(&mut r, 0, u64::from(opts.limits.max_depth), None, false)?;
    Ok((v, r.pos))
}
