//! Decoding: a pull API of [`Token`]s and iterative builders of [`ValueRef`] and
//! [`Value`](crate::Value).
//!
//! All decoding reads from a `&'a [u8]` and borrows strings and byte arrays from it. Nothing
//! here recurses: nesting is tracked with an explicit stack, so hostile nesting gives a
//! [`LimitExceeded`](ErrorKind::LimitExceeded) error instead of a stack overflow.

use crate::build::{build, Node};
use crate::error::{Error, ErrorKind};
use crate::limits::DecodeOptions;
use crate::marker as m;
use crate::reader::{err, kind, missing_item, Kind, Reader, Token};
use crate::value::ValueRef;

/// Receives the items of a value walked by [`Decoder::visit_value`], in wire order.
///
/// Containers are announced with their length and a `capacity`: how many items it is
/// safe to pre-allocate for them (the length, capped by what the bytes that remain can
/// hold, so a hostile length never makes a binding over-allocate). Their items follow,
/// then [`Visitor::end`] closes the innermost open container, so a binding that builds
/// host objects needs no counting of its own: the nesting bookkeeping is the decoder's.
///
/// Every method may fail: a binding's own error (an object that could not be created, a
/// hook that raised) stops the walk and is returned by [`Decoder::visit_value`] as it
/// is; decode errors convert into the visitor's error type. The methods are called
/// inline (the walk is generic over the visitor), so a binding can write its own
/// representation — host objects, a tape — at full speed.
pub trait Visitor<'a> {
    /// The visitor's error type; decode errors convert into it.
    type Error: From<Error>;
    /// Null.
    ///
    /// # Errors
    /// The visitor's own.
    fn null(&mut self) -> Result<(), Self::Error>;
    /// A boolean.
    ///
    /// # Errors
    /// The visitor's own.
    fn bool(&mut self, v: bool) -> Result<(), Self::Error>;
    /// An integer.
    ///
    /// # Errors
    /// The visitor's own.
    fn int(&mut self, v: i64) -> Result<(), Self::Error>;
    /// A float.
    ///
    /// # Errors
    /// The visitor's own.
    fn float(&mut self, v: f64) -> Result<(), Self::Error>;
    /// A string, borrowed from the input; `is_key` when it is a map key.
    ///
    /// # Errors
    /// The visitor's own.
    fn string(&mut self, v: &'a str, is_key: bool) -> Result<(), Self::Error>;
    /// A byte array, borrowed from the input.
    ///
    /// # Errors
    /// The visitor's own.
    fn bytes(&mut self, v: &'a [u8]) -> Result<(), Self::Error>;
    /// A UUID (PackStream v2).
    ///
    /// # Errors
    /// The visitor's own.
    fn uuid(&mut self, v: [u8; 16]) -> Result<(), Self::Error>;
    /// A list of `len` items follows; pre-allocate at most `capacity`.
    ///
    /// # Errors
    /// The visitor's own.
    fn list(&mut self, len: u32, capacity: usize) -> Result<(), Self::Error>;
    /// A map of `len` entries follows (key, value, key, value…); pre-allocate at most
    /// `capacity` entries.
    ///
    /// # Errors
    /// The visitor's own.
    fn map(&mut self, len: u32, capacity: usize) -> Result<(), Self::Error>;
    /// A structure with `tag` and `len` fields follows; pre-allocate at most `capacity`.
    ///
    /// # Errors
    /// The visitor's own.
    fn structure(&mut self, tag: u8, len: u32, capacity: usize) -> Result<(), Self::Error>;
    /// The innermost open list, map or structure is complete (called once for each,
    /// empty ones included, right after its last item). The default does nothing.
    ///
    /// # Errors
    /// The visitor's own.
    #[inline]
    fn end(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[derive(Debug, Clone, Copy)]
struct Frame {
    /// Items still to come; for maps, keys and values counted separately.
    remaining: u64,
    is_map: bool,
    /// Offset of the container's marker.
    start: usize,
}

/// [`Decoder`]'s innermost container when none is open.
const NONE_OPEN: Frame = Frame {
    remaining: 0,
    is_map: false,
    start: 0,
};

/// A container [`Decoder::visit_value`] has open, saved while an item inside it is
/// walked: the fields that live in locals while it is the innermost (`remaining`,
/// `is_map`), and those only the rare paths read (`start`, for errors; `below`, for
/// capacity hints).
#[derive(Debug, Clone, Copy, Default)]
struct Saved {
    /// Items still to come after the one being walked.
    remaining: u64,
    /// Offset of the container's marker.
    start: usize,
    /// Item slots promised by the containers around this one.
    below: u64,
    is_map: bool,
}

/// How many levels of [`Decoder::visit_value`]'s walk are saved in an array inside the
/// decoder (deeper ones in a `Vec` the decoder keeps).
const SLOTS: usize = 8;

/// Slot `i` of a walk: in `slots`, or beyond them in `deep` (grown as needed).
#[inline(always)]
fn slot<'s>(slots: &'s mut [Saved; SLOTS], deep: &'s mut Vec<Saved>, i: usize) -> &'s mut Saved {
    match slots.get_mut(i) {
        Some(s) => s,
        None => deep_slot(deep, i - SLOTS),
    }
}

/// [`slot`] beyond the first [`SLOTS`], out of line.
#[inline(never)]
fn deep_slot(deep: &mut Vec<Saved>, j: usize) -> &mut Saved {
    if deep.len() <= j {
        deep.resize(j + 1, Saved::default());
    }
    // `j < deep.len()` now: this cannot panic.
    #[allow(clippy::indexing_slicing)]
    &mut deep[j]
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
    /// The innermost open container, kept out of the `Vec` so that each token reaches it
    /// without the vector's pointer and length; with none open, [`NONE_OPEN`] (nothing
    /// left, never counted down).
    top: Frame,
    /// The containers around `top`, outermost first, and under them [`NONE_OPEN`]: as
    /// many entries as containers are open.
    stack: Vec<Frame>,
    /// [`Decoder::visit_value`]'s saved containers, its first [`SLOTS`] levels. They live
    /// here rather than in a local array so that a walk does not initialise them on each
    /// call (most walks never open a level: a flat list is read without one): every
    /// field a walk reads is one it wrote before in the same walk.
    walk: [Saved; SLOTS],
    /// [`Decoder::visit_value`]'s saved containers beyond its first [`SLOTS`] levels.
    deep: Vec<Saved>,
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
            top: NONE_OPEN,
            stack: Vec::new(),
            walk: [Saved::default(); SLOTS],
            deep: Vec::new(),
        }
    }

    /// Starts over on a new buffer, keeping options and the stack's allocation.
    pub fn reset(&mut self, buf: &'a [u8]) {
        self.reader = Reader::new(buf, self.reader.opts);
        self.stack.clear();
        self.top = NONE_OPEN;
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
        let top = &mut self.top;
        if top.is_map && top.remaining % 2 == 0 && !tok_is_string() {
            return Err(err(ErrorKind::NonStringKey, start, "a string map key"));
        }
        // `NONE_OPEN` stays at 0; an open container has this item left at least.
        top.remaining = top.remaining.saturating_sub(1);
        Ok(())
    }

    /// The innermost open container.
    #[inline]
    fn innermost(&self) -> Option<&Frame> {
        (!self.stack.is_empty()).then_some(&self.top)
    }

    /// Opens `frame` inside the innermost open container.
    #[inline]
    fn open(&mut self, frame: Frame) {
        let outer = core::mem::replace(&mut self.top, frame);
        self.stack.push(outer);
    }

    /// Pops every container whose last item has been read.
    #[inline]
    fn end_items(&mut self) {
        while self.top.remaining == 0 {
            let Some(outer) = self.stack.pop() else {
                break;
            };
            self.top = outer;
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
        let top = self.top;
        let is_key = top.is_map && top.remaining % 2 == 0;
        let (false, Some(&marker)) = (is_key, self.reader.buf.get(start)) else {
            return self.any_token();
        };
        // Scalars and tiny containers (no key expected) are read here: one dispatch on
        // the marker, no second dispatch on the token; the rest by `any_token`.
        let depth = self.stack.len();
        let r = &mut self.reader;
        // As `Reader::token` does: this item fills one promised slot.
        let promised = r.promised;
        r.promised = promised.saturating_sub(1);
        r.pos = start + 1;
        let tok = if marker as i8 >= -16 {
            // Tiny integers: exactly the bytes that are -16 or more as an i8.
            Token::Int(i64::from(marker as i8))
        } else {
            let n = u32::from(marker & 0x0F);
            match kind(marker) {
                Kind::TinyString => Token::String(r.string(start, n)?),
                Kind::Float => Token::Float(r.float(start)?),
                Kind::Int8 | Kind::Int16 | Kind::Int32 | Kind::Int64 => {
                    Token::Int(r.sized_int(start, marker)?)
                }
                Kind::String8 | Kind::String16 | Kind::String32 => {
                    Token::String(r.sized_string(start, marker)?)
                }
                Kind::Null => Token::Null,
                Kind::False => Token::Bool(false),
                Kind::True => Token::Bool(true),
                Kind::TinyList | Kind::TinyMap | Kind::TinyStruct => {
                    r.depth_full = depth as u64 >= u64::from(r.opts.limits.max_depth);
                    let (tok, items, is_map) = match kind(marker) {
                        Kind::TinyList => {
                            let n = r.container(start, n, 1, "list items")?;
                            (Token::List(n), u64::from(n), false)
                        }
                        Kind::TinyMap => {
                            let n = r.container(start, n, 2, "map entries")?;
                            (Token::Map(n), 2 * u64::from(n), true)
                        }
                        _ => {
                            let (tag, len) = r.struct_header(start, n)?;
                            (Token::Struct { tag, len }, u64::from(len), false)
                        }
                    };
                    self.top.remaining = top.remaining.saturating_sub(1);
                    if items > 0 {
                        self.open(Frame {
                            remaining: items,
                            is_map,
                            start,
                        });
                    } else if self.top.remaining == 0 {
                        self.end_items();
                    }
                    return Ok(tok);
                }
                Kind::Other => {
                    r.pos = start;
                    r.promised = promised;
                    return self.any_token();
                }
            }
        };
        // `NONE_OPEN` stays at 0; an open container has this item left at least.
        self.top.remaining = top.remaining.saturating_sub(1);
        if self.top.remaining == 0 {
            self.end_items();
        }
        Ok(tok)
    }

    /// [`Decoder::next_token`] for any token: every check through [`Reader::token`].
    #[inline]
    fn any_token(&mut self) -> Result<Token<'a>, Error> {
        let start = self.reader.pos;
        self.reader.depth_full =
            self.stack.len() as u64 >= u64::from(self.reader.opts.limits.max_depth);
        let tok = self.reader.token().map_err(|e| {
            missing_item(
                e,
                start,
                self.reader.buf.len(),
                self.innermost().map(|f| f.start),
            )
        })?;
        self.begin_item(|| matches!(tok, Token::String(_)), start)?;
        let (len, is_map) = match tok {
            Token::List(n) | Token::Struct { len: n, .. } => (u64::from(n), false),
            Token::Map(n) => (u64::from(n) * 2, true),
            _ => (0, false),
        };
        if len > 0 {
            self.open(Frame {
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
    /// map keys, offsets); the visitor is also told which strings are map keys, how much
    /// to pre-allocate, and when each container ends. Inside an open container it walks
    /// the next item, like [`Decoder::read_value_ref`]. The walk is iterative, so any
    /// depth allowed by the limits is safe for the stack.
    ///
    /// ```
    /// use packstream::{Decoder, Error, Visitor};
    ///
    /// /// Collects a flat, readable trace.
    /// #[derive(Default)]
    /// struct Trace(Vec<String>);
    /// impl Trace {
    ///     fn push(&mut self, s: String) -> Result<(), Error> { self.0.push(s); Ok(()) }
    /// }
    /// impl<'a> Visitor<'a> for Trace {
    ///     type Error = Error;
    ///     fn null(&mut self) -> Result<(), Error> { self.push("null".into()) }
    ///     fn bool(&mut self, v: bool) -> Result<(), Error> { self.push(v.to_string()) }
    ///     fn int(&mut self, v: i64) -> Result<(), Error> { self.push(v.to_string()) }
    ///     fn float(&mut self, v: f64) -> Result<(), Error> { self.push(v.to_string()) }
    ///     fn string(&mut self, v: &'a str, is_key: bool) -> Result<(), Error> {
    ///         self.push(if is_key { format!("{v}:") } else { v.into() })
    ///     }
    ///     fn bytes(&mut self, v: &'a [u8]) -> Result<(), Error> { self.push(format!("{v:?}")) }
    ///     fn uuid(&mut self, _: [u8; 16]) -> Result<(), Error> { self.push("uuid".into()) }
    ///     fn list(&mut self, len: u32, _: usize) -> Result<(), Error> { self.push(format!("list({len})")) }
    ///     fn map(&mut self, len: u32, _: usize) -> Result<(), Error> { self.push(format!("map({len})")) }
    ///     fn structure(&mut self, tag: u8, len: u32, _: usize) -> Result<(), Error> {
    ///         self.push(format!("struct({tag:#x}, {len})"))
    ///     }
    ///     fn end(&mut self) -> Result<(), Error> { self.push("end".into()) }
    /// }
    ///
    /// // {"k": [1, "v"]}
    /// let bytes = [0xA1, 0x81, b'k', 0x92, 0x01, 0x81, b'v'];
    /// let mut trace = Trace::default();
    /// Decoder::new(&bytes).visit_value(&mut trace).unwrap();
    /// assert_eq!(trace.0, ["map(1)", "k:", "list(2)", "1", "v", "end", "end"]);
    /// ```
    ///
    /// # Errors
    /// Any decode error, with its offset, or the visitor's own error. The visitor has then
    /// seen a prefix of the value, and the decoder stops where the error was found.
    #[inline]
    pub fn visit_value<V: Visitor<'a>>(&mut self, visitor: &mut V) -> Result<(), V::Error> {
        // Each item costs one dispatch on its marker, and the nesting state lives in
        // locals (registers) through the loop: the reader is copied out of `self` and
        // back, the innermost container's count (`rem`: the items after the one being
        // read, a map's keys and values counted separately) and kind are locals, and
        // the containers around it are saved in `self.walk` (a small array the decoder
        // keeps, not initialised per call; deeper ones in `self.deep`) only while an
        // item inside them is walked.
        let base = self.stack.len();
        // One more container is allowed while `level < room` (the depth limit, less the
        // containers open around the walk).
        let room = u64::from(self.reader.opts.limits.max_depth).saturating_sub(base as u64);
        let mut r = self.reader.clone();
        // The first item belongs to the container open around the walk, if any: it is
        // counted and key-checked against that frame here, once.
        let first_is_key = {
            // `NONE_OPEN` (no container open) stays at 0 and is no map.
            let f = &mut self.top;
            f.remaining = f.remaining.saturating_sub(1);
            f.is_map && f.remaining % 2 == 1
        };
        if first_is_key {
            return self.visit_key(r, room, visitor);
        }
        // Level 0 stands for the walk itself: nothing follows its one item. It records
        // the item slots the frames on the stack still promise, for capacity hints (the
        // reader counts them per token; the walk only when a container opens).
        self.walk[0].below = r.promised.saturating_sub(1);
        let mut level = 0usize;
        let mut rem = 0u64;
        let mut is_map = false;

        /// `?` inside the walk: stop it with the error, converted.
        macro_rules! tri {
            ($walk:lifetime, $e:expr) => {
                match $e {
                    Ok(v) => v,
                    Err(e) => break $walk Err(e.into()),
                }
            };
        }
        /// The item slots promised beside a container opened now: those of every open
        /// container, less the one item being read.
        macro_rules! others {
            () => {
                slot(&mut self.walk, &mut self.deep, level).below + rem
            };
        }
        /// Saves the innermost container and makes the one whose header was read at
        /// `$start` the innermost, with `$rem` items after the one about to be walked.
        macro_rules! push {
            ($rem:expr, $map:expr, $start:expr) => {{
                let parent = slot(&mut self.walk, &mut self.deep, level);
                parent.remaining = rem;
                parent.is_map = is_map;
                let below = parent.below + rem;
                level += 1;
                let top = slot(&mut self.walk, &mut self.deep, level);
                top.start = $start;
                top.below = below;
                rem = $rem;
                is_map = $map;
            }};
        }
        /// Opens a container of `$items` items whose header was read at `$start`, and
        /// goes on with its first item; an empty one ends at once.
        macro_rules! open {
            ($walk:lifetime, $items:expr, $map:expr, $start:expr) => {{
                let items: u64 = $items;
                if items > 0 {
                    push!(items - 1, $map, $start);
                    continue $walk;
                }
                tri!($walk, visitor.end());
            }};
        }

        /// After a list header (`$n` items, read at `$start`): its leading scalars
        /// (numbers, tiny strings, null, booleans: most lists hold nothing else) are
        /// walked here, in a tight loop with no frame opened for them; the frame is
        /// opened for the rest, if any, at the first other item or at an error, so that
        /// the decoder's state is then exactly that of the general walk.
        macro_rules! scalars {
            ($walk:lifetime, $n:expr, $start:expr) => {{
                let n: u32 = $n;
                let start: usize = $start;
                let mut done = 0u32;
                while done < n {
                    let at = r.pos;
                    let Some(&mk) = r.buf.get(at) else { break };
                    r.pos = at + 1;
                    let item: Result<(), V::Error> = if mk as i8 >= -16 {
                        visitor.int(i64::from(mk as i8))
                    } else {
                        match kind(mk) {
                            Kind::Int8 | Kind::Int16 | Kind::Int32 | Kind::Int64 => {
                                match r.sized_int(at, mk) {
                                    Ok(i) => visitor.int(i),
                                    Err(e) => Err(e.into()),
                                }
                            }
                            Kind::Float => match r.float(at) {
                                Ok(f) => visitor.float(f),
                                Err(e) => Err(e.into()),
                            },
                            Kind::TinyString => match r.string(at, u32::from(mk & 0x0F)) {
                                Ok(s) => visitor.string(s, false),
                                Err(e) => Err(e.into()),
                            },
                            Kind::Null => visitor.null(),
                            Kind::False => visitor.bool(false),
                            Kind::True => visitor.bool(true),
                            _ => {
                                r.pos = at;
                                break;
                            }
                        }
                    };
                    done += 1;
                    if let Err(e) = item {
                        // As the general walk stops inside the list: open,
                        // with the items after this one still to come.
                        push!(u64::from(n - done), false, start);
                        break $walk Err(e);
                    }
                }
                open!($walk, u64::from(n - done), false, start);
            }};
        }

        let result: Result<(), V::Error> = 'walk: loop {
            let start = r.pos;
            let Some(&marker) = r.buf.get(start) else {
                let container = if level > 0 {
                    Some(slot(&mut self.walk, &mut self.deep, level).start)
                } else {
                    self.innermost().map(|f| f.start)
                };
                break 'walk Err(no_marker(start, container).into());
            };
            r.pos = start + 1;
            if is_map && rem % 2 == 1 {
                let key = tri!('walk, key(&mut r, start, marker, level as u64 >= room));
                tri!('walk, visitor.string(key, true));
            } else if marker as i8 >= -16 {
                // Tiny integers, 0x00..=0x7F and 0xF0..=0xFF: exactly the bytes that
                // are -16 or more as an i8, and that is their value.
                tri!('walk, visitor.int(i64::from(marker as i8)));
            } else {
                let n = u32::from(marker & 0x0F);
                match kind(marker) {
                    Kind::TinyString => {
                        let s = tri!('walk, r.string(start, n));
                        tri!('walk, visitor.string(s, false));
                    }
                    Kind::Float => {
                        let f = tri!('walk, r.float(start));
                        tri!('walk, visitor.float(f));
                    }
                    Kind::Int8 | Kind::Int16 | Kind::Int32 | Kind::Int64 => {
                        let i = tri!('walk, r.sized_int(start, marker));
                        tri!('walk, visitor.int(i));
                    }
                    Kind::String8 | Kind::String16 | Kind::String32 => {
                        let s = tri!('walk, r.sized_string(start, marker));
                        tri!('walk, visitor.string(s, false));
                    }
                    Kind::Null => tri!('walk, visitor.null()),
                    Kind::False => tri!('walk, visitor.bool(false)),
                    Kind::True => tri!('walk, visitor.bool(true)),
                    Kind::TinyList => {
                        r.depth_full = level as u64 >= room;
                        let n = tri!('walk, r.container(start, n, 1, "list items"));
                        tri!('walk, visitor.list(n, r.capacity_beside(n, 1, others!())));
                        scalars!('walk, n, start);
                    }
                    Kind::TinyMap => {
                        r.depth_full = level as u64 >= room;
                        let n = tri!('walk, r.container(start, n, 2, "map entries"));
                        tri!('walk, visitor.map(n, r.capacity_beside(n, 2, others!())));
                        open!('walk, 2 * u64::from(n), true, start);
                    }
                    Kind::TinyStruct => {
                        r.depth_full = level as u64 >= room;
                        let (tag, n) = tri!('walk, r.struct_header(start, n));
                        let capacity = r.capacity_beside(n, 1, others!());
                        tri!('walk, visitor.structure(tag, n, capacity));
                        open!('walk, u64::from(n), false, start);
                    }
                    Kind::Other => {
                        // Byte arrays, sized lists and maps, UUIDs, legacy structures
                        // and reserved markers: the whole token, out of line.
                        r.pos = start;
                        r.depth_full = level as u64 >= room;
                        match tri!('walk, token_beside(&mut r)) {
                            Token::Bytes(b) => tri!('walk, visitor.bytes(b)),
                            Token::Uuid(u) => tri!('walk, visitor.uuid(u)),
                            Token::List(n) => {
                                let capacity = r.capacity_beside(n, 1, others!());
                                tri!('walk, visitor.list(n, capacity));
                                scalars!('walk, n, start);
                            }
                            Token::Map(n) => {
                                let capacity = r.capacity_beside(n, 2, others!());
                                tri!('walk, visitor.map(n, capacity));
                                open!('walk, 2 * u64::from(n), true, start);
                            }
                            Token::Struct { tag, len } => {
                                let capacity = r.capacity_beside(len, 1, others!());
                                tri!('walk, visitor.structure(tag, len, capacity));
                                open!('walk, u64::from(len), false, start);
                            }
                            // Never produced by these markers; handled all the same.
                            Token::Null => tri!('walk, visitor.null()),
                            Token::Bool(b) => tri!('walk, visitor.bool(b)),
                            Token::Int(i) => tri!('walk, visitor.int(i)),
                            Token::Float(f) => tri!('walk, visitor.float(f)),
                            Token::String(s) => tri!('walk, visitor.string(s, false)),
                        }
                    }
                }
            }
            // The item is complete: close every container of the walk it completed
            // (level 0 has nothing after its one item: the walk is done).
            while rem == 0 {
                if level == 0 {
                    break 'walk Ok(());
                }
                tri!('walk, visitor.end());
                level -= 1;
                let parent = slot(&mut self.walk, &mut self.deep, level);
                rem = parent.remaining;
                is_map = parent.is_map;
            }
            rem -= 1;
        };
        r.promised = slot(&mut self.walk, &mut self.deep, level).below + rem;
        // `r` is a copy of `self.reader` that read on: only what reading changes goes back.
        self.reader.catch_up(&r);
        match result {
            Ok(()) => {
                // The containers around the walk whose last item this was are complete.
                self.end_items();
                Ok(())
            }
            Err(e) => {
                self.keep_open(level, rem, is_map);
                Err(e)
            }
        }
    }

    /// [`Decoder::visit_value`] when the item is a map key.
    #[inline(never)]
    fn visit_key<V: Visitor<'a>>(
        &mut self,
        mut r: Reader<'a>,
        room: u64,
        visitor: &mut V,
    ) -> Result<(), V::Error> {
        let start = r.pos;
        // The key fills one promised slot.
        let promised = r.promised.saturating_sub(1);
        let result = match r.buf.get(start) {
            None => Err(no_marker(start, self.innermost().map(|f| f.start))),
            Some(&marker) => {
                r.pos = start + 1;
                key(&mut r, start, marker, room == 0)
            }
        };
        r.promised = promised;
        self.reader = r;
        visitor.string(result?, true)?;
        self.end_items();
        Ok(())
    }

    /// After a walk stopped by an error: the containers it had opened stay open, as
    /// [`Decoder::next_token`] would have left them.
    #[cold]
    #[inline(never)]
    fn keep_open(&mut self, level: usize, rem: u64, is_map: bool) {
        for i in 1..=level {
            let saved = match self.walk.get(i) {
                Some(s) => *s,
                None => self.deep.get(i - SLOTS).copied().unwrap_or_default(),
            };
            let remaining = if i == level { rem } else { saved.remaining };
            let is_map = if i == level { is_map } else { saved.is_map };
            self.open(Frame {
                remaining,
                is_map,
                start: saved.start,
            });
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
            .innermost()
            .is_some_and(|top| top.is_map && top.remaining % 2 == 0);
        let container = self.innermost().map(|f| f.start);
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

/// [`Reader::token`] out of line, for the markers [`Decoder::visit_value`] does not read
/// itself (rare in Bolt traffic).
/// Takes and gives back the reader by value, so that the caller's reader (a local kept
/// in registers) never has its address taken.
#[inline(never)]
fn token_out_of_line<'a>(mut r: Reader<'a>) -> (Reader<'a>, Result<Token<'a>, Error>) {
    let tok = r.token();
    (r, tok)
}

/// A map key: a string, else [`ErrorKind::NonStringKey`] (after the checks any token
/// gets, so a container key at the depth limit is a limit error as for other items).
/// The marker was read at `start`; `depth_full` says whether a container would be too
/// deep.
#[inline(always)]
fn key<'a>(
    r: &mut Reader<'a>,
    start: usize,
    marker: u8,
    depth_full: bool,
) -> Result<&'a str, Error> {
    if marker & 0xF0 == m::TINY_STRING {
        return r.string(start, u32::from(marker & 0x0F));
    }
    r.pos = start;
    r.depth_full = depth_full;
    match token_beside(r)? {
        Token::String(s) => Ok(s),
        _ => Err(non_string_key(start)),
    }
}

/// [`token_out_of_line`] on `r` in place.
#[inline(always)]
fn token_beside<'a>(r: &mut Reader<'a>) -> Result<Token<'a>, Error> {
    let (after, tok) = token_out_of_line(r.clone());
    *r = after;
    tok
}

/// The input ended where an item's marker was due: inside a container, that container
/// is the item that could not be completed.
#[cold]
#[inline(never)]
fn no_marker(start: usize, container: Option<usize>) -> Error {
    match container {
        Some(at) => Error::new(ErrorKind::UnexpectedEnd, at, "more container items"),
        None => Error::new(ErrorKind::UnexpectedEnd, start, "a marker byte"),
    }
}

#[cold]
#[inline(never)]
fn non_string_key(start: usize) -> Error {
    Error::new(ErrorKind::NonStringKey, start, "a string map key")
}
