//! `Decoder::visit_value` against a model built on `Decoder::next_token`: for arbitrary
//! values, nested deeper than the walk's stack slots, cut, corrupted, under tight limits,
//! and visited from inside containers opened by `next_token`, the visitor gets exactly
//! the calls the tokens imply (values, map-key flags, ends, and the documented capacity
//! hints), and the walk ends with the same result, error kind and offset, position and
//! open containers as the pull decoder.

use packstream::{
    DecodeLimits, DecodeOptions, Decoder, Error, ErrorKind, Structure, Token, Value, Visitor,
};
use proptest::prelude::*;

/// One visitor call.
#[derive(Debug, Clone, PartialEq)]
enum Ev {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String, bool),
    Bytes(Vec<u8>),
    Uuid([u8; 16]),
    List(u32, usize),
    Map(u32, usize),
    Struct(u8, u32, usize),
    End,
}

/// Records every call.
#[derive(Default)]
struct Trace(Vec<Ev>);

impl<'a> Visitor<'a> for Trace {
    type Error = Error;
    fn null(&mut self) -> Result<(), Error> {
        self.0.push(Ev::Null);
        Ok(())
    }
    fn bool(&mut self, v: bool) -> Result<(), Error> {
        self.0.push(Ev::Bool(v));
        Ok(())
    }
    fn int(&mut self, v: i64) -> Result<(), Error> {
        self.0.push(Ev::Int(v));
        Ok(())
    }
    fn float(&mut self, v: f64) -> Result<(), Error> {
        self.0.push(Ev::Float(v.to_bits()));
        Ok(())
    }
    fn string(&mut self, v: &'a str, is_key: bool) -> Result<(), Error> {
        self.0.push(Ev::Str(v.to_owned(), is_key));
        Ok(())
    }
    fn bytes(&mut self, v: &'a [u8]) -> Result<(), Error> {
        self.0.push(Ev::Bytes(v.to_vec()));
        Ok(())
    }
    fn uuid(&mut self, v: [u8; 16]) -> Result<(), Error> {
        self.0.push(Ev::Uuid(v));
        Ok(())
    }
    fn list(&mut self, len: u32, capacity: usize) -> Result<(), Error> {
        self.0.push(Ev::List(len, capacity));
        Ok(())
    }
    fn map(&mut self, len: u32, capacity: usize) -> Result<(), Error> {
        self.0.push(Ev::Map(len, capacity));
        Ok(())
    }
    fn structure(&mut self, tag: u8, len: u32, capacity: usize) -> Result<(), Error> {
        self.0.push(Ev::Struct(tag, len, capacity));
        Ok(())
    }
    fn end(&mut self) -> Result<(), Error> {
        self.0.push(Ev::End);
        Ok(())
    }
}

/// The test's own model of the open containers: for each, the items still to come (a
/// map's keys and values counted separately) and whether it is a map.
#[derive(Clone, Default)]
struct Model(Vec<(u64, bool)>);

impl Model {
    /// Whether the next item is a map key, and counts it.
    fn start_item(&mut self) -> bool {
        match self.0.last_mut() {
            Some((left, is_map)) => {
                let key = *is_map && *left % 2 == 0;
                *left -= 1;
                key
            }
            None => false,
        }
    }

    /// Item slots still promised by the open containers.
    fn promised(&self) -> u64 {
        self.0.iter().map(|(left, _)| left).sum()
    }

    /// Closes the containers with nothing left; how many.
    fn close(&mut self) -> usize {
        let mut closed = 0;
        while self.0.last().is_some_and(|(left, _)| *left == 0) {
            self.0.pop();
            closed += 1;
        }
        closed
    }
}

/// The documented hint: the length, capped by the bytes left after the header less the
/// item slots the other open containers still promise (one byte each at least), per
/// item; at least one for a non-empty container.
fn hint(n: u32, per_item: u64, left: usize, others: u64) -> usize {
    let avail = (left as u64).saturating_sub(others) / per_item;
    avail.min(u64::from(n)).max(u64::from(n.min(1))) as usize
}

/// What `visit_value` must do, from `next_token`: the calls, and the result.
fn model_walk(dec: &mut Decoder<'_>, model: &mut Model) -> (Vec<Ev>, Result<(), Error>) {
    let mut evs = Vec::new();
    let base = model.0.len();
    loop {
        let mut after = model.clone();
        let is_key = after.start_item();
        let tok = match dec.next_token() {
            Ok(t) => t,
            Err(e) => return (evs, Err(e)),
        };
        *model = after;
        let left = dec.remaining().len();
        let others = model.promised();
        let opened = match tok {
            Token::Null => {
                evs.push(Ev::Null);
                None
            }
            Token::Bool(b) => {
                evs.push(Ev::Bool(b));
                None
            }
            Token::Int(i) => {
                evs.push(Ev::Int(i));
                None
            }
            Token::Float(f) => {
                evs.push(Ev::Float(f.to_bits()));
                None
            }
            Token::String(s) => {
                evs.push(Ev::Str(s.to_owned(), is_key));
                None
            }
            Token::Bytes(b) => {
                evs.push(Ev::Bytes(b.to_vec()));
                None
            }
            Token::Uuid(u) => {
                evs.push(Ev::Uuid(u));
                None
            }
            Token::List(n) => {
                evs.push(Ev::List(n, hint(n, 1, left, others)));
                Some((u64::from(n), false))
            }
            Token::Map(n) => {
                evs.push(Ev::Map(n, hint(n, 2, left, others)));
                Some((2 * u64::from(n), true))
            }
            Token::Struct { tag, len } => {
                evs.push(Ev::Struct(tag, len, hint(len, 1, left, others)));
                Some((u64::from(len), false))
            }
        };
        match opened {
            Some((items, is_map)) if items > 0 => {
                model.0.push((items, is_map));
                continue;
            }
            Some(_) => evs.push(Ev::End),
            None => {}
        }
        // Every container the walk opened and this item completed ends.
        let inside = model.0.len() - base;
        let closed = model.close();
        evs.extend(std::iter::repeat_n(Ev::End, closed.min(inside)));
        if model.0.len() <= base {
            return (evs, Ok(()));
        }
    }
}

/// Reads `prefix` tokens with `next_token`, then visits value after value until the
/// decoder is done, each walk checked against the model on a clone of the decoder.
fn check(bytes: &[u8], opts: DecodeOptions, prefix: usize) {
    let mut dec = Decoder::with_options(bytes, opts);
    let mut model = Model::default();
    for _ in 0..prefix {
        if dec.position() >= bytes.len() {
            return;
        }
        let is_key = model.start_item();
        match dec.next_token() {
            Ok(Token::List(n) | Token::Struct { len: n, .. }) if n > 0 => {
                model.0.push((u64::from(n), false))
            }
            Ok(Token::Map(n)) if n > 0 => model.0.push((2 * u64::from(n), true)),
            Ok(tok) => {
                let _ = (tok, is_key);
                model.close();
            }
            Err(_) => return,
        }
        assert_eq!(dec.depth(), model.0.len(), "the model follows next_token");
    }
    loop {
        let mut pulled = dec.clone();
        let mut next_model = model.clone();
        let (want, want_result) = model_walk(&mut pulled, &mut next_model);
        let mut trace = Trace::default();
        let got_result = dec.visit_value(&mut trace);
        assert_eq!(trace.0, want, "calls of the walk");
        match (&got_result, &want_result) {
            (Ok(()), Ok(())) => {}
            (Err(a), Err(b)) => {
                assert_eq!((a.kind(), a.offset()), (b.kind(), b.offset()), "error");
            }
            _ => panic!("visit_value {got_result:?} vs next_token {want_result:?}"),
        }
        assert_eq!(dec.position(), pulled.position(), "position after the walk");
        assert_eq!(dec.depth(), pulled.depth(), "containers left open");
        if got_result.is_err() || dec.position() >= bytes.len() {
            return;
        }
        model = next_model;
    }
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        prop_oneof![-200i64..200, any::<i64>()].prop_map(Value::Int),
        any::<f64>().prop_map(Value::Float),
        "[a-z]{0,20}".prop_map(Value::String),
        ".{0,5}".prop_map(Value::String),
        proptest::collection::vec(any::<u8>(), 0..8).prop_map(Value::Bytes),
        any::<[u8; 16]>().prop_map(Value::Uuid),
    ];
    leaf.prop_recursive(5, 64, 18, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..18).prop_map(Value::List),
            proptest::collection::vec(("[a-c]{0,2}", inner.clone()), 0..18).prop_map(Value::Map),
            (0u8..=0x7F, proptest::collection::vec(inner, 0..4))
                .prop_map(|(tag, fields)| Value::Struct(Structure::new(tag, fields))),
        ]
    })
}

/// `v` inside `wraps` one-item containers (list, structure or map by the digits of
/// `kinds`), so that walks go deeper than the walk's stack slots.
fn wrap(mut v: Value, wraps: usize, kinds: u64) -> Value {
    for i in 0..wraps {
        v = match (kinds >> (2 * (i % 32))) & 3 {
            0 => Value::List(vec![v]),
            1 => Value::Map(vec![("k".into(), v)]),
            2 => Value::Struct(Structure::new(0x4E, vec![v])),
            _ => Value::List(vec![Value::Int(1), v, Value::Null]),
        };
    }
    v
}

fn arb_opts() -> impl Strategy<Value = DecodeOptions> {
    (0u32..20, 0u32..40, 1u64..400, any::<bool>()).prop_map(
        |(max_string_len, max_depth, total, tight)| {
            let opts = DecodeOptions::default().with_uuid(true);
            if !tight {
                return opts;
            }
            opts.with_limits(DecodeLimits {
                max_string_len,
                max_depth,
                max_total_elements: total,
                ..DecodeLimits::default()
            })
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 16 } else { 1500 },
        ..ProptestConfig::default()
    })]

    #[test]
    fn visit_value_makes_the_calls_and_errors_next_token_implies(
        v in arb_value(),
        wraps in 0usize..24,
        kinds in any::<u64>(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..3),
        cut in any::<prop::sample::Index>(),
        opts in arb_opts(),
        prefix in 0usize..4,
    ) {
        let mut bytes = wrap(v, wraps, kinds).to_bytes().expect("encodes");
        check(&bytes, opts, prefix);
        check(&bytes, opts, 0);
        for (at, b) in flips {
            let i = at.index(bytes.len());
            bytes[i] = b;
        }
        check(&bytes, opts, prefix);
        let cut = &bytes[..cut.index(bytes.len() + 1)];
        check(cut, opts, prefix);
    }
}

/// Short lists whose leading scalars the walk reads without opening a frame, cut at
/// every byte and with each scalar's bytes corrupted (invalid UTF-8, reserved markers,
/// truncated sized integers and floats): the calls, errors, offsets, position and open
/// containers are those of the pull decoder.
#[test]
fn short_lists_of_scalars_cut_and_corrupted_walk_as_next_token() {
    let bytes: Vec<u8> = [
        &[0x92, 0x9A][..],
        &[0x01, 0xC8, 0x80, 0xC9, 0x01, 0x2C, 0xCA, 0, 1, 0, 0],
        &[
            0xCB, 0, 0, 0, 0, 0, 0, 1, 0, 0xC1, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0,
        ],
        &[0x82, b'h', b'i', 0xC0, 0xC2, 0xC3, 0x91, 0x07, 0xF0],
        &[0x93, 0x01, 0xA1, 0x81, b'k', 0x02, 0x03],
    ]
    .concat();
    let tight = DecodeOptions {
        limits: DecodeLimits {
            max_depth: 2,
            max_total_elements: 12,
            ..DecodeLimits::default()
        },
        ..DecodeOptions::default()
    };
    for cut in 0..=bytes.len() {
        for opts in [DecodeOptions::default(), tight] {
            for prefix in 0..3 {
                check(&bytes[..cut], opts, prefix);
            }
        }
    }
    for at in 2..bytes.len() {
        for b in [0x80, 0xFF, 0xC7, 0xE0, 0xC9, 0xCB, 0xD0, 0x8F, 0x9F, 0xA2] {
            let mut bad = bytes.clone();
            bad[at] = b;
            check(&bad, DecodeOptions::default(), 0);
            check(&bad, DecodeOptions::default(), 1);
        }
    }
}

/// A walk far deeper than the walk's stack slots, ending in each kind of error at the
/// bottom: the error and offset are the pull decoder's, and every container the walk
/// had opened is still open afterwards, as `next_token` leaves them.
#[test]
fn a_deep_walk_that_fails_leaves_its_containers_open() {
    let deep = DecodeOptions::default().with_limits(DecodeLimits {
        max_depth: 100_000,
        ..DecodeLimits::default()
    });
    let deepest = if cfg!(miri) { 40 } else { 5_000 };
    for depth in [1usize, 7, 8, 9, 40, deepest] {
        for (bottom, kind) in [
            (&[0xDF][..], ErrorKind::ReservedMarker),
            (&[0x82, 0xFF, 0x61][..], ErrorKind::InvalidUtf8),
            (&[0x81][..], ErrorKind::UnexpectedEnd),
            (&[0xA1, 0x01, 0x01][..], ErrorKind::NonStringKey),
            (&[][..], ErrorKind::UnexpectedEnd),
        ] {
            let mut bytes = Vec::new();
            for i in 0..depth {
                match i % 3 {
                    0 => bytes.push(0x91),
                    1 => bytes.extend([0xA1, 0x81, b'k']),
                    _ => bytes.extend([0xB1, 0x4E]),
                }
            }
            bytes.extend(bottom);
            let mut dec = Decoder::with_options(&bytes, deep);
            let err = dec.visit_value(&mut Trace::default()).expect_err("fails");
            assert_eq!(err.kind(), kind, "depth {depth}");
            check(&bytes, deep, 0);
            check(&bytes, deep, 2);
        }
    }
}

/// Every call, the result (kind and offset), the position and the open containers of one
/// walk of `bytes` by `dec`.
fn walk_outcome(dec: &mut Decoder<'_>) -> (Vec<Ev>, Option<(ErrorKind, usize)>, usize, usize) {
    let mut trace = Trace::default();
    let result = dec.visit_value(&mut trace);
    (
        trace.0,
        result.err().map(|e| (e.kind(), e.offset())),
        dec.position(),
        dec.depth(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 8 } else { 300 },
        ..ProptestConfig::default()
    })]

    /// The walk's saved levels live in the decoder between calls (they are not reset per
    /// walk): one decoder reset from input to input (deep values that complete, and cut
    /// ones that fail with levels still saved) walks each exactly as a fresh decoder does,
    /// capacity hints included, so nothing a walk reads comes from an earlier one.
    #[test]
    fn a_reused_decoder_walks_as_a_fresh_one(
        inputs in proptest::collection::vec(
            (arb_value(), 0usize..24, any::<u64>(), any::<prop::sample::Index>()),
            1..6,
        ),
        opts in arb_opts(),
    ) {
        let all: Vec<Vec<u8>> = inputs
            .into_iter()
            .map(|(v, wraps, kinds, cut)| {
                let bytes = wrap(v, wraps, kinds).to_bytes().expect("encodes");
                let keep = cut.index(bytes.len() + 1).max(bytes.len() / 2);
                bytes[..keep].to_vec()
            })
            .collect();
        let mut reused = Decoder::with_options(&[], opts);
        for bytes in &all {
            reused.reset(bytes);
            let got = walk_outcome(&mut reused);
            let want = walk_outcome(&mut Decoder::with_options(bytes, opts));
            prop_assert_eq!(got, want);
        }
    }
}

/// `depth` lists nested in the first item of each other, each of `width` items (the
/// others tiny integers), around a list of `inner` tiny integers.
fn nested(depth: usize, width: u8, inner: u8) -> Vec<u8> {
    let list = |n: u8| -> Vec<u8> {
        if n < 16 {
            vec![0x90 | n]
        } else {
            vec![0xD4, n]
        }
    };
    let mut bytes = Vec::new();
    for _ in 0..depth {
        bytes.extend(list(width));
    }
    bytes.extend(list(inner));
    bytes.extend(std::iter::repeat_n(0x01, usize::from(inner)));
    for _ in 0..depth {
        bytes.extend(std::iter::repeat_n(0x01, usize::from(width) - 1));
    }
    bytes
}

/// The capacity hint of a container depends on the items every level around it still
/// promises, which the walk keeps in its saved levels; those live in the decoder between
/// walks. A wide, deep walk (complete, and cut so that it fails with its levels saved)
/// followed on the same decoder by a narrow one whose innermost list exactly fits the
/// bytes left: the second walk's calls and hints are a fresh decoder's, at every depth
/// in and past the saved levels' array.
#[test]
fn a_reused_decoder_takes_no_capacity_hint_from_an_earlier_walk() {
    for depth in 1..=12 {
        let wide = nested(depth, 100, 1);
        let cut = &wide[..wide.len() - 50];
        let narrow = nested(depth, 1, 15);
        let want = walk_outcome(&mut Decoder::new(&narrow));
        assert!(want.1.is_none(), "the narrow value decodes");
        assert!(
            want.0.contains(&Ev::List(15, 15)),
            "full hint: {:?}",
            want.0
        );
        for first in [&wide[..], cut] {
            let mut dec = Decoder::new(first);
            let _ = walk_outcome(&mut dec);
            dec.reset(&narrow);
            assert_eq!(walk_outcome(&mut dec), want, "depth {depth}");
        }
    }
}
