//! The read-only value view: `bc_value`, the tree builder that fills it straight from
//! the decoder's tokens, and the checked accessors.
//!
//! A decoded value is a tree of 16-byte `bc_value` nodes. A container's children lie
//! next to each other in a node arena owned by the decoder (or connection) that made
//! them, so C walks them as plain arrays; strings, byte arrays and UUIDs point into the
//! decoded input (zero copy).

use std::ffi::c_char;

use packstream::{DecodeOptions, Decoder, Sink, StructRef, ValueRef, Visitor, Writer};

use crate::ffi::{self, Out, OutBuf};
use crate::status::{bc_status, Failure, Res};

/// The type of a `bc_value` (its `kind` field): one of the `BC_TYPE_*` constants.
pub type bc_type = u8;

/// Null. No payload.
pub const BC_TYPE_NULL: bc_type = 0;
/// Boolean: `data.b`.
pub const BC_TYPE_BOOL: bc_type = 1;
/// Signed 64-bit integer: `data.i`.
pub const BC_TYPE_INT: bc_type = 2;
/// 64-bit float: `data.f`.
pub const BC_TYPE_FLOAT: bc_type = 3;
/// Byte array: `len` bytes at `data.bytes`.
pub const BC_TYPE_BYTES: bc_type = 4;
/// UTF-8 string: `len` bytes at `data.s`, **not** NUL-terminated.
pub const BC_TYPE_STRING: bc_type = 5;
/// List: `len` items at `data.items[0 .. len-1]`.
pub const BC_TYPE_LIST: bc_type = 6;
/// Map: `len` entries as `2*len` nodes at `data.items`: key (a `BC_TYPE_STRING`
/// node), value, key, value, … in wire order (duplicate keys are kept).
pub const BC_TYPE_MAP: bc_type = 7;
/// Structure: tag in `tag`, `len` fields at `data.items`.
pub const BC_TYPE_STRUCT: bc_type = 8;
/// UUID (PackStream v2, Bolt 6.1+): 16 bytes (RFC 4122 order) at `data.bytes`; `len`
/// is 16.
pub const BC_TYPE_UUID: bc_type = 9;

/// The payload of a `bc_value`; which member is valid depends on its `kind`.
#[repr(C)]
#[derive(Clone, Copy)]
pub union bc_payload {
    /// `BC_TYPE_BOOL`.
    pub b: bool,
    /// `BC_TYPE_INT`.
    pub i: i64,
    /// `BC_TYPE_FLOAT`.
    pub f: f64,
    /// `BC_TYPE_STRING`: `len` bytes of UTF-8, not NUL-terminated.
    pub s: *const c_char,
    /// `BC_TYPE_BYTES` and `BC_TYPE_UUID`: `len` bytes.
    pub bytes: *const u8,
    /// `BC_TYPE_LIST`, `BC_TYPE_STRUCT` (`len` nodes) and `BC_TYPE_MAP` (`2*len` nodes).
    pub items: *const bc_value,
}

/// One decoded PackStream value: a small tagged node (16 bytes).
///
/// Read-only: values are made by the library and must not be written or copied into
/// the library's functions from elsewhere. A `const bc_value *` passed to any function
/// must be one the library handed out and still valid.
///
/// **Lifetime.** A value (and everything reachable from it) is valid until the handle
/// that produced it decodes again successfully, is reset or is freed (see
/// `bc_decoder_decode`, `bc_connection_poll_event`); a failing call changes nothing the
/// caller already has. Strings, byte arrays and UUIDs point into the decoded input (zero
/// copy), which must then also stay unchanged while the value is used, unless the
/// decoder copies its input (`BC_OPT_COPY_INPUT`). Using a value
/// after that is invalid (undefined behaviour), exactly like a dangling pointer.
///
/// When `len` is 0 the pointer members may be NULL.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct bc_value {
    /// The type: a `BC_TYPE_*` constant.
    pub kind: bc_type,
    /// `BC_TYPE_STRUCT`: the structure's tag; 0 otherwise.
    pub tag: u8,
    /// Always 0.
    pub reserved: u16,
    /// Bytes of a string, byte array or UUID; items of a list; entries of a map; fields
    /// of a structure; 0 otherwise.
    pub len: u32,
    /// The payload.
    pub data: bc_payload,
}

/// The payload of a container node whose children are not (yet) placed: NULL items.
const NO_ITEMS: bc_payload = bc_payload {
    items: std::ptr::null(),
};

impl bc_value {
    const NULL: bc_value = bc_value {
        kind: BC_TYPE_NULL,
        tag: 0,
        reserved: 0,
        len: 0,
        data: bc_payload { i: 0 },
    };

    #[inline(always)]
    fn scalar(kind: bc_type, data: bc_payload) -> Self {
        bc_value {
            kind,
            tag: 0,
            reserved: 0,
            len: 0,
            data,
        }
    }

    #[inline(always)]
    fn sized(kind: bc_type, tag: u8, len: usize, data: bc_payload) -> Self {
        bc_value {
            kind,
            tag,
            reserved: 0,
            // Sizes come from the decoder, which caps them at i32::MAX.
            len: u32::try_from(len).unwrap_or(u32::MAX),
            data,
        }
    }

    /// Number of child nodes at `data.items`.
    pub(crate) fn child_count(&self) -> usize {
        match self.kind {
            BC_TYPE_LIST | BC_TYPE_STRUCT => self.len as usize,
            BC_TYPE_MAP => 2 * self.len as usize,
            _ => 0,
        }
    }

    /// The children, for a container made by this library.
    ///
    /// # Safety
    /// `self` is a node made by this library and still valid (see `bc_value`).
    pub(crate) unsafe fn children(&self) -> &[bc_value] {
        let n = self.child_count();
        if n == 0 {
            return &[];
        }
        // SAFETY: `items` is the active member for containers; a node made by this
        // library whose child count is above 0 points to that many initialised nodes in
        // an arena that lives as long as the node.
        let items = unsafe { self.data.items };
        if items.is_null() {
            return &[];
        }
        // SAFETY: see above.
        unsafe { std::slice::from_raw_parts(items, n) }
    }

    /// The bytes of a string, byte array or UUID.
    ///
    /// # Safety
    /// As [`bc_value::children`].
    pub(crate) unsafe fn payload_bytes(&self) -> &[u8] {
        if !matches!(self.kind, BC_TYPE_STRING | BC_TYPE_BYTES | BC_TYPE_UUID) || self.len == 0 {
            return &[];
        }
        // SAFETY: for these kinds `bytes` (same pointer as `s`) is the active member and
        // points to `len` bytes that live as long as the node.
        let p = unsafe { self.data.bytes };
        if p.is_null() {
            return &[];
        }
        // SAFETY: see above.
        unsafe { std::slice::from_raw_parts(p, self.len as usize) }
    }

    /// The string of a string node made by this library (checked UTF-8 by the decoder;
    /// checked again here, since a forged node must not become an invalid `&str`).
    ///
    /// # Safety
    /// As [`bc_value::children`].
    pub(crate) unsafe fn str(&self) -> Option<&str> {
        if self.kind != BC_TYPE_STRING {
            return None;
        }
        // SAFETY: forwarded contract.
        std::str::from_utf8(unsafe { self.payload_bytes() }).ok()
    }
}

// ---------------------------------------------------------------------------------------
// The arena and the builder
// ---------------------------------------------------------------------------------------

/// Storage with stable addresses: chunks that never reallocate.
pub(crate) struct Arena<T> {
    chunks: Vec<Vec<T>>,
    current: usize,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            chunks: Vec::new(),
            current: 0,
        }
    }
}

/// The first chunk's size in items; later chunks double up to [`MAX_CHUNK`].
const FIRST_CHUNK: usize = 256;
const MAX_CHUNK: usize = 1 << 16;

impl<T: Copy> Arena<T> {
    /// Forgets every item (keeps the memory).
    pub(crate) fn clear(&mut self) {
        for c in &mut self.chunks {
            c.clear();
        }
        self.current = 0;
    }

    /// Forgets every item and frees the chunks beyond the first `keep` items of
    /// capacity.
    fn clear_and_trim(&mut self, keep: usize) {
        self.clear();
        let mut total = 0usize;
        let kept = self
            .chunks
            .iter()
            .take_while(|c| {
                total += c.capacity();
                total <= keep
            })
            .count();
        self.chunks.truncate(kept);
    }

    /// Bytes of capacity held.
    #[cfg(test)]
    fn capacity_bytes(&self) -> usize {
        self.chunks.iter().map(Vec::capacity).sum::<usize>() * size_of::<T>()
    }

    /// [`Arena::alloc`], or NULL for no items (the `items` of an empty container).
    #[inline]
    fn block(&mut self, items: &[T]) -> *const T {
        if items.is_empty() {
            std::ptr::null()
        } else {
            self.alloc(items)
        }
    }

    /// Copies `items` into the arena, contiguously; returns their address (stable until
    /// the next clear).
    #[inline]
    fn alloc(&mut self, items: &[T]) -> *const T {
        loop {
            if let Some(chunk) = self.chunks.get_mut(self.current) {
                if chunk.capacity() - chunk.len() >= items.len() {
                    let start = chunk.len();
                    // Within capacity: no reallocation, earlier items keep their address.
                    chunk.extend_from_slice(items);
                    return chunk.as_ptr().wrapping_add(start);
                }
                self.current += 1;
                continue;
            }
            let last = self.chunks.last().map_or(0, Vec::capacity);
            let size = (last * 2).clamp(FIRST_CHUNK, MAX_CHUNK).max(items.len());
            self.chunks.push(Vec::with_capacity(size));
            self.current = self.chunks.len() - 1;
        }
    }
}

/// A value tree under construction and, once built, its root.
///
/// The decoder's [`Visitor`] walk feeds the nodes; they are built in a scratch stack (a
/// container's node followed by its children so far) and, when the decoder says a
/// container is complete ([`Visitor::end`]), its children move to the arena as one
/// contiguous block. The tree counts no items itself: which items belong to which
/// container is the decoder's business. Scratch and arena only ever hold nodes that were
/// actually decoded, one per item of at least one input byte, so memory stays
/// proportional to the input (a few tens of bytes per input byte at most) whatever the
/// headers claim. (Writing children straight into slots reserved at the header was
/// measured slower.)
#[derive(Default)]
pub(crate) struct Tree {
    arena: Arena<bc_value>,
    /// UUID payloads (16 bytes do not fit in a node).
    uuids: Arena<[u8; 16]>,
    /// Nodes of the containers still open, each followed by its children so far.
    scratch: Vec<bc_value>,
    /// For each container still open, where its children start in `scratch` (its own
    /// node is just before).
    open: Vec<usize>,
    /// The root node of the last value built. It is kept in the arena, not here: the
    /// handle holding the tree is reborrowed mutably by every later call on it, which
    /// would invalidate a pointer into the handle itself while C still reads it.
    root: Option<*const bc_value>,
    /// The values of a list under construction (see [`Tree::start_list`]).
    roots: Vec<bc_value>,
}

/// Memory a tree keeps for reuse once its values are dead, per buffer: 262 144 nodes
/// (4 MiB; every benchmark workload fits, so steady decoding allocates nothing). A
/// larger value's memory is given back, so that one huge value does not stay allocated
/// for the life of the handle.
const KEEP_NODES: usize = 1 << 18;

impl Tree {
    /// Forgets the last value and frees its memory beyond [`KEEP_NODES`] nodes per
    /// buffer.
    pub(crate) fn clear_and_trim(&mut self) {
        self.clear();
        self.arena.clear_and_trim(KEEP_NODES);
        self.uuids.clear_and_trim(KEEP_NODES / 16);
        self.trim_scratch();
    }

    /// Frees the build buffers' memory beyond [`KEEP_NODES`] nodes (they are empty
    /// between builds; the values are not touched).
    pub(crate) fn trim_scratch(&mut self) {
        self.scratch.shrink_to(KEEP_NODES);
        self.open.shrink_to(KEEP_NODES);
        self.roots.shrink_to(KEEP_NODES);
    }

    /// Bytes of memory the tree holds (values and build buffers).
    #[cfg(test)]
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.arena.capacity_bytes()
            + self.uuids.capacity_bytes()
            + self.scratch.capacity() * size_of::<bc_value>()
            + self.open.capacity() * size_of::<usize>()
            + self.roots.capacity() * size_of::<bc_value>()
    }

    /// Forgets the last value (keeps the memory).
    pub(crate) fn clear(&mut self) {
        self.arena.clear();
        self.uuids.clear();
        self.scratch.clear();
        self.open.clear();
        self.root = None;
    }

    /// The root of the last value built. Its address is stable until the next build or
    /// clear.
    pub(crate) fn root(&self) -> Option<*const bc_value> {
        self.root
    }

    /// Builds the next complete value of `dec`, which must be at a value boundary
    /// (`dec.is_complete()`), as the only value of the tree.
    pub(crate) fn build(&mut self, dec: &mut Decoder<'_>) -> Res {
        self.clear();
        let root = self.build_value(dec)?;
        self.root = Some(self.arena.alloc(std::slice::from_ref(&root)));
        Ok(())
    }

    /// Starts a tree of several values (see [`Tree::push_value`], [`Tree::finish_list`]).
    pub(crate) fn start_list(&mut self) {
        self.clear();
        self.roots.clear();
    }

    /// Builds the next value of a tree begun with [`Tree::start_list`].
    pub(crate) fn push_value(&mut self, dec: &mut Decoder<'_>) -> Res {
        let v = self.build_value(dec)?;
        self.roots.push(v);
        Ok(())
    }

    /// Makes the values pushed since [`Tree::start_list`] the items of a list root.
    pub(crate) fn finish_list(&mut self) -> Res {
        let len = self.roots.len();
        if u32::try_from(len).is_err() {
            return Err(ffi::invalid("more than 4 294 967 295 values"));
        }
        let items = self.arena.block(&self.roots);
        self.roots.clear();
        let list = bc_value::sized(BC_TYPE_LIST, 0, len, bc_payload { items });
        self.root = Some(self.arena.alloc(std::slice::from_ref(&list)));
        Ok(())
    }

    /// Builds one complete value into the arena and returns its (root) node.
    fn build_value(&mut self, dec: &mut Decoder<'_>) -> Res<bc_value> {
        self.scratch.clear();
        self.open.clear();
        dec.visit_value(self)?;
        let root = self.scratch.first().copied();
        self.scratch.clear();
        root.ok_or_else(|| Failure::new(bc_status::BC_ERR_INTERNAL, "no value built"))
    }

    /// Adds a complete item (a scalar).
    #[inline(always)]
    fn leaf(&mut self, node: bc_value) {
        self.scratch.push(node);
    }

    /// Opens a container: its children follow its node until [`Visitor::end`].
    #[inline(always)]
    fn open(&mut self, node: bc_value) {
        self.scratch.push(node);
        self.open.push(self.scratch.len());
    }
}

impl<'a> Visitor<'a> for Tree {
    type Error = packstream::Error;
    #[inline(always)]
    fn null(&mut self) -> Result<(), Self::Error> {
        self.leaf(bc_value::NULL);
        Ok(())
    }

    #[inline(always)]
    fn bool(&mut self, v: bool) -> Result<(), Self::Error> {
        let mut data = bc_payload { i: 0 };
        data.b = v;
        self.leaf(bc_value::scalar(BC_TYPE_BOOL, data));
        Ok(())
    }

    #[inline(always)]
    fn int(&mut self, v: i64) -> Result<(), Self::Error> {
        self.leaf(bc_value::scalar(BC_TYPE_INT, bc_payload { i: v }));
        Ok(())
    }

    #[inline(always)]
    fn float(&mut self, v: f64) -> Result<(), Self::Error> {
        self.leaf(bc_value::scalar(BC_TYPE_FLOAT, bc_payload { f: v }));
        Ok(())
    }

    #[inline(always)]
    fn string(&mut self, v: &'a str, _is_key: bool) -> Result<(), Self::Error> {
        let s = bc_payload {
            s: v.as_ptr().cast(),
        };
        self.leaf(bc_value::sized(BC_TYPE_STRING, 0, v.len(), s));
        Ok(())
    }

    #[inline(always)]
    fn bytes(&mut self, v: &'a [u8]) -> Result<(), Self::Error> {
        let bytes = bc_payload { bytes: v.as_ptr() };
        self.leaf(bc_value::sized(BC_TYPE_BYTES, 0, v.len(), bytes));
        Ok(())
    }

    #[inline(always)]
    fn uuid(&mut self, v: [u8; 16]) -> Result<(), Self::Error> {
        let bytes = self.uuids.alloc(&[v]).cast::<u8>();
        self.leaf(bc_value::sized(BC_TYPE_UUID, 0, 16, bc_payload { bytes }));
        Ok(())
    }

    #[inline(always)]
    fn list(&mut self, len: u32, _capacity: usize) -> Result<(), Self::Error> {
        self.open(bc_value::sized(BC_TYPE_LIST, 0, len as usize, NO_ITEMS));
        Ok(())
    }

    #[inline(always)]
    fn map(&mut self, len: u32, _capacity: usize) -> Result<(), Self::Error> {
        self.open(bc_value::sized(BC_TYPE_MAP, 0, len as usize, NO_ITEMS));
        Ok(())
    }

    #[inline(always)]
    fn structure(&mut self, tag: u8, len: u32, _capacity: usize) -> Result<(), Self::Error> {
        self.open(bc_value::sized(BC_TYPE_STRUCT, tag, len as usize, NO_ITEMS));
        Ok(())
    }

    /// The innermost open container is complete: its children (all the nodes after its
    /// own) move to the arena as one block, and its node points at them (NULL when it
    /// has none).
    #[inline]
    fn end(&mut self) -> Result<(), Self::Error> {
        let Some(start) = self.open.pop() else {
            return Ok(());
        };
        let items = self
            .arena
            .block(self.scratch.get(start..).unwrap_or_default());
        if let Some(node) = self.scratch.get_mut(start.wrapping_sub(1)) {
            node.data.items = items;
        }
        self.scratch.truncate(start);
        Ok(())
    }
}

/// Decode options that accept everything the library itself may have produced, for
/// re-decoding values it encoded (connection events).
pub(crate) fn permissive_options() -> DecodeOptions {
    DecodeOptions::default()
        .with_uuid(true)
        .with_legacy_structs(true)
        .with_limits(packstream::DecodeLimits {
            max_depth: u32::MAX,
            max_string_len: u32::MAX,
            max_bytes_len: u32::MAX,
            max_container_len: u32::MAX,
            max_total_elements: u64::MAX,
        })
}

// ---------------------------------------------------------------------------------------
// Conversions for the core crates (typed views, formatting, re-encoding)
// ---------------------------------------------------------------------------------------

/// A container being converted into a [`ValueRef`].
struct Pending<'a> {
    node: &'a bc_value,
    next: usize,
    items: Vec<ValueRef<'a>>,
    keys: Vec<&'a str>,
}

/// The scalar [`ValueRef`] of a node that is not a non-empty container, or `None` for a
/// container with children.
///
/// # Safety
/// `v` is a node made by this library and still valid.
unsafe fn scalar_ref<'a>(v: &'a bc_value) -> Res<Option<ValueRef<'a>>> {
    Ok(Some(match v.kind {
        BC_TYPE_NULL => ValueRef::Null,
        // SAFETY: `b` is the active member of a BC_TYPE_BOOL node.
        BC_TYPE_BOOL => ValueRef::Bool(unsafe { v.data.b }),
        // SAFETY: `i` is the active member of a BC_TYPE_INT node.
        BC_TYPE_INT => ValueRef::Int(unsafe { v.data.i }),
        // SAFETY: `f` is the active member of a BC_TYPE_FLOAT node.
        BC_TYPE_FLOAT => ValueRef::Float(unsafe { v.data.f }),
        // SAFETY: forwarded contract.
        BC_TYPE_BYTES => ValueRef::Bytes(unsafe { v.payload_bytes() }),
        // SAFETY: forwarded contract.
        BC_TYPE_STRING => ValueRef::String(unsafe { v.str() }.ok_or_else(forged)?),
        BC_TYPE_UUID => {
            // SAFETY: forwarded contract.
            let b = unsafe { v.payload_bytes() };
            ValueRef::Uuid(b.try_into().map_err(|_| forged())?)
        }
        BC_TYPE_LIST if v.len == 0 => ValueRef::List(Vec::new()),
        BC_TYPE_MAP if v.len == 0 => ValueRef::Map(Vec::new()),
        BC_TYPE_STRUCT if v.len == 0 => ValueRef::Struct(StructRef {
            tag: v.tag,
            fields: Vec::new(),
        }),
        BC_TYPE_LIST | BC_TYPE_MAP | BC_TYPE_STRUCT => return Ok(None),
        _ => return Err(forged()),
    }))
}

fn forged() -> Failure {
    ffi::invalid("not a value made by boltcodec")
}

/// Converts a tree into a borrowed [`ValueRef`] (strings and bytes keep pointing at the
/// same memory). Iterative: any depth is safe for the stack.
///
/// # Safety
/// `root` is a node made by this library and still valid.
pub(crate) unsafe fn to_value_ref<'a>(root: &'a bc_value) -> Res<ValueRef<'a>> {
    // SAFETY: forwarded contract.
    if let Some(v) = unsafe { scalar_ref(root) }? {
        return Ok(v);
    }
    let mut stack = vec![Pending {
        node: root,
        next: 0,
        items: Vec::with_capacity(root.len as usize),
        keys: Vec::new(),
    }];
    loop {
        let Some(top) = stack.last_mut() else {
            return Err(forged());
        };
        // SAFETY: `top.node` is reachable from `root`, so made by this library.
        let children = unsafe { top.node.children() };
        if let Some(child) = children.get(top.next) {
            let is_key = top.node.kind == BC_TYPE_MAP && top.next % 2 == 0;
            top.next += 1;
            if is_key {
                // SAFETY: a child of a valid node.
                top.keys.push(unsafe { child.str() }.ok_or_else(forged)?);
                continue;
            }
            // SAFETY: a child of a valid node.
            match unsafe { scalar_ref(child) }? {
                Some(v) => top.items.push(v),
                None => stack.push(Pending {
                    node: child,
                    next: 0,
                    items: Vec::with_capacity(child.len as usize),
                    keys: Vec::new(),
                }),
            }
            continue;
        }
        let Some(done) = stack.pop() else {
            return Err(forged());
        };
        let value = match done.node.kind {
            BC_TYPE_LIST => ValueRef::List(done.items),
            BC_TYPE_MAP => ValueRef::Map(done.keys.into_iter().zip(done.items).collect()),
            _ => ValueRef::Struct(StructRef {
                tag: done.node.tag,
                fields: done.items,
            }),
        };
        match stack.last_mut() {
            Some(parent) => parent.items.push(value),
            None => return Ok(value),
        }
    }
}

/// Writes a tree through the checked writer `w` (pre-order, iterative), node by node:
/// the writer counts each container's items and checks its map keys.
///
/// # Safety
/// `root` is a node made by this library and still valid.
pub(crate) unsafe fn write_tree<S: Sink>(w: &mut Writer<S>, root: &bc_value) -> Res {
    let mut stack: Vec<(&[bc_value], usize)> = Vec::new();
    let mut next = Some(root);
    loop {
        if let Some(v) = next.take() {
            // SAFETY: every node visited is reachable from `root`.
            unsafe { write_node(w, v) }?;
            // SAFETY: as above.
            let children = unsafe { v.children() };
            if children.len() != v.child_count() {
                return Err(forged());
            }
            if !children.is_empty() {
                stack.push((children, 0));
            }
        }
        let Some((items, i)) = stack.last_mut() else {
            return Ok(());
        };
        match items.get(*i) {
            Some(child) => {
                *i += 1;
                next = Some(child);
            }
            None => {
                stack.pop();
            }
        }
    }
}

/// Writes one node (a container's header only).
///
/// # Safety
/// `v` is a node made by this library and still valid.
unsafe fn write_node<S: Sink>(w: &mut Writer<S>, v: &bc_value) -> Res {
    match v.kind {
        BC_TYPE_NULL => w.write_null()?,
        // SAFETY: `b` is the active member of a BC_TYPE_BOOL node.
        BC_TYPE_BOOL => w.write_bool(unsafe { v.data.b })?,
        // SAFETY: `i` is the active member of a BC_TYPE_INT node.
        BC_TYPE_INT => w.write_int(unsafe { v.data.i })?,
        // SAFETY: `f` is the active member of a BC_TYPE_FLOAT node.
        BC_TYPE_FLOAT => w.write_float(unsafe { v.data.f })?,
        // SAFETY: forwarded contract.
        BC_TYPE_BYTES => w.write_bytes(unsafe { v.payload_bytes() })?,
        // SAFETY: forwarded contract.
        BC_TYPE_STRING => w.write_str(unsafe { v.str() }.ok_or_else(forged)?)?,
        BC_TYPE_UUID => {
            // SAFETY: forwarded contract.
            let b: &[u8; 16] = unsafe { v.payload_bytes() }
                .try_into()
                .map_err(|_| forged())?;
            w.write_uuid(b)?;
        }
        BC_TYPE_LIST => w.begin_list(v.len as usize)?,
        BC_TYPE_MAP => w.begin_map(v.len as usize)?,
        BC_TYPE_STRUCT => w.begin_struct(v.tag, v.len as usize)?,
        _ => return Err(forged()),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Accessors
// ---------------------------------------------------------------------------------------

/// The node behind `v`, or the NULL-pointer failure.
///
/// # Safety
/// `v` is NULL or a value made by this library and still valid.
unsafe fn node<'a>(v: *const bc_value) -> Res<&'a bc_value> {
    // SAFETY: forwarded contract.
    unsafe { ffi::handle_ref(v) }
}

fn wrong_type(v: &bc_value, wanted: &str) -> Failure {
    Failure::new(
        bc_status::BC_ERR_WRONG_TYPE,
        format!("expected {wanted}, found {}", type_name(v.kind)),
    )
}

fn type_name(kind: bc_type) -> &'static str {
    match kind {
        BC_TYPE_NULL => "null",
        BC_TYPE_BOOL => "boolean",
        BC_TYPE_INT => "integer",
        BC_TYPE_FLOAT => "float",
        BC_TYPE_BYTES => "bytes",
        BC_TYPE_STRING => "string",
        BC_TYPE_LIST => "list",
        BC_TYPE_MAP => "map",
        BC_TYPE_STRUCT => "structure",
        BC_TYPE_UUID => "uuid",
        _ => "unknown",
    }
}

fn expect_kind(v: &bc_value, kind: bc_type) -> Res {
    if v.kind == kind {
        Ok(())
    } else {
        Err(wrong_type(v, type_name(kind)))
    }
}

fn out_of_range(index: usize, len: usize) -> Failure {
    Failure::new(
        bc_status::BC_ERR_OUT_OF_RANGE,
        format!("index {index} is beyond the {len} items"),
    )
}

/// The child at `index` of a container of `kind` (maps: `index` counts nodes).
///
/// # Safety
/// `v` is a value made by this library and still valid.
unsafe fn child(v: &bc_value, kind: bc_type, index: usize, len: usize) -> Res<&bc_value> {
    expect_kind(v, kind)?;
    // SAFETY: forwarded contract.
    let children = unsafe { v.children() };
    children.get(index).ok_or_else(|| out_of_range(index, len))
}

/// The boolean of a `BC_TYPE_BOOL` value.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER` (`v` or `out` NULL); `BC_ERR_WRONG_TYPE`
/// (another type; `*out` is not written).
///
/// # Safety
/// `v` is NULL or a value handed out by this library and still valid; `out` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_bool(v: *const bc_value, out: *mut bool) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, out) = unsafe { (node(v)?, Out::new(out)?) };
        expect_kind(v, BC_TYPE_BOOL)?;
        // SAFETY: the active member for BC_TYPE_BOOL.
        out.set(unsafe { v.data.b });
        Ok(())
    })
}

/// The integer of a `BC_TYPE_INT` value.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_WRONG_TYPE` (another type, including
/// a float: there is no implicit conversion).
///
/// # Safety
/// As `bc_value_as_bool`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_int(v: *const bc_value, out: *mut i64) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, out) = unsafe { (node(v)?, Out::new(out)?) };
        expect_kind(v, BC_TYPE_INT)?;
        // SAFETY: the active member for BC_TYPE_INT.
        out.set(unsafe { v.data.i });
        Ok(())
    })
}

/// The float of a `BC_TYPE_FLOAT` value (bits unchanged, NaN payloads included).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_WRONG_TYPE`.
///
/// # Safety
/// As `bc_value_as_bool`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_float(v: *const bc_value, out: *mut f64) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, out) = unsafe { (node(v)?, Out::new(out)?) };
        expect_kind(v, BC_TYPE_FLOAT)?;
        // SAFETY: the active member for BC_TYPE_FLOAT.
        out.set(unsafe { v.data.f });
        Ok(())
    })
}

/// The UTF-8 bytes of a `BC_TYPE_STRING` value: `*ptr` and `*len`. The string is **not**
/// NUL-terminated (see `bc_value_copy_string`); it lives as long as the value.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_WRONG_TYPE`.
///
/// # Safety
/// `v` is NULL or a value handed out by this library and still valid; `ptr` and `len`
/// are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_string(
    v: *const bc_value,
    ptr: *mut *const c_char,
    len: *mut usize,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, ptr, len) = unsafe { (node(v)?, Out::new(ptr)?, Out::new(len)?) };
        expect_kind(v, BC_TYPE_STRING)?;
        // SAFETY: the active member for BC_TYPE_STRING.
        ptr.set(unsafe { v.data.s });
        len.set(v.len as usize);
        Ok(())
    })
}

/// The bytes of a `BC_TYPE_BYTES` value: `*ptr` and `*len` (they live as long as the
/// value; `*ptr` may be NULL when `*len` is 0).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_WRONG_TYPE`.
///
/// # Safety
/// As `bc_value_as_string`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_bytes(
    v: *const bc_value,
    ptr: *mut *const u8,
    len: *mut usize,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, ptr, len) = unsafe { (node(v)?, Out::new(ptr)?, Out::new(len)?) };
        expect_kind(v, BC_TYPE_BYTES)?;
        // SAFETY: the active member for BC_TYPE_BYTES.
        ptr.set(unsafe { v.data.bytes });
        len.set(v.len as usize);
        Ok(())
    })
}

/// Copies the 16 bytes (RFC 4122 order) of a `BC_TYPE_UUID` value to `out`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_WRONG_TYPE`.
///
/// # Safety
/// `v` as `bc_value_as_bool`; `out` is NULL or writable for 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_uuid(v: *const bc_value, out: *mut u8) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract (16 writable bytes).
        let (v, out) = unsafe { (node(v)?, Out::new(out.cast::<[u8; 16]>())?) };
        expect_kind(v, BC_TYPE_UUID)?;
        // SAFETY: a value made by this library.
        let bytes: [u8; 16] = unsafe { v.payload_bytes() }
            .try_into()
            .map_err(|_| forged())?;
        out.set(bytes);
        Ok(())
    })
}

/// The length of any sized value: bytes of a string or byte array, 16 for a UUID, items
/// of a list, entries of a map, fields of a structure.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_WRONG_TYPE` (null, boolean, integer,
/// float).
///
/// # Safety
/// As `bc_value_as_bool`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_len(v: *const bc_value, out: *mut usize) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, out) = unsafe { (node(v)?, Out::new(out)?) };
        match v.kind {
            BC_TYPE_STRING | BC_TYPE_BYTES | BC_TYPE_UUID | BC_TYPE_LIST | BC_TYPE_MAP
            | BC_TYPE_STRUCT => {
                out.set(v.len as usize);
                Ok(())
            }
            _ => Err(wrong_type(v, "a sized value")),
        }
    })
}

/// The item at `index` of a `BC_TYPE_LIST` value. `*out` lives as long as the list.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_WRONG_TYPE`; `BC_ERR_OUT_OF_RANGE`
/// (`index >= len`).
///
/// # Safety
/// `v` as `bc_value_as_bool`; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_value_list_get(
    v: *const bc_value,
    index: usize,
    out: *mut *const bc_value,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, out) = unsafe { (node(v)?, Out::new(out)?) };
        // SAFETY: a value made by this library.
        let item = unsafe { child(v, BC_TYPE_LIST, index, v.len as usize) }?;
        out.set(item);
        Ok(())
    })
}

/// The entry at `index` (wire order) of a `BC_TYPE_MAP` value: its key as UTF-8 bytes
/// (`*key`, `*key_len`, not NUL-terminated) and its value (`*value`). All live as long as
/// the map. `key` and `key_len` may both be NULL when the key is not wanted, `value` when
/// the value is not wanted.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER` (`v` NULL, or only one of `key`/`key_len`
/// NULL); `BC_ERR_WRONG_TYPE`; `BC_ERR_OUT_OF_RANGE` (`index >= len`).
///
/// # Safety
/// `v` as `bc_value_as_bool`; the output pointers are NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_value_map_entry(
    v: *const bc_value,
    index: usize,
    key: *mut *const c_char,
    key_len: *mut usize,
    value: *mut *const bc_value,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let v = unsafe { node(v)? };
        let want_key = !key.is_null() || !key_len.is_null();
        let key_out = if want_key {
            // SAFETY: forwarded contract (NULL is checked: both or neither may be NULL).
            Some(unsafe { (Out::new(key)?, Out::new(key_len)?) })
        } else {
            None
        };
        let value_out = if value.is_null() {
            None
        } else {
            // SAFETY: forwarded contract; not NULL here.
            Some(unsafe { Out::new(value)? })
        };
        let len = v.len as usize;
        let at = index
            .checked_mul(2)
            .ok_or_else(|| out_of_range(index, len))?;
        // SAFETY: a value made by this library.
        let k = unsafe { child(v, BC_TYPE_MAP, at, len) }.map_err(|e| {
            if e.status == bc_status::BC_ERR_OUT_OF_RANGE {
                out_of_range(index, len)
            } else {
                e
            }
        })?;
        // SAFETY: a value made by this library.
        let val = unsafe { child(v, BC_TYPE_MAP, at + 1, len) }?;
        if let Some((kp, kl)) = key_out {
            // SAFETY: keys are string nodes; the active member is `s`.
            kp.set(unsafe { k.data.s });
            kl.set(k.len as usize);
        }
        if let Some(o) = value_out {
            o.set(val);
        }
        Ok(())
    })
}

/// Looks up `key` (`key_len` bytes, need not be NUL-terminated) in a `BC_TYPE_MAP`
/// value. With duplicate keys the last entry wins (the PackStream rule). `*out` lives as
/// long as the map.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER` (`v`, `out`, or `key` with `key_len > 0`);
/// `BC_ERR_WRONG_TYPE`; `BC_ERR_NOT_FOUND` (`*out` is not written).
///
/// # Safety
/// `v` as `bc_value_as_bool`; `key` is NULL or readable for `key_len` bytes; `out` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_value_map_get(
    v: *const bc_value,
    key: *const c_char,
    key_len: usize,
    out: *mut *const bc_value,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, key, out) = unsafe { (node(v)?, ffi::bytes(key.cast(), key_len)?, Out::new(out)?) };
        expect_kind(v, BC_TYPE_MAP)?;
        // SAFETY: a value made by this library.
        let children = unsafe { v.children() };
        let is_key = |k: &bc_value| {
            // SAFETY: the keys of a valid map are valid string nodes.
            let bytes = unsafe { k.payload_bytes() };
            bytes == key
        };
        let found = children
            .chunks_exact(2)
            .rev()
            .find(|pair| pair.first().is_some_and(is_key))
            .and_then(|pair| pair.get(1));
        match found {
            Some(val) => {
                out.set(val);
                Ok(())
            }
            None => Err(Failure::new(
                bc_status::BC_ERR_NOT_FOUND,
                format!("no entry {:?}", String::from_utf8_lossy(key)),
            )),
        }
    })
}

/// The tag of a `BC_TYPE_STRUCT` value (also in its `tag` field).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_WRONG_TYPE`.
///
/// # Safety
/// As `bc_value_as_bool`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_struct_tag(v: *const bc_value, out: *mut u8) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, out) = unsafe { (node(v)?, Out::new(out)?) };
        expect_kind(v, BC_TYPE_STRUCT)?;
        out.set(v.tag);
        Ok(())
    })
}

/// The field at `index` of a `BC_TYPE_STRUCT` value. `*out` lives as long as the
/// structure.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_WRONG_TYPE`; `BC_ERR_OUT_OF_RANGE`.
///
/// # Safety
/// As `bc_value_list_get`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_struct_field(
    v: *const bc_value,
    index: usize,
    out: *mut *const bc_value,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, out) = unsafe { (node(v)?, Out::new(out)?) };
        // SAFETY: a value made by this library.
        let field = unsafe { child(v, BC_TYPE_STRUCT, index, v.len as usize) }?;
        out.set(field);
        Ok(())
    })
}

/// Copies a `BC_TYPE_STRING` value into `buf` with a NUL terminator. `*needed` (if
/// `needed` is not NULL) receives the size needed, `len + 1`, whatever the outcome. Call
/// with `buf` NULL and `cap` 0 to learn the size. Strings may contain NUL bytes; they are
/// copied as they are.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER` (`v` NULL, or `buf` NULL with `cap > 0`);
/// `BC_ERR_WRONG_TYPE`; `BC_ERR_BUFFER_TOO_SMALL` (`cap < len + 1`; `buf` is not
/// written).
///
/// # Safety
/// `v` as `bc_value_as_bool`; `buf` is NULL or writable for `cap` bytes; `needed` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_value_copy_string(
    v: *const bc_value,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, buf) = unsafe { (node(v)?, OutBuf::new(buf.cast(), cap)?) };
        expect_kind(v, BC_TYPE_STRING)?;
        // SAFETY: a value made by this library.
        let bytes = unsafe { v.payload_bytes() };
        // SAFETY: forwarded contract; NULL means "not wanted".
        if let Ok(n) = unsafe { Out::new(needed) } {
            n.set(bytes.len() + 1);
        }
        buf.write_cstr(bytes).map(|_| ())
    })
}

/// Writes a readable, Cypher-like rendering of a value into `buf` (NUL-terminated):
/// `{name: "Alice", born: date("1990-05-17")}`, `(:Person {name: "Bob"})`, `[1, 2.0]`, …
/// Bolt structures are read for `*version` when `version` is not NULL (then one that is
/// not valid there shows as `broken(…)`), else under whichever version fits. `*needed`
/// (if not NULL) receives the size needed including the NUL, whatever the outcome; call
/// with `buf` NULL and `cap` 0 to learn it.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER` (`v` NULL, or `buf` NULL with `cap > 0`);
/// `BC_ERR_UNKNOWN_VERSION` (a version `bc_version_is_known` denies);
/// `BC_ERR_BUFFER_TOO_SMALL` (`buf` is not written).
///
/// # Safety
/// `v` as `bc_value_as_bool`; `version` is NULL or readable; `buf` is NULL or writable
/// for `cap` bytes; `needed` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_value_format(
    v: *const bc_value,
    version: *const crate::handshake::bc_version,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (v, buf) = unsafe { (node(v)?, OutBuf::new(buf.cast(), cap)?) };
        // SAFETY: forwarded contract; NULL means "any version".
        let version = match unsafe { version.as_ref() } {
            Some(ver) => Some(ver.to_bolt()?),
            None => None,
        };
        // SAFETY: a value made by this library.
        let value = unsafe { to_value_ref(v) }?;
        let display = bolt::structs::DisplayValue::new(&value);
        let text = match version {
            Some(ver) => display.with_version(ver).to_string(),
            None => display.to_string(),
        };
        // SAFETY: forwarded contract; NULL means "not wanted".
        if let Ok(n) = unsafe { Out::new(needed) } {
            n.set(text.len() + 1);
        }
        buf.write_cstr(text.as_bytes()).map(|_| ())
    })
}
