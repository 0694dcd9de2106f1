//! PackStream values: [`ValueRef`] borrows from the input, [`Value`] owns its data.
//!
//! Maps keep their entries in wire order, duplicates included, so that a decoded map
//! re-encodes to the same bytes. Lookups with [`ValueRef::get`] follow the PackStream rule
//! that the last entry for a key wins.
//!
//! Equality compares floats by their bits: `NaN == NaN` when the bits are the same, and
//! `0.0 != -0.0`. That makes "decode then encode gives the same value" checkable.

/// A structure whose fields borrow from the input.
#[derive(Debug, Clone, PartialEq)]
pub struct StructRef<'a> {
    /// The tag (signature) byte.
    pub tag: u8,
    /// The fields, in order.
    pub fields: Vec<ValueRef<'a>>,
}

/// A PackStream value that borrows strings and byte arrays from the decoded input.
///
/// ```
/// use packstream::ValueRef;
/// let bytes = [0xA1, 0x83, 0x6F, 0x6E, 0x65, 0x84, 0x65, 0x69, 0x6E, 0x73]; // {"one": "eins"}
/// let (value, used) = ValueRef::decode(&bytes).unwrap();
/// assert_eq!(used, bytes.len());
/// assert_eq!(value.get("one").and_then(ValueRef::as_str), Some("eins"));
/// // Zero copy: the string points into `bytes`.
/// let s = value.get("one").unwrap().as_str().unwrap();
/// assert!(bytes.as_ptr_range().contains(&s.as_ptr()));
/// ```
///
/// Cloning, comparing, printing, converting and dropping never recurse once per nesting
/// level: a value decoded under a raised depth limit is as safe to handle as a flat one.
/// Because of that `ValueRef` implements `Drop`; take a container apart with
/// [`ValueRef::into_list`], [`ValueRef::into_map`] or [`ValueRef::into_struct`]:
///
/// ```
/// use packstream::ValueRef;
/// let (v, _) = ValueRef::decode(&[0x92, 0x01, 0x02]).unwrap();
/// assert_eq!(v.into_list().unwrap(), [ValueRef::Int(1), ValueRef::Int(2)]);
/// assert!(ValueRef::Int(1).into_map().is_err());
/// ```
pub enum ValueRef<'a> {
    /// Null.
    Null,
    /// Boolean.
    Bool(bool),
    /// Signed 64-bit integer.
    Int(i64),
    /// 64-bit float.
    Float(f64),
    /// Byte array.
    Bytes(&'a [u8]),
    /// UTF-8 string.
    String(&'a str),
    /// List.
    List(Vec<ValueRef<'a>>),
    /// Map, entries in wire order.
    Map(Vec<(&'a str, ValueRef<'a>)>),
    /// Structure.
    Struct(StructRef<'a>),
    /// UUID (PackStream v2), 16 bytes in RFC 4122 order.
    Uuid([u8; 16]),
}

/// A structure that owns its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Structure {
    /// The tag (signature) byte.
    pub tag: u8,
    /// The fields, in order.
    pub fields: Vec<Value>,
}

impl Structure {
    /// A structure with the given tag and fields.
    pub fn new(tag: u8, fields: Vec<Value>) -> Self {
        Structure { tag, fields }
    }
}

/// A PackStream value that owns its data.
///
/// ```
/// use packstream::Value;
/// let v = Value::from(vec![Value::from(1), Value::from("two"), Value::Null]);
/// let bytes = v.to_bytes().unwrap();
/// assert_eq!(bytes, [0x93, 0x01, 0x83, b't', b'w', b'o', 0xC0]);
/// assert_eq!(Value::decode_exact(&bytes).unwrap(), v);
/// ```
///
/// As for [`ValueRef`], no operation on a `Value` recurses once per nesting level.
#[derive(Default)]
pub enum Value {
    /// Null.
    #[default]
    Null,
    /// Boolean.
    Bool(bool),
    /// Signed 64-bit integer.
    Int(i64),
    /// 64-bit float.
    Float(f64),
    /// Byte array.
    Bytes(Vec<u8>),
    /// UTF-8 string.
    String(String),
    /// List.
    List(Vec<Value>),
    /// Map, entries in insertion (wire) order.
    Map(Vec<(String, Value)>),
    /// Structure.
    Struct(Structure),
    /// UUID (PackStream v2), 16 bytes in RFC 4122 order.
    Uuid([u8; 16]),
}

#[inline]
pub(crate) fn float_eq(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

/// Accessors shared by both value types.
macro_rules! accessors {
    ([$($gen:tt)*] $ty:ty, $list_item:ty, $map_entry:ty) => {
        impl $($gen)* $ty {
            /// True for `Null`.
            pub fn is_null(&self) -> bool {
                matches!(self, Self::Null)
            }
            /// The boolean, if this is one.
            pub fn as_bool(&self) -> Option<bool> {
                match self {
                    Self::Bool(b) => Some(*b),
                    _ => None,
                }
            }
            /// The integer, if this is one.
            pub fn as_int(&self) -> Option<i64> {
                match self {
                    Self::Int(i) => Some(*i),
                    _ => None,
                }
            }
            /// The float, if this is one.
            pub fn as_float(&self) -> Option<f64> {
                match self {
                    Self::Float(f) => Some(*f),
                    _ => None,
                }
            }
            /// The string, if this is one.
            pub fn as_str(&self) -> Option<&str> {
                match self {
                    Self::String(s) => Some(&**s),
                    _ => None,
                }
            }
            /// The byte array, if this is one.
            pub fn as_bytes(&self) -> Option<&[u8]> {
                match self {
                    Self::Bytes(b) => Some(&**b),
                    _ => None,
                }
            }
            /// The list items, if this is a list.
            pub fn as_list(&self) -> Option<&[$list_item]> {
                match self {
                    Self::List(l) => Some(l.as_slice()),
                    _ => None,
                }
            }
            /// The map entries in wire order, if this is a map.
            pub fn as_map(&self) -> Option<&[$map_entry]> {
                match self {
                    Self::Map(m) => Some(m.as_slice()),
                    _ => None,
                }
            }
            /// The UUID bytes, if this is a UUID.
            pub fn as_uuid(&self) -> Option<&[u8; 16]> {
                match self {
                    Self::Uuid(u) => Some(u),
                    _ => None,
                }
            }
            /// The value for `key` if this is a map; the last entry wins on duplicates.
            pub fn get(&self, key: &str) -> Option<&$list_item> {
                self.as_map()?
                    .iter()
                    .rev()
                    .find(|(k, _)| {
                        let k: &str = k;
                        k == key
                    })
                    .map(|(_, v)| v)
            }
            /// A short name of the value's type, for messages.
            pub fn type_name(&self) -> &'static str {
                match self {
                    Self::Null => "null",
                    Self::Bool(_) => "boolean",
                    Self::Int(_) => "integer",
                    Self::Float(_) => "float",
                    Self::Bytes(_) => "bytes",
                    Self::String(_) => "string",
                    Self::List(_) => "list",
                    Self::Map(_) => "map",
                    Self::Struct(_) => "structure",
                    Self::Uuid(_) => "uuid",
                }
            }
        }
    };
}
accessors!([<'a>] ValueRef<'a>, ValueRef<'a>, (&'a str, ValueRef<'a>));

/// Moving a container's contents out: the trees implement `Drop` (to drop deep values
/// without recursion), so `match value { ValueRef::List(items) => … }` cannot move out of
/// them; these methods can.
macro_rules! into_parts {
    ([$($gen:tt)*] $ty:ty, $item:ty, $entry:ty, $structure:ty) => {
        impl $($gen)* $ty {
            /// The list's items, or the value itself when it is not a list.
            ///
            /// # Errors
            /// Gives `self` back when it is not a list.
            pub fn into_list(mut self) -> Result<Vec<$item>, Self> {
                match &mut self {
                    Self::List(items) => Ok(core::mem::take(items)),
                    _ => Err(self),
                }
            }
            /// The map's entries in wire order, or the value itself when it is not a map.
            ///
            /// # Errors
            /// Gives `self` back when it is not a map.
            pub fn into_map(mut self) -> Result<Vec<$entry>, Self> {
                match &mut self {
                    Self::Map(entries) => Ok(core::mem::take(entries)),
                    _ => Err(self),
                }
            }
            /// The structure, or the value itself when it is not a structure.
            ///
            /// # Errors
            /// Gives `self` back when it is not a structure.
            pub fn into_struct(mut self) -> Result<$structure, Self> {
                match &mut self {
                    Self::Struct(s) => Ok(core::mem::replace(
                        s,
                        <$structure>::empty(),
                    )),
                    _ => Err(self),
                }
            }
        }
    };
}
into_parts!([<'a>] ValueRef<'a>, ValueRef<'a>, (&'a str, ValueRef<'a>), StructRef<'a>);
into_parts!([] Value, Value, (String, Value), Structure);

impl StructRef<'_> {
    fn empty() -> Self {
        StructRef {
            tag: 0,
            fields: Vec::new(),
        }
    }
}

impl Structure {
    fn empty() -> Self {
        Structure::new(0, Vec::new())
    }
}

accessors!([] Value, Value, (String, Value));

impl<'a> ValueRef<'a> {
    /// The structure, if this is one.
    pub fn as_struct(&self) -> Option<&StructRef<'a>> {
        match self {
            ValueRef::Struct(s) => Some(s),
            _ => None,
        }
    }
}

impl Value {
    /// The structure, if this is one.
    pub fn as_struct(&self) -> Option<&Structure> {
        match self {
            Value::Struct(s) => Some(s),
            _ => None,
        }
    }
}

impl<'a> From<&ValueRef<'a>> for Value {
    fn from(v: &ValueRef<'a>) -> Self {
        v.to_owned_value()
    }
}

macro_rules! from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Self { Value::Int(i64::from(v)) }
        }
    )*};
}
from_int!(i8, i16, i32, i64, u8, u16, u32);

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Self {
        Value::Float(v)
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::String(v.to_owned())
    }
}
impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::String(v)
    }
}
impl From<Vec<Value>> for Value {
    fn from(v: Vec<Value>) -> Self {
        Value::List(v)
    }
}
impl From<Vec<(String, Value)>> for Value {
    fn from(v: Vec<(String, Value)>) -> Self {
        Value::Map(v)
    }
}
impl From<Structure> for Value {
    fn from(v: Structure) -> Self {
        Value::Struct(v)
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Self {
        v.map_or(Value::Null, Into::into)
    }
}
