//! The tree builders (`ValueRef`, `Value`) read lists and structures of scalars on a fast
//! path of their own and fall back to the general item reader for anything else. These
//! tests hold them to the pull decoder, which reads every token through the bare
//! tokenizer: same values, same bytes used, and the same error kind and offset for cut,
//! corrupted and over-limit input.
//!
//! Under Miri run them with `MIRIFLAGS=-Zmiri-disable-isolation`: proptest asks for the
//! working directory (for its failure-persistence file), which isolation refuses.

use packstream::{DecodeLimits, DecodeOptions, Decoder, Error, ErrorKind, Value, ValueRef};
use proptest::prelude::*;

/// What every API makes of `bytes`: the value's bytes used, or the error.
fn agree(bytes: &[u8], opts: &DecodeOptions) -> Result<usize, Error> {
    let borrowed = ValueRef::decode_with(bytes, opts);
    let owned = Value::decode_with(bytes, opts);
    let mut dec = Decoder::with_options(bytes, *opts);
    let pulled = dec.skip_value().map(|()| dec.position());
    match (&borrowed, &owned) {
        (Ok((b, n)), Ok((o, m))) => {
            assert_eq!(n, m, "bytes used");
            assert_eq!(&b.to_owned_value(), o, "ValueRef and Value differ");
        }
        (Err(b), Err(o)) => assert_eq!(b, o, "ValueRef and Value errors differ"),
        _ => panic!("ValueRef {borrowed:?} vs Value {owned:?}"),
    }
    let built = borrowed.map(|(_, n)| n);
    assert_eq!(built, pulled, "the builders and the pull decoder disagree");
    built
}

/// One scalar item, encoded: every kind the fast path reads, at every width, and a few
/// it leaves to the general reader.
fn arb_scalar() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        (-16i64..128).prop_map(|i| vec![i as u8]),
        any::<i8>().prop_map(|i| vec![0xC8, i as u8]),
        any::<i16>().prop_map(|i| [&[0xC9][..], &i.to_be_bytes()].concat()),
        any::<i32>().prop_map(|i| [&[0xCA][..], &i.to_be_bytes()].concat()),
        any::<i64>().prop_map(|i| [&[0xCB][..], &i.to_be_bytes()].concat()),
        any::<f64>().prop_map(|f| [&[0xC1][..], &f.to_be_bytes()].concat()),
        Just(vec![0xC0]),
        Just(vec![0xC2]),
        Just(vec![0xC3]),
        "[a-z]{0,15}".prop_map(|s| [&[0x80 | s.len() as u8][..], s.as_bytes()].concat()),
        // Not ASCII: valid UTF-8 and broken sequences.
        "[a-zé€]{0,5}".prop_map(|s| [&[0x80 | s.len() as u8][..], s.as_bytes()].concat()),
        proptest::collection::vec(any::<u8>(), 0..16).prop_map(|b| [
            &[0x80 | b.len() as u8][..],
            &b[..]
        ]
        .concat()),
        "[a-z]{16,40}".prop_map(|s| [&[0xD0, s.len() as u8][..], s.as_bytes()].concat()),
        proptest::collection::vec(any::<u8>(), 0..8).prop_map(|b| [
            &[0xCC, b.len() as u8][..],
            &b[..]
        ]
        .concat()),
        // A nested container between scalars, and a reserved marker.
        Just(vec![0x92, 0x01, 0x81, b'x']),
        Just(vec![0xA1, 0x81, b'k', 0xC0]),
        Just(vec![0xDF]),
    ]
}

/// A list, a structure or a map of scalar items, inside another list or not.
fn arb_container() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(arb_scalar(), 0..16),
        0u8..3,
        any::<bool>(),
    )
        .prop_map(|(items, form, wrap)| {
            let n = items.len() as u8;
            let mut out = match form {
                0 => vec![0x90 | n],
                1 => vec![0xB0 | n, 0x71],
                _ => vec![0xA0 | n],
            };
            for (i, item) in items.iter().enumerate() {
                if form == 2 {
                    out.extend([0x81, b'a' + i as u8]);
                }
                out.extend(item);
            }
            if wrap {
                out.splice(0..0, [0x92, 0x2A]);
            }
            out
        })
}

fn arb_opts() -> impl Strategy<Value = DecodeOptions> {
    (0u32..20, 0u32..4, 1u64..40).prop_map(|(max_string_len, max_depth, total)| {
        DecodeOptions::default().with_limits(DecodeLimits {
            max_string_len,
            max_depth,
            max_total_elements: total,
            ..DecodeLimits::default()
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 16 } else { 3000 },
        ..ProptestConfig::default()
    })]

    /// Whole, cut, and corrupted containers of scalars under default and tight limits.
    #[test]
    fn scalar_items_decode_and_fail_as_the_pull_decoder_does(
        bytes in arb_container(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        cut in any::<prop::sample::Index>(),
        opts in arb_opts(),
    ) {
        agree(&bytes, &DecodeOptions::default()).ok();
        agree(&bytes, &opts).ok();
        let mut bytes = bytes;
        for (at, b) in flips {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        agree(&bytes, &DecodeOptions::default()).ok();
        let cut = &bytes[..cut.index(bytes.len() + 1)];
        agree(cut, &DecodeOptions::default()).ok();
        agree(cut, &opts).ok();
    }

    /// `Token::read_first` (a header read without a decoder, as bolt reads a message's
    /// signature) gives what a new decoder's first `next_token` gives: the same token,
    /// bytes used and error, under tight limits, legacy structures and UUIDs, for cut and
    /// corrupted input.
    #[test]
    fn the_first_token_read_alone_is_the_decoders_first_token(
        bytes in prop_oneof![arb_container(), arb_scalar(), proptest::collection::vec(any::<u8>(), 0..12)],
        cut in any::<prop::sample::Index>(),
        flip in any::<u8>(),
        opts in arb_opts(),
        legacy in any::<bool>(),
        uuid in any::<bool>(),
    ) {
        let opts = opts.with_legacy_structs(legacy).with_uuid(uuid);
        let mut corrupted = bytes.clone();
        if let Some(first) = corrupted.first_mut() {
            *first = flip;
        }
        let cut = &bytes[..cut.index(bytes.len() + 1)];
        for b in [&bytes[..], cut, &corrupted] {
            for o in [opts, DecodeOptions::default()] {
                prop_assert_eq!(packstream::Token::read_first(b, &o), first_by_decoder(b, &o));
            }
        }
    }
}

/// The first token of `bytes` as a new decoder reads it: the token and the bytes it used.
fn first_by_decoder<'a>(
    bytes: &'a [u8],
    opts: &DecodeOptions,
) -> Result<(packstream::Token<'a>, usize), Error> {
    let mut dec = Decoder::with_options(bytes, *opts);
    dec.next_token().map(|tok| (tok, dec.position()))
}

fn error(bytes: &[u8], opts: &DecodeOptions) -> (ErrorKind, usize) {
    let e = agree(bytes, opts).expect_err("an error");
    (e.kind(), e.offset())
}

/// Each item of a list of scalars cut short at every byte: the error is the item's, at
/// its marker, or the list's when the input ends before an item's marker or cannot hold
/// one byte per item.
#[test]
fn every_cut_of_a_scalar_list_is_incomplete_where_the_item_starts() {
    let bytes = [
        0x98, 0x05, 0xC9, 0x01, 0x02, 0xCA, 0, 0, 1, 0, 0xC1, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x83,
        b'a', b'b', b'c', 0xCB, 0, 0, 0, 0, 0, 0, 0, 7, 0xC3, 0xC0,
    ];
    let starts = [1, 2, 5, 10, 19, 23, 32, 33];
    assert_eq!(agree(&bytes, &DecodeOptions::default()), Ok(bytes.len()));
    for cut in 1..bytes.len() {
        let item = starts.iter().rev().find(|&&s| s <= cut).copied();
        let want = if cut <= 8 || item == Some(cut) {
            0
        } else {
            item.unwrap_or(0)
        };
        assert_eq!(
            error(&bytes[..cut], &DecodeOptions::default()),
            (ErrorKind::UnexpectedEnd, want),
            "cut at {cut}"
        );
    }
}

/// Strings in a list of scalars: over the string limit, invalid UTF-8, and valid
/// non-ASCII, each where the general reader reports it. The lists are padded past 16
/// bytes: shorter input never takes the one-word ASCII check.
#[test]
fn strings_in_scalar_lists_keep_their_limit_and_utf8_errors() {
    let limit = |n| {
        DecodeOptions::default().with_limits(DecodeLimits {
            max_string_len: n,
            ..DecodeLimits::default()
        })
    };
    let pad = [0xCB, 0, 0, 0, 0, 0, 0, 0, 1, 0xCB, 0, 0, 0, 0, 0, 0, 0, 2];
    let bytes = [&[0x95, 0x01, 0x83, b'a', b'b', b'c', 0x02][..], &pad].concat();
    assert_eq!(agree(&bytes, &limit(3)), Ok(bytes.len()));
    assert_eq!(error(&bytes, &limit(2)), (ErrorKind::LimitExceeded, 2));
    let bad = [&[0x94, 0x01, 0x83, b'a', 0xFF, b'c'][..], &pad].concat();
    assert_eq!(
        error(&bad, &DecodeOptions::default()),
        (ErrorKind::InvalidUtf8, 4)
    );
    let e_acute = [&[0x94, 0x82, 0xC3, 0xA9, 0x2A][..], &pad].concat();
    let (v, _) = ValueRef::decode(&e_acute).expect("decodes");
    assert_eq!(
        v.as_list().expect("a list")[..2],
        [ValueRef::String("é"), ValueRef::Int(42)]
    );
}

/// A list of scalars whose vector was given fewer slots than its header's count (the
/// bytes left must also hold the items the enclosing containers still promise): the fast
/// path, which writes each item straight into a free slot, stops when the slots run out,
/// and the general reader grows the vector and reads the rest, giving the same items,
/// bytes used and errors as the pull decoder.
#[test]
fn a_scalar_list_with_fewer_slots_than_items_was_read_by_the_general_reader() {
    // A list of 30 items whose first is B1 71 [8 scalars of every fast kind, 33 bytes]:
    // the 29 items still promised leave the inner list 4 slots.
    let items = [
        0x05, 0xC9, 0x01, 0x02, 0xCA, 0, 0, 1, 0, 0xC1, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x83, b'a',
        b'b', b'c', 0xCB, 0, 0, 0, 0, 0, 0, 0, 7, 0xC3, 0xC0,
    ];
    let cut = [&[0xD4, 30, 0xB1, 0x71, 0x98][..], &items].concat();
    assert_eq!(
        error(&cut, &DecodeOptions::default()),
        (ErrorKind::UnexpectedEnd, 0)
    );
    let whole = [&cut[..], &[0xC0; 29]].concat();
    assert_eq!(agree(&whole, &DecodeOptions::default()), Ok(whole.len()));
    let (v, _) = ValueRef::decode(&whole).expect("decodes");
    let outer = v.into_list().expect("a list");
    let record = outer[0].clone().into_struct().expect("a structure");
    assert_eq!(
        record.fields[0].as_list().expect("a list"),
        [
            ValueRef::Int(5),
            ValueRef::Int(0x0102),
            ValueRef::Int(0x100),
            ValueRef::Float(2.0),
            ValueRef::String("abc"),
            ValueRef::Int(7),
            ValueRef::Bool(true),
            ValueRef::Null,
        ]
    );
}
