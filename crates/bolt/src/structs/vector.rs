//! The Bolt 6.0 Vector structure `56` (docs/protocol.md §2.8): a one-byte element type
//! marker and the elements packed big-endian, back to back.
//!
//! Elements are read and written bit-exactly: no float is ever normalised, so ±0.0,
//! subnormals, infinities and NaNs with payloads all survive.
//!
//! ```
//! use bolt::structs::{Vector, VectorType};
//!
//! let v = Vector::from_slice(&[1.0f32, 2.0]);
//! assert_eq!(v.element_type(), VectorType::F32);
//! assert_eq!(v.data(), [0x3F, 0x80, 0, 0, 0x40, 0, 0, 0]);
//! assert_eq!(v.to_vec::<f32>(), Some(vec![1.0, 2.0]));
//! assert_eq!(v.to_vec::<i32>(), None); // wrong element type
//! assert_eq!(v.to_string(), "vector<f32>[1.0, 2.0]");
//!
//! // Data borrowed from a decoded message:
//! let v = Vector::new(VectorType::I8, &[0x01, 0xFF][..]).unwrap();
//! assert_eq!(v.iter::<i8>().unwrap().collect::<Vec<_>>(), [1, -1]);
//! // A length that is not a multiple of the element size is refused.
//! assert!(Vector::new(VectorType::I16, &[0x01, 0x02, 0x03][..]).is_err());
//! ```

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;
use std::slice::ChunksExact;

use packstream::ValueRef;

use super::broken::BrokenReason;
use super::fields::{Field, Fields};

/// The element type of a [`Vector`], named by a PackStream marker byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VectorType {
    /// `C8`: 8-bit signed integers.
    I8,
    /// `C9`: 16-bit signed integers.
    I16,
    /// `CA`: 32-bit signed integers.
    I32,
    /// `CB`: 64-bit signed integers.
    I64,
    /// `C6`: 32-bit IEEE-754 floats.
    F32,
    /// `C1`: 64-bit IEEE-754 floats.
    F64,
}

impl VectorType {
    /// Every element type.
    pub const ALL: [VectorType; 6] = [
        VectorType::I8,
        VectorType::I16,
        VectorType::I32,
        VectorType::I64,
        VectorType::F32,
        VectorType::F64,
    ];

    /// The marker byte sent in the `type_marker` field.
    #[must_use]
    pub const fn marker(self) -> u8 {
        match self {
            VectorType::I8 => 0xC8,
            VectorType::I16 => 0xC9,
            VectorType::I32 => 0xCA,
            VectorType::I64 => 0xCB,
            VectorType::F32 => 0xC6,
            VectorType::F64 => 0xC1,
        }
    }

    /// The type a marker byte names, if any.
    #[must_use]
    pub const fn from_marker(marker: u8) -> Option<Self> {
        Some(match marker {
            0xC8 => VectorType::I8,
            0xC9 => VectorType::I16,
            0xCA => VectorType::I32,
            0xCB => VectorType::I64,
            0xC6 => VectorType::F32,
            0xC1 => VectorType::F64,
            _ => return None,
        })
    }

    /// The size of one element in bytes.
    #[must_use]
    pub const fn size(self) -> usize {
        match self {
            VectorType::I8 => 1,
            VectorType::I16 => 2,
            VectorType::I32 | VectorType::F32 => 4,
            VectorType::I64 | VectorType::F64 => 8,
        }
    }

    /// The short name: `"i8"`, `"i16"`, `"i32"`, `"i64"`, `"f32"` or `"f64"` (the names
    /// the official Python driver uses).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            VectorType::I8 => "i8",
            VectorType::I16 => "i16",
            VectorType::I32 => "i32",
            VectorType::I64 => "i64",
            VectorType::F32 => "f32",
            VectorType::F64 => "f64",
        }
    }
}

impl fmt::Display for VectorType {
    /// Writes [`VectorType::name`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A Rust type that can be a [`Vector`] element: `i8`, `i16`, `i32`, `i64`, `f32`,
/// `f64`. Sealed.
pub trait VectorElement: sealed::Sealed + Copy + fmt::Debug {
    /// The matching element type.
    const TYPE: VectorType;
    /// Reads one element from its big-endian bytes; `None` if `bytes` is not exactly
    /// one element long.
    fn from_be_slice(bytes: &[u8]) -> Option<Self>;
    /// Appends the element's big-endian bytes.
    fn extend_be(self, out: &mut Vec<u8>);
}

macro_rules! element {
    ($($t:ty => $ty:ident),*) => {$(
        impl sealed::Sealed for $t {}
        impl VectorElement for $t {
            const TYPE: VectorType = VectorType::$ty;
            #[inline]
            fn from_be_slice(bytes: &[u8]) -> Option<Self> {
                bytes.try_into().ok().map(<$t>::from_be_bytes)
            }
            #[inline]
            fn extend_be(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_be_bytes());
            }
        }
    )*};
}
element!(i8 => I8, i16 => I16, i32 => I32, i64 => I64, f32 => F32, f64 => F64);

/// A vector's elements decoded into a `Vec` of the matching Rust type.
#[derive(Clone, Debug, PartialEq)]
pub enum VectorElements {
    /// `i8` elements.
    I8(Vec<i8>),
    /// `i16` elements.
    I16(Vec<i16>),
    /// `i32` elements.
    I32(Vec<i32>),
    /// `i64` elements.
    I64(Vec<i64>),
    /// `f32` elements (bits unchanged).
    F32(Vec<f32>),
    /// `f64` elements (bits unchanged).
    F64(Vec<f64>),
}

/// Vector `56` (Bolt 6.0+): an element type and the elements' big-endian bytes.
///
/// The data is borrowed from the decoded message when it comes from the wire and owned
/// when built from a slice. The length is always a multiple of the element size.
/// Equality compares the element type and the bytes, so floats compare bitwise.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Vector<'a> {
    element_type: VectorType,
    data: Cow<'a, [u8]>,
}

impl<'a> Vector<'a> {
    /// A vector of `element_type` over the big-endian bytes `data`.
    ///
    /// # Errors
    /// [`BrokenReason::VectorLength`] if `data.len()` is not a multiple of the element
    /// size.
    pub fn new(
        element_type: VectorType,
        data: impl Into<Cow<'a, [u8]>>,
    ) -> Result<Self, BrokenReason> {
        let data = data.into();
        let element_size = element_type.size();
        if data.len() % element_size != 0 {
            return Err(BrokenReason::VectorLength {
                len: data.len(),
                element_size,
            });
        }
        Ok(Vector { element_type, data })
    }

    /// A vector holding a copy of `elements`, in big-endian order.
    #[must_use]
    pub fn from_slice<T: VectorElement>(elements: &[T]) -> Vector<'static> {
        let mut data = Vec::with_capacity(elements.len().saturating_mul(T::TYPE.size()));
        for e in elements {
            e.extend_be(&mut data);
        }
        Vector {
            element_type: T::TYPE,
            data: Cow::Owned(data),
        }
    }

    /// The element type.
    #[must_use]
    pub fn element_type(&self) -> VectorType {
        self.element_type
    }

    /// The number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.data.len() / self.element_type.size()
    }

    /// Whether there are no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The raw big-endian element bytes, as on the wire.
    #[must_use]
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// An iterator over the elements if `T` matches the element type.
    #[must_use]
    pub fn iter<T: VectorElement>(&self) -> Option<VectorIter<'_, T>> {
        (T::TYPE == self.element_type).then(|| VectorIter {
            chunks: self.data.chunks_exact(T::TYPE.size()),
            element: PhantomData,
        })
    }

    /// The elements as a `Vec<T>` if `T` matches the element type.
    #[must_use]
    pub fn to_vec<T: VectorElement>(&self) -> Option<Vec<T>> {
        self.iter().map(Iterator::collect)
    }

    /// The elements decoded into the matching Rust type.
    #[must_use]
    pub fn elements(&self) -> VectorElements {
        fn all<T: VectorElement>(v: &Vector<'_>) -> Vec<T> {
            v.to_vec().unwrap_or_default()
        }
        match self.element_type {
            VectorType::I8 => VectorElements::I8(all(self)),
            VectorType::I16 => VectorElements::I16(all(self)),
            VectorType::I32 => VectorElements::I32(all(self)),
            VectorType::I64 => VectorElements::I64(all(self)),
            VectorType::F32 => VectorElements::F32(all(self)),
            VectorType::F64 => VectorElements::F64(all(self)),
        }
    }

    /// A copy that owns its data.
    #[must_use]
    pub fn into_owned(self) -> Vector<'static> {
        Vector {
            element_type: self.element_type,
            data: Cow::Owned(self.data.into_owned()),
        }
    }

    pub(super) fn from_fields(f: Fields<'_, 'a>) -> Field<Self> {
        let marker = f.bytes(0, "type_marker")?;
        let element_type = match marker {
            [m] => VectorType::from_marker(*m),
            _ => None,
        }
        .ok_or_else(|| BrokenReason::VectorTypeMarker {
            marker: marker.to_vec(),
        })?;
        Vector::new(element_type, f.bytes(1, "data")?)
    }

    pub(super) fn encode_fields(&self) -> Field<Vec<ValueRef<'_>>> {
        // Constant promotion gives the one-byte markers a 'static lifetime.
        let marker: &'static [u8] = match self.element_type {
            VectorType::I8 => &[0xC8],
            VectorType::I16 => &[0xC9],
            VectorType::I32 => &[0xCA],
            VectorType::I64 => &[0xCB],
            VectorType::F32 => &[0xC6],
            VectorType::F64 => &[0xC1],
        };
        Ok(vec![ValueRef::Bytes(marker), ValueRef::Bytes(&self.data)])
    }
}

/// Iterator over a [`Vector`]'s elements as `T`; see [`Vector::iter`].
#[derive(Clone, Debug)]
pub struct VectorIter<'v, T> {
    chunks: ChunksExact<'v, u8>,
    element: PhantomData<T>,
}

impl<T: VectorElement> Iterator for VectorIter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.chunks.next().and_then(T::from_be_slice)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<T: VectorElement> DoubleEndedIterator for VectorIter<'_, T> {
    fn next_back(&mut self) -> Option<T> {
        self.chunks.next_back().and_then(T::from_be_slice)
    }
}

impl<T: VectorElement> ExactSizeIterator for VectorIter<'_, T> {}

impl fmt::Display for Vector<'_> {
    /// `vector<f32>[1.0, 2.0]`: integers as integers, floats as Rust's `{:?}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<T: VectorElement>(
            f: &mut fmt::Formatter<'_>,
            v: &Vector<'_>,
            show: fn(&mut fmt::Formatter<'_>, T) -> fmt::Result,
        ) -> fmt::Result {
            f.write_str("[")?;
            for (i, e) in v.iter::<T>().into_iter().flatten().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                show(f, e)?;
            }
            f.write_str("]")
        }
        write!(f, "vector<{}>", self.element_type)?;
        match self.element_type {
            VectorType::I8 => list::<i8>(f, self, |f, e| write!(f, "{e}")),
            VectorType::I16 => list::<i16>(f, self, |f, e| write!(f, "{e}")),
            VectorType::I32 => list::<i32>(f, self, |f, e| write!(f, "{e}")),
            VectorType::I64 => list::<i64>(f, self, |f, e| write!(f, "{e}")),
            VectorType::F32 => list::<f32>(f, self, |f, e| write!(f, "{e:?}")),
            VectorType::F64 => list::<f64>(f, self, |f, e| write!(f, "{e:?}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        for t in VectorType::ALL {
            assert_eq!(VectorType::from_marker(t.marker()), Some(t));
        }
        assert_eq!(VectorType::from_marker(0xC7), None);
    }

    #[test]
    fn elements_bit_exact() {
        let weird = f32::from_bits(0xFFC0_1234); // negative NaN with payload
        let v = Vector::from_slice(&[0.0f32, -0.0, f32::MIN_POSITIVE / 2.0, weird]);
        let back = v.to_vec::<f32>().unwrap();
        let bits: Vec<u32> = back.iter().map(|x| x.to_bits()).collect();
        assert_eq!(
            bits,
            [
                0,
                0x8000_0000,
                (f32::MIN_POSITIVE / 2.0).to_bits(),
                0xFFC0_1234
            ]
        );
        let v = Vector::from_slice(&[i64::MIN, i64::MAX]);
        assert_eq!(v.elements(), VectorElements::I64(vec![i64::MIN, i64::MAX]));
        assert_eq!(v.iter::<i64>().unwrap().next_back(), Some(i64::MAX));
        assert_eq!(v.iter::<i64>().unwrap().len(), 2);
        assert_eq!(
            v.to_string(),
            format!("vector<i64>[{}, {}]", i64::MIN, i64::MAX)
        );
        let empty = Vector::from_slice::<f64>(&[]);
        assert!(empty.is_empty());
        assert_eq!(empty.to_string(), "vector<f64>[]");
    }
}
