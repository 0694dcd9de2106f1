//! Unit tests of `bolt::structs`: the examples of docs/protocol.md §2, field
//! counts and tags per version, every broken-value reason, encoding errors and the
//! `Display` forms.

use bolt::structs::{
    BoltStruct, BrokenReason, Date, DateTime, DateTimeZoneId, DisplayValue, Duration, EncodeStruct,
    LegacyDateTime, LegacyDateTimeZoneId, LocalDateTime, LocalTime, Node, Path, Point2D, Point3D,
    Relationship, StructEncodeError, StructKind, Time, UnboundRelationship, UnsupportedType,
    Vector, VectorType,
};
use bolt::BoltVersion;
use packstream::{DecodeOptions, Encoder, StructRef, Structure, Value, ValueRef};

fn read(bytes: &[u8], v: BoltVersion) -> BoltStruct<'_> {
    let value = ValueRef::decode_exact_with(bytes, &DecodeOptions::default().with_uuid(true))
        .expect("decodes");
    BoltStruct::from_value(&value, v).expect("a structure")
}

fn st(tag: u8, fields: Vec<ValueRef<'static>>) -> StructRef<'static> {
    StructRef { tag, fields }
}

fn reason(s: &StructRef<'_>, v: BoltVersion) -> BrokenReason {
    match BoltStruct::from_struct(s, v) {
        BoltStruct::Broken(b) => {
            assert_eq!(b.tag, s.tag);
            assert_eq!(b.fields, s.fields, "a broken value carries every field");
            b.reason
        }
        other => panic!("expected broken, got {other:?}"),
    }
}

use test_support::hex;
use ValueRef::{Bytes, Float, Int, List, Map, Null, String as Str};

const UTC44: BoltVersion = BoltVersion::V4_4.with_utc_patch(true);
const B1: BoltVersion = BoltVersion::new(1, 0);
const B2: BoltVersion = BoltVersion::new(2, 0);

/// Versions with distinct structure rules.
const VERSIONS: [BoltVersion; 11] = [
    B1,
    B2,
    BoltVersion::V3_0,
    BoltVersion::V4_3,
    BoltVersion::V4_4,
    UTC44,
    BoltVersion::V5_0,
    BoltVersion::V5_8,
    BoltVersion::V6_0,
    BoltVersion::V6_1,
    BoltVersion::new(7, 0),
];

fn node_fields(v: BoltVersion) -> Vec<ValueRef<'static>> {
    let mut f = vec![Int(1), List(vec![Str("L")]), Map(vec![("k", Int(1))])];
    if v.has_element_ids() {
        f.push(Str("n1"));
    }
    f
}

fn unbound_fields(v: BoltVersion) -> Vec<ValueRef<'static>> {
    let mut f = vec![Int(7), Str("T"), Map(vec![])];
    if v.has_element_ids() {
        f.push(Str("r7"));
    }
    f
}

/// A valid field list of `kind` for `v`.
fn valid_fields(kind: StructKind, v: BoltVersion) -> Vec<ValueRef<'static>> {
    match kind {
        StructKind::Node => node_fields(v),
        StructKind::Relationship => {
            let mut f = vec![Int(7), Int(1), Int(2), Str("T"), Map(vec![])];
            if v.has_element_ids() {
                f.extend([Str("r7"), Str("n1"), Str("n2")]);
            }
            f
        }
        StructKind::UnboundRelationship => unbound_fields(v),
        StructKind::Path => vec![
            List(vec![ValueRef::Struct(st(0x4E, node_fields(v)))]),
            List(vec![ValueRef::Struct(st(0x72, unbound_fields(v)))]),
            List(vec![Int(1), Int(0)]),
        ],
        StructKind::Date | StructKind::LocalTime => vec![Int(5)],
        StructKind::Time | StructKind::LocalDateTime => vec![Int(5), Int(6)],
        StructKind::DateTime | StructKind::LegacyDateTime => vec![Int(5), Int(6), Int(7)],
        StructKind::DateTimeZoneId | StructKind::LegacyDateTimeZoneId => {
            vec![Int(5), Int(6), Str("Europe/Paris")]
        }
        StructKind::Duration => vec![Int(1), Int(2), Int(3), Int(4)],
        StructKind::Point2D => vec![Int(7203), Float(1.0), Float(2.0)],
        StructKind::Point3D => vec![Int(9157), Float(1.0), Float(2.0), Float(3.0)],
        StructKind::Vector => vec![Bytes(&[0xC9]), Bytes(&[0, 1, 0, 2])],
        StructKind::UnsupportedType => vec![Str("UUID"), Int(6), Int(1), Map(vec![])],
    }
}

// ---------------------------------------------------------------------------------------
// docs/protocol.md §2 examples
// ---------------------------------------------------------------------------------------

#[test]
fn node_example() {
    let v5 = hex(
        "B4 4E 03 92 87 45 78 61 6D 70 6C 65 84 4E 6F 64 65 A1 84 6E 61 6D 65 87 65 78 61 6D \
         70 6C 65 86 61 62 63 31 32 33",
    );
    let BoltStruct::Node(n) = read(&v5, BoltVersion::V5_0) else {
        panic!()
    };
    assert_eq!(
        n,
        Node {
            id: 3,
            labels: vec!["Example", "Node"],
            properties: vec![("name", Str("example"))],
            element_id: Some("abc123"),
        }
    );
    assert_eq!(n.to_bytes(BoltVersion::V5_0).unwrap(), v5);
    // v4: the same node without element_id, starting B3 4E.
    let v4 = n.to_bytes(BoltVersion::V4_4).unwrap();
    assert_eq!(v4[..2], [0xB3, 0x4E]);
    assert_eq!(v4[2..], v5[2..v5.len() - 7]);
    let BoltStruct::Node(old) = read(&v4, BoltVersion::V4_4) else {
        panic!()
    };
    assert_eq!(old.element_id, None);
    assert_eq!(
        reason(read_struct(&v4).as_ref(), BoltVersion::V5_0),
        BrokenReason::FieldCount {
            expected: 4,
            found: 3
        }
    );
    assert_eq!(
        reason(read_struct(&v5).as_ref(), BoltVersion::V4_4),
        BrokenReason::FieldCount {
            expected: 3,
            found: 4
        }
    );
}

/// The structure in `bytes`, owned by a box so it can be borrowed.
fn read_struct(bytes: &[u8]) -> Box<StructRef<'_>> {
    Box::new(
        ValueRef::decode_exact(bytes)
            .unwrap()
            .as_struct()
            .unwrap()
            .clone(),
    )
}

#[test]
fn relationship_example() {
    let bytes = hex("B8 52 0B 02 03 85 4B 4E 4F 57 53 A0 83 72 31 31 82 6E 32 82 6E 33");
    let BoltStruct::Relationship(r) = read(&bytes, BoltVersion::V5_0) else {
        panic!()
    };
    assert_eq!(
        r,
        Relationship {
            id: 11,
            start_node_id: 2,
            end_node_id: 3,
            rel_type: "KNOWS",
            properties: vec![],
            element_id: Some("r11"),
            start_node_element_id: Some("n2"),
            end_node_element_id: Some("n3"),
        }
    );
    assert_eq!(r.to_bytes(BoltVersion::V5_0).unwrap(), bytes);
    assert_eq!(r.to_bytes(BoltVersion::V4_4).unwrap()[0], 0xB5);
    assert_eq!(
        reason(read_struct(&bytes).as_ref(), BoltVersion::V4_4),
        BrokenReason::FieldCount {
            expected: 5,
            found: 8
        }
    );
}

fn node(id: i64, eid: Option<&'static str>) -> Node<'static> {
    Node {
        id,
        labels: vec![],
        properties: vec![],
        element_id: eid,
    }
}

fn rel(id: i64, eid: Option<&'static str>) -> UnboundRelationship<'static> {
    UnboundRelationship {
        id,
        rel_type: "R",
        properties: vec![],
        element_id: eid,
    }
}

#[test]
fn path_example_from_the_docs() {
    // nodes [N42, N69, N1], rels [R1000, R1001], indices [1, 1, 1, 0, -2, 2]
    // = (42)-[1000]->(69)-[1000]->(42)<-[1001]-(1)
    for v in [BoltVersion::V4_4, BoltVersion::V5_0] {
        let e = v.has_element_ids();
        let eid = |s: &'static str| e.then_some(s);
        let path = Path::new(
            vec![
                node(42, eid("n42")),
                node(69, eid("n69")),
                node(1, eid("n1")),
            ],
            vec![rel(1000, eid("r1000")), rel(1001, eid("r1001"))],
            vec![1, 1, 1, 0, -2, 2],
        )
        .unwrap();
        let bytes = path.to_bytes(v).unwrap();
        let BoltStruct::Path(back) = read(&bytes, v) else {
            panic!()
        };
        assert_eq!(back, path);
        let hops: Vec<_> = back
            .segments()
            .map(|s| {
                let r = s.to_relationship();
                (
                    s.start.id,
                    s.relationship.id,
                    s.end.id,
                    s.reversed,
                    r.start_node_id,
                    r.end_node_id,
                )
            })
            .collect();
        assert_eq!(
            hops,
            [
                (42, 1000, 69, false, 42, 69),
                (69, 1000, 42, false, 69, 42),
                (42, 1001, 1, true, 1, 42),
            ]
        );
        let last = back.segments().last().unwrap().to_relationship();
        assert_eq!(
            (last.start_node_element_id, last.end_node_element_id),
            (eid("n1"), eid("n42"))
        );
        assert_eq!(back.segments().len(), 3);
        assert_eq!((back.start().id, back.end().id, back.len()), (42, 1, 3));
        assert_eq!(
            format!("{back:#}"),
            "(#42)-[#1000:R]->(#69)-[#1000:R]->(#42)<-[#1001:R]-(#1)"
        );
    }
}

#[test]
fn path_index_rules() {
    let p = |nodes: usize, rels: usize, idx: Vec<i64>| {
        Path::new(
            (0..nodes as i64).map(|i| node(i, None)).collect(),
            (0..rels as i64).map(|i| rel(i, None)).collect(),
            idx,
        )
    };
    assert!(p(1, 0, vec![]).is_ok());
    assert!(p(2, 1, vec![-1, 1]).is_ok());
    assert_eq!(p(0, 0, vec![]), Err(BrokenReason::PathWithoutNodes));
    assert_eq!(
        p(2, 1, vec![1]),
        Err(BrokenReason::PathOddIndices { len: 1 })
    );
    let rel_err = |position, index, relationships| BrokenReason::PathRelationshipIndex {
        position,
        index,
        relationships,
    };
    let node_err = |position, index, nodes| BrokenReason::PathNodeIndex {
        position,
        index,
        nodes,
    };
    assert_eq!(p(2, 1, vec![0, 1]), Err(rel_err(0, 0, 1)));
    assert_eq!(p(2, 1, vec![2, 1]), Err(rel_err(0, 2, 1)));
    assert_eq!(p(2, 1, vec![-2, 1]), Err(rel_err(0, -2, 1)));
    assert_eq!(
        p(2, 1, vec![1, 1, i64::MIN, 0]),
        Err(rel_err(2, i64::MIN, 1))
    );
    assert_eq!(p(2, 1, vec![1, 2]), Err(node_err(1, 2, 2)));
    assert_eq!(p(2, 1, vec![1, -1]), Err(node_err(1, -1, 2)));
    assert_eq!(p(2, 0, vec![1, 1]), Err(rel_err(0, 1, 0)));
    let msg = p(2, 1, vec![1, 5]).unwrap_err().to_string();
    assert_eq!(msg, "path indices[1] = 5 is not a node index (0..2)");
}

#[test]
fn path_broken_inside() {
    let v = BoltVersion::V5_0;
    let good_node = ValueRef::Struct(st(0x4E, node_fields(v)));
    let good_rel = ValueRef::Struct(st(0x72, unbound_fields(v)));
    let path = |nodes, rels, idx| st(0x50, vec![List(nodes), List(rels), List(idx)]);
    // A 4.4 node inside a 5.0 path.
    let old = ValueRef::Struct(st(0x4E, node_fields(BoltVersion::V4_4)));
    assert_eq!(
        reason(&path(vec![good_node.clone(), old], vec![], vec![]), v),
        BrokenReason::PathNode {
            index: 1,
            reason: Box::new(BrokenReason::FieldCount {
                expected: 4,
                found: 3
            })
        }
    );
    // A bound Relationship where an UnboundRelationship belongs.
    let bound = ValueRef::Struct(st(0x52, valid_fields(StructKind::Relationship, v)));
    assert_eq!(
        reason(&path(vec![good_node.clone()], vec![bound], vec![]), v),
        BrokenReason::PathRelationship {
            index: 0,
            reason: Box::new(BrokenReason::WrongTag {
                expected: 0x72,
                found: 0x52
            })
        }
    );
    assert_eq!(
        reason(&path(vec![Int(1)], vec![], vec![]), v),
        BrokenReason::PathNode {
            index: 0,
            reason: Box::new(BrokenReason::ListItemType {
                field: "nodes",
                index: 0,
                expected: "a structure",
                found: "integer"
            })
        }
    );
    assert_eq!(
        reason(
            &path(
                vec![good_node.clone()],
                vec![good_rel.clone()],
                vec![Int(1), Str("0")]
            ),
            v
        ),
        BrokenReason::ListItemType {
            field: "indices",
            index: 1,
            expected: "an integer",
            found: "string"
        }
    );
    assert_eq!(
        reason(
            &path(vec![good_node], vec![good_rel], vec![Int(1), Int(1)]),
            v
        ),
        BrokenReason::PathNodeIndex {
            position: 1,
            index: 1,
            nodes: 1
        }
    );
    assert_eq!(
        reason(&st(0x50, vec![Null, List(vec![]), List(vec![])]), v).to_string(),
        "field `nodes` must be a list, found null"
    );
}

#[test]
fn temporal_examples() {
    let v = BoltVersion::V5_0;
    let date = Date::from_ymd(2007, 12, 3).unwrap();
    assert_eq!(date.to_bytes(v).unwrap(), hex("B1 44 C9 36 1A"));
    assert_eq!(read(&hex("B1 44 C9 36 1A"), v), BoltStruct::Date(date));

    let d = Duration {
        months: 1,
        days: 2,
        seconds: 3,
        nanoseconds: 4,
    };
    assert_eq!(d.to_bytes(v).unwrap(), hex("B4 45 01 02 03 04"));
    assert_eq!(d.to_string(), "P1M2DT3.000000004S");

    // 1970-01-01T02:15:00.000000042+01:00 in the three forms.
    let utc = hex("B3 49 C9 11 94 2A C9 0E 10");
    let legacy = hex("B3 46 C9 1F A4 2A C9 0E 10");
    let zone = hex("B3 69 C9 11 94 2A 8C 45 75 72 6F 70 65 2F 50 61 72 69 73");
    let dt = DateTime {
        seconds: 4500,
        nanoseconds: 42,
        tz_offset_seconds: 3600,
    };
    assert_eq!(read(&utc, v), BoltStruct::DateTime(dt));
    assert_eq!(read(&utc, UTC44), BoltStruct::DateTime(dt));
    assert_eq!(
        read(&legacy, BoltVersion::V4_4),
        BoltStruct::LegacyDateTime(dt.to_legacy().unwrap())
    );
    assert_eq!(dt.to_bytes(v).unwrap(), utc);
    assert_eq!(
        dt.to_legacy().unwrap().to_bytes(BoltVersion::V4_4).unwrap(),
        legacy
    );
    let Some(BoltStruct::LegacyDateTime(l)) = dt.for_version(BoltVersion::V4_4) else {
        panic!()
    };
    assert_eq!(l.to_bytes(BoltVersion::V4_4).unwrap(), legacy);
    let z = DateTimeZoneId {
        seconds: 4500,
        nanoseconds: 42,
        tz_id: "Europe/Paris",
    };
    assert_eq!(read(&zone, v), BoltStruct::DateTimeZoneId(z));
    assert_eq!(z.to_bytes(v).unwrap(), zone);
    assert_eq!(
        read(&utc, v).to_string(),
        r#"datetime("1970-01-01T02:15:00.000000042+01:00")"#
    );
    assert_eq!(
        read(&legacy, BoltVersion::V4_4).to_string(),
        read(&utc, v).to_string(),
        "both forms of one instant print alike"
    );
    assert_eq!(
        read(&zone, v).to_string(),
        r#"datetime("1970-01-01T01:15:00.000000042Z[Europe/Paris]")"#
    );
}

#[test]
fn temporal_ranges() {
    let v = BoltVersion::V5_0;
    let out = |field, value, range| BrokenReason::OutOfRange {
        field,
        value,
        range,
    };
    for tag in [0x49, 0x69] {
        let third = if tag == 0x49 { Int(0) } else { Str("UTC") };
        for bad in [-1, 1_000_000_000, i64::MAX] {
            assert_eq!(
                reason(&st(tag, vec![Int(0), Int(bad), third.clone()]), v),
                out("nanoseconds", bad, "0..=999999999")
            );
        }
        assert!(
            !BoltStruct::from_struct(&st(tag, vec![Int(-1), Int(999_999_999), third]), v)
                .is_broken()
        );
    }
    assert_eq!(
        reason(&st(0x64, vec![Int(0), Int(-5)]), v),
        out("nanoseconds", -5, "0..=999999999")
    );
    for tag in [0x74u8, 0x54] {
        let mut fields = vec![Int(86_400_000_000_000)];
        if tag == 0x54 {
            fields.push(Int(0));
        }
        assert_eq!(
            reason(&st(tag, fields), v),
            out("nanoseconds", 86_400_000_000_000, "0..=86399999999999")
        );
    }
    // Durations carry any signs.
    assert_eq!(
        read(&hex("B4 45 FF FF FF FF"), v),
        BoltStruct::Duration(Duration {
            months: -1,
            days: -1,
            seconds: -1,
            nanoseconds: -1
        })
    );
    // Encoding refuses what decoding would call broken.
    let bad = LocalDateTime {
        seconds: 0,
        nanoseconds: 1_000_000_000,
    };
    assert_eq!(
        bad.to_bytes(v),
        Err(StructEncodeError::Invalid {
            kind: StructKind::LocalDateTime,
            reason: out("nanoseconds", 1_000_000_000, "0..=999999999")
        })
    );
    assert!(LocalTime {
        nanoseconds: u64::MAX
    }
    .to_bytes(v)
    .is_err());
    assert!(Time {
        nanoseconds: 86_400_000_000_000,
        tz_offset_seconds: 0
    }
    .to_structure(v)
    .is_err());
}

#[test]
fn spatial_example() {
    let bytes = hex("B3 58 C9 1C 23 C1 3F F0 00 00 00 00 00 00 C1 40 00 00 00 00 00 00 00");
    let p = Point2D {
        srid: 7203,
        x: 1.0,
        y: 2.0,
    };
    assert_eq!(read(&bytes, BoltVersion::V4_4), BoltStruct::Point2D(p));
    assert_eq!(p.to_bytes(BoltVersion::V4_4).unwrap(), bytes);
    // Integers are not floats.
    assert_eq!(
        reason(
            &st(0x58, vec![Int(7203), Int(1), Float(2.0)]),
            BoltVersion::V4_4
        ),
        BrokenReason::FieldType {
            field: "x",
            expected: "a float",
            found: "integer"
        }
    );
    // NaNs compare by bits.
    let nan = Point3D {
        srid: 9157,
        x: f64::NAN,
        y: -0.0,
        z: f64::INFINITY,
    };
    let bytes = nan.to_bytes(BoltVersion::V5_0).unwrap();
    assert_eq!(read(&bytes, BoltVersion::V5_0), BoltStruct::Point3D(nan));
    assert_ne!(nan, Point3D { y: 0.0, ..nan });
    assert_eq!(
        nan.to_string(),
        "point({srid: 9157, x: NaN, y: -0.0, z: inf})"
    );
}

#[test]
fn vector_examples() {
    let v = BoltVersion::V6_0;
    let f32s = hex("B2 56 CC 01 C6 CC 08 3F 80 00 00 40 00 00 00");
    let i8s = hex("B2 56 CC 01 C8 CC 02 01 FF");
    let BoltStruct::Vector(a) = read(&f32s, v) else {
        panic!()
    };
    assert_eq!(a, Vector::from_slice(&[1.0f32, 2.0]));
    assert_eq!((a.element_type(), a.len()), (VectorType::F32, 2));
    assert_eq!(a.to_string(), "vector<f32>[1.0, 2.0]");
    let BoltStruct::Vector(b) = read(&i8s, v) else {
        panic!()
    };
    assert_eq!(b.to_vec::<i8>(), Some(vec![1, -1]));
    assert_eq!(b.to_bytes(v).unwrap(), i8s);
    assert_eq!(a.to_bytes(BoltVersion::V6_1).unwrap(), f32s);
    // Empty vectors are fine.
    let empty = st(0x56, vec![Bytes(&[0xC1]), Bytes(&[])]);
    let BoltStruct::Vector(e) = BoltStruct::from_struct(&empty, v) else {
        panic!()
    };
    assert!(e.is_empty() && e.element_type() == VectorType::F64);
    // Bad markers and lengths.
    for marker in [&[][..], &[0xC6, 0xC6][..], &[0xC7][..], &[0x01][..]] {
        assert_eq!(
            reason(&st(0x56, vec![Bytes(marker), Bytes(&[])]), v),
            BrokenReason::VectorTypeMarker {
                marker: marker.to_vec()
            }
        );
    }
    for (marker, len, size) in [
        (0xC9u8, 3usize, 2usize),
        (0xCA, 6, 4),
        (0xCB, 12, 8),
        (0xC6, 2, 4),
        (0xC1, 9, 8),
    ] {
        let data = vec![0u8; len];
        let s = StructRef {
            tag: 0x56,
            fields: vec![Bytes(std::slice::from_ref(&marker)), Bytes(&data)],
        };
        assert_eq!(
            reason(&s, v),
            BrokenReason::VectorLength {
                len,
                element_size: size
            }
        );
    }
    assert_eq!(
        reason(&st(0x56, vec![Int(0xC8), Bytes(&[])]), v),
        BrokenReason::FieldType {
            field: "type_marker",
            expected: "bytes",
            found: "integer"
        }
    );
    assert_eq!(
        reason(
            &st(0x56, vec![Bytes(&[0xC8]), Bytes(&[])]),
            BoltVersion::V5_8
        ),
        BrokenReason::NotInVersion {
            version: BoltVersion::V5_8
        }
    );
    assert_eq!(
        Vector::from_slice(&[1i8]).to_bytes(BoltVersion::V5_8),
        Err(StructEncodeError::NotInVersion {
            kind: StructKind::Vector,
            version: BoltVersion::V5_8
        })
    );
}

#[test]
fn unsupported_type() {
    let s = st(
        0x3F,
        vec![
            Str("UUID"),
            Int(6),
            Int(1),
            Map(vec![("message", Str("UUID needs Bolt 6.1"))]),
        ],
    );
    let BoltStruct::Unsupported(u) = BoltStruct::from_struct(&s, BoltVersion::V6_0) else {
        panic!()
    };
    assert_eq!(
        u,
        UnsupportedType {
            name: "UUID",
            minimum_protocol_major: 6,
            minimum_protocol_minor: 1,
            extra: vec![("message", Str("UUID needs Bolt 6.1"))],
        }
    );
    assert_eq!(u.message(), Some("UUID needs Bolt 6.1"));
    assert_eq!(u.minimum_version(), BoltVersion::V6_1);
    let bytes = u.to_bytes(BoltVersion::V6_0).unwrap();
    let BoltStruct::Unsupported(back) = read(&bytes, BoltVersion::V6_0) else {
        panic!()
    };
    assert_eq!(back, u);
    assert_eq!(
        reason(&s, BoltVersion::V5_8),
        BrokenReason::NotInVersion {
            version: BoltVersion::V5_8
        }
    );
    assert_eq!(
        reason(
            &st(0x3F, vec![Str("X"), Int(256), Int(0), Map(vec![])]),
            BoltVersion::V6_0
        ),
        BrokenReason::OutOfRange {
            field: "minimum_protocol_major",
            value: 256,
            range: "0..=255"
        }
    );
    let no_message = UnsupportedType {
        extra: vec![("message", Int(1))],
        ..u.clone()
    };
    assert_eq!(no_message.message(), None);
    assert_eq!(
        BoltStruct::from(u).to_string(),
        r#"unsupported(UUID, minimum Bolt 6.1, {message: "UUID needs Bolt 6.1"})"#
    );
}

#[test]
fn uuid_is_a_marker_not_a_struct() {
    // testkit's RECORD [uuid] (docs/protocol.md §1.11), without chunking.
    let record = hex("B1 71 91 E0 55 0E 84 00 E2 9B 41 D4 A7 16 44 66 55 44 00 00");
    assert!(
        ValueRef::decode_exact(&record).is_err(),
        "E0 is reserved before 6.1"
    );
    let opts = DecodeOptions::default().with_uuid(BoltVersion::V6_1.has_uuid());
    let msg = ValueRef::decode_exact_with(&record, &opts).unwrap();
    let fields = &msg.as_struct().unwrap().fields[0];
    assert_eq!(
        DisplayValue::new(fields).to_string(),
        r#"[uuid("550e8400-e29b-41d4-a716-446655440000")]"#
    );
    assert!(BoltStruct::from_value(fields, BoltVersion::V6_1).is_none());
}

// ---------------------------------------------------------------------------------------
// Field counts, tags and types per version
// ---------------------------------------------------------------------------------------

#[test]
fn every_kind_in_every_version() {
    for v in VERSIONS {
        for kind in StructKind::ALL {
            let good = st(kind.tag(), valid_fields(kind, v));
            let read = BoltStruct::from_struct(&good, v);
            if !kind.is_valid_in(v) {
                assert_eq!(
                    reason(&good, v),
                    BrokenReason::NotInVersion { version: v },
                    "{kind} in {v}"
                );
                // A broken value encodes back to exactly what it carried.
                assert_eq!(read.to_struct_ref(v).unwrap(), good);
                continue;
            }
            assert_eq!(read.kind(), Some(kind), "{kind} in {v}: {read}");
            assert_eq!(read.tag(), kind.tag());
            // Re-encoding gives the same structure back.
            assert_eq!(read.to_struct_ref(v).unwrap(), good, "{kind} in {v}");
            // Too many and too few fields.
            let n = kind.field_count(v);
            assert_eq!(good.fields.len(), n);
            let mut more = good.clone();
            more.fields.push(Null);
            assert_eq!(
                reason(&more, v),
                BrokenReason::FieldCount {
                    expected: n,
                    found: n + 1
                },
                "{kind} in {v}"
            );
            let mut fewer = good.clone();
            fewer.fields.pop();
            assert_eq!(
                reason(&fewer, v),
                BrokenReason::FieldCount {
                    expected: n,
                    found: n - 1
                },
                "{kind} in {v}"
            );
            // Null in each field is the wrong type.
            for i in 0..n {
                let mut wrong = good.clone();
                wrong.fields[i] = Null;
                let r = reason(&wrong, v);
                assert!(
                    matches!(&r, BrokenReason::FieldType { found: "null", .. }),
                    "{kind} in {v}, field {i}: {r:?}"
                );
            }
        }
    }
}

#[test]
fn field_names_in_reasons() {
    let v = BoltVersion::V6_1;
    let field_of = |kind: StructKind, i: usize| {
        let mut s = st(kind.tag(), valid_fields(kind, v));
        s.fields[i] = ValueRef::Bool(true);
        match reason(&s, v) {
            BrokenReason::FieldType { field, found, .. } => {
                assert_eq!(found, "boolean");
                field
            }
            other => panic!("{other:?}"),
        }
    };
    let names = |kind| {
        (0..kind_count(kind, v))
            .map(|i| field_of(kind, i))
            .collect::<Vec<_>>()
    };
    fn kind_count(kind: StructKind, v: BoltVersion) -> usize {
        kind.field_count(v)
    }
    assert_eq!(
        names(StructKind::Node),
        ["id", "labels", "properties", "element_id"]
    );
    assert_eq!(
        names(StructKind::Relationship),
        [
            "id",
            "start_node_id",
            "end_node_id",
            "type",
            "properties",
            "element_id",
            "start_node_element_id",
            "end_node_element_id"
        ]
    );
    assert_eq!(
        names(StructKind::UnboundRelationship),
        ["id", "type", "properties", "element_id"]
    );
    assert_eq!(names(StructKind::Path), ["nodes", "rels", "indices"]);
    assert_eq!(
        names(StructKind::Time),
        ["nanoseconds", "tz_offset_seconds"]
    );
    assert_eq!(
        names(StructKind::DateTimeZoneId),
        ["seconds", "nanoseconds", "tz_id"]
    );
    assert_eq!(
        names(StructKind::Duration),
        ["months", "days", "seconds", "nanoseconds"]
    );
    assert_eq!(names(StructKind::Point3D), ["srid", "x", "y", "z"]);
    assert_eq!(names(StructKind::Vector), ["type_marker", "data"]);
    assert_eq!(
        names(StructKind::UnsupportedType),
        [
            "name",
            "minimum_protocol_major",
            "minimum_protocol_minor",
            "extra"
        ]
    );
    // Labels must all be strings.
    let mut s = st(0x4E, node_fields(v));
    s.fields[1] = List(vec![Str("A"), Int(1)]);
    assert_eq!(
        reason(&s, v),
        BrokenReason::ListItemType {
            field: "labels",
            index: 1,
            expected: "a string",
            found: "integer"
        }
    );
}

#[test]
fn tags_per_version() {
    let legacy = st(0x46, vec![Int(1), Int(2), Int(3)]);
    let legacy_zone = st(0x66, vec![Int(1), Int(2), Str("UTC")]);
    let utc = st(0x49, vec![Int(1), Int(2), Int(3)]);
    let utc_zone = st(0x69, vec![Int(1), Int(2), Str("UTC")]);
    let not_in = |v| BrokenReason::NotInVersion { version: v };
    for v in [BoltVersion::V4_4, BoltVersion::V4_3, BoltVersion::V3_0, B2] {
        assert!(!BoltStruct::from_struct(&legacy, v).is_broken());
        assert!(!BoltStruct::from_struct(&legacy_zone, v).is_broken());
        assert_eq!(reason(&utc, v), not_in(v));
        assert_eq!(reason(&utc_zone, v), not_in(v));
    }
    for v in [
        UTC44,
        BoltVersion::V4_3.with_utc_patch(true),
        BoltVersion::V5_0,
        BoltVersion::V6_1,
    ] {
        assert_eq!(reason(&legacy, v), not_in(v));
        assert_eq!(reason(&legacy_zone, v), not_in(v));
        assert!(!BoltStruct::from_struct(&utc, v).is_broken());
        assert!(!BoltStruct::from_struct(&utc_zone, v).is_broken());
    }
    // Bolt 1 has no temporal or spatial values at all.
    for kind in [StructKind::Date, StructKind::Point2D, StructKind::Duration] {
        let s = st(kind.tag(), valid_fields(kind, B2));
        assert_eq!(reason(&s, B1), not_in(B1));
    }
    // Unknown tags, including message tags in value position.
    for tag in [0x00, 0x01, 0x10, 0x3E, 0x5A, 0x70, 0x71, 0x7F, 0xFF] {
        assert_eq!(
            reason(&st(tag, vec![Int(1)]), BoltVersion::V6_1),
            BrokenReason::UnknownTag
        );
    }
    // Encoding refuses the forms a version does not have.
    let dt = DateTime {
        seconds: 0,
        nanoseconds: 0,
        tz_offset_seconds: 0,
    };
    assert_eq!(
        dt.to_bytes(BoltVersion::V4_4),
        Err(StructEncodeError::NotInVersion {
            kind: StructKind::DateTime,
            version: BoltVersion::V4_4
        })
    );
    assert!(dt.to_bytes(UTC44).is_ok());
    let l = LegacyDateTime {
        seconds: 0,
        nanoseconds: 0,
        tz_offset_seconds: 0,
    };
    assert!(l.to_bytes(BoltVersion::V5_0).is_err());
    let lz = LegacyDateTimeZoneId {
        seconds: 0,
        nanoseconds: 0,
        tz_id: "UTC",
    };
    assert!(lz.to_bytes(UTC44).is_err());
    assert!(Date::UNIX_EPOCH.to_bytes(B1).is_err());
    assert_eq!(
        StructEncodeError::NotInVersion {
            kind: StructKind::Date,
            version: B1
        }
        .to_string(),
        "Date does not exist in Bolt 1.0"
    );
}

#[test]
fn element_ids_when_encoding() {
    let n = node(1, None);
    assert_eq!(
        n.to_bytes(BoltVersion::V5_0),
        Err(StructEncodeError::MissingField {
            kind: StructKind::Node,
            field: "element_id",
            version: BoltVersion::V5_0
        })
    );
    assert!(n.to_bytes(BoltVersion::V4_4).is_ok());
    let r = Relationship {
        id: 1,
        start_node_id: 2,
        end_node_id: 3,
        rel_type: "T",
        properties: vec![],
        element_id: Some("r"),
        start_node_element_id: Some("a"),
        end_node_element_id: None,
    };
    assert_eq!(
        r.to_bytes(BoltVersion::V5_0).unwrap_err().to_string(),
        "Relationship needs `end_node_element_id` in Bolt 5.0"
    );
    // A path reports its members' problems.
    let p = Path::new(vec![node(1, Some("a"))], vec![rel(1, None)], vec![]).unwrap();
    assert!(matches!(
        p.to_bytes(BoltVersion::V5_0),
        Err(StructEncodeError::MissingField {
            kind: StructKind::UnboundRelationship,
            ..
        })
    ));
    assert!(p.to_bytes(BoltVersion::V4_4).is_ok());
}

#[test]
fn broken_values_re_encode_unchanged() {
    let weird = st(0x5A, vec![Int(1), List(vec![Str("x")]), Float(f64::NAN)]);
    let b = BoltStruct::from_struct(&weird, BoltVersion::V5_0);
    assert!(b.is_broken());
    assert_eq!(b.kind(), None);
    assert_eq!(b.tag(), 0x5A);
    let mut out = Vec::new();
    b.encode(&mut Encoder::new(&mut out), BoltVersion::V4_4)
        .unwrap();
    assert_eq!(out, ValueRef::Struct(weird.clone()).to_bytes().unwrap());
    assert_eq!(
        b.to_structure(BoltVersion::V4_4).unwrap(),
        Structure::new(
            0x5A,
            vec![
                Value::Int(1),
                Value::List(vec![Value::from("x")]),
                Value::Float(f64::NAN)
            ]
        )
    );
    assert_eq!(
        b.to_string(),
        r#"broken(0x5A [1, ["x"], NaN]: unknown structure tag)"#
    );
}

#[test]
fn owned_forms_for_parameters() {
    let v = BoltVersion::V5_0;
    let date = Date::from_ymd(2024, 2, 29).unwrap();
    assert_eq!(
        date.to_value(v).unwrap(),
        Value::Struct(Structure::new(0x44, vec![Value::Int(19782)]))
    );
    let vec = Vector::from_slice(&[1.5f64]);
    let s = vec.to_structure(BoltVersion::V6_0).unwrap();
    assert_eq!(s.tag, 0x56);
    assert_eq!(s.fields[0], Value::Bytes(vec![0xC1]));
    // The owned structure reads back to the same value.
    let back = s.fields.iter().map(Value::as_value_ref).collect::<Vec<_>>();
    assert_eq!(
        BoltStruct::from_struct(&st_ref(0x56, back), BoltVersion::V6_0),
        BoltStruct::Vector(vec)
    );
}

fn st_ref(tag: u8, fields: Vec<ValueRef<'_>>) -> StructRef<'_> {
    StructRef { tag, fields }
}

// ---------------------------------------------------------------------------------------
// Display
// ---------------------------------------------------------------------------------------

#[test]
fn display_forms() {
    let n = Node {
        id: 3,
        labels: vec!["Person", "Has Space"],
        properties: vec![
            ("name", Str("Alice")),
            ("born", ValueRef::Struct(st(0x44, vec![Int(7441)]))),
        ],
        element_id: Some("n3"),
    };
    assert_eq!(
        n.to_string(),
        r#"(:Person:`Has Space` {name: "Alice", born: date("1990-05-17")})"#
    );
    assert_eq!(
        format!("{n:#}"),
        r#"(#3:Person:`Has Space` {name: "Alice", born: date("1990-05-17")})"#
    );
    assert_eq!(node(1, None).to_string(), "()");
    assert_eq!(format!("{:#}", node(1, None)), "(#1)");
    let cases: Vec<(BoltStruct<'_>, &str)> = vec![
        (
            Time::new(12, 34, 56, 789, 3600).unwrap().into(),
            r#"time("12:34:56.000000789+01:00")"#,
        ),
        (
            LocalTime::new(0, 0, 0, 0).unwrap().into(),
            r#"localtime("00:00:00")"#,
        ),
        (
            LocalDateTime {
                seconds: 1_709_210_096,
                nanoseconds: 123_456_789,
            }
            .into(),
            r#"localdatetime("2024-02-29T12:34:56.123456789")"#,
        ),
        (
            Date::from_ymd(2024, 1, 31).unwrap().into(),
            r#"date("2024-01-31")"#,
        ),
        (
            Duration {
                months: 14,
                days: 3,
                seconds: 14706,
                nanoseconds: 700_000_000,
            }
            .into(),
            r#"duration("P1Y2M3DT4H5M6.7S")"#,
        ),
        (
            LegacyDateTimeZoneId {
                seconds: 1_709_210_096,
                nanoseconds: 0,
                tz_id: "Europe/Stockholm",
            }
            .into(),
            r#"datetime("2024-02-29T12:34:56[Europe/Stockholm]")"#,
        ),
        (
            Point2D {
                srid: 7203,
                x: 1.0,
                y: 2.0,
            }
            .into(),
            "point({srid: 7203, x: 1.0, y: 2.0})",
        ),
        (
            Vector::from_slice(&[1.0f32, 2.0]).into(),
            "vector<f32>[1.0, 2.0]",
        ),
        (
            Vector::new(VectorType::I16, &[0x00, 0x01, 0xFF, 0xFE][..])
                .unwrap()
                .into(),
            "vector<i16>[1, -2]",
        ),
        (
            UnboundRelationship {
                id: 1,
                rel_type: "KNOWS",
                properties: vec![],
                element_id: None,
            }
            .into(),
            "[:KNOWS]",
        ),
        (
            BoltStruct::from_struct(&st(0x4E, vec![Int(1), List(vec![])]), BoltVersion::V5_0),
            "broken(Node 0x4E [1, []]: expected 4 fields, found 2)",
        ),
    ];
    for (value, text) in cases {
        assert_eq!(value.to_string(), text);
    }
}

#[test]
fn display_interprets_nested_structures() {
    // A 4.4 node (3 fields) inside a list: lenient by default, strict on request.
    let old = ValueRef::Struct(st(0x4E, node_fields(BoltVersion::V4_4)));
    let list = List(vec![old]);
    assert_eq!(DisplayValue::new(&list).to_string(), "[(:L {k: 1})]");
    assert_eq!(
        DisplayValue::new(&list)
            .with_version(BoltVersion::V4_4)
            .to_string(),
        "[(:L {k: 1})]"
    );
    assert_eq!(
        DisplayValue::new(&list)
            .with_version(BoltVersion::V5_0)
            .to_string(),
        r#"[broken(Node 0x4E [1, ["L"], {k: 1}]: expected 4 fields, found 3)]"#
    );
    // The lenient reading picks the version that fits.
    let legacy = st(0x66, vec![Int(0), Int(0), Str("UTC")]);
    assert!(matches!(
        BoltStruct::from_struct_any_version(&legacy),
        BoltStruct::LegacyDateTimeZoneId(_)
    ));
    let new_node = st(0x4E, node_fields(BoltVersion::V5_0));
    assert!(matches!(
        BoltStruct::from_struct_any_version(&new_node),
        BoltStruct::Node(Node {
            element_id: Some("n1"),
            ..
        })
    ));
    let bad = st(0x44, vec![Str("x")]);
    assert_eq!(
        BoltStruct::from_struct_any_version(&bad).to_string(),
        r#"broken(Date 0x44 ["x"]: field `days` must be an integer, found string)"#
    );
}
