//! Building value trees from tokens.
//!
//! Shallow nesting (the common case) is built by plain recursion, which is fastest; a
//! subtree that starts deeper than [`RECURSION_DEPTH`] is built by an iterative loop with an
//! explicit stack. Stack use is therefore bounded whatever the input and the limits are.

use crate::error::{Error, ErrorKind};
use crate::limits::DecodeOptions;
use crate::marker as m;
use crate::reader::{kind, missing_item, short_ascii, Kind, Reader, Token};
use crate::scratch::{self, Lease};
use crate::value::{StructRef, Structure, Value, ValueRef};

/// Containers nested deeper than this are built iteratively. An unoptimised build spends
/// about 4 KiB of stack per level here (an optimised one about 500 bytes), and a
/// 256 KiB thread stack must be enough for any input (test
/// `a_million_nested_levels_overflowed_the_stack_in_clone_eq_display_and_drop`).
///
/// The decoding functions are forced inline only in optimised builds (`cfg_attr` on
/// each): unoptimised, forced inlining gives every marker's temporaries their own slots
/// in one frame, about 45 KiB per level.
const RECURSION_DEPTH: u64 = if cfg!(debug_assertions) { 4 } else { 48 };

/// A tree node type that can be built from tokens: [`ValueRef`] or [`Value`].
pub(crate) trait Node<'a>: Sized {
    /// The map key type.
    type Key;
    /// Whether strings and byte arrays are copied into allocations of their own.
    const OWNS_STRINGS: bool;
    /// A node for a token that is not a container header.
    fn scalar(tok: Token<'a>) -> Self;
    /// A map key.
    fn key(s: &'a str) -> Self::Key;
    /// A list.
    fn list(items: Vec<Self>) -> Self;
    /// A map.
    fn map(entries: Vec<(Self::Key, Self)>) -> Self;
    /// A structure.
    fn structure(tag: u8, fields: Vec<Self>) -> Self;
}

/// `$ty { tag: $tag, fields: $fields }` ([`StructRef`] or [`Structure`]), with the
/// tag's word written whole: the tag byte and the padding after it as one `u64`, when
/// the layout is the expected one (the fields' vector in the first 24 bytes, the tag at
/// 24, 32 bytes in all; checked at compile time, else built as usual). Built as usual,
/// the tag was stored as one byte beside undefined padding, and the compiler then moved
/// that word in 1-, 2- and 4-byte parts; the first whole read of the node (its move out
/// of the builder) waited on them, a store-forwarding stall per structure.
macro_rules! tag_word {
    ($name:ident, $ty:ty, $layout:ty, $tag:expr, $fields:expr) => {{
        let (tag, fields) = ($tag, $fields);
        // `$layout`: the same type with `'static` for its lifetime, which a constant can
        // name (a lifetime does not change the layout).
        const WHOLE: bool = core::mem::size_of::<$layout>() == 32
            && core::mem::offset_of!($layout, fields) == 0
            && core::mem::size_of::<Vec<()>>() == 24
            && core::mem::offset_of!($layout, tag) == 24;
        if WHOLE {
            let mut node = core::mem::MaybeUninit::<$ty>::uninit();
            let p = node.as_mut_ptr();
            #[allow(unsafe_code)]
            // SAFETY: `p` points to the local, aligned `node`. Its bytes 24..32 hold the
            // tag (at 24) and padding (`WHOLE`: the fields' vector ends at 24 and the
            // node at 32), so the one `u64` written there initialises the tag, and its
            // other bytes land in padding; the vector is written at offset 0 through a
            // raw field pointer. Every field is then initialised for `assume_init`.
            unsafe {
                p.cast::<u8>()
                    .add(24)
                    .cast::<u64>()
                    .write_unaligned(u64::from_ne_bytes([tag, 0, 0, 0, 0, 0, 0, 0]));
                core::ptr::addr_of_mut!((*p).fields).write(fields);
                node.assume_init()
            }
        } else {
            $name { tag, fields }
        }
    }};
}

impl<'a> Node<'a> for ValueRef<'a> {
    type Key = &'a str;
    const OWNS_STRINGS: bool = false;
    #[inline]
    fn scalar(tok: Token<'a>) -> Self {
        match tok {
            Token::Null => ValueRef::Null,
            Token::Bool(b) => ValueRef::Bool(b),
            Token::Int(i) => ValueRef::Int(i),
            Token::Float(f) => ValueRef::Float(f),
            Token::String(s) => ValueRef::String(s),
            Token::Bytes(b) => ValueRef::Bytes(b),
            Token::Uuid(u) => ValueRef::Uuid(u),
            Token::List(_) => ValueRef::List(Vec::new()),
            Token::Map(_) => ValueRef::Map(Vec::new()),
            Token::Struct { tag, .. } => ValueRef::Struct(StructRef {
                tag,
                fields: Vec::new(),
            }),
        }
    }
    #[inline]
    fn key(s: &'a str) -> &'a str {
        s
    }
    #[inline]
    fn list(items: Vec<Self>) -> Self {
        ValueRef::List(items)
    }
    #[inline]
    fn map(entries: Vec<(&'a str, Self)>) -> Self {
        ValueRef::Map(entries)
    }
    #[inline]
    fn structure(tag: u8, fields: Vec<Self>) -> Self {
        ValueRef::Struct(tag_word!(
            StructRef,
            StructRef<'a>,
            StructRef<'static>,
            tag,
            fields
        ))
    }
}

impl<'a> Node<'a> for Value {
    type Key = String;
    const OWNS_STRINGS: bool = true;
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scalar(tok: Token<'a>) -> Self {
        match tok {
            Token::Null => Value::Null,
            Token::Bool(b) => Value::Bool(b),
            Token::Int(i) => Value::Int(i),
            Token::Float(f) => Value::Float(f),
            Token::String(s) => Value::String(s.to_owned()),
            Token::Bytes(b) => Value::Bytes(b.to_vec()),
            Token::Uuid(u) => Value::Uuid(u),
            Token::List(_) => Value::List(Vec::new()),
            Token::Map(_) => Value::Map(Vec::new()),
            Token::Struct { tag, .. } => Value::Struct(Structure::new(tag, Vec::new())),
        }
    }
    #[inline]
    fn key(s: &'a str) -> String {
        s.to_owned()
    }
    #[inline]
    fn list(items: Vec<Self>) -> Self {
        Value::List(items)
    }
    #[inline]
    fn map(entries: Vec<(String, Self)>) -> Self {
        Value::Map(entries)
    }
    #[inline]
    fn structure(tag: u8, fields: Vec<Self>) -> Self {
        Value::Struct(tag_word!(Structure, Structure, Structure, tag, fields))
    }
}

/// What the items of one container (or the one top-level value) share: where they sit,
/// for their errors, limits and pre-allocation.
struct Items {
    /// Containers open around the items.
    depth: u64,
    max_depth: u64,
    /// Offset of the innermost open container's marker, if any.
    container: Option<usize>,
    /// Item slots the containers around this one still hold: what a nested container's
    /// pre-allocation must leave to them, with the slots of this container's items that
    /// follow it (`per_item` each; a map entry is two). The reader counts the same per
    /// token for its other users; the builders count it per container.
    others: u64,
    per_item: u64,
}

/// Where [`item`] puts the node it read.
trait Out<N> {
    /// What [`item`] returns.
    type Done;
    fn put(self, node: N) -> Self::Done;
    /// Puts a list, or a structure with `tag`, of `items`.
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn put_items<'a>(self, tag: Option<u8>, items: Vec<N>) -> Self::Done
    where
        N: Node<'a>,
        Self: Sized,
    {
        self.put(node(tag, reassembled(items)))
    }
}

impl<N> Out<N> for &mut Vec<N> {
    type Done = ();
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn put(self, node: N) {
        push(self, node);
    }
    /// Writes the node straight into its slot, one write per variant: a node that may be
    /// either variant was built in a stack temporary in 8-byte parts and copied into the
    /// vector in 16-byte parts, a store-forwarding stall per container.
    #[cfg_attr(not(debug_assertions), inline(always))]
    #[allow(unsafe_code)]
    fn put_items<'a>(self, tag: Option<u8>, items: Vec<N>)
    where
        N: Node<'a>,
    {
        if self.len() == self.capacity() {
            grow_one(self);
        }
        let len = self.len();
        // Always a slot: the vector was grown when full.
        if let Some(slot) = self.spare_capacity_mut().first_mut() {
            let items = reassembled(items);
            match tag {
                Some(tag) => slot.write(N::structure(tag, items)),
                None => slot.write(N::list(items)),
            };
            // SAFETY: the slot at `len`, the first spare one, was just initialised, so
            // the first `len + 1` items are; and `len + 1 <= capacity` since the slot
            // exists.
            unsafe { self.set_len(len + 1) };
        }
    }
}

/// `items` taken apart and put together again from its pointer, length and capacity.
/// A vector the builder filled lives in a stack slot, its three words stored one by one;
/// moved as a whole into a node, it was read back in 16-byte parts, a store-forwarding
/// stall per container. Its parts are read one word each.
#[cfg_attr(not(debug_assertions), inline(always))]
#[allow(unsafe_code)]
fn reassembled<N>(items: Vec<N>) -> Vec<N> {
    let mut items = core::mem::ManuallyDrop::new(items);
    let (ptr, len, capacity) = (items.as_mut_ptr(), items.len(), items.capacity());
    // SAFETY: the parts of a vector that is never used or dropped again (`ManuallyDrop`),
    // so the new vector is the only owner of its allocation and items.
    unsafe { Vec::from_raw_parts(ptr, len, capacity) }
}

/// Room for one more item in a full vector.
#[cold]
#[inline(never)]
fn grow_one<N>(items: &mut Vec<N>) {
    items.reserve(1);
}

/// `items.push(node)`, always inlined: the standard `push` was left out of line for
/// [`Value`] nodes, a call per container put into its parent. Growing is out of line:
/// with the `reserve` call between building the node and storing it, the node was kept
/// in a stack temporary, written in 8-byte parts and copied in 16-byte parts, a
/// store-forwarding stall per container.
#[cfg_attr(not(debug_assertions), inline(always))]
#[allow(unsafe_code)]
fn push<N>(items: &mut Vec<N>, node: N) {
    let len = items.len();
    match items.spare_capacity_mut().first_mut() {
        Some(slot) => {
            slot.write(node);
            // SAFETY: the slot at `len`, the first spare one, was just initialised, so
            // the first `len + 1` items are; and `len + 1 <= capacity` since the slot
            // exists.
            unsafe { items.set_len(len + 1) };
        }
        None => push_grown(items, node),
    }
}

/// [`push`] into a full vector.
#[cold]
#[inline(never)]
fn push_grown<N>(items: &mut Vec<N>, node: N) {
    items.push(node);
}

/// A map entry whose key has been read.
struct Entry<'v, K, N> {
    entries: &'v mut Vec<(K, N)>,
    key: K,
}

impl<K, N> Out<N> for Entry<'_, K, N> {
    type Done = ();
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn put(self, node: N) {
        self.entries.push((self.key, node));
    }
}

/// The one top-level value: returned.
struct Return;

impl<N> Out<N> for Return {
    type Done = N;
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn put(self, node: N) -> N {
        node
    }
}

/// Builds one complete value. `depth` containers are already open around it (their
/// innermost starts at `container`); `key_expected` says the value sits in a map-key
/// position and so must be a string.
pub(crate) fn build<'a, N: Node<'a>>(
    r: &mut Reader<'a>,
    depth: u64,
    max_depth: u64,
    container: Option<usize>,
    key_expected: bool,
) -> Result<N, Error> {
    // The value fills one of the slots the reader counts as promised.
    let others = r.promised.saturating_sub(1);
    let value = if key_expected {
        N::scalar(Token::String(key(r, depth, max_depth, container)?))
    } else {
        let at = Items {
            depth,
            max_depth,
            container,
            others,
            per_item: 0,
        };
        item(r, &at, 0, Return)?
    };
    r.promised = others;
    Ok(value)
}

/// The error for an item whose marker is missing because the input ended at `start`.
/// Never inlined: inlined, its set-up was hoisted before every container's loop.
#[cold]
#[inline(never)]
fn missing(start: usize, container: Option<usize>) -> Error {
    let e = Error::new(ErrorKind::UnexpectedEnd, start, "a marker byte");
    missing_item(e, start, start, container)
}

/// Reads one item of `at` (`left` more follow it) and puts its node into `out`. The
/// markers of most items are handled here directly; the rest go through
/// [`Reader::token`].
#[cfg_attr(not(debug_assertions), inline(always))]
fn item<'a, N: Node<'a>, O: Out<N>>(
    r: &mut Reader<'a>,
    at: &Items,
    left: u32,
    out: O,
) -> Result<O::Done, Error> {
    let start = r.pos;
    let Some(&marker) = r.buf.get(start) else {
        return Err(missing(start, at.container));
    };
    r.pos = start + 1;
    // Tiny integers, 0x00..=0x7F and 0xF0..=0xFF: exactly the bytes that are -16 or
    // more as an i8, and that is their value.
    if marker as i8 >= -16 {
        return Ok(out.put(N::scalar(Token::Int(i64::from(marker as i8)))));
    }
    // One put per variant, so each node is written straight into its vector (a shared
    // temporary costs a store-forwarding stall per item).
    Ok(match kind(marker) {
        Kind::TinyString => {
            let s = r.string(start, u32::from(marker & 0x0F))?;
            out.put(N::scalar(Token::String(s)))
        }
        Kind::Float => out.put(N::scalar(Token::Float(r.float(start)?))),
        Kind::Int8 => {
            let v = i8::from_be_bytes(r.array(start, "1 byte of INT_8")?);
            out.put(N::scalar(Token::Int(i64::from(v))))
        }
        Kind::Int16 => {
            let v = i16::from_be_bytes(r.array(start, "2 bytes of INT_16")?);
            out.put(N::scalar(Token::Int(i64::from(v))))
        }
        Kind::Int32 => {
            let v = i32::from_be_bytes(r.array(start, "4 bytes of INT_32")?);
            out.put(N::scalar(Token::Int(i64::from(v))))
        }
        Kind::Int64 => {
            let v = i64::from_be_bytes(r.array(start, "8 bytes of INT_64")?);
            out.put(N::scalar(Token::Int(v)))
        }
        Kind::String8 | Kind::String16 | Kind::String32 => {
            out.put(N::scalar(Token::String(r.sized_string(start, marker)?)))
        }
        Kind::Null => out.put(N::scalar(Token::Null)),
        Kind::False => out.put(N::scalar(Token::Bool(false))),
        Kind::True => out.put(N::scalar(Token::Bool(true))),
        Kind::TinyList => {
            r.depth_full = at.depth >= at.max_depth;
            let n = r.container(start, u32::from(marker & 0x0F), 1, "list items")?;
            container::<_, _, false>(r, Token::List(n), start, at, left, out)?
        }
        Kind::TinyStruct => {
            r.depth_full = at.depth >= at.max_depth;
            let tok = r.structure(start, u32::from(marker & 0x0F))?;
            container::<_, _, false>(r, tok, start, at, left, out)?
        }
        Kind::TinyMap => {
            r.depth_full = at.depth >= at.max_depth;
            let n = r.container(start, u32::from(marker & 0x0F), 2, "map entries")?;
            container::<_, _, false>(r, Token::Map(n), start, at, left, out)?
        }
        Kind::Other => {
            r.pos = start;
            r.depth_full = at.depth >= at.max_depth;
            match other_token(r)? {
                tok @ (Token::List(_) | Token::Map(_) | Token::Struct { .. }) => {
                    container::<_, _, true>(r, tok, start, at, left, out)?
                }
                tok => out.put(N::scalar(tok)),
            }
        }
    })
}

/// [`Reader::token`] out of line, for the markers [`item`] does not read itself (rare
/// in Bolt traffic): inlined, its code made every container's loop heavier.
#[inline(never)]
fn other_token<'a>(r: &mut Reader<'a>) -> Result<Token<'a>, Error> {
    r.token()
}

/// A map key: a string, else [`ErrorKind::NonStringKey`] (after the checks any token
/// gets, so a container key at the depth limit is a limit error as for other items).
#[cfg_attr(not(debug_assertions), inline(always))]
fn key<'a>(
    r: &mut Reader<'a>,
    depth: u64,
    max_depth: u64,
    container: Option<usize>,
) -> Result<&'a str, Error> {
    let start = r.pos;
    let Some(&marker) = r.buf.get(start) else {
        return Err(missing(start, container));
    };
    if marker & 0xF0 == m::TINY_STRING {
        r.pos = start + 1;
        return r.string(start, u32::from(marker & 0x0F));
    }
    r.depth_full = depth >= max_depth;
    match other_token(r)? {
        Token::String(s) => Ok(s),
        _ => Err(non_string_key(start)),
    }
}

#[cold]
#[inline(never)]
fn non_string_key(start: usize) -> Error {
    Error::new(ErrorKind::NonStringKey, start, "a string map key")
}

/// Puts into `out` the node for the container header `tok` read at `start`, an item of
/// `at` with `left` items after it: an empty container, or one whose items are read now
/// by [`items`] or [`entries`] (the only functions that recurse), or below
/// [`RECURSION_DEPTH`] levels by [`deep`].
#[cfg_attr(not(debug_assertions), inline(always))]
fn container<'a, N: Node<'a>, O: Out<N>, const SIZED: bool>(
    r: &mut Reader<'a>,
    tok: Token<'a>,
    start: usize,
    at: &Items,
    left: u32,
    out: O,
) -> Result<O::Done, Error> {
    let (n, per_item) = match tok {
        Token::Map(n) if n > 0 => (n, 2),
        Token::List(n) | Token::Struct { len: n, .. } if n > 0 => (n, 1),
        tok => return Ok(out.put(N::scalar(tok))),
    };
    let others = at.others + u64::from(left) * at.per_item;
    if at.depth >= RECURSION_DEPTH {
        // `deep` reads through the reader, which counts the promised slots per token.
        r.promised = others + u64::from(n) * per_item;
        return Ok(out.put(deep(r, tok, start, at.depth, at.max_depth)?));
    }
    let inner = |per_item| Items {
        depth: at.depth + 1,
        max_depth: at.max_depth,
        container: Some(start),
        others,
        per_item,
    };
    let tag = match tok {
        Token::Map(_) => return entries(r, &inner(2), n, out),
        Token::Struct { tag, .. } => Some(tag),
        _ => None,
    };
    // Only a sized header (not a tiny one, at most 15 items) can hold a large container.
    if SIZED && scratch::is_large::<N>(n as usize) && first_allocates::<N>(r) {
        return gathered(r, &inner(1), n, tag, out);
    }
    // A list or structure of scalars (the innermost lists, a RECORD's fields) is read
    // here, straight-line, without a call; the first item that is not a plain scalar
    // hands the rest to `items`.
    let mut list = Vec::with_capacity(r.capacity_beside(n, 1, others));
    let left = scalars(r, &mut list, n);
    if left == 0 {
        return Ok(out.put_items(tag, list));
    }
    items(r, &inner(1), left, list, tag, out)
}

/// Whether the item at the reader's position will allocate: a container, a string or
/// byte array of an owned tree, or a rare marker. A large list or structure goes through
/// the scratch only then, judged by its first item as Bolt's lists are mostly of one
/// kind: for a list of scalars the order of allocations does not matter, and the copy
/// out of the scratch would be wasted. [`Drop`] judges by the first item too.
#[cfg_attr(not(debug_assertions), inline(always))]
fn first_allocates<'a, N: Node<'a>>(r: &Reader<'a>) -> bool {
    match r.buf.get(r.pos) {
        Some(&marker) if marker as i8 >= -16 => false,
        Some(&marker) => match kind(marker) {
            Kind::TinyList | Kind::TinyMap | Kind::TinyStruct | Kind::Other => true,
            Kind::TinyString | Kind::String8 | Kind::String16 | Kind::String32 => N::OWNS_STRINGS,
            _ => false,
        },
        None => false,
    }
}

/// Reads the `n` items of a large list, or of a structure with `tag` (see
/// [`scratch`]), whose items share `inner`, into the thread's scratch,
/// then moves them into a vector of exactly their number, allocated after every child,
/// and puts the node into `out`. When the scratch is taken (by an enclosing container),
/// the vector is allocated first, as for any other container.
#[inline(never)]
fn gathered<'a, N: Node<'a>, O: Out<N>>(
    r: &mut Reader<'a>,
    inner: &Items,
    n: u32,
    tag: Option<u8>,
    out: O,
) -> Result<O::Done, Error> {
    // No straight-line `scalars` loop here (the first item is not a scalar): each copy
    // of it inlined more copies of `Value`'s string copy, and LLVM then left that
    // (`try_allocate_in`) or `Value`'s `scalar` out of line everywhere, +4% to +12%
    // instructions on the owned workloads.
    let Some(mut lease) = Lease::<N>::take() else {
        let list = Vec::with_capacity(r.capacity_beside(n, 1, inner.others));
        return items(r, inner, n, list, tag, out);
    };
    let held = lease.items();
    // At most `n`, which `is_large` bounds; exact, so that the scratch never grows past
    // the largest such container (`reserve` could double it past the bound, and a
    // scratch past the bound is freed when given back, then allocated again).
    held.reserve_exact(r.capacity_beside(n, 1, inner.others));
    // On an error the lease drops the items read so far and gives the scratch back.
    fill(r, inner, n, held)?;
    let mut list = Vec::with_capacity(held.len());
    list.append(held);
    drop(lease);
    Ok(out.put_items(tag, list))
}

/// A list, or a structure with `tag`.
#[cfg_attr(not(debug_assertions), inline(always))]
fn node<'a, N: Node<'a>>(tag: Option<u8>, items: Vec<N>) -> N {
    match tag {
        Some(tag) => N::structure(tag, items),
        None => N::list(items),
    }
}

/// Reads the last `left` items of a list, or of a structure with `tag`, whose items
/// share `inner` and whose first items are in `items`, and puts the node into `out`
/// (the parent's vector directly).
#[inline(never)]
fn items<'a, N: Node<'a>, O: Out<N>>(
    r: &mut Reader<'a>,
    inner: &Items,
    left: u32,
    mut items: Vec<N>,
    tag: Option<u8>,
    out: O,
) -> Result<O::Done, Error> {
    for left in (0..left).rev() {
        item::<N, _>(r, inner, left, &mut items)?;
    }
    Ok(out.put_items(tag, items))
}

/// Reads the last `left` items of a container whose items share `inner` into `items`:
/// [`items`] without the node, for [`gathered`] (a loop of its own, out of line, as in
/// [`items`]: inlined into [`gathered`], it left [`Value`]'s `scalar` out of line).
#[inline(never)]
fn fill<'a, N: Node<'a>>(
    r: &mut Reader<'a>,
    inner: &Items,
    left: u32,
    items: &mut Vec<N>,
) -> Result<(), Error> {
    for left in (0..left).rev() {
        item::<N, _>(r, inner, left, &mut *items)?;
    }
    Ok(())
}

/// Reads scalar items into `items` while they are the common, well-formed kinds (tiny
/// and sized integers, floats, null, booleans, tiny ASCII strings within the string
/// limit) and `left` items remain; returns how many remain. It stops, with the reader at
/// the item, at anything else, including an item that is cut short or over a limit: the
/// general [`item`] then reads it and reports any error exactly as before.
#[cfg_attr(not(debug_assertions), inline(always))]
#[allow(unsafe_code)]
fn scalars<'a, N: Node<'a>>(r: &mut Reader<'a>, items: &mut Vec<N>, mut left: u32) -> u32 {
    let buf = r.buf;
    let mut pos = r.pos;
    let spare = items.spare_capacity_mut();
    // Slots of `spare` written so far.
    let mut written = 0;
    while left > 0 {
        let Some(&marker) = buf.get(pos) else { break };
        // A full vector (its capacity was bounded by the bytes left) hands the rest to
        // the general loop, which grows it.
        let Some(slot) = spare.get_mut(written) else {
            break;
        };
        // Each arm writes its node straight into the slot: a node built in a shared
        // temporary was stored in 8-byte parts and copied in 16-byte parts, a
        // store-forwarding stall per item that took about half of this loop's time.
        let used = if marker as i8 >= -16 {
            slot.write(N::scalar(Token::Int(i64::from(marker as i8))));
            1
        } else {
            let payload = || buf.get(pos + 1..).unwrap_or_default();
            match kind(marker) {
                Kind::TinyString => {
                    let len = usize::from(marker & 0x0F);
                    if len > r.opts.limits.max_string_len as usize {
                        break;
                    }
                    let Some(s) = short_ascii(buf, pos + 1, len) else {
                        break;
                    };
                    slot.write(N::scalar(Token::String(s)));
                    1 + len
                }
                Kind::Int8 => match payload().first_chunk() {
                    Some(b) => {
                        slot.write(N::scalar(Token::Int(i64::from(i8::from_be_bytes(*b)))));
                        2
                    }
                    None => break,
                },
                Kind::Int16 => match payload().first_chunk() {
                    Some(b) => {
                        slot.write(N::scalar(Token::Int(i64::from(i16::from_be_bytes(*b)))));
                        3
                    }
                    None => break,
                },
                Kind::Int32 => match payload().first_chunk() {
                    Some(b) => {
                        slot.write(N::scalar(Token::Int(i64::from(i32::from_be_bytes(*b)))));
                        5
                    }
                    None => break,
                },
                Kind::Int64 => match payload().first_chunk() {
                    Some(b) => {
                        slot.write(N::scalar(Token::Int(i64::from_be_bytes(*b))));
                        9
                    }
                    None => break,
                },
                Kind::Float => match payload().first_chunk() {
                    Some(b) => {
                        slot.write(N::scalar(Token::Float(f64::from_be_bytes(*b))));
                        9
                    }
                    None => break,
                },
                Kind::Null => {
                    slot.write(N::scalar(Token::Null));
                    1
                }
                Kind::False => {
                    slot.write(N::scalar(Token::Bool(false)));
                    1
                }
                Kind::True => {
                    slot.write(N::scalar(Token::Bool(true)));
                    1
                }
                _ => break,
            }
        };
        written += 1;
        pos += used;
        left -= 1;
    }
    let len = items.len() + written;
    // SAFETY: the first `written` spare slots were initialised, one per pass of the loop
    // (every path that does not write its slot breaks out before `written` grows), so
    // the first `len` items are; and `len <= capacity` since those slots exist.
    unsafe { items.set_len(len) };
    r.pos = pos;
    left
}

/// Reads the `n` (at least one) entries of a map whose values share `inner`, and puts
/// the node into `out`.
#[inline(never)]
fn entries<'a, N: Node<'a>, O: Out<N>>(
    r: &mut Reader<'a>,
    inner: &Items,
    n: u32,
    out: O,
) -> Result<O::Done, Error> {
    let mut entries = Vec::with_capacity(r.capacity_beside(n, 2, inner.others));
    for left in (0..n).rev() {
        let key = N::key(key(r, inner.depth, inner.max_depth, inner.container)?);
        let entry = Entry {
            entries: &mut entries,
            key,
        };
        item(r, inner, left, entry)?;
    }
    Ok(out.put(N::map(entries)))
}

/// Reads the token of an item at `depth` for [`deep`].
#[cfg_attr(not(debug_assertions), inline(always))]
fn token<'a>(
    r: &mut Reader<'a>,
    depth: u64,
    max_depth: u64,
    container: Option<usize>,
) -> Result<(Token<'a>, usize), Error> {
    let start = r.pos();
    r.depth_full = depth >= max_depth;
    let tok = r
        .token()
        .map_err(|e| missing_item(e, start, r.len(), container))?;
    Ok((tok, start))
}

/// A container being built by [`deep`].
enum Open<'a, N: Node<'a>> {
    List(Vec<N>, usize, usize),
    Map(Vec<(N::Key, N)>, Option<N::Key>, usize, usize),
    Struct(u8, Vec<N>, usize, usize),
}

impl<'a, N: Node<'a>> Open<'a, N> {
    /// Opens a container for a non-empty container token read at `start`.
    fn new(r: &Reader<'a>, tok: Token<'a>, start: usize) -> Self {
        match tok {
            Token::Map(n) => Open::Map(
                Vec::with_capacity(r.capacity_for(n, 2)),
                None,
                n as usize,
                start,
            ),
            Token::Struct { tag, len } => Open::Struct(
                tag,
                Vec::with_capacity(r.capacity_for(len, 1)),
                len as usize,
                start,
            ),
            Token::List(n) => {
                Open::List(Vec::with_capacity(r.capacity_for(n, 1)), n as usize, start)
            }
            // Only container tokens are opened.
            _ => Open::List(Vec::new(), 0, start),
        }
    }

    fn start(&self) -> usize {
        match self {
            Open::List(.., at) | Open::Map(.., at) | Open::Struct(.., at) => *at,
        }
    }

    /// Adds a finished item; true when the container is complete.
    fn push(&mut self, v: N) -> bool {
        match self {
            Open::List(items, n, _) | Open::Struct(_, items, n, _) => {
                items.push(v);
                items.len() >= *n
            }
            Open::Map(entries, key, n, _) => {
                if let Some(k) = key.take() {
                    entries.push((k, v));
                }
                entries.len() >= *n
            }
        }
    }

    fn finish(self) -> N {
        match self {
            Open::List(items, ..) => N::list(items),
            Open::Map(entries, ..) => N::map(entries),
            Open::Struct(tag, fields, ..) => N::structure(tag, fields),
        }
    }
}

/// Builds the container whose (non-empty) header `first` was read at `start`, with an
/// explicit stack instead of recursion. `depth` containers are open around it.
fn deep<'a, N: Node<'a>>(
    r: &mut Reader<'a>,
    first: Token<'a>,
    start: usize,
    depth: u64,
    max_depth: u64,
) -> Result<N, Error> {
    let mut stack: Vec<Open<'a, N>> = vec![Open::new(r, first, start)];
    loop {
        let item_depth = depth + stack.len() as u64;
        let Some(top) = stack.last_mut() else {
            return Err(Error::new(ErrorKind::UnexpectedEnd, start, "a value"));
        };
        let at = top.start();
        if let Open::Map(_, key_slot @ None, _, _) = top {
            // Through `token`, which counts the key's promised slot.
            *key_slot = match token(r, item_depth, max_depth, Some(at))? {
                (Token::String(s), _) => Some(N::key(s)),
                (_, key_start) => return Err(non_string_key(key_start)),
            };
            continue;
        }
        let (tok, tok_start) = token(r, item_depth, max_depth, Some(at))?;
        let mut value = match tok {
            Token::List(n) | Token::Map(n) | Token::Struct { len: n, .. } if n > 0 => {
                stack.push(Open::new(r, tok, tok_start));
                continue;
            }
            tok => N::scalar(tok),
        };
        // Attach the finished value; close every container it completes.
        while let Some(top) = stack.last_mut() {
            if !top.push(value) {
                break;
            }
            let Some(done) = stack.pop() else { break };
            value = done.finish();
            if stack.is_empty() {
                return Ok(value);
            }
        }
    }
}

/// Decodes one value from the start of `buf`; returns it and the bytes it used.
pub(crate) fn decode_node<'a, N: Node<'a>>(
    buf: &'a [u8],
    opts: &DecodeOptions,
) -> Result<(N, usize), Error> {
    let mut r = Reader::new(buf, *opts);
    let v = build(&mut r, 0, u64::from(opts.limits.max_depth), None, false)?;
    Ok((v, r.pos()))
}

impl<'a> ValueRef<'a> {
    /// Decodes one value from the start of `buf` with default options, returning the value
    /// and how many bytes it used. Bytes after the value are left alone.
    ///
    /// # Errors
    /// Any [`Error`]; [`Error::is_incomplete`] tells whether more input could complete it.
    pub fn decode(buf: &'a [u8]) -> Result<(Self, usize), Error> {
        decode_node(buf, &DecodeOptions::default())
    }

    /// Like [`ValueRef::decode`], with options.
    ///
    /// # Errors
    /// Any [`Error`].
    pub fn decode_with(buf: &'a [u8], opts: &DecodeOptions) -> Result<(Self, usize), Error> {
        decode_node(buf, opts)
    }

    /// Decodes `buf` as exactly one value: bytes left over are a
    /// [`TrailingBytes`](ErrorKind::TrailingBytes) error.
    ///
    /// ```
    /// use packstream::{ErrorKind, ValueRef};
    /// assert_eq!(ValueRef::decode_exact(&[0x2A]).unwrap(), ValueRef::Int(42));
    /// let err = ValueRef::decode_exact(&[0x2A, 0x00]).unwrap_err();
    /// assert_eq!((err.kind(), err.offset()), (ErrorKind::TrailingBytes, 1));
    /// ```
    ///
    /// # Errors
    /// Any [`Error`].
    pub fn decode_exact(buf: &'a [u8]) -> Result<Self, Error> {
        Self::decode_exact_with(buf, &DecodeOptions::default())
    }

    /// Like [`ValueRef::decode_exact`], with options.
    ///
    /// # Errors
    /// Any [`Error`].
    pub fn decode_exact_with(buf: &'a [u8], opts: &DecodeOptions) -> Result<Self, Error> {
        let (v, used) = decode_node(buf, opts)?;
        if used < buf.len() {
            return Err(Error::new(
                ErrorKind::TrailingBytes,
                used,
                "the end of the input",
            ));
        }
        Ok(v)
    }
}

impl Value {
    /// Decodes one value from the start of `buf` into an owned value; returns it and the
    /// number of bytes used.
    ///
    /// # Errors
    /// Any [`Error`].
    pub fn decode(buf: &[u8]) -> Result<(Self, usize), Error> {
        decode_node(buf, &DecodeOptions::default())
    }

    /// Decodes `buf` as exactly one owned value.
    ///
    /// # Errors
    /// Any [`Error`], including trailing bytes.
    pub fn decode_exact(buf: &[u8]) -> Result<Self, Error> {
        Self::decode_exact_with(buf, &DecodeOptions::default())
    }

    /// Decodes `buf` as exactly one owned value, with options.
    ///
    /// # Errors
    /// Any [`Error`], including trailing bytes.
    pub fn decode_exact_with(buf: &[u8], opts: &DecodeOptions) -> Result<Self, Error> {
        let (v, used) = decode_node(buf, opts)?;
        if used < buf.len() {
            return Err(Error::new(
                ErrorKind::TrailingBytes,
                used,
                "the end of the input",
            ));
        }
        Ok(v)
    }

    /// Like [`Value::decode`], with options.
    ///
    /// # Errors
    /// Any [`Error`].
    pub fn decode_with(buf: &[u8], opts: &DecodeOptions) -> Result<(Self, usize), Error> {
        decode_node(buf, opts)
    }
}
