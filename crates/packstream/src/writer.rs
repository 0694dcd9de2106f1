//! A checked streaming writer: containers begun with a declared size, their items, and
//! their end, with every count checked, so that a binding streaming values out keeps no
//! container bookkeeping of its own.

use crate::error::EncodeError;
use crate::limits::{DecodeLimits, EncodeOptions};
use crate::value::{Value, ValueRef};
use crate::{Encoder, Sink};

/// A misuse of a [`Writer`], or an encoding error met while writing. Nothing is written
/// when a call fails, and the writer's state is as before the call.
///
/// [`WriteError::offset`] is the buffer's length when the refused call was made: where
/// its bytes would have begun.
///
/// ```
/// use packstream::{WriteError, Writer};
/// let mut w = Writer::new(Vec::new());
/// w.begin_map(1).unwrap();
/// let err = w.write_int(1).unwrap_err(); // a key is due
/// assert_eq!(err, WriteError::NonStringKey { offset: 1 });
/// assert_eq!(err.kind(), "non_string_key");
/// assert_eq!(w.get_ref(), &[0xA1]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// A map key is due and the value is not a string.
    #[error("a map key must be a string (at byte {offset})")]
    NonStringKey {
        /// Where the value would have begun.
        offset: usize,
    },
    /// A value was written into a container that already holds the items it declared
    /// (only when containers are ended explicitly: see [`Writer::close_when_full`]).
    #[error("the innermost container already holds the {declared} item(s) it declared; end it first (at byte {offset})")]
    TooManyItems {
        /// The items the container declared (a map's entries).
        declared: u64,
        /// Where the value would have begun.
        offset: usize,
    },
    /// [`Writer::end`] while the innermost container still needs items.
    #[error("{open} container(s) still open; the innermost needs {missing} more item(s)")]
    TooFewItems {
        /// Containers open.
        open: usize,
        /// Values the innermost one still needs (a map key and its value count as two).
        missing: u64,
        /// The buffer's length at the call.
        offset: usize,
    },
    /// [`Writer::finish`] while containers are open (filled or not: without
    /// [`Writer::close_when_full`], each is ended by [`Writer::end`]).
    #[error("{open} container(s) still open; the innermost needs {missing} more item(s)")]
    Unfinished {
        /// Containers open.
        open: usize,
        /// Values the innermost one still needs (0 if it is full and only not ended).
        missing: u64,
        /// The buffer's length at the call.
        offset: usize,
    },
    /// [`Writer::end`] with no container open.
    #[error("no container is open to end (at byte {offset})")]
    NothingOpen {
        /// The buffer's length at the call.
        offset: usize,
    },
    /// A container begun while [`Writer::max_depth`] containers are open.
    #[error("more than {max_depth} nested containers (at byte {offset})")]
    TooDeep {
        /// The limit.
        max_depth: u32,
        /// Where the container's header would have begun.
        offset: usize,
    },
    /// The value cannot be encoded ([`EncodeError`]: too large, too many fields, a UUID
    /// without PackStream v2).
    #[error("{error}")]
    Encode {
        /// What the encoder refused.
        error: EncodeError,
        /// Where the value would have begun.
        offset: usize,
    },
}

impl WriteError {
    /// The buffer's length when the refused call was made (where its bytes would have
    /// begun).
    #[must_use]
    pub const fn offset(&self) -> usize {
        match self {
            WriteError::NonStringKey { offset }
            | WriteError::TooManyItems { offset, .. }
            | WriteError::TooFewItems { offset, .. }
            | WriteError::Unfinished { offset, .. }
            | WriteError::NothingOpen { offset }
            | WriteError::TooDeep { offset, .. }
            | WriteError::Encode { offset, .. } => *offset,
        }
    }
}

crate::error_kinds! {
    WriteError;
    own {
        WriteError::NonStringKey { .. } => "non_string_key",
        WriteError::TooManyItems { .. } => "too_many_items",
        WriteError::TooFewItems { .. } => "too_few_items",
        WriteError::Unfinished { .. } => "unfinished",
        WriteError::NothingOpen { .. } => "nothing_open",
        WriteError::TooDeep { .. } => "limit_exceeded",
    }
    wrapped {
        WriteError::Encode { error, .. } => error.kind(),
    }
}

/// What kind of container is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    List,
    Map,
    Struct,
}

/// A container begun and not yet ended.
#[derive(Debug, Clone, Copy)]
struct Open {
    /// Values still due (a map entry counts as two: its key and its value).
    remaining: u64,
    /// The items (a map's entries) it declared.
    declared: u64,
    kind: Kind,
}

impl Open {
    /// Whether the next value is a map key.
    #[inline]
    fn key_due(&self) -> bool {
        self.kind == Kind::Map && self.remaining % 2 == 0
    }
}

/// A checked streaming writer of PackStream: values, and containers begun with their
/// declared size and ended when filled. Over the [`Encoder`] (the same bytes), it checks
/// what the encoder leaves to the caller: that every container gets exactly the items it
/// declared, that map keys are strings, and how deep containers nest
/// ([`Writer::max_depth`]; by default the decoder's default depth limit, so that what it
/// writes decodes with the default [`DecodeLimits`]).
///
/// A call that fails writes nothing and leaves the state as it was; the error has a
/// stable [`kind`](WriteError::kind) and an [`offset`](WriteError::offset).
///
/// ```
/// use packstream::{Value, Writer};
/// let mut w = Writer::new(Vec::new());
/// w.begin_struct(0x71, 1).unwrap(); // a RECORD
/// w.begin_list(2).unwrap();
/// w.write_str("Alice").unwrap();
/// w.begin_map(1).unwrap();
/// w.write_str("age").unwrap();
/// assert_eq!(w.end().unwrap_err().kind(), "too_few_items"); // the value is missing
/// w.write_int(33).unwrap();
/// assert_eq!(w.write_null().unwrap_err().kind(), "too_many_items");
/// w.end().unwrap(); // the map
/// w.end().unwrap(); // the list
/// w.end().unwrap(); // the structure
/// w.finish().unwrap();
/// let bytes = w.into_inner();
/// assert_eq!(bytes, b"\xB1\x71\x92\x85Alice\xA1\x83age\x21");
/// ```
#[derive(Debug)]
pub struct Writer<B> {
    enc: Encoder<B>,
    open: Vec<Open>,
    max_depth: u32,
    close_when_full: bool,
}

impl<B: Sink> Writer<B> {
    /// A writer with default options (PackStream v1, tiny structures only), containers
    /// ended by [`Writer::end`].
    pub fn new(buf: B) -> Self {
        Self::with_options(buf, EncodeOptions::default())
    }

    /// A writer with the given options.
    pub fn with_options(buf: B, opts: EncodeOptions) -> Self {
        Writer {
            enc: Encoder::with_options(buf, opts),
            open: Vec::new(),
            max_depth: DecodeLimits::DEFAULT.max_depth,
            close_when_full: false,
        }
    }

    /// Sets how many containers may be open at once (default
    /// [`DecodeLimits::DEFAULT`]`.max_depth`, 1024). `u32::MAX` leaves only memory as
    /// the bound (each open container takes 24 bytes here and at least one byte of
    /// output).
    ///
    /// ```
    /// use packstream::Writer;
    /// let mut w = Writer::new(Vec::new()).max_depth(1);
    /// w.begin_list(1).unwrap();
    /// assert_eq!(w.begin_list(0).unwrap_err().kind(), "limit_exceeded");
    /// ```
    #[must_use]
    pub fn max_depth(mut self, max_depth: u32) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// With `true`, a container is ended as soon as it holds the items it declared, and
    /// [`Writer::end`] is not called for it (the style of a C API without an end call).
    /// With `false` (the default) every container is ended by [`Writer::end`], and a
    /// value beyond the declared count is refused ([`WriteError::TooManyItems`]).
    ///
    /// ```
    /// use packstream::Writer;
    /// let mut w = Writer::new(Vec::new()).close_when_full(true);
    /// w.begin_list(1).unwrap();
    /// w.write_int(1).unwrap();
    /// assert_eq!(w.depth(), 0);
    /// w.finish().unwrap();
    /// assert_eq!(w.into_inner(), [0x91, 0x01]);
    /// ```
    #[must_use]
    pub fn close_when_full(mut self, on: bool) -> Self {
        self.close_when_full = on;
        self
    }

    /// The encoding options.
    pub fn options(&self) -> EncodeOptions {
        self.enc.options()
    }

    /// Changes the encoding options for what is written from now on.
    pub fn set_options(&mut self, opts: EncodeOptions) {
        self.enc.set_options(opts);
    }

    /// The buffer written to.
    pub fn get_ref(&self) -> &B {
        self.enc.get_ref()
    }

    /// The buffer, to read or to change what was written (for example to remove bytes
    /// already sent). The writer keeps no position in it.
    pub fn get_mut(&mut self) -> &mut B {
        self.enc.get_mut()
    }

    /// The buffer, giving up the writer (open containers are forgotten).
    pub fn into_inner(self) -> B {
        self.enc.into_inner()
    }

    /// How many containers are open (0 when the values written so far are complete).
    pub fn depth(&self) -> usize {
        self.open.len()
    }

    /// Values the innermost open container still needs (a map key and its value count
    /// as two), or `None` if none is open.
    pub fn remaining(&self) -> Option<u64> {
        self.open.last().map(|o| o.remaining)
    }

    /// Whether the next value must be a string (a map key is due).
    pub fn key_due(&self) -> bool {
        self.open.last().is_some_and(Open::key_due)
    }

    /// Forgets every open container (the buffer is not touched).
    pub fn reset(&mut self) {
        self.open.clear();
    }

    /// Checks that no container is open: the values written so far are complete.
    ///
    /// # Errors
    /// [`WriteError::Unfinished`] when a container is open.
    pub fn finish(&self) -> Result<(), WriteError> {
        match self.open.last() {
            None => Ok(()),
            Some(top) => Err(WriteError::Unfinished {
                open: self.open.len(),
                missing: top.remaining,
                offset: self.position(),
            }),
        }
    }

    /// Writes Null.
    ///
    /// # Errors
    /// [`WriteError::NonStringKey`] when a map key is due, [`WriteError::TooManyItems`]
    /// when the innermost container is full (the same holds for every value below).
    pub fn write_null(&mut self) -> Result<(), WriteError> {
        self.item(false, |e| {
            e.write_null();
            Ok(())
        })
    }

    /// Writes a boolean.
    ///
    /// # Errors
    /// As [`Writer::write_null`].
    pub fn write_bool(&mut self, v: bool) -> Result<(), WriteError> {
        self.item(false, |e| {
            e.write_bool(v);
            Ok(())
        })
    }

    /// Writes an integer in its narrowest form.
    ///
    /// # Errors
    /// As [`Writer::write_null`].
    pub fn write_int(&mut self, v: i64) -> Result<(), WriteError> {
        self.item(false, |e| {
            e.write_int(v);
            Ok(())
        })
    }

    /// Writes a float (FLOAT_64).
    ///
    /// # Errors
    /// As [`Writer::write_null`].
    pub fn write_float(&mut self, v: f64) -> Result<(), WriteError> {
        self.item(false, |e| {
            e.write_float(v);
            Ok(())
        })
    }

    /// Writes a string (a map key when one is due).
    ///
    /// # Errors
    /// [`WriteError::TooManyItems`]; [`WriteError::Encode`] above 2 147 483 647 bytes.
    pub fn write_str(&mut self, v: &str) -> Result<(), WriteError> {
        self.item(true, |e| e.write_str(v))
    }

    /// Writes a byte array.
    ///
    /// # Errors
    /// As [`Writer::write_null`]; [`WriteError::Encode`] above 2 147 483 647 bytes.
    pub fn write_bytes(&mut self, v: &[u8]) -> Result<(), WriteError> {
        self.item(false, |e| e.write_bytes(v))
    }

    /// Writes a UUID (PackStream v2).
    ///
    /// # Errors
    /// As [`Writer::write_null`]; [`WriteError::Encode`] without
    /// [`EncodeOptions::uuid`].
    pub fn write_uuid(&mut self, v: &[u8; 16]) -> Result<(), WriteError> {
        self.item(false, |e| e.write_uuid(v))
    }

    /// Writes a whole owned value as one item (its own nesting is not limited by
    /// [`Writer::max_depth`]; the encoder writes any depth without recursion per level).
    ///
    /// # Errors
    /// As [`Writer::write_null`] (a string value may be a key); [`WriteError::Encode`]
    /// for what the value holds. On error nothing is written.
    pub fn write_value(&mut self, v: &Value) -> Result<(), WriteError> {
        self.item(matches!(v, Value::String(_)), |e| e.write_value(v))
    }

    /// Writes a whole borrowed value as one item: as [`Writer::write_value`].
    ///
    /// # Errors
    /// As [`Writer::write_value`].
    pub fn write_value_ref(&mut self, v: &ValueRef<'_>) -> Result<(), WriteError> {
        self.item(matches!(v, ValueRef::String(_)), |e| e.write_value_ref(v))
    }

    /// Begins a list of `len` items.
    ///
    /// # Errors
    /// As [`Writer::write_null`]; [`WriteError::TooDeep`] when [`Writer::max_depth`]
    /// containers are open; [`WriteError::Encode`] above 2 147 483 647 items.
    pub fn begin_list(&mut self, len: usize) -> Result<(), WriteError> {
        self.begin(Kind::List, len, |e| e.write_list_header(len))
    }

    /// Begins a map of `len` entries: then key, value, key, value…, each key a string.
    ///
    /// # Errors
    /// As [`Writer::begin_list`].
    pub fn begin_map(&mut self, len: usize) -> Result<(), WriteError> {
        self.begin(Kind::Map, len, |e| e.write_map_header(len))
    }

    /// Begins a structure of `len` fields with signature `tag` (a Bolt message is one).
    ///
    /// # Errors
    /// As [`Writer::begin_list`]; [`WriteError::Encode`] with
    /// [`EncodeError::TooManyFields`] above 15 fields without
    /// [`EncodeOptions::legacy_structs`].
    pub fn begin_struct(&mut self, tag: u8, len: usize) -> Result<(), WriteError> {
        self.begin(Kind::Struct, len, |e| e.write_struct_header(tag, len))
    }

    /// Ends the innermost container, which must hold the items it declared.
    ///
    /// # Errors
    /// [`WriteError::TooFewItems`]; [`WriteError::NothingOpen`].
    pub fn end(&mut self) -> Result<(), WriteError> {
        match self.open.last() {
            None => Err(WriteError::NothingOpen {
                offset: self.position(),
            }),
            Some(top) if top.remaining > 0 => Err(self.too_few(top.remaining)),
            Some(_) => {
                self.open.pop();
                Ok(())
            }
        }
    }

    /// Runs `f`, a series of calls on this writer; if it fails, the buffer and the open
    /// containers are put back as they were before it, so that a failed series leaves
    /// no partial value behind. A binding writing a tree of its own node by node uses
    /// this. It costs a copy of the list of open containers.
    ///
    /// ```
    /// use packstream::Writer;
    /// let mut w = Writer::new(Vec::new());
    /// w.begin_list(2).unwrap();
    /// let r = w.all_or_nothing(|w| {
    ///     w.begin_map(1)?;
    ///     w.write_int(1) // not a key
    /// });
    /// assert_eq!(r.unwrap_err().kind(), "non_string_key");
    /// assert_eq!((w.depth(), w.remaining()), (1, Some(2)));
    /// assert_eq!(w.get_ref(), &[0x92]);
    /// ```
    ///
    /// # Errors
    /// Whatever `f` returns.
    pub fn all_or_nothing<T, E>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, E>,
    ) -> Result<T, E> {
        let len = self.position();
        let open = self.open.clone();
        let result = f(self);
        if result.is_err() {
            self.enc.get_mut().truncate_to(len);
            self.open = open;
        }
        result
    }

    fn position(&self) -> usize {
        self.enc.get_ref().written_len()
    }

    fn too_few(&self, missing: u64) -> WriteError {
        WriteError::TooFewItems {
            open: self.open.len(),
            missing,
            offset: self.position(),
        }
    }

    /// Checks that a value may be written now.
    #[inline]
    fn check_item(&self, is_string: bool) -> Result<(), WriteError> {
        match self.open.last() {
            Some(top) if top.remaining == 0 => Err(WriteError::TooManyItems {
                declared: top.declared,
                offset: self.position(),
            }),
            Some(top) if !is_string && top.key_due() => Err(WriteError::NonStringKey {
                offset: self.position(),
            }),
            _ => Ok(()),
        }
    }

    /// Counts a value written; closes filled containers when asked to.
    #[inline]
    fn item_done(&mut self) {
        if let Some(top) = self.open.last_mut() {
            top.remaining -= 1;
        }
        if self.close_when_full {
            while self.open.last().is_some_and(|top| top.remaining == 0) {
                self.open.pop();
            }
        }
    }

    /// Writes one item (a scalar or a whole value) with `write` after the checks; rolls
    /// the buffer back if it fails midway.
    #[inline]
    fn item(
        &mut self,
        is_string: bool,
        write: impl FnOnce(&mut Encoder<B>) -> Result<(), EncodeError>,
    ) -> Result<(), WriteError> {
        self.check_item(is_string)?;
        let offset = self.position();
        if let Err(error) = write(&mut self.enc) {
            self.enc.get_mut().truncate_to(offset);
            return Err(WriteError::Encode { error, offset });
        }
        self.item_done();
        Ok(())
    }

    /// Begins a container of `len` items (entries for a map) after the checks.
    fn begin(
        &mut self,
        kind: Kind,
        len: usize,
        header: impl FnOnce(&mut Encoder<B>) -> Result<(), EncodeError>,
    ) -> Result<(), WriteError> {
        self.check_item(false)?;
        let offset = self.position();
        if self.open.len() >= self.max_depth as usize {
            return Err(WriteError::TooDeep {
                max_depth: self.max_depth,
                offset,
            });
        }
        header(&mut self.enc).map_err(|error| WriteError::Encode { error, offset })?;
        // The header was written, so `len` is at most 2 147 483 647 (u64: no overflow).
        let declared = len as u64;
        let remaining = if kind == Kind::Map {
            declared * 2
        } else {
            declared
        };
        if let Some(top) = self.open.last_mut() {
            top.remaining -= 1;
        }
        self.open.push(Open {
            remaining,
            declared,
            kind,
        });
        if self.close_when_full {
            while self.open.last().is_some_and(|top| top.remaining == 0) {
                self.open.pop();
            }
        }
        Ok(())
    }
}
