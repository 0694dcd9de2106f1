//! The tape: a decoded message laid out for a small JavaScript routine to rebuild.
//!
//! Creating JS values one N-API call at a time costs more than parsing the bytes, so the
//! native side never creates values. It walks the PackStream tokens (with the core crate's
//! [`Decoder`], which enforces every limit and checks UTF-8) and writes:
//!
//! * `words`: one `i32` per token, `type | payload << 4` (more words for wide integers and
//!   huge lengths). Types are the `T_*` constants below; `lib/decode.js` mirrors them. A
//!   list whose items are all scalars is marked `T_FLAT` once it is complete, so that JS
//!   can read its items in one tight loop, with no recursion.
//! * `floats`: the value of every Float, in order.
//! * `latin1`: the bytes of every ASCII string, concatenated. JS turns the whole area into
//!   one string with one call and takes each string as a `substring`.
//! * `utf8`: the bytes of every other string, concatenated; the word gives the string's
//!   length in UTF-16 units, so JS can `substring` one decoded string the same way.
//! * `bin`: the payloads of Bytes and UUID values.
//! * both string areas are cut into segments of at most [`LATIN1_SEGMENT`] and
//!   [`UTF8_SEGMENT`] bytes (one longer string is a segment of its own), and JS turns one
//!   segment at a time into a string: V8 allocates a string of 128 KiB or more in its
//!   large-object space, about 80 µs per call whatever the length (`latin1Slice` of
//!   120,000 bytes took 2.5 µs, of 131,072 bytes 77 µs), which was a tenth of the
//!   unpack of records 10×10000 and lists 1000×100. A `T_SEG` word starts each segment
//!   after the first.
//! * map keys are interned: a key seen before becomes `T_KEY | id << 4`, and JS keeps one
//!   string per id for the life of the codec. Keys new in a call are listed apart
//!   (`key_lens`, `key_bytes`) so that JS registers them before it rebuilds anything.
//!
//! [`Tape::write_out`] copies all of it into one JS-owned buffer (the layout is described
//! there), so a call costs one native crossing whatever the size of the message or batch.

use bolt::message::signature;
use packstream::{DecodeOptions, Decoder, Error, ErrorInfo, Token, Visitor};
use rustc_hash::FxHashMap;

/// Integer fitting in 28 signed bits: payload is the value.
pub(crate) const T_INT: i32 = 0;
/// Float: the next value of `floats`.
pub(crate) const T_FLOAT: i32 = 1;
/// ASCII string: payload is its length; the chars are the next ones of `latin1`.
pub(crate) const T_LATIN1: i32 = 2;
/// Other string: payload is its length in UTF-16 units, taken from the decoded `utf8`.
pub(crate) const T_UTF16: i32 = 3;
/// List: payload is the item count.
pub(crate) const T_LIST: i32 = 4;
/// Map: payload is the entry count; each key is a string or key word.
pub(crate) const T_MAP: i32 = 5;
/// Structure: payload is `tag | field_count << 8`.
pub(crate) const T_STRUCT: i32 = 6;
/// Null (payload 0), false (1) or true (2).
pub(crate) const T_CONST: i32 = 7;
/// Integer outside 28 bits: the next two words are the high and low 32 bits.
pub(crate) const T_INT64: i32 = 8;
/// Bytes: payload is the length; the bytes are the next ones of `bin`.
pub(crate) const T_BYTES: i32 = 9;
/// UUID: the next 16 bytes of `bin`.
pub(crate) const T_UUID: i32 = 10;
/// Interned map key: payload is its id.
pub(crate) const T_KEY: i32 = 11;
/// A message that failed to decode: payload is the error's index (see `errors`), the next
/// word its offset in the message.
pub(crate) const T_ERROR: i32 = 12;
/// List whose items are all scalars (no list, map or structure): payload is the item
/// count, which always fits in the word (a longer list stays `T_LIST`).
pub(crate) const T_FLAT: i32 = 13;
/// The next string of an area starts a new segment of it: payload 0 for `latin1`, 1 for
/// `utf8`; the next two words are the segment's first byte in the area and its length
/// at most (the area may end before).
pub(crate) const T_SEG: i32 = 14;

/// Longest segment of `latin1` (but for one longer string): its JS string (one byte per
/// char) stays under V8's large-object size, 128 KiB.
pub(crate) const LATIN1_SEGMENT: usize = 64 << 10;
/// Longest segment of `utf8` (but for one longer string): at most one UTF-16 unit per
/// byte, two bytes each in V8, so its JS string stays under 128 KiB too.
pub(crate) const UTF8_SEGMENT: usize = 32 << 10;

/// Where the segment of a string area being written starts and ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    start: usize,
    /// A string that would end after this starts the next segment.
    end: usize,
}

/// A payload that does not fit in 28 bits: the length is in the next word.
const LONG: u32 = 0x0FFF_FFFF;
/// The range of integers stored in one word.
const SMALL_INT: core::ops::Range<i64> = -(1 << 27)..(1 << 27);

/// Interned map keys: at most this many per codec ...
pub(crate) const MAX_KEYS: usize = 4096;
/// ... of at most this many bytes each.
pub(crate) const MAX_KEY_LEN: usize = 64;

/// Map keys interned across calls. JS holds the string for each id.
#[derive(Debug, Default)]
pub(crate) struct KeyTable {
    ids: FxHashMap<Box<str>, u32>,
    by_id: Vec<Box<str>>,
}

impl KeyTable {
    /// Number of interned keys (the id the next new key gets).
    pub(crate) fn len(&self) -> usize {
        self.by_id.len()
    }

    /// The key of `id`, if interned.
    pub(crate) fn get(&self, id: usize) -> Option<&str> {
        self.by_id.get(id).map(|k| &**k)
    }

    /// The id of `key`, interning it if there is room. `Err(())` when the table is full or
    /// the key too long (the key is then written as an ordinary string).
    #[inline]
    fn id(&mut self, key: &str, tape: &mut Tape) -> Option<u32> {
        if let Some(id) = self.ids.get(key) {
            return Some(*id);
        }
        if key.len() > MAX_KEY_LEN || self.by_id.len() >= MAX_KEYS {
            return None;
        }
        let id = self.by_id.len() as u32;
        self.ids.insert(key.into(), id);
        self.by_id.push(key.into());
        tape.key_lens.push(utf16_len(key) as i32);
        tape.key_bytes.extend_from_slice(key.as_bytes());
        Some(id)
    }

    /// Forgets the keys interned from `len` on (after a message or a call failed).
    pub(crate) fn truncate(&mut self, len: usize) {
        while self.by_id.len() > len {
            if let Some(k) = self.by_id.pop() {
                self.ids.remove(&k);
            }
        }
    }
}

/// UTF-16 length of a string: every char but the 4-byte ones is one unit.
#[inline]
fn utf16_len(s: &str) -> usize {
    s.bytes()
        .map(|b| usize::from((b & 0xC0) != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

/// Where a message's output starts, to roll back to if it fails.
#[derive(Clone, Copy)]
struct Mark {
    words: usize,
    floats: usize,
    latin1: usize,
    utf8: usize,
    bin: usize,
    key_lens: usize,
    key_bytes: usize,
    keys: usize,
    latin1_seg: Segment,
    utf8_seg: Segment,
}

/// The decoded output of one call (see the module docs).
#[derive(Debug)]
pub(crate) struct Tape {
    pub(crate) words: Vec<i32>,
    pub(crate) floats: Vec<f64>,
    pub(crate) latin1: Vec<u8>,
    pub(crate) utf8: Vec<u8>,
    pub(crate) bin: Vec<u8>,
    pub(crate) key_lens: Vec<i32>,
    pub(crate) key_bytes: Vec<u8>,
    /// Number of messages (or values) written.
    pub(crate) count: u32,
    /// Messages that failed: their errors, referenced by `T_ERROR` words.
    pub(crate) errors: Vec<FailedMessage>,
    /// The id of the first key new in this call (the number of keys the JS side must
    /// already hold): JS checks it, so that a call whose keys it never received cannot
    /// shift the ids of later ones.
    pub(crate) key_base: u32,
    /// Bytes of the input the value took ([`Tape::whole`]; 0 for messages).
    pub(crate) used: usize,
    /// The word of the container opened last ...
    last_open: usize,
    /// ... and whether nothing has ended since. A container that ends with this set has
    /// no container inside it (one opened inside would have ended after it was opened):
    /// if it is a list, it is flat. No stack is needed.
    open_since: bool,
    /// The segments of `latin1` and `utf8` being written.
    latin1_seg: Segment,
    utf8_seg: Segment,
}

impl Default for Tape {
    fn default() -> Self {
        Tape {
            words: Vec::new(),
            floats: Vec::new(),
            latin1: Vec::new(),
            utf8: Vec::new(),
            bin: Vec::new(),
            key_lens: Vec::new(),
            key_bytes: Vec::new(),
            count: 0,
            errors: Vec::new(),
            key_base: 0,
            used: 0,
            last_open: 0,
            open_since: false,
            latin1_seg: FIRST_LATIN1_SEGMENT,
            utf8_seg: FIRST_UTF8_SEGMENT,
        }
    }
}

/// The first segments of the string areas (JS reads their size from the tape's header).
const FIRST_LATIN1_SEGMENT: Segment = Segment {
    start: 0,
    end: LATIN1_SEGMENT,
};
const FIRST_UTF8_SEGMENT: Segment = Segment {
    start: 0,
    end: UTF8_SEGMENT,
};

/// A message of a batch that could not be decoded.
#[derive(Debug, Clone)]
pub(crate) struct FailedMessage {
    /// The `packstream::ErrorKind` name, or `not_a_record`.
    pub(crate) kind: &'static str,
    /// Offset in the message.
    pub(crate) offset: usize,
    /// Stream offset of the message's first chunk header.
    pub(crate) message_offset: u64,
    /// Human-readable description.
    pub(crate) message: String,
}

/// What a message must look like in [`Tape::received`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Any value; it is written whole.
    Any,
    /// A RECORD whose one field is a list; only that list is written.
    Record,
    /// A RECORD's list of fields, as for `Record`, or any other message whole.
    RecordOrAny,
}

impl Tape {
    /// Empties the tape for a call with `keys` interned so far, keeping its allocations.
    pub(crate) fn start(&mut self, keys: &KeyTable) {
        self.clear();
        self.key_base = keys.len() as u32;
    }

    /// Gives back the memory of the value areas when one of them holds more than `bound`
    /// bytes (after a large call), so that one large call does not keep its peak
    /// allocation for the codec's life. Call it only once the tape has been copied out:
    /// it empties the value areas (the errors stay, for `errorInfo`).
    pub(crate) fn release(&mut self, bound: usize) {
        fn bytes<T>(v: &Vec<T>) -> usize {
            v.capacity() * core::mem::size_of::<T>()
        }
        let largest = [
            bytes(&self.words),
            bytes(&self.floats),
            bytes(&self.latin1),
            bytes(&self.utf8),
            bytes(&self.bin),
            bytes(&self.key_lens),
            bytes(&self.key_bytes),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        if largest > bound {
            self.words = Vec::new();
            self.floats = Vec::new();
            self.latin1 = Vec::new();
            self.utf8 = Vec::new();
            self.bin = Vec::new();
            self.key_lens = Vec::new();
            self.key_bytes = Vec::new();
        }
    }

    /// Empties the tape, keeping its allocations.
    pub(crate) fn clear(&mut self) {
        self.words.clear();
        self.floats.clear();
        self.latin1.clear();
        self.utf8.clear();
        self.bin.clear();
        self.key_lens.clear();
        self.key_bytes.clear();
        self.count = 0;
        self.used = 0;
        self.errors.clear();
        self.latin1_seg = FIRST_LATIN1_SEGMENT;
        self.utf8_seg = FIRST_UTF8_SEGMENT;
    }

    fn mark(&self, keys: &KeyTable) -> Mark {
        Mark {
            words: self.words.len(),
            floats: self.floats.len(),
            latin1: self.latin1.len(),
            utf8: self.utf8.len(),
            bin: self.bin.len(),
            key_lens: self.key_lens.len(),
            key_bytes: self.key_bytes.len(),
            keys: keys.len(),
            latin1_seg: self.latin1_seg,
            utf8_seg: self.utf8_seg,
        }
    }

    fn rollback(&mut self, m: Mark, keys: &mut KeyTable) {
        self.words.truncate(m.words);
        self.floats.truncate(m.floats);
        self.latin1.truncate(m.latin1);
        self.utf8.truncate(m.utf8);
        self.bin.truncate(m.bin);
        self.key_lens.truncate(m.key_lens);
        self.key_bytes.truncate(m.key_bytes);
        keys.truncate(m.keys);
        self.latin1_seg = m.latin1_seg;
        self.utf8_seg = m.utf8_seg;
    }

    /// Before a string of `n` bytes written at byte `at` of `latin1` (or of `utf8`): when
    /// it would end after the current segment, starts a new one there ([`Tape::cut`]).
    #[inline(always)]
    fn segment(&mut self, utf8: bool, at: usize, n: usize) {
        let end = if utf8 {
            self.utf8_seg.end
        } else {
            self.latin1_seg.end
        };
        if at + n > end {
            self.cut(utf8, at, n);
        }
    }

    /// Starts a new segment of `latin1` (or of `utf8`) at byte `at` of the area, for a
    /// string of `n` bytes that would end after the current one: a `T_SEG` word before
    /// the string's word.
    #[cold]
    #[inline(never)]
    fn cut(&mut self, utf8: bool, at: usize, n: usize) {
        let size = if utf8 { UTF8_SEGMENT } else { LATIN1_SEGMENT };
        let seg = Segment {
            start: at,
            end: at.saturating_add(n.max(size)),
        };
        let word = |v: usize| i32::try_from(v).unwrap_or(i32::MAX);
        self.words.push(T_SEG | (i32::from(utf8) << 4));
        self.words.push(word(seg.start));
        self.words.push(word(seg.end - seg.start));
        if utf8 {
            self.utf8_seg = seg;
        } else {
            self.latin1_seg = seg;
        }
    }

    #[inline]
    fn len_word(&mut self, ty: i32, n: usize) {
        // Sizes are at most i32::MAX (the decoder checks), so `n as i32` is exact.
        if (n as u64) < u64::from(LONG) {
            self.words.push(ty | ((n as u32) << 4) as i32);
        } else {
            self.words.push(ty | (LONG << 4) as i32);
            self.words.push(n as i32);
        }
    }

    /// Writes a string: short ASCII ones (most names, labels and values) inline, with
    /// fixed-size copies; any other through [`Tape::long_string`].
    #[inline(always)]
    fn string(&mut self, s: &str) {
        if !self.short_ascii(s.as_bytes()) {
            self.long_string(s);
        }
    }

    /// Writes `b` to `latin1` with its `T_LATIN1` word if it is ASCII of at most 16
    /// bytes; `false` (writing nothing) otherwise. A short string is read and written as
    /// two fixed-size pieces that overlap (the first and the last 8, 4 or 1 bytes), which
    /// also give its ASCII check: no byte loop and no `memcpy` call (`is_ascii` plus
    /// `extend_from_slice` cost about 80 instructions per short string, out of line).
    #[inline(always)]
    fn short_ascii(&mut self, b: &[u8]) -> bool {
        const HIGH: u64 = 0x8080_8080_8080_8080;
        let n = b.len();
        let at = self.latin1.len();
        let ok = if let (Some(head), Some(tail)) = (b.first_chunk::<8>(), b.last_chunk::<8>()) {
            if n > 16 || (u64::from_ne_bytes(*head) | u64::from_ne_bytes(*tail)) & HIGH != 0 {
                return false;
            }
            self.latin1.extend_from_slice(&[0; 16]);
            put(&mut self.latin1, at, head);
            put(&mut self.latin1, at + n - 8, tail);
            true
        } else if let (Some(head), Some(tail)) = (b.first_chunk::<4>(), b.last_chunk::<4>()) {
            if (u32::from_ne_bytes(*head) | u32::from_ne_bytes(*tail)) & (HIGH as u32) != 0 {
                return false;
            }
            self.latin1.extend_from_slice(&[0; 8]);
            put(&mut self.latin1, at, head);
            put(&mut self.latin1, at + n - 4, tail);
            true
        } else {
            // 0 to 3 bytes: the first, middle and last (some of them the same byte).
            let (x, y, z) = match b {
                [] => (0, 0, 0),
                [x, rest @ ..] => (*x, b[n / 2], *rest.last().unwrap_or(x)),
            };
            if (x | y | z) & 0x80 != 0 {
                return false;
            }
            // [x, y, z] is the string for 3 bytes; for 1 and 2 the last byte goes at its
            // place (x and y are already the first and the second).
            self.latin1.extend_from_slice(&[x, y, z]);
            if let Some(last) = n.checked_sub(1).and_then(|l| self.latin1.get_mut(at + l)) {
                *last = z;
            }
            true
        };
        self.latin1.truncate(at + n);
        self.segment(false, at, n);
        self.words.push(T_LATIN1 | ((n as u32) << 4) as i32);
        ok
    }

    /// [`Tape::string`] for any string that is not short ASCII.
    #[inline(never)]
    fn long_string(&mut self, s: &str) {
        if s.is_ascii() {
            self.segment(false, self.latin1.len(), s.len());
            self.latin1.extend_from_slice(s.as_bytes());
            self.len_word(T_LATIN1, s.len());
        } else {
            self.segment(true, self.utf8.len(), s.len());
            self.utf8.extend_from_slice(s.as_bytes());
            self.len_word(T_UTF16, utf16_len(s));
        }
    }

    /// Writes the next complete value of `dec` (one whole value at the top level, or the
    /// next item inside an open container), walking it with the core's visitor, which
    /// also says which strings are map keys so that they can be interned. With
    /// `list_at`, the value must be a list: anything else fails with
    /// [`Fail::NotARecord`] at that offset before anything is written.
    fn value(
        &mut self,
        dec: &mut Decoder<'_>,
        keys: &mut KeyTable,
        list_at: Option<usize>,
    ) -> Result<(), Fail> {
        self.first_value(dec, keys, list_at)?;
        dec.finish().map_err(Fail::from)
    }

    /// [`Tape::value`] without the check that the input ends with the value.
    fn first_value(
        &mut self,
        dec: &mut Decoder<'_>,
        keys: &mut KeyTable,
        list_at: Option<usize>,
    ) -> Result<(), Fail> {
        self.open_since = false;
        let mut writer = TapeWriter {
            tape: self,
            keys,
            want_list: list_at,
        };
        dec.visit_value(&mut writer)
    }

    /// Decodes the value at the start of `input` into the tape, or, when it fails, rolls
    /// back whatever it wrote and writes a `T_ERROR` word instead. With `exact`, the
    /// input must end with the value (`trailing_bytes` otherwise); without, the bytes
    /// after it are left alone and [`Tape::used`] says where the value ended.
    pub(crate) fn whole(
        &mut self,
        input: &[u8],
        opts: DecodeOptions,
        keys: &mut KeyTable,
        exact: bool,
    ) {
        let mark = self.mark(keys);
        let mut dec = Decoder::with_options(input, opts);
        let result = if exact {
            self.value(&mut dec, keys, None)
        } else {
            self.first_value(&mut dec, keys, None)
        };
        if result.is_ok() {
            self.used = dec.position();
        }
        self.commit(mark, keys, result, 0);
    }

    /// Decodes one Bolt message (its bytes, and the stream offset of its first chunk
    /// header) into the tape in the given shape, or, when it
    /// fails, rolls back whatever it wrote and writes a `T_ERROR` word instead.
    ///
    /// `dec` is the caller's decoder, reset to the message here: one decoder serves a
    /// whole batch, so its nesting stack is allocated once, not per message (which
    /// `bolt::inbox::Received::fields`, a fresh decoder each time, would cost on every small
    /// RECORD). The RECORD header is read as `fields` reads it, by the core decoder's
    /// `next_token`, so the decoder accounts for it (depth, element budget, offsets from
    /// the message's first byte) exactly as for the rest of the message.
    pub(crate) fn received<'m>(
        &mut self,
        msg: &'m [u8],
        stream_offset: u64,
        dec: &mut Decoder<'m>,
        keys: &mut KeyTable,
        shape: Shape,
    ) {
        let mark = self.mark(keys);
        let result = match shape {
            Shape::Any => {
                dec.reset(msg);
                self.value(dec, keys, None)
            }
            Shape::Record => self.record_fields(msg, dec, keys),
            Shape::RecordOrAny => match self.record_fields(msg, dec, keys) {
                Err(Fail::NotARecord(_)) => {
                    // Nothing was written: the check fails before the first item.
                    dec.reset(msg);
                    self.value(dec, keys, None)
                }
                other => other,
            },
        };
        self.commit(mark, keys, result, stream_offset);
    }

    /// Writes the field list of a RECORD message (one field, a list). Inlined into
    /// [`Tape::received`]: one call less per message.
    #[inline(always)]
    fn record_fields<'m>(
        &mut self,
        msg: &'m [u8],
        dec: &mut Decoder<'m>,
        keys: &mut KeyTable,
    ) -> Result<(), Fail> {
        dec.reset(msg);
        match dec.next_token()? {
            Token::Struct { tag, len: 1 } if tag == signature::RECORD => {}
            _ => return Err(Fail::NotARecord(0)),
        }
        let at = dec.position();
        self.value(dec, keys, Some(at))
    }

    /// Ends a value or message: on failure, drops what it wrote and records the error.
    /// Inlined into every caller (a message's success costs one count); the failure is
    /// handled out of line by [`Tape::fail`].
    #[inline(always)]
    fn commit(
        &mut self,
        mark: Mark,
        keys: &mut KeyTable,
        result: Result<(), Fail>,
        message_offset: u64,
    ) {
        if let Err(fail) = result {
            self.fail(mark, keys, fail, message_offset);
        }
        self.count += 1;
    }

    /// [`Tape::commit`] of a failed value or message: drops what it wrote and records the
    /// error.
    #[cold]
    #[inline(never)]
    fn fail(&mut self, mark: Mark, keys: &mut KeyTable, fail: Fail, message_offset: u64) {
        self.rollback(mark, keys);
        let (kind, offset, message) = match fail {
            // Any core error, through its kind and offset.
            Fail::Decode(e) => (
                e.kind_name(),
                e.byte_offset()
                    .map_or(0, |o| usize::try_from(o).unwrap_or(usize::MAX)),
                e.to_string(),
            ),
            Fail::NotARecord(at) => (
                "not_a_record",
                at,
                format!(
                    "not a RECORD message at byte {at} (expected a RECORD structure \
                     whose one field is a list)"
                ),
            ),
        };
        self.words
            .push(T_ERROR | ((self.errors.len() as u32) << 4) as i32);
        self.words.push(i32::try_from(offset).unwrap_or(i32::MAX));
        self.errors.push(FailedMessage {
            kind,
            offset,
            message_offset,
            message,
        });
    }

    /// The size in bytes of [`Tape::write_out`]'s output.
    pub(crate) fn out_len(&self) -> usize {
        self.layout().end
    }

    /// Section offsets, in bytes; every section starts 8-byte aligned.
    fn layout(&self) -> Layout {
        let align = |n: usize| (n + 7) & !7;
        let words = HEADER_BYTES;
        let key_lens = align(words + 4 * self.words.len());
        let floats = align(key_lens + 4 * self.key_lens.len());
        let latin1 = floats + 8 * self.floats.len();
        let utf8 = align(latin1 + self.latin1.len());
        let bin = align(utf8 + self.utf8.len());
        let key_bytes = align(bin + self.bin.len());
        let end = align(key_bytes + self.key_bytes.len());
        Layout {
            words,
            key_lens,
            floats,
            latin1,
            utf8,
            bin,
            key_bytes,
            end,
        }
    }

    /// Copies the tape into `out` (at least [`Tape::out_len`] bytes), in native byte
    /// order. The first [`HEADER_BYTES`] bytes are `i32`s:
    ///
    /// | index | meaning |
    /// | --- | --- |
    /// | 0 | status: 0 ok, 1 the stream is broken (see the dechunk error) |
    /// | 1 | number of messages (or values) |
    /// | 2, 3 | `words`: start index (in `i32`s), length |
    /// | 4, 5 | `floats`: start index (in `f64`s), length |
    /// | 6, 7 | `latin1`: start byte, length |
    /// | 8, 9 | `utf8`: start byte, length |
    /// | 10, 11 | `bin`: start byte, length |
    /// | 12, 13 | new keys: start index of their UTF-16 lengths (in `i32`s), count |
    /// | 14, 15 | new keys: start byte of their UTF-8 bytes, length |
    /// | 16 | number of failed messages |
    /// | 17 | id of the first new key (the number of keys interned before the call) |
    /// | 18 | bytes of the input the value took (`decode_value`; 0 otherwise) |
    /// | 19, 20 | the length at most of the first segment of `latin1`, of `utf8` |
    ///
    /// Returns `false` (writing nothing) if `out` is too short.
    pub(crate) fn write_out(&self, out: &mut [u8], status: i32) -> bool {
        let l = self.layout();
        let Some(out) = out.get_mut(..l.end) else {
            return false;
        };
        let n = |v: usize| i32::try_from(v).unwrap_or(i32::MAX);
        let header = [
            status,
            n(self.count as usize),
            n(l.words / 4),
            n(self.words.len()),
            n(l.floats / 8),
            n(self.floats.len()),
            n(l.latin1),
            n(self.latin1.len()),
            n(l.utf8),
            n(self.utf8.len()),
            n(l.bin),
            n(self.bin.len()),
            n(l.key_lens / 4),
            n(self.key_lens.len()),
            n(l.key_bytes),
            n(self.key_bytes.len()),
            n(self.errors.len()),
            n(self.key_base as usize),
            n(self.used),
            n(FIRST_LATIN1_SEGMENT.end),
            n(FIRST_UTF8_SEGMENT.end),
        ];
        put_i32s(out, 0, &header);
        put_i32s(out, l.words, &self.words);
        put_i32s(out, l.key_lens, &self.key_lens);
        for (d, f) in out
            .get_mut(l.floats..)
            .unwrap_or_default()
            .chunks_exact_mut(8)
            .zip(&self.floats)
        {
            d.copy_from_slice(&f.to_ne_bytes());
        }
        put_bytes(out, l.latin1, &self.latin1);
        put_bytes(out, l.utf8, &self.utf8);
        put_bytes(out, l.bin, &self.bin);
        put_bytes(out, l.key_bytes, &self.key_bytes);
        true
    }
}

/// Copies the fixed-size `src` into `v` at `at` (within its length).
#[inline(always)]
fn put<const N: usize>(v: &mut [u8], at: usize, src: &[u8; N]) {
    if let Some(d) = v.get_mut(at..at + N).and_then(<[u8]>::first_chunk_mut::<N>) {
        *d = *src;
    }
}

/// Size of the header of [`Tape::write_out`].
pub(crate) const HEADER_BYTES: usize = 128;

struct Layout {
    words: usize,
    key_lens: usize,
    floats: usize,
    latin1: usize,
    utf8: usize,
    bin: usize,
    key_bytes: usize,
    end: usize,
}

fn put_i32s(out: &mut [u8], at: usize, src: &[i32]) {
    for (d, w) in out
        .get_mut(at..)
        .unwrap_or_default()
        .chunks_exact_mut(4)
        .zip(src)
    {
        d.copy_from_slice(&w.to_ne_bytes());
    }
}

fn put_bytes(out: &mut [u8], at: usize, src: &[u8]) {
    if let Some(d) = out.get_mut(at..at + src.len()) {
        d.copy_from_slice(src);
    }
}

/// Why a value or message could not be written.
pub(crate) enum Fail {
    /// The PackStream is invalid or over a limit.
    Decode(Error),
    /// Valid PackStream, but not a RECORD where one was required (at this offset).
    NotARecord(usize),
}

impl From<Error> for Fail {
    #[inline]
    fn from(e: Error) -> Self {
        Fail::Decode(e)
    }
}

/// Writes the items of a value into the tape as the core's decoder walks it.
struct TapeWriter<'t> {
    tape: &'t mut Tape,
    keys: &'t mut KeyTable,
    /// Until the first item: `Some(offset)` when that item must be a list.
    want_list: Option<usize>,
}

impl TapeWriter<'_> {
    /// A container opens: its word is the next one.
    #[inline]
    fn opened(&mut self) {
        self.tape.last_open = self.tape.words.len();
        self.tape.open_since = true;
    }

    /// Fails when the value had to be a list and this first item is something else.
    #[inline]
    fn not_list(&self) -> Result<(), Fail> {
        match self.want_list {
            None => Ok(()),
            Some(at) => Err(Fail::NotARecord(at)),
        }
    }
}

impl<'a> Visitor<'a> for TapeWriter<'_> {
    type Error = Fail;

    #[inline]
    fn null(&mut self) -> Result<(), Fail> {
        self.not_list()?;
        self.tape.words.push(T_CONST);
        Ok(())
    }
    #[inline]
    fn bool(&mut self, b: bool) -> Result<(), Fail> {
        self.not_list()?;
        self.tape
            .words
            .push(T_CONST | if b { 2 << 4 } else { 1 << 4 });
        Ok(())
    }
    #[inline]
    fn int(&mut self, i: i64) -> Result<(), Fail> {
        self.not_list()?;
        if SMALL_INT.contains(&i) {
            self.tape.words.push(T_INT | ((i as i32) << 4));
        } else {
            self.tape.words.push(T_INT64);
            self.tape.words.push((i >> 32) as i32);
            self.tape.words.push(i as i32);
        }
        Ok(())
    }
    #[inline]
    fn float(&mut self, f: f64) -> Result<(), Fail> {
        self.not_list()?;
        self.tape.words.push(T_FLOAT);
        self.tape.floats.push(f);
        Ok(())
    }
    #[inline]
    fn string(&mut self, s: &'a str, is_key: bool) -> Result<(), Fail> {
        self.not_list()?;
        if is_key {
            if let Some(id) = self.keys.id(s, self.tape) {
                self.tape.words.push(T_KEY | (id << 4) as i32);
                return Ok(());
            }
        }
        self.tape.string(s);
        Ok(())
    }
    #[inline]
    fn bytes(&mut self, b: &'a [u8]) -> Result<(), Fail> {
        self.not_list()?;
        self.tape.bin.extend_from_slice(b);
        self.tape.len_word(T_BYTES, b.len());
        Ok(())
    }
    #[inline]
    fn uuid(&mut self, u: [u8; 16]) -> Result<(), Fail> {
        self.not_list()?;
        self.tape.bin.extend_from_slice(&u);
        self.tape.words.push(T_UUID);
        Ok(())
    }
    #[inline]
    fn list(&mut self, n: u32, _capacity: usize) -> Result<(), Fail> {
        self.want_list = None;
        self.opened();
        self.tape.len_word(T_LIST, n as usize);
        Ok(())
    }
    #[inline]
    fn map(&mut self, n: u32, _capacity: usize) -> Result<(), Fail> {
        self.not_list()?;
        self.opened();
        self.tape.len_word(T_MAP, n as usize);
        Ok(())
    }
    #[inline]
    fn end(&mut self) -> Result<(), Fail> {
        let tape = &mut *self.tape;
        if tape.open_since {
            tape.open_since = false;
            // A list of up to LONG - 1 items: its count is in the word. (A longer list,
            // or a map or structure, stays as it is.)
            if let Some(w) = tape.words.get_mut(tape.last_open) {
                if *w & 15 == T_LIST && (*w as u32) >> 4 != LONG {
                    *w = (*w & !15) | T_FLAT;
                }
            }
        }
        Ok(())
    }
    #[inline]
    fn structure(&mut self, tag: u8, len: u32, _capacity: usize) -> Result<(), Fail> {
        self.not_list()?;
        self.opened();
        // `len` is at most 65 535 (STRUCT_16), so this fits in 24 bits.
        self.tape
            .words
            .push(T_STRUCT | ((u32::from(tag) | (len << 8)) << 4) as i32);
        Ok(())
    }
}
