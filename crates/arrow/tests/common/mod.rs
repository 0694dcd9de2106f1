//! Shared by the capture and server tests: checks Arrow cells value by value against
//! the core's own `ValueRef` decoding, under the crate's documented mapping.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    IntervalMonthDayNanoType, Time64NanosecondType, TimestampNanosecondType,
};
use arrow_array::{Array, ArrayRef, MapArray, RecordBatch, StructArray};
use arrow_schema::DataType;
use bolt::structs::{BoltStruct, DisplayValue, Node, Relationship, VectorElements};
use bolt::BoltVersion;
use packstream::ValueRef;

struct Checker {
    version: BoltVersion,
    checked: usize,
}

impl Checker {
    fn text(&self, v: &ValueRef<'_>) -> String {
        match v {
            ValueRef::String(s) => (*s).to_string(),
            other => DisplayValue::new(other)
                .with_version(self.version)
                .to_string(),
        }
    }

    /// Asserts that cell `row` of `a` holds `v` under the crate's mapping.
    fn value(&mut self, a: &ArrayRef, row: usize, v: &ValueRef<'_>, at: &str) {
        self.checked += 1;
        if matches!(v, ValueRef::Null) {
            // A Null-typed array has no validity buffer: ask for its logical nulls.
            let null = a.logical_nulls().is_some_and(|n| n.is_null(row));
            assert!(null, "{at}: expected null");
            return;
        }
        assert!(!a.is_null(row), "{at}: unexpected null for {v:?}");
        match (a.data_type(), v) {
            (DataType::Utf8, v) => {
                assert_eq!(a.as_string::<i32>().value(row), self.text(v), "{at}")
            }
            (DataType::Int64, ValueRef::Int(i)) => {
                assert_eq!(a.as_primitive::<Int64Type>().value(row), *i, "{at}")
            }
            (DataType::Float64, ValueRef::Float(f)) => assert_eq!(
                a.as_primitive::<Float64Type>().value(row).to_bits(),
                f.to_bits(),
                "{at}"
            ),
            (DataType::Float64, ValueRef::Int(i)) => {
                assert_eq!(
                    a.as_primitive::<Float64Type>().value(row),
                    *i as f64,
                    "{at}"
                )
            }
            (DataType::Boolean, ValueRef::Bool(b)) => {
                assert_eq!(a.as_boolean().value(row), *b, "{at}")
            }
            (DataType::Binary, ValueRef::Bytes(b)) => {
                assert_eq!(a.as_binary::<i32>().value(row), *b, "{at}")
            }
            (DataType::FixedSizeBinary(16), ValueRef::Uuid(u)) => {
                assert_eq!(a.as_fixed_size_binary().value(row), u, "{at}")
            }
            (DataType::List(_), ValueRef::List(items)) => {
                let inner = a.as_list::<i32>().value(row);
                assert_eq!(inner.len(), items.len(), "{at}");
                for (i, item) in items.iter().enumerate() {
                    self.value(&inner, i, item, &format!("{at}[{i}]"));
                }
            }
            (DataType::Map(..), ValueRef::Map(entries)) => {
                self.entries(a.as_map(), row, entries, at)
            }
            (_, ValueRef::Struct(s)) => {
                let s = BoltStruct::from_struct(s, self.version);
                self.structure(a, row, &s, at);
            }
            (dt, v) => panic!("{at}: {v:?} in a {dt} column"),
        }
    }

    fn entries(&mut self, m: &MapArray, row: usize, entries: &[(&str, ValueRef<'_>)], at: &str) {
        let range = m.value_offsets()[row] as usize..m.value_offsets()[row + 1] as usize;
        assert_eq!(range.len(), entries.len(), "{at}");
        let keys = m.keys().as_string::<i32>();
        for (i, (k, v)) in range.zip(entries) {
            assert_eq!(keys.value(i), *k, "{at}");
            self.value(m.values(), i, v, &format!("{at}.{k}"));
        }
    }

    fn node(&mut self, s: &StructArray, row: usize, n: &Node<'_>, at: &str) {
        assert_eq!(
            s.column(0).as_primitive::<Int64Type>().value(row),
            n.id,
            "{at}"
        );
        self.opt_str(s.column(1), row, n.element_id, at);
        let labels = s.column(2).as_list::<i32>().value(row);
        let labels: Vec<_> = labels.as_string::<i32>().iter().flatten().collect();
        assert_eq!(labels, n.labels, "{at}");
        self.entries(s.column(3).as_map(), row, &n.properties, at);
    }

    fn rel(&mut self, s: &StructArray, row: usize, r: &Relationship<'_>, at: &str) {
        let int = |i: usize| s.column(i).as_primitive::<Int64Type>().value(row);
        assert_eq!(
            (int(0), int(2), int(4)),
            (r.id, r.start_node_id, r.end_node_id),
            "{at}"
        );
        self.opt_str(s.column(1), row, r.element_id, at);
        self.opt_str(s.column(3), row, r.start_node_element_id, at);
        self.opt_str(s.column(5), row, r.end_node_element_id, at);
        assert_eq!(
            s.column(6).as_string::<i32>().value(row),
            r.rel_type,
            "{at}"
        );
        self.entries(s.column(7).as_map(), row, &r.properties, at);
    }

    fn opt_str(&mut self, a: &ArrayRef, row: usize, s: Option<&str>, at: &str) {
        match s {
            Some(s) => assert_eq!(a.as_string::<i32>().value(row), s, "{at}"),
            None => assert!(a.is_null(row), "{at}"),
        }
    }

    fn structure(&mut self, a: &ArrayRef, row: usize, s: &BoltStruct<'_>, at: &str) {
        let nanos = |seconds: i64, n: u32| seconds * 1_000_000_000 + i64::from(n);
        match (a.data_type(), s) {
            (DataType::Struct(_), BoltStruct::Node(n)) => self.node(a.as_struct(), row, n, at),
            (DataType::Struct(_), BoltStruct::Relationship(r)) => {
                self.rel(a.as_struct(), row, r, at)
            }
            (DataType::Struct(_), BoltStruct::Path(p)) => {
                let st = a.as_struct();
                let nodes = st.column(0).as_list::<i32>().value(row);
                assert_eq!(nodes.len(), p.nodes().len(), "{at}");
                for (i, n) in p.nodes().iter().enumerate() {
                    self.node(nodes.as_struct(), i, n, &format!("{at}.nodes[{i}]"));
                }
                let rels = st.column(1).as_list::<i32>().value(row);
                assert_eq!(rels.len(), p.len(), "{at}");
                for (i, seg) in p.segments().enumerate() {
                    let r = seg.to_relationship();
                    self.rel(rels.as_struct(), i, &r, &format!("{at}.relationships[{i}]"));
                }
            }
            (DataType::Struct(_), BoltStruct::Point2D(p)) => {
                let st = a.as_struct();
                assert_eq!(st.column(0).as_primitive::<Int64Type>().value(row), p.srid);
                assert_eq!(st.column(1).as_primitive::<Float64Type>().value(row), p.x);
                assert_eq!(st.column(2).as_primitive::<Float64Type>().value(row), p.y);
                assert!(st.column(3).is_null(row), "{at}");
            }
            (DataType::Struct(_), BoltStruct::Point3D(p)) => {
                let st = a.as_struct();
                assert_eq!(st.column(0).as_primitive::<Int64Type>().value(row), p.srid);
                assert_eq!(st.column(3).as_primitive::<Float64Type>().value(row), p.z);
            }
            (DataType::Struct(_), BoltStruct::Time(t)) => {
                let st = a.as_struct();
                let ns = st
                    .column(0)
                    .as_primitive::<Time64NanosecondType>()
                    .value(row);
                assert_eq!(ns as u64, t.nanoseconds, "{at}");
                let off = st.column(1).as_primitive::<Int32Type>().value(row);
                assert_eq!(i64::from(off), t.tz_offset_seconds, "{at}");
            }
            (DataType::Date32, BoltStruct::Date(d)) => {
                assert_eq!(i64::from(a.as_primitive::<Date32Type>().value(row)), d.days)
            }
            (DataType::Time64(_), BoltStruct::LocalTime(t)) => assert_eq!(
                a.as_primitive::<Time64NanosecondType>().value(row) as u64,
                t.nanoseconds
            ),
            (DataType::Timestamp(_, tz), s) => {
                let got = a.as_primitive::<TimestampNanosecondType>().value(row);
                let (want, zone) = match s {
                    BoltStruct::LocalDateTime(t) => (nanos(t.seconds, t.nanoseconds), None),
                    BoltStruct::DateTime(t) => (
                        nanos(t.seconds, t.nanoseconds),
                        Some(offset(t.tz_offset_seconds)),
                    ),
                    BoltStruct::DateTimeZoneId(t) => {
                        (nanos(t.seconds, t.nanoseconds), Some(t.tz_id.to_string()))
                    }
                    BoltStruct::LegacyDateTime(t) => {
                        let u = t.to_utc().expect("in range");
                        (
                            nanos(u.seconds, u.nanoseconds),
                            Some(offset(u.tz_offset_seconds)),
                        )
                    }
                    other => panic!("{at}: {other:?} in a timestamp column"),
                };
                assert_eq!(got, want, "{at}");
                assert_eq!(tz.as_deref(), zone.as_deref(), "{at}");
            }
            (DataType::Interval(_), BoltStruct::Duration(d)) => {
                let i = a.as_primitive::<IntervalMonthDayNanoType>().value(row);
                assert_eq!(
                    (
                        i64::from(i.months),
                        i64::from(i.days),
                        i128::from(i.nanoseconds)
                    ),
                    (d.months, d.days, d.total_nanoseconds()),
                    "{at}"
                );
            }
            (DataType::FixedSizeList(..) | DataType::List(_), BoltStruct::Vector(v)) => {
                let inner = match a.data_type() {
                    DataType::List(_) => a.as_list::<i32>().value(row),
                    _ => a.as_fixed_size_list().value(row),
                };
                match v.elements() {
                    VectorElements::I8(e) => {
                        assert_eq!(inner.as_primitive::<Int8Type>().values(), &e[..])
                    }
                    VectorElements::I16(e) => {
                        assert_eq!(inner.as_primitive::<Int16Type>().values(), &e[..])
                    }
                    VectorElements::I32(e) => {
                        assert_eq!(inner.as_primitive::<Int32Type>().values(), &e[..])
                    }
                    VectorElements::I64(e) => {
                        assert_eq!(inner.as_primitive::<Int64Type>().values(), &e[..])
                    }
                    VectorElements::F32(e) => {
                        let got: Vec<u32> = inner
                            .as_primitive::<Float32Type>()
                            .values()
                            .iter()
                            .map(|f| f.to_bits())
                            .collect();
                        let want: Vec<u32> = e.iter().map(|f| f.to_bits()).collect();
                        assert_eq!(got, want, "{at}");
                    }
                    VectorElements::F64(e) => {
                        let got: Vec<u64> = inner
                            .as_primitive::<Float64Type>()
                            .values()
                            .iter()
                            .map(|f| f.to_bits())
                            .collect();
                        let want: Vec<u64> = e.iter().map(|f| f.to_bits()).collect();
                        assert_eq!(got, want, "{at}");
                    }
                }
            }
            (dt, s) => panic!("{at}: {s:?} in a {dt} column"),
        }
    }
}

fn offset(seconds: i64) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let m = seconds.unsigned_abs() / 60;
    format!("{sign}{:02}:{:02}", m / 60, m % 60)
}

/// Checks `batch` against the records' own decoding; returns the values checked.
pub(crate) fn check_batch(
    version: BoltVersion,
    batch: &RecordBatch,
    rows: &[Vec<ValueRef<'_>>],
    at: &str,
) -> usize {
    let mut c = Checker {
        version,
        checked: 0,
    };
    assert_eq!(batch.num_rows(), rows.len(), "{at}");
    for (j, column) in batch.columns().iter().enumerate() {
        let name = batch.schema().field(j).name().clone();
        for (i, row) in rows.iter().enumerate() {
            c.value(column, i, &row[j], &format!("{at} row {i} `{name}`"));
        }
    }
    c.checked
}
