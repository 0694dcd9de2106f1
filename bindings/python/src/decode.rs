//! PackStream bytes → Python objects, built straight from the core [`Decoder`]'s tokens:
//! no intermediate Rust tree, exact-capacity lists and pre-sized dicts, a cache for short
//! map keys, and no recursion (an explicit stack; the core decoder enforces the depth
//! limit).
//!
//! Structure hooks are *deferred*: while the input is borrowed no Python code is called;
//! the hooks run afterwards in the order the pure-Python driver calls them (post-order:
//! inner structures first), and each result replaces its structure in the parent.

use std::sync::{Mutex, MutexGuard};

use packstream::{DecodeOptions, Decoder, Token};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyString};

use crate::ffi::{self, ListBuilder, ListHandle};
use crate::structure::Structure;

/// Why decoding stopped: bad input, or a Python error (memory, a failing `UUID()`).
pub(crate) enum Failure {
    /// The input is not valid PackStream.
    Decode(packstream::Error),
    /// A Python exception.
    Py(PyErr),
}

impl From<packstream::Error> for Failure {
    fn from(e: packstream::Error) -> Self {
        Failure::Decode(e)
    }
}

impl From<PyErr> for Failure {
    fn from(e: PyErr) -> Self {
        Failure::Py(e)
    }
}

impl Failure {
    /// The Python exception, for an input whose offsets start at `base` in the caller's
    /// buffer `whole`.
    pub(crate) fn into_pyerr(self, py: Python<'_>, base: usize, whole: &[u8]) -> PyErr {
        match self {
            Failure::Decode(e) => crate::errors::decode_error(py, e.shifted(base), whole),
            Failure::Py(e) => e,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Map key cache
// ---------------------------------------------------------------------------------------

/// Keys up to this many bytes are cached.
const KEY_MAX: usize = 32;
/// Number of slots (a power of two).
const KEY_SLOTS: usize = 1024;

/// A direct-mapped cache of interned `str` objects for short map keys, shared by all
/// decodes. Keys repeat across messages (property names, metadata keys), so this saves
/// creating and hashing a new string for most keys.
struct KeyCache {
    slots: Vec<Option<(Box<str>, Py<PyString>)>>,
}

static KEY_CACHE: Mutex<KeyCache> = Mutex::new(KeyCache { slots: Vec::new() });

#[inline]
fn key_hash(s: &[u8]) -> usize {
    // FNV-1a: short keys, good enough spread, no dependency.
    let mut h: u32 = 0x811c_9dc5;
    for &b in s {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    (h as usize) & (KEY_SLOTS - 1)
}

impl KeyCache {
    #[inline]
    fn get<'py>(&mut self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        if key.len() > KEY_MAX {
            return Ok(ffi::new_str(py, key)?.into_any());
        }
        if self.slots.is_empty() {
            self.slots.resize_with(KEY_SLOTS, || None);
        }
        let slot = key_hash(key.as_bytes());
        if let Some(Some((k, obj))) = self.slots.get(slot) {
            if &**k == key {
                return Ok(obj.bind(py).clone().into_any());
            }
        }
        let obj = PyString::intern(py, key);
        if let Some(entry) = self.slots.get_mut(slot) {
            *entry = Some((key.into(), obj.clone().unbind()));
        }
        Ok(obj.into_any())
    }
}

// ---------------------------------------------------------------------------------------
// Builder
// ---------------------------------------------------------------------------------------

/// Where a structure waiting for its hook sits, so the hook's result can replace it.
enum Parent<'py> {
    /// The value being built is the structure itself.
    Root,
    /// `list[index]` (a list or a structure's field list).
    List(ListHandle<'py>, usize),
    /// `dict[key]`.
    Dict(Bound<'py, PyDict>, Bound<'py, PyAny>),
}

/// A list being filled: exact capacity, or (when the input cannot be trusted to hold the
/// declared items, see `Builder::promised`) grown item by item.
enum Items<'py> {
    Exact(ListBuilder<'py>),
    Grow {
        list: Bound<'py, PyList>,
        len: usize,
    },
}

impl<'py> Items<'py> {
    fn new(py: Python<'py>, len: usize, exact: bool) -> PyResult<Self> {
        Ok(if exact {
            Items::Exact(ListBuilder::new(py, len)?)
        } else {
            Items::Grow {
                list: PyList::empty(py),
                len,
            }
        })
    }

    /// Index of the next slot.
    #[inline]
    fn next_index(&self) -> usize {
        match self {
            Items::Exact(b) => b.filled(),
            Items::Grow { list, .. } => list.len(),
        }
    }

    /// A handle on the list object (for hooks to write back into later).
    fn handle(&self) -> ListHandle<'py> {
        match self {
            Items::Exact(b) => b.handle(),
            Items::Grow { list, .. } => ListHandle::from_list(list.clone()),
        }
    }

    #[inline]
    fn push(&mut self, item: Bound<'py, PyAny>) -> PyResult<bool> {
        match self {
            Items::Exact(b) => {
                b.push(item);
                Ok(b.is_full())
            }
            Items::Grow { list, len } => {
                list.append(item)?;
                Ok(list.len() >= *len)
            }
        }
    }

    #[inline]
    fn finish(self) -> Bound<'py, PyList> {
        match self {
            Items::Exact(b) => b.finish(),
            Items::Grow { list, .. } => list,
        }
    }
}

enum Frame<'py> {
    List(Items<'py>),
    Struct(u8, Items<'py>),
    /// A message's fields: completes to the list itself, never hooked.
    Fields(Items<'py>),
    Map {
        dict: Bound<'py, PyDict>,
        left: u32,
        key: Option<Bound<'py, PyAny>>,
    },
}

/// Options of one decode call, seen from Python.
#[derive(Clone)]
pub(crate) struct Config<'py> {
    pub(crate) opts: DecodeOptions,
    /// Called with each `Structure`; its result replaces it.
    pub(crate) hook: Option<Bound<'py, PyAny>>,
}

/// The state of the key cache lock for one decode.
enum Keys {
    Unlocked,
    Locked(MutexGuard<'static, KeyCache>),
    Busy,
}

/// Builds Python objects from a [`Decoder`]. One per decode call (it holds the key cache
/// lock, taken without waiting: if another thread holds it, this call decodes uncached).
pub(crate) struct Builder<'py> {
    py: Python<'py>,
    hook: Option<Bound<'py, PyAny>>,
    deferred: Vec<(Bound<'py, PyAny>, Parent<'py>)>,
    stack: Vec<Frame<'py>>,
    /// The key cache, locked at the first map key (`Unlocked` until then, `Busy` if
    /// another thread holds it).
    keys: Keys,
    /// Item slots (a map entry counts two) promised by the open containers and not yet
    /// filled. Every slot needs at least one byte, so for valid input this never exceeds
    /// the bytes left; a container is only pre-allocated when its own slots fit next to
    /// the others', which bounds pre-allocation by the input size.
    promised: u64,
}

static UUID_CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

#[inline]
fn int(py: Python<'_>, i: i64) -> Bound<'_, PyAny> {
    match i.into_pyobject(py) {
        Ok(v) => v.into_any(),
        Err(never) => match never {},
    }
}

impl<'py> Builder<'py> {
    pub(crate) fn new(py: Python<'py>, hook: Option<Bound<'py, PyAny>>) -> Self {
        Builder {
            py,
            hook,
            deferred: Vec::new(),
            stack: Vec::new(),
            keys: Keys::Unlocked,
            promised: 0,
        }
    }

    /// Releases the key cache (before Python code such as hooks runs).
    pub(crate) fn release_cache(&mut self) {
        self.keys = Keys::Unlocked;
    }

    #[inline]
    fn key(&mut self, s: &str) -> PyResult<Bound<'py, PyAny>> {
        if matches!(self.keys, Keys::Unlocked) {
            self.keys = match KEY_CACHE.try_lock() {
                Ok(guard) => Keys::Locked(guard),
                // A panic while the cache was held (none is expected) cannot have left it
                // inconsistent: a slot is replaced by one assignment of a key with the
                // interned string of that very key.
                Err(std::sync::TryLockError::Poisoned(p)) => Keys::Locked(p.into_inner()),
                // Held by another thread, or by an outer decode on this thread (a hook or a
                // finalizer that decodes): decode uncached rather than wait.
                Err(std::sync::TryLockError::WouldBlock) => Keys::Busy,
            };
        }
        match &mut self.keys {
            Keys::Locked(cache) => cache.get(self.py, s),
            _ => Ok(ffi::new_str(self.py, s)?.into_any()),
        }
    }

    fn uuid(&self, bytes: [u8; 16]) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        let cls = UUID_CLASS.import(py, "uuid", "UUID")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("bytes", PyBytes::new(py, &bytes))?;
        cls.call((), Some(&kwargs))
    }

    /// Opens a container of `slots` item slots; returns whether to pre-allocate it.
    #[inline]
    fn open(&mut self, slots: u64, remaining_bytes: usize) -> bool {
        let nested = !self.stack.is_empty();
        let others = self.promised.saturating_sub(u64::from(nested));
        self.promised = others.saturating_add(slots);
        self.promised <= remaining_bytes as u64
    }

    /// A scalar (or empty container) filled one slot.
    #[inline]
    fn filled(&mut self) {
        if !self.stack.is_empty() {
            self.promised = self.promised.saturating_sub(1);
        }
    }

    fn make_struct(
        &mut self,
        tag: u8,
        fields: Bound<'py, PyList>,
    ) -> PyResult<(Bound<'py, PyAny>, bool)> {
        let obj = Structure::from_parts(self.py, tag, fields)?.into_any();
        Ok((obj, self.hook.is_some()))
    }

    /// Reads one complete value at the decoder's position.
    ///
    /// Structures waiting for the hook are recorded; call [`Builder::run_hooks`] once the
    /// input is no longer borrowed.
    pub(crate) fn read_value(
        &mut self,
        dec: &mut Decoder<'_>,
    ) -> Result<Bound<'py, PyAny>, Failure> {
        self.build(dec, None)
    }

    /// Reads a Bolt message (a structure) into `(tag, fields)`. Hooks apply to the
    /// structures inside the fields, not to the message itself.
    pub(crate) fn read_message(
        &mut self,
        dec: &mut Decoder<'_>,
    ) -> Result<(u8, Bound<'py, PyList>), Failure> {
        let start = dec.position();
        let marker = dec.remaining().first().copied().unwrap_or(0);
        let (tag, len) = match dec.next_token()? {
            Token::Struct { tag, len } => (tag, len),
            _ => {
                return Err(Failure::Py(crate::errors::decode_error_msg(
                    self.py,
                    "not_a_message",
                    start as u64,
                    "a structure (a Bolt message)",
                    format!(
                        "expected a structure (a Bolt message) at byte {start}, \
                         found marker {marker:02X}"
                    ),
                )));
            }
        };
        if len == 0 {
            return Ok((tag, PyList::empty(self.py)));
        }
        let exact = self.open(u64::from(len), dec.remaining().len());
        let items = Items::new(self.py, len as usize, exact)?;
        let fields = self.build(dec, Some(Frame::Fields(items)))?;
        // `Fields` completes to the list itself.
        Ok((tag, fields.cast_into::<PyList>().map_err(PyErr::from)?))
    }

    fn build(
        &mut self,
        dec: &mut Decoder<'_>,
        initial: Option<Frame<'py>>,
    ) -> Result<Bound<'py, PyAny>, Failure> {
        let py = self.py;
        let base = self.stack.len();
        if let Some(frame) = initial {
            self.stack.push(frame);
        }
        loop {
            let in_key = matches!(self.stack.last(), Some(Frame::Map { key: None, .. }));
            let tok = dec.next_token()?;
            let (mut value, mut hooked): (Bound<'py, PyAny>, bool) = match tok {
                Token::Null => (py.None().into_bound(py), false),
                Token::Bool(b) => (PyBool::new(py, b).to_owned().into_any(), false),
                Token::Int(i) => (int(py, i), false),
                Token::Float(f) => (PyFloat::new(py, f).into_any(), false),
                Token::String(s) => {
                    let v = if in_key {
                        self.key(s)?
                    } else {
                        ffi::new_str(py, s)?.into_any()
                    };
                    (v, false)
                }
                Token::Bytes(b) => (PyBytes::new(py, b).into_any(), false),
                Token::Uuid(u) => (self.uuid(u)?, false),
                Token::List(0) => (PyList::empty(py).into_any(), false),
                Token::Map(0) => (PyDict::new(py).into_any(), false),
                Token::Struct { tag, len: 0 } => self.make_struct(tag, PyList::empty(py))?,
                Token::List(n) => {
                    let exact = self.open(u64::from(n), dec.remaining().len());
                    let items = Items::new(py, n as usize, exact)?;
                    self.stack.push(Frame::List(items));
                    continue;
                }
                Token::Struct { tag, len } => {
                    let exact = self.open(u64::from(len), dec.remaining().len());
                    let items = Items::new(py, len as usize, exact)?;
                    self.stack.push(Frame::Struct(tag, items));
                    continue;
                }
                Token::Map(n) => {
                    let exact = self.open(u64::from(n) * 2, dec.remaining().len());
                    let dict = if exact {
                        ffi::dict_presized(py, n as usize)?
                    } else {
                        PyDict::new(py)
                    };
                    self.stack.push(Frame::Map {
                        dict,
                        left: n,
                        key: None,
                    });
                    continue;
                }
            };
            self.filled();
            // Attach the finished value to its parent; close every parent it completes.
            loop {
                if self.stack.len() <= base {
                    if hooked {
                        self.deferred.push((value.clone(), Parent::Root));
                    }
                    return Ok(value);
                }
                let Some(top) = self.stack.last_mut() else {
                    return Ok(value);
                };
                match top {
                    Frame::List(items) | Frame::Struct(_, items) | Frame::Fields(items) => {
                        if hooked {
                            let at = items.next_index();
                            self.deferred
                                .push((value.clone(), Parent::List(items.handle(), at)));
                        }
                        if !items.push(value)? {
                            break;
                        }
                    }
                    Frame::Map { dict, left, key } => match key.take() {
                        None => {
                            *key = Some(value);
                            break;
                        }
                        Some(k) => {
                            if hooked {
                                self.deferred
                                    .push((value.clone(), Parent::Dict(dict.clone(), k.clone())));
                            }
                            ffi::dict_set(dict, &k, &value)?;
                            *left = left.saturating_sub(1);
                            if *left > 0 {
                                break;
                            }
                        }
                    },
                }
                // The top container is complete.
                let Some(frame) = self.stack.pop() else {
                    // Unreachable: the stack was checked to be non-empty above.
                    return Err(Failure::Py(pyo3::exceptions::PySystemError::new_err(
                        "boltcodec: decoder stack underflow",
                    )));
                };
                (value, hooked) = match frame {
                    Frame::List(items) | Frame::Fields(items) => (items.finish().into_any(), false),
                    Frame::Struct(tag, items) => self.make_struct(tag, items.finish())?,
                    Frame::Map { dict, .. } => (dict.into_any(), false),
                };
            }
        }
    }

    /// Runs the structure hook on every recorded structure, innermost first, and puts each
    /// result in its structure's place; returns the (possibly replaced) root.
    ///
    /// Call only once the input bytes are no longer borrowed: hooks are Python code.
    pub(crate) fn run_hooks(&mut self, root: Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let Some(hook) = self.hook.clone() else {
            return Ok(root);
        };
        if self.deferred.is_empty() {
            return Ok(root);
        }
        self.release_cache();
        let mut root = root;
        let deferred = std::mem::take(&mut self.deferred);
        for (obj, parent) in deferred {
            let result = {
                let _level =
                    ffi::RecursionGuard::enter(self.py, c" while calling a boltcodec struct_hook")?;
                hook.call1((&obj,))?
            };
            match parent {
                Parent::Root => root = result,
                Parent::List(list, at) => {
                    if list.holds(at, &obj) {
                        list.set(at, result)?;
                    }
                }
                Parent::Dict(dict, key) => {
                    // A duplicate key may have replaced the structure since; the hook still
                    // ran (as in the driver), but the later value stays.
                    if dict.get_item(&key)?.is_some_and(|cur| cur.is(&obj)) {
                        dict.set_item(key, result)?;
                    }
                }
            }
        }
        Ok(root)
    }
}

/// Decodes one value from the start of `buf`; returns it (hooks applied) and the number of
/// bytes it used.
///
/// The hooks run after decoding; `buf` stays borrowed until this returns, so callers must
/// make sure it cannot change meanwhile (see [`ffi::Input::as_slice`]).
pub(crate) fn decode_one<'py>(
    py: Python<'py>,
    buf: &[u8],
    cfg: &Config<'py>,
) -> Result<(Bound<'py, PyAny>, usize), Failure> {
    let mut dec = Decoder::with_options(buf, cfg.opts);
    let mut b = Builder::new(py, cfg.hook.clone());
    let value = b.read_value(&mut dec)?;
    let used = dec.position();
    b.release_cache();
    Ok((b.run_hooks(value)?, used))
}

/// Decodes exactly one value: bytes left over are an error (`trailing_bytes`).
pub(crate) fn decode_exact<'py>(
    py: Python<'py>,
    buf: &[u8],
    cfg: &Config<'py>,
) -> Result<Bound<'py, PyAny>, Failure> {
    let mut dec = Decoder::with_options(buf, cfg.opts);
    let mut b = Builder::new(py, cfg.hook.clone());
    let value = b.read_value(&mut dec)?;
    dec.finish()?;
    b.release_cache();
    Ok(b.run_hooks(value)?)
}
