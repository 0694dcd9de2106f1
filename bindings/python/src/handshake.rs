//! `boltcodec.bolt.ClientHandshake` / `ServerHandshake`: the core's handshake state
//! machines (both roles, legacy proposals and manifest v1) for Python. Conversion only.

use bolt::handshake::{ClientHandshake, ServerHandshake, Step};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::connection::{bolt_object, core_error, handshake_options, version_tuple};
use crate::ffi::Input;
use crate::guard;

/// A core [`Step`] as a `boltcodec.bolt.HandshakeStep`.
fn step<'py>(py: Python<'py>, step: Step) -> PyResult<Bound<'py, PyAny>> {
    let (status, version, send, consumed) = match step {
        Step::NeedMore => ("need_more", None, Vec::new(), None),
        Step::Continue { send, consumed } => ("continue", None, send, Some(consumed)),
        Step::Negotiated {
            version,
            send,
            consumed,
        } => (
            "negotiated",
            Some(version_tuple(version)),
            send,
            Some(consumed),
        ),
        Step::Rejected { send, consumed } => ("rejected", None, send, Some(consumed)),
    };
    bolt_object(
        py,
        "HandshakeStep",
        (status, version, PyBytes::new(py, &send), consumed),
    )
}

/// Feeds `data` to a handshake's `receive`; its step as a `HandshakeStep`.
fn receive_step<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    receive: impl FnOnce(&[u8]) -> Result<Step, bolt::handshake::HandshakeError>,
) -> PyResult<Bound<'py, PyAny>> {
    guard(|| {
        let input = Input::new(data)?;
        let s = receive(input.as_slice()).map_err(|e| core_error(py, &e))?;
        step(py, s)
    })
}

/// The client role of the Bolt handshake (see ``boltcodec/bolt.pyi``).
#[pyclass(name = "ClientHandshake", module = "boltcodec._native")]
pub struct PyClientHandshake {
    inner: ClientHandshake,
}

#[pymethods]
impl PyClientHandshake {
    #[new]
    #[pyo3(signature = (*, versions = None, manifest = true))]
    fn new(py: Python<'_>, versions: Option<Vec<(u8, u8)>>, manifest: bool) -> PyResult<Self> {
        let options = handshake_options(py, manifest, versions)?;
        Ok(PyClientHandshake {
            inner: ClientHandshake::new(options.client()),
        })
    }

    /// The 20 opening bytes: magic and four proposals.
    fn hello<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.hello())
    }

    /// Feeds the server's bytes; returns a ``HandshakeStep``.
    fn receive<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        receive_step(py, data, |b| self.inner.receive(b))
    }
}

/// The server role of the Bolt handshake (see ``boltcodec/bolt.pyi``).
#[pyclass(name = "ServerHandshake", module = "boltcodec._native")]
pub struct PyServerHandshake {
    inner: ServerHandshake,
}

#[pymethods]
impl PyServerHandshake {
    #[new]
    #[pyo3(signature = (*, versions = None, manifest = true))]
    fn new(py: Python<'_>, versions: Option<Vec<(u8, u8)>>, manifest: bool) -> PyResult<Self> {
        let options = handshake_options(py, manifest, versions)?;
        Ok(PyServerHandshake {
            inner: ServerHandshake::new(options.server()),
        })
    }

    /// Feeds the client's bytes; returns a ``HandshakeStep``.
    fn receive<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        receive_step(py, data, |b| self.inner.receive(b))
    }
}
