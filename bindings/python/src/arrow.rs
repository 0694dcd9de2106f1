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
use bolt::BoltVersion;
use bolt_arrow::PullDecoder;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};

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
