//! Bolt framing from Python: the public [`PyDechunker`] and the receive core of the
//! driver drop-in ([`MessageReader`]). Both sit on the core's receive path,
//! `bolt::inbox::Inbox` (framing, the queue of complete messages in stream order, which
//! messages are RECORDs, where a message's fields start); this module only turns its
//! messages into Python objects and keeps the Python error of a message that failed.

use bolt::chunk::DechunkLimits;
use bolt::inbox::{Inbox, Received};
use packstream::{DecodeLimits, DecodeOptions, Decoder};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};

use crate::arrow::ArrowSink;
use crate::decode::Builder;
use crate::errors;
use crate::ffi::Input;

/// Once an inbox is empty and between messages, and holds more buffer memory than
/// [`SHRINK_ABOVE`], it is shrunk to about this much (half for its queue, half for the
/// partial-message buffer), so one huge message or batch does not pin its memory for the
/// life of the stream.
const KEEP_CAPACITY: usize = 256 * 1024;

/// Buffers up to this size are kept as they are: shrinking them after every batch of
/// ordinary large messages would cost fresh page faults at every call (measured: 10x on
/// ten 100 KB messages fed to a new `Dechunker` each time), for little memory.
const SHRINK_ABOVE: usize = 4 * 1024 * 1024;

/// Gives back what a rare huge message made the inbox's buffers grow to, once it is
/// empty and between messages (never in the middle of one, which would copy its partial
/// bytes again at every feed).
fn release_memory(inbox: &mut Inbox) {
    if inbox.is_at_boundary() && inbox.buffer_capacity() > SHRINK_ABOVE {
        inbox.shrink_buffer_to(KEEP_CAPACITY / 2);
    }
}

/// Decodes the fields of `message` into a new list, hooks applied: `(signature, fields)`.
/// A `DecodeError` carries ``message_offset``, the stream offset of its first chunk
/// header.
fn decode_message<'py>(
    py: Python<'py>,
    message: Received<'_>,
    opts: DecodeOptions,
    hook: Option<&Bound<'py, PyAny>>,
) -> PyResult<(u8, Bound<'py, PyList>)> {
    let mut dec = Decoder::with_options(&[], opts);
    let mut b = Builder::new(py, hook.cloned());
    let fields = PyList::empty(py);
    let signature = b
        .message_into(&mut dec, message, &fields)
        .map_err(|f| at_message(py, f.into_pyerr(py, 0, message.bytes()), message))?;
    Ok((signature, fields))
}

/// Adds ``message_offset`` (the stream offset of the failed message's first chunk header)
/// to a `DecodeError`; other exceptions (a hook's own) are left as they are.
fn at_message(py: Python<'_>, err: PyErr, message: Received<'_>) -> PyErr {
    if err.is_instance_of::<errors::DecodeError>(py) {
        errors::set_attrs(
            py,
            &err,
            &[("message_offset", Some(message.stream_offset()))],
        );
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
    inbox: Inbox,
    opts: DecodeOptions,
    /// The error of a message that failed after others were returned by the same call:
    /// raised by the next call, before any message after it.
    deferred: Option<PyErr>,
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
            inbox: Inbox::with_limits(DechunkLimits {
                max_message_size,
                max_chunks,
            }),
            opts: DecodeOptions::default().with_uuid(uuid).with_limits(limits),
            deferred: None,
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
            // Framed and queued before anything can fail, so no input is ever lost.
            self.inbox.feed(Input::new(data)?.as_slice());
            if let Some(e) = self.deferred.take() {
                return Err(e);
            }
            let out = PyList::empty(py);
            for m in self.inbox.iter() {
                // Out of memory: every message stays queued for the next call.
                out.append(PyBytes::new(py, m.bytes()))?;
            }
            self.inbox.consume(out.len());
            release_memory(&mut self.inbox);
            match self.inbox.error() {
                Some(e) if out.is_empty() => Err(errors::dechunk_error(py, e)),
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
            // The inbox owns the messages it queues: hooks may run Python code, so
            // nothing of the caller's buffer stays borrowed while they do.
            self.inbox.feed(Input::new(data)?.as_slice());
            if let Some(e) = self.deferred.take() {
                return Err(e);
            }
            let hook = struct_hook.filter(|h| !h.is_none());
            let out = PyList::empty(py);
            while let Some(message) = self.inbox.get(0) {
                let decoded = decode_message(py, message, self.opts, hook.as_ref())
                    .and_then(|(tag, fields)| {
                        PyTuple::new(py, [tag.into_pyobject(py)?.into_any(), fields.into_any()])
                    })
                    .and_then(|message| out.append(message));
                self.inbox.consume(1);
                if let Err(e) = decoded {
                    if out.is_empty() {
                        return Err(e);
                    }
                    self.deferred = Some(e);
                    return Ok(out);
                }
            }
            release_memory(&mut self.inbox);
            match self.inbox.error() {
                Some(e) if out.is_empty() => Err(errors::dechunk_error(py, e)),
                _ => Ok(out),
            }
        })
    }

    /// Call at the end of the stream: raises the deferred error of a failed message, if
    /// one is waiting, or ``DechunkError`` if the stream stopped inside a message.
    fn end_of_stream(&mut self, py: Python<'_>) -> PyResult<()> {
        if let Some(e) = self.deferred.take() {
            return Err(e);
        }
        self.inbox
            .end_of_stream()
            .map_err(|e| errors::dechunk_error(py, &e))
    }

    /// Whether the stream is between messages (nothing partial, nothing queued).
    #[getter]
    fn at_boundary(&self) -> bool {
        self.inbox.is_at_boundary() && self.deferred.is_none()
    }

    /// How many complete messages (and deferred errors) the next call delivers before
    /// any new input: non-zero after a call returned early because a message failed.
    #[getter]
    fn pending(&self) -> usize {
        self.inbox.len() + usize::from(self.deferred.is_some())
    }

    /// How many NOOPs (keep-alive ``00 00`` between messages) were skipped.
    #[getter]
    fn noop_count(&self) -> u64 {
        self.inbox.noop_count()
    }

    /// Bytes of buffer memory this Dechunker holds (internal: for the memory tests).
    #[getter]
    fn _buffer_capacity(&self) -> usize {
        self.inbox.buffer_capacity()
    }

    /// How many bytes were fed in total.
    #[getter]
    fn stream_offset(&self) -> u64 {
        self.inbox.stream_offset()
    }

    /// Forgets all state, queued messages and deferred errors included, as for a new
    /// connection.
    fn reset(&mut self) {
        self.inbox.reset();
        self.deferred = None;
        release_memory(&mut self.inbox);
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
    inbox: Inbox,
    opts: DecodeOptions,
    /// The error of a RECORD that failed while merging: raised by the next pop.
    deferred: Option<PyErr>,
    /// How many RECORDs at most to merge into one.
    max_batch: usize,
    /// Where RECORDs go instead of being decoded, while ``boltcodec.arrow`` reads a
    /// result as Arrow.
    sink: Option<Py<ArrowSink>>,
}

#[pymethods]
impl MessageReader {
    #[new]
    #[pyo3(signature = (*, uuid = false, max_batch = 65536))]
    fn new(uuid: bool, max_batch: usize) -> Self {
        MessageReader {
            inbox: Inbox::new(),
            opts: DecodeOptions::default().with_uuid(uuid),
            deferred: None,
            max_batch: max_batch.max(1),
            sink: None,
        }
    }

    /// Feeds the first ``n`` bytes of ``buffer`` (what ``recv_into`` returned).
    fn feed(&mut self, buffer: &Bound<'_, PyAny>, n: usize) -> PyResult<()> {
        crate::guard(|| {
            let input = Input::new(buffer)?;
            let data = input.as_slice();
            self.inbox.feed(data.get(..n).unwrap_or(data));
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
            if let Some(e) = self.deferred.take() {
                return Err(e);
            }
            if let Some(sink) = &self.sink {
                // The RECORDs queued at the front go to the sink as bytes; the driver
                // sees only the other messages.
                let mut sink = sink.bind(py).try_borrow_mut()?;
                let mut taken = 0;
                for message in self.inbox.iter() {
                    if !message.is_record() {
                        break;
                    }
                    sink.push(message);
                    taken += 1;
                }
                drop(sink);
                self.inbox.consume(taken);
            }
            if self.inbox.is_empty() {
                release_memory(&mut self.inbox);
                if let Some(e) = self.inbox.error() {
                    return Err(errors::dechunk_error(py, e));
                }
                return Ok(None);
            }
            let hook = crate::dropin::structure_hook(py, hydration_hooks)?;
            let mut dec = Decoder::with_options(&[], self.opts);
            let mut b = Builder::new(py, hook);
            let fields = PyList::empty(py);
            let mut taken = 1;
            let mut deferred = None;
            let signature = {
                let mut messages = self.inbox.iter();
                let Some(first) = messages.next() else {
                    return Ok(None);
                };
                match b.message_into(&mut dec, first, &fields) {
                    Ok(signature) => {
                        if first.is_record() {
                            // The RECORDs queued right after it join it, each whole or
                            // not at all; a failing one is consumed, its error raised
                            // by the next pop.
                            for next in messages.take(self.max_batch - 1) {
                                if !next.is_record() {
                                    break;
                                }
                                taken += 1;
                                if let Err(f) = b.message_into(&mut dec, next, &fields) {
                                    let e = f.into_pyerr(py, 0, next.bytes());
                                    deferred = Some(at_message(py, e, next));
                                    break;
                                }
                            }
                        }
                        Ok(signature)
                    }
                    Err(f) => Err(at_message(py, f.into_pyerr(py, 0, first.bytes()), first)),
                }
            };
            self.inbox.consume(taken);
            self.deferred = deferred;
            release_memory(&mut self.inbox);
            let signature = signature?;
            Ok(Some((PyBytes::new(py, &[signature]), fields)))
        })
    }

    /// How many NOOPs (keep-alive ``00 00`` between messages) were skipped.
    #[getter]
    fn noop_count(&self) -> u64 {
        self.inbox.noop_count()
    }

    /// The ``ArrowSink`` RECORDs go to instead of being decoded (``None``: decoded).
    #[getter]
    fn arrow_sink(&self, py: Python<'_>) -> Option<Py<ArrowSink>> {
        self.sink.as_ref().map(|s| s.clone_ref(py))
    }

    #[setter]
    fn set_arrow_sink(&mut self, sink: Option<Py<ArrowSink>>) {
        self.sink = sink;
    }

    /// Whether a complete message (or an error) is buffered.
    #[getter]
    fn has_message(&self) -> bool {
        !self.inbox.is_empty() || self.deferred.is_some() || self.inbox.error().is_some()
    }
}
