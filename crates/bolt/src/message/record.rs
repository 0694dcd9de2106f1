//! RECORD (`71`): one result row, decoded lazily (docs/protocol.md §5.11).

use core::fmt;

use packstream::{DecodeOptions, Decoder, Sink, Value, ValueRef};

use super::error::{MessageEncodeError, MessageError};
use super::wire::{self, Writer};

/// RECORD (`71`): `data: List`, one result row in `fields` order.
///
/// A decoded record keeps the bytes of its message and only knows its field count
/// ([`Record::len`], read from the list header); the fields are decoded when asked for:
///
/// * [`Record::fields`]: all of them, as borrowed [`ValueRef`]s;
/// * [`Record::iter`]: one at a time;
/// * [`Record::decoder`]: a [`packstream::Decoder`] positioned at the first field, for
///   bindings that build host objects straight from the tokens.
///
/// Malformed field bytes (and bytes after the list) are therefore reported by these,
/// with their offset in the message, not by [`Response::decode`](super::Response::decode).
///
/// A record built with [`Record::new`] holds values instead, for encoding (a server or a
/// test peer). Two records are equal when their fields are.
///
/// ```
/// use bolt::message::{Record, Response};
/// use bolt::BoltVersion;
/// use packstream::ValueRef;
///
/// // RECORD [1, "two", [3]]
/// let bytes = [0xB1, 0x71, 0x93, 0x01, 0x83, b't', b'w', b'o', 0x91, 0x03];
/// let Response::Record(record) = Response::decode(&bytes, BoltVersion::V5_8)? else { panic!() };
/// assert_eq!(record.len(), 3);
/// let fields = record.fields()?;
/// assert_eq!(fields[1], ValueRef::String("two"));
/// // zero copy: the string points into `bytes`
/// assert!(bytes.as_ptr_range().contains(&fields[1].as_str().unwrap().as_ptr()));
///
/// let built = Record::new(vec![ValueRef::Int(1), ValueRef::String("two"),
///                              ValueRef::List(vec![ValueRef::Int(3)])]);
/// assert_eq!(built, record);
/// assert_eq!(Response::Record(built).to_vec(BoltVersion::V5_8)?, bytes);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct Record<'a> {
    repr: Repr<'a>,
}

#[derive(Clone)]
enum Repr<'a> {
    /// Decoded: the whole message, where its list marker is, and the list length.
    Raw {
        message: &'a [u8],
        list_at: usize,
        len: u32,
        opts: DecodeOptions,
    },
    /// Built from values.
    Values(Vec<ValueRef<'a>>),
}

impl<'a> Record<'a> {
    /// A record holding these values (for encoding).
    #[must_use]
    pub fn new(values: Vec<ValueRef<'a>>) -> Self {
        Record {
            repr: Repr::Values(values),
        }
    }

    /// A lazily decoded record: `message` is the whole RECORD message and its list
    /// header of `len` items starts at `list_at`.
    pub(crate) fn raw(message: &'a [u8], list_at: usize, len: u32, opts: DecodeOptions) -> Self {
        Record {
            repr: Repr::Raw {
                message,
                list_at,
                len,
                opts,
            },
        }
    }

    /// The options the record was decoded with (`None` for a built one).
    #[cfg(feature = "serde")]
    pub(crate) fn decode_options(&self) -> Option<DecodeOptions> {
        match &self.repr {
            Repr::Raw { opts, .. } => Some(*opts),
            Repr::Values(_) => None,
        }
    }

    /// The number of fields (known without decoding them).
    #[must_use]
    pub fn len(&self) -> usize {
        match &self.repr {
            Repr::Raw { len, .. } => *len as usize,
            Repr::Values(v) => v.len(),
        }
    }

    /// Whether the record has no field.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of the whole RECORD message, for a decoded record.
    #[must_use]
    pub fn message_bytes(&self) -> Option<&'a [u8]> {
        match &self.repr {
            Repr::Raw { message, .. } => Some(message),
            Repr::Values(_) => None,
        }
    }

    /// The bytes of the `data` list (marker included, up to the end of the message),
    /// for a decoded record.
    #[must_use]
    pub fn data_bytes(&self) -> Option<&'a [u8]> {
        match &self.repr {
            Repr::Raw {
                message, list_at, ..
            } => message.get(*list_at..),
            Repr::Values(_) => None,
        }
    }

    /// A decoder over the message, positioned at the first field, for a decoded record
    /// (`None` for a built one).
    ///
    /// Read [`Record::len`] values from it (with `read_value_ref`, `next_token`, …),
    /// then call [`Decoder::finish`] to reject trailing bytes. Its offsets are positions
    /// in the message.
    ///
    /// ```
    /// use bolt::message::Response;
    /// use bolt::BoltVersion;
    /// use packstream::Token;
    ///
    /// let bytes = [0xB1, 0x71, 0x92, 0x2A, 0x81, b'x'];
    /// let Response::Record(record) = Response::decode(&bytes, BoltVersion::V5_8)? else { panic!() };
    /// let mut dec = record.decoder().expect("decoded record");
    /// assert_eq!(dec.next_token()?, Token::Int(42));
    /// assert_eq!(dec.next_token()?, Token::String("x"));
    /// assert!(dec.is_complete());
    /// dec.finish()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn decoder(&self) -> Option<Decoder<'a>> {
        match &self.repr {
            Repr::Raw { message, opts, .. } => {
                let mut dec = Decoder::with_options(message, *opts);
                // Both headers were read successfully when the record was decoded.
                dec.next_token().ok()?;
                dec.next_token().ok()?;
                Some(dec)
            }
            Repr::Values(_) => None,
        }
    }

    /// Every field, decoded.
    ///
    /// # Errors
    ///
    /// A [`MessageError`] for malformed field bytes or bytes after the list.
    pub fn fields(&self) -> Result<Vec<ValueRef<'a>>, MessageError> {
        match &self.repr {
            Repr::Values(v) => Ok(v.clone()),
            Repr::Raw { len, .. } => {
                // The list header was checked against the bytes that remain, so `len`
                // is bounded by the message size.
                let mut out = Vec::with_capacity(*len as usize);
                for field in self.iter() {
                    out.push(field?);
                }
                Ok(out)
            }
        }
    }

    /// Every field, decoded into owned values.
    ///
    /// # Errors
    ///
    /// As [`Record::fields`].
    pub fn to_owned_values(&self) -> Result<Vec<Value>, MessageError> {
        self.iter().map(|r| r.map(|v| v.to_owned_value())).collect()
    }

    /// The fields one at a time. After a decode error (or trailing bytes, reported after
    /// the last field) the iterator ends.
    #[must_use]
    pub fn iter(&self) -> RecordIter<'_, 'a> {
        let inner = match &self.repr {
            Repr::Values(v) => IterRepr::Values(v.iter()),
            Repr::Raw { len, .. } => match self.decoder() {
                Some(dec) => IterRepr::Raw {
                    dec,
                    remaining: *len,
                },
                None => IterRepr::Done,
            },
        };
        RecordIter { inner }
    }

    /// The fields deserialised into one `T` through serde (feature `serde`): a tuple,
    /// a tuple struct, a struct with named fields (filled from the fields in column
    /// order), a `Vec`, … as [`packstream::serde`] maps them. Strings and bytes borrow
    /// from the message.
    ///
    /// Errors carry the byte offset inside the message, as [`MessageError`]s do.
    /// For many records, [`Record::deserialize_with`] (or
    /// [`RecordBatch::deserialize_rows`](super::RecordBatch::deserialize_rows)) keeps one
    /// deserializer across them.
    ///
    /// ```
    /// use bolt::message::Response;
    /// use bolt::BoltVersion;
    /// use serde::Deserialize;
    ///
    /// #[derive(Debug, PartialEq, Deserialize)]
    /// struct Person<'a> {
    ///     name: &'a str,
    ///     age: u8,
    ///     email: Option<&'a str>,
    /// }
    ///
    /// // RECORD ["Alice", 33, null]
    /// let bytes = b"\xB1\x71\x93\x85Alice\x21\xC0";
    /// let Response::Record(record) = Response::decode(bytes, BoltVersion::V5_8)? else { panic!() };
    /// let alice: Person<'_> = record.deserialize()?;
    /// assert_eq!(alice, Person { name: "Alice", age: 33, email: None });
    /// let (name, age, email): (String, i64, Option<String>) = record.deserialize()?;
    /// assert_eq!((name.as_str(), age, email), ("Alice", 33, None));
    /// // A field that does not fit: the offset of the string, inside the message.
    /// let err = record.deserialize::<(i64, i64, ())>().unwrap_err();
    /// assert_eq!(err.offset(), Some(3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`packstream::serde::Error`] when the fields do not fit `T`, for malformed
    /// field bytes or bytes after the list, and for a record built from values (which
    /// has no bytes to read).
    #[cfg(feature = "serde")]
    pub fn deserialize<T: serde::Deserialize<'a>>(&self) -> Result<T, packstream::serde::Error> {
        let opts = match &self.repr {
            Repr::Raw { opts, .. } => opts,
            Repr::Values(_) => return Err(built_record()),
        };
        self.deserialize_with(&mut packstream::serde::Deserializer::with_options(
            &[],
            opts,
        ))
    }

    /// [`Record::deserialize`] with a deserializer the caller keeps across records, so
    /// that it is set up once (its options are used, not the record's: give it the
    /// codec's [`decode_options`](super::MessageCodec::decode_options)).
    ///
    /// ```
    /// use bolt::message::{MessageCodec, Record, Response};
    /// use bolt::BoltVersion;
    /// use packstream::serde::Deserializer;
    /// use packstream::ValueRef;
    ///
    /// let codec = MessageCodec::new(BoltVersion::V5_8);
    /// let messages: Vec<Vec<u8>> = (0..3)
    ///     .map(|i| Response::Record(Record::new(vec![ValueRef::Int(i)])).to_vec(codec.version()))
    ///     .collect::<Result<_, _>>()?;
    /// let batch = codec.decode_records(&messages);
    /// let mut de = Deserializer::with_options(&[], &codec.decode_options());
    /// let mut sum = 0;
    /// for record in batch.records() {
    ///     let (i,): (i64,) = record.deserialize_with(&mut de)?;
    ///     sum += i;
    /// }
    /// assert_eq!(sum, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Record::deserialize`].
    #[cfg(feature = "serde")]
    pub fn deserialize_with<T: serde::Deserialize<'a>>(
        &self,
        de: &mut packstream::serde::Deserializer<'a>,
    ) -> Result<T, packstream::serde::Error> {
        match &self.repr {
            // The whole message is read, as the structure it is (its tag, then the
            // field list into `T`), so that offsets count from the message's start.
            Repr::Raw { message, .. } => de.decode_exact::<(u8, T)>(message).map(|(_, t)| t),
            Repr::Values(_) => Err(built_record()),
        }
    }

    /// Writes the `data` field: a decoded record's list bytes verbatim, a built one's
    /// values.
    pub(crate) fn write_data<B: Sink>(&self, w: &mut Writer<B>) -> Result<(), MessageEncodeError> {
        match &self.repr {
            Repr::Raw { .. } => {
                w.raw(self.data_bytes().unwrap_or_default());
                Ok(())
            }
            Repr::Values(v) => w.value(&ValueRef::List(v.clone())),
        }
    }
}

/// The error of [`Record::deserialize`] for a record built from values.
#[cfg(feature = "serde")]
fn built_record() -> packstream::serde::Error {
    serde::de::Error::custom("a record built from values has no bytes to deserialize")
}

impl PartialEq for Record<'_> {
    fn eq(&self, other: &Self) -> bool {
        if let (Some(a), Some(b)) = (self.data_bytes(), other.data_bytes()) {
            if a == b {
                return true;
            }
        }
        matches!((self.fields(), other.fields()), (Ok(a), Ok(b)) if a == b)
    }
}

impl fmt::Debug for Record<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("Record");
        d.field("len", &self.len());
        match self.fields() {
            Ok(v) => d.field("fields", &v),
            Err(e) => d.field("error", &e),
        };
        d.finish()
    }
}

impl fmt::Display for Record<'_> {
    /// `RECORD [1, "two"]` (or `RECORD <error: …>`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.fields() {
            Ok(v) => write!(f, "RECORD {}", ValueRef::List(v)),
            Err(e) => write!(f, "RECORD <error: {e}>"),
        }
    }
}

impl<'r, 'a> IntoIterator for &'r Record<'a> {
    type Item = Result<ValueRef<'a>, MessageError>;
    type IntoIter = RecordIter<'r, 'a>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Iterator over a record's fields; see [`Record::iter`].
#[derive(Clone, Debug)]
pub struct RecordIter<'r, 'a> {
    inner: IterRepr<'r, 'a>,
}

// The decoder carries its walk's saved levels inline (about 400 bytes): the iterator is
// made once per record and advanced in place, and boxing the decoder would cost an
// allocation per record.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum IterRepr<'r, 'a> {
    Raw { dec: Decoder<'a>, remaining: u32 },
    Values(core::slice::Iter<'r, ValueRef<'a>>),
    Done,
}

impl<'a> Iterator for RecordIter<'_, 'a> {
    type Item = Result<ValueRef<'a>, MessageError>;

    fn next(&mut self) -> Option<Self::Item> {
        match &mut self.inner {
            IterRepr::Values(it) => it.next().cloned().map(Ok),
            IterRepr::Done => None,
            IterRepr::Raw { dec, remaining } => {
                if *remaining == 0 {
                    let end = wire::finish(dec, "RECORD");
                    self.inner = IterRepr::Done;
                    return end.err().map(Err);
                }
                *remaining -= 1;
                match dec.read_value_ref() {
                    Ok(v) => Some(Ok(v)),
                    Err(e) => {
                        self.inner = IterRepr::Done;
                        Some(Err(e.into()))
                    }
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.inner {
            IterRepr::Values(it) => it.size_hint(),
            IterRepr::Done => (0, Some(0)),
            // one more for a possible trailing-bytes error
            IterRepr::Raw { remaining, .. } => {
                let n = *remaining as usize;
                (usize::from(n > 0), Some(n.saturating_add(1)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::hex;
    use super::super::Response;
    use super::*;
    use crate::version::BoltVersion;
    use packstream::{ErrorKind, Token};

    const V: BoltVersion = BoltVersion::V5_8;

    fn record(bytes: &[u8]) -> Record<'_> {
        match Response::decode(bytes, V).unwrap() {
            Response::Record(r) => r,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn lazy_fields() {
        // RECORD [1, {"k": "v"}, null]
        let bytes = hex("B1 71 93 01 A1 81 6B 81 76 C0");
        let r = record(&bytes);
        assert_eq!((r.len(), r.is_empty()), (3, false));
        let fields = r.fields().unwrap();
        assert_eq!(fields[0], ValueRef::Int(1));
        assert_eq!(fields[1].get("k"), Some(&ValueRef::String("v")));
        assert_eq!(fields[2], ValueRef::Null);
        assert_eq!(r.iter().count(), 3);
        assert_eq!(
            r.to_owned_values().unwrap()[1],
            Value::Map(vec![("k".into(), Value::from("v"))])
        );
        assert_eq!(r.message_bytes(), Some(&bytes[..]));
        assert_eq!(r.data_bytes(), Some(&bytes[2..]));
        assert_eq!(r.to_string(), r#"RECORD [1, {"k": "v"}, null]"#);
        let mut dec = r.decoder().unwrap();
        assert_eq!(dec.next_token().unwrap(), Token::Int(1));
        dec.skip_value().unwrap();
        assert_eq!(dec.next_token().unwrap(), Token::Null);
        assert!(dec.is_complete());
        assert_eq!(dec.position(), bytes.len());
        // empty record
        let empty = record(&[0xB1, 0x71, 0x90]);
        assert!(empty.is_empty());
        assert_eq!(empty.fields().unwrap(), []);
    }

    #[test]
    fn errors_surface_when_fields_are_read() {
        // RECORD [1, <reserved marker>]: the header is fine
        let bytes = hex("B1 71 92 01 DF");
        let r = record(&bytes);
        assert_eq!(r.len(), 2);
        let err = r.fields().unwrap_err();
        assert!(
            matches!(err, MessageError::PackStream(e) if e.kind() == ErrorKind::ReservedMarker)
        );
        assert_eq!(err.offset(), 4);
        let items: Vec<_> = r.iter().collect();
        assert_eq!(items.len(), 2);
        assert!(items[0].is_ok() && items[1].is_err());
        assert!(r.to_string().starts_with("RECORD <error"));
        assert!(format!("{r:?}").contains("error"));

        // trailing bytes after the list: reported after the last field
        let bytes = hex("B1 71 91 01 C0 C0");
        let r = record(&bytes);
        let items: Vec<_> = r.iter().collect();
        assert_eq!(items[0], Ok(ValueRef::Int(1)));
        assert_eq!(
            items[1],
            Err(MessageError::TrailingBytes {
                offset: 4,
                count: 2,
                message: "RECORD"
            })
        );
        assert_eq!(items.len(), 2);
        assert!(r.fields().is_err());

        // a list header larger than the message is caught at once
        assert!(Response::decode(&hex("B1 71 95 01"), V).is_err());
        // a UUID field before 6.1
        let mut uuid = hex("B1 71 91 E0");
        uuid.extend([0; 16]);
        assert!(record(&uuid).fields().is_err());
        let Response::Record(r) = Response::decode(&uuid, BoltVersion::V6_1).unwrap() else {
            panic!()
        };
        assert_eq!(r.fields().unwrap(), [ValueRef::Uuid([0; 16])]);
    }

    #[test]
    fn equality_and_encoding() {
        // LIST_8 with one item: not the smallest marker, kept verbatim on re-encode
        let bytes = hex("B1 71 D4 01 2A");
        let r = record(&bytes);
        assert_eq!(Response::Record(r.clone()).to_vec(V).unwrap(), bytes);
        let built = Record::new(vec![ValueRef::Int(42)]);
        assert_eq!(r, built);
        assert_eq!(built, r);
        assert_eq!(
            Response::Record(built.clone()).to_vec(V).unwrap(),
            hex("B1 71 91 2A")
        );
        assert_ne!(built, Record::new(vec![ValueRef::Int(41)]));
        assert!(built.decoder().is_none() && built.data_bytes().is_none());
        assert_eq!(built.iter().size_hint(), (1, Some(1)));
        let broken = record(&[0xB1, 0x71, 0x91, 0xDF]);
        assert_ne!(broken, built);
        assert_eq!(broken, broken.clone()); // same bytes
        let fields: Vec<_> = (&built).into_iter().collect();
        assert_eq!(fields, [Ok(ValueRef::Int(42))]);
    }
}
