//! `boltcodec.arrow`: PULL responses into Apache Arrow, exported through the Arrow
//! PyCapsule interface (`__arrow_c_stream__`), so that `pyarrow.table(...)`,
//! `polars.DataFrame(...)` and others take the columns without copying and without
//! boltcodec depending on either.
//!
//! The decoding is `bolt_arrow`'s (crates/arrow); this module only moves bytes in and
//! a C stream out.

use std::sync::Arc;

use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bolt::inbox::Received;
use bolt::message::{MessageCodec, MessageSource, Record};
use bolt::BoltVersion;
use bolt_arrow::{ArrowDecoder, PullDecoder};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};

use crate::encode::{self, Flavour, PackConfig};
use crate::errors::DecodeError;
use crate::guard;

/// Record batches with one schema: what `decode_records` returns.
///
/// Export it with ``__arrow_c_stream__`` (``pyarrow.table(batches)``,
/// ``polars.DataFrame(batches)``); each export is an independent stream over the same
/// immutable buffers.
#[pyclass(module = "boltcodec._native", name = "ArrowBatches", frozen)]
pub struct ArrowBatches {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

#[pymethods]
impl ArrowBatches {
    /// The Arrow PyCapsule stream interface: a capsule named ``arrow_array_stream``
    /// holding an ``ArrowArrayStream``. ``requested_schema`` is accepted and ignored
    /// (the interface allows that: the consumer casts if it wants another schema).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        guard(|| {
            let reader = RecordBatchIterator::new(
                self.batches.clone().into_iter().map(Ok),
                self.schema.clone(),
            );
            let stream = FFI_ArrowArrayStream::new(Box::new(reader));
            // The capsule owns the stream (its pointer is the stream's address); a
            // consumer moves it out and sets its `release` to null, otherwise dropping
            // the capsule drops the stream, which releases it.
            PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
        })
    }

    /// The number of rows.
    fn __len__(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// The number of record batches.
    #[getter]
    fn num_batches(&self) -> usize {
        self.batches.len()
    }

    /// The column names.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    /// The Arrow type of each column, as Arrow's own text (``"Int64"``, ``"Utf8"``, …).
    #[getter]
    fn column_types(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.data_type().to_string())
            .collect()
    }

    fn __repr__(&self) -> String {
        let cols: Vec<String> = self
            .schema
            .fields()
            .iter()
            .map(|f| format!("{}: {}", f.name(), f.data_type()))
            .collect();
        format!(
            "ArrowBatches({} rows in {} batches; {})",
            self.__len__(),
            self.batches.len(),
            cols.join(", ")
        )
    }
}

/// The `DecodeError` for a `bolt_arrow` error, with ``kind`` and ``offset`` set
/// (``offset``: inside the record message, or in the stream for stream errors;
/// ``stream_offset``: where the record's message starts, when known).
fn arrow_error(py: Python<'_>, e: &bolt_arrow::Error) -> PyErr {
    let err = DecodeError::new_err(e.to_string());
    let value = err.value(py);
    // Setting attributes on a fresh exception cannot fail in practice; if it did, the
    // exception is still raised, only without them.
    let _ = value.setattr("kind", e.kind());
    let _ = value.setattr("offset", e.offset());
    let _ = value.setattr("stream_offset", e.stream_offset());
    let _ = value.setattr("expected", "");
    err
}

/// The Bolt version named `text` (`"5.8"`), with the `utc` patch when asked and possible.
fn parse_version(text: &str, utc_patch: bool) -> PyResult<BoltVersion> {
    let version: BoltVersion = text
        .parse()
        .map_err(|e| PyValueError::new_err(format!("version {text:?}: {e}")))?;
    Ok(version.with_utc_patch(utc_patch && version.supports_utc_patch()))
}

/// All-`Null` columns for a result that had no row.
fn null_schema(fields: &[String]) -> SchemaRef {
    Arc::new(Schema::new(
        fields
            .iter()
            .map(|n| Field::new(n, DataType::Null, true))
            .collect::<Vec<_>>(),
    ))
}

/// Decodes the bytes of a whole PULL response (the chunked RECORD messages and the
/// summary, as received after the RUN's SUCCESS) into Arrow, typed from every row.
///
/// ``fields`` are the RUN SUCCESS ``fields``; ``version`` the negotiated Bolt version
/// (``"5.8"``); ``utc_patch`` whether Bolt 4.4's ``utc`` patch is in effect.
/// Raises ``DecodeError`` (``kind``, ``offset``) on malformed input, a server FAILURE in
/// the bytes, or an incomplete response.
#[pyfunction]
#[pyo3(signature = (data, fields, version = "5.8", utc_patch = false))]
pub(crate) fn decode_records(
    py: Python<'_>,
    data: &Bound<'_, PyBytes>,
    fields: Vec<String>,
    version: &str,
    utc_patch: bool,
) -> PyResult<ArrowBatches> {
    guard(|| {
        let version = parse_version(version, utc_patch)?;
        let names = fields.clone();
        let bytes = data.as_bytes();
        let (result, done) = py.detach(|| {
            let mut pull = PullDecoder::new(version, names);
            let r = pull.feed(bytes);
            (
                r.map(|b| (b, pull.schema())),
                pull.is_done() || pull.has_more(),
            )
        });
        let (batch, schema) = result.map_err(|e| arrow_error(py, &e))?;
        if !done {
            let err = DecodeError::new_err(
                "the bytes end before the PULL response's summary (SUCCESS or FAILURE)",
            );
            let value = err.value(py);
            let _ = value.setattr("kind", "unexpected_end");
            let _ = value.setattr("offset", bytes.len());
            let _ = value.setattr("stream_offset", py.None());
            let _ = value.setattr("expected", "a summary message");
            return Err(err);
        }
        // No row: every column is of the Null type.
        let schema = schema.unwrap_or_else(|| null_schema(&fields));
        Ok(ArrowBatches {
            schema,
            batches: batch.into_iter().collect(),
        })
    })
}

/// A PULL response decoded as it arrives: ``feed`` the bytes read from the socket, get a
/// batch of the records they completed. Memory is one batch, whatever the result size.
///
/// ``take_has_more()`` is true once per ``SUCCESS {has_more: true}``: send the next
/// ``PULL {n}`` then. ``done`` once the final summary arrived. The first batch with rows
/// fixes the schema; a later value that does not fit raises ``DecodeError`` with
/// ``kind == "type_changed"``.
#[pyclass(module = "boltcodec._native", name = "ArrowStream")]
pub struct ArrowStream {
    pull: PullDecoder,
}

#[pymethods]
impl ArrowStream {
    #[new]
    #[pyo3(signature = (fields, version = "5.8", utc_patch = false))]
    fn new(fields: Vec<String>, version: &str, utc_patch: bool) -> PyResult<Self> {
        let version = parse_version(version, utc_patch)?;
        Ok(ArrowStream {
            pull: PullDecoder::new(version, fields),
        })
    }

    /// Takes the next bytes; returns the records they completed (``ArrowBatches`` of one
    /// batch), or ``None``.
    fn feed(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyBytes>,
    ) -> PyResult<Option<ArrowBatches>> {
        guard(|| {
            let bytes = data.as_bytes();
            let pull = &mut self.pull;
            let batch = py.detach(|| pull.feed(bytes));
            let batch = batch.map_err(|e| arrow_error(py, &e))?;
            Ok(batch.map(|b| ArrowBatches {
                schema: b.schema(),
                batches: vec![b],
            }))
        })
    }

    /// True once per ``SUCCESS {has_more: true}`` received: send the next PULL.
    fn take_has_more(&mut self) -> bool {
        self.pull.take_has_more()
    }

    /// Whether the final summary arrived.
    #[getter]
    fn done(&self) -> bool {
        self.pull.is_done()
    }

    /// Whether the last summary was a SUCCESS with ``has_more``.
    #[getter]
    fn has_more(&self) -> bool {
        self.pull.has_more()
    }

    /// The column names.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.pull.decoder().names().to_vec()
    }
}

/// A RECORD message kept by an [`ArrowSink`]: where its bytes lie in the sink's buffer,
/// and where it started in the stream.
#[derive(Clone, Copy)]
struct Kept {
    start: usize,
    len: usize,
    stream_offset: u64,
}

/// A kept message's bytes, as the core's batch decoder takes them.
struct KeptMessage<'a> {
    bytes: &'a [u8],
    stream_offset: u64,
}

impl<'a> MessageSource<'a> for KeptMessage<'a> {
    fn message_bytes(&self) -> &'a [u8] {
        self.bytes
    }

    fn stream_offset(&self) -> Option<u64> {
        Some(self.stream_offset)
    }
}

/// Where the driver drop-in's receive path puts the RECORDs of one result when
/// ``boltcodec.arrow.to_arrow`` asks for Arrow: the raw RECORD messages go in (no Python
/// object per row or value), Arrow record batches come out.
///
/// The messages are kept as bytes and decoded ``batch_rows`` at a time, so the schema is
/// fixed by the first ``batch_rows`` rows (all of them, for a smaller result). The first
/// error (a malformed record, a value whose type does not fit the schema) is kept, every
/// later record is dropped, and ``finish`` raises it, so the result can still be read to
/// its end and the connection stays usable.
#[pyclass(module = "boltcodec._native", name = "ArrowSink")]
pub struct ArrowSink {
    codec: MessageCodec,
    decoder: ArrowDecoder,
    raw: Vec<u8>,
    kept: Vec<Kept>,
    batches: Vec<RecordBatch>,
    error: Option<bolt_arrow::Error>,
    batch_rows: usize,
    rows: usize,
}

impl ArrowSink {
    /// Keeps one RECORD message (the caller checked it is one).
    pub(crate) fn push(&mut self, message: Received<'_>) {
        self.rows += 1;
        if self.error.is_some() {
            return;
        }
        self.kept.push(Kept {
            start: self.raw.len(),
            len: message.bytes().len(),
            stream_offset: message.stream_offset(),
        });
        self.raw.extend_from_slice(message.bytes());
        if self.kept.len() >= self.batch_rows {
            self.flush();
        }
    }

    /// Decodes the kept messages into one batch.
    fn flush(&mut self) {
        if self.kept.is_empty() || self.error.is_some() {
            return;
        }
        let batch = {
            let raw = &self.raw;
            let messages = self.kept.iter().map(|k| KeptMessage {
                bytes: raw.get(k.start..k.start + k.len).unwrap_or_default(),
                stream_offset: k.stream_offset,
            });
            let (records, _, _, error) = self.codec.decode_records(messages).into_parts();
            let offsets: Vec<u64> = self.kept.iter().map(|k| k.stream_offset).collect();
            match error {
                Some(e) => Err(bolt_arrow::Error::Stream(e)),
                None => self.decoder.decode_at(&records, Some(&offsets)),
            }
        };
        match batch {
            Ok(b) => self.batches.push(b),
            Err(e) => self.error = Some(e),
        }
        self.raw.clear();
        self.kept.clear();
    }
}

#[pymethods]
impl ArrowSink {
    #[new]
    #[pyo3(signature = (fields, version = "5.8", utc_patch = false, batch_rows = 65536))]
    fn new(
        fields: Vec<String>,
        version: &str,
        utc_patch: bool,
        batch_rows: usize,
    ) -> PyResult<Self> {
        let version = parse_version(version, utc_patch)?;
        Ok(ArrowSink {
            codec: MessageCodec::new(version),
            decoder: ArrowDecoder::new(version, fields),
            raw: Vec::new(),
            kept: Vec::new(),
            batches: Vec::new(),
            error: None,
            batch_rows: batch_rows.max(1),
            rows: 0,
        })
    }

    /// How many RECORDs were received.
    #[getter]
    fn rows(&self) -> usize {
        self.rows
    }

    /// Decodes what is still kept and returns every batch (``ArrowBatches``); raises
    /// ``DecodeError`` with the first error met. The sink is empty afterwards.
    fn finish(&mut self, py: Python<'_>) -> PyResult<ArrowBatches> {
        guard(|| {
            py.detach(|| self.flush());
            if let Some(e) = self.error.take() {
                self.batches.clear();
                return Err(arrow_error(py, &e));
            }
            let schema = self
                .decoder
                .schema()
                .unwrap_or_else(|| null_schema(self.decoder.names()));
            Ok(ArrowBatches {
                schema,
                batches: std::mem::take(&mut self.batches),
            })
        })
    }
}

/// Rows of Python values (the official driver's values, as its records hold them) into
/// Arrow, with the same types as the native path: each row is packed as the driver
/// packs parameters (``dehydration_hooks``: its temporal, spatial and vector types) and
/// read back as a record. The slower way, for when the drop-in's receive path is off.
#[pyfunction]
#[pyo3(signature = (rows, fields, version = "5.8", utc_patch = false, dehydration_hooks = None))]
pub(crate) fn arrow_from_rows<'py>(
    py: Python<'py>,
    rows: Vec<Bound<'py, PyAny>>,
    fields: Vec<String>,
    version: &str,
    utc_patch: bool,
    dehydration_hooks: Option<Bound<'py, PyAny>>,
) -> PyResult<ArrowBatches> {
    guard(|| {
        let version = parse_version(version, utc_patch)?;
        let opts = MessageCodec::new(version).decode_options();
        let cfg = PackConfig {
            flavour: Flavour::Driver,
            uuid: opts.uuid,
            hook: dehydration_hooks.filter(|h| !h.is_none()),
            max_depth: encode::DEFAULT_MAX_DEPTH,
        };
        let packed = rows
            .iter()
            .map(|row| encode::pack(py, row, &cfg))
            .collect::<PyResult<Vec<_>>>()?;
        let mut records = Vec::with_capacity(packed.len());
        for bytes in &packed {
            let bytes = bytes.as_bytes();
            let row = packstream::Decoder::with_options(bytes, opts)
                .read_value_ref()
                .map_err(|e| crate::errors::decode_error(py, &e, bytes, e.expected()))?;
            let values = row
                .into_list()
                .map_err(|_| PyValueError::new_err("each row must be a list of values"))?;
            records.push(Record::new(values));
        }
        let mut decoder = ArrowDecoder::new(version, fields);
        let batch = decoder.decode(&records).map_err(|e| arrow_error(py, &e))?;
        let schema = decoder
            .schema()
            .unwrap_or_else(|| null_schema(decoder.names()));
        Ok(ArrowBatches {
            schema,
            batches: if batch.num_rows() == 0 {
                Vec::new()
            } else {
                vec![batch]
            },
        })
    })
}
