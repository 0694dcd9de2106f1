//! `Structure`: a PackStream structure (tag + fields) as a Python object.
//!
//! It behaves like the official driver's pure-Python `Structure` (the driver's tests check
//! `tag`, `fields`, equality, `repr`, `len`, indexing), so the drop-in can hand it to the
//! driver's hydration code unchanged.

use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::pyclass::CompareOp;
use pyo3::types::{PyBytes, PyList, PyTuple};
use pyo3::PyTraverseError;

/// A PackStream structure: a tag (a one-byte `bytes`) and a list of fields.
///
/// `Structure(b"N", 1, ["Person"], {"name": "Alice"})` is a Bolt Node. `fields` is a plain
/// list that can be changed in place; `s[i]` reads and writes `s.fields[i]`.
#[pyclass(module = "boltcodec", frozen, subclass, sequence)]
pub struct Structure {
    /// The tag, normally a one-byte `bytes` (checked when packing, as the driver does).
    pub(crate) tag: Py<PyAny>,
    /// The fields.
    pub(crate) fields: Py<PyList>,
}

impl Structure {
    /// A structure with a one-byte tag around an already-built field list.
    pub(crate) fn from_parts<'py>(
        py: Python<'py>,
        tag: u8,
        fields: Bound<'py, PyList>,
    ) -> PyResult<Bound<'py, Structure>> {
        Bound::new(
            py,
            Structure {
                tag: PyBytes::new(py, &[tag]).into_any().unbind(),
                fields: fields.unbind(),
            },
        )
    }
}

#[pymethods]
impl Structure {
    #[new]
    #[pyo3(signature = (tag, *fields))]
    fn new(py: Python<'_>, tag: Py<PyAny>, fields: &Bound<'_, PyTuple>) -> PyResult<Self> {
        Ok(Structure {
            tag,
            fields: PyList::new(py, fields.iter())?.unbind(),
        })
    }

    /// The tag (a one-byte `bytes`).
    #[getter]
    fn tag(&self, py: Python<'_>) -> Py<PyAny> {
        self.tag.clone_ref(py)
    }

    /// The fields, as a list (the same list object every time).
    #[getter]
    fn fields(&self, py: Python<'_>) -> Py<PyList> {
        self.fields.clone_ref(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        // Nested structures recurse through here: bounded by Python's recursion limit and
        // the thread's real stack, as lists are.
        let _level =
            crate::ffi::RecursionGuard::enter(py, c" while getting the repr of a Structure")?;
        let mut out = String::from("Structure(");
        out.push_str(&self.tag.bind(py).repr()?.to_cow()?);
        for field in self.fields.bind(py).iter() {
            out.push_str(", ");
            out.push_str(&field.repr()?.to_cow()?);
        }
        out.push(')');
        Ok(out)
    }

    fn __richcmp__(
        &self,
        py: Python<'_>,
        other: &Bound<'_, PyAny>,
        op: CompareOp,
    ) -> PyResult<Py<PyAny>> {
        let eq = match op {
            CompareOp::Eq | CompareOp::Ne => {
                // Comparing nested structures recurses through here (see `__repr__`).
                let _level =
                    crate::ffi::RecursionGuard::enter(py, c" in comparison of Structures")?;
                self.equals(py, other)?
            }
            _ => return Ok(py.NotImplemented()),
        };
        Ok(match eq {
            None => py.NotImplemented(),
            Some(eq) => {
                let result = if matches!(op, CompareOp::Eq) { eq } else { !eq };
                pyo3::types::PyBool::new(py, result)
                    .to_owned()
                    .into_any()
                    .unbind()
            }
        })
    }

    fn __len__(&self, py: Python<'_>) -> usize {
        self.fields.bind(py).len()
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.fields.bind(py).as_any().get_item(key)
    }

    fn __setitem__(
        &self,
        py: Python<'_>,
        key: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        self.fields.bind(py).as_any().set_item(key, value)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(self.fields.bind(py).as_any().try_iter()?.into_any())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.get();
        let mut args = vec![this.tag.bind(py).clone()];
        args.extend(this.fields.bind(py).iter());
        PyTuple::new(
            py,
            [
                slf.get_type().into_any(),
                PyTuple::new(py, args)?.into_any(),
            ],
        )
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.tag)?;
        visit.call(&self.fields)?;
        Ok(())
    }
}

impl Structure {
    /// `self.tag == other.tag and self.fields == other.fields`, or `None` (NotImplemented)
    /// when `other` has no `tag`/`fields`, as in the driver's pure-Python class.
    fn equals(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Option<bool>> {
        let (tag, fields) = match other.cast::<Structure>() {
            Ok(s) => {
                let s = s.get();
                (s.tag.bind(py).clone(), s.fields.bind(py).clone().into_any())
            }
            Err(_) => {
                let tag = match other.getattr(pyo3::intern!(py, "tag")) {
                    Ok(t) => t,
                    Err(e) if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(py) => {
                        return Ok(None)
                    }
                    Err(e) => return Err(e),
                };
                if !self.tag.bind(py).eq(&tag)? {
                    return Ok(Some(false));
                }
                match other.getattr(pyo3::intern!(py, "fields")) {
                    Ok(f) => (tag, f),
                    Err(e) if e.is_instance_of::<pyo3::exceptions::PyAttributeError>(py) => {
                        return Ok(None)
                    }
                    Err(e) => return Err(e),
                }
            }
        };
        Ok(Some(
            self.tag.bind(py).eq(&tag)? && self.fields.bind(py).as_any().eq(&fields)?,
        ))
    }
}
