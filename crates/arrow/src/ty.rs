//! Type inference: the Arrow type a column gets from the values seen (the rules are in
//! the crate documentation, "Types").

use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, IntervalUnit, TimeUnit};
use bolt::structs::{BoltStruct, VectorType};
use bolt::BoltVersion;
use packstream::ValueRef;

/// Values nested deeper than this (lists in lists, maps in maps, …) make their column
/// canonical text: the Arrow type stays bounded, and so does the recursion that infers
/// and builds it.
pub const MAX_NESTING: usize = 32;

/// The zone of a DateTime column: one fixed offset, or one zone id.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Zone<'a> {
    /// Seconds east of UTC (a whole number of minutes).
    Offset(i64),
    /// An IANA zone id.
    Id(&'a str),
}

/// The inferred type of a column or of the items inside one.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty<'a> {
    Null,
    Bool,
    Int,
    Float,
    Str,
    Bytes,
    Uuid,
    Date,
    LocalTime,
    Time,
    LocalDateTime,
    DateTime(Zone<'a>),
    Duration,
    Point,
    /// Element type and, when every vector has the same one, the dimension.
    Vector(VectorType, Option<i32>),
    List(Box<Ty<'a>>),
    Map(Box<Ty<'a>>),
    /// A node; the type of its property values.
    Node(Box<Ty<'a>>),
    /// A relationship; the type of its property values.
    Rel(Box<Ty<'a>>),
    /// A path; the property value types of its nodes and of its relationships.
    Path(Box<Ty<'a>>, Box<Ty<'a>>),
    /// The canonical text fallback.
    Text,
}

/// The least type holding both: null joins anything, integers join floats as floats,
/// containers and graph values join item-wise, everything else falls back to text.
pub(crate) fn unify<'a>(a: Ty<'a>, b: Ty<'a>) -> Ty<'a> {
    use Ty as T;
    if a == b {
        return a;
    }
    match (a, b) {
        (T::Null, x) | (x, T::Null) => x,
        (T::Int, T::Float) | (T::Float, T::Int) => T::Float,
        (T::List(x), T::List(y)) => T::List(Box::new(unify(*x, *y))),
        (T::Map(x), T::Map(y)) => T::Map(Box::new(unify(*x, *y))),
        (T::Node(x), T::Node(y)) => T::Node(Box::new(unify(*x, *y))),
        (T::Rel(x), T::Rel(y)) => T::Rel(Box::new(unify(*x, *y))),
        (T::Path(n1, r1), T::Path(n2, r2)) => {
            T::Path(Box::new(unify(*n1, *n2)), Box::new(unify(*r1, *r2)))
        }
        (T::Vector(t1, _), T::Vector(t2, _)) if t1 == t2 => T::Vector(t1, None),
        _ => T::Text,
    }
}

/// Folds [`unify`] over the inferred types of `values`.
pub(crate) fn infer_all<'v, 'a: 'v>(
    values: impl IntoIterator<Item = &'v ValueRef<'a>>,
    version: BoltVersion,
    depth: usize,
) -> Ty<'a> {
    let mut ty = Ty::Null;
    for v in values {
        // Text absorbs everything: stop looking.
        if ty == Ty::Text {
            break;
        }
        let t = infer(v, version, depth);
        ty = unify(ty, t);
    }
    ty
}

fn props<'a>(p: &[(&'a str, ValueRef<'a>)], version: BoltVersion, depth: usize) -> Ty<'a> {
    infer_all(p.iter().map(|(_, v)| v), version, depth + 1)
}

/// The type of one value; `depth` is how deep it sits inside the column's values.
pub(crate) fn infer<'a>(v: &ValueRef<'a>, version: BoltVersion, depth: usize) -> Ty<'a> {
    match v {
        ValueRef::Null => Ty::Null,
        ValueRef::Bool(_) => Ty::Bool,
        ValueRef::Int(_) => Ty::Int,
        ValueRef::Float(_) => Ty::Float,
        ValueRef::String(_) => Ty::Str,
        ValueRef::Bytes(_) => Ty::Bytes,
        ValueRef::Uuid(_) => Ty::Uuid,
        _ if depth >= MAX_NESTING => Ty::Text,
        ValueRef::List(items) => Ty::List(Box::new(infer_all(items, version, depth + 1))),
        ValueRef::Map(entries) => Ty::Map(Box::new(infer_all(
            entries.iter().map(|(_, v)| v),
            version,
            depth + 1,
        ))),
        ValueRef::Struct(s) => infer_struct(&BoltStruct::from_struct(s, version), version, depth),
    }
}

fn infer_struct<'a>(s: &BoltStruct<'a>, version: BoltVersion, depth: usize) -> Ty<'a> {
    match s {
        BoltStruct::Node(n) => Ty::Node(Box::new(props(&n.properties, version, depth))),
        BoltStruct::Relationship(r) => Ty::Rel(Box::new(props(&r.properties, version, depth))),
        BoltStruct::UnboundRelationship(r) => {
            Ty::Rel(Box::new(props(&r.properties, version, depth)))
        }
        BoltStruct::Path(p) => {
            let mut nodes = Ty::Null;
            for n in p.nodes() {
                nodes = unify(nodes, props(&n.properties, version, depth + 1));
            }
            let mut rels = Ty::Null;
            for r in p.relationships() {
                rels = unify(rels, props(&r.properties, version, depth + 1));
            }
            Ty::Path(Box::new(nodes), Box::new(rels))
        }
        BoltStruct::Date(d) if i32::try_from(d.days).is_ok() => Ty::Date,
        BoltStruct::LocalTime(_) => Ty::LocalTime,
        BoltStruct::Time(t) if i32::try_from(t.tz_offset_seconds).is_ok() => Ty::Time,
        BoltStruct::LocalDateTime(t)
            if crate::convert::nanos(t.seconds, t.nanoseconds).is_some() =>
        {
            Ty::LocalDateTime
        }
        BoltStruct::DateTime(t)
            if crate::convert::nanos(t.seconds, t.nanoseconds).is_some()
                && t.tz_offset_seconds % 60 == 0
                && t.tz_offset_seconds.abs() < 24 * 3600 =>
        {
            Ty::DateTime(Zone::Offset(t.tz_offset_seconds))
        }
        BoltStruct::DateTimeZoneId(t)
            if crate::convert::nanos(t.seconds, t.nanoseconds).is_some() =>
        {
            Ty::DateTime(Zone::Id(t.tz_id))
        }
        BoltStruct::LegacyDateTime(t) => match t.to_utc() {
            Some(u)
                if crate::convert::nanos(u.seconds, u.nanoseconds).is_some()
                    && u.tz_offset_seconds % 60 == 0
                    && u.tz_offset_seconds.abs() < 24 * 3600 =>
            {
                Ty::DateTime(Zone::Offset(u.tz_offset_seconds))
            }
            _ => Ty::Text,
        },
        BoltStruct::Duration(d) if crate::convert::interval(d).is_some() => Ty::Duration,
        BoltStruct::Point2D(_) | BoltStruct::Point3D(_) => Ty::Point,
        BoltStruct::Vector(v) => Ty::Vector(v.element_type(), i32::try_from(v.len()).ok()),
        // Zone-id DateTimes of the legacy form carry local time only: converting them to
        // an instant needs a zone database, which this crate does not have.
        _ => Ty::Text,
    }
}

fn item(dt: DataType) -> Arc<Field> {
    Arc::new(Field::new("item", dt, true))
}

/// The Arrow type of a map of string keys to values of `value`.
pub(crate) fn map_type(value: DataType) -> DataType {
    let entries = Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![
            Field::new("key", DataType::Utf8, false),
            Field::new("value", value, true),
        ])),
        false,
    );
    DataType::Map(Arc::new(entries), false)
}

fn nullable(name: &str, dt: DataType) -> Field {
    Field::new(name, dt, true)
}

/// The node struct type for property values of type `props`.
pub(crate) fn node_type(props: DataType) -> DataType {
    DataType::Struct(Fields::from(vec![
        nullable(crate::NODE_FIELDS[0], DataType::Int64),
        nullable(crate::NODE_FIELDS[1], DataType::Utf8),
        nullable(crate::NODE_FIELDS[2], DataType::List(item(DataType::Utf8))),
        nullable(crate::NODE_FIELDS[3], map_type(props)),
    ]))
}

/// The relationship struct type for property values of type `props`.
pub(crate) fn rel_type(props: DataType) -> DataType {
    let f = crate::RELATIONSHIP_FIELDS;
    DataType::Struct(Fields::from(vec![
        nullable(f[0], DataType::Int64),
        nullable(f[1], DataType::Utf8),
        nullable(f[2], DataType::Int64),
        nullable(f[3], DataType::Utf8),
        nullable(f[4], DataType::Int64),
        nullable(f[5], DataType::Utf8),
        nullable(f[6], DataType::Utf8),
        nullable(f[7], map_type(props)),
    ]))
}

/// The Arrow type for an inferred type.
pub(crate) fn to_arrow(ty: &Ty<'_>) -> DataType {
    match ty {
        Ty::Null => DataType::Null,
        Ty::Bool => DataType::Boolean,
        Ty::Int => DataType::Int64,
        Ty::Float => DataType::Float64,
        Ty::Str | Ty::Text => DataType::Utf8,
        Ty::Bytes => DataType::Binary,
        Ty::Uuid => DataType::FixedSizeBinary(16),
        Ty::Date => DataType::Date32,
        Ty::LocalTime => DataType::Time64(TimeUnit::Nanosecond),
        Ty::Time => DataType::Struct(Fields::from(vec![
            nullable(
                crate::TIME_FIELDS[0],
                DataType::Time64(TimeUnit::Nanosecond),
            ),
            nullable(crate::TIME_FIELDS[1], DataType::Int32),
        ])),
        Ty::LocalDateTime => DataType::Timestamp(TimeUnit::Nanosecond, None),
        Ty::DateTime(zone) => {
            let tz = match zone {
                Zone::Offset(s) => crate::convert::offset_string(*s),
                Zone::Id(id) => (*id).to_string(),
            };
            DataType::Timestamp(TimeUnit::Nanosecond, Some(tz.into()))
        }
        Ty::Duration => DataType::Interval(IntervalUnit::MonthDayNano),
        Ty::Point => DataType::Struct(Fields::from(vec![
            nullable(crate::POINT_FIELDS[0], DataType::Int64),
            nullable(crate::POINT_FIELDS[1], DataType::Float64),
            nullable(crate::POINT_FIELDS[2], DataType::Float64),
            nullable(crate::POINT_FIELDS[3], DataType::Float64),
        ])),
        Ty::Vector(t, dim) => {
            let elem = vector_element(*t);
            match dim {
                Some(n) => DataType::FixedSizeList(item(elem), *n),
                None => DataType::List(item(elem)),
            }
        }
        Ty::List(t) => DataType::List(item(to_arrow(t))),
        Ty::Map(t) => map_type(to_arrow(t)),
        Ty::Node(p) => node_type(to_arrow(p)),
        Ty::Rel(p) => rel_type(to_arrow(p)),
        Ty::Path(n, r) => DataType::Struct(Fields::from(vec![
            nullable(
                crate::PATH_FIELDS[0],
                DataType::List(item(node_type(to_arrow(n)))),
            ),
            nullable(
                crate::PATH_FIELDS[1],
                DataType::List(item(rel_type(to_arrow(r)))),
            ),
        ])),
    }
}

/// The Arrow element type of a vector element type.
pub(crate) fn vector_element(t: VectorType) -> DataType {
    match t {
        VectorType::I8 => DataType::Int8,
        VectorType::I16 => DataType::Int16,
        VectorType::I32 => DataType::Int32,
        VectorType::I64 => DataType::Int64,
        VectorType::F32 => DataType::Float32,
        VectorType::F64 => DataType::Float64,
    }
}
