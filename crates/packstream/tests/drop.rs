//! Dropping a tree frees everything it owns, once: every shape (flat, maps with owned
//! keys, strings and byte arrays, empty containers with and without a buffer, nesting
//! below and beyond the levels the drop handles by recursion). `Drop` empties each
//! container's vector without a destructor call per item, so a leaf it failed to
//! release would leak, and one released twice would be freed twice.
//!
//! The leak check compares the peak heap use of one build-and-drop with that of many in
//! a row: with nothing leaked the peaks are equal; a leak of `x` bytes per drop raises
//! the second by `x` per round. Under Miri (`cargo +nightly miri test -p
//! boltcodec-packstream --test drop`) leaks and double frees are reported directly.

use packstream::{DecodeOptions, StructRef, Structure, Value, ValueRef};
use test_support::peak_during;

/// Nesting levels of the deepest case: beyond the recursion of the drop (16 levels).
const DEEP: usize = if cfg!(miri) { 40 } else { 1_000 };

/// Owned values of every shape, some wrapped `depth` levels deep.
fn owned_shapes(depth: usize) -> Vec<Value> {
    let leaves = || {
        vec![
            Value::Null,
            Value::Bool(true),
            Value::Int(-7),
            Value::Float(0.5),
            Value::String("a string that owns a buffer".into()),
            Value::Bytes(vec![1, 2, 3]),
            Value::Uuid([7; 16]),
            Value::List(Vec::new()),
            Value::List(Vec::with_capacity(8)),
            Value::Map(Vec::with_capacity(2)),
            Value::Struct(Structure::new(0x4E, Vec::with_capacity(3))),
        ]
    };
    let map = Value::Map(
        leaves()
            .into_iter()
            .enumerate()
            .map(|(i, v)| (format!("key-{i}"), v))
            .collect(),
    );
    let mut shapes = leaves();
    shapes.push(Value::List(leaves()));
    shapes.push(map.clone());
    shapes.push(Value::Struct(Structure::new(0x71, vec![map.clone()])));
    let mut deep = Value::List(vec![map, Value::String("tail".into())]);
    for i in 0..depth {
        deep = match i % 3 {
            0 => Value::List(vec![Value::String(format!("level {i}")), deep]),
            1 => Value::Map(vec![(format!("k{i}"), deep), ("x".into(), Value::Null)]),
            _ => Value::Struct(Structure::new(0x4E, vec![deep, Value::Bytes(vec![0; 4])])),
        };
    }
    shapes.push(deep);
    shapes
}

/// The same shapes as borrowed values.
fn borrowed_shapes(owned: &[Value]) -> Vec<ValueRef<'_>> {
    let mut shapes: Vec<ValueRef<'_>> = owned.iter().map(Value::as_value_ref).collect();
    // Empty containers that own a buffer, alone and inside another.
    shapes.push(ValueRef::Struct(StructRef {
        tag: 1,
        fields: Vec::with_capacity(4),
    }));
    shapes.push(ValueRef::List(vec![
        ValueRef::List(Vec::with_capacity(5)),
        ValueRef::Map(Vec::with_capacity(2)),
        ValueRef::String("s"),
    ]));
    shapes
}

/// The peak heap use of `rounds` builds and drops of `build`'s value, one after the other.
fn peak_of_rounds<T>(rounds: usize, build: impl Fn() -> T) -> usize {
    peak_during(|| {
        for _ in 0..rounds {
            drop(build());
        }
    })
    .1
}

#[test]
fn dropping_an_owned_tree_frees_all_it_owns() {
    for depth in [0, 3, 15, 16, 17, DEEP] {
        let once = peak_of_rounds(1, || owned_shapes(depth));
        let many = peak_of_rounds(10, || owned_shapes(depth));
        assert_eq!(once, many, "a value nested {depth} levels leaks on drop");
        // Clones (built by another walk) too.
        let shapes = owned_shapes(depth);
        assert_eq!(
            peak_of_rounds(1, || shapes.clone()),
            peak_of_rounds(10, || shapes.clone()),
            "a clone nested {depth} levels leaks on drop"
        );
    }
}

#[test]
fn dropping_a_borrowed_tree_frees_all_it_owns() {
    for depth in [0, 3, 16, 17, DEEP] {
        let owned = owned_shapes(depth);
        let once = peak_of_rounds(1, || borrowed_shapes(&owned));
        let many = peak_of_rounds(10, || borrowed_shapes(&owned));
        assert_eq!(once, many, "a value nested {depth} levels leaks on drop");
    }
}

#[test]
fn decoded_trees_drop_whole_and_in_parts() {
    for depth in [2, 17, DEEP] {
        for shape in owned_shapes(depth) {
            let bytes = shape.to_bytes().expect("encodes");
            let opts = DecodeOptions::default().with_uuid(true);
            let owned = Value::decode_exact_with(&bytes, &opts).expect("decodes");
            let borrowed = ValueRef::decode_exact_with(&bytes, &opts).expect("decodes");
            assert!(owned == shape && borrowed.to_owned_value() == shape);
            // Taken apart, the parts drop on their own.
            if let Ok(items) = owned.into_list() {
                drop(items.into_iter().rev().collect::<Vec<_>>());
            }
            if let Ok(entries) = borrowed.into_map() {
                drop(entries.into_iter().map(|(_, v)| v).collect::<Vec<_>>());
            };
        }
    }
}
