//! Values nested a million levels deep, decoded under a raised depth limit, must be as
//! safe to handle as flat ones: clone, compare, convert, print, encode, take apart and
//! drop, all on a thread with a 256 KiB stack. Before, each of these recursed once per
//! level and overflowed the stack (the C API crashed on such a RECORD).

use packstream::{DecodeLimits, DecodeOptions, Encoder, Value, ValueRef};

/// A million levels natively; under Miri (which runs about a thousand times slower) a
/// thousand, enough to check the non-recursive paths for undefined behaviour.
const LEVELS: usize = if cfg!(miri) { 1_000 } else { 1_000_000 };

/// A list, a map, a structure and a legacy-free mix, each nested `LEVELS` deep.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let nest = |level: &[u8]| {
        let mut bytes = level.repeat(LEVELS);
        bytes.push(0x2A);
        bytes
    };
    let mut mixed = Vec::new();
    for i in 0..LEVELS {
        mixed.extend_from_slice(match i % 3 {
            0 => &[0x92, 0x01][..],                                 // [1, <next>]
            1 => &[0xA2, 0x81, b'a', 0xC0, 0x81, b'b'],             // {"a": null, "b": <next>}
            _ => &[0xB2, 0x4E, 0x85, b'x', b'x', b'x', b'x', b'x'], // Struct<0x4E>["xxxxx", <next>]
        });
    }
    mixed.push(0xC3);
    vec![
        ("list", nest(&[0x91])),
        ("map", nest(&[0xA1, 0x80])),
        ("structure", nest(&[0xB1, 0x00])),
        ("mixed", mixed),
    ]
}

fn raised() -> DecodeOptions {
    DecodeOptions::default().with_limits(DecodeLimits {
        max_depth: u32::MAX,
        ..DecodeLimits::DEFAULT
    })
}

/// Runs `f` on a thread with a 256 KiB stack.
fn on_small_stack(f: impl FnOnce() + Send) {
    test_support::on_stack(256 * 1024, f);
}

#[test]
fn a_million_nested_levels_overflowed_the_stack_in_clone_eq_display_and_drop() {
    for (name, bytes) in inputs() {
        on_small_stack(move || {
            let opts = raised();
            let borrowed = ValueRef::decode_exact_with(&bytes, &opts).expect(name);
            let again = borrowed.clone();
            assert!(again == borrowed, "{name}: clone == original");

            let owned = borrowed.to_owned_value();
            let decoded = Value::decode_exact_with(&bytes, &opts).expect(name);
            assert!(owned == decoded, "{name}: owned conversion == owned decode");
            let owned_clone = owned.clone();
            assert!(owned_clone == owned, "{name}: owned clone");
            assert!(owned.as_value_ref() == borrowed, "{name}: as_value_ref");

            let mut out = Vec::new();
            Encoder::new(&mut out).write_value(&owned).expect("encode");
            assert_eq!(out, bytes, "{name}: re-encodes byte for byte");

            let shown = borrowed.to_string();
            assert_eq!(shown, owned.to_string(), "{name}: Display agrees");
            assert!(shown.len() > LEVELS, "{name}: Display wrote every level");
            let debug = format!("{owned:?}");
            assert!(debug.len() > LEVELS, "{name}: Debug wrote every level");

            // A difference at the innermost level is found.
            let mut changed = bytes.clone();
            if let Some(last) = changed.last_mut() {
                *last = 0x2B;
            }
            let other = ValueRef::decode_exact_with(&changed, &opts).expect(name);
            assert!(other != borrowed, "{name}: inequality at the bottom");

            drop((again, owned_clone, other));
            drop(decoded);
            drop(owned);
            drop(borrowed);
        });
    }
}

#[test]
fn deep_values_taken_apart_drop_without_recursion() {
    on_small_stack(|| {
        let bytes = [&[0x91u8][..]].repeat(LEVELS).concat();
        let mut bytes = bytes;
        bytes.push(0xC0);
        let v = ValueRef::decode_exact_with(&bytes, &raised()).expect("decodes");
        let items = v.into_list().expect("a list");
        assert_eq!(items.len(), 1);
        drop(items);
    });
}

#[test]
fn into_parts_give_back_other_values() {
    assert_eq!(Value::Int(1).into_list(), Err(Value::Int(1)));
    assert_eq!(
        Value::from(vec![Value::Null]).into_map(),
        Err(Value::List(vec![Value::Null]))
    );
    let s = packstream::Structure::new(0x44, vec![Value::Int(7)]);
    assert_eq!(Value::Struct(s.clone()).into_struct(), Ok(s));
    let (v, _) = ValueRef::decode(&[0xA1, 0x81, b'k', 0x01]).expect("map");
    assert_eq!(v.into_map(), Ok(vec![("k", ValueRef::Int(1))]));
}

#[test]
fn debug_and_display_render_every_shape() {
    let (v, _) = ValueRef::decode(&[
        0x94, 0x01, 0xA1, 0x81, b'k', 0xC1, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0, 0xB1, 0x44, 0x90, 0x90,
    ])
    .expect("value");
    assert_eq!(v.to_string(), r#"[1, {"k": 1.5}, Struct<0x44>[[]], []]"#);
    assert_eq!(
        format!("{v:?}"),
        r#"List([Int(1), Map({"k": Float(1.5)}), Struct(0x44, [List([])]), List([])])"#
    );
    assert_eq!(format!("{:?}", ValueRef::Bytes(&[1, 2])), "Bytes([1, 2])");
}

#[test]
fn the_default_depth_limit_fits_a_small_thread_stack() {
    on_small_stack(|| {
        // 1024 levels: the deepest value the default limits accept, in every form.
        for level in [&[0x91u8][..], &[0xA1, 0x80], &[0xB1, 0x00]] {
            let mut bytes = level.repeat(1023);
            bytes.push(0x90);
            let v = Value::decode_exact(&bytes).expect("accepted by default");
            let r = ValueRef::decode_exact(&bytes).expect("accepted by default");
            assert!(v.as_value_ref() == r);
            assert_eq!(v.to_bytes().expect("encodes"), bytes);
            let mut too_deep = level.repeat(1024);
            too_deep.push(0x90);
            assert!(ValueRef::decode_exact(&too_deep).is_err());
        }
    });
}
