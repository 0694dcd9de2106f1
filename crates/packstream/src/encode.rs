//! Encoding with the smallest marker, byte-identical to the official Python, Go and JS
//! drivers: tiny forms below 16, 8-bit sizes below 256, 16-bit below 65 536, else 32-bit;
//! integers in the narrowest form of the table in the PackStream spec; floats always
//! FLOAT_64.

use core::mem::MaybeUninit;

use bytes::BytesMut;

use crate::error::EncodeError;
use crate::limits::EncodeOptions;
use crate::marker as m;
use crate::tree::{Shape, Tree};
use crate::value::{Value, ValueRef};

/// The one output buffer of boltcodec: where an [`Encoder`] writes, and where the Bolt
/// crate frames and rolls back messages — `Vec<u8>`, [`BytesMut`], or a `&mut` of either.
///
/// Sealed: the encoder relies on `reserve` being honoured for speed, and the framing
/// code on the positions it reads staying valid.
///
/// ```
/// use packstream::{Encoder, Sink};
/// let mut out = Vec::new();
/// Encoder::new(&mut out).write_int(1000);
/// assert_eq!(out.written_len(), 3);
/// out.truncate_to(0);
/// assert!(out.is_empty());
/// ```
pub trait Sink: sealed::Sealed {
    /// Appends one byte.
    fn put_u8(&mut self, b: u8);
    /// Appends bytes.
    fn put_slice(&mut self, s: &[u8]);
    /// Makes room for at least `n` more bytes.
    fn reserve(&mut self, n: usize);
    /// How many bytes the buffer holds.
    fn written_len(&self) -> usize;
    /// Shortens the buffer to `len` bytes (no effect if it is shorter): rolls back what
    /// was written after that position.
    fn truncate_to(&mut self, len: usize);
    /// Grows (with zeros) or shortens the buffer to exactly `len` bytes.
    fn resize_to(&mut self, len: usize);
    /// The bytes written so far, to patch in place (chunk headers).
    fn bytes_mut(&mut self) -> &mut [u8];
    /// Appends a string of at most 32 bytes with its header, with one capacity check and
    /// fixed-size copies (a call to `memcpy` for a few bytes cost more than the
    /// writing): see [`short_string`].
    #[doc(hidden)]
    fn put_short_str(&mut self, s: &[u8]);
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for Vec<u8> {}
    impl Sealed for bytes::BytesMut {}
    impl<S: Sealed + ?Sized> Sealed for &mut S {}
}

/// The [`Sink`] methods `Vec<u8>` and [`BytesMut`] implement with the same inherent
/// methods.
macro_rules! buffer_methods {
    () => {
        #[inline]
        fn written_len(&self) -> usize {
            self.len()
        }
        #[inline]
        fn truncate_to(&mut self, len: usize) {
            self.truncate(len);
        }
        #[inline]
        fn resize_to(&mut self, len: usize) {
            self.resize(len, 0);
        }
        #[inline]
        fn bytes_mut(&mut self) -> &mut [u8] {
            self
        }
    };
}

impl Sink for Vec<u8> {
    #[inline]
    fn put_u8(&mut self, b: u8) {
        self.push(b);
    }
    #[inline(always)]
    #[allow(unsafe_code)]
    fn put_short_str(&mut self, s: &[u8]) {
        self.reserve(SHORT_STRING + 2);
        let len = self.len();
        match short_string(self.spare_capacity_mut(), s) {
            // SAFETY: `short_string` initialised the first `n` bytes of the spare
            // capacity (its contract), so the first `len + n` bytes are initialised and
            // inside the capacity. (Tests: tests/encode.rs, every length 0..=40, under
            // Miri.)
            Some(n) => unsafe { self.set_len(len + n) },
            // Not reached: `reserve` made room for the longest short string.
            None => put_short_str_slow(self, s),
        }
    }
    #[inline]
    fn put_slice(&mut self, s: &[u8]) {
        self.extend_from_slice(s);
    }
    #[inline]
    fn reserve(&mut self, n: usize) {
        Vec::reserve(self, n);
    }
    buffer_methods!();
}

/// The safe fallback of `Vec::put_short_str`, out of line so that its `memcpy` call
/// does not merge with the fixed-size copies.
#[cold]
#[inline(never)]
fn put_short_str_slow<S: Sink>(buf: &mut S, s: &[u8]) {
    let n = s.len();
    if n < 16 {
        buf.put_u8(m::TINY_STRING | n as u8);
    } else {
        buf.put_slice(&[m::STRING_8, n as u8]);
    }
    buf.put_slice(s);
}

impl Sink for BytesMut {
    #[inline]
    fn put_u8(&mut self, b: u8) {
        bytes::BufMut::put_u8(self, b);
    }
    #[inline]
    fn put_short_str(&mut self, s: &[u8]) {
        put_short_str_slow(self, s);
    }
    #[inline]
    fn put_slice(&mut self, s: &[u8]) {
        self.extend_from_slice(s);
    }
    #[inline]
    fn reserve(&mut self, n: usize) {
        BytesMut::reserve(self, n);
    }
    buffer_methods!();
}

impl<S: Sink + ?Sized> Sink for &mut S {
    #[inline]
    fn put_u8(&mut self, b: u8) {
        (**self).put_u8(b);
    }
    #[inline]
    fn put_slice(&mut self, s: &[u8]) {
        (**self).put_slice(s);
    }
    #[inline]
    fn reserve(&mut self, n: usize) {
        (**self).reserve(n);
    }
    #[inline]
    fn written_len(&self) -> usize {
        (**self).written_len()
    }
    #[inline]
    fn truncate_to(&mut self, len: usize) {
        (**self).truncate_to(len);
    }
    #[inline]
    fn resize_to(&mut self, len: usize) {
        (**self).resize_to(len);
    }
    #[inline]
    fn bytes_mut(&mut self) -> &mut [u8] {
        (**self).bytes_mut()
    }
    #[inline(always)]
    fn put_short_str(&mut self, s: &[u8]) {
        (**self).put_short_str(s);
    }
}

/// Writes one value of either tree type. Scalars inside containers are written in the
/// container's loop; only nested containers recurse (a call per scalar cost more than the
/// writing itself). `$depth` containers are open around the value.
macro_rules! write_tree {
    ($enc:ident, $v:expr, $ty:ident, $method:ident, $list:ident, $depth:expr) => {{
        // An item: scalars written in place, lists by a small function of their own
        // (re-entering this one per small list cost as much as writing the list:
        // `lists_1000x1`, a RECORD's field list).
        macro_rules! item {
            ($item:expr) => {
                match $item {
                    $ty::Int(i) => $enc.write_int(*i),
                    $ty::Float(f) => $enc.write_float(*f),
                    $ty::String(s) => $enc.put_str(s)?,
                    $ty::Null => $enc.write_null(),
                    $ty::Bool(b) => $enc.write_bool(*b),
                    $ty::List(items) if $depth + 1 < RECURSION_DEPTH => {
                        $enc.$list(items, $depth + 1)?
                    }
                    other => $enc.$method(other, $depth + 1)?,
                }
            };
        }
        match $v {
            $ty::Null => $enc.write_null(),
            $ty::Bool(b) => $enc.write_bool(*b),
            $ty::Int(i) => $enc.write_int(*i),
            $ty::Float(f) => $enc.write_float(*f),
            $ty::Bytes(b) => $enc.put_bytes(b)?,
            $ty::String(s) => $enc.put_str(s)?,
            $ty::List(items) => return $enc.$list(items, $depth),
            $ty::Map(entries) => {
                $enc.put_map_header(entries.len())?;
                for (k, it) in entries {
                    $enc.put_str(k)?;
                    item!(it);
                }
            }
            $ty::Struct(s) => {
                $enc.put_struct_header(s.tag, s.fields.len())?;
                for it in &s.fields {
                    item!(it);
                }
            }
            $ty::Uuid(u) => $enc.put_uuid(u)?,
        }
        Ok(())
    }};
}

/// Writes a list's header and items: scalars in the loop, anything else by a call
/// (`$depth` is the list's own depth).
macro_rules! write_items {
    ($enc:ident, $items:expr, $ty:ident, $method:ident, $depth:expr) => {{
        $enc.put_list_header($items.len())?;
        for it in $items {
            match it {
                $ty::Int(i) => $enc.write_int(*i),
                $ty::Float(f) => $enc.write_float(*f),
                $ty::String(s) => $enc.put_str(s)?,
                $ty::Null => $enc.write_null(),
                $ty::Bool(b) => $enc.write_bool(*b),
                // A list in a list (`lists_NxM`, a column of lists) is written here, one
                // level down, so that it costs no call; its own containers do.
                $ty::List(inner) if $depth + 2 < RECURSION_DEPTH => {
                    $enc.put_list_header(inner.len())?;
                    for it in inner {
                        match it {
                            $ty::Int(i) => $enc.write_int(*i),
                            $ty::Float(f) => $enc.write_float(*f),
                            $ty::String(s) => $enc.put_str(s)?,
                            $ty::Null => $enc.write_null(),
                            $ty::Bool(b) => $enc.write_bool(*b),
                            other => $enc.$method(other, $depth + 2)?,
                        }
                    }
                }
                other => $enc.$method(other, $depth + 1)?,
            }
        }
        Ok(())
    }};
}

/// Writes PackStream into a [`Sink`]: `Vec<u8>`, `BytesMut`, or `&mut` either.
///
/// Containers are written as a header followed by their items, so a binding can stream
/// values out without building a tree first.
///
/// ```
/// use packstream::Encoder;
/// let mut out = Vec::new();
/// let mut enc = Encoder::new(&mut out);
/// enc.write_map_header(2).unwrap();
/// enc.write_str("name").unwrap();
/// enc.write_str("Alice").unwrap();
/// enc.write_str("age").unwrap();
/// enc.write_int(33);
/// assert_eq!(out, b"\xA2\x84name\x85Alice\x83age\x21");
/// ```
///
/// Writing into a `BytesMut` works the same way:
///
/// ```
/// use bytes::BytesMut;
/// use packstream::Encoder;
/// let mut enc = Encoder::new(BytesMut::new());
/// enc.write_int(-129);
/// assert_eq!(&enc.into_inner()[..], [0xC9, 0xFF, 0x7F]);
/// ```
#[derive(Debug)]
pub struct Encoder<B> {
    buf: B,
    opts: EncodeOptions,
}

impl<B: Sink> Encoder<B> {
    /// An encoder with default options (PackStream v1, tiny structures only).
    pub fn new(buf: B) -> Self {
        Self::with_options(buf, EncodeOptions::default())
    }

    /// An encoder with the given options.
    pub fn with_options(buf: B, opts: EncodeOptions) -> Self {
        Encoder { buf, opts }
    }

    /// The options in use.
    pub fn options(&self) -> EncodeOptions {
        self.opts
    }

    /// Changes the options for what is written from now on.
    pub fn set_options(&mut self, opts: EncodeOptions) {
        self.opts = opts;
    }

    /// The buffer written to.
    pub fn into_inner(self) -> B {
        self.buf
    }

    /// A reference to the buffer.
    pub fn get_ref(&self) -> &B {
        &self.buf
    }

    /// A mutable reference to the buffer.
    pub fn get_mut(&mut self) -> &mut B {
        &mut self.buf
    }

    /// Writes Null.
    #[inline]
    pub fn write_null(&mut self) {
        self.buf.put_u8(m::NULL);
    }

    /// Writes a boolean.
    #[inline]
    pub fn write_bool(&mut self, v: bool) {
        self.buf.put_u8(if v { m::TRUE } else { m::FALSE });
    }

    /// Writes an integer in its narrowest form.
    ///
    /// ```
    /// # use packstream::Encoder;
    /// let mut out = Vec::new();
    /// let mut enc = Encoder::new(&mut out);
    /// for v in [-16, -17, 127, 128, i64::MIN] { enc.write_int(v); }
    /// assert_eq!(out, [0xF0, 0xC8, 0xEF, 0x7F, 0xC9, 0x00, 0x80, 0xCB, 0x80, 0, 0, 0, 0, 0, 0, 0]);
    /// ```
    #[inline(always)]
    pub fn write_int(&mut self, v: i64) {
        if (-16..=127).contains(&v) {
            self.buf.put_u8(v as u8);
        } else if let Ok(b) = i8::try_from(v) {
            self.buf.put_slice(&[m::INT_8, b as u8]);
        } else if let Ok(s) = i16::try_from(v) {
            let [a, b] = s.to_be_bytes();
            self.buf.put_slice(&[m::INT_16, a, b]);
        } else if let Ok(i) = i32::try_from(v) {
            let [a, b, c, d] = i.to_be_bytes();
            self.buf.put_slice(&[m::INT_32, a, b, c, d]);
        } else {
            let [a, b, c, d, e, f, g, h] = v.to_be_bytes();
            self.buf.put_slice(&[m::INT_64, a, b, c, d, e, f, g, h]);
        }
    }

    /// Writes a float (always FLOAT_64, bits unchanged).
    #[inline(always)]
    pub fn write_float(&mut self, v: f64) {
        let [a, b, c, d, e, f, g, h] = v.to_be_bytes();
        self.buf.put_slice(&[m::FLOAT_64, a, b, c, d, e, f, g, h]);
    }

    /// Writes a size header: tiny form (if `tiny` is given) below 16, then 8/16/32-bit.
    #[inline(always)]
    fn write_size(&mut self, tiny: Option<u8>, markers: [u8; 3], len: usize) -> Result<(), Fail> {
        match (tiny, len) {
            (Some(t), 0..=15) => self.buf.put_u8(t | len as u8),
            (_, 0..=0xFF) => self.buf.put_slice(&[markers[0], len as u8]),
            (_, 0x100..=0xFFFF) => {
                let [a, b] = (len as u16).to_be_bytes();
                self.buf.put_slice(&[markers[1], a, b]);
            }
            _ => {
                let n = u32::try_from(len)
                    .ok()
                    .filter(|n| *n <= m::MAX_SIZE)
                    .ok_or(Fail::SizeTooLarge(len))?;
                let [a, b, c, d] = n.to_be_bytes();
                self.buf.put_slice(&[markers[2], a, b, c, d]);
            }
        }
        Ok(())
    }

    /// Writes a string.
    ///
    /// # Errors
    /// [`EncodeError::SizeTooLarge`] above 2 147 483 647 bytes.
    #[inline(always)]
    pub fn write_str(&mut self, v: &str) -> Result<(), EncodeError> {
        Ok(self.put_str(v)?)
    }

    /// [`Self::write_str`] with the encoder's internal error.
    #[inline(always)]
    fn put_str(&mut self, v: &str) -> Result<(), Fail> {
        let b = v.as_bytes();
        if b.len() <= SHORT_STRING {
            self.buf.put_short_str(b);
            return Ok(());
        }
        self.write_long_str(b)
    }

    /// [`Self::write_str`] above [`SHORT_STRING`] bytes.
    #[inline(never)]
    fn write_long_str(&mut self, b: &[u8]) -> Result<(), Fail> {
        self.buf.reserve(5 + b.len());
        self.write_size(
            Some(m::TINY_STRING),
            [m::STRING_8, m::STRING_16, m::STRING_32],
            b.len(),
        )?;
        self.buf.put_slice(b);
        Ok(())
    }

    /// Writes a byte array (there is no tiny form: `b""` is `CC 00`).
    ///
    /// # Errors
    /// [`EncodeError::SizeTooLarge`] above 2 147 483 647 bytes.
    #[inline]
    pub fn write_bytes(&mut self, v: &[u8]) -> Result<(), EncodeError> {
        Ok(self.put_bytes(v)?)
    }

    /// [`Self::write_bytes`] with the encoder's internal error.
    fn put_bytes(&mut self, v: &[u8]) -> Result<(), Fail> {
        self.buf.reserve(5 + v.len());
        self.write_size(None, [m::BYTES_8, m::BYTES_16, m::BYTES_32], v.len())?;
        self.buf.put_slice(v);
        Ok(())
    }

    /// Writes a list header; `len` values must follow.
    ///
    /// # Errors
    /// [`EncodeError::SizeTooLarge`] above 2 147 483 647 items.
    #[inline]
    pub fn write_list_header(&mut self, len: usize) -> Result<(), EncodeError> {
        Ok(self.put_list_header(len)?)
    }

    /// [`Self::write_list_header`] with the encoder's internal error.
    #[inline]
    fn put_list_header(&mut self, len: usize) -> Result<(), Fail> {
        self.write_size(Some(m::TINY_LIST), [m::LIST_8, m::LIST_16, m::LIST_32], len)
    }

    /// Writes a map header; `len` key/value pairs must follow, keys as strings.
    ///
    /// # Errors
    /// [`EncodeError::SizeTooLarge`] above 2 147 483 647 entries.
    #[inline]
    pub fn write_map_header(&mut self, len: usize) -> Result<(), EncodeError> {
        Ok(self.put_map_header(len)?)
    }

    /// [`Self::write_map_header`] with the encoder's internal error.
    #[inline]
    fn put_map_header(&mut self, len: usize) -> Result<(), Fail> {
        self.write_size(Some(m::TINY_MAP), [m::MAP_8, m::MAP_16, m::MAP_32], len)
    }

    /// Writes a structure header (tiny form); `len` fields must follow.
    ///
    /// # Errors
    /// [`EncodeError::TooManyFields`] above 15 fields unless
    /// [`EncodeOptions::legacy_structs`] is set (then `DC`/`DD` up to 65 535).
    #[inline(always)]
    pub fn write_struct_header(&mut self, tag: u8, len: usize) -> Result<(), EncodeError> {
        Ok(self.put_struct_header(tag, len)?)
    }

    /// [`Self::write_struct_header`] with the encoder's internal error.
    #[inline(always)]
    fn put_struct_header(&mut self, tag: u8, len: usize) -> Result<(), Fail> {
        if len <= 15 {
            self.buf.put_slice(&[m::TINY_STRUCT | len as u8, tag]);
            return Ok(());
        }
        self.write_large_struct_header(tag, len)
    }

    /// [`Self::write_struct_header`] above 15 fields.
    #[cold]
    #[inline(never)]
    fn write_large_struct_header(&mut self, tag: u8, len: usize) -> Result<(), Fail> {
        match len {
            16..=0xFF if self.opts.legacy_structs => {
                self.buf.put_slice(&[m::STRUCT_8, len as u8, tag])
            }
            0x100..=0xFFFF if self.opts.legacy_structs => {
                let [a, b] = (len as u16).to_be_bytes();
                self.buf.put_slice(&[m::STRUCT_16, a, b, tag]);
            }
            _ => return Err(Fail::TooManyFields(len)),
        }
        Ok(())
    }

    /// Writes a UUID (PackStream v2: `E0` + 16 bytes).
    ///
    /// # Errors
    /// [`EncodeError::UuidNotEnabled`] unless [`EncodeOptions::uuid`] is set.
    #[inline]
    pub fn write_uuid(&mut self, v: &[u8; 16]) -> Result<(), EncodeError> {
        Ok(self.put_uuid(v)?)
    }

    /// [`Self::write_uuid`] with the encoder's internal error.
    fn put_uuid(&mut self, v: &[u8; 16]) -> Result<(), Fail> {
        if !self.opts.uuid {
            return Err(Fail::UuidNotEnabled);
        }
        self.buf.put_u8(m::UUID);
        self.buf.put_slice(v);
        Ok(())
    }

    /// Writes already-encoded PackStream bytes unchanged.
    #[inline]
    pub fn write_raw(&mut self, bytes: &[u8]) {
        self.buf.put_slice(bytes);
    }

    /// Writes a borrowed value.
    ///
    /// # Errors
    /// See [`EncodeError`].
    pub fn write_value_ref(&mut self, v: &ValueRef<'_>) -> Result<(), EncodeError> {
        Ok(self.write_value_ref_at(v, 0)?)
    }

    /// Writes an owned value.
    ///
    /// # Errors
    /// See [`EncodeError`].
    pub fn write_value(&mut self, v: &Value) -> Result<(), EncodeError> {
        Ok(self.write_value_at(v, 0)?)
    }

    fn write_value_ref_at(&mut self, v: &ValueRef<'_>, depth: u32) -> Result<(), Fail> {
        if depth >= RECURSION_DEPTH {
            return self.write_deep(v);
        }
        write_tree!(
            self,
            v,
            ValueRef,
            write_value_ref_at,
            write_list_ref_at,
            depth
        )
    }

    fn write_value_at(&mut self, v: &Value, depth: u32) -> Result<(), Fail> {
        if depth >= RECURSION_DEPTH {
            return self.write_deep(v);
        }
        write_tree!(self, v, Value, write_value_at, write_list_at, depth)
    }

    /// Writes a list at `depth` (below [`RECURSION_DEPTH`]): its scalars in the loop,
    /// anything else through [`Self::write_value_ref_at`].
    #[inline(never)]
    fn write_list_ref_at(&mut self, items: &[ValueRef<'_>], depth: u32) -> Result<(), Fail> {
        write_items!(self, items, ValueRef, write_value_ref_at, depth)
    }

    /// [`Self::write_list_ref_at`] for owned values.
    #[inline(never)]
    fn write_list_at(&mut self, items: &[Value], depth: u32) -> Result<(), Fail> {
        write_items!(self, items, Value, write_value_at, depth)
    }

    /// Writes a value nested deeper than [`RECURSION_DEPTH`] with an explicit stack.
    fn write_deep<T: WriteLeaf>(&mut self, v: &T) -> Result<(), Fail> {
        let mut stack: Vec<Open<'_, T>> = Vec::new();
        let mut next = Some(v);
        loop {
            if let Some(v) = next.take() {
                match v.shape() {
                    Shape::List(items) => {
                        self.put_list_header(items.len())?;
                        stack.push(Open::Items(items.iter()));
                    }
                    Shape::Struct(tag, fields) => {
                        self.put_struct_header(tag, fields.len())?;
                        stack.push(Open::Items(fields.iter()));
                    }
                    Shape::Map(entries) => {
                        self.put_map_header(entries.len())?;
                        stack.push(Open::Entries(entries.iter()));
                    }
                    Shape::Leaf => v.write_leaf(self)?,
                }
            }
            let Some(top) = stack.last_mut() else {
                return Ok(());
            };
            match top {
                Open::Items(items) => next = items.next(),
                Open::Entries(entries) => {
                    if let Some((k, v)) = entries.next() {
                        self.put_str(k.as_ref())?;
                        next = Some(v);
                    }
                }
            }
            if next.is_none() {
                stack.pop();
            }
        }
    }
}

/// The encoder's errors inside: `Copy` and two words, so that the functions writing
/// nested values return them in registers ([`EncodeError`] is three words, returned
/// through memory), and turned into an [`EncodeError`] at the public methods.
#[derive(Debug, Clone, Copy)]
enum Fail {
    SizeTooLarge(usize),
    TooManyFields(usize),
    UuidNotEnabled,
}

impl From<Fail> for EncodeError {
    #[cold]
    fn from(f: Fail) -> Self {
        match f {
            Fail::SizeTooLarge(n) => EncodeError::SizeTooLarge(n),
            Fail::TooManyFields(n) => EncodeError::TooManyFields(n),
            Fail::UuidNotEnabled => EncodeError::UuidNotEnabled,
        }
    }
}

/// Strings up to this many bytes are written by [`Encoder::write_str`] with fixed-size
/// copies ([`short_string`]) instead of a call to `memcpy`.
const SHORT_STRING: usize = 32;

/// Writes a string of at most [`SHORT_STRING`] bytes with its header (tiny or STRING_8)
/// at the start of `out`, and returns how many bytes that is; `None`, with nothing
/// written, if `out` is too short or the string too long.
///
/// Contract (what `Vec::put_short_str` relies on): on `Some(n)`, the first `n` bytes of
/// `out` are initialised. The payload is copied in two overlapping pieces of a fixed
/// size (16, 8 or 4 bytes, or three single bytes below 4) that together cover it,
/// whatever its length.
#[inline(always)]
fn short_string(out: &mut [MaybeUninit<u8>], s: &[u8]) -> Option<usize> {
    let n = s.len();
    if n > SHORT_STRING || out.len() < n + 2 {
        return None;
    }
    let at = if n < 16 {
        out.first_mut()?.write(m::TINY_STRING | n as u8);
        1
    } else {
        let [a, b] = out.first_chunk_mut::<2>()?;
        a.write(m::STRING_8);
        b.write(n as u8);
        2
    };
    let body = out.get_mut(at..at + n)?;
    if n >= 16 {
        copy_piece::<16>(body, s, 0)?;
        copy_piece::<16>(body, s, n - 16)?;
    } else if n >= 8 {
        copy_piece::<8>(body, s, 0)?;
        copy_piece::<8>(body, s, n - 8)?;
    } else if n >= 4 {
        copy_piece::<4>(body, s, 0)?;
        copy_piece::<4>(body, s, n - 4)?;
    } else if n > 0 {
        copy_piece::<1>(body, s, 0)?;
        copy_piece::<1>(body, s, n / 2)?;
        copy_piece::<1>(body, s, n - 1)?;
    }
    Some(at + n)
}

/// Copies `s[from..from + K]` to `out[from..from + K]`; `None` if either is too short
/// (which [`short_string`] rules out before).
#[inline(always)]
fn copy_piece<const K: usize>(out: &mut [MaybeUninit<u8>], s: &[u8], from: usize) -> Option<()> {
    let src = s.get(from..)?.first_chunk::<K>()?;
    let dst = out.get_mut(from..)?.first_chunk_mut::<K>()?;
    *dst = src.map(MaybeUninit::new);
    Some(())
}

/// Containers nested deeper than this are written with an explicit stack. Recursion is
/// faster, but a debug build spends about 4 KiB of stack per level: a 513-level list,
/// which the default limits accept, overflowed a 2 MiB thread stack (regression test
/// `encoding_a_deeply_nested_value_overflowed_the_stack`); an unoptimised build recurses
/// only a few levels so that a 256 KiB thread stack is enough (`tests/deep.rs`).
const RECURSION_DEPTH: u32 = if cfg!(debug_assertions) { 4 } else { 32 };

/// How [`Encoder::write_deep`] writes a leaf of either tree.
trait WriteLeaf: Tree {
    /// Writes a node whose shape is [`Shape::Leaf`].
    fn write_leaf<B: Sink>(&self, enc: &mut Encoder<B>) -> Result<(), Fail>;
}

/// A container being written by [`Encoder::write_deep`]: the items still to write.
enum Open<'v, T: Tree> {
    Items(core::slice::Iter<'v, T>),
    Entries(core::slice::Iter<'v, (T::Key, T)>),
}

impl WriteLeaf for ValueRef<'_> {
    fn write_leaf<B: Sink>(&self, enc: &mut Encoder<B>) -> Result<(), Fail> {
        enc.write_value_ref_at(self, 0)
    }
}

impl WriteLeaf for Value {
    fn write_leaf<B: Sink>(&self, enc: &mut Encoder<B>) -> Result<(), Fail> {
        enc.write_value_at(self, 0)
    }
}

impl ValueRef<'_> {
    /// Encodes this value (smallest markers) into a new `Vec`.
    ///
    /// # Errors
    /// See [`EncodeError`].
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        Encoder::with_options(
            &mut out,
            EncodeOptions {
                legacy_structs: false,
                uuid: true,
            },
        )
        .write_value_ref(self)?;
        Ok(out)
    }
}

impl Value {
    /// Encodes this value (smallest markers) into a new `Vec`. UUIDs are allowed.
    ///
    /// # Errors
    /// See [`EncodeError`].
    pub fn to_bytes(&self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::new();
        Encoder::with_options(
            &mut out,
            EncodeOptions {
                legacy_structs: false,
                uuid: true,
            },
        )
        .write_value(self)?;
        Ok(out)
    }
}
