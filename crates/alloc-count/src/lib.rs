//! Test support, not published: a global allocator that counts the heap bytes a thread
//! holds, so that hostile-input tests and fuzz targets can assert how much memory a
//! decode used at its peak. Only the thread inside [`peak_during`] is counted; other
//! threads (other tests, proptest's generators) do not disturb the count.
//!
//! Linking this crate installs the allocator (it forwards every call to [`System`]):
//!
//! ```
//! let (v, peak) = alloc_count::peak_during(|| vec![0u8; 1000]);
//! assert_eq!(v.len(), 1000);
//! assert!(peak >= 1000);
//! ```
#![allow(unsafe_code)] // the allocator; the libraries under test forbid unsafe

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::{Cell, RefCell};

/// The documented peak-memory bound for decoding `n` bytes of PackStream into a tree,
/// `96 * n + 64 KiB`: a tree node per input byte at most (a list item needs one byte, a
/// map entry two), plus a constant.
pub fn packstream_bound(n: usize) -> usize {
    96 * n + 64 * 1024
}

/// Counts the heap bytes live and at peak on the thread that asked for it.
struct Counting;

thread_local! {
    static TRACK: Cell<bool> = const { Cell::new(false) };
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
    static CALLS: Cell<usize> = const { Cell::new(0) };
    /// The sizes [`sizes_during`] records, in order, and how many.
    static LOG: RefCell<[isize; LOG_CAP]> = const { RefCell::new([0; LOG_CAP]) };
    static LOGGED: Cell<usize> = const { Cell::new(0) };
}

/// The most allocator calls [`sizes_during`] records.
pub const LOG_CAP: usize = 4096;

fn count(delta: isize) {
    // `try_with`: the thread-locals may already be gone while a thread shuts down.
    if TRACK.try_with(Cell::get).unwrap_or(false) {
        if delta > 0 {
            let _ = CALLS.try_with(|c| c.set(c.get() + 1));
        }
        let _ = LOGGED.try_with(|n| {
            let at = n.get();
            let logged = LOG.try_with(|log| match log.try_borrow_mut() {
                Ok(mut log) => log.get_mut(at).map(|slot| *slot = delta).is_some(),
                Err(_) => false,
            });
            if logged == Ok(true) {
                n.set(at + 1);
            }
        });
        let _ = LIVE.try_with(|live| {
            let now = live.get() + delta;
            live.set(now);
            let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
        });
    }
}

// SAFETY: forwards every call to `System` unchanged and only updates thread-local
// counters, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // A call, even if it shrinks.
        count(-(layout.size() as isize));
        count(new_size as isize);
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Runs `f` and returns its result and the peak heap bytes this thread held meanwhile
/// (counted from zero at the start; frees of older memory can only lower it).
pub fn peak_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LIVE.with(|l| l.set(0));
    PEAK.with(|p| p.set(0));
    TRACK.with(|t| t.set(true));
    let out = f();
    TRACK.with(|t| t.set(false));
    (out, PEAK.with(Cell::get).max(0) as usize)
}

/// Runs `f` and returns its result and how many times this thread asked the allocator
/// for memory meanwhile (`alloc`, `alloc_zeroed` and `realloc` calls of a non-zero
/// size; frees are not counted).
///
/// ```
/// let (s, calls) = alloc_count::allocations_during(|| String::from("abc"));
/// assert_eq!(s, "abc");
/// assert_eq!(calls, 1);
/// ```
pub fn allocations_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    CALLS.with(|c| c.set(0));
    let (out, _) = peak_during(f);
    (out, CALLS.with(Cell::get))
}

/// Runs `f` and returns its result and, in order, the sizes of the blocks this thread
/// allocated (positive) and freed (negative) meanwhile; a `realloc` is a free of the old
/// size then an allocation of the new one. At most [`LOG_CAP`] calls are recorded (the
/// ones after are left out).
///
/// ```
/// let (_, sizes) = alloc_count::sizes_during(|| drop(vec![0u8; 1000]));
/// assert_eq!(sizes, [1000, -1000]);
/// ```
pub fn sizes_during<T>(f: impl FnOnce() -> T) -> (T, Vec<isize>) {
    LOGGED.with(|n| n.set(0));
    let (out, _) = peak_during(f);
    let n = LOGGED.with(Cell::get);
    let sizes = LOG.with(|log| log.borrow().get(..n).unwrap_or_default().to_vec());
    (out, sizes)
}
