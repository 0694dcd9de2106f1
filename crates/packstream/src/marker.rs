//! Marker bytes of PackStream v1 (and the v2 UUID marker).
//!
//! Every PackStream value starts with one marker byte. The tiny forms carry a small size or
//! value in the marker itself: `0x80 | n` is a string of `n < 16` bytes, `0x90 | n` a list,
//! `0xA0 | n` a map, `0xB0 | n` a structure, and `0x00..=0x7F` / `0xF0..=0xFF` are the
//! integers -16..=127.
//!
//! ```
//! use packstream::marker;
//! assert_eq!(marker::NULL, 0xC0);
//! assert_eq!(marker::TINY_STRING | 3, 0x83);
//! ```

/// Tiny string, low nibble = byte length (0..=15).
pub const TINY_STRING: u8 = 0x80;
/// Tiny list, low nibble = item count (0..=15).
pub const TINY_LIST: u8 = 0x90;
/// Tiny map, low nibble = entry count (0..=15).
pub const TINY_MAP: u8 = 0xA0;
/// Tiny structure, low nibble = field count (0..=15); a tag byte follows.
pub const TINY_STRUCT: u8 = 0xB0;
/// Null.
pub const NULL: u8 = 0xC0;
/// IEEE-754 binary64, big-endian.
pub const FLOAT_64: u8 = 0xC1;
/// Boolean false.
pub const FALSE: u8 = 0xC2;
/// Boolean true.
pub const TRUE: u8 = 0xC3;
/// Signed 8-bit integer.
pub const INT_8: u8 = 0xC8;
/// Signed 16-bit integer, big-endian.
pub const INT_16: u8 = 0xC9;
/// Signed 32-bit integer, big-endian.
pub const INT_32: u8 = 0xCA;
/// Signed 64-bit integer, big-endian.
pub const INT_64: u8 = 0xCB;
/// Byte array with a u8 size.
pub const BYTES_8: u8 = 0xCC;
/// Byte array with a u16 size.
pub const BYTES_16: u8 = 0xCD;
/// Byte array with a u32 size.
pub const BYTES_32: u8 = 0xCE;
/// String with a u8 size.
pub const STRING_8: u8 = 0xD0;
/// String with a u16 size.
pub const STRING_16: u8 = 0xD1;
/// String with a u32 size.
pub const STRING_32: u8 = 0xD2;
/// List with a u8 item count.
pub const LIST_8: u8 = 0xD4;
/// List with a u16 item count.
pub const LIST_16: u8 = 0xD5;
/// List with a u32 item count.
pub const LIST_32: u8 = 0xD6;
/// Map with a u8 entry count.
pub const MAP_8: u8 = 0xD8;
/// Map with a u16 entry count.
pub const MAP_16: u8 = 0xD9;
/// Map with a u32 entry count.
pub const MAP_32: u8 = 0xDA;
/// Legacy structure with a u8 field count (not in the current spec; opt-in).
pub const STRUCT_8: u8 = 0xDC;
/// Legacy structure with a u16 field count (not in the current spec; opt-in).
pub const STRUCT_16: u8 = 0xDD;
/// PackStream v2 (Bolt 6.1+): UUID, followed by 16 bytes in RFC 4122 order.
pub const UUID: u8 = 0xE0;

/// The largest size PackStream allows for strings, bytes, lists and maps (i32::MAX).
pub const MAX_SIZE: u32 = i32::MAX as u32;
