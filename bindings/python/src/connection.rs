//! `boltcodec.bolt.ClientConnection`: the core's sans-IO [`ClientConnection`] for Python.
//!
//! Conversion only. The core runs the handshake, frames, matches responses to requests
//! and keeps the state rules; this class turns Python requests into the core's, and the
//! core's events into `boltcodec.bolt` event objects. RECORDs are handed over undecoded
//! by [`ClientConnection::receive_with`] and decoded straight into Python lists by the
//! binding's decoder (the path `unpackb` and the drop-in use); consecutive ones make one
//! `Records` event.

use std::collections::VecDeque;

use bolt::connection::{ClientConnection, ConnectionConfig, ConnectionError, Event};
use bolt::handshake::HandshakeOptions;
use bolt::message::{MessageError, RequestKind, ResponseKind};
use bolt::BoltVersion;
use packstream::{DecodeLimits, ErrorInfo};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyList};

use crate::decode::{self, Config};
use crate::ffi::Input;
use crate::guard;
use crate::messages;

create_exception!(
    boltcodec,
    BoltError,
    PyValueError,
    "A Bolt protocol error: bad bytes from the server, or a request the connection\n\
     refuses. Attributes: ``kind`` (a stable name, see ``tests/vectors/README.md``),\n\
     ``offset`` (the byte offset in the server's stream, or ``None`` for errors about\n\
     what the caller sent) and ``message_offset`` (for an undecodable message, the\n\
     offset inside it; else ``None``)."
);

/// A `BoltError` with its attributes.
fn bolt_error(
    py: Python<'_>,
    kind: &str,
    offset: Option<u64>,
    message_offset: Option<u64>,
    msg: String,
) -> PyErr {
    let err = BoltError::new_err(msg);
    let value = err.value(py);
    let _ = value.setattr("kind", kind);
    let _ = value.setattr("offset", offset);
    let _ = value.setattr("message_offset", message_offset);
    err
}

/// The `BoltError` for a core connection error.
pub(crate) fn connection_error(py: Python<'_>, e: &ConnectionError) -> PyErr {
    let inner = match e {
        ConnectionError::Message { source, .. } => source.byte_offset(),
        _ => None,
    };
    bolt_error(py, e.kind_name(), e.offset(), inner, e.to_string())
}

/// The `BoltError` for any other core error (handshake, WebSocket).
pub(crate) fn core_error<E: ErrorInfo>(py: Python<'_>, e: &E) -> PyErr {
    bolt_error(py, e.kind_name(), e.byte_offset(), None, e.to_string())
}

/// An instance of the `boltcodec.bolt` class `name` (the module's plain dataclasses).
pub(crate) fn bolt_object<'py>(
    py: Python<'py>,
    name: &str,
    args: impl pyo3::call::PyCallArgs<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    py.import("boltcodec.bolt")?.getattr(name)?.call1(args)
}

/// `(major, minor)`.
pub(crate) fn version_tuple(v: BoltVersion) -> (u8, u8) {
    (v.major(), v.minor())
}

/// The Python event classes of `boltcodec.bolt`, looked up once.
struct Classes {
    negotiated: Py<PyAny>,
    success: Py<PyAny>,
    failure: Py<PyAny>,
    ignored: Py<PyAny>,
    records: Py<PyAny>,
}

static CLASSES: PyOnceLock<Classes> = PyOnceLock::new();

fn classes(py: Python<'_>) -> PyResult<&Classes> {
    CLASSES.get_or_try_init(py, || {
        let m = py.import("boltcodec.bolt")?;
        Ok(Classes {
            negotiated: m.getattr("Negotiated")?.unbind(),
            success: m.getattr("Success")?.unbind(),
            failure: m.getattr("Failure")?.unbind(),
            ignored: m.getattr("Ignored")?.unbind(),
            records: m.getattr("Records")?.unbind(),
        })
    })
}

/// The request name of a kind (`"PULL"`, …).
fn kind_name(kind: RequestKind) -> &'static str {
    kind.name()
}

/// The sans-IO client side of one Bolt connection (see ``boltcodec/bolt.pyi``).
#[pyclass(name = "ClientConnection", module = "boltcodec._native")]
pub struct PyClientConnection {
    inner: ClientConnection,
    hook: Option<Py<PyAny>>,
    /// The RECORDs decoded by `receive` that no `events()` took yet; the core's
    /// `RecordsTaken` events say which of them make each batch.
    rows: VecDeque<Py<PyAny>>,
    /// The decode options of the last message received (the core's, for its version).
    options: packstream::DecodeOptions,
    /// The error of a RECORD that did not decode (or whose `struct_hook` raised): the
    /// receive that found it succeeded with the items before it, and `events()` raises it
    /// once they are taken.
    pending_error: Option<PyErr>,
}

/// The core's handshake options from the Python arguments (`versions` as
/// `(major, minor)` tuples, `None` for the defaults): one conversion for both roles.
/// An empty or unknown version list raises `BoltError` (`no_versions`, `unknown_version`).
pub(crate) fn handshake_options(
    py: Python<'_>,
    manifest: bool,
    versions: Option<Vec<(u8, u8)>>,
) -> PyResult<HandshakeOptions> {
    let versions: Option<Vec<BoltVersion>> = versions.map(|vs| {
        vs.into_iter()
            .map(|(major, minor)| BoltVersion::new(major, minor))
            .collect()
    });
    HandshakeOptions::new(versions.as_deref(), manifest).map_err(|e| core_error(py, &e))
}

impl PyClientConnection {
    /// The decode config of summary metadata (turned into Python values by
    /// `value_to_py`): the options the core gave with the last message received.
    fn config<'py>(&self, py: Python<'py>) -> Config<'py> {
        Config {
            opts: self.options,
            hook: self.hook.as_ref().map(|h| h.bind(py).clone()),
        }
    }
}

/// The `BoltError` for a RECORD at `stream_offset` that did not decode: `f` at `base` in
/// the message `message` (the decoder's error or the hook's exception, as the cause).
fn record_error(
    py: Python<'_>,
    f: decode::Failure,
    stream_offset: u64,
    base: usize,
    message: &[u8],
) -> PyErr {
    let err = f.into_pyerr(py, base, message);
    let kind: String = err
        .value(py)
        .getattr("kind")
        .and_then(|k| k.extract())
        .unwrap_or_else(|_| "struct_hook_failed".to_owned());
    let inner: Option<u64> = err
        .value(py)
        .getattr("offset")
        .and_then(|k| k.extract())
        .ok();
    let be = bolt_error(
        py,
        &kind,
        Some(stream_offset),
        inner,
        format!("RECORD at stream offset {stream_offset}: {}", err.value(py)),
    );
    be.set_cause(py, Some(err));
    be
}

/// One core event as a Python event object; `RecordsTaken { count }` is a `Records` of
/// the next `count` decoded `rows`.
fn event<'py>(
    py: Python<'py>,
    event: Event,
    cfg: &Config<'py>,
    rows: &mut VecDeque<Py<PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let c = classes(py)?;
    match event {
        Event::Negotiated(v) => c.negotiated.bind(py).call1((version_tuple(v),)),
        Event::Success { request, metadata } => c.success.bind(py).call1((
            kind_name(request),
            messages::value_to_py(py, &metadata, cfg)?,
        )),
        Event::Failure {
            request,
            code,
            message,
            metadata,
        } => c.failure.bind(py).call1((
            kind_name(request),
            code,
            message,
            messages::value_to_py(py, &metadata, cfg)?,
        )),
        Event::Ignored { request } => c.ignored.bind(py).call1((kind_name(request),)),
        Event::RecordsTaken { count } => {
            let n = count.min(rows.len());
            c.records
                .bind(py)
                .call1((PyList::new(py, rows.drain(..n))?,))
        }
        // `receive_with` queues no RECORD events; kept for completeness.
        Event::Record(fields) => {
            let row = messages::value_to_py(py, &packstream::Value::List(fields), cfg)?;
            c.records.bind(py).call1((PyList::new(py, [row])?,))
        }
    }
}

#[pymethods]
impl PyClientConnection {
    #[new]
    #[pyo3(signature = (
        *, versions = None, manifest = true, bolt_agent = Some(concat!("boltcodec-python/", env!("CARGO_PKG_VERSION")).to_owned()),
        request_utc_patch = true, max_chunk_size = 0, struct_hook = None,
        max_message_size = None, max_depth = DecodeLimits::DEFAULT.max_depth,
    ))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    fn new(
        py: Python<'_>,
        versions: Option<Vec<(u8, u8)>>,
        manifest: bool,
        bolt_agent: Option<String>,
        request_utc_patch: bool,
        max_chunk_size: u16,
        struct_hook: Option<Py<PyAny>>,
        max_message_size: Option<usize>,
        max_depth: u32,
    ) -> PyResult<Self> {
        let mut config = ConnectionConfig {
            handshake: handshake_options(py, manifest, versions)?.client(),
            bolt_agent,
            request_utc_patch,
            max_chunk_size,
            ..ConnectionConfig::default()
        };
        config.decode_limits.max_depth = max_depth;
        if let Some(n) = max_message_size {
            config.dechunk_limits.max_message_size = n;
        }
        Ok(PyClientConnection {
            inner: ClientConnection::new(config),
            hook: struct_hook,
            rows: VecDeque::new(),
            options: packstream::DecodeOptions::default(),
            pending_error: None,
        })
    }

    /// Bytes waiting to be written to the socket (taken: the buffer is emptied).
    fn take_output<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.take_output())
    }

    /// Whether bytes are waiting to be written.
    #[getter]
    fn has_output(&self) -> bool {
        !self.inner.output().is_empty()
    }

    /// Feeds bytes read from the socket; take the events with ``events()``.
    ///
    /// RECORDs are decoded here, as the core hands them over; a RECORD that does not
    /// decode ends the connection but is raised by ``events()``, after the items before it.
    fn receive(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        guard(|| {
            let input = Input::new(data)?;
            let hook = self.hook.as_ref().map(|h| h.bind(py).clone());
            let rows = &mut self.rows;
            let options = &mut self.options;
            // The Python error of the RECORD the callback refused (the core only carries
            // a `MessageError`).
            let mut failed: Option<PyErr> = None;
            let result = self.inner.receive_with(input.as_slice(), &mut |m| {
                *options = m.options;
                if m.kind != ResponseKind::Record {
                    return Ok(());
                }
                let data = m.body();
                let base = m.bytes.len() - data.len();
                let cfg = Config {
                    opts: m.options,
                    hook: hook.clone(),
                };
                match decode::decode_exact(py, data, &cfg) {
                    Ok(row) => {
                        rows.push_back(row.unbind());
                        Ok(())
                    }
                    Err(f) => {
                        // The core's error (what `receive_with` fails with); the Python
                        // `BoltError` goes to the side slot.
                        let core = match &f {
                            decode::Failure::Decode(e) => MessageError::PackStream(e.shifted(base)),
                            decode::Failure::Message(e) => e.clone(),
                            decode::Failure::Py(_) => MessageError::FieldType {
                                offset: base,
                                message: "RECORD",
                                field: "data",
                                expected: "values the struct_hook accepts",
                                found: "one it raised on",
                            },
                        };
                        failed = Some(record_error(py, f, m.stream_offset, base, m.bytes));
                        Err(core)
                    }
                }
            });
            match (result, failed) {
                (Ok(()), _) => Ok(()),
                (Err(_), Some(err)) => {
                    self.pending_error = Some(err);
                    Ok(())
                }
                (Err(e), None) => Err(connection_error(py, &e)),
            }
        })
    }

    /// Encodes and queues ``request`` (a ``boltcodec.bolt`` request object).
    fn send(&mut self, py: Python<'_>, request: &Bound<'_, PyAny>) -> PyResult<()> {
        guard(|| {
            let Some(v) = self.inner.version() else {
                return Err(bolt_error(
                    py,
                    "not_negotiated",
                    None,
                    None,
                    "a request was sent before the handshake finished".to_owned(),
                ));
            };
            let inner = &mut self.inner;
            messages::with_request(request, v, |r| inner.send(r))?
                .map_err(|e| connection_error(py, &e))
        })
    }

    /// Every event received so far, in order: a run of RECORDs is one ``Records``. Raises
    /// the error of a RECORD that did not decode once the items before it are taken.
    fn events<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        guard(|| {
            let cfg = self.config(py);
            let out = PyList::empty(py);
            while let Some(e) = self.inner.poll_event() {
                out.append(event(py, e, &cfg, &mut self.rows)?)?;
            }
            if out.is_empty() {
                if let Some(e) = self.pending_error.take() {
                    return Err(e);
                }
            }
            Ok(out)
        })
    }

    /// Whether ``name`` (``"RUN"``, ``"PULL"``, …) may be sent now.
    fn can_send(&self, name: &str) -> bool {
        RequestKind::ALL
            .iter()
            .find(|k| k.name() == name)
            .is_some_and(|k| self.inner.can_send(*k))
    }

    /// The server's state as of the responses received so far (``"READY"``, …).
    #[getter]
    fn state(&self) -> String {
        self.inner.state().to_string()
    }

    /// The negotiated version ``(major, minor)``, or ``None`` during the handshake.
    #[getter]
    fn version(&self) -> Option<(u8, u8)> {
        self.inner.version().map(version_tuple)
    }

    /// Whether the 4.3/4.4 ``utc`` patch is in force.
    #[getter]
    fn utc_patch(&self) -> bool {
        self.inner.version().is_some_and(|v| v.utc_patch())
    }

    /// How many requests await their summary.
    #[getter]
    fn pending_requests(&self) -> usize {
        self.inner.pending_requests()
    }

    fn __repr__(&self) -> String {
        let v = self.inner.version().map_or_else(
            || "-".to_owned(),
            |v| format!("{}.{}", v.major(), v.minor()),
        );
        format!(
            "<boltcodec.bolt.ClientConnection version={v} state={} pending={}>",
            self.inner.state(),
            self.inner.pending_requests()
        )
    }
}
