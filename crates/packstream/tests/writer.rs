//! The checked streaming writer: the same bytes as the encoder, every count checked,
//! errors with their kind and offset, and nothing written or changed by a failed call.

use packstream::{
    DecodeOptions, EncodeOptions, Encoder, ErrorInfo, Value, ValueRef, WriteError, Writer,
};

#[test]
fn writes_the_same_bytes_as_the_encoder() {
    let mut w = Writer::new(Vec::new());
    w.begin_struct(0x10, 3).unwrap(); // RUN
    w.write_str("RETURN $x").unwrap();
    w.begin_map(2).unwrap();
    w.write_str("x").unwrap();
    w.begin_list(3).unwrap();
    w.write_int(1).unwrap();
    w.write_float(2.5).unwrap();
    w.write_null().unwrap();
    w.end().unwrap();
    w.write_str("b").unwrap();
    w.write_bytes(&[1, 2]).unwrap();
    w.end().unwrap();
    w.write_value(&Value::Map(vec![])).unwrap();
    w.end().unwrap();
    w.finish().unwrap();

    let mut want = Vec::new();
    let mut e = Encoder::new(&mut want);
    e.write_struct_header(0x10, 3).unwrap();
    e.write_str("RETURN $x").unwrap();
    e.write_map_header(2).unwrap();
    e.write_str("x").unwrap();
    e.write_list_header(3).unwrap();
    e.write_int(1);
    e.write_float(2.5);
    e.write_null();
    e.write_str("b").unwrap();
    e.write_bytes(&[1, 2]).unwrap();
    e.write_map_header(0).unwrap();
    assert_eq!(w.into_inner(), want);
}

#[test]
fn misuse_is_refused_with_a_kind_and_the_buffer_offset() {
    let mut w = Writer::new(Vec::new());
    assert_eq!(w.end().unwrap_err(), WriteError::NothingOpen { offset: 0 });
    w.begin_map(1).unwrap();
    for err in [
        w.write_int(1).unwrap_err(),
        w.write_null().unwrap_err(),
        w.write_bool(true).unwrap_err(),
        w.write_float(1.0).unwrap_err(),
        w.write_bytes(b"k").unwrap_err(),
        w.begin_list(0).unwrap_err(),
        w.write_value(&Value::Int(1)).unwrap_err(),
        w.write_value_ref(&ValueRef::Null).unwrap_err(),
    ] {
        assert_eq!(err, WriteError::NonStringKey { offset: 1 });
        assert_eq!(err.kind(), "non_string_key");
        assert_eq!(err.byte_offset(), Some(1));
    }
    assert!(w.key_due());
    w.write_value(&Value::String("k".into())).unwrap(); // a whole string value is a key
    assert!(!w.key_due());
    let err = w.end().unwrap_err();
    assert_eq!(
        err,
        WriteError::TooFewItems {
            open: 1,
            missing: 1,
            offset: 3
        }
    );
    assert_eq!(
        err.to_string(),
        "1 container(s) still open; the innermost needs 1 more item(s)"
    );
    assert_eq!(
        w.finish().unwrap_err(),
        WriteError::Unfinished {
            open: 1,
            missing: 1,
            offset: 3
        }
    );
    w.write_int(5).unwrap(); // a value may be anything
    let err = w.write_str("more").unwrap_err();
    assert_eq!(
        err,
        WriteError::TooManyItems {
            declared: 1,
            offset: 4
        }
    );
    assert_eq!(err.kind(), "too_many_items");
    w.end().unwrap();
    assert_eq!(w.into_inner(), [0xA1, 0x81, b'k', 0x05]);
}

#[test]
fn every_failed_call_leaves_buffer_and_state_unchanged() {
    let mut w = Writer::new(Vec::new()).max_depth(2);
    w.begin_list(2).unwrap();
    w.begin_struct(1, 1).unwrap();
    let before = w.get_ref().clone();
    assert_eq!(w.begin_list(1).unwrap_err().kind(), "limit_exceeded");
    assert_eq!(w.get_ref(), &before);
    assert_eq!((w.depth(), w.remaining()), (2, Some(1)));
    w.write_str("").unwrap();
    let before = w.get_ref().clone();
    assert_eq!(w.write_int(1).unwrap_err().kind(), "too_many_items");
    assert_eq!(w.get_ref(), &before);
    assert_eq!((w.depth(), w.remaining()), (2, Some(0)));
    w.end().unwrap();
    // Encoding errors are wrapped with the encoder's kind, and write nothing.
    let err = w.begin_struct(1, 16).unwrap_err();
    assert_eq!(err.kind(), "too_many_fields");
    assert!(matches!(err, WriteError::Encode { .. }));
    let err = w.write_uuid(&[0; 16]).unwrap_err();
    assert_eq!(err.kind(), "uuid_not_enabled");
    let deep = Value::List(vec![Value::Int(1), Value::Uuid([0; 16])]);
    let len = w.get_ref().len();
    let err = w.write_value(&deep).unwrap_err();
    assert_eq!(err.kind(), "uuid_not_enabled");
    assert_eq!(err.offset(), len);
    assert_eq!(w.get_ref().len(), len, "the partial value was rolled back");
    assert_eq!((w.depth(), w.remaining()), (1, Some(1)));
    w.set_options(EncodeOptions {
        uuid: true,
        ..EncodeOptions::default()
    });
    w.write_value(&deep).unwrap();
    // Full but not ended: explicit mode wants the end call.
    let err = w.finish().unwrap_err();
    assert_eq!(err.kind(), "unfinished");
    w.end().unwrap();
    w.finish().unwrap();
}

#[test]
fn closing_when_full_ends_containers_without_end_calls() {
    let mut w = Writer::new(Vec::new()).close_when_full(true);
    w.begin_list(2).unwrap();
    w.begin_map(0).unwrap(); // empty: closed at once
    assert_eq!(w.depth(), 1);
    w.begin_struct(0x4E, 1).unwrap();
    assert_eq!(w.depth(), 2);
    w.write_int(1).unwrap(); // fills the struct, which fills the list
    assert_eq!(w.depth(), 0);
    w.finish().unwrap();
    // Several values in a row at the top level are allowed.
    w.write_int(2).unwrap();
    assert_eq!(w.end().unwrap_err().kind(), "nothing_open");
    assert_eq!(w.into_inner(), [0x92, 0xA0, 0xB1, 0x4E, 0x01, 0x02]);
}

#[test]
fn all_or_nothing_restores_containers_closed_inside_it() {
    let mut w = Writer::new(Vec::new()).close_when_full(true);
    w.begin_list(1).unwrap();
    w.begin_list(1).unwrap();
    let r = w.all_or_nothing(|w| {
        w.write_int(1)?; // closes both lists
        w.write_int(2)?; // a top-level value
        w.begin_map(1)?;
        w.write_null() // not a key
    });
    assert_eq!(r.unwrap_err().kind(), "non_string_key");
    assert_eq!((w.depth(), w.remaining()), (2, Some(1)));
    assert_eq!(w.get_ref(), &[0x91, 0x91]);
    w.write_int(7).unwrap();
    w.finish().unwrap();
}

/// The default depth limit is the decoder's: the deepest value the writer accepts by
/// default decodes with the default options, and one more level is refused by both.
#[test]
fn default_depth_matches_the_decoders_default_limit() {
    let max = packstream::DecodeLimits::DEFAULT.max_depth as usize;
    let mut w = Writer::new(Vec::new());
    for _ in 0..max {
        w.begin_list(1).unwrap();
    }
    let err = w.begin_list(0).unwrap_err();
    assert_eq!(
        err,
        WriteError::TooDeep {
            max_depth: max as u32,
            offset: max
        }
    );
    w.write_null().unwrap();
    for _ in 0..max {
        w.end().unwrap();
    }
    w.finish().unwrap();
    let bytes = w.into_inner();
    ValueRef::decode_with(&bytes, &DecodeOptions::default()).unwrap();
    // One level more, built by hand, is past the decoder's limit too.
    let mut deeper = vec![0x91u8; max + 1];
    deeper.push(0xC0);
    let err = ValueRef::decode_with(&deeper, &DecodeOptions::default()).unwrap_err();
    assert_eq!(err.kind().as_str(), "limit_exceeded");
}

#[test]
fn a_million_levels_with_the_limit_lifted() {
    let n = if cfg!(miri) { 1_000 } else { 1_000_000 };
    let mut w = Writer::new(Vec::new()).max_depth(u32::MAX);
    for _ in 0..n {
        w.begin_list(1).unwrap();
    }
    w.write_null().unwrap();
    for _ in 0..n {
        w.end().unwrap();
    }
    w.finish().unwrap();
    assert_eq!(w.get_ref().len(), n + 1);
}

#[test]
fn every_kind_is_listed() {
    for k in [
        "non_string_key",
        "too_many_items",
        "too_few_items",
        "unfinished",
        "nothing_open",
        "limit_exceeded",
    ] {
        assert!(WriteError::KINDS.contains(&k), "{k}");
    }
}
