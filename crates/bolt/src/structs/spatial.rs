//! Spatial structures (docs/protocol.md §2.7).
//!
//! Coordinates are compared by their bits (like [`packstream::Value`]): `NaN == NaN`
//! when the bits match, and `0.0 != -0.0`, so decode-then-encode is checkable exactly.

use core::fmt;

use packstream::ValueRef;

use super::fields::{Field, Fields};

/// SRID of Cartesian 2D points.
pub const SRID_CARTESIAN_2D: i64 = 7203;
/// SRID of Cartesian 3D points.
pub const SRID_CARTESIAN_3D: i64 = 9157;
/// SRID of WGS-84 2D points (x = longitude, y = latitude).
pub const SRID_WGS84_2D: i64 = 4326;
/// SRID of WGS-84 3D points (x = longitude, y = latitude, z = height).
pub const SRID_WGS84_3D: i64 = 4979;

/// Point2D `58`.
///
/// ```
/// use bolt::structs::{BoltStruct, EncodeStruct, Point2D};
/// use bolt::BoltVersion;
/// let p = Point2D { srid: 7203, x: 1.0, y: 2.0 };
/// assert_eq!(p.to_string(), "point({srid: 7203, x: 1.0, y: 2.0})");
/// let bytes = p.to_bytes(BoltVersion::V5_0).unwrap();
/// assert_eq!(bytes[..4], [0xB3, 0x58, 0xC9, 0x1C]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Point2D {
    /// Spatial reference system id, e.g. [`SRID_CARTESIAN_2D`].
    pub srid: i64,
    /// x (or longitude).
    pub x: f64,
    /// y (or latitude).
    pub y: f64,
}

/// Point3D `59`.
///
/// ```
/// use bolt::structs::Point3D;
/// let p = Point3D { srid: 4979, x: -122.4194, y: 37.7749, z: 15.5 };
/// assert_eq!(p.to_string(), "point({srid: 4979, x: -122.4194, y: 37.7749, z: 15.5})");
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Point3D {
    /// Spatial reference system id, e.g. [`SRID_CARTESIAN_3D`].
    pub srid: i64,
    /// x (or longitude).
    pub x: f64,
    /// y (or latitude).
    pub y: f64,
    /// z (or height).
    pub z: f64,
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

impl PartialEq for Point2D {
    /// Bitwise on the coordinates.
    fn eq(&self, other: &Self) -> bool {
        self.srid == other.srid && same(self.x, other.x) && same(self.y, other.y)
    }
}

impl PartialEq for Point3D {
    /// Bitwise on the coordinates.
    fn eq(&self, other: &Self) -> bool {
        self.srid == other.srid
            && same(self.x, other.x)
            && same(self.y, other.y)
            && same(self.z, other.z)
    }
}

impl Point2D {
    pub(super) fn from_fields(f: Fields<'_, '_>) -> Field<Self> {
        Ok(Point2D {
            srid: f.int(0, "srid")?,
            x: f.float(1, "x")?,
            y: f.float(2, "y")?,
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'static>>> {
        Ok(vec![
            ValueRef::Int(self.srid),
            ValueRef::Float(self.x),
            ValueRef::Float(self.y),
        ])
    }
}

impl Point3D {
    pub(super) fn from_fields(f: Fields<'_, '_>) -> Field<Self> {
        Ok(Point3D {
            srid: f.int(0, "srid")?,
            x: f.float(1, "x")?,
            y: f.float(2, "y")?,
            z: f.float(3, "z")?,
        })
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'static>>> {
        Ok(vec![
            ValueRef::Int(self.srid),
            ValueRef::Float(self.x),
            ValueRef::Float(self.y),
            ValueRef::Float(self.z),
        ])
    }
}

impl fmt::Display for Point2D {
    /// `point({srid: 7203, x: 1.0, y: 2.0})`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "point({{srid: {}, x: {:?}, y: {:?}}})",
            self.srid, self.x, self.y
        )
    }
}

impl fmt::Display for Point3D {
    /// `point({srid: 9157, x: 1.0, y: 2.0, z: 3.5})`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "point({{srid: {}, x: {:?}, y: {:?}, z: {:?}}})",
            self.srid, self.x, self.y, self.z
        )
    }
}
