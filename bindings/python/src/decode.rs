//! PackStream bytes → Python objects, built from the core decoder's walk
//! ([`packstream::Visitor`]): no intermediate Rust tree, exact-capacity lists and
//! pre-sized dicts (sized by the core's capacity hints, which never trust a hostile
//! length), a cache for short map keys, and no recursion. The nesting bookkeeping —
//! counting items, closing containers, the limits, which strings are map keys — is the
//! core's; this module only keeps the Python objects still being filled.
//!
//! Structure hooks are *deferred*: while the input is borrowed no Python code is called;
//! the hooks run afterwards in the order the pure-Python driver calls them (post-order:
//! inner structures first), and each result replaces its structure in the parent.

use std::sync::{Mutex, MutexGuard};

use bolt::inbox::Received;
use bolt::message::MessageError;
use packstream::{DecodeOptions, Decoder, Visitor};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyList, PyString};

use crate::ffi::{self, ListBuilder, ListHandle};
use crate::structure::Structure;

/// Why decoding stopped: bad input, or a Python error (memory, a failing `UUID()`).
pub(crate) enum Failure {
    /// The input is not valid PackStream.
    Decode(packstream::Error),
    /// A Bolt message that is not one (not a structure, or a malformed header).
    Message(MessageError),
    /// A Python exception.
    Py(PyErr),
}

impl From<packstream::Error> for Failure {
    fn from(e: packstream::Error) -> Self {
        Failure::Decode(e)
    }
}

impl From<MessageError> for Failure {
    fn from(e: MessageError) -> Self {
        Failure::Message(e)
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
            Failure::Decode(e) => {
                crate::errors::decode_error(py, &e.shifted(base), whole, e.expected())
            }
            Failure::Message(e) => crate::errors::decode_error(py, &e, whole, e.expected()),
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
        if key.len() > KEY_MAX || key.len() == 1 {
            // One-character keys are CPython's shared Latin-1 strings (see `new_str`),
            // as the driver's own codec gives them; interning would make another object.
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

/// A list being filled: exact capacity when the core says the input can hold every
/// declared item, otherwise grown item by item (such input fails before the end).
enum Items<'py> {
    Exact(ListBuilder<'py>),
    Grow(Bound<'py, PyList>),
}

impl<'py> Items<'py> {
    #[inline]
    fn new(py: Python<'py>, len: u32, capacity: usize) -> PyResult<Self> {
        Ok(if capacity >= len as usize {
            Items::Exact(ListBuilder::new(py, len as usize)?)
        } else {
            Items::Grow(PyList::empty(py))
        })
    }

    /// Index of the next slot.
    #[inline]
    fn next_index(&self) -> usize {
        match self {
            Items::Exact(b) => b.filled(),
            Items::Grow(list) => list.len(),
        }
    }

    /// A handle on the list object (for hooks to write back into later).
    fn handle(&self) -> ListHandle<'py> {
        match self {
            Items::Exact(b) => b.handle(),
            Items::Grow(list) => ListHandle::from_list(list.clone()),
        }
    }

    #[inline]
    fn push(&mut self, item: Bound<'py, PyAny>) -> PyResult<()> {
        match self {
            Items::Exact(b) => {
                b.push(item);
                Ok(())
            }
            Items::Grow(list) => list.append(item),
        }
    }

    #[inline]
    fn finish(self) -> Bound<'py, PyList> {
        match self {
            Items::Exact(b) => b.finish(),
            Items::Grow(list) => list,
        }
    }
}

/// A container being filled.
enum Frame<'py> {
    List(Items<'py>),
    Struct(u8, Items<'py>),
    Map {
        dict: Bound<'py, PyDict>,
        /// The key read, waiting for its value.
        key: Option<Bound<'py, PyAny>>,
    },
    /// The list a message's fields are appended to: under the values the decoder walks,
    /// never announced or closed by it.
    Fields(Bound<'py, PyList>),
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

/// Builds Python objects as the core [`Decoder`] walks the input (it is the
/// [`Visitor`]). One per decode call or per batch of messages (it holds the key cache
/// lock, taken without waiting: if another thread holds it, this call decodes
/// uncached).
pub(crate) struct Builder<'py> {
    py: Python<'py>,
    hook: Option<Bound<'py, PyAny>>,
    deferred: Vec<(Bound<'py, PyAny>, Parent<'py>)>,
    /// The open containers, outermost first.
    stack: Vec<Frame<'py>>,
    /// The last value completed outside any container.
    root: Option<Bound<'py, PyAny>>,
    /// The key cache, locked at the first map key (`Unlocked` until then, `Busy` if
    /// another thread holds it).
    keys: Keys,
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
            root: None,
            keys: Keys::Unlocked,
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

    /// Puts a complete value in its place: the open container, or the root.
    #[inline]
    fn attach(&mut self, value: Bound<'py, PyAny>, hooked: bool) -> PyResult<()> {
        match self.stack.last_mut() {
            Some(Frame::List(items) | Frame::Struct(_, items)) => {
                if hooked {
                    let at = items.next_index();
                    self.deferred
                        .push((value.clone(), Parent::List(items.handle(), at)));
                }
                items.push(value)
            }
            Some(Frame::Map { dict, key }) => match key.take() {
                None => {
                    *key = Some(value);
                    Ok(())
                }
                Some(k) => {
                    if hooked {
                        self.deferred
                            .push((value.clone(), Parent::Dict(dict.clone(), k.clone())));
                    }
                    ffi::dict_set(dict, &k, &value).map(|_| ())
                }
            },
            Some(Frame::Fields(list)) => {
                if hooked {
                    let at = list.len();
                    self.deferred.push((
                        value.clone(),
                        Parent::List(ListHandle::from_list(list.clone()), at),
                    ));
                }
                list.append(value)
            }
            None => {
                if hooked {
                    self.deferred.push((value.clone(), Parent::Root));
                }
                self.root = Some(value);
                Ok(())
            }
        }
    }

    /// Reads one complete value at the decoder's position.
    ///
    /// Structures waiting for the hook are recorded; call [`Builder::run_hooks`] once the
    /// input is no longer borrowed.
    pub(crate) fn read_value<'a>(
        &mut self,
        dec: &mut Decoder<'a>,
    ) -> Result<Bound<'py, PyAny>, Failure> {
        self.root = None;
        dec.visit_value(self)?;
        match self.root.take() {
            Some(value) => Ok(value),
            // Unreachable: a successful walk completes one value at the top.
            None => Err(Failure::Py(pyo3::exceptions::PySystemError::new_err(
                "boltcodec: the decoder completed no value",
            ))),
        }
    }

    /// Appends the fields of `message` to `out`, hooks applied (they run before this
    /// returns; `message` is owned by an inbox, so they cannot change it). Returns the
    /// message's signature. `dec` is reused for its buffers.
    ///
    /// On failure `out` is as it was: a message is added whole or not at all.
    pub(crate) fn message_into<'m>(
        &mut self,
        dec: &mut Decoder<'m>,
        message: Received<'m>,
        out: &Bound<'py, PyList>,
    ) -> Result<u8, Failure> {
        let before = out.len();
        let result = self.fields(dec, message, out);
        self.stack.clear();
        self.release_cache();
        let result = result.and_then(|signature| {
            self.run_hooks(out.clone().into_any())?;
            Ok(signature)
        });
        if result.is_err() {
            self.deferred.clear();
            out.del_slice(before, usize::MAX)?;
        }
        result
    }

    fn fields<'m>(
        &mut self,
        dec: &mut Decoder<'m>,
        message: Received<'m>,
        out: &Bound<'py, PyList>,
    ) -> Result<u8, Failure> {
        let (signature, count) = message.read_fields(dec)?;
        self.stack.push(Frame::Fields(out.clone()));
        for _ in 0..count {
            dec.visit_value(self)?;
        }
        Ok(signature)
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

impl<'a, 'py> Visitor<'a> for Builder<'py> {
    type Error = Failure;

    #[inline]
    fn null(&mut self) -> Result<(), Failure> {
        let v = self.py.None().into_bound(self.py);
        Ok(self.attach(v, false)?)
    }

    #[inline]
    fn bool(&mut self, v: bool) -> Result<(), Failure> {
        let v = PyBool::new(self.py, v).to_owned().into_any();
        Ok(self.attach(v, false)?)
    }

    #[inline]
    fn int(&mut self, v: i64) -> Result<(), Failure> {
        let v = int(self.py, v);
        Ok(self.attach(v, false)?)
    }

    #[inline]
    fn float(&mut self, v: f64) -> Result<(), Failure> {
        let v = PyFloat::new(self.py, v).into_any();
        Ok(self.attach(v, false)?)
    }

    #[inline]
    fn string(&mut self, v: &'a str, is_key: bool) -> Result<(), Failure> {
        let v = if is_key {
            self.key(v)?
        } else {
            ffi::new_str(self.py, v)?.into_any()
        };
        Ok(self.attach(v, false)?)
    }

    #[inline]
    fn bytes(&mut self, v: &'a [u8]) -> Result<(), Failure> {
        let v = PyBytes::new(self.py, v).into_any();
        Ok(self.attach(v, false)?)
    }

    fn uuid(&mut self, v: [u8; 16]) -> Result<(), Failure> {
        let py = self.py;
        let cls = UUID_CLASS.import(py, "uuid", "UUID")?;
        let kwargs = PyDict::new(py);
        kwargs.set_item("bytes", PyBytes::new(py, &v))?;
        let v = cls.call((), Some(&kwargs))?;
        Ok(self.attach(v, false)?)
    }

    #[inline]
    fn list(&mut self, len: u32, capacity: usize) -> Result<(), Failure> {
        let items = Items::new(self.py, len, capacity)?;
        self.stack.push(Frame::List(items));
        Ok(())
    }

    #[inline]
    fn map(&mut self, _len: u32, capacity: usize) -> Result<(), Failure> {
        let dict = ffi::dict_presized(self.py, capacity)?;
        self.stack.push(Frame::Map { dict, key: None });
        Ok(())
    }

    #[inline]
    fn structure(&mut self, tag: u8, len: u32, capacity: usize) -> Result<(), Failure> {
        let items = Items::new(self.py, len, capacity)?;
        self.stack.push(Frame::Struct(tag, items));
        Ok(())
    }

    #[inline]
    fn end(&mut self) -> Result<(), Failure> {
        let (value, hooked) = match self.stack.pop() {
            Some(Frame::List(items)) => (items.finish().into_any(), false),
            Some(Frame::Struct(tag, items)) => {
                let s = Structure::from_parts(self.py, tag, items.finish())?;
                (s.into_any(), self.hook.is_some())
            }
            Some(Frame::Map { dict, .. }) => (dict.into_any(), false),
            // Unreachable: the decoder closes only the containers it announced.
            Some(Frame::Fields(_)) | None => {
                return Err(Failure::Py(pyo3::exceptions::PySystemError::new_err(
                    "boltcodec: the decoder closed a container it did not open",
                )));
            }
        };
        Ok(self.attach(value, hooked)?)
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
