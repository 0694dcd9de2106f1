//! Every mapping rule of the crate documentation ("Types"), one test or more each, through
//! the real path: values encoded as RECORD messages, decoded lazily, then into Arrow.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int32Type, Int64Type, IntervalMonthDayNanoType,
    Time64NanosecondType, TimestampNanosecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_buffer::IntervalMonthDayNano;
use arrow_schema::{DataType, Field, Fields, Schema, TimeUnit};
use bolt::message::{MessageCodec, Record, Response};
use bolt::structs::{
    Date, DateTime, DateTimeZoneId, Duration, EncodeStruct, LegacyDateTime, LegacyDateTimeZoneId,
    LocalDateTime, LocalTime, Node, Path, Point2D, Point3D, Relationship, Time,
    UnboundRelationship, Vector,
};
use bolt::BoltVersion;
use bolt_arrow::{ArrowDecoder, Error, MAX_NESTING};
use packstream::{StructRef, ValueRef};

const V: BoltVersion = BoltVersion::V5_8;

/// The RECORD messages for `rows`.
fn messages(v: BoltVersion, rows: &[Vec<ValueRef<'_>>]) -> Vec<Vec<u8>> {
    rows.iter()
        .map(|r| {
            Response::Record(Record::new(r.clone()))
                .to_vec(v)
                .expect("encodable")
        })
        .collect()
}

fn decode_with(dec: &mut ArrowDecoder, rows: &[Vec<ValueRef<'_>>]) -> Result<RecordBatch, Error> {
    let msgs = messages(dec.version(), rows);
    let batch = MessageCodec::new(dec.version()).decode_records(&msgs);
    assert!(batch.error().is_none());
    dec.decode(batch.records())
}

/// One column named `x` holding `values`, in one batch.
fn column(v: BoltVersion, values: Vec<ValueRef<'_>>) -> RecordBatch {
    let rows: Vec<_> = values.into_iter().map(|x| vec![x]).collect();
    decode_with(&mut ArrowDecoder::new(v, ["x"]), &rows).expect("decodes")
}

fn st<T: EncodeStruct>(x: &T, v: BoltVersion) -> ValueRef<'_> {
    ValueRef::Struct(x.to_struct_ref(v).expect("valid structure"))
}

fn text(b: &RecordBatch) -> Vec<Option<String>> {
    assert_eq!(b.schema().field(0).data_type(), &DataType::Utf8);
    b.column(0)
        .as_string::<i32>()
        .iter()
        .map(|s| s.map(str::to_string))
        .collect()
}

#[test]
fn scalars_get_their_arrow_types() {
    let b = column(V, vec![ValueRef::Int(1), ValueRef::Int(-7)]);
    assert_eq!(b.column(0).as_primitive::<Int64Type>().values(), &[1, -7]);
    let b = column(V, vec![ValueRef::Float(0.5), ValueRef::Float(f64::NAN)]);
    let f = b.column(0).as_primitive::<Float64Type>();
    assert_eq!(f.value(0), 0.5);
    assert!(f.value(1).is_nan());
    let b = column(V, vec![ValueRef::Bool(true), ValueRef::Bool(false)]);
    let bools: Vec<_> = b.column(0).as_boolean().iter().collect();
    assert_eq!(bools, [Some(true), Some(false)]);
    let b = column(V, vec![ValueRef::String("héllo"), ValueRef::String("")]);
    assert_eq!(text(&b), [Some("héllo".into()), Some(String::new())]);
    let b = column(V, vec![ValueRef::Bytes(&[1, 2, 3])]);
    assert_eq!(b.schema().field(0).data_type(), &DataType::Binary);
    assert_eq!(b.column(0).as_binary::<i32>().value(0), &[1, 2, 3]);
    assert_eq!(b.schema().field(0).name(), "x");
    assert!(b.schema().field(0).is_nullable());
}

#[test]
fn an_all_null_column_has_the_null_type() {
    let b = column(V, vec![ValueRef::Null, ValueRef::Null]);
    assert_eq!(b.schema().field(0).data_type(), &DataType::Null);
    assert_eq!((b.num_rows(), b.column(0).len()), (2, 2));
}

#[test]
fn nulls_join_any_type() {
    let b = column(V, vec![ValueRef::Null, ValueRef::Int(3), ValueRef::Null]);
    let a = b.column(0).as_primitive::<Int64Type>();
    assert_eq!(a.iter().collect::<Vec<_>>(), [None, Some(3), None]);
    let b = column(V, vec![ValueRef::String("a"), ValueRef::Null]);
    assert_eq!(text(&b), [Some("a".into()), None]);
}

#[test]
fn integers_and_floats_together_become_float64() {
    let b = column(
        V,
        vec![ValueRef::Int(2), ValueRef::Float(0.25), ValueRef::Null],
    );
    assert_eq!(b.schema().field(0).data_type(), &DataType::Float64);
    let a = b.column(0).as_primitive::<Float64Type>();
    assert_eq!(a.iter().collect::<Vec<_>>(), [Some(2.0), Some(0.25), None]);
}

#[test]
fn mixed_columns_fall_back_to_canonical_text() {
    let date = Date::from_ymd(2024, 1, 31).unwrap();
    let b = column(
        V,
        vec![
            ValueRef::String("plain"),
            ValueRef::Int(1),
            ValueRef::List(vec![ValueRef::Int(1), ValueRef::String("a")]),
            st(&date, V),
            ValueRef::Null,
            ValueRef::Bool(true),
        ],
    );
    assert_eq!(
        text(&b),
        [
            Some("plain".into()),
            Some("1".into()),
            Some(r#"[1, "a"]"#.into()),
            Some(r#"date("2024-01-31")"#.into()),
            None,
            Some("true".into()),
        ]
    );
}

#[test]
fn lists_are_list_arrays_typed_by_all_their_items() {
    let b = column(
        V,
        vec![
            ValueRef::List(vec![ValueRef::Int(1), ValueRef::Int(2)]),
            ValueRef::List(vec![]),
            ValueRef::Null,
            ValueRef::List(vec![ValueRef::Float(1.5), ValueRef::Null]),
        ],
    );
    let DataType::List(item) = b.schema().field(0).data_type().clone() else {
        panic!("{:?}", b.schema())
    };
    assert_eq!(item.data_type(), &DataType::Float64);
    let l = b.column(0).as_list::<i32>();
    assert_eq!(l.value_offsets(), &[0, 2, 2, 2, 4]);
    assert!(l.is_null(2) && !l.is_null(1));
    let items = l.values().as_primitive::<Float64Type>();
    assert_eq!(
        items.iter().collect::<Vec<_>>(),
        [Some(1.0), Some(2.0), Some(1.5), None]
    );
    // only empty lists: List<Null>
    let b = column(V, vec![ValueRef::List(vec![])]);
    assert_eq!(
        b.schema().field(0).data_type(),
        &DataType::List(Arc::new(Field::new("item", DataType::Null, true)))
    );
    // mixed items: List<Utf8>
    let b = column(
        V,
        vec![ValueRef::List(vec![
            ValueRef::Int(1),
            ValueRef::String("x"),
        ])],
    );
    let l = b.column(0).as_list::<i32>();
    let items: Vec<_> = l.values().as_string::<i32>().iter().flatten().collect();
    assert_eq!(items, ["1", "x"]);
}

#[test]
fn maps_are_map_arrays_with_string_keys() {
    let b = column(
        V,
        vec![
            ValueRef::Map(vec![("a", ValueRef::Int(1)), ("b", ValueRef::Null)]),
            ValueRef::Map(vec![]),
            ValueRef::Null,
        ],
    );
    let m = b.column(0).as_map();
    assert_eq!(m.value_offsets(), &[0, 2, 2, 2]);
    assert!(m.is_null(2));
    let keys: Vec<_> = m.keys().as_string::<i32>().iter().flatten().collect();
    assert_eq!(keys, ["a", "b"]);
    let values = m.values().as_primitive::<Int64Type>();
    assert_eq!(values.iter().collect::<Vec<_>>(), [Some(1), None]);
}

fn node<'a>(id: i64, labels: Vec<&'a str>, props: Vec<(&'a str, ValueRef<'a>)>) -> Node<'a> {
    Node {
        id,
        labels,
        properties: props,
        element_id: Some("4:db:0"),
    }
}

#[test]
fn nodes_are_structs_with_ids_labels_and_properties() {
    let n = node(
        7,
        vec!["Person", "Employee"],
        vec![
            ("name", ValueRef::String("Alice")),
            ("age", ValueRef::Int(33)),
        ],
    );
    let b = column(V, vec![st(&n, V), ValueRef::Null]);
    let s = b.column(0).as_struct();
    let names: Vec<_> = s.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, bolt_arrow::NODE_FIELDS);
    assert!(s.is_null(1));
    assert_eq!(s.column(0).as_primitive::<Int64Type>().value(0), 7);
    assert_eq!(s.column(1).as_string::<i32>().value(0), "4:db:0");
    let labels = s.column(2).as_list::<i32>().value(0);
    let labels: Vec<_> = labels.as_string::<i32>().iter().flatten().collect();
    assert_eq!(labels, ["Person", "Employee"]);
    // properties of two types: map<utf8, utf8> of canonical text
    let props = s.column(3).as_map();
    let values: Vec<_> = props.values().as_string::<i32>().iter().flatten().collect();
    assert_eq!(values, ["Alice", "33"]);

    // Bolt 4.4 has no element ids: null
    let old = Node {
        element_id: None,
        ..n.clone()
    };
    let b = column(BoltVersion::V4_4, vec![st(&old, BoltVersion::V4_4)]);
    let s = b.column(0).as_struct();
    assert!(s.column(1).is_null(0));
    assert_eq!(s.column(0).as_primitive::<Int64Type>().value(0), 7);
}

#[test]
fn relationships_and_paths_are_structs_with_real_start_and_end() {
    let r = Relationship {
        id: 9,
        start_node_id: 1,
        end_node_id: 2,
        rel_type: "KNOWS",
        properties: vec![("since", ValueRef::Int(2020))],
        element_id: Some("5:db:9"),
        start_node_element_id: Some("4:db:1"),
        end_node_element_id: Some("4:db:2"),
    };
    let b = column(V, vec![st(&r, V)]);
    let s = b.column(0).as_struct();
    let names: Vec<_> = s.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, bolt_arrow::RELATIONSHIP_FIELDS);
    assert_eq!(s.column(2).as_primitive::<Int64Type>().value(0), 1);
    assert_eq!(s.column(5).as_string::<i32>().value(0), "4:db:2");
    assert_eq!(s.column(6).as_string::<i32>().value(0), "KNOWS");
    let props = s.column(7).as_map();
    assert_eq!(props.values().as_primitive::<Int64Type>().value(0), 2020);

    // (a)-[:R]->(b)<-[:S]-(c): the second hop goes against the relationship.
    let a = node(1, vec!["A"], vec![]);
    let bn = node(2, vec!["B"], vec![]);
    let c = node(3, vec!["C"], vec![("k", ValueRef::Int(1))]);
    let rel = |id, t| UnboundRelationship {
        id,
        rel_type: t,
        properties: vec![],
        element_id: Some("5:db:x"),
    };
    let p = Path::new(
        vec![a, bn, c],
        vec![rel(10, "R"), rel(11, "S")],
        vec![1, 1, -2, 2],
    )
    .unwrap();
    let b = column(V, vec![st(&p, V)]);
    let s = b.column(0).as_struct();
    let nodes = s.column(0).as_list::<i32>().value(0);
    let ids = nodes.as_struct().column(0).as_primitive::<Int64Type>();
    assert_eq!(ids.values(), &[1, 2, 3]);
    let rels = s.column(1).as_list::<i32>().value(0);
    let rels = rels.as_struct();
    let col = |i: usize| rels.column(i).as_primitive::<Int64Type>().values().to_vec();
    assert_eq!(col(0), [10, 11]);
    assert_eq!(
        col(2),
        [1, 3],
        "start ids, in the relationships' own direction"
    );
    assert_eq!(col(4), [2, 2], "end ids");
}

#[test]
fn temporal_values_get_arrow_temporal_types() {
    let date = Date::from_ymd(2024, 2, 29).unwrap();
    let b = column(V, vec![st(&date, V)]);
    assert_eq!(
        b.column(0).as_primitive::<Date32Type>().value(0) as i64,
        date.days
    );

    let lt = LocalTime::new(12, 34, 56, 789).unwrap();
    let b = column(V, vec![st(&lt, V)]);
    assert_eq!(
        b.schema().field(0).data_type(),
        &DataType::Time64(TimeUnit::Nanosecond)
    );
    assert_eq!(
        b.column(0).as_primitive::<Time64NanosecondType>().value(0) as u64,
        lt.nanoseconds
    );

    let t = Time {
        nanoseconds: lt.nanoseconds,
        tz_offset_seconds: 3600,
    };
    let b = column(V, vec![st(&t, V)]);
    let s = b.column(0).as_struct();
    assert_eq!(
        s.column(0).as_primitive::<Time64NanosecondType>().value(0) as u64,
        lt.nanoseconds
    );
    assert_eq!(s.column(1).as_primitive::<Int32Type>().value(0), 3600);

    let ldt = LocalDateTime::new(date, lt).unwrap();
    let b = column(V, vec![st(&ldt, V)]);
    assert_eq!(
        b.schema().field(0).data_type(),
        &DataType::Timestamp(TimeUnit::Nanosecond, None)
    );
    assert_eq!(
        b.column(0)
            .as_primitive::<TimestampNanosecondType>()
            .value(0),
        ldt.seconds * 1_000_000_000 + i64::from(ldt.nanoseconds)
    );

    let d = Duration {
        months: 14,
        days: 3,
        seconds: 4,
        nanoseconds: 5,
    };
    let b = column(V, vec![st(&d, V)]);
    assert_eq!(
        b.column(0)
            .as_primitive::<IntervalMonthDayNanoType>()
            .value(0),
        IntervalMonthDayNano::new(14, 3, 4_000_000_005)
    );
}

fn tz(b: &RecordBatch) -> Option<String> {
    match b.schema().field(0).data_type() {
        DataType::Timestamp(TimeUnit::Nanosecond, tz) => tz.as_deref().map(str::to_string),
        other => panic!("{other}"),
    }
}

#[test]
fn datetimes_are_utc_instants_with_the_columns_zone() {
    let dt = |seconds, off| DateTime {
        seconds,
        nanoseconds: 42,
        tz_offset_seconds: off,
    };
    let b = column(V, vec![st(&dt(100, 3600), V), st(&dt(200, 3600), V)]);
    assert_eq!(tz(&b).as_deref(), Some("+01:00"));
    let a = b.column(0).as_primitive::<TimestampNanosecondType>();
    assert_eq!(a.values(), &[100_000_000_042, 200_000_000_042]);

    let z = DateTimeZoneId {
        seconds: 100,
        nanoseconds: 0,
        tz_id: "Europe/Stockholm",
    };
    let b = column(V, vec![st(&z, V)]);
    assert_eq!(tz(&b).as_deref(), Some("Europe/Stockholm"));
    assert_eq!(
        b.column(0)
            .as_primitive::<TimestampNanosecondType>()
            .value(0),
        100_000_000_000
    );

    // two zones in one column: canonical text
    let b = column(V, vec![st(&dt(0, 3600), V), st(&dt(0, -18000), V)]);
    assert_eq!(
        text(&b),
        [
            Some(r#"datetime("1970-01-01T01:00:00.000000042+01:00")"#.into()),
            Some(r#"datetime("1969-12-31T19:00:00.000000042-05:00")"#.into()),
        ]
    );
}

#[test]
fn legacy_datetimes_of_bolt_4_4_become_the_same_instants() {
    let v = BoltVersion::V4_4;
    // local 02:15 at +01:00 is 01:15 UTC
    let l = LegacyDateTime {
        seconds: 8100,
        nanoseconds: 42,
        tz_offset_seconds: 3600,
    };
    let b = column(v, vec![st(&l, v)]);
    assert_eq!(tz(&b).as_deref(), Some("+01:00"));
    assert_eq!(
        b.column(0)
            .as_primitive::<TimestampNanosecondType>()
            .value(0),
        4500 * 1_000_000_000 + 42
    );
    // the zone-id form holds local time only: text
    let lz = LegacyDateTimeZoneId {
        seconds: 8100,
        nanoseconds: 0,
        tz_id: "Europe/Stockholm",
    };
    let b = column(v, vec![st(&lz, v)]);
    assert_eq!(
        text(&b),
        [Some(
            r#"datetime("1970-01-01T02:15:00[Europe/Stockholm]")"#.into()
        )]
    );
}

#[test]
fn values_outside_their_arrow_type_fall_back_to_text() {
    let far = Date::from_ymd(999_999_999, 12, 31).unwrap();
    let b = column(V, vec![st(&far, V)]);
    assert_eq!(text(&b), [Some(r#"date("+999999999-12-31")"#.into())]);
    let d = Duration {
        months: i64::from(i32::MAX) + 1,
        days: 0,
        seconds: 0,
        nanoseconds: 0,
    };
    let b = column(V, vec![st(&d, V)]);
    assert_eq!(b.schema().field(0).data_type(), &DataType::Utf8);
    let ldt = LocalDateTime {
        seconds: i64::MAX / 1_000_000_000 + 1,
        nanoseconds: 0,
    };
    let b = column(V, vec![st(&ldt, V)]);
    assert_eq!(b.schema().field(0).data_type(), &DataType::Utf8);
}

#[test]
fn points_are_structs_with_srid_and_a_null_z_in_2d() {
    let p2 = Point2D {
        srid: 7203,
        x: 1.0,
        y: 2.0,
    };
    let p3 = Point3D {
        srid: 9157,
        x: 1.0,
        y: 2.0,
        z: 3.0,
    };
    let b = column(V, vec![st(&p2, V), st(&p3, V)]);
    let s = b.column(0).as_struct();
    let names: Vec<_> = s.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, bolt_arrow::POINT_FIELDS);
    assert_eq!(
        s.column(0).as_primitive::<Int64Type>().values(),
        &[7203, 9157]
    );
    let z = s.column(3).as_primitive::<Float64Type>();
    assert_eq!(z.iter().collect::<Vec<_>>(), [None, Some(3.0)]);
}

#[test]
fn vectors_are_fixed_size_lists_of_their_element_type() {
    let v = BoltVersion::V6_0;
    let a = Vector::from_slice(&[1.0f32, 2.0, 3.0]);
    let b2 = Vector::from_slice(&[4.0f32, 5.0, 6.0]);
    let b = column(v, vec![st(&a, v), ValueRef::Null, st(&b2, v)]);
    assert_eq!(
        b.schema().field(0).data_type(),
        &DataType::FixedSizeList(Arc::new(Field::new("item", DataType::Float32, true)), 3)
    );
    let l = b.column(0).as_fixed_size_list();
    assert!(l.is_null(1));
    let items = l.values().as_primitive::<Float32Type>();
    assert_eq!(&items.values()[..3], &[1.0, 2.0, 3.0]);
    assert_eq!(&items.values()[6..], &[4.0, 5.0, 6.0]);

    // several dimensions: a list
    let short = Vector::from_slice(&[7i64]);
    let long = Vector::from_slice(&[8i64, 9]);
    let b = column(v, vec![st(&short, v), st(&long, v)]);
    let l = b.column(0).as_list::<i32>();
    assert_eq!(l.value_offsets(), &[0, 1, 3]);
    assert_eq!(l.values().as_primitive::<Int64Type>().values(), &[7, 8, 9]);

    // several element types: text
    let b = column(v, vec![st(&short, v), st(&a, v)]);
    assert_eq!(b.schema().field(0).data_type(), &DataType::Utf8);
}

#[test]
fn uuids_are_fixed_size_binary_16() {
    let u = [7u8; 16];
    let b = column(BoltVersion::V6_1, vec![ValueRef::Uuid(u), ValueRef::Null]);
    assert_eq!(
        b.schema().field(0).data_type(),
        &DataType::FixedSizeBinary(16)
    );
    let a = b.column(0).as_fixed_size_binary();
    assert_eq!(a.value(0), &u);
    assert!(a.is_null(1));
}

#[test]
fn unsupported_types_and_broken_structures_become_text() {
    let v = BoltVersion::V6_0;
    let u = ValueRef::Struct(StructRef {
        tag: 0x3F,
        fields: vec![
            ValueRef::String("UUID"),
            ValueRef::Int(6),
            ValueRef::Int(1),
            ValueRef::Map(vec![("message", ValueRef::String("needs 6.1"))]),
        ],
    });
    let b = column(v, vec![u]);
    assert_eq!(
        text(&b),
        [Some(
            r#"unsupported(UUID, minimum Bolt 6.1, {message: "needs 6.1"})"#.into()
        )]
    );
    // a Date with a string field is broken: text, never an error
    let broken = ValueRef::Struct(StructRef {
        tag: 0x44,
        fields: vec![ValueRef::String("x")],
    });
    let b = column(V, vec![broken]);
    assert!(text(&b)[0].as_deref().unwrap().starts_with("broken("));
}

fn nested(depth: usize) -> ValueRef<'static> {
    let mut v = ValueRef::Int(1);
    for _ in 0..depth {
        v = ValueRef::List(vec![v]);
    }
    v
}

#[test]
fn nesting_deeper_than_the_limit_becomes_text() {
    let ok = column(V, vec![nested(MAX_NESTING)]);
    let mut dt = ok.schema().field(0).data_type().clone();
    let mut levels = 0;
    while let DataType::List(f) = dt {
        dt = f.data_type().clone();
        levels += 1;
    }
    assert_eq!((levels, dt), (MAX_NESTING, DataType::Int64));
    let deep = column(V, vec![nested(MAX_NESTING + 1)]);
    let b = deep.column(0).as_list::<i32>();
    let mut inner = b.values().clone();
    for _ in 1..MAX_NESTING {
        inner = inner.as_list::<i32>().values().clone();
    }
    assert_eq!(inner.as_string::<i32>().value(0), "[1]");
}

#[test]
fn a_thousand_nested_lists_do_not_overflow_the_stack() {
    // Run on a small stack: the recursion is bounded by MAX_NESTING, not the input.
    test_support::on_stack(512 * 1024, || {
        let b = column(V, vec![nested(1000)]);
        assert_eq!(b.num_rows(), 1);
    });
}

#[test]
fn rows_and_columns_keep_their_order_and_names() {
    let rows = vec![
        vec![ValueRef::Int(1), ValueRef::String("a")],
        vec![ValueRef::Int(2), ValueRef::String("b")],
    ];
    let b = decode_with(&mut ArrowDecoder::new(V, ["n", "s"]), &rows).unwrap();
    assert_eq!((b.num_rows(), b.num_columns()), (2, 2));
    assert_eq!(b.schema().field(0).name(), "n");
    assert_eq!(b.schema().field(1).name(), "s");
    assert_eq!(b.column(0).as_primitive::<Int64Type>().values(), &[1, 2]);
    // no column at all (e.g. a write query): rows are still counted
    let b = decode_with(
        &mut ArrowDecoder::new(V, Vec::<String>::new()),
        &[vec![], vec![]],
    )
    .unwrap();
    assert_eq!((b.num_rows(), b.num_columns()), (2, 0));
}

#[test]
fn the_first_batch_with_rows_fixes_the_schema() {
    let mut dec = ArrowDecoder::new(V, ["x"]);
    // an empty batch fixes nothing
    let empty = decode_with(&mut dec, &[]).unwrap();
    assert_eq!(empty.num_rows(), 0);
    assert!(dec.schema().is_none());
    decode_with(&mut dec, &[vec![ValueRef::Float(1.5)]]).unwrap();
    // an integer goes into the Float64 column
    let b = decode_with(&mut dec, &[vec![ValueRef::Int(2)], vec![ValueRef::Null]]).unwrap();
    assert_eq!(b.schema().field(0).data_type(), &DataType::Float64);
    assert_eq!(b.column(0).as_primitive::<Float64Type>().value(0), 2.0);
}

#[test]
fn a_column_that_changes_type_after_the_first_batch_fails_that_batch_only() {
    let mut dec = ArrowDecoder::new(V, ["a", "b"]);
    decode_with(&mut dec, &[vec![ValueRef::Int(1), ValueRef::Null]]).unwrap();
    let before = dec.schema().unwrap();
    let err = decode_with(
        &mut dec,
        &[
            vec![ValueRef::Int(2), ValueRef::Null],
            vec![ValueRef::Float(2.5), ValueRef::Null],
        ],
    )
    .unwrap_err();
    match &err {
        Error::TypeChanged {
            record,
            column,
            offset,
            expected,
            found,
            ..
        } => {
            assert_eq!((*record, column.as_str()), (1, "a"));
            assert_eq!(*offset, 3, "B1 71 92 | C1…: the float's marker");
            assert_eq!((expected, *found), (&DataType::Int64, "float"));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!((err.offset(), err.kind()), (Some(3), "type_changed"));
    assert!(err.to_string().contains("column `a`"), "{err}");
    assert_eq!(dec.schema().unwrap(), before, "the schema is unchanged");
    // a column that was all null takes no value later
    let err = decode_with(
        &mut dec,
        &[vec![ValueRef::Int(1), ValueRef::String("late")]],
    )
    .unwrap_err();
    assert!(
        matches!(&err, Error::TypeChanged { column, offset: 4, .. } if column == "b"),
        "{err:?}"
    );
    // and the decoder goes on with batches that fit
    let b = decode_with(&mut dec, &[vec![ValueRef::Int(5), ValueRef::Null]]).unwrap();
    assert_eq!(b.column(0).as_primitive::<Int64Type>().value(0), 5);
    // text columns take anything
    let mut dec = ArrowDecoder::new(V, ["s"]);
    decode_with(&mut dec, &[vec![ValueRef::String("a")]]).unwrap();
    let b = decode_with(&mut dec, &[vec![ValueRef::Int(3)]]).unwrap();
    assert_eq!(text(&b), [Some("3".into())]);
}

#[test]
fn datetimes_in_another_zone_do_not_fit_a_later_batch_but_utc_takes_all() {
    let dt = |off| DateTime {
        seconds: 0,
        nanoseconds: 0,
        tz_offset_seconds: off,
    };
    let mut dec = ArrowDecoder::new(V, ["t"]);
    decode_with(&mut dec, &[vec![st(&dt(3600), V)]]).unwrap();
    let err = decode_with(&mut dec, &[vec![st(&dt(7200), V)]]).unwrap_err();
    assert!(
        matches!(
            err,
            Error::TypeChanged {
                found: "DateTime (in another time zone)",
                ..
            }
        ),
        "{err:?}"
    );
    let schema = Arc::new(Schema::new(vec![Field::new(
        "t",
        DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into())),
        true,
    )]));
    let mut dec = ArrowDecoder::new(V, ["t"]).with_schema(schema).unwrap();
    let b = decode_with(&mut dec, &[vec![st(&dt(3600), V)], vec![st(&dt(-3600), V)]]).unwrap();
    assert_eq!(
        b.column(0)
            .as_primitive::<TimestampNanosecondType>()
            .values(),
        &[0, 0]
    );
}

#[test]
fn a_given_schema_is_used_from_the_first_batch() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("n", DataType::Float64, true),
        Field::new(
            "m",
            DataType::Struct(Fields::from(vec![
                Field::new("name", DataType::Utf8, true),
                Field::new("age", DataType::Int64, true),
            ])),
            true,
        ),
    ]));
    let mut dec = ArrowDecoder::new(V, ["n", "m"])
        .with_schema(schema.clone())
        .unwrap();
    assert_eq!(dec.schema(), Some(schema.clone()));
    let b = decode_with(
        &mut dec,
        &[
            vec![
                ValueRef::Int(1),
                ValueRef::Map(vec![
                    ("age", ValueRef::Int(3)),
                    ("name", ValueRef::String("x")),
                ]),
            ],
            vec![ValueRef::Null, ValueRef::Map(vec![])],
        ],
    )
    .unwrap();
    assert_eq!(b.schema(), schema);
    let s = b.column(1).as_struct();
    assert_eq!(s.column(0).as_string::<i32>().value(0), "x");
    assert_eq!(s.column(1).as_primitive::<Int64Type>().value(0), 3);
    assert!(s.column(1).is_null(1));

    // wrong field count, unsupported type
    let one = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
    assert!(matches!(
        ArrowDecoder::new(V, ["a", "b"]).with_schema(one),
        Err(Error::Schema(_))
    ));
    let odd = Arc::new(Schema::new(vec![Field::new("n", DataType::UInt8, true)]));
    let err = ArrowDecoder::new(V, ["n"]).with_schema(odd).unwrap_err();
    assert_eq!(
        err.to_string(),
        "schema: column `n`: unsupported type UInt8"
    );
}

#[test]
fn records_built_from_values_take_the_same_rules() {
    // Records made with Record::new (a test peer, a server) have no bytes to decode.
    let records = [
        Record::new(vec![ValueRef::Int(1), ValueRef::String("a")]),
        Record::new(vec![ValueRef::Float(0.5), ValueRef::Null]),
    ];
    let b = ArrowDecoder::new(V, ["n", "s"]).decode(&records).unwrap();
    assert_eq!(b.schema().field(0).data_type(), &DataType::Float64);
    assert_eq!(
        b.column(0).as_primitive::<Float64Type>().values(),
        &[1.0, 0.5]
    );
    let s: Vec<_> = b.column(1).as_string::<i32>().iter().collect();
    assert_eq!(s, [Some("a"), None]);
    let wrong = [Record::new(vec![ValueRef::Int(1)])];
    let err = ArrowDecoder::new(V, ["n", "s"]).decode(&wrong).unwrap_err();
    assert!(
        matches!(
            err,
            Error::FieldCount {
                found: 1,
                expected: 2,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.offset(), None);
    assert_eq!(err.kind(), "field_count");
}

#[test]
fn a_null_in_a_field_a_given_schema_declares_non_nullable_is_an_arrow_error() {
    let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
    let mut dec = ArrowDecoder::new(V, ["n"]).with_schema(schema).unwrap();
    let b = decode_with(&mut dec, &[vec![ValueRef::Int(1)]]).unwrap();
    assert_eq!(b.num_rows(), 1);
    let err = decode_with(&mut dec, &[vec![ValueRef::Null]]).unwrap_err();
    assert!(matches!(err, Error::Arrow(_)), "{err:?}");
    assert_eq!(err.kind(), "arrow");
}
