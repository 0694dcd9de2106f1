//! Bolt framing from Python: the public [`PyDechunker`] and the receive core of the
//! driver drop-in ([`MessageReader`]). Framing itself is `bolt::chunk::Dechunker`; this
//! module only turns its messages into Python objects.

use std::collections::VecDeque;

use bolt::chunk::{Batch, DechunkLimits, Dechunker};
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

/// One framed message waiting in a [`Queue`]: `raw[start..start + len]`, whose first chunk
/// header is at stream offset `offset`.
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    len: usize,
    offset: u64,
}

/// Once the queue buffer (empty), or the dechunker's buffer between messages, holds more
/// than [`SHRINK_ABOVE`], it is shrunk to this, so one huge message or batch does not pin
/// its memory for the life of the stream.
const KEEP_CAPACITY: usize = 256 * 1024;

/// Buffers up to this size are kept as they are: shrinking them after every batch of
/// ordinary large messages would cost fresh page faults at every call (measured: 10x on
/// ten 100 KB messages fed to a new `Dechunker` each time), for little memory.
const SHRINK_ABOVE: usize = 4 * 1024 * 1024;

/// The messages of one stream that were framed but not delivered yet, and the error of a
/// message that failed after others had already been delivered by the same call.
///
/// This is all the state a stream keeps between calls besides the core dechunker, and it
/// only changes in two ways: bytes fed are framed and appended (always, before anything
/// can fail, so no input is ever lost), and messages are taken off the front one at a
/// time as they are delivered or fail. A failing message or hook therefore affects
/// exactly one message; the ones after it stay queued in order.
#[derive(Default)]
struct Queue {
    raw: Vec<u8>,
    spans: VecDeque<Span>,
    /// Raised by the next call, before any message after it is delivered.
    deferred: Option<PyErr>,
}

impl Queue {
    /// Frames `data` with `dechunker` and appends every message it completes; returns the
    /// framing error that stopped it, if any (the dechunker is then poisoned and reports
    /// it again on every later feed).
    fn absorb(
        &mut self,
        dechunker: &mut Dechunker,
        data: &[u8],
    ) -> Option<bolt::chunk::DechunkError> {
        let batch = dechunker.feed_batch(data);
        self.push_batch(&batch);
        let error = batch.error().cloned();
        drop(batch);
        release_memory(dechunker);
        error
    }

    /// Appends (copies) the messages of `batch`.
    fn push_batch(&mut self, batch: &Batch<'_>) {
        self.compact();
        self.raw.reserve(batch.iter().map(|m| m.len()).sum());
        for m in batch.iter() {
            self.spans.push_back(Span {
                start: self.raw.len(),
                len: m.len(),
                offset: m.offset(),
            });
            self.raw.extend_from_slice(m.bytes());
        }
    }

    /// The bytes of a span taken off this queue.
    fn bytes(&self, span: Span) -> &[u8] {
        self.raw
            .get(span.start..span.start + span.len)
            .unwrap_or_default()
    }

    /// Gives back the space of delivered messages.
    fn compact(&mut self) {
        match self.spans.front() {
            None => {
                self.raw.clear();
                if self.raw.capacity() > SHRINK_ABOVE {
                    self.raw.shrink_to(KEEP_CAPACITY);
                }
            }
            Some(&Span { start, .. }) if start > 0 && start >= self.raw.len() / 2 => {
                self.raw.drain(..start);
                for span in &mut self.spans {
                    span.start -= start;
                }
            }
            _ => {}
        }
    }

    /// How many messages and deferred errors the next call will deliver first.
    fn len(&self) -> usize {
        self.spans.len() + usize::from(self.deferred.is_some())
    }

    fn clear(&mut self) {
        self.spans.clear();
        self.deferred = None;
        self.compact();
    }
}

/// Once every complete message is copied out, and only between messages, gives back what a
/// rare huge message made the dechunker's buffer grow to. (Never in the middle of one,
/// which would copy its partial bytes again at every feed.)
fn release_memory(dechunker: &mut Dechunker) {
    if dechunker.is_at_boundary() && dechunker.buffer_capacity() > SHRINK_ABOVE {
        dechunker.shrink_buffer_to(KEEP_CAPACITY);
    }
}

/// Adds ``message_offset`` (the stream offset of the failed message's first chunk header)
/// to a `DecodeError`; other exceptions (a hook's own) are left as they are.
fn at_message(py: Python<'_>, err: PyErr, span: Span) -> PyErr {
    if err.is_instance_of::<errors::DecodeError>(py) {
        // Setting an attribute on our own fresh exception cannot fail in practice; if it
        // did, the error is still raised, only without it.
        let _ = err.value(py).setattr("message_offset", span.offset);
    }
    err
}

/// A push parser for the Bolt chunk stream (docs/protocol.md §4): feed it bytes as they
/// arrive, take complete messages out.
///
/// ``feed`` returns the raw messages; ``feed_messages`` also decodes them, all in one
/// native call, into ``(tag, fields)`` pairs (for a RECORD, ``fields[0]`` is the list of
/// values).
///
/// When one message fails (invalid PackStream, or ``struct_hook`` raised), no other is
/// lost: the messages before it are returned, its error is raised by the next call, and
/// the call after that goes on with the message that follows it. A call whose first
/// message fails raises at once. ``pending`` says how many messages (and deferred
/// errors) are waiting; ``feed_messages(b"")`` takes them out without new input.
#[pyclass(name = "Dechunker", module = "boltcodec")]
pub struct PyDechunker {
    inner: Dechunker,
    opts: DecodeOptions,
    queue: Queue,
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
            queue: Queue::default(),
        }
    }

    /// Feeds bytes; returns every message now complete (those still queued first), as
    /// ``bytes``. Raises the deferred error of a failed ``feed_messages`` first, if any.
    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        crate::guard(|| {
            let input = Input::new(data)?;
            let out = PyList::empty(py);
            if self.queue.len() == 0 {
                // Nothing waits: the messages go out straight from the batch, without a
                // copy into the queue (no Python code runs here besides allocation).
                let batch = self.inner.feed_batch(input.as_slice());
                let mut built = Ok(());
                for m in batch.iter() {
                    built = out.append(PyBytes::new(py, m.bytes()));
                    if built.is_err() {
                        break;
                    }
                }
                let framing = batch.error().cloned();
                if built.is_err() {
                    // Out of memory: keep every message for the next call, lose none.
                    self.queue.push_batch(&batch);
                }
                drop(batch);
                drop(input);
                release_memory(&mut self.inner);
                built?;
                return match framing {
                    Some(e) if out.is_empty() => Err(errors::dechunk_error(py, &e)),
                    _ => Ok(out),
                };
            }
            let framing = self.queue.absorb(&mut self.inner, input.as_slice());
            drop(input);
            if let Some(e) = self.queue.deferred.take() {
                return Err(e);
            }
            for &span in &self.queue.spans {
                out.append(PyBytes::new(py, self.queue.bytes(span)))?;
            }
            self.queue.spans.clear();
            self.queue.compact();
            match framing {
                Some(e) if out.is_empty() => Err(errors::dechunk_error(py, &e)),
                _ => Ok(out),
            }
        })
    }

    /// Feeds bytes; returns every message now complete, decoded, as ``(tag, fields)``
    /// with ``tag`` an ``int``. ``struct_hook`` is called with each ``Structure`` inside
    /// the fields (innermost first) and its result replaces it.
    ///
    /// If a message fails to decode or its hook raises, the messages before it are
    /// returned and its error is raised by the next call (at once if it is the first);
    /// the messages after it stay queued. A ``DecodeError`` for a message carries
    /// ``offset`` inside the message and ``message_offset`` in the stream.
    #[pyo3(signature = (data, *, struct_hook = None))]
    fn feed_messages<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        struct_hook: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        crate::guard(|| {
            let input = Input::new(data)?;
            // The framed messages are copied into the queue first: hooks may run Python
            // code, so nothing of the caller's buffer may stay borrowed while they do.
            let framing = self.queue.absorb(&mut self.inner, input.as_slice());
            drop(input);
            if let Some(e) = self.queue.deferred.take() {
                return Err(e);
            }
            let hook = struct_hook.filter(|h| !h.is_none());
            let out = PyList::empty(py);
            while let Some(span) = self.queue.spans.pop_front() {
                let bytes = self.queue.bytes(span);
                let decoded = decode_message(py, bytes, self.opts, hook.as_ref())
                    .and_then(|(tag, fields)| {
                        PyTuple::new(py, [tag.into_pyobject(py)?.into_any(), fields.into_any()])
                    })
                    .and_then(|message| out.append(message));
                if let Err(e) = decoded {
                    let e = at_message(py, e, span);
                    self.queue.compact();
                    if out.is_empty() {
                        return Err(e);
                    }
                    self.queue.deferred = Some(e);
                    return Ok(out);
                }
            }
            self.queue.compact();
            match framing {
                Some(e) if out.is_empty() => Err(errors::dechunk_error(py, &e)),
                _ => Ok(out),
            }
        })
    }

    /// Call at the end of the stream: raises the deferred error of a failed message, if
    /// one is waiting, or ``DechunkError`` if the stream stopped inside a message.
    fn end_of_stream(&mut self, py: Python<'_>) -> PyResult<()> {
        if let Some(e) = self.queue.deferred.take() {
            return Err(e);
        }
        self.inner
            .end_of_stream()
            .map_err(|e| errors::dechunk_error(py, &e))
    }

    /// Whether the stream is between messages (nothing partial, nothing queued).
    #[getter]
    fn at_boundary(&self) -> bool {
        self.inner.is_at_boundary() && self.queue.len() == 0
    }

    /// How many complete messages (and deferred errors) the next call delivers before
    /// any new input: non-zero after a call returned early because a message failed.
    #[getter]
    fn pending(&self) -> usize {
        self.queue.len()
    }

    /// How many NOOPs (keep-alive ``00 00`` between messages) were skipped.
    #[getter]
    fn noop_count(&self) -> u64 {
        self.inner.noop_count()
    }

    /// Bytes of buffer memory this Dechunker holds (internal: for the memory tests).
    #[getter]
    fn _buffer_capacity(&self) -> usize {
        self.inner.buffer_capacity() + self.queue.raw.capacity()
    }

    /// How many bytes were fed in total.
    #[getter]
    fn stream_offset(&self) -> u64 {
        self.inner.stream_offset()
    }

    /// Forgets all state, queued messages and deferred errors included, as for a new
    /// connection.
    fn reset(&mut self) {
        self.inner.reset();
        self.queue.clear();
    }
}

/// The receive core of the driver drop-in: the bytes read from the socket go in; Bolt
/// messages come out as the driver's ``(tag: bytes, fields: list)``.
///
/// Consecutive RECORD messages that are already complete are decoded together in one call
/// and handed out as one RECORD whose fields are all their value lists (the driver's
/// ``_process_message`` treats every field of a RECORD as one record), so a batch of rows
/// costs one native call and one trip through the driver's dispatch.
///
/// A message that fails is decoded once: its error is raised by the ``pop`` that reaches
/// it (after the RECORDs merged before it were handed out), and the next ``pop`` goes on
/// with the message after it.
#[pyclass(module = "boltcodec._native")]
pub struct MessageReader {
    dechunker: Dechunker,
    opts: DecodeOptions,
    queue: Queue,
    /// A framing error to raise once the messages before it are handed out.
    error: Option<bolt::chunk::DechunkError>,
    /// How many RECORDs at most to merge into one.
    max_batch: usize,
}

#[pymethods]
impl MessageReader {
    #[new]
    #[pyo3(signature = (*, uuid = false, max_batch = 65536))]
    fn new(uuid: bool, max_batch: usize) -> Self {
        MessageReader {
            dechunker: Dechunker::new(),
            opts: DecodeOptions::default().with_uuid(uuid),
            queue: Queue::default(),
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
            if let Some(e) = self.queue.absorb(&mut self.dechunker, data) {
                self.error.get_or_insert(e);
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
            if let Some(e) = self.queue.deferred.take() {
                return Err(e);
            }
            let Some(span) = self.queue.spans.pop_front() else {
                if let Some(e) = &self.error {
                    return Err(errors::dechunk_error(py, e));
                }
                return Ok(None);
            };
            let hook = crate::dropin::structure_hook(py, hydration_hooks)?;
            let bytes = self.queue.bytes(span);
            let (tag, fields) = decode_message(py, bytes, self.opts, hook.as_ref())
                .map_err(|e| at_message(py, e, span))?;
            if tag == RECORD {
                let mut merged = 1usize;
                while merged < self.max_batch {
                    let Some(&next) = self.queue.spans.front() else {
                        break;
                    };
                    if !is_record(self.queue.bytes(next)) {
                        break;
                    }
                    self.queue.spans.pop_front();
                    match decode_message(py, self.queue.bytes(next), self.opts, hook.as_ref()) {
                        Ok((_, more)) => {
                            for item in more.iter() {
                                fields.append(item)?;
                            }
                            merged += 1;
                        }
                        // Raised by the next pop, after the records before it.
                        Err(e) => {
                            self.queue.deferred = Some(at_message(py, e, next));
                            break;
                        }
                    }
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

    /// Whether a complete message (or an error) is buffered.
    #[getter]
    fn has_message(&self) -> bool {
        self.queue.len() > 0 || self.error.is_some()
    }
}
