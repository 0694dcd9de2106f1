//! serde deserialisation (`packstream::from_slice`) into representative types: a
//! dynamic value (`serde_json::Value`), a borrowing struct, enums of every variant shape, maps, tuples read
//! from structures, byte buffers, a recursive type, and `IgnoredAny` (the skipper).
//!
//! Input: `[selector] [flags] payload`.
//!
//! Checks: no panic or stack overflow; the memory bound; whatever deserialises as a
//! dynamic value or a `Person` serialises back to bytes that deserialise to the same thing;
//! a reused `packstream::serde::Deserializer` gives the same results as `from_slice_with`.
#![no_main]

use std::collections::{BTreeMap, HashMap};

use fuzz_common::{packstream_bound, peak_during, Header};
use libfuzzer_sys::fuzz_target;
use packstream::{from_slice_with, to_vec, DecodeOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Person<'a> {
    name: &'a str,
    age: u32,
    email: Option<String>,
    #[serde(borrow)]
    tags: Vec<&'a str>,
    score: f64,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
enum Shape {
    Unit,
    Newtype(i64),
    Tuple(i8, String),
    Struct { x: f32, y: Option<u64> },
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct Tree {
    label: String,
    children: Vec<Tree>,
    next: Option<Box<Tree>>,
}

/// A structure read as a tuple: the tag, then the fields.
#[derive(Debug, Deserialize)]
#[allow(dead_code)]
struct NodeLike<'a>(
    u8,
    i64,
    #[serde(borrow)] Vec<&'a str>,
    #[serde(borrow)] HashMap<&'a str, Value>,
);

fn run<'de, T: Deserialize<'de>>(bytes: &'de [u8], opts: &DecodeOptions) -> Option<T> {
    let (res, peak) = peak_during(|| from_slice_with::<T>(bytes, opts));
    assert!(
        peak <= 4 * packstream_bound(bytes.len()),
        "{}: peak {peak} for {} bytes",
        std::any::type_name::<T>(),
        bytes.len()
    );
    if let Err(e) = &res {
        if let Some(at) = e.offset() {
            assert!(at <= bytes.len(), "{e} outside {} bytes", bytes.len());
        }
    }
    // One `Deserializer` kept across messages decodes each as `from_slice_with` does
    // (the same error, at the same offset), whatever its previous use left behind.
    let mut de = packstream::serde::Deserializer::with_options(&[], opts);
    for _ in 0..2 {
        let reused = de.decode_exact::<T>(bytes);
        assert_eq!(reused.as_ref().err(), res.as_ref().err());
    }
    res.ok()
}

fuzz_target!(|data: &[u8]| {
    let mut h = Header::new(data);
    let selector = h.u8();
    let flags = h.u8();
    let bytes = h.rest();
    let opts = DecodeOptions::default()
        .with_uuid(flags & 1 != 0)
        .with_legacy_structs(flags & 2 != 0);
    match selector % 12 {
        0 => {
            if let Some(v) = run::<Value>(bytes, &opts) {
                // The mapping is lossy (structures read as lists, NaN as null), so
                // compare the second trip with the first.
                let again = to_vec(&v).expect("a deserialised Value serialises");
                let v2 = run::<Value>(&again, &opts).expect("and deserialises again");
                let again2 = to_vec(&v2).expect("serialises");
                assert_eq!(again, again2);
            }
        }
        1 => {
            if let Some(p) = run::<Person<'_>>(bytes, &opts) {
                let again = to_vec(&p).expect("serialises");
                let back: Person<'_> = run(&again, &opts).expect("deserialises");
                assert!(
                    back == p || (p.score.is_nan() && back.score.is_nan()),
                    "{p:?} != {back:?}"
                );
            }
        }
        2 => drop(run::<Shape>(bytes, &opts)),
        3 => drop(run::<Vec<Shape>>(bytes, &opts)),
        4 => drop(run::<HashMap<String, Vec<Option<i64>>>>(bytes, &opts)),
        5 => drop(run::<BTreeMap<&str, serde_bytes::ByteBuf>>(bytes, &opts)),
        6 => drop(run::<(u8, Vec<u8>, Option<bool>)>(bytes, &opts)),
        7 => drop(run::<Tree>(bytes, &opts)),
        8 => drop(run::<NodeLike<'_>>(bytes, &opts)),
        9 => drop(run::<serde::de::IgnoredAny>(bytes, &opts)),
        10 => drop(run::<Vec<f64>>(bytes, &opts)),
        _ => drop(run::<(char, &serde_bytes::Bytes, u64, i128)>(bytes, &opts)),
    }
});
