//! Python exception classes and the mapping from the core crates' errors.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
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

/// Builds a `DecodeError` (or subclass) instance with its attributes set.
fn with_attrs(err: PyErr, py: Python<'_>, kind: &str, offset: u64, expected: &str) -> PyErr {
    let value = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail in practice; if it
    // did, the exception is still raised, only without the attribute.
    let _ = value.setattr("kind", kind);
    let _ = value.setattr("offset", offset);
    let _ = value.setattr("expected", expected);
    err
}

/// A `DecodeError` for a PackStream decoding error, with offsets moved by `base`.
pub(crate) fn decode_error(py: Python<'_>, e: packstream::Error, input: &[u8]) -> PyErr {
    let msg = match e.kind() {
        packstream::ErrorKind::ReservedMarker => {
            let marker = input.get(e.offset()).copied().unwrap_or(0);
            format!(
                "Unknown PackStream marker {marker:02X} at byte {}",
                e.offset()
            )
        }
        _ => e.to_string(),
    };
    with_attrs(
        DecodeError::new_err(msg),
        py,
        e.kind().as_str(),
        e.offset() as u64,
        e.expected(),
    )
}

/// A `DecodeError` raised by the binding itself (not by the core decoder).
pub(crate) fn decode_error_msg(
    py: Python<'_>,
    kind: &str,
    offset: u64,
    expected: &str,
    msg: String,
) -> PyErr {
    with_attrs(DecodeError::new_err(msg), py, kind, offset, expected)
}

/// A `DechunkError` for a chunk-stream error.
pub(crate) fn dechunk_error(py: Python<'_>, e: &bolt::chunk::DechunkError) -> PyErr {
    use bolt::chunk::DechunkError as E;
    let (kind, offset) = match e {
        E::MessageTooLarge { offset, .. } => ("message_too_large", *offset),
        E::TooManyChunks { offset, .. } => ("too_many_chunks", *offset),
        E::Truncated { offset, .. } => ("truncated", *offset),
        E::Internal { offset } => ("internal", *offset),
        _ => ("invalid_chunk", 0),
    };
    with_attrs(
        DechunkError::new_err(e.to_string()),
        py,
        kind,
        offset,
        "a valid chunk stream",
    )
}
