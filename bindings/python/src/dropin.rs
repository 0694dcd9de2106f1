//! The functions the official driver imports from its accelerator module
//! (`neo4j._rust.codec.packstream.v1`/`v2` and `neo4j._rust.vector`), with the same
//! signatures and behaviour as its pure-Python codec, but errors instead of crashes.

use packstream::DecodeOptions;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyType};

use crate::decode::{self, Config};
use crate::encode::{self, Flavour, PackConfig};
use crate::ffi::Input;
use crate::structure::Structure;

/// The `Structure` entry of the driver's hydration hooks, as its pure-Python unpacker
/// looks it up (`if not hooks: …; hooks.get(type(value))`).
pub(crate) fn structure_hook<'py>(
    py: Python<'py>,
    hooks: Option<&Bound<'py, PyAny>>,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Some(hooks) = hooks else {
        return Ok(None);
    };
    if hooks.is_none() {
        return Ok(None);
    }
    let key = py.get_type::<Structure>();
    let hook = if let Ok(d) = hooks.cast_exact::<PyDict>() {
        if d.is_empty() {
            return Ok(None);
        }
        d.get_item(&key)?
    } else {
        if !hooks.is_truthy()? {
            return Ok(None);
        }
        let h = hooks.call_method1(pyo3::intern!(py, "get"), (&key,))?;
        (!h.is_none()).then_some(h)
    };
    match hook {
        Some(h) if h.is_truthy()? => Ok(Some(h)),
        _ => Ok(None),
    }
}

fn unpack<'py>(
    py: Python<'py>,
    buf: &Bound<'py, PyAny>,
    idx: usize,
    hydration_hooks: Option<&Bound<'py, PyAny>>,
    uuid: bool,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    let cfg = Config {
        opts: DecodeOptions::default().with_uuid(uuid),
        hook: structure_hook(py, hydration_hooks)?,
    };
    let input = Input::new(buf)?;
    let whole = input.as_slice();
    let rest = whole.get(idx..).unwrap_or_default();
    match decode::decode_one(py, rest, &cfg) {
        Ok((value, used)) => Ok((value, idx + used)),
        Err(f) => Err(f.into_pyerr(py, idx, whole)),
    }
}

fn pack<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    dehydration_hooks: Option<Bound<'py, PyAny>>,
    uuid: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let cfg = PackConfig {
        flavour: Flavour::Driver,
        uuid,
        hook: dehydration_hooks.filter(|h| !h.is_none()),
        max_depth: encode::DEFAULT_MAX_DEPTH,
    };
    encode::pack(py, value, &cfg)
}

/// Drop-in for ``neo4j._rust.codec.packstream.v1.unpack``: decodes one value at
/// ``bytes[idx:]``; returns ``(value, index after it)``.
#[pyfunction]
#[pyo3(signature = (bytes, idx, hydration_hooks = None))]
pub(crate) fn neo4j_unpack_v1<'py>(
    py: Python<'py>,
    bytes: &Bound<'py, PyAny>,
    idx: usize,
    hydration_hooks: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    crate::guard(|| unpack(py, bytes, idx, hydration_hooks, false))
}

/// Drop-in for ``neo4j._rust.codec.packstream.v2.unpack`` (PackStream v2: UUIDs).
#[pyfunction]
#[pyo3(signature = (bytes, idx, hydration_hooks = None))]
pub(crate) fn neo4j_unpack_v2<'py>(
    py: Python<'py>,
    bytes: &Bound<'py, PyAny>,
    idx: usize,
    hydration_hooks: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, usize)> {
    crate::guard(|| unpack(py, bytes, idx, hydration_hooks, true))
}

/// Drop-in for ``neo4j._rust.codec.packstream.v1.pack``.
#[pyfunction]
#[pyo3(signature = (value, dehydration_hooks = None))]
pub(crate) fn neo4j_pack_v1<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    dehydration_hooks: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    crate::guard(|| pack(py, value, dehydration_hooks, false))
}

/// Drop-in for ``neo4j._rust.codec.packstream.v2.pack`` (PackStream v2: UUIDs).
#[pyfunction]
#[pyo3(signature = (value, dehydration_hooks = None))]
pub(crate) fn neo4j_pack_v2<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    dehydration_hooks: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyBytes>> {
    crate::guard(|| pack(py, value, dehydration_hooks, true))
}

/// Drop-in for ``neo4j._rust.vector.swap_endian``: reverses the byte order of every
/// ``type_size``-byte element of ``data`` (``type_size`` 2, 4 or 8).
#[pyfunction]
#[pyo3(signature = (type_size, data, /))]
pub(crate) fn swap_endian<'py>(
    py: Python<'py>,
    type_size: usize,
    data: &Bound<'py, PyBytes>,
) -> PyResult<Bound<'py, PyBytes>> {
    if !matches!(type_size, 2 | 4 | 8) {
        return Err(PyValueError::new_err(format!(
            "Unsupported type size {type_size}"
        )));
    }
    let src = data.as_bytes();
    if src.len() % type_size != 0 {
        return Err(PyValueError::new_err(format!(
            "Data length {} not a multiple of type_size {type_size}",
            src.len()
        )));
    }
    PyBytes::new_with(py, src.len(), |out| {
        for (o, i) in out
            .chunks_exact_mut(type_size)
            .zip(src.chunks_exact(type_size))
        {
            for (a, b) in o.iter_mut().zip(i.iter().rev()) {
                *a = *b;
            }
        }
        Ok(())
    })
}

/// The `Structure` type, for the drop-in's `neo4j._rust.codec.packstream` module.
pub(crate) fn structure_type(py: Python<'_>) -> Bound<'_, PyType> {
    py.get_type::<Structure>()
}
