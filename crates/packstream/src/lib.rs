//! # packstream — zero-copy PackStream that never panics
//!
//! PackStream is the value format under Neo4j's Bolt protocol. This crate decodes it from a
//! `&[u8]` without copying strings or byte arrays, encodes it with the smallest markers
//! (byte-identical to the official Python, Go and JavaScript drivers), and treats every
//! input as hostile: no input makes it panic, overflow the stack, or allocate much more than
//! the input's own size.
//!
//! ## Decode
//!
//! [`ValueRef`] borrows from the input; [`Value`] owns its data. Decoding one value reports
//! how many bytes it used.
//!
//! ```
//! use packstream::ValueRef;
//! // [1, 2.0, "three"]
//! let bytes = [0x93, 0x01, 0xC1, 0x40, 0, 0, 0, 0, 0, 0, 0, 0x85, b't', b'h', b'r', b'e', b'e'];
//! let (value, used) = ValueRef::decode(&bytes).unwrap();
//! assert_eq!(used, bytes.len());
//! assert_eq!(value, ValueRef::List(vec![ValueRef::Int(1), ValueRef::Float(2.0), ValueRef::String("three")]));
//! assert_eq!(value.to_string(), r#"[1, 2.0, "three"]"#);
//! ```
//!
//! The pull API ([`Decoder`] and [`Token`]) lets a binding build its own objects straight
//! from the bytes, with no intermediate tree:
//!
//! ```
//! use packstream::{Decoder, Token};
//! let mut dec = Decoder::new(&[0xA1, 0x81, b'k', 0xC3]); // {"k": true}
//! let mut seen = Vec::new();
//! loop {
//!     seen.push(dec.next_token().unwrap());
//!     if dec.is_complete() { break; }
//! }
//! assert_eq!(seen, [Token::Map(1), Token::String("k"), Token::Bool(true)]);
//! ```
//!
//! ## Encode
//!
//! ```
//! use packstream::{Encoder, Value, Structure};
//! let node = Value::Struct(Structure::new(0x4E, vec![
//!     Value::from(3),
//!     Value::from(vec![Value::from("Example"), Value::from("Node")]),
//!     Value::Map(vec![("name".into(), Value::from("example"))]),
//! ]));
//! let mut out = Vec::new();
//! Encoder::new(&mut out).write_value(&node).unwrap();
//! assert_eq!(&out[..4], [0xB3, 0x4E, 0x03, 0x92]);
//! ```
//!
//! [`Encoder`] writes container headers and leaves the item counts to the caller;
//! [`Writer`], over it, checks them (declared sizes, string map keys, nesting depth) for
//! a caller that streams values out one call at a time.
//!
//! ## Limits and errors
//!
//! [`DecodeLimits`] bounds depth, lengths and the total element count; a declared length is
//! checked against the bytes that remain before anything is allocated. Errors carry an
//! [`ErrorKind`], the byte offset and what was expected. [`ErrorKind::UnexpectedEnd`] means
//! "the input is a valid prefix": a streaming caller should wait for more bytes.
//!
//! ```
//! use packstream::{ErrorKind, ValueRef};
//! // A list that claims 2^32-1 items.
//! let err = ValueRef::decode(&[0xD6, 0xFF, 0xFF, 0xFF, 0xFF]).unwrap_err();
//! assert_eq!(err.kind(), ErrorKind::SizeTooLarge);
//! // A million nested lists: a clean error, not a stack overflow.
//! let deep = vec![0x91u8; 1_000_000];
//! assert_eq!(ValueRef::decode(&deep).unwrap_err().kind(), ErrorKind::LimitExceeded);
//! // A string cut short: incomplete, so wait for more bytes.
//! assert!(ValueRef::decode(&[0x85, b'a', b'b']).unwrap_err().is_incomplete());
//! ```
//!
//! ## Extensions
//!
//! * PackStream v2 (Bolt 6.1+): the UUID marker `E0` + 16 bytes, with
//!   [`DecodeOptions::uuid`] / [`EncodeOptions::uuid`].
//! * Legacy `DC`/`DD` structures (STRUCT_8/16), with [`DecodeOptions::legacy_structs`].
//!
//! ## serde
//!
#![cfg_attr(
    feature = "serde",
    doc = "With the `serde` feature, [`to_vec`] and [`from_slice`] map Rust types to \
           PackStream; see the [`serde`](crate::serde) module for the mapping table."
)]
#![cfg_attr(
    not(feature = "serde"),
    doc = "With the `serde` feature, `to_vec` and `from_slice` map Rust types to \
           PackStream; see the `serde` module for the mapping table."
)]
// `unsafe` only in a few marked functions, each with a SAFETY comment and reached by the
// tests that Miri runs (`cargo +nightly miri test -p boltcodec-packstream`).
#![deny(unsafe_code)]
#![warn(clippy::undocumented_unsafe_blocks)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)
)]
#![warn(missing_docs)]

#[cfg(feature = "arbitrary")]
pub mod arbitrary;
#[cfg(feature = "bench-internals")]
#[doc(hidden)]
pub mod bench;
mod build;
mod decode;
mod encode;
mod error;
mod limits;
pub mod marker;
mod reader;
mod scratch;
#[cfg(feature = "serde")]
pub mod serde;
mod tree;
mod value;
mod writer;

pub use decode::{Decoder, Visitor};
pub use encode::{Encoder, Sink};
#[doc(hidden)]
pub use error::IntoByteOffset;
pub use error::{EncodeError, Error, ErrorInfo, ErrorKind};
pub use limits::{DecodeLimits, DecodeOptions, EncodeOptions};
pub use reader::Token;
#[cfg(feature = "serde")]
pub use serde::{from_slice, from_slice_with, to_vec, to_vec_with};
pub use value::{StructRef, Structure, Value, ValueRef};
pub use writer::{WriteError, Writer};
