//! Bolt over WebSocket for Python: the core's frame adapter ([`WsStream`]) and opening
//! handshake ([`ClientUpgrade`], [`ServerUpgrade`]), both ends, sans-IO. Conversion only.

use bolt::handshake::Status;
use bolt::ws::{
    ClientUpgrade, CloseCode, NoMask, ServerUpgrade, WireStatus, WsStream, XorShiftMask,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::connection::{bolt_object, core_error};
use crate::ffi::Input;
use crate::guard;

/// The two ends: a client masks its frames, a server does not.
enum End {
    Client(WsStream<XorShiftMask>),
    Server(WsStream<NoMask>),
}

/// Runs `$body` with `$s` bound to whichever end `$end` is.
macro_rules! either {
    ($end:expr, $s:ident => $body:expr) => {
        match $end {
            End::Client($s) => $body,
            End::Server($s) => $body,
        }
    };
}

/// A WebSocket connection as a byte-stream transport for Bolt (see ``boltcodec/bolt.pyi``).
#[pyclass(name = "WsStream", module = "boltcodec._native")]
pub struct PyWsStream {
    end: End,
}

#[pymethods]
impl PyWsStream {
    /// The client end; ``mask_seed`` seeds the frame masks (use a random one).
    #[staticmethod]
    fn client(mask_seed: u64) -> Self {
        PyWsStream {
            end: End::Client(WsStream::client(XorShiftMask::new(mask_seed))),
        }
    }

    /// The server end.
    #[staticmethod]
    fn server() -> Self {
        PyWsStream {
            end: End::Server(WsStream::server()),
        }
    }

    /// Bolt bytes → WebSocket frames to write.
    #[allow(clippy::wrong_self_convention)] // the core's `WsStream::to_wire`, same name
    fn to_wire<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        guard(|| {
            let input = Input::new(data)?;
            let mut out = Vec::new();
            either!(&mut self.end, s => s.to_wire(input.as_slice(), &mut out))
                .map_err(|e| core_error(py, &e))?;
            Ok(PyBytes::new(py, &out))
        })
    }

    /// Received frame bytes → ``(bolt_bytes, to_send)``: the Bolt payload, and the
    /// frames to write back (pong, close reply).
    #[allow(clippy::wrong_self_convention)] // the core's `WsStream::from_wire`, same name
    fn from_wire<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        guard(|| {
            let input = Input::new(data)?;
            let (mut bolt, mut send) = (Vec::new(), Vec::new());
            let _status: WireStatus =
                either!(&mut self.end, s => s.from_wire(input.as_slice(), &mut bolt, &mut send))
                    .map_err(|e| core_error(py, &e))?;
            Ok((PyBytes::new(py, &bolt), PyBytes::new(py, &send)))
        })
    }

    /// A ping frame to write.
    fn ping<'py>(&mut self, py: Python<'py>, payload: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        either!(&mut self.end, s => s.ping(payload, &mut out)).map_err(|e| core_error(py, &e))?;
        Ok(PyBytes::new(py, &out))
    }

    /// A close frame to write (``b""`` if this end already sent one).
    #[pyo3(signature = (code = 1000, reason = ""))]
    fn close<'py>(
        &mut self,
        py: Python<'py>,
        code: Option<u16>,
        reason: &str,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let mut out = Vec::new();
        either!(&mut self.end, s => s.close(code.map(CloseCode), reason, &mut out))
            .map_err(|e| core_error(py, &e))?;
        Ok(PyBytes::new(py, &out))
    }

    /// The peer's close ``(code, reason)`` once it arrived, else ``None``.
    #[getter]
    fn close_received(&self) -> Option<(Option<u16>, String)> {
        either!(&self.end, s => s.close_received()).map(|c| (c.code.map(|c| c.0), c.reason.clone()))
    }

    /// Whether both ends have sent their close frame.
    #[getter]
    fn is_closed(&self) -> bool {
        either!(&self.end, s => s.is_closed())
    }
}

/// The client's opening handshake (HTTP upgrade).
#[pyclass(name = "ClientUpgrade", module = "boltcodec._native")]
pub struct PyClientUpgrade {
    inner: ClientUpgrade,
}

#[pymethods]
impl PyClientUpgrade {
    /// ``host`` is the ``Host`` header (``"localhost:7687"``); ``key`` 16 random bytes.
    #[new]
    #[pyo3(signature = (host, key, path = "/"))]
    fn new(py: Python<'_>, host: &str, key: &[u8], path: &str) -> PyResult<Self> {
        let key: [u8; 16] = key
            .try_into()
            .map_err(|_| PyValueError::new_err("key must be 16 bytes"))?;
        Ok(PyClientUpgrade {
            inner: ClientUpgrade::new(host, path, key).map_err(|e| core_error(py, &e))?,
        })
    }

    /// The HTTP request to write.
    fn request<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.request())
    }

    /// Feeds the server's response: ``None`` until it is complete, then how many bytes of
    /// this input it used (the rest are WebSocket frames).
    fn receive(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Option<usize>> {
        guard(|| {
            let input = Input::new(data)?;
            match self.inner.receive(input.as_slice()) {
                Ok(Status::Complete(used)) => Ok(Some(used)),
                Ok(Status::NeedMore) => Ok(None),
                Err(e) => Err(core_error(py, &e)),
            }
        })
    }
}

/// The server's side of the opening handshake.
#[pyclass(name = "ServerUpgrade", module = "boltcodec._native")]
pub struct PyServerUpgrade {
    inner: ServerUpgrade,
}

#[pymethods]
impl PyServerUpgrade {
    #[new]
    fn new() -> Self {
        PyServerUpgrade {
            inner: ServerUpgrade::new(),
        }
    }

    /// Feeds the client's request: ``None`` until it is complete, then an
    /// ``UpgradeRequest`` (write its ``response``).
    fn receive<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        guard(|| {
            let input = Input::new(data)?;
            match self.inner.receive(input.as_slice()) {
                Ok(Status::Complete(r)) => bolt_object(
                    py,
                    "UpgradeRequest",
                    (
                        r.target(),
                        r.host(),
                        r.key(),
                        r.used(),
                        PyBytes::new(py, &r.response()),
                    ),
                )
                .map(Some),
                Ok(Status::NeedMore) => Ok(None),
                Err(e) => Err(core_error(py, &e)),
            }
        })
    }
}
