//! Python exception classes, and the one mapping from the core crates' errors to them.
//!
//! Every core error type implements [`packstream::ErrorInfo`]: a stable kind name (the
//! table in `tests/vectors/README.md`) and a byte offset. The functions here turn any of
//! them into an exception with those as attributes, whatever the type or variant, so a
//! new kind in the core reaches Python users without a change here.

use packstream::ErrorInfo;
use pyo3::create_exception;
use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    boltcodec,
    DecodeError,
    PyValueError,
    "Input that is not valid PackStream (or not a valid Bolt message).\n\n\
     Attributes: ``kind`` (a stable name such as ``\"unexpected_end\"``, see\n\
     ``tests/vectors/README.md``), ``offset`` (the byte offset of the problem) and\n\
     ``expected`` (what the decoder expected there)."
);
create_exception!(
    boltcodec,
    DechunkError,
    DecodeError,
    "A malformed or over-limit Bolt chunk stream. ``kind`` is ``\"message_too_large\"``,\n\
     ``\"too_many_chunks\"`` or ``\"truncated\"``; ``offset`` is the stream offset."
);
create_exception!(
    boltcodec,
    EncodeError,
    PyValueError,
    "A value that cannot be written as PackStream (for example nested too deeply)."
);

/// Sets attributes on a fresh exception instance. Setting an attribute on our own new
/// exception cannot fail in practice; if it did, the exception is still raised, only
/// without that attribute.
pub(crate) fn set_attrs(py: Python<'_>, err: &PyErr, attrs: &[(&str, Option<u64>)]) {
    let value = err.value(py);
    for (name, v) in attrs {
        let _ = value.setattr(*name, *v);
    }
}

/// Sets ``kind``, ``offset`` and ``expected``.
fn with_info<E: ErrorInfo + ?Sized>(py: Python<'_>, err: PyErr, e: &E, expected: &str) -> PyErr {
    let value = err.value(py);
    let _ = value.setattr("kind", e.kind_name());
    let _ = value.setattr("offset", e.byte_offset());
    let _ = value.setattr("expected", expected);
    err
}

/// A `DecodeError` for any core decoding error in `input` (its offset counts from the
/// first byte of `input`); `expected` says what was expected there.
///
/// The message is the core's, except for a reserved marker, which is named the way the
/// official driver's pure-Python unpacker names it (``Unknown PackStream marker XX``,
/// the byte in hex), since the drop-in stands in for that unpacker.
pub(crate) fn decode_error<E: ErrorInfo + ?Sized>(
    py: Python<'_>,
    e: &E,
    input: &[u8],
    expected: &str,
) -> PyErr {
    let msg = match e.byte_offset() {
        Some(at) if e.kind_name() == packstream::ErrorKind::ReservedMarker.as_str() => {
            let marker = usize::try_from(at)
                .ok()
                .and_then(|i| input.get(i))
                .copied()
                .unwrap_or(0);
            format!("Unknown PackStream marker {marker:02X} at byte {at}")
        }
        _ => e.to_string(),
    };
    with_info(py, DecodeError::new_err(msg), e, expected)
}

/// A `DechunkError` for a chunk-stream error.
pub(crate) fn dechunk_error(py: Python<'_>, e: &bolt::chunk::DechunkError) -> PyErr {
    with_info(
        py,
        DechunkError::new_err(e.to_string()),
        e,
        "a valid chunk stream",
    )
}

/// The exception for a value the core encoder refused, with its ``kind``.
///
/// A value outside PackStream's ranges (a size above the format's maximum, a structure
/// with more fields than it can hold) is an `OverflowError`, as in the official driver's
/// packer, and a structure with too many fields is described in that packer's words (the
/// drop-in stands in for it); anything else is an `EncodeError`.
pub(crate) fn encode_error(e: packstream::EncodeError) -> PyErr {
    let err = match e.kind() {
        "too_many_fields" => PyOverflowError::new_err("Structure size out of range"),
        "size_too_large" => PyOverflowError::new_err(e.to_string()),
        _ => EncodeError::new_err(e.to_string()),
    };
    // Errors are rare: attaching (a no-op on the thread that packs) is not on a hot path.
    Python::attach(|py| {
        let _ = err.value(py).setattr("kind", e.kind());
    });
    err
}
