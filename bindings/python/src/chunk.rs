//! Bolt framing from Python: the public [`PyDechunker`] and the receive core of the
//! driver drop-in ([`MessageReader`]). Framing itself is `bolt::chunk::Dechunker`; this
//! module only turns its messages into Python objects.

use std::collections::VecDeque;

use bolt::chunk::{DechunkLimits, Dechunker};
use packstream::{DecodeLimits, DecodeOptions, Decoder};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::decode::{Builder, Failure};
use crate::errors;
use crate::ffi::Input;

/// The Bolt RECORD message tag.
const RECORD: u8 = 0x71;

/// Whether message bytes start with a RECORD header (`B1 71`, or any tiny structure
/// tagged RECORD).
fn is_record(bytes: &[u8]) -> bool {
    matches!(bytes, [marker, RECORD, ..] if marker & 0xF0 == packstream::marker::TINY_STRUCT)
}

/// Decodes one message's bytes into `(tag, fields)`, hooks applied.
fn decode_message<'py>(
    py: Python<'py>,
    bytes: &[u8],
    opts: DecodeOptions,
    hook: Option<&Bound<'py, PyAny>>,
) -> PyResult<(u8, Bound<'py, PyList>)> {
    let mut dec = Decoder::with_options(bytes, opts);
    let mut b = Builder::new(py, hook.cloned());
    let (tag, fields) = b
        .read_message(&mut dec)
        .map_err(|f: Failure| f.into_pyerr(py, 0, bytes))?;
    b.release_cache();
    // The message bytes are owned by Rust (a copy, or an immutable `bytes`), so running the
    // hooks now cannot change them.
    b.run_hooks(fields.clone().into_any())?;
    Ok((tag, fields))
}

/// A push parser for the Bolt chunk stream (docs/protocol.md §4): feed it bytes as they
/// arrive, take complete messages out.
///
/// ``feed`` returns the raw messages; ``feed_messages`` also decodes them, all in one
/// native call, into ``(tag, fields)`` pairs (for a RECORD, ``fields[0]`` is the list of
/// values).
#[pyclass(name = "Dechunker", module = "boltcodec")]
pub struct PyDechunker {
    inner: Dechunker,
    opts: DecodeOptions,
}

#[pymethods]
impl PyDechunker {
    #[new]
    #[pyo3(signature = (*, max_message_size = bolt::chunk::DEFAULT_MAX_MESSAGE_SIZE, max_chunks = bolt::chunk::DEFAULT_MAX_CHUNKS, uuid = false, max_depth = DecodeLimits::DEFAULT.max_depth))]
    fn new(max_message_size: usize, max_chunks: u32, uuid: bool, max_depth: u32) -> Self {
        let limits = DecodeLimits {
            max_depth,
            ..DecodeLimits::DEFAULT
        };
        PyDechunker {
            inner: Dechunker::with_limits(DechunkLimits {
                max_message_size,
                max_chunks,
            }),
            opts: DecodeOptions::default().with_uuid(uuid).with_limits(limits),
        }
    }

    /// Feeds bytes; returns every message they complete, as ``bytes``.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        crate::guard(|| {
            let input = Input::new(data)?;
            let batch = self.inner.feed_batch(input.as_slice());
            let out = PyList::empty(py);
            for m in batch.iter() {
                out.append(PyBytes::new(py, m.bytes()))?;
            }
            if let Some(e) = batch.error() {
                if out.is_empty() {
                    return Err(errors::dechunk_error(py, e));
                }
            }
            Ok(out)
        })
    }

    /// Feeds bytes; returns every message they complete, decoded, as ``(tag, fields)``
    /// with ``tag`` an ``int``. ``struct_hook`` is called with each ``Structure`` inside
    /// the fields (innermost first) and its result replaces it.
    #[pyo3(signature = (data, *, struct_hook = None))]
    fn feed_messages<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        struct_hook: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        crate::guard(|| {
            let input = Input::new(data)?;
            // Copy the framed messages out first: hooks may run Python code, so nothing of
            // the caller's buffer may stay borrowed while they do.
            let batch = self.inner.feed_batch(input.as_slice());
            let mut raw: Vec<u8> = Vec::new();
            let mut spans = Vec::with_capacity(batch.len());
            for m in batch.iter() {
                spans.push((raw.len(), m.len()));
                raw.extend_from_slice(m.bytes());
            }
            let error = batch.error().cloned();
            drop(batch);
            drop(input);
            let out = PyList::empty(py);
            for (start, len) in spans {
                let bytes = raw.get(start..start + len).unwrap_or_default();
                let (tag, fields) = decode_message(py, bytes, self.opts, struct_hook.as_ref())?;
                out.append(PyTuple::new(
                    py,
                    [tag.into_pyobject(py)?.into_any(), fields.into_any()],
                )?)?;
            }
            if let Some(e) = error {
                if out.is_empty() {
                    return Err(errors::dechunk_error(py, &e));
                }
            }
            Ok(out)
        })
    }

    /// Call at the end of the stream: raises ``DechunkError`` if it stopped inside a
    /// message.
    fn end_of_stream(&self, py: Python<'_>) -> PyResult<()> {
        self.inner
            .end_of_stream()
            .map_err(|e| errors::dechunk_error(py, &e))
    }

    /// Whether the stream is between messages.
    #[getter]
    fn at_boundary(&self) -> bool {
        self.inner.is_at_boundary()
    }

    /// How many NOOPs (keep-alive ``00 00`` between messages) were skipped.
    #[getter]
    fn noop_count(&self) -> u64 {
        self.inner.noop_count()
    }

    /// How many bytes were fed in total.
    #[getter]
    fn stream_offset(&self) -> u64 {
        self.inner.stream_offset()
    }

    /// Forgets all state, as for a new connection.
    fn reset(&mut self) {
        self.inner.reset();
    }
}

/// The receive core of the driver drop-in: the bytes read from the socket go in; Bolt
/// messages come out as the driver's ``(tag: bytes, fields: list)``.
///
/// Consecutive RECORD messages that are already complete are decoded together in one call
/// and handed out as one RECORD whose fields are all their value lists (the driver's
/// ``_process_message`` treats every field of a RECORD as one record), so a batch of rows
/// costs one native call and one trip through the driver's dispatch.
#[pyclass(module = "boltcodec._native")]
pub struct MessageReader {
    dechunker: Dechunker,
    opts: DecodeOptions,
    /// Complete messages not handed out yet: `raw[start..start + len]`.
    raw: Vec<u8>,
    spans: VecDeque<(usize, usize)>,
    /// A framing error to raise once the messages before it are handed out.
    error: Option<bolt::chunk::DechunkError>,
    /// How many RECORDs at most to merge into one.
    max_batch: usize,
}

impl MessageReader {
    fn compact(&mut self) {
        match self.spans.front() {
            None => self.raw.clear(),
            Some(&(start, _)) if start > 0 && start >= self.raw.len() / 2 => {
                self.raw.drain(..start);
                for span in &mut self.spans {
                    span.0 -= start;
                }
            }
            _ => {}
        }
    }
}

#[pymethods]
impl MessageReader {
    #[new]
    #[pyo3(signature = (*, uuid = false, max_batch = 65536))]
    fn new(uuid: bool, max_batch: usize) -> Self {
        MessageReader {
            dechunker: Dechunker::new(),
            opts: DecodeOptions::default().with_uuid(uuid),
            raw: Vec::new(),
            spans: VecDeque::new(),
            error: None,
            max_batch: max_batch.max(1),
        }
    }

    /// Feeds the first ``n`` bytes of ``buffer`` (what ``recv_into`` returned).
    fn feed(&mut self, buffer: &Bound<'_, PyAny>, n: usize) -> PyResult<()> {
        crate::guard(|| {
            let input = Input::new(buffer)?;
            let data = input.as_slice();
            let data = data.get(..n).unwrap_or(data);
            self.compact();
            let batch = self.dechunker.feed_batch(data);
            for m in batch.iter() {
                self.spans.push_back((self.raw.len(), m.len()));
                self.raw.extend_from_slice(m.bytes());
            }
            if let Some(e) = batch.error() {
                self.error.get_or_insert_with(|| e.clone());
            }
            Ok(())
        })
    }

    /// The next message as ``(tag, fields)``, or ``None`` when no complete message is
    /// buffered (read more and ``feed``). Consecutive buffered RECORDs come out merged.
    ///
    /// ``hydration_hooks`` is the driver's mapping; its ``Structure`` entry is applied to
    /// every structure inside the fields.
    #[pyo3(signature = (hydration_hooks = None))]
    fn pop<'py>(
        &mut self,
        py: Python<'py>,
        hydration_hooks: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Option<(Bound<'py, PyBytes>, Bound<'py, PyList>)>> {
        crate::guard(|| {
            let Some(&(start, len)) = self.spans.front() else {
                if let Some(e) = &self.error {
                    return Err(errors::dechunk_error(py, e));
                }
                return Ok(None);
            };
            let hook = crate::dropin::structure_hook(py, hydration_hooks)?;
            let bytes = self.raw.get(start..start + len).unwrap_or_default();
            let (tag, fields) = decode_message(py, bytes, self.opts, hook.as_ref())?;
            self.spans.pop_front();
            if tag == RECORD {
                let mut merged = 1usize;
                while merged < self.max_batch {
                    let Some(&(start, len)) = self.spans.front() else {
                        break;
                    };
                    let bytes = self.raw.get(start..start + len).unwrap_or_default();
                    if !is_record(bytes) {
                        break;
                    }
                    // A RECORD that fails to decode stays queued: it raises on the next pop,
                    // after the records before it were delivered.
                    let Ok((_, more)) = decode_message(py, bytes, self.opts, hook.as_ref()) else {
                        break;
                    };
                    self.spans.pop_front();
                    for item in more.iter() {
                        fields.append(item)?;
                    }
                    merged += 1;
                }
            }
            Ok(Some((PyBytes::new(py, &[tag]), fields)))
        })
    }

    /// How many NOOPs (keep-alive ``00 00`` between messages) were skipped.
    #[getter]
    fn noop_count(&self) -> u64 {
        self.dechunker.noop_count()
    }

    /// Whether a complete message is buffered.
    #[getter]
    fn has_message(&self) -> bool {
        !self.spans.is_empty() || self.error.is_some()
    }
}
