//! The encoder's fast paths against a plain reference encoder written here: short
//! strings copied in fixed-size pieces into the spare capacity (every length around the
//! piece sizes and the header forms), lists of lists written one level down without a
//! call, and the internal error type turned back into `EncodeError`. Miri runs this file
//! (`cargo +nightly miri test -p boltcodec-packstream --test encode`): the short-string
//! path writes into uninitialised capacity.

use bytes::BytesMut;
use packstream::{EncodeError, EncodeOptions, Encoder, Structure, Value, ValueRef};

/// The smallest-marker encoding, written the obvious way (one `extend` per piece).
fn reference(v: &Value, out: &mut Vec<u8>) {
    fn size(out: &mut Vec<u8>, tiny: Option<u8>, m: [u8; 3], n: usize) {
        match (tiny, n) {
            (Some(t), 0..=15) => out.push(t | n as u8),
            (_, 0..=0xFF) => out.extend([m[0], n as u8]),
            (_, 0x100..=0xFFFF) => {
                out.push(m[1]);
                out.extend((n as u16).to_be_bytes());
            }
            _ => {
                out.push(m[2]);
                out.extend((n as u32).to_be_bytes());
            }
        }
    }
    match v {
        Value::Null => out.push(0xC0),
        Value::Bool(b) => out.push(if *b { 0xC3 } else { 0xC2 }),
        Value::Int(i) => {
            let i = *i;
            if (-16..=127).contains(&i) {
                out.push(i as u8);
            } else if let Ok(b) = i8::try_from(i) {
                out.extend([0xC8, b as u8]);
            } else if let Ok(s) = i16::try_from(i) {
                out.push(0xC9);
                out.extend(s.to_be_bytes());
            } else if let Ok(w) = i32::try_from(i) {
                out.push(0xCA);
                out.extend(w.to_be_bytes());
            } else {
                out.push(0xCB);
                out.extend(i.to_be_bytes());
            }
        }
        Value::Float(f) => {
            out.push(0xC1);
            out.extend(f.to_be_bytes());
        }
        Value::Bytes(b) => {
            size(out, None, [0xCC, 0xCD, 0xCE], b.len());
            out.extend(b);
        }
        Value::String(s) => {
            size(out, Some(0x80), [0xD0, 0xD1, 0xD2], s.len());
            out.extend(s.as_bytes());
        }
        Value::List(items) => {
            size(out, Some(0x90), [0xD4, 0xD5, 0xD6], items.len());
            items.iter().for_each(|v| reference(v, out));
        }
        Value::Map(entries) => {
            size(out, Some(0xA0), [0xD8, 0xD9, 0xDA], entries.len());
            for (k, v) in entries {
                reference(&Value::String(k.clone()), out);
                reference(v, out);
            }
        }
        Value::Struct(s) => {
            out.extend([0xB0 | s.fields.len() as u8, s.tag]);
            s.fields.iter().for_each(|v| reference(v, out));
        }
        Value::Uuid(u) => {
            out.push(0xE0);
            out.extend(u);
        }
    }
}

fn expected(v: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    reference(v, &mut out);
    out
}

/// Encodes `v` after `prefix` into a `Vec` of exactly the prefix's capacity (so every
/// write has to grow it), into a roomy `Vec`, through `&mut Vec`, and into a `BytesMut`;
/// all four must equal the reference.
fn check(v: &Value) {
    let want = expected(v);
    let prefix = b"abc";

    let mut tight = Vec::with_capacity(prefix.len());
    tight.extend_from_slice(prefix);
    Encoder::new(&mut tight).write_value(v).unwrap();
    assert_eq!(&tight[..3], prefix);
    assert_eq!(&tight[3..], &want[..], "{v:?}");

    let mut roomy = Vec::with_capacity(4096);
    Encoder::new(&mut roomy).write_value(v).unwrap();
    assert_eq!(roomy, want, "{v:?}");

    let mut owned = Encoder::new(Vec::new());
    owned.write_value(v).unwrap();
    assert_eq!(owned.into_inner(), want, "{v:?}");

    let mut b = Encoder::new(BytesMut::new());
    b.write_value(v).unwrap();
    assert_eq!(&b.into_inner()[..], &want[..], "{v:?}");

    let (back, used) = ValueRef::decode(&want).unwrap();
    assert_eq!(used, want.len());
    assert_eq!(back.to_bytes().unwrap(), want);
}

/// A string of `n` distinct bytes (so a piece copied to the wrong place shows).
fn text(n: usize) -> String {
    (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect()
}

#[test]
fn short_strings_of_every_length_match_the_reference() {
    for n in 0..=40 {
        let s = text(n);
        check(&Value::String(s.clone()));
        // Inside a list (the list function's own string arm) and as a map key.
        check(&Value::List(vec![
            Value::String(s.clone()),
            Value::Int(n as i64),
        ]));
        check(&Value::Map(vec![(s.clone(), Value::String(s.clone()))]));
        let mut out = Vec::new();
        Encoder::new(&mut out).write_str(&s).unwrap();
        assert_eq!(out, expected(&Value::String(s)));
    }
}

#[test]
fn strings_at_the_header_boundaries_match_the_reference() {
    let lengths: &[usize] = if cfg!(miri) {
        &[255, 256]
    } else {
        &[255, 256, 65_535, 65_536]
    };
    for &n in lengths {
        check(&Value::String(text(n)));
    }
    // Multi-byte UTF-8: pieces copy bytes, not characters.
    for n in 1..=12 {
        check(&Value::String("é€".repeat(n)));
    }
}

#[test]
fn many_short_strings_into_a_tight_buffer_grow_it_correctly() {
    let v = Value::List((0..500).map(|i| Value::String(text(i % 35))).collect());
    check(&v);
}

/// Lists of lists are written one level below the list function without a call; the
/// levels around the recursion limit switch to the explicit stack.
#[test]
fn nested_lists_match_the_reference_at_every_depth() {
    let scalars = || {
        vec![
            Value::Int(-17),
            Value::Int(40_000),
            Value::Int(i64::MIN),
            Value::Float(-0.5),
            Value::String(text(9)),
            Value::String(text(33)),
            Value::Null,
            Value::Bool(true),
            Value::Bytes(vec![1, 2]),
            Value::Map(vec![("k".into(), Value::Int(1))]),
            Value::Struct(Structure::new(0x4E, vec![Value::Int(1)])),
        ]
    };
    let mut v = Value::List(scalars());
    for depth in 0..if cfg!(miri) { 12 } else { 80 } {
        let mut items = scalars();
        items.insert(depth % 5, v.clone());
        items.push(Value::List(vec![
            Value::List(scalars()),
            Value::List(vec![]),
        ]));
        v = Value::List(items);
        check(&v);
    }
    // The benchmark's shape: one list of many one-item lists, and a RECORD.
    check(&Value::List(
        (0..300)
            .map(|i| Value::List(vec![Value::Int(i * 31)]))
            .collect(),
    ));
    check(&Value::Struct(Structure::new(
        0x71,
        vec![Value::List(vec![
            Value::Int(7),
            Value::Float(1.5),
            Value::String("s1-2".into()),
        ])],
    )));
}

#[test]
fn errors_inside_nested_values_keep_their_kind() {
    let inner = Value::Struct(Structure::new(1, vec![Value::Null; 16]));
    let v = Value::List(vec![Value::List(vec![Value::Int(1), inner])]);
    let mut out = Vec::new();
    let err = Encoder::new(&mut out).write_value(&v).unwrap_err();
    assert_eq!(err, EncodeError::TooManyFields(16));

    let v = Value::List(vec![Value::List(vec![Value::Uuid([0; 16])])]);
    let err = Encoder::new(Vec::new()).write_value(&v).unwrap_err();
    assert_eq!(err, EncodeError::UuidNotEnabled);
    let opts = EncodeOptions {
        uuid: true,
        ..EncodeOptions::default()
    };
    let mut enc = Encoder::with_options(Vec::new(), opts);
    enc.write_value(&v).unwrap();
    assert_eq!(enc.into_inner(), expected(&v));
}
