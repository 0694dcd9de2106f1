//! Typed views of Bolt structures (node, relationship, path, temporal, spatial, vector,
//! unsupported type), read for a negotiated version by the `bolt` crate.
//!
//! A view copies the scalars out and points at the rest: strings into the same memory as
//! the value's strings, nested lists and maps as the value's own child nodes. A view is
//! valid exactly as long as the value it was made from.

use std::ffi::c_char;

use bolt::structs::{BoltStruct, Broken, StructKind, VectorType};
use bolt::BoltVersion;

use crate::ffi::{self, Out, OutBuf};
use crate::handshake::bc_version;
use crate::status::{bc_status, Failure, Res};
use packstream::ValueRef;

use crate::value::{bc_value, to_value_ref, BC_TYPE_STRUCT};

/// What a structure is in a Bolt version: one of the `BC_STRUCT_*` constants.
pub type bc_struct_kind = u8;
/// Node (`0x4E`).
pub const BC_STRUCT_NODE: bc_struct_kind = 1;
/// Relationship (`0x52`).
pub const BC_STRUCT_RELATIONSHIP: bc_struct_kind = 2;
/// UnboundRelationship (`0x72`), as inside a path.
pub const BC_STRUCT_UNBOUND_RELATIONSHIP: bc_struct_kind = 3;
/// Path (`0x50`).
pub const BC_STRUCT_PATH: bc_struct_kind = 4;
/// Date (`0x44`).
pub const BC_STRUCT_DATE: bc_struct_kind = 5;
/// Time with offset (`0x54`).
pub const BC_STRUCT_TIME: bc_struct_kind = 6;
/// LocalTime (`0x74`).
pub const BC_STRUCT_LOCAL_TIME: bc_struct_kind = 7;
/// UTC-based DateTime with offset (`0x49`, Bolt 5+ or the 4.4 utc patch).
pub const BC_STRUCT_DATE_TIME: bc_struct_kind = 8;
/// UTC-based DateTime with zone id (`0x69`).
pub const BC_STRUCT_DATE_TIME_ZONE_ID: bc_struct_kind = 9;
/// Legacy (local seconds) DateTime with offset (`0x46`, Bolt 4.4 and earlier).
pub const BC_STRUCT_LEGACY_DATE_TIME: bc_struct_kind = 10;
/// Legacy (local seconds) DateTime with zone id (`0x66`).
pub const BC_STRUCT_LEGACY_DATE_TIME_ZONE_ID: bc_struct_kind = 11;
/// LocalDateTime (`0x64`).
pub const BC_STRUCT_LOCAL_DATE_TIME: bc_struct_kind = 12;
/// Duration (`0x45`).
pub const BC_STRUCT_DURATION: bc_struct_kind = 13;
/// Point2D (`0x58`).
pub const BC_STRUCT_POINT_2D: bc_struct_kind = 14;
/// Point3D (`0x59`).
pub const BC_STRUCT_POINT_3D: bc_struct_kind = 15;
/// Vector (`0x56`, Bolt 6.0+).
pub const BC_STRUCT_VECTOR: bc_struct_kind = 16;
/// UnsupportedType (`0x3F`, Bolt 6.0+).
pub const BC_STRUCT_UNSUPPORTED: bc_struct_kind = 17;
/// A structure that is not a valid value structure in the version (unknown tag, wrong
/// field count or types, not in the version); see `bc_value_broken_reason`.
pub const BC_STRUCT_BROKEN: bc_struct_kind = 18;

fn kind_code(kind: StructKind) -> bc_struct_kind {
    match kind {
        StructKind::Node => BC_STRUCT_NODE,
        StructKind::Relationship => BC_STRUCT_RELATIONSHIP,
        StructKind::UnboundRelationship => BC_STRUCT_UNBOUND_RELATIONSHIP,
        StructKind::Path => BC_STRUCT_PATH,
        StructKind::Date => BC_STRUCT_DATE,
        StructKind::Time => BC_STRUCT_TIME,
        StructKind::LocalTime => BC_STRUCT_LOCAL_TIME,
        StructKind::DateTime => BC_STRUCT_DATE_TIME,
        StructKind::DateTimeZoneId => BC_STRUCT_DATE_TIME_ZONE_ID,
        StructKind::LegacyDateTime => BC_STRUCT_LEGACY_DATE_TIME,
        StructKind::LegacyDateTimeZoneId => BC_STRUCT_LEGACY_DATE_TIME_ZONE_ID,
        StructKind::LocalDateTime => BC_STRUCT_LOCAL_DATE_TIME,
        StructKind::Duration => BC_STRUCT_DURATION,
        StructKind::Point2D => BC_STRUCT_POINT_2D,
        StructKind::Point3D => BC_STRUCT_POINT_3D,
        StructKind::Vector => BC_STRUCT_VECTOR,
        StructKind::UnsupportedType => BC_STRUCT_UNSUPPORTED,
    }
}

/// A string view: `len` UTF-8 bytes at `ptr`, not NUL-terminated; `ptr` is NULL when the
/// string is absent (for example an element id before Bolt 5.0).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_str {
    /// The bytes, or NULL when absent.
    pub ptr: *const c_char,
    /// The length in bytes.
    pub len: usize,
}

impl bc_str {
    const ABSENT: bc_str = bc_str {
        ptr: std::ptr::null(),
        len: 0,
    };

    fn of(s: &str) -> Self {
        bc_str {
            ptr: s.as_ptr().cast(),
            len: s.len(),
        }
    }

    fn opt(s: Option<&str>) -> Self {
        s.map_or(Self::ABSENT, Self::of)
    }
}

/// Node (`0x4E`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_node {
    /// The numeric id.
    pub id: i64,
    /// The labels: a `BC_TYPE_LIST` of `BC_TYPE_STRING` values.
    pub labels: *const bc_value,
    /// The properties: a `BC_TYPE_MAP` value.
    pub properties: *const bc_value,
    /// The element id (Bolt 5.0+; absent before).
    pub element_id: bc_str,
}

/// Relationship (`0x52`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_relationship {
    /// The numeric id.
    pub id: i64,
    /// The start node's numeric id.
    pub start_node_id: i64,
    /// The end node's numeric id.
    pub end_node_id: i64,
    /// The relationship type.
    pub type_name: bc_str,
    /// The properties: a `BC_TYPE_MAP` value.
    pub properties: *const bc_value,
    /// The element id (Bolt 5.0+).
    pub element_id: bc_str,
    /// The start node's element id (Bolt 5.0+).
    pub start_node_element_id: bc_str,
    /// The end node's element id (Bolt 5.0+).
    pub end_node_element_id: bc_str,
}

/// UnboundRelationship (`0x72`): a relationship without its endpoints, as in a path.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_unbound_relationship {
    /// The numeric id.
    pub id: i64,
    /// The relationship type.
    pub type_name: bc_str,
    /// The properties: a `BC_TYPE_MAP` value.
    pub properties: *const bc_value,
    /// The element id (Bolt 5.0+).
    pub element_id: bc_str,
}

/// Path (`0x50`): its three wire lists (checked to be consistent) and its length.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_path {
    /// The distinct nodes: a `BC_TYPE_LIST` of Node structures.
    pub nodes: *const bc_value,
    /// The distinct relationships: a `BC_TYPE_LIST` of UnboundRelationship structures.
    pub relationships: *const bc_value,
    /// The wire indices: a `BC_TYPE_LIST` of integers.
    pub indices: *const bc_value,
    /// The number of hops (segments); read them with `bc_path_get_segment`.
    pub length: usize,
}

/// One hop of a path, in path order.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_path_segment {
    /// The node the hop leaves: a Node structure value.
    pub start: *const bc_value,
    /// The relationship traversed: an UnboundRelationship structure value.
    pub relationship: *const bc_value,
    /// The node the hop reaches: a Node structure value.
    pub end: *const bc_value,
    /// `true` when the relationship points from `end` to `start`, against the path.
    pub reversed: bool,
}

/// Any temporal value (Date, Time, LocalTime, the DateTimes, LocalDateTime, Duration).
/// `kind` says which; the fields that do not apply are 0 (`tz_id.ptr` NULL).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_temporal {
    /// `BC_STRUCT_DATE` … `BC_STRUCT_DURATION`.
    pub kind: bc_struct_kind,
    /// `BC_STRUCT_TIME`, `BC_STRUCT_DATE_TIME`, `BC_STRUCT_LEGACY_DATE_TIME`: the offset
    /// from UTC is in `tz_offset_seconds`.
    pub has_tz_offset: bool,
    /// Date: days since 1970-01-01. Duration: the days component.
    pub days: i64,
    /// Duration: the months component.
    pub months: i64,
    /// DateTime and DateTimeZoneId: seconds since 1970-01-01T00:00Z (UTC). Legacy
    /// DateTimes and LocalDateTime: local wall-clock seconds since 1970-01-01T00:00.
    /// Duration: the seconds component.
    pub seconds: i64,
    /// Time and LocalTime: nanoseconds since midnight. The DateTimes and LocalDateTime:
    /// nanoseconds within the second. Duration: the nanoseconds component.
    pub nanoseconds: i64,
    /// Offset from UTC in seconds, east positive (see `has_tz_offset`).
    pub tz_offset_seconds: i64,
    /// The zone id (`"Europe/Stockholm"`) of the zone-id DateTimes; absent otherwise.
    pub tz_id: bc_str,
    /// Calendar year of the wall-clock date (Date, the DateTimes, LocalDateTime). For a
    /// DateTimeZoneId it is the UTC date: the library has no time-zone database.
    pub year: i64,
    /// Month 1–12 (0 when there is no date).
    pub month: u8,
    /// Day of the month 1–31 (0 when there is no date).
    pub day: u8,
    /// Hour 0–23 of the wall-clock time (Time, LocalTime, DateTimes, LocalDateTime).
    pub hour: u8,
    /// Minute 0–59.
    pub minute: u8,
    /// Second 0–59.
    pub second: u8,
    /// Nanosecond within the second, 0–999 999 999.
    pub nanosecond: u32,
}

/// Point2D (`0x58`) or Point3D (`0x59`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_point {
    /// Spatial reference system id (7203 Cartesian 2D, 9157 Cartesian 3D, 4326 WGS-84 2D,
    /// 4979 WGS-84 3D).
    pub srid: i64,
    /// x (or longitude).
    pub x: f64,
    /// y (or latitude).
    pub y: f64,
    /// z (or height); 0 for a 2D point.
    pub z: f64,
    /// `true` for a Point3D.
    pub has_z: bool,
}

/// The element type of a vector: one of the `BC_VECTOR_*` constants.
pub type bc_vector_type = u8;
/// 8-bit signed integers.
pub const BC_VECTOR_I8: bc_vector_type = 1;
/// 16-bit signed integers.
pub const BC_VECTOR_I16: bc_vector_type = 2;
/// 32-bit signed integers.
pub const BC_VECTOR_I32: bc_vector_type = 3;
/// 64-bit signed integers.
pub const BC_VECTOR_I64: bc_vector_type = 4;
/// 32-bit IEEE-754 floats.
pub const BC_VECTOR_F32: bc_vector_type = 5;
/// 64-bit IEEE-754 floats.
pub const BC_VECTOR_F64: bc_vector_type = 6;

/// Vector (`0x56`, Bolt 6.0+): typed elements stored big-endian.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_vector {
    /// A `BC_VECTOR_*` constant.
    pub element_type: bc_vector_type,
    /// The number of elements.
    pub len: usize,
    /// The raw big-endian element bytes as on the wire (`data_len` bytes; read elements
    /// with `bc_vector_get_int` / `bc_vector_get_float`).
    pub data: *const u8,
    /// `len` times the element size.
    pub data_len: usize,
}

/// UnsupportedType (`0x3F`, Bolt 6.0+): a value the server could not send in this
/// version.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bc_unsupported {
    /// The type's name, e.g. `"UUID"`.
    pub name: bc_str,
    /// The minimum Bolt version that carries the type.
    pub minimum_version: bc_version,
    /// The `message` entry of its extra map, if present and a string.
    pub message: bc_str,
    /// The whole extra map: a `BC_TYPE_MAP` value.
    pub extra: *const bc_value,
}

// ---------------------------------------------------------------------------------------

/// Reads the structure value `v` for `version`; returns the typed result and the
/// structure's fields (the value's own nodes).
///
/// # Safety
/// `v` is NULL or a value made by this library and still valid during `'a`.
unsafe fn struct_of<'a>(
    v: *const bc_value,
    version: bc_version,
) -> Res<(BoltStruct<'a>, &'a [bc_value])> {
    // SAFETY: forwarded contract.
    let node: &'a bc_value = unsafe { ffi::handle_ref(v) }?;
    let version = version.to_bolt()?;
    if node.kind != BC_TYPE_STRUCT {
        return Err(Failure::new(
            bc_status::BC_ERR_WRONG_TYPE,
            "expected a structure",
        ));
    }
    // SAFETY: forwarded contract.
    let value = unsafe { to_value_ref(node) }?;
    let parsed = match &value {
        ValueRef::Struct(s) => BoltStruct::from_struct(s, version),
        _ => {
            return Err(Failure::new(
                bc_status::BC_ERR_WRONG_TYPE,
                "expected a structure",
            ))
        }
    };
    // SAFETY: forwarded contract.
    let fields = unsafe { node.children() };
    Ok((parsed, fields))
}

/// The failure for a structure that is not the wanted kind.
fn not_kind(parsed: &BoltStruct<'_>, wanted: &[StructKind]) -> Failure {
    match parsed {
        BoltStruct::Broken(b) if b.kind().is_some_and(|k| wanted.contains(&k)) => Failure::new(
            bc_status::BC_ERR_BROKEN_STRUCT,
            format!("broken structure: {}", b.reason),
        ),
        other => Failure::new(
            bc_status::BC_ERR_WRONG_TYPE,
            format!(
                "expected {}, found {}",
                wanted.first().map_or("a structure", |k| k.name()),
                other
                    .kind()
                    .map_or("an unknown structure", StructKind::name)
            ),
        ),
    }
}

fn field(fields: &[bc_value], i: usize) -> *const bc_value {
    fields.get(i).map_or(std::ptr::null(), std::ptr::from_ref)
}

/// The Bolt kind of a structure value in `version` into `*out` (`BC_STRUCT_BROKEN` when
/// it is not a valid value structure there).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_UNKNOWN_VERSION` (a version
/// `bc_version_is_known` denies); `BC_ERR_WRONG_TYPE` (not a structure).
///
/// # Safety
/// `v` is NULL or a value handed out by this library and still valid; `out` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn bc_value_struct_kind(
    v: *const bc_value,
    version: bc_version,
    out: *mut bc_struct_kind,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        // SAFETY: forwarded contract.
        let (s, _fields) = unsafe { struct_of(v, version) }?;
        let kind = if s.is_broken() {
            BC_STRUCT_BROKEN
        } else {
            s.kind().map_or(BC_STRUCT_BROKEN, kind_code)
        };
        out.set(kind);
        Ok(())
    })
}

/// Why a structure value is broken in `version`, as NUL-terminated text in `buf` (for
/// example `"expected 4 fields, found 2"`). `*needed` (if not NULL) receives the size
/// needed including the NUL, whatever the outcome.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_UNKNOWN_VERSION`;
/// `BC_ERR_WRONG_TYPE` (not a structure, or a valid one: nothing is broken);
/// `BC_ERR_BUFFER_TOO_SMALL`.
///
/// # Safety
/// `v` as `bc_value_struct_kind`; `buf` is NULL or writable for `cap` bytes; `needed` is
/// NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_value_broken_reason(
    v: *const bc_value,
    version: bc_version,
    buf: *mut c_char,
    cap: usize,
    needed: *mut usize,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let buf = unsafe { OutBuf::new(buf.cast(), cap) }?;
        // SAFETY: forwarded contract.
        let (s, _fields) = unsafe { struct_of(v, version) }?;
        let text = {
            let s = &s;
            match s {
                BoltStruct::Broken(Broken { reason, .. }) => Ok(reason.to_string()),
                _ => Err(Failure::new(
                    bc_status::BC_ERR_WRONG_TYPE,
                    "the structure is not broken",
                )),
            }
        }?;
        // SAFETY: forwarded contract; NULL means "not wanted".
        if let Ok(n) = unsafe { Out::new(needed) } {
            n.set(text.len() + 1);
        }
        buf.write_cstr(text.as_bytes()).map(|_| ())
    })
}

/// Reads a Node structure for `version` into `*out`.
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_UNKNOWN_VERSION` (a version
/// `bc_version_is_known` denies); `BC_ERR_WRONG_TYPE` (not a structure, or another
/// kind); `BC_ERR_BROKEN_STRUCT` (tag `0x4E` but malformed for the version). `*out` is
/// written only on `BC_OK`; it is valid as long as `v`.
///
/// # Safety
/// `v` is NULL or a value handed out by this library and still valid; `out` is NULL or
/// writable.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_node(
    v: *const bc_value,
    version: bc_version,
    out: *mut bc_node,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        // SAFETY: forwarded contract.
        let (s, fields) = unsafe { struct_of(v, version) }?;
        let node = {
            let s = &s;
            match s {
                BoltStruct::Node(n) => Ok(bc_node {
                    id: n.id,
                    labels: field(fields, 1),
                    properties: field(fields, 2),
                    element_id: bc_str::opt(n.element_id),
                }),
                other => Err(not_kind(other, &[StructKind::Node])),
            }
        }?;
        out.set(node);
        Ok(())
    })
}

/// Reads a Relationship structure for `version` into `*out`.
///
/// Statuses: as `bc_value_as_node` (tag `0x52`).
///
/// # Safety
/// As `bc_value_as_node`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_relationship(
    v: *const bc_value,
    version: bc_version,
    out: *mut bc_relationship,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        // SAFETY: forwarded contract.
        let (s, fields) = unsafe { struct_of(v, version) }?;
        let rel = {
            let s = &s;
            match s {
                BoltStruct::Relationship(r) => Ok(bc_relationship {
                    id: r.id,
                    start_node_id: r.start_node_id,
                    end_node_id: r.end_node_id,
                    type_name: bc_str::of(r.rel_type),
                    properties: field(fields, 4),
                    element_id: bc_str::opt(r.element_id),
                    start_node_element_id: bc_str::opt(r.start_node_element_id),
                    end_node_element_id: bc_str::opt(r.end_node_element_id),
                }),
                other => Err(not_kind(other, &[StructKind::Relationship])),
            }
        }?;
        out.set(rel);
        Ok(())
    })
}

/// Reads an UnboundRelationship structure for `version` into `*out`.
///
/// Statuses: as `bc_value_as_node` (tag `0x72`).
///
/// # Safety
/// As `bc_value_as_node`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_unbound_relationship(
    v: *const bc_value,
    version: bc_version,
    out: *mut bc_unbound_relationship,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        // SAFETY: forwarded contract.
        let (s, fields) = unsafe { struct_of(v, version) }?;
        let rel = {
            let s = &s;
            match s {
                BoltStruct::UnboundRelationship(r) => Ok(bc_unbound_relationship {
                    id: r.id,
                    type_name: bc_str::of(r.rel_type),
                    properties: field(fields, 2),
                    element_id: bc_str::opt(r.element_id),
                }),
                other => Err(not_kind(other, &[StructKind::UnboundRelationship])),
            }
        }?;
        out.set(rel);
        Ok(())
    })
}

/// Reads a Path structure for `version` into `*out` (its nodes, relationships and
/// indices are checked to be consistent).
///
/// Statuses: as `bc_value_as_node` (tag `0x50`; `BC_ERR_BROKEN_STRUCT` also for indices
/// that do not fit the lists).
///
/// # Safety
/// As `bc_value_as_node`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_path(
    v: *const bc_value,
    version: bc_version,
    out: *mut bc_path,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        // SAFETY: forwarded contract.
        let (s, fields) = unsafe { struct_of(v, version) }?;
        let path = {
            let s = &s;
            match s {
                BoltStruct::Path(p) => Ok(bc_path {
                    nodes: field(fields, 0),
                    relationships: field(fields, 1),
                    indices: field(fields, 2),
                    length: p.len(),
                }),
                other => Err(not_kind(other, &[StructKind::Path])),
            }
        }?;
        out.set(path);
        Ok(())
    })
}

/// The hop at `index` (0 = first) of the Path structure `path`, read for `version`.
/// The segment's values are the path's own Node and UnboundRelationship values (read
/// them with `bc_value_as_node` / `bc_value_as_unbound_relationship`).
///
/// Statuses: as `bc_value_as_path`, and `BC_ERR_OUT_OF_RANGE` (`index` not below the
/// path's length).
///
/// # Safety
/// `path` as `v` of `bc_value_as_node`; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_path_get_segment(
    path: *const bc_value,
    version: bc_version,
    index: usize,
    out: *mut bc_path_segment,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        // SAFETY: forwarded contract.
        let (s, fields) = unsafe { struct_of(path, version) }?;
        let segment = {
            let s = &s;
            {
                let BoltStruct::Path(p) = s else {
                    return Err(not_kind(s, &[StructKind::Path]));
                };
                let seg = p.segments().nth(index).ok_or_else(|| {
                    Failure::new(
                        bc_status::BC_ERR_OUT_OF_RANGE,
                        format!("segment {index} of a path of length {}", p.len()),
                    )
                })?;
                // The parsed nodes and relationships are in the order of the wire lists.
                let node_at =
                    |n: &bolt::structs::Node<'_>| p.nodes().iter().position(|x| std::ptr::eq(x, n));
                let rel_at = p
                    .relationships()
                    .iter()
                    .position(|x| std::ptr::eq(x, seg.relationship));
                // SAFETY: the path's fields are valid nodes made by this library.
                let list = |i: usize| unsafe { fields.get(i).map_or(&[][..], |f| f.children()) };
                let pick = |items: &[bc_value], at: Option<usize>| {
                    at.and_then(|i| items.get(i))
                        .map_or(std::ptr::null(), std::ptr::from_ref)
                };
                Ok::<_, Failure>(bc_path_segment {
                    start: pick(list(0), node_at(seg.start)),
                    relationship: pick(list(1), rel_at),
                    end: pick(list(0), node_at(seg.end)),
                    reversed: seg.reversed,
                })
            }
        }?;
        out.set(segment);
        Ok(())
    })
}

const TEMPORAL: [StructKind; 9] = [
    StructKind::Date,
    StructKind::Time,
    StructKind::LocalTime,
    StructKind::DateTime,
    StructKind::DateTimeZoneId,
    StructKind::LegacyDateTime,
    StructKind::LegacyDateTimeZoneId,
    StructKind::LocalDateTime,
    StructKind::Duration,
];

/// Reads any temporal structure (Date, Time, LocalTime, DateTime, DateTimeZoneId, the
/// legacy DateTimes, LocalDateTime, Duration) for `version` into `*out`.
///
/// Statuses: as `bc_value_as_node` (`BC_ERR_BROKEN_STRUCT` for a temporal tag that is
/// malformed or not valid in the version, such as a legacy DateTime on Bolt 5).
///
/// # Safety
/// As `bc_value_as_node`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_temporal(
    v: *const bc_value,
    version: bc_version,
    out: *mut bc_temporal,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        // SAFETY: forwarded contract.
        let (s, _) = unsafe { struct_of(v, version) }?;
        let t = temporal(&s)?;
        out.set(t);
        Ok(())
    })
}

fn temporal(s: &BoltStruct<'_>) -> Res<bc_temporal> {
    use bolt::structs::{Date, LocalDateTime, LocalTime};
    let mut t = bc_temporal {
        kind: s.kind().map_or(BC_STRUCT_BROKEN, kind_code),
        has_tz_offset: false,
        days: 0,
        months: 0,
        seconds: 0,
        nanoseconds: 0,
        tz_offset_seconds: 0,
        tz_id: bc_str::ABSENT,
        year: 0,
        month: 0,
        day: 0,
        hour: 0,
        minute: 0,
        second: 0,
        nanosecond: 0,
    };
    let set_date = |t: &mut bc_temporal, d: Date| {
        let (y, m, day) = d.ymd();
        t.year = y;
        t.month = m;
        t.day = day;
    };
    let set_time = |t: &mut bc_temporal, lt: LocalTime| {
        t.hour = u8::try_from(lt.hour()).unwrap_or(0);
        t.minute = u8::try_from(lt.minute()).unwrap_or(0);
        t.second = u8::try_from(lt.second()).unwrap_or(0);
        t.nanosecond = lt.nanosecond();
    };
    let set_local = |t: &mut bc_temporal, l: LocalDateTime| {
        set_date(t, l.date());
        set_time(t, l.time());
    };
    match s {
        BoltStruct::Date(d) => {
            t.days = d.days;
            set_date(&mut t, *d);
        }
        BoltStruct::Time(x) => {
            t.nanoseconds = i64::try_from(x.nanoseconds).unwrap_or(i64::MAX);
            t.tz_offset_seconds = x.tz_offset_seconds;
            t.has_tz_offset = true;
            set_time(&mut t, x.local_time());
        }
        BoltStruct::LocalTime(x) => {
            t.nanoseconds = i64::try_from(x.nanoseconds).unwrap_or(i64::MAX);
            set_time(&mut t, *x);
        }
        BoltStruct::DateTime(x) => {
            t.seconds = x.seconds;
            t.nanoseconds = i64::from(x.nanoseconds);
            t.tz_offset_seconds = x.tz_offset_seconds;
            t.has_tz_offset = true;
            set_local(&mut t, x.local().unwrap_or_else(|| x.utc()));
        }
        BoltStruct::DateTimeZoneId(x) => {
            t.seconds = x.seconds;
            t.nanoseconds = i64::from(x.nanoseconds);
            t.tz_id = bc_str::of(x.tz_id);
            set_local(&mut t, x.utc());
        }
        BoltStruct::LegacyDateTime(x) => {
            t.seconds = x.seconds;
            t.nanoseconds = i64::from(x.nanoseconds);
            t.tz_offset_seconds = x.tz_offset_seconds;
            t.has_tz_offset = true;
            set_local(&mut t, x.local());
        }
        BoltStruct::LegacyDateTimeZoneId(x) => {
            t.seconds = x.seconds;
            t.nanoseconds = i64::from(x.nanoseconds);
            t.tz_id = bc_str::of(x.tz_id);
            set_local(&mut t, x.local());
        }
        BoltStruct::LocalDateTime(x) => {
            t.seconds = x.seconds;
            t.nanoseconds = i64::from(x.nanoseconds);
            set_local(&mut t, *x);
        }
        BoltStruct::Duration(x) => {
            t.months = x.months;
            t.days = x.days;
            t.seconds = x.seconds;
            t.nanoseconds = x.nanoseconds;
        }
        other => return Err(not_kind(other, &TEMPORAL)),
    }
    Ok(t)
}

/// Reads a Point2D or Point3D structure for `version` into `*out`.
///
/// Statuses: as `bc_value_as_node` (tags `0x58`, `0x59`).
///
/// # Safety
/// As `bc_value_as_node`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_point(
    v: *const bc_value,
    version: bc_version,
    out: *mut bc_point,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        // SAFETY: forwarded contract.
        let (s, _fields) = unsafe { struct_of(v, version) }?;
        let p = {
            let s = &s;
            match s {
                BoltStruct::Point2D(p) => Ok(bc_point {
                    srid: p.srid,
                    x: p.x,
                    y: p.y,
                    z: 0.0,
                    has_z: false,
                }),
                BoltStruct::Point3D(p) => Ok(bc_point {
                    srid: p.srid,
                    x: p.x,
                    y: p.y,
                    z: p.z,
                    has_z: true,
                }),
                other => Err(not_kind(other, &[StructKind::Point2D, StructKind::Point3D])),
            }
        }?;
        out.set(p);
        Ok(())
    })
}

/// Reads a Vector structure (Bolt 6.0+) for `version` into `*out`.
///
/// Statuses: as `bc_value_as_node` (tag `0x56`; `BC_ERR_BROKEN_STRUCT` also for an
/// unknown element type or a data length that is not a multiple of the element size).
///
/// # Safety
/// As `bc_value_as_node`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_vector(
    v: *const bc_value,
    version: bc_version,
    out: *mut bc_vector,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        // SAFETY: forwarded contract.
        let (s, _fields) = unsafe { struct_of(v, version) }?;
        let vec = {
            let s = &s;
            match s {
                BoltStruct::Vector(x) => Ok(bc_vector {
                    element_type: match x.element_type() {
                        VectorType::I8 => BC_VECTOR_I8,
                        VectorType::I16 => BC_VECTOR_I16,
                        VectorType::I32 => BC_VECTOR_I32,
                        VectorType::I64 => BC_VECTOR_I64,
                        VectorType::F32 => BC_VECTOR_F32,
                        _ => BC_VECTOR_F64,
                    },
                    len: x.len(),
                    // Borrowed from the value's byte array: the same memory.
                    data: x.data().as_ptr(),
                    data_len: x.data().len(),
                }),
                other => Err(not_kind(other, &[StructKind::Vector])),
            }
        }?;
        out.set(vec);
        Ok(())
    })
}

/// The element at `index` of an integer vector (`BC_VECTOR_I8` … `BC_VECTOR_I64`).
///
/// Statuses: `BC_OK`; `BC_ERR_NULL_POINTER`; `BC_ERR_WRONG_TYPE` (a float vector);
/// `BC_ERR_OUT_OF_RANGE`; `BC_ERR_INVALID_ARGUMENT` (a view not made by
/// `bc_value_as_vector`).
///
/// # Safety
/// `vector` is NULL or a view from `bc_value_as_vector` whose value is still valid;
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bc_vector_get_int(
    vector: *const bc_vector,
    index: usize,
    out: *mut i64,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (vec, out) = unsafe { (ffi::handle_ref(vector)?, Out::new(out)?) };
        // SAFETY: forwarded contract.
        let b = unsafe { element(vec, index) }?;
        let v = match (vec.element_type, b) {
            (BC_VECTOR_I8, [a]) => i64::from(i8::from_be_bytes([*a])),
            (BC_VECTOR_I16, &[a, b]) => i64::from(i16::from_be_bytes([a, b])),
            (BC_VECTOR_I32, &[a, b, c, d]) => i64::from(i32::from_be_bytes([a, b, c, d])),
            (BC_VECTOR_I64, b) => i64::from_be_bytes(b.try_into().map_err(|_| bad_view())?),
            _ => {
                return Err(Failure::new(
                    bc_status::BC_ERR_WRONG_TYPE,
                    "not an integer vector",
                ))
            }
        };
        out.set(v);
        Ok(())
    })
}

/// The element at `index` of a float vector (`BC_VECTOR_F32` widened to double, or
/// `BC_VECTOR_F64`).
///
/// Statuses: as `bc_vector_get_int` (`BC_ERR_WRONG_TYPE` for an integer vector).
///
/// # Safety
/// As `bc_vector_get_int`.
#[no_mangle]
pub unsafe extern "C" fn bc_vector_get_float(
    vector: *const bc_vector,
    index: usize,
    out: *mut f64,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let (vec, out) = unsafe { (ffi::handle_ref(vector)?, Out::new(out)?) };
        // SAFETY: forwarded contract.
        let b = unsafe { element(vec, index) }?;
        let v = match (vec.element_type, b) {
            (BC_VECTOR_F32, &[a, b, c, d]) => f64::from(f32::from_be_bytes([a, b, c, d])),
            (BC_VECTOR_F64, b) => f64::from_be_bytes(b.try_into().map_err(|_| bad_view())?),
            _ => {
                return Err(Failure::new(
                    bc_status::BC_ERR_WRONG_TYPE,
                    "not a float vector",
                ))
            }
        };
        out.set(v);
        Ok(())
    })
}

fn bad_view() -> Failure {
    ffi::invalid("not a vector view made by bc_value_as_vector")
}

/// The bytes of element `index`.
///
/// # Safety
/// `vec` is a view from `bc_value_as_vector` whose value is still valid.
unsafe fn element(vec: &bc_vector, index: usize) -> Res<&[u8]> {
    let size = match vec.element_type {
        BC_VECTOR_I8 => 1,
        BC_VECTOR_I16 => 2,
        BC_VECTOR_I32 | BC_VECTOR_F32 => 4,
        BC_VECTOR_I64 | BC_VECTOR_F64 => 8,
        _ => return Err(bad_view()),
    };
    if vec.len.checked_mul(size) != Some(vec.data_len) {
        return Err(bad_view());
    }
    if index >= vec.len {
        return Err(Failure::new(
            bc_status::BC_ERR_OUT_OF_RANGE,
            format!("element {index} of {}", vec.len),
        ));
    }
    // SAFETY: forwarded contract: `data` points to `data_len` bytes of a live value.
    let data = unsafe { ffi::bytes(vec.data, vec.data_len) }?;
    data.get(index * size..(index + 1) * size)
        .ok_or_else(bad_view)
}

/// Reads an UnsupportedType structure (Bolt 6.0+) for `version` into `*out`.
///
/// Statuses: as `bc_value_as_node` (tag `0x3F`).
///
/// # Safety
/// As `bc_value_as_node`.
#[no_mangle]
pub unsafe extern "C" fn bc_value_as_unsupported(
    v: *const bc_value,
    version: bc_version,
    out: *mut bc_unsupported,
) -> bc_status {
    ffi::run(|| {
        // SAFETY: forwarded contract.
        let out = unsafe { Out::new(out) }?;
        // SAFETY: forwarded contract.
        let (s, fields) = unsafe { struct_of(v, version) }?;
        let u = {
            let s = &s;
            match s {
                BoltStruct::Unsupported(u) => Ok(bc_unsupported {
                    name: bc_str::of(u.name),
                    minimum_version: BoltVersion::new(
                        u.minimum_protocol_major,
                        u.minimum_protocol_minor,
                    )
                    .into(),
                    message: bc_str::opt(u.message()),
                    extra: field(fields, 3),
                }),
                other => Err(not_kind(other, &[StructKind::UnsupportedType])),
            }
        }?;
        out.set(u);
        Ok(())
    })
}
