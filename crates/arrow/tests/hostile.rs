//! Malformed and hostile input: a clear error with offsets, nothing half-written, no
//! panic. And the PULL-response stream: summaries, back-pressure, any split of the bytes.

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::RecordBatch;
use bolt::chunk::Chunker;
use bolt::message::{Failure, MessageCodec, Record, Response, Success};
use bolt::BoltVersion;
use bolt_arrow::{ArrowDecoder, Error, PullDecoder};
use packstream::{ErrorKind, ValueRef};
use test_support::hex;

const V: BoltVersion = BoltVersion::V5_8;

fn record(values: Vec<ValueRef<'_>>) -> Vec<u8> {
    Response::Record(Record::new(values)).to_vec(V).unwrap()
}

fn framed(messages: &[Vec<u8>]) -> Vec<u8> {
    let chunker = Chunker::default();
    let mut wire = Vec::new();
    for m in messages {
        chunker.write_message(m, &mut wire).unwrap();
    }
    wire
}

fn success(has_more: bool) -> Vec<u8> {
    let s = if has_more {
        Success::new().with("has_more", true)
    } else {
        Success::new().with("t_last", 3)
    };
    Response::Success(s).to_vec(V).unwrap()
}

fn decode(dec: &mut ArrowDecoder, messages: &[Vec<u8>]) -> Result<RecordBatch, Error> {
    let run = MessageCodec::new(V).decode_records(messages);
    assert!(run.error().is_none(), "{:?}", run.error());
    dec.decode(run.records())
}

fn ints(b: &RecordBatch) -> Vec<i64> {
    b.column(0).as_primitive::<Int64Type>().values().to_vec()
}

#[test]
fn a_malformed_field_names_the_record_and_the_byte() {
    let good = record(vec![ValueRef::Int(1)]);
    // RECORD [<reserved marker DF>]
    let bad = hex("B1 71 91 DF");
    let mut dec = ArrowDecoder::new(V, ["x"]);
    let err = decode(&mut dec, &[good.clone(), good.clone(), bad]).unwrap_err();
    match &err {
        Error::Record { record, source, .. } => {
            assert_eq!(*record, 2);
            assert_eq!(source.offset(), 3);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.offset(), Some(3));
    assert_eq!(err.kind(), "reserved_marker");
    assert!(err.to_string().starts_with("record 2: "), "{err}");
    assert!(dec.schema().is_none(), "a failed batch fixes nothing");
    // the decoder is as before: the good records decode
    let b = decode(&mut dec, &[good]).unwrap();
    assert_eq!(ints(&b), [1]);
}

#[test]
fn invalid_utf8_and_trailing_bytes_are_errors_with_offsets() {
    // RECORD ["a\xFF"]
    let bad_utf8 = hex("B1 71 91 82 61 FF");
    let err = decode(&mut ArrowDecoder::new(V, ["x"]), &[bad_utf8]).unwrap_err();
    let Error::Record { source, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(source.offset(), 5, "the first invalid byte");
    // RECORD [1] followed by a stray null
    let trailing = hex("B1 71 91 01 C0");
    let err = decode(&mut ArrowDecoder::new(V, ["x"]), &[trailing]).unwrap_err();
    let Error::Record { source, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(source.offset(), 4);
    // a map with an integer key, inside a record
    let int_key = hex("B1 71 91 A1 01 01");
    let err = decode(&mut ArrowDecoder::new(V, ["x"]), &[int_key]).unwrap_err();
    let Error::Record {
        source: bolt::message::MessageError::PackStream(e),
        ..
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!((e.kind(), e.offset()), (ErrorKind::NonStringKey, 4));
}

#[test]
fn a_record_with_another_field_count_is_refused() {
    let two = record(vec![ValueRef::Int(1), ValueRef::Int(2)]);
    let err = decode(&mut ArrowDecoder::new(V, ["x"]), &[two]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::FieldCount {
                record: 0,
                expected: 1,
                found: 2,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn the_stream_gives_a_batch_per_feed_and_follows_has_more() {
    let first = framed(&[
        record(vec![ValueRef::Int(1)]),
        record(vec![ValueRef::Int(2)]),
        success(true),
    ]);
    let second = framed(&[record(vec![ValueRef::Int(3)]), success(false)]);
    let mut pull = PullDecoder::new(V, ["x"]);
    assert!(!pull.take_has_more());
    let b = pull.feed(&first).unwrap().unwrap();
    assert_eq!(ints(&b), [1, 2]);
    assert!(pull.has_more() && !pull.is_done());
    assert!(pull.take_has_more(), "once per SUCCESS with has_more");
    assert!(!pull.take_has_more());
    let b = pull.feed(&second).unwrap().unwrap();
    assert_eq!(ints(&b), [3]);
    assert!(pull.is_done() && !pull.has_more());
    // both replies in one feed: one batch
    let mut pull = PullDecoder::new(V, ["x"]);
    let mut both = first.clone();
    both.extend(&second);
    let b = pull.feed(&both).unwrap().unwrap();
    assert_eq!(ints(&b), [1, 2, 3]);
    assert!(pull.is_done());
    // an empty result: no batch, done
    let mut pull = PullDecoder::new(V, ["x"]);
    assert!(pull.feed(&framed(&[success(false)])).unwrap().is_none());
    assert!(pull.is_done() && pull.schema().is_none());
}

#[test]
fn any_split_of_the_bytes_gives_the_same_rows() {
    let mut messages: Vec<Vec<u8>> = (0..20)
        .map(|i| record(vec![ValueRef::Int(i * 1000)]))
        .collect();
    messages.push(success(false));
    let wire = framed(&messages);
    let want: Vec<i64> = (0..20).map(|i| i * 1000).collect();
    for cut in 0..=wire.len() {
        let mut pull = PullDecoder::new(V, ["x"]);
        let mut got = Vec::new();
        for part in [&wire[..cut], &wire[cut..]] {
            if let Some(b) = pull.feed(part).unwrap() {
                got.extend(ints(&b));
            }
        }
        assert_eq!(got, want, "cut at {cut}");
        assert!(pull.is_done());
    }
    // one byte at a time
    let mut pull = PullDecoder::new(V, ["x"]);
    let mut got = Vec::new();
    for byte in &wire {
        if let Some(b) = pull.feed(std::slice::from_ref(byte)).unwrap() {
            got.extend(ints(&b));
        }
    }
    assert_eq!(got, want);
}

#[test]
fn a_failure_ignored_or_late_message_is_an_error() {
    let failure = Response::Failure(Failure::new(
        V,
        "Neo.ClientError.Statement.ArithmeticError",
        "/ by zero",
    ))
    .to_vec(V)
    .unwrap();
    let mut pull = PullDecoder::new(V, ["x"]);
    let err = pull
        .feed(&framed(&[record(vec![ValueRef::Int(1)]), failure]))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "server FAILURE Neo.ClientError.Statement.ArithmeticError: / by zero"
    );
    assert!(!pull.is_done() && pull.schema().is_none());

    let mut pull = PullDecoder::new(V, ["x"]);
    let err = pull.feed(&framed(&[hex("B0 7E")])).unwrap_err();
    assert!(matches!(err, Error::Protocol(_)), "{err:?}");

    let mut pull = PullDecoder::new(V, ["x"]);
    pull.feed(&framed(&[success(false)])).unwrap();
    let err = pull
        .feed(&framed(&[record(vec![ValueRef::Int(1)])]))
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("a message after the final summary"),
        "{err}"
    );
}

#[test]
fn a_broken_chunk_stream_and_a_broken_message_carry_stream_offsets() {
    // a RUN where a response belongs
    let run = hex("B1 10 80");
    let wire = framed(&[record(vec![ValueRef::Int(1)]), run]);
    let mut pull = PullDecoder::new(V, ["x"]);
    let err = pull.feed(&wire).unwrap_err();
    assert!(matches!(err, Error::Stream(_)), "{err:?}");
    // the RUN's chunk header is after the record's 2 + 4 + 2 bytes
    assert_eq!(err.stream_offset(), Some(8));

    // a record whose field is malformed: the record's stream offset
    let wire = framed(&[record(vec![ValueRef::Int(1)]), hex("B1 71 91 DF")]);
    let err = PullDecoder::new(V, ["x"]).feed(&wire).unwrap_err();
    assert!(
        matches!(
            err,
            Error::Record {
                record: 1,
                stream_offset: Some(8),
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("stream byte 8"), "{err}");
}

/// A small deterministic generator (xorshift), so that failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[test]
fn mutated_streams_never_panic() {
    use bolt::structs::{Date, EncodeStruct, Node, Point2D};
    let date = Date::from_ymd(2020, 1, 2).unwrap();
    let node = Node {
        id: 1,
        labels: vec!["L"],
        properties: vec![(
            "k",
            ValueRef::List(vec![ValueRef::Int(1), ValueRef::Float(2.0)]),
        )],
        element_id: Some("4:x:1"),
    };
    let point = Point2D {
        srid: 7203,
        x: 1.0,
        y: 2.0,
    };
    let row = |i: i64| {
        record(vec![
            ValueRef::Int(i),
            ValueRef::String("text"),
            ValueRef::Struct(date.to_struct_ref(V).unwrap()),
            ValueRef::Struct(node.to_struct_ref(V).unwrap()),
            ValueRef::Struct(point.to_struct_ref(V).unwrap()),
            ValueRef::Map(vec![("a", ValueRef::List(vec![ValueRef::Null]))]),
        ])
    };
    let mut messages: Vec<Vec<u8>> = (0..4).map(row).collect();
    messages.push(success(false));
    let wire = framed(&messages);
    let names = ["i", "s", "d", "n", "p", "m"];
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut ok, mut failed) = (0, 0);
    for _ in 0..5000 {
        let mut bytes = wire.clone();
        for _ in 0..=(rng.next() % 3) {
            let at = (rng.next() % bytes.len() as u64) as usize;
            bytes[at] = rng.next() as u8;
        }
        let mut pull = PullDecoder::new(V, names);
        match pull.feed(&bytes) {
            Ok(Some(b)) => {
                assert_eq!(b.num_columns(), names.len());
                ok += 1;
            }
            Ok(None) => ok += 1,
            Err(e) => {
                // every error renders, and those about a record have an offset
                assert!(!e.to_string().is_empty());
                if matches!(e, Error::Record { .. } | Error::TypeChanged { .. }) {
                    assert!(e.offset().is_some());
                }
                failed += 1;
            }
        }
    }
    assert!(ok > 0 && failed > 0, "ok {ok}, failed {failed}");
}
