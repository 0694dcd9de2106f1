//! Property tests: encode/decode round trips, and arbitrary bytes never panic nor allocate
//! far beyond the input's size (measured with a counting allocator).

use packstream::{DecodeOptions, Decoder, EncodeOptions, Encoder, Structure, Value, ValueRef};
use proptest::prelude::*;

use test_support::{packstream_bound as bound, peak_during};

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        prop_oneof![
            -200i64..200,
            Just(i64::MIN),
            Just(i64::MAX),
            -70000i64..70000
        ]
        .prop_map(Value::Int),
        any::<u64>().prop_map(|b| Value::Float(f64::from_bits(b))),
        any::<f64>().prop_map(Value::Float),
        ".{0,40}".prop_map(Value::String),
        proptest::collection::vec(any::<u8>(), 0..40).prop_map(Value::Bytes),
        any::<[u8; 16]>().prop_map(Value::Uuid),
    ];
    leaf.prop_recursive(6, 256, 20, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..20).prop_map(Value::List),
            proptest::collection::vec((".{0,20}", inner.clone()), 0..20).prop_map(Value::Map),
            (0u8..=0x7F, proptest::collection::vec(inner, 0..16))
                .prop_map(|(tag, fields)| Value::Struct(Structure::new(tag, fields))),
        ]
    })
}

fn v2() -> DecodeOptions {
    DecodeOptions::default().with_uuid(true)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn round_trip_owned_and_borrowed(v in arb_value()) {
        let bytes = v.to_bytes().expect("encodes");
        prop_assert_eq!(&Value::decode_exact_with(&bytes, &v2()).expect("decodes"), &v);
        let r = ValueRef::decode_exact_with(&bytes, &v2()).expect("decodes");
        prop_assert_eq!(&r.to_owned_value(), &v);
        prop_assert_eq!(r.to_bytes().expect("re-encodes"), bytes.clone());
        // The pull decoder agrees on where the value ends.
        let mut dec = Decoder::with_options(&bytes, v2());
        dec.skip_value().expect("skips");
        prop_assert_eq!(dec.position(), bytes.len());
        // BytesMut output is identical.
        let mut enc = Encoder::with_options(bytes::BytesMut::new(), EncodeOptions { uuid: true, legacy_structs: false });
        enc.write_value(&v).expect("encodes");
        prop_assert_eq!(&enc.into_inner()[..], &bytes[..]);
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_stay_within_the_memory_bound(
        bytes in proptest::collection::vec(any::<u8>(), 0..600),
        uuid in any::<bool>(),
        legacy in any::<bool>(),
    ) {
        let opts = DecodeOptions::default().with_uuid(uuid).with_legacy_structs(legacy);
        let (_, peak) = peak_during(|| ValueRef::decode_with(&bytes, &opts).map(|(v, n)| (v.type_name(), n)));
        prop_assert!(peak <= bound(bytes.len()), "peak {} for {} bytes", peak, bytes.len());
        let (_, peak) = peak_during(|| {
            let mut dec = Decoder::with_options(&bytes, opts);
            while dec.next_token().is_ok() && dec.position() < bytes.len() {}
        });
        prop_assert!(peak <= bound(bytes.len()), "pull peak {} for {} bytes", peak, bytes.len());
    }

    #[test]
    fn mutated_encodings_never_panic(v in arb_value(), flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6), cut in any::<prop::sample::Index>()) {
        let mut bytes = v.to_bytes().expect("encodes");
        for (at, b) in flips {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        let cut = cut.index(bytes.len() + 1);
        let bytes = &bytes[..cut];
        let (res, peak) = peak_during(|| ValueRef::decode_with(bytes, &v2()).map(|(v, n)| (v.to_owned_value(), n)));
        prop_assert!(peak <= 2 * bound(bytes.len()), "peak {} for {} bytes", peak, bytes.len());
        if let Ok((value, used)) = res {
            // Whatever decodes re-encodes to something that decodes to the same value.
            let again = value.to_bytes().expect("re-encodes");
            prop_assert_eq!(Value::decode_exact_with(&again, &v2()).expect("decodes"), value);
            prop_assert!(used <= bytes.len());
        }
    }
}

/// Hostile length claims at every sized marker, measured: nothing near the claim is allocated.
#[test]
fn hostile_claims_allocate_nothing_near_the_claim() {
    for marker in [
        0xCCu8, 0xCD, 0xCE, 0xD0, 0xD1, 0xD2, 0xD4, 0xD5, 0xD6, 0xD8, 0xD9, 0xDA,
    ] {
        for claim in [0x7FFF_FFFFu32, 0xFFFF_FFFF, 0xFFFF, 0xFF, 1_000_000] {
            let mut bytes = vec![marker];
            bytes.extend_from_slice(&claim.to_be_bytes());
            bytes.extend(std::iter::repeat_n(0x01u8, 64));
            let (res, peak) = peak_during(|| ValueRef::decode(&bytes).map(|(_, n)| n));
            assert!(
                peak <= bound(bytes.len()),
                "{marker:#04X} claim {claim}: peak {peak}"
            );
            if let Err(e) = res {
                assert!(e.offset() <= bytes.len());
            }
        }
    }
}

/// A wide but shallow value: the bound holds for real data too.
#[test]
fn large_valid_input_stays_within_the_memory_bound() {
    let v = Value::List(
        (0..50_000)
            .map(|i| Value::List(vec![Value::Int(i), Value::from("x")]))
            .collect(),
    );
    let bytes = v.to_bytes().expect("encodes");
    // The allocator really counts: a known allocation shows up in the peak. `black_box`
    // keeps the optimiser from removing an allocation whose contents are never read
    // (regression: in release builds LLVM dropped it and the peak was 0).
    let (kept, peak) = peak_during(|| std::hint::black_box(vec![7u8; 100_000]));
    assert!(
        peak >= 100_000 && kept.len() == 100_000,
        "counting allocator saw {peak}"
    );
    drop(kept);
    let (res, peak) = peak_during(|| {
        ValueRef::decode_exact(std::hint::black_box(&bytes))
            .map(|v| std::hint::black_box(v).type_name())
    });
    assert_eq!(res, Ok("list"));
    assert!(
        peak <= bound(bytes.len()),
        "peak {peak} for {} bytes",
        bytes.len()
    );
}

/// Regression (found by `mutated_encodings_never_panic`): nested headers that each claim
/// nearly all of the remaining input used to pre-allocate that claim at every level, so
/// 475 bytes could reserve ~450 KB. Pre-allocation is now bounded by the bytes not yet
/// promised to other open containers.
#[test]
fn nested_container_claims_do_not_multiply_preallocation() {
    for header in [[0xD4u8, 0xFF], [0xD8, 0x7F], [0xDC, 0xFF]] {
        let mut bytes = Vec::new();
        for _ in 0..300 {
            bytes.extend_from_slice(&header);
            if header[0] == 0xD8 {
                bytes.extend_from_slice(&[0x80]); // a key, then the next map as its value
            }
            if header[0] == 0xDC {
                bytes.push(0x01); // the structure's tag
            }
        }
        bytes.extend(std::iter::repeat_n(0x01u8, 600));
        let opts = DecodeOptions::default().with_legacy_structs(true);
        let (res, peak) = peak_during(|| ValueRef::decode_with(&bytes, &opts).map(|(_, n)| n));
        assert!(res.is_err(), "{header:02X?}: cannot be complete");
        assert!(
            peak <= bound(bytes.len()),
            "{header:02X?}: peak {peak} for {} bytes",
            bytes.len()
        );
        #[cfg(feature = "serde")]
        {
            let (_, peak) =
                peak_during(|| packstream::from_slice::<serde::de::IgnoredAny>(&bytes).map(|_| ()));
            assert!(
                peak <= bound(bytes.len()),
                "{header:02X?} serde skip: peak {peak}"
            );
            let (_, peak) = peak_during(|| {
                packstream::from_slice_with::<Vec<serde_json::Value>>(&bytes, &opts).map(|_| ())
            });
            assert!(
                peak <= bound(bytes.len()),
                "{header:02X?} serde: peak {peak}"
            );
        }
    }
}
