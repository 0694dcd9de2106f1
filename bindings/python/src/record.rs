//! The driver's `Record` objects built natively, and leaf objects kept out of the
//! cyclic garbage collector's way.
//!
//! Reading a large result, the pure driver keeps every `Record` (a `tuple` subclass with
//! an instance `__dict__` holding its keys) and every hydrated date, time or point alive
//! until the caller is done; each is a container the cyclic GC tracks, and every full
//! collection walks them all: on 1,000,000 rows that walk is a large share of the read.
//! Nothing the driver makes points back at a record or at a temporal or spatial value,
//! so once built they are untracked, as CPython itself untracks tuples and dicts that
//! hold only atomic values; a record only when its values are all such leaves (see
//! [`crate::ffi::never_leads_back`]): a record holding a list, a dict or a node stays
//! tracked, since a caller may put the record (or what holds it) into that list, and
//! the cycle must still be collected. Reference counting frees them as before. A dict
//! that later gets a container put into it is tracked again by CPython; a caller who
//! hangs a cycle on a leaf through its attributes would keep that cycle alive (not
//! collected), never crash.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use crate::ffi::{untrack, untrack_if_leaves};
use pyo3::types::{PyDict, PyTuple, PyType};

/// `tuple.__new__(cls, values)` with `_Record__keys = keys`, its `__dict__` untracked
/// and the record too when its values are all leaves: the record every release's
/// `Record.__new__` / `Record._new` makes.
fn make_record<'py>(
    cls: &Bound<'py, PyType>,
    keys: Bound<'py, PyTuple>,
    values: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = cls.py();
    static TUPLE_NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let tuple_new = TUPLE_NEW.get_or_try_init(py, || {
        py.get_type::<PyTuple>()
            .getattr(pyo3::intern!(py, "__new__"))
            .map(Bound::unbind)
    })?;
    let record = tuple_new.bind(py).call1((cls, values))?;
    record.setattr(pyo3::intern!(py, "_Record__keys"), keys)?;
    if let Ok(dict) = record.getattr(pyo3::intern!(py, "__dict__")) {
        untrack(&dict);
    }
    // Tracked, as CPython keeps a tuple tracked, when a value may lead back to it: a
    // list, a dict, a node (a caller may append the record to a list it holds).
    if let Ok(items) = record.cast::<PyTuple>() {
        untrack_if_leaves(&record, items.iter());
    }
    Ok(record)
}

/// ``Record.__new__`` of the driver releases before 6.2, which build each row with
/// ``Record(zip(keys, values))``: called with one exact ``zip`` object, the pairs are
/// read natively and the record made as ``Record.__new__`` makes it (untracked as
/// above); any other call goes to the release's own ``__new__`` (``original``), and so
/// does a zip whose items are not pairs (with the items read so far put back in front),
/// so every error is the release's own.
///
/// Installed by ``boltcodec._records`` as ``Record.__new__ = staticmethod(RecordNew(
/// Record, original))`` only after it gave the same records and errors as the
/// release's ``__new__`` on samples.
///
/// ```python
/// from boltcodec._native import RecordNew
/// from neo4j import Record
///
/// new = RecordNew(Record, Record.__new__)
/// assert new(Record, zip(("a", "b"), (1, "x"))) == Record({"a": 1, "b": "x"})
/// ```
#[pyclass(module = "boltcodec._native", frozen)]
pub struct RecordNew {
    cls: Py<PyType>,
    original: Py<PyAny>,
    /// `zip` and `itertools.chain`.
    zip_type: Py<PyAny>,
    chain: Py<PyAny>,
}

#[pymethods]
impl RecordNew {
    #[new]
    fn new(py: Python<'_>, cls: Py<PyType>, original: Py<PyAny>) -> PyResult<Self> {
        Ok(RecordNew {
            cls,
            original,
            zip_type: py.import("builtins")?.getattr("zip")?.unbind(),
            chain: py.import("itertools")?.getattr("chain")?.unbind(),
        })
    }

    #[pyo3(signature = (cls, *args, **kwargs))]
    fn __call__<'py>(
        &self,
        cls: &Bound<'py, PyType>,
        args: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        crate::guard(|| {
            let py = cls.py();
            let original = self.original.bind(py);
            let pairs = match args.len() {
                1 if kwargs.is_none_or(|k| k.is_empty()) && cls.is(self.cls.bind(py)) => {
                    args.get_item(0)?
                }
                _ => {
                    let mut all = vec![cls.clone().into_any()];
                    all.extend(args.iter());
                    return original.call(PyTuple::new(py, all)?, kwargs);
                }
            };
            if !pairs.get_type().is(self.zip_type.bind(py)) {
                return original.call1((cls, pairs));
            }
            // A zip is its own iterator, and every item of one zip has the same length
            // (one per zipped iterable): the first tells whether all are pairs.
            let mut items = pairs.try_iter()?;
            let Some(first) = items.next().transpose()? else {
                return make_record(cls, PyTuple::empty(py), PyTuple::empty(py).as_any());
            };
            if !first
                .cast_exact::<PyTuple>()
                .is_ok_and(|pair| pair.len() == 2)
            {
                // Not pairs: the release's __new__ on the same items, from the first,
                // raises or builds what it would have.
                let rest = self.chain.bind(py).call1(((first,), pairs))?;
                return original.call1((cls, rest));
            }
            let (mut keys, mut values) = (Vec::new(), Vec::new());
            for item in std::iter::once(Ok(first)).chain(items) {
                let pair = item?.cast_into_exact::<PyTuple>()?;
                keys.push(pair.get_item(0)?);
                values.push(pair.get_item(1)?);
            }
            make_record(
                cls,
                PyTuple::new(py, keys)?,
                PyTuple::new(py, values)?.as_any(),
            )
        })
    }

    fn __traverse__(&self, visit: pyo3::gc::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        visit.call(&self.cls)?;
        visit.call(&self.original)?;
        visit.call(&self.zip_type)?;
        visit.call(&self.chain)?;
        Ok(())
    }
}

/// ``Record._new(keys, values)`` of the driver (6.2 on), built natively: the record is
/// ``tuple.__new__(cls, values)`` with ``_Record__keys = tuple(keys)``, exactly as the
/// driver's classmethod makes it, then its ``__dict__`` is untracked, and the record too
/// when its values are all leaves (see the module documentation).
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
        let keys = match keys.cast_exact::<PyTuple>() {
            Ok(t) => t.clone(),
            Err(_) => PyTuple::new(py, keys.try_iter()?.collect::<PyResult<Vec<_>>>()?)?,
        };
        make_record(cls, keys, values)
    })
}
