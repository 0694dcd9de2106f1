//! Tables per marker width: every marker, both directions, with the boundary values.

use packstream::{
    DecodeLimits, DecodeOptions, Decoder, EncodeError, EncodeOptions, Encoder, ErrorKind,
    Structure, Token, Value, ValueRef,
};

fn enc(v: &Value) -> Vec<u8> {
    v.to_bytes().expect("encodes")
}

fn dec(b: &[u8]) -> Value {
    Value::decode_exact(b).unwrap_or_else(|e| panic!("{b:02X?}: {e}"))
}

fn err(b: &[u8]) -> (ErrorKind, usize) {
    let e = ValueRef::decode_exact(b).expect_err("must fail");
    (e.kind(), e.offset())
}

#[test]
fn integers_use_the_narrowest_marker_at_every_boundary() {
    let table: &[(i64, &[u8])] = &[
        (0, &[0x00]),
        (127, &[0x7F]),
        (-1, &[0xFF]),
        (-16, &[0xF0]),
        (-17, &[0xC8, 0xEF]),
        (-128, &[0xC8, 0x80]),
        (-129, &[0xC9, 0xFF, 0x7F]),
        (128, &[0xC9, 0x00, 0x80]),
        (32767, &[0xC9, 0x7F, 0xFF]),
        (-32768, &[0xC9, 0x80, 0x00]),
        (32768, &[0xCA, 0x00, 0x00, 0x80, 0x00]),
        (-32769, &[0xCA, 0xFF, 0xFF, 0x7F, 0xFF]),
        (2147483647, &[0xCA, 0x7F, 0xFF, 0xFF, 0xFF]),
        (-2147483648, &[0xCA, 0x80, 0x00, 0x00, 0x00]),
        (2147483648, &[0xCB, 0, 0, 0, 0, 0x80, 0, 0, 0]),
        (
            -2147483649,
            &[0xCB, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0xFF, 0xFF, 0xFF],
        ),
        (
            i64::MAX,
            &[0xCB, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
        ),
        (i64::MIN, &[0xCB, 0x80, 0, 0, 0, 0, 0, 0, 0]),
    ];
    for (v, bytes) in table {
        assert_eq!(enc(&Value::Int(*v)), *bytes, "encode {v}");
        assert_eq!(dec(bytes), Value::Int(*v), "decode {v}");
    }
}

#[test]
fn wider_integer_forms_decode() {
    assert_eq!(dec(&[0xC8, 0x2A]), Value::Int(42));
    assert_eq!(dec(&[0xC9, 0x00, 0x2A]), Value::Int(42));
    assert_eq!(dec(&[0xCA, 0, 0, 0, 0x2A]), Value::Int(42));
    assert_eq!(
        dec(&[0xCB, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        Value::Int(-1)
    );
}

#[test]
fn floats_keep_their_bits() {
    for bits in [
        0u64,
        0x8000_0000_0000_0000,
        0x7FF8_0000_0000_0000,
        0x7FF0_0000_0000_0001,
        0xFFF8_0000_0000_0000,
        0x7FF0_0000_0000_0000,
        0xFFF0_0000_0000_0000,
        1,
        0x000F_FFFF_FFFF_FFFF,
        0x7FEF_FFFF_FFFF_FFFF,
    ] {
        let v = Value::Float(f64::from_bits(bits));
        let b = enc(&v);
        assert_eq!(b[0], 0xC1);
        assert_eq!(&b[1..], bits.to_be_bytes());
        assert_eq!(dec(&b), v);
    }
    assert_eq!(
        enc(&Value::Float(1.23)),
        [0xC1, 0x3F, 0xF3, 0xAE, 0x14, 0x7A, 0xE1, 0x47, 0xAE]
    );
    assert_ne!(Value::Float(0.0), Value::Float(-0.0), "equality is by bits");
}

#[test]
fn null_and_booleans() {
    assert_eq!(enc(&Value::Null), [0xC0]);
    assert_eq!(enc(&Value::Bool(false)), [0xC2]);
    assert_eq!(enc(&Value::Bool(true)), [0xC3]);
    assert_eq!(dec(&[0xC3]), Value::Bool(true));
}

/// Header bytes expected for a sized value of `len` with the given markers.
fn header(tiny: Option<u8>, markers: [u8; 3], len: usize) -> Vec<u8> {
    match (tiny, len) {
        (Some(t), 0..=15) => vec![t | len as u8],
        (_, 0..=255) => vec![markers[0], len as u8],
        (_, 256..=65535) => {
            let mut h = vec![markers[1]];
            h.extend_from_slice(&(len as u16).to_be_bytes());
            h
        }
        _ => {
            let mut h = vec![markers[2]];
            h.extend_from_slice(&(len as u32).to_be_bytes());
            h
        }
    }
}

const SIZES: [usize; 9] = [0, 1, 15, 16, 255, 256, 65535, 65536, 70000];

#[test]
fn strings_at_every_size_boundary() {
    for n in SIZES {
        let s = "x".repeat(n);
        let mut want = header(Some(0x80), [0xD0, 0xD1, 0xD2], n);
        want.extend_from_slice(s.as_bytes());
        assert_eq!(enc(&Value::String(s.clone())), want, "len {n}");
        assert_eq!(dec(&want), Value::String(s), "len {n}");
    }
}

#[test]
fn bytes_at_every_size_boundary() {
    for n in SIZES {
        let b = vec![0xAB; n];
        let mut want = header(None, [0xCC, 0xCD, 0xCE], n);
        want.extend_from_slice(&b);
        assert_eq!(enc(&Value::Bytes(b.clone())), want, "len {n}");
        assert_eq!(dec(&want), Value::Bytes(b), "len {n}");
    }
}

#[test]
fn lists_at_every_size_boundary() {
    for n in SIZES {
        let items = vec![Value::Int(1); n];
        let mut want = header(Some(0x90), [0xD4, 0xD5, 0xD6], n);
        want.extend(std::iter::repeat_n(1u8, n));
        assert_eq!(enc(&Value::List(items.clone())), want, "len {n}");
        assert_eq!(dec(&want), Value::List(items), "len {n}");
    }
}

#[test]
fn maps_at_every_size_boundary() {
    for n in SIZES {
        let entries: Vec<(String, Value)> =
            (0..n).map(|i| (format!("{i:05}"), Value::Null)).collect();
        let mut want = header(Some(0xA0), [0xD8, 0xD9, 0xDA], n);
        for (k, _) in &entries {
            want.push(0x85);
            want.extend_from_slice(k.as_bytes());
            want.push(0xC0);
        }
        assert_eq!(enc(&Value::Map(entries.clone())), want, "len {n}");
        assert_eq!(dec(&want), Value::Map(entries), "len {n}");
    }
}

/// Map keys of 16- and 32-bit sizes were once misread by another implementation.
#[test]
fn map_keys_at_every_size_boundary() {
    for n in SIZES {
        let key = "k".repeat(n);
        let mut want = vec![0xA1];
        want.extend(header(Some(0x80), [0xD0, 0xD1, 0xD2], n));
        want.extend_from_slice(key.as_bytes());
        want.push(0x2A);
        let v = Value::Map(vec![(key, Value::Int(42))]);
        assert_eq!(enc(&v), want, "key len {n}");
        assert_eq!(dec(&want), v, "key len {n}");
    }
}

#[test]
fn non_minimal_sizes_decode() {
    // The Java server writes 16-bit sizes from 128 up.
    let mut b = vec![0xD1, 0x00, 0xC8];
    b.extend(std::iter::repeat_n(b'a', 200));
    assert_eq!(dec(&b), Value::String("a".repeat(200)));
    assert_eq!(dec(&[0xD0, 0x01, 0x41]), Value::from("A"));
    assert_eq!(dec(&[0xD2, 0, 0, 0, 0]), Value::from(""));
    assert_eq!(dec(&[0xD4, 0x00]), Value::List(vec![]));
    assert_eq!(
        dec(&[0xD5, 0x00, 0x01, 0xC0]),
        Value::List(vec![Value::Null])
    );
    assert_eq!(dec(&[0xD6, 0, 0, 0, 0]), Value::List(vec![]));
    assert_eq!(dec(&[0xD8, 0x00]), Value::Map(vec![]));
    assert_eq!(
        dec(&[0xD9, 0x00, 0x01, 0xD0, 0x01, 0x6B, 0x01]),
        Value::Map(vec![("k".into(), Value::Int(1))])
    );
    assert_eq!(dec(&[0xDA, 0, 0, 0, 0]), Value::Map(vec![]));
    assert_eq!(dec(&[0xCD, 0x00, 0x01, 0x07]), Value::Bytes(vec![7]));
    assert_eq!(dec(&[0xCE, 0, 0, 0, 0]), Value::Bytes(vec![]));
}

#[test]
fn duplicate_keys_are_kept_and_the_last_wins_on_lookup() {
    let b = [0xA3, 0x81, b'a', 0x01, 0x81, b'b', 0x02, 0x81, b'a', 0x03];
    let v = ValueRef::decode_exact(&b).expect("decodes");
    assert_eq!(v.get("a"), Some(&ValueRef::Int(3)));
    assert_eq!(v.as_map().map(<[_]>::len), Some(3));
    assert_eq!(
        v.to_bytes().expect("encodes"),
        b,
        "re-encodes byte for byte"
    );
}

#[test]
fn structures_tiny_and_legacy() {
    let s = Value::Struct(Structure::new(
        0x4E,
        vec![Value::Int(1), Value::List(vec![]), Value::Map(vec![])],
    ));
    assert_eq!(enc(&s), [0xB3, 0x4E, 0x01, 0x90, 0xA0]);
    assert_eq!(dec(&[0xB3, 0x4E, 0x01, 0x90, 0xA0]), s);
    assert_eq!(
        dec(&[0xB0, 0x7F]),
        Value::Struct(Structure::new(0x7F, vec![]))
    );
    // DC/DD are reserved unless legacy structures are enabled.
    assert_eq!(
        err(&[0xDC, 0x01, 0x4E, 0xC0]),
        (ErrorKind::ReservedMarker, 0)
    );
    assert_eq!(
        err(&[0xDD, 0x00, 0x01, 0x4E, 0xC0]),
        (ErrorKind::ReservedMarker, 0)
    );
    let legacy = DecodeOptions::default().with_legacy_structs(true);
    let want = Value::Struct(Structure::new(0x4E, vec![Value::Null]));
    assert_eq!(
        Value::decode_exact_with(&[0xDC, 0x01, 0x4E, 0xC0], &legacy),
        Ok(want.clone())
    );
    assert_eq!(
        Value::decode_exact_with(&[0xDD, 0x00, 0x01, 0x4E, 0xC0], &legacy),
        Ok(want)
    );
    // Encoding 16 fields needs the legacy option.
    let big = Value::Struct(Structure::new(1, vec![Value::Null; 16]));
    assert_eq!(big.to_bytes(), Err(EncodeError::TooManyFields(16)));
    let mut out = Vec::new();
    let opts = EncodeOptions {
        legacy_structs: true,
        uuid: false,
    };
    Encoder::with_options(&mut out, opts)
        .write_value(&big)
        .expect("legacy encodes");
    assert_eq!(&out[..3], [0xDC, 16, 1]);
    assert_eq!(Value::decode_exact_with(&out, &legacy), Ok(big));
    let mut out = Vec::new();
    Encoder::with_options(&mut out, opts)
        .write_struct_header(2, 300)
        .expect("legacy encodes");
    assert_eq!(out, [0xDD, 0x01, 0x2C, 2]);
}

#[test]
fn uuid_needs_packstream_v2() {
    let u: [u8; 16] = [
        0x55, 0x0E, 0x84, 0x00, 0xE2, 0x9B, 0x41, 0xD4, 0xA7, 0x16, 0x44, 0x66, 0x55, 0x44, 0, 0,
    ];
    let mut bytes = vec![0xE0];
    bytes.extend_from_slice(&u);
    assert_eq!(err(&bytes), (ErrorKind::ReservedMarker, 0));
    let v2 = DecodeOptions::default().with_uuid(true);
    assert_eq!(Value::decode_exact_with(&bytes, &v2), Ok(Value::Uuid(u)));
    assert_eq!(Value::Uuid(u).to_bytes().expect("encodes"), bytes);
    assert_eq!(
        Value::Uuid(u).to_string(),
        "uuid(550e8400-e29b-41d4-a716-446655440000)"
    );
    let mut out = Vec::new();
    assert_eq!(
        Encoder::new(&mut out).write_uuid(&u),
        Err(EncodeError::UuidNotEnabled)
    );
    // Truncated UUID: incomplete, at the marker.
    let e = Value::decode_exact_with(&bytes[..10], &v2).expect_err("truncated");
    assert_eq!((e.kind(), e.offset()), (ErrorKind::UnexpectedEnd, 0));
}

#[test]
fn every_reserved_marker_is_rejected() {
    for m in [
        0xC4u8, 0xC5, 0xC6, 0xC7, 0xCF, 0xD3, 0xD7, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF,
    ]
    .into_iter()
    .chain(0xE0..=0xEF)
    {
        assert_eq!(err(&[m]), (ErrorKind::ReservedMarker, 0), "{m:#04X}");
        assert_eq!(
            err(&[0x92, 0x01, m]),
            (ErrorKind::ReservedMarker, 2),
            "{m:#04X} nested"
        );
    }
}

#[test]
fn hostile_sizes_are_refused_before_allocating() {
    for m in [0xCE, 0xD2, 0xD6, 0xDA] {
        assert_eq!(
            err(&[m, 0xFF, 0xFF, 0xFF, 0xFF]),
            (ErrorKind::SizeTooLarge, 0),
            "{m:#04X}"
        );
        assert_eq!(
            err(&[m, 0x80, 0, 0, 0]),
            (ErrorKind::SizeTooLarge, 0),
            "{m:#04X}"
        );
    }
    // 2^31-1 is within the spec: strings and bytes then need the bytes to be there.
    assert_eq!(
        err(&[0xD2, 0x7F, 0xFF, 0xFF, 0xFF]),
        (ErrorKind::UnexpectedEnd, 0)
    );
    assert_eq!(
        err(&[0xCE, 0x7F, 0xFF, 0xFF, 0xFF]),
        (ErrorKind::UnexpectedEnd, 0)
    );
    // ... and lists/maps that large exceed the default total element limit.
    assert_eq!(
        err(&[0xD6, 0x7F, 0xFF, 0xFF, 0xFF]),
        (ErrorKind::LimitExceeded, 0)
    );
    assert_eq!(
        err(&[0xDA, 0x7F, 0xFF, 0xFF, 0xFF]),
        (ErrorKind::LimitExceeded, 0)
    );
    // A million claimed items with three present: refused at the header.
    assert_eq!(
        err(&[0xD6, 0x00, 0x0F, 0x42, 0x40, 1, 2, 3]),
        (ErrorKind::UnexpectedEnd, 0)
    );
    // A map entry needs at least two bytes.
    assert_eq!(
        err(&[0xA2, 0x80, 0x01, 0x80]),
        (ErrorKind::UnexpectedEnd, 0)
    );
}

#[test]
fn limits_are_enforced() {
    let lim = |l: DecodeLimits| DecodeOptions::default().with_limits(l);
    let d = DecodeLimits::default();
    let opts = lim(DecodeLimits {
        max_string_len: 3,
        ..d
    });
    assert!(ValueRef::decode_exact_with(&[0x83, b'a', b'b', b'c'], &opts).is_ok());
    let e = ValueRef::decode_exact_with(&[0x91, 0x84, b'a', b'b', b'c', b'd'], &opts)
        .expect_err("too long");
    assert_eq!((e.kind(), e.offset()), (ErrorKind::LimitExceeded, 1));
    let opts = lim(DecodeLimits {
        max_bytes_len: 0,
        ..d
    });
    let e = ValueRef::decode_exact_with(&[0xCC, 0x01, 0x00], &opts).expect_err("too long");
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    let opts = lim(DecodeLimits {
        max_container_len: 2,
        ..d
    });
    let e = ValueRef::decode_exact_with(&[0x93, 1, 2, 3], &opts).expect_err("too many");
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    let opts = lim(DecodeLimits {
        max_total_elements: 3,
        ..d
    });
    assert!(ValueRef::decode_exact_with(&[0x92, 0x91, 1, 2], &opts).is_ok());
    let e = ValueRef::decode_exact_with(&[0x92, 0x92, 1, 2, 3], &opts).expect_err("too many");
    assert_eq!((e.kind(), e.offset()), (ErrorKind::LimitExceeded, 1));
}

#[test]
fn deep_nesting_is_a_clean_error_for_every_api() {
    let mut deep = vec![0x91u8; 1_000_000];
    deep.push(0xC0);
    let e = ValueRef::decode_exact(&deep).expect_err("too deep");
    assert_eq!((e.kind(), e.offset()), (ErrorKind::LimitExceeded, 1024));
    let mut dec = Decoder::new(&deep);
    let e = dec.skip_value().expect_err("too deep");
    assert_eq!((e.kind(), e.offset()), (ErrorKind::LimitExceeded, 1024));
    // Maps too: {"": {"": ...}}
    let mut maps = Vec::new();
    for _ in 0..100_000 {
        maps.extend_from_slice(&[0xA1, 0x80]);
    }
    let e = ValueRef::decode(&maps).expect_err("too deep");
    assert_eq!(e.kind(), ErrorKind::LimitExceeded);
    // Exactly at the limit is fine.
    let mut ok = vec![0x91u8; 1024];
    ok.push(0xC0);
    assert!(ValueRef::decode_exact(&ok).is_ok());
}

#[test]
fn utf8_is_validated_with_the_offset_of_the_bad_byte() {
    assert_eq!(err(&[0x83, b'a', 0xFF, b'b']), (ErrorKind::InvalidUtf8, 2));
    assert_eq!(err(&[0x82, 0xC0, 0x80]), (ErrorKind::InvalidUtf8, 1));
    assert_eq!(err(&[0x83, 0xED, 0xA0, 0x80]), (ErrorKind::InvalidUtf8, 1));
    assert_eq!(err(&[0x83, b'a', 0xE2, 0x82]), (ErrorKind::InvalidUtf8, 2));
    assert_eq!(
        err(&[0xA1, 0x81, 0x80, 0x01]),
        (ErrorKind::InvalidUtf8, 2),
        "in a key"
    );
}

#[test]
fn map_keys_must_be_strings() {
    assert_eq!(err(&[0xA1, 0x01, 0x01]), (ErrorKind::NonStringKey, 1));
    assert_eq!(err(&[0xA1, 0xC0, 0x01]), (ErrorKind::NonStringKey, 1));
    assert_eq!(err(&[0xA1, 0x90, 0x01]), (ErrorKind::NonStringKey, 1));
    assert_eq!(
        err(&[0xA2, 0x81, b'a', 0x01, 0xCC, 0x00, 0x01]),
        (ErrorKind::NonStringKey, 4)
    );
    let mut dec = Decoder::new(&[0xA1, 0x01, 0x01]);
    assert_eq!(dec.next_token(), Ok(Token::Map(1)));
    assert_eq!(
        dec.next_token().map_err(|e| e.kind()),
        Err(ErrorKind::NonStringKey)
    );
}

#[test]
fn truncation_at_every_byte_is_incomplete() {
    let v = Value::List(vec![
        Value::Int(-129),
        Value::Float(1.5),
        Value::from("hello world, this is long"),
        Value::Bytes(vec![1, 2, 3]),
        Value::Map(vec![("k".into(), Value::Int(70000))]),
        Value::Struct(Structure::new(0x44, vec![Value::Int(19000)])),
    ]);
    let b = enc(&v);
    for cut in 0..b.len() {
        let e = ValueRef::decode(&b[..cut]).expect_err("truncated");
        assert!(e.is_incomplete(), "cut {cut}: {e}");
        assert!(e.offset() <= cut, "cut {cut}: offset {}", e.offset());
    }
    assert_eq!(dec(&b), v);
}

#[test]
fn trailing_bytes_are_reported_by_exact_decoding_only() {
    assert_eq!(err(&[0x01, 0x02]), (ErrorKind::TrailingBytes, 1));
    let (v, used) = ValueRef::decode(&[0x01, 0x02]).expect("one value");
    assert_eq!((v, used), (ValueRef::Int(1), 1));
    let mut dec = Decoder::new(&[0x90, 0x90]);
    dec.skip_value().expect("first");
    assert_eq!(
        dec.finish().map_err(|e| (e.kind(), e.offset())),
        Err((ErrorKind::TrailingBytes, 1))
    );
}

#[test]
fn pull_decoder_reads_fields_after_a_struct_header() {
    // RECORD [1, "a"] then a second value.
    let b = [0xB1, 0x71, 0x92, 0x01, 0x81, b'a', 0xC0];
    let mut dec = Decoder::new(&b);
    assert_eq!(dec.next_token(), Ok(Token::Struct { tag: 0x71, len: 1 }));
    assert_eq!(dec.depth(), 1);
    let fields = dec.read_value_ref().expect("fields");
    assert_eq!(
        fields,
        ValueRef::List(vec![ValueRef::Int(1), ValueRef::String("a")])
    );
    assert!(dec.is_complete());
    assert_eq!(dec.read_value(), Ok(Value::Null));
    assert_eq!(dec.finish(), Ok(()));
    assert!(dec.remaining().is_empty());
    dec.reset(&[0x2A]);
    assert_eq!(dec.next_token(), Ok(Token::Int(42)));
}

#[test]
fn bytes_mut_and_vec_sinks_agree() {
    let v = Value::Map(vec![(
        "a".into(),
        Value::List(vec![Value::Float(0.5), Value::Bytes(vec![9])]),
    )]);
    let mut vec_out = Vec::new();
    Encoder::new(&mut vec_out).write_value(&v).expect("vec");
    let bm = {
        let mut e = Encoder::new(bytes::BytesMut::new());
        e.write_value(&v).expect("bytesmut");
        e.into_inner()
    };
    assert_eq!(&bm[..], &vec_out[..]);
}

#[test]
fn encoding_refuses_oversized_headers() {
    let mut out = Vec::new();
    let mut e = Encoder::new(&mut out);
    assert_eq!(
        e.write_list_header(1 << 31),
        Err(EncodeError::SizeTooLarge(1 << 31))
    );
    assert_eq!(
        e.write_map_header(usize::MAX),
        Err(EncodeError::SizeTooLarge(usize::MAX))
    );
    assert!(e.write_list_header((1 << 31) - 1).is_ok());
}
