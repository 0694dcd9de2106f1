//! The order in which a decoded tree's blocks are allocated and freed, which decides how
//! fast glibc serves them (`crates/packstream/src/scratch.rs`): a large list is
//! allocated after its items and freed before them. Measured with a thread-local log of
//! the allocator calls, so the test does not depend on timing or on the allocator.

use packstream::{Value, ValueRef};
use test_support::{sizes_during, SIZES_LOGGED};

/// A list of `n` one-item lists, `[[1], [1], ...]`.
fn list_of_lists(n: u16) -> Vec<u8> {
    let mut b = vec![0xD5];
    b.extend_from_slice(&n.to_be_bytes());
    for _ in 0..n {
        b.extend_from_slice(&[0x91, 0x01]);
    }
    b
}

/// Where the outer vector's block (`outer` bytes) is allocated and freed among the
/// inner lists' blocks (`inner` bytes each) in `sizes`.
fn check_order(sizes: &[isize], outer: isize, inner: isize, n: usize) {
    let at = |size: isize| sizes.iter().position(|&s| s == size);
    let last = |size: isize| sizes.iter().rposition(|&s| s == size);
    assert!(sizes.len() < SIZES_LOGGED, "log full: {}", sizes.len());
    assert_eq!(sizes.iter().filter(|&&s| s == inner).count(), n);
    assert_eq!(sizes.iter().filter(|&&s| s == -inner).count(), n);
    let (alloc, free) = (at(outer).unwrap(), at(-outer).unwrap());
    assert!(
        last(inner).unwrap() < alloc,
        "the list's vector was allocated before its items: {:?}",
        &sizes[..8]
    );
    assert!(
        free < at(-inner).unwrap(),
        "the list's vector was freed after its items"
    );
}

#[test]
fn a_large_list_was_allocated_before_its_items_and_freed_after_them() {
    let bytes = list_of_lists(1000);
    // The first decode on this thread may allocate the scratch itself.
    drop(ValueRef::decode(&bytes).unwrap());
    let (_, sizes) = sizes_during(|| drop(ValueRef::decode(&bytes).unwrap()));
    check_order(&sizes, 1000 * 32, 32, 1000);
    let (_, sizes) = sizes_during(|| drop(Value::decode(&bytes).unwrap()));
    check_order(&sizes, 1000 * 32, 32, 1000);
}
