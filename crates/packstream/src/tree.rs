//! Walks over value trees with an explicit stack, so that no operation on a value —
//! clone, comparison, conversion between [`Value`] and [`ValueRef`], formatting, drop —
//! recurses once per nesting level. A caller may raise
//! [`DecodeLimits::max_depth`](crate::DecodeLimits::max_depth) to any value and still
//! clone, compare, print or drop what it decoded on a small thread stack (regression
//! tests in `tests/deep.rs`).
//!
//! Each walk handles scalar children inside its container's loop and pushes a frame only
//! for a nested container, so flat values cost no more than the recursive versions did.

use core::fmt;
use core::slice;

use crate::scratch::{self, Lease};
use crate::value::{float_eq, StructRef, Structure, Value, ValueRef};

/// What a walk needs to know about one node of a value tree.
pub(crate) enum Shape<'v, T: Tree> {
    /// Anything that is not a container (UUIDs, strings and byte arrays included).
    Leaf,
    /// A list's items.
    List(&'v [T]),
    /// A map's entries, in wire order.
    Map(&'v [(T::Key, T)]),
    /// A structure's tag and fields.
    Struct(u8, &'v [T]),
}

/// A value tree: [`Value`] or [`ValueRef`].
pub(crate) trait Tree: Sized {
    /// The type of map keys.
    type Key: AsRef<str>;
    /// This node's shape.
    fn shape(&self) -> Shape<'_, Self>;
}

impl<'a> Tree for ValueRef<'a> {
    type Key = &'a str;
    #[inline]
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            ValueRef::List(items) => Shape::List(items),
            ValueRef::Map(entries) => Shape::Map(entries),
            ValueRef::Struct(s) => Shape::Struct(s.tag, &s.fields),
            _ => Shape::Leaf,
        }
    }
}

impl Tree for Value {
    type Key = String;
    #[inline]
    fn shape(&self) -> Shape<'_, Self> {
        match self {
            Value::List(items) => Shape::List(items),
            Value::Map(entries) => Shape::Map(entries),
            Value::Struct(s) => Shape::Struct(s.tag, &s.fields),
            _ => Shape::Leaf,
        }
    }
}

/// The containers of a tree that [`convert`] builds.
pub(crate) trait Build: Sized {
    /// The type of map keys.
    type Key;
    fn list(items: Vec<Self>) -> Self;
    fn map(entries: Vec<(Self::Key, Self)>) -> Self;
    fn structure(tag: u8, fields: Vec<Self>) -> Self;
}

impl<'a> Build for ValueRef<'a> {
    type Key = &'a str;
    fn list(items: Vec<Self>) -> Self {
        ValueRef::List(items)
    }
    fn map(entries: Vec<(Self::Key, Self)>) -> Self {
        ValueRef::Map(entries)
    }
    fn structure(tag: u8, fields: Vec<Self>) -> Self {
        ValueRef::Struct(StructRef { tag, fields })
    }
}

impl Build for Value {
    type Key = String;
    fn list(items: Vec<Self>) -> Self {
        Value::List(items)
    }
    fn map(entries: Vec<(Self::Key, Self)>) -> Self {
        Value::Map(entries)
    }
    fn structure(tag: u8, fields: Vec<Self>) -> Self {
        Value::Struct(Structure { tag, fields })
    }
}

/// A container being converted: the children still to visit and the converted ones.
enum Frame<'v, S: Tree, D: Build> {
    /// A list (`tag` is `None`) or a structure.
    Items {
        rest: slice::Iter<'v, S>,
        done: Vec<D>,
        tag: Option<u8>,
    },
    Entries {
        rest: slice::Iter<'v, (S::Key, S)>,
        done: Vec<(D::Key, D)>,
        /// The key of the entry whose value is being converted.
        key: Option<D::Key>,
    },
}

impl<'v, S: Tree, D: Build> Frame<'v, S, D> {
    /// A frame for `node`, or `None` when `node` is a leaf.
    fn open(node: &'v S) -> Option<Self> {
        Some(match node.shape() {
            Shape::Leaf => return None,
            Shape::List(items) => Frame::Items {
                rest: items.iter(),
                done: Vec::with_capacity(items.len()),
                tag: None,
            },
            Shape::Struct(tag, fields) => Frame::Items {
                rest: fields.iter(),
                done: Vec::with_capacity(fields.len()),
                tag: Some(tag),
            },
            Shape::Map(entries) => Frame::Entries {
                rest: entries.iter(),
                done: Vec::with_capacity(entries.len()),
                key: None,
            },
        })
    }

    /// Converts leaf children in place until a container child comes: returns its frame,
    /// or `None` when every child is converted.
    fn advance(
        &mut self,
        leaf: &impl Fn(&'v S) -> D,
        key: &impl Fn(&'v S::Key) -> D::Key,
    ) -> Option<Self> {
        match self {
            Frame::Items { rest, done, .. } => {
                for child in rest.by_ref() {
                    match Frame::open(child) {
                        Some(frame) => return Some(frame),
                        None => done.push(leaf(child)),
                    }
                }
                None
            }
            Frame::Entries { rest, done, key: k } => {
                for (name, child) in rest.by_ref() {
                    match Frame::open(child) {
                        Some(frame) => {
                            *k = Some(key(name));
                            return Some(frame);
                        }
                        None => done.push((key(name), leaf(child))),
                    }
                }
                None
            }
        }
    }

    /// Takes the converted value of the container child [`Frame::advance`] returned.
    fn accept(&mut self, value: D) {
        match self {
            Frame::Items { done, .. } => done.push(value),
            Frame::Entries { done, key, .. } => {
                if let Some(k) = key.take() {
                    done.push((k, value));
                }
            }
        }
    }

    fn finish(self) -> D {
        match self {
            Frame::Items {
                done, tag: None, ..
            } => D::list(done),
            Frame::Items {
                done, tag: Some(t), ..
            } => D::structure(t, done),
            Frame::Entries { done, .. } => D::map(done),
        }
    }
}

/// Converts the tree under `root` node by node: `leaf` converts each leaf (it is never
/// given a container), `key` each map key.
pub(crate) fn convert<'v, S: Tree, D: Build>(
    root: &'v S,
    leaf: &impl Fn(&'v S) -> D,
    key: &impl Fn(&'v S::Key) -> D::Key,
) -> D {
    let Some(mut frame) = Frame::open(root) else {
        return leaf(root);
    };
    let mut stack: Vec<Frame<'v, S, D>> = Vec::new();
    loop {
        if let Some(child) = frame.advance(leaf, key) {
            stack.push(frame);
            frame = child;
            continue;
        }
        let value = frame.finish();
        match stack.pop() {
            Some(parent) => {
                frame = parent;
                frame.accept(value);
            }
            None => return value,
        }
    }
}

/// Two containers being compared: the children not yet compared.
enum Pair<'v, T: Tree> {
    Items(slice::Iter<'v, T>, slice::Iter<'v, T>),
    Entries(slice::Iter<'v, (T::Key, T)>, slice::Iter<'v, (T::Key, T)>),
}

/// Structural equality; `leaf_eq` compares two nodes of which at least one is a leaf.
pub(crate) fn eq<T: Tree>(a: &T, b: &T, leaf_eq: impl Fn(&T, &T) -> bool) -> bool {
    let mut stack: Vec<Pair<'_, T>> = Vec::new();
    let mut next = Some((a, b));
    loop {
        if let Some((x, y)) = next.take() {
            match (x.shape(), y.shape()) {
                (Shape::List(p), Shape::List(q)) if p.len() == q.len() => {
                    stack.push(Pair::Items(p.iter(), q.iter()));
                }
                (Shape::Struct(s, p), Shape::Struct(t, q)) if s == t && p.len() == q.len() => {
                    stack.push(Pair::Items(p.iter(), q.iter()));
                }
                (Shape::Map(p), Shape::Map(q)) if p.len() == q.len() => {
                    stack.push(Pair::Entries(p.iter(), q.iter()));
                }
                (Shape::Leaf, _) | (_, Shape::Leaf) => {
                    if !leaf_eq(x, y) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        let Some(top) = stack.last_mut() else {
            return true;
        };
        match top {
            Pair::Items(p, q) => next = p.next().zip(q.next()),
            Pair::Entries(p, q) => {
                if let Some(((k, x), (l, y))) = p.next().zip(q.next()) {
                    if k.as_ref() != l.as_ref() {
                        return false;
                    }
                    next = Some((x, y));
                }
            }
        }
        if next.is_none() {
            stack.pop();
        }
    }
}

/// A container's children, borrowed in place.
pub(crate) enum ChildrenMut<'v, T: Tree> {
    Items(&'v mut Vec<T>),
    Entries(&'v mut Vec<(T::Key, T)>),
}

/// A container's children, moved out of it (waiting on [`drop_subtree`]'s stack).
pub(crate) enum Children<T: Tree> {
    Items(Vec<T>),
    Entries(Vec<(T::Key, T)>),
}

impl<T: Tree> Children<T> {
    #[inline(always)]
    fn as_mut(&mut self) -> ChildrenMut<'_, T> {
        match self {
            Children::Items(items) => ChildrenMut::Items(items),
            Children::Entries(entries) => ChildrenMut::Entries(entries),
        }
    }
}

/// What the stack-safe `Drop` needs to take a tree apart.
pub(crate) trait Drain: Tree {
    /// A container's children; `None` for a leaf.
    fn children_mut(&mut self) -> Option<ChildrenMut<'_, Self>>;
    /// Frees what a leaf owns (a string's or a byte array's buffer), leaving it owning
    /// nothing. Never given a container.
    fn release_leaf(&mut self);
    /// Frees what a map key owns, leaving it owning nothing.
    fn release_key(key: &mut Self::Key);
    /// Whether this node may own memory: a container, or an owned string or byte array.
    fn owns_memory(&self) -> bool;
}

macro_rules! drain {
    ($ty:ident $(<$l:lifetime>)?, leaf: |$leaf:ident| $release_leaf:expr, key: |$key:ident| $release_key:expr, owns: $owns:expr) => {
        impl Drain for $ty $(<$l>)? {
            #[inline(always)]
            fn children_mut(&mut self) -> Option<ChildrenMut<'_, Self>> {
                match self {
                    Self::List(items) => Some(ChildrenMut::Items(items)),
                    Self::Struct(s) => Some(ChildrenMut::Items(&mut s.fields)),
                    Self::Map(entries) => Some(ChildrenMut::Entries(entries)),
                    _ => None,
                }
            }
            #[inline(always)]
            fn release_leaf(&mut self) {
                let $leaf = self;
                $release_leaf
            }
            #[inline(always)]
            fn release_key($key: &mut Self::Key) {
                $release_key
            }
            #[inline(always)]
            fn owns_memory(&self) -> bool {
                $owns(self)
            }
        }
    };
}
// A borrowed leaf owns nothing.
drain!(ValueRef<'_>, leaf: |_leaf| {}, key: |_key| {},
    owns: |v: &Self| matches!(v, ValueRef::List(_) | ValueRef::Map(_) | ValueRef::Struct(_)));
drain!(Value, leaf: |leaf| match leaf {
    Value::String(s) => drop(core::mem::take(s)),
    Value::Bytes(b) => drop(core::mem::take(b)),
    _ => {}
}, key: |key| drop(core::mem::take(key)),
    owns: |v: &Self| !matches!(v, Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) | Value::Uuid(_)));

/// How many levels [`clear`] recurses before it hands subtrees to an explicit stack.
/// Real values nest a few levels (a property map in a Node in a Path in a list in a
/// RECORD); only deeper ones pay for the stack.
const DROP_LEVELS: u32 = 16;

/// The `Drop` of a non-empty container: frees everything below it without a call per
/// child, recursing at most [`DROP_LEVELS`] levels, deeper subtrees waiting on an
/// explicit stack, so the native stack never grows with the value's depth. The
/// container's vector is left empty, so the derived drop glue has only its buffer to
/// free (before, each child went through the glue, a call per item that cost more than
/// decoding it).
///
/// Inlined into the drop glue: the first level (a RECORD's fields, the lists of a list
/// of lists) and the leaves of its containers are freed in the glue's own frame, and
/// only a child with containers below it calls [`drop_subtree`], which holds the
/// explicit stack. (Called out of line, this function and the glue each saved and
/// restored six registers, and the stack was set up and checked for every value.)
#[inline(always)]
fn drop_children<T: Drain>(children: ChildrenMut<'_, T>) {
    match children {
        ChildrenMut::Items(items) => {
            for child in items.iter_mut() {
                release_top(child);
            }
            forget_items(items);
        }
        ChildrenMut::Entries(entries) => {
            for (key, child) in entries.iter_mut() {
                T::release_key(key);
                release_top(child);
            }
            forget_items(entries);
        }
    }
}

/// [`release`] for a child of the value being dropped: a leaf, or a container of
/// leaves, is freed here; anything deeper goes to [`drop_subtree`].
///
/// Kept apart from [`release`] on purpose: the two differ only in how they hand on a
/// child with containers below it, but every merged form measured (the step as a
/// closure taking the children by value or by reference) cost instructions, by
/// callgrind: +10% on dropping an owned value nested 2,000 levels deep, or +4 per
/// RECORD on the borrowed records_10000x3 decode.
#[inline(always)]
fn release_top<T: Drain>(node: &mut T) {
    match node.children_mut() {
        None => node.release_leaf(),
        Some(ChildrenMut::Items(items)) => {
            if items.capacity() != 0 {
                let mut taken = core::mem::take(items);
                if release_leaves::<T, (), _>(taken.iter_mut(), |_| {}) {
                    // `taken` drops with no items: only its buffer is freed.
                    forget_items(&mut taken);
                } else {
                    drop_subtree(Children::Items(taken));
                }
            }
        }
        Some(ChildrenMut::Entries(entries)) => {
            if entries.capacity() != 0 {
                let mut taken = core::mem::take(entries);
                if release_leaves::<T, T::Key, _>(taken.iter_mut(), T::release_key) {
                    forget_items(&mut taken);
                } else {
                    drop_subtree(Children::Entries(taken));
                }
            }
        }
    }
}

/// The `Drop` of a large list or structure (see [`scratch`]) whose items
/// own memory: moves the items into the thread's scratch and frees the container's own
/// vector first, then the items, so that glibc does not merge the freed items' blocks
/// (as it does when a large block is freed after them) and the next decode gets them
/// back from its caches. False, with nothing done, when the first item owns no memory
/// (judged as the decoder judges whether to build the container through the scratch:
/// for scalars the order does not matter) or the scratch is taken.
#[inline(never)]
fn drop_vector_first<T: Drain>(items: &mut Vec<T>) -> bool {
    if items.len() > scratch::MAX_ITEMS || !items.first().is_some_and(T::owns_memory) {
        return false;
    }
    let Some(mut lease) = Lease::<T>::take() else {
        return false;
    };
    let held = lease.items();
    // Exact, as when decoding: the scratch stays within its bound.
    held.reserve_exact(items.len());
    held.append(items);
    // `items` is empty now: only its buffer is freed.
    drop(core::mem::take(items));
    for child in held.iter_mut() {
        release_top(child);
    }
    forget_items(held);
    true
}

/// Frees the children just taken out of a container one level below the value being
/// dropped (the vector then drops with no items, freeing its buffer), with the explicit
/// stack for what lies below [`DROP_LEVELS`].
#[inline(never)]
fn drop_subtree<T: Drain>(mut taken: Children<T>) {
    let mut deeper: Vec<Children<T>> = Vec::new();
    clear(taken.as_mut(), 1, &mut deeper);
    if !deeper.is_empty() {
        drop_deeper(deeper);
    }
}

/// The subtrees [`drop_subtree`] left on its explicit stack.
#[cold]
#[inline(never)]
fn drop_deeper<T: Drain>(mut deeper: Vec<Children<T>>) {
    while let Some(mut next) = deeper.pop() {
        clear(next.as_mut(), 0, &mut deeper);
        // `next` drops here: an empty vector, so only its buffer is freed.
    }
}

/// Frees what every child owns, then empties the vector without dropping its items
/// (which own nothing by then).
fn clear<T: Drain>(children: ChildrenMut<'_, T>, level: u32, deeper: &mut Vec<Children<T>>) {
    match children {
        ChildrenMut::Items(items) => {
            for child in items.iter_mut() {
                release(child, level, deeper);
            }
            forget_items(items);
        }
        ChildrenMut::Entries(entries) => {
            for (key, child) in entries.iter_mut() {
                T::release_key(key);
                release(child, level, deeper);
            }
            forget_items(entries);
        }
    }
}

/// Frees what `node` owns, leaving it owning nothing: a leaf's buffer, or a container's
/// children (now, or later from `deeper` once [`DROP_LEVELS`] is reached) and its buffer.
#[inline(always)]
fn release<T: Drain>(node: &mut T, level: u32, deeper: &mut Vec<Children<T>>) {
    match node.children_mut() {
        None => node.release_leaf(),
        Some(ChildrenMut::Items(items)) => {
            if items.capacity() != 0 {
                let mut taken = core::mem::take(items);
                if release_leaves::<T, (), _>(taken.iter_mut(), |_| {}) {
                    // `taken` drops with no items: only its buffer is freed.
                    forget_items(&mut taken);
                } else {
                    release_children(&mut Children::Items(taken), level, deeper);
                }
            }
        }
        Some(ChildrenMut::Entries(entries)) => {
            if entries.capacity() != 0 {
                let mut taken = core::mem::take(entries);
                if release_leaves::<T, T::Key, _>(taken.iter_mut(), T::release_key) {
                    forget_items(&mut taken);
                } else {
                    release_children(&mut Children::Entries(taken), level, deeper);
                }
            }
        }
    }
}

/// The innermost containers, whose children are all leaves, the common case: releases
/// the leaves (and keys) in place, with no call and no frame. Stops at the first child
/// that is a container and returns false; [`clear`] then walks the children again
/// (releasing a leaf twice is harmless: it owns nothing the second time).
#[inline(always)]
fn release_leaves<'v, T: Drain + 'v, K: 'v, E: EntryParts<'v, T, K>>(
    children: impl Iterator<Item = E>,
    release_key: impl Fn(&mut K),
) -> bool {
    for child in children {
        let (key, node) = child.parts();
        if node.children_mut().is_some() {
            return false;
        }
        if let Some(key) = key {
            release_key(key);
        }
        node.release_leaf();
    }
    true
}

/// A list item, or a map entry's key and value.
trait EntryParts<'v, T, K> {
    fn parts(self) -> (Option<&'v mut K>, &'v mut T);
}

impl<'v, T, K> EntryParts<'v, T, K> for &'v mut T {
    #[inline(always)]
    fn parts(self) -> (Option<&'v mut K>, &'v mut T) {
        (None, self)
    }
}

impl<'v, T, K> EntryParts<'v, T, K> for &'v mut (K, T) {
    #[inline(always)]
    fn parts(self) -> (Option<&'v mut K>, &'v mut T) {
        (Some(&mut self.0), &mut self.1)
    }
}

/// Clears the children just taken out of a container (the vector then drops with no
/// items, freeing its buffer), or leaves them to `deeper` below [`DROP_LEVELS`].
#[inline(always)]
fn release_children<T: Drain>(taken: &mut Children<T>, level: u32, deeper: &mut Vec<Children<T>>) {
    if level >= DROP_LEVELS {
        deeper.push(core::mem::replace(taken, Children::Items(Vec::new())));
    } else {
        clear(taken.as_mut(), level + 1, deeper);
    }
}

/// Empties `items` without running their destructors.
#[inline(always)]
#[allow(unsafe_code)]
fn forget_items<I>(items: &mut Vec<I>) {
    // SAFETY: a length of 0 is within any capacity, and no item needs to be initialised
    // for it. The items are forgotten, never read again: each was released first by
    // `clear` and owns nothing, so forgetting them leaks nothing (and leaking would not
    // be unsound anyway).
    unsafe { items.set_len(0) };
}

/// How [`display`] renders leaves and keys.
pub(crate) trait Render: Tree {
    fn render_leaf(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

impl Render for ValueRef<'_> {
    fn render_leaf(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueRef::Null => f.write_str("null"),
            ValueRef::Bool(b) => write!(f, "{b}"),
            ValueRef::Int(i) => write!(f, "{i}"),
            ValueRef::Float(x) => write!(f, "{x:?}"),
            ValueRef::Bytes(b) => write_hex(f, b),
            ValueRef::String(s) => write_quoted(f, s),
            ValueRef::Uuid(u) => {
                f.write_str("uuid(")?;
                write_uuid(f, u)?;
                f.write_str(")")
            }
            // Containers are rendered by `display`.
            ValueRef::List(_) | ValueRef::Map(_) | ValueRef::Struct(_) => Ok(()),
        }
    }
}

impl Render for Value {
    fn render_leaf(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("null"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x:?}"),
            Value::Bytes(b) => write_hex(f, b),
            Value::String(s) => write_quoted(f, s),
            Value::Uuid(u) => {
                f.write_str("uuid(")?;
                write_uuid(f, u)?;
                f.write_str(")")
            }
            Value::List(_) | Value::Map(_) | Value::Struct(_) => Ok(()),
        }
    }
}

/// An open container while rendering: its remaining children.
enum Open<'v, T: Tree> {
    Items(slice::Iter<'v, T>),
    Entries(slice::Iter<'v, (T::Key, T)>),
}

/// How a container starts and ends, and how its parts are separated, for [`walk_fmt`].
pub(crate) struct Syntax<T> {
    /// Writes a container's opening (e.g. `[` or `Struct<0x4E>[`) and returns what
    /// closes it.
    pub(crate) open: fn(&mut fmt::Formatter<'_>, &T) -> Result<&'static str, fmt::Error>,
    /// Writes a map key and what follows it (e.g. `"k": `).
    pub(crate) key: fn(&mut fmt::Formatter<'_>, &str) -> fmt::Result,
    /// Writes a leaf.
    pub(crate) leaf: fn(&T, &mut fmt::Formatter<'_>) -> fmt::Result,
    /// Between two children.
    pub(crate) sep: &'static str,
}

/// Writes `root` with `syntax`, one container level at a time on an explicit stack.
pub(crate) fn walk_fmt<T: Tree>(
    f: &mut fmt::Formatter<'_>,
    root: &T,
    syntax: &Syntax<T>,
) -> fmt::Result {
    // Each open container, whether a child of it was written yet, and its closing.
    let mut stack: Vec<(Open<'_, T>, bool, &'static str)> = Vec::new();
    let mut next = Some(root);
    loop {
        if let Some(v) = next.take() {
            match v.shape() {
                Shape::Leaf => (syntax.leaf)(v, f)?,
                Shape::List(items) | Shape::Struct(_, items) => {
                    let close = (syntax.open)(f, v)?;
                    stack.push((Open::Items(items.iter()), false, close));
                }
                Shape::Map(entries) => {
                    let close = (syntax.open)(f, v)?;
                    stack.push((Open::Entries(entries.iter()), false, close));
                }
            }
        }
        let Some((top, started, end)) = stack.last_mut() else {
            return Ok(());
        };
        let close = match top {
            Open::Items(items) => match items.next() {
                Some(item) => {
                    next = Some(item);
                    None
                }
                None => Some(*end),
            },
            Open::Entries(entries) => match entries.next() {
                Some((k, item)) => {
                    if *started {
                        f.write_str(syntax.sep)?;
                    }
                    (syntax.key)(f, k.as_ref())?;
                    next = Some(item);
                    *started = true;
                    continue;
                }
                None => Some(*end),
            },
        };
        match close {
            Some(close) => {
                f.write_str(close)?;
                stack.pop();
            }
            None => {
                if *started {
                    f.write_str(syntax.sep)?;
                }
                *started = true;
            }
        }
    }
}

fn open_display<T: Tree>(f: &mut fmt::Formatter<'_>, v: &T) -> Result<&'static str, fmt::Error> {
    match v.shape() {
        Shape::Struct(tag, _) => write!(f, "Struct<{tag:#04X}>[").map(|()| "]"),
        Shape::Map(_) => f.write_str("{").map(|()| "}"),
        Shape::List(_) | Shape::Leaf => f.write_str("[").map(|()| "]"),
    }
}

fn key_display(f: &mut fmt::Formatter<'_>, k: &str) -> fmt::Result {
    write_quoted(f, k)?;
    f.write_str(": ")
}

/// The `Display` rendering of both trees.
pub(crate) fn display<T: Render>(f: &mut fmt::Formatter<'_>, root: &T) -> fmt::Result {
    walk_fmt(
        f,
        root,
        &Syntax {
            open: open_display::<T>,
            key: key_display,
            leaf: T::render_leaf,
            sep: ", ",
        },
    )
}

fn open_debug<T: Tree>(f: &mut fmt::Formatter<'_>, v: &T) -> Result<&'static str, fmt::Error> {
    match v.shape() {
        Shape::Struct(tag, _) => write!(f, "Struct({tag:#04X}, [").map(|()| "])"),
        Shape::Map(_) => f.write_str("Map({").map(|()| "})"),
        Shape::List(_) | Shape::Leaf => f.write_str("List([").map(|()| "])"),
    }
}

fn key_debug(f: &mut fmt::Formatter<'_>, k: &str) -> fmt::Result {
    write!(f, "{k:?}: ")
}

/// How [`debug`] renders leaves.
pub(crate) trait DebugLeaf: Tree {
    fn debug_leaf(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

macro_rules! debug_leaf {
    ($ty:ident $(<$l:lifetime>)?) => {
        impl DebugLeaf for $ty $(<$l>)? {
            fn debug_leaf(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    Self::Null => f.write_str("Null"),
                    Self::Bool(b) => write!(f, "Bool({b:?})"),
                    Self::Int(i) => write!(f, "Int({i:?})"),
                    Self::Float(x) => write!(f, "Float({x:?})"),
                    Self::Bytes(b) => write!(f, "Bytes({b:?})"),
                    Self::String(s) => write!(f, "String({s:?})"),
                    Self::Uuid(u) => write!(f, "Uuid({u:?})"),
                    // Containers are rendered by `debug`.
                    Self::List(_) | Self::Map(_) | Self::Struct(_) => Ok(()),
                }
            }
        }
    };
}
debug_leaf!(ValueRef<'_>);
debug_leaf!(Value);

/// The `Debug` rendering of both trees: like a derived one, with maps as
/// `Map({"k": Int(1)})` and structures as `Struct(0x4E, [...])`.
pub(crate) fn debug<T: DebugLeaf>(f: &mut fmt::Formatter<'_>, root: &T) -> fmt::Result {
    walk_fmt(
        f,
        root,
        &Syntax {
            open: open_debug::<T>,
            key: key_debug,
            leaf: T::debug_leaf,
            sep: ", ",
        },
    )
}

// ---------------------------------------------------------------------------------------
// The trees' standard traits and conversions, all through the walks above.
// ---------------------------------------------------------------------------------------

/// Scalar equality for both trees; containers are compared by [`eq`].
macro_rules! tree_impls {
    ($ty:ty) => {
        impl PartialEq for $ty {
            fn eq(&self, other: &Self) -> bool {
                eq(self, other, |a, b| match (a, b) {
                    (Self::Null, Self::Null) => true,
                    (Self::Bool(a), Self::Bool(b)) => a == b,
                    (Self::Int(a), Self::Int(b)) => a == b,
                    (Self::Float(a), Self::Float(b)) => float_eq(*a, *b),
                    (Self::Bytes(a), Self::Bytes(b)) => a == b,
                    (Self::String(a), Self::String(b)) => a == b,
                    (Self::Uuid(a), Self::Uuid(b)) => a == b,
                    _ => false,
                })
            }
        }

        impl Drop for $ty {
            #[inline]
            fn drop(&mut self) {
                // Leaves and empty containers have nothing below them to take apart.
                match self.children_mut() {
                    Some(ChildrenMut::Items(items)) if !items.is_empty() => {
                        if scratch::is_large::<Self>(items.capacity()) && drop_vector_first(items) {
                            return;
                        }
                        drop_children(ChildrenMut::Items(items))
                    }
                    Some(ChildrenMut::Entries(entries)) if !entries.is_empty() => {
                        drop_children(ChildrenMut::Entries(entries))
                    }
                    _ => {}
                }
            }
        }

        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                debug(f, self)
            }
        }
    };
}
tree_impls!(ValueRef<'_>);
tree_impls!(Value);

impl<'a> Clone for ValueRef<'a> {
    fn clone(&self) -> Self {
        convert(
            self,
            &|v: &ValueRef<'a>| match v {
                ValueRef::Null => ValueRef::Null,
                ValueRef::Bool(b) => ValueRef::Bool(*b),
                ValueRef::Int(i) => ValueRef::Int(*i),
                ValueRef::Float(f) => ValueRef::Float(*f),
                ValueRef::Bytes(b) => ValueRef::Bytes(b),
                ValueRef::String(s) => ValueRef::String(s),
                ValueRef::Uuid(u) => ValueRef::Uuid(*u),
                // `convert` gives only leaves.
                ValueRef::List(_) | ValueRef::Map(_) | ValueRef::Struct(_) => ValueRef::Null,
            },
            &|k: &&'a str| *k,
        )
    }
}

impl Clone for Value {
    fn clone(&self) -> Self {
        convert(
            self,
            &|v: &Value| match v {
                Value::Null => Value::Null,
                Value::Bool(b) => Value::Bool(*b),
                Value::Int(i) => Value::Int(*i),
                Value::Float(f) => Value::Float(*f),
                Value::Bytes(b) => Value::Bytes(b.clone()),
                Value::String(s) => Value::String(s.clone()),
                Value::Uuid(u) => Value::Uuid(*u),
                // `convert` gives only leaves.
                Value::List(_) | Value::Map(_) | Value::Struct(_) => Value::Null,
            },
            &String::clone,
        )
    }
}

impl<'a> ValueRef<'a> {
    /// Copies everything borrowed into an owned [`Value`].
    pub fn to_owned_value(&self) -> Value {
        convert(
            self,
            &|v: &ValueRef<'a>| match v {
                ValueRef::Null => Value::Null,
                ValueRef::Bool(b) => Value::Bool(*b),
                ValueRef::Int(i) => Value::Int(*i),
                ValueRef::Float(f) => Value::Float(*f),
                ValueRef::Bytes(b) => Value::Bytes(b.to_vec()),
                ValueRef::String(s) => Value::String((*s).to_owned()),
                ValueRef::Uuid(u) => Value::Uuid(*u),
                // `convert` gives only leaves.
                ValueRef::List(_) | ValueRef::Map(_) | ValueRef::Struct(_) => Value::Null,
            },
            &|k: &&'a str| (*k).to_owned(),
        )
    }
}

impl Value {
    /// A borrowed view of this value (allocates the container vectors, not the strings).
    pub fn as_value_ref(&self) -> ValueRef<'_> {
        convert(
            self,
            &|v: &Value| match v {
                Value::Null => ValueRef::Null,
                Value::Bool(b) => ValueRef::Bool(*b),
                Value::Int(i) => ValueRef::Int(*i),
                Value::Float(f) => ValueRef::Float(*f),
                Value::Bytes(b) => ValueRef::Bytes(b),
                Value::String(s) => ValueRef::String(s),
                Value::Uuid(u) => ValueRef::Uuid(*u),
                // `convert` gives only leaves.
                Value::List(_) | Value::Map(_) | Value::Struct(_) => ValueRef::Null,
            },
            &|k: &String| k.as_str(),
        )
    }
}

/// Writes `s` as a JSON-style quoted string.
pub(crate) fn write_quoted(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    write!(f, "{s:?}")
}

pub(crate) fn write_hex(f: &mut fmt::Formatter<'_>, b: &[u8]) -> fmt::Result {
    f.write_str("#")?;
    for byte in b {
        write!(f, "{byte:02X}")?;
    }
    Ok(())
}

pub(crate) fn write_uuid(f: &mut fmt::Formatter<'_>, u: &[u8; 16]) -> fmt::Result {
    for (i, byte) in u.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            f.write_str("-")?;
        }
        write!(f, "{byte:02x}")?;
    }
    Ok(())
}

/// A readable, JSON-like rendering: `{"name": "Alice", "tags": [1, 2.0]}`; bytes as
/// `#CAFE`, structures as `Struct<0x4E>[...]`, UUIDs as `uuid(...)`.
impl fmt::Display for ValueRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, self)
    }
}

/// Same rendering as for [`ValueRef`].
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, self)
    }
}
