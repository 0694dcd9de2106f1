//! Column builders: a tree of Arrow builders made from a [`DataType`], filled value by
//! value, and finished into an array. Each batch gets fresh builders, so a batch that
//! fails leaves nothing behind.

use std::fmt::Write as _;
use std::sync::Arc;

use arrow_array::builder::{
    ArrayBuilder, BinaryBuilder, BooleanBuilder, Date32Builder, FixedSizeBinaryBuilder,
    Float32Builder, Float64Builder, Int16Builder, Int32Builder, Int64Builder, Int8Builder,
    IntervalMonthDayNanoBuilder, StringBuilder, Time64NanosecondBuilder,
    TimestampNanosecondBuilder,
};
use arrow_array::{ArrayRef, FixedSizeListArray, ListArray, MapArray, NullArray, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef, Fields, IntervalUnit, TimeUnit};
use bolt::structs::{
    BoltStruct, DisplayValue, Node, Relationship, UnboundRelationship, Vector, VectorType,
};
use bolt::BoltVersion;
use packstream::ValueRef;

use crate::convert;

/// Why a value could not be appended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AppendError {
    /// The value's type (named) does not convert to the column's type.
    Mismatch(&'static str),
    /// An `i32` offset of the batch would overflow (more than 2 GiB of strings or
    /// bytes, or 2^31 items, in one batch).
    TooLarge,
}

type Res = Result<(), AppendError>;

/// What a struct-typed column holds, told by its field names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Time,
    Point,
    Node,
    Relationship,
    Path,
    /// Any other field names: filled from maps, by key.
    ByKey,
}

fn role_of(fields: &Fields) -> Role {
    let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
    if names == crate::TIME_FIELDS {
        Role::Time
    } else if names == crate::POINT_FIELDS {
        Role::Point
    } else if names == crate::NODE_FIELDS {
        Role::Node
    } else if names == crate::RELATIONSHIP_FIELDS {
        Role::Relationship
    } else if names == crate::PATH_FIELDS {
        Role::Path
    } else {
        Role::ByKey
    }
}

/// How a timestamp column takes DateTimes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Zone {
    /// No zone: LocalDateTime only.
    Local,
    /// UTC (`UTC`, `+00:00`, `Z`…): any DateTime, as its instant.
    Utc,
    /// DateTimes with exactly this zone: a fixed offset in seconds…
    Offset(i64),
    /// … or a zone id.
    Id(Arc<str>),
}

fn zone_of(tz: Option<&Arc<str>>) -> Zone {
    let Some(tz) = tz else { return Zone::Local };
    if matches!(&**tz, "UTC" | "Z" | "+00:00" | "Etc/UTC") {
        return Zone::Utc;
    }
    if let Some(seconds) = parse_offset(tz) {
        return Zone::Offset(seconds);
    }
    Zone::Id(tz.clone())
}

/// `+HH:MM` or `-HH:MM` in seconds.
fn parse_offset(tz: &str) -> Option<i64> {
    let b = tz.as_bytes();
    if b.len() != 6 || b[3] != b':' {
        return None;
    }
    let sign = match b[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let h: i64 = tz.get(1..3)?.parse().ok()?;
    let m: i64 = tz.get(4..6)?.parse().ok()?;
    Some(sign * (h * 3600 + m * 60))
}

/// A builder for one Arrow type.
pub(crate) enum Builder {
    Null(usize),
    Bool(BooleanBuilder),
    I8(Int8Builder),
    I16(Int16Builder),
    I32(Int32Builder),
    I64(Int64Builder),
    F32(Float32Builder),
    F64(Float64Builder),
    Utf8(StringBuilder),
    Binary(BinaryBuilder),
    Uuid(FixedSizeBinaryBuilder),
    Date(Date32Builder),
    Time(Time64NanosecondBuilder),
    Timestamp(TimestampNanosecondBuilder, Zone),
    Duration(IntervalMonthDayNanoBuilder),
    List {
        field: FieldRef,
        offsets: Vec<i32>,
        nulls: NullBufferBuilder,
        child: Box<Builder>,
    },
    FixedList {
        field: FieldRef,
        size: i32,
        nulls: NullBufferBuilder,
        child: Box<Builder>,
    },
    Map {
        field: FieldRef,
        offsets: Vec<i32>,
        nulls: NullBufferBuilder,
        keys: StringBuilder,
        values: Box<Builder>,
    },
    Struct {
        fields: Fields,
        role: Role,
        nulls: NullBufferBuilder,
        children: Vec<Builder>,
    },
}

/// What the builders need besides the values.
pub(crate) struct Cx {
    pub(crate) version: BoltVersion,
    /// Scratch space for canonical text.
    text: String,
}

impl Cx {
    pub(crate) fn new(version: BoltVersion) -> Self {
        Cx {
            version,
            text: String::new(),
        }
    }
}

const I32_MAX: usize = i32::MAX as usize;

fn offset(len: usize) -> Result<i32, AppendError> {
    i32::try_from(len).map_err(|_| AppendError::TooLarge)
}

fn struct_name(s: &BoltStruct<'_>) -> &'static str {
    s.kind().map_or("structure", |k| k.name())
}

impl Builder {
    /// Builders for `dt`, or the reason it is not a type this crate writes.
    pub(crate) fn new(dt: &DataType, capacity: usize) -> Result<Self, String> {
        Ok(match dt {
            DataType::Null => Builder::Null(0),
            DataType::Boolean => Builder::Bool(BooleanBuilder::with_capacity(capacity)),
            DataType::Int8 => Builder::I8(Int8Builder::with_capacity(capacity)),
            DataType::Int16 => Builder::I16(Int16Builder::with_capacity(capacity)),
            DataType::Int32 => Builder::I32(Int32Builder::with_capacity(capacity)),
            DataType::Int64 => Builder::I64(Int64Builder::with_capacity(capacity)),
            DataType::Float32 => Builder::F32(Float32Builder::with_capacity(capacity)),
            DataType::Float64 => Builder::F64(Float64Builder::with_capacity(capacity)),
            DataType::Utf8 => Builder::Utf8(StringBuilder::with_capacity(capacity, 0)),
            DataType::Binary => Builder::Binary(BinaryBuilder::with_capacity(capacity, 0)),
            DataType::FixedSizeBinary(16) => {
                Builder::Uuid(FixedSizeBinaryBuilder::with_capacity(capacity, 16))
            }
            DataType::Date32 => Builder::Date(Date32Builder::with_capacity(capacity)),
            DataType::Time64(TimeUnit::Nanosecond) => {
                Builder::Time(Time64NanosecondBuilder::with_capacity(capacity))
            }
            DataType::Timestamp(TimeUnit::Nanosecond, tz) => Builder::Timestamp(
                TimestampNanosecondBuilder::with_capacity(capacity).with_timezone_opt(tz.clone()),
                zone_of(tz.as_ref()),
            ),
            DataType::Interval(IntervalUnit::MonthDayNano) => {
                Builder::Duration(IntervalMonthDayNanoBuilder::with_capacity(capacity))
            }
            DataType::List(field) => Builder::List {
                field: field.clone(),
                offsets: {
                    let mut o = Vec::with_capacity(capacity + 1);
                    o.push(0);
                    o
                },
                nulls: NullBufferBuilder::new(capacity),
                child: Box::new(Builder::new(field.data_type(), 0)?),
            },
            DataType::FixedSizeList(field, size) if *size >= 0 => Builder::FixedList {
                field: field.clone(),
                size: *size,
                nulls: NullBufferBuilder::new(capacity),
                child: Box::new(Builder::new(field.data_type(), 0)?),
            },
            DataType::Map(field, false) => {
                let DataType::Struct(kv) = field.data_type() else {
                    return Err(format!("map entries of type {}", field.data_type()));
                };
                if kv.len() != 2 || kv[0].data_type() != &DataType::Utf8 {
                    return Err(format!("map entries {kv:?} (string keys are required)"));
                }
                Builder::Map {
                    field: field.clone(),
                    offsets: {
                        let mut o = Vec::with_capacity(capacity + 1);
                        o.push(0);
                        o
                    },
                    nulls: NullBufferBuilder::new(capacity),
                    keys: StringBuilder::new(),
                    values: Box::new(Builder::new(kv[1].data_type(), 0)?),
                }
            }
            DataType::Struct(fields) if !fields.is_empty() => Builder::Struct {
                role: role_of(fields),
                nulls: NullBufferBuilder::new(capacity),
                children: fields
                    .iter()
                    .map(|f| Builder::new(f.data_type(), capacity))
                    .collect::<Result<_, _>>()?,
                fields: fields.clone(),
            },
            other => return Err(format!("{other}")),
        })
    }

    /// The number of values appended.
    pub(crate) fn len(&self) -> usize {
        match self {
            Builder::Null(n) => *n,
            Builder::Bool(b) => b.len(),
            Builder::I8(b) => b.len(),
            Builder::I16(b) => b.len(),
            Builder::I32(b) => b.len(),
            Builder::I64(b) => b.len(),
            Builder::F32(b) => b.len(),
            Builder::F64(b) => b.len(),
            Builder::Utf8(b) => b.len(),
            Builder::Binary(b) => b.len(),
            Builder::Uuid(b) => b.len(),
            Builder::Date(b) => b.len(),
            Builder::Time(b) => b.len(),
            Builder::Timestamp(b, _) => b.len(),
            Builder::Duration(b) => b.len(),
            Builder::List { nulls, .. }
            | Builder::FixedList { nulls, .. }
            | Builder::Map { nulls, .. }
            | Builder::Struct { nulls, .. } => nulls.len(),
        }
    }

    /// Appends a null.
    pub(crate) fn append_null(&mut self) -> Res {
        match self {
            Builder::Null(n) => *n += 1,
            Builder::Bool(b) => b.append_null(),
            Builder::I8(b) => b.append_null(),
            Builder::I16(b) => b.append_null(),
            Builder::I32(b) => b.append_null(),
            Builder::I64(b) => b.append_null(),
            Builder::F32(b) => b.append_null(),
            Builder::F64(b) => b.append_null(),
            Builder::Utf8(b) => b.append_null(),
            Builder::Binary(b) => b.append_null(),
            Builder::Uuid(b) => b.append_null(),
            Builder::Date(b) => b.append_null(),
            Builder::Time(b) => b.append_null(),
            Builder::Timestamp(b, _) => b.append_null(),
            Builder::Duration(b) => b.append_null(),
            Builder::List { offsets, nulls, .. } | Builder::Map { offsets, nulls, .. } => {
                let last = offsets.last().copied().unwrap_or(0);
                offsets.push(last);
                nulls.append_null();
            }
            Builder::FixedList {
                size, nulls, child, ..
            } => {
                for _ in 0..*size {
                    child.append_null()?;
                }
                nulls.append_null();
            }
            Builder::Struct {
                nulls, children, ..
            } => {
                for c in children {
                    c.append_null()?;
                }
                nulls.append_null();
            }
        }
        Ok(())
    }

    fn append_str(&mut self, s: &str) -> Res {
        match self {
            Builder::Utf8(b) => {
                if b.values_slice().len() + s.len() > I32_MAX {
                    return Err(AppendError::TooLarge);
                }
                b.append_value(s);
                Ok(())
            }
            _ => Err(AppendError::Mismatch("String")),
        }
    }

    fn append_opt_str(&mut self, s: Option<&str>) -> Res {
        match s {
            Some(s) => self.append_str(s),
            None => self.append_null(),
        }
    }

    fn append_int(&mut self, i: i64) -> Res {
        match self {
            Builder::I64(b) => b.append_value(i),
            Builder::F64(b) => b.append_value(i as f64),
            Builder::I32(b) => {
                b.append_value(i32::try_from(i).map_err(|_| AppendError::Mismatch("Integer"))?)
            }
            Builder::Utf8(_) => return self.append_str(&i.to_string()),
            _ => return Err(AppendError::Mismatch("Integer")),
        }
        Ok(())
    }

    fn append_opt_int(&mut self, i: Option<i64>) -> Res {
        match i {
            Some(i) => self.append_int(i),
            None => self.append_null(),
        }
    }

    fn append_float(&mut self, f: f64) -> Res {
        match self {
            Builder::F64(b) => b.append_value(f),
            _ => return Err(AppendError::Mismatch("Float")),
        }
        Ok(())
    }

    /// Appends a value (a whole cell, or an item inside one).
    pub(crate) fn append(&mut self, v: &ValueRef<'_>, cx: &mut Cx) -> Res {
        match (&mut *self, v) {
            (_, ValueRef::Null) => self.append_null(),
            (Builder::I64(b), ValueRef::Int(i)) => {
                b.append_value(*i);
                Ok(())
            }
            (Builder::F64(b), ValueRef::Float(f)) => {
                b.append_value(*f);
                Ok(())
            }
            (Builder::F64(b), ValueRef::Int(i)) => {
                b.append_value(*i as f64);
                Ok(())
            }
            (Builder::Utf8(_), ValueRef::String(s)) => self.append_str(s),
            (Builder::Bool(b), ValueRef::Bool(x)) => {
                b.append_value(*x);
                Ok(())
            }
            (Builder::Binary(b), ValueRef::Bytes(x)) => {
                if b.values_slice().len() + x.len() > I32_MAX {
                    return Err(AppendError::TooLarge);
                }
                b.append_value(x);
                Ok(())
            }
            (Builder::Uuid(b), ValueRef::Uuid(u)) => {
                b.append_value(u).map_err(|_| AppendError::Mismatch("UUID"))
            }
            (Builder::I32(_), ValueRef::Int(i)) => self.append_int(*i),
            (Builder::Utf8(_), other) => {
                // The canonical text of anything that is not a string.
                let mut text = std::mem::take(&mut cx.text);
                text.clear();
                // Writing to a String cannot fail.
                let _ = write!(
                    text,
                    "{}",
                    DisplayValue::new(other).with_version(cx.version)
                );
                let r = self.append_str(&text);
                cx.text = text;
                r
            }
            (Builder::List { .. }, ValueRef::List(items)) => self.append_list(
                |child, cx| items.iter().try_for_each(|item| child.append(item, cx)),
                cx,
            ),
            (Builder::FixedList { size, .. }, ValueRef::List(items)) => {
                if items.len() != *size as usize {
                    return Err(AppendError::Mismatch("List (of another length)"));
                }
                self.append_fixed(
                    |child, cx| items.iter().try_for_each(|item| child.append(item, cx)),
                    cx,
                )
            }
            (Builder::Map { .. }, ValueRef::Map(entries)) => self.append_entries(entries, cx),
            (
                Builder::Struct {
                    role: Role::ByKey, ..
                },
                ValueRef::Map(entries),
            ) => self.append_by_key(entries, cx),
            (_, ValueRef::Struct(s)) => {
                let s = BoltStruct::from_struct(s, cx.version);
                self.append_struct(&s, cx)
            }
            (_, other) => Err(AppendError::Mismatch(other.type_name())),
        }
    }

    /// Appends one list whose items `fill` writes into the child builder.
    fn append_list(&mut self, fill: impl FnOnce(&mut Builder, &mut Cx) -> Res, cx: &mut Cx) -> Res {
        let Builder::List {
            offsets,
            nulls,
            child,
            ..
        } = self
        else {
            return Err(AppendError::Mismatch("List"));
        };
        fill(child, cx)?;
        offsets.push(offset(child.len())?);
        nulls.append_non_null();
        Ok(())
    }

    /// Appends one fixed-size list whose items `fill` writes into the child builder.
    fn append_fixed(
        &mut self,
        fill: impl FnOnce(&mut Builder, &mut Cx) -> Res,
        cx: &mut Cx,
    ) -> Res {
        let Builder::FixedList { nulls, child, .. } = self else {
            return Err(AppendError::Mismatch("List"));
        };
        fill(child, cx)?;
        nulls.append_non_null();
        Ok(())
    }

    fn append_entries(&mut self, entries: &[(&str, ValueRef<'_>)], cx: &mut Cx) -> Res {
        let Builder::Map {
            offsets,
            nulls,
            keys,
            values,
            ..
        } = self
        else {
            return Err(AppendError::Mismatch("Map"));
        };
        for (k, v) in entries {
            if keys.values_slice().len() + k.len() > I32_MAX {
                return Err(AppendError::TooLarge);
            }
            keys.append_value(k);
            values.append(v, cx)?;
        }
        offsets.push(offset(keys.len())?);
        nulls.append_non_null();
        Ok(())
    }

    fn append_by_key(&mut self, entries: &[(&str, ValueRef<'_>)], cx: &mut Cx) -> Res {
        let Builder::Struct {
            fields,
            nulls,
            children,
            ..
        } = self
        else {
            return Err(AppendError::Mismatch("Map"));
        };
        for (f, child) in fields.iter().zip(children.iter_mut()) {
            // The last entry for a key wins, as in PackStream.
            match entries.iter().rev().find(|(k, _)| *k == f.name()) {
                Some((_, v)) => child.append(v, cx)?,
                None => child.append_null()?,
            }
        }
        nulls.append_non_null();
        Ok(())
    }

    fn append_vector(&mut self, v: &Vector<'_>) -> Res {
        fn fill(child: &mut Builder, v: &Vector<'_>) -> Res {
            macro_rules! copy {
                ($b:expr, $t:ty) => {{
                    let it = v.iter::<$t>().ok_or(AppendError::Mismatch("Vector"))?;
                    $b.append_slice(&it.collect::<Vec<$t>>());
                    Ok(())
                }};
            }
            match (child, v.element_type()) {
                (Builder::I8(b), VectorType::I8) => copy!(b, i8),
                (Builder::I16(b), VectorType::I16) => copy!(b, i16),
                (Builder::I32(b), VectorType::I32) => copy!(b, i32),
                (Builder::I64(b), VectorType::I64) => copy!(b, i64),
                (Builder::F32(b), VectorType::F32) => copy!(b, f32),
                (Builder::F64(b), VectorType::F64) => copy!(b, f64),
                _ => Err(AppendError::Mismatch("Vector (of another element type)")),
            }
        }
        // Check before writing anything, so that a mismatch leaves the child as it was
        // (the batch is dropped anyway, but the lengths stay consistent).
        match self {
            Builder::FixedList { size, child, .. } => {
                if v.len() != *size as usize {
                    return Err(AppendError::Mismatch("Vector (of another dimension)"));
                }
                fill(child, v)?;
            }
            Builder::List { child, .. } => fill(child, v)?,
            _ => return Err(AppendError::Mismatch("Vector")),
        }
        match self {
            Builder::FixedList { nulls, .. } => nulls.append_non_null(),
            Builder::List {
                offsets,
                nulls,
                child,
                ..
            } => {
                offsets.push(offset(child.len())?);
                nulls.append_non_null();
            }
            _ => {}
        }
        Ok(())
    }

    fn children(&mut self, want: Role) -> Result<&mut [Builder], AppendError> {
        match self {
            Builder::Struct { role, children, .. } if *role == want => Ok(children),
            _ => Err(AppendError::Mismatch(match want {
                Role::Time => "Time",
                Role::Point => "Point",
                Role::Node => "Node",
                Role::Relationship => "Relationship",
                Role::Path => "Path",
                Role::ByKey => "Map",
            })),
        }
    }

    fn struct_done(&mut self) {
        if let Builder::Struct { nulls, .. } = self {
            nulls.append_non_null();
        }
    }

    fn append_node(&mut self, n: &Node<'_>, cx: &mut Cx) -> Res {
        let c = self.children(Role::Node)?;
        c[0].append_int(n.id)?;
        c[1].append_opt_str(n.element_id)?;
        c[2].append_list(
            |child, _| n.labels.iter().try_for_each(|l| child.append_str(l)),
            cx,
        )?;
        c[3].append_entries(&n.properties, cx)?;
        self.struct_done();
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn append_rel_parts(
        &mut self,
        id: i64,
        element_id: Option<&str>,
        start: Option<(i64, Option<&str>)>,
        end: Option<(i64, Option<&str>)>,
        rel_type: &str,
        props: &[(&str, ValueRef<'_>)],
        cx: &mut Cx,
    ) -> Res {
        let c = self.children(Role::Relationship)?;
        c[0].append_int(id)?;
        c[1].append_opt_str(element_id)?;
        c[2].append_opt_int(start.map(|s| s.0))?;
        c[3].append_opt_str(start.and_then(|s| s.1))?;
        c[4].append_opt_int(end.map(|e| e.0))?;
        c[5].append_opt_str(end.and_then(|e| e.1))?;
        c[6].append_str(rel_type)?;
        c[7].append_entries(props, cx)?;
        self.struct_done();
        Ok(())
    }

    fn append_rel(&mut self, r: &Relationship<'_>, cx: &mut Cx) -> Res {
        self.append_rel_parts(
            r.id,
            r.element_id,
            Some((r.start_node_id, r.start_node_element_id)),
            Some((r.end_node_id, r.end_node_element_id)),
            r.rel_type,
            &r.properties,
            cx,
        )
    }

    fn append_unbound(&mut self, r: &UnboundRelationship<'_>, cx: &mut Cx) -> Res {
        self.append_rel_parts(
            r.id,
            r.element_id,
            None,
            None,
            r.rel_type,
            &r.properties,
            cx,
        )
    }

    /// Appends an interpreted structure.
    fn append_struct(&mut self, s: &BoltStruct<'_>, cx: &mut Cx) -> Res {
        let mismatch = AppendError::Mismatch(struct_name(s));
        match (&mut *self, s) {
            (Builder::Utf8(_), _) => {
                let mut text = std::mem::take(&mut cx.text);
                text.clear();
                let _ = write!(text, "{s}");
                let r = self.append_str(&text);
                cx.text = text;
                r
            }
            (Builder::Date(b), BoltStruct::Date(d)) => {
                b.append_value(i32::try_from(d.days).map_err(|_| mismatch)?);
                Ok(())
            }
            (Builder::Time(b), BoltStruct::LocalTime(t)) => {
                b.append_value(i64::try_from(t.nanoseconds).map_err(|_| mismatch)?);
                Ok(())
            }
            (
                Builder::Struct {
                    role: Role::Time, ..
                },
                BoltStruct::Time(t),
            ) => {
                let c = self.children(Role::Time)?;
                let ns = i64::try_from(t.nanoseconds).map_err(|_| mismatch)?;
                let off = i32::try_from(t.tz_offset_seconds).map_err(|_| mismatch)?;
                match &mut c[0] {
                    Builder::Time(b) => b.append_value(ns),
                    _ => return Err(mismatch),
                }
                match &mut c[1] {
                    Builder::I32(b) => b.append_value(off),
                    _ => return Err(mismatch),
                }
                self.struct_done();
                Ok(())
            }
            (Builder::Timestamp(b, Zone::Local), BoltStruct::LocalDateTime(t)) => {
                b.append_value(convert::nanos(t.seconds, t.nanoseconds).ok_or(mismatch)?);
                Ok(())
            }
            (Builder::Timestamp(b, zone), s) => {
                let (seconds, nanos, ok) = match (s, &*zone) {
                    (BoltStruct::DateTime(t), Zone::Utc) => (t.seconds, t.nanoseconds, true),
                    (BoltStruct::DateTime(t), Zone::Offset(o)) => {
                        (t.seconds, t.nanoseconds, t.tz_offset_seconds == *o)
                    }
                    (BoltStruct::DateTimeZoneId(t), Zone::Utc) => (t.seconds, t.nanoseconds, true),
                    (BoltStruct::DateTimeZoneId(t), Zone::Id(id)) => {
                        (t.seconds, t.nanoseconds, t.tz_id == &**id)
                    }
                    (BoltStruct::LegacyDateTime(t), Zone::Utc | Zone::Offset(_)) => {
                        let u = t.to_utc().ok_or(mismatch)?;
                        let ok = match zone {
                            Zone::Offset(o) => u.tz_offset_seconds == *o,
                            _ => true,
                        };
                        (u.seconds, u.nanoseconds, ok)
                    }
                    _ => return Err(mismatch),
                };
                if !ok {
                    return Err(AppendError::Mismatch("DateTime (in another time zone)"));
                }
                b.append_value(convert::nanos(seconds, nanos).ok_or(mismatch)?);
                Ok(())
            }
            (Builder::Duration(b), BoltStruct::Duration(d)) => {
                b.append_value(convert::interval(d).ok_or(mismatch)?);
                Ok(())
            }
            (
                Builder::Struct {
                    role: Role::Point, ..
                },
                BoltStruct::Point2D(_) | BoltStruct::Point3D(_),
            ) => {
                let (srid, x, y, z) = match s {
                    BoltStruct::Point2D(p) => (p.srid, p.x, p.y, None),
                    BoltStruct::Point3D(p) => (p.srid, p.x, p.y, Some(p.z)),
                    _ => return Err(mismatch),
                };
                let c = self.children(Role::Point)?;
                c[0].append_int(srid)?;
                c[1].append_float(x)?;
                c[2].append_float(y)?;
                match z {
                    Some(z) => c[3].append_float(z)?,
                    None => c[3].append_null()?,
                }
                self.struct_done();
                Ok(())
            }
            (Builder::List { .. } | Builder::FixedList { .. }, BoltStruct::Vector(v)) => {
                self.append_vector(v)
            }
            (_, BoltStruct::Node(n)) => self.append_node(n, cx),
            (_, BoltStruct::Relationship(r)) => self.append_rel(r, cx),
            (_, BoltStruct::UnboundRelationship(r)) => self.append_unbound(r, cx),
            (
                Builder::Struct {
                    role: Role::Path, ..
                },
                BoltStruct::Path(p),
            ) => {
                let c = self.children(Role::Path)?;
                let (nodes, rels) = c.split_at_mut(1);
                nodes[0].append_list(
                    |child, cx| p.nodes().iter().try_for_each(|n| child.append_node(n, cx)),
                    cx,
                )?;
                rels[0].append_list(
                    |child, cx| {
                        p.segments()
                            .try_for_each(|seg| child.append_rel(&seg.to_relationship(), cx))
                    },
                    cx,
                )?;
                self.struct_done();
                Ok(())
            }
            _ => Err(mismatch),
        }
    }

    /// The finished array.
    pub(crate) fn finish(self) -> Result<ArrayRef, ArrowError> {
        Ok(match self {
            Builder::Null(n) => Arc::new(NullArray::new(n)),
            Builder::Bool(mut b) => Arc::new(b.finish()),
            Builder::I8(mut b) => Arc::new(b.finish()),
            Builder::I16(mut b) => Arc::new(b.finish()),
            Builder::I32(mut b) => Arc::new(b.finish()),
            Builder::I64(mut b) => Arc::new(b.finish()),
            Builder::F32(mut b) => Arc::new(b.finish()),
            Builder::F64(mut b) => Arc::new(b.finish()),
            Builder::Utf8(mut b) => Arc::new(b.finish()),
            Builder::Binary(mut b) => Arc::new(b.finish()),
            Builder::Uuid(mut b) => Arc::new(b.finish()),
            Builder::Date(mut b) => Arc::new(b.finish()),
            Builder::Time(mut b) => Arc::new(b.finish()),
            Builder::Timestamp(mut b, _) => Arc::new(b.finish()),
            Builder::Duration(mut b) => Arc::new(b.finish()),
            Builder::List {
                field,
                offsets,
                mut nulls,
                child,
            } => Arc::new(ListArray::try_new(
                field,
                OffsetBuffer::new(ScalarBuffer::from(offsets)),
                child.finish()?,
                nulls.finish(),
            )?),
            Builder::FixedList {
                field,
                size,
                mut nulls,
                child,
            } => {
                let len = nulls.len();
                Arc::new(FixedSizeListArray::try_new_with_length(
                    field,
                    size,
                    child.finish()?,
                    nulls.finish(),
                    len,
                )?)
            }
            Builder::Map {
                field,
                offsets,
                mut nulls,
                mut keys,
                values,
            } => {
                let DataType::Struct(kv) = field.data_type() else {
                    return Err(ArrowError::SchemaError(
                        "map entries must be a struct".into(),
                    ));
                };
                let entries = StructArray::try_new(
                    kv.clone(),
                    vec![Arc::new(keys.finish()), values.finish()?],
                    None,
                )?;
                Arc::new(MapArray::try_new(
                    field,
                    OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    entries,
                    nulls.finish(),
                    false,
                )?)
            }
            Builder::Struct {
                fields,
                mut nulls,
                children,
                ..
            } => {
                let arrays = children
                    .into_iter()
                    .map(Builder::finish)
                    .collect::<Result<Vec<_>, _>>()?;
                Arc::new(StructArray::try_new(fields, arrays, nulls.finish())?)
            }
        })
    }
}
