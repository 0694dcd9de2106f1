//! The few raw CPython calls that pyo3's safe API does not offer, each wrapped in a safe
//! function whose contract is stated on it.
//!
//! Why they are needed (all for speed on the decode path, or for soundness):
//!
//! * exact-capacity lists: `PyList_New(n)` + `PyList_SET_ITEM`, with the list kept out of
//!   the cyclic GC until it is full, so no Python code can ever see an empty slot;
//! * pre-sized dicts: `_PyDict_NewPresized` (not in the limited API, not in pyo3-ffi);
//! * iterating a dict without pyo3's iterator, which panics when the dict changes size
//!   (a dehydration hook may mutate it), and a panic must never reach the caller;
//! * untracking leaf objects (records, dates, times, points) from the cyclic GC once
//!   built (see `record.rs`);
//! * borrowing the bytes of a buffer-protocol object (`bytearray`, `memoryview`) while an
//!   export is held, so the object cannot be resized or freed underneath the decoder.
#![allow(unsafe_code)]

use std::ffi::{c_void, CStr};
use std::marker::PhantomData;
use std::os::raw::c_char;

use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};

extern "C" {
    /// CPython: a new empty dict with room for `minused` items without resizing.
    /// Exported by every CPython 3.x build (orjson and others rely on it).
    fn _PyDict_NewPresized(minused: ffi::Py_ssize_t) -> *mut ffi::PyObject;
}

/// Turns a new reference (or NULL with an exception set) into a `Bound`.
#[inline]
fn owned<'py, T>(py: Python<'py>, ptr: *mut ffi::PyObject) -> PyResult<Bound<'py, T>> {
    // SAFETY: every caller passes the result of a CPython constructor, which returns a new
    // reference of type `T` or NULL with an exception set (handled by `from_owned_ptr_or_err`).
    unsafe { Ok(Bound::from_owned_ptr_or_err(py, ptr)?.cast_into_unchecked()) }
}

/// A list under construction: `len` slots, filled in order with [`ListBuilder::push`].
///
/// The list is untracked by the cyclic GC while it has empty slots, so no other code can
/// reach it through `gc.get_objects()` and see a NULL item. [`ListBuilder::finish`]
/// tracks it again; dropping an unfinished builder frees the list and the items pushed.
pub(crate) struct ListBuilder<'py> {
    list: Bound<'py, PyList>,
    len: usize,
    filled: usize,
}

impl<'py> ListBuilder<'py> {
    /// A list of exactly `len` slots.
    #[inline]
    pub(crate) fn new(py: Python<'py>, len: usize) -> PyResult<Self> {
        let n = ffi::Py_ssize_t::try_from(len)
            .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("list too large"))?;
        // SAFETY: PyList_New returns a new list reference or NULL with an exception set.
        let list: Bound<'py, PyList> = owned(py, unsafe { ffi::PyList_New(n) })?;
        if len > 0 {
            // SAFETY: the list was just created and is GC-tracked; untracking a tracked
            // object is always allowed. It is re-tracked in `finish`; list_dealloc untracks
            // only when tracked, so dropping it untracked is fine too.
            unsafe { ffi::PyObject_GC_UnTrack(list.as_ptr().cast::<c_void>()) };
        }
        Ok(ListBuilder {
            list,
            len,
            filled: 0,
        })
    }

    /// Whether every slot is filled.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.filled >= self.len
    }

    /// Fills the next slot. Extra items (more than `len`) are ignored (never happens: the
    /// decoder counts items; the check keeps this function sound on its own).
    #[inline]
    pub(crate) fn push(&mut self, item: Bound<'py, PyAny>) {
        if self.filled >= self.len {
            return;
        }
        // SAFETY: `filled < len` is a valid, still-empty index of this exact-size list; the
        // list is ours alone (untracked, not yet returned), and SET_ITEM steals the new
        // reference that `into_ptr` gives up.
        unsafe {
            ffi::PyList_SET_ITEM(
                self.list.as_ptr(),
                self.filled as ffi::Py_ssize_t,
                item.into_ptr(),
            )
        };
        self.filled += 1;
    }

    /// Index of the next slot to fill.
    #[inline]
    pub(crate) fn filled(&self) -> usize {
        self.filled
    }

    /// A handle on the list that allows only NULL-safe access (for writing hook results
    /// back once the list is complete).
    #[inline]
    pub(crate) fn handle(&self) -> ListHandle<'py> {
        ListHandle(self.list.clone())
    }

    /// The list, re-tracked by the GC. Slots still empty (never the case when the decoder
    /// counted right) are filled with `None` first, so the list is always valid.
    #[inline]
    pub(crate) fn finish(mut self) -> Bound<'py, PyList> {
        while !self.is_full() {
            let none = self.list.py().None().into_bound(self.list.py());
            self.push(none);
        }
        if self.len > 0 {
            // SAFETY: the list was untracked in `new` and every slot now holds an object.
            unsafe { ffi::PyObject_GC_Track(self.list.as_ptr().cast::<c_void>()) };
        }
        self.list
    }
}

/// A list that may still be under construction: only `PyList_GetItem`/`PyList_SetItem`,
/// which handle empty slots, are offered.
pub(crate) struct ListHandle<'py>(Bound<'py, PyList>);

impl<'py> ListHandle<'py> {
    /// A handle on a complete list.
    pub(crate) fn from_list(list: Bound<'py, PyList>) -> Self {
        ListHandle(list)
    }

    /// Whether `list[index] is obj`.
    pub(crate) fn holds(&self, index: usize, obj: &Bound<'py, PyAny>) -> bool {
        // PyList_GetItem returns an error (not a NULL object) for an empty slot.
        self.0.get_item(index).is_ok_and(|cur| cur.is(obj))
    }

    /// `list[index] = value`.
    pub(crate) fn set(&self, index: usize, value: Bound<'py, PyAny>) -> PyResult<()> {
        self.0.set_item(index, value)
    }
}

/// A new dict with room for `len` entries.
#[inline]
pub(crate) fn dict_presized(py: Python<'_>, len: usize) -> PyResult<Bound<'_, PyDict>> {
    let n = ffi::Py_ssize_t::try_from(len).unwrap_or(0);
    // SAFETY: _PyDict_NewPresized returns a new dict reference or NULL with an exception.
    owned(py, unsafe { _PyDict_NewPresized(n) })
}

/// Sets `dict[key] = value`; returns whether the dict grew (false: `key` was a duplicate).
#[inline]
pub(crate) fn dict_set(
    dict: &Bound<'_, PyDict>,
    key: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
) -> PyResult<bool> {
    // SAFETY: all three are valid references held by the caller; PyDict_SetItem does not
    // steal them. PyDict_GET_SIZE only reads the size of a live dict.
    unsafe {
        let before = ffi::PyDict_Size(dict.as_ptr());
        if ffi::PyDict_SetItem(dict.as_ptr(), key.as_ptr(), value.as_ptr()) != 0 {
            return Err(PyErr::fetch(dict.py()));
        }
        Ok(ffi::PyDict_Size(dict.as_ptr()) != before)
    }
}

/// A `str` from text already known to be valid UTF-8: one ASCII character is CPython's
/// shared string for it; other pure ASCII takes the fast path of allocating a compact
/// ASCII string and copying the bytes in.
#[inline]
pub(crate) fn new_str<'py>(py: Python<'py>, s: &str) -> PyResult<Bound<'py, PyString>> {
    if let [byte] = *s.as_bytes() {
        // CPython keeps one shared string per Latin-1 character; `bytes.decode` (the
        // driver's pure-Python codec) hands those out, and so must we: a fresh object
        // per one-character string costs an allocation, about 50 bytes kept and a cache
        // miss whenever the collector walks a container holding it.
        // SAFETY: PyUnicode_FromOrdinal accepts any code point up to 0x10FFFF (a byte of
        // a one-byte UTF-8 string is below 0x80) and returns a new reference or NULL
        // with an exception set.
        return unsafe { owned(py, ffi::PyUnicode_FromOrdinal(i32::from(byte))) };
    }
    let len = s.len();
    if len > 0 && s.is_ascii() {
        let n = ffi::Py_ssize_t::try_from(len)
            .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("string too large"))?;
        // SAFETY: PyUnicode_New(n, 127) returns a new compact ASCII string of n characters
        // (or NULL with an exception); its data area holds exactly n one-byte characters
        // plus a terminator, and we copy exactly n ASCII bytes into it before anyone else
        // can see the string.
        unsafe {
            let obj = ffi::PyUnicode_New(n, 127);
            if obj.is_null() {
                return Err(PyErr::fetch(py));
            }
            let data = ffi::PyUnicode_DATA(obj).cast::<u8>();
            std::ptr::copy_nonoverlapping(s.as_ptr(), data, len);
            owned(py, obj)
        }
    } else {
        Ok(PyString::new(py, s))
    }
}

/// The next `(key, value)` of a dict iteration at `*pos` (start at 0), as new references.
///
/// Unlike pyo3's dict iterator this never panics: a dict that changes size while it is
/// being packed is reported by the caller comparing sizes, as CPython's own iterator does.
#[inline]
pub(crate) fn dict_next<'py>(
    dict: &Bound<'py, PyDict>,
    pos: &mut ffi::Py_ssize_t,
) -> Option<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let mut key: *mut ffi::PyObject = std::ptr::null_mut();
    let mut value: *mut ffi::PyObject = std::ptr::null_mut();
    // SAFETY: PyDict_Next reads a live dict at a position it validates itself and returns
    // borrowed references, which we turn into new references at once (before any Python
    // code can run and drop them).
    unsafe {
        if ffi::PyDict_Next(dict.as_ptr(), pos, &mut key, &mut value) == 0 {
            return None;
        }
        let py = dict.py();
        Some((
            Bound::from_borrowed_ptr(py, key),
            Bound::from_borrowed_ptr(py, value),
        ))
    }
}

/// The UTF-8 bytes of a `str` (or subclass), without copying for compact ASCII strings.
///
/// Strings with lone surrogates raise `UnicodeEncodeError`, as `str.encode("utf-8")` does.
#[inline]
pub(crate) fn str_utf8<'a>(s: &'a Bound<'_, PyAny>) -> PyResult<&'a [u8]> {
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `s` is a str (the caller checked); PyUnicode_AsUTF8AndSize returns a pointer
    // into a buffer owned by the string object (cached UTF-8 or the ASCII data itself),
    // valid as long as the string lives, which the borrow of `s` guarantees; the string is
    // immutable.
    unsafe {
        let ptr: *const c_char = ffi::PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size);
        if ptr.is_null() {
            return Err(PyErr::fetch(s.py()));
        }
        let len = usize::try_from(size).unwrap_or(0);
        Ok(std::slice::from_raw_parts(ptr.cast::<u8>(), len))
    }
}

/// Bytes borrowed from a Python object for the duration of a decode.
pub(crate) enum Input<'py> {
    /// A `bytes` object (immutable).
    Bytes(Bound<'py, PyBytes>),
    /// Any other object with the buffer protocol, with its export held (a `bytearray`
    /// cannot be resized while it is exported).
    Buffer(SimpleBuffer),
}

/// A `PyBUF_SIMPLE` buffer export (contiguous bytes, no shape, strides or format, so the
/// `Py_buffer` holds no pointer into itself and may be moved), released on drop.
pub(crate) struct SimpleBuffer {
    view: ffi::Py_buffer,
}

impl Drop for SimpleBuffer {
    fn drop(&mut self) {
        // SAFETY: `view` was filled by a successful PyObject_GetBuffer and is released
        // exactly once. Drop may run without an attached thread state only if the
        // `Input` escaped its `Python<'py>` scope, which its lifetime prevents.
        unsafe { ffi::PyBuffer_Release(&mut self.view) };
    }
}

impl<'py> Input<'py> {
    /// Borrows the bytes of `obj`: `bytes`, `bytearray`, `memoryview` or any C-contiguous
    /// byte buffer.
    #[inline]
    pub(crate) fn new(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Ok(Input::Bytes(b.clone()));
        }
        let mut view = std::mem::MaybeUninit::<ffi::Py_buffer>::zeroed();
        // SAFETY: PyObject_GetBuffer fills `view` (zeroed, so any field it leaves alone is
        // NULL/0) or fails with an exception set; PyBUF_SIMPLE asks for contiguous bytes
        // and fails for anything else.
        unsafe {
            if ffi::PyObject_GetBuffer(obj.as_ptr(), view.as_mut_ptr(), ffi::PyBUF_SIMPLE) != 0 {
                return Err(PyErr::fetch(obj.py()));
            }
            Ok(Input::Buffer(SimpleBuffer {
                view: view.assume_init(),
            }))
        }
    }

    /// The bytes.
    ///
    /// For a mutable buffer (a `bytearray`), the caller must not run Python code that could
    /// write to it while the slice is in use: the decoder calls no Python code (hooks run
    /// after decoding ends). Even object allocation could start the cyclic GC, whose
    /// finalizers could in principle write to the bytearray; the held export makes sure
    /// such a write could only change the bytes, never move or free them.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            Input::Bytes(b) => b.as_bytes(),
            Input::Buffer(buf) => {
                let len = usize::try_from(buf.view.len).unwrap_or(0);
                if len == 0 || buf.view.buf.is_null() {
                    return &[];
                }
                // SAFETY: a PyBUF_SIMPLE export is `len` contiguous bytes at `buf`, kept
                // alive and in place by the export until `buf` drops, which outlives the
                // returned borrow of `self`. See the note above on writes from Python code.
                unsafe { std::slice::from_raw_parts(buf.view.buf.cast::<u8>(), len) }
            }
        }
    }
}

/// How much native stack must be left to call a hook: room for the hook's Python frames,
/// one more boltcodec call (whose own work never recurses) and raising the error.
pub(crate) const STACK_MARGIN: usize = 64 * 1024;

/// A pthread attribute object, opaque here: larger and more aligned than glibc's or
/// musl's `pthread_attr_t` on every Linux target (56 or 64 bytes).
#[cfg(target_os = "linux")]
#[repr(C, align(16))]
struct PthreadAttr([u8; 256]);

#[cfg(target_os = "linux")]
extern "C" {
    // POSIX / glibc and musl (`pthread_t` is an unsigned long or a pointer: one word).
    fn pthread_self() -> usize;
    fn pthread_getattr_np(thread: usize, attr: *mut PthreadAttr) -> std::os::raw::c_int;
    fn pthread_attr_getstack(
        attr: *const PthreadAttr,
        stackaddr: *mut *mut c_void,
        stacksize: *mut usize,
    ) -> std::os::raw::c_int;
    fn pthread_attr_destroy(attr: *mut PthreadAttr) -> std::os::raw::c_int;
}

/// The lowest address of the current thread's stack, or 0 if it cannot be known.
#[cfg(target_os = "linux")]
fn stack_low_end() -> usize {
    let mut attr = PthreadAttr([0; 256]);
    let mut addr: *mut c_void = std::ptr::null_mut();
    let mut size: usize = 0;
    // SAFETY: `attr` is writable memory larger and more aligned than the C library's
    // pthread_attr_t; pthread_getattr_np initializes it for the calling thread (which
    // pthread_self names) and, when that succeeds, pthread_attr_getstack writes the
    // stack's lowest address and size to the two out-pointers, and pthread_attr_destroy
    // releases what pthread_getattr_np allocated. No pointer is kept.
    unsafe {
        if pthread_getattr_np(pthread_self(), &mut attr) != 0 {
            return 0;
        }
        let ok = pthread_attr_getstack(&attr, &mut addr, &mut size) == 0;
        pthread_attr_destroy(&mut attr);
        if ok && size > 0 {
            addr as usize
        } else {
            0
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn stack_low_end() -> usize {
    0
}

thread_local! {
    /// This thread's [`stack_low_end`], once known (`usize::MAX`: not asked yet).
    static STACK_LOW_END: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

/// How many bytes of native stack the current thread has left below this call, if the
/// platform says where its stack ends (Linux; elsewhere `None`, and only Python's
/// recursion limit applies). Stacks grow downwards on every target Python wheels exist for.
pub(crate) fn stack_left() -> Option<usize> {
    let low = STACK_LOW_END.with(|cell| {
        if cell.get() == usize::MAX {
            cell.set(stack_low_end());
        }
        cell.get()
    });
    let marker = 0u8;
    let here = std::ptr::addr_of!(marker) as usize;
    (low != 0).then(|| here.saturating_sub(low))
}

/// One level of Python's recursion limit, taken with `Py_EnterRecursiveCall` and given
/// back when dropped, after checking that the thread has [`STACK_MARGIN`] of native stack
/// left.
///
/// Taken around every call into a user hook, so that a hook that calls boltcodec again,
/// which calls the hook again, and so on, raises `RecursionError` after at most
/// `sys.getrecursionlimit()` levels, or when the thread's real stack runs low (a thread
/// started with a small `threading.stack_size`), instead of overflowing the stack.
pub(crate) struct RecursionGuard<'py> {
    /// Ties the guard to the thread and the attached thread state that took it.
    _py: PhantomData<(Python<'py>, *const ())>,
}

impl<'py> RecursionGuard<'py> {
    /// Takes one level, or fails with the `RecursionError` Python raises at its limit;
    /// `context` is appended to the error message (" while calling …").
    pub(crate) fn enter(py: Python<'py>, context: &'static CStr) -> PyResult<Self> {
        if stack_left().is_some_and(|left| left < STACK_MARGIN) {
            return Err(pyo3::exceptions::PyRecursionError::new_err(format!(
                "boltcodec: less than {} KiB of this thread's stack left{}",
                STACK_MARGIN / 1024,
                context.to_string_lossy()
            )));
        }
        // SAFETY: `py` proves this thread has an attached thread state, which
        // Py_EnterRecursiveCall needs; `context` is a NUL-terminated string that lives for
        // the whole program. On failure it has set RecursionError, which we fetch.
        if unsafe { ffi::Py_EnterRecursiveCall(context.as_ptr()) } != 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(RecursionGuard { _py: PhantomData })
    }
}

impl Drop for RecursionGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: paired with the successful Py_EnterRecursiveCall of `enter`, on the same
        // thread (the guard is neither Send nor Sync) with its thread state still attached
        // (the guard cannot outlive the `Python<'py>` it was made with).
        unsafe { ffi::Py_LeaveRecursiveCall() };
    }
}

/// Removes `obj` from the cyclic GC's set, if it is a tracked GC object.
///
/// Only for objects that cannot be part of a reference cycle (see `record.rs`): the GC
/// then never walks them; reference counting frees them as before.
pub(crate) fn untrack(obj: &Bound<'_, PyAny>) {
    let ptr = obj.as_ptr();
    // SAFETY: `ptr` is a live object (borrowed by `obj`) and the GIL is held; only a GC
    // object that is tracked is untracked, which is what `PyObject_GC_UnTrack` requires.
    unsafe {
        if ffi::PyObject_IS_GC(ptr) != 0 && ffi::PyObject_GC_IsTracked(ptr) != 0 {
            ffi::PyObject_GC_UnTrack(ptr.cast::<c_void>());
        }
    }
}

/// Whether `obj` can be an item of an untracked container without ever hiding a
/// reference cycle from the cyclic GC: an object the GC does not manage (`int`, `str`,
/// `float`, `bytes`, ...), or one it does not track and that cannot start tracking again
/// (an untracked leaf: a date, a point, a label set, an exact tuple of such values).
///
/// Not a list (every finished list is tracked), nor a dict, even an untracked one:
/// CPython tracks a dict again when a container is put into it, and an untracked record
/// or properties dict holding it would then hide a cycle through it (CPython itself never
/// untracks a tuple that holds a dict, for the same reason).
pub(crate) fn never_leads_back(obj: &Bound<'_, PyAny>) -> bool {
    let ptr = obj.as_ptr();
    // SAFETY: `ptr` is a live object (borrowed by `obj`) and the GIL is held; these only
    // read its type flags and GC header.
    unsafe {
        ffi::PyObject_IS_GC(ptr) == 0
            || (ffi::PyObject_GC_IsTracked(ptr) == 0 && ffi::PyDict_Check(ptr) == 0)
    }
}

/// [`untrack`]s `container` if every one of `items` (its contents) satisfies
/// [`never_leads_back`], as CPython untracks a tuple or dict whose items are all atomic;
/// otherwise it stays tracked, so that a cycle a caller later builds through one of its
/// mutable items (a list value, say) is still collected.
pub(crate) fn untrack_if_leaves<'py>(
    container: &Bound<'py, PyAny>,
    mut items: impl Iterator<Item = Bound<'py, PyAny>>,
) {
    if items.all(|item| never_leads_back(&item)) {
        untrack(container);
    }
}
