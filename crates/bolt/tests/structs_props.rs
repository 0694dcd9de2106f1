//! Property tests of `bolt::structs`:
//!
//! * every structure type, in every version where it exists, survives
//!   encode → decode → `from_struct` unchanged (and encoding fails where it does not
//!   exist);
//! * arbitrary structures (any tag, any fields, any version) never make reading,
//!   displaying or re-encoding panic, and what reads as valid re-encodes to itself;
//! * the calendar conversion is a bijection over the server's whole year range and
//!   over every `i64` day count;
//! * paths, vectors and the datetime conversions keep their invariants.

use bolt::structs::{
    BoltStruct, Date, DateTime, DateTimeZoneId, DisplayValue, Duration, EncodeStruct,
    LegacyDateTime, LegacyDateTimeZoneId, LocalDateTime, LocalTime, Node, Path, Point2D, Point3D,
    Relationship, StructEncodeError, StructKind, Time, UnboundRelationship, UnsupportedType,
    Vector, VectorElement, VectorType, NANOS_PER_DAY,
};
use bolt::BoltVersion;
use packstream::{DecodeOptions, StructRef, Structure, Value, ValueRef};
use proptest::prelude::*;

const VERSIONS: [BoltVersion; 12] = [
    BoltVersion::new(1, 0),
    BoltVersion::new(2, 0),
    BoltVersion::V3_0,
    BoltVersion::V4_0,
    BoltVersion::V4_3,
    BoltVersion::V4_3.with_utc_patch(true),
    BoltVersion::V4_4,
    BoltVersion::V4_4.with_utc_patch(true),
    BoltVersion::V5_0,
    BoltVersion::V5_8,
    BoltVersion::V6_0,
    BoltVersion::V6_1,
];

// ---------------------------------------------------------------------------------------
// Owned specifications of typed values (the typed values borrow from them)
// ---------------------------------------------------------------------------------------

#[derive(Clone, Debug)]
struct NodeSpec {
    id: i64,
    labels: Vec<String>,
    props: Vec<(String, Value)>,
    eid: String,
}

#[derive(Clone, Debug)]
struct RelSpec {
    id: i64,
    start: i64,
    end: i64,
    rel_type: String,
    props: Vec<(String, Value)>,
    eids: [String; 3],
}

#[derive(Clone, Debug)]
enum Spec {
    Node(NodeSpec),
    Relationship(RelSpec),
    Unbound(RelSpec),
    Path(Vec<NodeSpec>, Vec<RelSpec>, Vec<i64>),
    Date(i64),
    Time(u64, i64),
    LocalTime(u64),
    DateTime(i64, u32, i64),
    DateTimeZoneId(i64, u32, String),
    LegacyDateTime(i64, u32, i64),
    LegacyDateTimeZoneId(i64, u32, String),
    LocalDateTime(i64, u32),
    Duration(i64, i64, i64, i64),
    Point2D(i64, f64, f64),
    Point3D(i64, f64, f64, f64),
    Vector(VectorType, Vec<u8>),
    Unsupported(String, u8, u8, Vec<(String, Value)>),
}

fn props<'s>(p: &'s [(String, Value)]) -> Vec<(&'s str, ValueRef<'s>)> {
    p.iter()
        .map(|(k, v)| (k.as_str(), v.as_value_ref()))
        .collect()
}

fn build_node(n: &NodeSpec, v: BoltVersion) -> Node<'_> {
    Node {
        id: n.id,
        labels: n.labels.iter().map(String::as_str).collect(),
        properties: props(&n.props),
        element_id: v.has_element_ids().then_some(n.eid.as_str()),
    }
}

fn build_unbound(r: &RelSpec, v: BoltVersion) -> UnboundRelationship<'_> {
    UnboundRelationship {
        id: r.id,
        rel_type: &r.rel_type,
        properties: props(&r.props),
        element_id: v.has_element_ids().then_some(r.eids[0].as_str()),
    }
}

fn build(spec: &Spec, v: BoltVersion) -> BoltStruct<'_> {
    let e = v.has_element_ids();
    match spec {
        Spec::Node(n) => build_node(n, v).into(),
        Spec::Relationship(r) => Relationship {
            id: r.id,
            start_node_id: r.start,
            end_node_id: r.end,
            rel_type: &r.rel_type,
            properties: props(&r.props),
            element_id: e.then_some(r.eids[0].as_str()),
            start_node_element_id: e.then_some(r.eids[1].as_str()),
            end_node_element_id: e.then_some(r.eids[2].as_str()),
        }
        .into(),
        Spec::Unbound(r) => build_unbound(r, v).into(),
        Spec::Path(nodes, rels, indices) => Path::new(
            nodes.iter().map(|n| build_node(n, v)).collect(),
            rels.iter().map(|r| build_unbound(r, v)).collect(),
            indices.clone(),
        )
        .expect("generated paths are valid")
        .into(),
        Spec::Date(d) => Date::from_days(*d).into(),
        Spec::Time(n, o) => Time {
            nanoseconds: *n,
            tz_offset_seconds: *o,
        }
        .into(),
        Spec::LocalTime(n) => LocalTime { nanoseconds: *n }.into(),
        Spec::DateTime(s, n, o) => DateTime {
            seconds: *s,
            nanoseconds: *n,
            tz_offset_seconds: *o,
        }
        .into(),
        Spec::DateTimeZoneId(s, n, z) => DateTimeZoneId {
            seconds: *s,
            nanoseconds: *n,
            tz_id: z,
        }
        .into(),
        Spec::LegacyDateTime(s, n, o) => LegacyDateTime {
            seconds: *s,
            nanoseconds: *n,
            tz_offset_seconds: *o,
        }
        .into(),
        Spec::LegacyDateTimeZoneId(s, n, z) => LegacyDateTimeZoneId {
            seconds: *s,
            nanoseconds: *n,
            tz_id: z,
        }
        .into(),
        Spec::LocalDateTime(s, n) => LocalDateTime {
            seconds: *s,
            nanoseconds: *n,
        }
        .into(),
        Spec::Duration(m, d, s, n) => Duration {
            months: *m,
            days: *d,
            seconds: *s,
            nanoseconds: *n,
        }
        .into(),
        Spec::Point2D(srid, x, y) => Point2D {
            srid: *srid,
            x: *x,
            y: *y,
        }
        .into(),
        Spec::Point3D(srid, x, y, z) => Point3D {
            srid: *srid,
            x: *x,
            y: *y,
            z: *z,
        }
        .into(),
        Spec::Vector(t, data) => Vector::new(*t, data.as_slice()).expect("valid").into(),
        Spec::Unsupported(name, major, minor, extra) => UnsupportedType {
            name,
            minimum_protocol_major: *major,
            minimum_protocol_minor: *minor,
            extra: props(extra),
        }
        .into(),
    }
}

// ---------------------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------------------

fn any_float() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>(),
        any::<u64>().prop_map(f64::from_bits),
        Just(f64::NAN),
        Just(-0.0),
    ]
}

fn short_string() -> impl Strategy<Value = String> {
    prop_oneof!["[a-zA-Z_][a-zA-Z0-9_]{0,8}", ".{0,12}", Just(String::new()),]
}

/// Property values: scalars, lists, maps, and now and then a Date structure.
fn prop_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        any_float().prop_map(Value::Float),
        short_string().prop_map(Value::String),
        prop::collection::vec(any::<u8>(), 0..8).prop_map(Value::Bytes),
        any::<i32>().prop_map(|d| Value::Struct(Structure::new(0x44, vec![Value::Int(d.into())]))),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::List),
            prop::collection::vec((short_string(), inner), 0..4).prop_map(Value::Map),
        ]
    })
}

fn prop_map() -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec((short_string(), prop_value()), 0..4)
}

fn node_spec() -> impl Strategy<Value = NodeSpec> {
    (
        any::<i64>(),
        prop::collection::vec(short_string(), 0..3),
        prop_map(),
        short_string(),
    )
        .prop_map(|(id, labels, props, eid)| NodeSpec {
            id,
            labels,
            props,
            eid,
        })
}

fn rel_spec() -> impl Strategy<Value = RelSpec> {
    (
        (any::<i64>(), any::<i64>(), any::<i64>()),
        short_string(),
        prop_map(),
        [short_string(), short_string(), short_string()],
    )
        .prop_map(|((id, start, end), rel_type, props, eids)| RelSpec {
            id,
            start,
            end,
            rel_type,
            props,
            eids,
        })
}

/// A valid path: 1–4 nodes, 0–3 relationships, up to 5 hops.
fn path_spec() -> impl Strategy<Value = Spec> {
    (
        prop::collection::vec(node_spec(), 1..4),
        prop::collection::vec(rel_spec(), 0..3),
    )
        .prop_flat_map(|(nodes, rels)| {
            let (n, r) = (nodes.len(), rels.len());
            let hops = if r == 0 { 0 } else { 5 };
            let hop = (1..=r as i64, any::<bool>(), 0..n as i64)
                .prop_map(|(rel, back, node)| [if back { -rel } else { rel }, node]);
            (
                Just(nodes),
                Just(rels),
                prop::collection::vec(hop, 0..=hops),
            )
        })
        .prop_map(|(nodes, rels, hops)| Spec::Path(nodes, rels, hops.concat()))
}

fn nanos() -> impl Strategy<Value = u32> {
    prop_oneof![0..1_000_000_000u32, Just(0), Just(999_999_999)]
}

fn nanos_of_day() -> impl Strategy<Value = u64> {
    prop_oneof![0..NANOS_PER_DAY, Just(0), Just(NANOS_PER_DAY - 1)]
}

fn vector_spec() -> impl Strategy<Value = Spec> {
    (
        prop::sample::select(VectorType::ALL.to_vec()),
        prop::collection::vec(any::<u8>(), 0..40),
    )
        .prop_map(|(t, mut data)| {
            data.truncate(data.len() / t.size() * t.size());
            Spec::Vector(t, data)
        })
}

fn any_spec() -> impl Strategy<Value = Spec> {
    prop_oneof![
        node_spec().prop_map(Spec::Node),
        rel_spec().prop_map(Spec::Relationship),
        rel_spec().prop_map(Spec::Unbound),
        path_spec(),
        any::<i64>().prop_map(Spec::Date),
        (nanos_of_day(), any::<i64>()).prop_map(|(n, o)| Spec::Time(n, o)),
        nanos_of_day().prop_map(Spec::LocalTime),
        (any::<i64>(), nanos(), any::<i64>()).prop_map(|(s, n, o)| Spec::DateTime(s, n, o)),
        (any::<i64>(), nanos(), short_string()).prop_map(|(s, n, z)| Spec::DateTimeZoneId(s, n, z)),
        (any::<i64>(), nanos(), any::<i64>()).prop_map(|(s, n, o)| Spec::LegacyDateTime(s, n, o)),
        (any::<i64>(), nanos(), short_string())
            .prop_map(|(s, n, z)| Spec::LegacyDateTimeZoneId(s, n, z)),
        (any::<i64>(), nanos()).prop_map(|(s, n)| Spec::LocalDateTime(s, n)),
        (any::<i64>(), any::<i64>(), any::<i64>(), any::<i64>())
            .prop_map(|(m, d, s, n)| Spec::Duration(m, d, s, n)),
        (any::<i64>(), any_float(), any_float()).prop_map(|(s, x, y)| Spec::Point2D(s, x, y)),
        (any::<i64>(), any_float(), any_float(), any_float())
            .prop_map(|(s, x, y, z)| Spec::Point3D(s, x, y, z)),
        vector_spec(),
        (short_string(), any::<u8>(), any::<u8>(), prop_map())
            .prop_map(|(n, a, b, e)| Spec::Unsupported(n, a, b, e)),
    ]
}

fn any_version() -> impl Strategy<Value = BoltVersion> {
    prop_oneof![
        prop::sample::select(VERSIONS.to_vec()),
        (0..=8u8, 0..=9u8, any::<bool>())
            .prop_map(|(major, minor, utc)| BoltVersion::new(major, minor).with_utc_patch(utc)),
    ]
}

/// Arbitrary values whose structures have value tags (or random ones) and random
/// fields, nested.
fn wild_value() -> impl Strategy<Value = Value> {
    let tags: Vec<u8> = StructKind::ALL
        .iter()
        .map(|k| k.tag())
        .chain([0x00, 0x70, 0x7F])
        .collect();
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<i64>().prop_map(Value::Int),
        prop_oneof![
            Just(-1i64),
            Just(0),
            Just(1),
            Just(2),
            Just(999_999_999),
            Just(1_000_000_000)
        ]
        .prop_map(Value::Int),
        any_float().prop_map(Value::Float),
        short_string().prop_map(Value::String),
        prop::collection::vec(any::<u8>(), 0..10).prop_map(Value::Bytes),
        prop::sample::select(vec![0xC8u8, 0xC9, 0xCA, 0xCB, 0xC6, 0xC1, 0xC7])
            .prop_map(|m| Value::Bytes(vec![m])),
        any::<[u8; 16]>().prop_map(Value::Uuid),
    ];
    leaf.prop_recursive(4, 40, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::List),
            prop::collection::vec((short_string(), inner.clone()), 0..4).prop_map(Value::Map),
            (
                prop::sample::select(tags.clone()),
                prop::collection::vec(inner, 0..9)
            )
                .prop_map(|(tag, fields)| Value::Struct(Structure::new(tag, fields))),
        ]
    })
}

fn wild_struct() -> impl Strategy<Value = Structure> {
    let tags: Vec<u8> = StructKind::ALL.iter().map(|k| k.tag()).collect();
    (
        prop_oneof![prop::sample::select(tags), any::<u8>()],
        prop::collection::vec(wild_value(), 0..9),
    )
        .prop_map(|(tag, fields)| Structure::new(tag, fields))
}

fn as_struct_ref(s: &Structure) -> StructRef<'_> {
    StructRef {
        tag: s.tag,
        fields: s.fields.iter().map(Value::as_value_ref).collect(),
    }
}

// ---------------------------------------------------------------------------------------
// Calendar reference: the day after (y, m, d)
// ---------------------------------------------------------------------------------------

fn is_leap(y: i64) -> bool {
    y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0)
}

fn month_len(y: i64, m: u8) -> u8 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn next_day((y, m, d): (i64, u8, u8)) -> (i64, u8, u8) {
    if d < month_len(y, m) {
        (y, m, d + 1)
    } else if m < 12 {
        (y, m + 1, 1)
    } else {
        (y + 1, 1, 1)
    }
}

fn server_days() -> std::ops::RangeInclusive<i64> {
    let first = Date::from_ymd(Date::MIN_SERVER_YEAR, 1, 1).unwrap().days;
    let last = Date::from_ymd(Date::MAX_SERVER_YEAR, 12, 31).unwrap().days;
    first..=last
}

/// Reads a `Date` rendering back: `[+-]YYYY…-MM-DD`.
fn parse_date(s: &str) -> (i64, u8, u8) {
    let (sign, rest) = match s.as_bytes()[0] {
        b'-' => (-1, &s[1..]),
        b'+' => (1, &s[1..]),
        _ => (1, s),
    };
    let mut parts = rest.split('-');
    let y: i64 = parts.next().unwrap().parse().unwrap();
    let m = parts.next().unwrap().parse().unwrap();
    let d = parts.next().unwrap().parse().unwrap();
    (sign * y, m, d)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// from_struct(encode(x)) == x wherever the type exists; an error elsewhere.
    #[test]
    fn round_trip_in_every_version(spec in any_spec()) {
        for v in VERSIONS {
            let x = build(&spec, v);
            let kind = x.kind().unwrap();
            if !kind.is_valid_in(v) {
                prop_assert_eq!(
                    x.to_bytes(v),
                    Err(StructEncodeError::NotInVersion { kind, version: v })
                );
                continue;
            }
            let bytes = x.to_bytes(v).unwrap();
            let opts = DecodeOptions::default().with_uuid(v.has_uuid());
            let value = ValueRef::decode_exact_with(&bytes, &opts).unwrap();
            let back = BoltStruct::from_value(&value, v).unwrap();
            prop_assert_eq!(&back, &x, "{} in {}", kind, v);
            // The borrowed and owned forms say the same.
            let owned = x.to_structure(v).unwrap();
            prop_assert_eq!(BoltStruct::from_struct(&as_struct_ref(&owned), v), x.clone());
            prop_assert_eq!(&Value::Struct(owned).to_bytes().unwrap(), &bytes);
            // Display works, and the lenient reading agrees.
            prop_assert_eq!(
                BoltStruct::from_struct_any_version(value.as_struct().unwrap()).to_string(),
                x.to_string()
            );
        }
    }

    /// Arbitrary input never panics; what reads as valid re-encodes to itself, what
    /// reads as broken re-encodes unchanged.
    #[test]
    fn arbitrary_structures_never_panic(s in wild_struct(), v in any_version()) {
        let s = as_struct_ref(&s);
        let x = BoltStruct::from_struct(&s, v);
        let _ = x.to_string();
        let _ = format!("{x:#}");
        let _ = BoltStruct::from_struct_any_version(&s).to_string();
        let value = ValueRef::Struct(s.clone());
        let _ = DisplayValue::new(&value).to_string();
        let _ = DisplayValue::new(&value).with_version(v).to_string();
        match &x {
            BoltStruct::Broken(b) => {
                prop_assert_eq!(b.tag, s.tag);
                prop_assert_eq!(&b.fields, &s.fields);
                prop_assert_eq!(x.to_struct_ref(v).unwrap(), s);
            }
            _ => {
                let kind = x.kind().unwrap();
                prop_assert!(kind.is_valid_in(v));
                prop_assert_eq!(s.fields.len(), kind.field_count(v));
                // Encoding reproduces the input exactly.
                prop_assert_eq!(x.to_struct_ref(v).unwrap(), s.clone());
                prop_assert_eq!(BoltStruct::from_struct(&x.to_struct_ref(v).unwrap(), v), x.clone());
            }
        }
    }

    /// Valid structures of one version read under another: no panic, and the same
    /// value wherever the two versions agree on the kind.
    #[test]
    fn cross_version_reading(spec in any_spec(), from in any_version(), to in any_version()) {
        let x = build(&spec, from);
        let Ok(s) = x.to_struct_ref(from) else { return Ok(()); };
        let y = BoltStruct::from_struct(&s, to);
        let _ = y.to_string();
        let kind = x.kind().unwrap();
        let graph = matches!(
            kind,
            StructKind::Node | StructKind::Relationship | StructKind::UnboundRelationship | StructKind::Path
        );
        let same_rules =
            kind.is_valid_in(to) && (!graph || from.has_element_ids() == to.has_element_ids());
        if same_rules {
            prop_assert_eq!(&y, &x);
        } else {
            prop_assert!(y.is_broken());
        }
    }

    /// One field replaced by anything: no panic, and broken unless it still fits.
    #[test]
    fn mutated_fields_never_panic(
        spec in any_spec(),
        v in prop::sample::select(VERSIONS.to_vec()),
        at in any::<prop::sample::Index>(),
        replacement in wild_value(),
    ) {
        let x = build(&spec, v);
        let Ok(mut s) = x.to_struct_ref(v) else { return Ok(()); };
        if s.fields.is_empty() {
            return Ok(());
        }
        let i = at.index(s.fields.len());
        s.fields[i] = replacement.as_value_ref();
        let y = BoltStruct::from_struct(&s, v);
        let _ = y.to_string();
        prop_assert_eq!(y.to_struct_ref(v).unwrap(), s);
    }

    /// Calendar: (y, m, d) <-> days is a bijection over the server's years, and each
    /// day is followed by the next calendar day.
    #[test]
    fn date_round_trip_server_range(days in server_days()) {
        let date = Date::from_days(days);
        let ymd = date.ymd();
        prop_assert!((Date::MIN_SERVER_YEAR..=Date::MAX_SERVER_YEAR).contains(&ymd.0));
        prop_assert_eq!(Date::from_ymd(ymd.0, ymd.1, ymd.2), Some(date));
        prop_assert_eq!(Date::from_days(days + 1).ymd(), next_day(ymd));
        prop_assert_eq!(parse_date(&date.to_string()), ymd);
    }

    #[test]
    fn date_round_trip_any_day(days in any::<i64>()) {
        let date = Date::from_days(days);
        let (y, m, d) = date.ymd();
        prop_assert_eq!(Date::from_ymd(y, m, d), Some(date));
        prop_assert_eq!(parse_date(&date.to_string()), (y, m, d));
        if let Some(next) = days.checked_add(1) {
            prop_assert_eq!(Date::from_days(next).ymd(), next_day((y, m, d)));
        }
    }

    #[test]
    fn ymd_round_trip(
        y in Date::MIN_SERVER_YEAR..=Date::MAX_SERVER_YEAR,
        m in 1..=12u8,
        d in 1..=31u8,
    ) {
        match Date::from_ymd(y, m, d) {
            Some(date) => prop_assert_eq!(date.ymd(), (y, m, d)),
            None => prop_assert!(d > month_len(y, m)),
        }
    }

    #[test]
    fn date_time_conversions(seconds in any::<i64>(), n in nanos(), offset in -64_800..=64_800i64) {
        let ldt = LocalDateTime { seconds, nanoseconds: n };
        if let Some(back) = LocalDateTime::new(ldt.date(), ldt.time()) {
            prop_assert_eq!(back, ldt);
        }
        prop_assert!(ldt.time().nanoseconds < NANOS_PER_DAY);
        let dt = DateTime { seconds, nanoseconds: n, tz_offset_seconds: offset };
        match dt.to_legacy() {
            Some(l) => {
                prop_assert_eq!(l.to_utc(), Some(dt));
                prop_assert_eq!(l.to_string(), dt.to_string());
            }
            None => prop_assert!(seconds.checked_add(offset).is_none()),
        }
        let _ = dt.to_string();
    }

    #[test]
    fn path_segments_follow_the_indices(spec in path_spec(), v in prop::sample::select(VERSIONS.to_vec())) {
        let BoltStruct::Path(p) = build(&spec, v) else { unreachable!() };
        let segments: Vec<_> = p.segments().collect();
        prop_assert_eq!(segments.len(), p.len());
        prop_assert_eq!(p.indices().len(), 2 * p.len());
        let mut at = p.start();
        for (s, pair) in segments.iter().zip(p.indices().chunks(2)) {
            prop_assert_eq!(s.start, at);
            prop_assert_eq!(s.reversed, pair[0] < 0);
            prop_assert_eq!(s.relationship, &p.relationships()[(pair[0].unsigned_abs() - 1) as usize]);
            prop_assert_eq!(s.end, &p.nodes()[pair[1] as usize]);
            let r = s.to_relationship();
            let (from, to) = if s.reversed { (s.end, s.start) } else { (s.start, s.end) };
            prop_assert_eq!((r.start_node_id, r.end_node_id), (from.id, to.id));
            at = s.end;
        }
        prop_assert_eq!(p.end(), at);
    }

    #[test]
    fn vector_elements_bit_exact(
        i8s in prop::collection::vec(any::<i8>(), 0..9),
        i16s in prop::collection::vec(any::<i16>(), 0..9),
        i32s in prop::collection::vec(any::<i32>(), 0..9),
        i64s in prop::collection::vec(any::<i64>(), 0..9),
        f32s in prop::collection::vec(any::<u32>().prop_map(f32::from_bits), 0..9),
        f64s in prop::collection::vec(any_float(), 0..9),
    ) {
        fn check<T: VectorElement + PartialEq>(xs: &[T], bits: impl Fn(&T) -> u64) -> Result<(), TestCaseError> {
            let v = Vector::from_slice(xs);
            prop_assert_eq!(v.element_type(), T::TYPE);
            prop_assert_eq!(v.len(), xs.len());
            prop_assert_eq!(v.data().len(), xs.len() * T::TYPE.size());
            let back = v.to_vec::<T>().unwrap();
            prop_assert_eq!(back.iter().map(&bits).collect::<Vec<_>>(), xs.iter().map(&bits).collect::<Vec<_>>());
            let bytes = v.to_bytes(BoltVersion::V6_0).unwrap();
            let value = ValueRef::decode_exact(&bytes).unwrap();
            prop_assert_eq!(BoltStruct::from_value(&value, BoltVersion::V6_0), Some(BoltStruct::Vector(v.clone())));
            Ok(())
        }
        check(&i8s, |x| *x as u64)?;
        check(&i16s, |x| *x as u64)?;
        check(&i32s, |x| *x as u64)?;
        check(&i64s, |x| *x as u64)?;
        check(&f32s, |x| u64::from(x.to_bits()))?;
        check(&f64s, |x| x.to_bits())?;
    }

    #[test]
    fn vector_lengths(t in prop::sample::select(VectorType::ALL.to_vec()), data in prop::collection::vec(any::<u8>(), 0..33)) {
        let r = Vector::new(t, data.as_slice());
        prop_assert_eq!(r.is_ok(), data.len() % t.size() == 0);
        if let Ok(v) = r {
            prop_assert_eq!(v.len() * t.size(), data.len());
            prop_assert_eq!(v.clone().into_owned(), v);
        }
    }
}
