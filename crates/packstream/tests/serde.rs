//! serde: the documented mapping, borrowing, and errors with offsets.
#![cfg(feature = "serde")]

use std::collections::BTreeMap;

use packstream::serde::{Error, ErrorDetail};
use packstream::{from_slice, to_vec, ErrorKind, Value};
use serde::{Deserialize, Serialize};

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Person<'a> {
    name: &'a str,
    #[serde(with = "serde_bytes")]
    avatar: &'a [u8],
    age: u8,
    score: f64,
    tags: Vec<String>,
    nick: Option<String>,
    address: Address,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Address {
    city: String,
    zip: Zip,
}

#[derive(Debug, PartialEq, Serialize, Deserialize)]
struct Zip(u32);

#[derive(Debug, PartialEq, Serialize, Deserialize)]
enum Shape {
    Empty,
    Circle(f64),
    Rect(f64, f64),
    Poly { sides: u8 },
}

#[test]
fn structs_are_maps_and_strings_borrow() {
    let avatar = [1u8, 2, 3];
    let p = Person {
        name: "Alice",
        avatar: &avatar,
        age: 33,
        score: 1.5,
        tags: vec!["a".into(), "b".into()],
        nick: None,
        address: Address {
            city: "Malmö".into(),
            zip: Zip(21120),
        },
    };
    let bytes = to_vec(&p).expect("serialises");
    // Same bytes as the equivalent PackStream map.
    let as_value = Value::decode_exact(&bytes).expect("valid packstream");
    assert_eq!(as_value.get("name"), Some(&Value::from("Alice")));
    assert_eq!(as_value.get("avatar"), Some(&Value::Bytes(vec![1, 2, 3])));
    assert_eq!(as_value.get("nick"), Some(&Value::Null));
    assert_eq!(
        as_value.get("address").and_then(|a| a.get("zip")),
        Some(&Value::Int(21120))
    );
    let back: Person<'_> = from_slice(&bytes).expect("deserialises");
    assert_eq!(back, p);
    assert!(
        bytes.as_ptr_range().contains(&back.name.as_ptr()),
        "name borrows"
    );
    assert!(
        bytes.as_ptr_range().contains(&back.avatar.as_ptr()),
        "bytes borrow"
    );
}

#[test]
fn enums_follow_the_mapping_table() {
    let cases = [
        (Shape::Empty, Value::from("Empty")),
        (
            Shape::Circle(1.0),
            Value::Map(vec![("Circle".into(), Value::Float(1.0))]),
        ),
        (
            Shape::Rect(1.0, 2.0),
            Value::Map(vec![(
                "Rect".into(),
                Value::List(vec![Value::Float(1.0), Value::Float(2.0)]),
            )]),
        ),
        (
            Shape::Poly { sides: 5 },
            Value::Map(vec![(
                "Poly".into(),
                Value::Map(vec![("sides".into(), Value::Int(5))]),
            )]),
        ),
    ];
    for (shape, value) in cases {
        let bytes = to_vec(&shape).expect("serialises");
        assert_eq!(bytes, value.to_bytes().expect("encodes"), "{shape:?}");
        assert_eq!(from_slice::<Shape>(&bytes).expect("deserialises"), shape);
    }
}

#[test]
fn tuples_options_unit_and_maps() {
    let t = (1i64, "two".to_string(), 3.0f64, true, ());
    let bytes = to_vec(&t).expect("serialises");
    assert_eq!(
        bytes,
        [0x95, 0x01, 0x83, b't', b'w', b'o', 0xC1, 0x40, 0x08, 0, 0, 0, 0, 0, 0, 0xC3, 0xC0]
    );
    assert_eq!(
        from_slice::<(i64, String, f64, bool, ())>(&bytes).expect("deserialises"),
        t
    );
    let m: BTreeMap<String, Option<i32>> = [("a".into(), Some(1)), ("b".into(), None)].into();
    let bytes = to_vec(&m).expect("serialises");
    assert_eq!(bytes, [0xA2, 0x81, b'a', 0x01, 0x81, b'b', 0xC0]);
    assert_eq!(
        from_slice::<BTreeMap<String, Option<i32>>>(&bytes).expect("deserialises"),
        m
    );
    // Iterators of unknown length are counted and written with the right header.
    struct Unsized(Vec<u8>);
    impl Serialize for Unsized {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_seq(self.0.iter().filter(|_| true))
        }
    }
    assert_eq!(
        to_vec(&Unsized((0..20).collect())).expect("serialises")[..2],
        [0xD4, 20]
    );
}

#[test]
fn integers_are_range_checked_and_floats_accept_integers() {
    assert_eq!(from_slice::<u8>(&[0x7F]).expect("fits"), 127);
    assert!(matches!(
        from_slice::<u8>(&[0xFF]).map_err(Error::into_detail),
        Err(ErrorDetail::Data { .. })
    ));
    assert!(to_vec(&u64::MAX).is_err());
    assert_eq!(
        to_vec(&(i64::MAX as u64)).expect("fits"),
        Value::Int(i64::MAX).to_bytes().expect("encodes")
    );
    assert_eq!(from_slice::<f64>(&[0x2A]).expect("int as float"), 42.0);
}

#[test]
fn map_keys_must_be_strings() {
    let m: BTreeMap<i32, i32> = [(1, 2)].into();
    assert!(to_vec(&m).is_err());
    let err = from_slice::<BTreeMap<String, i32>>(&[0xA1, 0x01, 0x02]).expect_err("int key");
    assert!(
        matches!(err.detail(), ErrorDetail::Decode(e) if e.kind() == ErrorKind::NonStringKey && e.offset() == 1)
    );
}

#[test]
fn structures_read_as_tag_then_fields() {
    // Point2D: B3 58 srid x y
    let bytes = [
        0xB3, 0x58, 0xC9, 0x1C, 0xE3, 0xC1, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0xC1, 0x40, 0, 0, 0, 0,
        0, 0, 0,
    ];
    let (tag, srid, x, y): (u8, i64, f64, f64) = from_slice(&bytes).expect("deserialises");
    assert_eq!((tag, srid, x, y), (0x58, 7395, 1.0, 2.0));
}

#[test]
fn errors_carry_offsets() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct S {
        a: i64,
        b: String,
    }
    // {"a": 1, "b": 2}: b is not a string; the error points at the 2.
    let bytes = [0xA2, 0x81, b'a', 0x01, 0x81, b'b', 0x02];
    let err = from_slice::<S>(&bytes).expect_err("type mismatch");
    assert_eq!(err.offset(), Some(6), "{err}");
    // Truncated input is a decode error with its kind.
    let err = from_slice::<S>(&bytes[..5]).expect_err("truncated");
    assert!(
        matches!(err.detail(), ErrorDetail::Decode(e) if e.is_incomplete()),
        "{err}"
    );
    // Trailing bytes.
    let err = from_slice::<i64>(&[0x01, 0x02]).expect_err("trailing");
    assert!(
        matches!(err.detail(), ErrorDetail::Decode(e) if e.kind() == ErrorKind::TrailingBytes && e.offset() == 1)
    );
    // Extra list items beyond a tuple.
    assert!(from_slice::<(i64,)>(&[0x92, 0x01, 0x02]).is_err());
}

#[test]
fn deep_nesting_is_a_clean_error() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Any(serde::de::IgnoredAny);
    let mut deep = vec![0x91u8; 1_000_000];
    deep.push(0xC0);
    // Recursive targets stop at the serde depth cap, well before the stack would.
    let err = from_slice::<Vec<Vec<Vec<serde_json::Value>>>>(&deep).expect_err("too deep");
    assert!(err.offset().is_some());
    let err = from_slice::<serde_json::Value>(&deep).expect_err("too deep");
    assert!(
        matches!(err.detail(), ErrorDetail::Decode(e) if e.kind() == ErrorKind::LimitExceeded),
        "{err}"
    );
    // Skipping is iterative, and held to the same limit.
    let err = from_slice::<Any>(&deep).expect_err("too deep");
    assert!(
        matches!(err.detail(), ErrorDetail::Decode(e) if e.kind() == ErrorKind::LimitExceeded),
        "{err}"
    );
}

/// `IgnoredAny` (and so every unknown struct field) skipped values at any depth, where
/// every other path refuses containers nested deeper than `max_depth`.
#[test]
fn ignored_values_were_not_held_to_the_nesting_limit() {
    use packstream::{DecodeLimits, DecodeOptions};
    use serde::de::IgnoredAny;
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Known {
        a: i64,
    }
    for max_depth in 0..6 {
        let opts = DecodeOptions {
            limits: DecodeLimits {
                max_depth,
                ..DecodeLimits::default()
            },
            ..DecodeOptions::default()
        };
        for depth in 0..8usize {
            // `depth` lists, one in the other, around a null; then the same value as
            // the unknown field `b` of a one-entry map (one level more).
            let mut value = vec![0x91; depth];
            value.push(0xC0);
            if depth > 0 {
                // The innermost list holds a map, with an empty list in a value, to
                // exercise each container kind: all the same depth plus two.
                value.truncate(depth - 1);
                value.extend_from_slice(b"\x91\xA1\x81k\x90");
            }
            let levels = if depth == 0 { 0 } else { depth + 2 };
            let mut field = b"\xA2\x81a\x01\x81b".to_vec();
            field.extend_from_slice(&value);
            for (bytes, levels) in [(value.clone(), levels), (field, levels + 1)] {
                let want = packstream::from_slice_with::<serde_json::Value>(&bytes, &opts);
                let ignored = packstream::from_slice_with::<IgnoredAny>(&bytes, &opts);
                assert_eq!(
                    ignored.is_ok(),
                    levels <= max_depth as usize,
                    "{bytes:02X?}"
                );
                assert_eq!(ignored.is_ok(), want.is_ok(), "{bytes:02X?}");
                if let (Err(e), Err(w)) = (&ignored, &want) {
                    assert_eq!(e.decode_error(), w.decode_error(), "{bytes:02X?}");
                    assert_eq!(e.kind(), "limit_exceeded");
                }
                if bytes[0] == 0xA2 {
                    let known = packstream::from_slice_with::<Known>(&bytes, &opts);
                    assert_eq!(known.is_ok(), want.is_ok(), "{bytes:02X?}");
                    if let (Err(e), Err(w)) = (&known, &want) {
                        assert_eq!(e.decode_error(), w.decode_error(), "{bytes:02X?}");
                    }
                }
            }
        }
    }
}

/// `Deserializer` kept across values: each value is decoded as `from_slice_with` would,
/// with the same errors, offsets and limits, per value.
#[test]
fn a_reused_deserializer_decodes_each_message_as_from_slice_does() {
    use packstream::serde::Deserializer;
    use packstream::{DecodeLimits, DecodeOptions};

    #[derive(Debug, PartialEq, Deserialize)]
    struct Row<'a>(u8, #[serde(borrow)] (i64, &'a str, Option<bool>));

    let messages: Vec<Vec<u8>> = vec![
        vec![0xB1, 0x71, 0x93, 0x01, 0x81, b'a', 0xC0],
        vec![0xB1, 0x71, 0x93, 0x02, 0x81, b'b', 0xC3],
        // the string is an integer: a data error at offset 4
        vec![0xB1, 0x71, 0x93, 0x03, 0x04, b'c', 0xC3],
        // trailing byte
        vec![0xB1, 0x71, 0x93, 0x04, 0x81, b'd', 0xC2, 0x00],
        // truncated: the list's three items cannot fit in what is left
        vec![0xB1, 0x71, 0x93, 0x05, 0x81],
        // a list of two where the tuple takes three
        vec![0xB1, 0x71, 0x92, 0x06, 0x81, b'f'],
        vec![0xB1, 0x71, 0x93, 0x07, 0x81, b'g', 0xC2],
    ];
    let opts = DecodeOptions::default();
    let mut de = Deserializer::with_options(&[], &opts);
    for m in &messages {
        let reused = de.decode_exact::<Row<'_>>(m);
        let alone = packstream::from_slice_with::<Row<'_>>(m, &opts);
        assert_eq!(reused, alone, "{m:02X?}");
    }
    let results: Vec<_> = messages
        .iter()
        .map(|m| de.decode_exact::<Row<'_>>(m).map_err(|e| e.offset()))
        .collect();
    assert_eq!(results[0], Ok(Row(0x71, (1, "a", None))));
    assert_eq!(results[1], Ok(Row(0x71, (2, "b", Some(true)))));
    assert_eq!(results[2], Err(Some(4)));
    assert_eq!(results[3], Err(Some(7)));
    assert_eq!(results[4], Err(Some(2)));
    assert_eq!(results[5], Err(Some(4))); // serde's length error: the last token read
    assert_eq!(results[6], Ok(Row(0x71, (7, "g", Some(false)))));

    // Limits count per value: max_total_elements 4 admits each record (1 + 3 items),
    // however many are read with one deserializer, and still refuses a bigger one.
    let tight = DecodeOptions::default().with_limits(DecodeLimits {
        max_total_elements: 4,
        ..DecodeLimits::default()
    });
    let mut de = Deserializer::with_options(&[], &tight);
    for _ in 0..3 {
        assert!(de.decode_exact::<Row<'_>>(&messages[0]).is_ok());
    }
    let five = [0x95, 1, 2, 3, 4, 5];
    let err = de
        .decode_exact::<Vec<i64>>(&five)
        .expect_err("over the limit");
    assert!(
        matches!(err.detail(), ErrorDetail::Decode(e) if e.kind() == ErrorKind::LimitExceeded && e.offset() == 0),
        "{err}"
    );
    let all: Vec<u8> = messages[..2].concat();
    let mut de = Deserializer::with_options(&all, &tight);
    assert_eq!(de.next_value::<Row<'_>>(), Ok(Row(0x71, (1, "a", None))));
    assert_eq!(de.position(), 7);
    assert!(de.end().is_err());
    assert_eq!(
        de.next_value::<Row<'_>>(),
        Ok(Row(0x71, (2, "b", Some(true))))
    );
    assert_eq!(de.end(), Ok(()));
}

/// Values one after another in one buffer: offsets count from the start of the buffer,
/// and serde's own shape errors (a missing field) get the offset of the last token read.
#[test]
fn next_value_reads_a_stream_with_offsets_from_its_start() {
    use packstream::serde::Deserializer;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct S {
        a: i64,
    }
    // 1, "x", {"b": 2}
    let bytes = [0x01, 0x81, b'x', 0xA1, 0x81, b'b', 0x02];
    let mut de = Deserializer::new(&bytes);
    assert_eq!(de.next_value::<i64>(), Ok(1));
    assert_eq!(de.next_value::<String>().as_deref(), Ok("x"));
    let err = de.next_value::<S>().expect_err("no field a");
    assert!(matches!(err.detail(), ErrorDetail::Data { .. }), "{err}");
    assert_eq!(err.offset(), Some(6), "{err}");
    // At the end of the input: an incomplete value, at the end.
    let mut de = Deserializer::new(&bytes[..1]);
    assert_eq!(de.next_value::<i64>(), Ok(1));
    let err = de.next_value::<i64>().expect_err("nothing left");
    assert!(
        matches!(err.detail(), ErrorDetail::Decode(e) if e.is_incomplete() && e.offset() == 1),
        "{err}"
    );
}

/// The size hints a visitor sees: what a container claims, capped by the bytes after its
/// header less the items still promised to the containers around it (a list item needs a
/// byte, a map entry two), and never below one item. The deserializer counts those
/// promised items per container rather than per item read; this pins the hints for
/// nested claims in lists, structures and map values, alone and with a reused
/// deserializer whose previous value failed inside nested containers.
#[test]
fn size_hints_leave_aside_the_bytes_promised_to_enclosing_containers() {
    use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
    use std::cell::RefCell;

    thread_local! {
        static SEEN: RefCell<Vec<Option<usize>>> = const { RefCell::new(Vec::new()) };
    }

    /// Records every container's size hint, in the order the headers are read.
    struct Hints;

    impl<'de> Deserialize<'de> for Hints {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Hints, D::Error> {
            d.deserialize_any(Hints)
        }
    }

    impl<'de> Visitor<'de> for Hints {
        type Value = Hints;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("anything")
        }
        fn visit_i64<E>(self, _: i64) -> Result<Hints, E> {
            Ok(Hints)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Hints, E> {
            Ok(Hints)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Hints, A::Error> {
            SEEN.with(|s| s.borrow_mut().push(seq.size_hint()));
            while seq.next_element::<Hints>()?.is_some() {}
            Ok(Hints)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Hints, A::Error> {
            SEEN.with(|s| s.borrow_mut().push(map.size_hint()));
            while map.next_key::<IgnoredAny>()?.is_some() {
                map.next_value::<Hints>()?;
            }
            Ok(Hints)
        }
    }

    fn hints(bytes: &[u8]) -> Vec<Option<usize>> {
        let _ = from_slice::<Hints>(bytes);
        let alone = SEEN.with(RefCell::take);
        let mut de = packstream::serde::Deserializer::new(&[]);
        // [[1, 2], "?"]: fails on the string's missing byte, two lists deep.
        let failed = de.decode_exact::<Vec<Vec<i64>>>(&[0x92, 0x92, 0x01, 0x02, 0x81]);
        assert!(failed.is_err());
        let _ = de.decode_exact::<Hints>(bytes);
        assert_eq!(SEEN.with(RefCell::take), alone, "{bytes:02X?}");
        alone
    }

    // A list of 15 whose first item is a list of 15, in 20 bytes: the inner one may
    // not count on the 14 bytes its 14 siblings need (18 - 14 = 4).
    let mut bytes = vec![0x9F, 0x9F];
    bytes.extend([0x01; 18]);
    assert_eq!(hints(&bytes), [Some(15), Some(4)]);
    // One level deeper: the innermost has 40 bytes after it, 28 of them promised.
    let mut bytes = vec![0x9F, 0x9F, 0x9F];
    bytes.extend([0x01; 40]);
    assert_eq!(hints(&bytes), [Some(15), Some(15), Some(12)]);
    // A structure (its tag is one more item of the hint, and no byte) holding a list.
    let mut bytes = vec![0xB3, 0x4E, 0x9F];
    bytes.extend([0x01; 16]);
    assert_eq!(hints(&bytes), [Some(4), Some(14)]);
    // A map of three whose first value is a list: the two entries after it need 4 bytes.
    let mut bytes = vec![0xA3, 0x81, b'a', 0x9F];
    bytes.extend([0x01; 17]);
    assert_eq!(hints(&bytes), [Some(3), Some(13)]);
    // The last item of a list has nothing promised after it.
    let mut bytes = vec![0x9F];
    bytes.extend([0x01; 14]);
    bytes.push(0x9F);
    bytes.extend([0x01; 15]);
    assert_eq!(hints(&bytes), [Some(15), Some(15)]);
    // A claim with no bytes to spare still gets one item.
    assert_eq!(hints(&[0x93, 0x91, 0x01, 0x01]), [Some(3), Some(1)]);
}

/// The typed reads (integers, floats, strings, lists and structures read for typed
/// targets) take only what they can read completely and leave everything else to the
/// generic token: every error they give must be the one the generic path gives for the
/// same bytes. Checked on every truncation of a record covering each marker they read
/// (and some they leave to the token), and under tight limits, against
/// `serde_json::Value`, which reads everything through the generic path.
#[test]
fn typed_reads_fail_as_the_generic_path_does_on_every_truncation_and_limit() {
    use packstream::{DecodeLimits, DecodeOptions};

    #[derive(Debug, PartialEq, Deserialize)]
    struct Rec<'a>(u8, #[serde(borrow)] Fields<'a>);

    #[derive(Debug, PartialEq, Deserialize)]
    struct Fields<'a> {
        tiny: i64,
        i8: i16,
        i16: i32,
        i32: i64,
        i64: i64,
        float: f64,
        short: &'a str,
        long: &'a str,
        utf8: String,
        s16: &'a str,
        flag: Option<bool>,
        list: Vec<i64>,
        pair: (u8, u32),
        widened: f64,
        list16: Vec<i64>,
    }

    let long = "abcdefghijklmnopqrstuvwxyz";
    let mut bytes = vec![0xB1, 0x71, 0x9F, 0x05, 0xC8, 0x80, 0xC9, 0x01, 0x00];
    bytes.extend([0xCA, 0x00, 0x01, 0x00, 0x00, 0xCB, 0, 0, 0, 1, 0, 0, 0, 0]);
    bytes.push(0xC1);
    bytes.extend(1.5f64.to_be_bytes());
    bytes.extend([0x83, b'a', b'b', b'c', 0xD0, long.len() as u8]);
    bytes.extend(long.as_bytes());
    bytes.extend([0xD0, 0x06, b'h', 0xC3, 0xA9, b'l', b'l', b'o']);
    // The lists as LIST_8 and LIST_16 (valid, if not the shortest form).
    bytes.extend([0xD1, 0x00, 0x02, b'h', b'i', 0xC3, 0xD4, 0x02, 0x01, 0x7F]);
    bytes.extend([0xB1, 0x4E, 0xCA, 0x00, 0x01, 0x00, 0x00, 0xC9, 0x01, 0x00]);
    bytes.extend([0xD5, 0x00, 0x01, 0x05]);
    let rec: Rec<'_> = from_slice(&bytes).expect("the whole record");
    assert_eq!(
        rec,
        Rec(
            0x71,
            Fields {
                tiny: 5,
                i8: -128,
                i16: 256,
                i32: 65536,
                i64: 1 << 32,
                float: 1.5,
                short: "abc",
                long,
                utf8: "héllo".into(),
                s16: "hi",
                flag: Some(true),
                list: vec![1, 127],
                pair: (0x4E, 65536),
                widened: 256.0,
                list16: vec![5],
            }
        )
    );

    let tight = |limits: DecodeLimits| DecodeOptions::default().with_limits(limits);
    let base = DecodeLimits::default();
    let options = [
        DecodeOptions::default(),
        tight(DecodeLimits {
            max_string_len: 5,
            ..base
        }),
        tight(DecodeLimits {
            max_string_len: 26,
            ..base
        }),
        tight(DecodeLimits {
            max_container_len: 2,
            ..base
        }),
        tight(DecodeLimits {
            max_container_len: 13,
            ..base
        }),
        tight(DecodeLimits {
            max_total_elements: 16,
            ..base
        }),
        tight(DecodeLimits {
            max_total_elements: 17,
            ..base
        }),
        tight(DecodeLimits {
            max_depth: 2,
            ..base
        }),
    ];
    let mut failures = 0;
    for opts in &options {
        for end in 0..=bytes.len() {
            let part = &bytes[..end];
            let typed = packstream::from_slice_with::<Rec<'_>>(part, opts).map(|_| ());
            let generic = packstream::from_slice_with::<serde_json::Value>(part, opts).map(|_| ());
            assert_eq!(typed, generic, "{end} bytes, {:?}", opts.limits);
            if let Err(e) = typed {
                assert!(matches!(e.detail(), ErrorDetail::Decode(_)), "{e}");
                failures += 1;
            }
        }
    }
    // Every truncation fails, and every tight limit but `max_string_len: 26` (the
    // longest string's length) refuses the whole record.
    assert_eq!(failures, options.len() * bytes.len() + options.len() - 2);
}

/// Typed `&str` reads take ASCII strings of up to 32 bytes without `from_utf8` (one or
/// two 16-byte words checked for high bits). Every length from 0 to 40, ASCII or with
/// one non-ASCII character or one invalid byte at every position, alone and after
/// other bytes (the words then start before or end after the string), must read as the
/// generic decoder reads it: the same string, or the same error at the same offset.
#[test]
fn typed_strings_of_every_length_read_as_from_utf8_does() {
    use packstream::ValueRef;

    let mut cases = 0;
    for len in 0..=40usize {
        let ascii: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
        let mut variants = vec![ascii.clone()];
        for at in 0..len {
            let mut bad = ascii.clone();
            bad[at] = 0xFF;
            variants.push(bad);
            if at + 1 < len {
                let mut accented = ascii.clone();
                accented[at..at + 2].copy_from_slice("é".as_bytes());
                variants.push(accented);
            }
        }
        for text in &variants {
            let mut string = if len < 16 {
                vec![0x80 | len as u8]
            } else {
                vec![0xD0, len as u8]
            };
            string.extend(text);
            for (before, after) in [(0usize, 0usize), (1, 0), (20, 0), (0, 17), (20, 17)] {
                // [[1, 1, ...], string] or [[1, 1, ...], string, 1, [1, 1, ...]]:
                // `before` bytes of integers ahead of it, `after` bytes behind it (so
                // that it is read as the word that starts with it, or as the one that
                // ends with it), the first of them ASCII.
                let mut bytes = vec![if after == 0 { 0x92 } else { 0x94 }];
                if before < 16 {
                    bytes.push(0x90 | before as u8);
                } else {
                    bytes.extend([0xD4, before as u8]);
                }
                bytes.extend(std::iter::repeat_n(0x01, before));
                let ahead = bytes.len();
                bytes.extend(&string);
                let typed = if after == 0 {
                    from_slice::<(Vec<i64>, &str)>(&bytes)
                } else {
                    bytes.extend([0x01, 0xD4, after as u8 - 3]);
                    bytes.extend(std::iter::repeat_n(0x01, after - 3));
                    from_slice::<(Vec<i64>, &str, i64, Vec<i64>)>(&bytes).map(|(a, s, ..)| (a, s))
                };
                let alone = from_slice::<&str>(&string);
                match ValueRef::decode_exact(&string) {
                    Ok(ValueRef::String(s)) => {
                        assert_eq!(alone, Ok(s), "{text:02X?}");
                        assert_eq!(typed.map(|t| t.1), Ok(s), "{text:02X?} after {before}");
                    }
                    Err(e) => {
                        assert_eq!(e.kind(), ErrorKind::InvalidUtf8);
                        assert_eq!(alone, Err(Error::from(e)), "{text:02X?}");
                        let shifted = Error::from(e.shifted(ahead));
                        assert_eq!(typed.map(drop), Err(shifted), "{text:02X?} after {before}");
                    }
                    Ok(other) => panic!("{other:?}"),
                }
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 5 * (41 + 41 * 40 / 2 + 40 * 39 / 2));
}

/// A container whose items the target type does not all take is a data error that
/// counts the items (for a map, the entries whose key was not read) and points at the
/// last token read, for lists, structures and maps, nested or not, with `from_slice`
/// and with a reused deserializer (whose previous value failed two containers deep).
/// Pins the count that the deserializer keeps for every open container at once.
#[test]
fn items_the_target_type_leaves_are_counted_per_container() {
    use serde::de::{IgnoredAny, MapAccess, Visitor};

    /// Reads the first `N` keys of a map, and the values of the first `V` of them.
    struct FirstEntries<const N: usize, const V: usize>;

    impl<'de, const N: usize, const V: usize> Deserialize<'de> for FirstEntries<N, V> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(FirstEntries)
        }
    }

    impl<'de, const N: usize, const V: usize> Visitor<'de> for FirstEntries<N, V> {
        type Value = Self;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a map")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
            for i in 0..N {
                map.next_key::<&str>()?.expect("a key");
                if i < V {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(FirstEntries)
        }
    }

    fn check<'a, T: Deserialize<'a>>(bytes: &'a [u8], expected: Option<&str>) {
        let alone = from_slice::<T>(bytes).map(drop);
        let mut de = packstream::serde::Deserializer::new(&[]);
        let failed = de.decode_exact::<Vec<Vec<i64>>>(&[0x92, 0x92, 0x01, 0x02, 0x81]);
        assert!(failed.is_err());
        let reused = de.decode_exact::<T>(bytes).map(drop);
        assert_eq!(alone, reused, "{bytes:02X?}");
        match expected {
            None => assert_eq!(alone, Ok(()), "{bytes:02X?}"),
            Some(text) => {
                let err = alone.expect_err(text);
                assert!(matches!(err.detail(), ErrorDetail::Data { .. }), "{err}");
                assert_eq!(err.kind(), "type_mismatch");
                assert_eq!(err.to_string(), text, "{bytes:02X?}");
            }
        }
    }

    // [1, 2, 3] into one and two items, and all three.
    let list = [0x93, 0x01, 0x02, 0x03];
    check::<(i64,)>(
        &list,
        Some("2 more items than the target type takes at byte 1"),
    );
    check::<(i64, i64)>(
        &list,
        Some("1 more items than the target type takes at byte 2"),
    );
    check::<(i64, i64, i64)>(&list, None);
    // A RECORD-shaped structure: the tag, then a list of two fields of which one is read.
    let record = [0xB1, 0x71, 0x92, 0x01, 0x81, b'a'];
    check::<(u8, (i64,))>(
        &record,
        Some("1 more items than the target type takes at byte 3"),
    );
    check::<(u8,)>(
        &record,
        Some("1 more items than the target type takes at byte 0"),
    );
    check::<(u8, (i64, &str))>(&record, None);
    // The inner list is complete; the outer one has one more.
    let nested = [0x93, 0x92, 0x01, 0x02, 0x03, 0x04];
    check::<((i64, i64),)>(
        &nested,
        Some("2 more items than the target type takes at byte 3"),
    );
    check::<((i64, i64), i64)>(
        &nested,
        Some("1 more items than the target type takes at byte 4"),
    );
    // {"a": 1, "b": 2, "c": 3}: entries left whole, or with the key read alone.
    let map = [0xA3, 0x81, b'a', 0x01, 0x81, b'b', 0x02, 0x81, b'c', 0x03];
    check::<FirstEntries<1, 1>>(
        &map,
        Some("2 more items than the target type takes at byte 3"),
    );
    check::<FirstEntries<2, 1>>(
        &map,
        Some("1 more items than the target type takes at byte 4"),
    );
    check::<FirstEntries<3, 3>>(&map, None);
    // A map inside a list: the list's count is intact after the map.
    let mut in_list = vec![0x92];
    in_list.extend(map);
    in_list.push(0x07);
    check::<(FirstEntries<3, 3>, i64)>(&in_list, None);
    check::<(FirstEntries<3, 3>,)>(
        &in_list,
        Some("1 more items than the target type takes at byte 10"),
    );
}

/// The serde error is one pointer, so that a `Result` of a scalar or a `&str` is two
/// registers wide on the typed decoding path (it was five words: every result went
/// through memory).
#[test]
fn the_serde_error_is_one_pointer_wide() {
    use std::mem::size_of;
    assert_eq!(size_of::<Error>(), size_of::<usize>());
    assert_eq!(size_of::<Option<Error>>(), size_of::<usize>());
    assert_eq!(size_of::<Result<&str, Error>>(), 2 * size_of::<usize>());
    assert_eq!(size_of::<Result<i64, Error>>(), 2 * size_of::<usize>());
    // And it still crosses threads (the lazily built detail is a `OnceLock`), as
    // `Box<dyn std::error::Error + Send + Sync>` and `anyhow` need.
    fn send_sync<T: Send + Sync + std::panic::UnwindSafe + std::panic::RefUnwindSafe>() {}
    send_sync::<Error>();
}

/// Integers of every size and sign read into `i64` as the tokenizer reads them, with 0
/// to 9 bytes after them (the typed read takes the eight bytes after the marker as one
/// word when they are there), and cut anywhere with the generic path's error.
#[test]
fn typed_integers_of_every_size_read_as_the_tokenizer_does_wherever_they_end() {
    use packstream::ValueRef;

    let values = [
        0,
        1,
        -1,
        -16,
        -17,
        127,
        128,
        -128,
        -129,
        0x1234,
        -0x1234,
        i64::from(i16::MAX),
        i64::from(i16::MAX) + 1,
        i64::from(i16::MIN),
        i64::from(i16::MIN) - 1,
        0x1234_5678,
        -0x1234_5678,
        i64::from(i32::MAX),
        i64::from(i32::MAX) + 1,
        i64::from(i32::MIN),
        i64::from(i32::MIN) - 1,
        0x0123_4567_89AB_CDEF,
        -0x0123_4567_89AB_CDEF,
        i64::MAX,
        i64::MIN,
    ];
    let mut cases = 0;
    for v in values {
        let mut forms = vec![packstream::to_vec(&v).expect("encodes")];
        // The wider forms of the same value too (PackStream allows them).
        for (marker, width) in [(0xC8u8, 1usize), (0xC9, 2), (0xCA, 4), (0xCB, 8)] {
            let shift = 64 - 8 * width as u32;
            if (v << shift) >> shift == v {
                let mut form = vec![marker];
                form.extend(&v.to_be_bytes()[8 - width..]);
                forms.push(form);
            }
        }
        for form in &forms {
            assert_eq!(
                ValueRef::decode_exact(form),
                Ok(ValueRef::Int(v)),
                "{form:02X?}"
            );
            for after in 0..=9usize {
                // [v, "..."]: `after` bytes behind the integer (a string of after - 1).
                let mut bytes = vec![if after == 0 { 0x91 } else { 0x92 }];
                bytes.extend(form);
                if after > 0 {
                    bytes.push(0x80 | (after - 1) as u8);
                    bytes.extend(std::iter::repeat_n(b'x', after - 1));
                }
                let typed = if after == 0 {
                    from_slice::<(i64,)>(&bytes).map(|t| t.0)
                } else {
                    from_slice::<(i64, &str)>(&bytes).map(|t| t.0)
                };
                assert_eq!(typed, Ok(v), "{bytes:02X?}");
                // Every cut: the generic path's error.
                for end in 0..bytes.len() {
                    let part = &bytes[..end];
                    let typed = if after == 0 {
                        from_slice::<(i64,)>(part).map(drop)
                    } else {
                        from_slice::<(i64, &str)>(part).map(drop)
                    };
                    let generic = from_slice::<serde_json::Value>(part).map(drop);
                    assert_eq!(typed, generic, "{part:02X?}");
                }
                cases += 1;
            }
        }
    }
    assert!(cases > 500, "{cases}");
}

/// serde's own error type, whose `invalid_type` and `invalid_value` are serde's default
/// methods: the texts ours must display.
type SerdeDefault = serde::de::value::Error;

/// The `Unexpected`s of every shape, with strings of several lengths (the long ones do
/// not fit beside the expected text and take serde's formatting path).
fn unexpecteds(long: &str) -> Vec<serde::de::Unexpected<'_>> {
    use serde::de::Unexpected as U;
    vec![
        U::Bool(true),
        U::Unsigned(u64::MAX),
        U::Signed(-7),
        U::Float(1.5),
        U::Float(2.0),
        U::Float(f64::NAN),
        U::Char('\n'),
        U::Str(""),
        U::Str("s1-2"),
        U::Str("quote \" tab \t é ✓"),
        U::Str(long),
        U::Bytes(b"\x00\x01"),
        U::Unit,
        U::Option,
        U::NewtypeStruct,
        U::Seq,
        U::Map,
        U::Enum,
        U::UnitVariant,
        U::NewtypeVariant,
        U::TupleVariant,
        U::StructVariant,
        U::Other("something else"),
        U::Other(long),
    ]
}

#[test]
fn mismatch_errors_read_as_serdes_default_methods_write_them() {
    use serde::de::Error as _;
    let long = "x".repeat(200);
    let long_expected = format!("one of {}", "y".repeat(120));
    for unexp in unexpecteds(&long) {
        for exp in ["i64", "a borrowed string", long_expected.as_str()] {
            for (ours, theirs) in [
                (
                    Error::invalid_type(unexp, &exp),
                    SerdeDefault::invalid_type(unexp, &exp),
                ),
                (
                    Error::invalid_value(unexp, &exp),
                    SerdeDefault::invalid_value(unexp, &exp),
                ),
            ] {
                let msg = theirs.to_string();
                assert_eq!(ours.to_string(), format!("{msg} at byte 0"));
                assert_eq!(ours.kind(), "type_mismatch");
                assert_eq!(ours.offset(), Some(0));
                assert_eq!(ours.decode_error(), None);
                let detail = ErrorDetail::Data {
                    msg: msg.clone(),
                    offset: 0,
                };
                assert_eq!(ours.detail(), &detail);
                assert_eq!(format!("{ours:?}"), format!("{detail:?}"));
                assert_eq!(ours, Error::custom(&msg));
                assert_eq!(ours.clone().into_detail(), detail);
                // Displayed after the detail was built, and the reverse.
                assert_eq!(ours.to_string(), format!("{msg} at byte 0"));
                assert_eq!(ours.into_detail(), detail);
            }
        }
    }
}

#[test]
fn mismatch_errors_are_placed_at_the_value_that_did_not_fit() {
    // `[1, "ab"]` as two integers: the string starts at byte 2.
    let err = from_slice::<(i64, i64)>(b"\x92\x01\x82ab").unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid type: string \"ab\", expected i64 at byte 2"
    );
    assert_eq!(err.offset(), Some(2));
    assert_eq!(err.kind(), "type_mismatch");
    assert_eq!(
        err.detail(),
        &ErrorDetail::Data {
            msg: "invalid type: string \"ab\", expected i64".into(),
            offset: 2
        }
    );
    // A float where a boolean was expected, inside a struct.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Flag {
        on: bool,
    }
    let bytes = to_vec(&BTreeMap::from([("on", 2.5)])).unwrap();
    let err = from_slice::<Flag>(&bytes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid type: floating point `2.5`, expected a boolean at byte 4"
    );
}

#[test]
fn a_rejected_untagged_variant_costs_one_allocation() {
    use serde::de::Error as _;
    // What serde's untagged enums build and drop for each variant they try and reject.
    let (_, calls) = test_support::allocations_during(|| {
        drop(Error::invalid_type(
            serde::de::Unexpected::Str("s1-2"),
            &"i64",
        ));
    });
    assert_eq!(calls, 1);
    let (_, calls) = test_support::allocations_during(|| {
        drop(Error::invalid_type(
            serde::de::Unexpected::Float(0.5),
            &"i64",
        ));
    });
    assert_eq!(calls, 1);

    // Through an untagged enum: a string cell is tried as an integer, a float and a
    // boolean first (three rejected variants), and the string costs nothing.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum Cell<'a> {
        Int(i64),
        Float(f64),
        Bool(bool),
        Str(&'a str),
    }
    let bytes = b"\x84s1-2";
    let (cell, calls) = test_support::allocations_during(|| from_slice::<Cell<'_>>(bytes));
    assert_eq!(cell.unwrap(), Cell::Str("s1-2"));
    assert_eq!(calls, 3);
}

/// A UUID (PackStream v2) was handed to serde as bytes copied out of the input, so a
/// `&[u8]` target refused it and serde's buffering for untagged enums copied it into a
/// new vector; strings and byte arrays were borrowed.
#[test]
fn uuids_were_copied_where_strings_and_bytes_are_borrowed() {
    use packstream::DecodeOptions;
    let opts = DecodeOptions {
        uuid: true,
        ..DecodeOptions::default()
    };
    let raw: Vec<u8> = (1..=16).collect();
    let mut bytes = vec![0x92, 0xE0];
    bytes.extend_from_slice(&raw);
    bytes.push(0x01);
    let (uuid, one): (&[u8], i64) = packstream::from_slice_with(&bytes, &opts).unwrap();
    assert_eq!((uuid, one), (&raw[..], 1));
    assert!(
        core::ptr::eq(uuid, &bytes[2..18]),
        "borrowed from the input"
    );
    // An owned target still gets its copy.
    let (owned, _): (serde_bytes::ByteBuf, i64) =
        packstream::from_slice_with(&bytes, &opts).unwrap();
    assert_eq!(owned.as_ref(), &raw[..]);
    // Buffered by an untagged enum: a borrow, no allocation for the bytes.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum Cell<'a> {
        Int(i64),
        Raw(&'a [u8]),
    }
    let (cell, calls) = test_support::allocations_during(|| {
        packstream::from_slice_with::<Cell<'_>>(&bytes[1..18], &opts)
    });
    assert_eq!(cell.unwrap(), Cell::Raw(&raw));
    // The one rejected variant's error (`Int`); the bytes cost nothing.
    assert_eq!(calls, 1);
}

#[test]
fn field_errors_read_as_serdes_default_methods_write_them() {
    use serde::de::Error as _;
    for field in ["", "a", "name with `ticks`"] {
        for (ours, theirs) in [
            (
                Error::missing_field(field),
                SerdeDefault::missing_field(field),
            ),
            (
                Error::duplicate_field(field),
                SerdeDefault::duplicate_field(field),
            ),
        ] {
            let msg = theirs.to_string();
            assert_eq!(ours.to_string(), format!("{msg} at byte 0"));
            assert_eq!(ours.kind(), "type_mismatch");
            assert_eq!(ours.offset(), Some(0));
            let detail = ErrorDetail::Data { msg, offset: 0 };
            assert_eq!(ours.detail(), &detail);
            assert_eq!(ours.into_detail(), detail);
        }
    }

    // Through a struct, placed at the last token read, as custom errors are.
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Pair {
        a: i64,
        b: i64,
    }
    let err = from_slice::<Pair>(b"\xA1\x81a\x01").unwrap_err();
    assert_eq!(err.to_string(), "missing field `b` at byte 3");
    assert_eq!(err.offset(), Some(3));
    let err = from_slice::<Pair>(b"\xA3\x81a\x01\x81b\x02\x81a\x03").unwrap_err();
    assert_eq!(err.to_string(), "duplicate field `a` at byte 7");

    // A rejected struct variant of an untagged enum: one allocation for its error.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum Shape {
        Circle { r: i64 },
        Square { side: i64 },
    }
    let bytes = to_vec(&BTreeMap::from([("side", 2)])).unwrap();
    let (shape, calls) = test_support::allocations_during(|| from_slice::<Shape>(&bytes));
    assert_eq!(shape.unwrap(), Shape::Square { side: 2 });
    // The same with the matching variant first: serde's buffering alone.
    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum SquareFirst {
        Square { side: i64 },
        Circle { r: i64 },
    }
    let (shape, buffered) = test_support::allocations_during(|| from_slice::<SquareFirst>(&bytes));
    assert_eq!(shape.unwrap(), SquareFirst::Square { side: 2 });
    assert_eq!(calls, buffered + 1);
}
