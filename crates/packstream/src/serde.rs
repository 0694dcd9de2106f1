//! serde support (feature `serde`): [`to_vec`] and [`from_slice`], and a
//! [`Deserializer`] to keep for decoding many values or messages with one set-up.
//!
//! Deserialising borrows: a `&'de str` or `&'de [u8]` field points into the input.
//!
//! ## Mapping
//!
//! | Rust / serde | PackStream written | PackStream read |
//! | --- | --- | --- |
//! | `bool` | Boolean | Boolean |
//! | `i8`–`i64`, `u8`–`u64` | Integer, narrowest form (`u64` above `i64::MAX` is an error) | Integer, range-checked into the target |
//! | `f32`, `f64` | Float (FLOAT_64) | Float; an Integer is also accepted for floats |
//! | `char`, `&str`, `String` | String | String (`&'de str` borrowed) |
//! | bytes (`serde_bytes`) | Bytes | Bytes (`&'de [u8]` borrowed) |
//! | `Option<T>` | `None` → Null, `Some(v)` → v | Null → `None`, else `Some` |
//! | `()`, unit struct | Null | Null |
//! | newtype struct `struct M(T)` | as `T` | as `T` |
//! | `Vec<T>`, slices, sets, tuples, tuple structs | List | List (also a Structure: see below) |
//! | `HashMap`/`BTreeMap` with string keys | Map | Map |
//! | struct with named fields | Map of field name → value | Map (unknown keys ignored by derive), or a List of the fields in order |
//! | unit variant `E::A` | String `"A"` | String `"A"` |
//! | newtype variant `E::B(v)` | Map `{"B": v}` | Map of one entry |
//! | tuple variant `E::C(a, b)` | Map `{"C": [a, b]}` | Map of one entry |
//! | struct variant `E::D { x }` | Map `{"D": {"x": x}}` | Map of one entry |
//! | — | — | Structure: a sequence of the tag (integer) then the fields, so `(u8, A, B)` or a tuple struct reads it |
//! | — | — | UUID: 16 bytes |
//!
//! Map keys must serialise as strings (or `char`); anything else is an error, as in the
//! official drivers. Sequences and maps of unknown length are buffered and counted first,
//! since PackStream writes sizes up front.
//!
//! ```
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Debug, PartialEq, Serialize, Deserialize)]
//! struct Person<'a> {
//!     name: &'a str,
//!     age: u32,
//!     email: Option<String>,
//! }
//!
//! let alice = Person { name: "Alice", age: 33, email: None };
//! let bytes = packstream::to_vec(&alice).unwrap();
//! assert_eq!(bytes, b"\xA3\x84name\x85Alice\x83age\x21\x85email\xC0");
//! let back: Person<'_> = packstream::from_slice(&bytes).unwrap();
//! assert_eq!(back, alice); // `name` borrows from `bytes`
//! ```

use core::fmt;

use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde::forward_to_deserialize_any;
use serde::ser::{self, Serialize};

use crate::encode::Encoder;
use crate::error::{EncodeError, ErrorKind};
use crate::limits::{DecodeOptions, EncodeOptions};
use crate::marker as m;
use crate::reader::{ascii_ending_at, short_ascii, Reader, Token, TAG};

/// Errors of serde (de)serialisation: what went wrong is an [`ErrorDetail`]
/// ([`Error::detail`]), kept behind one pointer so that a `Result` of a small value
/// travels in registers on the decoding path; the stable kind name and the offset are
/// [`Error::kind`] and [`Error::offset`]. The type errors serde raises while it tries
/// the variants of an untagged enum (`invalid_type`, `invalid_value`, `missing_field`,
/// `duplicate_field`) keep their parts and write their message, serde's own text, only
/// when displayed; [`Error::detail`] builds their [`ErrorDetail::Data`] on first use.
///
/// ```
/// use packstream::serde::ErrorDetail;
/// use packstream::ErrorKind;
///
/// let err = packstream::from_slice::<(u8, String)>(&[0x92, 0x01, 0x85, b'a']).unwrap_err();
/// assert_eq!(err.kind(), "unexpected_end");
/// assert_eq!(err.offset(), Some(2));
/// assert!(matches!(err.detail(), ErrorDetail::Decode(e) if e.kind() == ErrorKind::UnexpectedEnd));
/// assert_eq!(err.to_string(), "input ended early at byte 2 (expected string bytes)");
/// ```
#[derive(Clone)]
pub struct Error(Box<Inner>);

/// What an [`Error`] points to.
#[derive(Clone)]
enum Inner {
    /// Built as it is.
    Detail(ErrorDetail),
    /// A type or value mismatch, or a missing or duplicate field, whose message is
    /// written when asked for.
    Mismatch(Mismatch),
}

/// Which of serde's `de::Error` methods made a [`Mismatch`].
#[derive(Clone, Copy)]
enum Said {
    InvalidType,
    InvalidValue,
    /// The field's name, `'static` in serde's signature: nothing to copy.
    MissingField(&'static str),
    DuplicateField(&'static str),
}

impl Said {
    /// The word serde's `invalid_type` / `invalid_value` messages start with:
    /// "invalid type: ..." or "invalid value: ...".
    fn noun(self) -> &'static str {
        match self {
            Said::InvalidValue => "value",
            _ => "type",
        }
    }
}

/// Room in a [`Mismatch`] for the expected text and the unexpected string together.
const MISMATCH_TEXT: usize = 96;

/// serde's `invalid_type` and `invalid_value` errors, kept as their parts (and its
/// `missing_field` and `duplicate_field` ones, which are a `'static` name). serde's
/// untagged enums and `Option`-like fallbacks build one such error for every variant
/// they try and reject, and drop it unread. serde's default methods format the message
/// at once: escaping the unexpected string, printing the unexpected float in decimal
/// and growing a `String` on the way, about 1,100 instructions and five allocations per
/// error on `records_10000x3`. Here only the expected text is written (it borrows the
/// visitor, so it cannot wait), into the same heap block: one allocation. The message
/// is written, with the text serde's methods give, when the error is displayed, and
/// the [`ErrorDetail`] is built the first time [`Error::detail`] asks for it.
/// Regression tests: `mismatch_errors_read_as_serdes_default_methods_write_them`,
/// `field_errors_read_as_serdes_default_methods_write_them` and
/// `a_rejected_untagged_variant_costs_one_allocation`.
#[derive(Clone)]
struct Mismatch {
    /// The method that made it.
    said: Said,
    /// What was found; a `Str` or `Other` has its text in `text` after the expected one
    /// (the `&'static str` it holds here is empty), a `Bytes` keeps none (serde shows
    /// only "byte array").
    unexp: de::Unexpected<'static>,
    offset: usize,
    /// Lengths of the expected text and of the unexpected string in `text`.
    exp_len: u8,
    str_len: u8,
    text: [u8; MISMATCH_TEXT],
    /// The detail, once [`Error::detail`] has asked for it.
    detail: std::sync::OnceLock<ErrorDetail>,
}

impl Mismatch {
    /// A mismatch with empty texts, in its heap block.
    #[inline(always)]
    fn boxed(said: Said) -> Box<Inner> {
        Box::new(Inner::Mismatch(Mismatch {
            said,
            unexp: de::Unexpected::Unit,
            offset: 0,
            exp_len: 0,
            str_len: 0,
            text: [0; MISMATCH_TEXT],
            detail: std::sync::OnceLock::new(),
        }))
    }

    /// Writes the parts of a mismatch into `self` (built with empty texts, in its heap
    /// block, so that nothing is copied there afterwards); fails if the texts do not
    /// fit in `text` (or the expected text fails to format): those take serde's
    /// formatting path.
    fn fill(&mut self, unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> fmt::Result {
        let mut w = Text {
            buf: &mut self.text,
            len: 0,
        };
        fmt::write(&mut w, format_args!("{exp}"))?;
        let exp_len = w.len;
        self.unexp = match unexp {
            de::Unexpected::Str(s) => {
                fmt::Write::write_str(&mut w, s)?;
                de::Unexpected::Str("")
            }
            de::Unexpected::Other(s) => {
                fmt::Write::write_str(&mut w, s)?;
                de::Unexpected::Other("")
            }
            de::Unexpected::Bytes(_) => de::Unexpected::Bytes(&[]),
            de::Unexpected::Bool(b) => de::Unexpected::Bool(b),
            de::Unexpected::Unsigned(n) => de::Unexpected::Unsigned(n),
            de::Unexpected::Signed(n) => de::Unexpected::Signed(n),
            de::Unexpected::Float(f) => de::Unexpected::Float(f),
            de::Unexpected::Char(c) => de::Unexpected::Char(c),
            de::Unexpected::Unit => de::Unexpected::Unit,
            de::Unexpected::Option => de::Unexpected::Option,
            de::Unexpected::NewtypeStruct => de::Unexpected::NewtypeStruct,
            de::Unexpected::Seq => de::Unexpected::Seq,
            de::Unexpected::Map => de::Unexpected::Map,
            de::Unexpected::Enum => de::Unexpected::Enum,
            de::Unexpected::UnitVariant => de::Unexpected::UnitVariant,
            de::Unexpected::NewtypeVariant => de::Unexpected::NewtypeVariant,
            de::Unexpected::TupleVariant => de::Unexpected::TupleVariant,
            de::Unexpected::StructVariant => de::Unexpected::StructVariant,
        };
        // Both fit: `len` never passes MISMATCH_TEXT, which is below 256.
        self.exp_len = exp_len as u8;
        self.str_len = (w.len - exp_len) as u8;
        Ok(())
    }

    /// The message, as serde's default methods write it.
    fn write_msg(&self, f: &mut impl fmt::Write) -> fmt::Result {
        match self.said {
            Said::MissingField(field) => return write!(f, "missing field `{field}`"),
            Said::DuplicateField(field) => return write!(f, "duplicate field `{field}`"),
            Said::InvalidType | Said::InvalidValue => {}
        }
        let (exp, rest) = self.text.split_at(usize::from(self.exp_len));
        let found = rest.get(..usize::from(self.str_len)).unwrap_or_default();
        // Both were written from `&str`s, whole, so both are UTF-8.
        let exp = core::str::from_utf8(exp).unwrap_or_default();
        let found = core::str::from_utf8(found).unwrap_or_default();
        let unexp = match self.unexp {
            de::Unexpected::Str(_) => de::Unexpected::Str(found),
            de::Unexpected::Other(_) => de::Unexpected::Other(found),
            u => u,
        };
        write!(f, "invalid {}: {unexp}, expected {exp}", self.said.noun())
    }

    fn detail(&self) -> &ErrorDetail {
        self.detail.get_or_init(|| self.build())
    }

    #[cold]
    fn build(&self) -> ErrorDetail {
        let mut msg = String::new();
        // Writing to a String fails only if a Display impl does; these do not.
        let _ = self.write_msg(&mut msg);
        ErrorDetail::Data {
            msg,
            offset: self.offset,
        }
    }
}

/// A fixed buffer that refuses what does not fit.
struct Text<'a> {
    buf: &'a mut [u8; MISMATCH_TEXT],
    len: usize,
}

impl fmt::Write for Text<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// What went wrong in serde (de)serialisation: the variants an [`Error`] holds.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorDetail {
    /// The bytes are not valid PackStream (with offset and kind).
    #[error(transparent)]
    Decode(crate::Error),
    /// The value cannot be encoded.
    #[error(transparent)]
    Encode(EncodeError),
    /// The PackStream is valid but does not fit the Rust type.
    #[error("{msg} at byte {offset}")]
    Data {
        /// What did not fit.
        msg: String,
        /// Offset of the value that did not fit.
        offset: usize,
    },
}

impl ErrorDetail {
    /// The byte offset where decoding failed, as [`Error::offset`].
    pub fn offset(&self) -> Option<usize> {
        match self {
            ErrorDetail::Decode(e) => Some(e.offset()),
            ErrorDetail::Data { offset, .. } => Some(*offset),
            ErrorDetail::Encode(_) => None,
        }
    }
}

impl Error {
    /// The byte offset where decoding failed, counted from the first byte of the slice
    /// given to [`from_slice`]; `None` for encoding errors.
    pub fn offset(&self) -> Option<usize> {
        match &*self.0 {
            Inner::Detail(d) => d.offset(),
            Inner::Mismatch(m) => Some(m.offset),
        }
    }

    /// What went wrong.
    #[must_use]
    pub fn detail(&self) -> &ErrorDetail {
        match &*self.0 {
            Inner::Detail(d) => d,
            Inner::Mismatch(m) => m.detail(),
        }
    }

    /// What went wrong, taken out of the error.
    #[must_use]
    pub fn into_detail(self) -> ErrorDetail {
        match *self.0 {
            Inner::Detail(d) => d,
            Inner::Mismatch(mut m) => m.detail.take().unwrap_or_else(|| m.build()),
        }
    }

    /// The PackStream decode error, if that is what this is.
    #[must_use]
    pub fn decode_error(&self) -> Option<crate::Error> {
        match &*self.0 {
            Inner::Detail(ErrorDetail::Decode(e)) => Some(*e),
            _ => None,
        }
    }

    /// The kind name, as [`Error::kind`] (without building a mismatch's detail).
    pub(crate) fn kind_str(&self) -> &'static str {
        match &*self.0 {
            Inner::Detail(d) => d.kind(),
            Inner::Mismatch(_) => "type_mismatch",
        }
    }

    /// A mismatch error of serde's `invalid_type` or `invalid_value` (`said`).
    #[cold]
    #[inline(never)]
    fn mismatch(said: Said, unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        let mut inner = Mismatch::boxed(said);
        if let Inner::Mismatch(m) = &mut *inner {
            if m.fill(unexp, exp).is_ok() {
                return Error(inner);
            }
        }
        // Too long to keep: one allocation wasted, on a rare path.
        drop(inner);
        de::Error::custom(format_args!(
            "invalid {}: {unexp}, expected {exp}",
            said.noun()
        ))
    }

    /// serde's `missing_field` or `duplicate_field` error (`said`, which holds the field).
    #[cold]
    #[inline(never)]
    fn field(said: Said) -> Self {
        Error(Mismatch::boxed(said))
    }
}

impl PartialEq for Error {
    fn eq(&self, other: &Self) -> bool {
        self.detail() == other.detail()
    }
}

impl Eq for Error {}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.detail(), f)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            Inner::Detail(d) => fmt::Display::fmt(d, f),
            Inner::Mismatch(m) => {
                m.write_msg(f)?;
                write!(f, " at byte {}", m.offset)
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &*self.0 {
            Inner::Detail(d) => std::error::Error::source(d),
            Inner::Mismatch(_) => None,
        }
    }
}

impl From<ErrorDetail> for Error {
    #[cold]
    #[inline(never)]
    fn from(detail: ErrorDetail) -> Self {
        Error(Box::new(Inner::Detail(detail)))
    }
}

impl From<crate::Error> for Error {
    #[cold]
    #[inline(never)]
    fn from(e: crate::Error) -> Self {
        ErrorDetail::Decode(e).into()
    }
}

impl From<EncodeError> for Error {
    #[cold]
    #[inline(never)]
    fn from(e: EncodeError) -> Self {
        ErrorDetail::Encode(e).into()
    }
}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        EncodeError::Message(msg.to_string()).into()
    }
}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        ErrorDetail::Data {
            msg: msg.to_string(),
            offset: 0,
        }
        .into()
    }

    /// As serde's default method, whose message this error displays, but the message
    /// is written only when it is displayed (see `Mismatch`). Cold, as serde's: the
    /// typed paths branch around it.
    #[cold]
    fn invalid_type(unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        Error::mismatch(Said::InvalidType, unexp, exp)
    }

    /// As serde's default method, whose message this error displays, but the message
    /// is written only when it is displayed (see `Mismatch`). Cold, as serde's: the
    /// typed paths branch around it.
    #[cold]
    fn invalid_value(unexp: de::Unexpected<'_>, exp: &dyn de::Expected) -> Self {
        Error::mismatch(Said::InvalidValue, unexp, exp)
    }

    /// As serde's default method, whose message this error displays, but the message
    /// is written only when it is displayed (see `Mismatch`): what a rejected variant
    /// of an untagged enum of structs usually costs.
    #[cold]
    fn missing_field(field: &'static str) -> Self {
        Error::field(Said::MissingField(field))
    }

    /// As serde's default method, whose message this error displays, but the message
    /// is written only when it is displayed (see `Mismatch`).
    #[cold]
    fn duplicate_field(field: &'static str) -> Self {
        Error::field(Said::DuplicateField(field))
    }
}

/// Serialises `value` to PackStream with default options.
///
/// # Errors
/// When the value has no PackStream form (non-string map keys, `u64` above `i64::MAX`,
/// over-long collections).
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, Error> {
    to_vec_with(value, EncodeOptions::default())
}

/// Serialises `value` to PackStream with the given options.
///
/// # Errors
/// As [`to_vec`].
pub fn to_vec_with<T: Serialize + ?Sized>(
    value: &T,
    opts: EncodeOptions,
) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    value.serialize(Serializer {
        out: &mut out,
        opts,
    })?;
    Ok(out)
}

/// Deserialises exactly one value from `bytes` with default options, borrowing strings.
///
/// # Errors
/// Decode errors (with offsets), type mismatches, and trailing bytes.
pub fn from_slice<'de, T: de::Deserialize<'de>>(bytes: &'de [u8]) -> Result<T, Error> {
    from_slice_with(bytes, &DecodeOptions::default())
}

/// Deserialises exactly one value from `bytes` with the given options.
///
/// # Errors
/// As [`from_slice`].
pub fn from_slice_with<'de, T: de::Deserialize<'de>>(
    bytes: &'de [u8],
    opts: &DecodeOptions,
) -> Result<T, Error> {
    Deserializer::with_options(bytes, opts).exact()
}

/// The `len` bytes at `at` of `buf` if they are there and valid UTF-8: the strings
/// `ascii_ending_at` does not take. Out of line, so that the typed string read stays
/// small.
///
/// An ASCII string of up to 16 bytes that ends before the 16th byte of the buffer is
/// read as the 16-byte word that starts with it (`short_ascii`), if the buffer has one.
///
/// ASCII strings of 17 to 32 bytes (the longer names and labels) are checked as two
/// 16-byte words, the first and the last 16 bytes, which together cover every byte:
/// `from_utf8` spent about 100 instructions on each of those in the 20-column rows.
/// Regression test: `typed_strings_of_every_length_read_as_from_utf8_does`.
#[inline(never)]
#[allow(unsafe_code)]
fn utf8(buf: &[u8], at: usize, len: usize) -> Option<&str> {
    if let Some(s) = short_ascii(buf, at, len) {
        return Some(s);
    }
    let bytes = buf.get(at..at.checked_add(len)?)?;
    if let (true, Some(head), Some(tail)) = (
        len <= 32,
        bytes.first_chunk::<16>(),
        bytes.last_chunk::<16>(),
    ) {
        if (u128::from_le_bytes(*head) | u128::from_le_bytes(*tail)) & HIGH_BITS == 0 {
            // SAFETY: `head` is the first 16 bytes of `bytes` and `tail` the last 16, and
            // `bytes` has 16 to 32 of them, so every byte is in one of the two words;
            // no byte has its top bit set, so all are ASCII, and ASCII is valid UTF-8.
            return Some(unsafe { core::str::from_utf8_unchecked(bytes) });
        }
    }
    core::str::from_utf8(bytes).ok()
}

/// The top bit of every byte of a 16-byte word.
const HIGH_BITS: u128 = u128::MAX / 0xFF * 0x80;

/// Trailing bytes at `at`.
#[cold]
#[inline(never)]
fn trailing(at: usize) -> Error {
    crate::Error::new(ErrorKind::TrailingBytes, at, "the end of the input").into()
}

/// serde recurses, so its depth is capped at this even when the limits allow more.
pub const SERDE_MAX_DEPTH: u32 = 256;

// ---------------------------------------------------------------------------------------
// Serializer
// ---------------------------------------------------------------------------------------

struct Serializer<'o> {
    out: &'o mut Vec<u8>,
    opts: EncodeOptions,
}

impl<'o> Serializer<'o> {
    fn enc(&mut self) -> Encoder<&mut Vec<u8>> {
        Encoder::with_options(&mut *self.out, self.opts)
    }
}

/// A list, map, struct or variant being written. When the length was not given up front
/// the items go to `buffer` and are counted, and the header is written at the end.
#[doc(hidden)]
pub struct Compound<'o> {
    out: &'o mut Vec<u8>,
    opts: EncodeOptions,
    buffer: Option<Vec<u8>>,
    count: usize,
    is_map: bool,
}

impl<'o> Compound<'o> {
    fn start(ser: Serializer<'o>, len: Option<usize>, is_map: bool) -> Result<Self, Error> {
        let Serializer { out, opts } = ser;
        let buffer = match len {
            Some(n) => {
                let mut enc = Encoder::with_options(&mut *out, opts);
                if is_map {
                    enc.write_map_header(n)?;
                } else {
                    enc.write_list_header(n)?;
                }
                None
            }
            None => Some(Vec::new()),
        };
        Ok(Compound {
            out,
            opts,
            buffer,
            count: 0,
            is_map,
        })
    }

    fn target(&mut self) -> Serializer<'_> {
        let out = match &mut self.buffer {
            Some(b) => b,
            None => &mut *self.out,
        };
        Serializer {
            out,
            opts: self.opts,
        }
    }

    fn item<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.count += 1;
        v.serialize(self.target())
    }

    fn key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        self.count += 1;
        k.serialize(KeySerializer(self.target()))
    }

    fn finish(self) -> Result<(), Error> {
        if let Some(buf) = self.buffer {
            let mut enc = Encoder::with_options(&mut *self.out, self.opts);
            if self.is_map {
                enc.write_map_header(self.count)?;
            } else {
                enc.write_list_header(self.count)?;
            }
            enc.write_raw(&buf);
        }
        Ok(())
    }
}

impl ser::SerializeSeq for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.item(v)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTuple for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.item(v)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.item(v)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.item(v)
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        self.key(k)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        v.serialize(self.target())
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeStruct for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.key(key)?;
        v.serialize(self.target())
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl ser::SerializeStructVariant for Compound<'_> {
    type Ok = ();
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.key(key)?;
        v.serialize(self.target())
    }
    fn end(self) -> Result<(), Error> {
        self.finish()
    }
}

impl<'o> ser::Serializer for Serializer<'o> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'o>;
    type SerializeTuple = Compound<'o>;
    type SerializeTupleStruct = Compound<'o>;
    type SerializeTupleVariant = Compound<'o>;
    type SerializeMap = Compound<'o>;
    type SerializeStruct = Compound<'o>;
    type SerializeStructVariant = Compound<'o>;

    fn is_human_readable(&self) -> bool {
        false
    }
    fn serialize_bool(mut self, v: bool) -> Result<(), Error> {
        self.enc().write_bool(v);
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(mut self, v: i64) -> Result<(), Error> {
        self.enc().write_int(v);
        Ok(())
    }
    fn serialize_u8(self, v: u8) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<(), Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        let v = i64::try_from(v).map_err(|_| {
            <Error as ser::Error>::custom(format!("{v} does not fit a PackStream integer"))
        })?;
        self.serialize_i64(v)
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(mut self, v: f64) -> Result<(), Error> {
        self.enc().write_float(v);
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(mut self, v: &str) -> Result<(), Error> {
        Ok(self.enc().write_str(v)?)
    }
    fn serialize_bytes(mut self, v: &[u8]) -> Result<(), Error> {
        Ok(self.enc().write_bytes(v)?)
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_unit(mut self) -> Result<(), Error> {
        self.enc().write_null();
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        let mut enc = self.enc();
        enc.write_map_header(1)?;
        enc.write_str(variant)?;
        v.serialize(self)
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'o>, Error> {
        Compound::start(self, len, false)
    }
    fn serialize_tuple(self, len: usize) -> Result<Compound<'o>, Error> {
        Compound::start(self, Some(len), false)
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'o>, Error> {
        Compound::start(self, Some(len), false)
    }
    fn serialize_tuple_variant(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'o>, Error> {
        let mut enc = self.enc();
        enc.write_map_header(1)?;
        enc.write_str(variant)?;
        Compound::start(self, Some(len), false)
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'o>, Error> {
        Compound::start(self, len, true)
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Compound<'o>, Error> {
        Compound::start(self, Some(len), true)
    }
    fn serialize_struct_variant(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'o>, Error> {
        let mut enc = self.enc();
        enc.write_map_header(1)?;
        enc.write_str(variant)?;
        Compound::start(self, Some(len), true)
    }
}

/// Serialises map keys: strings (and chars, and unit variants) only.
struct KeySerializer<'o>(Serializer<'o>);

fn key_error() -> Error {
    ser::Error::custom("PackStream map keys must be strings")
}

impl ser::Serializer for KeySerializer<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.0.serialize_str(v)
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.0.serialize_char(v)
    }
    fn serialize_unit_variant(
        self,
        _n: &'static str,
        _i: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.0.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _n: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }
    fn serialize_bool(self, _: bool) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_i8(self, _: i8) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_i16(self, _: i16) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_i32(self, _: i32) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_i64(self, _: i64) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_u8(self, _: u8) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_u16(self, _: u16) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_u32(self, _: u32) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_u64(self, _: u64) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_f32(self, _: f32) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_f64(self, _: f64) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Error> {
        Err(key_error())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_error())
    }
    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_error())
    }
    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_error())
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_error())
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_error())
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_error())
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_error())
    }
}

// ---------------------------------------------------------------------------------------
// Deserializer
// ---------------------------------------------------------------------------------------

/// A PackStream deserializer that can be kept and reused: [`from_slice`] builds one for
/// each call, and this is the same thing held by the caller, for reading several values
/// in a row from one buffer ([`Deserializer::next_value`]) or a run of messages that
/// each hold one value, such as the RECORDs of a Bolt result
/// ([`Deserializer::decode_exact`]), with the options set up once.
///
/// The limits of the options apply to each value on its own, as for [`from_slice_with`];
/// errors carry byte offsets counted from the start of the slice the value was read
/// from. `&mut Deserializer` is a [`serde::Deserializer`]; prefer
/// [`Deserializer::next_value`] to calling `T::deserialize(&mut de)` directly, since
/// it also gives errors that serde raises about the shape of the data (a missing field,
/// a wrong length) the offset of the last token read, as [`from_slice`] does.
///
/// ```
/// use packstream::serde::Deserializer;
/// use packstream::DecodeOptions;
///
/// // Three messages, each one RECORD structure (tag 0x71) of two fields.
/// let messages: [&[u8]; 3] = [
///     b"\xB1\x71\x92\x01\x81a",
///     b"\xB1\x71\x92\x02\x81b",
///     b"\xB1\x71\x92\x03\x81c",
/// ];
/// let mut de = Deserializer::with_options(&[], &DecodeOptions::default());
/// let mut rows = Vec::new();
/// for m in messages {
///     let (tag, (id, name)): (u8, (i64, &str)) = de.decode_exact(m)?;
///     assert_eq!(tag, 0x71);
///     rows.push((id, name));
/// }
/// assert_eq!(rows, [(1, "a"), (2, "b"), (3, "c")]);
///
/// // Values one after another in one buffer.
/// let mut de = Deserializer::new(b"\x01\x82hi\xC0");
/// assert_eq!(de.next_value::<i64>()?, 1);
/// assert_eq!(de.next_value::<&str>()?, "hi");
/// assert_eq!(de.next_value::<Option<bool>>()?, None);
/// de.end()?; // nothing is left
/// # Ok::<(), packstream::serde::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Deserializer<'de> {
    reader: Reader<'de>,
    /// How many more containers may be opened inside the open ones.
    depth_left: u32,
    max_depth: u32,
    /// Start offset of the last token read, for data errors.
    last_start: usize,
    /// Items not yet read of every open container (a map's entry counts as two, key
    /// and value, and both are taken when its key is read). Each container keeps the
    /// count it found on opening as its `base` (in [`Items`] and [`Entries`]): its own
    /// items not yet read are `promised - base`, and `base` is what the enclosing
    /// containers are still owed, the input bytes that size hints leave aside (as the
    /// tree builders do), so that nested headers that each claim the rest of the input
    /// cannot multiply what is pre-allocated. One count for all, so opening and closing
    /// a container is one addition and one store.
    promised: usize,
}

impl<'de> Deserializer<'de> {
    /// A deserializer over `bytes` with default options.
    #[must_use]
    pub fn new(bytes: &'de [u8]) -> Self {
        Self::with_options(bytes, &DecodeOptions::default())
    }

    /// A deserializer over `bytes` with the given options.
    #[must_use]
    pub fn with_options(bytes: &'de [u8], opts: &DecodeOptions) -> Self {
        Deserializer {
            reader: Reader::new(bytes, *opts),
            depth_left: opts.limits.max_depth.min(SERDE_MAX_DEPTH),
            max_depth: opts.limits.max_depth.min(SERDE_MAX_DEPTH),
            last_start: 0,
            promised: 0,
        }
    }

    /// The offset of the next byte to read.
    #[must_use]
    pub fn position(&self) -> usize {
        self.reader.pos
    }

    /// Deserialises the next value; bytes may follow it (see [`Deserializer::end`]).
    ///
    /// # Errors
    /// As [`from_slice`], except trailing bytes. After an error the position is
    /// unspecified.
    pub fn next_value<T: de::Deserialize<'de>>(&mut self) -> Result<T, Error> {
        // The limits count per value.
        let (buf, pos) = (self.reader.buf, self.reader.pos);
        self.reader = Reader::new(buf, self.reader.opts);
        self.reader.pos = pos;
        self.restart();
        self.value()
    }

    /// Checks that every byte has been read.
    ///
    /// # Errors
    /// [`ErrorKind::TrailingBytes`] at the first byte not read.
    pub fn end(&self) -> Result<(), Error> {
        if self.reader.pos < self.reader.buf.len() {
            return Err(trailing(self.reader.pos));
        }
        Ok(())
    }

    /// Deserialises exactly one value from `bytes` with this deserializer's options, as
    /// [`from_slice_with`] does, and leaves the deserializer reading `bytes`.
    ///
    /// # Errors
    /// As [`from_slice`].
    pub fn decode_exact<T: de::Deserialize<'de>>(&mut self, bytes: &'de [u8]) -> Result<T, Error> {
        self.reader = Reader::new(bytes, self.reader.opts);
        self.restart();
        self.exact()
    }

    /// Nothing open: the state for a new value (the counts stay balanced after errors,
    /// and are reset here even so, so that nothing carries over from a value whose
    /// `Deserialize` impl panicked).
    #[inline(always)]
    fn restart(&mut self) {
        self.depth_left = self.max_depth;
        self.promised = 0;
    }

    /// One value from the current position, with the offset of data errors that serde
    /// raised (offset 0) set to the value they concern.
    ///
    /// The result is passed on as it is, never taken apart and rebuilt: with a large
    /// `T`, every `Ok(v)` rebuilt is a copy of `v` (a `memcpy` call for the 20-column
    /// rows of the benchmarks). Nor is a reference to it taken: that kept it in memory
    /// where it could have stayed in registers. `Self::exact` and `Self::seq` do the
    /// same.
    #[inline(always)]
    fn value<T: de::Deserialize<'de>>(&mut self) -> Result<T, Error> {
        let result = T::deserialize(&mut *self);
        if let Err(e) = result {
            return Err(self.placed(e));
        }
        result
    }

    /// One value that must end the input. The position is tested first and the result
    /// only on the rare path (after an error the position is anywhere): testing the
    /// result first made the compiler copy the value out of the way and back.
    #[inline(always)]
    fn exact<T: de::Deserialize<'de>>(&mut self) -> Result<T, Error> {
        let result = self.value();
        if self.reader.pos < self.reader.buf.len() {
            return Err(self.trailing_after(result));
        }
        result
    }

    /// The error of [`Self::exact`] when bytes are left: the value's own error if it
    /// failed, else trailing bytes.
    #[cold]
    #[inline(never)]
    fn trailing_after<T>(&self, result: Result<T, Error>) -> Error {
        match result {
            Ok(_) => trailing(self.reader.pos),
            Err(e) => e,
        }
    }

    /// A data error raised by serde without an offset gets the start of the last token.
    #[cold]
    #[inline(never)]
    fn placed(&self, mut e: Error) -> Error {
        match &mut *e.0 {
            Inner::Detail(ErrorDetail::Data {
                offset: offset @ 0, ..
            }) => *offset = self.last_start,
            Inner::Mismatch(m) if m.offset == 0 => {
                m.offset = self.last_start;
                // Built with the old offset, if it was.
                m.detail = std::sync::OnceLock::new();
            }
            _ => {}
        }
        e
    }

    #[inline(always)]
    fn next(&mut self) -> Result<Token<'de>, Error> {
        self.last_start = self.reader.pos();
        Ok(self.reader.token()?)
    }

    /// The next marker byte, if any, and its offset (nothing is consumed).
    #[inline(always)]
    fn marker(&self) -> (usize, Option<u8>) {
        let at = self.reader.pos;
        (at, self.reader.buf.get(at).copied())
    }

    /// Consumes the marker byte at `at` (just returned by [`Self::marker`]) of a value
    /// that is only that byte, as `Reader::token` would.
    #[inline(always)]
    fn take_marker(&mut self, at: usize) {
        self.last_start = at;
        self.reader.pos = at + 1;
    }

    /// A list, map or structure for a visitor that expects one: a list (up to LIST_16)
    /// or tiny structure header that passes its checks goes to the one inlined
    /// [`Self::seq`] (a single call site, so that the visitor's `visit_seq` can be
    /// inlined into it); everything else, maps and errors included, is read as a token.
    ///
    /// The typed fast paths (this one's header read, and [`Self::int`], [`Self::float`]
    /// and [`Self::str`] under the `deserialize_*` methods) are written alike: they take
    /// only what they can read completely, consume nothing otherwise, and leave every
    /// other case to the generic token ([`Self::any`]; here [`Self::header`]), which
    /// reads the same bytes again. So
    /// they have no error paths of their own (errors, offsets and limits are the
    /// token's by construction), and they return an `Option` in registers: small
    /// enough for the compiler to inline them into the visitors that call them.
    ///
    /// Lists and structures that the fast header read does not take (longer headers,
    /// and the errors) are read by [`Self::header`] and visited through the same
    /// `seq` call, and [`Self::not_a_seq`] takes everything else without one: so the
    /// visitors of typed containers never meet `visit_container`'s `seq`, and their
    /// `visit_seq`, and the `deserialize` of each of their items, keeps a single call
    /// site (a second one, even unreached, kept the item's `deserialize` out of line).
    #[inline(always)]
    fn container<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        let at = self.reader.pos;
        let (items, tag) = match self.reader.seq_header() {
            Some(header) => {
                self.last_start = at;
                header
            }
            None => match self.header()? {
                Ok(header) => header,
                Err(tok) => return self.not_a_seq(tok, visitor),
            },
        };
        self.seq::<V, true>(items, tag, visitor)
    }

    /// The next token as a list or structure header (items, the tag counted, and 0 or
    /// `TAG` plus the tag, as `Reader::seq_header` gives them), or the token if it is
    /// neither.
    #[inline(never)]
    fn header(&mut self) -> Result<Result<(usize, usize), Token<'de>>, Error> {
        Ok(match self.next()? {
            Token::List(n) => Ok((n as usize, 0)),
            Token::Struct { tag, len } => Ok((len as usize + 1, TAG | usize::from(tag))),
            tok => Err(tok),
        })
    }

    /// A token that is not a list or structure header, for a visitor that expected a
    /// container (see [`Self::container`]).
    #[inline(never)]
    fn not_a_seq<V: Visitor<'de>>(
        &mut self,
        tok: Token<'de>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        match tok {
            Token::Map(n) => self.map(n, visitor),
            tok => self.visit_scalar(tok, visitor),
        }
    }

    /// A tiny integer or an INT_8 to INT_64 with all its bytes (see [`Self::container`]).
    ///
    /// With eight bytes after the marker (every integer but those near the end of the
    /// input), the four sizes are one read: the eight bytes as a big-endian word,
    /// shifted right (keeping the sign) to the size's bytes, instead of a jump to one
    /// read per size (about 10 instructions less on an INT_32).
    #[inline(always)]
    fn int(&mut self) -> Option<i64> {
        let at = self.reader.pos;
        let marker = *self.reader.buf.get(at)?;
        let (i, len) = if marker as i8 >= -16 {
            (i64::from(marker as i8), 1)
        } else {
            // 0 to 3 for INT_8 to INT_64.
            let size = marker.wrapping_sub(m::INT_8);
            if size > 3 {
                return None;
            }
            let rest = self.reader.buf.get(at + 1..)?;
            match rest.first_chunk::<8>() {
                Some(word) => {
                    let bytes = 1usize << size;
                    let i = i64::from_be_bytes(*word) >> (64 - 8 * bytes);
                    (i, 1 + bytes)
                }
                None => match marker {
                    m::INT_8 => (i64::from(*rest.first()? as i8), 2),
                    m::INT_16 => (i64::from(i16::from_be_bytes(*rest.first_chunk()?)), 3),
                    m::INT_32 => (i64::from(i32::from_be_bytes(*rest.first_chunk()?)), 5),
                    _ => (i64::from_be_bytes(*rest.first_chunk()?), 9),
                },
            }
        };
        self.last_start = at;
        self.reader.pos = at + len;
        Some(i)
    }

    /// A FLOAT_64 with all its bytes (see [`Self::container`]).
    #[inline(always)]
    fn float(&mut self) -> Option<f64> {
        let at = self.reader.pos;
        let [m::FLOAT_64, bytes @ ..] = self.reader.buf.get(at..at + 9)?.first_chunk::<9>()? else {
            return None;
        };
        self.last_start = at;
        self.reader.pos = at + 9;
        Some(f64::from_be_bytes(*bytes))
    }

    /// A tiny string or a STRING_8, complete and within the length limit, that is
    /// ASCII of up to 16 bytes (`short_ascii`) or valid UTF-8 (see [`Self::container`]).
    #[inline(always)]
    fn str(&mut self) -> Option<&'de str> {
        let buf = self.reader.buf;
        let at = self.reader.pos;
        let (len, payload_at) = match *buf.get(at)? {
            b @ 0x80..=0x8F => (usize::from(b & 0x0F), at + 1),
            m::STRING_8 => (usize::from(*buf.get(at + 1)?), at + 2),
            _ => return None,
        };
        if len > self.reader.opts.limits.max_string_len as usize {
            return None;
        }
        let s = match ascii_ending_at(buf, payload_at + len, len) {
            Some(s) => s,
            None => utf8(buf, payload_at, len)?,
        };
        self.last_start = at;
        self.reader.pos = payload_at + len;
        Some(s)
    }

    /// Any value, for the markers the typed fast paths leave to the generic token:
    /// out of line, so that those fast paths stay small enough to be inlined into the
    /// visitor that called them.
    #[inline(never)]
    fn any<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        let tok = self.next()?;
        self.visit_token(tok, visitor)
    }

    /// A float that [`Self::float`] did not take: an integer is widened; out of line
    /// (see [`Self::any`]).
    #[inline(never)]
    fn float_slow<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value, Error> {
        match self.next()? {
            Token::Float(f) => visitor.visit_f64(f),
            Token::Int(i) => visitor.visit_f64(i as f64),
            tok => self.visit_token(tok, visitor),
        }
    }

    /// The `items` of a list (`tag` 0), or the tag (`tag` is `TAG` plus it) and the
    /// `items - 1` fields of a structure, whose header was just read; checks that the
    /// visitor took them all.
    ///
    /// `FAST` is true only on the typed fast path ([`Self::container`]), false on the
    /// generic token's ([`Self::visit_container`]). The two give the visitor different
    /// `SeqAccess` types, so that each visitor's `visit_seq` for the fast path has one
    /// call site and the compiler inlines it into the `deserialize` that called it (with
    /// one type for both, `visit_seq` stayed an out-of-line call per container: about
    /// 33 of 456 instructions per `records_10000x3` RECORD).
    #[inline(always)]
    fn seq<V: Visitor<'de>, const FAST: bool>(
        &mut self,
        items: usize,
        tag: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.enter()?;
        // The count lives in the deserializer (see `promised`), so that `Items` can be
        // handed over by value: serde's derived visitors then call its `next_element`
        // directly rather than through the `&mut A` forwarding impl, which was not
        // inlined.
        let base = self.promised;
        self.promised = base + items;
        let result = visitor.visit_seq(Items::<FAST> {
            de: self,
            base,
            tag,
        });
        let left = self.promised - base;
        self.leave(base);
        if left > 0 {
            return Err(self.left_over(left, result));
        }
        result
    }

    /// A container whose items the visitor did not all take: its own error if it
    /// failed, else the items-left error. Out of line; it takes the result by value
    /// and gives back only the error, so that the common case is one test of `left`
    /// and the result, never referred to, can stay in registers.
    #[cold]
    #[inline(never)]
    fn left_over<T>(&self, left: usize, result: Result<T, Error>) -> Error {
        match result {
            Ok(_) => self.items_left(left),
            Err(e) => e,
        }
    }

    /// The error for a container whose items the target type did not all take.
    #[cold]
    #[inline(never)]
    fn items_left(&self, left: usize) -> Error {
        self.data_error(format!("{left} more items than the target type takes"))
    }

    /// Whether the next value is Null; if so, it is consumed. (The marker byte is looked
    /// at directly: no token is read ahead, so nothing is ever held back.)
    #[inline(always)]
    fn null(&mut self) -> bool {
        let at = self.reader.pos;
        if self.reader.buf.get(at) == Some(&m::NULL) {
            self.take_marker(at);
            return true;
        }
        false
    }

    /// Passes a scalar token to the visitor, or visits a container's items.
    #[inline(always)]
    fn visit_token<V: Visitor<'de>>(
        &mut self,
        tok: Token<'de>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        match tok {
            Token::List(_) | Token::Struct { .. } | Token::Map(_) => {
                self.visit_container(tok, visitor)
            }
            tok => self.visit_scalar(tok, visitor),
        }
    }

    /// Passes a scalar token to the visitor (a container header is an error here:
    /// callers send those elsewhere).
    #[inline(always)]
    fn visit_scalar<V: Visitor<'de>>(
        &mut self,
        tok: Token<'de>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        match tok {
            Token::Null => visitor.visit_unit(),
            Token::Bool(b) => visitor.visit_bool(b),
            Token::Int(i) => visitor.visit_i64(i),
            Token::Float(f) => visitor.visit_f64(f),
            Token::String(s) => visitor.visit_borrowed_str(s),
            Token::Bytes(b) => visitor.visit_borrowed_bytes(b),
            // The 16 bytes just read, as they are in the input: borrowed, so that
            // `&[u8]` targets take them and serde's buffering (untagged enums) keeps a
            // borrow instead of a copy (regression test
            // `uuids_were_copied_where_strings_and_bytes_are_borrowed`).
            Token::Uuid(u) => match self.reader.pos.checked_sub(16) {
                Some(at) => match self.reader.buf.get(at..self.reader.pos) {
                    Some(raw) => visitor.visit_borrowed_bytes(raw),
                    None => visitor.visit_bytes(&u),
                },
                None => visitor.visit_bytes(&u),
            },
            Token::List(_) | Token::Struct { .. } | Token::Map(_) => {
                Err(self.data_error("expected a scalar"))
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn data_error(&self, msg: impl fmt::Display) -> Error {
        ErrorDetail::Data {
            msg: msg.to_string(),
            offset: self.last_start,
        }
        .into()
    }

    /// Opens a container, if the depth limit allows one more.
    #[inline(always)]
    fn enter(&mut self) -> Result<(), Error> {
        if self.depth_left == 0 {
            return Err(self.too_deep());
        }
        self.depth_left -= 1;
        Ok(())
    }

    /// Closes the container that [`Self::enter`] opened, which found `base` items
    /// promised when it opened.
    #[inline(always)]
    fn leave(&mut self, base: usize) {
        self.promised = base;
        self.depth_left += 1;
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&self) -> Error {
        crate::Error::new(
            ErrorKind::LimitExceeded,
            self.last_start,
            "less deeply nested containers",
        )
        .into()
    }

    /// A map key, which must be a string.
    fn string_key(&mut self) -> Result<&'de str, Error> {
        let start = self.reader.pos();
        match self.next()? {
            Token::String(s) => Ok(s),
            _ => Err(crate::Error::new(ErrorKind::NonStringKey, start, "a string map key").into()),
        }
    }

    /// Visits a container token; checks that the visitor consumed every item.
    fn visit_container<V: Visitor<'de>>(
        &mut self,
        tok: Token<'de>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        match tok {
            Token::List(n) => self.seq::<V, false>(n as usize, 0, visitor),
            Token::Struct { tag, len } => {
                self.seq::<V, false>(len as usize + 1, TAG | usize::from(tag), visitor)
            }
            Token::Map(n) => self.map(n, visitor),
            _ => Err(self.data_error("expected a container")),
        }
    }

    /// The entries of a map of `n` whose header was just read; checks that the visitor
    /// took them all. Out of line: the typed fast paths expect lists and structures.
    #[inline(never)]
    fn map<V: Visitor<'de>>(&mut self, n: u32, visitor: V) -> Result<V::Value, Error> {
        self.enter()?;
        let base = self.promised;
        self.promised = base + 2 * n as usize;
        let result = visitor.visit_map(&mut Entries { de: self, base });
        // Entries whose key was not read.
        let left = (self.promised - base) / 2;
        self.leave(base);
        if left > 0 {
            return Err(self.left_over(left, result));
        }
        result
    }

    /// Skips one complete value, iteratively, checking that map keys are strings and
    /// that containers nest no deeper than the limit allows, as for a value that is
    /// read. (It used to count tokens only, so
    /// `IgnoredAny` and unknown struct fields accepted `{1: 2}`; regression test
    /// `map_keys_that_are_not_strings_are_refused`.)
    fn skip(&mut self) -> Result<(), Error> {
        // Items still to come in each open container, and whether it is a map (whose
        // keys stand where the count is even).
        let mut open: Vec<(u64, bool)> = Vec::new();
        loop {
            let start = self.reader.pos();
            let key = matches!(open.last(), Some(&(left, true)) if left % 2 == 0);
            let tok = self.next()?;
            if key && !matches!(tok, Token::String(_)) {
                let e = crate::Error::new(ErrorKind::NonStringKey, start, "a string map key");
                return Err(e.into());
            }
            if let Some(top) = open.last_mut() {
                top.0 -= 1;
            }
            // Items the token opens, whether it is a map, whether it is a container.
            let (len, is_map, container) = match tok {
                Token::List(n) | Token::Struct { len: n, .. } => (u64::from(n), false, true),
                Token::Map(n) => (2 * u64::from(n), true, true),
                _ => (0, false, false),
            };
            // The containers open in this value, this one included, as `enter` counts
            // them. (Skipping needs no stack, but the limit is the caller's, and the
            // other paths apply it; regression test
            // `ignored_values_were_not_held_to_the_nesting_limit`.)
            if container && open.len() >= self.depth_left as usize {
                return Err(self.too_deep());
            }
            if len > 0 {
                open.push((len, is_map));
            }
            while open.last().is_some_and(|top| top.0 == 0) {
                open.pop();
            }
            if open.is_empty() {
                return Ok(());
            }
        }
    }
}

impl<'de> de::Deserializer<'de> for &mut Deserializer<'de> {
    type Error = Error;

    fn is_human_readable(&self) -> bool {
        false
    }

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let tok = self.next()?;
        self.visit_token(tok, visitor)
    }

    #[inline(always)]
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.int() {
            Some(i) => visitor.visit_i64(i),
            None => self.any(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    #[inline(always)]
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    #[inline(always)]
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    #[inline(always)]
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    #[inline(always)]
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    #[inline(always)]
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    #[inline(always)]
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_i64(visitor)
    }

    #[inline(always)]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.marker() {
            (at, Some(b @ (m::FALSE | m::TRUE))) => {
                self.take_marker(at);
                visitor.visit_bool(b == m::TRUE)
            }
            _ => self.any(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.str() {
            Some(s) => visitor.visit_borrowed_str(s),
            None => self.any(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    #[inline(always)]
    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.container(visitor)
    }

    #[inline(always)]
    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.container(visitor)
    }

    #[inline(always)]
    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.container(visitor)
    }

    #[inline(always)]
    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.container(visitor)
    }

    #[inline(always)]
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.container(visitor)
    }

    #[inline(always)]
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.float() {
            Some(f) => visitor.visit_f64(f),
            None => self.float_slow(visitor),
        }
    }

    #[inline(always)]
    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_f64(visitor)
    }

    #[inline(always)]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        if self.null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    #[inline(always)]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.next()? {
            Token::String(s) => visitor.visit_enum(s.into_deserializer()),
            Token::Map(1) => {
                self.enter()?;
                let base = self.promised;
                let result = visitor.visit_enum(VariantAccess { de: self });
                self.leave(base);
                result
            }
            _ => Err(self.data_error("expected an enum: a string or a map of one entry")),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.skip()?;
        visitor.visit_unit()
    }

    forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf unit unit_struct identifier
    }
}

/// Items of a list, or the tag and fields of a structure. How many are left (the tag
/// included while it has not been read) is `Deserializer::left`. `FAST`: see
/// [`Deserializer::seq`]; it changes the type, not what it does.
struct Items<'a, 'de, const FAST: bool> {
    de: &'a mut Deserializer<'de>,
    /// `Deserializer::promised` when the container was opened.
    base: usize,
    /// The structure's tag plus `TAG` until it is read, else 0.
    tag: usize,
}

impl<'de, const FAST: bool> de::SeqAccess<'de> for Items<'_, 'de, FAST> {
    type Error = Error;

    #[inline(always)]
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.tag != 0 {
            // A structure's tag, counted in `promised` (so at least one item is left):
            // nothing is read, and the count written here is written again by the next
            // item before anything reads it.
            let tag = self.tag as u8;
            self.tag = 0;
            self.de.promised -= 1;
            return seed.deserialize(tag.into_deserializer()).map(Some);
        }
        if self.de.promised == self.base {
            return Ok(None);
        }
        self.de.promised -= 1;
        seed.deserialize(&mut *self.de).map(Some)
    }

    #[inline(always)]
    fn next_element<T: de::Deserialize<'de>>(&mut self) -> Result<Option<T>, Error> {
        self.next_element_seed(core::marker::PhantomData)
    }

    fn size_hint(&self) -> Option<usize> {
        // Bounded by the input, so nested claims cannot multiply pre-allocation.
        let tag = usize::from(self.tag != 0);
        let fields = u32::try_from(self.de.promised - self.base - tag).unwrap_or(u32::MAX);
        Some(self.de.reader.capacity_beside(fields, 1, self.base as u64) + tag)
    }
}

/// Entries of a map; keys must be strings.
struct Entries<'a, 'de> {
    de: &'a mut Deserializer<'de>,
    /// `Deserializer::promised` when the map was opened.
    base: usize,
}

impl<'de> de::MapAccess<'de> for Entries<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.de.promised == self.base {
            return Ok(None);
        }
        // The entry is taken as a whole here: while its value is read, only the
        // entries after it stay promised (a container in the value leaves them aside
        // in its size hint).
        self.de.promised -= 2;
        let key = self.de.string_key()?;
        seed.deserialize(de::value::BorrowedStrDeserializer::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        let entries = u32::try_from((self.de.promised - self.base) / 2).unwrap_or(u32::MAX);
        Some(self.de.reader.capacity_beside(entries, 2, self.base as u64))
    }
}

/// The one entry of a map that names an enum variant.
struct VariantAccess<'a, 'de> {
    de: &'a mut Deserializer<'de>,
}

impl<'de> de::EnumAccess<'de> for VariantAccess<'_, 'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Self), Error> {
        let key = self.de.string_key()?;
        let v = seed.deserialize(de::value::BorrowedStrDeserializer::<Error>::new(key))?;
        Ok((v, self))
    }
}

impl<'de> de::VariantAccess<'de> for VariantAccess<'_, 'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.de.next()? {
            Token::Null => Ok(()),
            _ => Err(self.de.data_error("expected null for a unit variant")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(&mut *self.de)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_any(&mut *self.de, visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        de::Deserializer::deserialize_any(&mut *self.de, visitor)
    }
}
