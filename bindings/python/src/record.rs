//! The driver's `Record` objects built natively, and leaf objects kept out of the
//! cyclic garbage collector's way.
//!
//! Reading a large result, the pure driver keeps every `Record` (a `tuple` subclass with
//! an instance `__dict__` holding its keys) and every hydrated date, time or point alive
//! until the caller is done; each is a container the cyclic GC tracks, and every full
//! collection walks them all: on 1,000,000 rows that walk is a large share of the read.
//! None of these objects can be part of a reference cycle (nothing the driver makes
//! points back at a record or at a temporal or spatial value), so once built they are
//! untracked, as CPython itself untracks tuples and dicts that hold only atomic values.
//! Reference counting frees them as before. A dict that later gets a container put into
//! it is tracked again by CPython; a caller who hangs a cycle on such an object through
//! its attributes would keep that cycle alive (not collected), never crash.

use pyo3::prelude::*;

use crate::ffi::untrack;
use pyo3::types::{PyTuple, PyType};

/// ``Record._new(keys, values)`` of the driver (6.2 on), built natively: the record is
/// ``tuple.__new__(cls, values)`` with ``_Record__keys = tuple(keys)``, exactly as the
/// driver's classmethod makes it, then the record and its ``__dict__`` are untracked.
/// Installed by ``boltcodec._records`` as ``classmethod(record_new)`` only after it gave
/// the same records and errors as the release's own ``_new``.
///
/// ```python
/// from boltcodec._native import record_new
/// from neo4j import Record
///
/// r = record_new(Record, ("a", "b"), [1, "x"])
/// assert r == Record._new(("a", "b"), [1, "x"]) and r["b"] == "x"
/// ```
#[pyfunction]
pub(crate) fn record_new<'py>(
    cls: &Bound<'py, PyType>,
    keys: &Bound<'py, PyAny>,
    values: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    crate::guard(|| {
        let py = cls.py();
        if keys.len()? != values.len()? {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "keys and values have different length (keys={}, values={}); this is \
                 either a bug in the driver or a protocol violation by the server",
                keys.repr()?,
                values.repr()?
            )));
        }
        let tuple_new = py
            .get_type::<PyTuple>()
            .getattr(pyo3::intern!(py, "__new__"))?;
        let record = tuple_new.call1((cls, values))?;
        let keys = match keys.cast_exact::<PyTuple>() {
            Ok(t) => t.clone(),
            Err(_) => PyTuple::new(py, keys.try_iter()?.collect::<PyResult<Vec<_>>>()?)?,
        };
        record.setattr(pyo3::intern!(py, "_Record__keys"), keys)?;
        if let Ok(dict) = record.getattr(pyo3::intern!(py, "__dict__")) {
            untrack(&dict);
        }
        untrack(&record);
        Ok(record)
    })
}
