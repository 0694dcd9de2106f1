//! # boltcodec C API
//!
//! `libboltcodec.a` / `libboltcodec.so` and `include/boltcodec.h`: the PackStream and Bolt
//! layers of boltcodec for C and C++ programs. The header is generated from this crate by
//! cbindgen (see `build.rs`); every item documented here appears there with its comment.
//!
//! The crate is a thin layer over `packstream` and `bolt`: it converts between C data and
//! the core types and holds no protocol logic of its own.
//!
//! ## Rules every entry point follows
//!
//! * **No panic crosses the boundary.** Every `extern "C"` function runs its body under
//!   [`std::panic::catch_unwind`]; a panic (a bug: the core crates never panic on input)
//!   becomes `BC_ERR_INTERNAL`.
//! * **NULL is checked.** A NULL handle, input or output pointer gives
//!   [`bc_status::BC_ERR_NULL_POINTER`]; a NULL data pointer is accepted only with a length
//!   of 0.
//! * **Enums C passes in are integers**, validated on entry
//!   ([`bc_status::BC_ERR_INVALID_ARGUMENT`] when out of range): a Rust enum received from
//!   C with an unknown value would be undefined behaviour.
//! * **One status enum** (`bc_status`) is returned by every fallible call; each handle
//!   keeps the message and byte offset of its last error.
//!
//! ## Unsafe code
//!
//! An FFI crate must dereference the raw pointers C hands it, so `unsafe` is allowed here
//! (the workspace denies it elsewhere). It is confined to a few helpers in [`ffi`] and to
//! the reads of decoded value trees in [`value`]; every block states its invariant in a
//! `// SAFETY:` comment.
// The workspace denies unsafe code; an FFI crate cannot avoid it (raw pointers from C).
#![allow(unsafe_code)]
// C names: `bc_value`, `BC_OK`, … are the names the header exports.
#![allow(non_camel_case_types)]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::panic))]
#![warn(clippy::undocumented_unsafe_blocks)]

// Declaration order is the header's order (cbindgen follows it); rustfmt keeps groups
// separated by blank lines apart.
pub mod status;

pub mod value;

pub mod decoder;

pub mod encoder;

pub mod framing;

pub mod handshake;

pub mod structs;

pub mod connection;

pub mod arrow;

pub mod ffi;

pub use status::{bc_error, bc_status};
pub use value::{bc_payload, bc_value};

#[cfg(test)]
mod miri_tests;
