//! A whole PULL response into Apache Arrow IPC stream bytes (the `arrow` feature, on by
//! default): `decodeRecordsToArrowIPC` in `index.js`, which apache-arrow's
//! `tableFromIPC` reads. The decoding and the typing rules are `bolt_arrow`'s
//! (crates/arrow); this module only writes the batch in the IPC stream format.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use bolt::BoltVersion;
use bolt_arrow::PullDecoder;
use napi::bindgen_prelude::{Buffer, BufferSlice};
use napi_derive::napi;

use crate::ErrorInfo;

/// What `decodeRecordsToArrowIpc` returns: the IPC bytes, or the error as data (JS
/// throws it as a `BoltcodecError`).
#[napi(object)]
pub struct ArrowIpcResult {
    /// The Arrow IPC stream (schema message, the record batch if there were rows, end
    /// marker); absent on error.
    pub ipc: Option<Buffer>,
    /// The number of rows.
    pub rows: f64,
    /// The decoding error, if any.
    pub error: Option<ErrorInfo>,
}

fn failed(error: ErrorInfo) -> ArrowIpcResult {
    ArrowIpcResult {
        ipc: None,
        rows: 0.0,
        error: Some(error),
    }
}

/// The error as data: `offset` inside the record message (or in the stream for stream
/// errors), `messageOffset` where the record's message starts in the stream.
fn error_info(e: &bolt_arrow::Error) -> ErrorInfo {
    let stream = e.stream_offset().map_or(-1.0, |o| o as f64);
    ErrorInfo {
        kind: e.kind().to_owned(),
        offset: e.offset().map_or(stream, |o| o as f64),
        message_offset: stream,
        message: e.to_string(),
    }
}

/// All-`Null` columns, for a result without rows.
fn null_schema(names: &[String]) -> SchemaRef {
    Arc::new(Schema::new(
        names
            .iter()
            .map(|n| Field::new(n, DataType::Null, true))
            .collect::<Vec<_>>(),
    ))
}

/// The IPC stream of `batch` (none for a result without rows) with `schema`.
fn ipc_bytes(schema: &SchemaRef, batch: Option<&RecordBatch>) -> Result<Vec<u8>, String> {
    let mut writer = StreamWriter::try_new(Vec::new(), schema).map_err(|e| e.to_string())?;
    if let Some(batch) = batch {
        writer.write(batch).map_err(|e| e.to_string())?;
    }
    writer.finish().map_err(|e| e.to_string())?;
    writer.into_inner().map_err(|e| e.to_string())
}

/// Decodes the bytes of a whole PULL response (the chunked RECORD messages and the
/// summary, as received after the RUN's SUCCESS) into one Arrow record batch, typed from
/// every row, and returns it as Arrow IPC stream bytes. `fields` are the RUN SUCCESS
/// `fields`, `version` the negotiated Bolt version (`"5.8"`), `utcPatch` whether Bolt
/// 4.4's `utc` patch is in effect. Throws only for an invalid version; decoding errors
/// come back as data.
#[napi(catch_unwind)]
pub fn decode_records_to_arrow_ipc(
    input: BufferSlice<'_>,
    fields: Vec<String>,
    version: String,
    utc_patch: bool,
) -> napi::Result<ArrowIpcResult> {
    let v: BoltVersion = version
        .parse()
        .map_err(|e| napi::Error::from_reason(format!("version {version:?}: {e}")))?;
    let v = v.with_utc_patch(utc_patch && v.supports_utc_patch());
    let bytes: &[u8] = &input;
    let mut pull = PullDecoder::new(v, fields.iter().cloned());
    let batch = match pull.feed(bytes) {
        Ok(b) => b,
        Err(e) => return Ok(failed(error_info(&e))),
    };
    if !(pull.is_done() || pull.has_more()) {
        return Ok(failed(ErrorInfo {
            kind: "unexpected_end".to_owned(),
            offset: bytes.len() as f64,
            message_offset: -1.0,
            message: format!(
                "the bytes end before the PULL response's summary (SUCCESS or FAILURE), \
                 at stream byte {}",
                bytes.len()
            ),
        }));
    }
    let schema = pull.schema().unwrap_or_else(|| null_schema(&fields));
    match ipc_bytes(&schema, batch.as_ref()) {
        Ok(ipc) => Ok(ArrowIpcResult {
            ipc: Some(ipc.into()),
            rows: batch.as_ref().map_or(0, RecordBatch::num_rows) as f64,
            error: None,
        }),
        Err(message) => Ok(failed(ErrorInfo {
            kind: "arrow".to_owned(),
            offset: -1.0,
            message_offset: -1.0,
            message: format!("writing Arrow IPC: {message}"),
        })),
    }
}
