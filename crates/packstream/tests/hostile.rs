//! Hostile input, case by case: length claims at every sized marker, nesting to a
//! million, truncation at every byte of every test vector, reserved markers, bad UTF-8,
//! non-string keys. Each case must end in its documented error (kind and offset) through
//! every API — `ValueRef`, `Value`, the pull `Decoder`, serde — without a panic, and
//! within the documented peak memory of `96 * n + 64 KiB` for `n` input bytes, measured
//! with a thread-local counting allocator (other test threads do not disturb it).

use packstream::{
    DecodeLimits, DecodeOptions, Decoder, Error, ErrorKind, Structure, Value, ValueRef,
};

use test_support::hex;
use test_support::{packstream_bound as bound, peak_during};

fn opts(uuid: bool, legacy: bool) -> DecodeOptions {
    DecodeOptions::default()
        .with_uuid(uuid)
        .with_legacy_structs(legacy)
}

/// Decodes `bytes` as exactly one value through every API, checks that they all report
/// the same error within the memory bound, and returns it.
fn decode_error(bytes: &[u8], opts: &DecodeOptions) -> Error {
    let n = bytes.len();
    let (borrowed, peak) = peak_during(|| ValueRef::decode_exact_with(bytes, opts).err());
    assert!(peak <= bound(n), "ValueRef: peak {peak} for {n} bytes");
    let err = borrowed.unwrap_or_else(|| panic!("{:02X?} decoded", &bytes[..n.min(16)]));
    let (owned, peak) = peak_during(|| Value::decode_exact_with(bytes, opts).err());
    assert!(peak <= bound(n), "Value: peak {peak} for {n} bytes");
    assert_eq!(owned, Some(err), "Value and ValueRef disagree");
    let (pulled, peak) = peak_during(|| {
        let mut dec = Decoder::with_options(bytes, *opts);
        dec.skip_value().and_then(|()| dec.finish()).err()
    });
    assert!(peak <= bound(n), "Decoder: peak {peak} for {n} bytes");
    assert_eq!(pulled, Some(err), "the pull decoder disagrees");
    assert_eq!(err.is_incomplete(), err.kind() == ErrorKind::UnexpectedEnd);
    assert!(err.offset() <= n, "{err} outside {n} bytes");
    #[cfg(feature = "serde")]
    {
        let (res, peak) = peak_during(|| {
            packstream::from_slice_with::<serde::de::IgnoredAny>(bytes, opts).map(|_| ())
        });
        assert!(peak <= bound(n), "serde: peak {peak} for {n} bytes");
        // Skipping is iterative and, by design, ignores the depth limit.
        if err.expected() != "less deeply nested containers" {
            assert!(res.is_err(), "serde accepted {:02X?}", &bytes[..n.min(16)]);
        }
    }
    err
}

fn expect(bytes: &[u8], opts: &DecodeOptions, kind: ErrorKind, offset: usize) {
    let err = decode_error(bytes, opts);
    assert_eq!(
        (err.kind(), err.offset()),
        (kind, offset),
        "{:02X?}…: {err}",
        &bytes[..bytes.len().min(12)]
    );
}

/// A sized header: `marker`, then `claim` in the marker's width.
fn header(marker: u8, claim: u32) -> Vec<u8> {
    let mut h = vec![marker];
    match marker {
        0xCC | 0xD0 | 0xD4 | 0xD8 | 0xDC => h.push(claim as u8),
        0xCD | 0xD1 | 0xD5 | 0xD9 | 0xDD => h.extend_from_slice(&(claim as u16).to_be_bytes()),
        _ => h.extend_from_slice(&claim.to_be_bytes()),
    }
    if matches!(marker, 0xDC | 0xDD) {
        h.push(0x01); // the structure's tag
    }
    h
}

#[test]
fn length_claims_at_every_sized_marker_fail_before_allocating() {
    let legacy = opts(false, true);
    for marker in [
        0xCCu8, 0xCD, 0xCE, 0xD0, 0xD1, 0xD2, 0xD4, 0xD5, 0xD6, 0xD8, 0xD9, 0xDA, 0xDC, 0xDD,
    ] {
        let claims: &[u32] = match marker {
            0xCC | 0xD0 | 0xD4 | 0xD8 | 0xDC => &[0xFF],
            0xCD | 0xD1 | 0xD5 | 0xD9 | 0xDD => &[0xFFFF],
            _ => &[
                0x7FFF_FFFF,
                0x8000_0000,
                0xFFFF_FFFF,
                (1 << 26) + 1,
                1 << 25,
            ],
        };
        let is_container = matches!(marker, 0xD4..=0xDD);
        for &claim in claims {
            let expected = if claim > 0x7FFF_FFFF {
                ErrorKind::SizeTooLarge
            } else if is_container && claim > 1 << 26 {
                // max_total_elements (2^26) is checked before the bytes that remain.
                ErrorKind::LimitExceeded
            } else {
                ErrorKind::UnexpectedEnd
            };
            let mut alone = header(marker, claim);
            alone.extend(std::iter::repeat_n(0x01, 40));
            expect(&alone, &legacy, expected, 0);
            // As the second item of a list, and as a map value: the offset moves along.
            let mut in_list = vec![0x92, 0x00];
            in_list.extend_from_slice(&alone);
            expect(&in_list, &legacy, expected, 2);
            let mut in_map = vec![0xA1, 0x81, b'k'];
            in_map.extend_from_slice(&alone);
            expect(&in_map, &legacy, expected, 3);
            // Strings claim as map keys too.
            if matches!(marker, 0xD0..=0xD2) {
                let mut key = vec![0xA1];
                key.extend_from_slice(&alone);
                expect(&key, &legacy, expected, 1);
            }
        }
    }
}

/// A million nesting levels of every container form.
fn deep(level: &[u8], levels: usize, innermost: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(level.len() * levels + innermost.len());
    for _ in 0..levels {
        bytes.extend_from_slice(level);
    }
    bytes.extend_from_slice(innermost);
    bytes
}

const LEVELS: [&[u8]; 7] = [
    &[0x91],                         // tiny list
    &[0xD4, 0x01],                   // LIST_8
    &[0xD6, 0x00, 0x00, 0x00, 0x01], // LIST_32
    &[0xA1, 0x80],                   // tiny map, key "", the value nests
    &[0xD9, 0x00, 0x01, 0x80],       // MAP_16
    &[0xB1, 0x00],                   // tiny structure
    &[0xDC, 0x01, 0x00],             // STRUCT_8 (legacy)
];

#[test]
fn deep_trees_are_refused_by_default_and_safe_to_pull() {
    let legacy = opts(false, true);
    for level in LEVELS {
        let bytes = deep(level, 1_000_000, &[0xC0]);
        // The 1025th container is one too many (LimitExceeded at its marker).
        expect(
            &bytes,
            &legacy,
            ErrorKind::LimitExceeded,
            1024 * level.len(),
        );
        #[cfg(feature = "serde")]
        {
            // serde recurses, so it stops at SERDE_MAX_DEPTH; skipping is iterative but
            // held to the same limit: the 257th container is refused at its marker.
            let res = packstream::from_slice_with::<serde::de::IgnoredAny>(&bytes, &legacy);
            let err = res.unwrap_err().decode_error().expect("a decode error");
            assert_eq!(err.kind(), ErrorKind::LimitExceeded, "{level:02X?}");
            let cap = packstream::serde::SERDE_MAX_DEPTH as usize;
            assert_eq!(err.offset(), cap * level.len(), "{level:02X?}");
            let err = packstream::from_slice_with::<Vec<Vec<u8>>>(&bytes, &legacy).unwrap_err();
            assert!(err.offset().is_some_and(|o| o <= bytes.len()));
        }
        // With the limit lifted, the pull decoder walks all million levels in bounded
        // memory (it builds no tree, so nothing recurses).
        let unlimited = legacy.with_limits(DecodeLimits {
            max_depth: u32::MAX,
            ..DecodeLimits::DEFAULT
        });
        let (res, peak) = peak_during(|| {
            let mut dec = Decoder::with_options(&bytes, unlimited);
            dec.skip_value().and_then(|()| dec.finish())
        });
        assert_eq!(res, Ok(()), "{level:02X?}");
        assert!(peak <= bound(bytes.len()), "pull: peak {peak}");
        let (res, _) = peak_during(|| {
            let mut dec = Decoder::with_options(&bytes, unlimited);
            let mut tokens = 0u64;
            while !(dec.is_complete() && tokens > 0) {
                dec.next_token().expect("valid");
                tokens += 1;
            }
            tokens
        });
        assert!(res > 1_000_000);
    }
}

/// Regression: the encoder recursed once per level, about 4 KiB of stack per level in a
/// debug build, so re-encoding a 513-level list (which the default limits accept)
/// overflowed a 2 MiB thread stack and aborted the process. Containers deeper than 32
/// levels are now written with an explicit stack.
#[test]
fn encoding_a_deeply_nested_value_overflowed_the_stack() {
    let legacy = opts(false, true);
    for level in LEVELS {
        let bytes = deep(level, 1023, &[0x90]); // 1024 containers: the default maximum
        let v = ValueRef::decode_exact_with(&bytes, &legacy).expect("within the limits");
        let owned = Value::decode_exact_with(&bytes, &legacy).expect("within the limits");
        let canonical = test_support::on_stack(512 * 1024, || {
            let enc_opts = packstream::EncodeOptions {
                legacy_structs: true,
                uuid: false,
            };
            let mut a = Vec::new();
            packstream::Encoder::with_options(&mut a, enc_opts)
                .write_value_ref(&v)
                .expect("encodes");
            let mut b = Vec::new();
            packstream::Encoder::with_options(&mut b, enc_opts)
                .write_value(&owned)
                .expect("encodes");
            assert_eq!(a, b);
            a
        });
        // Smallest markers: the wide forms come back as tiny ones and decode the same.
        assert_eq!(ValueRef::decode_exact_with(&canonical, &legacy), Ok(v));
        assert!(canonical.len() <= bytes.len());
    }
}

/// The (decoded) bytes of one test vector, with its options.
struct Vector {
    name: String,
    bytes: Vec<u8>,
    opts: DecodeOptions,
}

fn vectors(groups: &[&str]) -> Vec<Vector> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/vectors/packstream.json"
    );
    let text = std::fs::read_to_string(path).expect("tests/vectors/packstream.json");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let mut out = Vec::new();
    for group in groups {
        for case in json[group].as_array().expect("cases") {
            let bytes = match case.get("hex") {
                Some(h) => hex(h.as_str().expect("hex")),
                None => case["hex_parts"]
                    .as_array()
                    .expect("hex_parts")
                    .iter()
                    .flat_map(|p| {
                        let part = hex(p[0].as_str().expect("hex"));
                        let n = p[1].as_u64().expect("count") as usize;
                        std::iter::repeat_n(part, n).flatten()
                    })
                    .collect(),
            };
            let o = &case["options"];
            let mut opts = opts(o["uuid"] == true, o["legacy_structs"] == true);
            if let Some(l) = case.get("limits") {
                let get = |k: &str| l.get(k).and_then(serde_json::Value::as_u64);
                let d = DecodeLimits::DEFAULT;
                opts = opts.with_limits(DecodeLimits {
                    max_depth: get("max_depth").map_or(d.max_depth, |v| v as u32),
                    max_string_len: get("max_string_len").map_or(d.max_string_len, |v| v as u32),
                    max_bytes_len: get("max_bytes_len").map_or(d.max_bytes_len, |v| v as u32),
                    max_container_len: get("max_container_len")
                        .map_or(d.max_container_len, |v| v as u32),
                    max_total_elements: get("max_total_elements").unwrap_or(d.max_total_elements),
                });
            }
            out.push(Vector {
                name: case["name"].as_str().unwrap_or("?").to_owned(),
                bytes,
                opts,
            });
        }
    }
    out
}

/// Every proper prefix of every valid vector is incomplete: `UnexpectedEnd`, never
/// another error, never a panic. Vectors above 4 KiB (13 of them, up to 450 KB) are cut
/// at every byte of their first and last 256 bytes and at 64 points between: cutting
/// them at every byte would take minutes in a debug build.
#[test]
fn truncation_at_every_byte_of_every_vector_is_incomplete() {
    let mut cuts_tried = 0usize;
    for v in vectors(&["valid", "decode_only"]) {
        let n = v.bytes.len();
        assert!(
            ValueRef::decode_exact_with(&v.bytes, &v.opts).is_ok(),
            "{}",
            v.name
        );
        let cuts: Vec<usize> = if n <= 4096 {
            (0..n).collect()
        } else {
            (0..256)
                .chain((256..n - 256).step_by((n - 512) / 64))
                .chain(n - 256..n)
                .collect()
        };
        for cut in cuts {
            let prefix = &v.bytes[..cut];
            let (res, peak) = peak_during(|| ValueRef::decode_with(prefix, &v.opts).map(|_| ()));
            let err = res.expect_err("a proper prefix cannot be complete");
            assert_eq!(
                err.kind(),
                ErrorKind::UnexpectedEnd,
                "{} cut at {cut}: {err}",
                v.name
            );
            assert!(err.offset() <= cut, "{} cut at {cut}: {err}", v.name);
            assert!(peak <= bound(cut), "{} cut at {cut}: peak {peak}", v.name);
            if cut < 512 {
                // The full cross-API check is slower; the short prefixes cover the forms.
                assert_eq!(
                    decode_error(prefix, &v.opts),
                    err,
                    "{} cut at {cut}",
                    v.name
                );
            }
            cuts_tried += 1;
        }
    }
    assert!(cuts_tried > 15_000, "only {cuts_tried} cuts");
}

/// Every invalid vector fails with its documented kind and offset through every API.
#[test]
fn invalid_vectors_fail_the_same_way_through_every_api() {
    let json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/vectors/packstream.json"
        ))
        .expect("vectors"),
    )
    .expect("JSON");
    let cases = json["invalid"].as_array().expect("cases");
    for (v, case) in vectors(&["invalid"]).into_iter().zip(cases) {
        let err = decode_error(&v.bytes, &v.opts);
        assert_eq!(err.kind().as_str(), case["error"], "{}", v.name);
        assert_eq!(err.offset() as u64, case["offset"], "{}", v.name);
    }
}

#[test]
fn reserved_markers_are_refused_wherever_they_stand() {
    let reserved: Vec<u8> = [0xC4u8, 0xC5, 0xC6, 0xC7, 0xCF, 0xD3, 0xD7, 0xDB, 0xDE, 0xDF]
        .into_iter()
        .chain(0xE0..=0xEF)
        .chain([0xDC, 0xDD]) // without legacy structures
        .collect();
    let v1 = opts(false, false);
    for m in reserved {
        expect(&[m], &v1, ErrorKind::ReservedMarker, 0);
        expect(&[m, 0, 0, 0, 0], &v1, ErrorKind::ReservedMarker, 0);
        expect(&[0x93, 0x01, 0x02, m], &v1, ErrorKind::ReservedMarker, 3);
        expect(&[0xA1, 0x81, b'k', m], &v1, ErrorKind::ReservedMarker, 3);
        expect(&[0xA1, m, 0x01], &v1, ErrorKind::ReservedMarker, 1); // as a key
        expect(&[0xB2, 0x4E, 0x01, m], &v1, ErrorKind::ReservedMarker, 3);
    }
    // E0 is a UUID with PackStream v2, DC/DD are structures with the legacy option.
    assert!(ValueRef::decode_exact_with(&[0xE0; 17], &opts(true, false)).is_ok());
    assert!(ValueRef::decode_exact_with(&[0xDC, 0x00, 0x01], &opts(false, true)).is_ok());
}

#[test]
fn bad_utf8_in_strings_and_map_keys_is_refused_at_the_bad_byte() {
    let bad: [&[u8]; 7] = [
        &[0xFF],
        &[0xC0, 0x80],             // overlong NUL
        &[0xED, 0xA0, 0x80],       // a surrogate
        &[0xE2, 0x82],             // cut short inside the string
        &[0xF4, 0x90, 0x80, 0x80], // above U+10FFFF
        &[b'o', b'k', 0x80],       // a lone continuation byte after valid text
        &[0xF0, 0x9F, 0x98],       // a 4-byte sequence missing its last byte
    ];
    let v1 = opts(false, false);
    for b in bad {
        let valid_prefix = std::str::from_utf8(b).unwrap_err().valid_up_to();
        for (marker, width) in [
            (0x80 | b.len() as u8, 0usize),
            (0xD0, 1),
            (0xD1, 2),
            (0xD2, 4),
        ] {
            let mut s = vec![marker];
            s.extend_from_slice(&(b.len() as u32).to_be_bytes()[4 - width..]);
            s.extend_from_slice(b);
            let at = 1 + width + valid_prefix;
            expect(&s, &v1, ErrorKind::InvalidUtf8, at);
            let mut as_key = vec![0xA1];
            as_key.extend_from_slice(&s);
            as_key.push(0x01);
            expect(&as_key, &v1, ErrorKind::InvalidUtf8, 1 + at);
            let mut in_list = vec![0x92, 0xC0];
            in_list.extend_from_slice(&s);
            expect(&in_list, &v1, ErrorKind::InvalidUtf8, 2 + at);
        }
    }
}

#[test]
fn map_keys_that_are_not_strings_are_refused() {
    let keys: [&[u8]; 10] = [
        &[0x01],
        &[0xC0],
        &[0xC3],
        &[0xC1, 0, 0, 0, 0, 0, 0, 0, 0],
        &[0xCC, 0x01, 0x61],
        &[0x90],
        &[0x91, 0x81, b'k'],
        &[0xA0],
        &[0xB0, 0x4E],
        &[0xCB, 0, 0, 0, 0, 0, 0, 0, 1],
    ];
    let v1 = opts(false, false);
    for key in keys {
        let mut m = vec![0xA1];
        m.extend_from_slice(key);
        m.push(0x01);
        expect(&m, &v1, ErrorKind::NonStringKey, 1);
        // The second key of a map inside a list.
        let mut nested = vec![0x91, 0xA2, 0x81, b'a', 0x01];
        nested.extend_from_slice(key);
        nested.push(0x02);
        expect(&nested, &v1, ErrorKind::NonStringKey, 5);
    }
}

/// Regression (found by the `packstream_decode` fuzz target): once the open containers
/// had promised more item slots than bytes remained, a new container pre-allocated
/// nothing, and its first item grew the `Vec` to the allocator's minimum of four items,
/// so a chain of one-item lists cost four tree nodes per input byte: 1 493 bytes peaked
/// at 252 KB, above the documented 96 × n + 64 KiB (209 KB). A non-empty container now
/// pre-allocates at least one slot.
#[test]
fn one_item_lists_behind_exhausted_promises_stay_within_the_bound() {
    // 100 lists that each claim 15 items promise far more slots than the 900 one-item
    // lists inside them leave bytes for.
    let mut bytes = vec![0x9F; 100];
    bytes.extend(std::iter::repeat_n(0x91, 900));
    bytes.push(0x00);
    let n = bytes.len();
    let v1 = opts(false, false);
    let (res, peak) = peak_during(|| ValueRef::decode_with(&bytes, &v1).map(|_| ()));
    assert_eq!(res.map_err(|e| e.kind()), Err(ErrorKind::UnexpectedEnd));
    assert!(
        peak <= bound(n),
        "ValueRef: peak {peak} for {n} bytes (bound {})",
        bound(n)
    );
    let (_, peak) = peak_during(|| Value::decode_with(&bytes, &v1).map(|_| ()));
    assert!(
        peak <= bound(n),
        "Value: peak {peak} for {n} bytes (bound {})",
        bound(n)
    );
    // Complete, the same chain is a valid value and stays within the bound too.
    let complete = deep(&[0x91], 1000, &[0x00]);
    let (res, peak) = peak_during(|| ValueRef::decode_exact(&complete).map(|_| ()));
    assert_eq!(res, Ok(()));
    assert!(peak <= bound(complete.len()), "complete: peak {peak}");
}

/// Structures whose field count lies: more fields claimed than present is incomplete,
/// fewer leaves trailing bytes (PackStream itself gives structures no fixed shape; the
/// Bolt layer checks counts per tag).
#[test]
fn structure_field_counts_that_lie() {
    let v1 = opts(false, false);
    expect(&[0xB3, 0x4E, 0x01, 0x02], &v1, ErrorKind::UnexpectedEnd, 0);
    expect(&[0xB1, 0x4E, 0x01, 0x02], &v1, ErrorKind::TrailingBytes, 3);
    expect(&[0xBF, 0x4E], &v1, ErrorKind::UnexpectedEnd, 0);
    expect(&[0xB1], &v1, ErrorKind::UnexpectedEnd, 0); // no tag
    let legacy = opts(false, true);
    expect(
        &[0xDD, 0xFF, 0xFF, 0x01, 0x00],
        &legacy,
        ErrorKind::UnexpectedEnd,
        0,
    );
    // A legacy structure of 16 fields is fine when its fields are there.
    let mut ok = vec![0xDC, 16, 0x01];
    ok.extend(std::iter::repeat_n(0x00, 16));
    let v = Value::decode_exact_with(&ok, &legacy).expect("decodes");
    assert_eq!(v, Value::Struct(Structure::new(1, vec![Value::Int(0); 16])));
}
