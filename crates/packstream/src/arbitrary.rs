//! Structure-aware generation of PackStream values (feature `arbitrary`), for fuzzing
//! your own PackStream or Bolt code with values that are well-formed by construction.
//!
//! [`Value`], [`ValueRef`], [`Structure`] and [`StructRef`] implement
//! [`arbitrary::Arbitrary`]: the values favour the edges (integers at every marker
//! boundary, NaN and signed zeros, empty and 15/16/255/256-item sizes, duplicate map
//! keys, the structure tags Bolt uses), nest at most [`Generator::DEFAULT`]'s depth and
//! always encode. [`Generator`] tunes depth, width and whether UUIDs (PackStream v2) may
//! appear.
//!
//! ```
//! use arbitrary::{Arbitrary, Unstructured};
//! use packstream::Value;
//!
//! let noise = [7u8; 64];
//! let v = Value::arbitrary(&mut Unstructured::new(&noise)).unwrap();
//! let bytes = v.to_bytes().unwrap(); // always encodes (UUIDs allowed by `to_bytes`)
//! assert_eq!(Value::decode_exact_with(&bytes, &packstream::DecodeOptions::default().with_uuid(true)).unwrap(), v);
//! ```

use arbitrary::{Arbitrary, Result, Unstructured};

use crate::value::{StructRef, Structure, Value, ValueRef};

/// Integers at and around every marker boundary.
const EDGE_INTS: [i64; 18] = [
    0,
    -1,
    -16,
    -17,
    127,
    128,
    -128,
    -129,
    32_767,
    32_768,
    -32_768,
    -32_769,
    2_147_483_647,
    2_147_483_648,
    -2_147_483_648,
    -2_147_483_649,
    i64::MAX,
    i64::MIN,
];

/// Float bit patterns worth trying: zeros, NaNs, infinities, subnormals, extremes.
const EDGE_FLOATS: [u64; 9] = [
    0x0000_0000_0000_0000, // 0.0
    0x8000_0000_0000_0000, // -0.0
    0x7FF8_0000_0000_0000, // NaN
    0xFFF8_0000_0000_0001, // a negative NaN with payload
    0x7FF0_0000_0000_0000, // inf
    0xFFF0_0000_0000_0000, // -inf
    0x0000_0000_0000_0001, // smallest subnormal
    0x7FEF_FFFF_FFFF_FFFF, // largest finite
    0x3FF0_0000_0000_0000, // 1.0
];

/// Collection sizes at the marker boundaries (tiny/8/16 bit), used now and then.
const EDGE_LENS: [usize; 4] = [15, 16, 255, 256];

/// The structure tags Bolt gives a meaning to (values and messages).
const BOLT_TAGS: [u8; 21] = [
    0x4E, 0x52, 0x72, 0x50, 0x44, 0x54, 0x74, 0x49, 0x69, 0x46, 0x66, 0x64, 0x45, 0x58, 0x59, 0x56,
    0x3F, 0x70, 0x71, 0x7E, 0x7F,
];

/// Settings for generating values.
///
/// ```
/// use arbitrary::Unstructured;
/// use packstream::arbitrary::Generator;
///
/// let gen = Generator { uuid: false, ..Generator::DEFAULT };
/// let v = gen.value(&mut Unstructured::new(&[1, 2, 3, 4, 5, 6, 7, 8])).unwrap();
/// assert!(v.to_bytes().is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Generator {
    /// Containers nest at most this deep (the outermost is depth 1).
    pub max_depth: u32,
    /// Most items in a list or structure, entries in a map, apart from the occasional
    /// boundary size (15, 16, 255, 256) that containers of scalars may take.
    pub max_len: usize,
    /// Whether UUID values (PackStream v2, Bolt 6.1+) may appear.
    pub uuid: bool,
    /// Whether structures may appear (with Bolt's tags mostly, but arbitrary fields).
    pub structs: bool,
}

impl Generator {
    /// Depth 5, 12 items, UUIDs and structures allowed: what the `Arbitrary` impls use.
    pub const DEFAULT: Generator = Generator {
        max_depth: 5,
        max_len: 12,
        uuid: true,
        structs: true,
    };

    /// An owned value.
    ///
    /// # Errors
    /// Only [`arbitrary::Error`]s of the input (never for running out of bytes: the
    /// generator then falls back to small values).
    pub fn value(&self, u: &mut Unstructured<'_>) -> Result<Value> {
        Ok(self.value_ref(u)?.to_owned_value())
    }

    /// A value that borrows its strings and byte arrays from `u`'s data.
    ///
    /// # Errors
    /// As [`Generator::value`].
    pub fn value_ref<'a>(&self, u: &mut Unstructured<'a>) -> Result<ValueRef<'a>> {
        self.node(u, 0)
    }

    /// A structure with a Bolt tag or any tag up to 0x7F, and up to 15 fields.
    ///
    /// # Errors
    /// As [`Generator::value`].
    pub fn struct_ref<'a>(&self, u: &mut Unstructured<'a>) -> Result<StructRef<'a>> {
        self.structure(u, 0)
    }

    /// A scalar: null, boolean, integer, float, string, bytes or (if enabled) UUID.
    ///
    /// # Errors
    /// As [`Generator::value`].
    pub fn scalar<'a>(&self, u: &mut Unstructured<'a>) -> Result<ValueRef<'a>> {
        let last = if self.uuid { 6 } else { 5 };
        Ok(match u.int_in_range(0..=last)? {
            0 => ValueRef::Null,
            1 => ValueRef::Bool(u.arbitrary()?),
            2 => ValueRef::Int(int(u)?),
            3 => ValueRef::Float(float(u)?),
            4 => ValueRef::String(u.arbitrary()?),
            5 => ValueRef::Bytes(u.arbitrary()?),
            _ => ValueRef::Uuid(u.arbitrary()?),
        })
    }

    fn len(&self, u: &mut Unstructured<'_>, max: usize) -> Result<usize> {
        u.int_in_range(0..=max.min(self.max_len))
    }

    fn node<'a>(&self, u: &mut Unstructured<'a>, depth: u32) -> Result<ValueRef<'a>> {
        if depth >= self.max_depth || u.is_empty() || u.ratio(3, 5)? {
            return self.scalar(u);
        }
        let depth = depth + 1;
        let last = if self.structs { 3 } else { 2 };
        Ok(match u.int_in_range(0..=last)? {
            0 => {
                let n = self.len(u, usize::MAX)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.node(u, depth)?);
                }
                ValueRef::List(items)
            }
            1 => {
                // A boundary-sized list of scalars.
                let n = *u.choose(&EDGE_LENS)?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.scalar(u)?);
                }
                ValueRef::List(items)
            }
            2 => {
                let n = self.len(u, usize::MAX)?;
                let mut entries: Vec<(&'a str, ValueRef<'a>)> = Vec::with_capacity(n);
                for _ in 0..n {
                    // Now and then a duplicate key: PackStream keeps both.
                    let key = match entries.last() {
                        Some((k, _)) if u.ratio(1, 8)? => *k,
                        _ => u.arbitrary()?,
                    };
                    entries.push((key, self.node(u, depth)?));
                }
                ValueRef::Map(entries)
            }
            _ => ValueRef::Struct(self.structure(u, depth)?),
        })
    }

    fn structure<'a>(&self, u: &mut Unstructured<'a>, depth: u32) -> Result<StructRef<'a>> {
        let tag = if u.ratio(3, 4)? {
            *u.choose(&BOLT_TAGS)?
        } else {
            u.int_in_range(0..=0x7F)?
        };
        let n = self.len(u, 15)?;
        let mut fields = Vec::with_capacity(n);
        for _ in 0..n {
            fields.push(self.node(u, depth)?);
        }
        Ok(StructRef { tag, fields })
    }
}

impl Default for Generator {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// An integer: a boundary one half of the time.
fn int(u: &mut Unstructured<'_>) -> Result<i64> {
    if u.ratio(1, 2)? {
        Ok(*u.choose(&EDGE_INTS)?)
    } else {
        u.arbitrary()
    }
}

/// A float: a special bit pattern a third of the time.
fn float(u: &mut Unstructured<'_>) -> Result<f64> {
    if u.ratio(1, 3)? {
        Ok(f64::from_bits(*u.choose(&EDGE_FLOATS)?))
    } else {
        Ok(f64::from_bits(u.arbitrary()?))
    }
}

impl<'a> Arbitrary<'a> for ValueRef<'a> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Generator::DEFAULT.value_ref(u)
    }
}

impl<'a> Arbitrary<'a> for Value {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Generator::DEFAULT.value(u)
    }
}

impl<'a> Arbitrary<'a> for StructRef<'a> {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        Generator::DEFAULT.struct_ref(u)
    }
}

impl<'a> Arbitrary<'a> for Structure {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let s = Generator::DEFAULT.struct_ref(u)?;
        Ok(Structure::new(
            s.tag,
            s.fields.iter().map(ValueRef::to_owned_value).collect(),
        ))
    }
}
