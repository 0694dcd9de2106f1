//! The boundary helpers: the panic guard around every entry point, and the only places
//! where raw pointers from C become Rust references or are written through.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::NonNull;

use crate::status::{bc_status, ErrorState, Failure, Res};

/// A handle type that keeps an error record.
pub(crate) trait Handle {
    /// The handle's error record.
    fn error_state(&mut self) -> &mut ErrorState;
}

/// The text of a panic payload.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    format!("internal error (a bug in boltcodec, please report it): {what}")
}

/// Runs an entry point's body; a panic becomes `BC_ERR_INTERNAL`.
pub(crate) fn guard(f: impl FnOnce() -> bc_status) -> bc_status {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(bc_status::BC_ERR_INTERNAL)
}

/// Runs a body that returns a plain value; a panic gives `fallback`.
pub(crate) fn catch<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// Runs a body that returns a [`Res`]; errors become their status (no handle to record
/// them on).
pub(crate) fn run(f: impl FnOnce() -> Res) -> bc_status {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => bc_status::BC_OK,
        Ok(Err(e)) => e.status,
        Err(_) => bc_status::BC_ERR_INTERNAL,
    }
}

/// Runs `f` on the handle behind `h`: NULL gives `BC_ERR_NULL_POINTER`, an error is
/// recorded on the handle and its status returned, a panic is recorded as
/// `BC_ERR_INTERNAL`.
///
/// # Safety
/// `h` is NULL or points to a live handle of type `H` created by this library, not
/// used by another thread during the call.
pub(crate) unsafe fn with_handle<H: Handle>(h: *mut H, f: impl FnOnce(&mut H) -> Res) -> bc_status {
    let Some(mut ptr) = NonNull::new(h) else {
        return bc_status::BC_ERR_NULL_POINTER;
    };
    let result = {
        // SAFETY: the caller guarantees `h` is a live handle that nothing else uses during
        // this call; the reference ends with this block.
        let handle = unsafe { ptr.as_mut() };
        catch_unwind(AssertUnwindSafe(|| f(handle)))
    };
    // SAFETY: as above; the reference given to `f` has ended (also after a panic).
    let handle = unsafe { ptr.as_mut() };
    match result {
        Ok(Ok(())) => bc_status::BC_OK,
        Ok(Err(e)) => handle.error_state().set(e),
        Err(payload) => handle.error_state().set(Failure::new(
            bc_status::BC_ERR_INTERNAL,
            panic_message(&*payload),
        )),
    }
}

/// A shared reference to a handle, or NULL.
///
/// # Safety
/// `h` is NULL or points to a live `H` that is not mutated during `'a`.
pub(crate) unsafe fn handle_ref<'a, H>(h: *const H) -> Res<&'a H> {
    // SAFETY: the caller guarantees `h` is NULL or valid for reads during 'a.
    unsafe { h.as_ref() }.ok_or_else(null)
}

/// Moves a new handle to the heap and writes it to `out`.
pub(crate) fn new_handle<H>(out: Out<*mut H>, handle: H) {
    out.set(Box::into_raw(Box::new(handle)));
}

/// Drops a handle made by [`new_handle`]; NULL does nothing.
///
/// # Safety
/// `h` is NULL or a handle of type `H` made by [`new_handle`] and not freed before.
pub(crate) unsafe fn free_handle<H>(h: *mut H) {
    if !h.is_null() {
        // Dropping runs no user code that could panic; the guard is defence in depth.
        catch((), || {
            // SAFETY: the caller guarantees `h` came from Box::into_raw in new_handle and
            // is freed only once.
            drop(unsafe { Box::from_raw(h) });
        });
    }
}

/// The NULL-pointer failure.
pub(crate) fn null() -> Failure {
    Failure::new(bc_status::BC_ERR_NULL_POINTER, "a required pointer is NULL")
}

/// The invalid-argument failure.
pub(crate) fn invalid(message: impl Into<String>) -> Failure {
    Failure::new(bc_status::BC_ERR_INVALID_ARGUMENT, message)
}

/// The bytes at `ptr`: an empty slice for length 0 (whatever the pointer), a failure for
/// NULL with a length above 0 or a length above `isize::MAX`.
///
/// # Safety
/// When `len > 0` and `ptr` is not NULL, `ptr` is valid for reads of `len` bytes that
/// are not written during `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Res<&'a [u8]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(null());
    }
    if len > isize::MAX as usize {
        return Err(invalid("length above PTRDIFF_MAX"));
    }
    // SAFETY: non-NULL, len fits isize, and the caller guarantees `len` readable bytes
    // that stay unchanged during 'a. u8 has no alignment or validity requirement.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// The elements at `ptr`, as [`bytes`] for any `T`.
///
/// # Safety
/// When `len > 0` and `ptr` is not NULL, `ptr` is aligned and valid for reads of `len`
/// initialised `T`s that are not written during `'a`.
pub(crate) unsafe fn slice<'a, T>(ptr: *const T, len: usize) -> Res<&'a [T]> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(null());
    }
    if len
        .checked_mul(size_of::<T>())
        .is_none_or(|n| n > isize::MAX as usize)
    {
        return Err(invalid("length above PTRDIFF_MAX"));
    }
    // SAFETY: non-NULL, the total size fits isize, and the caller guarantees `len`
    // aligned, initialised, unchanging elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// An output pointer checked for NULL; [`Out::set`] writes through it without reading
/// the (possibly uninitialised) memory first.
pub(crate) struct Out<T>(NonNull<T>);

impl<T> Out<T> {
    /// Checks `p` for NULL.
    ///
    /// # Safety
    /// `p` is NULL or aligned and valid for a write of one `T` for as long as the
    /// returned value lives.
    pub(crate) unsafe fn new(p: *mut T) -> Res<Self> {
        NonNull::new(p).map(Out).ok_or_else(null)
    }

    /// Writes `v` (the old contents are not read or dropped).
    pub(crate) fn set(self, v: T) {
        // SAFETY: `new`'s caller guaranteed the pointer is aligned and writable; it is
        // non-NULL by construction. `write` does not read or drop the old contents.
        unsafe { self.0.as_ptr().write(v) }
    }
}

/// An output buffer of `cap` bytes given as pointer and capacity; NULL is allowed with
/// a capacity of 0 (a size query).
pub(crate) struct OutBuf {
    ptr: *mut u8,
    cap: usize,
}

impl OutBuf {
    /// Checks the buffer.
    ///
    /// # Safety
    /// When `cap > 0`, `ptr` is NULL or valid for writes of `cap` bytes during the life
    /// of the returned value.
    pub(crate) unsafe fn new(ptr: *mut u8, cap: usize) -> Res<Self> {
        if cap > 0 && ptr.is_null() {
            return Err(null());
        }
        Ok(OutBuf { ptr, cap })
    }

    /// Writes `text` and a NUL terminator if they fit; returns the size needed
    /// (`text.len() + 1`) or the buffer-too-small failure.
    pub(crate) fn write_cstr(&self, text: &[u8]) -> Res<usize> {
        let needed = text.len() + 1;
        if needed > self.cap {
            return Err(Failure::new(
                bc_status::BC_ERR_BUFFER_TOO_SMALL,
                format!(
                    "the output needs {needed} bytes, the buffer holds {}",
                    self.cap
                ),
            ));
        }
        // SAFETY: `new` checked that `ptr` is writable for `cap >= needed` bytes (so it
        // is not NULL here); the source is a Rust slice, which cannot overlap memory C
        // handed us for writing.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), self.ptr, text.len());
            self.ptr.add(text.len()).write(0);
        }
        Ok(needed)
    }
}
