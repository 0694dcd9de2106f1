//! A per-thread scratch vector of tree nodes, so that a large list or structure is
//! allocated after its children and freed before them.
//!
//! Why the order matters (glibc's allocator, the usual one on Linux): freed blocks of up to
//! 128 bytes wait in per-size caches (a few per size in the thread cache, the rest in
//! "fastbins") and come back from there cheaply. A request of 1,024 bytes or more made
//! while the fastbins hold blocks, or a free that leaves a free area of 64 KiB or more,
//! first merges every waiting block with its neighbours; the small requests after it are
//! then cut one by one from the merged space, several times dearer. A decoded tree such
//! as a list of 1,000 one-item lists is exactly that pattern when its outer vector is
//! allocated first (before the children, with the previous tree's children waiting in
//! the fastbins) and freed last (after them): callgrind counted about 140 instructions of
//! `_int_malloc` and 32 of `malloc_consolidate` per inner list, more than the decoder's
//! own work.
//!
//! So a large list or structure (at least [`LARGE_BYTES`] of items, at most [`MAX_ITEMS`]
//! items) whose first item allocates (a container; for [`Value`](crate::Value) also a
//! string or byte array) is built in two steps: its items are read into this scratch
//! vector, kept per thread across calls, and then moved into a vector of exactly their
//! number, allocated after every child. Dropping such a container (judged the same way)
//! moves its items into the scratch and frees the container's own vector before its
//! children. Only the outermost large container of a value does this (an inner one finds
//! the scratch taken and allocates as before), and maps do not (their entries are larger
//! than the scratch's slots). A list of scalars is built and dropped as before: with no
//! small blocks below it the order does not matter, and the copy would be wasted.
//!
//! Memory kept: at most [`MAX_ITEMS`] slots of 32 bytes (64 KiB) per thread that decoded
//! or dropped a large container; a scratch that grew past that is freed when it is given
//! back (test `a_hostile_list_did_not_leave_a_huge_scratch_behind`). Between calls the
//! scratch holds no values, only its capacity.

use core::cell::Cell;
use core::mem::{align_of, size_of, ManuallyDrop, MaybeUninit};

use crate::value::ValueRef;

/// Bytes of items from which a container is large: a vector of this size is a request
/// that makes glibc merge its small-block caches first (its chunk, 8 bytes more, rounded
/// to 16, reaches 1,024 bytes). 32 items of a 32-byte tree node.
pub(crate) const LARGE_BYTES: usize = 1024;

/// Most items a container may have to be built and dropped through the scratch, and so
/// the most slots the scratch keeps: 2,048 slots of 32 bytes, 64 KiB per thread.
pub(crate) const MAX_ITEMS: usize = 2048;

/// One slot of the scratch: room for one tree node. [`Lease`] hands the scratch out as a
/// vector of [`ValueRef`] or [`Value`](crate::Value), which have this size and alignment.
type Slot = MaybeUninit<ValueRef<'static>>;

std::thread_local! {
    /// The scratch: `None` while a [`Lease`] holds it. Always empty (length 0) here.
    static SCRATCH: Cell<Option<Vec<Slot>>> = const { Cell::new(Some(Vec::new())) };
}

/// Whether a container of `n` items of `N` is built and dropped through the scratch.
#[inline(always)]
pub(crate) fn is_large<N>(n: usize) -> bool {
    n.saturating_mul(size_of::<N>()) >= LARGE_BYTES && n <= MAX_ITEMS
}

/// The thread's scratch, lent as an empty vector of `N`; given back when dropped (any
/// items left in it are dropped first).
pub(crate) struct Lease<N> {
    items: Vec<N>,
}

impl<N> Lease<N> {
    /// Whether an `N` fits a [`Slot`] exactly (true for both tree node types).
    const FITS: bool = size_of::<N>() == size_of::<Slot>() && align_of::<N>() == align_of::<Slot>();

    /// Takes the thread's scratch; `None` when a lease holds it already (an enclosing
    /// container is using it), when the thread is exiting, or when `N` does not fit.
    #[allow(unsafe_code)]
    pub(crate) fn take() -> Option<Self> {
        if !Self::FITS {
            return None;
        }
        let slots = SCRATCH.try_with(Cell::take).ok().flatten()?;
        let mut slots = ManuallyDrop::new(slots);
        let (ptr, capacity) = (slots.as_mut_ptr(), slots.capacity());
        // SAFETY: `slots` is a vector of length 0 (only empty vectors are stored), now
        // forgotten, so its buffer is owned by the new vector alone. That buffer came
        // from the global allocator for `capacity` slots of `Slot` (or is dangling with
        // `Slot`'s alignment when `capacity` is 0), and `N` has the same size and
        // alignment as `Slot` (`FITS`), so it is a buffer for `capacity` items of `N`
        // with the layout `Vec<N>` will free it with. No `N` is read from it: the length
        // is 0. (`N` may borrow for a lifetime `'a`: none of its values outlive the
        // lease, which empties the vector before giving it back.)
        let items = unsafe { Vec::from_raw_parts(ptr.cast::<N>(), 0, capacity) };
        Some(Lease { items })
    }

    /// The lent vector.
    #[inline(always)]
    pub(crate) fn items(&mut self) -> &mut Vec<N> {
        &mut self.items
    }
}

impl<N> Drop for Lease<N> {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        self.items.clear();
        let items = core::mem::take(&mut self.items);
        let back = if items.capacity() <= MAX_ITEMS {
            let mut items = ManuallyDrop::new(items);
            let (ptr, capacity) = (items.as_mut_ptr(), items.capacity());
            // SAFETY: the reverse of `take`: an empty vector of `N`, forgotten, whose
            // buffer holds `capacity` items of `N`, the size and alignment of `Slot`
            // (a lease exists only when `FITS`).
            unsafe { Vec::from_raw_parts(ptr.cast::<Slot>(), 0, capacity) }
        } else {
            // Grown past the bound (an input whose items did not match its header):
            // freed here, not kept.
            drop(items);
            Vec::new()
        };
        // When the thread is exiting the slot is gone and `back` is freed instead.
        let _ = SCRATCH.try_with(move |s| s.set(Some(back)));
    }
}

/// How many slots the thread's scratch keeps (0 while it is lent).
#[cfg(test)]
pub(crate) fn kept() -> usize {
    SCRATCH.with(|s| {
        let slots = s.take();
        let n = slots.as_ref().map_or(0, Vec::capacity);
        s.set(slots);
        n
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Value, ValueRef};

    /// A list of `n` one-item lists, the shape that goes through the scratch.
    fn list_of_lists(n: u32, tail: &[u8]) -> Vec<u8> {
        let mut b = vec![0xD6];
        b.extend_from_slice(&n.to_be_bytes());
        b.extend_from_slice(tail);
        b
    }

    #[test]
    fn both_tree_nodes_fit_a_slot() {
        const { assert!(Lease::<ValueRef<'_>>::FITS && Lease::<Value>::FITS) };
        assert!(is_large::<Value>(32) && !is_large::<Value>(31));
        assert!(!is_large::<Value>(MAX_ITEMS + 1));
    }

    #[test]
    fn a_hostile_list_did_not_leave_a_huge_scratch_behind() {
        // A header claiming 2,048 items (the most the scratch is used for) followed by
        // 10,000 bytes of one-item lists and then the end: the items read so far are
        // dropped with the error, and the scratch kept stays within its bound.
        let bytes = list_of_lists(2_048, &[0x91, 0x01].repeat(1_000));
        let err = ValueRef::decode(&bytes).unwrap_err();
        assert!(err.is_incomplete());
        assert!(kept() <= MAX_ITEMS, "kept {}", kept());
        let err = Value::decode(&bytes).unwrap_err();
        assert!(err.is_incomplete());
        assert!(kept() <= MAX_ITEMS);
        // A list too long for the scratch does not use it at all.
        let n = MAX_ITEMS + 1;
        let long = list_of_lists(n as u32, &[0x91, 0x01].repeat(n));
        let (v, _) = ValueRef::decode(&long).unwrap();
        assert_eq!(v.as_list().map(<[_]>::len), Some(n));
        drop(v);
        assert!(kept() <= MAX_ITEMS);
    }

    #[test]
    fn the_scratch_is_given_back_after_errors_and_nested_large_lists() {
        // [[1] x 40] decodes through the scratch; the scratch is back afterwards.
        let tail = [0x91, 0x01].repeat(40);
        let (v, _) = Value::decode(&list_of_lists(40, &tail)).unwrap();
        assert!(kept() >= 40);
        // Grown exactly, never past the largest container it held.
        let (w, _) = Value::decode(&list_of_lists(2_000, &[0x91, 0x01].repeat(2_000))).unwrap();
        drop(w);
        assert_eq!(kept(), 2_000);
        drop(v);
        assert!(kept() >= 40);
        // A large list inside a large list: the inner one finds the scratch taken.
        let mut inner = list_of_lists(40, &tail);
        inner.extend_from_slice(&[0x81, b'x']);
        let mut outer = list_of_lists(33, &[]);
        for _ in 0..32 {
            outer.extend_from_slice(&[0x91, 0x02]);
        }
        outer.extend_from_slice(&inner[..inner.len() - 2]);
        let (v, used) = ValueRef::decode(&outer).unwrap();
        assert_eq!(used, outer.len());
        let items = v.as_list().unwrap();
        assert_eq!(items.len(), 33);
        assert_eq!(items[32].as_list().map(<[_]>::len), Some(40));
        drop(v);
        assert!(kept() >= 40);
    }
}
