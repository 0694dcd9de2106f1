//! Property tests of the message layer: for every request and response, in every known
//! version where it exists, `decode(encode(m)) == m` and re-encoding is byte-stable;
//! arbitrary and mutated bytes never panic and errors point inside the message.

use bolt::message::{
    Begin, Dict, Discard, Failure, Hello, Init, Logon, MessageCodec, Pull, Record, Request,
    RequestKind, Response, Route, Run, Success, Telemetry,
};
use bolt::BoltVersion;
use packstream::{Structure, Value, ValueRef};
use proptest::prelude::*;

/// Every version whose rules are known, plus Bolt 1 and 2 (INIT, ACK_FAILURE, 2-field RUN).
fn versions() -> Vec<BoltVersion> {
    BoltVersion::SUPPORTED
        .iter()
        .chain(BoltVersion::DECODE_ONLY)
        .copied()
        .chain([BoltVersion::new(1, 0), BoltVersion::new(2, 0)])
        .collect()
}

fn leaf(uuid: bool) -> BoxedStrategy<Value> {
    let base = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        prop_oneof![-20i64..130, Just(i64::MIN), Just(i64::MAX)].prop_map(Value::Int),
        any::<f64>().prop_map(Value::Float),
        ".{0,24}".prop_map(Value::String),
        proptest::collection::vec(any::<u8>(), 0..24).prop_map(Value::Bytes),
    ];
    if uuid {
        prop_oneof![9 => base, 1 => any::<[u8; 16]>().prop_map(Value::Uuid)].boxed()
    } else {
        base.boxed()
    }
}

fn value(uuid: bool) -> BoxedStrategy<Value> {
    leaf(uuid)
        .prop_recursive(3, 24, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::List),
                proptest::collection::vec((".{0,8}", inner.clone()), 0..6).prop_map(Value::Map),
                (0u8..=0x7F, proptest::collection::vec(inner, 0..4))
                    .prop_map(|(tag, fields)| Value::Struct(Structure::new(tag, fields))),
            ]
        })
        .boxed()
}

/// A map value (for dict fields); keys may repeat.
fn map(uuid: bool) -> BoxedStrategy<Value> {
    proptest::collection::vec(("[a-z_]{0,10}|.{0,6}", value(uuid)), 0..6)
        .prop_map(Value::Map)
        .boxed()
}

/// Owned material every generated message borrows from.
#[derive(Clone, Debug)]
struct Parts {
    text: String,
    maps: [Value; 3],
    strings: Vec<String>,
    int: i64,
    db: Option<String>,
    values: Vec<Value>,
}

fn parts(uuid: bool) -> impl Strategy<Value = Parts> {
    (
        ".{0,40}",
        [map(uuid), map(uuid), map(uuid)],
        proptest::collection::vec(".{0,12}", 0..5),
        any::<i64>(),
        proptest::option::of(".{0,12}"),
        proptest::collection::vec(value(uuid), 0..8),
    )
        .prop_map(|(text, maps, strings, int, db, values)| Parts {
            text,
            maps,
            strings,
            int,
            db,
            values,
        })
}

fn dict(v: &Value) -> Dict<'_> {
    Dict::from_value(v).expect("a map")
}

/// The request of `kind` built from `p`, in the shape `version` can carry.
fn request(kind: RequestKind, version: BoltVersion, p: &Parts) -> Request<'_> {
    let [a, b, c] = &p.maps;
    match kind {
        RequestKind::Init => Request::Init(Init::new(&p.text, dict(a))),
        RequestKind::Hello => Request::Hello(Hello::from_extra(dict(a))),
        RequestKind::Logon => Request::Logon(Logon::new(dict(a))),
        RequestKind::Logoff => Request::Logoff,
        RequestKind::Goodbye => Request::Goodbye,
        RequestKind::Reset => Request::Reset,
        RequestKind::AckFailure => Request::AckFailure,
        RequestKind::Run => {
            let run = Run::new(&p.text).with_parameters(dict(a));
            if version.run_field_count() == 3 {
                Request::Run(run.with_extra_dict(dict(b)))
            } else {
                Request::Run(run)
            }
        }
        RequestKind::Begin => Request::Begin(Begin::from_extra(dict(a))),
        RequestKind::Commit => Request::Commit,
        RequestKind::Rollback => Request::Rollback,
        RequestKind::Discard => Request::Discard(Discard::from_extra(dict(a))),
        RequestKind::DiscardAll => Request::DiscardAll,
        RequestKind::Pull => Request::Pull(Pull::from_extra(dict(a))),
        RequestKind::PullAll => Request::PullAll,
        RequestKind::Telemetry => Request::Telemetry(Telemetry { api: p.int }),
        RequestKind::Route => {
            let route = Route::new(dict(a)).with_bookmarks(p.strings.iter().map(String::as_str));
            if version.has_impersonation() {
                Request::Route(Route {
                    extra: dict(c),
                    ..route
                })
            } else {
                // 4.3: `db: String | null`; null reads back as an empty extra
                Request::Route(match &p.db {
                    Some(db) => route.with_db(db),
                    None => route,
                })
            }
        }
        _ => Request::Reset,
    }
}

fn responses(p: &Parts) -> Vec<Response<'_>> {
    let [a, b, _] = &p.maps;
    vec![
        Response::Success(Success::from_metadata(dict(a))),
        Response::Failure(Failure::from_metadata(dict(b))),
        Response::Ignored,
        Response::Record(Record::new(
            p.values.iter().map(Value::as_value_ref).collect(),
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Every request kind in every version where it exists.
    #[test]
    fn requests_round_trip(p1 in parts(false), p2 in parts(true)) {
        for version in versions() {
            let p = if version.has_uuid() { &p2 } else { &p1 };
            let codec = MessageCodec::new(version);
            for kind in RequestKind::ALL {
                if !kind.exists_in(version) {
                    let r = request(*kind, version, p);
                    prop_assert!(r.to_vec(version).is_err(), "{} encoded in {}", kind, version);
                    continue;
                }
                let r = request(*kind, version, p);
                let bytes = r.to_vec(version).expect("encode");
                let back = codec.decode_request(&bytes);
                prop_assert_eq!(back.as_ref(), Ok(&r), "{} in {}", kind, version);
                let back = back.expect("decoded");
                prop_assert_eq!(back.kind(), *kind);
                let again = back.to_vec(version).expect("re-encode");
                drop(back);
                prop_assert_eq!(again, bytes);
            }
        }
    }

    /// Every response in every version.
    #[test]
    fn responses_round_trip(p1 in parts(false), p2 in parts(true)) {
        for version in versions() {
            let p = if version.has_uuid() { &p2 } else { &p1 };
            for r in responses(p) {
                let bytes = r.to_vec(version).expect("encode");
                let back = Response::decode(&bytes, version).expect("decode");
                prop_assert_eq!(&back, &r, "{} in {}", r.name(), version);
                prop_assert_eq!(&back.to_vec(version).expect("re-encode"), &bytes);
                if let Response::Record(rec) = &back {
                    prop_assert_eq!(rec.len(), p.values.len());
                    let fields = rec.fields().expect("fields");
                    let owned: Vec<Value> = fields.iter().map(ValueRef::to_owned_value).collect();
                    prop_assert_eq!(&owned, &p.values);
                }
            }
        }
    }

    /// A batch of records and a summary comes out of the batch API whole.
    #[test]
    fn record_batches_round_trip(rows in proptest::collection::vec(proptest::collection::vec(value(false), 0..4), 0..20)) {
        let v = BoltVersion::V5_8;
        let chunker = bolt::chunk::Chunker::new(7).expect("chunk size");
        let mut wire = Vec::new();
        for row in &rows {
            let rec = Record::new(row.iter().map(Value::as_value_ref).collect());
            Response::Record(rec).encode_framed(v, &chunker, &mut wire).expect("frame");
        }
        Response::Success(Success::new().with("has_more", true))
            .encode_framed(v, &chunker, &mut wire)
            .expect("frame");
        let codec = MessageCodec::new(v);
        let mut d = bolt::chunk::Dechunker::new();
        let (batch, messages) = codec.feed_records(&mut d, &wire);
        prop_assert!(batch.error().is_none());
        prop_assert!(batch.has_more());
        prop_assert_eq!(batch.consumed(), messages.len());
        let decoded = batch.decode_fields().expect("fields");
        let owned: Vec<Vec<Value>> = decoded
            .iter()
            .map(|r| r.iter().map(ValueRef::to_owned_value).collect())
            .collect();
        prop_assert_eq!(owned, rows);
    }

    /// Arbitrary bytes never panic, in either direction and any version; errors point
    /// inside the message.
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        for version in versions() {
            check_no_panic(&bytes, version)?;
        }
    }

    /// Structure headers with message signatures and random fields never panic.
    #[test]
    fn random_fields_never_panic(
        marker in 0xB0u8..=0xB4,
        signature in prop::sample::select(vec![
            0x01u8, 0x02, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x2F, 0x3F, 0x54, 0x66, 0x6A, 0x6B,
            0x70, 0x71, 0x7E, 0x7F,
        ]),
        rest in proptest::collection::vec(any::<u8>(), 0..48),
    ) {
        let mut bytes = vec![marker, signature];
        bytes.extend(rest);
        for version in versions() {
            check_no_panic(&bytes, version)?;
        }
    }

    /// Valid messages with one byte changed, or cut short, never panic either.
    #[test]
    fn mutated_messages_never_panic(p in parts(true), at in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let version = BoltVersion::V6_1;
        let mut all = Vec::new();
        for kind in RequestKind::ALL {
            if kind.exists_in(version) {
                all.push(request(*kind, version, &p).to_vec(version).expect("encode"));
            }
        }
        for r in responses(&p) {
            all.push(r.to_vec(version).expect("encode"));
        }
        for bytes in all {
            let i = at.index(bytes.len());
            let mut changed = bytes.clone();
            changed[i] = byte;
            check_no_panic(&changed, version)?;
            check_no_panic(&bytes[..i], version)?;
        }
    }
}

fn check_no_panic(bytes: &[u8], version: BoltVersion) -> Result<(), TestCaseError> {
    match Request::decode(bytes, version) {
        Ok(r) => {
            // whatever decodes re-encodes
            let _ = r.to_vec(version);
        }
        Err(e) => prop_assert!(e.offset() <= bytes.len(), "{e}"),
    }
    match Response::decode(bytes, version) {
        Ok(Response::Record(r)) => {
            for field in r.iter() {
                if let Err(e) = field {
                    prop_assert!(e.offset() <= bytes.len(), "{e}");
                }
            }
            let _ = r.fields();
            let _ = r.to_string();
        }
        Ok(other) => {
            let _ = other.to_string();
        }
        Err(e) => prop_assert!(e.offset() <= bytes.len(), "{e}"),
    }
    let codec = MessageCodec::new(version);
    let batch = codec.decode_records([bytes, bytes]);
    prop_assert!(batch.consumed() <= 2);
    Ok(())
}
