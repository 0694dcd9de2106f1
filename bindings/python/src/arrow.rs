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
        let version: BoltVersion = version
            .parse()
            .map_err(|e| PyValueError::new_err(format!("version {version:?}: {e}")))?;
        let version = version.with_utc_patch(utc_patch && version.supports_utc_patch());
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
        let schema = schema.unwrap_or_else(|| {
            // No row: every column is of the Null type.
            Arc::new(Schema::new(
                fields
                    .iter()
                    .map(|n| Field::new(n, DataType::Null, true))
                    .collect::<Vec<_>>(),
            ))
        });
        Ok(ArrowBatches {
            schema,
            batches: batch.into_iter().collect(),
        })
    })
}
