//! Python bindings for boltcodec (`boltcodec._native`).
//!
//! Thin by design: PackStream and Bolt framing live in the core crates (`packstream`,
//! `bolt`); this crate converts between their tokens/messages and Python objects.
//!
//! * [`decode`]: bytes → Python objects, straight from the core pull decoder.
//! * [`encode`]: Python objects → bytes, with the official driver's type rules.
//! * [`chunk`]: Bolt framing (`Dechunker`) and the driver's receive core.
//! * [`dropin`]: the functions of the driver's accelerator module interface.
//! * [`hydrate`]: the driver's own objects (dates, points, …) built natively.
//! * [`ffi`]: the only `unsafe` code: a few raw CPython calls, each justified.
//!
//! Every entry point catches panics (none are expected: the core crates never panic on
//! input, and this crate avoids panicking APIs) and turns them into a `SystemError`, so no
//! `PanicException` (a `BaseException`) can escape to the caller.
// The crate is a Python extension: its only public item is the module function, so its
// documentation is read with `--document-private-items`, where these links resolve.
#![allow(rustdoc::private_intra_doc_links)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod arrow;
mod chunk;
mod connection;
mod decode;
mod dropin;
mod encode;
mod errors;
mod ffi;
mod handshake;
mod hydrate;
mod messages;
mod record;
mod structure;
mod ws;

use packstream::{DecodeLimits, DecodeOptions};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::decode::Config;
use crate::encode::{Flavour, PackConfig};
use crate::ffi::Input;

pub use crate::structure::Structure;

/// Runs `f`, turning a Rust panic into a `SystemError` instead of pyo3's
/// `PanicException` (a `BaseException` that `except Exception` would not catch).
///
/// No panic is expected: the core crates never panic on input and this crate avoids
/// panicking APIs (`clippy::unwrap_used`, `expect_used`, `panic` are denied). This is the
/// last line of defence.
pub(crate) fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(_) => Err(pyo3::exceptions::PySystemError::new_err(
            "boltcodec: internal error (a Rust panic); please report it",
        )),
    }
}

/// Decode options from the keyword arguments of `unpackb`/`unpack_from`.
#[allow(clippy::too_many_arguments)] // mirrors the Python keyword arguments one to one
fn options(
    uuid: bool,
    legacy_structs: bool,
    max_depth: u32,
    max_string_len: u32,
    max_bytes_len: u32,
    max_container_len: u32,
    max_total_elements: u64,
) -> DecodeOptions {
    DecodeOptions::default()
        .with_uuid(uuid)
        .with_legacy_structs(legacy_structs)
        .with_limits(DecodeLimits {
            max_depth,
            max_string_len,
            max_bytes_len,
            max_container_len,
            max_total_elements,
        })
}

/// Decodes exactly one PackStream value from ``data`` (bytes-like).
///
/// ``struct_hook`` is called with every ``Structure`` (innermost first) and its result
/// replaces it. Raises ``DecodeError`` (a ``ValueError``) with ``kind`` and ``offset``.
#[pyfunction]
#[pyo3(signature = (
    data, /, *, struct_hook = None, uuid = false, legacy_structs = false,
    max_depth = DecodeLimits::DEFAULT.max_depth,
    max_string_len = DecodeLimits::DEFAULT.max_string_len,
    max_bytes_len = DecodeLimits::DEFAULT.max_bytes_len,
    max_container_len = DecodeLimits::DEFAULT.max_container_len,
    max_total_elements = DecodeLimits::DEFAULT.max_total_elements,
))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
fn unpackb<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    struct_hook: Option<Bound<'py, PyAny>>,
    uuid: bool,
    legacy_structs: bool,
    max_depth: u32,
    max_string_len: u32,
    max_bytes_len: u32,
    max_container_len: u32,
    max_total_elements: u64,
) -> PyResult<Bound<'py, PyAny>> {
    let cfg = Config {
        opts: options(
            uuid,
            legacy_structs,
            max_depth,
            max_string_len,
            max_bytes_len,
            max_container_len,
            max_total_elements,
        ),
        hook: struct_hook.filter(|h| !h.is_none()),
    };
    guard(|| {
        let input = Input::new(data)?;
        let buf = input.as_slice();
        decode::decode_exact(py, buf, &cfg).map_err(|f| f.into_pyerr(py, 0, buf))
    })
}

/// Decodes one PackStream value at ``data[offset:]``; returns ``(value, end offset)``.
/// Bytes after the value are left alone (for streams of values).
#[pyfunction]
#[pyo3(signature = (
    data, /, offset = 0, *, struct_hook = None, uuid = false, legacy_structs = false,
    max_depth = DecodeLimits::DEFAULT.max_depth,
    max_string_len = DecodeLimits::DEFAULT.max_string_len,
    max_bytes_len = DecodeLimits::DEFAULT.max_bytes_len,
    max_container_len = DecodeLimits::DEFAULT.max_container_len,
    max_total_elements = DecodeLimits::DEFAULT.max_total_elements,
))]
#[allow(clippy::too_many_arguments)] // Python keyword arguments
fn unpack_from<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    offset: usize,
    struct_hook: Option<Bound<'py, PyAny>>,
    uuid: bool,
    legacy_structs: bool,
    max_depth: u32,
    max_string_len: u32,
    max_bytes_len: u32,
    max_container_len: u32,
    max_total_elements: u64,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let cfg = Config {
        opts: options(
            uuid,
            legacy_structs,
            max_depth,
            max_string_len,
            max_bytes_len,
            max_container_len,
            max_total_elements,
        ),
        hook: struct_hook.filter(|h| !h.is_none()),
    };
    guard(|| {
        let input = Input::new(data)?;
        let whole = input.as_slice();
        let rest = whole.get(offset..).unwrap_or_default();
        decode::decode_one(py, rest, &cfg)
            .map(|(v, used)| (v, offset + used))
            .map_err(|f| f.into_pyerr(py, offset, whole))
    })
}

/// Encodes ``obj`` as PackStream ``bytes``, with the smallest markers (byte-identical to
/// the official drivers).
///
/// Accepts ``None``, ``bool``, ``int`` (64-bit), ``float``, ``str``, ``bytes``/
/// ``bytearray``, lists and tuples, dicts with ``str`` keys, ``Structure``, numpy/pandas
/// values (as the Neo4j driver does), and ``uuid.UUID`` when ``uuid`` is true
/// (PackStream v2). For anything else ``default(obj)`` is called and its result packed.
#[pyfunction]
#[pyo3(signature = (obj, /, *, default = None, uuid = false, max_depth = encode::DEFAULT_MAX_DEPTH))]
fn packb<'py>(
    py: Python<'py>,
    obj: &Bound<'py, PyAny>,
    default: Option<Bound<'py, PyAny>>,
    uuid: bool,
    max_depth: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let cfg = PackConfig {
        flavour: Flavour::Own,
        uuid,
        hook: default.filter(|h| !h.is_none()),
        max_depth,
    };
    guard(|| encode::pack(py, obj, &cfg))
}

/// The native module.
#[pymodule(gil_used = true)]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Structure>()?;
    m.add_class::<chunk::PyDechunker>()?;
    m.add_class::<chunk::MessageReader>()?;
    m.add("DecodeError", py.get_type::<errors::DecodeError>())?;
    m.add("DechunkError", py.get_type::<errors::DechunkError>())?;
    m.add("EncodeError", py.get_type::<errors::EncodeError>())?;
    m.add_function(wrap_pyfunction!(packb, m)?)?;
    m.add_function(wrap_pyfunction!(unpackb, m)?)?;
    m.add_function(wrap_pyfunction!(unpack_from, m)?)?;
    m.add_function(wrap_pyfunction!(dropin::neo4j_pack_v1, m)?)?;
    m.add_function(wrap_pyfunction!(dropin::neo4j_pack_v2, m)?)?;
    m.add_function(wrap_pyfunction!(dropin::neo4j_unpack_v1, m)?)?;
    m.add_function(wrap_pyfunction!(dropin::neo4j_unpack_v2, m)?)?;
    m.add_function(wrap_pyfunction!(dropin::swap_endian, m)?)?;
    m.add_class::<hydrate::Hydrator>()?;
    m.add_class::<hydrate::ZoneTable>()?;
    m.add_function(wrap_pyfunction!(record::record_new, m)?)?;
    m.add_class::<record::RecordNew>()?;
    m.add_class::<arrow::ArrowBatches>()?;
    m.add_class::<arrow::ArrowStream>()?;
    m.add_class::<arrow::ArrowSink>()?;
    m.add_function(wrap_pyfunction!(arrow::arrow_from_rows, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::decode_records, m)?)?;
    m.add_class::<connection::PyClientConnection>()?;
    m.add("BoltError", py.get_type::<connection::BoltError>())?;
    m.add_class::<handshake::PyClientHandshake>()?;
    m.add_class::<handshake::PyServerHandshake>()?;
    m.add_class::<ws::PyWsStream>()?;
    m.add_class::<ws::PyClientUpgrade>()?;
    m.add_class::<ws::PyServerUpgrade>()?;
    let _ = dropin::structure_type(py);
    Ok(())
}
